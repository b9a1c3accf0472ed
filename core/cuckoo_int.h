/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cuckoo filter core: partial-key cuckoo hashing (Fan et al., CoNEXT 2014)
 * with MemC3's breadth-first insert and version-checked lock-free lookups,
 * and an optional full-key array that makes answers exact.
 *
 * Table: a power-of-two number of buckets of CUCKOO_SLOTS fingerprints each.
 * A bucket is one naturally aligned word (four u8 slots in a u32, four u16
 * slots in a u64) or, for 32-bit fingerprints, two u64 words. Buckets never
 * straddle a cache line, so a lookup reads two lines of table plus two
 * version counters, and it tests all four slots of a bucket at once (SWAR).
 * The writer changes a slot by rewriting its whole word with WRITE_ONCE(),
 * so readers see each word old or new, never torn. Fingerprint 0 marks an
 * empty slot; a hash that yields 0 uses 1 instead.
 *
 * Fingerprint f of a key lives in bucket i1 (from the hash) or in
 * i2 = i1 ^ (H(f) & mask). The map is an involution, so a stored fingerprint
 * can be moved to its other bucket without knowing its key.
 *
 * Exact mode keeps slot i's key at keys[i * stride], touched only by the
 * writer and by readers whose fingerprint matched slot i: a lookup of an
 * absent key almost always reads fingerprints and versions only. A filter
 * made with values keeps a u32 after each key, in the same slot (at the
 * key's length rounded up to 4 bytes), so that a hit reads it from the line
 * it read the key from: a 4-byte key and its value in one 8-byte word. A
 * reader takes a hit with its value from one load of that word, or else
 * only from a read the version check passed (below).
 *
 * Moves and readers: a reader of a key with fingerprint f checks both
 * buckets (and, in exact mode, the records of slots holding f) between two
 * reads of f's version counter, and retries if it was odd or changed. Only
 * writes of slots holding f can change that answer, so one counter, chosen
 * by f, covers them all:
 * - a move of f from one bucket to the other makes f's version odd, copies
 *   the record and the fingerprint, clears the source and makes it even
 *   again, so a reader never sees f in neither bucket;
 * - in exact mode a slot's record is its key, and with values the value
 *   after it. A reader may read the record of a slot whose f it read just
 *   before the slot was cleared (by a delete or a move), while a later
 *   insert or move rewrites it. Where a record takes several loads, every
 *   such clear happens inside an odd window of f's version, and every
 *   record write starts after a barrier, so a reader that read rewritten
 *   bytes sees f's version changed; and inserts (the record, then the
 *   fingerprint) and new values are written inside an odd window of the
 *   fingerprint's version, so a reader never trusts half-written bytes.
 * Records are written before the fingerprint that makes their slot live
 * (smp_wmb(), paired with the reader's smp_rmb() between a slot's
 * fingerprint and its record), and a key's bytes only by an insert, a move
 * or a new value of that very key. A reader that reads a live fingerprint
 * and then, in one load, bytes equal to its key, read bytes no older than
 * those the fingerprint was stored after, so written for its key: the key
 * was there, or being added, during the lookup. A hit is therefore final,
 * with no second read of the version, in compact mode (a fingerprint seen
 * in either bucket was there), for keys compared in one load (4 bytes, and
 * 8 on 64-bit machines), and for a value read in the same load as its key:
 * a whole record (cuckoo_record_whole()), which is also written in one
 * store. Nothing of a whole record can be torn, so only moves, which can
 * make a miss wrong, open windows in a table of them: its inserts, deletes
 * and new values cost readers no version line.
 * Longer records take several loads, which a rewrite of the slot can tear
 * into parts of two others; the version check rules that out. Misses
 * always check it: they are what a move can make wrong.
 * Compact mode stores a new fingerprint into a free slot, and deletes,
 * with a single store and no version (a table of whole records the same,
 * its record stored first): a reader sees the slot before or after, and
 * either answer is right for a key being added or removed. That holds even
 * for the store into the slot the last move emptied: the move's second
 * barrier orders the store after it, so a reader of the moved fingerprint
 * that sees the new one in its place also sees that move's version changed.
 *
 * Tables and RCU: readers reach the table through c->table. Growth and clear
 * build a whole new table to the side (growth re-inserts every stored key;
 * the old table is not written meanwhile), publish it, wait for a grace
 * period and free the old one: a reader sees one complete table or the
 * other, and every key present throughout is in both.
 *
 * The core's files: cuckoo.c (parameters, tables, create and destroy,
 * stats), cuckoo_read.c (the lock-free readers, single and batched),
 * cuckoo_write.c (insert, delete, moves, growth, clear), cuckoo_list.c
 * (exact mode's listing) and cuckoo_raw.c (compact tables copied out and
 * back in, for snapshots). This header holds what they share and is
 * theirs alone; cuckoo.h is the interface.
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
 * the protocol described at the top of this file. The writer's counts,
 * written on every insert, sit on a cache line of their own: sharing the
 * readers' line, each insert would take it from every reader's cache.
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
 * @queue: the writer's BFS queue
 * @initial_buckets: table size at creation and after a clear
 * @max_buckets: growth stops at this size
 * @max_capacity: keys the largest table holds at 95% load, as created
 * @insert_failures: inserts refused with -ENOSPC since the last clear
 * @grows: table doublings since creation
 * @layout_base: cuckoo_list_gen() of the tables before the current one
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
	bool hash32;

	____cacheline_aligned struct cuckoo_node *queue;
	u64 initial_buckets;
	u64 max_buckets;
	u64 max_capacity;
	u64 insert_failures;
	u64 grows;
	u64 layout_base;
};

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
	bool hash32;
	bool values;
};

/* A filter's shape, for the readers of any shape and for the writer. */
static __always_inline struct cuckoo_shape
cuckoo_shape_of(const struct cuckoo *c)
{
	return (struct cuckoo_shape){ c->key_len, c->fp_bits, c->exact,
				      c->hash32, c->values };
}

/*
 * A slot's record read or written in one access: a 4-byte key alone, or,
 * on 64-bit machines, with its value (union cuckoo_record) or an 8-byte
 * key alone. See the top of this file for what that spares.
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
 * key in one load and, if it wants one (@val), the value with it (see the
 * top of this file). Known when the reader is compiled, for the common
 * shapes.
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
 * The hash that places a key: buckets from its low bits, the fingerprint
 * from its high 32. Tables of 4-byte keys take the short one (c->hash32),
 * but for compact tables restored from raw slots that the general one
 * placed, before there was a choice.
 */
static __always_inline u64 cuckoo_hash_as(struct cuckoo_shape sh, u64 a,
					  u64 b, const void *key)
{
	if (sh.hash32)
		return cuckoo_hash32(key, a, b);
	return cuckoo_hash_lanes(key, sh.key_len, a, b);
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
