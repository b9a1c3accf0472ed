// SPDX-License-Identifier: GPL-2.0
/*
 * A sorted set of fixed-length byte keys in chunks (see ordered.h).
 *
 * Invariants: every chunk holds 1..ORDERED_CHUNK keys, in order, and every
 * key of a chunk is below every key of the next. A full chunk splits in
 * two, or, when the key goes after its last one, leaves the key a chunk of
 * its own: keys added in order (a sorted feed) then fill whole chunks. A
 * chunk that a delete leaves small is merged with a neighbour when both
 * fit in half a chunk, so that deletes cannot leave a chunk per key.
 */
#include "ordered.h"

/**
 * struct ordered_chunk - keys in order
 * @n: keys held
 * @keys: ORDERED_CHUNK keys of the set's key_len bytes, the first @n used
 */
struct ordered_chunk {
	u32 n;
	u8 keys[];
};

static u64 ordered_chunk_bytes(const struct ordered *o)
{
	return sizeof(struct ordered_chunk) + (u64)ORDERED_CHUNK * o->key_len;
}

static u8 *ordered_key(const struct ordered *o, const struct ordered_chunk *ch,
		       u32 i)
{
	return (u8 *)ch->keys + (u64)i * o->key_len;
}

/**
 * ordered_init() - an empty set
 * @o: the set
 * @key_len: bytes per key
 */
void ordered_init(struct ordered *o, u32 key_len)
{
	memset(o, 0, sizeof(*o));
	o->key_len = key_len;
}

/**
 * ordered_free() - free every key; @o is empty after
 * @o: the set
 */
void ordered_free(struct ordered *o)
{
	u32 c;

	for (c = 0; c < o->nchunks; c++)
		cuckoo_mem_free(o->chunk[c], ordered_chunk_bytes(o));
	cuckoo_mem_free(o->chunk, (u64)o->cap * sizeof(*o->chunk));
	ordered_init(o, o->key_len);
}

