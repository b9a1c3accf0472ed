#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-xdp-insns`: the instructions the guest runs per packet, for
# cfilter's XDP program and the baseline programs of `make bench-xdp`, on
# its 100k IPv4 and IPv6 exact workloads, exact and compact. The guest runs
# under bench/qemu/insns.so, which counts what a vCPU runs between two
# markers; xdp_bench -I marks each series (bench/xdp/measure.c), run by
# scripts/bench/bench-xdp-insns-guest.sh. Unlike
# time, the counts do not move with the host's load: they say what a
# change to a program costs in instructions, and nothing of what a load
# from a page not read of late costs, which only time shows. The table
# goes to bench/results/xdp-insns.txt.
#
# Environment: BENCH_PACKETS (distinct frames per traffic, default 8192);
# BENCH_PROFILE=1: also each series' instructions by the function they ran
# in, the JIT's programs named, with the host time the emulator spent on
# them (bench/results/xdp-insns-profile.txt; scripts/bench/insns-profile.awk).
set -euo pipefail
cd "$(dirname "$0")/../.."

export KERNEL=${KERNEL:-6.1}
export VM_MEM=${VM_MEM:-2G}
export VM_TIMEOUT=${VM_TIMEOUT:-1800}
OUT=bench/results/xdp-insns.txt
PROFILE_OUT=bench/results/xdp-insns-profile.txt
KEYS=100000
PROFILE=${BENCH_PROFILE:-0}
[[ $PROFILE = [01] ]] || { echo "bench-xdp-insns: BENCH_PROFILE=$PROFILE: want 0 or 1" >&2; exit 2; }

make -s module user
make -s -C bench/xdp
make -s -C bench/qemu

# Named now, before the tables it writes would make the tree dirty.
REV=$(git describe --always --dirty 2>/dev/null || echo no git)
STAGE=$(mktemp -d "${TMPDIR:-/tmp}/bench-xdp-insns.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
cp bench/xdp/xdp_bench tests/selftests/lib.sh "$STAGE/"
printf 'PACKETS=%s\nPROFILE=%s\nKEYS=%s\n' "${BENCH_PACKETS:-8192}" "$PROFILE" \
	"$KEYS" >"$STAGE/params"
plugin=$PWD/bench/qemu/insns.so
[ "$PROFILE" = 0 ] || plugin=$plugin,profile=on
VM_PLUGIN=$plugin VM_PLUGIN_LOG=$STAGE/plugin.log \
	SELFTESTS_DIR=$STAGE scripts/vm/vm-run.sh scripts/bench/bench-xdp-insns-guest.sh \
	>"$STAGE/console"

# Series n of the guest's is the plugin's markers 2n and 2n + 1 on vCPU 0,
# where xdp_bench -I runs.
awk -v out="$STAGE/table" '
FNR == NR {
	if ($1 == "insns-mark" && $2 == 0) {
		insns[$3] = $5
		blocks[$3] = $7
		mem[$3] = $9
	}
	next
}
/^insns-series / {
	sub(/^insns-series /, "")
	split($0, f, " \\| ")
	n = f[4]
	a = 2 * series++
	if (!((a + 1) in insns)) {
		print "bench-xdp-insns: no plugin count for series " series > "/dev/stderr"
		exit 1
	}
	key = f[1] SUBSEP f[2]
	if (!(key in seen)) {
		seen[key] = 1
		order[++rows] = key
	}
	i[key, f[3]] = (insns[a + 1] - insns[a]) / n
	b[key, f[3]] = (blocks[a + 1] - blocks[a]) / n
	m[key, f[3]] = (mem[a + 1] - mem[a]) / n
}
END {
	if (!rows)
		exit 1
	print "(per packet, on the vCPU that runs the series: instructions, translation blocks" > out
	print " entered, about one per branch taken, and memory accesses; each includes the" > out
	print " kernel'"'"'s BPF_PROG_TEST_RUN of one frame, which the parse-only row shows)" > out
	printf "%-34s %-22s %8s %8s %7s %7s %7s %7s\n", "workload", "program", "hit ins", \
		"miss ins", "hit blk", "mis blk", "hit mem", "mis mem" > out
	for (r = 1; r <= rows; r++) {
		split(order[r], k, SUBSEP)
		printf "%-34s %-22s %8.1f %8.1f %7.1f %7.1f %7.1f %7.1f\n", k[1], \
			substr(k[2], 1, 22), i[order[r], "hit"], i[order[r], "miss"], \
			b[order[r], "hit"], b[order[r], "miss"], \
			m[order[r], "hit"], m[order[r], "miss"] > out
	}
	print "" > out
	print "cfilter against the Bloom program, per packet:" > out
	for (r = 1; r <= rows; r++) {
		split(order[r], k, SUBSEP)
		if (k[2] != "cfilter" || !((k[1] SUBSEP "bloom") in seen))
			continue
		bl = k[1] SUBSEP "bloom"
		printf "%-34s instructions hit %+6.1f, miss %+6.1f; memory accesses hit %+6.1f, miss %+6.1f\n", \
			k[1], i[order[r], "hit"] - i[bl, "hit"], \
			i[order[r], "miss"] - i[bl, "miss"], \
			m[order[r], "hit"] - m[bl, "hit"], \
			m[order[r], "miss"] - m[bl, "miss"] > out
	}
}' "$STAGE/plugin.log" "$STAGE/console" || {
	echo "bench-xdp-insns: the guest printed no series; $OUT left as it was" >&2
	exit 1
}
{
	echo "# make bench-xdp-insns ($(date -u +%Y-%m-%d), $REV)"
	echo "kernel $KERNEL guest under qemu TCG and bench/qemu/insns.so; $KEYS random addresses"
	cat "$STAGE/table"
} >"$STAGE/out"
mv "$STAGE/out" "$OUT"
echo "bench-xdp-insns: table written to $OUT"
[ "$PROFILE" = 1 ] || exit 0
{
	echo "# make bench-xdp-insns BENCH_PROFILE=1 ($(date -u +%Y-%m-%d), $REV)"
	echo "(per packet, on vCPU 0: the instructions run in each function that the parse-only program's"
	echo " series does not run, half an instruction or more, and the host's clock ticks the emulator"
	echo " spent on them, the plugin's own callback per block included; bpf_prog_<tag>_<name>: a"
	echo " program as the JIT made it, the parser included; the totals move by up to 50 instructions"
	echo " between series of one program, with the kernel's allocator; ticks, with the host's load)"
	echo
	awk -f scripts/bench/insns-profile.awk "$STAGE/console" "$STAGE/plugin.log" \
		"$STAGE/console"
} >"$STAGE/profile"
mv "$STAGE/profile" "$PROFILE_OUT"
echo "bench-xdp-insns: profile written to $PROFILE_OUT"
