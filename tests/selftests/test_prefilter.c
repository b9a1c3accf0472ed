// SPDX-License-Identifier: GPL-2.0
/*
 * The programs' prefilter (CFILTER_IOC_PREFILTER, struct cfilter_prefilter):
 * the module keeps a bit per source /16, and one per destination /16, in
 * each map it is handed, set exactly where a member up to /16 (or a flow)
 * may drop a packet; a hashed bit for each address, set whenever it is
 * held and cleared once deletes left enough behind; and the /16 flags and
 * block bits of longer prefixes as the prefix set's summary has them,
 * through adds, deletes, replaces and clears (and in compact mode a
 * record of the addresses added). It refuses maps of another shape, maps
 * whose value holds fields the BPF core owns (timers, locks, kptrs),
 * descriptors that may not write the map and callers without
 * CAP_NET_ADMIN, and keeps a bounded number of maps, dropping those no
 * program holds any more, and lets them all go when unloaded.
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
#include <bpf/btf.h>
#include <linux/cfilter.h>

#include "kselftest_harness.h"
#include "harness_timeout.h"
#include "helpers.h"

#define SLOTS	(CFILTER_PREFILTER_WORDS * 64)
/* The hashed words of this test's maps: the program's own default. */
#define HWORDS	64
#define PF_SIZE	(sizeof(struct cfilter_prefilter) + HWORDS * 8)

/* A map of the prefilter's shape with @hwords hashed words. */
static int prefilter_map_of(__u32 flags, __u32 hwords)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = flags);

	return bpf_map_create(BPF_MAP_TYPE_ARRAY, "cf_prefilter", sizeof(__u32),
			      sizeof(struct cfilter_prefilter) + hwords * 8, 1,
			      &opts);
}

/* A map of the prefilter's shape, made as a program's would be. */
static int prefilter_map(__u32 flags)
{
	return prefilter_map_of(flags, HWORDS);
}

static int hand_over(int dev, int map)
{
	struct cfilter_prefilter_req r = { .map_fd = map };

	return cf_ioctl(dev, CFILTER_IOC_PREFILTER, &r);
}

FIXTURE(prefilter) {
	int fd;
	int map;
	struct cfilter_prefilter *pf;	/* PF_SIZE bytes */
};

FIXTURE_SETUP(prefilter)
{
	self->map = -1;
	self->pf = calloc(1, PF_SIZE);
	ASSERT_NE(NULL, self->pf);
	SETUP_OPEN_EMPTY(self->fd);
	self->map = prefilter_map(0);
	ASSERT_LE(0, self->map) TH_LOG("bpf_map_create: %s", strerror(errno));
	ASSERT_EQ(0, hand_over(self->fd, self->map));
}

FIXTURE_TEARDOWN(prefilter)
{
	free(self->pf);
	if (self->map >= 0)
		close(self->map);
	teardown_close_empty(self->fd);
}

/*
 * Reads the map into self->pf, whose union of a /16's bits is exactly
 * that: the programs pass a packet on a clear bit of @any alone.
 */
