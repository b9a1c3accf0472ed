/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of cfctl's XDP side share: xdp.c (attach, detach),
 * xdp_tc.c (the TC hook), xdp_stats.c (the counter map), xdp_status.c
 * (where the program runs) and xdp_prog.c (programs by id and name).
 */
#ifndef CFCTL_XDP_INT_H
#define CFCTL_XDP_INT_H

#include <stdbool.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

/* The kernel knows programs by these names, truncated to 15 characters. */
#define CF_PROG_NAME	"cfilter_xdp"
#define CF_TC_PROG_NAME	"cfilter_tc"

/* Present exactly when cfilter.ko is loaded with the BTF its kfunc needs. */
#define CF_MODULE_BTF	"/sys/kernel/btf/cfilter"

#define CF_MODULE	"/sys/module/cfilter"

/* xdp_prog.c */
void set_verbose(bool verbose);
int prog_open(__u32 id, char *name);
bool prog_is(__u32 prog_id, const char *want);

/* xdp_tc.c */
int tc_query(unsigned int ifindex, __u32 *prog_id);
int tc_attach(const char *ifname, unsigned int ifindex, int prog_fd,
	      bool replace);
int tc_detach(const char *ifname, unsigned int ifindex, bool dry_run);

/* xdp_stats.c */
int stats_map_prepare(void);
int stats_map_share(struct bpf_map *map);
void stats_map_unpin(void);

#endif /* CFCTL_XDP_INT_H */
