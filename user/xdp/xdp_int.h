/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of cfctl's XDP side share: xdp.c (attach), xdp_detach.c
 * (detach), xdp_tc.c (the TC hook), xdp_stats.c (the counter map),
 * xdp_status.c (where the program runs), xdp_prog.c (programs by id and
 * name) and xdp_dispatch.c (libxdp's dispatcher).
 */
#ifndef CFCTL_XDP_INT_H
#define CFCTL_XDP_INT_H

#include <stdbool.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <linux/types.h>

#include "xdp/xdp.h"

/* The kernel knows programs by these names, truncated to 15 characters. */
#define CF_PROG_NAME	"cfilter_xdp"
#define CF_TC_PROG_NAME	"cfilter_tc"

/* The program libxdp attaches to an interface to run several. */
#define CF_DISPATCHER_NAME	"xdp_dispatcher"
/* How many programs a dispatcher runs at most (libxdp's own limit). */
#define CF_DISPATCH_MAX		10

/* One program of a dispatcher, as libxdp describes it. */
struct dispatch_prog {
	char		name[BPF_OBJ_NAME_LEN];
	__u32		id;
	unsigned int	priority;	/* lowest runs first */
	__u32		chain_actions;	/* 1 << XDP_*: the next program runs */
};

/* What the dispatcher of an interface runs, in order. */
struct dispatch_info {
	__u32			id;	/* the dispatcher's; 0: no dispatcher */
	enum cf_xdp_mode	mode;
	unsigned int		n;
	int			ours;	/* index of cfilter_xdp in progs, or -1 */
	struct dispatch_prog	progs[CF_DISPATCH_MAX];
};

/* xdp.c */
int iface_index(const char *ifname, unsigned int *ifindex);

/* xdp_prog.c */
void set_verbose(bool verbose);
int prog_open(__u32 id, char *name);
bool prog_is(__u32 prog_id, const char *want);

/* xdp_tc.c */
int tc_query(unsigned int ifindex, __u32 *prog_id);
int tc_attach(const char *ifname, unsigned int ifindex, int prog_fd,
	      bool replace);
int tc_detach(const char *ifname, unsigned int ifindex, bool dry_run);

/* xdp_dispatch.c */
void dispatch_clean(void);
int dispatch_query(unsigned int ifindex, struct dispatch_info *d);
int dispatch_attach(const char *ifname, unsigned int ifindex,
		    struct bpf_object *obj, enum cf_xdp_mode mode,
		    int priority, const struct dispatch_info *now,
		    struct dispatch_prog *out, __u32 *dispatcher_id);
void dispatch_report_error(int err, const char *ifname);
int dispatch_detach(const char *ifname, unsigned int ifindex,
		    const struct dispatch_info *d, bool dry_run);
int dispatch_detach_ours(const char *ifname, unsigned int ifindex,
			 bool dry_run);

/* xdp_stats.c */
void stats_bpffs_layout(void);
int stats_map_prepare(void);
int stats_map_share(struct bpf_map *map);
void stats_map_unpin(void);

#endif /* CFCTL_XDP_INT_H */
