# SPDX-License-Identifier: GPL-2.0
#
# What the booted system's scripts share (boot1.sh, boot2.sh, boot3.sh,
# run by boot-runner from the archive tests/system/run.sh makes): the
# selftests' TAP helpers (lib.sh), an attacker's network namespace behind
# eth0, the daemons' readiness, and the state kept on the disk from one
# boot to the next.

. ./lib.sh
. ./kernels

STATE=/var/lib/cfilter-test
SSHD_LOG=/var/log/cfilter-test-sshd.log
ATTACKER=attacker
HOST=10.77.0.1
# The attacker's addresses: one banned by no one, then one per kind of ban.
FREE=10.77.0.10
PERM=10.77.0.11		# the operator's, for ever
TIMED=10.77.0.12	# the operator's, for an hour
SHORT=10.77.0.13	# the operator's, over before the next boot checks
F2B=10.77.0.14		# fail2ban's sshd jail
CS=10.77.0.15		# a CrowdSec decision

mkdir -p "$STATE"

# A diagnostic of where the time goes, in seconds since boot.
mark()
{
	diag "$(cut -d' ' -f1 /proc/uptime) s since boot: $*"
}

# eth0p, the peer of the eth0 cfilter runs on, in the attacker's namespace
# with every address above.
attacker_setup()
{
	"$IP" netns add "$ATTACKER" &&
	"$IP" link set eth0p netns "$ATTACKER" &&
	"$IP" -n "$ATTACKER" link set lo up &&
	for _a in "$FREE" "$PERM" "$TIMED" "$SHORT" "$F2B" "$CS"; do
		"$IP" -n "$ATTACKER" addr add "$_a/24" dev eth0p || return 1
	done &&
	"$IP" -n "$ATTACKER" link set eth0p up
}

# pings ADDR: a ping from the attacker's ADDR to the host gets its answer,
# within three tries (the first may wait for ARP).
pings()
{
	for _try in 1 2 3; do
		"$IP" netns exec "$ATTACKER" ping -q -c 1 -W 2 -I "$1" "$HOST" \
			>/dev/null 2>&1 && return 0
	done
	return 1
}

# dropped ADDR...: no ping from any ADDR gets through, and the filter
# counted the drops.
dropped()
{
	for _a; do
		if "$IP" netns exec "$ATTACKER" ping -q -c 2 -i 0.3 -W 1 -I "$_a" \
			"$HOST" >/dev/null 2>&1; then
			echo "$_a: a ping got through"
			return 1
		fi
	done
}

# Debian's daemons, started by systemd, ready to act: fail2ban's jail
# reads its log, the LAPI answers and the bouncer runs cfilter's wrapper.
# One that is not says which, and what systemd knows of it.
daemons_ready()
{
	fail2ban_ready || return 1
	within 180 cscli lapi status ||
		{ daemon_diag 'the LAPI does not answer' crowdsec; return 1; }
	within 120 pgrep -f 'cfctl crowdsec' ||
		{ daemon_diag 'no cfctl crowdsec runs' crowdsec-custom-bouncer; return 1; }
}

# fail2ban's sshd jail reads its log (boot3's one daemon: CrowdSec is
# masked there).
fail2ban_ready()
{
	within 180 fail2ban-client status sshd ||
		{ daemon_diag 'fail2ban has no sshd jail' fail2ban; return 1; }
}

# daemon_diag WHY UNIT: WHY, then UNIT's status and its last journal
# lines (expect prints a failing check's output).
daemon_diag()
{
	echo "$1"
	systemctl status --no-pager "$2" 2>&1 | head -n 12
	journalctl -b --no-pager -n 20 -u "$2" 2>&1
}

# sshd_fails ADDR: two failed logins from ADDR in the log fail2ban reads
# (the jail's maxretry).
sshd_fails()
{
	for _port in 50001 50002; do
		printf '%s cfilter-system sshd[%s]: Failed password for root from %s port %s ssh2\n' \
			"$(LC_ALL=C date '+%b %e %H:%M:%S')" "$$" "$1" "$_port" >>"$SSHD_LOG"
	done
}

# saved_deadline FILE SOURCE ADDR: the deadline (seconds since the epoch)
# of SOURCE's holding of ADDR in FILE, as cfctl save writes it.
saved_deadline()
{
	awk -v s="$2" -v a="$3" '
	/^source / { src = $2; next }
	!/^#/ && src == s && $1 == a && $2 == "expires" { print $3 }' "$1"
}

# same_deadline WAS NOW: two deadlines of one ban at most 2 s apart: a
# daemon's own deadline, which it rounds to a timeout for cfctl, against the
# kernel's. Says both when they are not.
same_deadline()
{
	[ -n "$1" ] && [ -n "$2" ] && [ "$(($1 - $2))" -le 2 ] &&
		[ "$(($2 - $1))" -le 2 ] && return 0
	echo "deadlines ${1:-none} and ${2:-none}: more than 2 s apart" >&2
	return 1
}

# kept_deadline WAS NOW: a deadline cfctl saved, loaded and saved again:
# the same second, or the next if one began while it listed the holdings
# (see user/lib/deadline.h). Says both when it is not.
kept_deadline()
{
	[ -n "$1" ] && [ -n "$2" ] && [ "$2" -ge "$1" ] &&
		[ "$2" -le "$(($1 + 1))" ] && return 0
	echo "deadline ${1:-none} saved, ${2:-none} after: not kept" >&2
	return 1
}

# fail2ban's end of its ban of ADDR: "ADDR \t START + BANTIME = END".
f2b_deadline()
{
	fail2ban-client get sshd banip --with-time |
		awk -v a="$1" '$1 == a { print $(NF - 1), $NF }' |
		{ read -r _d _t && date -d "$_d $_t" +%s; }
}
