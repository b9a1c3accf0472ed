// SPDX-License-Identifier: GPL-2.0
/*
 * A real data set against prefix sets (core/prefix.c): Debian's
 * tor-geoipdb country ranges. Every country's IPv4 or IPv6 ranges at once
 * are split into CIDR prefixes by cfctl's range_split() and put in a
 * prefix set; then, for over a million addresses per family (uniform over
 * the space, over the data's span and inside random ranges, plus the
 * edges of every range and of every prefix), the set's verdict must equal
 * the one computed directly from the ranges by binary search, and an
 * exact set's structure must keep every invariant (prefix_check.h). One
 * country is then deleted again and everything re-checked. Each case prints the
 * prefixes, lengths, markers and memory per stored prefix, which must be
 * at most 64 bytes (the bound the design promises on these sets), and
 * the probes a lookup makes at most. A variant with small tables shows a
 * full table refused cleanly.
 *
 * Skipped (not passed) when the data files are absent: they come from the
 * tor-geoipdb package (make deps installs it); GEOIP_DIR overrides the
 * folder.
 */
#include "prefix_check.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/range.h"
#include "kselftest_harness.h"

#define NOTE(...) do { ksft_print_msg(__VA_ARGS__); fflush(stdout); } while (0)

#define GEOIP_DIR_DEFAULT	"/usr/share/tor"
#define SEED			0x9e01b5eed5eedULL
/* Random addresses checked per family, besides the edges. */
#define SAMPLES			(3U << 19)
/* Mismatches printed before giving up on a pass. */
#define SHOW_MAX		10
/* The country deleted again, and everything re-checked. */
#define DROPPED			"US"
/* The bound on memory per stored prefix, markers included. */
#define BYTES_PER_PREFIX_MAX	64

typedef unsigned __int128 u128;

struct range {
	u128 lo, hi;
	u32 cc;			/* the two letters, by cc_of() */
};

struct pfx {
	u128 addr;
	u32 len;
	u32 cc;
};

struct pfx_list {
	struct pfx *p;
	size_t n, cap;
	u32 cc;			/* the range being split's */
	u32 alen;
};

FIXTURE(geoip) {
	char path[512];
	bool absent;
	struct range *all;	/* every range of the file, sorted */
	size_t nall;
	struct pfx_list pl;	/* their prefixes, by range_split() */
	struct prefix_set *s;
	bool dropped;		/* DROPPED's ranges are not blocked */
	bool cut;		/* if set, only addresses below @cutoff */
	u128 cutoff;		/* can be blocked: what a refusal left */
	u64 rng;
};

/*
 * Exact: the address table grows, to 16M keys as the module's default.
 * Compact: fixed size, and each length table may hold as many entries.
 * @refused: tables of at most max_capacity entries, too small for the
 * data: the set must refuse it with -ENOSPC, cleanly.
 */
FIXTURE_VARIANT(geoip) {
	u32 alen;
	bool exact;
	u64 capacity, max_capacity;
	bool refused;
};

FIXTURE_VARIANT_ADD(geoip, ipv4_exact) {
	.alen = 4, .exact = true, .capacity = 1024, .max_capacity = 1 << 24,
};

FIXTURE_VARIANT_ADD(geoip, ipv4_compact) {
	.alen = 4, .exact = false, .capacity = 1 << 20,
};

FIXTURE_VARIANT_ADD(geoip, ipv6_exact) {
	.alen = 16, .exact = true, .capacity = 1024, .max_capacity = 1 << 24,
};

FIXTURE_VARIANT_ADD(geoip, ipv6_compact) {
	.alen = 16, .exact = false, .capacity = 1 << 20,
};

FIXTURE_VARIANT_ADD(geoip, ipv6_table_full) {
	.alen = 16, .exact = true, .capacity = 1024, .max_capacity = 1 << 14,
	.refused = true,
};

static u128 addr_max(u32 alen)
{
	return alen == 4 ? 0xffffffffU : ~(u128)0;
}

static const char *show(u128 v, u32 alen, char *buf)
{
	u8 a[16];

	range_addr_bytes(v, a, alen);
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

static u32 cc_of(const char *cc)
{
	return (u8)cc[0] << 8 | (u8)cc[1];
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
	r->cc = cc_of(cc);
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
	r->lo = range_addr_num(a, 16);
	if (inet_pton(AF_INET6, hi, a) != 1)
		return -1;
	r->hi = range_addr_num(a, 16);
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
		.addr = range_addr_num(addr, pl->alen),
		.len = len,
		.cc = pl->cc,
	};
	return 0;
}

