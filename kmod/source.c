// SPDX-License-Identifier: GPL-2.0
/*
 * Sources and timeouts (see source.h): the holdings of a set, and the
 * sources holding them, on one set. Listing them is source_list.c's,
 * expiring them expiry.c's; the staged sets, the copy STAGE_SOURCE fills
 * and the requests that change a set and its copy are source_stage.c's.
 *
 * A holding is recorded under the entry's packed bytes, its prefix length
 * and its source's index, in @held (permanent) or @timed (with its
 * deadline), never both, with when it was added (struct cfilter_when).
 * "Does anyone else hold this entry?" asks each
 * other source in use: at most CFILTER_SOURCES_MAX - 1 probes of a
 * writer-only map, for the delete that removes a holding.
 *
 * One holding goes unrecorded: an entry in the tables with no record at
 * all is held by "default" alone, permanently. So a set that never names a
 * source or a timeout costs what it did before sources existed; the first
 * other holding of such an entry records default's beside its own (not
 * knowing since when).
 *
 * A source's drop count lasts until the module goes: a source that holds
 * nothing any more keeps its index, name and count while the count is not
 * 0 (an "emptied" source), and a replaced set hands its sources' counts to
 * the next (cfilter_hold_carry()). That takes no memory beyond the
 * CFILTER_SOURCES_MAX indexes: a new source that finds none free takes
 * that of the emptied source that dropped least, whose count is lost. So
 * counts last until the module goes while no more than
 * CFILTER_SOURCES_MAX sources ("default" included) hold entries or have
 * dropped packets; past that, those that dropped least go first.
 */
#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <cfilter/source_name.h>

#include "mirror.h"
#include "prefilter.h"
#include "set.h"
#include "source.h"
#include "source_int.h"

/**
 * cfilter_source_check() - is @name a source name a request may carry?
 * @name: CFILTER_SOURCE_LEN bytes from userspace
 *
 * Return: 0, or -EINVAL: no NUL, bytes after it not zero, a character
 * outside [A-Za-z0-9_.:@-], or a leading '-'. "" (default) is fine.
 */
int cfilter_source_check(const char name[CFILTER_SOURCE_LEN])
{
	size_t n = strnlen(name, CFILTER_SOURCE_LEN), i;

	if (n == CFILTER_SOURCE_LEN || name[0] == '-' ||
	    memchr_inv(name + n, 0, CFILTER_SOURCE_LEN - n))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!cfilter_source_char(name[i]))
			return -EINVAL;
	return 0;
}

/**
 * cfilter_deadline() - when a holding added now with @timeout expires
 * @timeout: seconds, 0 for never
 *
 * Rounded up to the second, so a holding lasts at least @timeout and is
 * gone at most a second later.
 *
 * Return: the deadline in seconds of boot time, or 0 (permanent).
 */
u32 cfilter_deadline(u32 timeout)
{
	if (!timeout)
		return 0;
	return DIV_ROUND_UP_ULL(ktime_get_boottime_ns() +
				(u64)timeout * NSEC_PER_SEC, NSEC_PER_SEC);
}

/**
 * cfilter_added() - when a holding added @age seconds ago began
 * @age: seconds, or CFILTER_AGE_UNKNOWN
 *
 * Return: seconds since the epoch, 0 if not known.
 */
u32 cfilter_added(u32 age)
{
	time64_t now = ktime_get_real_seconds();

	if (age == CFILTER_AGE_UNKNOWN || now <= age || now > U32_MAX)
		return 0;
	return now - age;
}

/**
 * cfilter_age() - seconds since a holding began
 * @added: when (struct cfilter_when)
 *
 * Return: the age, 0 if the clock was set back since, or
 * CFILTER_AGE_UNKNOWN if @added is 0.
 */
u32 cfilter_age(u32 added)
{
	time64_t now = ktime_get_real_seconds();

	if (!added)
		return CFILTER_AGE_UNKNOWN;
	return now > added ? min_t(time64_t, now - added,
				   CFILTER_AGE_UNKNOWN - 1) : 0;
}

