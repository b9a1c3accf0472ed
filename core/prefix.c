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
#include "prefix.h"
#include "ordered.h"
#include "summary.h"

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
	struct ordered idx[PREFIX_BITS_MAX];
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
static u32 prefix_lo(u32 m)
{
	return m - prefix_lowbit(m);
}

/* u32 words of address that a table of @len bits keeps (at least one). */
static __always_inline u32 prefix_words(u32 len)
{
	return len > 32 ? (len + 31) / 32 : 1;
}

static struct cuckoo *prefix_wtab(const struct prefix_set *s, u32 m)
{
	return rcu_dereference_protected(s->tab[m], true);
}

/* Clears the bits of @a from @len on. */
static void prefix_mask(u8 *a, u32 alen, u32 len)
{
	u32 i;

	for (i = len / 8; i < alen; i++)
		a[i] &= i == len / 8 ? (u8)(0xff00 >> (len % 8)) : 0;
}

/* Are the bits of @a from @len on all zero? */
static bool prefix_host_bits_zero(const u8 *a, u32 alen, u32 len)
{
	u32 i;

	for (i = len / 8; i < alen; i++)
		if (a[i] & (i == len / 8 ? 0xff >> (len % 8) : 0xff))
			return false;
	return true;
}

/* Do the first @len bits of @a and @b agree? */
static bool prefix_same_bits(const u8 *a, const u8 *b, u32 len)
{
	if (memcmp(a, b, len / 8))
		return false;
	return !(len % 8) || !((a[len / 8] ^ b[len / 8]) & (0xff00 >> (len % 8)));
}

static int prefix_check(const struct prefix_set *s, const u8 *addr, u32 len)
{
	if (len > s->bits || !prefix_host_bits_zero(addr, s->addr_len, len))
		return -EINVAL;
	return 0;
}

/*
 * The summary class that counts a member of length @len; -1 if none does:
 * members up to /16 are named in the head words instead, and a compact
 * address table's addresses are unknown.
 */
static int prefix_class(const struct prefix_set *s, u32 len)
{
	if (len <= PREFIX_SUM_SHIFT)
		return -1;
	if (len == s->bits)
		return s->addrs_known ? PREFIX_CLASS_ADDRS : -1;
	if (len < 32)
		return PREFIX_CLASS_MID;
	return len < 64 ? PREFIX_CLASS_DEEP : PREFIX_CLASS_SUBNET;
}

/* The key of @addr's entry of length @m: its words masked to @m. */
static __always_inline void prefix_key(const struct prefix_set *s, u32 m,
				       const u8 *addr, u32 *key)
{
	u32 w;

	for (w = 0; w < prefix_words(m); w++)
		key[w] = get_unaligned((const u32 *)addr + w) & s->mask[m][w];
}

/* Writer side: @addr's entry of length @m, its value into *@val. */
static int prefix_get(const struct prefix_set *s, u32 m, const u8 *addr,
		      u32 *val)
{
	u32 key[4];

	if (!s->count[m])
		return -ENOENT;
	prefix_key(s, m, addr, key);
	return cuckoo_get_val(prefix_wtab(s, m), key, val);
}

/* Gives @addr's entry of length @m, which exists, the value @val. */
static void prefix_put(const struct prefix_set *s, u32 m, const u8 *addr,
		       u32 val)
{
	u32 key[4];

	prefix_key(s, m, addr, key);
	WARN_ON_ONCE(cuckoo_set_val(prefix_wtab(s, m), key, val));
}

/* The table of length @m, made if it does not exist yet. */
static int prefix_tab_make(struct prefix_set *s, u32 m)
{
	struct cuckoo_params p = {
		.capacity = PREFIX_TABLE_START,
		.max_capacity = s->tab_max[prefix_words(m)],
		.seed = s->seed ^ (u64)m * PREFIX_SEED_MIX,
		.fp_bits = PREFIX_FP_BITS,
		.key_len = 4 * prefix_words(m),
		.exact = true,
		.values = true,
	};
	struct cuckoo *t;

	if (prefix_wtab(s, m))
		return 0;
	if (p.capacity > p.max_capacity)
		p.capacity = p.max_capacity;
	t = cuckoo_create(&p);
	if (!t)
		return -ENOMEM;
	rcu_assign_pointer(s->tab[m], t);
	return 0;
}

