// SPDX-License-Identifier: GPL-2.0
/*
 * The /dev/cfilter ioctl contract (include/uapi/linux/cfilter.h): every
 * command's result and exact errno, argument validation, privileges and the
 * device node itself, and that no command holds the writer lock while it
 * waits on the caller's memory. Needs cfilter.ko loaded; every test starts
 * from an empty filter.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <linux/cfilter.h>
#include <linux/userfaultfd.h>

#include "kselftest_harness.h"
#include "harness_timeout.h"
#include "helpers.h"

#define MISC_MAJOR_NR	10U

/*
 * A request for the address key of @type (SRC, DST, ALLOW; either family)
 * from "addr/len", or "addr" for a whole address.
 */
static struct cfilter_key_req pfx(__u8 type, const char *cidr)
{
	struct cfilter_key_req req = { .key = key_of(type, cidr) };

	return req;
}

/* The cases of pfx() the tables below list. */
struct typed_cidr {
	__u8		type;
	const char	*cidr;
};

static struct cfilter_key_req src4(const char *addr)
{
	return pfx(CFILTER_KEY_SRC4, addr);
}

static struct cfilter_key_req src6(const char *addr)
{
	return pfx(CFILTER_KEY_SRC6, addr);
}

static int cf_add(int fd, struct cfilter_key_req req)
{
	return cf_ioctl(fd, CFILTER_IOC_ADD, &req);
}

static int cf_del(int fd, struct cfilter_key_req req)
{
	return cf_ioctl(fd, CFILTER_IOC_DEL, &req);
}

static int cf_test(int fd, struct cfilter_key_req req)
{
	return cf_ioctl(fd, CFILTER_IOC_TEST, &req);
}

FIXTURE_EMPTY_FILTER(cf)

/* In an empty filter, TEST finds @req only between its ADD and its DEL. */
static void round_trip(struct __test_metadata *_metadata, int fd,
		       struct cfilter_key_req req)
{
	ASSERT_EQ(ENOENT, cf_ioctl(fd, CFILTER_IOC_TEST, &req));
	ASSERT_EQ(0, cf_ioctl(fd, CFILTER_IOC_ADD, &req));
	ASSERT_EQ(0, cf_ioctl(fd, CFILTER_IOC_TEST, &req));
	ASSERT_EQ(1, cf_count(fd));
	ASSERT_EQ(0, cf_ioctl(fd, CFILTER_IOC_DEL, &req));
	ASSERT_EQ(ENOENT, cf_ioctl(fd, CFILTER_IOC_TEST, &req));
	ASSERT_EQ(0, cf_count(fd));
}

TEST_F(cf, src4_add_test_del_round_trip)
{
	round_trip(_metadata, self->fd, src4("192.0.2.1"));
}

TEST_F(cf, src6_add_test_del_round_trip)
{
	round_trip(_metadata, self->fd, src6("2001:db8::1"));
}

/* The type is part of the key: 192.0.2.1 is not the IPv6 key c000:201::. */
TEST_F(cf, key_type_is_part_of_the_key)
{
	struct cfilter_key_req v4 = src4("192.0.2.1");
	struct cfilter_key_req v6 = src6("c000:201::");

	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &v4));
	ASSERT_EQ(ENOENT, cf_ioctl(self->fd, CFILTER_IOC_TEST, &v6));
	ASSERT_EQ(ENOENT, cf_ioctl(self->fd, CFILTER_IOC_DEL, &v6));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_TEST, &v4));
}

TEST_F(cf, add_twice_is_eexist)
{
	struct cfilter_key_req v4 = src4("198.51.100.7");
	struct cfilter_key_req v6 = src6("2001:db8::7");

	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &v4));
	ASSERT_EQ(EEXIST, cf_ioctl(self->fd, CFILTER_IOC_ADD, &v4));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &v6));
	ASSERT_EQ(EEXIST, cf_ioctl(self->fd, CFILTER_IOC_ADD, &v6));
	ASSERT_EQ(2, cf_count(self->fd));
}

TEST_F(cf, del_absent_is_enoent)
{
	struct cfilter_key_req req = src4("203.0.113.9");

	ASSERT_EQ(ENOENT, cf_ioctl(self->fd, CFILTER_IOC_DEL, &req));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_DEL, &req));
	ASSERT_EQ(ENOENT, cf_ioctl(self->fd, CFILTER_IOC_DEL, &req));
}

TEST_F(cf, test_absent_is_enoent)
{
	struct cfilter_key_req v4 = src4("203.0.113.10");
	struct cfilter_key_req v6 = src6("2001:db8::10");

	ASSERT_EQ(ENOENT, cf_ioctl(self->fd, CFILTER_IOC_TEST, &v4));
	ASSERT_EQ(ENOENT, cf_ioctl(self->fd, CFILTER_IOC_TEST, &v6));
}

TEST_F(cf, clear_removes_every_key)
{
	struct cfilter_key_req req;
	char addr[32];
	int i;

	for (i = 1; i <= 50; i++) {
		snprintf(addr, sizeof(addr), "198.51.100.%d", i);
		req = src4(addr);
		ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req));
	}
	ASSERT_EQ(50, cf_count(self->fd));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_CLEAR, NULL));
	ASSERT_EQ(0, cf_count(self->fd));
	for (i = 1; i <= 50; i++) {
		snprintf(addr, sizeof(addr), "198.51.100.%d", i);
		req = src4(addr);
		ASSERT_EQ(ENOENT, cf_ioctl(self->fd, CFILTER_IOC_TEST, &req))
			TH_LOG("%s still present after CLEAR", addr);
	}
}

TEST_F(cf, info_reports_geometry_and_count)
{
	struct cfilter_info info;

	ASSERT_EQ(0, cf_add(self->fd, src6("2001:db8::1")));
	ASSERT_EQ(0, cf_add(self->fd, src6("2001:db8::2")));
	ASSERT_EQ(0, cf_add(self->fd, src6("2001:db8::3")));
	ASSERT_EQ(0, cf_info(self->fd, &info));
	EXPECT_EQ(sizeof(info), info.size);
	EXPECT_EQ(0U, info.flags);
	EXPECT_EQ(3ULL, info.count);
	EXPECT_EQ(4U, info.slots_per_bucket);
	EXPECT_EQ(info.buckets * info.slots_per_bucket, info.capacity);
	ASSERT_NE(0ULL, info.buckets);
	EXPECT_EQ(read_param("fp_bits"), info.fp_bits);
	/*
	 * One table per key type (every type but NONE), each sized so that
	 * capacity= keys fit at 95% load; the sums are reported.
	 */
	EXPECT_LE((__CFILTER_KEY_MAX - 1) * read_param("capacity") * 100,
		  info.capacity * 95);
	EXPECT_EQ(info.count * 1000000 / info.capacity, info.load_ppm);
	/* Exact mode keeps the keys too: at least 4 bytes per slot. */
	EXPECT_GE(info.memory_bytes,
		  info.capacity * info.fp_bits / 8 + info.capacity * 4);
	EXPECT_EQ(0ULL, info.insert_failures);
	EXPECT_LT(0U, info.max_kicks);
	EXPECT_EQ((__u32)CFILTER_MODE_EXACT, info.mode);
	/* exact mode: a prefilter map of any size gets its hashed bits */
	EXPECT_EQ(0U, info.prefilter_bits);
	/* The default bound, which sysfs shows once settled at load. */
	EXPECT_EQ(16ULL << 20, info.max_capacity);
	EXPECT_EQ(read_param("max_capacity"), info.max_capacity);
	EXPECT_EQ(0ULL, info.prefixes);
	EXPECT_EQ(0ULL, info.prefix_markers);
	EXPECT_EQ(0ULL, info.timed);
}

TEST_F(cf, info_count_follows_add_del)
{
	struct cfilter_key_req a = src4("192.0.2.20");
	struct cfilter_key_req b = src6("2001:db8::20");

	ASSERT_EQ(0, cf_count(self->fd));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &a));
	ASSERT_EQ(1, cf_count(self->fd));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &b));
	ASSERT_EQ(2, cf_count(self->fd));
	ASSERT_EQ(EEXIST, cf_ioctl(self->fd, CFILTER_IOC_ADD, &b));
	ASSERT_EQ(2, cf_count(self->fd));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_DEL, &a));
	ASSERT_EQ(1, cf_count(self->fd));
}

