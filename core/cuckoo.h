/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cuckoo filter (Fan, Andersen, Kaminsky, Mitzenmacher, CoNEXT 2014) with
 * lock-free readers in the style of MemC3 (Fan, Andersen, Kaminsky, NSDI 2013).
 *
 * Plain C: built into the cfilter module and into host test and benchmark
 * binaries; cuckoo_env.h supplies the few kernel/host differences (on the
 * host, RCU is liburcu's).
 *
 * Two modes, chosen at creation:
 * - exact: beside each fingerprint slot the full key is kept in a parallel
 *   array that only writers and fingerprint matches touch. A match is
 *   confirmed against the key, so there are no false positives; insert of a
 *   present key is -EEXIST, delete removes exactly that key; keys can be
 *   listed; the table grows (doubles) when full, up to max_capacity.
 * - compact: fingerprints only. False positives at most 8 / 2^fp_bits;
 *   inserting a key that shares a stored key's fingerprint and buckets is
 *   -EEXIST and deleting either removes the shared entry; no listing; full
 *   is -ENOSPC.
 *
 * Concurrency: writers (insert, delete, clear, list) are serialised by the
 * caller (the module holds a mutex) and run in process context: they may
 * sleep (growth and clear allocate a new table, publish it with
 * rcu_assign_pointer() and free the old one after synchronize_rcu()).
 * Readers (cuckoo_contains) run inside an RCU read-side critical section
 * (XDP and TC programs always do) and take no lock. A key that is present
 * when a read starts and is not deleted during it is always found, even
 * while the writer moves entries or swaps tables.
 */
#ifndef CFILTER_CUCKOO_H
#define CFILTER_CUCKOO_H

#include "cuckoo_env.h"

#define CUCKOO_SLOTS		4	/* slots per bucket */
#define CUCKOO_MAX_KICKS	500	/* slots searched per insert (BFS bound) */
#define CUCKOO_MAX_LOAD_PCT	95	/* grow (exact) beyond this load */
#define CUCKOO_KEY_MAX		40	/* longest key, bytes */

struct cuckoo;

struct cuckoo_params {
	u64 capacity;		/* keys the first table holds at <= 95% load */
	/*
	 * exact: growth stops at a table for this many keys; 0 = capacity
	 * (never grow); compact: must be 0 or == capacity
	 */
	u64 max_capacity;
	u64 seed;		/* hash key; use a random value */
	u32 fp_bits;		/* 8, 12, 16 or 32 */
	u32 key_len;		/* bytes per key: 1..CUCKOO_KEY_MAX */
	bool exact;
	/* exact only, key_len a multiple of 4: a u32 value beside each key */
	bool values;
};

struct cuckoo_stats {
	u64 capacity;		/* slots: buckets * CUCKOO_SLOTS */
	u64 count;		/* keys stored */
	u64 buckets;
	u64 max_capacity;	/* as created (keys) */
	u64 memory_bytes;	/* everything allocated now */
	u64 insert_failures;	/* inserts refused with -ENOSPC since clear */
	u64 grows;		/* table doublings since creation */
	u64 moves;		/* entries moved between buckets, this table */
	u32 fp_bits;
	u32 key_len;
	bool exact;
};

/* 0, or -EINVAL naming nothing: see the kernel-doc for every rule. */
int cuckoo_params_check(const struct cuckoo_params *p);
u64 cuckoo_max_capacity(const struct cuckoo_params *p);

/* NULL on bad parameters or no memory. May sleep. */
struct cuckoo *cuckoo_create(const struct cuckoo_params *p);
/* No reader may still use @c (wait for a grace period first). */
void cuckoo_destroy(struct cuckoo *c);

/* Writers: caller serialises; process context; may sleep. */
/*
 * 0; -EEXIST; -ENOSPC (compact full, or exact at max_capacity: nothing
 * lost); -EDQUOT (growth would pass the memory bound: nothing lost);
 * -ENOMEM (growth failed: nothing lost)
 */
int cuckoo_insert(struct cuckoo *c, const void *key);
int cuckoo_delete(struct cuckoo *c, const void *key);	/* 0, -ENOENT */
/* With values: as cuckoo_insert(); a present key keeps its value. */
int cuckoo_insert_val(struct cuckoo *c, const void *key, u32 val);
int cuckoo_set_val(struct cuckoo *c, const void *key, u32 val); /* -ENOENT */
int cuckoo_get_val(const struct cuckoo *c, const void *key, u32 *val);
/* 0, -EDQUOT, -ENOMEM (nothing changed); -EBUSY: mirrored */
int cuckoo_clear(struct cuckoo *c);

/*
 * Exact mode: copies up to @max keys (key_len bytes each, then with values
 * the u32 value) into @keys, starting at position *@pos (0 to start) and
 * advancing it, looking at CUCKOO_LIST_SLOTS slots at most; returns the
 * number copied, 0 at the end, -EAGAIN if it found none in those slots
 * (not the end: call again); -EOPNOTSUPP in compact mode. Writer side.
 */
long cuckoo_list(const struct cuckoo *c, u64 *pos, void *keys, u64 max);
/* Slots one call of cuckoo_list() looks at, at most. */
#define CUCKOO_LIST_SLOTS	256
u64 cuckoo_list_gen(const struct cuckoo *c);

/* Readers: lock-free, inside rcu_read_lock(). */
bool cuckoo_contains(const struct cuckoo *c, const void *key);
/*
 * With values: a hit and its value in one word, which no caller's local
 * is passed by address to get (the kernel would guard the caller's frame
 * with a stack canary).
 */
#define CUCKOO_WORD_HIT		1ULL
u64 cuckoo_lookup_word(const struct cuckoo *c, const void *key);

/* With values: on a hit, *@val is a value the key had during the call. */
static inline bool cuckoo_lookup(const struct cuckoo *c, const void *key,
				 u32 *val)
{
	u64 r = cuckoo_lookup_word(c, key);

	if (r & CUCKOO_WORD_HIT)
		*val = r >> 32;
	return r & CUCKOO_WORD_HIT;
}

/*
 * The same for @n keys packed key_len bytes apart, their cache misses
 * overlapped: @hits[i] answers key i; returns the number found.
 */
u32 cuckoo_contains_batch(const struct cuckoo *c, const void *keys, u32 n,
			  bool *hits);
u32 cuckoo_lookup_batch(const struct cuckoo *c, const void *keys, u32 n,
			bool *hits, u32 *vals);

/* Writer side (consistent snapshot under the writer lock). */
void cuckoo_get_stats(const struct cuckoo *c, struct cuckoo_stats *st);

/* The hash that placed a table's keys (cuckoo_hash.h). */
enum cuckoo_hash_kind {
	CUCKOO_HASH_LANES,	/* the general hash, of any key length */
	CUCKOO_HASH_SHORT32,	/* 4-byte keys: the short hash, restored only */
	CUCKOO_HASH_MIX32,	/* 4-byte keys: every such table the core makes */
};

/*
 * Raw tables, for snapshots of compact filters (whose keys cannot be
 * listed): the fingerprint slots as they are in memory, and the hash seed
 * without which they mean nothing.
 */
struct cuckoo_raw {
	u64 seed;
	u64 buckets;
	u64 count;		/* nonzero slots */
	u32 fp_bits;
	enum cuckoo_hash_kind hash;
};

/* Bytes of @c's current slot array. Writer side. */
u64 cuckoo_raw_bytes(const struct cuckoo *c);
/* Bytes of the largest slot array a filter made with @p has; 0: bad @p. */
u64 cuckoo_raw_max_bytes(const struct cuckoo_params *p);
/*
 * Copies bytes [@off, @off + @len) of @c's slots into @data and describes
 * the table in @r; @off and @len are multiples of the word (4 bytes with
 * 8-bit fingerprints, else 8). 0; -EOPNOTSUPP (exact mode); -EINVAL (a
 * range not so, or past the end: nothing copied). Writer side; the table
 * must not change between the parts of one copy.
 */
int cuckoo_raw_read(const struct cuckoo *c, struct cuckoo_raw *r, void *data,
		    u64 off, u64 len);
/*
 * A new compact filter holding exactly the slots @data describes: @p gives
 * key_len and fp_bits (which must equal @r->fp_bits) and max_capacity; the
 * seed and the geometry come from @r. Every rule is checked: buckets a
 * power of two within max_capacity, @size equal to the table's bytes,
 * @r->count equal to the nonzero slots, each slot a possible fingerprint.
 * Returns the filter, or an ERR_PTR: -EINVAL, -ENOMEM. May sleep.
 */
struct cuckoo *cuckoo_raw_create(const struct cuckoo_params *p,
				 const struct cuckoo_raw *r, const void *data,
				 u64 size);

/*
 * A mirror: a second place where the writer stores each bucket word and
 * each version of a compact table of 12- or 16-bit fingerprints (a bucket
 * is one 64-bit word), right after storing it in the table and so under
 * the same barriers, for a reader that cannot reach the table: cfilter's
 * XDP program, reading a BPF map. That reader keeps the readers'
 * guarantees by their protocol (cuckoo_int.h), with the hash and geometry
 * of struct cuckoo_mirror_shape. A mirrored table must not be cleared.
 */
struct cuckoo_mirror {
	void (*bucket)(void *ctx, u64 b, u64 word);
	void (*version)(void *ctx, u32 stripe, u32 v);
	void *ctx;
};

struct cuckoo_mirror_shape {
	u64 hash_a;
	u64 hash_b;
	u64 buckets;
	u32 stripes;
	u32 fp_mask;
	enum cuckoo_hash_kind hash;
};

/*
 * Writer side. cuckoo_mirrorable(): 0, or -EOPNOTSUPP for a table no
 * mirror can follow (exact mode, fingerprints of 8 or 32 bits).
 * cuckoo_mirror_start() copies the buckets into @words (the shape's
 * buckets of them) and from then on stores in @m too, until
 * cuckoo_mirror_stop(); the versions start at 0 in the mirror, which a
 * reader tells from any it read before, as the next is stored over them.
 */
int cuckoo_mirrorable(const struct cuckoo *c, struct cuckoo_mirror_shape *sh);
int cuckoo_mirror_start(struct cuckoo *c, const struct cuckoo_mirror *m,
			u64 *words);
void cuckoo_mirror_stop(struct cuckoo *c);

#endif /* CFILTER_CUCKOO_H */
