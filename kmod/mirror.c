// SPDX-License-Identifier: GPL-2.0
/*
 * The programs' mirrors (struct cfilter_prefilter_mirror in the UAPI): in
 * compact mode a program's map may hold a mirror of the live set's table
 * of IPv4 source addresses, which the program probes itself, so that a
 * hit drops without a call and a miss settles with two bucket reads. The
 * core stores into every mirror as it stores into the table (struct
 * cuckoo_mirror), in the same order and under the same barriers, so that
 * the program keeps the readers' protocol: a hit is final, a miss holds
 * if the version it read before the buckets is the one after.
 *
 * Each mirror is paired with a prefilter map the module keeps (prefilter.c
 * hands it over, and lets it go with that map), and described in that
 * map's @mirror. What a program meets:
 * - a handover fills the mirror from the live table before @ready is set;
 * - a swap clears @ready before the new set is published, and the
 *   mirror stops; once the old set's readers are gone (and with them any
 *   program still probing the old mirror), the mirrors are filled from the
 *   new live table and @ready set again (cfilter_mirror_settle());
 * - @ready is 0 while the IPv4 allow list has members: a hit must then
 *   ask the module whether the source is allowed.
 * While @ready is 0 the program calls the kfunc, as before a handover.
 *
 * The program counts the drops it makes in the mirror (per CPU slot, an
 * atomic add); they are "default"'s, the only source compact mode has,
 * and join its count while the set is live (cfilter_mirror_drops()). The
 * counts of mirrors let go are kept in cfilter_mirror_gone.
 *
 * Everything here runs under cfilter_lock.
 */
#include <linux/bpf.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/types.h>

#include "cfilter_int.h"
#include "cuckoo.h"
#include "maps.h"
#include "mirror.h"
#include "prefix.h"
#include "set.h"

struct cfilter_mirror {
	struct bpf_map *pf_map;		/* the prefilter map describing it */
	struct bpf_map *map;		/* the mirror: a reference of ours */
};

static struct cfilter_mirror cfilter_mirrors[CFILTER_PREFILTERS_MAX];
static unsigned int cfilter_nmirrors;
/* The table the mirrors mirror, or NULL; and its shape. */
static struct cuckoo *cfilter_mirror_table;
static struct cuckoo_mirror_shape cfilter_mirror_shape;
/* Drops counted by mirrors since let go. */
static u64 cfilter_mirror_gone;

static u64 *cfilter_mirror_words(struct bpf_map *map)
{
	return cfilter_map_value(map);
}

/* The live set's IPv4 source table, if a mirror can follow it. */
static struct cuckoo *cfilter_mirror_source(const struct cfilter_set *s,
					  struct cuckoo_mirror_shape *sh)
{
	struct cuckoo *c;

	if (!s || cfilter_config.mode != CFILTER_MODE_COMPACT)
		return NULL;
	c = prefix_set_addrs(s->pfx[CFILTER_KEY_SRC4]);
	if (!c || cuckoo_mirrorable(c, sh) || sh->hash != CUCKOO_HASH_MIX32)
		return NULL;
	return c;
}

/**
 * cfilter_mirror_entries() - the entries of a mirror map
 *
 * The same for every set the module makes (compact tables never grow).
 *
 * Return: the count, or 0 if the module keeps no mirror (exact mode, or
 * fingerprints of 8 or 32 bits).
 */
u64 cfilter_mirror_entries(void)
{
	struct cuckoo_mirror_shape sh;

	lockdep_assert_held(&cfilter_lock);
	if (!cfilter_mirror_source(cfilter_live_locked(), &sh))
		return 0;
	return CFILTER_MIRROR_HEAD + sh.buckets + sh.stripes;
}

static void cfilter_mirror_bucket(void *ctx, u64 b, u64 word)
{
	unsigned int i;

	for (i = 0; i < cfilter_nmirrors; i++)
		WRITE_ONCE(cfilter_mirror_words(cfilter_mirrors[i].map)
			   [CFILTER_MIRROR_HEAD + b], word);
}

