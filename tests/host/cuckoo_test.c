// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the cuckoo filter core, in both modes.
 *
 * The core is included rather than linked so that tests can also check its
 * internals: the table words, the version counters, the exact allocation.
 * Concurrency gets its own, longer test: stress.c.
 */
#include "cuckoo_unit.h"
#include "test_keys.h"

#include <pthread.h>
#include <time.h>

#include "kselftest_harness.h"
#include <linux/cfilter.h>

#define SEED		0x5eed0f0ce11f17e5ULL

/* Key sets: disjoint by construction. */
#define SET_IN		1	/* keys that are added */
#define SET_OUT		2	/* keys that are never added */
#define SET_CHURN	3	/* keys added and deleted while others read */

/* Key lengths the module uses: a struct cfilter_key, IPv6, IPv4. */
#define LEN_FULL	40U
#define LEN_IP6		16U
#define LEN_IP4		4U
#define LEN_FLOW4	13U

/* fflush: the harness ends each test child with _exit(). */
#define NOTE(...) do { ksft_print_msg(__VA_ARGS__); fflush(stdout); } while (0)

static struct cuckoo_params params(u64 capacity, u64 max_capacity,
				   unsigned int fp_bits, unsigned int key_len,
				   bool exact)
{
	return (struct cuckoo_params){
		.capacity = capacity,
		.max_capacity = max_capacity,
		.seed = SEED,
		.fp_bits = fp_bits,
		.key_len = key_len,
		.exact = exact,
	};
}

static struct cuckoo *make(u64 capacity, u64 max_capacity, unsigned int fp_bits,
			   unsigned int key_len, bool exact)
{
	struct cuckoo_params p = params(capacity, max_capacity, fp_bits,
					key_len, exact);

	return cuckoo_create(&p);
}

static int check(u64 capacity, u64 max_capacity, unsigned int fp_bits,
		 unsigned int key_len, bool exact)
{
	struct cuckoo_params p = params(capacity, max_capacity, fp_bits,
					key_len, exact);

	return cuckoo_params_check(&p);
}

static int add(struct cuckoo *c, unsigned int set, u64 i)
{
	u8 k[CUCKOO_KEY_MAX];

	key_of(k, c->key_len, set, i);
	return cuckoo_insert(c, k);
}

static int del(struct cuckoo *c, unsigned int set, u64 i)
{
	u8 k[CUCKOO_KEY_MAX];

	key_of(k, c->key_len, set, i);
	return cuckoo_delete(c, k);
}

static bool has(const struct cuckoo *c, unsigned int set, u64 i)
{
	u8 k[CUCKOO_KEY_MAX];
	bool hit;

	key_of(k, c->key_len, set, i);
	rcu_read_lock();
	hit = cuckoo_contains(c, k);
	rcu_read_unlock();
	return hit;
}

static struct cuckoo_stats stats_of(const struct cuckoo *c)
{
	struct cuckoo_stats st;

	memset(&st, 0xa5, sizeof(st));
	cuckoo_get_stats(c, &st);
	return st;
}

static const struct cuckoo_table *table_of(const struct cuckoo *c)
{
	return cuckoo_wtable(c);
}

static u64 table_bytes(const struct cuckoo *c)
{
	return (table_of(c)->bucket_mask + 1) << cuckoo_bucket_shift(c->fp_bits);
}

/* Fingerprints stored, counted slot by slot. */
static u64 slots_used(const struct cuckoo *c)
{
	const struct cuckoo_table *t = table_of(c);
	u64 b, n = 0;
	unsigned int s;

	for (b = 0; b <= t->bucket_mask; b++)
		for (s = 0; s < CUCKOO_SLOTS; s++)
			n += cuckoo_slot(c, t, b, s) != 0;
	return n;
}

static bool table_is_zero(const struct cuckoo *c)
{
	const u8 *p = table_of(c)->words;
	u64 i;

	for (i = 0; i < table_bytes(c); i++)
		if (p[i])
			return false;
	return true;
}

/* The false positive bound of a 4-slot cuckoo filter: 2 * 4 / 2^f. */
static double fp_bound(unsigned int fp_bits)
{
	return 8.0 / (double)(1ULL << fp_bits);
}

/* Adds SET_CHURN keys until one is refused; returns the keys stored. */
static u64 fill_until_enospc(struct cuckoo *c)
{
	u64 k, stored = 0;
	int rc;

	for (k = 0; (rc = add(c, SET_CHURN, k)) != -ENOSPC; k++)
		stored += rc == 0;
	return stored;
}

static const unsigned int widths[] = { 8, 12, 16, 32 };
static const bool modes[] = { true, false };

TEST(add_test_del_round_trip)
{
	unsigned int m;

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		struct cuckoo *c = make(1000, 0, 32, LEN_FULL, modes[m]);

		ASSERT_NE(NULL, c);
		ASSERT_FALSE(has(c, SET_IN, 1));
		ASSERT_EQ(0, add(c, SET_IN, 1));
		ASSERT_TRUE(has(c, SET_IN, 1));
		ASSERT_EQ(1U, stats_of(c).count);
		ASSERT_EQ(0, del(c, SET_IN, 1));
		ASSERT_FALSE(has(c, SET_IN, 1));
		ASSERT_EQ(0U, stats_of(c).count);
		ASSERT_TRUE(table_is_zero(c));
		cuckoo_destroy(c);
	}
}

TEST(add_twice_returns_eexist)
{
	unsigned int m;

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		struct cuckoo *c = make(1000, 0, 32, LEN_FULL, modes[m]);

		ASSERT_NE(NULL, c);
		ASSERT_EQ(0, add(c, SET_IN, 7));
		ASSERT_EQ(-EEXIST, add(c, SET_IN, 7));
		ASSERT_EQ(1U, stats_of(c).count);
		ASSERT_EQ(1U, slots_used(c));
		ASSERT_TRUE(has(c, SET_IN, 7));
		cuckoo_destroy(c);
	}
}

TEST(del_absent_returns_enoent)
{
	unsigned int m;

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		struct cuckoo *c = make(1000, 0, 32, LEN_FULL, modes[m]);

		ASSERT_NE(NULL, c);
		ASSERT_EQ(-ENOENT, del(c, SET_OUT, 1));
		ASSERT_EQ(0, add(c, SET_IN, 1));
		ASSERT_EQ(-ENOENT, del(c, SET_OUT, 1));
		ASSERT_EQ(1U, stats_of(c).count);
		ASSERT_TRUE(has(c, SET_IN, 1));
		cuckoo_destroy(c);
	}
}

TEST(del_then_test_absent_and_del_again_enoent)
{
	unsigned int m;

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		struct cuckoo *c = make(1000, 0, 32, LEN_FULL, modes[m]);

		ASSERT_NE(NULL, c);
		ASSERT_EQ(0, add(c, SET_IN, 1));
		ASSERT_EQ(0, add(c, SET_IN, 2));
		ASSERT_EQ(0, del(c, SET_IN, 1));
		ASSERT_FALSE(has(c, SET_IN, 1));
		ASSERT_TRUE(has(c, SET_IN, 2));
		ASSERT_EQ(-ENOENT, del(c, SET_IN, 1));
		ASSERT_EQ(1U, stats_of(c).count);
		cuckoo_destroy(c);
	}
}

/* Every length, including the byte-wise (not 4-byte multiple) key paths. */
TEST(every_key_length_keeps_keys_apart)
{
	unsigned int len, m;
	u8 k[CUCKOO_KEY_MAX];

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		for (len = 1; len <= CUCKOO_KEY_MAX; len++) {
			struct cuckoo *c = make(1000, 0, 32, len, modes[m]);

			ASSERT_NE(NULL, c);
			memset(k, 0, sizeof(k));
			ASSERT_EQ(0, cuckoo_insert(c, k));
			k[len - 1] = 1;
			ASSERT_FALSE(cuckoo_contains(c, k));
			ASSERT_EQ(0, cuckoo_insert(c, k));
			ASSERT_TRUE(cuckoo_contains(c, k));
			/* Bytes past key_len are not part of the key. */
			k[len - 1] = 0;
			k[sizeof(k) - 1] ^= len < CUCKOO_KEY_MAX;
			ASSERT_EQ(-EEXIST, cuckoo_insert(c, k));
			ASSERT_EQ(0, cuckoo_delete(c, k));
			ASSERT_FALSE(cuckoo_contains(c, k));
			k[len - 1] = 1;
			ASSERT_TRUE(cuckoo_contains(c, k));
			ASSERT_EQ(1U, stats_of(c).count);
			cuckoo_destroy(c);
		}
	}
}

TEST(params_reject_unsupported_fp_bits)
{
	static const unsigned int bad[] = { 0, 1, 7, 9, 15, 24, 31, 33, 64 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, check(1000, 0, bad[i], LEN_FULL, true));
		EXPECT_EQ(-EINVAL, check(1000, 0, bad[i], LEN_FULL, false));
		EXPECT_EQ(NULL, make(1000, 0, bad[i], LEN_FULL, true));
	}
}

TEST(params_reject_bad_key_len)
{
	unsigned int m;

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		EXPECT_EQ(-EINVAL, check(1000, 0, 16, 0, modes[m]));
		EXPECT_EQ(-EINVAL, check(1000, 0, 16, CUCKOO_KEY_MAX + 1, modes[m]));
		EXPECT_EQ(NULL, make(1000, 0, 16, 0, modes[m]));
		EXPECT_EQ(0, check(1000, 0, 16, 1, modes[m]));
		EXPECT_EQ(0, check(1000, 0, 16, CUCKOO_KEY_MAX, modes[m]));
	}
}

TEST(params_reject_zero_capacity)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(widths); i++) {
		EXPECT_EQ(-EINVAL, check(0, 0, widths[i], LEN_FULL, false));
		EXPECT_EQ(-EINVAL, check(0, 1000, widths[i], LEN_FULL, true));
		EXPECT_EQ(NULL, make(0, 0, widths[i], LEN_FULL, false));
	}
}

TEST(params_check_max_capacity)
{
	EXPECT_EQ(0, check(1000, 0, 16, LEN_IP4, true));
	EXPECT_EQ(0, check(1000, 1000, 16, LEN_IP4, true));
	EXPECT_EQ(0, check(1000, 1000000, 16, LEN_IP4, true));
	EXPECT_EQ(-EINVAL, check(1000, 999, 16, LEN_IP4, true));
	/* Compact mode cannot grow: it keeps no keys to re-insert. */
	EXPECT_EQ(0, check(1000, 0, 16, LEN_IP4, false));
	EXPECT_EQ(0, check(1000, 1000, 16, LEN_IP4, false));
	EXPECT_EQ(-EINVAL, check(1000, 1001, 16, LEN_IP4, false));
	EXPECT_EQ(-EINVAL, check(1000, 999, 16, LEN_IP4, false));
	EXPECT_EQ(NULL, make(1000, 2000, 16, LEN_IP4, false));
}

/*
 * The largest capacities whose arrays fit in 1 GiB: floor(max buckets *
 * 3.8). Compact: the fingerprint array decides. Exact: so does the key
 * array when it is the larger one.
 */
TEST(params_reject_huge_capacity)
{
	static const struct {
		unsigned int fp_bits, key_len;
		bool exact;
		u64 max;
	} want[] = {
		{ 8, LEN_FULL, false, 1020054732 },
		{ 12, LEN_FULL, false, 510027366 },
		{ 16, LEN_FULL, false, 510027366 },
		{ 32, LEN_FULL, false, 255013683 },
		{ 8, LEN_IP4, true, 255013683 },	/* 2^26 buckets of keys */
		{ 32, LEN_IP4, true, 255013683 },
		{ 16, LEN_IP6, true, 63753420 },	/* 2^24 */
		{ 16, LEN_FULL, true, 15938355 },	/* 2^22 */
		{ 16, 5, true, 127506841 },		/* 2^25: 2^30 / 20 < 2^26 */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		unsigned int f = want[i].fp_bits, l = want[i].key_len;
		bool x = want[i].exact;

		EXPECT_EQ(0, check(want[i].max, 0, f, l, x));
		EXPECT_EQ(-EINVAL, check(want[i].max + 1, 0, f, l, x));
		EXPECT_EQ(-EINVAL, check(1ULL << 32, 0, f, l, x));
		EXPECT_EQ(-EINVAL, check(~0ULL, 0, f, l, x));
		EXPECT_EQ(NULL, make(~0ULL, 0, f, l, x));
		if (x) {
			EXPECT_EQ(0, check(1000, want[i].max, f, l, x));
			EXPECT_EQ(-EINVAL, check(1000, want[i].max + 1, f, l, x));
			EXPECT_EQ(-EINVAL, check(1000, ~0ULL, f, l, x));
		}
	}
}

