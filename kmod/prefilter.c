// SPDX-License-Identifier: GPL-2.0
/*
 * The programs' prefilter (struct cfilter_prefilter in the UAPI), in BPF
 * maps the programs read before they call the kfunc: most traffic comes
 * from address space no key touches, and a bit test in the program costs
 * a fraction of the call. Per family:
 * - a bit per /16 of source addresses, and one per /16 of destination
 *   addresses: the head word test of the source (or destination) prefix
 *   set (prefix.h) for the /16, leaving out its addresses and its longer
 *   prefixes (IPv4 /17 to /31, IPv6 /32 on);
 * - the same two for those addresses (the head word's address flag), and
 *   for those longer prefixes (its class flags), with a copy of the
 *   summary's hashed bits of their blocks (IPv4 /24s, IPv6 /32s);
 * - hashed bits, two set per address (either family, source or
 *   destination), sized by the loader to the set it expects.
 * A packet calls the kfunc if its address's /16 bit is set, or both its
 * /16's address bit and its hashed bits are, or its /16's bit of longer
 * prefixes and its block's bit: most packets hash nothing. A fourth bitmap
 * per family, their union, lets most read one word.
 * Any flow key of a family sets every source /16 bit of that family: flows
 * are looked up by the whole 5-tuple, and the bits keep no count of their
 * sources. Allow entries set none; they only lift a drop. A compact table
 * keeps no addresses to hash: its set records the hashed bits of those
 * added (set.h), for maps of their size (cfilter_config.prefilter_bits,
 * which cfctl asks for); in a map of another size, or once a RESTORE
 * brought addresses no add recorded, every hashed bit is set, so that an
 * address calls unless the program's mirror of the table (mirror.c)
 * settles it.
 *
 * The maps are written under cfilter_lock, after every change to the live
 * set (source.c calls in), word by word with WRITE_ONCE(). What a packet sees:
 * - an add sets its bits after the key is published, before the ioctl
 *   returns; a delete clears the /16 bits after the key is gone;
 * - a hashed bit is shared by the addresses hashed to it: a delete leaves
 *   it, and once deletes have left enough such bits behind, the hashed bits
 *   are made again from the live set's addresses (cfilter_pf_hash_fill());
 * - a swap ORs the new set's bits in before the pointer moves, and makes
 *   them exact once the old set's readers are done (cfilter_live_retire);
 * so a bit is never clear while the set a packet would meet may drop it.
 *
 * Each loaded program has its own map (cfctl hands it over after the
 * load); a map only the module still holds is dropped at the next
 * handover. Before a handover, or once the module lets a map go, its ready
 * word is 0 and the program calls the kfunc for every packet.
 */
#include <linux/bitops.h>
#include <linux/bpf.h>
#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include "cfilter_int.h"
#include "maps.h"
#include "mirror.h"
#include "prefilter.h"
#include "prefix.h"
#include "set.h"

#define CFILTER_PREFILTER_SLOTS	(CFILTER_PREFILTER_WORDS * 64)
/* Deletes a small set may leave behind before its hashed bits are made again. */
#define CFILTER_PREFILTER_STALE_MIN	256

/* Maps written, under cfilter_lock; the first cfilter_npf are in use. */
static struct bpf_map *cfilter_pf[CFILTER_PREFILTERS_MAX];
static unsigned int cfilter_npf;
/* Per bitmap, the prefix_set_always() of its set the bits were made with. */
static bool cfilter_pf_always[__CFILTER_PREFILTER_BITS];
/* Deletes of hashed addresses since the hashed bits were last made. */
static u64 cfilter_pf_stale;
/*
 * Per bitmap: more than half of the bits of its blocks set, as a set of
 * many blocks fills them, so that a test would spare a packet few calls:
 * the /16s' flags then set their @bits instead. Counted again with every
 * bitmap filled, and every CFILTER_PREFILTER_RECOUNT block words written.
 */
static bool cfilter_pf_full[__CFILTER_PREFILTER_BITS];
static u32 cfilter_pf_bwritten[__CFILTER_PREFILTER_BITS];
#define CFILTER_PREFILTER_RECOUNT	1024

/* The prefilter of the module's map @m (mirror.c writes its @mirror). */
static struct cfilter_prefilter *cfilter_pf_of(unsigned int m)
{
	return cfilter_map_value(cfilter_pf[m]);
}