/* The index of source @name in @h, or -ENOENT. */
int cfilter_source_find(const struct cfilter_holds *h, const char *name)
{
	unsigned int i;

	if (cfilter_is_default(name))
		return 0;
	for (i = 1; i < CFILTER_SOURCES_MAX; i++)
		if ((h->active & BIT(i)) &&
		    !strncmp(h->names[i], name, CFILTER_SOURCE_LEN))
			return i;
	return -ENOENT;
}

/**
 * cfilter_source_drops() - packets the entries of a source dropped
 * @s:  the set (caller holds cfilter_lock)
 * @id: the source's index
 *
 * Return: the count while @s was live, and before in the sets it replaced.
 */
u64 cfilter_source_drops(const struct cfilter_set *s, unsigned int id)
{
	u64 n = s->drops_base[id];
	int cpu;

	/* compact mode's drops are "default"'s, the programs' mirrors' too */
	if (!id)
		n += cfilter_mirror_drops(s);
	for_each_possible_cpu(cpu)
		n += per_cpu_ptr(s->drops, cpu)->n[id];
	return n;
}

/*
 * The index a new source of @s takes, and what it counted so far into
 * *@drops: a free index, else that of the emptied source (kept for its
 * count) that dropped least, which the new one replaces; -EUSERS if every
 * source holds something. Changes nothing.
 */
static int cfilter_source_room(const struct cfilter_set *s, u64 *drops)
{
	const struct cfilter_holds *h = &s->holds;
	int i, best = -EUSERS;
	u64 n;

	if (h->active != GENMASK(CFILTER_SOURCES_MAX - 1, 0)) {
		i = ffz(h->active);
		*drops = cfilter_source_drops(s, i);
		return i;
	}
	for (i = 1; i < CFILTER_SOURCES_MAX; i++) {
		if (h->entries[i])
			continue;
		n = cfilter_source_drops(s, i);
		if (best < 0 || n < *drops) {
			best = i;
			*drops = n;
		}
	}
	return best;
}

/*
 * Source @name comes to be at index @i, which cfilter_source_room() gave
 * when the index had counted @before drops: the count starts from what it
 * counted since, for the new source's entries.
 */
static void cfilter_source_make(struct cfilter_set *s, unsigned int i,
				const char *name, u64 before)
{
	strscpy(s->holds.names[i], name, CFILTER_SOURCE_LEN);
	s->holds.active |= BIT(i);
	s->drops_base[i] -= before;
}

/*
 * A source other than "default" exists while it holds something, and
 * after that while its count of drops is not 0, so that the count lasts
 * (until the module goes, or a new source needs the index). One that
 * never dropped goes with its last holding: it comes back at 0 anyway.
 */
static void cfilter_source_put(struct cfilter_set *s, unsigned int i)
{
	struct cfilter_holds *h = &s->holds;

	if (i && !h->entries[i] && !cfilter_source_drops(s, i)) {
		h->active &= ~BIT(i);
		memset(h->names[i], 0, CFILTER_SOURCE_LEN);
	}
}

/**
 * cfilter_source_keep() - give @s an emptied source, with its count
 * @s:     the set (caller holds cfilter_lock); it has no source @name
 * @name:  the source
 * @drops: what it counted, not 0
 *
 * At a free index, or in place of an emptied source that dropped less
 * (see cfilter_source_room()); if there is none, the count is lost.
 */
void cfilter_source_keep(struct cfilter_set *s, const char *name, u64 drops)
{
	u64 had;
	int i = cfilter_source_room(s, &had);

	/* An emptied source that counted as much stays. */
	if (i < 0 || ((s->holds.active & BIT(i)) && had >= drops))
		return;
	cfilter_source_make(s, i, name, had);
	s->drops_base[i] += drops;
}

/* The holding key of @k by source @id. */
static void cfilter_hold_key(const struct cfilter_packed *k, unsigned int id,
			     u8 *hk)
{
	u32 kl = k->f->key_len;

	memcpy(hk, k->bytes, kl);
	hk[kl] = k->len;
	hk[kl + 1] = id;
}

