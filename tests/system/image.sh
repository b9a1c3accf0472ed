#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds once the disk of the booted Debian 12 system that
# tests/system/run.sh tests cfilter's packages on: systemd as PID 1,
# Debian's kernel and its headers, dkms, fail2ban and CrowdSec, installed
# by apt with their maintainer scripts (mmdebstrap), then written into an
# ext4 image. Beside it, the .debs of a newer Debian kernel, which the test
# installs later as an operator's kernel upgrade would.
#
# Two bookworm kernels: the newest (the ABI of linux-headers-amd64's
# candidate, bookworm-security's) is the upgrade; the one booted first is
# the newest older ABI apt still offers with its headers. They are chosen
# once and pinned in .cache/system/kernels.pin (delete it to move on).
#
# Output: .cache/system/<key>/ with disk.img and upgrade/*.deb, <key> a
# checksum of tests/system/packages, this script, the kernels and the
# versions apt would install; a new key builds anew and the old folder
# goes. Prints the folder on its last line of output.
#
# Usage: tests/system/image.sh

set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/tests/system
mkdir -p "$ROOT/.cache/system"
CACHE=$(cd "$ROOT/.cache/system" && pwd -P)
PIN=$CACHE/kernels.pin
SUITE=bookworm
MIRRORS=(
	"deb http://deb.debian.org/debian $SUITE main"
	"deb http://deb.debian.org/debian $SUITE-updates main"
	"deb http://deb.debian.org/debian-security $SUITE-security main"
)
APT_OPTS=(-q -o APT::Sandbox::User=root)

die() {
	echo "system-image: $*" >&2
	exit 1
}

log() {
	echo "system-image: $*" >&2
}

# "ABI VERSION" of linux-image-ABI-amd64, for ABI 6.1.0-N.
image_version() {
	apt-cache show --no-all-versions "linux-image-$1-amd64" 2>/dev/null |
		sed -n 's/^Version: //p' | head -n 1
}

