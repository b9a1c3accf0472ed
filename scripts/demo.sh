#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: from a fresh Debian 12 machine, install what is needed, build
# everything, boot Debian's kernel in qemu and show cfilter blocking traffic
# between two network namespaces (scripts/demo-guest.sh tells the story).
set -eu
cd "$(dirname "$0")/.."

scripts/deps.sh
scripts/kernel.sh
echo '==== building cfilter.ko, cfctl and the XDP program'
make -s module user
echo '==== booting the guest (qemu, software emulation: ~10-20 s)'
exec scripts/vm-run.sh scripts/demo-guest.sh
