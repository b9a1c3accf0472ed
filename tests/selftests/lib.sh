# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers of cfilter's shell selftests: TAP output, command checks,
# a network namespace joined to the root namespace by a veth pair, and
# module reloading. POSIX sh: the guest runs busybox ash.
#
# A test sources this file, runs tap_begin, calls expect/check for each case
# and ends with tap_end. Tests must not depend on each other: each clears
# the filter first, and removes whatever it created in an EXIT trap.

: "${CFILTER_KO:=/lib/modules/cfilter.ko}"
: "${CFCTL:=cfctl}"
# The real iproute2 (busybox ip has no netns and no veth) and bpftool, by
# absolute path: busybox sh may prefer its own applets to $PATH.
: "${IP:=/usr/sbin/ip}"
: "${BPFTOOL:=/usr/sbin/bpftool}"

NS=cfns
VETH=cfv0		# root namespace side: 192.0.2.1, 2001:db8::1
VETH_PEER=cfv1		# in $NS: 192.0.2.2, 2001:db8::2
HOST4=192.0.2.1
PEER4=192.0.2.2
HOST6=2001:db8::1
PEER6=2001:db8::2

tap_n=0
tap_failed=0
tap_tmp=$(mktemp -d) || exit 1

tap_begin()
{
	echo "TAP version 13"
}

# Prints the trailing plan and exits 1 if any case failed.
tap_end()
{
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ] && exit 0
	exit 1
}

# Skips the whole test (KSFT_SKIP) before any case ran.
tap_skip_all()
{
	echo "1..0 # SKIP $*"
	exit 4
}

diag()
{
	echo "# $*"
}

# Prints FILE's lines as diagnostics, indented under LABEL.
diag_file()
{
	[ -s "$2" ] || return 0
	diag "$1:"
	sed 's/^/#   /' "$2"
}

tap_ok()
{
	tap_n=$((tap_n + 1))
	echo "ok $tap_n $1"
}

tap_not_ok()
{
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n $1"
}

tap_skip()
{
	tap_n=$((tap_n + 1))
	echo "ok $tap_n $1 # SKIP $2"
}

# run CMD...: runs CMD with stdout in $tap_tmp/out, stderr in $tap_tmp/err,
# and its exit status in $rc.
run()
{
	"$@" >"$tap_tmp/out" 2>"$tap_tmp/err"
	rc=$?
}

# expect NAME STATUS [-o TEXT] [-O TEXT] [-e TEXT] -- CMD...
# One test case: CMD exits with STATUS (a number, or "nonzero"), its stdout
# contains (-o) or lacks (-O) TEXT, its stderr contains TEXT (-e). TEXT is a
# fixed string matched without regard to case.
expect()
{
	_name=$1 _want=$2
	_out='' _noout='' _err=''
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		case $1 in
		-o) _out=$2 ;;
		-O) _noout=$2 ;;
		-e) _err=$2 ;;
		*) echo "lib.sh: expect: unknown option '$1'" >&2; exit 2 ;;
		esac
		shift 2
	done
	shift
	run "$@"
	_why=
	case $_want in
	nonzero) [ "$rc" -ne 0 ] || _why="exit status 0, expected non-zero" ;;
	*) [ "$rc" = "$_want" ] || _why="exit status $rc, expected $_want" ;;
	esac
	if [ -n "$_out" ] && ! grep -qiF -- "$_out" "$tap_tmp/out"; then
		_why="${_why:+$_why; }stdout lacks '$_out'"
	fi
	if [ -n "$_noout" ] && grep -qiF -- "$_noout" "$tap_tmp/out"; then
		_why="${_why:+$_why; }stdout has '$_noout'"
	fi
	if [ -n "$_err" ] && ! grep -qiF -- "$_err" "$tap_tmp/err"; then
		_why="${_why:+$_why; }stderr lacks '$_err'"
	fi
	if [ -z "$_why" ]; then
		tap_ok "$_name"
		return 0
	fi
	tap_not_ok "$_name"
	diag "command: $*"
	diag "$_why"
	diag_file stdout "$tap_tmp/out"
	diag_file stderr "$tap_tmp/err"
	return 1
}

