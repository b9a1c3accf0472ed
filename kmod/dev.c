// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/cfilter: the administrative interface to the filters.
 *
 * Anyone who can open the device may TEST, LIST and MATCH and read INFO,
 * TYPE_INFO and SOURCES. ADD, DEL, CLEAR, BATCH ADD or DEL, FLUSH, STAGE,
 * STAGE_SOURCE, COMMIT, ABORT, RESTORE and PREFILTER also need the device
 * opened for writing (else EBADF) and CAP_NET_ADMIN; DUMP, which hands out
 * hash seeds, needs CAP_NET_ADMIN. So the device mode can be widened for
 * monitoring without handing out control of the filter, or the means to
 * attack its hashing. The table of requests below says which needs what,
 * and the rights are checked there, before a handler (dev_ioc.h) runs;
 * only BATCH, whose needs depend on its op, checks its own.
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
#include <linux/kernel.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>

#include "cfilter_int.h"
#include "set.h"
#include "dev_ioc.h"
#include "dev_req.h"

/* Who may make a request (see above). */
enum cfilter_access {
	CFILTER_ANYONE,
	CFILTER_ADMIN,		/* CAP_NET_ADMIN */
	CFILTER_WRITER,		/* opened for writing, and CAP_NET_ADMIN */
};

static const struct cfilter_request {
	unsigned int		cmd;
	enum cfilter_access	access;
	long			(*handle)(struct file *file, void __user *arg);
} cfilter_requests[] = {
	{ CFILTER_IOC_ADD,		CFILTER_WRITER,	cfilter_ioc_add },
	{ CFILTER_IOC_DEL,		CFILTER_WRITER,	cfilter_ioc_del },
	{ CFILTER_IOC_TEST,		CFILTER_ANYONE,	cfilter_ioc_test },
	{ CFILTER_IOC_CLEAR,		CFILTER_WRITER,	cfilter_ioc_clear },
	{ CFILTER_IOC_INFO,		CFILTER_ANYONE,	cfilter_ioc_info },
	/* TEST needs no rights, ADD and DEL do: BATCH checks its op's. */
	{ CFILTER_IOC_BATCH,		CFILTER_ANYONE,	cfilter_ioc_batch },
	{ CFILTER_IOC_LIST,		CFILTER_ANYONE,	cfilter_ioc_list },
	{ CFILTER_IOC_STAGE,		CFILTER_WRITER,	cfilter_ioc_stage },
	{ CFILTER_IOC_COMMIT,		CFILTER_WRITER,	cfilter_ioc_commit },
	{ CFILTER_IOC_ABORT,		CFILTER_WRITER,	cfilter_ioc_abort },
	{ CFILTER_IOC_TYPE_INFO,	CFILTER_ANYONE,	cfilter_ioc_type_info },
	{ CFILTER_IOC_MATCH,		CFILTER_ANYONE,	cfilter_ioc_match },
	{ CFILTER_IOC_DUMP,		CFILTER_ADMIN,	cfilter_ioc_dump },
	{ CFILTER_IOC_RESTORE,		CFILTER_WRITER,	cfilter_ioc_restore },
	{ CFILTER_IOC_FLUSH,		CFILTER_WRITER,	cfilter_ioc_flush },
	{ CFILTER_IOC_SOURCES,		CFILTER_ANYONE,	cfilter_ioc_sources },
	{ CFILTER_IOC_STAGE_SOURCE,	CFILTER_WRITER,	cfilter_ioc_stage_source },
	{ CFILTER_IOC_PREFILTER,	CFILTER_WRITER,	cfilter_ioc_prefilter },
	{ CFILTER_IOC_MIRROR,		CFILTER_WRITER,	cfilter_ioc_mirror },
};

static int cfilter_allowed(struct file *file, enum cfilter_access access)
{
	switch (access) {
	case CFILTER_WRITER:
		return cfilter_may_write(file);
	case CFILTER_ADMIN:
		return capable(CAP_NET_ADMIN) ? 0 : -EPERM;
	default:
		return 0;
	}
}

/* The caller's rights are checked here, before anything of its argument. */
static long cfilter_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	const struct cfilter_request *r;
	int err;

	for (r = cfilter_requests; r < cfilter_requests +
	     ARRAY_SIZE(cfilter_requests); r++) {
		if (r->cmd != cmd)
			continue;
		err = cfilter_allowed(file, r->access);
		return err ? err : r->handle(file, (void __user *)arg);
	}
	return -ENOTTY;
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
