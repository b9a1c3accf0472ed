#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make check-debug` (scripts/check/check-debug.sh), on the debug
# kernel of scripts/vm/debug-kernel.sh booted with kmemleak=on: the whole
# selftest suite, then what the kernel reported meanwhile.
#
# Prints, for the host to total:
#   selftests: P passed, F failed, S skipped      (run.sh's own line)
#   check-debug: kernel reports: N                every report, in full,
#                                                 above it
#   check-debug: kmemleak: N unreferenced objects after rmmod cfilter
# Exits with run.sh's status.

KMEMLEAK=/sys/kernel/debug/kmemleak
KLOG=/tmp/kernel.log

# unload_module: the debug kernel takes its time, so 30 s rather than 5
# shellcheck source=tests/selftests/lib.sh
. /opt/cfilter/selftests/lib.sh

# A kernel report starts with one of these lines: KASAN and KFENCE
# ("BUG: KASAN: ..."), lockdep ("WARNING: possible circular locking ...",
# "WARNING: inconsistent lock state", ...), "WARNING: suspicious RCU
# usage", "BUG: sleeping function called from invalid context", UBSAN,
# debugobjects (ODEBUG), WARN_ON ("WARNING: CPU: ..."), oopses, hung tasks
# and RCU stalls.
REPORT='BUG:|WARNING:|UBSAN:|ODEBUG:|Oops|general protection fault|kernel BUG at|INFO: task .* blocked|rcu: INFO:|Kernel panic'

# kmemleak reports an object only once it is older than 5 s and unchanged
# between scans: scan twice, a little apart.
scan() {
	echo scan >$KMEMLEAK
	sleep 6
	echo scan >$KMEMLEAK
}

# The whole kernel log from boot on, kept in a file: the ring buffer
# would let the warnings of forced allocation failures push out the
# beginning of a long run.
cat /proc/kmsg >$KLOG &
klog_pid=$!

# What the kernel leaked before the module came is not the module's: it
# is counted, then forgotten, and the module loaded again afterwards so
# that the whole of its life is watched.
if [ -w $KMEMLEAK ]; then
	unload_module 30 || exit 1
	scan
	echo "check-debug: kmemleak: $(grep -c '^unreferenced object' $KMEMLEAK) objects leaked at boot (not cfilter's): cleared"
	echo clear >$KMEMLEAK
	insmod "$CFILTER_KO" || exit 1
else
	echo "check-debug: no $KMEMLEAK: is the kernel booted with kmemleak=on?"
fi

# The debug kernel is several times slower than Debian's: tests that take
# 10 s there pass the harness's 30 s per test (test_batch's million adds,
# ioctl_fuzz, pkt_fuzz, even with its frames cut from 20000), and
# test_alloc_fail needs more than settings' 600 s per program.
export CFILTER_FUZZ_FRAMES=3000
export SELFTESTS_HARNESS_TIMEOUT=600
export SELFTESTS_TIMEOUT=3600
# fail2ban's 6 s bans ended there before the checks made while they
# last; 12 s were not enough for test_fail2ban's kill -9 of the server,
# whose /proc walks (debian_pid) take seconds there.
export F2B_BANTIME=24
# Seconds a timeout may lose between the cfctl call that sets it and the
# one that lists it: a few calls, each slow there.
export SELFTESTS_CLOCK_SLACK=60
# KASAN's and kmemleak's memory for each allocation: test_mem_used's
# mem_used against the kernel's growth does not hold there (53 MiB the
# module counted, 71 MiB the kernel grew).
export SELFTESTS_ALLOC_DEBUG=1
(cd /opt/cfilter/selftests && ./run.sh)
status=$?

if [ -w $KMEMLEAK ]; then
	# A leak found while the module is loaded has a backtrace with its
	# function names; after rmmod only their addresses are left.
	scan
	echo "check-debug: kmemleak with cfilter loaded:"
	cat $KMEMLEAK
	if unload_module 30; then
		scan
		cp $KMEMLEAK /tmp/leaks
		cat /tmp/leaks
		leaks=$(grep -c '^unreferenced object' /tmp/leaks)
		echo "check-debug: kmemleak: $leaks unreferenced objects after rmmod cfilter"
	else
		echo "check-debug: kmemleak: rmmod cfilter failed: not scanned"
	fi
fi

sleep 1
kill $klog_pid
# Each report with the 80 lines after it, under the name of the test
# that was running (run.sh writes it to the kernel log).
awk -v re="$REPORT" '
	/cfilter-selftests: / { test = $0; sub(/.*cfilter-selftests: /, "", test) }
	$0 ~ re && !/cfilter-selftests: / {
		n++
		if (NR > until) {
			printf "check-debug: kernel report %d, during %s:\n", n, test ? test : "boot"
			until = NR + 80
		}
	}
	NR <= until { print }
	END { printf "check-debug: kernel reports: %d\n", n }
' $KLOG
exit $status
