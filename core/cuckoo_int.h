/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cuckoo filter core: partial-key cuckoo hashing with breadth-first
 * inserts, lock-free version-checked lookups and, in exact mode, the full
 * key (and value) of each slot. How and why: docs/design.md, "The cuckoo
 * table". The invariants every file here keeps:
 * - every key sits in one of its two buckets, i1 and i1 ^ (H(f) & mask),
 *   at every instant; fingerprint 0 is an empty slot;
 * - the writer rewrites a bucket's whole word with WRITE_ONCE();
 * - a slot's record is written before the fingerprint that makes it live
 *   (smp_wmb(), paired with the reader's smp_rmb());
 * - every write that could tear a multi-load record or make a miss wrong
 *   (moves, and clears and rewrites of records not cuckoo_record_whole())
 *   happens inside an odd window of the fingerprint's version;
 * - a reader trusts a hit without a second version read only when it is
 *   cuckoo_hit_final(); misses always check the version;
 * - growth and clear publish a new table and free the old one after a
 *   grace period; the old one is not written meanwhile.
 *
 * The core's files: cuckoo.c (parameters, tables, create and destroy,
 * stats), cuckoo_read.c (readers), cuckoo_write.c (insert, delete, moves,
 * growth, clear), cuckoo_list.c (exact mode's listing) and cuckoo_raw.c
 * (compact tables out and in). This header is theirs alone; cuckoo.h is
 * the interface.
 */
#ifndef CFILTER_CUCKOO_INT_H
#define CFILTER_CUCKOO_INT_H

#include "cuckoo.h"
#include "cuckoo_hash.h"

/* BFS: two roots plus at most one node per slot examined. */
#define CUCKOO_QUEUE_LEN	(CUCKOO_MAX_KICKS + 2)
#define CUCKOO_QUEUE_BYTES	(CUCKOO_QUEUE_LEN * sizeof(struct cuckoo_node))

/* Re-inserting this many keys during growth may be followed by a resched. */
#define CUCKOO_RESCHED_MASK	0xffff

/* BFS node: the fingerprint in @slot of the parent's bucket moves to @bucket. */
struct cuckoo_node {
	u32 bucket;
	u16 parent;
	u8 slot;
};

/**
 * struct cuckoo_table - one generation of the table
 * @words: the fingerprint array, viewed as @t32 or @t64
 * @t32: 8-bit fingerprints: bucket b is t32[b]
 * @t64: 12/16-bit fingerprints: t64[b]; 32-bit: t64[2b] and t64[2b + 1]
 * @versions: version counters striped by fingerprint, odd while a slot
 *	holding such a fingerprint is being written
 * @keys: exact mode: the key of slot i at keys[i * key_len]; else NULL
 * @bucket_mask: buckets - 1
 * @stripe_mask: entries in @versions - 1
 * @count: keys stored
 * @moves: entries moved from one bucket to the other in this table
 * @memory_bytes: this structure and its arrays
 *
 * Readers use the first five fields, which the writer sets before it
 * publishes the table; the slots, versions and keys then change only under
 * the protocol of docs/design.md ("Moves and readers"). The writer's
 * counts, written on every insert, sit on a cache line of their own:
 * sharing the readers' line, each insert would take it from every reader's
 * cache.
 */
struct cuckoo_table {
	union {
		void *words;
		u32 *t32;
		u64 *t64;
	};
	u32 *versions;
	u8 *keys;
	u64 bucket_mask;
	u32 stripe_mask;
	____cacheline_aligned u64 count;
	u64 moves;
	u64 memory_bytes;
};

/**
 * struct cuckoo - the filter: a stable handle on the current table
 * @table: the current table; readers rcu_dereference() it
 * @seed: hash key
 * @fp_mask: (1 << fp_bits) - 1
 * @fp_bits: fingerprint width
 * @key_len: bytes per key
 * @stride: bytes per slot of the key array: the key, then its value if any
 * @val_off: where in a slot the value starts
 * @exact: keys are stored beside the fingerprints
 * @values: exact mode: each key has a u32 value, after it in its slot
 * @hash: enum cuckoo_hash_kind, the hash that places the keys
 * @reader: enum cuckoo_reader, the readers of this shape
 *	(cuckoo_reader_for()), so that a lookup picks them with one load,
 *	not five
 * @queue: the writer's BFS queue, allocated by the first insert that must
 *	move entries (most of a prefix set's small tables never do)
 * @initial_buckets: table size at creation and after a clear
 * @max_buckets: growth stops at this size
 * @max_capacity: keys the largest table holds at 95% load, as created
 * @insert_failures: inserts refused with -ENOSPC since the last clear
 * @grows: table doublings since creation
 * @layout_base: cuckoo_list_gen() of the tables before the current one
 * @mirror: where the writer stores the current table's buckets and
 *	versions too (cuckoo_mirror_start()); @mirror.bucket NULL: nowhere
 *
 * Readers use the first cache line only, which never changes after creation
 * but for @table. Everything else belongs to the writer, which the caller
 * serialises.
 */
struct cuckoo {
	struct cuckoo_table __rcu *table;
	u64 seed;
	u64 hash_a;
	u64 hash_b;
	u32 fp_mask;
	u32 fp_bits;
	u32 key_len;
	u32 stride;
	u32 val_off;
	bool exact;
	bool values;
	u8 hash;
	u8 reader;

	____cacheline_aligned struct cuckoo_node *queue;
	u64 initial_buckets;
	u64 max_buckets;
	u64 max_capacity;
	u64 insert_failures;
	u64 grows;
	u64 layout_base;
	struct cuckoo_mirror mirror;
};

/*
 * The shapes with readers of their own, as cuckoo_read.c's
 * CUCKOO_READERS() names them.
 */
enum cuckoo_reader {
	CUCKOO_ANY,
	CUCKOO_4C,
	CUCKOO_4X,
	CUCKOO_4XV,
	CUCKOO_8C,
	CUCKOO_8XV,
	CUCKOO_16C,
	CUCKOO_16XV,
};

/*
 * @c's readers, for @c->reader whenever its shape is set. 12-bit
 * fingerprints sit in 16-bit lanes, as 16-bit ones do, and every reader
 * masks with the filter's own fp_mask: they share the readers.
 */
static inline u8 cuckoo_reader_for(const struct cuckoo *c)
{
	if (c->fp_bits != 16 && c->fp_bits != 12)
		return CUCKOO_ANY;
	switch (c->key_len) {
	case 4:
		if (c->hash != CUCKOO_HASH_MIX32)
			return CUCKOO_ANY;
		if (!c->exact)
			return CUCKOO_4C;
		return c->values ? CUCKOO_4XV : CUCKOO_4X;
	case 8:
		if (!c->exact)
			return CUCKOO_8C;
		return c->values ? CUCKOO_8XV : CUCKOO_ANY;
	case 16:
		if (!c->exact)
			return CUCKOO_16C;
		return c->values ? CUCKOO_16XV : CUCKOO_ANY;
	}
	return CUCKOO_ANY;
}

/* log2 of the bytes in a bucket, or -EINVAL for an unsupported width. */
static inline int cuckoo_bucket_shift(unsigned int fp_bits)
{
	switch (fp_bits) {
	case 8:
		return 2;
	case 12:
	case 16:
		return 3;
	case 32:
		return 4;
	default:
		return -EINVAL;
	}
}

/*
 * What a reader is built for. Readers of the module's common shapes get
 * these as constants (cuckoo_find()): the hash, the bucket match and the
 * key compare then have no loop or switch left on them.
 */
struct cuckoo_shape {
	u32 key_len;
	u32 fp_bits;
	bool exact;
	u8 hash;
	bool values;
};

/* A filter's shape, for the readers of any shape and for the writer. */
static __always_inline struct cuckoo_shape
cuckoo_shape_of(const struct cuckoo *c)
{
	return (struct cuckoo_shape){ c->key_len, c->fp_bits, c->exact,
				      c->hash, c->values };
}

/*
 * A slot's record read or written in one access: a 4-byte key alone, or,
 * on 64-bit machines, with its value (union cuckoo_record) or an 8-byte
 * key alone. What that spares: docs/design.md, "Moves and readers".
 */
static __always_inline bool cuckoo_record_whole(struct cuckoo_shape sh)
{
	if (!sh.exact)
		return false;
	if (sh.key_len == sizeof(u32))
		return !sh.values || sizeof(long) == sizeof(u64);
	return sh.key_len == sizeof(u64) && !sh.values &&
	       sizeof(long) == sizeof(u64);
}

/* A whole record of a 4-byte key and its value, as the slot holds it. */
union cuckoo_record {
	u64 word;
	struct {
		u32 key;
		u32 val;
	};
};

/*
 * A hit needs no version check in compact mode, or if the reader read the
 * key in one load and, if it wants one (@val), the value with it (see
 * docs/design.md, "Moves and readers"). Known when the reader is compiled,
 * for the common shapes.
 */
static __always_inline bool cuckoo_hit_final(struct cuckoo_shape sh,
					     bool val)
{
	if (!sh.exact)
		return true;
	if (val && sh.values)
		return cuckoo_record_whole(sh);
	return sh.key_len == sizeof(u32) || sh.key_len == sizeof(long);
}

/*
 * The hash the core gives a table of @len-byte keys; a constant
 * expression, for the readers' shapes. The benchmark's copy of the core
 * with the older hash (bench/cuckoo_short.c) defines its own.
 */
#ifndef CUCKOO_HASH_FOR
#define CUCKOO_HASH_FOR(len)						\
	((len) == sizeof(u32) ? CUCKOO_HASH_MIX32 : CUCKOO_HASH_LANES)
#endif

/*
 * The hash that places a key: buckets from its low bits, the fingerprint
 * from its high 32. Tables of 4-byte keys take the mixed one, but for
 * compact tables restored from raw slots that an older hash placed
 * (c->hash says which).
 */
static __always_inline u64 cuckoo_hash_as(struct cuckoo_shape sh, u64 a,
					  u64 b, const void *key)
{
	switch (sh.hash) {
	case CUCKOO_HASH_MIX32:
		return cuckoo_hash_mix32(key, a, b);
	case CUCKOO_HASH_SHORT32:
		return cuckoo_hash32(key, a, b);
	default:
		return cuckoo_hash_lanes(key, sh.key_len, a, b);
	}
}

/* The writer's cuckoo_hash_as(). */
static inline u64 cuckoo_key_hash(const struct cuckoo *c, const void *key)
{
	return cuckoo_hash_as(cuckoo_shape_of(c), c->hash_a, c->hash_b, key);
}

/*
 * The other bucket of fingerprint @fp stored in bucket @b. Bits 32 and up of
 * the product depend on every bit of @fp; a table has at most 2^28 buckets,
 * so the mask keeps only such bits.
 */
static __always_inline u64 cuckoo_alt(const struct cuckoo_table *t, u64 b,
				      u32 fp)
{
	return (b ^ (((u64)fp * CUCKOO_K0) >> 32)) & t->bucket_mask;
}

/*
 * Bucket index from the low bits of the hash, fingerprint from the high 32:
 * independent, as the index never uses more than 28 bits. The fingerprint
 * does not depend on the table size, so growth keeps it.
 */
static __always_inline u32 cuckoo_fp(const struct cuckoo *c, u64 h)
{
	u32 fp = (h >> 32) & c->fp_mask;

	return fp + !fp;
}

static __always_inline u8 *cuckoo_key_at(const struct cuckoo *c,
					 const struct cuckoo_table *t, u64 slot)
{
	return t->keys + slot * c->stride;
}

/* The writers' view of the table: the caller serialises writers. */
static inline struct cuckoo_table *cuckoo_wtable(const struct cuckoo *c)
{
	return rcu_dereference_protected(c->table, true);
}

/* Writer side: the writer is the only one storing, so plain loads suffice. */
static inline u32 cuckoo_slot(const struct cuckoo *c,
			      const struct cuckoo_table *t, u64 b,
			      unsigned int s)
{
	switch (c->fp_bits) {
	case 8:
		return (t->t32[b] >> (8 * s)) & 0xff;
	case 32:
		return t->t64[2 * b + s / 2] >> (32 * (s % 2));
	default:
		return (t->t64[b] >> (16 * s)) & 0xffff;
	}
}

/* cuckoo.c: the table's geometry and life, for writers and snapshots. */
int cuckoo_geometry(const struct cuckoo_params *p, u64 *buckets,
		    u64 *max_buckets);
struct cuckoo_table *cuckoo_table_alloc(const struct cuckoo *c, u64 buckets);
void cuckoo_table_free(struct cuckoo_table *t);

#endif /* CFILTER_CUCKOO_INT_H */
