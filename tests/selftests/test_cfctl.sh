#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cfctl's command-line contract: exit status 0 success (test: blocked),
# 1 not blocked (test, del), 2 usage error or malformed input (stderr names
# the bad input), 3 system error (stderr says what to do). Message wording
# belongs to cfctl: only the bad input or the remedy's keyword is checked.

. "$(dirname "$0")/lib.sh"
trap lib_cleanup EXIT

# quiet STATUS ARGS...: cfctl -q ARGS exits STATUS and prints nothing on
# stdout.
quiet()
{
	_qwant=$1
	shift
	"$CFCTL" -q "$@" >"$tap_tmp/quiet"
	_qrc=$?
	[ "$_qrc" = "$_qwant" ] && [ ! -s "$tap_tmp/quiet" ]
}

# The first number on the `cfctl info` line for FIELD.
info_value()
{
	"$CFCTL" info 2>/dev/null | sed -n "s/^$1: *\([0-9][0-9]*\)$/\1/p"
}

tap_begin
load_module || tap_skip_all "cannot load $CFILTER_KO"
check "setup: cfctl clear" "$CFCTL" clear

# Usage.
expect "--help exits 0" 0 -o usage -- "$CFCTL" --help
expect "no command: exit 2" 2 -- "$CFCTL"
expect "unknown command: exit 2, named" 2 -e frobnicate -- \
	"$CFCTL" frobnicate
expect "unknown option: exit 2, named" 2 -e --frobnicate -- \
	"$CFCTL" --frobnicate
expect "unknown option of a command: exit 2, named" 2 -e --frobnicate -- \
	"$CFCTL" add --frobnicate 192.0.2.5
expect "... then one usage line with the way to more, not the whole help" 0 -- \
	sh -c '"$0" add --frobnicate 192.0.2.5 2>&1 >/dev/null |
	       sed -n 2p | grep -qxF "Usage: cfctl add [-n] [-s NAME] [-t SECS [--from TIME] [--cap-timeout]] ENTRY (cfctl add --help for more)" &&
	       test "$("$0" add --frobnicate 2>&1 | wc -l)" -eq 2' "$CFCTL"
for v in -V --version; do
	expect "$v: cfctl's version and the loaded module's" 0 \
		-o "cfilter.ko $(cat /sys/module/cfilter/version 2>/dev/null)" \
		-O "not loaded" -- "$CFCTL" "$v"
done
expect "the module has a version" 0 -- test -s /sys/module/cfilter/version
for verb in add allow del test match clear flush info list stats attach detach; do
	expect "$verb --help exits 0" 0 -o "cfctl $verb" -- \
		"$CFCTL" "$verb" --help
done
for verb in add allow del test match attach detach; do
	expect "$verb without its argument: exit 2" 2 -- "$CFCTL" "$verb"
done
expect "add with two addresses: exit 2, extra named" 2 -e 192.0.2.6 -- \
	"$CFCTL" add 192.0.2.5 192.0.2.6
expect "clear with an argument: exit 2" 2 -e 192.0.2.5 -- \
	"$CFCTL" clear 192.0.2.5
expect "list with an argument: exit 2" 2 -e 192.0.2.5 -- \
	"$CFCTL" list 192.0.2.5

# Malformed addresses: refused before the filter is touched.
for bad in 1.2.3 1.2.3.256 1.2.3.4.5 ::g 2001:db8::1::2 a.b.c.d \
	" 192.0.2.5" "192.0.2.5 " 192.0.2.0/33 2001:db8::/129 192.0.2.0/ \
	192.0.2.0/024 192.0.2.9-192.0.2.1 192.0.2.1-2001:db8::1; do
	expect "add '$bad': exit 2, named" 2 -e "$bad" -- "$CFCTL" add "$bad"
done
expect "add '': exit 2" 2 -- "$CFCTL" add ""
for verb in del test; do
	for bad in 1.2.3.256 ::g ""; do
		expect "$verb '$bad': exit 2" 2 -e "$bad" -- \
			"$CFCTL" "$verb" "$bad"
	done
done
# Malformed entries of the other kinds: exit 2, the bad word named.
expect "add tcp without a port: exit 2, named" 2 -e "'192.0.2.1'" -- \
	"$CFCTL" add tcp 192.0.2.1 198.51.100.1:80
expect "add tcp, bare IPv6 endpoint: exit 2, named" 2 -e "2001:db8::1:80" -- \
	"$CFCTL" add tcp 2001:db8::1:80 "[2001:db8::2]:80"
expect "add udp, port 65536: exit 2, named" 2 -e "invalid port in '192.0.2.1:65536'" -- \
	"$CFCTL" add udp 192.0.2.1:65536 198.51.100.1:80
expect "add udp, mixed versions: exit 2, named" 2 -e "[2001:db8::2]:80" -- \
	"$CFCTL" add udp 192.0.2.1:1 "[2001:db8::2]:80"
expect "add icmp, type 256: exit 2, named" 2 -e "invalid ICMP type '256'" -- \
	"$CFCTL" add icmp 192.0.2.1 198.51.100.1 256
expect "add icmp with IPv6: exit 2, named" 2 -e "2001:db8::1" -- \
	"$CFCTL" add icmp 2001:db8::1 2001:db8::2 8
expect "add dst without an address: exit 2" 2 -e "dst ADDR" -- \
	"$CFCTL" add dst
expect "add of an unknown kind: exit 2, named" 2 -e "'sctp'" -- \
	"$CFCTL" add sctp 192.0.2.1:1 198.51.100.1:2
expect "allow with two addresses: exit 2, extra named" 2 -e 192.0.2.6 -- \
	"$CFCTL" allow 192.0.2.5 192.0.2.6
expect "malformed adds stored nothing" 0 -- test "$(info_value count)" = 0

# Prefixes and ranges: host bits named with the fix, nothing stored.
expect "add 192.0.2.7/24: exit 2, names the prefix meant" 2 \
	-e "192.0.2.7/24: host bits set (did you mean 192.0.2.0/24?)" -- \
	"$CFCTL" add 192.0.2.7/24
expect "add dst 2001:db8::1/32: exit 2, names the prefix meant" 2 \
	-e "2001:db8::1/32: host bits set (did you mean 2001:db8::/32?)" -- \
	"$CFCTL" add dst 2001:db8::1/32
