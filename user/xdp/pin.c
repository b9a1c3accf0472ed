// SPDX-License-Identifier: GPL-2.0
/*
 * Pinned maps in bpffs, as the counters and the drop log keep them: what
 * fails is reported here, in one wording, but for a pin that is not there,
 * which callers expect.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <bpf/bpf.h>

#include "lib/util.h"
#include "xdp/pin.h"
#include "xdp/xdp.h"

/*
 * Opens what is pinned at @path. Returns its descriptor, -ENOENT if
 * nothing is (not reported), or another negative errno, reported.
 */
int pin_open(const char *path)
{
	int fd = bpf_obj_get(path);
	int err;

	if (fd >= 0)
		return fd;
	err = -errno;
	if (err != -ENOENT)
		cf_bpf_err(err, "cannot open %s: %s", path, strerror(-err));
	return err;
}

/* Pins map @fd, @what, at @path. Returns 0 or a reported negative errno. */
int pin_map(int fd, const char *path, const char *what)
{
	int err;

	if (!bpf_obj_pin(fd, path))
		return 0;
	err = -errno;
	cf_bpf_err(err, "cannot pin %s at %s: %s", what, path, strerror(-err));
	return err;
}

/* Creates @dir if it is not there. Returns 0 or a reported negative errno. */
int pin_dir(const char *dir)
{
	int err;

	if (!mkdir(dir, 0700) || errno == EEXIST)
		return 0;
	err = -errno;
	cf_err("cannot create %s: %s (is bpffs mounted on %s?)", dir,
	       strerror(-err), CF_BPFFS);
	return err;
}
