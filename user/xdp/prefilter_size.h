/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How many hashed bits a loader gives the program's prefilter (struct
 * cfilter_prefilter): 16 per exact address the module holds when the
 * program is loaded (none in compact mode), a power of two, at least the
 * object's own 4096 and at most CFILTER_PREFILTER_HASHED_MAX words. A
 * random miss then finds both its bits set about once in 100; a set that
 * grows past its size only calls the kfunc more often (`cfctl attach`
 * again sizes anew).
 * cfctl and bench/xdp size it alike. Include after cfilter.skel.h.
 */
#ifndef CFILTER_USER_PREFILTER_SIZE_H
#define CFILTER_USER_PREFILTER_SIZE_H

#include <bpf/libbpf.h>
#include <linux/cfilter.h>

#define CF_PREFILTER_BITS_PER_KEY	16
#define CF_PREFILTER_MIN_BITS		4096U

static inline __u32 cf_prefilter_hbits(__u64 addresses)
{
	__u64 want = addresses * CF_PREFILTER_BITS_PER_KEY;
	__u32 n = CF_PREFILTER_MIN_BITS;

	while (n < want && n < CFILTER_PREFILTER_HASHED_MAX * 64)
		n *= 2;
	return n;
}

/* Sizes the prefilter of @skel, not yet loaded, for @addresses. */
static inline int cf_prefilter_size(struct cfilter_bpf *skel, __u64 addresses)
{
	__u32 n = cf_prefilter_hbits(addresses);

	skel->rodata->prefilter_hshift = 32 - __builtin_ctz(n);
	return bpf_map__set_value_size(skel->maps.cfilter_prefilter,
				       sizeof(struct cfilter_prefilter) + n / 8);
}

#endif /* CFILTER_USER_PREFILTER_SIZE_H */
