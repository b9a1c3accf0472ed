#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cfilter's Debian packages on a booted Debian 12 system, the way an
# operator runs them: installed with apt (their maintainer scripts run
# DKMS), cfilter.service enabled under systemd, bans from the operator,
# Debian's fail2ban and CrowdSec, then a reload, a reboot, a kernel
# upgrade and a reboot into it, apt remove and apt purge.
#
# The disk comes from tests/system/image.sh (built once, cached). Work on
# the disk that an operator would do at a root shell without the network
# (apt install of the .debs, a kernel upgrade) runs here in a chroot of it,
# so that DKMS compiles at the host's speed; the rest runs in the booted
# system under qemu, one script a boot (boot1.sh, boot2.sh, boot3.sh), fed
# to it on a second disk (see boot-runner).
#
# The README's "Using it on a real host" runs as written: its first block
# (make on this host, apt and the configuration in the chroot), then its
# second in the first boot.
#
# Needs root and loop devices (mount -o loop). Prints TAP lines and
# "system: P passed, F failed"; exit status 0 when every check passed.
# VM_TIMEOUT bounds each boot (default 900 s: the boots have taken 220 to
# 340 s here, and CI's host has been slower than twice that).

set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/tests/system
VM_TIMEOUT=${VM_TIMEOUT:-900}
QBOOT=/usr/share/qemu/qboot.rom
MARKER=@@CFILTER-SYSTEM-EXIT
MNT=
# shellcheck source=tests/lib/tap.sh
. "$ROOT/tests/lib/tap.sh"

cd "$ROOT"
LOGS=$ROOT/.cache/vm-logs/system
mkdir -p "$LOGS"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cfilter-system.XXXXXX")

cleanup() {
	[ -z "$MNT" ] || unmount_disk
	rm -rf "$WORK"
}
trap cleanup EXIT

die() {
	echo "not ok $((n + 1)) system: $*"
	echo "system: $n passed, $((failed + 1)) failed"
	exit 1
}

# ---- the disk, mounted on the host ----------------------------------------

mount_disk() {
	local d

	MNT=$WORK/mnt
	mkdir -p "$MNT"
	mount -o loop "$WORK/disk.img" "$MNT" ||
		die "cannot mount the disk image (mount -o loop: are loop devices available?)"
	for d in proc sys dev dev/pts; do
		mount --bind "/$d" "$MNT/$d"
	done
}

unmount_disk() {
	local d

	for d in dev/pts dev sys proc; do
		umount "$MNT/$d" 2>/dev/null || true
	done
	umount "$MNT"
	MNT=
}

# in_disk CMD...: CMD as root of the mounted disk, as at a root shell.
in_disk() {
	chroot "$MNT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

# The module DKMS installed for kernel $1, with BTF and resolved kfunc ids.
dkms_module_has_btf() {
	local ko

	ko=$(find "$MNT/lib/modules/$1-amd64/updates" -name 'cfilter.ko*' 2>/dev/null |
		head -n 1)
	[ -n "$ko" ] || { echo "# no cfilter.ko for $1 under updates/"; return 1; }
	echo "# $1: ${ko#"$MNT"}"
	btf/resolve_btfids --check "$ko"
}

# ---- booting it -------------------------------------------------------------

# boot NAME ABI SCRIPT: boots kernel ABI of the disk with the test archive
# of SCRIPT; its console kept in $LOGS/NAME.log, TAP lines passed on.
boot() {
	local name=$1 abi=$2 script=$3 vmlinuz=$WORK/vmlinuz-$2 status start

	mount_disk
	cp "$MNT/boot/vmlinuz-$abi-amd64" "$vmlinuz"
	cp "$MNT/boot/initrd.img-$abi-amd64" "$WORK/initrd-$abi"
	unmount_disk
	btf/bzimage.sh unpack "$vmlinuz" "$WORK/vmlinux-$abi" ||
		die "cannot decompress $vmlinuz"
	rm -rf "$WORK/archive" && mkdir "$WORK/archive"
	cp "$HERE/$script" "$WORK/archive/boot.sh"
	cp "$HERE/guest.sh" tests/selftests/lib.sh "$WORK/archive/"
	cp "$WORK/readme-use.sh" "$WORK/archive/"
	printf 'OLD_ABI=%s\nNEW_ABI=%s\n' "$OLD_ABI" "$NEW_ABI" >"$WORK/archive/kernels"
	tar -cf "$WORK/archive.tar" -C "$WORK/archive" .
	echo "# $name: booting $abi with $script"
	start=$SECONDS
	timeout --foreground --kill-after=10 "$VM_TIMEOUT" \
		qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m 2048 \
		-M pc -bios "$QBOOT" -nographic -nodefaults -no-user-config \
		-no-reboot -nic none -serial stdio -monitor none \
		-kernel "$WORK/vmlinux-$abi" -initrd "$WORK/initrd-$abi" \
		-drive "file=$WORK/disk.img,if=virtio,format=raw" \
		-drive "file=$WORK/archive.tar,if=virtio,format=raw,readonly=on" \
		-append "console=ttyS0 root=/dev/vda rw quiet panic=-1" \
		</dev/null 2>&1 | tr -d '\r' >"$WORK/$name.log" || true
	echo "# $name: $((SECONDS - start)) s from power on to power off (console: $LOGS/$name.log)"
	cp "$WORK/$name.log" "$LOGS/$name.log"
	renumber "$name" < <(grep -a -E '^(not )?ok [0-9]+ |^# ' "$WORK/$name.log")
	status=$(grep -ao "$MARKER [0-9]*@@" "$WORK/$name.log" | tail -n 1 | tr -dc 0-9) || true
	if [ -z "$status" ]; then
		echo "# $name: the system did not report; its console's last lines:"
		tail -n 40 "$WORK/$name.log" | sed 's/^/#   /'
		check "$name: the system booted and ran its script" false
	elif [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
		check "$name: its script ran to the end (exit status $status)" false
	fi
	grep -aq 'reboot: Power down' "$WORK/$name.log" ||
		check "$name: the system powered off cleanly" false
}

# renumber NAME: the guest's TAP lines numbered on from ours and named
# for its boot, its failures counted.
renumber() {
	local line

	while IFS= read -r line; do
		case $line in
		'not ok '*)
			n=$((n + 1))
			failed=$((failed + 1))
			echo "not ok $n $1: ${line#not ok * }"
			;;
		'ok '*)
			n=$((n + 1))
			echo "ok $n $1: ${line#ok * }"
			;;
		*) echo "$line" ;;
		esac
	done
}

