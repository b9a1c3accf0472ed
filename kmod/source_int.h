/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of sources and timeouts share and nothing else needs:
 * source.c keeps the holdings, source_list.c lists them, expiry.c expires
 * them, source_stage.c keeps the staged sets and the copy STAGE_SOURCE
 * fills, and makes the changes of ADD, DEL and FLUSH to a set and its
 * copy. The module's interface to them is source.h.
 *
 * Locking: as source.h says, everything here runs under cfilter_lock.
 */
#ifndef CFILTER_KMOD_SOURCE_INT_H
#define CFILTER_KMOD_SOURCE_INT_H

#include <linux/list.h>
#include <linux/string.h>
#include <linux/types.h>

#include "holds.h"
#include "set.h"

/* Entries of the tables looked at per step of a walk for unrecorded ones. */
#define CFILTER_WALK_CHUNK	64

/* A flow table lists each key with its tag (struct cfilter_set). */
struct cfilter_walk_buf {
	u8			raw[CFILTER_WALK_CHUNK * (CUCKOO_KEY_MAX + 4)];
	struct cfilter_packed	keys[CFILTER_WALK_CHUNK];
};

/*
 * A walk over the records of key type @t: permanent ones, then timed (the
 * timed ones only if it starts with @timed set).
 */
struct cfilter_hold_iter {
	const struct cfilter_holds	*h;
	unsigned int			t;
	bool				timed;
	u64				pos;
};

/*
 * The staged sets, whose holdings expiry.c expires; source_stage.c adds
 * and removes them.
 */
extern struct list_head cfilter_staged;

static inline bool cfilter_exact(void)
{
	return cfilter_config.mode == CFILTER_MODE_EXACT;
}

static inline bool cfilter_is_default(const char *source)
{
	return !source[0] || !strcmp(source, "default");
}

/* Do @a and @b name one source ("" and "default" name "default")? */
static inline bool cfilter_same_source(const char *a, const char *b)
{
	if (cfilter_is_default(a) || cfilter_is_default(b))
		return cfilter_is_default(a) && cfilter_is_default(b);
	return !strncmp(a, b, CFILTER_SOURCE_LEN);
}

/* source.c */
int cfilter_source_find(const struct cfilter_holds *h, const char *name);
u64 cfilter_source_drops(const struct cfilter_set *s, unsigned int id);
void cfilter_source_keep(struct cfilter_set *s, const char *name, u64 drops);
int cfilter_hold_add_one(struct cfilter_set *s, const struct cfilter_packed *k,
			 const char *source, struct cfilter_when w);
int cfilter_hold_del_one(struct cfilter_set *s, const struct cfilter_packed *k,
			 const char *source, const char *keep);
int cfilter_hold_flush_one(struct cfilter_set *s, const char *source);
int cfilter_unhold(struct cfilter_set *s, const struct cfilter_ktype *f,
		   u8 *hk);
long cfilter_walk_unrecorded(const struct cfilter_set *s,
			     const struct cfilter_ktype *f, u64 *pos,
			     u32 max, struct cfilter_walk_buf *b, u32 *n);
const u8 *cfilter_hold_next(struct cfilter_hold_iter *it,
			    struct cfilter_when *w);

#endif /* CFILTER_KMOD_SOURCE_INT_H */
