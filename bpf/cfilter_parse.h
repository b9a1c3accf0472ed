/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The packet parser of cfilter's XDP program: from the Ethernet header to
 * the L4 ports or ICMP type, into one struct packet, which holds what
 * bpf_cfilter_match() takes as it will take it.
 *
 * Every read is bounds-checked against the end of the linear frame before
 * it is made; every loop has a constant bound. What follows the IP header
 * is also bounded by the datagram's own length (IPv4 tot_len, IPv6 40 +
 * payload_len), as the stack trims a datagram to it on receipt: a header
 * that runs past it is not part of the packet, whatever bytes the frame
 * carries there. Bytes after the datagram (Ethernet pads frames to 60
 * bytes) are link padding and are never read. An IPv6 jumbogram
 * (payload_len 0 and a hop-by-hop header, RFC 2675) is bounded by the frame
 * alone.
 *
 * Once the IP header has parsed, its addresses are always valid, whatever
 * comes after: the program matches them in every case below. The parser
 * says what it could not follow (enum parse_result), and the program
 * decides by a fixed policy (cfilter.bpf.c). The ports are valid whenever
 * their 4 bytes lie in the datagram and the frame, even if the rest of the
 * TCP header does not (a tiny first fragment, a large doff).
 */
#ifndef __CFILTER_PARSE_H
#define __CFILTER_PARSE_H

#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/cfilter.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

/*
 * 802.1ad + 802.1Q (QinQ) is the deepest stack seen in practice; a deeper
 * one is PARSE_DEEP_L2.
 */
#define MAX_VLAN_TAGS	CFILTER_MAX_VLAN_TAGS
/*
 * RFC 8200 allows each extension header once (destination options twice),
 * so a legitimate chain before a fragment's payload is at most hop-by-hop,
 * destination options, routing, fragment and destination options: five.
 * One more for slack (6); a longer chain is PARSE_DEEP.
 */
#define MAX_EXT_HDRS	CFILTER_MAX_EXT_HDRS
/* An extension header is at most 2048 bytes: (255 + 1) * 8. */
#define MAX_EXT_HDR_LEN	2048

/* IPv4 frag_off and IPv6 fragment header bits, from kernel-only headers. */
#define IP_MF		0x2000
#define IP_OFFSET	0x1fff
#define IP6_MF		0x0001
#define IP6_OFFSET	0xfff8

/*
 * The fixed part of an ICMP (RFC 792) and of an ICMPv6 (RFC 4443) header:
 * the same 8 bytes. linux/icmp.h would drag in libc's headers.
 */
struct icmp_hdr {
	__u8	type;
	__u8	code;
	__sum16	checksum;
	__be32	rest;
};

/* A VLAN tag as it sits after the MAC addresses; no UAPI header has one. */
struct vlan_tag {
	__be16	tci;
	__be16	encap_proto;
};

/* The IPv6 fragment header (RFC 8200 4.5); no UAPI header has one either. */
struct ipv6_frag_hdr {
	__u8	nexthdr;
	__u8	reserved;
	__be16	frag_off;
	__be32	identification;
};

enum packet_family {
	PKT_IPV4	= 4,
	PKT_IPV6	= 6,
};

enum packet_flags {
	PKT_FRAGMENT	= 1 << 0,	/* one fragment of a larger datagram */
	PKT_ICMP	= 1 << 1,	/* icmp_type and icmp_code are valid */
};

/**
 * struct packet - what the parser found
 * @m:         the packet as bpf_cfilter_match() takes it, filled in place,
 *             so that the call needs no copy:
 *             @m.family: enum packet_family;
 *             @m.proto: IPPROTO_* of the header after the IP headers: the
 *             L4 protocol, or AH, ESP, IPPROTO_NONE or one the parser does
 *             not know, where it stopped;
 *             @m.flags: CFILTER_PKT_PORTS with TCP or UDP ports or an ICMP
 *             or ICMPv6 type, which @m.sport and @m.dport then hold as a
 *             flow key does (network byte order; ICMP: the type in
 *             @m.sport, @m.dport 0); not for a non-first fragment or a
 *             protocol without them. The program adds
 *             CFILTER_PKT_MATCH_DST itself;
 *             @m.saddr: source address, network byte order; IPv4 in the
 *             first 4 bytes; @m.daddr: destination address, laid out alike
 * @flags:     enum packet_flags
 * @hop_limit: IPv4 TTL or IPv6 hop limit
 * @icmp_type: ICMP or ICMPv6 type (PKT_ICMP)
 * @icmp_code: ICMP or ICMPv6 code (PKT_ICMP)
 *
 * Bytes the packet does not give a value are zero, as the kfunc wants.
 */
