/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the handlers of /dev/cfilter's requests share (dev_req.c): copying
 * and checking their arguments, packing keys, and finding the set a
 * request names. Every function here is called with the file of the
 * request; those that touch sets take cfilter_lock themselves unless they
 * say the caller holds it.
 */
#ifndef CFILTER_KMOD_DEV_REQ_H
#define CFILTER_KMOD_DEV_REQ_H

#include <linux/fs.h>
#include <linux/types.h>

#include "cfilter_int.h"
#include "set.h"
#include "source.h"

int cfilter_key_check_pack(const struct cfilter_key *key, struct cfilter_packed *k);
struct cfilter_set *cfilter_req_set(struct file *file, u32 flags);
int cfilter_may_write(struct file *file);
int cfilter_req_args(unsigned int cmd, u32 flags, u32 timeout,
		     const char *source);
int cfilter_get_key_req(unsigned int cmd, const void __user *argp,
			struct cfilter_key_req *req, struct cfilter_packed *k);
int cfilter_get_source_req(const struct cfilter_source_req __user *ureq,
			   struct cfilter_source_req *req, u32 flags);
const char *cfilter_req_source(u32 flags, const char *source);
int cfilter_contains(const struct cfilter_set *s,
		     const struct cfilter_packed *k);
bool cfilter_has_staged(struct file *file);

#endif /* CFILTER_KMOD_DEV_REQ_H */