expect "add 192.0.2.0/33: exit 2, says the lengths" 2 \
	-e "expected /0 to /32 for IPv4" -- "$CFCTL" add 192.0.2.0/33
expect "add 192.0.2.9-192.0.2.1: exit 2, says first above last" 2 \
	-e "first address is above its last" -- "$CFCTL" add 192.0.2.9-192.0.2.1
expect "add tcp with a prefix: exit 2, flows are exact" 2 \
	-e "a flow names single addresses" -- \
	"$CFCTL" add tcp 192.0.2.0/24:1 198.51.100.1:80
expect "test of a range: exit 2, points to match" 2 -e match -- \
	"$CFCTL" test 192.0.2.1-192.0.2.9
expect "malformed prefixes stored nothing" 0 -- test "$(info_value count)" = 0

expect "add 203.0.113.0/24: exit 0" 0 -- "$CFCTL" add 203.0.113.0/24
expect "test 203.0.113.0/24: exit 0, blocked" 0 -o "203.0.113.0/24: blocked" -- \
	"$CFCTL" test 203.0.113.0/24
expect "test 203.0.113.9, inside it: exit 0, names the prefix" 0 \
	-o "203.0.113.9: blocked by 203.0.113.0/24 (held by default)" -- \
	"$CFCTL" test 203.0.113.9
expect "test --exact 203.0.113.9: exit 1 (not stored itself)" 1 \
	-o "not blocked" -- "$CFCTL" test --exact 203.0.113.9
expect "match 203.0.113.9: exit 0, drop (source prefix)" 0 \
	-o "drop (source prefix)" -- "$CFCTL" match 203.0.113.9
expect "match 203.0.114.1, outside it: exit 1, pass" 1 -o pass -- \
	"$CFCTL" match 203.0.114.1
expect "add 203.0.113.9: exit 0, address beside the prefix" 0 -- \
	"$CFCTL" add 203.0.113.9
expect "match 203.0.113.9: the address wins" 0 -o "drop (source address)" \
	-- "$CFCTL" match 203.0.113.9
expect "allow 203.0.113.8/29: exit 0" 0 -- "$CFCTL" allow 203.0.113.8/29
expect "match 203.0.113.9: exit 1, allowed (exception)" 1 \
	-o "allowed (exception)" -- "$CFCTL" match 203.0.113.9
expect "add dst 198.51.100.0/24: exit 0" 0 -- "$CFCTL" add dst 198.51.100.0/24
expect "match 192.0.2.1 198.51.100.9: drop (destination prefix)" 0 \
	-o "drop (destination prefix)" -- "$CFCTL" match 192.0.2.1 198.51.100.9
expect "match 203.0.113.200 198.51.100.9: drop (source prefix)" 0 \
	-o "drop (source prefix)" -- "$CFCTL" match 203.0.113.200 198.51.100.9
expect "match 192.0.2.1 (no DST): pass, dst keys unasked" 1 -o pass -- \
	"$CFCTL" match 192.0.2.1
expect "add udp 192.0.2.1:53 192.0.2.2:5353: exit 0" 0 -- \
	"$CFCTL" add udp 192.0.2.1:53 192.0.2.2:5353
expect "match the flow: drop (flow)" 0 -o "drop (flow)" -- \
	"$CFCTL" match 192.0.2.1 192.0.2.2 udp 53 5353
expect "match another port: pass" 1 -o pass -- \
	"$CFCTL" match 192.0.2.1 192.0.2.2 udp 53 5354
expect "match with a prefix: exit 2, named" 2 -e "'203.0.113.0/24' is a prefix" \
	-- "$CFCTL" match 203.0.113.0/24
expect "match with ports but no DST: exit 2, says DST" 2 -e "needs DST" -- \
	"$CFCTL" match 192.0.2.1 tcp 1 2
expect "match icmp6 with IPv4: exit 2" 2 -e icmp6 -- \
	"$CFCTL" match 192.0.2.1 192.0.2.2 icmp6 128
expect "match, port 65536: exit 2, named" 2 -e 65536 -- \
	"$CFCTL" match 192.0.2.1 192.0.2.2 tcp 1 65536
expect "list: prefixes as ADDR/LEN" 0 -o "dst 198.51.100.0/24" -- "$CFCTL" list
expect "list: the allow prefix" 0 -o "allow 203.0.113.8/29" -- "$CFCTL" list
expect "info: the prefixes counted" 0 -- test "$(info_value prefixes)" = 3
expect "info: a line per type, lengths, markers and probes named" 0 \
	-o "src4: count 2, prefixes 1, lengths 1, markers 1, probes 5," -- \
	"$CFCTL" info
expect "del 203.0.113.0/24: exit 0" 0 -- "$CFCTL" del 203.0.113.0/24
expect "del 203.0.113.0/24 again: exit 1" 1 -- "$CFCTL" del 203.0.113.0/24
expect "match 203.0.113.200 after del: pass" 1 -o pass -- \
	"$CFCTL" match 203.0.113.200
check "clear after the prefixes" "$CFCTL" clear

# A range is its prefixes, added and deleted in one call.
expect "add 192.0.2.10-192.0.2.99: 6 prefixes added" 0 \
	-o "192.0.2.10-192.0.2.99: 6 prefixes (6 added, 0 already present)" -- \
	"$CFCTL" add 192.0.2.10-192.0.2.99
expect "list: exactly those prefixes" 0 -- test "$("$CFCTL" list | tr '\n' ' ')" = \
	"192.0.2.10/31 192.0.2.12/30 192.0.2.16/28 192.0.2.32/27 192.0.2.64/27 192.0.2.96/30 "
expect "match 192.0.2.99: drop" 0 -o "drop (source prefix)" -- \
	"$CFCTL" match 192.0.2.99
expect "match 192.0.2.100: pass" 1 -o pass -- "$CFCTL" match 192.0.2.100
expect "match 192.0.2.9: pass" 1 -o pass -- "$CFCTL" match 192.0.2.9
expect "add the range again: all already present" 0 -o "(0 added, 6 already present)" \
	-- "$CFCTL" add 192.0.2.10-192.0.2.99
