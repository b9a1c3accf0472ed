// SPDX-License-Identifier: GPL-2.0
/*
 * Sets of tables (see set.h): creation from the module's configuration,
 * the writers and the statistics. Replacing the live set is live.c's.
 */
#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "set.h"

struct cfilter_set __rcu *cfilter_live;

/* Bytes of a set's per-CPU drop counts, charged with the set. */
static u64 cfilter_set_drops_bytes(void)
{
	return sizeof(struct cfilter_drops) * num_possible_cpus();
}

/**
 * cfilter_set_destroy() - free a set and all its tables
 * @s: the set, or NULL
 *
 * No reader may still use @s: it was never published, or a grace period
 * passed since it was replaced.
 */
void cfilter_set_destroy(struct cfilter_set *s)
{
	unsigned int t;

	if (!s)
		return;
	for (t = 0; t < __CFILTER_KEY_MAX; t++) {
		if (s->pfx[t])
			prefix_set_destroy(s->pfx[t]);
		if (s->flow[t])
			cuckoo_destroy(s->flow[t]);
	}
	cfilter_holds_free(&s->holds);
	cuckoo_mem_free(s->hashed, cfilter_config.prefilter_bits / 8);
	if (s->drops)
		cuckoo_mem_uncharge(cfilter_set_drops_bytes());
	free_percpu(s->drops);
	cuckoo_mem_free(s, sizeof(*s));
}

/**
 * cfilter_set_create() - an empty set of tables, as the module parameters say
 *
 * The one way a set comes to be: at load, by STAGE and by CLEAR. Each table
 * gets a new random seed. May sleep.
 *
 * Return: the set, or ERR_PTR(-EDQUOT) if it would pass the memory bound
 * (max_memory=), ERR_PTR(-ENOMEM) if memory is short.
 */
struct cfilter_set *cfilter_set_create(void)
{
	static atomic64_t ids = ATOMIC64_INIT(0);
	u64 refused = cfilter_mem(NULL, NULL);
	const struct cfilter_ktype *f;
	struct cfilter_set *s;

	/* a prefix entry keeps the tag of the member it names */
	BUILD_BUG_ON(CFILTER_SOURCES_MAX > 1 << PREFIX_TAG_BITS);
	s = cuckoo_mem_zalloc(sizeof(*s));
	if (IS_ERR(s))
		return s;
	s->id = atomic64_inc_return(&ids);
	if (!cuckoo_mem_charge(cfilter_set_drops_bytes())) {
		cuckoo_mem_free(s, sizeof(*s));
		return ERR_PTR(-EDQUOT);
	}
	s->drops = alloc_percpu(struct cfilter_drops);
	if (!s->drops) {
		cuckoo_mem_uncharge(cfilter_set_drops_bytes());
		cuckoo_mem_free(s, sizeof(*s));
		return ERR_PTR(-ENOMEM);
	}
	cfilter_holds_init(&s->holds);
	INIT_LIST_HEAD(&s->staged);
	if (cfilter_config.prefilter_bits) {
		s->hashed = cuckoo_mem_zalloc(cfilter_config.prefilter_bits / 8);
		if (IS_ERR(s->hashed)) {
			long err = PTR_ERR(s->hashed);

			s->hashed = NULL;
			cfilter_set_destroy(s);
			return ERR_PTR(err);
		}
	}
	for (f = cfilter_ktype_first(); f; f = cfilter_ktype_next(f)) {
		unsigned int t = cfilter_ktype_type(f);
		struct prefix_params pp = {
			.addr_len = f->addr_len,
			.addrs = cfilter_config.params[t],
		};

		pp.addrs.seed = get_random_u64();
		if (f->addr_len)
			s->pfx[t] = prefix_set_create(&pp);
		else
			s->flow[t] = cuckoo_create(&pp.addrs);
		if (!s->pfx[t] && !s->flow[t]) {
			cfilter_set_destroy(s);
			/* A charge refused meanwhile: the bound, not a shortage. */
			return ERR_PTR(cfilter_mem(NULL, NULL) != refused ?
				       -EDQUOT : -ENOMEM);
		}
	}
	return s;
}

/*
 * Type @t now has @n members: the verdict's bit follows only when @n
 * becomes or stops being 0, so that adds and deletes leave the line it
 * reads alone.
 */
static void cfilter_set_count(struct cfilter_set *s, unsigned int t,
			      unsigned long n)
{
	s->nkeys[t] = n;
	if (!(s->types & BIT(t)) != !n)
		WRITE_ONCE(s->types, s->types ^ BIT(t));
}

