/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sorted set of fixed-length byte keys, compared as memcmp() does: the
 * writer's index of a prefix table, so that the entries under a prefix are
 * found in O(log n) plus one step each, where a hash table offers only a
 * probe per candidate or a walk of every slot. Packets never read it: no
 * RCU, every call runs under the caller's writer lock.
 *
 * The keys sit in chunks of at most SORTED_CHUNK, in order, and an array
 * of the chunks in order: a few bytes per key beyond the key itself, and an
 * insert moves at most a chunk's keys and, when a chunk splits, the array's
 * pointers.
 *
 * Plain C, built into the module and into the host tests (cuckoo_env.h).
 */
#ifndef CFILTER_SORTED_H
#define CFILTER_SORTED_H

#include "cuckoo_env.h"

#define SORTED_CHUNK	64

struct sorted_chunk;

/**
 * struct sorted - the set; all fields private
 * @chunk:   @nchunks chunks in key order (each its keys and their
 *           number), room for @cap
 * @nchunks: chunks in use
 * @cap:     room in @chunk
 * @key_len: bytes per key
 * @count:   keys
 */
struct sorted {
	struct sorted_chunk *chunk;
	u32 nchunks;
	u32 cap;
	u32 key_len;
	u64 count;
};

/* Where a walk is: chunk @c, key @i. */
struct sorted_pos {
	u32 c;
	u32 i;
};

void sorted_init(struct sorted *o, u32 key_len);
void sorted_free(struct sorted *o);
/* 0; -EEXIST; -EDQUOT (the memory bound) or -ENOMEM, nothing changed. */
int sorted_insert(struct sorted *o, const void *key);
/* Removes @key: true if it was present. */
bool sorted_delete(struct sorted *o, const void *key);
/*
 * Walk in key order: the first key not below @key, and @pos set to it;
 * then the next ones. NULL at the end. Any insert or delete ends a walk.
 */
const u8 *sorted_seek(const struct sorted *o, const void *key,
		      struct sorted_pos *pos);
const u8 *sorted_next(const struct sorted *o, struct sorted_pos *pos);
/* Bytes allocated. */
u64 sorted_bytes(const struct sorted *o);

#endif /* CFILTER_SORTED_H */
