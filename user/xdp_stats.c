// SPDX-License-Identifier: GPL-2.0
/*
 * The counter map every attached program shares, pinned at CF_STATS_PIN:
 * open it, pin it, sum its counters.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/cfilter.h>

#include "util.h"
#include "xdp.h"
#include "xdp_int.h"

/*
 * A pinned object with our path but another shape (an older cfctl, a stray
 * pin) would be read or written with the wrong layout: refuse it.
 */
static bool stats_map_ok(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return false;
	return info.type == BPF_MAP_TYPE_PERCPU_ARRAY &&
	       info.key_size == sizeof(__u32) &&
	       info.value_size == sizeof(__u64) &&
	       info.max_entries == __CFILTER_STAT_MAX;
}

/*
 * Opens the pinned counter map. Returns its descriptor, -ENOENT if nothing
 * is pinned (not reported), or another negative errno after reporting it.
 */
int stats_map_open(void)
{
	int fd = bpf_obj_get(CF_STATS_PIN);
	int err;

	if (fd < 0) {
		err = -errno;
		if (err == -EACCES || err == -EPERM)
			cf_err(MSG_NO_PERM_BPF);
		else if (err != -ENOENT)
			cf_err("cannot open %s: %s", CF_STATS_PIN,
			       strerror(-err));
		return err;
	}
	if (!stats_map_ok(fd)) {
		cf_err("%s is not cfilter's counter map: remove it and run cfctl attach again",
		       CF_STATS_PIN);
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* Creates the pin directory and pins the freshly created counter map. */
int stats_map_pin(struct bpf_map *map)
{
	int err;

	if (mkdir(CF_PIN_DIR, 0700) && errno != EEXIST) {
		err = -errno;
		cf_err("cannot create %s: %s (is bpffs mounted on /sys/fs/bpf?)",
		       CF_PIN_DIR, strerror(-err));
		return err;
	}
	err = bpf_map__pin(map, CF_STATS_PIN);
	if (err)
		cf_err("cannot pin the counter map at %s: %s (is bpffs mounted on /sys/fs/bpf?)",
		       CF_STATS_PIN, strerror(-err));
	return err;
}

/**
 * xdp_stats() - read the pinned counters summed over every CPU
 * @sums: set to the sum of each counter, indexed by enum cfilter_stat
 *
 * Return: enum cf_exit.
 */
int xdp_stats(__u64 sums[__CFILTER_STAT_MAX])
{
	int ncpus, fd, ret = CF_SYSTEM;
	__u64 *values, sum;
	__u32 key;
	int cpu;

	fd = stats_map_open();
	if (fd == -ENOENT)
		cf_err("no XDP program attached: run cfctl attach IFACE");
	if (fd < 0)
		return CF_SYSTEM;

	ncpus = libbpf_num_possible_cpus();
	if (ncpus < 0) {
		cf_err("cannot count the CPUs: %s", strerror(-ncpus));
		goto out_close;
	}
	values = calloc(ncpus, sizeof(*values));
	if (!values) {
		cf_err("out of memory");
		goto out_close;
	}

	for (key = 0; key < __CFILTER_STAT_MAX; key++) {
		if (bpf_map_lookup_elem(fd, &key, values)) {
			cf_err("cannot read %s: %s", CF_STATS_PIN,
			       strerror(errno));
			goto out_free;
		}
		for (sum = 0, cpu = 0; cpu < ncpus; cpu++)
			sum += values[cpu];
		sums[key] = sum;
	}
	ret = CF_OK;

out_free:
	free(values);
out_close:
	close(fd);
	return ret;
}
