// SPDX-License-Identifier: GPL-2.0
/*
 * CFILTER_IOC_LIST in exact mode (the default): the stored set comes back
 * exactly, across calls with little room, in the UAPI key form; a listing
 * whose tables were laid out anew meanwhile (moves, growth) fails with
 * ESTALE, and one started over reports every key present throughout
 * exactly once, writers or not; argument checks and bad pointers. Compact
 * mode is in test_modes. Needs cfilter.ko loaded with default parameters;
 * every test starts from an empty filter.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <linux/cfilter.h>

#include "helpers.h"
#include "kselftest_harness.h"
#include "harness_timeout.h"

#define N	1000

/* Key @i of a mixed set: a third IPv6, the rest IPv4. */
static struct cfilter_key mixed_key(unsigned int i)
{
	return i % 3 == 0 ? nth_key6(i) : nth_key4(i);
}

static int key_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct cfilter_key));
}

/* Where a listing is: the cursor and generation LIST gave back. */
struct where {
	__u64	cursor;
	__u64	gen;
};

/* The keys of every source's holdings, a part per call. */
static int cf_list(int fd, struct cfilter_key *keys, __u32 max,
		   struct where *w, __u32 *count)
{
	struct cfilter_entry *e = calloc(max, sizeof(*e));
	struct cfilter_list l = {
		.entries = (uintptr_t)e, .max = max, .cursor = w->cursor,
		.gen = w->gen, .flags = CFILTER_F_ALL_SOURCES,
	};
	int err = e ? cf_ioctl(fd, CFILTER_IOC_LIST, &l) : ENOMEM;
	__u32 i;

	if (!err) {
		w->cursor = l.cursor;
		w->gen = l.gen;
		for (i = 0; i < l.count; i++)
			keys[i] = e[i].key;
	}
	*count = l.count;
	free(e);
	return err;
}

FIXTURE(list) {
	int fd;
	struct cfilter_key keys[N];
	struct cfilter_key got[N + 1];
};

FIXTURE_SETUP(list)
{
	unsigned int i;

	SETUP_OPEN_EMPTY(self->fd);
	for (i = 0; i < N; i++)
		self->keys[i] = mixed_key(i);
}

FIXTURE_TEARDOWN(list)
{
	teardown_close_empty(self->fd);
}

/* Adds the @n keys @keys in one batch: all of them new. */
static void add_keys(struct __test_metadata *_metadata, int fd,
		     const struct cfilter_key *keys, __u32 n)
{
	__s32 *results = calloc(n, sizeof(*results));
	struct cfilter_batch b;
	int err;

	ASSERT_NE(NULL, results);
	err = cf_batch(fd, CFILTER_BATCH_ADD, keys, results, n, &b);
	free(results);
	ASSERT_EQ(0, err);
	ASSERT_EQ(n, b.first_error);
}

/* Lists everything with @max keys per call; returns the number listed. */
static unsigned int list_all(struct __test_metadata *_metadata, int fd,
			     struct cfilter_key *got, unsigned int room,
			     __u32 max)
{
	unsigned int total = 0, calls = 0;
	struct where w = { 0 };
	__u32 count;

	do {
		EXPECT_EQ(0, cf_list(fd, got + total, max, &w, &count));
		EXPECT_GE(max, count);
		total += count;
		calls++;
	} while (count && total < room && calls <= room + 1);
	/* After the end, the end again. */
	EXPECT_EQ(0, cf_list(fd, got, max, &w, &count));
	EXPECT_EQ(0U, count);
	return total;
}

/*
 * Listing @max keys a call into @got (room for @n + 1) gives back exactly
 * the @n keys @want, byte for byte (unused fields zero), each once, in any
 * order. Sorts both.
 */
static void expect_listed(struct __test_metadata *_metadata, int fd,
			  struct cfilter_key *want, unsigned int n,
			  struct cfilter_key *got, __u32 max)
{
	ASSERT_EQ(n, list_all(_metadata, fd, got, n + 1, max));
	qsort(want, n, sizeof(*want), key_cmp);
	qsort(got, n, sizeof(*got), key_cmp);
	ASSERT_EQ(0, memcmp(want, got, n * sizeof(*got)));
}

TEST_F(list, empty_filter_lists_nothing)
{
	struct where w = { 0 };
	__u32 count = 99;

	EXPECT_EQ(0, cf_list(self->fd, self->got, N, &w, &count));
	EXPECT_EQ(0U, count);
}

/* Adds the set, lists it seven keys at a time, and compares. */
TEST_F(list, round_trip_with_small_max)
{
	add_keys(_metadata, self->fd, self->keys, N);
	expect_listed(_metadata, self->fd, self->keys, N, self->got, 7);
}

