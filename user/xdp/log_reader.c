// SPDX-License-Identifier: GPL-2.0
/*
 * A reader of the drop log: a lease of a slot in every set of its maps
 * (struct cfilter_log_ctl in the UAPI), a ring buffer of its own in each,
 * and what the programs left out since it started.
 *
 * The lease is the liveness the programs see: a reader renews it every
 * second, and lets go of it when it ends; one killed stops renewing, and
 * the first drop after its lease (LOG_LEASE_NS) turns the log off again.
 * The switch is mmapped, so that readers and programs change it with
 * compare-and-swap and neither undoes the other's change.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/cfilter.h>

#include "lib/util.h"
#include "xdp/droplog.h"

volatile sig_atomic_t log_stop;

static void on_stop(int sig)
{
	(void)sig;
	log_stop = 1;
}

/**
 * log_stop_on_signals() - SIGINT and SIGTERM set log_stop
 *
 * Without SA_RESTART, so that a poll returns. SIGPIPE is ignored: a
 * closed output is a write error, and the reader lets go of its lease.
 */
void log_stop_on_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* CLOCK_MONOTONIC in ns: bpf_ktime_get_ns()'s clock. */
__u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static long long real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static __u64 load(const __u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static bool swap(__u64 *p, __u64 old, __u64 new)
{
	return __atomic_compare_exchange_n(p, &old, new, false, __ATOMIC_ACQ_REL,
					   __ATOMIC_ACQUIRE);
}

/* Raises @ctl's switch to @lease, unless a later one is there. */
static void raise_until(struct cfilter_log_ctl *ctl, __u64 lease)
{
	__u64 u;

	do
		u = load(&ctl->until);
	while (u < lease && !swap(&ctl->until, u, lease));
}

/*
 * A free slot of @s for a lease ending at @lease: one whose lease is 0 or
 * past. Returns it, or -1 if all four are held.
 */
static int claim_slot(struct log_set *s, __u64 now, __u64 lease)
{
	__u64 v;
	int i;

	for (i = 0; i < CFILTER_LOG_READERS; i++) {
		v = load(&s->ctl->slot_until[i]);
		if (v <= now && swap(&s->ctl->slot_until[i], v, lease))
			return i;
	}
	return -1;
}

/* The left out and lost of @s's slot, summed over the CPUs, into *@n. */
static int set_left_out(const struct log_set *s, int ncpus, __u64 *n)
{
	struct cfilter_log_cpu *v = calloc(ncpus, sizeof(*v));
	__u32 zero = 0;
	int cpu;

	if (!v) {
		cf_err("out of memory");
		return -1;
	}
	if (bpf_map_lookup_elem(s->fd[LOG_CPU], &zero, v)) {
		cf_bpf_err(-errno, "cannot read the drop log's counters: %s",
			   strerror(errno));
		free(v);
		return -1;
	}
	*n = 0;
	for (cpu = 0; cpu < ncpus; cpu++)
		*n += v[cpu].left_out + v[cpu].lost[s->slot];
	free(v);
	return 0;
}

/*
 * A slot of @s with a ring of its own in it, and its counters' start.
 * Returns enum cf_exit (reported).
 */
static int set_join(struct log_set *s, int ncpus, __u64 now)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (sizeof(*s->ctl) + page - 1) / page * page;
	void *mem;

	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   s->fd[LOG_CTL], 0);
	if (mem == MAP_FAILED) {
		cf_bpf_err(-errno, "cannot map the drop log's switch: %s",
			   strerror(errno));
		return CF_SYSTEM;
	}
	s->ctl = mem;
	s->lease = now + LOG_LEASE_NS;
	s->slot = claim_slot(s, now, s->lease);
	if (s->slot < 0) {
		cf_err("%d readers of the drop log (cfctl log, cfctl top) run already: end one first",
		       CFILTER_LOG_READERS);
		return CF_SYSTEM;
	}
	s->ring_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "cfilter_log_ring",
				    0, 0, CFILTER_LOG_RING_SIZE, NULL);
	if (s->ring_fd < 0 ||
	    bpf_map_update_elem(s->fd[LOG_RB], &s->slot, &s->ring_fd, BPF_ANY)) {
		cf_bpf_err(-errno, "cannot give the drop log a ring buffer: %s",
			   strerror(errno));
		return CF_SYSTEM;
	}
	return set_left_out(s, ncpus, &s->base) ? CF_SYSTEM : CF_OK;
}

