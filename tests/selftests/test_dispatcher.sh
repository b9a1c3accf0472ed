#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cfilter beside another tool's XDP program, in libxdp's dispatcher:
# Debian's xdp-loader (the guest's Debian root) loads other_xdp, which
# counts the packets it sees, and cfctl attaches beside it. cfilter runs
# first (priority 10 against 50), so the other program never sees what
# cfilter drops and sees the rest; --priority 60 puts it after. Either
# can leave and the other keeps working; status shows the chain; a
# --match-dst switch there lets nothing through; LIBXDP_SKIP_DISPATCHER=1
# makes a plain attach, which xdp-loader cannot join.

. "$(dirname "$0")/lib.sh"
trap 'in_debian xdp-loader unload "$VETH" --all >/dev/null 2>&1; lib_cleanup' EXIT

# What xdp-loader loads: a copy in $tap_tmp, which is under /tmp, the
# same folder inside the Debian root.
OTHER=$tap_tmp/other_xdp.bpf.o

# Packets other_xdp has seen (its map, found through the program).
other_seen()
{
	_map=$("$BPFTOOL" prog show name other_xdp 2>/dev/null |
		sed -n 's/.*map_ids \([0-9][0-9]*\).*/\1/p' | head -n 1)
	[ -n "$_map" ] || return 1
	"$BPFTOOL" map dump id "$_map" |
		sed -n 's/.*"value": *\([0-9][0-9]*\).*/\1/p'
}

# PINGS echo requests from ADDR in $NS to $HOST4; fails unless all are
# answered. More than the few other packets (ARP) a link carries meanwhile.
PINGS=8
pings_from()
{
	"$IP" netns exec "$NS" ping -c "$PINGS" -i 0.1 -W 1 -I "$1" "$HOST4"
}

# ping_seen ADDR: pings_from ADDR, its exit status in $ping_rc, and in
# $seen the packets other_xdp saw meanwhile (empty if it cannot tell).
ping_seen()
{
	seen=
	_before=$(other_seen)
	pings_from "$1" >/dev/null 2>&1
	ping_rc=$?
	_after=$(other_seen)
	[ -n "$_before" ] && [ -n "$_after" ] && seen=$((_after - _before))
	diag "pings from $1: exit status $ping_rc, other_xdp saw ${seen:-?} packets"
}

# Does `cfctl status` print TEXT?
status_has()
{
	"$CFCTL" status | grep -qF -- "$1"
}

# Is NAME in xdp-loader's view of $VETH?
loader_shows()
{
	in_debian xdp-loader status "$VETH" | grep -q " $1 "
}

tap_begin
load_module || tap_skip_all "cannot load $CFILTER_KO"
[ -n "${DEBIAN_ROOT:-}" ] ||
	tap_skip_all "no Debian root (xdp-loader): run the guest with VM_DEBIAN=1"
in_debian test -x /usr/sbin/xdp-loader ||
	tap_skip_all "xdp-tools is not in the Debian root"
cp "$(dirname "$0")/other_xdp.bpf.o" "$OTHER" || exit 1
check "setup: cfctl clear" "$CFCTL" clear
veth_setup || { tap_not_ok "setup: $NS and $VETH"; tap_end; }
ping_from_ns_retry "$HOST4" >/dev/null	# neighbours resolved

# The other tool first, then cfilter joins its dispatcher.
check "xdp-loader loads other_xdp" \
	in_debian xdp-loader load -m skb "$VETH" "$OTHER"
expect "attach -m native beside a generic dispatcher: exit 3, says why" 3 \
	-e "joins it only in that mode" -- "$CFCTL" attach -m native "$VETH"
expect "attach joins its dispatcher, in its mode" 0 \
	-o "$VETH: attached cfilter_xdp in generic mode (prog id" -- \
	"$CFCTL" attach "$VETH"
cp "$tap_tmp/out" "$tap_tmp/said"
expect "attach says: libxdp dispatcher, priority 10, beside others" 0 -- \
	grep -q "; libxdp dispatcher [0-9]*, priority 10, beside other programs)" \
	"$tap_tmp/said"
expect "status: cfilter runs first" 0 -- \
	status_has "1. priority 10: cfilter_xdp (prog id"
expect "status: other_xdp second" 0 -- \
	status_has "2. priority 50: other_xdp (prog id"
expect "status -j: the chain, cfilter marked" 0 \
	-o '{"name":"other_xdp","prog_id":' -- "$CFCTL" status -j
cp "$tap_tmp/out" "$tap_tmp/said"
expect "status -j: cfilter's entry" 0 -- grep -q \
	'"via":"dispatcher","dispatcher":{"prog_id":[0-9]*,"programs":\[{"name":"cfilter_xdp","prog_id":[0-9]*,"priority":10,"chain_call_actions":\["XDP_PASS"\],"cfilter":true}' \
	"$tap_tmp/said"
