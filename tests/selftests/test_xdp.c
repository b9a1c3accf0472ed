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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/cfilter.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cfilter.skel.h"
#include "kselftest_harness.h"

#define BLOCKED4	"192.0.2.2"
#define OTHER4		"192.0.2.3"
#define BLOCKED6	"2001:db8::2"
#define OTHER6		"2001:db8::3"
#define VLAN_HLEN	4
#define ICMP_LEN	8	/* payload after the IP header: an echo header */

static const char stat_names[__CFILTER_STAT_MAX][sizeof("UNPARSED")] = {
	[CFILTER_STAT_PASS]	= "PASS",
	[CFILTER_STAT_DROP]	= "DROP",
	[CFILTER_STAT_UNPARSED]	= "UNPARSED",
};

/* A frame under construction. */
struct frame {
	unsigned char data[256];
	unsigned int len;
};

static void put(struct frame *f, const void *src, size_t n)
{
	memcpy(f->data + f->len, src, n);
	f->len += n;
}

static void put16(struct frame *f, __u16 host)
{
	__be16 v = htons(host);

	put(f, &v, sizeof(v));
}

/* Ethernet header with one tag per entry of @tpids, then @proto. */
static void put_eth(struct frame *f, const __u16 *tpids, int ntags,
		    __u16 proto)
{
	static const unsigned char macs[2 * ETH_ALEN] = {
		0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02,
	};
	int i;

	put(f, macs, sizeof(macs));
	for (i = 0; i < ntags; i++) {
		put16(f, tpids[i]);
		put16(f, 100 + i);	/* TCI: VLAN id */
	}
	put16(f, proto);
}

