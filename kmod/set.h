/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A set of tables: one per key type, holding every key the module filters
 * with. The live set is reached through one RCU pointer, so an atomic
 * replace (STAGE, COMMIT) and a clear swap all types at once: a reader that
 * dereferences cfilter_live once sees one whole set, never types from two.
 *
 * Address types (SRC, DST, ALLOW) keep their addresses and prefixes in a
 * prefix set (prefix.h); flow types keep their 5-tuples in a cuckoo filter.
 *
 * Locking: cfilter_live is replaced, and every set (live or staged) is
 * written, under cfilter_lock only. Readers of the live set (the kfunc, the
 * TEST and MATCH ioctls) take no lock: one rcu_dereference() per call, and
 * that set stays valid until the end of their RCU read-side section, since
 * a replaced set is freed only after synchronize_rcu(). A staged set is
 * reachable only from its struct file, under cfilter_lock, and never seen
 * by a reader until COMMIT publishes it.
 */
#ifndef CFILTER_KMOD_SET_H
#define CFILTER_KMOD_SET_H

#include <linux/compiler.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "cfilter.h"
#include "cuckoo.h"
#include "prefix.h"
#include "source.h"

/* Packets each source's entries dropped, on one CPU. */
struct cfilter_drops {
	u64	n[CFILTER_SOURCES_MAX];
};

/**
 * struct cfilter_set - the tables of every key type
 * @nkeys: per key type, members stored (addresses, prefixes or flows);
 *         written under cfilter_lock after the table changed, read
 *         locklessly by the verdict, which skips a type with none (a lookup
 *         there could only miss). A count that lags its table for a moment
 *         is harmless: a lookup racing a write may see either state anyway.
 * @pfx:   address types: the prefix set; else NULL
 * @flow:  flow types: the filter; else NULL
 * @id:    distinct for every set created (LIST cursors restart on a new set)
 * @holds: who holds each entry, and until when (source.h); writers only
 * @staged: on the list of staged sets (source.c), while staged
 * @drops: per CPU, drops by source index, counted by the kfunc
 * @drops_base: per source index, added to the sum of @drops: what sets
 *         this one replaced counted (by name), less what the source's
 *         previous owner of the index counted
 *
 * In exact mode every entry's value in the tables (its tag) is the lowest
 * index of the sources that hold it, so that a drop names one of them.
 */
struct cfilter_set {
	unsigned long		nkeys[__CFILTER_KEY_MAX];
	struct prefix_set	*pfx[__CFILTER_KEY_MAX];
	struct cuckoo		*flow[__CFILTER_KEY_MAX];
	u64			id;
	struct cfilter_holds	holds;
	struct list_head	staged;
	struct cfilter_drops __percpu *drops;
	u64			drops_base[CFILTER_SOURCES_MAX];
};

/* The set packets are filtered with; see the locking rules above. */
extern struct cfilter_set __rcu *cfilter_live;

/* The live set, for a writer holding cfilter_lock. */
static inline struct cfilter_set *cfilter_live_locked(void)
{
	return rcu_dereference_protected(cfilter_live,
					 lockdep_is_held(&cfilter_lock));
}

/**
 * struct cfilter_type_stats - one key type's tables in a set
 * @table:          the address or flow table
 * @count:          members: addresses or flows, and prefixes
 * @prefixes:       prefix members among them
 * @prefix_entries: entries the expansion of the prefixes stores
 * @memory_bytes:   every table of the type
 * @nlevels:        prefix target lengths in use
 * @levels:         those lengths, longest first
 */
struct cfilter_type_stats {
	struct cuckoo_stats	table;
	u64			count;
	u64			prefixes;
	u64			prefix_entries;
	u64			memory_bytes;
	u32			nlevels;
	u8			levels[PREFIX_LEVELS_MAX];
};

struct cfilter_set *cfilter_set_create(void);
void cfilter_set_destroy(struct cfilter_set *s);
struct cfilter_set *cfilter_set_swap(struct cfilter_set *s);
void cfilter_set_retire(struct cfilter_set *old);
void cfilter_set_publish(struct cfilter_set *s);
u64 cfilter_set_grows(void);

int cfilter_set_insert(struct cfilter_set *s, const struct cfilter_family *f,
		       const u8 *packed, u32 len, u32 tag);
int cfilter_set_retag(struct cfilter_set *s, const struct cfilter_family *f,
		      const u8 *packed, u32 len, u32 tag);
u64 cfilter_set_drops(const struct cfilter_set *s, unsigned int id);
void cfilter_set_drops_reset(struct cfilter_set *s, unsigned int id);
int cfilter_set_delete(struct cfilter_set *s, const struct cfilter_family *f,
		       const u8 *packed, u32 len);
bool cfilter_set_contains(const struct cfilter_set *s,
			  const struct cfilter_family *f, const u8 *packed,
			  u32 len);
struct cuckoo *cfilter_set_table(struct cfilter_set *s,
				 const struct cfilter_family *f);
struct cuckoo *cfilter_set_replace_table(struct cfilter_set *s,
					 const struct cfilter_family *f,
					 struct cuckoo *c);
void cfilter_set_type_stats(const struct cfilter_set *s,
			    const struct cfilter_family *f,
			    struct cfilter_type_stats *st);

