// SPDX-License-Identifier: GPL-2.0
/*
 * The XDP program (bpf/cfilter.bpf.c) on crafted frames, through
 * BPF_PROG_TEST_RUN: the verdict for each frame and the exact change of the
 * per-CPU counters (every frame counted exactly once). Keys are added and
 * removed through /dev/cfilter, so this also checks that the kfunc sees the
 * filter the ioctls change. Needs cfilter.ko loaded with BTF.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include <linux/bpf.h>
#include <linux/cfilter.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cfilter.skel.h"
#include "xdp_stats.h"
#include "helpers.h"
#include "kselftest_harness.h"
#include "harness_timeout.h"
#include "xdp_packets.h"

#define BLOCKED4	"192.0.2.2"
#define OTHER4		"192.0.2.3"
#define BLOCKED6	"2001:db8::2"
#define OTHER6		"2001:db8::3"

static const char stat_names[__CFILTER_STAT_MAX][sizeof("DROP_PREFIX")] = {
	[CFILTER_STAT_DROP_DEEP]	= "DROP_DEEP",
	[CFILTER_STAT_DROP_FRAG]	= "DROP_FRAG",
	[CFILTER_STAT_PASS]		= "PASS",
	[CFILTER_STAT_DROP_SRC]		= "DROP_SRC",
	[CFILTER_STAT_UNPARSED]		= "UNPARSED",
	[CFILTER_STAT_DROP_DST]		= "DROP_DST",
	[CFILTER_STAT_DROP_FLOW]	= "DROP_FLOW",
	[CFILTER_STAT_ALLOWED]		= "ALLOWED",
	[CFILTER_STAT_DROP_PREFIX]	= "DROP_PREFIX",
};

/* @cmd (ADD, DEL, TEST) of the source address @addr; 0 or the errno. */
static int cf_key(int fd, unsigned long cmd, int family, const char *addr)
{
	struct cfilter_key_req req = {
		.key = key_of(family == AF_INET ? CFILTER_KEY_SRC4 :
			      CFILTER_KEY_SRC6, addr),
	};

	return cf_ioctl(fd, cmd, &req);
}

/*
 * The program, loaded once per process with destination matching off
 * (programs[0]) and on (programs[1]), each with its prefilter handed to the
 * module as cfctl hands it, so that every verdict below goes through the
 * prefilter's bits; once more without (programs[2]), which calls the
 * kfunc for every packet; and once with a prefilter map of the test's own
 * (programs[3], matching destinations, written by the test through
 * prefilter_fd). The emulated
 * guest's verifier takes seconds per load, and there are dozens of tests. The harness runs each test in a
 * child of this process, which inherits the programs and their counters;
 * tests compare counters before and after, so what earlier tests counted
 * does not matter.
 */
static struct cfilter_bpf *programs[4];
static int programs_err, prefilter_fd = -1;
/* The program's own prefilter size: no loader here sizes it. */
#define PF_HBITS	4096
#define PF_HMASK	(4096 / 64 - 1)
#define READY		CFILTER_PREFILTER_READY
#define PF_SIZE		(sizeof(struct cfilter_prefilter) + PF_HBITS / 8)

/*
 * The program, matching destinations if @match_dst, reading @prefilter_fd
 * as its prefilter. Returns 0 or errno.
 */
static int load_own_prefilter(bool match_dst)
{
	struct cfilter_bpf *skel = cfilter_bpf__open();
	int err;

	prefilter_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "own_prefilter",
				      sizeof(__u32), PF_SIZE, 1, NULL);
	if (!skel || prefilter_fd < 0)
		return errno;
	skel->rodata->match_dst = match_dst;
	err = bpf_map__set_pin_path(skel->maps.cfilter_stats, NULL);
	if (!err)
		err = bpf_map__reuse_fd(skel->maps.cfilter_prefilter,
					prefilter_fd);
	if (!err)
		err = cfilter_bpf__load(skel);
	if (err) {
		cfilter_bpf__destroy(skel);
		return -err;
	}
	programs[3] = skel;
	return 0;
}

static void __attribute__((constructor)) load_programs(void)
{
	int i, dev = open(CFILTER_DEVICE, O_RDWR);

	libbpf_set_print(libbpf_print);
	for (i = 0; i < 3 && !programs_err; i++) {
		programs[i] = xdp_load_private(i == 1);
		if (!programs[i])
			programs_err = errno;
		else if (i < 2)
			programs_err = xdp_hand_over(programs[i], dev);
	}
	if (!programs_err)
		programs_err = load_own_prefilter(true);
	if (dev >= 0)
		close(dev);
}

FIXTURE(xdp) {
	struct cfilter_bpf *skel;
	int dev;
	int prog_fd;
};

/* Runs the program that matches destinations or not from now on. */
static void use_program(FIXTURE_DATA(xdp) *self, bool match_dst)
{
	self->skel = programs[match_dst];
	self->prog_fd = bpf_program__fd(self->skel->progs.cfilter_xdp);
}

FIXTURE_SETUP(xdp)
{
	SETUP_OPEN_EMPTY(self->dev);
	ASSERT_EQ(0, programs_err)
		TH_LOG("loading cfilter_xdp: %s; the kfunc needs cfilter.ko loaded with BTF (see /sys/kernel/btf/cfilter and the libbpf lines above)",
		       strerror(programs_err));
	use_program(self, false);
}

FIXTURE_TEARDOWN(xdp)
{
	teardown_close_empty(self->dev);
}

/*
 * Runs the program once on the first @len bytes of @f; returns the
 * program's verdict or -errno from the test run.
 *
 * BPF_PROG_TEST_RUN wants at least ETH_HLEN bytes of input, but only
 * ctx->data_end of them go in the linear part the program can read; the rest
 * goes into a fragment. That is how a frame shorter than an Ethernet header
 * reaches the program.
 */
static int run(FIXTURE_DATA(xdp) *self, const struct frame *f,
	       unsigned int len)
{
	struct xdp_md ctx = { .data_end = len };
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = f->data,
		.data_size_in = len,
		.repeat = 1,
	);

	if (len < ETH_HLEN) {
		opts.data_size_in = ETH_HLEN;
		opts.ctx_in = &ctx;
		opts.ctx_size_in = sizeof(ctx);
	}
	if (bpf_prog_test_run_opts(self->prog_fd, &opts))
		return -errno;
	return opts.retval;
}

/* The frame gets @verdict and exactly counter @stat goes up, by one. */
static void expect_verdict(struct __test_metadata *_metadata,
			   FIXTURE_DATA(xdp) *self, const struct frame *f,
			   unsigned int len, int verdict, int stat,
			   const char *what)
{
	__u64 before[__CFILTER_STAT_MAX], after[__CFILTER_STAT_MAX];
	int ret, i;

	ASSERT_EQ(0, xdp_stats_sum(self->skel, before));
	ret = run(self, f, len);
	ASSERT_EQ(verdict, ret) TH_LOG("%s (%u bytes): verdict", what, len);
	ASSERT_EQ(0, xdp_stats_sum(self->skel, after));
	for (i = 0; i < __CFILTER_STAT_MAX; i++)
		ASSERT_EQ(i == stat ? 1ULL : 0ULL, after[i] - before[i])
			TH_LOG("%s (%u bytes): counter %s", what, len,
			       stat_names[i]);
}

#define EXPECT_DROP(f, len, what) \
	expect_verdict(_metadata, self, f, len, XDP_DROP, CFILTER_STAT_DROP_SRC, what)
#define EXPECT_PASS(f, len, what) \
	expect_verdict(_metadata, self, f, len, XDP_PASS, CFILTER_STAT_PASS, what)
#define EXPECT_UNPARSED(f, len, what) \
	expect_verdict(_metadata, self, f, len, XDP_PASS, \
		       CFILTER_STAT_UNPARSED, what)

TEST_F(xdp, ipv4_blocked_is_dropped)
{
	struct frame f = frame4(BLOCKED4, 5);

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	EXPECT_DROP(&f, f.len, "IPv4 from " BLOCKED4);
}

TEST_F(xdp, ipv4_not_blocked_is_passed)
{
	struct frame f = frame4(OTHER4, 5);

	EXPECT_PASS(&f, f.len, "IPv4, empty filter");
	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	EXPECT_PASS(&f, f.len, "IPv4 from " OTHER4);
}

TEST_F(xdp, ipv6_blocked_is_dropped)
{
	struct frame f = frame6(BLOCKED6);

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET6, BLOCKED6));
	EXPECT_DROP(&f, f.len, "IPv6 from " BLOCKED6);
}

TEST_F(xdp, ipv6_not_blocked_is_passed)
{
	struct frame f = frame6(OTHER6);

	EXPECT_PASS(&f, f.len, "IPv6, empty filter");
	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET6, BLOCKED6));
	EXPECT_PASS(&f, f.len, "IPv6 from " OTHER6);
}

TEST_F(xdp, unblocked_source_passes_again)
{
	struct frame f4 = frame4(BLOCKED4, 5), f6 = frame6(BLOCKED6);

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET6, BLOCKED6));
	EXPECT_DROP(&f4, f4.len, "IPv4 blocked");
	EXPECT_DROP(&f6, f6.len, "IPv6 blocked");
	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_DEL, AF_INET, BLOCKED4));
	EXPECT_PASS(&f4, f4.len, "IPv4 after DEL");
	EXPECT_DROP(&f6, f6.len, "IPv6 still blocked");
	ASSERT_EQ(0, ioctl(self->dev, CFILTER_IOC_CLEAR));
	EXPECT_PASS(&f6, f6.len, "IPv6 after CLEAR");
}

/* ::ffff:192.0.2.2 is an IPv6 source: the SRC4 key must not match it. */
TEST_F(xdp, without_its_prefilter_the_program_calls_the_kfunc)
{
	struct frame blocked = frame4(BLOCKED4, 5), other = frame4(OTHER4, 5);

	self->skel = programs[2];
	self->prog_fd = bpf_program__fd(self->skel->progs.cfilter_xdp);
	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	EXPECT_DROP(&blocked, blocked.len, "IPv4 from " BLOCKED4);
	EXPECT_PASS(&other, other.len, "IPv4 from " OTHER4);
}

/*
 * @pf into the test's prefilter map, each /16's bit of @any the union of
 * its others as the module writes it, unless @ungated.
 */
static int store_prefilter(struct cfilter_prefilter *pf, bool ungated)
{
	__u32 zero = 0, b, i;

	if (!ungated)
		for (b = 0; b < __CFILTER_PREFILTER_BITS; b++)
			for (i = 0; i < CFILTER_PREFILTER_WORDS; i++)
				pf->any[b][i] = pf->bits[b][i] |
						pf->addrs[b][i] |
						pf->longer[b][i];
	return bpf_map_update_elem(prefilter_fd, &zero, pf, 0) ? errno : 0;
}

