// SPDX-License-Identifier: GPL-2.0
/*
 * Prefix sets: addresses and CIDR prefixes of one family, matched by
 * controlled prefix expansion over cuckoo filters (see prefix.h).
 *
 * Invariants the writer keeps (readers rely on the first two):
 * - every level of the published plan holds exactly the union of the
 *   expansions of the prefixes whose length maps to it: a prefix of length
 *   l maps to the shortest target T >= l and contributes its 2^(T - l)
 *   addresses masked to T. An entry shared by several prefixes is stored
 *   once, so deleting a prefix removes an entry only if no other prefix of
 *   the level's lengths still covers it (asked of the prefix table, which is
 *   exact: no reference counts needed);
 * - a member present throughout a lookup has its entries in every plan a
 *   reader can see: a re-expansion builds complete new levels off to the
 *   side, publishes them with one pointer store, and frees the old ones
 *   after a grace period;
 * - two summaries, of the prefixes (sum_pfx) and, in exact mode, of the
 *   addresses (sum_addr): a summary's count[k] counts its members that
 *   intersect summary key k (IPv6 prefixes shorter than /16 in its all
 *   instead), and its bit k is set iff count[k] is nonzero, except
 *   briefly: a bit is set before the member's entries are published
 *   (insert) and cleared after they are gone (delete, clear), so a reader
 *   finding a bit clear could not have found a member there. The
 *   summaries depend on the members only, not on the plan: a rebuild
 *   leaves them alone;
 * - hist[l] counts the prefixes of length l in the prefix table.
 *
 * Targets are chosen by the dynamic program of Srinivasan and Varghese:
 * over the lengths present, p_0 < ... < p_(m-1), with n_l prefixes of
 * length l, the cost of a set of targets is the number of entries,
 * sum over l of n_l * 2^(T(l) - l); the longest length present is always a
 * target (nothing longer could be cheaper), and the best plan with k
 * targets whose longest is p_j extends the best with k - 1 targets ending
 * at some p_i, i < j, by the target p_j for the lengths p_(i+1)..p_j.
 * Costs saturate at U64 max: IPv6 lengths make 2^(T - l) overflow.
 *
 * Re-planning: a change that leaves the current plan within 25% (plus a
 * small constant) of the best one updates the levels in place; otherwise,
 * or when the current targets cannot hold a new length, every level is
 * rebuilt from the prefix table.
 */
#include "prefix.h"

/* Fingerprint width of the exact tables: a false match costs a key compare. */
#define PREFIX_FP_BITS		16
/* First capacity of the prefix table and of a level updated in place. */
#define PREFIX_TABLE_START	64
/* Re-plan when the plan's cost exceeds the best by 25% plus this. */
#define PREFIX_REPLAN_SLACK	64
#define PREFIX_COST_INF		(~0ULL)
#define PREFIX_BITS_MAX		128
/* Prefix table key: the address, then the length in a native u32. */
#define PREFIX_KEY_MAX		(16 + 4)
/* ... as listed: the key, then its value (the member's tag). */
#define PREFIX_REC_MAX		(PREFIX_KEY_MAX + 4)
#define PREFIX_LIST_CHUNK	8
/* Expanding this many entries may be followed by a resched. */
#define PREFIX_RESCHED_MASK	0xfff

/* Hash keys of the prefix table and of the levels, from the set's seed. */
#define PREFIX_SEED_PREFIXES	0x243f6a8885a308d3ULL
#define PREFIX_SEED_LEVELS	0x13198a2e03707344ULL

/*
 * A summary: one bit per /16 (IPv4) or per hashed /32 (IPv6), set iff a
 * member the summary counts intersects that /16 (or a /32 hashing to it).
 * A clear bit spares the tables it summarises a probe. An IPv6 prefix
 * shorter than /16 would set 2^16 or more bits: it is counted in the
 * summary's all instead, which sets them all. Addresses and prefixes have
 * a summary each, so that a packet covered by a prefix does not probe the
 * address table first unless an address shares its /16 (and the other
 * way round).
 */
#define PREFIX_SUM_SHIFT	16
#define PREFIX_SUM_KEYS		BIT_ULL(PREFIX_SUM_SHIFT)
#define PREFIX_SUM_WORDS	(PREFIX_SUM_KEYS / 32)
/* hash_32()'s multiplier: spreads the /32s of a prefix over the bits */
#define PREFIX_SUM_HASH		0x61c88647U

/**
 * struct prefix_level - one target length
 * @table: masked addresses; key_len is 4 * @words
 * @mask: the first @words words of an address, masked to @len
 * @words: u32 words of address the key keeps: enough for @len bits
 * @len: the target length
 */
struct prefix_level {
	struct cuckoo *table;
	u32 mask[4];
	u32 words;
	u32 len;
};

/**
 * struct prefix_plan - the levels readers probe, published as one
 * @nlevels: levels in use
 * @level: longest target first (readers probe them in reverse)
 */
struct prefix_plan {
	u32 nlevels;
	struct prefix_level level[PREFIX_LEVELS_MAX];
};

/* Target lengths, longest first. */
struct prefix_targets {
	u32 n;
	u8 len[PREFIX_LEVELS_MAX];
};

/**
 * struct prefix_summary - which /16s (hashed /32s) hold members
 * @bits: bit k of word k / 32 for key k; set before the member it counts is
 *	published, cleared only after the last member it counts is gone
 * @all: members counted in every bit (IPv6, shorter than /16)
 * @count: per key, the members counted there (allocated at the first
 *	insert: an unused set stays small); the writer's
 */
struct prefix_summary {
	u32 bits[PREFIX_SUM_WORDS];
	u32 all;
	u32 *count;
};