/*
 * The verdict, shared by the kfunc and the MATCH ioctl so that both decide
 * alike. Everything below is inlined into each caller with constant
 * address lengths: on the miss path of a host that blocks only sources it
 * is a few loads of counts and one prefix-set lookup.
 */

/* Can @p be matched? Fields it does not use must be zero, as in keys. */
static __always_inline bool cfilter_pkt_ok(const struct cfilter_pkt *p,
					   unsigned int alen)
{
	u8 acc = p->pad;
	unsigned int i;

	if (p->flags & ~(CFILTER_PKT_PORTS | CFILTER_PKT_MATCH_DST))
		return false;
	for (i = alen; i < sizeof(p->saddr); i++)
		acc |= p->saddr[i] | p->daddr[i];
	if (!(p->flags & CFILTER_PKT_PORTS))
		return !acc && !p->sport && !p->dport;
	switch (p->proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
		return !acc;
	case IPPROTO_ICMP:
		return !acc && alen == 4 && !p->dport &&
		       ntohs(p->sport) <= U8_MAX;
	case IPPROTO_ICMPV6:
		return !acc && alen == 16 && !p->dport &&
		       ntohs(p->sport) <= U8_MAX;
	default:
		return false;
	}
}

/*
 * What address type @type of @s says about @addr; empty types are skipped.
 * On a hit, *@tag is the tag of the entry that answered.
 */
static __always_inline enum prefix_hit
cfilter_addr_hit(const struct cfilter_set *s, unsigned int type, const u8 *addr,
		 u32 *tag)
{
	if (!READ_ONCE(s->nkeys[type]))
		return PREFIX_MISS;
	return prefix_set_match(s->pfx[type], addr, tag);
}

/* The would-be verdict of @p in @s, before the allow list; the tag too. */
static __always_inline int cfilter_block(const struct cfilter_set *s,
					 const struct cfilter_pkt *p,
					 unsigned int alen, u32 *tag)
{
	unsigned int flow = alen == 16 ? CFILTER_KEY_FLOW6 : CFILTER_KEY_FLOW4;
	u8 packed[CFILTER_FLOW_LEN(16)];
	enum prefix_hit hit;

	hit = cfilter_addr_hit(s, alen == 16 ? CFILTER_KEY_SRC6 :
			       CFILTER_KEY_SRC4, p->saddr, tag);
	if (hit != PREFIX_MISS)
		return hit == PREFIX_ADDR ? CFILTER_DROP_SRC :
					    CFILTER_DROP_PREFIX;
	if (p->flags & CFILTER_PKT_MATCH_DST) {
		hit = cfilter_addr_hit(s, alen == 16 ? CFILTER_KEY_DST6 :
				       CFILTER_KEY_DST4, p->daddr, tag);
		if (hit != PREFIX_MISS)
			return hit == PREFIX_ADDR ? CFILTER_DROP_DST :
						    CFILTER_DROP_PREFIX;
	}
	if (!(p->flags & CFILTER_PKT_PORTS) || !READ_ONCE(s->nkeys[flow]))
		return CFILTER_PASS;
	cfilter_flow_pack_fields(packed, p->proto, p->saddr, p->daddr, p->sport,
				 p->dport, alen);
	*tag = 0;	/* a compact table keeps none */
	return cuckoo_lookup(s->flow[flow], packed, tag) ? CFILTER_DROP_FLOW :
							    CFILTER_PASS;
}

/* Does @verdict drop the packet? */
static inline bool cfilter_is_drop(int verdict)
{
	return verdict == CFILTER_DROP_SRC || verdict == CFILTER_DROP_DST ||
	       verdict == CFILTER_DROP_FLOW || verdict == CFILTER_DROP_PREFIX;
}

/**
 * cfilter_verdict() - what a set says about a packet
 * @s: the set, dereferenced once by the caller: a COMMIT during the call
 *     leaves this verdict wholly the old set's
 * @p: the packet
 * @source: on a drop, the index of a source holding the entry that matched
 *
 * Call inside an RCU read-side critical section.
 *
 * Return: an enum cfilter_verdict, or -EINVAL for a packet description
 * with an unknown family or flag, nonzero unused bytes, or flow fields no
 * flow key could hold.
 */
static __always_inline int cfilter_verdict(const struct cfilter_set *s,
					   const struct cfilter_pkt *p,
					   u32 *source)
{
	unsigned int alen;
	int verdict;
	u32 allow;

	*source = 0;
	if (p->family == 4)
		alen = 4;
	else if (p->family == 6)
		alen = 16;
	else
		return -EINVAL;
	if (!cfilter_pkt_ok(p, alen))
		return -EINVAL;

	/* Two inlined copies, so that every length is a constant. */
	verdict = alen == 4 ? cfilter_block(s, p, 4, source) :
			      cfilter_block(s, p, 16, source);
	if (verdict != CFILTER_PASS &&
	    cfilter_addr_hit(s, alen == 4 ? CFILTER_KEY_ALLOW4 :
			     CFILTER_KEY_ALLOW6, p->saddr, &allow) != PREFIX_MISS)
		return CFILTER_ALLOWED;
	*source &= CFILTER_SOURCES_MAX - 1;
	return verdict;
}

#endif /* CFILTER_KMOD_SET_H */
