#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the Debian packages (make deb), on the host.
#
# make deb in a fresh clone writes the two packages, the source package and
# the build's records to dist/; lintian finds no error and no warning in
# any of them (the overrides in debian/ aside, each one shown); each
# package holds exactly the expected files, the configuration files are
# conffiles, and the paths are /usr's, not /usr/local's. cfctl -V and the
# module that dkms.conf's MAKE line builds (for the guest kernel, KERNEL=)
# both carry debian/changelog's version. dpkg installs, removes and purges
# cfilter in a private root: removal keeps the saved bans and conffiles,
# purge leaves nothing dpkg does not know of. The maintainer scripts,
# run as on a systemd machine, stop the unit on removal and neither stop
# nor restart it on an upgrade.
#
# Prints TAP lines; exit status 0 when every check passed.
set -euo pipefail
cd "$(dirname "$0")/../.."

export KERNEL=${KERNEL:-6.1}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cfilter-deb-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# shellcheck source=tests/lib/tap.sh
. tests/lib/tap.sh

# same NAME EXPECTED-FILE ACTUAL-FILE, the difference as TAP comments
same() {
	diff -u "$1" "$2" | sed 's/^/# /'
	cmp -s "$1" "$2"
}

not_grep() {
	! grep -q "$@"
}

# A package's files and folders as "MODE ./PATH", folders ending in '/'.
contents() {
	dpkg-deb -c "$1" | awk '{ print $1, $6 }' | LC_ALL=C sort
}

# The "MODE ./PATH" lines of files on stdin, with the folders that hold
# them, as contents() prints them.
with_folders() {
	awk '{
		print
		path = $2
		while (sub(/[^\/]*\/?$/, "", path) && path != "")
			print "drwxr-xr-x " path
	}' | LC_ALL=C sort -u
}

# The packages are built as a clone has the tree: committed files only.
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "1..0 # SKIP not a git clone"
	echo "packages: 0 passed, 0 failed"
	exit 0
fi
src=$WORK/clone
git clone -q . "$src"
version=$(cd "$src" && dpkg-parsechangelog -S Version)
dist=$src/dist
deb=$dist/cfilter_${version}_amd64.deb
dkms_deb=$dist/cfilter-dkms_${version}_all.deb

build() {
	make -C "$src" -s deb >"$WORK/build.log" 2>&1 || {
		sed 's/^/# /' "$WORK/build.log"
		return 1
	}
}
check "make deb in a fresh clone" build

printf '%s\n' build.log \
	"cfilter-dkms_${version}_all.deb" "cfilter_${version}.dsc" \
	"cfilter_${version}.tar.xz" "cfilter_${version}_amd64.buildinfo" \
	"cfilter_${version}_amd64.changes" "cfilter_${version}_amd64.deb" \
	>"$WORK/dist.expected"
find "$dist" -mindepth 1 -printf '%f\n' | LC_ALL=C sort >"$WORK/dist"
check "dist/ holds the packages, the source package and the build records" \
	same "$WORK/dist.expected" "$WORK/dist"

# --show-overrides prints the overridden tags as O: lines: they prove that
# lintian looked into cfctl, and are the only ones allowed. Shown, they
# count as found for lintian's exit status (2), which is therefore not
# asked; 1 is lintian's own failure.
lint() {
	local out=$WORK/lintian status=0

	lintian --pedantic --display-info --show-overrides \
		"$dist/cfilter_${version}_amd64.changes" >"$out" 2>&1 || status=$?
	sed 's/^/# lintian: /' "$out"
	printf '# lintian: %s errors, %s warnings, %s info, %s pedantic, %s overridden\n' \
		"$(grep -c '^E:' "$out")" "$(grep -c '^W:' "$out")" \
		"$(grep -c '^I:' "$out")" "$(grep -c '^P:' "$out")" \
		"$(grep -c '^O:' "$out")"
	printf '%s\n' 'O: cfilter: embedded-library zlib [usr/sbin/cfctl]' \
		'O: cfilter: statically-linked-binary [usr/sbin/cfctl]' >"$WORK/lint.expected"
	grep '^O:' "$out" | LC_ALL=C sort >"$WORK/lint.overridden"
	[ "$status" -ne 1 ] && ! grep -q '^[EW]:' "$out" &&
		same "$WORK/lint.expected" "$WORK/lint.overridden"
}
check "lintian: no error, no warning in the .changes, .dsc and .debs" lint

