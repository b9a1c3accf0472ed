#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make demo` (run by scripts/vm/vm-run.sh, cfilter.ko loaded):
# a host in namespace "client" (192.0.2.2) pings this machine (192.0.2.1)
# over a veth pair; blocking its address with cfctl drops its traffic in
# XDP, unblocking lets it through again. Every claim the demo prints is
# checked: it exits non-zero as soon as one does not hold.
# POSIX sh: the guest's /bin/sh is dash, as on the host.

IP=/usr/sbin/ip		# iproute2: busybox ip has no netns or veth
NS=client
DEV=veth-host
PEER_DEV=veth-client
HOST=192.0.2.1
CLIENT=192.0.2.2

step=0

heading()
{
	step=$((step + 1))
	echo
	echo "==== $step. $*"
}

# Shows a command, then runs it.
show()
{
	echo "\$ $*"
	"$@"
}

fail()
{
	echo "demo: FAILED at step $step: $*" >&2
	exit 1
}

# Pings this machine three times from the client; the output is shown and
# kept in $ping_out, the exit status returned.
ping_from_client()
{
	echo "\$ ip netns exec $NS ping -c 3 -W 1 $HOST"
	ping_out=$("$IP" netns exec "$NS" ping -c 3 -W 1 "$HOST" 2>&1)
	_rc=$?
	echo "$ping_out"
	return $_rc
}

# Packets dropped because their source is blocked (cfctl stats counts
# drops by reason: the demo blocks a source address).
dropped()
{
	cfctl stats | sed -n 's/^dropped_src: *\([0-9][0-9]*\)$/\1/p'
}

cleanup()
{
	"$IP" link del "$DEV" 2>/dev/null
	"$IP" netns del "$NS" 2>/dev/null
	cfctl clear 2>/dev/null
}
trap cleanup EXIT

heading "Set up: namespace '$NS' ($CLIENT) joined to this host ($HOST) by a veth pair"
if ! { show "$IP" netns add "$NS" &&
	show "$IP" link add "$DEV" type veth peer name "$PEER_DEV" netns "$NS" &&
	show "$IP" addr add "$HOST/24" dev "$DEV" &&
	show "$IP" link set "$DEV" up &&
	show "$IP" -n "$NS" addr add "$CLIENT/24" dev "$PEER_DEV" &&
	show "$IP" -n "$NS" link set "$PEER_DEV" up; }; then
	fail "cannot create the namespace and veth pair"
fi
show cfctl clear || fail "cfctl clear failed"

heading "Attach cfilter's XDP program to $DEV"
show cfctl attach "$DEV" || fail "cfctl attach failed"
# The prefilter: packets from /16s no entry touches skip the module.
status=$(show cfctl status) || fail "cfctl status failed"
echo "$status"
case $status in
*"prefilter: on"*) ;;
*) fail "expected the module to keep the program's prefilter" ;;
esac

heading "The client can reach this host"
ping_from_client || fail "ping from $CLIENT failed before anything was blocked"

heading "Block the client: cfctl add $CLIENT"
before=$(dropped)
show cfctl add "$CLIENT" || fail "cfctl add failed"

heading "The client's packets are now dropped in XDP"
ping_from_client && fail "ping from blocked $CLIENT got replies"
case $ping_out in
*"100% packet loss"*) ;;
*) fail "expected 100% packet loss" ;;
esac

heading "cfctl stats counts the drops"
show cfctl stats || fail "cfctl stats failed"
after=$(dropped)
[ "${after:-0}" -ge $((${before:-0} + 3)) ] ||
	fail "dropped went from ${before:-?} to ${after:-?}, expected 3 more"
echo "dropped: ${before:-0} -> $after"

heading "cfctl test tells whether an address is blocked"
show cfctl test "$CLIENT" || fail "cfctl test: $CLIENT should be blocked"
show cfctl test 192.0.2.3
[ $? -eq 1 ] || fail "cfctl test: 192.0.2.3 should not be blocked (exit 1)"

heading "Unblock the client: cfctl del $CLIENT"
show cfctl del "$CLIENT" || fail "cfctl del failed"

heading "The client can reach this host again"
ping_from_client || fail "ping from $CLIENT still fails after cfctl del"

heading "A ban that ends by itself: cfctl add -s demo -t 6 $CLIENT"
show cfctl add -s demo -t 6 "$CLIENT" || fail "cfctl add -t failed"
ping_from_client && fail "ping from $CLIENT, banned for 6 s, got replies"
show cfctl list -s demo || fail "cfctl list -s demo failed"
echo "(waiting for the module to end the ban; nobody deletes it)"
waited=0
while cfctl test -s demo "$CLIENT" >/dev/null 2>&1; do
	[ "$waited" -lt 10 ] || fail "the 6 s ban of $CLIENT was still there after 10 s"
	sleep 1
	waited=$((waited + 1))
done
ping_from_client || fail "ping from $CLIENT fails after its ban expired"

heading "Block the client's whole network: cfctl add 192.0.2.0/24"
show cfctl add 192.0.2.0/24 || fail "cfctl add of a prefix failed"
ping_from_client && fail "ping from $CLIENT inside 192.0.2.0/24 got replies"
show cfctl match "$CLIENT" || fail "cfctl match: $CLIENT should be dropped"

heading "Punch a hole for the client: cfctl allow $CLIENT"
show cfctl allow "$CLIENT" || fail "cfctl allow failed"
ping_from_client || fail "ping from allowed $CLIENT failed"
show cfctl stats || fail "cfctl stats failed"

heading "The same as metrics for Prometheus (a few of them)"
echo "\$ cfctl stats --format prometheus | grep -E 'dropped_src|drops_total|build_info' | grep -v '^#'"
metrics=$(cfctl stats --format prometheus) || fail "cfctl stats --format prometheus failed"
echo "$metrics" | grep -E 'dropped_src|drops_total|build_info' | grep -v '^#'
echo "$metrics" | grep -qx "cfilter_packets_total{reason=\"dropped_src\"} $(dropped)" ||
	fail "the metrics' dropped_src is not cfctl stats' $(dropped)"

heading "The filter: cfctl info"
show cfctl info || fail "cfctl info failed"

heading "Detach: cfctl detach $DEV"
show cfctl detach "$DEV" || fail "cfctl detach failed"

echo
echo "demo: every step behaved as shown"
