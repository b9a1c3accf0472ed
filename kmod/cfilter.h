/* SPDX-License-Identifier: GPL-2.0 */
/*
 * State shared by the parts of the cfilter module: module setup (main.c),
 * the key families (keys.c), the character device (dev.c) and the kfunc
 * (kfunc.c).
 */
#ifndef CFILTER_KMOD_CFILTER_H
#define CFILTER_KMOD_CFILTER_H

#include <linux/mutex.h>
#include <linux/nospec.h>
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
