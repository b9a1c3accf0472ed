// SPDX-License-Identifier: GPL-2.0
/*
 * A packet fuzzer of the XDP program: random frames (VLAN tags, IPv4 with
 * options and fragments, IPv6 with chains of extension headers, TCP, UDP,
 * ICMP and other payloads), then mutated (cut, IP length fields rewritten,
 * bytes flipped), each run through BPF_PROG_TEST_RUN and its verdict held
 * against ref_parse.h, a reading of the frame written apart from the
 * program's parser, its prefilter handed over. With blocked addresses, a
 * blocked prefix and a blocked flow in the filter:
 *   - no frame whose source the reference proves blocked passes (Neighbor
 *     Discovery excepted), nor one whose flow it proves blocked;
 *   - a frame the reference reads whole and finds unblocked passes,
 *     counted as passed;
 *   - a frame without a provable IP header is never dropped by an entry.
 * CFILTER_FUZZ_SEED and CFILTER_FUZZ_FRAMES (default 20000) repeat or
 * lengthen a run; the seed is printed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include <linux/bpf.h>
#include <linux/cfilter.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cfilter.skel.h"
#include "xdp_stats.h"
#include "kselftest_harness.h"
#include "harness_timeout.h"
#include "xdp_packets.h"
#include "ref_parse.h"
#include "xorshift.h"

#define BLOCKED4	"192.0.2.2"
#define OTHER4		"192.0.2.3"
#define PREFIX4		"198.51.100.0"	/* /24 */
#define IN_PREFIX4	"198.51.100.77"
#define BLOCKED6	"2001:db8::2"
#define OTHER6		"2001:db8::3"
/* A blocked TCP flow: OTHER4:40000 -> IPV4_DADDR:80 (put_tcp's ports). */
#define FLOW_SPORT	40000
#define FLOW_DPORT	80

static int add_key(int fd, const struct cfilter_key *key)
{
	struct cfilter_key_req req = { .key = *key };

	return ioctl(fd, CFILTER_IOC_ADD, &req) ? errno : 0;
}

static struct cfilter_key src_key(int af, const char *addr, unsigned int len)
{
	struct cfilter_key key = {
		.type = af == AF_INET ? CFILTER_KEY_SRC4 : CFILTER_KEY_SRC6,
		.prefix_len = len,
	};

	if (inet_pton(af, addr, key.saddr) != 1)
		abort();
	return key;
}

/* A random frame, well formed but for the random choices of depth. */
static void random_frame(struct frame *f)
{
	static const char *const src4[] = { BLOCKED4, OTHER4, IN_PREFIX4 };
	static const char *const src6[] = { BLOCKED6, OTHER6 };
	static const __u8 exts[] = { IPPROTO_HOPOPTS, IPPROTO_ROUTING,
				     IPPROTO_DSTOPTS, IPPROTO_FRAGMENT };
	__u16 tpids[4];
	unsigned int i, n;
	bool v6 = rnd() % 2;

	memset(f, 0, sizeof(*f));
	n = rnd() % 8 ? rnd() % 3 : 3;
	for (i = 0; i < n; i++)
		tpids[i] = rnd() % 2 ? ETH_P_8021Q : ETH_P_8021AD;
	put_eth(f, tpids, n, v6 ? ETH_P_IPV6 : ETH_P_IP);
	if (!v6) {
		static const __u16 frags[] = { 0, 0, 0, 0x4000, 0x2000,
					       0x2000 | 1, 1, 185 };

		put_ip4(f, src4[rnd() % 3], 5 + rnd() % 3, frags[rnd() % 8]);
	} else {
		put_ip6(f, src6[rnd() % 2], rnd() % 4 ? 64 : 255);
		n = rnd() % 3 ? rnd() % 4 : rnd() % (CFILTER_MAX_EXT_HDRS + 4);
		for (i = 0; i < n; i++) {
			__u8 type = exts[rnd() % 4];

			if (type == IPPROTO_FRAGMENT)
				put_frag6(f, rnd() % 3 ? 0 : 8 * (rnd() % 4),
					  rnd() % 2);
			else if (rnd() % 16 || f->len + 2048 + 256 > sizeof(f->data))
				put_ext6(f, type, rnd() % 3);
			else
				put_ext6(f, type, 255);	/* 2 KiB, once */
		}
	}
	switch (rnd() % 6) {
	case 0:
	case 1:
		put_tcp(f, rnd() % 4 ? 5 : rnd() % 16);
		break;
	case 2:
		put_udp(f);
		break;
	case 3:
		put_icmp(f, v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP,
			 rnd() % 2 ? 128 + rnd() % 12 : rnd() % 256);
		break;
	case 4:
		put_opaque(f, rnd() % 256, rnd() % 17);
		break;
	default:
		put_opaque(f, IPPROTO_TCP, rnd() % 8);
	}
	put_zeros(f, rnd() % 4 ? 0 : rnd() % 32);
	ip_done(f);
}

