#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cfilter.ko cannot go away under its users: while an XDP program calling
# its kfunc is attached, or /dev/cfilter is open, rmmod fails and the module
# keeps working. Once they are gone rmmod succeeds, removes the device, and
# insmod brings everything back, empty.

. "$(dirname "$0")/lib.sh"
trap lib_cleanup EXIT

# Has process PID opened /dev/cfilter as its stdin? Waits up to ~5 s.
# shellcheck disable=SC2317 # called through check
holds_device()
{
	_tries=0
	until [ "$(readlink "/proc/$1/fd/0")" = /dev/cfilter ]; do
		_tries=$((_tries + 1))
		[ "$_tries" -ge 25 ] && return 1
		sleep 0.2
	done
}

tap_begin
load_module || tap_skip_all "cannot load $CFILTER_KO"
check "setup: cfctl clear" "$CFCTL" clear
veth_setup || diag "veth setup failed"
"$CFCTL" add "$PEER4" >/dev/null

expect "attach to $VETH" 0 -- "$CFCTL" attach "$VETH" --mode generic
expect "rmmod with the program attached fails" nonzero -- rmmod cfilter
check "module still loaded" module_loaded
check "/dev/cfilter still there" test -c /dev/cfilter
expect "filter still answers" 0 -o blocked -- "$CFCTL" test "$PEER4"
expect "program still drops" nonzero -- ping_from_ns "$HOST4"
expect "detach" 0 -- "$CFCTL" detach "$VETH"

# The detached program lets go of the module from an RCU callback.
check "module unused once detached" wait_module_unused
# A process that only holds the device open; rmmod must wait until it has
# opened it.
# shellcheck disable=SC2217
sleep 60 </dev/cfilter &
holder=$!
check "a process holds /dev/cfilter open" holds_device "$holder"
expect "rmmod with /dev/cfilter open fails" nonzero -- rmmod cfilter
check "module still loaded while the device is open" module_loaded
kill "$holder"
wait "$holder" 2>/dev/null

check "rmmod succeeds once unused (retrying on EAGAIN)" unload_module
expect "module gone" 1 -- module_loaded
expect "/dev/cfilter gone" 1 -- test -e /dev/cfilter
expect "module BTF gone" 1 -- test -e /sys/kernel/btf/cfilter

expect "insmod restores the module" 0 -- insmod "$CFILTER_KO"
check "/dev/cfilter back" test -c /dev/cfilter
check "module BTF back" test -f /sys/kernel/btf/cfilter
expect "reloaded filter is empty" 1 -o "not blocked" -- \
	"$CFCTL" test "$PEER4"
expect "attach works after reload" 0 -- \
	"$CFCTL" attach "$VETH" --mode generic
expect "detach works after reload" 0 -- "$CFCTL" detach "$VETH"

tap_end
