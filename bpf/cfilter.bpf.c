// SPDX-License-Identifier: GPL-2.0
/*
 * cfilter's XDP program: drop every packet whose IPv4 or IPv6 source address
 * is in cfilter.ko's cuckoo filter, pass everything else, and count every
 * packet exactly once in cfilter_stats.
 *
 * The parser (cfilter_parse.h) reads the headers down to the L4 ports so
 * that keys other than the source address can be built from its result;
 * for now only the source address is looked up.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/cfilter.h>
#include <bpf/bpf_helpers.h>

#include "cfilter_kfuncs.h"
#include "cfilter_parse.h"

/* ICMPv6 types of Neighbor Discovery (RFC 4861 4.1-4.5). */
#define ND_FIRST_TYPE	133	/* router solicitation */
#define ND_LAST_TYPE	137	/* redirect */
#define ND_HOP_LIMIT	255

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, __CFILTER_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} cfilter_stats SEC(".maps");

/*
 * Neighbor Discovery is passed even from a blocked source: without it a
 * host cannot resolve its neighbours or router, and an operator who blocks
 * his own address must not lose the link to the machine. Only what the
 * stack would accept as ND is let through: hop limit 255 (RFC 4861, so
 * never from off-link) and unfragmented (RFC 6980); anything else with an
 * ND type is ordinary ICMPv6.
 */
static __always_inline bool is_neigh_discovery(const struct packet *pkt)
{
	return pkt->family == PKT_IPV6 && (pkt->flags & PKT_ICMP) &&
	       !(pkt->flags & PKT_FRAGMENT) &&
	       pkt->icmp_type >= ND_FIRST_TYPE &&
	       pkt->icmp_type <= ND_LAST_TYPE &&
	       pkt->hop_limit == ND_HOP_LIMIT;
}

/* The module matches keys bytewise: every unused byte must be 0. */
static __always_inline void src_key(const struct packet *pkt,
				    struct cfilter_key *key)
{
	__builtin_memset(key, 0, sizeof(*key));
	if (pkt->family == PKT_IPV4) {
		key->type = CFILTER_KEY_SRC4;
		key->prefix_len = 32;
		__builtin_memcpy(key->saddr, pkt->saddr, 4);
	} else {
		key->type = CFILTER_KEY_SRC6;
		key->prefix_len = 128;
		__builtin_memcpy(key->saddr, pkt->saddr, 16);
	}
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
	struct packet pkt;

	if (!parse_packet(&c, &pkt))
		return count(CFILTER_STAT_UNPARSED, XDP_PASS);
	if (is_neigh_discovery(&pkt))
		return count(CFILTER_STAT_PASS, XDP_PASS);

	/*
	 * A negative return means the module rejected the key's shape, which
	 * only a program and module built from different UAPIs can cause. Fail
	 * open: the packet was parsed and is not known to be blocked, so it is
	 * passed and counted as such rather than as malformed; a filter that
	 * errors must not black-hole the host.
	 */
	src_key(&pkt, &key);
	if (bpf_cfilter_lookup(&key, sizeof(key)) == 1)
		return count(CFILTER_STAT_DROP, XDP_DROP);
	return count(CFILTER_STAT_PASS, XDP_PASS);
}

char LICENSE[] SEC("license") = "GPL";
