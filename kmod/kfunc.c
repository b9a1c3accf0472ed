// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_cfilter_match(): the live set of tables as XDP and TC programs see
 * it, one call per packet; bpf_cfilter_entry(): which entry decided, for
 * the few dropped packets a program logs.
 *
 * The BPF-side declaration is in bpf/cfilter_kfuncs.h.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "cfilter_int.h"
#include "compat.h"
#include "cuckoo.h"
#include "set.h"
#include "verdict.h"

__bpf_kfunc_start_defs();

/**
 * bpf_cfilter_match() - what do the tables say about a packet?
 * @pkt:     struct cfilter_pkt, built by the program
 * @pkt__sz: sizeof(struct cfilter_pkt)
 *
 * Looks up the source (addresses, then prefixes), then the destination (if
 * CFILTER_PKT_MATCH_DST), then the 5-tuple (if CFILTER_PKT_PORTS), all in
 * one live set; the first hit would drop the packet, unless the source is
 * on the allow list (an address or a prefix). See cfilter_verdict(). A
 * drop is counted for the source of the entry that matched.
 *
 * Return: a verdict (enum cfilter_verdict), or -EINVAL for a wrong size or
 * a packet description with an unknown family or flag, nonzero unused
 * bytes, or flow fields no flow key could hold.
 */
__bpf_kfunc int bpf_cfilter_match(const void *pkt, u32 pkt__sz)
{
	const struct cfilter_set *s;
	int verdict;

	if (pkt__sz != sizeof(struct cfilter_pkt))
		return -EINVAL;
	RCU_LOCKDEP_WARN(!rcu_read_lock_held() && !rcu_read_lock_bh_held(),
			 "cfilter kfunc called outside an RCU read-side section");
	s = rcu_dereference(cfilter_live);
	verdict = cfilter_verdict(s, pkt);
	if (verdict > 0 && CFILTER_VERDICT_DROPS(verdict))
		this_cpu_inc(s->drops->n[CFILTER_VERDICT_SOURCE(verdict)]);
	return verdict;
}

/**
 * bpf_cfilter_entry() - the verdict on a packet, and the entry behind it
 * @pkt:       struct cfilter_pkt, as for bpf_cfilter_match()
 * @pkt__sz:   sizeof(struct cfilter_pkt)
 * @entry:     struct cfilter_match_entry, filled in (see
 *             cfilter_verdict_entry())
 * @entry__sz: sizeof(struct cfilter_match_entry)
 *
 * For a drop a program logs, after bpf_cfilter_match() gave the verdict it
 * acts on: the set is looked up again, and the longest prefix covering an
 * address found by a probe per length, so it costs far more than a
 * verdict, and may find another answer if the set changed in between. It
 * counts no drop.
 *
 * Return: the verdict, as bpf_cfilter_match()'s; -EINVAL for a wrong size
 * or a packet bpf_cfilter_match() refuses (@entry then zero).
 */
__bpf_kfunc int bpf_cfilter_entry(const void *pkt, u32 pkt__sz, void *entry,
				  u32 entry__sz)
{
	const struct cfilter_set *s;
	int verdict;

	if (pkt__sz != sizeof(struct cfilter_pkt) ||
	    entry__sz != sizeof(struct cfilter_match_entry))
		return -EINVAL;
	s = rcu_dereference(cfilter_live);
	verdict = cfilter_verdict(s, pkt);
	cfilter_verdict_entry(s, pkt, verdict, entry);
	return verdict;
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(cfilter_kfunc_ids)
BTF_ID_FLAGS(func, bpf_cfilter_match)
BTF_ID_FLAGS(func, bpf_cfilter_entry)
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
