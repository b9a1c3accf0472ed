// SPDX-License-Identifier: GPL-2.0
/*
 * The filter core a second time, with the version protocol compiled out of
 * its readers (CUCKOO_NO_VERSIONS), so that one benchmark binary measures
 * both and prints their ratio.
 */
#define CUCKOO_NO_VERSIONS
#define CUCKOO_COPY(name)	cuckoo_nov_##name
#include "core_copy.h"