/*
 * Lets go of @s: its slot free, its ring out, and the switch lowered to the
 * other readers' latest lease (off if there is none).
 */
static void set_leave(struct log_set *s)
{
	__u64 now = mono_ns(), u, want, v;
	int i;

	/* A slot taken from a stalled reader is the taker's: left alone. */
	if (s->slot >= 0 && swap(&s->ctl->slot_until[s->slot], s->lease, 0)) {
		bpf_map_delete_elem(s->fd[LOG_RB], &s->slot);
		do {
			u = load(&s->ctl->until);
			for (want = 0, i = 0; i < CFILTER_LOG_READERS; i++) {
				v = load(&s->ctl->slot_until[i]);
				if (v > now && v > want)
					want = v;
			}
		} while (u != want && !swap(&s->ctl->until, u, want));
	}
	if (s->ring_fd >= 0)
		close(s->ring_fd);
	if (s->ctl)
		munmap(s->ctl, sysconf(_SC_PAGESIZE));
	for (i = 0; i < LOG_NMAPS; i++)
		close(s->fd[i]);
}

/*
 * Renews the leases. One renewed too late may have been taken by another
 * reader meanwhile: then a free slot takes the same ring, and the drops
 * between were neither shown nor counted, which is said.
 */
static void renew(struct log_reader *r, __u64 now)
{
	struct log_set *s;
	unsigned int i;
	__u64 lease = now + LOG_LEASE_NS;
	int slot;

	for (i = 0; i < r->nsets; i++) {
		s = &r->sets[i];
		if (!swap(&s->ctl->slot_until[s->slot], s->lease, lease)) {
			slot = claim_slot(s, now, lease);
			if (slot < 0 || bpf_map_update_elem(s->fd[LOG_RB], &slot,
							    &s->ring_fd, BPF_ANY)) {
				cf_err("stalled past its lease, and no slot of the drop log is free: what is dropped now is not shown");
				continue;
			}
			cf_err("stalled past its lease for %llu ms: the drops meanwhile were neither shown nor counted",
			       (unsigned long long)(now - s->lease) / 1000000);
			s->slot = slot;
		}
		s->lease = lease;
		raise_until(s->ctl, lease);
	}
	r->renewed = now;
}

/* A ring's sample, @ctx its reader: one event, checked for size. */
static int on_sample(void *ctx, void *data, size_t size)
{
	struct log_reader *r = ctx;

	if (size < sizeof(struct cfilter_log_event))
		return 0;
	return r->fn(r->ctx, data);
}

/* Joins @s, its ring read with @r's others. Returns enum cf_exit. */
static int join_ring(struct log_reader *r, struct log_set *s, __u64 now)
{
	int ret = set_join(s, r->ncpus, now), err = 0;

	if (ret != CF_OK)
		return ret;
	if (!r->rb) {
		r->rb = ring_buffer__new(s->ring_fd, on_sample, r, NULL);
		err = r->rb ? 0 : -errno;
	} else {
		err = ring_buffer__add(r->rb, s->ring_fd, on_sample, r);
	}
	if (!err)
		return CF_OK;
	cf_err("cannot read the drop log's ring buffer: %s", strerror(-err));
	return CF_SYSTEM;
}

/*
 * The limit: @rate if given; else the one in force while another reader
 * runs, or the default. Every set gets the same.
 */
static void set_rate(struct log_reader *r, unsigned int rate, bool others)
{
	unsigned int i;

	if (!rate && others)
		rate = r->sets[0].ctl->rate;
	for (i = 0; i < r->nsets; i++)
		__atomic_store_n(&r->sets[i].ctl->rate, rate, __ATOMIC_RELEASE);
	r->rate = rate ? rate : CFILTER_LOG_RATE;
}