/* Does the module keep prefilter map @map? Caller holds cfilter_lock. */
static bool cfilter_prefilter_kept(const struct bpf_map *map)
{
	unsigned int m;

	lockdep_assert_held(&cfilter_lock);
	for (m = 0; m < cfilter_npf; m++)
		if (cfilter_pf[m] == map)
			return true;
	return false;
}

/* The hashed words of @map: a power of two (cfilter_pf_shape_ok()). */
static u32 cfilter_pf_hwords(const struct bpf_map *map)
{
	return (map->value_size - sizeof(struct cfilter_prefilter)) / sizeof(u64);
}

/* The address type bitmap @b (enum cfilter_prefilter_bits) follows. */
static unsigned int cfilter_pf_type(unsigned int b)
{
	static const u8 types[__CFILTER_PREFILTER_BITS] = {
		[CFILTER_PREFILTER_SRC4] = CFILTER_KEY_SRC4,
		[CFILTER_PREFILTER_SRC6] = CFILTER_KEY_SRC6,
		[CFILTER_PREFILTER_DST4] = CFILTER_KEY_DST4,
		[CFILTER_PREFILTER_DST6] = CFILTER_KEY_DST6,
	};

	return types[b];
}

/* Are the addresses of @s, all of them, in hashed bits of @n words? */
static bool cfilter_pf_hashable(const struct cfilter_set *s, u32 n)
{
	return cfilter_config.mode == CFILTER_MODE_EXACT ||
	       (s->hashed && !s->hashed_lost &&
		n * 64 == cfilter_config.prefilter_bits);
}

/* Which members of a /16 may drop a packet: its bits in each bitmap. */
enum {
	CFILTER_PF_ANY		= BIT(0),	/* @bits: any packet of it calls */
	CFILTER_PF_ADDR		= BIT(1),	/* @addrs: an address */
	CFILTER_PF_LONGER	= BIT(2),	/* @longer: a prefix with blocks */
};

/* Is bitmap @b of IPv6 addresses? Its blocks are /32s, IPv4's /24s. */
static bool cfilter_pf_v6(unsigned int b)
{
	return cfilter_ktypes[cfilter_pf_type(b)].addr_len == 16;
}

/* What of @s may drop a packet whose address in bitmap @b lies in /16 @slot. */
static unsigned int cfilter_pf_slot(const struct cfilter_set *s,
				    unsigned int b, u32 slot)
{
	unsigned int t = cfilter_pf_type(b), k = 0;
	const struct prefix_set *p = s->pfx[t];

	/* A flow holds a source, but the bits keep no count of them. */
	if ((b == CFILTER_PREFILTER_SRC4 && s->types & BIT(CFILTER_KEY_FLOW4)) ||
	    (b == CFILTER_PREFILTER_SRC6 && s->types & BIT(CFILTER_KEY_FLOW6)))
		k |= CFILTER_PF_ANY;
	if (!(s->types & BIT(t)))
		return k;
	if (prefix_set_slot_unhashed(p, slot))
		k |= CFILTER_PF_ANY;
	if (prefix_set_slot_addrs(p, slot))
		k |= CFILTER_PF_ADDR;
	/*
	 * IPv6 prefixes of /17 to /31 hash /24s, each with many networks of
	 * their own: they call.
	 */
	if (prefix_set_slot_class(p, slot, PREFIX_CLASS_MID))
		k |= cfilter_pf_v6(b) || cfilter_pf_full[b] ? CFILTER_PF_ANY :
							      CFILTER_PF_LONGER;
	if (prefix_set_slot_class(p, slot, PREFIX_CLASS_DEEP) ||
	    prefix_set_slot_class(p, slot, PREFIX_CLASS_SUBNET))
		k |= cfilter_pf_full[b] ? CFILTER_PF_ANY : CFILTER_PF_LONGER;
	return k;
}

/*
 * Word @w of the blocks of bitmap @b as the summary of @s has them: IPv4
 * /24s, IPv6 /32s (of /32 to /63 and of /64 and longer, in one).
 */
