#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cfctl top on real traffic: three senders of namespace cfns, blocked by
# an address (jail), a prefix (feed) and a flow (flows), send 6, 4 and 2
# echo requests; with the limit above that, top --once ranks them in that
# order, by source address and by entry, each with its entry and source,
# events and packets equal to the pings sent. Under a flood limited to 2
# events a second per CPU, the drops top counts are exactly the drops
# counted (events and left out), the flood ranks first, and the packets
# it estimates for the addresses add up to those drops.

. "$(dirname "$0")/lib.sh"

A4=192.0.2.3		# held by jail
NET4=192.0.2.4/31	# held by feed
B4=192.0.2.5
C4=192.0.2.6		# its echo requests: a flow of flows

top_pid=

top_cleanup()
{
	[ -n "$top_pid" ] && kill -9 "$top_pid" 2>/dev/null
	lib_cleanup
}
trap top_cleanup EXIT

# start_top NAME ARGS...: cfctl top ARGS in the background, output in
# $tap_tmp/NAME.out and .err; fails unless it listens within 20 s.
start_top()
{
	_name=$1
	shift
	"$CFCTL" top "$@" >"$tap_tmp/$_name.out" 2>"$tap_tmp/$_name.err" &
	top_pid=$!
	within 20 grep -q "listening" "$tap_tmp/$_name.err"
}

stop_top()
{
	kill -INT "$top_pid"
	wait "$top_pid"
	_rc=$?
	top_pid=
	return $_rc
}

# N echo requests from address FROM to $HOST4, their summary kept.
pings_from()
{
	"$IP" netns exec "$NS" ping -c "$2" -i 0.2 -W 1 -I "$1" "$HOST4" \
		>"$tap_tmp/ping.$1" 2>&1
	return 0
}

sent_from()
{
	ping_sent "$tap_tmp/ping.$1"
}

drops_of()
{
	"$CFCTL" info | sed -n "s/^source $1: .*, drops \([0-9][0-9]*\)\$/\1/p"
}

# The value of "KEY": in FILE's JSON, the first.
json_field()
{
	grep -o "\"$2\":[0-9.]*" "$1" | head -n 1 | cut -d: -f2
}

# The rows of table NAME (addresses or entries) of FILE, one a line.
rows_of()
{
	sed -n "s/.*\"$2\":\[\(.*\)/\1/p" "$1" | sed 's/\].*//' |
		awk '{ gsub(/\},\{/, "}\n{"); print }'
}

tap_begin
load_module || tap_skip_all "cannot load $CFILTER_KO"
[ -x "$IP" ] || tap_skip_all "iproute2 not found at $IP"
[ "$(cat /sys/module/cfilter/parameters/mode 2>/dev/null)" = compact ] &&
	tap_skip_all "compact mode: every entry is default's"
check "setup: cfctl clear" "$CFCTL" clear
veth_attached "$A4" "$B4" "$C4"
check "setup: jail holds $A4" "$CFCTL" add -s jail "$A4"
check "setup: feed holds $NET4" "$CFCTL" add -s feed "$NET4"
check "setup: flows hold the echo requests of $C4" \
	"$CFCTL" add -s flows icmp "$C4" "$HOST4" 8

# ---- the ranking ---------------------------------------------------------
start_top rank --once -w 3600 --rate 1000 -j
pings_from "$C4" 2
pings_from "$B4" 4
pings_from "$A4" 6
expect "top --once ends at SIGINT with its one view, exit 0" 0 -- stop_top
out=$tap_tmp/rank.out
a=$(sent_from "$A4") b=$(sent_from "$B4") c=$(sent_from "$C4")
diag "sent: $a, $b, $c"
expect "one JSON view" 0 -- test "$(wc -l <"$out")" = 1
expect "nothing left out: drops = events = $((a + b + c))" 0 -- \
	test "$(json_field "$out" drops)" = $((a + b + c)) -a \
	"$(json_field "$out" events)" = $((a + b + c)) -a \
	"$(json_field "$out" left_out)" = 0
rows_of "$out" addresses >"$tap_tmp/addrs"
expect "addresses: $A4 first, its entry and source, $a events and packets" 0 -- \
	test "$(sed -n 1p "$tap_tmp/addrs" | sed 's/,"pps".*//')" = \
	"{\"addr\":\"$A4\",\"entry\":\"$A4\",\"source\":\"jail\",\"events\":$a,\"packets\":$a"