/* A newer caller may pass a larger struct: the kernel fills only its own. */
TEST_F(cf, info_larger_size_fills_known_part)
{
	unsigned char buf[sizeof(struct cfilter_info) + 16];
	struct cfilter_info *info = (struct cfilter_info *)buf;
	size_t i;

	memset(buf, 0xa5, sizeof(buf));
	memset(info, 0, sizeof(*info));
	info->size = sizeof(buf);
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_INFO, info));
	EXPECT_EQ(sizeof(*info), info->size);
	EXPECT_NE(0ULL, info->capacity);
	for (i = sizeof(*info); i < sizeof(buf); i++)
		ASSERT_EQ(0xa5, buf[i]) TH_LOG("byte %zu overwritten", i);
}

TEST_F(cf, info_flags_nonzero_is_einval)
{
	struct cfilter_info info;

	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	info.flags = 1;
	ASSERT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_INFO, &info));
	info.flags = 0x80000000;
	ASSERT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_INFO, &info));
}

TEST_F(cf, info_size_too_small_is_einval)
{
	struct cfilter_info info;

	memset(&info, 0, sizeof(info));
	info.size = sizeof(info) - 1;
	ASSERT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_INFO, &info));
	info.size = 8;
	ASSERT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_INFO, &info));
	info.size = 0;
	ASSERT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_INFO, &info));
}

TEST_F(cf, unknown_ioctl_is_enotty)
{
	struct cfilter_key_req req = src4("192.0.2.1");

	/* Unused number in cfilter's range, CIFS's number, other magic. */
	EXPECT_EQ(ENOTTY, cf_ioctl(self->fd, _IO(CFILTER_IOC_MAGIC, 0x5f), NULL));
	EXPECT_EQ(ENOTTY, cf_ioctl(self->fd, _IO(CFILTER_IOC_MAGIC, 0x02), NULL));
	EXPECT_EQ(ENOTTY, cf_ioctl(self->fd, _IOW('X', 0x40,
						  struct cfilter_key_req), &req));
	/* Right number, wrong direction or size: a different command. */
	EXPECT_EQ(ENOTTY, cf_ioctl(self->fd, _IOR(CFILTER_IOC_MAGIC, 0x40,
						  struct cfilter_key_req), &req));
	EXPECT_EQ(ENOTTY, cf_ioctl(self->fd, _IOW(CFILTER_IOC_MAGIC, 0x40,
						  struct cfilter_key), &req));
	EXPECT_EQ(ENOTTY, cf_ioctl(self->fd, _IOWR(CFILTER_IOC_MAGIC, 0x45,
						   struct cfilter_list), &req));
	EXPECT_EQ(ENOTTY, cf_ioctl(self->fd, _IOWR(CFILTER_IOC_MAGIC, 0x46,
						   struct cfilter_batch), &req));
	EXPECT_EQ(0, cf_count(self->fd));
}

/*
 * Each bad request must fail with EINVAL for ADD, DEL and TEST alike, and
 * leave the filter untouched.
 */
static void expect_einval(struct __test_metadata *_metadata, int fd,
			  const struct cfilter_key_req *bad, const char *what)
{
	static const unsigned long cmds[] = {
		CFILTER_IOC_ADD, CFILTER_IOC_TEST, CFILTER_IOC_DEL,
	};
	static const char * const names[] = { "ADD", "TEST", "DEL" };
	struct cfilter_key_req req;
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		req = *bad;
		EXPECT_EQ(EINVAL, cf_ioctl(fd, cmds[i], &req))
			TH_LOG("%s with %s", names[i], what);
	}
	EXPECT_EQ(1, cf_count(fd)) TH_LOG("count changed after %s", what);
}

FIXTURE(bad) {
	int fd;
	struct cfilter_key_req v4;
	struct cfilter_key_req v6;
};

/* One valid key is present, so that a bad DEL could remove something. */
FIXTURE_SETUP(bad)
{
	SETUP_OPEN_EMPTY(self->fd);
	self->v4 = src4("192.0.2.1");
	self->v6 = src6("2001:db8::1");
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &self->v4));
}

FIXTURE_TEARDOWN(bad)
{
	teardown_close_empty(self->fd);
}

TEST_F(bad, key_type_none_and_unknown)
{
	struct cfilter_key_req req = self->v4;

	req.key.type = CFILTER_KEY_NONE;
	expect_einval(_metadata, self->fd, &req, "type 0");
	req.key.type = __CFILTER_KEY_MAX;
	expect_einval(_metadata, self->fd, &req, "first unused type");
	req.key.type = 99;
	expect_einval(_metadata, self->fd, &req, "type 99");
}

/* Host bits set past the prefix, or a length past the address's. */
TEST_F(bad, prefix_len_with_host_bits_or_too_long)
{
	struct cfilter_key_req req = self->v4;

	req.key.prefix_len = 24;
	expect_einval(_metadata, self->fd, &req, "SRC4 prefix_len 24");
	req.key.prefix_len = 0;
	expect_einval(_metadata, self->fd, &req, "SRC4 prefix_len 0");
	req.key.prefix_len = 128;
	expect_einval(_metadata, self->fd, &req, "SRC4 prefix_len 128");
	req = self->v6;
	req.key.prefix_len = 64;
	expect_einval(_metadata, self->fd, &req, "SRC6 prefix_len 64");
	req.key.prefix_len = 32;
	expect_einval(_metadata, self->fd, &req, "SRC6 prefix_len 32");
}

TEST_F(bad, src4_saddr_tail_nonzero)
{
	struct cfilter_key_req req;
	int i;

	for (i = 4; i < 16; i++) {
		req = self->v4;
		req.key.saddr[i] = 1;
		expect_einval(_metadata, self->fd, &req, "SRC4 saddr[4..15] != 0");
	}
}

TEST_F(bad, key_pad_nonzero)
{
	struct cfilter_key_req req = self->v4;

	req.key.pad = 1;
	expect_einval(_metadata, self->fd, &req, "key.pad != 0");
	req = self->v6;
	req.key.pad = 0x80;
	expect_einval(_metadata, self->fd, &req, "SRC6 key.pad != 0");
}

TEST_F(bad, key_proto_nonzero)
{
	struct cfilter_key_req req = self->v4;

	req.key.proto = IPPROTO_TCP;
	expect_einval(_metadata, self->fd, &req, "key.proto != 0");
}

TEST_F(bad, key_ports_nonzero)
{
	struct cfilter_key_req req = self->v4;

	req.key.sport = htons(80);
	expect_einval(_metadata, self->fd, &req, "key.sport != 0");
	req = self->v6;
	req.key.dport = htons(443);
	expect_einval(_metadata, self->fd, &req, "key.dport != 0");
}

TEST_F(bad, key_daddr_nonzero)
{
	struct cfilter_key_req req = self->v4;

	req.key.daddr[0] = 192;
	expect_einval(_metadata, self->fd, &req, "SRC4 daddr[0] != 0");
	req = self->v6;
	req.key.daddr[15] = 1;
	expect_einval(_metadata, self->fd, &req, "SRC6 daddr[15] != 0");
}

TEST_F(bad, req_flags_nonzero)
{
	struct cfilter_key_req req = self->v4;

	req.flags = 1;
	expect_einval(_metadata, self->fd, &req, "req.flags 1");
	req.flags = 0x80000000;
	expect_einval(_metadata, self->fd, &req, "req.flags 0x80000000");
}

TEST_F(bad, req_source_malformed)
{
	static const char * const names[] = { "-a", "a b", "a/b", "\xe9" };
	struct cfilter_key_req req = self->v4;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		memset(req.source, 0, sizeof(req.source));
		strcpy(req.source, names[i]);
		expect_einval(_metadata, self->fd, &req, names[i]);
	}
	memset(req.source, 'a', sizeof(req.source));
	expect_einval(_metadata, self->fd, &req, "source without a NUL");
	memset(req.source, 0, sizeof(req.source));
	req.source[2] = 'a';
	expect_einval(_metadata, self->fd, &req, "bytes after the NUL");
}

TEST_F(bad, bad_user_pointer_is_efault)
{
	static void * const ptrs[] = { NULL, (void *)1 };
	size_t i;

	for (i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++) {
		EXPECT_EQ(EFAULT, cf_ioctl(self->fd, CFILTER_IOC_ADD, ptrs[i]));
		EXPECT_EQ(EFAULT, cf_ioctl(self->fd, CFILTER_IOC_DEL, ptrs[i]));
		EXPECT_EQ(EFAULT, cf_ioctl(self->fd, CFILTER_IOC_TEST, ptrs[i]));
		EXPECT_EQ(EFAULT, cf_ioctl(self->fd, CFILTER_IOC_INFO, ptrs[i]));
		EXPECT_EQ(EFAULT, cf_ioctl(self->fd, CFILTER_IOC_BATCH, ptrs[i]));
		EXPECT_EQ(EFAULT, cf_ioctl(self->fd, CFILTER_IOC_LIST, ptrs[i]));
	}
	EXPECT_EQ(1, cf_count(self->fd));
}