static u32 cfilter_pf_block_word(const struct cfilter_set *s, unsigned int b,
				 u32 w)
{
	const struct prefix_set *p = s->pfx[cfilter_pf_type(b)];

	if (!cfilter_pf_v6(b))
		return prefix_set_class_word(p, PREFIX_CLASS_MID, w);
	return prefix_set_class_word(p, PREFIX_CLASS_DEEP, w) |
	       prefix_set_class_word(p, PREFIX_CLASS_SUBNET, w);
}

/* The maps copy the summary's hashed bits: the same hash, the same words. */
static_assert(CFILTER_PREFILTER_BLOCK_MUL == PREFIX_SUM_HASH &&
	      CFILTER_PREFILTER_BLOCK_WORDS == PREFIX_SUM_WORDS);

/* Counts cfilter_pf_full[@b] from @s: true if it changed. */
static bool cfilter_pf_count_full(const struct cfilter_set *s, unsigned int b)
{
	bool full;
	u32 w, n = 0;

	cfilter_pf_bwritten[b] = 0;
	for (w = 0; w < CFILTER_PREFILTER_BLOCK_WORDS; w++)
		n += hweight32(cfilter_pf_block_word(s, b, w));
	full = n > CFILTER_PREFILTER_BLOCK_WORDS * 32 / 2;
	if (full == cfilter_pf_full[b])
		return false;
	cfilter_pf_full[b] = full;
	return true;
}

/* Words @w (@n of them) of the blocks of bitmap @b in maps @m0 on; @or: added. */
static void cfilter_pf_store_blocks(const struct cfilter_set *s, unsigned int b,
				    const u32 *w, u32 n, bool or,
				    unsigned int m0)
{
	unsigned int m;
	u32 i, v;

	for (i = 0; i < n; i++) {
		v = cfilter_pf_block_word(s, b, w[i]);
		for (m = m0; m < cfilter_npf; m++) {
			u32 *word = &cfilter_pf_of(m)->blocks[b][w[i]];

			WRITE_ONCE(*word, or ? *word | v : v);
		}
	}
}

/*
 * Sets in @words (@n of them) the hashed bits of every address of @s: of
 * an exact table, from its addresses; of a compact one, its set's record,
 * if of that size (cfilter_pf_hashable()), else every bit: any address
 * may be held.
 */
static void cfilter_pf_hash_set(const struct cfilter_set *s, u64 *words, u32 n)
{
	/* 16 records of the longest address and its tag */
	u8 buf[16 * (16 + sizeof(u32))];
	unsigned int b;
	u32 i;

	if (cfilter_config.mode != CFILTER_MODE_EXACT) {
		for (i = 0; i < n; i++)
			words[i] |= cfilter_pf_hashable(s, n) ? s->hashed[i] :
								~0ULL;
		return;
	}
	for (b = 0; b < __CFILTER_PREFILTER_BITS; b++) {
		unsigned int t = cfilter_pf_type(b);
		u32 rec = cfilter_ktypes[t].addr_len + sizeof(u32);
		struct cuckoo *c;
		u64 pos = 0;
		long got, i;

		if (!(s->types & BIT(t)))
			continue;
		c = prefix_set_addrs(s->pfx[t]);
		while ((got = cuckoo_list(c, &pos, buf, sizeof(buf) / rec))) {
			if (got == -EAGAIN) {
				cond_resched();
				continue;
			}
			if (got < 0)
				break;
			for (i = 0; i < got; i++)
				cfilter_hashed_set(words, n, t, buf + i * rec);
			cond_resched();
		}
	}
}

/*
 * Makes the hashed bits of maps @m0 on exactly those of @s's addresses;
 * with @or, only adds them. A map no program reads yet (@ready 0) is
 * written in place; a read one through a copy, so that no bit a packet
 * needs is ever clear. Without memory for the copy its bits stay as they
 * are, a superset: the next rehash tries again.
 */
static void cfilter_pf_hash_fill(const struct cfilter_set *s, bool or,
				 unsigned int m0)
{
	unsigned int m;

	for (m = m0; m < cfilter_npf; m++) {
		struct cfilter_prefilter *pf = cfilter_pf_of(m);
		u32 n = cfilter_pf_hwords(cfilter_pf[m]), i;
		u64 *words;

		if (or) {
			cfilter_pf_hash_set(s, pf->hashed, n);
			continue;
		}
		if (!READ_ONCE(pf->ready)) {
			memset(pf->hashed, 0, n * sizeof(u64));
			cfilter_pf_hash_set(s, pf->hashed, n);
			continue;
		}
		words = kvcalloc(n, sizeof(u64), GFP_KERNEL_ACCOUNT);
		if (!words)
			return;
		cfilter_pf_hash_set(s, words, n);
		for (i = 0; i < n; i++)
			WRITE_ONCE(pf->hashed[i], words[i]);
		kvfree(words);
	}
	if (!or && m0 == 0)
		cfilter_pf_stale = 0;
}

