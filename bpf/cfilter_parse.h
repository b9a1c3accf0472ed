/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The packet parser of cfilter's XDP program: from the Ethernet header to
 * the L4 ports or ICMP type, into one struct packet that every lookup key is
 * built from.
 *
 * Every read is bounds-checked against the end of the linear frame before
 * it is made; every loop has a constant bound. A packet the parser cannot
 * follow to the end of the headers it reads is "unparsed" and is never
 * matched, so truncated and malformed frames go on to the stack, which
 * discards them itself.
 *
 * What follows the IP header is also bounded by the datagram's own length
 * (IPv4 tot_len, IPv6 40 + payload_len), as the stack trims a datagram to
 * it on receipt: an extension or L4 header that runs past it is not part
 * of the packet, whatever bytes the frame carries there, and the packet is
 * truncated. Bytes after the datagram (Ethernet pads frames to 60 bytes)
 * are link padding and are never read. An IPv6 jumbogram (payload_len 0
 * and a hop-by-hop header, RFC 2675) is bounded by the frame alone: its
 * length sits in an option the parser does not read, and the frame holds
 * the whole datagram anyway.
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
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

/* 802.1ad + 802.1Q (QinQ) is the deepest stack seen in practice. */
#define MAX_VLAN_TAGS	2
/*
 * RFC 8200 allows each extension header once (destination options twice),
 * so a legitimate chain before a fragment's payload is at most hop-by-hop,
 * destination options, routing, fragment and destination options: five.
 * One more for slack; deeper chains are not followed.
 */
#define MAX_EXT_HDRS	6

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
	PKT_PORTS	= 1 << 1,	/* sport and dport are valid */
	PKT_ICMP	= 1 << 2,	/* icmp_type and icmp_code are valid */
};

/**
 * struct packet - what the parser found
 * @family:    enum packet_family
 * @l4_proto:  IPPROTO_* of the header after the IP headers: the L4
 *             protocol, or AH, ESP, IPPROTO_NONE or one the parser does not
 *             know, where it stopped
 * @flags:     enum packet_flags; neither PKT_PORTS nor PKT_ICMP for a
 *             non-first fragment or a protocol without ports
 * @hop_limit: IPv4 TTL or IPv6 hop limit
 * @sport:     TCP or UDP source port, network byte order (PKT_PORTS)
 * @dport:     TCP or UDP destination port, network byte order (PKT_PORTS)
 * @icmp_type: ICMP or ICMPv6 type (PKT_ICMP)
 * @icmp_code: ICMP or ICMPv6 code (PKT_ICMP)
 * @saddr:     source address, network byte order; IPv4 in the first 4 bytes
 * @daddr:     destination address, laid out as @saddr
 *
 * Bytes the packet does not give a value are zero.
 */
struct packet {
	__u8	family;
	__u8	l4_proto;
	__u8	flags;
	__u8	hop_limit;
	union {
		struct {
			__be16	sport;
			__be16	dport;
		};
		struct {
			__u8	icmp_type;
			__u8	icmp_code;
		};
	};
	__u8	saddr[16];
	__u8	daddr[16];
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

/* What an IP header parser leaves for the L4 parser. */
enum l3_result {
	L3_BAD,		/* truncated or malformed: unparsed */
	L3_NO_L4,	/* addresses valid, no L4 header to read */
	L3_L4,		/* addresses valid, the @l4_proto header is at the cursor */
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

static __always_inline enum l3_result parse_ipv4(struct cursor *c,
						 struct packet *pkt)
{
	struct iphdr *iph = c->pos;
	__u32 hdr_len, tot_len;
	__u16 frag;

	if ((void *)(iph + 1) > c->end)
		return L3_BAD;
	if (iph->version != 4 || iph->ihl < 5)
		return L3_BAD;
	hdr_len = iph->ihl * 4;
	tot_len = bpf_ntohs(iph->tot_len);
	if (tot_len < hdr_len)
		return L3_BAD;
	/* A header whose options run past the frame is truncated. */
	if ((void *)iph + hdr_len > c->end)
		return L3_BAD;
	c->pos = (void *)iph + hdr_len;
	c->ip_left = tot_len - hdr_len;

	pkt->family = PKT_IPV4;
	pkt->l4_proto = iph->protocol;
	pkt->hop_limit = iph->ttl;
	__builtin_memcpy(pkt->saddr, &iph->saddr, sizeof(iph->saddr));
	__builtin_memcpy(pkt->daddr, &iph->daddr, sizeof(iph->daddr));
	frag = bpf_ntohs(iph->frag_off);
	if (frag & (IP_MF | IP_OFFSET))
		pkt->flags |= PKT_FRAGMENT;
	/* Only the fragment at offset 0 starts with the L4 header. */
	return frag & IP_OFFSET ? L3_NO_L4 : L3_L4;
}

static __always_inline bool is_ipv6_ext_hdr(__u8 nexthdr)
{
	return nexthdr == IPPROTO_HOPOPTS || nexthdr == IPPROTO_ROUTING ||
	       nexthdr == IPPROTO_DSTOPTS || nexthdr == IPPROTO_FRAGMENT;
}

/*
 * Step over the extension header at the cursor, one is_ipv6_ext_hdr()
 * accepts, and set @pkt->l4_proto to the header that follows it.
 */
static __always_inline enum l3_result skip_ipv6_ext_hdr(struct cursor *c,
							struct packet *pkt)
{
	struct ipv6_frag_hdr *fh;
	struct ipv6_opt_hdr *oh;
	__u32 len;
	__u16 frag;

