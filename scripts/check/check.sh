#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs every test: on the host the unit tests of the filter core, a bounded
# fuzzing run, the module BTF tests and the Debian packages' tests; then
# the kselftests inside a qemu guest on every supported kernel (Debian 12's
# 6.1, Debian 13's 6.12, forky's 7.2: scripts/vm/kernel.sh --list), the
# packages on a booted Debian 12, the demo, the install tests and make
# vm-run in a fresh clone. Ends with one line
# "N passed, N failed, N skipped" totalling all of them, after one labelled
# line per part; exits non-zero on any failure, including a build that breaks
# or a guest that never reports.
#
# The host's parts and the emulated guests keep about one core busy each:
# after the build they run in CHECK_LANES lanes side by side (default 2, one
# per core of CI's machine; 1 runs them one after the other). A part's
# output is printed whole when it ends.
#
# KERNELS="6.12" limits the guest runs to the kernels named.
set -u
cd "$(dirname "$0")/../.." || exit

log_dir=$(mktemp -d /tmp/cfilter-check.XXXXXX)
mkdir "$log_dir/results"
LANES=${CHECK_LANES:-2}
[[ $LANES =~ ^[12]$ ]] || { echo "check: CHECK_LANES=$LANES: want 1 or 2" >&2; exit 2; }

phase() { printf '\n==== %s (%s)\n' "$1" "$(date +%T)"; }

# result PART P F S [NOTE]: a part's counts, kept for the end in a file of
# its own (parts of two lanes report at once).
result() {
	printf '%-12s %s passed, %s failed, %s skipped%s\n' "$1:" "$2" "$3" \
		"$4" "${5:+ - $5}" >"$log_dir/results/${1// /_}"
	echo "# $1: $2 passed, $3 failed, $4 skipped"
}

# A failure outside any test (a build, a guest that did not report).
broken() {
	echo "check: $2" >&2
	result "$1" 0 1 0 "$2"
}

# count_tap LOG PART [NOTE]: TAP from the kselftest harness and the
# scripts: "ok N name", "ok N name # SKIP ...", "not ok N name".
count_tap() {
	local p f s
	p=$(grep -aE '^ok [0-9]+ ' "$1" | grep -avc '# SKIP')
	s=$(grep -aE '^ok [0-9]+ .*# SKIP' -c "$1")
	f=$(grep -aEc '^not ok [0-9]+ ' "$1")
	result "$2" "$p" "$f" "$s" "${3:-}"
}

