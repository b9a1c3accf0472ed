// SPDX-License-Identifier: GPL-2.0
/* The timed lookups and inserts of each size and load, into samples[]. */
#include <stdio.h>
#include <stdlib.h>
#include <urcu.h>

#include "bench_int.h"

#define LOOKUPS_OF(fn, obj, chained, n)						\
	do {									\
		if (chained)							\
			LOOKUP_LOOP(fn, obj, 1, n);				\
		else								\
			LOOKUP_LOOP(fn, obj, 0, n);				\
	} while (0)

/*
 * A tagged table read as the packet path reads it: cuckoo_lookup() and its
 * tag, summed into @tags so that it is read and kept. A chained lookup
 * waits, as every subject's, for the previous answer (hit or miss), not
 * for its tag: the packet path acts on the answer and only counts by the
 * tag. Waiting for the tag too would wait for the key's load, which the
 * plain reader's chain does not (its answer comes from a predicted branch
 * on the key), and the ratio would show that difference in the loops, not
 * the tags. @v_ is reset as a miss sets no tag.
 */
#define TAGS_LOOP(obj, chained, n, tags)					\
	do {									\
		u32 i_, v_;							\
										\
		for (i_ = lo; i_ < hi; i_++) {					\
			v_ = 0;							\
			n += cuckoo_lookup(obj, &probe[(chained) ?		\
					   (i_ + (u32)n) & (LOOKUPS - 1) :	\
					   i_], &v_);				\
			tags += v_;						\
			if (chained)						\
				CHAIN_BARRIER();				\
		}								\
	} while (0)

/*
 * Independent lookups through the batch readers, BATCH keys per call, as a
 * packet path that gathers its probes would make them; for a tagged table,
 * with the tags summed as TAGS_LOOP sums them.
 */
#define BATCH_LOOP(fn, obj, n)							\
	do {									\
		bool hit_[BATCH];						\
		u32 i_;								\
										\
		for (i_ = lo; i_ < hi; i_ += BATCH)				\
			n += fn(obj, &probe[i_], BATCH, hit_);			\
	} while (0)

#define TAGS_BATCH_LOOP(obj, n, tags)						\
	do {									\
		u32 i_, j_, v_[BATCH];						\
		bool hit_[BATCH];						\
										\
		for (i_ = lo; i_ < hi; i_ += BATCH) {				\
			memset(v_, 0, sizeof(v_));				\
			n += cuckoo_lookup_batch(obj, &probe[i_], BATCH, hit_,	\
						 v_);				\
			for (j_ = 0; j_ < BATCH; j_++)				\
				tags += v_[j_];					\
		}								\
	} while (0)

/*
 * The tag sum TAGS_LOOP must reach on lookups @lo to @hi - 1, all hits or
 * all misses: its keys replayed in the order it visits them.
 */
static u64 tags_expected(bool present, bool chained, u32 lo, u32 hi)
{
	u64 n = 0, tags = 0;
	u32 i, k;

	if (!present)
		return 0;
	for (i = lo; i < hi; i++) {
		k = probe[chained ? (i + (u32)n) & (LOOKUPS - 1) : i];
		n++;
		tags += tag_of(k);
	}
	return tags;
}

/*
 * Every present key must be found; an absent one only by a compact filter
 * (a false positive), and rarely.
 */
void check_hits(enum subject s, bool present, u64 hits)
{
	if (present && hits != LOOKUPS)
		die("a present key was not found");
	if (!present && is_exact(s) && hits)
		die("an exact structure found an absent key");
	if (!present && hits > LOOKUPS / 100)
		die("a compact filter found over 1% of absent keys");
}

/* The lookups of @m: of present keys? chained? through the batch readers? */
static bool is_present(enum metric m)
{
	return m == M_PRESENT || m == M_PRESENT_CHAINED || m == M_PRESENT_BATCH;
}

static bool is_chained(enum metric m)
{
	return m == M_PRESENT_CHAINED || m == M_ABSENT_CHAINED;
}

static bool is_batched(enum metric m)
{
	return m == M_PRESENT_BATCH || m == M_ABSENT_BATCH;
}

/*
 * Subjects measured with batches: cfilter's tables of the ns/op table, by
 * the batch readers, and the reference, which has no batch reader, by its
 * plain loop, so that the pairs against it compare the two ways a caller
 * would look up many keys.
 */
