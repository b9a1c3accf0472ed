// SPDX-License-Identifier: GPL-2.0
/*
 * Lock-free readers against a busy writer, in the kernel: the XDP program
 * (through BPF_PROG_TEST_RUN with a repeat count) looks up always-present
 * sources on CPU 0 while a writer thread on CPU 1 changes the filter as
 * fast as it can:
 * - it adds keys until the IPv4 table grows (a table swap under RCU), then
 *   up to 90% of the grown table's slots, so that most inserts have to move
 *   entries (the moves the version protocol guards);
 * - then it churns at that load: deletes the oldest BATCH keys, adds BATCH
 *   new ones, for CHURN_SECONDS.
 * Every packet must be dropped: the per-CPU DROP counter must rise by
 * exactly the number of packets run, and PASS and UNPARSED not at all. A
 * reader that missed a present key during a move or a swap would show up
 * as a PASS.
 *
 * A second test reads while holdings expire: always-present sources must
 * always drop and timed ones must drop until their timeout and pass from a
 * second after it, while a writer keeps adding short-lived holdings (so
 * the expiry work runs every second) and the module deletes expired ones.
 *
 * Needs cfilter.ko loaded in exact mode (the default) with BTF, and two
 * CPUs. Guest time under TCG: about 20 s.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/cfilter.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cfilter.skel.h"
#include "xdp_packets.h"
#include "xdp_stats.h"
#include "helpers.h"
#include "kselftest_harness.h"
#include "harness_timeout.h"

#define PRESENT		1000		/* always-present sources: keys 0..999 */
#define CHURN_FIRST	(1U << 16)	/* churn keys: 10.1.0.0 and up, */
#define CHURN_SPAN	((1U << 24) - CHURN_FIRST)	/* ... to 10.255.255.255 */
#define BATCH		256		/* keys per writer ioctl */
#define REPEAT		2000		/* packets per BPF_PROG_TEST_RUN */
#define FILL_PCT	90		/* load the writer churns at */
#define CHURN_SECONDS	10
#define QUIET_RUNS	20		/* runs timed before the writer starts */
#define FILL_SECONDS	30		/* give up growing/filling after this */
#define READER_CPU	0
#define WRITER_CPU	1

/* What the writer is doing, for the reader. */
enum phase {
	FILLING,
	CHURNING,
	FINISHED,	/* stopped, or failed */
};

struct writer {
	int fd;
	atomic_bool stop;		/* set by the reader */
	atomic_int phase;		/* set by the writer */
	int err;			/* first unexpected errno/result */
	const char *what;		/* ... and what it came from */
	unsigned long long adds, dels, batches;
	unsigned long long slots;	/* IPv4 table slots after growing */
	__u64 grows0;
	struct cfilter_info info;	/* last INFO */
	double churn_s;
};

FIXTURE(stress) {
	struct cfilter_bpf *skel;
	int dev;
	int prog_fd;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? errno : 0;
}

/* An Ethernet + IPv4 + ICMP echo frame from 10.x.y.z (key @i). */
static struct frame frame_from(unsigned int i)
{
	struct cfilter_key key = nth_key4(i);
	char saddr[INET_ADDRSTRLEN];

	if (!inet_ntop(AF_INET, key.saddr, saddr, sizeof(saddr)))
		abort();
	return frame4(saddr, 5);
}

/* Records the writer's first failure; returns true if there was one. */
static bool writer_failed(struct writer *w, int err, const char *what)
{
	if (err && !w->err) {
		w->err = err;
		w->what = what;
	}
	return w->err;
}

/*
 * Churn key number @j. Keys are added and deleted oldest first, so the
 * live ones are a window of consecutive numbers, far shorter than
 * CHURN_SPAN: numbering modulo CHURN_SPAN never meets a live key again,
 * nor an always-present one, however fast the writer is.
 */
static struct cfilter_key churn_key(unsigned long long j)
{
	return nth_key4(CHURN_FIRST + j % CHURN_SPAN);
}

/* BATCH @op on churn keys [first, first + n); every key must succeed. */
static bool writer_batch(struct writer *w, __u32 op, unsigned long long first,
			 unsigned int n)
{
	struct cfilter_key keys[BATCH];
	__s32 results[BATCH];
	struct cfilter_batch b;
	unsigned int i;
	int err;

	for (i = 0; i < n; i++)
		keys[i] = churn_key(first + i);
	err = cf_batch(w->fd, op, keys, results, n, &b);
	if (writer_failed(w, err, "BATCH ioctl"))
		return false;
	if (b.first_error != n) {
		writer_failed(w, -results[b.first_error],
			      op == CFILTER_BATCH_ADD ? "BATCH add" : "BATCH del");
		return false;
	}
	w->batches++;
	if (op == CFILTER_BATCH_ADD)
		w->adds += n;
	else
		w->dels += n;
	return true;
}

