// SPDX-License-Identifier: GPL-2.0
/*
 * The filter core a third time, unchanged: its readers are the core's own
 * code at other addresses, in loops of their own. Paired with the core's
 * on one table, they show what code placement alone does to a ratio of
 * two readers (the code control), against which the ratios of cfilter to
 * the reference can be read.
 */
#define CUCKOO_COPY(name)	cuckoo_twin_##name
#include "core_copy.h"
