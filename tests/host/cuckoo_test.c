// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the cuckoo filter core.
 *
 * The core is included rather than linked so that tests can also check its
 * internals: the table words, the version counters, the exact allocation.
 */
#include "cuckoo.c"

#include <pthread.h>
#include <time.h>
#include <uapi/linux/cfilter.h>

#include "kselftest_harness.h"

#define SEED		0x5eed0f0ce11f17e5ULL

/* Key sets: disjoint by construction. */
#define SET_IN		1	/* keys that are added */
#define SET_OUT		2	/* keys that are never added */
#define SET_CHURN	3	/* keys added and deleted while others read */

/* fflush: the harness ends each test child with _exit(). */
#define NOTE(...) do { ksft_print_msg(__VA_ARGS__); fflush(stdout); } while (0)

/* A realistic key: an IPv6 source in 2001:db8::/32, numbered by set and i. */
static struct cfilter_key key_of(unsigned int set, u64 i)
{
	struct cfilter_key k = {
		.type = CFILTER_KEY_SRC6,
		.prefix_len = 128,
		.saddr = { 0x20, 0x01, 0x0d, 0xb8, set >> 8, set & 0xff },
	};
	unsigned int b;

	for (b = 0; b < 8; b++)
		k.saddr[8 + b] = i >> (56 - 8 * b);
	return k;
}

static int add(struct cuckoo *c, unsigned int set, u64 i)
{
	struct cfilter_key k = key_of(set, i);

	return cuckoo_insert(c, &k, sizeof(k));
}

static int del(struct cuckoo *c, unsigned int set, u64 i)
{
	struct cfilter_key k = key_of(set, i);

	return cuckoo_delete(c, &k, sizeof(k));
}

static bool has(const struct cuckoo *c, unsigned int set, u64 i)
{
	struct cfilter_key k = key_of(set, i);

	return cuckoo_contains(c, &k, sizeof(k));
}

static struct cuckoo_stats stats_of(const struct cuckoo *c)
{
	struct cuckoo_stats st;

	memset(&st, 0xa5, sizeof(st));
	cuckoo_get_stats(c, &st);
	return st;
}

/* Fingerprints stored, counted slot by slot. */
static u64 slots_used(const struct cuckoo *c)
{
	u64 b, n = 0;
	unsigned int s;

	for (b = 0; b <= c->bucket_mask; b++)
		for (s = 0; s < CUCKOO_SLOTS; s++)
			n += cuckoo_slot(c, b, s) != 0;
	return n;
}

/* Each move adds 2 to one or two counters, so this is at most the moves. */
static u64 moves_at_least(const struct cuckoo *c)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i <= c->stripe_mask; i++)
		sum += c->versions[i];
	return sum / 4;
}

static bool table_is_zero(const struct cuckoo *c)
{
	const u8 *p = c->table;
	u64 i;

	for (i = 0; i < c->table_bytes; i++)
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

TEST(add_test_del_round_trip)
{
	struct cuckoo *c = cuckoo_create(1000, 32, SEED);

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

TEST(add_twice_returns_eexist)
{
	struct cuckoo *c = cuckoo_create(1000, 32, SEED);

	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, add(c, SET_IN, 7));
	ASSERT_EQ(-EEXIST, add(c, SET_IN, 7));
	ASSERT_EQ(1U, stats_of(c).count);
	ASSERT_EQ(1U, slots_used(c));
	ASSERT_TRUE(has(c, SET_IN, 7));
	cuckoo_destroy(c);
}

TEST(del_absent_returns_enoent)
{
	struct cuckoo *c = cuckoo_create(1000, 32, SEED);

	ASSERT_NE(NULL, c);
	ASSERT_EQ(-ENOENT, del(c, SET_OUT, 1));
	ASSERT_EQ(0, add(c, SET_IN, 1));
	ASSERT_EQ(-ENOENT, del(c, SET_OUT, 1));
	ASSERT_EQ(1U, stats_of(c).count);
	ASSERT_TRUE(has(c, SET_IN, 1));
	cuckoo_destroy(c);
}

TEST(del_then_test_absent_and_del_again_enoent)
{
	struct cuckoo *c = cuckoo_create(1000, 32, SEED);

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

TEST(keys_of_every_length_are_distinct)
{
	struct cuckoo *c = cuckoo_create(1000, 32, SEED);
	u8 buf[64] = { 0 };
	size_t len;

	ASSERT_NE(NULL, c);
	/* All-zero prefixes: only the length tells them apart. */
	for (len = 0; len <= sizeof(buf); len++)
		ASSERT_EQ(0, cuckoo_insert(c, buf, len));
	for (len = 0; len <= sizeof(buf); len++)
		ASSERT_TRUE(cuckoo_contains(c, buf, len));
	ASSERT_EQ(0, cuckoo_delete(c, buf, 40));
	ASSERT_FALSE(cuckoo_contains(c, buf, 40));
	ASSERT_TRUE(cuckoo_contains(c, buf, 39));
	ASSERT_TRUE(cuckoo_contains(c, buf, 41));
	ASSERT_EQ(sizeof(buf), stats_of(c).count);
	cuckoo_destroy(c);
}

TEST(params_reject_unsupported_fp_bits)
{
	static const unsigned int bad[] = { 0, 1, 7, 9, 15, 24, 31, 33, 64 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, cuckoo_params_check(1000, bad[i]));
		EXPECT_EQ(NULL, cuckoo_create(1000, bad[i], SEED));
	}
}

TEST(params_reject_zero_capacity)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(widths); i++) {
		EXPECT_EQ(-EINVAL, cuckoo_params_check(0, widths[i]));
		EXPECT_EQ(NULL, cuckoo_create(0, widths[i], SEED));
	}
}