/**
 * struct prefix_set - addresses, prefixes and their expansion
 * @addrs: full-length members; never replaced (cleared in place)
 * @prefixes: the prefix table; replaced by clear
 * @plan: the levels; NULL while there is no prefix
 * @naddrs: members in @addrs: lets a reader skip an empty table
 * @nprefixes: members in @prefixes
 * @addrs_known: the address table keeps its keys (exact mode, and no
 *	compact table restored into it): its members are counted in
 *	@sum_addr and carry tags; else a reader probes it regardless
 * @addr_len: bytes per address
 * @sum_pfx: the summary of the prefixes
 * @sum_addr: the summary of the addresses (exact mode)
 * @bits: 8 * @addr_len
 * @max_levels: most targets a plan may have
 * @prefix_params: how @prefixes is created
 * @level_max: max_capacity of a level table, by its words (1..4)
 * @level_seed: hash key of the level tables
 * @expanded: entries in the levels of @plan
 * @rebuilds: plans built from scratch
 * @list_gen: cuckoo_list_gen() of the tables replaced, plus one each
 * @hist: prefixes per length
 * @dp: the dynamic program's best costs, [targets - 1][last length index]
 * @dp_from: ... and the index of the previous target
 * @buf: prefix table keys being walked by a rebuild
 *
 * Readers use the fields up to @sum_addr, which change only through
 * WRITE_ONCE() and rcu_assign_pointer() (@addrs_known only while no reader
 * can see the set); the rest is the writer's, which the caller serialises.
 */
struct prefix_set {
	struct cuckoo *addrs;
	struct cuckoo __rcu *prefixes;
	struct prefix_plan __rcu *plan;
	u64 naddrs;
	u64 nprefixes;
	bool addrs_known;
	u32 addr_len;
	struct prefix_summary sum_pfx;
	struct prefix_summary sum_addr;

	u32 bits;
	u32 max_levels;
	struct cuckoo_params prefix_params;
	u64 level_max[5];
	u64 level_seed;
	u64 expanded;
	u64 rebuilds;
	u64 list_gen;
	u64 hist[PREFIX_BITS_MAX];
	u64 dp[PREFIX_LEVELS_MAX][PREFIX_BITS_MAX];
	u8 dp_from[PREFIX_LEVELS_MAX][PREFIX_BITS_MAX];
	u8 buf[PREFIX_LIST_CHUNK * PREFIX_REC_MAX];
};

/*
 * A level entry's value: the length of the longest member of its level
 * that covers it, and that member's tag, so that a hit names a member's
 * tag and a delete knows whose entries it takes over.
 */
#define PREFIX_VAL(len, tag)	((u32)(len) << 8 | (tag))
#define PREFIX_VAL_LEN(v)	((v) >> 8)
#define PREFIX_VAL_TAG(v)	((v) & 0xff)

static struct prefix_plan *prefix_wplan(const struct prefix_set *s)
{
	return rcu_dereference_protected(s->plan, true);
}

static struct cuckoo *prefix_wtable(const struct prefix_set *s)
{
	return rcu_dereference_protected(s->prefixes, true);
}

static u64 prefix_sat_add(u64 a, u64 b)
{
	return a + b < a ? PREFIX_COST_INF : a + b;
}

/* @n * 2^@shift, saturating. */
static u64 prefix_sat_shl(u64 n, u32 shift)
{
	if (!n)
		return 0;
	if (shift >= 64 || n > PREFIX_COST_INF >> shift)
		return PREFIX_COST_INF;
	return n << shift;
}

/* Clears the bits of @a from @len on. */
static void prefix_mask(u8 *a, u32 alen, u32 len)
{
	u32 i;

	for (i = len / 8; i < alen; i++)
		a[i] &= i == len / 8 ? (u8)(0xff00 >> (len % 8)) : 0;
}

/* Are the bits of @a from @len on all zero? */
static bool prefix_host_bits_zero(const u8 *a, u32 alen, u32 len)
{
	u32 i;

	for (i = len / 8; i < alen; i++)
		if (a[i] & (i == len / 8 ? 0xff >> (len % 8) : 0xff))
			return false;
	return true;
}

/* Sets bits [@from, @to) of @a to @v, most significant bit first. */
static void prefix_put_bits(u8 *a, u32 from, u32 to, u64 v)
{
	u32 b;

	for (b = from; b < to; b++) {
		u8 m = 0x80 >> (b % 8);

		if ((v >> (to - 1 - b)) & 1)
			a[b / 8] |= m;
		else
			a[b / 8] &= ~m;
	}
}

static int prefix_check(const struct prefix_set *s, const u8 *addr, u32 len)
{
	if (len > s->bits || !prefix_host_bits_zero(addr, s->addr_len, len))
		return -EINVAL;
	return 0;
}

/* Summary key of the /16 (IPv4) or /32 (IPv6) whose first bits are @v. */
static __always_inline u32 prefix_sum_key(u32 alen, u32 v)
{
	return alen == 4 ? v : (v * PREFIX_SUM_HASH) >> (32 - PREFIX_SUM_SHIFT);
}

/* The summary key of @addr. */
static __always_inline u32 prefix_sum_key_of(u32 alen, const u8 *addr)
{
	u32 v;

	if (alen == 4)
		v = (u32)addr[0] << 8 | addr[1];
	else
		v = (u32)addr[0] << 24 | (u32)addr[1] << 16 |
		    (u32)addr[2] << 8 | addr[3];
	return prefix_sum_key(alen, v);
}

/*
 * Reader: may a member of @sum cover the address of summary key @k? False
 * only if none intersects its /16 (IPv4) or its /32's bit (IPv6).
 */
static __always_inline bool prefix_sum_maybe(const struct prefix_summary *sum,
					     u32 k)
{
	u32 w = READ_ONCE(sum->bits[k / 32]), all = READ_ONCE(sum->all);

	/*
	 * Pairs with the smp_wmb() of prefix_sum_get(): a member this
	 * lookup's probes find had its bit set before it was published.
	 */
	smp_rmb();
	return (w >> (k % 32)) & 1 || all;
}

/*
 * Counts (@addr, @len) in (@add) or out of the summary: every summary key
 * it intersects, or its all. A bit goes up with its first member and down
 * with its last.
 */
static void prefix_sum_update(const struct prefix_set *s,
			      struct prefix_summary *sum, const u8 *addr,
			      u32 len, bool add)
{
	u32 slen = s->addr_len == 4 ? 16 : 32, v = 0, i, k, *word;
	u64 j, n = 1;

	if (len < slen && slen - len > PREFIX_SUM_SHIFT) {
		WRITE_ONCE(sum->all, sum->all + (add ? 1 : -1));
		return;
	}
	for (i = 0; i < slen / 8; i++)
		v = v << 8 | addr[i];
	if (len < slen)
		n = 1ULL << (slen - len);
	/* the bits of @v beyond @len are zero: v + j walks the prefix */
	for (j = 0; j < n; j++) {
		k = prefix_sum_key(s->addr_len, v + (u32)j);
		word = &sum->bits[k / 32];
		if (add && !sum->count[k]++)
			WRITE_ONCE(*word, *word | 1U << (k % 32));
		else if (!add && !--sum->count[k])
			WRITE_ONCE(*word, *word & ~(1U << (k % 32)));
	}
}