with_folders >"$WORK/cfilter.expected" <<EOF
-rw-r--r-- ./etc/cfilter/interfaces
-rw-r--r-- ./etc/fail2ban/action.d/cfilter.conf
-rw-r--r-- ./lib/systemd/system/cfilter.service
-rwxr-xr-x ./usr/libexec/cfilter/cfilter-boot
-rwxr-xr-x ./usr/libexec/cfilter/cfilter-crowdsec
-rwxr-xr-x ./usr/sbin/cfctl
-rw-r--r-- ./usr/share/bash-completion/completions/cfctl
-rw-r--r-- ./usr/share/doc/cfilter/README.Debian
-rw-r--r-- ./usr/share/doc/cfilter/changelog.gz
-rw-r--r-- ./usr/share/doc/cfilter/copyright
-rw-r--r-- ./usr/share/doc/cfilter/examples/cfilter.rules.yml
-rw-r--r-- ./usr/share/doc/cfilter/examples/crowdsec-custom-bouncer.yaml.local
-rw-r--r-- ./usr/share/doc/cfilter/examples/modprobe-cfilter.conf
-rw-r--r-- ./usr/share/lintian/overrides/cfilter
-rw-r--r-- ./usr/share/man/man8/cfctl.8.gz
EOF
contents "$deb" >"$WORK/cfilter.contents" || true
check "cfilter holds exactly the expected files" \
	same "$WORK/cfilter.expected" "$WORK/cfilter.contents"

# The module's sources are what git has of them, scripts executable.
dkms_expected() {
	local f mode

	printf '%s\n' "-rw-r--r-- ./usr/share/doc/cfilter-dkms/changelog.gz" \
		"-rw-r--r-- ./usr/share/doc/cfilter-dkms/copyright" \
		"-rw-r--r-- ./usr/src/cfilter-$version/dkms.conf"
	git -C "$src" ls-files Kbuild core kmod include btf | while read -r f; do
		mode=-rw-r--r--
		[ -x "$src/$f" ] && mode=-rwxr-xr-x
		echo "$mode ./usr/src/cfilter-$version/$f"
	done
}
dkms_expected | with_folders >"$WORK/dkms.expected"
contents "$dkms_deb" >"$WORK/dkms.contents" || true
check "cfilter-dkms holds the module's sources and dkms.conf" \
	same "$WORK/dkms.expected" "$WORK/dkms.contents"

root=$WORK/cfilter
dkms_root=$WORK/cfilter-dkms
mkdir "$root" "$dkms_root"
dpkg-deb -R "$deb" "$root" 2>/dev/null || true
dpkg-deb -R "$dkms_deb" "$dkms_root" 2>/dev/null || true

printf '%s\n' /etc/cfilter/interfaces /etc/fail2ban/action.d/cfilter.conf \
	>"$WORK/conffiles.expected"
check "the files in /etc are conffiles" \
	same "$WORK/conffiles.expected" "$root/DEBIAN/conffiles"
check "cfilter depends on cfilter-dkms of its version" \
	test "$(dpkg-deb -f "$deb" Depends)" = "cfilter-dkms (= $version), kmod"
# What build-module.sh runs besides the kernel's own build: objcopy, the C
# library's headers for the resolver, pahole, and the unpacker of the image.
check "cfilter-dkms depends on dkms and on what btf/ runs" \
	test "$(dpkg-deb -f "$dkms_deb" Depends)" = \
	"binutils, libc6-dev, dwarves, xz-utils | zstd, dkms (>= 2.1.0.0)"
check "/etc/cfilter/interfaces is all comments" \
	not_grep -v '^#' "$root/etc/cfilter/interfaces"

check "no packaged file names /usr/local or a @PLACEHOLDER@" \
	not_grep -rlE '/usr/local|@[A-Z]+@' "$root/etc" "$root/lib" \
	"$root/usr/libexec" "$root/usr/share/doc/cfilter/examples"

unit_paths() {
	sed -e 's|@SBINDIR@|/usr/sbin|g' -e 's|@LIBEXECDIR@|/usr/libexec|g' \
		"$src/packaging/cfilter.service.in" >"$WORK/unit.expected"
	same "$WORK/unit.expected" "$root/lib/systemd/system/cfilter.service"
}
check "cfilter.service is the template with /usr's paths" unit_paths

# The unit as packaged, its paths pointed into the unpacked package, and
# the man page it names found there.
verify_unit() {
	local unit=$WORK/unit/cfilter.service

	command -v systemd-analyze >/dev/null || {
		echo "# systemd-analyze not installed: unit not verified"
		return 0
	}
	mkdir -p "$WORK/unit"
	sed -e "s|/usr/libexec/|$root/usr/libexec/|g" -e "s|/usr/sbin/|$root/usr/sbin/|g" \
		"$root/lib/systemd/system/cfilter.service" >"$unit"
	MANPATH=$root/usr/share/man systemd-analyze verify "$unit"
}
check "cfilter.service passes systemd-analyze verify" verify_unit

check "cfctl -V prints debian/changelog's version" \
	test "$("$root/usr/sbin/cfctl" -V | head -n 1)" = "cfctl $version"

