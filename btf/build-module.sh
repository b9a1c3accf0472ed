#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build cfilter.ko with module BTF, or fail saying what is missing: without
# BTF the module loads, but no BPF program can call its kfunc.
#
# Usage: sh btf/build-module.sh KDIR [KBUILD_ARG...]
#   Run in the folder holding the module's sources (Kbuild, core/, kmod/,
#   include/, btf/). KDIR is the kernel's build tree
#   (/lib/modules/<release>/build); KBUILD_ARGs go to kbuild as they are
#   (CFILTER_VERSION=..., CC=...).
#
# Environment:
#   BTF_SOURCE  the kernel's BTF: its bzImage, its ELF vmlinux or a raw BTF
#               file (default: KDIR/vmlinux, BOOT_DIR/vmlinuz-<release>, or
#               /sys/kernel/btf/vmlinux if <release> is the running kernel)
#   BOOT_DIR    where kernel images are (default: /boot)
#
# Kbuild gives a module BTF only when KDIR holds vmlinux (the kernel's BTF)
# and tools/bpf/resolve_btfids/resolve_btfids. Where it has both (Debian 13
# and later), this is plain kbuild. Where it has not (Debian 12's headers),
# kbuild runs in .objtree/ here, a copy of KDIR with
#   vmlinux                                  the raw BTF of BTF_SOURCE
#   tools/bpf/resolve_btfids/resolve_btfids  btf/resolve_btfids
# made once per KDIR, BTF_SOURCE and resolver. KDIR itself is never written.
# Either way, resolve_btfids --check then proves the module's BTF ids.
#
# Needs (Debian): make, gcc, dwarves (pahole), binutils (objcopy),
# xz-utils (Debian 12's images) or zstd (Debian 13's), and the kernel's
# linux-headers-<release>.
#
# Exit status: 0 built; 1 the build failed; 2 usage; 3 something it needs
# is missing (the message names it).

set -eu

OBJTREE=.objtree
KO=cfilter.ko
BTF_DIR=$(cd "$(dirname "$0")" && pwd)

die() {
	status=$1
	shift
	echo "build-module.sh: $*" >&2
	exit "$status"
}

need() {
	command -v "$1" >/dev/null ||
		die 3 "$1 not found: apt-get install $2"
}

# The release the kernel reports (uname -r) and, where the tree has it, its
# uname -v: Debian's include/config/kernel.release holds the upstream
# version (6.1.192), not the release modules are built for (6.1.0-56-amd64).
read_release() {
	RELEASE=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
		"$KDIR/include/generated/utsrelease.h" 2>/dev/null) || true
	[ -n "$RELEASE" ] ||
		die 3 "$KDIR/include/generated/utsrelease.h names no release: is $KDIR a prepared kernel build tree?"
	UTS_VERSION=$(cat "$KDIR/include/generated/utsversion.h" \
		"$KDIR/include/generated/compile.h" 2>/dev/null |
		sed -n 's/^#define UTS_VERSION "\(.*\)"$/\1/p' | head -n 1)
}

check_config() {
	grep -qx 'CONFIG_DEBUG_INFO_BTF_MODULES=y' "$KDIR/include/config/auto.conf" 2>/dev/null ||
		die 3 "kernel $RELEASE is built without CONFIG_DEBUG_INFO_BTF_MODULES ($KDIR/include/config/auto.conf): its modules cannot carry BTF, and no BPF program can call cfilter's kfunc on it"
	need pahole dwarves
	need objcopy binutils
	need gcc gcc
}

# The image must be of the very build of KDIR: on any other BTF base the
# kernel drops the module's BTF at load without a word.
check_image_build() {
	version=$(sh "$BTF_DIR/bzimage.sh" version "$1") || exit 3
	case $version in
	"$RELEASE "*"$UTS_VERSION") ;;
	*) die 3 "$1 is kernel '$version', but $KDIR is $RELEASE $UTS_VERSION: use the image of the same build (BTF_SOURCE=)" ;;
	esac
}

# Prints the file to take the kernel's BTF from.
find_btf_source() {
	boot=${BOOT_DIR:-/boot}/vmlinuz-$RELEASE

	if [ -n "${BTF_SOURCE:-}" ]; then
		[ -r "$BTF_SOURCE" ] || die 3 "BTF_SOURCE=$BTF_SOURCE: no such readable file"
		echo "$BTF_SOURCE"
	elif [ -f "$KDIR/vmlinux" ]; then
		echo "$KDIR/vmlinux"
	elif [ -r "$boot" ]; then
		echo "$boot"
	elif [ "$RELEASE" = "$(uname -r)" ] && [ -r /sys/kernel/btf/vmlinux ] &&
	     [ "$(uname -v)" = "$UTS_VERSION" ]; then
		echo /sys/kernel/btf/vmlinux
	else
		die 3 "no BTF of kernel $RELEASE to build against: $boot is missing or unreadable, and $RELEASE is not the running kernel ($(uname -r)), whose /sys/kernel/btf/vmlinux would do. Install its image (apt-get install linux-image-$RELEASE) or name one: BTF_SOURCE=/path/to/vmlinuz"
	fi
}

