/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The summary of a prefix set (prefix.c): what a lookup reads before any
 * table. Its layout and the head word's read are here; the test of the
 * hashed bits sits with the search it admits (prefix_read.c); the writer
 * keeps it (prefix_summary.c).
 *
 * Plain C, built into the module and into the host tests (cuckoo_env.h).
 */
#ifndef CFILTER_PREFIX_SUMMARY_H
#define CFILTER_PREFIX_SUMMARY_H

#include "cuckoo_env.h"

/* Tags fit in this many bits (CFILTER_SOURCES_MAX is 1 << this). */
#define PREFIX_TAG_BITS		5

/*
 * A head word per /16 (the first 16 bits of an address, either family):
 * - the longest member of length 1..16 covering the /16, as length + 1
 *   (0: none), and its tag: a lookup it names answers with no probe;
 * - which longer members lie inside the /16, a flag per class (below): a
 *   lookup probes only the tables a flag sends it to, so most misses cost
 *   one load.
 * Behind a flag, bits per hashed block tell more: prefixes of /17 to /31
 * set one per /24 they cover (at most 128), and IPv6 addresses and
 * prefixes of /32 and longer one per hashed /32: inside a populated /16
 * they are still sparse, so traffic from its other blocks rarely probes.
 * A member never sets bits for blocks longer than itself: a few short ones
 * cannot fill them. IPv6 prefixes of /64 and longer are a class apart, so
 * that a search need not start above /63 where none of them lies.
 * IPv6 classes have finer bits behind those: a member sets the bit of its
 * block at the longest grain of its class not past its length (/24 or
 * /28; /32, /40 or /48; /64), and a lookup the hashed bits admit needs
 * the bit of its own block at one of its class's grains. Geo databases
 * split /24s and /32s among countries at /29, /40 and /48: the others'
 * traffic stops here. The /32../63 class, where such sets crowd and a
 * lookup tests three grains, has four times the fine bits of the others,
 * so that fewer of its misses find a bit another block set.
 */
#define PREFIX_SUM_SHIFT	16
#define PREFIX_SUM_KEYS		BIT_ULL(PREFIX_SUM_SHIFT)
#define PREFIX_SUM_WORDS	(PREFIX_SUM_KEYS / 32)
/* hash_32()'s multiplier: spreads /32s over the hashed bits */
#define PREFIX_SUM_HASH		0x61c88647U
/*
 * The writer's counts saturate: one that reaches its most sticks there,
 * neither counting up nor down, so its flag or bit stays set until the
 * set is emptied (prefix_sum_reset()). A stuck count never clears what a
 * member needs; it only keeps a probe that a delete could have spared.
 * A /16's count sticks at 65535 members of one class in it; a hashed
 * block's at 255: its bit is shared by every block hashed to it anyway,
 * and a set that large in one block keeps it set as collisions would.
 */
#define PREFIX_SUM_COUNT_MAX	0xffffU
#define PREFIX_SUM_HCOUNT_MAX	0xffU
#define PREFIX_SUM_COUNT_BYTES	(PREFIX_SUM_KEYS * sizeof(u16))
#define PREFIX_SUM_HCOUNT_BYTES	(PREFIX_SUM_KEYS * sizeof(u8))
#define PREFIX_SUM_HEAD_BYTES	(PREFIX_SUM_KEYS * sizeof(u16))
#define PREFIX_SUM_HASHED_BYTES	(PREFIX_SUM_WORDS * sizeof(u32))

/* Spreads the fine blocks (of every grain) over the fine bits. */
#define PREFIX_SUM_FINE_HASH	0x9e3779b97f4a7c15ULL
#define PREFIX_SUM_FINE_DEEP_SHIFT	(PREFIX_SUM_SHIFT + 2)

/* What a head word holds. */
#define PREFIX_HEAD_BEST	0x1fU
#define PREFIX_HEAD_TAG_SHIFT	5
#define PREFIX_HEAD_TAG(h)	((h) >> PREFIX_HEAD_TAG_SHIFT &		\
				 ((1U << PREFIX_TAG_BITS) - 1))
#define PREFIX_HEAD_NAME(len, tag)					\
	(((u32)(len) + 1) | (u32)(tag) << PREFIX_HEAD_TAG_SHIFT)
/* the name: best and tag */
#define PREFIX_HEAD_NAMES	((1U << (PREFIX_HEAD_TAG_SHIFT + PREFIX_TAG_BITS)) - 1)
#define PREFIX_HEAD_FLAG(c)	(1U << (12 + (c)))

