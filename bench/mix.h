/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The benches' way of numbering keys: a bijection of 32-bit numbers (a
 * multiply-xorshift finalizer), so distinct numbers give distinct keys,
 * spread over the whole space.
 */
#ifndef CFILTER_BENCH_MIX_H
#define CFILTER_BENCH_MIX_H

#include "cuckoo_env.h"

static inline u32 bench_mix32(u32 x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

#endif /* CFILTER_BENCH_MIX_H */
