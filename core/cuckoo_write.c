// SPDX-License-Identifier: GPL-2.0
/*
 * Cuckoo filter core: the writer. Insert (with MemC3's breadth-first
 * search for room), delete, values, growth and clear, under the protocol
 * told in cuckoo_int.h; the caller serialises writers.
 */
#include "cuckoo_int.h"

/* The parent of the BFS's two first nodes, the key's buckets. */
#define CUCKOO_ROOT		0xffff

/* Writer side: the counterpart of cuckoo_key_equal(). */
static void cuckoo_key_store(const struct cuckoo *c, u8 *stored,
			     const u8 *key)
{
	u32 i, n = c->key_len;

	if (!(n % sizeof(u64))) {
		for (i = 0; i < n; i += sizeof(u64))
			WRITE_ONCE(*(u64 *)(stored + i),
				   get_unaligned((const u64 *)(key + i)));
	} else if (!(n % sizeof(u32))) {
		for (i = 0; i < n; i += sizeof(u32))
			WRITE_ONCE(*(u32 *)(stored + i),
				   get_unaligned((const u32 *)(key + i)));
	} else {
		for (i = 0; i < n; i++)
			WRITE_ONCE(stored[i], key[i]);
	}
}

/* Does @c keep whole records (cuckoo_record_whole())? */
static bool cuckoo_has_whole_records(const struct cuckoo *c)
{
	return cuckoo_record_whole(cuckoo_shape_of(c));
}

/* Writer side: the value of the key stored at @stored (0 without values). */
static u32 cuckoo_val_of(const struct cuckoo *c, const u8 *stored)
{
	if (!c->values)
		return 0;
	if (cuckoo_has_whole_records(c))
		return ((const union cuckoo_record *)stored)->val;
	return *(const u32 *)(stored + c->val_off);
}

/*
 * Writer side: @key and, with values, @val into the slot at @stored; a
 * whole record in one store.
 */
static void cuckoo_record_store(const struct cuckoo *c, u8 *stored,
				const u8 *key, u32 val)
{
	union cuckoo_record r;

	if (c->values && cuckoo_has_whole_records(c)) {
		r.key = get_unaligned((const u32 *)key);
		r.val = val;
		WRITE_ONCE(*(u64 *)stored, r.word);
		return;
	}
	cuckoo_key_store(c, stored, key);
	if (c->values)
		WRITE_ONCE(*(u32 *)(stored + c->val_off), val);
}

static void cuckoo_word64_set(u64 *word, unsigned int shift, u64 mask, u32 fp)
{
	WRITE_ONCE(*word, (*word & ~(mask << shift)) | (u64)fp << shift);
}

/* The mirror, if any, of the current table (not of one being filled). */
static bool cuckoo_mirrored(const struct cuckoo *c,
			    const struct cuckoo_table *t)
{
	return c->mirror.bucket && t == cuckoo_wtable(c);
}

static void cuckoo_set_slot(const struct cuckoo *c, struct cuckoo_table *t,
			    u64 b, unsigned int s, u32 fp)
{
	u32 *w;

	switch (c->fp_bits) {
	case 8:
		w = &t->t32[b];
		WRITE_ONCE(*w, (*w & ~(0xffU << (8 * s))) | fp << (8 * s));
		break;
	case 32:
		cuckoo_word64_set(&t->t64[2 * b + s / 2], 32 * (s % 2),
				  0xffffffffULL, fp);
		break;
	default:
		cuckoo_word64_set(&t->t64[b], 16 * s, 0xffff, fp);
		if (cuckoo_mirrored(c, t))
			c->mirror.bucket(c->mirror.ctx, b, t->t64[b]);
		break;
	}
}

/* A free slot of bucket @b, or -1. */
static int cuckoo_find_free(const struct cuckoo *c,
			    const struct cuckoo_table *t, u64 b)
{
	unsigned int s;

	for (s = 0; s < CUCKOO_SLOTS; s++)
		if (!cuckoo_slot(c, t, b, s))
			return s;
	return -1;
}

/*
 * The slot of bucket @b holding @key (compact mode: holding @fp), or -1.
 * Several slots may hold @fp in exact mode; only one holds @key.
 */
static int cuckoo_find_key(const struct cuckoo *c,
			   const struct cuckoo_table *t, u64 b, u32 fp,
			   const void *key)
{
	unsigned int s;

	for (s = 0; s < CUCKOO_SLOTS; s++) {
		if (cuckoo_slot(c, t, b, s) != fp)
			continue;
		if (!c->exact ||
		    !memcmp(cuckoo_key_at(c, t, b * CUCKOO_SLOTS + s), key,
			    c->key_len))
			return s;
	}
	return -1;
}