static void read_map(struct __test_metadata *_metadata,
		     FIXTURE_DATA(prefilter) *self)
{
	const struct cfilter_prefilter *pf = self->pf;
	__u32 zero = 0, b, i;

	ASSERT_EQ(0, bpf_map_lookup_elem(self->map, &zero, self->pf))
		TH_LOG("reading the prefilter map: %s", strerror(errno));
	ASSERT_EQ(CFILTER_PREFILTER_READY, pf->ready);
	ASSERT_EQ(HWORDS - 1ULL, pf->hmask);
	for (b = 0; b < __CFILTER_PREFILTER_BITS; b++)
		for (i = 0; i < CFILTER_PREFILTER_WORDS; i++)
			ASSERT_EQ(pf->bits[b][i] | pf->addrs[b][i] |
				  pf->longer[b][i], pf->any[b][i])
				TH_LOG("bitmap %u, /16s %u to %u: any is not the union",
				       b, i * 64, i * 64 + 63);
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

/* The address bit of /16 @slot in bitmap @b; the set ones of one bitmap or all. */
static bool abit(const struct cfilter_prefilter *pf, unsigned int b,
		 unsigned int slot)
{
	return pf->addrs[b][slot / 64] >> (slot % 64) & 1;
}

static int nabits_of(const struct cfilter_prefilter *pf, unsigned int b)
{
	unsigned int i;
	int n = 0;

	for (i = 0; i < CFILTER_PREFILTER_WORDS; i++)
		n += __builtin_popcountll(pf->addrs[b][i]);
	return n;
}

static int nabits(const struct cfilter_prefilter *pf)
{
	unsigned int b;
	int n = 0;

	for (b = 0; b < __CFILTER_PREFILTER_BITS; b++)
		n += nabits_of(pf, b);
	return n;
}

/* The /16 flag of longer prefixes (IPv4 /17 to /31, IPv6 /32 on). */
static bool lbit(const struct cfilter_prefilter *pf, unsigned int b,
		 unsigned int slot)
{
	return pf->longer[b][slot / 64] >> (slot % 64) & 1;
}

/* The bit of block @v: a /24's first 24 bits (IPv4), a /32's (IPv6). */
static bool blk(const struct cfilter_prefilter *pf, unsigned int b, __u32 v)
{
	__u32 k = cfilter_prefilter_block(v);

	return pf->blocks[b][k / 32] >> (k % 32) & 1;
}

/* The set /16 flags and block bits of longer prefixes, every bitmap. */
static int nlonger(const struct cfilter_prefilter *pf)
{
	unsigned int b, i;
	int n = 0;

	for (b = 0; b < __CFILTER_PREFILTER_BITS; b++) {
		for (i = 0; i < CFILTER_PREFILTER_WORDS; i++)
			n += __builtin_popcountll(pf->longer[b][i]);
		for (i = 0; i < CFILTER_PREFILTER_BLOCK_WORDS; i++)
			n += __builtin_popcount(pf->blocks[b][i]);
	}
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

/* The hash of exact address @addr of type @type, as the programs make it. */
static __u32 hash_of(__u8 type, const char *addr)
{
	struct cfilter_key k = key_of(type, addr);
	bool dst = type == CFILTER_KEY_DST4 || type == CFILTER_KEY_DST6;

	return cfilter_prefilter_hash(type, dst ? k.daddr : k.saddr,
				      type == CFILTER_KEY_SRC6 ||
				      type == CFILTER_KEY_DST6);
}

/* Are both hashed bits of @addr set? */
static bool hbit(const struct cfilter_prefilter *pf, __u8 type,
		 const char *addr)
{
	__u32 h = hash_of(type, addr);
	__u64 mask = cfilter_prefilter_hbits(h);

	return (pf->hashed[cfilter_prefilter_hword(h, HWORDS - 1)] & mask) ==
	       mask;
}

static int nhashed(const struct cfilter_prefilter *pf)
{
	unsigned int i;
	int n = 0;

	for (i = 0; i < HWORDS; i++)
		n += __builtin_popcountll(pf->hashed[i]);
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
	EXPECT_EQ(0, nbits_but(self->pf, __CFILTER_PREFILTER_BITS));
	EXPECT_EQ(0, nhashed(self->pf));
	EXPECT_EQ(0, nabits(self->pf));
}

/*
 * An exact address sets its /16's address bit and its hashed bit, not its
 * /16's bit, which sends every packet of the /16 to the kfunc.
 */
TEST_F(prefilter, source_addresses_set_their_hashed_bit)
{
	ADD(SRC4, "10.1.2.3");
	ADD(SRC6, "2001:db8::1");
	read_map(_metadata, self);
	EXPECT_EQ(0, nbits_but(self->pf, __CFILTER_PREFILTER_BITS));
	EXPECT_TRUE(hbit(self->pf, CFILTER_KEY_SRC4, "10.1.2.3"));
	EXPECT_TRUE(hbit(self->pf, CFILTER_KEY_SRC6, "2001:db8::1"));
	EXPECT_GE(4, nhashed(self->pf));	/* two bits an address */
	EXPECT_EQ(2, nabits(self->pf));
	EXPECT_TRUE(abit(self->pf, S4, 10 << 8 | 1));
	EXPECT_TRUE(abit(self->pf, S6, 0x2001));

	/*
	 * A /24 in the same /16 sets the /16's flag of /17 to /31 and its
	 * block's bit, not the /16's bit.
	 */
	ADD(SRC4, "10.1.200.0/24");
	DEL(SRC4, "10.1.2.3");
	read_map(_metadata, self);
	EXPECT_FALSE(bit(self->pf, S4, 10 << 8 | 1));
	EXPECT_TRUE(lbit(self->pf, S4, 10 << 8 | 1));
	EXPECT_TRUE(blk(self->pf, S4, 10 << 16 | 1 << 8 | 200));
	EXPECT_EQ(2, nlonger(self->pf));
	EXPECT_FALSE(abit(self->pf, S4, 10 << 8 | 1));	/* the last address went */
	EXPECT_TRUE(hbit(self->pf, CFILTER_KEY_SRC6, "2001:db8::1"));
	DEL(SRC4, "10.1.200.0/24");
	DEL(SRC6, "2001:db8::1");
	read_map(_metadata, self);
	EXPECT_EQ(0, nbits(self->pf, S4));
	EXPECT_EQ(0, nbits(self->pf, S6));
	EXPECT_EQ(0, nlonger(self->pf));
}

/*
 * Longer prefixes set their /16's flag and the bits of their blocks: an
 * IPv4 /17 its 128 /24s, IPv6 /32 and longer their /32; the flag and a
 * block's bit go with the last prefix there. IPv6 /17 to /31 set their
 * /16's bit.
 */
TEST_F(prefilter, longer_prefixes_set_their_blocks)
{
	unsigned int i;

	ADD(SRC4, "10.2.128.0/17");
	ADD(SRC6, "2001:db8:1::/48");
	ADD(SRC6, "2001:db8:2::/64");
	ADD(SRC6, "2001:db9:7::/48");
	ADD(SRC6, "2400:c000::/20");
	read_map(_metadata, self);
	EXPECT_EQ(0, nbits(self->pf, S4));
	EXPECT_EQ(1, nbits(self->pf, S6));
	EXPECT_TRUE(bit(self->pf, S6, 0x2400));
	EXPECT_FALSE(lbit(self->pf, S6, 0x2400));
	EXPECT_TRUE(lbit(self->pf, S4, 10 << 8 | 2));
	for (i = 0; i < 256; i++)
		EXPECT_EQ(i >= 128, blk(self->pf, S4, 10 << 16 | 2 << 8 | i))
			TH_LOG("10.2.%u.0/24", i);
	EXPECT_TRUE(lbit(self->pf, S6, 0x2001));
	EXPECT_TRUE(blk(self->pf, S6, 0x20010db8));
	EXPECT_TRUE(blk(self->pf, S6, 0x20010db9));
	DEL(SRC6, "2001:db8:1::/48");
	read_map(_metadata, self);
	EXPECT_TRUE(blk(self->pf, S6, 0x20010db8));	/* the /64 is there */
	DEL(SRC6, "2001:db8:2::/64");
	read_map(_metadata, self);
	EXPECT_FALSE(blk(self->pf, S6, 0x20010db8));
	EXPECT_TRUE(lbit(self->pf, S6, 0x2001));
	DEL(SRC6, "2001:db9:7::/48");
	DEL(SRC4, "10.2.128.0/17");
	DEL(SRC6, "2400:c000::/20");
	read_map(_metadata, self);
	EXPECT_EQ(0, nlonger(self->pf));
	EXPECT_EQ(0, nbits(self->pf, S6));
}

/*
 * A hashed bit is shared: a delete leaves it. Once deletes have left
 * enough behind, the bits are made again from the addresses held, and a
 * held address's bit is set at every step on the way.
 */
TEST_F(prefilter, hashed_bits_follow_deletes_and_never_miss_a_held_address)
{
	char a[32];
	int i, before, cleaned = 0;

	for (i = 0; i < 1000; i++) {
		snprintf(a, sizeof(a), "10.%d.%d.1", i / 250, i % 250);
		ADD(SRC4, a);
	}
	read_map(_metadata, self);
	before = nhashed(self->pf);
	EXPECT_LT(500, before);
	for (i = 0; i < 1000; i++) {
		snprintf(a, sizeof(a), "10.%d.%d.1", i / 250, i % 250);
		DEL(SRC4, a);
		if (i % 50 && i != 999)
			continue;
		read_map(_metadata, self);
		/* every address still held has its bit */
		for (int j = i + 1; j < 1000; j++) {
			snprintf(a, sizeof(a), "10.%d.%d.1", j / 250, j % 250);
			ASSERT_TRUE(hbit(self->pf, CFILTER_KEY_SRC4, a))
				TH_LOG("%s held after %d deletes, its bit clear",
				       a, i + 1);
			ASSERT_TRUE(abit(self->pf, S4, 10 << 8 | j / 250))
				TH_LOG("%s held after %d deletes, its /16's address bit clear",
				       a, i + 1);
		}
		cleaned |= nhashed(self->pf) < before;
	}
	EXPECT_TRUE(cleaned) TH_LOG("%d bits, and 1000 deletes cleared none",
				    before);
	/* A clear leaves none. */
	ADD(SRC6, "2001:db8::1");
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_CLEAR, NULL));
	read_map(_metadata, self);
	EXPECT_EQ(0, nhashed(self->pf));
	EXPECT_EQ(0, nabits(self->pf));
}

