#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of module BTF (btf/): the resolver against the kernel's own
# resolve_btfids, and btf/build-module.sh on Debian 12's stock headers.
#
# - btf/resolve_btfids writes, byte for byte, what Debian 13's
#   resolve_btfids wrote into the 6.12 module (make KERNEL=6.12 module), and
#   what it writes into an object with a set8 to sort (btf_ids_fixture.c);
#   it refuses names it cannot resolve and kinds it does not know, and
#   --check tells a resolved module from one without BTF or ids.
# - build-module.sh builds cfilter.ko against /usr/src/linux-headers-<6.1>
#   with a /boot-style vmlinuz (the cached guest image): the module has BTF
#   and the kfunc's id, and no file of a package changed; it fails, saying
#   what to install, without an image, with an image of another build, for
#   a kernel without CONFIG_DEBUG_INFO_BTF_MODULES, or when pahole writes
#   no BTF.
#
# Prints TAP lines; exit status 0 when every check passed. Fetches and
# builds what it needs for both guest kernels (scripts/vm/kernel.sh).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit
ROOT=$PWD

WORK=$(mktemp -d "${TMPDIR:-/tmp}/cfilter-btf.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# shellcheck source=tests/lib/tap.sh
. tests/lib/tap.sh
RESOLVER=$ROOT/btf/resolve_btfids

# run STATUS TEXT CMD...: CMD exits with STATUS and its stderr holds TEXT.
run() {
	local want=$1 text=$2 rc

	shift 2
	"$@" >"$WORK/out" 2>"$WORK/err"
	rc=$?
	if [ "$rc" -eq "$want" ] && { [ -z "$text" ] || grep -qF -- "$text" "$WORK/err"; }; then
		return 0
	fi
	echo "# exit $rc (expected $want); stderr (expected to hold '$text'):"
	sed 's/^/#   /' "$WORK/err"
	return 1
}

kernel_mk() {
	sed -n "s/^$2 := //p" ".cache/kernel-$1.mk"
}

# File offset of section $2 of ELF file $1.
section_offset() {
	local hex

	hex=$(readelf -SW "$1" | awk -v s="$2" '{ sub(/^ *\[ *[0-9]+\]/, "") } $1 == s { print $4 }')
	echo $((0x$hex))
}

section_bytes() {
	objcopy -O binary --only-section="$2" "$1" "$WORK/section" &&
		od -An -tx1 -v "$WORK/section" | tr -d ' \n'
}

# Offsets in .BTF_ids of the symbols named $2 (a regular expression).
id_symbols() {
	local index hex

	index=$(readelf -SW "$1" | sed -n 's/^ *\[ *\([0-9]*\)\] \.BTF_ids .*/\1/p')
	for hex in $(readelf -sW "$1" | awk -v i="$index" -v re="$2" '$7 == i && $8 ~ re { print $2 }'); do
		echo $((0x$hex))
	done
}

# Zero what resolve_btfids writes: every id, and every set's count; a
# set's flags stay, as the compiler wrote them.
zero_ids() {
	local base off

	base=$(section_offset "$1" .BTF_ids)
	for off in $(id_symbols "$1" '^__BTF_ID__'); do
		dd if=/dev/zero of="$1" bs=1 seek=$((base + off)) count=4 \
			conv=notrunc status=none
	done
}

# u32 at offset $2 of section .BTF_ids.
id_at() {
	od -An -tu4 -j $(($(section_offset "$1" .BTF_ids) + $2)) -N4 "$1" | tr -d ' '
}

# The fixture's set: "ID FLAGS" (decimal, hex) of each pair, in order.
fixture_pairs() {
	local off

	off=$(($(section_offset "$1" .BTF_ids) + 8))
	paste -d' ' <(od -An -tu4 -v -j "$off" -N32 "$1" | awk '{ print $1; print $3 }') \
		<(od -An -tx4 -v -j "$off" -N32 "$1" | awk '{ print $2; print $4 }')
}

fixture_flags() {
	fixture_pairs "$1" | cut -d' ' -f2 | xargs
}

fixture_ids_ascend() {
	fixture_pairs "$1" | cut -d' ' -f1 | sort -c -n
}

# ---- the resolver ---------------------------------------------------------

make -s -C btf || exit 1
make -s module KERNEL=6.12 >"$WORK/make" 2>&1 || {
	sed 's/^/# /' "$WORK/make"
	echo "not ok 1 make module KERNEL=6.12"
	exit 1
}
KDIR_612=$(kernel_mk 6.12 KDIR)
KERNEL_TOOL=$KDIR_612/tools/bpf/resolve_btfids/resolve_btfids
ko612=$(kernel_mk 6.12 CFILTER_KO)

cp "$ko612" "$WORK/612.ko"
zero_ids "$WORK/612.ko"
check "ids zeroed in a copy of the 6.12 module: --check fails, naming the kfunc" \
	run 1 "__BTF_ID__func__bpf_cfilter_match__" "$RESOLVER" --check "$WORK/612.ko"
# resolves_to BASE MODULE EXPECTED
resolves_to() {
	"$RESOLVER" -b "$1" "$2" && cmp "$2" "$3"
}

check "6.12 module: ids written again equal Debian 13's resolve_btfids', whole file" \
	resolves_to "$KDIR_612/vmlinux" "$WORK/612.ko" "$ko612"
check "6.12 module as built: --check passes" "$RESOLVER" --check "$ko612"

gcc -g -O2 -c tests/host/btf_ids_fixture.c -o "$WORK/fixture.o" &&
	pahole -J "$WORK/fixture.o" || exit 1
cp "$WORK/fixture.o" "$WORK/kernel.o"
cp "$WORK/fixture.o" "$WORK/ours.o"
check "fixture: --check fails before resolving" \
	run 1 "__BTF_ID__set8__fixture_set is not resolved" "$RESOLVER" --check "$WORK/ours.o"
check "fixture: the kernel's resolve_btfids resolves it" "$KERNEL_TOOL" "$WORK/kernel.o"
check "fixture: btf/resolve_btfids resolves it" "$RESOLVER" "$WORK/ours.o"
check "fixture: both wrote the same file" cmp "$WORK/kernel.o" "$WORK/ours.o"
check "fixture: the set lists flags 11 22 33 44 as compiled" \
	test "$(fixture_flags "$WORK/fixture.o")" = "00000011 00000022 00000033 00000044"
check "fixture: resolved, the set's ids ascend" fixture_ids_ascend "$WORK/ours.o"
check "fixture: sorting moved the flags with their ids" \
	test "$(fixture_flags "$WORK/ours.o")" != "$(fixture_flags "$WORK/fixture.o")"
check "fixture: --check passes once resolved" "$RESOLVER" --check "$WORK/ours.o"

for variant in UNKNOWN_FUNC STRUCT_ID; do
	gcc -g -O2 -D$variant -c tests/host/btf_ids_fixture.c -o "$WORK/$variant.o" &&
		pahole -J "$WORK/$variant.o" && cp "$WORK/$variant.o" "$WORK/$variant.orig" || exit 1
done
check "a FUNC the BTF lacks: exit 1, named" \
	run 1 "no FUNC 'fixture_missing'" "$RESOLVER" "$WORK/UNKNOWN_FUNC.o"
check "a FUNC the BTF lacks: the file is left as it was" \
	cmp "$WORK/UNKNOWN_FUNC.o" "$WORK/UNKNOWN_FUNC.orig"
check "a struct id: exit 1, refused" \
	run 1 "__BTF_ID__struct__fixture_state__103: only func and set8" \
	"$RESOLVER" "$WORK/STRUCT_ID.o"
# Another kernel's BTF: 6.1's, not the host's, which CI does not choose.
check "the base BTF of another kernel (6.1's): exit 1" \
	run 1 "no FUNC 'bpf_cfilter_match'" "$RESOLVER" -b "$(kernel_mk 6.1 GUEST_VMLINUX)" "$WORK/612.ko"
objcopy --remove-section=.BTF "$ko612" "$WORK/nobtf.ko"
check "a module without .BTF: --check exit 1, says so" \
	run 1 "has no .BTF section" "$RESOLVER" --check "$WORK/nobtf.ko"
check "no module named: usage, exit 2" run 2 "usage:" "$RESOLVER"

# ---- build-module.sh on Debian 12's headers -------------------------------

HEADERS=$(kernel_mk 6.1 KDIR)
VMLINUZ=$(kernel_mk 6.1 GUEST_VMLINUZ)
release=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$HEADERS/include/generated/utsrelease.h")
src=$WORK/src
make -s module-sources MODULE_DIR="$src" >/dev/null || exit 1
rm -f "$src/btf/resolve_btfids"
mkdir -p "$WORK/boot" "$WORK/empty"
ln -s "$(realpath "$VMLINUZ")" "$WORK/boot/vmlinuz-$release"

# build [VAR=VALUE...]: build-module.sh against Debian 12's headers.
build() {
	(cd "$src" && env -u BTF_SOURCE "$@" sh btf/build-module.sh "$HEADERS")
}

build_with_kdir() {
	(cd "$src" && env -u BTF_SOURCE sh btf/build-module.sh "$1")
}

check "build against $HEADERS with BOOT_DIR's vmlinuz-$release" \
	run 0 "" build BOOT_DIR="$WORK/boot"
check "it built in .objtree, with the image's BTF" \
	grep -qF "building in .objtree with the BTF of $WORK/boot/vmlinuz-$release" "$WORK/out"
check "the module has .BTF and passes --check" "$RESOLVER" --check "$src/cfilter.ko"
# The kfunc set's ids: resolve_btfids sorts its pairs by id, so a kfunc's
# id may sit in another kfunc's slot; each must be in the set.
set_ids() {
	local set n i

	set=$(id_symbols "$1" '^__BTF_ID__set8__cfilter_kfunc_ids$')
	n=$(id_at "$1" "$set")
	for ((i = 0; i < n; i++)); do
		id_at "$1" $((set + 8 + 8 * i))
	done
}
ids=" $(set_ids "$src/cfilter.ko" | tr '\n' ' ')"
for kfunc in bpf_cfilter_match bpf_cfilter_entry; do
	kfunc_id=$(bpftool -B "$src/.objtree/vmlinux" btf dump file "$src/cfilter.ko" |
		sed -n "s/^\[\([0-9]*\)\] FUNC '$kfunc' .*/\1/p")
	check "the kfunc set holds $kfunc's BTF id as bpftool reads it ($kfunc_id)" \
		test -n "$kfunc_id" -a -z "${ids##* $kfunc_id *}"
done
vermagic_is() {
	objcopy -O binary --only-section=.modinfo "$1" "$WORK/modinfo" &&
		tr '\0' '\n' <"$WORK/modinfo" | grep -q "^vermagic=$2 "
}

unchanged_packages() {
	[ -z "$(dpkg -V "$@" 2>&1)" ]
}

check "its vermagic is the headers' release" vermagic_is "$src/cfilter.ko" "$release"
mapfile -t packages < <(dpkg -S "$(realpath "$HEADERS")" "$(realpath "$HEADERS/scripts")" \
	"$(sed -n 's/^include //p' "$HEADERS/Makefile" | xargs dirname)" | cut -d: -f1 | sort -u)
check "no file of ${packages[*]} changed" unchanged_packages "${packages[@]}"
btf_sections=$(section_bytes "$src/cfilter.ko" .BTF)$(section_bytes "$src/cfilter.ko" .BTF_ids)
cp "$src/.objtree/vmlinux" "$WORK/raw.btf"

mkdir "$WORK/stub"
printf '#!/bin/sh\nexit 0\n' >"$WORK/stub/pahole"
chmod 755 "$WORK/stub/pahole"
rm "$src/cfilter.ko"
check "pahole writes no BTF: the build fails, naming .BTF" \
	run 1 "no .BTF section" build BOOT_DIR="$WORK/boot" PATH="$WORK/stub:$PATH"

check "raw BTF as BTF_SOURCE: builds" run 0 "" build BTF_SOURCE="$WORK/raw.btf"
check "raw BTF: the same .BTF and .BTF_ids as from the image" \
	test "$(section_bytes "$src/cfilter.ko" .BTF)$(section_bytes "$src/cfilter.ko" .BTF_ids)" = "$btf_sections"

check "an image of another build: exit 3, names both" \
	run 3 "is kernel '$(kernel_mk 6.12 KERNEL_ABI)-amd64" \
	build BTF_SOURCE="$(kernel_mk 6.12 GUEST_VMLINUZ)"
check "a failed build leaves no .objtree.tmp" test ! -e "$src/.objtree.tmp"
if [ "$release" = "$(uname -r)" ]; then
	skip "no image: exit 3, names the package" "the host runs $release"
else
	check "no image: exit 3, names the package" \
		run 3 "apt-get install linux-image-$release" build BOOT_DIR="$WORK/empty"
fi

cp -a "$HEADERS" "$WORK/nobtf-kdir"
sed -i '/^CONFIG_DEBUG_INFO_BTF_MODULES=/d' "$WORK/nobtf-kdir/include/config/auto.conf"
check "kernel without CONFIG_DEBUG_INFO_BTF_MODULES: exit 3, says so" \
	run 3 "built without CONFIG_DEBUG_INFO_BTF_MODULES" \
	build_with_kdir "$WORK/nobtf-kdir"

echo "# $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
