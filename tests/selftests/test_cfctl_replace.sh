#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cfctl replace FILE: the entries of FILE become the whole filter in one
# swap (STAGE, BATCH with CFILTER_F_STAGED, COMMIT), its sources and
# timeouts included; replace -s NAME FILE: they become NAME's holdings, the
# other sources' staying (STAGE_SOURCE), also those added while it runs.
# Every failure before the swap (malformed line, missing file, full filter,
# a file naming another source) leaves the live set exactly as it was, and
# says so; packets from a source blocked in both the old and the new set
# are never let through while replaces run.

. "$(dirname "$0")/lib.sh"
trap lib_cleanup EXIT

# The holdings `cfctl list` prints, on one line, without the seconds left.
# shellcheck disable=SC2317 # called through listed_is
listed()
{
	"$CFCTL" list | sed 's/-t [0-9]* //' | tr '\n' ' '
}

# shellcheck disable=SC2317 # called through check
listed_is()
{
	[ "$(listed)" = "$1" ]
}

# Keeps the last command's stderr in $E: expect overwrites its own.
E=$tap_tmp/kept.err
keep_err()
{
	cp "$tap_tmp/err" "$E"
}

L=$tap_tmp/list
tap_begin
load_module || tap_skip_all "cannot load $CFILTER_KO"
check "setup: cfctl clear" "$CFCTL" clear
expect "replace --help exits 0" 0 -o "cfctl replace" -- "$CFCTL" replace --help
expect "replace without FILE: exit 2" 2 -e FILE -- "$CFCTL" replace

printf '192.0.2.1\n192.0.2.2\n' >"$L.old"
check "setup: load the live set" "$CFCTL" load "$L.old"
OLD="192.0.2.1 192.0.2.2 "

printf '198.51.100.1\n# a comment\n198.51.100.0/24\n198.51.100.7/24\n' >"$L.bad"
expect "a bad line: exit 2, FILE:LINE: named" 2 -e "$L.bad:4:" -- \
	"$CFCTL" replace "$L.bad"
keep_err
expect "... with the prefix meant" 0 -- \
	grep -qF "did you mean 198.51.100.0/24?" "$E"
expect "... and says the live set is untouched" 0 -- \
	grep -qF "nothing replaced: the live set is untouched" "$E"
check "a bad line: the live set is as it was" listed_is "$OLD"
expect "missing file: exit 2, named" 2 -e "$tap_tmp/nosuchfile" -- \
	"$CFCTL" replace "$tap_tmp/nosuchfile"
check "missing file: the live set is as it was" listed_is "$OLD"
expect "replace -n: exit 0, says would replace" 0 \
	-o "would replace the filter with 2 entries (1 skipped)" -- \
	"$CFCTL" replace -n "$L.bad" --skip-bad
check "replace -n: the live set is as it was" listed_is "$OLD"
expect "replace -n of a bad file: exit 2 as replace would" 2 -e "$L.bad:4:" \
	-- "$CFCTL" replace -n "$L.bad"

printf '198.51.100.1\n198.51.100.1\ndst 203.0.113.0/24\n192.0.2.10-192.0.2.11\n' >"$L.new"
expect "replace: exit 0, counts" 0 \
	-o "replaced the filter with 4 entries (3 added, 1 repeated, 0 skipped)" \
	-- "$CFCTL" replace "$L.new"
check "replace: exactly the new entries, none of the old" listed_is \
	"192.0.2.10/31 198.51.100.1 dst 203.0.113.0/24 "
expect "replace --skip-bad: the good lines replace, bad ones skipped" 0 \
	-o "replaced the filter with 2 entries (2 added, 0 repeated, 1 skipped)" \
	-e "$L.bad:4:" -- "$CFCTL" replace --skip-bad "$L.bad"
check "--skip-bad: exactly the good entries" listed_is \
	"198.51.100.0/24 198.51.100.1 "
run sh -c "printf '2001:db8::1\n' | \"$CFCTL\" replace -"
expect "replace - reads stdin" 0 -- test "$rc" = 0
check "replace -: the stdin entries" listed_is "2001:db8::1 "
: >"$L.empty"
expect "replace with an empty file: exit 0, empties the filter" 0 \
	-o "replaced the filter with 0 entries" -- "$CFCTL" replace "$L.empty"
check "... nothing listed" listed_is ""

