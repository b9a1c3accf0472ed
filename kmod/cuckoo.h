/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cuckoo filter (Fan, Andersen, Kaminsky, Mitzenmacher, CoNEXT 2014) with
 * lock-free readers in the style of MemC3 (Fan, Andersen, Kaminsky, NSDI 2013).
 *
 * Plain C: built into the cfilter module and into host test and benchmark
 * binaries; cuckoo_env.h supplies the few kernel/host differences.
 *
 * Concurrency: writers (insert, delete, clear) must be serialised by the
 * caller (the module holds a mutex). Any number of readers (cuckoo_contains)
 * may run concurrently with one writer and take no lock. A key that is
 * present when a read starts and is not deleted during it is always found,
 * even while the writer moves fingerprints between buckets.
 */
#ifndef CFILTER_CUCKOO_H
#define CFILTER_CUCKOO_H

#include "cuckoo_env.h"

#define CUCKOO_SLOTS		4	/* slots per bucket */
#define CUCKOO_MAX_KICKS	500	/* slots searched per insert (BFS bound) */
#define CUCKOO_MAX_LOAD_PCT	95	/* sizing target: capacity fits at 95% */

struct cuckoo;

struct cuckoo_stats {
	u64 capacity;		/* slots: buckets * CUCKOO_SLOTS */
	u64 count;		/* fingerprints stored */
	u64 buckets;
	u32 fp_bits;
	u64 memory_bytes;	/* everything cuckoo_create allocated */
	u64 insert_failures;	/* inserts refused with -ENOSPC since clear */
};

/*
 * Returns 0 if a filter for @capacity keys with @fp_bits-bit fingerprints
 * can be built, or -EINVAL (fp_bits not 8, 12, 16 or 32; capacity 0 or too
 * large to size without overflow).
 */
int cuckoo_params_check(u64 capacity, unsigned int fp_bits);

/*
 * Builds an empty filter that holds at least @capacity keys at no more than
 * CUCKOO_MAX_LOAD_PCT load. @seed keys the hash. Returns NULL on bad
 * parameters or no memory.
 */
struct cuckoo *cuckoo_create(u64 capacity, unsigned int fp_bits, u64 seed);
void cuckoo_destroy(struct cuckoo *c);

/* Writers: caller serialises. Keys are @len bytes, any length. */
int cuckoo_insert(struct cuckoo *c, const void *key, size_t len);
				/* 0, -EEXIST (fingerprint already in one of
				 * the key's buckets), -ENOSPC (no free slot
				 * within CUCKOO_MAX_KICKS; nothing moved) */
int cuckoo_delete(struct cuckoo *c, const void *key, size_t len);
				/* 0, -ENOENT */
void cuckoo_clear(struct cuckoo *c);

/* Reader: lock-free, safe against one concurrent writer. */
bool cuckoo_contains(const struct cuckoo *c, const void *key, size_t len);

void cuckoo_get_stats(const struct cuckoo *c, struct cuckoo_stats *st);

#endif /* CFILTER_CUCKOO_H */
