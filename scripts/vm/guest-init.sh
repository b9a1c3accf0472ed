#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# /init of the qemu guest built by scripts/vm/vm-run.sh (busybox sh, PID 1).
# /bin/sh in the guest is dash, which runs the test script.
#
# Sets up the environment the test script expects, runs
# /opt/cfilter/script.sh, prints "@@CFILTER-VM-EXIT <status>@@" for the host
# to pick up (qemu cannot return the guest's exit status) and powers off.
# Anything that stops this script early ends in a kernel panic, which with
# panic=-1 and qemu -no-reboot also ends qemu; the host then reports that the
# guest did not report.

export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root

# busybox runs applets by exec'ing /proc/self/exe: call it by path until
# /proc is up.
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s
mount -t sysfs sysfs /sys
# CONFIG_DEVTMPFS_MOUNT is off: the kernel leaves /dev to us.
mount -t devtmpfs devtmpfs /dev
mount -t bpf bpf /sys/fs/bpf
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp

# The log says which kernel it comes from (make check boots several).
echo "vm-init: kernel $(uname -r)"

report() {
	echo "@@CFILTER-VM-EXIT $1@@"
	poweroff -f
}

load_module() {
	if ! insmod "$1"; then
		echo "vm-init: insmod $1 failed; kernel log tail:"
		dmesg | tail -n 20
		report 1
	fi
}

ip link set lo up

# vm-run.sh lists the helper modules in load order.
while read -r module; do
	load_module "$module"
done </etc/cfilter-modules

load_module /lib/modules/cfilter.ko
export CFILTER_KO=/lib/modules/cfilter.ko

# The Debian root (vm-run.sh VM_DEBIAN=1): read-only below, writable in
# RAM above, with this system's mounts and cfctl inside, for chroot.
if [ -b /dev/vda ]; then
	mkdir -p /debian /run/debian-ro /run/debian-rw
	mount -o ro,noload -t ext4 /dev/vda /run/debian-ro &&
	mount -t tmpfs tmpfs /run/debian-rw &&
	mkdir /run/debian-rw/upper /run/debian-rw/work &&
	mount -t overlay overlay -o lowerdir=/run/debian-ro,upperdir=/run/debian-rw/upper,workdir=/run/debian-rw/work /debian ||
		{ echo "vm-init: mounting the Debian root failed"; report 1; }
	for dir in /proc /sys /dev /tmp /sys/fs/bpf; do
		mount --bind "$dir" "/debian$dir"
	done
	cp /usr/bin/cfctl /debian/usr/sbin/cfctl
	export DEBIAN_ROOT=/debian
fi

/bin/sh /opt/cfilter/script.sh </dev/null
status=$?

# A kernel oops or WARN (taint flags D, W) is a bug even if the script passed.
if [ $(($(cat /proc/sys/kernel/tainted) & (128 | 512))) -ne 0 ]; then
	echo "vm-init: the kernel oopsed or warned during the run; kernel log:"
	dmesg | grep -v '^\[ *0\.' | tail -n 60
	[ "$status" -eq 0 ] && status=1
fi
report $status