static void cfilter_mirror_version(void *ctx, u32 stripe, u32 v)
{
	u64 at = CFILTER_MIRROR_HEAD + cfilter_mirror_shape.buckets + stripe;
	unsigned int i;

	for (i = 0; i < cfilter_nmirrors; i++)
		WRITE_ONCE(cfilter_mirror_words(cfilter_mirrors[i].map)[at], v);
}

static const struct cuckoo_mirror cfilter_mirror_mirror = {
	.bucket		= cfilter_mirror_bucket,
	.version	= cfilter_mirror_version,
};

static struct cfilter_prefilter_mirror *cfilter_mirror_desc(unsigned int i)
{
	struct cfilter_prefilter *pf;

	pf = cfilter_map_value(cfilter_mirrors[i].pf_map);
	return &pf->mirror;
}

/*
 * @ready of every mirror, as the live set @s allows: a table followed, and
 * no IPv4 allow entry. The description is written before, and a program
 * reads it at addresses that depend on @ready.
 */
void cfilter_mirror_gate(const struct cfilter_set *s)
{
	u64 ready = cfilter_mirror_table &&
		    !(READ_ONCE(s->types) & BIT(CFILTER_KEY_ALLOW4)) ?
		    CFILTER_MIRROR_READY : 0;
	unsigned int i;

	lockdep_assert_held(&cfilter_lock);
	smp_wmb();	/* the mirror and its description before @ready */
	for (i = 0; i < cfilter_nmirrors; i++)
		WRITE_ONCE(cfilter_mirror_desc(i)->ready, ready);
}

/* Mirror @i from the followed table, and its description; not ready. */
static void cfilter_mirror_fill(unsigned int i)
{
	const struct cuckoo_mirror_shape *sh = &cfilter_mirror_shape;
	struct cfilter_prefilter_mirror *d = cfilter_mirror_desc(i);
	u64 *w = cfilter_mirror_words(cfilter_mirrors[i].map);

	WRITE_ONCE(d->ready, 0);
	memset(w + CFILTER_MIRROR_HEAD + sh->buckets, 0,
	       sh->stripes * sizeof(u64));
	/* Starting the mirror again copies the buckets into mirror @i. */
	cuckoo_mirror_stop(cfilter_mirror_table);
	cuckoo_mirror_start(cfilter_mirror_table, &cfilter_mirror_mirror,
			    w + CFILTER_MIRROR_HEAD);
	d->hash_a = sh->hash_a;
	d->hash_b = sh->hash_b;
	d->bucket_mask = sh->buckets - 1;
	d->stripe_mask = sh->stripes - 1;
	d->fp_mask = sh->fp_mask;
	d->versions = CFILTER_MIRROR_HEAD + sh->buckets;
}

/* The table is written alone again, and no mirror follows it. */
static void cfilter_mirror_unfollow(void)
{
	if (cfilter_mirror_table) {
		cuckoo_mirror_stop(cfilter_mirror_table);
		cfilter_mirror_table = NULL;
	}
}

/* Follows the live set's table, if a mirror can, and fills every mirror. */
static void cfilter_mirror_follow(void)
{
	struct cfilter_set *s = cfilter_live_locked();
	unsigned int i;

	cfilter_mirror_table = cfilter_mirror_source(s, &cfilter_mirror_shape);
	if (!cfilter_mirror_table)
		return;
	for (i = 0; i < cfilter_nmirrors; i++)
		cfilter_mirror_fill(i);
	cfilter_mirror_gate(s);
}

/* Drops counted in mirror map @map. */
static u64 cfilter_mirror_counted(struct bpf_map *map)
{
	const u64 *w = cfilter_mirror_words(map);
	u64 n = 0;
	unsigned int i;

	for (i = 0; i < CFILTER_MIRROR_SLOTS; i++)
		n += READ_ONCE(w[i * CFILTER_MIRROR_SLOT_WORDS]);
	return n;
}

/* Every drop every mirror counted, those let go included. */
static u64 cfilter_mirror_total(void)
{
	u64 n = cfilter_mirror_gone;
	unsigned int i;

	for (i = 0; i < cfilter_nmirrors; i++)
		n += cfilter_mirror_counted(cfilter_mirrors[i].map);
	return n;
}

