#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The module's memory bound (max_memory=, MiB): every set's tables and
# records are charged before they are allocated, so no input can make the
# module take more. A load or add that would pass it fails with EDQUOT, a
# message naming max_memory= and nothing changed. IPv6 prefixes on odd
# boundaries, whose expansion once took 666 MB and the OOM killer, now
# load in a few MB.

. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2317 # called through trap
cleanup()
{
	unload_module 2>/dev/null
	lib_cleanup
}
trap cleanup EXIT

info_value()
{
	"$CFCTL" info | sed -n "s/^$1: *//p"
}

# mem_used never above mem_limit.
# shellcheck disable=SC2317 # called through check
within_bound()
{
	_used=$(info_value mem_used)
	_limit=$(info_value mem_limit)
	diag "mem_used $_used of mem_limit $_limit"
	[ -n "$_used" ] && [ "$_used" -le "$_limit" ]
}

# N IPv4 addresses 10.A.B.C, one a line.
addresses()
{
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++)
		printf "10.%d.%d.%d\n", int(i / 65536) % 256, int(i / 256) % 256, i % 256 }'
}

# 8000 IPv6 prefixes of every length from /16 to /127, as ranges on odd
# boundaries give: expanded to a few target lengths they would need
# millions of entries.
odd_prefixes()
{
	awk 'BEGIN { for (i = 0; i < 8000; i++)
		printf "2a%02x:%x:%x:%x:%x:%x:%x:%x/%d\n", i % 256, i, i * 7 % 65536,
		       i * 13 % 65536, i * 17 % 65536, i * 19 % 65536,
		       i * 23 % 65536, i * 29 % 65536, 16 + i * 7 % 112 }'
}

# The stderr kept by keep_err has TEXT (check overwrites the last one).
# shellcheck disable=SC2317 # called through check
said()
{
	grep -qF -- "$1" "$tap_tmp/kept"
}

keep_err()
{
	cp "$tap_tmp/err" "$tap_tmp/kept"
}

# cfilter's table arrays of a whole number of 2 MiB pages in
# /proc/vmallocinfo, each as "START SIZE aligned" or "START SIZE
# unaligned": on a 2 MiB boundary or not. The size shown counts a guard
# page; the start's last hex digits tell the alignment (awk's numbers are
# doubles, too short for the whole address). kptr_restrict=1 shows root
# the addresses, which 0 hashes.
huge_arrays()
{
	_kptr=$(cat /proc/sys/kernel/kptr_restrict)
	echo 1 >/proc/sys/kernel/kptr_restrict
	awk '/cuckoo_table_alloc/ && /\[cfilter\]/ &&
	     ($2 - 4096) % 2097152 == 0 && $2 > 2097152 {
		start = substr($1, 1, index($1, "-") - 1)
		low = substr(start, length(start) - 5)
		print start, $2, (substr(low, 2) == "00000" &&
				  index("02468ace", substr(low, 1, 1)) ?
				  "aligned" : "unaligned")
	}' /proc/vmallocinfo
	echo "$_kptr" >/proc/sys/kernel/kptr_restrict
}

tap_begin
if module_loaded; then
	unload_module || tap_skip_all "cannot unload cfilter.ko"
fi

# Exact tables start at 1024 keys of each type: the empty ones fit in a
# MiB; at 65536 they do not.
check "max_memory=1 loads: the empty exact tables start small" \
	insmod "$CFILTER_KO" max_memory=1
check "... and are within it" within_bound
check "... and unload" unload_module
expect "max_memory=1 capacity=65536: the empty tables do not fit, insmod refused" \
	nonzero -- insmod "$CFILTER_KO" max_memory=1 capacity=65536
check "... and the kernel log says to raise it" \
	sh -c 'dmesg | tail -n 5 | grep -q "need more than max_memory=1 MiB"'
# Small empty tables leave most of a small bound to the keys, which then
# reach it sooner.
check "max_memory=16 loads" insmod "$CFILTER_KO" capacity=4096 \
	max_memory=16
expect "info: mem_limit is 16 MiB" 0 -o "mem_limit: 16777216" -- "$CFCTL" info
check "info: mem_used within it" within_bound
expect "the parameter reads back" 0 -- \
	grep -qx 16 /sys/module/cfilter/parameters/max_memory

expect "add one address" 0 -- "$CFCTL" add 192.0.2.1
# A replace builds the new set beside the live one: refused whole.
addresses 700000 >"$tap_tmp/big"
expect "replace with 700k addresses past the bound: exit 3" 3 \
	-e "cfilter's memory bound is reached" -- "$CFCTL" replace "$tap_tmp/big"
keep_err
check "... the message names max_memory=" said "max_memory=16 MiB"
check "... the live set is untouched" test "$(info_value count)" = 1
check "... mem_used within the bound" within_bound
expect "... and the address added before still blocked" 0 -- \
	"$CFCTL" test 192.0.2.1

odd_prefixes >"$tap_tmp/odd6"
expect "IPv6 prefixes on odd boundaries: all load, within the bound" 0 \
	-o "added" -- "$CFCTL" load --normalize "$tap_tmp/odd6"
check "... mem_used within the bound" within_bound
expect "... and block" 0 -- "$CFCTL" test 2a01:1:7:d:11:13:17:1d
expect "... what they do not cover passes" 1 -- "$CFCTL" test 2b00::1

# A load adds to the live set: the add that would pass the bound fails,
# every earlier one stays.
expect "a load of 700k addresses past the bound: exit 3, refused" 3 \
	-e "memory bound" -- "$CFCTL" load "$tap_tmp/big"
diag_file "its stderr" "$tap_tmp/err"
check "... mem_used within the bound" within_bound
expect "... what it added stays" 0 -- "$CFCTL" test --exact 10.0.0.0
expect "clear at the bound: exit 0, never refused" 0 -- "$CFCTL" clear
check "... mem_used within the bound again" within_bound
addresses 1000 >"$tap_tmp/small"
expect "... and a small load fits again" 0 -o "1000 added" -- \
	"$CFCTL" load "$tap_tmp/small"

# Large tables are mapped in huge pages (cuckoo_table_zalloc()): in 4 KiB
# ones most lookups of a large table missed the TLB as well. vmalloc_huge()
# puts such an array on a 2 MiB boundary, where one mapped in small pages
# lands once in 512. 600000 keys: IPv4 key arrays of 8 MiB, past what
# kvmalloc() ever takes from the page allocator whole.
check "unload" unload_module
check "capacity=600000 loads" insmod "$CFILTER_KO" capacity=600000 \
	max_memory=512
huge_arrays >"$tap_tmp/huge"
diag_file "table arrays of whole 2 MiB pages" "$tap_tmp/huge"
check "... there are such arrays" test -s "$tap_tmp/huge"
check "... each on a 2 MiB boundary: in huge pages" \
	sh -c '! grep -q unaligned "$1"' _ "$tap_tmp/huge"
tap_end
