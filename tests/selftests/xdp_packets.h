/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Frame builders for test_xdp.c: Ethernet, VLAN tags, IPv4 with options
 * and fragment fields, IPv6 with extension headers, TCP, UDP, ICMP and
 * ICMPv6, appended header by header. Each header patches its protocol
 * number into the previous header's next-header field, and the builder
 * records where the headers start, so tests derive expectations from the
 * layout rather than from the program under test.
 */
#ifndef __XDP_PACKETS_H
#define __XDP_PACKETS_H

#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>

#define VLAN_HLEN	4
#define FRAG6_HLEN	8
#define UDP_HLEN	8
#define ICMP_HLEN	8	/* ICMP and ICMPv6 alike */
#define IPV4_DADDR	"192.0.2.1"
#define IPV6_DADDR	"2001:db8::1"

/* A frame under construction. */
struct frame {
	unsigned char data[2560];	/* room for a 2 KiB extension header */
	unsigned int len;
	unsigned int l3;	/* offset of the IP header */
	unsigned int l4;	/* offset of the last header appended */
	unsigned int next;	/* offset of the pending next-header byte */
	int family;		/* AF_INET, AF_INET6, or 0 before the IP header */
};

static inline void put(struct frame *f, const void *src, size_t n)
{
	if (f->len + n > sizeof(f->data))
		abort();
	memcpy(f->data + f->len, src, n);
	f->len += n;
}

static inline void put16(struct frame *f, __u16 host)
{
	__be16 v = htons(host);

	put(f, &v, sizeof(v));
}

static inline void put_zeros(struct frame *f, size_t n)
{
	static const unsigned char zeros[sizeof(((struct frame *)0)->data)];

	put(f, zeros, n);
}

/* Start a header of protocol @proto: name it in the previous header. */
static inline void start_hdr(struct frame *f, __u8 proto)
{
	if (!f->family)
		abort();
	f->data[f->next] = proto;
	f->l4 = f->len;
}

/* Ethernet header with one tag per entry of @tpids, then @proto. */
static inline void put_eth(struct frame *f, const __u16 *tpids, int ntags,
			   __u16 proto)
{
	static const unsigned char macs[2 * ETH_ALEN] = {
		0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02,
	};
	int i;

	put(f, macs, sizeof(macs));
	for (i = 0; i < ntags; i++) {
		put16(f, tpids[i]);
		put16(f, 100 + i);	/* TCI: VLAN id */
	}
	put16(f, proto);
}

/* IPv4 header of @ihl words (NOP options past 5); @frag_off host order. */
static inline void put_ip4(struct frame *f, const char *saddr,
			   unsigned int ihl, __u16 frag_off)
{
	struct iphdr iph = { 0 };
	unsigned char nops[40];

	if (ihl < 5 || ihl > 15)
		abort();
	iph.version = 4;
	iph.ihl = ihl;
	iph.ttl = 64;
	iph.frag_off = htons(frag_off);
	if (inet_pton(AF_INET, saddr, &iph.saddr) != 1 ||
	    inet_pton(AF_INET, IPV4_DADDR, &iph.daddr) != 1)
		abort();
	memset(nops, IPOPT_NOP, sizeof(nops));
	f->family = AF_INET;
	f->l3 = f->len;
	f->l4 = f->len;
	f->next = f->len + offsetof(struct iphdr, protocol);
	put(f, &iph, sizeof(iph));
	put(f, nops, ihl * 4 - sizeof(iph));
}

static inline void put_ip6(struct frame *f, const char *saddr, __u8 hop_limit)
{
	struct ipv6hdr ip6h = { 0 };

	ip6h.version = 6;
	ip6h.hop_limit = hop_limit;
	if (inet_pton(AF_INET6, saddr, &ip6h.saddr) != 1 ||
	    inet_pton(AF_INET6, IPV6_DADDR, &ip6h.daddr) != 1)
		abort();
	f->family = AF_INET6;
	f->l3 = f->len;
	f->l4 = f->len;
	f->next = f->len + offsetof(struct ipv6hdr, nexthdr);
	put(f, &ip6h, sizeof(ip6h));
}

/*
 * Hop-by-hop, routing or destination options header (@type) of
 * (@hdrlen + 1) * 8 bytes; the options are Pad1, the routing header one
 * with no segments left.
 */
static inline void put_ext6(struct frame *f, __u8 type, __u8 hdrlen)
{
	start_hdr(f, type);
	f->next = f->len;
	put16(f, hdrlen);	/* next header (patched later), hdrlen */
	put_zeros(f, (hdrlen + 1) * 8 - 2);
}

/* IPv6 fragment header; @offset in bytes (a multiple of 8). */
static inline void put_frag6(struct frame *f, unsigned int offset, int more)
{
	start_hdr(f, IPPROTO_FRAGMENT);
	f->next = f->len;
	put16(f, 0);		/* next header (patched later), reserved */
	put16(f, offset | !!more);
	put(f, "\0\0\x12\x34", 4);	/* identification */
}