/* @v into the bits @mask of word @w; @or keeps the bits there. */
static void cfilter_pf_put(__u64 *w, u64 mask, u64 v, bool or)
{
	WRITE_ONCE(*w, (or ? *w : *w & ~mask) | v);
}

/*
 * Writes the bits of slots @first..@first+@n-1 of bitmap @b, of its
 * addresses' and its longer prefixes' bitmaps, and of their union, in
 * maps @m0 on; @or keeps the bits there.
 */
static void cfilter_pf_store(const struct cfilter_set *s, unsigned int b,
			     u32 first, u32 n, bool or, unsigned int m0)
{
	while (n) {
		u32 at = first % 64, k = min(n, 64 - at), i, w = first / 64;
		u64 mask = (k == 64 ? ~0ULL : BIT_ULL(k) - 1) << at;
		u64 bits = 0, addrs = 0, longer = 0;
		unsigned int m, kinds;

		for (i = 0; i < k; i++) {
			kinds = cfilter_pf_slot(s, b, first + i);
			if (kinds & CFILTER_PF_ANY)
				bits |= BIT_ULL(at + i);
			if (kinds & CFILTER_PF_ADDR)
				addrs |= BIT_ULL(at + i);
			if (kinds & CFILTER_PF_LONGER)
				longer |= BIT_ULL(at + i);
		}
		for (m = m0; m < cfilter_npf; m++) {
			struct cfilter_prefilter *pf = cfilter_pf_of(m);

			cfilter_pf_put(&pf->bits[b][w], mask, bits, or);
			cfilter_pf_put(&pf->addrs[b][w], mask, addrs, or);
			cfilter_pf_put(&pf->longer[b][w], mask, longer, or);
			/* last: a packet it lets on finds the bits above */
			cfilter_pf_put(&pf->any[b][w], mask,
				       bits | addrs | longer, or);
		}
		first += k;
		n -= k;
	}
}

/* Every bit of bitmap @b in maps @m0 on: its blocks, then its /16s. */
static void cfilter_pf_fill_bits(const struct cfilter_set *s, unsigned int b,
				 bool or, unsigned int m0)
{
	u32 w[64], i;

	cfilter_pf_always[b] = prefix_set_always(s->pfx[cfilter_pf_type(b)]);
	cfilter_pf_count_full(s, b);
	for (i = 0; i < CFILTER_PREFILTER_BLOCK_WORDS; i++) {
		w[i % 64] = i;
		if (i % 64 == 63)
			cfilter_pf_store_blocks(s, b, w, 64, or, m0);
	}
	cfilter_pf_store(s, b, 0, CFILTER_PREFILTER_SLOTS, or, m0);
}

static void cfilter_pf_fill(const struct cfilter_set *s, bool or,
			    unsigned int m0)
{
	unsigned int b;

	for (b = 0; b < __CFILTER_PREFILTER_BITS; b++)
		cfilter_pf_fill_bits(s, b, or, m0);
	cfilter_pf_hash_fill(s, or, m0);
}

/* Addresses the live set's hashed bits hold, about (prefixes counted too). */
static u64 cfilter_pf_hashed_keys(const struct cfilter_set *s)
{
	u64 n = 0;
	unsigned int b;

	for (b = 0; b < __CFILTER_PREFILTER_BITS; b++)
		n += s->nkeys[cfilter_pf_type(b)];
	return n;
}

/**
 * cfilter_prefilter_changed() - the live set's type @t changed at @addr/@len
 * @s:    the live set, after the change; caller holds cfilter_lock
 * @t:    enum cfilter_key_type
 * @addr: the member's address (address types)
 * @len:  its prefix length in bits (address types)
 * @add:  the member came (true) or went
 */
