/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The filter core's hashes, and bench/hashset.c's: a baseline whose hash
 * costs what the filter's does.
 */
#ifndef CFILTER_CUCKOO_HASH_H
#define CFILTER_CUCKOO_HASH_H

#include "cuckoo_env.h"

/* Odd multipliers: 2^64 / golden ratio and two large primes. */
#define CUCKOO_K0		0x9e3779b97f4a7c15ULL
#define CUCKOO_K1		0xc2b2ae3d27d4eb4fULL
#define CUCKOO_K2		0x165667b19e3779f9ULL

/*
 * Keyed 64-bit hash. Two lanes take alternate 8-byte words so that their
 * multiplies overlap (a 40-byte key is two rounds and one tail word); a
 * round is a bijection of its lane for a given word, so no lane loses what
 * it has absorbed. The murmur3 finaliser then makes every output bit depend
 * on every input bit. The seed makes bucket choice unpredictable offline;
 * this is not a PRF, which a filter filled by its administrator does not
 * need.
 */
static __always_inline u64 cuckoo_round(u64 lane, u64 word, u64 k)
{
	return rol64((lane ^ word) * k, 31);
}

/* The lanes' first values, from the seed: each table keeps its own. */
static inline u64 cuckoo_hash_a(u64 seed)
{
	return seed ^ CUCKOO_K0;
}

static inline u64 cuckoo_hash_b(u64 seed)
{
	return rol64(seed, 32) ^ CUCKOO_K1;
}

static __always_inline u64 cuckoo_hash_lanes(const void *key, size_t len,
					     u64 a, u64 b)
{
	const u8 *p = key;
	u64 tail = 0;
	size_t n = len;

	for (; n >= 16; n -= 16, p += 16) {
		a = cuckoo_round(a, get_unaligned_le64(p), CUCKOO_K1);
		b = cuckoo_round(b, get_unaligned_le64(p + 8), CUCKOO_K2);
	}
	if (n >= 8) {
		a = cuckoo_round(a, get_unaligned_le64(p), CUCKOO_K1);
		n -= 8;
		p += 8;
	}
	/*
	 * The last n < 8 bytes as a little-endian number, in two loads that
	 * may overlap, not a byte at a time: the same value, so stored
	 * fingerprints and snapshots keep their meaning.
	 */
	if (n >= 4)
		tail = get_unaligned_le32(p) |
		       (u64)get_unaligned_le32(p + n - 4) >> (8 * (8 - n)) << 32;
	else if (n)
		tail = p[0] | (u64)p[n / 2] << (8 * (n / 2)) |
		       (u64)p[n - 1] << (8 * (n - 1));
	b = cuckoo_round(b, tail, CUCKOO_K2);

	a ^= rol64(b, 23) ^ (u64)len * CUCKOO_K0;
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdULL;
	a ^= a >> 33;
	a *= 0xc4ceb9fe1a85ec53ULL;
	a ^= a >> 33;
	return a;
}

/*
 * The short hash, which placed the 4-byte keys of the tables made before
 * cuckoo_hash_mix32(): two seeded multiply-adds side by side (Dietzfelbinger's
 * multiply-add-shift), the low half of the result picking buckets, the
 * high half making the fingerprint. Only pairwise independent, which a
 * cuckoo table cannot live on: addresses in arithmetic progression (a
 * /24 added address by address) landed on few bucket pairs for some seeds,
 * and inserts failed far below the load the table was sized for. Kept
 * for the compact tables that raw snapshots hold (struct cuckoo_raw).
 */
static __always_inline u64 cuckoo_hash32(const void *key, u64 a, u64 b)
{
	u64 x = get_unaligned((const u32 *)key);

	return ((a | 1) * x + b) >> 32 |
	       (((b | 1) * x + a) & 0xffffffff00000000ULL);
}

/*
 * The hash of 4-byte keys (IPv4 addresses and prefixes): the seeded key
 * through two multiplies with a xor-shift between and after (murmur3's
 * finaliser, one multiplier the table's), so that every bit of the result
 * depends on every bit of the key, buckets (low half) and fingerprint
 * (high half) alike. Two multiplies' latency before a bucket's address is
 * known, where cuckoo_hash() makes three in a row.
 */
static __always_inline u64 cuckoo_hash_mix32(const void *key, u64 a, u64 b)
{
	u64 h = (get_unaligned((const u32 *)key) ^ a) * CUCKOO_K1;

	h ^= h >> 32;
	h *= b | 1;
	return h ^ h >> 29;
}

/*
 * The hash of the tables the core makes, and of bench/hashset.c's: the
 * mixed one for 4-byte keys, else the general one, from lanes @a and @b.
 */
static __always_inline u64 cuckoo_hash_default(const void *key, size_t len,
					       u64 a, u64 b)
{
	if (len == sizeof(u32))
		return cuckoo_hash_mix32(key, a, b);
	return cuckoo_hash_lanes(key, len, a, b);
}

static __always_inline u64 cuckoo_hash(const void *key, size_t len, u64 seed)
{
	return cuckoo_hash_lanes(key, len, cuckoo_hash_a(seed),
				 cuckoo_hash_b(seed));
}

#endif /* CFILTER_CUCKOO_HASH_H */
