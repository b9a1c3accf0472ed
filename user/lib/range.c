// SPDX-License-Identifier: GPL-2.0
/*
 * An address range lo-hi as the minimal list of CIDR prefixes: from lo
 * upwards, each prefix is the largest block that starts at the current
 * address (its host bits are zero there) and does not pass hi. This is
 * the classic greedy split; it is minimal because every block it takes is
 * maximal at its start. Pure: no allocation, no I/O, shared by cfctl and
 * the geoip helper.
 */
#include <errno.h>
#include <string.h>

#include "lib/range.h"

/* The longest address: IPv6. */
#define ADDR_MAX	16

/* Whether bit @i (0 = most significant) of @a is set. */
static int bit(const uint8_t *a, unsigned int i)
{
	return a[i / 8] >> (7 - i % 8) & 1;
}

/* Bits @from.. of @a (@alen bytes) all zero? */
static int tail_zero(const uint8_t *a, unsigned int alen, unsigned int from)
{
	unsigned int i;

	for (i = from; i < alen * 8; i++)
		if (bit(a, i))
			return 0;
	return 1;
}

/* Sets bits @from.. of @a to @v. */
static void set_tail(uint8_t *a, unsigned int alen, unsigned int from, int v)
{
	unsigned int i;

	for (i = from; i < alen * 8; i++) {
		if (v)
			a[i / 8] |= 0x80 >> (i % 8);
		else
			a[i / 8] &= ~(0x80 >> (i % 8));
	}
}

/* Adds one to @a, which is not the last address of its space. */
static void increment(uint8_t *a, unsigned int alen)
{
	unsigned int i = alen;

	while (i-- && !++a[i])
		;
}

/**
 * range_split() - cover lo-hi with the fewest CIDR prefixes
 * @lo:   first address of the range, network byte order
 * @hi:   last address of the range (inclusive), same length as @lo
 * @alen: bytes per address: 4 (IPv4) or 16 (IPv6)
 * @emit: called once per prefix, lowest first, with its address (host
 *        bits zero) and its length in bits; a nonzero return stops the
 *        split and is returned
 * @arg:  passed to @emit
 *
 * lo == hi gives one full-length prefix; the whole space gives one /0.
 *
 * Return: 0 once every prefix was emitted, -EINVAL if @alen is not 4 or
 * 16 or @lo is above @hi, or what @emit returned.
 */
int range_split(const uint8_t *lo, const uint8_t *hi, unsigned int alen,
		int (*emit)(const uint8_t *addr, unsigned int len, void *arg),
		void *arg)
{
	uint8_t cur[ADDR_MAX], last[ADDR_MAX];
	unsigned int len;
	int ret;

	if ((alen != 4 && alen != 16) || memcmp(lo, hi, alen) > 0)
		return -EINVAL;
	memcpy(cur, lo, alen);
	for (;;) {
		/*
		 * The shortest prefix at cur whose host bits cur has zero
		 * and whose last address does not pass hi.
		 */
		for (len = 0; len < alen * 8; len++) {
			if (!tail_zero(cur, alen, len))
				continue;
			memcpy(last, cur, alen);
			set_tail(last, alen, len, 1);
			if (memcmp(last, hi, alen) <= 0)
				break;
		}
		ret = emit(cur, len, arg);
		if (ret)
			return ret;
		memcpy(last, cur, alen);
		set_tail(last, alen, len, 1);
		if (!memcmp(last, hi, alen))
			return 0;
		/* last < hi, so the next address exists. */
		memcpy(cur, last, alen);
		increment(cur, alen);
	}
}

/*
 * Out of line on purpose: inlined into a kselftest harness test body, which
 * setjmp()s, the 128-bit accumulator draws -Wclobbered.
 */
unsigned __int128 range_addr_num(const uint8_t *a, unsigned int alen)
{
	unsigned __int128 v = 0;
	unsigned int i;

	for (i = 0; i < alen; i++)
		v = v << 8 | a[i];
	return v;
}

void range_addr_bytes(unsigned __int128 v, uint8_t *a, unsigned int alen)
{
	unsigned int i;

	for (i = alen; i-- > 0; v >>= 8)
		a[i] = (uint8_t)v;
}
