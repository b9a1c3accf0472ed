// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of prefix sets (core/prefix.c): bad input, members of
 * every length, overlapping prefixes, re-planning against a brute-force
 * optimum, listing, clear, failure atomicity, compact address tables, the
 * summary bitmap (exact bits and counts in any order), a
 * randomized comparison with a plain list of members, and lock-free
 * readers across re-plans.
 */
#include "cuckoo.c"
#include "prefix.c"

#include <pthread.h>
#include <stdio.h>

#include "kselftest_harness.h"

#define SEED		0x5eed0f0ce11f17e5ULL

#define NOTE(...) do { ksft_print_msg(__VA_ARGS__); fflush(stdout); } while (0)

static struct prefix_set *make(u32 alen, u32 levels, u64 cap, u64 max_cap,
			       bool exact)
{
	struct prefix_params p = {
		.addr_len = alen,
		.max_levels = levels,
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

static int match(const struct prefix_set *s, const u8 *a)
{
	enum prefix_hit h;

	rcu_read_lock();
	h = prefix_set_match(s, a, &(u32){ 0 });
	rcu_read_unlock();
	return h;
}

/* The hit on @a, and the tag it names in *@tag. */
static int match_tag(const struct prefix_set *s, const u8 *a, u32 *tag)
{
	enum prefix_hit h;

	rcu_read_lock();
	h = prefix_set_match(s, a, tag);
	rcu_read_unlock();
	return h;
}

static int match4(const struct prefix_set *s, u32 v)
{
	u8 a[4];

	ip4(a, v);
	return match(s, a);
}

static int add4(struct prefix_set *s, u32 v, u32 len)
{
	u8 a[4];

	ip4(a, v);
	return prefix_set_insert(s, a, len, 0);
}

static int del4(struct prefix_set *s, u32 v, u32 len)
{
	u8 a[4];

	ip4(a, v);
	return prefix_set_delete(s, a, len);
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

	return !s->naddrs && !s->nprefixes && !st.addrs.count && !st.prefixes;
}

/* Entries actually stored in the levels, counted table by table. */
static u64 level_entries(const struct prefix_set *s)
{
	const struct prefix_plan *pl = prefix_wplan(s);
	struct cuckoo_stats cs;
	u64 n = 0;
	u32 i;

	for (i = 0; pl && i < pl->nlevels; i++) {
		cuckoo_get_stats(pl->level[i].table, &cs);
		n += cs.count;
	}
	return n;
}

/* Is summary bit @k set? */
static bool sum_bit_of(const struct prefix_summary *sum, u32 k)
{
	return (sum->bits[k / 32] >> (k % 32)) & 1;
}

/* Is bit @k set in either summary (prefixes, addresses)? */
static bool sum_bit(const struct prefix_set *s, u32 k)
{
	return sum_bit_of(&s->sum_pfx, k) || sum_bit_of(&s->sum_addr, k);
}

static u32 sum_count_of(const struct prefix_summary *sum, u32 k)
{
	return sum->count ? sum->count[k] : 0;
}

static u32 sum_bits_set(const struct prefix_set *s)
{
	u32 k, n = 0;

	for (k = 0; k < PREFIX_SUM_KEYS; k++)
		n += sum_bit(s, k);
	return n;
}

/*
 * Adds to @want[k] the members among @m[0..@n-1] that intersect summary
 * key k, computed from the /16s (IPv4) or /32s (IPv6) each covers; members
 * too short for that go to *@all. Full-length members if @addrs, else the
 * shorter ones.
 */
static void sum_expect(u32 alen, const u8 (*a)[16], const u32 *len, u32 n,
		       bool addrs, u32 *want, u32 *all)
{
	u32 slen = alen == 4 ? 16 : 32, i, first, v;
	u64 j, span;

	memset(want, 0, PREFIX_SUM_KEYS * sizeof(*want));
	*all = 0;
	for (i = 0; i < n; i++) {
		if ((len[i] == 8 * alen) != addrs)
			continue;
		if (len[i] + 16 < slen) {
			(*all)++;
			continue;
		}
		first = alen == 4 ? (u32)a[i][0] << 8 | a[i][1] :
			(u32)a[i][0] << 24 | a[i][1] << 16 | a[i][2] << 8 |
			a[i][3];
		span = len[i] >= slen ? 1 : 1ULL << (slen - len[i]);
		for (j = 0; j < span; j++) {
			v = first + (u32)j;
			want[alen == 4 ? v : prefix_sum_key(16, v)]++;
		}
	}
}

/* Bits and counts of @sum differing from @want and @all (0: exact). */
static u32 sum_diff_one(const struct prefix_summary *sum, const u32 *want,
			u32 all)
{
	u32 k, bad = sum->all != all;

	for (k = 0; k < PREFIX_SUM_KEYS; k++) {
		bad += sum_bit_of(sum, k) != !!want[k];
		bad += sum_count_of(sum, k) != want[k];
	}
	return bad;
}

static u32 sum_want[PREFIX_SUM_KEYS];

/*
 * Both summaries of @s against members @a/@len[0..@n-1]: the prefix one
 * counts the prefixes, the address one the addresses if @addrs (an exact
 * address table) and nothing otherwise. 0: exact.
 */
static u32 sum_diff(const struct prefix_set *s, u32 alen, const u8 (*a)[16],
		    const u32 *len, u32 n, bool addrs)
{
	u32 all, bad;

	sum_expect(alen, a, len, n, false, sum_want, &all);
	bad = sum_diff_one(&s->sum_pfx, sum_want, all);
	sum_expect(alen, a, len, addrs ? n : 0, true, sum_want, &all);
	return bad + sum_diff_one(&s->sum_addr, sum_want, all);
}

/* The set's members, sorted, as list entries; their number. */
static int entry_cmp(const void *a, const void *b)
{
	return memcmp(a, b, PREFIX_ENTRY_LEN(16));
}

static u64 list_all(const struct prefix_set *s, u8 *out, u64 room, u64 chunk)
{
	u32 elen = PREFIX_ENTRY_LEN(s->addr_len);
	u8 tmp[PREFIX_ENTRY_LEN(16) * 64];
	u64 pos = 0, n = 0, i;
	long k;

	while ((k = prefix_set_list(s, &pos, tmp, chunk)) > 0) {
		for (i = 0; i < (u64)k && n < room; i++, n++) {
			memset(out + n * PREFIX_ENTRY_LEN(16), 0,
			       PREFIX_ENTRY_LEN(16));
			memcpy(out + n * PREFIX_ENTRY_LEN(16), tmp + i * elen,
			       elen);
		}
	}
	qsort(out, n, PREFIX_ENTRY_LEN(16), entry_cmp);
	return n;
}

/*
 * Reference optimum: every set of at most @levels targets drawn from the
 * lengths present and containing the longest, tried exhaustively.
 */
static u64 brute_best(const struct prefix_set *s, u32 levels)
{
	u8 p[PREFIX_BITS_MAX];
	u32 m = prefix_lengths(s, p), mask, i;
	u64 best = PREFIX_COST_INF;

	if (!m)
		return 0;
	for (mask = 0; mask < 1U << (m - 1); mask++) {
		struct prefix_targets t = { 0 };
		u64 c;

		if ((u32)__builtin_popcount(mask) + 1 > levels)
			continue;
		t.len[t.n++] = p[m - 1];
		for (i = m - 1; i-- > 0;)
			if (mask & (1U << i))
				t.len[t.n++] = p[i];
		c = prefix_cost(s, &t);
		if (c < best)
			best = c;
	}
	return best;
}

static u64 current_cost(const struct prefix_set *s)
{
	struct prefix_targets t;

	prefix_plan_targets(prefix_wplan(s), &t);
	return prefix_cost(s, &t);
}

TEST(params_are_checked)
{
	struct prefix_params p = {
		.addr_len = 4, .max_levels = 3,
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
	p.max_levels = 0;
	ASSERT_EQ(-EINVAL, prefix_params_check(&p));
	p.max_levels = PREFIX_LEVELS_MAX + 1;
	ASSERT_EQ(-EINVAL, prefix_params_check(&p));
	p.max_levels = PREFIX_LEVELS_MAX;
	p.addrs.fp_bits = 7;
	ASSERT_EQ(-EINVAL, prefix_params_check(&p));
}

TEST(bad_length_or_host_bits_is_einval_and_changes_nothing)
{
	struct prefix_set *s = make(4, 3, 100, 1000, true);
	struct prefix_set *s6 = make(16, 3, 100, 1000, true);
	u8 a6[16] = { 0x20, 0x01, 0x0d, 0xb8 };
	struct prefix_stats st;

	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, s6);
	ASSERT_EQ(0, add4(s, 0x0a000000, 8));
	st = stats_of(s);
	ASSERT_EQ(-EINVAL, add4(s, 0x0a000000, 33));
	ASSERT_EQ(-EINVAL, add4(s, 0x0a010203, 24));	/* host bits */
	ASSERT_EQ(-EINVAL, add4(s, 0x80000000, 0));
	ASSERT_EQ(-EINVAL, add4(s, 0x0b000001, 31));
	ASSERT_EQ(-EINVAL, del4(s, 0x0a000000, 33));
	ASSERT_EQ(-EINVAL, del4(s, 0x0a000001, 8));
	ASSERT_EQ(st.prefixes, stats_of(s).prefixes);
	ASSERT_EQ(st.expanded, stats_of(s).expanded);
	ASSERT_EQ(st.addrs.count, stats_of(s).addrs.count);
	ASSERT_EQ(1U, stats_of(s).prefixes);
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0b000000));

	ASSERT_EQ(-EINVAL, prefix_set_insert(s6, a6, 129, 0));
	ASSERT_EQ(-EINVAL, prefix_set_insert(s6, a6, 16, 0));	/* 0db8 */
	ASSERT_EQ(0, prefix_set_insert(s6, a6, 32, 0));
	ASSERT_FALSE(has(s6, a6, 129));
	ASSERT_TRUE(has(s6, a6, 32));
	ASSERT_FALSE(has(s6, a6, 16));
	ASSERT_EQ(1U, stats_of(s6).prefixes);
	prefix_set_destroy(s);
	prefix_set_destroy(s6);
}

