// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of prefix sets (core/prefix.c): bad input, members of
 * every length, overlapping prefixes, tags, listing, clear, failure
 * atomicity, compact address tables, the summary bitmap, the structure's
 * invariants after random updates, random sets of every length mix against
 * a plain list of members, the probes a lookup makes, lock-free readers
 * during updates, and the cost of an update in a million-prefix set.
 */
#include "prefix_check.h"

#include <pthread.h>
#include <time.h>

#include "kselftest_harness.h"

#define SEED		0x5eed0f0ce11f17e5ULL

#define NOTE(...) do { ksft_print_msg(__VA_ARGS__); fflush(stdout); } while (0)

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED	1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED	0
#endif

static struct prefix_set *make(u32 alen, u64 cap, u64 max_cap, bool exact)
{
	struct prefix_params p = {
		.addr_len = alen,
		.addrs = {
			.capacity = cap,
			.max_capacity = max_cap,
			.seed = SEED,
			.fp_bits = 16,
			.key_len = alen,
			.exact = exact,
		},
	};

	return prefix_set_create(&p);
}

static void ip4(u8 *a, u32 v)
{
	a[0] = v >> 24;
	a[1] = v >> 16;
	a[2] = v >> 8;
	a[3] = v;
}

static int match_tag(const struct prefix_set *s, const u8 *a, u32 *tag)
{
	enum prefix_hit h;

	rcu_read_lock();
	h = prefix_set_match(s, a, tag);
	rcu_read_unlock();
	return h;
}

static int match(const struct prefix_set *s, const u8 *a)
{
	return match_tag(s, a, &(u32){ 0 });
}

static int match4(const struct prefix_set *s, u32 v)
{
	u8 a[4];

	ip4(a, v);
	return match(s, a);
}

static u32 tag4(const struct prefix_set *s, u32 v)
{
	u32 tag = 99;
	u8 a[4];

	ip4(a, v);
	match_tag(s, a, &tag);
	return tag;
}

static int add4t(struct prefix_set *s, u32 v, u32 len, u32 tag)
{
	u8 a[4];

	ip4(a, v);
	return prefix_set_insert(s, a, len, tag);
}

static int add4(struct prefix_set *s, u32 v, u32 len)
{
	return add4t(s, v, len, 0);
}

static int del4(struct prefix_set *s, u32 v, u32 len)
{
	u8 a[4];

	ip4(a, v);
	return prefix_set_delete(s, a, len);
}

static int retag4(struct prefix_set *s, u32 v, u32 len, u32 tag)
{
	u8 a[4];

	ip4(a, v);
	return prefix_set_retag(s, a, len, tag);
}

static bool has(const struct prefix_set *s, const u8 *a, u32 len)
{
	bool hit;

	rcu_read_lock();
	hit = prefix_set_contains(s, a, len);
	rcu_read_unlock();
	return hit;
}

static struct prefix_stats stats_of(const struct prefix_set *s)
{
	struct prefix_stats st;

	memset(&st, 0xa5, sizeof(st));
	prefix_set_get_stats(s, &st);
	return st;
}

/* No member, by the set's own counters and by its stats. Writer side. */
static bool set_empty(const struct prefix_set *s)
{
	struct prefix_stats st = stats_of(s);

	return !s->naddrs && !s->nprefixes && !st.addrs.count &&
	       !st.prefixes && !s->entries && !st.markers && !st.lengths;
}

/* Does the head word of /16 @k name a member or flag any? */
static bool sum_bit(const struct prefix_set *s, u32 k)
{
	return head_of(s, k);
}

static u32 sum_bits_set(const struct prefix_set *s)
{
	u32 k, n = 0;

	for (k = 0; k < PREFIX_SUM_KEYS; k++)
		n += sum_bit(s, k);
	return n;
}

/* The structure and the summary; a failure prints what it found first. */
static u64 check_set(const struct prefix_set *s, const struct ref *r)
{
	u64 bad = prefix_check_set(s, r);

	if (prefix_check_summary(s, r))
		bad += check_fail("summary: head words, hashed bits or counts");

	if (bad)
		NOTE("%llu violations, first: %s\n", (unsigned long long)bad,
		     check_why);
	return bad;
}

static void ref_add4(struct ref *r, u32 v, u32 len, u32 tag)
{
	u8 a[16] = { 0 };

	ip4(a, v);
	ref_add(r, a, len, tag);
}

static int ref_find4(const struct ref *r, u32 v, u32 len)
{
	u8 a[16] = { 0 };

	ip4(a, v);
	return ref_find(r, a, len);
}

static int entry_cmp(const void *a, const void *b)
{
	return memcmp(a, b, PREFIX_ENTRY_LEN(16));
}

/* The set's members, sorted, as list entries of 17 bytes; their number. */
static u64 list_all(const struct prefix_set *s, u8 *out, u64 room, u64 chunk)
{
	u32 elen = PREFIX_ENTRY_LEN(s->addr_len);
	u8 tmp[PREFIX_ENTRY_LEN(16) * 64];
	u64 pos = 0, n = 0, i;
	long k;

	while ((k = prefix_set_list(s, &pos, tmp, chunk)) != 0) {
		if (k == -EAGAIN)
			continue;
		for (i = 0; i < (u64)k && n < room; i++, n++) {
			memset(out + n * PREFIX_ENTRY_LEN(16), 0,
			       PREFIX_ENTRY_LEN(16));
			memcpy(out + n * PREFIX_ENTRY_LEN(16), tmp + i * elen,
			       s->addr_len);
			out[n * PREFIX_ENTRY_LEN(16) + 16] = tmp[i * elen +
								 s->addr_len];
		}
	}
	qsort(out, n, PREFIX_ENTRY_LEN(16), entry_cmp);
	return n;
}

TEST(params_are_checked)
{
	struct prefix_params p = {
		.addr_len = 4,
		.addrs = { .capacity = 100, .seed = SEED, .fp_bits = 16,
			   .key_len = 4, .exact = true },
	};

	ASSERT_EQ(0, prefix_params_check(&p));
	p.addr_len = 8;
	ASSERT_EQ(-EINVAL, prefix_params_check(&p));
	ASSERT_EQ(NULL, prefix_set_create(&p));
	p.addr_len = 16;
	ASSERT_EQ(-EINVAL, prefix_params_check(&p));	/* key_len 4 */
	p.addrs.key_len = 16;
	ASSERT_EQ(0, prefix_params_check(&p));
	p.addrs.fp_bits = 7;
	ASSERT_EQ(-EINVAL, prefix_params_check(&p));
	ASSERT_EQ(NULL, prefix_set_create(&p));
}

TEST(bad_length_host_bits_or_tag_is_einval_and_changes_nothing)
{
	struct prefix_set *s = make(4, 100, 1000, true);
	struct prefix_set *s6 = make(16, 100, 1000, true);
	u8 a6[16] = { 0x20, 0x01, 0x0d, 0xb8 };
	size_t size;
	u8 *d;

	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, s6);
	ASSERT_EQ(0, add4(s, 0x0a000000, 8));
	ASSERT_EQ(0, add4(s, 0x0a010000, 24));
	ASSERT_EQ(0, add4(s, 0x0b000001, 32));
	d = prefix_dump(s, &size);
	ASSERT_EQ(-EINVAL, add4(s, 0x0a000000, 33));
	ASSERT_EQ(-EINVAL, add4(s, 0x0a010203, 24));	/* host bits */
	ASSERT_EQ(-EINVAL, add4(s, 0x80000000, 0));
	ASSERT_EQ(-EINVAL, add4(s, 0x0b000001, 31));
	ASSERT_EQ(-EINVAL, add4t(s, 0x0c000000, 8, 1 << PREFIX_TAG_BITS));
	ASSERT_EQ(-EINVAL, add4t(s, 0x0c000001, 32, 1 << PREFIX_TAG_BITS));
	ASSERT_EQ(-EINVAL, add4t(s, 0, 0, ~0U));
	ASSERT_EQ(-EINVAL, retag4(s, 0x0a000000, 8, 1 << PREFIX_TAG_BITS));
	ASSERT_EQ(-EINVAL, retag4(s, 0x0b000001, 32, 32));
	ASSERT_EQ(-EINVAL, retag4(s, 0x0a000001, 8, 1));
	ASSERT_EQ(-EINVAL, retag4(s, 0x0a000000, 33, 1));
	ASSERT_EQ(-EINVAL, del4(s, 0x0a000000, 33));
	ASSERT_EQ(-EINVAL, del4(s, 0x0a000001, 8));
	ASSERT_TRUE(prefix_dump_same(s, d, size));
	free(d);
	ASSERT_EQ(2U, stats_of(s).prefixes);
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0c000000));
	ASSERT_EQ(0U, tag4(s, 0x0a000001));
	ASSERT_FALSE(has(s, (u8 *)"\x0a\0\0\0", 33));

	ASSERT_EQ(-EINVAL, prefix_set_insert(s6, a6, 129, 0));
	ASSERT_EQ(-EINVAL, prefix_set_insert(s6, a6, 16, 0));	/* 0db8 */
	ASSERT_EQ(-EINVAL, prefix_set_insert(s6, a6, 32, 32));
	ASSERT_EQ(0, prefix_set_insert(s6, a6, 32, 31));
	ASSERT_FALSE(has(s6, a6, 129));
	ASSERT_TRUE(has(s6, a6, 32));
	ASSERT_FALSE(has(s6, a6, 16));
	ASSERT_EQ(1U, stats_of(s6).prefixes);
	prefix_set_destroy(s);
	prefix_set_destroy(s6);
}

TEST(eexist_and_enoent)
{
	struct prefix_set *s = make(4, 100, 1000, true);

	ASSERT_NE(NULL, s);
	ASSERT_TRUE(set_empty(s));
	ASSERT_EQ(-ENOENT, del4(s, 0x0a000000, 8));
	ASSERT_EQ(-ENOENT, del4(s, 0x0a000001, 32));
	ASSERT_EQ(-ENOENT, retag4(s, 0x0a000000, 8, 1));
	ASSERT_EQ(-ENOENT, retag4(s, 0x0a000001, 32, 1));
	ASSERT_EQ(-ENOENT, retag4(s, 0, 0, 1));
	ASSERT_EQ(0, add4(s, 0x0a000000, 8));
	ASSERT_FALSE(set_empty(s));
	ASSERT_EQ(-EEXIST, add4(s, 0x0a000000, 8));
	ASSERT_EQ(-EEXIST, add4t(s, 0x0a000000, 8, 5));
	/* the same address, another length */
	ASSERT_EQ(0, add4(s, 0x0a000000, 9));
	ASSERT_EQ(0, add4(s, 0x0a000001, 32));
	ASSERT_EQ(-EEXIST, add4(s, 0x0a000001, 32));
	ASSERT_EQ(2U, stats_of(s).prefixes);
	ASSERT_EQ(1U, stats_of(s).addrs.count);
	/* a marker is not a member: /16 lies on /24's path */
	ASSERT_EQ(0, add4(s, 0x0a010200, 24));
	ASSERT_EQ(-ENOENT, del4(s, 0x0a010000, 16));
	ASSERT_EQ(-ENOENT, retag4(s, 0x0a010000, 16, 1));
	ASSERT_FALSE(has(s, (u8 *)"\x0a\x01\0\0", 16));
	ASSERT_EQ(0, del4(s, 0x0a010200, 24));
	ASSERT_EQ(0, del4(s, 0x0a000000, 8));
	ASSERT_EQ(-ENOENT, del4(s, 0x0a000000, 8));
	ASSERT_EQ(0, del4(s, 0x0a000000, 9));
	ASSERT_EQ(0, del4(s, 0x0a000001, 32));
	ASSERT_EQ(-ENOENT, del4(s, 0x0a000001, 32));
	ASSERT_TRUE(set_empty(s));
	ASSERT_EQ(0U, s->used[0] | s->used[1]);
	prefix_set_destroy(s);
}