/* Is the entry of holding key @hk held by a source other than its own? */
static bool cfilter_held_elsewhere(const struct cfilter_holds *h,
				   unsigned int t, u8 *hk, u32 kl)
{
	unsigned long others = h->active & ~BIT(hk[kl + 1]);
	unsigned int id = hk[kl + 1], i;
	bool held = false;

	for_each_set_bit(i, &others, CFILTER_SOURCES_MAX) {
		hk[kl + 1] = i;
		held = keymap_get(&h->held[t], hk, NULL) ||
		       keymap_get(&h->timed[t], hk, NULL);
		if (held)
			break;
	}
	hk[kl + 1] = id;
	return held;
}

/*
 * Gives the entry of holding key @hk (of key type @f) its tag: the lowest
 * index holding it by a record, or "default"'s 0 if none does.
 */
static void cfilter_retag(struct cfilter_set *s, const struct cfilter_ktype *f,
			  u8 *hk)
{
	const struct cfilter_holds *h = &s->holds;
	unsigned int t = cfilter_ktype_type(f), kl = f->key_len;
	unsigned long ids = h->active;
	unsigned int id = hk[kl + 1], i, tag = 0;

	for_each_set_bit(i, &ids, CFILTER_SOURCES_MAX) {
		hk[kl + 1] = i;
		if (keymap_get(&h->held[t], hk, NULL) ||
		    keymap_get(&h->timed[t], hk, NULL)) {
			tag = i;
			break;
		}
	}
	hk[kl + 1] = id;
	WARN_ON_ONCE(cfilter_set_retag(s, f, hk, hk[kl], tag));
}

/*
 * Moves the present holding @hk between permanent and timed as @w says,
 * or sets its deadline; @w.added is the record's. Nothing changes on error.
 */
static int cfilter_hold_retime(struct cfilter_holds *h, unsigned int t,
			       const u8 *hk, bool timed, struct cfilter_when w)
{
	unsigned int id = hk[h->held[t].key_len - 1];
	int err;

	if (!w.deadline && !timed)
		return 0;
	err = cfilter_record_put(h, t, hk, w);
	if (err || (w.deadline && timed))
		return err;
	if (w.deadline) {
		keymap_del(&h->held[t], hk);
		h->ntimed[id]++;
	} else {
		keymap_del(&h->timed[t], hk);
		h->ntimed[id]--;
	}
	h->moves[t]++;
	return 0;
}

/*
 * Does any source hold the entry of @hk by a record? If none does and the
 * tables have it, "default" holds it, unrecorded.
 */
static bool cfilter_recorded(const struct cfilter_holds *h, unsigned int t,
			     u8 *hk, u32 kl)
{
	return keymap_get(&h->held[t], hk, NULL) ||
	       keymap_get(&h->timed[t], hk, NULL) ||
	       cfilter_held_elsewhere(h, t, hk, kl);
}

/* Does "default" hold @k without a record? Caller holds cfilter_lock. */
static bool cfilter_unrecorded(const struct cfilter_set *s,
			       const struct cfilter_packed *k)
{
	u8 hk[KEYMAP_KEY_MAX];
	bool in;

	cfilter_hold_key(k, 0, hk);
	if (cfilter_recorded(&s->holds, cfilter_ktype_type(k->f), hk,
			     k->f->key_len))
		return false;
	rcu_read_lock();
	in = cfilter_set_contains(s, k->f, k->bytes, k->len);
	rcu_read_unlock();
	return in;
}

/*
 * Records default's holding of the entry of @hk, which it held unrecorded,
 * permanent or with @deadline: since when, nobody knows.
 */
static int cfilter_record_default(struct cfilter_holds *h, unsigned int t,
				  u8 *hk, u32 kl, u32 deadline)
{
	struct cfilter_when w = { .deadline = deadline };
	unsigned int id = hk[kl + 1];
	int err;

	hk[kl + 1] = 0;
	err = cfilter_record_put(h, t, hk, w);
	hk[kl + 1] = id;
	if (err)
		return err;
	/* A listing finds it among the records now, no longer the tables. */
	h->moves[t]++;
	if (deadline)
		h->ntimed[0]++;
	return 0;
}

