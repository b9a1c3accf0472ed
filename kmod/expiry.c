// SPDX-License-Identifier: GPL-2.0
/*
 * Expiry: one delayed work, set for the earliest deadline of any holding,
 * removes the holdings whose deadline passed from the live set and from
 * every staged one, through the writers' path like a DEL, so that packets
 * never look at a deadline.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "set.h"
#include "source.h"
#include "source_int.h"

/* Seconds of boot time: counts through suspend, never goes back. */
static u32 cfilter_now(void)
{
	return ktime_get_boottime_seconds();
}

/*
 * Removes the holdings of @s whose deadline is @now or earlier; returns the
 * earliest deadline left, or 0. Caller holds cfilter_lock.
 */
static u32 cfilter_hold_expire(struct cfilter_set *s, u32 now)
{
	struct cfilter_holds *h = &s->holds;
	const struct cfilter_ktype *f;
	u8 hk[KEYMAP_KEY_MAX];
	struct cfilter_when w;
	u32 next = 0;
	const u8 *key;

	for (f = cfilter_ktype_first(); f; f = cfilter_ktype_next(f)) {
		struct cfilter_hold_iter it = {
			.h = h, .t = cfilter_ktype_type(f), .timed = true,
		};
		struct keymap *m = &h->timed[it.t];

		while ((key = cfilter_hold_next(&it, &w))) {
			if (w.deadline > now) {
				next = next ? min(next, w.deadline) : w.deadline;
				continue;
			}
			memcpy(hk, key, m->key_len);
			cfilter_unhold(s, f, hk);
			if (!(it.pos & 0x3ff))
				cond_resched();
		}
		keymap_shrink(m);
	}
	return next;
}

/* Every staged set (the copy too), whose holdings expire as the live set's. */
LIST_HEAD(cfilter_staged);

static void cfilter_expiry_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(cfilter_expiry, cfilter_expiry_fn);
/* The deadline the work is set for, 0 if none. Under cfilter_lock. */
static u32 cfilter_expiry_at;

/*
 * The live set and every staged one expire their own holdings: a holding
 * the copy has anew (a replaced source's) keeps its own deadline.
 */
static void cfilter_expiry_fn(struct work_struct *work)
{
	struct cfilter_set *s;
	u32 now, next, n;

	cfilter_lock_take();
	now = cfilter_now();
	next = cfilter_hold_expire(cfilter_live_locked(), now);
	list_for_each_entry(s, &cfilter_staged, staged) {
		n = cfilter_hold_expire(s, now);
		if (n && (!next || n < next))
			next = n;
	}
	cfilter_expiry_at = 0;
	cfilter_expiry_kick(next);
	mutex_unlock(&cfilter_lock);
}

/**
 * cfilter_expiry_kick() - expire holdings at @deadline, if that is sooner
 * @deadline: seconds of boot time; 0 does nothing, a past one runs now
 *
 * Caller holds cfilter_lock.
 */
void cfilter_expiry_kick(u32 deadline)
{
	u64 now = ktime_get_boottime_ns(), at = (u64)deadline * NSEC_PER_SEC;

	lockdep_assert_held(&cfilter_lock);
	if (!deadline || (cfilter_expiry_at && cfilter_expiry_at <= deadline))
		return;
	cfilter_expiry_at = deadline;
	mod_delayed_work(system_wq, &cfilter_expiry,
			 at > now ? nsecs_to_jiffies(at - now) + 1 : 0);
}

/* At unload: no set may be expired any more. */
void cfilter_expiry_stop(void)
{
	cancel_delayed_work_sync(&cfilter_expiry);
}
