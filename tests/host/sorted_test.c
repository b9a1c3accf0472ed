// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the writer's sorted index (core/sorted.c): inserts,
 * deletes and walks against a sorted array model, in random and in sorted
 * order; the chunks' invariants after every step; the fill of a sorted
 * feed; and an allocation refused by the memory bound, which changes
 * nothing.
 */
#include "sorted.c"

#include <stdio.h>
#include <stdlib.h>

#include "kselftest_harness.h"

#define KLEN	5
#define NKEYS	4000

static u64 rng = 0x9e3779b97f4a7c15ULL;

static u64 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Key @i of a space small enough that random inserts collide. */
static void nth(u8 *key, u32 i)
{
	memset(key, 0, KLEN);
	key[0] = i >> 16;
	key[1] = i >> 8;
	key[4] = i;
}

static int key_cmp(const void *a, const void *b)
{
	return memcmp(a, b, KLEN);
}

/* The model: which of the NKEYS keys are in. */
static bool in[NKEYS];

/*
 * Every chunk holds 1..SORTED_CHUNK keys in strictly increasing order,
 * across chunks too, and the walk from the start gives exactly the keys
 * the model holds, in order.
 */
static bool consistent(const struct sorted *o)
{
	static u8 want[NKEYS][KLEN];
	struct sorted_pos pos;
	u8 zero[KLEN] = { 0 };
	const u8 *key, *prev = NULL;
	u32 c, n = 0, i;
	u64 total = 0;

	for (i = 0; i < NKEYS; i++)
		if (in[i])
			nth(want[n++], i);
	qsort(want, n, KLEN, key_cmp);
	for (c = 0; c < o->nchunks; c++) {
		if (!o->chunk[c].n || o->chunk[c].n > SORTED_CHUNK)
			return false;
		total += o->chunk[c].n;
	}
	if (total != n || o->count != n)
		return false;
	i = 0;
	for (key = sorted_seek(o, zero, &pos); key;
	     key = sorted_next(o, &pos), i++) {
		if (i >= n || memcmp(key, want[i], KLEN) ||
		    (prev && memcmp(prev, key, KLEN) >= 0))
			return false;
		prev = key;
	}
	return i == n;
}

/*
 * Starts @o and the model empty, then inserts every @step-th key below @n.
 * Returns 0, or the first insert's error.
 */
static int fill(struct sorted *o, u32 step, u32 n)
{
	u8 key[KLEN];
	u32 i;
	int err;

	memset(in, 0, sizeof(in));
	sorted_init(o, KLEN);
	for (i = 0; i < n; i += step) {
		nth(key, i);
		err = sorted_insert(o, key);
		if (err)
			return err;
		in[i] = true;
	}
	return 0;
}

TEST(empty_set_walks_nothing)
{
	struct sorted o;
	struct sorted_pos pos;
	u8 key[KLEN];

	sorted_init(&o, KLEN);
	nth(key, 1);
	EXPECT_EQ(NULL, sorted_seek(&o, key, &pos));
	EXPECT_FALSE(sorted_delete(&o, key));
	EXPECT_EQ(0ULL, sorted_bytes(&o));
	sorted_free(&o);
}

TEST(random_inserts_and_deletes_match_the_model)
{
	struct sorted o;
	u8 key[KLEN];
	u32 step, i;

	memset(in, 0, sizeof(in));
	sorted_init(&o, KLEN);
	for (step = 0; step < 60000; step++) {
		i = rnd() % NKEYS;
		nth(key, i);
		if (rnd() % 3) {
			ASSERT_EQ(in[i] ? -EEXIST : 0, sorted_insert(&o, key));
			in[i] = true;
		} else {
			ASSERT_EQ(in[i], sorted_delete(&o, key));
			in[i] = false;
		}
		if (!(step % 997))
			ASSERT_TRUE(consistent(&o)) TH_LOG("step %u", step);
	}
	ASSERT_TRUE(consistent(&o));
	for (i = 0; i < NKEYS; i++) {
		nth(key, i);
		ASSERT_EQ(in[i], sorted_delete(&o, key));
		in[i] = false;
	}
	ASSERT_TRUE(consistent(&o));
	EXPECT_EQ(0U, o.nchunks);
	sorted_free(&o);
}

/* A walk from any key gives the next keys of the model, in order. */
TEST(seek_finds_the_first_key_not_below)
{
	struct sorted o;
	struct sorted_pos pos;
	u8 key[KLEN], want[KLEN];
	const u8 *got;
	u32 i, j, k;

	ASSERT_EQ(0, fill(&o, 3, NKEYS));
	for (i = 0; i < NKEYS; i++) {
		nth(key, i);
		got = sorted_seek(&o, key, &pos);
		for (j = i, k = 0; j < NKEYS && k < 3; j++) {
			if (!in[j])
				continue;
			nth(want, j);
			ASSERT_NE(NULL, got) TH_LOG("seek %u: ended early", i);
			ASSERT_EQ(0, memcmp(got, want, KLEN)) TH_LOG("seek %u", i);
			got = sorted_next(&o, &pos);
			k++;
		}
		if (j == NKEYS)
			ASSERT_EQ(NULL, got);
	}
	sorted_free(&o);
}

/* Keys added in order fill whole chunks: a sorted feed wastes no room. */
TEST(sorted_inserts_fill_chunks)
{
	struct sorted o;

	ASSERT_EQ(0, fill(&o, 1, NKEYS));
	ASSERT_TRUE(consistent(&o));
	EXPECT_EQ((u32)(NKEYS + SORTED_CHUNK - 1) / SORTED_CHUNK, o.nchunks);
	sorted_free(&o);
}

/* Deletes merge small chunks: what is left never takes a chunk per key. */
TEST(deletes_merge_small_chunks)
{
	struct sorted o;
	u8 key[KLEN];
	u32 i;

	ASSERT_EQ(0, fill(&o, 1, NKEYS));
	/* keep one key in eight: 500 keys */
	for (i = 0; i < NKEYS; i++) {
		if (!(i % 8))
			continue;
		nth(key, i);
		ASSERT_TRUE(sorted_delete(&o, key));
		in[i] = false;
	}
	ASSERT_TRUE(consistent(&o));
	EXPECT_GE((u32)NKEYS / 8 / (SORTED_CHUNK / 4) + 1, o.nchunks);
	sorted_free(&o);
}

/* A split refused by the memory bound leaves the set as it was. */
TEST(refused_allocation_changes_nothing)
{
	struct sorted o;
	u8 key[KLEN];

	ASSERT_EQ(0, fill(&o, 2, 2 * SORTED_CHUNK));
	cuckoo_host_mem_left = 0;
	nth(key, 1);
	EXPECT_EQ(-EDQUOT, sorted_insert(&o, key));
	cuckoo_host_mem_left = -1;
	ASSERT_TRUE(consistent(&o));
	EXPECT_EQ(0, sorted_insert(&o, key));
	in[1] = true;
	ASSERT_TRUE(consistent(&o));
	sorted_free(&o);
}

TEST_HARNESS_MAIN
