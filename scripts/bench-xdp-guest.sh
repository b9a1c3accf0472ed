#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest half of `make bench-xdp` (run by scripts/bench-xdp.sh through
# scripts/vm-run.sh, which puts xdp_bench, the geo ranges and the
# parameters where the selftests usually go). The table goes between
# @@BENCH-BEGIN and @@BENCH-END for the host to keep.
set -eu

cd /opt/cfilter/selftests
# shellcheck source=/dev/null # written by scripts/bench-xdp.sh
. ./params
./xdp_bench -n "$PACKETS" -p "$PASSES" -g geo-ranges.txt \
	-l "$(cat geo-label)" >/tmp/xdp-bench.out
echo "@@BENCH-BEGIN"
cat /tmp/xdp-bench.out
echo "@@BENCH-END"
