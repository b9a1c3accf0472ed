// SPDX-License-Identifier: GPL-2.0
/*
 * Atomic replacement (CFILTER_IOC_STAGE, COMMIT, ABORT and CFILTER_F_STAGED):
 * errnos, isolation of the staged set from the live one and from other
 * files, its end on close, privileges, and a packet never meeting a mix of
 * two sets (or none) while sets are swapped under it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include <linux/cfilter.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <linux/if_ether.h>
#include <linux/ip.h>

#include "cfilter.skel.h"
#include "xdp_stats.h"
#include "kselftest_harness.h"
#include "harness_timeout.h"
#include "helpers.h"


/* An IPv4 address key of @type (SRC4, DST4, ALLOW4) for @addr. */
static struct cfilter_key_req key4(__u8 type, const char *addr, __u32 flags)
{
	struct cfilter_key_req req = { .key = key_of(type, addr), .flags = flags };

	return req;
}

static int cf_key(int fd, unsigned long cmd, __u8 type, const char *addr,
		  __u32 flags)
{
	struct cfilter_key_req req = key4(type, addr, flags);

	return cf_ioctl(fd, cmd, &req);
}

#define ADD(fd, type, addr, flags) \
	cf_key(fd, CFILTER_IOC_ADD, CFILTER_KEY_##type, addr, flags)
#define DEL(fd, type, addr, flags) \
	cf_key(fd, CFILTER_IOC_DEL, CFILTER_KEY_##type, addr, flags)
#define TST(fd, type, addr, flags) \
	cf_key(fd, CFILTER_IOC_TEST, CFILTER_KEY_##type, addr, flags)
#define LIVE	0
#define STAGED	CFILTER_F_STAGED

/*
 * The verdict's kind for an IPv4 packet @saddr -> @daddr (MATCH_DST), or
 * -errno.
 */
static int cf_match(int fd, const char *saddr, const char *daddr)
{
	struct cfilter_match_req mr = {
		.pkt = match_pkt(AF_INET, saddr, daddr, CFILTER_PKT_MATCH_DST,
				 0, 0, 0),
	};

	if (ioctl(fd, CFILTER_IOC_MATCH, &mr))
		return -errno;
	return CFILTER_VERDICT_KIND(mr.verdict);
}

FIXTURE_EMPTY_FILTER(rp)

TEST_F(rp, stage_commit_abort_errnos)
{
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_ABORT, NULL));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
	EXPECT_EQ(EBUSY, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
	EXPECT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ABORT, NULL));
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_ABORT, NULL));
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
	EXPECT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_ABORT, NULL));
	/* A committed file may stage again. */
	EXPECT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
	EXPECT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ABORT, NULL));
}

/* Every request naming a staged set fails with EINVAL when there is none. */
TEST_F(rp, staged_flag_without_a_staged_set_is_einval)
{
	struct cfilter_key keys[1] = { key4(CFILTER_KEY_SRC4, "192.0.2.9", 0).key };
	struct cfilter_type_info ti;
	struct cfilter_batch b;
	__s32 results[1];

	ASSERT_EQ(0, ADD(self->fd, SRC4, "192.0.2.1", LIVE));
	EXPECT_EQ(EINVAL, ADD(self->fd, SRC4, "192.0.2.9", STAGED));
	EXPECT_EQ(EINVAL, DEL(self->fd, SRC4, "192.0.2.1", STAGED));
	EXPECT_EQ(EINVAL, TST(self->fd, SRC4, "192.0.2.1", STAGED));
	EXPECT_EQ(EINVAL, cf_batch_flags(self->fd, CFILTER_BATCH_ADD, STAGED,
					 keys, results, 1, &b));
	EXPECT_EQ(EINVAL, cf_batch_flags(self->fd, CFILTER_BATCH_TEST, STAGED,
					 keys, results, 1, &b));
	EXPECT_EQ(EINVAL, cf_type_info(self->fd, CFILTER_KEY_SRC4, STAGED, &ti));
	/* Nothing changed, and flags beyond STAGED stay invalid. */
	EXPECT_EQ(1, cf_count(self->fd));
	EXPECT_EQ(ENOENT, TST(self->fd, SRC4, "192.0.2.9", LIVE));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
	EXPECT_EQ(EINVAL, ADD(self->fd, SRC4, "192.0.2.9", 2));
	EXPECT_EQ(EINVAL, ADD(self->fd, SRC4, "192.0.2.9", STAGED | 2));
	EXPECT_EQ(0, cf_type_count(self->fd, CFILTER_KEY_SRC4, STAGED));
}

