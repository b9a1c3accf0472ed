/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The renamed entry points of cuckoo_nov.c that the benchmark uses: the
 * same filter, whose readers skip the version protocol.
 */
#ifndef CFILTER_BENCH_CUCKOO_NOV_H
#define CFILTER_BENCH_CUCKOO_NOV_H

#include "cuckoo.h"

struct cuckoo *cuckoo_nov_create(const struct cuckoo_params *p);
void cuckoo_nov_destroy(struct cuckoo *c);
int cuckoo_nov_insert(struct cuckoo *c, const void *key);
int cuckoo_nov_delete(struct cuckoo *c, const void *key);
bool cuckoo_nov_contains(const struct cuckoo *c, const void *key);
void cuckoo_nov_get_stats(const struct cuckoo *c, struct cuckoo_stats *st);

#endif /* CFILTER_BENCH_CUCKOO_NOV_H */
