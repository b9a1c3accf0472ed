#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Moving from ipset in one command: Debian's ipset, in the guest's Debian
# root, saves hash:net and hash:ip sets (timeouts, counters, comments and
# nomatch exceptions included), and `ipset save | cfctl load -` blocks what
# they blocked. A network with host bits set is refused unless --normalize.

. "$(dirname "$0")/lib.sh"

ipset_cleanup()
{
	in_debian ipset destroy >/dev/null 2>&1
	lib_cleanup
}
trap ipset_cleanup EXIT

# The migration, as an operator types it.
ipset_to_cfilter()
{
	in_debian ipset save | "$CFCTL" load -
}

# The set's default timeout holds the network for 600 s; "timeout 0" makes
# the address permanent.
timeouts_kept()
{
	"$CFCTL" list >"$tap_tmp/listed" &&
		grep -Eq -- '-t (59[0-9]|600) 192\.0\.2\.0/24$' "$tap_tmp/listed" &&
		grep -q '^198\.51\.100\.7$' "$tap_tmp/listed"
}

tap_begin
load_module || tap_skip_all "cannot load $CFILTER_KO"
[ -n "${DEBIAN_ROOT:-}" ] ||
	tap_skip_all "no Debian root: run the guest with VM_DEBIAN=1"

check "setup: cfctl clear" "$CFCTL" clear
check "ipset: create a hash:net set with timeouts, counters and comments" \
	in_debian ipset create bl hash:net timeout 600 counters comment
check "ipset: add a network, an address and a nomatch exception" \
	in_debian sh -c 'ipset add bl 192.0.2.0/24 comment "from a feed" &&
			 ipset add bl 198.51.100.7 timeout 0 &&
			 ipset add bl 192.0.2.128/25 nomatch'
check "ipset: create a hash:ip set of IPv6 addresses" \
	in_debian sh -c 'ipset create bl6 hash:ip family inet6 &&
			 ipset add bl6 2001:db8::66'
in_debian ipset save >"$tap_tmp/saved"

expect "cfctl load - takes ipset save" 0 \
	-o "loaded 4 entries (4 added" -- ipset_to_cfilter
expect "the network keeps ipset's timeout, the address its permanence" 0 -- \
	timeouts_kept
expect "the network is dropped" 0 -o "drop (source prefix)" -- \
	"$CFCTL" match 192.0.2.5
expect "the nomatch exception inside it passes" 1 -o "allowed (exception)" -- \
	"$CFCTL" match 192.0.2.200
expect "the permanent address is dropped" 0 -o "drop (source address)" -- \
	"$CFCTL" match 198.51.100.7
expect "the IPv6 set's address is dropped" 0 -o "drop (source address)" -- \
	"$CFCTL" match 2001:db8::66
expect "nothing else is" 1 -o pass -- "$CFCTL" match 203.0.113.1

check "clear" "$CFCTL" clear
printf '%s\n' 192.0.2.7/24 198.51.100.0/24 >"$tap_tmp/sloppy"
expect "host bits set: refused by default, nothing loaded" 2 \
	-e "192.0.2.7/24: host bits set" -- "$CFCTL" load "$tap_tmp/sloppy"
expect "... the filter is empty" 1 -- "$CFCTL" test --exact src 198.51.100.0/24
expect "--normalize masks them and says how many" 0 \
	-e "1 prefix had host bits set: masked" -- \
	"$CFCTL" load --normalize "$tap_tmp/sloppy"
expect "... 192.0.2.0/24 is what was stored" 0 -- \
	"$CFCTL" test --exact src 192.0.2.0/24
"$CFCTL" clear >/dev/null

[ "$tap_failed" -eq 0 ] || diag_file "ipset save" "$tap_tmp/saved"
tap_end
