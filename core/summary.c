// SPDX-License-Identifier: GPL-2.0
/*
 * A prefix set's summaries (see summary.h): a bit per /16 (IPv4) or hashed
 * /32 (IPv6), counted per key by the writer.
 *
 * Invariant: a summary's count[k] counts its members that intersect key k
 * (IPv6 prefixes shorter than /16 in its all instead), and its bit k is set
 * iff count[k] is nonzero, except briefly: a bit is set before the member's
 * entries are published (prefix_sum_get()) and cleared after they are gone
 * (prefix_sum_put(), prefix_sum_reset()), so a reader finding a bit clear
 * could not have found a member there.
 */
#include "summary.h"

/*
 * Counts (@addr, @len) in (@add) or out of the summary: every summary key
 * it intersects, or its all. A bit goes up with its first member and down
 * with its last.
 */
static void prefix_sum_update(struct prefix_summary *sum, u32 alen,
			      const u8 *addr, u32 len, bool add)
{
	u32 slen = alen == 4 ? 16 : 32, v = 0, i, k, *word;
	u64 j, n = 1;

	if (len < slen && slen - len > PREFIX_SUM_SHIFT) {
		WRITE_ONCE(sum->all, sum->all + (add ? 1 : -1));
		return;
	}
	for (i = 0; i < slen / 8; i++)
		v = v << 8 | addr[i];
	if (len < slen)
		n = 1ULL << (slen - len);
	/* the bits of @v beyond @len are zero: v + j walks the prefix */
	for (j = 0; j < n; j++) {
		k = prefix_sum_key(alen, v + (u32)j);
		word = &sum->bits[k / 32];
		if (add && !sum->count[k]++)
			WRITE_ONCE(*word, *word | 1U << (k % 32));
		else if (!add && !--sum->count[k])
			WRITE_ONCE(*word, *word & ~(1U << (k % 32)));
	}
}

/* Allocates @sum's counts: 0, -EDQUOT or -ENOMEM, nothing changed. */
int prefix_sum_prepare(struct prefix_summary *sum)
{
	u32 *count;

	if (!sum || sum->count)
		return 0;
	count = cuckoo_mem_zalloc(PREFIX_SUM_COUNT_BYTES);
	if (IS_ERR(count))
		return PTR_ERR(count);
	sum->count = count;
	return 0;
}

/* Counts a member about to be published: call before any reader can see it. */
void prefix_sum_get(struct prefix_summary *sum, u32 alen, const u8 *addr,
		    u32 len)
{
	if (!sum)
		return;
	prefix_sum_update(sum, alen, addr, len, true);
	/* the bits before the member's entries (see prefix_sum_maybe()) */
	smp_wmb();
}

/* Uncounts a member gone from every table a reader can reach. */
void prefix_sum_put(struct prefix_summary *sum, u32 alen, const u8 *addr,
		    u32 len)
{
	if (!sum)
		return;
	/* the member's entries gone before its bits go */
	smp_wmb();
	prefix_sum_update(sum, alen, addr, len, false);
}

/* Empties @sum once every member it counts is gone. */
void prefix_sum_reset(struct prefix_summary *sum)
{
	u32 i;

	/* the tables emptied before the bits go (see prefix_sum_put()) */
	smp_wmb();
	for (i = 0; i < PREFIX_SUM_WORDS; i++)
		WRITE_ONCE(sum->bits[i], 0);
	WRITE_ONCE(sum->all, 0);
	if (sum->count)
		memset(sum->count, 0, PREFIX_SUM_KEYS * sizeof(*sum->count));
}

/* The bytes of @sum's counts (its bitmap is in the set). */
u64 prefix_sum_bytes(const struct prefix_summary *sum)
{
	return sum->count ? PREFIX_SUM_COUNT_BYTES : 0;
}

void prefix_sum_free(struct prefix_summary *sum)
{
	cuckoo_mem_free(sum->count, PREFIX_SUM_COUNT_BYTES);
	sum->count = NULL;
}
