/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The XDP program's counters (bpf/cfilter.bpf.c: a per-CPU array of
 * struct cfilter_if_stats), summed over the CPUs and interfaces, and how
 * the selftests that run the program load it. Include after cfilter.skel.h.
 */
#ifndef CFILTER_SELFTESTS_XDP_STATS_H
#define CFILTER_SELFTESTS_XDP_STATS_H

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <bpf/libbpf.h>
#include <linux/cfilter.h>

/*
 * Opens and loads the program (rodata match_dst = @match_dst) with a
 * counter map of its own: the object pins its map by name, and a test
 * must neither count into a deployment's counters nor leave a pin behind.
 * Returns NULL with errno set on failure.
 */
static inline struct cfilter_bpf *xdp_load_private(bool match_dst)
{
	struct cfilter_bpf *skel = cfilter_bpf__open();
	int err;

	if (!skel)
		return NULL;
	skel->rodata->match_dst = match_dst;
	err = bpf_map__set_pin_path(skel->maps.cfilter_stats, NULL);
	if (!err)
		err = cfilter_bpf__load(skel);
	if (err) {
		cfilter_bpf__destroy(skel);
		errno = -err;
		return NULL;
	}
	return skel;
}

/* Fills @sums with every interface's counts; returns 0 or a positive errno. */
static inline int xdp_stats_sum(struct cfilter_bpf *skel,
				__u64 sums[__CFILTER_STAT_MAX])
{
	int cpu, ncpus = libbpf_num_possible_cpus();
	struct cfilter_if_stats *vals;
	int err = 0, i;
	__u32 key;

	if (ncpus <= 0)
		return ncpus ? -ncpus : EINVAL;
	vals = calloc(ncpus, sizeof(*vals));
	if (!vals)
		return ENOMEM;
	for (i = 0; i < __CFILTER_STAT_MAX; i++)
		sums[i] = 0;
	for (key = 0; key < CFILTER_STATS_IFACES && !err; key++) {
		if (bpf_map__lookup_elem(skel->maps.cfilter_stats, &key,
					 sizeof(key), vals,
					 ncpus * sizeof(*vals), 0)) {
			err = errno;
			break;
		}
		for (cpu = 0; cpu < ncpus; cpu++)
			for (i = 0; i < __CFILTER_STAT_MAX; i++)
				sums[i] += vals[cpu].packets[i];
	}
	free(vals);
	return err;
}

#endif /* CFILTER_SELFTESTS_XDP_STATS_H */
