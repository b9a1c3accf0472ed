// SPDX-License-Identifier: GPL-2.0
/*
 * Stress test of the cuckoo filter's lock-free readers: one writer, three
 * readers (on two cores: preemption inside a writer's window happens too).
 *
 *   cuckoo_stress [--mutant] LOOKUPS
 *
 * Three exact-mode filters, all created for 64 keys:
 * - hot and hot4 (16- and 4-byte keys: compared a word at a time, and in
 *   one load): each grows to 512 buckets (its maximum) holding 1500
 *   always-present keys, then the writer churns 350 more through it,
 *   adding one and deleting the oldest: at 90% load most adds move
 *   entries, and in a table this small the readers' keys are moved all
 *   the time;
 * - big: 10000 always-present keys; the writer adds "growth" keys (never
 *   deleted) until the table has doubled its way to millions of keys, each
 *   growth re-inserting every key into a new table published under RCU
 *   while the readers look on; then it churns there too.
 * hot and hot4 keep a value beside each key, which the writer keeps rewriting
 * (cuckoo_set_val()) between two encodings of the key's own number: a
 * reader that finds a key with a value not its own (torn, or another key's
 * after a move reused the slot) fails the test.
 * The readers look up always-present keys of every filter, in turn, each
 * lookup inside rcu_read_lock(), until LOOKUPS lookups in total: one at a
 * time, and every BATCH_EVERY rounds BATCH_KEYS at a time with the batch
 * readers (one call, one critical section; its keys span two of the
 * core's batches), whose misses are counted apart. A miss is a bug: the test fails on any. They also look
 * up churn keys of the hot filters that were deleted just before the
 * lookup began, singly and as a batch, whose stale bytes may still sit in
 * the key array next to a reused slot: a hit there (a ghost) is a false
 * positive, and fails the test too, mutant or not.
 *
 * The mutant (built with -DCUCKOO_NO_VERSIONS) reads both buckets once,
 * without the version protocol. A reader reads b1 and then b2; if between
 * the two reads a move takes the key from b2 to b1 (filling b1, then
 * clearing b2), the reader sees it in neither and misses it. The window is
 * a few nanoseconds, so only a hot table shows it within seconds. With
 * --mutant the verdict is inverted: the run passes only if the readers
 * missed, one at a time and in batches (showing that this test catches a
 * broken protocol in either reader).
 */
#include "cuckoo_unit.h"
#include "test_keys.h"

#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define SEED		0x5eed0f0ce11f17e5ULL
#define READERS		3

#define SET_IN		1	/* always present */
#define SET_CHURN	2	/* added, then deleted */
#define SET_GROW	3	/* added to big, never deleted */

#define HOT_KEYS	1500
#define HOT_WINDOW	350
#define HOT_MAX		1900	/* 512 buckets: 1500 + 350 is 90% */
#define BIG_KEYS	10000
#define BIG_WINDOW	10000
#define BIG_MAX		(8 << 20)
#define GROW_MAX	(4 << 20)	/* growth keys at most */
#define GROW_PER_LOOKUP	30		/* ... and one per this many lookups */
#define BATCH_KEYS	17		/* per batch lookup: CUCKOO_BATCH + 1 */
#define GHOST_KEYS	8		/* deleted last, looked up again */
#define BATCH_EVERY	4		/* reader rounds per round of batches */

#define TIME_LIMIT	300	/* seconds: something is wrong beyond this */

static void die(const char *what, int rc)
{
	printf("not ok 1 cuckoo_stress # %s: %d\n", what, rc);
	exit(1);
}

struct filter {
	struct cuckoo *c;
	unsigned int key_len;
	unsigned int fp_bits;
	bool values;
	u64 bad_values;		/* found with another key's value, all readers */
	u64 keys;		/* SET_IN keys 0..keys-1 */
	u64 churned;		/* SET_CHURN keys added so far */
	u64 window;
	u64 misses;		/* by all readers, one key at a time */
	u64 batch_misses;	/* by all readers, in batches */
	u64 ghosts;		/* deleted keys found, by all readers */
};