/*
 * Filling the emptier of a key's buckets keeps bucket loads even, so fewer
 * inserts need moves: in tables of 2^21 buckets the first -ENOSPC came at
 * about 96% load instead of 95.5% when filling the first bucket first.
 */
static unsigned int cuckoo_free_slots(const struct cuckoo *c,
				      const struct cuckoo_table *t, u64 b)
{
	unsigned int s, n = 0;

	for (s = 0; s < CUCKOO_SLOTS; s++)
		n += !cuckoo_slot(c, t, b, s);
	return n;
}

static void cuckoo_version_bump(const struct cuckoo *c,
				struct cuckoo_table *t, u32 fp)
{
	u32 *v = &t->versions[fp & t->stripe_mask];

	WRITE_ONCE(*v, *v + 1);
	if (cuckoo_mirrored(c, t))
		c->mirror.version(c->mirror.ctx, fp & t->stripe_mask, *v);
}

/*
 * Readers of fingerprint @fp retry from here to cuckoo_window_close(). The
 * barrier also orders every earlier write (a clear that closed a window)
 * before the key bytes this window may write.
 */
static void cuckoo_window_open(const struct cuckoo *c, struct cuckoo_table *t,
			       u32 fp)
{
	cuckoo_write_lock_local();
	cuckoo_version_bump(c, t, fp);
	smp_wmb();	/* odd version before the slots change */
}

static void cuckoo_window_close(const struct cuckoo *c, struct cuckoo_table *t,
				u32 fp)
{
	smp_wmb();	/* the slots before the even version */
	cuckoo_version_bump(c, t, fp);
	cuckoo_write_unlock_local();
}

/* Moves the entry in slot @fs of bucket @from to free slot @ts of @to. */
static void cuckoo_move(const struct cuckoo *c, struct cuckoo_table *t,
			u64 from, unsigned int fs, u64 to, unsigned int ts)
{
	u32 fp = cuckoo_slot(c, t, from, fs);

	WARN_ON_ONCE(!fp || cuckoo_slot(c, t, to, ts) ||
		     cuckoo_alt(t, from, fp) != to);
	cuckoo_window_open(c, t, fp);
	if (c->exact) {
		const u8 *src = cuckoo_key_at(c, t, from * CUCKOO_SLOTS + fs);

		cuckoo_record_store(c, cuckoo_key_at(c, t, to * CUCKOO_SLOTS + ts),
				    src, cuckoo_val_of(c, src));
	}
	smp_wmb();	/* the key bytes before the fingerprint */
	cuckoo_set_slot(c, t, to, ts, fp);
	cuckoo_set_slot(c, t, from, fs, 0);
	cuckoo_window_close(c, t, fp);
	t->moves++;
}

/*
 * Stores @fp (and @key, and @val) into free slot @s of bucket @b; a record
 * that takes several loads inside a window of @fp's version.
 */
static void cuckoo_fill(const struct cuckoo *c, struct cuckoo_table *t,
			u64 b, unsigned int s, u32 fp, const void *key, u32 val)
{
	bool window = c->exact && !cuckoo_has_whole_records(c);

	if (window)
		cuckoo_window_open(c, t, fp);
	if (c->exact) {
		cuckoo_record_store(c, cuckoo_key_at(c, t, b * CUCKOO_SLOTS + s),
				    key, val);
		smp_wmb();	/* the record before the fingerprint */
	}
	cuckoo_set_slot(c, t, b, s, fp);
	if (window)
		cuckoo_window_close(c, t, fp);
}

/*
 * Empties slot @s of bucket @b; if its record takes several loads, inside
 * a window of its fingerprint's version: the record may be rewritten next.
 */
static void cuckoo_empty(const struct cuckoo *c, struct cuckoo_table *t,
			 u64 b, unsigned int s)
{
	u32 fp = cuckoo_slot(c, t, b, s);
	bool window = c->exact && !cuckoo_has_whole_records(c);

	if (window)
		cuckoo_window_open(c, t, fp);
	cuckoo_set_slot(c, t, b, s, 0);
	if (window)
		cuckoo_window_close(c, t, fp);
}

/*
 * Breadth-first search from the key's full buckets @b1 and @b2 for a free
 * slot that a chain of moves can reach, examining at most CUCKOO_MAX_KICKS
 * slots. Returns the queue index of the last node, whose bucket has free
 * slot *@free, or -ENOSPC. BFS finds a shortest chain, so no bucket occurs
 * twice in it and each move empties the slot the next one fills.
 */
