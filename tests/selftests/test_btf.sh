#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cfilter.ko carries BTF with its kfunc: without module BTF the kfunc
# registration silently does nothing and every XDP program load fails.
# The BTF ids its kfunc set holds (written at build time by
# btf/resolve_btfids on 6.1, by Debian 13's own tool on 6.12) are those
# the running kernel's BTF gives: resolving them again against
# /sys/kernel/btf/vmlinux changes no byte.

. "$(dirname "$0")/lib.sh"
trap lib_cleanup EXIT

RESOLVE_BTFIDS=$(dirname "$0")/resolve_btfids

tap_begin
module_loaded || tap_skip_all "cfilter.ko is not loaded"

check "module BTF /sys/kernel/btf/cfilter exists" \
	test -f /sys/kernel/btf/cfilter
expect "module BTF has FUNC 'bpf_cfilter_match'" 0 \
	-o "FUNC 'bpf_cfilter_match'" -- \
	"$BPFTOOL" -B /sys/kernel/btf/vmlinux btf dump file /sys/kernel/btf/cfilter
expect "bpftool btf list names the module" 0 -o "name [cfilter]" -- \
	"$BPFTOOL" btf list

check "its BTF ids are resolved (resolve_btfids --check)" \
	"$RESOLVE_BTFIDS" --check "$CFILTER_KO"
cp "$CFILTER_KO" "$tap_tmp/cfilter.ko"
expect "they resolve again against the running kernel's BTF" 0 -- \
	"$RESOLVE_BTFIDS" -b /sys/kernel/btf/vmlinux "$tap_tmp/cfilter.ko"
check "to the same bytes" cmp "$tap_tmp/cfilter.ko" "$CFILTER_KO"

for param in capacity fp_bits; do
	p=/sys/module/cfilter/parameters/$param
	check "parameter $param is readable" test -r "$p"
	expect "parameter $param is read-only (0444)" 0 -o 444 -- \
		stat -c %a "$p"
	expect "parameter $param holds a number" 0 -- \
		grep -qx '[0-9][0-9]*' "$p"
done

tap_end
