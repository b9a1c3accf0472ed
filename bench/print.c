// SPDX-License-Identifier: GPL-2.0
/* The tables and goals: the filters, versions, placement, tags, hash set. */
#include <stdio.h>
#include <stdlib.h>

#include "bench_int.h"
#include "host.h"

/* The rows of the ns/op table. */
static const enum subject table_rows[] = { S_EXACT, S_EXACT_TAGS, S_COMPACT };
#define NROWS	(sizeof(table_rows) / sizeof(table_rows[0]))

const char *verdict(bool met)
{
	return met ? "MET" : "NOT MET";
}

void print_header(void)
{
	print_host("cfilter bench");
	printf(", %ld CPUs\n", sysconf(_SC_NPROCESSORS_ONLN));
	printf("IPv4 keys (key_len %d); tables of 2^20 (1M) and 2^24 (16M) slots; load = keys / slots\n",
	       KEY_LEN);
	printf("median of %d repetitions, in thread CPU time; %u lookups per measurement, random keys; insert = last %d%% of slots before the load point\n",
	       REPS, LOOKUPS, WINDOW_PCT);
	printf(CHAIN_HONEST ?
	       "chained lookups: next index = counter + answers so far, and an lfence after each lookup (latency)\n" :
	       "chained lookups: next index = counter + answers so far; no speculation barrier on this CPU: NOT a latency\n");
#ifdef CFILTER_REF
	printf("with the reference implementation (efficient/cuckoofilter) from %s\n",
	       CFILTER_REF_DIR);
#endif
	print_load("load average at the start");
	printf("\n");
}

/*
 * One row's figures, after its size (and mode) columns; @batch: with the
 * batched lookups'.
 */
void print_figures(unsigned int size, unsigned int l, enum subject v,
		   bool batch)
{
	printf("%3u%% %9llu | %7.1f %7.1f %7.1f %7.1f |", load_pct[l],
	       (unsigned long long)keys_at_load(size, load_pct[l]),
	       med(size, l, v, M_PRESENT), med(size, l, v, M_ABSENT),
	       med(size, l, v, M_PRESENT_CHAINED),
	       med(size, l, v, M_ABSENT_CHAINED));
	if (batch)
		printf(" %7.1f %7.1f |", med(size, l, v, M_PRESENT_BATCH),
		       med(size, l, v, M_ABSENT_BATCH));
	printf(" %7.1f | %6.2f\n", med(size, l, v, M_INSERT),
	       med(size, l, v, M_BYTES));
}

void print_filters(void)
{
	unsigned int size, l, i, s;

	for (s = 0; s < NSUBJECTS; s++)
		if (rebuilds[s] && !is_ref(s))
			printf("(%s's table was full before its load point %u times: each time a new one of the same keys, with a new seed, replaced it; see subject_full())\n",
			       subject_names[s], rebuilds[s]);

	printf("Filter, ns/op (indep: independent lookups, a tight loop's throughput; chained: each lookup waits for the previous answer, its latency;\n");
	printf("batched (%d per call): independent lookups through cuckoo_contains_batch(), exact+tags cuckoo_lookup_batch())\n",
	       BATCH);
	printf("%-4s %-12s %4s %9s | %7s %7s %7s %7s | %7s %7s | %7s | %6s\n",
	       "size", "mode", "load", "keys", "present", "absent", "present",
	       "absent", "present", "absent", "insert", "B/key");
	printf("%-4s %-12s %4s %9s | %7s %7s %7s %7s | %7s %7s | %7s | %6s\n",
	       "", "", "", "", "indep", "indep", "chained", "chained",
	       "batched", "batched", "", "");
	for (size = 0; size < NSIZES; size++)
		for (i = 0; i < NROWS; i++)
			for (l = 0; l < NLOADS; l++) {
				enum subject v = table_rows[i];

				printf("%-4s %-12s ", sizes[size].name,
				       subject_names[v]);
				print_figures(size, l, v, true);
			}
	printf("\n");
}