/* Adds @addr's entry of length @m: 0, or an error with nothing changed. */
static int prefix_add(struct prefix_set *s, u32 m, const u8 *addr, u32 val)
{
	u64 *used = &s->used[m / 64], bit = BIT_ULL(m % 64);
	u32 key[4];
	int err = prefix_tab_make(s, m);

	if (err)
		return err;
	if (!s->count[m]) {
		WRITE_ONCE(*used, *used | bit);
		/* the bit before the entry (see prefix_set_match()) */
		smp_wmb();
	}
	prefix_key(s, m, addr, key);
	err = ordered_insert(&s->idx[m], key);
	if (!err) {
		err = cuckoo_insert_val(prefix_wtab(s, m), key, val);
		if (err)
			ordered_delete(&s->idx[m], key);
	}
	if (err) {
		if (!s->count[m])
			WRITE_ONCE(*used, *used & ~bit);
		return err;
	}
	s->count[m]++;
	s->entries++;
	return 0;
}

/* Removes @addr's entry of length @m, which exists. */
static void prefix_del(struct prefix_set *s, u32 m, const u8 *addr)
{
	u64 *used = &s->used[m / 64];
	u32 key[4];

	prefix_key(s, m, addr, key);
	WARN_ON_ONCE(cuckoo_delete(prefix_wtab(s, m), key));
	WARN_ON_ONCE(!ordered_delete(&s->idx[m], key));
	s->entries--;
	if (!--s->count[m]) {
		/* the last entry gone before the bit goes */
		smp_wmb();
		WRITE_ONCE(*used, *used & ~BIT_ULL(m % 64));
	}
}

/*
 * Keeps the summary's always word (summary.h): on while a /0 member or
 * uncounted (compact) addresses exist, or @coming (one is about to be
 * published); off only once they are gone.
 */
static void prefix_always(struct prefix_set *s, bool coming)
{
	u32 on = coming || s->zero || (s->naddrs && !s->addrs_known);

	if (on == s->sum.always)
		return;
	/* off: after the member is gone */
	smp_wmb();
	WRITE_ONCE(s->sum.always, on);
	/* on: before the member is published */
	smp_wmb();
}

/* Writer side: is (@addr masked to @l, @l) a member? Its tag into *@tag. */
static bool prefix_member(const struct prefix_set *s, const u8 *addr, u32 l,
			  u32 *tag)
{
	u32 v;

	if (!l) {
		*tag = s->zero - 1;
		return s->zero;
	}
	if (!s->hist[l] || prefix_get(s, l, addr, &v) ||
	    PREFIX_BEST(v) != l + 1)
		return false;
	*tag = PREFIX_TAG(v);
	return true;
}

/*
 * The longest member of a length in (@lo, @hi], other than @except, that
 * covers @addr: its length + 1, its tag into *@tag; 0 if there is none.
 */
static u32 prefix_longest(const struct prefix_set *s, const u8 *addr, u32 lo,
			  u32 hi, u32 except, u32 *tag)
{
	u32 l;

	for (l = hi; l > lo; l--)
		if (l != except && prefix_member(s, addr, l, tag))
			return l + 1;
	return 0;
}

/*
 * The best of @addr's entry of length @m: the longest member of a length
 * in (lo(@m), @m], other than @except, that covers @addr, as a value with
 * no refs; 0 if there is none.
 */
static u32 prefix_best(const struct prefix_set *s, const u8 *addr, u32 m,
		       u32 except)
{
	u32 tag, best = prefix_longest(s, addr, prefix_lo(m), m, except, &tag);

	return best ? PREFIX_VAL(best, tag, 0) : 0;
}

/* What the entries under a member do as it comes, goes or is retagged. */
enum prefix_op {
	PREFIX_OP_INSERT,
	PREFIX_OP_DELETE,
	PREFIX_OP_RETAG,
};

/*
 * Entry @e of length @m, value @v, lies under the member of length @l
 * being inserted, deleted or retagged (@tag): name it as its best where it
 * is the longest member covering @e, or stop naming it.
 */
