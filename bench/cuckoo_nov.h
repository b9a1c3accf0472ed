/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one entry point of cuckoo_nov.c that the benchmark uses: the reader
 * without the version protocol, run on tables that the core built (both
 * builds share every structure and all writer code).
 */
#ifndef CFILTER_BENCH_CUCKOO_NOV_H
#define CFILTER_BENCH_CUCKOO_NOV_H

#include "cuckoo.h"

bool cuckoo_nov_contains(const struct cuckoo *c, const void *key);

#endif /* CFILTER_BENCH_CUCKOO_NOV_H */
