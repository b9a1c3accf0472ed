// SPDX-License-Identifier: GPL-2.0
/*
 * Key families: how a struct cfilter_key (40 bytes, the UAPI and BPF form)
 * becomes the few bytes its family's filter stores, and back.
 *
 * Each key type has its own filter, so the type is implied by the filter and
 * a packed key holds only what the type uses: 4 bytes for an IPv4 source, 16
 * for an IPv6 one. Packing is also the validation: a key whose unused fields
 * are not all zero is refused, so that one logical key has exactly one byte
 * representation and an added key is the one the XDP program looks up.
 */
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>

#include "cfilter.h"

/*
 * Do the fields a source address key leaves unused hold only zeros? The key
 * uses @alen bytes of saddr. Inlined with a constant @alen, this is a few
 * loads and ORs: the kfunc runs it for every packet.
 */
static __always_inline bool cfilter_addr_rest_zero(const struct cfilter_key *key,
						   unsigned int alen)
{
	u8 acc = 0;
	unsigned int i;

	if (key->proto || key->pad || key->sport || key->dport)
		return false;
	for (i = alen; i < sizeof(key->saddr); i++)
		acc |= key->saddr[i];
	for (i = 0; i < sizeof(key->daddr); i++)
		acc |= key->daddr[i];
	return !acc;
}

static __always_inline int cfilter_addr_pack(const struct cfilter_key *key,
					     u8 *out, unsigned int alen)
{
	if (key->prefix_len != alen * 8 || !cfilter_addr_rest_zero(key, alen))
		return -EINVAL;
	memcpy(out, key->saddr, alen);
	return 0;
}

static void cfilter_addr_unpack(const u8 *in, struct cfilter_key *key,
				u8 type, unsigned int alen)
{
	memset(key, 0, sizeof(*key));
	key->type = type;
	key->prefix_len = alen * 8;
	memcpy(key->saddr, in, alen);
}

static int cfilter_src4_pack(const struct cfilter_key *key, u8 *out)
{
	return cfilter_addr_pack(key, out, 4);
}

static void cfilter_src4_unpack(const u8 *in, struct cfilter_key *key)
{
	cfilter_addr_unpack(in, key, CFILTER_KEY_SRC4, 4);
}

static int cfilter_src6_pack(const struct cfilter_key *key, u8 *out)
{
	return cfilter_addr_pack(key, out, 16);
}

static void cfilter_src6_unpack(const u8 *in, struct cfilter_key *key)
{
	cfilter_addr_unpack(in, key, CFILTER_KEY_SRC6, 16);
}

/* The filters are created in cfilter_init() and never replaced after it. */
struct cfilter_family cfilter_families[__CFILTER_KEY_MAX] __ro_after_init = {
	[CFILTER_KEY_SRC4] = {
		.name		= "src4",
		.key_len	= 4,
		.pack		= cfilter_src4_pack,
		.unpack		= cfilter_src4_unpack,
	},
	[CFILTER_KEY_SRC6] = {
		.name		= "src6",
		.key_len	= 16,
		.pack		= cfilter_src6_pack,
		.unpack		= cfilter_src6_unpack,
	},
};
