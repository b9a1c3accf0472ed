// SPDX-License-Identifier: GPL-2.0
/*
 * A real data set against prefix sets (core/prefix.c): Debian's
 * tor-geoipdb country ranges. Several countries' IPv4 and IPv6 ranges are
 * split into CIDR prefixes by cfctl's range_split() and put in a prefix
 * set; then, for over a million addresses per family (uniform over the
 * space, over the data's span and inside random ranges, plus the edges of
 * every range and of every prefix), the set's verdict must equal the one
 * computed directly from the ranges by binary search. One country is then
 * deleted again and everything re-checked. Each case prints the counts,
 * the target lengths and the memory the expansion took.
 *
 * Skipped (not passed) when the data files are absent: they come from the
 * tor-geoipdb package (make deps installs it); GEOIP_DIR overrides the
 * folder.
 */
#include "cuckoo.c"
#include "prefix.c"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../user/range.h"
#include "kselftest_harness.h"

#define NOTE(...) do { ksft_print_msg(__VA_ARGS__); fflush(stdout); } while (0)

#define GEOIP_DIR_DEFAULT	"/usr/share/tor"
#define SEED			0x9e01b5eed5eedULL
/* Random addresses checked per family, besides the edges. */
#define SAMPLES			(3U << 19)
/* Mismatches printed before giving up on a pass. */
#define SHOW_MAX		10
/* The country deleted again: the variant's first. */
#define DROPPED			0
#define NCOUNTRIES_MAX		8
#define OTHER			NCOUNTRIES_MAX	/* a range of another country */

typedef unsigned __int128 u128;

/* Many ranges each, of many lengths. */
static const char *const big6[] = { "US", "CN", "RU", "BR", "DE", "IN" };
/*
 * Many IPv6 ranges end at unaligned addresses, so range_split() gives
 * prefixes of nearly every length from /16 to /128 (big6: 111 lengths).
 * Expanded to 6 targets, big6's IPv6 prefixes need about 835M entries at
 * the optimum (CN alone 6.6M): more than a level may hold. These four
 * need about 1.5M: 53 lengths, 21504 prefixes.
 */
static const char *const fit6[] = { "RU", "IN", "JP", "KR" };

struct range {
	u128 lo, hi;
	u32 cc;			/* index in countries[], or OTHER */
};

struct pfx {
	u128 addr;
	u32 len;
	u32 cc;
};

struct pfx_list {
	struct pfx *p;
	size_t n, cap;
	u32 cc;			/* the country of the range being split */
	u32 alen;
};

FIXTURE(geoip) {
	char path[512];
	bool absent;
	struct range *all;	/* every range of the file, sorted */
	size_t nall;
	struct range *blk;	/* the chosen countries' ranges, sorted */
	size_t nblk;
	struct pfx_list pl;	/* their prefixes, by range_split() */
	struct prefix_set *s;
	bool active[NCOUNTRIES_MAX];
	bool cut;		/* if set, only addresses below @cutoff */
	u128 cutoff;		/* can be blocked: what a refusal left */
	u64 rng;
};

/*
 * Exact: the address table grows, to 16M keys as the module's default.
 * Compact: fixed size, and each level may hold as many entries.
 * @refused: the set must refuse the data with -ENOSPC, cleanly.
 */
FIXTURE_VARIANT(geoip) {
	u32 alen;
	bool exact;
	u32 levels;		/* the module's defaults: prefix_levels4/6 */
	u64 capacity, max_capacity;
	const char *const *cc;
	u32 ncc;
	bool refused;
};

FIXTURE_VARIANT_ADD(geoip, ipv4_exact) {
	.alen = 4, .exact = true, .levels = 4,
	.capacity = 1024, .max_capacity = 1 << 24,
	.cc = big6, .ncc = ARRAY_SIZE(big6),
};

FIXTURE_VARIANT_ADD(geoip, ipv4_compact) {
	.alen = 4, .exact = false, .levels = 4, .capacity = 1 << 20,
	.cc = big6, .ncc = ARRAY_SIZE(big6),
};

FIXTURE_VARIANT_ADD(geoip, ipv6_exact) {
	.alen = 16, .exact = true, .levels = 6,
	.capacity = 1024, .max_capacity = 1 << 24,
	.cc = fit6, .ncc = ARRAY_SIZE(fit6),
};