/*
 * The summary that counts a member of length @len (NULL: none does, a
 * compact address table's addresses).
 */
static struct prefix_summary *prefix_sum_of(struct prefix_set *s, u32 len)
{
	if (len < s->bits)
		return &s->sum_pfx;
	return s->addrs_known ? &s->sum_addr : NULL;
}

#define PREFIX_SUM_COUNT_BYTES	(PREFIX_SUM_KEYS * sizeof(u32))

/* Allocates @sum's counts: 0, -EDQUOT or -ENOMEM, nothing changed. */
static int prefix_sum_prepare(struct prefix_summary *sum)
{
	u32 *count;

	if (!sum || sum->count)
		return 0;
	count = cuckoo_mem_zalloc(PREFIX_SUM_COUNT_BYTES);
	if (IS_ERR(count))
		return PTR_ERR(count);
	sum->count = count;
	return 0;
}

/* Counts a member about to be published: call before any reader can see it. */
static void prefix_sum_get(struct prefix_set *s, struct prefix_summary *sum,
			   const u8 *addr, u32 len)
{
	if (!sum)
		return;
	prefix_sum_update(s, sum, addr, len, true);
	/* the bits before the member's entries (see prefix_sum_maybe()) */
	smp_wmb();
}

/* Uncounts a member gone from every table a reader can reach. */
static void prefix_sum_put(struct prefix_set *s, struct prefix_summary *sum,
			   const u8 *addr, u32 len)
{
	if (!sum)
		return;
	/* the member's entries gone before its bits go */
	smp_wmb();
	prefix_sum_update(s, sum, addr, len, false);
}

/* Empties @sum once every member it counts is gone. */
static void prefix_sum_reset(struct prefix_summary *sum)
{
	u32 i;

	/* the tables emptied before the bits go (see prefix_sum_put()) */
	smp_wmb();
	for (i = 0; i < PREFIX_SUM_WORDS; i++)
		WRITE_ONCE(sum->bits[i], 0);
	WRITE_ONCE(sum->all, 0);
	if (sum->count)
		memset(sum->count, 0, PREFIX_SUM_KEYS * sizeof(*sum->count));
}

/* The prefix table's key of (@addr, @len). */
static void prefix_key(const struct prefix_set *s, u8 *key, const u8 *addr,
		       u32 len)
{
	memcpy(key, addr, s->addr_len);
	memcpy(key + s->addr_len, &len, sizeof(len));
}

/* Writer side: is (@addr, @len) a prefix member? Its tag into *@tag. */
static bool prefix_member(const struct prefix_set *s, const u8 *addr,
			  u32 len, u32 *tag)
{
	u8 key[PREFIX_KEY_MAX];

	prefix_key(s, key, addr, len);
	return !cuckoo_get_val(prefix_wtable(s), key, tag);
}

/* u32 words of address that a level of @len bits keeps (at least one). */
static u32 prefix_words(u32 len)
{
	return len > 32 ? (len + 31) / 32 : 1;
}

/*
 * The largest max_capacity an exact table of @key_len bytes may have, at
 * most @want: the core refuses tables whose arrays would pass 1 GiB.
 */
static u64 prefix_table_limit(u64 want, u32 key_len, u64 seed)
{
	struct cuckoo_params p = {
		.capacity = 1,
		.max_capacity = want,
		.seed = seed,
		.fp_bits = PREFIX_FP_BITS,
		.key_len = key_len,
		.exact = true,
		.values = true,
	};

	return cuckoo_max_capacity(&p);
}

/* The lengths with prefixes, shortest first, into @lens; their number. */
static u32 prefix_lengths(const struct prefix_set *s, u8 *lens)
{
	u32 l, m = 0;

	for (l = 0; l < s->bits; l++)
		if (s->hist[l])
			lens[m++] = l;
	return m;
}

/*
 * The cheapest targets for the prefixes present, at most max_levels of
 * them, into @t; returns their cost (entries). Ties go to fewer targets:
 * each one costs readers a lookup.
 */
static u64 prefix_best(struct prefix_set *s, struct prefix_targets *t)
{
	u8 p[PREFIX_BITS_MAX];
	u32 m = prefix_lengths(s, p), kmax, k, best_k = 0, i, j;
	u64 best = PREFIX_COST_INF, c;

	t->n = 0;
	if (!m)
		return 0;
	kmax = m < s->max_levels ? m : s->max_levels;
	for (j = 0; j < m; j++) {
		c = 0;
		for (i = 0; i <= j; i++)
			c = prefix_sat_add(c, prefix_sat_shl(s->hist[p[i]],
							     p[j] - p[i]));
		s->dp[0][j] = c;
	}
	for (k = 1; k < kmax; k++) {
		for (j = k; j < m; j++) {
			u64 tail = 0, b = PREFIX_COST_INF;
			u8 from = j - 1;

			/* p[i]: the previous target; tail: p[i+1..j] to p[j] */
			for (i = j; i-- > k - 1;) {
				c = prefix_sat_shl(s->hist[p[i + 1]],
						   p[j] - p[i + 1]);
				tail = prefix_sat_add(tail, c);
				c = prefix_sat_add(s->dp[k - 1][i], tail);
				if (c < b) {
					b = c;
					from = i;
				}
			}
			s->dp[k][j] = b;
			s->dp_from[k][j] = from;
		}
	}
	for (k = 0; k < kmax; k++) {
		if (!k || s->dp[k][m - 1] < best) {
			best = s->dp[k][m - 1];
			best_k = k;
		}
	}
	j = m - 1;
	for (k = best_k;; k--) {
		t->len[t->n++] = p[j];
		if (!k)
			break;
		j = s->dp_from[k][j];
	}
	return best;
}

/* The index of the level @len expands into (-1: none is long enough). */
static int prefix_target_of(const struct prefix_targets *t, u32 len)
{
	int i;

	for (i = t->n - 1; i >= 0; i--)
		if (t->len[i] >= len)
			return i;
	return -1;
}

