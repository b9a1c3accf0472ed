// SPDX-License-Identifier: GPL-2.0
/*
 * The programs' prefilter (CFILTER_IOC_PREFILTER, struct cfilter_prefilter):
 * the module keeps a bit per source /16, and one per destination /16, in
 * each map it is handed, set exactly where the live set may drop a
 * packet, through adds, deletes,
 * replaces and clears; it refuses maps of another shape and callers
 * without CAP_NET_ADMIN, and keeps a bounded number of maps, dropping
 * those no program holds any more, and lets them all go when unloaded.
 * The programs' use of the bits is tested in test_xdp and pkt_fuzz (their
 * programs read them).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include <bpf/bpf.h>
#include <linux/cfilter.h>

#include "kselftest_harness.h"
#include "harness_timeout.h"
#include "helpers.h"

#define SLOTS	(CFILTER_PREFILTER_WORDS * 64)

/* A map of the prefilter's shape, made as a program's would be. */
static int prefilter_map(__u32 flags)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = flags);

	return bpf_map_create(BPF_MAP_TYPE_ARRAY, "cf_prefilter", sizeof(__u32),
			      sizeof(struct cfilter_prefilter), 1, &opts);
}

static int hand_over(int dev, int map)
{
	struct cfilter_prefilter_req r = { .map_fd = map };

	return cf_ioctl(dev, CFILTER_IOC_PREFILTER, &r);
}

FIXTURE(prefilter) {
	int fd;
	int map;
	struct cfilter_prefilter pf;
};

FIXTURE_SETUP(prefilter)
{
	SETUP_OPEN_EMPTY(self->fd);
	self->map = prefilter_map(0);
	ASSERT_LE(0, self->map) TH_LOG("bpf_map_create: %s", strerror(errno));
	ASSERT_EQ(0, hand_over(self->fd, self->map));
}

FIXTURE_TEARDOWN(prefilter)
{
	if (self->map >= 0)
		close(self->map);
	teardown_close_empty(self->fd);
}

/* Reads the map into self->pf. */
static void read_map(struct __test_metadata *_metadata,
		     FIXTURE_DATA(prefilter) *self)
{
	__u32 zero = 0;

	ASSERT_EQ(0, bpf_map_lookup_elem(self->map, &zero, &self->pf))
		TH_LOG("reading the prefilter map: %s", strerror(errno));
	ASSERT_EQ(1ULL, self->pf.ready);
}

/* The bitmaps by name: S4, S6, D4, D6. */
#define S4	CFILTER_PREFILTER_SRC4
#define S6	CFILTER_PREFILTER_SRC6
#define D4	CFILTER_PREFILTER_DST4
#define D6	CFILTER_PREFILTER_DST6

static bool bit(const struct cfilter_prefilter *pf, unsigned int b,
		unsigned int slot)
{
	return pf->bits[b][slot / 64] >> (slot % 64) & 1;
}

static int nbits(const struct cfilter_prefilter *pf, unsigned int b)
{
	unsigned int slot;
	int n = 0;

	for (slot = 0; slot < SLOTS; slot++)
		n += bit(pf, b, slot);
	return n;
}

/* Set bits in every bitmap but @b. */
static int nbits_but(const struct cfilter_prefilter *pf, unsigned int b)
{
	unsigned int i;
	int n = 0;

	for (i = 0; i < __CFILTER_PREFILTER_BITS; i++)
		n += i == b ? 0 : nbits(pf, i);
	return n;
}

static int key(int fd, unsigned long cmd, __u8 type, const char *cidr)
{
	struct cfilter_key_req req = { .key = key_of(type, cidr) };

	return cf_ioctl(fd, cmd, &req);
}

