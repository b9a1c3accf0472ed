// SPDX-License-Identifier: GPL-2.0
/*
 * The two filter modes and growth, each test on cfilter.ko reloaded with its
 * own parameters (and reloaded with defaults afterwards):
 * - exact mode gives no false positives, even with 8-bit fingerprints,
 *   where compact mode gives many;
 * - exact mode grows from a tiny table to 100,000 keys, losing none;
 * - compact mode stores no keys, so LIST is refused, but BATCH works.
 * Tests skip when the module cannot be reloaded (an XDP program attached or
 * /dev/cfilter open).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/cfilter.h>

#include "reload.h"
#include "kselftest_harness.h"

#define FP_ADDED	50000
#define FP_PROBED	200000
#define GROW_KEYS	100000

FIXTURE(reload) {
	int fd;
	struct cfilter_key *keys;
	__s32 *results;
};

FIXTURE_SETUP(reload)
{
	int refs;

	self->fd = -1;
	self->keys = calloc(FP_ADDED + FP_PROBED, sizeof(*self->keys));
	self->results = calloc(FP_ADDED + FP_PROBED, sizeof(*self->results));
	ASSERT_NE(NULL, self->keys);
	ASSERT_NE(NULL, self->results);
	if (access(module_file(), R_OK))
		SKIP(return, "%s not readable: set CFILTER_KO", module_file());
	refs = module_wait_unused();
	if (refs > 0)
		SKIP(return, "cfilter.ko has %d users (XDP program attached or /dev/cfilter open): cannot reload it",
		     refs);
	if (refs == 0)
		ASSERT_EQ(0, module_unload());
}

FIXTURE_TEARDOWN(reload)
{
	int err;

	free(self->keys);
	free(self->results);
	if (self->fd >= 0)
		close(self->fd);
	if (_metadata->skip)
		return;
	if (module_refcnt() >= 0)
		EXPECT_EQ(0, module_unload());
	err = module_load("");
	EXPECT_EQ(0, err) TH_LOG("reloading %s with defaults: %s",
				 module_file(), strerror(err));
}

/* Loads the module with @params and opens the device; 0 or an errno. */
static int load(int *fd, const char *params)
{
	int err = module_load(params);

	if (err)
		return err;
	*fd = open(CFILTER_DEVICE, O_RDWR);
	return *fd < 0 ? errno : 0;
}

/*
 * @n distinct random SRC4 keys: x -> a * x + c (mod 2^32) with a = 1 mod 4
 * and c odd visits every 32-bit value once per period, so no two of the
 * first @n are equal; the random start makes each run use other addresses.
 */
static void random_keys4(struct cfilter_key *keys, unsigned int n)
{
	__u32 x = (__u32)time(NULL) * 2654435761U ^ (__u32)getpid();
	unsigned int i;

	for (i = 0; i < n; i++) {
		x = x * 1664525U + 1013904223U;
		memset(&keys[i], 0, sizeof(keys[i]));
		keys[i].type = CFILTER_KEY_SRC4;
		keys[i].prefix_len = 32;
		memcpy(keys[i].saddr, &x, sizeof(x));
	}
}

/*
 * Adds FP_ADDED random keys, then tests FP_PROBED other ones; returns how
 * many of those the filter calls present (false positives).
 */
static unsigned int false_positives(struct __test_metadata *_metadata,
				    int fd, struct cfilter_key *keys,
				    __s32 *results)
{
	struct cfilter_batch b;
	unsigned int i, hits = 0;

	random_keys4(keys, FP_ADDED + FP_PROBED);
	EXPECT_EQ(0, cf_batch(fd, CFILTER_BATCH_ADD, keys, results, FP_ADDED, &b));
	EXPECT_EQ((__u32)FP_ADDED, b.done);
	/* Compact mode: EEXIST for a key sharing a stored fingerprint. */
	for (i = 0; i < FP_ADDED; i++)
		EXPECT_TRUE(!results[i] || results[i] == -EEXIST);
	EXPECT_EQ(0, cf_batch(fd, CFILTER_BATCH_TEST, keys + FP_ADDED, results,
			      FP_PROBED, &b));
	EXPECT_EQ((__u32)FP_PROBED, b.done);
	for (i = 0; i < FP_PROBED; i++) {
		EXPECT_TRUE(!results[i] || results[i] == -ENOENT);
		hits += !results[i];
	}
	return hits;
}

