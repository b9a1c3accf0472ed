// SPDX-License-Identifier: GPL-2.0
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
 * it read the key from;
 * the writer changes it inside a window of the key's version, and a reader
 * takes a hit with its value only from a read the version check passed.
 *
 * Moves and readers: a reader of a key with fingerprint f checks both
 * buckets (and, in exact mode, the keys of slots holding f) between two
 * reads of f's version counter, and retries if it was odd or changed. Only
 * writes of slots holding f can change that answer, so one counter, chosen
 * by f, covers them all:
 * - a move of f from one bucket to the other makes f's version odd, copies
 *   the key and the fingerprint, clears the source and makes it even again,
 *   so a reader never sees f in neither bucket;
 * - in exact mode, a reader may compare the key bytes of a slot whose f it
 *   read just before the slot was cleared (by a delete or a move), while a
 *   later insert or move rewrites them. Every such clear happens inside an
 *   odd window of f's version, and every key write starts after a barrier,
 *   so a reader that read rewritten bytes sees f's version changed. Inserts
 *   write the key, then the fingerprint, inside an odd window of the new
 *   fingerprint's version, so a reader never trusts half-written bytes.
 * A hit is final, with no second read of the version, in compact mode (a
 * fingerprint seen in either bucket was there) and for keys compared in
 * one load (4 bytes, and 8 on 64-bit machines). Key bytes are written only
 * by an insert or a move of that very key, each before the fingerprint
 * that makes the slot live (smp_wmb(), paired with the reader's smp_rmb()
 * between a slot's fingerprint and its key). A reader that reads a live
 * fingerprint and then, in one load, bytes equal to its key, read bytes
 * no older than those the fingerprint was stored after, so written by an
 * insert or a move of its key: the key was there, or being added, during
 * the lookup.
 * Longer keys take several loads, which a rewrite of the slot can tear
 * into parts of two other keys; the version check rules that out. Misses
 * always check it: they are what a move can make wrong.
 * Compact mode stores a new fingerprint into a free slot, and deletes, with
 * a single store and no version: a reader sees the slot before or after,
 * and either answer is right for a key being added or removed. That holds
 * even for the store into the slot the last move emptied: the move's second
 * barrier orders the store after it, so a reader of the moved fingerprint
 * that sees the new one in its place also sees that move's version changed.
 *
 * Tables and RCU: readers reach the table through c->table. Growth and clear
 * build a whole new table to the side (growth re-inserts every stored key;
 * the old table is not written meanwhile), publish it, wait for a grace
 * period and free the old one: a reader sees one complete table or the
 * other, and every key present throughout is in both.
 */
#include "cuckoo.h"

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

/* BFS: two roots plus at most one node per slot examined. */
#define CUCKOO_QUEUE_LEN	(CUCKOO_MAX_KICKS + 2)
#define CUCKOO_ROOT		0xffff

/* Odd multipliers: 2^64 / golden ratio and two large primes. */
#define CUCKOO_K0		0x9e3779b97f4a7c15ULL
#define CUCKOO_K1		0xc2b2ae3d27d4eb4fULL
#define CUCKOO_K2		0x165667b19e3779f9ULL

/* Lane masks for the "some lane is zero" test. */
#define CUCKOO_L8_LO		0x01010101U
#define CUCKOO_L8_HI		0x80808080U
#define CUCKOO_L16_LO		0x0001000100010001ULL
#define CUCKOO_L16_HI		0x8000800080008000ULL
#define CUCKOO_L32_LO		0x0000000100000001ULL
#define CUCKOO_L32_HI		0x8000000080000000ULL

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
 * @hit_final: a hit that reads no value needs no version check: compact
 *	mode, or a key that cuckoo_key_equal() reads in one load (see the top
 *	of this file)
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
	bool hit_final;

	____cacheline_aligned struct cuckoo_node *queue;
	u64 initial_buckets;
	u64 max_buckets;
	u64 max_capacity;
	u64 insert_failures;
	u64 grows;
	u64 layout_base;
};