void cfilter_prefilter_changed(const struct cfilter_set *s, unsigned int t,
			       const u8 *addr, u32 len, bool add)
{
	unsigned int b, m;
	u32 first, span;

	lockdep_assert_held(&cfilter_lock);
	if (!cfilter_npf)
		return;
	/* A hit in a mirror may drop only while no source is allowed. */
	if (t == CFILTER_KEY_ALLOW4 && s->nkeys[t] <= 1)
		cfilter_mirror_gate(s);
	if (t == CFILTER_KEY_FLOW4 || t == CFILTER_KEY_FLOW6) {
		/* Every source bit, when the type's first or last key came or went. */
		if (s->nkeys[t] <= 1)
			cfilter_pf_fill_bits(s, t == CFILTER_KEY_FLOW6 ?
					     CFILTER_PREFILTER_SRC6 :
					     CFILTER_PREFILTER_SRC4, false, 0);
		return;
	}
	/* The bitmap that follows @t; allow entries, which only lift a drop, have none. */
	for (b = 0; b < __CFILTER_PREFILTER_BITS && cfilter_pf_type(b) != t; b++)
		;
	if (b == __CFILTER_PREFILTER_BITS)
		return;
	if (len == 8 * cfilter_ktypes[t].addr_len) {
		if (add) {
			for (m = 0; m < cfilter_npf; m++)
				cfilter_hashed_set(cfilter_pf_of(m)->hashed,
						   cfilter_pf_hwords(cfilter_pf[m]),
						   t, addr);
		} else if (cfilter_config.mode == CFILTER_MODE_EXACT &&
			   ++cfilter_pf_stale > cfilter_pf_hashed_keys(s) / 2 +
			   CFILTER_PREFILTER_STALE_MIN) {
			/*
			 * Enough hashed bits may be left set by deletes alone that
			 * misses call for nothing: the bits again, each delete
			 * paying a part of it. (A compact set's record keeps
			 * them: there is nothing to make them again from.)
			 */
			cfilter_pf_hash_fill(s, false, 0);
		}
	}
	/*
	 * Every bit when the set's lookups start or stop searching whatever
	 * the head word says (a compact address table, a /0).
	 */
	if (prefix_set_always(s->pfx[t]) != cfilter_pf_always[b]) {
		cfilter_pf_fill_bits(s, b, false, 0);
		return;
	}
	/*
	 * A longer prefix's blocks before its /16's flags: a packet that sees
	 * the flag then finds an added prefix's bits; after a delete, a flag
	 * not yet cleared leads to bits where no member is left.
	 */
	if (len > 16 && len < 8 * cfilter_ktypes[t].addr_len) {
		u32 w[PREFIX_SUM_BLOCKS_MAX], c, n;

		n = prefix_set_member_words(s->pfx[t], addr, len, &c, w);
		/* IPv6 /17 to /31: the /16's bits alone (cfilter_pf_slot()) */
		if (cfilter_pf_v6(b) && c == PREFIX_CLASS_MID)
			n = 0;
		cfilter_pf_store_blocks(s, b, w, n, false, 0);
		cfilter_pf_bwritten[b] += n;
		if (cfilter_pf_bwritten[b] >= CFILTER_PREFILTER_RECOUNT &&
		    cfilter_pf_count_full(s, b)) {
			cfilter_pf_fill_bits(s, b, false, 0);
			return;
		}
	}
	/* The /16s the member spans: one, or all those under a short prefix. */
	span = len >= 16 ? 1 : 1U << (16 - len);
	first = ((u32)addr[0] << 8 | addr[1]) & ~(span - 1);
	cfilter_pf_store(s, b, first, span, false, 0);
}

/* A new live set (@s, before it is published): its bits join the old. */
void cfilter_prefilter_swap(const struct cfilter_set *s)
{
	lockdep_assert_held(&cfilter_lock);
	cfilter_pf_fill(s, true, 0);
}

/* The old set's readers are gone: the bits become the live set's. */
void cfilter_prefilter_settle(void)
{
	lockdep_assert_held(&cfilter_lock);
	cfilter_pf_fill(cfilter_live_locked(), false, 0);
}

/* Lets go of map @m: the programs that read it call the kfunc again. */
static void cfilter_pf_drop(unsigned int m)
{
	struct bpf_map *map = cfilter_pf[m];

	WRITE_ONCE(cfilter_pf_of(m)->ready, 0);
	cfilter_mirror_forget(map);
	cfilter_pf[m] = cfilter_pf[--cfilter_npf];
	bpf_map_put(map);
}

