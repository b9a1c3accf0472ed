/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The summaries of a prefix set (prefix.c): a bitmap that answers most
 * misses with one load, before any table is probed. Readers test a bit
 * (inline here, in the lookup); writers count members in and out.
 *
 * Plain C, built into the module and into the host tests (cuckoo_env.h).
 */
#ifndef CFILTER_SUMMARY_H
#define CFILTER_SUMMARY_H

#include "cuckoo_env.h"

/*
 * A summary: one bit per /16 (IPv4) or per hashed /32 (IPv6), set iff a
 * member the summary counts intersects that /16 (or a /32 hashing to it).
 * A clear bit spares the tables it summarises a probe. An IPv6 prefix
 * shorter than /16 would set 2^16 or more bits: it is counted in the
 * summary's all instead, which sets them all. Addresses and prefixes have
 * a summary each, so that a packet covered by a prefix does not probe the
 * address table first unless an address shares its /16 (and the other
 * way round).
 */
#define PREFIX_SUM_SHIFT	16
#define PREFIX_SUM_KEYS		BIT_ULL(PREFIX_SUM_SHIFT)
#define PREFIX_SUM_WORDS	(PREFIX_SUM_KEYS / 32)
/* hash_32()'s multiplier: spreads the /32s of a prefix over the bits */
#define PREFIX_SUM_HASH		0x61c88647U
#define PREFIX_SUM_COUNT_BYTES	(PREFIX_SUM_KEYS * sizeof(u32))

/**
 * struct prefix_summary - which /16s (hashed /32s) hold members
 * @bits: bit k of word k / 32 for key k; set before the member it counts is
 *	published, cleared only after the last member it counts is gone
 * @all: members counted in every bit (IPv6, shorter than /16)
 * @count: per key, the members counted there (allocated at the first
 *	insert: an unused set stays small); the writer's
 */
struct prefix_summary {
	u32 bits[PREFIX_SUM_WORDS];
	u32 all;
	u32 *count;
};

/* Summary key of the /16 (IPv4) or /32 (IPv6) whose first bits are @v. */
static __always_inline u32 prefix_sum_key(u32 alen, u32 v)
{
	return alen == 4 ? v : (v * PREFIX_SUM_HASH) >> (32 - PREFIX_SUM_SHIFT);
}

/* The summary key of @addr. */
static __always_inline u32 prefix_sum_key_of(u32 alen, const u8 *addr)
{
	u32 v;

	if (alen == 4)
		v = (u32)addr[0] << 8 | addr[1];
	else
		v = (u32)addr[0] << 24 | (u32)addr[1] << 16 |
		    (u32)addr[2] << 8 | addr[3];
	return prefix_sum_key(alen, v);
}

/*
 * Reader: may a member of @sum cover the address of summary key @k? False
 * only if none intersects its /16 (IPv4) or its /32's bit (IPv6).
 */
static __always_inline bool prefix_sum_maybe(const struct prefix_summary *sum,
					     u32 k)
{
	u32 w = READ_ONCE(sum->bits[k / 32]), all = READ_ONCE(sum->all);

	/*
	 * Pairs with the smp_wmb() of prefix_sum_get(): a member this
	 * lookup's probes find had its bit set before it was published.
	 */
	smp_rmb();
	return (w >> (k % 32)) & 1 || all;
}

int prefix_sum_prepare(struct prefix_summary *sum);
void prefix_sum_get(struct prefix_summary *sum, u32 alen, const u8 *addr,
		    u32 len);
void prefix_sum_put(struct prefix_summary *sum, u32 alen, const u8 *addr,
		    u32 len);
void prefix_sum_reset(struct prefix_summary *sum);
u64 prefix_sum_bytes(const struct prefix_summary *sum);
void prefix_sum_free(struct prefix_summary *sum);

#endif /* CFILTER_SUMMARY_H */
