#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest half of `make bench-load` (run by scripts/bench-load.sh through
# scripts/vm-run.sh): how long it takes to put 100k and 1M IPv4 addresses
# into the filter with one `cfctl load` (held by "default", or by a source
# of their own with a timeout), with one `cfctl add` per address, and into
# a BPF hash map with one `bpftool map update` per address or with one
# `bpftool batch file`; what each way of loading costs in memory; and how
# long after their deadline the module takes to expire a million holdings.
#
# One process per address is far too slow to run a million times under
# emulation: the per-address methods run on the first ADD_SAMPLE or
# UPDATE_SAMPLE addresses, and their time is scaled to the full sizes. The
# guest is emulated (qemu TCG): only the ratios between the methods mean
# anything.
#
# The table goes between @@BENCH-BEGIN and @@BENCH-END for the host to keep.
set -eu

SIZES="100000 1000000"
ADD_SAMPLE=2000
UPDATE_SAMPLE=1000
MAP=/sys/fs/bpf/bench_load
WORK=/tmp/bench-load
RESULTS=$WORK/results

die() {
	echo "bench-load: $*" >&2
	exit 1
}

# Uptime in centiseconds: busybox date has no %N, /proc/uptime is enough
# for runs of a second or more.
now() {
	awk '{ printf "%d\n", $1 * 100 }' /proc/uptime
}

# Keys 10.0.0.0 upwards: keys only, never used as hosts.
gen_addrs() {
	awk -v n="$1" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "10.%d.%d.%d\n", int(i / 65536) % 256,
			       int(i / 256) % 256, i % 256
	}'
}

# bpftool commands (the batch file format, and the arguments of one
# bpftool run each) adding the addresses on stdin to the hash map.
gen_updates() {
	awk -F. -v map="$MAP" '{
		printf "map update pinned %s key %d %d %d %d value 1 0 0 0\n",
		       map, $1, $2, $3, $4
	}'
}

fresh_map() {
	rm -f "$MAP"
	bpftool map create "$MAP" type hash key 4 value 4 entries 1048576 \
		name bench_load || die "bpftool map create failed"
}

# Number of entries in the hash map.
map_count() {
	bpftool map dump pinned "$MAP" | awk '/^Found [0-9]+ elements?$/ { print $2 }'
}

filter_count() {
	cfctl info | awk '$1 == "count:" { print $2 }'
}

# info_total KEY: the filter-wide KEY of cfctl info -j, which comes
# before the per-source and per-type ones.
info_total() {
	cfctl info -j | grep -o "\"$1\": *[0-9]*" | head -n 1 | tr -dc 0-9
}

# Bytes of kernel memory the filter uses, every table and record.
filter_memory() {
	info_total memory_bytes
}

timed_count() {
	info_total timed
}

# memory METHOD ENTRIES: the filter's memory after the method's load,
# beside an empty filter's (every key type's first tables).
memory() {
	echo "$1 $2 $(filter_memory) $EMPTY_MEMORY" >>"$WORK/memory"
}

expect_count() {
	[ "$2" = "$3" ] || die "$1: $2 entries after the run, expected $3"
}

# record METHOD ENTRIES CENTISECONDS
record() {
	echo "$1 $2 $3" >>"$RESULTS"
	echo "bench-load: $1: $2 entries in $(awk -v t="$3" 'BEGIN { printf "%.2f", t / 100 }') s"
}

bench_load() {
	n=$1

	cfctl clear >/dev/null
	t0=$(now)
	cfctl load "$WORK/v4-$n" >/dev/null || die "cfctl load of $n entries failed"
	t1=$(now)
	expect_count "cfctl load $n" "$(filter_count)" "$n"
	record cfctl-load "$n" $((t1 - t0))
	memory cfctl-load "$n"
}

# The same addresses as holdings of a source of their own, with a timeout.
bench_load_timed() {
	n=$1

	cfctl clear >/dev/null
	t0=$(now)
	cfctl load -s feed -t 86400 "$WORK/v4-$n" >/dev/null ||
		die "cfctl load -s feed -t 86400 of $n entries failed"
	t1=$(now)
	expect_count "cfctl load -t $n" "$(filter_count)" "$n"
	expect_count "cfctl load -t $n (timed)" "$(timed_count)" "$n"
	record cfctl-load-timed "$n" $((t1 - t0))
	memory cfctl-load-timed "$n"
}

# A million holdings due within the time their load took: from the last
# deadline until none is left.
bench_expiry() {
	n=$1 timeout=20

	cfctl clear >/dev/null
	cfctl load -s feed -t "$timeout" "$WORK/v4-$n" >/dev/null ||
		die "cfctl load -s feed -t $timeout of $n entries failed"
	# The last holding's deadline: at most a second after this.
	due=$(($(now) + timeout * 100))
	while [ "$(timed_count)" != 0 ]; do
		[ $(($(now) - due)) -lt 60000 ] || die "$n holdings not expired 600 s after their deadline"
		sleep 1
	done
	t1=$(now)
	expect_count "expiry of $n" "$(filter_count)" 0
	echo "$n $((t1 - due))" >"$WORK/expiry"
}

