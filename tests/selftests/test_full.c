// SPDX-License-Identifier: GPL-2.0
/*
 * A full filter and the module parameters. Each test reloads cfilter.ko
 * with a tiny bound (so filling it takes a hundred adds, not a million), in
 * exact mode (max_capacity= stops the growth) and in compact mode (which
 * never grows), and reloads it with default parameters afterwards.
 * Reloading is only possible when nothing holds the module (no XDP program
 * using the kfunc, no open /dev/cfilter); otherwise the tests skip.
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

#include "helpers.h"
#include "kselftest_harness.h"
#include "harness_timeout.h"

#define SMALL_CAPACITY	64
/* Key types, each with its own table: every type but CFILTER_KEY_NONE. */
#define KEY_TYPES	(__CFILTER_KEY_MAX - 1)
/* Enough attempts to fill any table sized for SMALL_CAPACITY keys. */
#define MAX_ADDS	(16 * SMALL_CAPACITY)

static int cf_add(int fd, struct cfilter_key key)
{
	struct cfilter_key_req req = { .key = key };

	return cf_ioctl(fd, CFILTER_IOC_ADD, &req);
}

static int cf_key_ioctl(int fd, unsigned long cmd, struct cfilter_key key)
{
	struct cfilter_key_req req = { .key = key };

	return cf_ioctl(fd, cmd, &req);
}

FIXTURE(small) {
	int fd;
	/* What fill() left: the keys stored, the index of the one refused. */
	unsigned long long stored;
	unsigned int failed;
};

/*
 * Adds keys 0, 1, ... until ADD fails, which must be with ENOSPC. Records
 * the index of the key that failed, and the number of keys actually stored
 * (in compact mode, an EEXIST for a key indistinguishable from an earlier
 * one stores nothing). False, filling nothing, when the test is skipped.
 */
static bool fill(struct __test_metadata *_metadata, FIXTURE_DATA(small) *self)
{
	unsigned int i;
	int err = 0;

	if (_metadata->skip)
		return false;
	self->stored = 0;
	for (i = 0; i < MAX_ADDS; i++) {
		err = cf_add(self->fd, nth_key4(i));
		if (err == EEXIST)
			continue;
		if (err)
			break;
		self->stored++;
	}
	self->failed = i;
	EXPECT_EQ(ENOSPC, err) TH_LOG("after %u adds (%llu stored): %s",
				      i, self->stored, strerror(err));
	return err == ENOSPC;
}

FIXTURE_VARIANT(small) {
	const char *params;
	__u32 mode;
};

/* Growth stops at max_capacity=. */
FIXTURE_VARIANT_ADD(small, exact) {
	.params = "capacity=64 max_capacity=64",
	.mode = CFILTER_MODE_EXACT,
};

/* No growth at all. */
FIXTURE_VARIANT_ADD(small, compact) {
	.params = "mode=compact capacity=64",
	.mode = CFILTER_MODE_COMPACT,
};

/*
 * A SKIP() here still runs the test body on this harness version: bodies
 * start with "if (_metadata->skip) return;".
 */
FIXTURE_SETUP(small)
{
	int err;

	self->fd = -1;
	RELOAD_SETUP_UNLOAD();
	err = module_load(variant->params);
	ASSERT_EQ(0, err) TH_LOG("insmod %s %s: %s", module_file(),
				 variant->params, strerror(err));
	self->fd = open(CFILTER_DEVICE, O_RDWR);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", CFILTER_DEVICE,
				      strerror(errno));
}

/* Leave the module loaded with default parameters for the next test. */
FIXTURE_TEARDOWN(small)
{
	if (self->fd >= 0)
		close(self->fd);
	RELOAD_TEARDOWN_DEFAULTS();
}

