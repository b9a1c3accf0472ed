#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cfctl for operators: load (list files, all or nothing unless --skip-bad;
# their sources, timeouts and expiry times), save (whose output load
# restores, every source and deadline), --dry-run on every command that
# changes something, -j/--json, --version; an IPv4-mapped address
# (::ffff:a.b.c.d) in add, test, match, del and load drops the IPv4
# peer's real packets. Exit statuses as in
# test_cfctl.sh: 2 for bad input (named with FILE:LINE:), 3 for system
# errors.

. "$(dirname "$0")/lib.sh"
trap lib_cleanup EXIT

# Entries in the big-load case: as many as a large threat-intel list.
# About 20 s of the test under TCG, most of it awk writing the list.
: "${LOAD_ENTRIES:=1000000}"

# The number on the `cfctl info` line for FIELD.
# shellcheck disable=SC2317 # called through check
info_value()
{
	"$CFCTL" info 2>/dev/null | sed -n "s/^$1: *\([0-9][0-9]*\)$/\1/p"
}

# shellcheck disable=SC2317 # called through check
count_is()
{
	[ "$(info_value count)" = "$1" ]
}

# The sorted entries of `cfctl save`, without its header, on one line.
saved()
{
	"$CFCTL" save | grep -v '^#' | sort | tr '\n' ' '
}

# Keeps the last command's stderr in $E, for more checks than expect's one.
E=$tap_tmp/kept.err
keep_err()
{
	cp "$tap_tmp/err" "$E"
}

# N addresses 10.x.y.z, one per line.
gen_list()
{
	awk -v n="$1" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "10.%d.%d.%d\n", i / 65536, (i / 256) % 256, i % 256
	}'
}

tap_begin
load_module || tap_skip_all "cannot load $CFILTER_KO"
check "setup: cfctl clear" "$CFCTL" clear
expect "--version: exit 0, names cfctl" 0 -o "cfctl " -- "$CFCTL" --version
for verb in load save; do
	expect "$verb --help exits 0" 0 -o "cfctl $verb" -- "$CFCTL" "$verb" --help
done
expect "load --skip-bad is in load's help" 0 -o "--skip-bad" -- \
	"$CFCTL" load --help

L=$tap_tmp/list
cat >"$L" <<'LIST'
# blocklist v1: comments, blank lines and the formats scripts write

192.0.2.1
   198.51.100.7	  ; trailing comment
add 203.0.113.9 # from a cfctl script
2001:db8::42
LIST
expect "load a list: exit 0, summary" 0 \
	-o "loaded 4 entries (4 added, 0 already present, 0 skipped)" -- \
	"$CFCTL" load "$L"
expect "load: exactly the listed entries are present" 0 -- test \
	"$("$CFCTL" list | tr '\n' ' ')" = "192.0.2.1 198.51.100.7 203.0.113.9 2001:db8::42 "
expect "load again: all already present" 0 \
	-o "loaded 4 entries (0 added, 4 already present, 0 skipped)" -- \
	"$CFCTL" load "$L"
printf '192.0.2.50\n192.0.2.50\n' >"$L.dup"
expect "a line repeated in the file: counted as already present" 0 \
	-o "loaded 2 entries (1 added, 1 already present, 0 skipped)" -- \
	"$CFCTL" load "$L.dup"

# Malformed lines: nothing applied, each named as FILE:LINE:.
check "setup: clear" "$CFCTL" clear
printf '192.0.2.10\n# ok\n192.0.2.300\n192.0.2.11\nbogus\n' >"$L.bad"
expect "a bad line: exit 2, named FILE:LINE:" 2 -e "$L.bad:3:" -- \
	"$CFCTL" load "$L.bad"
keep_err
expect "... and the next bad line too" 0 -- grep -qF "$L.bad:5:" "$E"
expect "... and the word" 0 -- grep -qF "192.0.2.300" "$E"
expect "... and the remedy" 0 -- grep -qF -- "--skip-bad" "$E"
check "a bad line: nothing applied" count_is 0
printf '192.0.2.0/24\n192.0.2.7/24\n' >"$L.cidr"
expect "host bits on line 2: exit 2, names the prefix meant" 2 \
	-e "$L.cidr:2: 192.0.2.7/24: host bits set (did you mean 192.0.2.0/24?)" \
	-- "$CFCTL" load "$L.cidr"
