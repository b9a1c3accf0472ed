// SPDX-License-Identifier: GPL-2.0
/*
 * cfilter's XDP and TC programs: drop every packet that cfilter.ko's
 * filters block by source address or prefix, destination address or prefix
 * (if the loader enabled it) or 5-tuple, unless its source is on the allow
 * list, and the packets whose headers would hide what they are (see
 * classify()); pass everything else, and count every packet exactly once
 * in cfilter_stats, under the interface it arrived on.
 *
 * The parser (cfilter_parse.h) reads the headers down to the L4 ports; one
 * call of bpf_cfilter_match() does every lookup. The same verdicts are
 * offered at TC ingress (cfilter_tc) for links without XDP.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <linux/cfilter.h>
#include <bpf/bpf_helpers.h>
#include <xdp/xdp_helpers.h>

#include "cfilter_kfuncs.h"
#include "cfilter_parse.h"

/* ICMPv6 types of Neighbor Discovery (RFC 4861 4.1-4.5). */
#define ND_FIRST_TYPE	133	/* router solicitation */
#define ND_LAST_TYPE	137	/* redirect */
#define ND_HOP_LIMIT	255

/*
 * Pinned by name, so that every loader of this object counts into one map:
 * iproute2 (ip link ... obj, tc ... bpf obj) reuses or pins it in
 * /sys/fs/bpf/tc/globals, a place it does not let a user change; cfctl
 * points libbpf at the same place, and pins the map again where bpftool's
 * libbpf looks, /sys/fs/bpf (see user/xdp_stats.c).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CFILTER_STATS_IFACES);
	__type(key, __u32);
	__type(value, struct cfilter_if_stats);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} cfilter_stats SEC(".maps");

/*
 * The prefilter (struct cfilter_prefilter): a bit per /16 of sources, kept
 * by the module once the loader hands the map over (cfctl does). Not
 * pinned: each program has its own, and one the module does not keep
 * reads as not ready. Only the module writes it, yet the loader's
 * descriptor may write: the module writes for the caller, and takes no
 * descriptor the bpf() syscall would not let write (BPF_F_RDONLY here
 * made the loader's so).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cfilter_prefilter);
} cfilter_prefilter SEC(".maps");

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

/*
 * Set by the loader before the program is loaded (cfctl attach --match-dst):
 * look destinations up too. Off by default, as a host's own addresses are
 * the destination of most of what it receives.
 */
const volatile bool match_dst;

/*
 * The module matches bytewise: every unused byte must be 0. A flow of ICMP
 * or ICMPv6 is its type, held where a flow key holds it: sport. A non-first
 * fragment has neither ports nor type, so it matches no flow.
 */
static __always_inline void match_pkt(const struct packet *pkt,
				      struct cfilter_pkt *m)
{
	__builtin_memset(m, 0, sizeof(*m));
	m->family = pkt->family;
	m->proto = pkt->l4_proto;
	if (match_dst)
		m->flags |= CFILTER_PKT_MATCH_DST;
	if (pkt->flags & PKT_PORTS) {
		m->flags |= CFILTER_PKT_PORTS;
		m->sport = pkt->sport;
		m->dport = pkt->dport;
	} else if (pkt->flags & PKT_ICMP) {
		m->flags |= CFILTER_PKT_PORTS;
		m->sport = bpf_htons(pkt->icmp_type);
	}
	__builtin_memcpy(m->saddr, pkt->saddr, 16);
	__builtin_memcpy(m->daddr, pkt->daddr, 16);
}

static __always_inline void count(__u32 ifindex, enum cfilter_stat stat)
{
	__u32 slot = ifindex < CFILTER_STATS_IFACES ? ifindex : 0;
	struct cfilter_if_stats *s;

	s = bpf_map_lookup_elem(&cfilter_stats, &slot);
	/* Per-CPU slot, and a BPF program does not migrate: no atomic needed. */
	if (s && stat < __CFILTER_STAT_MAX)
		s->packets[stat] += 1;
}