/* The shortest length level @i of @t holds. */
static u32 prefix_level_lo(const struct prefix_targets *t, u32 i)
{
	return i + 1 < t->n ? t->len[i + 1] + 1U : 0;
}

/* Entries level @i of @t needs for the prefixes present. */
static u64 prefix_level_cost(const struct prefix_set *s,
			     const struct prefix_targets *t, u32 i)
{
	u32 l;
	u64 c = 0;

	for (l = prefix_level_lo(t, i); l <= t->len[i]; l++)
		c = prefix_sat_add(c, prefix_sat_shl(s->hist[l],
						     t->len[i] - l));
	return c;
}

/* The cost of @t for the prefixes present; INF if it cannot hold them. */
static u64 prefix_cost(const struct prefix_set *s,
		       const struct prefix_targets *t)
{
	u32 i, l;
	u64 c = 0;

	if (!t->n)
		return PREFIX_COST_INF;
	for (l = t->len[0] + 1; l < s->bits; l++)
		if (s->hist[l])
			return PREFIX_COST_INF;
	for (i = 0; i < t->n; i++)
		c = prefix_sat_add(c, prefix_level_cost(s, t, i));
	return c;
}

static void prefix_plan_targets(const struct prefix_plan *pl,
				struct prefix_targets *t)
{
	u32 i;

	t->n = pl ? pl->nlevels : 0;
	for (i = 0; i < t->n; i++)
		t->len[i] = pl->level[i].len;
}

/* Is a plan costing @now worth replacing by one costing @best? */
static bool prefix_replan_due(u64 now, u64 best)
{
	return now > prefix_sat_add(best, best / 4 + PREFIX_REPLAN_SLACK);
}

static void prefix_plan_free(struct prefix_plan *pl)
{
	u32 i;

	if (!pl)
		return;
	for (i = 0; i < PREFIX_LEVELS_MAX; i++)
		cuckoo_destroy(pl->level[i].table);
	kvfree(pl);
}

/* Publishes @pl and frees the plan it replaces once no reader can use it. */
static void prefix_plan_swap(struct prefix_set *s, struct prefix_plan *pl)
{
	struct prefix_plan *old = prefix_wplan(s);

	rcu_assign_pointer(s->plan, pl);
	if (old) {
		synchronize_rcu();
		prefix_plan_free(old);
	}
}

/* Sets up level @lv for target @len with room for @capacity entries. */
static int prefix_level_init(const struct prefix_set *s,
			     struct prefix_level *lv, u32 len, u64 capacity)
{
	u8 mask[16] = { 0 };
	struct cuckoo_params p = {
		.seed = s->level_seed ^ (u64)len * PREFIX_SEED_PREFIXES,
		.fp_bits = PREFIX_FP_BITS,
		.exact = true,
		.values = true,
	};

	lv->len = len;
	lv->words = prefix_words(len);
	memset(mask, 0xff, s->addr_len);
	prefix_mask(mask, s->addr_len, len);
	memcpy(lv->mask, mask, sizeof(lv->mask));
	p.key_len = 4 * lv->words;
	p.max_capacity = s->level_max[lv->words];
	if (capacity > p.max_capacity)
		return -ENOSPC;
	p.capacity = capacity > PREFIX_TABLE_START ? capacity :
		     PREFIX_TABLE_START;
	if (p.capacity > p.max_capacity)
		p.capacity = p.max_capacity;
	lv->table = cuckoo_create(&p);
	return lv->table ? 0 : -ENOMEM;
}

/* Entry @j of the expansion of (@addr, @len) into level @lv, in @e. */
static void prefix_entry(const struct prefix_set *s,
			 const struct prefix_level *lv, const u8 *addr,
			 u32 len, u64 j, u8 *e)
{
	memcpy(e, addr, s->addr_len);
	prefix_put_bits(e, len, lv->len, j);
}

/*
 * Is entry @e of the level holding lengths @lo..@hi covered by a prefix of
 * a length other than @except? If so, *@val names the longest such (a
 * level value). A prefix of length @except covering @e is the one being
 * deleted.
 */
static bool prefix_covered(const struct prefix_set *s, const u8 *e, u32 lo,
			   u32 hi, u32 except, u32 *val)
{
	u32 l, tag;
	u8 a[16];

	for (l = hi + 1; l-- > lo;) {
		if (l == except || !s->hist[l])
			continue;
		memcpy(a, e, s->addr_len);
		prefix_mask(a, s->addr_len, l);
		if (prefix_member(s, a, l, &tag)) {
			*val = PREFIX_VAL(l, tag);
			return true;
		}
	}
	return false;
}

/*
 * Removes from level @i of @pl entries 0..@n-1 of the expansion of
 * (@addr, @len) that no other prefix covers, and gives those another
 * covers, and that named (@addr, @len), to the longest of them.
 */
static void prefix_unexpand(struct prefix_set *s, struct prefix_plan *pl,
			    u32 i, const u8 *addr, u32 len, u64 n)
{
	struct prefix_targets t;
	struct prefix_level *lv = &pl->level[i];
	u32 lo, other, val;
	u8 e[16];
	u64 j;

	prefix_plan_targets(pl, &t);
	lo = prefix_level_lo(&t, i);
	for (j = 0; j < n; j++) {
		if (!(j & PREFIX_RESCHED_MASK))
			cond_resched();
		prefix_entry(s, lv, addr, len, j, e);
		if (!prefix_covered(s, e, lo, lv->len, len, &other)) {
			WARN_ON_ONCE(cuckoo_delete(lv->table, e));
			s->expanded--;
		} else if (!cuckoo_get_val(lv->table, e, &val) &&
			   PREFIX_VAL_LEN(val) == len) {
			cuckoo_set_val(lv->table, e, other);
		}
	}
}

/*
 * Adds entry @e with value @val (PREFIX_VAL()) to level @lv, or names the
 * longer member in the value of an entry already there. Returns 1 if @e is
 * new, 0 if it was there, or a negative errno (nothing changed).
 */