/*
 * The tables of @s gain or lose a key: a change of the live set reaches
 * the programs' prefilter before the lock is dropped (see prefilter.c).
 */
static int cfilter_table_add(struct cfilter_set *s,
			     const struct cfilter_ktype *f, const u8 *packed,
			     u32 len, u32 tag)
{
	int err = cfilter_set_insert(s, f, packed, len, tag);

	/* compact: -EEXIST may be another key's fingerprint (set.c) */
	if ((!err || (err == -EEXIST && !cfilter_exact())) &&
	    s == cfilter_live_locked())
		cfilter_prefilter_changed(s, cfilter_ktype_type(f), packed, len,
					  true);
	return err;
}

static int cfilter_table_del(struct cfilter_set *s,
			     const struct cfilter_ktype *f, const u8 *packed,
			     u32 len)
{
	int err = cfilter_set_delete(s, f, packed, len);

	if (!err && s == cfilter_live_locked())
		cfilter_prefilter_changed(s, cfilter_ktype_type(f), packed, len,
					  false);
	return err;
}

/* Compact mode's one holder: "default", permanent, unrecorded. */
static int cfilter_compact_ok(const char *source, u32 deadline)
{
	return source && cfilter_is_default(source) && !deadline ?
	       0 : -EOPNOTSUPP;
}

/*
 * cfilter_hold_add() on @s alone. A new source takes its index once the
 * holding is made, so that a failed add leaves none behind, and the
 * emptied source whose index it takes (if any) as it was. A holding with
 * @w.deadline is there on 0 and -EEXIST: the caller tells expiry. A
 * holding @source had keeps when it was added.
 */
int cfilter_hold_add_one(struct cfilter_set *s, const struct cfilter_packed *k,
			 const char *source, struct cfilter_when w)
{
	struct cfilter_holds *h = &s->holds;
	unsigned int t = cfilter_ktype_type(k->f);
	u32 kl = k->f->key_len, deadline = w.deadline;
	u8 hk[KEYMAP_KEY_MAX];
	struct cfilter_when had_w;
	bool inserted, fresh;
	int id, err;
	u64 had;

	if (!cfilter_exact()) {
		err = cfilter_compact_ok(source, deadline);
		return err ? err : cfilter_table_add(s, k->f, k->bytes, k->len,
						     0);
	}
	id = cfilter_source_find(h, source);
	fresh = id < 0;
	if (fresh)
		id = cfilter_source_room(s, &had);
	if (id < 0)
		return id;
	cfilter_hold_key(k, id, hk);
	if (cfilter_record_get(h, t, hk, &had_w)) {
		w.added = had_w.added;
		err = cfilter_hold_retime(h, t, hk, had_w.deadline, w);
		return err ? err : -EEXIST;
	}

	/* In the tables already if another source holds it. */
	err = cfilter_table_add(s, k->f, k->bytes, k->len, id);
	if (err && err != -EEXIST)
		return err;
	inserted = !err;
	if (inserted && !id && !deadline) {
		h->entries[0]++;
		return 0;
	}
	if (!inserted && !cfilter_recorded(h, t, hk, kl)) {
		/* Held by "default", unrecorded: recorded from now on. */
		if (!id && !deadline)
			return -EEXIST;
		err = cfilter_record_default(h, t, hk, kl, id ? 0 : deadline);
		if (err)
			return err;
		if (!id)
			return -EEXIST;
	}
	err = cfilter_record_put(h, t, hk, w);
	if (err) {
		if (inserted)
			WARN_ON_ONCE(cfilter_table_del(s, k->f, k->bytes,
						       k->len));
		return err;
	}
	if (fresh)
		cfilter_source_make(s, id, source, had);
	h->entries[id]++;
	if (deadline)
		h->ntimed[id]++;
	if (!inserted)
		cfilter_retag(s, k->f, hk);
	return 0;
}

/*
 * Removes the recorded holding @hk of key type @f, and its entry from the
 * tables if no other source holds it. Return: 0, or -ENOENT (no record).
 */
