// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/cfilter: the administrative interface to the filters.
 *
 * Anyone who can open the device may TEST, LIST and MATCH and read INFO
 * and TYPE_INFO. ADD, DEL, CLEAR, BATCH ADD or DEL, STAGE, COMMIT, ABORT
 * and RESTORE also need the device opened for writing (else EBADF) and
 * CAP_NET_ADMIN; DUMP, which hands out hash seeds, needs CAP_NET_ADMIN. So
 * the device mode can be widened for monitoring without handing out
 * control of the filter, or the means to attack its hashing.
 *
 * Each open file may hold one staged set (file->private_data, under
 * cfilter_lock): a whole set of tables that CFILTER_F_STAGED requests fill
 * and COMMIT makes live at once. A staged set costs as much memory as a
 * live one; only CAP_NET_ADMIN may create one, one per open file, and it
 * is freed on ABORT, COMMIT (the old live set then) or close, so it cannot
 * outlive its owner's file.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/math64.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "cfilter.h"
#include "prefix.h"
#include "prefilter.h"
#include "set.h"
#include "verdict.h"
#include "dev.h"

/* Validates and packs @key, or returns -EINVAL if it is malformed. */
int cfilter_pack(const struct cfilter_key *key, struct cfilter_packed *k)
{
	k->f = cfilter_ktype(key->type);
	if (!k->f)
		return -EINVAL;
	return cfilter_key_pack(k->f, key, k->bytes, &k->len);
}

/*
 * The set a request names: the live one, or with CFILTER_F_STAGED this
 * file's staged one (NULL if there is none). Caller holds cfilter_lock.
 */
struct cfilter_set *cfilter_target(struct file *file, u32 flags)
{
	lockdep_assert_held(&cfilter_lock);
	if (flags & CFILTER_F_STAGED)
		return file->private_data;
	return cfilter_live_locked();
}

/*
 * Changing the filter needs a descriptor opened for writing, so that one
 * opened read-only (a monitoring group's) cannot, and CAP_NET_ADMIN.
 */
int cfilter_may_write(struct file *file)
{
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	return 0;
}

/*
 * Checks what ADD, DEL and TEST (@cmd) share: flags, timeout and source.
 * CFILTER_F_ALL_SOURCES names no source; only ADD has a timeout.
 */
int cfilter_req_args(unsigned int cmd, u32 flags, u32 timeout,
		     const char *source)
{
	u32 known = CFILTER_F_STAGED;

	if (cmd != CFILTER_IOC_ADD)
		known |= CFILTER_F_ALL_SOURCES;
	if ((flags & ~known) || (cmd != CFILTER_IOC_ADD && timeout) ||
	    timeout > CFILTER_TIMEOUT_MAX ||
	    ((flags & CFILTER_F_ALL_SOURCES) && source[0]))
		return -EINVAL;
	return cfilter_source_check(source);
}

/* Copies the argument of ADD, DEL or TEST, validates and packs its key. */
static int cfilter_get_key_req(unsigned int cmd, const void __user *argp,
			       struct cfilter_key_req *req,
			       struct cfilter_packed *k)
{
	int err;

	if (copy_from_user(req, argp, sizeof(*req)))
		return -EFAULT;
	err = cfilter_req_args(cmd, req->flags, req->timeout, req->source);
	return err ? err : cfilter_pack(&req->key, k);
}

/* The source a request names: NULL for every source. */
const char *cfilter_req_source(u32 flags, const char *source)
{
	return flags & CFILTER_F_ALL_SOURCES ? NULL : source;
}

/* ADD and DEL: one key under the writer lock. */
static long cfilter_ioc_write(struct file *file, unsigned int cmd,
			      const void __user *argp)
{
	struct cfilter_key_req req;
	struct cfilter_packed k;
	struct cfilter_set *s;
	int err;

	err = cfilter_may_write(file);
	if (err)
		return err;
	err = cfilter_get_key_req(cmd, argp, &req, &k);
	if (err)
		return err;

	cfilter_lock_take();
	s = cfilter_target(file, req.flags);
	if (!s)
		err = -EINVAL;
	else if (cmd == CFILTER_IOC_ADD)
		err = cfilter_hold_add(s, &k, req.source,
				       cfilter_deadline(req.timeout));
	else
		err = cfilter_hold_del(s, &k, cfilter_req_source(req.flags,
								 req.source));
	mutex_unlock(&cfilter_lock);
	return err;
}

