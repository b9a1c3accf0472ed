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

static void put(struct frame *f, const void *src, size_t n)
{
	if (f->len + n > sizeof(f->data))
		abort();
	memcpy(f->data + f->len, src, n);
	f->len += n;
}

static void put16(struct frame *f, __u16 host)
{
	__be16 v = htons(host);

	put(f, &v, sizeof(v));
}

static void put_zeros(struct frame *f, size_t n)
{
	static const unsigned char zeros[sizeof(((struct frame *)0)->data)];

	put(f, zeros, n);
}

/* Start a header of protocol @proto: name it in the previous header. */
static void start_hdr(struct frame *f, __u8 proto)
{
	if (!f->family)
		abort();
	f->data[f->next] = proto;
	f->l4 = f->len;
}

/* Ethernet header with one tag per entry of @tpids, then @proto. */
static void put_eth(struct frame *f, const __u16 *tpids, int ntags,
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
static void put_ip4(struct frame *f, const char *saddr, unsigned int ihl,
		    __u16 frag_off)
{
	unsigned char hdr[60] = { 0 };
	struct iphdr *iph = (struct iphdr *)hdr;
	unsigned int hlen = ihl * 4;

	iph->version = 4;
	iph->ihl = ihl;
	iph->ttl = 64;
	iph->frag_off = htons(frag_off);
	if (inet_pton(AF_INET, saddr, &iph->saddr) != 1 ||
	    inet_pton(AF_INET, IPV4_DADDR, &iph->daddr) != 1)
		abort();
	if (hlen > sizeof(*iph))
		memset(hdr + sizeof(*iph), IPOPT_NOP, hlen - sizeof(*iph));
	f->family = AF_INET;
	f->l3 = f->len;
	f->l4 = f->len;
	f->next = f->len + offsetof(struct iphdr, protocol);
	put(f, hdr, hlen);
}

static void put_ip6(struct frame *f, const char *saddr, __u8 hop_limit)
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
static void put_ext6(struct frame *f, __u8 type, __u8 hdrlen)
{
	start_hdr(f, type);
	f->next = f->len;
	put16(f, hdrlen);	/* next header (patched later), hdrlen */
	put_zeros(f, (hdrlen + 1) * 8 - 2);
}

/* IPv6 fragment header; @offset in bytes (a multiple of 8). */
static void put_frag6(struct frame *f, unsigned int offset, int more)
{
	start_hdr(f, IPPROTO_FRAGMENT);
	f->next = f->len;
	put16(f, 0);		/* next header (patched later), reserved */
	put16(f, offset | !!more);
	put(f, "\0\0\x12\x34", 4);	/* identification */
}

/* TCP header of @doff words (NOP options past 5), ports 40000 -> 80. */
static void put_tcp(struct frame *f, unsigned int doff)
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

static void put_udp(struct frame *f)
{
	start_hdr(f, IPPROTO_UDP);
	put16(f, 40000);
	put16(f, 53);
	put16(f, UDP_HLEN);
	put16(f, 0);
}

/* ICMP (IPPROTO_ICMP) or ICMPv6 (IPPROTO_ICMPV6) header of @type. */
static void put_icmp(struct frame *f, __u8 proto, __u8 type)
{
	start_hdr(f, proto);
	put16(f, type << 8);	/* type, code 0 */
	put_zeros(f, ICMP_HLEN - 2);
}

/* A protocol the parser stops at (AH, ESP, ...), with @n bytes of it. */
static void put_opaque(struct frame *f, __u8 proto, size_t n)
{
	start_hdr(f, proto);
	put_zeros(f, n);
}

/* Set the IP length fields (and IPv4 checksum) from the frame's length. */
static void ip_done(struct frame *f)
{
	struct ipv6hdr *ip6h = (struct ipv6hdr *)(f->data + f->l3);
	struct iphdr *iph = (struct iphdr *)(f->data + f->l3);
	const unsigned char *p = f->data + f->l3;
	__u32 sum = 0;
	unsigned int i;

	if (f->family == AF_INET6) {
		ip6h->payload_len = htons(f->len - f->l3 - sizeof(*ip6h));
		return;
	}
	iph->tot_len = htons(f->len - f->l3);
	iph->check = 0;
	for (i = 0; i < iph->ihl * 4u; i += 2)
		sum += p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	iph->check = htons(~sum & 0xffff);
}

/* IPv4 header of @ihl words + ICMP echo request. */
static void put_ipv4(struct frame *f, const char *saddr, unsigned int ihl)
{
	put_ip4(f, saddr, ihl, 0);
	put_icmp(f, IPPROTO_ICMP, 8);
	ip_done(f);
}

/* IPv6 header + ICMPv6 echo request. */
static void put_ipv6(struct frame *f, const char *saddr)
{
	put_ip6(f, saddr, 64);
	put_icmp(f, IPPROTO_ICMPV6, 128);
	ip_done(f);
}

static struct frame frame4(const char *saddr, unsigned int ihl)
{
	struct frame f = { .len = 0 };

	put_eth(&f, NULL, 0, ETH_P_IP);
	put_ipv4(&f, saddr, ihl);
	return f;
}

static struct frame frame6(const char *saddr)
{
	struct frame f = { .len = 0 };

	put_eth(&f, NULL, 0, ETH_P_IPV6);
	put_ipv6(&f, saddr);
	return f;
}

static struct frame frame_arp(void)
{
	unsigned char arp[28] = { 0, 1, 8, 0, 6, 4, 0, 1 };	/* request */
	struct frame f = { .len = 0 };

	put_eth(&f, NULL, 0, ETH_P_ARP);
	put(&f, arp, sizeof(arp));
	return f;
}

#endif /* __XDP_PACKETS_H */
