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

# The module is released a little after the last program goes.
reload_module() {
	i=0
	while ! rmmod cfilter 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -lt 50 ] || die "rmmod cfilter still fails after 5 s"
		sleep 0.1
	done
	insmod "$CFILTER_KO" "$@" || die "insmod $CFILTER_KO $* failed"
}

cd /opt/cfilter/selftests
# shellcheck source=/dev/null # written by scripts/bench/bench-xdp-insns.sh
. ./params
# the JIT's symbols in /proc/kallsyms, for xdp_bench -I to print
[ "$PROFILE" = 0 ] || echo 1 >/proc/sys/net/core/bpf_jit_kallsyms
./xdp_bench -I -n "$PACKETS" -p 1 -k "$KEYS" -e "6:$KEYS" | grep '^insns-'
for fp in 16 12; do
	reload_module mode=compact fp_bits=$fp capacity="$KEYS"
	./xdp_bench -I -C -n "$PACKETS" -p 1 -k "$KEYS" |
		sed -n -e "s/^insns-series exact, /insns-series compact fp$fp, /p" \
			-e "/^insns-ksym /p"
done
[ "$PROFILE" = 0 ] ||
	awk 'NF >= 3 && ($2 == "t" || $2 == "T") && $NF != "[bpf]" { print "ksym " $0 }' /proc/kallsyms