/* The largest capacities whose table fits in 1 GiB: floor(max buckets * 3.8). */
TEST(params_reject_huge_capacity)
{
	static const u64 max[] = { 1020054732, 510027366, 510027366, 255013683 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(widths); i++) {
		EXPECT_EQ(0, cuckoo_params_check(max[i], widths[i]));
		EXPECT_EQ(-EINVAL, cuckoo_params_check(max[i] + 1, widths[i]));
		EXPECT_EQ(-EINVAL, cuckoo_params_check(1ULL << 32, widths[i]));
		EXPECT_EQ(-EINVAL, cuckoo_params_check(~0ULL, widths[i]));
		EXPECT_EQ(NULL, cuckoo_create(~0ULL, widths[i], SEED));
	}
}

TEST(params_accept_each_fp_width)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(widths); i++) {
		struct cuckoo *c;

		ASSERT_EQ(0, cuckoo_params_check(1000, widths[i]));
		c = cuckoo_create(1000, widths[i], SEED);
		ASSERT_NE(NULL, c);
		ASSERT_EQ(widths[i], stats_of(c).fp_bits);
		ASSERT_EQ(0, add(c, SET_IN, 3));
		ASSERT_TRUE(has(c, SET_IN, 3));
		ASSERT_EQ(0, del(c, SET_IN, 3));
		cuckoo_destroy(c);
	}
}

TEST(buckets_are_the_smallest_power_of_two_fitting_at_95pct)
{
	static const struct { u64 keys, buckets; } want[] = {
		{ 1, 1 }, { 3, 1 }, { 4, 2 }, { 7, 2 }, { 8, 4 },
		{ 1000, 512 }, { 3891, 1024 }, { 3892, 2048 },
		{ 1000000, 524288 },
	};
	unsigned int i, w;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		for (w = 0; w < ARRAY_SIZE(widths); w++) {
			struct cuckoo *c = cuckoo_create(want[i].keys, widths[w], SEED);
			struct cuckoo_stats st;

			ASSERT_NE(NULL, c);
			st = stats_of(c);
			EXPECT_EQ(want[i].buckets, st.buckets);
			EXPECT_EQ(0U, st.buckets & (st.buckets - 1));
			EXPECT_EQ(st.buckets * CUCKOO_SLOTS, st.capacity);
			EXPECT_GE(st.capacity * 95, want[i].keys * 100);
			if (st.buckets > 1)
				EXPECT_LT(st.capacity / 2 * 95, want[i].keys * 100);
			cuckoo_destroy(c);
		}
	}
}

TEST(stats_are_exact)
{
	struct cuckoo *c = cuckoo_create(1000, 16, SEED);
	struct cuckoo_stats st;

	ASSERT_NE(NULL, c);
	st = stats_of(c);
	EXPECT_EQ(2048U, st.capacity);
	EXPECT_EQ(0U, st.count);
	EXPECT_EQ(512U, st.buckets);
	EXPECT_EQ(16U, st.fp_bits);
	EXPECT_EQ(0U, st.insert_failures);
	/* struct, 512 8-byte buckets, 512 versions, the BFS queue */
	EXPECT_EQ(sizeof(struct cuckoo) + 4096 + 2048 +
		  (CUCKOO_MAX_KICKS + 2) * sizeof(struct cuckoo_node),
		  st.memory_bytes);
	ASSERT_EQ(0, add(c, SET_IN, 1));
	ASSERT_EQ(0, add(c, SET_IN, 2));
	ASSERT_EQ(0, add(c, SET_IN, 3));
	ASSERT_EQ(0, del(c, SET_IN, 2));
	EXPECT_EQ(2U, stats_of(c).count);
	EXPECT_EQ(2U, slots_used(c));
	cuckoo_destroy(c);
}

