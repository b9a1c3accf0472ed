/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reference reading of a frame for pkt_fuzz.c, written apart from the
 * BPF parser (bpf/cfilter_parse.h) and more plainly: offsets into a byte
 * array, every length checked against the frame and the datagram. It says
 * only what a frame proves: the addresses once an IP header is whole, the
 * ports once their 4 bytes are in the datagram and the frame, and whether
 * every header the program reads is whole and within the bounds of the
 * UAPI (CFILTER_MAX_VLAN_TAGS, CFILTER_MAX_EXT_HDRS).
 */
#ifndef CFILTER_SELFTESTS_REF_PARSE_H
#define CFILTER_SELFTESTS_REF_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/cfilter.h>

struct ref {
	bool		ip;		/* the addresses are valid */
	bool		ports;		/* sport and dport are valid */
	bool		whole;		/* nothing cut, too deep or hidden */
	bool		nd;		/* IPv6 Neighbor Discovery (exempt) */
	int		family;		/* 4 or 6 */
	uint8_t		proto;
	uint8_t		saddr[16];
	uint16_t	sport, dport;	/* host order */
};

static inline unsigned int ref_be16(const uint8_t *p)
{
	return p[0] << 8 | p[1];
}

/* TCP, UDP, ICMP(v6) at @off, ending at @end: ports or type if there. */
static inline void ref_l4(struct ref *r, const uint8_t *p, size_t off,
			  size_t end, bool first_frag, unsigned int hop)
{
	bool icmp = (r->proto == 1 && r->family == 4) ||
		    (r->proto == 58 && r->family == 6);

	if (r->proto == 6 || r->proto == 17) {
		if (off + 4 > end)
			return;		/* cut, or a first fragment hiding them */
		r->ports = true;
		r->sport = ref_be16(p + off);
		r->dport = ref_be16(p + off + 2);
	} else if (icmp) {
		if (off + 2 > end)
			return;
		r->ports = true;
		r->sport = p[off];
		r->dport = 0;
		r->nd = r->family == 6 && p[off] >= 133 && p[off] <= 137 &&
			hop == 255 && !first_frag;
	}
	r->whole = true;
}

static inline void ref_ipv4(struct ref *r, const uint8_t *p, size_t off,
			    size_t len)
{
	unsigned int ihl, tot, frag;
	size_t end;

	if (off + 20 > len || p[off] >> 4 != 4 || (p[off] & 15) < 5)
		return;
	ihl = (p[off] & 15) * 4;
	tot = ref_be16(p + off + 2);
	if (tot < ihl)
		return;
	r->ip = true;
	r->family = 4;
	r->proto = p[off + 9];
	memcpy(r->saddr, p + off + 12, 4);
	end = off + tot < len ? off + tot : len;
	if (off + ihl > end)
		return;
	frag = ref_be16(p + off + 6);
	if (frag & 0x1fff) {	/* a later fragment: nothing more to read */
		r->whole = true;
		return;
	}
	ref_l4(r, p, off + ihl, end, frag & 0x2000, 0);
}

static inline void ref_ipv6(struct ref *r, const uint8_t *p, size_t off,
			    size_t len)
{
	unsigned int plen, hop, n = 0, next, frag, hlen;
	bool first_frag = false;
	size_t end;

	if (off + 40 > len || p[off] >> 4 != 6)
		return;
	r->ip = true;
	r->family = 6;
	memcpy(r->saddr, p + off + 8, 16);
	plen = ref_be16(p + off + 4);
	next = p[off + 6];
	hop = p[off + 7];
	/* payload_len 0 before hop-by-hop: a jumbogram, bounded by the frame */
	end = !plen && next == 0 ? len :
	      (off + 40 + plen < len ? off + 40 + plen : len);
	off += 40;
	while (next == 0 || next == 43 || next == 60 || next == 44) {
		if (n++ == CFILTER_MAX_EXT_HDRS)
			return;		/* too deep */
		if (next == 44) {
			if (off + 8 > end)
				return;
			frag = ref_be16(p + off + 2);
			next = p[off];
			off += 8;
			if (frag & 0xfff8) {
				r->whole = true;	/* a later fragment */
				return;
			}
			first_frag = frag & 1;
			continue;
		}
		if (off + 2 > end)
			return;
		hlen = (p[off + 1] + 1) * 8;
		if (off + hlen > end)
			return;
		next = p[off];
		off += hlen;
	}
	r->proto = next;
	ref_l4(r, p, off, end, first_frag, hop);
}

/* What @len bytes of frame @p prove. */
static inline void ref_parse(const uint8_t *p, size_t len, struct ref *r)
{
	unsigned int type, tags = 0;
	size_t off = 14;

	memset(r, 0, sizeof(*r));
	if (len < 14)
		return;
	type = ref_be16(p + 12);
	while (type == 0x8100 || type == 0x88a8) {
		if (tags++ == CFILTER_MAX_VLAN_TAGS || off + 4 > len)
			return;
		type = ref_be16(p + off + 2);
		off += 4;
	}
	if (type == 0x0800)
		ref_ipv4(r, p, off, len);
	else if (type == 0x86dd)
		ref_ipv6(r, p, off, len);
}

#endif /* CFILTER_SELFTESTS_REF_PARSE_H */
