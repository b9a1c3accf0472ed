/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CFCTL_XDP_H
#define CFCTL_XDP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/cfilter.h>

/*
 * Where the counter map every attached interface shares is pinned
 * (xdp_stats.c says why there): in iproute2's place for maps pinned by
 * name, and again in bpftool's. An older cfctl pinned it at
 * CF_STATS_PIN_OLD, with totals only.
 */
#define CF_BPFFS		"/sys/fs/bpf"
#define CF_PIN_ROOT		CF_BPFFS "/tc/globals"
#define CF_STATS_PIN		CF_PIN_ROOT "/cfilter_stats"
#define CF_STATS_PIN_BPFTOOL	CF_BPFFS "/cfilter_stats"
/* iproute2's place for XDP objects when /sys/fs/bpf/xdp is not its link */
#define CF_STATS_PIN_XDP	CF_BPFFS "/xdp/globals/cfilter_stats"
#define CF_STATS_PIN_OLD	CF_BPFFS "/cfilter/stats"

#define CF_MODULE	"/sys/module/cfilter"
/* Present exactly when cfilter.ko is loaded with the BTF its kfunc needs. */
#define CF_MODULE_BTF	"/sys/kernel/btf/cfilter"

/* The counters, summed over the CPUs: per interface slot, and in total. */
struct cf_stats {
	__u64	total[__CFILTER_STAT_MAX];
	__u64	iface[CFILTER_STATS_IFACES][__CFILTER_STAT_MAX];
};

enum cf_xdp_mode {
	CF_XDP_AUTO,		/* the kernel's choice: native if the driver can */
	CF_XDP_NATIVE,
	CF_XDP_GENERIC,
	CF_TC,			/* not XDP: a clsact ingress filter */
};

/* How to attach (cfctl attach's options). */
struct xdp_attach_req {
	enum cf_xdp_mode	mode;
	bool			match_dst;	/* look destinations up too */
	bool			force;		/* replace another tool's XDP program */
	int			priority;	/* in libxdp's dispatcher; -1: default */
	bool			verbose;	/* libbpf's messages */
	bool			dry_run;
};

/* Where one of cfilter's programs runs (cfctl status, metrics). */
struct xdp_where {
	char		ifname[16];	/* IF_NAMESIZE */
	const char	*hook;		/* "xdp" or "tc" */
	const char	*mode;		/* native, generic, offloaded or tc */
	int		match_dst;	/* 1, 0, or a negative errno: unknown */
	int		prefilter;	/* kept by the module: the same */
};

/* These print what went wrong and return an enum cf_exit status. */
int xdp_attach(const char *ifname, const struct xdp_attach_req *r);
int xdp_detach(const char *ifname, bool verbose, bool dry_run);
int xdp_stats(struct cf_stats *st);
int xdp_stats_read(struct cf_stats *st, bool *found);
int xdp_status(bool json);
int xdp_where_all(struct xdp_where **list, size_t *n);
void xdp_warn_dst(const struct cfilter_key *keys, size_t n);

#endif /* CFCTL_XDP_H */