check "host bits: nothing applied" count_is 0
printf '203.0.113.0/24\ndst 2001:db8::/32\n192.0.2.10-192.0.2.13\nallow 203.0.113.128/25\n' \
	>"$L.pfx"
expect "load prefixes and a range: exit 0, the range as its prefixes" 0 \
	-o "loaded 5 entries (5 added, 0 already present, 0 skipped)" -- \
	"$CFCTL" load "$L.pfx"
expect "load: the prefixes listed" 0 -- test "$("$CFCTL" list | tr '\n' ' ')" = \
	"192.0.2.10/31 192.0.2.12/31 203.0.113.0/24 dst 2001:db8::/32 allow 203.0.113.128/25 "
"$CFCTL" save >"$L.pfx.saved"
check "clear" "$CFCTL" clear
expect "save and load of prefixes: exit 0" 0 -o "loaded 5 entries (5 added" -- \
	"$CFCTL" load "$L.pfx.saved"
check "clear" "$CFCTL" clear
printf '192.0.2.1 192.0.2.2\n' >"$L.flow"
expect "two words on a line: exit 2, not supported yet" 2 \
	-e "$L.flow:1:" -- "$CFCTL" load "$L.flow"
expect "--skip-bad: the good lines load, bad ones skipped" 0 \
	-o "loaded 2 entries (2 added, 0 already present, 2 skipped)" \
	-e "$L.bad:3:" -- "$CFCTL" load --skip-bad "$L.bad"
expect "--skip-bad: exactly the good entries are present" 0 -- test \
	"$("$CFCTL" list | tr '\n' ' ')" = "192.0.2.10 192.0.2.11 "

expect "missing file: exit 2, named" 2 -e "$tap_tmp/nosuchfile" -- \
	"$CFCTL" load "$tap_tmp/nosuchfile"
expect "a directory: exit 2, named" 2 -e "$tap_tmp" -- "$CFCTL" load "$tap_tmp"
expect "load without FILE: exit 2" 2 -e FILE -- "$CFCTL" load
expect "load with two files: exit 2" 2 -e "$L.dup" -- \
	"$CFCTL" load "$L" "$L.dup"

check "setup: clear" "$CFCTL" clear
run sh -c "printf '192.0.2.20\n2001:db8::20\n' | \"$CFCTL\" load -"
expect "load - reads stdin" 0 -- test "$rc" = 0
check "load -: both entries present" count_is 2
run sh -c "printf '192.0.2.21\nnope\n' | \"$CFCTL\" load -"
keep_err
expect "load - with a bad line: exit 2" 0 -- test "$rc" = 2
expect "... named <stdin>:2:" 0 -- grep -qF "<stdin>:2:" "$E"
check "load - with a bad line: nothing applied" count_is 2

# save: a header, then what load reads back into the same filter.
"$CFCTL" load "$L" >/dev/null
before=$(saved)
expect "save: exit 0, header with the count" 0 -o "# cfilter: 6 entries" \
	-- "$CFCTL" save
"$CFCTL" save >"$L.saved"
expect "save: the source line and one line per entry after the header" 0 -- \
	test "$(wc -l <"$L.saved")" -eq 8
expect "save: the source line names default" 0 -- \
	test "$(sed -n 2p "$L.saved")" = "source default"
check "clear" "$CFCTL" clear
expect "load the saved file: exit 0" 0 -o "loaded 6 entries (6 added" -- \
	"$CFCTL" load "$L.saved"
expect "save, clear, load: restores exactly" 0 -- test "$(saved)" = "$before"
expect "save with an argument: exit 2" 2 -- "$CFCTL" save x

# --dry-run: says what it would do, changes nothing.
expect "add -n: exit 0, says would add" 0 -o "would add 192.0.2.99" -- \
	"$CFCTL" add -n 192.0.2.99
