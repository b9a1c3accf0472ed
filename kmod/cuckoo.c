// SPDX-License-Identifier: GPL-2.0
/*
 * Cuckoo filter core: partial-key cuckoo hashing (Fan et al., CoNEXT 2014)
 * with MemC3's breadth-first insert and version-checked lock-free lookups.
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
 * Moves and readers: a reader checks both buckets between two reads of
 * their version counters and retries if a version was odd or changed. Each
 * move of a fingerprint from one bucket to the other makes both buckets'
 * versions odd, copies the fingerprint, clears the source, and makes them
 * even again, so a reader never sees the fingerprint in neither bucket.
 * Stores of a single slot (insert into a free slot, delete) need no
 * version: a reader sees the slot before or after, and either answer is
 * right for a key being added or removed. Nor does the store of a new key
 * into the slot the last move emptied: that move's second barrier orders
 * the store after the move, so a reader that sees the new fingerprint where
 * the moved one was also sees the versions of that move changed, and retries.
 */
#include "cuckoo.h"

/*
 * Versions are striped: bucket b uses versions[b & stripe_mask]. Buckets
 * sharing a stripe only make each other's readers retry more often; a
 * reader still sees every move that touches its buckets. 4096 counters
 * (16 KiB) make such retries rare without costing much cache.
 */
#define CUCKOO_STRIPES_MAX	4096

/*
 * The table is at most 1 GiB (kvmalloc() refuses more than INT_MAX bytes),
 * which bounds capacity at about 1020M keys with 8-bit fingerprints, 510M
 * with 12 or 16 bits and 255M with 32 bits.
 */
#define CUCKOO_TABLE_MAX	(1024ULL * 1024 * 1024)

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

/* BFS node: the fingerprint in @slot of the parent's bucket moves to @bucket. */
struct cuckoo_node {
	u32 bucket;
	u16 parent;
	u8 slot;
};

/*
 * Everything is written only by the writer, which the caller serialises.
 * Readers use the first cache line only: the table and versions (through
 * READ_ONCE()) and the geometry, which never changes after creation.
 */
struct cuckoo {
	union {
		void *table;
		u32 *t32;	/* 8-bit fingerprints: bucket b is t32[b] */
		u64 *t64;	/* 12/16: t64[b]; 32: t64[2b] and t64[2b + 1] */
	};
	u32 *versions;
	u64 seed;
	u64 bucket_mask;
	u32 stripe_mask;
	u32 fp_mask;
	u32 fp_bits;

