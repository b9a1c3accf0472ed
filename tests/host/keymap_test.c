// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the writer's map (core/keymap.c): put, get, update
 * and delete against a plain array model through growth, tombstone reuse
 * and shrinking; walks that delete what they walk; the entry bound; and a
 * failed allocation that changes nothing.
 */
#include "keymap.c"

#include <stdio.h>

#include "kselftest_harness.h"

#define SEED	0x5eed0f0ce11f17e5ULL
#define KLEN	6

static void nth(u8 *key, u32 i)
{
	memset(key, 0, KLEN);
	memcpy(key, &i, sizeof(i));
	key[5] = i % 7;
}

TEST(empty_map_has_nothing)
{
	struct keymap m;
	u8 key[KLEN];
	u64 pos = 0;

	keymap_init(&m, KLEN, 4, 100, SEED);
	nth(key, 1);
	EXPECT_FALSE(keymap_get(&m, key, NULL));
	EXPECT_FALSE(keymap_del(&m, key));
	EXPECT_EQ(NULL, keymap_next(&m, &pos, NULL));
	EXPECT_EQ(0ULL, keymap_bytes(&m));
	keymap_free(&m);
}

TEST(put_updates_the_value_of_a_present_key)
{
	struct keymap m;
	u8 key[KLEN];
	u64 v = 0;

	keymap_init(&m, KLEN, 4, 100, SEED);
	nth(key, 9);
	ASSERT_EQ(0, keymap_put(&m, key, 5));
	ASSERT_EQ(0, keymap_put(&m, key, 7));
	EXPECT_EQ(1ULL, keymap_count(&m));
	EXPECT_TRUE(keymap_get(&m, key, &v));
	EXPECT_EQ(7U, v);
	keymap_free(&m);
}

/* A map of 8-byte values keeps all 64 bits, through a re-layout too. */
TEST(wide_values_keep_every_bit)
{
	enum { KEYS = 1000 };
	struct keymap m;
	u8 key[KLEN];
	u64 v, i;

	keymap_init(&m, KLEN, 8, KEYS, SEED);
	for (i = 0; i < KEYS; i++) {
		nth(key, i);
		ASSERT_EQ(0, keymap_put(&m, key, i << 40 | 0xfedcba98ULL));
	}
	for (i = 0; i < KEYS; i++) {
		nth(key, i);
		ASSERT_TRUE(keymap_get(&m, key, &v));
		ASSERT_EQ(i << 40 | 0xfedcba98ULL, v);
	}
	keymap_free(&m);
}

/* A random mix of puts and deletes agrees with an array at every step. */
TEST(random_ops_match_a_model)
{
	enum { KEYS = 5000, OPS = 200000 };
	static int model[KEYS];	/* 0: absent, else value + 1 */
	struct keymap m;
	u64 rng = 88172645463325252ULL, gens;
	u8 key[KLEN];
	u32 i, k;
	u64 v = 0;
	u64 n = 0;

	keymap_init(&m, KLEN, 4, KEYS, SEED);
	gens = keymap_gen(&m);
	for (i = 0; i < OPS; i++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		k = rng % KEYS;
		nth(key, k);
		if (rng & (1ULL << 40)) {
			ASSERT_EQ(0, keymap_put(&m, key, i));
			n += !model[k];
			model[k] = i + 1;
		} else {
			ASSERT_EQ(!!model[k], keymap_del(&m, key));
			n -= !!model[k];
			model[k] = 0;
		}
		ASSERT_EQ(n, keymap_count(&m));
	}
	for (k = 0; k < KEYS; k++) {
		nth(key, k);
		ASSERT_EQ(!!model[k], keymap_get(&m, key, &v));
		if (model[k])
			ASSERT_EQ((u32)model[k] - 1, v);
	}
	EXPECT_LT(gens, keymap_gen(&m));
	/* Tombstones never fill the table: at most 3/4 is ever used. */
	EXPECT_GE(m.cap * 3, 4 * (m.used + m.tombs));
	keymap_free(&m);
}

