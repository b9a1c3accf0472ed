// SPDX-License-Identifier: GPL-2.0
/*
 * Staged sets, and the copy of the live set that STAGE_SOURCE fills: a
 * staged set's holdings expire while it waits (expiry.c walks the list),
 * and the copy follows every change made to the live set's other sources
 * until COMMIT or ABORT, so that it goes live with them or, if it missed
 * one, not at all. So the changes a request makes to a set's holdings,
 * ADD, DEL and FLUSH, are made here: to the set, then to the copy (their
 * work on one set is source.c's), and expiry is told of new deadlines.
 */
#include <linux/err.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "set.h"
#include "source.h"
#include "source_int.h"

/*
 * The copy STAGE_SOURCE made, which every change of the live set is made
 * to as well until COMMIT or ABORT, but those of the source it replaces,
 * @cfilter_copy_of; NULL if none. Under cfilter_lock.
 */
static struct cfilter_set *cfilter_copy;
static char cfilter_copy_of[CFILTER_SOURCE_LEN];

/*
 * The copy a change to @s of @source's holdings (NULL: every source's),
 * which went @err, goes to as well, or NULL. Only changes of the live set
 * that changed something (@ok: the result that means "changed nothing, and
 * that is fine"), and none of the source the copy replaces: those touch
 * the holdings its COMMIT replaces, and so come before it in any order of
 * the two. Made to the copy, they would come after it, mixed into what is
 * staged: a FLUSH would wipe the part of the new holdings staged so far,
 * and the COMMIT publish the rest.
 */
static struct cfilter_set *cfilter_copy_to_follow(const struct cfilter_set *s,
						  const char *source, int err, int ok)
{
	if (!cfilter_copy || s != cfilter_live_locked() || (err && err != ok))
		return NULL;
	if (source && cfilter_same_source(source, cfilter_copy_of))
		return NULL;
	return cfilter_copy;
}

/*
 * The source whose holdings the copy takes no change of, which a change
 * by every source must leave there (see cfilter_copy_to_follow()).
 */
static const char *cfilter_copy_replaces(void)
{
	return cfilter_copy_of;
}

/* A copy @c that could not follow the live set must not go live. */
static void cfilter_copy_followed(struct cfilter_set *c, int err, int ok)
{
	if (err && err != ok)
		c->holds.stale = true;
}

/*
 * cfilter_hold_add_one(), and expiry set for @w.deadline if the holding is
 * there with it (0 or -EEXIST: see cfilter_hold_add_one()).
 */
static int cfilter_hold_add_timed(struct cfilter_set *s,
				  const struct cfilter_packed *k,
				  const char *source, struct cfilter_when w)
{
	int err = cfilter_hold_add_one(s, k, source, w);

	if (!err || err == -EEXIST)
		cfilter_expiry_kick(w.deadline);
	return err;
}

/* Adds to @c default's unrecorded holdings in the live set. */
static int cfilter_copy_unrecorded(struct cfilter_set *c,
				   const struct cfilter_set *live)
{
	const struct cfilter_ktype *f;
	struct cfilter_when unknown = {};
	struct cfilter_walk_buf *b;
	int err = 0;
	u32 n, i;
	u64 pos;

	b = kmalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	for (f = cfilter_ktype_first(); !err && f; f = cfilter_ktype_next(f)) {
		pos = 0;
		while (!err && cfilter_walk_unrecorded(live, f, &pos,
						       CFILTER_WALK_CHUNK, b,
						       &n) != 0) {
			for (i = 0; !err && i < n; i++)
				err = cfilter_hold_add_one(c, &b->keys[i], "",
							   unknown);
			cond_resched();
		}
	}
	kfree(b);
	return err == -EEXIST ? -EIO : err;
}

/*
 * Adds to @c every holding of the live set that is not source @skip's.
 * Caller holds cfilter_lock.
 */
static int cfilter_hold_copy_from(struct cfilter_set *c,
				  const struct cfilter_set *live, int skip)
{
	const struct cfilter_holds *h = &live->holds;
	const struct cfilter_ktype *f;
	struct cfilter_packed k;
	struct cfilter_when w;
	const u8 *key;
	int err;

	for (f = cfilter_ktype_first(); f; f = cfilter_ktype_next(f)) {
		struct cfilter_hold_iter it = {
			.h = h, .t = cfilter_ktype_type(f),
		};

		k.f = f;
		while ((key = cfilter_hold_next(&it, &w))) {
			if (key[f->key_len + 1] == skip)
				continue;
			memcpy(k.bytes, key, f->key_len);
			k.len = key[f->key_len];
			err = cfilter_hold_add_timed(c, &k,
						     h->names[key[f->key_len + 1]],
						     w);
			if (err)
				return err == -EEXIST ? -EIO : err;
			if (!(it.pos & 0x3ff))
				cond_resched();
		}
	}
	return skip ? cfilter_copy_unrecorded(c, live) : 0;
}