/*
 * With 8-bit fingerprints, fingerprint matches are frequent; exact mode
 * confirms each against the stored key, so none becomes a false positive.
 */
TEST_F(reload, exact_mode_has_no_false_positives)
{
	unsigned int hits;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, load(&self->fd, "fp_bits=8"));
	hits = false_positives(_metadata, self->fd, self->keys, self->results);
	EXPECT_EQ(0U, hits);
	TH_LOG("exact mode, fp_bits=8: %u false positives in %u lookups",
		       hits, FP_PROBED);
}

/*
 * The same probe in compact mode does find false positives, within the
 * documented bound of 2 * 4 / 2^8 per lookup: the probe above has teeth.
 */
TEST_F(reload, compact_mode_false_positives_within_bound)
{
	unsigned int hits;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, load(&self->fd, "mode=compact fp_bits=8"));
	hits = false_positives(_metadata, self->fd, self->keys, self->results);
	EXPECT_LT(0U, hits);
	EXPECT_GE(FP_PROBED * 8U / 256, hits);
	TH_LOG("compact mode, fp_bits=8: %u false positives in %u lookups (bound %u)",
		       hits, FP_PROBED, FP_PROBED * 8U / 256);
}

/* From a table for 64 keys to 100,000 keys: doublings, nothing lost. */
TEST_F(reload, exact_mode_grows_and_keeps_every_key)
{
	struct cfilter_info info;
	struct cfilter_batch b;
	unsigned int i;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, load(&self->fd, "capacity=64"));
	for (i = 0; i < GROW_KEYS; i++)
		self->keys[i] = nth_key4(i);
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, self->keys,
			      self->results, GROW_KEYS, &b));
	EXPECT_EQ((__u32)GROW_KEYS, b.done);
	EXPECT_EQ((__u32)GROW_KEYS, b.first_error)
		TH_LOG("key %u: %s", b.first_error,
		       strerror(-self->results[b.first_error]));

	ASSERT_EQ(0, cf_info(self->fd, &info));
	EXPECT_EQ((__u64)GROW_KEYS, info.count);
	EXPECT_LT(0ULL, info.grows);
	EXPECT_EQ(0ULL, info.insert_failures);
	EXPECT_LE(GROW_KEYS * 100ULL, info.capacity * 95);
	TH_LOG("64 -> %u keys: %llu grows, %llu slots, %llu bytes",
		       GROW_KEYS, (unsigned long long)info.grows,
		       (unsigned long long)info.capacity,
		       (unsigned long long)info.memory_bytes);

	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_TEST, self->keys,
			      self->results, GROW_KEYS, &b));
	EXPECT_EQ((__u32)GROW_KEYS, b.first_error)
		TH_LOG("key %u lost after growing", b.first_error);
}

TEST_F(reload, compact_mode_list_is_eopnotsupp)
{
	struct cfilter_key key = nth_key4(1), out[4];
	struct cfilter_list l = { .keys = (uintptr_t)out, .max = 4 };
	struct cfilter_info info;
	struct cfilter_batch b;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, load(&self->fd, "mode=compact"));
	ASSERT_EQ(0, cf_info(self->fd, &info));
	EXPECT_EQ((__u32)CFILTER_MODE_COMPACT, info.mode);
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, &key, self->results,
			      1, &b));
	EXPECT_EQ(0, self->results[0]);
	EXPECT_EQ(EOPNOTSUPP, cf_ioctl(self->fd, CFILTER_IOC_LIST, &l));
	/* Batch and single-key ioctls work as in exact mode. */
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_TEST, &key, self->results,
			      1, &b));
	EXPECT_EQ(0, self->results[0]);
}

TEST_HARNESS_MAIN