/* What an unprivileged caller saw: 0 or errno per operation. */
struct unpriv_result {
	int add, del, clear, test, info, list, open, dump;
	__u32 listed;
};

/* run_as_nobody()'s child: @arg is the key request present in the filter. */
static void unpriv_child(int fd, const void *arg, void *result)
{
	struct cfilter_key_req absent = src4("192.0.2.99");
	struct cfilter_key_req present = *(const struct cfilter_key_req *)arg;
	struct unpriv_result *r = result;
	struct cfilter_entry entries[2];
	struct cfilter_list l = { .entries = (uintptr_t)entries, .max = 2 };
	struct cfilter_table t = { .type = CFILTER_KEY_SRC4 };
	struct cfilter_info info;
	int fd2;

	r->add = cf_ioctl(fd, CFILTER_IOC_ADD, &absent);
	r->del = cf_ioctl(fd, CFILTER_IOC_DEL, &present);
	r->clear = cf_ioctl(fd, CFILTER_IOC_CLEAR, NULL);
	r->test = cf_ioctl(fd, CFILTER_IOC_TEST, &present);
	r->info = cf_info(fd, &info);
	r->list = cf_ioctl(fd, CFILTER_IOC_LIST, &l);
	r->listed = l.count;
	r->dump = cf_ioctl(fd, CFILTER_IOC_DUMP, &t);
	fd2 = open(CFILTER_DEVICE, O_RDWR);
	r->open = fd2 < 0 ? errno : 0;
}

/*
 * A process that drops root loses CAP_NET_ADMIN: it may still read through a
 * descriptor it was handed, but not change the filter nor DUMP a table (its
 * hash seed is a secret), and it cannot open the 0600 device itself.
 */
TEST_F(bad, unprivileged_reads_but_cannot_write)
{
	struct unpriv_result r;
	int err;

	err = run_as_nobody(unpriv_child, self->fd, &self->v4, &r, sizeof(r));
	ASSERT_EQ(0, err) TH_LOG("dropping to uid %d: %s", NOBODY,
				 err < 0 ? "no child reported" : strerror(err));
	EXPECT_EQ(EPERM, r.add);
	EXPECT_EQ(EPERM, r.del);
	EXPECT_EQ(EPERM, r.clear);
	EXPECT_EQ(0, r.test);
	EXPECT_EQ(0, r.info);
	EXPECT_EQ(0, r.list);
	EXPECT_EQ(1U, r.listed);
	EXPECT_EQ(EPERM, r.dump);
	EXPECT_EQ(EACCES, r.open);
	EXPECT_EQ(1, cf_count(self->fd));
	EXPECT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_TEST, &self->v4));
}

/*
 * A descriptor opened read-only (the device mode widened for monitoring)
 * reads, but every request that changes the filter is EBADF, root or not.
 */
TEST_F(bad, read_only_descriptor_cannot_write)
{
	struct cfilter_key_req absent = src4("192.0.2.99");
	struct cfilter_key keys[2] = { absent.key, absent.key };
	struct cfilter_table t = { .type = CFILTER_KEY_SRC4, .size = 1 };
	struct cfilter_entry entries[2];
	struct cfilter_list l = { .entries = (uintptr_t)entries, .max = 2 };
	struct cfilter_batch b;
	struct cfilter_info info;
	__s32 results[2];
	int ro = open(CFILTER_DEVICE, O_RDONLY);

	ASSERT_LE(0, ro);
	EXPECT_EQ(EBADF, cf_ioctl(ro, CFILTER_IOC_ADD, &absent));
	EXPECT_EQ(EBADF, cf_ioctl(ro, CFILTER_IOC_DEL, &self->v4));
	EXPECT_EQ(EBADF, cf_ioctl(ro, CFILTER_IOC_CLEAR, NULL));
	EXPECT_EQ(EBADF, cf_ioctl(ro, CFILTER_IOC_STAGE, NULL));
	EXPECT_EQ(EBADF, cf_ioctl(ro, CFILTER_IOC_COMMIT, NULL));
	EXPECT_EQ(EBADF, cf_ioctl(ro, CFILTER_IOC_ABORT, NULL));
	EXPECT_EQ(EBADF, cf_ioctl(ro, CFILTER_IOC_RESTORE, &t));
	EXPECT_EQ(EBADF, cf_batch(ro, CFILTER_BATCH_ADD, keys, results, 2, &b));
	EXPECT_EQ(EBADF, cf_batch(ro, CFILTER_BATCH_DEL, keys, results, 2, &b));
	EXPECT_EQ(0, cf_batch(ro, CFILTER_BATCH_TEST, keys, results, 2, &b));
	EXPECT_EQ(0, cf_ioctl(ro, CFILTER_IOC_TEST, &self->v4));
	EXPECT_EQ(0, cf_info(ro, &info));
	EXPECT_EQ(0, cf_ioctl(ro, CFILTER_IOC_LIST, &l));
	EXPECT_EQ(1U, l.count);
	EXPECT_EQ(1, cf_count(self->fd));
	EXPECT_EQ(ENOENT, cf_ioctl(self->fd, CFILTER_IOC_TEST, &absent));
	close(ro);
}

/* A request for flow_key()'s key. */
static struct cfilter_key_req req_of(__u8 type, int af, const char *src,
				     const char *dst, __u8 proto,
				     __u16 sport, __u16 dport)
{
	struct cfilter_key_req req = {
		.key = flow_key(type, af, src, dst, proto, sport, dport),
	};

	return req;
}

/* One valid key of every type beyond the source ones. */
static const struct {
	const char		*name;
	__u8			type;
	int			af;
	const char		*src, *dst;
	__u8			proto;
	__u16			sport, dport;
} new_keys[] = {
	{ "DST4", CFILTER_KEY_DST4, AF_INET, NULL, "198.51.100.1", 0, 0, 0 },
	{ "DST6", CFILTER_KEY_DST6, AF_INET6, NULL, "2001:db8::9", 0, 0, 0 },
	{ "FLOW4 TCP", CFILTER_KEY_FLOW4, AF_INET, "192.0.2.1", "198.51.100.1",
	  IPPROTO_TCP, 40000, 80 },
	{ "FLOW4 UDP", CFILTER_KEY_FLOW4, AF_INET, "192.0.2.1", "198.51.100.1",
	  IPPROTO_UDP, 0, 0 },
	{ "FLOW4 ICMP", CFILTER_KEY_FLOW4, AF_INET, "192.0.2.1", "198.51.100.1",
	  IPPROTO_ICMP, 255, 0 },
	{ "FLOW6 TCP", CFILTER_KEY_FLOW6, AF_INET6, "2001:db8::1", "2001:db8::2",
	  IPPROTO_TCP, 1, 65535 },
	{ "FLOW6 ICMPv6", CFILTER_KEY_FLOW6, AF_INET6, "2001:db8::1",
	  "2001:db8::2", IPPROTO_ICMPV6, 128, 0 },
	{ "ALLOW4", CFILTER_KEY_ALLOW4, AF_INET, "192.0.2.1", NULL, 0, 0, 0 },
	{ "ALLOW6", CFILTER_KEY_ALLOW6, AF_INET6, "2001:db8::1", NULL, 0, 0, 0 },
};

#define NEW_KEY(i)							\
	req_of(new_keys[i].type, new_keys[i].af, new_keys[i].src,	\
	       new_keys[i].dst, new_keys[i].proto, new_keys[i].sport,	\
	       new_keys[i].dport)

/* Each type's key is its own: adding one leaves the others absent. */
TEST_F(cf, new_types_add_test_del_round_trip)
{
	struct cfilter_key_req req, other;
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(new_keys); i++) {
		req = NEW_KEY(i);
		ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req))
			TH_LOG("add %s", new_keys[i].name);
		EXPECT_EQ(EEXIST, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req));
		EXPECT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_TEST, &req));
		for (j = 0; j < ARRAY_SIZE(new_keys); j++) {
			other = NEW_KEY(j);
			if (j != i)
				EXPECT_EQ(ENOENT, cf_ioctl(self->fd,
							   CFILTER_IOC_TEST,
							   &other))
					TH_LOG("%s present after adding %s",
					       new_keys[j].name,
					       new_keys[i].name);
		}
		EXPECT_EQ(1, cf_count(self->fd));
		EXPECT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_DEL, &req));
		EXPECT_EQ(ENOENT, cf_ioctl(self->fd, CFILTER_IOC_TEST, &req));
		EXPECT_EQ(0, cf_count(self->fd));
	}
}

