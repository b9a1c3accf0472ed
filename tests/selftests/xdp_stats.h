/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The XDP program's counters (bpf/cfilter.bpf.c: a per-CPU array indexed
 * by enum cfilter_stat), summed over the CPUs, for the selftests that run
 * the program. Include after cfilter.skel.h.
 */
#ifndef CFILTER_SELFTESTS_XDP_STATS_H
#define CFILTER_SELFTESTS_XDP_STATS_H

#include <errno.h>
#include <stdlib.h>
#include <bpf/libbpf.h>
#include <linux/cfilter.h>

/* Fills @sums; returns 0 or a positive errno. */
static inline int xdp_stats_sum(struct cfilter_bpf *skel,
				__u64 sums[__CFILTER_STAT_MAX])
{
	int cpu, ncpus = libbpf_num_possible_cpus();
	__u64 *vals;
	int err = 0;
	__u32 key;

	if (ncpus <= 0)
		return ncpus ? -ncpus : EINVAL;
	vals = calloc(ncpus, sizeof(*vals));
	if (!vals)
		return ENOMEM;
	for (key = 0; key < __CFILTER_STAT_MAX && !err; key++) {
		if (bpf_map__lookup_elem(skel->maps.cfilter_stats, &key,
					 sizeof(key), vals,
					 ncpus * sizeof(*vals), 0))
			err = errno;
		sums[key] = 0;
		for (cpu = 0; cpu < ncpus; cpu++)
			sums[key] += vals[cpu];
	}
	free(vals);
	return err;
}

#endif /* CFILTER_SELFTESTS_XDP_STATS_H */