/* TCP header of @doff words (NOP options past 5), ports 40000 -> 80. */
static inline void put_tcp(struct frame *f, unsigned int doff)
{
	unsigned char hdr[60] = { 0 };
	unsigned int hlen = doff < 5 ? 20 : doff * 4;

	start_hdr(f, IPPROTO_TCP);
	hdr[0] = 40000 >> 8;
	hdr[1] = 40000 & 0xff;
	hdr[3] = 80;
	hdr[12] = doff << 4;
	hdr[13] = 0x02;		/* SYN */
	if (hlen > 20)
		memset(hdr + 20, 1, hlen - 20);
	put(f, hdr, hlen);
}

static inline void put_udp(struct frame *f)
{
	start_hdr(f, IPPROTO_UDP);
	put16(f, 40000);
	put16(f, 53);
	put16(f, UDP_HLEN);
	put16(f, 0);
}

/* ICMP (IPPROTO_ICMP) or ICMPv6 (IPPROTO_ICMPV6) header of @type. */
static inline void put_icmp(struct frame *f, __u8 proto, __u8 type)
{
	start_hdr(f, proto);
	put16(f, type << 8);	/* type, code 0 */
	put_zeros(f, ICMP_HLEN - 2);
}

/* A protocol the parser stops at (AH, ESP, ...), with @n bytes of it. */
static inline void put_opaque(struct frame *f, __u8 proto, size_t n)
{
	start_hdr(f, proto);
	put_zeros(f, n);
}

/*
 * Overwrite the 16-bit field at @off with @host in network order. Fields
 * are patched as bytes: the frame is a byte array, and reaching into it
 * through struct iphdr or ipv6hdr pointers would break C's aliasing and
 * alignment rules (the IP header starts at an odd multiple of 2).
 */
static inline void patch16(struct frame *f, unsigned int off, __u16 host)
{
	__be16 v = htons(host);

	memcpy(f->data + off, &v, sizeof(v));
}

/* Set the IP length fields (and IPv4 checksum) from the frame's length. */
static inline void ip_done(struct frame *f)
{
	const unsigned char *p = f->data + f->l3;
	unsigned int i, hlen = (p[0] & 0xf) * 4;
	__u32 sum = 0;

	if (f->family == AF_INET6) {
		patch16(f, f->l3 + offsetof(struct ipv6hdr, payload_len),
			f->len - f->l3 - sizeof(struct ipv6hdr));
		return;
	}
	patch16(f, f->l3 + offsetof(struct iphdr, tot_len), f->len - f->l3);
	patch16(f, f->l3 + offsetof(struct iphdr, check), 0);
	for (i = 0; i < hlen; i += 2)
		sum += p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	patch16(f, f->l3 + offsetof(struct iphdr, check), ~sum & 0xffff);
}

/* IPv4 header of @ihl words + ICMP echo request. */
static inline void put_ipv4(struct frame *f, const char *saddr,
			    unsigned int ihl)
{
	put_ip4(f, saddr, ihl, 0);
	put_icmp(f, IPPROTO_ICMP, 8);
	ip_done(f);
}

/* IPv6 header + ICMPv6 echo request. */
static inline void put_ipv6(struct frame *f, const char *saddr)
{
	put_ip6(f, saddr, 64);
	put_icmp(f, IPPROTO_ICMPV6, 128);
	ip_done(f);
}

/* Rewrite the IP header's version nibble. */
static inline void set_ip_version(struct frame *f, unsigned int version)
{
	f->data[f->l3] = (f->data[f->l3] & 0x0f) | version << 4;
}

/* Rewrite the IPv4 header's IHL nibble (checksum and options unchanged). */
static inline void set_ihl(struct frame *f, unsigned int ihl)
{
	f->data[f->l3] = (f->data[f->l3] & 0xf0) | ihl;
}

static inline struct frame frame4(const char *saddr, unsigned int ihl)
{
	struct frame f = { .len = 0 };

	put_eth(&f, NULL, 0, ETH_P_IP);
	put_ipv4(&f, saddr, ihl);
	return f;
}

static inline struct frame frame6(const char *saddr)
{
	struct frame f = { .len = 0 };

	put_eth(&f, NULL, 0, ETH_P_IPV6);
	put_ipv6(&f, saddr);
	return f;
}

static inline struct frame frame_arp(void)
{
	unsigned char arp[28] = { 0, 1, 8, 0, 6, 4, 0, 1 };	/* request */
	struct frame f = { .len = 0 };

	put_eth(&f, NULL, 0, ETH_P_ARP);
	put(&f, arp, sizeof(arp));
	return f;
}

#endif /* __XDP_PACKETS_H */
