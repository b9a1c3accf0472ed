// SPDX-License-Identifier: GPL-2.0
/*
 * miss_path: what a packet from an address outside an exact IPv4 set costs
 * on the host, natively, with the caches as they are: a prefilter's bit
 * test, then, where the bit is set, the lookup the kfunc makes
 * (prefix_set_match() on the module's prefix set, built as the module
 * builds it). The guest's bench-xdp cannot show this: qemu TCG models no
 * cache, and a prefilter trades instructions for a memory read.
 *
 * The prefilters, each a bitmap in memory of its own:
 *   /16      a bit per /16, the programs' prefilter today (8 KiB);
 *   /24      a bit per /24 (2 MiB);
 *   hash N   a bit per address hashed into N bits per key of the set (a
 *            power of two of bits), one bit test.
 * A bit is set wherever a key of the set lies, so that a clear bit is a
 * miss the set agrees with. The baseline is a plain open-addressing hash
 * set of the same keys (below: linear probing, at most half full, the
 * core's hash); the chained hash set of the core bench (hashset.c, chained
 * as BPF hash maps are) is measured beside it.
 *
 * For 100k and 1M keys: LOOKUPS absent addresses at random (present keys
 * are key_of(i), i < keys; absent ones key_of(i), i >= 2^31: a bijection,
 * so they never meet), looked up independently (a loop whose cache misses
 * the CPU overlaps) and chained (each address's index depends on the
 * answers so far, an lfence after each: the latency one packet after
 * another sees). Every figure is a median over REPS repetitions, the
 * subjects taking turns in an order rotated each time; the ratios against
 * the hash set are each repetition's, then their median.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "uapi/linux/cfilter.h"
#include "cuckoo_hash.h"
#include "hashset.h"
#include "host.h"
#include "mix.h"
#include "prefix.h"

#define REPS		7
#define LOOKUPS		(1U << 20)	/* a power of two */
#define ABSENT_BASE	(1U << 31)
#define SEED		0x5eed
/* hash_32()'s multiplier */
#define GOLDEN_32	0x61c88647U

/* The module's defaults (kmod/main.c), as bench/xdp/probes.c has them. */
#define SET_CAPACITY		65536
#define SET_MAX_CAPACITY	(16ULL << 20)

#if defined(__x86_64__) || defined(__i386__)
#define CHAIN_BARRIER()	__builtin_ia32_lfence()
#else
#define CHAIN_BARRIER()	__asm__ __volatile__("" ::: "memory")
#endif

enum subject {
	S_OPEN,		/* the baseline */
	S_HASHSET,
	S_CORE,		/* no prefilter: the kfunc's lookup alone */
	S_P16,
	S_P24,
	S_H8,
	S_H16,
	S_H8X2,
	S_H16X2,	/* the programs' (struct cfilter_prefilter's hashed bits) */
	NSUBJECTS,
};

static const char *const sname[NSUBJECTS] = {
	"open addressing", "chained hash set", "core, no prefilter", "/16 bit + core",
	"/24 bit + core", "hash 8 b/key + core", "hash 16 b/key + core",
	"2 bits/8 b/key + core", "2 bits/16 b/key + core",
};

/* A bitmap of 2^order bits. */
struct bitmap {
	u64		*words;
	unsigned int	order;
};

/* Open addressing: 0 marks a free slot, and the key 0 is a flag instead. */
struct open_set {
	u32		*slots;
	u32		mask;
	bool		has_zero;
	u32		hash_a;
	u32		hash_b;
};

struct subjects {
	struct open_set		open;
	struct hashset		*hs;
	struct prefix_set	*set;
	struct bitmap		bm[NSUBJECTS];	/* the prefilters' */
	u32			*probe;		/* absent addresses, network order */
};

static u32 key_of(u32 i)
{
	return bench_mix32(i);
}

static void die(const char *msg)
{
	fprintf(stderr, "miss_path: %s\n", msg);
	exit(1);
}

