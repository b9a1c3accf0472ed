// SPDX-License-Identifier: GPL-2.0
/*
 * Key types: how a struct cfilter_key (40 bytes, the UAPI and BPF form)
 * becomes the few bytes its type's tables store, and back.
 *
 * Each key type has its own tables, so the type is implied by the table and
 * a packed key holds only what the type uses: 4 bytes for an IPv4 address,
 * 16 for an IPv6 one, 13 and 37 for the flows (proto, saddr, daddr, sport,
 * dport). Packing is also the validation: a key whose unused fields
 * are not all zero is refused, so that one logical key has exactly one byte
 * representation and an added key is the one the XDP program looks up.
 */
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/limits.h>
#include <linux/types.h>

#include "cfilter_int.h"

/* Is each of @len bytes at @p zero? Inlined with a constant @len. */
static __always_inline bool cfilter_zero(const u8 *p, unsigned int len)
{
	u8 acc = 0;
	unsigned int i;

	for (i = 0; i < len; i++)
		acc |= p[i];
	return !acc;
}

/*
 * Are the bits of @addr (@alen bytes) past the first @len all zero? A
 * prefix has one representation: 192.0.2.0/24, never 192.0.2.7/24.
 */
static bool cfilter_host_bits_zero(const u8 *addr, unsigned int alen,
				   unsigned int len)
{
	unsigned int i = len / 8;

	if (len % 8 && (addr[i++] & (0xff >> (len % 8))))
		return false;
	return cfilter_zero(addr + i, alen - i);
}

/*
 * An address key uses @alen bytes of saddr (@dst false) or of daddr (@dst
 * true) and a prefix length of 0 to 8 * @alen (the full length: a single
 * address); every other field must be zero.
 */
static int cfilter_addr_pack(const struct cfilter_key *key, u8 *out, u32 *len,
			     unsigned int alen, bool dst)
{
	const u8 *used = dst ? key->daddr : key->saddr;
	const u8 *unused = dst ? key->saddr : key->daddr;

	if (key->prefix_len > alen * 8 || key->proto || key->pad ||
	    key->sport || key->dport || !cfilter_zero(used + alen, 16 - alen) ||
	    !cfilter_zero(unused, 16) ||
	    !cfilter_host_bits_zero(used, alen, key->prefix_len))
		return -EINVAL;
	memcpy(out, used, alen);
	*len = key->prefix_len;
	return 0;
}

static void cfilter_addr_unpack(const u8 *in, u32 len, struct cfilter_key *key,
				u8 type, unsigned int alen, bool dst)
{
	memset(key, 0, sizeof(*key));
	key->type = type;
	key->prefix_len = len;
	memcpy(dst ? key->daddr : key->saddr, in, alen);
}

/*
 * TCP and UDP flows are matched by ports, ICMP and ICMPv6 ones by type,
 * which sport holds; each ICMP protocol only in its own IP version.
 */
static bool cfilter_flow_l4_ok(const struct cfilter_key *key, bool v6)
{
	switch (key->proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
		return true;
	case IPPROTO_ICMP:
		if (v6)
			return false;
		break;
	case IPPROTO_ICMPV6:
		if (!v6)
			return false;
		break;
	default:
		return false;
	}
	return !key->dport && ntohs(key->sport) <= U8_MAX;
}

/* Flows are exact 5-tuples: always the full length. */
static int cfilter_flow_pack(const struct cfilter_key *key, u8 *out, u32 *len,
			     unsigned int alen)
{
	if (key->prefix_len != alen * 8 || key->pad ||
	    !cfilter_flow_l4_ok(key, alen == 16) ||
	    !cfilter_zero(key->saddr + alen, 16 - alen) ||
	    !cfilter_zero(key->daddr + alen, 16 - alen))
		return -EINVAL;
	cfilter_flow_pack_fields(out, key->proto, key->saddr, key->daddr,
				 key->sport, key->dport, alen);
	*len = alen * 8;
	return 0;
}

static void cfilter_flow_unpack(const u8 *in, u32 len, struct cfilter_key *key,
				u8 type, unsigned int alen)
{
	memset(key, 0, sizeof(*key));
	key->type = type;
	key->prefix_len = alen * 8;
	key->proto = in[0];
	memcpy(key->saddr, in + 1, alen);
	memcpy(key->daddr, in + 1 + alen, alen);
	memcpy(&key->sport, in + 1 + 2 * alen, 2);
	memcpy(&key->dport, in + 3 + 2 * alen, 2);
}

/**
 * cfilter_key_pack() - a key as its type's tables store it
 * @f:   the key's type
 * @key: the key
 * @out: room for @f->key_len bytes
 * @len: set to its prefix length
 *
 * Checks that @key has this type's shape (every field the type does not
 * use is zero; a prefix has no bits set past its length) and copies the
 * bytes it uses.
 *
 * Return: 0, or -EINVAL for a malformed key.
 */
int cfilter_key_pack(const struct cfilter_ktype *f,
		     const struct cfilter_key *key, u8 *out, u32 *len)
{
	if (f->addr_len)
		return cfilter_addr_pack(key, out, len, f->addr_len, f->dst);
	return cfilter_flow_pack(key, out, len, f->flow_alen);
}

/* The inverse of cfilter_key_pack(): the key @in (length @len) came from. */
void cfilter_key_unpack(const struct cfilter_ktype *f, const u8 *in, u32 len,
			struct cfilter_key *key)
{
	u8 type = cfilter_ktype_type(f);

	if (f->addr_len)
		cfilter_addr_unpack(in, len, key, type, f->addr_len, f->dst);
	else
		cfilter_flow_unpack(in, len, key, type, f->flow_alen);
}

const struct cfilter_ktype cfilter_ktypes[__CFILTER_KEY_MAX] = {
	[CFILTER_KEY_SRC4] = {
		.name = "src4", .key_len = 4, .addr_len = 4,
	},
	[CFILTER_KEY_SRC6] = {
		.name = "src6", .key_len = 16, .addr_len = 16,
	},
	[CFILTER_KEY_DST4] = {
		.name = "dst4", .key_len = 4, .addr_len = 4, .dst = true,
	},
	[CFILTER_KEY_DST6] = {
		.name = "dst6", .key_len = 16, .addr_len = 16, .dst = true,
	},
	[CFILTER_KEY_FLOW4] = {
		.name = "flow4", .key_len = CFILTER_FLOW_LEN(4),
		.flow_alen = 4,
	},
	[CFILTER_KEY_FLOW6] = {
		.name = "flow6", .key_len = CFILTER_FLOW_LEN(16),
		.flow_alen = 16,
	},
	[CFILTER_KEY_ALLOW4] = {
		.name = "allow4", .key_len = 4, .addr_len = 4,
	},
	[CFILTER_KEY_ALLOW6] = {
		.name = "allow6", .key_len = 16, .addr_len = 16,
	},
};
