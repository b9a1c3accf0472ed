/* SPDX-License-Identifier: GPL-2.0 */
/*
 * White-box helpers shared by the prefix set tests (prefix_test.c,
 * geoip_test.c) and the fuzz target (tests/fuzz/prefix_fuzz.c):
 * - the core built with its lookups' table probes counted;
 * - a reference: a plain list of members, an address covered iff one
 *   covers it;
 * - a checker of the structure against the reference (the invariants of
 *   the comment at the top of core/prefix.c), and a dump of everything a
 *   failed update must leave as it was.
 * Include it instead of the core's files.
 */
#ifndef CFILTER_PREFIX_CHECK_H
#define CFILTER_PREFIX_CHECK_H

#include "cuckoo_unit.h"
#include "sorted.c"
#include "prefix_summary.c"

#include <stdarg.h>
#include <stdio.h>

/*
 * Table probes made by this thread: every lookup of a reader goes through
 * one of these two, so a lookup's probes are the difference across it.
 */
static __thread u64 probe_count;

static inline bool counted_lookup(const struct cuckoo *c, const void *key,
				  u32 *val)
{
	probe_count++;
	return cuckoo_lookup(c, key, val);
}

static inline bool counted_contains(const struct cuckoo *c, const void *key)
{
	probe_count++;
	return cuckoo_contains(c, key);
}

#define cuckoo_lookup	counted_lookup
#define cuckoo_contains	counted_contains
#include "prefix.c"
#include "prefix_read.c"
#include "prefix_write.c"
#include "prefix_list.c"
#undef cuckoo_lookup
#undef cuckoo_contains

struct ref_member {
	u8 a[16];
	u32 len;
	u32 tag;
};

/* The reference: members in no order; @bits is the full length. */
struct ref {
	struct ref_member *m;
	u32 n, cap;
	u32 alen, bits;
};

static inline void ref_init(struct ref *r, u32 alen)
{
	memset(r, 0, sizeof(*r));
	r->alen = alen;
	r->bits = 8 * alen;
}

static inline void ref_free(struct ref *r)
{
	free(r->m);
	r->m = NULL;
	r->n = r->cap = 0;
}

static inline int ref_find(const struct ref *r, const u8 *a, u32 len)
{
	u32 i;

	for (i = 0; i < r->n; i++)
		if (r->m[i].len == len && !memcmp(r->m[i].a, a, r->alen))
			return i;
	return -1;
}

static inline void ref_add(struct ref *r, const u8 *a, u32 len, u32 tag)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 256;
		r->m = realloc(r->m, r->cap * sizeof(*r->m));
		if (!r->m)
			abort();
	}
	memset(&r->m[r->n], 0, sizeof(r->m[0]));
	memcpy(r->m[r->n].a, a, r->alen);
	r->m[r->n].len = len;
	r->m[r->n].tag = tag;
	r->n++;
}

static inline void ref_del_at(struct ref *r, u32 i)
{
	r->m[i] = r->m[--r->n];
}

static inline bool ref_covers(const struct ref_member *m, const u8 *a, u32 alen)
{
	u8 x[16];

	memcpy(x, a, alen);
	prefix_mask(x, alen, m->len);
	return !memcmp(x, m->a, alen);
}

/*
 * Is the answer @h with tag @tag right for @a? ADDR iff a full-length
 * member is @a (its tag, if @exact); else PREFIX iff a shorter member
 * covers @a, and @tag is the tag of one that does. A compact address
 * table may also claim an address it lacks: *@fp counts those.
 */
static inline bool ref_verdict_ok(const struct ref *r, const u8 *a, bool exact,
			   enum prefix_hit h, u32 tag, u64 *fp)
{
	bool addr = false, pfx = false, tag_ok = false;
	u32 addr_tag = 0, i;

	for (i = 0; i < r->n; i++) {
		const struct ref_member *m = &r->m[i];

		if (!ref_covers(m, a, r->alen))
			continue;
		if (m->len == r->bits) {
			addr = true;
			addr_tag = m->tag;
		} else {
			pfx = true;
			tag_ok |= m->tag == tag;
		}
	}
	if (addr)
		return h == PREFIX_ADDR && tag == (exact ? addr_tag : 0);
	if (h == PREFIX_ADDR && !exact) {
		(*fp)++;
		return tag == 0;
	}
	if (pfx)
		return h == PREFIX_PREFIX && tag_ok;
	return h == PREFIX_MISS && tag == 0;
}

