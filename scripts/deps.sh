#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian 12 packages cfilter needs to build and test (make deps).
# Idempotent: when everything is installed, apt is not run at all.
#
# libxdp-dev: cfctl links libxdp (and the dispatcher program it carries)
# statically, to run cfilter's program beside other tools'. liburcu-dev is
# the host tests' RCU; libclang-rt-14-dev has libFuzzer.
# tor-geoipdb has the country ranges make bench-xdp loads as prefixes.
# kmod has the modprobe that cfilter.service runs (a minimal Debian image
# lacks it, and systemd-analyze verify then rejects the installed unit).
# debhelper, dh-dkms, dpkg-dev and lintian build and check the Debian packages
# (make deb); devscripts is not needed: dpkg-dev has dpkg-buildpackage and
# dpkg-parsechangelog.
# linux-image-amd64 is deliberately absent: it pulls initramfs-tools and udev
# and upgrades systemd. scripts/vm/kernel.sh downloads and unpacks the guest
# kernel image into .cache instead.

set -eu

PACKAGES="
	binutils
	bpftool
	busybox-static
	clang
	coreutils
	cpio
	dash
	debhelper
	dh-dkms
	dpkg-dev
	dwarves
	e2fsprogs
	gcc
	iproute2
	iputils-ping
	kmod
	libbpf-dev
	libc6-dev
	libclang-rt-14-dev
	libelf-dev
	libxdp-dev
	liburcu-dev
	lintian
	linux-headers-amd64
	linux-source-6.1
	llvm
	mmdebstrap
	make
	perl
	python3
	qemu-system-x86
	tor-geoipdb
	valgrind
	xz-utils
	zstd
	zlib1g-dev
"

missing=
for pkg in $PACKAGES; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = installed ] || missing="$missing $pkg"
done

if [ -z "$missing" ]; then
	echo "deps: all packages already installed"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages:$missing; run 'make deps' as root" >&2
	exit 1
fi

echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086 # word splitting of the package list is intended
apt-get install -y -q --no-install-recommends $missing