expect "del -n of a wider range: exit 1, some absent" 1 -o "would delete" -- \
	"$CFCTL" del -n 192.0.2.10-192.0.2.100
expect "del of the range: exit 0, 6 deleted" 0 -o "(6 deleted, 0 not present)" \
	-- "$CFCTL" del 192.0.2.10-192.0.2.99
expect "allow a v6 range: exit 0" 0 -o "2 prefixes (2 added" -- \
	"$CFCTL" allow 2001:db8::1-2001:db8::2
expect "the whole IPv4 space is one /0" 0 -o "1 prefixes (1 added" -- \
	"$CFCTL" add dst 0.0.0.0-255.255.255.255
expect "list: dst 0.0.0.0/0" 0 -o "dst 0.0.0.0/0" -- "$CFCTL" list
check "clear after the ranges" "$CFCTL" clear

# test answers as ipset test does on a hash:net set: does a stored entry
# cover ENTRY (the longest is named), and no allow entry? --exact: is
# ENTRY itself stored?
check "add 198.18.0.0/15" "$CFCTL" add 198.18.0.0/15
check "add -s feed 198.18.0.0/15" "$CFCTL" add -s feed 198.18.0.0/15
expect "test 198.19.3.3: exit 0, names the prefix and its sources" 0 \
	-o "198.19.3.3: blocked by 198.18.0.0/15 (held by default, feed)" -- \
	"$CFCTL" test 198.19.3.3
expect "test --exact 198.19.3.3: exit 1, not stored itself" 1 \
	-o "198.19.3.3: not blocked" -- "$CFCTL" test --exact 198.19.3.3
expect "test --exact 198.18.0.0/15: exit 0" 0 \
	-o "198.18.0.0/15: blocked (held by default, feed)" -- \
	"$CFCTL" test --exact 198.18.0.0/15
expect "test 198.20.0.1, outside it: exit 1" 1 -o "198.20.0.1: not blocked" \
	-- "$CFCTL" test 198.20.0.1
expect "test 198.19.0.0/16, a prefix inside it: exit 0" 0 \
	-o "198.19.0.0/16: blocked by 198.18.0.0/15" -- "$CFCTL" test 198.19.0.0/16
expect "test 198.16.0.0/14, a prefix around it: exit 1" 1 -o "not blocked" \
	-- "$CFCTL" test 198.16.0.0/14
check "add 198.19.3.0/24" "$CFCTL" add 198.19.3.0/24
expect "test 198.19.3.3: the longest covering entry named" 0 \
	-o "198.19.3.3: blocked by 198.19.3.0/24 (held by default)" -- \
	"$CFCTL" test 198.19.3.3
check "add 198.19.3.3" "$CFCTL" add 198.19.3.3
expect "test 198.19.3.3: stored itself, so no 'by'" 0 \
	-o "198.19.3.3: blocked (held by default)" -O "blocked by" -- \
	"$CFCTL" test 198.19.3.3
check "del 198.19.3.3" "$CFCTL" del 198.19.3.3
check "del 198.19.3.0/24" "$CFCTL" del 198.19.3.0/24
check "allow 198.19.0.0/16" "$CFCTL" allow 198.19.0.0/16
expect "test 198.19.3.3 under an allow prefix too: exit 1, both named" 1 \
	-o "198.19.3.3: allowed by 198.19.0.0/16 (held by default), though blocked by 198.18.0.0/15 (held by default, feed)" \
	-- "$CFCTL" test 198.19.3.3
expect "... as match says" 1 -o "allowed (exception)" -- \
	"$CFCTL" match 198.19.3.3
expect "test 198.18.0.1, outside the allow prefix: exit 0" 0 \
	-o "198.18.0.1: blocked by 198.18.0.0/15" -O allowed -- \
	"$CFCTL" test 198.18.0.1
expect "test allow 198.19.3.3: exit 0, the allow prefix covers it" 0 \
	-o "allow 198.19.3.3: allowed by 198.19.0.0/16 (held by default)" -- \
	"$CFCTL" test allow 198.19.3.3
expect "test --exact allow 198.19.3.3: exit 1" 1 \
	-o "allow 198.19.3.3: not allowed" -- "$CFCTL" test --exact allow 198.19.3.3
expect "test -s feed 198.19.3.3: feed's entries alone, no allow: exit 0" 0 \
	-o "198.19.3.3: blocked by 198.18.0.0/15 (held by default, feed)" \
	-O allowed -- "$CFCTL" test -s feed 198.19.3.3
check "add -s ops 203.0.113.0/24" "$CFCTL" add -s ops 203.0.113.0/24
expect "test -s ops 203.0.113.7: exit 0" 0 \
	-o "203.0.113.7: blocked by 203.0.113.0/24 (held by ops)" -- \
	"$CFCTL" test -s ops 203.0.113.7
expect "test -s default 203.0.113.7: exit 1, names what covers it" 1 \
	-o "203.0.113.7: not held by default (blocked by 203.0.113.0/24, held by ops)" \
	-- "$CFCTL" test -s default 203.0.113.7
expect "test -s nosuch 203.0.113.7: exit 1" 1 -o "not held by nosuch" -- \
	"$CFCTL" test -s nosuch 203.0.113.7
expect "test -s ops 198.19.3.3: exit 1, not ops's" 1 \
	-o "198.19.3.3: not held by ops (blocked by 198.18.0.0/15, held by default, feed)" \
	-- "$CFCTL" test -s ops 198.19.3.3
check "add 2001:db8::/32" "$CFCTL" add 2001:db8::/32
check "allow 2001:db8:1::/48" "$CFCTL" allow 2001:db8:1::/48
expect "test 2001:db8:ffff::1: exit 0, names the /32" 0 \
	-o "2001:db8:ffff::1: blocked by 2001:db8::/32 (held by default)" -- \
	"$CFCTL" test 2001:db8:ffff::1
expect "test --exact 2001:db8:ffff::1: exit 1" 1 -o "not blocked" -- \
	"$CFCTL" test --exact 2001:db8:ffff::1
expect "test 2001:db9::1: exit 1" 1 -o "2001:db9::1: not blocked" -- \
	"$CFCTL" test 2001:db9::1