# check NAME CMD...: one test case that passes if CMD succeeds.
check()
{
	_cname=$1
	shift
	expect "$_cname" 0 -- "$@"
}

# The first number on the line of `cfctl stats` that names COUNTER
# (passed, dropped or unparsed); empty if there is none.
stat_value()
{
	"$CFCTL" stats 2>/dev/null | grep -i "$1" | head -n 1 |
		sed -n 's/^[^0-9]*\([0-9][0-9]*\).*/\1/p'
}

# One echo request from $NS to ADDR, waiting at most a second for the reply.
ping_from_ns()
{
	"$IP" netns exec "$NS" ping -c 1 -W 1 "$1"
}

# Like ping_from_ns, but tries up to three times: the first echo of a fresh
# link may be lost while the neighbour is being resolved.
ping_from_ns_retry()
{
	ping_from_ns "$1" || ping_from_ns "$1" || ping_from_ns "$1"
}

# The echo requests a ping's summary in file $1 says it sent, and the
# replies it got (busybox's "N packets received" or iputils' "N received").
ping_sent()
{
	sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' "$1"
}

ping_received()
{
	sed -n 's/.* \([0-9]*\) packets received.*/\1/p;s/.* \([0-9]*\) received.*/\1/p' "$1"
}

# expect_flood_blocked NAME: one test case, the ping whose summary is in
# $tap_tmp/flood sent at least 20 echo requests and got no reply.
expect_flood_blocked()
{
	_sent=$(ping_sent "$tap_tmp/flood")
	_got=$(ping_received "$tap_tmp/flood")
	expect "$1, none of ${_sent:-?} echo requests got through" 0 -- \
		test "${_sent:-0}" -ge 20 -a "${_got:-1}" = 0
}

# block_cycle LABEL PEER HOST: blocking PEER makes pings from the namespace
# to HOST fail and the dropped counter grow; unblocking restores them.
block_cycle()
{
	_label=$1 _peer=$2 _host=$3
	expect "$_label: ping $_host from $_peer passes" 0 -- \
		ping_from_ns_retry "$_host"
	expect "$_label: add $_peer" 0 -- "$CFCTL" add "$_peer"
	_dropped=$(stat_value dropped_src)
	expect "$_label: ping from blocked $_peer fails" nonzero -- \
		ping_from_ns "$_host"
	expect "$_label: stats count the dropped echo" 0 -- \
		test "$(stat_value dropped_src)" -gt "${_dropped:-0}"
	expect "$_label: del $_peer" 0 -- "$CFCTL" del "$_peer"
	expect "$_label: ping from unblocked $_peer passes again" 0 -- \
		ping_from_ns_retry "$_host"
}

# Namespace $NS joined to the root namespace by $VETH <-> $VETH_PEER, with
# documentation addresses on both ends (no duplicate address detection, so
# IPv6 works at once).
veth_setup()
{
	veth_cleanup
	"$IP" netns add "$NS" &&
	"$IP" link add "$VETH" type veth peer name "$VETH_PEER" netns "$NS" &&
	"$IP" addr add "$HOST4/24" dev "$VETH" &&
	"$IP" addr add "$HOST6/64" dev "$VETH" nodad &&
	"$IP" link set "$VETH" up &&
	"$IP" -n "$NS" addr add "$PEER4/24" dev "$VETH_PEER" &&
	"$IP" -n "$NS" addr add "$PEER6/64" dev "$VETH_PEER" nodad &&
	"$IP" -n "$NS" link set "$VETH_PEER" up &&
	"$IP" -n "$NS" link set lo up
}

