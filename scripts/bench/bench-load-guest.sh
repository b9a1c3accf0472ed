#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest half of `make bench-load` (run by scripts/bench/bench-load.sh through
# scripts/vm/vm-run.sh with the Debian root): how long it takes to put 100k
# and 1M IPv4 addresses, and as many prefixes, into the filter with one
# `cfctl load` (the addresses also held by a source of their own with a
# timeout), with one `cfctl add` per address, into a BPF hash map with one
# `bpftool map update` per address or with one `bpftool batch file`, and
# into the kernel's other sets from Debian's own clients: `ipset restore`
# of a hash:ip or hash:net set and `nft -f` of a set of ipv4_addr, with
# flags interval for the prefixes. `cfctl replace --dry-run` times the
# parsing that load does before its first ioctl. Also what each load costs
# in kernel memory, and how long after their deadline the module takes to
# expire a million holdings.
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

# N prefixes from 1.0.0.0 upwards, none overlapping another, of lengths /16
# to /30, each length 1.41 times likelier than the one before (a /30 is 128
# times likelier than a /16: a million of them take 55.0.0.0/8 and below).
# busybox awk has no ^: the powers are products.
gen_prefixes() {
	awk -v n="$1" 'BEGIN {
		srand(1)
		for (len = 16, w = 1; len <= 30; len++) {
			weight[len] = w
			total += w
			w *= 1.41421356
		}
		for (len = 0, size = 4294967296; len <= 32; len++) {
			block[len] = size
			size /= 2
		}
		at = 16777216
		for (i = 0; i < n; i++) {
			r = rand() * total
			for (len = 16; len < 30 && r >= weight[len]; len++)
				r -= weight[len]
			size = block[len]
			at = (int((at - 1) / size) + 1) * size
			if (at + size > 4294967296)
				exit 1
			printf "%d.%d.%d.%d/%d\n", int(at / 16777216),
			       int(at / 65536) % 256, int(at / 256) % 256,
			       at % 256, len
			at += size + 1 + int(rand() * 256)
		}
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

# ipset restore's input for a set bl of TYPE holding the N entries on
# stdin, sized up front (hashsize a power of two no smaller than N) so
# that the restore never rehashes: ipset's best case, though growing from
# the default hashsize took about as long in a trial.
gen_ipset() {
	awk -v type="$1" -v n="$2" 'BEGIN {
		for (hs = 1024; hs < n; hs *= 2)
			;
		printf "create bl %s family inet hashsize %d maxelem %d\n", type, hs, n
	}
	{ print "add bl " $0 }'
}

# nft -f's input for a set bl of ipv4_addr in table ip bench, with the
# set flags FLAGS ("" or "flags interval;"), holding the entries on stdin.
gen_nft() {
	awk -v flags="$1" 'BEGIN {
		print "add table ip bench"
		printf "add set ip bench bl { type ipv4_addr; %s}\n", flags
		printf "add element ip bench bl {"
	}
	{ printf "%s\n%s", (NR > 1 ? "," : ""), $0 }
	END { print "\n}" }'
}

