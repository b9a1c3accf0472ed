#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest half of `make bench-xdp` (run by scripts/bench-xdp.sh through
# scripts/vm-run.sh, which puts xdp_bench, the geo ranges and the
# parameters where the selftests usually go). The table goes between
# @@BENCH-BEGIN and @@BENCH-END for the host to keep.
#
# After the main run, the geo workload again with cfilter.ko reloaded with
# each line of SWEEP as its parameters: each target length is one more
# probe per packet, fewer of them store more expanded entries, and compact
# mode keeps fingerprints only (sized for the expanded entries, as it never
# grows). That shows where the prefix lookup's time goes.
set -eu

SWEEP="prefix_levels4=2
prefix_levels4=3
prefix_levels4=4
prefix_levels4=6
prefix_levels4=8
mode=compact capacity=262144"

die() {
	echo "bench-xdp: $*" >&2
	exit 1
}

# The module is released a little after the last program goes.
reload_module() {
	i=0
	while ! rmmod cfilter 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -lt 50 ] || die "rmmod cfilter still fails after 5 s"
		sleep 0.1
	done
	insmod "$CFILTER_KO" "$@" || die "insmod $CFILTER_KO $* failed"
}

cd /opt/cfilter/selftests
# shellcheck source=/dev/null # written by scripts/bench-xdp.sh
. ./params
label=$(cat geo-label)
./xdp_bench -n "$PACKETS" -p "$PASSES" -g geo-ranges.txt -l "$label" \
	>/tmp/xdp-bench.out

echo "$SWEEP" | while read -r params; do
	# shellcheck disable=SC2086 # one argument per parameter
	reload_module $params
	./xdp_bench -S -n "$PACKETS" -p "$PASSES" -g geo-ranges.txt \
		-l "$params" >>/tmp/xdp-bench.sweep
done
reload_module

echo "@@BENCH-BEGIN"
cat /tmp/xdp-bench.out
echo
echo "== geo again, cfilter.ko reloaded with other parameters =="
echo "(ns per packet; probes per packet: the address table, then one per target length)"
printf '%-28s %-20s %9s %10s %8s %8s %8s %8s %9s %9s\n' module "target lengths" \
	entries memory "cf hit" "cf miss" "lpm hit" "lpm miss" "hit/lpm" "miss/lpm"
cat /tmp/xdp-bench.sweep
echo "@@BENCH-END"