TEST(eexist_and_enoent)
{
	struct prefix_set *s = make(4, 3, 100, 1000, true);

	ASSERT_NE(NULL, s);
	ASSERT_TRUE(set_empty(s));
	ASSERT_EQ(-ENOENT, del4(s, 0x0a000000, 8));
	ASSERT_EQ(-ENOENT, del4(s, 0x0a000001, 32));
	ASSERT_EQ(0, add4(s, 0x0a000000, 8));
	ASSERT_FALSE(set_empty(s));
	ASSERT_EQ(-EEXIST, add4(s, 0x0a000000, 8));
	ASSERT_EQ(0, add4(s, 0x0a000000, 9));	/* same address, other length */
	ASSERT_EQ(0, add4(s, 0x0a000001, 32));
	ASSERT_EQ(-EEXIST, add4(s, 0x0a000001, 32));
	ASSERT_EQ(2U, stats_of(s).prefixes);
	ASSERT_EQ(1U, stats_of(s).addrs.count);
	ASSERT_EQ(-ENOENT, del4(s, 0x0a000000, 16));
	ASSERT_EQ(0, del4(s, 0x0a000000, 8));
	ASSERT_EQ(-ENOENT, del4(s, 0x0a000000, 8));
	ASSERT_EQ(0, del4(s, 0x0a000000, 9));
	ASSERT_EQ(0, del4(s, 0x0a000001, 32));
	ASSERT_EQ(-ENOENT, del4(s, 0x0a000001, 32));
	ASSERT_TRUE(set_empty(s));
	ASSERT_EQ(0U, stats_of(s).nlevels);
	ASSERT_EQ(0U, stats_of(s).expanded);
	prefix_set_destroy(s);
}

TEST(slash_zero_covers_everything)
{
	struct prefix_set *s = make(4, 3, 100, 1000, true);
	struct prefix_set *s6 = make(16, 3, 100, 1000, true);
	u8 z[16] = { 0 }, a[16];
	u32 i;

	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, s6);
	ASSERT_EQ(0, add4(s, 0, 0));
	ASSERT_EQ(0, prefix_set_insert(s6, z, 0, 0));
	ASSERT_EQ(1U, stats_of(s).expanded);
	ASSERT_EQ(1U, stats_of(s).nlevels);
	ASSERT_EQ(0U, stats_of(s).levels[0]);
	srandom(1);
	for (i = 0; i < 1000; i++) {
		u32 j;

		ASSERT_EQ(PREFIX_PREFIX, match4(s, random() ^ random() << 16));
		for (j = 0; j < 16; j++)
			a[j] = random();
		ASSERT_EQ(PREFIX_PREFIX, match(s6, a));
	}
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0xffffffff));
	ASSERT_EQ(0, del4(s, 0, 0));
	ASSERT_EQ(0, prefix_set_delete(s6, z, 0));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0));
	ASSERT_EQ(PREFIX_MISS, match(s6, a));
	prefix_set_destroy(s);
	prefix_set_destroy(s6);
}

