// SPDX-License-Identifier: GPL-2.0
/* The frames of each traffic and the addresses they come from. */
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "lib/range.h"
#include "xdp_bench.h"

/* A UDP datagram from @saddr (4 bytes, network order), padded to FRAME4_LEN. */
static void build_frame4(unsigned char *f, const uint8_t *saddr)
{
	static const unsigned char head[] = {
		0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02, 0x08, 0x00,
		0x45, 0, 0, 28, 0, 0, 0, 0, 64, 17, 0, 0,
	};
	uint32_t d = htonl(0xc0000201);	/* 192.0.2.1 */

	memset(f, 0, FRAME4_LEN);
	memcpy(f, head, sizeof(head));
	memcpy(f + 26, saddr, 4);
	memcpy(f + 30, &d, 4);
	f[34] = 40000 >> 8;
	f[35] = 40000 & 0xff;
	f[37] = 53;
	f[39] = 8;	/* UDP length */
}

/* A UDP datagram from @saddr (16 bytes, network order): FRAME6_LEN bytes. */
static void build_frame6(unsigned char *f, const uint8_t *saddr)
{
	static const unsigned char head[] = {
		0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02, 0x86, 0xdd,
		0x60, 0, 0, 0, 0, 8, 17, 64,	/* payload 8 bytes, UDP */
	};
	static const unsigned char daddr[16] = {	/* 2001:db8::1 */
		0x20, 0x01, 0x0d, 0xb8, [15] = 1,
	};

	memset(f, 0, FRAME6_LEN);
	memcpy(f, head, sizeof(head));
	memcpy(f + 22, saddr, 16);
	memcpy(f + 38, daddr, 16);
	f[54] = 40000 >> 8;
	f[55] = 40000 & 0xff;
	f[57] = 53;
	f[59] = 8;	/* UDP length */
}

/* A UDP datagram from @saddr, @alen bytes in network order. */
void build_frame(unsigned char *f, const uint8_t *saddr, unsigned int alen)
{
	if (alen == 4)
		build_frame4(f, saddr);
	else
		build_frame6(f, saddr);
}

/* A random address of 2000::/3, where IPv6 unicast is given out. */
u128 rnd_unicast6(void)
{
	return rnd128() >> 3 | (u128)1 << 125;
}

/*
 * @n distinct random addresses of @alen bytes, sorted: IPv4 ones none of
 * them 0, IPv6 ones in 2000::/3.
 */
u128 *random_addrs(size_t n, unsigned int alen)
{
	u128 *v = xcalloc(n, sizeof(*v));
	size_t have = 0, i, j;

	while (have < n) {
		for (i = have; i < n; i++)
			v[i] = alen == 4 ? (uint32_t)rnd() | 1 : rnd_unicast6();
		sort_u128(v, n);
		for (i = j = 0; i < n; i++)
			if (!j || v[i] != v[j - 1])
				v[j++] = v[i];
		have = j;
	}
	return v;
}

unsigned char *frames_alloc(unsigned int n, unsigned int len)
{
	return xcalloc(n, len);
}

static bool in_ranges(const struct range *r, size_t n, u128 a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a < r[mid].lo)
			hi = mid;
		else if (a > r[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

/* Where traffic picks its addresses from: ranges, with their weights. */
struct picker {
	const struct range	*r;
	size_t			nr;
	u128			*cum;
	u128			total;
	unsigned int		alen;
};

/*
 * IPv4: uniform over the ranges' addresses; IPv6: a range picked
 * uniformly, then uniform inside it (uniform over the addresses, every
 * IPv6 address would come from the few largest ranges).
 */
static void picker_init(struct picker *pk, const struct range *r, size_t nr,
			unsigned int alen)
{
	size_t k;

	pk->r = r;
	pk->nr = nr;
	pk->alen = alen;
	pk->cum = xcalloc(nr, sizeof(*pk->cum));
	pk->total = 0;
	for (k = 0; k < nr; k++) {
		pk->total += alen == 4 ? r[k].hi - r[k].lo + 1 : 1;
		pk->cum[k] = pk->total;
	}
}

static u128 pick(const struct picker *pk)
{
	u128 x = rnd128() % pk->total, size;
	size_t lo, hi;

	for (lo = 0, hi = pk->nr - 1; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (pk->cum[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	size = pk->r[lo].hi - pk->r[lo].lo + 1;
	if (pk->alen == 4)
		return pk->r[lo].lo + (x - (pk->cum[lo] - size));
	return pk->r[lo].lo + (size ? rnd128() % size : rnd128());
}

/*
 * Hit traffic: picked from the ranges (see picker_init()). Miss traffic:
 * picked the same way from @miss (@nm ranges: other countries', where
 * traffic that must pass comes from), or, with none, uniform over IPv4 or
 * over IPv6's global unicast 2000::/3 (mostly space nobody is given);
 * either way outside the ranges. Frames into @w, addresses into @t.
 */
void geo_traffic(struct workload *w, struct geo_traffic *t,
		 const struct range *r, size_t nr,
		 const struct range *miss, size_t nm, unsigned int alen)
{
	struct picker hits, misses;
	unsigned int i, tr;
	uint8_t *b;
	u128 a;

	picker_init(&hits, r, nr, alen);
	if (nm)
		picker_init(&misses, miss, nm, alen);
	for (tr = 0; tr < NTRAFFIC; tr++) {
		w->frames[tr] = frames_alloc(w->nframes, w->frame_len);
		t->addr[tr] = xcalloc(w->nframes, alen);
	}
	for (i = 0; i < w->nframes; i++) {
		for (tr = 0; tr < NTRAFFIC; tr++) {
			do {
				if (tr == HIT)
					a = pick(&hits);
				else if (nm)
					a = pick(&misses);
				else
					a = alen == 4 ? (u128)(uint32_t)rnd() :
					    rnd_unicast6();
			} while (tr == MISS && in_ranges(r, nr, a));
			b = t->addr[tr] + (size_t)i * alen;
			range_addr_bytes(a, b, alen);
			build_frame(w->frames[tr] + (size_t)i * w->frame_len,
				    b, alen);
		}
	}
	free(hits.cum);
	if (nm)
		free(misses.cum);
}
