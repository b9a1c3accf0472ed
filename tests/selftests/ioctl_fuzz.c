// SPDX-License-Identifier: GPL-2.0
/*
 * A bounded fuzzer of /dev/cfilter's ioctls: random command numbers (every
 * CFILTER_IOC_* with right and wrong sizes, and others), random arguments
 * (random bytes, plausible fields, bad pointers), through a read-write and
 * a read-only descriptor, as root and as a process without CAP_NET_ADMIN.
 * Whatever the module answers, it must not oops, warn or leak into a state
 * where it no longer works: afterwards the kernel is untainted and a key
 * can be added, found and cleared.
 *
 * CFILTER_FUZZ_SEED and CFILTER_FUZZ_CALLS (calls per identity, default
 * 4000) repeat or lengthen a run; the seed is printed.
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
#include <sys/mman.h>
#include <sys/wait.h>
#include <linux/cfilter.h>

#include "helpers.h"
#include "xorshift.h"
#include "kselftest_harness.h"
#include "harness_timeout.h"

#define ARG_BYTES	4096
#define DATA_BYTES	(64 * 1024)

static const unsigned long cmds[] = {
	CFILTER_IOC_ADD, CFILTER_IOC_DEL, CFILTER_IOC_TEST, CFILTER_IOC_CLEAR,
	CFILTER_IOC_INFO, CFILTER_IOC_BATCH, CFILTER_IOC_LIST,
	CFILTER_IOC_STAGE, CFILTER_IOC_COMMIT, CFILTER_IOC_ABORT,
	CFILTER_IOC_TYPE_INFO, CFILTER_IOC_MATCH, CFILTER_IOC_DUMP,
	CFILTER_IOC_RESTORE, CFILTER_IOC_FLUSH, CFILTER_IOC_SOURCES,
	CFILTER_IOC_STAGE_SOURCE, CFILTER_IOC_PREFILTER, CFILTER_IOC_MIRROR,
};

/* A pointer the kernel may be handed: ours, NULL, unmapped, kernel. */
static __u64 any_pointer(void *data)
{
	switch (rnd() % 6) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return 0xffff888000000000ULL;	/* the kernel's direct map */
	case 3:
		return (uintptr_t)data + DATA_BYTES - (rnd() % 64);
	default:
		return (uintptr_t)data + (rnd() % 64) * 8;
	}
}

/* A 64-bit field: small, a size near a power of two, or anything. */
static __u64 any_number(void)
{
	switch (rnd() % 4) {
	case 0:
		return rnd() % 16;
	case 1:
		return (1ULL << (rnd() % 40)) - (rnd() % 3);
	default:
		return rnd();
	}
}

/*
 * A source name where the structures keep one (requests and batches at
 * byte 48, LIST at 40, FLUSH and STAGE_SOURCE at 0), a short timeout
 * where requests keep theirs: mostly valid names, so that the calls reach
 * the holdings; sometimes many distinct ones, to run out of sources.
 */
static void any_source(__u8 *arg)
{
	static const unsigned int at[] = { 48, 40, 0 };
	static const char *const names[] = { "", "default", "feed", "f2b-sshd",
					     "-bad", "a b" };
	unsigned int where = at[rnd() % 3];
	char name[CFILTER_SOURCE_LEN] = { 0 };
	__u32 timeout = rnd() % 4;

	if (rnd() % 4)
		snprintf(name, sizeof(name), "%s", names[rnd() % 6]);
	else
		snprintf(name, sizeof(name), "s%u", (unsigned int)(rnd() % 40));
	memcpy(arg + where, name, sizeof(name));
	if (where == 48)
		memcpy(arg + 44, &timeout, sizeof(timeout));
}

/*
 * Random bytes, then with some luck fields that get past the first checks:
 * a known key type, pointers and counts in the places the structures have
 * them. Every structure starts with the same few bytes, so one layout of
 * plausible values serves all of them well enough.
 */
static void fill_arg(__u8 *arg, void *data)
{
	__u64 v;
	unsigned int i;

	for (i = 0; i < ARG_BYTES; i += sizeof(v)) {
		v = rnd();
		memcpy(arg + i, &v, sizeof(v));
	}
	if (rnd() % 2)
		return;
	memset(arg, 0, 128);
	arg[0] = rnd() % (__CFILTER_KEY_MAX + 2);	/* type / op */
	arg[1] = rnd() % 130;				/* prefix_len */
	if (rnd() % 2) {
		v = any_pointer(data);		/* batch keys, list keys, ... */
		memcpy(arg + 8, &v, sizeof(v));
		v = any_pointer(data);
		memcpy(arg + 16, &v, sizeof(v));
		v = any_number();		/* counts, max, sizes */
		memcpy(arg + 24, &v, sizeof(v));
		v = any_pointer(data);		/* table data */
		memcpy(arg + 48, &v, sizeof(v));
		v = any_number();		/* table size */
		memcpy(arg + 56, &v, sizeof(v));
	}
	if (rnd() % 2)
		any_source(arg);
}

