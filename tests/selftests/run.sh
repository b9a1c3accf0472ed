#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs cfilter's selftests (all of them, or those named as arguments) with
# cfilter.ko loaded, passing their TAP output through, and totals it:
#   "ok"                 a pass
#   "ok ... # SKIP"      a skip
#   "not ok"             a failure
# A test that exits non-zero without a "not ok" line, or prints no result at
# all, counts as one failure under its own name; one that exits 4
# (KSFT_SKIP) without any result counts as one skip. Ends with
# "selftests: P passed, F failed, S skipped" and exits 1 if F > 0.
# POSIX sh: the guest runs busybox ash.

cd "$(dirname "$0")" || exit 1

# Every test, in the Makefile's order (RUN_ORDER).
ALL_TESTS=$(cat tests.list) || exit 1
# SELFTESTS_TIMEOUT (seconds per test program) overrides settings' timeout
# where the kernel is slower (make check-debug).
TIMEOUT=${SELFTESTS_TIMEOUT:-$(sed -n 's/^timeout=//p' settings 2>/dev/null)}
: "${TIMEOUT:=300}"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0
skipped=0

count()
{
	grep -c "$1" "$tmp/log"
}

# run_test NAME: runs one test and adds its results to the totals.
run_test()
{
	t=$1
	echo "# selftests: cfilter: $t"
	# The kernel log says which test ran when it reported something.
	echo "cfilter-selftests: $t" 2>/dev/null >/dev/kmsg
	case $t in
	*.sh) set -- sh "./$t" ;;
	*) set -- "./$t" ;;
	esac
	if [ ! -f "$t" ]; then
		echo "# $t: not found: build it with make -C tests/selftests"
		failed=$((failed + 1))
		return
	fi
	t0=$(date +%s)
	{ timeout "$TIMEOUT" "$@" 2>&1; echo $? >"$tmp/rc"; } | tee "$tmp/log"
	rc=$(cat "$tmp/rc")
	took="$(($(date +%s) - t0)) s"

	ok=$(count '^ok ')
	skip=$(count '^ok .*# [Ss][Kk][Ii][Pp]')
	not_ok=$(count '^not ok ')
	passed=$((passed + ok - skip))
	skipped=$((skipped + skip))
	failed=$((failed + not_ok))
	if [ "$not_ok" -gt 0 ]; then
		echo "# $t: FAIL ($not_ok failed, exit status $rc, $took)"
	elif [ "$rc" -eq 4 ] && [ "$ok" -eq 0 ]; then
		echo "# $t: SKIP (exit status 4, $took)"
		skipped=$((skipped + 1))
	elif [ "$rc" -ne 0 ] || [ "$ok" -eq 0 ]; then
		echo "# $t: FAIL (exit status $rc, $ok results, none failed: crashed, timed out after ${TIMEOUT}s, or printed no TAP; $took)"
		failed=$((failed + 1))
	else
		echo "# $t: PASS ($took)"
	fi
}

# shellcheck disable=SC2086 # one word per test
[ $# -gt 0 ] || set -- $ALL_TESTS
for t in "$@"; do
	run_test "$t"
done

echo "selftests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
