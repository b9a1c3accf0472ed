#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest half of scripts/install/test-install.sh: boot-time restore as
# cfilter.service does it, from what `make install` put in a DESTDIR.
#
# The staged tree arrives as /opt/cfilter/selftests
# (scripts/install/test-install.sh runs make vm-run with SELFTESTS_DIR
# pointing at it). It is copied to /, the module the init loaded is
# removed, and the commands of the installed cfilter.service run in
# order, as systemd would: ExecStartPre (modprobe cfilter, through
# modules.dep and /etc/modprobe.d), ExecStart (restore the blocklist,
# attach to the interfaces listed), ExecStop (save, detach).
#
# Prints TAP lines and "install: P passed, F failed"; exit status 1 if a
# check failed.

STAGE=/opt/cfilter/selftests
PREFIX=/usr/local
UNIT=$PREFIX/lib/systemd/system/cfilter.service
LIST=/var/lib/cfilter/blocklist
IFACES=/etc/cfilter/interfaces
OUT=/tmp/test-install.out
n=0
failed=0

check() {
	n=$((n + 1))
	name=$1
	shift
	if "$@"; then
		echo "ok $n $name"
	else
		echo "not ok $n $name"
		failed=$((failed + 1))
	fi
}

# Value of setting $1 of the installed unit.
unit() {
	sed -n "s/^$1=//p" "$UNIT"
}

# run_unit SETTING: runs the unit's command, its output in $OUT.
run_unit() {
	# shellcheck disable=SC2046 # the command line, word by word
	env "$(unit Environment)" $(unit "$1") >"$OUT" 2>&1
	status=$?
	sed 's/^/# /' "$OUT"
	return $status
}

said() {
	grep -qF -- "$1" "$OUT"
}

not() {
	! "$@"
}

xdp_on() {
	ip -o link show "$1" | grep -q " $2 "
}

no_xdp() {
	! ip -o link show "$1" | grep -q xdp
}

blocked() {
	for addr; do
		cfctl test "$addr" >/dev/null || return 1
	done
}

# The entries of the saved list, its header comment and source lines aside.
same_list() {
	printf '%s\n' "$@" >/tmp/expected
	grep -Ev '^(#|source )' "$LIST" | cmp -s /tmp/expected -
}

# same_bans SAVED: cfctl save prints what SAVED holds, lines in the same
# order, deadlines at most a second apart (the clock moved between).
same_bans() {
	cfctl save >/tmp/now-saved || return 1
	awk 'NR == FNR { if (!/^#/) a[++n] = $0; next }
	     !/^#/ { m++; split(a[m], x, " expires "); split($0, y, " expires ");
		     if (x[1] != y[1] || x[2] - y[2] > 1 || y[2] - x[2] > 1) bad = 1 }
	     END { exit bad || m != n || n == 0 }' "$1" /tmp/now-saved
}

# held_secs SOURCE ENTRY: the seconds SOURCE's holding of ENTRY has left.
held_secs() {
	cfctl list -s "$1" | awk -v e="$2" '$1 == "-t" && $3 == e { print $2 }'
}

# A reboot neither extends a timed ban nor resurrects an expired one.
reboot_keeps_deadlines() {
	left=$(held_secs f2b-sshd 203.0.113.10)
	[ -n "$left" ] && [ "$left" -le 3597 ] && [ "$left" -gt 3000 ] &&
		! cfctl test 203.0.113.11 >/dev/null
}

unload() {
	tries=0
	while ! rmmod cfilter 2>/dev/null; do
		tries=$((tries + 1))
		[ "$tries" -lt 10 ] || return 1
		sleep 1
	done
}

[ -f "$STAGE$UNIT" ] || {
	echo "not ok 1 no staged install at $STAGE: run scripts/install/test-install.sh"
	exit 1
}
kver=$(uname -r)
unload
cp -a "$STAGE/." /
check "cfilter.ko installed in updates/" test -f "/lib/modules/$kver/updates/cfilter.ko"
depmod
mkdir -p /var/lib/cfilter /etc/cfilter /etc/modprobe.d
ip link add cf0 type veth peer name cf1
printf '192.0.2.1\n# saved earlier\n2001:db8::1\n198.51.100.7\n' >"$LIST"
printf '# test\ncf0 generic\ncf1   # native if the driver can\n' >"$IFACES"

check "ExecStartPre loads the module" run_unit ExecStartPre
check "module from updates/ has BTF" test -e /sys/kernel/btf/cfilter
check "ExecStart succeeds" run_unit ExecStart
check "blocklist restored" blocked 192.0.2.1 2001:db8::1 198.51.100.7
check "cf0 attached in generic mode" xdp_on cf0 xdpgeneric
check "cf1 attached in native mode" xdp_on cf1 xdp
cfctl add 203.0.113.9 >/dev/null
check "ExecStop succeeds" run_unit ExecStop
check "blocklist saved, runtime add included" \
	same_list 192.0.2.1 198.51.100.7 203.0.113.9 2001:db8::1
