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
 * (0.93x to 1.07x in the runs that chose this design).
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
 * (latency) at least 1.0x, i.e. at most the reference's time. Without REF
 * none of this is built and the bench is as before.
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
 * Host RCU is liburcu's: this thread registers, and every lookup loop runs
 * inside one read-side critical section (an XDP program runs a whole NAPI
 * poll in one).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <urcu.h>

#include "cuckoo.h"
#include "cuckoo_nov.h"
#include "hashset.h"
#ifdef CFILTER_REF
#include "ref.h"
#endif

#ifndef REPS			/* -DREPS=3 for a quick look */
#define REPS		7
#endif
#define LOOKUPS		(1U << 20)	/* a power of two */
#define BATCH		16	/* keys per call of the batch readers */
#define PAIR_CHUNKS	16		/* turns of a versioned/unversioned pair */
#define FP_LOOKUPS	(1U << 24)
#define FP_SLOT_SHIFT	20
#define KEY_LEN		4
#define ABSENT_BASE	(1ULL << 31)
#define WINDOW_PCT	1
#define NLOADS		3
#define NSIZES		2

/* Goals of issue 3. */
#define GOAL_NOV_RATIO	1.15
#define GOAL_MEM_RATIO	5.0
/* The tags' cost: exact+tags / exact lookup. */
#define GOAL_TAGS_RATIO	1.15
/* lookups while a writer works on the other CPU, against idle */
#define GOAL_WRITER_RATIO	1.2
/* the writer's keys, added and then taken out again, in turn */
#define WRITER_KEYS	(1U << 16)
#define WRITER_BASE	(3ULL << 30)
/* Issue 17: cfilter's lookups per second / the reference's, at 95% load. */
#define GOAL_REF_ABSENT		1.0
#define GOAL_REF_PRESENT	1.0	/* compact */
#define GOAL_REF_PRESENT_EXACT	0.7	/* exact reads its key array too */
#define GOAL_REF_CHAINED	1.0	/* latency at most the reference's */

static const unsigned int load_pct[NLOADS] = { 50, 90, 95 };

static const struct {
	const char *name;
	unsigned int slot_shift;
} sizes[NSIZES] = {
	{ "1M", 20 },
	{ "16M", 24 },
};

/*
 * The structures under test. A _NOV subject is the version-free reader on
 * the table of the subject before it; S_EXACT_TWIN is a second exact table
 * built like S_EXACT's (same seed, same keys, same order) in other memory;
 * S_EXACT_TAGS is built like S_EXACT's too, but with values (tag_of()).
 * S_REF, with REF only, is the reference implementation (ref.h).
 */
enum subject {
	S_EXACT,
	S_EXACT_NOV,
	S_EXACT_TAGS,
	S_COMPACT,
	S_COMPACT_NOV,
	S_EXACT_TWIN,
	S_HASHSET,
#ifdef CFILTER_REF
	S_REF,
#endif
	NSUBJECTS,
};

/*
 * Pairs measured in alternating turns (paired_lookups()): the first
 * NFILTERS are each filter and its version-free reader on the same table;
 * then P_PLACEMENT, the exact table and its twin, the same reader; and
 * P_TAGS, the tagged exact table and the plain one; with REF, the
 * reference against compact fp16 and against exact (reference first, so
 * that a ratio is cfilter's speed as a multiple of the reference's).
 */
#define NFILTERS	2
#define P_PLACEMENT	NFILTERS
#define P_TAGS		(NFILTERS + 1)
#ifdef CFILTER_REF
#define P_REF_COMPACT	(NFILTERS + 2)
#define P_REF_EXACT	(NFILTERS + 3)
#define NPAIRS		(NFILTERS + 4)
#else
#define NPAIRS		(NFILTERS + 2)
#endif
static const enum subject pairs[NPAIRS][2] = {
	{ S_EXACT, S_EXACT_NOV },
	{ S_COMPACT, S_COMPACT_NOV },
	{ S_EXACT, S_EXACT_TWIN },
	{ S_EXACT_TAGS, S_EXACT },
#ifdef CFILTER_REF
	{ S_REF, S_COMPACT },
	{ S_REF, S_EXACT },
#endif
};

/* The rows of the ns/op table. */
static const enum subject table_rows[] = { S_EXACT, S_EXACT_TAGS, S_COMPACT };
#define NROWS	(sizeof(table_rows) / sizeof(table_rows[0]))