/* The flow fields are all part of a flow key. */
TEST_F(cf, flow_fields_are_part_of_the_key)
{
	struct cfilter_key_req req = NEW_KEY(2), other;	/* FLOW4 TCP */

	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req));
	other = req;
	other.key.proto = IPPROTO_UDP;
	EXPECT_EQ(ENOENT, cf_ioctl(self->fd, CFILTER_IOC_TEST, &other));
	other = req;
	other.key.sport = htons(40001);
	EXPECT_EQ(ENOENT, cf_ioctl(self->fd, CFILTER_IOC_TEST, &other));
	other = req;
	other.key.dport = htons(81);
	EXPECT_EQ(ENOENT, cf_ioctl(self->fd, CFILTER_IOC_TEST, &other));
	other = req;
	other.key.saddr[3] ^= 1;
	EXPECT_EQ(ENOENT, cf_ioctl(self->fd, CFILTER_IOC_TEST, &other));
	other = req;
	other.key.daddr[3] ^= 1;
	EXPECT_EQ(ENOENT, cf_ioctl(self->fd, CFILTER_IOC_TEST, &other));
}

TEST_F(bad, new_types_unused_fields_nonzero)
{
	struct cfilter_key_req req;
	size_t i;
	int b;

	for (i = 0; i < ARRAY_SIZE(new_keys); i++) {
		bool v4 = new_keys[i].af == AF_INET;
		bool flow = new_keys[i].proto != 0;
		bool dst = !new_keys[i].src;

		req = NEW_KEY(i);
		req.key.pad = 1;
		expect_einval(_metadata, self->fd, &req, new_keys[i].name);
		req = NEW_KEY(i);
		req.key.prefix_len = v4 ? 24 : 64;
		expect_einval(_metadata, self->fd, &req, new_keys[i].name);
		for (b = v4 ? 4 : 16; b < 16; b++) {
			req = NEW_KEY(i);
			req.key.saddr[b] = 1;
			expect_einval(_metadata, self->fd, &req,
				      new_keys[i].name);
			req = NEW_KEY(i);
			req.key.daddr[b] = 1;
			expect_einval(_metadata, self->fd, &req,
				      new_keys[i].name);
		}
		if (flow)
			continue;
		req = NEW_KEY(i);
		req.key.proto = IPPROTO_TCP;
		expect_einval(_metadata, self->fd, &req, new_keys[i].name);
		req = NEW_KEY(i);
		req.key.sport = htons(1);
		expect_einval(_metadata, self->fd, &req, new_keys[i].name);
		req = NEW_KEY(i);
		req.key.dport = htons(1);
		expect_einval(_metadata, self->fd, &req, new_keys[i].name);
		/* The address in the field the type does not use. */
		req = NEW_KEY(i);
		if (dst)
			req.key.saddr[0] = 1;
		else
			req.key.daddr[0] = 1;
		expect_einval(_metadata, self->fd, &req, new_keys[i].name);
	}
}

TEST_F(bad, flow_proto_and_icmp_fields)
{
	static const struct {
		__u8	type;
		__u8	proto;
		__u16	sport, dport;
		const char *what;
	} cases[] = {
		{ CFILTER_KEY_FLOW4, 0, 1, 1, "FLOW4 proto 0" },
		{ CFILTER_KEY_FLOW4, IPPROTO_SCTP, 1, 1, "FLOW4 SCTP" },
		{ CFILTER_KEY_FLOW4, IPPROTO_ICMPV6, 128, 0, "FLOW4 ICMPv6" },
		{ CFILTER_KEY_FLOW6, IPPROTO_ICMP, 8, 0, "FLOW6 ICMP" },
		{ CFILTER_KEY_FLOW6, IPPROTO_GRE, 0, 0, "FLOW6 GRE" },
		{ CFILTER_KEY_FLOW4, IPPROTO_ICMP, 8, 1, "FLOW4 ICMP dport 1" },
		{ CFILTER_KEY_FLOW4, IPPROTO_ICMP, 256, 0, "FLOW4 ICMP type 256" },
		{ CFILTER_KEY_FLOW6, IPPROTO_ICMPV6, 128, 80, "FLOW6 ICMPv6 dport" },
		{ CFILTER_KEY_FLOW6, IPPROTO_ICMPV6, 0x8000, 0, "FLOW6 ICMPv6 type 0x8000" },
	};
	struct cfilter_key_req req;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		bool v4 = cases[i].type == CFILTER_KEY_FLOW4;

		req = req_of(cases[i].type, v4 ? AF_INET : AF_INET6,
			     v4 ? "192.0.2.1" : "2001:db8::1",
			     v4 ? "192.0.2.2" : "2001:db8::2", cases[i].proto,
			     cases[i].sport, cases[i].dport);
		expect_einval(_metadata, self->fd, &req, cases[i].what);
	}
}

TEST_F(bad, malformed_prefixes_refused)
{
	static const struct typed_cidr cases[] = {
		{ CFILTER_KEY_SRC4, "192.0.2.1/24" },	/* host bit in byte 3 */
		{ CFILTER_KEY_SRC4, "192.0.2.128/24" },
		{ CFILTER_KEY_SRC4, "192.0.3.0/23" },	/* bit 23 of a /23 */
		{ CFILTER_KEY_SRC4, "128.0.0.0/0" },
		{ CFILTER_KEY_SRC4, "10.0.0.0/33" },
		{ CFILTER_KEY_SRC4, "10.0.0.0/255" },
		{ CFILTER_KEY_DST4, "10.0.0.1/31" },
		{ CFILTER_KEY_ALLOW4, "10.16.0.0/11" },
		{ CFILTER_KEY_SRC6, "2001:db8::1/64" },
		{ CFILTER_KEY_SRC6, "2001:db8:0:0:8000::/64" },
		{ CFILTER_KEY_DST6, "2001:db8::/129" },
		{ CFILTER_KEY_ALLOW6, "2001:db9::/31" },
		{ CFILTER_KEY_ALLOW6, "::1/127" },
	};
	struct cfilter_key_req req;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		req = pfx(cases[i].type, cases[i].cidr);
		expect_einval(_metadata, self->fd, &req, cases[i].cidr);
	}
	/* A flow is a full 5-tuple: no prefix of it. */
	for (i = 0; i < ARRAY_SIZE(new_keys); i++) {
		if (!new_keys[i].proto)
			continue;
		req = NEW_KEY(i);
		req.key.prefix_len = 0;
		expect_einval(_metadata, self->fd, &req, new_keys[i].name);
		req.key.prefix_len = new_keys[i].af == AF_INET ? 128 : 32;
		expect_einval(_metadata, self->fd, &req, new_keys[i].name);
	}
	EXPECT_EQ(0, cf_test(self->fd, self->v4));
}

TEST_F(cf, prefixes_of_every_address_type_round_trip)
{
	static const struct typed_cidr cases[] = {
		{ CFILTER_KEY_SRC4, "192.0.2.0/24" },
		{ CFILTER_KEY_SRC4, "0.0.0.0/0" },
		{ CFILTER_KEY_SRC4, "10.0.0.0/7" },
		{ CFILTER_KEY_SRC4, "192.0.2.254/31" },
		{ CFILTER_KEY_DST4, "198.51.100.0/25" },
		{ CFILTER_KEY_ALLOW4, "203.0.113.64/26" },
		{ CFILTER_KEY_SRC6, "2001:db8::/32" },
		{ CFILTER_KEY_SRC6, "::/0" },
		{ CFILTER_KEY_DST6, "2001:db8:1:2::/64" },
		{ CFILTER_KEY_ALLOW6, "2001:db8:8000::/33" },
		{ CFILTER_KEY_ALLOW6, "2001:db8::fffe/127" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cfilter_key_req req = pfx(cases[i].type, cases[i].cidr);

		EXPECT_EQ(ENOENT, cf_test(self->fd, req)) TH_LOG("%s", cases[i].cidr);
		EXPECT_EQ(0, cf_add(self->fd, req)) TH_LOG("%s", cases[i].cidr);
		EXPECT_EQ(EEXIST, cf_add(self->fd, req)) TH_LOG("%s", cases[i].cidr);
		EXPECT_EQ(0, cf_test(self->fd, req)) TH_LOG("%s", cases[i].cidr);
		EXPECT_EQ((long long)i + 1, cf_count(self->fd));
	}
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cfilter_key_req req = pfx(cases[i].type, cases[i].cidr);

		EXPECT_EQ(0, cf_del(self->fd, req)) TH_LOG("%s", cases[i].cidr);
		EXPECT_EQ(ENOENT, cf_del(self->fd, req)) TH_LOG("%s", cases[i].cidr);
		EXPECT_EQ(ENOENT, cf_test(self->fd, req)) TH_LOG("%s", cases[i].cidr);
	}
	EXPECT_EQ(0, cf_count(self->fd));
}

