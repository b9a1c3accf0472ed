/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict on a packet: its one home. The kfunc and the MATCH ioctl
 * both call cfilter_verdict(), so that both decide alike; the XDP and TC
 * programs and cfctl read what it returns with the UAPI's
 * CFILTER_VERDICT_*() (enum cfilter_verdict), which numbers a verdict's
 * kind like the program's counter of it.
 *
 * Everything here is inlined into each caller with constant address
 * lengths: on the miss path of a host that blocks only sources it is a few
 * loads of counts and one prefix-set lookup.
 */
#ifndef CFILTER_KMOD_VERDICT_H
#define CFILTER_KMOD_VERDICT_H

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/limits.h>
#include <linux/string.h>
#include <linux/types.h>
#include <uapi/linux/cfilter.h>

#include "cfilter_int.h"
#include "cuckoo.h"
#include "prefix.h"
#include "set.h"

/* The bits of @a beyond an IPv4 address (@alen 4), ORed; 0 for IPv6. */
static __always_inline u32 cfilter_addr_tail(const u8 *a, unsigned int alen)
{
	const u32 *w = (const u32 *)a;

	/*
	 * Whole words: a byte loop here was most of an IPv4 miss's cost. No
	 * local array either, which would give the kfunc a stack guard.
	 */
	return alen == 4 ? get_unaligned(w + 1) | get_unaligned(w + 2) |
			   get_unaligned(w + 3) : 0;
}

