// SPDX-License-Identifier: GPL-2.0
/*
 * Listing a set's holdings (LIST with a source, and SOURCES): a part per
 * call, the recorded holdings first, then those "default" holds unrecorded,
 * found by walking the tables; and the drop counts a set's sources carry
 * over when it is replaced.
 */
#include <linux/bitops.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "set.h"
#include "source.h"
#include "source_int.h"

/*
 * Where a listing is: the permanent records, the timed ones (this bit), or
 * the tables' unrecorded entries (this bit, above any table position).
 */
#define CFILTER_HOLD_POS_TIMED		BIT_ULL(52)
#define CFILTER_HOLD_POS_IMPLICIT	BIT_ULL(53)
#define CFILTER_HOLD_POS_PHASE		(CFILTER_HOLD_POS_TIMED | \
					 CFILTER_HOLD_POS_IMPLICIT)

/*
 * Slots of the records, or entries of the tables, one call of
 * cfilter_hold_list() looks at (its last step may pass a few more): a
 * step of the tables' walk that finds no entry in the slots it looks at
 * (a bounded number: see cuckoo_list()) counts as CFILTER_WALK_CHUNK.
 * However few holdings a listing reports, as one of a source that holds
 * little among others that hold much, or of a table that deletes emptied,
 * its caller holds the writer lock no longer than that at a time.
 */
#define CFILTER_LIST_VISITS		2048

/*
 * The layout generation a listing of type @f is walking (40 bits): the
 * records', and in the last phase the tables' as well. A holding that
 * moves from one phase to another (struct cfilter_holds' @moves) counts
 * too: it may land in a phase already walked, and be missed, or in one
 * still ahead, and be listed twice.
 */
static u64 cfilter_list_layout(const struct cfilter_set *s,
			       const struct cfilter_ktype *f, bool tables)
{
	unsigned int t = cfilter_ktype_type(f);
	u64 gen = keymap_gen(&s->holds.held[t]) +
		  keymap_gen(&s->holds.timed[t]) + s->holds.moves[t];

	if (tables)
		gen += cfilter_set_list_gen(s, f) << 20;
	return gen & GENMASK_ULL(39, 0);
}

/* Whole seconds from @now (ns of boot time) to @deadline; at least 1. */
static u32 cfilter_secs_left(u32 deadline, u64 now)
{
	u64 at = (u64)deadline * NSEC_PER_SEC;

	return at > now + NSEC_PER_SEC ? div_u64(at - now, NSEC_PER_SEC) : 1;
}

/*
 * Fills @e with @key's holding by source @name, @left seconds left, added
 * at @added (0: not recorded).
 */
static void cfilter_entry(struct cfilter_entry *e,
			  const struct cfilter_ktype *f, const u8 *bytes,
			  u32 len, u32 left, u32 added, const char *name)
{
	memset(e, 0, sizeof(*e));
	cfilter_key_unpack(f, bytes, len, &e->key);
	e->timeout = left;
	e->age = cfilter_age(added);
	strscpy(e->source, name, CFILTER_SOURCE_LEN);
}

/*
 * The unrecorded phase of cfilter_hold_list(), looking at up to *@budget
 * table entries (less what it looked at).
 */
static long cfilter_list_unrecorded(struct cfilter_set *s,
				    const struct cfilter_ktype *f, u64 *pos,
				    struct cfilter_entry *out, u32 max,
				    long *budget)
{
	struct cfilter_walk_buf *b = kmalloc(sizeof(*b), GFP_KERNEL);
	u64 p = *pos & ~CFILTER_HOLD_POS_PHASE;
	long n = 0, walked;
	u32 got, i;

	if (!b)
		return -ENOMEM;
	while (n < max && *budget > 0) {
		walked = cfilter_walk_unrecorded(s, f, &p, max - n, b, &got);
		if (!walked)
			break;
		/* None found: it looked at a stretch of empty slots. */
		*budget -= walked > 0 ? walked : CFILTER_WALK_CHUNK;
		for (i = 0; i < got; i++, n++)
			cfilter_entry(&out[n], f, b->keys[i].bytes,
				      b->keys[i].len, 0, 0, "default");
	}
	*pos = p | CFILTER_HOLD_POS_IMPLICIT;
	kfree(b);
	return n;
}

/*
 * The record phases of cfilter_hold_list(): up to @max holdings of source
 * @id (-1: every source), looking at up to *@budget slots of the records
 * (less what it looked at). Stops early at the end of the timed records
 * for a source other than "default", the type's end for it.
 */