/**
 * cfilter_set_insert() - add a key to a set
 * @s:      the set (caller holds cfilter_lock)
 * @f:      the key's type
 * @packed: the key as cfilter_key_pack() packed it
 * @len:    its prefix length
 * @tag:    its tag (see struct cfilter_set)
 *
 * A change of the live set is the caller's to pass on to the programs'
 * prefilter (source.c does). In compact mode an address that shares
 * another's fingerprint is -EEXIST, and matches from then on: that too.
 *
 * Return: 0, -EEXIST, -ENOSPC, -ENOMEM (the tables unchanged for the last three).
 */
int cfilter_set_insert(struct cfilter_set *s, const struct cfilter_ktype *f,
		       const u8 *packed, u32 len, u32 tag)
{
	unsigned int t = cfilter_ktype_type(f);
	int err;

	if (f->addr_len)
		err = prefix_set_insert(s->pfx[t], packed, len, tag);
	else
		err = cuckoo_insert_val(s->flow[t], packed, tag);
	/*
	 * The record of compact mode's addresses, for the prefilter: -EEXIST
	 * too, for a fingerprint another key has, which now matches. Allow
	 * entries only lift a drop: the prefilter keeps no bits of theirs.
	 */
	if (s->hashed && (!err || err == -EEXIST) && len == 8 * f->addr_len &&
	    t != CFILTER_KEY_ALLOW4 && t != CFILTER_KEY_ALLOW6)
		cfilter_hashed_set(s->hashed, cfilter_config.prefilter_bits / 64,
				   t, packed);
	if (!err)
		cfilter_set_count(s, t, s->nkeys[t] + 1);
	return err;
}

/**
 * cfilter_set_retag() - change a stored key's tag
 * @s:      the set, exact mode (caller holds cfilter_lock)
 * @f:      the key's type
 * @packed: the key as cfilter_key_pack() packed it
 * @len:    its prefix length
 * @tag:    the new tag
 *
 * Return: 0, or -ENOENT.
 */
int cfilter_set_retag(struct cfilter_set *s, const struct cfilter_ktype *f,
		      const u8 *packed, u32 len, u32 tag)
{
	unsigned int t = cfilter_ktype_type(f);

	if (f->addr_len)
		return prefix_set_retag(s->pfx[t], packed, len, tag);
	return cuckoo_set_val(s->flow[t], packed, tag);
}

/**
 * cfilter_set_delete() - remove a key from a set
 * @s:      the set (caller holds cfilter_lock)
 * @f:      the key's type
 * @packed: the key as cfilter_key_pack() packed it
 * @len:    its prefix length
 *
 * Return: 0, or -ENOENT.
 */
int cfilter_set_delete(struct cfilter_set *s, const struct cfilter_ktype *f,
		       const u8 *packed, u32 len)
{
	unsigned int t = cfilter_ktype_type(f);
	int err;

	if (f->addr_len)
		err = prefix_set_delete(s->pfx[t], packed, len);
	else
		err = cuckoo_delete(s->flow[t], packed);
	if (!err)
		cfilter_set_count(s, t, s->nkeys[t] - 1);
	return err;
}

/**
 * cfilter_set_contains() - is exactly this key stored?
 * @s:      the set
 * @f:      the key's type
 * @packed: the key as cfilter_key_pack() packed it
 * @len:    its prefix length
 *
 * A prefix is present only as itself: an address inside it is not. Call
 * inside an RCU read-side critical section.
 *
 * Return: true if present.
 */
bool cfilter_set_contains(const struct cfilter_set *s,
			  const struct cfilter_ktype *f, const u8 *packed,
			  u32 len)
{
	unsigned int t = cfilter_ktype_type(f);

	if (f->addr_len)
		return prefix_set_contains(s->pfx[t], packed, len);
	return cuckoo_contains(s->flow[t], packed);
}

/**
 * cfilter_set_table() - the address or flow table of a key type
 * @s: the set (caller holds cfilter_lock)
 * @f: the key type
 *
 * Return: the prefix set's address table, or the flow filter.
 */
struct cuckoo *cfilter_set_table(struct cfilter_set *s,
				 const struct cfilter_ktype *f)
{
	unsigned int t = cfilter_ktype_type(f);

	return f->addr_len ? prefix_set_addrs(s->pfx[t]) : s->flow[t];
}