static void prefix_rename_one(struct prefix_set *s, u32 m, const u8 *e,
			      u32 v, u32 l, u32 tag, enum prefix_op op)
{
	u32 refs = PREFIX_REFS(v) << PREFIX_REFS_SHIFT;

	if (op == PREFIX_OP_INSERT ? PREFIX_BEST(v) >= l + 1 :
				     PREFIX_BEST(v) != l + 1)
		return;
	if (op == PREFIX_OP_DELETE)
		prefix_put(s, m, e, refs | prefix_best(s, e, m, l));
	else
		prefix_put(s, m, e, refs | PREFIX_VAL(l + 1, tag, 0));
}

/*
 * Applies @op to every entry of length @m under the member (@addr, @l),
 * found in order from the first key under it. A value set in place
 * changes neither the table's layout nor its index.
 */
static void prefix_rename(struct prefix_set *s, u32 m, const u8 *addr,
			  u32 l, u32 tag, enum prefix_op op)
{
	struct ordered_pos pos;
	const u8 *key;
	u32 e[4] = { 0 }, v;
	u64 j = 0;

	prefix_key(s, m, addr, e);
	for (key = ordered_seek(&s->idx[m], e, &pos);
	     key && prefix_same_bits(key, addr, l);
	     key = ordered_next(&s->idx[m], &pos)) {
		if (!(++j & PREFIX_RESCHED_MASK))
			cond_resched();
		memcpy(e, key, 4 * prefix_words(m));
		WARN_ON_ONCE(prefix_get(s, m, (const u8 *)e, &v));
		prefix_rename_one(s, m, (const u8 *)e, v, l, tag, op);
	}
}

/* Applies @op at every longer ancestor of @l: the entries that may name it. */
static void prefix_rename_all(struct prefix_set *s, const u8 *addr, u32 l,
			      u32 tag, enum prefix_op op)
{
	u32 m = s->bits / 2;

	while (m != l) {
		if (m > l) {
			prefix_rename(s, m, addr, l, tag, op);
			m -= prefix_lowbit(m) / 2;
		} else {
			m += prefix_lowbit(m) / 2;
		}
	}
}

/*
 * Makes @addr's entry of length @l the member @val (a value with no refs):
 * a marker there becomes it; else the entry is added with the markers
 * its path lacks, shortest first, each naming its best, and the entry
 * they hang from takes a reference. 0, or an error with nothing changed.
 */
static int prefix_enter(struct prefix_set *s, const u8 *addr, u32 l, u32 val)
{
	u32 chain[8], n = 0, m, v = 0, i, nv;
	int err;

	if (!prefix_get(s, l, addr, &v)) {
		prefix_put(s, l, addr, (v & ~(PREFIX_REF - 1)) | val);
		return 0;
	}
	for (m = l; m; m = prefix_lo(m)) {
		if (m != l && !prefix_get(s, m, addr, &v))
			break;
		chain[n++] = m;
	}
	if (m && PREFIX_REFS(v) == PREFIX_REFS_MAX)
		return -ENOSPC;
	for (i = n; i-- > 0;) {
		nv = i ? prefix_best(s, addr, chain[i], 0) | PREFIX_REF : val;
		err = prefix_add(s, chain[i], addr, nv);
		if (err) {
			while (++i < n)
				prefix_del(s, chain[i], addr);
			return err;
		}
	}
	if (m)
		prefix_put(s, m, addr, v + PREFIX_REF);
	return 0;
}

/*
 * Takes the member out of @addr's entry of length @l: the entry stays as a
 * marker naming its next best if entries under it need it; else it goes,
 * with the markers under it that only it needed, longest first.
 */
static void prefix_leave(struct prefix_set *s, const u8 *addr, u32 l)
{
	u32 v = 0, m;

	WARN_ON_ONCE(prefix_get(s, l, addr, &v));
	if (PREFIX_REFS(v)) {
		prefix_put(s, l, addr, (v & ~(PREFIX_REF - 1)) |
				       prefix_best(s, addr, l, l));
		return;
	}
	prefix_del(s, l, addr);
	for (m = prefix_lo(l); m; m = prefix_lo(m)) {
		WARN_ON_ONCE(prefix_get(s, m, addr, &v));
		if (PREFIX_REFS(v) > 1 || PREFIX_BEST(v) == m + 1) {
			prefix_put(s, m, addr, v - PREFIX_REF);
			return;
		}
		prefix_del(s, m, addr);
	}
}