expect "test 2001:db8:1::5: allowed, though blocked: exit 1" 1 \
	-o "2001:db8:1::5: allowed by 2001:db8:1::/48 (held by default), though blocked by 2001:db8::/32 (held by default)" \
	-- "$CFCTL" test 2001:db8:1::5
check "add dst 198.51.100.0/24" "$CFCTL" add dst 198.51.100.0/24
expect "test dst 198.51.100.9: exit 0, names the prefix" 0 \
	-o "dst 198.51.100.9: blocked by 198.51.100.0/24 (held by default)" -- \
	"$CFCTL" test dst 198.51.100.9
expect "test 198.51.100.9: exit 1, a destination entry is no source one" 1 \
	-o "not blocked" -- "$CFCTL" test 198.51.100.9
expect "test dst 198.51.101.1: exit 1" 1 -o "not blocked" -- \
	"$CFCTL" test dst 198.51.101.1
check "add -s feed dst 2001:db8:5::/48" "$CFCTL" add -s feed dst 2001:db8:5::/48
expect "test dst 2001:db8:5::9: exit 0" 0 \
	-o "dst 2001:db8:5::9: blocked by 2001:db8:5::/48 (held by feed)" -- \
	"$CFCTL" test dst 2001:db8:5::9
expect "test -s default dst 2001:db8:5::9: exit 1" 1 \
	-o "not held by default (blocked by 2001:db8:5::/48, held by feed)" -- \
	"$CFCTL" test -s default dst 2001:db8:5::9

# -j: one JSON document; the exit status as without it.
expect "test -j 198.18.0.1: blocked, by, sources" 0 \
	-o '{"entry":"198.18.0.1","blocked":true,"allowed":false,"by":"198.18.0.0/15","sources":["default","feed"]}' \
	-- "$CFCTL" test -j 198.18.0.1
expect "test -j 198.19.3.3: allowed_by too, exit 1" 1 \
	-o '{"entry":"198.19.3.3","blocked":false,"allowed":true,"by":"198.18.0.0/15","sources":["default","feed"],"allowed_by":"198.19.0.0/16","allowed_sources":["default"]}' \
	-- "$CFCTL" test -j 198.19.3.3
expect "cfctl -j test 198.20.0.1: neither, exit 1" 1 \
	-o '{"entry":"198.20.0.1","blocked":false,"allowed":false}' -- \
	"$CFCTL" -j test 198.20.0.1
expect "test -j -s ops: the source named" 0 \
	-o '{"entry":"203.0.113.7","source":"ops","blocked":true' -- \
	"$CFCTL" test -j -s ops 203.0.113.7
expect "test -j of a flow: exact" 1 \
	-o '{"entry":"tcp 192.0.2.1:1 198.51.100.1:80","blocked":false,"allowed":false}' \
	-- "$CFCTL" test -j tcp 192.0.2.1:1 198.51.100.1:80
expect "match -j 198.18.0.1: drop, source prefix" 0 \
	-o '{"saddr":"198.18.0.1","verdict":"drop","reason":"source prefix","source":"default"}' -- \
	"$CFCTL" match -j 198.18.0.1
expect "match -j 198.19.3.3: allowed, exception, exit 1" 1 \
	-o '{"saddr":"198.19.3.3","verdict":"allowed","reason":"exception","source":"default"}' -- \
	"$CFCTL" match -j 198.19.3.3
expect "cfctl -j match of a flow: every field, destination prefix" 0 \
	-o '{"saddr":"192.0.2.200","daddr":"198.51.100.9","proto":"tcp","sport":1,"dport":80,"verdict":"drop","reason":"destination prefix","source":"default"}' \
	-- "$CFCTL" -j match 192.0.2.200 198.51.100.9 tcp 1 80
expect "match -j of an ICMPv6 type: pass, no reason, exit 1" 1 \
	-o '{"saddr":"2001:db9::1","daddr":"2001:db9::2","proto":"icmp6","icmp_type":128,"verdict":"pass"}' \
	-- "$CFCTL" match -j 2001:db9::1 2001:db9::2 icmp6 128
for cmd in "test -j 198.19.3.3" "match -j 198.18.0.1"; do
	# shellcheck disable=SC2086 # split the command into words
	expect "$cmd: one line, one object" 0 -- sh -c \
		'test "$("$@" | wc -l)" = 1 && "$@" | grep -qx "{.*}"' sh "$CFCTL" $cmd
done

# -q: nothing on stdout, the same exit status; errors still on stderr.
check "-q test 198.18.0.1: exit 0, silent" quiet 0 test 198.18.0.1
check "-q test 198.20.0.1: exit 1, silent" quiet 1 test 198.20.0.1
check "-q test 198.19.3.3 (allowed): exit 1, silent" quiet 1 test 198.19.3.3
check "-q test --exact 198.18.0.0/15: exit 0, silent" quiet 0 \
	test --exact 198.18.0.0/15
check "-q match 198.18.0.1: exit 0, silent" quiet 0 match 198.18.0.1
check "-q match 198.20.0.1: exit 1, silent" quiet 1 match 198.20.0.1
check "-q add 192.0.2.44: exit 0, silent" quiet 0 add 192.0.2.44
check "-q add -n 192.0.2.45: exit 0, silent" quiet 0 add -n 192.0.2.45
check "-q add of a range: exit 0, silent" quiet 0 add 192.0.2.48-192.0.2.55
check "-q allow 192.0.2.46: exit 0, silent" quiet 0 allow 192.0.2.46
check "-q del 192.0.2.45: exit 1, silent" quiet 1 del 192.0.2.45
check "-q del 192.0.2.44: exit 0, silent" quiet 0 del 192.0.2.44
printf '192.0.2.60\n192.0.2.61\n' >"$tap_tmp/q.list"
check "-q load: exit 0, silent" quiet 0 load "$tap_tmp/q.list"
check "-q replace -s q: exit 0, silent" quiet 0 replace -s q "$tap_tmp/q.list"
check "-q flush -s q: exit 0, silent" quiet 0 flush -s q
check "-q clear -n: exit 0, silent" quiet 0 clear -n
expect "test -q after the verb: exit 0, silent" 0 -O 198 -- \
	"$CFCTL" test -q 198.18.0.1
