#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Operations: cfctl status, stats --watch, and the TC ingress program
# (attach --mode tc) blocking pings over a veth pair like the XDP one; in
# compact mode, the mirror cfctl hands over, as status shows it, and a
# source it drops.

. "$(dirname "$0")/lib.sh"
trap lib_cleanup EXIT

# Lines of the last run's stdout.
out_lines()
{
	wc -l <"$tap_tmp/out" | tr -d ' '
}

# stats --watch ended by SIGINT after about two seconds: exit 0, and one
# line per second meanwhile.
# shellcheck disable=SC2317 # called through check
watch_interrupted()
{
	"$CFCTL" stats --watch >"$tap_tmp/watch" 2>&1 &
	_pid=$!
	sleep 2
	kill -INT "$_pid"
	wait "$_pid"
	_rc=$?
	[ "$_rc" = 0 ] || { diag "exit status $_rc"; return 1; }
	grep -q "passed [0-9]*/s" "$tap_tmp/watch"
}

tap_begin
load_module || tap_skip_all "cannot load $CFILTER_KO"
[ -x "$IP" ] || tap_skip_all "iproute2 not found at $IP"
check "setup: cfctl clear" "$CFCTL" clear
veth_setup || tap_skip_all "cannot set up $NS and $VETH"

# status with nothing attached.
expect "status --help exits 0" 0 -o "cfctl status" -- "$CFCTL" status --help
expect "status, nothing attached: exit 0" 0 -o "not attached anywhere" -- \
	"$CFCTL" status
expect "status says the module is loaded" 0 -o "module: loaded" -- \
	"$CFCTL" status
expect "status -j, nothing attached" 0 \
	-o '{"module_loaded":true,"module_btf":true,"attached":[]}' -- "$CFCTL" status -j
expect "status with an argument: exit 2, named" 2 -e "'$VETH'" -- \
	"$CFCTL" status "$VETH"

# stats --watch: its options.
expect "stats -i without --watch: exit 2" 2 -e "--watch" -- \
	"$CFCTL" stats -i 1
expect "stats --count without --watch: exit 2" 2 -e "--watch" -- \
	"$CFCTL" stats --count 1
for bad in 0 3601 x 1x -1 ""; do
	expect "stats --watch -i '$bad': exit 2, named" 2 -e "'$bad'" -- \
		"$CFCTL" stats --watch -i "$bad"
done
expect "stats --watch --count 0: exit 2, named" 2 -e "'0'" -- \
	"$CFCTL" stats --watch --count 0
expect "attach --mode bogus: exit 2, named" 2 -e "'bogus'" -- \
	"$CFCTL" attach "$VETH" --mode bogus

# XDP: status shows the mode and destination matching.
expect "attach generic" 0 -- "$CFCTL" attach "$VETH" --mode generic
expect "status shows $VETH in generic mode" 0 \
	-o "$VETH: cfilter_xdp in generic mode (prog id" -- "$CFCTL" status
expect "status: destination matching off" 0 -o "destination matching off" -- \
	"$CFCTL" status
expect "status -j shows the hook and mode" 0 \
	-o "{\"interface\":\"$VETH\",\"hook\":\"xdp\",\"mode\":\"generic\",\"prog_id\":" -- \
	"$CFCTL" status -j
expect "status -j: match_dst false" 0 -o '"match_dst":false}' -- \
	"$CFCTL" status -j
expect "status: the module keeps the prefilter" 0 \
	-o "  prefilter: on" -- "$CFCTL" status
expect "status -j: prefilter true" 0 -o '"prefilter":true,' -- \
	"$CFCTL" status -j
expect "attach tc while XDP runs: exit 3, says detach" 3 -e "detach" -- \
	"$CFCTL" attach "$VETH" --mode tc
expect "status -j: the fewest hashed bits for a filter with few addresses" 0 \
	-o '"prefilter_hashed_bits":4096,' -- "$CFCTL" status -j
# The hashed bits are sized at attach: 8 per exact address held then.
SIZING=$(mktemp)
awk 'BEGIN { for (i = 0; i < 1000; i++) printf "10.77.%d.%d\n", i / 250, i % 250 }' >"$SIZING"
check "load 1000 addresses of a source of their own" \
	"$CFCTL" load -s sizing "$SIZING"
expect "attach --match-dst where it runs: replaced in one step" 0 \
	-o "$VETH: replaced cfilter_xdp in generic mode" -- \
	"$CFCTL" attach --match-dst "$VETH"
expect "status: the replacement's hashed bits, sized for 1000 more addresses" 0 \
	-o "  prefilter hashed bits: 8192 (8 per address at attach, or of capacity in compact mode; attach again to size anew)" -- \
	"$CFCTL" status
check "flush the 1000 addresses" "$CFCTL" flush -s sizing
rm -f "$SIZING"
expect "status: destination matching on" 0 -o "destination matching on" -- \
	"$CFCTL" status
expect "status -j: match_dst true" 0 -o '"match_dst":true}' -- \
	"$CFCTL" status -j
expect "status: the replacement's prefilter is kept too" 0 \
	-o "  prefilter: on" -- "$CFCTL" status

# stats --watch: bounded by --count, or ended by SIGINT.
ping_from_ns_retry "$HOST4" >/dev/null
expect "stats --watch --count 2: exit 0" 0 -o "passed" -- \
	"$CFCTL" stats --watch --count 2
