#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest's Debian root (scripts/vm/guest-root.sh, VM_DEBIAN=1) is there for
# the integration tests: Debian's own python3, fail2ban and CrowdSec run in
# a chroot of it, and so does cfctl, which reaches the module from there.

. "$(dirname "$0")/lib.sh"
trap lib_cleanup EXIT

tap_begin
module_loaded || tap_skip_all "cfilter.ko is not loaded"
[ -n "${DEBIAN_ROOT:-}" ] ||
	tap_skip_all "no Debian root: run the guest with VM_DEBIAN=1"

expect "Debian's python3 runs" 0 -o "3.11" -- \
	in_debian python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])'
expect "Debian's fail2ban-client runs" 0 -o "1.0.2" -- \
	in_debian fail2ban-client --version
expect "Debian's crowdsec runs" 0 -e "version: v1.4.6" -- \
	in_debian crowdsec -version
expect "Debian's cscli runs" 0 -e "version: v1.4.6" -- in_debian cscli version
check "crowdsec-custom-bouncer is installed" \
	test -x "$DEBIAN_ROOT/usr/bin/crowdsec-custom-bouncer"
expect "the root is writable above the image" 0 -- \
	in_debian sh -c 'echo x >/var/lib/probe && rm /var/lib/probe'

"$CFCTL" clear >/dev/null 2>&1
expect "cfctl in the chroot adds to the module" 0 -- \
	in_debian cfctl add 192.0.2.77
expect "and the module holds it, seen from outside" 0 -- \
	"$CFCTL" test 192.0.2.77
"$CFCTL" clear >/dev/null 2>&1

tap_end