/*
 * The head words' name for the /16s under the member (@addr, @len) as it
 * goes: the longest member strictly covering it, up to /15 (0: none).
 */
static u32 prefix_head_next(const struct prefix_set *s, const u8 *addr,
			    u32 len)
{
	u32 tag, best = prefix_longest(s, addr, 0, len - 1, len, &tag);

	return best ? PREFIX_HEAD_NAME(best - 1, tag) : 0;
}

/**
 * prefix_set_insert() - add an address or a prefix
 * @s: the set
 * @addr: addr_len bytes, network order, zero beyond @len
 * @len: prefix length, 0 to 8 * addr_len (full: an address)
 * @tag: the member's tag, below 1 << PREFIX_TAG_BITS
 *
 * A prefix gets its entry in the table of its length, the markers its path
 * lacks, and becomes the best of the entries under it that it covers
 * longest. The caller serialises writers; may sleep.
 *
 * Return: 0; -EINVAL (bad length, host bits set, or tag too large);
 * -EEXIST (present); -ENOSPC, -EDQUOT or -ENOMEM (a table is full or could
 * not grow). On error the set is as it was.
 */
int prefix_set_insert(struct prefix_set *s, const u8 *addr, u32 len, u32 tag)
{
	int err = prefix_check(s, addr, len), c = prefix_class(s, len);

	if (err)
		return err;
	if (tag >> PREFIX_TAG_BITS)
		return -EINVAL;
	err = prefix_sum_prepare(&s->sum, s->addr_len, c, len);
	if (err)
		return err;
	if (len == s->bits) {
		prefix_always(s, !s->addrs_known);
		prefix_sum_get(&s->sum, c, addr, len);
		err = cuckoo_insert_val(s->addrs, addr, tag);
		if (!err && !s->naddrs++)
			WRITE_ONCE(s->addrs_any, true);
		else if (err)
			prefix_sum_put(&s->sum, c, addr, len);
		prefix_always(s, false);
		return err;
	}
	if (prefix_member(s, addr, len, &(u32){ 0 }))
		return -EEXIST;
	prefix_sum_get(&s->sum, c, addr, len);
	if (!len) {
		prefix_always(s, true);
		WRITE_ONCE(s->zero, tag + 1);
	} else {
		err = prefix_enter(s, addr, len, PREFIX_VAL(len + 1, tag, 0));
		if (err) {
			prefix_sum_put(&s->sum, c, addr, len);
			return err;
		}
		prefix_rename_all(s, addr, len, tag, PREFIX_OP_INSERT);
		/* named in the head words once its entry is there */
		if (len <= PREFIX_SUM_SHIFT)
			prefix_sum_name(&s->sum, addr, len,
					PREFIX_HEAD_NAME(len, tag), true);
	}
	s->hist[len]++;
	s->nprefixes++;
	return 0;
}

/**
 * prefix_set_retag() - change a member's tag
 * @s: the set
 * @addr: addr_len bytes, network order, zero beyond @len
 * @len: prefix length
 * @tag: the new tag
 *
 * The member's own entry, and every entry that names it as its best.
 * Readers see each entry's old tag or its new one. The caller serialises
 * writers.
 *
 * Return: 0; -EINVAL (bad length, host bits set or tag too large); -ENOENT
 * (absent).
 */
int prefix_set_retag(struct prefix_set *s, const u8 *addr, u32 len, u32 tag)
{
	int err = prefix_check(s, addr, len);
	u32 v;

	if (err)
		return err;
	if (tag >> PREFIX_TAG_BITS)
		return -EINVAL;
	if (len == s->bits)
		return s->addrs_known ? cuckoo_set_val(s->addrs, addr, tag) :
				      (cuckoo_contains(s->addrs, addr) ? 0 :
				       -ENOENT);
	if (!prefix_member(s, addr, len, &v))
		return -ENOENT;
	if (!len) {
		WRITE_ONCE(s->zero, tag + 1);
		return 0;
	}
	WARN_ON_ONCE(prefix_get(s, len, addr, &v));
	prefix_put(s, len, addr, (v & ~(PREFIX_REF - 1)) |
				 PREFIX_VAL(len + 1, tag, 0));
	prefix_rename_all(s, addr, len, tag, PREFIX_OP_RETAG);
	if (len <= PREFIX_SUM_SHIFT)
		prefix_sum_name(&s->sum, addr, len, PREFIX_HEAD_NAME(len, tag),
				false);
	return 0;
}