static struct filter hot = { .key_len = 16, .keys = HOT_KEYS,
			     .window = HOT_WINDOW, .values = true };
/* 8-bit fingerprints: a deleted key's fingerprint is often reused */
static struct filter hot4 = { .key_len = 4, .fp_bits = 8, .keys = HOT_KEYS,
			      .window = HOT_WINDOW, .values = true };
static struct filter big = { .key_len = 4, .keys = BIG_KEYS,
			     .window = BIG_WINDOW };
static u64 target;		/* lookups wanted */
static u64 lookups;		/* done, published in steps */
static int stop;
/* Readers have missed, one at a time (bit 0) or in a batch (bit 1). */
static int missed;
/* The mutant runs on, up to this many times the target, until both. */
#define MUTANT_STRETCH	4

/* Key @i of @set's value, in one of two encodings (@phase 0 or 1). */
static u32 value_of(unsigned int set, u64 i, unsigned int phase)
{
	return (u32)i << 3 | set << 1 | phase;
}

/* Is @val one of key @i of @set's values? */
static bool value_is(u32 val, unsigned int set, u64 i)
{
	return val >> 1 == value_of(set, i, 0) >> 1;
}

static int add(struct filter *f, unsigned int set, u64 i)
{
	u8 k[CUCKOO_KEY_MAX];

	key_of(k, f->key_len, set, i);
	return cuckoo_insert_val(f->c, k, value_of(set, i, 0));
}

/* Rewrites the value of always-present key @i with encoding @phase. */
static void revalue(struct filter *f, u64 i, unsigned int phase)
{
	u8 k[CUCKOO_KEY_MAX];
	int rc;

	key_of(k, f->key_len, SET_IN, i);
	rc = cuckoo_set_val(f->c, k, value_of(SET_IN, i, phase));
	if (rc)
		die("set value", rc);
}

static int del(struct filter *f, unsigned int set, u64 i)
{
	u8 k[CUCKOO_KEY_MAX];

	key_of(k, f->key_len, set, i);
	return cuckoo_delete(f->c, k);
}

/* Is key @i of @set found? With values, *@bad counts a wrong one. */
static bool has_val(const struct filter *f, unsigned int set, u64 i,
		    u64 *bad)
{
	u8 k[CUCKOO_KEY_MAX];
	u32 val = ~0U;
	bool hit;

	key_of(k, f->key_len, set, i);
	rcu_read_lock();
	if (f->values)
		hit = cuckoo_lookup(f->c, k, &val);
	else
		hit = cuckoo_contains(f->c, k);
	rcu_read_unlock();
	if (hit && f->values && !value_is(val, set, i))
		(*bad)++;
	return hit;
}

static bool has(const struct filter *f, unsigned int set, u64 i)
{
	u64 bad = 0;
	bool hit = has_val(f, set, i, &bad);

	return hit && !bad;
}


/*
 * Is one of the churn keys deleted last (before this call) found? The
 * writer deletes churn key j before it publishes churned = j + window + 1.
 */
static bool ghost(const struct filter *f, u64 i)
{
	u64 c = __atomic_load_n(&f->churned, __ATOMIC_ACQUIRE);

	if (c < f->window + 8)
		return false;
	return has(f, SET_CHURN, c - f->window - 1 - i % GHOST_KEYS);
}

/*
 * Looks up @n keys of @set from @first on (wrapping at @wrap) in one batch;
 * returns the misses. With values, *@bad counts keys found with a value not
 * theirs.
 */
static u64 batch_misses(const struct filter *f, unsigned int set, u64 first,
			u64 wrap, unsigned int n, u64 *bad)
{
	u8 k[BATCH_KEYS * CUCKOO_KEY_MAX];
	bool hit[BATCH_KEYS];
	u32 val[BATCH_KEYS];
	unsigned int j;
	u64 misses = 0;

	for (j = 0; j < n; j++) {
		key_of(k + j * f->key_len, f->key_len, set, (first + j) % wrap);
		val[j] = ~0U;
	}
	rcu_read_lock();
	if (f->values)
		cuckoo_lookup_batch(f->c, k, n, hit, val);
	else
		cuckoo_contains_batch(f->c, k, n, hit);
	rcu_read_unlock();
	for (j = 0; j < n; j++) {
		misses += !hit[j];
		if (hit[j] && f->values &&
		    !value_is(val[j], set, (first + j) % wrap))
			(*bad)++;
	}
	return misses;
}