struct packet {
	/* aligned for the prefilter's 8-byte reads of the addresses */
	struct cfilter_pkt m __attribute__((aligned(8)));
	__u8	flags;
	__u8	hop_limit;
	__u8	icmp_type;
	__u8	icmp_code;
};

/*
 * The unparsed rest of the frame: @pos to @end for the verifier, and no more
 * than @ip_left bytes of it, from @pos to the end of the IP datagram, once
 * an IP header has set it.
 */
struct cursor {
	void	*pos;
	void	*end;
	__u32	ip_left;
};

/* ip_left of a datagram whose only bound is the frame (IPv6 jumbogram). */
#define IP_LEFT_FRAME	0xffffffffU

/* Do @n bytes from the cursor lie inside the IP datagram? */
static __always_inline bool in_datagram(const struct cursor *c, __u32 n)
{
	return n <= c->ip_left;
}

/* Step the datagram's bound over @n bytes that in_datagram() accepted. */
static __always_inline void consume(struct cursor *c, __u32 n)
{
	if (c->ip_left != IP_LEFT_FRAME)
		c->ip_left -= n;
}

/*
 * What the parser found, in the order the program's policy cares about:
 * from PARSE_OK on, the addresses are valid.
 */
enum parse_result {
	PARSE_NOT_IP,	/* not IPv4 or IPv6, or its IP header malformed */
	PARSE_DEEP_L2,	/* more than MAX_VLAN_TAGS VLAN tags: no addresses */
	PARSE_OK,	/* the addresses, and the ports or type if it has them */
	PARSE_CUT,	/* a header after the IP header runs past the datagram */
	PARSE_FRAME_END, /* the frame ends before the headers do */
	PARSE_TINY_FRAG, /* a first fragment that ends before its ports do */
	PARSE_DEEP,	/* more than MAX_EXT_HDRS IPv6 extension headers */
};

/*
 * @n bytes at the cursor are needed: PARSE_OK if the datagram and the
 * frame hold them. Else where they end: past the datagram is a truncated
 * packet, or in a first fragment (PKT_FRAGMENT with the L4 header to come)
 * one that hides what follows; past the frame only, a frame cut short (or,
 * at TC, headers outside the linear data).
 */
static __always_inline enum parse_result need(const struct cursor *c,
					      const struct packet *pkt,
					      __u32 n)
{
	if (!in_datagram(c, n))
		return pkt->flags & PKT_FRAGMENT ? PARSE_TINY_FRAG : PARSE_CUT;
	if (c->pos + n > c->end)
		return PARSE_FRAME_END;
	return PARSE_OK;
}

static __always_inline bool is_vlan(__be16 proto)
{
	return proto == bpf_htons(ETH_P_8021Q) ||
	       proto == bpf_htons(ETH_P_8021AD);
}

/*
 * Step over the Ethernet header and up to MAX_VLAN_TAGS tags of either kind.
 * Returns the EtherType that follows (a VLAN one if the stack is deeper),
 * or 0 (not IP either) if truncated.
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
		if (!is_vlan(proto))
			break;
		tag = c->pos;
		if ((void *)(tag + 1) > c->end)
			return 0;
		c->pos = tag + 1;
		proto = tag->encap_proto;
	}
	return proto;
}

/*
 * The IPv4 header at the cursor. PARSE_OK leaves the cursor after it, with
 * the L4 header next unless this is a later fragment (*@l4 false).
 */