# The newest ABI (linux-headers-amd64's candidate) and the newest older
# one that has an image and headers in apt's lists.
pick_kernels() {
	local new old n v

	new=$(apt-cache depends linux-headers-amd64 2>/dev/null |
		sed -n 's/^ *Depends: linux-headers-\(.*\)-amd64$/\1/p' | head -n 1)
	[ -n "$new" ] || die "apt knows no linux-headers-amd64: run apt-get update"
	n=${new##*-}
	old=
	while [ "$n" -gt 1 ] && [ -z "$old" ]; do
		n=$((n - 1))
		v=$(image_version "${new%-*}-$n")
		if [ -n "$v" ] && apt-cache show "linux-headers-${new%-*}-$n-amd64" \
			>/dev/null 2>&1; then
			old=${new%-*}-$n
		fi
	done
	[ -n "$old" ] || die "apt offers no kernel older than $new with headers"
	echo "$old $(image_version "$old") $new $(image_version "$new")" >"$PIN"
	log "pinned kernels: boot $old, upgrade to $new ($PIN)"
}

read_pin() {
	[ -f "$PIN" ] || pick_kernels
	read -r OLD_ABI OLD_VERSION NEW_ABI NEW_VERSION <"$PIN"
	[ -n "${NEW_VERSION:-}" ] || die "$PIN is damaged: delete it"
}

packages() {
	sed 's/#.*//' "$HERE/packages" | xargs
	echo "linux-image-$OLD_ABI-amd64 linux-headers-$OLD_ABI-amd64"
}

# The upgrade: what `apt install linux-image-amd64 linux-headers-amd64`
# would bring for the newer ABI. linux-kbuild-6.1 is shared by every ABI
# and the headers ask for it at least at their version: apt keeps the
# newest, which the image may already have (a later upload's), so it is
# the candidate here too, never a downgrade.
upgrade_packages() {
	echo "linux-image-$NEW_ABI-amd64=$NEW_VERSION" \
		"linux-headers-$NEW_ABI-amd64=$NEW_VERSION" \
		"linux-headers-$NEW_ABI-common=$NEW_VERSION" \
		"linux-kbuild-${NEW_ABI%%.0-*}"
}

# Candidate versions of the packages named, and this script: a Debian
# update of any of them, or a change here, makes a new image.
image_key() {
	{
		cat "$HERE/packages" "$0" "$HERE/setup-hook" "$HERE"/eth0.net* \
			"$HERE/boot-runner" "$HERE/cfilter-test.service"
		cat "$PIN"
		# shellcheck disable=SC2046 # one word per package
		apt-cache policy $(packages) 2>/dev/null |
			grep -E '^[a-z0-9]|Candidate:'
	} | sha256sum | cut -c1-16
}

# The system's own settings: a root on /dev/vda, networkd with a veth pair
# eth0/eth0p for cfilter to attach to at boot, CrowdSec without the
# Central API (no network here) and with SQLite's write-ahead log (else a
# cscli write can meet "database is locked" while the bouncer reads), and
# the unit that runs a boot's test script from the second disk.
customize() {
	local t=$1 conf=$1/etc/crowdsec/config.yaml

	echo cfilter-system >"$t/etc/hostname"
	printf '127.0.0.1\tlocalhost cfilter-system\n::1\t\tlocalhost\n' >"$t/etc/hosts"
	echo '/dev/vda / ext4 rw,errors=remount-ro 0 1' >"$t/etc/fstab"
	chroot "$t" passwd -qd root
	cp "$HERE/eth0.netdev" "$HERE/eth0.network" "$t/etc/systemd/network/"
	sed -i -e '/online_client:/d' -e '/online_api_credentials/d' \
	    -e 's|^  db_path: /var/lib/crowdsec/data/crowdsec.db|&\n  use_wal: true|' \
	    "$conf"
	grep -q 'use_wal: true' "$conf" || die "$conf: no db_path to add use_wal to"
	cp "$HERE/cfilter-test.service" "$t/etc/systemd/system/"
	install -m 755 "$HERE/boot-runner" "$t/usr/local/sbin/cfilter-test-boot"
	chroot "$t" systemctl -q enable systemd-networkd cfilter-test.service
	# Timers that would only compete with the test for the emulated CPU,
	# and the login prompt on the serial console, which would hang up the
	# test's output there (its getty takes the tty when it starts).
	chroot "$t" systemctl -q mask apt-daily.timer apt-daily-upgrade.timer \
		man-db.timer e2scrub_all.timer fstrim.timer dpkg-db-backup.timer \
		serial-getty@ttyS0.service
}

build() {
	local dir=$1 work tree kb

	work=$(mktemp -d "$CACHE/build.XXXXXX")
	# shellcheck disable=SC2064 # expand now: work is local
	trap "rm -rf '$work'" EXIT
	tree=$work/tree
	log "building a $SUITE system with kernel $OLD_ABI (mmdebstrap)"
	mmdebstrap --variant=apt --include="$(packages | tr ' ' ,)" \
		--setup-hook="$HERE/setup-hook \"\$1\"" \
		"$SUITE" "$tree" "${MIRRORS[@]}" >&2 || die "mmdebstrap failed"
	customize "$tree"
	mkdir -p "$work/upgrade"
	# shellcheck disable=SC2046 # one word per package
	(cd "$work/upgrade" && apt-get "${APT_OPTS[@]}" download $(upgrade_packages) >&2) ||
		die "downloading kernel $NEW_ABI failed"
	# Room for the packages, DKMS builds and the second kernel.
	kb=$(du -sk "$tree" | cut -f1)
	kb=$((kb * 5 / 4 + 1536 * 1024))
	log "writing the disk image"
	mkfs.ext4 -q -F -L cfilter-system -E root_owner=0:0 -d "$tree" \
		"$work/disk.img" "${kb}k" >&2 || die "mkfs.ext4 failed"
	echo "$OLD_ABI $NEW_ABI" >"$work/kernels"
	rm -rf "$tree"
	mv "$work" "$dir"
	trap - EXIT
}

main() {
	local key dir old

	command -v mmdebstrap >/dev/null || die "mmdebstrap not found: run make deps"
	exec 9>"$CACHE/.lock"
	flock 9
	read_pin
	key=$(image_key)
	dir=$CACHE/$key
	if [ ! -d "$dir" ]; then
		build "$dir"
		for old in "$CACHE"/*/; do
			[ "${old%/}" = "$dir" ] || rm -rf "$old"
		done
		log "built $dir ($(du -sh "$dir" | cut -f1))"
	fi
	echo "$dir"
}

main "$@"