# What DKMS does: copy /usr/src/cfilter-VERSION to its tree's build folder
# and run dkms.conf's MAKE[0] there, with the variables dkms.conf uses.
dkms_build() {
	local kdir btf tree=$WORK/dkms

	kdir=$(sed -n 's/^KDIR := //p' ".cache/kernel-$KERNEL.mk")
	# The guest kernel's image is not in the host's /boot.
	btf=$(sed -n 's/^BTF_SOURCE := //p' ".cache/kernel-$KERNEL.mk")
	mkdir -p "$tree/cfilter/$version"
	cp -a "$dkms_root/usr/src/cfilter-$version" "$tree/cfilter/$version/build"
	# shellcheck disable=SC2034,SC1090 # dkms.conf reads both, sets MAKE
	(kernel_source_dir=$kdir dkms_tree=$tree
	 export BTF_SOURCE=$btf
	 . "$tree/cfilter/$version/build/dkms.conf"
	 cd "$tree/cfilter/$version/build" && eval "${MAKE[0]}") \
		>"$WORK/dkms.log" 2>&1 || {
		sed 's/^/# /' "$WORK/dkms.log"
		return 1
	}
	test "$(modinfo -F version "$tree/cfilter/$version/build/cfilter.ko")" = "$version"
}
scripts/vm/kernel.sh "$KERNEL" >"$WORK/kernel.log" 2>&1 || sed 's/^/# /' "$WORK/kernel.log"
check "dkms.conf's version is debian/changelog's" \
	grep -qx "PACKAGE_VERSION=\"$version\"" "$dkms_root/usr/src/cfilter-$version/dkms.conf"
check "the module dkms.conf's MAKE builds has debian/changelog's version" dkms_build

# dpkg on a private root: the maintainer scripts run outside it with
# DPKG_ROOT set (debhelper's parts and ours honour it), starting nothing.
# The root has what systemd's package and another enabled service would
# have made there.
target=$WORK/target
mkdir -p "$target/var/lib/dpkg/info" "$target/var/lib/dpkg/updates" \
	"$target/etc/systemd/system/multi-user.target.wants" \
	"$target/var/lib/systemd/deb-systemd-helper-enabled"
touch "$target/var/lib/dpkg/status" \
	"$target/var/lib/systemd/deb-systemd-helper-enabled/other.service.dsh-also"
ln -s /lib/systemd/system/other.service \
	"$target/etc/systemd/system/multi-user.target.wants/other.service"
in_target() {
	dpkg --root="$target" --force-script-chrootless --force-depends \
		--log=/dev/null "$@" >"$WORK/dpkg.log" 2>&1 || {
		sed 's/^/# /' "$WORK/dpkg.log"
		return 1
	}
}
# Every path in the root but dpkg's database.
target_tree() {
	(cd "$target" && find . -path ./var/lib/dpkg -prune -o -print | LC_ALL=C sort)
}
target_tree >"$WORK/before"
check "dpkg installs cfilter" in_target -i "$deb"
check "the installed unit is enabled" \
	test -L "$target/etc/systemd/system/multi-user.target.wants/cfilter.service"
# What the unit leaves in its StateDirectory (cfilter-boot stop), and an
# operator's interface.
mkdir -p "$target/var/lib/cfilter"
for f in blocklist blocklist.old blocklist.new; do
	echo "192.0.2.1 expires 2000000000" >"$target/var/lib/cfilter/$f"
done
echo eth0 >>"$target/etc/cfilter/interfaces"
check "dpkg removes cfilter" in_target -r cfilter
check "removal keeps the saved bans" \
	test -s "$target/var/lib/cfilter/blocklist" -a -s "$target/var/lib/cfilter/blocklist.old"
check "removal keeps the conffiles" \
	grep -qx eth0 "$target/etc/cfilter/interfaces"
check "removal takes cfctl" test ! -e "$target/usr/sbin/cfctl"
check "dpkg purges cfilter" in_target -P cfilter
target_tree >"$WORK/after"
check "purge leaves nothing dpkg does not know of" same "$WORK/before" "$WORK/after"

# The maintainer scripts as on a machine running systemd: in a mount
# namespace whose /run has systemd's folder, with the helpers they call
# replaced by ones that log their arguments.
scripts_call() {
	local log=$WORK/calls stubs=$WORK/stubs cmd

	mkdir -p "$stubs"
	for cmd in deb-systemd-invoke deb-systemd-helper systemctl; do
		printf '#!/bin/sh\necho "%s $*" >>%s\n' "$cmd" "$log" >"$stubs/$cmd"
		chmod 755 "$stubs/$cmd"
	done
	: >"$log"
	# shellcheck disable=SC2016 # expanded by the inner shell
	PATH=$stubs:$PATH unshare -m sh -c '
		mount -t tmpfs cfilter-test /run && mkdir -p /run/systemd/system &&
		"$0" "$@"' "$root/DEBIAN/$1" "${@:2}" >/dev/null 2>&1 || return 1
	grep '^deb-systemd-invoke' "$log" || true
}
check "prerm stops the unit on removal (it saves the bans)" \
	test "$(scripts_call prerm remove)" = "deb-systemd-invoke stop cfilter.service"
check "postinst starts the unit on first install" \
	test "$(scripts_call postinst configure '')" = "deb-systemd-invoke start cfilter.service"
check "prerm leaves the unit running on upgrade" \
	test -z "$(scripts_call prerm upgrade "$version")"
# start leaves a running unit as it is (no ExecStop, no ExecStart); it
# starts one that was stopped, which loads the saved bans.
check "postinst on upgrade only starts the unit, never restarts it" \
	test "$(scripts_call postinst configure "$version")" = "deb-systemd-invoke start cfilter.service"

echo "packages: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
