// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/cfilter's requests on the filter's entries: ADD, DEL and TEST of
 * one key, FLUSH of one source's, CLEAR of every one (see dev_ioc.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>

#include "cfilter_int.h"
#include "live.h"
#include "set.h"
#include "source.h"
#include "dev_ioc.h"
#include "dev_req.h"

/* ADD and DEL: one key under the writer lock. */
static long cfilter_ioc_write(struct file *file, unsigned int cmd,
			      const void __user *argp)
{
	struct cfilter_key_req req;
	struct cfilter_packed k;
	struct cfilter_set *s;
	int err;

	err = cfilter_get_key_req(cmd, argp, &req, &k);
	if (err)
		return err;

	cfilter_lock_take();
	s = cfilter_req_set(file, req.flags);
	if (!s)
		err = -EINVAL;
	else if (cmd == CFILTER_IOC_ADD)
		err = cfilter_hold_add(s, &k, req.source, (struct cfilter_when){
			.deadline = cfilter_deadline(req.timeout),
			.added = cfilter_added(0),
		});
	else
		err = cfilter_hold_del(s, &k, cfilter_req_source(req.flags,
								 req.source));
	mutex_unlock(&cfilter_lock);
	return err;
}

long cfilter_ioc_add(struct file *file, void __user *arg)
{
	return cfilter_ioc_write(file, CFILTER_IOC_ADD, arg);
}

long cfilter_ioc_del(struct file *file, void __user *arg)
{
	return cfilter_ioc_write(file, CFILTER_IOC_DEL, arg);
}

/*
 * TEST of the live set by any source is lock-free, like the XDP path: a
 * lookup never waits for a writer. Who holds an entry is the writers'
 * bookkeeping, read under the lock; so is a staged set, which ABORT from
 * another thread sharing the file may free.
 */
long cfilter_ioc_test(struct file *file, void __user *argp)
{
	struct cfilter_key_req req;
	struct cfilter_packed k;
	struct cfilter_set *s;
	int err;

	err = cfilter_get_key_req(CFILTER_IOC_TEST, argp, &req, &k);
	if (err)
		return err;
	if (req.flags == CFILTER_F_ALL_SOURCES) {
		rcu_read_lock();
		err = cfilter_contains(rcu_dereference(cfilter_live), &k);
		rcu_read_unlock();
		return err;
	}
	cfilter_lock_take();
	s = cfilter_req_set(file, req.flags);
	if (!s) {
		err = -EINVAL;
	} else if (req.flags & CFILTER_F_ALL_SOURCES) {
		rcu_read_lock();
		err = cfilter_contains(s, &k);
		rcu_read_unlock();
	} else {
		err = cfilter_hold_test(s, &k, req.source);
	}
	mutex_unlock(&cfilter_lock);
	return err;
}

/* FLUSH: every holding of one source goes. */
long cfilter_ioc_flush(struct file *file, void __user *ureq)
{
	struct cfilter_source_req req;
	struct cfilter_set *s;
	int err;

	err = cfilter_get_source_req(ureq, &req, CFILTER_F_STAGED);
	if (err)
		return err;
	if (cfilter_lock_take_killable())
		return -EINTR;
	s = cfilter_req_set(file, req.flags);
	err = s ? cfilter_hold_flush(s, req.source) : -EINVAL;
	mutex_unlock(&cfilter_lock);
	return err;
}

/*
 * Replaces the live set with an empty one, in one swap: a packet sees every
 * key or none, and nothing changes if there is no memory for the new set.
 * The memory bound never refuses the empty set: clearing is how an
 * operator gets back under it.
 */
long cfilter_ioc_clear(struct file *file, void __user *arg)
{
	static DEFINE_MUTEX(clearing);
	struct cfilter_set *s;

	mutex_lock(&clearing);
	cfilter_mem_exempt(true);
	s = cfilter_set_create();
	cfilter_mem_exempt(false);
	mutex_unlock(&clearing);
	if (IS_ERR(s))
		return PTR_ERR(s);
	cfilter_live_publish(s);
	return 0;
}
