// SPDX-License-Identifier: GPL-2.0
/* The reference beside cfilter (REF=dir only): its table and goals. */
#include <stdio.h>

#include "bench_int.h"

static double ref_min(double a, double b)
{
	return a < b ? a : b;
}

/*
 * The reference beside cfilter: its ns/op alone (as print_filters()), and
 * for compact fp16 and exact, cfilter's lookups per second as a multiple
 * of the reference's: the median of the ratios of their alternating turns
 * on the same keys (ref ns / cfilter ns: above 1, cfilter is faster; for
 * chained lookups, the reference's latency / cfilter's). Inserts and bytes
 * per key: ratios of the medians measured alone.
 */
void print_ref(struct ref_goals *g)
{
	static const struct {
		enum subject s;
		unsigned int pair;
	} modes[2] = {
		{ S_COMPACT, P_REF_COMPACT },
		{ S_EXACT, P_REF_EXACT },
	};
	unsigned int size, l, i;
	enum metric m;

	for (i = 0; i < 2; i++)
		g->absent[i] = g->present[i] = g->chained[i][0] =
			g->chained[i][1] = g->absent_single[i] =
			g->present_single[i] = 1e9;
	printf("Reference: efficient/cuckoofilter, cuckoofilter::CuckooFilter<uint64_t, 16>, 4 slots per bucket, the same tables' sizes;\n");
	printf("its keys are cfilter's 32-bit keys (key_len 4) given as uint64_t items. ns/op, each alone (as the filter table)\n");
	if (rebuilds[S_REF])
		printf("(the reference's table was full before its load point %u times: each time a new one of the same keys replaced it, see subject_full())\n",
		       rebuilds[S_REF]);
	printf("%-4s %4s %9s | %7s %7s %7s %7s | %7s | %6s\n", "size", "load",
	       "keys", "present", "absent", "present", "absent", "insert",
	       "B/key");
	printf("%-4s %4s %9s | %7s %7s %7s %7s | %7s | %6s\n", "", "", "",
	       "indep", "indep", "chained", "chained", "", "");
	for (size = 0; size < NSIZES; size++)
		for (l = 0; l < NLOADS; l++) {
			printf("%-4s ", sizes[size].name);
			print_figures(size, l, S_REF, false);
		}
	printf("\n");
	printf("cfilter / reference, operations per second (lookups: median of %d, the two doing the same %u lookups in %d alternating turns;\n",
	       REPS, LOOKUPS, PAIR_CHUNKS);
	printf("above 1.00x cfilter is faster; chained: the reference's latency / cfilter's; batched: cfilter's batch reader, %d keys per call,\n",
	       BATCH);
	printf("against the reference's plain loop (it has no batch reader); insert: ratio of the medians; B/key: cfilter / reference)\n");
	printf("%-4s %-12s %4s | %8s %8s %8s %8s | %8s %8s | %8s | %8s\n",
	       "size", "mode", "load", "present", "absent", "present",
	       "absent", "present", "absent", "insert", "B/key");
	printf("%-4s %-12s %4s | %8s %8s %8s %8s | %8s %8s | %8s | %8s\n", "",
	       "", "", "indep", "indep", "chain", "chain", "batched",
	       "batched", "", "");
	for (size = 0; size < NSIZES; size++)
		for (i = 0; i < 2; i++)
			for (l = 0; l < NLOADS; l++) {
				enum subject s = modes[i].s;
				unsigned int p = modes[i].pair;

				printf("%-4s %-12s %3u%% |", sizes[size].name,
				       subject_names[s], load_pct[l]);
				for (m = M_PRESENT; m <= M_ABSENT_BATCH; m++)
					printf("%s %7.2fx",
					       m == M_PRESENT_BATCH ? " |" : "",
					       med_ratio(size, l, p, m));
				printf(" | %7.2fx | %7.2fx\n",
				       med(size, l, S_REF, M_INSERT) /
				       med(size, l, s, M_INSERT),
				       med(size, l, s, M_BYTES) /
				       med(size, l, S_REF, M_BYTES));
				if (l != NLOADS - 1)
					continue;
				g->absent[i] = ref_min(g->absent[i],
					med_ratio(size, l, p, M_ABSENT_BATCH));
				g->present[i] = ref_min(g->present[i],
					med_ratio(size, l, p, M_PRESENT_BATCH));
				g->absent_single[i] = ref_min(g->absent_single[i],
					med_ratio(size, l, p, M_ABSENT));
				g->present_single[i] = ref_min(g->present_single[i],
					med_ratio(size, l, p, M_PRESENT));
				g->chained[i][0] = ref_min(g->chained[i][0],
					med_ratio(size, l, p, M_ABSENT_CHAINED));
				g->chained[i][1] = ref_min(g->chained[i][1],
					med_ratio(size, l, p, M_PRESENT_CHAINED));
				g->key_latency[size][0] = med(size, l, S_EXACT,
							M_PRESENT_CHAINED);
				g->key_latency[size][1] = med(size, l, S_COMPACT,
							M_PRESENT_CHAINED);
			}
	printf("\n");
}

