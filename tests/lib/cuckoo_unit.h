/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cuckoo filter core as one translation unit, for host binaries that
 * look inside it (white-box tests, the fuzzer, stress and the bench's
 * unversioned build): they reach the core's private helpers, and the host
 * allocation budget and memory bound of cuckoo_env.h, which are per
 * translation unit. Include it instead of the core's files.
 */
#ifndef CFILTER_CUCKOO_UNIT_H
#define CFILTER_CUCKOO_UNIT_H

#include "cuckoo.c"
#include "cuckoo_read.c"
#include "cuckoo_write.c"
#include "cuckoo_list.c"
#include "cuckoo_raw.c"

#endif /* CFILTER_CUCKOO_UNIT_H */
