// SPDX-License-Identifier: GPL-2.0
/*
 * Where the drop log's maps are pinned, so that every loader of the
 * object shares them as it shares cfilter_stats (xdp_stats.c says why in
 * those places): cfctl attach pins them in iproute2's place (CF_PIN_ROOT),
 * adopting those bpftool or ip pinned first, and again where bpftool and
 * ip's XDP loads look. A reader opens every distinct set it finds there;
 * if none is pinned yet, it pins a set itself, in attach's places, for the
 * programs loaded later to use.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/cfilter.h>

#include "cfilter.skel.h"
#include "lib/util.h"
#include "xdp/droplog.h"
#include "xdp/pin.h"
#include "xdp/xdp.h"
#include "xdp/xdp_int.h"

const char *const log_map_names[LOG_NMAPS] = {
	[LOG_CTL]	= "cfilter_log_ctl",
	[LOG_CPU]	= "cfilter_log_cpu",
	[LOG_RB]	= "cfilter_log_rb",
};

/* The places, in the order a reader looks: attach's first. */
static const char *const places[LOG_PLACES] = {
	CF_PIN_ROOT,
	CF_BPFFS,
	CF_BPFFS "/xdp/globals",
};

static void pin_path(char *buf, size_t len, const char *place, enum log_map m)
{
	snprintf(buf, len, "%s/%s", place, log_map_names[m]);
}

/*
 * Is the map @fd shaped as @def defines it? A stray pin of another shape
 * (an older object's) would be read with the wrong layout. Sets *@id.
 */
static bool pin_fits(int fd, const struct bpf_map *def, __u32 *id)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return false;
	*id = info.id;
	return info.type == bpf_map__type(def) &&
	       info.key_size == bpf_map__key_size(def) &&
	       info.value_size == bpf_map__value_size(def) &&
	       info.max_entries == bpf_map__max_entries(def) &&
	       info.map_flags == bpf_map__map_flags(def);
}

/*
 * Opens the map pinned at @path, shaped as @def. Returns its descriptor,
 * -ENOENT if nothing is pinned there (not reported), or another negative
 * errno, reported.
 */
static int open_pin(const char *path, const struct bpf_map *def, __u32 *id)
{
	int fd = pin_open(path);

	if (fd >= 0 && !pin_fits(fd, def, id)) {
		cf_err("%s is not the drop log map of this cfilter (an older one's?): remove it while no program of cfilter runs, and attach again",
		       path);
		close(fd);
		return -EINVAL;
	}
	return fd;
}

static int pin_at(int fd, const char *path)
{
	return pin_map(fd, path, "the drop log's map");
}

/*
 * Map @m of @obj pinned in attach's place, or NULL to pin nothing: one
 * pinned already is checked, one bpftool or ip pinned in its place first
 * is adopted. Returns 0 or a reported negative errno.
 */
static int prepare_map(struct bpf_object *obj, enum log_map m, bool dry_run)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, log_map_names[m]);
	char path[128], other[128];
	unsigned int i;
	int fd, err;
	__u32 id;

	if (!map) {
		cf_err("the embedded program has no map %s", log_map_names[m]);
		return -ENOENT;
	}
	if (dry_run)
		return bpf_map__set_pin_path(map, NULL);
	pin_path(path, sizeof(path), places[0], m);
	fd = open_pin(path, map, &id);
	for (i = 1; fd == -ENOENT && i < LOG_PLACES; i++) {
		pin_path(other, sizeof(other), places[i], m);
		fd = open_pin(other, map, &id);
		if (fd >= 0) {
			err = pin_at(fd, path);
			close(fd);
			if (err)
				return err;
		}
	}
	if (fd >= 0)
		close(fd);
	else if (fd != -ENOENT)
		return fd;
	err = bpf_map__set_pin_path(map, path);
	if (err)
		cf_err("cannot set the pin path of %s: %s", log_map_names[m],
		       strerror(-err));
	return err;
}

/**
 * log_pins_prepare() - pin the drop log's maps of @obj where all share them
 * @obj:     the object about to be loaded, its counter map prepared
 *           (stats_map_prepare() made CF_PIN_ROOT)
 * @dry_run: pin nothing: the load's maps are its own
 *
 * Return: 0, or a reported negative errno.
 */
int log_pins_prepare(struct bpf_object *obj, bool dry_run)
{
	enum log_map m;
	int err;

	for (m = 0; m < LOG_NMAPS; m++) {
		err = prepare_map(obj, m, dry_run);
		if (err)
			return err;
	}
	return 0;
}

/**
 * log_pins_share() - pin the loaded maps where bpftool and ip look too
 * @obj: the object, loaded
 *
 * Where a map is pinned already (the same, or one another loader pinned
 * first, which a reader opens as well) it is left. Return: 0, or a
 * reported negative errno.
 */
