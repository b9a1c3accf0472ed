#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cfilter.ko built without BTF (headers with no vmlinux, as Debian 12's):
# its device works, but no BPF program can call its kfunc. status and
# attach must say that, and where the README explains it, rather than
# "not loaded" or "insmod".

. "$(dirname "$0")/lib.sh"
# Whatever happens, the next test finds the module with BTF.
# shellcheck disable=SC2317 # called through trap, check or expect
cleanup()
{
	if module_loaded && [ ! -e /sys/kernel/btf/cfilter ]; then
		"$CFCTL" clear >/dev/null 2>&1
		unload_module
	fi
	lib_cleanup
}
trap cleanup EXIT

NOBTF_KO=${CFILTER_NOBTF_KO:-/lib/modules/cfilter-nobtf.ko}

tap_begin
[ -f "$NOBTF_KO" ] || tap_skip_all "no $NOBTF_KO (scripts/vm/vm-run.sh makes it)"
[ -x "$IP" ] || tap_skip_all "iproute2 not found at $IP"
if module_loaded; then
	unload_module || tap_skip_all "cannot unload cfilter.ko"
fi
check "insmod the module without BTF" insmod "$NOBTF_KO"
expect "it has no BTF in sysfs" 1 -- test -e /sys/kernel/btf/cfilter
expect "the device works: add" 0 -- "$CFCTL" add 192.0.2.99
expect "the device works: test" 0 -o "blocked" -- "$CFCTL" test 192.0.2.99
expect "status: loaded without BTF" 0 -o "module: loaded without BTF" -- \
	"$CFCTL" status
expect "status: points to the README section" 0 \
	-o "README, \"Using it on a real host\"" -- "$CFCTL" status
expect "status does not say 'not loaded'" 0 -O "not loaded" -- \
	"$CFCTL" status
expect "status -j: module_btf false" 0 \
	-o '"module_loaded":true,"module_btf":false' -- "$CFCTL" status -j
veth_setup || diag "veth setup failed"
expect "attach: exit 3, says the module lacks BTF" 3 \
	-e "cfilter.ko is loaded without BTF" -- "$CFCTL" attach "$VETH"
expect "attach: points to the README section" 3 \
	-e "README, \"Using it on a real host\"" -- "$CFCTL" attach "$VETH"
expect "attach: does not advise insmod" 3 -O "insmod" -- \
	"$CFCTL" attach "$VETH"
expect "attach left no program" 1 -- has_xdp "$VETH"
"$CFCTL" clear >/dev/null
check "the module without BTF unloads" unload_module
check "the module with BTF loads again" load_module
expect "status with BTF: loaded" 0 -o "module: loaded" \
	-O "without BTF" -- "$CFCTL" status
tap_end