static __always_inline u32 open_slot(const struct open_set *o, const u32 *a)
{
	return cuckoo_hash_default(a, 4, o->hash_a, o->hash_b) & o->mask;
}

static void open_init(struct open_set *o, u32 keys)
{
	u64 slots = 1;

	while (slots < 2ULL * keys)
		slots <<= 1;
	o->slots = cuckoo_table_zalloc(slots * sizeof(*o->slots));
	if (!o->slots)
		die("out of memory for the open-addressing set");
	o->mask = slots - 1;
	o->hash_a = cuckoo_hash_a(SEED);
	o->hash_b = cuckoo_hash_b(SEED);
}

static void open_insert(struct open_set *o, u32 a)
{
	u32 i = open_slot(o, &a);

	if (!a) {
		o->has_zero = true;
		return;
	}
	while (o->slots[i] && o->slots[i] != a)
		i = (i + 1) & o->mask;
	o->slots[i] = a;
}

static __always_inline bool open_contains(const struct open_set *o,
					  const u32 *a)
{
	u32 i = open_slot(o, a);

	if (!*a)
		return o->has_zero;
	for (;; i = (i + 1) & o->mask) {
		if (o->slots[i] == *a)
			return true;
		if (!o->slots[i])
			return false;
	}
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The bit of @subj's prefilter an address (host order) falls on. */
static __always_inline u32 bit_of(enum subject subj, unsigned int order,
				  u32 a)
{
	switch (subj) {
	case S_P16:
		return a >> 16;
	case S_P24:
		return a >> 8;
	default:
		return ((a ^ SEED) * GOLDEN_32) >> (32 - order);
	}
}

/* The programs' hash of an IPv4 source address (host order). */
static __always_inline u32 prog_hash(u32 a)
{
	return cfilter_prefilter_hash4(CFILTER_KEY_SRC4, htonl(a));
}

/* The word mask of hashed bitmap @bm, as the programs' hmask. */
static __always_inline u32 hmask_of(const struct bitmap *bm)
{
	return bm->order < 6 ? 0 : (1U << (bm->order - 6)) - 1;
}

static __always_inline bool bit_test(const struct bitmap *bm,
				     enum subject subj, u32 a)
{
	u32 b, h;
	u64 w, bits;

	/* as the programs test them (bpf/cfilter.bpf.c) */
	if (subj == S_H8X2 || subj == S_H16X2) {
		h = prog_hash(a);
		w = bm->words[cfilter_prefilter_hword(h, hmask_of(bm))];
		bits = cfilter_prefilter_hbits(h);
		return (w & bits) == bits;
	}
	b = bit_of(subj, bm->order, a);
	return bm->words[b / 64] >> (b % 64) & 1;
}

/* Does @subj drop the address @a (network order)? */
static __always_inline bool lookup(const struct subjects *s,
				   enum subject subj, const u32 *a)
{
	u32 tag;

	switch (subj) {
	case S_OPEN:
		return open_contains(&s->open, a);
	case S_HASHSET:
		return hashset_contains(s->hs, a);
	case S_CORE:
		break;
	default:
		if (!bit_test(&s->bm[subj], subj, ntohl(*a)))
			return false;
	}
	return prefix_set_match(s->set, (const u8 *)a, &tag) != PREFIX_MISS;
}

/* ns per lookup of every probe address, independent or chained. */
static __always_inline double run(const struct subjects *s,
				  enum subject subj, bool chained)
{
	double t0;
	u64 n = 0;
	u32 i;

	rcu_read_lock();
	t0 = now_ns();
	for (i = 0; i < LOOKUPS; i++) {
		n += lookup(s, subj, &s->probe[chained ?
					       (i + (u32)n) & (LOOKUPS - 1) : i]);
		if (chained)
			CHAIN_BARRIER();
	}
	t0 = now_ns() - t0;
	rcu_read_unlock();
	if (n)
		die("an absent address was found");
	return t0 / LOOKUPS;
}

static double run_subject(const struct subjects *s, enum subject subj,
			  bool chained)
{
	switch (subj) {
	case S_OPEN:
		return run(s, S_OPEN, chained);
	case S_HASHSET:
		return run(s, S_HASHSET, chained);
	case S_CORE:
		return run(s, S_CORE, chained);
	case S_P16:
		return run(s, S_P16, chained);
	case S_P24:
		return run(s, S_P24, chained);
	case S_H8:
		return run(s, S_H8, chained);
	case S_H16:
		return run(s, S_H16, chained);
	case S_H8X2:
		return run(s, S_H8X2, chained);
	default:
		return run(s, S_H16X2, chained);
	}
}

static unsigned int order_for(u64 bits)
{
	unsigned int order = 0;

	while ((1ULL << order) < bits)
		order++;
	return order;
}

static void bitmap_init(struct bitmap *bm, unsigned int order)
{
	bm->order = order;
	bm->words = cuckoo_table_zalloc(((1ULL << order) + 63) / 64 *
					sizeof(u64));
	if (!bm->words)
		die("out of memory for a bitmap");
}

static void bitmap_set(struct bitmap *bm, enum subject subj, u32 a)
{
	u32 b, h;

	if (subj == S_H8X2 || subj == S_H16X2) {
		h = prog_hash(a);
		bm->words[cfilter_prefilter_hword(h, hmask_of(bm))] |=
			cfilter_prefilter_hbits(h);
		return;
	}
	b = bit_of(subj, bm->order, a);
	bm->words[b / 64] |= 1ULL << (b % 64);
}

static void build(struct subjects *s, u32 keys)
{
	struct prefix_params p = {
		.addr_len = 4,
		.addrs = {
			.capacity = SET_CAPACITY,
			.max_capacity = SET_MAX_CAPACITY,
			.seed = SEED,
			.fp_bits = 16,
			.key_len = 4,
			.exact = true,
		},
	};
	unsigned int subj;
	u32 i, a;

	s->set = prefix_set_create(&p);
	s->hs = hashset_create(keys, 4, SEED);
	if (!s->set || !s->hs)
		die("out of memory for the sets");
	open_init(&s->open, keys);
	bitmap_init(&s->bm[S_P16], 16);
	bitmap_init(&s->bm[S_P24], 24);
	bitmap_init(&s->bm[S_H8], order_for(8ULL * keys));
	bitmap_init(&s->bm[S_H16], order_for(16ULL * keys));
	bitmap_init(&s->bm[S_H8X2], order_for(8ULL * keys));
	bitmap_init(&s->bm[S_H16X2], order_for(16ULL * keys));
	for (i = 0; i < keys; i++) {
		a = htonl(key_of(i));
		if (prefix_set_insert(s->set, (const u8 *)&a, 32, 0) ||
		    hashset_insert(s->hs, &a))
			die("inserting a key failed");
		open_insert(&s->open, a);
		for (subj = S_P16; subj < NSUBJECTS; subj++)
			bitmap_set(&s->bm[subj], subj, key_of(i));
	}
	s->probe = malloc(LOOKUPS * sizeof(*s->probe));
	if (!s->probe)
		die("out of memory for the addresses");
}

static void draw_probes(struct subjects *s, u64 *rng)
{
	u32 i;

	for (i = 0; i < LOOKUPS; i++) {
		*rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
		s->probe[i] = htonl(key_of(ABSENT_BASE | (u32)(*rng >> 33)));
	}
}

static void destroy(struct subjects *s)
{
	unsigned int subj;

	for (subj = S_P16; subj < NSUBJECTS; subj++)
		kvfree(s->bm[subj].words);
	kvfree(s->open.slots);
	prefix_set_destroy(s->set);
	hashset_destroy(s->hs);
	free(s->probe);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v)
{
	qsort(v, REPS, sizeof(*v), cmp_double);
	return v[REPS / 2];
}

/* Of LOOKUPS absent addresses, the fraction @subj's prefilter lets through. */
static double let_through(const struct subjects *s, enum subject subj)
{
	u32 i, n = 0;

	if (subj < S_P16)
		return 1.0;
	for (i = 0; i < LOOKUPS; i++)
		n += bit_test(&s->bm[subj], subj, ntohl(s->probe[i]));
	return (double)n / LOOKUPS;
}

static void bench_keys(u32 keys)
{
	double ns[NSUBJECTS][2][REPS], ratio[NSUBJECTS][2][REPS];
	double through[NSUBJECTS];
	struct prefix_stats st;
	struct subjects s = { 0 };
	unsigned int rep, k, subj, c;
	u64 rng = SEED;

	fprintf(stderr, "miss_path: %u keys: building\n", keys);
	build(&s, keys);
	draw_probes(&s, &rng);
	for (subj = 0; subj < NSUBJECTS; subj++)
		through[subj] = let_through(&s, subj);
	for (rep = 0; rep < REPS; rep++) {
		draw_probes(&s, &rng);
		for (k = 0; k < NSUBJECTS; k++) {
			subj = (k + rep) % NSUBJECTS;
			for (c = 0; c < 2; c++)
				ns[subj][c][rep] = run_subject(&s, subj, c);
		}
		for (subj = 0; subj < NSUBJECTS; subj++)
			for (c = 0; c < 2; c++)
				ratio[subj][c][rep] = ns[subj][c][rep] /
						      ns[S_OPEN][c][rep];
		fprintf(stderr, "miss_path: %u keys: repetition %u of %d\n",
			keys, rep + 1, REPS);
	}

	prefix_set_get_stats(s.set, &st);
	printf("\n== %u random IPv4 addresses: the core's set %.2f MiB, open addressing %.2f MiB, the chained hash set %.2f MiB ==\n",
	       keys, st.memory_bytes / 1048576.0,
	       (s.open.mask + 1.0) * sizeof(u32) / 1048576.0,
	       hashset_memory_bytes(s.hs) / 1048576.0);
	print_load("load average after the lookups");
	print_huge("huge pages");
	printf("%-22s %10s %9s %7s %7s %7s %7s\n", "subject", "prefilter",
	       "let pass", "indep", "chained", "indep", "chained");
	printf("%-22s %10s %9s %7s %7s %7s %7s\n", "", "bytes", "", "ns",
	       "ns", "/open", "/open");
	for (subj = 0; subj < NSUBJECTS; subj++) {
		u64 bytes = subj < S_P16 ? 0 : (1ULL << s.bm[subj].order) / 8;

		printf("%-22s %10llu %9.4f", sname[subj],
		       (unsigned long long)bytes, through[subj]);
		for (c = 0; c < 2; c++)
			printf(" %7.1f", median(ns[subj][c]));
		for (c = 0; c < 2; c++)
			printf(" %7.2f", median(ratio[subj][c]));
		printf("\n");
	}
	destroy(&s);
}

static void print_header(void)
{
	print_host("miss_path");
	printf("; L2 %ld KiB, L3 %ld KiB\n", sysconf(_SC_LEVEL2_CACHE_SIZE) >> 10,
	       sysconf(_SC_LEVEL3_CACHE_SIZE) >> 10);
	printf("absent IPv4 addresses against an exact set of random ones: a prefilter bit, then, if set,\n"
	       "prefix_set_match() as the kfunc calls it (the program's call into the kfunc, which every set bit\n"
	       "costs as well, is not counted); the bitmaps are asked of huge pages, as the core's tables are;\n"
	       "let pass: the fraction of absent addresses whose bit is set (and so pay the lookup);\n"
	       "median of %d repetitions of %u lookups, thread CPU time; /open: the same repetition's ratio\n"
	       "against an open-addressing set of the same keys (linear probing, at most half full); the\n"
	       "chained hash set is hashset.c's; indep: a loop whose misses overlap; chained: each lookup\n"
	       "waits for the one before (an lfence after each)\n",
	       REPS, LOOKUPS);
}

int main(void)
{
	rcu_register_thread();
	print_header();
	bench_keys(100000);
	bench_keys(1000000);
	rcu_unregister_thread();
	return 0;
}
