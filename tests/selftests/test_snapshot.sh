#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cfctl snapshot FILE and cfctl restore FILE, in exact and compact mode:
# restore gives back exactly what was saved (compact: the same answers,
# from the same raw tables), replacing the live set in one swap. A file
# that is not a snapshot, truncated or corrupted, or a compact one of
# another mode or fingerprint width, is refused before anything changes
# (exit 2 for the file, 3 for the module's parameters, named). An exact
# snapshot (entries) restores into a compact module too.

. "$(dirname "$0")/lib.sh"
trap lib_cleanup EXIT

# shellcheck disable=SC2317 # called through check
listed_is()
{
	[ "$("$CFCTL" list 2>/dev/null | tr '\n' ' ')" = "$1" ]
}

# shellcheck disable=SC2317 # called through check
count_is()
{
	[ "$("$CFCTL" info | sed -n 's/^count: *//p')" = "$1" ]
}

# flip FILE OFFSET: changes one bit of the byte at OFFSET.
flip()
{
	_b=$(od -An -tu1 -j "$2" -N 1 "$1" | tr -d ' ')
	# shellcheck disable=SC2059 # the format is the byte
	printf "\\$(printf %o $((_b ^ 1)))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

S=$tap_tmp/snap

tap_begin
load_module || tap_skip_all "cannot load $CFILTER_KO"
for verb in snapshot restore; do
	expect "$verb --help exits 0" 0 -o "cfctl $verb" -- "$CFCTL" "$verb" --help
	expect "$verb without FILE: exit 2" 2 -e FILE -- "$CFCTL" "$verb"
done

# Exact mode.
check "setup: clear" "$CFCTL" clear
printf '%s\n' 192.0.2.1 192.0.2.0/24 2001:db8::5 "dst 198.51.100.0/24" \
	"allow 192.0.2.9" "tcp 192.0.2.1:1 198.51.100.1:80" >"$tap_tmp/list"
check "setup: load six entries" "$CFCTL" load "$tap_tmp/list"
BEFORE=$("$CFCTL" list | tr '\n' ' ')
expect "snapshot -n: exit 0, writes nothing" 0 -o "would write" -- \
	"$CFCTL" snapshot -n "$S"
expect "... no file" 0 -- test ! -e "$S"
expect "snapshot: exit 0, exact mode, 6 keys" 0 \
	-o "snapshot of the exact-mode filter written to $S: 0 tables of 0 fingerprints, 6 keys" \
	-- "$CFCTL" snapshot "$S"
expect "... no temporary file left" 0 -- test ! -e "$S.tmp"
expect "snapshot into a missing directory: exit 3, named" 3 \
	-e "$tap_tmp/nodir/s.tmp" -- "$CFCTL" snapshot "$tap_tmp/nodir/s"
check "clear" "$CFCTL" clear
"$CFCTL" add 203.0.113.77 >/dev/null
expect "restore -n: exit 0, changes nothing" 0 -o "dry run" -- \
	"$CFCTL" restore -n "$S"
check "... only the entry added since" listed_is "203.0.113.77 "
expect "restore: exit 0" 0 -o "restored $S: 0 tables of 0 fingerprints, 6 keys" \
	-- "$CFCTL" restore "$S"
check "restore: exactly the entries saved, the later one gone" \
	listed_is "$BEFORE"
expect "restore: the prefix matches again" 0 -o "drop (source prefix)" -- \
	"$CFCTL" match 192.0.2.77

# Bad files: refused, named, nothing changed.
"$CFCTL" add 203.0.113.78 >/dev/null
NOW=$("$CFCTL" list | tr '\n' ' ')
cp "$S" "$S.flip" && flip "$S.flip" 100
expect "a flipped bit: exit 2, corrupted: checksum mismatch" 2 \
	-e "$S.flip: corrupted: checksum mismatch" -- "$CFCTL" restore "$S.flip"
size=$(wc -c <"$S")
head -c $((size - 10)) "$S" >"$S.short"
expect "truncated: exit 2, says truncated" 2 \
	-e "truncated: $((size - 10)) of $size bytes" -- "$CFCTL" restore "$S.short"
head -c 3 "$S" >"$S.tiny"
expect "truncated in the magic: exit 2, truncated" 2 -e "truncated" -- \
	"$CFCTL" restore "$S.tiny"
cp "$S" "$S.magic" && flip "$S.magic" 1
expect "wrong magic: exit 2, not a cfilter snapshot" 2 \
	-e "not a cfilter snapshot" -- "$CFCTL" restore "$S.magic"
expect "a text list: exit 2, not a cfilter snapshot" 2 \
	-e "not a cfilter snapshot" -- "$CFCTL" restore "$tap_tmp/list"
: >"$S.empty"
expect "an empty file: exit 2, not a cfilter snapshot" 2 \
	-e "not a cfilter snapshot" -- "$CFCTL" restore "$S.empty"
cp "$S" "$S.v2" && flip "$S.v2" 9
expect "another format version: exit 2, named" 2 -e "format version 257" -- \
	"$CFCTL" restore "$S.v2"
cp "$S" "$S.long" && printf 'x' >>"$S.long"
expect "a byte after the end: exit 2, corrupted" 2 -e "corrupted" -- \
	"$CFCTL" restore "$S.long"
expect "missing file: exit 2, named" 2 -e "$tap_tmp/nosuch" -- \
	"$CFCTL" restore "$tap_tmp/nosuch"
check "bad files changed nothing" listed_is "$NOW"

# Compact mode: raw tables, same answers after restore.
if unload_module; then
	check "load with mode=compact fp_bits=16" \
		insmod "$CFILTER_KO" mode=compact fp_bits=16
	expect "an exact snapshot restores into compact mode: its 6 keys" 0 \
		-o "restored $S: 0 tables of 0 fingerprints, 6 keys" -- \
		"$CFCTL" restore "$S"
	expect "... its address blocked" 0 -o blocked -- "$CFCTL" test 192.0.2.1
	expect "... its flow blocked" 0 -o blocked -- \
		"$CFCTL" test tcp 192.0.2.1:1 198.51.100.1:80
	expect "... its prefix matches" 0 -o "drop (source prefix)" -- \
		"$CFCTL" match 192.0.2.77
	expect "... its allow entry wins" 1 -o "allowed (exception)" -- \
		"$CFCTL" match 192.0.2.9
	check "clear" "$CFCTL" clear
	for e in 192.0.2.1 2001:db8::5 "dst 198.51.100.7" \
		"udp 192.0.2.1:53 198.51.100.1:5353" 203.0.113.0/24 \
		"allow 2001:db8::/64"; do
		# shellcheck disable=SC2086 # an entry is several words
		"$CFCTL" add $e >/dev/null
	done
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		echo "10.1.0.$i"
	done | "$CFCTL" load - >/dev/null
	COUNT=$("$CFCTL" info | sed -n 's/^count: *//p')
	# src4, src6, dst4 and flow4 hold 21 + 1 + 1 + 1 fingerprints.
	expect "compact snapshot: exit 0, 4 tables and the 2 prefixes" 0 \
		-o "snapshot of the compact-mode filter written to $S.c: 4 tables of 24 fingerprints, 2 keys" \
		-- "$CFCTL" snapshot "$S.c"
	check "clear" "$CFCTL" clear
	"$CFCTL" add 203.0.113.99 >/dev/null
	expect "compact restore: exit 0" 0 -o "restored $S.c" -- \
		"$CFCTL" restore "$S.c"
	check "compact restore: the count as saved" count_is "$COUNT"
	expect "... 10.1.0.17 blocked again" 0 -o blocked -- \
		"$CFCTL" test 10.1.0.17
	expect "... the flow blocked again" 0 -o blocked -- \
		"$CFCTL" test udp 192.0.2.1:53 198.51.100.1:5353
	expect "... the entry added since is gone" 1 -- \
		"$CFCTL" test 203.0.113.99
	expect "... the prefix matches" 0 -o "drop (source prefix)" -- \
		"$CFCTL" match 203.0.113.5
	expect "... the allow prefix wins" 1 -o "allowed (exception)" -- \
		"$CFCTL" match 2001:db8::5
	expect "... list prints the prefixes, with a note" 0 \
		-o "allow 2001:db8::/64" -e "only prefixes are listed" -- "$CFCTL" list
	cp "$S.c" "$S.cflip" && flip "$S.cflip" 200
	expect "compact, a flipped bit in a table: exit 2, checksum mismatch" 2 \
		-e "corrupted: checksum mismatch" -- "$CFCTL" restore "$S.cflip"
	check "unload" unload_module
	check "load with mode=compact fp_bits=8" \
		insmod "$CFILTER_KO" mode=compact fp_bits=8
	expect "restore with other fp_bits: exit 3, names fp_bits=16" 3 \
		-e "reload cfilter with fp_bits=16" -- "$CFCTL" restore "$S.c"
	check "... nothing restored" count_is 0
	check "unload" unload_module
	check "load in exact mode" insmod "$CFILTER_KO"
	expect "restore of a compact snapshot in exact mode: exit 3, names mode=compact" 3 \
		-e "reload cfilter with mode=compact" -- "$CFCTL" restore "$S.c"
	check "... nothing restored" count_is 0
else
	tap_skip "compact-mode snapshots" "cannot rmmod cfilter"
fi

tap_end