/* Cut it, rewrite its IP length, flip bytes: or leave it be. */
static void mutate(struct frame *f)
{
	unsigned int i, n, len;

	if (rnd() % 3 == 0) {
		/* Declare the datagram to end anywhere after the IP header. */
		len = f->len;
		f->len = f->l3 + rnd() % (len - f->l3 + 1);
		ip_done(f);
		f->len = len;
	}
	if (rnd() % 3 == 0)
		f->len -= rnd() % (f->len - ETH_HLEN + 1);
	n = rnd() % 4 ? 0 : 1 + rnd() % 4;
	for (i = 0; i < n && f->len; i++)
		f->data[rnd() % f->len] ^= 1 << (rnd() % 8);
}

/* Is the source @r proves blocked by an entry of the filter? */
static bool src_blocked(const struct ref *r)
{
	__u8 a[16];

	if (r->family == 4) {
		inet_pton(AF_INET, BLOCKED4, a);
		if (!memcmp(r->saddr, a, 4))
			return true;
		inet_pton(AF_INET, PREFIX4, a);
		return !memcmp(r->saddr, a, 3);
	}
	inet_pton(AF_INET6, BLOCKED6, a);
	return !memcmp(r->saddr, a, 16);
}

static bool flow_blocked(const struct ref *r, const struct frame *f)
{
	__u8 s[4], d[4];

	if (r->family != 4 || r->proto != IPPROTO_TCP || !r->ports)
		return false;
	inet_pton(AF_INET, OTHER4, s);
	inet_pton(AF_INET, IPV4_DADDR, d);
	return !memcmp(r->saddr, s, 4) &&
	       !memcmp(f->data + f->l3 + 16, d, 4) &&
	       r->sport == FLOW_SPORT && r->dport == FLOW_DPORT;
}

static bool is_entry_drop(int stat)
{
	return stat == CFILTER_STAT_DROP_SRC || stat == CFILTER_STAT_DROP_DST ||
	       stat == CFILTER_STAT_DROP_FLOW || stat == CFILTER_STAT_DROP_PREFIX;
}

/* The counter that one run moved, or -1 if not exactly one did. */
static int moved(const __u64 *before, const __u64 *after)
{
	int i, which = -1;

	for (i = 0; i < __CFILTER_STAT_MAX; i++) {
		if (after[i] == before[i])
			continue;
		if (which >= 0 || after[i] - before[i] != 1)
			return -1;
		which = i;
	}
	return which;
}

static void dump(const struct frame *f, const char *why)
{
	unsigned int i;

	printf("# %s: %u bytes:", why, f->len);
	for (i = 0; i < f->len && i < 96; i++)
		printf(" %02x", f->data[i]);
	printf("\n");
}

