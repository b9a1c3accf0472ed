// SPDX-License-Identifier: GPL-2.0
/*
 * The latency of one dependent read at a random place of an array as large
 * as an exact table's key array (REF=dir only): what an exact lookup of a
 * present key pays after its fingerprint matched, and a filter, which
 * keeps no keys, never pays. The goal on exact present latency is the
 * reference's plus this.
 */
#include "bench.h"

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

/*
 * One read in an array of @bytes (a power of two) less one in a cache
 * line, which leaves out the loop and the barrier: median of REPS, the
 * two arrays taking turns, each on new random places.
 */
double key_read_ns(u64 bytes)
{
	const u64 small = 64 / sizeof(u32), words = bytes / sizeof(u32);
	u32 *arr = cuckoo_table_zalloc(bytes);	/* as the key array */
	double d[REPS];
	unsigned int rep;
	u64 i;

	if (!arr)
		die("out of memory for the chase");
	for (i = 0; i < words; i++)
		arr[i] = 1;
	for (rep = 0; rep < REPS; rep++) {
		draw_absent();
		d[rep] = chase_once(arr, words) - chase_once(arr, small);
	}
	kvfree(arr);
	return median(d);
}
