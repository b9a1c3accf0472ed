// SPDX-License-Identifier: GPL-2.0
/*
 * CFILTER_IOC_BATCH: per-key results and first_error, all-or-nothing
 * validation, argument checks, bad pointers, privileges, and a million keys
 * in one call. Needs cfilter.ko loaded with default parameters (exact mode);
 * every test starts from an empty filter.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <linux/cfilter.h>

#include "helpers.h"
#include "kselftest_harness.h"
#include "harness_timeout.h"

#define N		1000	/* more than one kernel step of 256 keys */
#define MILLION		1000000

/* Key @i of a mixed set: even i IPv4, odd i IPv6. */
static struct cfilter_key mixed_key(unsigned int i)
{
	return i % 2 ? nth_key6(i) : nth_key4(i);
}

FIXTURE(batch) {
	int fd;
	struct cfilter_key keys[N];
	__s32 results[N];
};

FIXTURE_SETUP(batch)
{
	unsigned int i;

	SETUP_OPEN_EMPTY(self->fd);
	for (i = 0; i < N; i++) {
		self->keys[i] = mixed_key(i);
		self->results[i] = 12345;
	}
}

FIXTURE_TEARDOWN(batch)
{
	teardown_close_empty(self->fd);
}

/* Every result equals @want; else names the first that does not. */
static void expect_results(struct __test_metadata *_metadata,
			   const __s32 *results, unsigned int n, int want)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		ASSERT_EQ(want, results[i]) TH_LOG("result %u", i);
}

TEST_F(batch, add_test_del_round_trip)
{
	struct cfilter_batch b;
	unsigned int i;

	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_TEST, self->keys,
			      self->results, N, &b));
	expect_results(_metadata, self->results, N, -ENOENT);
	EXPECT_EQ(0U, b.first_error);

	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, self->keys,
			      self->results, N, &b));
	EXPECT_EQ((__u32)N, b.done);
	EXPECT_EQ((__u32)N, b.first_error);
	expect_results(_metadata, self->results, N, 0);
	EXPECT_EQ(N, cf_count(self->fd));

	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_TEST, self->keys,
			      self->results, N, &b));
	EXPECT_EQ((__u32)N, b.first_error);
	expect_results(_metadata, self->results, N, 0);

	/* Delete the second half: the first half stays. */
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_DEL, self->keys + N / 2,
			      self->results, N / 2, &b));
	EXPECT_EQ((__u32)N / 2, b.first_error);
	expect_results(_metadata, self->results, N / 2, 0);
	EXPECT_EQ(N / 2, cf_count(self->fd));
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_TEST, self->keys,
			      self->results, N, &b));
	EXPECT_EQ((__u32)N / 2, b.first_error);
	expect_results(_metadata, self->results, N / 2, 0);
	expect_results(_metadata, self->results + N / 2, N / 2, -ENOENT);

	/* The single-key ioctls see the same filter. */
	for (i = 0; i < N; i++) {
		struct cfilter_key_req req = { .key = self->keys[i] };

		ASSERT_EQ(i < N / 2 ? 0 : ENOENT,
			  cf_ioctl(self->fd, CFILTER_IOC_TEST, &req));
	}
}

TEST_F(batch, per_key_results_and_first_error)
{
	struct cfilter_key keys[4] = {
		self->keys[0], self->keys[1], self->keys[0], self->keys[2],
	};
	__s32 results[4];
	struct cfilter_batch b;

	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, keys, results, 4, &b));
	EXPECT_EQ(4U, b.done);
	EXPECT_EQ(2U, b.first_error);
	EXPECT_EQ(0, results[0]);
	EXPECT_EQ(0, results[1]);
	EXPECT_EQ(-EEXIST, results[2]);
	EXPECT_EQ(0, results[3]);
	EXPECT_EQ(3, cf_count(self->fd));

	keys[0] = self->keys[5];	/* never added */
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_DEL, keys, results, 4, &b));
	EXPECT_EQ(0U, b.first_error);
	EXPECT_EQ(-ENOENT, results[0]);
	EXPECT_EQ(0, results[1]);
	EXPECT_EQ(0, results[2]);
	EXPECT_EQ(0, results[3]);
	EXPECT_EQ(0, cf_count(self->fd));
}

