#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Every loader of cfilter.bpf.o counts into one map: with the pins removed,
# ip(8) loads the object first and pins the map in its place, cfctl attach
# reuses it and pins it where bpftool looks, and bpftool's load reuses it
# there; the three programs hold one map id. Each deployment in turn drops
# N pings from a blocked source on $VETH, and cfctl stats shows exactly N
# more in dropped_src, on $VETH's line and in the drops of the source that
# holds it. Emptied between two deployments, that source keeps its drops,
# in cfctl info (0 entries) and in its prometheus series, and counts on
# once it holds the peer again; CLEAR keeps them too.
# The same numbers come out of --format prometheus, which Debian's promtool
# accepts, and --textfile writes the same series. The metrics are written,
# exit 0, in every state an alert must see: the module without any
# program (cfilter_attached 0), attached (the interface, its mode and
# prefilter), the module unloaded (cfilter_module_loaded 0); promtool
# checks each, and the example alerting rules. A counter map an older
# cfctl pinned is still read; a bad --format is a usage error.

. "$(dirname "$0")/lib.sh"

OBJ=$(dirname "$0")/cfilter.bpf.o
PROGS=/sys/fs/bpf/cftest_progs
PIN=/sys/fs/bpf/tc/globals/cfilter_stats
PIN_BPFTOOL=/sys/fs/bpf/cfilter_stats
# ip's place for XDP: the same as $PIN through iproute2's link xdp -> tc,
# which cfctl makes before libxdp makes a directory of that name
PIN_XDP=/sys/fs/bpf/xdp/globals/cfilter_stats
PIN_OLD=/sys/fs/bpf/cfilter/stats
N=3
# The peer's source: later tests find default's drops untouched. Its own
# last until the module goes (test_rmmod.sh reloads it).
SOURCE=counters

counters_cleanup()
{
	"$IP" link set dev "$VETH" xdpgeneric off 2>/dev/null
	rm -rf "$PROGS" "$PIN_OLD"
	lib_cleanup
}
trap counters_cleanup EXIT

# The dropped_src of $VETH's line of cfctl stats (0 if it has none).
iface_dropped()
{
	"$CFCTL" stats | sed -n "s/^interface $VETH:.* dropped_src \([0-9]*\),.*/\1/p" |
		grep . || echo 0
}

# The drops of source $SOURCE.
source_drops()
{
	"$CFCTL" stats | sed -n "s/^source $SOURCE: drops \([0-9]*\)\$/\1/p"
}

# xdp_uses_map ID: the XDP program on $VETH uses map ID.
xdp_uses_map()
{
	prog=$("$IP" link show dev "$VETH" |
		sed -n 's/.*prog\/xdp id \([0-9]*\) .*/\1/p')
	ids=$("$BPFTOOL" -j prog show id "$prog" |
		sed -n 's/.*"map_ids":\[\([0-9,]*\)\].*/\1/p')
	case ",$ids," in
	*",$1,"*) return 0 ;;
	esac
	return 1
}

# progs_use_map ID: every loaded program named cfilter_xdp (in libxdp's
# dispatcher, cfctl's is not the one attached to $VETH) uses map ID.
progs_use_map()
{
	"$BPFTOOL" -j prog show name cfilter_xdp >"$tap_tmp/progs" || return 1
	n=$(grep -o '"map_ids":\[[0-9,]*\]' "$tap_tmp/progs" | wc -l)
	k=$(grep -o '"map_ids":\[[0-9,]*\]' "$tap_tmp/progs" |
		grep -c "[[,]$1[],]")
	[ "$n" -gt 0 ] && [ "$n" = "$k" ]
}

pinned_map_id()
{
	"$BPFTOOL" -j map show pinned "$1" | sed -n 's/^{"id":\([0-9]*\),.*/\1/p'
}

# drop_n WHO: N pings from the blocked peer on $VETH, and cfctl stats shows
# exactly N more drops in total, on $VETH's line and for $SOURCE.
drop_n()
{
	total=$(stat_value dropped_src) iface=$(iface_dropped)
	drops=$(source_drops)
	expect "$1: $N pings from the blocked peer get no answer" nonzero -- \
		"$IP" netns exec "$NS" ping -c "$N" -i 0.2 -W 1 "$HOST4"
	expect "$1: dropped_src counts $N more" 0 -- \
		test "$(stat_value dropped_src)" = $((total + N))
	expect "$1: $VETH's line counts $N more dropped_src" 0 -- \
		test "$(iface_dropped)" = $((iface + N))
	expect "$1: source $SOURCE counts $N more drops" 0 -- \
		test "$(source_drops)" = $((drops + N))
}

