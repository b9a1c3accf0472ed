/* SPDX-License-Identifier: GPL-2.0 */
/* The programs' prefilter maps, kept in step with the live set: prefilter.c */
#ifndef CFILTER_KMOD_PREFILTER_H
#define CFILTER_KMOD_PREFILTER_H

#include <linux/types.h>

struct cfilter_set;

int cfilter_prefilter_add(int fd);
int cfilter_prefilter_add_mirror(int prefilter_fd, int mirror_fd);
void cfilter_prefilter_changed(const struct cfilter_set *s, unsigned int t,
			       const u8 *addr, u32 len, bool add);
void cfilter_prefilter_swap(const struct cfilter_set *s);
void cfilter_prefilter_settle(void);
void cfilter_prefilter_release(void);

#endif /* CFILTER_KMOD_PREFILTER_H */