TEST_F(rp, staged_writes_are_invisible_until_commit)
{
	struct cfilter_key keys[2] = {
		key4(CFILTER_KEY_DST4, "198.51.100.1", 0).key,
		key4(CFILTER_KEY_SRC4, "192.0.2.1", 0).key,
	};
	struct cfilter_batch b;
	__s32 results[2];

	ASSERT_EQ(0, ADD(self->fd, SRC4, "192.0.2.1", LIVE));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
	/* The staged set starts empty, whatever is live. */
	EXPECT_EQ(ENOENT, TST(self->fd, SRC4, "192.0.2.1", STAGED));
	EXPECT_EQ(0, cf_type_count(self->fd, CFILTER_KEY_SRC4, STAGED));
	ASSERT_EQ(0, ADD(self->fd, SRC4, "192.0.2.2", STAGED));
	EXPECT_EQ(EEXIST, ADD(self->fd, SRC4, "192.0.2.2", STAGED));
	ASSERT_EQ(0, cf_batch_flags(self->fd, CFILTER_BATCH_ADD, STAGED, keys,
				    results, 1, &b));
	EXPECT_EQ(0, results[0]);

	/* The live set, its counts and its verdicts are untouched. */
	EXPECT_EQ(0, TST(self->fd, SRC4, "192.0.2.2", STAGED));
	EXPECT_EQ(ENOENT, TST(self->fd, SRC4, "192.0.2.2", LIVE));
	EXPECT_EQ(ENOENT, TST(self->fd, DST4, "198.51.100.1", LIVE));
	EXPECT_EQ(0, TST(self->fd, SRC4, "192.0.2.1", LIVE));
	EXPECT_EQ(1, cf_count(self->fd));
	EXPECT_EQ(1, cf_type_count(self->fd, CFILTER_KEY_SRC4, LIVE));
	EXPECT_EQ(1, cf_type_count(self->fd, CFILTER_KEY_SRC4, STAGED));
	EXPECT_EQ(1, cf_type_count(self->fd, CFILTER_KEY_DST4, STAGED));
	EXPECT_EQ(CFILTER_PASS, cf_match(self->fd, "192.0.2.2", "198.51.100.1"));
	EXPECT_EQ(CFILTER_DROP_SRC, cf_match(self->fd, "192.0.2.1", "8.8.8.8"));
	/* A staged BATCH TEST and DEL see the staged set only. */
	ASSERT_EQ(0, cf_batch_flags(self->fd, CFILTER_BATCH_TEST, STAGED, keys,
				    results, 2, &b));
	EXPECT_EQ(0, results[0]);
	EXPECT_EQ(-ENOENT, results[1]);
	EXPECT_EQ(ENOENT, DEL(self->fd, SRC4, "192.0.2.1", STAGED));
	EXPECT_EQ(0, TST(self->fd, SRC4, "192.0.2.1", LIVE));

	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	EXPECT_EQ(2, cf_count(self->fd));
	EXPECT_EQ(ENOENT, TST(self->fd, SRC4, "192.0.2.1", LIVE));
	EXPECT_EQ(0, TST(self->fd, SRC4, "192.0.2.2", LIVE));
	EXPECT_EQ(CFILTER_PASS, cf_match(self->fd, "192.0.2.1", "8.8.8.8"));
	EXPECT_EQ(CFILTER_DROP_SRC, cf_match(self->fd, "192.0.2.2", "8.8.8.8"));
	EXPECT_EQ(CFILTER_DROP_DST, cf_match(self->fd, "8.8.8.8", "198.51.100.1"));
	/* The committed set is the live one now: plain writes reach it. */
	EXPECT_EQ(0, DEL(self->fd, SRC4, "192.0.2.2", LIVE));
	EXPECT_EQ(1, cf_count(self->fd));
}

