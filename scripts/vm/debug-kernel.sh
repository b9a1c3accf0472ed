#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build the debug kernel of make check-debug, once: Debian 13's
# linux-source-6.12 with scripts/vm/debug-kernel.config (KASAN, KFENCE,
# lockdep, kmemleak, UBSAN, fault injection, module BTF).
#
# Usage: scripts/vm/debug-kernel.sh
#
# Why 6.12: the LTS line operators run (Debian 13), and it builds with
# Debian 12's gcc 12 and pahole 1.24. The first build took 71 minutes on
# 2 cores shared with two other guests (47 minutes of CPU); later runs only
# check that it is there.
#
# Everything lands in .cache/:
#   apt-trixie/                 trixie's package lists (apt-suite.sh's, the
#                               same as scripts/vm/kernel.sh's for 6.12)
#   debug-kernel/pin            the linux-source-6.12 version chosen on first
#                               use, reused until the file is removed
#   debug-kernel/linux-<ver>/   the source tree, built in place: KDIR of the
#                               module, with vmlinux, Module.symvers and
#                               resolve_btfids
#   debug-kernel/modules-<ver>/ its modules as modules_install lays them out
#   kernel-debug.mk             paths for scripts/vm/vm-run.sh (KERNEL=debug)
# A tree whose build was interrupted is built on where it stopped; the .mk
# is written only once the build is whole.
#
# Needs (Debian): flex, bison, bc, libssl-dev, libelf-dev, dwarves, gcc,
# make, xz-utils, kmod (depmod).

set -eu

SUITE=trixie
PACKAGE=linux-source-6.12

die() {
	echo "debug-kernel.sh: $*" >&2
	exit 1
}

log() {
	echo "debug-kernel.sh: $*"
}

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$ROOT/.cache"
CACHE=$(cd "$ROOT/.cache" && pwd -P)
DK=$CACHE/debug-kernel
APT_DIR=$CACHE/apt-$SUITE
FRAGMENT=$ROOT/scripts/vm/debug-kernel.config
# apt_suite, update_suite_lists: the same private apt as kernel.sh's for
# 6.12, so both share .cache/apt-trixie.
. "$ROOT/scripts/vm/apt-suite.sh"

need_tools() {
	missing=
	for pair in flex:flex bison:bison bc:bc pahole:dwarves gcc:gcc \
		    make:make xz:xz-utils depmod:kmod; do
		command -v "${pair%%:*}" >/dev/null || missing="$missing ${pair#*:}"
	done
	for pair in openssl/ssl.h:libssl-dev gelf.h:libelf-dev; do
		[ -f "/usr/include/${pair%%:*}" ] || missing="$missing ${pair#*:}"
	done
	[ -z "$missing" ] || die "missing:$missing: apt-get install$missing"
}

read_pin() {
	if [ ! -f "$DK/pin" ]; then
		update_suite_lists
		version=$(apt_suite apt-cache show --no-all-versions "$PACKAGE" |
			sed -n 's/^Version: //p')
		[ -n "$version" ] || die "no $PACKAGE in $SUITE's lists"
		echo "$version" >"$DK/pin"
		log "pinned $PACKAGE $version in $DK/pin"
	fi
	read -r VERSION <"$DK/pin"
	SRC=$DK/linux-$VERSION
	MODROOT=$DK/modules-$VERSION
}

