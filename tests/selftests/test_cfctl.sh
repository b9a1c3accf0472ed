#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cfctl's command-line contract: exit status 0 success (test: blocked),
# 1 not blocked (test, del), 2 usage error or malformed input (stderr names
# the bad input), 3 system error (stderr says what to do). Message wording
# belongs to cfctl: only the bad input or the remedy's keyword is checked.

. "$(dirname "$0")/lib.sh"
trap lib_cleanup EXIT

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
for verb in add allow del test clear info list stats attach detach; do
	expect "$verb --help exits 0" 0 -o "cfctl $verb" -- \
		"$CFCTL" "$verb" --help
done
for verb in add allow del test attach detach; do
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
	" 192.0.2.5" "192.0.2.5 " 192.0.2.0/24 2001:db8::/64; do
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

# Every kind: add, test, del.
for e in "src 192.0.2.7" "dst 198.51.100.7" "allow 2001:db8::7" \
	"tcp [2001:db8::1]:1 [2001:db8::2]:443" "udp 192.0.2.1:53 198.51.100.1:5353" \
	"icmp 192.0.2.1 198.51.100.1 8" "icmp6 2001:db8::1 2001:db8::2 128"; do
	# shellcheck disable=SC2086 # an entry is several words
	expect "add $e: exit 0" 0 -- "$CFCTL" add $e
	# shellcheck disable=SC2086
	expect "test $e: exit 0, blocked" 0 -o blocked -O "not blocked" -- \
		"$CFCTL" test $e
	# shellcheck disable=SC2086
	expect "del $e: exit 0" 0 -- "$CFCTL" del $e
	# shellcheck disable=SC2086
	expect "test $e after del: exit 1" 1 -o "not blocked" -- \
		"$CFCTL" test $e
done
expect "allow 192.0.2.8 then test allow 192.0.2.8" 0 -o "allow 192.0.2.8: blocked" -- \
	sh -c "\"$CFCTL\" allow 192.0.2.8 && \"$CFCTL\" test allow 192.0.2.8"
expect "allow is not a source entry" 1 -- "$CFCTL" test 192.0.2.8
check "clear after the kinds" "$CFCTL" clear

# IPv4 round trip.
expect "add 192.0.2.5" 0 -- "$CFCTL" add 192.0.2.5
expect "test 192.0.2.5: exit 0, blocked" 0 -o blocked -O "not blocked" -- \
	"$CFCTL" test 192.0.2.5
expect "add 192.0.2.5 again: exit 0" 0 -- "$CFCTL" add 192.0.2.5
expect "test ::ffff:192.0.2.5: exit 1, another key" 1 -o "not blocked" -- \
	"$CFCTL" test ::ffff:192.0.2.5
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

# stats, attach, detach.
rm -rf /sys/fs/bpf/cfilter
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
expect "attach twice: exit 3, says detach" 3 -e detach -- \
	"$CFCTL" attach "$VETH" --mode generic
expect "stats: exit 0" 0 -o dropped_src -- "$CFCTL" stats
for counter in passed allowed dropped_src dropped_dst dropped_flow unparsed; do
	expect "stats: $counter is a number" 0 -- \
		test -n "$(stat_value $counter)"
done
expect "detach $VETH: exit 0" 0 -- "$CFCTL" detach "$VETH"
expect "detach again: exit 3" 3 -- "$CFCTL" detach "$VETH"
veth_cleanup

# Module not loaded: every filter command says to load it.
if unload_module; then
	for cmd in "add 192.0.2.5" "del 192.0.2.5" "test 192.0.2.5" clear info \
		list; do
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
	expect "list in compact mode: exit 3, says why" 3 \
		-e "filter is in compact mode: keys are not stored, so they cannot be listed" \
		-- "$CFCTL" list
	expect "test in compact mode: exit 0" 0 -o blocked -- \
		"$CFCTL" test 192.0.2.7
	fill_filter
	check "add to a full compact filter: exit 3, says raise capacity=" \
		full_says 3 "larger capacity="
	diag_file "its message" "$tap_tmp/full.err"
	check "unload" unload_module
	expect "reload with defaults" 0 -- insmod "$CFILTER_KO"
else
	tap_skip "full filters and compact mode" "cannot rmmod cfilter"
fi

tap_end