/*
 * Writes the test's prefilter: @ready, @hmask, and the bit of @addr's /16
 * in bitmap @b (enum cfilter_prefilter_bits), or if @hashed its hashed bit
 * as an address of the bitmap's key type, with its /16's address bit if
 * @abit; or none.
 */
static int write_prefilter(__u64 ready, __u64 hmask, unsigned int b,
			   const char *addr, bool hashed, bool abit)
{
	static const __u8 type[__CFILTER_PREFILTER_BITS] = {
		[CFILTER_PREFILTER_SRC4] = CFILTER_KEY_SRC4,
		[CFILTER_PREFILTER_SRC6] = CFILTER_KEY_SRC6,
		[CFILTER_PREFILTER_DST4] = CFILTER_KEY_DST4,
		[CFILTER_PREFILTER_DST6] = CFILTER_KEY_DST6,
	};
	static __u64 value[PF_SIZE / 8];
	struct cfilter_prefilter *pf = (struct cfilter_prefilter *)value;
	bool v6 = b == CFILTER_PREFILTER_SRC6 || b == CFILTER_PREFILTER_DST6;
	__u32 slot, h;
	__u8 a[16];

	memset(value, 0, sizeof(value));
	pf->ready = ready;
	pf->hmask = hmask;
	if (addr && hashed) {
		inet_pton(v6 ? AF_INET6 : AF_INET, addr, a);
		h = cfilter_prefilter_hash(type[b], a, v6);
		pf->hashed[cfilter_prefilter_hword(h, hmask)] |=
			cfilter_prefilter_hbits(h);
		slot = a[0] << 8 | a[1];
		if (abit)
			pf->addrs[b][slot / 64] |= 1ULL << slot % 64;
	} else if (addr) {
		inet_pton(v6 ? AF_INET6 : AF_INET, addr, a);
		slot = a[0] << 8 | a[1];
		pf->bits[b][slot / 64] |= 1ULL << slot % 64;
	}
	return store_prefilter(pf, false);
}

/*
 * The test's prefilter with, for @addr in bitmap @b, the bit of its block
 * (IPv4: its /24, IPv6: its /32), and its /16's flag of longer prefixes
 * if @flag; that flag's bit of @any clear if @ungated.
 */
static int set_block(unsigned int b, const char *addr, bool flag,
		     bool ungated)
{
	static __u64 value[PF_SIZE / 8];
	struct cfilter_prefilter *pf = (struct cfilter_prefilter *)value;
	bool v6 = b == CFILTER_PREFILTER_SRC6 || b == CFILTER_PREFILTER_DST6;
	__u32 slot, v, k;
	__u8 a[16];

	memset(value, 0, sizeof(value));
	pf->ready = READY;
	pf->hmask = PF_HMASK;
	inet_pton(v6 ? AF_INET6 : AF_INET, addr, a);
	slot = a[0] << 8 | a[1];
	v = (__u32)a[0] << 24 | a[1] << 16 | a[2] << 8 | a[3];
	k = cfilter_prefilter_block(v6 ? v : v >> 8);
	pf->blocks[b][k / 32] |= 1U << k % 32;
	if (flag)
		pf->longer[b][slot / 64] |= 1ULL << slot % 64;
	return store_prefilter(pf, ungated);
}

static int set_prefilter(__u64 ready, unsigned int b, const char *addr)
{
	return write_prefilter(ready, PF_HMASK, b, addr, false, 0);
}

static int set_hashed(__u64 hmask, unsigned int b, const char *addr)
{
	return write_prefilter(READY, hmask, b, addr, true, true);
}

/*
 * Where the bits of its source's and its destination's /16 are clear, and
 * their hashed bits too, the program (programs[3] matches destinations)
 * passes a packet without asking the module, which would drop it here;
 * where one is set, or while the map is not ready or its hmask is not
 * this program's, the module decides; where their /16's bit of the union
 * (@any) is clear, no other is read.
 */
TEST_F(xdp, the_prefilter_bits_decide_the_call)
{
	static const struct {
		int af;
		const char *blocked, *same16, *elsewhere, *other_family;
		unsigned int src, dst, other_src;
	} fam[] = {
		{ AF_INET, BLOCKED4, "192.0.255.1", "198.51.100.1", "2001:db8::",
		  CFILTER_PREFILTER_SRC4, CFILTER_PREFILTER_DST4,
		  CFILTER_PREFILTER_SRC6 },
		{ AF_INET6, BLOCKED6, "2001:ffff::1", "2a00::1", "192.0.2.0",
		  CFILTER_PREFILTER_SRC6, CFILTER_PREFILTER_DST6,
		  CFILTER_PREFILTER_SRC4 },
	};
	unsigned int i;

	self->skel = programs[3];
	self->prog_fd = bpf_program__fd(self->skel->progs.cfilter_xdp);
	for (i = 0; i < 2; i++) {
		struct frame f = fam[i].af == AF_INET ? frame4(fam[i].blocked, 5) :
						       frame6(fam[i].blocked);

		ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, fam[i].af,
				    fam[i].blocked));
		ASSERT_EQ(0, set_prefilter(READY, fam[i].src, NULL));
		EXPECT_PASS(&f, f.len, "bits clear: no call");
		ASSERT_EQ(0, set_prefilter(READY, fam[i].other_src,
					   fam[i].other_family));
		EXPECT_PASS(&f, f.len, "only the other family's bit set");
		ASSERT_EQ(0, set_prefilter(READY, fam[i].src, fam[i].same16));
		EXPECT_DROP(&f, f.len, "the bit of its source's /16 set");
		ASSERT_EQ(0, set_prefilter(0, fam[i].src, NULL));
		EXPECT_DROP(&f, f.len, "not ready: the module decides");
		ASSERT_EQ(0, set_prefilter(1, fam[i].src, NULL));
		EXPECT_DROP(&f, f.len, "ready of an older layout: the module decides");
		ASSERT_EQ(0, set_prefilter(READY + 1, fam[i].src, NULL));
		EXPECT_DROP(&f, f.len, "ready holds another value");
		/* the destination's bit, looked at where destinations are */
		ASSERT_EQ(0, set_prefilter(READY, fam[i].dst, fam[i].af == AF_INET ?
					   IPV4_DADDR : IPV6_DADDR));
		EXPECT_DROP(&f, f.len, "the bit of its destination's /16 set");
		ASSERT_EQ(0, set_prefilter(READY, fam[i].dst, fam[i].elsewhere));
		EXPECT_PASS(&f, f.len, "another destination /16's bit set");
		/* the hashed bits, of the address itself */
		ASSERT_EQ(0, set_hashed(PF_HMASK, fam[i].src, fam[i].blocked));
		EXPECT_DROP(&f, f.len, "the hashed bit of its source set");
		ASSERT_EQ(0, write_prefilter(READY, PF_HMASK, fam[i].src,
					     fam[i].blocked, true, false));
		EXPECT_PASS(&f, f.len, "its hashed bit set, its /16's address bit clear");
		ASSERT_EQ(0, set_hashed(PF_HMASK, fam[i].src, fam[i].same16));
		EXPECT_PASS(&f, f.len, "another source's hashed bit set");
		ASSERT_EQ(0, set_hashed(PF_HMASK, fam[i].dst,
					fam[i].af == AF_INET ? IPV4_DADDR :
					IPV6_DADDR));
		EXPECT_DROP(&f, f.len, "the hashed bit of its destination set");
		ASSERT_EQ(0, set_hashed(0, fam[i].src, NULL));
		EXPECT_DROP(&f, f.len, "hmask not yet seen: the module decides");
		ASSERT_EQ(0, set_hashed(PF_HMASK * 2 + 1, fam[i].src, NULL));
		EXPECT_DROP(&f, f.len, "hmask of a larger map: the module decides");
		/* the blocks of longer prefixes: IPv4 /24s, IPv6 /32s */
		ASSERT_EQ(0, set_block(fam[i].src, fam[i].blocked, true,
				       false));
		EXPECT_DROP(&f, f.len, "its block's bit set, and its /16's flag");
		ASSERT_EQ(0, set_block(fam[i].src, fam[i].blocked, true, true));
		EXPECT_PASS(&f, f.len, "block bit and flag set, any's bit clear: no call");
		ASSERT_EQ(0, set_block(fam[i].src, fam[i].blocked, false,
				       false));
		EXPECT_PASS(&f, f.len, "its block's bit set, its /16's flag clear");
		ASSERT_EQ(0, set_block(fam[i].src, fam[i].same16, true,
				       false));
		EXPECT_PASS(&f, f.len, "another block's bit set in its /16");
		ASSERT_EQ(0, set_block(fam[i].dst, fam[i].af == AF_INET ?
				       IPV4_DADDR : IPV6_DADDR, true, false));
		EXPECT_DROP(&f, f.len, "its destination's block bit and flag set");
	}
}

TEST_F(xdp, v4_mapped_ipv6_source_is_not_the_ipv4_key)
{
	struct frame f = frame6("::ffff:" BLOCKED4);

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	EXPECT_PASS(&f, f.len, "IPv6 from ::ffff:" BLOCKED4);
}

TEST_F(xdp, ipv4_with_options_blocked_is_dropped)
{
	struct frame f;
	char what[64];
	unsigned int ihl;

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	for (ihl = 6; ihl <= 15; ihl++) {
		snprintf(what, sizeof(what), "IPv4 IHL %u, blocked", ihl);
		f = frame4(BLOCKED4, ihl);
		EXPECT_DROP(&f, f.len, what);
		snprintf(what, sizeof(what), "IPv4 IHL %u, not blocked", ihl);
		f = frame4(OTHER4, ihl);
		EXPECT_PASS(&f, f.len, what);
	}
}

TEST_F(xdp, vlan_tagged_blocked_is_dropped)
{
	static const __u16 tpid[] = { ETH_P_8021Q };
	struct frame f = { .len = 0 };

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET6, BLOCKED6));
	put_eth(&f, tpid, 1, ETH_P_IP);
	put_ipv4(&f, BLOCKED4, 5);
	EXPECT_DROP(&f, f.len, "802.1Q + IPv4");
	f.len = 0;
	put_eth(&f, tpid, 1, ETH_P_IPV6);
	put_ipv6(&f, BLOCKED6);
	EXPECT_DROP(&f, f.len, "802.1Q + IPv6");
	f.len = 0;
	put_eth(&f, tpid, 1, ETH_P_IP);
	put_ipv4(&f, OTHER4, 5);
	EXPECT_PASS(&f, f.len, "802.1Q + IPv4 not blocked");
}