TEST_F(rp, abort_drops_the_staged_set_and_keeps_the_live_one)
{
	ASSERT_EQ(0, ADD(self->fd, SRC4, "192.0.2.1", LIVE));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
	ASSERT_EQ(0, ADD(self->fd, SRC4, "192.0.2.2", STAGED));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ABORT, NULL));
	EXPECT_EQ(0, TST(self->fd, SRC4, "192.0.2.1", LIVE));
	EXPECT_EQ(ENOENT, TST(self->fd, SRC4, "192.0.2.2", LIVE));
	/* The next staged set is a new, empty one. */
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
	EXPECT_EQ(ENOENT, TST(self->fd, SRC4, "192.0.2.2", STAGED));
	EXPECT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ABORT, NULL));
	EXPECT_EQ(1, cf_count(self->fd));
}

/* A staged set belongs to its open file: others neither see nor block it. */
TEST_F(rp, staged_sets_are_per_file)
{
	int fd2 = open(CFILTER_DEVICE, O_RDWR);

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
	ASSERT_EQ(0, ADD(self->fd, SRC4, "192.0.2.1", STAGED));
	EXPECT_EQ(EINVAL, TST(fd2, SRC4, "192.0.2.1", STAGED));
	EXPECT_EQ(EINVAL, cf_ioctl(fd2, CFILTER_IOC_COMMIT, NULL));
	ASSERT_EQ(0, cf_ioctl(fd2, CFILTER_IOC_STAGE, NULL));
	EXPECT_EQ(ENOENT, TST(fd2, SRC4, "192.0.2.1", STAGED));
	ASSERT_EQ(0, ADD(fd2, SRC4, "192.0.2.2", STAGED));

	/* The later commit wins; the other set stays staged till then. */
	ASSERT_EQ(0, cf_ioctl(fd2, CFILTER_IOC_COMMIT, NULL));
	EXPECT_EQ(0, TST(self->fd, SRC4, "192.0.2.2", LIVE));
	EXPECT_EQ(0, TST(self->fd, SRC4, "192.0.2.1", STAGED));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	EXPECT_EQ(0, TST(fd2, SRC4, "192.0.2.1", LIVE));
	EXPECT_EQ(ENOENT, TST(fd2, SRC4, "192.0.2.2", LIVE));
	close(fd2);
}

/* Closing a file without COMMIT drops its staged set: nothing goes live. */
TEST_F(rp, close_without_commit_drops_the_staged_set)
{
	struct cfilter_info before, after;
	int fd2 = open(CFILTER_DEVICE, O_RDWR);
	int i;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ADD(self->fd, SRC4, "192.0.2.1", LIVE));
	memset(&before, 0, sizeof(before));
	before.size = sizeof(before);
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_INFO, &before));
	ASSERT_EQ(0, cf_ioctl(fd2, CFILTER_IOC_STAGE, NULL));
	for (i = 0; i < 100; i++) {
		char addr[32];

		snprintf(addr, sizeof(addr), "10.0.0.%d", i);
		ASSERT_EQ(0, ADD(fd2, SRC4, addr, STAGED));
	}
	close(fd2);
	EXPECT_EQ(ENOENT, TST(self->fd, SRC4, "10.0.0.1", LIVE));
	EXPECT_EQ(0, TST(self->fd, SRC4, "192.0.2.1", LIVE));
	memset(&after, 0, sizeof(after));
	after.size = sizeof(after);
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_INFO, &after));
	EXPECT_EQ(before.count, after.count);
	EXPECT_EQ(before.memory_bytes, after.memory_bytes);
}

