#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cfctl log on real traffic: namespace cfns pings from addresses that
# entries of different sources block (an address, a prefix, an ICMP flow,
# an IPv6 prefix), and the log shows one event per echo request sent,
# with its interface, addresses, type, counter, entry and source; its
# filters keep what they name. Under a flood, the rate limit holds: per
# CPU, at most --rate events in any window of a second, and the events
# and the drops said left out add up to the drops counted. Nothing is
# made while no one reads, after a reader ends or after one is killed
# (once its lease is past). cfilter.service's CFILTER_DROP_LOG=1 keeps a
# reader running from start to stop. Readers share the maps of every
# loader: cfctl attach, ip, bpftool, and the TC hook. Four readers at
# once, not five.

. "$(dirname "$0")/lib.sh"

OBJ=$(dirname "$0")/cfilter.bpf.o
PROGS=/sys/fs/bpf/cflog_progs
CTL=/sys/fs/bpf/tc/globals/cfilter_log_ctl
CPUS=/sys/fs/bpf/tc/globals/cfilter_log_cpu

JAIL4=192.0.2.3		# held by jail
NET4=192.0.2.4/31	# held by feed
IN_NET4=192.0.2.5
FLOW4=192.0.2.6		# its echo requests: a flow of flows
FLOOD4=192.0.2.7	# held by flood
NET6=2001:db8::/126	# held by feed: covers the peer's $PEER6

readers=

droplog_cleanup()
{
	for p in $readers; do
		kill -9 "$p" 2>/dev/null
	done
	"$IP" link set dev "$VETH" xdpgeneric off 2>/dev/null
	rm -rf "$PROGS"
	lib_cleanup
}
trap droplog_cleanup EXIT

# start_reader NAME ARGS...: cfctl ARGS in the background, output in
# $tap_tmp/NAME.out and .err, its pid in $reader; fails unless it says it
# listens within 20 s.
start_reader()
{
	_name=$1
	shift
	"$CFCTL" "$@" >"$tap_tmp/$_name.out" 2>"$tap_tmp/$_name.err" &
	reader=$!
	readers="$readers $reader"
	within 20 grep -q "listening" "$tap_tmp/$_name.err"
}

# stop_reader PID: SIGINT, and its exit status.
stop_reader()
{
	kill -INT "$1"
	wait "$1"
}

# N echo requests from address FROM of the namespace to $HOST4 (or TO),
# their summary in $tap_tmp/ping.FROM; they are dropped.
pings_from()
{
	"$IP" netns exec "$NS" ping -c "$2" -i 0.2 -W 1 -I "$1" "${3:-$HOST4}" \
		>"$tap_tmp/ping.$1" 2>&1
	return 0
}

sent_from()
{
	ping_sent "$tap_tmp/ping.$1"
}

drops_of()
{
	"$CFCTL" info | sed -n "s/^source $1: .*, drops \([0-9][0-9]*\)\$/\1/p"
}

# The events and left-out drops the programs counted, over every CPU.
log_made()
{
	"$BPFTOOL" -j map dump pinned "$CPUS" |
		grep -o '"\(events\|left_out\)":[0-9]*' | cut -d: -f2 |
		awk '{ s += $1 } END { print s + 0 }'
}

log_until()
{
	"$BPFTOOL" -j map dump pinned "$CTL" | grep -o '"until":[0-9]*' |
		cut -d: -f2
}

# xdp_uses_map ID: the XDP program on $VETH uses map ID.
xdp_uses_map()
{
	_prog=$("$IP" link show dev "$VETH" |
		sed -n 's/.*prog\/xdp id \([0-9]*\) .*/\1/p')
	_ids=$("$BPFTOOL" -j prog show id "$_prog" |
		sed -n 's/.*"map_ids":\[\([0-9,]*\)\].*/\1/p')
	case ",$_ids," in
	*",$1,"*) return 0 ;;
	esac
	return 1
}

# count_lines FILE TEXT: the lines of FILE that contain TEXT.
count_lines()
{
	grep -cF -- "$2" "$1"
}

left_out_sum()
{
	grep -o '"left_out":[0-9]*' "$1" | cut -d: -f2 |
		awk '{ s += $1 } END { print s + 0 }'
}