static int cuckoo_search(const struct cuckoo *c, const struct cuckoo_table *t,
			 u64 b1, u64 b2, unsigned int *free)
{
	struct cuckoo_node *q = c->queue;
	unsigned int head, tail = 0, examined = 0, s;

	q[tail++] = (struct cuckoo_node){ .bucket = b1, .parent = CUCKOO_ROOT };
	if (b2 != b1)
		q[tail++] = (struct cuckoo_node){ .bucket = b2,
						  .parent = CUCKOO_ROOT };
	for (head = 0; head < tail; head++) {
		u64 b = q[head].bucket;

		for (s = 0; s < CUCKOO_SLOTS; s++) {
			u64 alt = cuckoo_alt(t, b, cuckoo_slot(c, t, b, s));
			int f;

			if (++examined > CUCKOO_MAX_KICKS)
				return -ENOSPC;
			if (alt == b)
				continue;
			q[tail] = (struct cuckoo_node){ .bucket = alt,
							.parent = head,
							.slot = s };
			f = cuckoo_find_free(c, t, alt);
			if (f >= 0) {
				*free = f;
				return tail;
			}
			tail++;
		}
	}
	return -ENOSPC;
}

/*
 * Frees a slot in @b1 or @b2 by moving entries along a BFS chain, the last
 * one first, so that every fingerprint is always in one of its buckets.
 * Returns the slot and sets *@b to its bucket, or -ENOSPC with nothing
 * moved; -EAGAIN, nothing moved, if the filter has no queue yet
 * (cuckoo_queue_alloc()).
 */
static int cuckoo_make_room(const struct cuckoo *c, struct cuckoo_table *t,
			    u64 b1, u64 b2, u64 *b)
{
	unsigned int to_slot;
	u64 to;
	int i;

	if (!c->queue)
		return -EAGAIN;
	i = cuckoo_search(c, t, b1, b2, &to_slot);
	if (i < 0)
		return i;
	to = c->queue[i].bucket;
	while (c->queue[i].parent != CUCKOO_ROOT) {
		const struct cuckoo_node *n = &c->queue[i];
		u64 from = c->queue[n->parent].bucket;

		cuckoo_move(c, t, from, n->slot, to, to_slot);
		to = from;
		to_slot = n->slot;
		i = n->parent;
	}
	*b = to;
	return to_slot;
}

/*
 * Adds a key known to be absent from @t; -ENOSPC or -EAGAIN (no queue)
 * with nothing moved.
 */
static int cuckoo_table_add(const struct cuckoo *c, struct cuckoo_table *t,
			    const void *key, u32 val, u64 h)
{
	u32 fp = cuckoo_fp(c, h);
	u64 b1 = h & t->bucket_mask;
	u64 b2 = cuckoo_alt(t, b1, fp);
	u64 b;
	int s;

	b = cuckoo_free_slots(c, t, b2) > cuckoo_free_slots(c, t, b1) ? b2 : b1;
	s = cuckoo_find_free(c, t, b);
	if (s < 0) {
		s = cuckoo_make_room(c, t, b1, b2, &b);
		if (s < 0)
			return s;
	}
	cuckoo_fill(c, t, b, s, fp, key, val);
	t->count++;
	return 0;
}

/* Finds @key's slot in @t: returns it and sets *@b, or returns -1. */
static int cuckoo_locate(const struct cuckoo *c, const struct cuckoo_table *t,
			 const void *key, u64 h, u64 *b)
{
	u32 fp = cuckoo_fp(c, h);
	int s;

	*b = h & t->bucket_mask;
	s = cuckoo_find_key(c, t, *b, fp, key);
	if (s >= 0)
		return s;
	*b = cuckoo_alt(t, *b, fp);
	return cuckoo_find_key(c, t, *b, fp, key);
}

/* Publishes @t and frees the table it replaces once no reader can use it. */
static void cuckoo_swap(struct cuckoo *c, struct cuckoo_table *t)
{
	struct cuckoo_table *old = cuckoo_wtable(c);

	rcu_assign_pointer(c->table, t);
	/* Every position changes meaning: a generation no old one equals. */
	c->layout_base += old->moves + 1;
	synchronize_rcu();
	cuckoo_table_free(old);
}

/*
 * Copies every key of @old into @t; -ENOSPC if one finds no room. The
 * filter has its queue.
 */