TEST_F(xdp, qinq_tagged_blocked_is_dropped)
{
	static const __u16 qinq[] = { ETH_P_8021AD, ETH_P_8021Q };
	static const __u16 double_q[] = { ETH_P_8021Q, ETH_P_8021Q };
	struct frame f = { .len = 0 };

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET6, BLOCKED6));
	put_eth(&f, qinq, 2, ETH_P_IP);
	put_ipv4(&f, BLOCKED4, 5);
	EXPECT_DROP(&f, f.len, "802.1ad + 802.1Q + IPv4");
	f.len = 0;
	put_eth(&f, qinq, 2, ETH_P_IPV6);
	put_ipv6(&f, BLOCKED6);
	EXPECT_DROP(&f, f.len, "802.1ad + 802.1Q + IPv6");
	f.len = 0;
	put_eth(&f, double_q, 2, ETH_P_IP);
	put_ipv4(&f, BLOCKED4, 5);
	EXPECT_DROP(&f, f.len, "802.1Q + 802.1Q + IPv4");
}

/*
 * Two tags is the documented depth: a third hides the addresses, and the
 * frame is dropped by policy whatever its source.
 */
TEST_F(xdp, three_vlan_tags_are_dropped_deep)
{
	static const __u16 tpids[] = { ETH_P_8021AD, ETH_P_8021Q, ETH_P_8021Q };
	struct frame f = { .len = 0 };

	put_eth(&f, tpids, 3, ETH_P_IP);
	put_ipv4(&f, OTHER4, 5);
	expect_verdict(_metadata, self, &f, f.len, XDP_DROP,
		       CFILTER_STAT_DROP_DEEP, "three VLAN tags + IPv4");
}

TEST_F(xdp, arp_is_passed_unparsed)
{
	struct frame f = frame_arp();

	EXPECT_UNPARSED(&f, f.len, "ARP request");
}

/*
 * Frames cut or malformed before the addresses are passed and counted
 * UNPARSED (the stack discards them); once the IP header is whole, a
 * blocked source is dropped however the rest is cut.
 */
TEST_F(xdp, truncated_ethernet_is_unparsed)
{
	struct frame f = frame4(BLOCKED4, 5);
	char what[64];
	unsigned int len;

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	for (len = 0; len < ETH_HLEN; len++) {
		snprintf(what, sizeof(what), "Ethernet header cut at %u", len);
		EXPECT_UNPARSED(&f, len, what);
	}
}

TEST_F(xdp, truncated_vlan_tag_is_unparsed)
{
	static const __u16 one[] = { ETH_P_8021Q };
	static const __u16 qinq[] = { ETH_P_8021AD, ETH_P_8021Q };
	struct frame f = { .len = 0 };
	char what[64];
	unsigned int len;

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	put_eth(&f, one, 1, ETH_P_IP);
	put_ipv4(&f, BLOCKED4, 5);
	for (len = ETH_HLEN; len < ETH_HLEN + VLAN_HLEN; len++) {
		snprintf(what, sizeof(what), "one tag, cut at %u", len);
		EXPECT_UNPARSED(&f, len, what);
	}
	f.len = 0;
	put_eth(&f, qinq, 2, ETH_P_IP);
	put_ipv4(&f, BLOCKED4, 5);
	for (len = ETH_HLEN; len < ETH_HLEN + 2 * VLAN_HLEN; len++) {
		snprintf(what, sizeof(what), "two tags, cut at %u", len);
		EXPECT_UNPARSED(&f, len, what);
	}
}

TEST_F(xdp, truncated_ipv4_is_unparsed_until_its_addresses)
{
	struct frame f = frame4(BLOCKED4, 5);
	char what[64];
	unsigned int len;

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	for (len = ETH_HLEN; len < ETH_HLEN + sizeof(struct iphdr); len++) {
		snprintf(what, sizeof(what), "IPv4 header cut at %u", len);
		EXPECT_UNPARSED(&f, len, what);
	}
	for (; len <= f.len; len++) {
		snprintf(what, sizeof(what), "ICMP header cut at %u", len);
		EXPECT_DROP(&f, len, what);
	}
}

TEST_F(xdp, truncated_ipv6_is_unparsed_until_its_addresses)
{
	struct frame f = frame6(BLOCKED6);
	char what[64];
	unsigned int len;

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET6, BLOCKED6));
	for (len = ETH_HLEN; len < ETH_HLEN + sizeof(struct ipv6hdr); len++) {
		snprintf(what, sizeof(what), "IPv6 header cut at %u", len);
		EXPECT_UNPARSED(&f, len, what);
	}
	for (; len <= f.len; len++) {
		snprintf(what, sizeof(what), "ICMPv6 header cut at %u", len);
		EXPECT_DROP(&f, len, what);
	}
}

TEST_F(xdp, ipv4_ihl_below_5_is_unparsed)
{
	struct frame f = frame4(BLOCKED4, 5);
	char what[64];
	unsigned int ihl;

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	for (ihl = 0; ihl < 5; ihl++) {
		set_ihl(&f, ihl);
		snprintf(what, sizeof(what), "IPv4 IHL %u", ihl);
		EXPECT_UNPARSED(&f, f.len, what);
	}
}

/*
 * Options that run past the end of the frame: a truncated header, but its
 * addresses are whole, and a blocked one is dropped. Options longer than
 * the datagram are malformed: unparsed.
 */
TEST_F(xdp, ipv4_options_beyond_frame_drop_a_blocked_source)
{
	struct frame f;
	char what[64];
	unsigned int ihl, len;

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	for (ihl = 6; ihl <= 15; ihl++) {
		f = frame4(BLOCKED4, ihl);
		len = ETH_HLEN + ihl * 4 - 1;
		snprintf(what, sizeof(what), "IPv4 IHL %u, frame cut in options",
			 ihl);
		EXPECT_DROP(&f, len, what);
	}
	f = frame4(BLOCKED4, 5);
	set_ihl(&f, 15);
	EXPECT_UNPARSED(&f, f.len, "IPv4 IHL 15 in a 28-byte packet");
}

TEST_F(xdp, ip_version_mismatch_is_unparsed)
{
	struct frame f4 = frame4(BLOCKED4, 5), f6 = frame6(BLOCKED6);

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET6, BLOCKED6));
	set_ip_version(&f4, 6);
	EXPECT_UNPARSED(&f4, f4.len, "EtherType IPv4, version 6");
	set_ip_version(&f6, 4);
	EXPECT_UNPARSED(&f6, f6.len, "EtherType IPv6, version 4");
}

/*
 * Header shapes, table-driven. A shape lists the layers after the Ethernet
 * header; each one is sent once from a blocked and once from an unblocked
 * source, and its outcome says what both must get.
 */
enum layer_kind {
	L_END,
	L_VLAN,		/* a: TPID */
	L_IPV4,		/* a: IHL, b: frag_off (host order) */
	L_IPV6,		/* a: hop limit */
	L_EXT6,		/* a: type, b: hdrlen */
	L_FRAG6,	/* a: offset in bytes, b: more fragments */
	L_TCP,		/* a: data offset, b: bytes of it in the datagram (0: all) */
	L_UDP,		/* b: bytes of it in the datagram (0: all) */
	L_ICMP,		/* a: IPPROTO_ICMP or IPPROTO_ICMPV6, b: type */
	L_OPAQUE,	/* a: protocol, b: bytes of it */
	L_DATA,		/* a: bytes of payload */
};

struct layer {
	enum layer_kind kind;
	unsigned int a, b;
};

#define VLAN_Q			{ L_VLAN, ETH_P_8021Q, 0 }
#define VLAN_AD			{ L_VLAN, ETH_P_8021AD, 0 }
#define IPV4(ihl, frag_off)	{ L_IPV4, ihl, frag_off }
#define IPV6(hop_limit)		{ L_IPV6, hop_limit, 0 }
#define HOPOPTS(hdrlen)		{ L_EXT6, IPPROTO_HOPOPTS, hdrlen }
#define ROUTING(hdrlen)		{ L_EXT6, IPPROTO_ROUTING, hdrlen }
#define DSTOPTS(hdrlen)		{ L_EXT6, IPPROTO_DSTOPTS, hdrlen }
#define FRAG6(offset, more)	{ L_FRAG6, offset, more }
#define TCP(doff)		{ L_TCP, doff, 0 }
#define TCPN(doff, n)		{ L_TCP, doff, n }
#define UDP			{ L_UDP, 0, 0 }
#define UDPN(n)			{ L_UDP, 0, n }
#define ICMP(type)		{ L_ICMP, IPPROTO_ICMP, type }
#define ICMP6(type)		{ L_ICMP, IPPROTO_ICMPV6, type }
#define OPAQUE(proto, len)	{ L_OPAQUE, proto, len }
#define DATA(len)		{ L_DATA, len, 0 }

#define MF		0x2000	/* IPv4 more fragments */
#define DF		0x4000	/* IPv4 don't fragment */
#define OFF(bytes)	((bytes) / 8)	/* IPv4 fragment offset field */

enum outcome {
	PARSED,		/* blocked: DROP; else PASS */
	NOT_IP,		/* PASS, counted UNPARSED, blocked or not */
	CUT,		/* blocked: DROP; else PASS, counted UNPARSED */
	TINY,		/* blocked: DROP; else DROP_FRAG */
	DEEP,		/* blocked: DROP; else DROP_DEEP */
	DEEP_L2,	/* DROP_DEEP, blocked or not: no addresses */
	EXEMPT,		/* PASS, counted PASS, blocked or not */
};

struct shape {
	const char *name;
	struct layer layers[CFILTER_MAX_EXT_HDRS + 9];
	unsigned int cut;	/* bytes taken off the end of the frame */
	enum outcome outcome;
};

static struct frame build(const struct shape *s, bool blocked)
{
	struct frame f = { .len = 0 };
	const struct layer *l;
	__u16 tpids[4];
	int ntags = 0;

	for (l = s->layers; l->kind != L_END; l++) {
		switch (l->kind) {
		case L_VLAN:
			tpids[ntags++] = l->a;
			break;
		case L_IPV4:
			put_eth(&f, tpids, ntags, ETH_P_IP);
			put_ip4(&f, blocked ? BLOCKED4 : OTHER4, l->a, l->b);
			break;
		case L_IPV6:
			put_eth(&f, tpids, ntags, ETH_P_IPV6);
			put_ip6(&f, blocked ? BLOCKED6 : OTHER6, l->a);
			break;
		case L_EXT6:
			put_ext6(&f, l->a, l->b);
			break;
		case L_FRAG6:
			put_frag6(&f, l->a, l->b);
			break;
		case L_TCP:
			put_tcp(&f, l->a);
			if (l->b)
				f.len -= (l->a < 5 ? 20 : l->a * 4) - l->b;
			break;
		case L_UDP:
			put_udp(&f);
			if (l->b)
				f.len -= UDP_HLEN - l->b;
			break;
		case L_ICMP:
			put_icmp(&f, l->a, l->b);
			break;
		case L_OPAQUE:
			put_opaque(&f, l->a, l->b);
			break;
		case L_DATA:
			put_zeros(&f, l->a);
			break;
		case L_END:
			break;
		}
	}
	ip_done(&f);
	f.len -= s->cut;
	return f;
}

