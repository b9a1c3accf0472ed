#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# First boot of the installed system: cfilter.service came up by itself
# and filters eth0; the README's commands run as written; the operator,
# fail2ban and CrowdSec ban; a reload keeps every ban; the drop log reaches
# the journal and ends with its setting. What the next boot
# compares against is saved in $STATE, and one ban is made to end during
# the reboot.

. ./guest.sh

tap_begin
mark "the script starts"
expect "running kernel $OLD_ABI" 0 -o "$OLD_ABI" -- uname -r
check "cfilter.service is enabled" systemctl -q is-enabled cfilter
check "cfilter.service started at boot" systemctl -q is-active cfilter
expect "the module is the one DKMS built" 0 -o /updates/dkms/ -- modinfo -n cfilter
check "the module has BTF" test -e /sys/kernel/btf/cfilter
expect "cfilter runs on eth0 from /etc/cfilter/interfaces" 0 \
	-o "eth0: cfilter_xdp" -- cfctl status
check "the attacker's namespace" attacker_setup
check "an address nobody banned pings" pings "$FREE"

printf '# the feed\n192.0.2.60\n2001:db8:bad::/48\n' >threat-feed.txt
expect "README: its commands on the running system, as written" 0 -- \
	sh -e readme-use.sh
check "daemons ready: fail2ban, CrowdSec's LAPI, the bouncer feeding cfctl" \
	daemons_ready
mark "the daemons are ready"

check "operator: a ban for ever" cfctl add "$PERM"
check "operator: a ban for an hour" cfctl add -t 3600 "$TIMED"
sshd_fails "$F2B"
expect "fail2ban: its sshd jail bans through cfilter within 60 s" 0 -- \
	within 60 cfctl test -s f2b-sshd "$F2B"
check "CrowdSec: a decision for an hour" \
	cscli decisions add --ip "$CS" --duration 1h --reason cfilter-test
expect "CrowdSec: the bouncer brings it to cfilter within 60 s" 0 -- \
	within 60 cfctl test -s crowdsec "$CS"
check "every ban drops the attacker's pings" \
	dropped "$PERM" "$TIMED" "$F2B" "$CS"
check "and the free address still pings" pings "$FREE"

mark "every ban is in"
cfctl save >"$STATE/before-reload"
check "systemctl reload cfilter" systemctl reload cfilter
cfctl save >"$STATE/after-reload"
expect "reload: every ban is still there, deadlines kept" 0 -- \
	same_saves "$STATE/before-reload" "$STATE/after-reload" \
	"$(grep -vc '^#' "$STATE/before-reload")"
check "reload: the bans still drop" dropped "$PERM" "$TIMED" "$F2B" "$CS"
check "reload: eth0 still filtered" sh -c 'cfctl status | grep -q "^eth0: cfilter_xdp"'

# The drop log in the journal, as the unit offers it: CFILTER_DROP_LOG=1 in
# /etc/default/cfilter, taken up by a reload, and ended by the next one
# once the setting is gone (nothing of the test's is left for apt purge).
droplog_has()
{
	dropped "$1" &&
	journalctl -q --no-pager -t cfilter-droplog | grep -qF "$1"
}
echo CFILTER_DROP_LOG=1 >/etc/default/cfilter
check "drop log: systemctl reload with CFILTER_DROP_LOG=1" systemctl reload cfilter
expect "drop log: a dropped ping's source in the journal as cfilter-droplog" 0 -- \
	within 30 droplog_has "$PERM"
rm /etc/default/cfilter
check "drop log: systemctl reload without it" systemctl reload cfilter
expect "drop log: its cfctl log has ended" 1 -- pgrep -f 'cfctl log'

# Over well before the next boot can look: it must not come back.
check "operator: a ban of 5 s, to end during the reboot" \
	cfctl add -t 5 "$SHORT"
cfctl save >"$STATE/boot1"
date +%s >"$STATE/boot1-end"
mark "the script ends"
tap_end