int cfilter_unhold(struct cfilter_set *s, const struct cfilter_ktype *f,
		   u8 *hk)
{
	struct cfilter_holds *h = &s->holds;
	unsigned int t = cfilter_ktype_type(f), id = hk[f->key_len + 1];

	if (keymap_del(&h->timed[t], hk))
		h->ntimed[id]--;
	else if (!keymap_del(&h->held[t], hk))
		return -ENOENT;
	h->entries[id]--;
	if (!cfilter_held_elsewhere(h, t, hk, f->key_len))
		WARN_ON_ONCE(cfilter_table_del(s, f, hk, hk[f->key_len]));
	else
		cfilter_retag(s, f, hk);
	cfilter_source_put(s, id);
	return 0;
}

/* Removes default's unrecorded holding of @k, and so the entry. */
static int cfilter_unhold_default(struct cfilter_set *s,
				  const struct cfilter_packed *k)
{
	int err = cfilter_table_del(s, k->f, k->bytes, k->len);

	if (!err)
		s->holds.entries[0]--;
	return err;
}

/*
 * cfilter_hold_del() on @s alone; with @source NULL (every source), the
 * holding of source @keep (if not NULL) stays.
 */
int cfilter_hold_del_one(struct cfilter_set *s, const struct cfilter_packed *k,
			 const char *source, const char *keep)
{
	struct cfilter_holds *h = &s->holds;
	unsigned long ids = h->active;
	u8 hk[KEYMAP_KEY_MAX];
	unsigned int i;
	int id, err = -ENOENT, kept = keep ? cfilter_source_find(h, keep) : -1;

	if (!cfilter_exact()) {
		if (source && !cfilter_is_default(source))
			return -EOPNOTSUPP;
		return cfilter_table_del(s, k->f, k->bytes, k->len);
	}
	if (source) {
		id = cfilter_source_find(h, source);
		if (id < 0)
			return id;
		cfilter_hold_key(k, id, hk);
		err = cfilter_unhold(s, k->f, hk);
		if (err && !id && cfilter_unrecorded(s, k))
			err = cfilter_unhold_default(s, k);
		return err;
	}
	if (kept >= 0)
		ids &= ~BIT(kept);
	for_each_set_bit(i, &ids, CFILTER_SOURCES_MAX) {
		cfilter_hold_key(k, i, hk);
		if (!cfilter_unhold(s, k->f, hk))
			err = 0;
	}
	if (err && kept && cfilter_unrecorded(s, k))
		err = cfilter_unhold_default(s, k);
	return err;
}

/*
 * Walks up to @max entries of type @f's tables from *@pos: returns how many
 * it walked (0 at the end, -EAGAIN if it found none in the slots it looked
 * at, as cfilter_set_list()), and puts those "default" holds unrecorded in
 * @b->keys, their number in *@n. Positions stay valid while
 * cfilter_set_list_gen() does not change. Caller holds cfilter_lock.
 */
long cfilter_walk_unrecorded(const struct cfilter_set *s,
			     const struct cfilter_ktype *f, u64 *pos,
			     u32 max, struct cfilter_walk_buf *b, u32 *n)
{
	unsigned int t = cfilter_ktype_type(f);
	u32 step = cfilter_set_list_step(f);
	struct cfilter_key key;
	u8 hk[KEYMAP_KEY_MAX];
	long walked, i;

	max = min_t(u32, max, CFILTER_WALK_CHUNK);
	walked = cfilter_set_list(s, f, pos, b->raw, max);
	*n = 0;
	for (i = 0; i < walked; i++) {
		const u8 *in = b->raw + i * step;
		struct cfilter_packed *p = &b->keys[*n];

		cfilter_key_unpack(f, in, f->addr_len ? in[f->addr_len] : 0, &key);
		p->f = f;
		if (WARN_ON_ONCE(cfilter_key_pack(f, &key, p->bytes, &p->len)))
			continue;
		cfilter_hold_key(p, 0, hk);
		if (!cfilter_recorded(&s->holds, t, hk, f->key_len))
			(*n)++;
	}
	return walked;
}