# replace -s NAME: NAME's holdings become the file's, the others stay.
check "setup: clear" "$CFCTL" clear
check "setup: default holds 192.0.2.1" "$CFCTL" add 192.0.2.1
check "setup: ops holds 192.0.2.2 for 600 s" "$CFCTL" add -s ops -t 600 192.0.2.2
printf '198.51.100.1\n198.51.100.2 timeout 300\n192.0.2.1\n' >"$L.feed1"
expect "replace -s feed: exit 0, counts" 0 \
	-o "replaced source feed with 3 entries (3 added, 0 repeated, 0 skipped)" \
	-- "$CFCTL" replace -s feed "$L.feed1"
check "... feed holds the file's entries" listed_is \
	"192.0.2.1 -s feed 192.0.2.1 -s ops 192.0.2.2 -s feed 198.51.100.1 -s feed 198.51.100.2 "
printf '198.51.100.3\n' >"$L.feed2"
expect "replace -s feed again: exit 0" 0 \
	-o "replaced source feed with 1 entries" -- "$CFCTL" replace -s feed "$L.feed2"
check "... feed's old entries gone, default's and ops's kept" listed_is \
	"192.0.2.1 -s ops 192.0.2.2 -s feed 198.51.100.3 "
expect "... 192.0.2.1 still blocked, by default" 0 -o "held by default" -- \
	"$CFCTL" test 192.0.2.1
expect "replace -s feed -t 60: the default timeout of the file's lines" 0 -- \
	"$CFCTL" replace -s feed -t 60 "$L.feed1"
expect "... given to lines without their own" 0 -- sh -c \
	'"$0" list -s feed | grep -qE "^-t (59|60) 198.51.100.1\$" &&
	 "$0" list -s feed | grep -qE "^-t (299|300) 198.51.100.2\$"' "$CFCTL"
printf '198.51.100.9\nsource ops\n198.51.100.10\n' >"$L.other"
BEFORE=$(listed)
expect "replace -s feed of a file naming ops: exit 2, FILE:LINE: named" 2 \
	-e "$L.other:2: source 'ops'" -- "$CFCTL" replace -s feed "$L.other"
expect "... even with --skip-bad" 2 -e "$L.other:2:" -- \
	"$CFCTL" replace -s feed --skip-bad "$L.other"
check "... the live set is as it was" listed_is "$BEFORE"
printf 'source feed\n198.51.100.4\n' >"$L.self"
expect "replace -s feed of a file naming feed: fine" 0 \
	-o "replaced source feed with 1 entries" -- "$CFCTL" replace -s feed "$L.self"
printf '198.51.100.5 expires 1000\n198.51.100.6\n' >"$L.expired"
expect "replace -s feed: an expired line skipped, counted" 0 \
	-e "1 entry had expired: skipped" -o "replaced source feed with 1 entries" -- \
	"$CFCTL" replace -s feed "$L.expired"
expect "replace -s newsrc: a source the filter lacks is made" 0 -- \
	"$CFCTL" replace -s newsrc "$L.feed2"
expect "... and holds the file" 0 -o "198.51.100.3: blocked (held by newsrc)" -- \
	"$CFCTL" test 198.51.100.3
expect "replace -n -s feed: says so, changes nothing" 0 \
	-o "would replace source feed with 3 entries" -- \
	"$CFCTL" replace -n -s feed "$L.feed1"
expect "replace -s nosuch of an empty file: exit 0" 0 \
	-o "replaced source nosuch with 0 entries" -- "$CFCTL" replace -s nosuch "$L.empty"

# Plain replace takes source lines and timeouts: save > F; replace F
# gives back every source and deadline.
check "setup: clear" "$CFCTL" clear
"$CFCTL" add 192.0.2.1 >/dev/null
"$CFCTL" add -s ops -t 900 192.0.2.1 >/dev/null
"$CFCTL" add -s feed 2001:db8::1 >/dev/null
"$CFCTL" allow -s feed -t 1200 203.0.113.7 >/dev/null
"$CFCTL" save >"$L.saved"
check "clear" "$CFCTL" clear
"$CFCTL" add 10.9.9.9 >/dev/null
expect "replace with the saved file: exit 0" 0 \
	-o "replaced the filter with 4 entries (4 added" -- "$CFCTL" replace "$L.saved"
"$CFCTL" save >"$L.again"
# Entries and sources alike; each deadline within a second of the first.
expect "... every source, entry and deadline back, and only those" 0 -- \
	same_saves "$L.saved" "$L.again" 7
diag_file "saved" "$L.saved"
printf '192.0.2.1\nsource feed\n192.0.2.2 timeout 600\nsource bad/name\n192.0.2.3\n' \
	>"$L.badsrc"