static int prefix_add_entry(struct prefix_level *lv, const u8 *e, u32 val)
{
	int err = cuckoo_insert_val(lv->table, e, val);
	u32 old;

	if (err != -EEXIST)
		return err ? err : 1;
	if (!cuckoo_get_val(lv->table, e, &old) &&
	    PREFIX_VAL_LEN(old) < PREFIX_VAL_LEN(val))
		cuckoo_set_val(lv->table, e, val);
	return 0;
}

/*
 * Adds the expansion of (@addr, @len), tagged @tag, to the level of @pl
 * that holds @len; -ENOSPC, -EDQUOT or -ENOMEM with the levels as before.
 */
static int prefix_expand(struct prefix_set *s, struct prefix_plan *pl,
			 const u8 *addr, u32 len, u32 tag)
{
	struct prefix_targets t;
	struct prefix_level *lv;
	struct cuckoo_stats st;
	u64 j, n;
	u8 e[16];
	int i, err;

	prefix_plan_targets(pl, &t);
	i = prefix_target_of(&t, len);
	if (WARN_ON_ONCE(i < 0))
		return -ENOSPC;
	lv = &pl->level[i];
	cuckoo_get_stats(lv->table, &st);
	if (lv->len - len >= 64 || st.count >= s->level_max[lv->words] ||
	    1ULL << (lv->len - len) > s->level_max[lv->words] - st.count)
		return -ENOSPC;
	n = 1ULL << (lv->len - len);
	for (j = 0; j < n; j++) {
		if (!(j & PREFIX_RESCHED_MASK))
			cond_resched();
		prefix_entry(s, lv, addr, len, j, e);
		err = prefix_add_entry(lv, e, PREFIX_VAL(len, tag));
		if (err < 0) {
			prefix_unexpand(s, pl, i, addr, len, j);
			return err;
		}
		s->expanded += err;
	}
	return 0;
}

/* Adds every entry of prefix table key @key to plan @pl, which has @t. */
static int prefix_expand_into(const struct prefix_set *s,
			      struct prefix_plan *pl,
			      const struct prefix_targets *t, const u8 *key,
			      u64 *entries)
{
	struct prefix_level *lv;
	u32 len, tag;
	u64 j, n;
	u8 e[16];
	int i, err;

	memcpy(&len, key + s->addr_len, sizeof(len));
	memcpy(&tag, key + s->addr_len + sizeof(len), sizeof(tag));
	i = prefix_target_of(t, len);
	if (WARN_ON_ONCE(i < 0))
		return -EINVAL;
	lv = &pl->level[i];
	n = 1ULL << (lv->len - len);	/* the caller checked the cost */
	for (j = 0; j < n; j++) {
		if (!(j & PREFIX_RESCHED_MASK))
			cond_resched();
		prefix_entry(s, lv, key, len, j, e);
		err = prefix_add_entry(lv, e, PREFIX_VAL(len, tag));
		if (err < 0)
			return err;
		*entries += err;
	}
	return 0;
}

/*
 * Builds levels for targets @t from the prefix table and publishes them.
 * -ENOSPC (a level would pass its max_capacity) or -ENOMEM: the old plan
 * stays.
 */
static int prefix_rebuild(struct prefix_set *s, const struct prefix_targets *t)
{
	struct cuckoo *pt = prefix_wtable(s);
	struct prefix_plan *pl;
	u64 pos = 0, entries = 0;
	/* listed: the address, the length, the tag */
	u32 i, klen = s->addr_len + 8;
	long n, k;
	int err;

	pl = kvzalloc(sizeof(*pl), GFP_KERNEL);
	if (!pl)
		return -ENOMEM;
	pl->nlevels = t->n;
	for (i = 0; i < t->n; i++) {
		err = prefix_level_init(s, &pl->level[i], t->len[i],
					prefix_level_cost(s, t, i));
		if (err)
			goto err_free;
	}
	while ((n = cuckoo_list(pt, &pos, s->buf, PREFIX_LIST_CHUNK)) > 0) {
		for (k = 0; k < n; k++) {
			err = prefix_expand_into(s, pl, t, s->buf + k * klen,
						 &entries);
			if (err)
				goto err_free;
		}
	}
	prefix_plan_swap(s, pl);
	s->expanded = entries;
	s->rebuilds++;
	return 0;

err_free:
	prefix_plan_free(pl);
	return err;
}

/*
 * Places the new prefix (@addr, @len), already in the prefix table and
 * counted in hist[], into the levels: in place, or by a new plan if the
 * current one cannot hold it or has become too costly.
 */
static int prefix_place(struct prefix_set *s, const u8 *addr, u32 len,
			u32 tag)
{
	struct prefix_plan *pl = prefix_wplan(s);
	struct prefix_targets best, cur;
	u64 best_cost = prefix_best(s, &best), now;
	int err;

	prefix_plan_targets(pl, &cur);
	now = prefix_cost(s, &cur);
	if (now != PREFIX_COST_INF && !prefix_replan_due(now, best_cost)) {
		err = prefix_expand(s, pl, addr, len, tag);
		/* a level is full: the best targets may spread the load */
		if (err != -ENOSPC || (cur.n == best.n &&
				       !memcmp(cur.len, best.len, cur.n)))
			return err;
		return prefix_rebuild(s, &best) ? err : 0;
	}
	err = prefix_rebuild(s, &best);
	/*
	 * The current plan may still hold the prefix where the best did not
	 * fit; if it cannot either, the rebuild's error says why.
	 */
	if (err && now != PREFIX_COST_INF &&
	    !prefix_expand(s, pl, addr, len, tag))
		err = 0;
	return err;
}

/**
 * prefix_set_insert() - add an address or a prefix
 * @s: the set
 * @addr: addr_len bytes, network order, zero beyond @len
 * @len: prefix length, 0 to 8 * addr_len (full: an address)
 *
 * A prefix goes into the prefix table and is expanded into the levels, in
 * place or by re-planning every level. The caller serialises writers; may
 * sleep.
 *
 * Return: 0; -EINVAL (bad length or host bits set); -EEXIST (present);
 * -ENOSPC or -ENOMEM (a table is full or could not grow). On error the set
 * is as it was.
 */