expect "add --dry-run of a present entry: exit 0" 0 -o "already blocked" \
	-- "$CFCTL" add --dry-run 192.0.2.1
check "add -n changed nothing" count_is 6
expect "add -n of a bad address: exit 2, named" 2 -e 192.0.2.999 -- \
	"$CFCTL" add -n 192.0.2.999
expect "del -n: exit 0, says would delete" 0 -o "would delete 192.0.2.1" \
	-- "$CFCTL" del -n 192.0.2.1
expect "del -n of an absent entry: exit 1 as del would" 1 \
	-e "192.0.2.99" -- "$CFCTL" del -n 192.0.2.99
check "del -n changed nothing" count_is 6
expect "clear -n: exit 0, says would remove 6" 0 -o "would remove 6" -- \
	"$CFCTL" clear -n
check "clear -n changed nothing" count_is 6
printf '192.0.2.1\n192.0.2.200\n192.0.2.200\n' >"$L.dry"
expect "load -n: exit 0, counts new and present" 0 \
	-o "would load 3 entries (1 to add, 2 already present, 0 skipped)" -- \
	"$CFCTL" load -n "$L.dry"
check "load -n changed nothing" count_is 6
expect "load -n of a bad file: exit 2 as load would" 2 -e "$L.bad:3:" -- \
	"$CFCTL" load -n "$L.bad"
expect "-n on test: exit 2 (test changes nothing anyway)" 2 -- \
	"$CFCTL" test -n 192.0.2.1

# JSON.
expect "info -j: one object, count as a number" 0 -o '"count":6,' -- \
	"$CFCTL" info -j
cp "$tap_tmp/out" "$tap_tmp/info.json"
expect "info -j: the whole document" 0 -- grep -qE \
	'^\{"mode":"exact","capacity":[0-9]+,"max_capacity":[0-9]+,"count":6,"load_percent":[0-9]+\.[0-9][0-9],"buckets":[0-9]+,"slots_per_bucket":[0-9]+,"fp_bits":[0-9]+,"max_kicks":[0-9]+,"memory_bytes":[0-9]+,"insert_failures":[0-9]+,"grows":[0-9]+,"prefixes":0,"prefix_markers":0,"timed":0,"mem_used":[0-9]+,"mem_limit":[0-9]+,"sources":\[\{"name":"default","entries":6,"timed":0,"drops":[0-9]+\}\],"types":\[\{"type":"src4","count":[0-9]+,"prefixes":0,"lengths":0,"markers":0,"probes":5,"memory_bytes":[0-9]+,"capacity":[0-9]+\},.*\]\}$' \
	"$tap_tmp/info.json"
expect "-j before the command" 0 -o '"count":6,' -- "$CFCTL" -j info
check "setup: clear" "$CFCTL" clear
"$CFCTL" add 192.0.2.1 >/dev/null 2>&1
"$CFCTL" add 2001:db8::1 >/dev/null 2>&1
expect "list -j: entries with type and addr" 0 -- test "$("$CFCTL" list -j)" = \
	'{"entries":[{"type":"src4","entry":"192.0.2.1","addr":"192.0.2.1","prefix_len":32,"source":"default","timeout":0},{"type":"src6","entry":"2001:db8::1","addr":"2001:db8::1","prefix_len":128,"source":"default","timeout":0}]}'
check "clear" "$CFCTL" clear
expect "list --json of an empty filter" 0 -- test "$("$CFCTL" list --json)" = \
	'{"entries":[]}'
expect "add -j: exit 2, says which commands take it" 2 -e info -- \
	"$CFCTL" add -j 192.0.2.1
expect "-j add: exit 2" 2 -- "$CFCTL" -j add 192.0.2.1

# attach/detach --dry-run, and stats -j.
rm -f /sys/fs/bpf/tc/globals/cfilter_stats /sys/fs/bpf/cfilter_stats
veth_setup || diag "veth setup failed"
expect "attach -n: exit 0, says would attach" 0 -o "would attach" -- \
	"$CFCTL" attach -n "$VETH" --mode generic