# ---- the README's commands --------------------------------------------------

# The README's blocks of "Using it on a real host": the first installs
# (its make lines run here, the others in the disk's chroot), the second
# is run by boot1.sh in the booted system.
readme_blocks() {
	scripts/check/doc-examples.sh README.md docs/cfctl.8 >"$WORK/examples"
	awk -v dir="$WORK" '
	/^@@ README: / { n++; out = dir "/readme-" n ".sh"; next }
	/^@@ / { out = ""; next }
	out { print > out }
	' "$WORK/examples"
	[ -s "$WORK/readme-1.sh" ] && [ -s "$WORK/readme-2.sh" ] ||
		die "README.md: no two blocks in \"Using it on a real host\""
	grep '^make ' "$WORK/readme-1.sh" >"$WORK/readme-host.sh" || true
	grep -v '^make ' "$WORK/readme-1.sh" >"$WORK/readme-install.sh" || true
	cp "$WORK/readme-2.sh" "$WORK/readme-use.sh"
}

run_readme_host() {
	bash -e "$WORK/readme-host.sh" >"$WORK/make.log" 2>&1 || {
		sed 's/^/# /' "$WORK/make.log" | tail -n 40
		return 1
	}
	ls dist/cfilter_*.deb dist/cfilter-dkms_*.deb >/dev/null
}

run_readme_install() {
	rm -rf "$MNT/root/cfilter" && mkdir -p "$MNT/root/cfilter"
	cp -a dist "$MNT/root/cfilter/"
	cp "$WORK/readme-install.sh" "$MNT/root/cfilter/install.sh"
	in_disk sh -ec 'cd /root/cfilter && sh -e install.sh' >"$WORK/install.log" 2>&1 || {
		sed 's/^/# /' "$WORK/install.log" | tail -n 60
		return 1
	}
}

# ---- what an operator sets up besides ---------------------------------------

# fail2ban's sshd jail bans through cfilter; Debian's sshd jail reads the
# journal, this one a log file the test writes sshd's lines to.
configure_fail2ban() {
	cat >"$MNT/etc/fail2ban/jail.local" <<-EOF
	[sshd]
	enabled = true
	banaction = cfilter
	backend = polling
	logpath = /var/log/cfilter-test-sshd.log
	maxretry = 2
	findtime = 600
	bantime = 3600
	EOF
	: >"$MNT/var/log/cfilter-test-sshd.log"
}

# The bouncer runs cfilter's wrapper, set in the override file the
# bouncer's package made (its API key stays), as the README says.
configure_bouncer() {
	local conf=/etc/crowdsec/bouncers/crowdsec-custom-bouncer.yaml.local

	in_disk sh -ec "sed -i '/^bin_path:/d' $conf &&
		cat /usr/share/doc/cfilter/examples/crowdsec-custom-bouncer.yaml.local >>$conf" &&
	grep -q '^bin_path: /usr/libexec/cfilter/cfilter-crowdsec' "$MNT$conf" &&
	grep -q '^api_key: ' "$MNT$conf"
}

# ---- main -------------------------------------------------------------------

echo "# building or reusing the system's disk (tests/system/image.sh)"
IMAGE=$("$HERE/image.sh" | tail -n 1) || die "tests/system/image.sh failed"
read -r OLD_ABI NEW_ABI <"$IMAGE/kernels"
readme_blocks
check "README (host): its make lines build the packages" run_readme_host
[ "$failed" -eq 0 ] || die "no packages to install"
make -s -C btf >/dev/null || die "cannot build btf/resolve_btfids"

cp --sparse=always "$IMAGE/disk.img" "$WORK/disk.img"
mount_disk
check "README (install): apt install and the configuration, as written" run_readme_install
check "DKMS built cfilter.ko for $OLD_ABI with BTF" dkms_module_has_btf "$OLD_ABI"
check "cfilter.service enabled by the package" \
	test -L "$MNT/etc/systemd/system/multi-user.target.wants/cfilter.service"
configure_fail2ban
check "the bouncer's override file runs cfilter's wrapper" configure_bouncer
unmount_disk

boot boot1 "$OLD_ABI" boot1.sh
boot boot2 "$OLD_ABI" boot2.sh

mount_disk
cp "$IMAGE"/upgrade/*.deb "$MNT/root/"
check "kernel upgrade to $NEW_ABI: apt installs it" \
	in_disk sh -c 'apt-get install -y -q /root/*.deb >/root/upgrade.log 2>&1 || { cat /root/upgrade.log; exit 1; }'
check "DKMS built cfilter.ko for $NEW_ABI with BTF" dkms_module_has_btf "$NEW_ABI"
rm -f "$MNT"/root/*.deb
# The last boot tests the upgrade, apt remove and purge, not CrowdSec, whose
# start takes a minute of emulated time.
in_disk systemctl -q mask crowdsec.service crowdsec-custom-bouncer.service
unmount_disk

boot boot3 "$NEW_ABI" boot3.sh

echo "system: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