/* TEST asks for this very key: not for what covers or is covered by it. */
TEST_F(cf, test_is_exact_for_prefixes)
{
	ASSERT_EQ(0, cf_add(self->fd, pfx(CFILTER_KEY_SRC4, "192.0.2.0/24")));
	ASSERT_EQ(0, cf_add(self->fd, pfx(CFILTER_KEY_SRC4, "198.51.100.7/32")));
	EXPECT_EQ(0, cf_test(self->fd, pfx(CFILTER_KEY_SRC4, "192.0.2.0/24")));
	EXPECT_EQ(ENOENT, cf_test(self->fd, pfx(CFILTER_KEY_SRC4, "192.0.2.0/25")));
	EXPECT_EQ(ENOENT, cf_test(self->fd, pfx(CFILTER_KEY_SRC4, "192.0.2.0/23")));
	EXPECT_EQ(ENOENT, cf_test(self->fd, pfx(CFILTER_KEY_SRC4, "192.0.2.0/32")));
	EXPECT_EQ(ENOENT, cf_test(self->fd, pfx(CFILTER_KEY_SRC4, "192.0.2.1/32")));
	EXPECT_EQ(ENOENT, cf_test(self->fd, pfx(CFILTER_KEY_DST4, "192.0.2.0/24")));
	EXPECT_EQ(ENOENT, cf_test(self->fd, pfx(CFILTER_KEY_SRC4, "198.51.100.0/24")));
	/* An address and the prefix of the same bits are two keys. */
	EXPECT_EQ(0, cf_add(self->fd, pfx(CFILTER_KEY_SRC4, "192.0.2.0/32")));
	EXPECT_EQ(0, cf_del(self->fd, pfx(CFILTER_KEY_SRC4, "192.0.2.0/24")));
	EXPECT_EQ(0, cf_test(self->fd, pfx(CFILTER_KEY_SRC4, "192.0.2.0/32")));
	EXPECT_EQ(ENOENT, cf_del(self->fd, pfx(CFILTER_KEY_SRC4, "192.0.2.0/25")));
	EXPECT_EQ(2, cf_count(self->fd));
}

/* TYPE_INFO's @ti counts these keys, prefixes, markers and lengths. */
static void expect_type_counts(struct __test_metadata *_metadata,
			       const struct cfilter_type_info *ti,
			       __u64 count, __u64 prefixes, __u64 markers,
			       unsigned int lengths, const char *when)
{
	EXPECT_EQ(count, ti->count) TH_LOG("%s", when);
	EXPECT_EQ(prefixes, ti->prefixes) TH_LOG("%s", when);
	EXPECT_EQ(markers, ti->prefix_markers) TH_LOG("%s", when);
	EXPECT_EQ(lengths, ti->lengths) TH_LOG("%s", when);
}

TEST_F(cf, type_info_reports_a_types_tables)
{
	static const char * const cidrs[] = {
		"10.0.0.0/8", "10.1.0.0/16", "192.168.1.0/24", "172.16.0.0/12",
		"100.64.0.0/10", "192.0.2.128/25",
	};
	struct cfilter_type_info ti, flow;
	struct cfilter_info info;
	size_t i;

	ASSERT_EQ(0, cf_type_info(self->fd, CFILTER_KEY_SRC4, 0, &ti));
	expect_type_counts(_metadata, &ti, 0, 0, 0, 0, "empty");
	/* the address table, then the four levels of the /17../31 subtree */
	EXPECT_EQ(5U, ti.probes);
	EXPECT_LT(0U, ti.capacity);
	EXPECT_LT(0U, ti.memory_bytes);

	for (i = 0; i < ARRAY_SIZE(cidrs); i++)
		ASSERT_EQ(0, cf_add(self->fd, pfx(CFILTER_KEY_SRC4, cidrs[i])));
	ASSERT_EQ(0, cf_add(self->fd, src4("198.51.100.1")));
	ASSERT_EQ(0, cf_add(self->fd, src4("198.51.100.2")));
	ASSERT_EQ(0, cf_add(self->fd, NEW_KEY(2)));	/* FLOW4 */

	ASSERT_EQ(0, cf_type_info(self->fd, CFILTER_KEY_SRC4, 0, &ti));
	EXPECT_EQ(CFILTER_KEY_SRC4, ti.type);
	/*
	 * Markers at the shorter ancestors of each length (lo(m) = m -
	 * lowbit(m)): /12 and /10 at /8, /24 at /16, /25 at /24 and /16.
	 */
	expect_type_counts(_metadata, &ti, 8, 6, 5, 6, "SRC4 added");
	EXPECT_EQ(5U, ti.probes);

	ASSERT_EQ(0, cf_type_info(self->fd, CFILTER_KEY_FLOW4, 0, &flow));
	expect_type_counts(_metadata, &flow, 1, 0, 0, 0, "FLOW4");
	EXPECT_EQ(0U, flow.probes);

	/* INFO sums the types: counts with prefixes, and the markers. */
	ASSERT_EQ(0, cf_info(self->fd, &info));
	EXPECT_EQ(9U, info.count);
	EXPECT_EQ(6U, info.prefixes);
	EXPECT_EQ(ti.prefix_markers, info.prefix_markers);
	EXPECT_LE(ti.memory_bytes + flow.memory_bytes, info.memory_bytes);

	/* A prefix gone is counted out, and its markers go with it. */
	for (i = 0; i < ARRAY_SIZE(cidrs); i++)
		ASSERT_EQ(0, cf_del(self->fd, pfx(CFILTER_KEY_SRC4, cidrs[i])));
	ASSERT_EQ(0, cf_type_info(self->fd, CFILTER_KEY_SRC4, 0, &ti));
	expect_type_counts(_metadata, &ti, 2, 0, 0, 0, "prefixes deleted");
	ASSERT_EQ(0, cf_info(self->fd, &info));
	EXPECT_EQ(3U, info.count);
	EXPECT_EQ(0U, info.prefixes);
}

TEST_F(cf, type_info_bad_arguments_are_einval)
{
	struct cfilter_type_info ti;

	EXPECT_EQ(EINVAL, cf_type_info(self->fd, CFILTER_KEY_NONE, 0, &ti));
	EXPECT_EQ(EINVAL, cf_type_info(self->fd, __CFILTER_KEY_MAX, 0, &ti));
	EXPECT_EQ(EINVAL, cf_type_info(self->fd, 200, 0, &ti));
	/* Nothing staged on this file. */
	EXPECT_EQ(EINVAL, cf_type_info(self->fd, CFILTER_KEY_SRC4,
				       CFILTER_F_STAGED, &ti));
	EXPECT_EQ(EINVAL, cf_type_info(self->fd, CFILTER_KEY_SRC4, 2, &ti));
	memset(&ti, 0, sizeof(ti));
	ti.type = CFILTER_KEY_SRC4;
	ti.pad[5] = 1;
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_TYPE_INFO, &ti));
	memset(&ti, 0, sizeof(ti));
	ti.type = CFILTER_KEY_SRC4;
	ti.pad2 = 1;
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_TYPE_INFO, &ti));
	memset(&ti, 0, sizeof(ti));
	ti.type = CFILTER_KEY_SRC4;
	ti.reserved[2] = 1;
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_TYPE_INFO, &ti));
	EXPECT_EQ(EFAULT, cf_ioctl(self->fd, CFILTER_IOC_TYPE_INFO, NULL));
}

/* MATCH: a packet description, as the kfunc takes it. */
static int cf_match(int fd, int af, const char *saddr, const char *daddr,
		    __u8 flags, __u8 proto, __u16 sport, __u16 dport,
		    __u32 *verdict)
{
	struct cfilter_match_req mr = {
		.pkt = match_pkt(af, saddr, daddr, flags, proto, sport, dport),
		.verdict = 0xdead,
	};
	int err;

	err = cf_ioctl(fd, CFILTER_IOC_MATCH, &mr);
	*verdict = mr.verdict;
	return err;
}

