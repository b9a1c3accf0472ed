#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest half of `make bench-xdp` (run by scripts/bench/bench-xdp.sh through
# scripts/vm/vm-run.sh, which puts xdp_bench, the geo ranges and the
# parameters where the selftests usually go). The table goes between
# @@BENCH-BEGIN and @@BENCH-END for the host to keep.
#
# After the main run, the IPv4 geo workload again with cfilter.ko reloaded
# in compact mode: its address table keeps fingerprints only, and so no
# summary of its addresses, and is probed for every packet that the
# prefilter's hashed bits let through whenever it holds any (here the
# ranges' single addresses); the length tables stay exact. Compact tables never grow: the capacity is sized for the set.
# Then the exact workload (the same keys and frames) against compact fp16
# and fp12, the Bloom filter beside them, cfilter's program with its mirror
# of the IPv4 source table (docs/uapi.md, "The mirror"); each such run ends
# with its goal's line, which joins the main run's goals.
set -eu

COMPACT="mode=compact capacity=262144"
KEYS=100000

die() {
	echo "bench-xdp: $*" >&2
	exit 1
}

# Loads the module again with the parameters given.
reload() {
	reload_module_as "$@" || die "reloading $CFILTER_KO ($*) failed"
}

cd /opt/cfilter/selftests
# shellcheck source=tests/selftests/lib.sh
. ./lib.sh
# shellcheck source=/dev/null # written by scripts/bench/bench-xdp.sh
. ./params
./xdp_bench -n "$PACKETS" -p "$PASSES" -P "$PLACEMENTS" -k "$KEYS" \
	-e "6:$KEYS" -e 4:1000000 -e 6:1000000 \
	-g geo4.txt -l "$(cat geo4.label)" \
	-g geo4.txt -l "$(cat geo4.label), misses from elsewhere" \
	-m geo4-rest.txt -M "$(cat geo4-rest.label)" \
	-g geo4-all.txt -l "$(cat geo4-all.label)" \
	-g geo6.txt -l "$(cat geo6.label)" \
	-g geo6.txt -l "$(cat geo6.label), misses from elsewhere" \
	-m geo6-rest.txt -M "$(cat geo6-rest.label)" \
	-g geo6-all.txt -l "$(cat geo6-all.label)" >/tmp/xdp-bench.out

# shellcheck disable=SC2086 # one argument per parameter
reload $COMPACT
./xdp_bench -S -n "$PACKETS" -p "$PASSES" -g geo4.txt -l "$COMPACT" \
	>/tmp/xdp-bench.compact
: >/tmp/xdp-bench.exact
: >/tmp/xdp-bench.goals
for fp in 16 12; do
	reload mode=compact fp_bits=$fp capacity=$KEYS
	./xdp_bench -C -n "$PACKETS" -p "$PASSES" -P "$PLACEMENTS" -k "$KEYS" \
		>/tmp/xdp-bench.fp
	sed '$d' /tmp/xdp-bench.fp >>/tmp/xdp-bench.exact
	sed -n '$p' /tmp/xdp-bench.fp >>/tmp/xdp-bench.goals
done
reload

echo "@@BENCH-BEGIN"
cat /tmp/xdp-bench.out /tmp/xdp-bench.goals
echo
echo "== exact: the same $KEYS addresses and frames, cfilter.ko reloaded in compact mode (capacity=$KEYS) =="
echo "(ns per packet; cf, bl: cfilter, the Bloom program; false: misses dropped, of $PACKETS, last pass;"
echo " mem: kernel mem as above, with the set's record of the addresses the prefilter's hashed bits"
echo " are made from, as large as they are, and the program's mirror of the table; cf own: the"
echo " module's own count)"
printf '%-22s %7s %7s %7s %7s %9s %10s %8s %9s %8s %8s %10s %10s %10s\n' \
	module "cf hit" "cf miss" "bl hit" "bl miss" hit/bloom miss/bloom \
	hit/hash miss/hash "cf false" "bl false" "cf mem" "cf own" "bloom mem"
cat /tmp/xdp-bench.exact
echo
echo "== geo IPv4 $(cat geo4.label) again, cfilter.ko reloaded in compact mode =="
echo "(ns per packet; probes: mean table probes per packet, counted as above; own count: with the"
echo " prefilter map and the set's record of the addresses)"
printf '%-28s %4s %9s %10s %6s %6s %8s %8s %8s %8s %9s %9s\n' module lengths \
	markers "own count" "p hit" "p miss" "cf hit" "cf miss" "lpm hit" \
	"lpm miss" "hit/lpm" "miss/lpm"
cat /tmp/xdp-bench.compact
echo "@@BENCH-END"