	____cacheline_aligned struct cuckoo_node *queue;
	u64 table_bytes;
	u64 memory_bytes;
	u64 count;
	u64 insert_failures;
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
 * 95% of the slots. Checking @capacity against the table limit first keeps
 * every product below 2^40.
 */
static int cuckoo_size(u64 capacity, unsigned int fp_bits, u64 *buckets)
{
	int shift = cuckoo_bucket_shift(fp_bits);
	u64 max, b = 1;

	if (shift < 0)
		return shift;
	max = CUCKOO_TABLE_MAX >> shift;
	if (!capacity || capacity > max * CUCKOO_SLOTS)
		return -EINVAL;
	while (b * CUCKOO_SLOTS * CUCKOO_MAX_LOAD_PCT < capacity * 100)
		b <<= 1;
	if (b > max)
		return -EINVAL;
	*buckets = b;
	return 0;
}

/**
 * cuckoo_params_check() - check filter parameters without allocating
 * @capacity: keys the filter must hold at no more than 95% load
 * @fp_bits: fingerprint width: 8, 12, 16 or 32
 *
 * Return: 0, or -EINVAL if @fp_bits is unsupported, @capacity is 0, or the
 * table would exceed CUCKOO_TABLE_MAX bytes.
 */
int cuckoo_params_check(u64 capacity, unsigned int fp_bits)
{
	u64 buckets;

	return cuckoo_size(capacity, fp_bits, &buckets);
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

static __always_inline u64 cuckoo_hash(const void *key, size_t len, u64 seed)
{
	const u8 *p = key;
	u64 a = seed ^ CUCKOO_K0;
	u64 b = rol64(seed, 32) ^ CUCKOO_K1;
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
	while (n--)
		tail = tail << 8 | p[n];
	b = cuckoo_round(b, tail, CUCKOO_K2);

	a ^= rol64(b, 23) ^ (u64)len * CUCKOO_K0;
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdULL;
	a ^= a >> 33;
	a *= 0xc4ceb9fe1a85ec53ULL;
	a ^= a >> 33;
	return a;
}

/*
 * The other bucket of fingerprint @fp stored in bucket @b. Bits 32 and up of
 * the product depend on every bit of @fp; the table has at most 2^28
 * buckets, so the mask keeps only such bits.
 */
static __always_inline u64 cuckoo_alt(const struct cuckoo *c, u64 b, u32 fp)
{
	return (b ^ (((u64)fp * CUCKOO_K0) >> 32)) & c->bucket_mask;
}

/*
 * Bucket index from the low bits of the hash, fingerprint from the high 32:
 * independent, as the index never uses more than 28 bits.
 */
static __always_inline u32 cuckoo_locate(const struct cuckoo *c,
					 const void *key, size_t len,
					 u64 *b1, u64 *b2)
{
	u64 h = cuckoo_hash(key, len, c->seed);
	u32 fp = (h >> 32) & c->fp_mask;

	fp += !fp;
	*b1 = h & c->bucket_mask;
	*b2 = cuckoo_alt(c, *b1, fp);
	return fp;
}

/*
 * Nonzero iff some lane of @x is zero: subtracting 1 from each lane sets a
 * lane's top bit through a borrow only if the lane, or one below it, is zero.
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
 * Reader side: nonzero iff bucket @b holds @fp. One or two untorn word
 * loads and no branch but the (perfectly predicted) one on the layout.
 */
static __always_inline u64 cuckoo_bucket_match(const struct cuckoo *c, u64 b,
					       u32 fp)
{
	u64 pat;

	switch (c->fp_bits) {
	case 8:
		return cuckoo_zero_lane32(READ_ONCE(c->t32[b]) ^ fp * CUCKOO_L8_LO,
					  CUCKOO_L8_LO, CUCKOO_L8_HI);
	case 32:
		pat = fp * CUCKOO_L32_LO;
		return cuckoo_zero_lane64(READ_ONCE(c->t64[2 * b]) ^ pat,
					  CUCKOO_L32_LO, CUCKOO_L32_HI) |
		       cuckoo_zero_lane64(READ_ONCE(c->t64[2 * b + 1]) ^ pat,
					  CUCKOO_L32_LO, CUCKOO_L32_HI);
	default:
		return cuckoo_zero_lane64(READ_ONCE(c->t64[b]) ^ fp * CUCKOO_L16_LO,
					  CUCKOO_L16_LO, CUCKOO_L16_HI);
	}
}

/**
 * cuckoo_contains() - test a key, without locking
 * @c: the filter
 * @key: key bytes
 * @len: key length in bytes
 *
 * Safe against one concurrent writer and from any context that cannot
 * interrupt the writer inside a move (softirq, process; see cuckoo_env.h).
 * A key present for the whole call is always found; a key added or deleted
 * during the call may or may not be.
 *
 * Return: true if the key (or one sharing its fingerprint and buckets) is in
 * the filter.
 */
bool cuckoo_contains(const struct cuckoo *c, const void *key, size_t len)
{
	const u32 *v1, *v2;
	u32 s1, s2, fp;
	u64 b1, b2, hit;

	fp = cuckoo_locate(c, key, len, &b1, &b2);
	v1 = &c->versions[b1 & c->stripe_mask];
	v2 = &c->versions[b2 & c->stripe_mask];
	for (;;) {
		s1 = READ_ONCE(*v1);
		s2 = READ_ONCE(*v2);
		if (unlikely((s1 | s2) & 1)) {
			cpu_relax();
			continue;
		}
		smp_rmb();	/* versions, then slots */
		hit = cuckoo_bucket_match(c, b1, fp) |
		      cuckoo_bucket_match(c, b2, fp);
		smp_rmb();	/* slots, then versions again */
		if (likely(READ_ONCE(*v1) == s1 && READ_ONCE(*v2) == s2))
			return hit != 0;
	}
}

/* Writer side: the writer is the only one storing, so plain loads suffice. */
static u32 cuckoo_slot(const struct cuckoo *c, u64 b, unsigned int s)
{
	switch (c->fp_bits) {
	case 8:
		return (c->t32[b] >> (8 * s)) & 0xff;
	case 32:
		return c->t64[2 * b + s / 2] >> (32 * (s % 2));
	default:
		return (c->t64[b] >> (16 * s)) & 0xffff;
	}
}

static void cuckoo_word64_set(u64 *word, unsigned int shift, u64 mask, u32 fp)
{
	WRITE_ONCE(*word, (*word & ~(mask << shift)) | (u64)fp << shift);
}

static void cuckoo_set_slot(struct cuckoo *c, u64 b, unsigned int s, u32 fp)
{
	u32 *w;

	switch (c->fp_bits) {
	case 8:
		w = &c->t32[b];
		WRITE_ONCE(*w, (*w & ~(0xffU << (8 * s))) | fp << (8 * s));
		break;
	case 32:
		cuckoo_word64_set(&c->t64[2 * b + s / 2], 32 * (s % 2),
				  0xffffffffULL, fp);
		break;
	default:
		cuckoo_word64_set(&c->t64[b], 16 * s, 0xffff, fp);
		break;
	}
}

/* Slot of bucket @b holding @fp (0: a free slot), or -1. */
static int cuckoo_find(const struct cuckoo *c, u64 b, u32 fp)
{
	unsigned int s;

	for (s = 0; s < CUCKOO_SLOTS; s++)
		if (cuckoo_slot(c, b, s) == fp)
			return s;
	return -1;
}

/*
 * Filling the emptier of a key's buckets keeps bucket loads even, so fewer
 * inserts need moves: in tables of 2^21 buckets the first -ENOSPC came at
 * about 96% load instead of 95.5% when filling the first bucket first.
 */
static unsigned int cuckoo_free_slots(const struct cuckoo *c, u64 b)
{
	unsigned int s, n = 0;

	for (s = 0; s < CUCKOO_SLOTS; s++)
		n += !cuckoo_slot(c, b, s);
	return n;
}

static void cuckoo_versions_bump(struct cuckoo *c, u64 b1, u64 b2)
{
	u32 *v1 = &c->versions[b1 & c->stripe_mask];
	u32 *v2 = &c->versions[b2 & c->stripe_mask];

	WRITE_ONCE(*v1, *v1 + 1);
	if (v2 != v1)
		WRITE_ONCE(*v2, *v2 + 1);
}

/* Moves the fingerprint in slot @fs of bucket @from to free slot @ts of @to. */
static void cuckoo_move(struct cuckoo *c, u64 from, unsigned int fs,
			u64 to, unsigned int ts)
{
	u32 fp = cuckoo_slot(c, from, fs);

	WARN_ON_ONCE(!fp || cuckoo_slot(c, to, ts) ||
		     cuckoo_alt(c, from, fp) != to);
	cuckoo_write_lock_local();
	cuckoo_versions_bump(c, from, to);
	smp_wmb();	/* odd versions before the slots change */
	cuckoo_set_slot(c, to, ts, fp);
	cuckoo_set_slot(c, from, fs, 0);
	smp_wmb();	/* the slots before even versions */
	cuckoo_versions_bump(c, from, to);
	cuckoo_write_unlock_local();
}

/*
 * Breadth-first search from the key's full buckets @b1 and @b2 for a free
 * slot that a chain of moves can reach, examining at most CUCKOO_MAX_KICKS
 * slots. Returns the queue index of the last node, whose bucket has free
 * slot *@free, or -ENOSPC. BFS finds a shortest chain, so no bucket occurs
 * twice in it and each move empties the slot the next one fills.
 */
static int cuckoo_search(struct cuckoo *c, u64 b1, u64 b2, unsigned int *free)
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
			u64 alt = cuckoo_alt(c, b, cuckoo_slot(c, b, s));
			int f;

			if (++examined > CUCKOO_MAX_KICKS)
				return -ENOSPC;
			if (alt == b)
				continue;
			q[tail] = (struct cuckoo_node){ .bucket = alt,
							.parent = head,
							.slot = s };
			f = cuckoo_find(c, alt, 0);
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
 * Frees a slot in @b1 or @b2 by moving fingerprints along a BFS chain, the
 * last one first, so that every fingerprint is always in one of its
 * buckets. Returns the slot and sets *@b to its bucket, or -ENOSPC with
 * nothing moved.
 */
static int cuckoo_make_room(struct cuckoo *c, u64 b1, u64 b2, u64 *b)
{
	unsigned int to_slot;
	int i = cuckoo_search(c, b1, b2, &to_slot);
	u64 to;

	if (i < 0)
		return i;
	to = c->queue[i].bucket;
	while (c->queue[i].parent != CUCKOO_ROOT) {
		const struct cuckoo_node *n = &c->queue[i];
		u64 from = c->queue[n->parent].bucket;

		cuckoo_move(c, from, n->slot, to, to_slot);
		to = from;
		to_slot = n->slot;
		i = n->parent;
	}
	*b = to;
	return to_slot;
}

/**
 * cuckoo_insert() - add a key
 * @c: the filter
 * @key: key bytes
 * @len: key length in bytes
 *
 * Adding is idempotent: a key whose fingerprint is already in one of its
 * buckets is not stored twice. With short fingerprints, a different key
 * with the same fingerprint and buckets is indistinguishable from it, so it
 * gets -EEXIST too (and deleting either removes both). The caller
 * serialises writers.
 *
 * Return: 0; -EEXIST if the fingerprint is present; -ENOSPC if no free slot
 * is reachable within CUCKOO_MAX_KICKS slots, in which case nothing moved.
 */
int cuckoo_insert(struct cuckoo *c, const void *key, size_t len)
{
	u64 b1, b2, b;
	u32 fp;
	int s;

	fp = cuckoo_locate(c, key, len, &b1, &b2);
	if (cuckoo_find(c, b1, fp) >= 0 || cuckoo_find(c, b2, fp) >= 0)
		return -EEXIST;
	b = cuckoo_free_slots(c, b2) > cuckoo_free_slots(c, b1) ? b2 : b1;
	s = cuckoo_find(c, b, 0);
	if (s < 0) {
		s = cuckoo_make_room(c, b1, b2, &b);
		if (s < 0) {
			c->insert_failures++;
			return s;
		}
	}
	cuckoo_set_slot(c, b, s, fp);
	c->count++;
	return 0;
}

/**
 * cuckoo_delete() - remove a key
 * @c: the filter
 * @key: key bytes
 * @len: key length in bytes
 *
 * Only delete keys that were added: deleting a never-added key that shares
 * a stored key's fingerprint and buckets removes that key. The caller
 * serialises writers.
 *
 * Return: 0, or -ENOENT if the key's fingerprint is in neither bucket.
 */
int cuckoo_delete(struct cuckoo *c, const void *key, size_t len)
{
	u64 b1, b2, b;
	u32 fp;
	int s;

	fp = cuckoo_locate(c, key, len, &b1, &b2);
	b = b1;
	s = cuckoo_find(c, b1, fp);
	if (s < 0) {
		b = b2;
		s = cuckoo_find(c, b2, fp);
	}
	if (s < 0)
		return -ENOENT;
	cuckoo_set_slot(c, b, s, 0);
	c->count--;
	return 0;
}

/**
 * cuckoo_clear() - remove every key
 * @c: the filter
 *
 * Clears the table word by word with WRITE_ONCE(): a concurrent reader may
 * find some keys and miss others, but never sees a torn word (which could
 * show a fingerprint nobody added). May sleep; the caller serialises
 * writers. Also resets the count and insert failure statistics.
 */
void cuckoo_clear(struct cuckoo *c)
{
	u64 i;

	if (c->fp_bits == 8) {
		for (i = 0; i < c->table_bytes / sizeof(u32); i++) {
			WRITE_ONCE(c->t32[i], 0);
			if (!(i & 0xffff))
				cond_resched();
		}
	} else {
		for (i = 0; i < c->table_bytes / sizeof(u64); i++) {
			WRITE_ONCE(c->t64[i], 0);
			if (!(i & 0xffff))
				cond_resched();
		}
	}
	c->count = 0;
	c->insert_failures = 0;
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
	u64 buckets = c->bucket_mask + 1;

	st->capacity = buckets * CUCKOO_SLOTS;
	st->count = c->count;
	st->buckets = buckets;
	st->fp_bits = c->fp_bits;
	st->memory_bytes = c->memory_bytes;
	st->insert_failures = c->insert_failures;
}

/**
 * cuckoo_create() - allocate an empty filter
 * @capacity: keys the filter must hold at no more than 95% load
 * @fp_bits: fingerprint width: 8, 12, 16 or 32; a lookup of an absent key
 *           is a false positive with probability at most 8 / 2^@fp_bits
 * @seed: hash key; use a random value
 *
 * May sleep.
 *
 * Return: the filter, or NULL if the parameters are invalid (see
 * cuckoo_params_check()) or memory is short.
 */
struct cuckoo *cuckoo_create(u64 capacity, unsigned int fp_bits, u64 seed)
{
	u64 buckets, stripes;
	struct cuckoo *c;

	if (cuckoo_size(capacity, fp_bits, &buckets))
		return NULL;
	stripes = buckets < CUCKOO_STRIPES_MAX ? buckets : CUCKOO_STRIPES_MAX;

	c = kvzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return NULL;
	c->seed = seed;
	c->bucket_mask = buckets - 1;
	c->stripe_mask = stripes - 1;
	c->fp_bits = fp_bits;
	c->fp_mask = fp_bits == 32 ? 0xffffffff : (1U << fp_bits) - 1;
	c->table_bytes = buckets << cuckoo_bucket_shift(fp_bits);
	c->memory_bytes = sizeof(*c) + c->table_bytes +
			  stripes * sizeof(*c->versions) +
			  CUCKOO_QUEUE_LEN * sizeof(*c->queue);

	c->table = kvzalloc(c->table_bytes, GFP_KERNEL);
	c->versions = kvcalloc(stripes, sizeof(*c->versions), GFP_KERNEL);
	c->queue = kvcalloc(CUCKOO_QUEUE_LEN, sizeof(*c->queue), GFP_KERNEL);
	if (!c->table || !c->versions || !c->queue)
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
	kvfree(c->queue);
	kvfree(c->versions);
	kvfree(c->table);
	kvfree(c);
}
