#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Prepare a guest kernel and a module build tree that produces module BTF.
#
# Usage: scripts/kernel.sh [KERNEL]   KERNEL: 6.1 (default) or 6.12
#        scripts/kernel.sh --list     print the supported kernels
#
#   6.1   Debian 12 (bookworm): the same build as the installed
#         linux-headers-amd64.
#   6.12  Debian 13 (trixie) LTS: the build trixie's linux-headers-amd64
#         depends on when first prepared; the choice is pinned in
#         .cache/kernel-6.12.pin and reused until that file is removed.
#
# The guest boots exactly the build the module is compiled against, so the
# module's BTF is generated against the base BTF the guest exposes (on a
# mismatch the kernel silently drops module BTF because of
# CONFIG_MODULE_ALLOW_BTF_MISMATCH, and the kfunc vanishes).
#
# Everything lands in .cache/ (each step is built under a *.tmp name and
# renamed into place, so an interrupted run leaves nothing half made):
#   .cache/linux-<ABI>/         one kernel build (see prepare_61/prepare_612)
#   .cache/ksft/                kselftest.h, kselftest_harness.h
#   .cache/kernel-<KERNEL>.mk   paths and build arguments of one kernel, for
#                               make and scripts/vm-run.sh
#
# scripts/Makefile.modfinal runs "pahole --btf_base vmlinux" and
# "$(objtree)/tools/bpf/resolve_btfids/resolve_btfids -b vmlinux" on a module
# only when ./vmlinux exists in the objtree (the make -C directory, also for
# M= builds): each kernel's KDIR supplies both.

set -eu

SUPPORTED="6.1 6.12"

die() {
	echo "kernel.sh: $*" >&2
	exit 1
}

log() {
	echo "kernel.sh: $*"
}

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# The real path: checkouts may share one .cache through a symbolic link,
# and the paths written below must not depend on which one wrote them.
mkdir -p "$ROOT/.cache"
CACHE=$(cd "$ROOT/.cache" && pwd -P)
KSFT=$CACHE/ksft
SRC_TARBALL=/usr/src/linux-source-6.1.tar.xz

# ---- shared steps --------------------------------------------------------

# The bzImage setup header (Documentation/arch/x86/boot.rst) gives the number
# of setup sectors (0x1f1) and the compressed payload's offset from the start
# of the protected-mode code (0x248) and its length (0x24c).
header_u8() {
	od -An -tu1 -j "$2" -N1 "$1" | tr -d ' '
}

header_u32() {
	od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '
}

# Decompress bzImage $1 to the kernel ELF $2, which qemu boots through its
# PVH entry, skipping seconds of decompression under TCG. The payload ends
# with the 4-byte uncompressed size, which is not part of the stream.
# Fails (status 1) only when the decompressor is not installed.
decompress_vmlinux() {
	vmlinuz=$1
	out=$2
	[ -f "$out" ] && return 0
	[ "$(od -An -c -j 514 -N4 "$vmlinuz" | tr -d ' ')" = HdrS ] ||
		die "$vmlinuz is not a bzImage"
	setup_sects=$(header_u8 "$vmlinuz" 497)
	[ "$setup_sects" -ne 0 ] || setup_sects=4
	offset=$(((setup_sects + 1) * 512 + $(header_u32 "$vmlinuz" 584)))
	length=$(($(header_u32 "$vmlinuz" 588) - 4))
	magic=$(od -An -tx1 -j "$offset" -N6 "$vmlinuz" | tr -d ' ')
	case $magic in
	fd377a585a00) unpack="xz -dc" ;;
	28b52ffd*) unpack="zstd -dcq" ;;
	*) die "$vmlinuz payload is neither xz nor zstd (magic $magic): teach kernel.sh that format" ;;
	esac
	if ! command -v "${unpack%% *}" >/dev/null; then
		log "${unpack%% *} not found: the guest boots the bzImage, some seconds slower (apt-get install ${unpack%% *})"
		return 1
	fi
	log "decompressing $vmlinuz"
	tail -c "+$((offset + 1))" "$vmlinuz" | head -c "$length" |
		$unpack >"$out.tmp"
	[ "$(od -An -c -N4 "$out.tmp" | tr -d ' ')" = 177ELF ] ||
		die "decompressed payload of $vmlinuz is not an ELF file"
	mv "$out.tmp" "$out"
}