/* Can @p be matched? Fields it does not use must be zero, as in keys. */
static __always_inline bool cfilter_pkt_ok(const struct cfilter_pkt *p,
					   unsigned int alen)
{
	u32 acc = p->pad | cfilter_addr_tail(p->saddr, alen) |
		  cfilter_addr_tail(p->daddr, alen);

	BUILD_BUG_ON(sizeof(p->saddr) != 16 || sizeof(p->daddr) != 16);
	if (p->flags & ~(CFILTER_PKT_PORTS | CFILTER_PKT_MATCH_DST))
		return false;
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

/*
 * What address type @type of @s says about @addr; empty types are skipped.
 * On a hit, *@tag is the tag of the entry that answered.
 */
static __always_inline enum prefix_hit
cfilter_addr_hit(const struct cfilter_set *s, unsigned int type, const u8 *addr,
		 u32 *tag)
{
	if (!(READ_ONCE(s->types) & BIT(type)))
		return PREFIX_MISS;
	return prefix_set_match(s->pfx[type], addr, tag);
}

/* A verdict of kind @kind, by the entry tagged @tag. */
static __always_inline int cfilter_verdict_of(u32 kind, u32 tag)
{
	return kind | (tag & (CFILTER_SOURCES_MAX - 1))
		      << CFILTER_VERDICT_SOURCE_SHIFT;
}

/*
 * What the flow table of type @flow says about @p's 5-tuple. Out of line,
 * with its packed key: the packets that never reach it, most of them,
 * need none of its frame.
 */
static noinline int cfilter_flow_block(const struct cfilter_set *s,
				       const struct cfilter_pkt *p,
				       unsigned int flow, unsigned int alen)
{
	u8 packed[CFILTER_FLOW_LEN(16)];
	u32 tag = 0;

	cfilter_flow_pack_fields(packed, p->proto, p->saddr, p->daddr, p->sport,
				 p->dport, alen);
	/* A compact table keeps no tag: tag stays "default"'s 0. */
	if (!cuckoo_lookup(s->flow[flow], packed, &tag))
		return CFILTER_PASS;
	return cfilter_verdict_of(CFILTER_DROP_FLOW, tag);
}

/* The would-be verdict of @p in @s, before the allow list. */
static __always_inline int cfilter_block(const struct cfilter_set *s,
					 const struct cfilter_pkt *p,
					 unsigned int alen)
{
	unsigned int flow = alen == 16 ? CFILTER_KEY_FLOW6 : CFILTER_KEY_FLOW4;
	enum prefix_hit hit;
	u32 tag = 0;

	hit = cfilter_addr_hit(s, alen == 16 ? CFILTER_KEY_SRC6 :
			       CFILTER_KEY_SRC4, p->saddr, &tag);
	if (hit != PREFIX_MISS)
		return cfilter_verdict_of(hit == PREFIX_ADDR ?
					  CFILTER_DROP_SRC :
					  CFILTER_DROP_PREFIX, tag);
	if (p->flags & CFILTER_PKT_MATCH_DST) {
		hit = cfilter_addr_hit(s, alen == 16 ? CFILTER_KEY_DST6 :
				       CFILTER_KEY_DST4, p->daddr, &tag);
		if (hit != PREFIX_MISS)
			return cfilter_verdict_of((hit == PREFIX_ADDR ?
						   CFILTER_DROP_DST :
						   CFILTER_DROP_PREFIX) |
						  CFILTER_VERDICT_DST, tag);
	}
	if (!(p->flags & CFILTER_PKT_PORTS) ||
	    !(READ_ONCE(s->types) & BIT(flow)))
		return CFILTER_PASS;
	return cfilter_flow_block(s, p, flow, alen);
}

/**
 * cfilter_verdict() - what a set says about a packet
 * @s: the set, dereferenced once by the caller: a COMMIT during the call
 *     leaves this verdict wholly the old set's
 * @p: the packet
 *
 * Call inside an RCU read-side critical section.
 *
 * Return: a verdict (enum cfilter_verdict), or -EINVAL for a packet
 * description with an unknown family or flag, nonzero unused bytes, or
 * flow fields no flow key could hold.
 */
static __always_inline int cfilter_verdict(const struct cfilter_set *s,
					   const struct cfilter_pkt *p)
{
	unsigned int alen;
	int verdict;
	u32 tag = 0;

	if (p->family == 4)
		alen = 4;
	else if (p->family == 6)
		alen = 16;
	else
		return -EINVAL;
	if (!cfilter_pkt_ok(p, alen))
		return -EINVAL;

	/* Two inlined copies, so that every length is a constant. */
	verdict = alen == 4 ? cfilter_block(s, p, 4) : cfilter_block(s, p, 16);
	if (verdict != CFILTER_PASS &&
	    cfilter_addr_hit(s, alen == 4 ? CFILTER_KEY_ALLOW4 :
			     CFILTER_KEY_ALLOW6, p->saddr, &tag) != PREFIX_MISS)
		return cfilter_verdict_of(CFILTER_ALLOWED, tag);
	return verdict;
}

/*
 * The longest member of @pfx covering @addr (@alen bytes): its length in
 * bits, with the address masked to it in @out; -1 if none. One probe per
 * length, longest first: for a drop being logged (bpf_cfilter_entry()),
 * never for every packet.
 */
static inline int cfilter_cover(const struct prefix_set *pfx, const u8 *addr,
				unsigned int alen, u8 *out)
{
	int len;

	memcpy(out, addr, alen);
	for (len = alen * 8; len >= 0; len--) {
		if (len < alen * 8)
			out[len / 8] &= ~(0x80 >> (len % 8));
		if (prefix_set_contains(pfx, out, len))
			return len;
	}
	return -1;
}

/* Into @k: the member of address type @type covering @addr, if any. */
static inline void cfilter_cover_key(const struct cfilter_set *s,
				     unsigned int type, const u8 *addr,
				     unsigned int alen, struct cfilter_key *k)
{
	bool dst = type == CFILTER_KEY_DST4 || type == CFILTER_KEY_DST6;
	int len;

	if (!(READ_ONCE(s->types) & BIT(type)))
		return;
	len = cfilter_cover(s->pfx[type], addr, alen, dst ? k->daddr : k->saddr);
	if (len < 0) {
		memset(dst ? k->daddr : k->saddr, 0, alen);
		return;
	}
	k->type = type;
	k->prefix_len = len;
}

/* Into @k: @p's 5-tuple as a flow key of type @type. */
static inline void cfilter_flow_key(const struct cfilter_pkt *p,
				    unsigned int type, unsigned int alen,
				    struct cfilter_key *k)
{
	k->type = type;
	k->prefix_len = alen * 8;
	k->proto = p->proto;
	k->sport = p->sport;
	k->dport = p->dport;
	memcpy(k->saddr, p->saddr, alen);
	memcpy(k->daddr, p->daddr, alen);
}

/**
 * cfilter_verdict_entry() - which entry made a verdict, and its source
 * @s:       the set @verdict came from
 * @p:       the packet it was given for
 * @verdict: cfilter_verdict(@s, @p)
 * @e:       out: the entry and its source's name, zeroed first; key type
 *           CFILTER_KEY_NONE for a pass or a malformed @p
 *
 * Call inside an RCU read-side critical section. The source's name is
 * read without cfilter_lock: a source made or gone at that moment may
 * give a torn name, which readers must check (the UAPI says so).
 */
static inline void cfilter_verdict_entry(const struct cfilter_set *s,
					 const struct cfilter_pkt *p,
					 int verdict,
					 struct cfilter_match_entry *e)
{
	unsigned int alen = p->family == 6 ? 16 : 4;
	bool v6 = alen == 16;

	memset(e, 0, sizeof(*e));
	if (verdict <= 0)
		return;
	switch (CFILTER_VERDICT_KIND(verdict)) {
	case CFILTER_DROP_SRC:
	case CFILTER_DROP_DST:
	case CFILTER_DROP_PREFIX:
		if (verdict & CFILTER_VERDICT_DST)
			cfilter_cover_key(s, v6 ? CFILTER_KEY_DST6 :
					  CFILTER_KEY_DST4, p->daddr, alen,
					  &e->key);
		else
			cfilter_cover_key(s, v6 ? CFILTER_KEY_SRC6 :
					  CFILTER_KEY_SRC4, p->saddr, alen,
					  &e->key);
		break;
	case CFILTER_DROP_FLOW:
		cfilter_flow_key(p, v6 ? CFILTER_KEY_FLOW6 : CFILTER_KEY_FLOW4,
				 alen, &e->key);
		break;
	case CFILTER_ALLOWED:
		cfilter_cover_key(s, v6 ? CFILTER_KEY_ALLOW6 :
				  CFILTER_KEY_ALLOW4, p->saddr, alen, &e->key);
		break;
	default:
		return;
	}
	memcpy(e->source, s->holds.names[CFILTER_VERDICT_SOURCE(verdict)],
	       CFILTER_SOURCE_LEN - 1);
}

#endif /* CFILTER_KMOD_VERDICT_H */