expect "stats --watch --count 2 printed 2 lines" 0 -- test "$(out_lines)" = 2
expect "stats --watch -i 1 --count 1: exit 0" 0 -- \
	"$CFCTL" stats --watch -i 1 --count 1
cp "$tap_tmp/out" "$tap_tmp/watch"
check "stats --watch: a rate per counter" grep -Eqx \
	"passed [0-9]+/s allowed [0-9]+/s dropped_src [0-9]+/s dropped_dst [0-9]+/s dropped_flow [0-9]+/s dropped_prefix [0-9]+/s dropped_tiny_fragment [0-9]+/s dropped_deep_headers [0-9]+/s unparsed [0-9]+/s" \
	"$tap_tmp/watch"
expect "stats -j --watch --count 1: exit 0" 0 -- \
	"$CFCTL" stats -j --watch --count 1
cp "$tap_tmp/out" "$tap_tmp/watch"
check "stats -j --watch: one JSON object" grep -Eqx \
	'[{]"passed":[0-9]+,"allowed":[0-9]+,"dropped_src":[0-9]+,"dropped_dst":[0-9]+,"dropped_flow":[0-9]+,"dropped_prefix":[0-9]+,"dropped_tiny_fragment":[0-9]+,"dropped_deep_headers":[0-9]+,"unparsed":[0-9]+[}]' \
	"$tap_tmp/watch"
check "stats --watch: SIGINT exits 0" watch_interrupted
check "detach" "$CFCTL" detach "$VETH"

# TC ingress: the same blocking. The clsact qdisc and the bpf classifier
# are modules on Debian's kernels; the guest has no modprobe.
if [ ! -d /sys/module/sch_ingress ] || [ ! -d /sys/module/cls_bpf ]; then
	expect "attach --mode tc without sch_ingress, cls_bpf: exit 3, says modprobe" \
		3 -e "modprobe sch_ingress cls_bpf" -- \
		"$CFCTL" attach "$VETH" --mode tc
	tap_skip "TC ingress" "sch_ingress and cls_bpf not loaded (VM_MODULES)"
	tap_end
fi
expect "attach --mode tc -n: exit 0, says would" 0 -o "would attach cfilter_tc" -- \
	"$CFCTL" attach -n "$VETH" --mode tc
expect "attach --mode tc" 0 -o "attached cfilter_tc at TC ingress" -- \
	"$CFCTL" attach "$VETH" --mode tc
expect "tc: $VETH has no XDP program" 1 -- has_xdp "$VETH"
expect "tc: attach again --match-dst: replaced in one step" 0 \
	-o "$VETH: replaced cfilter_tc at TC ingress" -- \
	"$CFCTL" attach --match-dst "$VETH" --mode tc
expect "tc: destination matching now on" 0 -o "destination matching on" -- \
	"$CFCTL" status
expect "tc: the module keeps the prefilter" 0 -o "  prefilter: on" -- \
	"$CFCTL" status
expect "tc: attach XDP too: exit 3, says detach" 3 -e "detach" -- \
	"$CFCTL" attach "$VETH" --mode generic
expect "tc: status shows $VETH at tc" 0 \
	-o "$VETH: cfilter_tc in tc mode (prog id" -- "$CFCTL" status
expect "tc: status -j shows hook tc" 0 \
	-o "{\"interface\":\"$VETH\",\"hook\":\"tc\",\"mode\":\"tc\",\"prog_id\":" -- \
	"$CFCTL" status -j
block_cycle tc "$PEER4" "$HOST4"
block_cycle tc "$PEER6" "$HOST6"
expect "tc: detach -n: says would detach" 0 -o "would detach cfilter_tc" -- \
	"$CFCTL" detach -n "$VETH"
expect "tc: detach" 0 -- "$CFCTL" detach "$VETH"
expect "tc: status: not attached anywhere" 0 -o "not attached anywhere" -- \
	"$CFCTL" status
expect "tc: detach again: exit 3" 3 -e "$VETH" -- "$CFCTL" detach "$VETH"
"$CFCTL" add "$PEER4" >/dev/null
expect "tc: after detach a blocked address passes" 0 -- \
	ping_from_ns_retry "$HOST4"
"$CFCTL" clear
expect "tc: attach again after detach" 0 -- \
	"$CFCTL" attach "$VETH" --mode tc
check "tc: detach" "$CFCTL" detach "$VETH"

# Compact mode: cfctl sizes the program's mirror and hands it over, and a
# held IPv4 source drops in the program itself.
check "compact: reload with mode=compact fp_bits=16 capacity=4096" \
	reload_module_as mode=compact fp_bits=16 capacity=4096
expect "compact: attach" 0 -- "$CFCTL" attach "$VETH" --mode generic
expect "compact: status: the mirror is on" 0 \
	-o "  mirror: on (IPv4 sources probed in the program)" -- "$CFCTL" status
expect "compact: status -j: compact_mirror true" 0 \
	-o '"compact_mirror":true' -- "$CFCTL" status -j
block_cycle compact "$PEER4" "$HOST4"
check "compact: allow $PEER4" "$CFCTL" allow "$PEER4"
expect "compact: status: the mirror is off while a source is allowed" 0 \
	-o "  mirror: off (while an IPv4 source is allowed, or a replace settles)" -- \
	"$CFCTL" status
expect "compact: ping from allowed $PEER4 passes" 0 -- \
	ping_from_ns_retry "$HOST4"
check "compact: detach" "$CFCTL" detach "$VETH"
check "compact: reload with the defaults" reload_module_as

tap_end
