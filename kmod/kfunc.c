// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_cfilter_lookup(): the filters as seen by XDP and TC programs.
 *
 * The BPF-side declaration is in bpf/cfilter_kfuncs.h.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "cfilter.h"
#include "compat.h"
#include "cuckoo.h"

__bpf_kfunc_start_defs();

/**
 * bpf_cfilter_lookup() - is a key in the filter?
 * @key:     struct cfilter_key, built by the program
 * @key__sz: sizeof(struct cfilter_key); the verifier checks that @key points
 *           to this many readable bytes
 *
 * The key is checked as strictly as the ioctls check it, then packed into
 * the few bytes its family's filter stores (4 for an IPv4 source): the
 * filter hashes those, not 40 bytes.
 *
 * Return: 1 if present, 0 if not, -EINVAL for a wrong size or a key the
 * ioctls would refuse (unknown type, nonzero unused fields).
 */
__bpf_kfunc int bpf_cfilter_lookup(const void *key, u32 key__sz)
{
	const struct cfilter_key *k = key;
	u8 packed[CUCKOO_KEY_MAX];
	struct cfilter_family *f;

	if (key__sz != sizeof(*k))
		return -EINVAL;
	f = cfilter_family(k->type);
	if (!f || f->pack(k, packed))
		return -EINVAL;

	/* XDP and TC programs run inside an RCU read-side critical section. */
	RCU_LOCKDEP_WARN(!rcu_read_lock_held() && !rcu_read_lock_bh_held(),
			 "cfilter kfunc called outside an RCU read-side section");
	return cuckoo_contains(f->filter, packed) ? 1 : 0;
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(cfilter_kfunc_ids)
BTF_ID_FLAGS(func, bpf_cfilter_lookup)
BTF_KFUNCS_END(cfilter_kfunc_ids)

static const struct btf_kfunc_id_set cfilter_kfunc_set = {
	.owner	= THIS_MODULE,
	.set	= &cfilter_kfunc_ids,
};

int cfilter_kfunc_register(void)
{
	int err;

	err = register_btf_kfunc_id_set(BPF_PROG_TYPE_XDP, &cfilter_kfunc_set);
	if (err)
		return err;
	return register_btf_kfunc_id_set(BPF_PROG_TYPE_SCHED_CLS,
					 &cfilter_kfunc_set);
}