/* The chunk @key belongs in: the last whose first key is not above it. */
static u32 ordered_find_chunk(const struct ordered *o, const void *key)
{
	u32 lo = 0, hi = o->nchunks, mid;

	/* invariant: chunks before lo start at or below @key; from hi, above */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (memcmp(ordered_key(o, o->chunk[mid], 0), key, o->key_len) <= 0)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The first key of @ch not below @key (its n if none). */
static u32 ordered_find_key(const struct ordered *o,
			    const struct ordered_chunk *ch, const void *key)
{
	u32 lo = 0, hi = ch->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (memcmp(ordered_key(o, ch, mid), key, o->key_len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Room for one more chunk pointer: 0, or an error with nothing changed. */
static int ordered_reserve(struct ordered *o)
{
	struct ordered_chunk **chunk;
	u32 cap;

	if (o->nchunks < o->cap)
		return 0;
	cap = o->cap ? 2 * o->cap : 4;
	chunk = cuckoo_mem_zalloc((u64)cap * sizeof(*chunk));
	if (IS_ERR(chunk))
		return PTR_ERR(chunk);
	if (o->nchunks)
		memcpy(chunk, o->chunk, o->nchunks * sizeof(*chunk));
	cuckoo_mem_free(o->chunk, (u64)o->cap * sizeof(*o->chunk));
	o->chunk = chunk;
	o->cap = cap;
	return 0;
}

/* Puts @ch in the array at @c; the caller reserved room. */
static void ordered_place(struct ordered *o, u32 c, struct ordered_chunk *ch)
{
	memmove(&o->chunk[c + 1], &o->chunk[c],
		(o->nchunks - c) * sizeof(*o->chunk));
	o->chunk[c] = ch;
	o->nchunks++;
}

/* Takes chunk @c out of the array and frees it. */
static void ordered_drop(struct ordered *o, u32 c)
{
	cuckoo_mem_free(o->chunk[c], ordered_chunk_bytes(o));
	memmove(&o->chunk[c], &o->chunk[c + 1],
		(o->nchunks - c - 1) * sizeof(*o->chunk));
	o->nchunks--;
}

/**
 * ordered_insert() - add a key
 * @o: the set
 * @key: key_len bytes
 *
 * Return: 0; -EEXIST (present); -EDQUOT or -ENOMEM, nothing changed.
 */
int ordered_insert(struct ordered *o, const void *key)
{
	struct ordered_chunk *ch, *half;
	u32 c, i, k = o->key_len;
	int err;

	if (!o->nchunks) {
		err = ordered_reserve(o);
		if (err)
			return err;
		ch = cuckoo_mem_zalloc(ordered_chunk_bytes(o));
		if (IS_ERR(ch))
			return PTR_ERR(ch);
		ordered_place(o, 0, ch);
	}
	c = ordered_find_chunk(o, key);
	ch = o->chunk[c];
	i = ordered_find_key(o, ch, key);
	if (i < ch->n && !memcmp(ordered_key(o, ch, i), key, k))
		return -EEXIST;
	if (ch->n == ORDERED_CHUNK) {
		err = ordered_reserve(o);
		if (err)
			return err;
		half = cuckoo_mem_zalloc(ordered_chunk_bytes(o));
		if (IS_ERR(half))
			return PTR_ERR(half);
		if (i == ORDERED_CHUNK) {
			memcpy(half->keys, key, k);
			half->n = 1;
			ordered_place(o, c + 1, half);
			o->count++;
			return 0;
		}
		half->n = ORDERED_CHUNK / 2;
		memcpy(half->keys, ordered_key(o, ch, ORDERED_CHUNK / 2),
		       (u64)half->n * k);
		ch->n = ORDERED_CHUNK / 2;
		ordered_place(o, c + 1, half);
		if (i > ch->n) {
			ch = half;
			i -= ORDERED_CHUNK / 2;
		}
	}
	memmove(ordered_key(o, ch, i + 1), ordered_key(o, ch, i),
		(u64)(ch->n - i) * k);
	memcpy(ordered_key(o, ch, i), key, k);
	ch->n++;
	o->count++;
	return 0;
}

/**
 * ordered_delete() - remove a key
 * @o: the set
 * @key: key_len bytes
 *
 * Return: true if @key was present.
 */
bool ordered_delete(struct ordered *o, const void *key)
{
	struct ordered_chunk *ch, *next;
	u32 c, i, k = o->key_len;

	if (!o->nchunks)
		return false;
	c = ordered_find_chunk(o, key);
	ch = o->chunk[c];
	i = ordered_find_key(o, ch, key);
	if (i == ch->n || memcmp(ordered_key(o, ch, i), key, k))
		return false;
	memmove(ordered_key(o, ch, i), ordered_key(o, ch, i + 1),
		(u64)(ch->n - i - 1) * k);
	ch->n--;
	o->count--;
	if (!ch->n) {
		ordered_drop(o, c);
		return true;
	}
	/* two neighbours that fit in half a chunk become one */
	if (c > 0 && o->chunk[c - 1]->n + ch->n <= ORDERED_CHUNK / 2)
		c--;
	else if (c + 1 == o->nchunks ||
		 ch->n + o->chunk[c + 1]->n > ORDERED_CHUNK / 2)
		return true;
	ch = o->chunk[c];
	next = o->chunk[c + 1];
	memcpy(ordered_key(o, ch, ch->n), next->keys, (u64)next->n * k);
	ch->n += next->n;
	ordered_drop(o, c + 1);
	return true;
}

/**
 * ordered_seek() - start a walk
 * @o: the set
 * @key: key_len bytes
 * @pos: set to the key returned
 *
 * Return: the first key not below @key, or NULL if there is none.
 */
const u8 *ordered_seek(const struct ordered *o, const void *key,
		       struct ordered_pos *pos)
{
	if (!o->nchunks)
		return NULL;
	pos->c = ordered_find_chunk(o, key);
	pos->i = ordered_find_key(o, o->chunk[pos->c], key);
	if (pos->i == o->chunk[pos->c]->n) {
		if (++pos->c == o->nchunks)
			return NULL;
		pos->i = 0;
	}
	return ordered_key(o, o->chunk[pos->c], pos->i);
}

/**
 * ordered_next() - go on with a walk
 * @o: the set
 * @pos: where the walk is; moved on
 *
 * Return: the key after the one at @pos, or NULL at the end.
 */
const u8 *ordered_next(const struct ordered *o, struct ordered_pos *pos)
{
	if (++pos->i == o->chunk[pos->c]->n) {
		if (++pos->c == o->nchunks)
			return NULL;
		pos->i = 0;
	}
	return ordered_key(o, o->chunk[pos->c], pos->i);
}

/**
 * ordered_bytes() - memory held
 * @o: the set
 *
 * Return: the bytes of its chunks and of their array.
 */
u64 ordered_bytes(const struct ordered *o)
{
	return o->nchunks * cuckoo_mem_footprint(ordered_chunk_bytes(o)) +
	       cuckoo_mem_footprint((u64)o->cap * sizeof(*o->chunk));
}