static long cfilter_list_records(struct cfilter_set *s,
				 const struct cfilter_ktype *f, int id,
				 u64 *pos, u64 *gen, struct cfilter_entry *out,
				 u32 max, long *budget)
{
	struct cfilter_holds *h = &s->holds;
	unsigned int t = cfilter_ktype_type(f);
	u64 now = ktime_get_boottime_ns(), val;
	u32 kl = f->key_len;
	long n = 0;

	while (n < max && *budget > 0 && !(*pos & CFILTER_HOLD_POS_IMPLICIT)) {
		bool timed = *pos & CFILTER_HOLD_POS_TIMED;
		u64 p = *pos & ~CFILTER_HOLD_POS_PHASE, from = p;
		const struct keymap *m = timed ? &h->timed[t] : &h->held[t];
		struct cfilter_when w;
		const u8 *key;

		key = keymap_next(m, &p, &val);
		*budget -= p - from;
		if (!key && !keymap_walked(m, p)) {
			*pos = p | (timed ? CFILTER_HOLD_POS_TIMED : 0);
			continue;
		}
		if (!key) {
			if (timed && id > 0)
				return n;
			/* "default"'s unrecorded holdings come last. */
			*pos = timed ? CFILTER_HOLD_POS_IMPLICIT :
				       CFILTER_HOLD_POS_TIMED;
			if (timed)
				*gen = cfilter_list_layout(s, f, true);
			continue;
		}
		*pos = p | (timed ? CFILTER_HOLD_POS_TIMED : 0);
		if (id >= 0 && key[kl + 1] != id)
			continue;
		w = cfilter_when_of(timed, val);
		cfilter_entry(&out[n++], f, key, key[kl],
			      timed ? cfilter_secs_left(w.deadline, now) : 0,
			      w.added, h->names[key[kl + 1]]);
	}
	return n;
}

/**
 * cfilter_hold_list() - holdings of type @f, a part per call
 * @s:      the set (caller holds cfilter_lock)
 * @f:      the key type
 * @source: the source whose holdings to list, NULL for all
 * @pos:    0 to start, advanced
 * @gen:    0 to start; the layout the listing walks (40 bits), which must
 *          not change between calls
 * @out:    room for @max entries
 * @max:    room
 *
 * Looks at about CFILTER_LIST_VISITS records or table entries, however
 * few of them it lists, so that the caller can let go of cfilter_lock
 * between two calls however many holdings of other sources there are.
 *
 * Return: entries written, 0 at the type's end; -EAGAIN (none found among
 * those it looked at: call again from @pos); -ENOENT (no such source);
 * -ESTALE (the walk's layout changed: start again); -ENOMEM.
 */
long cfilter_hold_list(struct cfilter_set *s, const struct cfilter_ktype *f,
		       const char *source, u64 *pos, u64 *gen,
		       struct cfilter_entry *out, u32 max)
{
	long budget = CFILTER_LIST_VISITS, n, more = 0;
	int id = -1;

	if (source) {
		id = cfilter_source_find(&s->holds, source);
		if (id < 0)
			return id;
	}
	if (!*pos)
		*gen = cfilter_list_layout(s, f, false);
	else if (*gen != cfilter_list_layout(s, f,
					     *pos & CFILTER_HOLD_POS_IMPLICIT))
		return -ESTALE;
	n = cfilter_list_records(s, f, id, pos, gen, out, max, &budget);
	if (n < max && (*pos & CFILTER_HOLD_POS_IMPLICIT))
		more = cfilter_list_unrecorded(s, f, pos, out + n, max - n,
					       &budget);
	if (more < 0)
		return more;
	n += more;
	/* Out of budget before the end: not the end. */
	return n || budget > 0 ? n : -EAGAIN;
}

/**
 * cfilter_hold_sources() - the sources of @s and what they hold
 * @s:   the set (caller holds cfilter_lock)
 * @out: filled in; "default" first
 */
void cfilter_hold_sources(struct cfilter_set *s, struct cfilter_sources *out)
{
	struct cfilter_holds *h = &s->holds;
	unsigned int i, t;

	out->count = 0;
	for (i = 0; i < CFILTER_SOURCES_MAX; i++) {
		struct cfilter_source_info *si = &out->sources[out->count];

		if (!(h->active & BIT(i)))
			continue;
		memset(si, 0, sizeof(*si));
		strscpy(si->name, h->names[i], CFILTER_SOURCE_LEN);
		si->entries = h->entries[i];
		si->timed = h->ntimed[i];
		si->drops = cfilter_source_drops(s, i);
		out->count++;
	}
	/* Compact mode keeps no holdings: every entry is default's. */
	if (!cfilter_exact())
		for (t = 0; t < __CFILTER_KEY_MAX; t++)
			out->sources[0].entries += s->nkeys[t];
}

/**
 * cfilter_hold_carry() - carry drop counts over from a set no longer live
 * @to:   the live set, or NULL (caller holds cfilter_lock)
 * @from: the set it replaced, which no reader can count in any more
 *
 * Each source of @from keeps its count: added to that of the source of
 * the same name in @to, or, if @to has none and the count is not 0, as an
 * emptied source of @to (see cfilter_source_keep()). So a count outlives
 * CLEAR and replaces, as it outlives the source holding nothing.
 */
void cfilter_hold_carry(struct cfilter_set *to, const struct cfilter_set *from)
{
	unsigned long ids = from->holds.active;
	const char *name;
	unsigned int i;
	u64 n;
	int j;

	if (!to)
		return;
	for_each_set_bit(i, &ids, CFILTER_SOURCES_MAX) {
		name = from->holds.names[i];
		n = cfilter_source_drops(from, i);
		j = cfilter_source_find(&to->holds, name);
		if (j >= 0)
			to->drops_base[j] += n;
		else if (n)
			cfilter_source_keep(to, name, n);
	}
}
