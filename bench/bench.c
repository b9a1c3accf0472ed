// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: the filter core (core/cuckoo*.c) on this machine's real
 * hardware, against baselines built into the same binary and measured in
 * the same run. What is measured, how noise is kept out of the ratios and
 * the goals: bench/README.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <urcu.h>

#include "bench_int.h"

const unsigned int load_pct[NLOADS] = { 50, 90, 95 };

const struct bench_size sizes[NSIZES] = {
	{ "1M", 20 },
	{ "16M", 24 },
};

const enum subject pairs[NPAIRS][2] = {
	{ S_EXACT, S_EXACT_NOV },
	{ S_COMPACT, S_COMPACT_NOV },
	{ S_EXACT, S_EXACT_TWIN },
	{ S_COMPACT, S_COMPACT_CODE },
	{ S_EXACT_TAGS, S_EXACT },
#ifdef CFILTER_REF
	{ S_REF, S_COMPACT },
	{ S_REF, S_EXACT },
#endif
};

const char *const subject_names[NSUBJECTS] = {
	[S_EXACT]	= "exact",
	[S_EXACT_NOV]	= "exact, no versions",
	[S_EXACT_TAGS]	= "exact+tags",
	[S_COMPACT]	= "compact fp16",
	[S_COMPACT_NOV]	= "compact fp16, no versions",
	[S_EXACT_TWIN]	= "exact, second table",
	[S_COMPACT_CODE] = "compact fp16, reader copy",
	[S_HASHSET]	= "hash set",
#ifdef CFILTER_REF
	[S_REF]		= "reference",
#endif
};

u64 rng_state;

/* False positives of a 2^FP_SLOT_SHIFT-slot filter at 95% load. */
static void measure_fp(u32 fp_bits, bool exact)
{
	enum subject s = exact ? S_EXACT : S_COMPACT;
	u64 slots = 1ULL << FP_SLOT_SHIFT, n = slots * 95 / 100, hits = 0, i;
	double bound = exact ? 0 : 8.0 / (1ULL << fp_bits), rate;
	struct cuckoo *c = filter_create(s, slots, fp_bits, rng());

	for (i = 0; i < n; i++)
		stored_or_die(s, cuckoo_insert(c, &keys[i]));
	rcu_read_lock();
	for (i = 0; i < FP_LOOKUPS; i++) {
		u32 k = key_at(ABSENT_BASE + i);

		hits += cuckoo_contains(c, &k);
	}
	rcu_read_unlock();
	cuckoo_destroy(c);
	rate = (double)hits / FP_LOOKUPS;
	printf("%-7s %3u | %8llu %11.3e %11.3e | %s\n",
	       exact ? "exact" : "compact", fp_bits, (unsigned long long)hits,
	       rate, bound,
	       exact ? (hits ? "FALSE POSITIVES" : "none, as required") :
	       rate <= bound ? "within bound" : "ABOVE BOUND");
}

static void print_fp(void)
{
	printf("False positives (2^%d slots, 95%% load, %u absent keys each; bound = 8 / 2^f)\n",
	       FP_SLOT_SHIFT, FP_LOOKUPS);
	printf("%-7s %3s | %8s %11s %11s |\n", "mode", "f", "hits", "rate",
	       "bound");
	measure_fp(8, false);
	measure_fp(12, false);
	measure_fp(16, false);
	measure_fp(8, true);
	printf("\n");
}

int main(void)
{
	u64 max_keys = keys_at_load(NSIZES - 1, load_pct[NLOADS - 1]), i;
	struct hs_goals g;
#ifdef CFILTER_REF
	struct ref_goals rg;
#endif
	unsigned int size;
	double worst[2], worst_tags[2], t0 = clock_ns(CLOCK_MONOTONIC);
	double writer, writer_other = 0;

	rng_state = (u64)time(NULL) ^ (u64)getpid() << 32;
	key_salt = (u32)rng();
	keys = malloc(max_keys * sizeof(*keys));
	probe = malloc(LOOKUPS * sizeof(*probe));
	stored = malloc(slots_of(NSIZES - 1) * WINDOW_PCT / 100);
	if (!keys || !probe || !stored)
		die("out of memory for the key arrays");
	for (i = 0; i < max_keys; i++)
		keys[i] = key_at(i);
	rcu_register_thread();

	print_header();
	for (size = 0; size < NSIZES; size++) {
		run_size(size);
		fprintf(stderr, "bench: %s done (%.0f s)\n", sizes[size].name,
			(clock_ns(CLOCK_MONOTONIC) - t0) / 1e9);
	}
	print_filters();
	print_versions(worst);
	print_controls();
	print_tags(worst_tags);
	print_hashset(&g);
#ifdef CFILTER_REF
	print_ref(&rg);
#endif
	print_fp();
	writer = measure_writer(&writer_other);

	printf("Goals\n");
	printf("  [%s] versioned / unversioned lookup <= %.2fx, chained lookups (per-packet latency): worst %.3fx\n",
	       verdict(worst[1] <= GOAL_NOV_RATIO), GOAL_NOV_RATIO, worst[1]);
	printf("  [%s] versioned / unversioned lookup <= %.2fx, independent lookups (tight-loop throughput): worst %.3fx\n",
	       verdict(worst[0] <= GOAL_NOV_RATIO), GOAL_NOV_RATIO, worst[0]);
	printf("  [%s] exact+tags / exact lookup <= %.2fx, chained lookups (per-packet latency): worst %.3fx\n",
	       verdict(worst_tags[1] <= GOAL_TAGS_RATIO), GOAL_TAGS_RATIO,
	       worst_tags[1]);
	printf("  [%s] exact+tags / exact lookup <= %.2fx, independent lookups (tight-loop throughput): worst %.3fx\n",
	       verdict(worst_tags[0] <= GOAL_TAGS_RATIO), GOAL_TAGS_RATIO,
	       worst_tags[0]);
	printf("  [%s] exact absent lookup faster than the hash set at 16M keys, every load, both kinds: hash set / exact >= %.2fx\n",
	       verdict(g.speed > 1), g.speed);
	printf("  [%s] memory per IPv4 key >= %.0fx smaller than the hash set at 95%% load: >= %.2fx (at 50%% load, just after a growth: %.2fx)\n",
	       verdict(g.mem >= GOAL_MEM_RATIO), GOAL_MEM_RATIO, g.mem,
	       g.mem_50);
	if (writer > 0)
		printf("  [%s] lookups while a writer works in the same table on the other CPU <= %.1fx of idle: %.2fx (%.2fx with the writer in a table of its own)\n",
		       verdict(writer <= GOAL_WRITER_RATIO), GOAL_WRITER_RATIO,
		       writer, writer_other);
#ifdef CFILTER_REF
	print_ref_goals(&rg);
#endif
	printf("\ntotal time %.0f s; ", (clock_ns(CLOCK_MONOTONIC) - t0) / 1e9);
	print_load("load average at the end");

	rcu_unregister_thread();
	free(stored);
	free(probe);
	free(keys);
	return 0;
}
