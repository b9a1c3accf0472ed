// SPDX-License-Identifier: GPL-2.0
/*
 * Cuckoo filter core: exact mode's keys listed, for the writer.
 */
#include "cuckoo_int.h"

/**
 * cuckoo_list() - copy stored keys out
 * @c: the filter (exact mode)
 * @pos: in: where to start, 0 at first; out: where the next call starts
 * @keys: room for @max keys of key_len bytes, each followed by its u32
 *	  value (native byte order) if the filter has values
 * @max: most keys to copy
 *
 * Positions are slots of the current table: a listing that spans several
 * calls returns every key exactly once while cuckoo_list_gen() stays the
 * same; keys added or deleted in between may or may not be listed. A key
 * moved between buckets, or a new table, can carry a key from a slot not
 * yet listed to one already listed: cuckoo_list_gen() then changes, and
 * the listing must start over.
 *
 * A call looks at CUCKOO_LIST_SLOTS slots at most, so that a grown table
 * that deletes emptied costs its caller (who holds the writer lock) no
 * more per call than a full one: it may return fewer than @max keys
 * before the end. Writer side.
 *
 * Return: the number of keys copied, 0 at the end (or if @max is 0);
 * -EAGAIN if it found none in the slots it looked at (call again from
 * *@pos); -EOPNOTSUPP in compact mode, which keeps no keys.
 */
long cuckoo_list(const struct cuckoo *c, u64 *pos, void *keys, u64 max)
{
	const struct cuckoo_table *t = cuckoo_wtable(c);
	u64 i, n = 0, slots = (t->bucket_mask + 1) * CUCKOO_SLOTS, end;
	const u8 *key;
	u8 *out = keys;

	if (!c->exact)
		return -EOPNOTSUPP;
	end = *pos < slots && slots - *pos > CUCKOO_LIST_SLOTS ?
	      *pos + CUCKOO_LIST_SLOTS : slots;
	for (i = *pos; i < end && n < max; i++) {
		if (!cuckoo_slot(c, t, i / CUCKOO_SLOTS, i % CUCKOO_SLOTS))
			continue;
		key = cuckoo_key_at(c, t, i);
		memcpy(out, key, c->key_len);
		out += c->key_len;
		if (c->values) {
			memcpy(out, key + c->val_off, sizeof(u32));
			out += sizeof(u32);
		}
		n++;
	}
	*pos = i;
	if (!n && i < slots && max)
		return -EAGAIN;
	return n;
}

/**
 * cuckoo_list_gen() - the generation of cuckoo_list()'s positions
 * @c: the filter
 *
 * Writer side.
 *
 * Return: a number that only grows, and grows whenever an entry may have
 * changed slot: a move between buckets, or a new table (growth, clear).
 */
u64 cuckoo_list_gen(const struct cuckoo *c)
{
	return c->layout_base + cuckoo_wtable(c)->moves;
}
