#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A real data set: the country ranges of Debian's tor-geoipdb that the
# Makefile wrote into geoip-ranges.txt (a few countries; IPv6 ranges that
# split into prefixes of over a hundred lengths) go in with `cfctl load`,
# which splits each range into CIDR prefixes; then geoip_verdicts checks
# that the module holds exactly those keys (and prints the prefix lengths,
# markers and memory), that CFILTER_IOC_MATCH gives
# every sampled address the verdict computed from the ranges (GEOIP_MATCH
# random addresses per family plus every range's edges), that the XDP
# program does (GEOIP_XDP packets per family), and that `cfctl match`
# does on a sample (GEOIP_CFCTL addresses per family). Skipped when the file was
# not made (tor-geoipdb absent at build time).

. "$(dirname "$0")/lib.sh"
trap lib_cleanup EXIT

cd "$(dirname "$0")" || exit 1
RANGES=geoip-ranges.txt
: "${GEOIP_MATCH:=100000}"
: "${GEOIP_XDP:=2500}"

tap_begin
[ -s "$RANGES" ] ||
	tap_skip_all "$RANGES not built: install tor-geoipdb (make deps) and rebuild the selftests"
module_loaded || tap_skip_all "cfilter.ko is not loaded"
diag "$(sed -n 1p "$RANGES"), $(grep -vc '^#' "$RANGES") ranges"

check "clear" "$CFCTL" clear
start=$(date +%s)
expect "cfctl load of the ranges" 0 -- "$CFCTL" load "$RANGES"
diag "cfctl load: $(($(date +%s) - start)) s"
diag_file "cfctl load" "$tap_tmp/out"
"$CFCTL" info >"$tap_tmp/info" 2>&1
diag_file "cfctl info" "$tap_tmp/info"

for what in info "match $GEOIP_MATCH" "xdp $GEOIP_XDP"; do
	start=$(date +%s)
	# shellcheck disable=SC2086 # the mode and its count are two words
	expect "geoip_verdicts $what" 0 -o "${what%% *}: " -- \
		./geoip_verdicts "$RANGES" $what
	diag_file "geoip_verdicts $what ($(($(date +%s) - start)) s)" "$tap_tmp/out"
done

# The operator's view: `cfctl match` on a sample, ranges' edges among them.
: "${GEOIP_CFCTL:=150}"
./geoip_verdicts "$RANGES" sample "$GEOIP_CFCTL" >"$tap_tmp/sample"
wrong=0
checked=0
while read -r addr want; do
	if "$CFCTL" -q match "$addr"; then got=drop; else got=pass; fi
	checked=$((checked + 1))
	[ "$got" = "$want" ] && continue
	wrong=$((wrong + 1))
	diag "cfctl match $addr: $got, the ranges say $want"
done <"$tap_tmp/sample"
expect "cfctl match agrees with the ranges on $checked addresses" 0 -- \
	test "$wrong" = 0 -a "$checked" -gt 0

# The checker must notice one range gone: every range's edges are checked.
first=$(grep -m1 -v '^#' "$RANGES")
check "cfctl del $first" "$CFCTL" del "$first"
expect "geoip_verdicts match notices $first missing" 1 -o "wrong" -- \
	./geoip_verdicts "$RANGES" match 1
diag_file "geoip_verdicts match 1" "$tap_tmp/out"

check "clear again" "$CFCTL" clear
tap_end