/* What @f, from a blocked source or not, must get: see enum outcome. */
static void expect_outcome(struct __test_metadata *_metadata,
			   FIXTURE_DATA(xdp) *self, const struct frame *f,
			   enum outcome outcome, bool blocked, const char *what)
{
	static const int verdict[][2] = {	/* [outcome][blocked] */
		[PARSED]	= { XDP_PASS, XDP_DROP },
		[NOT_IP]	= { XDP_PASS, XDP_PASS },
		[CUT]		= { XDP_PASS, XDP_DROP },
		[TINY]		= { XDP_DROP, XDP_DROP },
		[DEEP]		= { XDP_DROP, XDP_DROP },
		[DEEP_L2]	= { XDP_DROP, XDP_DROP },
		[EXEMPT]	= { XDP_PASS, XDP_PASS },
	};
	static const int stat[][2] = {
		[PARSED]	= { CFILTER_STAT_PASS, CFILTER_STAT_DROP_SRC },
		[NOT_IP]	= { CFILTER_STAT_UNPARSED, CFILTER_STAT_UNPARSED },
		[CUT]		= { CFILTER_STAT_UNPARSED, CFILTER_STAT_DROP_SRC },
		[TINY]		= { CFILTER_STAT_DROP_FRAG, CFILTER_STAT_DROP_SRC },
		[DEEP]		= { CFILTER_STAT_DROP_DEEP, CFILTER_STAT_DROP_SRC },
		[DEEP_L2]	= { CFILTER_STAT_DROP_DEEP, CFILTER_STAT_DROP_DEEP },
		[EXEMPT]	= { CFILTER_STAT_PASS, CFILTER_STAT_PASS },
	};

	expect_verdict(_metadata, self, f, f->len, verdict[outcome][blocked],
		       stat[outcome][blocked], what);
}

static void expect_shapes(struct __test_metadata *_metadata,
			  FIXTURE_DATA(xdp) *self, const struct shape *shapes,
			  size_t n)
{
	struct frame f;
	char what[128];
	size_t i;
	int b;

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET6, BLOCKED6));
	for (i = 0; i < n; i++) {
		for (b = 0; b < 2; b++) {
			f = build(&shapes[i], b);
			snprintf(what, sizeof(what), "%s, %s source",
				 shapes[i].name, b ? "blocked" : "unblocked");
			expect_outcome(_metadata, self, &f, shapes[i].outcome,
				       b, what);
		}
	}
}

#define EXPECT_SHAPES(shapes) \
	expect_shapes(_metadata, self, shapes, ARRAY_SIZE(shapes))

TEST_F(xdp, vlan_shapes)
{
	static const struct shape shapes[] = {
		{ "untagged IPv4 TCP", { IPV4(5, 0), TCP(5) }, 0, PARSED },
		{ "802.1Q IPv4 UDP", { VLAN_Q, IPV4(5, 0), UDP }, 0, PARSED },
		{ "QinQ IPv4 TCP", { VLAN_AD, VLAN_Q, IPV4(5, 0), TCP(5) },
		  0, PARSED },
		{ "untagged IPv6 TCP", { IPV6(64), TCP(5) }, 0, PARSED },
		{ "802.1Q IPv6 UDP", { VLAN_Q, IPV6(64), UDP }, 0, PARSED },
		{ "QinQ IPv6 ICMPv6", { VLAN_AD, VLAN_Q, IPV6(64), ICMP6(128) },
		  0, PARSED },
		{ "three tags IPv6", { VLAN_AD, VLAN_Q, VLAN_Q, IPV6(64), UDP },
		  0, DEEP_L2 },
	};

	EXPECT_SHAPES(shapes);
}

TEST_F(xdp, ipv4_shapes)
{
	static const struct shape shapes[] = {
		{ "TCP", { IPV4(5, 0), TCP(5) }, 0, PARSED },
		{ "TCP with 40 bytes of options", { IPV4(5, 0), TCP(15) },
		  0, PARSED },
		{ "IP options, TCP", { IPV4(15, 0), TCP(5), DATA(4) },
		  0, PARSED },
		{ "UDP", { IPV4(5, 0), UDP, DATA(4) }, 0, PARSED },
		{ "ICMP echo", { IPV4(5, 0), ICMP(8) }, 0, PARSED },
		{ "ICMP type 135 is not ND", { IPV4(5, 0), ICMP(135) },
		  0, PARSED },
		{ "GRE, not read", { IPV4(5, 0), OPAQUE(IPPROTO_GRE, 4) },
		  0, PARSED },
		{ "unknown protocol, no payload", { IPV4(5, 0), OPAQUE(253, 0) },
		  0, PARSED },
		{ "DF is no fragment", { IPV4(5, DF), TCP(5) }, 0, PARSED },
		{ "first fragment", { IPV4(5, MF), TCP(5), DATA(8) }, 0, PARSED },
		{ "first fragment, options", { IPV4(6, MF), UDP, DATA(8) },
		  0, PARSED },
		{ "middle fragment, TCP not read",
		  { IPV4(5, MF | OFF(1480)), OPAQUE(IPPROTO_TCP, 8) }, 0, PARSED },
		{ "last fragment, 1 byte",
		  { IPV4(5, OFF(8)), OPAQUE(IPPROTO_UDP, 1) }, 0, PARSED },
		{ "last fragment, no payload",
		  { IPV4(5, OFF(8)), OPAQUE(IPPROTO_TCP, 0) }, 0, PARSED },
		/* The ports are read whenever their 4 bytes are there. */
		{ "first fragment, TCP cut", { IPV4(5, MF), TCP(5) }, 1, PARSED },
		{ "first fragment, 8 bytes of TCP in the frame",
		  { IPV4(5, MF), TCP(5) }, 12, PARSED },
		{ "first fragment of 8 bytes of TCP",
		  { IPV4(5, MF), OPAQUE(IPPROTO_TCP, 8) }, 0, PARSED },
		{ "first fragment of 4 bytes of UDP",
		  { IPV4(5, MF), OPAQUE(IPPROTO_UDP, 4) }, 0, PARSED },
		{ "TCP header cut", { IPV4(5, 0), TCP(5) }, 1, PARSED },
		{ "TCP doff 4", { IPV4(5, 0), TCP(4), DATA(20) }, 0, PARSED },
		{ "TCP doff 0", { IPV4(5, 0), TCP(0), DATA(20) }, 0, PARSED },
		{ "TCP options cut", { IPV4(5, 0), TCP(8) }, 1, PARSED },
		{ "UDP header cut", { IPV4(5, 0), UDP }, 1, PARSED },
		{ "ICMP header cut", { IPV4(5, 0), ICMP(8) }, 1, PARSED },
		/* Without them: truncated, or a tiny first fragment. */
		{ "no TCP header", { IPV4(5, 0), OPAQUE(IPPROTO_TCP, 0) },
		  0, CUT },
		{ "3 bytes of UDP", { IPV4(5, 0), OPAQUE(IPPROTO_UDP, 3) },
		  0, CUT },
		{ "ports cut by the frame", { IPV4(5, 0), TCP(5) }, 17, CUT },
		{ "first fragment of 3 bytes of TCP",
		  { IPV4(5, MF), OPAQUE(IPPROTO_TCP, 3) }, 0, TINY },
		{ "first fragment without UDP",
		  { IPV4(5, MF), OPAQUE(IPPROTO_UDP, 0) }, 0, TINY },
		{ "first fragment of 1 byte of ICMP",
		  { IPV4(5, MF), OPAQUE(IPPROTO_ICMP, 1) }, 0, TINY },
		{ "first fragment without GRE: no ports to hide",
		  { IPV4(5, MF), OPAQUE(IPPROTO_GRE, 0) }, 0, PARSED },
	};

	EXPECT_SHAPES(shapes);
}

