#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cfilter.ko carries BTF with its kfunc: without module BTF the kfunc
# registration silently does nothing and every XDP program load fails.

. "$(dirname "$0")/lib.sh"
trap lib_cleanup EXIT

tap_begin
module_loaded || tap_skip_all "cfilter.ko is not loaded"

check "module BTF /sys/kernel/btf/cfilter exists" \
	test -f /sys/kernel/btf/cfilter
expect "module BTF has FUNC 'bpf_cfilter_match'" 0 \
	-o "FUNC 'bpf_cfilter_match'" -- \
	"$BPFTOOL" -B /sys/kernel/btf/vmlinux btf dump file /sys/kernel/btf/cfilter
expect "bpftool btf list names the module" 0 -o "name [cfilter]" -- \
	"$BPFTOOL" btf list

for param in capacity fp_bits; do
	p=/sys/module/cfilter/parameters/$param
	check "parameter $param is readable" test -r "$p"
	expect "parameter $param is read-only (0444)" 0 -o 444 -- \
		stat -c %a "$p"
	expect "parameter $param holds a number" 0 -- \
		grep -qx '[0-9][0-9]*' "$p"
done

tap_end