/* CLEAR replaces the live set; a staged set is not the live one. */
TEST_F(rp, clear_leaves_a_staged_set_alone)
{
	ASSERT_EQ(0, ADD(self->fd, SRC4, "192.0.2.1", LIVE));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
	ASSERT_EQ(0, ADD(self->fd, SRC4, "192.0.2.2", STAGED));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_CLEAR, NULL));
	EXPECT_EQ(0, cf_count(self->fd));
	EXPECT_EQ(0, TST(self->fd, SRC4, "192.0.2.2", STAGED));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	EXPECT_EQ(1, cf_count(self->fd));
	EXPECT_EQ(0, TST(self->fd, SRC4, "192.0.2.2", LIVE));
}

struct unpriv_result {
	int stage, commit, abort, test_staged;
};

/* run_as_nobody()'s child, with 192.0.2.2 in the staged set. */
static void unpriv_child(int fd, const void *arg, void *result)
{
	struct unpriv_result *r = result;

	r->stage = cf_ioctl(fd, CFILTER_IOC_STAGE, NULL);
	r->commit = cf_ioctl(fd, CFILTER_IOC_COMMIT, NULL);
	r->abort = cf_ioctl(fd, CFILTER_IOC_ABORT, NULL);
	r->test_staged = TST(fd, SRC4, "192.0.2.2", STAGED);
}

TEST_F(rp, unprivileged_cannot_stage_commit_or_abort)
{
	struct unpriv_result r;

	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
	ASSERT_EQ(0, ADD(self->fd, SRC4, "192.0.2.2", STAGED));
	ASSERT_EQ(0, run_as_nobody(unpriv_child, self->fd, NULL, &r,
				   sizeof(r)));
	EXPECT_EQ(EPERM, r.stage);
	EXPECT_EQ(EPERM, r.commit);
	EXPECT_EQ(EPERM, r.abort);
	EXPECT_EQ(0, r.test_staged);
	/* Still staged, still not live. */
	EXPECT_EQ(0, TST(self->fd, SRC4, "192.0.2.2", STAGED));
	EXPECT_EQ(ENOENT, TST(self->fd, SRC4, "192.0.2.2", LIVE));
}

/*
 * A packet from A to B, matched with MATCH_DST. Set "A" blocks source A,
 * set "B" destination B; each also holds filler so that it has several
 * tables in use. Whichever set is live, the packet is dropped: DROP_SRC in
 * A, DROP_DST in B. PASS would mean a reader met an empty or half-built
 * set, or the source table of one set and the destination table of the
 * other. Each commit builds a set and waits for an RCU grace period: 400
 * swaps took 45 to 70 s per test in the emulated guest, over 3 minutes of
 * make check's 30 for the two tests on two kernels. 200 still put about
 * 30000 reads of the MATCH ioctl, or 700 packets, across each swap. The
 * 240 s timeouts leave room for a slower host.
 */
#define SWAP_ADDR_A	"198.51.100.1"
#define SWAP_ADDR_B	"192.0.2.1"
#define SWAPS		200

struct reader {
	int		fd;
	volatile bool	stop;
	/* by verdict kind; [__CFILTER_STAT_MAX]: errors and strangers */
	long		seen[__CFILTER_STAT_MAX + 1];
};

static void *match_reader(void *arg)
{
	struct reader *r = arg;

	while (!r->stop) {
		int v = cf_match(r->fd, SWAP_ADDR_A, SWAP_ADDR_B);

		r->seen[v >= 0 && v < __CFILTER_STAT_MAX ?
			v : __CFILTER_STAT_MAX]++;
	}
	return NULL;
}

