/* SPDX-License-Identifier: GPL-2.0 */
/* The programs' mirrors of the IPv4 source table: mirror.c */
#ifndef CFILTER_KMOD_MIRROR_H
#define CFILTER_KMOD_MIRROR_H

#include <linux/types.h>

struct bpf_map;
struct cfilter_set;

u64 cfilter_mirror_entries(void);
int cfilter_mirror_keep(struct bpf_map *pf_map, struct bpf_map *map);
void cfilter_mirror_forget(struct bpf_map *pf_map);
void cfilter_mirror_gate(const struct cfilter_set *s);
void cfilter_mirror_swap(struct cfilter_set *old, struct cfilter_set *s);
void cfilter_mirror_settle(void);
u64 cfilter_mirror_drops(const struct cfilter_set *s);

#endif /* CFILTER_KMOD_MIRROR_H */