/* By length, then address: the order of the sorted reference. */
static inline int ref_cmp(const void *x, const void *y)
{
	const struct ref_member *a = x, *b = y;

	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return memcmp(a->a, b->a, 16);
}

/* The sorted copy's member (@a masked to @len, @len), or NULL. */
static const struct ref_member *ref_lookup(const struct ref_member *sorted,
					   u32 n, u32 alen, const u8 *a,
					   u32 len)
{
	struct ref_member k;

	memset(&k, 0, sizeof(k));
	memcpy(k.a, a, alen);
	prefix_mask(k.a, alen, len);
	k.len = len;
	return bsearch(&k, sorted, n, sizeof(k), ref_cmp);
}

/* An entry of a length table, as the checker sees it. */
struct check_entry {
	u32 len;
	u8 key[16];
	u32 val;
	u32 kids;	/* entries found under it at lengths n, lo(n) == len */
};

static inline int check_entry_cmp(const void *x, const void *y)
{
	const struct check_entry *a = x, *b = y;

	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return memcmp(a->key, b->key, 16);
}

/* Every entry of every length table, sorted; their number in *@n. */
static struct check_entry *check_entries(const struct prefix_set *s, u64 *n)
{
	u8 buf[PREFIX_LIST_CHUNK * PREFIX_REC_MAX];
	struct check_entry *e = NULL;
	u64 cap = 0, pos;
	u32 m, klen;
	long k, i;

	*n = 0;
	for (m = 1; m < s->bits; m++) {
		if (!prefix_wtab(s, m))
			continue;
		klen = 4 * prefix_words(m);
		pos = 0;
		while ((k = cuckoo_list(prefix_wtab(s, m), &pos, buf,
					PREFIX_LIST_CHUNK)) != 0) {
			if (k == -EAGAIN)
				continue;
			if (k < 0)
				break;
			for (i = 0; i < k; i++) {
				if (*n == cap) {
					cap = cap ? 2 * cap : 1024;
					e = realloc(e, cap * sizeof(*e));
					if (!e)
						abort();
				}
				memset(&e[*n], 0, sizeof(e[0]));
				e[*n].len = m;
				memcpy(e[*n].key, buf + i * (klen + 4), klen);
				memcpy(&e[*n].val, buf + i * (klen + 4) + klen,
				       4);
				(*n)++;
			}
		}
	}
	if (*n)
		qsort(e, *n, sizeof(*e), check_entry_cmp);
	return e;
}

/* The first violation found, for the caller to print. */
static char check_why[256];

static u64 check_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(check_why, sizeof(check_why), fmt, ap);
	va_end(ap);
	return 1;
}

static const char *check_show(const u8 *a, u32 alen, u32 len)
{
	static char buf[64];
	u32 i, o = 0;

	for (i = 0; i < alen; i++)
		o += snprintf(buf + o, sizeof(buf) - o, "%02x%s", a[i],
			      i + 1 == alen ? "" : alen == 4 ? "." :
			      i % 2 ? ":" : "");
	snprintf(buf + o, sizeof(buf) - o, "/%u", len);
	return buf;
}

/*
 * Checks @s against the reference @r: 0, or the number of violations
 * (the first described in check_why). Writer side.
 * - every entry's key is its address masked to its length; its best is
 *   the longest reference member of a length in (lo(m), m] covering it,
 *   with that member's tag (0 and no tag if none);
 * - every entry of a length m with lo(m) != 0 hangs from an entry at
 *   lo(m), so every member's ancestors lo(q), lo(lo(q)), ... have
 *   entries; every entry's refs are the entries hanging from it, and no
 *   marker has none;
 * - every reference prefix has its entry, named as its own best;
 * - counts, histogram, used bits, /0 flag and stats agree;
 * - in exact mode, the address table holds exactly the reference's
 *   addresses with their tags.
 * The summary has a check of its own (prefix_check_summary()), dearer.
 */
