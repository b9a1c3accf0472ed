// SPDX-License-Identifier: GPL-2.0
/* A writer's cost to readers, the writer on the other CPU. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <urcu.h>

#include "bench_int.h"

/*
 * A writer's cost to readers. One thread, pinned to one CPU, looks up
 * absent keys in a 1M-slot exact table at 50% load, as a packet path does;
 * another, pinned to the other CPU, adds WRITER_KEYS keys of its own and
 * takes them out again, over and over, as a bulk load does (never growing
 * the table): in the same table, and, for the floor that sharing nothing
 * gives, in a table of its own. Each ratio is with the writer / without,
 * in alternating turns, median of REPS.
 */
struct writer {
	struct cuckoo *c;
	int stop;
	int started;
	u64 ops;
};

static void pin_to(pthread_t t, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(t, sizeof(set), &set);
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	u64 i;

	__atomic_store_n(&w->started, 1, __ATOMIC_RELEASE);
	for (i = 0; !__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE); i++) {
		u32 k = key_at(WRITER_BASE + i % WRITER_KEYS);

		if (i / WRITER_KEYS % 2) {
			if (cuckoo_delete(w->c, &k))
				die("the writer's key was not there to delete");
		} else {
			stored_or_die(S_EXACT, cuckoo_insert(w->c, &k));
		}
	}
	w->ops = i;
	return NULL;
}

/* ns per lookup of probe[] in @c, with a writer on @wc if not NULL. */
static double writer_turn(struct cuckoo *c, struct cuckoo *wc, double *wops)
{
	struct writer w = { .c = wc };
	double t0 = 0, ns;
	pthread_t t;
	u64 n = 0;
	u32 lo = 0, hi = LOOKUPS;

	if (wc) {
		if (pthread_create(&t, NULL, writer_main, &w))
			die("cannot start the writer thread");
		pin_to(t, 1);
		while (!__atomic_load_n(&w.started, __ATOMIC_ACQUIRE))
			sched_yield();
		t0 = now_ns();
	}
	rcu_read_lock();
	ns = now_ns();
	LOOKUP_LOOP(cuckoo_contains, c, 0, n);
	ns = now_ns() - ns;
	rcu_read_unlock();
	if (wc) {
		__atomic_store_n(&w.stop, 1, __ATOMIC_RELEASE);
		pthread_join(t, NULL);
		*wops += w.ops / ((now_ns() - t0) / 1e9);
	}
	check_hits(S_EXACT, false, n);
	return ns / LOOKUPS;
}

/* The writer's keys out again, whichever half-turn it stopped in. */
static void writer_back(struct cuckoo *c)
{
	u64 i;

	for (i = 0; i < WRITER_KEYS; i++) {
		u32 k = key_at(WRITER_BASE + i);

		cuckoo_delete(c, &k);
	}
}

double measure_writer(double *ratio_other)
{
	u64 slots = 1ULL << 20, n = slots / 2, i;
	double same[REPS], apart[REPS], idle, ns = 0, wops = 0;
	struct cuckoo *c, *other;
	unsigned int r, j;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return 0;
	c = filter_create(S_EXACT, slots, 16, rng());
	other = filter_create(S_EXACT, slots, 16, rng());
	pin_to(pthread_self(), 0);
	for (i = 0; i < n; i++) {
		stored_or_die(S_EXACT, cuckoo_insert(c, &keys[i]));
		stored_or_die(S_EXACT, cuckoo_insert(other, &keys[i]));
	}
	for (r = 0; r < REPS; r++) {
		draw_absent();
		for (j = 0; j < 2; j++) {
			struct cuckoo *wc = j ? other : c;

			/* idle first or last, in turn */
			if (r % 2)
				ns = writer_turn(c, wc, &wops);
			idle = writer_turn(c, NULL, NULL);
			if (!(r % 2))
				ns = writer_turn(c, wc, &wops);
			writer_back(wc);
			(j ? apart : same)[r] = ns / idle;
		}
	}
	cuckoo_destroy(c);
	cuckoo_destroy(other);
	*ratio_other = median(apart);
	printf("Writer on the other CPU: 1M-slot exact table at 50%%, absent lookups pinned to CPU 0; on CPU 1 a writer adds %u keys and takes them out, over and over (%.1f M ops/s)\n",
	       WRITER_KEYS, wops / (2 * REPS) / 1e6);
	printf("lookups with the writer / without (median of %d, alternating): in the same table %.2fx, in a table of its own %.2fx\n\n",
	       REPS, median(same), *ratio_other);
	return median(same);
}