TEST_F(list, one_call_with_room_for_all)
{
	struct where w = { 0 };
	__u32 count;

	add_keys(_metadata, self->fd, self->keys, N);
	EXPECT_EQ(0, cf_list(self->fd, self->got, N + 1, &w, &count));
	EXPECT_EQ((__u32)N, count);
	EXPECT_EQ(0, cf_list(self->fd, self->got, N + 1, &w, &count));
	EXPECT_EQ(0U, count);
}

/* Deleted keys are not listed; the rest are. */
TEST_F(list, follows_deletes)
{
	struct cfilter_batch b;
	__s32 results[N];

	add_keys(_metadata, self->fd, self->keys, N);
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_DEL, self->keys, results,
			      N / 2, &b));
	expect_listed(_metadata, self->fd, self->keys + N / 2, N - N / 2,
		      self->got, 100);
}

/*
 * Growth between two calls moves every key of the grown table: the next
 * call says ESTALE, and a listing started over reports each key once.
 */
TEST_F(list, growth_between_calls_is_estale_then_exact)
{
	struct cfilter_info before, after;
	struct cfilter_key *more, *got;
	unsigned int i, total, grow_keys;
	struct where w = { 0 };
	__u32 count;

	/* More keys than all the slots: the IPv4 table must grow. */
	ASSERT_EQ(0, cf_info(self->fd, &before));
	grow_keys = before.capacity;
	more = calloc(grow_keys, sizeof(*more));
	got = calloc(N + grow_keys + 1, sizeof(*got));
	ASSERT_NE(NULL, more);
	ASSERT_NE(NULL, got);
	add_keys(_metadata, self->fd, self->keys, N);

	ASSERT_EQ(0, cf_list(self->fd, got, 100, &w, &count));
	ASSERT_EQ(100U, count);
	for (i = 0; i < grow_keys; i++) {
		more[i] = nth_key4(i);
		more[i].saddr[0] = 11;	/* not among self->keys */
	}
	add_keys(_metadata, self->fd, more, grow_keys);
	ASSERT_EQ(0, cf_info(self->fd, &after));
	ASSERT_LT(before.grows, after.grows) TH_LOG("no growth: test is void");
	EXPECT_EQ(ESTALE, cf_list(self->fd, got, 100, &w, &count));

	total = list_all(_metadata, self->fd, got, N + grow_keys + 1, 100);
	EXPECT_EQ(N + grow_keys, total);
	qsort(got, total, sizeof(*got), key_cmp);
	for (i = 1; i < total; i++)
		EXPECT_NE(0, key_cmp(&got[i - 1], &got[i])) TH_LOG("twice: %u", i);
	for (i = 0; i < N; i++)
		EXPECT_NE(NULL, bsearch(&self->keys[i], got, total,
					sizeof(*got), key_cmp))
			TH_LOG("key %u not listed", i);
	free(more);
	free(got);
}

/* A generation not the one the cursor belongs to is stale, exactly. */
TEST_F(list, foreign_generation_is_estale)
{
	struct where w = { 0 };
	__u32 count;

	add_keys(_metadata, self->fd, self->keys, N);
	ASSERT_EQ(0, cf_list(self->fd, self->got, 7, &w, &count));
	ASSERT_EQ(7U, count);
	w.gen ^= 1;
	EXPECT_EQ(ESTALE, cf_list(self->fd, self->got, 7, &w, &count));
	w.gen ^= 1;
	EXPECT_EQ(0, cf_list(self->fd, self->got, 7, &w, &count));
	/* A clear puts another set in place: stale too. */
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_CLEAR, NULL));
	EXPECT_EQ(ESTALE, cf_list(self->fd, self->got, 7, &w, &count));
}

/* More /24 prefixes than one step lists: the listing ends, with each. */
TEST_F(list, five_thousand_prefixes_list_to_the_end)
{
	struct cfilter_key *pfx, *got;
	unsigned int i;

	pfx = calloc(5000, sizeof(*pfx));
	got = calloc(5001, sizeof(*got));
	ASSERT_NE(NULL, pfx);
	ASSERT_NE(NULL, got);
	for (i = 0; i < 5000; i++) {
		pfx[i].type = CFILTER_KEY_SRC4;
		pfx[i].prefix_len = 24;
		pfx[i].saddr[0] = 10;
		pfx[i].saddr[1] = i >> 8;
		pfx[i].saddr[2] = i;
	}
	add_keys(_metadata, self->fd, pfx, 5000);
	expect_listed(_metadata, self->fd, pfx, 5000, got, 128);
	free(pfx);
	free(got);
}

/* Near the default table's 95%, so that churn kicks keys and grows it. */
#define STEADY	100000
#define CHURN	40000
#define STEP	64