expect "-q test of a bad address: exit 2, stderr still says why" 2 \
	-e "1.2.3.256" -O 1.2.3.256 -- "$CFCTL" -q test 1.2.3.256
expect "-q flush -s nosuch: exit 2, stderr names it" 2 -e "no source 'nosuch'" \
	-- "$CFCTL" -q flush -s nosuch
expect "-q with -j: exit 2, give one" 2 -e "give one" -- \
	"$CFCTL" -q test -j 198.18.0.1
expect "-q info: exit 2, says which commands take it" 2 \
	-e "applies only to add, allow, del, test, match" -- "$CFCTL" -q info
expect "--exact on another verb: exit 2" 2 -e "applies only to test" -- \
	"$CFCTL" del --exact 198.18.0.0/15
check "clear after test's cover" "$CFCTL" clear

# Every kind: add, test, del.
for e in "src 192.0.2.7" "dst 198.51.100.7" "allow 2001:db8::7" \
	"tcp [2001:db8::1]:1 [2001:db8::2]:443" "udp 192.0.2.1:53 198.51.100.1:5353" \
	"icmp 192.0.2.1 198.51.100.1 8" "icmp6 2001:db8::1 2001:db8::2 128"; do
	# shellcheck disable=SC2086 # an entry is several words
	expect "add $e: exit 0" 0 -- "$CFCTL" add $e
	# shellcheck disable=SC2086
	expect "test $e: exit 0, held by default" 0 -o "(held by default)" \
		-O "not " -- "$CFCTL" test $e
	# shellcheck disable=SC2086
	expect "test --exact $e: exit 0" 0 -o "(held by default)" -- \
		"$CFCTL" test --exact $e
	# shellcheck disable=SC2086
	expect "del $e: exit 0" 0 -- "$CFCTL" del $e
	# shellcheck disable=SC2086
	expect "test $e after del: exit 1" 1 -o ": not " -- \
		"$CFCTL" test $e
done
expect "allow 192.0.2.8 then test allow 192.0.2.8" 0 \
	-o "allow 192.0.2.8: allowed (held by default)" -- \
	sh -c "\"$CFCTL\" allow 192.0.2.8 && \"$CFCTL\" test allow 192.0.2.8"
expect "an allowed address is not blocked: exit 1" 1 \
	-o "192.0.2.8: allowed (held by default)" -O blocked -- \
	"$CFCTL" test 192.0.2.8
expect "... nor a stored source entry" 1 -o "not blocked" -- \
	"$CFCTL" test --exact 192.0.2.8
check "clear after the kinds" "$CFCTL" clear

# IPv4 round trip.
expect "add 192.0.2.5" 0 -- "$CFCTL" add 192.0.2.5
expect "test 192.0.2.5: exit 0, blocked" 0 -o blocked -O "not blocked" -- \
	"$CFCTL" test 192.0.2.5
expect "add 192.0.2.5 again: exit 0" 0 -- "$CFCTL" add 192.0.2.5
expect "test ::ffff:192.0.2.5: exit 0, the IPv4 address it maps" 0 \
	-o "192.0.2.5: blocked" -- "$CFCTL" test ::ffff:192.0.2.5
expect "del 192.0.2.5" 0 -- "$CFCTL" del 192.0.2.5
expect "test 192.0.2.5 after del: exit 1, not blocked" 1 \
	-o "not blocked" -- "$CFCTL" test 192.0.2.5
expect "del 192.0.2.5 again: exit 1" 1 -- "$CFCTL" del 192.0.2.5

# IPv6 round trip; any spelling of an address is the same key.
expect "add 2001:db8::5" 0 -- "$CFCTL" add 2001:db8::5
expect "test 2001:DB8:0:0::5: exit 0, blocked" 0 -o blocked \
	-O "not blocked" -- "$CFCTL" test 2001:DB8:0:0::5
expect "del 2001:db8:0:0:0:0:0:5" 0 -- "$CFCTL" del 2001:db8:0:0:0:0:0:5
expect "test 2001:db8::5 after del: exit 1" 1 -o "not blocked" -- \
	"$CFCTL" test 2001:db8::5

# clear and info.
"$CFCTL" add 192.0.2.7 >/dev/null && "$CFCTL" add 2001:db8::7 >/dev/null
expect "info: exit 0" 0 -o capacity -- "$CFCTL" info
expect "info counts 2 keys" 0 -- test "$(info_value count)" = 2
expect "info shows the mode" 0 -o "mode: exact" -- "$CFCTL" info
expect "info shows max_capacity" 0 -- \
	test "$(info_value max_capacity)" = "$(cat /sys/module/cfilter/parameters/max_capacity)"
expect "info shows grows" 0 -- test -n "$(info_value grows)"
expect "list: exit 0" 0 -o 192.0.2.7 -- "$CFCTL" list
expect "list prints exactly the blocked addresses, one per line" 0 -- \
	test "$("$CFCTL" list | sort | tr '\n' ' ')" = "192.0.2.7 2001:db8::7 "
expect "clear: exit 0" 0 -- "$CFCTL" clear
expect "info counts 0 keys after clear" 0 -- test "$(info_value count)" = 0
expect "test 192.0.2.7 after clear: exit 1" 1 -- "$CFCTL" test 192.0.2.7
expect "list after clear prints nothing" 0 -- test -z "$("$CFCTL" list)"

# Sources and timeouts: bad names and timeouts are refused by cfctl
# (exit 2, the argument named) before anything reaches the module.
"$CFCTL" clear
for bad in "" -feed "a b" a/b "feed!" "f\303\251ed" \
	12345678901234567890123456789012; do
	for cmd in "add -s" "allow -s" "del -s" "test -s" "list -s" "save -s" \
		"flush -s" "load -s" "replace -s"; do
		# shellcheck disable=SC2086 # the verb and its option
		set -- $cmd "$bad"
		case $1 in
		add | allow | del | test) set -- "$@" 192.0.2.5 ;;
		load | replace) set -- "$@" /dev/null ;;
		esac
		expect "$cmd '$bad': exit 2, names the source" 2 \
			-e "invalid source '$bad'" -- "$CFCTL" "$@"
	done
