// SPDX-License-Identifier: GPL-2.0
/*
 * The drop log's cost to the drop path: the exact workload's frames with
 * no reader, with one at the default limit (most drops of a flood are
 * left out: the path a flood takes), and with one taking every drop (an
 * event each: the kfunc naming the entry, a ring buffer record). The
 * reader is a thread draining the ring, as cfctl log does; the program is
 * xdp_bench's own (its maps unpinned), its switch set here directly.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cfilter.skel.h"
#include "xdp_bench.h"

enum log_mode {
	LOG_OFF,
	LOG_LIMITED,
	LOG_EACH,
	NLOG,
};

static const char *const mode_name[NLOG] = {
	[LOG_OFF]	= "no reader (log off)",
	[LOG_LIMITED]	= "a reader, 100/s per CPU",
	[LOG_EACH]	= "a reader, every drop",
};

/* The program's log, and a reader of it. */
struct log_bench {
	struct cfilter_log_ctl	*ctl;
	int			cpu_fd;
	int			ring_fd;
	struct ring_buffer	*ring;
	pthread_t		reader;
	volatile int		stop;
	unsigned long long	got;
	/* per mode: events made, left out, lost, over every pass */
	unsigned long long	made[NLOG][3];
};

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int count_event(void *ctx, void *data, size_t size)
{
	(void)data;
	(void)size;
	((struct log_bench *)ctx)->got++;
	return 0;
}

static void *read_events(void *arg)
{
	struct log_bench *lb = arg;

	while (!lb->stop)
		ring_buffer__poll(lb->ring, 50);
	ring_buffer__consume(lb->ring);
	return NULL;
}

/* The events, left out and lost so far, summed over the CPUs. */
static void counters(const struct log_bench *lb, unsigned long long c[3])
{
	int ncpus = libbpf_num_possible_cpus(), cpu;
	struct cfilter_log_cpu *v = xcalloc(ncpus, sizeof(*v));
	__u32 zero = 0;

	if (bpf_map_lookup_elem(lb->cpu_fd, &zero, v))
		die("reading the log's counters: %m");
	memset(c, 0, 3 * sizeof(*c));
	for (cpu = 0; cpu < ncpus; cpu++) {
		c[0] += v[cpu].events;
		c[1] += v[cpu].left_out;
		c[2] += v[cpu].lost[0];
	}
	free(v);
}

/* Slot 0 leased for an hour (or not at all), at @m's limit. */
static void set_mode(struct log_bench *lb, enum log_mode m)
{
	__u64 lease = m == LOG_OFF ? 0 : mono_ns() + 3600 * 1000000000ULL;

	lb->ctl->rate = m == LOG_EACH ? ~0U : 0;
	__atomic_store_n(&lb->ctl->slot_until[0], lease, __ATOMIC_RELEASE);
	__atomic_store_n(&lb->ctl->until, lease, __ATOMIC_RELEASE);
}

static void log_open(struct log_bench *lb, struct cfilter_bpf *cf)
{
	int ctl_fd = bpf_map__fd(cf->maps.cfilter_log_ctl);
	__u32 slot = 0;

	memset(lb, 0, sizeof(*lb));
	lb->cpu_fd = bpf_map__fd(cf->maps.cfilter_log_cpu);
	lb->ctl = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
		       MAP_SHARED, ctl_fd, 0);
	if (lb->ctl == MAP_FAILED)
		die("mapping the log's switch: %m");
	lb->ring_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "bench_ring", 0, 0,
				     CFILTER_LOG_RING_SIZE, NULL);
	if (lb->ring_fd < 0 ||
	    bpf_map_update_elem(bpf_map__fd(cf->maps.cfilter_log_rb), &slot,
				&lb->ring_fd, BPF_ANY))
		die("giving the log a ring: %m");
	lb->ring = ring_buffer__new(lb->ring_fd, count_event, lb, NULL);
	if (!lb->ring || pthread_create(&lb->reader, NULL, read_events, lb))
		die("starting the log's reader: %m");
}

static void log_close(struct log_bench *lb)
{
	set_mode(lb, LOG_OFF);
	lb->stop = 1;
	pthread_join(lb->reader, NULL);
	ring_buffer__free(lb->ring);
	close(lb->ring_fd);
	munmap(lb->ctl, sysconf(_SC_PAGESIZE));
}

/* One series of @t in mode @m, its counters' growth added to @m's. */
static double series(struct log_bench *lb, const struct workload *w,
		     struct row *cf, enum log_mode m, enum traffic t)
{
	unsigned long long before[3], after[3];
	struct row r = *cf;
	unsigned int i;
	double ns;

	r.name = mode_name[m];	/* named apart, for xdp_bench -I's series */
	set_mode(lb, m);
	counters(lb, before);
	ns = run_series(w, &r, t);
	counters(lb, after);
	set_mode(lb, LOG_OFF);
	for (i = 0; i < 3; i++)
		lb->made[m][i] += after[i] - before[i];
	return ns;
}

void bench_log(const struct opts *o, struct cfilter_bpf *cf,
	       struct workload *w, struct row *row, struct result *res)
{
	double *ns = xcalloc((size_t)o->passes * NLOG * NTRAFFIC, sizeof(*ns));
	double med[NLOG][NTRAFFIC];
	struct log_bench lb;
	unsigned int pass, i, m, t;

	fprintf(stderr, "xdp_bench: log: %u passes\n", o->passes);
	log_open(&lb, cf);
	for (pass = 0; pass < o->passes; pass++)
		for (i = 0; i < NLOG; i++) {
			m = (i + pass) % NLOG;
			for (t = 0; t < NTRAFFIC; t++)
				ns[((size_t)m * NTRAFFIC + t) * o->passes + pass] =
					series(&lb, w, row, m, t);
		}
	log_close(&lb);
	for (m = 0; m < NLOG; m++)
		for (t = 0; t < NTRAFFIC; t++) {
			med[m][t] = median(ns + ((size_t)m * NTRAFFIC + t) *
					   o->passes, o->passes);
		}
	printf("== the drop log: the same %u addresses, hit traffic dropped, no reader or one ==\n",
	       o->keys);
	printf("(events, left out, lost: made over all passes; the reader got %llu events)\n",
	       lb.got);
	printf("%-28s %8s %8s %8s %9s %10s %10s %8s\n", "cfilter", "hit ns",
	       "miss ns", "hit/off", "miss/off", "events", "left out", "lost");
	for (m = 0; m < NLOG; m++)
		printf("%-28s %8.0f %8.0f %8.2f %9.2f %10llu %10llu %8llu\n",
		       mode_name[m], med[m][HIT], med[m][MISS],
		       med[m][HIT] / med[LOG_OFF][HIT],
		       med[m][MISS] / med[LOG_OFF][MISS], lb.made[m][0],
		       lb.made[m][1], lb.made[m][2]);
	printf("\n");
	for (t = 0; t < NTRAFFIC; t++) {
		res->log_ratio[t] = med[LOG_LIMITED][t] / med[LOG_OFF][t];
		res->log_each_ratio[t] = med[LOG_EACH][t] / med[LOG_OFF][t];
	}
	free(ns);
}
