// SPDX-License-Identifier: GPL-2.0
/*
 * What binary search on prefix lengths (Waldvogel, Varghese, Turner,
 * Plattner, SIGCOMM 1997) would store for a real prefix set, to choose the
 * prefix sets' structure by measurement:
 *
 *	scripts/geoip/geoip-ranges.sh CC... | bench/lengths [-6]
 *
 * reads LOW-HIGH ranges, splits them into prefixes (user/lib/range.c) and
 * prints, for two search trees over the lengths shorter than an address
 * (full-length members stay in the address table, /0 is a flag):
 * - fixed: a balanced tree over every length 1..W-1 (W = 32 or 128); its
 *   shape never changes, so neither do the markers of a stored prefix;
 * - present: a balanced tree over the lengths present; fewer probes, but a
 *   new length reshapes the tree and moves markers;
 * the probes per lookup (the tree's depth, plus one for the address table),
 * the markers (entries a lookup must find on its way to a longer prefix
 * that no prefix already provides) and the bytes per prefix they all take
 * as exact cuckoo entries: the masked address's bytes, a 4-byte value (the
 * best matching prefix, the source, a marker count) and a 16-bit
 * fingerprint, at the 95% load a table reaches before it doubles and at
 * the 71% it averages.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/range.h"

#define VALUE_BYTES	4
#define FP_BYTES	2

/* An entry of a level: the length, then the address masked to it. */
struct entry {
	uint8_t len;
	uint8_t addr[16];
};

struct entries {
	struct entry *e;
	size_t n, cap;
};

static unsigned int alen = 4;
static struct entries prefixes;
static size_t full_length;

static void push(struct entries *v, const uint8_t *addr, unsigned int len)
{
	struct entry *e;

	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 4096;
		v->e = realloc(v->e, v->cap * sizeof(*v->e));
		if (!v->e) {
			perror("lengths");
			exit(1);
		}
	}
	e = &v->e[v->n++];
	memset(e, 0, sizeof(*e));
	e->len = len;
	memcpy(e->addr, addr, alen);
}

static int emit(const uint8_t *addr, unsigned int len, void *arg)
{
	(void)arg;
	if (len == 8 * alen)
		full_length++;
	else
		push(&prefixes, addr, len);
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->len != y->len)
		return x->len - y->len;
	return memcmp(x->addr, y->addr, sizeof(x->addr));
}

static void mask(uint8_t *a, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < alen; i++) {
		if (len >= 8 * (i + 1))
			continue;
		a[i] &= len <= 8 * i ? 0 : (uint8_t)(0xff00 >> (len - 8 * i));
	}
}

/*
 * The markers of every prefix on its way down the balanced tree over
 * lens[0..n-1], into @out; the depth of the tree into *@depth.
 */
static void markers(const uint8_t *lens, unsigned int n, struct entries *out,
		    unsigned int *depth)
{
	size_t i;

	*depth = 0;
	for (i = 0; i < prefixes.n; i++) {
		const struct entry *p = &prefixes.e[i];
		int lo = 0, hi = n - 1;
		unsigned int d = 0;

		while (lo <= hi) {
			int mid = (lo + hi) / 2;
			uint8_t a[16];

			d++;
			if (lens[mid] == p->len)
				break;
			if (lens[mid] > p->len) {
				hi = mid - 1;
				continue;
			}
			memcpy(a, p->addr, alen);
			mask(a, lens[mid]);
			push(out, a, lens[mid]);
			lo = mid + 1;
		}
		if (d > *depth)
			*depth = d;
	}
}

/* Sorts @v and drops repeats. */
static void unique(struct entries *v)
{
	size_t i, n = 0;

	qsort(v->e, v->n, sizeof(*v->e), entry_cmp);
	for (i = 0; i < v->n; i++)
		if (!n || entry_cmp(&v->e[n - 1], &v->e[i]))
			v->e[n++] = v->e[i];
	v->n = n;
}

/* How many entries of @v are not in the (sorted, unique) prefixes. */
static size_t not_prefixes(const struct entries *v)
{
	size_t i, n = 0;

	for (i = 0; i < v->n; i++)
		n += !bsearch(&v->e[i], prefixes.e, prefixes.n,
			      sizeof(*v->e), entry_cmp);
	return n;
}

/* Bytes of every entry (prefixes and markers) as cuckoo slots, full. */
static double slot_bytes(const struct entries *markers_only)
{
	double bytes = 0;
	size_t i;

	for (i = 0; i < prefixes.n; i++)
		bytes += (prefixes.e[i].len + 7) / 8 + VALUE_BYTES + FP_BYTES;
	for (i = 0; i < markers_only->n; i++)
		if (!bsearch(&markers_only->e[i], prefixes.e, prefixes.n,
			     sizeof(struct entry), entry_cmp))
			bytes += (markers_only->e[i].len + 7) / 8 +
				 VALUE_BYTES + FP_BYTES;
	return bytes;
}

static void report(const char *name, const uint8_t *lens, unsigned int n)
{
	struct entries m = { 0 };
	unsigned int depth;
	size_t extra;
	double bytes;

	markers(lens, n, &m, &depth);
	unique(&m);
	extra = not_prefixes(&m);
	bytes = slot_bytes(&m);
	printf("%-8s %3u lengths  probes <= %u  markers %8zu (%.2f per prefix)  bytes per prefix %.1f at 95%% load, %.1f at 71%%\n",
	       name, n, depth + 1, extra, (double)extra / prefixes.n,
	       bytes / 0.95 / prefixes.n, bytes / 0.71 / prefixes.n);
	free(m.e);
}

int main(int argc, char *argv[])
{
	int af = AF_INET;
	uint8_t lo[16], hi[16], fixed[128], present[128];
	unsigned int nfixed = 0, npresent = 0, l;
	char line[256], *dash;
	size_t i, ranges = 0;
	int seen[129] = { 0 };

	if (argc == 2 && !strcmp(argv[1], "-6")) {
		af = AF_INET6;
		alen = 16;
	} else if (argc != 1) {
		fprintf(stderr, "usage: scripts/geoip/geoip-ranges.sh [-6] CC... | lengths [-6]\n");
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] == '#' || !line[0])
			continue;
		dash = strchr(line, '-');
		if (!dash) {
			fprintf(stderr, "lengths: not LOW-HIGH: %s\n", line);
			return 2;
		}
		*dash = 0;
		if (inet_pton(af, line, lo) != 1 || inet_pton(af, dash + 1, hi) != 1) {
			fprintf(stderr, "lengths: bad range %s-%s\n", line, dash + 1);
			return 2;
		}
		if (range_split(lo, hi, alen, emit, NULL)) {
			fprintf(stderr, "lengths: cannot split %s-%s\n", line, dash + 1);
			return 2;
		}
		ranges++;
	}
	unique(&prefixes);
	for (i = 0; i < prefixes.n; i++)
		seen[prefixes.e[i].len] = 1;
	for (l = 1; l < 8 * alen; l++) {
		fixed[nfixed++] = l;
		if (seen[l])
			present[npresent++] = l;
	}
	printf("IPv%c: %zu ranges -> %zu prefixes shorter than /%u (%u lengths, /0 %s) and %zu full-length addresses\n",
	       alen == 4 ? '4' : '6', ranges, prefixes.n, 8 * alen, npresent,
	       seen[0] ? "present" : "absent", full_length);
	report("fixed", fixed, nfixed);
	report("present", present, npresent);
	free(prefixes.e);
	return 0;
}