TEST_F(prefilter, short_prefixes_mark_every_slash_16_they_cover)
{
	ADD(SRC4, "192.168.0.0/15");
	ADD(SRC4, "64.0.0.0/6");
	ADD(SRC6, "2400::/12");
	read_map(_metadata, self);
	EXPECT_EQ(0, nabits(self->pf));	/* no address: the programs hash nothing */
	EXPECT_EQ(2 + 1024, nbits(self->pf, S4));
	EXPECT_TRUE(bit(self->pf, S4, 192 << 8 | 168));
	EXPECT_TRUE(bit(self->pf, S4, 192 << 8 | 169));
	EXPECT_FALSE(bit(self->pf, S4, 192 << 8 | 170));
	EXPECT_TRUE(bit(self->pf, S4, 64 << 8));
	EXPECT_TRUE(bit(self->pf, S4, 67 << 8 | 255));
	EXPECT_FALSE(bit(self->pf, S4, 68 << 8));
	EXPECT_EQ(16, nbits(self->pf, S6));
	EXPECT_TRUE(bit(self->pf, S6, 0x240f));
	DEL(SRC4, "64.0.0.0/6");
	read_map(_metadata, self);
	EXPECT_EQ(2, nbits(self->pf, S4));

	/* /0 covers everything. */
	ADD(SRC6, "::/0");
	read_map(_metadata, self);
	EXPECT_EQ(SLOTS, nbits(self->pf, S6));
	DEL(SRC6, "::/0");
	read_map(_metadata, self);
	EXPECT_EQ(16, nbits(self->pf, S6));
}