TEST(slash_zero_is_a_flag_that_covers_everything)
{
	struct prefix_set *s = make(4, 100, 1000, true);
	struct prefix_set *s6 = make(16, 100, 1000, true);
	u8 z[16] = { 0 }, a[16];
	u32 i, tag;

	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, s6);
	ASSERT_EQ(0, add4t(s, 0, 0, 7));
	ASSERT_EQ(0, prefix_set_insert(s6, z, 0, 9));
	ASSERT_EQ(1U, stats_of(s).prefixes);
	ASSERT_EQ(1U, stats_of(s).lengths);
	ASSERT_EQ(0U, stats_of(s).markers);
	ASSERT_EQ(0U, s->entries);
	ASSERT_TRUE(has(s, z, 0));
	srandom(1);
	for (i = 0; i < 1000; i++) {
		u32 j;

		ASSERT_EQ(PREFIX_PREFIX, match4(s, random() ^ random() << 16));
		for (j = 0; j < 16; j++)
			a[j] = random();
		ASSERT_EQ(PREFIX_PREFIX, match_tag(s6, a, &tag));
		ASSERT_EQ(9U, tag);
	}
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0xffffffff));
	ASSERT_EQ(7U, tag4(s, 0xffffffff));
	ASSERT_EQ(0, retag4(s, 0, 0, 3));
	ASSERT_EQ(3U, tag4(s, 0x01020304));
	ASSERT_EQ(0, del4(s, 0, 0));
	ASSERT_EQ(0, prefix_set_delete(s6, z, 0));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0));
	ASSERT_EQ(PREFIX_MISS, match(s6, a));
	ASSERT_TRUE(set_empty(s));
	ASSERT_TRUE(set_empty(s6));
	prefix_set_destroy(s);
	prefix_set_destroy(s6);
}

TEST(full_length_members_are_addresses_not_entries)
{
	struct prefix_set *s = make(4, 100, 1000, true);
	struct prefix_set *s6 = make(16, 100, 1000, true);
	u8 a6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 7 };
	u8 p6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 6 };

	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, s6);
	ASSERT_EQ(0, add4(s, 0x0a010203, 32));
	ASSERT_EQ(0U, s->entries);
	ASSERT_EQ(0U, stats_of(s).prefixes);
	ASSERT_EQ(0U, stats_of(s).lengths);
	ASSERT_EQ(1U, stats_of(s).addrs.count);
	ASSERT_EQ(PREFIX_ADDR, match4(s, 0x0a010203));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a010204));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a010202));
	ASSERT_EQ(0, add4(s, 0x0a010200, 24));
	ASSERT_EQ(PREFIX_ADDR, match4(s, 0x0a010203));	/* probed first */
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a010204));
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a0102ff));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a010300));
	ASSERT_EQ(0, add4(s, 0x0a010202, 31));
	ASSERT_EQ(0, del4(s, 0x0a010200, 24));
	ASSERT_EQ(PREFIX_ADDR, match4(s, 0x0a010203));
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a010202));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a010204));

	ASSERT_EQ(0, prefix_set_insert(s6, a6, 128, 0));
	ASSERT_EQ(0U, s6->entries);
	ASSERT_EQ(PREFIX_ADDR, match(s6, a6));
	a6[15] = 8;
	ASSERT_EQ(PREFIX_MISS, match(s6, a6));
	/* ::6 and ::7 */
	ASSERT_EQ(0, prefix_set_insert(s6, p6, 127, 0));
	ASSERT_EQ(PREFIX_MISS, match(s6, a6));
	a6[15] = 6;
	ASSERT_EQ(PREFIX_PREFIX, match(s6, a6));
	a6[15] = 7;
	ASSERT_EQ(-EINVAL, prefix_set_insert(s6, a6, 127, 0));
	ASSERT_EQ(PREFIX_ADDR, match(s6, a6));
	prefix_set_destroy(s);
	prefix_set_destroy(s6);
}

/*
 * /8 and a /24 inside it, and the /24 alone then the /8 alone: a /24
 * leaves a marker at /16 whose best is the /8 while both are in.
 */
TEST(overlapping_prefixes_delete_either)
{
	struct prefix_set *s = make(4, 100, 1 << 20, true);
	struct ref r;
	u32 v;

	ASSERT_NE(NULL, s);
	ref_init(&r, 4);
	ASSERT_EQ(0, add4t(s, 0x0a000000, 8, 1));
	ASSERT_EQ(0, add4t(s, 0x0a010200, 24, 2));
	ref_add4(&r, 0x0a000000, 8, 1);
	ref_add4(&r, 0x0a010200, 24, 2);
	ASSERT_EQ(0U, check_set(s, &r));
	ASSERT_EQ(1U, stats_of(s).markers);	/* 10.1/16 */
	ASSERT_EQ(0, prefix_get(s, 16, (u8 *)"\x0a\x01\0\0", &v));
	ASSERT_EQ(9U, PREFIX_BEST(v));
	ASSERT_EQ(1U, PREFIX_TAG(v));
	ASSERT_EQ(1U, PREFIX_REFS(v));
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a0102ff));
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0affffff));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0b000000));

	ASSERT_EQ(0, del4(s, 0x0a000000, 8));
	ref_del_at(&r, 0);
	ASSERT_EQ(0U, check_set(s, &r));
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a010200));
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a0102ff));
	ASSERT_EQ(2U, tag4(s, 0x0a0102ff));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a010300));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a0101ff));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a000000));

	ASSERT_EQ(0, add4t(s, 0x0a000000, 8, 1));
	ref_add4(&r, 0x0a000000, 8, 1);
	ASSERT_EQ(0, del4(s, 0x0a010200, 24));
	ref_del_at(&r, 0);
	ASSERT_EQ(0U, check_set(s, &r));
	ASSERT_EQ(0U, stats_of(s).markers);
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a0102ff));
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a000000));
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0affffff));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x09ffffff));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0b000000));
	ASSERT_EQ(0, del4(s, 0x0a000000, 8));
	ASSERT_TRUE(set_empty(s));
	ref_free(&r);
	prefix_set_destroy(s);
}

/*
 * The tag a hit reports is a covering member's; a retag reaches every
 * entry naming the member; a delete hands its entries to the next
 * covering member. Nested 10/8 (1) > 10.1/16 (2) > 10.1.2/24 (3) >
 * 10.1.2.128/25 (4), and 10.1.2.7/32 (5).
 */
TEST(tags_follow_the_covering_members)
{
	static const struct {
		u32 v, len, tag;
	} nest[] = {
		{ 0x0a000000, 8, 1 }, { 0x0a010000, 16, 2 },
		{ 0x0a010200, 24, 3 }, { 0x0a010280, 25, 4 },
		{ 0x0a010207, 32, 5 },
	};
	/* addresses under each member and none longer */
	static const u32 probe[] = { 0x0a7f0000, 0x0a010900, 0x0a010201,
				     0x0a0102ff, 0x0a010207 };
	struct prefix_set *s = make(4, 100, 1 << 20, true);
	u32 i, j, k, tag, order;
	enum prefix_hit h;
	struct ref r;
	u64 fp = 0;

	ASSERT_NE(NULL, s);
	for (order = 0; order < 2; order++) {
		ref_init(&r, 4);
		for (i = 0; i < ARRAY_SIZE(nest); i++) {
			j = order ? ARRAY_SIZE(nest) - 1 - i : i;
			ASSERT_EQ(0, add4t(s, nest[j].v, nest[j].len,
					   nest[j].tag));
			ref_add4(&r, nest[j].v, nest[j].len, nest[j].tag);
			ASSERT_EQ(0U, check_set(s, &r));
			for (k = 0; k < ARRAY_SIZE(probe); k++) {
				u8 a[4];

				ip4(a, probe[k]);
				h = match_tag(s, a, &tag);
				ASSERT_TRUE(ref_verdict_ok(&r, a, true, h, tag,
							   &fp));
			}
		}
		/* the /32 answers for itself, the /25 is the only one there */
		ASSERT_EQ(5U, tag4(s, 0x0a010207));
		for (i = 0; i < ARRAY_SIZE(nest); i++) {
			ASSERT_EQ(0, retag4(s, nest[i].v, nest[i].len,
					    nest[i].tag + 10));
			r.m[ref_find4(&r, nest[i].v, nest[i].len)].tag =
				nest[i].tag + 10;
			ASSERT_EQ(0U, check_set(s, &r));
		}
		ASSERT_EQ(15U, tag4(s, 0x0a010207));
		/* delete from the longest (shortest): the next one answers */
		for (i = 0; i < ARRAY_SIZE(nest); i++) {
			u8 a[4];

			j = order ? i : ARRAY_SIZE(nest) - 1 - i;
			ASSERT_EQ(0, del4(s, nest[j].v, nest[j].len));
			ref_del_at(&r, ref_find4(&r, nest[j].v, nest[j].len));
			ASSERT_EQ(0U, check_set(s, &r));
			for (k = 0; k < ARRAY_SIZE(probe); k++) {
				ip4(a, probe[k]);
				h = match_tag(s, a, &tag);
				ASSERT_TRUE(ref_verdict_ok(&r, a, true, h, tag,
							   &fp));
			}
			if (r.n == 1)
				ASSERT_EQ(r.m[0].tag,
					  tag4(s, r.m[0].a[0] << 24 |
						  r.m[0].a[1] << 16 |
						  r.m[0].a[2] << 8 | r.m[0].a[3]));
		}
		ASSERT_TRUE(set_empty(s));
		ref_free(&r);
	}
	/* the entry at /16 names the /14 (tag 6), the /15 (7), the /14 again */
	ASSERT_EQ(0, add4t(s, 0x0a000000, 14, 6));
	ASSERT_EQ(0, add4t(s, 0x0a010200, 24, 8));
	ASSERT_EQ(6U, tag4(s, 0x0a010203));
	ASSERT_EQ(0, add4t(s, 0x0a000000, 15, 7));
	ASSERT_EQ(7U, tag4(s, 0x0a010203));
	ASSERT_EQ(0, retag4(s, 0x0a000000, 15, 9));
	ASSERT_EQ(9U, tag4(s, 0x0a010203));
	ASSERT_EQ(0, del4(s, 0x0a000000, 15));
	ASSERT_EQ(6U, tag4(s, 0x0a010203));
	ASSERT_EQ(0, retag4(s, 0x0a000000, 14, 31));
	ASSERT_EQ(31U, tag4(s, 0x0a010203));
	ASSERT_EQ(31U, tag4(s, 0x0a030000));
	prefix_set_destroy(s);
}

