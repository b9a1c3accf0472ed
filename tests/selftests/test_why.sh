#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cfctl why ADDR: a ban's story. An address held by five sources in five
# ways (the address with a timeout, a prefix, a wider prefix with a
# timeout, as a destination, in a flow), among holdings that do not cover
# it: why names each of the five, in order, with its source and the time
# it has left, says what a packet from it meets, and the drops each of
# those sources counted (3 pings for the address's own source); an allow
# entry is named, and the verdict follows it; an address nothing covers
# exits 1; IPv6 too; a prefix or a word is a usage error. A source's
# count lasts until unload, so the drops are checked against the counts
# before the pings: earlier tests' sources of these names have dropped.

. "$(dirname "$0")/lib.sh"

ADDR=192.0.2.5		# a second address of the namespace

# holding_line FILE ENTRY SOURCE WHEN [ADDED]: FILE has the line of that
# holding; WHEN "permanent" or "timed MAX": expires in 1 to MAX s, with its
# date; ADDED "unrecorded", or (the default) added 0 to 30 s ago, with its
# date.
holding_line()
{
	case ${5:-recent} in
	unrecorded) _added=', added: not recorded' ;;
	*) _added=', added 20[0-9-]* [0-9:]* (\([0-9]*\) s ago)' ;;
	esac
	case $4 in
	permanent)
		_ago=$(sed -n "s#^  $2  *held by $3, permanent$_added\$#=\1#p" "$1")
		;;
	*)
		_left=$(sed -n "s#^  $2  *held by $3, expires in \([0-9]*\) s (20[0-9-]* [0-9:]*)$_added\$#\1#p" "$1")
		[ -n "$_left" ] && [ "$_left" -ge 1 ] && [ "$_left" -le "${4#timed }" ] ||
			return 1
		_ago==$(sed -n "s#^  $2  *held by $3, expires in [0-9]* s (20[0-9-]* [0-9:]*)$_added\$#\1#p" "$1")
		;;
	esac
	[ -n "$_ago" ] && { [ "$5" = unrecorded ] || [ "${_ago#=}" -le 30 ]; }
}

drops_of()
{
	_n=$("$CFCTL" info | sed -n "s/^source $1: .*, drops \([0-9][0-9]*\)\$/\1/p")
	echo "${_n:-0}"
}

# drops_said FILE SOURCE N: why's text in FILE gives SOURCE's drops as N.
drops_said()
{
	sed -n 's/^drops by all the entries of each source (none are counted per entry): //p' "$1" |
		sed 's/, /,/g' | tr ',' '\n' | grep -qx "$2 $3"
}

tap_begin
load_module || tap_skip_all "cannot load $CFILTER_KO"
[ -x "$IP" ] || tap_skip_all "iproute2 not found at $IP"
[ "$(cat /sys/module/cfilter/parameters/mode 2>/dev/null)" = compact ] &&
	tap_skip_all "compact mode: no sources or timeouts"
check "setup: cfctl clear" "$CFCTL" clear
veth_attached "$ADDR"
check "setup: jail holds $ADDR for 600 s" "$CFCTL" add -s jail -t 600 "$ADDR"
check "setup: feed holds 192.0.2.4/31" "$CFCTL" add -s feed 192.0.2.4/31
check "setup: ops holds 192.0.2.0/24 for 300 s" \
	"$CFCTL" add -s ops -t 300 192.0.2.0/24
check "setup: dsts holds dst $ADDR" "$CFCTL" add -s dsts dst "$ADDR"
check "setup: flows hold a flow from $ADDR" \
	"$CFCTL" add -s flows tcp "$ADDR:4000" "$HOST4:22"
check "setup: others that do not cover it" sh -c \
	"'$CFCTL' add -s jail 192.0.2.8 && '$CFCTL' add -s feed 198.51.100.0/24 &&
	 '$CFCTL' add -s flows tcp 192.0.2.9:1 $HOST4:2 && '$CFCTL' add -s feed 2001:db8::/64"