static int cuckoo_rehash(const struct cuckoo *c,
			 const struct cuckoo_table *old,
			 struct cuckoo_table *t)
{
	u64 i, slots = (old->bucket_mask + 1) * CUCKOO_SLOTS;
	const u8 *key;

	for (i = 0; i < slots; i++) {
		if (!(i & CUCKOO_RESCHED_MASK))
			cond_resched();
		if (!cuckoo_slot(c, old, i / CUCKOO_SLOTS, i % CUCKOO_SLOTS))
			continue;
		key = cuckoo_key_at(c, old, i);
		if (cuckoo_table_add(c, t, key, cuckoo_val_of(c, key),
				     cuckoo_key_hash(c, key)))
			return -ENOSPC;
	}
	return 0;
}

/* The writer's BFS queue, if @c has none yet: 0, -EDQUOT or -ENOMEM. */
static int cuckoo_queue_alloc(struct cuckoo *c)
{
	struct cuckoo_node *q;

	if (c->queue)
		return 0;
	q = cuckoo_mem_zalloc(CUCKOO_QUEUE_BYTES);
	if (IS_ERR(q))
		return PTR_ERR(q);
	c->queue = q;
	return 0;
}

/*
 * Exact mode: replaces the table with one of twice the buckets holding the
 * same keys, or four times if some key finds no room in that, and so on up
 * to max_buckets. Returns 0, -ENOSPC (the largest table would not do),
 * -EDQUOT (the memory bound) or -ENOMEM; on error the table is unchanged.
 */
static int cuckoo_grow(struct cuckoo *c)
{
	const struct cuckoo_table *old = cuckoo_wtable(c);
	u64 buckets = old->bucket_mask + 1;
	struct cuckoo_table *t;
	unsigned int doublings = 0;
	int err;

	err = cuckoo_queue_alloc(c);
	if (err)
		return err;
	do {
		buckets *= 2;
		doublings++;
		if (buckets > c->max_buckets)
			return -ENOSPC;
		t = cuckoo_table_alloc(c, buckets);
		if (IS_ERR(t))
			return PTR_ERR(t);
		err = cuckoo_rehash(c, old, t);
		if (err)
			cuckoo_table_free(t);
	} while (err);
	cuckoo_swap(c, t);
	c->grows += doublings;
	return 0;
}

/* Exact mode grows before an insert would take the load past 95%. */
static bool cuckoo_can_grow(const struct cuckoo *c,
			    const struct cuckoo_table *t)
{
	return c->exact && t->bucket_mask + 1 < c->max_buckets;
}

static bool cuckoo_should_grow(const struct cuckoo *c,
			       const struct cuckoo_table *t)
{
	u64 slots = (t->bucket_mask + 1) * CUCKOO_SLOTS;

	return cuckoo_can_grow(c, t) &&
	       (t->count + 1) * 100 > slots * CUCKOO_MAX_LOAD_PCT;
}

/**
 * cuckoo_insert() - add a key
 * @c: the filter
 * @key: key_len bytes
 *
 * Exact mode grows the table when the insert would pass 95% load or finds
 * no free slot, until it reaches max_capacity; at that size it fills the
 * table as far as free slots can be reached. In compact mode a different
 * key with the same fingerprint and buckets is indistinguishable from a
 * stored one, so it gets -EEXIST (and deleting either removes the shared
 * entry). The caller serialises writers; may sleep.
 *
 * Return: 0; -EEXIST if the key (compact: its fingerprint) is present;
 * -ENOSPC if no free slot is reachable within CUCKOO_MAX_KICKS slots and the
 * table may not grow, -EDQUOT if growing it (or the first move's queue)
 * would pass the memory bound, or -ENOMEM if allocating either failed: in
 * each case no key was lost or moved out of its buckets.
 */
int cuckoo_insert(struct cuckoo *c, const void *key)
{
	return cuckoo_insert_val(c, key, 0);
}

/**
 * cuckoo_insert_val() - add a key with its value
 * @c: the filter
 * @key: key_len bytes
 * @val: its value (ignored by a filter without values)
 *
 * As cuckoo_insert(); a present key keeps its value.
 *
 * Return: as cuckoo_insert().
 */