TEST(list_round_trip)
{
	u32 exact;

	for (exact = 0; exact <= 1; exact++) {
		struct prefix_set *s = make(16, exact ? 16 : 4096,
					    exact ? 4096 : 0, exact);
		static u8 want[3000 * PREFIX_ENTRY_LEN(16)];
		static u8 got[3000 * PREFIX_ENTRY_LEN(16)];
		u64 n = 0, i, gen;
		u8 a[16];

		ASSERT_NE(NULL, s);
		gen = prefix_set_list_gen(s);
		for (i = 0; i < 600; i++) {
			static const u8 lens[] = { 48, 56, 64, 100, 0, 127 };
			u32 len = i % 3 == 0 ? 128 : lens[i % 6];

			memset(a, 0, sizeof(a));
			if (len) {
				a[0] = 0x20;
				a[1] = i;
				a[2] = i >> 8;
			}
			if (len >= 127)
				a[15] = len == 128;
			if (prefix_set_insert(s, a, len, 0) == -EEXIST &&
			    !len)
				continue;
			if (len == 128 && !exact)
				continue;
			memset(want + n * PREFIX_ENTRY_LEN(16), 0,
			       PREFIX_ENTRY_LEN(16));
			memcpy(want + n * PREFIX_ENTRY_LEN(16), a, 16);
			want[n * PREFIX_ENTRY_LEN(16) + 16] = len;
			n++;
		}
		ASSERT_NE(gen, prefix_set_list_gen(s));	/* tables grew */
		ASSERT_LT(0U, stats_of(s).markers);	/* not listed */
		qsort(want, n, PREFIX_ENTRY_LEN(16), entry_cmp);
		ASSERT_EQ(n, list_all(s, got, 3000, 3));
		ASSERT_EQ(0, memcmp(want, got, n * PREFIX_ENTRY_LEN(16)));
		ASSERT_EQ(n, list_all(s, got, 3000, 1));
		ASSERT_EQ(0, memcmp(want, got, n * PREFIX_ENTRY_LEN(16)));
		ASSERT_EQ(n, list_all(s, got, 3000, 64));
		ASSERT_EQ(0, memcmp(want, got, n * PREFIX_ENTRY_LEN(16)));
		prefix_set_destroy(s);
	}
}

TEST(list_ipv4_entries_are_five_bytes)
{
	struct prefix_set *s = make(4, 16, 64, true);
	u8 out[4 * PREFIX_ENTRY_LEN(4)];
	u64 pos = 0;

	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, add4(s, 0xc0000207, 32));
	ASSERT_EQ(0, add4(s, 0xc0000200, 24));
	ASSERT_EQ(1, prefix_set_list(s, &pos, out, 1));
	ASSERT_EQ(0, memcmp(out, "\xc0\x00\x02\x07\x20", 5));
	ASSERT_EQ(1, prefix_set_list(s, &pos, out, 4));
	ASSERT_EQ(0, memcmp(out, "\xc0\x00\x02\x00\x18", 5));
	ASSERT_EQ(0, prefix_set_list(s, &pos, out, 4));
	ASSERT_EQ(0, prefix_set_list(s, &pos, out, 4));
	prefix_set_destroy(s);
}

/*
 * LIST keeps a position in 56 bits of its cursor (kmod/dev.c): one in the
 * length tables must survive that, or every call restarts the same page
 * and the listing never ends.
 */
TEST(list_positions_fit_the_cursor_and_end)
{
	struct prefix_set *s = make(16, 64, 1 << 20, true);
	u8 out[7 * PREFIX_ENTRY_LEN(16)];
	u64 pos = 0, n = 0, calls = 0;
	u8 a[16] = { 0x20, 0x01 };
	u32 i;
	long k;

	ASSERT_NE(NULL, s);
	for (i = 0; i < 5000; i++) {
		a[2] = i >> 8;
		a[3] = i;
		ASSERT_EQ(0, prefix_set_insert(s, a, i % 2 ? 127 : 32, 0));
	}
	for (i = 0; i < 100; i++) {
		a[15] = i;
		a[8] = 1;
		ASSERT_EQ(0, prefix_set_insert(s, a, 128, 0));
	}
	while ((k = prefix_set_list(s, &pos, out, 7)) != 0) {
		ASSERT_LT(pos, 1ULL << 56);
		ASSERT_LT(++calls, 10000U);
		if (k == -EAGAIN)
			continue;
		ASSERT_LT(0, k);
		n += k;
	}
	ASSERT_EQ(0, k);
	ASSERT_EQ(5100U, n);
	prefix_set_destroy(s);
}

TEST(list_gen_only_grows)
{
	struct prefix_set *s = make(4, 16, 1 << 16, true);
	u64 last, gen;
	u32 i;

	ASSERT_NE(NULL, s);
	last = prefix_set_list_gen(s);
	for (i = 0; i < 3000; i++) {
		ASSERT_EQ(0, add4(s, 0x0a000000 + (i << 8), 24));
		ASSERT_EQ(0, add4(s, 0xc0000000 + i, 32));
		gen = prefix_set_list_gen(s);
		ASSERT_GE(gen, last);
		last = gen;
	}
	ASSERT_GT(last, 0U);
	ASSERT_EQ(0, prefix_set_clear(s));
	ASSERT_GT(prefix_set_list_gen(s), last);
	prefix_set_destroy(s);
}

/* A table growth past the memory bound is -EDQUOT and changes nothing. */
TEST(growth_past_the_memory_bound_changes_nothing)
{
	const long long room = 1 << 30;
	struct prefix_set *s;
	long long left;
	size_t size;
	u32 i;
	int rc = 0;
	u8 *d;

	cuckoo_host_mem_left = room;
	s = make(4, 16, 1 << 20, true);
	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, add4(s, 0x0b000001, 32));
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, add4(s, 0x0a000000 | i << 12, 24));
	left = cuckoo_host_mem_left;
	cuckoo_host_mem_left = 0;
	/* /24s in new /16s: a marker each at /16, until a table must grow */
	for (; i < 1000 && !rc; i++) {
		d = prefix_dump(s, &size);
		rc = add4(s, 0x0a000000 | i << 12, 24);
		if (rc) {
			ASSERT_EQ(-EDQUOT, rc);
			ASSERT_TRUE(prefix_dump_same(s, d, size));
			ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a000000 | i << 12));
		}
		free(d);
	}
	ASSERT_EQ(-EDQUOT, rc);
	NOTE("refused with -EDQUOT at the %u-th /24\n", i);
	ASSERT_EQ(0, cuckoo_host_mem_left);
	cuckoo_host_mem_left = left;
	ASSERT_EQ(0, add4(s, 0x0a000000 | (i - 1) << 12, 24));
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a000000 | (i - 1) << 12));
	prefix_set_destroy(s);
	EXPECT_EQ(room, cuckoo_host_mem_left);
	cuckoo_host_mem_left = -1;
}

/* clear can fail only where the address table's clear does. */
TEST(clear_removes_everything_or_nothing)
{
	struct prefix_set *s = make(4, 16, 1024, true);
	size_t size;
	u64 gen;
	long budget;
	u8 *d;

	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, add4(s, 0x0a000000, 8));
	ASSERT_EQ(0, add4(s, 0x0a010000, 16));
	ASSERT_EQ(0, add4(s, 0x0a010280, 25));
	ASSERT_EQ(0, add4(s, 0x0b000001, 32));
	ASSERT_EQ(0, add4(s, 0, 0));
	gen = prefix_set_list_gen(s);
	d = prefix_dump(s, &size);
	for (budget = 0; budget < 20; budget++) {
		int rc;

		cuckoo_host_alloc_budget = budget;
		rc = prefix_set_clear(s);
		cuckoo_host_alloc_budget = -1;
		if (!rc)
			break;
		ASSERT_EQ(-ENOMEM, rc);
		ASSERT_TRUE(prefix_dump_same(s, d, size));
		ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a0000ff));
		ASSERT_EQ(PREFIX_ADDR, match4(s, 0x0b000001));
		ASSERT_EQ(gen, prefix_set_list_gen(s));
	}
	free(d);
	ASSERT_LT(0, budget);
	ASSERT_LT(budget, 20);
	ASSERT_NE(gen, prefix_set_list_gen(s));
	ASSERT_TRUE(set_empty(s));
	ASSERT_EQ(0U, s->used[0] | s->used[1]);
	ASSERT_EQ(0U, sum_bits_set(s));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a0000ff));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0b000001));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x01020304));
	ASSERT_EQ(0, add4(s, 0x0a010280, 25));
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a0102ff));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a01027f));
	prefix_set_destroy(s);
}

/*
 * A length table at its max_capacity refuses the last entry of a chain:
 * the markers already added for it go again, and the set is exactly as
 * before. IPv4 /24 after /16; IPv6 /127 after /64 /96 /112 /120 /124 /126.
 */
TEST(enospc_mid_chain_changes_nothing)
{
	u32 alen;

	for (alen = 4; alen <= 16; alen += 12) {
		struct prefix_set *s = make(alen, 4, 4, true);
		u32 bits = 8 * alen, l = alen == 4 ? 24 : 127, i, probes, tag;
		enum prefix_hit h;
		u8 a[16] = { 10 };
		struct ref r;
		size_t size;
		u64 fp = 0;
		u8 *d;
		int rc = 0;

		ASSERT_NE(NULL, s);
		ref_init(&r, alen);
		/* fill table l under one path: one marker per ancestor */
		for (i = 0; !rc; i++) {
			memset(a, 0, sizeof(a));
			a[0] = 10;
			a[(l - 1) / 8] = i << (7 - (l - 1) % 8);
			a[(l - 1) / 8 - 1] = i >> (1 + (l - 1) % 8);
			rc = prefix_set_insert(s, a, l, i % 32);
			if (!rc)
				ref_add(&r, a, l, i % 32);
		}
		ASSERT_EQ(-ENOSPC, rc);
		ASSERT_EQ(0U, check_set(s, &r));
		d = prefix_dump(s, &size);
		memset(a, 0, sizeof(a));
		a[0] = 11;
		ASSERT_EQ(-ENOSPC, prefix_set_insert(s, a, l, 1));
		ASSERT_TRUE(prefix_dump_same(s, d, size));
		ASSERT_EQ(0U, check_set(s, &r));
		ASSERT_EQ(PREFIX_MISS, match(s, a));
		free(d);
		/* the ancestors' tables had room: it failed mid-chain */
		ASSERT_EQ(0, prefix_set_insert(s, a, prefix_lo(l), 2));
		ref_add(&r, a, prefix_lo(l), 2);
		ASSERT_EQ(0U, check_set(s, &r));
		a[bits / 8 - 1] = 1;
		h = prefix_match_counted(s, a, &tag, &probes);
		ASSERT_TRUE(ref_verdict_ok(&r, a, true, h, tag, &fp));
		ASSERT_EQ(2U, tag);
		ref_free(&r);
		prefix_set_destroy(s);
	}
}