/* Deleting every other entry while walking visits each entry once. */
TEST(walk_may_delete_what_it_walks)
{
	enum { KEYS = 3000 };
	static u8 seen[KEYS];
	struct keymap m;
	const u8 *key;
	u8 k[KLEN];
	u32 i, id;
	u64 v;
	u64 pos, gen;

	keymap_init(&m, KLEN, 4, KEYS, SEED);
	for (i = 0; i < KEYS; i++) {
		nth(k, i);
		ASSERT_EQ(0, keymap_put(&m, k, i));
	}
	gen = keymap_gen(&m);
	for (pos = 0; (key = keymap_next(&m, &pos, &v));) {
		memcpy(&id, key, sizeof(id));
		ASSERT_EQ(id, v);
		ASSERT_EQ(0, seen[id]);
		seen[id] = 1;
		if (id % 2) {
			memcpy(k, key, KLEN);
			ASSERT_TRUE(keymap_del(&m, k));
		}
	}
	EXPECT_EQ(gen, keymap_gen(&m));
	for (i = 0; i < KEYS; i++)
		ASSERT_EQ(1, seen[i]);
	EXPECT_EQ((u64)KEYS / 2, keymap_count(&m));
	keymap_free(&m);
}

/*
 * A table of tombstones but for a few entries: a call of the walk looks at
 * KEYMAP_WALK_SLOTS slots at most, and returns NULL short of the end if it
 * found nothing there; calls from where the last one stopped find each
 * entry once, and the walk ends where the table does.
 */
TEST(walk_call_looks_at_a_bounded_number_of_slots)
{
	enum { KEYS = 20000, KEPT = 5 };
	bool seen[KEPT] = { false };
	u64 pos, from, calls = 0, found = 0, end;
	struct keymap m;
	const u8 *key;
	u8 k[KLEN];
	u32 i, id;
	u64 v;

	keymap_init(&m, KLEN, 4, KEYS, SEED);
	for (i = 0; i < KEYS; i++) {
		nth(k, i);
		ASSERT_EQ(0, keymap_put(&m, k, i));
	}
	for (i = KEPT; i < KEYS; i++) {
		nth(k, i);
		ASSERT_TRUE(keymap_del(&m, k));
	}
	ASSERT_LT(100ULL * KEYMAP_WALK_SLOTS, m.cap);
	for (pos = 0; !keymap_walked(&m, pos); calls++) {
		from = pos;
		key = keymap_next(&m, &pos, &v);
		ASSERT_LT(from, pos);
		ASSERT_GE((u64)KEYMAP_WALK_SLOTS, pos - from)
			TH_LOG("a call looked at slots %llu to %llu",
			       (unsigned long long)from,
			       (unsigned long long)pos - 1);
		if (!key) {
			end = from + KEYMAP_WALK_SLOTS;
			ASSERT_EQ(end < m.cap ? end : m.cap, pos);
			continue;
		}
		memcpy(&id, key, sizeof(id));
		ASSERT_LT(id, (u32)KEPT);
		ASSERT_EQ(id, v);
		ASSERT_FALSE(seen[id]);
		seen[id] = true;
		found++;
	}
	EXPECT_EQ((u64)KEPT, found);
	EXPECT_EQ(m.cap, pos);
	EXPECT_LE(m.cap / KEYMAP_WALK_SLOTS, calls);
	EXPECT_EQ(NULL, keymap_next(&m, &pos, NULL));
	EXPECT_EQ(m.cap, pos);
	keymap_free(&m);
}