int cuckoo_insert_val(struct cuckoo *c, const void *key, u32 val)
{
	u64 h = cuckoo_key_hash(c, key);
	struct cuckoo_table *t = cuckoo_wtable(c);
	u64 b;
	int err;

	if (cuckoo_locate(c, t, key, h, &b) >= 0)
		return -EEXIST;
	for (;;) {
		err = cuckoo_should_grow(c, t) ? -ENOSPC :
		      cuckoo_table_add(c, t, key, val, h);
		if (!err)
			return 0;
		if (err == -EAGAIN) {
			err = cuckoo_queue_alloc(c);
			if (err)
				return err;
			continue;
		}
		err = cuckoo_can_grow(c, t) ? cuckoo_grow(c) : -ENOSPC;
		if (err == -ENOSPC)
			c->insert_failures++;
		if (err)
			return err;
		t = cuckoo_wtable(c);
	}
}

/**
 * cuckoo_set_val() - change a present key's value
 * @c: the filter, made with values
 * @key: key_len bytes
 * @val: the new value
 *
 * A reader sees the old value or the new one, never a mix: a whole record
 * is rewritten in one store, any other value inside a window of the key's
 * version. The caller serialises writers.
 *
 * Return: 0, or -ENOENT if the key is absent.
 */
int cuckoo_set_val(struct cuckoo *c, const void *key, u32 val)
{
	u64 h = cuckoo_key_hash(c, key);
	struct cuckoo_table *t = cuckoo_wtable(c);
	u32 fp = cuckoo_fp(c, h);
	u8 *stored;
	u64 b;
	int s;

	if (WARN_ON_ONCE(!c->values))
		return -EINVAL;
	s = cuckoo_locate(c, t, key, h, &b);
	if (s < 0)
		return -ENOENT;
	stored = cuckoo_key_at(c, t, b * CUCKOO_SLOTS + s);
	if (cuckoo_has_whole_records(c)) {
		cuckoo_record_store(c, stored, key, val);
		return 0;
	}
	cuckoo_window_open(c, t, fp);
	WRITE_ONCE(*(u32 *)(stored + c->val_off), val);
	cuckoo_window_close(c, t, fp);
	return 0;
}

/**
 * cuckoo_get_val() - a present key's value, for the writer
 * @c: the filter, made with values
 * @key: key_len bytes
 * @val: set to its value
 *
 * Writer side (no version check): the caller serialises writers.
 *
 * Return: 0, or -ENOENT if the key is absent.
 */
int cuckoo_get_val(const struct cuckoo *c, const void *key, u32 *val)
{
	const struct cuckoo_table *t = cuckoo_wtable(c);
	u64 b;
	int s;

	if (WARN_ON_ONCE(!c->values))
		return -EINVAL;
	s = cuckoo_locate(c, t, key, cuckoo_key_hash(c, key), &b);
	if (s < 0)
		return -ENOENT;
	*val = cuckoo_val_of(c, cuckoo_key_at(c, t, b * CUCKOO_SLOTS + s));
	return 0;
}

/**
 * cuckoo_delete() - remove a key
 * @c: the filter
 * @key: key_len bytes
 *
 * Compact mode: only delete keys that were added: deleting a never-added
 * key that shares a stored key's fingerprint and buckets removes that key.
 * The caller serialises writers.
 *
 * Return: 0, or -ENOENT if the key (compact: its fingerprint) is in neither
 * bucket.
 */
int cuckoo_delete(struct cuckoo *c, const void *key)
{
	struct cuckoo_table *t = cuckoo_wtable(c);
	u64 b;
	int s;

	s = cuckoo_locate(c, t, key, cuckoo_key_hash(c, key), &b);
	if (s < 0)
		return -ENOENT;
	cuckoo_empty(c, t, b, s);
	t->count--;
	return 0;
}

/**
 * cuckoo_clear() - remove every key
 * @c: the filter
 *
 * Publishes an empty table of the size the filter was created with and frees
 * the old one after an RCU grace period, so a concurrent reader sees every
 * key or none. Also resets the insert failure count, and frees the BFS
 * queue (readers never use it), as it was at creation. The caller
 * serialises writers; sleeps.
 *
 * Return: 0, or -EDQUOT or -ENOMEM with nothing changed; -EBUSY for a
 * mirrored table (cuckoo_mirror_start()).
 */
int cuckoo_clear(struct cuckoo *c)
{
	struct cuckoo_table *t;

	if (c->mirror.bucket)
		return -EBUSY;
	t = cuckoo_table_alloc(c, c->initial_buckets);
	if (IS_ERR(t))
		return PTR_ERR(t);
	cuckoo_swap(c, t);
	c->insert_failures = 0;
	cuckoo_mem_free(c->queue, CUCKOO_QUEUE_BYTES);
	c->queue = NULL;
	return 0;
}