int prefix_set_insert(struct prefix_set *s, const u8 *addr, u32 len, u32 tag)
{
	u8 key[PREFIX_KEY_MAX];
	int err = prefix_check(s, addr, len);
	struct prefix_summary *sum;

	if (err)
		return err;
	sum = prefix_sum_of(s, len);
	err = prefix_sum_prepare(sum);
	if (err)
		return err;
	if (len == s->bits) {
		prefix_sum_get(s, sum, addr, len);
		err = cuckoo_insert_val(s->addrs, addr, tag);
		if (!err)
			WRITE_ONCE(s->naddrs, s->naddrs + 1);
		else
			prefix_sum_put(s, sum, addr, len);
		return err;
	}
	prefix_key(s, key, addr, len);
	prefix_sum_get(s, sum, addr, len);
	err = cuckoo_insert_val(prefix_wtable(s), key, tag);
	if (err)
		goto err_sum;
	s->hist[len]++;
	err = prefix_place(s, addr, len, tag);
	if (err) {
		s->hist[len]--;
		WARN_ON_ONCE(cuckoo_delete(prefix_wtable(s), key));
		goto err_sum;
	}
	WRITE_ONCE(s->nprefixes, s->nprefixes + 1);
	return 0;

err_sum:
	prefix_sum_put(s, sum, addr, len);
	return err;
}

/**
 * prefix_set_retag() - change a member's tag
 * @s: the set
 * @addr: addr_len bytes, network order, zero beyond @len
 * @len: prefix length
 * @tag: the new tag
 *
 * The member's own record, and every expanded entry it names (those no
 * longer member of their level covers). Readers see each entry's old tag
 * or its new one. The caller serialises writers.
 *
 * Return: 0; -EINVAL (bad length or host bits set); -ENOENT (absent).
 */
int prefix_set_retag(struct prefix_set *s, const u8 *addr, u32 len, u32 tag)
{
	struct prefix_plan *pl = prefix_wplan(s);
	u8 key[PREFIX_KEY_MAX], e[16];
	struct prefix_targets t;
	struct prefix_level *lv;
	int i, err = prefix_check(s, addr, len);
	u64 j, n;
	u32 val;

	if (err)
		return err;
	if (len == s->bits)
		return s->addrs_known ? cuckoo_set_val(s->addrs, addr, tag) :
				      (cuckoo_contains(s->addrs, addr) ? 0 :
				       -ENOENT);
	prefix_key(s, key, addr, len);
	err = cuckoo_set_val(prefix_wtable(s), key, tag);
	if (err || !pl)
		return err;
	prefix_plan_targets(pl, &t);
	i = prefix_target_of(&t, len);
	if (WARN_ON_ONCE(i < 0))
		return 0;
	lv = &pl->level[i];
	n = 1ULL << (lv->len - len);
	for (j = 0; j < n; j++) {
		if (!(j & PREFIX_RESCHED_MASK))
			cond_resched();
		prefix_entry(s, lv, addr, len, j, e);
		if (!cuckoo_get_val(lv->table, e, &val) &&
		    PREFIX_VAL_LEN(val) == len)
			cuckoo_set_val(lv->table, e, PREFIX_VAL(len, tag));
	}
	return 0;
}

/**
 * prefix_set_delete() - remove an address or a prefix
 * @s: the set
 * @addr: addr_len bytes, network order, zero beyond @len
 * @len: prefix length
 *
 * Removes exactly the expanded entries no other prefix covers, then
 * re-plans if the remaining prefixes are better served by other targets
 * (if that fails for want of memory, the current plan, still exact, stays).
 * The caller serialises writers; may sleep.
 *
 * Return: 0; -EINVAL (bad length or host bits set); -ENOENT (absent).
 */
int prefix_set_delete(struct prefix_set *s, const u8 *addr, u32 len)
{
	struct prefix_plan *pl = prefix_wplan(s);
	struct prefix_targets best, cur;
	u8 key[PREFIX_KEY_MAX];
	u64 best_cost, now;
	int err = prefix_check(s, addr, len), i;

	if (err)
		return err;
	if (len == s->bits) {
		err = cuckoo_delete(s->addrs, addr);
		if (!err) {
			WRITE_ONCE(s->naddrs, s->naddrs - 1);
			prefix_sum_put(s, prefix_sum_of(s, len), addr, len);
		}
		return err;
	}
	prefix_key(s, key, addr, len);
	err = cuckoo_delete(prefix_wtable(s), key);
	if (err)
		return err;
	s->hist[len]--;
	WRITE_ONCE(s->nprefixes, s->nprefixes - 1);
	if (!s->nprefixes) {
		prefix_plan_swap(s, NULL);
		s->expanded = 0;
	} else {
		prefix_plan_targets(pl, &cur);
		i = prefix_target_of(&cur, len);
		if (!WARN_ON_ONCE(i < 0))
			prefix_unexpand(s, pl, i, addr, len,
					1ULL << (cur.len[i] - len));
		best_cost = prefix_best(s, &best);
		now = prefix_cost(s, &cur);
		if (prefix_replan_due(now, best_cost))
			prefix_rebuild(s, &best);
	}
	/*
	 * Its entries are out of every level a new reader can reach (a plan
	 * swapped out may still hold them: a stale hit, never a miss).
	 */
	prefix_sum_put(s, &s->sum_pfx, addr, len);
	return 0;
}

/**
 * prefix_set_clear() - remove every member
 * @s: the set
 *
 * Allocates the empty tables first, so that failing changes nothing. The
 * caller serialises writers; sleeps.
 *
 * Return: 0, or -ENOMEM with nothing changed.
 */
int prefix_set_clear(struct prefix_set *s)
{
	struct cuckoo *old = prefix_wtable(s), *pt;
	struct prefix_plan *pl = prefix_wplan(s);
	int err;

	pt = cuckoo_create(&s->prefix_params);
	if (!pt)
		return -ENOMEM;
	err = cuckoo_clear(s->addrs);
	if (err) {
		cuckoo_destroy(pt);
		return err;
	}
	s->list_gen += cuckoo_list_gen(old) + 1;
	rcu_assign_pointer(s->prefixes, pt);
	rcu_assign_pointer(s->plan, NULL);
	WRITE_ONCE(s->naddrs, 0);
	WRITE_ONCE(s->nprefixes, 0);
	memset(s->hist, 0, sizeof(s->hist));
	s->expanded = 0;
	prefix_sum_reset(&s->sum_pfx);
	prefix_sum_reset(&s->sum_addr);
	synchronize_rcu();
	cuckoo_destroy(old);
	prefix_plan_free(pl);
	return 0;
}

