// SPDX-License-Identifier: GPL-2.0
/*
 * Cuckoo filter core: parameters and geometry, tables, a filter's creation
 * and end, and its stats. How the table works is told in cuckoo_int.h.
 */
#include "cuckoo_int.h"

/*
 * Versions are striped by fingerprint: f uses versions[f & stripe_mask].
 * Fingerprints sharing a counter only make each other's readers retry more
 * often. A reader reads one counter, not one per bucket (make bench found
 * the second counter's cache line costly at 16M), and a final hit reads it
 * once only. At most 4096 counters (16 KiB), and no more than buckets,
 * make retries rare without costing much cache.
 */
#define CUCKOO_STRIPES_MAX	4096

/*
 * Each array is at most 1 GiB (kvmalloc() refuses more than INT_MAX bytes):
 * the fingerprint array, and in exact mode the key array (a stride per
 * slot), bound a table's size; cuckoo_max_capacity() says how far.
 */
#define CUCKOO_ALLOC_MAX	(1024ULL * 1024 * 1024)

/*
 * The smallest power-of-two bucket count B with B * CUCKOO_SLOTS *
 * CUCKOO_MAX_LOAD_PCT / 100 >= @capacity, i.e. @capacity keys fill at most
 * 95% of the slots, if B <= @limit. Checking @capacity against @limit first
 * keeps every product below 2^40.
 */
static int cuckoo_buckets_for(u64 capacity, u64 limit, u64 *buckets)
{
	u64 b = 1;

	if (!capacity || capacity > limit * CUCKOO_SLOTS)
		return -EINVAL;
	while (b * CUCKOO_SLOTS * CUCKOO_MAX_LOAD_PCT < capacity * 100)
		b <<= 1;
	if (b > limit)
		return -EINVAL;
	*buckets = b;
	return 0;
}

/* Where a slot's value starts: aligned, so that one load reads it. */
static u32 cuckoo_val_off(const struct cuckoo_params *p)
{
	return (p->key_len + sizeof(u32) - 1) & ~(u32)(sizeof(u32) - 1);
}

/* Bytes per slot of the key array: the key, then its value if any. */
static u32 cuckoo_stride(const struct cuckoo_params *p)
{
	return p->values ? cuckoo_val_off(p) + sizeof(u32) : p->key_len;
}

/* Initial and largest bucket counts for @p, or -EINVAL. */
int cuckoo_geometry(const struct cuckoo_params *p, u64 *buckets,
		    u64 *max_buckets)
{
	int shift = cuckoo_bucket_shift(p->fp_bits);
	u64 max_capacity = p->max_capacity ? p->max_capacity : p->capacity;
	u64 limit, key_limit;

	if (shift < 0 || !p->key_len || p->key_len > CUCKOO_KEY_MAX)
		return -EINVAL;
	if (p->values && !p->exact)
		return -EINVAL;
	if (max_capacity < p->capacity ||
	    (!p->exact && max_capacity != p->capacity))
		return -EINVAL;
	limit = CUCKOO_ALLOC_MAX >> shift;
	key_limit = CUCKOO_ALLOC_MAX / (CUCKOO_SLOTS * cuckoo_stride(p));
	if (p->exact && key_limit < limit)
		limit = key_limit;
	if (cuckoo_buckets_for(p->capacity, limit, buckets) ||
	    cuckoo_buckets_for(max_capacity, limit, max_buckets))
		return -EINVAL;
	return 0;
}

/**
 * cuckoo_params_check() - check filter parameters without allocating
 * @p: the parameters
 *
 * @p->fp_bits must be 8, 12, 16 or 32 and @p->key_len 1 to CUCKOO_KEY_MAX;
 * @p->capacity must be at least 1; @p->max_capacity must be 0 or at least
 * @p->capacity, and in compact mode 0 or equal to it. A table for
 * max(@p->capacity, @p->max_capacity) keys at 95% load must need no array
 * larger than 1 GiB (fingerprints, and in exact mode keys).
 *
 * Return: 0, or -EINVAL if a rule is broken.
 */
int cuckoo_params_check(const struct cuckoo_params *p)
{
	u64 buckets, max_buckets;

	return cuckoo_geometry(p, &buckets, &max_buckets);
}

/**
 * cuckoo_max_capacity() - the most keys a filter of these parameters may hold
 * @p: the parameters; @p->max_capacity (or @p->capacity) is the most wanted
 *
 * The core bounds a table's bytes, which depend on the fingerprint width,
 * the mode, the key length and values; acceptance is monotonic, so a binary
 * search finds the bound without restating those rules.
 *
 * Return: the largest max_capacity, at most the one wanted, that
 * cuckoo_params_check() accepts with the rest of @p; 0 if none is.
 */
u64 cuckoo_max_capacity(const struct cuckoo_params *p)
{
	struct cuckoo_params q = *p;
	u64 lo = p->capacity, hi = p->max_capacity ? p->max_capacity :
						      p->capacity;

	q.max_capacity = lo;
	if (cuckoo_params_check(&q))
		return 0;
	if (!p->exact)		/* a compact table never grows */
		return lo;
	while (lo < hi) {
		q.max_capacity = hi - (hi - lo) / 2;
		if (!cuckoo_params_check(&q))
			lo = q.max_capacity;
		else
			hi = q.max_capacity - 1;
	}
	return lo;
}

