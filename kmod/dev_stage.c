// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/cfilter's staged sets: STAGE, STAGE_SOURCE, COMMIT and ABORT, and
 * the raw tables of compact mode, DUMP out and RESTORE into a staged set
 * (see dev_ioc.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "cfilter_int.h"
#include "cuckoo.h"
#include "live.h"
#include "set.h"
#include "source.h"
#include "dev_ioc.h"
#include "dev_req.h"

/* STAGE: an empty set for this file. */
long cfilter_ioc_stage(struct file *file, void __user *arg)
{
	struct cfilter_set *s;

	/* Checked first so that a refused STAGE allocates nothing. */
	if (cfilter_has_staged(file))
		return -EBUSY;
	s = cfilter_set_create();
	if (IS_ERR(s))
		return PTR_ERR(s);
	cfilter_lock_take();
	if (file->private_data) {
		mutex_unlock(&cfilter_lock);
		cfilter_set_destroy(s);
		return -EBUSY;
	}
	file->private_data = s;
	cfilter_hold_stage(s);
	mutex_unlock(&cfilter_lock);
	return 0;
}

/*
 * STAGE_SOURCE: a copy of the live set without one source's holdings,
 * following the live set until COMMIT (see source.h).
 */
long cfilter_ioc_stage_source(struct file *file, void __user *ureq)
{
	struct cfilter_source_req req;
	struct cfilter_set *s;
	int err;

	err = cfilter_get_source_req(ureq, &req, 0);
	if (err)
		return err;
	if (cfilter_lock_take_killable())
		return -EINTR;
	if (file->private_data) {
		err = -EBUSY;
	} else {
		s = cfilter_hold_copy(req.source);
		if (IS_ERR(s))
			err = PTR_ERR(s);
		else
			file->private_data = s;
	}
	mutex_unlock(&cfilter_lock);
	return err;
}

/*
 * Takes this file's staged set off it (a copy stops following the live
 * set); NULL if there is none. Caller holds cfilter_lock.
 */
struct cfilter_set *cfilter_unstage_locked(struct file *file)
{
	struct cfilter_set *s = file->private_data;

	file->private_data = NULL;
	cfilter_hold_unstage(s);
	return s;
}

/*
 * COMMIT: the staged set goes live in one swap; the old one is freed. A
 * copy goes live in the same hold of the lock it stops following the live
 * set in, so no change made meanwhile is lost.
 */
long cfilter_ioc_commit(struct file *file, void __user *arg)
{
	struct cfilter_set *s, *old;

	cfilter_lock_take();
	s = file->private_data;
	file->private_data = NULL;
	old = s ? cfilter_live_swap(s) : ERR_PTR(-EINVAL);
	mutex_unlock(&cfilter_lock);
	if (IS_ERR(old)) {
		cfilter_set_destroy(s);
		return PTR_ERR(old);
	}
	cfilter_live_retire(old);
	return 0;
}

/* ABORT: the staged set, never seen by a reader, is freed at once. */
long cfilter_ioc_abort(struct file *file, void __user *arg)
{
	struct cfilter_set *s;

	cfilter_lock_take();
	s = cfilter_unstage_locked(file);
	mutex_unlock(&cfilter_lock);
	if (!s)
		return -EINVAL;
	cfilter_set_destroy(s);
	return 0;
}

/*
 * DUMP and RESTORE: compact mode, a known type, known flags, zero pad and
 * reserved.
 */
static int cfilter_table_args(const struct cfilter_table *t,
			      const struct cfilter_ktype **f)
{
	if (cfilter_config.mode != CFILTER_MODE_COMPACT)
		return -EOPNOTSUPP;
	*f = cfilter_ktype(t->type);
	if (!*f || t->flags & ~(CFILTER_TABLE_HASH32 | CFILTER_TABLE_MIX32) ||
	    t->pad2 ||
	    memchr_inv(t->pad, 0, sizeof(t->pad)) || t->reserved[0] ||
	    t->reserved[1])
		return -EINVAL;
	return 0;
}

/* The flag of struct cfilter_table naming hash @h; 0 for the general one. */
static u32 cfilter_table_flag(enum cuckoo_hash_kind h)
{
	switch (h) {
	case CUCKOO_HASH_SHORT32:
		return CFILTER_TABLE_HASH32;
	case CUCKOO_HASH_MIX32:
		return CFILTER_TABLE_MIX32;
	default:
		return 0;
	}
}

/* Bytes DUMP copies per step, between checks for a fatal signal. */
#define CFILTER_DUMP_CHUNK	SZ_64K

/*
 * A copy of type @f's live table, made under the writer lock so that it
 * is one moment of the table, and charged against the memory bound as the
 * tables are: *@snap, of @t->size bytes, for cfilter_dump_copy_out() to
 * copy out once the lock is dropped. Sets @t's size (and, if it fits, its
 * geometry).
 */
static int cfilter_dump_snapshot(const struct cfilter_ktype *f,
				 struct cfilter_table *t, u8 **snap)
{
	struct cuckoo_raw r;
	struct cuckoo *c;
	u8 *buf = NULL;
	u64 size, off, n;
	int err;

	if (cfilter_lock_take_killable())
		return -EINTR;
	c = cfilter_set_table(cfilter_live_locked(), f);
	size = cuckoo_raw_bytes(c);
	/* Its description, which the copy below repeats. */
	err = cuckoo_raw_read(c, &r, NULL, 0, 0);
	if (!err && cfilter_table_flag(r.hash) & ~t->flags)
		err = -EPROTO;
	if (!err && t->size < size)
		err = -ENOSPC;
	if (!err) {
		buf = cuckoo_mem_zalloc(size);
		err = PTR_ERR_OR_ZERO(buf);
	}
	for (off = 0; !err && off < size; off += n) {
		n = min_t(u64, size - off, CFILTER_DUMP_CHUNK);
		err = cuckoo_raw_read(c, &r, buf + off, off, n);
		if (!err && fatal_signal_pending(current))
			err = -EINTR;
		cond_resched();
	}
	mutex_unlock(&cfilter_lock);
	if (err == -EPROTO)
		return err;
	t->size = size;
	if (!err) {
		t->flags = cfilter_table_flag(r.hash);
		t->fp_bits = r.fp_bits;
		t->seed = r.seed;
		t->buckets = r.buckets;
		t->count = r.count;
		*snap = buf;
	} else if (!IS_ERR_OR_NULL(buf)) {
		cuckoo_mem_free(buf, size);
	}
	return err;
}

/*
 * Copies @snap (@t->size bytes) to @t->data, lock-free: the copy may wait
 * on the caller's memory (a page fault a userfaultfd serves late) for as
 * long as the caller likes, and no writer may wait with it. Frees @snap.
 */
static int cfilter_dump_copy_out(const struct cfilter_table *t, u8 *snap)
{
	void __user *dst = u64_to_user_ptr(t->data);
	u64 off, n;
	int err = 0;

	for (off = 0; !err && off < t->size; off += n) {
		n = min_t(u64, t->size - off, CFILTER_DUMP_CHUNK);
		if (copy_to_user(dst + off, snap + off, n))
			err = -EFAULT;
		else if (fatal_signal_pending(current))
			err = -EINTR;
		cond_resched();
	}
	cuckoo_mem_free(snap, t->size);
	return err;
}

/**
 * cfilter_ioc_dump() - copy a type's live address or flow table out
 * @file: the open device
 * @ut:   caller's struct cfilter_table
 *
 * Needs CAP_NET_ADMIN: the table comes with its hash seed, which would let
 * a reader craft keys that collide. The table is copied aside under the
 * writer lock, then out without it.
 *
 * Return: 0; -ENOSPC with @ut->size set to the bytes needed (nothing else
 * written); -EPROTO if the table has a flag the caller did not pass in;
 * -EDQUOT if the memory bound leaves no room for the copy; -EPERM;
 * -EOPNOTSUPP in exact mode; -EINVAL; -EFAULT; -ENOMEM; -EINTR.
 */
long cfilter_ioc_dump(struct file *file, void __user *ut)
{
	const struct cfilter_ktype *f;
	struct cfilter_table t;
	u8 *snap;
	int err;

	if (copy_from_user(&t, ut, sizeof(t)))
		return -EFAULT;
	err = cfilter_table_args(&t, &f);
	if (err)
		return err;

	err = cfilter_dump_snapshot(f, &t, &snap);
	if (!err)
		err = cfilter_dump_copy_out(&t, snap);
	if (err && err != -ENOSPC)
		return err;
	if (copy_to_user(ut, &t, sizeof(t)))
		return -EFAULT;
	return err;
}

/**
 * cfilter_ioc_restore() - install a raw table into the staged set
 * @file: the open device, which must hold a staged set
 * @ut:   caller's struct cfilter_table
 *
 * The table is built to the side from a checked copy of the caller's data
 * (cuckoo_raw_create() trusts none of it), then replaces the staged set's
 * table of that type, which no reader can see yet. A prefix set keeps its
 * prefixes.
 *
 * Return: 0; -EOPNOTSUPP in exact mode; -EINVAL (nothing staged, bad
 * arguments, a table the module could not have made); -EPERM; -EFAULT;
 * -EDQUOT (the memory bound: the copy of the data counts too); -ENOMEM.
 * Nothing changes on error.
 */
long cfilter_ioc_restore(struct file *file, void __user *ut)
{
	const struct cfilter_ktype *f;
	struct cfilter_table t;
	struct cfilter_set *s;
	struct cuckoo_raw r;
	struct cuckoo *c;
	void *data;
	int err;

	if (copy_from_user(&t, ut, sizeof(t)))
		return -EFAULT;
	err = cfilter_table_args(&t, &f);
	if (err)
		return err;
	/*
	 * A table has one hash. The size bounds the copy;
	 * cuckoo_raw_create() checks it exactly.
	 */
	if (t.flags == (CFILTER_TABLE_HASH32 | CFILTER_TABLE_MIX32) ||
	    !t.size ||
	    t.size > cuckoo_raw_max_bytes(&cfilter_config.params[cfilter_ktype_type(f)]))
		return -EINVAL;
	if (!cfilter_has_staged(file))
		return -EINVAL;

	/* As large as the table: charged as the table is. */
	data = cuckoo_mem_zalloc(t.size);
	if (IS_ERR(data))
		return PTR_ERR(data);
	if (copy_from_user(data, u64_to_user_ptr(t.data), t.size)) {
		cuckoo_mem_free(data, t.size);
		return -EFAULT;
	}
	r = (struct cuckoo_raw){
		.seed = t.seed,
		.buckets = t.buckets,
		.count = t.count,
		.fp_bits = t.fp_bits,
	};
	if (t.flags & CFILTER_TABLE_HASH32)
		r.hash = CUCKOO_HASH_SHORT32;
	else if (t.flags & CFILTER_TABLE_MIX32)
		r.hash = CUCKOO_HASH_MIX32;
	c = cuckoo_raw_create(&cfilter_config.params[cfilter_ktype_type(f)],
			      &r, data, t.size);
	cuckoo_mem_free(data, t.size);
	if (IS_ERR(c))
		return PTR_ERR(c);

	cfilter_lock_take();
	s = file->private_data;
	if (s)
		c = cfilter_set_replace_table(s, f, c);
	mutex_unlock(&cfilter_lock);
	/* The table replaced, or the new one if the set went meanwhile. */
	cuckoo_destroy(c);
	return s ? 0 : -EINVAL;
}
