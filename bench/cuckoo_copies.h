/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The entry points of the core's copies (core_copy.h) that the benchmark
 * uses: readers run on tables that the core built.
 */
#ifndef CFILTER_BENCH_CUCKOO_COPIES_H
#define CFILTER_BENCH_CUCKOO_COPIES_H

#include "cuckoo.h"

/* cuckoo_nov.c: without the version protocol */
bool cuckoo_nov_contains(const struct cuckoo *c, const void *key);
/* cuckoo_twin.c: the core's own reader, compiled again */
bool cuckoo_twin_contains(const struct cuckoo *c, const void *key);
/* cuckoo_short.c: IPv4 tables placed by the short hash */
struct cuckoo *cuckoo_short_create(const struct cuckoo_params *p);
void cuckoo_short_destroy(struct cuckoo *c);
int cuckoo_short_insert(struct cuckoo *c, const void *key);

#endif /* CFILTER_BENCH_CUCKOO_COPIES_H */
