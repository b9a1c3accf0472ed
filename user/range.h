/* SPDX-License-Identifier: GPL-2.0 */
/* Address ranges as the fewest CIDR prefixes that cover them exactly. */
#ifndef CFCTL_RANGE_H
#define CFCTL_RANGE_H

#include <stdint.h>

int range_split(const uint8_t *lo, const uint8_t *hi, unsigned int alen,
		int (*emit)(const uint8_t *addr, unsigned int len, void *arg),
		void *arg);

#endif /* CFCTL_RANGE_H */
