/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A set of addresses and CIDR prefixes of one family (IPv4 or IPv6), built
 * on the cuckoo filter, answering "does any member cover this address?" in
 * a bounded number of filter lookups: one for the addresses plus one per
 * target length of controlled prefix expansion (Srinivasan and Varghese,
 * "Faster IP lookups using controlled prefix expansion", SIGMETRICS 1998 /
 * TOCS 1999).
 *
 * Three kinds of table:
 * - the address table: full-length members (/32, /128), in the mode the
 *   set was created with (exact or compact);
 * - the prefix table: the prefixes as given (address and length), always
 *   exact; the truth from which the expansion is built, listed and
 *   deleted exactly;
 * - the levels: at most max_levels exact tables, level i holding prefixes
 *   expanded to target length L_i (address masked to L_i). A prefix of
 *   length l is expanded to the shortest target >= l (2^(L_i - l) entries).
 *   The targets are chosen from the lengths present to minimise the number
 *   of expanded entries (dynamic programming over the length histogram),
 *   and re-chosen when the set changes enough (see prefix.c).
 *
 * A summary bitmap answers most misses with one load: a bit per /16 for
 * IPv4 (8 KiB), set iff some member (address or prefix) intersects that
 * /16; for IPv6 a bit per /32 hashed into 2^16 bits (a member shorter than
 * /16 sets them all). Writers keep per-bit counts: a bit is set before its
 * first member is published and cleared only after its last one is gone.
 * In compact mode the summary counts prefixes only: a restored address
 * table's addresses are unknown, so the address table is probed first.
 *
 * If the bit is set, a lookup probes the address table (a hit there is
 * PREFIX_ADDR), then each level, SHORTEST target first, each with the
 * address masked to the level's length; the first hit answers. Any order
 * gives the same answer: the address is blocked iff some member covers it
 * (every member blocks; the allow list is a separate set, asked after, and
 * always wins), and each member sits in exactly one level; shorter levels
 * cover more addresses, so hits stop sooner. The levels are published
 * together through one RCU pointer, so a re-expansion builds new levels
 * off to the side and swaps them in: a reader sees the old expansion or
 * the new one, each complete, and a member present throughout a lookup is
 * always found.
 *
 * Concurrency is the core's: writers serialised by the caller, process
 * context, may sleep; readers lock-free inside an RCU read-side section.
 */
#ifndef CFILTER_PREFIX_H
#define CFILTER_PREFIX_H

#include "cuckoo.h"

#define PREFIX_LEVELS_MAX	8	/* == CFILTER_PREFIX_LEVELS_MAX */

struct prefix_set;

struct prefix_params {
	u32 addr_len;		/* 4 (IPv4) or 16 (IPv6) */
	u32 max_levels;		/* target lengths at most: 1..PREFIX_LEVELS_MAX */
	/*
	 * The address table: key_len must equal addr_len; exact or compact,
	 * capacity and max_capacity as for cuckoo_create(). The prefix table
	 * and the levels are exact, start small and grow up to
	 * max_capacity entries each (an expansion that would need more is
	 * refused with -ENOSPC, nothing changed).
	 */
	struct cuckoo_params addrs;
};

/* What a lookup found: the first hit, in probe order. */
enum prefix_hit {
	PREFIX_MISS	= 0,
	PREFIX_ADDR	= 1,	/* a full-length member equals the address */
	PREFIX_PREFIX	= 2,	/* a shorter member covers it */
};

struct prefix_stats {
	struct cuckoo_stats addrs;	/* the address table */
	u64 prefixes;			/* prefix members (shorter than full) */
	u64 expanded;			/* entries in the levels */
	u64 memory_bytes;		/* all tables and the summary */
	u64 rebuilds;			/* re-expansions since creation */
	u32 nlevels;
	u8 levels[PREFIX_LEVELS_MAX];	/* target lengths, longest first */
};

/* 0, or -EINVAL. */
int prefix_params_check(const struct prefix_params *p);
/* NULL on bad parameters or no memory. May sleep. */
struct prefix_set *prefix_set_create(const struct prefix_params *p);
/* No reader may still use @s (wait for a grace period first). */
void prefix_set_destroy(struct prefix_set *s);

/*
 * Writers: caller serialises; process context; may sleep.
 *
 * @addr: addr_len bytes, network order; @len: 0..8*addr_len; the bits of
 * @addr beyond @len must be zero (-EINVAL otherwise, nothing changed).
 *
 * insert: 0; -EEXIST (this member is present: nothing changed); -ENOSPC,
 * -ENOMEM (nothing changed, nothing lost: the set is as before the call).
 * delete: 0; -ENOENT. Deleting a prefix removes exactly the expanded
 * entries no other prefix still covers.
 * clear: 0, -ENOMEM (nothing changed).
 */
int prefix_set_insert(struct prefix_set *s, const u8 *addr, u32 len, u32 tag);
/* A member's tag: 0; -EINVAL; -ENOENT. */
int prefix_set_retag(struct prefix_set *s, const u8 *addr, u32 len, u32 tag);
int prefix_set_delete(struct prefix_set *s, const u8 *addr, u32 len);
int prefix_set_clear(struct prefix_set *s);

/*
 * Members, a part per call: copies up to @max members into @out, each
 * addr_len bytes of address followed by one byte of length
 * (PREFIX_ENTRY_LEN(addr_len) bytes), from position *@pos (0 to start),
 * advancing it; returns the number copied, 0 at the end. Full-length
 * members are listed only in exact mode (a compact address table holds
 * fingerprints). Positions stay valid while prefix_set_list_gen() does not
 * change (it changes when an entry of a table the listing walks moves, or
 * the table grows or is rebuilt). Positions with PREFIX_LIST_PREFIXES set
 * are in the prefix table: a bit above any slot (tables have fewer than
 * 2^40 slots). Writer side.
 */
#define PREFIX_ENTRY_LEN(alen)	((alen) + 1)
#define PREFIX_LIST_PREFIXES	BIT_ULL(48)
long prefix_set_list(const struct prefix_set *s, u64 *pos, void *out,
		     u64 max);
u64 prefix_set_list_gen(const struct prefix_set *s);

/* Is exactly this member (address and length) present? Reader side. */
bool prefix_set_contains(const struct prefix_set *s, const u8 *addr, u32 len);

/*
 * Does any member cover @addr (addr_len bytes)? Reader, lock-free. On a
 * hit, *@tag is the tag of the member that answered (0 in a compact
 * address table, which keeps none).
 */
enum prefix_hit prefix_set_match(const struct prefix_set *s, const u8 *addr,
				 u32 *tag);

/* Writer side. */
void prefix_set_get_stats(const struct prefix_set *s, struct prefix_stats *st);

/* The address table, for raw DUMP and RESTORE (compact mode). */
struct cuckoo *prefix_set_addrs(struct prefix_set *s);
/*
 * RESTORE: makes @addrs (key_len addr_len) the address table of @s, which
 * no reader can reach yet (a staged set), and counts its members; returns
 * the table it replaces, for the caller to destroy. Writer side.
 */
struct cuckoo *prefix_set_replace_addrs(struct prefix_set *s,
					struct cuckoo *addrs);

#endif /* CFILTER_PREFIX_H */