/* Is the bit of @addr's /16 set in @words (a bitmap of the prefilter)? */
static __always_inline bool prefilter_bit(const __u64 *words, const __u8 *addr,
					  __u64 dep)
{
	__u32 slot = ((__u32)addr[0] << 8 | addr[1]) & 0xffff;

	return words[((slot >> 6) + dep - 1) & (CFILTER_PREFILTER_WORDS - 1)] >>
	       (slot & 63) & 1;
}

/*
 * Would the module pass @pkt without a look? True when no entry may drop a
 * packet from its source's /16 (nor, where destinations are matched, to
 * its destination's): the call is skipped.
 */
static __always_inline bool prefilter_passes(const struct packet *pkt)
{
	const struct cfilter_prefilter *pf;
	bool v6 = pkt->family == PKT_IPV6;
	__u64 ready, dep;
	__u32 zero = 0;

	pf = bpf_map_lookup_elem(&cfilter_prefilter, &zero);
	if (!pf)
		return false;
	ready = *(volatile const __u64 *)&pf->ready;
	/*
	 * The bits are read at an address computed from @ready (a copy the
	 * compiler cannot fold), so that a CPU that reorders loads still
	 * reads them after it: the module writes them before it.
	 */
	dep = ready;
	barrier_var(dep);
	if (ready != 1)
		return false;
	if (prefilter_bit(pf->bits[v6 ? CFILTER_PREFILTER_SRC6 :
				   CFILTER_PREFILTER_SRC4], pkt->saddr, dep))
		return false;
	return !match_dst ||
	       !prefilter_bit(pf->bits[v6 ? CFILTER_PREFILTER_DST6 :
				       CFILTER_PREFILTER_DST4], pkt->daddr, dep);
}

/* The counter of a verdict the module gave: its kind's. */
static __always_inline enum cfilter_stat verdict_stat(int verdict)
{
	/*
	 * A negative return means the module rejected the packet's shape,
	 * which only a program and module built from different UAPIs can
	 * cause, as a kind that is no verdict's can: fail open rather than
	 * black-hole the host.
	 */
	if (verdict < 0 || CFILTER_VERDICT_KIND(verdict) >= __CFILTER_STAT_MAX ||
	    CFILTER_VERDICT_KIND(verdict) == CFILTER_STAT_UNPARSED)
		return CFILTER_STAT_PASS;
	return CFILTER_VERDICT_KIND(verdict);
}

/*
 * The verdict on a packet the parser read as @res, as the counter it goes
 * to: the XDP and the TC program differ only in how they say drop.
 *
 * Whenever the IP header parsed, its addresses (and the ports, if their
 * bytes are there) are matched first, so that no blocked address passes
 * for what follows it. Then what the parser could not follow is decided:
 *   PARSE_NOT_IP     pass, unparsed: not IP, or an IP header the stack
 *                    discards itself
 *   PARSE_CUT,       pass, unparsed: a truncated datagram, which the stack
 *   PARSE_FRAME_END  discards (at TC, the caller pulls more and parses
 *                    again first)
 *   PARSE_TINY_FRAG  drop: a first fragment too short for its ports hides
 *                    its flow (RFC 1858, 3128); no sender needs one
 *   PARSE_DEEP,      drop: more than MAX_EXT_HDRS extension headers or
 *   PARSE_DEEP_L2    MAX_VLAN_TAGS tags, which no legitimate packet has,
 *                    would hide the flow or the addresses
 * An allow entry wins over every entry; the policy drops are not entries.
 */