TEST_F(small, geometry_follows_capacity_param)
{
	struct cfilter_info info;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, cf_info(self->fd, &info));
	EXPECT_EQ(0ULL, info.count);
	EXPECT_EQ(variant->mode, info.mode);
	EXPECT_EQ((__u64)SMALL_CAPACITY, info.max_capacity);
	EXPECT_EQ(0ULL, info.grows);
	EXPECT_EQ(info.buckets * 4, info.capacity);
	/*
	 * One table per key type, each sized so that capacity= keys fit at no
	 * more than 95% load, and no larger than the next power of two needs.
	 */
	EXPECT_LE(KEY_TYPES * SMALL_CAPACITY * 100ULL, info.capacity * 95);
	EXPECT_GE(KEY_TYPES * 4ULL * SMALL_CAPACITY, info.capacity);
}

/*
 * ENOSPC when full, having stored at least capacity= keys, losing none, and
 * counted in insert_failures. Deleting a key makes room for it again.
 */
TEST_F(small, full_filter_is_enospc_and_keeps_every_key)
{
	struct cfilter_info info;
	unsigned int i;

	if (!fill(_metadata, self))
		return;
	EXPECT_LE((unsigned long long)SMALL_CAPACITY, self->stored);
	if (variant->mode == CFILTER_MODE_EXACT)
		EXPECT_EQ(self->failed, self->stored)
			TH_LOG("exact mode: EEXIST for a new key");

	ASSERT_EQ(0, cf_info(self->fd, &info));
	EXPECT_EQ(self->stored, info.count);
	EXPECT_EQ(1ULL, info.insert_failures);
	EXPECT_EQ(0ULL, info.grows);
	EXPECT_GE(info.capacity, info.count);
	EXPECT_EQ(info.count * 1000000 / info.capacity, info.load_ppm);

	for (i = 0; i < self->failed; i++)
		ASSERT_EQ(0, cf_key_ioctl(self->fd, CFILTER_IOC_TEST, nth_key4(i)))
			TH_LOG("key %u of %u lost after ENOSPC", i, self->failed);
	/* Still full, still nothing lost. */
	EXPECT_EQ(ENOSPC, cf_add(self->fd, nth_key4(self->failed)));
	ASSERT_EQ(0, cf_info(self->fd, &info));
	EXPECT_EQ(self->stored, info.count);
	EXPECT_EQ(2ULL, info.insert_failures);

	ASSERT_EQ(0, cf_key_ioctl(self->fd, CFILTER_IOC_DEL, nth_key4(0)));
	ASSERT_EQ(0, cf_add(self->fd, nth_key4(0)));
	ASSERT_EQ(0, cf_info(self->fd, &info));
	EXPECT_EQ(self->stored, info.count);
}

/* The other family's table is separate: a full IPv4 table takes IPv6 keys. */
TEST_F(small, full_ipv4_table_still_takes_ipv6)
{
	struct cfilter_key v6 = { .type = CFILTER_KEY_SRC6, .prefix_len = 128,
				  .saddr = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 } };

	if (!fill(_metadata, self))
		return;
	EXPECT_EQ(0, cf_add(self->fd, v6));
	EXPECT_EQ(0, cf_key_ioctl(self->fd, CFILTER_IOC_TEST, v6));
}

TEST_F(small, clear_empties_full_filter_and_resets_failures)
{
	struct cfilter_info info;
	unsigned int i;

	if (!fill(_metadata, self))
		return;
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_CLEAR, NULL));
	ASSERT_EQ(0, cf_info(self->fd, &info));
	EXPECT_EQ(0ULL, info.count);
	EXPECT_EQ(0ULL, info.insert_failures);
	EXPECT_EQ(0U, info.load_ppm);
	for (i = 0; i < self->failed; i++)
		ASSERT_EQ(ENOENT, cf_key_ioctl(self->fd, CFILTER_IOC_TEST,
					       nth_key4(i)));
	EXPECT_EQ(0, cf_add(self->fd, nth_key4(self->failed)));
}

/*
 * Reads the kernel log from @fd (opened on /dev/kmsg and moved to its end
 * before the event) and tells whether a cfilter line contains @text.
 */
