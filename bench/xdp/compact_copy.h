/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A compact table made by the core on the host, its buckets copied out for
 * baseline.bpf.c's xdp_compact (compact_copy.c). Plain types: the bench's
 * files and the core's headers do not mix.
 */
#ifndef CFILTER_XDP_COMPACT_COPY_H
#define CFILTER_XDP_COMPACT_COPY_H

#include <stddef.h>
#include <stdint.h>

struct compact_copy {
	uint64_t	*words;		/* one per bucket: four 16-bit lanes */
	uint64_t	nwords;		/* a power of two */
	uint64_t	hash_a, hash_b;	/* the table's hash lanes */
	uint32_t	fp_mask;
};

int compact_copy_make(const void *keys, size_t stride, size_t n,
		      unsigned int fp_bits, struct compact_copy *cc);
void compact_copy_free(struct compact_copy *cc);

#endif