TEST(full_length_members_are_addresses_not_levels)
{
	struct prefix_set *s = make(4, 3, 100, 1000, true);
	struct prefix_set *s6 = make(16, 3, 100, 1000, true);
	u8 a6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 7 };
	u8 p6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 6 };

	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, s6);
	ASSERT_EQ(0, add4(s, 0x0a010203, 32));
	ASSERT_EQ(0U, stats_of(s).nlevels);
	ASSERT_EQ(0U, stats_of(s).expanded);
	ASSERT_EQ(0U, stats_of(s).prefixes);
	ASSERT_EQ(PREFIX_ADDR, match4(s, 0x0a010203));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a010204));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a010202));
	ASSERT_EQ(0, add4(s, 0x0a010200, 24));
	ASSERT_EQ(PREFIX_ADDR, match4(s, 0x0a010203));	/* probed first */
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a010204));
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a0102ff));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a010300));
	ASSERT_EQ(1U, stats_of(s).expanded);
	ASSERT_EQ(1U, stats_of(s).addrs.count);
	ASSERT_EQ(0, add4(s, 0x0a010202, 31));
	ASSERT_EQ(0, del4(s, 0x0a010200, 24));
	ASSERT_EQ(PREFIX_ADDR, match4(s, 0x0a010203));
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a010202));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a010204));

	ASSERT_EQ(0, prefix_set_insert(s6, a6, 128, 0));
	ASSERT_EQ(PREFIX_ADDR, match(s6, a6));
	a6[15] = 8;
	ASSERT_EQ(PREFIX_MISS, match(s6, a6));
	ASSERT_EQ(0, prefix_set_insert(s6, p6, 127, 0));	/* ::6 and ::7 */
	ASSERT_EQ(PREFIX_MISS, match(s6, a6));
	a6[15] = 6;
	ASSERT_EQ(PREFIX_PREFIX, match(s6, a6));
	a6[15] = 7;
	ASSERT_EQ(-EINVAL, prefix_set_insert(s6, a6, 127, 0));
	ASSERT_EQ(PREFIX_ADDR, match(s6, a6));
	prefix_set_destroy(s);
	prefix_set_destroy(s6);
}

/* /8 and a /24 inside it, with one target (both at /24) or two. */
TEST(overlapping_prefixes_delete_either)
{
	u32 levels;

	for (levels = 1; levels <= 2; levels++) {
		struct prefix_set *s = make(4, levels, 100, 1 << 20, true);

		ASSERT_NE(NULL, s);
		ASSERT_EQ(0, add4(s, 0x0a000000, 8));
		ASSERT_EQ(0, add4(s, 0x0a010200, 24));
		ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a0102ff));
		ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0affffff));
		ASSERT_EQ(PREFIX_MISS, match4(s, 0x0b000000));
		ASSERT_EQ(levels == 1 ? 65536U : 2U, stats_of(s).expanded);
		ASSERT_EQ(stats_of(s).expanded, level_entries(s));

		ASSERT_EQ(0, del4(s, 0x0a000000, 8));
		ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a010200));
		ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a0102ff));
		ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a010300));
		ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a0101ff));
		ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a000000));
		ASSERT_EQ(1U, stats_of(s).expanded);
		ASSERT_EQ(1U, level_entries(s));

		ASSERT_EQ(0, add4(s, 0x0a000000, 8));
		ASSERT_EQ(0, del4(s, 0x0a010200, 24));
		ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a0102ff));
		ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a000000));
		ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0affffff));
		ASSERT_EQ(PREFIX_MISS, match4(s, 0x09ffffff));
		ASSERT_EQ(PREFIX_MISS, match4(s, 0x0b000000));
		ASSERT_EQ(stats_of(s).expanded, level_entries(s));
		prefix_set_destroy(s);
	}
}

/* Disjoint prefixes, one length after another: the plan follows. */
TEST(replanning_tracks_the_optimum)
{
	/* one level: everything at /24, which must fit in 4M entries */
	static const u8 lens[] = { 24, 8, 16, 20, 12, 22, 18, 14, 10 };
	u32 levels;

	for (levels = 1; levels <= 4; levels++) {
		struct prefix_set *s = make(4, levels, 100, 1 << 22, true);
		u64 rebuilds = 0, changes = 0, i, j, best;
		u8 last[PREFIX_LEVELS_MAX] = { 0 };
		struct prefix_stats st;

		ASSERT_NE(NULL, s);
		for (i = 0; i < ARRAY_SIZE(lens); i++) {
			/* 1 + i prefixes of this length, base i << 28 */
			for (j = 0; j <= i; j++) {
				u32 v = (u32)i << 28 | (u32)j << (32 - lens[i]);

				ASSERT_EQ(0, add4(s, v, lens[i]));
				st = stats_of(s);
				best = brute_best(s, levels);
				ASSERT_LE(st.nlevels, levels);
				ASSERT_EQ(st.expanded, level_entries(s));
				ASSERT_EQ(st.expanded, current_cost(s));
				ASSERT_LE(st.expanded, best + best / 4 + 64);
				if (st.rebuilds != rebuilds)
					ASSERT_EQ(st.expanded, best);
				rebuilds = st.rebuilds;
				if (memcmp(last, st.levels, sizeof(last)))
					changes++;
				memcpy(last, st.levels, sizeof(last));
				ASSERT_EQ(PREFIX_PREFIX, match4(s, v));
			}
		}
		NOTE("levels %u: %llu plans, %llu rebuilds, %llu entries\n",
		     levels, (unsigned long long)changes,
		     (unsigned long long)rebuilds,
		     (unsigned long long)st.expanded);
		ASSERT_LT(levels > 1 ? 1U : 0U, changes);
		prefix_set_destroy(s);
	}
}

TEST(dp_matches_brute_force_on_random_histograms)
{
	struct prefix_set *s = make(16, 1, 100, 1000, true);
	u32 round, l, levels;
	unsigned int seed = 20240601;

	ASSERT_NE(NULL, s);
	NOTE("seed %u\n", seed);
	srandom(seed);
	for (round = 0; round < 300; round++) {
		struct prefix_targets t;

		memset(s->hist, 0, sizeof(s->hist));
		for (l = 0; l < 12; l++)
			s->hist[random() % 128] += 1 + random() % 1000;
		for (levels = 1; levels <= PREFIX_LEVELS_MAX; levels++) {
			s->max_levels = levels;
			ASSERT_EQ(brute_best(s, levels), prefix_best(s, &t));
			ASSERT_LE(t.n, levels);
			ASSERT_EQ(prefix_cost(s, &t), brute_best(s, levels));
		}
	}
	memset(s->hist, 0, sizeof(s->hist));
	prefix_set_destroy(s);
}

