/* SPDX-License-Identifier: GPL-2.0 */
/* The programs' compact copies of the IPv4 source table: copy.c */
#ifndef CFILTER_KMOD_COPY_H
#define CFILTER_KMOD_COPY_H

#include <linux/types.h>

struct bpf_map;
struct cfilter_set;

u64 cfilter_copy_entries(void);
int cfilter_copy_add(int prefilter_fd, int copy_fd);
void cfilter_copy_forget(struct bpf_map *pf_map);
void cfilter_copy_gate(const struct cfilter_set *s);
void cfilter_copy_swap(struct cfilter_set *old, struct cfilter_set *s);
void cfilter_copy_settle(void);
u64 cfilter_copy_drops(const struct cfilter_set *s);

#endif /* CFILTER_KMOD_COPY_H */
