#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-load`: build cfilter.ko and cfctl, boot the guest with its
# Debian root and time filling the filter with 100k and 1M IPv4 addresses
# and prefixes by `cfctl load`, the addresses also by one `cfctl add` per
# address and, for comparison, a BPF hash map filled by bpftool, and the
# kernel's ipset and nftables sets filled by Debian's `ipset restore` and
# `nft -f` (scripts/bench/bench-load-guest.sh). The table goes to
# bench/results/load.txt. KERNEL=6.12 runs it on Debian 13's kernel.
#
# The guest is emulated (qemu TCG): only the ratios between methods hold.
set -euo pipefail
cd "$(dirname "$0")/../.."

export KERNEL=${KERNEL:-6.1}
# Lists of a million addresses and prefixes, a million bpftool commands
# and nft's own copy of a million elements live in the guest's RAM, next
# to a million-entry set.
export VM_MEM=${VM_MEM:-3G}
export VM_DEBIAN=1
# What nft needs of the kernel (VM_DEBIAN=1 adds ipset's hash:ip and
# hash:net); no veth or TC here. Up to 6.x nf_tables needs libcrc32c,
# whose init asks the crypto API for crc32c: the guest has no modprobe to
# fetch crc32c_generic, so it goes first.
case $KERNEL in
6.*) export VM_MODULES=${VM_MODULES:-crc32c_generic nf_tables} ;;
*) export VM_MODULES=${VM_MODULES:-nf_tables} ;;
esac
# A million elements through ipset or nft under emulation take minutes
# each: the whole run takes over half an hour.
export VM_TIMEOUT=${VM_TIMEOUT:-5400}
OUT=bench/results/load.txt

make -s module user
LOG=$(mktemp "${TMPDIR:-/tmp}/bench-load.XXXXXX")
trap 'rm -f "$LOG"' EXIT
scripts/vm/vm-run.sh scripts/bench/bench-load-guest.sh | tee "$LOG"

{
	echo "# make bench-load ($(date -u +%Y-%m-%d), $(git describe --always --dirty 2>/dev/null || echo no git))"
	sed -n '/^@@BENCH-BEGIN$/,/^@@BENCH-END$/p' "$LOG" | sed '1d;$d'
} >"$OUT.new"
[ "$(wc -l <"$OUT.new")" -gt 5 ] || {
	rm -f "$OUT.new"
	echo "bench-load: the guest printed no table; $OUT left as it was" >&2
	exit 1
}
mv "$OUT.new" "$OUT"
echo "bench-load: table written to $OUT"