TEST(list_round_trip)
{
	u32 exact;

	for (exact = 0; exact <= 1; exact++) {
		struct prefix_set *s = make(16, 4, exact ? 16 : 4096,
					    exact ? 4096 : 0, exact);
		static u8 want[3000 * PREFIX_ENTRY_LEN(16)];
		static u8 got[3000 * PREFIX_ENTRY_LEN(16)];
		u64 n = 0, i, gen;
		u8 a[16];

		ASSERT_NE(NULL, s);
		gen = prefix_set_list_gen(s);
		for (i = 0; i < 600; i++) {
			static const u8 lens[] = { 48, 56, 64, 100 };
			u32 len = i % 3 == 0 ? 128 : lens[i % 4];

			memset(a, 0, sizeof(a));
			a[0] = 0x20;
			a[1] = i;
			a[2] = i >> 8;
			if (len == 128)
				a[15] = 1;
			ASSERT_EQ(0, prefix_set_insert(s, a, len, 0));
			if (len == 128 && !exact)
				continue;
			memset(want + n * PREFIX_ENTRY_LEN(16), 0,
			       PREFIX_ENTRY_LEN(16));
			memcpy(want + n * PREFIX_ENTRY_LEN(16), a, 16);
			want[n * PREFIX_ENTRY_LEN(16) + 16] = len;
			n++;
		}
		ASSERT_NE(gen, prefix_set_list_gen(s));	/* tables grew */
		qsort(want, n, PREFIX_ENTRY_LEN(16), entry_cmp);
		ASSERT_EQ(n, list_all(s, got, 3000, 3));
		ASSERT_EQ(0, memcmp(want, got, n * PREFIX_ENTRY_LEN(16)));
		ASSERT_EQ(n, list_all(s, got, 3000, 64));
		ASSERT_EQ(0, memcmp(want, got, n * PREFIX_ENTRY_LEN(16)));
		prefix_set_destroy(s);
	}
}

TEST(list_ipv4_entries_are_five_bytes)
{
	struct prefix_set *s = make(4, 2, 16, 64, true);
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
 * LIST keeps a position in 56 bits of its cursor (kmod/dev.c): one with
 * the prefix table's marker must survive that, or every call restarts the
 * same page and the listing never ends (5000 /24s did).
 */
TEST(list_positions_fit_the_cursor_and_end)
{
	struct prefix_set *s = make(4, 4, 64, 1 << 20, true);
	u8 out[7 * PREFIX_ENTRY_LEN(4)];
	u64 pos = 0, n = 0, calls = 0;
	u32 i;
	long k;

	ASSERT_NE(NULL, s);
	for (i = 0; i < 5000; i++)
		ASSERT_EQ(0, add4(s, 0x0a000000 + (i << 8), 24));
	for (i = 0; i < 100; i++)
		ASSERT_EQ(0, add4(s, 0xc0000200 + i, 32));
	while ((k = prefix_set_list(s, &pos, out, 7)) > 0) {
		ASSERT_LT(pos, 1ULL << 56);
		n += k;
		ASSERT_LT(++calls, 10000U);
	}
	ASSERT_EQ(0, k);
	ASSERT_EQ(5100U, n);
	prefix_set_destroy(s);
}

TEST(list_gen_only_grows)
{
	struct prefix_set *s = make(4, 4, 16, 1 << 16, true);
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

/*
 * An expansion past the memory bound is -EDQUOT and leaves the set as it
 * was; with room, the same prefix goes in.
 */
TEST(expansion_past_the_memory_bound_changes_nothing)
{
	const long long room = 1 << 30;
	struct prefix_set *s;
	long long left;
	u64 gen;

	cuckoo_host_mem_left = room;
	s = make(4, 1, 16, 1 << 20, true);
	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, add4(s, 0x0a000000, 24));
	ASSERT_EQ(0, add4(s, 0x0b000001, 32));
	gen = prefix_set_list_gen(s);
	left = cuckoo_host_mem_left;
	/* A /8 in the level of /24s: 65536 entries, far past 64 KiB. */
	cuckoo_host_mem_left = 64 * 1024;
	ASSERT_EQ(-EDQUOT, add4(s, 0x0c000000, 8));
	ASSERT_EQ(1U, stats_of(s).prefixes);
	ASSERT_EQ(1U, stats_of(s).expanded);
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0c010203));
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a0000ff));
	ASSERT_EQ(PREFIX_ADDR, match4(s, 0x0b000001));
	ASSERT_EQ(gen, prefix_set_list_gen(s));
	/* What was charged meanwhile (a table may have grown) stays charged. */
	cuckoo_host_mem_left = left - (64 * 1024 - cuckoo_host_mem_left);
	ASSERT_EQ(0, add4(s, 0x0c000000, 8));
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0c010203));
	prefix_set_destroy(s);
	EXPECT_EQ(room, cuckoo_host_mem_left);
	cuckoo_host_mem_left = -1;
}

TEST(clear_removes_everything_or_nothing)
{
	struct prefix_set *s = make(4, 3, 16, 1024, true);
	u64 gen;
	long budget;

	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, add4(s, 0x0a000000, 8));
	ASSERT_EQ(0, add4(s, 0x0a010000, 16));
	ASSERT_EQ(0, add4(s, 0x0b000001, 32));
	gen = prefix_set_list_gen(s);
	for (budget = 0; budget < 20; budget++) {
		int rc;

		cuckoo_host_alloc_budget = budget;
		rc = prefix_set_clear(s);
		cuckoo_host_alloc_budget = -1;
		if (!rc)
			break;
		ASSERT_EQ(-ENOMEM, rc);
		ASSERT_EQ(2U, stats_of(s).prefixes);
		ASSERT_EQ(1U, stats_of(s).addrs.count);
		ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a0000ff));
		ASSERT_EQ(PREFIX_ADDR, match4(s, 0x0b000001));
		ASSERT_EQ(gen, prefix_set_list_gen(s));
	}
	ASSERT_LT(budget, 20);
	ASSERT_LT(8, budget);	/* a new prefix table, then the address table */
	ASSERT_NE(gen, prefix_set_list_gen(s));
	ASSERT_TRUE(set_empty(s));
	ASSERT_EQ(0U, stats_of(s).prefixes);
	ASSERT_EQ(0U, stats_of(s).nlevels);
	ASSERT_EQ(0U, stats_of(s).expanded);
	ASSERT_EQ(0U, stats_of(s).addrs.count);
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a0000ff));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0b000001));
	ASSERT_EQ(0, add4(s, 0x0a000000, 8));
	ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0a0000ff));
	prefix_set_destroy(s);
}