#define FULL_BLOCKS	50000

/*
 * Blocks that set more than half their bits would spare few calls: their
 * /16s' bits are set instead of their flags, and their flags again once
 * deletes bring the bits under half.
 */
TEST_F(prefilter, full_blocks_set_the_bits_of_their_slash_16s)
{
	struct cfilter_key *keys = calloc(FULL_BLOCKS, sizeof(*keys));
	__s32 *res = calloc(FULL_BLOCKS, sizeof(*res));
	struct cfilter_batch bt;
	unsigned int i;
	int n = 0;

	ASSERT_NE(NULL, keys);
	ASSERT_NE(NULL, res);
	for (i = 0; i < FULL_BLOCKS; i++) {	/* 10.0.0.0/24 on, one /24 each */
		keys[i] = key_of(CFILTER_KEY_SRC4, "10.0.0.0/24");
		keys[i].saddr[1] = i >> 8;
		keys[i].saddr[2] = i;
	}
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, keys, res,
			      FULL_BLOCKS, &bt));
	ASSERT_EQ((__u32)FULL_BLOCKS, bt.first_error);
	read_map(_metadata, self);
	EXPECT_EQ((FULL_BLOCKS + 255) / 256, nbits(self->pf, S4));
	EXPECT_TRUE(bit(self->pf, S4, 10 << 8 | 100));
	for (i = 0; i < SLOTS; i++)
		n += lbit(self->pf, S4, i);
	EXPECT_EQ(0, n);

	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_DEL, keys, res,
			      FULL_BLOCKS - 5000, &bt));
	read_map(_metadata, self);
	EXPECT_EQ(0, nbits(self->pf, S4));
	EXPECT_TRUE(lbit(self->pf, S4, 10 << 8 | (FULL_BLOCKS - 1) >> 8));
	EXPECT_FALSE(lbit(self->pf, S4, 10 << 8 | 100));
	EXPECT_TRUE(blk(self->pf, S4, 10 << 16 | (FULL_BLOCKS - 1)));
	EXPECT_FALSE(blk(self->pf, S4, 10 << 16 | 100 << 8));
	free(res);
	free(keys);
}

/* Destination entries mark bitmaps of their own. */
TEST_F(prefilter, destination_keys_mark_the_destination_bits)
{
	ADD(DST4, "10.0.0.1");
	ADD(DST4, "10.0.0.0/24");
	ADD(DST6, "2001:db8::/48");
	ADD(DST6, "2400::/12");
	read_map(_metadata, self);
	EXPECT_TRUE(hbit(self->pf, CFILTER_KEY_DST4, "10.0.0.1"));
	EXPECT_GE(2, nhashed(self->pf));
	EXPECT_EQ(0, nbits(self->pf, D4));
	EXPECT_TRUE(lbit(self->pf, D4, 10 << 8));
	EXPECT_TRUE(blk(self->pf, D4, 10 << 16));
	EXPECT_EQ(16, nbits(self->pf, D6));
	EXPECT_TRUE(lbit(self->pf, D6, 0x2001));
	EXPECT_TRUE(blk(self->pf, D6, 0x20010db8));
	EXPECT_TRUE(bit(self->pf, D6, 0x240f));
	EXPECT_EQ(0, nbits(self->pf, S4) + nbits(self->pf, S6));
	EXPECT_FALSE(lbit(self->pf, S4, 10 << 8));
	DEL(DST4, "10.0.0.0/24");
	DEL(DST6, "2400::/12");
	read_map(_metadata, self);
	EXPECT_EQ(0, nbits(self->pf, D4));
	EXPECT_FALSE(lbit(self->pf, D4, 10 << 8));
	EXPECT_FALSE(blk(self->pf, D4, 10 << 16));
	EXPECT_EQ(0, nbits(self->pf, D6));
	EXPECT_TRUE(lbit(self->pf, D6, 0x2001));
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
	EXPECT_EQ(SLOTS, nbits(self->pf, S6));
	EXPECT_EQ(0, nbits_but(self->pf, S6));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_DEL, &flow));
	read_map(_metadata, self);
	EXPECT_EQ(0, nbits(self->pf, S6));
}

/* An allow entry only lifts a drop: it marks nothing. */
TEST_F(prefilter, allow_keys_mark_nothing)
{
	ADD(ALLOW4, "10.1.2.3");
	ADD(ALLOW6, "2001:db8::/32");
	read_map(_metadata, self);
	EXPECT_EQ(0, nbits_but(self->pf, __CFILTER_PREFILTER_BITS));
	EXPECT_EQ(0, nlonger(self->pf));
}