static bool writer_info(struct writer *w)
{
	return !writer_failed(w, cf_info(w->fd, &w->info), "INFO");
}

/*
 * Adds churn keys from *@next until the table has grown once and then
 * holds FILL_PCT% of the grown IPv4 table's slots. The IPv6 table stays
 * empty and as it was, so the growth of INFO's summed capacity is the IPv4
 * table's: a doubling adds as many slots as it had.
 */
static bool writer_fill(struct writer *w, unsigned long long *next)
{
	double deadline = now_s() + FILL_SECONDS;
	__u64 cap;

	if (!writer_info(w))
		return false;
	while (!w->slots) {
		cap = w->info.capacity;
		if (!writer_batch(w, CFILTER_BATCH_ADD, *next, BATCH) ||
		    !writer_info(w))
			return false;
		*next += BATCH;
		if (w->info.grows != w->grows0)
			w->slots = 2 * (w->info.capacity - cap);
		if (now_s() > deadline) {
			writer_failed(w, ETIMEDOUT, "filling to the first growth");
			return false;
		}
	}
	while (w->info.count < w->slots * FILL_PCT / 100) {
		if (!writer_batch(w, CFILTER_BATCH_ADD, *next, BATCH) ||
		    !writer_info(w))
			return false;
		*next += BATCH;
		if (now_s() > deadline) {
			writer_failed(w, ETIMEDOUT, "filling to 90% load");
			return false;
		}
	}
	return true;
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	unsigned long long oldest = 0, next = 0;
	double t0;

	if (writer_failed(w, pin_to(WRITER_CPU), "sched_setaffinity") ||
	    !writer_fill(w, &next))
		goto out;
	atomic_store(&w->phase, CHURNING);
	t0 = now_s();
	while (!atomic_load(&w->stop)) {
		if (!writer_batch(w, CFILTER_BATCH_DEL, oldest, BATCH) ||
		    !writer_batch(w, CFILTER_BATCH_ADD, next, BATCH))
			break;
		oldest += BATCH;
		next += BATCH;
	}
	w->churn_s = now_s() - t0;
	writer_info(w);
out:
	atomic_store(&w->phase, FINISHED);
	return NULL;
}

FIXTURE_SETUP(stress)
{
	struct cfilter_key keys[PRESENT];
	__s32 results[PRESENT];
	struct cfilter_info info;
	struct cfilter_batch b;
	unsigned int i;

	libbpf_set_print(libbpf_print);
	self->skel = NULL;
	self->dev = open(CFILTER_DEVICE, O_RDWR);
	ASSERT_LE(0, self->dev) TH_LOG("open %s: %s (is cfilter.ko loaded?)",
				       CFILTER_DEVICE, strerror(errno));
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs 2 CPUs, %ld online",
		     sysconf(_SC_NPROCESSORS_ONLN));
	ASSERT_EQ(0, cf_info(self->dev, &info));
	if (info.mode != CFILTER_MODE_EXACT)
		SKIP(return, "needs cfilter.ko in exact mode (it grows)");
	if (info.max_capacity <= read_param("capacity"))
		SKIP(return, "needs cfilter.ko with max_capacity > capacity (room to grow)");
	ASSERT_EQ(0, cf_ioctl(self->dev, CFILTER_IOC_CLEAR, NULL));
	for (i = 0; i < PRESENT; i++)
		keys[i] = nth_key4(i);
	ASSERT_EQ(0, cf_batch(self->dev, CFILTER_BATCH_ADD, keys, results,
			      PRESENT, &b));
	ASSERT_EQ((__u32)PRESENT, b.first_error);

	self->skel = xdp_load_private(false);
	ASSERT_NE(NULL, self->skel)
		TH_LOG("loading cfilter_xdp: %s; the kfunc needs cfilter.ko loaded with BTF",
		       strerror(errno));
	/* As cfctl runs it: the writer's changes rewrite the prefilter too. */
	ASSERT_EQ(0, xdp_hand_over(self->skel, self->dev));
	self->prog_fd = bpf_program__fd(self->skel->progs.cfilter_xdp);
}

FIXTURE_TEARDOWN(stress)
{
	cfilter_bpf__destroy(self->skel);
	if (self->dev >= 0) {
		ioctl(self->dev, CFILTER_IOC_CLEAR);
		close(self->dev);
	}
}

/* One BPF_PROG_TEST_RUN of REPEAT copies of @f; 0 or an errno. */
static int run_repeat(FIXTURE_DATA(stress) *self, const struct frame *f,
		      int *verdict)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = f->data,
		.data_size_in = f->len,
		.repeat = REPEAT,
	);

	if (bpf_prog_test_run_opts(self->prog_fd, &opts))
		return errno;
	*verdict = opts.retval;
	return 0;
}

