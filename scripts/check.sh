#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs every test: the host unit tests of the filter core and a bounded
# fuzzing run once, then the
# kselftests inside a qemu guest on every supported kernel (Debian 12's 6.1,
# Debian 13's 6.12: scripts/kernel.sh --list), the module BTF tests, the
# demo, the install tests and the Debian packages' tests. Ends with one line
# "N passed, N failed, N skipped" totalling all of them, after one labelled
# line per part; exits non-zero on any failure, including a build that breaks
# or a guest that never reports.
#
# KERNELS="6.12" limits the guest runs to the kernels named.
set -u
cd "$(dirname "$0")/.." || exit

log_dir=$(mktemp -d /tmp/cfilter-check.XXXXXX)
passed=0 failed=0 skipped=0
results=()

phase() { printf '\n==== %s (%s)\n' "$1" "$(date +%T)"; }

# Adds a part's counts to the totals and keeps its result line for the end.
result() {
	passed=$((passed + $2)) failed=$((failed + $3)) skipped=$((skipped + $4))
	results+=("$(printf '%-12s %s passed, %s failed, %s skipped%s' \
		"$1:" "$2" "$3" "$4" "${5:+ - $5}")")
	echo "# $1: $2 passed, $3 failed, $4 skipped"
}

# A failure outside any test (a build, a guest that did not report).
broken() {
	echo "check: $2" >&2
	result "$1" 0 1 0 "$2"
}

# TAP from the kselftest harness: "ok N name", "ok N name # SKIP ...",
# "not ok N name".
count_tap() {
	local p f s
	p=$(grep -E '^ok [0-9]+ ' "$1" | grep -vc '# SKIP')
	s=$(grep -E '^ok [0-9]+ .*# SKIP' -c "$1")
	f=$(grep -Ec '^not ok [0-9]+ ' "$1")
	result "$2" "$p" "$f" "$s"
}

finish() {
	echo
	printf '%s\n' "${results[@]}"
	echo "$passed passed, $failed failed, $skipped skipped"
	rm -rf "$log_dir"
	[ "$failed" -eq 0 ]
	exit
}

# The guest suite on kernel $1. vm-run streams the guest console (every
# test's output) above; a failing run is summed up again here.
guest_tests() {
	local kernel=$1 log=$log_dir/guest-$1 start rc summary p f s

	phase "guest tests, kernel $kernel"
	start=$SECONDS
	if ! scripts/kernel.sh "$kernel"; then
		broken "guest $kernel" "preparing kernel $kernel failed"
		return
	fi
	if ! make -s module KERNEL="$kernel" >"$log" 2>&1; then
		cat "$log"
		broken "guest $kernel" "building cfilter.ko for $kernel failed"
		return
	fi
	# The suite has taken 4.5 to 9 minutes in the emulated guest, depending
	# on the host; 20 minutes per kernel still fits both in CI's 90.
	KERNEL=$kernel VM_TIMEOUT=${VM_TIMEOUT:-1200} VM_DEBIAN=1 \
		scripts/vm-run.sh scripts/guest-check.sh 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	summary=$(grep -aE '^selftests: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' \
		"$log" | tail -n 1)
	if [ -z "$summary" ]; then
		broken "guest $kernel" "the $kernel guest gave no selftests summary (vm-run exit $rc)"
		return
	fi
	read -r p f s <<<"$(echo "$summary" | tr -cs '0-9' ' ')"
	result "guest $kernel" "$p" "$f" "$s" "$((SECONDS - start)) s"
	if [ "$f" -ne 0 ]; then
		echo "check: failing tests on $kernel (their output is above):"
		grep -a '^not ok ' "$log" | sed "s/^/  $kernel: /"
	elif [ "$rc" -ne 0 ]; then
		broken "guest $kernel" "the $kernel guest run exited $rc with no failing test"
	fi
}

phase 'dependencies'
scripts/deps.sh || { broken deps 'make deps failed'; finish; }
scripts/kernel.sh || { broken kernel 'preparing the default guest kernel failed'; finish; }
kernels=${KERNELS:-$(scripts/kernel.sh --list)}

phase 'build'
# The benchmarks are built (not run: they measure, they do not test) so
# that a change to the core cannot break `make bench` unnoticed.
if ! { make -s all && make -s -C bench bench; } >"$log_dir/build" 2>&1; then
	cat "$log_dir/build"
	broken build 'build failed'
	finish
fi

