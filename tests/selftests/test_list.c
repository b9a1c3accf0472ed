// SPDX-License-Identifier: GPL-2.0
/*
 * CFILTER_IOC_LIST in exact mode (the default): the stored set comes back
 * exactly, across calls with little room, in the UAPI key form; argument
 * checks and bad pointers. Compact mode's EOPNOTSUPP is in test_modes.
 * Needs cfilter.ko loaded with default parameters; every test starts from
 * an empty filter.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/cfilter.h>

#include "reload.h"
#include "kselftest_harness.h"

#define N	1000

/* Key @i of a mixed set: a third IPv6, the rest IPv4. */
static struct cfilter_key mixed_key(unsigned int i)
{
	struct cfilter_key key = nth_key4(i);

	if (i % 3 == 0) {
		memset(&key, 0, sizeof(key));
		key.type = CFILTER_KEY_SRC6;
		key.prefix_len = 128;
		key.saddr[0] = 0x20;
		key.saddr[1] = 0x01;
		key.saddr[2] = 0x0d;
		key.saddr[3] = 0xb8;
		memcpy(key.saddr + 12, &i, sizeof(i));
	}
	return key;
}

static int key_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct cfilter_key));
}

static int cf_list(int fd, struct cfilter_key *keys, __u32 max,
		   __u64 *cursor, __u32 *count)
{
	struct cfilter_list l = {
		.keys = (uintptr_t)keys, .max = max, .cursor = *cursor,
	};
	int err = cf_ioctl(fd, CFILTER_IOC_LIST, &l);

	*cursor = l.cursor;
	*count = l.count;
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

	self->fd = open(CFILTER_DEVICE, O_RDWR);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s (is cfilter.ko loaded?)",
				      CFILTER_DEVICE, strerror(errno));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_CLEAR, NULL));
	for (i = 0; i < N; i++)
		self->keys[i] = mixed_key(i);
}

FIXTURE_TEARDOWN(list)
{
	if (self->fd >= 0) {
		ioctl(self->fd, CFILTER_IOC_CLEAR);
		close(self->fd);
	}
}

/* Lists everything with @max keys per call; returns the number listed. */
static unsigned int list_all(struct __test_metadata *_metadata, int fd,
			     struct cfilter_key *got, unsigned int room,
			     __u32 max)
{
	unsigned int total = 0, calls = 0;
	__u64 cursor = 0;
	__u32 count;

	do {
		EXPECT_EQ(0, cf_list(fd, got + total, max, &cursor, &count));
		EXPECT_GE(max, count);
		total += count;
		calls++;
	} while (count && total < room && calls <= room + 1);
	/* After the end, the end again. */
	EXPECT_EQ(0, cf_list(fd, got, max, &cursor, &count));
	EXPECT_EQ(0U, count);
	return total;
}

TEST_F(list, empty_filter_lists_nothing)
{
	__u64 cursor = 0;
	__u32 count = 99;

	EXPECT_EQ(0, cf_list(self->fd, self->got, N, &cursor, &count));
	EXPECT_EQ(0U, count);
}

/* Adds the set, lists it seven keys at a time, and compares. */
TEST_F(list, round_trip_with_small_max)
{
	struct cfilter_batch b;
	__s32 results[N];
	unsigned int got;

	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, self->keys, results,
			      N, &b));
	ASSERT_EQ((__u32)N, b.first_error);
	got = list_all(_metadata, self->fd, self->got, N + 1, 7);
	ASSERT_EQ((unsigned int)N, got);
	qsort(self->keys, N, sizeof(self->keys[0]), key_cmp);
	qsort(self->got, N, sizeof(self->got[0]), key_cmp);
	/* Byte for byte: same keys, unused fields zero, no duplicates. */
	ASSERT_EQ(0, memcmp(self->keys, self->got, sizeof(self->keys)));
}

TEST_F(list, one_call_with_room_for_all)
{
	struct cfilter_batch b;
	__s32 results[N];
	__u64 cursor = 0;
	__u32 count;

	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, self->keys, results,
			      N, &b));
	EXPECT_EQ(0, cf_list(self->fd, self->got, N + 1, &cursor, &count));
	EXPECT_EQ((__u32)N, count);
	EXPECT_EQ(0, cf_list(self->fd, self->got, N + 1, &cursor, &count));
	EXPECT_EQ(0U, count);
}

