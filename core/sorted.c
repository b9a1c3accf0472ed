// SPDX-License-Identifier: GPL-2.0
/*
 * A sorted set of fixed-length byte keys in chunks (see sorted.h).
 *
 * Invariants: every chunk holds 1..SORTED_CHUNK keys, in order, and every
 * key of a chunk is below every key of the next. A full chunk splits in
 * two, or, when the key goes after its last one, leaves the key a chunk of
 * its own: keys added in order (a sorted feed) then fill whole chunks. A
 * chunk that a delete leaves small is merged with a neighbour when both
 * fit in half a chunk, so that deletes cannot leave a chunk per key.
 */
#include "sorted.h"

/**
 * struct sorted_chunk - keys in order
 * @keys: SORTED_CHUNK keys of the set's key_len bytes, the first @n used
 * @n: keys held
 *
 * @n lives in the array, not with the keys: 64 keys of 4, 8 or 16 bytes
 * are a size kmalloc serves exactly, which a count beside them would
 * double.
 */
struct sorted_chunk {
	u8 *keys;
	u32 n;
};

static u64 sorted_chunk_bytes(const struct sorted *o)
{
	return (u64)SORTED_CHUNK * o->key_len;
}

static u8 *sorted_key(const struct sorted *o, const struct sorted_chunk *ch,
		      u32 i)
{
	return (u8 *)ch->keys + (u64)i * o->key_len;
}

/**
 * sorted_init() - an empty set
 * @o: the set
 * @key_len: bytes per key
 */
void sorted_init(struct sorted *o, u32 key_len)
{
	memset(o, 0, sizeof(*o));
	o->key_len = key_len;
}

/**
 * sorted_free() - free every key; @o is empty after
 * @o: the set
 */
void sorted_free(struct sorted *o)
{
	u32 c;

	for (c = 0; c < o->nchunks; c++)
		cuckoo_mem_free(o->chunk[c].keys, sorted_chunk_bytes(o));
	cuckoo_mem_free(o->chunk, (u64)o->cap * sizeof(*o->chunk));
	sorted_init(o, o->key_len);
}