/* The classes of members longer than /16, each with its flag. */
enum prefix_class {
	PREFIX_CLASS_ADDRS,	/* full length (exact mode only) */
	PREFIX_CLASS_MID,	/* /17 to /31 */
	PREFIX_CLASS_DEEP,	/* IPv6: /32 to /63 */
	PREFIX_CLASS_SUBNET,	/* IPv6: /64 to /127 */
	PREFIX_CLASSES,
};

#define PREFIX_HEAD_ADDRS	PREFIX_HEAD_FLAG(PREFIX_CLASS_ADDRS)
#define PREFIX_HEAD_MID		PREFIX_HEAD_FLAG(PREFIX_CLASS_MID)
#define PREFIX_HEAD_DEEP	PREFIX_HEAD_FLAG(PREFIX_CLASS_DEEP)
#define PREFIX_HEAD_SUBNET	PREFIX_HEAD_FLAG(PREFIX_CLASS_SUBNET)

/**
 * struct prefix_summary - the head words and hashed bits of a set
 * @head: per /16; a flag is set before the first member it counts is
 *	published and cleared after the last is gone; a name is set after
 *	its member is published and taken off before it goes. Until the
 *	set's first member that needs them, a shared array of zeros: most
 *	sets (each source's, each key type's) hold no prefix, and a replace
 *	builds a set at a time
 * @hashed: per class: a bit per hashed /24 (MID) or, IPv6, /32 (the
 *	others), set and cleared like a flag; allocated with @hcount, before
 *	the class's first flag
 * @count: the writer's: per class, members in each /16 (allocated at the
 *	class's first member), saturating (PREFIX_SUM_COUNT_MAX)
 * @hcount: the writer's: per class, members covering each hashed block,
 *	saturating (PREFIX_SUM_HCOUNT_MAX)
 * @fine: IPv6, per class: a bit per hashed fine block
 *	(prefix_sum_grain()), set and cleared like @hashed, allocated with
 *	it
 * @fcount: the writer's: per class, members in each hashed fine block,
 *	saturating as @hcount
 * @always: nonzero while a lookup must search whatever its head word says:
 *	the set has a /0 member, or addresses it does not count (a compact
 *	address table), set before they are published, cleared after they
 *	are gone; or addresses and no prefix, when a head word would only
 *	repeat what the programs' hashed bits of addresses said. A lookup
 *	then probes the address table before it reads the head word
 */
struct prefix_summary {
	u16 *head;
	u32 always;
	u32 *hashed[PREFIX_CLASSES];
	u16 *count[PREFIX_CLASSES];
	u8 *hcount[PREFIX_CLASSES];
	u32 *fine[PREFIX_CLASSES];
	u8 *fcount[PREFIX_CLASSES];
};

/* The /16 of @addr: its head word's index. */
static __always_inline u32 prefix_sum_slot(const u8 *addr)
{
	return (u32)addr[0] << 8 | addr[1];
}

/* The bit of block @v (its first 24 or 32 bits) in the hashed bits. */
static __always_inline u32 prefix_sum_hash(u32 v)
{
	return (v * PREFIX_SUM_HASH) >> (32 - PREFIX_SUM_SHIFT);
}

/*
 * The blocks a member of class @c and length @len covers, from its own
 * (prefix_sum_block()) on: a MID member shorter than /24 covers
 * 2^(24 - len) /24s, at most PREFIX_SUM_BLOCKS_MAX; any other, one.
 */
#define PREFIX_SUM_BLOCKS_MAX	128	/* the /24s of a /17 */

static __always_inline u32 prefix_sum_blocks(u32 c, u32 len)
{
	return c == PREFIX_CLASS_MID && len < 24 ? 1U << (24 - len) : 1;
}

/* The block of @addr that class @c hashes: its /24 (MID), else its /32. */
static __always_inline u32 prefix_sum_block(u32 c, const u8 *addr)
{
	u32 v = (u32)addr[0] << 16 | (u32)addr[1] << 8 | addr[2];

	return c == PREFIX_CLASS_MID ? v : v << 8 | addr[3];
}

/*
 * The grain of the fine block of a member of class @c and length @len:
 * the longest of its class's grains not past @len. A /17../23 member sets
 * the bit of each /24 it covers, as it sets their hashed bits.
 */