/**
 * prefix_set_delete() - remove an address or a prefix
 * @s: the set
 * @addr: addr_len bytes, network order, zero beyond @len
 * @len: prefix length
 *
 * The entries that name the prefix take their next best, then its entry
 * and the markers only it needed go. The caller serialises writers; may
 * sleep.
 *
 * Return: 0; -EINVAL (bad length or host bits set); -ENOENT (absent).
 */
int prefix_set_delete(struct prefix_set *s, const u8 *addr, u32 len)
{
	int err = prefix_check(s, addr, len);

	if (err)
		return err;
	if (len == s->bits) {
		err = cuckoo_delete(s->addrs, addr);
		if (!err) {
			if (!--s->naddrs)
				WRITE_ONCE(s->addrs_any, false);
			prefix_sum_put(&s->sum, prefix_class(s, len), addr,
				       len);
			prefix_always(s, false);
		}
		return err;
	}
	if (!prefix_member(s, addr, len, &(u32){ 0 }))
		return -ENOENT;
	if (!len) {
		WRITE_ONCE(s->zero, 0);
		prefix_always(s, false);
	} else {
		/* no head word names it once its entry goes */
		if (len <= PREFIX_SUM_SHIFT)
			prefix_sum_name(&s->sum, addr, len,
					prefix_head_next(s, addr, len), false);
		prefix_rename_all(s, addr, len, 0, PREFIX_OP_DELETE);
		prefix_leave(s, addr, len);
	}
	s->hist[len]--;
	s->nprefixes--;
	/* its entries are out of every table a new reader can reach */
	prefix_sum_put(&s->sum, prefix_class(s, len), addr, len);
	return 0;
}

/**
 * prefix_set_clear() - remove every member
 * @s: the set
 *
 * Empties the address table in place, first (the one step that may fail),
 * and unpublishes the length tables, freeing them once no reader can see
 * them. The caller serialises writers; sleeps.
 *
 * Return: 0, or -EDQUOT or -ENOMEM with nothing changed.
 */
int prefix_set_clear(struct prefix_set *s)
{
	int err = cuckoo_clear(s->addrs);
	u32 m;

	if (err)
		return err;
	s->naddrs = 0;
	WRITE_ONCE(s->addrs_any, false);
	WRITE_ONCE(s->zero, 0);
	prefix_always(s, false);
	WRITE_ONCE(s->used[0], 0);
	WRITE_ONCE(s->used[1], 0);
	for (m = 1; m < s->bits; m++) {
		s->dead[m] = prefix_wtab(s, m);
		if (s->dead[m])
			s->list_gen += cuckoo_list_gen(s->dead[m]) + 1;
		rcu_assign_pointer(s->tab[m], NULL);
		ordered_free(&s->idx[m]);
	}
	s->nprefixes = 0;
	memset(s->hist, 0, sizeof(s->hist));
	memset(s->count, 0, sizeof(s->count));
	s->entries = 0;
	prefix_sum_reset(&s->sum);
	synchronize_rcu();
	for (m = 1; m < s->bits; m++) {
		cuckoo_destroy(s->dead[m]);
		s->dead[m] = NULL;
	}
	return 0;
}

/*
 * Lists the members of table @c holding length @m (the address table for
 * @m == bits, where every entry is a member; its keys are then addr_len
 * bytes, 4 * prefix_words(m) as for every length), from *@pos; *@done
 * tells whether it has no more.
 */
