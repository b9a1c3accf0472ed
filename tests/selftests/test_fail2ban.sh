#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Debian's own fail2ban bans through cfilter's action (packaging/fail2ban):
# a jail watches a log file, failed logins naming the namespace's address
# ban it, its pings are dropped at the NIC, and they pass again once the
# bantime is over. Stopping fail2ban lifts its bans. IPv4 and IPv6.

. "$(dirname "$0")/lib.sh"

JAIL=cftest
LOG=/var/log/cftest.log
BANTIME=6

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
	logtarget = /var/log/fail2ban.log
	dbfile = :memory:
	EOT
	cat >"$d/etc/fail2ban/jail.local" <<-EOT
	[$JAIL]
	enabled = true
	filter = $JAIL
	logpath = $LOG
	backend = polling
	banaction = cfilter
	maxretry = 3
	findtime = 60
	bantime = $BANTIME
	EOT
}

fail_logins()
{
	for _n in 1 2 3; do
		echo "$JAIL: failed login from $1" >>"$DEBIAN_ROOT$LOG"
	done
}

ban_cycle()
{
	peer=$1 host=$2
	expect "$peer: ping passes before any failure" 0 -- \
		ping_from_ns_retry "$host"
	fail_logins "$peer"
	expect "$peer: banned by fail2ban into cfilter within 20 s" 0 -- \
		within 20 "$CFCTL" test "$peer"
	expect "$peer: fail2ban lists the ban" 0 -o "$peer" -- \
		in_debian fail2ban-client status "$JAIL"
	expect "$peer: its pings are dropped" nonzero -- ping_from_ns "$host"
	expect "$peer: unbanned after the ${BANTIME} s bantime (20 s at most)" 0 -- \
		within 20 not "$CFCTL" test "$peer"
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
expect "fail2ban starts with the cfilter action" 0 -- \
	in_debian fail2ban-client -x start
expect "the jail runs within 30 s" 0 -- \
	within 30 in_debian fail2ban-client status "$JAIL"

ban_cycle "$PEER4" "$HOST4"
ban_cycle "$PEER6" "$HOST6"

fail_logins "$PEER4"
expect "a third ban goes in" 0 -- within 20 "$CFCTL" test "$PEER4"
expect "fail2ban stops" 0 -- in_debian fail2ban-client stop
expect "stopping fail2ban lifted its ban" 1 -- "$CFCTL" test "$PEER4"
[ "$tap_failed" -eq 0 ] ||
	diag_file "fail2ban's log" "$DEBIAN_ROOT/var/log/fail2ban.log"

tap_end
