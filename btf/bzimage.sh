#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What a kernel image (bzImage: /boot/vmlinuz-*) holds.
#
# Usage: btf/bzimage.sh version VMLINUZ      print its version string
#        btf/bzimage.sh unpack VMLINUZ OUT   decompress its kernel ELF to OUT
#
# The version string is what /proc/version shows after "Linux version ":
# "<release> (<builder>) <uname -v>". The ELF carries the kernel's .BTF
# section, and qemu can boot it directly (through its PVH entry).
#
# Exit status: 0; 1 VMLINUZ is not a bzImage of a known format; 2 usage;
# 3 the decompressor its payload needs is not installed.

set -eu

die() {
	echo "bzimage.sh: $*" >&2
	exit 1
}

# The setup header (Documentation/arch/x86/boot.rst): "HdrS" at 0x202, the
# number of setup sectors at 0x1f1, the version string's offset less 0x200
# at 0x20e, the compressed payload's offset from the protected-mode code at
# 0x248 and its length at 0x24c.
header() {
	od -An -t"$1" -j "$2" -N"$3" "$VMLINUZ" | tr -d ' '
}

check_bzimage() {
	[ -r "$VMLINUZ" ] || die "cannot read $VMLINUZ"
	[ "$(header c 514 4)" = HdrS ] || die "$VMLINUZ is not a bzImage"
}

version() {
	offset=$(header u2 526 2)
	[ "$offset" -ne 0 ] || die "$VMLINUZ has no version string"
	tail -c "+$((offset + 512 + 1))" "$VMLINUZ" | head -c 512 |
		tr '\0' '\n' | head -n 1
}

# The payload ends with the 4-byte uncompressed size, which is not part of
# the compressed stream.
unpack() {
	setup_sects=$(header u1 497 1)
	[ "$setup_sects" -ne 0 ] || setup_sects=4
	offset=$(((setup_sects + 1) * 512 + $(header u4 584 4)))
	length=$(($(header u4 588 4) - 4))
	magic=$(header x1 "$offset" 6)
	case $magic in
	fd377a585a00) tool=xz package=xz-utils ;;
	28b52ffd*) tool=zstd package=zstd ;;
	*) die "$VMLINUZ: payload is neither xz nor zstd (magic $magic)" ;;
	esac
	if ! command -v $tool >/dev/null; then
		echo "bzimage.sh: $tool not found, needed to decompress $VMLINUZ: apt-get install $package" >&2
		exit 3
	fi
	tail -c "+$((offset + 1))" "$VMLINUZ" | head -c "$length" |
		$tool -dcq >"$OUT.tmp" || die "$tool failed on $VMLINUZ"
	[ "$(od -An -c -N4 "$OUT.tmp" | tr -d ' ')" = 177ELF ] ||
		die "the decompressed payload of $VMLINUZ is not an ELF file"
	mv "$OUT.tmp" "$OUT"
}

usage() {
	echo "usage: btf/bzimage.sh version VMLINUZ | unpack VMLINUZ OUT" >&2
	exit 2
}

[ $# -ge 2 ] || usage
VMLINUZ=$2
case $1 in
version)
	[ $# -eq 2 ] || usage
	check_bzimage
	version
	;;
unpack)
	[ $# -eq 3 ] || usage
	OUT=$3
	check_bzimage
	unpack
	;;
*) usage ;;
esac
