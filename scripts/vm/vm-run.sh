#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a shell script as root inside a qemu guest booting Debian's kernel,
# with cfilter.ko loaded (make vm-run SCRIPT=path/to/script.sh).
#
# Usage: scripts/vm/vm-run.sh SCRIPT
#
# Environment (paths relative to the current directory):
#   KERNEL         guest kernel: 6.1 (Debian 12, default), 6.12 (Debian 13),
#                  7.2, or debug (scripts/vm/debug-kernel.sh's, for make
#                  check-debug: boot it as check-debug.sh does,
#                  VM_MEM=2G VM_APPEND='kmemleak=on no5lvl')
#   CFILTER_KO     module to load         (default: the one make builds for
#                  KERNEL: <root>/cfilter.ko for 6.1,
#                  <root>/.cache/build-6.12/cfilter.ko for 6.12)
#   CFCTL          /usr/bin/cfctl         (default: <root>/user/cfctl)
#   SELFTESTS_DIR  /opt/cfilter/selftests (default: <root>/tests/selftests)
#   VM_TIMEOUT     seconds before qemu is killed (default: 600)
#   VM_SMP, VM_MEM guest CPUs and memory  (default: 2, 1024M)
#   VM_MODULES     kernel modules loaded before cfilter.ko (default: veth,
#                  and sch_ingress cls_bpf for the TC attachment)
#   VM_KERNEL      kernel image to boot   (default: GUEST_VMLINUX, the
#                  decompressed ELF; GUEST_VMLINUZ also works, 5 s slower)
#   VM_APPEND      extra kernel command line arguments
#   VM_DEBIAN      1: give the guest the Debian root of scripts/vm/guest-root.sh
#                  (built on first use), mounted at /debian (default: 0)
#   VM_PLUGIN      a QEMU TCG plugin to run the guest under, its arguments
#                  after commas (bench/qemu/insns.so for
#                  scripts/bench/bench-xdp-insns.sh)
#   VM_PLUGIN_LOG  where the plugin's output goes (default: /dev/stderr)
# The guest kernel comes from .cache/kernel-$KERNEL.mk (made by
# scripts/vm/kernel.sh, or scripts/vm/debug-kernel.sh for debug, run here when
# missing).
#
# The guest console is streamed to stdout and saved under .cache/vm-logs/.
#
# Exit status: the script's own status; 2 when an input is missing or bad;
# 125 when the guest did not report a status (timeout, kernel panic, qemu
# failure); 130 when interrupted.

set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=$ROOT/.cache
LOG_DIR=$CACHE/vm-logs
LOGS_KEPT=20
MARKER=@@CFILTER-VM-EXIT
# qboot instead of SeaBIOS saves ~0.5 s of firmware and prints nothing; the
# pc machine (not microvm) keeps HPET and the ACPI PM timer, without which
# the guest hangs at boot whenever a busy host spoils TSC calibration
# against the PIT.
QBOOT=/usr/share/qemu/qboot.rom

die() {
	echo "vm-run: $*" >&2
	exit 2
}

# Absolute path of an existing file, or an error naming what to do.
input_file() {
	local what=$1 path=$2 hint=$3

	[ -f "$path" ] || die "$what not found at $path: $hint"
	realpath "$path"
}

is_uint() {
	[[ $1 =~ ^[0-9]+$ ]] && [ "$1" -gt 0 ]
}