#define D	CFILTER_PKT_MATCH_DST
#define P	CFILTER_PKT_PORTS
/* The verdict's mark of a destination key (every key here is default's). */
#define V	CFILTER_VERDICT_DST

static const struct {
	int		af;
	const char	*saddr, *daddr;
	__u8		flags, proto;
	__u16		sport, dport;
	__u32		verdict;
} match_cases[] = {
	/* Source prefixes of many lengths (more than the levels). */
	{ AF_INET, "10.5.5.5", "8.8.8.8", 0, 0, 0, 0, CFILTER_DROP_PREFIX },
	{ AF_INET, "10.1.9.9", "8.8.8.8", 0, 0, 0, 0, CFILTER_DROP_PREFIX },
	{ AF_INET, "11.0.0.1", "8.8.8.8", 0, 0, 0, 0, CFILTER_PASS },
	{ AF_INET, "9.255.255.255", "8.8.8.8", 0, 0, 0, 0, CFILTER_PASS },
	{ AF_INET, "100.100.1.1", "8.8.8.8", 0, 0, 0, 0, CFILTER_DROP_PREFIX },
	{ AF_INET, "100.128.0.1", "8.8.8.8", 0, 0, 0, 0, CFILTER_PASS },
	{ AF_INET, "198.19.255.255", "8.8.8.8", 0, 0, 0, 0, CFILTER_DROP_PREFIX },
	{ AF_INET, "198.20.0.0", "8.8.8.8", 0, 0, 0, 0, CFILTER_PASS },
	{ AF_INET, "192.168.1.78", "8.8.8.8", 0, 0, 0, 0, CFILTER_DROP_PREFIX },
	{ AF_INET, "192.168.2.1", "8.8.8.8", 0, 0, 0, 0, CFILTER_PASS },
	{ AF_INET, "203.0.113.200", "8.8.8.8", 0, 0, 0, 0, CFILTER_DROP_PREFIX },
	{ AF_INET, "203.0.113.100", "8.8.8.8", 0, 0, 0, 0, CFILTER_PASS },
	{ AF_INET, "192.0.2.254", "8.8.8.8", 0, 0, 0, 0, CFILTER_DROP_PREFIX },
	{ AF_INET, "192.0.2.255", "8.8.8.8", 0, 0, 0, 0, CFILTER_DROP_PREFIX },
	{ AF_INET, "192.0.2.253", "8.8.8.8", 0, 0, 0, 0, CFILTER_PASS },
	/* A source address; the one next to it is not blocked. */
	{ AF_INET, "172.16.5.4", "8.8.8.8", 0, 0, 0, 0, CFILTER_DROP_SRC },
	{ AF_INET, "172.16.5.5", "8.8.8.8", 0, 0, 0, 0, CFILTER_PASS },
	/* Allow prefix inside a blocked prefix; allow address in one. */
	{ AF_INET, "10.1.2.3", "8.8.8.8", 0, 0, 0, 0, CFILTER_ALLOWED },
	{ AF_INET, "10.1.3.3", "8.8.8.8", 0, 0, 0, 0, CFILTER_DROP_PREFIX },
	{ AF_INET, "192.168.1.77", "8.8.8.8", 0, 0, 0, 0, CFILTER_ALLOWED },
	/* An allowed source that nothing blocks simply passes. */
	{ AF_INET, "198.51.100.66", "8.8.8.8", 0, 0, 0, 0, CFILTER_PASS },
	/* Destinations: only with MATCH_DST; the source comes first. */
	{ AF_INET, "8.8.8.8", "203.0.113.9", D, 0, 0, 0, CFILTER_DROP_PREFIX | V },
	{ AF_INET, "8.8.8.8", "203.0.113.9", 0, 0, 0, 0, CFILTER_PASS },
	{ AF_INET, "8.8.8.8", "198.51.100.7", D, 0, 0, 0, CFILTER_DROP_DST | V },
	{ AF_INET, "8.8.8.8", "198.51.100.8", D, 0, 0, 0, CFILTER_PASS },
	{ AF_INET, "172.16.5.4", "203.0.113.9", D, 0, 0, 0, CFILTER_DROP_SRC },
	{ AF_INET, "10.9.9.9", "198.51.100.7", D, 0, 0, 0, CFILTER_DROP_PREFIX },
	{ AF_INET, "10.1.2.3", "198.51.100.7", D, 0, 0, 0, CFILTER_ALLOWED },
	{ AF_INET, "198.51.100.66", "198.51.100.7", D, 0, 0, 0, CFILTER_ALLOWED },
	/* Flows: only with ports, after addresses. */
	{ AF_INET, "1.2.3.4", "5.6.7.8", P, IPPROTO_TCP, 1000, 80, CFILTER_DROP_FLOW },
	{ AF_INET, "1.2.3.4", "5.6.7.8", P, IPPROTO_TCP, 1000, 81, CFILTER_PASS },
	{ AF_INET, "1.2.3.4", "5.6.7.8", P, IPPROTO_UDP, 1000, 80, CFILTER_PASS },
	{ AF_INET, "1.2.3.4", "5.6.7.8", 0, IPPROTO_TCP, 0, 0, CFILTER_PASS },
	{ AF_INET, "1.2.3.4", "203.0.113.1", D | P, IPPROTO_TCP, 1000, 80,
	  CFILTER_DROP_PREFIX | V },
	/* IPv6. */
	{ AF_INET6, "2001:db8:1:5::1", "2001:db8::9", 0, 0, 0, 0, CFILTER_DROP_PREFIX },
	{ AF_INET6, "2001:db8:1:2::1", "2001:db8::9", 0, 0, 0, 0, CFILTER_ALLOWED },
	{ AF_INET6, "2001:db8:2::1", "2001:db8::9", 0, 0, 0, 0, CFILTER_PASS },
	{ AF_INET6, "2001:db8:2::7", "2001:db8::9", 0, 0, 0, 0, CFILTER_DROP_SRC },
	{ AF_INET6, "2001:db8:2::1", "2001:db8:ff::5", D, 0, 0, 0, CFILTER_DROP_PREFIX | V },
	{ AF_INET6, "2001:db8:2::1", "2001:db8:ff:1::5", D, 0, 0, 0, CFILTER_PASS },
	{ AF_INET6, "2001:db8:2::1", "2001:db8:ff:1::5", D | P, IPPROTO_UDP, 53,
	  53, CFILTER_DROP_FLOW },
	/* The same bits in the other family are another key. */
	{ AF_INET6, "a00::1", "2001:db8::9", 0, 0, 0, 0, CFILTER_PASS },
};

#undef D
#undef V
#undef P

/* The set of keys match_cases[] runs against. */
static void add_match_keys(struct __test_metadata *_metadata, int fd)
{
	static const struct typed_cidr keys[] = {
		{ CFILTER_KEY_SRC4, "10.0.0.0/8" },
		{ CFILTER_KEY_SRC4, "10.1.0.0/16" },
		{ CFILTER_KEY_SRC4, "100.64.0.0/10" },
		{ CFILTER_KEY_SRC4, "198.18.0.0/15" },
		{ CFILTER_KEY_SRC4, "192.168.1.0/24" },
		{ CFILTER_KEY_SRC4, "203.0.113.128/25" },
		{ CFILTER_KEY_SRC4, "192.0.2.254/31" },
		{ CFILTER_KEY_SRC4, "172.16.5.4/32" },
		{ CFILTER_KEY_ALLOW4, "10.1.2.0/24" },
		{ CFILTER_KEY_ALLOW4, "192.168.1.77/32" },
		{ CFILTER_KEY_ALLOW4, "198.51.100.66/32" },
		{ CFILTER_KEY_DST4, "203.0.113.0/24" },
		{ CFILTER_KEY_DST4, "198.51.100.7/32" },
		{ CFILTER_KEY_SRC6, "2001:db8:1::/48" },
		{ CFILTER_KEY_SRC6, "2001:db8:2::7/128" },
		{ CFILTER_KEY_ALLOW6, "2001:db8:1:2::/64" },
		{ CFILTER_KEY_DST6, "2001:db8:ff::/64" },
	};
	struct cfilter_key_req flow4 = req_of(CFILTER_KEY_FLOW4, AF_INET,
					      "1.2.3.4", "5.6.7.8", IPPROTO_TCP,
					      1000, 80);
	struct cfilter_key_req flow6 = req_of(CFILTER_KEY_FLOW6, AF_INET6,
					      "2001:db8:2::1", "2001:db8:ff:1::5",
					      IPPROTO_UDP, 53, 53);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		ASSERT_EQ(0, cf_add(fd, pfx(keys[i].type, keys[i].cidr)));
	ASSERT_EQ(0, cf_add(fd, flow4));
	ASSERT_EQ(0, cf_add(fd, flow6));
}

