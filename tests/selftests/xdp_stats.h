/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The XDP program's counters (bpf/cfilter.bpf.c: a per-CPU array of
 * struct cfilter_if_stats), summed over the CPUs and interfaces, and how
 * the selftests that run the program load it and show libbpf's warnings.
 * Include after cfilter.skel.h.
 */
#ifndef CFILTER_SELFTESTS_XDP_STATS_H
#define CFILTER_SELFTESTS_XDP_STATS_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <unistd.h>
#include <linux/cfilter.h>

#include "xdp/prefilter_size.h"

/* For libbpf_set_print(): libbpf's warnings as TAP diagnostics. */
static inline int libbpf_print(enum libbpf_print_level level, const char *fmt,
			       va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	fprintf(stderr, "# libbpf: ");
	return vfprintf(stderr, fmt, ap);
}

/*
 * Opens and loads the program (rodata match_dst = @match_dst) with a
 * counter map of its own: the object pins its map by name, and a test
 * must neither count into a deployment's counters nor leave a pin behind.
 * Its prefilter and mirror are sized as cfctl sizes them for the
 * module loaded now (with no address counted: the fewest hashed bits in
 * exact mode). Returns NULL with errno set on failure.
 */
static inline struct cfilter_bpf *xdp_load_private(bool match_dst)
{
	struct cfilter_bpf *skel = cfilter_bpf__open();
	struct cfilter_info info = { .size = sizeof(info) };
	int err = 0, dev;

	if (!skel)
		return NULL;
	skel->rodata->match_dst = match_dst;
	dev = open("/dev/cfilter", O_RDONLY | O_CLOEXEC);
	if (dev >= 0 && !ioctl(dev, CFILTER_IOC_INFO, &info)) {
		err = cf_prefilter_size(skel, cf_prefilter_bits(&info, 0));
		if (!err)
			err = cf_mirror_size(skel, cf_mirror_entries(&info));
	}
	if (dev >= 0)
		close(dev);
	if (!err)
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

/*
 * Hands @skel's prefilter map, and its mirror if it was sized for
 * one, to the module on @dev (a descriptor open for writing), as cfctl
 * does. Returns 0 or a positive errno, the prefilter's or the mirror's.
 */
static inline int xdp_hand_over(struct cfilter_bpf *skel, int dev)
{
	int mirror_err, err = cf_hand_over(skel, dev, &mirror_err);

	if (!err && mirror_err != -ENOENT)
		err = mirror_err;
	return -err;
}

/*
 * bpf_prog_test_run() runs an XDP program as if a packet arrived on the
 * loopback device of the caller's network namespace: its counters are in
 * this slot.
 */
#define XDP_TEST_RUN_SLOT	1

/*
 * Fills @sums with the counts of interface slot @slot; returns 0 or a
 * positive errno. One lookup, for a test that reads them every frame.
 */
static inline int xdp_stats_slot(struct cfilter_bpf *skel, __u32 slot,
				 __u64 sums[__CFILTER_STAT_MAX])
{
	int cpu, ncpus = libbpf_num_possible_cpus();
	struct cfilter_if_stats *vals;
	int err = 0, i;

	if (ncpus <= 0)
		return ncpus ? -ncpus : EINVAL;
	vals = calloc(ncpus, sizeof(*vals));
	if (!vals)
		return ENOMEM;
	if (bpf_map__lookup_elem(skel->maps.cfilter_stats, &slot, sizeof(slot),
				 vals, ncpus * sizeof(*vals), 0))
		err = errno;
	for (i = 0; i < __CFILTER_STAT_MAX; i++)
		sums[i] = 0;
	for (cpu = 0; !err && cpu < ncpus; cpu++)
		for (i = 0; i < __CFILTER_STAT_MAX; i++)
			sums[i] += vals[cpu].packets[i];
	free(vals);
	return err;
}

/*
 * Fills @sums with every interface's counts; returns 0 or a positive errno.
 * One batch read of every slot.
 */
static inline int xdp_stats_sum(struct cfilter_bpf *skel,
				__u64 sums[__CFILTER_STAT_MAX])
{
	int ncpus = libbpf_num_possible_cpus();
	__u32 keys[CFILTER_STATS_IFACES], out, n = CFILTER_STATS_IFACES;
	struct cfilter_if_stats *vals;
	int err = 0, i;
	size_t k;

	if (ncpus <= 0)
		return ncpus ? -ncpus : EINVAL;
	vals = calloc((size_t)ncpus * CFILTER_STATS_IFACES, sizeof(*vals));
	if (!vals)
		return ENOMEM;
	/* ENOENT: the batch reached the map's end, as it must here. */
	if (bpf_map_lookup_batch(bpf_map__fd(skel->maps.cfilter_stats), NULL,
				 &out, keys, vals, &n, NULL) && errno != ENOENT)
		err = errno;
	else if (n != CFILTER_STATS_IFACES)
		err = EIO;
	for (i = 0; i < __CFILTER_STAT_MAX; i++)
		sums[i] = 0;
	for (k = 0; !err && k < (size_t)ncpus * CFILTER_STATS_IFACES; k++)
		for (i = 0; i < __CFILTER_STAT_MAX; i++)
			sums[i] += vals[k].packets[i];
	free(vals);
	return err;
}

#endif /* CFILTER_SELFTESTS_XDP_STATS_H */