done
for bad in abc -5 1.5 99999999999 "" 2147483648 " 5" 0x10; do
	for cmd in add allow load replace; do
		case $cmd in
		load | replace) arg=/dev/null ;;
		*) arg=192.0.2.5 ;;
		esac
		expect "$cmd -t '$bad': exit 2, names the timeout" 2 \
			-e "invalid timeout '$bad'" -- "$CFCTL" "$cmd" -t "$bad" "$arg"
	done
done
for cmd in del test list save flush clear crowdsec; do
	expect "$cmd -t 5: exit 2, says which commands take -t" 2 \
		-e "applies only to add, allow, load, replace" -- \
		"$CFCTL" "$cmd" -t 5 192.0.2.5
done
expect "clear -s feed: exit 2 (clear removes every source's)" 2 \
	-e "applies only to" -- "$CFCTL" clear -s feed
expect "del -a -s feed: exit 2, one or the other" 2 -e "give one" -- \
	"$CFCTL" del -a -s feed 192.0.2.5
expect "flush without -s: exit 2, asks which source" 2 -e "flush -s NAME" -- \
	"$CFCTL" flush
expect "bad sources and timeouts stored nothing" 0 -- test "$(info_value count)" = 0
expect "flush -s nosuch: exit 2, named" 2 -e "no source 'nosuch'" -- \
	"$CFCTL" flush -s nosuch
expect "list -s nosuch: exit 2, named" 2 -e "no source 'nosuch'" -- \
	"$CFCTL" list -s nosuch
expect "save -s nosuch: exit 2, named" 2 -e "no source 'nosuch'" -- \
	"$CFCTL" save -s nosuch
expect "a 31-character source name is fine" 0 -- \
	"$CFCTL" add -s 1234567890123456789012345678901 192.0.2.9
check "flush it" "$CFCTL" flush -s 1234567890123456789012345678901

# A timed holding: blocked at once, gone about its timeout later.
expect "add -t 2 -s f2b-sshd 192.0.2.5: exit 0" 0 -- \
	"$CFCTL" add -t 2 -s f2b-sshd 192.0.2.5
expect "test 192.0.2.5: blocked, held by f2b-sshd" 0 \
	-o "192.0.2.5: blocked (held by f2b-sshd)" -- "$CFCTL" test 192.0.2.5
expect "test -s f2b-sshd 192.0.2.5: exit 0" 0 -- \
	"$CFCTL" test -s f2b-sshd 192.0.2.5
expect "test -s default 192.0.2.5: exit 1, names who holds it" 1 \
	-o "not held by default (blocked, held by f2b-sshd)" -- \
	"$CFCTL" test -s default 192.0.2.5
expect "list: -s f2b-sshd -t 1 or 2" 0 -- sh -c \
	'"$0" list | grep -qE "^-s f2b-sshd -t [12] 192.0.2.5\$"' "$CFCTL"
expect "info: timed 1, and the source's line" 0 \
	-o "source f2b-sshd: entries 1, timed 1" -- "$CFCTL" info
expect "info: timed: 1" 0 -- test "$(info_value timed)" = 1
sleep 3
expect "test 192.0.2.5 about 3 s later: exit 1 (gone within 2 s more)" 0 -- \
	within 2 not "$CFCTL" test 192.0.2.5
expect "... and its source with it" 2 -e "no source 'f2b-sshd'" -- \
	"$CFCTL" list -s f2b-sshd
expect "... the timed count back to 0" 0 -- test "$(info_value timed)" = 0

# Two sources hold one entry: it stays while either does.
check "add 192.0.2.6 (default)" "$CFCTL" add 192.0.2.6
check "add -s feed 192.0.2.6" "$CFCTL" add -s feed 192.0.2.6
expect "add -s feed 192.0.2.6 again: exit 0, already held, timeout anew" 0 \
	-e "already held by feed" -- "$CFCTL" add -s feed -t 600 192.0.2.6
expect "test: held by both" 0 -o "held by default, feed" -- \
	"$CFCTL" test 192.0.2.6
expect "list: one line per holding" 0 -- sh -c \
	'test "$("$0" list | sed -E "s/ -t [0-9]+ / -t T /" | tr "\n" " ")" = \
	 "192.0.2.6 -s feed -t T 192.0.2.6 "' "$CFCTL"
expect "list -s default: default's holding alone" 0 -- \
	test "$("$CFCTL" list -s default)" = 192.0.2.6
expect "save -s default: default's entry alone, no source line" 0 -- sh -c \
	'test "$("$0" save -s default | grep -v "^#")" = 192.0.2.6' "$CFCTL"
expect "list -s feed: without -s, 600 s less the time gone" 0 -- \
	held_set feed 192.0.2.6 600
expect "list -j: source and seconds left" 0 \
	-o '"entry":"192.0.2.6","addr":"192.0.2.6","prefix_len":32,"source":"feed","timeout":' \
	-- "$CFCTL" list -j
expect "del 192.0.2.6: exit 0, default's holding" 0 -- "$CFCTL" del 192.0.2.6
expect "... still blocked by feed" 0 -o "held by feed" -- "$CFCTL" test 192.0.2.6
expect "... and still dropped" 0 -o "drop (source address)" -- \
	"$CFCTL" match 192.0.2.6
expect "del 192.0.2.6 again: exit 1, names feed" 1 \
	-e "not held by default, but by feed" -- "$CFCTL" del 192.0.2.6
expect "del -n -s feed 192.0.2.6: would delete" 0 -o "would delete" -- \
	"$CFCTL" del -n -s feed 192.0.2.6
expect "del -s feed 192.0.2.6: exit 0" 0 -- "$CFCTL" del -s feed 192.0.2.6
expect "... not blocked any more" 1 -o "not blocked" -- "$CFCTL" test 192.0.2.6
expect "del -s feed 192.0.2.6 again: exit 1" 1 -- "$CFCTL" del -s feed 192.0.2.6
for s in default feed f2b-sshd; do
	"$CFCTL" add -s "$s" 192.0.2.7 >/dev/null
done
expect "del --all-sources 192.0.2.7: exit 0" 0 -- \
	"$CFCTL" del --all-sources 192.0.2.7
expect "... held by nobody" 1 -- "$CFCTL" test 192.0.2.7
expect "del -a 192.0.2.7 again: exit 1" 1 -e "not blocked" -- \
	"$CFCTL" del -a 192.0.2.7