void print_ref_goals(const struct ref_goals *g)
{
	static const char *const mode[2] = { "compact fp16", "exact" };
	static const char *const kind[2] = { "absent", "present" };
	const double present_goal[2] = { GOAL_REF_PRESENT,
					 GOAL_REF_PRESENT_EXACT };
	char figs[NSIZES][64];
	unsigned int i, k;
	bool met = true;
	double lo, hi;

	for (i = 0; i < 2; i++)
		printf("  [%s] %s absent lookups >= %.2fx the reference's per second, 1M and 16M at 95%% load, independent lookups, batched reader (%d per call) against the reference's loop: worst %.2fx (single lookups: %.2fx)\n",
		       verdict(g->absent[i] >= GOAL_REF_ABSENT), mode[i],
		       GOAL_REF_ABSENT, BATCH, g->absent[i],
		       g->absent_single[i]);
	for (i = 0; i < 2; i++)
		printf("  [%s] %s present lookups >= %.2fx the reference's per second, 1M and 16M at 95%% load, independent lookups, batched reader (%d per call) against the reference's loop: worst %.2fx (single lookups: %.2fx)\n",
		       verdict(g->present[i] >= present_goal[i]), mode[i],
		       present_goal[i], BATCH, g->present[i],
		       g->present_single[i]);
	for (i = 0; i < 2; i++)
		for (k = 0; k < 2 - i; k++)
			printf("  [%s] %s chained lookup latency <= the reference's, %s keys, 1M and 16M at 95%% load: worst %.2fx the reference's%s\n",
			       verdict(CHAIN_HONEST &&
				       g->chained[i][k] >= GOAL_REF_CHAINED),
			       mode[i], kind[k], 1 / g->chained[i][k],
			       CHAIN_HONEST ? "" : " (not a latency on this CPU)");
	/* What the same code reads against itself, for scale. */
	code_control_chained(NLOADS - 1, &lo, &hi);
#ifndef CFILTER_TWIN_DIR
	printf("    (the code control: the same reader, compiled twice, reads %.2fx to %.2fx of itself chained, at 95%% load)\n",
	       lo, hi);
#else
	printf("    (no code control in this run: TWIN= made it an A/B, which reads %.2fx to %.2fx chained, at 95%% load)\n",
	       lo, hi);
#endif
	/*
	 * Both wait for one miss (two in parallel) behind the hash: only
	 * what each adds to a single chased read is the code's to change.
	 * cfilter's latency here is the reference's over their paired ratio,
	 * which is steadier than two medians taken minutes apart.
	 */
	printf("    (the floor, one dependent read in an array of a compact fp16 table's size (chase.c), and absent chained above it, at 95%% load:");
	for (i = 0; i < NSIZES; i++) {
		double f = median(floor_read[i]);
		double r = med(i, NLOADS - 1, S_REF, M_ABSENT_CHAINED);
		double q = med_ratio(i, NLOADS - 1, P_REF_COMPACT,
				     M_ABSENT_CHAINED);

		printf("%s %s %.1f ns, the reference +%.1f, compact fp16 +%.1f",
		       i ? ";" : "", sizes[i].name, f, r - f, r / q - f);
	}
	printf(")\n");
	/*
	 * A present key's lookup in exact mode reads the key once its
	 * fingerprint matched, a second miss that waits for the first, which
	 * a filter never makes: judged against the reference's latency plus
	 * that read's (chase.c), medians each measured alone.
	 */
	for (i = 0; i < NSIZES; i++) {
		double x = med(i, NLOADS - 1, S_EXACT, M_PRESENT_CHAINED);
		double r = med(i, NLOADS - 1, S_REF, M_PRESENT_CHAINED);
		double k = median(key_read[i]);

		met = met && x <= r + k;
		snprintf(figs[i], sizeof(figs[i]), "%s %.1f %s %.1f + %.1f ns",
			 sizes[i].name, x, x <= r + k ? "<=" : ">", r, k);
	}
	printf("  [%s] exact chained lookup latency <= the reference's plus one dependent read of its key array, present keys, at 95%% load: %s; %s\n",
	       verdict(CHAIN_HONEST && met), figs[0], figs[1]);
	printf("    (compact fp16's is the same lookup without the key: at 95%% load");
	for (i = 0; i < NSIZES; i++)
		printf("%s %s %.1f = %.1f + %.1f ns", i ? ";" : "",
		       sizes[i].name, g->key_latency[i][0],
		       g->key_latency[i][1],
		       g->key_latency[i][0] - g->key_latency[i][1]);
	printf(")\n");
}