# CMD in the Debian root, with a clean environment.
in_debian() {
	chroot "$DEBIAN_ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root "$@"
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

ipset_count() {
	in_debian ipset list -t bl | awk -F': ' '$1 == "Number of entries" { print $2 }'
}

nft_count() {
	in_debian nft list set ip bench bl |
		awk '{ n += gsub(/[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+/, "") } END { print n + 0 }'
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

# The kernel's memory in slabs, vmalloc areas and per-CPU chunks, where
# the filter, ipset's and nftables' sets live (as bench/xdp/memory.c reads
# it); the slabs that frees left empty are given back first.
kernel_memory() {
	for shrink in /sys/kernel/slab/*/shrink; do
		echo 1 >"$shrink" 2>/dev/null || true
	done
	awk '$1 == "Slab:" || $1 == "VmallocUsed:" || $1 == "Percpu:" { kb += $2 }
	     END { print kb * 1024 }' /proc/meminfo
}

# The same once frees still under way (RCU) are done: two reads a second
# apart within 256 KiB of each other.
settled_memory() {
	last=$(kernel_memory)
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		sleep 1
		cur=$(kernel_memory)
		[ $((cur - last)) -gt 262144 ] || [ $((last - cur)) -gt 262144 ] ||
			break
		last=$cur
	done
	echo "$cur"
}

# memory METHOD KIND ENTRIES: the filter's memory after the method's load,
# beside an empty filter's (every key type's first tables).
memory() {
	echo "$1 $2 $3 $(filter_memory) $EMPTY_MEMORY" >>"$WORK/memory"
}

# kernel_growth METHOD KIND ENTRIES BEFORE: the kernel's memory now, less
# BEFORE.
kernel_growth() {
	echo "$1 $2 $3 $(($(settled_memory) - $4))" >>"$WORK/kernel"
}

expect_count() {
	[ "$2" = "$3" ] || die "$1: $2 entries after the run, expected $3"
}

# record METHOD KIND ENTRIES CENTISECONDS
record() {
	echo "$1 $2 $3 $4" >>"$RESULTS"
	echo "bench-load: $1 ($2): $3 entries in $(awk -v t="$4" 'BEGIN { printf "%.2f", t / 100 }') s"
}

# timed METHOD KIND ENTRIES CMD...: runs CMD, output dropped, and records
# its time.
timed() {
	method=$1 kind=$2 n=$3
	shift 3
	t0=$(now)
	"$@" >/dev/null || die "$method ($kind): $* failed"
	t1=$(now)
	record "$method" "$kind" "$n" $((t1 - t0))
}

# bench_load KIND N: cfctl load of list KIND-N, and the same list's
# parsing alone (replace --dry-run reads it as load does, then stops).
bench_load() {
	kind=$1 n=$2

	cfctl clear >/dev/null
	before=$(settled_memory)
	timed cfctl-load "$kind" "$n" cfctl load "$WORK/$kind-$n"
	expect_count "cfctl load $kind $n" "$(filter_count)" "$n"
	memory cfctl-load "$kind" "$n"
	kernel_growth cfctl-load "$kind" "$n" "$before"
	cfctl clear >/dev/null
	timed cfctl-parse "$kind" "$n" cfctl replace --dry-run "$WORK/$kind-$n"
}

# The same addresses as holdings of a source of their own, with a timeout.
bench_load_timed() {
	n=$1

	cfctl clear >/dev/null
	timed cfctl-load-timed addr "$n" cfctl load -s feed -t 86400 "$WORK/addr-$n"
	expect_count "cfctl load -t $n" "$(filter_count)" "$n"
	expect_count "cfctl load -t $n (timed)" "$(timed_count)" "$n"
	memory cfctl-load-timed addr "$n"
	cfctl clear >/dev/null
}

# bench_ipset KIND N TYPE: ipset restore of list KIND-N into a set of TYPE.
bench_ipset() {
	kind=$1 n=$2

	gen_ipset "$3" "$n" <"$WORK/$kind-$n" >"$WORK/ipset"
	before=$(settled_memory)
	timed ipset-restore "$kind" "$n" in_debian ipset restore -file "$WORK/ipset"
	expect_count "ipset restore $kind $n" "$(ipset_count)" "$n"
	kernel_growth ipset-restore "$kind" "$n" "$before"
	in_debian ipset destroy bl
	rm -f "$WORK/ipset"
}

# bench_nft KIND N FLAGS: nft -f of list KIND-N into a set with FLAGS.
bench_nft() {
	kind=$1 n=$2

	gen_nft "$3" <"$WORK/$kind-$n" >"$WORK/nft"
	before=$(settled_memory)
	timed nft "$kind" "$n" in_debian nft -f "$WORK/nft"
	expect_count "nft -f $kind $n" "$(nft_count)" "$n"
	kernel_growth nft "$kind" "$n" "$before"
	in_debian nft delete table ip bench
	rm -f "$WORK/nft"
}

# A million holdings due within the time their load took: from the last
# deadline until none is left.
bench_expiry() {
	n=$1 timeout=20

	cfctl clear >/dev/null
	cfctl load -s feed -t "$timeout" "$WORK/addr-$n" >/dev/null ||
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
	each_line "$n" "$WORK/addr-1000000" cfctl add
	expect_count "cfctl add x $n" "$(filter_count)" "$n"
	record cfctl-add addr "$n" $((t1 - t0))
	cfctl clear >/dev/null
}

bench_update() {
	n=$1

	fresh_map
	each_line "$n" "$WORK/upd-1000000" bpftool
	expect_count "bpftool map update x $n" "$(map_count)" "$n"
	record bpftool-update addr "$n" $((t1 - t0))
}

bench_batch() {
	n=$1

	fresh_map
	gen_updates <"$WORK/addr-$n" >"$WORK/upd-$n"
	timed bpftool-batch addr "$n" bpftool batch file "$WORK/upd-$n"
	expect_count "bpftool batch $n" "$(map_count)" "$n"
	[ "$n" = 1000000 ] || rm -f "$WORK/upd-$n"
}

# report KIND: the table of the methods run on lists of KIND, each with
# its time for every size (measured, or scaled from its sample) and its
# ratio to `cfctl load` of the same list.
report() {
	awk -v kind="$1" -v sizes="$SIZES" '
	function size(v) {
		return v >= 1000000 ? v / 1000000 "M" : v / 1000 "k"
	}
	function label(m) {
		if (m == "cfctl-load") return "cfctl load FILE (1 process)"
		if (m == "cfctl-load-timed") return "cfctl load -s feed -t 86400 FILE"
		if (m == "cfctl-parse") return "  its parsing (replace --dry-run)"
		if (m == "cfctl-add") return "cfctl add ADDR (1 per entry)"
		if (m == "bpftool-update") return "bpftool map update (1 per entry)"
		if (m == "bpftool-batch") return "bpftool batch file (hash map)"
		if (m == "ipset-restore")
			return "ipset restore (" (kind == "addr" ? "hash:ip" : "hash:net") ")"
		return "nft -f (ipv4_addr" (kind == "addr" ? "" : ", interval") " set)"
	}
	$2 == kind {
		if (!($1 in seen)) { order[++n] = $1; seen[$1] = 1 }
		cs[$1, $3] = $4; sample[$1] = $3
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

# The goal: cfctl load takes no longer than ipset restore of the same
# entries, at each size, addresses and prefixes.
goal() {
	awk '
	function size(v) {
		return v >= 1000000 ? v / 1000000 "M" : v / 1000 "k"
	}
	$1 == "cfctl-load" { load[$2 " " $3] = $4 }
	$1 == "ipset-restore" { ipset[$2 " " $3] = $4 }
	END {
		met = 1
		for (k in ipset) {
			if (!(k in load) || load[k] > ipset[k])
				met = 0
			split(k, f, " ")
			detail = detail sprintf("  %s %s %s: cfctl load %.2f s, ipset restore %.2f s\n",
						f[1] == "addr" ? "addresses" : "prefixes", f[2],
						size(f[2]), load[k] / 100, ipset[k] / 100)
		}
		printf "goal: cfctl load no slower than ipset restore, each size and kind: %s\n",
		       met ? "MET" : "NOT MET"
		printf "%s", detail
	}' "$RESULTS" | { read -r head; echo "$head"; sort -k1,1 -k2,2n | cut -d' ' -f1-3,5-; }
}

[ -n "${DEBIAN_ROOT:-}" ] || die "no Debian root (ipset, nft): run the guest with VM_DEBIAN=1"
rm -rf "$WORK"
mkdir -p "$WORK"
: >"$RESULTS"
echo "bench-load: generating the lists"
for n in $SIZES; do
	gen_addrs "$n" >"$WORK/addr-$n"
	gen_prefixes "$n" >"$WORK/net-$n" || die "$n prefixes do not fit in IPv4"
done

cfctl clear >/dev/null
EMPTY_MEMORY=$(filter_memory)
for n in $SIZES; do
	bench_load addr "$n"
	bench_load_timed "$n"
	bench_ipset addr "$n" hash:ip
	bench_nft addr "$n" ""
	bench_load net "$n"
	bench_ipset net "$n" hash:net
	bench_nft net "$n" "flags interval; "
done
bench_expiry 1000000
bench_add "$ADD_SAMPLE"
for n in $SIZES; do
	bench_batch "$n"
done
bench_update "$UPDATE_SAMPLE"
cfctl clear >/dev/null
rm -f "$MAP"

echo "@@BENCH-BEGIN"
echo "kernel $(uname -r), $(nproc) CPUs, qemu TCG (emulated: compare ratios only)"
echo "times in seconds; \"measured\": entries timed (all, or a sample scaled"
echo "linearly to each size); \"x load\": time / time of cfctl load, same list;"
echo "ipset $(in_debian ipset version | awk '{ sub(/,$/, "", $2); print $2; exit }') and nftables $(in_debian nft --version | awk '{ print $2 }') of Debian's root"
for kind in addr net; do
	echo
	if [ "$kind" = addr ]; then
		echo "addresses (10.0.0.0 upwards):"
	else
		echo "prefixes (random, /16 to /30, longer ones likelier, none overlapping):"
	fi
	report "$kind"
done
echo
goal
echo
echo "kernel memory each load added (Slab + VmallocUsed + Percpu, settled; cfctl's"
echo "beyond its empty filter's tables):"
printf '%-34s %-9s %9s %12s %9s\n' method list entries "memory (MB)" "B/entry"
awk '{ printf "%-34s %-9s %9s %12.1f %9.1f\n", $1 == "cfctl-load" ? "cfctl load FILE" : $1 == "nft" ? "nft -f" : "ipset restore",
	   $2 == "addr" ? "addresses" : "prefixes", $3, $4 / 1048576, $4 / $3 }' "$WORK/kernel"
echo
echo "the filter's memory after each load (cfctl info), less an empty filter's ($(awk -v b="$EMPTY_MEMORY" 'BEGIN { printf "%.1f MB", b / 1048576 }')):"
printf '%-34s %-9s %9s %12s %9s\n' method list entries "memory (MB)" "B/entry"
awk '{ printf "%-34s %-9s %9s %12.1f %9.1f\n", $1 == "cfctl-load" ? "cfctl load FILE" : "cfctl load -s feed -t 86400 FILE",
	   $2 == "addr" ? "addresses" : "prefixes", $3, ($4 - $5) / 1048576, ($4 - $5) / $3 }' "$WORK/memory"
echo
awk '{ printf "%d timed holdings due at once: all expired %.1f s after the last deadline (polled every second)\n", $1, $2 / 100 }' "$WORK/expiry"
echo "@@BENCH-END"
