/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How many hashed bits a loader gives the program's prefilter (struct
 * cfilter_prefilter): in exact mode cfilter_prefilter_bits_for() the
 * addresses the module holds when the program is loaded (a set that grows
 * past them only calls the kfunc more often, and `cfctl attach` again
 * sizes anew); in compact mode the count the module keeps a record of
 * (struct cfilter_info's prefilter_bits), the only size it fills there.
 * And the mirror beside it: as many entries as the module's table
 * needs (struct cfilter_info's mirror_entries), handed over after the
 * prefilter. cfctl, bench/xdp and the selftests size and hand them over
 * alike. Include after cfilter.skel.h.
 */
#ifndef CFILTER_USER_PREFILTER_SIZE_H
#define CFILTER_USER_PREFILTER_SIZE_H

#include <errno.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <bpf/libbpf.h>
#include <linux/cfilter.h>

/* The bits for a module that says @info and holds @addresses addresses. */
static inline __u32 cf_prefilter_bits(const struct cfilter_info *info,
				      __u64 addresses)
{
	if (info->mode == CFILTER_MODE_COMPACT && info->prefilter_bits)
		return info->prefilter_bits;
	return cfilter_prefilter_bits_for(addresses);
}

/* Sizes the prefilter of @skel, not yet loaded, to @bits hashed bits. */
static inline int cf_prefilter_size(struct cfilter_bpf *skel, __u32 bits)
{
	skel->rodata->prefilter_hmask = bits / 64 - 1;
	return bpf_map__set_value_size(skel->maps.cfilter_prefilter,
				       sizeof(struct cfilter_prefilter) + bits / 8);
}

/* The entries of the mirror a module that says @info keeps; 0: none. */
static inline __u64 cf_mirror_entries(const struct cfilter_info *info)
{
	if (info->size < offsetof(struct cfilter_info, mirror_entries) +
			 sizeof(info->mirror_entries))
		return 0;
	return info->mirror_entries;
}

/*
 * Sizes the mirror of @skel, not yet loaded, to @entries; with none, one
 * entry, which the module takes for no mirror.
 */
static inline int cf_mirror_size(struct cfilter_bpf *skel, __u64 entries)
{
	if (entries > 0xffffffffULL)
		return -E2BIG;
	return bpf_map__set_max_entries(skel->maps.cfilter_mirror,
					entries ? entries : 1);
}

/*
 * Hands the prefilter map of @skel, loaded, to the module on @dev (open
 * for writing), then its mirror if it was sized for one. Returns 0, or the
 * negative errno of the prefilter's handover; *@mirror_err: 0, the mirror's,
 * or -ENOENT for a program sized for none.
 */
static inline int cf_hand_over(struct cfilter_bpf *skel, int dev,
			       int *mirror_err)
{
	struct cfilter_prefilter_req r = {
		.map_fd = bpf_map__fd(skel->maps.cfilter_prefilter),
	};
	struct cfilter_mirror_req c = {
		.prefilter_fd = r.map_fd,
		.mirror_fd = bpf_map__fd(skel->maps.cfilter_mirror),
	};

	*mirror_err = -ENOENT;
	if (ioctl(dev, CFILTER_IOC_PREFILTER, &r))
		return -errno;
	if (bpf_map__max_entries(skel->maps.cfilter_mirror) > 1)
		*mirror_err = ioctl(dev, CFILTER_IOC_MIRROR, &c) ? -errno : 0;
	return 0;
}

#endif /* CFILTER_USER_PREFILTER_SIZE_H */
