/* SPDX-License-Identifier: GPL-2.0 */
/* The live set's coordinator: publishing a set, retiring the old (live.c). */
#ifndef CFILTER_KMOD_LIVE_H
#define CFILTER_KMOD_LIVE_H

#include <linux/types.h>

struct cfilter_set;

struct cfilter_set *cfilter_live_swap(struct cfilter_set *s);
void cfilter_live_retire(struct cfilter_set *old);
void cfilter_live_publish(struct cfilter_set *s);
u64 cfilter_live_grows(void);

#endif /* CFILTER_KMOD_LIVE_H */