static bool has_batch(enum subject s)
{
	return s == S_EXACT || s == S_EXACT_TAGS || s == S_COMPACT || is_ref(s);
}

/*
 * Runs lookups @lo to @hi - 1 of probe[] (of present keys or not, as @m
 * says), in the way of @m; returns the ns they took and adds the keys
 * found to *@hits.
 */
static double lookup_run(const struct bench *b, enum subject s, enum metric m,
			 u32 lo, u32 hi, u64 *hits)
{
	bool chained = is_chained(m), present = is_present(m);
	double t0;
	u64 n = 0, tags = 0;

	rcu_read_lock();
	t0 = now_ns();
	if (is_batched(m) && !is_ref(s)) {
		if (s == S_EXACT_TAGS)
			TAGS_BATCH_LOOP(b->c[s], n, tags);
		else
			BATCH_LOOP(cuckoo_contains_batch, b->c[s], n);
		goto done;
	}
	switch (s) {
	case S_HASHSET:
		LOOKUPS_OF(hashset_contains, b->h, chained, n);
		break;
	case S_EXACT_TAGS:
		if (chained)
			TAGS_LOOP(b->c[s], 1, n, tags);
		else
			TAGS_LOOP(b->c[s], 0, n, tags);
		break;
	case S_EXACT_NOV:
	case S_COMPACT_NOV:
		LOOKUPS_OF(cuckoo_nov_contains, b->c[s], chained, n);
		break;
	case S_COMPACT_CODE:
		LOOKUPS_OF(cuckoo_twin_contains, b->c[s], chained, n);
		break;
#ifdef CFILTER_REF
	case S_REF:
		LOOKUPS_OF(cf_ref_contains, b->ref, chained, n);
		break;
#endif
	default:
		LOOKUPS_OF(cuckoo_contains, b->c[s], chained, n);
		break;
	}
done:
	t0 = now_ns() - t0;
	rcu_read_unlock();
	/* A wrong hit count is check_hits()'s to report. */
	if (s == S_EXACT_TAGS && n == (present ? hi - lo : 0) &&
	    tags != tags_expected(present, chained, lo, hi))
		die("a lookup read a wrong tag");
	*hits += n;
	return t0;
}

/* All LOOKUPS lookups of probe[]: ns per lookup; sets *@hits. */
double lookups(const struct bench *b, enum subject s, enum metric m,
	       u64 *hits)
{
	*hits = 0;
	return lookup_run(b, s, m, 0, LOOKUPS, hits) / LOOKUPS;
}

/*
 * The two subjects of a pair, @v and @n (as a versioned filter and its
 * unversioned reader), each doing all LOOKUPS lookups of probe[], in
 * PAIR_CHUNKS turns of equal size taken in the order v n n v v n ...:
 * whatever else the machine does (a neighbour filling the shared cache, a
 * frequency change) falls on both alike, and so cancels in their ratio.
 * First both look up the first turn's keys untimed: two readers of one
 * table share its cache lines, and the first turn of the one that went
 * first brought them in from memory for both (at 1M, the same reader
 * twice measured 1.06-1.14x of itself so). Sets ns per lookup in @ns[0]
 * (v), @ns[1] (n).
 */
void paired_lookups(const struct bench *b, enum subject v,
		    enum subject n, enum metric m, double ns[2])
{
	const u32 chunk = LOOKUPS / PAIR_CHUNKS;
	u64 hits[2] = { 0, 0 };
	unsigned int i, j;

	for (j = 0; j < 2; j++)
		lookup_run(b, j ? n : v, m, 0, chunk, &hits[j]);
	hits[0] = hits[1] = 0;
	ns[0] = ns[1] = 0;
	for (i = 0; i < PAIR_CHUNKS; i++)
		for (j = 0; j < 2; j++) {
			unsigned int who = j ^ (i & 1);

			ns[who] += lookup_run(b, who ? n : v, m, i * chunk,
					      (i + 1) * chunk, &hits[who]);
		}
	for (j = 0; j < 2; j++) {
		ns[j] /= LOOKUPS;
		check_hits(j ? n : v, is_present(m), hits[j]);
	}
}

static void draw_present(u64 stored)
{
	u32 i;

	for (i = 0; i < LOOKUPS; i++)
		probe[i] = keys[rng() % stored];
}