/* log2 of the bytes in a bucket, or -EINVAL for an unsupported width. */
static int cuckoo_bucket_shift(unsigned int fp_bits)
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
static int cuckoo_geometry(const struct cuckoo_params *p, u64 *buckets,
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

/*
 * Keyed 64-bit hash. Two lanes take alternate 8-byte words so that their
 * multiplies overlap (a 40-byte key is two rounds and one tail word); a
 * round is a bijection of its lane for a given word, so no lane loses what
 * it has absorbed. The murmur3 finaliser then makes every output bit depend
 * on every input bit. The seed makes bucket choice unpredictable offline;
 * this is not a PRF, which a filter filled by its administrator does not
 * need.
 */
static __always_inline u64 cuckoo_round(u64 lane, u64 word, u64 k)
{
	return rol64((lane ^ word) * k, 31);
}

/* The lanes' first values, from the seed: each table keeps its own. */
static u64 cuckoo_hash_a(u64 seed)
{
	return seed ^ CUCKOO_K0;
}

static u64 cuckoo_hash_b(u64 seed)
{
	return rol64(seed, 32) ^ CUCKOO_K1;
}

static __always_inline u64 cuckoo_hash_lanes(const void *key, size_t len,
					     u64 a, u64 b)
{
	const u8 *p = key;
	u64 tail = 0;
	size_t n = len;

	for (; n >= 16; n -= 16, p += 16) {
		a = cuckoo_round(a, get_unaligned_le64(p), CUCKOO_K1);
		b = cuckoo_round(b, get_unaligned_le64(p + 8), CUCKOO_K2);
	}
	if (n >= 8) {
		a = cuckoo_round(a, get_unaligned_le64(p), CUCKOO_K1);
		n -= 8;
		p += 8;
	}
	/*
	 * The last n < 8 bytes as a little-endian number, in two loads that
	 * may overlap, not a byte at a time: the same value, so stored
	 * fingerprints and snapshots keep their meaning.
	 */
	if (n >= 4)
		tail = get_unaligned_le32(p) |
		       (u64)get_unaligned_le32(p + n - 4) >> (8 * (8 - n)) << 32;
	else if (n)
		tail = p[0] | (u64)p[n / 2] << (8 * (n / 2)) |
		       (u64)p[n - 1] << (8 * (n - 1));
	b = cuckoo_round(b, tail, CUCKOO_K2);

	a ^= rol64(b, 23) ^ (u64)len * CUCKOO_K0;
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdULL;
	a ^= a >> 33;
	a *= 0xc4ceb9fe1a85ec53ULL;
	a ^= a >> 33;
	return a;
}

static __always_inline u64 cuckoo_hash(const void *key, size_t len, u64 seed)
{
	return cuckoo_hash_lanes(key, len, cuckoo_hash_a(seed),
				 cuckoo_hash_b(seed));
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
};

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

/*
 * Nonzero iff some lane of @x is zero: subtracting 1 from each lane sets a
 * lane's top bit through a borrow only if the lane, or one below it, is zero.
 * Lanes above a zero lane may be flagged too, so only "nonzero" is exact.
 */
static __always_inline u64 cuckoo_zero_lane32(u32 x, u32 lo, u32 hi)
{
	return (x - lo) & ~x & hi;
}

static __always_inline u64 cuckoo_zero_lane64(u64 x, u64 lo, u64 hi)
{
	return (x - lo) & ~x & hi;
}

/*
 * Reader side: loads bucket @b into @w (one or two untorn word loads) and
 * returns nonzero iff it holds @fp, with no branch but the (perfectly
 * predicted) one on the layout.
 */
static __always_inline u64 cuckoo_bucket_read(u32 fp_bits,
					      const struct cuckoo_table *t,
					      u64 b, u32 fp, u64 *w)
{
	u64 pat;

	switch (fp_bits) {
	case 8:
		w[0] = READ_ONCE(t->t32[b]);
		return cuckoo_zero_lane32(w[0] ^ fp * CUCKOO_L8_LO,
					  CUCKOO_L8_LO, CUCKOO_L8_HI);
	case 32:
		pat = fp * CUCKOO_L32_LO;
		w[0] = READ_ONCE(t->t64[2 * b]);
		w[1] = READ_ONCE(t->t64[2 * b + 1]);
		return cuckoo_zero_lane64(w[0] ^ pat, CUCKOO_L32_LO,
					  CUCKOO_L32_HI) |
		       cuckoo_zero_lane64(w[1] ^ pat, CUCKOO_L32_LO,
					  CUCKOO_L32_HI);
	default:
		w[0] = READ_ONCE(t->t64[b]);
		return cuckoo_zero_lane64(w[0] ^ fp * CUCKOO_L16_LO,
					  CUCKOO_L16_LO, CUCKOO_L16_HI);
	}
}

/* Slot @s of a bucket loaded by cuckoo_bucket_read(). */
static __always_inline u32 cuckoo_lane(u32 fp_bits, const u64 *w,
				       unsigned int s)
{
	switch (fp_bits) {
	case 8:
		return (w[0] >> (8 * s)) & 0xff;
	case 32:
		return w[s / 2] >> (32 * (s % 2));
	default:
		return (w[0] >> (16 * s)) & 0xffff;
	}
}

static __always_inline u8 *cuckoo_key_at(const struct cuckoo *c,
					 const struct cuckoo_table *t, u64 slot)
{
	return t->keys + slot * c->stride;
}

/* Reader side: the value of the key stored at @stored (values only). */
static __always_inline u32 cuckoo_val_read(const struct cuckoo *c,
					   const u8 *stored)
{
	return READ_ONCE(*(const u32 *)(stored + c->val_off));
}

/*
 * Reader side: compares a stored key, which the writer may be rewriting,
 * with marked loads, so that the version check (not the compiler) decides
 * what a torn read means. Keys of 4-byte multiples (all the module's) are
 * naturally aligned in the array and compared a word at a time.
 */
static __always_inline bool cuckoo_key_equal(u32 n, const u8 *stored,
					     const u8 *key)
{
	u32 i;

	if (!(n % sizeof(u64))) {
		for (i = 0; i < n; i += sizeof(u64))
			if (READ_ONCE(*(const u64 *)(stored + i)) !=
			    get_unaligned((const u64 *)(key + i)))
				return false;
	} else if (!(n % sizeof(u32))) {
		for (i = 0; i < n; i += sizeof(u32))
			if (READ_ONCE(*(const u32 *)(stored + i)) !=
			    get_unaligned((const u32 *)(key + i)))
				return false;
	} else {
		for (i = 0; i < n; i++)
			if (READ_ONCE(stored[i]) != key[i])
				return false;
	}
	return true;
}

/* Writer side: the counterpart of cuckoo_key_equal(). */
static void cuckoo_key_store(const struct cuckoo *c, u8 *stored,
			     const u8 *key)
{
	u32 i, n = c->key_len;

	if (!(n % sizeof(u64))) {
		for (i = 0; i < n; i += sizeof(u64))
			WRITE_ONCE(*(u64 *)(stored + i),
				   get_unaligned((const u64 *)(key + i)));
	} else if (!(n % sizeof(u32))) {
		for (i = 0; i < n; i += sizeof(u32))
			WRITE_ONCE(*(u32 *)(stored + i),
				   get_unaligned((const u32 *)(key + i)));
	} else {
		for (i = 0; i < n; i++)
			WRITE_ONCE(stored[i], key[i]);
	}
}

/* Writer side: the value of the key stored at @stored (0 without values). */
static u32 cuckoo_val_of(const struct cuckoo *c, const u8 *stored)
{
	return c->values ? *(const u32 *)(stored + c->val_off) : 0;
}

/* Writer side: @key and, with values, @val into the slot at @stored. */
static void cuckoo_record_store(const struct cuckoo *c, u8 *stored,
				const u8 *key, u32 val)
{
	cuckoo_key_store(c, stored, key);
	if (c->values)
		WRITE_ONCE(*(u32 *)(stored + c->val_off), val);
}

/*
 * The lowest slot that cuckoo_bucket_read()'s nonzero @m flags: always one
 * holding the fingerprint (only lanes above a match can be flagged
 * wrongly). With 32-bit fingerprints @m merges the bucket's two words:
 * slots 2 and 3 read as 0 and 1, whose keys sit near theirs.
 */
static __always_inline unsigned int cuckoo_first_lane(u32 fp_bits, u64 m)
{
	switch (fp_bits) {
	case 8:
		return __ffs64(m) / 8;
	case 32:
		return __ffs64(m) / 32;
	default:
		return __ffs64(m) / 16;
	}
}

/*
 * Exact mode: the key in the first slot of either loaded bucket that
 * cuckoo_bucket_read() flagged in @m1 or @m2 (one is nonzero). Chosen
 * without a branch: which bucket and slot hold a key is random, so a
 * branch on it would be mispredicted about half the time.
 */
static __always_inline const u8 *cuckoo_first_key(const struct cuckoo *c,
						  struct cuckoo_shape sh,
						  const struct cuckoo_table *t,
						  u64 b1, u64 b2, u64 m1,
						  u64 m2)
{
	u64 b = m1 ? b1 : b2;
	u64 m = m1 ? m1 : m2;

	return cuckoo_key_at(c, t, b * CUCKOO_SLOTS +
			     cuckoo_first_lane(sh.fp_bits, m));
}

/*
 * Exact mode: the stored key of loaded bucket @b that has @fp and equals
 * @key, or NULL.
 */
static __always_inline const u8 *cuckoo_confirm(const struct cuckoo *c,
						struct cuckoo_shape sh,
						const struct cuckoo_table *t,
						u64 b, const u64 *w, u32 fp,
						const void *key)
{
	unsigned int s;

	for (s = 0; s < CUCKOO_SLOTS; s++) {
		const u8 *stored;

		if (cuckoo_lane(sh.fp_bits, w, s) != fp)
			continue;
		stored = cuckoo_key_at(c, t, b * CUCKOO_SLOTS + s);
		if (cuckoo_key_equal(sh.key_len, stored, key))
			return stored;
	}
	return NULL;
}

/*
 * One unsynchronised look at both buckets. In exact mode a hit sets
 * *@stored, unless @stored is NULL (a constant: contains() inlines the
 * reader of old), to the key found, whose value may follow it.
 */
static __always_inline bool cuckoo_probe(const struct cuckoo *c,
					 struct cuckoo_shape sh,
					 const struct cuckoo_table *t,
					 u64 b1, u64 b2, u32 fp,
					 const void *key, const u8 **stored)
{
	u64 w1[2], w2[2], m1, m2;
	const u8 *first;

	m1 = cuckoo_bucket_read(sh.fp_bits, t, b1, fp, w1);
	m2 = cuckoo_bucket_read(sh.fp_bits, t, b2, fp, w2);
	if (likely(!(m1 | m2)))
		return false;
	if (!sh.exact)
		return true;
	smp_rmb();	/* a slot's fingerprint, then its key bytes */
	first = cuckoo_first_key(c, sh, t, b1, b2, m1, m2);
	if (likely(cuckoo_key_equal(sh.key_len, first, key))) {
		if (stored)
			*stored = first;
		return true;
	}
	/* Another key with @fp came first: look at every slot. */
	if (!stored)
		return (m1 && cuckoo_confirm(c, sh, t, b1, w1, fp, key)) ||
		       (m2 && cuckoo_confirm(c, sh, t, b2, w2, fp, key));
	*stored = m1 ? cuckoo_confirm(c, sh, t, b1, w1, fp, key) : NULL;
	if (!*stored && m2)
		*stored = cuckoo_confirm(c, sh, t, b2, w2, fp, key);
	return *stored;
}

#ifdef CUCKOO_NO_VERSIONS
/*
 * Host baseline and mutant only: a reader without the version protocol.
 * It can miss a key that a move takes from b2 to b1 between its reads of
 * b1 and b2 (tests/host/stress.c shows that it does).
 */
static __always_inline bool cuckoo_read(const struct cuckoo_table *t,
					const struct cuckoo *c,
					struct cuckoo_shape sh, u64 b1, u64 b2,
					u32 fp, const void *key, u32 *val)
{
	const u8 *stored = NULL;
	bool hit = cuckoo_probe(c, sh, t, b1, b2, fp, key,
				val ? &stored : NULL);

	if (hit && val && c->values)
		*val = cuckoo_val_read(c, stored);
	return hit;
}
#else
/*
 * One look at both buckets between two reads of @fp's version. Returns
 * true or false for the answer, or -EAGAIN if a write may have changed it.
 *
 * An odd version (a write under way) is checked by the one comparison with
 * the re-read: the counter only grows, so it never again equals an odd
 * value less one (short of 2^32 writes during one lookup). A miss read
 * during a write is thrown away either way (a final hit is right even
 * then), and the common path keeps one well-predicted branch (an early
 * test of its own was costly on lookups served from cache).
 */
static __always_inline int cuckoo_read_once(const struct cuckoo_table *t,
					    const struct cuckoo *c,
					    struct cuckoo_shape sh, u64 b1,
					    u64 b2, u32 fp, const void *key,
					    u32 *val)
{
	const u32 *v = &t->versions[fp & t->stripe_mask];
	u32 seq = READ_ONCE(*v);
	const u8 *stored = NULL;
	bool hit;

	smp_rmb();	/* the version, then slots and keys */
	hit = cuckoo_probe(c, sh, t, b1, b2, fp, key, val ? &stored : NULL);
	if (hit && c->hit_final && !(val && c->values))
		return true;
	/* Checked by the version like the key: a value is never final. */
	if (hit && val && c->values)
		*val = cuckoo_val_read(c, stored);
	smp_rmb();	/* slots and keys, then the version again */
	if (likely(READ_ONCE(*v) == (seq & ~1U)))
		return hit;
	return -EAGAIN;
}

/*
 * Rare, so out of line: inlined, this loop (and on the host its cpu_relax(),
 * a call) gave every lookup a stack frame and more registers to save.
 */
static noinline bool cuckoo_read_retry(const struct cuckoo_table *t,
				       const struct cuckoo *c, u64 b1, u64 b2,
				       u32 fp, const void *key, u32 *val)
{
	struct cuckoo_shape sh = { c->key_len, c->fp_bits, c->exact };
	int ret;

	for (;;) {
		cpu_relax();
		ret = cuckoo_read_once(t, c, sh, b1, b2, fp, key, val);
		if (ret >= 0)
			return ret;
	}
}

static __always_inline bool cuckoo_read(const struct cuckoo_table *t,
					const struct cuckoo *c,
					struct cuckoo_shape sh, u64 b1, u64 b2,
					u32 fp, const void *key, u32 *val)
{
	int ret = cuckoo_read_once(t, c, sh, b1, b2, fp, key, val);

	if (likely(ret >= 0))
		return ret;
	return cuckoo_read_retry(t, c, b1, b2, fp, key, val);
}
#endif

/*
 * Both readers, inlined into each so that contains() passes a constant
 * NULL and reads no value.
 */
static __always_inline bool cuckoo_find_as(const struct cuckoo *c,
					   struct cuckoo_shape sh,
					   const void *key, u32 *val)
{
	const struct cuckoo_table *t = rcu_dereference(c->table);
	u64 h = cuckoo_hash_lanes(key, sh.key_len, c->hash_a, c->hash_b);
	u32 fp = cuckoo_fp(c, h);
	u64 b1 = h & t->bucket_mask;

	return cuckoo_read(t, c, sh, b1, cuckoo_alt(t, b1, fp), fp, key, val);
}

/*
 * The module's key lengths (addresses 4 and 16, prefix tables 4 to 16)
 * with 16-bit fingerprints, its default, each get a reader of their own;
 * any other shape the general one. The branch is the same for every lookup
 * of a table, so it is predicted.
 */
#define CUCKOO_FIND_AS(len, x)						\
	cuckoo_find_as(c, (struct cuckoo_shape){ len, 16, x }, key, val)

/*
 * Out of line, so that its loops' registers are not saved on every lookup
 * of a common shape.
 */
static noinline bool cuckoo_contains_any(const struct cuckoo *c,
					 const void *key)
{
	struct cuckoo_shape sh = { c->key_len, c->fp_bits, c->exact };

	return cuckoo_find_as(c, sh, key, NULL);
}

static noinline bool cuckoo_lookup_any(const struct cuckoo *c,
				       const void *key, u32 *val)
{
	struct cuckoo_shape sh = { c->key_len, c->fp_bits, c->exact };
	u32 v = 0;

	if (!cuckoo_find_as(c, sh, key, &v))
		return false;
	*val = v;
	return true;
}

static __always_inline bool cuckoo_find(const struct cuckoo *c,
					const void *key, u32 *val)
{
	if (c->fp_bits == 16) {
		switch (c->key_len) {
		case 4:
			return c->exact ? CUCKOO_FIND_AS(4, true) :
					  CUCKOO_FIND_AS(4, false);
		case 8:
			return c->exact ? CUCKOO_FIND_AS(8, true) :
					  CUCKOO_FIND_AS(8, false);
		case 16:
			return c->exact ? CUCKOO_FIND_AS(16, true) :
					  CUCKOO_FIND_AS(16, false);
		}
	}
	return val ? cuckoo_lookup_any(c, key, val) :
		     cuckoo_contains_any(c, key);
}

/**
 * cuckoo_contains() - test a key, without locking
 * @c: the filter
 * @key: key_len bytes
 *
 * Call inside an RCU read-side critical section. Safe against one
 * concurrent writer and from any context that cannot interrupt the writer
 * inside a move (softirq, process; see cuckoo_env.h). A key present for the
 * whole call is always found, even across a table swap; a key added or
 * deleted during the call may or may not be.
 *
 * Return: true if the key is in the filter (compact mode: or a key sharing
 * its fingerprint and buckets is).
 */
bool cuckoo_contains(const struct cuckoo *c, const void *key)
{
	return cuckoo_find(c, key, NULL);
}

/**
 * cuckoo_lookup() - test a key and read its value, without locking
 * @c: the filter, made with values
 * @key: key_len bytes
 * @val: set to the key's value if it is found
 *
 * As cuckoo_contains(); the value read is one the key had during the call.
 *
 * Return: true if the key is in the filter.
 */
bool cuckoo_lookup(const struct cuckoo *c, const void *key, u32 *val)
{
	/* A local, never NULL: the inlined reader needs no test of it. */
	u32 v = *val;

	if (!cuckoo_find(c, key, &v))
		return false;
	*val = v;
	return true;
}

/*
 * Batches. A lookup is a chain of dependent loads (its two buckets, then
 * in exact mode a key), and the CPU overlaps the misses of only as many
 * lookups as its window holds the instructions of: one or two. A batch
 * hashes all its keys and prefetches every bucket first, so that their
 * misses are in flight together, and only then reads them (in exact mode
 * in two passes, the keys too: see cuckoo_batch_once()), each key under
 * the single lookup's version protocol. All of a batch reads the table it
 * started with:
 * the call is as one longer lookup, and a table swapped in meanwhile holds
 * every key that was present throughout (see the top of this file).
 */
#define CUCKOO_BATCH		16

static __always_inline const void *
cuckoo_bucket_addr(u32 fp_bits, const struct cuckoo_table *t, u64 b)
{
	switch (fp_bits) {
	case 8:
		return &t->t32[b];
	case 32:
		return &t->t64[2 * b];
	default:
		return &t->t64[b];
	}
}

/*
 * The batch's reads split cuckoo_read_once() in two: @fp's version, read
 * at the start of the second pass, and the check that it held, after the
 * key (and value) of the third. Built with CUCKOO_NO_VERSIONS, neither
 * reads a version.
 */
#ifdef CUCKOO_NO_VERSIONS
#define CUCKOO_VERSIONS		false
#else
#define CUCKOO_VERSIONS		true
#endif

static __always_inline u32 cuckoo_version_start(const struct cuckoo_table *t,
						u32 fp)
{
	u32 seq = CUCKOO_VERSIONS ?
		  READ_ONCE(t->versions[fp & t->stripe_mask]) : 0;

	smp_rmb();	/* the version, then the slots */
	return seq;
}

static __always_inline bool cuckoo_version_held(const struct cuckoo_table *t,
						u32 fp, u32 seq)
{
	smp_rmb();	/* slots, keys and values, then the version again */
	return !CUCKOO_VERSIONS ||
	       READ_ONCE(t->versions[fp & t->stripe_mask]) == (seq & ~1U);
}

/*
 * Exact mode, the batch's second pass: one versioned look at both buckets
 * that settles a miss as cuckoo_read_once() would (no slot holds @fp and
 * the version held), so an absent key costs no second look. Returns false
 * for such a miss. Otherwise sets *@first to the key in the first slot
 * holding @fp (a present key's, as a rule), prefetched, or to NULL if no
 * slot does (the version moved), and returns true.
 */
static __always_inline bool cuckoo_sift(const struct cuckoo *c,
					struct cuckoo_shape sh,
					const struct cuckoo_table *t,
					u64 b1, u64 b2, u32 fp, u32 seq,
					const u8 **first)
{
	u64 w1[2], w2[2], m1, m2;

	m1 = cuckoo_bucket_read(sh.fp_bits, t, b1, fp, w1);
	m2 = cuckoo_bucket_read(sh.fp_bits, t, b2, fp, w2);
	if (!(m1 | m2) && cuckoo_version_held(t, fp, seq))
		return false;
	*first = m1 | m2 ? cuckoo_first_key(c, sh, t, b1, b2, m1, m2) : NULL;
	prefetch(*first);
	return true;
}

/*
 * Key @i of a batch by the single lookup's versioned read: @hits[i] and,
 * with a value read, @vals[i]. Returns the answer.
 */
static __always_inline bool cuckoo_batch_read(const struct cuckoo *c,
					      struct cuckoo_shape sh,
					      const struct cuckoo_table *t,
					      u64 b1, u64 b2, u32 fp,
					      const u8 *key, u32 i, bool *hits,
					      u32 *vals)
{
	u32 v = vals ? vals[i] : 0;
	bool hit = cuckoo_read(t, c, sh, b1, b2, fp, key, vals ? &v : NULL);

	hits[i] = hit;
	if (vals)
		vals[i] = v;
	return hit;
}

/*
 * Up to CUCKOO_BATCH keys at @keys, key_len bytes apart: sets @hits[i]
 * and, with @vals and a hit on a filter with values, @vals[i]; returns the
 * hits.
 *
 * Passes, so that each one's cache misses are in flight together: hash
 * every key and prefetch its buckets; in compact mode, read each. In
 * exact mode, sift (which settles most misses and prefetches the keys of
 * the rest), then answer what is left: a key equal to the one sift found
 * finishes the read sift began (its value, then the version check, which
 * a final hit skips as in cuckoo_read_once()); anything else takes the
 * whole versioned read, which alone decides it.
 */
static __always_inline u32 cuckoo_batch_once(const struct cuckoo *c,
					     struct cuckoo_shape sh,
					     const u8 *keys, u32 n, bool *hits,
					     u32 *vals)
{
	const struct cuckoo_table *t = rcu_dereference(c->table);
	bool want_val = vals && c->values;
	bool final = c->hit_final && !want_val;
	u64 b1[CUCKOO_BATCH], b2[CUCKOO_BATCH];
	u32 fp[CUCKOO_BATCH], seq[CUCKOO_BATCH], i, j, left = 0, found = 0;
	const u8 *first[CUCKOO_BATCH];
	u8 todo[CUCKOO_BATCH];

	for (i = 0; i < n; i++) {
		u64 h = cuckoo_hash_lanes(keys + i * sh.key_len, sh.key_len,
					  c->hash_a, c->hash_b);

		fp[i] = cuckoo_fp(c, h);
		b1[i] = h & t->bucket_mask;
		b2[i] = cuckoo_alt(t, b1[i], fp[i]);
		prefetch(cuckoo_bucket_addr(sh.fp_bits, t, b1[i]));
		prefetch(cuckoo_bucket_addr(sh.fp_bits, t, b2[i]));
	}
	if (!sh.exact) {
		for (i = 0; i < n; i++)
			found += cuckoo_batch_read(c, sh, t, b1[i], b2[i], fp[i],
						   keys + i * sh.key_len, i,
						   hits, vals);
		return found;
	}
	for (i = 0; i < n; i++) {
		hits[i] = false;
		todo[left] = i;
		seq[left] = cuckoo_version_start(t, fp[i]);
		left += cuckoo_sift(c, sh, t, b1[i], b2[i], fp[i], seq[left],
				    &first[left]);
	}
	smp_rmb();	/* the slots sift read, then their keys */
	for (j = 0; j < left; j++) {
		const u8 *key;

		i = todo[j];
		key = keys + i * sh.key_len;
		if (first[j] && cuckoo_key_equal(sh.key_len, first[j], key)) {
			u32 v = want_val ? cuckoo_val_read(c, first[j]) : 0;

			if (final || cuckoo_version_held(t, fp[i], seq[j])) {
				hits[i] = true;
				if (want_val)
					vals[i] = v;
				found++;
				continue;
			}
		}
		found += cuckoo_batch_read(c, sh, t, b1[i], b2[i], fp[i], key,
					   i, hits, vals);
	}
	return found;
}

static __always_inline u32 cuckoo_batch_as(const struct cuckoo *c,
					   struct cuckoo_shape sh,
					   const void *keys, u32 n, bool *hits,
					   u32 *vals)
{
	u32 i, k, found = 0;

	for (i = 0; i < n; i += k) {
		k = n - i < CUCKOO_BATCH ? n - i : CUCKOO_BATCH;
		found += cuckoo_batch_once(c, sh, (const u8 *)keys +
					   i * sh.key_len, k, hits + i,
					   vals ? vals + i : NULL);
	}
	return found;
}

#define CUCKOO_BATCH_AS(len, x)						\
	cuckoo_batch_as(c, (struct cuckoo_shape){ len, 16, x }, keys, n,	\
			hits, vals)

static noinline u32 cuckoo_contains_batch_any(const struct cuckoo *c,
					      const void *keys, u32 n,
					      bool *hits)
{
	struct cuckoo_shape sh = { c->key_len, c->fp_bits, c->exact };

	return cuckoo_batch_as(c, sh, keys, n, hits, NULL);
}

static noinline u32 cuckoo_lookup_batch_any(const struct cuckoo *c,
					    const void *keys, u32 n,
					    bool *hits, u32 *vals)
{
	struct cuckoo_shape sh = { c->key_len, c->fp_bits, c->exact };

	return cuckoo_batch_as(c, sh, keys, n, hits, vals);
}

/* As cuckoo_find(): the module's shapes get readers of their own. */
static __always_inline u32 cuckoo_batch(const struct cuckoo *c,
					const void *keys, u32 n, bool *hits,
					u32 *vals)
{
	if (c->fp_bits == 16) {
		switch (c->key_len) {
		case 4:
			return c->exact ? CUCKOO_BATCH_AS(4, true) :
					  CUCKOO_BATCH_AS(4, false);
		case 8:
			return c->exact ? CUCKOO_BATCH_AS(8, true) :
					  CUCKOO_BATCH_AS(8, false);
		case 16:
			return c->exact ? CUCKOO_BATCH_AS(16, true) :
					  CUCKOO_BATCH_AS(16, false);
		}
	}
	return vals ? cuckoo_lookup_batch_any(c, keys, n, hits, vals) :
		      cuckoo_contains_batch_any(c, keys, n, hits);
}

/**
 * cuckoo_contains_batch() - test several keys, without locking
 * @c: the filter
 * @keys: @n keys, key_len bytes each, one after the other
 * @n: how many (any number; 0 reads nothing)
 * @hits: set to @n answers, @hits[i] that of @keys' key i
 *
 * The answers of cuckoo_contains(), faster for more than a few keys: their
 * cache misses overlap. Same context and rules: inside an RCU read-side
 * critical section; a key present for the whole call is always found; a
 * key added or deleted during the call may or may not be.
 *
 * Return: the number of keys found.
 */
u32 cuckoo_contains_batch(const struct cuckoo *c, const void *keys, u32 n,
			  bool *hits)
{
	return cuckoo_batch(c, keys, n, hits, NULL);
}

/**
 * cuckoo_lookup_batch() - test several keys and read their values
 * @c: the filter, made with values
 * @keys: @n keys, key_len bytes each, one after the other
 * @n: how many
 * @hits: set to @n answers
 * @vals: @vals[i] set to key i's value if it is found, else left alone
 *
 * As cuckoo_contains_batch(), with the values of cuckoo_lookup().
 *
 * Return: the number of keys found.
 */
u32 cuckoo_lookup_batch(const struct cuckoo *c, const void *keys, u32 n,
			bool *hits, u32 *vals)
{
	/* Values need exact mode: no compact reader of its own is worth it. */
	if (!c->exact)
		return cuckoo_lookup_batch_any(c, keys, n, hits, vals);
	return cuckoo_batch(c, keys, n, hits, vals);
}

/* The writers' view of the table: the caller serialises writers. */
static struct cuckoo_table *cuckoo_wtable(const struct cuckoo *c)
{
	return rcu_dereference_protected(c->table, true);
}

/* Writer side: the writer is the only one storing, so plain loads suffice. */
static u32 cuckoo_slot(const struct cuckoo *c, const struct cuckoo_table *t,
		       u64 b, unsigned int s)
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

static void cuckoo_word64_set(u64 *word, unsigned int shift, u64 mask, u32 fp)
{
	WRITE_ONCE(*word, (*word & ~(mask << shift)) | (u64)fp << shift);
}

static void cuckoo_set_slot(const struct cuckoo *c, struct cuckoo_table *t,
			    u64 b, unsigned int s, u32 fp)
{
	u32 *w;

	switch (c->fp_bits) {
	case 8:
		w = &t->t32[b];
		WRITE_ONCE(*w, (*w & ~(0xffU << (8 * s))) | fp << (8 * s));
		break;
	case 32:
		cuckoo_word64_set(&t->t64[2 * b + s / 2], 32 * (s % 2),
				  0xffffffffULL, fp);
		break;
	default:
		cuckoo_word64_set(&t->t64[b], 16 * s, 0xffff, fp);
		break;
	}
}

/* A free slot of bucket @b, or -1. */
static int cuckoo_find_free(const struct cuckoo *c,
			    const struct cuckoo_table *t, u64 b)
{
	unsigned int s;

	for (s = 0; s < CUCKOO_SLOTS; s++)
		if (!cuckoo_slot(c, t, b, s))
			return s;
	return -1;
}

/*
 * The slot of bucket @b holding @key (compact mode: holding @fp), or -1.
 * Several slots may hold @fp in exact mode; only one holds @key.
 */
static int cuckoo_find_key(const struct cuckoo *c,
			   const struct cuckoo_table *t, u64 b, u32 fp,
			   const void *key)
{
	unsigned int s;

	for (s = 0; s < CUCKOO_SLOTS; s++) {
		if (cuckoo_slot(c, t, b, s) != fp)
			continue;
		if (!c->exact ||
		    !memcmp(cuckoo_key_at(c, t, b * CUCKOO_SLOTS + s), key,
			    c->key_len))
			return s;
	}
	return -1;
}

/*
 * Filling the emptier of a key's buckets keeps bucket loads even, so fewer
 * inserts need moves: in tables of 2^21 buckets the first -ENOSPC came at
 * about 96% load instead of 95.5% when filling the first bucket first.
 */
static unsigned int cuckoo_free_slots(const struct cuckoo *c,
				      const struct cuckoo_table *t, u64 b)
{
	unsigned int s, n = 0;

	for (s = 0; s < CUCKOO_SLOTS; s++)
		n += !cuckoo_slot(c, t, b, s);
	return n;
}

static void cuckoo_version_bump(struct cuckoo_table *t, u32 fp)
{
	u32 *v = &t->versions[fp & t->stripe_mask];

	WRITE_ONCE(*v, *v + 1);
}

/*
 * Readers of fingerprint @fp retry from here to cuckoo_window_close(). The
 * barrier also orders every earlier write (a clear that closed a window)
 * before the key bytes this window may write.
 */
static void cuckoo_window_open(struct cuckoo_table *t, u32 fp)
{
	cuckoo_write_lock_local();
	cuckoo_version_bump(t, fp);
	smp_wmb();	/* odd version before the slots change */
}

static void cuckoo_window_close(struct cuckoo_table *t, u32 fp)
{
	smp_wmb();	/* the slots before the even version */
	cuckoo_version_bump(t, fp);
	cuckoo_write_unlock_local();
}

/* Moves the entry in slot @fs of bucket @from to free slot @ts of @to. */
static void cuckoo_move(const struct cuckoo *c, struct cuckoo_table *t,
			u64 from, unsigned int fs, u64 to, unsigned int ts)
{
	u32 fp = cuckoo_slot(c, t, from, fs);

	WARN_ON_ONCE(!fp || cuckoo_slot(c, t, to, ts) ||
		     cuckoo_alt(t, from, fp) != to);
	cuckoo_window_open(t, fp);
	if (c->exact) {
		const u8 *src = cuckoo_key_at(c, t, from * CUCKOO_SLOTS + fs);

		cuckoo_record_store(c, cuckoo_key_at(c, t, to * CUCKOO_SLOTS + ts),
				    src, cuckoo_val_of(c, src));
	}
	smp_wmb();	/* the key bytes before the fingerprint */
	cuckoo_set_slot(c, t, to, ts, fp);
	cuckoo_set_slot(c, t, from, fs, 0);
	cuckoo_window_close(t, fp);
	t->moves++;
}

/* Stores @fp (and @key, and @val) into free slot @s of bucket @b. */
static void cuckoo_fill(const struct cuckoo *c, struct cuckoo_table *t,
			u64 b, unsigned int s, u32 fp, const void *key, u32 val)
{
	if (!c->exact) {
		cuckoo_set_slot(c, t, b, s, fp);
		return;
	}
	cuckoo_window_open(t, fp);
	cuckoo_record_store(c, cuckoo_key_at(c, t, b * CUCKOO_SLOTS + s), key,
			    val);
	smp_wmb();	/* the key bytes before the fingerprint */
	cuckoo_set_slot(c, t, b, s, fp);
	cuckoo_window_close(t, fp);
}

/*
 * Empties slot @s of bucket @b. In exact mode inside a window of its
 * fingerprint's version: the slot's key bytes may be rewritten next.
 */
static void cuckoo_empty(const struct cuckoo *c, struct cuckoo_table *t,
			 u64 b, unsigned int s)
{
	u32 fp = cuckoo_slot(c, t, b, s);

	if (!c->exact) {
		cuckoo_set_slot(c, t, b, s, 0);
		return;
	}
	cuckoo_window_open(t, fp);
	cuckoo_set_slot(c, t, b, s, 0);
	cuckoo_window_close(t, fp);
}

/*
 * Breadth-first search from the key's full buckets @b1 and @b2 for a free
 * slot that a chain of moves can reach, examining at most CUCKOO_MAX_KICKS
 * slots. Returns the queue index of the last node, whose bucket has free
 * slot *@free, or -ENOSPC. BFS finds a shortest chain, so no bucket occurs
 * twice in it and each move empties the slot the next one fills.
 */
static int cuckoo_search(const struct cuckoo *c, const struct cuckoo_table *t,
			 u64 b1, u64 b2, unsigned int *free)
{
	struct cuckoo_node *q = c->queue;
	unsigned int head, tail = 0, examined = 0, s;

	q[tail++] = (struct cuckoo_node){ .bucket = b1, .parent = CUCKOO_ROOT };
	if (b2 != b1)
		q[tail++] = (struct cuckoo_node){ .bucket = b2,
						  .parent = CUCKOO_ROOT };
	for (head = 0; head < tail; head++) {
		u64 b = q[head].bucket;

		for (s = 0; s < CUCKOO_SLOTS; s++) {
			u64 alt = cuckoo_alt(t, b, cuckoo_slot(c, t, b, s));
			int f;

			if (++examined > CUCKOO_MAX_KICKS)
				return -ENOSPC;
			if (alt == b)
				continue;
			q[tail] = (struct cuckoo_node){ .bucket = alt,
							.parent = head,
							.slot = s };
			f = cuckoo_find_free(c, t, alt);
			if (f >= 0) {
				*free = f;
				return tail;
			}
			tail++;
		}
	}
	return -ENOSPC;
}

/*
 * Frees a slot in @b1 or @b2 by moving entries along a BFS chain, the last
 * one first, so that every fingerprint is always in one of its buckets.
 * Returns the slot and sets *@b to its bucket, or -ENOSPC with nothing
 * moved.
 */
static int cuckoo_make_room(const struct cuckoo *c, struct cuckoo_table *t,
			    u64 b1, u64 b2, u64 *b)
{
	unsigned int to_slot;
	int i = cuckoo_search(c, t, b1, b2, &to_slot);
	u64 to;

	if (i < 0)
		return i;
	to = c->queue[i].bucket;
	while (c->queue[i].parent != CUCKOO_ROOT) {
		const struct cuckoo_node *n = &c->queue[i];
		u64 from = c->queue[n->parent].bucket;

		cuckoo_move(c, t, from, n->slot, to, to_slot);
		to = from;
		to_slot = n->slot;
		i = n->parent;
	}
	*b = to;
	return to_slot;
}

/* Adds a key known to be absent from @t; -ENOSPC with nothing moved. */
static int cuckoo_table_add(const struct cuckoo *c, struct cuckoo_table *t,
			    const void *key, u32 val, u64 h)
{
	u32 fp = cuckoo_fp(c, h);
	u64 b1 = h & t->bucket_mask;
	u64 b2 = cuckoo_alt(t, b1, fp);
	u64 b;
	int s;

	b = cuckoo_free_slots(c, t, b2) > cuckoo_free_slots(c, t, b1) ? b2 : b1;
	s = cuckoo_find_free(c, t, b);
	if (s < 0) {
		s = cuckoo_make_room(c, t, b1, b2, &b);
		if (s < 0)
			return s;
	}
	cuckoo_fill(c, t, b, s, fp, key, val);
	t->count++;
	return 0;
}

/* Finds @key's slot in @t: returns it and sets *@b, or returns -1. */
static int cuckoo_locate(const struct cuckoo *c, const struct cuckoo_table *t,
			 const void *key, u64 h, u64 *b)
{
	u32 fp = cuckoo_fp(c, h);
	int s;

	*b = h & t->bucket_mask;
	s = cuckoo_find_key(c, t, *b, fp, key);
	if (s >= 0)
		return s;
	*b = cuckoo_alt(t, *b, fp);
	return cuckoo_find_key(c, t, *b, fp, key);
}

static void cuckoo_table_free(struct cuckoo_table *t)
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
static struct cuckoo_table *cuckoo_table_alloc(const struct cuckoo *c,
					       u64 buckets)
{
	u64 stripes = buckets < CUCKOO_STRIPES_MAX ? buckets : CUCKOO_STRIPES_MAX;
	u64 words = buckets << cuckoo_bucket_shift(c->fp_bits);
	u64 keys = c->exact ? buckets * CUCKOO_SLOTS * c->stride : 0;
	u64 bytes = sizeof(struct cuckoo_table) + words +
		    stripes * sizeof(u32) + keys;
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
	t->words = kvzalloc(words, GFP_KERNEL);
	t->versions = kvcalloc(stripes, sizeof(u32), GFP_KERNEL);
	if (keys)
		t->keys = kvzalloc(keys, GFP_KERNEL);
	if (!t->words || !t->versions || (keys && !t->keys)) {
		cuckoo_table_free(t);
		return ERR_PTR(-ENOMEM);
	}
	return t;
}

/* Publishes @t and frees the table it replaces once no reader can use it. */
static void cuckoo_swap(struct cuckoo *c, struct cuckoo_table *t)
{
	struct cuckoo_table *old = cuckoo_wtable(c);

	rcu_assign_pointer(c->table, t);
	/* Every position changes meaning: a generation no old one equals. */
	c->layout_base += old->moves + 1;
	synchronize_rcu();
	cuckoo_table_free(old);
}

/* Copies every key of @old into @t; -ENOSPC if one finds no room. */
static int cuckoo_rehash(const struct cuckoo *c,
			 const struct cuckoo_table *old,
			 struct cuckoo_table *t)
{
	u64 i, slots = (old->bucket_mask + 1) * CUCKOO_SLOTS;
	const u8 *key;

	for (i = 0; i < slots; i++) {
		if (!(i & CUCKOO_RESCHED_MASK))
			cond_resched();
		if (!cuckoo_slot(c, old, i / CUCKOO_SLOTS, i % CUCKOO_SLOTS))
			continue;
		key = cuckoo_key_at(c, old, i);
		if (cuckoo_table_add(c, t, key, cuckoo_val_of(c, key),
				     cuckoo_hash(key, c->key_len, c->seed)))
			return -ENOSPC;
	}
	return 0;
}

/*
 * Exact mode: replaces the table with one of twice the buckets holding the
 * same keys, or four times if some key finds no room in that, and so on up
 * to max_buckets. Returns 0, -ENOSPC (the largest table would not do),
 * -EDQUOT (the memory bound) or -ENOMEM; on error the table is unchanged.
 */
static int cuckoo_grow(struct cuckoo *c)
{
	const struct cuckoo_table *old = cuckoo_wtable(c);
	u64 buckets = old->bucket_mask + 1;
	struct cuckoo_table *t;
	unsigned int doublings = 0;
	int err;

	do {
		buckets *= 2;
		doublings++;
		if (buckets > c->max_buckets)
			return -ENOSPC;
		t = cuckoo_table_alloc(c, buckets);
		if (IS_ERR(t))
			return PTR_ERR(t);
		err = cuckoo_rehash(c, old, t);
		if (err)
			cuckoo_table_free(t);
	} while (err);
	cuckoo_swap(c, t);
	c->grows += doublings;
	return 0;
}

/* Exact mode grows before an insert would take the load past 95%. */
static bool cuckoo_can_grow(const struct cuckoo *c,
			    const struct cuckoo_table *t)
{
	return c->exact && t->bucket_mask + 1 < c->max_buckets;
}

static bool cuckoo_should_grow(const struct cuckoo *c,
			       const struct cuckoo_table *t)
{
	u64 slots = (t->bucket_mask + 1) * CUCKOO_SLOTS;

	return cuckoo_can_grow(c, t) &&
	       (t->count + 1) * 100 > slots * CUCKOO_MAX_LOAD_PCT;
}

/**
 * cuckoo_insert() - add a key
 * @c: the filter
 * @key: key_len bytes
 *
 * Exact mode grows the table when the insert would pass 95% load or finds
 * no free slot, until it reaches max_capacity; at that size it fills the
 * table as far as free slots can be reached. In compact mode a different
 * key with the same fingerprint and buckets is indistinguishable from a
 * stored one, so it gets -EEXIST (and deleting either removes the shared
 * entry). The caller serialises writers; may sleep.
 *
 * Return: 0; -EEXIST if the key (compact: its fingerprint) is present;
 * -ENOSPC if no free slot is reachable within CUCKOO_MAX_KICKS slots and the
 * table may not grow, -EDQUOT if growing it would pass the memory bound, or
 * -ENOMEM if growing it failed: in each case no key was lost or moved out
 * of its buckets.
 */
int cuckoo_insert(struct cuckoo *c, const void *key)
{
	return cuckoo_insert_val(c, key, 0);
}

/**
 * cuckoo_insert_val() - add a key with its value
 * @c: the filter
 * @key: key_len bytes
 * @val: its value (ignored by a filter without values)
 *
 * As cuckoo_insert(); a present key keeps its value.
 *
 * Return: as cuckoo_insert().
 */
int cuckoo_insert_val(struct cuckoo *c, const void *key, u32 val)
{
	u64 h = cuckoo_hash(key, c->key_len, c->seed);
	struct cuckoo_table *t = cuckoo_wtable(c);
	u64 b;
	int err;

	if (cuckoo_locate(c, t, key, h, &b) >= 0)
		return -EEXIST;
	for (;;) {
		if (!cuckoo_should_grow(c, t) &&
		    !cuckoo_table_add(c, t, key, val, h))
			return 0;
		err = cuckoo_can_grow(c, t) ? cuckoo_grow(c) : -ENOSPC;
		if (err == -ENOSPC)
			c->insert_failures++;
		if (err)
			return err;
		t = cuckoo_wtable(c);
	}
}

/**
 * cuckoo_set_val() - change a present key's value
 * @c: the filter, made with values
 * @key: key_len bytes
 * @val: the new value
 *
 * Inside a window of the key's version, so that a reader sees the old
 * value or the new one, never a mix. The caller serialises writers.
 *
 * Return: 0, or -ENOENT if the key is absent.
 */
int cuckoo_set_val(struct cuckoo *c, const void *key, u32 val)
{
	u64 h = cuckoo_hash(key, c->key_len, c->seed);
	struct cuckoo_table *t = cuckoo_wtable(c);
	u32 fp = cuckoo_fp(c, h);
	u8 *stored;
	u64 b;
	int s;

	if (WARN_ON_ONCE(!c->values))
		return -EINVAL;
	s = cuckoo_locate(c, t, key, h, &b);
	if (s < 0)
		return -ENOENT;
	stored = cuckoo_key_at(c, t, b * CUCKOO_SLOTS + s);
	cuckoo_window_open(t, fp);
	WRITE_ONCE(*(u32 *)(stored + c->val_off), val);
	cuckoo_window_close(t, fp);
	return 0;
}

/**
 * cuckoo_get_val() - a present key's value, for the writer
 * @c: the filter, made with values
 * @key: key_len bytes
 * @val: set to its value
 *
 * Writer side (no version check): the caller serialises writers.
 *
 * Return: 0, or -ENOENT if the key is absent.
 */
int cuckoo_get_val(const struct cuckoo *c, const void *key, u32 *val)
{
	const struct cuckoo_table *t = cuckoo_wtable(c);
	u64 b;
	int s;

	if (WARN_ON_ONCE(!c->values))
		return -EINVAL;
	s = cuckoo_locate(c, t, key, cuckoo_hash(key, c->key_len, c->seed), &b);
	if (s < 0)
		return -ENOENT;
	*val = cuckoo_val_of(c, cuckoo_key_at(c, t, b * CUCKOO_SLOTS + s));
	return 0;
}

/**
 * cuckoo_delete() - remove a key
 * @c: the filter
 * @key: key_len bytes
 *
 * Compact mode: only delete keys that were added: deleting a never-added
 * key that shares a stored key's fingerprint and buckets removes that key.
 * The caller serialises writers.
 *
 * Return: 0, or -ENOENT if the key (compact: its fingerprint) is in neither
 * bucket.
 */
int cuckoo_delete(struct cuckoo *c, const void *key)
{
	struct cuckoo_table *t = cuckoo_wtable(c);
	u64 b;
	int s;

	s = cuckoo_locate(c, t, key, cuckoo_hash(key, c->key_len, c->seed), &b);
	if (s < 0)
		return -ENOENT;
	cuckoo_empty(c, t, b, s);
	t->count--;
	return 0;
}

/**
 * cuckoo_clear() - remove every key
 * @c: the filter
 *
 * Publishes an empty table of the size the filter was created with and frees
 * the old one after an RCU grace period, so a concurrent reader sees every
 * key or none. Also resets the insert failure count. The caller serialises
 * writers; sleeps.
 *
 * Return: 0, or -EDQUOT or -ENOMEM with nothing changed.
 */
int cuckoo_clear(struct cuckoo *c)
{
	struct cuckoo_table *t = cuckoo_table_alloc(c, c->initial_buckets);

	if (IS_ERR(t))
		return PTR_ERR(t);
	cuckoo_swap(c, t);
	c->insert_failures = 0;
	return 0;
}

/**
 * cuckoo_list() - copy stored keys out
 * @c: the filter (exact mode)
 * @pos: in: where to start, 0 at first; out: where the next call starts
 * @keys: room for @max keys of key_len bytes, each followed by its u32
 *	  value (native byte order) if the filter has values
 * @max: most keys to copy
 *
 * Positions are slots of the current table: a listing that spans several
 * calls returns every key exactly once while cuckoo_list_gen() stays the
 * same; keys added or deleted in between may or may not be listed. A key
 * moved between buckets, or a new table, can carry a key from a slot not
 * yet listed to one already listed: cuckoo_list_gen() then changes, and
 * the listing must start over. Writer side; may sleep.
 *
 * Return: the number of keys copied, 0 at the end (or if @max is 0), or
 * -EOPNOTSUPP in compact mode, which keeps no keys.
 */
long cuckoo_list(const struct cuckoo *c, u64 *pos, void *keys, u64 max)
{
	const struct cuckoo_table *t = cuckoo_wtable(c);
	u64 i, n = 0, slots = (t->bucket_mask + 1) * CUCKOO_SLOTS;
	const u8 *key;
	u8 *out = keys;

	if (!c->exact)
		return -EOPNOTSUPP;
	for (i = *pos; i < slots && n < max; i++) {
		/* A grown, sparse table may hold few keys in many slots. */
		if (!(i & CUCKOO_RESCHED_MASK))
			cond_resched();
		if (!cuckoo_slot(c, t, i / CUCKOO_SLOTS, i % CUCKOO_SLOTS))
			continue;
		key = cuckoo_key_at(c, t, i);
		memcpy(out, key, c->key_len);
		out += c->key_len;
		if (c->values) {
			memcpy(out, key + c->val_off, sizeof(u32));
			out += sizeof(u32);
		}
		n++;
	}
	*pos = i;
	return n;
}

/**
 * cuckoo_list_gen() - the generation of cuckoo_list()'s positions
 * @c: the filter
 *
 * Writer side.
 *
 * Return: a number that only grows, and grows whenever an entry may have
 * changed slot: a move between buckets, or a new table (growth, clear).
 */
u64 cuckoo_list_gen(const struct cuckoo *c)
{
	return c->layout_base + cuckoo_wtable(c)->moves;
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
	st->memory_bytes = sizeof(*c) + CUCKOO_QUEUE_LEN * sizeof(*c->queue) +
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
	c = kvzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return NULL;
	c->seed = p->seed;
	c->hash_a = cuckoo_hash_a(c->seed);
	c->hash_b = cuckoo_hash_b(c->seed);
	c->fp_bits = p->fp_bits;
	c->fp_mask = p->fp_bits == 32 ? 0xffffffff : (1U << p->fp_bits) - 1;
	c->key_len = p->key_len;
	c->exact = p->exact;
	c->values = p->values;
	c->stride = cuckoo_stride(p);
	c->val_off = cuckoo_val_off(p);
	c->hit_final = !p->exact || p->key_len == sizeof(u32) ||
		       p->key_len == sizeof(long);
	c->initial_buckets = buckets;
	c->max_buckets = max_buckets;
	c->max_capacity = p->max_capacity ? p->max_capacity : p->capacity;
	c->queue = kvcalloc(CUCKOO_QUEUE_LEN, sizeof(*c->queue), GFP_KERNEL);
	t = cuckoo_table_alloc(c, buckets);
	if (IS_ERR(t))
		t = NULL;
	RCU_INIT_POINTER(c->table, t);
	if (!c->queue || !t)
		goto err_free;
	return c;

err_free:
	cuckoo_destroy(c);
	return NULL;
}

/* Bytes of the fingerprint array of a table of @buckets buckets. */
static u64 cuckoo_words_bytes(const struct cuckoo *c, u64 buckets)
{
	return buckets << cuckoo_bucket_shift(c->fp_bits);
}

/**
 * cuckoo_raw_bytes() - size of a filter's raw table
 * @c: the filter
 *
 * Writer side: the table may grow (exact mode) between two writer calls.
 *
 * Return: the bytes cuckoo_raw_read() copies: the current fingerprint array.
 */
u64 cuckoo_raw_bytes(const struct cuckoo *c)
{
	return cuckoo_words_bytes(c, cuckoo_wtable(c)->bucket_mask + 1);
}

/*
 * The raw form is the in-memory one, little endian: words of 32 bits
 * (8-bit fingerprints) or 64 bits (the others). Converting word by word
 * keeps a snapshot portable between hosts of either byte order.
 */
static void cuckoo_words_to_le(const struct cuckoo *c,
			       const struct cuckoo_table *t, void *data,
			       u64 off, u64 len)
{
	u64 i;

	if (c->fp_bits == 8) {
		for (i = 0; i < len / sizeof(u32); i++)
			put_unaligned_le32(t->t32[off / sizeof(u32) + i],
					   (u8 *)data + i * sizeof(u32));
	} else {
		for (i = 0; i < len / sizeof(u64); i++)
			put_unaligned_le64(t->t64[off / sizeof(u64) + i],
					   (u8 *)data + i * sizeof(u64));
	}
}

/**
 * cuckoo_raw_read() - copy part of a compact filter's table out
 * @c: the filter (compact mode)
 * @r: filled in: seed, buckets, nonzero slots, fingerprint width
 * @data: room for @len bytes
 * @off: the first byte of the table to copy
 * @len: how many; both multiples of the word (4 bytes with 8-bit
 *	fingerprints, else 8)
 *
 * A table may be copied in parts, so that no caller needs a buffer of its
 * size. Writer side: the table must not change between the parts.
 *
 * Return: 0; -EOPNOTSUPP in exact mode (whose keys are listed instead);
 * -EINVAL if the range is not aligned or ends past the table (nothing
 * copied).
 */
int cuckoo_raw_read(const struct cuckoo *c, struct cuckoo_raw *r, void *data,
		    u64 off, u64 len)
{
	const struct cuckoo_table *t = cuckoo_wtable(c);
	u64 word = c->fp_bits == 8 ? sizeof(u32) : sizeof(u64);

	if (c->exact)
		return -EOPNOTSUPP;
	if ((off | len) & (word - 1) || off > cuckoo_raw_bytes(c) ||
	    len > cuckoo_raw_bytes(c) - off)
		return -EINVAL;
	cuckoo_words_to_le(c, t, data, off, len);
	r->seed = c->seed;
	r->buckets = t->bucket_mask + 1;
	r->count = t->count;
	r->fp_bits = c->fp_bits;
	return 0;
}

/*
 * Loads @data into the empty table @t, checking every slot: a width of 12
 * bits leaves the top 4 bits of each 16-bit slot zero. Returns the nonzero
 * slots, or -EINVAL.
 */
static s64 cuckoo_words_from_le(const struct cuckoo *c, struct cuckoo_table *t,
				const void *data)
{
	u64 b, buckets = t->bucket_mask + 1, count = 0;
	unsigned int s;
	u32 fp;

	if (c->fp_bits == 8) {
		for (b = 0; b < buckets; b++)
			t->t32[b] = get_unaligned_le32((const u8 *)data +
						       b * sizeof(u32));
	} else {
		u64 i, words = cuckoo_words_bytes(c, buckets) / sizeof(u64);

		for (i = 0; i < words; i++)
			t->t64[i] = get_unaligned_le64((const u8 *)data +
						       i * sizeof(u64));
	}
	for (b = 0; b < buckets; b++) {
		if (!(b & CUCKOO_RESCHED_MASK))
			cond_resched();
		for (s = 0; s < CUCKOO_SLOTS; s++) {
			fp = cuckoo_slot(c, t, b, s);
			if (fp & ~c->fp_mask)
				return -EINVAL;
			count += !!fp;
		}
	}
	return count;
}

/**
 * cuckoo_raw_max_bytes() - the largest raw table a filter may have
 * @p: the filter's parameters
 *
 * Lets a caller bound a copy of untrusted data before cuckoo_raw_create()
 * checks it.
 *
 * Return: the bytes of a table for @p->max_capacity keys (or @p->capacity),
 * or 0 if @p is invalid.
 */
u64 cuckoo_raw_max_bytes(const struct cuckoo_params *p)
{
	u64 buckets, max_buckets;

	if (cuckoo_geometry(p, &buckets, &max_buckets))
		return 0;
	return max_buckets << cuckoo_bucket_shift(p->fp_bits);
}

/**
 * cuckoo_raw_create() - a compact filter from a raw table
 * @p: key_len, fp_bits and max_capacity of the filter (as for
 *     cuckoo_create(); compact mode; @p->seed is not used)
 * @r: the table's description: seed, buckets, count, fp_bits
 * @data: the slots, as cuckoo_raw_read() wrote them
 * @size: bytes at @data
 *
 * Nothing in @r or @data is trusted: @p must be valid compact parameters,
 * @r->fp_bits must equal @p->fp_bits, @r->buckets must be a power of two
 * no larger than the table for @p->max_capacity keys, @size must be that
 * many buckets' bytes, every slot must be a fingerprint of @r->fp_bits
 * bits and @r->count must equal the nonzero slots. A clear returns the
 * filter to the size @p gives, as for cuckoo_create(). May sleep.
 *
 * Return: the filter, or ERR_PTR(-EINVAL) if a rule is broken,
 * ERR_PTR(-EDQUOT) or ERR_PTR(-ENOMEM).
 */
struct cuckoo *cuckoo_raw_create(const struct cuckoo_params *p,
				 const struct cuckoo_raw *r, const void *data,
				 u64 size)
{
	u64 buckets, max_buckets;
	struct cuckoo_table *t;
	struct cuckoo *c;
	s64 count;

	if (p->exact || cuckoo_geometry(p, &buckets, &max_buckets) ||
	    r->fp_bits != p->fp_bits || !r->buckets ||
	    (r->buckets & (r->buckets - 1)) || r->buckets > max_buckets)
		return ERR_PTR(-EINVAL);

	c = cuckoo_create(p);
	if (!c)
		return ERR_PTR(-ENOMEM);
	if (size != cuckoo_words_bytes(c, r->buckets)) {
		cuckoo_destroy(c);
		return ERR_PTR(-EINVAL);
	}
	t = cuckoo_table_alloc(c, r->buckets);
	if (IS_ERR(t)) {
		cuckoo_destroy(c);
		return ERR_CAST(t);
	}
	count = cuckoo_words_from_le(c, t, data);
	if (count < 0 || (u64)count != r->count) {
		cuckoo_table_free(t);
		cuckoo_destroy(c);
		return ERR_PTR(-EINVAL);
	}
	t->count = count;
	/* Not yet published: no reader can hold the empty table. */
	cuckoo_table_free(cuckoo_wtable(c));
	RCU_INIT_POINTER(c->table, t);
	c->seed = r->seed;
	c->hash_a = cuckoo_hash_a(c->seed);
	c->hash_b = cuckoo_hash_b(c->seed);
	return c;
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
	kvfree(c->queue);
	kvfree(c);
}