TEST(params_accept_each_fp_width)
{
	unsigned int i, m;

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		for (i = 0; i < ARRAY_SIZE(widths); i++) {
			struct cuckoo *c;
			struct cuckoo_stats st;

			ASSERT_EQ(0, check(1000, 0, widths[i], LEN_IP6, modes[m]));
			c = make(1000, 0, widths[i], LEN_IP6, modes[m]);
			ASSERT_NE(NULL, c);
			st = stats_of(c);
			ASSERT_EQ(widths[i], st.fp_bits);
			ASSERT_EQ(LEN_IP6, st.key_len);
			ASSERT_EQ(modes[m], st.exact);
			ASSERT_EQ(0, add(c, SET_IN, 3));
			ASSERT_TRUE(has(c, SET_IN, 3));
			ASSERT_EQ(0, del(c, SET_IN, 3));
			cuckoo_destroy(c);
		}
	}
}

TEST(buckets_are_the_smallest_power_of_two_fitting_at_95pct)
{
	static const struct { u64 keys, buckets; } want[] = {
		{ 1, 1 }, { 3, 1 }, { 4, 2 }, { 7, 2 }, { 8, 4 },
		{ 1000, 512 }, { 3891, 1024 }, { 3892, 2048 },
		{ 1000000, 524288 },
	};
	unsigned int i, w, m;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		for (w = 0; w < ARRAY_SIZE(widths); w++) {
			for (m = 0; m < ARRAY_SIZE(modes); m++) {
				struct cuckoo *c = make(want[i].keys, 0, widths[w],
							LEN_IP4, modes[m]);
				struct cuckoo_stats st;

				ASSERT_NE(NULL, c);
				st = stats_of(c);
				EXPECT_EQ(want[i].buckets, st.buckets);
				EXPECT_EQ(st.buckets * CUCKOO_SLOTS, st.capacity);
				EXPECT_EQ(want[i].keys, st.max_capacity);
				EXPECT_GE(st.capacity * 95, want[i].keys * 100);
				if (st.buckets > 1)
					EXPECT_LT(st.capacity / 2 * 95,
						  want[i].keys * 100);
				cuckoo_destroy(c);
			}
		}
	}
}

TEST(stats_are_exact)
{
	unsigned int m;

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		struct cuckoo *c = make(1000, 0, 16, LEN_IP6, modes[m]);
		u64 keys = modes[m] ? 2048 * LEN_IP6 : 0;
		struct cuckoo_stats st;

		ASSERT_NE(NULL, c);
		st = stats_of(c);
		EXPECT_EQ(2048U, st.capacity);
		EXPECT_EQ(0U, st.count);
		EXPECT_EQ(512U, st.buckets);
		EXPECT_EQ(1000U, st.max_capacity);
		EXPECT_EQ(16U, st.fp_bits);
		EXPECT_EQ(LEN_IP6, st.key_len);
		EXPECT_EQ(modes[m], st.exact);
		EXPECT_EQ(0U, st.insert_failures);
		EXPECT_EQ(0U, st.grows);
		/* handle, table, 512 8-byte buckets, 512 versions, keys */
		EXPECT_EQ(sizeof(struct cuckoo) +
			  sizeof(struct cuckoo_table) + 4096 + 2048 + keys,
			  st.memory_bytes);
		ASSERT_EQ(0, add(c, SET_IN, 1));
		ASSERT_EQ(0, add(c, SET_IN, 2));
		ASSERT_EQ(0, add(c, SET_IN, 3));
		ASSERT_EQ(0, del(c, SET_IN, 2));
		EXPECT_EQ(2U, stats_of(c).count);
		EXPECT_EQ(2U, slots_used(c));
		cuckoo_destroy(c);
	}
}

TEST(alternate_bucket_is_an_involution)
{
	struct cuckoo *c = make(200000, 0, 16, LEN_IP4, false);
	const struct cuckoo_table *t;
	u64 b, a;
	u32 fp;

	ASSERT_NE(NULL, c);
	t = table_of(c);
	for (fp = 1; fp <= 0xffff; fp++) {
		b = (fp * 2654435761U) & t->bucket_mask;
		a = cuckoo_alt(t, b, fp);
		ASSERT_LE(a, t->bucket_mask);
		ASSERT_EQ(b, cuckoo_alt(t, a, fp));
	}
	cuckoo_destroy(c);
}

/*
 * Keys whose hash gives fingerprint bits of zero (stored as fingerprint 1)
 * are found by every reader, also in their second bucket, whose offset is
 * that of fingerprint 1. For each shape with readers of its own, and one
 * without (fp8).
 */
TEST(keys_of_zero_fingerprint_bits_are_found_in_either_bucket)
{
	static const struct {
		u32 len, fp_bits;
		bool exact, values;
	} shapes[] = {
		{ LEN_IP4, 16, false, false }, { LEN_IP4, 16, true, false },
		{ LEN_IP4, 16, true, true }, { 8, 16, false, false },
		{ 8, 16, true, true }, { LEN_IP6, 16, false, false },
		{ LEN_IP6, 16, true, true }, { LEN_IP4, 12, false, false },
		{ LEN_IP4, 12, true, true }, { LEN_IP6, 12, false, false },
		{ LEN_IP4, 8, true, true },
	};
	enum { ZEROS = 24U, FILL = 3000U };
	static u8 keys[ZEROS * CUCKOO_KEY_MAX];
	bool hits[ZEROS];
	u32 vals[ZEROS];
	unsigned int z;

	for (z = 0; z < ARRAY_SIZE(shapes); z++) {
		struct cuckoo_params p = params(FILL + ZEROS, FILL + ZEROS,
						shapes[z].fp_bits, shapes[z].len,
						shapes[z].exact);
		u32 len = shapes[z].len, n = 0, second = 0, i, v;
		const struct cuckoo_table *t;
		struct cuckoo *c;
		u64 j, h, b;

		p.values = shapes[z].values;
		c = cuckoo_create(&p);
		ASSERT_NE(NULL, c);
		t = table_of(c);
		for (i = 0; i < FILL; i++) {
			int rc = add(c, SET_IN, i);

			ASSERT_TRUE(!rc || (rc == -EEXIST && !c->exact));
		}
		for (j = 0; n < ZEROS; j++) {
			u8 *k = keys + n * len;

			key_of(k, len, SET_OUT, j);
			h = cuckoo_key_hash(c, k);
			if ((h >> 32) & c->fp_mask)
				continue;
			/* compact: a stored twin of fingerprint 1 says it is there */
			if (!c->exact && cuckoo_contains(c, k))
				continue;
			ASSERT_EQ(0, cuckoo_insert_val(c, k, 1000 + n));
			ASSERT_LE(0, cuckoo_locate(c, t, k, h, &b));
			second += b != (h & t->bucket_mask);
			n++;
		}
		EXPECT_LT(0U, second) TH_LOG("shape %u: none in its second bucket", z);
		rcu_read_lock();
		for (i = 0; i < ZEROS; i++) {
			v = 0;
			EXPECT_TRUE(cuckoo_contains(c, keys + i * len));
			EXPECT_TRUE(cuckoo_lookup(c, keys + i * len, &v));
			if (c->values)
				EXPECT_EQ(1000U + i, v);
		}
		EXPECT_EQ((u32)ZEROS, cuckoo_lookup_batch(c, keys, ZEROS, hits, vals));
		for (i = 0; i < ZEROS && c->values; i++)
			EXPECT_EQ(1000U + i, vals[i]);
		rcu_read_unlock();
		cuckoo_destroy(c);
	}
}

/*
 * A filter of 32768 buckets (131072 slots) that may not grow, filled with
 * SET_IN keys to 95% of its slots, for each fingerprint width and mode.
 */
FIXTURE(full) {
	struct cuckoo *c;
	u64 keys;		/* SET_IN keys 0..keys-1 were added */
	u64 eexist;		/* of which this many shared a fingerprint */
	u8 *stored;		/* stored[i]: key i's add returned 0 */
};

FIXTURE_VARIANT(full) {
	unsigned int fp_bits;
	bool exact;
};

FIXTURE_VARIANT_ADD(full, fp8) { .fp_bits = 8 };
FIXTURE_VARIANT_ADD(full, fp12) { .fp_bits = 12 };
FIXTURE_VARIANT_ADD(full, fp16) { .fp_bits = 16 };
FIXTURE_VARIANT_ADD(full, fp32) { .fp_bits = 32 };
FIXTURE_VARIANT_ADD(full, fp8_exact) { .fp_bits = 8, .exact = true };
FIXTURE_VARIANT_ADD(full, fp12_exact) { .fp_bits = 12, .exact = true };
FIXTURE_VARIANT_ADD(full, fp16_exact) { .fp_bits = 16, .exact = true };
FIXTURE_VARIANT_ADD(full, fp32_exact) { .fp_bits = 32, .exact = true };

#define FULL_SLOTS	131072U
#define FULL_TARGET	(FULL_SLOTS * 95 / 100)

FIXTURE_SETUP(full)
{
	int rc;

	self->c = make(100000, 0, variant->fp_bits, LEN_FULL, variant->exact);
	ASSERT_NE(NULL, self->c);
	ASSERT_EQ(FULL_SLOTS, stats_of(self->c).capacity);
	self->stored = calloc(FULL_SLOTS, 1);
	ASSERT_NE(NULL, self->stored);
	self->keys = 0;
	self->eexist = 0;
	while (table_of(self->c)->count < FULL_TARGET) {
		rc = add(self->c, SET_IN, self->keys);
		ASSERT_TRUE(rc == 0 || (rc == -EEXIST && !variant->exact));
		self->stored[self->keys++] = rc == 0;
		self->eexist += rc == -EEXIST;
	}
}

FIXTURE_TEARDOWN(full)
{
	cuckoo_destroy(self->c);
	free(self->stored);
}

TEST_F(full, every_key_found_at_95pct_load)
{
	struct cuckoo_stats st = stats_of(self->c);
	u64 i;

	for (i = 0; i < self->keys; i++)
		ASSERT_TRUE(has(self->c, SET_IN, i));
	EXPECT_EQ(FULL_TARGET, st.count);
	EXPECT_EQ(0U, st.insert_failures);
	EXPECT_EQ(0U, st.grows);
	EXPECT_EQ(FULL_TARGET, slots_used(self->c));
	EXPECT_EQ(self->keys, FULL_TARGET + self->eexist);
	/* -EEXIST only from fingerprint collisions: below the full-load rate */
	EXPECT_LE(self->eexist, (u64)(self->keys * fp_bound(variant->fp_bits)));
	/* Reaching 95% needs moves; make sure they happened. */
	EXPECT_GT(st.moves, 1000U);
}

TEST_F(full, false_positive_rate_within_2x_bound)
{
	unsigned int f = variant->fp_bits;
	u64 n = f == 32 ? 1 << 22 : 64ULL << f;
	double bound = fp_bound(f), rate;
	u64 i, hits = 0;

	for (i = 0; i < n; i++)
		hits += has(self->c, SET_OUT, i);
	rate = (double)hits / (double)n;
	NOTE("fp_bits %u %s at 95%% load: false positive rate %.3g (%llu of %llu), bound %.3g\n",
	     f, variant->exact ? "exact" : "compact", rate,
	     (unsigned long long)hits, (unsigned long long)n,
	     variant->exact ? 0.0 : bound);
	if (variant->exact) {
		EXPECT_EQ(0U, hits);
	} else if (f == 32) {
		EXPECT_LE(hits, 1U);
	} else {
		EXPECT_GE(rate, bound / 2);
		EXPECT_LE(rate, bound * 2);
	}
}

