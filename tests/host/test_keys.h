/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Keys of the host tests of the filter core: numbered sets of distinct
 * keys of any length. Include after cuckoo_unit.h (for u8, u64).
 */
#ifndef CFILTER_TEST_KEYS_H
#define CFILTER_TEST_KEYS_H

#include <string.h>

/*
 * Key @i of set @set: the set number, then @i, truncated to @len bytes
 * (1-byte keys are the set only; keys of n bytes tell 2^(8(n-1)) apart).
 */
static void key_of(u8 *k, unsigned int len, unsigned int set, u64 i)
{
	unsigned int b;

	memset(k, 0, len);
	k[0] = set;
	for (b = 1; b < len && b <= 8; b++)
		k[b] = i >> (8 * (b - 1));
}

#endif /* CFILTER_TEST_KEYS_H */
