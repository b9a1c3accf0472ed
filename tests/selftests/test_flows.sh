#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Real traffic against every entry kind but the plain source (test_veth.sh),
# prefixes and ranges included:
# namespace cfns opens TCP connections to a busybox nc listener and sends
# UDP datagrams to an echo, from exact source ports (flow_ping), and pings, all to the root namespace over
# a veth pair whose root side runs cfctl's XDP program (generic mode). Flow
# entries block exactly their 5-tuple, an allow entry exempts a blocked
# source, destination entries need attach --match-dst; each drop or
# exemption is counted. Then save -> clear -> load keeps every kind.

. "$(dirname "$0")/lib.sh"

FLOW_PING=$(dirname "$0")/flow_ping
TCP_PORT=8080
UDP_PORT=5353
pids=

cleanup()
{
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	lib_cleanup
}
trap cleanup EXIT

# TCP connect from $NS, source port SPORT, to ADDR:$TCP_PORT (2 s timeout);
# the source address is the peer's of ADDR's IP version.
tcp_from_ns()
{
	case $1 in
	*:*) _src=$PEER6 ;;
	*) _src=$PEER4 ;;
	esac
	"$IP" netns exec "$NS" "$FLOW_PING" tcp "$_src" "$2" "$1" "$TCP_PORT"
}

# One UDP datagram from $NS SADDR:SPORT to DADDR:$UDP_PORT, echoed back.
udp_from_ns()
{
	"$IP" netns exec "$NS" "$FLOW_PING" udp "$1" "$2" "$3" "$UDP_PORT"
}

# Did COUNTER grow since its value BEFORE?
grew()
{
	test "$(stat_value "$1")" -gt "$2"
}

# expect_dropped NAME COUNTER STATUS CMD...: two test cases, CMD (whose
# traffic is dropped) exits with STATUS, and COUNTER grows by it.
expect_dropped()
{
	_dname=$1 _counter=$2 _status=$3
	shift 3
	_count=$(stat_value "$_counter")
	expect "$_dname" "$_status" -- "$@"
	expect "$_dname: counted as $_counter" 0 -- grew "$_counter" "$_count"
}

# Servers in the root namespace: a TCP listener that accepts and closes
# every connection, and a UDP echo on both addresses.
servers_start()
{
	nc -ll -p "$TCP_PORT" -e /bin/true &
	pids="$pids $!"
	"$FLOW_PING" udp-serve "$HOST4" "$UDP_PORT" &
	pids="$pids $!"
	"$FLOW_PING" udp-serve "$HOST6" "$UDP_PORT" &
	pids="$pids $!"
	sleep 1
}

tcp_cases()
{
	expect "tcp: connect from port 41000 passes" 0 -- \
		tcp_from_ns "$HOST4" 41000
	expect "tcp: add the flow of port 41001" 0 -- \
		"$CFCTL" add tcp "$PEER4:41001" "$HOST4:$TCP_PORT"
	expect_dropped "tcp: connect from the blocked flow fails" \
		dropped_flow nonzero tcp_from_ns "$HOST4" 41001
	expect "tcp: another source port of the same host passes" 0 -- \
		tcp_from_ns "$HOST4" 41002
	expect "tcp: IPv6 passes" 0 -- tcp_from_ns "$HOST6" 41001
	expect "tcp: block the IPv6 flow" 0 -- \
		"$CFCTL" add tcp "[$PEER6]:41003" "[$HOST6]:$TCP_PORT"
	expect "tcp: connect from the blocked IPv6 flow fails" nonzero -- \
		tcp_from_ns "$HOST6" 41003
	expect "tcp: del the flow" 0 -- \
		"$CFCTL" del tcp "$PEER4:41001" "$HOST4:$TCP_PORT"
	expect "tcp: the unblocked flow passes again" 0 -- \
		tcp_from_ns "$HOST4" 41001
}

udp_cases()
{
	expect "udp: echo from port 42000 passes" 0 -- \
		udp_from_ns "$PEER4" 42000 "$HOST4"
	expect "udp: add the flow of port 42001" 0 -- \
		"$CFCTL" add udp "$PEER4:42001" "$HOST4:$UDP_PORT"
	expect_dropped "udp: the blocked flow gets no echo" dropped_flow 1 \
		udp_from_ns "$PEER4" 42001 "$HOST4"
	expect "udp: another source port passes" 0 -- \
		udp_from_ns "$PEER4" 42002 "$HOST4"
	expect "udp: add the IPv6 flow" 0 -- \
		"$CFCTL" add udp "[$PEER6]:42001" "[$HOST6]:$UDP_PORT"
	expect "udp: the blocked IPv6 flow gets no echo" 1 -- \
		udp_from_ns "$PEER6" 42001 "$HOST6"
	expect "udp: del the IPv6 flow" 0 -- \
		"$CFCTL" del udp "[$PEER6]:42001" "[$HOST6]:$UDP_PORT"
	expect "udp: the unblocked IPv6 flow passes again" 0 -- \
		udp_from_ns "$PEER6" 42001 "$HOST6"
}