TEST(alternate_bucket_is_an_involution)
{
	struct cuckoo *c = cuckoo_create(200000, 16, SEED);
	u64 b, a;
	u32 fp;

	ASSERT_NE(NULL, c);
	for (fp = 1; fp <= 0xffff; fp++) {
		b = (fp * 2654435761U) & c->bucket_mask;
		a = cuckoo_alt(c, b, fp);
		ASSERT_LE(a, c->bucket_mask);
		ASSERT_EQ(b, cuckoo_alt(c, a, fp));
	}
	cuckoo_destroy(c);
}

/*
 * A filter of 32768 buckets (131072 slots) filled with SET_IN keys to 95%
 * of its slots, for each fingerprint width.
 */
FIXTURE(full) {
	struct cuckoo *c;
	u64 keys;		/* SET_IN keys 0..keys-1 were added */
	u64 eexist;		/* of which this many shared a fingerprint */
	u8 *stored;		/* stored[i]: key i's add returned 0 */
};

FIXTURE_VARIANT(full) {
	unsigned int fp_bits;
};

FIXTURE_VARIANT_ADD(full, fp8) { .fp_bits = 8 };
FIXTURE_VARIANT_ADD(full, fp12) { .fp_bits = 12 };
FIXTURE_VARIANT_ADD(full, fp16) { .fp_bits = 16 };
FIXTURE_VARIANT_ADD(full, fp32) { .fp_bits = 32 };

#define FULL_SLOTS	131072U
#define FULL_TARGET	(FULL_SLOTS * 95 / 100)