check "saved list says what saved it" grep -q '^# cfilter: 4 entries of 1 source saved by cfctl ' "$LIST"
check "previous blocklist kept as .old" grep -q '^# saved earlier$' "$LIST.old"
check "cf0 detached" no_xdp cf0
check "cf1 detached" no_xdp cf1

check "restart: ExecStart again succeeds" run_unit ExecStart
check "restart: entries already present are counted" said "4 already present"

# Reload: the interfaces are read anew, the entries stay, bans of other
# sources made since the last save included.
cfctl add 203.0.113.20 >/dev/null
cfctl add -s f2b-sshd -t 3600 203.0.113.21 >/dev/null
cfctl add -s crowdsec -t 3600 203.0.113.22 >/dev/null
cfctl save >/tmp/before-reload
printf '192.0.2.1\n198.51.100.8\n' >"$LIST"
printf 'cf0 generic --match-dst\n' >"$IFACES"
check "reload: ExecReload succeeds" run_unit ExecReload
check "reload: every ban stays, the file is not read" \
	same_bans /tmp/before-reload
check "reload: cf0 replaced in place, matching destinations" \
	sh -c 'cfctl status | grep -q "^cf0: cfilter_xdp in generic mode .*destination matching on$"'
check "reload: said it replaced the program" said "cf0: replaced cfilter_xdp in generic mode"
check "reload: cf1, no longer listed, detached" no_xdp cf1
printf 'cf0\ncf1\n' >"$IFACES"
check "reload: cf1 listed again, attached" run_unit ExecReload
check "reload: cf1 in native mode" xdp_on cf1 xdp
cfctl del 203.0.113.20 >/dev/null
cfctl flush -s f2b-sshd >/dev/null
cfctl flush -s crowdsec >/dev/null
printf '192.0.2.1\n2001:db8::1\n198.51.100.7\n203.0.113.9\n' >"$LIST"
check "restart: ExecStop again succeeds" run_unit ExecStop
printf '192.0.2.1\n2001:db8::1\n198.51.100.7\n203.0.113.9\n' >"$LIST"

# Timed bans across a stop, an unload and a start three seconds later.
check "start with timed bans to come" run_unit ExecStart
check "timed bans added" cfctl add -s f2b-sshd -t 3600 203.0.113.10
cfctl add -s f2b-sshd -t 2 203.0.113.11 >/dev/null
check "stop saves deadlines" run_unit ExecStop
check "saved with absolute deadlines" grep -q '^203\.0\.113\.10 expires [0-9]*$' "$LIST"
check "module unloads with timed bans" unload
sleep 3
check "start after the unload" run_unit ExecStartPre
check "start restores" run_unit ExecStart
check "reboot: the live ban keeps its deadline, the expired one stays gone" \
	reboot_keeps_deadlines
cfctl flush -s f2b-sshd >/dev/null
check "stop after the timed bans" run_unit ExecStop

# tc and --match-dst, in either order.
printf 'cf0 tc --match-dst\ncf1 --match-dst generic\n' >"$IFACES"
check "tc and --match-dst: ExecStart succeeds" run_unit ExecStart
check "cf0 at TC ingress, matching destinations" \
	sh -c 'cfctl status | grep -q "^cf0: cfilter_tc .*destination matching on$"'
check "cf1 in generic XDP, matching destinations" \
	sh -c 'cfctl status | grep -q "^cf1: cfilter_xdp in generic mode .*destination matching on$"'
check "tc and --match-dst: ExecStop succeeds" run_unit ExecStop
check "cf0 detached from TC" sh -c '! cfctl status | grep -q "^cf0:"'

printf 'cf0 turbo\ncf0 generic extra\nnosuch0\ncf1 tc generic\n' >"$IFACES"
export CFILTER_IFACE_WAIT=1
check "bad interfaces file: ExecStart fails" not run_unit ExecStart
check "bad mode named with its line" said "$IFACES:1: 'turbo' of cf0: want native, generic or tc, and --match-dst"
check "extra field named with its line" said "$IFACES:2: 'extra' of cf0: want native, generic or tc, and --match-dst"
check "missing interface named" said "$IFACES:3: no interface nosuch0 after 1 s: not attached"
check "two modes named with their line" said "$IFACES:4: 'cf1 tc generic': want IFACE [native|generic|tc] [--match-dst]"
unset CFILTER_IFACE_WAIT
printf 'cf0\n' >"$IFACES"
run_unit ExecStop >/dev/null

# Module parameters come from /etc/modprobe.d; a compact filter cannot be
# listed, so stop keeps the last list.
check "module unloads" unload
echo "options cfilter mode=compact capacity=1024 max_capacity=1024" >/etc/modprobe.d/cfilter.conf
cp "$LIST" /tmp/list.before
check "ExecStartPre with modprobe.d options" run_unit ExecStartPre
check "mode=compact from modprobe.d" grep -qx compact /sys/module/cfilter/parameters/mode
check "compact: ExecStart succeeds" run_unit ExecStart
check "compact: ExecStop succeeds" run_unit ExecStop
check "compact: stop says why it saves nothing" said "compact mode cannot list its addresses"
check "compact: blocklist unchanged" cmp -s /tmp/list.before "$LIST"

echo "install: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