static __u16 ip_csum(const void *hdr, size_t len)
{
	const unsigned char *p = hdr;
	__u32 sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

/* IPv4 header of @ihl words (NOP options past 5) and an ICMP echo. */
static void put_ipv4(struct frame *f, const char *saddr, unsigned int ihl)
{
	unsigned char hdr[60] = { 0 };
	struct iphdr *iph = (struct iphdr *)hdr;
	unsigned char icmp[ICMP_LEN] = { 8 };	/* echo request */
	unsigned int hlen = ihl * 4;

	iph->version = 4;
	iph->ihl = ihl;
	iph->tot_len = htons(hlen + ICMP_LEN);
	iph->ttl = 64;
	iph->protocol = IPPROTO_ICMP;
	if (inet_pton(AF_INET, saddr, &iph->saddr) != 1 ||
	    inet_pton(AF_INET, "192.0.2.1", &iph->daddr) != 1)
		abort();
	if (hlen > sizeof(*iph))
		memset(hdr + sizeof(*iph), 1, hlen - sizeof(*iph));
	iph->check = htons(ip_csum(hdr, hlen));
	put(f, hdr, hlen);
	put(f, icmp, sizeof(icmp));
}

static void put_ipv6(struct frame *f, const char *saddr)
{
	struct ipv6hdr ip6h = { 0 };
	unsigned char icmp6[ICMP_LEN] = { 128 };	/* echo request */

	ip6h.version = 6;
	ip6h.payload_len = htons(ICMP_LEN);
	ip6h.nexthdr = IPPROTO_ICMPV6;
	ip6h.hop_limit = 64;
	if (inet_pton(AF_INET6, saddr, &ip6h.saddr) != 1 ||
	    inet_pton(AF_INET6, "2001:db8::1", &ip6h.daddr) != 1)
		abort();
	put(f, &ip6h, sizeof(ip6h));
	put(f, icmp6, sizeof(icmp6));
}

static struct frame frame4(const char *saddr, unsigned int ihl)
{
	struct frame f = { .len = 0 };

	put_eth(&f, NULL, 0, ETH_P_IP);
	put_ipv4(&f, saddr, ihl);
	return f;
}

static struct frame frame6(const char *saddr)
{
	struct frame f = { .len = 0 };

	put_eth(&f, NULL, 0, ETH_P_IPV6);
	put_ipv6(&f, saddr);
	return f;
}

static struct frame frame_arp(void)
{
	unsigned char arp[28] = { 0, 1, 8, 0, 6, 4, 0, 1 };	/* request */
	struct frame f = { .len = 0 };

	put_eth(&f, NULL, 0, ETH_P_ARP);
	put(&f, arp, sizeof(arp));
	return f;
}

/* Route libbpf's warnings into the TAP stream as diagnostics. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	fprintf(stderr, "# libbpf: ");
	return vfprintf(stderr, fmt, ap);
}

static int cf_key(int fd, unsigned long cmd, int family, const char *addr)
{
	struct cfilter_key_req req;

	memset(&req, 0, sizeof(req));
	req.key.type = family == AF_INET ? CFILTER_KEY_SRC4 : CFILTER_KEY_SRC6;
	req.key.prefix_len = family == AF_INET ? 32 : 128;
	if (inet_pton(family, addr, req.key.saddr) != 1)
		abort();
	return ioctl(fd, cmd, &req) ? errno : 0;
}

FIXTURE(xdp) {
	struct cfilter_bpf *skel;
	int dev;
	int prog_fd;
	int ncpus;
};

FIXTURE_SETUP(xdp)
{
	libbpf_set_print(libbpf_print);
	self->dev = open(CFILTER_DEVICE, O_RDWR);
	ASSERT_LE(0, self->dev) TH_LOG("open %s: %s (is cfilter.ko loaded?)",
				       CFILTER_DEVICE, strerror(errno));
	ASSERT_EQ(0, ioctl(self->dev, CFILTER_IOC_CLEAR));
	self->skel = cfilter_bpf__open_and_load();
	ASSERT_NE(NULL, self->skel)
		TH_LOG("loading cfilter_xdp: %s; the kfunc needs cfilter.ko loaded with BTF (see /sys/kernel/btf/cfilter and the libbpf lines above)",
		       strerror(errno));
	self->prog_fd = bpf_program__fd(self->skel->progs.cfilter_xdp);
	self->ncpus = libbpf_num_possible_cpus();
	ASSERT_LT(0, self->ncpus);
}

FIXTURE_TEARDOWN(xdp)
{
	cfilter_bpf__destroy(self->skel);
	if (self->dev >= 0) {
		ioctl(self->dev, CFILTER_IOC_CLEAR);
		close(self->dev);
	}
}

/* Sums each counter over all CPUs. Returns 0 or the lookup's error. */
static int read_stats(FIXTURE_DATA(xdp) *self, __u64 sums[__CFILTER_STAT_MAX])
{
	size_t size = self->ncpus * sizeof(__u64);
	__u64 *vals = malloc(size);
	int cpu, err = 0;
	__u32 key;

	if (!vals)
		return -ENOMEM;
	for (key = 0; key < __CFILTER_STAT_MAX && !err; key++) {
		err = bpf_map__lookup_elem(self->skel->maps.cfilter_stats, &key,
					   sizeof(key), vals, size, 0);
		sums[key] = 0;
		for (cpu = 0; cpu < self->ncpus && !err; cpu++)
			sums[key] += vals[cpu];
	}
	free(vals);
	return err;
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

	ASSERT_EQ(0, read_stats(self, before));
	ret = run(self, f, len);
	ASSERT_EQ(verdict, ret) TH_LOG("%s (%u bytes): verdict", what, len);
	ASSERT_EQ(0, read_stats(self, after));
	for (i = 0; i < __CFILTER_STAT_MAX; i++)
		ASSERT_EQ(i == stat ? 1ULL : 0ULL, after[i] - before[i])
			TH_LOG("%s (%u bytes): counter %s", what, len,
			       stat_names[i]);
}

#define EXPECT_DROP(f, len, what) \
	expect_verdict(_metadata, self, f, len, XDP_DROP, CFILTER_STAT_DROP, what)
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

/* Two tags is the documented depth: a third leaves a VLAN EtherType. */
TEST_F(xdp, three_vlan_tags_are_unparsed)
{
	static const __u16 tpids[] = { ETH_P_8021AD, ETH_P_8021Q, ETH_P_8021Q };
	struct frame f = { .len = 0 };

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	put_eth(&f, tpids, 3, ETH_P_IP);
	put_ipv4(&f, BLOCKED4, 5);
	EXPECT_UNPARSED(&f, f.len, "three VLAN tags + IPv4");
}

TEST_F(xdp, arp_is_passed_unparsed)
{
	struct frame f = frame_arp();

	EXPECT_UNPARSED(&f, f.len, "ARP request");
}

/*
 * Truncated and malformed frames are passed and counted UNPARSED, never
 * dropped, even when the source address they would carry is blocked.
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

TEST_F(xdp, truncated_ipv4_header_is_unparsed)
{
	struct frame f = frame4(BLOCKED4, 5);
	char what[64];
	unsigned int len;

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	for (len = ETH_HLEN; len < ETH_HLEN + sizeof(struct iphdr); len++) {
		snprintf(what, sizeof(what), "IPv4 header cut at %u", len);
		EXPECT_UNPARSED(&f, len, what);
	}
	EXPECT_DROP(&f, len, "IPv4 header complete, no payload");
}

TEST_F(xdp, truncated_ipv6_header_is_unparsed)
{
	struct frame f = frame6(BLOCKED6);
	char what[64];
	unsigned int len;

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET6, BLOCKED6));
	for (len = ETH_HLEN; len < ETH_HLEN + sizeof(struct ipv6hdr); len++) {
		snprintf(what, sizeof(what), "IPv6 header cut at %u", len);
		EXPECT_UNPARSED(&f, len, what);
	}
	EXPECT_DROP(&f, len, "IPv6 header complete, no payload");
}

TEST_F(xdp, ipv4_ihl_below_5_is_unparsed)
{
	struct frame f = frame4(BLOCKED4, 5);
	struct iphdr *iph = (struct iphdr *)(f.data + ETH_HLEN);
	char what[64];
	unsigned int ihl;

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	for (ihl = 0; ihl < 5; ihl++) {
		iph->ihl = ihl;
		snprintf(what, sizeof(what), "IPv4 IHL %u", ihl);
		EXPECT_UNPARSED(&f, f.len, what);
	}
}

/* Options that run past the end of the frame: a truncated header. */
TEST_F(xdp, ipv4_ihl_beyond_frame_is_unparsed)
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
		EXPECT_UNPARSED(&f, len, what);
	}
	f = frame4(BLOCKED4, 5);
	((struct iphdr *)(f.data + ETH_HLEN))->ihl = 15;
	EXPECT_UNPARSED(&f, f.len, "IPv4 IHL 15 in a 28-byte packet");
}

TEST_F(xdp, ip_version_mismatch_is_unparsed)
{
	struct frame f4 = frame4(BLOCKED4, 5), f6 = frame6(BLOCKED6);

	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET, BLOCKED4));
	ASSERT_EQ(0, cf_key(self->dev, CFILTER_IOC_ADD, AF_INET6, BLOCKED6));
	((struct iphdr *)(f4.data + ETH_HLEN))->version = 6;
	EXPECT_UNPARSED(&f4, f4.len, "EtherType IPv4, version 6");
	((struct ipv6hdr *)(f6.data + ETH_HLEN))->version = 4;
	EXPECT_UNPARSED(&f6, f6.len, "EtherType IPv6, version 4");
}

TEST_HARNESS_MAIN
