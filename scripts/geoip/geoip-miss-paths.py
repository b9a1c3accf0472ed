#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where IPv6 misses from other countries meet the blocked countries' prefixes.

Usage: scripts/geoip/geoip-miss-paths.py BLOCKED RANGES [N]

BLOCKED and RANGES are range files as scripts/geoip/geoip-ranges.sh -6 writes
them (the blocked countries', and the other countries'). Picks N (20000) misses as
`make bench-xdp` does (a range of RANGES uniformly, then an address in it,
outside BLOCKED) and counts, for each, what the module's summary (prefix_summary.h)
leaves to the search over the lengths: the /16 holds no member; it does, and
the miss's /32 holds a member of /32 to /63 (the search runs); only the
hashed /32 bit says so (a collision); or neither. Then, for the misses
whose /32 holds such a member, the shortest member there, and whether one
lies in the miss's own /40 or /48: how much finer hashed blocks would
spare. The prefixes are the ranges split as the bench splits them.
"""
import bisect
import ipaddress
import random
import sys
from collections import Counter

SUM_HASH = 0x61c88647       # prefix_summary.h: PREFIX_SUM_HASH


def read_ranges(path):
    out = []
    with open(path) as f:
        for line in f:
            lo, hi = line.strip().split('-')
            out.append((int(ipaddress.IPv6Address(lo)),
                        int(ipaddress.IPv6Address(hi))))
    return sorted(out)


def hashed(v):
    return ((v * SUM_HASH) & 0xffffffff) >> 16


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.split('\n\n')[1])
    blocked = read_ranges(sys.argv[1])
    others = read_ranges(sys.argv[2])
    n = int(sys.argv[3]) if len(sys.argv) == 4 else 20000
    random.seed(1)

    deep = {}               # /32 -> members of /32 to /63 in it
    slash16 = set()
    for lo, hi in blocked:
        for net in ipaddress.summarize_address_range(
                ipaddress.IPv6Address(lo), ipaddress.IPv6Address(hi)):
            a, plen = int(net.network_address), net.prefixlen
            slash16.add(a >> 112)
            if 32 <= plen <= 63:
                deep.setdefault(a >> 96, []).append((a, plen))
    deep_bits = {hashed(b & 0xffffffff) for b in deep}
    starts = [lo for lo, _ in blocked]

    def is_blocked(x):
        i = bisect.bisect_right(starts, x) - 1
        return i >= 0 and blocked[i][1] >= x

    paths, shared = Counter(), Counter()
    done = 0
    while done < n:
        lo, hi = random.choice(others)
        x = random.randint(lo, hi)
        if is_blocked(x):
            continue
        done += 1
        b32 = x >> 96
        if x >> 112 not in slash16:
            paths['no member in its /16'] += 1
        elif b32 in deep:
            paths['its /32 holds a member of /32 to /63'] += 1
            members = deep[b32]
            shortest = min(plen for _, plen in members)
            shared['shortest member there: /%s' %
                   ('32-39' if shortest < 40 else
                    '40-47' if shortest < 48 else '48-63')] += 1
            shared['a member in its /40'] += any(
                a >> 88 == x >> 88 for a, _ in members)
            shared['a member in its /48'] += any(
                a >> 80 == x >> 80 for a, _ in members)
        elif hashed(b32 & 0xffffffff) in deep_bits:
            paths['only its hashed /32 bit is set'] += 1
        else:
            paths['neither'] += 1
    print('%d misses; /32 blocks with members of /32 to /63: %d, '
          'hashed bits set: %d of 65536' % (n, len(deep), len(deep_bits)))
    for k, v in sorted(paths.items()):
        print('  %-42s %6d  %5.1f%%' % (k, v, 100.0 * v / n))
    total = paths['its /32 holds a member of /32 to /63']
    print('of the %d whose /32 holds such a member:' % total)
    for k, v in sorted(shared.items()):
        print('  %-42s %6d  %5.1f%%' % (k, v, 100.0 * v / max(total, 1)))


if __name__ == '__main__':
    main()
