#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The reboot after boot1.sh: every ban is back, with the deadline it had
# (none extended, none past its deadline brought back), and fail2ban and
# CrowdSec agree with the kernel.

. ./guest.sh

# deadline_kept SOURCE ADDR CHECK: CHECK (kept_deadline for what
# cfilter.service saved and loaded, same_deadline for what a daemon banned
# again) of the deadline before the reboot and after it.
deadline_kept()
{
	"$3" "$(saved_deadline "$STATE/boot1" "$1" "$2")" \
		"$(saved_deadline "$STATE/boot2" "$1" "$2")"
}

# The ban that ended during the reboot stays ended, looked at once its
# deadline is past on either clock.
short_stays_gone()
{
	_end=$(saved_deadline "$STATE/boot1" default "$SHORT")
	[ -n "$_end" ] || return 1
	while [ "$(date +%s)" -le $((_end + 2)) ]; do
		sleep 1
	done
	! cfctl test "$SHORT"
}

# CrowdSec's active decisions' addresses, and the crowdsec source's.
same_addresses()
{
	cscli decisions list -o raw | awk -F, 'NR > 1 { print $3 }' |
		sed 's/^Ip://' | sort >"$STATE/lapi" &&
	cfctl list -s crowdsec | awk '{ print $NF }' | sort >"$STATE/kernel" &&
	[ -s "$STATE/lapi" ] && cmp -s "$STATE/lapi" "$STATE/kernel"
}

tap_begin
mark "the script starts"
expect "running kernel $OLD_ABI again" 0 -o "$OLD_ABI" -- uname -r
check "cfilter.service started at boot" systemctl -q is-active cfilter
check "daemons ready" daemons_ready
mark "the daemons are ready"
# fail2ban flushed its bans when it stopped, and bans again at start what
# its database says is not over.
expect "fail2ban bans again within 60 s" 0 -- \
	within 60 cfctl test -s f2b-sshd "$F2B"
cfctl save >"$STATE/boot2"
check "the operator's ban for ever is back" cfctl test -s default --exact "$PERM"
expect "the operator's timed ban is back, its deadline kept" 0 -- \
	deadline_kept default "$TIMED" kept_deadline
expect "fail2ban's ban is back, its deadline kept" 0 -- \
	deadline_kept f2b-sshd "$F2B" same_deadline
expect "fail2ban bans it still, and ends it when the kernel does" 0 -- \
	same_deadline "$(f2b_deadline "$F2B")" \
	"$(saved_deadline "$STATE/boot2" f2b-sshd "$F2B")"
expect "CrowdSec's ban is back, its deadline kept" 0 -- \
	deadline_kept crowdsec "$CS" same_deadline
check "CrowdSec's active decisions are the crowdsec source's holdings" \
	same_addresses
check "the ban over during the reboot did not come back" short_stays_gone
check "the attacker's namespace" attacker_setup
check "every ban drops the attacker's pings" \
	dropped "$PERM" "$TIMED" "$F2B" "$CS"
check "the free address pings" pings "$FREE"
mark "the script ends"
tap_end