static u64 prefix_list_table(const struct prefix_set *s,
			     const struct cuckoo *c, u32 m, u64 *pos, u8 *out,
			     u64 max, bool *done)
{
	u8 buf[PREFIX_LIST_CHUNK * PREFIX_REC_MAX];
	u32 elen = PREFIX_ENTRY_LEN(s->addr_len), klen = 4 * prefix_words(m);
	u64 n = 0;
	long k, i;
	u32 v;

	*done = false;
	while (n < max) {
		k = cuckoo_list(c, pos, buf, max - n < PREFIX_LIST_CHUNK ?
				max - n : PREFIX_LIST_CHUNK);
		if (k <= 0) {
			*done = true;
			break;
		}
		for (i = 0; i < k; i++) {
			const u8 *rec = buf + i * (klen + 4);

			memcpy(&v, rec + klen, sizeof(v));
			if (m < s->bits && PREFIX_BEST(v) != m + 1)
				continue;
			memset(out + n * elen, 0, s->addr_len);
			memcpy(out + n * elen, rec, klen);
			out[n * elen + s->addr_len] = m;
			n++;
		}
	}
	return n;
}

/**
 * prefix_set_list() - copy members out
 * @s: the set
 * @pos: in: where to start, 0 at first; out: where the next call starts
 * @out: room for @max entries of PREFIX_ENTRY_LEN(addr_len) bytes
 * @max: most entries to copy
 *
 * Addresses first (exact mode only), then prefixes, shortest first; a
 * position with PREFIX_LIST_PREFIXES set is in the length tables, the
 * length above PREFIX_LIST_LEN_SHIFT. Writer side.
 *
 * Return: the number of entries copied, 0 at the end.
 */
long prefix_set_list(const struct prefix_set *s, u64 *pos, void *out, u64 max)
{
	u32 elen = PREFIX_ENTRY_LEN(s->addr_len), m;
	struct cuckoo_stats st;
	u64 n = 0, p;
	bool done = true;
	u8 *o = out;

	if (!(*pos & PREFIX_LIST_PREFIXES)) {
		cuckoo_get_stats(s->addrs, &st);
		if (st.exact)
			n = prefix_list_table(s, s->addrs, s->bits, pos, o,
					      max, &done);
		if (!done)
			return n;
		*pos = PREFIX_LIST_PREFIXES;
	}
	p = *pos & ~PREFIX_LIST_PREFIXES;
	m = p >> PREFIX_LIST_LEN_SHIFT;
	p &= BIT_ULL(PREFIX_LIST_LEN_SHIFT) - 1;
	if (!m) {
		if (!p && s->zero) {
			if (n == max)
				return n;
			memset(o + n * elen, 0, elen);
			n++;
		}
		m = 1;
		p = 0;
	}
	for (; m < s->bits; m++, p = 0) {
		if (s->hist[m]) {
			n += prefix_list_table(s, prefix_wtab(s, m), m, &p,
					       o + n * elen, max - n, &done);
			if (!done)
				break;
		}
	}
	*pos = PREFIX_LIST_PREFIXES | (u64)m << PREFIX_LIST_LEN_SHIFT | p;
	return n;
}

/**
 * prefix_set_list_gen() - the generation of list positions
 * @s: the set
 *
 * The sum of what only grows: the tables' own generations, and those of
 * the tables cleared away. Writer side.
 *
 * Return: a value that grows whenever an entry may have changed position.
 */
u64 prefix_set_list_gen(const struct prefix_set *s)
{
	u64 gen = s->list_gen + cuckoo_list_gen(s->addrs);
	u32 m;

	for (m = 1; m < s->bits; m++)
		if (prefix_wtab(s, m))
			gen += cuckoo_list_gen(prefix_wtab(s, m));
	return gen;
}

/**
 * prefix_set_contains() - test one member
 * @s: the set
 * @addr: addr_len bytes
 * @len: its length
 *
 * Reader side: inside rcu_read_lock().
 *
 * Return: true if exactly (@addr, @len) is a member; false otherwise, and
 * for a bad length or host bits set.
 */
bool prefix_set_contains(const struct prefix_set *s, const u8 *addr, u32 len)
{
	const struct cuckoo *t;
	u32 key[4], v;

	if (prefix_check(s, addr, len))
		return false;
	if (len == s->bits)
		return cuckoo_contains(s->addrs, addr);
	if (!len)
		return READ_ONCE(s->zero);
	t = rcu_dereference(s->tab[len]);
	if (!t)
		return false;
	prefix_key(s, len, addr, key);
	return cuckoo_lookup(t, key, &v) && PREFIX_BEST(v) == len + 1;
}