static __always_inline enum cfilter_stat classify(enum parse_result res,
						  const struct packet *pkt)
{
	enum cfilter_stat stat;
	struct cfilter_pkt m;

	if (res == PARSE_NOT_IP)
		return CFILTER_STAT_UNPARSED;
	if (res == PARSE_DEEP_L2)
		return CFILTER_STAT_DROP_DEEP;
	if (res == PARSE_OK && is_neigh_discovery(pkt))
		return CFILTER_STAT_PASS;

	if (prefilter_passes(pkt)) {
		stat = CFILTER_STAT_PASS;
	} else {
		match_pkt(pkt, &m);
		stat = verdict_stat(bpf_cfilter_match(&m, sizeof(m)));
	}
	if (stat != CFILTER_STAT_PASS)
		return stat;
	switch (res) {
	case PARSE_OK:
		return CFILTER_STAT_PASS;
	case PARSE_TINY_FRAG:
		return CFILTER_STAT_DROP_FRAG;
	case PARSE_DEEP:
		return CFILTER_STAT_DROP_DEEP;
	default:
		return CFILTER_STAT_UNPARSED;
	}
}

static __always_inline bool is_drop(enum cfilter_stat stat)
{
	return CFILTER_STAT_DROPS >> stat & 1;
}

/*
 * For libxdp's dispatcher, which runs the programs of an interface in order
 * of priority, lowest first (cfctl attach --priority overrides it): a
 * blocklist goes before programs that would redirect or answer a blocked
 * packet, and a packet it passes goes on to the next program.
 */
struct {
	__uint(priority, 10);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(cfilter_xdp);

SEC("xdp")
int cfilter_xdp(struct xdp_md *ctx)
{
	struct cursor c = {
		.pos = (void *)(long)ctx->data,
		.end = (void *)(long)ctx->data_end,
	};
	enum cfilter_stat stat;
	struct packet pkt;

	stat = classify(parse_packet(&c, &pkt), &pkt);
	count(ctx->ingress_ifindex, stat);
	return is_drop(stat) ? XDP_DROP : XDP_PASS;
}

/*
 * What the TC program pulls into the linear area before it parses: the
 * headers of an ordinary packet (Ethernet, two VLAN tags, IPv6 with a few
 * extension headers, the ports), so that most packets need no second look.
 */
#define TC_PULL_LEN	256
/*
 * The most the parser reads: Ethernet, the VLAN tags, IPv6 and its longest
 * extension headers, the ports.
 */
#define TC_PULL_MAX	(sizeof(struct ethhdr) + \
			 MAX_VLAN_TAGS * sizeof(struct vlan_tag) + \
			 sizeof(struct ipv6hdr) + \
			 MAX_EXT_HDRS * MAX_EXT_HDR_LEN + 4)

/* Pulls @len bytes (no more than the skb has) and points @c at them. */
static __always_inline void tc_pull(struct __sk_buff *skb, struct cursor *c,
				    __u32 len)
{
	if (len > skb->len)
		len = skb->len;
	if (c->pos + len > c->end)
		/* A failed pull leaves what the parser can still read. */
		bpf_skb_pull_data(skb, len);
	c->pos = (void *)(long)skb->data;
	c->end = (void *)(long)skb->data_end;
	c->ip_left = 0;
}

/*
 * For links whose driver has no native XDP: the same verdicts on clsact
 * ingress. Unlike XDP, an skb's headers may lie partly outside its linear
 * area: they are pulled in (which unclones a shared skb) only when the
 * parser needs them, so that a long header chain is read, not passed.
 */
SEC("tc")
int cfilter_tc(struct __sk_buff *skb)
{
	struct cursor c = {
		.pos = (void *)(long)skb->data,
		.end = (void *)(long)skb->data_end,
	};
	enum parse_result res;
	enum cfilter_stat stat;
	struct packet pkt;

	tc_pull(skb, &c, TC_PULL_LEN);
	res = parse_packet(&c, &pkt);
	/* Past the linear data, or a frame cut short: pulling tells. */
	if (res == PARSE_FRAME_END) {
		c.pos = (void *)(long)skb->data;
		tc_pull(skb, &c, TC_PULL_MAX);
		res = parse_packet(&c, &pkt);
	}
	stat = classify(res, &pkt);
	count(skb->ifindex, stat);
	return is_drop(stat) ? TC_ACT_SHOT : TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