before_jail=$(drops_of jail)
before_feed=$(drops_of feed)
before_ops=$(drops_of ops)
before_dsts=$(drops_of dsts)
before_flows=$(drops_of flows)
"$IP" netns exec "$NS" ping -c 3 -i 0.2 -W 1 -I "$ADDR" "$HOST4" \
	>"$tap_tmp/ping" 2>&1
sent=$(ping_sent "$tap_tmp/ping")

expect "why $ADDR: exit 0, what a packet from it meets" 0 \
	-o "$ADDR: drop (source address), source jail" -- "$CFCTL" why "$ADDR"
cp "$tap_tmp/out" "$tap_tmp/why"
expect "the address itself, jail's, with its time left" 0 -- \
	holding_line "$tap_tmp/why" "$ADDR" jail "timed 600"
expect "the /31, feed's, permanent" 0 -- \
	holding_line "$tap_tmp/why" 192.0.2.4/31 feed permanent
expect "the /24, ops', with its time left" 0 -- \
	holding_line "$tap_tmp/why" 192.0.2.0/24 ops "timed 300"
expect "as a destination, dsts'" 0 -- \
	holding_line "$tap_tmp/why" "dst $ADDR" dsts permanent
expect "the flow from it, flows'" 0 -- \
	holding_line "$tap_tmp/why" "tcp $ADDR:4000 $HOST4:22" flows permanent
expect "those five alone, longest source entry first, then dst, then flow" 0 -- \
	test "$(grep ' held by ' "$tap_tmp/why" | awk '{ print $1 }' | tr '\n' ' ')" = \
	"$ADDR 192.0.2.4/31 192.0.2.0/24 dst tcp "
expect "the drops of each holder, on one line" 0 -- \
	test "$(grep -c '^drops by all the entries of each source' "$tap_tmp/why")" = 1
# jail's: the pings more than before; the others': as before.
for said in "jail $((before_jail + sent))" "feed $before_feed" \
	    "ops $before_ops" "dsts $before_dsts" "flows $before_flows"; do
	expect "... $said" 0 -- drops_said "$tap_tmp/why" "${said% *}" "${said#* }"
done
expect "no footnote: the module knows when each was added" 1 -- \
	grep -q "added: not recorded" "$tap_tmp/why"

expect "why -j: the verdict" 0 \
	-o "{\"addr\":\"$ADDR\",\"verdict\":\"drop\",\"reason\":\"source address\",\"source\":\"jail\",\"holdings\":[" -- \
	"$CFCTL" why -j "$ADDR"
cp "$tap_tmp/out" "$tap_tmp/why.json"
expect "why -j: five holdings" 0 -- \
	test "$(grep -o '"entry":' "$tap_tmp/why.json" | wc -l)" = 5
expect "why -j: feed's /31, permanent, added seconds ago" 0 -- \
	grep -q '{"entry":"192.0.2.4/31","source":"feed","timeout":0,"age":[0-9]*,"added":"20[0-9-]*T[0-9:]*Z"}' \
	"$tap_tmp/why.json"
expect "why -j: jail's timed holding has its deadline in UTC" 0 -- \
	grep -q "{\"entry\":\"$ADDR\",\"source\":\"jail\",\"timeout\":[1-9][0-9]*,\"expires\":\"20[0-9-]*T[0-9:]*Z\",\"age\":[0-9]*,\"added\":\"20[0-9-]*T[0-9:]*Z\"}" \
	"$tap_tmp/why.json"
expect "why -j: the holders' drops, five" 0 -- \
	test "$(grep -o '"drops":\[[^]]*\]' "$tap_tmp/why.json" | grep -o '"source":' | wc -l)" = 5
expect "why -j: jail's $((before_jail + sent))" 0 \
	-o "{\"source\":\"jail\",\"drops\":$((before_jail + sent))}" -- \
	cat "$tap_tmp/why.json"
expect "why -j: feed's $before_feed" 0 \
	-o "{\"source\":\"feed\",\"drops\":$before_feed}" -- \
	cat "$tap_tmp/why.json"