/* Members and their answers, for comparing before and after a failure. */
static void snapshot(const struct prefix_set *s, u8 *list, u64 *n,
		     u8 *answers)
{
	u32 i;

	*n = list_all(s, list, 4096, 64);
	for (i = 0; i < 4096; i++)
		answers[i] = match4(s, 0x0a000000 | i << 12);
}

TEST(enospc_and_enomem_change_nothing)
{
	static u8 l0[4096 * PREFIX_ENTRY_LEN(16)], l1[4096 * PREFIX_ENTRY_LEN(16)];
	u8 a0[4096], a1[4096];
	struct prefix_set *s = make(4, 1, 16, 64, true);
	u64 n0, n1, i;
	long budget;
	int rc;

	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, add4(s, 0x0a000000, 24));
	ASSERT_EQ(0, add4(s, 0x0a100000, 20));
	snapshot(s, l0, &n0, a0);
	/* a /16 at target 24 is 256 entries: more than a level may hold */
	ASSERT_EQ(-ENOSPC, add4(s, 0x0a300000, 16));
	snapshot(s, l1, &n1, a1);
	ASSERT_EQ(n0, n1);
	ASSERT_EQ(0, memcmp(l0, l1, n0 * PREFIX_ENTRY_LEN(16)));
	ASSERT_EQ(0, memcmp(a0, a1, sizeof(a0)));
	ASSERT_EQ(stats_of(s).expanded, level_entries(s));
	ASSERT_EQ(2U, stats_of(s).prefixes);

	/* fill a level until it refuses: every refusal changes nothing */
	for (i = 0; i < 200; i++) {
		u64 before = stats_of(s).expanded;

		rc = add4(s, 0x0b000000 | (u32)i << 10, 22);
		if (rc) {
			ASSERT_EQ(-ENOSPC, rc);
			ASSERT_EQ(before, stats_of(s).expanded);
			ASSERT_EQ(before, level_entries(s));
			ASSERT_EQ(PREFIX_MISS,
				  match4(s, 0x0b000000 | (u32)i << 10));
			break;
		}
	}
	ASSERT_LT(i, 200U);
	prefix_set_destroy(s);

	/* every allocation failing in turn, on an insert that re-plans */
	for (budget = 0;; budget++) {
		s = make(4, 3, 16, 4096, true);
		ASSERT_NE(NULL, s);
		for (i = 0; i < 40; i++)
			ASSERT_EQ(0, add4(s, 0x0a000000 | (u32)i << 8, 24));
		snapshot(s, l0, &n0, a0);
		cuckoo_host_alloc_budget = budget;
		rc = add4(s, 0x0b000000, 8);	/* a new, far shorter length */
		cuckoo_host_alloc_budget = -1;
		if (!rc) {
			ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0bffffff));
			prefix_set_destroy(s);
			break;
		}
		ASSERT_EQ(-ENOMEM, rc);
		snapshot(s, l1, &n1, a1);
		ASSERT_EQ(n0, n1);
		ASSERT_EQ(0, memcmp(l0, l1, n0 * PREFIX_ENTRY_LEN(16)));
		ASSERT_EQ(0, memcmp(a0, a1, sizeof(a0)));
		ASSERT_EQ(PREFIX_MISS, match4(s, 0x0bffffff));
		ASSERT_FALSE(has(s, (u8 *)"\x0b\0\0\0", 8));
		ASSERT_EQ(stats_of(s).expanded, level_entries(s));
		prefix_set_destroy(s);
	}
	NOTE("re-planning insert succeeded with %ld allocations\n", budget);
	ASSERT_LT(2, budget);
}

/* A full level within the re-plan margin: a new target makes room. */
TEST(full_level_replans_before_refusing)
{
	struct prefix_set *s = make(4, 2, 16, 64, true);
	u32 i;

	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, add4(s, 0x0a000000, 24));
	for (i = 0; i < 15; i++)	/* 4 entries each at /24: 61 */
		ASSERT_EQ(0, add4(s, 0x0b000000 | i << 10, 22));
	ASSERT_EQ(0U, stats_of(s).rebuilds - 1);
	ASSERT_EQ(61U, stats_of(s).expanded);
	ASSERT_EQ(0, add4(s, 0x0b000000 | 15 << 10, 22));
	ASSERT_EQ(2U, stats_of(s).rebuilds);
	ASSERT_EQ(2U, stats_of(s).nlevels);
	ASSERT_EQ(17U, stats_of(s).expanded);
	for (i = 0; i < 16; i++)
		ASSERT_EQ(PREFIX_PREFIX, match4(s, 0x0b0003ff | i << 10));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0b000000 | 16 << 10));
	prefix_set_destroy(s);
}

