// SPDX-License-Identifier: GPL-2.0
/*
 * A prefix set's writers: insert, retag, delete and clear, with the
 * markers and the best names they keep (the order: top of prefix.c).
 */
#include "prefix_int.h"

/* Do the first @len bits of @a and @b agree? */
static bool prefix_same_bits(const u8 *a, const u8 *b, u32 len)
{
	if (memcmp(a, b, len / 8))
		return false;
	return !(len % 8) || !((a[len / 8] ^ b[len / 8]) & (0xff00 >> (len % 8)));
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
	err = sorted_insert(&s->idx[m], key);
	if (!err) {
		err = cuckoo_insert_val(prefix_wtab(s, m), key, val);
		if (err)
			sorted_delete(&s->idx[m], key);
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
	WARN_ON_ONCE(!sorted_delete(&s->idx[m], key));
	s->entries--;
	if (!--s->count[m]) {
		/* the last entry gone before the bit goes */
		smp_wmb();
		WRITE_ONCE(*used, *used & ~BIT_ULL(m % 64));
	}
}

/*
 * Keeps the summary's always word (prefix_summary.h): on while
 * prefix_set_always(), or @coming (a /0 or a compact address is about to
 * be published); off only once they are gone. On too while the set holds
 * addresses and no prefix, which the head words count: set and cleared
 * at any time, as a lookup finds them either way.
 */
static void prefix_always(struct prefix_set *s, bool coming)
{
	u32 on = coming || prefix_set_always(s) ||
		 (s->naddrs && !s->nprefixes);

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
	struct sorted_pos pos;
	const u8 *key;
	u32 e[4] = { 0 }, v;
	u64 j = 0;

	prefix_key(s, m, addr, e);
	for (key = sorted_seek(&s->idx[m], e, &pos);
	     key && prefix_same_bits(key, addr, l);
	     key = sorted_next(&s->idx[m], &pos)) {
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
	prefix_always(s, false);
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
	prefix_always(s, false);
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
		sorted_free(&s->idx[m]);
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