/* The chunk @key belongs in: the last whose first key is not above it. */
static u32 sorted_find_chunk(const struct sorted *o, const void *key)
{
	u32 lo = 0, hi = o->nchunks, mid;

	/* invariant: chunks before lo start at or below @key; from hi, above */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (memcmp(sorted_key(o, &o->chunk[mid], 0), key,
			   o->key_len) <= 0)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The first key of @ch not below @key (its n if none). */
static u32 sorted_find_key(const struct sorted *o,
			   const struct sorted_chunk *ch, const void *key)
{
	u32 lo = 0, hi = ch->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (memcmp(sorted_key(o, ch, mid), key, o->key_len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Room for one more chunk pointer: 0, or an error with nothing changed. */
static int sorted_reserve(struct sorted *o)
{
	struct sorted_chunk *chunk;
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

/*
 * Puts a chunk of the @n keys at @keys in the array at @c; the caller
 * reserved room. Chunks before @c stay where they are.
 */
static void sorted_place(struct sorted *o, u32 c, u8 *keys, u32 n)
{
	memmove(&o->chunk[c + 1], &o->chunk[c],
		(o->nchunks - c) * sizeof(*o->chunk));
	o->chunk[c].keys = keys;
	o->chunk[c].n = n;
	o->nchunks++;
}

/* Takes chunk @c out of the array and frees it. */
static void sorted_drop(struct sorted *o, u32 c)
{
	cuckoo_mem_free(o->chunk[c].keys, sorted_chunk_bytes(o));
	memmove(&o->chunk[c], &o->chunk[c + 1],
		(o->nchunks - c - 1) * sizeof(*o->chunk));
	o->nchunks--;
}

/**
 * sorted_insert() - add a key
 * @o: the set
 * @key: key_len bytes
 *
 * Return: 0; -EEXIST (present); -EDQUOT or -ENOMEM, nothing changed.
 */
int sorted_insert(struct sorted *o, const void *key)
{
	struct sorted_chunk *ch;
	u32 c, i, k = o->key_len;
	u8 *keys;
	int err;

	if (!o->nchunks) {
		err = sorted_reserve(o);
		if (err)
			return err;
		keys = cuckoo_mem_zalloc(sorted_chunk_bytes(o));
		if (IS_ERR(keys))
			return PTR_ERR(keys);
		sorted_place(o, 0, keys, 0);
	}
	c = sorted_find_chunk(o, key);
	ch = &o->chunk[c];
	i = sorted_find_key(o, ch, key);
	if (i < ch->n && !memcmp(sorted_key(o, ch, i), key, k))
		return -EEXIST;
	if (ch->n == SORTED_CHUNK) {
		err = sorted_reserve(o);
		if (err)
			return err;
		/* the array may have moved */
		ch = &o->chunk[c];
		keys = cuckoo_mem_zalloc(sorted_chunk_bytes(o));
		if (IS_ERR(keys))
			return PTR_ERR(keys);
		if (i == SORTED_CHUNK) {
			memcpy(keys, key, k);
			sorted_place(o, c + 1, keys, 1);
			o->count++;
			return 0;
		}
		memcpy(keys, sorted_key(o, ch, SORTED_CHUNK / 2),
		       (u64)SORTED_CHUNK / 2 * k);
		ch->n = SORTED_CHUNK / 2;
		sorted_place(o, c + 1, keys, SORTED_CHUNK / 2);
		if (i > ch->n) {
			ch = &o->chunk[c + 1];
			i -= SORTED_CHUNK / 2;
		}
	}
	memmove(sorted_key(o, ch, i + 1), sorted_key(o, ch, i),
		(u64)(ch->n - i) * k);
	memcpy(sorted_key(o, ch, i), key, k);
	ch->n++;
	o->count++;
	return 0;
}

/**
 * sorted_delete() - remove a key
 * @o: the set
 * @key: key_len bytes
 *
 * Return: true if @key was present.
 */
bool sorted_delete(struct sorted *o, const void *key)
{
	struct sorted_chunk *ch, *next;
	u32 c, i, k = o->key_len;

	if (!o->nchunks)
		return false;
	c = sorted_find_chunk(o, key);
	ch = &o->chunk[c];
	i = sorted_find_key(o, ch, key);
	if (i == ch->n || memcmp(sorted_key(o, ch, i), key, k))
		return false;
	memmove(sorted_key(o, ch, i), sorted_key(o, ch, i + 1),
		(u64)(ch->n - i - 1) * k);
	ch->n--;
	o->count--;
	if (!ch->n) {
		sorted_drop(o, c);
		return true;
	}
	/* two neighbours that fit in half a chunk become one */
	if (c > 0 && o->chunk[c - 1].n + ch->n <= SORTED_CHUNK / 2)
		c--;
	else if (c + 1 == o->nchunks ||
		 ch->n + o->chunk[c + 1].n > SORTED_CHUNK / 2)
		return true;
	ch = &o->chunk[c];
	next = &o->chunk[c + 1];
	memcpy(sorted_key(o, ch, ch->n), next->keys, (u64)next->n * k);
	ch->n += next->n;
	sorted_drop(o, c + 1);
	return true;
}

/**
 * sorted_seek() - start a walk
 * @o: the set
 * @key: key_len bytes
 * @pos: set to the key returned
 *
 * Return: the first key not below @key, or NULL if there is none.
 */
const u8 *sorted_seek(const struct sorted *o, const void *key,
		      struct sorted_pos *pos)
{
	if (!o->nchunks)
		return NULL;
	pos->c = sorted_find_chunk(o, key);
	pos->i = sorted_find_key(o, &o->chunk[pos->c], key);
	if (pos->i == o->chunk[pos->c].n) {
		if (++pos->c == o->nchunks)
			return NULL;
		pos->i = 0;
	}
	return sorted_key(o, &o->chunk[pos->c], pos->i);
}

/**
 * sorted_next() - go on with a walk
 * @o: the set
 * @pos: where the walk is; moved on
 *
 * Return: the key after the one at @pos, or NULL at the end.
 */
const u8 *sorted_next(const struct sorted *o, struct sorted_pos *pos)
{
	if (++pos->i == o->chunk[pos->c].n) {
		if (++pos->c == o->nchunks)
			return NULL;
		pos->i = 0;
	}
	return sorted_key(o, &o->chunk[pos->c], pos->i);
}

/**
 * sorted_bytes() - memory held
 * @o: the set
 *
 * Return: the bytes of its chunks and of their array.
 */
u64 sorted_bytes(const struct sorted *o)
{
	return o->nchunks * cuckoo_mem_footprint(sorted_chunk_bytes(o)) +
	       cuckoo_mem_footprint((u64)o->cap * sizeof(*o->chunk));
}