static __always_inline enum parse_result parse_ipv4(struct cursor *c,
						    struct packet *pkt,
						    bool *l4)
{
	struct iphdr *iph = c->pos;
	__u32 hdr_len, tot_len;
	__u16 frag;

	if ((void *)(iph + 1) > c->end)
		return PARSE_NOT_IP;
	if (iph->version != 4 || iph->ihl < 5)
		return PARSE_NOT_IP;
	hdr_len = iph->ihl * 4;
	tot_len = bpf_ntohs(iph->tot_len);
	if (tot_len < hdr_len)
		return PARSE_NOT_IP;

	pkt->m.family = PKT_IPV4;
	pkt->m.proto = iph->protocol;
	pkt->hop_limit = iph->ttl;
	__builtin_memcpy(pkt->m.saddr, &iph->saddr, sizeof(iph->saddr));
	__builtin_memcpy(pkt->m.daddr, &iph->daddr, sizeof(iph->daddr));
	frag = bpf_ntohs(iph->frag_off);
	if (frag & (IP_MF | IP_OFFSET))
		pkt->flags |= PKT_FRAGMENT;
	/* Only the fragment at offset 0 starts with the L4 header. */
	*l4 = !(frag & IP_OFFSET);
	/* Options past the frame: the addresses are known all the same. */
	if ((void *)iph + hdr_len > c->end)
		return PARSE_FRAME_END;
	c->pos = (void *)iph + hdr_len;
	c->ip_left = tot_len - hdr_len;
	return PARSE_OK;
}

static __always_inline bool is_ipv6_ext_hdr(__u8 nexthdr)
{
	return nexthdr == IPPROTO_HOPOPTS || nexthdr == IPPROTO_ROUTING ||
	       nexthdr == IPPROTO_DSTOPTS || nexthdr == IPPROTO_FRAGMENT;
}

/*
 * Step over the extension header at the cursor, one is_ipv6_ext_hdr()
 * accepts, and set @pkt->m.proto to the header that follows it; *@l4
 * goes false after the header of a later fragment.
 */
static __always_inline enum parse_result skip_ipv6_ext_hdr(struct cursor *c,
							   struct packet *pkt,
							   bool *l4)
{
	struct ipv6_frag_hdr *fh;
	struct ipv6_opt_hdr *oh;
	enum parse_result ret;
	__u32 len;
	__u16 frag;

	if (pkt->m.proto == IPPROTO_FRAGMENT) {
		fh = c->pos;
		ret = need(c, pkt, sizeof(*fh));
		if (ret != PARSE_OK)
			return ret;
		if ((void *)(fh + 1) > c->end)
			return PARSE_FRAME_END;
		c->pos = fh + 1;
		consume(c, sizeof(*fh));
		pkt->m.proto = fh->nexthdr;
		frag = bpf_ntohs(fh->frag_off);
		/* Offset 0 without M is an atomic fragment: whole (RFC 6946). */
		if (frag & (IP6_MF | IP6_OFFSET))
			pkt->flags |= PKT_FRAGMENT;
		*l4 = !(frag & IP6_OFFSET);
		return PARSE_OK;
	}
	/* Hop-by-hop, routing and destination options share this layout. */
	oh = c->pos;
	ret = need(c, pkt, sizeof(*oh));
	if (ret != PARSE_OK)
		return ret;
	if ((void *)(oh + 1) > c->end)
		return PARSE_FRAME_END;
	len = (oh->hdrlen + 1) * 8;
	ret = need(c, pkt, len);
	if (ret != PARSE_OK)
		return ret;
	if (c->pos + len > c->end)
		return PARSE_FRAME_END;
	c->pos += len;
	consume(c, len);
	pkt->m.proto = oh->nexthdr;
	return PARSE_OK;
}

/*
 * The IPv6 header at the cursor and its extension headers. PARSE_OK leaves
 * the cursor at the @pkt->m.proto header, which is the L4 one unless this
 * is a later fragment (*@l4 false).
 */