TEST_F(full, delete_keeps_other_keys)
{
	u64 i, deleted = 0, ghosts = 0;

	for (i = 0; i < self->keys; i += 2) {
		if (!self->stored[i])
			continue;
		ASSERT_EQ(0, del(self->c, SET_IN, i));
		deleted++;
	}
	/* Keys that got -EEXIST may have shared a deleted key's fingerprint. */
	for (i = 1; i < self->keys; i += 2)
		if (self->stored[i])
			ASSERT_TRUE(has(self->c, SET_IN, i));
	for (i = 0; i < self->keys; i += 2)
		ghosts += self->stored[i] && has(self->c, SET_IN, i);
	EXPECT_EQ(FULL_TARGET - deleted, stats_of(self->c).count);
	EXPECT_EQ(FULL_TARGET - deleted, slots_used(self->c));
	/* A deleted key still found is a false positive, nothing more. */
	if (variant->exact) {
		EXPECT_EQ(0U, ghosts);
	} else {
		EXPECT_LE(ghosts, (u64)(deleted * fp_bound(variant->fp_bits)));
	}
}

TEST_F(full, clear_empties)
{
	struct cuckoo_stats st;
	u64 i;

	/* Full to the brim, with a failure counted, before the clear. */
	ASSERT_EQ(FULL_TARGET + fill_until_enospc(self->c),
		  stats_of(self->c).count);
	ASSERT_EQ(1U, stats_of(self->c).insert_failures);
	ASSERT_EQ(0, cuckoo_clear(self->c));
	st = stats_of(self->c);
	EXPECT_EQ(0U, st.count);
	EXPECT_EQ(0U, st.insert_failures);
	EXPECT_EQ(FULL_SLOTS, st.capacity);
	ASSERT_TRUE(table_is_zero(self->c));
	for (i = 0; i < self->keys; i++)
		ASSERT_FALSE(has(self->c, SET_IN, i));
	ASSERT_EQ(0, add(self->c, SET_IN, 0));
	ASSERT_TRUE(has(self->c, SET_IN, 0));
	EXPECT_EQ(1U, stats_of(self->c).count);
}

TEST_F(full, clear_without_memory_changes_nothing)
{
	struct cuckoo_stats before = stats_of(self->c), after;
	long budget, allocs = variant->exact ? 4 : 3;	/* per table */
	u64 i;

	for (budget = 0; budget < allocs; budget++) {
		cuckoo_host_alloc_budget = budget;
		ASSERT_EQ(-ENOMEM, cuckoo_clear(self->c));
		cuckoo_host_alloc_budget = -1;
		after = stats_of(self->c);
		ASSERT_EQ(0, memcmp(&before, &after, sizeof(before)));
	}
	for (i = 0; i < self->keys; i++)
		ASSERT_TRUE(has(self->c, SET_IN, i));
}

TEST_F(full, insert_failure_keeps_every_key)
{
	u64 used = stats_of(self->c).count, failures = 0, first = 0, i, k;
	u64 bytes = table_bytes(self->c);
	u8 *before = malloc(bytes);
	int rc;

	ASSERT_NE(NULL, before);
	/* Add new keys until 20 refusals; each must change nothing. */
	for (k = 0; failures < 20; k++) {
		ASSERT_LT(k, FULL_SLOTS);
		memcpy(before, table_of(self->c)->words, bytes);
		rc = add(self->c, SET_CHURN, k);
		if (rc == 0) {
			used++;
			continue;
		}
		if (rc == -EEXIST && !variant->exact)
			continue;
		ASSERT_EQ(-ENOSPC, rc);
		if (!failures++)
			first = used;
		ASSERT_EQ(0, memcmp(before, table_of(self->c)->words, bytes));
		ASSERT_EQ(used, stats_of(self->c).count);
		ASSERT_EQ(failures, stats_of(self->c).insert_failures);
	}
	NOTE("fp_bits %u: first refusal at %.2f%% load, 20th at %.2f%%\n",
	     variant->fp_bits, 100.0 * (double)first / FULL_SLOTS,
	     100.0 * (double)used / FULL_SLOTS);
	for (i = 0; i < self->keys; i++)
		ASSERT_TRUE(has(self->c, SET_IN, i));
	EXPECT_EQ(used, slots_used(self->c));
	EXPECT_EQ(0U, stats_of(self->c).grows);
	free(before);
}

/*
 * Exact mode with 8-bit fingerprints: 100000 keys in 131072 slots share
 * fingerprints and buckets all the time, yet each key is itself alone.
 */
#define MANY		100000U

TEST(exact_eexist_only_for_the_same_key)
{
	struct cuckoo *c = make(MANY, 0, 8, LEN_IP4, true);
	u64 i;

	ASSERT_NE(NULL, c);
	for (i = 0; i < MANY; i++)
		ASSERT_EQ(0, add(c, SET_IN, i));
	for (i = 0; i < MANY; i++)
		ASSERT_EQ(-EEXIST, add(c, SET_IN, i));
	EXPECT_EQ(MANY, stats_of(c).count);
	EXPECT_EQ(MANY, slots_used(c));
	cuckoo_destroy(c);
}

TEST(exact_has_no_false_positives)
{
	struct cuckoo *c = make(MANY, 0, 8, LEN_IP4, true);
	struct cuckoo *compact = make(MANY, 0, 8, LEN_IP4, false);
	u64 i, n = 4000000, hits = 0, compact_hits = 0;

	ASSERT_NE(NULL, c);
	ASSERT_NE(NULL, compact);
	for (i = 0; i < MANY; i++) {
		ASSERT_EQ(0, add(c, SET_IN, i));
		add(compact, SET_IN, i);
	}
	for (i = 0; i < n; i++) {
		hits += has(c, SET_OUT, i);
		compact_hits += has(compact, SET_OUT, i);
	}
	NOTE("%llu absent keys: exact %llu hits, compact %llu (fingerprints matched)\n",
	     (unsigned long long)n, (unsigned long long)hits,
	     (unsigned long long)compact_hits);
	EXPECT_EQ(0U, hits);
	/* The same fingerprints and buckets: the keys did the rejecting. */
	EXPECT_GT(compact_hits, n / 100);
	cuckoo_destroy(compact);
	cuckoo_destroy(c);
}

/* Finds SET_IN keys @a and @b with the same fingerprint and bucket pair. */
static void twins(const struct cuckoo *c, u64 *a, u64 *b)
{
	const struct cuckoo_table *t = table_of(c);
	u64 first[65536] = { 0 }, i, h, b1;
	u8 k[CUCKOO_KEY_MAX];
	u32 fp, id;

	for (i = 1;; i++) {
		key_of(k, c->key_len, SET_IN, i);
		h = cuckoo_key_hash(c, k);
		fp = cuckoo_fp(c, h);
		b1 = h & t->bucket_mask;
		/* the pair {b1, alt} and fp: name it by the smaller bucket */
		id = fp << 8 | (u32)(b1 < cuckoo_alt(t, b1, fp) ? b1 : cuckoo_alt(t, b1, fp));
		if (first[id]) {
			*a = first[id];
			*b = i;
			return;
		}
		first[id] = i;
	}
}

TEST(exact_delete_removes_only_that_key)
{
	struct cuckoo *c = make(64, 0, 8, LEN_FULL, true);
	u64 a, b;

	ASSERT_NE(NULL, c);
	ASSERT_LE(table_of(c)->bucket_mask, 255U);
	twins(c, &a, &b);
	ASSERT_EQ(0, add(c, SET_IN, a));
	ASSERT_EQ(0, add(c, SET_IN, b));
	ASSERT_EQ(2U, slots_used(c));
	ASSERT_EQ(0, del(c, SET_IN, a));
	ASSERT_FALSE(has(c, SET_IN, a));
	ASSERT_TRUE(has(c, SET_IN, b));
	ASSERT_EQ(-ENOENT, del(c, SET_IN, a));
	ASSERT_EQ(0, add(c, SET_IN, a));
	ASSERT_EQ(0, del(c, SET_IN, b));
	ASSERT_TRUE(has(c, SET_IN, a));
	ASSERT_FALSE(has(c, SET_IN, b));
	ASSERT_EQ(1U, stats_of(c).count);
	cuckoo_destroy(c);
}

TEST(exact_delete_of_many_twins_keeps_the_rest)
{
	struct cuckoo *c = make(MANY, 0, 8, LEN_IP4, true);
	u64 i;

	ASSERT_NE(NULL, c);
	for (i = 0; i < MANY; i++)
		ASSERT_EQ(0, add(c, SET_IN, i));
	for (i = 0; i < MANY; i += 2)
		ASSERT_EQ(0, del(c, SET_IN, i));
	for (i = 0; i < MANY; i++)
		ASSERT_EQ(i % 2 == 1, has(c, SET_IN, i));
	for (i = 0; i < MANY; i += 2)
		ASSERT_EQ(-ENOENT, del(c, SET_IN, i));
	EXPECT_EQ(MANY / 2, stats_of(c).count);
	cuckoo_destroy(c);
}

TEST(exact_grows_from_64_to_hold_100k_keys)
{
	unsigned int lens[] = { LEN_IP4, LEN_IP6, LEN_FULL, 5 }, l;

	for (l = 0; l < ARRAY_SIZE(lens); l++) {
		struct cuckoo *c = make(64, 1 << 20, 16, lens[l], true);
		struct cuckoo_stats st0, st;
		u64 i;

		ASSERT_NE(NULL, c);
		st0 = stats_of(c);
		ASSERT_EQ(32U, st0.buckets);
		for (i = 0; i < MANY; i++)
			ASSERT_EQ(0, add(c, SET_IN, i));
		for (i = 0; i < MANY; i++)
			ASSERT_TRUE(has(c, SET_IN, i));
		for (i = 0; i < MANY; i++)
			ASSERT_FALSE(has(c, SET_OUT, i));
		st = stats_of(c);
		EXPECT_EQ(MANY, st.count);
		EXPECT_EQ(MANY, slots_used(c));
		/* 32 -> 32768 buckets: 131072 slots hold 100000 at <= 95% */
		EXPECT_EQ(32768U, st.buckets);
		EXPECT_EQ(10U, st.grows);
		EXPECT_EQ(0U, st.insert_failures);
		/* the tables' growth, and the BFS queue growing made */
		EXPECT_EQ(st0.memory_bytes +
			  (32768 - 32) * (8 + CUCKOO_SLOTS * lens[l]) +
			  (4096 - 32) * sizeof(u32) + CUCKOO_QUEUE_BYTES,
			  st.memory_bytes);
		EXPECT_EQ(1U << 20, st.max_capacity);
		cuckoo_destroy(c);
	}
}

TEST(exact_stops_at_max_capacity_with_every_key_kept)
{
	struct cuckoo *c = make(64, 1000, 16, LEN_IP4, true);
	struct cuckoo_stats st;
	u64 i, n;
	int rc;

	ASSERT_NE(NULL, c);
	for (n = 0; (rc = add(c, SET_IN, n)) == 0; n++)
		ASSERT_LT(n, 2048U);
	ASSERT_EQ(-ENOSPC, rc);
	st = stats_of(c);
	NOTE("max_capacity 1000: %llu keys in %llu slots before ENOSPC\n",
	     (unsigned long long)n, (unsigned long long)st.capacity);
	/* 1000 keys need 512 buckets at 95%; beyond 95% it fills on. */
	EXPECT_EQ(512U, st.buckets);
	EXPECT_GE(n, 1945U);
	EXPECT_EQ(n, st.count);
	EXPECT_EQ(1U, st.insert_failures);
	EXPECT_EQ(4U, st.grows);
	for (i = 0; i < n; i++)
		ASSERT_TRUE(has(c, SET_IN, i));
	ASSERT_FALSE(has(c, SET_IN, n));
	ASSERT_EQ(-ENOSPC, add(c, SET_IN, n));
	EXPECT_EQ(n, stats_of(c).count);
	cuckoo_destroy(c);
}

