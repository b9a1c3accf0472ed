// SPDX-License-Identifier: GPL-2.0
/*
 * Does a table fill, whatever its seed? Keys in arithmetic progression (a
 * feed listing a /24 address by address, a set of /24 prefixes, a range)
 * against IPv4 tables placed by the mixed hash the core gives them
 * (cuckoo_hash_mix32()) and by the short hash they took before
 * (cuckoo_hash32(), bench/cuckoo_short.c). A hash that is only pairwise
 * independent sends such keys to few bucket pairs for some seeds, and an
 * insert fails in a table far from full: a growing table then doubles for
 * nothing, a full-sized one says ENOSPC. Counted, not timed: the figures
 * do not depend on the machine.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cuckoo.h"
#include "cuckoo_copies.h"
#include "mix.h"

struct hash {
	const char *name;
	struct cuckoo *(*create)(const struct cuckoo_params *p);
	void (*destroy)(struct cuckoo *c);
	int (*insert)(struct cuckoo *c, const void *key);
};

static const struct hash hashes[] = {
	{ "mixed (now)", cuckoo_create, cuckoo_destroy, cuckoo_insert },
	{ "short (before)", cuckoo_short_create, cuckoo_short_destroy,
	  cuckoo_short_insert },
};

/* Key @i of a progression from 10.0.0.0 with step @step, network order. */
static void key_at(u8 *k, u32 i, u32 step)
{
	u32 v = 0x0a000000 + i * step;

	k[0] = v >> 24;
	k[1] = v >> 16;
	k[2] = v >> 8;
	k[3] = v;
}

/*
 * @keys keys of step @step into a table for @capacity keys, once per
 * seed: the seeds on which an insert failed, and the fewest keys stored
 * when one did (into *@least).
 */
static u32 fill(const struct hash *h, bool exact, u32 keys, u32 step,
		u64 capacity, u32 seeds, u32 *least, u64 *slots)
{
	u32 seed, i, failed = 0;

	*least = keys;
	for (seed = 0; seed < seeds; seed++) {
		struct cuckoo_params p = {
			.capacity = capacity,
			.max_capacity = capacity,
			.seed = (u64)bench_mix32(2 * seed + 1) << 32 |
				bench_mix32(2 * seed + 2),
			.fp_bits = 16,
			.key_len = 4,
			.exact = exact,
		};
		struct cuckoo *c = h->create(&p);

		if (!c) {
			fprintf(stderr, "fill: no table for %llu keys\n",
				(unsigned long long)capacity);
			exit(1);
		}
		if (!seed) {
			struct cuckoo_stats st;

			cuckoo_get_stats(c, &st);
			*slots = st.capacity;
		}
		for (i = 0; i < keys; i++) {
			u8 k[4];
			int rc;

			key_at(k, i, step);
			rc = h->insert(c, k);
			/* compact: a key on another's fingerprint is EEXIST */
			if (rc && (rc != -EEXIST || exact)) {
				failed++;
				if (i < *least)
					*least = i;
				break;
			}
		}
		h->destroy(c);
	}
	return failed;
}

int main(void)
{
	static const struct {
		const char *what;
		u32 keys, step;
		u64 capacity;
		u32 seeds;
		bool compact;
	} runs[] = {
		{ "10.0.0.0 .. 10.0.0.63", 64, 1, 64, 20000, true },
		{ "10.0.0.0 .. 10.0.63.0, step 256", 64, 256, 64, 20000, true },
		{ "10.0.0.0 .. 10.0.255.255", 65536, 1, 65536, 4000, false },
	};
	unsigned int r, hi, mode;

	printf("fill: IPv4 keys in arithmetic progression into one table sized for them (never\n"
	       "grown), once per seed; fp16 fingerprints; failed: seeds on which an insert was\n"
	       "refused; at: the fewest keys stored when one was, as a load of the slots\n\n");
	printf("%-32s %-8s %6s %-15s %11s %6s\n", "keys", "mode", "slots",
	       "hash", "failed", "at");
	for (r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		for (mode = 0; mode < (runs[r].compact ? 2U : 1U); mode++) {
			for (hi = 0; hi < 2; hi++) {
				u64 slots = 0;
				u32 least, f;

				f = fill(&hashes[hi], mode == 0, runs[r].keys,
					 runs[r].step, runs[r].capacity,
					 runs[r].seeds, &least, &slots);
				printf("%-32s %-8s %6llu %-15s %5u/%-5u",
				       runs[r].what, mode ? "compact" : "exact",
				       (unsigned long long)slots,
				       hashes[hi].name, f, runs[r].seeds);
				if (f)
					printf(" %5.1f%%\n", 100.0 * least / slots);
				else
					printf(" %6s\n", "-");
			}
		}
	}
	return 0;
}
