// SPDX-License-Identifier: GPL-2.0
/*
 * Open addressing with linear probing. A table is laid out anew at most
 * 3/4 full (live entries and tombstones), to twice the live entries: so
 * a put costs O(1) amortised, a probe sequence stays short, and deletes
 * followed by puts cannot fill the table with tombstones. A seeded hash
 * keeps crafted keys from lining up in one probe run.
 */
#include "keymap.h"

#define KEYMAP_EMPTY	0
#define KEYMAP_LIVE	1
#define KEYMAP_TOMB	2

#define KEYMAP_MIN_CAP	16

/* Slot layout: state (1 byte), value (val_len, little endian), key. */
#define KEYMAP_VAL	1

void keymap_init(struct keymap *m, u32 key_len, u32 val_len, u64 max,
		 u64 seed)
{
	memset(m, 0, sizeof(*m));
	m->key_len = key_len;
	m->val_len = val_len == 8 ? 8 : 4;
	m->stride = KEYMAP_VAL + m->val_len + key_len;
	m->max = max;
	m->seed = seed;
}

static void keymap_free_slots(struct keymap *m)
{
	cuckoo_mem_free(m->slots, m->cap * m->stride);
	m->slots = NULL;
}

void keymap_free(struct keymap *m)
{
	keymap_free_slots(m);
	m->cap = 0;
	m->used = 0;
	m->tombs = 0;
}

static u64 keymap_hash(const struct keymap *m, const u8 *key)
{
	u64 h = m->seed;
	u32 i, n;

	for (i = 0; i < m->key_len; i += 8) {
		u64 w = 0;

		n = m->key_len - i < 8 ? m->key_len - i : 8;
		memcpy(&w, key + i, n);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 32;
	}
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 32);
}

static u8 *keymap_slot(const struct keymap *m, u64 i)
{
	return m->slots + i * m->stride;
}

static u8 *keymap_key(const struct keymap *m, const u8 *slot)
{
	return (u8 *)slot + KEYMAP_VAL + m->val_len;
}

static u64 keymap_val(const struct keymap *m, const u8 *slot)
{
	return m->val_len == 8 ? get_unaligned_le64(slot + KEYMAP_VAL) :
				 get_unaligned_le32(slot + KEYMAP_VAL);
}

/* Stores @val, which must fit the map's val_len. */
static void keymap_set_val(const struct keymap *m, u8 *slot, u64 val)
{
	if (m->val_len == 8)
		put_unaligned_le64(val, slot + KEYMAP_VAL);
	else
		put_unaligned_le32((u32)val, slot + KEYMAP_VAL);
}

/*
 * The slot holding @key, or NULL; *@free gets the first reusable slot on
 * its probe path (for an insert), if @free is not NULL.
 */
static u8 *keymap_find(const struct keymap *m, const u8 *key, u8 **free)
{
	u64 mask = m->cap - 1, i;
	u8 *slot;

	if (free)
		*free = NULL;
	if (!m->cap)
		return NULL;
	for (i = keymap_hash(m, key) & mask;; i = (i + 1) & mask) {
		slot = keymap_slot(m, i);
		if (slot[0] == KEYMAP_EMPTY) {
			if (free && !*free)
				*free = slot;
			return NULL;
		}
		if (slot[0] == KEYMAP_TOMB) {
			if (free && !*free)
				*free = slot;
			continue;
		}
		if (!memcmp(keymap_key(m, slot), key, m->key_len))
			return slot;
	}
}

bool keymap_get(const struct keymap *m, const void *key, u64 *val)
{
	const u8 *slot = keymap_find(m, key, NULL);

	if (slot && val)
		*val = keymap_val(m, slot);
	return slot;
}

static void keymap_fill(struct keymap *m, u8 *slot, const u8 *key, u64 val)
{
	slot[0] = KEYMAP_LIVE;
	keymap_set_val(m, slot, val);
	memcpy(keymap_key(m, slot), key, m->key_len);
}

/*
 * Every live entry into a new table of @cap slots; -EDQUOT (the memory
 * bound), -ENOMEM: unchanged.
 */
static int keymap_relayout(struct keymap *m, u64 cap)
{
	struct keymap n = *m;
	u64 i;
	u8 *free;

	n.slots = cuckoo_mem_zalloc(cap * m->stride);
	if (IS_ERR(n.slots))
		return PTR_ERR(n.slots);
	n.cap = cap;
	n.tombs = 0;
	for (i = 0; i < m->cap; i++) {
		const u8 *slot = keymap_slot(m, i);

		if (slot[0] != KEYMAP_LIVE)
			continue;
		keymap_find(&n, keymap_key(m, slot), &free);
		keymap_fill(&n, free, keymap_key(m, slot), keymap_val(m, slot));
		if (!(i & 0xffff))
			cond_resched();
	}
	keymap_free_slots(m);
	n.gen = m->gen + 1;
	*m = n;
	return 0;
}

/* The size for @n live entries: at most half full. */
static u64 keymap_cap_for(u64 n)
{
	u64 cap = KEYMAP_MIN_CAP;

	while (cap < 2 * n)
		cap *= 2;
	return cap;
}

int keymap_put(struct keymap *m, const void *key, u64 val)
{
	u8 *slot, *free;
	int err;

	slot = keymap_find(m, key, &free);
	if (slot) {
		keymap_set_val(m, slot, val);
		return 0;
	}
	if (m->used >= m->max)
		return -ENOSPC;
	if (4 * (m->used + m->tombs + 1) > 3 * m->cap) {
		err = keymap_relayout(m, keymap_cap_for(m->used + 1));
		if (err)
			return err;
		keymap_find(m, key, &free);
	}
	if (free[0] == KEYMAP_TOMB)
		m->tombs--;
	keymap_fill(m, free, key, val);
	m->used++;
	return 0;
}

bool keymap_del(struct keymap *m, const void *key)
{
	u8 *slot = keymap_find(m, key, NULL);

	if (!slot)
		return false;
	slot[0] = KEYMAP_TOMB;
	m->used--;
	m->tombs++;
	return true;
}

const void *keymap_next(const struct keymap *m, u64 *pos, u64 *val)
{
	u64 end = *pos < m->cap && m->cap - *pos > KEYMAP_WALK_SLOTS ?
		  *pos + KEYMAP_WALK_SLOTS : m->cap;
	const u8 *slot;

	for (; *pos < end; (*pos)++) {
		slot = keymap_slot(m, *pos);
		if (slot[0] != KEYMAP_LIVE)
			continue;
		(*pos)++;
		if (val)
			*val = keymap_val(m, slot);
		return keymap_key(m, slot);
	}
	return NULL;
}

void keymap_shrink(struct keymap *m)
{
	if (!m->used) {
		keymap_free_slots(m);
		m->cap = 0;
		m->tombs = 0;
		m->gen++;
		return;
	}
	if (m->cap > KEYMAP_MIN_CAP && 8 * m->used < m->cap)
		keymap_relayout(m, keymap_cap_for(m->used));
}
