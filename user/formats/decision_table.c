// SPDX-License-Identifier: GPL-2.0
/*
 * The CrowdSec decisions in force, by key (decision_table.h). Linear
 * probing over a power-of-two array; a removal moves the entries after it
 * back (Knuth's algorithm R), so a lookup stops at the first free slot and
 * there are no deleted markers to sweep.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/decision_table.h"

#define MIN_CAP	64

/* FNV-1a over the whole key: cfctl zeroes what a key type leaves unused. */
static size_t key_hash(const struct cfilter_key *key)
{
	const unsigned char *p = (const unsigned char *)key;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < sizeof(*key); i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h ^ h >> 32;
}

void dt_init(struct decision_table *t, size_t max)
{
	memset(t, 0, sizeof(*t));
	t->max = max;
}

void dt_free(struct decision_table *t)
{
	free(t->slots);
	dt_init(t, t->max);
}

/* The slot of @key, or the free slot where it would go. */
static size_t dt_slot(const struct decision_table *t,
		      const struct cfilter_key *key)
{
	size_t mask = t->cap - 1, i = key_hash(key) & mask;

	while (t->slots[i].used && memcmp(&t->slots[i].key, key, sizeof(*key)))
		i = (i + 1) & mask;
	return i;
}

struct dt_entry *dt_find(const struct decision_table *t,
			 const struct cfilter_key *key)
{
	size_t i;

	if (!t->cap)
		return NULL;
	i = dt_slot(t, key);
	return t->slots[i].used ? &t->slots[i] : NULL;
}

/* Is @e wanted still: deleted but not yet in cfilter, or in force? */
static bool dt_wanted(const struct dt_entry *e, int now)
{
	return e->gone || dt_until(e) > now;
}

/*
 * Moves the entries into @cap slots, keeping only those in force at @now
 * (all if @now is negative). Returns 0, or -1 out of memory (@t as it was).
 */
static int dt_rebuild(struct decision_table *t, size_t cap, int now)
{
	struct dt_entry *old = t->slots;
	size_t i, old_cap = t->cap;

	t->slots = calloc(cap, sizeof(*t->slots));
	if (!t->slots) {
		t->slots = old;
		return -1;
	}
	t->cap = cap;
	t->n = 0;
	for (i = 0; i < old_cap; i++) {
		if (!old[i].used || (now >= 0 && !dt_wanted(&old[i], now)))
			continue;
		t->slots[dt_slot(t, &old[i].key)] = old[i];
		t->n++;
	}
	free(old);
	return 0;
}

/* Room for one more key, at most 3/4 of the slots used. */
static int dt_make_room(struct decision_table *t, int now)
{
	size_t cap = t->cap ? t->cap : MIN_CAP;

	if (t->n >= t->max) {
		/* The ended ones make room, if any ended. */
		if (dt_rebuild(t, t->cap, now) || t->n >= t->max)
			return -1;
	}
	while ((t->n + 1) * 4 > cap * 3)
		cap *= 2;
	if (cap == t->cap)
		return 0;
	return dt_rebuild(t, cap, -1);
}

struct dt_entry *dt_get(struct decision_table *t,
			const struct cfilter_key *key, int now)
{
	struct dt_entry *e = dt_find(t, key);

	if (e)
		return e;
	if (dt_make_room(t, now))
		return NULL;
	e = &t->slots[dt_slot(t, key)];
	memset(e, 0, sizeof(*e));
	e->key = *key;
	e->used = true;
	t->n++;
	return e;
}

/* Is @home cyclically in (@hole, @i]: must the entry at @i stay after @hole? */
static bool stays(size_t home, size_t hole, size_t i)
{
	return hole < i ? home > hole && home <= i : home > hole || home <= i;
}

void dt_drop(struct decision_table *t, struct dt_entry *e)
{
	size_t mask = t->cap - 1, hole = e - t->slots, i = hole;

	t->n--;
	for (;;) {
		t->slots[hole].used = false;
		do {
			i = (i + 1) & mask;
			if (!t->slots[i].used)
				return;
		} while (stays(key_hash(&t->slots[i].key) & mask, hole, i));
		t->slots[hole] = t->slots[i];
		hole = i;
	}
}

int dt_until(const struct dt_entry *e)
{
	int until = 0;
	size_t i;

	for (i = 0; i < DECISION_TYPES_MAX; i++)
		if (e->until[i] > until)
			until = e->until[i];
	return until;
}

void dt_sweep(struct decision_table *t, int now)
{
	size_t mask = t->cap - 1, start = 0, k, i;
	struct dt_entry *e;

	if (!t->n)
		return;
	/*
	 * From a free slot round to it: a drop moves entries of the same run
	 * back into the hole, so the slot just dropped is looked at again and
	 * no entry moves past the walk.
	 */
	while (t->slots[start].used)
		start++;
	for (k = 1; k < t->cap; k++) {
		i = (start + k) & mask;
		e = &t->slots[i];
		while (e->used && (e->gone || dt_until(e) <= now))
			dt_drop(t, e);
	}
}
