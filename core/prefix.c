// SPDX-License-Identifier: GPL-2.0
/*
 * Prefix sets: addresses and CIDR prefixes of one family, matched by binary
 * search on prefix lengths over cuckoo filters (see prefix.h). The scheme,
 * and why a lookup finds every covering member: docs/design.md,
 * "Prefixes". What the code here and in prefix_read.c and prefix_write.c
 * keeps true:
 * - the tree of lengths is fixed: node m (1..W-1) has children
 *   m -/+ lowbit(m) / 2, and lo(m) = m - lowbit(m) is the left end of its
 *   subtree; a member of length l touches entries at l's ancestors only;
 * - an entry of length m names as best the longest member of a length in
 *   (lo(m), m] covering it (length + 1, 0: none) with its tag; one whose
 *   best is its own length is a member, the others markers;
 * - an entry's refs count the entries under it at the lengths whose lo()
 *   is m; each entry holds one on the entry at lo() of its length, and a
 *   marker goes with its last reference;
 * - insert: markers first, shortest first; then the member's entry; then
 *   the entries under it take it as best. Delete: the entries naming the
 *   member take their next best; then its entry; then its markers, longest
 *   first. So a member present throughout a lookup is found at every
 *   step, and no entry names a member that does not cover it;
 * - a length's bit in used[] is set before its first entry is published
 *   and cleared after its last one is gone;
 * - the summary (prefix_summary.h) answers before the tree, and a lookup it does
 *   not answer starts at the shortest subtree holding every member that
 *   may cover the address.
 */
#include "prefix_int.h"

/* Clears the bits of @a from @len on. */
static void prefix_mask(u8 *a, u32 alen, u32 len)
{
	u32 i;

	for (i = len / 8; i < alen; i++)
		a[i] &= i == len / 8 ? (u8)(0xff00 >> (len % 8)) : 0;
}

/**
 * prefix_set_get_stats() - report members, markers and memory
 * @s: the set
 * @st: filled in
 *
 * Writer side.
 */
void prefix_set_get_stats(const struct prefix_set *s, struct prefix_stats *st)
{
	struct cuckoo_stats cs;
	u32 m;

	memset(st, 0, sizeof(*st));
	cuckoo_get_stats(s->addrs, &st->addrs);
	st->prefixes = s->nprefixes;
	/* the /0 member is a flag, not an entry */
	st->markers = s->entries - (s->nprefixes - s->hist[0]);
	/*
	 * The address table, then one per level of the tree of lengths from
	 * where a search starts: the root (IPv6), or that of /17../31.
	 */
	for (st->probes = 1, m = s->bits > 32 ? s->bits : PREFIX_SUM_SHIFT;
	     m > 1; m /= 2)
		st->probes++;
	st->memory_bytes = cuckoo_mem_footprint(sizeof(*s)) +
			   st->addrs.memory_bytes;
	st->memory_bytes += prefix_sum_bytes(&s->sum);
	for (m = 0; m < s->bits; m++) {
		if (s->hist[m])
			st->lengths++;
		if (m && prefix_wtab(s, m)) {
			cuckoo_get_stats(prefix_wtab(s, m), &cs);
			st->memory_bytes += cs.memory_bytes +
					    sorted_bytes(&s->idx[m]);
		}
	}
}

/*
 * Writer side: prefix_set_match() misses with no probe but those its head
 * word's flags send it to unless the word names a member up to /16, or a
 * /0 member is held.
 */
bool prefix_set_slot_unhashed(const struct prefix_set *s, u32 slot)
{
	return (s->sum.head[slot] & PREFIX_HEAD_BEST) || s->zero;
}

/* Writer side: the head word's flag of class @c for /16 @slot. */
bool prefix_set_slot_class(const struct prefix_set *s, u32 slot, u32 c)
{
	return s->sum.head[slot] & PREFIX_HEAD_FLAG(c);
}

/* Writer side: word @w of class @c's hashed bits; 0 while it has none. */
u32 prefix_set_class_word(const struct prefix_set *s, u32 c, u32 w)
{
	return s->sum.hashed[c] ? s->sum.hashed[c][w] : 0;
}

/**
 * prefix_set_member_words() - where a member's hashed bits lie
 * @s:    the set
 * @addr: a prefix longer than /16 and shorter than an address, present or
 *        just gone
 * @len:  its length
 * @c:    out: its class (prefix_summary.h)
 * @w:    out: the words of @c's hashed bits its blocks set, some maybe
 *        more than once: PREFIX_SUM_BLOCKS_MAX at most
 *
 * Writer side.
 *
 * Return: how many words; 0 for a member whose class hashes nothing.
 */