TEST(exact_growth_without_memory_loses_nothing)
{
	struct cuckoo *c = make(64, 1 << 20, 16, LEN_IP6, true);
	struct cuckoo_stats before, after;
	long budget;
	u64 i, n;

	ASSERT_NE(NULL, c);
	/* 32 buckets hold 121 keys at 95%: the 122nd needs a bigger table. */
	for (n = 0; n < 121; n++)
		ASSERT_EQ(0, add(c, SET_IN, n));
	before = stats_of(c);
	for (budget = 0; budget < 4; budget++) {
		cuckoo_host_alloc_budget = budget;
		ASSERT_EQ(-ENOMEM, add(c, SET_IN, n));
		cuckoo_host_alloc_budget = -1;
		after = stats_of(c);
		ASSERT_EQ(0, memcmp(&before, &after, sizeof(before)));
	}
	for (i = 0; i < n; i++)
		ASSERT_TRUE(has(c, SET_IN, i));
	ASSERT_FALSE(has(c, SET_IN, n));
	ASSERT_EQ(0, add(c, SET_IN, n));
	EXPECT_EQ(1U, stats_of(c).grows);
	EXPECT_EQ(n + 1, stats_of(c).count);
	cuckoo_destroy(c);
}

/*
 * The memory bound: a growth that would pass it is -EDQUOT and changes
 * nothing; every byte charged is given back when the filter goes.
 */
TEST(exact_growth_past_the_memory_bound_is_edquot_and_loses_nothing)
{
	const long long room = 1 << 30;
	struct cuckoo_stats before, after;
	struct cuckoo *c;
	u64 i, n;

	cuckoo_host_mem_left = room;
	c = make(64, 1 << 20, 16, LEN_IP6, true);
	ASSERT_NE(NULL, c);
	/* 32 buckets hold 121 keys at 95%: the 122nd needs a bigger table. */
	for (n = 0; n < 121; n++)
		ASSERT_EQ(0, add(c, SET_IN, n));
	before = stats_of(c);
	cuckoo_host_mem_left = 0;
	ASSERT_EQ(-EDQUOT, add(c, SET_IN, n));
	after = stats_of(c);
	ASSERT_EQ(0, memcmp(&before, &after, sizeof(before)));
	for (i = 0; i < n; i++)
		ASSERT_TRUE(has(c, SET_IN, i));
	ASSERT_FALSE(has(c, SET_IN, n));
	/* Room for the doubled table: the add goes through. */
	cuckoo_host_mem_left = 2 * before.memory_bytes;
	ASSERT_EQ(0, add(c, SET_IN, n));
	EXPECT_EQ(1U, stats_of(c).grows);
	cuckoo_host_mem_left = room;
	cuckoo_destroy(c);
	cuckoo_host_mem_left = -1;
}

/*
 * The BFS queue comes with the first insert that must move entries: until
 * then a table takes none. That insert fails, changing nothing, if the
 * queue cannot be had; clear gives it back.
 */
TEST(bfs_queue_made_by_the_first_move_and_freed_by_clear)
{
	struct cuckoo *c = make(1945, 0, 16, LEN_IP4, false);
	struct cuckoo_stats st0, st;
	u64 i, n;
	int err = 0;

	ASSERT_NE(NULL, c);
	st0 = stats_of(c);
	ASSERT_EQ(2048U, st0.capacity);
	cuckoo_host_alloc_budget = 0;
	for (n = 0; n < 1945 && !err; n++)
		err = add(c, SET_IN, n);
	cuckoo_host_alloc_budget = -1;
	/* 95% of the slots are not filled without a move */
	ASSERT_EQ(-ENOMEM, err);
	n--;
	EXPECT_LT(100U, n);
	st = stats_of(c);
	EXPECT_EQ(n, st.count);
	EXPECT_EQ(st0.memory_bytes, st.memory_bytes);
	for (i = 0; i < n; i++)
		ASSERT_TRUE(has(c, SET_IN, i));
	ASSERT_EQ(0, add(c, SET_IN, n));
	st = stats_of(c);
	EXPECT_EQ(n + 1, st.count);
	EXPECT_EQ(st0.memory_bytes + CUCKOO_QUEUE_BYTES, st.memory_bytes);
	ASSERT_EQ(0, cuckoo_clear(c));
	EXPECT_EQ(st0.memory_bytes, stats_of(c).memory_bytes);
	cuckoo_destroy(c);
}

/* Creating, growing, clearing and destroying give back what they charged. */
TEST(memory_charges_balance)
{
	const long long room = 1 << 30;
	long long after_create;
	struct cuckoo *c;
	u64 n;

	cuckoo_host_mem_left = room;
	c = make(64, 1 << 20, 16, LEN_IP4, true);
	ASSERT_NE(NULL, c);
	after_create = cuckoo_host_mem_left;
	EXPECT_LT(after_create, room);
	for (n = 0; n < 5000; n++)
		ASSERT_EQ(0, add(c, SET_IN, n));
	EXPECT_LT(cuckoo_host_mem_left, after_create);
	ASSERT_EQ(0, cuckoo_clear(c));
	EXPECT_EQ(after_create, cuckoo_host_mem_left);
	cuckoo_destroy(c);
	EXPECT_EQ(room, cuckoo_host_mem_left);
	cuckoo_host_mem_left = -1;
}

/* Creation past the bound fails, charging nothing. */
TEST(create_past_the_memory_bound_fails)
{
	cuckoo_host_mem_left = 100;
	EXPECT_EQ(NULL, make(1 << 16, 0, 16, LEN_IP4, false));
	EXPECT_EQ(100, cuckoo_host_mem_left);
	cuckoo_host_mem_left = -1;
}

/* An exact filter with a u32 value beside each key of @key_len bytes. */
static struct cuckoo *make_valued(u64 capacity, u64 max_capacity,
				  unsigned int key_len)
{
	struct cuckoo_params p = params(capacity, max_capacity, 16, key_len,
					true);

	p.values = true;
	return cuckoo_create(&p);
}

static u32 value_for(u64 i)
{
	return (u32)(i * 2654435761U) | 1;
}

/*
 * The hash of every key length, from an unaligned start, as the byte-at-a-
 * time tail computed it: a changed hash would give stored fingerprints and
 * saved snapshots other buckets.
 */
static const u64 hash_known[CUCKOO_KEY_MAX + 1] = {
	0x293c9a4c66f82ea5ULL,
	0x952977299611da0cULL,
	0xc3738a3a1c2cf4ceULL,
	0xed086af29889833dULL,
	0x3bd83a47c2fbf9e1ULL,
	0x72f0ec5a17a4e35fULL,
	0x7f6a471d176878bdULL,
	0x5e4ec335a13ea66aULL,
	0x86283cd55ed290d6ULL,
	0x92399a5f731c8335ULL,
	0x63986b68a131d42aULL,
	0x1b048466e0df281eULL,
	0x3ba1ea75b4d1a2b5ULL,
	0x7ddf0b35bc24c612ULL,
	0xb28777cd6947c5f9ULL,
	0xcd43881505bde3ccULL,
	0x5d47ef7952476ae4ULL,
	0xdad3807cccf104dbULL,
	0x11528292626b0385ULL,
	0x3ad4082d5c21c516ULL,
	0xcb0732dc8e6a7f5cULL,
	0x02f42df6e0d639dcULL,
	0x63ad9fa6008a3eb2ULL,
	0xe64f937cb5ea8e3dULL,
	0xcb8eaa51447344a7ULL,
	0x80cfc339c5b995feULL,
	0xbf25dcd8a64750d8ULL,
	0xa2c504e2ab88f1aaULL,
	0x6da14afc9025b8e6ULL,
	0xe0252690ccd08c17ULL,
	0x5bcfd4801f544f04ULL,
	0x7bb6a304dc5612d5ULL,
	0x59fac3bfd4c5a53bULL,
	0xeed3647ca715fe11ULL,
	0x05a254a1916076acULL,
	0xc0d70f9258628828ULL,
	0xa048fd48c946a8f4ULL,
	0xf8a5ba2cc6903484ULL,
	0x7cfa09bffc069581ULL,
	0x62a6c71001bacc81ULL,
	0x1297f5edd17e41b7ULL,
};

TEST(hash_of_every_length_is_the_known_one)
{
	u8 buf[CUCKOO_KEY_MAX + 1];
	u32 len;

	for (len = 0; len < sizeof(buf); len++)
		buf[len] = (u8)(len * 37 + 11);
	for (len = 0; len <= CUCKOO_KEY_MAX; len++)
		EXPECT_EQ(hash_known[len],
			  cuckoo_hash(buf + 1, len, 0x0123456789abcdefULL))
			TH_LOG("key length %u", len);
}

/*
 * The largest max_capacity a table takes is accepted, one more is not, for
 * key lengths whose arrays reach the core's size bound; compact tables
 * hold their capacity; a wanted bound under the limit is the answer.
 */
TEST(max_capacity_is_the_largest_the_core_accepts)
{
	static const u32 lens[] = { 4, 13, 16, 37, 40 };
	struct cuckoo_params p;
	unsigned int i, v;
	u64 m;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		for (v = 0; v < 2; v++) {
			p = params(64, ~0ULL >> 8, 16, lens[i], true);
			p.values = v;
			m = cuckoo_max_capacity(&p);
			ASSERT_LE(64U, m);
			p.max_capacity = m;
			EXPECT_EQ(0, cuckoo_params_check(&p));
			p.max_capacity = m + 1;
			EXPECT_EQ(-EINVAL, cuckoo_params_check(&p))
				TH_LOG("key_len %u, values %u: %llu", lens[i],
				       v, (unsigned long long)m);
		}
	}
	p = params(64, 1000, 16, 4, true);
	EXPECT_EQ(1000U, cuckoo_max_capacity(&p));
	p = params(4096, 0, 16, 4, false);
	EXPECT_EQ(4096U, cuckoo_max_capacity(&p));
	p = params(64, 1000, 7, 4, true);	/* no such fingerprint width */
	EXPECT_EQ(0U, cuckoo_max_capacity(&p));
}

TEST(params_refuse_values_without_exact_mode)
{
	struct cuckoo_params p = params(64, 0, 16, 4, true);

	p.values = true;
	EXPECT_EQ(0, cuckoo_params_check(&p));
	p.key_len = LEN_FLOW4;
	EXPECT_EQ(0, cuckoo_params_check(&p));
	p.exact = false;
	EXPECT_EQ(-EINVAL, cuckoo_params_check(&p));
}

/*
 * Every key of @len bytes keeps its own value through 10 doublings and the
 * moves of a table filled to 95%, for the reader and the writer alike; a
 * present key keeps its value when inserted again; set_val changes one
 * key's only.
 */
static void values_follow_keys(struct __test_metadata *_metadata, u32 len)
{
	struct cuckoo *c = make_valued(64, 1 << 20, len);
	u8 k[CUCKOO_KEY_MAX];
	const u64 n = 100000;
	u32 val;
	u64 i;

	ASSERT_NE(NULL, c);
	for (i = 0; i < n; i++) {
		key_of(k, len, SET_IN, i);
		ASSERT_EQ(0, cuckoo_insert_val(c, k, value_for(i)));
	}
	EXPECT_EQ(10U, stats_of(c).grows);
	key_of(k, len, SET_IN, 7);
	ASSERT_EQ(-EEXIST, cuckoo_insert_val(c, k, 12345));
	ASSERT_EQ(0, cuckoo_set_val(c, k, 777));
	for (i = 0; i < n; i++) {
		u32 want = i == 7 ? 777 : value_for(i);

		key_of(k, len, SET_IN, i);
		val = 0;
		rcu_read_lock();
		ASSERT_TRUE(cuckoo_lookup(c, k, &val));
		rcu_read_unlock();
		ASSERT_EQ(want, val);
		ASSERT_EQ(0, cuckoo_get_val(c, k, &val));
		ASSERT_EQ(want, val);
	}
	key_of(k, len, SET_OUT, 1);
	val = 99;
	rcu_read_lock();
	EXPECT_FALSE(cuckoo_lookup(c, k, &val));
	rcu_read_unlock();
	EXPECT_EQ(99U, val);
	EXPECT_EQ(-ENOENT, cuckoo_set_val(c, k, 1));
	EXPECT_EQ(-ENOENT, cuckoo_get_val(c, k, &val));
	cuckoo_destroy(c);
}

