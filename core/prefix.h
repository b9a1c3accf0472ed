/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A set of addresses and CIDR prefixes of one family (IPv4 or IPv6), built
 * on the cuckoo filter, answering "does any member cover this address?" in
 * at most 5 table probes for IPv4 and 8 for IPv6 (prefix_stats.probes),
 * whatever the mix of lengths: binary search on prefix lengths
 * (Waldvogel, Varghese, Turner and Plattner, "Scalable high speed IP
 * routing lookups", SIGCOMM 1997).
 *
 * Tables:
 * - the address table: full-length members (/32, /128), in the mode the
 *   set was created with (exact or compact);
 * - a table per prefix length 1..W-1, exact, made when its first entry
 *   comes: the members of that length (the address masked to it) and the
 *   markers longer members leave on the search path to their length. Each
 *   entry's value names a member covering it (see prefix.c), so a lookup
 *   answers from the first entry that names one;
 * - a /0 member is a flag of the set.
 *
 * The lengths form a fixed balanced search tree: W/2 at the root, node m's
 * children m -/+ lowbit(m)/2. A lookup probes the address table (a hit is
 * PREFIX_ADDR), then walks the tree from the root: a hit on an entry that
 * names a member answers PREFIX_PREFIX; a hit on a bare marker goes to the
 * longer child, a miss to the shorter one. Lengths whose table is empty
 * cost a bit test, not a probe.
 *
 * The summary (prefix_summary.h) answers most lookups before any table: a head
 * word per /16 names the longest member up to /16 covering it and flags
 * the classes of longer members inside it, with hashed bits per /24 or
 * /32 behind the flags. A lookup reads it inline and probes only where it
 * sends it; a miss it answers makes no call (prefix_set_match()).
 *
 * Concurrency is the core's: writers serialised by the caller, process
 * context, may sleep; readers lock-free inside an RCU read-side section.
 * A writer changes one entry at a time, in an order that keeps every
 * member present throughout a lookup findable (prefix.c).
 */
#ifndef CFILTER_PREFIX_H
#define CFILTER_PREFIX_H

#include "cuckoo.h"
#include "prefix_summary.h"

struct prefix_set;

struct prefix_params {
	u32 addr_len;		/* 4 (IPv4) or 16 (IPv6) */
	/*
	 * The address table: key_len must equal addr_len; exact or compact,
	 * capacity and max_capacity as for cuckoo_create(). The length
	 * tables are exact, start small and grow up to max_capacity entries
	 * each (an insert that would need more is refused with -ENOSPC,
	 * nothing changed).
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
	u64 markers;			/* entries that are only markers */
	u64 memory_bytes;		/* all tables and the summary */
	u32 lengths;			/* distinct prefix lengths present */
	u32 probes;			/* table probes a lookup makes at most */
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
 * insert: 0; -EINVAL (@tag does not fit PREFIX_TAG_BITS); -EEXIST (this
 * member is present: nothing changed); -ENOSPC, -EDQUOT, -ENOMEM (nothing
 * changed, nothing lost: the set is as before the call).
 * delete: 0; -ENOENT. Deleting a prefix removes exactly the markers no
 * other member still needs.
 * clear: 0.
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
 * advancing it; returns the number copied, 0 at the end (or if @max is
 * 0), -EAGAIN if it copied none before the end: a call looks at a bounded
 * number of slots (see cuckoo_list()). Full-length
 * members are listed only in exact mode (a compact address table holds
 * fingerprints). Positions stay valid while prefix_set_list_gen() does not
 * change (it changes when an entry of a table the listing walks moves, or
 * the table grows or is cleared). Positions with PREFIX_LIST_PREFIXES set
 * are in the length tables: a bit above any slot and length (tables have
 * fewer than 2^40 slots). Writer side.
 */
#define PREFIX_ENTRY_LEN(alen)	((alen) + 1)
#define PREFIX_LIST_PREFIXES	BIT_ULL(48)
long prefix_set_list(const struct prefix_set *s, u64 *pos, void *out,
		     u64 max);
u64 prefix_set_list_gen(const struct prefix_set *s);

/* Is exactly this member (address and length) present? Reader side. */
bool prefix_set_contains(const struct prefix_set *s, const u8 *addr, u32 len);

/* prefix_set_match_head()'s answer: the hit, and the tag of a hit. */
#define PREFIX_MATCH_TAG_SHIFT	8
#define PREFIX_MATCH_HIT(r)	((enum prefix_hit)((r) & 0xff))
#define PREFIX_MATCH_TAG(r)	((r) >> PREFIX_MATCH_TAG_SHIFT)
u32 prefix_set_match_head(const struct prefix_set *s, const u8 *addr, u32 h);

/*
 * Does any member cover @addr (addr_len bytes)? Reader, lock-free. On a
 * hit, *@tag is the tag of the member that answered (0 in a compact
 * address table, which keeps none).
 *
 * Inline up to the head word of @addr's /16, which answers most misses:
 * they make no call. While the summary says to search always, the head
 * word answers nothing by itself: prefix_set_match_head() reads it when
 * it needs it, which a hit in the address table, probed first then, does
 * not.
 */
static __always_inline enum prefix_hit
prefix_set_match(const struct prefix_set *s, const u8 *addr, u32 *tag)
{
	/* the summary is the set's first member (prefix_int.h) */
	const struct prefix_summary *sum = (const struct prefix_summary *)s;
	u32 h = 0, r;

	*tag = 0;
	if (!READ_ONCE(sum->always)) {
		h = prefix_sum_head(sum, addr);
		if (!h)
			return PREFIX_MISS;
	}
	r = prefix_set_match_head(s, addr, h);
	*tag = PREFIX_MATCH_TAG(r);
	return PREFIX_MATCH_HIT(r);
}

/*
 * Writer side, for the programs' prefilter (kmod/prefilter.c), which
 * hashes the address table's members: might a member other than those
 * cover an address of the /16 @slot; might one of those lie in it?
 */
bool prefix_set_slot_unhashed(const struct prefix_set *s, u32 slot);
bool prefix_set_slot_addrs(const struct prefix_set *s, u32 slot);
/*
 * ... and the summary's flags and hashed bits of the longer prefixes
 * (prefix_summary.h), which the prefilter copies.
 */
bool prefix_set_slot_class(const struct prefix_set *s, u32 slot, u32 c);
u32 prefix_set_class_word(const struct prefix_set *s, u32 c, u32 w);
u32 prefix_set_member_words(const struct prefix_set *s, const u8 *addr,
			    u32 len, u32 *c, u32 *w);

/*
 * Writer side: must every lookup search, whatever its head word says? (A /0
 * member, or a compact address table, whose addresses no head word counts.)
 */
bool prefix_set_always(const struct prefix_set *s);

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
