#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The man page's commands, as written: every example of cfctl(8), extracted
# by scripts/check/doc-examples.sh into doc-examples.txt. Each block runs with
# sh -e, so each of its commands must succeed, from the state its text
# presumes: the module loaded as installed (modprobe finds it), cfctl
# attached to eth0, source feed holding blocklist.txt. (The README's "Using
# it on a real host" installs Debian packages and uses systemd:
# tests/system/run.sh runs it, on a booted Debian.)
# What the guest lacks is stood in for: eth0 is a veth; curl serves a
# local list (there is no network); ipset is Debian's, in the Debian root.

. "$(dirname "$0")/lib.sh"

DOCS=$tap_tmp/docs
EXAMPLES=$(dirname "$0")/doc-examples.txt

# shellcheck disable=SC2317 # called through trap, check or expect
docs_cleanup()
{
	# Detached first: eth0 deleted with libxdp's dispatcher on it would
	# leave the dispatcher's pins in /sys/fs/bpf/xdp holding cfilter.ko.
	"$CFCTL" detach eth0 >/dev/null 2>&1
	"$IP" link del eth0 2>/dev/null
	in_debian ipset destroy >/dev/null 2>&1
	if module_loaded && [ "$(cat /sys/module/cfilter/parameters/mode)" != exact ]; then
		unload_module
	fi
	lib_cleanup
}
trap docs_cleanup EXIT

# Splits doc-examples.txt into $DOCS/block.N (commands) and title.N.
split_examples()
{
	awk -v dir="$DOCS" '
	/^@@ / { n++; print substr($0, 4) > (dir "/title." n); next }
	{ print > (dir "/block." n) }
	' "$EXAMPLES"
}

# The stand-ins, first on PATH.
make_shims()
{
	mkdir -p "$DOCS/bin"
	cat >"$DOCS/bin/curl" <<-SHIM
	#!/bin/sh
	# curl -s URL: the one list the examples fetch, from a local file.
	for a; do url=\$a; done
	[ "\$url" = https://example.org/list.txt ] || { echo "curl stand-in: no \$url" >&2; exit 6; }
	cat "$DOCS/list.txt"
	SHIM
	cat >"$DOCS/bin/ipset" <<-SHIM
	#!/bin/sh
	exec chroot "$DEBIAN_ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin ipset "\$@"
	SHIM
	chmod +x "$DOCS/bin/curl" "$DOCS/bin/ipset"
	printf '192.0.2.50\n198.51.100.0/26\n' >"$DOCS/blocklist.txt"
	printf '192.0.2.70\n203.0.113.128/25\n' >"$DOCS/list.txt"
	mkdir -p /var/lib/cfilter
}

# modprobe finds the module where make install puts it.
# shellcheck disable=SC2317 # called through trap, check or expect
install_module()
{
	_dir=/lib/modules/$(uname -r)/updates
	mkdir -p "$_dir" && cp "$CFILTER_KO" "$_dir/cfilter.ko" && depmod
}

# shellcheck disable=SC2317 # called through trap, check or expect
fresh_eth0()
{
	"$IP" link del eth0 2>/dev/null
	"$IP" link add eth0 type veth peer name eth0p &&
		"$IP" link set eth0 up && "$IP" link set eth0p up
}

# The module as installed, attached to eth0, with source feed loaded.
# shellcheck disable=SC2317 # called through trap, check or expect
man_state()
{
	"$CFCTL" detach eth0 >/dev/null 2>&1
	if module_loaded; then
		unload_module || return 1
	fi
	modprobe cfilter && fresh_eth0 &&
		"$CFCTL" attach eth0 >/dev/null &&
		"$CFCTL" load -s feed "$DOCS/blocklist.txt" >/dev/null
}

# run_block N: block N as written, in $DOCS, the stand-ins first on PATH.
# shellcheck disable=SC2317 # called through trap, check or expect
run_block()
{
	(cd "$DOCS" && PATH=$DOCS/bin:$PATH sh -e "block.$1")
}

# What a block was for, checked where its own commands do not show it.
after_block()
{
	case $1 in
	*"module reload"*)
		expect "reload example: the module is now compact" 0 -- \
			grep -qx compact /sys/module/cfilter/parameters/mode
		expect "reload example: the feed's prefix survived" 0 -- \
			"$CFCTL" test 198.51.100.5
		;;
	*ipset*)
		expect "ipset example: the set's network is blocked" 0 -- \
			"$CFCTL" test 192.0.2.200
		;;
	*textfile*)
		expect "textfile example: the file has the counters" 0 \
			-o 'cfilter_packets_total{reason="passed"}' -- \
			cat /var/lib/prometheus/node-exporter/cfilter.prom
		rm -rf /var/lib/prometheus
		;;
	esac
}

tap_begin
[ -f "$EXAMPLES" ] || tap_skip_all "no $EXAMPLES (make builds it)"
[ -x "$IP" ] || tap_skip_all "iproute2 not found at $IP"
mkdir -p "$DOCS"
split_examples
make_shims
check "setup: install the module for modprobe" install_module
if [ -n "${DEBIAN_ROOT:-}" ]; then
	in_debian ipset create blocklist hash:net
	in_debian ipset add blocklist 192.0.2.128/25
	in_debian ipset add blocklist 198.51.100.200
fi

i=1
while [ -f "$DOCS/title.$i" ]; do
	title=$(cat "$DOCS/title.$i")
	# What a block needs, by its commands.
	needs=$(cat "$DOCS/title.$i" "$DOCS/block.$i")
	case $needs in
	README*)
		i=$((i + 1))
		continue
		;;
	*cscli*)
		tap_skip "$title" "needs a CrowdSec API key pasted by hand: test_crowdsec.sh runs this setup"
		i=$((i + 1))
		continue
		;;
	*ipset*)
		if [ -z "${DEBIAN_ROOT:-}" ]; then
			tap_skip "$title" "no Debian root for ipset: VM_DEBIAN=1"
			i=$((i + 1))
			continue
		fi
		check "state for $title" man_state
		;;
	*)
		check "state for $title" man_state
		;;
	esac
	expect "$title: runs as written" 0 -- run_block "$i"
	after_block "$title"
	i=$((i + 1))
done
tap_end