/* A map the programs can read as struct cfilter_prefilter, its only entry. */
static bool cfilter_pf_shape_ok(const struct bpf_map *map)
{
	u32 n;

	if (map->value_size <= sizeof(struct cfilter_prefilter) ||
	    map->value_size % sizeof(u64))
		return false;
	n = cfilter_pf_hwords(map);
	return cfilter_map_plain_array(map) &&
	       is_power_of_2(n) && n <= CFILTER_PREFILTER_HASHED_MAX &&
	       map->max_entries == 1;
}

/**
 * cfilter_prefilter_add() - keep the prefilter map @fd from now on
 * @fd: a BPF map descriptor of the caller
 *
 * Return: 0; -EBADF (a closed descriptor), -EPERM (a descriptor that may
 * not write the map, or a frozen map), -EINVAL (no BPF map, or one of
 * another shape or with fields the BPF core owns), -ENOSPC.
 */
int cfilter_prefilter_add(int fd)
{
	struct cfilter_prefilter *pf;
	struct bpf_map *map;
	unsigned int m;
	int err = 0;

	map = cfilter_map_get_writable(fd);
	if (IS_ERR(map))
		return PTR_ERR(map);
	if (!cfilter_pf_shape_ok(map)) {
		bpf_map_put(map);
		return -EINVAL;
	}
	pf = cfilter_map_value(map);
	mutex_lock(&cfilter_lock);
	/* Maps no program holds any more: only our reference is left. */
	for (m = 0; m < cfilter_npf;) {
		if (cfilter_pf[m] == map || atomic64_read(&cfilter_pf[m]->refcnt) == 1)
			cfilter_pf_drop(m);
		else
			m++;
	}
	if (cfilter_npf == CFILTER_PREFILTERS_MAX) {
		err = -ENOSPC;
		goto out;
	}
	cfilter_pf[cfilter_npf++] = map;
	WRITE_ONCE(pf->hmask, cfilter_pf_hwords(map) - 1);
	map = NULL;
	cfilter_pf_fill(cfilter_live_locked(), false, cfilter_npf - 1);
	/*
	 * The bits before the word that says they are kept. The program
	 * reads them at an address that depends on that word, so a CPU
	 * that reorders loads still reads them after it.
	 */
	smp_wmb();
	WRITE_ONCE(pf->ready, CFILTER_PREFILTER_READY);
out:
	mutex_unlock(&cfilter_lock);
	if (map)
		bpf_map_put(map);
	return err;
}

/**
 * cfilter_prefilter_add_mirror() - keep the mirror map @mirror_fd for the
 *                                  prefilter map @prefilter_fd from now on
 * @prefilter_fd: a descriptor of a prefilter map the module keeps
 * @mirror_fd:    a BPF map descriptor of the caller
 *
 * Return: 0; -EBADF, -EPERM (as cfilter_prefilter_add()); -EOPNOTSUPP
 * (the module keeps no mirror: exact mode, or fingerprints of 8 or 32
 * bits); -ENOENT (a prefilter map the module does not keep); -EINVAL (no
 * BPF map, or one of another shape).
 */
int cfilter_prefilter_add_mirror(int prefilter_fd, int mirror_fd)
{
	struct bpf_map *pf_map, *map;
	int err;

	pf_map = cfilter_map_get_writable(prefilter_fd);
	if (IS_ERR(pf_map))
		return PTR_ERR(pf_map);
	map = cfilter_map_get_writable(mirror_fd);
	if (IS_ERR(map)) {
		bpf_map_put(pf_map);
		return PTR_ERR(map);
	}
	mutex_lock(&cfilter_lock);
	if (!cfilter_mirror_entries())
		err = -EOPNOTSUPP;
	else if (!cfilter_prefilter_kept(pf_map))
		err = -ENOENT;
	else
		err = cfilter_mirror_keep(pf_map, map);
	mutex_unlock(&cfilter_lock);
	bpf_map_put(pf_map);
	if (err)
		bpf_map_put(map);
	return err;
}

/* Every map let go (module exit). */
void cfilter_prefilter_release(void)
{
	mutex_lock(&cfilter_lock);
	while (cfilter_npf)
		cfilter_pf_drop(cfilter_npf - 1);
	mutex_unlock(&cfilter_lock);
}