# veth_attached ADDR...: veth_setup with each ADDR (IPv4) a /24 address of
# the peer too, then one test case, cfilter attached to $VETH in generic
# mode, and the neighbours resolved. A setup that fails ends the test.
veth_attached()
{
	_ok=true
	veth_setup || _ok=false
	for _a; do
		$_ok && { "$IP" -n "$NS" addr add "$_a/24" dev "$VETH_PEER" || _ok=false; }
	done
	if ! $_ok; then
		tap_not_ok "setup: $NS with its addresses"
		tap_end
	fi
	check "setup: attach to $VETH" "$CFCTL" attach "$VETH" --mode generic
	ping_from_ns_retry "$HOST4" >/dev/null 2>&1
}

# Deleting the root side removes both ends at once (and any XDP program on
# it); deleting the namespace alone would free the pair asynchronously.
# cfilter's program is detached first, as an operator would: in libxdp's
# dispatcher, a deleted interface leaves pins that hold it, and the module,
# until the next cfctl attach or detach.
veth_cleanup()
{
	"$CFCTL" detach "$VETH" >/dev/null 2>&1
	"$IP" link del "$VETH" 2>/dev/null
	"$IP" netns del "$NS" 2>/dev/null
	return 0
}

# Is IFACE's XDP program attached in MODE (xdp: native, xdpgeneric)? ip
# names the mode in the link's first line, after the MTU.
xdp_mode_is()
{
	"$IP" link show dev "$1" | head -n 1 | grep -q " $2 "
}

has_xdp()
{
	"$IP" link show dev "$1" | grep -q "prog/xdp"
}

# within SECS CMD...: runs CMD about every half second until it succeeds,
# for at most SECS seconds; its output is discarded.
within()
{
	_limit=$(($1 * 2))
	shift
	_i=0
	until "$@" >/dev/null 2>&1; do
		_i=$((_i + 1))
		[ "$_i" -ge "$_limit" ] && return 1
		sleep 0.5
	done
}

# Time since boot in hundredths of a second, for deadlines finer than
# date +%s can tell.
now_cs()
{
	read -r _up _idle </proc/uptime
	echo "${_up%.*}${_up#*.}"
}

# before CS CMD...: runs CMD about every 0.2 s until it succeeds; fails if
# it has not by CS (now_cs's clock). Its output is discarded.
before()
{
	_by=$1
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$(now_cs)" -lt "$_by" ] || return 1
		sleep 0.2
	done
}

# held_for SOURCE ENTRY MAX: SOURCE holds ENTRY (as cfctl list prints it)
# with 1 to MAX seconds left.
held_for()
{
	_left=$("$CFCTL" list -s "$1" |
		awk -v e="$2" '$1 == "-t" && $3 == e { print $2 }')
	[ -n "$_left" ] && [ "$_left" -ge 1 ] && [ "$_left" -le "$3" ]
}

# held_set SOURCE ENTRY SET: cfctl list -s SOURCE prints ENTRY on a line of
# its own as "-t N ENTRY", N being the SET seconds the test gave it, less
# the whole seconds gone since: 1 at most, or SELFTESTS_CLOCK_SLACK where
# the kernel is slower (make check-debug).
held_set()
{
	"$CFCTL" list -s "$1" |
		awk -v e="$2" -v set="$3" -v slack="${SELFTESTS_CLOCK_SLACK:-1}" '
			$3 == e { n++; ok = NF == 3 && $1 == "-t" &&
				  $2 <= set && $2 >= set - slack }
			END { exit !(n == 1 && ok) }'
}

# same_saves FILE1 FILE2 N: two outputs of cfctl save hold the same N
# lines, in order, but for their header comments and deadlines a second
# apart (the clock moved between the saves).
same_saves()
{
	awk -v want="$3" 'NR == FNR { if (!/^#/) a[FNR] = $0; next }
	     !/^#/ { if (!(FNR in a)) exit 1; split(a[FNR], x, " expires ");
		     split($0, y, " expires ");
		     if (x[1] != y[1]) exit 1;
		     d = x[2] - y[2]; if (d < -1 || d > 1) exit 1; n++ }
	     END { exit n != want }' "$1" "$2"
}

# not CMD...: succeeds if CMD fails (for within, which runs one command).
not()
{
	! "$@"
}

