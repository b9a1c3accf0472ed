// SPDX-License-Identifier: GPL-2.0
/*
 * A prefix set's summary (see prefix_summary.h): head words per /16, hashed bits
 * per /24 or /32 and fine ones (IPv6), and the writer's counts behind them.
 *
 * Invariant: count[c][k] counts the members of class c in /16 k, or is
 * stuck at its most (see prefix_summary.h), and the flag of c in head[k]
 * is set iff it is nonzero (hcount, hashed: the same per hashed block a
 * member covers), except briefly: a flag is set before
 * the member's entries are published (prefix_sum_get()) and cleared after
 * they are gone (prefix_sum_put(), prefix_sum_reset()), so a reader finding
 * it clear could not have found a member there. The name in head[k] is the
 * longest member of length 1..16 covering k (prefix_sum_name()).
 */
#include "prefix_summary.h"

/*
 * Steps a saturating count @n (at most @max) up (@add) or down: true if
 * its flag or bit is to change (it left or reached zero). A count at
 * @max stays there.
 */
static bool prefix_sum_step(u32 *n, u32 max, bool add)
{
	if (*n == max)
		return false;
	if (add)
		return !(*n)++;
	return !--*n;
}

/* Counts bit @k of @words in (@add) or out with @counts; the bit follows zero. */
static void prefix_sum_step_bit(u32 *words, u8 *counts, u32 k, bool add)
{
	u32 *word = &words[k / 32], cnt = counts[k];

	if (prefix_sum_step(&cnt, PREFIX_SUM_HCOUNT_MAX, add))
		WRITE_ONCE(*word, add ? *word | 1U << (k % 32) :
					*word & ~(1U << (k % 32)));
	counts[k] = cnt;
}

/*
 * Counts (@addr, @len) in (@add) or out of @c's counts: its /16's, each
 * hashed block it covers, and its fine block; flags and bits follow zero.
 */
static void prefix_sum_update(struct prefix_summary *sum, int c,
			      const u8 *addr, u32 len, bool add)
{
	u32 k = prefix_sum_slot(addr), flag = PREFIX_HEAD_FLAG(c), g;
	u32 v = prefix_sum_block(c, addr), n = prefix_sum_blocks(c, len), i, cnt;
	u64 f;

	cnt = sum->count[c][k];
	if (prefix_sum_step(&cnt, PREFIX_SUM_COUNT_MAX, add))
		WRITE_ONCE(sum->head[k], add ? sum->head[k] | flag :
					       sum->head[k] & ~flag);
	sum->count[c][k] = cnt;
	if (!sum->hcount[c])
		return;
	for (i = 0; i < n; i++)
		prefix_sum_step_bit(sum->hashed[c], sum->hcount[c],
				    prefix_sum_hash(v + i), add);
	if (!sum->fcount[c])
		return;
	g = prefix_sum_grain(c, len);
	f = prefix_sum_fine_block(addr, g);
	/* a /17../23 member's /24s, as its hashed blocks */
	for (i = 0; i < n; i++)
		prefix_sum_step_bit(sum->fine[c], sum->fcount[c],
				    prefix_sum_fine_hash(c, f + i, g), add);
}

/* The head words of a set with none of its own yet: read only. */
static u16 prefix_sum_none[PREFIX_SUM_KEYS];

void prefix_sum_init(struct prefix_summary *sum)
{
	sum->head = prefix_sum_none;
}

/* Frees a bitmap of 2^@shift bits and its counts (either may be NULL). */
static void prefix_sum_bits_free(u32 *bits, u8 *counts, u32 shift)
{
	cuckoo_mem_free(bits, (1U << shift) / 8);
	cuckoo_mem_free(counts, 1U << shift);
}