/* Every allocation failing in turn, on an insert that makes new tables. */
TEST(enomem_anywhere_changes_nothing)
{
	u32 alen;

	for (alen = 4; alen <= 16; alen += 12) {
		long budget;
		u32 l = alen == 4 ? 31 : 127, tag;

		for (budget = 0;; budget++) {
			struct prefix_set *s = make(alen, 16, 4096, true);
			u8 a[16] = { 10, 1 }, b[16] = { 10 };
			size_t size;
			u8 *d;
			int rc;

			ASSERT_NE(NULL, s);
			ASSERT_EQ(0, prefix_set_insert(s, b, 8, 1));
			ASSERT_EQ(0, prefix_set_insert(s, a, 16, 2));
			d = prefix_dump(s, &size);
			a[3] = 2;
			cuckoo_host_alloc_budget = budget;
			rc = prefix_set_insert(s, a, l, 3);
			cuckoo_host_alloc_budget = -1;
			if (!rc) {
				/* 10.1/16 answers first: a covering member */
				ASSERT_EQ(PREFIX_PREFIX, match_tag(s, a, &tag));
				ASSERT_EQ(2U, tag);
				ASSERT_TRUE(has(s, a, l));
				free(d);
				prefix_set_destroy(s);
				NOTE("IPv%u: insert succeeded with %ld allocations\n",
				     alen == 4 ? 4 : 6, budget);
				ASSERT_LT(2, budget);
				break;
			}
			ASSERT_EQ(-ENOMEM, rc);
			ASSERT_TRUE(prefix_dump_same(s, d, size));
			ASSERT_FALSE(has(s, a, l));
			free(d);
			prefix_set_destroy(s);
		}
	}
}

TEST(compact_address_table)
{
	struct prefix_set *s = make(4, 1000, 0, false);
	u8 out[8 * PREFIX_ENTRY_LEN(4)];
	struct cuckoo_stats cs;
	u64 pos = 0, i, hits = 0;

	ASSERT_NE(NULL, s);
	for (i = 0; i < 500; i++)
		ASSERT_EQ(0, add4(s, 0xc0a80000 | (u32)i, 32));
	ASSERT_EQ(0, add4(s, 0x0a000000, 8));
	cuckoo_get_stats(prefix_set_addrs(s), &cs);
	ASSERT_FALSE(cs.exact);
	ASSERT_EQ(500U, cs.count);
	for (i = 0; i < 500; i++) {
		ASSERT_EQ(PREFIX_ADDR, match4(s, 0xc0a80000 | (u32)i));
		ASSERT_EQ(0U, tag4(s, 0xc0a80000 | (u32)i));
	}
	ASSERT_EQ(0, retag4(s, 0xc0a80001, 32, 3));
	ASSERT_EQ(-ENOENT, retag4(s, 0xc0b80001, 32, 3));
	for (i = 0; i < 10000; i++)
		hits += match4(s, 0xac100000 | (u32)i) != PREFIX_MISS;
	ASSERT_LT(hits, 20U);	/* false positives: 8 / 2^16 each */
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a123456));
	/* only the prefix is listed */
	ASSERT_EQ(1, prefix_set_list(s, &pos, out, 8));
	ASSERT_EQ(0, memcmp(out, "\x0a\0\0\0\x08", 5));
	ASSERT_EQ(0, prefix_set_list(s, &pos, out, 8));
	ASSERT_EQ(0, del4(s, 0xc0a80001, 32));
	ASSERT_EQ(499U, stats_of(s).addrs.count);
	prefix_set_destroy(s);
}

/*
 * Exact addresses with no prefix beside them: the address table is probed
 * before the head word, which a hit then never reads (a cleared word shows
 * it); with a prefix in the set, the head word is read first again.
 */
TEST(addresses_alone_are_probed_before_the_head_word)
{
	struct prefix_set *s = make(4, 1000, 0, true);
	u32 slot = 0xc0a8, a = 0xc0a80102;
	u16 h;

	ASSERT_NE(NULL, s);
	ASSERT_EQ(0U, s->sum.always);
	ASSERT_EQ(0, add4t(s, a, 32, 5));
	ASSERT_EQ(1U, s->sum.always);
	h = s->sum.head[slot];
	ASSERT_NE(0U, h & PREFIX_HEAD_ADDRS);
	s->sum.head[slot] = 0;
	ASSERT_EQ(PREFIX_ADDR, match4(s, a));
	ASSERT_EQ(5U, tag4(s, a));
	ASSERT_EQ(PREFIX_MISS, match4(s, a + 1));
	s->sum.head[slot] = h;

	ASSERT_EQ(0, add4(s, 0x0a000000, 8));
	ASSERT_EQ(0U, s->sum.always);
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a010203));
	s->sum.head[slot] = 0;
	ASSERT_EQ(PREFIX_MISS, match4(s, a));
	s->sum.head[slot] = h;
	ASSERT_EQ(PREFIX_ADDR, match4(s, a));

	ASSERT_EQ(0, del4(s, 0x0a000000, 8));
	ASSERT_EQ(1U, s->sum.always);
	ASSERT_EQ(0, del4(s, a, 32));
	ASSERT_EQ(0U, s->sum.always);
	ASSERT_EQ(PREFIX_MISS, match4(s, a));
	prefix_set_destroy(s);
}

/* Head words: exactly the /16s some member intersects, in any order. */
static const struct {
	u32 v, len;
} sum_members4[] = {
	{ 0x00000000, 0 },	/* every /16 */
	{ 0x0a000000, 8 },	/* 10.0/16 .. 10.255/16 */
	{ 0x0a020000, 15 },	/* 10.2/16, 10.3/16 */
	{ 0x0a010000, 16 },
	{ 0x0a018000, 17 },	/* in 10.1/16, beside the next one */
	{ 0x0a010000, 17 },
	{ 0x0a010203, 32 },
	{ 0x0a040005, 32 },
	{ 0xc0a80000, 16 },
	{ 0xc0a80000, 17 },
	{ 0x0b000000, 15 },
	{ 0xac100000, 12 },
	{ 0xc6336401, 32 },
};

#define SUM_N4	ARRAY_SIZE(sum_members4)

/* Summary of @s against the members whose @in flag is set. */
static u32 sum_check4(const struct prefix_set *s, const bool *in)
{
	struct ref r;
	u32 i, bad;

	ref_init(&r, 4);
	for (i = 0; i < SUM_N4; i++)
		if (in[i])
			ref_add4(&r, sum_members4[i].v, sum_members4[i].len, 0);
	bad = prefix_check_summary(s, &r);
	ref_free(&r);
	return bad;
}

/* Shuffles @order (a permutation of 0..@n-1) with @seed; 0: identity. */
static void permute(u32 *order, u32 n, unsigned int seed)
{
	u32 i, j, t;

	for (i = 0; i < n; i++)
		order[i] = i;
	if (seed == 1) {		/* reversed */
		for (i = 0; i < n / 2; i++) {
			t = order[i];
			order[i] = order[n - 1 - i];
			order[n - 1 - i] = t;
		}
	} else if (seed > 1) {
		srandom(seed);
		for (i = n - 1; i > 0; i--) {
			j = random() % (i + 1);
			t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
	}
}

TEST(summary_bits_follow_ipv4_members_exactly)
{
	u32 ins[SUM_N4], del[SUM_N4], i, k, cleared_checks = 0;
	bool in[SUM_N4] = { false };
	unsigned int seed;

	for (seed = 0; seed < 8; seed++) {
		struct prefix_set *s = make(4, 64, 1 << 20, true);

		ASSERT_NE(NULL, s);
		ASSERT_EQ(0U, sum_bits_set(s));
		permute(ins, SUM_N4, seed * 7);
		permute(del, SUM_N4, seed);
		for (i = 0; i < SUM_N4; i++) {
			k = ins[i];
			ASSERT_EQ(0, add4(s, sum_members4[k].v,
					  sum_members4[k].len));
			in[k] = true;
			ASSERT_EQ(0U, sum_check4(s, in));
		}
		/* 10/8, 11/15, 172.16/12, 192.168/16, 198.51/16; not the /0 */
		ASSERT_EQ(256U + 2 + 16 + 1 + 1, sum_bits_set(s));
		for (i = 0; i < SUM_N4; i++) {
			k = del[i];
			ASSERT_EQ(0, del4(s, sum_members4[k].v,
					  sum_members4[k].len));
			in[k] = false;
			ASSERT_EQ(0U, sum_check4(s, in));
			/* an address of a /16 whose word is clear misses */
			for (k = 0; k < PREFIX_SUM_KEYS; k += 257) {
				if (sum_bit(s, k) || in[0])
					continue;
				ASSERT_EQ(PREFIX_MISS,
					  match4(s, k << 16 | 0x0101));
				cleared_checks++;
			}
		}
		ASSERT_EQ(0U, sum_bits_set(s));
		prefix_set_destroy(s);
	}
	ASSERT_LT(1000U, cleared_checks);
}

TEST(summary_bits_unchanged_by_failed_inserts)
{
	struct prefix_set *s = make(4, 64, 1 << 20, true);
	bool in[SUM_N4] = { false };
	u32 i;

	ASSERT_NE(NULL, s);
	/* the first insert allocates the counts: failing changes nothing */
	cuckoo_host_alloc_budget = 0;
	ASSERT_EQ(-ENOMEM, add4(s, 0x0a01f000, 20));
	ASSERT_EQ(-ENOMEM, add4(s, 0x0a000000, 8));
	cuckoo_host_alloc_budget = -1;
	for (i = 0; i < PREFIX_CLASSES; i++)
		ASSERT_EQ(NULL, s->sum.count[i]);
	ASSERT_EQ(0U, sum_bits_set(s));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a01f001));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a000001));
	for (i = 0; i < SUM_N4; i++) {
		ASSERT_EQ(0, add4(s, sum_members4[i].v, sum_members4[i].len));
		in[i] = true;
	}
	for (i = 0; i < SUM_N4; i++) {
		ASSERT_EQ(-EEXIST, add4(s, sum_members4[i].v,
					sum_members4[i].len));
		ASSERT_EQ(-EINVAL, add4(s, sum_members4[i].v | 1,
					sum_members4[i].len ? 31 : 0));
		ASSERT_EQ(-EINVAL, add4t(s, 0x0a050000, 16, 32));
		ASSERT_EQ(0U, sum_check4(s, in));
	}
	ASSERT_EQ(-ENOENT, del4(s, 0x0a050000, 16));
	ASSERT_EQ(-ENOENT, del4(s, 0x0a050505, 32));
	ASSERT_EQ(0U, sum_check4(s, in));
	prefix_set_destroy(s);
}

/* A set pays for its summary's parts when a member first needs each. */
TEST(summary_allocated_at_the_first_member_that_needs_it)
{
	struct prefix_set *s = make(4, 64, 1 << 20, true);
	struct prefix_set *c = make(4, 1024, 0, false);
	const u64 head = PREFIX_SUM_HEAD_BYTES;
	const u64 mid = PREFIX_SUM_COUNT_BYTES + PREFIX_SUM_HCOUNT_BYTES +
			PREFIX_SUM_HASHED_BYTES;
	int budget;

	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, c);
	ASSERT_EQ(0U, prefix_sum_bytes(&s->sum));
	/* the /0 and compact addresses need no head words */
	ASSERT_EQ(0, add4(s, 0, 0));
	ASSERT_EQ(0, add4(c, 0x0a000001, 32));
	ASSERT_EQ(0U, prefix_sum_bytes(&s->sum));
	ASSERT_EQ(0U, prefix_sum_bytes(&c->sum));
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a000001));
	ASSERT_EQ(PREFIX_ADDR, match4(c, 0x0a000001));
	ASSERT_EQ(0, add4(s, 0x0a000000, 8));
	ASSERT_EQ(head, prefix_sum_bytes(&s->sum));
	/* a /20 needs MID's counts and bits; a failure leaves none */
	for (budget = 0; budget < 3; budget++) {
		cuckoo_host_alloc_budget = budget;
		ASSERT_EQ(-ENOMEM, add4(s, 0x0b01f000, 20));
		cuckoo_host_alloc_budget = -1;
		ASSERT_EQ(head, prefix_sum_bytes(&s->sum));
		ASSERT_EQ(NULL, s->sum.hashed[PREFIX_CLASS_MID]);
	}
	ASSERT_EQ(0, add4(s, 0x0b01f000, 20));
	ASSERT_EQ(head + mid, prefix_sum_bytes(&s->sum));
	/* an exact IPv4 address: counts, no hashed bits */
	ASSERT_EQ(0, add4(s, 0x0c000001, 32));
	ASSERT_EQ(head + mid + PREFIX_SUM_COUNT_BYTES,
		  prefix_sum_bytes(&s->sum));
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0b01f001));
	ASSERT_EQ(PREFIX_ADDR, match4(s, 0x0c000001));
	prefix_set_destroy(s);
	prefix_set_destroy(c);
}