static void expect_match_cases(struct __test_metadata *_metadata, int fd)
{
	__u32 v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(match_cases); i++) {
		ASSERT_EQ(0, cf_match(fd, match_cases[i].af,
				      match_cases[i].saddr, match_cases[i].daddr,
				      match_cases[i].flags, match_cases[i].proto,
				      match_cases[i].sport, match_cases[i].dport,
				      &v));
		EXPECT_EQ(match_cases[i].verdict, v)
			TH_LOG("match_cases[%zu]: verdict %u, expected %u "
			       "(enum cfilter_verdict)", i, v,
			       match_cases[i].verdict);
	}
}

TEST_F(cf, match_verdicts)
{
	__u32 v;

	/* Nothing stored: everything passes. */
	ASSERT_EQ(0, cf_match(self->fd, AF_INET, "10.1.1.1", "203.0.113.9",
			      CFILTER_PKT_MATCH_DST, 0, 0, 0, &v));
	EXPECT_EQ((__u32)CFILTER_PASS, v);
	add_match_keys(_metadata, self->fd);
	expect_match_cases(_metadata, self->fd);

	/* Deleting the /16 leaves 10.1.9.9 in the /8; deleting that frees it. */
	ASSERT_EQ(0, cf_del(self->fd, pfx(CFILTER_KEY_SRC4, "10.1.0.0/16")));
	ASSERT_EQ(0, cf_match(self->fd, AF_INET, "10.1.9.9", "8.8.8.8", 0, 0,
			      0, 0, &v));
	EXPECT_EQ((__u32)CFILTER_DROP_PREFIX, v);
	ASSERT_EQ(0, cf_del(self->fd, pfx(CFILTER_KEY_SRC4, "10.0.0.0/8")));
	ASSERT_EQ(0, cf_match(self->fd, AF_INET, "10.1.9.9", "8.8.8.8", 0, 0,
			      0, 0, &v));
	EXPECT_EQ((__u32)CFILTER_PASS, v);
	/* A /0 covers every source of its family. */
	ASSERT_EQ(0, cf_add(self->fd, pfx(CFILTER_KEY_SRC4, "0.0.0.0/0")));
	ASSERT_EQ(0, cf_match(self->fd, AF_INET, "1.1.1.1", "8.8.8.8", 0, 0,
			      0, 0, &v));
	EXPECT_EQ((__u32)CFILTER_DROP_PREFIX, v);
	ASSERT_EQ(0, cf_match(self->fd, AF_INET6, "2001:db8:9::1", "::1", 0, 0,
			      0, 0, &v));
	EXPECT_EQ((__u32)CFILTER_PASS, v);
}

TEST_F(cf, match_bad_requests_are_einval)
{
	struct cfilter_match_req mr;
	unsigned int i;

	memset(&mr, 0, sizeof(mr));
	mr.pkt.family = 4;
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_MATCH, &mr));
	EXPECT_EQ((__u32)CFILTER_PASS, mr.verdict);
	mr.flags = 1;
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_MATCH, &mr));
	mr.flags = 0;
	mr.reserved[1] = 1;
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_MATCH, &mr));
	mr.reserved[1] = 0;
	mr.pkt.family = 5;
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_MATCH, &mr));
	mr.pkt.family = 4;
	/* any bit past an IPv4 address, in the source or the destination */
	for (i = 4; i < 16; i++) {
		mr.pkt.saddr[i] = 1U << (i % 8);
		EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_MATCH, &mr));
		mr.pkt.saddr[i] = 0;
		mr.pkt.daddr[i] = 0x80;
		EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_MATCH, &mr));
		mr.pkt.daddr[i] = 0;
	}
	mr.pkt.pad = 1;
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_MATCH, &mr));
	mr.pkt.pad = 0;
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_MATCH, &mr));
	mr.pkt.flags = 0x80;
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_MATCH, &mr));
	mr.pkt.flags = CFILTER_PKT_PORTS;
	mr.pkt.proto = IPPROTO_ICMPV6;	/* in IPv4 */
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_MATCH, &mr));
	mr.pkt.flags = 0;
	mr.pkt.proto = 0;
	mr.pkt.sport = htons(1);	/* ports without CFILTER_PKT_PORTS */
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_MATCH, &mr));
	EXPECT_EQ(EFAULT, cf_ioctl(self->fd, CFILTER_IOC_MATCH, NULL));
}

/* BATCH takes prefixes too, and checks their host bits before anything. */
TEST_F(cf, batch_of_prefixes)
{
	struct cfilter_key keys[3];
	__s32 results[3];
	struct cfilter_batch b;

	keys[0] = pfx(CFILTER_KEY_SRC4, "192.0.2.0/24").key;
	keys[1] = pfx(CFILTER_KEY_SRC6, "2001:db8::/32").key;
	keys[2] = pfx(CFILTER_KEY_SRC4, "192.0.2.1/24").key;
	memset(&b, 0, sizeof(b));
	b.op = CFILTER_BATCH_ADD;
	b.keys = (uintptr_t)keys;
	b.results = (uintptr_t)results;
	b.count = 3;
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_BATCH, &b));
	EXPECT_EQ(2U, b.first_error);
	EXPECT_EQ(0, cf_count(self->fd));

	b.count = 2;
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_BATCH, &b));
	EXPECT_EQ(2U, b.first_error);
	EXPECT_EQ(0, results[0]);
	EXPECT_EQ(0, results[1]);
	b.op = CFILTER_BATCH_TEST;
	keys[1].prefix_len = 33;	/* 2001:db8::/33: not stored */
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_BATCH, &b));
	EXPECT_EQ(0, results[0]);
	EXPECT_EQ(-ENOENT, results[1]);
	EXPECT_EQ(2, cf_count(self->fd));
}

/* LIST reports prefixes with their lengths, beside addresses. */
TEST_F(cf, list_reports_prefixes)
{
	struct cfilter_entry keys[8];
	struct cfilter_list l;
	bool seen24 = false, seen32 = false, seen48 = false;
	__u32 i;

	ASSERT_EQ(0, cf_add(self->fd, pfx(CFILTER_KEY_SRC4, "192.0.2.0/24")));
	ASSERT_EQ(0, cf_add(self->fd, pfx(CFILTER_KEY_SRC4, "192.0.2.0/32")));
	ASSERT_EQ(0, cf_add(self->fd, pfx(CFILTER_KEY_DST6, "2001:db8:1::/48")));
	memset(&l, 0, sizeof(l));
	l.entries = (uintptr_t)keys;
	l.max = 8;
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_LIST, &l));
	ASSERT_EQ(3U, l.count);
	for (i = 0; i < l.count; i++) {
		struct cfilter_key want24 = pfx(CFILTER_KEY_SRC4, "192.0.2.0/24").key;
		struct cfilter_key want32 = pfx(CFILTER_KEY_SRC4, "192.0.2.0/32").key;
		struct cfilter_key want48 = pfx(CFILTER_KEY_DST6, "2001:db8:1::/48").key;

		seen24 |= !memcmp(&keys[i].key, &want24, sizeof(want24));
		seen32 |= !memcmp(&keys[i].key, &want32, sizeof(want32));
		seen48 |= !memcmp(&keys[i].key, &want48, sizeof(want48));
	}
	EXPECT_TRUE(seen24);
	EXPECT_TRUE(seen32);
	EXPECT_TRUE(seen48);
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_LIST, &l));
	EXPECT_EQ(0U, l.count);
}

/*
 * Random prefixes of every length against a model: a random address gets
 * DROP_PREFIX exactly when a stored prefix covers it (exact mode has no
 * false positives), while prefixes come and go and the expansion is
 * re-planned under them.
 */
#define MODEL_PREFIXES	300
#define MODEL_PROBES	3000

/* The verdict the model gives @addr: a /32 is an address, first. */
static __u32 model_verdict(const __u32 *net, const __u8 *len, const bool *live,
			   unsigned int n, __u32 addr)
{
	__u32 verdict = CFILTER_PASS;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!live[i] || ((addr ^ net[i]) >> (32 - len[i])))
			continue;
		if (len[i] == 32)
			return CFILTER_DROP_SRC;
		verdict = CFILTER_DROP_PREFIX;
	}
	return verdict;
}