# rate_held FILE RATE: for each CPU, the events of FILE (-j lines) number
# at most RATE per window: windows start at least a second apart, so
# events from T0 to T1 span at most floor(T1 - T0) + 1 of them. The
# program times windows with the coarse clock, to a tick (at most 10 ms):
# the bound allows for it.
rate_held()
{
	awk -v rate="$2" '
	/"saddr"/ {
		match($0, /"time":"[^"]*"/)
		split(substr($0, RSTART + 19, RLENGTH - 21), hms, ":")
		t = hms[1] * 3600 + hms[2] * 60 + hms[3]
		match($0, /"cpu":[0-9]*/)
		c = substr($0, RSTART + 6, RLENGTH - 6)
		if (!(c in first)) first[c] = t
		last[c] = t
		n[c]++
	}
	END {
		for (c in n)
			if (n[c] > rate * (int(last[c] - first[c] + 0.01) + 1)) {
				print "cpu " c ": " n[c] " events in " last[c] - first[c] " s"
				exit 1
			}
	}' "$1"
}

tap_begin
load_module || tap_skip_all "cannot load $CFILTER_KO"
[ -x "$IP" ] || tap_skip_all "iproute2 not found at $IP"
[ -x "$BPFTOOL" ] || tap_skip_all "bpftool not found at $BPFTOOL"
[ "$(cat /sys/module/cfilter/parameters/mode 2>/dev/null)" = compact ] &&
	tap_skip_all "compact mode: every entry is default's"
check "setup: cfctl clear" "$CFCTL" clear
veth_attached "$JAIL4" "$IN_NET4" "$FLOW4" "$FLOOD4"
check "setup: jail holds $JAIL4" "$CFCTL" add -s jail "$JAIL4"
check "setup: feed holds $NET4" "$CFCTL" add -s feed "$NET4"
check "setup: feed holds $NET6" "$CFCTL" add -s feed "$NET6"
check "setup: flows hold the echo requests of $FLOW4" \
	"$CFCTL" add -s flows icmp "$FLOW4" "$HOST4" 8
check "setup: flood holds $FLOOD4" "$CFCTL" add -s flood "$FLOOD4"

# ---- the events are the pings -------------------------------------------
made0=$(log_made)
pings_from "$JAIL4" 2
expect "no reader: the drops made no event" 0 -- test "$(log_made)" = "$made0"
expect "no reader: the log is off" 0 -- test "$(log_until)" = 0

start_reader all log -j
expect "log -j listens" 0 -o "at most 100 events/s per CPU" -- \
	cat "$tap_tmp/all.err"
pings_from "$JAIL4" 3
pings_from "$IN_NET4" 2
pings_from "$FLOW4" 2
pings_from "$PEER6" 2 "$HOST6"
expect "log -j ends at SIGINT, exit 0" 0 -- stop_reader "$reader"
out=$tap_tmp/all.out
expect "every event: on $VETH, at XDP" 0 -- \
	test "$(count_lines "$out" '{"time":"20')" = "$(wc -l <"$out")" -a \
	"$(count_lines "$out" '"interface":"cfv0","hook":"xdp","cpu":')" = "$(wc -l <"$out")"
expect "an event per echo request from $JAIL4 ($(sent_from "$JAIL4")): address, entry, source" 0 -- \
	test "$(count_lines "$out" '"family":4,"saddr":"192.0.2.3","daddr":"192.0.2.1","proto":"icmp","icmp_type":8,"reason":"dropped_src","entry":"192.0.2.3","source":"jail"}')" = "$(sent_from "$JAIL4")"
expect "an event per echo request from $IN_NET4: its prefix, held by feed" 0 -- \
	test "$(count_lines "$out" '"saddr":"192.0.2.5","daddr":"192.0.2.1","proto":"icmp","icmp_type":8,"reason":"dropped_prefix","entry":"192.0.2.4/31","source":"feed"}')" = "$(sent_from "$IN_NET4")"
expect "an event per echo request from $FLOW4: the flow, held by flows" 0 -- \
	test "$(count_lines "$out" '"saddr":"192.0.2.6","daddr":"192.0.2.1","proto":"icmp","icmp_type":8,"reason":"dropped_flow","entry":"icmp 192.0.2.6 192.0.2.1 8","source":"flows"}')" = "$(sent_from "$FLOW4")"
expect "an event per IPv6 echo request: the /126, held by feed" 0 -- \
	test "$(count_lines "$out" '"family":6,"saddr":"2001:db8::2","daddr":"2001:db8::1","proto":"icmp6","icmp_type":128,"reason":"dropped_prefix","entry":"2001:db8::/126","source":"feed"}')" = "$(sent_from "$PEER6")"
expect "no other line: $(($(sent_from "$JAIL4") + $(sent_from "$IN_NET4") + $(sent_from "$FLOW4") + $(sent_from "$PEER6"))) events, nothing left out" 0 -- \
	test "$(wc -l <"$out")" = $(($(sent_from "$JAIL4") + $(sent_from "$IN_NET4") + $(sent_from "$FLOW4") + $(sent_from "$PEER6")))