TEST(values_follow_their_keys_through_growth_and_moves)
{
	values_follow_keys(_metadata, LEN_IP6);
}

/* A 13-byte flow key's value sits aligned after it all the same. */
TEST(values_of_unaligned_keys)
{
	values_follow_keys(_metadata, LEN_FLOW4);
}

/* The module's exact IPv4 tables: a key and its tag in one load each. */
TEST(values_of_4_byte_keys_follow_them)
{
	values_follow_keys(_metadata, LEN_IP4);
}

/* Every version counter's writes so far: two per window. */
static u64 version_writes(const struct cuckoo *c)
{
	const struct cuckoo_table *t = table_of(c);
	u64 i, n = 0;

	for (i = 0; i <= t->stripe_mask; i++)
		n += t->versions[i];
	return n;
}

/*
 * Only moves open windows in a table of whole records (4-byte keys, with
 * or without values, and 8-byte keys alone), so its inserts, deletes and
 * new values cost readers no version line; a table of longer records (a
 * 16-byte key, an 8-byte key with a value) opens one for each of them too.
 */
TEST(whole_records_open_windows_only_for_moves)
{
	static const struct {
		u32 len;
		bool values, whole;
	} shapes[] = {
		{ LEN_IP4, true, true }, { LEN_IP4, false, true },
		{ 8, false, true }, { 8, true, false }, { LEN_IP6, true, false },
	};
	enum { N = 3000U };
	u8 k[CUCKOO_KEY_MAX];
	unsigned int z;
	u64 i, ops;

	for (z = 0; z < ARRAY_SIZE(shapes); z++) {
		struct cuckoo_params p = params(N, N, 16, shapes[z].len, true);
		struct cuckoo *c;

		p.values = shapes[z].values;
		c = cuckoo_create(&p);
		ASSERT_NE(NULL, c);
		ops = 0;
		for (i = 0; i < N; i++, ops++) {
			key_of(k, c->key_len, SET_IN, i);
			ASSERT_EQ(0, cuckoo_insert_val(c, k, value_for(i)));
		}
		for (i = 0; i < N && c->values; i += 2, ops++) {
			key_of(k, c->key_len, SET_IN, i);
			ASSERT_EQ(0, cuckoo_set_val(c, k, ~value_for(i)));
		}
		for (i = 1; i < N; i += 2, ops++)
			ASSERT_EQ(0, del(c, SET_IN, i));
		EXPECT_LT(0U, stats_of(c).moves);
		EXPECT_EQ(2 * (stats_of(c).moves + (shapes[z].whole ? 0 : ops)),
			  version_writes(c))
			TH_LOG("%u-byte keys, %s values", c->key_len,
			       c->values ? "with" : "without");
		rcu_read_lock();
		for (i = 0; i < N; i += 2) {
			u32 v = 0;

			key_of(k, c->key_len, SET_IN, i);
			EXPECT_TRUE(cuckoo_lookup(c, k, &v));
			EXPECT_EQ(c->values ? ~value_for(i) : 0, v);
			EXPECT_FALSE(has(c, SET_IN, i + 1));
		}
		rcu_read_unlock();
		cuckoo_destroy(c);
	}
}

/*
 * IPv4 addresses in arithmetic progression, as a feed that lists a /24
 * address by address or a set of /24 prefixes gives them: a table sized
 * for 64 keys takes 64 of them whatever its seed. Under the short hash,
 * a pairwise-independent one, about 1 seed in 400 refused one from 34
 * keys on.
 */
TEST(progressions_fill_a_table_for_every_seed)
{
	enum { KEYS = 64, SEEDS = 4000 };
	unsigned int seed, i, mode, step, failed = 0;

	for (step = 0; step < 2; step++) {
		for (mode = 0; mode < 2; mode++) {
			for (seed = 0; seed < SEEDS; seed++) {
				struct cuckoo_params p = params(KEYS, KEYS, 16,
								LEN_IP4, mode);
				struct cuckoo *c;

				p.seed = SEED * (seed + 1);
				c = cuckoo_create(&p);
				ASSERT_NE(NULL, c);
				for (i = 0; i < KEYS; i++) {
					/* 10.0.0.i or 10.0.i.0, network order */
					u8 k[4] = { 10, 0, step ? i : 0,
						    step ? 0 : i };

					int rc = cuckoo_insert(c, k);

					/* compact: another key's fingerprint */
					if (rc && (rc != -EEXIST || mode)) {
						failed++;
						TH_LOG("step %u, %s, seed %u: key %u: %d",
						       step, mode ? "exact" : "compact",
						       seed, i, rc);
						break;
					}
				}
				cuckoo_destroy(c);
			}
		}
	}
	EXPECT_EQ(0U, failed);
}

/*
 * 12-bit fingerprints take the readers of 16-bit ones (the same lanes):
 * they answer every key, present or not, as the general reader does.
 */
TEST(shaped_readers_answer_as_the_general_one)
{
	static const struct {
		u32 len;
		bool exact;
	} shapes[] = {
		{ LEN_IP4, false }, { LEN_IP4, true }, { 8, false }, { 8, true },
		{ LEN_IP6, false }, { LEN_IP6, true },
	};
	static const u32 fps[] = { 12, 16 };
	enum { FILL = 3800U, PROBES = 40000U };
	u8 k[CUCKOO_KEY_MAX];
	unsigned int z, f;
	u64 i, w;

	for (f = 0; f < ARRAY_SIZE(fps); f++) {
		for (z = 0; z < ARRAY_SIZE(shapes); z++) {
			struct cuckoo_params p = params(FILL, FILL, fps[f],
							shapes[z].len,
							shapes[z].exact);
			struct cuckoo *c;
			u64 hits = 0;

			p.values = shapes[z].exact;
			c = cuckoo_create(&p);
			ASSERT_NE(NULL, c);
			ASSERT_NE((int)CUCKOO_ANY, (int)c->reader)
				TH_LOG("fp%u, %u-byte keys", fps[f], p.key_len);
			for (i = 0; i < FILL; i++) {
				int rc;

				key_of(k, c->key_len, SET_IN, i);
				rc = cuckoo_insert_val(c, k, value_for(i));
				ASSERT_TRUE(!rc || (rc == -EEXIST && !c->exact));
			}
			rcu_read_lock();
			for (i = 0; i < FILL + PROBES; i++) {
				u32 v = 0;

				key_of(k, c->key_len, i < FILL ? SET_IN : SET_OUT,
				       i);
				w = cuckoo_lookup_any(c, k);
				ASSERT_EQ(!!(w & CUCKOO_WORD_HIT),
					  cuckoo_contains(c, k))
					TH_LOG("fp%u, %u-byte keys, key %llu",
					       fps[f], c->key_len,
					       (unsigned long long)i);
				ASSERT_EQ(!!(w & CUCKOO_WORD_HIT),
					  cuckoo_lookup(c, k, &v));
				ASSERT_EQ((u32)(w >> 32), v);
				ASSERT_TRUE(i >= FILL || (w & CUCKOO_WORD_HIT));
				hits += i >= FILL && (w & CUCKOO_WORD_HIT);
			}
			rcu_read_unlock();
			if (c->exact)
				EXPECT_EQ(0U, hits);
			cuckoo_destroy(c);
		}
	}
}

/* A listing gives each key with its value after it. */
/* The lengths of the batch tests: the module's and two odd ones. */
static const u32 batch_lens[] = { LEN_IP4, 8, LEN_IP6, LEN_FLOW4, 37 };
/* Empty, one, around CUCKOO_BATCH, and several batches' worth. */
static const u32 batch_sizes[] = { 0, 1, 15, 16, 17, 100 };
#define BATCH_MAX	100
#define BATCH_KEYS	3800	/* in 4096 slots: moves put many in b2 */
#define BATCH_ROUNDS	20

