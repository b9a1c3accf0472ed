#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest half of `make bench-xdp-insns` (run by scripts/bench/bench-xdp-insns.sh
# through scripts/vm/vm-run.sh under bench/qemu/insns.so, with xdp_bench and
# the parameters where the selftests usually go): the marked series of the
# 100k exact workloads, IPv4 and IPv6, then IPv4 with cfilter.ko in compact
# mode, fp16 and fp12; with PROFILE=1 the JIT's and the kernel's symbols.
set -eu

die() {
	echo "bench-xdp-insns: $*" >&2
	exit 1
}

# Loads the module again with the parameters given.
reload() {
	reload_module_as "$@" || die "reloading $CFILTER_KO ($*) failed"
}

cd /opt/cfilter/selftests
# shellcheck source=tests/selftests/lib.sh
. ./lib.sh
# shellcheck source=/dev/null # written by scripts/bench/bench-xdp-insns.sh
. ./params
# the JIT's symbols in /proc/kallsyms, for xdp_bench -I to print
[ "$PROFILE" = 0 ] || echo 1 >/proc/sys/net/core/bpf_jit_kallsyms
./xdp_bench -I -n "$PACKETS" -p 1 -k "$KEYS" -e "6:$KEYS" | grep '^insns-'
for fp in 16 12; do
	reload mode=compact fp_bits=$fp capacity="$KEYS"
	./xdp_bench -I -C -n "$PACKETS" -p 1 -k "$KEYS" |
		sed -n -e "s/^insns-series exact, /insns-series compact fp$fp, /p" \
			-e "/^insns-ksym /p"
done
[ "$PROFILE" = 0 ] ||
	awk 'NF >= 3 && ($2 == "t" || $2 == "T") && $NF != "[bpf]" { print "ksym " $0 }' /proc/kallsyms