expect "add -s feed of a range: its prefixes, held by feed" 0 \
	-o "2 prefixes (2 added" -- "$CFCTL" add -s feed -t 600 192.0.2.10-192.0.2.13
expect "... del of the range without -s: exit 1, default holds none" 1 \
	-o "(0 deleted, 2 not present)" -- "$CFCTL" del 192.0.2.10-192.0.2.13

# flush: one source's holdings go, the others' stay.
check "add 198.51.100.1 (default)" "$CFCTL" add 198.51.100.1
check "add -s feed 198.51.100.1" "$CFCTL" add -s feed 198.51.100.1
check "allow -s feed -t 600 198.51.100.2" "$CFCTL" allow -s feed -t 600 198.51.100.2
expect "flush -n -s feed: says how many, changes nothing" 0 \
	-o "would flush source feed: 4 entries" -- "$CFCTL" flush -n -s feed
expect "flush -s feed: exit 0" 0 -o "flushed source feed: 4 entries" -- \
	"$CFCTL" flush -s feed
expect "... default's holding stays" 0 -o "held by default" -- \
	"$CFCTL" test 198.51.100.1
expect "... feed's allow entry is gone" 1 -- "$CFCTL" test allow 198.51.100.2
expect "... feed is gone from info" 0 -O "source feed" -- "$CFCTL" info
expect "flush -s feed again: exit 2, no such source" 2 -e "no source 'feed'" -- \
	"$CFCTL" flush -s feed
check "clear after the sources" "$CFCTL" clear

# At most 32 sources: default and 31 more.
i=1
while [ "$i" -le 31 ]; do
	"$CFCTL" add -s "s$i" "192.0.2.$i" >/dev/null || break
	i=$((i + 1))
done
expect "31 sources besides default" 0 -- test "$i" = 32
expect "a 33rd source: exit 3, says flush one" 3 \
	-e "too many sources (32): flush one (cfctl flush -s NAME)" -- \
	"$CFCTL" add -s s32 192.0.2.32
expect "... a load naming a 33rd: exit 3, says flush one" 3 \
	-e "too many sources (32)" -- sh -c \
	'printf "source s33\n192.0.2.33\n" | "$0" load -' "$CFCTL"
expect "... default still takes entries" 0 -- "$CFCTL" add 192.0.2.40
check "flush -s s1" "$CFCTL" flush -s s1
expect "... then s32 fits" 0 -- "$CFCTL" add -s s32 192.0.2.32
check "clear after 32 sources" "$CFCTL" clear
expect "clear removed every source" 0 -- test "$("$CFCTL" info | grep -c '^source ')" = 1

# stats, attach, detach.
rm -rf /sys/fs/bpf/tc/globals/cfilter_stats /sys/fs/bpf/cfilter_stats \
	/sys/fs/bpf/cfilter
expect "stats before any attach: exit 3, says attach" 3 -e attach -- \
	"$CFCTL" stats
veth_setup || diag "veth setup failed"
expect "attach to unknown interface: exit 2, named" 2 -e nosuchif0 -- \
	"$CFCTL" attach nosuchif0
expect "attach --mode bogus: exit 2, named" 2 -e bogus -- \
	"$CFCTL" attach "$VETH" --mode bogus
expect "attach --mode without a mode: exit 2" 2 -- \
	"$CFCTL" attach "$VETH" --mode
expect "detach with nothing attached: exit 3" 3 -e "$VETH" -- \
	"$CFCTL" detach "$VETH"
expect "detach from unknown interface: exit 2, named" 2 -e nosuchif0 -- \
	"$CFCTL" detach nosuchif0
expect "attach $VETH: exit 0" 0 -- "$CFCTL" attach "$VETH" --mode generic
expect "attach twice -n: says it would replace" 0 -o "would replace $VETH's program" -- \
	"$CFCTL" attach -n "$VETH"
expect "attach twice: the program is replaced in one step" 0 \
	-o "$VETH: replaced cfilter_xdp in generic mode" -- \
	"$CFCTL" attach "$VETH"
expect "attach again in another mode: exit 3, says detach" 3 -e detach -- \
	"$CFCTL" attach "$VETH" --mode native
for mode in generic tc; do
	expect "attach to lo (-m $mode): exit 2, not an Ethernet link" 2 \
		-e "lo is not an Ethernet link (link type 772, loopback)" -- \
		"$CFCTL" attach lo --mode "$mode"
done
expect "stats: exit 0" 0 -o dropped_src -- "$CFCTL" stats
for counter in passed allowed dropped_src dropped_dst dropped_flow \
	dropped_prefix dropped_tiny_fragment dropped_deep_headers unparsed; do
	expect "stats: $counter is a number" 0 -- \
		test -n "$(stat_value $counter)"
done
expect "detach $VETH: exit 0" 0 -- "$CFCTL" detach "$VETH"
expect "detach again: exit 3" 3 -- "$CFCTL" detach "$VETH"
veth_cleanup

# Not root: every command that changes the filter says so and changes
# nothing (as_nobody drops to uid 65534, losing CAP_NET_ADMIN).
printf '192.0.2.5\n' >"$tap_tmp/one.list"
"$CFCTL" clear
if "$CFCTL" snapshot "$tap_tmp/empty.snap" >/dev/null 2>&1; then
	chmod 644 "$tap_tmp/one.list" "$tap_tmp/empty.snap"
	chmod 755 "$tap_tmp"
	for cmd in "add 192.0.2.5" "add 192.0.2.0/24" "allow 192.0.2.5" \
		"del 192.0.2.5" clear "load $tap_tmp/one.list" \
		"replace $tap_tmp/one.list" "restore $tap_tmp/empty.snap"; do
		# shellcheck disable=SC2086 # split the command into words
		expect "$cmd as nobody: exit 3, says permission denied" 3 \
			-e "permission denied" -- "$(dirname "$0")/as_nobody" \
			"$CFCTL" $cmd
	done
	expect "... and nothing was added" 1 -- "$CFCTL" match 192.0.2.5
else
	tap_not_ok "snapshot of an empty filter"
fi