TEST_F_TIMEOUT(stress, present_sources_always_dropped_under_churn, 120)
{
	static struct frame frames[PRESENT];
	__u64 before[__CFILTER_STAT_MAX], after[__CFILTER_STAT_MAX];
	unsigned long long runs = 0, packets;
	struct writer w = { .fd = self->dev };
	double t0, churn_end = 0, quiet_ns, busy_s, busy_ns = 0;
	pthread_t writer;
	int verdict = XDP_DROP, err = 0, phase;
	unsigned int i;

	if (_metadata->skip)
		return;
	for (i = 0; i < PRESENT; i++)
		frames[i] = frame_from(i);
	ASSERT_EQ(0, pin_to(READER_CPU));
	ASSERT_EQ(0, cf_info(self->dev, &w.info));
	w.grows0 = w.info.grows;
	ASSERT_EQ(0, xdp_stats_sum(self->skel, before));

	/* The reader's pace without a writer, for comparison (emulated time). */
	t0 = now_s();
	for (i = 0; i < QUIET_RUNS && !err && verdict == XDP_DROP; i++, runs++)
		err = run_repeat(self, &frames[i], &verdict);
	quiet_ns = (now_s() - t0) * 1e9 / (QUIET_RUNS * REPEAT);

	t0 = now_s();
	ASSERT_EQ(0, pthread_create(&writer, NULL, writer_main, &w));
	for (i = 0; !err && verdict == XDP_DROP; i = (i + 1) % PRESENT) {
		err = run_repeat(self, &frames[i], &verdict);
		runs++;
		phase = atomic_load(&w.phase);
		if (phase == FINISHED)
			break;
		if (phase == CHURNING && !churn_end)
			churn_end = now_s() + CHURN_SECONDS;
		if (churn_end && now_s() > churn_end)
			break;
	}
	busy_s = now_s() - t0;
	atomic_store(&w.stop, true);
	pthread_join(writer, NULL);
	packets = runs * REPEAT;
	if (runs > QUIET_RUNS)
		busy_ns = busy_s * 1e9 / ((runs - QUIET_RUNS) * REPEAT);

	fprintf(stderr, "# stress: reader on CPU %d: %llu packets (lookups), %.0f ns each alone, %.0f ns each during %.1f s of writes\n",
		READER_CPU, packets, quiet_ns, busy_ns, busy_s);
	fprintf(stderr, "# stress: writer on CPU %d: %llu adds, %llu dels in %llu batches; %llu grows; %.1f s churning at %llu keys in %llu slots (%.1f%% load)\n",
		WRITER_CPU, w.adds, w.dels, w.batches,
		(unsigned long long)(w.info.grows - w.grows0), w.churn_s,
		(unsigned long long)w.info.count, w.slots,
		w.slots ? 100.0 * w.info.count / w.slots : 0.0);
	ASSERT_EQ(0, err) TH_LOG("BPF_PROG_TEST_RUN: %s", strerror(err));
	ASSERT_EQ(XDP_DROP, verdict) TH_LOG("a present source passed");
	ASSERT_EQ(0, w.err) TH_LOG("writer: %s: %s", w.what, strerror(w.err));
	ASSERT_LT(0ULL, w.info.grows - w.grows0);
	ASSERT_LT(0.0, w.churn_s);

	ASSERT_EQ(0, xdp_stats_sum(self->skel, after));
	EXPECT_EQ(packets, after[CFILTER_STAT_DROP_SRC] - before[CFILTER_STAT_DROP_SRC]);
	EXPECT_EQ(0ULL, after[CFILTER_STAT_PASS] - before[CFILTER_STAT_PASS])
		TH_LOG("present sources passed: wrong verdicts");
	EXPECT_EQ(0ULL,
		  after[CFILTER_STAT_UNPARSED] - before[CFILTER_STAT_UNPARSED]);
}

#define TIMED		1000	/* timed sources: keys PRESENT..PRESENT+TIMED-1 */
#define TIMED_SECONDS	2
/*
 * How late after its deadline an expiry may land: the second docs/uapi.md
 * gives the module (the work, the lock, here behind a writer and a reader
 * that keep both CPUs busy). Half a second failed once on a TCG guest.
 */
#define EXPIRY_GRACE	1.0

