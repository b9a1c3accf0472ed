// SPDX-License-Identifier: GPL-2.0
/*
 * Prefix sets: addresses and CIDR prefixes of one family, matched by binary
 * search on prefix lengths over cuckoo filters (see prefix.h).
 *
 * Why this scheme: controlled prefix expansion stores 2^(T - l) entries for
 * a prefix of length l expanded to target T, and real IPv6 feeds, with a
 * hundred distinct lengths, need more entries than any memory holds. A
 * search over the lengths needs at most one marker per member and level,
 * and in practice less than one per member (bench/lengths-results.txt).
 * The tree of lengths is fixed rather than shaped by the lengths present:
 * a member of length l then only ever touches entries at the tree's
 * ancestors of l, so that an update is a few table operations and never a
 * rebuild, and a lookup's probes are bounded by the tree's depth.
 *
 * The tree: node m (1..W-1) has children m -/+ lowbit(m) / 2, and
 * lo(m) = m - lowbit(m), m's nearest shorter ancestor (0: none), is the
 * left end of m's subtree. A lookup that reaches m went right at lo(m),
 * on an entry that answered for the lengths up to lo(m).
 *
 * Entries. The entry of length m for an address is the address masked to
 * m, kept in the table of length m, with a u32 value:
 * - best: the longest member of a length in (lo(m), m] that covers the
 *   entry, as length + 1 (0: none), and its tag. An entry whose best is its
 *   own length is a member; the others are markers.
 * - refs: how many entries exist under it at the lengths whose lo() is m.
 *   A member of length q needs an entry (marker or member) at every
 *   shorter ancestor lo(q), lo(lo(q)), ... for lookups to reach q; each
 *   entry holds one reference on the entry under it at lo() of its length,
 *   so a marker goes when the last entry that needs it goes.
 *
 * Why a lookup finds a member Q of length q covering address A: at each
 * node m it reaches, q lies in m's subtree (true at the root). If q == m,
 * Q's own entry answers. If q < m, an entry at m for A names a best (Q
 * itself is a candidate: q > lo(m)) and answers, or there is none and the
 * lookup goes left, towards q. If q > m, m is an ancestor shorter than q,
 * so Q's marker is there: the lookup answers from it or goes right. Any
 * entry that names a best answers at once: every member blocks (the allow
 * list is a separate set), so the first covering member found will do.
 *
 * Update order, so that a member present throughout a lookup is found at
 * every step, and no entry ever names a member that is not covering:
 * - insert: the missing markers first, shortest first, each naming its
 *   best; then the member's entry (or a marker there becomes the member);
 *   then the entries under the member at the longer ancestors of its
 *   length take it as their best where it is longer than theirs;
 * - delete: the entries naming the member take their next best first; then
 *   the member's entry goes (or stays as a marker, if entries under it
 *   need it); then the markers that only it needed, longest first.
 * A table's bit in used[] is set before its first entry is published and
 * cleared after its last one is gone: a clear bit spares the probe.
 *
 * The summary (summary.h) comes before the tree: each /16's head word names
 * the longest member up to /16 covering it, which answers with no probe,
 * and says which longer members lie in it. A lookup it does not answer
 * starts the search at the shortest subtree that holds every member that
 * may cover the address: /17../31 (rooted at 24), /1../63 (at 32, IPv6:
 * a member of /32 to /63 may cover it), or all (IPv6, /64 or longer). A
 * node a lookup skips is one where the search from the root would have
 * gone left for want of an entry, as no member under it may cover.
 * Geo sets put most of their addresses under short prefixes, so their
 * hits mostly cost no probe, and an IPv6 miss in a /16 where no prefix
 * lies costs one load.
 *
 * The writer keeps each table's keys in order as well (ordered.c): the
 * entries under a member at a longer length are a run of that order,
 * found in O(log n) where the hash table offers only a probe per possible
 * entry (2^(m - l) of them) or a walk of every slot.
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
					    ordered_bytes(&s->idx[m]);
		}
	}
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
 * prefix_set_replace_addrs() - install another address table
 * @s: a set no reader can reach yet (a staged set being restored)
 * @addrs: the new table, made with the parameters @s was created with
 *
 * Counts its members, so that lookups do not skip it, and renumbers list
 * positions. Writer side.
 *
 * Return: the table replaced, for the caller to destroy.
 */
struct cuckoo *prefix_set_replace_addrs(struct prefix_set *s,
					struct cuckoo *addrs)
{
	struct cuckoo *old = s->addrs;
	struct cuckoo_stats st;

	cuckoo_get_stats(addrs, &st);
	s->addrs = addrs;
	/*
	 * Its addresses are unknown (compact: fingerprints), so no summary
	 * counts addresses any more and readers probe the table whenever it
	 * is not empty. Counts left by earlier addresses only keep bits set.
	 */
	s->addrs_known = false;
	s->naddrs = st.count;
	WRITE_ONCE(s->addrs_any, st.count > 0);
	prefix_always(s, false);
	/* The new table's generation starts again from 0. */
	s->list_gen += cuckoo_list_gen(old) + 1;
	return old;
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
		ordered_init(&s->idx[m], 4 * prefix_words(m));
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
		ordered_free(&s->idx[m]);
	}
	cuckoo_destroy(s->addrs);
	prefix_sum_free(&s->sum);
	cuckoo_mem_free(s, sizeof(*s));
}
