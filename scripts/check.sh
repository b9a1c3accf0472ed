#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs every test: the host unit tests of the filter core, then the
# kselftests inside a qemu guest booting Debian's kernel. Ends with one line
# "N passed, N failed, N skipped" totalling both; exits non-zero on any
# failure, including a build that breaks or a guest that never reports.
set -u
cd "$(dirname "$0")/.."

log_dir=$(mktemp -d /tmp/cfilter-check.XXXXXX)
passed=0 failed=0 skipped=0

phase() { printf '\n==== %s (%s)\n' "$1" "$(date +%T)"; }

# TAP from the kselftest harness: "ok N name", "ok N name # SKIP ...",
# "not ok N name".
count_tap() {
	local p f s
	p=$(grep -E '^ok [0-9]+ ' "$1" | grep -vc '# SKIP')
	s=$(grep -E '^ok [0-9]+ .*# SKIP' -c "$1")
	f=$(grep -Ec '^not ok [0-9]+ ' "$1")
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	echo "$2: $p passed, $f failed, $s skipped" | sed 's/^/# /'
}

finish() {
	echo
	echo "$passed passed, $failed failed, $skipped skipped"
	rm -rf "$log_dir"
	[ "$failed" -eq 0 ]
	exit
}

phase 'dependencies'
scripts/deps.sh || { echo 'check: make deps failed' >&2; failed=$((failed + 1)); finish; }
scripts/kernel.sh || { echo 'check: preparing the guest kernel failed' >&2; failed=$((failed + 1)); finish; }

phase 'build'
if ! make -s all >"$log_dir/build" 2>&1; then
	cat "$log_dir/build"
	echo 'check: build failed' >&2
	failed=$((failed + 1))
	finish
fi

phase 'host tests'
make -s host-tests 2>&1 | tee "$log_dir/host"
host_rc=${PIPESTATUS[0]}
count_tap "$log_dir/host" host
if [ "$host_rc" -ne 0 ] && ! grep -q '^not ok ' "$log_dir/host"; then
	echo "check: host tests exited $host_rc without reporting a failure" >&2
	failed=$((failed + 1))
fi

phase 'guest tests'
scripts/vm-run.sh scripts/guest-check.sh 2>&1 | tee "$log_dir/guest"
guest_rc=${PIPESTATUS[0]}
summary=$(grep -aE '^selftests: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' \
	"$log_dir/guest" | tail -n 1)
if [ -z "$summary" ]; then
	echo "check: the guest gave no selftests summary (vm-run exit $guest_rc)" >&2
	failed=$((failed + 1))
else
	read -r p f s <<<"$(echo "$summary" | tr -cs '0-9' ' ')"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	if [ "$guest_rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "check: guest run exited $guest_rc with no failing test" >&2
		failed=$((failed + 1))
	fi
fi

finish