/* splitmix64: the batch tests' keys, the same on every run. */
static u64 batch_rng(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * @c holds SET_IN keys 0 to BATCH_KEYS - 1 (with values, value_for(i)).
 * For every batch size, batches of present and absent keys mixed at
 * random get, key by key, the single reader's answer and, from a filter
 * with values, its value: a hit sets it, a miss leaves the caller's;
 * nothing past the batch is written, and the count returned is the hits'. Present keys are always
 * found, and absent ones never in exact mode.
 */
static void batch_equals_single(struct __test_metadata *_metadata,
				const struct cuckoo *c, bool values, u64 seed)
{
	static u8 keys[BATCH_MAX * CUCKOO_KEY_MAX];
	bool hits[BATCH_MAX + 1], single[BATCH_MAX], present[BATCH_MAX];
	u32 vals[BATCH_MAX + 1], want[BATCH_MAX], n, r, i, found, expect;
	u32 len = c->key_len;
	unsigned int z;

	for (z = 0; z < ARRAY_SIZE(batch_sizes); z++) {
		n = batch_sizes[z];
		for (r = 0; r < BATCH_ROUNDS; r++) {
			expect = 0;
			for (i = 0; i < n; i++) {
				u64 x = batch_rng(&seed);

				present[i] = x & 1;
				key_of(keys + i * len, len,
				       present[i] ? SET_IN : SET_OUT,
				       (x >> 1) % BATCH_KEYS);
				want[i] = 0xdead0000 | i;
				rcu_read_lock();
				if (values)
					single[i] = cuckoo_lookup(c, keys + i * len,
								  &want[i]);
				else
					single[i] = cuckoo_contains(c, keys + i * len);
				rcu_read_unlock();
				ASSERT_TRUE(!present[i] || single[i]);
				ASSERT_TRUE(present[i] || !single[i] || !c->exact);
				expect += single[i];
				/* the batch must overwrite it */
				hits[i] = !single[i];
				vals[i] = 0xdead0000 | i;
			}
			hits[n] = true;
			vals[n] = 0xfeedface;
			rcu_read_lock();
			if (values)
				found = cuckoo_lookup_batch(c, keys, n, hits, vals);
			else
				found = cuckoo_contains_batch(c, keys, n, hits);
			rcu_read_unlock();
			ASSERT_EQ(expect, found)
				TH_LOG("%u-byte keys, fp %u, %s, batch of %u",
				       len, c->fp_bits,
				       c->exact ? "exact" : "compact", n);
			for (i = 0; i < n; i++) {
				ASSERT_EQ(single[i], hits[i])
					TH_LOG("key %u of %u: %u-byte keys, fp %u, %s",
					       i, n, len, c->fp_bits,
					       c->exact ? "exact" : "compact");
				if (c->values)
					ASSERT_EQ(want[i], vals[i]);
			}
			ASSERT_TRUE(hits[n]);
			ASSERT_EQ(0xfeedfaceU, vals[n]);
		}
	}
}

TEST(batch_answers_as_single_lookups_in_every_mode_width_and_length)
{
	unsigned int m, w, l;
	u64 i, seed = 1;

	for (m = 0; m < ARRAY_SIZE(modes); m++)
		for (w = 0; w < ARRAY_SIZE(widths); w++)
			for (l = 0; l < ARRAY_SIZE(batch_lens); l++) {
				struct cuckoo *c = make(BATCH_KEYS, 0, widths[w],
							batch_lens[l],
							modes[m]);

				ASSERT_NE(NULL, c);
				for (i = 0; i < BATCH_KEYS; i++)
					ASSERT_NE(-ENOSPC, add(c, SET_IN, i));
				EXPECT_GT(stats_of(c).moves, 0U);
				batch_equals_single(_metadata, c, false, seed++);
				batch_equals_single(_metadata, c, true, seed++);
				cuckoo_destroy(c);
			}
}

TEST(batch_reads_values_as_single_lookups)
{
	static const u32 lens[] = { LEN_IP4, 8, LEN_IP6, LEN_FLOW4 };
	unsigned int l;
	u8 k[CUCKOO_KEY_MAX];
	u64 i;

	for (l = 0; l < ARRAY_SIZE(lens); l++) {
		struct cuckoo *c = make_valued(BATCH_KEYS, 0, lens[l]);

		ASSERT_NE(NULL, c);
		for (i = 0; i < BATCH_KEYS; i++) {
			key_of(k, lens[l], SET_IN, i);
			ASSERT_EQ(0, cuckoo_insert_val(c, k, value_for(i)));
		}
		batch_equals_single(_metadata, c, true, 100 + l);
		batch_equals_single(_metadata, c, false, 200 + l);
		cuckoo_destroy(c);
	}
}

TEST(list_gives_keys_with_their_values)
{
	struct cuckoo *c = make_valued(64, 1 << 16, LEN_IP4);
	u8 k[CUCKOO_KEY_MAX], out[64 * (LEN_IP4 + 4)];
	u64 pos = 0, seen = 0, i;
	long got, j;

	ASSERT_NE(NULL, c);
	for (i = 0; i < 1000; i++) {
		key_of(k, LEN_IP4, SET_IN, i);
		ASSERT_EQ(0, cuckoo_insert_val(c, k, value_for(i)));
	}
	while ((got = cuckoo_list(c, &pos, out, 64)) > 0) {
		for (j = 0; j < got; j++) {
			const u8 *e = out + j * (LEN_IP4 + 4);
			u32 val;

			memcpy(&val, e + LEN_IP4, sizeof(val));
			/* Which key: find it by its bytes. */
			for (i = 0; i < 1000; i++) {
				key_of(k, LEN_IP4, SET_IN, i);
				if (!memcmp(k, e, LEN_IP4))
					break;
			}
			ASSERT_LT(i, 1000U);
			ASSERT_EQ(value_for(i), val);
			seen++;
		}
	}
	EXPECT_EQ(1000U, seen);
	cuckoo_destroy(c);
}

/*
 * A grown table emptied but for a few keys: a call of cuckoo_list() looks
 * at CUCKOO_LIST_SLOTS slots at most, and is -EAGAIN short of the end if
 * it found nothing there; calls from where the last one stopped list each
 * key once, and 0 comes at the table's end only.
 */
TEST(list_call_looks_at_a_bounded_number_of_slots)
{
	enum { KEYS = 20000, EVERY = 1000 };
	struct cuckoo *c = make(64, 1 << 20, 16, LEN_IP4, true);
	u8 k[CUCKOO_KEY_MAX], out[64 * LEN_IP4];
	u64 i, pos = 0, from, slots, end, calls = 0, found = 0;
	bool seen[KEYS / EVERY] = { false };
	long r, j;
	u32 idx;

	ASSERT_NE(NULL, c);
	for (i = 0; i < KEYS; i++)
		ASSERT_EQ(0, add(c, SET_IN, i));
	for (i = 0; i < KEYS; i++)
		if (i % EVERY)
			ASSERT_EQ(0, del(c, SET_IN, i));
	slots = stats_of(c).buckets * CUCKOO_SLOTS;
	ASSERT_LT(100ULL * CUCKOO_LIST_SLOTS, slots);
	for (;;) {
		from = pos;
		r = cuckoo_list(c, &pos, out, 64);
		calls++;
		ASSERT_GE((u64)CUCKOO_LIST_SLOTS, pos - from)
			TH_LOG("a call looked at slots %llu to %llu",
			       (unsigned long long)from,
			       (unsigned long long)pos - 1);
		if (r == -EAGAIN) {
			end = from + CUCKOO_LIST_SLOTS;
			ASSERT_GT(slots, end);
			ASSERT_EQ(end, pos);
			continue;
		}
		ASSERT_LE(0, r);
		if (!r)
			break;
		for (j = 0; j < r; j++) {
			idx = 0;
			memcpy(&idx, out + j * LEN_IP4 + 1, 3);
			key_of(k, LEN_IP4, SET_IN, idx);
			ASSERT_EQ(0, memcmp(k, out + j * LEN_IP4, LEN_IP4));
			ASSERT_EQ(0U, idx % EVERY);
			ASSERT_FALSE(seen[idx / EVERY]);
			seen[idx / EVERY] = true;
			found++;
		}
	}
	EXPECT_EQ((u64)KEYS / EVERY, found);
	EXPECT_EQ(slots, pos);
	EXPECT_LE(slots / CUCKOO_LIST_SLOTS, calls);
	cuckoo_destroy(c);
}

TEST(exact_clear_returns_to_the_initial_size)
{
	struct cuckoo *c = make(64, 1 << 20, 16, LEN_IP4, true);
	struct cuckoo_stats st0, st;
	u64 i;

	ASSERT_NE(NULL, c);
	st0 = stats_of(c);
	for (i = 0; i < 10000; i++)
		ASSERT_EQ(0, add(c, SET_IN, i));
	ASSERT_GT(stats_of(c).buckets, st0.buckets);
	ASSERT_EQ(0, cuckoo_clear(c));
	st = stats_of(c);
	EXPECT_EQ(0U, st.count);
	EXPECT_EQ(st0.buckets, st.buckets);
	EXPECT_EQ(st0.memory_bytes, st.memory_bytes);
	EXPECT_EQ(7U, st.grows);	/* counted since creation */
	for (i = 0; i < 10000; i++)
		ASSERT_FALSE(has(c, SET_IN, i));
	ASSERT_EQ(0, add(c, SET_IN, 1));
	ASSERT_TRUE(has(c, SET_IN, 1));
	cuckoo_destroy(c);
}

static int key_cmp(const void *a, const void *b)
{
	return memcmp(a, b, LEN_IP6);
}

TEST(exact_list_returns_the_stored_keys)
{
	struct cuckoo *c = make(64, 1 << 20, 16, LEN_IP6, true);
	u8 *want = calloc(5000, LEN_IP6), *got = calloc(5000 + 7, LEN_IP6);
	u64 i, pos = 0, n = 0;
	long r;

	ASSERT_NE(NULL, c);
	ASSERT_NE(NULL, want);
	ASSERT_NE(NULL, got);
	ASSERT_EQ(0, cuckoo_list(c, &pos, got, 7));
	for (i = 0; i < 6000; i++) {
		ASSERT_EQ(0, add(c, SET_IN, i));
		if (i % 6 == 5) {
			ASSERT_EQ(0, del(c, SET_IN, i));
		} else {
			key_of(want + n++ * LEN_IP6, LEN_IP6, SET_IN, i);
		}
	}
	ASSERT_EQ(5000U, n);
	pos = 0;
	n = 0;
	while ((r = cuckoo_list(c, &pos, got + n * LEN_IP6, 7)) > 0) {
		ASSERT_LE(r, 7);
		n += r;
		ASSERT_LE(n, 5000U);
	}
	ASSERT_EQ(0, r);
	ASSERT_EQ(5000U, n);
	ASSERT_EQ(0, cuckoo_list(c, &pos, got, 7));
	pos = 0;
	ASSERT_EQ(0, cuckoo_list(c, &pos, got, 0));
	qsort(want, 5000, LEN_IP6, key_cmp);
	qsort(got, 5000, LEN_IP6, key_cmp);
	ASSERT_EQ(0, memcmp(want, got, 5000 * LEN_IP6));
	free(want);
	free(got);
	cuckoo_destroy(c);
}

TEST(list_gen_grows_with_every_move_and_table)
{
	struct cuckoo *c = make(64, 1 << 16, 16, LEN_IP4, true);
	struct cuckoo_stats before, after;
	u64 gen, last;
	u32 i, moved = 0, grew = 0;

	ASSERT_NE(NULL, c);
	last = cuckoo_list_gen(c);
	for (i = 0; i < 20000; i++) {
		cuckoo_get_stats(c, &before);
		ASSERT_EQ(0, add(c, SET_IN, i));
		cuckoo_get_stats(c, &after);
		gen = cuckoo_list_gen(c);
		ASSERT_GE(gen, last);
		if (after.grows != before.grows) {
			grew++;
			ASSERT_GT(gen, last);
		} else if (after.moves != before.moves) {
			moved++;
			ASSERT_EQ(last + after.moves - before.moves, gen);
		} else {
			ASSERT_EQ(last, gen);
		}
		last = gen;
	}
	NOTE("%u inserts moved keys, %u grew the table\n", moved, grew);
	ASSERT_GT(moved, 0U);
	ASSERT_GT(grew, 0U);
	ASSERT_EQ(0, del(c, SET_IN, 5));
	ASSERT_EQ(last, cuckoo_list_gen(c));
	ASSERT_EQ(0, cuckoo_clear(c));
	ASSERT_GT(cuckoo_list_gen(c), last);
	cuckoo_destroy(c);
}

/*
 * What LIST does over many calls with writers in between: steps of 7 keys,
 * between which CHURN keys are added (moving others, growing the table) and
 * deleted. With @check the listing starts over whenever cuckoo_list_gen()
 * changed since its first step, as dev.c does. Returns how many of the
 * steady keys (SET_IN 0..@n-1, present throughout) the finished listing
 * reported other than once; *@restarts counts the new starts.
 */
static u32 list_under_churn(struct cuckoo *c, u32 n, bool check,
			    u32 *restarts)
{
	u8 *seen = calloc(n, 1), got[7 * LEN_IP4];
	u64 pos = 0, gen = cuckoo_list_gen(c);
	u32 churn = 0, step = 0, i, wrong = 0;
	long r, k;

	*restarts = 0;
	for (;;) {
		r = cuckoo_list(c, &pos, got, 7);
		if (check && cuckoo_list_gen(c) != gen) {
			/* The step ran on a new layout: start over. */
			memset(seen, 0, n);
			pos = 0;
			gen = cuckoo_list_gen(c);
			(*restarts)++;
			continue;
		}
		if (r <= 0)
			break;
		for (k = 0; k < r; k++) {
			u32 idx = 0;

			if (got[k * LEN_IP4] != SET_IN)
				continue;
			/* key_of(): the index, little endian, after the set. */
			memcpy(&idx, got + k * LEN_IP4 + 1, 3);
			if (idx < n && seen[idx] < 255)
				seen[idx]++;
		}
		/* Writers run between the first 400 steps only. */
		if (step++ < 400) {
			for (i = 0; i < 20; i++)
				add(c, SET_CHURN, churn++);
			for (i = 0; i < 10; i++)
				del(c, SET_CHURN, churn - 20 + i * 2);
		}
	}
	for (i = 0; i < n; i++)
		wrong += seen[i] != 1;
	free(seen);
	return wrong;
}

TEST(list_with_generation_reports_each_steady_key_once)
{
	struct cuckoo *with = make(4096, 1 << 20, 16, LEN_IP4, true);
	struct cuckoo *without = make(4096, 1 << 20, 16, LEN_IP4, true);
	u32 i, restarts, wrong;

	ASSERT_NE(NULL, with);
	ASSERT_NE(NULL, without);
	/* Near full, so that churn moves keys: kicks, then growth. */
	for (i = 0; i < 15000; i++) {
		ASSERT_EQ(0, add(with, SET_IN, i));
		ASSERT_EQ(0, add(without, SET_IN, i));
	}
	wrong = list_under_churn(without, 15000, false, &restarts);
	NOTE("without the generation: %u of 15000 steady keys listed other than once\n",
	     wrong);
	ASSERT_GT(wrong, 0U);
	wrong = list_under_churn(with, 15000, true, &restarts);
	NOTE("with it: %u restarts\n", restarts);
	ASSERT_EQ(0U, wrong);
	ASSERT_GT(restarts, 0U);
	cuckoo_destroy(with);
	cuckoo_destroy(without);
}

TEST(compact_list_is_not_supported)
{
	struct cuckoo *c = make(64, 0, 16, LEN_IP6, false);
	u8 buf[LEN_IP6];
	u64 pos = 0;

	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, add(c, SET_IN, 1));
	ASSERT_EQ(-EOPNOTSUPP, cuckoo_list(c, &pos, buf, 1));
	ASSERT_EQ(0U, pos);
	cuckoo_destroy(c);
}

TEST(compact_full_is_enospc_and_never_grows)
{
	struct cuckoo *c = make(64, 64, 16, LEN_IP4, false);
	u64 n;

	ASSERT_NE(NULL, c);
	n = fill_until_enospc(c);
	EXPECT_EQ(32U, stats_of(c).buckets);
	EXPECT_EQ(0U, stats_of(c).grows);
	EXPECT_GE(n, 121U);
	EXPECT_EQ(n, stats_of(c).count);
	cuckoo_destroy(c);
}