static const char *const subject_names[NSUBJECTS] = {
	[S_EXACT]	= "exact",
	[S_EXACT_NOV]	= "exact, no versions",
	[S_EXACT_TAGS]	= "exact+tags",
	[S_COMPACT]	= "compact fp16",
	[S_COMPACT_NOV]	= "compact fp16, no versions",
	[S_EXACT_TWIN]	= "exact, second table",
	[S_HASHSET]	= "hash set",
#ifdef CFILTER_REF
	[S_REF]		= "reference",
#endif
};

/*
 * Lookups: independent (overlapping in the CPU), chained (see lookups()),
 * or independent through the batch readers, BATCH keys per call.
 */
enum metric {
	M_PRESENT,
	M_ABSENT,
	M_PRESENT_CHAINED,
	M_ABSENT_CHAINED,
	M_PRESENT_BATCH,
	M_ABSENT_BATCH,
	M_INSERT,
	M_BYTES,
	NMETRICS,
};

struct bench {
	struct cuckoo *c[NSUBJECTS];
	struct hashset *h;
#ifdef CFILTER_REF
	struct cf_ref *ref;
#endif
	u64 slots;
	u64 next;		/* keys[next] is the next key to insert */
	u64 stored[NSUBJECTS];	/* keys each subject stored */
};

static double samples[NSIZES][NLOADS][NSUBJECTS][NMETRICS][REPS];
/* first / second of each of pairs[], from paired_lookups() */
static double pair_ratio[NSIZES][NLOADS][NPAIRS][NMETRICS][REPS];
static u32 *keys;		/* present keys, in insertion order */
static u32 *probe;		/* one measurement's lookup keys */
static u8 *stored;		/* per key of an insert window: stored? */
static u32 key_salt;
#ifdef CFILTER_REF
static unsigned int ref_rebuilds;	/* see ref_full() */
#endif
static u64 rng_state;

static void die(const char *what)
{
	fprintf(stderr, "bench: %s\n", what);
	exit(1);
}

static double clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * Measurements use this thread's CPU time: time the thread spends
 * preempted by other work on this machine does not count.
 */
