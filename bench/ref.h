/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cuckoo filter paper's reference implementation (efficient/cuckoofilter,
 * C++), as bench.c sees it when built with -DCFILTER_REF (make REF=dir):
 * cuckoofilter::CuckooFilter<uint64_t, 16>, 4 slots per bucket, wrapped by
 * ref.cc in plain C functions. Nothing of the reference is in this tree:
 * ref.cc is compiled against the user's copy of it.
 */
#ifndef CFILTER_BENCH_REF_H
#define CFILTER_BENCH_REF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cf_ref;

/* A filter sized for @slots slots at 95% load; NULL if it has any other size. */
struct cf_ref *cf_ref_create(uint64_t slots);
void cf_ref_destroy(struct cf_ref *r);
/* 0, or -ENOSPC: the filter is full (its one-entry victim cache is taken). */
int cf_ref_insert(struct cf_ref *r, const uint32_t *key);
/* 0, or -ENOENT */
int cf_ref_delete(struct cf_ref *r, const uint32_t *key);
/* 1 if @key may be present, 0 if it is not: the key is the item (uint64_t) *key. */
int cf_ref_contains(const struct cf_ref *r, const uint32_t *key);
uint64_t cf_ref_count(const struct cf_ref *r);
uint64_t cf_ref_memory_bytes(const struct cf_ref *r);

#ifdef __cplusplus
}
#endif

#endif