/**
 * cfilter_set_replace_table() - install a restored address or flow table
 * @s: a set no reader can reach: a staged one (caller holds cfilter_lock)
 * @f: the key type
 * @c: the new table, made with cfilter_config.params of @f's type
 *
 * A prefix set keeps its prefixes and takes @c as its address table.
 *
 * Return: the table replaced, for the caller to destroy.
 */
struct cuckoo *cfilter_set_replace_table(struct cfilter_set *s,
					 const struct cfilter_ktype *f,
					 struct cuckoo *c)
{
	unsigned int t = cfilter_ktype_type(f);
	struct cfilter_type_stats st;
	struct cuckoo *old;

	if (f->addr_len) {
		old = prefix_set_replace_addrs(s->pfx[t], c);
	} else {
		old = s->flow[t];
		s->flow[t] = c;
	}
	cfilter_set_type_stats(s, f, &st);
	cfilter_set_count(s, t, st.count);
	/* addresses no add recorded: the prefilter can hash none of them */
	if (f->addr_len && st.count > st.prefixes)
		s->hashed_lost = true;
	/* A staged set's table (RESTORE): its prefilter bits come at COMMIT. */
	WARN_ON_ONCE(s == cfilter_live_locked());
	return old;
}

/**
 * cfilter_set_list() - the entries of one key type, a part per call
 * @s:   the set (caller holds cfilter_lock)
 * @f:   the key type
 * @pos: 0 to start; advanced
 * @out: room for @max entries of cfilter_set_list_step(@f) bytes: for an
 *       address type its address and a byte of prefix length (compact
 *       mode: its prefixes only), for a flow type (exact mode only) its
 *       key and then its tag
 * @max: most entries
 *
 * Positions stay valid while cfilter_set_list_gen() does not change. A
 * call looks at a bounded number of slots (see cuckoo_list()), and may
 * write fewer than @max entries before the end.
 *
 * Return: entries written, 0 at the end; -EAGAIN if it wrote none before
 * the end (call again from *@pos).
 */
long cfilter_set_list(const struct cfilter_set *s,
		      const struct cfilter_ktype *f, u64 *pos, u8 *out,
		      u32 max)
{
	unsigned int t = cfilter_ktype_type(f);

	if (f->addr_len)
		return prefix_set_list(s->pfx[t], pos, out, max);
	if (cfilter_config.mode != CFILTER_MODE_EXACT)
		return 0;	/* fingerprints only: see DUMP */
	return cuckoo_list(s->flow[t], pos, out, max);
}

/* Bytes per entry cfilter_set_list() writes for type @f. */
u32 cfilter_set_list_step(const struct cfilter_ktype *f)
{
	return f->addr_len ? PREFIX_ENTRY_LEN(f->addr_len) :
			     f->key_len + sizeof(u32);
}

/* A number that grows whenever an entry of type @f may change position. */
u64 cfilter_set_list_gen(const struct cfilter_set *s,
			 const struct cfilter_ktype *f)
{
	unsigned int t = cfilter_ktype_type(f);

	return f->addr_len ? prefix_set_list_gen(s->pfx[t]) :
			     cuckoo_list_gen(s->flow[t]);
}

/* Bytes of type @t's holdings. */
static u64 cfilter_set_hold_bytes(const struct cfilter_set *s, unsigned int t)
{
	return keymap_bytes(&s->holds.held[t]) +
	       keymap_bytes(&s->holds.timed[t]);
}

/**
 * cfilter_set_type_stats() - one key type's tables in a set
 * @s:  the set (caller holds cfilter_lock)
 * @f:  the key type
 * @st: filled in
 */
void cfilter_set_type_stats(const struct cfilter_set *s,
			    const struct cfilter_ktype *f,
			    struct cfilter_type_stats *st)
{
	unsigned int t = cfilter_ktype_type(f);
	struct prefix_stats ps;

	memset(st, 0, sizeof(*st));
	if (!f->addr_len) {
		cuckoo_get_stats(s->flow[t], &st->table);
		st->count = st->table.count;
		st->memory_bytes = st->table.memory_bytes +
				   cfilter_set_hold_bytes(s, t);
		return;
	}
	prefix_set_get_stats(s->pfx[t], &ps);
	st->table = ps.addrs;
	st->count = ps.addrs.count + ps.prefixes;
	st->prefixes = ps.prefixes;
	st->prefix_markers = ps.markers;
	st->memory_bytes = ps.memory_bytes + cfilter_set_hold_bytes(s, t);
	st->probes = ps.probes;
	st->lengths = ps.lengths;
}