expect "attach -n attached nothing" 1 -- has_xdp "$VETH"
expect "attach -n pinned nothing" 1 -- test -e /sys/fs/bpf/tc/globals/cfilter_stats
expect "attach -n to an unknown interface: exit 2" 2 -e nosuchif0 -- \
	"$CFCTL" attach -n nosuchif0
check "attach" "$CFCTL" attach "$VETH" --mode generic
expect "attach -n when attached: says it would replace, in one step" 0 \
	-o "would replace $VETH's program" -- "$CFCTL" attach -n "$VETH"
expect "attach -n when attached, in another mode: exit 3, says detach" 3 \
	-e detach -- "$CFCTL" attach -n "$VETH" --mode tc
expect "detach -n: exit 0, says would detach" 0 -o "would detach" -- \
	"$CFCTL" detach -n "$VETH"
check "detach -n left it attached" has_xdp "$VETH"
ping_from_ns_retry "$HOST4" >/dev/null 2>&1
expect "stats -j: one object of numbers, the sources' drops, the interface's counters" 0 -- sh -c \
	"\"$CFCTL\" stats -j | grep -qE '^\{\"passed\":[1-9][0-9]*,\"allowed\":[0-9]+,\"dropped_src\":[0-9]+,\"dropped_dst\":[0-9]+,\"dropped_flow\":[0-9]+,\"dropped_prefix\":[0-9]+,\"dropped_tiny_fragment\":[0-9]+,\"dropped_deep_headers\":[0-9]+,\"unparsed\":[0-9]+,\"sources\":\[\{\"name\":\"default\",\"drops\":[0-9]+\}\],\"interfaces\":\[\{\"interface\":\"$VETH\",\"ifindex\":[1-9][0-9]*,\"passed\":[1-9][0-9]*,\"allowed\":[0-9]+,\"dropped_src\":[0-9]+,\"dropped_dst\":[0-9]+,\"dropped_flow\":[0-9]+,\"dropped_prefix\":[0-9]+,\"dropped_tiny_fragment\":[0-9]+,\"dropped_deep_headers\":[0-9]+,\"unparsed\":[0-9]+\}\]\}\$'"

# What a dual-stack daemon logs of an IPv4 peer: its packets are IPv4.
MAPPED=::ffff:$PEER4
check "mapped: cfctl add $MAPPED" "$CFCTL" add "$MAPPED"
expect "mapped: the peer's IPv4 pings are dropped" nonzero -- \
	ping_from_ns "$HOST4"
expect "mapped: held as $PEER4" 0 -- test "$("$CFCTL" list)" = "$PEER4"
expect "mapped: test $MAPPED: blocked" 0 -- "$CFCTL" test "$MAPPED"
expect "mapped: match $MAPPED: dropped" 0 -o "drop (source address)" -- \
	"$CFCTL" match "$MAPPED"
check "mapped: del $MAPPED" "$CFCTL" del "$MAPPED"
expect "mapped: the pings pass again" 0 -- ping_from_ns_retry "$HOST4"
printf '%s\n' "$MAPPED" >"$L.mapped"
expect "mapped: load of a list naming $MAPPED" 0 -o "loaded 1 entries (1 added" -- \
	"$CFCTL" load "$L.mapped"
expect "mapped: ... drops the peer's pings" nonzero -- ping_from_ns "$HOST4"
check "mapped: clear" "$CFCTL" clear
check "detach" "$CFCTL" detach "$VETH"
expect "detach -n with nothing attached: exit 3" 3 -- \
	"$CFCTL" detach -n "$VETH"
veth_cleanup

# Sources, timeouts and expiry times in a list.
check "setup: clear" "$CFCTL" clear
now=$(date +%s)
cat >"$L.src" <<LIST
192.0.2.100
192.0.2.101 timeout 600
source blocklist-a
192.0.2.102 expires $((now + 900))
192.0.2.103 expires 1000
add 192.0.2.104 timeout 0
source default
192.0.2.105
LIST
expect "load -s feed of a list with source lines: exit 0, 5 loaded" 0 \
	-o "loaded 5 entries (5 added, 0 already present, 0 skipped)" \
	-e "$L.src: 1 entry had expired: skipped" -- "$CFCTL" load -s feed "$L.src"