u32 prefix_set_member_words(const struct prefix_set *s, const u8 *addr,
			    u32 len, u32 *c, u32 *w)
{
	int cl = prefix_class(s, len);
	u32 n, i, v;

	if (cl < 0 || cl == PREFIX_CLASS_ADDRS)
		return 0;
	*c = cl;
	v = prefix_sum_block(cl, addr);
	n = prefix_sum_blocks(cl, len);
	for (i = 0; i < n; i++)
		w[i] = prefix_sum_hash(v + i) / 32;
	return n;
}

bool prefix_set_always(const struct prefix_set *s)
{
	return s->zero || (s->naddrs && !s->addrs_known);
}

/* Writer side: a compact table's addresses are not counted: any /16 may. */
bool prefix_set_slot_addrs(const struct prefix_set *s, u32 slot)
{
	return (s->sum.head[slot] & PREFIX_HEAD_ADDRS) ||
	       (s->naddrs && !s->addrs_known);
}

/**
 * prefix_set_addrs() - the address table
 * @s: the set
 *
 * For raw dumps of a compact table. Writer side.
 *
 * Return: the table of full-length members.
 */
struct cuckoo *prefix_set_addrs(struct prefix_set *s)
{
	return s->addrs;
}

/**
 * prefix_params_check() - check set parameters without allocating
 * @p: the parameters
 *
 * Return: 0, or -EINVAL if addr_len is not 4 or 16, the address table's
 * key_len is not addr_len, or its parameters fail cuckoo_params_check().
 */
int prefix_params_check(const struct prefix_params *p)
{
	if ((p->addr_len != 4 && p->addr_len != 16) ||
	    p->addrs.key_len != p->addr_len)
		return -EINVAL;
	return cuckoo_params_check(&p->addrs);
}

/*
 * The largest max_capacity an exact table of @key_len bytes may have, at
 * most @want: the core refuses tables whose arrays would pass 1 GiB.
 */
static u64 prefix_table_limit(u64 want, u32 key_len, u64 seed)
{
	struct cuckoo_params p = {
		.capacity = 1,
		.max_capacity = want,
		.seed = seed,
		.fp_bits = PREFIX_FP_BITS,
		.key_len = key_len,
		.exact = true,
		.values = true,
	};

	return cuckoo_max_capacity(&p);
}

/**
 * prefix_set_create() - allocate an empty set
 * @p: the parameters (see prefix_params_check())
 *
 * Each length table may grow to the address table's max_capacity (or
 * capacity) entries, less if the core's size limits for its key length
 * say so. An exact address table carries its members' tags. May sleep.
 *
 * Return: the set, or NULL on bad parameters or no memory.
 */
struct prefix_set *prefix_set_create(const struct prefix_params *p)
{
	u64 cap = p->addrs.max_capacity ? p->addrs.max_capacity :
		  p->addrs.capacity;
	struct cuckoo_params addrs;
	struct prefix_set *s;
	u8 mask[16];
	u32 w, m;

	if (prefix_params_check(p))
		return NULL;
	static_assert(offsetof(struct prefix_set, sum) == 0);
	s = cuckoo_mem_zalloc(sizeof(*s));
	if (IS_ERR(s))
		return NULL;
	prefix_sum_init(&s->sum);
	s->addr_len = p->addr_len;
	s->bits = 8 * p->addr_len;
	s->addrs_known = p->addrs.exact;
	s->seed = p->addrs.seed ^ PREFIX_SEED_LENGTHS;
	for (w = 1; w <= s->addr_len / 4; w++)
		s->tab_max[w] = prefix_table_limit(cap, 4 * w, s->seed);
	for (m = 1; m < s->bits; m++) {
		memset(mask, 0xff, sizeof(mask));
		prefix_mask(mask, s->addr_len, m);
		memcpy(s->mask[m], mask, sizeof(s->mask[m]));
		sorted_init(&s->idx[m], 4 * prefix_words(m));
	}
	addrs = p->addrs;
	addrs.values = addrs.exact;
	s->addrs = cuckoo_create(&addrs);
	if (!s->addrs) {
		cuckoo_mem_free(s, sizeof(*s));
		return NULL;
	}
	return s;
}

/**
 * prefix_set_destroy() - free a set
 * @s: the set, or NULL
 *
 * No reader may still use it.
 */
void prefix_set_destroy(struct prefix_set *s)
{
	u32 m;

	if (!s)
		return;
	for (m = 1; m < s->bits; m++) {
		cuckoo_destroy(prefix_wtab(s, m));
		sorted_free(&s->idx[m]);
	}
	cuckoo_destroy(s->addrs);
	prefix_sum_free(&s->sum);
	cuckoo_mem_free(s, sizeof(*s));
}