/* Is prefix @i the same as an earlier one? */
static bool model_dup(const __u32 *net, const __u8 *len, unsigned int i)
{
	unsigned int j;

	for (j = 0; j < i; j++)
		if (net[j] == net[i] && len[j] == len[i])
			return true;
	return false;
}

TEST_F(cf, match_agrees_with_a_model_of_random_prefixes)
{
	static __u32 net[MODEL_PREFIXES];
	static __u8 len[MODEL_PREFIXES];
	static bool live[MODEL_PREFIXES];
	struct cfilter_match_req mr;
	struct cfilter_key_req req;
	unsigned int i, round, wrong = 0, hits = 0;
	__u32 x = 12345, addr;

	/* Inside 10.0.0.0/8, /14 to /32: overlapping, neither sparse nor full. */
	for (i = 0; i < MODEL_PREFIXES; i++) {
		do {
			x = x * 1664525U + 1013904223U;
			len[i] = 14 + (x >> 8) % 19;
			x = x * 1664525U + 1013904223U;
			net[i] = (0x0a000000U | (x >> 8)) &
				 (0xffffffffU << (32 - len[i]));
		} while (model_dup(net, len, i));
	}
	for (round = 0; round < 3; round++) {
		/* Round 0 adds all, then each round deletes or re-adds a third. */
		for (i = 0; i < MODEL_PREFIXES; i++) {
			bool want = round == 0 || (i % 3 == round ? !live[i] : live[i]);
			int err;

			if (want == live[i] && round)
				continue;
			memset(&req, 0, sizeof(req));
			req.key.type = CFILTER_KEY_SRC4;
			req.key.prefix_len = len[i];
			addr = htonl(net[i]);
			memcpy(req.key.saddr, &addr, 4);
			err = cf_ioctl(self->fd, want ? CFILTER_IOC_ADD :
				       CFILTER_IOC_DEL, &req);
			ASSERT_EQ(0, err);
			live[i] = want;
		}
		for (i = 0; i < MODEL_PROBES; i++) {
			__u32 want;

			/* Anywhere in 10/8, or inside one of the prefixes. */
			x = x * 1664525U + 1013904223U;
			addr = 0x0a000000U | (x >> 8);
			if (i % 2)
				addr = net[x % MODEL_PREFIXES] |
				       (addr & ~(0xffffffffU << (32 - len[x % MODEL_PREFIXES])));
			want = model_verdict(net, len, live, MODEL_PREFIXES,
					     addr);
			memset(&mr, 0, sizeof(mr));
			mr.pkt.family = 4;
			addr = htonl(addr);
			memcpy(mr.pkt.saddr, &addr, 4);
			ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_MATCH, &mr));
			if (mr.verdict != want && !wrong++)
				TH_LOG("round %u: 0x%08x: verdict %u, model %u",
				       round, ntohl(addr), mr.verdict, want);
			hits += want != CFILTER_PASS;
		}
	}
	TH_LOG("%u probes, %u covered, %u wrong", 3 * MODEL_PROBES, hits, wrong);
	EXPECT_EQ(0U, wrong);
	EXPECT_LT(3U * MODEL_PROBES / 10, hits);
	EXPECT_GT(3U * MODEL_PROBES * 9 / 10, hits);
}

/* Exact mode lists its keys: raw tables are for compact mode only. */
TEST_F(cf, dump_and_restore_need_compact_mode)
{
	struct cfilter_table t;
	char buf[64];

	memset(&t, 0, sizeof(t));
	t.type = CFILTER_KEY_SRC4;
	t.data = (uintptr_t)buf;
	t.size = sizeof(buf);
	EXPECT_EQ(EOPNOTSUPP, cf_ioctl(self->fd, CFILTER_IOC_DUMP, &t));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
	EXPECT_EQ(EOPNOTSUPP, cf_ioctl(self->fd, CFILTER_IOC_RESTORE, &t));
	EXPECT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ABORT, NULL));
}

/* Compact mode, for DUMP: the module reloaded, the device open. */
FIXTURE(compact) {
	int fd;
};

FIXTURE_SETUP(compact)
{
	int err;

	self->fd = -1;
	RELOAD_SETUP_UNLOAD();
	err = module_load("mode=compact");
	ASSERT_EQ(0, err) TH_LOG("loading in compact mode: %s", strerror(err));
	self->fd = open(CFILTER_DEVICE, O_RDWR);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(compact)
{
	if (self->fd >= 0)
		close(self->fd);
	RELOAD_TEARDOWN_DEFAULTS();
}

/* An ioctl run in a thread of its own, which writes a byte to @done after. */
struct call {
	int fd;
	unsigned long cmd;
	void *arg;
	int err;
	int done;
};

static void *call_thread(void *p)
{
	struct call *c = p;

	c->err = cf_ioctl(c->fd, c->cmd, c->arg);
	if (write(c->done, "", 1) != 1)
		c->err = -1;
	return NULL;
}

/* Did a call_thread() write to the pipe @done_r within @ms milliseconds? */
static bool call_returned(int done_r, int ms)
{
	struct pollfd p = { .fd = done_r, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

/*
 * A copy to user space may wait on the caller's memory for as long as the
 * caller likes (a userfaultfd that serves no fault): DUMP must not hold the
 * writer lock meanwhile, or expiry and every writer wait with it. Here
 * DUMP's buffer faults and is not served until an ADD has returned, or
 * 10 s have passed: a bound far past an ADD, not a measurement.
 */
TEST_F(compact, dump_copies_out_without_holding_the_writer_lock)
{
	struct cfilter_key_req req = src4("192.0.2.1");
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct call dump = { .fd = self->fd, .cmd = CFILTER_IOC_DUMP };
	struct call add = { .fd = self->fd, .cmd = CFILTER_IOC_ADD };
	struct pollfd fault;
	struct uffd_msg msg;
	pthread_t dumper, adder;
	struct cfilter_table t;
	int uffd, done[2];
	bool added;
	size_t len;
	void *buf;

	ASSERT_EQ(0, cf_add(self->fd, src4("198.51.100.1")));
	memset(&t, 0, sizeof(t));
	t.type = CFILTER_KEY_SRC4;
	t.flags = CFILTER_TABLE_MIX32;
	ASSERT_EQ(ENOSPC, cf_ioctl(self->fd, CFILTER_IOC_DUMP, &t));
	len = (t.size + getpagesize() - 1) / getpagesize() * getpagesize();
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	ASSERT_LE(0, uffd) TH_LOG("userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api));
	reg.range.start = (uintptr_t)buf;
	reg.range.len = len;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &reg));
	ASSERT_EQ(0, pipe(done));

	t.data = (uintptr_t)buf;
	dump.arg = &t;
	dump.done = done[1];
	ASSERT_EQ(0, pthread_create(&dumper, NULL, call_thread, &dump));
	fault = (struct pollfd){ .fd = uffd, .events = POLLIN };
	ASSERT_EQ(1, poll(&fault, 1, 10000)) TH_LOG("DUMP never touched its buffer");
	ASSERT_EQ((ssize_t)sizeof(msg), read(uffd, &msg, sizeof(msg)));
	EXPECT_EQ(UFFD_EVENT_PAGEFAULT, msg.event);

	/* DUMP now waits on its buffer: an ADD must not wait on DUMP. */
	add.arg = &req;
	add.done = done[1];
	ASSERT_EQ(0, pthread_create(&adder, NULL, call_thread, &add));
	added = call_returned(done[0], 10000);
	EXPECT_TRUE(added) TH_LOG("ADD still waiting after 10 s: DUMP held the lock while its copy waited");
	/* Closing the userfaultfd serves the fault: DUMP goes on, either way. */
	close(uffd);
	pthread_join(dumper, NULL);
	pthread_join(adder, NULL);
	EXPECT_EQ(0, add.err);
	EXPECT_EQ(0, dump.err);
	EXPECT_EQ(1ULL, t.count);
	close(done[0]);
	close(done[1]);
	munmap(buf, len);
}

TEST(device_node_is_char_0600)
{
	struct stat st;

	ASSERT_EQ(0, stat(CFILTER_DEVICE, &st)) TH_LOG("stat %s: %s",
						       CFILTER_DEVICE,
						       strerror(errno));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0600U, st.st_mode & 07777);
	EXPECT_EQ(MISC_MAJOR_NR, major(st.st_rdev));
	EXPECT_EQ(0U, st.st_uid);
}

TEST_HARNESS_MAIN
