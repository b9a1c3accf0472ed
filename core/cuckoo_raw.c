// SPDX-License-Identifier: GPL-2.0
/*
 * Cuckoo filter core: a compact filter's raw table, copied out and made
 * into a filter again (snapshots of filters whose keys cannot be listed).
 */
#include "cuckoo_int.h"

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
 * @r: filled in: seed, buckets, nonzero slots, fingerprint width, hash
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
	r->hash = c->hash;
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
 * @r: the table's description: seed, buckets, count, fp_bits, hash
 * @data: the slots, as cuckoo_raw_read() wrote them
 * @size: bytes at @data
 *
 * Nothing in @r or @data is trusted: @p must be valid compact parameters,
 * @r->fp_bits must equal @p->fp_bits, @r->buckets must be a power of two
 * no larger than the table for @p->max_capacity keys, @size must be that
 * many buckets' bytes, every slot must be a fingerprint of @r->fp_bits
 * bits, @r->count must equal the nonzero slots and @r->hash must be a
 * hash of the key length. A clear returns the
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
	    (r->buckets & (r->buckets - 1)) || r->buckets > max_buckets ||
	    (r->hash != CUCKOO_HASH_LANES &&
	     (r->hash > CUCKOO_HASH_MIX32 || p->key_len != sizeof(u32))))
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
	c->hash = r->hash;
	c->reader = cuckoo_reader_for(c);
	return c;
}

/**
 * cuckoo_mirrorable() - what a reader of a mirror of @c needs
 * @c:  the filter
 * @sh: filled in: hash key and kind, buckets, version stripes, fingerprint
 *      mask
 *
 * Writer side.
 *
 * Return: 0, or -EOPNOTSUPP for a filter no mirror can follow: exact
 * mode, or fingerprints of 8 or 32 bits (a bucket is not one 64-bit word).
 */
int cuckoo_mirrorable(const struct cuckoo *c, struct cuckoo_mirror_shape *sh)
{
	const struct cuckoo_table *t = cuckoo_wtable(c);

	if (c->exact || (c->fp_bits != 12 && c->fp_bits != 16))
		return -EOPNOTSUPP;
	sh->hash_a = c->hash_a;
	sh->hash_b = c->hash_b;
	sh->buckets = t->bucket_mask + 1;
	sh->stripes = t->stripe_mask + 1;
	sh->fp_mask = c->fp_mask;
	sh->hash = c->hash;
	return 0;
}

/**
 * cuckoo_mirror_start() - store the table's buckets and versions in @m too
 * @c:     the filter
 * @m:     where: its callbacks run under the writer's serialisation
 * @words: the table's buckets are copied here first (as many as
 *         cuckoo_mirrorable() says), in native byte order
 *
 * Writer side. The caller keeps readers off the mirror until this returns.
 *
 * Return: 0, or -EOPNOTSUPP as cuckoo_mirrorable().
 */
int cuckoo_mirror_start(struct cuckoo *c, const struct cuckoo_mirror *m,
			u64 *words)
{
	const struct cuckoo_table *t = cuckoo_wtable(c);
	struct cuckoo_mirror_shape sh;
	u64 b;

	if (cuckoo_mirrorable(c, &sh))
		return -EOPNOTSUPP;
	for (b = 0; b < sh.buckets; b++)
		WRITE_ONCE(words[b], t->t64[b]);
	c->mirror = *m;
	return 0;
}

/* The writer stores in the table alone again. Writer side. */
void cuckoo_mirror_stop(struct cuckoo *c)
{
	memset(&c->mirror, 0, sizeof(c->mirror));
}
