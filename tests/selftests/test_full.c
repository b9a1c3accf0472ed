// SPDX-License-Identifier: GPL-2.0
/*
 * A full filter and the module parameters: each test reloads cfilter.ko with
 * a tiny capacity (so filling it takes a hundred adds, not a million) and
 * reloads it with default parameters afterwards. Reloading is only possible
 * when nothing holds the module (no XDP program using the kfunc, no open
 * /dev/cfilter); otherwise the tests skip.
 *
 * CFILTER_KO names the module file (default /lib/modules/cfilter.ko).
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
#include <sys/syscall.h>
#include <linux/cfilter.h>

#include "kselftest_harness.h"

#define DEFAULT_KO	"/lib/modules/cfilter.ko"
#define SMALL_CAPACITY	64
/* Enough attempts to fill any table sized for SMALL_CAPACITY keys. */
#define MAX_ADDS	(16 * SMALL_CAPACITY)
/* Programs release the module from an RCU callback: allow some delay. */
#define RELEASE_WAIT_MS	5000

static const char *module_file(void)
{
	const char *ko = getenv("CFILTER_KO");

	return ko && *ko ? ko : DEFAULT_KO;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Users of the module, or -1 if it is not loaded. */
static int module_refcnt(void)
{
	char buf[32];
	ssize_t n;
	int fd;

	fd = open("/sys/module/cfilter/refcnt", O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return atoi(buf);
}

/* Returns 0 or the errno of the last delete_module attempt. */
static int module_unload(void)
{
	int waited;

	for (waited = 0; ; waited += 100) {
		if (!syscall(SYS_delete_module, "cfilter", O_NONBLOCK))
			return 0;
		if ((errno != EAGAIN && errno != EBUSY) ||
		    waited >= RELEASE_WAIT_MS)
			return errno;
		sleep_ms(100);
	}
}

/* Returns 0 or the errno of finit_module. */
static int module_load(const char *params)
{
	int fd, err = 0;

	fd = open(module_file(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (syscall(SYS_finit_module, fd, params, 0))
		err = errno;
	close(fd);
	return err;
}

/*
 * Waits for programs that are being freed to let go of the module. Returns
 * the remaining users (0 when the module can be unloaded).
 */
static int module_wait_unused(void)
{
	int waited, refs = module_refcnt();

	for (waited = 0; refs > 0 && waited < RELEASE_WAIT_MS; waited += 100) {
		sleep_ms(100);
		refs = module_refcnt();
	}
	return refs;
}

static int cf_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

static int cf_info(int fd, struct cfilter_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return cf_ioctl(fd, CFILTER_IOC_INFO, info);
}

/* Key number @i: a distinct SRC4 key per i (10.x.y.z, never routed). */
static struct cfilter_key_req nth_key(unsigned int i)
{
	struct cfilter_key_req req;

	memset(&req, 0, sizeof(req));
	req.key.type = CFILTER_KEY_SRC4;
	req.key.prefix_len = 32;
	req.key.saddr[0] = 10;
	req.key.saddr[1] = i >> 16;
	req.key.saddr[2] = i >> 8;
	req.key.saddr[3] = i;
	return req;
}

/*
 * Adds keys 0, 1, ... until ADD fails. Returns the index of the key that
 * failed with @err, and the number of keys actually stored in @stored (an
 * EEXIST for a key indistinguishable from an earlier one stores nothing).
 */
static unsigned int fill(int fd, int *err, unsigned long long *stored)
{
	struct cfilter_key_req req;
	unsigned int i;

	*stored = 0;
	for (i = 0; i < MAX_ADDS; i++) {
		req = nth_key(i);
		*err = cf_ioctl(fd, CFILTER_IOC_ADD, &req);
		if (*err == EEXIST)
			continue;
		if (*err)
			return i;
		(*stored)++;
	}
	*err = 0;
	return i;
}

FIXTURE(small) {
	int fd;
};

/*
 * A SKIP() here still runs the test body on this harness version: bodies
 * start with "if (_metadata->skip) return;".
 */
FIXTURE_SETUP(small)
{
	int refs, err;
	char params[64];

	self->fd = -1;
	if (access(module_file(), R_OK))
		SKIP(return, "%s not readable: set CFILTER_KO", module_file());
	refs = module_wait_unused();
	if (refs > 0)
		SKIP(return, "cfilter.ko has %d users (XDP program attached or /dev/cfilter open): cannot reload it",
		     refs);
	if (refs == 0)
		ASSERT_EQ(0, module_unload());
	snprintf(params, sizeof(params), "capacity=%d", SMALL_CAPACITY);
	err = module_load(params);
	ASSERT_EQ(0, err) TH_LOG("insmod %s %s: %s", module_file(), params,
				 strerror(err));
	self->fd = open(CFILTER_DEVICE, O_RDWR);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", CFILTER_DEVICE,
				      strerror(errno));
}

/* Leave the module loaded with default parameters for the next test. */
FIXTURE_TEARDOWN(small)
{
	int err;

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

TEST_F(small, geometry_follows_capacity_param)
{
	struct cfilter_info info;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, cf_info(self->fd, &info));
	EXPECT_EQ(0ULL, info.count);
	EXPECT_EQ(info.buckets * 4, info.capacity);
	EXPECT_EQ(0ULL, info.buckets & (info.buckets - 1));
	/* Sized so that capacity= keys fit at no more than 95% load. */
	EXPECT_LE(SMALL_CAPACITY * 100ULL, info.capacity * 95);
	/* ... and no larger than the next power of two requires. */
	EXPECT_GE(4ULL * SMALL_CAPACITY, info.capacity);
}

/*
 * ENOSPC when full, having stored at least capacity= keys, losing none, and
 * counted in insert_failures. Deleting a key makes room for it again.
 */
TEST_F(small, full_filter_is_enospc_and_keeps_every_key)
{
	unsigned long long stored;
	struct cfilter_key_req req;
	struct cfilter_info info;
	unsigned int failed, i;
	int err;

	if (_metadata->skip)
		return;
	failed = fill(self->fd, &err, &stored);
	ASSERT_EQ(ENOSPC, err) TH_LOG("after %u adds (%llu stored): %s",
				      failed, stored, strerror(err));
	EXPECT_LE((unsigned long long)SMALL_CAPACITY, stored);

	ASSERT_EQ(0, cf_info(self->fd, &info));
	EXPECT_EQ(stored, info.count);
	EXPECT_EQ(1ULL, info.insert_failures);
	EXPECT_GE(info.capacity, info.count);
	EXPECT_EQ(info.count * 1000000 / info.capacity, info.load_ppm);

	for (i = 0; i < failed; i++) {
		req = nth_key(i);
		ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_TEST, &req))
			TH_LOG("key %u of %u lost after ENOSPC", i, failed);
	}

	req = nth_key(0);
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_DEL, &req));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req));
	ASSERT_EQ(0, cf_info(self->fd, &info));
	EXPECT_EQ(stored, info.count);
}