/* A bitmap of 2^@shift hashed blocks and its u8 counts, zeroed. */
static int prefix_sum_bits_alloc(u32 **bits, u8 **counts, u32 shift)
{
	*counts = cuckoo_mem_zalloc(1U << shift);
	if (IS_ERR(*counts))
		return PTR_ERR(*counts);
	*bits = cuckoo_mem_zalloc((1U << shift) / 8);
	if (IS_ERR(*bits)) {
		cuckoo_mem_free(*counts, 1U << shift);
		return PTR_ERR(*bits);
	}
	return 0;
}

/* Zeroes a bitmap of 2^@shift bits, word by word for readers, and its counts. */
static void prefix_sum_bits_clear(u32 *bits, u8 *counts, u32 shift)
{
	u32 k;

	if (bits)
		for (k = 0; k < (1U << shift) / 32; k++)
			WRITE_ONCE(bits[k], 0);
	if (counts)
		memset(counts, 0, 1U << shift);
}

/* The bytes of a bitmap of 2^@shift bits and its counts, if allocated. */
static u64 prefix_sum_bits_bytes(const u32 *bits, const u8 *counts, u32 shift)
{
	return !!counts * cuckoo_mem_footprint(1U << shift) +
	       !!bits * cuckoo_mem_footprint((1U << shift) / 8);
}

/*
 * Allocates what a member of length @len and class @c (negative: none)
 * needs: the head words, for any member but the /0 and compact addresses,
 * and the class's counts and hashed bits. 0, -EDQUOT or -ENOMEM, nothing
 * changed.
 */
int prefix_sum_prepare(struct prefix_summary *sum, u32 alen, int c, u32 len)
{
	bool hashed = alen == 16 || c == PREFIX_CLASS_MID;
	bool fine = alen == 16;
	bool head = sum->head == prefix_sum_none &&
		    (c >= 0 || (len && len <= PREFIX_SUM_SHIFT));
	u32 *bits = NULL, *fbits = NULL;
	u16 *words = NULL, *count;
	u8 *hcount = NULL, *fcount = NULL;
	int err;

	if (head) {
		words = cuckoo_mem_zalloc(PREFIX_SUM_HEAD_BYTES);
		if (IS_ERR(words))
			return PTR_ERR(words);
	}
	if (c >= 0 && !sum->count[c]) {
		count = cuckoo_mem_zalloc(PREFIX_SUM_COUNT_BYTES);
		err = PTR_ERR_OR_ZERO(count);
		if (err)
			goto out_words;
		if (hashed) {
			err = prefix_sum_bits_alloc(&bits, &hcount,
						    PREFIX_SUM_SHIFT);
			if (err)
				goto out_count;
		}
		if (fine) {
			err = prefix_sum_bits_alloc(&fbits, &fcount,
						    prefix_sum_fine_shift(c));
			if (err)
				goto out_hashed;
		}
		sum->count[c] = count;
		sum->hcount[c] = hcount;
		sum->fcount[c] = fcount;
		/* the words before any flag that sends a reader to them */
		smp_wmb();
		WRITE_ONCE(sum->fine[c], fbits);
		WRITE_ONCE(sum->hashed[c], bits);
	}
	if (head) {
		/* zeros, as those a reader sees until now */
		smp_wmb();
		WRITE_ONCE(sum->head, words);
	}
	return 0;

out_hashed:
	prefix_sum_bits_free(bits, hcount, PREFIX_SUM_SHIFT);
out_count:
	cuckoo_mem_free(count, PREFIX_SUM_COUNT_BYTES);
out_words:
	cuckoo_mem_free(words, PREFIX_SUM_HEAD_BYTES);
	return err;
}

/*
 * Counts a member of class @c (prepared; negative: none) about to be
 * published: call before any reader can see it.
 */
void prefix_sum_get(struct prefix_summary *sum, int c, const u8 *addr,
		    u32 len)
{
	if (c < 0)
		return;
	prefix_sum_update(sum, c, addr, len, true);
	/* the flag before the member's entries (see prefix_sum_head()) */
	smp_wmb();
}