TEST_F(xdp, ipv6_shapes)
{
	static const struct shape shapes[] = {
		{ "TCP", { IPV6(64), TCP(5) }, 0, PARSED },
		{ "UDP", { IPV6(64), UDP }, 0, PARSED },
		{ "ICMPv6 echo", { IPV6(64), ICMP6(128) }, 0, PARSED },
		{ "hop-by-hop, TCP", { IPV6(64), HOPOPTS(0), TCP(5) }, 0, PARSED },
		{ "routing, UDP", { IPV6(64), ROUTING(2), UDP }, 0, PARSED },
		{ "destination options, TCP", { IPV6(64), DSTOPTS(1), TCP(5) },
		  0, PARSED },
		{ "2 KiB of destination options, UDP",
		  { IPV6(64), DSTOPTS(255), UDP }, 0, PARSED },
		{ "hop-by-hop, dstopts, routing, first fragment, dstopts, TCP",
		  { IPV6(64), HOPOPTS(0), DSTOPTS(0), ROUTING(2), FRAG6(0, 1),
		    DSTOPTS(0), TCP(5), DATA(8) }, 0, PARSED },
		{ "six extension headers, UDP",
		  { IPV6(64), HOPOPTS(0), DSTOPTS(0), ROUTING(0), DSTOPTS(0),
		    DSTOPTS(0), DSTOPTS(0), UDP }, 0, PARSED },
		{ "six extension headers, then a fragment header",
		  { IPV6(64), HOPOPTS(0), DSTOPTS(0), ROUTING(0), DSTOPTS(0),
		    DSTOPTS(0), DSTOPTS(0), FRAG6(0, 1), UDP }, 0, DEEP },
		{ "seven extension headers, UDP",
		  { IPV6(64), HOPOPTS(0), DSTOPTS(0), ROUTING(0), DSTOPTS(0),
		    DSTOPTS(0), DSTOPTS(0), DSTOPTS(0), UDP }, 0, DEEP },
		{ "first fragment, TCP", { IPV6(64), FRAG6(0, 1), TCP(5) },
		  0, PARSED },
		{ "atomic fragment, UDP", { IPV6(64), FRAG6(0, 0), UDP },
		  0, PARSED },
		{ "middle fragment, TCP not read",
		  { IPV6(64), FRAG6(1448, 1), OPAQUE(IPPROTO_TCP, 8) },
		  0, PARSED },
		{ "last fragment, no payload",
		  { IPV6(64), HOPOPTS(0), FRAG6(8, 0), OPAQUE(IPPROTO_UDP, 0) },
		  0, PARSED },
		{ "later fragment of a routing header",
		  { IPV6(64), FRAG6(8, 1), OPAQUE(IPPROTO_ROUTING, 1) },
		  0, PARSED },
		{ "AH", { IPV6(64), OPAQUE(IPPROTO_AH, 24) }, 0, PARSED },
		{ "ESP", { IPV6(64), OPAQUE(IPPROTO_ESP, 16) }, 0, PARSED },
		{ "hop-by-hop, ESP", { IPV6(64), HOPOPTS(0), OPAQUE(IPPROTO_ESP, 0) },
		  0, PARSED },
		{ "no next header", { IPV6(64), OPAQUE(IPPROTO_NONE, 0) },
		  0, PARSED },
		{ "unknown protocol", { IPV6(64), DSTOPTS(0), OPAQUE(253, 3) },
		  0, PARSED },
		{ "ICMP (v4) in IPv6, not read", { IPV6(64), OPAQUE(IPPROTO_ICMP, 0) },
		  0, PARSED },
		{ "hop-by-hop header cut", { IPV6(64), HOPOPTS(0) }, 1, CUT },
		{ "hop-by-hop header, 1 byte", { IPV6(64), HOPOPTS(0) }, 7, CUT },
		{ "routing header longer than the frame",
		  { IPV6(64), ROUTING(2), TCP(5) }, 21, CUT },
		{ "routing header longer than the datagram",
		  { IPV6(64), OPAQUE(IPPROTO_ROUTING, 4) }, 0, CUT },
		{ "fragment header cut", { IPV6(64), FRAG6(0, 1), UDP },
		  UDP_HLEN + 1, CUT },
		{ "later fragment header cut",
		  { IPV6(64), FRAG6(8, 1), OPAQUE(IPPROTO_UDP, 0) }, 1, CUT },
		{ "TCP header cut", { IPV6(64), HOPOPTS(0), TCP(5) }, 1, PARSED },
		{ "TCP doff 4", { IPV6(64), TCP(4), DATA(20) }, 0, PARSED },
		{ "TCP doff 15 in a 20-byte datagram",
		  { IPV6(64), TCPN(15, 20) }, 0, PARSED },
		{ "TCP options cut", { IPV6(64), TCP(6) }, 1, PARSED },
		{ "UDP header cut", { IPV6(64), FRAG6(0, 1), UDP }, 1, PARSED },
		{ "ICMPv6 header cut", { IPV6(64), ICMP6(128) }, 1, PARSED },
		{ "first fragment of 2 bytes of TCP",
		  { IPV6(64), FRAG6(0, 1), OPAQUE(IPPROTO_TCP, 2) }, 0, TINY },
		{ "first fragment ending inside its extension headers",
		  { IPV6(64), FRAG6(0, 1), OPAQUE(IPPROTO_DSTOPTS, 4) }, 0, TINY },
	};

	EXPECT_SHAPES(shapes);
}

/*
 * The TC program on @f: its verdict, or -errno. BPF_PROG_TEST_RUN builds
 * an skb whose data is all linear, so the program's second pull has
 * nothing to pull here; what this shows is that the parser follows the
 * headers far past TC_PULL_LEN and that the verdicts are the XDP
 * program's.
 */
static int run_tc(FIXTURE_DATA(xdp) *self, const struct frame *f)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = f->data,
		.data_size_in = f->len,
		.repeat = 1,
	);

	if (bpf_prog_test_run_opts(bpf_program__fd(self->skel->progs.cfilter_tc),
				   &opts))
		return -errno;
	return opts.retval;
}

TEST_F(xdp, tc_follows_headers_past_its_first_pull)
{
	static const struct {
		struct shape shape;
		int blocked, other;	/* TC verdicts */
	} cases[] = {
		{ { "1 KiB of destination options, UDP",
		    { IPV6(64), DSTOPTS(127), UDP }, 0, PARSED },
		  TC_ACT_SHOT, TC_ACT_OK },
		{ { "hop-by-hop, 2 KiB of destination options, TCP",
		    { VLAN_Q, IPV6(64), HOPOPTS(0), DSTOPTS(255), TCP(5) },
		    0, PARSED },
		  TC_ACT_SHOT, TC_ACT_OK },
		{ { "seven extension headers",
		    { IPV6(64), HOPOPTS(0), DSTOPTS(0), ROUTING(0), DSTOPTS(0),
		      DSTOPTS(0), DSTOPTS(0), DSTOPTS(0), UDP }, 0, DEEP },
		  TC_ACT_SHOT, TC_ACT_SHOT },
		{ { "first fragment of 3 bytes of TCP",
		    { IPV4(5, MF), TCPN(5, 3) }, 0, TINY },
		  TC_ACT_SHOT, TC_ACT_SHOT },
		{ { "three VLAN tags",
		    { VLAN_AD, VLAN_Q, VLAN_Q, IPV4(5, 0), UDP }, 0, DEEP_L2 },
		  TC_ACT_SHOT, TC_ACT_SHOT },
	};
	struct frame f;
	size_t i;

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET6, BLOCKED6));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		f = build(&cases[i].shape, true);
		EXPECT_EQ(cases[i].blocked, run_tc(self, &f))
			TH_LOG("%s, blocked source", cases[i].shape.name);
		f = build(&cases[i].shape, false);
		EXPECT_EQ(cases[i].other, run_tc(self, &f))
			TH_LOG("%s, unblocked source", cases[i].shape.name);
	}
}

/*
 * Blocked sources behind 0 to CFILTER_MAX_EXT_HDRS + 6 destination options
 * headers are dropped whatever the count: the addresses come first. Past
 * the bound, an unblocked source is dropped too, by policy.
 */
TEST_F(xdp, extension_header_counts_up_to_and_past_the_bound)
{
	struct shape s = { .name = "" };
	struct frame f;
	char what[96];
	unsigned int n, i;
	int b;

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET6, BLOCKED6));
	for (n = 0; n <= CFILTER_MAX_EXT_HDRS + 6; n++) {
		memset(s.layers, 0, sizeof(s.layers));
		s.layers[0] = (struct layer)IPV6(64);
		for (i = 0; i < n && i + 2 < ARRAY_SIZE(s.layers); i++)
			s.layers[1 + i] = (struct layer)DSTOPTS(0);
		s.layers[1 + i] = (struct layer)UDP;
		ASSERT_EQ(n, i) TH_LOG("room for %u headers only", i);
		for (b = 0; b < 2; b++) {
			f = build(&s, b);
			snprintf(what, sizeof(what), "%u destination options headers, %s source",
				 n, b ? "blocked" : "unblocked");
			if (b)
				EXPECT_DROP(&f, f.len, what);
			else if (n <= CFILTER_MAX_EXT_HDRS)
				EXPECT_PASS(&f, f.len, what);
			else
				expect_verdict(_metadata, self, &f, f.len, XDP_DROP,
					       CFILTER_STAT_DROP_DEEP, what);
		}
	}
}

/*
 * Neighbor Discovery passes even from a blocked source; what the stack
 * would not take as ND (hop limit below 255, fragmented) does not.
 */
TEST_F(xdp, neighbour_discovery_shapes)
{
	static const struct shape shapes[] = {
		{ "router solicitation", { IPV6(255), ICMP6(133) }, 0, EXEMPT },
		{ "router advertisement", { IPV6(255), ICMP6(134), DATA(8) },
		  0, EXEMPT },
		{ "neighbour solicitation", { IPV6(255), ICMP6(135), DATA(16) },
		  0, EXEMPT },
		{ "neighbour advertisement", { VLAN_Q, IPV6(255), ICMP6(136),
		  DATA(16) }, 0, EXEMPT },
		{ "redirect", { IPV6(255), ICMP6(137), DATA(32) }, 0, EXEMPT },
		{ "neighbour solicitation after hop-by-hop",
		  { IPV6(255), HOPOPTS(0), ICMP6(135), DATA(16) }, 0, EXEMPT },
		{ "neighbour solicitation, hop limit 254",
		  { IPV6(254), ICMP6(135), DATA(16) }, 0, PARSED },
		{ "neighbour solicitation, first fragment",
		  { IPV6(255), FRAG6(0, 1), ICMP6(135), DATA(16) }, 0, PARSED },
		{ "neighbour solicitation, later fragment",
		  { IPV6(255), FRAG6(8, 0), ICMP6(135) }, 0, PARSED },
		{ "neighbour solicitation, ICMPv6 header cut after its type",
		  { IPV6(255), ICMP6(135) }, 4, EXEMPT },
		{ "neighbour solicitation, ICMPv6 header cut before its code",
		  { IPV6(255), ICMP6(135) }, 7, CUT },
		{ "MLD done (132)", { IPV6(255), ICMP6(132) }, 0, PARSED },
		{ "router renumbering (138)", { IPV6(255), ICMP6(138) },
		  0, PARSED },
		{ "echo request, hop limit 255", { IPV6(255), ICMP6(128) },
		  0, PARSED },
		{ "ICMP (v4) type 135 in IPv6", { IPV6(255), ICMP(135) },
		  0, PARSED },
		{ "IPv4 ICMP type 135, TTL 64", { IPV4(5, 0), ICMP(135) },
		  0, PARSED },
	};

	EXPECT_SHAPES(shapes);
}

/*
 * Every cut of one frame: before the IP header's addresses end, the frame
 * is unparsed; from there, a blocked source is dropped; an unblocked one is
 * unparsed (a truncated frame) until the ports are whole, then passed.
 */
static void expect_every_cut(struct __test_metadata *_metadata,
			     FIXTURE_DATA(xdp) *self, const struct shape *s)
{
	struct frame blocked = build(s, true), other = build(s, false);
	unsigned int addr_end, ports_end, len;
	char what[128];

	addr_end = blocked.l3 + (blocked.family == AF_INET6 ?
				 sizeof(struct ipv6hdr) : sizeof(struct iphdr));
	ports_end = blocked.l4 + 2 * sizeof(__be16);
	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET6, BLOCKED6));
	ASSERT_LT(ports_end, blocked.len);
	for (len = 0; len <= blocked.len; len++) {
		snprintf(what, sizeof(what), "%s cut at %u of %u (addresses end at %u, ports at %u)",
			 s->name, len, blocked.len, addr_end, ports_end);
		if (len < addr_end) {
			EXPECT_UNPARSED(&blocked, len, what);
			EXPECT_UNPARSED(&other, len, what);
		} else if (len < ports_end) {
			EXPECT_DROP(&blocked, len, what);
			EXPECT_UNPARSED(&other, len, what);
		} else {
			EXPECT_DROP(&blocked, len, what);
			EXPECT_PASS(&other, len, what);
		}
	}
}

