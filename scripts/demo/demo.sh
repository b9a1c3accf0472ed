#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: from a fresh Debian 12 machine, install what is needed, build
# everything, boot Debian's kernel in qemu and show cfilter blocking traffic
# between two network namespaces (scripts/demo/demo-guest.sh tells the story).
# KERNEL=6.12 (make demo KERNEL=6.12) shows it on Debian 13's kernel.
set -eu
cd "$(dirname "$0")/../.."

export KERNEL=${KERNEL:-6.1}
scripts/deps.sh
scripts/vm/kernel.sh "$KERNEL"
echo "==== building cfilter.ko for $KERNEL, cfctl and the XDP program"
make -s module user
echo "==== booting the guest, kernel $KERNEL (qemu, software emulation: ~10-20 s)"
exec scripts/vm/vm-run.sh scripts/demo/demo-guest.sh
