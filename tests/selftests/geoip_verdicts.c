// SPDX-License-Identifier: GPL-2.0
/*
 * test_geoip.sh's checker: the verdicts of the loaded filter against a
 * ranges file ("LO-HI" lines of IPv4 or IPv6 addresses, '#' comments, as
 * scripts/geoip/geoip-ranges.sh prints them) that `cfctl load` put in it.
 *
 *   geoip_verdicts FILE info        the source tables hold exactly the
 *                                   file's prefixes; prints their
 *                                   expansion and memory
 *   geoip_verdicts FILE match N     N random addresses per family plus
 *                                   every range's lo, hi, lo-1, hi+1
 *                                   through CFILTER_IOC_MATCH
 *   geoip_verdicts FILE xdp N       N random UDP packets per family
 *                                   through the XDP program, its
 *                                   prefilter handed over
 *                                   (BPF_PROG_TEST_RUN)
 *
 * The expected verdict comes from the ranges alone: a binary search over
 * them, and, for an address inside one, whether cfctl's split of that
 * range (range_split(), the same code cfctl uses) gives the address a
 * full-length key of its own (CFILTER_DROP_SRC) or a prefix
 * (CFILTER_DROP_PREFIX).
 *
 * Prints "# " lines and one result line; exits 0 if every verdict is
 * right, 1 if one is not (the first few printed), 2 for bad input.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/cfilter.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "lib/range.h"
#include "cfilter.skel.h"
#include "xdp_packets.h"
#include "xdp_stats.h"

#define SEED		0x6e0195eedULL
#define SHOW_MAX	10

typedef unsigned __int128 u128;
typedef unsigned long long u64;

struct range {
	u128 lo, hi;
};

struct family {
	int af;
	unsigned int alen;
	__u8 type;		/* CFILTER_KEY_SRC4 or SRC6 */
	struct range *r;
	size_t n, cap;
	u64 prefixes, addrs;	/* range_split()'s pieces: short, full */
};

static struct family fams[2] = {
	{ .af = AF_INET, .alen = 4, .type = CFILTER_KEY_SRC4 },
	{ .af = AF_INET6, .alen = 16, .type = CFILTER_KEY_SRC6 },
};

static u64 rng = SEED;