TEST_F(xdp, every_cut_of_vlan_ipv6_ext_chain_tcp)
{
	static const struct shape s = {
		.name = "802.1Q IPv6 hop-by-hop routing fragment TCP",
		.layers = { VLAN_Q, IPV6(64), HOPOPTS(0), ROUTING(2),
			    FRAG6(0, 1), TCP(8), DATA(16) },
	};

	expect_every_cut(_metadata, self, &s);
}

TEST_F(xdp, every_cut_of_ipv4_options_tcp)
{
	static const struct shape s = {
		.name = "IPv4 with options, TCP",
		.layers = { IPV4(8, 0), TCP(6), DATA(16) },
	};

	expect_every_cut(_metadata, self, &s);
}

/*
 * The IP datagram's own length bounds what is parsed after the IP header.
 * Each shape is built whole, then its IP length field (IPv4 tot_len, IPv6
 * payload_len) declares @ip_short bytes fewer than the frame holds, and
 * @pad bytes of link padding follow: bytes past the declared length are
 * padding, not headers.
 */
struct len_shape {
	struct shape	shape;
	unsigned int	ip_short;
	unsigned int	pad;
};

/* Declare the datagram to end @end bytes into the frame; keep the bytes. */
static void set_ip_end(struct frame *f, unsigned int end)
{
	unsigned int len = f->len;

	f->len = end;
	ip_done(f);
	f->len = len;
}

static void expect_len_shapes(struct __test_metadata *_metadata,
			      FIXTURE_DATA(xdp) *self,
			      const struct len_shape *shapes, size_t n)
{
	const struct shape *s;
	struct frame f;
	char what[160];
	size_t i;
	int b;

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET6, BLOCKED6));
	for (i = 0; i < n; i++) {
		s = &shapes[i].shape;
		for (b = 0; b < 2; b++) {
			f = build(s, b);
			set_ip_end(&f, f.len - shapes[i].ip_short);
			put_zeros(&f, shapes[i].pad);
			snprintf(what, sizeof(what),
				 "%s (IP length %u short, %u bytes of padding), %s source",
				 s->name, shapes[i].ip_short, shapes[i].pad,
				 b ? "blocked" : "unblocked");
			expect_outcome(_metadata, self, &f, s->outcome, b, what);
		}
	}
}

#define EXPECT_LEN_SHAPES(shapes) \
	expect_len_shapes(_metadata, self, shapes, ARRAY_SIZE(shapes))

TEST_F(xdp, ipv4_total_length_bounds_l4)
{
	static const struct len_shape shapes[] = {
		{ { "UDP padded to 60 bytes", { IPV4(5, 0), UDP }, 0, PARSED },
		  0, 18 },
		{ { "ICMP echo padded to 60 bytes", { IPV4(5, 0), ICMP(8) },
		    0, PARSED }, 0, 18 },
		{ { "TCP padded to 60 bytes", { IPV4(5, 0), TCP(5) }, 0, PARSED },
		  0, 6 },
		{ { "UDP, payload cut by tot_len", { IPV4(5, 0), UDP, DATA(10) },
		    0, PARSED }, 10, 8 },
		/* The ports are in: the rest of the header need not be. */
		{ { "UDP header ends past tot_len", { IPV4(5, 0), UDP },
		    0, PARSED }, 1, 0 },
		{ { "tot_len of the IP header alone, UDP in the padding",
		    { IPV4(5, 0), UDP }, 0, CUT }, UDP_HLEN, 18 },
		{ { "TCP header ends past tot_len", { IPV4(5, 0), TCP(5) },
		    0, PARSED }, 1, 0 },
		{ { "tot_len of the IP header alone, TCP in the frame",
		    { IPV4(5, 0), TCP(5) }, 0, CUT }, 20, 0 },
		{ { "3 bytes of TCP in the datagram, the rest in the frame",
		    { IPV4(5, 0), TCP(5) }, 0, CUT }, 17, 0 },
		{ { "first fragment of 3 bytes of TCP, the rest in the frame",
		    { IPV4(5, MF), TCP(5) }, 0, TINY }, 17, 0 },
		{ { "TCP options end past tot_len", { IPV4(5, 0), TCP(8) },
		    0, PARSED }, 4, 0 },
		{ { "ICMP header ends past tot_len", { IPV4(5, 0), ICMP(8) },
		    0, PARSED }, 1, 0 },
		{ { "IP options end past tot_len", { IPV4(6, 0), UDP },
		    0, NOT_IP }, UDP_HLEN + 1, 0 },
		{ { "IP options, UDP ends past tot_len", { IPV4(6, 0), UDP },
		    0, PARSED }, 1, 0 },
		{ { "first fragment, TCP ends past tot_len",
		    { IPV4(5, MF), TCP(5), DATA(8) }, 0, PARSED }, 9, 0 },
		{ { "non-first fragment of the header alone, UDP not read",
		    { IPV4(5, OFF(8)), OPAQUE(IPPROTO_UDP, 8) }, 0, PARSED },
		  8, 0 },
		{ { "GRE, not read, past tot_len",
		    { IPV4(5, 0), OPAQUE(IPPROTO_GRE, 4) }, 0, PARSED }, 4, 0 },
	};

	EXPECT_LEN_SHAPES(shapes);
}

TEST_F(xdp, ipv6_payload_length_bounds_l4)
{
	static const struct len_shape shapes[] = {
		{ { "UDP, 4 bytes of padding", { IPV6(64), UDP }, 0, PARSED },
		  0, 4 },
		{ { "TCP, payload cut by payload_len",
		    { IPV6(64), TCP(5), DATA(12) }, 0, PARSED }, 12, 0 },
		/* The ports, or the ICMPv6 type, are in: that is enough. */
		{ { "TCP header ends past payload_len", { IPV6(64), TCP(5) },
		    0, PARSED }, 1, 0 },
		{ { "payload_len 8, TCP", { IPV6(64), TCP(5) }, 0, PARSED },
		  12, 0 },
		{ { "TCP options end past payload_len", { IPV6(64), TCP(6) },
		    0, PARSED }, 4, 0 },
		{ { "UDP header ends past payload_len", { IPV6(64), UDP },
		    0, PARSED }, 1, 4 },
		{ { "payload_len 0, UDP in the frame", { IPV6(64), UDP },
		    0, CUT }, UDP_HLEN, 0 },
		{ { "ICMPv6 header ends past payload_len",
		    { IPV6(64), ICMP6(128) }, 0, PARSED }, 1, 0 },
		{ { "neighbour solicitation, payload_len 4",
		    { IPV6(255), ICMP6(135), DATA(16) }, 0, EXEMPT }, 20, 0 },
		{ { "destination options end past payload_len",
		    { IPV6(64), DSTOPTS(1), UDP }, 0, CUT },
		  UDP_HLEN + 1, 0 },
		{ { "fragment header ends past payload_len",
		    { IPV6(64), DSTOPTS(0), FRAG6(0, 1), UDP }, 0, CUT },
		  UDP_HLEN + 1, 0 },
		{ { "UDP after a fragment header ends past payload_len",
		    { IPV6(64), FRAG6(0, 1), UDP }, 0, PARSED }, 1, 0 },
		{ { "first fragment, 1 byte of UDP in the datagram",
		    { IPV6(64), FRAG6(0, 1), UDP }, 0, TINY }, 7, 0 },
		{ { "payload_len 0, no next header",
		    { IPV6(64), OPAQUE(IPPROTO_NONE, 8) }, 0, PARSED }, 8, 0 },
		{ { "jumbogram (payload_len 0, hop-by-hop), UDP",
		    { IPV6(64), HOPOPTS(0), UDP }, 0, PARSED }, 16, 0 },
		{ { "jumbogram, TCP cut by the frame",
		    { IPV6(64), HOPOPTS(0), TCP(5) }, 1, PARSED }, 27, 0 },
		{ { "jumbogram, TCP ports cut by the frame",
		    { IPV6(64), HOPOPTS(0), TCP(5) }, 17, CUT }, 27, 0 },
		{ { "payload_len 0 after a destination options header",
		    { IPV6(64), DSTOPTS(0), UDP }, 0, CUT }, 16, 0 },
	};

	EXPECT_LEN_SHAPES(shapes);
}

/*
 * Every length the IP header may declare for one frame: shorter than the
 * IP header itself, the packet is malformed (unparsed); from there a
 * blocked source is dropped. An unblocked one is dropped as a tiny
 * fragment if the datagram ends after its first-fragment header (which
 * ends at @frag_end, 0 if none) but before the ports, unparsed if it ends
 * before them otherwise, and passed once they are whole.
 */
static void expect_every_ip_len(struct __test_metadata *_metadata,
				FIXTURE_DATA(xdp) *self, const struct shape *s,
				unsigned int frag_end)
{
	struct frame blocked = build(s, true), other = build(s, false);
	unsigned int addr_end, ports_end, end, first;
	char what[128];

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET6, BLOCKED6));
	/* IPv4's tot_len covers its options; IPv6's payload_len does not. */
	addr_end = blocked.family == AF_INET6 ?
		   blocked.l3 + sizeof(struct ipv6hdr) : blocked.l4;
	ports_end = blocked.l4 + 2 * sizeof(__be16);
	ASSERT_LT(ports_end, blocked.len);
	/* An IPv6 length field cannot declare less than its own header. */
	first = blocked.l3 + (blocked.family == AF_INET6 ?
			      sizeof(struct ipv6hdr) : 0);
	for (end = first; end <= blocked.len; end++) {
		set_ip_end(&blocked, end);
		set_ip_end(&other, end);
		snprintf(what, sizeof(what),
			 "%s, datagram ends at %u of %u (ports end at %u)",
			 s->name, end, blocked.len, ports_end);
		if (end < addr_end) {
			EXPECT_UNPARSED(&blocked, blocked.len, what);
			EXPECT_UNPARSED(&other, other.len, what);
			continue;
		}
		EXPECT_DROP(&blocked, blocked.len, what);
		if (end >= ports_end)
			EXPECT_PASS(&other, other.len, what);
		else if (frag_end && end >= frag_end)
			expect_verdict(_metadata, self, &other, other.len,
				       XDP_DROP, CFILTER_STAT_DROP_FRAG, what);
		else
			EXPECT_UNPARSED(&other, other.len, what);
	}
}

TEST_F(xdp, every_ip_len_of_ipv4_options_tcp)
{
	static const struct shape s = {
		.name = "IPv4 with options, TCP",
		.layers = { IPV4(8, 0), TCP(6), DATA(16) },
	};

	expect_every_ip_len(_metadata, self, &s, 0);
}

