// SPDX-License-Identifier: GPL-2.0
/*
 * The counter map every attached program shares: find it, pin it where
 * every loader looks, sum its counters.
 *
 * The object pins the map by name (LIBBPF_PIN_BY_NAME), and each loader
 * looks for such a pin in its own place: iproute2 in CF_PIN_ROOT, which
 * it fixes (ip link ... obj and tc ... bpf obj alike, ip through its link
 * /sys/fs/bpf/xdp -> tc), bpftool in libbpf's default /sys/fs/bpf, which
 * it offers no option to change. cfctl points libbpf at iproute2's place
 * and pins the same map in bpftool's too, so that whichever of the three
 * loads the object, it counts into the one map cfctl stats reads. libxdp
 * keeps its dispatchers' pins in /sys/fs/bpf/xdp as well: cfctl makes
 * iproute2's link there first, as iproute2 would, so both share it; where
 * xdp-loader made a directory of it before, ip's XDP place is
 * CF_STATS_PIN_XDP, and cfctl pins the map there too. A map bpftool pinned before any other loader ran is
 * adopted: cfctl attach pins it in iproute2's place. Until then, and for
 * programs an older cfctl attached (CF_STATS_PIN_OLD), stats adds up
 * every map it finds.
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

#include "lib/util.h"
#include "xdp/pin.h"
#include "xdp/xdp.h"
#include "xdp/xdp_int.h"

/* The layouts of the counter map: today's, and before per-interface slots. */
struct stats_shape {
	__u32	value_size;
	__u32	max_entries;
};

static const struct stats_shape shape_now = {
	sizeof(struct cfilter_if_stats), CFILTER_STATS_IFACES
};

static const struct stats_shape shape_old = { sizeof(__u64), __CFILTER_STAT_MAX };

/*
 * A pinned object with our path but another shape (a stray pin) would be
 * read or written with the wrong layout: refuse it. Sets *@id.
 */
static bool stats_map_ok(int fd, const struct stats_shape *shape, __u32 *id)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return false;
	*id = info.id;
	return info.type == BPF_MAP_TYPE_PERCPU_ARRAY &&
	       info.key_size == sizeof(__u32) &&
	       info.value_size == shape->value_size &&
	       info.max_entries == shape->max_entries;
}

/*
 * Opens the counter map pinned at @path. Returns its descriptor and sets
 * *@id, -ENOENT if nothing is pinned there (not reported), or another
 * negative errno after reporting it.
 */
static int open_pin(const char *path, const struct stats_shape *shape,
		    __u32 *id)
{
	int fd = pin_open(path);

	if (fd >= 0 && !stats_map_ok(fd, shape, id)) {
		cf_err("%s is not cfilter's counter map: remove it and run cfctl attach again",
		       path);
		close(fd);
		return -EINVAL;
	}
	return fd;
}

static int pin_at(int fd, const char *path)
{
	return pin_map(fd, path, "the counter map");
}

/**
 * stats_bpffs_layout() - iproute2's link /sys/fs/bpf/xdp -> tc
 *
 * libxdp keeps its dispatchers' pins in /sys/fs/bpf/xdp, and makes it a
 * directory if it is not there; iproute2 makes that name a link to its
 * own place. Made first, the link serves both, and ip's XDP loads reuse
 * the map pinned in CF_PIN_ROOT. Where a directory is there already,
 * stats_map_share() pins where ip then looks. Call before libxdp runs.
 */
void stats_bpffs_layout(void)
{
	if (!mkdir(CF_BPFFS "/tc", 0700) || errno == EEXIST)
		if (symlink(CF_BPFFS "/tc/", CF_BPFFS "/xdp"))
			errno = 0;
}

/**
 * stats_map_prepare() - make CF_STATS_PIN the map a load will reuse
 *
 * Checks the map pinned there, or adopts the one bpftool (or ip, where
 * /sys/fs/bpf/xdp is not its link) pinned in its place, and creates
 * CF_PIN_ROOT for libbpf to pin a new map in.
 *
 * Return: 1 if a map is pinned at CF_STATS_PIN, 0 if the load will create
 * it, or a reported negative errno.
 */
int stats_map_prepare(void)
{
	int fd, err;
	__u32 id;

	fd = open_pin(CF_STATS_PIN, &shape_now, &id);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	if (fd != -ENOENT)
		return fd;
	err = pin_dir(CF_BPFFS "/tc");
	if (!err)
		err = pin_dir(CF_PIN_ROOT);
	if (err)
		return err;
	stats_bpffs_layout();
	/* a map another loader pinned first is adopted */
	fd = open_pin(CF_STATS_PIN_BPFTOOL, &shape_now, &id);
	if (fd == -ENOENT)
		fd = open_pin(CF_STATS_PIN_XDP, &shape_now, &id);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	err = pin_at(fd, CF_STATS_PIN);
	close(fd);
	return err ? err : 1;
}