expect "addresses: $B4 second, by feed's prefix" 0 -- \
	test "$(sed -n 2p "$tap_tmp/addrs" | sed 's/,"pps".*//')" = \
	"{\"addr\":\"$B4\",\"entry\":\"$NET4\",\"source\":\"feed\",\"events\":$b,\"packets\":$b"
expect "addresses: $C4 third, by the flow" 0 -- \
	test "$(sed -n 3p "$tap_tmp/addrs" | sed 's/,"pps".*//')" = \
	"{\"addr\":\"$C4\",\"entry\":\"icmp $C4 $HOST4 8\",\"source\":\"flows\",\"events\":$c,\"packets\":$c"
expect "addresses: no other" 0 -- test "$(wc -l <"$tap_tmp/addrs")" = 3
rows_of "$out" entries >"$tap_tmp/entries"
expect "entries in the same order, each with its source" 0 -- \
	test "$(sed 's/,"packets".*//' "$tap_tmp/entries" | tr '\n' ' ')" = \
	"{\"entry\":\"$A4\",\"source\":\"jail\",\"events\":$a {\"entry\":\"$NET4\",\"source\":\"feed\",\"events\":$b {\"entry\":\"icmp $C4 $HOST4 8\",\"source\":\"flows\",\"events\":$c "

start_top text --once -w 3600 --rows 2
pings_from "$A4" 2
pings_from "$B4" 1
pings_from "$C4" 1
expect "text view ends at SIGINT" 0 -- stop_top
expect "text: the totals" 0 -o " 4 drops, 4 events (0 left out" -- \
	cat "$tap_tmp/text.out"
expect "text: $A4 first, with its entry and source" 0 -- \
	sh -c "grep -A 1 'SOURCE ADDRESS' '$tap_tmp/text.out' | tail -n 1 | grep -q ' 2  $A4 .* $A4, jail\$'"
expect "text: --rows 2 shows 2 of the 3 entries" 0 -- \
	sh -c "sed -n '/ENTRY  *SOURCE\$/,\$p' '$tap_tmp/text.out' | tail -n +2 | wc -l | grep -qx 2"

# ---- estimates from a sample ---------------------------------------------
start_top sampled --once -w 3600 --rate 2 -j
d0=$(($(drops_of jail) + $(drops_of feed)))
"$IP" netns exec "$NS" ping -q -i 0.002 -w 3 -W 1 -I "$A4" "$HOST4" \
	>/dev/null 2>&1 &
flood=$!
pings_from "$B4" 3
wait "$flood"
d1=$(($(drops_of jail) + $(drops_of feed)))
expect "sampled: ends at SIGINT" 0 -- stop_top
out=$tap_tmp/sampled.out
drops=$(json_field "$out" drops)
events=$(json_field "$out" events)
left=$(json_field "$out" left_out)
diag "sampled: $((d1 - d0)) drops counted; top: $drops drops, $events events, $left left out"
expect "sampled: top's drops are the $((d1 - d0)) counted" 0 -- \
	test "$drops" = $((d1 - d0))
expect "sampled: events and left out make them" 0 -- \
	test $((events + left)) = "$drops" -a "$left" -gt 0
rows_of "$out" addresses >"$tap_tmp/addrs"
expect "sampled: the flood of $A4 ranks first" 0 -- \
	grep -q "^{\"addr\":\"$A4\"" "$tap_tmp/addrs"
est=$(grep -o '"packets":[0-9]*' "$tap_tmp/addrs" | cut -d: -f2 |
	awk '{ s += $1 } END { print s + 0 }')
n=$(wc -l <"$tap_tmp/addrs")
expect "sampled: the addresses' estimates add up to the drops ($est of $drops, each rounded)" 0 -- \
	test "$est" -ge $((drops - n)) -a "$est" -le $((drops + n))

expect "top -i with --once: usage error" 2 -e "give one" -- \
	"$CFCTL" top --once -i 2
expect "top -w 0: usage error" 2 -e "invalid window '0'" -- \
	"$CFCTL" top -w 0
expect "top --rows 0: usage error" 2 -e "invalid rows '0'" -- \
	"$CFCTL" top --rows 0

"$CFCTL" detach "$VETH" >/dev/null
"$CFCTL" clear
veth_cleanup
tap_end