TEST(random_frames_against_a_reference_parser)
{
	unsigned int frames = 20000, i, wrong = 0, counted[__CFILTER_STAT_MAX] = { 0 };
	__u64 before[__CFILTER_STAT_MAX], after[__CFILTER_STAT_MAX];
	struct cfilter_key flow = { .type = CFILTER_KEY_FLOW4, .prefix_len = 32,
				    .proto = IPPROTO_TCP };
	struct cfilter_key key;
	struct cfilter_bpf *skel;
	const char *env;
	struct frame f;
	struct ref r;
	int dev, stat;
	__u64 seed;

	env = getenv("CFILTER_FUZZ_FRAMES");
	if (env && *env)
		frames = strtoul(env, NULL, 0);
	env = getenv("CFILTER_FUZZ_SEED");
	seed = env && *env ? strtoull(env, NULL, 0) : (__u64)time(NULL) ^ getpid();
	rng_state = seed | 1;
	TH_LOG("seed %llu, %u frames (CFILTER_FUZZ_SEED repeats the run)",
	       (unsigned long long)seed, frames);

	dev = open(CFILTER_DEVICE, O_RDWR);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, ioctl(dev, CFILTER_IOC_CLEAR));
	key = src_key(AF_INET, BLOCKED4, 32);
	ASSERT_EQ(0, add_key(dev, &key));
	key = src_key(AF_INET, PREFIX4, 24);
	ASSERT_EQ(0, add_key(dev, &key));
	key = src_key(AF_INET6, BLOCKED6, 128);
	ASSERT_EQ(0, add_key(dev, &key));
	inet_pton(AF_INET, OTHER4, flow.saddr);
	inet_pton(AF_INET, IPV4_DADDR, flow.daddr);
	flow.sport = htons(FLOW_SPORT);
	flow.dport = htons(FLOW_DPORT);
	ASSERT_EQ(0, add_key(dev, &flow));
	skel = xdp_load_private(false);
	ASSERT_NE(NULL, skel) TH_LOG("loading the program: %s", strerror(errno));
	/* As cfctl runs it: the IPv6 frames meet the prefilter's bits. */
	ASSERT_EQ(0, xdp_hand_over(skel, dev));

	for (i = 0; i < frames; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .repeat = 1);
		const char *why = NULL;
		int verdict;

		random_frame(&f);
		mutate(&f);
		ref_parse(f.data, f.len, &r);
		opts.data_in = f.data;
		opts.data_size_in = f.len < ETH_HLEN ? ETH_HLEN : f.len;
		ASSERT_EQ(0, xdp_stats_slot(skel, XDP_TEST_RUN_SLOT, before));
		ASSERT_EQ(0, bpf_prog_test_run_opts(
				bpf_program__fd(skel->progs.cfilter_xdp), &opts));
		ASSERT_EQ(0, xdp_stats_slot(skel, XDP_TEST_RUN_SLOT, after));
		verdict = opts.retval;
		stat = moved(before, after);
		if (stat < 0) {
			why = "not exactly one counter moved";
		} else {
			counted[stat]++;
			if ((verdict == XDP_DROP) != (stat >= 0 &&
			    (is_entry_drop(stat) ||
			     stat == CFILTER_STAT_DROP_DEEP ||
			     stat == CFILTER_STAT_DROP_FRAG)))
				why = "the verdict disagrees with its counter";
			else if (r.ip && src_blocked(&r) && !(r.whole && r.nd) &&
				 verdict != XDP_DROP)
				why = "a blocked source passed";
			else if (flow_blocked(&r, &f) && verdict != XDP_DROP)
				why = "a blocked flow passed";
			else if (r.whole && !src_blocked(&r) &&
				 !flow_blocked(&r, &f) &&
				 stat != CFILTER_STAT_PASS)
				why = "a whole, unblocked frame was not passed";
			else if (!r.ip && is_entry_drop(stat))
				why = "an entry matched a frame without addresses";
		}
		if (why) {
			if (++wrong <= 10)
				dump(&f, why);
		}
	}
	for (i = 0; i < __CFILTER_STAT_MAX; i++)
		printf("# counter %u: %u frames\n", i, counted[i]);
	fflush(stdout);
	EXPECT_EQ(0U, wrong);
	/* The run reached every outcome it is meant to test. */
	EXPECT_LT(0U, counted[CFILTER_STAT_PASS]);
	EXPECT_LT(0U, counted[CFILTER_STAT_DROP_SRC]);
	EXPECT_LT(0U, counted[CFILTER_STAT_DROP_PREFIX]);
	EXPECT_LT(0U, counted[CFILTER_STAT_DROP_FLOW]);
	EXPECT_LT(0U, counted[CFILTER_STAT_DROP_DEEP]);
	EXPECT_LT(0U, counted[CFILTER_STAT_DROP_FRAG]);
	EXPECT_LT(0U, counted[CFILTER_STAT_UNPARSED]);
	cfilter_bpf__destroy(skel);
	ioctl(dev, CFILTER_IOC_CLEAR);
	close(dev);
}

TEST_HARNESS_MAIN
