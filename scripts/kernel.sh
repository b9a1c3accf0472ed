#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Prepare the guest kernel and a module build tree that produces module BTF.
#
# The guest boots Debian's own kernel, the same build as the installed
# linux-headers-amd64, so the module's BTF is generated against exactly the
# base BTF the guest exposes (on a mismatch the kernel silently drops module
# BTF because of CONFIG_MODULE_ALLOW_BTF_MISMATCH, and the kfunc vanishes).
#
# Everything lands in .cache/ (each step is built under a *.tmp name and
# renamed into place, so an interrupted run leaves nothing half made):
#   .cache/linux-<ABI>/image/        unpacked linux-image-<ABI>-amd64 package
#   .cache/linux-<ABI>/vmlinux       decompressed kernel ELF (qemu boots it via
#                                    PVH, skipping ~5 s of xz under TCG)
#   .cache/linux-<ABI>/vmlinux.btf   its .BTF section only
#   .cache/linux-<ABI>/kdir/         copy of the headers objtree plus vmlinux
#                                    (= vmlinux.btf) and resolve_btfids
#   .cache/ksft/                     kselftest.h, kselftest_harness.h
#   .cache/kernel.mk                 paths of the above, for make
#
# Debian's headers lack vmlinux and resolve_btfids, and
# scripts/Makefile.modfinal runs "pahole --btf_base vmlinux" and
# "$(objtree)/tools/bpf/resolve_btfids/resolve_btfids -b vmlinux" on a module
# only when ./vmlinux exists in the objtree (the make -C directory, also for
# M= builds): kdir/ supplies both.
#
# Usage: scripts/kernel.sh   (no arguments; a no-op when everything is cached)

set -eu

die() {
	echo "kernel.sh: $*" >&2
	exit 1
}

log() {
	echo "kernel.sh: $*"
}

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=$ROOT/.cache
SRC_TARBALL=/usr/src/linux-source-6.1.tar.xz

[ $# -eq 0 ] || die "takes no arguments (usage: scripts/kernel.sh)"

status=$(dpkg-query -W -f='${db:Status-Status}' linux-headers-amd64 2>/dev/null) || true
[ "$status" = installed ] || die "linux-headers-amd64 not installed: run make deps"

# "linux-headers-6.1.0-56-amd64 (= 6.1.192-2)" -> ABI 6.1.0-56, 6.1.192-2
dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 | tr ',' '\n' |
	sed -n 's/^ *linux-headers-\([^ ]*\)-amd64 (= \([^)]*\)) *$/\1 \2/p')