/* Removes every unrecorded holding of "default": its whole share. */
static int cfilter_flush_unrecorded(struct cfilter_set *s)
{
	const struct cfilter_ktype *f;
	struct cfilter_walk_buf *b;
	u64 pos, gen;
	u32 n, i;

	b = kmalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	for (f = cfilter_ktype_first(); f; f = cfilter_ktype_next(f)) {
		pos = 0;
		gen = cfilter_set_list_gen(s, f);
		while (cfilter_walk_unrecorded(s, f, &pos, CFILTER_WALK_CHUNK,
					       b, &n) != 0) {
			for (i = 0; i < n; i++)
				cfilter_unhold_default(s, &b->keys[i]);
			/* A delete may lay the tables out anew: walk again. */
			if (cfilter_set_list_gen(s, f) != gen) {
				pos = 0;
				gen = cfilter_set_list_gen(s, f);
			}
			cond_resched();
		}
	}
	kfree(b);
	return 0;
}

/*
 * The next record's holding key, and its times into *@w (if not NULL);
 * NULL at the end. Records may be deleted meanwhile. May sleep: a walk
 * over many empty slots lets the scheduler in.
 */
const u8 *cfilter_hold_next(struct cfilter_hold_iter *it,
			    struct cfilter_when *w)
{
	const struct keymap *m;
	const u8 *key;
	u64 val;

	for (;;) {
		m = it->timed ? &it->h->timed[it->t] : &it->h->held[it->t];
		key = keymap_next(m, &it->pos, &val);
		if (key) {
			if (w)
				*w = cfilter_when_of(it->timed, val);
			return key;
		}
		if (!keymap_walked(m, it->pos)) {
			cond_resched();
			continue;
		}
		if (it->timed)
			return NULL;
		it->timed = true;
		it->pos = 0;
	}
}

/* cfilter_hold_flush() on @s alone. */
int cfilter_hold_flush_one(struct cfilter_set *s, const char *source)
{
	struct cfilter_holds *h = &s->holds;
	const struct cfilter_ktype *f;
	u8 hk[KEYMAP_KEY_MAX];
	const u8 *key;
	int id;

	if (!cfilter_exact())
		return -EOPNOTSUPP;
	id = cfilter_source_find(h, source);
	if (id < 0)
		return id;
	for (f = cfilter_ktype_first(); f; f = cfilter_ktype_next(f)) {
		u32 len = CFILTER_HOLD_KEY_LEN(f->key_len);
		unsigned int t = cfilter_ktype_type(f);
		struct cfilter_hold_iter it = { .h = h, .t = t };

		while ((key = cfilter_hold_next(&it, NULL))) {
			if (key[len - 1] != id)
				continue;
			memcpy(hk, key, len);
			cfilter_unhold(s, f, hk);
			if (!(it.pos & 0x3ff))
				cond_resched();
		}
		keymap_shrink(&h->held[t]);
		keymap_shrink(&h->timed[t]);
	}
	return id ? 0 : cfilter_flush_unrecorded(s);
}

/**
 * cfilter_hold_test() - does @source hold @k?
 * @s:      the set (caller holds cfilter_lock)
 * @k:      the entry
 * @source: the source's name, checked
 *
 * Return: 0 if it does; -ENOENT; -EOPNOTSUPP.
 */
int cfilter_hold_test(struct cfilter_set *s, const struct cfilter_packed *k,
		      const char *source)
{
	struct cfilter_holds *h = &s->holds;
	unsigned int t = cfilter_ktype_type(k->f);
	u8 hk[KEYMAP_KEY_MAX];
	bool held;
	int id;

	if (!cfilter_exact()) {
		if (!cfilter_is_default(source))
			return -EOPNOTSUPP;
		rcu_read_lock();
		held = cfilter_set_contains(s, k->f, k->bytes, k->len);
		rcu_read_unlock();
		return held ? 0 : -ENOENT;
	}
	id = cfilter_source_find(h, source);
	if (id < 0)
		return id;
	cfilter_hold_key(k, id, hk);
	held = keymap_get(&h->held[t], hk, NULL) ||
	       keymap_get(&h->timed[t], hk, NULL) ||
	       (!id && cfilter_unrecorded(s, k));
	return held ? 0 : -ENOENT;
}