static double boot_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Adds keys [first, first + n) held by @source for @timeout seconds. */
static int add_timed(int dev, unsigned long long first, unsigned int n,
		     bool churn, const char *source, __u32 timeout)
{
	struct cfilter_key keys[BATCH];
	__u32 timeouts[BATCH];
	__s32 results[BATCH];
	struct cfilter_batch b = {
		.op = CFILTER_BATCH_ADD,
		.keys = (uintptr_t)keys,
		.results = (uintptr_t)results,
		.timeouts = (uintptr_t)timeouts,
		.count = n,
	};
	unsigned int i;

	for (i = 0; i < n; i++) {
		keys[i] = churn ? churn_key(first + i) : nth_key4(first + i);
		timeouts[i] = timeout;
	}
	snprintf(b.source, sizeof(b.source), "%s", source);
	if (ioctl(dev, CFILTER_IOC_BATCH, &b))
		return errno;
	return b.first_error == n ? 0 : -results[b.first_error];
}

struct expiry_writer {
	int fd;
	atomic_bool stop;
	int err;
	unsigned long long adds;
};

/* Short-lived holdings, a batch at a time, until told to stop. */
static void *expiry_writer_main(void *arg)
{
	struct expiry_writer *w = arg;
	unsigned long long next = 0;

	if (pin_to(WRITER_CPU))
		return NULL;
	while (!atomic_load(&w->stop) && !w->err) {
		w->err = add_timed(w->fd, next, BATCH, true, "churn", 1);
		next += BATCH;
		w->adds += BATCH;
		usleep(1000);
	}
	return NULL;
}

/* One run of frame @f: its verdict, and when it started and ended. */
static int run_once(int prog_fd, const struct frame *f, double *t0, double *t1)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = f->data,
		.data_size_in = f->len,
		.repeat = 1,
	);

	*t0 = boot_s();
	if (bpf_prog_test_run_opts(prog_fd, &opts))
		return -errno;
	*t1 = boot_s();
	return opts.retval;
}

TEST_F_TIMEOUT(stress, timed_sources_expire_under_reads, 60)
{
	static struct frame present[PRESENT], timed[TIMED];
	unsigned long long early = 0, late = 0, between = 0, kept = 0;
	struct expiry_writer w = { .fd = self->dev };
	double added0, added1, t0, t1, end;
	struct cfilter_info info;
	pthread_t writer;
	unsigned int i, j;
	int v;

	if (_metadata->skip)
		return;
	for (i = 0; i < PRESENT; i++)
		present[i] = frame_from(i);
	for (i = 0; i < TIMED; i++)
		timed[i] = frame_from(PRESENT + i);
	ASSERT_EQ(0, pin_to(READER_CPU));
	ASSERT_EQ(0, pthread_create(&writer, NULL, expiry_writer_main, &w));

	added0 = boot_s();
	for (i = 0; i < TIMED; i += BATCH)
		ASSERT_EQ(0, add_timed(self->dev, PRESENT + i,
				       TIMED - i < BATCH ? TIMED - i : BATCH,
				       false, "timed", TIMED_SECONDS));
	added1 = boot_s();
	end = added1 + TIMED_SECONDS + 1 + EXPIRY_GRACE + 1.5;
	for (i = 0, j = 0; boot_s() < end; i = (i + 1) % PRESENT,
	     j = (j + 1) % TIMED) {
		v = run_once(self->prog_fd, &present[i], &t0, &t1);
		ASSERT_EQ(XDP_DROP, v) TH_LOG("present source %u passed", i);
		kept++;
		v = run_once(self->prog_fd, &timed[j], &t0, &t1);
		if (t1 < added0 + TIMED_SECONDS) {
			ASSERT_EQ(XDP_DROP, v)
				TH_LOG("timed source %u passed %.2f s after its add, before its timeout",
				       j, t1 - added0);
			early++;
		} else if (t0 > added1 + TIMED_SECONDS + 1 + EXPIRY_GRACE) {
			ASSERT_EQ(XDP_PASS, v)
				TH_LOG("timed source %u dropped %.2f s after its add",
				       j, t0 - added1);
			late++;
		} else {
			between++;
		}
	}
	atomic_store(&w.stop, true);
	pthread_join(writer, NULL);
	fprintf(stderr, "# expiry: %llu present, %llu timed before the timeout, %llu in the second after, %llu after; writer %llu adds\n",
		kept, early, between, late, w.adds);
	ASSERT_EQ(0, w.err) TH_LOG("writer: %s", strerror(w.err));
	EXPECT_LT(0ULL, early);
	EXPECT_LT(0ULL, late);
	/* The writer's last holdings last a second: then none is left. */
	end = boot_s() + 2 + EXPIRY_GRACE + 1;
	do {
		ASSERT_EQ(0, cf_info(self->dev, &info));
		if (!info.timed)
			break;
		usleep(100000);
	} while (boot_s() < end);
	EXPECT_EQ(0ULL, info.timed)
		TH_LOG("expired holdings not reclaimed: %llu timed",
		       (unsigned long long)info.timed);
	EXPECT_EQ((__u64)PRESENT, info.count);
}

TEST_HARNESS_MAIN