TEST(summary_cleared_by_clear)
{
	struct prefix_set *s = make(4, 64, 1 << 20, true);
	bool in[SUM_N4] = { false };
	u32 i;

	ASSERT_NE(NULL, s);
	for (i = 0; i < SUM_N4; i++)
		ASSERT_EQ(0, add4(s, sum_members4[i].v, sum_members4[i].len));
	ASSERT_EQ(0, prefix_set_clear(s));
	ASSERT_EQ(0U, sum_check4(s, in));
	ASSERT_EQ(0U, sum_bits_set(s));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a010203));
	/* the counts start again from zero */
	ASSERT_EQ(0, add4(s, 0x0a018000, 17));
	in[4] = true;
	ASSERT_EQ(0U, sum_check4(s, in));
	ASSERT_EQ(0, del4(s, 0x0a018000, 17));
	ASSERT_EQ(0U, sum_bits_set(s));
	prefix_set_destroy(s);
}

TEST(summary_compact_mode_counts_prefixes_only)
{
	struct prefix_set *s = make(4, 1024, 0, false);
	bool in[SUM_N4] = { false };
	u32 i;

	ASSERT_NE(NULL, s);
	for (i = 0; i < SUM_N4; i++) {
		if (sum_members4[i].len == 0)
			continue;	/* it would hide the others */
		ASSERT_EQ(0, add4(s, sum_members4[i].v, sum_members4[i].len));
		in[i] = true;
		ASSERT_EQ(0U, sum_check4(s, in));
	}
	/* 198.51.100.1: no prefix in its /16, found in the address table */
	ASSERT_FALSE(sum_bit(s, 0xc6336401 >> 16));
	ASSERT_EQ(PREFIX_ADDR, match4(s, 0xc6336401));
	ASSERT_EQ(PREFIX_ADDR, match4(s, 0x0a040005));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0xc6346401));
	ASSERT_EQ(0, del4(s, 0xc6336401, 32));
	in[12] = false;
	ASSERT_EQ(0U, sum_check4(s, in));
	prefix_set_destroy(s);
}

TEST(summary_ipv6_flags_slash16s_and_hashes_long_members)
{
	struct prefix_set *s = make(16, 64, 1 << 20, true);
	u8 a[16] = { 0x20, 0x01, 0x0d, 0xb8 }, b[16] = { 0 };
	u32 k = prefix_sum_hash(prefix_sum_block(PREFIX_CLASS_DEEP, a));
	u32 tag, probes, v;

	ASSERT_NE(NULL, s);
	/* a /32, a /48 inside it and an address: one /16, one hashed /32 */
	ASSERT_EQ(0, prefix_set_insert(s, a, 32, 0));
	a[5] = 0x01;
	ASSERT_EQ(0, prefix_set_insert(s, a, 48, 0));
	a[15] = 0x07;
	ASSERT_EQ(0, prefix_set_insert(s, a, 128, 0));
	ASSERT_EQ(1U, sum_bits_set(s));
	ASSERT_EQ(PREFIX_HEAD_DEEP | PREFIX_HEAD_ADDRS, head_of(s, 0x2001));
	ASSERT_EQ(2U, sum_count_of(s->sum.hcount[PREFIX_CLASS_DEEP], k));
	ASSERT_EQ(1U, sum_count_of(s->sum.hcount[PREFIX_CLASS_ADDRS], k));
	/* 2001:db9::1 shares the /16 but not the hashed /32: no probe */
	b[0] = 0x20;
	b[1] = 0x01;
	b[2] = 0x0d;
	b[3] = 0xb9;
	b[15] = 1;
	ASSERT_FALSE(hashed_bit_at(s, PREFIX_CLASS_DEEP, b));
	ASSERT_EQ(PREFIX_MISS, (int)prefix_match_counted(s, b, &tag, &probes));
	ASSERT_EQ(0U, probes);
	ASSERT_EQ(0, prefix_set_delete(s, a, 128));
	a[15] = 0;
	ASSERT_EQ(0, prefix_set_delete(s, a, 48));
	ASSERT_EQ(PREFIX_HEAD_DEEP, head_of(s, 0x2001));
	a[5] = 0;
	ASSERT_EQ(0, prefix_set_delete(s, a, 32));
	ASSERT_EQ(0U, sum_bits_set(s));
	/* a /20: one flag, a bit per /24 it covers, no /32's */
	memset(b, 0, sizeof(b));
	b[0] = 0x24;
	b[1] = 0x00;
	b[2] = 0xd0;
	ASSERT_EQ(0, prefix_set_insert(s, b, 20, 3));
	ASSERT_EQ(1U, sum_bits_set(s));
	ASSERT_EQ(PREFIX_HEAD_MID, head_of(s, 0x2400));
	for (k = 0, v = 0; k < PREFIX_SUM_KEYS; k++) {
		ASSERT_FALSE(hashed_bit_of(s, PREFIX_CLASS_DEEP, k));
		v += hashed_bit_of(s, PREFIX_CLASS_MID, k);
	}
	ASSERT_GE(16U, v);
	ASSERT_LT(12U, v);
	/* 2400:e0::1: the same /16, another /24 whose bit is clear */
	b[2] = 0xe0;
	b[15] = 1;
	ASSERT_FALSE(hashed_bit_at(s, PREFIX_CLASS_MID, b));
	ASSERT_EQ(PREFIX_MISS, (int)prefix_match_counted(s, b, &tag, &probes));
	ASSERT_EQ(0U, probes);
	b[2] = 0xd7;
	ASSERT_EQ(PREFIX_PREFIX, (int)prefix_match_counted(s, b, &tag,
							   &probes));
	ASSERT_EQ(3U, tag);
	b[15] = 0;
	/* a /15 names two /16s: its lookups answer with no probe */
	b[2] = 0;
	ASSERT_EQ(0, prefix_set_insert(s, b, 15, 4));
	ASSERT_EQ(2U, sum_bits_set(s));
	ASSERT_EQ(PREFIX_HEAD_NAME(15, 4), head_of(s, 0x2401));
	b[1] = 1;
	b[4] = 0x99;
	ASSERT_EQ(PREFIX_PREFIX, (int)prefix_match_counted(s, b, &tag,
							   &probes));
	ASSERT_EQ(4U, tag);
	ASSERT_EQ(0U, probes);
	/* deleting it names nothing again; the /20 keeps its flag */
	b[1] = 0;
	b[4] = 0;
	ASSERT_EQ(0, prefix_set_delete(s, b, 15));
	ASSERT_EQ(PREFIX_HEAD_MID, head_of(s, 0x2400));
	ASSERT_EQ(0U, head_of(s, 0x2401));
	b[2] = 0xd0;
	ASSERT_EQ(0, prefix_set_delete(s, b, 20));
	ASSERT_EQ(0U, sum_bits_set(s));
	b[0] = 0x26;
	ASSERT_EQ(PREFIX_MISS, match(s, b));
	prefix_set_destroy(s);
}

/*
 * Inside a /32 that holds a /48, a /64 and an address, the other /48s are
 * turned away by the fine bits with no probe; so are the other /40s once
 * a /40 comes, but not once a /36 does (its grain is the /32); a /29 of
 * a /24 turns away the other /29s. The members are found throughout.
 */
TEST(summary_ipv6_fine_bits_split_blocks)
{
	struct prefix_set *s = make(16, 64, 1 << 20, true);
	u8 m48[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01 };
	u8 m64[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x02, 0x00, 0x03 };
	u8 m128[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x04, [15] = 0x07 };
	u8 m40[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x01 };
	u8 m36[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x10 };
	u8 m29[16] = { 0x2a, 0x02, 0x08, 0x18 };
	u8 out[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x09, [15] = 0x01 };
	u8 out29[16] = { 0x2a, 0x02, 0x08, 0x20, [15] = 0x01 };
	u8 in[16];
	u32 tag, probes, c;
	struct ref r;

	ASSERT_NE(NULL, s);
	ref_init(&r, 16);
	ASSERT_EQ(0, prefix_set_insert(s, m48, 48, 1));
	ASSERT_EQ(0, prefix_set_insert(s, m64, 64, 2));
	ASSERT_EQ(0, prefix_set_insert(s, m128, 128, 3));
	ref_add(&r, m48, 48, 1);
	ref_add(&r, m64, 64, 2);
	ref_add(&r, m128, 128, 3);
	ASSERT_EQ(0U, check_set(s, &r));
	/* the /32 bits of every class admit @out; the fine ones do not */
	for (c = PREFIX_CLASS_DEEP; c < PREFIX_CLASSES; c++)
		ASSERT_TRUE(hashed_bit_at(s, c, out));
	ASSERT_TRUE(hashed_bit_at(s, PREFIX_CLASS_ADDRS, out));
	ASSERT_FALSE(fine_bit_at(s, PREFIX_CLASS_DEEP, out, 48));
	ASSERT_FALSE(fine_bit_at(s, PREFIX_CLASS_SUBNET, out, 64));
	ASSERT_FALSE(fine_bit_at(s, PREFIX_CLASS_ADDRS, out, 64));
	ASSERT_EQ(PREFIX_MISS, (int)prefix_match_counted(s, out, &tag, &probes));
	ASSERT_EQ(0U, probes);
	memcpy(in, m48, 16);
	in[15] = 9;
	ASSERT_EQ(PREFIX_PREFIX, (int)prefix_match_counted(s, in, &tag, &probes));
	ASSERT_EQ(1U, tag);
	memcpy(in, m64, 16);
	in[9] = 0x42;
	ASSERT_EQ(PREFIX_PREFIX, (int)prefix_match_counted(s, in, &tag, &probes));
	ASSERT_EQ(2U, tag);
	ASSERT_EQ(PREFIX_ADDR, (int)prefix_match_counted(s, m128, &tag, &probes));
	ASSERT_EQ(3U, tag);
	/* a /40 elsewhere in the /32 sets its /40's bit, not @out's */
	ASSERT_EQ(0, prefix_set_insert(s, m40, 40, 4));
	ref_add(&r, m40, 40, 4);
	ASSERT_EQ(0U, check_set(s, &r));
	ASSERT_FALSE(fine_bit_at(s, PREFIX_CLASS_DEEP, out, 40));
	ASSERT_EQ(PREFIX_MISS, (int)prefix_match_counted(s, out, &tag, &probes));
	ASSERT_EQ(0U, probes);
	memcpy(in, m40, 16);
	in[5] = 0x77;
	ASSERT_EQ(PREFIX_PREFIX, (int)prefix_match_counted(s, in, &tag, &probes));
	ASSERT_EQ(4U, tag);
	/* a /36 sets its /32's: @out is searched, and missed */
	ASSERT_EQ(0, prefix_set_insert(s, m36, 36, 5));
	ref_add(&r, m36, 36, 5);
	ASSERT_EQ(0U, check_set(s, &r));
	ASSERT_TRUE(fine_bit_at(s, PREFIX_CLASS_DEEP, out, 32));
	ASSERT_EQ(PREFIX_MISS, match(s, out));
	memcpy(in, m36, 16);
	in[4] = 0x1f;
	ASSERT_EQ(PREFIX_PREFIX, (int)prefix_match_counted(s, in, &tag, &probes));
	ASSERT_EQ(5U, tag);
	ASSERT_EQ(0, prefix_set_delete(s, m36, 36));
	ref_del_at(&r, ref_find(&r, m36, 36));
	ASSERT_EQ(0U, check_set(s, &r));
	ASSERT_EQ(PREFIX_MISS, (int)prefix_match_counted(s, out, &tag, &probes));
	ASSERT_EQ(0U, probes);
	/* a /29 turns away the /29 after it, in the same /24 */
	ASSERT_EQ(0, prefix_set_insert(s, m29, 29, 6));
	ref_add(&r, m29, 29, 6);
	ASSERT_EQ(0U, check_set(s, &r));
	ASSERT_TRUE(hashed_bit_at(s, PREFIX_CLASS_MID, out29));
	ASSERT_FALSE(fine_bit_at(s, PREFIX_CLASS_MID, out29, 28));
	ASSERT_FALSE(fine_bit_at(s, PREFIX_CLASS_MID, out29, 24));
	ASSERT_EQ(PREFIX_MISS, (int)prefix_match_counted(s, out29, &tag, &probes));
	ASSERT_EQ(0U, probes);
	memcpy(in, m29, 16);
	in[3] = 0x1f;
	ASSERT_EQ(PREFIX_PREFIX, (int)prefix_match_counted(s, in, &tag, &probes));
	ASSERT_EQ(6U, tag);
	ref_free(&r);
	prefix_set_destroy(s);
}