static inline u64 prefix_check_set(const struct prefix_set *s,
				   const struct ref *r)
{
	u64 n, i, bad = 0, count[PREFIX_BITS_MAX] = { 0 }, markers = 0;
	u64 hist[PREFIX_BITS_MAX + 1] = { 0 }, addrs = 0;
	struct ref_member *sorted;
	struct check_entry *e, *p, key;
	struct prefix_stats st;
	u32 l, m, want, wtag, lengths = 0;
	bool exact = s->addrs_known;

	check_why[0] = 0;
	sorted = malloc((r->n + 1) * sizeof(*sorted));
	if (!sorted)
		abort();
	if (r->n) {
		memcpy(sorted, r->m, r->n * sizeof(*sorted));
		qsort(sorted, r->n, sizeof(*sorted), ref_cmp);
	}
	e = check_entries(s, &n);

	for (i = 0; i < n; i++) {
		u8 x[16];

		m = e[i].len;
		count[m]++;
		memcpy(x, e[i].key, 16);
		prefix_mask(x, s->addr_len, m);
		if (memcmp(x, e[i].key, 16))
			bad += check_fail("entry %s: bits beyond its length",
					  check_show(e[i].key, s->addr_len, m));
		want = 0;
		wtag = 0;
		for (l = m; l > prefix_lo(m); l--) {
			const struct ref_member *q =
				ref_lookup(sorted, r->n, s->addr_len,
					   e[i].key, l);

			if (q) {
				want = l + 1;
				wtag = q->tag;
				break;
			}
		}
		if (PREFIX_BEST(e[i].val) != want ||
		    PREFIX_TAG(e[i].val) != wtag)
			bad += check_fail("entry %s: best %u tag %u, want %u tag %u",
					  check_show(e[i].key, s->addr_len, m),
					  PREFIX_BEST(e[i].val),
					  PREFIX_TAG(e[i].val), want, wtag);
		if (PREFIX_BEST(e[i].val) != m + 1)
			markers++;
		if (!prefix_lo(m))
			continue;
		memset(&key, 0, sizeof(key));
		key.len = prefix_lo(m);
		memcpy(key.key, e[i].key, 16);
		prefix_mask(key.key, s->addr_len, key.len);
		p = bsearch(&key, e, n, sizeof(key), check_entry_cmp);
		if (!p)
			bad += check_fail("entry %s: no entry at /%u above it",
					  check_show(e[i].key, s->addr_len, m),
					  key.len);
		else
			p->kids++;
	}
	/* the writer's index of each table holds exactly its keys, in order */
	for (m = 1, i = 0; m < s->bits; m++) {
		struct sorted_pos op;
		const u8 *k;
		u8 zero[16] = { 0 };
		u32 klen = 4 * prefix_words(m);

		for (k = sorted_seek(&s->idx[m], zero, &op); k;
		     k = sorted_next(&s->idx[m], &op), i++)
			if (i >= n || e[i].len != m ||
			    memcmp(k, e[i].key, klen))
				break;
		if (k || (i < n && e[i].len == m))
			bad += check_fail("index of /%u differs from its table", m);
		while (i < n && e[i].len == m)
			i++;
	}
	for (i = 0; i < n; i++) {
		if (PREFIX_REFS(e[i].val) != e[i].kids)
			bad += check_fail("entry %s: refs %u, entries under it %u",
					  check_show(e[i].key, s->addr_len,
						     e[i].len),
					  PREFIX_REFS(e[i].val), e[i].kids);
		if (PREFIX_BEST(e[i].val) != e[i].len + 1 &&
		    !PREFIX_REFS(e[i].val))
			bad += check_fail("marker %s: no entry needs it",
					  check_show(e[i].key, s->addr_len,
						     e[i].len));
	}

	for (i = 0; i < r->n; i++) {
		const struct ref_member *q = &sorted[i];
		u32 v;

		hist[q->len]++;
		if (q->len == s->bits) {
			addrs++;
			if (exact && (cuckoo_get_val(s->addrs, q->a, &v) ||
				      v != q->tag))
				bad += check_fail("address %s missing or mistagged",
						  check_show(q->a, s->addr_len,
							     q->len));
			continue;
		}
		if (!q->len) {
			if (s->zero != q->tag + 1)
				bad += check_fail("/0: flag %u, tag %u",
						  s->zero, q->tag);
			continue;
		}
		memset(&key, 0, sizeof(key));
		key.len = q->len;
		memcpy(key.key, q->a, 16);
		p = bsearch(&key, e, n, sizeof(key), check_entry_cmp);
		if (!p || PREFIX_BEST(p->val) != q->len + 1)
			bad += check_fail("member %s has no entry",
					  check_show(q->a, s->addr_len,
						     q->len));
	}
	if (!hist[0] && s->zero)
		bad += check_fail("/0 flag %u, no /0 member", s->zero);
	for (m = 0; m < s->bits; m++) {
		if (s->hist[m] != hist[m])
			bad += check_fail("hist[%u] %llu, members %llu", m,
					  (unsigned long long)s->hist[m],
					  (unsigned long long)hist[m]);
		lengths += !!hist[m];
		if (!m)
			continue;
		if (s->count[m] != count[m])
			bad += check_fail("count[%u] %llu, entries %llu", m,
					  (unsigned long long)s->count[m],
					  (unsigned long long)count[m]);
		if (((s->used[m / 64] >> (m % 64)) & 1) != !!count[m])
			bad += check_fail("used bit %u wrong", m);
	}
	if (s->used[0] & 1)
		bad += check_fail("used bit 0 set");
	if (s->entries != n)
		bad += check_fail("entries %llu, found %llu",
				  (unsigned long long)s->entries,
				  (unsigned long long)n);
	prefix_set_get_stats(s, &st);
	if (st.prefixes != r->n - addrs || s->nprefixes != r->n - addrs)
		bad += check_fail("prefixes %llu, members %llu",
				  (unsigned long long)st.prefixes,
				  (unsigned long long)(r->n - addrs));
	if (st.markers != markers)
		bad += check_fail("stats: markers %llu, found %llu",
				  (unsigned long long)st.markers,
				  (unsigned long long)markers);
	if (st.lengths != lengths)
		bad += check_fail("stats: lengths %u, found %u", st.lengths,
				  lengths);
	if (st.probes != (s->bits == 32 ? 5U : 8U))
		bad += check_fail("stats: probes %u", st.probes);
	if (st.addrs.count != s->naddrs || (exact && s->naddrs != addrs))
		bad += check_fail("addresses %llu, members %llu",
				  (unsigned long long)s->naddrs,
				  (unsigned long long)addrs);
	free(e);
	free(sorted);
	return bad;
}