/*
 * The version protocol's cost: for each lookup kind, the unversioned
 * reader's ns/op (measured alone, as every figure of print_filters()) and
 * the ratio versioned / unversioned on the same table: the median of the
 * repetitions' ratios, each from one paired_lookups(). Returns the worst
 * ratio of independent lookups in @worst[0], of chained ones in @worst[1].
 */
void print_versions(double worst[2])
{
	unsigned int size, l, i;
	enum metric m;
	double r;

	worst[0] = worst[1] = 0;
	printf("Version protocol: each table also read by the reader built with -DCUCKOO_NO_VERSIONS, ns/op and ratio versioned / unversioned\n");
	printf("(ratio: median of %d, each of the two doing the same %u lookups on the same table in %d alternating turns)\n",
	       REPS, LOOKUPS, PAIR_CHUNKS);
	printf("%-4s %-12s %4s | %14s %14s %14s %14s\n", "size", "mode",
	       "load", "present indep", "absent indep", "present chain",
	       "absent chain");
	for (size = 0; size < NSIZES; size++)
		for (i = 0; i < NFILTERS; i++)
			for (l = 0; l < NLOADS; l++) {
				enum subject v = pairs[i][0], n = pairs[i][1];

				printf("%-4s %-12s %3u%% |", sizes[size].name,
				       subject_names[v], load_pct[l]);
				for (m = M_PRESENT; m <= M_ABSENT_CHAINED; m++) {
					double *w = &worst[m >= M_PRESENT_CHAINED];

					r = med_ratio(size, l, i, m);
					*w = r > *w ? r : *w;
					printf(" %6.1f %5.2fx", med(size, l, n, m), r);
				}
				printf("\n");
			}
	printf("\n");
}

/*
 * What a ratio of two subjects owes to neither: the placement control, two
 * exact tables of the same keys, seed and history, one reader (which is
 * why the version cost is measured on one table); and the code control,
 * one compact table, its reader and the same reader compiled again,
 * elsewhere in the binary, in a loop of its own, as each of the reference
 * and cfilter has. Each ratio first / second, measured like the others.
 */
static void print_control(const char *title, unsigned int pair)
{
	unsigned int size, l;
	enum metric m;

	printf("%s; ratio first / second\n", title);
	printf("%-4s %4s | %8s %8s %8s %8s\n", "size", "load", "present",
	       "absent", "present", "absent");
	printf("%-4s %4s | %8s %8s %8s %8s\n", "", "", "indep", "indep",
	       "chain", "chain");
	for (size = 0; size < NSIZES; size++)
		for (l = 0; l < NLOADS; l++) {
			printf("%-4s %3u%% |", sizes[size].name, load_pct[l]);
			for (m = M_PRESENT; m <= M_ABSENT_CHAINED; m++)
				printf(" %7.2fx", med_ratio(size, l, pair, m));
			printf("\n");
		}
	printf("\n");
}

void print_controls(void)
{
	print_control("Placement control: two identical exact tables in different memory, the same reader",
		      P_PLACEMENT);
#ifdef CFILTER_TWIN_DIR
	print_control("Code A/B (TWIN=" CFILTER_TWIN_DIR "): one compact fp16 table, this tree's reader and that core's, not a control",
		      P_CODE);
#else
	print_control("Code control: one compact fp16 table, its reader and the same reader compiled a second time",
		      P_CODE);
#endif
}

/*
 * The code control's chained ratios at @l, both sizes: the farthest from
 * 1.00x either way, in *@lo and *@hi.
 */
void code_control_chained(unsigned int l, double *lo, double *hi)
{
	unsigned int size;
	enum metric m;
	double r;

	*lo = *hi = 1;
	for (size = 0; size < NSIZES; size++)
		for (m = M_PRESENT_CHAINED; m <= M_ABSENT_CHAINED; m++) {
			r = med_ratio(size, l, P_CODE, m);
			*lo = r < *lo ? r : *lo;
			*hi = r > *hi ? r : *hi;
		}
}