/* The churn keys deleted last, as one batch: how many were found. */
static u64 batch_ghosts(const struct filter *f)
{
	u64 c = __atomic_load_n(&f->churned, __ATOMIC_ACQUIRE), bad = 0;

	if (c < f->window + GHOST_KEYS)
		return 0;
	return GHOST_KEYS - batch_misses(f, SET_CHURN, c - f->window - GHOST_KEYS,
					 ~0ULL, GHOST_KEYS, &bad) + bad;
}

static void *reader(void *arg)
{
	u64 n = 0, i = (uintptr_t)arg * 7919;
	u64 hot_misses = 0, hot4_misses = 0, big_misses = 0;
	u64 hot_bmisses = 0, hot4_bmisses = 0, big_bmisses = 0;
	u64 hot_ghosts = 0, hot4_ghosts = 0, hot_bad = 0, hot4_bad = 0;

	rcu_register_thread();
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		hot_misses += !has_val(&hot, SET_IN, i % HOT_KEYS, &hot_bad);
		hot4_misses += !has_val(&hot4, SET_IN, i % HOT_KEYS,
					&hot4_bad);
		big_misses += !has(&big, SET_IN, i % BIG_KEYS);
		hot_ghosts += ghost(&hot, i);
		hot4_ghosts += ghost(&hot4, i);
		n += 5;
		/* so that single lookups keep most of the readers' time */
		if (!(i % BATCH_EVERY)) {
			hot_bmisses += batch_misses(&hot, SET_IN, i, HOT_KEYS,
						    BATCH_KEYS, &hot_bad);
			hot4_bmisses += batch_misses(&hot4, SET_IN, i, HOT_KEYS,
						     BATCH_KEYS, &hot4_bad);
			big_bmisses += batch_misses(&big, SET_IN, i, BIG_KEYS,
						    BATCH_KEYS, &hot_bad);
			hot_ghosts += batch_ghosts(&hot);
			hot4_ghosts += batch_ghosts(&hot4);
			n += 3 * BATCH_KEYS + 2 * GHOST_KEYS;
		}
		i++;
		if (n >= 4096) {
			__atomic_fetch_add(&lookups, n, __ATOMIC_RELAXED);
			n = 0;
			if (hot_misses + hot4_misses + big_misses)
				__atomic_fetch_or(&missed, 1, __ATOMIC_RELAXED);
			if (hot_bmisses + hot4_bmisses + big_bmisses)
				__atomic_fetch_or(&missed, 2, __ATOMIC_RELAXED);
		}
	}
	__atomic_fetch_add(&lookups, n, __ATOMIC_RELAXED);
	__atomic_fetch_add(&hot.misses, hot_misses, __ATOMIC_RELAXED);
	__atomic_fetch_add(&hot4.misses, hot4_misses, __ATOMIC_RELAXED);
	__atomic_fetch_add(&big.misses, big_misses, __ATOMIC_RELAXED);
	__atomic_fetch_add(&hot.batch_misses, hot_bmisses, __ATOMIC_RELAXED);
	__atomic_fetch_add(&hot4.batch_misses, hot4_bmisses, __ATOMIC_RELAXED);
	__atomic_fetch_add(&big.batch_misses, big_bmisses, __ATOMIC_RELAXED);
	__atomic_fetch_add(&hot.ghosts, hot_ghosts, __ATOMIC_RELAXED);
	__atomic_fetch_add(&hot4.ghosts, hot4_ghosts, __ATOMIC_RELAXED);
	__atomic_fetch_add(&hot.bad_values, hot_bad, __ATOMIC_RELAXED);
	__atomic_fetch_add(&hot4.bad_values, hot4_bad, __ATOMIC_RELAXED);
	rcu_unregister_thread();
	return NULL;
}

