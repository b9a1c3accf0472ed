// SPDX-License-Identifier: GPL-2.0
/*
 * What the handlers of /dev/cfilter's requests share (see dev_req.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

#include "cfilter_int.h"
#include "set.h"
#include "dev_req.h"

/* Validates and packs @key, or returns -EINVAL if it is malformed. */
int cfilter_key_check_pack(const struct cfilter_key *key, struct cfilter_packed *k)
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
struct cfilter_set *cfilter_req_set(struct file *file, u32 flags)
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
int cfilter_get_key_req(unsigned int cmd, const void __user *argp,
			struct cfilter_key_req *req, struct cfilter_packed *k)
{
	int err;

	if (copy_from_user(req, argp, sizeof(*req)))
		return -EFAULT;
	err = cfilter_req_args(cmd, req->flags, req->timeout, req->source);
	return err ? err : cfilter_key_check_pack(&req->key, k);
}

/* The source a request names: NULL for every source. */
const char *cfilter_req_source(u32 flags, const char *source)
{
	return flags & CFILTER_F_ALL_SOURCES ? NULL : source;
}

/* Inside an RCU read-side section (and cfilter_lock for a staged set). */
int cfilter_contains(const struct cfilter_set *s,
		     const struct cfilter_packed *k)
{
	return cfilter_set_contains(s, k->f, k->bytes, k->len) ? 0 : -ENOENT;
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

/*
 * Copies and checks the argument of FLUSH and STAGE_SOURCE; @flags are
 * those the request knows.
 */
int cfilter_get_source_req(const struct cfilter_source_req __user *ureq,
			   struct cfilter_source_req *req, u32 flags)
{
	if (copy_from_user(req, ureq, sizeof(*req)))
		return -EFAULT;
	if ((req->flags & ~flags) || req->pad || req->reserved)
		return -EINVAL;
	return cfilter_source_check(req->source);
}