# The source tree, unpacked under a .tmp name and renamed when whole.
unpack() {
	[ -d "$SRC" ] && return 0
	deb=$DK/${PACKAGE}_${VERSION}_all.deb
	if [ ! -f "$deb" ]; then
		update_suite_lists
		log "downloading $PACKAGE $VERSION (about 150 MB)"
		rm -rf "$DK/deb.tmp"
		mkdir -p "$DK/deb.tmp"
		(cd "$DK/deb.tmp" && apt_suite apt-get download "$PACKAGE=$VERSION" >/dev/null) ||
			die "downloading $PACKAGE $VERSION failed; if $SUITE no longer has it, remove $DK/pin"
		mv "$DK"/deb.tmp/*.deb "$deb"
		rmdir "$DK/deb.tmp"
	fi
	log "unpacking $PACKAGE $VERSION"
	rm -rf "$SRC.tmp"
	mkdir -p "$SRC.tmp"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO ./usr/src/$PACKAGE.tar.xz |
		tar -xJ -C "$SRC.tmp" --strip-components=1
	mv "$SRC.tmp" "$SRC"
}

# Every CONFIG_X=v and "# CONFIG_X is not set" of the fragment, as .config
# must have it.
check_config() {
	bad=
	grep -E '^(CONFIG_|# CONFIG_.* is not set)' "$FRAGMENT" | while read -r line; do
		grep -qxF "$line" "$SRC/.config" || echo "$line"
	done >"$DK/config-missing"
	if [ -s "$DK/config-missing" ]; then
		bad=$(tr '\n' ' ' <"$DK/config-missing")
		die "$SRC/.config lacks: $bad(a dependency is off; see scripts/vm/debug-kernel.config)"
	fi
	rm -f "$DK/config-missing"
}

configure() {
	if [ -f "$SRC/.config" ] && [ "$SRC/.config" -nt "$FRAGMENT" ]; then
		return 0
	fi
	log "configuring: defconfig kvm_guest.config + $FRAGMENT"
	make -s -C "$SRC" defconfig kvm_guest.config >/dev/null
	(cd "$SRC" && scripts/kconfig/merge_config.sh -m .config "$FRAGMENT" >/dev/null)
	make -s -C "$SRC" olddefconfig
	check_config
}

build() {
	mk=$CACHE/kernel-debug.mk
	built=$SRC/include/config/kernel.release
	if [ -f "$mk" ] && [ "$mk" -nt "$SRC/.config" ] && [ -f "$built" ] &&
	   grep -qxF "GUEST_MODULES := $MODROOT/lib/modules/$(cat "$built")" "$mk"; then
		return 0
	fi
	log "building with $(nproc) jobs (the first build: about an hour on 2 cores)"
	start=$(date +%s)
	make -s -C "$SRC" -j"$(nproc)" bzImage modules ||
		die "the kernel build failed (see above); run again to build on"
	log "built in $(($(date +%s) - start)) s"
	# Known only once the build has read .config's LOCALVERSION.
	release=$(cat "$SRC/include/config/kernel.release")
	modules=$MODROOT/lib/modules/$release
	rm -rf "$MODROOT"
	make -s -C "$SRC" INSTALL_MOD_PATH="$MODROOT" modules_install >/dev/null
	[ -x "$SRC/tools/bpf/resolve_btfids/resolve_btfids" ] ||
		die "$SRC has no resolve_btfids: CONFIG_DEBUG_INFO_BTF is off?"
	cat >"$mk.tmp" <<-EOF
		# Generated by scripts/vm/debug-kernel.sh: do not edit.
		KERNEL_ABI := $release
		KERNEL_CACHE := $DK
		KDIR := $SRC
		KBUILD_ARGS :=
		BTF_SOURCE :=
		MODULE_DIR := \$(CURDIR)/.cache/build-debug
		CFILTER_KO := .cache/build-debug/cfilter.ko
		KSFT_DIR := $CACHE/ksft
		GUEST_VMLINUX := $SRC/arch/x86/boot/bzImage
		GUEST_VMLINUZ := $SRC/arch/x86/boot/bzImage
		GUEST_MODULES := $modules
	EOF
	mv "$mk.tmp" "$mk"
}

[ $# -eq 0 ] || die "usage: scripts/vm/debug-kernel.sh"
need_tools
mkdir -p "$DK"
# One build at a time in the cache (parallel make, several shells).
exec 9>"$DK/.lock"
flock 9
read_pin
unpack
configure
build
