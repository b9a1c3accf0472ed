// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/cfilter's requests for the XDP and TC programs: MATCH asks the
 * kfunc's verdict on a packet, PREFILTER hands over a program's prefilter
 * map and MIRROR its mirror (see dev_ioc.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "cfilter_int.h"
#include "prefilter.h"
#include "set.h"
#include "verdict.h"
#include "dev_ioc.h"
#include "dev_req.h"

/**
 * cfilter_ioc_match() - the kfunc's verdict for a packet
 * @file: the open device
 * @umr:  caller's struct cfilter_match_req
 *
 * Under the lock, so that the source the verdict names keeps its name; it
 * counts no drop.
 *
 * Return: 0 with @umr->verdict and @umr->source set; -EINVAL (nonzero
 * flags or reserved, a packet the kfunc refuses); -EFAULT; -EINTR.
 */
long cfilter_ioc_match(struct file *file, void __user *umr)
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

/* MIRROR: the module keeps a program's mirror (prefilter.c, mirror.c). */
long cfilter_ioc_mirror(struct file *file, void __user *argp)
{
	struct cfilter_mirror_req r;

	if (copy_from_user(&r, argp, sizeof(r)))
		return -EFAULT;
	if (r.flags || r.reserved)
		return -EINVAL;
	return cfilter_prefilter_add_mirror(r.prefilter_fd, r.mirror_fd);
}

/* PREFILTER: the module keeps a program's prefilter map (prefilter.c). */
long cfilter_ioc_prefilter(struct file *file, void __user *argp)
{
	struct cfilter_prefilter_req r;

	if (copy_from_user(&r, argp, sizeof(r)))
		return -EFAULT;
	if (r.flags)
		return -EINVAL;
	return cfilter_prefilter_add(r.map_fd);
}
