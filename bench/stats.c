// SPDX-License-Identifier: GPL-2.0
/* The bench's state, clocks, random keys and medians. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_int.h"
#include "mix.h"

/* The bench's state, which its files share (bench_int.h). */
double samples[NSIZES][NLOADS][NSUBJECTS][NMETRICS][REPS];
/* first / second of each of pairs[], from paired_lookups() */
double pair_ratio[NSIZES][NLOADS][NPAIRS][NMETRICS][REPS];
u32 *keys;		/* present keys, in insertion order */
u32 *probe;		/* one measurement's lookup keys */
u8 *stored;		/* per key of an insert window: stored? */
u32 key_salt;
unsigned int rebuilds[NSUBJECTS];	/* see subject_full() */
#ifdef CFILTER_REF
double key_read[NSIZES][REPS];	/* ns, see chase.c */
double floor_read[NSIZES][REPS];	/* ns, see chase.c */
#endif

void die(const char *what)
{
	fprintf(stderr, "bench: %s\n", what);
	exit(1);
}

double clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * Measurements use this thread's CPU time: time the thread spends
 * preempted by other work on this machine does not count.
 */
double now_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* splitmix64 */
u64 rng(void)
{
	u64 z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Key number @i: a bijection of 32-bit numbers, so distinct i, distinct keys. */
u32 key_at(u64 i)
{
	return bench_mix32((u32)i ^ key_salt);
}

u64 slots_of(unsigned int size)
{
	return 1ULL << sizes[size].slot_shift;
}

u64 keys_at_load(unsigned int size, unsigned int pct)
{
	return slots_of(size) * pct / 100;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double median(const double *v)
{
	double tmp[REPS];

	memcpy(tmp, v, sizeof(tmp));
	qsort(tmp, REPS, sizeof(tmp[0]), cmp_double);
	return tmp[REPS / 2];
}

double med(unsigned int size, unsigned int l, enum subject s,
	   enum metric m)
{
	return median(samples[size][l][s][m]);
}

/* The median of pair @p's ratios. */
double med_ratio(unsigned int size, unsigned int l, unsigned int p,
		 enum metric m)
{
	return median(pair_ratio[size][l][p][m]);
}
