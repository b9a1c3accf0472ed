/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fuzzers' random numbers: xorshift64, whose whole state is one
 * number, so that a printed seed repeats a run exactly.
 */
#ifndef CFILTER_SELFTESTS_XORSHIFT_H
#define CFILTER_SELFTESTS_XORSHIFT_H

#include <linux/types.h>

/* Seed it with a nonzero value: zero stays zero. */
static __u64 rng_state;

static inline __u64 rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

#endif /* CFILTER_SELFTESTS_XORSHIFT_H */
