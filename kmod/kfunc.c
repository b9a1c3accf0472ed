// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_cfilter_lookup() and bpf_cfilter_match(): the filters as seen by XDP
 * and TC programs.
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

/*
 * Is @key (key_len bytes, packed) in family @type's filter? An empty filter
 * is not searched: the common case, a host that blocks only sources, costs
 * one lookup per packet and a few loads.
 */
static __always_inline bool cfilter_has(unsigned int type, const u8 *key)
{
	const struct cfilter_family *f = &cfilter_families[type];

	return cfilter_family_nkeys(f) && cuckoo_contains(f->filter, key);
}

/* Can @p be matched? Fields it does not use must be zero, as in keys. */
static __always_inline bool cfilter_pkt_ok(const struct cfilter_pkt *p,
					   unsigned int alen)
{
	u8 acc = p->pad;
	unsigned int i;

	if (p->flags & ~(CFILTER_PKT_PORTS | CFILTER_PKT_MATCH_DST))
		return false;
	for (i = alen; i < sizeof(p->saddr); i++)
		acc |= p->saddr[i] | p->daddr[i];
	if (!(p->flags & CFILTER_PKT_PORTS))
		return !acc && !p->sport && !p->dport;
	switch (p->proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
		return !acc;
	case IPPROTO_ICMP:
		return !acc && alen == 4 && !p->dport &&
		       ntohs(p->sport) <= U8_MAX;
	case IPPROTO_ICMPV6:
		return !acc && alen == 16 && !p->dport &&
		       ntohs(p->sport) <= U8_MAX;
	default:
		return false;
	}
}

/* The would-be verdict of @p, before the allow list; see below. */
static __always_inline int cfilter_block(const struct cfilter_pkt *p,
					 unsigned int alen)
{
	bool v6 = alen == 16;
	u8 flow[CFILTER_FLOW_LEN(16)];

	if (cfilter_has(v6 ? CFILTER_KEY_SRC6 : CFILTER_KEY_SRC4, p->saddr))
		return CFILTER_DROP_SRC;
	if ((p->flags & CFILTER_PKT_MATCH_DST) &&
	    cfilter_has(v6 ? CFILTER_KEY_DST6 : CFILTER_KEY_DST4, p->daddr))
		return CFILTER_DROP_DST;
	if (!(p->flags & CFILTER_PKT_PORTS))
		return CFILTER_PASS;
	if (!cfilter_family_nkeys(&cfilter_families[v6 ? CFILTER_KEY_FLOW6 :
							 CFILTER_KEY_FLOW4]))
		return CFILTER_PASS;
	cfilter_flow_pack_fields(flow, p->proto, p->saddr, p->daddr, p->sport,
				 p->dport, alen);
	if (cfilter_has(v6 ? CFILTER_KEY_FLOW6 : CFILTER_KEY_FLOW4, flow))
		return CFILTER_DROP_FLOW;
	return CFILTER_PASS;
}

/**
 * bpf_cfilter_match() - what do the filters say about a packet?
 * @pkt:     struct cfilter_pkt, built by the program
 * @pkt__sz: sizeof(struct cfilter_pkt)
 *
 * Looks up the source, then the destination (if CFILTER_PKT_MATCH_DST),
 * then the 5-tuple (if CFILTER_PKT_PORTS); the first hit would drop the
 * packet, unless the source is on the allow list.
 *
 * Return: an enum cfilter_verdict, or -EINVAL for a wrong size or a packet
 * description with an unknown family or flag, nonzero unused bytes, or
 * flow fields no flow key could hold.
 */
__bpf_kfunc int bpf_cfilter_match(const void *pkt, u32 pkt__sz)
{
	const struct cfilter_pkt *p = pkt;
	unsigned int alen;
	int verdict;

	if (pkt__sz != sizeof(*p))
		return -EINVAL;
	if (p->family == 4)
		alen = 4;
	else if (p->family == 6)
		alen = 16;
	else
		return -EINVAL;
	if (!cfilter_pkt_ok(p, alen))
		return -EINVAL;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held() && !rcu_read_lock_bh_held(),
			 "cfilter kfunc called outside an RCU read-side section");
	/* Two inlined copies, so that every length is a constant. */
	verdict = alen == 4 ? cfilter_block(p, 4) : cfilter_block(p, 16);
	if (verdict != CFILTER_PASS &&
	    cfilter_has(alen == 4 ? CFILTER_KEY_ALLOW4 : CFILTER_KEY_ALLOW6,
			p->saddr))
		return CFILTER_ALLOWED;
	return verdict;
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(cfilter_kfunc_ids)
BTF_ID_FLAGS(func, bpf_cfilter_lookup)
BTF_ID_FLAGS(func, bpf_cfilter_match)
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