/* Emptied, the table goes; mostly emptied, it shrinks, keeping the rest. */
TEST(shrink_gives_memory_back)
{
	enum { KEYS = 4096 };
	struct keymap m;
	u64 big;
	u8 k[KLEN];
	u32 i;

	keymap_init(&m, KLEN, 4, KEYS, SEED);
	for (i = 0; i < KEYS; i++) {
		nth(k, i);
		ASSERT_EQ(0, keymap_put(&m, k, i));
	}
	big = keymap_bytes(&m);
	for (i = 10; i < KEYS; i++) {
		nth(k, i);
		ASSERT_TRUE(keymap_del(&m, k));
	}
	keymap_shrink(&m);
	EXPECT_GT(big / 16, keymap_bytes(&m));
	for (i = 0; i < KEYS; i++) {
		nth(k, i);
		ASSERT_EQ(i < 10, keymap_get(&m, k, NULL));
	}
	for (i = 0; i < 10; i++) {
		nth(k, i);
		ASSERT_TRUE(keymap_del(&m, k));
	}
	keymap_shrink(&m);
	EXPECT_EQ(0ULL, keymap_bytes(&m));
	keymap_free(&m);
}

TEST(bound_refuses_new_keys_but_updates_old_ones)
{
	struct keymap m;
	u8 k[KLEN];
	u32 i;
	u64 v;

	keymap_init(&m, KLEN, 4, 3, SEED);
	for (i = 0; i < 3; i++) {
		nth(k, i);
		ASSERT_EQ(0, keymap_put(&m, k, i));
	}
	nth(k, 3);
	EXPECT_EQ(-ENOSPC, keymap_put(&m, k, 3));
	EXPECT_FALSE(keymap_get(&m, k, NULL));
	nth(k, 0);
	EXPECT_EQ(0, keymap_put(&m, k, 42));
	EXPECT_TRUE(keymap_get(&m, k, &v));
	EXPECT_EQ(42U, v);
	keymap_free(&m);
}

/* A growth that cannot allocate refuses the put and changes nothing. */
TEST(failed_growth_changes_nothing)
{
	struct keymap m;
	u64 cap, gen;
	u8 k[KLEN];
	u32 i;
	int err = 0;

	keymap_init(&m, KLEN, 4, 1000, SEED);
	nth(k, 0);
	ASSERT_EQ(0, keymap_put(&m, k, 0));
	cap = m.cap;
	gen = keymap_gen(&m);
	cuckoo_host_alloc_budget = 0;
	for (i = 1; i < 1000 && !err; i++) {
		nth(k, i);
		err = keymap_put(&m, k, i);
	}
	cuckoo_host_alloc_budget = -1;
	EXPECT_EQ(-ENOMEM, err);
	EXPECT_EQ(cap, m.cap);
	EXPECT_EQ(gen, keymap_gen(&m));
	EXPECT_EQ((u64)i - 1, keymap_count(&m));
	EXPECT_FALSE(keymap_get(&m, k, NULL));
	for (i = i - 1; i-- > 0;) {
		nth(k, i);
		ASSERT_TRUE(keymap_get(&m, k, NULL));
	}
	keymap_free(&m);
}


/* A growth past the memory bound is -EDQUOT; what is charged comes back. */
TEST(growth_past_the_memory_bound_is_edquot)
{
	const long long room = 1 << 30;
	struct keymap m;
	u8 k[KLEN];
	u64 cap;
	u32 i;
	int err = 0;

	cuckoo_host_mem_left = room;
	keymap_init(&m, KLEN, 4, 100000, SEED);
	for (i = 0; i < 1000; i++) {
		nth(k, i);
		ASSERT_EQ(0, keymap_put(&m, k, i));
	}
	EXPECT_EQ(room - (long long)(m.cap * m.stride), cuckoo_host_mem_left);
	cap = m.cap;
	cuckoo_host_mem_left = 0;
	for (; i < 100000 && !err; i++) {
		nth(k, i);
		err = keymap_put(&m, k, i);
	}
	EXPECT_EQ(-EDQUOT, err);
	EXPECT_EQ(cap, m.cap);
	EXPECT_FALSE(keymap_get(&m, k, NULL));
	cuckoo_host_mem_left = room - (long long)(m.cap * m.stride);
	keymap_free(&m);
	EXPECT_EQ(room, cuckoo_host_mem_left);
	cuckoo_host_mem_left = -1;
}

TEST_HARNESS_MAIN
