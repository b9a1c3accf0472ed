/* SPDX-License-Identifier: GPL-2.0 */
/*
 * State shared by the parts of the cfilter module: module setup (main.c),
 * the key families (keys.c), the character device (dev.c) and the kfunc
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

struct cuckoo;

/**
 * struct cfilter_family - one key type and the filter that holds its keys
 * @name:    for messages, e.g. "src4"
 * @key_len: bytes of a packed key: only what the type uses, so that an IPv4
 *           key costs 4 bytes of key storage in exact mode, not 40
 * @pack:    checks that @key has this type's shape (every field the type
 *           does not use is zero) and copies the bytes it uses to @out
 *           (@key_len bytes); returns 0, or -EINVAL for a malformed key
 * @unpack:  the inverse: rebuilds the struct cfilter_key @pack came from
 * @filter:  the filter of this type's keys; created before the kfunc and
 *           the device are registered, destroyed after the device is gone,
 *           and never replaced in between (the core swaps tables inside it)
 *
 * Adding a key type is one entry in cfilter_families[] (keys.c).
 */
struct cfilter_family {
	const char	*name;
	u32		key_len;
	int		(*pack)(const struct cfilter_key *key, u8 *out);
	void		(*unpack)(const u8 *in, struct cfilter_key *key);
	struct cuckoo	*filter;
};

/* Indexed by enum cfilter_key_type; types the module lacks have key_len 0. */
extern struct cfilter_family cfilter_families[__CFILTER_KEY_MAX];

/*
 * Keys stored in each family's filter, indexed like cfilter_families[] (which
 * is read-only after init, hence apart). Written under cfilter_lock after
 * the filter changed; read locklessly by the kfunc, which skips a family
 * with none: a lookup in an empty filter can only miss.
 */
extern unsigned long cfilter_nkeys[__CFILTER_KEY_MAX];

static inline unsigned long cfilter_family_nkeys(const struct cfilter_family *f)
{
	return READ_ONCE(cfilter_nkeys[f - cfilter_families]);
}

/* Caller holds cfilter_lock. */
static inline void cfilter_family_nkeys_set(const struct cfilter_family *f,
					    unsigned long n)
{
	WRITE_ONCE(cfilter_nkeys[f - cfilter_families], n);
}

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
 * The family of key type @type, or NULL if the module does not handle it.
 * @type comes from userspace or a BPF program: the index is clamped so that
 * it cannot be used speculatively out of bounds.
 */
static inline struct cfilter_family *cfilter_family(unsigned int type)
{
	struct cfilter_family *f;

	if (type >= __CFILTER_KEY_MAX)
		return NULL;
	f = &cfilter_families[array_index_nospec(type, __CFILTER_KEY_MAX)];
	return f->key_len ? f : NULL;
}

/* The first family at or after @f that the module handles, or NULL. */
static inline struct cfilter_family *cfilter_family_from(struct cfilter_family *f)
{
	for (; f < cfilter_families + __CFILTER_KEY_MAX; f++)
		if (f->key_len)
			return f;
	return NULL;
}

/*
 * Every family: for (f = cfilter_family_first(); f; f = cfilter_family_next(f))
 */
static inline struct cfilter_family *cfilter_family_first(void)
{
	return cfilter_family_from(cfilter_families);
}

static inline struct cfilter_family *cfilter_family_next(struct cfilter_family *f)
{
	return cfilter_family_from(f + 1);
}

/**
 * struct cfilter_config - how the filters were created (module parameters)
 * @mode:         enum cfilter_mode
 * @max_capacity: keys each family's filter may grow to hold (exact mode);
 *                in compact mode, the fixed capacity
 */
struct cfilter_config {
	u32	mode;
	u64	max_capacity;
};

extern struct cfilter_config cfilter_config;

/*
 * Serialises writers of every family's filter: add, delete, clear, list and
 * reading the statistics (cuckoo_insert, cuckoo_delete, cuckoo_clear,
 * cuckoo_list, cuckoo_get_stats). Lookups (cuckoo_contains) take no lock:
 * they run inside an RCU read-side critical section (the TEST ioctl takes
 * rcu_read_lock(); XDP and TC programs run inside one).
 */
extern struct mutex cfilter_lock;

int cfilter_dev_register(void);
void cfilter_dev_unregister(void);
int cfilter_kfunc_register(void);

#endif /* CFILTER_KMOD_CFILTER_H */
