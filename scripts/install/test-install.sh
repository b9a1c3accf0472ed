#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of make install, make uninstall and cfilter.service.
#
# On the host: make install into a DESTDIR puts exactly the expected tree
# there, the unit passes systemd-analyze verify, a second install changes
# nothing, and make uninstall removes all it put, folders that were there
# before excepted. In the guest (scripts/install/test-install-guest.sh, given the
# staged tree as its selftests folder): the unit's commands load the
# module, restore the blocklist, attach, save and detach.
#
# Prints TAP lines; exit status 0 when every check passed.
# KERNEL=6.12 runs the guest half on Debian 13's kernel.
set -euo pipefail
cd "$(dirname "$0")/../.."

export KERNEL=${KERNEL:-6.1}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cfilter-install.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# shellcheck source=tests/lib/tap.sh
. tests/lib/tap.sh

not() {
	! "$@"
}

quiet() {
	"$@" >/dev/null
}

# The tree make install puts in an empty DESTDIR, folders included.
expected_tree() {
	local kver=$1

	printf '%s\n' . ./etc ./etc/fail2ban ./etc/fail2ban/action.d \
		./etc/fail2ban/action.d/cfilter.conf ./lib ./lib/modules "./lib/modules/$kver" \
		"./lib/modules/$kver/updates" "./lib/modules/$kver/updates/cfilter.ko" \
		./usr ./usr/local ./usr/local/lib ./usr/local/lib/systemd \
		./usr/local/lib/systemd/system \
		./usr/local/lib/systemd/system/cfilter.service \
		./usr/local/libexec ./usr/local/libexec/cfilter \
		./usr/local/libexec/cfilter/cfilter-boot \
		./usr/local/libexec/cfilter/cfilter-crowdsec \
		./usr/local/sbin ./usr/local/sbin/cfctl \
		./usr/local/share ./usr/local/share/bash-completion \
		./usr/local/share/bash-completion/completions \
		./usr/local/share/bash-completion/completions/cfctl \
		./usr/local/share/cfilter ./usr/local/share/cfilter/install-manifest \
		./usr/local/share/doc ./usr/local/share/doc/cfilter \
		./usr/local/share/doc/cfilter/crowdsec-custom-bouncer.yaml \
		./usr/local/share/doc/cfilter/interfaces.example \
		./usr/local/share/doc/cfilter/modprobe-cfilter.conf \
		./usr/local/share/man ./usr/local/share/man/man8 \
		./usr/local/share/man/man8/cfctl.8 | LC_ALL=C sort
}

tree() {
	(cd "$1" && find . | LC_ALL=C sort)
}

same_tree() {
	diff -u "$2" <(tree "$1")
}

# The unit as installed, its paths pointed into DESTDIR, and the man page
# it names found there.
verify_unit() {
	local dest=$1 unit=$WORK/unit/cfilter.service

	command -v systemd-analyze >/dev/null || {
		echo "# systemd-analyze not installed: unit not verified"
		return 0
	}
	mkdir -p "$WORK/unit"
	sed "s|/usr/local/|$dest/usr/local/|g" \
		"$dest/usr/local/lib/systemd/system/cfilter.service" >"$unit"
	MANPATH=$dest/usr/local/share/man systemd-analyze verify "$unit"
}

# make install without KDIR is for the running kernel: these name the
# guest's, whose module the guest half boots.
kernel_mk() {
	sed -n "s/^$1 := //p" ".cache/kernel-$KERNEL.mk"
}

install_into() {
	make -s install DESTDIR="$1" KDIR="$(kernel_mk KDIR)" \
		MODULE_DIR="$(kernel_mk MODULE_DIR)" BTF_SOURCE="$(kernel_mk BTF_SOURCE)" \
		KBUILD_ARGS="$(kernel_mk KBUILD_ARGS)" >"$WORK/make.log" 2>&1 || {
		sed 's/^/# /' "$WORK/make.log"
		return 1
	}
}

uninstall_from() {
	make -s uninstall DESTDIR="$1" >"$WORK/make.log" 2>&1 || {
		sed 's/^/# /' "$WORK/make.log"
		return 1
	}
}

make -s module user
kver=$(sed -n 's/^CFILTER_KO := //p' ".cache/kernel-$KERNEL.mk") # from the root
kver=$(objcopy -O binary --only-section=.modinfo "$kver" /dev/stdout |
	tr '\0' '\n' | sed -n 's/^vermagic=\([^ ]*\).*/\1/p')
stage=$WORK/stage
expected_tree "$kver" >"$WORK/expected"

check "install into an empty DESTDIR" install_into "$stage"
check "installed tree is exactly the expected one" same_tree "$stage" "$WORK/expected"
check "installed unit passes systemd-analyze verify" verify_unit "$stage"
check "installed cfctl runs" quiet "$stage/usr/local/sbin/cfctl" --version
tree "$stage" >"$WORK/first"
check "second install succeeds" install_into "$stage"
check "second install changes no path" same_tree "$stage" "$WORK/first"
cp -a "$stage" "$WORK/guest-root"
check "uninstall succeeds" uninstall_from "$stage"
check "uninstall leaves an empty DESTDIR" same_tree "$stage" <(echo .)
check "uninstall without an install fails" not uninstall_from "$stage"

# Without KDIR, make install builds for the running kernel, never for the
# guest's; where that kernel has no build tree, it says what to install.
running_build=/lib/modules/$(uname -r)/build
if [ -e "$running_build" ]; then
	n=$((n + 1))
	echo "ok $n make install without KDIR names the headers # SKIP $running_build exists"
else
	check "make install without KDIR names the running kernel's headers" \
		sh -c 'make -s install DESTDIR="$0" 2>&1 | grep -qF "apt-get install linux-headers-$(uname -r)" &&
		       ! make -s install DESTDIR="$0" >/dev/null 2>&1 &&
		       [ ! -e "$0" ]' "$WORK/no-kdir"
fi

shared=$WORK/shared
mkdir -p "$shared/usr/local/sbin" "$shared/lib/modules"
touch "$shared/usr/local/sbin/other"
tree "$shared" >"$WORK/before"
check "install next to other files" install_into "$shared"
check "uninstall from there succeeds" uninstall_from "$shared"
check "uninstall keeps what was there before" same_tree "$shared" "$WORK/before"

echo "install (host): $((n - failed)) passed, $failed failed"
guest=0
SELFTESTS_DIR=$WORK/guest-root scripts/vm/vm-run.sh scripts/install/test-install-guest.sh || guest=$?
[ "$failed" -eq 0 ] && [ "$guest" -eq 0 ]