/* The head word of /16 @k. */
static inline u32 head_of(const struct prefix_set *s, u32 k)
{
	return s->sum.head[k];
}

/* Is hashed bit @k of class @c set? */
static inline bool hashed_bit_of(const struct prefix_set *s, u32 c, u32 k)
{
	/* not allocated before the class's first member: none set */
	return s->sum.hashed[c] && (s->sum.hashed[c][k / 32] >> (k % 32)) & 1;
}

/* Is the hashed bit of @a's block (as class @c hashes it) set? */
static inline bool hashed_bit_at(const struct prefix_set *s, u32 c,
				 const u8 *a)
{
	return hashed_bit_of(s, c, prefix_sum_hash(prefix_sum_block(c, a)));
}

/* Is fine bit @k of class @c set? */
static inline bool fine_bit_of(const struct prefix_set *s, u32 c, u32 k)
{
	return s->sum.fine[c] && (s->sum.fine[c][k / 32] >> (k % 32)) & 1;
}

/* Is the fine bit of @a's block of grain @g set (class @c)? */
static inline bool fine_bit_at(const struct prefix_set *s, u32 c,
			       const u8 *a, u32 g)
{
	return fine_bit_of(s, c, prefix_sum_fine_hash(c, prefix_sum_fine_block(a, g), g));
}

/* Entry @k of a count array (u16 or u8; NULL: not allocated, zeros). */
#define sum_count_of(count, k)	((count) ? (u32)(count)[k] : 0U)

/* 0 if a count @have is right for @want members: equal, or stuck at @max. */
static inline u32 sum_count_wrong(u32 have, u32 max, u32 want)
{
	return have != max && have != want;
}

/*
 * The summary of @s against @r, computed from the members: each /16's
 * name (the longest member up to /16 covering it, with its tag), its
 * flags and counts per class (addresses only if @s knows them), and
 * (IPv6) the hashed and fine bits and counts. A count stuck at its most
 * may exceed the members, and keeps its flag or bit set. 0: exact.
 */
