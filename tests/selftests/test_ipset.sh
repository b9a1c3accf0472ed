#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Moving from ipset in one command: Debian's ipset, in the guest's Debian
# root, saves hash:net and hash:ip sets (timeouts, counters, comments and
# nomatch exceptions included), and `ipset save | cfctl load -` blocks what
# they blocked. A nomatch exception, which holds inside its set alone, is
# refused unless --nomatch-allows makes it an allow entry. A hash:ip set
# with a netmask (or a bitmask of leading ones) blocks networks, and so do
# its entries in cfilter; another bitmask is refused. An IPv4-mapped
# address of an inet6 set blocks its IPv4 address. A network with host
# bits set is refused unless --normalize.

. "$(dirname "$0")/lib.sh"

ipset_cleanup()
{
	in_debian ipset destroy >/dev/null 2>&1
	lib_cleanup
}
trap ipset_cleanup EXIT

# The migration, as an operator types it (with OPTIONS of load).
ipset_to_cfilter()
{
	in_debian ipset save | "$CFCTL" load "$@" -
}

# Does this kernel's ipset know bitmask (Linux 6.2 and later)?
has_bitmask()
{
	in_debian ipset create cfprobe hash:ip bitmask 255.255.255.0 2>/dev/null &&
		in_debian ipset destroy cfprobe
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

expect "nomatch: load refuses the exception, saying why, nothing loaded" 2 \
	-e "ipset nomatch entry '192.0.2.128/25': in ipset an exception inside its own set alone" -- \
	ipset_to_cfilter
expect "... the filter is empty" 1 -- "$CFCTL" test 192.0.2.5
expect "cfctl load --nomatch-allows - takes ipset save" 0 \
	-o "loaded 4 entries (4 added" -- ipset_to_cfilter --nomatch-allows
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

check "netmask: clear" "$CFCTL" clear
check "netmask: destroy the sets" in_debian ipset destroy
check "netmask: a hash:ip set of /24 networks and a mapped address" \
	in_debian sh -c 'ipset create nets hash:ip netmask 24 &&
			 ipset add nets 203.0.113.9 &&
			 ipset create mapped hash:ip family inet6 &&
			 ipset add mapped ::ffff:198.51.100.99'
expect "netmask: ipset itself matches another address of the network" 0 -- \
	in_debian ipset test nets 203.0.113.77
in_debian ipset save >"$tap_tmp/saved.nets"
expect "netmask: cfctl load - takes it" 0 -o "loaded 2 entries (2 added" -- \
	ipset_to_cfilter
expect "netmask: the whole /24 is dropped, as ipset matched it" 0 \
	-o "drop (source prefix)" -- "$CFCTL" match 203.0.113.77
expect "netmask: stored as the network" 0 -- \
	"$CFCTL" test --exact src 203.0.113.0/24
expect "mapped: ::ffff:198.51.100.99 of an inet6 set drops 198.51.100.99" 0 \
	-o "drop (source address)" -- "$CFCTL" match 198.51.100.99
check "bitmask: clear" "$CFCTL" clear
check "bitmask: destroy the sets" in_debian ipset destroy
if has_bitmask; then
	check "bitmask: a set of leading ones, and one that is not" \
		in_debian sh -c 'ipset create wide hash:ip bitmask 255.255.0.0 &&
				 ipset add wide 10.1.2.3 &&
				 ipset create odd hash:ip bitmask 255.0.255.0 &&
				 ipset add odd 10.0.1.0'
	expect "bitmask: not a netmask: refused, saying so, nothing loaded" 2 \
		-e "ipset set 'odd': bitmask 255.0.255.0 is not a netmask" -- \
		ipset_to_cfilter
	cp "$tap_tmp/err" "$tap_tmp/odd.err"
	expect "... its entry named as refused" 0 -- grep -qF \
		"entry of ipset set 'odd', refused above" "$tap_tmp/odd.err"
	expect "... the filter is empty" 1 -- "$CFCTL" test 10.1.0.1
	check "bitmask: without the odd set" in_debian ipset destroy odd
	expect "bitmask 255.255.0.0: loaded as the /16" 0 \
		-o "loaded 1 entries (1 added" -- ipset_to_cfilter
	expect "bitmask 255.255.0.0: 10.1.200.200 is dropped" 0 \
		-o "drop (source prefix)" -- "$CFCTL" match 10.1.200.200
else
	tap_skip "bitmask" "this kernel's ipset has no bitmask (Linux 6.2 and later)"
fi
in_debian ipset destroy 2>/dev/null

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
[ "$tap_failed" -eq 0 ] || diag_file "ipset save of netmask sets" "$tap_tmp/saved.nets"
tap_end
