#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Print the address ranges that Debian's tor-geoipdb assigns to countries,
# one "LOW-HIGH" line per range (dotted quads, or IPv6 with -6), in address
# order. Ranges that touch (one ends where the next begins) are printed as
# one. Used by `make bench-xdp`, and by anything that wants a real-world
# set of ranges to block.
#
# Usage: scripts/geoip/geoip-ranges.sh [-6] [-s] CC...|all
#   CC       ISO 3166-1 alpha-2 country codes (case does not matter)
#   all      every country the database names (not "??", unknown)
#   -6       the IPv6 ranges instead of the IPv4 ones
#   -s       merge touching ranges of one country only: each country's
#            ranges as they are when it is blocked on its own
# Environment: GEOIP_DIR, the folder holding geoip and geoip6 (default
# /usr/share/tor, from the tor-geoipdb package).
#
# Exit status: 0; 2 for bad usage, a missing database or a country code
# with no range in it.
set -eu

GEOIP_DIR=${GEOIP_DIR:-/usr/share/tor}

usage() {
	echo "usage: scripts/geoip/geoip-ranges.sh [-6] [-s] CC...|all" >&2
	exit 2
}

v6=
separate=
while [ $# -gt 0 ]; do
	case $1 in
	-6) v6=1 ;;
	-s) separate=1 ;;
	-*) usage ;;
	*) break ;;
	esac
	shift
done
[ $# -gt 0 ] || usage

db=$GEOIP_DIR/geoip${v6:+6}
[ -r "$db" ] || {
	echo "geoip-ranges: $db not found: install tor-geoipdb (make deps) or set GEOIP_DIR" >&2
	exit 2
}

codes=
if [ "$*" = all ]; then
	# shellcheck disable=SC2046 # one argument per country
	set -- $(awk -F, '!/^#/ && NF == 3 && $3 != "??" { print $3 }' "$db" |
		sort -u)
fi
for cc in "$@"; do
	case $cc in
	[A-Za-z][A-Za-z]) codes="$codes $(echo "$cc" | tr '[:lower:]' '[:upper:]')" ;;
	*)
		echo "geoip-ranges: '$cc' is not a two-letter country code" >&2
		exit 2
		;;
	esac
done

# geoip: "LOW,HIGH,CC" with LOW and HIGH as 32-bit integers, sorted;
# geoip6: the same with IPv6 addresses as text. An awk number holds any
# 32-bit integer exactly; IPv6 ranges are printed as the file has them.
awk -F, -v codes="$codes" -v v6="$v6" -v separate="$separate" '
function quad(n) {
	return sprintf("%d.%d.%d.%d", int(n / 16777216) % 256,
		       int(n / 65536) % 256, int(n / 256) % 256, n % 256)
}
function flush() {
	if (have)
		print v6 ? lo "-" hi : quad(lo) "-" quad(hi)
	have = 0
}
BEGIN {
	n = split(codes, list, " ")
	for (i = 1; i <= n; i++)
		want[list[i]] = 1
}
/^#/ || NF != 3 || !($3 in want) { next }
{
	seen[$3] = 1
	if (!v6 && have && $1 == hi + 1 && (!separate || $3 == cc)) {
		hi = $2 + 0
		next
	}
	flush()
	cc = $3
	lo = v6 ? $1 : $1 + 0
	hi = v6 ? $2 : $2 + 0
	have = 1
}
END {
	flush()
	for (cc in want)
		if (!(cc in seen)) {
			printf "geoip-ranges: no range for country %s in %s\n", cc, FILENAME > "/dev/stderr"
			bad = 1
		}
	exit bad ? 2 : 0
}' "$db"
