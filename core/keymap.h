/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A map from fixed-length byte keys to a u32: the writer's bookkeeping of a
 * set (which sources hold each entry, and until when). Packets never read
 * it, so it is plain open addressing (linear probing, tombstones) with no
 * RCU: every call runs under the caller's writer lock.
 *
 * Plain C, built into the module and into the host tests (cuckoo_env.h).
 *
 * Deleting never moves an entry, so a walk (keymap_next()) may delete what
 * it walks; only keymap_put() lays the table out anew (growing, shrinking
 * or dropping tombstones), and bumps keymap_gen() when it does.
 */
#ifndef CFILTER_KEYMAP_H
#define CFILTER_KEYMAP_H

#include "cuckoo_env.h"

#define KEYMAP_KEY_MAX	48

/**
 * struct keymap - the map; all fields private
 * @slots:   @cap slots of @stride bytes: a state byte, the value, the key
 * @cap:     slots (a power of two), or 0 before the first put
 * @used:    live entries
 * @tombs:   slots freed by a delete, which probes still pass over
 * @max:     live entries at most (-ENOSPC past it)
 * @seed:    hash key
 * @gen:     layouts so far
 * @key_len: bytes per key
 * @val_len: bytes per value: 4 or 8
 * @stride:  bytes per slot
 */
struct keymap {
	u8	*slots;
	u64	cap;
	u64	used;
	u64	tombs;
	u64	max;
	u64	seed;
	u64	gen;
	u32	key_len;
	u32	val_len;
	u32	stride;
};

/* Values of @val_len bytes: 4 (u32) or 8 (u64); a put keeps those. */
void keymap_init(struct keymap *m, u32 key_len, u32 val_len, u64 max,
		 u64 seed);
void keymap_free(struct keymap *m);

/* Is @key present? Its value into *@val if so (@val may be NULL). */
bool keymap_get(const struct keymap *m, const void *key, u64 *val);
/*
 * Inserts @key or sets its value: 0; -ENOSPC (at max); -EDQUOT (the memory
 * bound); -ENOMEM.
 */
int keymap_put(struct keymap *m, const void *key, u64 val);
/* Removes @key: true if it was present. */
bool keymap_del(struct keymap *m, const void *key);
/*
 * Walk: the key of the first entry at or after slot *@pos, its value in
 * *@val, and *@pos moved past it. A call looks at KEYMAP_WALK_SLOTS slots
 * at most, so that one over a table of tombstones is as cheap as one over
 * a full table: NULL if it found nothing there, and keymap_walked() says
 * whether that is the end. Deletes during a walk are fine; a put may lay
 * the table out anew (see keymap_gen()).
 */
const void *keymap_next(const struct keymap *m, u64 *pos, u64 *val);
/* Slots one call of keymap_next() looks at, at most. */
#define KEYMAP_WALK_SLOTS	256

/* After many deletes: a smaller table if it pays (nothing on failure). */
void keymap_shrink(struct keymap *m);

static inline u64 keymap_count(const struct keymap *m)
{
	return m->used;
}

static inline u64 keymap_gen(const struct keymap *m)
{
	return m->gen;
}

/* Has a walk at slot @pos passed every slot? */
static inline bool keymap_walked(const struct keymap *m, u64 pos)
{
	return pos >= m->cap;
}

static inline u64 keymap_bytes(const struct keymap *m)
{
	return cuckoo_mem_footprint(m->cap * m->stride);
}

#endif /* CFILTER_KEYMAP_H */
