// SPDX-License-Identifier: GPL-2.0
/*
 * The filter core once more, giving IPv4 tables the short hash they took
 * before the mixed one (cuckoo_hash32()), which only restored raw tables
 * take now: fill.c counts the seeds on which each fails to fill a table.
 */
#define CUCKOO_HASH_FOR(len)						\
	((len) == sizeof(u32) ? CUCKOO_HASH_SHORT32 : CUCKOO_HASH_LANES)
#define CUCKOO_COPY(name)	cuckoo_short_##name
#include "core_copy.h"
