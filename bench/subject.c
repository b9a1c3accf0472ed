// SPDX-License-Identifier: GPL-2.0
/* The subjects under test behind one interface: create, insert, fill. */
#include <stdio.h>
#include <stdlib.h>

#include "bench_int.h"

bool is_nov(enum subject s)
{
	return s == S_EXACT_NOV || s == S_COMPACT_NOV;
}

/* Structures that keep full keys: no false positives, no shared entries. */
bool is_exact(enum subject s)
{
	return s == S_EXACT || s == S_EXACT_NOV || s == S_EXACT_TWIN ||
	       s == S_EXACT_TAGS || s == S_HASHSET;
}

/* Readers of another subject's table: the _NOV readers and the copy. */
bool is_reader(enum subject s)
{
	return is_nov(s) || s == S_COMPACT_CODE;
}

/* Subjects that own a filter: all but the hash set and the readers. */
bool owns_filter(enum subject s)
{
	return !is_reader(s) && s != S_HASHSET;
}

bool is_ref(enum subject s)
{
#ifdef CFILTER_REF
	return s == S_REF;
#else
	(void)s;
	return false;
#endif
}

/* Subjects that own a filter of the core. */
bool owns_cuckoo(enum subject s)
{
	return owns_filter(s) && !is_ref(s);
}

/*
 * A table of exactly 2^slot_shift slots: its capacity is the key count at
 * 95% load, and it never grows.
 */
struct cuckoo *filter_create(enum subject s, u64 slots, u32 fp_bits,
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

u64 memory_of(const struct bench *b, enum subject s)
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
u32 tag_of(u32 key)
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
unsigned int stored_or_die(enum subject s, int err)
{
	if (!err)
		return 1;
	if (err == -EEXIST && !is_exact(s))
		return 0;
	fprintf(stderr, "bench: %s: insert failed: %s\n", subject_names[s],
		strerror(-err));
	exit(1);
}

/* The readers of another subject's table follow it (S_EXACT_NOV...). */
void readers_follow(struct bench *b)
{
	b->c[S_EXACT_NOV] = b->c[S_EXACT];
	b->c[S_COMPACT_NOV] = b->c[S_COMPACT];
	b->c[S_COMPACT_CODE] = b->c[S_COMPACT];
}

/*
 * A table of 4-slot buckets fills up somewhere above 95% load: an insert
 * finds no free slot within 500 moves (the filters here never grow, and
 * the reference then keeps the last entry moved in its one-entry victim
 * cache, after which every insert fails). Fresh tables of 2^24 slots did
 * so at 95.6-95.8% load in trials, but now and then one does within a
 * run's 95% insert windows. If @err is that, a new table of subject @s (a
 * new seed, for the reference a new hash) of keys [0, @upto) replaces the
 * full one, and the caller retries; the run counts such rebuilds and
 * prints them.
 */
bool subject_full(struct bench *b, enum subject s, int err, u64 upto)
{
	u64 i;

	if (err != -ENOSPC)
		return false;
#ifdef CFILTER_REF
	if (is_ref(s)) {
		cf_ref_destroy(b->ref);
		b->ref = cf_ref_create(b->slots);
		if (!b->ref)
			die("the reference filter: out of memory");
	}
#endif
	if (owns_cuckoo(s)) {
		cuckoo_destroy(b->c[s]);
		b->c[s] = filter_create(s, b->slots, 16, rng());
		readers_follow(b);
	}
	b->stored[s] = 0;
	for (i = 0; i < upto; i++) {
		err = subject_insert(b, s, &keys[i]);
		if (err == -ENOSPC)
			die("a table filled up again after a rebuild");
		b->stored[s] += stored_or_die(s, err);
	}
	rebuilds[s]++;
	fprintf(stderr, "bench: %s was full at %llu keys: rebuilt\n",
		subject_names[s], (unsigned long long)upto);
	return true;
}

/* Inserts keys [from, to) into subject @s, untimed. */
void fill(struct bench *b, enum subject s, u64 from, u64 to)
{
	u64 i;
	int err;

	for (i = from; i < to; i++) {
		while (subject_full(b, s, err = subject_insert(b, s, &keys[i]), i))
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
double insert_window(struct bench *b, enum subject s, u64 from,
		     u64 to, bool undo)
{
	double t0, ns;
	u64 i;
	int err;

retry:
	t0 = now_ns();
	for (i = from; i < to; i++) {
		err = subject_insert(b, s, &keys[i]);
		if (subject_full(b, s, err, from))
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