/* A malformed key anywhere, even past the first kernel step: nothing done. */
TEST_F(batch, malformed_key_is_einval_and_nothing_applied)
{
	static const unsigned int where[] = { 0, 255, 256, 700, N - 1 };
	struct cfilter_key good;
	struct cfilter_batch b;
	unsigned int i, j;
	__u32 op;

	for (op = CFILTER_BATCH_ADD; op <= CFILTER_BATCH_TEST; op++) {
		ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_CLEAR, NULL));
		if (op != CFILTER_BATCH_ADD)	/* something to delete */
			ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD,
					      self->keys, self->results, N, &b));
		for (i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
			j = where[i];
			good = self->keys[j];
			/* Longer than any address: malformed in every type. */
			self->keys[j].prefix_len = 129;
			EXPECT_EQ(EINVAL, cf_batch(self->fd, op, self->keys,
						   self->results, N, &b))
				TH_LOG("op %u, bad key %u", op, j);
			EXPECT_EQ(j, b.first_error);
			EXPECT_EQ(0U, b.done);
			EXPECT_EQ(op == CFILTER_BATCH_ADD ? 0 : N,
				  cf_count(self->fd))
				TH_LOG("op %u applied despite bad key %u", op, j);
			self->keys[j] = good;
		}
	}
}

TEST_F(batch, every_kind_of_malformed_key_is_einval)
{
	struct cfilter_key bad[8];
	struct cfilter_batch b;
	unsigned int i;

	for (i = 0; i < 8; i++)
		bad[i] = self->keys[i % 2];
	bad[0].type = CFILTER_KEY_NONE;
	bad[1].type = __CFILTER_KEY_MAX;
	bad[2].saddr[4] = 1;		/* SRC4 uses 4 bytes */
	bad[3].prefix_len = 32;		/* SRC6 with host bits past /32 */
	bad[4].proto = 6;
	bad[5].pad = 1;
	bad[6].dport = 1;
	bad[7].daddr[15] = 1;
	for (i = 0; i < 8; i++) {
		EXPECT_EQ(EINVAL, cf_batch(self->fd, CFILTER_BATCH_ADD, &bad[i],
					   self->results, 1, &b))
			TH_LOG("bad key %u accepted", i);
		EXPECT_EQ(0U, b.first_error);
	}
	EXPECT_EQ(0, cf_count(self->fd));
}

TEST_F(batch, bad_arguments_are_einval)
{
	struct cfilter_batch b;
	int i;

	for (i = 0; i < 9; i++) {
		memset(&b, 0, sizeof(b));
		b.op = CFILTER_BATCH_ADD;
		b.keys = (uintptr_t)self->keys;
		b.results = (uintptr_t)self->results;
		b.count = 1;
		switch (i) {
		case 0: b.op = 0; break;
		case 1: b.op = CFILTER_BATCH_TEST + 1; break;
		case 2: b.flags = 1; break;
		case 3: b.pad = 1; break;
		case 4: b.reserved = 1; break;
		case 5: b.reserved = 1ULL << 63; break;
		case 6: b.flags = 0x80000000; break;
		/* ages: ADD's alone */
		case 7: b.op = CFILTER_BATCH_DEL; b.ages = b.keys; break;
		case 8: b.op = CFILTER_BATCH_TEST; b.ages = b.keys; break;
		}
		EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_BATCH, &b))
			TH_LOG("case %d", i);
	}
	EXPECT_EQ(0, cf_count(self->fd));
}

TEST_F(batch, count_zero_does_nothing)
{
	struct cfilter_batch b;

	memset(&b, 0xff, sizeof(b));
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, NULL, NULL, 0, &b));
	EXPECT_EQ(0U, b.done);
	EXPECT_EQ(0U, b.first_error);
	EXPECT_EQ(0, cf_count(self->fd));
}

TEST_F(batch, bad_pointers_are_efault_and_nothing_applied)
{
	struct cfilter_key *keys;
	struct cfilter_batch b;
	__s32 *ro;

	EXPECT_EQ(EFAULT, cf_ioctl(self->fd, CFILTER_IOC_BATCH, NULL));
	EXPECT_EQ(EFAULT, cf_batch(self->fd, CFILTER_BATCH_ADD, NULL,
				   self->results, N, &b));
	EXPECT_EQ(EFAULT, cf_batch(self->fd, CFILTER_BATCH_ADD, self->keys,
				   NULL, N, &b));
	EXPECT_EQ(0U, b.done);
	EXPECT_EQ(EFAULT, cf_batch(self->fd, CFILTER_BATCH_ADD,
				   (struct cfilter_key *)1, self->results, N, &b));

	/*
	 * Keys readable only up to a point past the first kernel step: the
	 * first step checks out, the next cannot be read, nothing is applied.
	 */
	keys = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, keys);
	ASSERT_EQ(0, munmap((char *)keys + 3 * 4096, 4096));
	memcpy(keys, self->keys, 3 * 4096 / sizeof(*keys) * sizeof(*keys));
	EXPECT_EQ(EFAULT, cf_batch(self->fd, CFILTER_BATCH_ADD, keys,
				   self->results, N, &b));
	EXPECT_EQ(0U, b.done);
	munmap(keys, 3 * 4096);

	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	EXPECT_EQ(EFAULT, cf_batch(self->fd, CFILTER_BATCH_ADD, self->keys,
				   ro, N, &b));
	EXPECT_EQ(0U, b.done);
	munmap(ro, 4096);
	EXPECT_EQ(0, cf_count(self->fd));
}