/*
 * A hashed block's count sticks at 255 members: their deletes then leave
 * its bit set (one probe more, never a miss) until the set is emptied.
 * The /16's count, far from its most, comes down and takes its flag.
 */
TEST(summary_hashed_counts_stick_at_255_and_keep_their_bit)
{
	struct prefix_set *s = make(16, 64, 1 << 20, true);
	u8 a[16] = { 0x20, 0x01, 0x0d, 0xb8 };
	u32 k = prefix_sum_hash(prefix_sum_block(PREFIX_CLASS_DEEP, a));
	const u32 n = PREFIX_SUM_HCOUNT_MAX + 45;
	struct ref r;
	u32 i;

	ASSERT_NE(NULL, s);
	ref_init(&r, 16);
	/* n /48s in 2001:db8::/32: one /16, one hashed /32 */
	for (i = 0; i < n; i++) {
		a[4] = i >> 8;
		a[5] = i;
		ASSERT_EQ(0, prefix_set_insert(s, a, 48, 0));
		ref_add(&r, a, 48, 0);
	}
	ASSERT_EQ(PREFIX_SUM_HCOUNT_MAX,
		  sum_count_of(s->sum.hcount[PREFIX_CLASS_DEEP], k));
	ASSERT_EQ(n, sum_count_of(s->sum.count[PREFIX_CLASS_DEEP], 0x2001));
	ASSERT_EQ(0U, check_set(s, &r));
	for (i = 0; i < n; i++) {
		a[4] = i >> 8;
		a[5] = i;
		ASSERT_EQ(0, prefix_set_delete(s, a, 48));
		ref_del_at(&r, ref_find(&r, a, 48));
	}
	ASSERT_EQ(0U, check_set(s, &r));
	ASSERT_EQ(PREFIX_SUM_HCOUNT_MAX,
		  sum_count_of(s->sum.hcount[PREFIX_CLASS_DEEP], k));
	ASSERT_TRUE(hashed_bit_of(s, PREFIX_CLASS_DEEP, k));
	ASSERT_EQ(0U, head_of(s, 0x2001));
	a[15] = 1;
	ASSERT_EQ(PREFIX_MISS, match(s, a));
	/* a member there again is found; emptying the set unsticks it */
	a[15] = 0;
	ASSERT_EQ(0, prefix_set_insert(s, a, 48, 2));
	a[15] = 1;
	ASSERT_EQ(PREFIX_PREFIX, match(s, a));
	ASSERT_EQ(0, prefix_set_clear(s));
	ASSERT_EQ(0U, sum_count_of(s->sum.hcount[PREFIX_CLASS_DEEP], k));
	ASSERT_FALSE(hashed_bit_of(s, PREFIX_CLASS_DEEP, k));
	ASSERT_EQ(PREFIX_MISS, match(s, a));
	ref_free(&r);
	prefix_set_destroy(s);
}

/*
 * A /16's count sticks at 65535 members of a class: a whole IPv4 /16 of
 * addresses. Deleting them all leaves its flag: the address table is
 * probed, and misses.
 */
TEST(summary_slash16_counts_stick_at_65535_and_keep_their_flag)
{
	struct prefix_set *s = make(4, 64, 1 << 20, true);
	u32 i;

	ASSERT_NE(NULL, s);
	for (i = 0; i <= PREFIX_SUM_COUNT_MAX; i++)
		ASSERT_EQ(0, add4(s, 0x0a000000 | i, 32));
	ASSERT_EQ(PREFIX_SUM_COUNT_MAX,
		  sum_count_of(s->sum.count[PREFIX_CLASS_ADDRS], 0x0a00));
	ASSERT_EQ(PREFIX_ADDR, match4(s, 0x0a00ffff));
	for (i = 0; i <= PREFIX_SUM_COUNT_MAX; i++)
		ASSERT_EQ(0, del4(s, 0x0a000000 | i, 32));
	ASSERT_EQ(PREFIX_HEAD_ADDRS, head_of(s, 0x0a00));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a000102));
	ASSERT_EQ(0, add4(s, 0x0a000102, 32));
	ASSERT_EQ(PREFIX_ADDR, match4(s, 0x0a000102));
	ASSERT_EQ(0, prefix_set_clear(s));
	ASSERT_EQ(0U, head_of(s, 0x0a00));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a000102));
	prefix_set_destroy(s);
}

/*
 * Head words name the longest member up to /16: a longer one takes over,
 * and when it goes, or is retagged, the next shorter one is named again.
 */
TEST(summary_names_follow_short_members)
{
	struct prefix_set *s = make(4, 64, 1 << 20, true);
	u32 tag, probes;
	u8 a[16];

	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, add4t(s, 0x0a000000, 8, 1));
	ASSERT_EQ(PREFIX_HEAD_NAME(8, 1), head_of(s, 0x0a05));
	ASSERT_EQ(0, add4t(s, 0x0a040000, 14, 2));
	ASSERT_EQ(PREFIX_HEAD_NAME(14, 2), head_of(s, 0x0a05));
	ASSERT_EQ(PREFIX_HEAD_NAME(8, 1), head_of(s, 0x0a08));
	ASSERT_EQ(0, add4t(s, 0x0a050000, 16, 3));
	ASSERT_EQ(0, add4t(s, 0x0a050000, 20, 4));
	ASSERT_EQ(PREFIX_HEAD_NAME(16, 3) | PREFIX_HEAD_MID,
		  head_of(s, 0x0a05));
	ip4(a, 0x0a050001);
	ASSERT_EQ(PREFIX_PREFIX, (int)prefix_match_counted(s, a, &tag,
							   &probes));
	ASSERT_EQ(0U, probes);
	ASSERT_EQ(3U, tag);
	ASSERT_EQ(0, retag4(s, 0x0a040000, 14, 5));
	ASSERT_EQ(PREFIX_HEAD_NAME(14, 5), head_of(s, 0x0a06));
	ASSERT_EQ(0, del4(s, 0x0a050000, 16));
	ASSERT_EQ(PREFIX_HEAD_NAME(14, 5) | PREFIX_HEAD_MID,
		  head_of(s, 0x0a05));
	ASSERT_EQ(0, del4(s, 0x0a040000, 14));
	ASSERT_EQ(PREFIX_HEAD_NAME(8, 1) | PREFIX_HEAD_MID,
		  head_of(s, 0x0a05));
	ASSERT_EQ(0, del4(s, 0x0a000000, 8));
	ASSERT_EQ(PREFIX_HEAD_MID, head_of(s, 0x0a05));
	/* only the /20 now: found from the root of /17../31 */
	ASSERT_EQ(PREFIX_PREFIX, (int)prefix_match_counted(s, a, &tag,
							   &probes));
	ASSERT_EQ(4U, tag);
	ASSERT_LE(1U, probes);
	ip4(a, 0x0a051001);
	ASSERT_EQ(PREFIX_MISS, match(s, a));
	prefix_set_destroy(s);
}

/* Random members of a length mix, and addresses to check them with. */
enum mix { MIX_ALL, MIX_SHORT, MIX_LONG, MIX_CLUSTER, MIX_NESTED, MIX_N };

static const char *const mix_name[] = { "all lengths", "short", "long",
					"clustered", "nested chains" };