/* Frees @t and its arrays; NULL: nothing. */
void cuckoo_table_free(struct cuckoo_table *t)
{
	if (!t)
		return;
	cuckoo_mem_uncharge(t->memory_bytes);
	kvfree(t->keys);
	kvfree(t->versions);
	kvfree(t->words);
	kvfree(t);
}

/*
 * An empty table of @buckets buckets, or ERR_PTR(-EDQUOT) (the module's
 * memory bound) or ERR_PTR(-ENOMEM).
 */
struct cuckoo_table *cuckoo_table_alloc(const struct cuckoo *c, u64 buckets)
{
	u64 stripes = buckets < CUCKOO_STRIPES_MAX ? buckets : CUCKOO_STRIPES_MAX;
	u64 words = buckets << cuckoo_bucket_shift(c->fp_bits);
	u64 keys = c->exact ? buckets * CUCKOO_SLOTS * c->stride : 0;
	u64 bytes = cuckoo_mem_footprint(sizeof(struct cuckoo_table)) +
		    cuckoo_mem_footprint(words) +
		    cuckoo_mem_footprint(stripes * sizeof(u32)) +
		    cuckoo_mem_footprint(keys);
	struct cuckoo_table *t;

	if (!cuckoo_mem_charge(bytes))
		return ERR_PTR(-EDQUOT);
	t = kvzalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		cuckoo_mem_uncharge(bytes);
		return ERR_PTR(-ENOMEM);
	}
	t->bucket_mask = buckets - 1;
	t->stripe_mask = stripes - 1;
	t->memory_bytes = bytes;
	t->words = cuckoo_table_zalloc(words);
	t->versions = kvcalloc(stripes, sizeof(u32), GFP_KERNEL);
	if (keys)
		t->keys = cuckoo_table_zalloc(keys);
	if (!t->words || !t->versions || (keys && !t->keys)) {
		cuckoo_table_free(t);
		return ERR_PTR(-ENOMEM);
	}
	return t;
}

/**
 * cuckoo_get_stats() - report geometry and occupancy
 * @c: the filter
 * @st: filled in
 *
 * The counters are the writer's: call with writers excluded for a
 * consistent snapshot.
 */
void cuckoo_get_stats(const struct cuckoo *c, struct cuckoo_stats *st)
{
	const struct cuckoo_table *t = cuckoo_wtable(c);
	u64 buckets = t->bucket_mask + 1;

	st->capacity = buckets * CUCKOO_SLOTS;
	st->count = t->count;
	st->buckets = buckets;
	st->max_capacity = c->max_capacity;
	st->memory_bytes = cuckoo_mem_footprint(sizeof(*c)) +
			   !!c->queue * cuckoo_mem_footprint(CUCKOO_QUEUE_BYTES) +
			   t->memory_bytes;
	st->insert_failures = c->insert_failures;
	st->grows = c->grows;
	st->moves = t->moves;
	st->fp_bits = c->fp_bits;
	st->key_len = c->key_len;
	st->exact = c->exact;
}

/**
 * cuckoo_create() - allocate an empty filter
 * @p: the parameters (see cuckoo_params_check()); in compact mode a lookup
 *     of an absent key is a false positive with probability at most
 *     8 / 2^@p->fp_bits
 *
 * May sleep.
 *
 * Return: the filter, or NULL if the parameters are invalid or memory is
 * short.
 */
struct cuckoo *cuckoo_create(const struct cuckoo_params *p)
{
	u64 buckets, max_buckets;
	struct cuckoo_table *t;
	struct cuckoo *c;

	if (cuckoo_geometry(p, &buckets, &max_buckets))
		return NULL;
	c = cuckoo_mem_zalloc(sizeof(*c));
	if (IS_ERR(c))
		return NULL;
	c->seed = p->seed;
	c->hash_a = cuckoo_hash_a(c->seed);
	c->hash_b = cuckoo_hash_b(c->seed);
	c->fp_bits = p->fp_bits;
	c->fp_mask = p->fp_bits == 32 ? 0xffffffff : (1U << p->fp_bits) - 1;
	c->key_len = p->key_len;
	c->exact = p->exact;
	c->values = p->values;
	c->hash = CUCKOO_HASH_FOR(p->key_len);
	c->reader = cuckoo_reader_for(c);
	c->stride = cuckoo_stride(p);
	c->val_off = cuckoo_val_off(p);
	c->initial_buckets = buckets;
	c->max_buckets = max_buckets;
	c->max_capacity = p->max_capacity ? p->max_capacity : p->capacity;
	t = cuckoo_table_alloc(c, buckets);
	if (IS_ERR(t))
		t = NULL;
	RCU_INIT_POINTER(c->table, t);
	if (!t)
		goto err_free;
	return c;

err_free:
	cuckoo_destroy(c);
	return NULL;
}

/**
 * cuckoo_destroy() - free a filter
 * @c: the filter, or NULL
 *
 * No reader may still be using it (the module waits for an RCU grace
 * period or unregisters its users first).
 */
void cuckoo_destroy(struct cuckoo *c)
{
	if (!c)
		return;
	cuckoo_table_free(rcu_dereference_protected(c->table, true));
	cuckoo_mem_free(c->queue, CUCKOO_QUEUE_BYTES);
	cuckoo_mem_free(c, sizeof(*c));
}
