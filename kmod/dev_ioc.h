/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The handlers of /dev/cfilter's requests, which dev.c dispatches to:
 * dev_key.c the filter's entries, one key or source at a time;
 * dev_info.c the counts; dev_program.c what the programs ask for;
 * dev_batch.c BATCH; dev_list.c LIST; dev_stage.c staged sets and raw
 * tables. What they share is below them, in dev_req.h. Who may make which
 * request is dev.c's table.
 */
#ifndef CFILTER_KMOD_DEV_IOC_H
#define CFILTER_KMOD_DEV_IOC_H

#include <linux/fs.h>
#include <linux/types.h>

#include "cfilter_int.h"
#include "set.h"

/*
 * One handler per request: @arg is the caller's argument, of the type the
 * UAPI gives the request. dev.c has checked the caller's rights before.
 */
long cfilter_ioc_add(struct file *file, void __user *arg);
long cfilter_ioc_del(struct file *file, void __user *arg);
long cfilter_ioc_test(struct file *file, void __user *arg);
long cfilter_ioc_flush(struct file *file, void __user *arg);
long cfilter_ioc_clear(struct file *file, void __user *arg);
long cfilter_ioc_info(struct file *file, void __user *arg);
long cfilter_ioc_type_info(struct file *file, void __user *arg);
long cfilter_ioc_sources(struct file *file, void __user *arg);
long cfilter_ioc_match(struct file *file, void __user *arg);
long cfilter_ioc_prefilter(struct file *file, void __user *arg);
long cfilter_ioc_mirror(struct file *file, void __user *arg);
long cfilter_ioc_batch(struct file *file, void __user *arg);
long cfilter_ioc_list(struct file *file, void __user *arg);
long cfilter_ioc_stage(struct file *file, void __user *arg);
long cfilter_ioc_stage_source(struct file *file, void __user *arg);
long cfilter_ioc_commit(struct file *file, void __user *arg);
long cfilter_ioc_abort(struct file *file, void __user *arg);
long cfilter_ioc_dump(struct file *file, void __user *arg);
long cfilter_ioc_restore(struct file *file, void __user *arg);

/* Takes this file's staged set off it; caller holds cfilter_lock. */
struct cfilter_set *cfilter_unstage_locked(struct file *file);

#endif /* CFILTER_KMOD_DEV_IOC_H */