/* Copies @n keys of @klen bytes from @keys as list entries into @out. */
static void prefix_list_copy(const struct prefix_set *s, u8 *out,
			     const u8 *keys, long n, u32 klen, bool prefixes)
{
	u32 elen = PREFIX_ENTRY_LEN(s->addr_len), len;
	long k;

	for (k = 0; k < n; k++) {
		const u8 *key = keys + k * klen;

		memcpy(out + k * elen, key, s->addr_len);
		len = s->bits;
		if (prefixes)
			memcpy(&len, key + s->addr_len, sizeof(len));
		out[k * elen + s->addr_len] = len;
	}
}

/* Lists from one table; *@done tells whether it has no more. */
static u64 prefix_list_table(const struct prefix_set *s, struct cuckoo *c,
			     bool prefixes, u64 *pos, u8 *out, u64 max,
			     bool *done)
{
	u8 buf[PREFIX_LIST_CHUNK * PREFIX_REC_MAX];
	/* as listed, each with its tag (the address table: in exact mode) */
	u32 klen = (prefixes ? s->addr_len + 4 : s->addr_len) + 4;
	u64 n = 0;
	long k;

	*done = false;
	while (n < max) {
		k = cuckoo_list(c, pos, buf, max - n < PREFIX_LIST_CHUNK ?
				max - n : PREFIX_LIST_CHUNK);
		if (k <= 0) {
			*done = true;
			break;
		}
		prefix_list_copy(s, out + n * PREFIX_ENTRY_LEN(s->addr_len),
				 buf, k, klen, prefixes);
		n += k;
	}
	return n;
}

/**
 * prefix_set_list() - copy members out
 * @s: the set
 * @pos: in: where to start, 0 at first; out: where the next call starts
 * @out: room for @max entries of PREFIX_ENTRY_LEN(addr_len) bytes
 * @max: most entries to copy
 *
 * Addresses first (exact mode only), then prefixes; a position with
 * PREFIX_LIST_PREFIXES set is in the prefix table. Writer side.
 *
 * Return: the number of entries copied, 0 at the end.
 */
long prefix_set_list(const struct prefix_set *s, u64 *pos, void *out, u64 max)
{
	struct cuckoo_stats st;
	u64 n = 0, p;
	bool done = true;

	if (!(*pos & PREFIX_LIST_PREFIXES)) {
		cuckoo_get_stats(s->addrs, &st);
		if (st.exact)
			n = prefix_list_table(s, s->addrs, false, pos, out,
					      max, &done);
		if (!done)
			return n;
		*pos = PREFIX_LIST_PREFIXES;
	}
	p = *pos & ~PREFIX_LIST_PREFIXES;
	n += prefix_list_table(s, prefix_wtable(s), true, &p,
			       (u8 *)out + n * PREFIX_ENTRY_LEN(s->addr_len),
			       max - n, &done);
	*pos = p | PREFIX_LIST_PREFIXES;
	return n;
}

/**
 * prefix_set_list_gen() - the generation of list positions
 * @s: the set
 *
 * The sum of what only grows: the address and prefix tables' own
 * generations and the prefix tables freed or rebuilt. Writer side.
 *
 * Return: a value that grows whenever an entry may have changed position.
 */
u64 prefix_set_list_gen(const struct prefix_set *s)
{
	return s->list_gen + cuckoo_list_gen(s->addrs) +
	       cuckoo_list_gen(prefix_wtable(s));
}

/**
 * prefix_set_contains() - test one member
 * @s: the set
 * @addr: addr_len bytes
 * @len: its length
 *
 * Reader side: inside rcu_read_lock().
 *
 * Return: true if exactly (@addr, @len) is a member; false otherwise, and
 * for a bad length or host bits set.
 */
bool prefix_set_contains(const struct prefix_set *s, const u8 *addr, u32 len)
{
	u8 key[PREFIX_KEY_MAX];

	if (prefix_check(s, addr, len))
		return false;
	if (len == s->bits)
		return cuckoo_contains(s->addrs, addr);
	prefix_key(s, key, addr, len);
	return cuckoo_contains(rcu_dereference(s->prefixes), key);
}

/**
 * prefix_set_match() - does a member cover an address?
 * @s: the set
 * @addr: addr_len bytes, network order
 *
 * Probes the address table, whose hit is PREFIX_ADDR, unless it is empty or
 * (exact mode) the address summary's bit for @addr's /16 (IPv4) or hashed
 * /32 (IPv6) is clear; then, unless the prefix summary's bit is clear,
 * each level, shortest target first: every member blocks, so any level
 * that covers @addr gives the same answer, and the shortest covers the
 * most addresses, so a hit stops soonest. An address outside every /16
 * the set touches costs two bit tests and no probe. Lock-free: call inside
 * rcu_read_lock(). A member present throughout the call is found, across
 * re-plans, table growth and summary updates.
 *
 * Return: PREFIX_ADDR, PREFIX_PREFIX or PREFIX_MISS.
 */
enum prefix_hit prefix_set_match(const struct prefix_set *s, const u8 *addr,
				 u32 *tag)
{
	u32 i, w, val, key[4], k = prefix_sum_key_of(s->addr_len, addr);
	const struct prefix_plan *pl;

	*tag = 0;
	if (READ_ONCE(s->naddrs) &&
	    (!s->addrs_known || prefix_sum_maybe(&s->sum_addr, k)) &&
	    (s->addrs_known ? cuckoo_lookup(s->addrs, addr, tag) :
			    cuckoo_contains(s->addrs, addr)))
		return PREFIX_ADDR;
	if (!prefix_sum_maybe(&s->sum_pfx, k))
		return PREFIX_MISS;
	pl = rcu_dereference(s->plan);
	if (!pl)
		return PREFIX_MISS;
	for (i = pl->nlevels; i-- > 0;) {
		const struct prefix_level *lv = &pl->level[i];

		for (w = 0; w < lv->words; w++)
			key[w] = get_unaligned((const u32 *)addr + w) &
				 lv->mask[w];
		if (cuckoo_lookup(lv->table, key, &val)) {
			*tag = PREFIX_VAL_TAG(val);
			return PREFIX_PREFIX;
		}
	}
	return PREFIX_MISS;
}