int log_pins_share(struct bpf_object *obj)
{
	bool xdp_dir = false;
	char path[128];
	struct stat st;
	enum log_map m;
	unsigned int i;
	int err;

	/* /sys/fs/bpf/xdp a directory of libxdp's: ip's XDP place is there */
	if (!lstat(CF_BPFFS "/xdp", &st) && S_ISDIR(st.st_mode))
		xdp_dir = !mkdir(places[2], 0700) || errno == EEXIST;
	for (m = 0; m < LOG_NMAPS; m++) {
		struct bpf_map *map = bpf_object__find_map_by_name(obj,
							log_map_names[m]);

		for (i = 1; map && i < (xdp_dir ? 3U : 2U); i++) {
			pin_path(path, sizeof(path), places[i], m);
			if (!access(path, F_OK))
				continue;
			err = pin_at(bpf_map__fd(map), path);
			if (err)
				return err;
		}
	}
	return 0;
}

/*
 * The set pinned at @place into @s, unless its control map is one of the
 * @n in @sets already. Returns 1 if opened, 0 if none (or the same), or a
 * reported negative errno.
 */
static int open_place(struct cfilter_bpf *skel, const char *place,
		      struct log_set *sets, unsigned int n, struct log_set *s)
{
	char path[128];
	enum log_map m;
	unsigned int i;
	__u32 id;
	int fd;

	for (m = 0; m < LOG_NMAPS; m++)
		s->fd[m] = -1;
	for (m = 0; m < LOG_NMAPS; m++) {
		pin_path(path, sizeof(path), place, m);
		fd = open_pin(path, bpf_object__find_map_by_name(skel->obj,
					log_map_names[m]), &id);
		if (fd == -ENOENT && m == LOG_CTL)
			return 0;
		if (fd == -ENOENT)
			cf_err("%s is pinned without %s: remove the place's cfilter_log_* pins while no program of cfilter runs",
			       place, path);
		if (fd < 0)
			goto err;
		s->fd[m] = fd;
		if (m != LOG_CTL)
			continue;
		s->ctl_id = id;
		for (i = 0; i < n; i++)
			if (sets[i].ctl_id == id) {
				close(fd);
				return 0;
			}
	}
	return 1;
err:
	for (m = 0; m < LOG_NMAPS; m++)
		if (s->fd[m] >= 0)
			close(s->fd[m]);
	return -1;
}

/*
 * No set is pinned anywhere: pins one in attach's places, made from the
 * embedded object without its programs. Returns 0 or -1 (reported).
 */
static int pin_new_set(struct cfilter_bpf *skel)
{
	int err;

	bpf_program__set_autoload(skel->progs.cfilter_xdp, false);
	bpf_program__set_autoload(skel->progs.cfilter_tc, false);
	/* Counters are attach's to pin, with their own rules. */
	err = bpf_map__set_pin_path(skel->maps.cfilter_stats, NULL);
	if (err) {
		cf_err("cannot load the drop log's maps: %s", strerror(-err));
		return -1;
	}
	if (pin_dir(CF_BPFFS "/tc") || pin_dir(CF_PIN_ROOT))
		return -1;
	if (log_pins_prepare(skel->obj, false))
		return -1;
	err = cfilter_bpf__load(skel);
	if (err) {
		if (err == -ESRCH)	/* libbpf: the kfunc is in no BTF */
			cf_err("%s", access(CF_MODULE, F_OK) ? MSG_NO_MODULE :
			       "cfilter.ko has no BTF: its programs cannot run (see cfctl attach)");
		else
			cf_bpf_err(err, "cannot create the drop log's maps: %s",
				   strerror(-err));
		return -1;
	}
	return log_pins_share(skel->obj) ? -1 : 0;
}

/**
 * log_pins_open() - open every distinct set of the drop log's maps pinned
 * @sets: room for LOG_PLACES sets, their descriptors set
 * @n:    set to the number opened
 * @verbose: libbpf's messages too
 *
 * Pins a set first if there is none.
 *
 * Return: enum cf_exit.
 */
int log_pins_open(struct log_set *sets, unsigned int *n, bool verbose)
{
	struct cfilter_bpf *skel;
	unsigned int i;
	int ret = CF_SYSTEM, got;
	bool made = false;

	*n = 0;
	set_verbose(verbose);
	skel = cfilter_bpf__open();
	if (!skel) {
		cf_err("cannot open the embedded program: %s", strerror(errno));
		return CF_SYSTEM;
	}
	for (;;) {
		for (i = 0; i < LOG_PLACES; i++) {
			got = open_place(skel, places[i], sets, *n, &sets[*n]);
			if (got < 0)
				goto out;
			*n += got;
		}
		if (*n || made)
			break;
		if (pin_new_set(skel))
			goto out;
		made = true;
	}
	ret = *n ? CF_OK : CF_SYSTEM;
	if (!*n)
		cf_err("the drop log's maps are not where they were pinned");
out:
	for (; ret != CF_OK && *n; --*n)
		for (i = 0; i < LOG_NMAPS; i++)
			close(sets[*n - 1].fd[i]);
	cfilter_bpf__destroy(skel);
	return ret;
}
