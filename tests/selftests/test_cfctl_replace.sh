#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cfctl replace FILE: the entries of FILE become the whole filter in one
# swap (STAGE, BATCH with CFILTER_F_STAGED, COMMIT). Every failure before
# the swap (malformed line, missing file, full filter) leaves the live set
# exactly as it was, and says so; packets from a source blocked in both the
# old and the new set are never let through while replaces run.

. "$(dirname "$0")/lib.sh"
trap lib_cleanup EXIT

# The entries `cfctl list` prints, on one line.
# shellcheck disable=SC2317 # called through listed_is
listed()
{
	"$CFCTL" list | tr '\n' ' '
}

# shellcheck disable=SC2317 # called through check
listed_is()
{
	[ "$(listed)" = "$1" ]
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
expect "... with the prefix meant" 0 -- \
	grep -qF "did you mean 198.51.100.0/24?" "$tap_tmp/err"
expect "... and says the live set is untouched" 0 -- \
	grep -qF "nothing replaced: the live set is untouched" "$tap_tmp/err"
check "a bad line: the live set is as it was" listed_is "$OLD"
expect "missing file: exit 2, named" 2 -e "$tap_tmp/nosuchfile" -- \
	"$CFCTL" replace "$tap_tmp/nosuchfile"
check "missing file: the live set is as it was" listed_is "$OLD"
expect "replace -n: exit 0, says would replace" 0 \
	-o "would replace the filter with 2 entries (0 skipped)" -- \
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

# A new set that does not fit: aborted, the old one stays.
if unload_module; then
	check "load with capacity=64 max_capacity=64" \
		insmod "$CFILTER_KO" capacity=64 max_capacity=64
	check "setup: load the live set" "$CFCTL" load "$L.old"
	awk 'BEGIN { for (i = 0; i < 300; i++) printf "10.0.%d.%d\n", i / 256, i % 256 }' \
		>"$L.300"
	expect "replace with too many entries: exit 3, says filter full" 3 \
		-e "filter full" -- "$CFCTL" replace "$L.300"
	expect "... and that the live set is untouched" 0 -- \
		grep -qF "nothing replaced: the live set is untouched" "$tap_tmp/err"
	diag_file "its message" "$tap_tmp/err"
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