phase 'host tests'
make -s host-tests 2>&1 | tee "$log_dir/host"
host_rc=${PIPESTATUS[0]}
count_tap "$log_dir/host" host
if [ "$host_rc" -ne 0 ] && ! grep -q '^not ok ' "$log_dir/host"; then
	broken host "host tests exited $host_rc without reporting a failure"
fi

# The fuzzer compares the core with a set model; a bounded run per check,
# longer ones on demand (make fuzz FUZZ_SECONDS=600).
phase 'fuzzing the filter core'
make -s -C tests/fuzz run FUZZ_SECONDS="${FUZZ_SECONDS:-20}" 2>&1 | tee "$log_dir/fuzz"
fuzz_rc=${PIPESTATUS[0]}
count_tap "$log_dir/fuzz" fuzz
if [ "$fuzz_rc" -ne 0 ] && ! grep -q '^not ok ' "$log_dir/fuzz"; then
	broken fuzz "the fuzzer exited $fuzz_rc without reporting a failure"
fi

for kernel in $kernels; do
	guest_tests "$kernel"
done

# The resolver against the kernel's own, and module builds on Debian 12's
# stock headers; after the guest runs, which prepared both kernels.
phase 'module BTF (host)'
tests/host/test_btf.sh 2>&1 | tee "$log_dir/btf"
btf_rc=${PIPESTATUS[0]}
count_tap "$log_dir/btf" btf
if [ "$btf_rc" -ne 0 ] && ! grep -q '^not ok ' "$log_dir/btf"; then
	broken btf "the module BTF tests exited $btf_rc without reporting a failure"
fi

# The README's first command, so that it cannot break unnoticed: one test.
phase 'demo (make demo)'
if scripts/demo.sh >"$log_dir/demo" 2>&1; then
	result demo 1 0 0
else
	cat "$log_dir/demo"
	broken demo "make demo failed"
fi

# make install into a staging folder on the host, then the unit's commands
# in a guest booting the default kernel.
phase 'install, uninstall and cfilter.service'
scripts/test-install.sh 2>&1 | tee "$log_dir/install"
install_rc=${PIPESTATUS[0]}
count_tap "$log_dir/install" install
if [ "$install_rc" -ne 0 ] && ! grep -q '^not ok ' "$log_dir/install"; then
	broken install "the install tests exited $install_rc without reporting a failure"
fi

# make deb in a fresh clone: lintian, the packages' files and versions,
# their maintainer scripts under dpkg (host).
phase 'Debian packages (make deb)'
scripts/test-deb.sh 2>&1 | tee "$log_dir/deb"
deb_rc=${PIPESTATUS[0]}
count_tap "$log_dir/deb" packages
if [ "$deb_rc" -ne 0 ] && ! grep -q '^not ok ' "$log_dir/deb"; then
	broken packages "the package tests exited $deb_rc without reporting a failure"
fi

# The packages on a booted Debian 12 under systemd: apt install, bans of
# the operator, fail2ban and CrowdSec through reload, reboot and a kernel
# upgrade, then apt remove and purge (tests/system/run.sh).
phase 'the packages on a booted Debian system'
start=$SECONDS
tests/system/run.sh 2>&1 | tee "$log_dir/system"
system_rc=${PIPESTATUS[0]}
count_tap "$log_dir/system" system
echo "# system: $((SECONDS - start)) s"
if [ "$system_rc" -ne 0 ] && ! grep -q '^not ok ' "$log_dir/system"; then
	broken system "the booted-system test exited $system_rc without reporting a failure"
fi

# make vm-run as a new user types it: in a fresh clone, with nothing built
# there, it must build what it boots. The kernels in .cache are shared, as
# they are downloads, not builds of this tree.
phase 'make vm-run in a fresh clone'
fresh_vm_run() {
	local dir=$log_dir/clone
	git clone -q . "$dir" || return 1
	ln -s "$PWD/.cache" "$dir/.cache"
	printf 'cfctl add 192.0.2.1 && cfctl test 192.0.2.1\n' >"$dir/try.sh"
	make -C "$dir" vm-run SCRIPT=try.sh >"$log_dir/vm-run" 2>&1 &&
		grep -q '^192\.0\.2\.1: blocked' "$log_dir/vm-run"
}
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	result vm-run 0 0 1 "not a git clone"
elif fresh_vm_run; then
	result vm-run 1 0 0
else
	cat "$log_dir/vm-run"
	broken vm-run "make vm-run SCRIPT=try.sh failed in a fresh clone"
fi

finish
