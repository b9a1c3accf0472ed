// SPDX-License-Identifier: GPL-2.0
/*
 * cfilter's XDP program: drop every packet whose IPv4 or IPv6 source address
 * is in cfilter.ko's cuckoo filter, pass everything else, and count every
 * packet exactly once in cfilter_stats.
 *
 * Only the source address matters, so the parser stops there: IPv4 options
 * and IPv6 extension headers are checked for length or not at all, never
 * interpreted.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <linux/cfilter.h>

#include "cfilter_kfuncs.h"

/* 802.1ad + 802.1Q (QinQ) is the deepest stack seen in practice. */
#define MAX_VLAN_TAGS	2

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, __CFILTER_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} cfilter_stats SEC(".maps");

/* A VLAN tag as it sits after the MAC addresses; no UAPI header has one. */
struct vlan_tag {
	__be16	tci;
	__be16	encap_proto;
};

/* The unparsed rest of the packet. */
struct cursor {
	void	*pos;
	void	*end;
};

/*
 * Step over the Ethernet header and up to MAX_VLAN_TAGS tags of either kind.
 * Returns the EtherType that follows, or 0 (not IP either) if truncated.
 */
static __always_inline __be16 parse_eth(struct cursor *c)
{
	struct ethhdr *eth = c->pos;
	struct vlan_tag *tag;
	__be16 proto;
	int i;

	if ((void *)(eth + 1) > c->end)
		return 0;
	c->pos = eth + 1;
	proto = eth->h_proto;
#pragma unroll
	for (i = 0; i < MAX_VLAN_TAGS; i++) {
		if (proto != bpf_htons(ETH_P_8021Q) &&
		    proto != bpf_htons(ETH_P_8021AD))
			break;
		tag = c->pos;
		if ((void *)(tag + 1) > c->end)
			return 0;
		c->pos = tag + 1;
		proto = tag->encap_proto;
	}
	return proto;
}

static __always_inline bool parse_ipv4(struct cursor *c,
				       struct cfilter_key *key)
{
	struct iphdr *iph = c->pos;
	__u32 hdr_len;

	if ((void *)(iph + 1) > c->end)
		return false;
	if (iph->version != 4 || iph->ihl < 5)
		return false;
	hdr_len = iph->ihl * 4;
	if (bpf_ntohs(iph->tot_len) < hdr_len)
		return false;
	/* A header whose options run past the frame is truncated. */
	if ((void *)iph + hdr_len > c->end)
		return false;
	c->pos = (void *)iph + hdr_len;

	key->type = CFILTER_KEY_SRC4;
	key->prefix_len = 32;
	__builtin_memcpy(key->saddr, &iph->saddr, sizeof(iph->saddr));
	return true;
}

static __always_inline bool parse_ipv6(struct cursor *c,
				       struct cfilter_key *key)
{
	struct ipv6hdr *ip6h = c->pos;

	if ((void *)(ip6h + 1) > c->end)
		return false;
	if (ip6h->version != 6)
		return false;
	c->pos = ip6h + 1;

	key->type = CFILTER_KEY_SRC6;
	key->prefix_len = 128;
	__builtin_memcpy(key->saddr, &ip6h->saddr, sizeof(ip6h->saddr));
	return true;
}

static __always_inline int count(__u32 stat, int action)
{
	__u64 *n = bpf_map_lookup_elem(&cfilter_stats, &stat);

	/* Per-CPU slot, and XDP does not migrate: no atomic needed. */
	if (n)
		*n += 1;
	return action;
}

SEC("xdp")
int cfilter_xdp(struct xdp_md *ctx)
{
	struct cursor c = {
		.pos = (void *)(long)ctx->data,
		.end = (void *)(long)ctx->data_end,
	};
	struct cfilter_key key;
	bool parsed = false;
	__be16 proto;

	/* The module matches keys bytewise: every unused byte must be 0. */
	__builtin_memset(&key, 0, sizeof(key));
	proto = parse_eth(&c);
	if (proto == bpf_htons(ETH_P_IP))
		parsed = parse_ipv4(&c, &key);
	else if (proto == bpf_htons(ETH_P_IPV6))
		parsed = parse_ipv6(&c, &key);
	if (!parsed)
		return count(CFILTER_STAT_UNPARSED, XDP_PASS);

	/*
	 * A negative return means the module rejected the key's shape, which
	 * only a program and module built from different UAPIs can cause. Fail
	 * open: the packet was parsed and is not known to be blocked, so it is
	 * passed and counted as such rather than as malformed; a filter that
	 * errors must not black-hole the host.
	 */
	if (bpf_cfilter_lookup(&key, sizeof(key)) == 1)
		return count(CFILTER_STAT_DROP, XDP_DROP);
	return count(CFILTER_STAT_PASS, XDP_PASS);
}

char LICENSE[] SEC("license") = "GPL";