/* No hop-by-hop header first: payload_len 0 would make it a jumbogram. */
TEST_F(xdp, every_ip_len_of_vlan_ipv6_ext_chain_tcp)
{
	static const struct shape s = {
		.name = "802.1Q IPv6 dstopts routing fragment TCP",
		.layers = { VLAN_Q, IPV6(64), DSTOPTS(0), ROUTING(2),
			    FRAG6(0, 1), TCP(8), DATA(16) },
	};

	/* The fragment header ends where TCP starts. */
	expect_every_ip_len(_metadata, self, &s, build(&s, false).l4);
}

/*
 * Every key type on real frames. The frames come from build(): source
 * BLOCKED4/BLOCKED6 (the "blocked" variant) to IPV4_DADDR/IPV6_DADDR, TCP
 * 40000 -> 80, UDP 40000 -> 53, ICMP of the shape's type. Each case adds
 * its keys to an empty filter and expects one verdict and one counter.
 */
struct key_spec {
	__u8		type;		/* CFILTER_KEY_NONE ends the list */
	__u8		proto;
	const char	*saddr;
	const char	*daddr;
	__u16		sport;		/* or the ICMP type */
	__u16		dport;
};

#define S4	BLOCKED4
#define D4	IPV4_DADDR
#define S6	BLOCKED6
#define D6	IPV6_DADDR
#define K_SRC4		{ CFILTER_KEY_SRC4, 0, S4, NULL, 0, 0 }
#define K_SRC6		{ CFILTER_KEY_SRC6, 0, S6, NULL, 0, 0 }
#define K_SRC4P(p)	{ CFILTER_KEY_SRC4, 0, p, NULL, 0, 0 }
#define K_SRC6P(p)	{ CFILTER_KEY_SRC6, 0, p, NULL, 0, 0 }
#define K_DST4(a)	{ CFILTER_KEY_DST4, 0, NULL, a, 0, 0 }
#define K_DST6(a)	{ CFILTER_KEY_DST6, 0, NULL, a, 0, 0 }
#define K_ALLOW4(a)	{ CFILTER_KEY_ALLOW4, 0, a, NULL, 0, 0 }
#define K_ALLOW6(a)	{ CFILTER_KEY_ALLOW6, 0, a, NULL, 0, 0 }
#define K_FLOW4(p, sp, dp) { CFILTER_KEY_FLOW4, p, S4, D4, sp, dp }
#define K_FLOW6(p, sp, dp) { CFILTER_KEY_FLOW6, p, S6, D6, sp, dp }

struct key_case {
	const char	*name;
	struct key_spec	keys[3];
	struct layer	layers[5];
	bool		match_dst;	/* attach --match-dst */
	int		stat;		/* the verdict follows from it */
};

/*
 * Parses "ADDR" or "ADDR/LEN" into @addr; sets *@len to LEN if given.
 * Aborts on a malformed spec: the tables are the test's own.
 */
static void parse_spec_addr(int af, const char *spec, __u8 *addr, __u8 *len)
{
	char buf[INET6_ADDRSTRLEN + 4];
	char *slash;

	snprintf(buf, sizeof(buf), "%s", spec);
	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		*len = atoi(slash + 1);
	}
	if (inet_pton(af, buf, addr) != 1)
		abort();
}

static int add_spec(int fd, const struct key_spec *k)
{
	bool v6 = k->type == CFILTER_KEY_SRC6 || k->type == CFILTER_KEY_DST6 ||
		  k->type == CFILTER_KEY_FLOW6 || k->type == CFILTER_KEY_ALLOW6;
	int af = v6 ? AF_INET6 : AF_INET;
	struct cfilter_key_req req;

	memset(&req, 0, sizeof(req));
	req.key.type = k->type;
	req.key.prefix_len = v6 ? 128 : 32;
	req.key.proto = k->proto;
	req.key.sport = htons(k->sport);
	req.key.dport = htons(k->dport);
	if (k->saddr)
		parse_spec_addr(af, k->saddr, req.key.saddr, &req.key.prefix_len);
	if (k->daddr)
		parse_spec_addr(af, k->daddr, req.key.daddr, &req.key.prefix_len);
	return ioctl(fd, CFILTER_IOC_ADD, &req) ? errno : 0;
}

static void expect_key_cases(struct __test_metadata *_metadata,
			     FIXTURE_DATA(xdp) *self,
			     const struct key_case *cases, size_t n)
{
	const struct key_spec *k;
	struct shape shape;
	struct frame f;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct key_case *c = &cases[i];
		bool drop = c->stat == CFILTER_STAT_DROP_SRC ||
			    c->stat == CFILTER_STAT_DROP_DST ||
			    c->stat == CFILTER_STAT_DROP_FLOW ||
			    c->stat == CFILTER_STAT_DROP_PREFIX ||
			    c->stat == CFILTER_STAT_DROP_FRAG;

		use_program(self, c->match_dst);
		ASSERT_EQ(0, ioctl(self->dev, CFILTER_IOC_CLEAR));
		for (k = c->keys; k < c->keys + 3 && k->type; k++)
			ASSERT_EQ(0, add_spec(self->dev, k))
				TH_LOG("%s: adding key %zu", c->name,
				       (size_t)(k - c->keys));
		memset(&shape, 0, sizeof(shape));
		shape.name = c->name;
		memcpy(shape.layers, c->layers, sizeof(c->layers));
		f = build(&shape, true);
		expect_verdict(_metadata, self, &f, f.len,
			       drop ? XDP_DROP : XDP_PASS, c->stat, c->name);
	}
}

/*
 * Each case clears and refills the filter: on a slow emulated guest a table
 * of twenty cases may need more than the harness's default 30 s.
 */
#define KEY_CASES_TIMEOUT	180

#define EXPECT_KEY_CASES(cases) \
	expect_key_cases(_metadata, self, cases, ARRAY_SIZE(cases))

#define PASS_		CFILTER_STAT_PASS
#define DROP_SRC	CFILTER_STAT_DROP_SRC
#define DROP_DST	CFILTER_STAT_DROP_DST
#define DROP_FLOW	CFILTER_STAT_DROP_FLOW
#define ALLOWED		CFILTER_STAT_ALLOWED
#define DROP_PREFIX	CFILTER_STAT_DROP_PREFIX
#define DROP_FRAG	CFILTER_STAT_DROP_FRAG

TEST_F_TIMEOUT(xdp, destination_keys, KEY_CASES_TIMEOUT)
{
	static const struct key_case cases[] = {
		{ "dst4 hit, --match-dst", { K_DST4(D4) },
		  { IPV4(5, 0), TCP(5) }, true, DROP_DST },
		{ "dst4 hit, no --match-dst", { K_DST4(D4) },
		  { IPV4(5, 0), TCP(5) }, false, PASS_ },
		{ "dst4 miss", { K_DST4("198.51.100.1") },
		  { IPV4(5, 0), TCP(5) }, true, PASS_ },
		{ "dst4 is not a source", { K_DST4(S4) },
		  { IPV4(5, 0), UDP }, true, PASS_ },
		{ "dst4, non-first fragment", { K_DST4(D4) },
		  { IPV4(5, OFF(8)), OPAQUE(IPPROTO_TCP, 8) }, true, DROP_DST },
		{ "dst6 hit, --match-dst", { K_DST6(D6) },
		  { IPV6(64), UDP }, true, DROP_DST },
		{ "dst6 hit, no --match-dst", { K_DST6(D6) },
		  { IPV6(64), UDP }, false, PASS_ },
		{ "dst6 miss", { K_DST6("2001:db8::99") },
		  { IPV6(64), ICMP6(128) }, true, PASS_ },
		{ "source first: src4 and dst4", { K_SRC4, K_DST4(D4) },
		  { IPV4(5, 0), TCP(5) }, true, DROP_SRC },
	};

	EXPECT_KEY_CASES(cases);
}

TEST_F_TIMEOUT(xdp, flow_keys, KEY_CASES_TIMEOUT)
{
	static const struct key_case cases[] = {
		{ "tcp4 hit", { K_FLOW4(IPPROTO_TCP, 40000, 80) },
		  { IPV4(5, 0), TCP(5) }, false, DROP_FLOW },
		{ "tcp4 other dport", { K_FLOW4(IPPROTO_TCP, 40000, 81) },
		  { IPV4(5, 0), TCP(5) }, false, PASS_ },
		{ "tcp4 other sport", { K_FLOW4(IPPROTO_TCP, 40001, 80) },
		  { IPV4(5, 0), TCP(5) }, false, PASS_ },
		{ "tcp4 key, UDP frame", { K_FLOW4(IPPROTO_TCP, 40000, 53) },
		  { IPV4(5, 0), UDP }, false, PASS_ },
		{ "udp4 hit", { K_FLOW4(IPPROTO_UDP, 40000, 53) },
		  { IPV4(5, 0), UDP }, false, DROP_FLOW },
		{ "icmp4 hit", { K_FLOW4(IPPROTO_ICMP, 8, 0) },
		  { IPV4(5, 0), ICMP(8) }, false, DROP_FLOW },
		{ "icmp4 other type", { K_FLOW4(IPPROTO_ICMP, 0, 0) },
		  { IPV4(5, 0), ICMP(8) }, false, PASS_ },
		{ "tcp4 first fragment", { K_FLOW4(IPPROTO_TCP, 40000, 80) },
		  { IPV4(5, MF), TCP(5), DATA(8) }, false, DROP_FLOW },
		/* The ports are the first 4 bytes: a fragment with them hides nothing. */
		{ "tcp4 first fragment of 8 bytes", { K_FLOW4(IPPROTO_TCP, 40000, 80) },
		  { IPV4(5, MF), TCPN(5, 8) }, false, DROP_FLOW },
		{ "udp4 first fragment of 4 bytes", { K_FLOW4(IPPROTO_UDP, 40000, 53) },
		  { IPV4(5, MF), UDPN(4) }, false, DROP_FLOW },
		{ "tcp4 first fragment of 3 bytes", { K_FLOW4(IPPROTO_TCP, 40000, 80) },
		  { IPV4(5, MF), TCPN(5, 3) }, false, DROP_FRAG },
		{ "tcp4 first fragment of 3 bytes, no flow keys", { K_DST4(D4) },
		  { IPV4(5, MF), TCPN(5, 3) }, false, DROP_FRAG },
		{ "tcp4 non-first fragment", { K_FLOW4(IPPROTO_TCP, 40000, 80) },
		  { IPV4(5, OFF(8)), TCP(5) }, false, PASS_ },
		{ "udp4 last fragment", { K_FLOW4(IPPROTO_UDP, 40000, 53) },
		  { IPV4(5, OFF(1480)), UDP }, false, PASS_ },
		{ "tcp6 hit", { K_FLOW6(IPPROTO_TCP, 40000, 80) },
		  { IPV6(64), TCP(5) }, false, DROP_FLOW },
		{ "tcp6 after extension headers",
		  { K_FLOW6(IPPROTO_TCP, 40000, 80) },
		  { IPV6(64), HOPOPTS(0), DSTOPTS(1), TCP(5) }, false,
		  DROP_FLOW },
		{ "udp6 hit", { K_FLOW6(IPPROTO_UDP, 40000, 53) },
		  { IPV6(64), UDP }, false, DROP_FLOW },
		{ "udp6 other dport", { K_FLOW6(IPPROTO_UDP, 40000, 54) },
		  { IPV6(64), UDP }, false, PASS_ },
		{ "icmp6 hit", { K_FLOW6(IPPROTO_ICMPV6, 128, 0) },
		  { IPV6(64), ICMP6(128) }, false, DROP_FLOW },
		{ "icmp6 other type", { K_FLOW6(IPPROTO_ICMPV6, 129, 0) },
		  { IPV6(64), ICMP6(128) }, false, PASS_ },
		{ "udp6 first fragment", { K_FLOW6(IPPROTO_UDP, 40000, 53) },
		  { IPV6(64), FRAG6(0, 1), UDP, DATA(8) }, false, DROP_FLOW },
		{ "tcp6 first fragment of 8 bytes", { K_FLOW6(IPPROTO_TCP, 40000, 80) },
		  { IPV6(64), FRAG6(0, 1), TCPN(5, 8) }, false, DROP_FLOW },
		{ "tcp6 doff 15 in a 20-byte datagram",
		  { K_FLOW6(IPPROTO_TCP, 40000, 80) },
		  { IPV6(64), TCPN(15, 20) }, false, DROP_FLOW },
		{ "udp6 first fragment of 2 bytes", { K_FLOW6(IPPROTO_UDP, 40000, 53) },
		  { IPV6(64), FRAG6(0, 1), UDPN(2) }, false, DROP_FRAG },
		{ "udp6 non-first fragment", { K_FLOW6(IPPROTO_UDP, 40000, 53) },
		  { IPV6(64), FRAG6(8, 0), UDP }, false, PASS_ },
		{ "icmp6 non-first fragment", { K_FLOW6(IPPROTO_ICMPV6, 128, 0) },
		  { IPV6(64), FRAG6(8, 1), ICMP6(128) }, false, PASS_ },
		{ "v4 flow key, IPv6 frame", { K_FLOW4(IPPROTO_UDP, 40000, 53) },
		  { IPV6(64), UDP }, false, PASS_ },
		{ "source first: src6 and flow6",
		  { K_SRC6, K_FLOW6(IPPROTO_TCP, 40000, 80) },
		  { IPV6(64), TCP(5) }, false, DROP_SRC },
		{ "destination before flow",
		  { K_DST4(D4), K_FLOW4(IPPROTO_TCP, 40000, 80) },
		  { IPV4(5, 0), TCP(5) }, true, DROP_DST },
	};

	EXPECT_KEY_CASES(cases);
}

