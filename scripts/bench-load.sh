#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-load`: build cfilter.ko and cfctl, boot the guest and time
# filling the filter with 100k and 1M IPv4 addresses by `cfctl load`, by one
# `cfctl add` per address and, for comparison, a BPF hash map filled by
# bpftool (scripts/bench-load-guest.sh). The table goes to
# bench/results/load.txt. KERNEL=6.12 runs it on Debian 13's kernel.
#
# The guest is emulated (qemu TCG): only the ratios between methods hold.
set -euo pipefail
cd "$(dirname "$0")/.."

export KERNEL=${KERNEL:-6.1}
# Two lists of a million addresses and two million bpftool commands live
# in the guest's tmpfs, next to a million-entry hash map.
export VM_MEM=${VM_MEM:-2G}
OUT=bench/results/load.txt

make -s module user
LOG=$(mktemp "${TMPDIR:-/tmp}/bench-load.XXXXXX")
trap 'rm -f "$LOG"' EXIT
scripts/vm-run.sh scripts/bench-load-guest.sh | tee "$LOG"

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