BEFORE=$(listed)
expect "replace of a file with a bad source line: exit 2, FILE:LINE:" 2 \
	-e "$L.badsrc:4: invalid source name 'bad/name'" -- \
	"$CFCTL" replace --skip-bad "$L.badsrc"
check "... the live set is as it was" listed_is "$BEFORE"
printf '192.0.2.1 timeout abc\n' >"$L.badtime"
expect "replace of a file with a bad timeout: exit 2, FILE:LINE:" 2 \
	-e "$L.badtime:1: invalid timeout 'abc'" -- "$CFCTL" replace "$L.badtime"
check "... the live set is as it was" listed_is "$BEFORE"

# replace -s while another source adds: what it adds meanwhile stays.
check "setup: clear" "$CFCTL" clear
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "10.%d.%d.1\n", i / 256, i % 256 }' \
	>"$L.20k"
(
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		"$CFCTL" add -s ops "203.0.113.$i" >/dev/null 2>&1
	done
) &
adder=$!
fails=0
for i in 1 2 3; do
	"$CFCTL" replace -s feed "$L.20k" >/dev/null || fails=$((fails + 1))
done
wait "$adder"
expect "3 replaces -s feed of 20000 entries while ops adds: all succeeded" 0 -- \
	test "$fails" = 0
expect "... every one of ops's 20 adds is there" 0 -- \
	test "$("$CFCTL" list -s ops | wc -l)" = 20
expect "... and feed holds the file" 0 -- \
	test "$("$CFCTL" list -s feed | wc -l)" = 20000
check "clear" "$CFCTL" clear

# A new set that does not fit: aborted, the old one stays.
if unload_module; then
	check "load with capacity=64 max_capacity=64" \
		insmod "$CFILTER_KO" capacity=64 max_capacity=64
	check "setup: load the live set" "$CFCTL" load "$L.old"
	awk 'BEGIN { for (i = 0; i < 300; i++) printf "10.0.%d.%d\n", i / 256, i % 256 }' \
		>"$L.300"
	expect "replace with too many entries: exit 3, says filter full" 3 \
		-e "filter full" -- "$CFCTL" replace "$L.300"
	keep_err
	expect "... and that the live set is untouched" 0 -- \
		grep -qF "nothing replaced: the live set is untouched" "$E"
	diag_file "its message" "$E"
	check "full: the live set is as it was" listed_is "$OLD"
	check "unload" unload_module
	check "reload with defaults" insmod "$CFILTER_KO"
else
	tap_skip "replace into a full filter" "cannot rmmod cfilter"
fi

# Replaces while a blocked peer pings: not one echo gets through.
"$CFCTL" clear
if veth_setup && "$CFCTL" attach "$VETH" --mode generic >/dev/null; then
	expect "ping before blocking passes" 0 -- ping_from_ns_retry "$HOST4"
	printf '%s\n198.51.100.1\n' "$PEER4" >"$L.a"
	printf '%s/24\n2001:db8::99\ndst 203.0.113.0/24\n' "$(echo "$PEER4" |
		sed 's/\.[0-9]*$/.0/')" >"$L.b"
	check "replace with set A (blocks $PEER4)" "$CFCTL" replace "$L.a"
	dropped=$(($(stat_value dropped_src) + $(stat_value dropped_prefix)))
	: >"$tap_tmp/replies"
	(
		for _i in 1 2 3 4 5 6 7 8 9 10 11 12; do
			ping_from_ns "$HOST4" >/dev/null 2>&1 &&
				echo reply >>"$tap_tmp/replies"
		done
	) &
	pinger=$!
	fails=0
	for _i in 1 2 3 4 5 6 7 8 9 10; do
		"$CFCTL" replace "$L.b" >/dev/null || fails=$((fails + 1))
		"$CFCTL" replace "$L.a" >/dev/null || fails=$((fails + 1))
	done
	wait "$pinger"
	expect "20 replaces while pinging: all succeeded" 0 -- test "$fails" = 0
	expect "... and not one echo from the blocked peer got a reply" 0 -- \
		test ! -s "$tap_tmp/replies"
	diag_file "replies" "$tap_tmp/replies"
	expect "... the drops were counted" 0 -- \
		test "$(($(stat_value dropped_src) + $(stat_value dropped_prefix)))" \
		-gt "$dropped"
	printf '198.51.100.1\n' >"$L.c"
	check "replace with a set without $PEER4" "$CFCTL" replace "$L.c"
	expect "ping passes again" 0 -- ping_from_ns_retry "$HOST4"
	check "detach" "$CFCTL" detach "$VETH"
else
	tap_not_ok "set up $NS and attach to $VETH"
fi
veth_cleanup
"$CFCTL" clear

tap_end
