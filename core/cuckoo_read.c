// SPDX-License-Identifier: GPL-2.0
/*
 * Cuckoo filter core: the lock-free readers, one key at a time and in
 * batches, specialised for the module's key shapes (the protocol they
 * follow is told in cuckoo_int.h).
 */
#include "cuckoo_int.h"

/* Lane masks for the "some lane is zero" test. */
#define CUCKOO_L8_LO		0x01010101U
#define CUCKOO_L8_HI		0x80808080U
#define CUCKOO_L16_LO		0x0001000100010001ULL
#define CUCKOO_L16_HI		0x8000800080008000ULL
#define CUCKOO_L32_LO		0x0000000100000001ULL
#define CUCKOO_L32_HI		0x8000000080000000ULL

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

/*
 * Reader side: does the record at @stored hold @key? If so, and @val is
 * not NULL (a filter with values), *@val is its value: read in the same
 * load as the key in a whole record, else after it, for the version check
 * to judge.
 */
static __always_inline bool cuckoo_record_match(const struct cuckoo *c,
						struct cuckoo_shape sh,
						const u8 *stored,
						const void *key, u32 *val)
{
	union cuckoo_record r;

	if (val && sh.values && cuckoo_record_whole(sh)) {
		r.word = READ_ONCE(*(const u64 *)stored);
		if (r.key != get_unaligned((const u32 *)key))
			return false;
		*val = r.val;
		return true;
	}
	if (!cuckoo_key_equal(sh.key_len, stored, key))
		return false;
	if (val)
		*val = READ_ONCE(*(const u32 *)(stored + c->val_off));
	return true;
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
 * with masks, not a branch or a conditional the compiler may turn into
 * one, for batches: which bucket holds a key is random, so a branch on it
 * would be mispredicted about half the time. A single lookup branches
 * (cuckoo_confirm()): a predicted branch lets the CPU load the key before
 * the buckets arrive, which a batch, whose keys are prefetched a pass
 * ahead, does not need.
 */
static __always_inline const u8 *cuckoo_first_key(const struct cuckoo *c,
						  struct cuckoo_shape sh,
						  const struct cuckoo_table *t,
						  u64 b1, u64 b2, u64 m1,
						  u64 m2)
{
	u64 in1 = 0 - (u64)(m1 != 0);
	u64 b = b2 ^ ((b1 ^ b2) & in1);
	u64 m = m2 ^ ((m1 ^ m2) & in1);

	return cuckoo_key_at(c, t, b * CUCKOO_SLOTS +
			     cuckoo_first_lane(sh.fp_bits, m));
}

/*
 * Exact mode: does a slot of loaded bucket @b with @fp hold @key (and
 * @val, its value, see cuckoo_record_match())? Every slot in turn, on
 * purpose: the CPU predicts which slot matches and loads its record
 * before the bucket arrives, and when the table misses the cache the two
 * misses overlap. Walking only the slots that the bucket match flags ties
 * the record's address to the bucket's bytes, which made lookups from
 * memory slower.
 */
static __always_inline bool cuckoo_confirm(const struct cuckoo *c,
					   struct cuckoo_shape sh,
					   const struct cuckoo_table *t,
					   u64 b, const u64 *w, u32 fp,
					   const void *key, u32 *val)
{
	unsigned int s;

	/* unrolled: each lane's shift a constant, no count to keep */
#pragma GCC unroll 4
	for (s = 0; s < CUCKOO_SLOTS; s++) {
		if (cuckoo_lane(sh.fp_bits, w, s) != fp)
			continue;
		if (cuckoo_record_match(c, sh, cuckoo_key_at(c, t, b *
							      CUCKOO_SLOTS + s),
					key, val))
			return true;
	}
	return false;
}

/*
 * One unsynchronised look at both buckets. In exact mode a hit with @val
 * (a filter with values) reads the key's value into *@val.
 */
static __always_inline bool cuckoo_probe(const struct cuckoo *c,
					 struct cuckoo_shape sh,
					 const struct cuckoo_table *t,
					 u64 b1, u64 b2, u32 fp,
					 const void *key, u32 *val)
{
	/* a bucket of 8- or 16-bit lanes fills only [0]: the rest is 0 */
	u64 w1[2] = { 0 }, w2[2] = { 0 }, m1, m2;

	m1 = cuckoo_bucket_read(sh.fp_bits, t, b1, fp, w1);
	m2 = cuckoo_bucket_read(sh.fp_bits, t, b2, fp, w2);
	if (likely(!(m1 | m2)))
		return false;
	if (!sh.exact)
		return true;
	smp_rmb();	/* a slot's fingerprint, then its record */
	return (m1 && cuckoo_confirm(c, sh, t, b1, w1, fp, key, val)) ||
	       (m2 && cuckoo_confirm(c, sh, t, b2, w2, fp, key, val));
}

#ifdef CUCKOO_NO_VERSIONS
/*
 * Host baseline and mutant only: a reader without the version protocol.
 * It can miss a key that a move takes from b2 to b1 between its reads of
 * b1 and b2 (tests/host/stress.c shows that it does).
 */
static __always_inline bool
cuckoo_read(const struct cuckoo_table *t, const struct cuckoo *c,
	    const struct cuckoo_table *home_t __maybe_unused,
	    const struct cuckoo *home_c __maybe_unused, struct cuckoo_shape sh,
	    u64 b1, u64 b2, u32 fp, const void *key, u32 *val)
{
	return cuckoo_probe(c, sh, t, b1, b2, fp, key, val);
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
	bool hit;

	smp_rmb();	/* the version, then slots and records */
	hit = cuckoo_probe(c, sh, t, b1, b2, fp, key, val);
	if (hit && cuckoo_hit_final(sh, val))
		return true;
	smp_rmb();	/* slots and records, then the version again */
	if (likely(READ_ONCE(*v) == (seq & ~1U)))
		return hit;
	return -EAGAIN;
}

/*
 * Rare, so out of line: inlined, this loop (and on the host its cpu_relax(),
 * a call) gave every lookup a stack frame and more registers to save. The
 * answer comes back in bit 0, a hit's value (with @want_val) in the high
 * half: a value read through a pointer to the caller's local would make
 * the local's address escape, and the kernel guards such frames with a
 * stack canary on every lookup. The key's buckets are hashed again here,
 * so that every caller passes its arguments in registers: a seventh on
 * the stack gave each lookup a frame pointer and more to save.
 */
static noinline u64 cuckoo_read_retry(const struct cuckoo_table *t,
				      const struct cuckoo *c, const void *key,
				      bool want_val)
{
	struct cuckoo_shape sh = cuckoo_shape_of(c);
	u64 h = cuckoo_hash_as(sh, c->hash_a, c->hash_b, key);
	u32 fp = cuckoo_fp(c, h), v = 0;
	u64 b1 = h & t->bucket_mask, b2 = cuckoo_alt(t, b1, fp);
	int ret;

	for (;;) {
		cpu_relax();
		ret = cuckoo_read_once(t, c, sh, b1, b2, fp, key,
				       want_val ? &v : NULL);
		if (ret >= 0)
			return ret | (u64)v << 32;
	}
}

/*
 * @t and @c may be copies that the reader keeps in registers (see
 * cuckoo_batch_once()); the retry, out of line, is given what they copy,
 * @home_t and @home_c, as a pointer to a copy would put it in memory.
 */
static __always_inline bool cuckoo_read(const struct cuckoo_table *t,
					const struct cuckoo *c,
					const struct cuckoo_table *home_t,
					const struct cuckoo *home_c,
					struct cuckoo_shape sh, u64 b1, u64 b2,
					u32 fp, const void *key, u32 *val)
{
	int ret = cuckoo_read_once(t, c, sh, b1, b2, fp, key, val);
	u64 r;

	if (likely(ret >= 0))
		return ret;
	r = cuckoo_read_retry(home_t, home_c, key, val);
	if ((r & 1) && val)
		*val = r >> 32;
	return r & 1;
}
#endif

/*
 * Both readers, inlined into each so that contains() passes a constant
 * NULL and reads no value; nor does a lookup in a filter without values.
 */
static __always_inline bool cuckoo_find_as(const struct cuckoo *c,
					   struct cuckoo_shape sh,
					   const void *key, u32 *val)
{
	const struct cuckoo_table *t = rcu_dereference(c->table);
	u64 h = cuckoo_hash_as(sh, c->hash_a, c->hash_b, key);
	u32 fp = cuckoo_fp(c, h);
	u64 b1 = h & t->bucket_mask;

	if (!sh.values)
		val = NULL;
	return cuckoo_read(t, c, t, c, sh, b1, cuckoo_alt(t, b1, fp), fp, key,
			   val);
}

/*
 * Both readers of one shape, out of line: each saves only the registers
 * its own shape needs, where one function holding every shape saved, on
 * every lookup, what the largest needs. The lookup keeps its value in a
 * local, never NULL, so that the inlined reader needs no test of it, and
 * answers in one word (cuckoo_lookup_word()).
 */
static __always_inline bool cuckoo_contains_as(const struct cuckoo *c,
					       struct cuckoo_shape sh,
					       const void *key)
{
	return cuckoo_find_as(c, sh, key, NULL);
}

static __always_inline u64 cuckoo_lookup_as(const struct cuckoo *c,
					    struct cuckoo_shape sh,
					    const void *key)
{
	u32 v = 0;

	if (!cuckoo_find_as(c, sh, key, &v))
		return 0;
	return CUCKOO_WORD_HIT | (u64)v << 32;
}

/*
 * The module's key lengths (addresses 4 and 16, prefix tables 4 to 16)
 * with 16-bit fingerprints, its default (or 12-bit ones, in the same
 * lanes), each get readers of their own, in
 * compact mode and in exact mode with values (the module's exact tables
 * all have them); so do exact tables of 4-byte keys without values, the
 * bench's. Any other shape gets the general ones, as do compact tables of
 * 4-byte keys restored with an older hash (struct cuckoo_raw).
 */
#define CUCKOO_READERS(name, len, x, v)					\
static const struct cuckoo_shape cuckoo_##name =			\
	{ len, 16, x, CUCKOO_HASH_FOR(len), v };			\
									\
static noinline bool cuckoo_contains_##name(const struct cuckoo *c,	\
					    const void *key)		\
{									\
	return cuckoo_contains_as(c, cuckoo_##name, key);		\
}									\
									\
static noinline u64 cuckoo_lookup_##name(const struct cuckoo *c,	\
					 const void *key)		\
{									\
	return cuckoo_lookup_as(c, cuckoo_##name, key);			\
}

CUCKOO_READERS(4c, 4, false, false)
CUCKOO_READERS(4x, 4, true, false)
CUCKOO_READERS(4xv, 4, true, true)
CUCKOO_READERS(8c, 8, false, false)
CUCKOO_READERS(8xv, 8, true, true)
CUCKOO_READERS(16c, 16, false, false)
CUCKOO_READERS(16xv, 16, true, true)

static noinline bool cuckoo_contains_any(const struct cuckoo *c,
					 const void *key)
{
	return cuckoo_contains_as(c, cuckoo_shape_of(c), key);
}

static noinline u64 cuckoo_lookup_any(const struct cuckoo *c,
				      const void *key)
{
	return cuckoo_lookup_as(c, cuckoo_shape_of(c), key);
}

/* With @val, cuckoo_lookup_word()'s answer; else cuckoo_contains()'s. */
#define CUCKOO_FIND(name)						\
	(val ? cuckoo_lookup_##name(c, key) :				\
	       (u64)cuckoo_contains_##name(c, key))

static __always_inline u64 cuckoo_find(const struct cuckoo *c,
				       const void *key, bool val)
{
	switch (c->reader) {
	case CUCKOO_4C:
		return CUCKOO_FIND(4c);
	case CUCKOO_4X:
		return CUCKOO_FIND(4x);
	case CUCKOO_4XV:
		return CUCKOO_FIND(4xv);
	case CUCKOO_8C:
		return CUCKOO_FIND(8c);
	case CUCKOO_8XV:
		return CUCKOO_FIND(8xv);
	case CUCKOO_16C:
		return CUCKOO_FIND(16c);
	case CUCKOO_16XV:
		return CUCKOO_FIND(16xv);
	default:
		return CUCKOO_FIND(any);
	}
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
	return cuckoo_find(c, key, false);
}

/**
 * cuckoo_lookup_word() - test a key and read its value, without locking
 * @c: the filter, made with values
 * @key: key_len bytes
 *
 * As cuckoo_contains(); the value read is one the key had during the call.
 * cuckoo_lookup() (cuckoo.h) is the form to call.
 *
 * Return: CUCKOO_WORD_HIT if the key is in the filter, with its value in
 * the high half; 0 if not.
 */
u64 cuckoo_lookup_word(const struct cuckoo *c, const void *key)
{
	return cuckoo_find(c, key, true);
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
 * every key that was present throughout (see cuckoo_int.h).
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
 * What a batch's first pass leaves the others for one key: its buckets and
 * fingerprint; then, in exact mode, the version read before its buckets
 * and the stored key that sift found for it.
 */
struct cuckoo_pending {
	u64 b1;
	u64 b2;
	const u8 *first;
	u32 fp;
	u32 seq;
	bool miss;
};

/*
 * Exact mode, the batch's second pass: one versioned look at both buckets
 * that settles a miss as cuckoo_read_once() would (no slot holds @p's
 * fingerprint and the version held), so an absent key costs no second
 * look: sets @p->miss. Otherwise sets @p->first to the key in the first
 * slot holding the fingerprint (a present key's, as a rule), prefetched,
 * or to NULL if no slot does (the version moved).
 */
static __always_inline void cuckoo_sift(const struct cuckoo *c,
					struct cuckoo_shape sh,
					const struct cuckoo_table *t,
					struct cuckoo_pending *p)
{
	u64 w1[2], w2[2], m1, m2;

	p->seq = cuckoo_version_start(t, p->fp);
	m1 = cuckoo_bucket_read(sh.fp_bits, t, p->b1, p->fp, w1);
	m2 = cuckoo_bucket_read(sh.fp_bits, t, p->b2, p->fp, w2);
	p->miss = !(m1 | m2) && cuckoo_version_held(t, p->fp, p->seq);
	if (p->miss)
		return;
	p->first = m1 | m2 ? cuckoo_first_key(c, sh, t, p->b1, p->b2, m1,
					      m2) : NULL;
	prefetch(p->first);
}

/*
 * Key @i of a batch by the single lookup's versioned read: @hits[i] and,
 * with a value read, @vals[i]. Returns the answer.
 */
static __always_inline bool cuckoo_batch_read(const struct cuckoo *c,
					      struct cuckoo_shape sh,
					      const struct cuckoo_table *t,
					      const struct cuckoo *home_c,
					      const struct cuckoo_table *home_t,
					      const struct cuckoo_pending *p,
					      const u8 *key, u32 i, bool *hits,
					      u32 *vals)
{
	u32 v = vals ? vals[i] : 0;
	bool hit = cuckoo_read(t, c, home_t, home_c, sh, p->b1, p->b2, p->fp,
			       key, vals ? &v : NULL);

	hits[i] = hit;
	if (vals)
		vals[i] = v;
	return hit;
}

/*
 * Up to CUCKOO_BATCH keys at @keys, key_len bytes apart: sets @hits[i]
 * and, with @vals (a filter with values), a hit's @vals[i]; returns the
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
	const struct cuckoo_table *home_t = rcu_dereference(c->table);
	/*
	 * Copies of what the reads use of the table and the filter, which
	 * stay in registers: the version protocol's barriers, and stores
	 * through @hits, would make the compiler load the originals again
	 * for every key.
	 */
	const struct cuckoo_table tv = {
		.words = home_t->words,
		.versions = home_t->versions,
		.keys = home_t->keys,
		.bucket_mask = home_t->bucket_mask,
		.stripe_mask = home_t->stripe_mask,
	};
	const struct cuckoo cv = {
		.hash_a = c->hash_a,
		.hash_b = c->hash_b,
		.fp_mask = c->fp_mask,
		.stride = c->stride,
		.val_off = c->val_off,
	};
	const struct cuckoo_table *t = &tv;
	bool want_val = vals;
	bool final = cuckoo_hit_final(sh, want_val);
	struct cuckoo_pending p[CUCKOO_BATCH];
	u32 i, found = 0;

	for (i = 0; i < n; i++) {
		u64 h = cuckoo_hash_as(sh, cv.hash_a, cv.hash_b,
				       keys + i * sh.key_len);

		p[i].fp = cuckoo_fp(&cv, h);
		p[i].b1 = h & t->bucket_mask;
		p[i].b2 = cuckoo_alt(t, p[i].b1, p[i].fp);
		prefetch(cuckoo_bucket_addr(sh.fp_bits, t, p[i].b1));
		prefetch(cuckoo_bucket_addr(sh.fp_bits, t, p[i].b2));
	}
	if (!sh.exact) {
		for (i = 0; i < n; i++)
			found += cuckoo_batch_read(&cv, sh, t, c, home_t, &p[i],
						   keys + i * sh.key_len, i,
						   hits, vals);
		return found;
	}
	for (i = 0; i < n; i++)
		cuckoo_sift(&cv, sh, t, &p[i]);
	smp_rmb();	/* the slots sift read, then their keys */
	for (i = 0; i < n; i++) {
		const u8 *key = keys + i * sh.key_len;
		const u8 *first = p[i].first;
		u32 v = 0;

		if (p[i].miss) {
			hits[i] = false;
			continue;
		}
		if (first && cuckoo_record_match(&cv, sh, first, key,
						 want_val ? &v : NULL)) {
			if (final || cuckoo_version_held(t, p[i].fp, p[i].seq)) {
				hits[i] = true;
				if (want_val)
					vals[i] = v;
				found++;
				continue;
			}
		}
		found += cuckoo_batch_read(&cv, sh, t, c, home_t, &p[i], key, i,
					   hits, vals);
	}
	return found;
}

static __always_inline u32 cuckoo_batch_as(const struct cuckoo *c,
					   struct cuckoo_shape sh,
					   const void *keys, u32 n, bool *hits,
					   u32 *vals)
{
	u32 i, k, found = 0;

	/* A filter without values reads none, and leaves @vals alone. */
	if (!sh.values)
		vals = NULL;
	for (i = 0; i < n; i += k) {
		k = n - i < CUCKOO_BATCH ? n - i : CUCKOO_BATCH;
		found += cuckoo_batch_once(c, sh, (const u8 *)keys +
					   i * sh.key_len, k, hits + i,
					   vals ? vals + i : NULL);
	}
	return found;
}

#define CUCKOO_BATCH_AS(name)						\
	cuckoo_batch_as(c, cuckoo_##name, keys, n, hits, vals)

static noinline u32 cuckoo_contains_batch_any(const struct cuckoo *c,
					      const void *keys, u32 n,
					      bool *hits)
{
	return cuckoo_batch_as(c, cuckoo_shape_of(c), keys, n, hits, NULL);
}

static noinline u32 cuckoo_lookup_batch_any(const struct cuckoo *c,
					    const void *keys, u32 n,
					    bool *hits, u32 *vals)
{
	return cuckoo_batch_as(c, cuckoo_shape_of(c), keys, n, hits, vals);
}

/* As cuckoo_find(): the shapes of CUCKOO_READERS() get readers of their own. */
static __always_inline u32 cuckoo_batch(const struct cuckoo *c,
					const void *keys, u32 n, bool *hits,
					u32 *vals)
{
	switch (c->reader) {
	case CUCKOO_4C:
		return CUCKOO_BATCH_AS(4c);
	case CUCKOO_4X:
		return CUCKOO_BATCH_AS(4x);
	case CUCKOO_4XV:
		return CUCKOO_BATCH_AS(4xv);
	case CUCKOO_8C:
		return CUCKOO_BATCH_AS(8c);
	case CUCKOO_8XV:
		return CUCKOO_BATCH_AS(8xv);
	case CUCKOO_16C:
		return CUCKOO_BATCH_AS(16c);
	case CUCKOO_16XV:
		return CUCKOO_BATCH_AS(16xv);
	default:
		return vals ? cuckoo_lookup_batch_any(c, keys, n, hits, vals) :
			      cuckoo_contains_batch_any(c, keys, n, hits);
	}
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