	if (pkt->l4_proto == IPPROTO_FRAGMENT) {
		fh = c->pos;
		if ((void *)(fh + 1) > c->end || !in_datagram(c, sizeof(*fh)))
			return L3_BAD;
		c->pos = fh + 1;
		consume(c, sizeof(*fh));
		pkt->l4_proto = fh->nexthdr;
		frag = bpf_ntohs(fh->frag_off);
		/* Offset 0 without M is an atomic fragment: whole (RFC 6946). */
		if (frag & (IP6_MF | IP6_OFFSET))
			pkt->flags |= PKT_FRAGMENT;
		return frag & IP6_OFFSET ? L3_NO_L4 : L3_L4;
	}
	/* Hop-by-hop, routing and destination options share this layout. */
	oh = c->pos;
	if ((void *)(oh + 1) > c->end)
		return L3_BAD;
	len = (oh->hdrlen + 1) * 8;
	if (c->pos + len > c->end || !in_datagram(c, len))
		return L3_BAD;
	c->pos += len;
	consume(c, len);
	pkt->l4_proto = oh->nexthdr;
	return L3_L4;
}

static __always_inline enum l3_result parse_ipv6(struct cursor *c,
						 struct packet *pkt)
{
	struct ipv6hdr *ip6h = c->pos;
	enum l3_result ret;
	int i;

	if ((void *)(ip6h + 1) > c->end)
		return L3_BAD;
	if (ip6h->version != 6)
		return L3_BAD;
	c->pos = ip6h + 1;
	c->ip_left = bpf_ntohs(ip6h->payload_len);
	if (!c->ip_left && ip6h->nexthdr == IPPROTO_HOPOPTS)
		c->ip_left = IP_LEFT_FRAME;

	pkt->family = PKT_IPV6;
	pkt->l4_proto = ip6h->nexthdr;
	pkt->hop_limit = ip6h->hop_limit;
	__builtin_memcpy(pkt->saddr, &ip6h->saddr, sizeof(ip6h->saddr));
	__builtin_memcpy(pkt->daddr, &ip6h->daddr, sizeof(ip6h->daddr));

	for (i = 0; i < MAX_EXT_HDRS && is_ipv6_ext_hdr(pkt->l4_proto); i++) {
		ret = skip_ipv6_ext_hdr(c, pkt);
		if (ret != L3_L4)
			return ret;
	}
	/*
	 * AH, ESP, no-next-header and unknown protocols end the chain here
	 * with the addresses valid; a chain still going does not.
	 */
	return is_ipv6_ext_hdr(pkt->l4_proto) ? L3_BAD : L3_L4;
}

/*
 * Read the ports or ICMP type and code of the L4 header at the cursor.
 * Returns false if a header the parser reads is cut short, by the end of
 * the frame or of the datagram; a protocol it does not read is fine as it
 * is.
 */
static __always_inline bool parse_l4(struct cursor *c, struct packet *pkt)
{
	struct icmp_hdr *icmph;
	struct udphdr *udph;
	struct tcphdr *tcph;

	switch (pkt->l4_proto) {
	case IPPROTO_TCP:
		tcph = c->pos;
		if ((void *)(tcph + 1) > c->end)
			return false;
		if (tcph->doff < 5 || c->pos + tcph->doff * 4 > c->end ||
		    !in_datagram(c, tcph->doff * 4))
			return false;
		pkt->sport = tcph->source;
		pkt->dport = tcph->dest;
		pkt->flags |= PKT_PORTS;
		return true;
	case IPPROTO_UDP:
		udph = c->pos;
		if ((void *)(udph + 1) > c->end || !in_datagram(c, sizeof(*udph)))
			return false;
		pkt->sport = udph->source;
		pkt->dport = udph->dest;
		pkt->flags |= PKT_PORTS;
		return true;
	case IPPROTO_ICMP:
		if (pkt->family != PKT_IPV4)
			return true;
		break;
	case IPPROTO_ICMPV6:
		if (pkt->family != PKT_IPV6)
			return true;
		break;
	default:
		return true;
	}
	icmph = c->pos;
	if ((void *)(icmph + 1) > c->end || !in_datagram(c, sizeof(*icmph)))
		return false;
	pkt->icmp_type = icmph->type;
	pkt->icmp_code = icmph->code;
	pkt->flags |= PKT_ICMP;
	return true;
}

/*
 * Fill @pkt (zeroed here) from the frame in @c. Returns false if the frame
 * is not IPv4 or IPv6, or is truncated or malformed in a header the parser
 * reads; @pkt is then meaningless.
 */
static __always_inline bool parse_packet(struct cursor *c, struct packet *pkt)
{
	enum l3_result ret;
	__be16 proto;

	__builtin_memset(pkt, 0, sizeof(*pkt));
	proto = parse_eth(c);
	if (proto == bpf_htons(ETH_P_IP))
		ret = parse_ipv4(c, pkt);
	else if (proto == bpf_htons(ETH_P_IPV6))
		ret = parse_ipv6(c, pkt);
	else
		return false;
	if (ret != L3_L4)
		return ret == L3_NO_L4;
	return parse_l4(c, pkt);
}

#endif /* __CFILTER_PARSE_H */
