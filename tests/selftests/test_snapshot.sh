#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cfctl snapshot FILE and cfctl restore FILE, in exact and compact mode:
# restore gives back exactly what was saved (exact: every holding with its
# source and deadline, less those expired since; compact: the same
# answers, from the same raw tables), replacing the live set in one swap.
# A file that is not a snapshot, truncated or corrupted, or a compact one
# of another mode or fingerprint width, is refused before anything changes
# (exit 2 for the file, 3 for the module's parameters, named). An exact
# snapshot of "default"'s permanent entries restores into a compact module
# too, and so does one of the version before sources; a compact one of
# the version before table flags keeps the general hash its IPv4 table
# was placed by.

. "$(dirname "$0")/lib.sh"
trap lib_cleanup EXIT

# The holdings, without the seconds left, on one line.
# shellcheck disable=SC2317 # called through check
listed_is()
{
	[ "$("$CFCTL" list 2>/dev/null | sed 's/-t [0-9]* //' | tr '\n' ' ')" = "$1" ]
}

# The deadline save writes for ENTRY of SOURCE; empty if none.
deadline()
{
	"$CFCTL" save -s "$1" | sed -n "s/^$2 expires //p"
}

# within_a_second A B: two deadlines a second apart at most.
# shellcheck disable=SC2317 # called through check
within_a_second()
{
	[ -n "$1" ] && [ -n "$2" ] && [ $(($1 - $2)) -ge -1 ] &&
		[ $(($1 - $2)) -le 1 ]
}

# A snapshot of format version 1, as cfctl wrote them before sources: an
# exact filter of 192.0.2.77 and 2001:db8::77.
snapshot_v1()
{
	printf '\211\103\106\123\116\101\120\12\1\0\0\0\0\0\0\0\20\0\0\0\1\0'
	printf '\0\0\234\0\0\0\0\0\0\0\2\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0'
	printf '\0\0\0\0\0\2\0\0\0\0\0\0\0\120\0\0\0\0\0\0\0\1\40\0\0\0\0\0'
	printf '\0\300\0\2\115\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0'
	printf '\0\0\0\0\0\2\200\0\0\0\0\0\0\40\1\15\270\0\0\0\0\0\0\0\0\0\0'
	printf '\0\167\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\17\234\227\222'
}

# A compact snapshot of format version 2, as cfctl wrote them before
# table flags: 192.0.2.77, 198.51.100.7 and 192.0.2.78 in an IPv4 table of
# 2 buckets that the general hash placed (mode=compact capacity=4).
snapshot_v2()
{
	printf '\211\103\106\123\116\101\120\12\2\0\0\0\1\0\0\0\20\0\0\0\2\0\0'
	printf '\0\204\0\0\0\0\0\0\0\1\0\0\0\1\0\0\0\142\41\344\64\155\46\33'
	printf '\324\2\0\0\0\0\0\0\0\3\0\0\0\0\0\0\0\20\0\0\0\0\0\0\0\331\235'
	printf '\0\0\0\0\0\0\367\314\140\241\0\0\0\0\2\0\0\0\0\0\0\0\0\0\0\0\0'
	printf '\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\346\345'
	printf '\301\31'
}

# A compact snapshot of format version 4 whose IPv4 table the short hash
# placed (CFILTER_TABLE_HASH32), as cfctl and the module wrote them before
# the mixed hash: 192.0.2.77, 198.51.100.7 and 192.0.2.78 in 2 buckets
# (mode=compact capacity=4).
snapshot_v4_short()
{
	printf '\211\103\106\123\116\101\120\12\4\0\0\0\1\0\0\0\20\0\0\0\2\0\0\0'
	printf '\204\0\0\0\0\0\0\0\1\0\0\0\1\0\1\0\324\336\224\244\22\136\372\164'
	printf '\2\0\0\0\0\0\0\0\3\0\0\0\0\0\0\0\20\0\0\0\0\0\0\0\111\270\0\0\0\0'
	printf '\0\0\224\211\350\274\0\0\0\0\2\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0'
	printf '\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\340\12\202\154'
}