static int kmsg_has(int fd, const char *text)
{
	char rec[1024];
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten records */
			continue;
		if (n <= 0)
			return 0;
		rec[n] = '\0';
		if (strstr(rec, "cfilter: ") && strstr(rec, text))
			return 1;
	}
}

/* insmod refuses each; the kernel log names the parameter. */
static const struct {
	const char *params;
	const char *log;
} bad_params[] = {
	{ "fp_bits=7", "fp_bits=7 is invalid" },
	{ "fp_bits=0", "fp_bits=0 is invalid" },
	{ "fp_bits=64", "fp_bits=64 is invalid" },
	{ "capacity=0", "capacity=0 is out of range" },
	{ "capacity=18446744073709551615",
	  "capacity=18446744073709551615 is out of range" },
	{ "mode=bogus", "mode=bogus is invalid" },
	{ "mode=", "mode= is invalid" },
	{ "capacity=1000 max_capacity=999", "max_capacity=999 is out of range" },
	{ "max_capacity=18446744073709551615",
	  "max_capacity=18446744073709551615 is out of range" },
	{ "mode=compact capacity=1000 max_capacity=2000",
	  "max_capacity=2000 is invalid in compact mode" },
};

/* insmod accepts each, and INFO shows the result. */
static const struct {
	const char *params;
	unsigned int fp_bits;
	__u32 mode;
	unsigned long long max_capacity;
} good_params[] = {
	{ "fp_bits=8", 8, CFILTER_MODE_EXACT, 16ULL << 20 },
	{ "fp_bits=12", 12, CFILTER_MODE_EXACT, 16ULL << 20 },
	{ "fp_bits=32 capacity=1000", 32, CFILTER_MODE_EXACT, 16ULL << 20 },
	{ "mode=exact capacity=1000 max_capacity=1000", 16,
	  CFILTER_MODE_EXACT, 1000 },
	{ "mode=compact fp_bits=8 capacity=1000", 8, CFILTER_MODE_COMPACT, 1000 },
	{ "mode=compact capacity=1000 max_capacity=1000", 16,
	  CFILTER_MODE_COMPACT, 1000 },
};

FIXTURE(params) {
	int unused;
};

FIXTURE_SETUP(params)
{
	RELOAD_SETUP_UNLOAD();
}

FIXTURE_TEARDOWN(params)
{
	RELOAD_TEARDOWN_DEFAULTS();
}

TEST_F(params, are_validated_at_load)
{
	struct cfilter_info info;
	int err, fd, kmsg;
	size_t i;

	if (_metadata->skip)
		return;

	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, kmsg) TH_LOG("open /dev/kmsg: %s", strerror(errno));
	for (i = 0; i < sizeof(bad_params) / sizeof(bad_params[0]); i++) {
		lseek(kmsg, 0, SEEK_END);
		err = module_load(bad_params[i].params);
		EXPECT_EQ(EINVAL, err) TH_LOG("insmod %s: %s",
					      bad_params[i].params,
					      strerror(err));
		if (!err) {
			EXPECT_EQ(0, module_unload());
			continue;
		}
		EXPECT_TRUE(kmsg_has(kmsg, bad_params[i].log))
			TH_LOG("insmod %s: no \"%s\" in the kernel log",
			       bad_params[i].params, bad_params[i].log);
	}
	close(kmsg);

	for (i = 0; i < sizeof(good_params) / sizeof(good_params[0]); i++) {
		err = module_load(good_params[i].params);
		EXPECT_EQ(0, err) TH_LOG("insmod %s: %s", good_params[i].params,
					 strerror(err));
		if (err)
			continue;
		fd = open(CFILTER_DEVICE, O_RDWR);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, cf_info(fd, &info));
		EXPECT_EQ(good_params[i].fp_bits, info.fp_bits);
		EXPECT_EQ(good_params[i].mode, info.mode);
		EXPECT_EQ(good_params[i].max_capacity, info.max_capacity)
			TH_LOG("insmod %s", good_params[i].params);
		close(fd);
		ASSERT_EQ(0, module_unload());
	}
}

TEST_HARNESS_MAIN
