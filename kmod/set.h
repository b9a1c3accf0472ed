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
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "cfilter_int.h"
#include "cuckoo.h"
#include "holds.h"
#include "prefix.h"

/* A key as the tables store it: its type, its bytes, its prefix length. */
struct cfilter_packed {
	const struct cfilter_ktype	*f;
	u32				len;
	u8				bytes[CUCKOO_KEY_MAX];
};

/* Packets each source's entries dropped, on one CPU. */
struct cfilter_drops {
	u64	n[CFILTER_SOURCES_MAX];
};

/**
 * struct cfilter_set - the tables of every key type
 * @types: bit t: key type t has members; written under cfilter_lock after
 *         the table changed, and only when that makes it change, read
 *         locklessly by the verdict, which skips a type with none (a lookup
 *         there could only miss). A bit that lags its table for a moment is
 *         harmless: a lookup racing a write may see either state anyway.
 * @pfx:   address types: the prefix set; else NULL
 * @flow:  flow types: the filter; else NULL
 * @id:    distinct for every set created (LIST cursors restart on a new set)
 * @holds: who holds each entry, and until when (holds.h, source.h);
 *         writers only
 * @staged: on the list of staged sets (source_stage.c), while staged
 * @drops: per CPU, drops by source index, counted by the kfunc
 * @drops_base: per source index, added to the sum of @drops: what sets
 *         this one replaced counted (by name), less what the source's
 *         previous owner of the index counted
 * @hashed: compact mode: the prefilter's hashed bits
 *         (cfilter_config.prefilter_bits of them) of every source and
 *         destination address added, which a compact table cannot list
 *         again; a delete leaves them (prefilter.c reads them)
 * @hashed_lost: a RESTORE brought addresses @hashed does not hold
 * @mirror_base: the drops the programs' mirrors had counted when
 *         this set became live (mirror.c): "default"'s count adds those
 *         since, while it is live
 * @nkeys: per key type, members stored (addresses, prefixes or flows): on
 *         a cache line of its own, as every add and delete writes it
 *
 * In exact mode every entry's value in the tables (its tag) is the lowest
 * index of the sources that hold it, so that a drop names one of them.
 */
struct cfilter_set {
	unsigned long		types;
	struct prefix_set	*pfx[__CFILTER_KEY_MAX];
	struct cuckoo		*flow[__CFILTER_KEY_MAX];
	u64			id;
	struct cfilter_holds	holds;
	struct list_head	staged;
	struct cfilter_drops __percpu *drops;
	u64			drops_base[CFILTER_SOURCES_MAX];
	u64			*hashed;
	bool			hashed_lost;
	u64			mirror_base;
	unsigned long		nkeys[__CFILTER_KEY_MAX] ____cacheline_aligned;
};

/*
 * Sets in @words (@n of them, a power of two) the two hashed bits of
 * address @addr of type @t (struct cfilter_prefilter's @hashed): in a
 * program's prefilter map (prefilter.c), or in compact mode's record.
 */
static inline void cfilter_hashed_set(u64 *words, u32 n, unsigned int t,
				      const u8 *addr)
{
	u32 h = cfilter_prefilter_hash(t, addr, cfilter_ktypes[t].addr_len == 16);
	u64 *w = &words[cfilter_prefilter_hword(h, n - 1)];

	/* the bits' positions lie above every word index */
	BUILD_BUG_ON(CFILTER_PREFILTER_HASHED_MAX > 1U << 20);
	WRITE_ONCE(*w, *w | cfilter_prefilter_hbits(h));
}

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
 * @prefix_markers: markers the prefix search keeps
 * @memory_bytes:   every table of the type
 * @probes:         table probes a lookup makes at most (0: flows)
 * @lengths:        distinct prefix lengths stored
 */
struct cfilter_type_stats {
	struct cuckoo_stats	table;
	u64			count;
	u64			prefixes;
	u64			prefix_markers;
	u64			memory_bytes;
	u32			probes;
	u32			lengths;
};

struct cfilter_set *cfilter_set_create(void);
void cfilter_set_destroy(struct cfilter_set *s);

int cfilter_set_insert(struct cfilter_set *s, const struct cfilter_ktype *f,
		       const u8 *packed, u32 len, u32 tag);
int cfilter_set_retag(struct cfilter_set *s, const struct cfilter_ktype *f,
		      const u8 *packed, u32 len, u32 tag);
int cfilter_set_delete(struct cfilter_set *s, const struct cfilter_ktype *f,
		       const u8 *packed, u32 len);
bool cfilter_set_contains(const struct cfilter_set *s,
			  const struct cfilter_ktype *f, const u8 *packed,
			  u32 len);
struct cuckoo *cfilter_set_table(struct cfilter_set *s,
				 const struct cfilter_ktype *f);
struct cuckoo *cfilter_set_replace_table(struct cfilter_set *s,
					 const struct cfilter_ktype *f,
					 struct cuckoo *c);
long cfilter_set_list(const struct cfilter_set *s,
		      const struct cfilter_ktype *f, u64 *pos, u8 *out,
		      u32 max);
u32 cfilter_set_list_step(const struct cfilter_ktype *f);
u64 cfilter_set_list_gen(const struct cfilter_set *s,
			 const struct cfilter_ktype *f);
void cfilter_set_type_stats(const struct cfilter_set *s,
			    const struct cfilter_ktype *f,
			    struct cfilter_type_stats *st);

#endif /* CFILTER_KMOD_SET_H */