ABI=${dep% *}
PKG_VERSION=${dep#* }
if [ -z "$dep" ] || [ "$ABI" = "$dep" ]; then
	die "cannot read the kernel ABI from linux-headers-amd64's dependencies"
fi

KREL=$ABI-amd64
HEADERS=/usr/src/linux-headers-$KREL
KC=$CACHE/linux-$ABI
KSFT=$CACHE/ksft

[ -f "$HEADERS/Makefile" ] ||
	die "$HEADERS missing (broken linux-headers-$KREL?): run make deps"

# Drop a cache left by an earlier build of the same ABI: image, headers and
# base BTF must all come from one build.
check_version() {
	[ -d "$KC" ] || return 0
	[ "$(cat "$KC/version" 2>/dev/null)" = "$PKG_VERSION" ] && return 0
	log "cache $KC is not for $PKG_VERSION: removing it"
	rm -rf "$KC"
}

# Pick the image package of exactly the headers' build: the signed one or,
# where only that exists, the unsigned one.
image_package() {
	for pkg in linux-image-$KREL linux-image-$KREL-unsigned; do
		if apt-cache show "$pkg=$PKG_VERSION" >/dev/null 2>&1; then
			echo "$pkg"
			return 0
		fi
	done
	die "linux-image-$KREL $PKG_VERSION not in the apt lists: run apt-get update"
}

fetch_image() {
	[ -d "$KC/image" ] && return 0
	pkg=$(image_package)
	log "downloading $pkg $PKG_VERSION"
	rm -rf "$KC/image.tmp" "$KC/deb.tmp"
	mkdir -p "$KC/deb.tmp"
	(cd "$KC/deb.tmp" &&
		apt-get download -q -o APT::Sandbox::User=root "$pkg=$PKG_VERSION") ||
		die "apt-get download $pkg=$PKG_VERSION failed"
	dpkg-deb -x "$KC"/deb.tmp/*.deb "$KC/image.tmp"
	rm -rf "$KC/deb.tmp"
	[ -f "$KC/image.tmp/boot/vmlinuz-$KREL" ] ||
		die "$pkg has no boot/vmlinuz-$KREL"
	mv "$KC/image.tmp" "$KC/image"
}

# The bzImage setup header (Documentation/x86/boot.rst) gives the number of
# setup sectors (0x1f1) and the compressed payload's offset from the start
# of the protected-mode code (0x248) and its length (0x24c).
header_u8() {
	od -An -tu1 -j "$2" -N1 "$1" | tr -d ' '
}

header_u32() {
	od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '
}

decompress_vmlinux() {
	[ -f "$KC/vmlinux" ] && return 0
	vmlinuz=$KC/image/boot/vmlinuz-$KREL
	[ "$(od -An -c -j 514 -N4 "$vmlinuz" | tr -d ' ')" = HdrS ] ||
		die "$vmlinuz is not a bzImage"
	setup_sects=$(header_u8 "$vmlinuz" 497)
	[ "$setup_sects" -ne 0 ] || setup_sects=4
	offset=$(((setup_sects + 1) * 512 + $(header_u32 "$vmlinuz" 584)))
	length=$(header_u32 "$vmlinuz" 588)
	magic=$(od -An -tx1 -j "$offset" -N6 "$vmlinuz" | tr -d ' ')
	[ "$magic" = fd377a585a00 ] ||
		die "$vmlinuz payload is not xz (magic $magic): teach kernel.sh that format"
	log "decompressing $vmlinuz"
	# The payload ends with the 4-byte uncompressed size, not part of the stream.
	tail -c "+$((offset + 1))" "$vmlinuz" | head -c "$length" |
		xz -dc --single-stream >"$KC/vmlinux.tmp"
	[ "$(od -An -c -N4 "$KC/vmlinux.tmp" | tr -d ' ')" = 177ELF ] ||
		die "decompressed payload of $vmlinuz is not an ELF file"
	mv "$KC/vmlinux.tmp" "$KC/vmlinux"
}

# Same objcopy as scripts/link-vmlinux.sh uses to make the kernel's .btf.o.
extract_btf() {
	[ -f "$KC/vmlinux.btf" ] && return 0
	log "extracting .BTF"
	objcopy --only-section=.BTF --set-section-flags .BTF=alloc,readonly \
		--strip-all "$KC/vmlinux" "$KC/vmlinux.btf.tmp" 2>/dev/null
	mv "$KC/vmlinux.btf.tmp" "$KC/vmlinux.btf"
}

# One pass over the source tarball yields both resolve_btfids' sources and
# the kselftest headers.
extract_source() {
	src=$1
	log "extracting tools from $SRC_TARBALL"
	[ -f "$SRC_TARBALL" ] || die "$SRC_TARBALL missing: run make deps"
	rm -rf "$src"
	mkdir -p "$src"
	tar -xJf "$SRC_TARBALL" -C "$src" --strip-components=1 \
		linux-source-6.1/scripts/bpf_doc.py \
		linux-source-6.1/tools/arch \
		linux-source-6.1/tools/bpf/resolve_btfids \
		linux-source-6.1/tools/build \
		linux-source-6.1/tools/include \
		linux-source-6.1/tools/lib \
		linux-source-6.1/tools/scripts \
		linux-source-6.1/tools/testing/selftests/kselftest.h \
		linux-source-6.1/tools/testing/selftests/kselftest_harness.h
}

make_ksft() {
	src=$1
	rm -rf "$KSFT.tmp"
	mkdir -p "$KSFT.tmp"
	cp "$src"/tools/testing/selftests/kselftest.h \
		"$src"/tools/testing/selftests/kselftest_harness.h "$KSFT.tmp"
	rm -rf "$KSFT"
	mv "$KSFT.tmp" "$KSFT"
}

# The objtree's relative symlinks (scripts, tools) become absolute so the
# copy still reaches linux-kbuild; tools/ becomes a real directory because
# resolve_btfids must live inside it.
make_kdir() {
	src=$1
	kbuild_tools=$(readlink -f "$HEADERS/tools")
	log "building resolve_btfids"
	make -s -C "$src/tools/bpf/resolve_btfids" -j"$(nproc)" >/dev/null ||
		die "building resolve_btfids failed"
	rm -rf "$KC/kdir.tmp"
	cp -a "$HEADERS" "$KC/kdir.tmp"
	for link in $(cd "$HEADERS" && find . -type l); do
		ln -sfn "$(readlink -f "$HEADERS/$link")" "$KC/kdir.tmp/$link"
	done
	rm "$KC/kdir.tmp/tools"
	mkdir -p "$KC/kdir.tmp/tools/bpf/resolve_btfids"
	for tool in "$kbuild_tools"/*; do
		ln -s "$tool" "$KC/kdir.tmp/tools/"
	done
	cp "$src/tools/bpf/resolve_btfids/resolve_btfids" \
		"$KC/kdir.tmp/tools/bpf/resolve_btfids/"
	cp "$KC/vmlinux.btf" "$KC/kdir.tmp/vmlinux"
	mv "$KC/kdir.tmp" "$KC/kdir"
}

build_trees() {
	[ -d "$KC/kdir" ] && [ -d "$KSFT" ] && return 0
	src=$KC/src.tmp
	extract_source "$src"
	[ -d "$KSFT" ] || make_ksft "$src"
	[ -d "$KC/kdir" ] || make_kdir "$src"
	rm -rf "$src"
}

write_kernel_mk() {
	mk=$CACHE/kernel.mk
	cat >"$mk.tmp" <<-EOF
		# Generated by scripts/kernel.sh: do not edit.
		KERNEL_ABI := $ABI
		KERNEL_CACHE := $KC
		KDIR := $KC/kdir
		KSFT_DIR := $KSFT
		GUEST_VMLINUX := $KC/vmlinux
		GUEST_VMLINUZ := $KC/image/boot/vmlinuz-$KREL
		GUEST_MODULES := $KC/image/lib/modules/$KREL
	EOF
	mv "$mk.tmp" "$mk"
}

mkdir -p "$CACHE"
# Serialise concurrent runs (parallel make, several shells) on the cache.
exec 9>"$CACHE/.kernel.lock"
flock 9

check_version
mkdir -p "$KC"
[ -f "$KC/version" ] || echo "$PKG_VERSION" >"$KC/version"
fetch_image
decompress_vmlinux
extract_btf
build_trees
write_kernel_mk