/**
 * cfilter_mirror_drops() - what the mirrors dropped for "default" in @s
 * @s: a set (caller holds cfilter_lock)
 *
 * Return: the drops the programs made in their mirrors while @s was live,
 * if it is: a replaced set has them in its drops_base (cfilter_mirror_swap()).
 */
u64 cfilter_mirror_drops(const struct cfilter_set *s)
{
	lockdep_assert_held(&cfilter_lock);
	if (s != cfilter_live_locked())
		return 0;
	return cfilter_mirror_total() - s->mirror_base;
}

/* A map the program can read as its mirror: a word for each it needs. */
static bool cfilter_mirror_shape_ok(const struct bpf_map *map)
{
	return cfilter_map_plain_array(map) &&
	       map->value_size == sizeof(u64) &&
	       map->max_entries == cfilter_mirror_entries();
}

/**
 * cfilter_mirror_keep() - keep mirror map @map for prefilter map @pf_map
 * @pf_map: a prefilter map the module keeps
 * @map:    the mirror, a reference the module takes over on success
 *
 * Caller holds cfilter_lock (cfilter_prefilter_add_mirror() does), and
 * cfilter_mirror_entries() is not 0.
 *
 * Return: 0; -EINVAL (a map of another shape).
 */
int cfilter_mirror_keep(struct bpf_map *pf_map, struct bpf_map *map)
{
	unsigned int i;

	lockdep_assert_held(&cfilter_lock);
	if (!cfilter_mirror_shape_ok(map))
		return -EINVAL;
	/* A second mirror for the same program replaces the first. */
	cfilter_mirror_forget(pf_map);
	i = cfilter_nmirrors++;
	cfilter_mirrors[i].pf_map = pf_map;
	cfilter_mirrors[i].map = map;
	/* a map handed over again: forget() counted its drops as gone */
	cfilter_mirror_gone -= cfilter_mirror_counted(map);
	if (!cfilter_mirror_table) {
		cfilter_mirror_follow();
	} else {
		cfilter_mirror_fill(i);
		cfilter_mirror_gate(cfilter_live_locked());
	}
	return 0;
}

/*
 * Lets go of the mirror paired with prefilter map @pf_map, if any (its
 * program's map goes): its drops stay counted.
 */
void cfilter_mirror_forget(struct bpf_map *pf_map)
{
	unsigned int i;

	lockdep_assert_held(&cfilter_lock);
	for (i = 0; i < cfilter_nmirrors; i++) {
		if (cfilter_mirrors[i].pf_map != pf_map)
			continue;
		WRITE_ONCE(cfilter_mirror_desc(i)->ready, 0);
		cfilter_mirror_gone += cfilter_mirror_counted(cfilter_mirrors[i].map);
		bpf_map_put(cfilter_mirrors[i].map);
		cfilter_mirrors[i] = cfilter_mirrors[--cfilter_nmirrors];
		break;
	}
	if (!cfilter_nmirrors)
		cfilter_mirror_unfollow();
}

/*
 * @s is about to replace @old as the live set: the mirrors stop following
 * @old's table and are not ready until cfilter_mirror_settle(); what they
 * dropped so far was @old's.
 */
void cfilter_mirror_swap(struct cfilter_set *old, struct cfilter_set *s)
{
	u64 n = cfilter_mirror_total();
	unsigned int i;

	lockdep_assert_held(&cfilter_lock);
	if (old)
		old->drops_base[0] += n - old->mirror_base;
	s->mirror_base = n;
	for (i = 0; i < cfilter_nmirrors; i++)
		WRITE_ONCE(cfilter_mirror_desc(i)->ready, 0);
	cfilter_mirror_unfollow();
}

/* No program reads a mirror of the replaced table: follow the live one. */
void cfilter_mirror_settle(void)
{
	lockdep_assert_held(&cfilter_lock);
	if (cfilter_nmirrors && !cfilter_mirror_table)
		cfilter_mirror_follow();
}
