// SPDX-License-Identifier: GPL-2.0
/* Geo ranges: read from a file, split into prefixes as cfctl splits them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "lib/range.h"
#include "xdp_bench.h"

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* One "LOW-HIGH" address into @out; its family's address length, or 0. */
static unsigned int parse_addr(const char *s, uint8_t *out)
{
	if (inet_pton(AF_INET, s, out) == 1)
		return 4;
	if (inet_pton(AF_INET6, s, out) == 1)
		return 16;
	return 0;
}

/*
 * Reads "LOW-HIGH" lines, all of one family (its address length into
 * *@alen); returns the ranges sorted, overlaps merged. Ranges that only
 * touch stay apart: a file of several countries' ranges, each merged on
 * its own (scripts/geoip/geoip-ranges.sh -s), keeps them as loading the
 * countries one by one would.
 */
struct range *read_ranges(const char *file, unsigned int *alen,
			  size_t *count)
{
	char line[160], *dash, *nl;
	struct range *r = NULL;
	size_t n = 0, room = 0, lineno = 0, i, j;
	uint8_t lo[16], hi[16];
	unsigned int al, ah;
	FILE *f = fopen(file, "r");

	if (!f)
		die("%s: %m", file);
	*alen = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		dash = strchr(line, '-');
		if (!dash)
			die("%s:%zu: want LOW-HIGH, got '%s'", file, lineno, line);
		*dash = '\0';
		al = parse_addr(line, lo);
		ah = parse_addr(dash + 1, hi);
		if (!al || al != ah || (*alen && al != *alen) ||
		    memcmp(lo, hi, al) > 0)
			die("%s:%zu: '%s-%s' is not a range of the file's family",
			    file, lineno, line, dash + 1);
		*alen = al;
		if (n == room) {
			room = room ? 2 * room : 1024;
			r = realloc(r, room * sizeof(*r));
			if (!r)
				die("out of memory");
		}
		r[n].lo = range_addr_num(lo, al);
		r[n].hi = range_addr_num(hi, al);
		n++;
	}
	fclose(f);
	if (!n)
		die("%s: no range", file);
	qsort(r, n, sizeof(*r), cmp_range);
	for (i = 1, j = 0; i < n; i++) {
		if (r[i].lo <= r[j].hi) {
			if (r[i].hi > r[j].hi)
				r[j].hi = r[i].hi;
		} else {
			r[++j] = r[i];
		}
	}
	*count = j + 1;
	return r;
}

struct pfx_list {
	struct pfx	*p;
	size_t		n;
	size_t		room;
	unsigned int	alen;
};

static int pfx_emit(const uint8_t *addr, unsigned int len, void *arg)
{
	struct pfx_list *l = arg;

	if (l->n == l->room) {
		l->room = l->room ? 2 * l->room : 4096;
		l->p = realloc(l->p, l->room * sizeof(*l->p));
		if (!l->p)
			die("out of memory");
	}
	memset(&l->p[l->n], 0, sizeof(l->p[l->n]));
	memcpy(l->p[l->n].addr, addr, l->alen);
	l->p[l->n].len = len;
	l->n++;
	return 0;
}

/* The ranges as CIDR prefixes, as cfctl splits them (user/lib/range.c). */
struct pfx *split_ranges(const struct range *r, size_t nr,
			 unsigned int alen, size_t *count)
{
	struct pfx_list l = { .alen = alen };
	uint8_t lo[16], hi[16];
	size_t k;

	for (k = 0; k < nr; k++) {
		range_addr_bytes(r[k].lo, lo, alen);
		range_addr_bytes(r[k].hi, hi, alen);
		if (range_split(lo, hi, alen, pfx_emit, &l))
			die("splitting range %zu", k);
	}
	*count = l.n;
	return l.p;
}
