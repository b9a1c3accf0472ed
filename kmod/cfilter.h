/* SPDX-License-Identifier: GPL-2.0 */
/*
 * State shared by the parts of the cfilter module: module setup (main.c),
 * the character device (dev.c) and the kfunc (kfunc.c).
 */
#ifndef CFILTER_KMOD_CFILTER_H
#define CFILTER_KMOD_CFILTER_H

#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <uapi/linux/cfilter.h>

struct cuckoo;

/**
 * struct cfilter_state - the module's filter and its writer lock
 * @filter: the filter in use; set before the kfunc and the device are
 *          registered, cleared after the device is gone
 * @lock:   serialises writers
 *
 * Locking rules:
 * - Writers (cuckoo_insert, cuckoo_delete, cuckoo_clear) and readers of the
 *   statistics hold @lock and reach the filter through cfilter_locked().
 * - Lookups (cuckoo_contains) take no lock. They run inside an RCU read-side
 *   critical section and read @filter with rcu_dereference(): the TEST ioctl
 *   takes rcu_read_lock(); XDP and TC programs already run inside one.
 * - A filter that has been unpublished from @filter is freed only after
 *   synchronize_rcu(), so a lookup never sees freed memory.
 */
struct cfilter_state {
	struct cuckoo __rcu *filter;
	struct mutex lock;	/* serialises writers, see above */
};

extern struct cfilter_state cfilter_state;

/* The filter, for a caller holding cfilter_state.lock. */
static inline struct cuckoo *cfilter_locked(void)
{
	return rcu_dereference_protected(cfilter_state.filter,
					 lockdep_is_held(&cfilter_state.lock));
}

/*
 * Bytes of the source address that a key of @type uses, or 0 if the module
 * does not handle @type. The ioctls and the kfunc both reject a type for
 * which this returns 0.
 */
static inline unsigned int cfilter_key_addr_len(u8 type)
{
	switch (type) {
	case CFILTER_KEY_SRC4:
		return 4;
	case CFILTER_KEY_SRC6:
		return 16;
	default:
		return 0;
	}
}

int cfilter_dev_register(void);
void cfilter_dev_unregister(void);
int cfilter_kfunc_register(void);

#endif /* CFILTER_KMOD_CFILTER_H */