#define ADD(type, cidr) \
	ASSERT_EQ(0, key(self->fd, CFILTER_IOC_ADD, CFILTER_KEY_##type, cidr))
#define DEL(type, cidr) \
	ASSERT_EQ(0, key(self->fd, CFILTER_IOC_DEL, CFILTER_KEY_##type, cidr))

TEST_F(prefilter, starts_empty_and_ready)
{
	read_map(_metadata, self);
	EXPECT_EQ(0, nbits_but(&self->pf, __CFILTER_PREFILTER_BITS));
}

TEST_F(prefilter, source_addresses_mark_their_slash_16)
{
	ADD(SRC4, "10.1.2.3");
	ADD(SRC6, "2001:db8::1");
	read_map(_metadata, self);
	EXPECT_EQ(1, nbits(&self->pf, S4));
	EXPECT_TRUE(bit(&self->pf, S4, 10 << 8 | 1));
	EXPECT_EQ(1, nbits(&self->pf, S6));
	EXPECT_TRUE(bit(&self->pf, S6, 0x2001));

	/* A second key in the same /16: the bit stays until both are gone. */
	ADD(SRC4, "10.1.200.0/24");
	DEL(SRC4, "10.1.2.3");
	read_map(_metadata, self);
	EXPECT_TRUE(bit(&self->pf, S4, 10 << 8 | 1));
	DEL(SRC4, "10.1.200.0/24");
	DEL(SRC6, "2001:db8::1");
	read_map(_metadata, self);
	EXPECT_EQ(0, nbits(&self->pf, S4));
	EXPECT_EQ(0, nbits(&self->pf, S6));
}

TEST_F(prefilter, short_prefixes_mark_every_slash_16_they_cover)
{
	ADD(SRC4, "192.168.0.0/15");
	ADD(SRC4, "64.0.0.0/6");
	ADD(SRC6, "2400::/12");
	read_map(_metadata, self);
	EXPECT_EQ(2 + 1024, nbits(&self->pf, S4));
	EXPECT_TRUE(bit(&self->pf, S4, 192 << 8 | 168));
	EXPECT_TRUE(bit(&self->pf, S4, 192 << 8 | 169));
	EXPECT_FALSE(bit(&self->pf, S4, 192 << 8 | 170));
	EXPECT_TRUE(bit(&self->pf, S4, 64 << 8));
	EXPECT_TRUE(bit(&self->pf, S4, 67 << 8 | 255));
	EXPECT_FALSE(bit(&self->pf, S4, 68 << 8));
	EXPECT_EQ(16, nbits(&self->pf, S6));
	EXPECT_TRUE(bit(&self->pf, S6, 0x240f));
	DEL(SRC4, "64.0.0.0/6");
	read_map(_metadata, self);
	EXPECT_EQ(2, nbits(&self->pf, S4));

	/* /0 covers everything. */
	ADD(SRC6, "::/0");
	read_map(_metadata, self);
	EXPECT_EQ(SLOTS, nbits(&self->pf, S6));
	DEL(SRC6, "::/0");
	read_map(_metadata, self);
	EXPECT_EQ(16, nbits(&self->pf, S6));
}

/* Destination entries mark bitmaps of their own. */
TEST_F(prefilter, destination_keys_mark_the_destination_bits)
{
	ADD(DST4, "10.0.0.1");
	ADD(DST6, "2001:db8::/48");
	ADD(DST6, "2400::/12");
	read_map(_metadata, self);
	EXPECT_EQ(1, nbits(&self->pf, D4));
	EXPECT_TRUE(bit(&self->pf, D4, 10 << 8));
	EXPECT_EQ(17, nbits(&self->pf, D6));
	EXPECT_TRUE(bit(&self->pf, D6, 0x2001));
	EXPECT_TRUE(bit(&self->pf, D6, 0x240f));
	EXPECT_EQ(0, nbits(&self->pf, S4) + nbits(&self->pf, S6));
	DEL(DST4, "10.0.0.1");
	DEL(DST6, "2400::/12");
	read_map(_metadata, self);
	EXPECT_EQ(0, nbits(&self->pf, D4));
	EXPECT_EQ(1, nbits(&self->pf, D6));
}

/* A flow is looked up by its whole 5-tuple: every source bit of its family. */
TEST_F(prefilter, flow_keys_mark_every_source_bit_of_their_family)
{
	struct cfilter_key_req flow = {
		.key = flow_key(CFILTER_KEY_FLOW6, AF_INET6, "2001:db8::1",
				"2001:db8::2", IPPROTO_TCP, 1, 2),
	};

	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &flow));
	read_map(_metadata, self);
	EXPECT_EQ(SLOTS, nbits(&self->pf, S6));
	EXPECT_EQ(0, nbits_but(&self->pf, S6));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_DEL, &flow));
	read_map(_metadata, self);
	EXPECT_EQ(0, nbits(&self->pf, S6));
}

