#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds the guest's Debian root once: the packages scripts/vm/guest-root.list
# names and their dependencies, unpacked as Debian ships them (no
# maintainer script runs) into an ext4 image. vm-run.sh gives it to the
# guest read-only (VM_DEBIAN=1), and the guest's /init mounts it at /debian
# under a writable tmpfs overlay, for tests that run real clients (fail2ban,
# CrowdSec) in a chroot.
#
# The image is .cache/guest-root-<key>.img, <key> a checksum of the exact
# package files apt would fetch (names, versions, hashes): a changed list or
# a Debian update builds a new image, and the old one goes. Prints the
# image's path on its last line of output.
#
# Usage: scripts/vm/guest-root.sh

set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=$ROOT/.cache
LIST=$ROOT/scripts/vm/guest-root.list
# apt-get download as root warns that it cannot drop privileges.
APT_OPTS=(-q -o APT::Sandbox::User=root)

die() {
	echo "guest-root: $*" >&2
	exit 1
}

read_list() {
	PACKAGES=$(sed 's/#.*//' "$LIST" | xargs)
	[ -n "$PACKAGES" ] || die "$LIST names no package"
}

# The packages and everything they depend on, real packages only (apt-cache
# prints virtual ones as <name>).
closure() {
	# shellcheck disable=SC2086 # one word per package
	apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances $PACKAGES |
		grep -E '^[a-z0-9][a-z0-9.+-]*$' | sort -u
}

# "file sha256" per package of the closure, sorted; updates apt's lists
# once if apt does not know a package yet (a machine that never ran apt).
resolve() {
	local uris

	if ! uris=$(apt-get "${APT_OPTS[@]}" download --print-uris $(closure) 2>/dev/null); then
		apt-get "${APT_OPTS[@]}" update >&2 || die "apt-get update failed"
		uris=$(apt-get "${APT_OPTS[@]}" download --print-uris $(closure)) ||
			die "apt cannot find the packages of $LIST"
	fi
	awk '{ print $2, $4 }' <<<"$uris" | sort
}

# Files and settings that maintainer scripts or an installer would make.
finish_tree() {
	local tree=$1 dir

	for dir in proc sys dev run tmp root var/tmp var/log var/lib var/run; do
		mkdir -p "$tree/$dir"
	done
	chmod 1777 "$tree/tmp" "$tree/var/tmp"
	printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' \
		'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin' \
		>"$tree/etc/passwd"
	printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' >"$tree/etc/group"
	printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost\n' >"$tree/etc/hosts"
	echo cfilter-guest >"$tree/etc/hostname"
}

build_image() {
	local img=$1 work tree kb

	work=$(mktemp -d "$CACHE/guest-root-build.XXXXXX")
	# shellcheck disable=SC2064 # expand now: work is local
	trap "rm -rf '$work'" EXIT
	tree=$work/tree
	mkdir -p "$work/debs" "$tree"
	echo "guest-root: downloading $(closure | wc -l) packages" >&2
	(cd "$work/debs" && apt-get "${APT_OPTS[@]}" download $(closure) >&2) ||
		die "apt-get download failed"
	echo "guest-root: unpacking" >&2
	for deb in "$work"/debs/*.deb; do
		dpkg-deb -x "$deb" "$tree" || die "dpkg-deb -x $deb failed"
	done
	finish_tree "$tree"
	kb=$(du -sk "$tree" | cut -f1)
	kb=$((kb * 5 / 4 + 65536))
	mkfs.ext4 -q -F -L cfilter-root -O ^has_journal -E root_owner=0:0 \
		-d "$tree" "$work/root.img" "${kb}k" >&2 || die "mkfs.ext4 failed"
	mv "$work/root.img" "$img"
	rm -rf "$work"
	trap - EXIT
}

main() {
	local key img old

	mkdir -p "$CACHE"
	exec 9>"$CACHE/guest-root.lock"
	flock 9
	read_list
	key=$(resolve | sha256sum | cut -c1-16)
	img=$CACHE/guest-root-$key.img
	if [ ! -f "$img" ]; then
		build_image "$img"
		for old in "$CACHE"/guest-root-*.img; do
			[ "$old" = "$img" ] || rm -f "$old"
		done
		echo "guest-root: built $img ($(du -h "$img" | cut -f1))" >&2
	fi
	echo "$img"
}

main "$@"
