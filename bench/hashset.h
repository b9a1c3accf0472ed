/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The benchmark's baseline: a plain chained hash set of full keys, the
 * structure a filter of exact keys would otherwise be.
 */
#ifndef CFILTER_BENCH_HASHSET_H
#define CFILTER_BENCH_HASHSET_H

#include <stdbool.h>
#include <stdint.h>

struct hashset;

/* A set for up to @max_keys keys of @key_len bytes; NULL if out of memory. */
struct hashset *hashset_create(uint64_t max_keys, uint32_t key_len,
			       uint64_t seed);
void hashset_destroy(struct hashset *h);

/* 0, -EEXIST, or -ENOMEM. */
int hashset_insert(struct hashset *h, const void *key);
bool hashset_contains(const struct hashset *h, const void *key);

/* Keys stored; bytes allocated (see hashset.c for the malloc model). */
uint64_t hashset_count(const struct hashset *h);
uint64_t hashset_memory_bytes(const struct hashset *h);

#endif /* CFILTER_BENCH_HASHSET_H */