/* Inside an RCU read-side section (and cfilter_lock for a staged set). */
int cfilter_contains(const struct cfilter_set *s,
		     const struct cfilter_packed *k)
{
	return cfilter_set_contains(s, k->f, k->bytes, k->len) ? 0 : -ENOENT;
}

/*
 * TEST of the live set by any source is lock-free, like the XDP path: a
 * lookup never waits for a writer. Who holds an entry is the writers'
 * bookkeeping, read under the lock; so is a staged set, which ABORT from
 * another thread sharing the file may free.
 */
static long cfilter_ioc_test(struct file *file, const void __user *argp)
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
	s = cfilter_target(file, req.flags);
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

/*
 * Replaces the live set with an empty one, in one swap: a packet sees every
 * key or none, and nothing changes if there is no memory for the new set.
 * The memory bound never refuses the empty set: clearing is how an
 * operator gets back under it.
 */
static long cfilter_ioc_clear(struct file *file)
{
	static DEFINE_MUTEX(clearing);
	struct cfilter_set *s;
	int err;

	err = cfilter_may_write(file);
	if (err)
		return err;
	mutex_lock(&clearing);
	cfilter_mem_exempt(true);
	s = cfilter_set_create();
	cfilter_mem_exempt(false);
	mutex_unlock(&clearing);
	if (IS_ERR(s))
		return PTR_ERR(s);
	cfilter_set_publish(s);
	return 0;
}

/* The sums over every type of the live set, under the lock: one moment. */
static void cfilter_fill_info(struct cfilter_info *info)
{
	const struct cfilter_ktype *f;
	struct cfilter_type_stats st;
	struct cfilter_set *s;

	cfilter_lock_take();
	s = cfilter_live_locked();
	info->grows = cfilter_set_grows();
	for (f = cfilter_ktype_first(); f; f = cfilter_ktype_next(f)) {
		cfilter_set_type_stats(s, f, &st);
		info->capacity += st.table.capacity;
		info->count += st.count;
		info->buckets += st.table.buckets;
		info->memory_bytes += st.memory_bytes;
		info->insert_failures += st.table.insert_failures;
		info->grows += st.table.grows;
		info->prefixes += st.prefixes;
		info->prefix_markers += st.prefix_markers;
	}
	info->timed = cfilter_holds_timed(&s->holds);
	mutex_unlock(&cfilter_lock);

	info->fp_bits = cfilter_config.fp_bits;
	info->slots_per_bucket = CUCKOO_SLOTS;
	info->load_ppm = mul_u64_u64_div_u64(info->count, 1000000,
					     info->capacity);
	info->max_kicks = CUCKOO_MAX_KICKS;
	info->mode = cfilter_config.mode;
	info->max_capacity = cfilter_config.max_capacity;
	cfilter_mem(&info->mem_used, &info->mem_limit);
}

/**
 * cfilter_ioc_info() - report the live set's geometry and occupancy
 * @uinfo: caller's struct cfilter_info
 *
 * @uinfo->size must cover at least the structure this module knows. A larger
 * size (a newer caller) is accepted: the module fills the fields it knows,
 * sets @uinfo->size to the number of bytes written and leaves the rest of
 * the caller's buffer untouched.
 *
 * Return: 0, -EFAULT or -EINVAL (nonzero flags, size too small).
 */
