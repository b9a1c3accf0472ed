#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Real traffic: namespace cfns pings the root namespace over a veth pair
# whose root side runs cfctl's XDP program, in generic and in native mode.
# Blocking the peer's source address stops its pings and counts drops;
# unblocking lets them through again; detaching removes the program.

. "$(dirname "$0")/lib.sh"
trap lib_cleanup EXIT

# Blocking PEER_ADDR makes pings from the namespace to HOST_ADDR fail and
# the dropped counter grow; unblocking restores them.
block_cycle()
{
	mode=$1 peer=$2 host=$3
	expect "$mode: ping $host from $peer passes" 0 -- \
		ping_from_ns_retry "$host"
	expect "$mode: add $peer" 0 -- "$CFCTL" add "$peer"
	dropped=$(stat_value dropped_src)
	expect "$mode: ping from blocked $peer fails" nonzero -- \
		ping_from_ns "$host"
	expect "$mode: stats count the dropped echo" 0 -- \
		test "$(stat_value dropped_src)" -gt "${dropped:-0}"
	expect "$mode: del $peer" 0 -- "$CFCTL" del "$peer"
	expect "$mode: ping from unblocked $peer passes again" 0 -- \
		ping_from_ns_retry "$host"
}

# One scenario per attach mode, each on a fresh veth pair.
scenario()
{
	mode=$1 shown=$2
	"$CFCTL" clear
	if ! veth_setup; then
		tap_not_ok "$mode: set up $NS and $VETH"
		return
	fi
	expect "$mode: attach to $VETH" 0 -- \
		"$CFCTL" attach "$VETH" --mode "$mode"
	expect "$mode: $VETH runs XDP in $mode mode" 0 -- \
		xdp_mode_is "$VETH" "$shown"
	block_cycle "$mode" "$PEER4" "$HOST4"
	block_cycle "$mode" "$PEER6" "$HOST6"
	expect "$mode: detach from $VETH" 0 -- "$CFCTL" detach "$VETH"
	expect "$mode: $VETH has no XDP program left" 1 -- has_xdp "$VETH"
	"$CFCTL" add "$PEER4" >/dev/null
	expect "$mode: after detach a blocked address passes" 0 -- \
		ping_from_ns_retry "$HOST4"
	"$CFCTL" clear
	veth_cleanup
}

tap_begin
load_module || tap_skip_all "cannot load $CFILTER_KO"
[ -x "$IP" ] || tap_skip_all "iproute2 not found at $IP"
check "setup: cfctl clear" "$CFCTL" clear

scenario generic xdpgeneric
scenario native xdp

tap_end