expect "the reader gone, the log is off at once" 0 -- test "$(log_until)" = 0
made0=$(log_made)
pings_from "$JAIL4" 3
expect "and the drops after it made no event" 0 -- test "$(log_made)" = "$made0"

start_reader text log
pings_from "$JAIL4" 1
stop_reader "$reader"
expect "text: TIME IFACE PACKET: REASON by ENTRY, source NAME" 0 -- \
	grep -q "^20[0-9-]* [0-9:]*\.[0-9]\{6\} cfv0 icmp 192\.0\.2\.3 > 192\.0\.2\.1 type 8: dropped_src by 192\.0\.2\.3, source jail\$" \
	"$tap_tmp/text.out"

# ---- filters -------------------------------------------------------------
start_reader filtered log -j -s feed --iface "$VETH" --count 2 192.0.2.4/31
pings_from "$JAIL4" 1
pings_from "$IN_NET4" 2
expect "-s feed --iface $VETH --count 2 CIDR: ends by itself, exit 0" 0 -- \
	wait "$reader"
expect "... after the 2 events of $IN_NET4 alone" 0 -- \
	test "$(count_lines "$tap_tmp/filtered.out" '"saddr":"192.0.2.5"')" = 2 -a \
	"$(wc -l <"$tap_tmp/filtered.out")" = 2
start_reader other log -j --iface lo --duration 3
pings_from "$JAIL4" 1
expect "--iface lo --duration 3: ends by itself" 0 -- wait "$reader"
expect "... having shown nothing of $VETH" 0 -- test ! -s "$tap_tmp/other.out"
expect "log --iface nosuch: usage error" 2 -e "unknown interface 'nosuch'" -- \
	"$CFCTL" log --iface nosuch
expect "log 192.0.2.7/24: host bits, usage error" 2 -e "host bits set" -- \
	"$CFCTL" log 192.0.2.7/24
expect "log --rate 0: usage error" 2 -e "invalid rate '0'" -- \
	"$CFCTL" log --rate 0
expect "log -w: top's option, usage error" 2 -e "applies only to top" -- \
	"$CFCTL" log -w 5
expect "log as nobody: exit 3, says permission denied" 3 \
	-e "permission denied" -- "$(dirname "$0")/as_nobody" "$CFCTL" log

# ---- the rate limit under a flood ----------------------------------------
start_reader flood log -j --rate 5
expect "--rate 5 is the limit" 0 -o "at most 5 events/s per CPU" -- \
	cat "$tap_tmp/flood.err"
d0=$(drops_of flood)
"$IP" netns exec "$NS" ping -q -i 0.002 -w 3 -W 1 -I "$FLOOD4" "$HOST4" \
	>/dev/null 2>&1
d1=$(drops_of flood)
expect "flood: ends at SIGINT" 0 -- stop_reader "$reader"
out=$tap_tmp/flood.out
events=$(count_lines "$out" '"saddr":"192.0.2.7"')
left=$(left_out_sum "$out")
diag "flood: $((d1 - d0)) drops, $events events, $left left out"
expect "flood: events and left out add up to the $((d1 - d0)) drops" 0 -- \
	test $((events + left)) = $((d1 - d0))
expect "flood: some left out" 0 -- test "$left" -gt 0
expect "flood: per CPU, at most 5 events a window" 0 -- rate_held "$out" 5
expect "flood: a left-out line each second it lasted" 0 -- \
	test "$(count_lines "$out" '"left_out":')" -ge 2
expect "flood: every event is the flood's" 0 -- \
	test "$(count_lines "$out" '"source":"flood"}')" = "$events"

start_reader again log
expect "the next reader alone is back to 100" 0 -o "at most 100 events/s per CPU" -- \
	cat "$tap_tmp/again.err"
start_reader second log --rate 7
start_reader third log
expect "--rate sets it for every reader; one without it keeps it" 0 \
	-o "at most 7 events/s per CPU" -- cat "$tap_tmp/third.err"
start_reader fourth log
expect "a fifth reader at once: refused, exit 3" 3 -e "4 readers" -- \
	"$CFCTL" log
for p in $readers; do
	kill -INT "$p" 2>/dev/null
	wait "$p" 2>/dev/null
done
readers=
expect "four readers gone: off" 0 -- test "$(log_until)" = 0