# The peer's source, emptied, keeps its drops: cfctl stats and info, and
# its prometheus series, say the same number as before; then it holds the
# peer again.
emptied()
{
	drops=$(source_drops)
	check "emptied: del -s $SOURCE $PEER4" "$CFCTL" del -s "$SOURCE" "$PEER4"
	expect "emptied: source $SOURCE keeps its $drops drops" 0 -- \
		test "$(source_drops)" = "$drops"
	expect "emptied: info lists it with 0 entries and its drops" 0 \
		-o "source $SOURCE: entries 0, timed 0, drops $drops" -- \
		"$CFCTL" info
	"$CFCTL" stats --format prometheus >"$tap_tmp/emptied.prom"
	expect "emptied: its prometheus series keeps its value" 0 -- \
		test "$(series "cfilter_source_drops_total{source=\"$SOURCE\"}" \
			"$tap_tmp/emptied.prom")" = "$drops"
	check "emptied: block the peer again" \
		"$CFCTL" add -s "$SOURCE" "$PEER4"
}

loaders()
{
	expect "ip loads cfilter.bpf.o on $VETH" 0 -- \
		"$IP" link set dev "$VETH" xdpgeneric obj "$OBJ" sec xdp
	expect "ip pinned the map in iproute2's place" 0 -- test -e "$PIN_XDP"
	expect "no one handed ip's program's prefilter over: status says off" 0 \
		-o "  prefilter: off (every packet calls the module)" -- \
		"$CFCTL" status
	# Where libxdp (xdp-loader, or cfctl's dispatcher in an earlier test)
	# made /sys/fs/bpf/xdp a directory first, ip's XDP place is its own.
	if [ -L /sys/fs/bpf/xdp ]; then
		expect "... which is tc's place too (xdp links to tc)" 0 -- \
			test "$(readlink /sys/fs/bpf/xdp)" = /sys/fs/bpf/tc/ -a \
			-e "$PIN"
	else
		expect "... in libxdp's directory, not tc's place yet" 0 -- \
			test ! -e "$PIN"
	fi
	drop_n ip
	id=$(pinned_map_id "$PIN_XDP")
	expect "ip's program counts into the pinned map" 0 -- \
		xdp_uses_map "${id:-none}"
	"$IP" link set dev "$VETH" xdpgeneric off

	expect "cfctl attach $VETH" 0 -- "$CFCTL" attach -m generic "$VETH"
	expect "cfctl's program counts into the same map" 0 -- \
		progs_use_map "${id:-none}"
	expect "cfctl pinned it in tc's place" 0 -- \
		test "$(pinned_map_id "$PIN")" = "$id"
	expect "cfctl pinned it where bpftool looks" 0 -- \
		test "$(pinned_map_id "$PIN_BPFTOOL")" = "$id"
	drop_n cfctl
	emptied
	"$CFCTL" detach "$VETH" >/dev/null

	expect "bpftool loads cfilter.bpf.o" 0 -- \
		"$BPFTOOL" prog loadall "$OBJ" "$PROGS"
	expect "bpftool attaches it to $VETH" 0 -- \
		"$BPFTOOL" net attach xdpgeneric pinned "$PROGS/cfilter_xdp" \
		dev "$VETH"
	expect "bpftool's program counts into the same map" 0 -- \
		xdp_uses_map "${id:-none}"
	drop_n bpftool
	"$BPFTOOL" net detach xdpgeneric dev "$VETH"
	rm -rf "$PROGS"
}

# The value of the series (a whole line up to the value) in file $2.
series()
{
	awk -v s="$1" 'index($0, s " ") == 1 { print substr($0, length(s) + 2) }' "$2"
}

# metrics_state STATE: stats --format prometheus and --textfile exit 0 in
# STATE, and promtool accepts what they write, left in $tap_tmp/STATE.
metrics_state()
{
	expect "$1: stats --format prometheus exits 0" 0 -- \
		"$CFCTL" stats --format prometheus
	cp "$tap_tmp/out" "$tap_tmp/$1"
	expect "$1: promtool check metrics accepts it" 0 -- \
		chroot "$DEBIAN_ROOT" /usr/bin/promtool check metrics <"$tap_tmp/$1"
	rm -f "$tap_tmp/$1.prom"
	expect "$1: --textfile writes it, exit 0" 0 -- \
		"$CFCTL" stats --format prometheus --textfile "$tap_tmp/$1.prom"
	expect "$1: the textfile has cfilter_attached" 0 -- \
		grep -q '^cfilter_attached ' "$tap_tmp/$1.prom"
}