/* One step of FIFO churn: the oldest churn key out, a new one in. */
static void churn(struct filter *f)
{
	int rc;

	if (f->churned >= f->window) {
		rc = del(f, SET_CHURN, f->churned - f->window);
		if (rc)
			die("churn delete", rc);
	}
	rc = add(f, SET_CHURN, f->churned);
	if (rc)
		die("churn add", rc);
	/* after the delete above: see ghost() */
	__atomic_store_n(&f->churned, f->churned + 1, __ATOMIC_RELEASE);
}

static u64 grow_target(void)
{
	u64 n = target / GROW_PER_LOOKUP;

	return n < GROW_MAX ? n : GROW_MAX;
}

static struct filter *setup(struct filter *f, u64 max)
{
	struct cuckoo_params p = {
		.capacity = 64,
		.max_capacity = max,
		.seed = SEED,
		.fp_bits = f->fp_bits ? f->fp_bits : 16,
		.key_len = f->key_len,
		.exact = true,
		.values = f->values,
	};
	u64 i;
	int rc;

	f->c = cuckoo_create(&p);
	if (!f->c)
		die("create", -ENOMEM);
	for (i = 0; i < f->keys; i++) {
		rc = add(f, SET_IN, i);
		if (rc)
			die("add", rc);
	}
	return f;
}

static u64 moves_of(const struct cuckoo *c)
{
	struct cuckoo_stats st;

	cuckoo_get_stats(c, &st);
	return st.moves;
}