FIXTURE_VARIANT_ADD(geoip, ipv6_compact) {
	.alen = 16, .exact = false, .levels = 6, .capacity = 1 << 20,
	.cc = fit6, .ncc = ARRAY_SIZE(fit6),
};

/* Levels of at most 1M entries, so the refusal comes fast and small. */
FIXTURE_VARIANT_ADD(geoip, ipv6_too_many_lengths) {
	.alen = 16, .exact = true, .levels = 6,
	.capacity = 1024, .max_capacity = 1 << 20,
	.cc = big6, .ncc = ARRAY_SIZE(big6), .refused = true,
};

static u128 addr_max(u32 alen)
{
	return alen == 4 ? 0xffffffffU : ~(u128)0;
}

static void to_bytes(u128 v, u8 *a, u32 alen)
{
	u32 i;

	for (i = alen; i-- > 0; v >>= 8)
		a[i] = v;
}

static noinline u128 from_bytes(const u8 *a, u32 alen)
{
	u128 v = 0;
	u32 i;

	for (i = 0; i < alen; i++)
		v = v << 8 | a[i];
	return v;
}

static const char *show(u128 v, u32 alen, char *buf)
{
	u8 a[16];

	to_bytes(v, a, alen);
	return inet_ntop(alen == 4 ? AF_INET : AF_INET6, a, buf,
			 INET6_ADDRSTRLEN);
}