# gauges STATE LOADED BTF ATTACHED: the module and attachment gauges.
gauges()
{
	expect "$1: cfilter_module_loaded $2, cfilter_module_btf $3, cfilter_attached $4" 0 -- \
		test "$(series cfilter_module_loaded "$tap_tmp/$1")/$(series cfilter_module_btf "$tap_tmp/$1")/$(series cfilter_attached "$tap_tmp/$1")" = "$2/$3/$4"
}

# The module loaded and no program attached: after a reboot, before
# cfilter.service attaches, or after it failed to.
unattached_metrics()
{
	metrics_state unattached
	gauges unattached 1 1 0
	expect "unattached: no interface listed" 0 -O "cfilter_attachment_info{" -- \
		cat "$tap_tmp/unattached"
	expect "unattached: the counters, 0 with no map pinned" 0 -- \
		test "$(series 'cfilter_packets_total{reason="dropped_src"}' "$tap_tmp/unattached")" = 0
	# The Debian root sees the guest's /tmp, $tap_tmp's home.
	cp prometheus-cfilter.rules.yml "$tap_tmp/cfilter.rules.yml"
	expect "promtool check rules accepts the example alerting rules" 0 \
		-o "SUCCESS: 4 rules found" -- chroot "$DEBIAN_ROOT" \
		/usr/bin/promtool check rules "$tap_tmp/cfilter.rules.yml"
}

attached_metrics()
{
	check "attached: cfctl attach -m generic $VETH" \
		"$CFCTL" attach -m generic "$VETH"
	metrics_state attached
	gauges attached 1 1 1
	expect "attached: $VETH, hook and mode" 0 -- \
		test "$(series "cfilter_attachment_info{interface=\"$VETH\",hook=\"xdp\",mode=\"generic\"}" "$tap_tmp/attached")" = 1
	expect "attached: its prefilter on" 0 -- \
		test "$(series "cfilter_prefilter_enabled{interface=\"$VETH\",hook=\"xdp\"}" "$tap_tmp/attached")" = 1
	check "attached: cfctl detach $VETH" "$CFCTL" detach "$VETH"
}

# The module unloaded: the gauges say so, the pinned counters stay.
unloaded_metrics()
{
	if ! unload_module; then
		tap_not_ok "unloaded: rmmod cfilter"
		return
	fi
	metrics_state unloaded
	gauges unloaded 0 0 0
	expect "unloaded: no source or set metrics, an empty module version" 0 \
		-O "cfilter_set_entries{" -o 'module_version=""} 1' -- \
		cat "$tap_tmp/unloaded"
	expect "unloaded: the pinned map's drops still counted" 0 -- \
		test "$(series 'cfilter_packets_total{reason="dropped_src"}' "$tap_tmp/unloaded")" -gt 0
	check "unloaded: insmod again" load_module
}

