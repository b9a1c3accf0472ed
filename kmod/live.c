// SPDX-License-Identifier: GPL-2.0
/*
 * The live set's coordinator: the one place a set is published as the
 * live one and the one it replaced retired. It calls down into what hangs
 * off a set as it changes hands: the staged sets and the copy that follow
 * the live set (source_stage.c), the drop counts that pass to the next
 * (source_list.c), the programs' prefilter (prefilter.c) and compact
 * mirrors (mirror.c) and, through
 * source_stage.c, expiry.
 */
#include <linux/err.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>

#include "mirror.h"
#include "prefilter.h"
#include "set.h"
#include "source.h"
#include "live.h"

/*
 * Table doublings of the sets that were live and have been replaced, so
 * that INFO's grows counts since load across commits and clears. Written
 * under cfilter_lock.
 */
static u64 cfilter_retired_grows;

/**
 * cfilter_live_swap() - make a set the live one
 * @s: the new live set, not yet visible to any reader
 *
 * Caller holds cfilter_lock. A reader sees the old set or @s, each whole.
 *
 * Return: the old set (none at load), to be given to cfilter_live_retire()
 * once the lock is dropped; or ERR_PTR(-ESTALE), nothing swapped, if @s is
 * a copy that could not follow the live set (source.h).
 */
struct cfilter_set *cfilter_live_swap(struct cfilter_set *s)
{
	struct cfilter_set *old = cfilter_live_locked();
	const struct cfilter_ktype *f;
	struct cfilter_type_stats st;

	if (s->holds.stale) {
		cfilter_hold_unstage(s);
		return ERR_PTR(-ESTALE);
	}
	cfilter_hold_replaced(s);
	for (f = cfilter_ktype_first(); old && f; f = cfilter_ktype_next(f)) {
		cfilter_set_type_stats(old, f, &st);
		cfilter_retired_grows += st.table.grows;
	}
	cfilter_prefilter_swap(s);
	cfilter_mirror_swap(old, s);
	/* Orders every table of @s before the pointer readers follow. */
	rcu_assign_pointer(cfilter_live, s);
	return old;
}

/*
 * Frees a set cfilter_live_swap() replaced, once no reader can hold it,
 * and carries its drop counts over to the live set.
 */
void cfilter_live_retire(struct cfilter_set *old)
{
	/* No writer can reach @old now (they look under the lock); readers: */
	if (old) {
		synchronize_rcu();
		cfilter_lock_take();
		cfilter_hold_carry(cfilter_live_locked(), old);
		cfilter_prefilter_settle();
		cfilter_mirror_settle();
		mutex_unlock(&cfilter_lock);
		cfilter_set_destroy(old);
	}
}

/**
 * cfilter_live_publish() - make a new set the live one, and free the old one
 * @s: the new live set, not yet visible to any reader, and not a copy
 *
 * Takes cfilter_lock for the swap. Sleeps.
 */
void cfilter_live_publish(struct cfilter_set *s)
{
	struct cfilter_set *old;

	cfilter_lock_take();
	old = cfilter_live_swap(s);
	mutex_unlock(&cfilter_lock);
	cfilter_live_retire(old);
}

/* Doublings of the tables of replaced sets; caller holds cfilter_lock. */
u64 cfilter_live_grows(void)
{
	return cfilter_retired_grows;
}