# Module not loaded: every filter command says to load it.
if unload_module; then
	for cmd in "add 192.0.2.5" "del 192.0.2.5" "test 192.0.2.5" clear info \
		list "match 192.0.2.5" "snapshot $tap_tmp/s" "add 192.0.2.0/24" \
		"load $tap_tmp/one.list" "replace $tap_tmp/one.list" \
		"restore $tap_tmp/empty.snap"; do
		# shellcheck disable=SC2086 # split the command into words
		expect "$cmd without the module: exit 3, says module" 3 \
			-e module -- "$CFCTL" $cmd
	done
	veth_setup || diag "veth setup failed"
	expect "attach without the module: exit 3, says module" 3 -e module -- \
		"$CFCTL" attach "$VETH"
	veth_cleanup
	expect "reload the module" 0 -- insmod "$CFILTER_KO"
	expect "info after reload: exit 0" 0 -- "$CFCTL" info
else
	tap_skip "commands without the module" "cannot rmmod cfilter"
fi

# Adds 10.0.x.y until an add fails, leaving that add's exit status in $rc
# and its stderr in $tap_tmp/full.err.
fill_filter()
{
	_i=0
	rc=0
	while [ "$_i" -lt 1024 ] && [ "$rc" -eq 0 ]; do
		run "$CFCTL" add "10.0.$((_i / 256)).$((_i % 256))"
		_i=$((_i + 1))
	done
	cp "$tap_tmp/err" "$tap_tmp/full.err"
}

# full_says STATUS TEXT: the failed add exited STATUS, its message has TEXT.
# shellcheck disable=SC2317 # called through check
full_says()
{
	[ "$rc" = "$1" ] && grep -qF -- "$2" "$tap_tmp/full.err"
}

# 5000 /24s fill more than one LIST step of the prefix table: save used
# to restart the same step for ever, and cfilter.service saves at stop.
"$CFCTL" clear >/dev/null
awk 'BEGIN { for (i = 0; i < 5000; i++) printf "10.%d.%d.0/24\n", i / 256, i % 256 }' |
	sort >"$tap_tmp/p24"
check "load 5000 /24 prefixes" "$CFCTL" load "$tap_tmp/p24"
expect "save of 5000 /24 prefixes ends within 60 s" 0 -- \
	timeout 60 sh -c '"$0" save >"$1"' "$CFCTL" "$tap_tmp/saved"
expect "... and names every one of them once" 0 -- \
	sh -c 'grep -v -e "^#" -e "^source " "$0" | sort | cmp -s - "$1"' "$tap_tmp/saved" \
	"$tap_tmp/p24"
"$CFCTL" clear >/dev/null

# A full filter in each mode, and list in compact mode: tiny reloads.
if unload_module; then
	expect "load with capacity=64 max_capacity=64" 0 -- \
		insmod "$CFILTER_KO" capacity=64 max_capacity=64
	fill_filter
	check "add to a full exact filter: exit 3, says raise max_capacity=" \
		full_says 3 "larger max_capacity="
	diag_file "its message" "$tap_tmp/full.err"
	check "unload" unload_module
	expect "load with mode=compact capacity=64" 0 -- \
		insmod "$CFILTER_KO" mode=compact capacity=64
	expect "info shows mode: compact" 0 -o "mode: compact" -- "$CFCTL" info
	"$CFCTL" add 192.0.2.7 >/dev/null
	"$CFCTL" add 198.51.100.0/24 >/dev/null
	expect "list in compact mode: exit 0, the prefixes only" 0 \
		-o "198.51.100.0/24" -O "192.0.2.7" -e "only prefixes are listed" \
		-- "$CFCTL" list
	expect "save in compact mode: exit 3, points to snapshot" 3 \
		-e "cfctl snapshot" -- "$CFCTL" save
	for cmd in "add -s feed 192.0.2.8" "add -t 60 192.0.2.8" \
		"allow -t 60 192.0.2.8" "test -s feed 192.0.2.7" \
		"flush -s default" "add -s feed 192.0.2.1-192.0.2.2"; do
		# shellcheck disable=SC2086 # split the command into words
		expect "$cmd in compact mode: exit 3, needs mode=exact" 3 \
			-e "compact mode keeps fingerprints only: sources and timeouts need mode=exact" \
			-- "$CFCTL" $cmd
	done
	expect "add -s default in compact mode: exit 0" 0 -- \
		"$CFCTL" add -s default 192.0.2.8
	expect "info in compact mode: default's entries only" 0 \
		-o "source default: entries 3, timed 0" -- "$CFCTL" info
	expect "test in compact mode: exit 0" 0 -o blocked -- \
		"$CFCTL" test 192.0.2.7
	expect "test of an address in a prefix, compact mode: exit 0, named" 0 \
		-o "198.51.100.9: blocked by 198.51.100.0/24" -- \
		"$CFCTL" test 198.51.100.9
	fill_filter
	check "add to a full compact filter: exit 3, says raise capacity=" \
		full_says 3 "larger capacity="
	diag_file "its message" "$tap_tmp/full.err"
	check "unload" unload_module
	# Each prefix length has a table of at most max_capacity entries:
	# /24s fill theirs.
	expect "load with capacity=64 max_capacity=64" 0 -- \
		insmod "$CFILTER_KO" capacity=64 max_capacity=64
	i=0
	while [ "$i" -lt 200 ] &&
	      "$CFCTL" add "10.0.$i.0/24" 2>/dev/null; do
		i=$((i + 1))
	done
	expect "add /24s until their table is full: exit 3, no room for the prefix" 3 \
		-e "no room for the prefix" -- \
		"$CFCTL" add "10.0.$i.0/24"
	diag_file "its message" "$tap_tmp/err"
	expect "... 10.0.$i.0/24 was not added" 1 -- "$CFCTL" match "10.0.$i.3"
	expect "... 10.0.0.0/24 still blocks" 0 -- "$CFCTL" match 10.0.0.5
	check "a prefix of another length still goes in" \
		"$CFCTL" add 11.0.0.0/8
	expect "... and blocks" 0 -- "$CFCTL" match 11.1.2.3
	check "unload" unload_module
	expect "reload with defaults" 0 -- insmod "$CFILTER_KO"
else
	tap_skip "full filters and compact mode" "cannot rmmod cfilter"
fi

tap_end
