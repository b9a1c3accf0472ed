#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Debian's own fail2ban bans through cfilter's action (packaging/fail2ban):
# a jail watches a log file, failed logins naming the namespace's address
# ban it as a timed holding of the jail's source, its pings are dropped at
# the NIC, and they pass again once the bantime is over, also when
# fail2ban was killed meanwhile: the kernel keeps the deadline. An unban
# of a holding gone already is no error; bantime -1 bans for ever.
# Stopping fail2ban lifts its bans, and only its own: the operator's ban
# of the same address stays. A jail name too long for a source keeps its
# action from starting; cfilter[source=NAME] gives it one. IPv4 and IPv6.
# A bantime past the kernel's longest timeout (2^31 - 1 s) still bans, for
# that long: set as such (1 h << 20), or grown by bantime.increment without
# bantime.maxtime on a repeat offender.

. "$(dirname "$0")/lib.sh"

JAIL=cftest
SOURCE=f2b-$JAIL
LOG=/var/log/cftest.log
F2B_LOG=/var/log/fail2ban.log
LONG_JAIL=cftest-named-past-31-chars-x
# Long enough for the checks made while a ban lasts; the debug kernel of
# make check-debug, several times slower, needs more (F2B_BANTIME).
BANTIME=${F2B_BANTIME:-15}
# How long an unban may take: the bantime, and 14 s for fail2ban to act.
UNBAN_WAIT=$((BANTIME + 14))
# Banned without being pinged.
GONE=198.51.100.7
FOREVER=198.51.100.8
RENAMED=198.51.100.9
HUGE=198.51.100.10
# A jail of its own whose bantime grows: $BANTIME s, then x 2 x 10^9.
INCR=cfincr
INCR_LOG=/var/log/cfincr.log
REPEAT=203.0.113.20
# The kernel's longest timeout, less a margin for the seconds a test takes.
NEAR_MAX=2147483000

f2b_cleanup()
{
	in_debian fail2ban-client stop >/dev/null 2>&1
	debian_stop_all
	lib_cleanup
}
trap f2b_cleanup EXIT

configure()
{
	d=$DEBIAN_ROOT
	cp fail2ban-cfilter.conf "$d/etc/fail2ban/action.d/cfilter.conf" &&
	# Debian enables an sshd jail whose log this system does not have.
	rm -f "$d/etc/fail2ban/jail.d/defaults-debian.conf" &&
	mkdir -p "$d/var/run/fail2ban" &&
	: >"$d$LOG" &&
	cat >"$d/etc/fail2ban/filter.d/$JAIL.conf" <<-EOT &&
	[Definition]
	failregex = ^$JAIL: failed login from <HOST>\$
	datepattern = {NONE}
	EOT
	cat >"$d/etc/fail2ban/fail2ban.local" <<-EOT &&
	[Definition]
	logtarget = $F2B_LOG
	dbfile = :memory:
	EOT
	: >"$d/etc/fail2ban/jail.local" &&
	add_jail "$JAIL" &&
	add_incr_jail
}

# A jail on a log of its own, whose bantime bantime.increment grows past
# the kernel's bound at the second ban.
add_incr_jail()
{
	: >"$DEBIAN_ROOT$INCR_LOG" &&
	cat >"$DEBIAN_ROOT/etc/fail2ban/filter.d/$INCR.conf" <<-EOT &&
	[Definition]
	failregex = ^$INCR: failed login from <HOST>\$
	datepattern = {NONE}
	EOT
	cat >>"$DEBIAN_ROOT/etc/fail2ban/jail.local" <<-EOT
	[$INCR]
	enabled = true
	filter = $INCR
	logpath = $INCR_LOG
	backend = polling
	banaction = cfilter
	maxretry = 3
	findtime = 60
	bantime = $BANTIME
	bantime.increment = true
	bantime.factor = 1000000000
	EOT
}

# add_jail NAME [LINE]: a jail NAME like $JAIL, with one more LINE.
add_jail()
{
	cat >>"$DEBIAN_ROOT/etc/fail2ban/jail.local" <<-EOT
	[$1]
	enabled = true
	filter = $JAIL
	logpath = $LOG
	backend = polling
	banaction = cfilter
	maxretry = 3
	findtime = 60
	bantime = $BANTIME
	${2:-}
	EOT
}

f2b_start()
{
	expect "$1: fail2ban starts with the cfilter action" 0 -- \
		in_debian fail2ban-client -x start
	expect "$1: the jail runs within 30 s" 0 -- \
		within 30 in_debian fail2ban-client status "$JAIL"
}

# Names one character too long for a source once "f2b-" is put before.
long_jails()
{
	add_jail "$LONG_JAIL" &&
	add_jail "${LONG_JAIL%x}y" "action = cfilter[source=f2b-renamed]"
}