/* A command number: a real one, one with a wrong size, or any. */
static unsigned long any_cmd(void)
{
	unsigned long cmd = cmds[rnd() % (sizeof(cmds) / sizeof(cmds[0]))];

	switch (rnd() % 8) {
	case 0:
		return _IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd),
			    rnd() % 256);
	case 1:
		return _IOC(rnd() % 4, CFILTER_IOC_MAGIC, rnd() % 256,
			    rnd() % 256);
	case 2:
		return rnd() & 0xffffffff;
	default:
		return cmd;
	}
}

/* @calls random ioctls on @fds; returns how many the module accepted. */
static unsigned int fuzz(const int fds[2], unsigned int calls)
{
	__u8 *arg = mmap(NULL, ARG_BYTES, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *data = mmap(NULL, DATA_BYTES, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned int i, ok = 0;
	void *where;

	if (arg == MAP_FAILED || data == MAP_FAILED)
		return 0;
	for (i = 0; i < calls; i++) {
		fill_arg(arg, data);
		switch (rnd() % 10) {
		case 0:
			where = NULL;
			break;
		case 1:
			where = (void *)1;
			break;
		case 2:
			/* The structure runs off the end of the mapping. */
			where = arg + ARG_BYTES - 8;
			break;
		default:
			where = arg;
		}
		if (!ioctl(fds[rnd() % 2], any_cmd(), where))
			ok++;
	}
	munmap(arg, ARG_BYTES);
	munmap(data, DATA_BYTES);
	return ok;
}

static unsigned long tainted(void)
{
	unsigned long t = 0;
	FILE *f = fopen("/proc/sys/kernel/tainted", "r");

	if (f) {
		if (fscanf(f, "%lu", &t) != 1)
			t = ~0UL;
		fclose(f);
	}
	return t;
}

static unsigned int env_uint(const char *name, unsigned int dflt)
{
	const char *v = getenv(name);

	return v && *v ? (unsigned int)strtoul(v, NULL, 0) : dflt;
}

TEST(ioctls_with_random_arguments_break_nothing)
{
	unsigned int calls = env_uint("CFILTER_FUZZ_CALLS", 4000), who;
	__u64 seed = env_uint("CFILTER_FUZZ_SEED", 0);
	struct cfilter_key_req req = { .key = nth_key4(7) };
	unsigned long taint = tainted();
	int fds[2], status;
	pid_t pid;

	if (!seed)
		seed = (__u64)time(NULL) ^ getpid();
	TH_LOG("seed %llu, %u calls per identity (CFILTER_FUZZ_SEED=%llu repeats it)",
	       (unsigned long long)seed, calls, (unsigned long long)seed);

	/* Root, then nobody (no CAP_NET_ADMIN), each with both descriptors. */
	for (who = 0; who < 2; who++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			rng_state = seed * 2 + who + 1;
			fds[0] = open(CFILTER_DEVICE, O_RDWR);
			fds[1] = open(CFILTER_DEVICE, O_RDONLY);
			if (fds[0] < 0 || fds[1] < 0)
				_exit(2);
			if (who && become_nobody())
				_exit(3);
			printf("# %s: %u of %u calls accepted\n",
			       who ? "nobody" : "root", fuzz(fds, calls), calls);
			fflush(stdout);
			_exit(0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status)) TH_LOG("the fuzzer died: status %d",
						      status);
		ASSERT_EQ(0, WEXITSTATUS(status));
	}

	EXPECT_EQ(taint, tainted()) TH_LOG("the kernel was tainted: see dmesg");
	fds[0] = open(CFILTER_DEVICE, O_RDWR);
	ASSERT_LE(0, fds[0]);
	EXPECT_EQ(0, cf_ioctl(fds[0], CFILTER_IOC_CLEAR, NULL));
	EXPECT_EQ(0, cf_ioctl(fds[0], CFILTER_IOC_ADD, &req));
	EXPECT_EQ(0, cf_ioctl(fds[0], CFILTER_IOC_TEST, &req));
	EXPECT_EQ(0, cf_ioctl(fds[0], CFILTER_IOC_CLEAR, NULL));
	close(fds[0]);
}

TEST_HARNESS_MAIN