TEST_F(prefilter, a_replace_brings_the_new_sets_bits_only)
{
	struct cfilter_key_req req = {
		.key = key_of(CFILTER_KEY_SRC4, "172.16.0.1"),
		.flags = CFILTER_F_STAGED,
	};

	ADD(SRC4, "10.1.2.0/24");
	ADD(SRC4, "10.9.9.9");
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req));
	req.key = key_of(CFILTER_KEY_SRC4, "172.17.0.0/16");
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req));
	read_map(_metadata, self);
	EXPECT_EQ(0, nbits(self->pf, S4));	/* staged: not yet */
	EXPECT_TRUE(lbit(self->pf, S4, 10 << 8 | 1));
	EXPECT_TRUE(hbit(self->pf, CFILTER_KEY_SRC4, "10.9.9.9"));
	EXPECT_GE(2, nhashed(self->pf));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	read_map(_metadata, self);
	EXPECT_EQ(1, nbits(self->pf, S4));
	EXPECT_TRUE(bit(self->pf, S4, 172 << 8 | 17));
	EXPECT_EQ(0, nlonger(self->pf));	/* the old set's /24 went */
	EXPECT_TRUE(hbit(self->pf, CFILTER_KEY_SRC4, "172.16.0.1"));
	EXPECT_GE(2, nhashed(self->pf));	/* the old set's are gone */
	EXPECT_FALSE(hbit(self->pf, CFILTER_KEY_SRC4, "10.9.9.9"));
	EXPECT_EQ(1, nabits(self->pf));
	EXPECT_TRUE(abit(self->pf, S4, 172 << 8 | 16));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_CLEAR, NULL));
	read_map(_metadata, self);
	EXPECT_EQ(0, nbits(self->pf, S4));
	EXPECT_EQ(0, nhashed(self->pf));
}

/* A map handed over after the keys: filled at once. */
TEST_F(prefilter, a_late_map_is_filled)
{
	int late;

	ADD(SRC4, "10.1.2.3");
	ADD(SRC4, "10.1.0.0/16");
	ADD(SRC6, "2a00:1450::/29");
	ADD(DST6, "2a00:1450::99");
	late = prefilter_map(0);
	ASSERT_LE(0, late);
	ASSERT_EQ(0, hand_over(self->fd, late));
	close(self->map);
	self->map = late;
	read_map(_metadata, self);
	EXPECT_EQ(1, nbits(self->pf, S4));
	EXPECT_EQ(1, nbits(self->pf, S6));	/* an IPv6 /29: its /16's bit */
	EXPECT_TRUE(bit(self->pf, S6, 0x2a00));
	EXPECT_TRUE(hbit(self->pf, CFILTER_KEY_SRC4, "10.1.2.3"));
	EXPECT_TRUE(hbit(self->pf, CFILTER_KEY_DST6, "2a00:1450::99"));
	EXPECT_GE(4, nhashed(self->pf));
	EXPECT_EQ(2, nabits(self->pf));
	EXPECT_TRUE(abit(self->pf, D6, 0x2a00));
}

TEST_F(prefilter, maps_of_another_shape_are_refused)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	int m;

	m = bpf_map_create(BPF_MAP_TYPE_ARRAY, "small", 4, 8, 1, &opts);
	ASSERT_LE(0, m);
	EXPECT_EQ(EINVAL, hand_over(self->fd, m));
	close(m);
	/* the struct alone, without hashed words, and hashed words not a power of two */
	m = prefilter_map_of(0, 0);
	ASSERT_LE(0, m);
	EXPECT_EQ(EINVAL, hand_over(self->fd, m));
	close(m);
	m = prefilter_map_of(0, 3);
	ASSERT_LE(0, m);
	EXPECT_EQ(EINVAL, hand_over(self->fd, m));
	close(m);
	m = bpf_map_create(BPF_MAP_TYPE_ARRAY, "odd", 4, PF_SIZE + 4, 1, &opts);
	ASSERT_LE(0, m);
	EXPECT_EQ(EINVAL, hand_over(self->fd, m));
	close(m);
	m = bpf_map_create(BPF_MAP_TYPE_ARRAY, "two", 4, PF_SIZE, 2, &opts);
	ASSERT_LE(0, m);
	EXPECT_EQ(EINVAL, hand_over(self->fd, m));
	close(m);
	m = bpf_map_create(BPF_MAP_TYPE_HASH, "hash", 4, PF_SIZE, 1, &opts);
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

/* The bit of IPv4 source /16 10.0/16, where 10.0.0.0/24 below sets one. */
#define TEN_ZERO_WORD	(16 + (S4 * CFILTER_PREFILTER_WORDS + (10 << 8) / 64) * 8)

/* Is the map's value all zero: did nobody write it? */
static bool map_untouched(int map)
{
	struct cfilter_prefilter *pf = calloc(1, PF_SIZE);
	__u32 zero = 0;
	bool untouched;

	if (!pf)
		return false;
	untouched = !bpf_map_lookup_elem(map, &zero, pf) &&
		    !pf->ready && !pf->hmask && !nabits(pf) &&
		    !nbits_but(pf, __CFILTER_PREFILTER_BITS) && !nhashed(pf);
	free(pf);
	return untouched;
}