expect "... lines before any source line: -s's" 0 -- sh -c \
	'test "$("$0" list -s feed | sed -E "s/-t (59[0-9]|600) /-t T /" | tr "\n" " ")" = \
	 "192.0.2.100 -t T 192.0.2.101 "' "$CFCTL"
expect "... then blocklist-a's, expires as seconds left" 0 -- sh -c \
	'test "$("$0" list -s blocklist-a | sed "s/-t 89[0-9] /-t T /;s/-t 900 /-t T /" | tr "\n" " ")" = \
	 "-t T 192.0.2.102 192.0.2.104 "' "$CFCTL"
expect "... the expired one left out" 1 -- "$CFCTL" test 192.0.2.103
expect "... then default's" 0 -o "192.0.2.105: blocked (held by default)" -- \
	"$CFCTL" test 192.0.2.105
expect "load -n of the same list: all present, per source" 0 \
	-o "would load 5 entries (0 to add, 5 already present, 0 skipped)" -- \
	"$CFCTL" load -n -s feed "$L.src"
expect "load of the list without -s: 192.0.2.100 new for default" 0 \
	-o "loaded 5 entries (2 added, 3 already present" -- "$CFCTL" load "$L.src"
printf '198.51.100.20\n198.51.100.21 timeout 30\n' >"$L.t"
expect "load -t 600: for lines without a timeout of their own" 0 -- \
	"$CFCTL" load -s t -t 600 "$L.t"
expect "... 198.51.100.20 for 600 s" 0 -- held_set t 198.51.100.20 600
expect "... 198.51.100.21 for 30" 0 -- held_set t 198.51.100.21 30
printf 'create bl hash:ip family inet timeout 300\nadd bl 198.51.100.30 timeout 250\nadd bl 198.51.100.31 timeout 0\n' \
	>"$L.ipset"
expect "ipset save with timeouts: loaded, no note" 0 -o "loaded 2 entries" -- \
	"$CFCTL" load -s ipset "$L.ipset"
keep_err
expect "... says nothing about timeouts" 0 -- test ! -s "$E"
expect "... the timeout kept, 0 permanent" 0 -- sh -c \
	'"$0" list -s ipset | grep -qE "^-t 2(49|50) 198.51.100.30\$" &&
	 "$0" list -s ipset | grep -qx "198.51.100.31"' "$CFCTL"

# save: per source a source line, a timed entry's deadline.
now=$(date +%s)
"$CFCTL" save >"$L.saved2"
expect "save: a source line per source, default first" 0 -- test \
	"$(grep '^source ' "$L.saved2" | tr '\n' ' ')" = \
	"source default source blocklist-a source feed source ipset source t "
expect "save: the header counts entries and sources" 0 -- \
	grep -qF "# cfilter: 11 entries of 5 sources saved by cfctl" "$L.saved2"
expect "save: a deadline as expires UNIXTIME" 0 -- awk -v now="$now" \
	'$1 == "192.0.2.102" { d = $3 - now; ok = $2 == "expires" && d >= 890 && d <= 901 }
	 END { exit !ok }' "$L.saved2"
expect "save -s feed: feed alone, no source line" 0 -- sh -c \
	'"$0" save -s feed >"$1" && ! grep -q "^source" "$1" &&
	 grep -q "^# cfilter: 2 entries of source feed saved" "$1" &&
	 test "$(grep -vc "^#" "$1")" = 2' "$CFCTL" "$L.feedsaved"
check "clear" "$CFCTL" clear
expect "load of the saved file: exit 0, every holding" 0 \
	-o "loaded 11 entries (11 added" -- "$CFCTL" load "$L.saved2"
"$CFCTL" save >"$L.again2"
expect "... save, clear, load: every source, entry and deadline back" 0 -- \
	same_saves "$L.saved2" "$L.again2" 16
diag_file "saved" "$L.saved2"