static long cfilter_ioc_info(struct cfilter_info __user *uinfo)
{
	struct cfilter_info info = {};

	if (copy_from_user(&info, uinfo, offsetofend(struct cfilter_info, flags)))
		return -EFAULT;
	if (info.flags || info.size < sizeof(info))
		return -EINVAL;

	info.size = sizeof(info);
	cfilter_fill_info(&info);
	if (copy_to_user(uinfo, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

/**
 * cfilter_ioc_type_info() - report one key type's tables
 * @file: the open device (its staged set, with CFILTER_F_STAGED)
 * @uti:  caller's struct cfilter_type_info
 *
 * Return: 0; -EINVAL (a type the module lacks, nonzero pad or reserved,
 * unknown flags, CFILTER_F_STAGED with nothing staged); -EFAULT.
 */
static long cfilter_ioc_type_info(struct file *file,
				  struct cfilter_type_info __user *uti)
{
	const struct cfilter_ktype *f;
	struct cfilter_type_stats st;
	struct cfilter_type_info ti;
	struct cfilter_set *s;

	if (copy_from_user(&ti, uti, sizeof(ti)))
		return -EFAULT;
	f = cfilter_ktype(ti.type);
	if (!f || (ti.flags & ~CFILTER_F_STAGED) || ti.pad2 ||
	    memchr_inv(ti.pad, 0, sizeof(ti.pad)) ||
	    memchr_inv(ti.reserved, 0, sizeof(ti.reserved)))
		return -EINVAL;

	cfilter_lock_take();
	s = cfilter_target(file, ti.flags);
	if (s)
		cfilter_set_type_stats(s, f, &st);
	mutex_unlock(&cfilter_lock);
	if (!s)
		return -EINVAL;

	ti.probes = st.probes;
	ti.lengths = st.lengths;
	ti.count = st.count;
	ti.prefixes = st.prefixes;
	ti.prefix_markers = st.prefix_markers;
	ti.memory_bytes = st.memory_bytes;
	ti.capacity = st.table.capacity;
	if (copy_to_user(uti, &ti, sizeof(ti)))
		return -EFAULT;
	return 0;
}

/**
 * cfilter_ioc_match() - the kfunc's verdict for a packet
 * @umr: caller's struct cfilter_match_req
 *
 * Under the lock, so that the source the verdict names keeps its name; it
 * counts no drop.
 *
 * Return: 0 with @umr->verdict and @umr->source set; -EINVAL (nonzero
 * flags or reserved, a packet the kfunc refuses); -EFAULT; -EINTR.
 */
static long cfilter_ioc_match(struct cfilter_match_req __user *umr)
{
	struct cfilter_match_req mr;
	struct cfilter_set *s;
	int verdict;

	if (copy_from_user(&mr, umr, sizeof(mr)))
		return -EFAULT;
	if (mr.flags || mr.reserved[0] || mr.reserved[1])
		return -EINVAL;
	if (cfilter_lock_take_interruptible())
		return -EINTR;
	s = cfilter_live_locked();
	rcu_read_lock();
	verdict = cfilter_verdict(s, &mr.pkt);
	rcu_read_unlock();
	memset(mr.source, 0, sizeof(mr.source));
	if (verdict > 0)
		strscpy(mr.source,
			s->holds.names[CFILTER_VERDICT_SOURCE(verdict)],
			sizeof(mr.source));
	mutex_unlock(&cfilter_lock);
	if (verdict < 0)
		return verdict;
	mr.verdict = verdict;
	if (copy_to_user(umr, &mr, sizeof(mr)))
		return -EFAULT;
	return 0;
}

/* Is this file's staged set there? (It may go before the call uses it.) */
bool cfilter_has_staged(struct file *file)
{
	bool staged;

	cfilter_lock_take();
	staged = file->private_data;
	mutex_unlock(&cfilter_lock);
	return staged;
}

/* FLUSH: every holding of one source goes. */
static long cfilter_ioc_flush(struct file *file,
			      const struct cfilter_source_req __user *ureq)
{
	struct cfilter_source_req req;
	struct cfilter_set *s;
	int err;

	err = cfilter_get_source_req(file, ureq, &req, CFILTER_F_STAGED);
	if (err)
		return err;
	if (cfilter_lock_take_killable())
		return -EINTR;
	s = cfilter_target(file, req.flags);
	err = s ? cfilter_hold_flush(s, req.source) : -EINVAL;
	mutex_unlock(&cfilter_lock);
	return err;
}

/* SOURCES: the sources of the live or staged set. */
static long cfilter_ioc_sources(struct file *file,
				struct cfilter_sources __user *usrc)
{
	struct cfilter_sources *out;
	struct cfilter_set *s;
	u32 flags;
	u64 reserved;
	int err = 0;

	if (get_user(flags, &usrc->flags) || get_user(reserved, &usrc->reserved))
		return -EFAULT;
	if ((flags & ~CFILTER_F_STAGED) || reserved)
		return -EINVAL;
	out = kzalloc(sizeof(*out), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	out->flags = flags;
	cfilter_lock_take();
	s = cfilter_target(file, flags);
	if (s)
		cfilter_hold_sources(s, out);
	mutex_unlock(&cfilter_lock);
	if (!s)
		err = -EINVAL;
	else if (copy_to_user(usrc, out, sizeof(*out)))
		err = -EFAULT;
	kfree(out);
	return err;
}

/* PREFILTER: the module keeps a program's prefilter map (prefilter.c). */
static long cfilter_ioc_prefilter(struct file *file, void __user *argp)
{
	struct cfilter_prefilter_req r;
	int err;

	err = cfilter_may_write(file);
	if (err)
		return err;
	if (copy_from_user(&r, argp, sizeof(r)))
		return -EFAULT;
	if (r.flags)
		return -EINVAL;
	return cfilter_prefilter_add(r.map_fd);
}

static long cfilter_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case CFILTER_IOC_ADD:
	case CFILTER_IOC_DEL:
		return cfilter_ioc_write(file, cmd, argp);
	case CFILTER_IOC_TEST:
		return cfilter_ioc_test(file, argp);
	case CFILTER_IOC_CLEAR:
		return cfilter_ioc_clear(file);
	case CFILTER_IOC_INFO:
		return cfilter_ioc_info(argp);
	case CFILTER_IOC_BATCH:
		return cfilter_ioc_batch(file, argp);
	case CFILTER_IOC_LIST:
		return cfilter_ioc_list(argp);
	case CFILTER_IOC_STAGE:
		return cfilter_ioc_stage(file);
	case CFILTER_IOC_COMMIT:
		return cfilter_ioc_commit(file);
	case CFILTER_IOC_ABORT:
		return cfilter_ioc_abort(file);
	case CFILTER_IOC_TYPE_INFO:
		return cfilter_ioc_type_info(file, argp);
	case CFILTER_IOC_MATCH:
		return cfilter_ioc_match(argp);
	case CFILTER_IOC_DUMP:
		return cfilter_ioc_dump(argp);
	case CFILTER_IOC_RESTORE:
		return cfilter_ioc_restore(file, argp);
	case CFILTER_IOC_FLUSH:
		return cfilter_ioc_flush(file, argp);
	case CFILTER_IOC_SOURCES:
		return cfilter_ioc_sources(file, argp);
	case CFILTER_IOC_STAGE_SOURCE:
		return cfilter_ioc_stage_source(file, argp);
	case CFILTER_IOC_PREFILTER:
		return cfilter_ioc_prefilter(file, argp);
	default:
		return -ENOTTY;
	}
}

/* misc_open() left the miscdevice here: the file starts with nothing staged. */
static int cfilter_open(struct inode *inode, struct file *file)
{
	file->private_data = NULL;
	return 0;
}

/* A set staged and never committed goes with the file. */
static int cfilter_release(struct inode *inode, struct file *file)
{
	struct cfilter_set *s;

	cfilter_lock_take();
	s = cfilter_unstage_locked(file);
	mutex_unlock(&cfilter_lock);
	cfilter_set_destroy(s);
	return 0;
}

static const struct file_operations cfilter_fops = {
	.owner		= THIS_MODULE,
	.open		= cfilter_open,
	.release	= cfilter_release,
	.unlocked_ioctl	= cfilter_ioctl,
	/* Every argument has the same layout for 32-bit callers. */
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice cfilter_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "cfilter",
	.fops	= &cfilter_fops,
	.mode	= 0600,
};

int cfilter_dev_register(void)
{
	return misc_register(&cfilter_misc);
}

void cfilter_dev_unregister(void)
{
	misc_deregister(&cfilter_misc);
}