TEST(compact_address_table)
{
	struct prefix_set *s = make(4, 3, 1000, 0, false);
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
	for (i = 0; i < 500; i++)
		ASSERT_EQ(PREFIX_ADDR, match4(s, 0xc0a80000 | (u32)i));
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

/* Summary bits: exactly the /16s some member intersects, in any order. */
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
static u32 sum_check4(const struct prefix_set *s, const bool *in, bool addrs)
{
	u8 a[SUM_N4][16] = { { 0 } };
	u32 len[SUM_N4], n = 0, i;

	for (i = 0; i < SUM_N4; i++) {
		if (!in[i])
			continue;
		ip4(a[n], sum_members4[i].v);
		len[n++] = sum_members4[i].len;
	}
	return sum_diff(s, 4, (const u8 (*)[16])a, len, n, addrs);
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
		struct prefix_set *s = make(4, 1 + seed % 4, 64, 1 << 20,
					    true);

		ASSERT_NE(NULL, s);
		ASSERT_EQ(0U, sum_bits_set(s));
		permute(ins, SUM_N4, seed * 7);
		permute(del, SUM_N4, seed);
		for (i = 0; i < SUM_N4; i++) {
			k = ins[i];
			ASSERT_EQ(0, add4(s, sum_members4[k].v,
					  sum_members4[k].len));
			in[k] = true;
			ASSERT_EQ(0U, sum_check4(s, in, true));
		}
		ASSERT_EQ(PREFIX_SUM_KEYS, sum_bits_set(s));	/* the /0 */
		for (i = 0; i < SUM_N4; i++) {
			k = del[i];
			ASSERT_EQ(0, del4(s, sum_members4[k].v,
					  sum_members4[k].len));
			in[k] = false;
			ASSERT_EQ(0U, sum_check4(s, in, true));
			/* an address of a /16 whose bit is clear misses */
			for (k = 0; k < PREFIX_SUM_KEYS; k += 257) {
				if (sum_bit(s, k))
					continue;
				ASSERT_EQ(PREFIX_MISS, match4(s, k << 16 | 0x0101));
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
	struct prefix_set *s = make(4, 4, 64, 1 << 20, true);
	bool in[SUM_N4] = { false };
	u32 i;

	ASSERT_NE(NULL, s);
	/* the first insert allocates the counts: failing changes nothing */
	cuckoo_host_alloc_budget = 0;
	ASSERT_EQ(-ENOMEM, add4(s, 0x0a000000, 8));
	cuckoo_host_alloc_budget = -1;
	ASSERT_EQ(NULL, s->sum_pfx.count);
	ASSERT_EQ(NULL, s->sum_addr.count);
	ASSERT_EQ(0U, sum_bits_set(s));
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
		ASSERT_EQ(0U, sum_check4(s, in, true));
	}
	ASSERT_EQ(-ENOENT, del4(s, 0x0a050000, 16));
	ASSERT_EQ(-ENOENT, del4(s, 0x0a050505, 32));
	ASSERT_EQ(0U, sum_check4(s, in, true));
	prefix_set_destroy(s);
}

TEST(summary_cleared_by_clear)
{
	struct prefix_set *s = make(4, 4, 64, 1 << 20, true);
	bool in[SUM_N4] = { false };
	u32 i;

	ASSERT_NE(NULL, s);
	for (i = 0; i < SUM_N4; i++)
		ASSERT_EQ(0, add4(s, sum_members4[i].v, sum_members4[i].len));
	ASSERT_EQ(0, prefix_set_clear(s));
	ASSERT_EQ(0U, sum_check4(s, in, true));
	ASSERT_EQ(0U, sum_bits_set(s));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0x0a010203));
	/* the counts start again from zero */
	ASSERT_EQ(0, add4(s, 0x0a018000, 17));
	in[4] = true;
	ASSERT_EQ(0U, sum_check4(s, in, true));
	ASSERT_EQ(0, del4(s, 0x0a018000, 17));
	ASSERT_EQ(0U, sum_bits_set(s));
	prefix_set_destroy(s);
}

TEST(summary_compact_mode_counts_prefixes_only)
{
	struct prefix_set *s = make(4, 4, 1024, 0, false);
	bool in[SUM_N4] = { false };
	u32 i;

	ASSERT_NE(NULL, s);
	for (i = 0; i < SUM_N4; i++) {
		if (sum_members4[i].len == 0)
			continue;	/* it would hide the others */
		ASSERT_EQ(0, add4(s, sum_members4[i].v, sum_members4[i].len));
		in[i] = true;
		ASSERT_EQ(0U, sum_check4(s, in, false));
	}
	/* 198.51.100.1: no prefix in its /16, found in the address table */
	ASSERT_FALSE(sum_bit(s, 0xc6336401 >> 16));
	ASSERT_EQ(PREFIX_ADDR, match4(s, 0xc6336401));
	ASSERT_EQ(PREFIX_ADDR, match4(s, 0x0a040005));
	ASSERT_EQ(PREFIX_MISS, match4(s, 0xc6346401));
	ASSERT_EQ(0, del4(s, 0xc6336401, 32));
	in[12] = false;
	ASSERT_EQ(0U, sum_check4(s, in, false));
	prefix_set_destroy(s);
}

TEST(summary_ipv6_hashes_slash32s)
{
	struct prefix_set *s = make(16, 4, 64, 1 << 20, true);
	u8 a[16] = { 0x20, 0x01, 0x0d, 0xb8 }, b[16] = { 0 };
	u32 k = prefix_sum_key(16, 0x20010db8), v;

	ASSERT_NE(NULL, s);
	/* a /32, a /48 inside it and an address: one bit, three counts */
	ASSERT_EQ(0, prefix_set_insert(s, a, 32, 0));
	a[5] = 0x01;
	ASSERT_EQ(0, prefix_set_insert(s, a, 48, 0));
	a[15] = 0x07;
	ASSERT_EQ(0, prefix_set_insert(s, a, 128, 0));
	ASSERT_EQ(1U, sum_bits_set(s));
	ASSERT_TRUE(sum_bit(s, k));
	/* the prefixes' summary counts two, the addresses' one */
	ASSERT_EQ(2U, sum_count_of(&s->sum_pfx, k));
	ASSERT_EQ(1U, sum_count_of(&s->sum_addr, k));
	ASSERT_EQ(0, prefix_set_delete(s, a, 128));
	a[15] = 0;
	ASSERT_EQ(0, prefix_set_delete(s, a, 48));
	ASSERT_TRUE(sum_bit(s, k));
	a[5] = 0;
	ASSERT_EQ(0, prefix_set_delete(s, a, 32));
	ASSERT_EQ(0U, sum_bits_set(s));
	/* a /20: 4096 /32s, each one's bit set */
	b[0] = 0x24;
	b[1] = 0x00;
	b[2] = 0xd0;
	ASSERT_EQ(0, prefix_set_insert(s, b, 20, 0));
	for (v = 0x2400d000; v < 0x2400e000; v++)
		ASSERT_TRUE(sum_bit(s, prefix_sum_key(16, v)));
	ASSERT_GE(4096U, sum_bits_set(s));
	ASSERT_LT(3500U, sum_bits_set(s));	/* few collisions */
	/* a /15 would set 2^17 bits: it sets "all" */
	b[2] = 0;
	ASSERT_EQ(0, prefix_set_insert(s, b, 15, 0));
	ASSERT_EQ(1U, s->sum_pfx.all);
	b[4] = 0x99;
	ASSERT_EQ(PREFIX_PREFIX, match(s, b));
	b[4] = 0;
	ASSERT_EQ(0, prefix_set_delete(s, b, 15));
	ASSERT_EQ(0U, s->sum_pfx.all);
	b[2] = 0xd0;
	ASSERT_EQ(0, prefix_set_delete(s, b, 20));
	ASSERT_EQ(0U, sum_bits_set(s));
	b[0] = 0x26;
	ASSERT_EQ(PREFIX_MISS, match(s, b));
	prefix_set_destroy(s);
}

/* The randomized comparison with a list of members. */
struct member {
	u8 a[16];
	u32 len;
	u32 tag;
};

#define MODEL_MAX	512