/**
 * cfilter_hold_copy() - a copy of the live set without a source's holdings
 * @without: the source left out ("" for "default"; a source the live set
 *           does not have leaves nothing out)
 *
 * Until cfilter_hold_unstage() or its COMMIT, every change made to the live
 * set is made to the copy too, but to @without's holdings: those it holds
 * anew, to be published as they are. Caller holds cfilter_lock; may sleep.
 *
 * Return: the copy, or ERR_PTR: -EBUSY (a copy exists), -EOPNOTSUPP
 * (compact mode), -ENOMEM, -ENOSPC.
 */
struct cfilter_set *cfilter_hold_copy(const char *without)
{
	struct cfilter_set *live = cfilter_live_locked(), *c;
	int err;

	if (!cfilter_exact())
		return ERR_PTR(-EOPNOTSUPP);
	if (cfilter_copy)
		return ERR_PTR(-EBUSY);
	c = cfilter_set_create();
	if (IS_ERR(c))
		return c;
	err = cfilter_hold_copy_from(c, live,
				     cfilter_source_find(&live->holds, without));
	if (err) {
		cfilter_set_destroy(c);
		return ERR_PTR(err);
	}
	cfilter_copy = c;
	strscpy(cfilter_copy_of, without, CFILTER_SOURCE_LEN);
	cfilter_hold_stage(c);
	return c;
}

/* @s is staged: its holdings expire while it waits. */
void cfilter_hold_stage(struct cfilter_set *s)
{
	lockdep_assert_held(&cfilter_lock);
	list_add(&s->staged, &cfilter_staged);
}

/* @s, staged, goes away unpublished (and no longer follows the live set). */
void cfilter_hold_unstage(struct cfilter_set *s)
{
	lockdep_assert_held(&cfilter_lock);
	if (!s)
		return;
	list_del_init(&s->staged);
	if (s == cfilter_copy)
		cfilter_copy = NULL;
}

/*
 * @s is about to replace the live set: it stops following it if it is the
 * copy; else the copy can no longer follow the live set. Then the expiry
 * work looks at the new set's deadlines.
 */
void cfilter_hold_replaced(struct cfilter_set *s)
{
	lockdep_assert_held(&cfilter_lock);
	list_del_init(&s->staged);
	if (s == cfilter_copy)
		cfilter_copy = NULL;
	else if (cfilter_copy)
		cfilter_copy->holds.stale = true;
	cfilter_expiry_kick(1);
}

/**
 * cfilter_hold_add() - add a holding of @k by @source
 * @s:        the set (caller holds cfilter_lock)
 * @k:        the entry
 * @source:   the source's name, checked; "" for "default"
 * @w:        cfilter_deadline() of its timeout, or 0; when it was added
 *
 * Return: 0; -EEXIST if @source held @k already (its deadline is now
 * @w.deadline; when it was added stays); -ENOSPC, -ENOMEM (nothing changed); -EUSERS (a new source,
 * and every source holds something); -EOPNOTSUPP (compact mode, a source
 * other than "default" or a deadline).
 */
int cfilter_hold_add(struct cfilter_set *s, const struct cfilter_packed *k,
		     const char *source, struct cfilter_when w)
{
	int err = cfilter_hold_add_timed(s, k, source, w), err2;
	struct cfilter_set *c = cfilter_copy_to_follow(s, source, err, -EEXIST);

	if (c) {
		err2 = cfilter_hold_add_timed(c, k, source, w);
		cfilter_copy_followed(c, err2, -EEXIST);
	}
	return err;
}

/**
 * cfilter_hold_del() - remove @source's holding of @k
 * @s:      the set (caller holds cfilter_lock)
 * @k:      the entry
 * @source: the source's name, checked; NULL for every source
 *
 * The entry leaves the tables with its last holding.
 *
 * Return: 0; -ENOENT (not held by @source, or by anyone); -EOPNOTSUPP.
 */
int cfilter_hold_del(struct cfilter_set *s, const struct cfilter_packed *k,
		     const char *source)
{
	int err = cfilter_hold_del_one(s, k, source, NULL), err2;
	struct cfilter_set *c = cfilter_copy_to_follow(s, source, err, -ENOENT);

	if (c) {
		err2 = cfilter_hold_del_one(c, k, source, cfilter_copy_replaces());
		cfilter_copy_followed(c, err2, -ENOENT);
	}
	return err;
}

/**
 * cfilter_hold_flush() - remove every holding of @source
 * @s:      the set (caller holds cfilter_lock)
 * @source: the source's name, checked
 *
 * Return: 0; -ENOENT (no such source); -EOPNOTSUPP (compact mode).
 */
int cfilter_hold_flush(struct cfilter_set *s, const char *source)
{
	int err = cfilter_hold_flush_one(s, source);
	struct cfilter_set *c = cfilter_copy_to_follow(s, source, err, -ENOENT);

	if (c)
		cfilter_copy_followed(c, cfilter_hold_flush_one(c, source), -ENOENT);
	return err;
}