# The raw BTF of source $1 (what /sys/kernel/btf/vmlinux shows) as file $2:
# pahole and resolve_btfids take it as the base as well as an ELF file.
extract_btf() {
	case $(od -An -tx1 -N4 "$1" | tr -d ' ') in
	9feb01*)
		cp "$1" "$2"
		return
		;;
	7f454c46) elf=$1 ;;
	*)
		check_image_build "$1"
		elf=$2.elf
		sh "$BTF_DIR/bzimage.sh" unpack "$1" "$elf" || exit 3
		;;
	esac
	objcopy -O binary --only-section=.BTF "$elf" "$2" ||
		die 1 "objcopy could not read $elf"
	[ "$elf" = "$1" ] || rm -f "$elf"
	# Without the section, objcopy writes an empty file.
	[ "$(od -An -tx1 -N3 "$2" | tr -d ' ')" = 9feb01 ] ||
		die 3 "$1 has no .BTF section: kernel $RELEASE is built without CONFIG_DEBUG_INFO_BTF"
}

# A symbolic link of KDIR stays one, to an absolute path: the copy lives
# elsewhere. tools/ becomes a folder of its own (the resolver goes inside),
# linking to the kernel's other tools.
copy_kdir() {
	dst=$1
	cp -a "$KDIR/." "$dst"
	(cd "$KDIR" && find . -type l) | while read -r link; do
		ln -sfn "$(readlink -f "$KDIR/$link")" "$dst/$link"
	done
	tools=$(readlink -f "$KDIR/tools" 2>/dev/null) || tools=
	rm -rf "$dst/tools"
	mkdir -p "$dst/tools/bpf/resolve_btfids"
	[ -d "$tools" ] || return 0
	for tool in "$tools"/*; do
		[ "${tool##*/}" = bpf ] || ln -s "$tool" "$dst/tools/"
	done
}

# What .objtree is made of: when any of it changes, it is made again, and
# the module relinked so that pahole runs against the new BTF.
objtree_key() {
	printf 'kdir %s\nsource %s %s\nresolver %s\n' "$(readlink -f "$KDIR")" \
		"$1" "$(stat -L -c '%s %Y' "$1")" \
		"$(cksum <"$BTF_DIR/resolve_btfids")"
}

make_objtree() {
	source=$(find_btf_source)
	key=$(objtree_key "$source")
	if [ "$(cat "$OBJTREE/key" 2>/dev/null)" = "$key" ]; then
		return 0
	fi
	echo "build-module.sh: $KDIR lacks vmlinux or resolve_btfids: building in $OBJTREE with the BTF of $source"
	rm -rf "$OBJTREE" "$OBJTREE.tmp" "$KO"
	mkdir "$OBJTREE.tmp"
	copy_kdir "$OBJTREE.tmp"
	extract_btf "$source" "$OBJTREE.tmp/vmlinux"
	ln -s "$BTF_DIR/resolve_btfids" \
		"$OBJTREE.tmp/tools/bpf/resolve_btfids/resolve_btfids"
	echo "$key" >"$OBJTREE.tmp/key"
	mv "$OBJTREE.tmp" "$OBJTREE"
}

[ $# -ge 1 ] || die 2 "usage: sh btf/build-module.sh KDIR [KBUILD_ARG...]"
KDIR=$1
shift
[ -f "$KDIR/Makefile" ] ||
	die 3 "no kernel build tree at $KDIR: install the kernel's headers (apt-get install linux-headers-<release>)"
[ -f Kbuild ] || die 2 "no Kbuild here: run in the folder holding the module's sources"
need make make
trap 'rm -rf "$OBJTREE.tmp"' EXIT
read_release
check_config
make -s -C "$BTF_DIR" resolve_btfids || die 1 "building btf/resolve_btfids failed"
if [ -f "$KDIR/vmlinux" ] && [ -x "$KDIR/tools/bpf/resolve_btfids/resolve_btfids" ]; then
	objtree=$KDIR
else
	make_objtree
	objtree=$OBJTREE
fi
# Kbuild asks pahole 1.22 and later for threads (-j), whose types pahole
# 1.24 (Debian 12's) writes in the order they finish: the module's .BTF
# differs from one build to the next. One thread writes the same bytes each
# time. Kernels whose flags come from scripts/pahole-flags.sh (6.1) only;
# later ones ship vmlinux in their headers and their own pahole flags.
if [ -f "$KDIR/scripts/pahole-flags.sh" ]; then
	set -- PAHOLE_FLAGS="$(PAHOLE=pahole sh "$KDIR/scripts/pahole-flags.sh" |
		sed 's/\(^\| \)-j\( \|$\)/ /')" "$@"
fi
make -C "$objtree" M="$PWD" "$@" modules || exit 1
"$BTF_DIR/resolve_btfids" --check "$KO" ||
	die 1 "$KO has no usable BTF (see above): it would load, but no BPF program could call its kfunc"