fail_logins()
{
	for _n in 1 2 3; do
		echo "$JAIL: failed login from $1" >>"$DEBIAN_ROOT$LOG"
	done
}

fail_incr_logins()
{
	for _n in 1 2 3; do
		echo "$INCR: failed login from $1" >>"$DEBIAN_ROOT$INCR_LOG"
	done
}

# held_longer SOURCE ENTRY MIN: SOURCE holds ENTRY with MIN seconds left
# or more.
held_longer()
{
	_left=$("$CFCTL" list -s "$1" |
		awk -v e="$2" '$1 == "-t" && $3 == e { print $2 }')
	[ -n "$_left" ] && [ "$_left" -ge "$3" ]
}

# held_for_ever SOURCE ENTRY: cfctl list prints a permanent holding as
# the entry alone.
held_for_ever()
{
	"$CFCTL" list -s "$1" | grep -qxF "$2"
}

# fail2ban-client -x start runs the server in the background.
kill_f2b_server()
{
	_pid=$(debian_pid '*/fail2ban-server *') && kill -9 "$_pid"
}

ban_cycle()
{
	peer=$1 host=$2
	expect "$peer: ping passes before any failure" 0 -- \
		ping_from_ns_retry "$host"
	fail_logins "$peer"
	expect "$peer: banned by fail2ban as source $SOURCE within 20 s" 0 -- \
		within 20 "$CFCTL" test -s "$SOURCE" "$peer"
	# The ping first: the ban lasts BANTIME from fail2ban's action, and
	# fail2ban-client alone took seconds on a loaded guest.
	expect "$peer: its pings are dropped" nonzero -- ping_from_ns "$host"
	expect "$peer: held for at most the ${BANTIME} s bantime" 0 -- \
		held_for "$SOURCE" "$peer" "$BANTIME"
	expect "$peer: not held by the default source" 1 -- \
		"$CFCTL" test -s default "$peer"
	expect "$peer: fail2ban lists the ban" 0 -o "$peer" -- \
		in_debian fail2ban-client status "$JAIL"
	expect "$peer: unbanned after the ${BANTIME} s bantime (${UNBAN_WAIT} s at most)" 0 -- \
		within "$UNBAN_WAIT" not "$CFCTL" test -s "$SOURCE" "$peer"
	expect "$peer: its pings pass again" 0 -- ping_from_ns_retry "$host"
}

tap_begin
load_module || tap_skip_all "cannot load $CFILTER_KO"
[ -n "${DEBIAN_ROOT:-}" ] ||
	tap_skip_all "no Debian root: run the guest with VM_DEBIAN=1"
[ -f fail2ban-cfilter.conf ] ||
	tap_skip_all "fail2ban-cfilter.conf not built: make -C tests/selftests"

check "setup: cfctl clear" "$CFCTL" clear
check "setup: $NS and $VETH" veth_setup
check "setup: attach to $VETH" "$CFCTL" attach "$VETH"
check "setup: fail2ban configured" configure
f2b_start "first start"

ban_cycle "$PEER4" "$HOST4"
ban_cycle "$PEER6" "$HOST6"

# bantime.increment without bantime.maxtime: the second ban is longer than
# the kernel can time; held for its longest, once fail2ban has worked the
# bantime out (it may pass it on as a prolong, 10 s after the ban). The
# first ban must end by itself: an unbanip would forgive it.
fail_incr_logins "$REPEAT"
expect "increment: $REPEAT banned as f2b-$INCR within 20 s" 0 -- \
	within 20 "$CFCTL" test -s "f2b-$INCR" "$REPEAT"
expect "increment: the first ban for the ${BANTIME} s bantime" 0 -- \
	held_for "f2b-$INCR" "$REPEAT" "$BANTIME"
expect "increment: unbanned after it (${UNBAN_WAIT} s at most)" 0 -- \
	within "$UNBAN_WAIT" not "$CFCTL" test -s "f2b-$INCR" "$REPEAT"
fail_incr_logins "$REPEAT"
expect "increment: $REPEAT banned again within 20 s" 0 -- \
	within 20 "$CFCTL" test -s "f2b-$INCR" "$REPEAT"
expect "increment: ${BANTIME} s x 2 x 10^9: held for the longest timeout within 30 s" 0 -- \
	within 30 held_longer "f2b-$INCR" "$REPEAT" "$NEAR_MAX"

# A bantime the kernel would not end during the test: only fail2ban can
# lift these bans.
check "long bans: fail2ban-client set $JAIL bantime 600" \
	in_debian fail2ban-client set "$JAIL" bantime 600