# each_line N FILE CMD...: CMD with the words of a line of FILE after it,
# one process for each of FILE's first N lines, timed into t0 and t1.
each_line() {
	head -n "$1" "$2" >"$WORK/sample"
	shift 2
	t0=$(now)
	while read -r line; do
		# shellcheck disable=SC2086 # one argument per word
		"$@" $line >/dev/null || die "$* $line failed"
	done <"$WORK/sample"
	t1=$(now)
}

bench_add() {
	n=$1

	cfctl clear >/dev/null
	each_line "$n" "$WORK/v4-1000000" cfctl add
	expect_count "cfctl add x $n" "$(filter_count)" "$n"
	record cfctl-add "$n" $((t1 - t0))
}

bench_update() {
	n=$1

	fresh_map
	each_line "$n" "$WORK/upd-1000000" bpftool
	expect_count "bpftool map update x $n" "$(map_count)" "$n"
	record bpftool-update "$n" $((t1 - t0))
}

bench_batch() {
	n=$1

	fresh_map
	t0=$(now)
	bpftool batch file "$WORK/upd-$n" >/dev/null || die "bpftool batch of $n updates failed"
	t1=$(now)
	expect_count "bpftool batch $n" "$(map_count)" "$n"
	record bpftool-batch "$n" $((t1 - t0))
}

# The table: each method's time for every size (measured, or scaled from
# its sample) and its ratio to `cfctl load` of the same size.
report() {
	awk -v sizes="$SIZES" '
	function size(v) {
		return v >= 1000000 ? v / 1000000 "M" : v / 1000 "k"
	}
	function label(m) {
		if (m == "cfctl-load") return "cfctl load FILE (1 process)"
		if (m == "cfctl-load-timed") return "cfctl load -s feed -t 86400 FILE"
		if (m == "cfctl-add") return "cfctl add ADDR (1 per entry)"
		if (m == "bpftool-update") return "bpftool map update (1 per entry)"
		return "bpftool batch file (hash map)"
	}
	{
		if (!($1 in seen)) { order[++n] = $1; seen[$1] = 1 }
		cs[$1, $2] = $3; sample[$1] = $2
	}
	END {
		ns = split(sizes, sz, " ")
		printf "%-34s %9s", "method", "measured"
		for (j = 1; j <= ns; j++)
			printf " %11s %9s", size(sz[j]) " (s)", "x load"
		printf "\n"
		for (i = 1; i <= n; i++) {
			m = order[i]
			scaled = !((m, sz[1]) in cs)
			printf "%-34s %9s", label(m), scaled ? sample[m] : "all"
			for (j = 1; j <= ns; j++) {
				if (scaled)
					t = cs[m, sample[m]] / sample[m] * sz[j] / 100
				else
					t = cs[m, sz[j]] / 100
				base = cs["cfctl-load", sz[j]] / 100
				ratio = base > 0 ? sprintf("%.1f", t / base) : "n/a"
				printf " %11.2f %9s", t, ratio
			}
			printf "\n"
		}
	}' "$RESULTS"
}

rm -rf "$WORK"
mkdir -p "$WORK"
: >"$RESULTS"
echo "bench-load: generating the address lists"
for n in $SIZES; do
	gen_addrs "$n" >"$WORK/v4-$n"
	gen_updates <"$WORK/v4-$n" >"$WORK/upd-$n"
done

cfctl clear >/dev/null
EMPTY_MEMORY=$(filter_memory)
for n in $SIZES; do
	bench_load "$n"
	bench_load_timed "$n"
done
bench_expiry 1000000
bench_add "$ADD_SAMPLE"
bench_update "$UPDATE_SAMPLE"
for n in $SIZES; do
	bench_batch "$n"
done
cfctl clear >/dev/null
rm -f "$MAP"

echo "@@BENCH-BEGIN"
echo "kernel $(uname -r), $(nproc) CPUs, qemu TCG (emulated: compare ratios only)"
echo "times in seconds; \"measured\": entries timed (all, or a sample scaled"
echo "linearly to each size); \"x load\": time / time of cfctl load, same size"
echo
report
echo
echo "memory after each load (cfctl info), less an empty filter's ($(awk -v b="$EMPTY_MEMORY" 'BEGIN { printf "%.1f MB", b / 1048576 }')):"
printf '%-34s %9s %12s %9s\n' method entries "memory (MB)" "B/entry"
awk '{ printf "%-34s %9s %12.1f %9.1f\n", $1 == "cfctl-load" ? "cfctl load FILE" : "cfctl load -s feed -t 86400 FILE", $2, ($3 - $4) / 1048576, ($3 - $4) / $2 }' "$WORK/memory"
echo
awk '{ printf "%d timed holdings due at once: all expired %.1f s after the last deadline (polled every second)\n", $1, $2 / 100 }' "$WORK/expiry"
echo "@@BENCH-END"