/* Stages set A (@a) or set B, with its filler, and commits it. */
static int commit_set(int fd, bool a)
{
	char filler[32];
	int err, i;

	err = cf_ioctl(fd, CFILTER_IOC_STAGE, NULL);
	if (err)
		return err;
	err = a ? ADD(fd, SRC4, SWAP_ADDR_A, STAGED) :
		  ADD(fd, DST4, SWAP_ADDR_B, STAGED);
	for (i = 0; !err && i < 8; i++) {
		snprintf(filler, sizeof(filler), "203.0.113.%d", i);
		err = cf_key(fd, CFILTER_IOC_ADD, i % 2 ? CFILTER_KEY_SRC4 :
			     CFILTER_KEY_DST4, filler, STAGED);
	}
	if (err) {
		cf_ioctl(fd, CFILTER_IOC_ABORT, NULL);
		return err;
	}
	return cf_ioctl(fd, CFILTER_IOC_COMMIT, NULL);
}

TEST_F_TIMEOUT(rp, replace_under_traffic_shows_no_mix, 240)
{
	struct reader r = { .fd = open(CFILTER_DEVICE, O_RDWR) };
	pthread_t tid;
	int i;

	ASSERT_LE(0, r.fd);
	ASSERT_EQ(0, commit_set(self->fd, true));
	ASSERT_EQ(0, pthread_create(&tid, NULL, match_reader, &r));
	for (i = 0; i < SWAPS; i++)
		ASSERT_EQ(0, commit_set(self->fd, i % 2));
	r.stop = true;
	ASSERT_EQ(0, pthread_join(tid, NULL));
	close(r.fd);

	TH_LOG("%d swaps; verdicts: %ld DROP_SRC, %ld DROP_DST, %ld PASS, %ld errors or strangers",
	       SWAPS, r.seen[CFILTER_DROP_SRC], r.seen[CFILTER_DROP_DST],
	       r.seen[CFILTER_PASS], r.seen[__CFILTER_STAT_MAX]);
	EXPECT_EQ(0, r.seen[CFILTER_PASS]);
	EXPECT_EQ(0, r.seen[CFILTER_DROP_FLOW]);
	EXPECT_EQ(0, r.seen[CFILTER_ALLOWED]);
	EXPECT_EQ(0, r.seen[CFILTER_DROP_PREFIX]);
	EXPECT_EQ(0, r.seen[CFILTER_STAT_UNPARSED] + r.seen[__CFILTER_STAT_MAX]);
	/* The reader saw both sets: the swaps happened under it. */
	EXPECT_LT(0, r.seen[CFILTER_DROP_SRC]);
	EXPECT_LT(0, r.seen[CFILTER_DROP_DST]);
}

/*
 * The same protection seen from a mutant's angle: were COMMIT to empty the
 * live set and refill it key by key (what CLEAR and ADD would do), a reader
 * would see PASS. This checks that such a window is observable at all:
 * the reader does see PASS between a CLEAR and an ADD.
 */
TEST_F(rp, clear_then_add_does_show_a_gap)
{
	struct reader r = { .fd = open(CFILTER_DEVICE, O_RDWR) };
	pthread_t tid;
	int i;

	ASSERT_LE(0, r.fd);
	ASSERT_EQ(0, ADD(self->fd, SRC4, SWAP_ADDR_A, LIVE));
	ASSERT_EQ(0, pthread_create(&tid, NULL, match_reader, &r));
	for (i = 0; i < SWAPS && !r.seen[CFILTER_PASS]; i++) {
		ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_CLEAR, NULL));
		/* A pause as long as a staged fill takes. */
		usleep(200);
		ASSERT_EQ(0, ADD(self->fd, SRC4, SWAP_ADDR_A, LIVE));
	}
	r.stop = true;
	ASSERT_EQ(0, pthread_join(tid, NULL));
	close(r.fd);
	TH_LOG("PASS seen after %d clear+add rounds", i);
	EXPECT_LT(0, r.seen[CFILTER_PASS]);
}

/*
 * The same through the XDP program and the kfunc (BPF_PROG_TEST_RUN, with
 * destination matching on): every packet A -> B is dropped, counted as
 * DROP_SRC or DROP_DST, never passed, over many swaps.
 */
#define XDP_REPEAT	200

/* An Ethernet frame: IPv4 A -> B, ICMP echo request. */
struct frame4 {
	struct ethhdr	eth;
	struct iphdr	ip;
	__u8		icmp[8];
} __attribute__((packed));