# The kselftest headers come from the 6.1 source tarball whatever the guest
# kernel: they are userspace headers, and the selftests are built once. $1,
# when given, is a folder already holding the tarball's tools/testing.
make_ksft() {
	[ -d "$KSFT" ] && return 0
	rm -rf "$KSFT.tmp"
	mkdir -p "$KSFT.tmp"
	if [ $# -eq 1 ]; then
		cp "$1"/tools/testing/selftests/kselftest.h \
			"$1"/tools/testing/selftests/kselftest_harness.h "$KSFT.tmp"
	else
		log "extracting the kselftest headers from $SRC_TARBALL"
		[ -f "$SRC_TARBALL" ] || die "$SRC_TARBALL missing: run make deps"
		tar -xJf "$SRC_TARBALL" -C "$KSFT.tmp" --strip-components=4 \
			linux-source-6.1/tools/testing/selftests/kselftest.h \
			linux-source-6.1/tools/testing/selftests/kselftest_harness.h
	fi
	mv "$KSFT.tmp" "$KSFT"
}

# write_kernel_mk KERNEL KDIR VMLINUX VMLINUZ MODULES KBUILD_ARGS MODULE_DIR
# MODULE_DIR is where make builds cfilter.ko for this kernel, relative to the
# root of the checkout ("." for the root itself). It is written relative
# (make sees $(CURDIR)/..., scripts a path relative to the root), so that
# checkouts sharing one .cache (git worktrees) each build their own module.
write_kernel_mk() {
	local mk=$CACHE/kernel-$1.mk dir='$(CURDIR)' ko=cfilter.ko

	if [ "$7" != . ]; then
		dir=$dir/$7
		ko=$7/$ko
	fi
	cat >"$mk.tmp" <<-EOF
		# Generated by scripts/kernel.sh $1: do not edit.
		KERNEL_ABI := $ABI
		KERNEL_CACHE := $KC
		KDIR := $2
		KBUILD_ARGS := $6
		MODULE_DIR := $dir
		CFILTER_KO := $ko
		KSFT_DIR := $KSFT
		GUEST_VMLINUX := $3
		GUEST_VMLINUZ := $4
		GUEST_MODULES := $5
	EOF
	mv "$mk.tmp" "$mk"
}

# ---- 6.1: Debian 12, the installed headers -------------------------------
#   .cache/linux-<ABI>/image/        unpacked linux-image-<ABI>-amd64 package
#   .cache/linux-<ABI>/vmlinux       decompressed kernel ELF
#   .cache/linux-<ABI>/vmlinux.btf   its .BTF section only
#   .cache/linux-<ABI>/kdir/         copy of the headers objtree plus vmlinux
#                                    (= vmlinux.btf) and resolve_btfids, both
#                                    of which Debian 12's headers lack

read_abi_61() {
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
	[ -f "$HEADERS/Makefile" ] ||
		die "$HEADERS missing (broken linux-headers-$KREL?): run make deps"
}

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
image_package_61() {
	for pkg in linux-image-$KREL linux-image-$KREL-unsigned; do
		if apt-cache show "$pkg=$PKG_VERSION" >/dev/null 2>&1; then
			echo "$pkg"
			return 0
		fi
	done
	die "linux-image-$KREL $PKG_VERSION not in the apt lists: run apt-get update"
}

fetch_image_61() {
	[ -d "$KC/image" ] && return 0
	pkg=$(image_package_61)
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
build_resolve_btfids() {
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
	log "building resolve_btfids"
	make -s -C "$src/tools/bpf/resolve_btfids" -j"$(nproc)" >/dev/null ||
		die "building resolve_btfids failed"
}

# The objtree's relative symlinks (scripts, tools) become absolute so the
# copy still reaches linux-kbuild; tools/ becomes a real directory because
# resolve_btfids must live inside it.
make_kdir_61() {
	[ -d "$KC/kdir" ] && return 0
	src=$KC/src.tmp
	build_resolve_btfids "$src"
	kbuild_tools=$(readlink -f "$HEADERS/tools")
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
	make_ksft "$src"
	rm -rf "$src"
	mv "$KC/kdir.tmp" "$KC/kdir"
}

prepare_61() {
	read_abi_61
	check_version
	mkdir -p "$KC"
	[ -f "$KC/version" ] || echo "$PKG_VERSION" >"$KC/version"
	fetch_image_61
	decompress_vmlinux "$KC/image/boot/vmlinuz-$KREL" "$KC/vmlinux" ||
		die "the .BTF section is read from the decompressed kernel: run make deps"
	extract_btf
	make_kdir_61
	make_ksft
	write_kernel_mk 6.1 "$KC/kdir" "$KC/vmlinux" \
		"$KC/image/boot/vmlinuz-$KREL" "$KC/image/lib/modules/$KREL" \
		"" .
}

# ---- 6.12: Debian 13, fetched with a private apt configuration ------------
#   .cache/apt-trixie/               apt's sources, lists and package cache for
#                                    trixie; the system's are never touched
#   .cache/kernel-6.12.pin           "<ABI> <version>" chosen on first use
#   .cache/linux-<ABI>/root/         the image, headers, kbuild and the
#                                    trixie libraries its helpers need, all
#                                    unpacked; the headers already ship a
#                                    BTF-only vmlinux and resolve_btfids
#   .cache/linux-<ABI>/vmlinux       decompressed kernel ELF
#
# trixie's kbuild helpers modpost, objtool and resolve_btfids need glibc 2.38
# (bookworm has 2.36): each becomes a script running the real binary through
# trixie's own dynamic loader and libraries. Trixie's headers name gcc-14 and
# pahole 1.30; with bookworm's gcc 12 and pahole 1.24, KBUILD_ARGS tell
# kbuild so.

APT_DIR=$CACHE/apt-trixie
PIN_612=$CACHE/kernel-6.12.pin
TRIXIE_LIBS="libc6 libelf1t64 zlib1g libzstd1"

apt_trixie() {
	cmd=$1
	shift
	"$cmd" -q -o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$APT_DIR/sources" \
		-o Dir::State::Lists="$APT_DIR/lists" \
		-o Dir::State::Status=/dev/null \
		-o Dir::Cache="$APT_DIR/cache" \
		-o APT::Sandbox::User=root "$@"
}

update_trixie_lists() {
	[ -f "$APT_DIR/updated" ] && return 0
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -f "$keyring" ] || die "$keyring missing: apt-get install debian-archive-keyring"
	mkdir -p "$APT_DIR/sources" "$APT_DIR/lists/partial" \
		"$APT_DIR/cache/archives/partial"
	cat >"$APT_DIR/sources/trixie.sources" <<-EOF
		Types: deb
		URIs: http://deb.debian.org/debian
		Suites: trixie trixie-updates
		Components: main
		Signed-By: $keyring

		Types: deb
		URIs: http://deb.debian.org/debian-security
		Suites: trixie-security
		Components: main
		Signed-By: $keyring
	EOF
	log "reading trixie's package lists"
	apt_trixie apt-get update >/dev/null ||
		die "apt-get update for trixie failed (network? see the output above)"
	touch "$APT_DIR/updated"
}

# The first run resolves trixie's current kernel ABI and version; every later
# run reuses them, offline once the cache is complete.
read_abi_612() {
	if [ ! -f "$PIN_612" ]; then
		update_trixie_lists
		abi=$(apt_trixie apt-cache depends linux-headers-amd64 |
			sed -n 's/^ *Depends: linux-headers-\(.*\)-amd64$/\1/p' | head -n 1)
		[ -n "$abi" ] ||
			die "cannot read the kernel ABI from trixie's linux-headers-amd64"
		version=$(apt_trixie apt-cache show --no-all-versions \
			"linux-headers-$abi-amd64" | sed -n 's/^Version: //p')
		[ -n "$version" ] || die "no version of linux-headers-$abi-amd64 in trixie"
		echo "$abi $version" >"$PIN_612"
		log "pinned trixie's kernel $abi ($version) in $PIN_612"
	fi
	read -r ABI PKG_VERSION <"$PIN_612"
	KREL=$ABI-amd64
	KC=$CACHE/linux-$ABI
}

fetch_612() {
	[ -d "$KC/root" ] && return 0
	update_trixie_lists
	pkgs="linux-image-$KREL-unsigned=$PKG_VERSION
		linux-headers-$KREL=$PKG_VERSION
		linux-headers-$ABI-common=$PKG_VERSION
		linux-kbuild-$ABI=$PKG_VERSION
		$TRIXIE_LIBS"
	log "downloading trixie's kernel $ABI ($PKG_VERSION) and libraries"
	rm -rf "$KC/deb.tmp" "$KC/root.tmp"
	mkdir -p "$KC/deb.tmp"
	# shellcheck disable=SC2086 # one word per package
	if ! (cd "$KC/deb.tmp" && apt_trixie apt-get download $pkgs >/dev/null); then
		die "downloading $KREL $PKG_VERSION failed; if trixie no longer has it, remove $PIN_612 to move to its current kernel"
	fi
	log "unpacking"
	for deb in "$KC"/deb.tmp/*.deb; do
		dpkg-deb -x "$deb" "$KC/root.tmp"
	done
	rm -rf "$KC/deb.tmp"
	adapt_kbuild_612 "$KC/root.tmp"
	mv "$KC/root.tmp" "$KC/root"
}

# $1: the unpacked root (its final place is $KC/root).
adapt_kbuild_612() {
	tmp=$1
	final=$KC/root
	headers=usr/src/linux-headers-$KREL
	kbuild=usr/lib/linux-kbuild-$ABI
	loader=$final/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
	[ -f "$tmp/boot/vmlinuz-$KREL" ] || die "linux-image-$KREL has no boot/vmlinuz-$KREL"
	[ -f "$tmp/$headers/vmlinux" ] || die "linux-headers-$KREL has no vmlinux"

	# The objtree's Makefile includes the common tree by absolute path.
	sed -i "s|^include /usr/src/|include $final/usr/src/|" "$tmp/$headers/Makefile"

	for helper in scripts/mod/modpost.real-lsb-64 \
		      tools/objtool/objtool.real-x86 \
		      tools/bpf/resolve_btfids/resolve_btfids; do
		bin=$tmp/$kbuild/$helper
		[ -f "$bin" ] || die "linux-kbuild-$ABI has no $helper"
		mv "$bin" "$bin.bin"
		printf '#!/bin/sh\n# trixie binary: needs trixie'"'"'s glibc\nexec %s --library-path %s %s "$@"\n' \
			"$loader" "$final/usr/lib/x86_64-linux-gnu" \
			"$final/$kbuild/$helper.bin" >"$bin"
		chmod 755 "$bin"
	done
}

# Kbuild arguments for building against trixie's headers with bookworm's
# compiler and pahole (none when the host has trixie's own).
kbuild_args_612() {
	cc=x86_64-linux-gnu-gcc-14
	if ! command -v "$cc" >/dev/null; then
		gcc_major=$(gcc -dumpversion | cut -d. -f1)
		# -fmin-function-alignment needs gcc 14.
		printf 'CC=x86_64-linux-gnu-gcc-%s CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT= ' \
			"$gcc_major"
	fi
	pahole=$(pahole --version 2>/dev/null | sed -n 's/^v\([0-9]*\)\.\([0-9]*\)$/\1\2/p')
	[ -n "$pahole" ] || die "pahole not found: run make deps"
	echo "CONFIG_PAHOLE_VERSION=$pahole"
}

prepare_612() {
	read_abi_612
	mkdir -p "$KC"
	fetch_612
	root=$KC/root
	vmlinuz=$root/boot/vmlinuz-$KREL
	vmlinux=$KC/vmlinux
	decompress_vmlinux "$vmlinuz" "$vmlinux" || vmlinux=$vmlinuz
	make_ksft
	write_kernel_mk 6.12 "$root/usr/src/linux-headers-$KREL" "$vmlinux" \
		"$vmlinuz" "$root/usr/lib/modules/$KREL" "$(kbuild_args_612)" \
		.cache/build-6.12
}

# ---- main ----------------------------------------------------------------

KERNEL=${1:-6.1}
[ $# -le 1 ] || die "usage: scripts/kernel.sh [KERNEL | --list]"
if [ "$KERNEL" = --list ]; then
	echo "$SUPPORTED"
	exit 0
fi

mkdir -p "$CACHE"
# Serialise concurrent runs (parallel make, several shells) on the cache.
exec 9>"$CACHE/.kernel.lock"
flock 9

case $KERNEL in
6.1) prepare_61 ;;
6.12) prepare_612 ;;
*) die "unknown kernel '$KERNEL': supported are $SUPPORTED (any other: make KDIR=<kernel build dir> module)" ;;
esac