icmp_cases()
{
	expect "icmp: block echo requests from the peer" 0 -- \
		"$CFCTL" add icmp "$PEER4" "$HOST4" 8
	expect "icmp: ping fails" nonzero -- ping_from_ns "$HOST4"
	expect "icmp: block ICMPv6 echo requests" 0 -- \
		"$CFCTL" add icmp6 "$PEER6" "$HOST6" 128
	expect "icmp6: ping fails" nonzero -- ping_from_ns "$HOST6"
	"$CFCTL" del icmp "$PEER4" "$HOST4" 8 >/dev/null
	"$CFCTL" del icmp6 "$PEER6" "$HOST6" 128 >/dev/null
	expect "icmp: ping passes once unblocked" 0 -- \
		ping_from_ns_retry "$HOST4"
}

# An allow entry inside a blocked source: everything from it passes, and
# is counted as allowed.
allow_cases()
{
	expect "allow: block the peer's source" 0 -- "$CFCTL" add "$PEER4"
	expect "allow: TCP from the blocked source fails" nonzero -- \
		tcp_from_ns "$HOST4" 43000
	expect "allow: cfctl allow the peer" 0 -- "$CFCTL" allow "$PEER4"
	n=$(stat_value allowed)
	expect "allow: TCP from the allowed source passes" 0 -- \
		tcp_from_ns "$HOST4" 43001
	expect "allow: UDP from the allowed source passes" 0 -- \
		udp_from_ns "$PEER4" 43001 "$HOST4"
	expect "allow: counted as allowed" 0 -- grew allowed "$n"
	expect "allow: del allow" 0 -- "$CFCTL" del allow "$PEER4"
	expect "allow: blocked again without the exception" 1 -- \
		udp_from_ns "$PEER4" 43002 "$HOST4"
	"$CFCTL" del "$PEER4" >/dev/null
}

# Prefixes and ranges with real traffic, IPv4 and IPv6: a prefix around the
# peer drops its TCP and UDP (counted as dropped_prefix), an allow prefix
# punches a hole in it, an exact entry inside keeps blocking when the
# prefix goes (dropped_src), and a range is a prefix too.
prefix_cases()
{
	expect "prefix: add 192.0.2.0/24" 0 -- "$CFCTL" add 192.0.2.0/24
	n=$(stat_value dropped_prefix)
	expect "prefix: TCP from inside the /24 fails" nonzero -- \
		tcp_from_ns "$HOST4" 45000
	expect "prefix: UDP from inside the /24 gets no echo" 1 -- \
		udp_from_ns "$PEER4" 45001 "$HOST4"
	expect "prefix: counted as dropped_prefix" 0 -- grew dropped_prefix "$n"
	expect "prefix: allow 192.0.2.2/31 inside it" 0 -- \
		"$CFCTL" allow 192.0.2.2/31
	n=$(stat_value allowed)
	expect "prefix: TCP from the allowed /31 passes" 0 -- \
		tcp_from_ns "$HOST4" 45002
	expect "prefix: counted as allowed" 0 -- grew allowed "$n"
	expect "prefix: del allow 192.0.2.2/31" 0 -- \
		"$CFCTL" del allow 192.0.2.2/31
	expect "prefix: add the peer's address too" 0 -- "$CFCTL" add "$PEER4"
	expect "prefix: del 192.0.2.0/24" 0 -- "$CFCTL" del 192.0.2.0/24
	expect_dropped "prefix: the address entry still drops" dropped_src 1 \
		udp_from_ns "$PEER4" 45003 "$HOST4"
	expect "prefix: del the address" 0 -- "$CFCTL" del "$PEER4"
	expect "prefix: UDP passes again" 0 -- \
		udp_from_ns "$PEER4" 45004 "$HOST4"
	expect "prefix: add the range 192.0.2.2-192.0.2.3" 0 -- \
		"$CFCTL" add 192.0.2.2-192.0.2.3
	expect "prefix: UDP from inside the range gets no echo" 1 -- \
		udp_from_ns "$PEER4" 45005 "$HOST4"
	expect "prefix: del the range" 0 -- "$CFCTL" del 192.0.2.2-192.0.2.3
	expect "prefix: UDP passes once the range is gone" 0 -- \
		udp_from_ns "$PEER4" 45006 "$HOST4"
	expect "prefix: add 2001:db8::/64" 0 -- "$CFCTL" add 2001:db8::/64
	expect "prefix: IPv6 TCP from inside the /64 fails" nonzero -- \
		tcp_from_ns "$HOST6" 45007
	expect "prefix: IPv6 UDP from inside the /64 gets no echo" 1 -- \
		udp_from_ns "$PEER6" 45008 "$HOST6"
	expect "prefix: del 2001:db8::/64" 0 -- "$CFCTL" del 2001:db8::/64
	expect "prefix: IPv6 TCP passes again" 0 -- tcp_from_ns "$HOST6" 45009
}