/*
 * A map of the prefilter's size whose value (described in BTF) carries
 * the struct @special (@special_size bytes) at byte @off: a field the BPF
 * core owns and frees with the map, which a write over it would corrupt.
 * @special "kptr": a kptr to a task_struct instead. Returns the map, or
 * -errno.
 */
static int special_map(const char *special, __u32 special_size, __u32 off)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	__u32 size = PF_SIZE;
	int u32_id, u8_id, field_id, before_id, after_id, value_id, fd, err;
	struct btf *btf = btf__new_empty();

	if (!btf)
		return -errno;
	/* libbpf adds a field to the type added last: members' types first. */
	u32_id = btf__add_int(btf, "unsigned int", 4, 0);
	u8_id = btf__add_int(btf, "unsigned char", 1, 0);
	before_id = btf__add_array(btf, u32_id, u8_id, off);
	after_id = btf__add_array(btf, u32_id, u8_id, size - off - special_size);
	if (!strcmp(special, "kptr")) {
		field_id = btf__add_struct(btf, "task_struct", 0);
		field_id = btf__add_type_tag(btf, "kptr", field_id);
		field_id = btf__add_ptr(btf, field_id);
	} else {
		field_id = btf__add_array(btf, u32_id, u8_id, special_size);
		field_id = btf__add_struct(btf, special, special_size);
		err = btf__add_field(btf, "opaque", field_id - 1, 0, 0);
		if (err)
			goto out;
	}
	value_id = btf__add_struct(btf, "value", size);
	err = btf__add_field(btf, "before", before_id, 0, 0) ?:
	      btf__add_field(btf, "special", field_id, off * 8, 0) ?:
	      btf__add_field(btf, "after", after_id, (off + special_size) * 8, 0) ?:
	      btf__load_into_kernel(btf);
	if (err)
		goto out;
	opts.btf_fd = btf__fd(btf);
	opts.btf_key_type_id = u32_id;
	opts.btf_value_type_id = value_id;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "cf_special", sizeof(__u32),
			    size, 1, &opts);
	err = fd < 0 ? -errno : fd;
out:
	btf__free(btf);
	return err;
}

/*
 * A bpf_timer, a bpf_spin_lock or a kptr where the module would write (the
 * source bits of 10.0/16, which 10.0.0.1 sets, or the ready word): the map
 * is refused and left as it was. Written over, the timer took the kernel
 * down when the map was freed.
 */
TEST_F(prefilter, maps_with_fields_the_bpf_core_owns_are_refused)
{
	static const struct {
		const char *name;
		__u32 size, off;
	} special[] = {
		{ "bpf_timer", 16, TEN_ZERO_WORD },
		{ "bpf_spin_lock", 4, TEN_ZERO_WORD },
		{ "kptr", 8, TEN_ZERO_WORD },
		{ "bpf_spin_lock", 4, 0 },
		{ "bpf_spin_lock", 4, sizeof(struct cfilter_prefilter) },
	};
	unsigned int i;
	int m;

	ADD(SRC4, "10.0.0.0/24");
	for (i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
		m = special_map(special[i].name, special[i].size, special[i].off);
		ASSERT_LE(0, m) TH_LOG("a map with a %s at byte %u: %s",
				       special[i].name, special[i].off,
				       strerror(-m));
		EXPECT_EQ(EINVAL, hand_over(self->fd, m))
			TH_LOG("a map with a %s at byte %u", special[i].name,
			       special[i].off);
		EXPECT_TRUE(map_untouched(m))
			TH_LOG("the map with a %s at byte %u was written",
			       special[i].name, special[i].off);
		close(m);
	}
	read_map(_metadata, self);
	EXPECT_TRUE(lbit(self->pf, S4, 10 << 8));
}

/* The map of @fd again, through its id, opened with @flags (BPF_F_RDONLY). */
static int reopen_by_id(int fd, __u32 flags)
{
	LIBBPF_OPTS(bpf_get_fd_by_id_opts, opts, .open_flags = flags);
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -1;
	return bpf_map_get_fd_by_id_opts(info.id, &opts);
}

/* The map of @fd pinned at @path, opened again with @flags. */
static int reopen_pinned(int fd, const char *path, __u32 flags)
{
	LIBBPF_OPTS(bpf_obj_get_opts, opts, .file_flags = flags);
	int ro;

	unlink(path);
	if (bpf_obj_pin(fd, path))
		return -1;
	ro = bpf_obj_get_opts(path, &opts);
	unlink(path);
	return ro;
}

/*
 * The module writes the map for the caller: only through a descriptor
 * that the bpf() syscall would let write it (EPERM, as its own update).
 * One opened read-only (BPF_F_RDONLY by id, or BPF_OBJ_GET as a user who
 * may only read the pin gets it) may not, nor may any of a frozen map.
 */