int main(int argc, char **argv)
{
	bool mutant = argc == 3 && !strcmp(argv[1], "--mutant");
	u64 grown = 0, i, hot_moves0, hot_adds, bad = 0, misses, ghosts;
	u64 bmisses;
	u64 revalued = 0;
	struct cuckoo_stats hs, h4s, bs;
	pthread_t tid[READERS];
	time_t start = time(NULL);
	struct timespec t0, t1;
	double secs;

	if (argc != 2 + mutant || !(target = strtoull(argv[argc - 1], NULL, 0))) {
		fprintf(stderr, "usage: %s [--mutant] LOOKUPS\n", argv[0]);
		return 2;
	}
	setup(&hot, HOT_MAX);
	setup(&hot4, HOT_MAX);
	setup(&big, BIG_MAX);
	for (i = 0; i < HOT_WINDOW; i++) {
		churn(&hot);
		churn(&hot4);
	}
	/* hot is at its largest now: its table counts every move from here */
	hot_moves0 = moves_of(hot.c);
	hot_adds = hot.churned;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < READERS; i++)
		if (pthread_create(&tid[i], NULL, reader, (void *)(uintptr_t)i))
			die("pthread_create", -errno);
	/*
	 * The mutant's window is a few nanoseconds: it runs on until its
	 * readers have missed both ways, within bounds, so that a quiet run
	 * is not taken for a protocol the test cannot fault.
	 */
	while (__atomic_load_n(&lookups, __ATOMIC_RELAXED) < target ||
	       grown < grow_target() ||
	       (mutant && __atomic_load_n(&missed, __ATOMIC_RELAXED) != 3 &&
		__atomic_load_n(&lookups, __ATOMIC_RELAXED) <
		MUTANT_STRETCH * target)) {
		churn(&hot);
		churn(&hot4);
		revalue(&hot, revalued % HOT_KEYS, revalued / HOT_KEYS % 2);
		revalue(&hot4, revalued % HOT_KEYS, revalued / HOT_KEYS % 2);
		revalued++;
		if (grown < grow_target()) {
			int rc = add(&big, SET_GROW, grown++);

			if (rc)
				die("grow add", rc);
		} else {
			churn(&big);
		}
		if (time(NULL) - start > TIME_LIMIT)
			die("time limit", -ETIMEDOUT);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < READERS; i++)
		pthread_join(tid[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;

	/* Afterwards, single-threaded: everything that should be there is. */
	for (i = 0; i < grown; i++)
		bad += !has(&big, SET_GROW, i);
	for (i = 0; i < HOT_KEYS; i++)
		bad += !has(&hot, SET_IN, i) + !has(&hot4, SET_IN, i);
	for (i = 0; i < BIG_KEYS; i++)
		bad += !has(&big, SET_IN, i);
	cuckoo_get_stats(hot.c, &hs);
	cuckoo_get_stats(hot4.c, &h4s);
	cuckoo_get_stats(big.c, &bs);
	bad += hs.count != HOT_KEYS + HOT_WINDOW;
	bad += h4s.count != HOT_KEYS + HOT_WINDOW;
	bad += bs.count != BIG_KEYS + grown +
			   (big.churned < BIG_WINDOW ? big.churned : BIG_WINDOW);

	misses = hot.misses + hot4.misses + big.misses;
	bmisses = hot.batch_misses + hot4.batch_misses + big.batch_misses;
	ghosts = hot.ghosts + hot4.ghosts;
	printf("# %s: %llu lookups in %.1f s by %d readers; misses: %llu hot, %llu hot4, %llu big; in batches: %llu hot, %llu hot4, %llu big; ghosts: %llu hot, %llu hot4; values not theirs: %llu hot, %llu hot4\n",
	       mutant ? "mutant (no versions)" : "versioned",
	       (unsigned long long)lookups, secs, READERS,
	       (unsigned long long)hot.misses, (unsigned long long)hot4.misses,
	       (unsigned long long)big.misses,
	       (unsigned long long)hot.batch_misses,
	       (unsigned long long)hot4.batch_misses,
	       (unsigned long long)big.batch_misses,
	       (unsigned long long)hot.ghosts,
	       (unsigned long long)hot4.ghosts,
	       (unsigned long long)hot.bad_values,
	       (unsigned long long)hot4.bad_values);
	printf("# hot: %llu keys in %llu slots, %llu churn adds, %llu moves, %llu grows, %llu values rewritten\n",
	       (unsigned long long)hs.count, (unsigned long long)hs.capacity,
	       (unsigned long long)(hot.churned - hot_adds),
	       (unsigned long long)(moves_of(hot.c) - hot_moves0),
	       (unsigned long long)hs.grows, (unsigned long long)revalued);
	printf("# big: %llu keys in %llu slots (%llu MiB), %llu churn adds, %llu grows\n",
	       (unsigned long long)bs.count, (unsigned long long)bs.capacity,
	       (unsigned long long)(bs.memory_bytes >> 20),
	       (unsigned long long)big.churned, (unsigned long long)bs.grows);
	cuckoo_destroy(hot.c);
	cuckoo_destroy(hot4.c);
	cuckoo_destroy(big.c);
	if (ghosts) {
		printf("not ok 1 cuckoo_stress # %llu deleted keys found\n",
		       (unsigned long long)ghosts);
		return 1;
	}
	if (hot.bad_values + hot4.bad_values && !mutant) {
		printf("not ok 1 cuckoo_stress # %llu keys found with a value not theirs\n",
		       (unsigned long long)(hot.bad_values + hot4.bad_values));
		return 1;
	}
	if (bad) {
		printf("not ok 1 cuckoo_stress # %llu keys missing afterwards\n",
		       (unsigned long long)bad);
		return 1;
	}
	if (mutant) {
		printf("%s 1 cuckoo_stress_mutant # %llu misses, %llu in batches (expected > 0 each)\n",
		       misses && bmisses ? "ok" : "not ok",
		       (unsigned long long)misses, (unsigned long long)bmisses);
		return !(misses && bmisses);
	}
	printf("%s 1 cuckoo_stress # %llu lookups, %llu misses, %llu in batches\n",
	       misses || bmisses ? "not ok" : "ok", (unsigned long long)lookups,
	       (unsigned long long)misses, (unsigned long long)bmisses);
	return misses || bmisses;
}
