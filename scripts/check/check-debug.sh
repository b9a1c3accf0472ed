#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: the guest suite on a kernel that reports every mistake
# (scripts/vm/debug-kernel.sh: KASAN, KFENCE, lockdep, RCU and atomic-sleep
# checks, UBSAN, kmemleak, fault injection), with test_alloc_fail forcing
# the module's allocations to fail. Not part of make check: the first run
# builds the kernel (71 minutes on 2 cores here), and every run is
# several times slower than on Debian's kernels.
#
# Fails on any failing test, and on any report in the kernel log (KASAN,
# KFENCE, lockdep, suspicious RCU usage, UBSAN, sleeping in atomic
# context, any WARNING, BUG or Oops) or object kmemleak finds unreferenced
# after rmmod cfilter; every report is printed in full. Ends with one line
# "N passed, N failed, N skipped": the selftests, plus the kernel log and
# the kmemleak scan as one check each.
#
# Environment: VM_TIMEOUT (seconds for the guest, default 7200).
set -u
cd "$(dirname "$0")/../.." || exit

log=$(mktemp /tmp/cfilter-check-debug.XXXXXX)
trap 'rm -f "$log"' EXIT
start=$SECONDS

phase() { printf '\n==== %s (%s)\n' "$1" "$(date +%T)"; }

# One check outside the suite failed before the totals could be made.
broken() {
	echo "check-debug: $1" >&2
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
}

mk_var() {
	sed -n "s/^$1 := //p" .cache/kernel-debug.mk
}

phase 'debug kernel'
scripts/vm/debug-kernel.sh || broken 'building the debug kernel failed'

phase 'build'
kdir=$(mk_var KDIR)
# make reads no kernel-*.mk with KDIR given: the module is built against
# the debug tree, in a folder of its own (as for 6.12).
if ! { make -s module KDIR="$kdir" MODULE_DIR="$PWD/.cache/build-debug" &&
       make -s user selftests; } >"$log" 2>&1; then
	cat "$log"
	broken 'building cfilter.ko, cfctl or the selftests failed'
fi

phase 'guest suite on the debug kernel'
# no5lvl: with qemu's -cpu max the kernel would use 5-level paging, and an
# interrupt taken while identify_cpu() has cleared the boot CPU's feature
# bits (LA57 among them) makes KASAN take a 5-level address for a wild
# access (a false "wild-memory-access in do_raw_spin_lock" at 0.006 s,
# from handle_edge_irq over cpu_detect; 6.12's own, timing-dependent).
KERNEL=debug VM_MEM=2G VM_APPEND='kmemleak=on no5lvl' VM_DEBIAN=1 \
	VM_TIMEOUT=${VM_TIMEOUT:-7200} \
	scripts/vm/vm-run.sh scripts/check/guest-check-debug.sh 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}

summary=$(grep -aE '^selftests: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$log" |
	tail -n 1)
reports=$(grep -aE '^check-debug: kernel reports: [0-9]+$' "$log" | tail -n 1 |
	tr -dc 0-9)
leaks=$(grep -aE '^check-debug: kmemleak: [0-9]+ unreferenced' "$log" | tail -n 1 |
	cut -d' ' -f3)
[ -n "$summary" ] || broken "the guest gave no selftests summary (vm-run exit $rc)"
read -r p f s <<<"$(echo "$summary" | tr -cs '0-9' ' ')"

if [ -z "$reports" ]; then
	f=$((f + 1))
	reports='not read'
elif [ "$reports" -eq 0 ]; then
	p=$((p + 1))
else
	f=$((f + 1))
fi
if [ -z "$leaks" ]; then
	f=$((f + 1))
	leaks='not scanned'
elif [ "$leaks" -eq 0 ]; then
	p=$((p + 1))
else
	f=$((f + 1))
fi

echo
grep -a '^not ok ' "$log" | sed 's/^/failed: /'
echo "$summary"
echo "kernel log: $reports reports"
echo "kmemleak:   $leaks unreferenced objects after rmmod cfilter"
echo "check-debug: $((SECONDS - start)) s"
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ] && [ "$rc" -eq 0 ]