static inline u32 prefix_check_summary(const struct prefix_set *s,
					const struct ref *r)
{
	static u32 want[PREFIX_CLASSES][PREFIX_SUM_KEYS];
	static u32 hwant[PREFIX_CLASSES][PREFIX_SUM_KEYS];
	static u32 fwant[PREFIX_CLASSES][1U << PREFIX_SUM_FINE_DEEP_SHIFT];
	static u16 head[PREFIX_SUM_KEYS];
	u32 i, c, k, first, bad = 0;

	memset(want, 0, sizeof(want));
	memset(hwant, 0, sizeof(hwant));
	memset(fwant, 0, sizeof(fwant));
	memset(head, 0, sizeof(head));
	for (i = 0; i < r->n; i++) {
		const struct ref_member *m = &r->m[i];

		first = (u32)m->a[0] << 8 | m->a[1];
		if (!m->len)
			continue;	/* the /0 is a flag of its own */
		if (m->len <= 16) {
			for (k = first; k < first + (1U << (16 - m->len)); k++)
				if ((head[k] & PREFIX_HEAD_BEST) < m->len + 1)
					head[k] = (head[k] &
						   ~PREFIX_HEAD_NAMES) |
						  PREFIX_HEAD_NAME(m->len,
								   m->tag);
			continue;
		}
		if (m->len == r->bits && !s->addrs_known)
			continue;
		c = m->len == r->bits ? PREFIX_CLASS_ADDRS :
		    m->len < 32 ? PREFIX_CLASS_MID :
		    m->len < 64 ? PREFIX_CLASS_DEEP : PREFIX_CLASS_SUBNET;
		want[c][first]++;
		head[first] |= PREFIX_HEAD_FLAG(c);
		if (r->alen == 16 || c == PREFIX_CLASS_MID) {
			u32 v = prefix_sum_block(c, m->a), j, n = 1;
			u32 g = c == PREFIX_CLASS_MID ? (m->len >= 28 ? 28 : 24) :
				c == PREFIX_CLASS_DEEP ?
				(m->len >= 48 ? 48 : m->len >= 40 ? 40 : 32) : 64;
			u64 f = prefix_sum_fine_block(m->a, g);

			if (c == PREFIX_CLASS_MID && m->len < 24)
				n = 1U << (24 - m->len);
			for (j = 0; j < n; j++) {
				hwant[c][prefix_sum_hash(v + j)]++;
				if (r->alen == 16)
					fwant[c][prefix_sum_fine_hash(c, f + j, g)]++;
			}
		}
	}
	/*
	 * A /0 or uncounted addresses: no head word may answer a miss;
	 * addresses and no prefix: the address table first.
	 */
	if (s->sum.always != (s->zero || (s->naddrs && !s->addrs_known) ||
			      (s->naddrs && !s->nprefixes)))
		bad += check_fail("always %u, /0 %u, addresses %llu%s, prefixes %llu",
				  s->sum.always, s->zero,
				  (unsigned long long)s->naddrs,
				  s->addrs_known ? "" : " uncounted",
				  (unsigned long long)s->nprefixes);
	for (c = 0; c < PREFIX_CLASSES; c++) {
		for (k = 0; k < PREFIX_SUM_KEYS; k++) {
			u32 n = sum_count_of(s->sum.count[c], k);
			u32 h = sum_count_of(s->sum.hcount[c], k);

			bad += sum_count_wrong(n, PREFIX_SUM_COUNT_MAX,
					       want[c][k]);
			bad += sum_count_wrong(h, PREFIX_SUM_HCOUNT_MAX,
					       hwant[c][k]);
			bad += hashed_bit_of(s, c, k) != !!h;
			if (n == PREFIX_SUM_COUNT_MAX)
				head[k] |= PREFIX_HEAD_FLAG(c);
		}
		/* class @c's fine bits, as many as its shift says */
		for (k = 0; k < 1U << prefix_sum_fine_shift(c); k++) {
			u32 f = sum_count_of(s->sum.fcount[c], k);

			bad += sum_count_wrong(f, PREFIX_SUM_HCOUNT_MAX,
					       fwant[c][k]);
			bad += fine_bit_of(s, c, k) != !!f;
		}
	}
	if (memcmp(s->sum.head, head, sizeof(head)))
		for (k = 0; k < PREFIX_SUM_KEYS; k++)
			if (s->sum.head[k] != head[k] && bad++ < 4)
				check_fail("head of /16 %u: %#x, want %#x", k,
					   s->sum.head[k], head[k]);
	return bad;
}