/*
 * The tags' cost: for each lookup kind, the ratio exact+tags / exact from
 * their alternating turns (as print_versions()), and the ratio of their
 * bytes per key. Returns the worst ratio of independent lookups in
 * @worst[0], of chained ones in @worst[1].
 */
void print_tags(double worst[2])
{
	unsigned int size, l;
	enum metric m;
	double r;

	worst[0] = worst[1] = 0;
	printf("Tags: exact+tags / exact (lookup ratios: median of %d, each of the two doing the same %u lookups in %d alternating turns; B/key: ratio of the two)\n",
	       REPS, LOOKUPS, PAIR_CHUNKS);
	printf("%-4s %4s | %8s %8s %8s %8s | %8s\n", "size", "load", "present",
	       "absent", "present", "absent", "B/key");
	printf("%-4s %4s | %8s %8s %8s %8s | %8s\n", "", "", "indep", "indep",
	       "chain", "chain", "");
	for (size = 0; size < NSIZES; size++)
		for (l = 0; l < NLOADS; l++) {
			printf("%-4s %3u%% |", sizes[size].name, load_pct[l]);
			for (m = M_PRESENT; m <= M_ABSENT_CHAINED; m++) {
				double *w = &worst[m >= M_PRESENT_CHAINED];

				r = med_ratio(size, l, P_TAGS, m);
				*w = r > *w ? r : *w;
				printf(" %7.2fx", r);
			}
			printf(" | %7.2fx\n", med(size, l, S_EXACT_TAGS, M_BYTES) /
			       med(size, l, S_EXACT, M_BYTES));
		}
	printf("\n");
}

void print_hashset(struct hs_goals *g)
{
	unsigned int size, l;
	double sp, spc, mr;

	g->speed = g->mem = g->mem_50 = 1e9;
	printf("Hash set baseline, ns/op (ratios: hash set / exact filter)\n");
	printf("%-4s %4s %9s | %7s %7s %7s %7s | %6s | %8s %8s %8s\n",
	       "size", "load", "keys", "present", "absent", "present",
	       "absent", "B/key", "absent", "absent", "B/key");
	printf("%-4s %4s %9s | %7s %7s %7s %7s | %6s | %8s %8s %8s\n", "",
	       "", "", "indep", "indep", "chained", "chained", "", "indep",
	       "chained", "");
	for (size = 0; size < NSIZES; size++)
		for (l = 0; l < NLOADS; l++) {
			sp = med(size, l, S_HASHSET, M_ABSENT) /
			     med(size, l, S_EXACT, M_ABSENT);
			spc = med(size, l, S_HASHSET, M_ABSENT_CHAINED) /
			      med(size, l, S_EXACT, M_ABSENT_CHAINED);
			mr = med(size, l, S_HASHSET, M_BYTES) /
			     med(size, l, S_EXACT, M_BYTES);
			printf("%-4s %3u%% %9llu | %7.1f %7.1f %7.1f %7.1f | %6.2f | %7.2fx %7.2fx %7.2fx\n",
			       sizes[size].name, load_pct[l],
			       (unsigned long long)keys_at_load(size, load_pct[l]),
			       med(size, l, S_HASHSET, M_PRESENT),
			       med(size, l, S_HASHSET, M_ABSENT),
			       med(size, l, S_HASHSET, M_PRESENT_CHAINED),
			       med(size, l, S_HASHSET, M_ABSENT_CHAINED),
			       med(size, l, S_HASHSET, M_BYTES), sp, spc, mr);
			if (size == NSIZES - 1) {
				g->speed = sp < g->speed ? sp : g->speed;
				g->speed = spc < g->speed ? spc : g->speed;
			}
			if (l == NLOADS - 1 && mr < g->mem)
				g->mem = mr;
			if (l == 0 && mr < g->mem_50)
				g->mem_50 = mr;
		}
	printf("\n");
}
