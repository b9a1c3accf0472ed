/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/cfilter, a file per group of requests: dev.c the device, the
 * single-key requests and the counts; dev_batch.c BATCH; dev_list.c LIST;
 * dev_stage.c staged sets and raw tables. The rules of access are at the
 * top of dev.c. Every function here is called with the file of the
 * request; those that touch sets take cfilter_lock themselves unless they
 * say the caller holds it.
 */
#ifndef CFILTER_KMOD_DEV_H
#define CFILTER_KMOD_DEV_H

#include <linux/fs.h>
#include <linux/types.h>

#include "cfilter.h"
#include "set.h"

/*
 * Keys per step of BATCH and LIST: each step copies this many keys in one
 * go and holds the writer lock for no more than this many operations, so
 * that other writers and the scheduler get their turn between steps (a
 * LIST step also ends when it has looked at a few thousand holdings it
 * does not list: see cfilter_hold_list()). The buffers of a step stay
 * under 16 KiB.
 */
#define CFILTER_CHUNK		256
#define CFILTER_LIST_CHUNK	128

int cfilter_pack(const struct cfilter_key *key, struct cfilter_packed *k);
struct cfilter_set *cfilter_target(struct file *file, u32 flags);
int cfilter_may_write(struct file *file);
int cfilter_req_args(unsigned int cmd, u32 flags, u32 timeout,
		     const char *source);
const char *cfilter_req_source(u32 flags, const char *source);
int cfilter_contains(const struct cfilter_set *s,
		     const struct cfilter_packed *k);
bool cfilter_has_staged(struct file *file);
long cfilter_ioc_batch(struct file *file, struct cfilter_batch __user *ub);
long cfilter_ioc_list(struct cfilter_list __user *ul);
long cfilter_ioc_stage(struct file *file);
int cfilter_get_source_req(struct file *file,
			   const struct cfilter_source_req __user *ureq,
			   struct cfilter_source_req *req, u32 flags);
long cfilter_ioc_stage_source(struct file *file,
			      const struct cfilter_source_req __user *ureq);
struct cfilter_set *cfilter_unstage_locked(struct file *file);
long cfilter_ioc_commit(struct file *file);
long cfilter_ioc_abort(struct file *file);
long cfilter_ioc_dump(struct cfilter_table __user *ut);
long cfilter_ioc_restore(struct file *file,
			 const struct cfilter_table __user *ut);

#endif /* CFILTER_KMOD_DEV_H */