check "allow $ADDR, by ops" "$CFCTL" allow -s ops "$ADDR"
expect "allowed: the verdict says so" 0 \
	-o "$ADDR: allowed (exception), source ops" -- "$CFCTL" why "$ADDR"
cp "$tap_tmp/out" "$tap_tmp/why"
expect "allowed: the allow entry is named" 0 -- \
	holding_line "$tap_tmp/why" "allow $ADDR" ops permanent
expect "allowed: six holdings now" 0 -- \
	test "$(grep -c ' held by ' "$tap_tmp/why")" = 6

expect "why 192.0.2.200: the /24 alone" 0 \
	-o "192.0.2.200: drop (source prefix), source ops" -- \
	"$CFCTL" why 192.0.2.200
expect "... one holding" 0 -- test "$(grep -c ' held by ' "$tap_tmp/out")" = 1
expect "why 192.0.2.9: the /24 and the flow naming it" 0 -- \
	sh -c "'$CFCTL' why 192.0.2.9 | grep -c ' held by ' | grep -qx 2"
expect "why 203.0.113.9: nothing, exit 1" 1 -o "no entry covers it" -- \
	"$CFCTL" why 203.0.113.9
expect "... and a packet passes" 1 -o "203.0.113.9: pass" -- \
	"$CFCTL" why 203.0.113.9
expect "why 2001:db8::2: feed's /64" 0 \
	-o "2001:db8::2: drop (source prefix), source feed" -- \
	"$CFCTL" why 2001:db8::2
cp "$tap_tmp/out" "$tap_tmp/why6"
expect "... alone" 0 -- test "$(grep -c ' held by ' "$tap_tmp/why6")" = 1
expect "... permanent, added seconds ago" 0 -- \
	holding_line "$tap_tmp/why6" 2001:db8::/64 feed permanent

check "default holds 198.51.100.77, permanent" "$CFCTL" add 198.51.100.77
expect "why 198.51.100.77: default's" 0 -o "drop (source address), source default" -- \
	"$CFCTL" why 198.51.100.77
cp "$tap_tmp/out" "$tap_tmp/whyd"
expect "... not recorded when added" 0 -- \
	holding_line "$tap_tmp/whyd" 198.51.100.77 default permanent unrecorded
expect "... and the footnote says whose are not" 0 -- \
	grep -qx 'added: not recorded for "default"'"'"'s permanent entries that no other source holds' \
	"$tap_tmp/whyd"

# A snapshot keeps when each holding was added: restored 2 s later, jail's
# is 2 s older, not new.
"$CFCTL" why -j "$ADDR" >"$tap_tmp/before.json"
age_before=$(grep -o "\"entry\":\"$ADDR\",\"source\":\"jail\",[^}]*" "$tap_tmp/before.json" |
	sed -n 's/.*"age":\([0-9]*\).*/\1/p')
check "snapshot" "$CFCTL" snapshot "$tap_tmp/snap"
check "clear" "$CFCTL" clear
sleep 2
check "restore" "$CFCTL" restore "$tap_tmp/snap"
"$CFCTL" why -j "$ADDR" >"$tap_tmp/after.json"
age_after=$(grep -o "\"entry\":\"$ADDR\",\"source\":\"jail\",[^}]*" "$tap_tmp/after.json" |
	sed -n 's/.*"age":\([0-9]*\).*/\1/p')
expect "restored: jail's holding is as old as it was, and 2 s more ($age_before, then $age_after)" 0 -- \
	test -n "$age_before" -a "${age_after:-0}" -ge "$((${age_before:-0} + 1))" -a \
	"${age_after:-0}" -le "$((${age_before:-0} + 10))"
expect "why 192.0.2.0/24: usage error" 2 -e "expected one IPv4 or IPv6 address" -- \
	"$CFCTL" why 192.0.2.0/24
expect "why nonsense: usage error" 2 -e "invalid address 'nonsense'" -- \
	"$CFCTL" why nonsense
expect "why alone: usage error" 2 -e "missing ADDR" -- "$CFCTL" why

"$CFCTL" detach "$VETH" >/dev/null
"$CFCTL" clear
veth_cleanup
tap_end