/* Uncounts a member of class @c gone from every table a reader can reach. */
void prefix_sum_put(struct prefix_summary *sum, int c, const u8 *addr,
		    u32 len)
{
	if (c < 0)
		return;
	/* the member's entries gone before its flag goes */
	smp_wmb();
	prefix_sum_update(sum, c, addr, len, false);
}

/**
 * prefix_sum_name() - name a member of length 1..16 in the head words
 * @sum: the summary
 * @addr: the member's address
 * @len: its length, 1..16
 * @name: PREFIX_HEAD_NAME() of the member to name, or 0 for none
 * @insert: true: the member @name is new, and the /16s under it that name
 *	a shorter one name it instead; false: the /16s under it that name
 *	the member of length @len (it) name @name instead (its new tag, or
 *	the next best as it goes)
 */
void prefix_sum_name(struct prefix_summary *sum, const u8 *addr, u32 len,
		     u32 name, bool insert)
{
	u32 first = prefix_sum_slot(addr), k, h, best;

	for (k = first; k < first + (1U << (PREFIX_SUM_SHIFT - len)); k++) {
		h = sum->head[k];
		best = h & PREFIX_HEAD_BEST;
		if (insert ? best >= len + 1 : best != len + 1)
			continue;
		WRITE_ONCE(sum->head[k], (h & ~PREFIX_HEAD_NAMES) | name);
	}
}

/* Empties @sum once every member it counts is gone from the tables. */
void prefix_sum_reset(struct prefix_summary *sum)
{
	u32 k, c;

	/* the tables emptied before the flags go (see prefix_sum_put()) */
	smp_wmb();
	if (sum->head != prefix_sum_none)
		for (k = 0; k < PREFIX_SUM_KEYS; k++)
			WRITE_ONCE(sum->head[k], 0);
	for (c = 0; c < PREFIX_CLASSES; c++) {
		if (sum->count[c])
			memset(sum->count[c], 0, PREFIX_SUM_COUNT_BYTES);
		prefix_sum_bits_clear(sum->hashed[c], sum->hcount[c],
				      PREFIX_SUM_SHIFT);
		prefix_sum_bits_clear(sum->fine[c], sum->fcount[c],
				      prefix_sum_fine_shift(c));
	}
}

/* The bytes of class @c's counts and bits. */
u64 prefix_sum_class_bytes(const struct prefix_summary *sum, u32 c)
{
	return !!sum->count[c] * cuckoo_mem_footprint(PREFIX_SUM_COUNT_BYTES) +
	       prefix_sum_bits_bytes(sum->hashed[c], sum->hcount[c],
				     PREFIX_SUM_SHIFT) +
	       prefix_sum_bits_bytes(sum->fine[c], sum->fcount[c],
				     prefix_sum_fine_shift(c));
}

/* The bytes @sum has allocated. */
u64 prefix_sum_bytes(const struct prefix_summary *sum)
{
	u64 n = sum->head != prefix_sum_none ?
		cuckoo_mem_footprint(PREFIX_SUM_HEAD_BYTES) : 0;
	u32 c;

	for (c = 0; c < PREFIX_CLASSES; c++)
		n += prefix_sum_class_bytes(sum, c);
	return n;
}

void prefix_sum_free(struct prefix_summary *sum)
{
	u32 c;

	if (sum->head != prefix_sum_none)
		cuckoo_mem_free(sum->head, PREFIX_SUM_HEAD_BYTES);
	sum->head = prefix_sum_none;
	for (c = 0; c < PREFIX_CLASSES; c++) {
		cuckoo_mem_free(sum->count[c], PREFIX_SUM_COUNT_BYTES);
		prefix_sum_bits_free(sum->hashed[c], sum->hcount[c],
				     PREFIX_SUM_SHIFT);
		prefix_sum_bits_free(sum->fine[c], sum->fcount[c],
				     prefix_sum_fine_shift(c));
		sum->count[c] = NULL;
		sum->hcount[c] = NULL;
		sum->hashed[c] = NULL;
		sum->fcount[c] = NULL;
		sum->fine[c] = NULL;
	}
}