static double now_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* splitmix64 */
static u64 rng(void)
{
	u64 z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Key number @i: a bijection of 32-bit numbers, so distinct i, distinct keys. */
static u32 key_at(u64 i)
{
	u32 x = (u32)i ^ key_salt;

	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

static u64 slots_of(unsigned int size)
{
	return 1ULL << sizes[size].slot_shift;
}

static u64 keys_at_load(unsigned int size, unsigned int pct)
{
	return slots_of(size) * pct / 100;
}

static bool is_nov(enum subject s)
{
	return s == S_EXACT_NOV || s == S_COMPACT_NOV;
}

/* Structures that keep full keys: no false positives, no shared entries. */
static bool is_exact(enum subject s)
{
	return s == S_EXACT || s == S_EXACT_NOV || s == S_EXACT_TWIN ||
	       s == S_EXACT_TAGS || s == S_HASHSET;
}

/* Subjects that own a filter: all but the hash set and the _NOV readers. */
static bool owns_filter(enum subject s)
{
	return !is_nov(s) && s != S_HASHSET;
}

static bool is_ref(enum subject s)
{
#ifdef CFILTER_REF
	return s == S_REF;
#else
	(void)s;
	return false;
#endif
}

/* Subjects that own a filter of the core. */
static bool owns_cuckoo(enum subject s)
{
	return owns_filter(s) && !is_ref(s);
}

/*
 * A table of exactly 2^slot_shift slots: its capacity is the key count at
 * 95% load, and it never grows.
 */
static struct cuckoo *filter_create(enum subject s, u64 slots, u32 fp_bits,
				    u64 seed)
{
	struct cuckoo_params p = {
		.capacity = slots * CUCKOO_MAX_LOAD_PCT / 100,
		.seed = seed,
		.fp_bits = fp_bits,
		.key_len = KEY_LEN,
		.exact = is_exact(s),
		.values = s == S_EXACT_TAGS,
	};
	struct cuckoo_stats st;
	struct cuckoo *c;

	p.max_capacity = p.capacity;
	c = cuckoo_create(&p);
	if (!c)
		die("cuckoo_create failed: out of memory?");
	cuckoo_get_stats(c, &st);
	if (st.capacity != slots)
		die("the core sized the table differently than expected");
	return c;
}

static u64 memory_of(const struct bench *b, enum subject s)
{
	struct cuckoo_stats st;

	if (s == S_HASHSET)
		return hashset_memory_bytes(b->h);
#ifdef CFILTER_REF
	if (s == S_REF) {
		if (cf_ref_count(b->ref) != b->stored[s])
			die("the reference's count differs from the keys it accepted");
		return cf_ref_memory_bytes(b->ref);
	}
#endif
	cuckoo_get_stats(b->c[s], &st);
	if (st.count != b->stored[s])
		die("a filter's count differs from the keys it accepted");
	return st.memory_bytes;
}

/*
 * The tag of @key: a few sources, as in the product; never 0, so a lookup
 * that reads no tag cannot pass for one that does.
 */
static u32 tag_of(u32 key)
{
	return 1 + key % 7;
}

static int subject_insert(struct bench *b, enum subject s, const u32 *key)
{
	switch (s) {
	case S_HASHSET:
		return hashset_insert(b->h, key);
	case S_EXACT_TAGS:
		return cuckoo_insert_val(b->c[s], key, tag_of(*key));
#ifdef CFILTER_REF
	case S_REF:
		return cf_ref_insert(b->ref, key);
#endif
	default:
		return cuckoo_insert(b->c[s], key);
	}
}

static int subject_delete(struct bench *b, enum subject s, const u32 *key)
{
#ifdef CFILTER_REF
	if (s == S_REF)
		return cf_ref_delete(b->ref, key);
#endif
	return cuckoo_delete(b->c[s], key);
}

/*
 * Returns 1 if the key was stored, 0 if a compact filter already held an
 * entry indistinguishable from it (same fingerprint, same buckets: it tests
 * present all the same); stops the benchmark on any other outcome.
 */
static unsigned int stored_or_die(enum subject s, int err)
{
	if (!err)
		return 1;
	if (err == -EEXIST && !is_exact(s))
		return 0;
	fprintf(stderr, "bench: %s: insert failed: %s\n", subject_names[s],
		strerror(-err));
	exit(1);
}

/*
 * The reference gives up on an insert after 500 moves (keeping the last
 * entry moved in its one-entry victim cache, after which every insert
 * fails). Fresh tables of 2^24 slots did so at 95.6-95.8% load in trials,
 * but one did within a run's 95% insert windows. If @err is that, a new
 * reference (new hash) of keys [0, @upto) replaces the full one, and the
 * caller retries; the run counts such rebuilds and prints them.
 */
static bool ref_full(struct bench *b, enum subject s, int err, u64 upto)
{
#ifdef CFILTER_REF
	u64 i;

	if (s != S_REF || err != -ENOSPC)
		return false;
	cf_ref_destroy(b->ref);
	b->ref = cf_ref_create(b->slots);
	if (!b->ref)
		die("the reference filter: out of memory");
	for (i = 0; i < upto; i++)
		if (cf_ref_insert(b->ref, &keys[i]))
			die("the reference filter filled up again after a rebuild");
	b->stored[s] = upto;
	ref_rebuilds++;
	fprintf(stderr, "bench: the reference filter was full at %llu keys: rebuilt\n",
		(unsigned long long)upto);
	return true;
#else
	(void)b, (void)s, (void)err, (void)upto;
	return false;
#endif
}

/* Inserts keys [from, to) into subject @s, untimed. */
static void fill(struct bench *b, enum subject s, u64 from, u64 to)
{
	u64 i;
	int err;

	for (i = from; i < to; i++) {
		while (ref_full(b, s, err = subject_insert(b, s, &keys[i]), i))
			;
		b->stored[s] += stored_or_die(s, err);
	}
}

/*
 * Inserts keys [from, to) into filter @s and returns ns per insert. With
 * @undo, deletes them again (untimed) so that the next repetition inserts
 * at the same load; only the keys that were stored are deleted, as deleting
 * a compact filter's shared entry would remove another key.
 */
static double insert_window(struct bench *b, enum subject s, u64 from,
			    u64 to, bool undo)
{
	double t0, ns;
	u64 i;
	int err;

retry:
	t0 = now_ns();
	for (i = from; i < to; i++) {
		err = subject_insert(b, s, &keys[i]);
		if (ref_full(b, s, err, from))
			goto retry;
		stored[i - from] = stored_or_die(s, err);
	}
	ns = (now_ns() - t0) / (to - from);
	for (i = from; i < to; i++) {
		if (!stored[i - from])
			continue;
		if (!undo)
			b->stored[s]++;
		else if (subject_delete(b, s, &keys[i]))
			die("deleting a key just inserted failed");
	}
	return ns;
}

/*
 * After each chained lookup: wait until it has completed, so that no
 * prediction of its answer lets the next one start early (see the header).
 */
#if defined(__x86_64__) || defined(__i386__)
#define CHAIN_BARRIER()	__builtin_ia32_lfence()
#define CHAIN_HONEST	1
#else
#define CHAIN_BARRIER()	__asm__ __volatile__("" ::: "memory")
#define CHAIN_HONEST	0
#endif

/*
 * Independent lookups overlap in the CPU, several cache misses in flight:
 * the throughput of a tight loop. In chained ones, the index of each key
 * depends on the previous answer and the barrier waits for that answer's
 * lookup, so each lookup waits for the one before: its latency, as when a
 * CPU handles one packet after another. Each expansion has a constant
 * @chained, so the independent loop carries no dependency through @n.
 */
#define LOOKUP_LOOP(fn, obj, chained, n)					\
	do {									\
		u32 i_;								\
										\
		for (i_ = lo; i_ < hi; i_++) {					\
			n += fn(obj, &probe[(chained) ?				\
					    (i_ + (u32)n) & (LOOKUPS - 1) : i_]);	\
			if (chained)						\
				CHAIN_BARRIER();				\
		}								\
	} while (0)

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
static void check_hits(enum subject s, bool present, u64 hits)
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
static double lookups(const struct bench *b, enum subject s, enum metric m,
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
 * Sets ns per lookup in @ns[0] (v), @ns[1] (n).
 */
static void paired_lookups(const struct bench *b, enum subject v,
			   enum subject n, enum metric m, double ns[2])
{
	const u32 chunk = LOOKUPS / PAIR_CHUNKS;
	u64 hits[2] = { 0, 0 };
	unsigned int i, j;

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

static void draw_absent(void)
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
			if (!is_nov(s))
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
				if (s == S_EXACT_TWIN)
					continue;	/* only paired */
				if (batched && !has_batch(s))
					continue;
				res[s][m][rep] = lookups(b, s, m, &hits);
				check_hits(s, present, hits);
			}
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

static void run_size(unsigned int size)
{
	u64 slots = slots_of(size), exact_seed = rng();
	struct bench b = { .next = 0, .slots = slots };
	unsigned int l, s;

	for (s = 0; s < NSUBJECTS; s++)
		if (owns_cuckoo(s))
			b.c[s] = filter_create(s, slots, 16,
					       is_exact(s) ? exact_seed : rng());
#ifdef CFILTER_REF
	b.ref = cf_ref_create(slots);
	if (!b.ref)
		die("the reference filter: out of memory, or not of 2^k slots at 95% load");
#endif
	b.c[S_EXACT_NOV] = b.c[S_EXACT];
	b.c[S_COMPACT_NOV] = b.c[S_COMPACT];
	b.h = hashset_create(keys_at_load(size, load_pct[NLOADS - 1]), KEY_LEN,
			     rng());
	if (!b.h)
		die("hashset_create: out of memory");
	for (l = 0; l < NLOADS; l++)
		measure_load(&b, size, l);
	for (s = 0; s < NSUBJECTS; s++)
		if (owns_cuckoo(s))
			cuckoo_destroy(b.c[s]);
#ifdef CFILTER_REF
	cf_ref_destroy(b.ref);
#endif
	hashset_destroy(b.h);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v)
{
	double tmp[REPS];

	memcpy(tmp, v, sizeof(tmp));
	qsort(tmp, REPS, sizeof(tmp[0]), cmp_double);
	return tmp[REPS / 2];
}

static double med(unsigned int size, unsigned int l, enum subject s,
		  enum metric m)
{
	return median(samples[size][l][s][m]);
}

/* The median of pair @p's ratios. */
static double med_ratio(unsigned int size, unsigned int l, unsigned int p,
			enum metric m)
{
	return median(pair_ratio[size][l][p][m]);
}

static const char *verdict(bool met)
{
	return met ? "MET" : "NOT MET";
}

/*
 * Other work on the machine (a qemu guest, a build) skews the figures even
 * in CPU time, through shared caches: say how busy it was.
 */
static void print_load(const char *when)
{
	double load[3];

	if (getloadavg(load, 3) == 3)
		printf("%s: %.2f %.2f %.2f\n", when, load[0], load[1], load[2]);
}

static void print_header(void)
{
	char line[256], model[200] = "unknown CPU";
	struct utsname u;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "model name : %199[^\n]", model) == 1)
			break;
	if (f)
		fclose(f);
	uname(&u);
	printf("cfilter bench: %s, %s %s, %ld CPUs\n", model, u.sysname,
	       u.release, sysconf(_SC_NPROCESSORS_ONLN));
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
static void print_figures(unsigned int size, unsigned int l, enum subject v,
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

static void print_filters(void)
{
	unsigned int size, l, i;

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
static void print_versions(double worst[2])
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
 * Why the version cost is measured on one table: two exact tables of the
 * same keys, seed and history, one reader, differ by where their memory
 * landed. The ratio first / second, measured like the version ratios,
 * shows how much; it is noise for any comparison of two tables.
 */
static void print_placement(void)
{
	unsigned int size, l;
	enum metric m;

	printf("Placement control: two identical exact tables in different memory, the same reader; ratio first / second\n");
	printf("%-4s %4s | %8s %8s %8s %8s\n", "size", "load", "present",
	       "absent", "present", "absent");
	printf("%-4s %4s | %8s %8s %8s %8s\n", "", "", "indep", "indep",
	       "chain", "chain");
	for (size = 0; size < NSIZES; size++)
		for (l = 0; l < NLOADS; l++) {
			printf("%-4s %3u%% |", sizes[size].name, load_pct[l]);
			for (m = M_PRESENT; m <= M_ABSENT_CHAINED; m++)
				printf(" %7.2fx", med_ratio(size, l, P_PLACEMENT, m));
			printf("\n");
		}
	printf("\n");
}

/*
 * The tags' cost: for each lookup kind, the ratio exact+tags / exact from
 * their alternating turns (as print_versions()), and the ratio of their
 * bytes per key. Returns the worst ratio of independent lookups in
 * @worst[0], of chained ones in @worst[1].
 */
static void print_tags(double worst[2])
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

struct hs_goals {
	double speed;		/* worst hash set / exact absent ns, 16M */
	double mem;		/* worst hash set / exact B/key at 95% load */
	double mem_50;		/* ... at 50% load */
};

static void print_hashset(struct hs_goals *g)
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

#ifdef CFILTER_REF
struct ref_goals {
	/*
	 * worst cfilter / reference lookups per second at 95% load, [0]
	 * compact, [1] exact; independent ones by the batch readers, and by
	 * the single ones (_single)
	 */
	double absent[2], present[2], chained[2][2];
	double absent_single[2], present_single[2];
	/*
	 * exact present chained, ns at 95% load per size: its latency, and
	 * compact fp16's (the same reader but for the key it reads)
	 */
	double key_latency[NSIZES][2];
};

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
static void print_ref(struct ref_goals *g)
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
	if (ref_rebuilds)
		printf("(the reference's table was full before its load point %u times: each time a new one of the same keys replaced it, see ref_full())\n",
		       ref_rebuilds);
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

static void print_ref_goals(const struct ref_goals *g)
{
	static const char *const mode[2] = { "compact fp16", "exact" };
	static const char *const kind[2] = { "absent", "present" };
	const double present_goal[2] = { GOAL_REF_PRESENT,
					 GOAL_REF_PRESENT_EXACT };
	unsigned int i, k;

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
		for (k = 0; k < 2; k++)
			printf("  [%s] %s chained lookup latency <= the reference's, %s keys, 1M and 16M at 95%% load: worst %.2fx the reference's%s\n",
			       verdict(CHAIN_HONEST &&
				       g->chained[i][k] >= GOAL_REF_CHAINED),
			       mode[i], kind[k], 1 / g->chained[i][k],
			       CHAIN_HONEST ? "" : " (not a latency on this CPU)");
	/*
	 * Not a shortfall of the reader: a present key's lookup in exact mode
	 * reads the key once its fingerprint matched, a second miss that
	 * waits for the first. compact fp16 is the same lookup without it.
	 */
	printf("    exact present latency is compact fp16's plus the key read, a second cache miss after the fingerprint's\n");
	printf("    (the reference, a filter, reads no key): at 95%% load");
	for (i = 0; i < NSIZES; i++)
		printf("%s %s %.1f = %.1f + %.1f ns", i ? ";" : "",
		       sizes[i].name, g->key_latency[i][0],
		       g->key_latency[i][1],
		       g->key_latency[i][0] - g->key_latency[i][1]);
	printf("\n");
}
#endif

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

static double measure_writer(double *ratio_other)
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
	print_placement();
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