/* An allow entry only lifts a drop: it marks nothing. */
TEST_F(prefilter, allow_keys_mark_nothing)
{
	ADD(ALLOW4, "10.1.2.3");
	ADD(ALLOW6, "2001:db8::/32");
	read_map(_metadata, self);
	EXPECT_EQ(0, nbits_but(&self->pf, __CFILTER_PREFILTER_BITS));
}

TEST_F(prefilter, a_replace_brings_the_new_sets_bits_only)
{
	struct cfilter_key_req req = {
		.key = key_of(CFILTER_KEY_SRC4, "172.16.0.1"),
		.flags = CFILTER_F_STAGED,
	};

	ADD(SRC4, "10.1.2.3");
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req));
	read_map(_metadata, self);
	EXPECT_EQ(1, nbits(&self->pf, S4));	/* staged: not yet */
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	read_map(_metadata, self);
	EXPECT_EQ(1, nbits(&self->pf, S4));
	EXPECT_TRUE(bit(&self->pf, S4, 172 << 8 | 16));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_CLEAR, NULL));
	read_map(_metadata, self);
	EXPECT_EQ(0, nbits(&self->pf, S4));
}

/* A map handed over after the keys: filled at once. */
TEST_F(prefilter, a_late_map_is_filled)
{
	int late;

	ADD(SRC4, "10.1.2.3");
	ADD(SRC6, "2a00:1450::/29");
	late = prefilter_map(0);
	ASSERT_LE(0, late);
	ASSERT_EQ(0, hand_over(self->fd, late));
	close(self->map);
	self->map = late;
	read_map(_metadata, self);
	EXPECT_EQ(1, nbits(&self->pf, S4));
	EXPECT_EQ(1, nbits(&self->pf, S6));
	EXPECT_TRUE(bit(&self->pf, S6, 0x2a00));
}

TEST_F(prefilter, maps_of_another_shape_are_refused)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	int m;

	m = bpf_map_create(BPF_MAP_TYPE_ARRAY, "small", 4, 8, 1, &opts);
	ASSERT_LE(0, m);
	EXPECT_EQ(EINVAL, hand_over(self->fd, m));
	close(m);
	m = bpf_map_create(BPF_MAP_TYPE_ARRAY, "two", 4,
			   sizeof(struct cfilter_prefilter), 2, &opts);
	ASSERT_LE(0, m);
	EXPECT_EQ(EINVAL, hand_over(self->fd, m));
	close(m);
	m = bpf_map_create(BPF_MAP_TYPE_HASH, "hash", 4,
			   sizeof(struct cfilter_prefilter), 1, &opts);
	ASSERT_LE(0, m);
	EXPECT_EQ(EINVAL, hand_over(self->fd, m));
	close(m);
	/* Frozen, it would let the verifier fold the bits into a program. */
	m = prefilter_map(BPF_F_RDONLY_PROG);
	ASSERT_LE(0, m);
	EXPECT_EQ(EINVAL, hand_over(self->fd, m));
	close(m);
	/* No map at all. */
	EXPECT_EQ(EINVAL, hand_over(self->fd, self->fd));
	EXPECT_EQ(EBADF, hand_over(self->fd, -1));
}