/* The truth: is @x in a range still blocked? Binary search. */
static bool blocked(const FIXTURE_DATA(geoip) *self, u128 x)
{
	size_t lo = 0, hi = self->nall;

	/* the first range with lo > x is at index lo */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (self->all[mid].lo <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && x <= self->all[lo - 1].hi &&
	       !(self->dropped && self->all[lo - 1].cc == cc_of(DROPPED)) &&
	       (!self->cut || x < self->cutoff);
}

struct tally {
	u64 checks, blocked, mismatches, false_pos;
	u32 max_probes;
};

static void check(const FIXTURE_DATA(geoip) *self, u32 alen, u128 x,
		  struct tally *t)
{
	char buf[INET6_ADDRSTRLEN];
	enum prefix_hit h;
	bool want = blocked(self, x);
	u32 tag, probes;
	u8 a[16];

	range_addr_bytes(x, a, alen);
	h = prefix_match_counted(self->s, a, &tag, &probes);
	if (probes > t->max_probes)
		t->max_probes = probes;
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

/* Prints the set's figures; returns its bytes per stored member. */
static double report(const FIXTURE_DATA(geoip) *self, const char *when)
{
	struct prefix_stats st;
	u64 members;
	double per;

	prefix_set_get_stats(self->s, &st);
	members = st.prefixes + st.addrs.count;
	per = members ? (double)st.memory_bytes / members : 0.0;
	NOTE("%s: %llu prefixes + %llu full-length addresses, %u distinct lengths, %llu markers; %llu bytes, %.1f per stored prefix; at most %u probes\n",
	     when, (unsigned long long)st.prefixes,
	     (unsigned long long)st.addrs.count, st.lengths,
	     (unsigned long long)st.markers,
	     (unsigned long long)st.memory_bytes, per, st.probes);
	return per;
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
	free(self->pl.p);
	rcu_unregister_thread();
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Every range's prefixes. */
static void split_all(struct __test_metadata *_metadata,
		      FIXTURE_DATA(geoip) *self,
		      const FIXTURE_VARIANT(geoip) *variant)
{
	u64 hist[129] = { 0 };
	const u32 alen = variant->alen;
	u32 nlens = 0;
	size_t n;

	self->pl.alen = alen;
	for (n = 0; n < self->nall; n++) {
		const struct range *r = &self->all[n];
		u8 lo[16], hi[16];

		range_addr_bytes(r->lo, lo, alen);
		range_addr_bytes(r->hi, hi, alen);
		self->pl.cc = r->cc;
		ASSERT_EQ(0, range_split(lo, hi, alen, emit, &self->pl));
	}
	for (n = 0; n < self->pl.n; n++)
		nlens += !hist[self->pl.p[n].len]++;
	NOTE("%zu ranges -> %zu prefixes of %u distinct lengths, %llu of them full-length\n",
	     self->nall, self->pl.n, nlens,
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
		range_addr_bytes(self->pl.p[n].addr, a, self->pl.alen);
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
	NOTE("checked %llu addresses in %.1f s, %llu blocked: %llu mismatches, %llu compact false positives (bound %llu), at most %u probes\n",
	     (unsigned long long)t.checks, now() - t0,
	     (unsigned long long)t.blocked, (unsigned long long)t.mismatches,
	     (unsigned long long)t.false_pos, (unsigned long long)fp_bound,
	     t.max_probes);
	ASSERT_EQ(0U, t.mismatches);
	ASSERT_LE(t.max_probes, alen == 4 ? 6U : 8U);
	ASSERT_LE(t.false_pos, fp_bound);
	ASSERT_GE(t.blocked, min);
	ASSERT_GE(t.checks - t.blocked, min);
}

/* The structure's invariants (prefix_check.h) on the whole set. */
static void check_structure(struct __test_metadata *_metadata,
			    FIXTURE_DATA(geoip) *self)
{
	double t0 = now();
	struct ref r;
	u64 bad;
	size_t n;
	u8 a[16];

	ref_init(&r, self->pl.alen);
	for (n = 0; n < self->pl.n; n++) {
		memset(a, 0, sizeof(a));
		range_addr_bytes(self->pl.p[n].addr, a, self->pl.alen);
		ref_add(&r, a, self->pl.p[n].len, 0);
	}
	bad = prefix_check_set(self->s, &r) +
	      prefix_check_summary(self->s, &r);
	NOTE("structure and summary checked in %.1f s: %llu violations%s%s\n", now() - t0,
	     (unsigned long long)bad, bad ? ", first: " : "", check_why);
	ref_free(&r);
	ASSERT_EQ(0U, bad);
}

/* The counters a refused insert must leave as they were. */
struct counters {
	u64 count[PREFIX_BITS_MAX], hist[PREFIX_BITS_MAX], used[2];
	u64 entries, nprefixes, naddrs;
};

static void counters_of(const struct prefix_set *s, struct counters *c)
{
	memcpy(c->count, s->count, sizeof(c->count));
	memcpy(c->hist, s->hist, sizeof(c->hist));
	memcpy(c->used, s->used, sizeof(c->used));
	c->entries = s->entries;
	c->nprefixes = s->nprefixes;
	c->naddrs = s->naddrs;
}

/*
 * Past the first refusal, the rest of the prefixes: each refusal must
 * leave the counters as they were, also where the insert needed new
 * markers on its path and the table of its own length refused it after
 * they were added (they must go again); then the whole structure must be
 * that of the prefixes taken.
 */
static void refused_rest(struct __test_metadata *_metadata,
			 FIXTURE_DATA(geoip) *self, size_t first)
{
	u32 alen = self->pl.alen, len, v;
	u64 refusals = 0, mid_chain = 0;
	struct counters before, after;
	struct ref r;
	size_t n;
	u8 a[16];
	int rc;

	ref_init(&r, alen);
	for (n = 0; n < self->pl.n; n++) {
		memset(a, 0, sizeof(a));
		range_addr_bytes(self->pl.p[n].addr, a, alen);
		len = self->pl.p[n].len;
		if (n < first) {
			ref_add(&r, a, len, 0);
			continue;
		}
		counters_of(self->s, &before);
		rc = prefix_set_insert(self->s, a, len, 0);
		if (!rc) {
			ref_add(&r, a, len, 0);
			continue;
		}
		ASSERT_EQ(-ENOSPC, rc);
		counters_of(self->s, &after);
		ASSERT_EQ(0, memcmp(&before, &after, sizeof(before)));
		refusals++;
		mid_chain += len < 8 * alen && prefix_lo(len) &&
			     prefix_get(self->s, prefix_lo(len), a, &v);
	}
	NOTE("then %llu more refused, %llu of them needing new markers on their path\n",
	     (unsigned long long)refusals, (unsigned long long)mid_chain);
	ASSERT_LT(0U, mid_chain);
	ASSERT_EQ(0U, prefix_check_set(self->s, &r));
	ref_free(&r);
}

/*
 * The refusal must change nothing: the set is exactly as before the call
 * (every entry, counter and summary), and its verdicts are those of the
 * prefixes inserted before it.
 */
static void refused(struct __test_metadata *_metadata,
		    FIXTURE_DATA(geoip) *self, const struct prefix_params *p)
{
	char buf[INET6_ADDRSTRLEN];
	size_t n, m, size;
	u8 a[16], *d;
	int rc;

	n = insert_all(self, 0, &rc);
	ASSERT_LT(n, self->pl.n);
	NOTE("refused %s/%u, prefix %zu of %zu, with %d (tables of at most %llu entries)\n",
	     show(self->pl.p[n].addr, p->addr_len, buf), self->pl.p[n].len,
	     n + 1, self->pl.n, rc,
	     (unsigned long long)p->addrs.max_capacity);
	ASSERT_EQ(-ENOSPC, rc);
	report(self, "before the refusal");
	d = prefix_dump(self->s, &size);
	range_addr_bytes(self->pl.p[n].addr, a, p->addr_len);
	ASSERT_EQ(-ENOSPC, prefix_set_insert(self->s, a, self->pl.p[n].len, 0));
	ASSERT_TRUE(prefix_dump_same(self->s, d, size));
	free(d);
	ASSERT_FALSE(prefix_set_contains(self->s, a, self->pl.p[n].len));
	for (m = 0; m < n; m++) {
		range_addr_bytes(self->pl.p[m].addr, a, p->addr_len);
		ASSERT_TRUE(prefix_set_contains(self->s, a,
						self->pl.p[m].len));
	}
	self->cut = true;
	self->cutoff = self->pl.p[n].addr;
	verify(_metadata, self, p->addr_len, 1000);
	refused_rest(_metadata, self, n);
}

TEST_F_TIMEOUT(geoip, verdicts_equal_the_ranges, 300)
{
	const u32 alen = variant->alen;
	struct prefix_params p = {
		.addr_len = alen,
		.addrs = {
			.capacity = variant->capacity,
			.max_capacity = variant->max_capacity,
			.seed = SEED,
			.fp_bits = 16,
			.key_len = alen,
			.exact = variant->exact,
		},
	};
	struct prefix_stats after;
	size_t n, kept = 0;
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
	ASSERT_LE(report(self, "every country"), BYTES_PER_PREFIX_MAX);
	if (variant->exact)
		check_structure(_metadata, self);
	verify(_metadata, self, alen, SAMPLES / 50);

	/* Delete one country again: exactly its verdicts change. */
	for (n = 0; n < self->pl.n; n++) {
		u8 a[16];

		kept += self->pl.p[n].cc != cc_of(DROPPED);
		if (self->pl.p[n].cc != cc_of(DROPPED))
			continue;
		range_addr_bytes(self->pl.p[n].addr, a, alen);
		ASSERT_EQ(0, prefix_set_delete(self->s, a, self->pl.p[n].len));
	}
	self->dropped = true;
	/* (tables keep their size after deletes: no bound here) */
	report(self, "without " DROPPED);
	prefix_set_get_stats(self->s, &after);
	ASSERT_EQ(kept, after.prefixes + after.addrs.count);
	ASSERT_LT(kept, self->pl.n);
	verify(_metadata, self, alen, SAMPLES / 50);
}

TEST_HARNESS_MAIN
