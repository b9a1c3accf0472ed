// SPDX-License-Identifier: GPL-2.0
/*
 * A prefix set's readers, lock-free: after the head word
 * (prefix_set_match() is inline in prefix.h), each level of the search
 * with the summary's test that admits it; and the test of one member.
 */
#include "prefix_int.h"

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
	u32 key[4], v = 0;

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

/* prefix_set_match_head()'s answer of @hit by the member tagged @tag. */
#define PREFIX_ANSWER(hit, tag)	((u32)(hit) | (u32)(tag) << PREFIX_MATCH_TAG_SHIFT)

/*
 * The search over the lengths from node @m, where the head word sent it
 * (see the top of this file), answered as prefix_set_match_head(). Out of
 * line: the lookups the head word answers, most of them, need none of its
 * frame.
 */
static noinline u32 prefix_search(const struct prefix_set *s, const u8 *addr,
				  u32 m)
{
	const struct cuckoo *t;
	u32 key[4], half, v = 0;
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
			if (hit && PREFIX_BEST(v))
				return PREFIX_ANSWER(PREFIX_PREFIX, PREFIX_TAG(v));
		}
		if (!half)
			return PREFIX_MISS;
		m = hit ? m + half : m - half;
	}
}

/*
 * A level of the search: may a member of class @c cover @addr, by its
 * flag in the head word @h and its hashed bit? If so, the search from
 * that level's root decides: it passes every shorter length too.
 */
static __always_inline bool prefix_level(const struct prefix_set *s,
					 const u8 *addr, u32 h, u32 c)
{
	return (h & PREFIX_HEAD_FLAG(c)) && prefix_sum_admits(&s->sum, c, addr);
}

/**
 * prefix_set_match_head() - does a member cover an address?
 * @s: the set
 * @addr: addr_len bytes, network order
 * @h: @addr's head word, as prefix_set_match() read it (prefix_summary.h),
 *     or 0 if it read none: then it is read here, when needed
 *
 * prefix_set_match() after its head word, when that does not answer a
 * miss by itself. Probes the address table, whose hit is PREFIX_ADDR,
 * unless it is empty; with @h unread, first, as its hit needs no head
 * word; else only where an address lies in @addr's /16 (IPv6: in a /32
 * with its hashed bit). Then a /0, or the member up to /16
 * that the head word names, answers; else the search over the lengths
 * starts where the head word allows: at the root of their tree if a member
 * of /64 or longer may cover @addr (IPv6), at /32 if one of /32 to /63 may,
 * at that of /17../31 if one of those may, or nowhere. Empty tables cost
 * no probe. Lock-free: call inside rcu_read_lock(). A member present
 * throughout the call is found, across updates, table growth and summary
 * updates.
 *
 * Return: PREFIX_MATCH_HIT() is PREFIX_ADDR, PREFIX_PREFIX or PREFIX_MISS;
 * on a hit, PREFIX_MATCH_TAG() is the tag of the member that answered. In
 * one value, so that the inlined caller passes no address of its own and
 * its frame needs no stack guard.
 */
u32 prefix_set_match_head(const struct prefix_set *s, const u8 *addr, u32 h)
{
	bool addrs = READ_ONCE(s->addrs_any);
	u32 tag = 0, zero;

	/*
	 * Unread: the summary says to search always, and the address table
	 * comes first (prefix_summary.h). A compact table keeps no tags: its
	 * hits are "default"'s, 0.
	 */
	if (!h) {
		if (addrs && cuckoo_lookup(s->addrs, addr, &tag))
			return PREFIX_ANSWER(PREFIX_ADDR, tag);
		h = prefix_sum_head(&s->sum, addr);
	} else if (addrs && s->addrs_known && (h & PREFIX_HEAD_ADDRS) &&
		   (s->addr_len == 4 ||
		    prefix_sum_admits(&s->sum, PREFIX_CLASS_ADDRS, addr)) &&
		   cuckoo_lookup(s->addrs, addr, &tag)) {
		return PREFIX_ANSWER(PREFIX_ADDR, tag);
	}
	zero = READ_ONCE(s->zero);
	if (zero)
		return PREFIX_ANSWER(PREFIX_PREFIX, zero - 1);
	if (h & PREFIX_HEAD_BEST)
		return PREFIX_ANSWER(PREFIX_PREFIX, PREFIX_HEAD_TAG(h));
	if (prefix_level(s, addr, h, PREFIX_CLASS_SUBNET))
		return prefix_search(s, addr, s->bits / 2);
	if (prefix_level(s, addr, h, PREFIX_CLASS_DEEP))
		return prefix_search(s, addr, PREFIX_DEEP_ROOT);
	if (prefix_level(s, addr, h, PREFIX_CLASS_MID))
		return prefix_search(s, addr, PREFIX_MID_ROOT);
	return PREFIX_MISS;
}