/* Raw tables (DUMP and RESTORE): the parameters of a compact filter. */
static struct cuckoo_params compact_params(u64 capacity, unsigned int fp_bits,
					   unsigned int key_len)
{
	struct cuckoo_params p = {
		.capacity = capacity,
		.max_capacity = capacity,
		.seed = SEED ^ 1,	/* a restored filter takes the dump's */
		.fp_bits = fp_bits,
		.key_len = key_len,
	};

	return p;
}

/* Dumps @c into a fresh buffer (freed by the caller) and describes it. */
static u8 *dump(const struct cuckoo *c, struct cuckoo_raw *r, u64 *size)
{
	u8 *data;

	*size = cuckoo_raw_bytes(c);
	data = malloc(*size);
	if (data && cuckoo_raw_read(c, r, data, 0, *size)) {
		free(data);
		return NULL;
	}
	return data;
}

TEST(raw_round_trip_keeps_every_key_and_no_other_in_each_width)
{
	unsigned int w, i;

	for (w = 0; w < ARRAY_SIZE(widths); w++) {
		struct cuckoo_params p = compact_params(1000, widths[w], LEN_IP4);
		struct cuckoo *c = make(1000, 1000, widths[w], LEN_IP4, false);
		struct cuckoo *d;
		struct cuckoo_raw r;
		u64 size, fp_src = 0, fp_dst = 0, stored = 0;
		u8 *data;
		int rc;

		ASSERT_NE(NULL, c);
		/* 8-bit fingerprints collide: EEXIST keys are found all the same. */
		for (i = 0; i < 900; i++) {
			rc = add(c, SET_IN, i);
			ASSERT_TRUE(!rc || rc == -EEXIST);
			stored += !rc;
		}
		data = dump(c, &r, &size);
		ASSERT_NE(NULL, data);
		EXPECT_EQ(SEED, r.seed);
		EXPECT_EQ(stats_of(c).buckets, r.buckets);
		EXPECT_EQ(stored, r.count);
		EXPECT_EQ(slots_used(c), r.count);
		EXPECT_EQ(widths[w], r.fp_bits);
		EXPECT_EQ((int)CUCKOO_HASH_MIX32, (int)r.hash);
		EXPECT_EQ(table_bytes(c), size);
		/* The documented layout: little-endian words as in memory. */
		EXPECT_EQ(0, memcmp(data, table_of(c)->words, size));

		d = cuckoo_raw_create(&p, &r, data, size);
		ASSERT_FALSE(IS_ERR(d));
		EXPECT_EQ(stored, stats_of(d).count);
		EXPECT_EQ(r.buckets, stats_of(d).buckets);
		for (i = 0; i < 900; i++)
			ASSERT_TRUE(has(d, SET_IN, i));
		/* Same seed, same slots: the same false positives, no more. */
		for (i = 0; i < 100000; i++) {
			fp_src += has(c, SET_OUT, i);
			fp_dst += has(d, SET_OUT, i);
		}
		EXPECT_EQ(fp_src, fp_dst);
		/* Still a working filter: delete, insert, clear. */
		EXPECT_EQ(0, del(d, SET_IN, 0));
		EXPECT_EQ(stored - 1, stats_of(d).count);
		EXPECT_EQ(0, add(d, SET_IN, 0));
		EXPECT_EQ(0, cuckoo_clear(d));
		EXPECT_EQ(0U, stats_of(d).count);
		free(data);
		cuckoo_destroy(d);
		cuckoo_destroy(c);
	}
}

/*
 * Compact tables of 4-byte keys were placed by the general hash, then by
 * the short one, before they took the mixed one: their snapshots say
 * which, and keep answering as they did, through the single and the
 * batched readers.
 */
TEST(raw_tables_of_older_hashes_keep_their_answers)
{
	static const enum cuckoo_hash_kind older[] = {
		CUCKOO_HASH_LANES, CUCKOO_HASH_SHORT32,
	};
	struct cuckoo_params p = compact_params(1000, 16, LEN_IP4);
	u8 keys[64 * LEN_IP4];
	bool hits[64];
	unsigned int h;

	for (h = 0; h < ARRAY_SIZE(older); h++) {
		struct cuckoo *c = make(1000, 1000, 16, LEN_IP4, false);
		struct cuckoo_raw r;
		struct cuckoo *d;
		u32 i, found = 0;
		u64 size;
		u8 *data;

		ASSERT_NE(NULL, c);
		ASSERT_EQ((int)CUCKOO_HASH_MIX32, c->hash);
		c->hash = older[h];	/* as cuckoo_create() made them */
		for (i = 0; i < 900; i++)
			ASSERT_EQ(0, add(c, SET_IN, i));
		data = dump(c, &r, &size);
		ASSERT_NE(NULL, data);
		EXPECT_EQ((int)older[h], (int)r.hash);

		d = cuckoo_raw_create(&p, &r, data, size);
		ASSERT_FALSE(IS_ERR(d));
		EXPECT_EQ((int)older[h], d->hash);
		for (i = 0; i < 900; i++)
			ASSERT_TRUE(has(d, SET_IN, i)) TH_LOG("hash %u", older[h]);
		for (i = 0; i < 64; i++)
			key_of(keys + i * LEN_IP4, LEN_IP4, SET_IN, i);
		rcu_read_lock();
		EXPECT_EQ(64U, cuckoo_contains_batch(d, keys, 64, hits));
		rcu_read_unlock();
		EXPECT_EQ(0, del(d, SET_IN, 0));
		EXPECT_EQ(0, add(d, SET_IN, 0));
		EXPECT_TRUE(has(d, SET_IN, 0));
		cuckoo_destroy(d);

		/* The same slots read with the mixed hash: the flag is what counts. */
		r.hash = CUCKOO_HASH_MIX32;
		d = cuckoo_raw_create(&p, &r, data, size);
		ASSERT_FALSE(IS_ERR(d));
		for (i = 0; i < 900; i++)
			found += has(d, SET_IN, i);
		EXPECT_GT(100U, found);
		cuckoo_destroy(d);
		free(data);
		cuckoo_destroy(c);
	}
}

TEST(raw_read_refuses_exact_mode_and_bad_ranges)
{
	struct cuckoo *e = make(64, 64, 16, LEN_IP4, true);
	struct cuckoo *c = make(64, 64, 16, LEN_IP4, false);
	struct cuckoo_raw r = { .seed = 7, .buckets = 7, .count = 7, .fp_bits = 7 };
	u8 buf[512];

	ASSERT_NE(NULL, e);
	ASSERT_NE(NULL, c);
	ASSERT_EQ(256U, cuckoo_raw_bytes(c));
	memset(buf, 0x5a, sizeof(buf));
	EXPECT_EQ(-EOPNOTSUPP, cuckoo_raw_read(e, &r, buf, 0, 256));
	EXPECT_EQ(-EINVAL, cuckoo_raw_read(c, &r, buf, 0, 264));
	EXPECT_EQ(-EINVAL, cuckoo_raw_read(c, &r, buf, 4, 8));
	EXPECT_EQ(-EINVAL, cuckoo_raw_read(c, &r, buf, 0, 12));
	EXPECT_EQ(-EINVAL, cuckoo_raw_read(c, &r, buf, 264, 0));
	EXPECT_EQ(0x5a, buf[0]);
	EXPECT_EQ(7U, r.seed);
	EXPECT_EQ(0, cuckoo_raw_read(c, &r, buf, 0, 256));
	EXPECT_EQ(0, buf[0]);
	EXPECT_EQ(0x5a, buf[256]);
	cuckoo_destroy(e);
	cuckoo_destroy(c);
}

/* DUMP copies a table in parts: the parts make up the whole. */
TEST(raw_read_in_parts_equals_whole)
{
	unsigned int widths[] = { 8, 12, 16, 32 }, w;

	for (w = 0; w < ARRAY_SIZE(widths); w++) {
		struct cuckoo *c = make(4096, 4096, widths[w], LEN_IP4, false);
		struct cuckoo_raw r, r2;
		u64 size, off, part;
		u8 *whole, *parts;
		u32 i;

		ASSERT_NE(NULL, c);
		for (i = 0; i < 3000; i++) {
			u8 key[LEN_IP4];

			memcpy(key, &i, sizeof(i));
			cuckoo_insert(c, key);
		}
		whole = dump(c, &r, &size);
		ASSERT_NE(NULL, whole);
		parts = malloc(size);
		ASSERT_NE(NULL, parts);
		part = widths[w] == 8 ? 4 * 7 : 8 * 7;
		for (off = 0; off < size; off += part) {
			u64 n = size - off < part ? size - off : part;

			ASSERT_EQ(0, cuckoo_raw_read(c, &r2, parts + off, off, n));
		}
		EXPECT_EQ(0, memcmp(whole, parts, size));
		EXPECT_EQ(r.count, r2.count);
		EXPECT_EQ(r.seed, r2.seed);
		free(whole);
		free(parts);
		cuckoo_destroy(c);
	}
}

/* A valid dump to break one rule at a time in the tests below. */
struct raw_case {
	struct cuckoo_params p;
	struct cuckoo_raw r;
	u64 size;
	u8 *data;
};

static void raw_case_make(struct raw_case *rc, unsigned int fp_bits)
{
	struct cuckoo *c = make(1000, 1000, fp_bits, LEN_IP6, false);
	u64 i;

	rc->p = compact_params(1000, fp_bits, LEN_IP6);
	for (i = 0; i < 500; i++)
		add(c, SET_IN, i);
	rc->data = dump(c, &rc->r, &rc->size);
	cuckoo_destroy(c);
}

static long raw_create_err(const struct raw_case *rc)
{
	struct cuckoo *d = cuckoo_raw_create(&rc->p, &rc->r, rc->data, rc->size);

	if (!IS_ERR(d)) {
		cuckoo_destroy(d);
		return 0;
	}
	return PTR_ERR(d);
}

TEST(raw_create_checks_every_rule)
{
	struct raw_case rc;
	struct raw_case bad;

	raw_case_make(&rc, 16);
	ASSERT_NE(NULL, rc.data);
	ASSERT_EQ(0, raw_create_err(&rc));
	EXPECT_EQ((int)CUCKOO_HASH_LANES, (int)rc.r.hash);
	/* The bound a caller checks sizes against before copying. */
	EXPECT_EQ(rc.size, cuckoo_raw_max_bytes(&rc.p));
	bad = rc;
	bad.p.fp_bits = 13;
	EXPECT_EQ(0U, cuckoo_raw_max_bytes(&bad.p));

	bad = rc;
	bad.p.exact = true;
	EXPECT_EQ(-EINVAL, raw_create_err(&bad));
	bad = rc;
	bad.p.fp_bits = 13;
	bad.r.fp_bits = 13;
	EXPECT_EQ(-EINVAL, raw_create_err(&bad));
	bad = rc;
	bad.p.key_len = 0;
	EXPECT_EQ(-EINVAL, raw_create_err(&bad));
	bad = rc;
	bad.r.fp_bits = 8;
	EXPECT_EQ(-EINVAL, raw_create_err(&bad));
	bad = rc;
	bad.r.buckets = 0;
	EXPECT_EQ(-EINVAL, raw_create_err(&bad));
	bad = rc;
	bad.r.buckets = rc.r.buckets - 1;	/* not a power of two */
	bad.size = bad.r.buckets * 8;
	EXPECT_EQ(-EINVAL, raw_create_err(&bad));
	bad = rc;
	bad.r.buckets = rc.r.buckets * 2;	/* over max_capacity */
	EXPECT_EQ(-EINVAL, raw_create_err(&bad));
	bad = rc;
	bad.size = rc.size - 8;
	EXPECT_EQ(-EINVAL, raw_create_err(&bad));
	bad = rc;
	bad.size = rc.size + 8;
	EXPECT_EQ(-EINVAL, raw_create_err(&bad));
	bad = rc;
	bad.r.count = rc.r.count + 1;
	EXPECT_EQ(-EINVAL, raw_create_err(&bad));
	bad = rc;
	bad.r.count = rc.r.count - 1;
	EXPECT_EQ(-EINVAL, raw_create_err(&bad));
	bad = rc;
	bad.r.hash = CUCKOO_HASH_SHORT32;	/* IPv6 keys: only 4-byte ones have it */
	EXPECT_EQ(-EINVAL, raw_create_err(&bad));
	bad.r.hash = CUCKOO_HASH_MIX32;
	EXPECT_EQ(-EINVAL, raw_create_err(&bad));
	bad.r.hash = CUCKOO_HASH_MIX32 + 1;
	EXPECT_EQ(-EINVAL, raw_create_err(&bad));

	/* A smaller table than the parameters' is fine: it was a smaller filter. */
	bad = rc;
	bad.r.buckets = rc.r.buckets / 2;
	bad.size = rc.size / 2;
	bad.r.count = 0;
	memset(bad.data, 0, bad.size);
	EXPECT_EQ(0, raw_create_err(&bad));
	free(rc.data);
}