# Destination entries match only with attach --match-dst.
dst_cases()
{
	expect "dst: add dst $HOST4, with a note: nothing matches it" 0 \
		-e "no interface has it so" -- "$CFCTL" add dst "$HOST4"
	expect "dst: without --match-dst it does not match" 0 -- \
		udp_from_ns "$PEER4" 44000 "$HOST4"
	expect "dst: detach" 0 -- "$CFCTL" detach "$VETH"
	expect "dst: attached nowhere, load says so too" 0 \
		-e "it is attached nowhere" -- sh -c "echo 'dst $HOST6' | \"\$0\" load -" "$CFCTL"
	expect "dst: attach --match-dst" 0 -- \
		"$CFCTL" attach --match-dst "$VETH" --mode generic
	expect "dst: now an added dst entry comes without the note" 0 \
		-O "note: dst" -- sh -c '"$0" add dst 198.51.100.99 2>&1 && "$0" del dst 198.51.100.99' "$CFCTL"
	expect_dropped "dst: UDP to the blocked destination fails" dropped_dst 1 \
		udp_from_ns "$PEER4" 44001 "$HOST4"
	expect "dst: allow the peer: passes" 0 -- "$CFCTL" allow "$PEER4"
	expect "dst: UDP from the allowed source passes" 0 -- \
		udp_from_ns "$PEER4" 44002 "$HOST4"
	"$CFCTL" del allow "$PEER4" >/dev/null
	"$CFCTL" del dst "$HOST4" >/dev/null
	"$CFCTL" del dst "$HOST6" >/dev/null
}

# save -> clear -> load gives back every entry, each kind included.
round_trip()
{
	"$CFCTL" clear
	for e in "192.0.2.50" "2001:db8::50" "dst 198.51.100.7" \
		"dst 2001:db8::7" "allow 192.0.2.51" "allow 2001:db8::51" \
		"tcp 192.0.2.2:1 192.0.2.1:80" "udp [2001:db8::2]:53 [2001:db8::1]:5353" \
		"icmp 192.0.2.2 192.0.2.1 8" "icmp6 2001:db8::2 2001:db8::1 128"; do
		# shellcheck disable=SC2086 # an entry is several words
		check "round trip: add $e" "$CFCTL" add $e
	done
	"$CFCTL" save >"$tap_tmp/saved"
	expect "round trip: save lists 10 entries" 0 -- \
		test "$(grep -Evc '^(#|source )' "$tap_tmp/saved")" = 10
	check "round trip: clear" "$CFCTL" clear
	expect "round trip: load" 0 -o "loaded 10 entries" -- \
		"$CFCTL" load "$tap_tmp/saved"
	"$CFCTL" save >"$tap_tmp/again"
	grep -v '^#' "$tap_tmp/saved" >"$tap_tmp/saved.entries"
	grep -v '^#' "$tap_tmp/again" >"$tap_tmp/again.entries"
	expect "round trip: the same entries back" 0 -- \
		cmp "$tap_tmp/saved.entries" "$tap_tmp/again.entries"
	expect "round trip: list -j names each type" 0 -o '"type":"flow6"' -- \
		"$CFCTL" list -j
	"$CFCTL" clear
}

tap_begin
load_module || tap_skip_all "cannot load $CFILTER_KO"
[ -x "$IP" ] || tap_skip_all "iproute2 not found at $IP"
[ -x "$FLOW_PING" ] || tap_skip_all "$FLOW_PING not built"
check "setup: cfctl clear" "$CFCTL" clear
if ! veth_setup; then
	tap_not_ok "set up $NS and $VETH"
	tap_end
	exit
fi
servers_start
check "setup: attach to $VETH" "$CFCTL" attach "$VETH" --mode generic
expect "setup: ping passes" 0 -- ping_from_ns_retry "$HOST4"
expect "setup: IPv6 ping passes" 0 -- ping_from_ns_retry "$HOST6"

tcp_cases
udp_cases
icmp_cases
allow_cases
prefix_cases
dst_cases
check "detach" "$CFCTL" detach "$VETH"
round_trip

tap_end