TEST_F(prefilter, flags_must_be_zero)
{
	struct cfilter_prefilter_req r = { .map_fd = self->map, .flags = 1 };

	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_PREFILTER, &r));
}

static void hand_over_as_nobody(int fd, const void *arg, void *result)
{
	*(int *)result = hand_over(fd, *(const int *)arg);
}

TEST_F(prefilter, needs_cap_net_admin_and_a_writable_descriptor)
{
	int ro, err, ret;

	ret = run_as_nobody(hand_over_as_nobody, self->fd, &self->map, &err,
			    sizeof(err));
	ASSERT_EQ(0, ret);
	EXPECT_EQ(EPERM, err);
	ro = open(CFILTER_DEVICE, O_RDONLY);
	ASSERT_LE(0, ro);
	EXPECT_EQ(EBADF, hand_over(ro, self->map));
	close(ro);
}

/*
 * At most CFILTER_PREFILTERS_MAX maps in use; one only the module holds
 * (its program is gone) makes room at the next handover.
 */
TEST_F(prefilter, kept_maps_are_bounded_and_released)
{
	int maps[CFILTER_PREFILTERS_MAX + 1], n, i, err = 0, last;

	for (n = 0; n <= CFILTER_PREFILTERS_MAX; n++) {
		maps[n] = prefilter_map(0);
		ASSERT_LE(0, maps[n]);
		err = hand_over(self->fd, maps[n]);
		if (err)
			break;
	}
	EXPECT_EQ(ENOSPC, err);
	/* this test's map and test_xdp's, if any, are held too */
	EXPECT_GE(CFILTER_PREFILTERS_MAX, n);
	for (i = 0; i <= n && i <= CFILTER_PREFILTERS_MAX; i++)
		close(maps[i]);
	last = prefilter_map(0);
	ASSERT_LE(0, last);
	EXPECT_EQ(0, hand_over(self->fd, last));
	close(last);
}

FIXTURE(prefilter_reload) {
	int fd;
	int map;
};

FIXTURE_SETUP(prefilter_reload)
{
	self->fd = -1;
	self->map = -1;
	RELOAD_SETUP_UNLOAD();
}

FIXTURE_TEARDOWN(prefilter_reload)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->map >= 0)
		close(self->map);
	RELOAD_TEARDOWN_DEFAULTS();
}

/*
 * A compact table keeps no summary of its addresses: while it holds any,
 * every bit of the family is set. Unloaded, the module lets its maps go.
 */
TEST_F(prefilter_reload, compact_addresses_set_every_bit_and_unload_clears_ready)
{
	struct cfilter_key_req req = { .key = key_of(CFILTER_KEY_SRC4, "10.1.2.3") };
	struct cfilter_prefilter *pf;
	__u32 zero = 0;
	int err;

	pf = calloc(1, sizeof(*pf));
	ASSERT_NE(NULL, pf);
	err = module_load("mode=compact");
	ASSERT_EQ(0, err) TH_LOG("loading in compact mode: %s", strerror(err));
	self->fd = open(CFILTER_DEVICE, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->map = prefilter_map(0);
	ASSERT_LE(0, self->map);
	ASSERT_EQ(0, hand_over(self->fd, self->map));

	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req));
	ASSERT_EQ(0, bpf_map_lookup_elem(self->map, &zero, pf));
	EXPECT_EQ(1ULL, pf->ready);
	EXPECT_EQ(SLOTS, nbits(pf, S4));
	EXPECT_EQ(0, nbits(pf, S6));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_DEL, &req));
	ASSERT_EQ(0, bpf_map_lookup_elem(self->map, &zero, pf));
	EXPECT_EQ(0, nbits(pf, S4));

	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req));
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, module_wait_unused());
	ASSERT_EQ(0, module_unload());
	ASSERT_EQ(0, bpf_map_lookup_elem(self->map, &zero, pf));
	EXPECT_EQ(0ULL, pf->ready);
	free(pf);
}

TEST_HARNESS_MAIN