/*
 * The search over the lengths from node @m, where the head word sent it
 * (see the top of this file). Out of line: the lookups the head word
 * answers, most of them, need none of its frame.
 */
static noinline enum prefix_hit prefix_search(const struct prefix_set *s,
					      const u8 *addr, u32 m, u32 *tag)
{
	const struct cuckoo *t;
	u32 key[4], half, v;
	u64 used[2];

	used[0] = READ_ONCE(s->used[0]);
	used[1] = READ_ONCE(s->used[1]);
	/* pairs with the smp_wmb() of prefix_add() */
	smp_rmb();
	for (;;) {
		bool hit = false;

		half = prefix_lowbit(m) / 2;
		t = (used[m / 64] >> (m % 64)) & 1 ?
		    rcu_dereference(s->tab[m]) : NULL;
		if (t) {
			prefix_key(s, m, addr, key);
			hit = cuckoo_lookup(t, key, &v);
			if (hit && PREFIX_BEST(v)) {
				*tag = PREFIX_TAG(v);
				return PREFIX_PREFIX;
			}
		}
		if (!half)
			return PREFIX_MISS;
		m = hit ? m + half : m - half;
	}
}

/**
 * prefix_set_match_head() - does a member cover an address?
 * @s: the set
 * @addr: addr_len bytes, network order
 * @h: @addr's head word, as prefix_set_match() read it (summary.h)
 * @tag: on a hit, the tag of the member that answered
 *
 * prefix_set_match() after its head word, when that does not answer a
 * miss by itself. Probes the address table,
 * whose hit is PREFIX_ADDR, unless it is empty or (exact mode) no address
 * lies in @addr's /16 (IPv6: in a /32 with its hashed bit). Then a /0, or
 * the member up to /16 that the head word names, answers; else the
 * search over the lengths starts where the head word allows: at the root
 * of their tree if a member of /64 or longer may cover @addr (IPv6), at
 * /32 if one of /32 to /63 may, at that of /17../31 if one of those may,
 * or nowhere. Empty
 * tables cost no probe. Lock-free: call inside rcu_read_lock(). A member
 * present throughout the call is found, across updates, table growth and
 * summary updates.
 *
 * Return: PREFIX_ADDR, PREFIX_PREFIX or PREFIX_MISS.
 */
enum prefix_hit prefix_set_match_head(const struct prefix_set *s,
				      const u8 *addr, u32 h, u32 *tag)
{
	u32 zero;

	if (READ_ONCE(s->addrs_any) &&
	    (s->addrs_known ?
	     (h & PREFIX_HEAD_ADDRS) &&
	     (s->addr_len == 4 ||
	      prefix_sum_hashed(&s->sum, PREFIX_CLASS_ADDRS, addr)) &&
	     cuckoo_lookup(s->addrs, addr, tag) :
	     cuckoo_contains(s->addrs, addr)))
		return PREFIX_ADDR;
	zero = READ_ONCE(s->zero);
	if (zero) {
		*tag = zero - 1;
		return PREFIX_PREFIX;
	}
	if (h & PREFIX_HEAD_BEST) {
		*tag = PREFIX_HEAD_TAG(h);
		return PREFIX_PREFIX;
	}
	if ((h & PREFIX_HEAD_SUBNET) &&
	    prefix_sum_hashed(&s->sum, PREFIX_CLASS_SUBNET, addr))
		return prefix_search(s, addr, s->bits / 2, tag);
	if ((h & PREFIX_HEAD_DEEP) &&
	    prefix_sum_hashed(&s->sum, PREFIX_CLASS_DEEP, addr))
		return prefix_search(s, addr, PREFIX_DEEP_ROOT, tag);
	if ((h & PREFIX_HEAD_MID) &&
	    prefix_sum_hashed(&s->sum, PREFIX_CLASS_MID, addr))
		return prefix_search(s, addr, PREFIX_MID_ROOT, tag);
	return PREFIX_MISS;
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
	st->memory_bytes = sizeof(*s) + st->addrs.memory_bytes;
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
	s = kvzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
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
		kvfree(s);
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
	kvfree(s);
}