/**
 * log_reader_open() - start reading the drop log
 * @r:       the reader
 * @rate:    events per second per CPU for every reader (--rate); 0: the
 *           limit in force if another reader runs, else CFILTER_LOG_RATE
 * @verbose: -v
 * @fn:      called with each event log_reader_poll() reads, and @ctx
 * @ctx:     for @fn
 *
 * Return: enum cf_exit; on failure, nothing is left held.
 */
int log_reader_open(struct log_reader *r, unsigned int rate, bool verbose,
		    log_event_fn fn, void *ctx)
{
	__u64 now = mono_ns();
	bool others = false;
	unsigned int i;
	int ret;

	memset(r, 0, sizeof(*r));
	r->ncpus = libbpf_num_possible_cpus();
	if (r->ncpus < 0) {
		cf_err("cannot count the CPUs: %s", strerror(-r->ncpus));
		return CF_SYSTEM;
	}
	ret = log_pins_open(r->sets, &r->nsets, verbose);
	if (ret != CF_OK)
		return ret;
	for (i = 0; i < r->nsets; i++) {
		r->sets[i].slot = -1;
		r->sets[i].ring_fd = -1;
	}
	r->fn = fn;
	r->ctx = ctx;
	for (i = 0; i < r->nsets && ret == CF_OK; i++) {
		ret = join_ring(r, &r->sets[i], now);
		if (ret == CF_OK && load(&r->sets[i].ctl->until) > now)
			others = true;
	}
	if (ret != CF_OK) {
		log_reader_close(r);
		return ret;
	}
	set_rate(r, rate, others);
	r->mono_to_real = real_ns() - (long long)mono_ns();
	/* last: the programs send nothing before every ring is in place */
	renew(r, mono_ns());
	return CF_OK;
}

/**
 * log_reader_poll() - hand the events that came to the callback
 * @r:          the reader
 * @timeout_ms: how long to wait for one at most (0: do not wait)
 *
 * Renews the leases when due.
 *
 * Return: 0; 1 if the callback stopped it (LOG_ENOUGH); or a negative
 * errno (reported). A signal's interruption is 0.
 */
int log_reader_poll(struct log_reader *r, int timeout_ms)
{
	__u64 now = mono_ns();
	int n;

	if (now - r->renewed >= LOG_RENEW_NS)
		renew(r, now);
	if (timeout_ms > (int)(LOG_RENEW_NS / 1000000))
		timeout_ms = LOG_RENEW_NS / 1000000;
	n = ring_buffer__poll(r->rb, timeout_ms);
	if (n == LOG_ENOUGH)
		return 1;
	if (n == -EINTR || n >= 0)
		return 0;
	cf_err("cannot read the drop log: %s", strerror(-n));
	return n;
}

/**
 * log_reader_drain() - hand the events already come to the callback
 * @r: the reader
 *
 * For the end of a run: what the programs sent before it ended is shown.
 *
 * Return: as log_reader_poll().
 */
int log_reader_drain(struct log_reader *r)
{
	int n = ring_buffer__consume(r->rb);

	if (n == LOG_ENOUGH)
		return 1;
	if (n >= 0)
		return 0;
	cf_err("cannot read the drop log: %s", strerror(-n));
	return n;
}

/**
 * log_reader_left_out() - the drops not shown since the reader started
 * @r: the reader
 * @n: set to those the rate limit left out, and those the reader's ring
 *     had no room for, in every set
 *
 * Return: 0, or -1 (reported).
 */
int log_reader_left_out(struct log_reader *r, __u64 *n)
{
	unsigned int i;
	__u64 v;

	*n = 0;
	for (i = 0; i < r->nsets; i++) {
		if (set_left_out(&r->sets[i], r->ncpus, &v))
			return -1;
		*n += v - r->sets[i].base;
	}
	return 0;
}

/**
 * log_reader_close() - let go of the leases and rings
 * @r: the reader
 *
 * The programs stop making events at once where no other reader holds a
 * lease.
 */
void log_reader_close(struct log_reader *r)
{
	unsigned int i;

	ring_buffer__free(r->rb);
	r->rb = NULL;
	for (i = 0; i < r->nsets; i++)
		set_leave(&r->sets[i]);
	r->nsets = 0;
}