/*
 * Once the parent's listing has begun, a child adds and deletes CHURN keys
 * as fast as it can, three times over (growing the tables), while the
 * parent lists STEP keys per call, starting over on ESTALE. Once the child
 * is done, a listing ends: every steady key exactly once. A churn key may
 * be listed twice: deleted after it was listed and added again into a slot
 * not yet listed, it was not present throughout, and no move or growth
 * (which restart the listing) took it there.
 */
TEST_F(list, concurrent_writers_each_steady_key_once)
{
	struct cfilter_key *steady, *churn, *got;
	unsigned int i, total = 0, restarts = 0, churn_twice = 0;
	struct where w = { 0 };
	struct cfilter_batch b;
	__s32 *results;
	__u32 count;
	pid_t child;
	int status, err, go[2];
	char c = 0;

	steady = calloc(STEADY, sizeof(*steady));
	churn = calloc(CHURN, sizeof(*churn));
	results = calloc(STEADY, sizeof(*results));	/* STEADY > CHURN */
	got = calloc(STEADY + CHURN + STEP, sizeof(*got));
	ASSERT_NE(NULL, steady);
	ASSERT_NE(NULL, churn);
	ASSERT_NE(NULL, results);
	ASSERT_NE(NULL, got);
	for (i = 0; i < STEADY; i++)
		steady[i] = nth_key4(i);
	for (i = 0; i < CHURN; i++) {
		churn[i] = nth_key4(i);
		churn[i].saddr[0] = 12;
	}
	add_keys(_metadata, self->fd, steady, STEADY);

	ASSERT_EQ(0, pipe(go));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		unsigned int round;

		if (read(go[0], &c, 1) != 1)
			_exit(1);
		for (round = 0; round < 3; round++) {
			for (i = 0; i < CHURN; i += 500)
				cf_batch(self->fd, CFILTER_BATCH_ADD, churn + i,
					 results, 500, &b);
			for (i = 0; i < CHURN; i += 500)
				cf_batch(self->fd, CFILTER_BATCH_DEL, churn + i,
					 results, 500, &b);
		}
		_exit(0);
	}
	ASSERT_EQ(0, cf_list(self->fd, got, STEP, &w, &count));
	total = count;
	ASSERT_EQ(1, write(go[1], &c, 1));
	for (;;) {
		err = cf_list(self->fd, got + total, STEP, &w, &count);
		if (err == ESTALE) {
			memset(&w, 0, sizeof(w));
			total = 0;
			restarts++;
			ASSERT_GT(100000U, restarts);
			continue;
		}
		ASSERT_EQ(0, err);
		if (!count) {
			/* Ended while the child still wrote: list again. */
			if (waitpid(child, &status, WNOHANG) == 0) {
				memset(&w, 0, sizeof(w));
				total = 0;
				continue;
			}
			break;
		}
		total += count;
		ASSERT_GE((unsigned int)(STEADY + CHURN), total);
	}
	waitpid(child, &status, 0);
	close(go[0]);
	close(go[1]);
	TH_LOG("%u restarts", restarts);

	qsort(got, total, sizeof(*got), key_cmp);
	for (i = 1; i < total; i++) {
		if (key_cmp(&got[i - 1], &got[i]))
			continue;
		if (got[i].saddr[0] == 12)
			churn_twice++;
		else
			EXPECT_NE(0, key_cmp(&got[i - 1], &got[i]))
				TH_LOG("steady key twice: %u", i);
	}
	TH_LOG("%u churn keys listed twice", churn_twice);
	for (i = 0; i < STEADY; i++)
		EXPECT_NE(NULL, bsearch(&steady[i], got, total, sizeof(*got),
					key_cmp))
			TH_LOG("steady key %u not listed", i);
	free(steady);
	free(churn);
	free(results);
	free(got);
}

TEST_F(list, bad_arguments_are_einval)
{
	struct cfilter_list l;
	int i;

	for (i = 0; i < 5; i++) {
		memset(&l, 0, sizeof(l));
		l.entries = (uintptr_t)self->got;
		l.max = N / 2;
		switch (i) {
		case 0: l.max = 0; break;
		case 1: l.flags = 1; break;
		case 2: l.pad = 1; break;
		case 3: l.reserved = 1; break;
		case 4: l.cursor = ~0ULL; break;	/* no such key type */
		}
		EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_LIST, &l))
			TH_LOG("case %d", i);
	}
}

TEST_F(list, bad_pointers_are_efault)
{
	struct cfilter_key_req req = { .key = self->keys[1] };
	struct cfilter_list l = { .max = N };

	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req));
	EXPECT_EQ(EFAULT, cf_ioctl(self->fd, CFILTER_IOC_LIST, NULL));
	EXPECT_EQ(EFAULT, cf_ioctl(self->fd, CFILTER_IOC_LIST, &l));
	l.entries = 1;
	EXPECT_EQ(EFAULT, cf_ioctl(self->fd, CFILTER_IOC_LIST, &l));
}

TEST_HARNESS_MAIN