TEST_F(small, clear_empties_full_filter_and_resets_failures)
{
	unsigned long long stored;
	struct cfilter_key_req req;
	struct cfilter_info info;
	unsigned int failed, i;
	int err;

	if (_metadata->skip)
		return;
	failed = fill(self->fd, &err, &stored);
	ASSERT_EQ(ENOSPC, err);
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_CLEAR, NULL));
	ASSERT_EQ(0, cf_info(self->fd, &info));
	EXPECT_EQ(0ULL, info.count);
	EXPECT_EQ(0ULL, info.insert_failures);
	EXPECT_EQ(0U, info.load_ppm);
	for (i = 0; i < failed; i++) {
		req = nth_key(i);
		ASSERT_EQ(ENOENT, cf_ioctl(self->fd, CFILTER_IOC_TEST, &req));
	}
	req = nth_key(failed);
	EXPECT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req));
}

/* insmod refuses parameters the filter cannot be built with. */
TEST_F(small, module_params_are_validated_at_load)
{
	static const struct {
		const char *params;
		int err;
		unsigned int fp_bits;
	} cases[] = {
		{ "fp_bits=7", EINVAL, 0 },
		{ "fp_bits=0", EINVAL, 0 },
		{ "fp_bits=64", EINVAL, 0 },
		{ "capacity=0", EINVAL, 0 },
		{ "capacity=18446744073709551615", EINVAL, 0 },
		{ "fp_bits=8", 0, 8 },
		{ "fp_bits=12", 0, 12 },
		{ "fp_bits=32 capacity=1000", 0, 32 },
	};
	struct cfilter_info info;
	size_t i;
	int err, fd;

	if (_metadata->skip)
		return;
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, module_unload());
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err = module_load(cases[i].params);
		EXPECT_EQ(cases[i].err, err) TH_LOG("insmod %s: %s",
						    cases[i].params,
						    strerror(err));
		if (err)
			continue;
		fd = open(CFILTER_DEVICE, O_RDWR);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, cf_info(fd, &info));
		EXPECT_EQ(cases[i].fp_bits, info.fp_bits);
		close(fd);
		ASSERT_EQ(0, module_unload());
	}
}

TEST_HARNESS_MAIN