static __always_inline u32 prefix_sum_grain(u32 c, u32 len)
{
	switch (c) {
	case PREFIX_CLASS_MID:
		return len >= 28 ? 28 : 24;
	case PREFIX_CLASS_DEEP:
		return len >= 48 ? 48 : len >= 40 ? 40 : 32;
	default:
		return 64;
	}
}

/* The first @g bits of @addr (at most 64) as a number. */
static __always_inline u64 prefix_sum_fine_block(const u8 *addr, u32 g)
{
	u64 v = 0;
	u32 i;

	for (i = 0; i < 8; i++)
		v = v << 8 | addr[i];
	return v >> (64 - g);
}

/* log2 of the fine bits of class @c */
static __always_inline u32 prefix_sum_fine_shift(u32 c)
{
	return c == PREFIX_CLASS_DEEP ? PREFIX_SUM_FINE_DEEP_SHIFT :
					PREFIX_SUM_SHIFT;
}

/* The fine bit of block @v of grain @g in class @c: grains hashed apart. */
static __always_inline u32 prefix_sum_fine_hash(u32 c, u64 v, u32 g)
{
	return ((v ^ (u64)g << 56) * PREFIX_SUM_FINE_HASH) >>
	       (64 - prefix_sum_fine_shift(c));
}

/* Reader: is bit @k of the hashed words @w set? */
static __always_inline u32 prefix_sum_bit(const u32 *w, u32 k)
{
	return READ_ONCE(w[k / 32]) >> (k % 32) & 1;
}

/* Reader: is the fine bit of @addr's block of grain @g (class @c) set? */
static __always_inline u32 prefix_sum_fine_at(const u32 *fine, u32 c,
					      const u8 *addr, u32 g)
{
	return prefix_sum_bit(fine, prefix_sum_fine_hash(c, prefix_sum_fine_block(addr, g), g));
}

/*
 * Reader: once the head word has class @c's flag, may a member of class
 * @c cover @addr? False only if none covers a block (/24 or /32) with the
 * hashed bit of @addr's, or (IPv6) none lies in a fine block with the bit
 * of one of @addr's.
 */
static __always_inline bool prefix_sum_admits(const struct prefix_summary *sum,
					      u32 c, const u8 *addr)
{
	const u32 *hashed = READ_ONCE(sum->hashed[c]);
	const u32 *fine = READ_ONCE(sum->fine[c]);
	bool in;

	in = prefix_sum_bit(hashed, prefix_sum_hash(prefix_sum_block(c, addr)));
	if (in && fine) {
		switch (c) {
		case PREFIX_CLASS_MID:
			in = prefix_sum_fine_at(fine, c, addr, 24) ||
			     prefix_sum_fine_at(fine, c, addr, 28);
			break;
		case PREFIX_CLASS_DEEP:
			in = prefix_sum_fine_at(fine, c, addr, 32) ||
			     prefix_sum_fine_at(fine, c, addr, 40) ||
			     prefix_sum_fine_at(fine, c, addr, 48);
			break;
		default:
			in = prefix_sum_fine_at(fine, c, addr, 64);
		}
	}
	/* as for the head word: pairs with prefix_sum_get()'s smp_wmb() */
	smp_rmb();
	return in;
}

/* Reader: the head word of @addr's /16. */
static __always_inline u32 prefix_sum_head(const struct prefix_summary *sum,
					   const u8 *addr)
{
	const u16 *head = READ_ONCE(sum->head);
	u32 h = READ_ONCE(head[prefix_sum_slot(addr)]);

	/*
	 * Pairs with the smp_wmb() of prefix_sum_get(): a member this
	 * lookup's probes find had its flag set before it was published (and
	 * the words it is counted in, before the flag: prefix_sum_prepare()).
	 */
	smp_rmb();
	return h;
}

void prefix_sum_init(struct prefix_summary *sum);
int prefix_sum_prepare(struct prefix_summary *sum, u32 alen, int c, u32 len);
void prefix_sum_get(struct prefix_summary *sum, int c, const u8 *addr,
		    u32 len);
void prefix_sum_put(struct prefix_summary *sum, int c, const u8 *addr,
		    u32 len);
void prefix_sum_name(struct prefix_summary *sum, const u8 *addr, u32 len,
		     u32 name, bool insert);
void prefix_sum_reset(struct prefix_summary *sum);
u64 prefix_sum_class_bytes(const struct prefix_summary *sum, u32 c);
u64 prefix_sum_bytes(const struct prefix_summary *sum);
void prefix_sum_free(struct prefix_summary *sum);

#endif /* CFILTER_PREFIX_SUMMARY_H */
