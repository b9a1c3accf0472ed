/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of a prefix set share: struct prefix_set, the values of
 * its entries, and the helpers every side uses. The design, and the order
 * of updates that keeps lookups right, are at the top of prefix.c.
 */
#ifndef CFILTER_PREFIX_INT_H
#define CFILTER_PREFIX_INT_H

#include "prefix.h"
#include "sorted.h"
#include "prefix_summary.h"

/* Fingerprint width of the exact tables: a false match costs a key compare. */
#define PREFIX_FP_BITS		16
/* The nodes of the tree of lengths whose subtrees are /17../31, /1../63. */
#define PREFIX_MID_ROOT		24
#define PREFIX_DEEP_ROOT	32
/* First capacity of a length table. */
#define PREFIX_TABLE_START	64
#define PREFIX_BITS_MAX		128
/* A listed entry: the key (words of address), then its value. */
#define PREFIX_REC_MAX		(16 + 4)
#define PREFIX_LIST_CHUNK	8
/* Walking this many candidates may be followed by a resched. */
#define PREFIX_RESCHED_MASK	0xfff
/* List positions in the length tables: the length, then the table's. */
#define PREFIX_LIST_LEN_SHIFT	40

/* Hash keys of the length tables, from the set's seed. */
#define PREFIX_SEED_LENGTHS	0x13198a2e03707344ULL
#define PREFIX_SEED_MIX		0x243f6a8885a308d3ULL

/* An entry's value: the tag, the best (length + 1, 0: none), the refs. */
#define PREFIX_BEST_SHIFT	PREFIX_TAG_BITS
#define PREFIX_REFS_SHIFT	(PREFIX_BEST_SHIFT + 8)
#define PREFIX_REFS_MAX		((1U << (32 - PREFIX_REFS_SHIFT)) - 1)
#define PREFIX_REF		(1U << PREFIX_REFS_SHIFT)
#define PREFIX_TAG(v)		((v) & ((1U << PREFIX_TAG_BITS) - 1))
#define PREFIX_BEST(v)		((v) >> PREFIX_BEST_SHIFT & 0xff)
#define PREFIX_REFS(v)		((v) >> PREFIX_REFS_SHIFT)
#define PREFIX_VAL(best, tag, refs)					\
	((u32)(refs) << PREFIX_REFS_SHIFT | (u32)(best) << PREFIX_BEST_SHIFT | \
	 (tag))

/**
 * struct prefix_set - addresses, and prefixes searched by length
 * @sum: the summary: each /16's best member up to /16 and which longer
 *	members lie in it. First: prefix_set_match() reads it inline
 * @addrs: full-length members; never replaced (cleared in place)
 * @addrs_any: @addrs has members: lets a reader skip an empty table
 * @addrs_known: the address table keeps its keys (exact mode, and no
 *	compact table restored into it): its members are counted in
 *	@sum and carry tags; else a reader probes it regardless
 * @addr_len: bytes per address
 * @bits: 8 * @addr_len
 * @zero: a /0 member: its tag + 1 (0: none)
 * @used: bit m: the table of length m has entries
 * @tab: the table of each length 1..@bits - 1, made at its first entry
 * @mask: the words of an address kept at each length
 * @naddrs: members in @addrs
 * @nprefixes: prefix members, /0 included
 * @tab_max: max_capacity of a length table, by its words (1..4)
 * @seed: hash key of the length tables
 * @count: entries in each table
 * @idx: each table's keys in order, to find the entries under a prefix
 * @hist: members of each length
 * @entries: entries in all the length tables, members and markers
 * @list_gen: cuckoo_list_gen() of the tables cleared away, plus one each
 * @dead: tables being cleared away, until no reader can see them
 *
 * Readers use the fields up to @mask, which change only through
 * WRITE_ONCE() and rcu_assign_pointer() (@addrs_known only while no reader
 * can see the set), and only when an answer may change: not on every
 * insert, so that a writer does not take their cache lines from readers
 * on another CPU. The rest is the writer's, which the caller serialises.
 */
struct prefix_set {
	struct prefix_summary sum;	/* first: see prefix_set_match() */
	struct cuckoo *addrs;
	bool addrs_any;
	bool addrs_known;
	u32 addr_len;
	u32 bits;
	u32 zero;
	u64 used[2];
	struct cuckoo __rcu *tab[PREFIX_BITS_MAX];
	u32 mask[PREFIX_BITS_MAX][4];

	____cacheline_aligned u64 naddrs;
	u64 nprefixes;
	u64 tab_max[5];
	u64 seed;
	u64 count[PREFIX_BITS_MAX];
	struct sorted idx[PREFIX_BITS_MAX];
	u64 hist[PREFIX_BITS_MAX];
	u64 entries;
	u64 list_gen;
	struct cuckoo *dead[PREFIX_BITS_MAX];
};

/* The lowest set bit of @m: the half-width of node @m's subtree. */
static __always_inline u32 prefix_lowbit(u32 m)
{
	return m & (0U - m);
}

/* @m's nearest shorter ancestor in the tree of lengths; 0 if none. */
static inline u32 prefix_lo(u32 m)
{
	return m - prefix_lowbit(m);
}

/* u32 words of address that a table of @len bits keeps (at least one). */
static __always_inline u32 prefix_words(u32 len)
{
	return len > 32 ? (len + 31) / 32 : 1;
}

static inline struct cuckoo *prefix_wtab(const struct prefix_set *s, u32 m)
{
	return rcu_dereference_protected(s->tab[m], true);
}

/* Are the bits of @a from @len on all zero? */
static inline bool prefix_host_bits_zero(const u8 *a, u32 alen, u32 len)
{
	u32 i;

	for (i = len / 8; i < alen; i++)
		if (a[i] & (i == len / 8 ? 0xff >> (len % 8) : 0xff))
			return false;
	return true;
}

/* 0 if (@addr, @len) can be a member of @s; else -EINVAL. */
static inline int prefix_check(const struct prefix_set *s, const u8 *addr,
			       u32 len)
{
	if (len > s->bits || !prefix_host_bits_zero(addr, s->addr_len, len))
		return -EINVAL;
	return 0;
}

/* The key of @addr's entry of length @m: its words masked to @m. */
static __always_inline void prefix_key(const struct prefix_set *s, u32 m,
				       const u8 *addr, u32 *key)
{
	u32 w;

	for (w = 0; w < prefix_words(m); w++)
		key[w] = get_unaligned((const u32 *)addr + w) & s->mask[m][w];
}

/*
 * The summary class that counts a member of length @len; -1 if none does:
 * members up to /16 are named in the head words instead, and a compact
 * address table's addresses are unknown.
 */
static inline int prefix_class(const struct prefix_set *s, u32 len)
{
	if (len <= PREFIX_SUM_SHIFT)
		return -1;
	if (len == s->bits)
		return s->addrs_known ? PREFIX_CLASS_ADDRS : -1;
	if (len < 32)
		return PREFIX_CLASS_MID;
	return len < 64 ? PREFIX_CLASS_DEEP : PREFIX_CLASS_SUBNET;
}

#endif /* CFILTER_PREFIX_INT_H */