/* splitmix64: fixed seed, so a failure reproduces. */
static u64 rnd(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u128 rnd_in(u64 *state, u128 lo, u128 hi)
{
	u128 r = (u128)rnd(state) << 64 | rnd(state);
	u128 span = hi - lo + 1;

	return span ? lo + r % span : r;	/* 0: the whole space */
}

static u32 country(const FIXTURE_VARIANT(geoip) *v, const char *cc)
{
	u32 i;

	for (i = 0; i < v->ncc; i++)
		if (!strcmp(cc, v->cc[i]))
			return i;
	return OTHER;
}

/*
 * One line: "INTLO,INTHI,CC" (geoip) or "LO,HI,CC" (geoip6). 0, or -1
 * for a malformed line.
 */
static int parse_line(const FIXTURE_VARIANT(geoip) *v, char *line,
		      struct range *r)
{
	char *lo = strtok(line, ","), *hi = strtok(NULL, ","),
	     *cc = strtok(NULL, ",\r\n"), *end;
	u8 a[16];

	if (!lo || !hi || !cc || strlen(cc) != 2 || strtok(NULL, ""))
		return -1;
	r->cc = country(v, cc);
	if (v->alen == 4) {
		unsigned long long v;

		errno = 0;
		v = strtoull(lo, &end, 10);
		if (errno || *end || v > 0xffffffffU)
			return -1;
		r->lo = v;
		v = strtoull(hi, &end, 10);
		if (errno || *end || v > 0xffffffffU)
			return -1;
		r->hi = v;
		return r->lo <= r->hi ? 0 : -1;
	}
	if (inet_pton(AF_INET6, lo, a) != 1)
		return -1;
	r->lo = from_bytes(a, 16);
	if (inet_pton(AF_INET6, hi, a) != 1)
		return -1;
	r->hi = from_bytes(a, 16);
	return r->lo <= r->hi ? 0 : -1;
}

/*
 * Reads every range of the file, which must be sorted and disjoint (the
 * model's binary search relies on it). 0, or -1 with the reason printed.
 */
static int load(FIXTURE_DATA(geoip) *self, const FIXTURE_VARIANT(geoip) *v)
{
	size_t cap = 0, lineno = 0;
	char line[256];
	FILE *f;

	f = fopen(self->path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		struct range r;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (parse_line(v, line, &r)) {
			NOTE("%s:%zu: malformed line\n", self->path, lineno);
			goto err;
		}
		if (self->nall && r.lo <= self->all[self->nall - 1].hi) {
			NOTE("%s:%zu: not after the previous range\n",
			     self->path, lineno);
			goto err;
		}
		if (self->nall == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			self->all = realloc(self->all, cap * sizeof(r));
			if (!self->all)
				goto err;
		}
		self->all[self->nall++] = r;
	}
	fclose(f);
	return 0;
err:
	fclose(f);
	return -1;
}

static int emit(const uint8_t *addr, unsigned int len, void *arg)
{
	struct pfx_list *pl = arg;

	if (pl->n == pl->cap) {
		pl->cap = pl->cap ? 2 * pl->cap : 1 << 16;
		pl->p = realloc(pl->p, pl->cap * sizeof(*pl->p));
		if (!pl->p)
			return -ENOMEM;
	}
	pl->p[pl->n++] = (struct pfx){
		.addr = from_bytes(addr, pl->alen),
		.len = len,
		.cc = pl->cc,
	};
	return 0;
}

/* The truth: is @x in a range of an active country? Binary search. */
static bool blocked(const FIXTURE_DATA(geoip) *self, u128 x)
{
	size_t lo = 0, hi = self->nblk;

	/* the first range with lo > x is at index lo */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (self->blk[mid].lo <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && x <= self->blk[lo - 1].hi &&
	       self->active[self->blk[lo - 1].cc] &&
	       (!self->cut || x < self->cutoff);
}

struct tally {
	u64 checks, blocked, mismatches, false_pos;
};

static void check(const FIXTURE_DATA(geoip) *self, u32 alen, u128 x,
		  struct tally *t)
{
	char buf[INET6_ADDRSTRLEN];
	enum prefix_hit h;
	bool want = blocked(self, x);
	u8 a[16];

	to_bytes(x, a, alen);
	rcu_read_lock();
	h = prefix_set_match(self->s, a, &(u32){ 0 });
	rcu_read_unlock();
	t->checks++;
	t->blocked += want;
	if (want == (h != PREFIX_MISS))
		return;
	/*
	 * A compact address table may claim an address it does not hold
	 * (a fingerprint collision); it never loses one, and prefixes are
	 * exact in both modes.
	 */
	if (!want && h == PREFIX_ADDR && !self->s->addrs->exact) {
		t->false_pos++;
		return;
	}
	if (t->mismatches++ < SHOW_MAX)
		NOTE("%s: the set says %s (hit %d), the ranges say %s\n",
		     show(x, alen, buf), h ? "blocked" : "not blocked", h,
		     want ? "blocked" : "not blocked");
}

/*
 * Every check: random addresses (a third uniform over the space, a third
 * over the data's span, a third inside a random range of any country),
 * every range's lo, hi, lo - 1 and hi + 1, every prefix's first and last
 * address and the ones just outside.
 */
static void check_all(FIXTURE_DATA(geoip) *self, u32 alen, struct tally *t)
{
	u128 max = addr_max(alen), span_lo = self->all[0].lo,
	     span_hi = self->all[self->nall - 1].hi;
	size_t i;

	memset(t, 0, sizeof(*t));
	self->rng = SEED;
	for (i = 0; i < SAMPLES; i++) {
		const struct range *r;

		switch (i % 3) {
		case 0:
			check(self, alen, rnd_in(&self->rng, 0, max), t);
			break;
		case 1:
			check(self, alen,
			      rnd_in(&self->rng, span_lo, span_hi), t);
			break;
		default:
			r = &self->all[rnd(&self->rng) % self->nall];
			check(self, alen, rnd_in(&self->rng, r->lo, r->hi), t);
		}
	}
	for (i = 0; i < self->nall; i++) {
		const struct range *r = &self->all[i];

		check(self, alen, r->lo, t);
		check(self, alen, r->hi, t);
		if (r->lo)
			check(self, alen, r->lo - 1, t);
		if (r->hi != max)
			check(self, alen, r->hi + 1, t);
	}
	for (i = 0; i < self->pl.n; i++) {
		const struct pfx *p = &self->pl.p[i];
		u128 last = p->addr | (max >> p->len);

		if (p->len == 0)
			last = max;
		check(self, alen, p->addr, t);
		check(self, alen, last, t);
		if (p->addr)
			check(self, alen, p->addr - 1, t);
		if (last != max)
			check(self, alen, last + 1, t);
	}
}

static void report(const FIXTURE_DATA(geoip) *self, const char *when)
{
	struct prefix_stats st;
	char lens[64] = "";
	u64 members;
	u32 i;

	prefix_set_get_stats(self->s, &st);
	for (i = 0; i < st.nlevels; i++)
		snprintf(lens + strlen(lens), sizeof(lens) - strlen(lens),
			 "%s/%u", i ? " " : "", st.levels[i]);
	members = st.prefixes + st.addrs.count;
	NOTE("%s: %llu prefixes + %llu full-length addresses; %llu expanded entries at %s; %llu bytes (%.1f per member), %llu rebuilds\n",
	     when, (unsigned long long)st.prefixes,
	     (unsigned long long)st.addrs.count,
	     (unsigned long long)st.expanded, st.nlevels ? lens : "no level",
	     (unsigned long long)st.memory_bytes,
	     members ? (double)st.memory_bytes / members : 0.0,
	     (unsigned long long)st.rebuilds);
}

FIXTURE_SETUP(geoip)
{
	const char *dir = getenv("GEOIP_DIR");

	snprintf(self->path, sizeof(self->path), "%s/geoip%s",
		 dir ? dir : GEOIP_DIR_DEFAULT, variant->alen == 16 ? "6" : "");
	self->absent = access(self->path, R_OK) != 0;
	rcu_register_thread();
}

FIXTURE_TEARDOWN(geoip)
{
	prefix_set_destroy(self->s);
	free(self->all);
	free(self->blk);
	free(self->pl.p);
	rcu_unregister_thread();
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The chosen countries' ranges, and their prefixes. */
static void split_all(struct __test_metadata *_metadata,
		      FIXTURE_DATA(geoip) *self,
		      const FIXTURE_VARIANT(geoip) *variant)
{
	u64 hist[129] = { 0 }, per_cc[NCOUNTRIES_MAX] = { 0 };
	const u32 alen = variant->alen;
	u32 cc, nlens = 0;
	size_t n;

	self->blk = malloc(self->nall * sizeof(*self->blk));
	ASSERT_NE(NULL, self->blk);
	self->pl.alen = alen;
	for (n = 0; n < self->nall; n++) {
		const struct range *r = &self->all[n];
		u8 lo[16], hi[16];

		if (r->cc == OTHER)
			continue;
		self->blk[self->nblk++] = *r;
		per_cc[r->cc]++;
		to_bytes(r->lo, lo, alen);
		to_bytes(r->hi, hi, alen);
		self->pl.cc = r->cc;
		ASSERT_EQ(0, range_split(lo, hi, alen, emit, &self->pl));
	}
	for (cc = 0; cc < variant->ncc; cc++) {
		NOTE("%s: %llu ranges\n", variant->cc[cc],
		     (unsigned long long)per_cc[cc]);
		ASSERT_NE(0U, per_cc[cc]);
		self->active[cc] = true;
	}
	for (n = 0; n < self->pl.n; n++)
		nlens += !hist[self->pl.p[n].len]++;
	NOTE("blocked: %zu ranges -> %zu prefixes of %u distinct lengths, %llu of them full-length\n",
	     self->nblk, self->pl.n, nlens,
	     (unsigned long long)hist[8 * alen]);
	ASSERT_GE(nlens, 20U);
}

/*
 * Inserts the prefixes from @from on, in address order; returns the
 * index of the first one refused (pl.n if none), whose error is in @rc.
 */
static size_t insert_all(FIXTURE_DATA(geoip) *self, size_t from, int *rc)
{
	size_t n;
	u8 a[16];

	*rc = 0;
	for (n = from; n < self->pl.n; n++) {
		to_bytes(self->pl.p[n].addr, a, self->pl.alen);
		*rc = prefix_set_insert(self->s, a, self->pl.p[n].len, 0);
		if (*rc)
			break;
	}
	return n;
}

/*
 * check_all(), then the tally must show exact verdicts, and each verdict
 * at least @min times, or the comparison proves little.
 */
static void verify(struct __test_metadata *_metadata,
		   FIXTURE_DATA(geoip) *self, u32 alen, u64 min)
{
	double t0 = now();
	struct tally t;
	u64 fp_bound;

	check_all(self, alen, &t);
	/* the documented compact-mode bound: 8 / 2^fp_bits per lookup */
	fp_bound = t.checks * 8 / (1 << 16);
	NOTE("checked %llu addresses in %.1f s, %llu blocked: %llu mismatches, %llu compact false positives (bound %llu)\n",
	     (unsigned long long)t.checks, now() - t0,
	     (unsigned long long)t.blocked, (unsigned long long)t.mismatches,
	     (unsigned long long)t.false_pos, (unsigned long long)fp_bound);
	ASSERT_EQ(0U, t.mismatches);
	ASSERT_LE(t.false_pos, fp_bound);
	ASSERT_GE(t.blocked, min);
	ASSERT_GE(t.checks - t.blocked, min);
}

/*
 * The refusal must change nothing: the set is as before the call, and
 * its verdicts are those of the prefixes inserted before it.
 */
static void refused(struct __test_metadata *_metadata,
		    FIXTURE_DATA(geoip) *self, const struct prefix_params *p)
{
	struct prefix_stats before, after;
	char buf[INET6_ADDRSTRLEN];
	size_t n, m;
	u8 a[16];
	int rc;

	n = insert_all(self, 0, &rc);
	ASSERT_LT(n, self->pl.n);
	NOTE("refused %s/%u, prefix %zu of %zu, with %d (levels of at most %llu entries)\n",
	     show(self->pl.p[n].addr, p->addr_len, buf), self->pl.p[n].len,
	     n + 1, self->pl.n, rc,
	     (unsigned long long)p->addrs.max_capacity);
	ASSERT_EQ(-ENOSPC, rc);
	report(self, "before the refusal");
	prefix_set_get_stats(self->s, &before);
	to_bytes(self->pl.p[n].addr, a, p->addr_len);
	ASSERT_EQ(-ENOSPC, prefix_set_insert(self->s, a, self->pl.p[n].len, 0));
	prefix_set_get_stats(self->s, &after);
	ASSERT_EQ(0, memcmp(&before, &after, sizeof(before)));
	ASSERT_FALSE(prefix_set_contains(self->s, a, self->pl.p[n].len));
	for (m = 0; m < n; m++) {
		to_bytes(self->pl.p[m].addr, a, p->addr_len);
		ASSERT_TRUE(prefix_set_contains(self->s, a,
						self->pl.p[m].len));
	}
	self->cut = true;
	self->cutoff = self->pl.p[n].addr;
	verify(_metadata, self, p->addr_len, 1000);
}

TEST_F_TIMEOUT(geoip, verdicts_equal_the_ranges, 300)
{
	const u32 alen = variant->alen;
	struct prefix_params p = {
		.addr_len = alen,
		.max_levels = variant->levels,
		.addrs = {
			.capacity = variant->capacity,
			.max_capacity = variant->max_capacity,
			.seed = SEED,
			.fp_bits = 16,
			.key_len = alen,
			.exact = variant->exact,
		},
	};
	struct prefix_stats before, after;
	size_t n, kept = 0;
	char label[32];
	double t0;
	int rc;

	if (self->absent)
		SKIP(return, "%s is missing: install Debian's tor-geoipdb package (make deps)",
		     self->path);
	ASSERT_EQ(0, load(self, variant));
	NOTE("%s: %zu ranges\n", self->path, self->nall);
	split_all(_metadata, self, variant);
	self->s = prefix_set_create(&p);
	ASSERT_NE(NULL, self->s);
	if (variant->refused) {
		refused(_metadata, self, &p);
		return;
	}

	t0 = now();
	n = insert_all(self, 0, &rc);
	if (n < self->pl.n) {
		char buf[INET6_ADDRSTRLEN];

		NOTE("insert %s/%u: %d\n", show(self->pl.p[n].addr, alen, buf),
		     self->pl.p[n].len, rc);
		ASSERT_EQ(0, rc);
	}
	NOTE("inserted in %.1f s\n", now() - t0);
	report(self, "all countries");
	prefix_set_get_stats(self->s, &before);
	ASSERT_EQ(self->pl.n, before.prefixes + before.addrs.count);
	verify(_metadata, self, alen, SAMPLES / 50);

	/* Delete one country again: the expansion must shrink, exactly. */
	for (n = 0; n < self->pl.n; n++) {
		u8 a[16];

		kept += self->pl.p[n].cc != DROPPED;
		if (self->pl.p[n].cc != DROPPED)
			continue;
		to_bytes(self->pl.p[n].addr, a, alen);
		ASSERT_EQ(0, prefix_set_delete(self->s, a, self->pl.p[n].len));
	}
	self->active[DROPPED] = false;
	snprintf(label, sizeof(label), "without %s", variant->cc[DROPPED]);
	report(self, label);
	prefix_set_get_stats(self->s, &after);
	ASSERT_EQ(kept, after.prefixes + after.addrs.count);
	ASSERT_LT(after.expanded, before.expanded);
	verify(_metadata, self, alen, SAMPLES / 50);
}

TEST_HARNESS_MAIN