TEST_F(prefilter, read_only_descriptors_and_frozen_maps_are_refused)
{
	int m, ro;

	ADD(SRC4, "10.0.0.1");
	m = prefilter_map(0);
	ASSERT_LE(0, m);
	ro = reopen_by_id(m, BPF_F_RDONLY);
	ASSERT_LE(0, ro) TH_LOG("BPF_MAP_GET_FD_BY_ID: %s", strerror(errno));
	EXPECT_EQ(EPERM, hand_over(self->fd, ro));
	close(ro);
	ro = reopen_pinned(m, "/sys/fs/bpf/cf_prefilter_ro", BPF_F_RDONLY);
	ASSERT_LE(0, ro) TH_LOG("BPF_OBJ_GET: %s", strerror(errno));
	EXPECT_EQ(EPERM, hand_over(self->fd, ro));
	close(ro);
	EXPECT_TRUE(map_untouched(m));

	/* Write-only is enough: the module does not read the map. */
	ro = reopen_by_id(m, BPF_F_WRONLY);
	ASSERT_LE(0, ro);
	EXPECT_EQ(0, hand_over(self->fd, ro));
	close(ro);
	EXPECT_FALSE(map_untouched(m));
	close(m);

	m = prefilter_map(0);
	ASSERT_LE(0, m);
	ASSERT_EQ(0, bpf_map_freeze(m));
	EXPECT_EQ(EPERM, hand_over(self->fd, m));
	EXPECT_TRUE(map_untouched(m));
	close(m);
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
 * every address bit of the family, and every hashed bit, is set in a map
 * whose hashed bits are not the size of the module's record of them (here
 * 64 words, against 2^20 bits for the default capacity). Unloaded, the
 * module lets its maps go.
 */
TEST_F(prefilter_reload, compact_addresses_set_every_bit_and_unload_clears_ready)
{
	struct cfilter_key_req req = { .key = key_of(CFILTER_KEY_SRC4, "10.1.2.3") };
	struct cfilter_prefilter *pf;
	__u32 zero = 0;
	int err;

	pf = calloc(1, PF_SIZE);
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
	EXPECT_EQ(CFILTER_PREFILTER_READY, pf->ready);
	EXPECT_EQ(0, nbits(pf, S4));
	EXPECT_EQ(SLOTS, nabits_of(pf, S4));
	EXPECT_EQ(0, nabits_of(pf, S6));
	EXPECT_EQ(HWORDS * 64, nhashed(pf));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_DEL, &req));
	ASSERT_EQ(0, bpf_map_lookup_elem(self->map, &zero, pf));
	EXPECT_EQ(0, nabits_of(pf, S4));

	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req));
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, module_wait_unused());
	ASSERT_EQ(0, module_unload());
	ASSERT_EQ(0, bpf_map_lookup_elem(self->map, &zero, pf));
	EXPECT_EQ(0ULL, pf->ready);
	free(pf);
}

/* Are both hashed bits of address @a (@alen bytes) of @type set in @words? */
static bool hbit_in(const __u64 *words, __u32 bits, __u8 type, const __u8 *a)
{
	__u32 h = cfilter_prefilter_hash(type, a, type_is_v6(type));
	__u64 mask = cfilter_prefilter_hbits(h);

	return (words[cfilter_prefilter_hword(h, bits / 64 - 1)] & mask) == mask;
}

#define COMPACT_ADDRS	3000

/*
 * Compact mode records the hashed bits of every address added, those whose
 * add was EEXIST too (8-bit fingerprints make many: another address's
 * fingerprint, which now matches this one), and keeps them through
 * deletes; a map of the record's size (struct cfilter_info's
 * prefilter_bits) gets them, and no /16 bit for the addresses, while one
 * of another size gets every hashed bit.
 */