TEST_F_TIMEOUT(xdp, allow_keys_win, KEY_CASES_TIMEOUT)
{
	static const struct key_case cases[] = {
		{ "allow4 over src4", { K_SRC4, K_ALLOW4(S4) },
		  { IPV4(5, 0), TCP(5) }, false, ALLOWED },
		{ "allow4 over dst4", { K_DST4(D4), K_ALLOW4(S4) },
		  { IPV4(5, 0), UDP }, true, ALLOWED },
		{ "allow4 over flow4",
		  { K_FLOW4(IPPROTO_TCP, 40000, 80), K_ALLOW4(S4) },
		  { IPV4(5, 0), TCP(5) }, false, ALLOWED },
		{ "allow4 over all three",
		  { K_SRC4, K_DST4(D4), K_ALLOW4(S4) },
		  { IPV4(5, 0), ICMP(8) }, true, ALLOWED },
		{ "allow4 alone: plain pass", { K_ALLOW4(S4) },
		  { IPV4(5, 0), TCP(5) }, false, PASS_ },
		{ "allow4 of another source", { K_SRC4, K_ALLOW4(OTHER4) },
		  { IPV4(5, 0), TCP(5) }, false, DROP_SRC },
		{ "allow4 is not a destination", { K_DST4(D4), K_ALLOW4(D4) },
		  { IPV4(5, 0), TCP(5) }, true, DROP_DST },
		{ "allow6 over src6", { K_SRC6, K_ALLOW6(S6) },
		  { IPV6(64), UDP }, false, ALLOWED },
		{ "allow6 over dst6", { K_DST6(D6), K_ALLOW6(S6) },
		  { IPV6(64), TCP(5) }, true, ALLOWED },
		{ "allow6 over flow6",
		  { K_FLOW6(IPPROTO_ICMPV6, 128, 0), K_ALLOW6(S6) },
		  { IPV6(64), ICMP6(128) }, false, ALLOWED },
		{ "allow6 of another source", { K_SRC6, K_ALLOW6(OTHER6) },
		  { IPV6(64), UDP }, false, DROP_SRC },
		{ "allow4 does not cover IPv6", { K_SRC6, K_ALLOW4(S4) },
		  { IPV6(64), UDP }, false, DROP_SRC },
	};

	EXPECT_KEY_CASES(cases);
}

/*
 * Prefix keys: a packet whose source (or, with --match-dst, destination)
 * lies in a stored prefix is dropped and counted DROP_PREFIX; an address
 * key for it is found first; an allow prefix covering the source wins.
 * S4 is 192.0.2.2, D4 192.0.2.1, S6 2001:db8::2, D6 2001:db8::1.
 */
TEST_F_TIMEOUT(xdp, source_prefixes_v4, KEY_CASES_TIMEOUT)
{
	static const struct key_case cases[] = {
		{ "src4 /24 hit", { K_SRC4P("192.0.2.0/24") },
		  { IPV4(5, 0), TCP(5) }, false, DROP_PREFIX },
		{ "src4 /31 hit", { K_SRC4P("192.0.2.2/31") },
		  { IPV4(5, 0), UDP }, false, DROP_PREFIX },
		{ "src4 /8 hit", { K_SRC4P("192.0.0.0/8") },
		  { IPV4(5, 0), ICMP(8) }, false, DROP_PREFIX },
		{ "src4 /0 hit", { K_SRC4P("0.0.0.0/0") },
		  { IPV4(5, 0), TCP(5) }, false, DROP_PREFIX },
		{ "src4 /24 next door", { K_SRC4P("192.0.3.0/24") },
		  { IPV4(5, 0), TCP(5) }, false, PASS_ },
		{ "src4 /31 next door", { K_SRC4P("192.0.2.0/31") },
		  { IPV4(5, 0), TCP(5) }, false, PASS_ },
		{ "src4 /32 is an address key", { K_SRC4P("192.0.2.2/32") },
		  { IPV4(5, 0), TCP(5) }, false, DROP_SRC },
		{ "src4 address found before the prefix",
		  { K_SRC4P("192.0.2.0/24"), K_SRC4 },
		  { IPV4(5, 0), TCP(5) }, false, DROP_SRC },
	};

	EXPECT_KEY_CASES(cases);
}

TEST_F_TIMEOUT(xdp, source_prefixes_other_shapes, KEY_CASES_TIMEOUT)
{
	static const struct key_case cases[] = {
		{ "src4 prefix, non-first fragment", { K_SRC4P("192.0.2.0/24") },
		  { IPV4(5, OFF(8)), OPAQUE(IPPROTO_UDP, 8) }, false,
		  DROP_PREFIX },
		{ "src4 prefix before a flow",
		  { K_FLOW4(IPPROTO_TCP, 40000, 80), K_SRC4P("192.0.2.0/24") },
		  { IPV4(5, 0), TCP(5) }, false, DROP_PREFIX },
		{ "src4 prefix does not cover IPv6", { K_SRC4P("0.0.0.0/0") },
		  { IPV6(64), UDP }, false, PASS_ },
		{ "src6 /32 hit", { K_SRC6P("2001:db8::/32") },
		  { IPV6(64), UDP }, false, DROP_PREFIX },
		{ "src6 /127 hit", { K_SRC6P("2001:db8::2/127") },
		  { IPV6(64), TCP(5) }, false, DROP_PREFIX },
		{ "src6 /64 next door", { K_SRC6P("2001:db8:0:1::/64") },
		  { IPV6(64), TCP(5) }, false, PASS_ },
	};

	EXPECT_KEY_CASES(cases);
}

TEST_F_TIMEOUT(xdp, destination_prefixes, KEY_CASES_TIMEOUT)
{
	static const struct key_case cases[] = {
		{ "dst4 /24, --match-dst", { K_DST4("192.0.2.0/24") },
		  { IPV4(5, 0), TCP(5) }, true, DROP_PREFIX },
		{ "dst4 /24, no --match-dst", { K_DST4("192.0.2.0/24") },
		  { IPV4(5, 0), TCP(5) }, false, PASS_ },
		{ "dst6 /48, --match-dst", { K_DST6("2001:db8::/48") },
		  { IPV6(64), UDP }, true, DROP_PREFIX },
	};

	EXPECT_KEY_CASES(cases);
}

TEST_F_TIMEOUT(xdp, allow_prefixes_win, KEY_CASES_TIMEOUT)
{
	static const struct key_case cases[] = {
		{ "allow4 /28 inside a blocked /24",
		  { K_SRC4P("192.0.2.0/24"), K_ALLOW4("192.0.2.0/28") },
		  { IPV4(5, 0), TCP(5) }, false, ALLOWED },
		{ "allow4 /25 beside the source",
		  { K_SRC4P("192.0.2.0/24"), K_ALLOW4("192.0.2.128/25") },
		  { IPV4(5, 0), TCP(5) }, false, DROP_PREFIX },
		{ "allow4 prefix over an address key",
		  { K_SRC4, K_ALLOW4("192.0.2.0/30") },
		  { IPV4(5, 0), UDP }, false, ALLOWED },
		{ "allow4 prefix over a dst prefix",
		  { K_DST4("192.0.2.0/30"), K_ALLOW4("192.0.2.0/24") },
		  { IPV4(5, 0), UDP }, true, ALLOWED },
		{ "allow6 /64 inside a blocked /32",
		  { K_SRC6P("2001:db8::/32"), K_ALLOW6("2001:db8::/64") },
		  { IPV6(64), TCP(5) }, false, ALLOWED },
		{ "allow6 /64 beside the source",
		  { K_SRC6P("2001:db8::/32"), K_ALLOW6("2001:db8:1::/64") },
		  { IPV6(64), TCP(5) }, false, DROP_PREFIX },
	};

	EXPECT_KEY_CASES(cases);
}

TEST_HARNESS_MAIN