struct model {
	struct member m[MODEL_MAX];
	u32 n;
	u32 alen;
};

static bool covers(const struct member *m, const u8 *a, u32 alen)
{
	u8 x[16];

	memcpy(x, a, alen);
	prefix_mask(x, alen, m->len);
	return !memcmp(x, m->a, alen);
}

static int model_match(const struct model *md, const u8 *a)
{
	enum prefix_hit h = PREFIX_MISS;
	u32 i;

	for (i = 0; i < md->n; i++) {
		if (!covers(&md->m[i], a, md->alen))
			continue;
		if (md->m[i].len == 8 * md->alen)
			return PREFIX_ADDR;
		h = PREFIX_PREFIX;
	}
	return h;
}

/*
 * The tag a hit on @a names: a full-length member's; else, in the first
 * level (shortest target) holding a member that covers @a, the longest
 * such member's. @lv: the set's targets, longest first.
 */
static u32 model_tag(const struct model *md, const u8 *a,
		     const struct prefix_stats *st)
{
	u32 i, l, lo, hi, best = 0, tag = 0;
	bool found = false;

	for (i = 0; i < md->n; i++)
		if (md->m[i].len == 8 * md->alen && covers(&md->m[i], a, md->alen))
			return md->m[i].tag;
	for (l = st->nlevels; l-- > 0;) {
		hi = st->levels[l];
		lo = l + 1 < st->nlevels ? st->levels[l + 1] + 1 : 0;
		for (i = 0; i < md->n; i++) {
			const struct member *m = &md->m[i];

			if (m->len < lo || m->len > hi ||
			    !covers(m, a, md->alen) ||
			    (found && m->len <= best))
				continue;
			found = true;
			best = m->len;
			tag = m->tag;
		}
		if (found)
			return tag;
	}
	return 0;
}

static int model_find(const struct model *md, const u8 *a, u32 len)
{
	u32 i;

	for (i = 0; i < md->n; i++)
		if (md->m[i].len == len && !memcmp(md->m[i].a, a, md->alen))
			return i;
	return -1;
}

static void rand_bytes(u8 *a, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		a[i] = random();
}

/* The first or last address of @m, or one beside it. */
static void edge(const struct member *m, u32 alen, u32 which, u8 *a)
{
	u32 bits = 8 * alen, b;

	memcpy(a, m->a, alen);
	if (which & 1)		/* last: set the host bits */
		for (b = m->len; b < bits; b++)
			a[b / 8] |= 0x80 >> (b % 8);
	if (which & 2) {	/* step outside: +1 after last, -1 before first */
		int i;

		for (i = alen - 1; i >= 0; i--) {
			a[i] += (which & 1) ? 1 : -1;
			if (a[i] != ((which & 1) ? 0 : 0xff))
				break;
		}
	}
}

/* The summary of @s against the model's members (0: exact). */
static u32 model_sum_diff(const struct prefix_set *s, const struct model *md)
{
	static u8 a[MODEL_MAX][16];
	static u32 len[MODEL_MAX];
	u32 i;

	for (i = 0; i < md->n; i++) {
		memcpy(a[i], md->m[i].a, 16);
		len[i] = md->m[i].len;
	}
	return sum_diff(s, md->alen, (const u8 (*)[16])a, len, md->n, true);
}

static int model_run(struct __test_metadata *_metadata, u32 alen,
		     unsigned int seed, u32 steps)
{
	static const u8 lens4[] = { 0, 4, 8, 12, 16, 18, 20, 21, 22, 24, 26,
				    28, 30, 31, 32, 32, 32 };
	static const u8 lens6[] = { 0, 16, 24, 32, 40, 48, 56, 60, 62, 64, 96,
				    112, 120, 127, 128, 128 };
	const u8 *lens = alen == 4 ? lens4 : lens6;
	u32 nlens = alen == 4 ? sizeof(lens4) : sizeof(lens6);
	struct prefix_set *s = make(alen, 1 + seed % 4, 16, 1 << 16, true);
	static struct model md;
	u8 bases[6][16], a[16];
	u32 step, i, k, enospc = 0, checks = 0, tag;
	struct prefix_stats st;

	NOTE("model: IPv%u, seed %u, %u levels, %u steps\n",
	     alen == 4 ? 4 : 6, seed, 1 + seed % 4, steps);
	srandom(seed);
	memset(&md, 0, sizeof(md));
	md.alen = alen;
	for (i = 0; i < 6; i++)
		rand_bytes(bases[i], alen);
	if (!s)
		return -1;
	for (step = 0; step < steps; step++) {
		struct member m;
		int at, rc;

		if (md.n && (random() % 100 < 45 || md.n == MODEL_MAX)) {
			at = random() % md.n;
			m = md.m[at];
			if (random() % 4 == 0) {
				/* a new tag for it: its entries follow */
				m.tag = random() % 32;
				rc = prefix_set_retag(s, m.a, m.len, m.tag);
				if (rc)
					return step + 1;
				md.m[at].tag = m.tag;
				continue;
			}
			rc = prefix_set_delete(s, m.a, m.len);
			if (rc)
				return step + 1;
			md.m[at] = md.m[--md.n];
		} else {
			memcpy(m.a, bases[random() % 6], alen);
			m.len = lens[random() % nlens];
			/* vary the bits below the base's top 8 */
			for (k = 0; k < 2; k++)
				m.a[1 + random() % (alen - 1)] ^= 1 << (random() % 8);
			prefix_mask(m.a, alen, m.len);
			m.tag = random() % 32;
			rc = prefix_set_insert(s, m.a, m.len, m.tag);
			at = model_find(&md, m.a, m.len);
			if (rc == -ENOSPC && at < 0) {
				enospc++;
			} else if (rc != (at >= 0 ? -EEXIST : 0)) {
				return step + 1;
			} else if (!rc) {
				md.m[md.n++] = m;
			}
		}
		/* random addresses, and edges of up to 8 members */
		st = stats_of(s);
		for (k = 0; k < 16; k++) {
			rand_bytes(a, alen);
			if (k & 1)
				memcpy(a, bases[k % 6], 1 + random() % alen);
			if (match_tag(s, a, &tag) != model_match(&md, a))
				return step + 1;
			if (tag != model_tag(&md, a, &st))
				return step + 1;
			checks++;
		}
		for (k = 0; k < 8 && md.n; k++) {
			const struct member *e = &md.m[random() % md.n];
			u32 w;

			for (w = 0; w < 4; w++) {
				edge(e, alen, w, a);
				if (match(s, a) != model_match(&md, a))
					return step + 1;
				checks++;
			}
		}
		if (stats_of(s).expanded != level_entries(s) ||
		    stats_of(s).nlevels > 1 + seed % 4)
			return step + 1;
		if (!(step % 64) && model_sum_diff(s, &md))
			return step + 1;
	}
	NOTE("model: %u members at the end, %llu rebuilds, %u ENOSPC, %u checks\n",
	     md.n, (unsigned long long)stats_of(s).rebuilds, enospc, checks);
	/* drain: every delete must leave the rest exact */
	while (md.n) {
		if (prefix_set_delete(s, md.m[0].a, md.m[0].len))
			return -2;
		md.m[0] = md.m[--md.n];
		for (k = 0; k < 4; k++) {
			rand_bytes(a, alen);
			memcpy(a, bases[k], 2);
			if (match(s, a) != model_match(&md, a))
				return -3;
		}
	}
	if (!set_empty(s) || level_entries(s) || sum_bits_set(s) ||
	    s->sum_pfx.all)
		return -4;
	prefix_set_destroy(s);
	return 0;
}