check "long bans: $PEER4 banned by the operator too" "$CFCTL" add "$PEER4"
for addr in "$PEER4" "$PEER6" "$GONE"; do
	fail_logins "$addr"
	expect "long bans: $addr banned as $SOURCE within 20 s" 0 -- \
		within 20 "$CFCTL" test -s "$SOURCE" "$addr"
done
check "long bans: $GONE's holding goes, as at its deadline" \
	"$CFCTL" del -s "$SOURCE" "$GONE"
expect "long bans: fail2ban unbans $GONE all the same" 0 -- \
	in_debian fail2ban-client set "$JAIL" unbanip "$GONE"
check "huge bantime: fail2ban-client set $JAIL bantime 3774873600 (1 h << 20)" \
	in_debian fail2ban-client set "$JAIL" bantime 3774873600
fail_logins "$HUGE"
expect "huge bantime: $HUGE banned as $SOURCE within 20 s" 0 -- \
	within 20 "$CFCTL" test -s "$SOURCE" "$HUGE"
expect "huge bantime: held for the longest timeout" 0 -- \
	held_longer "$SOURCE" "$HUGE" "$NEAR_MAX"
check "for ever: fail2ban-client set $JAIL bantime -1" \
	in_debian fail2ban-client set "$JAIL" bantime -1
fail_logins "$FOREVER"
expect "for ever: $FOREVER banned as $SOURCE within 20 s" 0 -- \
	within 20 "$CFCTL" test -s "$SOURCE" "$FOREVER"
expect "for ever: held without a timeout" 0 -- \
	held_for_ever "$SOURCE" "$FOREVER"
expect "fail2ban stops" 0 -- in_debian fail2ban-client stop
expect "stopping fail2ban flushed $SOURCE" 0 -O "$SOURCE" -- \
	"$CFCTL" list
expect "stopping fail2ban lifted its ban of $PEER6" 0 -- \
	ping_from_ns_retry "$HOST6"
expect "the operator's ban of $PEER4 outlives the flush" 0 -- \
	"$CFCTL" test -s default "$PEER4"
expect "$PEER4's pings are still dropped" nonzero -- ping_from_ns "$HOST4"

f2b_start "restart"
fail_logins "$PEER4"
expect "unban: $PEER4 banned as $SOURCE too within 20 s" 0 -- \
	within 20 "$CFCTL" test -s "$SOURCE" "$PEER4"
expect "unban: $SOURCE lets go of $PEER4 after the bantime (${UNBAN_WAIT} s at most)" 0 -- \
	within "$UNBAN_WAIT" not "$CFCTL" test -s "$SOURCE" "$PEER4"
expect "unban: the operator's ban of $PEER4 outlives the jail's" 0 -- \
	"$CFCTL" test -s default "$PEER4"
expect "unban: $PEER4's pings are still dropped" nonzero -- \
	ping_from_ns "$HOST4"
check "the operator unbans $PEER4" "$CFCTL" del "$PEER4"
expect "$PEER4's pings pass" 0 -- ping_from_ns_retry "$HOST4"

fail_logins "$PEER4"
expect "kill: $PEER4 banned as $SOURCE within 20 s" 0 -- \
	within 20 "$CFCTL" test -s "$SOURCE" "$PEER4"
banned_at=$(now_cs)
expect "kill: kill -9 fail2ban-server" 0 -- \
	kill_f2b_server
expect "kill: fail2ban-server is gone within 5 s" 0 -- \
	within 5 not debian_pid '*/fail2ban-server *'
expect "kill: $PEER4's pings are still dropped" nonzero -- \
	ping_from_ns "$HOST4"
expect "kill: the kernel lifts the ban within the bantime + 2 s" 0 -- \
	before $((banned_at + (BANTIME + 2) * 100)) not "$CFCTL" test "$PEER4"
expect "kill: $PEER4's pings pass again" 0 -- ping_from_ns_retry "$HOST4"
expect "kill: $SOURCE holds nothing" 0 -O "$SOURCE" -- "$CFCTL" list

expect "fail2ban logged no error" 0 -O "ERROR" -- \
	cat "$DEBIAN_ROOT$F2B_LOG"

check "long names: two jails of 28 characters, one naming its source" \
	long_jails
f2b_start "long names"
expect "long names: $LONG_JAIL's action refuses to start, saying why" 0 -- \
	within 10 grep -qF "invalid source 'f2b-$LONG_JAIL'" \
	"$DEBIAN_ROOT$F2B_LOG"
fail_logins "$RENAMED"
expect "long names: the other bans $RENAMED as f2b-renamed within 20 s" 0 -- \
	within 20 "$CFCTL" test -s f2b-renamed "$RENAMED"
[ "$tap_failed" -eq 0 ] ||
	diag_file "fail2ban's log" "$DEBIAN_ROOT$F2B_LOG"

tap_end
