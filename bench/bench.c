// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: the filter core (core/cuckoo*.c) on this machine's real
 * hardware, against two baselines built into the same binary and measured
 * in the same run.
 *
 * What is measured, for IPv4-sized keys (key_len 4) in tables of 2^20 and
 * 2^24 slots ("1M" and "16M"), exact mode and compact mode, 16-bit
 * fingerprints, at 50%, 90% and 95% load (keys / slots):
 * - lookup of present keys and of absent keys, ns/op: LOOKUPS lookups of
 *   keys drawn at random (present: among those stored; absent: from a
 *   disjoint key range), drawn before the clock starts; independent
 *   lookups (a tight loop: the CPU overlaps the cache misses of several,
 *   so this is throughput) and chained ones (latency, as for a CPU
 *   handling one packet after another: see "Chained lookups" below);
 * - insert, ns/op: the inserts of the last 1% of slots before the load
 *   point (at 95%, the inserts from 94% to 95%, where moves are long);
 *   each repetition but the last deletes them again (untimed);
 * - bytes per key: the core's memory_bytes / keys stored.
 * Besides exact and compact filters, "exact+tags": an exact filter made
 * with values, as the product makes every exact table (each key's value,
 * its tag, names the source that holds it), read as the kernel's packet
 * path reads it: cuckoo_lookup() with a value pointer, the tag consumed
 * (a chained lookup waits for the answer, not the tag: see TAGS_LOOP).
 * Its lookups, inserts and bytes per key are measured like the others',
 * and against plain exact mode (the cost of the tags) the way the version
 * protocol is (below): the two take alternating turns on the same lookup
 * keys, a ratio the median of the repetitions'. They cannot share a table,
 * so the placement control (below) shows how much of such a ratio two
 * tables alike give by themselves; the bytes per key ratio has no noise.
 * The tags are checked: every lookup's tag must be the one stored.
 * Baselines: the same core built with -DCUCKOO_NO_VERSIONS (cuckoo_nov.c:
 * readers skip the version protocol; nothing else changes), reading the
 * very same tables, so that only the reader differs; and a chained hash set
 * of full keys (hashset.c), sized for the largest load (at least as many
 * buckets as keys).
 *
 * Goals (issue 3), each printed MET or NOT MET: versioned lookups at most
 * 1.15x the unversioned ones, for both kinds of lookup, every size, mode
 * and load; exact-mode absent lookups faster than the hash set's at 16M,
 * every load; at least 5x fewer bytes per key than the hash set at 95%
 * load (the figure at 50% load, where a table is just after doubling, is
 * printed too). And, as the product's exact tables all carry tags:
 * exact+tags lookups at most 1.15x plain exact ones, for both kinds of
 * lookup, every size and load.
 *
 * Noise: each structure is built once per size, and every figure is the
 * median of REPS repetitions at its load point, the structures taking turns
 * in an order rotated each repetition; the lookup keys are drawn anew for
 * each repetition. (Rebuilding every 16M table REPS times would take
 * minutes.) The versioned / unversioned ratios come from a second run of
 * the same lookups, in which the two readers take alternating turns of a
 * sixteenth each, so that this machine's neighbours, which come and go
 * within a measurement, fall on both alike; a ratio is the median of the
 * repetitions'. (Turns cost each structure its cache lines, so the ns/op
 * printed come from the first run, each structure alone.) Both readers
 * read one table, as two tables built alike from the same keys differ in
 * speed by where their pages landed: the placement control measures that,
 * the same way, for a second exact table built exactly like the first
 * (0.93x to 1.07x in the runs that chose this design). The code control
 * does the same for code: compact fp16's table read by the core and by the
 * core compiled a second time (cuckoo_twin.c), the same instructions at
 * other addresses, each in a loop of its own as every subject has; what
 * their ratio shows, two different readers' ratios owe to neither. With
 * make bench TWIN=dir the copy is the core in dir instead (see the
 * Makefile), and the same pair is an A/B of a change to the readers.
 *
 * False positives: compact filters of 2^20 slots at 95% load, FP_LOOKUPS
 * absent keys each, against the bound 2 * 4 / 2^f (2 buckets of 4 slots,
 * each matching with probability 1 / (2^f - 1)); exact mode, the same with
 * 8-bit fingerprints, must show none.
 *
 * Keys are distinct by construction: key i is a bijective 32-bit mix of i,
 * so present keys (i < 2^31) and absent ones (i >= 2^31) never meet.
 *
 * Chained lookups: each key's index is the loop counter plus the answers
 * so far (an addition, no branch in the loop), and after every lookup a
 * speculation barrier (lfence on x86) waits for it to complete. The index
 * alone was not enough: an implementation whose answer comes out of a
 * branch (cfilter's does; the reference's, below, is computed from the
 * bucket words) lets the CPU predict the answer and start the next lookup
 * before the buckets arrive, so its "chained" figure was nearly its
 * throughput (16M absent: 70 ns chained, 69 independent), while one whose
 * answer is data gets its true latency. With the barrier every subject's
 * chained figure is its whole latency plus the barrier's few ns, the same
 * for all. This changed the chained columns of every table (they were
 * measured without it before issue 17), and so the chained version and
 * tags ratios, whose differences now stand against a larger whole; the
 * tables and goals are the same.
 *
 * make bench REF=dir (issue 17) adds the cuckoo filter paper's reference
 * implementation, efficient/cuckoofilter from a copy in dir (C++, built
 * into ./bench through ref.cc and ref.h; nothing of it is in this tree):
 * cuckoofilter::CuckooFilter<uint64_t, 16>, 4 slots per bucket, of 2^20
 * and 2^24 slots, given the same keys as cfilter (the same 32-bit keys, as
 * uint64_t items; cfilter keeps key_len 4). It is one more subject (S_REF)
 * measured like the others, alone (ns/op, inserts, bytes per key) and in
 * alternating turns against compact fp16 and against exact mode on the
 * same lookup keys (pairs P_REF_COMPACT, P_REF_EXACT), at every load; its
 * table and goals (issue 17, at 95% load, 1M and 16M) give cfilter's
 * lookups per second as a multiple of the reference's, the median of the
 * paired ratios: absent lookups of both modes at least 1.0x, present
 * lookups compact at least 1.0x, exact at least 0.7x, chained lookups
 * (latency) at least 1.0x, i.e. at most the reference's time; but exact
 * present lookups, which read the key as well, at most the reference's
 * time plus that of one dependent read at a random place of an array the
 * size of the key array (chase.c). Without REF none of this is built and
 * the bench is as before.
 *
 * Batched lookups (issue 17): the same independent lookups of present and
 * absent keys through the batch readers, cuckoo_contains_batch() (and
 * cuckoo_lookup_batch() for exact+tags), BATCH keys per call, as a packet
 * path that gathers its probes would make them: the reader hashes a whole
 * batch and prefetches its buckets before it reads any, so that their
 * cache misses overlap. Measured for the three rows of the ns/op table
 * and, with REF, in alternating turns against the reference's plain loop
 * (the reference has no batch reader), from which the goals on
 * independent lookups are judged, the single lookups' ratios printed
 * beside them. Chained lookups stay single: a batch has no latency of one
 * lookup to show.
 *
 * Memory: the filters' arrays, as the module maps large ones, and the
 * reference's table and the hash set's bucket array alike, are asked of
 * transparent huge pages (cuckoo_table_zalloc(), ref.cc), so that no
 * subject's figures owe anything to a TLB the others lack.
 *
 * Host RCU is liburcu's: this thread registers, and every lookup loop runs
 * inside one read-side critical section (an XDP program runs a whole NAPI
 * poll in one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <urcu.h>

#include "bench.h"

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

double samples[NSIZES][NLOADS][NSUBJECTS][NMETRICS][REPS];
/* first / second of each of pairs[], from paired_lookups() */
double pair_ratio[NSIZES][NLOADS][NPAIRS][NMETRICS][REPS];
u32 *keys;		/* present keys, in insertion order */
u32 *probe;		/* one measurement's lookup keys */
u8 *stored;		/* per key of an insert window: stored? */
u32 key_salt;
unsigned int rebuilds[NSUBJECTS];	/* see subject_full() */
#ifdef CFILTER_REF
double key_read[NSIZES][REPS];	/* ns, see chase.c */
double floor_read[NSIZES][REPS];	/* ns, see chase.c */
#endif
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