check "xdp-loader sees cfilter_xdp" loader_shows cfilter_xdp

check "add $PEER4" "$CFCTL" add "$PEER4"
ping_seen "$PEER4"
expect "$PEER4 is dropped" 0 -- test "$ping_rc" = 1
expect "other_xdp never sees what cfilter drops" 0 -- \
	test "${seen:-99}" -lt "$PINGS"
"$IP" -n "$NS" addr add "192.0.2.3/24" dev "$VETH_PEER"
ping_seen 192.0.2.3
expect "another address passes" 0 -- test "$ping_rc" = 0
expect "other_xdp sees what cfilter passes" 0 -- \
	test "${seen:--1}" -ge "$PINGS"

expect "--priority 60 puts cfilter after other_xdp" 0 \
	-o "replaced cfilter_xdp in generic mode" -- \
	"$CFCTL" attach --priority 60 "$VETH"
cp "$tap_tmp/out" "$tap_tmp/said"
expect "attach says priority 60" 0 -- grep -qF "priority 60)" "$tap_tmp/said"
expect "status: other_xdp first now" 0 -- \
	status_has "1. priority 50: other_xdp (prog id"
expect "status: cfilter second" 0 -- \
	status_has "2. priority 60: cfilter_xdp (prog id"
ping_seen "$PEER4"
expect "other_xdp now sees the blocked echoes" 0 -- \
	test "${seen:--1}" -ge "$PINGS"
expect "and cfilter still drops them" 0 -- test "$ping_rc" = 1

# A --match-dst switch there and back under a stream of blocked echoes,
# stopped once both are done: none gets through. The stream and the
# switches share CPU 0, as in test_veth.sh: an emulated CPU that runs the
# kernel's XDP dispatcher while another patches it can die in
# "Oops: int3" (docs/design.md).
"$IP" netns exec "$NS" taskset -c 0 ping -q -i 0.005 -W 1 -I "$PEER4" \
	"$HOST4" >"$tap_tmp/flood" 2>&1 &
flood=$!
switches=0
taskset -c 0 "$CFCTL" attach --match-dst "$VETH" >/dev/null &&
	switches=$((switches + 1))
taskset -c 0 "$CFCTL" attach "$VETH" >/dev/null && switches=$((switches + 1))
kill -INT "$flood"
wait "$flood"
expect "two switches in the dispatcher" 0 -- test "$switches" = 2
expect_flood_blocked "during them"
expect "one cfilter program is left, at priority 60" 0 \
	-o "2. priority 60: cfilter_xdp" -O "3. priority" -- "$CFCTL" status

# The other tool leaves: cfilter keeps working.
other_id=$("$BPFTOOL" prog show name other_xdp |
	sed -n 's/^\([0-9][0-9]*\):.*/\1/p')
check "xdp-loader unloads other_xdp" \
	in_debian xdp-loader unload "$VETH" -i "${other_id:-0}"
expect "status: cfilter alone in the dispatcher" 0 \
	-o "1. priority 60: cfilter_xdp" -O "other_xdp" -- "$CFCTL" status
expect "$PEER4 is still dropped" 1 -- ping_from_ns "$HOST4"

# The other tool comes back, then cfilter leaves: the other keeps working.
check "xdp-loader loads other_xdp into cfilter's dispatcher" \
	in_debian xdp-loader load -m skb "$VETH" "$OTHER"
expect "detach takes out cfilter alone" 0 -- "$CFCTL" detach "$VETH"
check "xdp-loader still runs other_xdp" loader_shows other_xdp
expect "xdp-loader: cfilter_xdp is gone" 1 -- loader_shows cfilter_xdp
expect "status: not attached anywhere" 0 -o "not attached anywhere" -- \
	"$CFCTL" status
ping_seen "$PEER4"
expect "$PEER4 passes" 0 -- test "$ping_rc" = 0
expect "other_xdp sees it" 0 -- test "${seen:--1}" -ge "$PINGS"
check "xdp-loader unloads the rest" in_debian xdp-loader unload "$VETH" --all
expect "no XDP program is left" 1 -- has_xdp "$VETH"

# Without the dispatcher: plain XDP, and said so.
expect "LIBXDP_SKIP_DISPATCHER=1: plain XDP, said so" 0 \
	-o "plain XDP)" -e "without its dispatcher" -- \
	env LIBXDP_SKIP_DISPATCHER=1 "$CFCTL" attach -m generic "$VETH"
expect "status says plain XDP" 0 -o "; plain XDP), destination matching off" \
	-- "$CFCTL" status
expect "xdp-loader cannot join a plain program" nonzero -- \
	in_debian xdp-loader load -m skb "$VETH" "$OTHER"
expect "$PEER4 is dropped by the plain program" 1 -- ping_from_ns "$HOST4"
check "detach the plain program" "$CFCTL" detach "$VETH"

"$CFCTL" clear >/dev/null
tap_end