static __always_inline enum parse_result parse_ipv6(struct cursor *c,
						    struct packet *pkt,
						    bool *l4)
{
	struct ipv6hdr *ip6h = c->pos;
	enum parse_result ret;
	int i;

	if ((void *)(ip6h + 1) > c->end)
		return PARSE_NOT_IP;
	if (ip6h->version != 6)
		return PARSE_NOT_IP;
	c->pos = ip6h + 1;
	c->ip_left = bpf_ntohs(ip6h->payload_len);
	if (!c->ip_left && ip6h->nexthdr == IPPROTO_HOPOPTS)
		c->ip_left = IP_LEFT_FRAME;

	pkt->m.family = PKT_IPV6;
	pkt->m.proto = ip6h->nexthdr;
	pkt->hop_limit = ip6h->hop_limit;
	__builtin_memcpy(pkt->m.saddr, &ip6h->saddr, sizeof(ip6h->saddr));
	__builtin_memcpy(pkt->m.daddr, &ip6h->daddr, sizeof(ip6h->daddr));

	for (i = 0; i < MAX_EXT_HDRS && *l4 && is_ipv6_ext_hdr(pkt->m.proto);
	     i++) {
		ret = skip_ipv6_ext_hdr(c, pkt, l4);
		if (ret != PARSE_OK)
			return ret;
	}
	/*
	 * AH, ESP, no-next-header and unknown protocols end the chain here;
	 * a chain still going after MAX_EXT_HDRS is not followed.
	 */
	return *l4 && is_ipv6_ext_hdr(pkt->m.proto) ? PARSE_DEEP : PARSE_OK;
}

/*
 * The ports or ICMP type and code of the L4 header at the cursor: only the
 * bytes that hold them need be there. A protocol without them is fine as
 * it is.
 */
static __always_inline enum parse_result parse_l4(struct cursor *c,
						  struct packet *pkt)
{
	struct icmp_hdr *icmph;
	struct udphdr *udph;
	enum parse_result ret;

	switch (pkt->m.proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
		/* TCP's and UDP's first 4 bytes are the same two ports. */
		udph = c->pos;
		ret = need(c, pkt, 2 * sizeof(__be16));
		if (ret != PARSE_OK)
			return ret;
		if ((void *)&udph->dest + sizeof(udph->dest) > c->end)
			return PARSE_FRAME_END;
		pkt->m.sport = udph->source;
		pkt->m.dport = udph->dest;
		pkt->m.flags |= CFILTER_PKT_PORTS;
		return PARSE_OK;
	case IPPROTO_ICMP:
		if (pkt->m.family != PKT_IPV4)
			return PARSE_OK;
		break;
	case IPPROTO_ICMPV6:
		if (pkt->m.family != PKT_IPV6)
			return PARSE_OK;
		break;
	default:
		return PARSE_OK;
	}
	icmph = c->pos;
	ret = need(c, pkt, 2);
	if (ret != PARSE_OK)
		return ret;
	if ((void *)&icmph->code + sizeof(icmph->code) > c->end)
		return PARSE_FRAME_END;
	pkt->icmp_type = icmph->type;
	pkt->icmp_code = icmph->code;
	pkt->m.sport = bpf_htons(icmph->type);
	pkt->m.flags |= CFILTER_PKT_PORTS;
	pkt->flags |= PKT_ICMP;
	return PARSE_OK;
}

/* Fill @pkt (zeroed here) from the frame in @c; see enum parse_result. */
static __always_inline enum parse_result parse_packet(struct cursor *c,
						      struct packet *pkt)
{
	enum parse_result ret;
	bool l4 = true;
	__be16 proto;

	__builtin_memset(pkt, 0, sizeof(*pkt));
	proto = parse_eth(c);
	if (proto == bpf_htons(ETH_P_IP))
		ret = parse_ipv4(c, pkt, &l4);
	else if (proto == bpf_htons(ETH_P_IPV6))
		ret = parse_ipv6(c, pkt, &l4);
	else
		return is_vlan(proto) ? PARSE_DEEP_L2 : PARSE_NOT_IP;
	if (ret != PARSE_OK || !l4)
		return ret;
	return parse_l4(c, pkt);
}

#endif /* __CFILTER_PARSE_H */