TEST(raw_create_refuses_corrupted_slots)
{
	struct raw_case rc;
	u64 i, nz = 0;

	/* 12-bit fingerprints live in 16-bit slots: the top nibble is zero. */
	raw_case_make(&rc, 12);
	ASSERT_NE(NULL, rc.data);
	ASSERT_EQ(0, raw_create_err(&rc));
	for (i = 0; i < rc.size; i += 2)
		if (rc.data[i] || rc.data[i + 1])
			break;
	ASSERT_LT(i, rc.size);
	rc.data[i + 1] |= 0x10;
	EXPECT_EQ(-EINVAL, raw_create_err(&rc));
	rc.data[i + 1] &= 0x0f;
	ASSERT_EQ(0, raw_create_err(&rc));

	/* A slot filled or emptied behind the count's back. */
	for (i = 0; i < rc.size; i += 2)
		if (!rc.data[i] && !rc.data[i + 1])
			break;
	ASSERT_LT(i, rc.size);
	rc.data[i] = 1;
	EXPECT_EQ(-EINVAL, raw_create_err(&rc));
	rc.data[i] = 0;
	for (i = 0; i < rc.size; i += 2)
		nz += rc.data[i] || rc.data[i + 1];
	EXPECT_EQ(rc.r.count, nz);
	free(rc.data);
}

TEST(raw_create_without_memory_fails_cleanly)
{
	struct raw_case rc;
	long budget;
	long err;

	raw_case_make(&rc, 8);
	ASSERT_NE(NULL, rc.data);
	/* Every allocation in turn fails: -ENOMEM, and ASan sees no leak. */
	for (budget = 0; budget < 9; budget++) {
		cuckoo_host_alloc_budget = budget;
		err = raw_create_err(&rc);
		cuckoo_host_alloc_budget = -1;
		if (!err)
			break;
		EXPECT_EQ(-ENOMEM, err);
	}
	EXPECT_EQ(0, err);
	EXPECT_GT(budget, 4);
	free(rc.data);
}

/*
 * A mirror (cuckoo_mirror_start()): plain arrays here, as the module's
 * are a BPF map's entries. Versions are kept in 64-bit words, as there.
 */
struct mirror {
	u64 *words;
	u64 *versions;
	u64 buckets;
	u32 stripes;
	u64 stores;
};

static void mirror_bucket(void *ctx, u64 b, u64 word)
{
	struct mirror *m = ctx;

	WRITE_ONCE(m->words[b], word);
	m->stores++;
}

static void mirror_version(void *ctx, u32 stripe, u32 v)
{
	struct mirror *m = ctx;

	WRITE_ONCE(m->versions[stripe], v);
	m->stores++;
}

static void mirror_of(struct __test_metadata *_metadata, struct cuckoo *c,
		      struct mirror *m, struct cuckoo_mirror_shape *sh)
{
	struct cuckoo_mirror cm = { mirror_bucket, mirror_version, m };

	ASSERT_EQ(0, cuckoo_mirrorable(c, sh));
	m->buckets = sh->buckets;
	m->stripes = sh->stripes;
	m->words = calloc(sh->buckets, sizeof(u64));
	m->versions = calloc(sh->stripes, sizeof(u64));
	ASSERT_NE(NULL, m->words);
	ASSERT_NE(NULL, m->versions);
	ASSERT_EQ(0, cuckoo_mirror_start(c, &cm, m->words));
}

/*
 * A reader of the mirror as cfilter's program is (bpf/cfilter.bpf.c,
 * mirror_probe()), with the UAPI's hash: 1 hit, 0 miss, -1 a write may have
 * changed the answer.
 */
static int mirror_probe(const struct mirror *m,
			const struct cuckoo_mirror_shape *sh, const u8 *key)
{
	u32 a = get_unaligned((const u32 *)key);
	u64 h = cfilter_mirror_hash4(a, sh->hash_a, sh->hash_b);
	u32 fp = cfilter_mirror_fp(h, sh->fp_mask);
	u64 b1 = h & (sh->buckets - 1);
	u64 b2 = cfilter_mirror_alt(b1, fp, sh->buckets - 1);
	u64 v1, v2;
	bool hit;

	v1 = READ_ONCE(m->versions[fp & (sh->stripes - 1)]);
	smp_rmb();
	hit = cfilter_mirror_holds(READ_ONCE(m->words[b1]), fp) ||
	      cfilter_mirror_holds(READ_ONCE(m->words[b2]), fp);
	if (hit)
		return 1;
	smp_rmb();
	v2 = READ_ONCE(m->versions[fp & (sh->stripes - 1)]);
	return (u32)v2 == ((u32)v1 & ~1U) ? 0 : -1;
}

static void mirror_free(struct mirror *m)
{
	free(m->words);
	free(m->versions);
}

/*
 * The mirror holds the table's very words and versions through inserts
 * that move entries, deletes and a full table, and a reader of it with
 * the UAPI's hash answers every key as the table's own reader: so the
 * UAPI's mirror of the hash is the core's.
 */
static void mirror_follows(struct __test_metadata *_metadata,
			   unsigned int fp_bits)
{
	enum { N = 20000 };
	struct cuckoo_mirror_shape sh;
	struct cuckoo *c = make(N, N, fp_bits, LEN_IP4, false);
	const struct cuckoo_table *t;
	struct mirror m;
	u8 k[LEN_IP4];
	unsigned int i;
	u64 b;

	ASSERT_NE(NULL, c);
	for (i = 0; i < N / 4; i++) {
		key_of(k, LEN_IP4, SET_IN, i);
		cuckoo_insert(c, k);
	}
	mirror_of(_metadata, c, &m, &sh);
	ASSERT_EQ((u32)((1U << fp_bits) - 1), sh.fp_mask);
	ASSERT_EQ((int)CUCKOO_HASH_MIX32, (int)sh.hash);
	for (i = N / 4; i < N + N / 10; i++) {
		key_of(k, LEN_IP4, SET_IN, i);
		cuckoo_insert(c, k);	/* the last ones find it full */
	}
	for (i = 0; i < N; i += 3) {
		key_of(k, LEN_IP4, SET_IN, i);
		cuckoo_delete(c, k);
	}
	t = table_of(c);
	ASSERT_LT(0U, t->moves);
	for (b = 0; b < sh.buckets; b++)
		ASSERT_EQ(t->t64[b], m.words[b]) TH_LOG("bucket %llu", b);
	for (b = 0; b < sh.stripes; b++)
		ASSERT_EQ(t->versions[b], m.versions[b]);
	for (i = 0; i < 2 * N; i++) {
		key_of(k, LEN_IP4, i < N ? SET_IN : SET_OUT, i % N);
		rcu_read_lock();
		ASSERT_EQ(cuckoo_contains(c, k), mirror_probe(&m, &sh, k))
			TH_LOG("key %u", i);
		rcu_read_unlock();
	}
	/* Stopped, the mirror hears no more; while mirrored, no clear. */
	ASSERT_EQ(-EBUSY, cuckoo_clear(c));
	cuckoo_mirror_stop(c);
	b = m.stores;
	key_of(k, LEN_IP4, SET_IN, 0);
	cuckoo_delete(c, k);
	cuckoo_insert(c, k);
	ASSERT_EQ(b, m.stores);
	ASSERT_EQ(0, cuckoo_clear(c));
	mirror_free(&m);
	cuckoo_destroy(c);
}

TEST(mirror_follows_every_write_of_16_bit_fingerprints)
{
	mirror_follows(_metadata, 16);
}

TEST(mirror_follows_every_write_of_12_bit_fingerprints)
{
	mirror_follows(_metadata, 12);
}

/* Only a compact table whose bucket is one 64-bit word is mirrored. */
TEST(mirror_refuses_exact_tables_and_other_widths)
{
	static const struct { unsigned int fp_bits; bool exact; } no[] = {
		{ 8, false }, { 32, false }, { 16, true },
	};
	struct cuckoo_mirror cm = { mirror_bucket, mirror_version, NULL };
	struct cuckoo_mirror_shape sh;
	u64 words[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(no); i++) {
		struct cuckoo *c = make(64, 64, no[i].fp_bits, LEN_IP4,
					no[i].exact);

		ASSERT_NE(NULL, c);
		EXPECT_EQ(-EOPNOTSUPP, cuckoo_mirrorable(c, &sh));
		EXPECT_EQ(-EOPNOTSUPP, cuckoo_mirror_start(c, &cm, words));
		cuckoo_destroy(c);
	}
}

struct mirror_race {
	struct cuckoo *c;
	struct mirror m;
	struct cuckoo_mirror_shape sh;
	volatile bool stop;
	u64 unsure;
	u64 missed;
	u64 reads;
};

static void *mirror_reader(void *arg)
{
	struct mirror_race *r = arg;
	u8 k[LEN_IP4];
	unsigned int i = 0;
	int a;

	while (!r->stop) {
		key_of(k, LEN_IP4, SET_IN, i++ % 4096);
		a = mirror_probe(&r->m, &r->sh, k);
		r->unsure += a < 0;
		r->missed += !a;
		r->reads++;
	}
	return NULL;
}

/*
 * A reader of the mirror during a writer's churn, which moves the held
 * keys about, never takes a held key for absent: its misses are vouched
 * for by the version, as the table's own readers' (stress.c).
 */
TEST(mirror_readers_never_miss_a_held_key_during_moves)
{
	enum { N = 8192, ROUNDS = 40 };
	struct mirror_race r = { 0 };
	unsigned int i, round, churn;
	pthread_t th;
	u8 k[LEN_IP4];

	r.c = make(N, N, 16, LEN_IP4, false);
	ASSERT_NE(NULL, r.c);
	mirror_of(_metadata, r.c, &r.m, &r.sh);
	for (i = 0; i < 4096; i++) {
		key_of(k, LEN_IP4, SET_IN, i);
		ASSERT_EQ(0, cuckoo_insert(r.c, k));
	}
	/* churn up to 93% load, where inserts move entries */
	churn = r.sh.buckets * CUCKOO_SLOTS * 93 / 100 - 4096;
	ASSERT_GT(churn, 0U);
	ASSERT_EQ(0, pthread_create(&th, NULL, mirror_reader, &r));
	for (round = 0; round < ROUNDS; round++) {
		for (i = 0; i < churn; i++) {
			key_of(k, LEN_IP4, SET_CHURN, i);
			cuckoo_insert(r.c, k);
		}
		for (i = 0; i < churn; i++) {
			key_of(k, LEN_IP4, SET_CHURN, i);
			cuckoo_delete(r.c, k);
		}
	}
	r.stop = true;
	pthread_join(th, NULL);
	NOTE("%llu reads, %llu unsure, %llu moves\n", (unsigned long long)r.reads,
	     (unsigned long long)r.unsure,
	     (unsigned long long)table_of(r.c)->moves);
	EXPECT_LT(0U, table_of(r.c)->moves);
	EXPECT_EQ(0U, r.missed);
	cuckoo_mirror_stop(r.c);
	mirror_free(&r.m);
	cuckoo_destroy(r.c);
}

TEST_HARNESS_MAIN