read_args() {
	[ $# -eq 1 ] || die "usage: scripts/vm/vm-run.sh SCRIPT (or make vm-run SCRIPT=...)"
	SCRIPT=$(input_file "script" "$1" "pass an existing shell script")
	CFCTL=$(input_file "cfctl" "${CFCTL:-$ROOT/user/cfctl}" "run make")
	SELFTESTS_DIR=${SELFTESTS_DIR:-$ROOT/tests/selftests}
	[ -d "$SELFTESTS_DIR" ] || die "selftests directory $SELFTESTS_DIR not found: run make"
	SELFTESTS_DIR=$(realpath "$SELFTESTS_DIR")
	VM_TIMEOUT=${VM_TIMEOUT:-600}
	VM_SMP=${VM_SMP:-2}
	VM_MEM=${VM_MEM:-1024M}
	VM_MODULES=${VM_MODULES:-veth sch_ingress cls_bpf}
	VM_APPEND=${VM_APPEND:-}
	VM_DEBIAN=${VM_DEBIAN:-0}
	VM_PLUGIN=${VM_PLUGIN:-}
	VM_PLUGIN_LOG=${VM_PLUGIN_LOG:-/dev/stderr}
	if [ -n "$VM_PLUGIN" ]; then
		VM_PLUGIN=$(input_file "plugin" "${VM_PLUGIN%%,*}" "build it first")${VM_PLUGIN#"${VM_PLUGIN%%,*}"}
	fi
	[[ $VM_DEBIAN = [01] ]] || die "VM_DEBIAN=$VM_DEBIAN: want 0 or 1"
	is_uint "$VM_TIMEOUT" || die "VM_TIMEOUT=$VM_TIMEOUT: want a number of seconds > 0"
	is_uint "$VM_SMP" || die "VM_SMP=$VM_SMP: want a number of CPUs > 0"
	[[ $VM_MEM =~ ^[0-9]+[MG]?$ ]] || die "VM_MEM=$VM_MEM: want a size such as 1024M or 2G"
}

kernel_mk_var() {
	sed -n "s/^$1 := //p" "$CACHE/kernel-$KERNEL.mk" 2>/dev/null
}

# Field $2 (vermagic, depends, ...) of module $1's .modinfo.
modinfo_field() {
	objcopy -O binary --only-section=.modinfo "$1" /dev/stdout |
		tr '\0' '\n' | sed -n "s/^$2=//p"
}

read_kernel_mk() {
	local vmlinux release built_for

	KERNEL=${KERNEL:-6.1}
	vmlinux=$(kernel_mk_var GUEST_VMLINUX)
	if [ -z "$vmlinux" ] || [ ! -f "$vmlinux" ]; then
		if [ "$KERNEL" = debug ]; then
			"$ROOT/scripts/vm/debug-kernel.sh" >&2 || die "scripts/vm/debug-kernel.sh failed"
		else
			"$ROOT/scripts/vm/kernel.sh" "$KERNEL" >&2 || die "scripts/vm/kernel.sh $KERNEL failed"
		fi
	fi
	GUEST_VMLINUX=$(kernel_mk_var GUEST_VMLINUX)
	GUEST_MODULES=$(kernel_mk_var GUEST_MODULES)
	VM_KERNEL=${VM_KERNEL:-$GUEST_VMLINUX}
	[ -f "$VM_KERNEL" ] || die "kernel image $VM_KERNEL not found: run scripts/vm/kernel.sh $KERNEL"
	[ -f "$QBOOT" ] || die "$QBOOT not found: run make deps"
	[ -f "$GUEST_MODULES/modules.order" ] ||
		die "$GUEST_MODULES/modules.order not found: remove .cache and run scripts/vm/kernel.sh $KERNEL"

	if [ -z "${CFILTER_KO:-}" ]; then
		# kernel-*.mk names it relative to the root of the checkout
		CFILTER_KO=$(kernel_mk_var CFILTER_KO)
		[[ $CFILTER_KO = /* ]] || CFILTER_KO=$ROOT/$CFILTER_KO
	fi
	CFILTER_KO=$(input_file "cfilter.ko" "$CFILTER_KO" "run make KERNEL=$KERNEL")
	# insmod would refuse a module built for another kernel with a bare
	# "Invalid module format".
	release=$(basename "$GUEST_MODULES")
	built_for=$(modinfo_field "$CFILTER_KO" vermagic)
	[ "${built_for%% *}" = "$release" ] ||
		die "$CFILTER_KO is built for ${built_for%% *}, the guest runs $release: run make KERNEL=$KERNEL"
}

# Copy the shared libraries of the dynamic ELF files given (and the dynamic
# loader) to the same paths in the image; static files have none.
copy_libs() {
	local lib

	for lib in $(for elf in "$@"; do ldd "$elf" 2>/dev/null || true; done |
		     awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
		     sort -u); do
		mkdir -p "$IMG$(dirname "$lib")"
		cp -L "$lib" "$IMG$lib"
	done
}

# ELF files in the selftests tree: test binaries may be dynamically linked.
selftest_elfs() {
	local file

	while IFS= read -r -d '' file; do
		if [ "$(od -An -tx1 -N4 "$file" | tr -d ' ')" = 7f454c46 ]; then
			printf '%s\n' "$file"
		fi
	done < <(find "$SELFTESTS_DIR" -type f -perm /111 -print0)
}

# Path of module $1 relative to GUEST_MODULES as modules.order lists it
# (name.ko, even where the file is name.ko.xz); '-' and '_' are equivalent in
# module names.
module_path() {
	awk -v want="${1//-/_}" '{
		name = $0
		sub(/.*\//, "", name)
		sub(/\.ko.*$/, "", name)
		gsub(/-/, "_", name)
		if (name == want) { print; exit }
	}' "$GUEST_MODULES/modules.order"
}

# Those of modules $@ the kernel does not have built in (Debian 13 builds
# virtio_pci in, Debian 12 does not), one per line.
not_builtin() {
	local m

	for m in "$@"; do
		grep -q "/${m//_/[-_]}\.ko\$" "$GUEST_MODULES/modules.builtin" ||
			echo "$m"
	done
}

# Copy module $1 after the modules it depends on (read from its .modinfo,
# as the image has no modules.dep), listing each in load order. Compressed
# modules (Debian 13's are .ko.xz) are decompressed on the way: the guest
# then needs no decompressor, and busybox insmod loads them quietly.
add_module() {
	local name=${1//-/_} rel src dst dep

	case " $MODULES_ADDED " in *" $name "*) return 0 ;; esac
	MODULES_ADDED="$MODULES_ADDED $name"
	rel=$(module_path "$name")
	[ -n "$rel" ] || die "module $1 not found in $GUEST_MODULES/modules.order"
	src=$GUEST_MODULES/$rel
	dst=$IMG/lib/modules/$rel
	mkdir -p "$(dirname "$dst")"
	if [ -f "$src" ]; then
		cp "$src" "$dst"
	elif [ -f "$src.xz" ]; then
		xz -dc "$src.xz" >"$dst"
	else
		die "module $1: neither $src nor $src.xz exists"
	fi
	for dep in $(modinfo_field "$dst" depends | tr ',' ' '); do
		add_module "$dep"
	done
	echo "/lib/modules/$rel" >>"$IMG/etc/cfilter-modules"
}

# One newc cpio entry without data (Documentation/driver-api/early-userspace/
# buffer-format.rst): lets a non-root user put the /dev/console node the
# kernel opens for /init into the image.
cpio_entry() {
	local name=$1 mode=$2 major=$3 minor=$4 size=$((${#1} + 1))

	printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X' \
		0 "$mode" 0 0 1 0 0 0 0 "$major" "$minor" "$size" 0
	printf '%s\0' "$name"
	printf '%*s' $(((4 - (110 + size) % 4) % 4)) '' | tr ' ' '\0'
}

console_cpio() {
	cpio_entry dev/console $((0020600)) 5 1
	cpio_entry TRAILER!!! 0 0 0
}

build_initramfs() {
	local dir module tests

	IMG=$WORK/root
	for dir in bin sbin usr/bin usr/sbin lib/modules proc sys dev tmp run \
		   root etc opt/cfilter; do
		mkdir -p "$IMG/$dir"
	done
	mkdir -p "$IMG/var"
	ln -s ../run "$IMG/var/run"
	echo "root:x:0:0:root:/root:/bin/sh" >"$IMG/etc/passwd"
	echo "root:x:0:" >"$IMG/etc/group"

	# /bin/sh is dash, as on the host: busybox's own sh would run its
	# applets (ip: no netns, no veth) ahead of the tools found in PATH.
	cp /bin/busybox "$IMG/bin/busybox"
	cp -L /bin/dash "$IMG/bin/dash"
	ln -s dash "$IMG/bin/sh"
	cp "$ROOT/scripts/vm/guest-init.sh" "$IMG/init"
	chmod 755 "$IMG/init"

	cp -L /usr/sbin/ip "$IMG/usr/sbin/ip"
	cp -L /usr/sbin/bpftool "$IMG/usr/sbin/bpftool"
	cp "$CFCTL" "$IMG/usr/bin/cfctl"
	cp "$CFILTER_KO" "$IMG/lib/modules/cfilter.ko"
	# Its twin as headers without vmlinux build it (Debian 12's), for
	# test_nobtf.sh.
	objcopy --remove-section=.BTF "$CFILTER_KO" \
		"$IMG/lib/modules/cfilter-nobtf.ko"
	: >"$IMG/etc/cfilter-modules"
	MODULES_ADDED=
	for module in $VM_MODULES; do
		add_module "$module"
	done
	cp -a "$SELFTESTS_DIR" "$IMG/opt/cfilter/selftests"
	cp "$SCRIPT" "$IMG/opt/cfilter/script.sh"

	mapfile -t tests < <(selftest_elfs)
	copy_libs /bin/dash /usr/sbin/ip /usr/sbin/bpftool "$CFCTL" ${tests[@]+"${tests[@]}"}

	{
		(cd "$IMG" && find . -print0 | cpio --null -o -H newc -R 0:0 --quiet)
		console_cpio
	} | gzip -1 >"$WORK/initramfs.cpio.gz"
}

new_log() {
	mkdir -p "$LOG_DIR"
	find "$LOG_DIR" -name 'vm-run.*.log' -printf '%T@ %p\n' | sort -rn |
		tail -n +$LOGS_KEPT | cut -d' ' -f2- | xargs -r rm -f
	LOG=$(mktemp "$LOG_DIR/vm-run.$(date +%Y%m%d-%H%M%S).XXXX.log")
}

# qemu runs in the background so that an interrupt (to which a background job
# is deaf) or a TERM reaches it through timeout, which forwards the signal.
run_qemu() {
	local reader

	mkfifo "$WORK/console"
	sed -u 's/\r//g' <"$WORK/console" | tee "$LOG" &
	reader=$!
	timeout --foreground --kill-after=10 "$VM_TIMEOUT" \
		qemu-system-x86_64 -accel tcg -cpu max -smp "$VM_SMP" -m "$VM_MEM" \
		-M pc -bios "$QBOOT" \
		-nographic -nodefaults -no-user-config -no-reboot -nic none \
		-serial stdio -monitor none \
		-kernel "$VM_KERNEL" -initrd "$WORK/initramfs.cpio.gz" \
		${DRIVE[@]+"${DRIVE[@]}"} \
		${VM_PLUGIN:+-plugin "$VM_PLUGIN" -d plugin -D "$VM_PLUGIN_LOG"} \
		-append "console=ttyS0 panic=-1 quiet loglevel=4 $VM_APPEND" \
		</dev/null >"$WORK/console" 2>&1 &
	QEMU_PID=$!
	trap 'INTERRUPTED=1; kill -TERM "$QEMU_PID" 2>/dev/null || true' INT TERM HUP
	QEMU_STATUS=0
	wait "$QEMU_PID" || QEMU_STATUS=$?
	# A trapped signal ends the wait early: wait again for qemu to go.
	while kill -0 "$QEMU_PID" 2>/dev/null; do
		wait "$QEMU_PID" || QEMU_STATUS=$?
	done
	trap - INT TERM HUP
	wait "$reader" || true
}

report() {
	local status oops

	status=$(grep -ao "$MARKER [0-9]*@@" "$LOG" | tail -n 1 | tr -dc 0-9) || true
	if [ -n "$status" ] && [ -z "$INTERRUPTED" ]; then
		echo "vm-run: script exit status $status ($(elapsed) s; log $LOG)" >&2
		exit "$status"
	fi
	if [ -n "$INTERRUPTED" ]; then
		echo "vm-run: interrupted; log $LOG" >&2
		exit 130
	fi
	# The kernel's first report, if any, on the line that says so.
	oops=$(grep -aoE '(Kernel panic - not syncing|BUG|Oops|general protection fault)[: ].*' \
		"$LOG" | head -n 1 | cut -c 1-120) || true
	if [ "$QEMU_STATUS" -eq 124 ] || [ "$QEMU_STATUS" -eq 137 ]; then
		echo "vm-run: guest did not report (timeout after $VM_TIMEOUT s)${oops:+; $oops}" >&2
	else
		echo "vm-run: guest did not report (qemu exit status $QEMU_STATUS;" \
			"a kernel panic also ends qemu)${oops:+; $oops}" >&2
	fi
	echo "vm-run: last 60 lines of the guest console:" >&2
	tail -n 60 "$LOG" >&2
	echo "vm-run: full log: $LOG" >&2
	exit 125
}

elapsed() {
	echo "$(($(date +%s%N) / 1000000 - START_MS))" |
		awk '{ printf "%.1f", $1 / 1000 }'
}

START_MS=$(($(date +%s%N) / 1000000))
INTERRUPTED=
read_args "$@"
read_kernel_mk
DRIVE=()
if [ "$VM_DEBIAN" = 1 ]; then
	DEBIAN_IMG=$("$ROOT/scripts/vm/guest-root.sh" | tail -n 1) ||
		die "scripts/vm/guest-root.sh failed"
	# The drive and the file system on it (ext4 asks for crc32c at mount,
	# not through its module dependencies, up to 6.x; 7.x's calls the
	# crc32c library, built in); /init mounts it when present. The root's
	# ipset needs the kernel's sets of the types cfilter reads.
	VM_MODULES="$VM_MODULES $(not_builtin virtio_pci virtio_blk \
		$([ -z "$(module_path crc32c_generic)" ] || echo crc32c_generic) \
		ext4 overlay ip_set_hash_ip ip_set_hash_net | xargs)"
	DRIVE=(-drive "file=$DEBIAN_IMG,if=virtio,format=raw,readonly=on")
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cfilter-vm.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
build_initramfs
new_log
run_qemu
report