# ---- a reader killed -----------------------------------------------------
start_reader killed log
kill -9 "$reader"
wait "$reader" 2>/dev/null
expect "killed: its lease holds the log on for now" 0 -- \
	test "$(log_until)" != 0
off_after_drop()
{
	pings_from "$JAIL4" 1
	[ "$(log_until)" = 0 ]
}
expect "killed: a drop past its lease turns the log off" 0 -- \
	within 30 off_after_drop
made0=$(log_made)
pings_from "$JAIL4" 3
expect "killed: later drops make no event" 0 -- test "$(log_made)" = "$made0"
start_reader after log -j --count 1
pings_from "$JAIL4" 1
expect "killed: its slot serves the next reader" 0 -- wait "$reader"
expect "... which gets its event" 0 -- \
	test "$(count_lines "$tap_tmp/after.out" '"source":"jail"}')" = 1

# ---- cfilter.service's drop log ------------------------------------------
# cfilter-boot as the unit runs it, with CFILTER_DROP_LOG=1 from
# /etc/default/cfilter; not under systemd, its cfctl log writes to the
# script's stdout.
boot()
{
	CFCTL=$CFCTL CFILTER_INTERFACES=$tap_tmp/interfaces \
	CFILTER_BLOCKLIST=$tap_tmp/blocklist CFILTER_ATTACHED=$tap_tmp/attached \
	CFILTER_DROP_LOG=1 CFILTER_DROP_LOG_RATE=50 \
	CFILTER_DROP_LOG_PID=$tap_tmp/droplog.pid \
		sh "$(dirname "$0")/cfilter-boot" "$1" >>"$tap_tmp/boot.out" 2>&1
}
echo "$VETH generic" >"$tap_tmp/interfaces"
expect "cfilter-boot start, CFILTER_DROP_LOG=1" 0 -- boot start
droplog=$(cat "$tap_tmp/droplog.pid" 2>/dev/null)
readers="$readers $droplog"
expect "... leaves cfctl log running, at CFILTER_DROP_LOG_RATE" 0 -- \
	within 20 grep -q "listening, at most 50 events/s per CPU" "$tap_tmp/boot.out"
pings_from "$JAIL4" 2
expect "... which logs the drops" 0 -- within 10 test \
	"$(count_lines "$tap_tmp/boot.out" ": dropped_src by 192.0.2.3, source jail")" = \
	"$(sent_from "$JAIL4")"
expect "cfilter-boot stop" 0 -- boot stop
expect "... ends it" 1 -- kill -0 "${droplog:-0}"
expect "... which let go of its lease: the log is off" 0 -- \
	test "$(log_until)" = 0
check "attach again" "$CFCTL" attach "$VETH" --mode generic

# ---- every loader's programs -------------------------------------------
ctl_id=$("$BPFTOOL" -j map show pinned "$CTL" | sed -n 's/^{"id":\([0-9]*\),.*/\1/p')
"$CFCTL" detach "$VETH" >/dev/null
expect "ip loads cfilter.bpf.o on $VETH" 0 -- \
	"$IP" link set dev "$VETH" xdpgeneric obj "$OBJ" sec xdp
expect "ip's program uses the pinned switch" 0 -- xdp_uses_map "${ctl_id:-none}"
start_reader ip log -j --count 2
pings_from "$JAIL4" 2
expect "ip's program: the reader gets its 2 events" 0 -- wait "$reader"
"$IP" link set dev "$VETH" xdpgeneric off
expect "bpftool loads cfilter.bpf.o" 0 -- \
	"$BPFTOOL" prog loadall "$OBJ" "$PROGS"
expect "bpftool attaches it" 0 -- \
	"$BPFTOOL" net attach xdpgeneric pinned "$PROGS/cfilter_xdp" dev "$VETH"
expect "bpftool's program uses the pinned switch" 0 -- xdp_uses_map "${ctl_id:-none}"
start_reader bpftool log -j --count 2
pings_from "$JAIL4" 2
expect "bpftool's program: the reader gets its 2 events" 0 -- wait "$reader"
"$IP" link set dev "$VETH" xdpgeneric off
rm -rf "$PROGS"
expect "attach -m tc" 0 -- "$CFCTL" attach -m tc "$VETH"
start_reader tc log -j --count 1
pings_from "$JAIL4" 1
expect "the TC program: its event says so" 0 -- wait "$reader"
expect "... hook tc" 0 -- \
	test "$(count_lines "$tap_tmp/tc.out" '"hook":"tc"')" = 1
"$CFCTL" detach "$VETH" >/dev/null

"$CFCTL" clear
veth_cleanup
tap_end
