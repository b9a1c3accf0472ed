// SPDX-License-Identifier: GPL-2.0
/*
 * The prefix set of the module, its core compiled for the host with every
 * table lookup counted: a probe is one cuckoo_lookup_word() (under
 * cuckoo_lookup(), inline) or cuckoo_contains() of a table, as the module makes it (a bucket pair
 * and, on a fingerprint match, a key compare). Summary bits and the bits
 * of empty lengths cost no probe, as in the module.
 */
#include "prefix_int.h"
#include "probes.h"

static unsigned int probes;

/* prefix_set_match() calls these instead (the Makefile renames its calls). */
u64 counted_lookup_word(const struct cuckoo *c, const void *key);
bool counted_contains(const struct cuckoo *c, const void *key);

u64 counted_lookup_word(const struct cuckoo *c, const void *key)
{
	probes++;
	return cuckoo_lookup_word(c, key);
}

bool counted_contains(const struct cuckoo *c, const void *key)
{
	probes++;
	return cuckoo_contains(c, key);
}

/* The module's defaults (kmod/main.c); compact tables are fixed in size. */
#define PROBE_CAPACITY		65536
#define PROBE_MAX_CAPACITY	(16ULL << 20)
#define PROBE_COMPACT_CAPACITY	262144
#define PROBE_FP_BITS		16

struct probe_set {
	struct prefix_set *set;
};

struct probe_set *probe_set_new(unsigned int alen, bool compact)
{
	struct prefix_params p = {
		.addr_len = alen,
		.addrs = {
			.capacity = compact ? PROBE_COMPACT_CAPACITY :
					      PROBE_CAPACITY,
			.max_capacity = compact ? 0 : PROBE_MAX_CAPACITY,
			.seed = 0x5eed,
			.fp_bits = PROBE_FP_BITS,
			.key_len = alen,
			.exact = !compact,
		},
	};
	struct probe_set *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->set = prefix_set_create(&p);
	if (!s->set) {
		free(s);
		return NULL;
	}
	return s;
}

void probe_set_free(struct probe_set *s)
{
	if (!s)
		return;
	prefix_set_destroy(s->set);
	free(s);
}

int probe_set_add(struct probe_set *s, const uint8_t *addr, unsigned int len)
{
	return prefix_set_insert(s->set, addr, len, 0);
}

/* May a member of class @c cover @addr, as the lookup's level test says? */
static bool probe_level(const struct prefix_set *p, const u8 *addr, u32 h,
			u32 c)
{
	return (h & PREFIX_HEAD_FLAG(c)) && prefix_sum_admits(&p->sum, c, addr);
}

/*
 * Where prefix_set_match_head() starts the search over the lengths for
 * @addr (the first level whose flag and hashed bit admit it), read from
 * the set as the lookup reads it: what sends a miss to the tables.
 */
static enum probe_level probe_search_level(const struct prefix_set *p,
					   const u8 *addr)
{
	static const u32 order[] = {
		PREFIX_CLASS_SUBNET, PREFIX_CLASS_DEEP, PREFIX_CLASS_MID,
	};
	u32 h = prefix_sum_head(&p->sum, addr), i;
	bool flagged = false;

	if (p->zero || (h & PREFIX_HEAD_BEST))
		return PROBE_LEVEL_NONE;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (probe_level(p, addr, h, order[i]))
			return PROBE_LEVEL_SUBNET + i;
		flagged |= h & PREFIX_HEAD_FLAG(order[i]);
	}
	return flagged ? PROBE_LEVEL_HASHED_OUT : PROBE_LEVEL_NONE;
}

unsigned int probe_set_match(const struct probe_set *s, const uint8_t *addr,
			     bool *hit, enum probe_level *level)
{
	u32 tag;

	probes = 0;
	*hit = prefix_set_match(s->set, addr, &tag) != PREFIX_MISS;
	*level = probe_search_level(s->set, addr);
	return probes;
}