/* Deleted keys are not listed; the rest are. */
TEST_F(list, follows_deletes)
{
	struct cfilter_batch b;
	__s32 results[N];
	unsigned int got;

	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, self->keys, results,
			      N, &b));
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_DEL, self->keys, results,
			      N / 2, &b));
	got = list_all(_metadata, self->fd, self->got, N + 1, 100);
	ASSERT_EQ((unsigned int)(N - N / 2), got);
	qsort(self->keys + N / 2, N - N / 2, sizeof(self->keys[0]), key_cmp);
	qsort(self->got, got, sizeof(self->got[0]), key_cmp);
	ASSERT_EQ(0, memcmp(self->keys + N / 2, self->got,
			    got * sizeof(self->got[0])));
}

/*
 * Growth between two calls moves every key of the grown table: the listing
 * must still report each key that was present throughout (at least once).
 */
TEST_F(list, growth_between_calls_loses_no_key)
{
	unsigned int i, j, total = 0, grow_keys;
	struct cfilter_key *more, *got;
	struct cfilter_info before, after;
	struct cfilter_batch b;
	__s32 *results;
	__u64 cursor = 0;
	__u32 count;

	/* More keys than all the slots: the IPv4 table must grow. */
	ASSERT_EQ(0, cf_info(self->fd, &before));
	grow_keys = before.capacity;
	more = calloc(grow_keys, sizeof(*more));
	results = calloc(grow_keys, sizeof(*results));
	/* Room for everything, plus the first call's keys listed again. */
	got = calloc(N + grow_keys + 100, sizeof(*got));
	ASSERT_NE(NULL, more);
	ASSERT_NE(NULL, results);
	ASSERT_NE(NULL, got);
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, self->keys, results,
			      N, &b));

	/* Part of the IPv4 keys, then enough IPv4 keys to grow its table. */
	ASSERT_EQ(0, cf_list(self->fd, got, 100, &cursor, &count));
	ASSERT_EQ(100U, count);
	total = count;
	for (i = 0; i < grow_keys; i++) {
		more[i] = nth_key4(i);
		more[i].saddr[0] = 11;	/* not among self->keys */
	}
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, more, results,
			      grow_keys, &b));
	ASSERT_EQ(grow_keys, b.first_error);
	ASSERT_EQ(0, cf_info(self->fd, &after));
	ASSERT_LT(before.grows, after.grows) TH_LOG("no growth: test is void");

	do {
		ASSERT_EQ(0, cf_list(self->fd, got + total,
				     N + grow_keys + 100 - total, &cursor,
				     &count));
		total += count;
	} while (count && total < N + grow_keys + 100);
	EXPECT_LE(N + grow_keys, total);

	qsort(got, total, sizeof(*got), key_cmp);
	for (i = 0; i < N; i++) {
		j = bsearch(&self->keys[i], got, total, sizeof(*got), key_cmp) !=
		    NULL;
		EXPECT_EQ(1U, j) TH_LOG("key %u not listed", i);
	}
	free(more);
	free(results);
	free(got);
}

TEST_F(list, bad_arguments_are_einval)
{
	struct cfilter_list l;
	int i;

	for (i = 0; i < 6; i++) {
		memset(&l, 0, sizeof(l));
		l.keys = (uintptr_t)self->got;
		l.max = N;
		switch (i) {
		case 0: l.max = 0; break;
		case 1: l.flags = 1; break;
		case 2: l.pad = 1; break;
		case 3: l.reserved[0] = 1; break;
		case 4: l.reserved[1] = 1; break;
		case 5: l.cursor = ~0ULL; break;	/* no such key type */
		}
		EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_LIST, &l))
			TH_LOG("case %d", i);
	}
}

TEST_F(list, bad_pointers_are_efault)
{
	struct cfilter_key_req req = { .key = self->keys[1] };
	__u64 cursor = 0;
	__u32 count;

	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req));
	EXPECT_EQ(EFAULT, cf_ioctl(self->fd, CFILTER_IOC_LIST, NULL));
	EXPECT_EQ(EFAULT, cf_list(self->fd, NULL, N, &cursor, &count));
	EXPECT_EQ(EFAULT, cf_list(self->fd, (struct cfilter_key *)1, N,
				  &cursor, &count));
}

TEST_HARNESS_MAIN
