/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The handlers of /dev/cfilter's requests, which dev.c dispatches to:
 * dev.c the single-key requests and the counts; dev_batch.c BATCH;
 * dev_list.c LIST; dev_stage.c staged sets and raw tables. What they share
 * is below them, in dev_req.h. The rules of access are at the top of
 * dev.c.
 */
#ifndef CFILTER_KMOD_DEV_IOC_H
#define CFILTER_KMOD_DEV_IOC_H

#include <linux/fs.h>
#include <linux/types.h>

#include "cfilter.h"
#include "set.h"

long cfilter_ioc_batch(struct file *file, struct cfilter_batch __user *ub);
long cfilter_ioc_list(struct cfilter_list __user *ul);
long cfilter_ioc_stage(struct file *file);
long cfilter_ioc_stage_source(struct file *file,
			      const struct cfilter_source_req __user *ureq);
struct cfilter_set *cfilter_unstage_locked(struct file *file);
long cfilter_ioc_commit(struct file *file);
long cfilter_ioc_abort(struct file *file);
long cfilter_ioc_dump(struct cfilter_table __user *ut);
long cfilter_ioc_restore(struct file *file,
			 const struct cfilter_table __user *ut);

#endif /* CFILTER_KMOD_DEV_IOC_H */