/**
 * prefix_set_get_stats() - report members, expansion and memory
 * @s: the set
 * @st: filled in
 *
 * Writer side.
 */
void prefix_set_get_stats(const struct prefix_set *s, struct prefix_stats *st)
{
	const struct prefix_plan *pl = prefix_wplan(s);
	struct cuckoo_stats cs;
	u32 i;

	memset(st, 0, sizeof(*st));
	cuckoo_get_stats(s->addrs, &st->addrs);
	cuckoo_get_stats(prefix_wtable(s), &cs);
	st->prefixes = s->nprefixes;
	st->expanded = s->expanded;
	st->rebuilds = s->rebuilds;
	/* sizeof(*s) holds the summary bitmap */
	st->memory_bytes = sizeof(*s) + st->addrs.memory_bytes +
			   cs.memory_bytes;
	if (s->sum_pfx.count)
		st->memory_bytes += PREFIX_SUM_KEYS * sizeof(*s->sum_pfx.count);
	if (s->sum_addr.count)
		st->memory_bytes += PREFIX_SUM_KEYS * sizeof(*s->sum_addr.count);
	if (!pl)
		return;
	st->memory_bytes += sizeof(*pl);
	st->nlevels = pl->nlevels;
	for (i = 0; i < pl->nlevels; i++) {
		cuckoo_get_stats(pl->level[i].table, &cs);
		st->memory_bytes += cs.memory_bytes;
		st->levels[i] = pl->level[i].len;
	}
}

/**
 * prefix_set_addrs() - the address table
 * @s: the set
 *
 * For raw dumps of a compact table. Writer side.
 *
 * Return: the table of full-length members.
 */
struct cuckoo *prefix_set_addrs(struct prefix_set *s)
{
	return s->addrs;
}

/**
 * prefix_set_replace_addrs() - install another address table
 * @s: a set no reader can reach yet (a staged set being restored)
 * @addrs: the new table, made with the parameters @s was created with
 *
 * Counts its members, so that lookups do not skip it, and renumbers list
 * positions. Writer side.
 *
 * Return: the table replaced, for the caller to destroy.
 */
struct cuckoo *prefix_set_replace_addrs(struct prefix_set *s,
					struct cuckoo *addrs)
{
	struct cuckoo *old = s->addrs;
	struct cuckoo_stats st;

	cuckoo_get_stats(addrs, &st);
	s->addrs = addrs;
	/*
	 * Its addresses are unknown (compact: fingerprints), so no summary
	 * counts addresses any more and readers probe the table whenever it
	 * is not empty. Counts left by earlier addresses only keep bits set.
	 */
	s->addrs_known = false;
	WRITE_ONCE(s->naddrs, st.count);
	/* The new table's generation starts again from 0. */
	s->list_gen += cuckoo_list_gen(old) + 1;
	return old;
}

/**
 * prefix_params_check() - check set parameters without allocating
 * @p: the parameters
 *
 * Return: 0, or -EINVAL if addr_len is not 4 or 16, max_levels is not
 * 1..PREFIX_LEVELS_MAX, the address table's key_len is not addr_len, or
 * its parameters fail cuckoo_params_check().
 */
int prefix_params_check(const struct prefix_params *p)
{
	if ((p->addr_len != 4 && p->addr_len != 16) || !p->max_levels ||
	    p->max_levels > PREFIX_LEVELS_MAX ||
	    p->addrs.key_len != p->addr_len)
		return -EINVAL;
	return cuckoo_params_check(&p->addrs);
}

/**
 * prefix_set_create() - allocate an empty set
 * @p: the parameters (see prefix_params_check())
 *
 * The prefix table and each level may grow to the address table's
 * max_capacity (or capacity) entries, less if the core's size limits for
 * their key length say so. May sleep.
 *
 * Return: the set, or NULL on bad parameters or no memory.
 */
struct prefix_set *prefix_set_create(const struct prefix_params *p)
{
	u64 cap = p->addrs.max_capacity ? p->addrs.max_capacity :
		  p->addrs.capacity;
	struct cuckoo_params addrs;
	struct prefix_set *s;
	struct cuckoo *pt;
	u32 w;

	if (prefix_params_check(p))
		return NULL;
	s = kvzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	s->addr_len = p->addr_len;
	s->bits = 8 * p->addr_len;
	s->max_levels = p->max_levels;
	s->addrs_known = p->addrs.exact;
	s->level_seed = p->addrs.seed ^ PREFIX_SEED_LEVELS;
	for (w = 1; w <= s->addr_len / 4; w++)
		s->level_max[w] = prefix_table_limit(cap, 4 * w, s->level_seed);
	s->prefix_params = (struct cuckoo_params){
		.seed = p->addrs.seed ^ PREFIX_SEED_PREFIXES,
		.fp_bits = PREFIX_FP_BITS,
		.key_len = s->addr_len + 4,
		.exact = true,
		.values = true,
	};
	s->prefix_params.max_capacity =
		prefix_table_limit(cap, s->addr_len + 4,
				   s->prefix_params.seed);
	s->prefix_params.capacity =
		s->prefix_params.max_capacity < PREFIX_TABLE_START ?
		s->prefix_params.max_capacity : PREFIX_TABLE_START;
	addrs = p->addrs;
	/* An exact address table tags its members; compact has none to. */
	addrs.values = addrs.exact;
	s->addrs = cuckoo_create(&addrs);
	pt = cuckoo_create(&s->prefix_params);
	RCU_INIT_POINTER(s->prefixes, pt);
	if (!s->addrs || !pt) {
		prefix_set_destroy(s);
		return NULL;
	}
	return s;
}

/**
 * prefix_set_destroy() - free a set
 * @s: the set, or NULL
 *
 * No reader may still use it.
 */
void prefix_set_destroy(struct prefix_set *s)
{
	if (!s)
		return;
	prefix_plan_free(rcu_dereference_protected(s->plan, true));
	cuckoo_destroy(rcu_dereference_protected(s->prefixes, true));
	cuckoo_destroy(s->addrs);
	cuckoo_mem_free(s->sum_pfx.count, PREFIX_SUM_COUNT_BYTES);
	cuckoo_mem_free(s->sum_addr.count, PREFIX_SUM_COUNT_BYTES);
	kvfree(s);
}