/* splitmix64: fixed seed, so a failure reproduces. */
static u64 rnd(void)
{
	u64 z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u128 rnd_in(u128 lo, u128 hi)
{
	u128 r = (u128)rnd() << 64 | rnd();
	u128 span = hi - lo + 1;

	return span ? lo + r % span : r;
}

static u128 addr_max(const struct family *f)
{
	return f->alen == 4 ? 0xffffffffU : ~(u128)0;
}

static const char *show(const struct family *f, u128 v, char *buf)
{
	__u8 a[16];

	range_addr_bytes(v, a, f->alen);
	return inet_ntop(f->af, a, buf, INET6_ADDRSTRLEN);
}

static int count_piece(const uint8_t *addr, unsigned int len, void *arg)
{
	struct family *f = arg;

	if (len == 8 * f->alen)
		f->addrs++;
	else
		f->prefixes++;
	return 0;
}

/* Reads FILE; the ranges of each family must be sorted and disjoint. */
static int load(const char *path)
{
	size_t lineno = 0;
	char line[128];
	FILE *fp;

	fp = fopen(path, "r");
	if (!fp) {
		fprintf(stderr, "geoip_verdicts: %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), fp)) {
		char *dash, *end = line + strcspn(line, "\r\n");
		__u8 lo[16], hi[16];
		struct family *f;
		struct range r;

		lineno++;
		*end = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		dash = strchr(line, '-');
		f = &fams[strchr(line, ':') != NULL];
		if (!dash)
			goto bad;
		*dash = '\0';
		if (inet_pton(f->af, line, lo) != 1 ||
		    inet_pton(f->af, dash + 1, hi) != 1)
			goto bad;
		r.lo = range_addr_num(lo, f->alen);
		r.hi = range_addr_num(hi, f->alen);
		if (r.lo > r.hi || (f->n && r.lo <= f->r[f->n - 1].hi))
			goto bad;
		if (f->n == f->cap) {
			f->cap = f->cap ? 2 * f->cap : 4096;
			f->r = realloc(f->r, f->cap * sizeof(r));
			if (!f->r)
				goto bad;
		}
		f->r[f->n++] = r;
		if (range_split(lo, hi, f->alen, count_piece, f))
			goto bad;
	}
	fclose(fp);
	if (!fams[0].n || !fams[1].n) {
		fprintf(stderr, "geoip_verdicts: %s: want ranges of both families\n",
			path);
		return -1;
	}
	return 0;
bad:
	fprintf(stderr, "geoip_verdicts: %s:%zu: not a range after the previous one\n",
		path, lineno);
	fclose(fp);
	return -1;
}

struct piece_find {
	u128 x;
	unsigned int alen;
	bool full;
};

static int find_piece(const uint8_t *addr, unsigned int len, void *arg)
{
	struct piece_find *pf = arg;
	u128 a = range_addr_num(addr, pf->alen), span;

	span = len ? ((u128)1 << (8 * pf->alen - len)) - 1 : ~(u128)0;
	if (pf->x < a || pf->x > a + span)
		return 0;
	pf->full = len == 8 * pf->alen;
	return 1;
}

/* The verdict the ranges give a packet from @x. */
static int expected(const struct family *f, u128 x)
{
	size_t lo = 0, hi = f->n;
	struct piece_find pf = { .x = x, .alen = f->alen };
	__u8 a[16], b[16];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->r[mid].lo <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || x > f->r[lo - 1].hi)
		return CFILTER_PASS;
	range_addr_bytes(f->r[lo - 1].lo, a, f->alen);
	range_addr_bytes(f->r[lo - 1].hi, b, f->alen);
	range_split(a, b, f->alen, find_piece, &pf);
	return pf.full ? CFILTER_DROP_SRC : CFILTER_DROP_PREFIX;
}

/*
 * The @i-th sample address: a third uniform over the space, a third over
 * the ranges' span, a third inside a random range.
 */
static u128 sample(const struct family *f, u64 i)
{
	const struct range *r;

	switch (i % 3) {
	case 0:
		return rnd_in(0, addr_max(f));
	case 1:
		return rnd_in(f->r[0].lo, f->r[f->n - 1].hi);
	default:
		r = &f->r[rnd() % f->n];
		return rnd_in(r->lo, r->hi);
	}
}

static int do_info(int dev)
{
	int bad = 0, i;

	for (i = 0; i < 2; i++) {
		const struct family *f = &fams[i];
		struct cfilter_type_info ti = { .type = f->type };

		if (ioctl(dev, CFILTER_IOC_TYPE_INFO, &ti)) {
			fprintf(stderr, "geoip_verdicts: TYPE_INFO: %s\n",
				strerror(errno));
			return 2;
		}
		printf("# IPv%d: %zu ranges -> %llu prefixes + %llu addresses; the module holds %llu keys, %llu of them prefixes of %u lengths, %llu markers, at most %u probes, %llu bytes\n",
		       f->alen == 4 ? 4 : 6, f->n, f->prefixes, f->addrs,
		       (u64)ti.count, (u64)ti.prefixes, ti.lengths,
		       (u64)ti.prefix_markers, ti.probes,
		       (u64)ti.memory_bytes);
		if (ti.count != f->prefixes + f->addrs ||
		    ti.prefixes != f->prefixes || !ti.lengths ||
		    ti.probes != (f->alen == 4 ? 5 : 8))
			bad = 1;
	}
	printf("info: %s\n", bad ? "the module's counts differ" :
	       "the module holds exactly the file's keys");
	return bad;
}

static int do_match(int dev, u64 n)
{
	u64 checks = 0, wrong = 0, drops = 0;
	char buf[INET6_ADDRSTRLEN];
	int i;

	for (i = 0; i < 2; i++) {
		const struct family *f = &fams[i];
		u64 k, edges = 4 * f->n;

		for (k = 0; k < n + edges; k++) {
			struct cfilter_match_req mr = {
				.pkt.family = f->alen == 4 ? 4 : 6,
			};
			const struct range *r = &f->r[k < n ? 0 : (k - n) / 4];
			u128 x;
			int want;

			if (k < n)
				x = sample(f, k);
			else if ((k - n) % 4 == 0)
				x = r->lo;
			else if ((k - n) % 4 == 1)
				x = r->hi;
			else if ((k - n) % 4 == 2 && r->lo)
				x = r->lo - 1;
			else if ((k - n) % 4 == 3 && r->hi != addr_max(f))
				x = r->hi + 1;
			else
				continue;
			range_addr_bytes(x, mr.pkt.saddr, f->alen);
			if (ioctl(dev, CFILTER_IOC_MATCH, &mr)) {
				fprintf(stderr, "geoip_verdicts: MATCH: %s\n",
					strerror(errno));
				return 2;
			}
			want = expected(f, x);
			checks++;
			drops += want != CFILTER_PASS;
			if ((int)mr.verdict == want)
				continue;
			if (wrong++ < SHOW_MAX)
				printf("# %s: verdict %u, the ranges say %d\n",
				       show(f, x, buf), mr.verdict, want);
		}
	}
	printf("match: %llu verdicts (%llu drops), %llu wrong\n", checks, drops,
	       wrong);
	return wrong ? 1 : 0;
}

/* A UDP packet from @x to the fixed destination of xdp_packets.h. */
static void udp_from(const struct family *f, u128 x, struct frame *fr)
{
	char buf[INET6_ADDRSTRLEN];

	memset(fr, 0, sizeof(*fr));
	show(f, x, buf);
	put_eth(fr, NULL, 0, f->af == AF_INET ? ETH_P_IP : ETH_P_IPV6);
	if (f->af == AF_INET)
		put_ip4(fr, buf, 5, 0);
	else
		put_ip6(fr, buf, 64);
	put_udp(fr);
	ip_done(fr);
}

static int do_xdp(u64 n)
{
	u64 checks = 0, wrong = 0, drops = 0;
	char buf[INET6_ADDRSTRLEN];
	struct cfilter_bpf *skel;
	struct frame fr;
	int i, fd, ret = 0;

	skel = xdp_load_private(false);
	if (!skel) {
		fprintf(stderr, "geoip_verdicts: loading the XDP program: %s (is /sys/kernel/btf/cfilter there?)\n",
			strerror(errno));
		return 2;
	}
	/* As cfctl runs it: the packets meet the prefilter's bits first. */
	fd = open(CFILTER_DEVICE, O_RDWR);
	ret = fd < 0 ? errno : xdp_hand_over(skel, fd);
	if (fd >= 0)
		close(fd);
	if (ret) {
		fprintf(stderr, "geoip_verdicts: handing the prefilter over: %s\n",
			strerror(ret));
		ret = 2;
		goto out;
	}
	fd = bpf_program__fd(skel->progs.cfilter_xdp);
	for (i = 0; i < 2; i++) {
		const struct family *f = &fams[i];
		u64 k;

		for (k = 0; k < n; k++) {
			/* half inside ranges, half over their span */
			u128 x = sample(f, k % 2 ? 1 : 2);
			int want = expected(f, x) == CFILTER_PASS ? XDP_PASS :
				   XDP_DROP;
			LIBBPF_OPTS(bpf_test_run_opts, opts, .repeat = 1);

			udp_from(f, x, &fr);
			opts.data_in = fr.data;
			opts.data_size_in = fr.len;
			if (bpf_prog_test_run_opts(fd, &opts)) {
				fprintf(stderr, "geoip_verdicts: BPF_PROG_TEST_RUN: %s\n",
					strerror(errno));
				ret = 2;
				goto out;
			}
			checks++;
			drops += want == XDP_DROP;
			if ((int)opts.retval == want)
				continue;
			if (wrong++ < SHOW_MAX)
				printf("# %s: XDP verdict %u, the ranges say %d\n",
				       show(f, x, buf), opts.retval, want);
		}
	}
	printf("xdp: %llu packets (%llu drops), %llu wrong\n", checks, drops,
	       wrong);
	ret = wrong ? 1 : 0;
out:
	cfilter_bpf__destroy(skel);
	return ret;
}

/*
 * N addresses per family for `cfctl match` to judge, a line each: the
 * address, then "drop" or "pass" as the ranges say; every fourth an edge
 * of a range (its first or last address, or one beyond).
 */
static int do_sample(u64 n)
{
	char buf[INET6_ADDRSTRLEN];
	int i;

	for (i = 0; i < 2; i++) {
		const struct family *f = &fams[i];
		/* the edges spread over every range */
		u64 k, step = f->n / (n / 4 + 1) + 1;

		for (k = 0; k < n; k++) {
			const struct range *r = &f->r[k / 4 * step % f->n];
			u128 x = sample(f, k);

			if (k % 4 == 1)
				x = r->lo;
			else if (k % 4 == 2)
				x = r->hi;
			else if (k % 4 == 3 && r->hi != addr_max(f))
				x = r->hi + 1;
			printf("%s %s\n", show(f, x, buf),
			       expected(f, x) == CFILTER_PASS ? "pass" : "drop");
		}
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: geoip_verdicts FILE info|match N|xdp N|sample N\n");
	exit(2);
}

int main(int argc, char **argv)
{
	u64 n = 0;
	int dev, ret;

	if (argc < 3)
		usage();
	if (strcmp(argv[2], "info")) {
		char *end;

		if (argc != 4)
			usage();
		n = strtoull(argv[3], &end, 10);
		if (*end || !n)
			usage();
	}
	if (load(argv[1]))
		return 2;
	if (!strcmp(argv[2], "xdp"))
		return do_xdp(n);
	if (!strcmp(argv[2], "sample"))
		return do_sample(n);
	dev = open(CFILTER_DEVICE, O_RDWR);
	if (dev < 0) {
		fprintf(stderr, "geoip_verdicts: %s: %s\n", CFILTER_DEVICE,
			strerror(errno));
		return 2;
	}
	if (!strcmp(argv[2], "info"))
		ret = do_info(dev);
	else if (!strcmp(argv[2], "match"))
		ret = do_match(dev, n);
	else
		usage();
	close(dev);
	return ret;
}