/* What an unprivileged caller saw: 0 or errno per op. */
struct unpriv_result {
	int add, del, test;
	__s32 test_result;
};

/* run_as_nobody()'s child: @arg is two keys, the first one in the filter. */
static void unpriv_child(int fd, const void *arg, void *result)
{
	const struct cfilter_key *key = arg;
	struct unpriv_result *r = result;
	struct cfilter_batch b;
	__s32 res = 12345;

	r->add = cf_batch(fd, CFILTER_BATCH_ADD, key + 1, &res, 1, &b);
	r->del = cf_batch(fd, CFILTER_BATCH_DEL, key, &res, 1, &b);
	r->test = cf_batch(fd, CFILTER_BATCH_TEST, key, &res, 1, &b);
	r->test_result = res;
}

TEST_F(batch, unprivileged_add_del_are_eperm_test_works)
{
	struct unpriv_result r;
	struct cfilter_batch b;

	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, self->keys,
			      self->results, 1, &b));
	ASSERT_EQ(0, run_as_nobody(unpriv_child, self->fd, self->keys, &r,
				   sizeof(r)));
	EXPECT_EQ(EPERM, r.add);
	EXPECT_EQ(EPERM, r.del);
	EXPECT_EQ(0, r.test);
	EXPECT_EQ(0, r.test_result);
	EXPECT_EQ(1, cf_count(self->fd));
}

static double elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1e3 + (t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Growing from the default 1024 keys per family on the way. */
TEST_F(batch, million_ipv4_adds_in_one_call)
{
	struct cfilter_key *keys = calloc(MILLION, sizeof(*keys));
	__s32 *results = calloc(MILLION, sizeof(*results));
	struct cfilter_info info;
	struct cfilter_batch b;
	struct timespec t0;
	double add_ms, test_ms;
	unsigned int i;

	ASSERT_NE(NULL, keys);
	ASSERT_NE(NULL, results);
	for (i = 0; i < MILLION; i++)
		keys[i] = nth_key4(i);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, keys, results,
			      MILLION, &b));
	add_ms = elapsed_ms(&t0);
	EXPECT_EQ((__u32)MILLION, b.done);
	EXPECT_EQ((__u32)MILLION, b.first_error)
		TH_LOG("key %u: %s", b.first_error,
		       strerror(-results[b.first_error]));

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_TEST, keys, results,
			      MILLION, &b));
	test_ms = elapsed_ms(&t0);
	EXPECT_EQ((__u32)MILLION, b.first_error)
		TH_LOG("key %u missing", b.first_error);

	ASSERT_EQ(0, cf_info(self->fd, &info));
	EXPECT_EQ((__u64)MILLION, info.count);
	TH_LOG("1M IPv4 keys in one BATCH: add %.0f ms, test %.0f ms (emulated CPU under TCG: informative only); %llu grows, %llu bytes",
		       add_ms, test_ms, (unsigned long long)info.grows,
		       (unsigned long long)info.memory_bytes);
	free(keys);
	free(results);
}

/*
 * A caller killed in the middle of a long batch stops between steps: it
 * dies by the signal well before the last key, and the filter keeps working.
 */
TEST_F(batch, killed_caller_stops_between_steps)
{
	struct cfilter_key *keys = calloc(MILLION, sizeof(*keys));
	__s32 *results = calloc(MILLION, sizeof(*results));
	struct cfilter_key_req req;
	struct cfilter_batch b;
	long long count = 0;
	int status, waited;
	unsigned int i;
	pid_t pid;

	ASSERT_NE(NULL, keys);
	ASSERT_NE(NULL, results);
	for (i = 0; i < MILLION; i++)
		keys[i] = nth_key4(i);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		cf_batch(self->fd, CFILTER_BATCH_ADD, keys, results, MILLION, &b);
		_exit(0);
	}
	/* Kill it once the second pass has applied something. */
	for (waited = 0; count <= 0 && waited < 10000; waited++) {
		count = cf_count(self->fd);
		usleep(1000);
	}
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_LT(0, count) TH_LOG("the batch applied nothing within 10 s");
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		TH_LOG("the batch finished before SIGKILL: status %#x", status);
	count = cf_count(self->fd);
	EXPECT_LT(0, count);
	EXPECT_GT(MILLION, count);
	TH_LOG("killed after %lld of %d keys", count, MILLION);

	/* Every applied key is a prefix of the array, each one present. */
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_TEST, keys, results,
			      MILLION, &b));
	EXPECT_EQ(count, b.first_error);
	req = (struct cfilter_key_req){ .key = mixed_key(1) };
	EXPECT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req));
	free(keys);
	free(results);
}

TEST_HARNESS_MAIN
