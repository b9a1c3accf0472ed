/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How many hashed bits a loader gives the program's prefilter (struct
 * cfilter_prefilter): in exact mode cfilter_prefilter_bits_for() the
 * addresses the module holds when the program is loaded (a set that grows
 * past them only calls the kfunc more often, and `cfctl attach` again
 * sizes anew); in compact mode the count the module keeps a record of
 * (struct cfilter_info's prefilter_bits), the only size it fills there.
 * cfctl and bench/xdp size it alike. Include after cfilter.skel.h.
 */
#ifndef CFILTER_USER_PREFILTER_SIZE_H
#define CFILTER_USER_PREFILTER_SIZE_H

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
	skel->rodata->prefilter_hshift = 32 - __builtin_ctz(bits);
	return bpf_map__set_value_size(skel->maps.cfilter_prefilter,
				       sizeof(struct cfilter_prefilter) + bits / 8);
}

#endif /* CFILTER_USER_PREFILTER_SIZE_H */