/* splitmix64: a fixed seed per case, so a failure reproduces. */
static u64 rnd(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rnd_bytes(u64 *state, u8 *a, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		a[i] = rnd(state);
}

struct gen {
	u64 rng;
	u32 alen, bits;
	enum mix mix;
	u8 base[4][16];		/* the clusters, and the current chain */
	u32 chain_len;		/* the chain's next length; 0: none */
};

static void gen_init(struct gen *g, u32 alen, enum mix mix, u64 seed)
{
	u32 i;

	memset(g, 0, sizeof(*g));
	g->rng = seed;
	g->alen = alen;
	g->bits = 8 * alen;
	g->mix = mix;
	for (i = 0; i < 4; i++)
		rnd_bytes(&g->rng, g->base[i], alen);
}

/* The next member of @g's mix: address (masked) and length. */
static void gen_member(struct gen *g, u8 *a, u32 *len)
{
	u32 b = g->bits, c;

	rnd_bytes(&g->rng, a, g->alen);
	switch (g->mix) {
	case MIX_ALL:
		*len = 1 + rnd(&g->rng) % b;
		break;
	case MIX_SHORT:
		/* (IPv4: /1../12, enough distinct prefixes for the sets) */
		*len = 1 + rnd(&g->rng) % (b / 4 + 4);
		break;
	case MIX_LONG:
		*len = b - rnd(&g->rng) % (b / 4);
		break;
	case MIX_CLUSTER:
		/* a few /16s (/32s): the markers of every member collide */
		c = b == 32 ? 2 : 4;
		memcpy(a, g->base[rnd(&g->rng) % 3], c);
		*len = c * 8 + rnd(&g->rng) % (b - c * 8 + 1);
		break;
	default:
		/* /s > /s+1 > ... > /b around one address, then another */
		if (!g->chain_len || g->chain_len > b) {
			rnd_bytes(&g->rng, g->base[3], g->alen);
			g->chain_len = 1 + rnd(&g->rng) % (b / 2);
		}
		memcpy(a, g->base[3], g->alen);
		*len = g->chain_len;
		g->chain_len += 1 + (rnd(&g->rng) % 4 == 0);
		break;
	}
	prefix_mask(a, g->alen, *len);
}

/* An address: random, inside a random member, or at or beside its ends. */
static void gen_addr(struct gen *g, const struct ref *r, u32 k, u8 *a)
{
	const struct ref_member *m;
	u32 b, i;

	rnd_bytes(&g->rng, a, g->alen);
	if (!r->n || k % 4 == 0)
		return;
	m = &r->m[rnd(&g->rng) % r->n];
	if (k % 4 == 1) {
		for (b = 0; b < m->len; b++)
			if (((m->a[b / 8] >> (7 - b % 8)) & 1) !=
			    ((a[b / 8] >> (7 - b % 8)) & 1))
				a[b / 8] ^= 0x80 >> (b % 8);
		return;
	}
	memcpy(a, m->a, g->alen);
	if (k & 4)	/* the last address: the host bits set */
		for (b = m->len; b < g->bits; b++)
			a[b / 8] |= 0x80 >> (b % 8);
	/* one beyond: +1 after the last, -1 before the first */
	if (k % 4 == 3)
		for (i = g->alen; i-- > 0;) {
			a[i] += (k & 4) ? 1 : -1;
			if (a[i] != ((k & 4) ? 0 : 0xff))
				break;
		}
}

struct tally {
	u64 checks, wrong, fp;
	u32 max_probes;
};

/* @n addresses against the reference, the probes of each counted. */
static void check_addrs(const struct prefix_set *s, struct gen *g,
			const struct ref *r, u32 n, struct tally *t)
{
	u32 k, tag, probes;
	enum prefix_hit h;
	u8 a[16];

	for (k = 0; k < n; k++) {
		gen_addr(g, r, k, a);
		h = prefix_match_counted(s, a, &tag, &probes);
		t->checks++;
		if (probes > t->max_probes)
			t->max_probes = probes;
		if (!ref_verdict_ok(r, a, s->addrs_known, h, tag, &t->fp) &&
		    t->wrong++ < 5)
			NOTE("wrong verdict %d tag %u on %s\n", h, tag,
			     check_show(a, g->alen, g->bits));
	}
}

/* Inserts @n members of @g's mix; 0, or the first unexpected error. */
static int fill(struct prefix_set *s, struct gen *g, struct ref *r, u32 n)
{
	u32 len, tag;
	u8 a[16];
	int rc;

	while (r->n < n) {
		memset(a, 0, sizeof(a));
		gen_member(g, a, &len);
		tag = rnd(&g->rng) % 32;
		rc = prefix_set_insert(s, a, len, tag);
		if (rc != (ref_find(r, a, len) >= 0 ? -EEXIST : 0))
			return rc ? rc : -EEXIST;
		if (!rc)
			ref_add(r, a, len, tag);
	}
	return 0;
}

/*
 * (b) Random sets of each mix, both families: every verdict and tag
 * against the reference, on random and edge addresses; then half the
 * members deleted at random, and again; the structure checked each time.
 */
TEST(random_sets_of_every_length_mix_match_the_reference)
{
	u32 alen, mix, members = SANITIZED ? 300 : 800, i;

	for (alen = 4; alen <= 16; alen += 12) {
		for (mix = 0; mix < MIX_N; mix++) {
			struct prefix_set *s = make(alen, 64, 1 << 20, true);
			struct tally t = { 0 };
			struct gen g;
			struct ref r;

			ASSERT_NE(NULL, s);
			ref_init(&r, alen);
			gen_init(&g, alen, mix, SEED + 100 * alen + mix);
			ASSERT_EQ(0, fill(s, &g, &r, members));
			ASSERT_EQ(0U, check_set(s, &r));
			ASSERT_EQ(0U, prefix_check_summary(s, &r));
			check_addrs(s, &g, &r, 8 * members, &t);
			for (i = 0; i < members / 2; i++) {
				u32 at = rnd(&g.rng) % r.n;

				ASSERT_EQ(0, prefix_set_delete(s, r.m[at].a,
							       r.m[at].len));
				ref_del_at(&r, at);
			}
			ASSERT_EQ(0U, check_set(s, &r));
			ASSERT_EQ(0U, prefix_check_summary(s, &r));
			check_addrs(s, &g, &r, 8 * members, &t);
			NOTE("IPv%u %s: %u lengths, %llu markers, %llu checks, %llu wrong, max %u probes\n",
			     alen == 4 ? 4 : 6, mix_name[mix],
			     stats_of(s).lengths,
			     (unsigned long long)stats_of(s).markers,
			     (unsigned long long)t.checks,
			     (unsigned long long)t.wrong, t.max_probes);
			ASSERT_EQ(0U, t.wrong);
			ASSERT_LE(t.max_probes, stats_of(s).probes);
			while (r.n) {
				ASSERT_EQ(0, prefix_set_delete(s, r.m[0].a,
							       r.m[0].len));
				ref_del_at(&r, 0);
			}
			ASSERT_TRUE(set_empty(s));
			ASSERT_EQ(0U, sum_bits_set(s));
			ref_free(&r);
			prefix_set_destroy(s);
		}
	}
}

/*
 * (c) A lookup makes at most 1 + log2(W) probes: the address table and
 * one per level of the tree of lengths it searches (IPv4: /17../31, as
 * the head words name the members up to /16), 5 for IPv4 and 8 for IPv6, on
 * random and edge addresses of sets with every length. A /31 (/127) and
 * an address in its /16 (/32) make a lookup beside the /31 take them all
 * (address table, then bare markers down to /30, a miss at /31): the
 * count is real.
 */
TEST(probes_per_lookup_are_at_most_5_ipv4_8_ipv6)
{
	u32 alen;

	for (alen = 4; alen <= 16; alen += 12) {
		struct prefix_set *s = make(alen, 64, 1 << 20, true);
		u32 bits = 8 * alen, most = 0, want = alen == 4 ? 5 : 8;
		u32 tag, probes, k, mix;
		u8 a[16] = { 0 };
		struct ref r;
		struct gen g;

		ASSERT_NE(NULL, s);
		ASSERT_EQ(want, stats_of(s).probes);
		ref_init(&r, alen);
		for (mix = 0; mix < MIX_N; mix++) {
			gen_init(&g, alen, mix, SEED + alen + mix);
			ASSERT_EQ(0, fill(s, &g, &r, 100 * (mix + 1)));
		}
		for (k = 0; k < 100000; k++) {
			gen_addr(&g, &r, k, a);
			prefix_match_counted(s, a, &tag, &probes);
			ASSERT_LE(probes, want);
			if (probes > most)
				most = probes;
		}
		NOTE("IPv%u: %u lengths, at most %u probes per lookup\n",
		     alen == 4 ? 4 : 6, stats_of(s).lengths, most);
		ASSERT_EQ(0, prefix_set_clear(s));

		memset(a, 0, sizeof(a));
		a[0] = 0x20;
		a[bits / 8 - 1] = 4;
		ASSERT_EQ(0, prefix_set_insert(s, a, bits - 1, 1));
		a[bits / 8 - 1] = 0x80;
		ASSERT_EQ(0, prefix_set_insert(s, a, bits, 2));
		a[bits / 8 - 1] = 6;
		ASSERT_EQ(PREFIX_MISS, (int)prefix_match_counted(s, a, &tag,
								 &probes));
		ASSERT_EQ(want, probes);
		a[bits / 8 - 1] = 5;
		ASSERT_EQ(PREFIX_PREFIX, (int)prefix_match_counted(s, a, &tag,
								   &probes));
		ASSERT_EQ(want, probes);
		ref_free(&r);
		prefix_set_destroy(s);
	}
}

/* The members of @r, sorted, as list_all() returns them; their number. */
static u64 ref_listed(const struct ref *r, u8 *out)
{
	u32 i;

	for (i = 0; i < r->n; i++) {
		u8 *w = out + i * PREFIX_ENTRY_LEN(16);

		memcpy(w, r->m[i].a, 16);
		w[16] = r->m[i].len;
	}
	qsort(out, r->n, PREFIX_ENTRY_LEN(16), entry_cmp);
	return r->n;
}

enum { ROP_INSERT, ROP_DELETE, ROP_RETAG, ROP_ABSENT, ROP_LIST, ROP_CLEAR,
       ROP_N };

static const char *const rop_name[] = { "inserts", "deletes", "retags",
					"absent", "lists", "clears" };

/* One random operation on @s and @r; its kind counted in @ops. */
static void random_op(struct __test_metadata *_metadata, struct prefix_set *s,
		      struct gen *g, struct ref *r, u32 *ops)
{
	static u8 want[2048 * PREFIX_ENTRY_LEN(16)], got[sizeof(want)];
	u32 op = rnd(&g->rng) % 100, len, tag, at;
	u8 a[16] = { 0 };
	int rc;

	if (op < 50 || !r->n) {
		gen_member(g, a, &len);
		tag = rnd(&g->rng) % 32;
		rc = prefix_set_insert(s, a, len, tag);
		ASSERT_EQ(ref_find(r, a, len) >= 0 ? -EEXIST : 0, rc);
		if (!rc)
			ref_add(r, a, len, tag);
		ops[ROP_INSERT]++;
	} else if (op < 80) {
		at = rnd(&g->rng) % r->n;
		ASSERT_EQ(0, prefix_set_delete(s, r->m[at].a, r->m[at].len));
		ref_del_at(r, at);
		ops[ROP_DELETE]++;
	} else if (op < 90) {
		at = rnd(&g->rng) % r->n;
		tag = rnd(&g->rng) % 32;
		ASSERT_EQ(0, prefix_set_retag(s, r->m[at].a, r->m[at].len,
					      tag));
		r->m[at].tag = tag;
		ops[ROP_RETAG]++;
	} else if (op < 95) {
		gen_member(g, a, &len);
		if (ref_find(r, a, len) >= 0)
			return;
		ASSERT_EQ(-ENOENT, prefix_set_delete(s, a, len));
		ASSERT_EQ(-ENOENT, prefix_set_retag(s, a, len, 1));
		ASSERT_FALSE(has(s, a, len));
		ops[ROP_ABSENT]++;
	} else if (op < 99 || rnd(&g->rng) % 4) {
		u64 n = ref_listed(r, want);

		ASSERT_EQ(n, list_all(s, got, 2048, 1 + op % 5));
		ASSERT_EQ(0, memcmp(want, got, n * PREFIX_ENTRY_LEN(16)));
		ops[ROP_LIST]++;
	} else {
		ASSERT_EQ(0, prefix_set_clear(s));
		r->n = 0;
		ops[ROP_CLEAR]++;
	}
}

/*
 * The whole structure is checked after each of thousands of steps: a
 * fixed amount of work that a loaded machine (the host tests run side by
 * side, beside guests) stretches past the harness's default 30 s.
 */
FIXTURE(checked) {};
FIXTURE_SETUP(checked) {}
FIXTURE_TEARDOWN(checked) {}

/*
 * (a) Random operations, the whole structure checked after each: insert,
 * delete (of members and of absent ones), retag, clear, list.
 */
TEST_F_TIMEOUT(checked, invariants_hold_after_random_operations, 300)
{
	u32 alen, mix, steps = SANITIZED ? 600 : 1500;

	for (alen = 4; alen <= 16; alen += 12) {
		for (mix = 0; mix < MIX_N; mix++) {
			struct prefix_set *s = make(alen, 16, 1 << 16, true);
			u32 step, ops[ROP_N] = { 0 }, k;
			struct tally t = { 0 };
			char line[256];
			struct gen g;
			struct ref r;

			ASSERT_NE(NULL, s);
			ref_init(&r, alen);
			gen_init(&g, alen, mix, SEED * 3 + alen * 7 + mix);
			for (step = 0; step < steps; step++) {
				random_op(_metadata, s, &g, &r, ops);
				ASSERT_EQ(0U, check_set(s, &r));
				if (!(step % 50))
					ASSERT_EQ(0U, prefix_check_summary(s, &r));
				check_addrs(s, &g, &r, 4, &t);
			}
			ASSERT_EQ(0U, prefix_check_summary(s, &r));
			line[0] = 0;
			for (k = 0; k < ROP_N; k++)
				snprintf(line + strlen(line),
					 sizeof(line) - strlen(line), " %u %s",
					 ops[k], rop_name[k]);
			NOTE("IPv%u %s: %u steps:%s; %u members, %llu wrong\n",
			     alen == 4 ? 4 : 6, mix_name[mix], steps, line, r.n,
			     (unsigned long long)t.wrong);
			ASSERT_EQ(0U, t.wrong);
			ref_free(&r);
			prefix_set_destroy(s);
		}
	}
}

/*
 * Lock-free readers while the writer churns members that move the
 * stable members' entries: stable 10.8i.0.0/14 (i < 32) and hosts in the
 * free /14s between them; churned /24s under a stable /14 (a marker at
 * /16 naming it), /15s that take that marker over and give it back, a
 * retag, /20s that flip the prefix summary bit of a free /16, addresses
 * that flip the address summary bit of a stable /16, 10/8 now and then,
 * and far prefixes of many lengths.
 */
#define READERS		2
#define STABLE		32
#define CHURN		2000

static struct prefix_set *shared;
static int stop_readers;
static u64 reader_misses, reader_lookups;

static u32 stable_addr(u32 i, u32 r)
{
	return 0x0a000000 | (i % STABLE) << 19 | (r & 0x3ffff);
}

/* Stable address i, in the free /14 after stable prefix i. */
static u32 stable_host(u32 i)
{
	return stable_addr(i, 0) + 0x40001;
}

static void *reader(void *arg)
{
	u64 n = 0, misses = 0;
	u32 r = (uintptr_t)arg * 2654435761U;

	rcu_register_thread();
	while (!__atomic_load_n(&stop_readers, __ATOMIC_RELAXED)) {
		r = r * 1103515245 + 12345;
		/* (an address churned inside a stable /14 may answer first) */
		misses += match4(shared, stable_addr(n, r >> 8)) == PREFIX_MISS;
		misses += match4(shared, stable_host(n)) != PREFIX_ADDR;
		n += 2;
	}
	__atomic_fetch_add(&reader_misses, misses, __ATOMIC_RELAXED);
	__atomic_fetch_add(&reader_lookups, n, __ATOMIC_RELAXED);
	rcu_unregister_thread();
	return NULL;
}

TEST(readers_never_miss_during_updates)
{
	static const u8 far_lens[] = { 30, 2, 28, 4, 24, 13, 31, 1, 19 };
	pthread_t t[READERS];
	u64 i, flips = 0;
	u32 r, v, free16, p24;
	struct ref ref;

	shared = make(4, 64, 1 << 20, true);
	ASSERT_NE(NULL, shared);
	for (i = 0; i < STABLE; i++) {
		ASSERT_EQ(0, add4(shared, stable_addr(i, 0), 14));
		ASSERT_EQ(0, add4(shared, stable_host(i), 32));
	}
	for (r = 0; r < READERS; r++)
		ASSERT_EQ(0, pthread_create(&t[r], NULL, reader,
					    (void *)(uintptr_t)(r + 1)));
	for (i = 0; i < CHURN; i++) {
		u32 len = far_lens[i % ARRAY_SIZE(far_lens)];

		v = (0xc0000000 | (u32)(i * 0x9e3779b1)) &
		    ~(0xffffffffU >> len);
		ASSERT_EQ(0, add4(shared, v, len));
		ASSERT_EQ(0, del4(shared, v, len));
		p24 = stable_addr(i, (u32)(i * 0x2545f491) & 0x3ff00);
		ASSERT_EQ(0, add4t(shared, p24, 24, 1));
		ASSERT_EQ(0, add4t(shared, p24 & 0xfffe0000, 15, 2));
		ASSERT_EQ(0, retag4(shared, p24 & 0xfffe0000, 15, 3));
		ASSERT_EQ(0, del4(shared, p24 & 0xfffe0000, 15));
		ASSERT_EQ(0, del4(shared, p24, 24));
		free16 = stable_addr(i, 0) + 0x50000;
		v = free16 | (i & 0xf) << 12;
		ASSERT_EQ(0, add4(shared, v, 20));
		flips += !!(head_of(shared, free16 >> 16) & PREFIX_HEAD_MID);
		ASSERT_EQ(0, del4(shared, v, 20));
		flips += !(head_of(shared, free16 >> 16) & PREFIX_HEAD_MID);
		if (!(i % 16)) {
			ASSERT_EQ(0, add4(shared, 0x0a000000, 8));
			ASSERT_EQ(0, del4(shared, 0x0a000000, 8));
		}
		v = stable_addr(i, 0xc807);
		ASSERT_EQ(0, add4(shared, v, 32));
		flips += !!(head_of(shared, v >> 16) & PREFIX_HEAD_ADDRS);
		ASSERT_EQ(0, del4(shared, v, 32));
		flips += !(head_of(shared, v >> 16) & PREFIX_HEAD_ADDRS);
	}
	__atomic_store_n(&stop_readers, 1, __ATOMIC_RELAXED);
	for (r = 0; r < READERS; r++)
		pthread_join(t[r], NULL);
	NOTE("readers: %llu lookups, %llu misses, %llu summary bit flips\n",
	     (unsigned long long)reader_lookups,
	     (unsigned long long)reader_misses, (unsigned long long)flips);
	ASSERT_EQ(0U, reader_misses);
	ASSERT_EQ(4U * CHURN, flips);
	ASSERT_LT(10000U, reader_lookups);
	ref_init(&ref, 4);
	for (i = 0; i < STABLE; i++) {
		ref_add4(&ref, stable_addr(i, 0), 14, 0);
		ref_add4(&ref, stable_host(i), 32, 0);
	}
	ASSERT_EQ(0U, check_set(shared, &ref));
	ref_free(&ref);
	prefix_set_destroy(shared);
}

/*
 * (d), (e) A million prefixes of feed-like lengths per family: the time of
 * single inserts and deletes, and the memory per stored prefix, printed
 * (never asserted: timing is the machine's). Skipped under ASan, whose
 * timings mean nothing.
 */
FIXTURE(million) {
	struct prefix_set *s;
};

FIXTURE_VARIANT(million) {
	u32 alen;
};

FIXTURE_VARIANT_ADD(million, ipv4) { .alen = 4 };
FIXTURE_VARIANT_ADD(million, ipv6) { .alen = 16 };

FIXTURE_SETUP(million)
{
	self->s = NULL;
}

FIXTURE_TEARDOWN(million)
{
	prefix_set_destroy(self->s);
}

/* A length as feeds have them: mostly /24 (/48), a tail of every other. */
static u32 feed_len(u64 *rng, u32 alen)
{
	static const u8 v4[] = { 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 23,
				 22, 22, 21, 20, 19, 18, 16, 16, 32, 32, 0 };
	static const u8 v6[] = { 48, 48, 48, 48, 48, 48, 48, 48, 44, 40, 32,
				 32, 29, 36, 56, 64, 64, 64, 128, 128, 0 };
	const u8 *t = alen == 4 ? v4 : v6;
	u32 n = alen == 4 ? sizeof(v4) : sizeof(v6), b = 8 * alen;
	u32 l = t[rnd(rng) % n];

	/* 0: any length, as the long tail of a real feed */
	return l ? l : 8 + rnd(rng) % (b - 7);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#define MILLION		1000000
#define TIMED		2000

TEST_F_TIMEOUT(million, update_cost_and_memory_per_prefix, 300)
{
	static double ins[TIMED], del[TIMED];
	static u8 keys[TIMED][16];
	static u32 lens[TIMED];
	u32 alen = variant->alen, n = 0, i, len;
	u64 rng = SEED ^ alen, tries = 0;
	struct prefix_stats st;
	double t0;
	u8 a[16];
	int rc;

	if (SANITIZED)
		SKIP(return, "timings under ASan mean nothing");
	self->s = make(alen, 1 << 20, 1 << 22, true);
	ASSERT_NE(NULL, self->s);
	t0 = now_us();
	while (n < MILLION) {
		memset(a, 0, sizeof(a));
		rnd_bytes(&rng, a, alen);
		len = feed_len(&rng, alen);
		prefix_mask(a, alen, len);
		rc = prefix_set_insert(self->s, a, len, rnd(&rng) % 32);
		ASSERT_TRUE(rc == 0 || rc == -EEXIST);
		n += !rc;
		tries++;
	}
	prefix_set_get_stats(self->s, &st);
	NOTE("IPv%u: %u members (%llu prefixes, %llu addresses) in %.1f s: %llu markers, %u lengths, %llu bytes, %.1f bytes per stored prefix\n",
	     alen == 4 ? 4 : 6, n, (unsigned long long)st.prefixes,
	     (unsigned long long)st.addrs.count, (now_us() - t0) / 1e6,
	     (unsigned long long)st.markers, st.lengths,
	     (unsigned long long)st.memory_bytes,
	     (double)st.memory_bytes / n);
	for (i = 0; i < TIMED; i++) {
		do {
			memset(keys[i], 0, 16);
			rnd_bytes(&rng, keys[i], alen);
			lens[i] = feed_len(&rng, alen);
			prefix_mask(keys[i], alen, lens[i]);
		} while (has(self->s, keys[i], lens[i]));
		t0 = now_us();
		rc = prefix_set_insert(self->s, keys[i], lens[i], 1);
		ins[i] = now_us() - t0;
		ASSERT_EQ(0, rc);
	}
	for (i = 0; i < TIMED; i++) {
		t0 = now_us();
		rc = prefix_set_delete(self->s, keys[i], lens[i]);
		del[i] = now_us() - t0;
		ASSERT_EQ(0, rc);
	}
	qsort(ins, TIMED, sizeof(ins[0]), cmp_double);
	qsort(del, TIMED, sizeof(del[0]), cmp_double);
	NOTE("IPv%u: single updates in a set of %u: insert median %.2f us, 99%% %.1f us, max %.1f us; delete median %.2f us, 99%% %.1f us, max %.1f us\n",
	     alen == 4 ? 4 : 6, n, ins[TIMED / 2], ins[TIMED * 99 / 100],
	     ins[TIMED - 1], del[TIMED / 2], del[TIMED * 99 / 100],
	     del[TIMED - 1]);
	prefix_set_get_stats(self->s, &st);
	ASSERT_EQ((u64)n, st.prefixes + st.addrs.count);
}

TEST_HARNESS_MAIN
