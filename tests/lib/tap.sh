# SPDX-License-Identifier: GPL-2.0
#
# TAP for the test scripts run on the host (tests/host/test_btf.sh,
# tests/system/run.sh, scripts/deb/test-deb.sh,
# scripts/install/test-install.sh): sourced by bash. The guest's have
# tests/selftests/lib.sh.

n=0
failed=0

# check NAME CMD...: one test case, passed when CMD exits 0.
check() {
	local name=$1

	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n $name"
	else
		echo "not ok $n $name"
		failed=$((failed + 1))
	fi
}

# skip NAME WHY: one test case, skipped.
skip() {
	n=$((n + 1))
	echo "ok $n $1 # SKIP $2"
}
