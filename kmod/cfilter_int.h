/* SPDX-License-Identifier: GPL-2.0 */
/*
 * State shared by the parts of the cfilter module: module setup (main.c),
 * the key types (keys.c), the character device (dev.c) and the kfunc
 * (kfunc.c).
 */
#ifndef CFILTER_KMOD_CFILTER_H
#define CFILTER_KMOD_CFILTER_H

#include <linux/compiler.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/string.h>
#include <linux/types.h>
#include <uapi/linux/cfilter.h>

#include "cuckoo.h"

/**
 * struct cfilter_ktype - one key type: how its keys are checked and packed
 * @name:     for messages, e.g. "src4"
 * @key_len:  bytes of a packed key: only what the type uses, so that an IPv4
 *            key costs 4 bytes of key storage in exact mode, not 40
 * @addr_len: address types (SRC, DST, ALLOW): the address bytes (4 or 16,
 *            equal to @key_len), whose keys live in a prefix set; 0 for
 *            flows, whose keys live in a plain cuckoo filter
 * @dst:      address types: the key's address is its daddr (destination
 *            keys); else its saddr
 * @flow_alen: flow types: the address length, 4 or 16; else 0
 *
 * cfilter_key_pack() and cfilter_key_unpack() (keys.c) turn a key of a
 * type into its packed bytes and back.
 *
 * Read-only: the tables of the keys are in a struct cfilter_set (set.h),
 * which an atomic replace swaps whole. Adding a key type is one entry in
 * cfilter_ktypes[] (keys.c).
 */
struct cfilter_ktype {
	const char	*name;
	u32		key_len;
	u32		addr_len;
	bool		dst;
	u8		flow_alen;
};

/* Indexed by enum cfilter_key_type; types the module lacks have key_len 0. */
extern const struct cfilter_ktype cfilter_ktypes[__CFILTER_KEY_MAX];

int cfilter_key_pack(const struct cfilter_ktype *f,
		     const struct cfilter_key *key, u8 *out, u32 *len);
void cfilter_key_unpack(const struct cfilter_ktype *f, const u8 *in, u32 len,
			struct cfilter_key *key);

/* Packed flow key: proto, saddr, daddr, sport, dport; @alen 4 or 16. */
#define CFILTER_FLOW_LEN(alen)	(1 + 2 * (alen) + 2 * sizeof(__be16))

/*
 * Packs a flow: shared by the ioctls (from a key) and the kfunc (from a
 * packet), which must agree byte for byte. Inlined with a constant @alen.
 */
static __always_inline void cfilter_flow_pack_fields(u8 *out, u8 proto,
						     const u8 *saddr,
						     const u8 *daddr,
						     __be16 sport, __be16 dport,
						     unsigned int alen)
{
	out[0] = proto;
	memcpy(out + 1, saddr, alen);
	memcpy(out + 1 + alen, daddr, alen);
	memcpy(out + 1 + 2 * alen, &sport, sizeof(sport));
	memcpy(out + 3 + 2 * alen, &dport, sizeof(dport));
}

/*
 * The struct cfilter_ktype of key type @type, or NULL if the module does not handle it.
 * @type comes from userspace or a BPF program: the index is clamped so that
 * it cannot be used speculatively out of bounds.
 */
static inline const struct cfilter_ktype *cfilter_ktype(unsigned int type)
{
	const struct cfilter_ktype *f;

	if (type >= __CFILTER_KEY_MAX)
		return NULL;
	f = &cfilter_ktypes[array_index_nospec(type, __CFILTER_KEY_MAX)];
	return f->key_len ? f : NULL;
}

/* The key type number of @f. */
static inline unsigned int cfilter_ktype_type(const struct cfilter_ktype *f)
{
	return f - cfilter_ktypes;
}

/* The first key type at or after @f that the module handles, or NULL. */
static inline const struct cfilter_ktype *
cfilter_ktype_from(const struct cfilter_ktype *f)
{
	for (; f < cfilter_ktypes + __CFILTER_KEY_MAX; f++)
		if (f->key_len)
			return f;
	return NULL;
}

/*
 * Every key type: for (f = cfilter_ktype_first(); f; f = cfilter_ktype_next(f))
 */
static inline const struct cfilter_ktype *cfilter_ktype_first(void)
{
	return cfilter_ktype_from(cfilter_ktypes);
}

static inline const struct cfilter_ktype *
cfilter_ktype_next(const struct cfilter_ktype *f)
{
	return cfilter_ktype_from(f + 1);
}

/**
 * struct cfilter_config - how every set of tables is created (module
 * parameters, settled at load)
 * @mode:         enum cfilter_mode
 * @fp_bits:      bits per fingerprint
 * @max_capacity: keys each type's table may grow to hold (exact mode); in
 *                compact mode, the fixed capacity
 * @params:       per key type: the parameters of its address or flow table
 *                (the seed is drawn anew for each set)
 */
struct cfilter_config {
	u32			mode;
	u32			fp_bits;
	u64			max_capacity;
	/* compact mode: each set's record of its addresses (set.h); else 0 */
	u32			prefilter_bits;
	struct cuckoo_params	params[__CFILTER_KEY_MAX];
};

extern struct cfilter_config cfilter_config;

/* The memory bound (mem.c): used and limit in bytes, refusals returned. */
u64 cfilter_mem(u64 *used, u64 *limit);
void cfilter_mem_exempt(bool on);
void cfilter_mem_set_limit(u64 bytes);

/*
 * Serialises every writer of every set of tables, live or staged: add,
 * delete, list, raw reads, the statistics, replacing the live set and
 * installing or dropping a staged one (see set.h). Lookups of the live set
 * take no lock: they run inside an RCU read-side critical section (the TEST
 * and MATCH ioctls take rcu_read_lock(); XDP and TC programs run inside
 * one).
 *
 * Taken with cfilter_lock_take() or its variants by every request but a
 * LIST between its steps, which makes way for them (lock.c); let go of
 * with mutex_unlock().
 */
extern struct mutex cfilter_lock;

void cfilter_lock_take(void);
int cfilter_lock_take_killable(void);
int cfilter_lock_take_interruptible(void);
int cfilter_lock_make_way(void);

int cfilter_dev_register(void);
void cfilter_dev_unregister(void);
int cfilter_kfunc_register(void);

#endif /* CFILTER_KMOD_CFILTER_H */
