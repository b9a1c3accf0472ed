#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The boot into the kernel the upgrade installed: DKMS's module for it
# runs and filters with every ban; then apt remove keeps the saved bans and
# apt purge leaves no file of cfilter's behind.

. ./guest.sh

# Files named for cfilter that dpkg does not know, the test's own aside.
unknown_files()
{
	find / -xdev \( -path /proc -o -path /sys -o -path /run -o \
		-path "$STATE" -o -path /var/log/journal \) -prune -o \
		-name '*cfilter*' -print |
		grep -v -e '^/usr/local/sbin/cfilter-test-boot$' \
			-e '^/etc/systemd/system/cfilter-test.service$' \
			-e '^/etc/systemd/system/multi-user.target.wants/cfilter-test.service$' \
			-e '^/etc/initramfs-tools/conf.d/cfilter-test$' \
			-e '^/etc/initramfs-tools/hooks/cfilter-test$' \
			-e '^/var/log/cfilter-test-sshd.log' \
			-e '^/root/cfilter' >"$STATE/left" || true
	sed 's/^/# left: /' "$STATE/left"
	[ ! -s "$STATE/left" ]
}

tap_begin
mark "the script starts"
expect "running the upgraded kernel $NEW_ABI" 0 -o "$NEW_ABI" -- uname -r
check "cfilter.service started at boot" systemctl -q is-active cfilter
expect "the module is DKMS's build for this kernel" 0 \
	-o "/lib/modules/$NEW_ABI-amd64/updates/dkms/" -- modinfo -n cfilter
check "the module has BTF" test -e /sys/kernel/btf/cfilter
expect "cfilter runs on eth0" 0 -o "eth0: cfilter_xdp" -- cfctl status
check "fail2ban's sshd jail is up" fail2ban_ready
mark "fail2ban is ready"
# fail2ban flushed its ban when it stopped, and bans again once it runs.
expect "fail2ban bans again within 60 s" 0 -- \
	within 60 cfctl test -s f2b-sshd "$F2B"
check "the attacker's namespace" attacker_setup
check "the bans drop the attacker's pings" dropped "$PERM" "$TIMED" "$F2B" "$CS"
check "the free address pings" pings "$FREE"

mark "apt remove"
cfctl save >"$STATE/before-remove"
check "apt remove cfilter" apt-get remove -y -q cfilter
check "remove: the service is gone" not systemctl -q is-active cfilter
expect "remove: the bans are saved in the blocklist" 0 -- \
	same_saves "$STATE/before-remove" /var/lib/cfilter/blocklist \
	"$(grep -vc '^#' "$STATE/before-remove")"
mark "apt purge"
check "apt purge cfilter cfilter-dkms" \
	apt-get purge -y -q cfilter cfilter-dkms
check "purge: the saved state is gone" test ! -e /var/lib/cfilter
check "purge: the configuration is gone" test ! -e /etc/cfilter
check "purge: no file of cfilter's is left" unknown_files
mark "the script ends"
tap_end