prometheus()
{
	m=$tap_tmp/metrics
	"$CFCTL" stats --format prometheus >"$m"
	expect "prometheus: promtool check metrics accepts it" 0 -- \
		chroot "$DEBIAN_ROOT" /usr/bin/promtool check metrics <"$m"
	expect "prometheus: dropped_src total as cfctl stats says" 0 -- \
		test "$(series 'cfilter_packets_total{reason="dropped_src"}' "$m")" = \
		"$(stat_value dropped_src)"
	expect "prometheus: $VETH's dropped_src as cfctl stats says" 0 -- \
		test "$(series "cfilter_interface_packets_total{interface=\"$VETH\",reason=\"dropped_src\"}" "$m")" = \
		"$(iface_dropped)"
	expect "prometheus: the three deployments' drops on $VETH" 0 -- \
		test "$(iface_dropped)" = $((3 * N))
	expect "prometheus: source $SOURCE's drops" 0 -- \
		test "$(series "cfilter_source_drops_total{source=\"$SOURCE\"}" "$m")" = \
		$((3 * N))
	expect "prometheus: the one src4 entry" 0 -- \
		test "$(series 'cfilter_set_entries{key_type="src4"}' "$m")" = 1
	expect "prometheus: src4's memory" 0 -- \
		test "$(series 'cfilter_set_memory_bytes{key_type="src4"}' "$m")" -gt 0
	expect "prometheus: build info names the module's version" 0 \
		-o "module_version=\"$(cat /sys/module/cfilter/version)\"} 1" -- \
		cat "$m"
	expect "prometheus: --textfile writes the same metrics" 0 -- \
		"$CFCTL" stats --format prometheus --textfile "$tap_tmp/cfilter.prom"
	# promtool is slow to start under emulation: once is enough, as the
	# textfile must hold the same series.
	sed 's/ [0-9]*$//' "$m" >"$m.series"
	expect "prometheus: the textfile has the same series" 0 -- \
		sh -c 'sed "s/ [0-9]*\$//" "$1" | cmp -s - "$2"' sh \
		"$tap_tmp/cfilter.prom" "$m.series"
	expect "prometheus: the textfile has $VETH's drops" 0 -- \
		test "$(series "cfilter_interface_packets_total{interface=\"$VETH\",reason=\"dropped_src\"}" "$tap_tmp/cfilter.prom")" = $((3 * N))
	expect "prometheus: the textfile is 0644, no temporary left" 0 -- \
		test "$(stat -c %a "$tap_tmp/cfilter.prom")" = 644 -a \
		"$(ls "$tap_tmp" | grep -c 'cfilter.prom.')" = 0
	expect "prometheus: --textfile in a missing folder: exit 3" 3 \
		-e "/nonexistent/cfilter.prom" -- \
		"$CFCTL" stats --format prometheus --textfile /nonexistent/cfilter.prom
	expect "stats --format xml: usage error" 2 \
		-e "invalid format 'xml': expected text or prometheus" -- \
		"$CFCTL" stats --format xml
	expect "stats -j --format prometheus: usage error" 2 -- \
		"$CFCTL" stats -j --format prometheus
}

# A map laid out as an older cfctl pinned it (totals only): its counts add
# to the totals.
old_pin()
{
	ncpus=$(awk -F- '{ print $NF + 1 }' /sys/devices/system/cpu/possible)
	before=$(stat_value dropped_src)
	mkdir -p "${PIN_OLD%/*}"
	check "old pin: bpftool creates an old-layout map" \
		"$BPFTOOL" map create "$PIN_OLD" type percpu_array key 4 \
		value 8 entries 9 name cfilter_stats
	# bpftool gives every CPU the value.
	check "old pin: 7 drops per CPU in it" \
		"$BPFTOOL" map update pinned "$PIN_OLD" key 1 0 0 0 \
		value 7 0 0 0 0 0 0 0
	expect "old pin: its drops add to dropped_src" 0 -- \
		test "$(stat_value dropped_src)" = $((before + 7 * ncpus))
	rm -f "$PIN_OLD"
}

tap_begin
load_module || tap_skip_all "cannot load $CFILTER_KO"
[ -x "$IP" ] || tap_skip_all "iproute2 not found at $IP"
[ -e "$OBJ" ] || tap_skip_all "cfilter.bpf.o not built: make -C tests/selftests"
# Counting from an empty map: no program of an earlier test still runs.
rm -f "$PIN" "$PIN_BPFTOOL" "$PIN_XDP"
"$CFCTL" clear
if ! veth_setup; then
	tap_not_ok "setup: $NS and $VETH"
	tap_end
fi
check "setup: block the peer" "$CFCTL" add -s "$SOURCE" "$PEER4"
if [ -n "${DEBIAN_ROOT:-}" ]; then
	unattached_metrics
else
	tap_skip "metrics without a program" "no Debian root: run the guest with VM_DEBIAN=1"
fi
loaders
if [ -n "${DEBIAN_ROOT:-}" ]; then
	prometheus
	attached_metrics
else
	tap_skip "prometheus" "no Debian root: run the guest with VM_DEBIAN=1"
fi
old_pin
"$CFCTL" clear
expect "clear: source $SOURCE keeps its drops" 0 -- \
	test "$(source_drops)" = $((3 * N))
if [ -n "${DEBIAN_ROOT:-}" ]; then
	unloaded_metrics
else
	tap_skip "metrics without the module" "no Debian root: run the guest with VM_DEBIAN=1"
fi

tap_end
