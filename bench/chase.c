// SPDX-License-Identifier: GPL-2.0
/*
 * The latency of one dependent read at a random place of an array as large
 * as an exact table's key array (REF=dir only): what an exact lookup of a
 * present key pays after its fingerprint matched, and a filter, which
 * keeps no keys, never pays. The goal on exact present latency is the
 * reference's plus this.
 *
 * The same chase over an array as large as a compact fp16 table is the
 * floor of any chained lookup in it: one miss, no hash, no compare. What a
 * filter's latency adds to it is its own work, the part that code can
 * change.
 */
#include "bench_int.h"

/* ns of one read of @words u32s, chained as LOOKUP_LOOP chains lookups. */
static double chase_once(const u32 *arr, u64 words)
{
	u64 n = 0;
	double t0 = now_ns();
	u32 i;

	for (i = 0; i < LOOKUPS; i++) {
		n += arr[probe[(i + (u32)n) & (LOOKUPS - 1)] & (words - 1)];
		CHAIN_BARRIER();
	}
	t0 = now_ns() - t0;
	if (n != LOOKUPS)
		die("the chase read a word other than 1");
	return t0 / LOOKUPS;
}

/* An array of @bytes (a power of two) to chase, allocated as key arrays. */
u32 *chase_create(u64 bytes)
{
	u32 *arr = cuckoo_table_zalloc(bytes);
	u64 i;

	if (!arr)
		die("out of memory for the chase");
	for (i = 0; i < bytes / sizeof(u32); i++)
		arr[i] = 1;
	return arr;
}

void chase_destroy(u32 *arr)
{
	kvfree(arr);
}

/*
 * One read in @arr, of @bytes, less one within a cache line, which leaves
 * out the loop and the barrier; at probe[]'s keys as random places. Taken
 * once per repetition, beside the lookups it is judged with, so that a
 * burst of noise falls on one sample of each, not on all of one.
 */
double key_read_ns(const u32 *arr, u64 bytes)
{
	return chase_once(arr, bytes / sizeof(u32)) -
	       chase_once(arr, 64 / sizeof(u32));
}

/*
 * One read in the first @bytes of @arr (a power of two, at most the
 * array's), with the loop and the barrier, as a chained lookup pays them.
 */
double floor_read_ns(const u32 *arr, u64 bytes)
{
	return chase_once(arr, bytes / sizeof(u32));
}