static u32 dump_rlen;

static inline int dump_cmp(const void *a, const void *b)
{
	return memcmp(a, b, dump_rlen);
}

/*
 * Everything a failed update must leave as it was, position-free: every
 * entry of every table (sorted), the addresses of an exact address table
 * (sorted, with tags), the counters, used bits, /0 flag and the
 * summary. Not memory: a failed update may leave a table or the
 * summary's counts allocated and empty. malloc()ed; its size in *@size.
 */
static u8 *prefix_dump(const struct prefix_set *s, size_t *size)
{
	static u32 *zeros;
	u8 buf[PREFIX_LIST_CHUNK * PREFIX_REC_MAX];
	u32 rlen = s->addr_len + 4;
	size_t at = 0, cap = 1 << 16;
	struct check_entry *e;
	u8 *d = malloc(cap), *addrs;
	u64 n, na = 0, pos = 0;
	long k;
	u32 c;

#define DUMP(p, len)							\
	do {								\
		while (at + (len) > cap)				\
			d = realloc(d, cap *= 2);			\
		if (!d)							\
			abort();					\
		memcpy(d + at, (p), (len));				\
		at += (len);						\
	} while (0)

	e = check_entries(s, &n);
	DUMP(&n, sizeof(n));
	if (n)
		DUMP(e, n * sizeof(*e));
	free(e);
	addrs = malloc(rlen * (s->naddrs + 1));
	if (s->addrs_known)
		while ((k = cuckoo_list(s->addrs, &pos, buf,
					PREFIX_LIST_CHUNK)) != 0) {
			if (k == -EAGAIN)
				continue;
			if (k < 0 || na + k > s->naddrs)
				break;
			memcpy(addrs + na * rlen, buf, k * rlen);
			na += k;
		}
	dump_rlen = rlen;
	if (na)
		qsort(addrs, na, rlen, dump_cmp);
	DUMP(&na, sizeof(na));
	if (na)
		DUMP(addrs, na * rlen);
	free(addrs);
	DUMP(&s->naddrs, sizeof(s->naddrs));
	DUMP(&s->nprefixes, sizeof(s->nprefixes));
	DUMP(&s->zero, sizeof(s->zero));
	DUMP(s->used, sizeof(s->used));
	DUMP(s->count, sizeof(s->count));
	DUMP(s->hist, sizeof(s->hist));
	DUMP(&s->entries, sizeof(s->entries));
	DUMP(s->sum.head, PREFIX_SUM_HEAD_BYTES);
	/* counts not allocated yet are zeros: a failed insert may leave them */
	if (!zeros)
		zeros = calloc(1, PREFIX_SUM_COUNT_BYTES);
	for (c = 0; c < PREFIX_CLASSES; c++) {
		DUMP(s->sum.hashed[c] ? (void *)s->sum.hashed[c] : zeros,
		     PREFIX_SUM_HASHED_BYTES);
		DUMP(s->sum.count[c] ? (void *)s->sum.count[c] : zeros,
		     PREFIX_SUM_COUNT_BYTES);
		DUMP(s->sum.hcount[c] ? (void *)s->sum.hcount[c] : zeros,
		     PREFIX_SUM_HCOUNT_BYTES);
	}
#undef DUMP
	*size = at;
	return d;
}

/* Do @s and the dump @d (of @size bytes) agree? */
static inline bool prefix_dump_same(const struct prefix_set *s, const u8 *d,
			     size_t size)
{
	size_t now_size;
	u8 *now = prefix_dump(s, &now_size);
	bool same = now_size == size && !memcmp(now, d, size);

	free(now);
	return same;
}

/* A lookup of @a, and the table probes it made into *@probes. */
static inline enum prefix_hit prefix_match_counted(const struct prefix_set *s,
					    const u8 *a, u32 *tag,
					    u32 *probes)
{
	enum prefix_hit h;
	u64 before = probe_count;

	rcu_read_lock();
	h = prefix_set_match(s, a, tag);
	rcu_read_unlock();
	*probes = probe_count - before;
	return h;
}

#endif /* CFILTER_PREFIX_CHECK_H */