# Bad lines of the new kinds: exit 2, FILE:LINE: and the word; nothing loaded.
check "setup: clear" "$CFCTL" clear
for bad in "192.0.2.1 timeout abc" "192.0.2.1 timeout -5" \
	"192.0.2.1 timeout 1.5" "192.0.2.1 timeout 99999999999" \
	"192.0.2.1 timeout" "192.0.2.1 expires soon" "192.0.2.1 expires 0" \
	"192.0.2.1 timeout 5 expires 2000000000" "192.0.2.1 timeout 5 x" \
	"192.0.2.1 expires 99999999999"; do
	printf '192.0.2.9\n%s\n' "$bad" >"$L.badt"
	expect "'$bad': exit 2, $L.badt:2: named" 2 -e "$L.badt:2: " -- \
		"$CFCTL" load "$L.badt"
done
for bad in "source" "source bad/name" "source -x" "source a b" \
	"source 12345678901234567890123456789012"; do
	printf '192.0.2.9\n%s\n192.0.2.10\n' "$bad" >"$L.bads"
	expect "'$bad': exit 2 even with --skip-bad, $L.bads:2: named" 2 \
		-e "$L.bads:2: " -- "$CFCTL" load --skip-bad "$L.bads"
done
keep_err
expect "... says why --skip-bad does not skip it" 0 -- \
	grep -qF "skips no source line" "$E"
check "bad lines of the new kinds: nothing applied" count_is 0
printf '192.0.2.9\n192.0.2.1 timeout abc\n192.0.2.10 timeout 60\n' >"$L.skip"
expect "--skip-bad skips a bad timeout line, loads the rest" 0 \
	-o "loaded 2 entries (2 added, 0 already present, 1 skipped)" -- \
	"$CFCTL" load --skip-bad "$L.skip"
check "clear" "$CFCTL" clear

# A big list in one command.
check "setup: clear" "$CFCTL" clear
gen_list "$LOAD_ENTRIES" >"$L.big"
t0=$(date +%s)
expect "load $LOAD_ENTRIES entries: exit 0" 0 \
	-o "loaded $LOAD_ENTRIES entries ($LOAD_ENTRIES added" -- \
	"$CFCTL" load "$L.big"
diag "load of $LOAD_ENTRIES entries: $(($(date +%s) - t0)) s (TCG)"
check "count is $LOAD_ENTRIES" count_is "$LOAD_ENTRIES"
check "clear" "$CFCTL" clear
rm -f "$L.big"

# A filter that fills mid-way, and a compact filter: tiny reloads.
if unload_module; then
	check "load with capacity=64 max_capacity=64" \
		insmod "$CFILTER_KO" capacity=64 max_capacity=64
	gen_list 300 >"$L.300"
	expect "load into a filter too small: exit 3, says filter full" 3 \
		-e "filter full" -- "$CFCTL" load "$L.300"
	keep_err
	diag_file "its message" "$E"
	added=$(sed -n 's/.*filter full: \([0-9][0-9]*\) of 300 entries added.*/\1/p' \
		"$E")
	expect "... says how many were added" 0 -- test "${added:-0}" -gt 0
	check "... and all of those stayed" count_is "$added"
	expect "... names the line that did not fit" 0 -- \
		grep -qE "$L.300:[0-9]+: cannot add" "$E"
	expect "... says which bound to raise" 0 -- \
		grep -qF "max_capacity=" "$E"
	check "unload" unload_module
	check "load with mode=compact" insmod "$CFILTER_KO" mode=compact
	"$CFCTL" add 192.0.2.1 >/dev/null 2>&1
	expect "save in compact mode: exit 3, points to snapshot" 3 \
		-e "use cfctl snapshot FILE" -- "$CFCTL" save
	expect "save in compact mode: no output" 0 -- test -z "$("$CFCTL" save 2>/dev/null)"
	expect "list -j in compact mode: exit 0, no prefixes" 0 -- \
		test "$("$CFCTL" list -j 2>/dev/null)" = '{"entries":[]}'
	check "unload" unload_module
	check "reload with defaults" insmod "$CFILTER_KO"
else
	tap_skip "full and compact filters" "cannot rmmod cfilter"
fi

tap_end