# tap_part PART CMD...: runs CMD, whose TAP lines are the part's counts; a
# failing CMD that reported no failing test fails the part too.
tap_part() {
	local name=$1 log=$log_dir/tap-${1// /_} rc start=$SECONDS

	shift
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	count_tap "$log" "$name" "$((SECONDS - start)) s"
	if [ "$rc" -ne 0 ] && ! grep -aq '^not ok ' "$log"; then
		broken "$name" "$* exited $rc without reporting a failure"
	fi
}

# ---- the parts --------------------------------------------------------------

part_host() {
	phase 'host tests'
	tap_part host make -s host-tests
}

# The fuzzer compares the core with a set model; a bounded run per check,
# longer ones on demand (make fuzz FUZZ_SECONDS=600).
part_fuzz() {
	phase 'fuzzing the filter core'
	tap_part fuzz make -s -C tests/fuzz run FUZZ_SECONDS="${FUZZ_SECONDS:-20}"
}

# The resolver against the kernel's own, and module builds on Debian 12's
# stock headers.
part_btf() {
	phase 'module BTF (host)'
	tap_part btf tests/host/test_btf.sh
}

# make deb in a fresh clone: lintian, the packages' files and versions,
# their maintainer scripts under dpkg (host).
part_packages() {
	phase 'Debian packages (make deb)'
	tap_part packages scripts/deb/test-deb.sh
}

# guest_end LOG: how a guest that gave no summary ended, for the one line
# that the end of a long CI log keeps: the test it was in, and what vm-run
# saw (with the kernel's panic or oops line, if it printed one).
guest_end() {
	local test why

	test=$(grep -a '^# selftests: cfilter: ' "$1" | tail -n 1 | sed 's/.*: //')
	why=$(grep -a '^vm-run: guest did not report' "$1" | tail -n 1 | sed 's/^vm-run: //')
	echo "${test:+; in $test}${why:+; $why}"
}

# The guest suite on kernel $1, its module built already.
part_guest() {
	local kernel=$1 log=$log_dir/guest-$1 start=$SECONDS rc summary p f s

	phase "guest tests, kernel $kernel"
	# A guest that runs out of time fails all of its tests at once: the
	# bound is for a hang, with room for a host (CI's) that runs the suite
	# at half the speed it has here.
	KERNEL=$kernel VM_TIMEOUT=${VM_TIMEOUT:-2700} VM_DEBIAN=1 \
		scripts/vm/vm-run.sh scripts/check/guest-check.sh 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	summary=$(grep -aE '^selftests: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' \
		"$log" | tail -n 1)
	if [ -z "$summary" ]; then
		broken "guest $kernel" "the $kernel guest gave no selftests summary (vm-run exit $rc$(guest_end "$log"))"
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

# The packages on a booted Debian 12 under systemd: apt install, bans of
# the operator, fail2ban and CrowdSec through reload, reboot and a kernel
# upgrade, then apt remove and purge (tests/system/run.sh).
part_system() {
	phase 'the packages on a booted Debian system'
	tap_part system tests/system/run.sh
}

# The README's first command, so that it cannot break unnoticed: one test.
part_demo() {
	phase 'demo (make demo)'
	if scripts/demo/demo.sh >"$log_dir/demo" 2>&1; then
		result demo 1 0 0
	else
		cat "$log_dir/demo"
		broken demo "make demo failed"
	fi
}

# make install into a staging folder on the host, then the unit's commands
# in a guest booting the default kernel.
part_install() {
	phase 'install, uninstall and cfilter.service'
	tap_part install scripts/install/test-install.sh
}

# make vm-run as a new user types it: in a fresh clone, with nothing built
# there, it must build what it boots. The kernels in .cache are shared, as
# they are downloads, not builds of this tree.
fresh_vm_run() {
	local dir=$log_dir/clone

	git clone -q . "$dir" || return 1
	ln -s "$PWD/.cache" "$dir/.cache"
	printf 'cfctl add 192.0.2.1 && cfctl test 192.0.2.1\n' >"$dir/try.sh"
	make -C "$dir" vm-run SCRIPT=try.sh >"$log_dir/vm-run" 2>&1 &&
		grep -q '^192\.0\.2\.1: blocked' "$log_dir/vm-run"
}

part_vm-run() {
	phase 'make vm-run in a fresh clone'
	if ! git rev-parse --git-dir >/dev/null 2>&1; then
		result vm-run 0 0 1 "not a git clone"
	elif fresh_vm_run; then
		result vm-run 1 0 0
	else
		cat "$log_dir/vm-run"
		broken vm-run "make vm-run SCRIPT=try.sh failed in a fresh clone"
	fi
}

# run_lane PART...: the parts one after the other, each one's output
# printed whole once it ends (under a lock: two lanes print).
run_lane() {
	local part out

	for part; do
		out=$log_dir/out-${part// /_}
		# shellcheck disable=SC2086 # "guest 6.1" is the function and its kernel
		part_$part >"$out" 2>&1
		[ -f "$log_dir/results/${part// /_}" ] ||
			broken "$part" "this part ended without a result" >>"$out" 2>&1
		flock "$log_dir/print.lock" cat "$out"
	done
}

# failures: each failing test of every part on one line, with the first
# two diagnostic lines printed before it (the harness's and the scripts' "# " lines),
# so that the last lines of a long log say what failed.
failures() {
	local log

	for log in "$log_dir"/tap-* "$log_dir"/guest-*; do
		[ -f "$log" ] || continue
		awk -v part="${log##*/}" '
			/^# *(RUN|Starting|PASSED|Totals)[ :]/ { why = ""; n = 0; next }
			/^# *(FAIL|OK) / { next }
			/^#/ && n < 2 { sub(/^# */, ""); why = why (n++ ? " | " : " - ") $0 }
			/^not ok [0-9]+ / {
				sub(/^not ok [0-9]+ /, "")
				print "not ok: " part ": " substr($0 why, 1, 240)
			}
			/^(not )?ok / { why = ""; n = 0 }' "$log"
	done
}

finish() {
	local part file p f s tp=0 tf=0 ts=0

	echo
	failures | awk 'NR <= 12 { print } END { if (NR > 12) print "not ok: ... and " NR - 12 " more" }'
	for part in "${ORDER[@]}"; do
		file=$log_dir/results/${part// /_}
		[ -f "$file" ] || continue
		cat "$file"
		read -r p f s <<<"$(sed -E 's/.*: *([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped.*/\1 \2 \3/' "$file")"
		tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
	done
	echo "$tp passed, $tf failed, $ts skipped"
	rm -rf "$log_dir"
	[ "$tf" -eq 0 ]
	exit
}

# ---- main -----------------------------------------------------------------

ORDER=(deps kernel build host fuzz btf packages)
phase 'dependencies'
scripts/deps.sh || { broken deps 'make deps failed'; finish; }
kernels=${KERNELS:-$(scripts/vm/kernel.sh --list)}
for kernel in $kernels; do
	ORDER+=("guest $kernel")
	scripts/vm/kernel.sh "$kernel" ||
		{ broken kernel "preparing kernel $kernel failed"; finish; }
done
ORDER+=(system demo install vm-run)

phase 'build'
# Every kernel's module first: the lanes then run what is built. The
# benchmarks are built (not run: they measure, they do not test) so that a
# change to the core or the UAPI cannot break `make bench`, `make
# bench-xdp` or `make bench-xdp-insns` unnoticed.
build() {
	local kernel

	make -s -j2 all && make -s -j2 -C bench bench miss_path fill mem &&
		make -s -j2 -C bench/xdp && make -s -j2 -C bench/qemu ||
		return
	for kernel in $kernels; do
		make -s -j2 module KERNEL="$kernel" || return
	done
}
if ! build >"$log_dir/build" 2>&1; then
	cat "$log_dir/build"
	broken build 'build failed'
	finish
fi

# Two lanes of about equal length: the first kernel's suite, the next ones
# by turns; the host's parts and the booted system lead the second lane,
# the install, the demo and vm-run end it (the first lane's two guests
# take longer than its one guest).
lane1=() lane2=(host fuzz btf packages system)
i=0
for kernel in $kernels; do
	if [ $((i % 2)) -eq 0 ]; then lane1+=("guest $kernel"); else lane2+=("guest $kernel"); fi
	i=$((i + 1))
done
lane2+=(install demo vm-run)
if [ "$LANES" -eq 2 ]; then
	run_lane "${lane1[@]}" &
	run_lane "${lane2[@]}" &
	wait
else
	run_lane "${lane1[@]}" "${lane2[@]}"
fi
finish