FIXTURE_SETUP(full)
{
	int rc;

	self->c = cuckoo_create(100000, variant->fp_bits, SEED);
	ASSERT_NE(NULL, self->c);
	ASSERT_EQ(FULL_SLOTS, stats_of(self->c).capacity);
	self->stored = calloc(FULL_SLOTS, 1);
	ASSERT_NE(NULL, self->stored);
	self->keys = 0;
	self->eexist = 0;
	while (self->c->count < FULL_TARGET) {
		rc = add(self->c, SET_IN, self->keys);
		ASSERT_TRUE(rc == 0 || rc == -EEXIST);
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
	EXPECT_EQ(FULL_TARGET, slots_used(self->c));
	EXPECT_EQ(self->keys, FULL_TARGET + self->eexist);
	/* -EEXIST only from fingerprint collisions: below the full-load rate */
	EXPECT_LE(self->eexist, (u64)(self->keys * fp_bound(variant->fp_bits)));
	/* Reaching 95% needs moves; make sure they happened. */
	EXPECT_GT(moves_at_least(self->c), 1000U);
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
	NOTE("fp_bits %u at 95%% load: false positive rate %.3g (%llu of %llu), bound %.3g\n",
	     f, rate, (unsigned long long)hits, (unsigned long long)n, bound);
	if (f == 32) {
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
	EXPECT_LE(ghosts, (u64)(deleted * fp_bound(variant->fp_bits)));
}

TEST_F(full, clear_empties)
{
	struct cuckoo_stats st;
	u64 i;

	/* Full to the brim, with a failure counted, before the clear. */
	ASSERT_EQ(FULL_TARGET + fill_until_enospc(self->c),
		  stats_of(self->c).count);
	ASSERT_EQ(1U, stats_of(self->c).insert_failures);
	cuckoo_clear(self->c);
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

TEST_F(full, insert_failure_keeps_every_key)
{
	u64 used = stats_of(self->c).count, failures = 0, first = 0, i, k;
	u8 *before = malloc(self->c->table_bytes);
	int rc;

	ASSERT_NE(NULL, before);
	/* Add new keys until 20 refusals; each must change nothing. */
	for (k = 0; failures < 20; k++) {
		ASSERT_LT(k, FULL_SLOTS);
		memcpy(before, self->c->table, self->c->table_bytes);
		rc = add(self->c, SET_CHURN, k);
		if (rc == 0) {
			used++;
			continue;
		}
		if (rc == -EEXIST)
			continue;
		ASSERT_EQ(-ENOSPC, rc);
		if (!failures++)
			first = used;
		ASSERT_EQ(0, memcmp(before, self->c->table, self->c->table_bytes));
		ASSERT_EQ(used, stats_of(self->c).count);
		ASSERT_EQ(failures, stats_of(self->c).insert_failures);
	}
	NOTE("fp_bits %u: first refusal at %.2f%% load, 20th at %.2f%%\n",
	     variant->fp_bits, 100.0 * (double)first / FULL_SLOTS,
	     100.0 * (double)used / FULL_SLOTS);
	for (i = 0; i < self->keys; i++)
		ASSERT_TRUE(has(self->c, SET_IN, i));
	EXPECT_EQ(used, slots_used(self->c));
	free(before);
}

/*
 * One writer keeps the table at 90-95% load by adding and deleting SET_CHURN
 * keys, which forces moves, while two readers look up SET_IN keys that stay
 * present throughout. A reader must never miss one. The table is small
 * (256 buckets) so that moves often hit the buckets being read. The race
 * window is nanoseconds wide, so this is a smoke test, not a proof: with the
 * readers' version check removed, 3 of 3 runs of the three cases together
 * saw 1-3 misses.
 */
struct race {
	struct cuckoo *c;
	u64 keys;		/* SET_IN keys 0..keys-1 are present */
	int done;		/* set by the writer when it finishes */
	u64 ops;		/* writer: adds attempted */
	u64 lookups[2];		/* per reader, published as it goes */
	u64 misses[2];
};

struct reader_arg {
	struct race *r;
	unsigned int id;
};

static void *reader(void *p)
{
	struct reader_arg *a = p;
	struct race *r = a->r;
	u64 i = 0, n = 0, misses = 0;

	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
		misses += !has(r->c, SET_IN, i);
		if (!(++n & 1023))
			__atomic_store_n(&r->lookups[a->id], n, __ATOMIC_RELAXED);
		if (++i == r->keys)
			i = 0;
	}
	__atomic_store_n(&r->lookups[a->id], n, __ATOMIC_RELAXED);
	r->misses[a->id] = misses;
	return NULL;
}

#define RACE_OPS	300000	/* at least this many adds ... */
#define RACE_LOOKUPS	2000000	/* ... and lookups per reader ... */
#define RACE_SECONDS	4	/* ... unless this runs out first */
#define RACE_WINDOW	50	/* churn keys present at once: ~5% of slots */

static bool race_more(struct race *r, u64 i, time_t end)
{
	if (i < RACE_OPS)
		return true;
	if (i & 1023)
		return true;
	return (__atomic_load_n(&r->lookups[0], __ATOMIC_RELAXED) < RACE_LOOKUPS ||
		__atomic_load_n(&r->lookups[1], __ATOMIC_RELAXED) < RACE_LOOKUPS) &&
	       time(NULL) < end;
}

static void churn(struct __test_metadata *_metadata, struct race *r)
{
	time_t end = time(NULL) + RACE_SECONDS;
	bool added[RACE_WINDOW] = { false };
	u64 i;

	for (i = 0; race_more(r, i, end); i++) {
		bool *old = &added[i % RACE_WINDOW];

		if (*old)
			ASSERT_EQ(0, del(r->c, SET_CHURN, i - RACE_WINDOW));
		*old = add(r->c, SET_CHURN, i) == 0;
	}
	r->ops = i;
}

static void race(struct __test_metadata *_metadata, unsigned int fp_bits)
{
	struct race r = { .c = cuckoo_create(900, fp_bits, SEED) };
	struct reader_arg args[2] = { { &r, 0 }, { &r, 1 } };
	pthread_t tid[2];
	unsigned int t;

	ASSERT_NE(NULL, r.c);
	ASSERT_EQ(1024U, stats_of(r.c).capacity);
	while (r.c->count < 1024 * 90 / 100)
		ASSERT_NE(-ENOSPC, add(r.c, SET_IN, r.keys++));
	for (t = 0; t < 2; t++)
		ASSERT_EQ(0, pthread_create(&tid[t], NULL, reader, &args[t]));
	churn(_metadata, &r);
	__atomic_store_n(&r.done, 1, __ATOMIC_RELEASE);
	for (t = 0; t < 2; t++)
		ASSERT_EQ(0, pthread_join(tid[t], NULL));
	NOTE("fp_bits %u: %llu + %llu lookups during %llu adds, >= %llu moves, %llu misses\n",
	     fp_bits, (unsigned long long)r.lookups[0],
	     (unsigned long long)r.lookups[1], (unsigned long long)r.ops,
	     (unsigned long long)moves_at_least(r.c),
	     (unsigned long long)(r.misses[0] + r.misses[1]));
	EXPECT_EQ(0U, r.misses[0]);
	EXPECT_EQ(0U, r.misses[1]);
	EXPECT_GT(r.lookups[0], 0U);
	EXPECT_GT(r.lookups[1], 0U);
	EXPECT_GT(moves_at_least(r.c), 10000U);
	cuckoo_destroy(r.c);
}

TEST(readers_never_miss_keys_during_moves_fp8)
{
	race(_metadata, 8);
}

TEST(readers_never_miss_keys_during_moves_fp16)
{
	race(_metadata, 16);
}

TEST(readers_never_miss_keys_during_moves_fp32)
{
	race(_metadata, 32);
}

TEST_HARNESS_MAIN
