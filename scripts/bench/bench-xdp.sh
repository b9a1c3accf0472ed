#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-xdp`: ns per packet of cfilter's XDP program against XDP
# programs with the same parser and a BPF hash map, LPM trie or Bloom
# filter, through BPF_PROG_TEST_RUN in the guest (bench/xdp/xdp_bench, run
# by scripts/bench/bench-xdp-guest.sh): 100k and 1M random IPv4 and IPv6
# addresses; as prefixes, from tor-geoipdb, the IPv4 ranges of
# BENCH_COUNTRIES (twice: misses uniform over the address space, then from
# every other country's ranges) and those of every country (each country's
# merged on its own, as blocking the countries one by one stores them), and
# the same three for IPv6. The table goes to bench/results/xdp.txt.
# KERNEL=6.12 runs it on Debian 13's kernel.
#
# Environment: BENCH_COUNTRIES (default "CN RU KR BR IR"), BENCH_PACKETS
# (distinct frames per traffic, default 32768), BENCH_PASSES (default 7),
# BENCH_PLACEMENTS (the exact and geo workloads' tables made anew, default
# 3).
#
# The guest is emulated (qemu TCG): only the ratios between programs hold.
set -euo pipefail
cd "$(dirname "$0")/../.."

export KERNEL=${KERNEL:-6.1}
export VM_MEM=${VM_MEM:-2G}
export VM_TIMEOUT=${VM_TIMEOUT:-1800}
COUNTRIES=${BENCH_COUNTRIES:-CN RU KR BR IR}
OUT=bench/results/xdp.txt

make -s module user
make -s -C bench/xdp

# The guest sees the runner and its inputs where it sees the selftests.
STAGE=$(mktemp -d "${TMPDIR:-/tmp}/bench-xdp.XXXXXX")
LOG=$STAGE.log
trap 'rm -rf "$STAGE" "$LOG"' EXIT
cp bench/xdp/xdp_bench tests/selftests/lib.sh "$STAGE/"
# Each workload: NAME.txt, its ranges, and NAME.label, what they are.
# The countries of a tor-geoipdb file ($1: geoip or geoip6), one per line.
countries_of() {
	awk -F, '!/^#/ && NF == 3 && $3 != "??" { print $3 }' \
		"${GEOIP_DIR:-/usr/share/tor}/$1" | sort -u
}

# Per family (4: geoip, 6: geoip6): NAME.txt, the blocked countries' ranges;
# NAME-rest.txt, every other country's, where the traffic that must pass
# comes from in a second row; NAME-all.txt, every country's.
for v in 4 6; do
	file=geoip
	flag=
	[ "$v" = 4 ] || { file=geoip6; flag=-6; }
	# shellcheck disable=SC2086 # one argument per country
	scripts/geoip/geoip-ranges.sh $flag $COUNTRIES >"$STAGE/geo$v.txt"
	echo "$COUNTRIES" >"$STAGE/geo$v.label"
	# shellcheck disable=SC2086 # one line per country
	rest=$(countries_of $file | grep -vxF "$(printf '%s\n' $COUNTRIES)")
	# shellcheck disable=SC2086 # one argument per country
	scripts/geoip/geoip-ranges.sh $flag $rest >"$STAGE/geo$v-rest.txt"
	echo "the $(echo "$rest" | wc -l) other countries" \
		>"$STAGE/geo$v-rest.label"
	scripts/geoip/geoip-ranges.sh $flag -s all >"$STAGE/geo$v-all.txt"
	if [ "$v" = 4 ]; then
		echo "all $(countries_of $file | wc -l) countries, each merged on its own"
	else
		echo "all $(countries_of $file | wc -l) countries"
	fi >"$STAGE/geo$v-all.label"
done
printf 'PACKETS=%s\nPASSES=%s\nPLACEMENTS=%s\n' "${BENCH_PACKETS:-32768}" \
	"${BENCH_PASSES:-7}" "${BENCH_PLACEMENTS:-3}" >"$STAGE/params"

SELFTESTS_DIR=$STAGE scripts/vm/vm-run.sh scripts/bench/bench-xdp-guest.sh | tee "$LOG"

{
	echo "# make bench-xdp ($(date -u +%Y-%m-%d), $(git describe --always --dirty 2>/dev/null || echo no git))"
	sed -n '/^@@BENCH-BEGIN$/,/^@@BENCH-END$/p' "$LOG" | sed '1d;$d'
} >"$OUT.new"
grep -q '^== goals' "$OUT.new" || {
	rm -f "$OUT.new"
	echo "bench-xdp: the guest printed no table; $OUT left as it was" >&2
	exit 1
}
mv "$OUT.new" "$OUT"
echo "bench-xdp: table written to $OUT"