static struct frame4 frame_a_to_b(void)
{
	struct frame4 f;

	memset(&f, 0, sizeof(f));
	f.eth.h_proto = htons(ETH_P_IP);
	f.ip.version = 4;
	f.ip.ihl = 5;
	f.ip.tot_len = htons(sizeof(f.ip) + sizeof(f.icmp));
	f.ip.ttl = 64;
	f.ip.protocol = IPPROTO_ICMP;
	if (inet_pton(AF_INET, SWAP_ADDR_A, &f.ip.saddr) != 1 ||
	    inet_pton(AF_INET, SWAP_ADDR_B, &f.ip.daddr) != 1)
		abort();
	f.icmp[0] = 8;
	return f;
}

struct xdp_reader {
	int		prog_fd;
	volatile bool	stop;
	int		err;
	long		runs;
	long		passed;		/* runs whose last packet passed */
};

static void *xdp_reader(void *arg)
{
	struct xdp_reader *r = arg;
	struct frame4 f = frame_a_to_b();
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = &f,
		.data_size_in = sizeof(f),
		.repeat = XDP_REPEAT,
	);

	while (!r->stop && !r->err) {
		if (bpf_prog_test_run_opts(r->prog_fd, &opts))
			r->err = errno;
		r->passed += opts.retval != XDP_DROP;
		r->runs++;
	}
	return NULL;
}

TEST_F_TIMEOUT(rp, replace_under_xdp_traffic_shows_no_mix, 240)
{
	struct xdp_reader r = { 0 };
	__u64 before[__CFILTER_STAT_MAX], after[__CFILTER_STAT_MAX];
	struct cfilter_bpf *skel;
	pthread_t tid;
	int i;

	skel = xdp_load_private(true);
	ASSERT_NE(NULL, skel)
		TH_LOG("loading cfilter_xdp: the kfunc needs cfilter.ko with BTF");
	r.prog_fd = bpf_program__fd(skel->progs.cfilter_xdp);
	ASSERT_EQ(0, commit_set(self->fd, true));
	ASSERT_EQ(0, xdp_stats_sum(skel, before));
	ASSERT_EQ(0, pthread_create(&tid, NULL, xdp_reader, &r));
	for (i = 0; i < SWAPS; i++)
		ASSERT_EQ(0, commit_set(self->fd, i % 2));
	r.stop = true;
	ASSERT_EQ(0, pthread_join(tid, NULL));
	ASSERT_EQ(0, r.err) TH_LOG("BPF_PROG_TEST_RUN: %s", strerror(r.err));
	ASSERT_EQ(0, xdp_stats_sum(skel, after));
	cfilter_bpf__destroy(skel);

	for (i = 0; i < __CFILTER_STAT_MAX; i++)
		after[i] -= before[i];
	TH_LOG("%d swaps, %ld runs of %d packets: %llu DROP_SRC, %llu DROP_DST, %llu PASS",
	       SWAPS, r.runs, XDP_REPEAT,
	       (unsigned long long)after[CFILTER_STAT_DROP_SRC],
	       (unsigned long long)after[CFILTER_STAT_DROP_DST],
	       (unsigned long long)after[CFILTER_STAT_PASS]);
	EXPECT_EQ(0, r.passed);
	EXPECT_EQ(0U, after[CFILTER_STAT_PASS]);
	EXPECT_EQ(0U, after[CFILTER_STAT_UNPARSED]);
	EXPECT_EQ(0U, after[CFILTER_STAT_ALLOWED]);
	EXPECT_EQ((__u64)r.runs * XDP_REPEAT,
		  after[CFILTER_STAT_DROP_SRC] + after[CFILTER_STAT_DROP_DST]);
	EXPECT_LT(0U, after[CFILTER_STAT_DROP_SRC]);
	EXPECT_LT(0U, after[CFILTER_STAT_DROP_DST]);
}

TEST_HARNESS_MAIN