# in_debian CMD...: runs CMD in the guest's Debian root (vm-run.sh
# VM_DEBIAN=1), with a clean environment.
in_debian()
{
	chroot "$DEBIAN_ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root "$@"
}

# debian_start LOG CMD...: runs CMD in the Debian root in the background,
# output to LOG. Not through in_debian: a function put in the background
# runs in a subshell, which a kill would end without ending CMD.
debian_start()
{
	_log=$1
	shift
	chroot "$DEBIAN_ROOT" /usr/bin/env -i \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@" >"$_log" 2>&1 &
}

# debian_pid PATTERN: the pid of a process running in the Debian root
# whose command line (arguments joined by spaces, one after the last)
# matches the shell PATTERN; fails if there is none. Zombies have no root
# and never match.
debian_pid()
{
	for _p in /proc/[0-9]*; do
		[ "$(readlink "$_p/root" 2>/dev/null)" = "$DEBIAN_ROOT" ] ||
			continue
		# shellcheck disable=SC2254 # PATTERN is a pattern
		case $(tr '\0' ' ' <"$_p/cmdline" 2>/dev/null) in
		$1) echo "${_p#/proc/}"; return 0 ;;
		esac
	done
	return 1
}

# Ends every process running in the Debian root (daemons, their children)
# and waits up to about six seconds for them to go: the next test needs
# their ports, and the module must not stay open. Fails if any is left.
debian_stop_all()
{
	for _sig in TERM TERM TERM TERM TERM KILL 0; do
		_left=
		for _p in /proc/[0-9]*; do
			[ "$(readlink "$_p/root" 2>/dev/null)" = "$DEBIAN_ROOT" ] ||
				continue
			_left=1
			[ "$_sig" = 0 ] || kill -"$_sig" "${_p#/proc/}" 2>/dev/null
		done
		[ -z "$_left" ] && return 0
		[ "$_sig" = 0 ] || sleep 1
	done
	return 1
}

module_loaded()
{
	[ -d /sys/module/cfilter ]
}

# Waits up to about five seconds for the module's reference count to drop to
# zero: a program that was just detached is freed from an RCU callback.
wait_module_unused()
{
	_tries=0
	until [ "$(cat /sys/module/cfilter/refcnt 2>/dev/null)" = 0 ]; do
		_tries=$((_tries + 1))
		[ "$_tries" -ge 25 ] && return 1
		sleep 0.2
	done
}

# unload_module [SECONDS]: rmmod cfilter, retrying for about SECONDS (5):
# right after the last program using the kfunc goes, the module stays
# referenced until an RCU callback frees the program (EAGAIN meanwhile).
# The guest scripts of the benches and of check-debug use it too.
unload_module()
{
	_tries=0
	until rmmod cfilter 2>"$tap_tmp/rmmod.err"; do
		_tries=$((_tries + 1))
		if [ "$_tries" -ge $((${1:-5} * 5)) ]; then
			cat "$tap_tmp/rmmod.err" >&2
			return 1
		fi
		sleep 0.2
	done
}

load_module()
{
	module_loaded || insmod "$CFILTER_KO"
}

# Loads the module again, in the mode and with the fingerprints it has, for
# a test that needs its sources new: a source's drops last until the
# module goes (cfctl(8)), and an earlier test may have dropped for a source
# of the same name. The sizes are left to their defaults: sysfs shows them
# as the module settled them, which may not be given back.
reload_module()
{
	_mode=$(cat /sys/module/cfilter/parameters/mode) &&
	_fp=$(cat /sys/module/cfilter/parameters/fp_bits) &&
	reload_module_as mode="$_mode" fp_bits="$_fp"
}

# Loads the module again with the parameters given, and no others.
reload_module_as()
{
	unload_module && insmod "$CFILTER_KO" "$@"
}

# For EXIT traps: leave the module loaded and nothing behind.
lib_cleanup()
{
	veth_cleanup
	load_module 2>/dev/null
	rm -rf "$tap_tmp"
}
