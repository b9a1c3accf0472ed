#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Drops counted per source, on real traffic: namespace cfns pings from
# addresses that entries of different sources block (an address, a prefix,
# an address two sources hold). `cfctl info` and `cfctl stats` count each
# drop for the source whose entry matched; `cfctl match` counts nothing;
# a source's count survives a replace of that source, moves with a shared
# entry when one holder lets go, and stays with a source that holds
# nothing for a while, to go on when it holds entries again.
# Last, switching --match-dst under a stream of pings lets none through.

. "$(dirname "$0")/lib.sh"
trap lib_cleanup EXIT

JAIL4=192.0.2.3		# held by "jail"
NET4=192.0.2.4/31	# held by "feed": covers 192.0.2.4 and .5
IN_NET4=192.0.2.5
SHARED4=$PEER4		# held by "feed" and "jail"
FLOW4=192.0.2.6		# its echo requests: a flow of "flows", then of "feed"

# The drops `cfctl info` counts for SOURCE; empty if it has no line.
drops_of()
{
	"$CFCTL" info | sed -n "s/^source $1: .*, drops \([0-9][0-9]*\)\$/\1/p"
}

# N echo requests to $HOST4 from address FROM of the namespace; they are
# dropped, so no reply is awaited.
pings_from()
{
	"$IP" netns exec "$NS" ping -c "$2" -i 0.2 -w 1 -W 1 -I "$1" "$HOST4" \
		>/dev/null 2>&1
	return 0
}

tap_begin
load_module || tap_skip_all "cannot load $CFILTER_KO"
[ -x "$IP" ] || tap_skip_all "iproute2 not found at $IP"
[ "$(cat /sys/module/cfilter/parameters/mode 2>/dev/null)" = compact ] &&
	tap_skip_all "compact mode: every entry is default's"
check "setup: the module loaded again, every source new" reload_module
veth_attached "$JAIL4" "$IN_NET4" "$FLOW4"

# "feed" names itself first: its index is the lower, so the entry it
# shares with "jail" counts for it.
check "add $SHARED4 to feed" "$CFCTL" add -s feed "$SHARED4"
check "add $NET4 to feed" "$CFCTL" add -s feed "$NET4"
check "add $JAIL4 to jail" "$CFCTL" add -s jail "$JAIL4"
check "add $SHARED4 to jail" "$CFCTL" add -s jail "$SHARED4"
expect "a new source has dropped nothing" 0 \
	-o "source jail: entries 2, timed 0, drops 0" -- "$CFCTL" info

pings_from "$JAIL4" 3
pings_from "$IN_NET4" 2
pings_from "$SHARED4" 1
expect "jail's address: 3 drops for jail" 0 -- test "$(drops_of jail)" = 3
expect "feed's prefix and the shared address: 3 drops for feed" 0 -- \
	test "$(drops_of feed)" = 3
expect "default dropped nothing" 0 -- test "$(drops_of default)" = 0
expect "stats counts per source too" 0 -o "source feed: drops 3" -- \
	"$CFCTL" stats
expect "-j stats names each source's drops" 0 \
	-o '{"name":"jail","drops":3}' -- "$CFCTL" -j stats

expect "match names the source, without counting" 0 \
	-o "drop (source address), source jail" -- "$CFCTL" match "$JAIL4"
expect "match -j too" 0 -o '"reason":"source prefix","source":"feed"}' -- \
	"$CFCTL" match -j "$IN_NET4"
expect "match counted nothing" 0 -- test "$(drops_of jail)" = 3

check "feed lets go of $SHARED4" "$CFCTL" del -s feed "$SHARED4"
pings_from "$SHARED4" 1
expect "the shared address now counts for jail" 0 -- \
	test "$(drops_of jail)" = 4
expect "feed keeps its count" 0 -- test "$(drops_of feed)" = 3

echo "$NET4" >"$tap_tmp/feed"
check "replace -s feed" "$CFCTL" replace -s feed "$tap_tmp/feed"
expect "feed's count survives its replace" 0 -- test "$(drops_of feed)" = 3
expect "jail's count survives feed's replace" 0 -- test "$(drops_of jail)" = 4
pings_from "$IN_NET4" 1
expect "the replaced feed counts on" 0 -- test "$(drops_of feed)" = 4

check "flush -s jail" "$CFCTL" flush -s jail
expect "jail, holding nothing, keeps its count" 0 \
	-o "source jail: entries 0, timed 0, drops 4" -- "$CFCTL" info
check "jail again" "$CFCTL" add -s jail "$JAIL4"
pings_from "$JAIL4" 1
expect "and counts on" 0 -- test "$(drops_of jail)" = 5

check "add an icmp flow to flows" "$CFCTL" add -s flows icmp "$FLOW4" "$HOST4" 8
pings_from "$FLOW4" 2
expect "the flow's 2 drops count for flows" 0 -- test "$(drops_of flows)" = 2
check "feed holds the flow too" "$CFCTL" add -s feed icmp "$FLOW4" "$HOST4" 8
feed=$(drops_of feed)
pings_from "$FLOW4" 1
expect "the shared flow counts for feed, whose index is lower" 0 -- \
	test "$(drops_of feed)" = $((feed + 1))
expect "and no longer for flows" 0 -- test "$(drops_of flows)" = 2

# Switching destination matching replaces the program in one step: under
# a stream of echo requests from a blocked address, ten switches let none
# of them through (a detach and attach would open a gap each time). The
# stream and the switches share CPU 0, as in test_veth.sh: an emulated CPU
# that runs the kernel's XDP dispatcher while another patches it can die
# in "Oops: int3" (docs/design.md).
"$IP" netns exec "$NS" taskset -c 0 ping -q -i 0.005 -w 3 -W 1 -I "$JAIL4" \
	"$HOST4" >"$tap_tmp/flood" 2>&1 &
flood=$!
switches=0
for i in 1 2 3 4 5; do
	taskset -c 0 "$CFCTL" attach --match-dst "$VETH" --mode generic \
		>/dev/null && switches=$((switches + 1))
	taskset -c 0 "$CFCTL" attach "$VETH" --mode generic >/dev/null &&
		switches=$((switches + 1))
done
wait "$flood"
expect "ten --match-dst switches, each in one step" 0 -- test "$switches" = 10
expect_flood_blocked "during them"

"$CFCTL" detach "$VETH" >/dev/null
"$CFCTL" clear
veth_cleanup
tap_end