TEST_F(prefilter_reload, compact_records_every_address_added)
{
	struct cfilter_key *keys = calloc(COMPACT_ADDRS, sizeof(*keys));
	__s32 *res = calloc(COMPACT_ADDRS, sizeof(*res));
	struct cfilter_prefilter *pf = NULL, *other;
	struct cfilter_key twin;
	unsigned int i, exist = 0;
	struct cfilter_info info;
	struct cfilter_batch b;
	__u32 zero = 0, bits;
	int map2, err;

	ASSERT_NE(NULL, keys);
	ASSERT_NE(NULL, res);
	err = module_load("mode=compact fp_bits=8 capacity=4096");
	ASSERT_EQ(0, err) TH_LOG("loading in compact mode: %s", strerror(err));
	self->fd = open(CFILTER_DEVICE, O_RDWR);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, cf_info(self->fd, &info));
	bits = info.prefilter_bits;
	ASSERT_EQ(cfilter_prefilter_bits_for(4096), bits);
	self->map = prefilter_map_of(0, bits / 64);
	ASSERT_LE(0, self->map);
	ASSERT_EQ(0, hand_over(self->fd, self->map));
	map2 = prefilter_map(0);
	ASSERT_LE(0, map2);
	ASSERT_EQ(0, hand_over(self->fd, map2));

	for (i = 0; i < COMPACT_ADDRS; i++)
		keys[i] = i % 10 ? nth_key4(i) : nth_key6(i);
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, keys, res,
			      COMPACT_ADDRS, &b));
	for (i = 0; i < COMPACT_ADDRS; i++) {
		ASSERT_TRUE(!res[i] || res[i] == -EEXIST) TH_LOG("key %u: %d", i, res[i]);
		exist += res[i] == -EEXIST;
	}
	TH_LOG("%u of %u adds EEXIST", exist, COMPACT_ADDRS);
	/*
	 * And one for certain: an address the table already answers for (a
	 * false positive, 2% or so with 8-bit fingerprints) is EEXIST.
	 */
	for (i = 0; i < 100000; i++) {
		twin = nth_key4(1000000 + i);
		ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_TEST, &twin, res,
				      1, &b));
		if (!res[0])
			break;
	}
	ASSERT_GT(100000U, i);
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, &twin, res, 1, &b));
	ASSERT_EQ(-EEXIST, res[0]);
	/* and the other half again, deleted: their bits stay */
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_DEL, keys, res,
			      COMPACT_ADDRS / 2, &b));

	pf = calloc(1, sizeof(*pf) + bits / 8);
	other = calloc(1, PF_SIZE);
	ASSERT_NE(NULL, pf);
	ASSERT_NE(NULL, other);
	ASSERT_EQ(0, bpf_map_lookup_elem(self->map, &zero, pf));
	ASSERT_EQ(CFILTER_PREFILTER_READY, pf->ready);
	EXPECT_EQ(bits / 64 - 1ULL, pf->hmask);
	for (i = 0; i < COMPACT_ADDRS; i++)
		ASSERT_TRUE(hbit_in(pf->hashed, bits, keys[i].type,
				    keys[i].saddr)) TH_LOG("key %u", i);
	EXPECT_TRUE(hbit_in(pf->hashed, bits, twin.type, twin.saddr));
	EXPECT_EQ(0, nbits(pf, S4));
	EXPECT_EQ(0, nbits(pf, S6));
	EXPECT_EQ(SLOTS, nabits_of(pf, S4));
	EXPECT_EQ(SLOTS, nabits_of(pf, S6));
	EXPECT_EQ(0, nabits_of(pf, D4));

	ASSERT_EQ(0, bpf_map_lookup_elem(map2, &zero, other));
	EXPECT_EQ(0, nbits(other, S4));
	EXPECT_EQ(SLOTS, nabits_of(other, S4));
	EXPECT_EQ(SLOTS, nabits_of(other, S6));
	EXPECT_EQ(HWORDS * 64, nhashed(other));
	EXPECT_EQ(0, nbits(other, D4));
	close(map2);
	free(other);
	free(pf);
	free(res);
	free(keys);
}

/*
 * A RESTORE brings addresses no add recorded: once it is committed, every
 * hashed bit is set, even in a map of the record's size; a CLEAR starts a
 * record again.
 */
TEST_F(prefilter_reload, compact_restore_sets_every_hashed_bit)
{
	struct cfilter_key_req req = { .key = key_of(CFILTER_KEY_SRC4, "10.1.2.3") };
	struct cfilter_table t = { .type = CFILTER_KEY_SRC4,
				   .flags = CFILTER_TABLE_MIX32 };
	struct cfilter_prefilter *pf;
	struct cfilter_info info;
	__u32 zero = 0, i;
	int err;

	err = module_load("mode=compact capacity=1000");
	ASSERT_EQ(0, err) TH_LOG("loading in compact mode: %s", strerror(err));
	self->fd = open(CFILTER_DEVICE, O_RDWR);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, cf_info(self->fd, &info));
	self->map = prefilter_map_of(0, info.prefilter_bits / 64);
	ASSERT_LE(0, self->map);
	ASSERT_EQ(0, hand_over(self->fd, self->map));
	pf = calloc(1, sizeof(*pf) + info.prefilter_bits / 8);
	ASSERT_NE(NULL, pf);
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req));

	ASSERT_EQ(ENOSPC, cf_ioctl(self->fd, CFILTER_IOC_DUMP, &t));
	t.data = (uintptr_t)malloc(t.size);
	ASSERT_NE(0ULL, t.data);
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_DUMP, &t));
	ASSERT_EQ(0, bpf_map_lookup_elem(self->map, &zero, pf));
	EXPECT_EQ(0, nbits(pf, S4));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_RESTORE, &t));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	ASSERT_EQ(0, bpf_map_lookup_elem(self->map, &zero, pf));
	EXPECT_EQ(0, nbits(pf, S4));
	EXPECT_EQ(SLOTS, nabits_of(pf, S4));
	for (i = 0; i < info.prefilter_bits / 64; i++)
		ASSERT_EQ(~0ULL, pf->hashed[i]) TH_LOG("word %u", i);

	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_CLEAR, NULL));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req));
	ASSERT_EQ(0, bpf_map_lookup_elem(self->map, &zero, pf));
	EXPECT_EQ(0, nbits(pf, S4));
	EXPECT_TRUE(hbit_in(pf->hashed, info.prefilter_bits, CFILTER_KEY_SRC4,
			    req.key.saddr));
	free((void *)(uintptr_t)t.data);
	free(pf);
}

TEST_HARNESS_MAIN