/*
 * After a load: pins @map where bpftool looks, unless a map is pinned
 * there already (the same, or one a bpftool load made first, which stats
 * still reads). Returns 0 or a reported negative errno.
 */
int stats_map_share(struct bpf_map *map)
{
	struct stat st;
	int err;

	if (access(CF_STATS_PIN_BPFTOOL, F_OK)) {
		err = pin_at(bpf_map__fd(map), CF_STATS_PIN_BPFTOOL);
		if (err)
			return err;
	}
	/* /sys/fs/bpf/xdp a directory of libxdp's: ip's XDP place is there */
	if (lstat(CF_BPFFS "/xdp", &st) || !S_ISDIR(st.st_mode) ||
	    !access(CF_STATS_PIN_XDP, F_OK))
		return 0;
	err = pin_dir(CF_BPFFS "/xdp/globals");
	return err ? err : pin_at(bpf_map__fd(map), CF_STATS_PIN_XDP);
}

/* Undoes a first attach that failed: neither pin stays. */
void stats_map_unpin(void)
{
	unlink(CF_STATS_PIN);
	unlink(CF_STATS_PIN_BPFTOOL);
	unlink(CF_STATS_PIN_XDP);
}

/* Adds the counters of map @fd, laid out as @shape, to @st. */
static int add_map(int fd, const char *path, const struct stats_shape *shape,
		   struct cf_stats *st)
{
	int ncpus = libbpf_num_possible_cpus(), cpu, ret = -1;
	__u32 key, i;
	__u64 *values;
	size_t per_cpu = shape->value_size / sizeof(__u64);

	if (ncpus < 0) {
		cf_err("cannot count the CPUs: %s", strerror(-ncpus));
		return -1;
	}
	values = calloc(ncpus, shape->value_size);
	if (!values) {
		cf_err("out of memory");
		return -1;
	}
	for (key = 0; key < shape->max_entries; key++) {
		if (bpf_map_lookup_elem(fd, &key, values)) {
			cf_err("cannot read %s: %s", path, strerror(errno));
			goto out;
		}
		for (cpu = 0; cpu < ncpus; cpu++) {
			const __u64 *v = values + cpu * per_cpu;

			if (shape == &shape_old) {
				st->total[key] += *v;
				continue;
			}
			for (i = 0; i < __CFILTER_STAT_MAX; i++) {
				st->iface[key][i] += v[i];
				st->total[i] += v[i];
			}
		}
	}
	ret = 0;
out:
	free(values);
	return ret;
}

/**
 * xdp_stats_read() - read the pinned counters summed over every CPU
 * @st:    set to the sums per interface slot and in total; all zero if
 *         no map is pinned (no program loaded since boot)
 * @found: set if a map was pinned
 *
 * Adds up every distinct counter map pinned where a loader puts one.
 *
 * Return: enum cf_exit: CF_SYSTEM if a map is there but cannot be read.
 */
int xdp_stats_read(struct cf_stats *st, bool *found)
{
	static const struct {
		const char			*path;
		const struct stats_shape	*shape;
	} pins[] = {
		{ CF_STATS_PIN, &shape_now },
		{ CF_STATS_PIN_BPFTOOL, &shape_now },
		{ CF_STATS_PIN_XDP, &shape_now },
		{ CF_STATS_PIN_OLD, &shape_old },
	};
	__u32 ids[ARRAY_SIZE(pins)];
	unsigned int i, j, nmaps = 0;
	int fd, err;

	memset(st, 0, sizeof(*st));
	*found = false;
	for (i = 0; i < ARRAY_SIZE(pins); i++) {
		fd = open_pin(pins[i].path, pins[i].shape, &ids[nmaps]);
		if (fd == -ENOENT)
			continue;
		if (fd < 0)
			return CF_SYSTEM;
		for (j = 0; j < nmaps && ids[j] != ids[nmaps]; j++)
			;
		err = j < nmaps ? 0 :
		      add_map(fd, pins[i].path, pins[i].shape, st);
		close(fd);
		if (err)
			return CF_SYSTEM;
		if (j == nmaps)
			nmaps++;
	}
	*found = nmaps;
	return CF_OK;
}

/**
 * xdp_stats() - xdp_stats_read(), where a map must be pinned
 * @st: set to the sums per interface slot and in total
 *
 * Return: enum cf_exit: CF_SYSTEM, said, if no map is pinned.
 */
int xdp_stats(struct cf_stats *st)
{
	bool found;
	int ret = xdp_stats_read(st, &found);

	if (ret == CF_OK && !found) {
		cf_err("no XDP program attached: run cfctl attach IFACE");
		return CF_SYSTEM;
	}
	return ret;
}
