// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/cfilter's BATCH: one operation on an array of keys, a step at a
 * time (see dev_ioc.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "cfilter_int.h"
#include "set.h"
#include "source.h"
#include "dev_ioc.h"
#include "dev_req.h"

/*
 * Keys per step: each step copies this many keys in one go and holds the
 * writer lock for no more than this many operations, so that other
 * writers and the scheduler get their turn between steps. The buffers of
 * a step stay under 16 KiB.
 */
#define CFILTER_CHUNK		256

/* One BATCH step: its keys, timeouts and ages as copied, and results. */
struct cfilter_chunk {
	struct cfilter_key	keys[CFILTER_CHUNK];
	u32			timeouts[CFILTER_CHUNK];
	u32			ages[CFILTER_CHUNK];
	s32			results[CFILTER_CHUNK];
};

/* Copies @n u32 from @uptr's @start on into @to, or zeros if @uptr is 0. */
static int cfilter_batch_read_u32(u64 uptr, u32 start, u32 *to, u32 n)
{
	const u32 __user *from = u64_to_user_ptr(uptr);

	if (!uptr) {
		memset(to, 0, n * sizeof(*to));
		return 0;
	}
	return copy_from_user(to, from + start, n * sizeof(*to)) ? -EFAULT : 0;
}

/*
 * Copies the keys, timeouts and ages of step @start (at most
 * CFILTER_CHUNK); returns how many.
 */
static int cfilter_batch_read(const struct cfilter_batch *b, u32 start,
			      struct cfilter_chunk *c, u32 *n)
{
	const void __user *src = u64_to_user_ptr(b->keys);

	*n = min_t(u32, b->count - start, CFILTER_CHUNK);
	if (copy_from_user(c->keys, src + (u64)start * sizeof(c->keys[0]),
			   *n * sizeof(c->keys[0])))
		return -EFAULT;
	return cfilter_batch_read_u32(b->timeouts, start, c->timeouts, *n) ?:
	       cfilter_batch_read_u32(b->ages, start, c->ages, *n);
}

/* Between steps: let others run, and stop if the caller is being killed. */
static int cfilter_batch_yield(void)
{
	cond_resched();
	return fatal_signal_pending(current) ? -EINTR : 0;
}

/*
 * Pass 1 of BATCH: nothing is applied unless every key is well formed (else
 * -EINVAL with b->first_error naming the first bad one) and the results
 * array is writable (zeroing it proves that before anything changes).
 */
static int cfilter_batch_check(struct cfilter_batch *b, struct cfilter_chunk *c)
{
	s32 __user *results = u64_to_user_ptr(b->results);
	struct cfilter_packed k;
	u32 start, n, i;
	int err;

	for (start = 0; start < b->count; start += n) {
		err = cfilter_batch_read(b, start, c, &n);
		if (err)
			return err;
		for (i = 0; i < n; i++) {
			if (cfilter_key_check_pack(&c->keys[i], &k) ||
			    c->timeouts[i] > CFILTER_TIMEOUT_MAX) {
				b->first_error = start + i;
				return -EINVAL;
			}
		}
		if (clear_user(results + start, n * sizeof(*results)))
			return -EFAULT;
		err = cfilter_batch_yield();
		if (err)
			return err;
	}
	return 0;
}

/* One key of pass 2 into set @s; see cfilter_batch_step() for locking. */
static int cfilter_batch_one(struct cfilter_set *s,
			     const struct cfilter_batch *b,
			     const struct cfilter_key *key, u32 timeout, u32 age)
{
	struct cfilter_when w;

	const char *source = cfilter_req_source(b->flags, b->source);
	struct cfilter_packed k;
	int err;

	/* Checked in pass 1, but the caller may have changed it since. */
	err = cfilter_key_check_pack(key, &k);
	if (err || timeout > CFILTER_TIMEOUT_MAX)
		return -EINVAL;
	switch (b->op) {
	case CFILTER_BATCH_ADD:
		w.deadline = cfilter_deadline(timeout);
		w.added = cfilter_added(age);
		return cfilter_hold_add(s, &k, source, w);
	case CFILTER_BATCH_DEL:
		return cfilter_hold_del(s, &k, source);
	default:
		if (source)
			return cfilter_hold_test(s, &k, source);
		rcu_read_lock();
		err = cfilter_contains(s, &k);
		rcu_read_unlock();
		return err;
	}
}

/*
 * Applies step @start's @n keys (already in @c) to the set @b names;
 * fills in their results. The writer lock is held across the step for ADD
 * and DEL, for a TEST of one source's holdings and for anything on a
 * staged set (which ABORT may free); a TEST of the live set by any source
 * is lock-free, inside one RCU read-side section. The set
 * is looked up anew each step: a COMMIT between steps sends the rest of a
 * live batch to the new live set, and -EINVAL ends a staged batch whose set
 * was committed or aborted meanwhile.
 */
static int cfilter_batch_step(struct file *file, struct cfilter_batch *b,
			      u32 start, struct cfilter_chunk *c, u32 n)
{
	bool lock = b->op != CFILTER_BATCH_TEST ||
		    b->flags != CFILTER_F_ALL_SOURCES;
	struct cfilter_set *s;
	u32 i;

	if (lock) {
		if (cfilter_lock_take_killable())
			return -EINTR;
		s = cfilter_req_set(file, b->flags);
	} else {
		rcu_read_lock();
		s = rcu_dereference(cfilter_live);
	}
	for (i = 0; s && i < n; i++) {
		c->results[i] = cfilter_batch_one(s, b, &c->keys[i],
						  c->timeouts[i], c->ages[i]);
		if (c->results[i] && b->first_error == b->count)
			b->first_error = start + i;
	}
	if (lock)
		mutex_unlock(&cfilter_lock);
	else
		rcu_read_unlock();
	return s ? 0 : -EINVAL;
}

/* Pass 2 of BATCH: apply, step by step, and report each key's result. */
static int cfilter_batch_apply(struct file *file, struct cfilter_batch *b,
			       struct cfilter_chunk *c)
{
	s32 __user *results = u64_to_user_ptr(b->results);
	u32 n;
	int err;

	while (b->done < b->count) {
		err = cfilter_batch_read(b, b->done, c, &n);
		if (err)
			return err;
		err = cfilter_batch_step(file, b, b->done, c, n);
		if (err)
			return err;
		/* Applied: counted as done even if the results are lost. */
		b->done += n;
		if (copy_to_user(results + b->done - n, c->results,
				 n * sizeof(c->results[0])))
			return -EFAULT;
		err = cfilter_batch_yield();
		if (err)
			return err;
	}
	return 0;
}

static int cfilter_batch_args(struct file *file, const struct cfilter_batch *b)
{
	int err;

	unsigned int cmd = b->op == CFILTER_BATCH_ADD ? CFILTER_IOC_ADD :
			   CFILTER_IOC_DEL;

	if (b->pad || b->reserved ||
	    ((b->timeouts || b->ages) && b->op != CFILTER_BATCH_ADD) ||
	    cfilter_req_args(cmd, b->flags, 0, b->source))
		return -EINVAL;
	switch (b->op) {
	case CFILTER_BATCH_ADD:
	case CFILTER_BATCH_DEL:
		err = cfilter_may_write(file);
		if (err)
			return err;
		break;
	case CFILTER_BATCH_TEST:
		break;
	default:
		return -EINVAL;
	}
	if ((b->flags & CFILTER_F_STAGED) && !cfilter_has_staged(file))
		return -EINVAL;
	return 0;
}

/**
 * cfilter_ioc_batch() - add, delete or test an array of keys
 * @file: the open device (its staged set, with CFILTER_F_STAGED)
 * @ub:   caller's struct cfilter_batch
 *
 * Pass 1 reads every key and checks it, pass 2 reads them again and applies
 * them in steps of CFILTER_CHUNK keys, so that any number of keys takes a
 * fixed amount of kernel memory and a million keys do not hold the writer
 * lock for seconds. Once the arguments are accepted, @ub's done and
 * first_error are written back whatever the outcome.
 *
 * Return: 0 once every key was processed (per-key results in the results
 * array); -EINVAL (bad arguments, CFILTER_F_STAGED with nothing staged, or
 * a malformed key: nothing applied; or the staged set went mid-call),
 * -EPERM, -EFAULT, -ENOMEM, or -EINTR if the caller is being killed (done
 * says how far it got).
 */
long cfilter_ioc_batch(struct file *file, void __user *ub)
{
	struct cfilter_chunk *c;
	struct cfilter_batch b;
	int err;

	if (copy_from_user(&b, ub, sizeof(b)))
		return -EFAULT;
	err = cfilter_batch_args(file, &b);
	if (err)
		return err;
	b.done = 0;
	b.first_error = b.count;
	if (!b.count)
		goto out;

	c = kmalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	err = cfilter_batch_check(&b, c);
	if (!err)
		err = cfilter_batch_apply(file, &b, c);
	kfree(c);
out:
	if (copy_to_user(ub, &b, sizeof(b)))
		return -EFAULT;
	return err;
}
