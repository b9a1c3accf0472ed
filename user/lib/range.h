/* SPDX-License-Identifier: GPL-2.0 */
/* Address ranges as the fewest CIDR prefixes that cover them exactly. */
#ifndef CFCTL_RANGE_H
#define CFCTL_RANGE_H

#include <stdint.h>

int range_split(const uint8_t *lo, const uint8_t *hi, unsigned int alen,
		int (*emit)(const uint8_t *addr, unsigned int len, void *arg),
		void *arg);

/*
 * An address of @alen bytes (network order) as a number, and back: for
 * the tests and benches that walk ranges by arithmetic.
 */
unsigned __int128 range_addr_num(const uint8_t *a, unsigned int alen);
void range_addr_bytes(unsigned __int128 v, uint8_t *a, unsigned int alen);

#endif /* CFCTL_RANGE_H */
