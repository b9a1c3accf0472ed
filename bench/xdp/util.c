// SPDX-License-Identifier: GPL-2.0
/* Errors, allocation, the seeded random numbers, lookups in sorted arrays. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "xdp_bench.h"

void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "xdp_bench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		die("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

uint64_t rng_state;
long long prefilter_mem;
unsigned int prefilter_words = 1;
double floor_ns;

/* splitmix64: tiny, fast, and good enough to scatter addresses. */
uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int cmp_u128(const void *a, const void *b)
{
	u128 x = *(const u128 *)a, y = *(const u128 *)b;

	return x < y ? -1 : x > y;
}

void sort_u128(u128 *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u128);
}

bool in_sorted(const u128 *v, size_t n, u128 x)
{
	return bsearch(&x, v, n, sizeof(*v), cmp_u128) != NULL;
}

u128 rnd128(void)
{
	u128 hi = rnd();

	return hi << 64 | rnd();
}