void draw_absent(void)
{
	u32 i;

	for (i = 0; i < LOOKUPS; i++)
		probe[i] = key_at(ABSENT_BASE + (rng() >> 34));
}

/*
 * One load point: fill up to one window short of it, then REPS times insert
 * the window (and but for the last time, take it out again), then REPS
 * times measure lookups, each time of new random keys.
 */
static void measure_load(struct bench *b, unsigned int size, unsigned int l)
{
	u64 target = keys_at_load(size, load_pct[l]);
	u64 from = target - slots_of(size) * WINDOW_PCT / 100;
	double (*res)[NMETRICS][REPS] = samples[size][l];
	unsigned int rep, k, s;
	enum metric m;
	u64 hits;

	for (s = 0; s < NSUBJECTS; s++)
		if (owns_filter(s) || s == S_HASHSET)
			fill(b, s, b->next, s == S_HASHSET ? target : from);
	b->next = target;
	for (rep = 0; rep < REPS; rep++)
		for (k = 0; k < NSUBJECTS; k++) {
			s = (k + rep) % NSUBJECTS;
			if (owns_filter(s))
				res[s][M_INSERT][rep] =
					insert_window(b, s, from, target,
						      rep < REPS - 1);
		}
	for (s = 0; s < NSUBJECTS; s++)
		for (rep = 0; rep < REPS; rep++)
			if (!is_reader(s))
				res[s][M_BYTES][rep] =
					(double)memory_of(b, s) / b->stored[s];

	/* Batches: the table rows alone, and the pairs with the reference. */
	for (rep = 0; rep < REPS; rep++)
		for (m = M_PRESENT; m <= M_ABSENT_BATCH; m++) {
			bool present = is_present(m), batched = is_batched(m);
			double ns[2];

			if (present)
				draw_present(target);
			else
				draw_absent();
			for (k = 0; k < NSUBJECTS; k++) {
				s = (k + rep) % NSUBJECTS;
				if (s == S_EXACT_TWIN || s == S_COMPACT_CODE)
					continue;	/* only paired */
				if (batched && !has_batch(s))
					continue;
				res[s][m][rep] = lookups(b, s, m, &hits);
				check_hits(s, present, hits);
			}
#ifdef CFILTER_REF
			if (m == M_PRESENT_CHAINED && l == NLOADS - 1)
				key_read[size][rep] = key_read_ns(b->chase,
						b->slots * KEY_LEN);
			/* a compact fp16 table's bytes: 2 per slot */
			if (m == M_ABSENT_CHAINED && l == NLOADS - 1)
				floor_read[size][rep] = floor_read_ns(b->chase,
						b->slots * 2);
#endif
			for (k = 0; k < NPAIRS; k++) {
				unsigned int p = (k + rep) % NPAIRS;

				if (batched && !is_ref(pairs[p][0]))
					continue;
				paired_lookups(b, pairs[p][0], pairs[p][1], m,
					       ns);
				pair_ratio[size][l][p][m][rep] = ns[0] / ns[1];
			}
		}
}

void run_size(unsigned int size)
{
	u64 slots = slots_of(size), exact_seed = rng();
	struct bench b = { .next = 0, .slots = slots };
	unsigned int l, s;
	char when[64];

	for (s = 0; s < NSUBJECTS; s++)
		if (owns_cuckoo(s))
			b.c[s] = filter_create(s, slots, 16,
					       is_exact(s) ? exact_seed : rng());
#ifdef CFILTER_REF
	b.chase = chase_create(slots * KEY_LEN);
	b.ref = cf_ref_create(slots);
	if (!b.ref)
		die("the reference filter: out of memory, or not of 2^k slots at 95% load");
#endif
	readers_follow(&b);
	b.h = hashset_create(keys_at_load(size, load_pct[NLOADS - 1]), KEY_LEN,
			     rng());
	if (!b.h)
		die("hashset_create: out of memory");
	for (l = 0; l < NLOADS; l++)
		measure_load(&b, size, l);
	snprintf(when, sizeof(when), "%s tables, at the end of their lookups",
		 sizes[size].name);
	print_huge(when);
	for (s = 0; s < NSUBJECTS; s++)
		if (owns_cuckoo(s))
			cuckoo_destroy(b.c[s]);
#ifdef CFILTER_REF
	cf_ref_destroy(b.ref);
	chase_destroy(b.chase);
#endif
	hashset_destroy(b.h);
}