# older_hash_kept NAME WHAT: the compact snapshot $S.NAME (WHAT) of
# 192.0.2.77, 198.51.100.7 and 192.0.2.78 restores, and its IPv4 table
# keeps its hash through an add and a snapshot of its own.
older_hash_kept()
{
	_f=$S.$1
	expect "$2: exit 0, its table" 0 \
		-o "restored $_f: 1 tables of 3 fingerprints, 0 keys" -- \
		"$CFCTL" restore "$_f"
	for a in 192.0.2.77 198.51.100.7 192.0.2.78; do
		expect "... $a blocked" 0 -o blocked -- "$CFCTL" test "$a"
	done
	expect "... 203.0.113.1 not" 1 -- "$CFCTL" test 203.0.113.1
	check "... add 203.0.113.50" "$CFCTL" add 203.0.113.50
	expect "... which is blocked" 0 -o blocked -- "$CFCTL" test 203.0.113.50
	check "... a snapshot of it" "$CFCTL" snapshot "${_f}b"
	check "... clear" "$CFCTL" clear
	expect "... restored: its 4 fingerprints" 0 \
		-o "restored ${_f}b: 1 tables of 4 fingerprints, 0 keys" -- \
		"$CFCTL" restore "${_f}b"
	for a in 192.0.2.77 203.0.113.50; do
		expect "... $a blocked again" 0 -o blocked -- "$CFCTL" test "$a"
	done
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
cp "$S" "$S.ver" && flip "$S.ver" 9
expect "another format version: exit 2, named" 2 -e "format version 260" -- \
	"$CFCTL" restore "$S.ver"
cp "$S" "$S.long" && printf 'x' >>"$S.long"
expect "a byte after the end: exit 2, corrupted" 2 -e "corrupted" -- \
	"$CFCTL" restore "$S.long"
expect "missing file: exit 2, named" 2 -e "$tap_tmp/nosuch" -- \
	"$CFCTL" restore "$tap_tmp/nosuch"
check "bad files changed nothing" listed_is "$NOW"

# Sources and deadlines: every holding back with its source and the time
# it had left; one expired since the snapshot is left out.
check "setup: clear" "$CFCTL" clear
"$CFCTL" add 192.0.2.1 >/dev/null
"$CFCTL" add -s feed -t 900 192.0.2.1 >/dev/null
"$CFCTL" add -s feed 2001:db8::5 >/dev/null
"$CFCTL" add -s f2b-sshd -t 2 198.51.100.7 >/dev/null
"$CFCTL" allow -s ops -t 1200 192.0.2.9 >/dev/null
FEED=$(deadline feed 192.0.2.1)
OPS=$(deadline ops "allow 192.0.2.9")
expect "snapshot: 5 holdings of 4 sources" 0 \
	-o "0 tables of 0 fingerprints, 5 keys of 4 sources" -- \
	"$CFCTL" snapshot "$S.src"
sleep 3
check "clear" "$CFCTL" clear
"$CFCTL" add 203.0.113.1 >/dev/null
expect "restore 3 s later: exit 0, f2b-sshd's expired holding left out" 0 \
	-o "restored $S.src: 0 tables of 0 fingerprints, 4 keys" \
	-e "1 holding had expired: skipped" -- "$CFCTL" restore "$S.src"
check "... every other holding back, under its source" listed_is \
	"192.0.2.1 -s feed 192.0.2.1 -s feed 2001:db8::5 -s ops allow 192.0.2.9 "
check "... feed's deadline as it was" within_a_second \
	"$(deadline feed 192.0.2.1)" "$FEED"
check "... ops's deadline as it was" within_a_second \
	"$(deadline ops "allow 192.0.2.9")" "$OPS"
expect "... 2001:db8::5 still permanent" 0 -- sh -c \
	'"$0" save -s feed | grep -qx "2001:db8::5"' "$CFCTL"
expect "... the entry added since is gone" 1 -- "$CFCTL" test 203.0.113.1
expect "... the expired one too" 1 -- "$CFCTL" test 198.51.100.7
expect "... info counts the sources" 0 -o "source ops: entries 1, timed 1" -- \
	"$CFCTL" info
snapshot_v1 >"$S.v1"
expect "a version 1 snapshot (before sources): exit 0, its 2 keys" 0 \
	-o "restored $S.v1: 0 tables of 0 fingerprints, 2 keys" -- \
	"$CFCTL" restore "$S.v1"
check "... held by default, for ever" listed_is "192.0.2.77 2001:db8::77 "

"$CFCTL" clear >/dev/null
"$CFCTL" add -s feed 192.0.2.44 >/dev/null
check "a snapshot of a permanent source" "$CFCTL" snapshot "$S.perm"

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
	expect "an exact snapshot with timed holdings into compact mode: exit 3" 3 \
		-e "compact mode cannot expire entries, so nothing restored" \
		-- "$CFCTL" restore "$S.src"
	check "... nothing restored" count_is 0
	expect "a permanent source into compact mode: exit 0, held by default" 0 \
		-e "the entries of 1 other source are held by default" \
		-- "$CFCTL" restore "$S.perm"
	expect "... its entry blocked" 0 -o blocked -- "$CFCTL" test 192.0.2.44
	check "clear" "$CFCTL" clear
	expect "a version 1 snapshot into compact mode: exit 0" 0 -o "2 keys" -- \
		"$CFCTL" restore "$S.v1"
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
		"$CFCTL" test --exact 203.0.113.99
	expect "... the prefix matches" 0 -o "drop (source prefix)" -- \
		"$CFCTL" match 203.0.113.5
	expect "... the allow prefix wins" 1 -o "allowed (exception)" -- \
		"$CFCTL" match 2001:db8::5
	expect "... list prints the prefixes, with a note" 0 \
		-o "allow 2001:db8::/64" -e "only prefixes are listed" -- "$CFCTL" list

	# Its IPv4 table keeps the general hash that placed it, through
	# adds and a snapshot of its own (tables of this cfctl take the
	# mixed hash); so does one of the short hash.
	snapshot_v2 >"$S.v2"
	older_hash_kept v2 "a version 2 compact snapshot"
	snapshot_v4_short >"$S.v4s"
	older_hash_kept v4s "a compact snapshot of the short hash"
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