TEST(model_ipv4)
{
	unsigned int seed;

	for (seed = 1; seed <= 4; seed++)
		ASSERT_EQ(0, model_run(_metadata, 4, seed, 2500));
}

TEST(model_ipv6)
{
	unsigned int seed;

	for (seed = 11; seed <= 14; seed++)
		ASSERT_EQ(0, model_run(_metadata, 16, seed, 2500));
}

/*
 * Lock-free readers while the writer forces re-plans and flips summary
 * bits, of both summaries: in the words of the stable members' bits, and
 * in their own.
 */
#define READERS		2
#define STABLE		64
#define CHURN		1000

static struct prefix_set *shared;
static int stop_readers;
static u64 reader_misses, reader_lookups;

static u32 stable_addr(u32 i, u32 r)
{
	/* stable prefix i is 10.2i.0.0/16: the odd /16s between flip */
	return 0x0a000000 | (i % STABLE) << 17 | (r & 0xffff);
}

/* Stable address i, 10.(2i+1).0.1, in the odd /16 whose prefix bit flips. */
static u32 stable_host(u32 i)
{
	return stable_addr(i, 0) + 0x10001;
}

static void *reader(void *arg)
{
	u64 n = 0, misses = 0;
	u32 r = (uintptr_t)arg * 2654435761U;

	rcu_register_thread();
	while (!__atomic_load_n(&stop_readers, __ATOMIC_RELAXED)) {
		r = r * 1103515245 + 12345;
		/* (an address churned inside a stable /16 may answer first) */
		misses += match4(shared, stable_addr(n, r >> 8)) == PREFIX_MISS;
		misses += match4(shared, stable_host(n)) != PREFIX_ADDR;
		n += 2;
	}
	__atomic_fetch_add(&reader_misses, misses, __ATOMIC_RELAXED);
	__atomic_fetch_add(&reader_lookups, n, __ATOMIC_RELAXED);
	rcu_unregister_thread();
	return NULL;
}

TEST(readers_never_miss_across_replans_and_summary_flips)
{
	static const u8 churn_lens[] = { 30, 2, 28, 4, 24 };
	pthread_t t[READERS];
	u64 i, rebuilds, flips = 0;
	u32 r, odd;

	shared = make(4, 2, 64, 1 << 20, true);
	ASSERT_NE(NULL, shared);
	for (i = 0; i < STABLE; i++) {
		ASSERT_EQ(0, add4(shared, stable_addr(i, 0), 16));
		ASSERT_EQ(0, add4(shared, stable_host(i), 32));
	}
	for (r = 0; r < READERS; r++)
		ASSERT_EQ(0, pthread_create(&t[r], NULL, reader,
					    (void *)(uintptr_t)(r + 1)));
	/*
	 * Prefixes outside 10/8, each added and deleted at once, alternately
	 * longer than every target (which forces a re-plan) and so short that
	 * expanding it in place would cost far more than a new target.
	 */
	for (i = 0; i < CHURN; i++) {
		u32 len = churn_lens[i % ARRAY_SIZE(churn_lens)];
		u32 v = (0xc0000000 | (u32)(i * 0x9e3779b1)) &
			~(0xffffffffU >> len);

		ASSERT_EQ(0, add4(shared, v, len));
		ASSERT_EQ(0, del4(shared, v, len));
		/*
		 * A /20 in the odd /16 beside a stable one: its bit, in the
		 * same word, goes up and down; a /17 inside a stable /16 and,
		 * now and then, 10/8: the stable bits' counts go up and down.
		 */
		odd = stable_addr(i, 0) + 0x10000;
		v = odd | (i & 0xf) << 12;
		ASSERT_EQ(0, add4(shared, v, 20));
		flips += sum_bit_of(&shared->sum_pfx, odd >> 16);
		ASSERT_EQ(0, add4(shared, stable_addr(i, 0x8000), 17));
		ASSERT_EQ(0, del4(shared, v, 20));
		flips += !sum_bit_of(&shared->sum_pfx, odd >> 16);
		ASSERT_EQ(0, del4(shared, stable_addr(i, 0x8000), 17));
		if (!(i % 16)) {
			ASSERT_EQ(0, add4(shared, 0x0a000000, 8));
			ASSERT_EQ(0, del4(shared, 0x0a000000, 8));
		}
		/*
		 * An address inside a stable /16: the address summary's bit
		 * of that /16 goes up and down while its prefix bit stays.
		 */
		v = stable_addr(i, 0xc807);
		ASSERT_EQ(0, add4(shared, v, 32));
		flips += sum_bit_of(&shared->sum_addr, v >> 16);
		ASSERT_EQ(0, del4(shared, v, 32));
		flips += !sum_bit_of(&shared->sum_addr, v >> 16);
	}
	__atomic_store_n(&stop_readers, 1, __ATOMIC_RELAXED);
	for (r = 0; r < READERS; r++)
		pthread_join(t[r], NULL);
	rebuilds = stats_of(shared).rebuilds;
	NOTE("readers: %llu lookups, %llu misses, %llu rebuilds, %llu summary bit flips\n",
	     (unsigned long long)reader_lookups,
	     (unsigned long long)reader_misses,
	     (unsigned long long)rebuilds, (unsigned long long)flips);
	ASSERT_EQ(0U, reader_misses);
	ASSERT_EQ(4U * CHURN, flips);
	ASSERT_LT((u64)CHURN / 2, rebuilds);
	ASSERT_LT(10000U, reader_lookups);
	prefix_set_destroy(shared);
}

TEST_HARNESS_MAIN
