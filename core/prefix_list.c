// SPDX-License-Identifier: GPL-2.0
/*
 * Listing a prefix set's members, a part per call, with the generation
 * that says when positions stay valid.
 */
#include "prefix_int.h"

/*
 * Lists the members of table @c holding length @m (the address table for
 * @m == bits, where every entry is a member; its keys are then addr_len
 * bytes, 4 * prefix_words(m) as for every length), from *@pos; *@done
 * tells whether it has no more. It stops after a call of cuckoo_list()
 * that found fewer records than it asked for, which may be short of the
 * end (see CUCKOO_LIST_SLOTS): so it looks at a bounded number of slots
 * per call of cuckoo_list() that fills its buffer, and one more.
 */
static u64 prefix_list_table(const struct prefix_set *s,
			     const struct cuckoo *c, u32 m, u64 *pos, u8 *out,
			     u64 max, bool *done)
{
	u8 buf[PREFIX_LIST_CHUNK * PREFIX_REC_MAX];
	u32 elen = PREFIX_ENTRY_LEN(s->addr_len), klen = 4 * prefix_words(m);
	u64 n = 0, want;
	long k, i;
	u32 v;

	*done = false;
	while (n < max) {
		want = max - n < PREFIX_LIST_CHUNK ? max - n : PREFIX_LIST_CHUNK;
		k = cuckoo_list(c, pos, buf, want);
		if (k <= 0) {
			*done = k != -EAGAIN;
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
		if ((u64)k < want)
			break;
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
 * length above PREFIX_LIST_LEN_SHIFT. A call ends where a table's listing
 * stopped short (see prefix_list_table()), so it may copy fewer than @max
 * before the end. Writer side.
 *
 * Return: the number of entries copied, 0 at the end (or if @max is 0);
 * -EAGAIN if it copied none but the end is still ahead (call again from
 * *@pos).
 */
long prefix_set_list(const struct prefix_set *s, u64 *pos, void *out, u64 max)
{
	u32 elen = PREFIX_ENTRY_LEN(s->addr_len), m;
	struct cuckoo_stats st;
	u64 n = 0, p;
	bool done = true;
	u8 *o = out;

	if (!max)
		return 0;
	if (!(*pos & PREFIX_LIST_PREFIXES)) {
		cuckoo_get_stats(s->addrs, &st);
		if (st.exact)
			n = prefix_list_table(s, s->addrs, s->bits, pos, o,
					      max, &done);
		if (!done)
			return n ? (long)n : -EAGAIN;
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
	if (!n && m < s->bits)
		return -EAGAIN;
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
