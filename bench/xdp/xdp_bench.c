// SPDX-License-Identifier: GPL-2.0
/*
 * xdp_bench: ns per packet of cfilter's XDP program against XDP programs
 * that parse alike and look the source up in a BPF hash map, LPM trie or
 * Bloom filter (baseline.bpf.c), through BPF_PROG_TEST_RUN. Run as root
 * with cfilter.ko loaded (scripts/bench-xdp-guest.sh does, in the guest).
 *
 * Workloads:
 *   exact  KEYS random IPv4 source addresses in the module and in every
 *          map; hit traffic from addresses of the set, miss traffic from
 *          addresses outside it.
 *   geo    the "LOW-HIGH" ranges of a file (scripts/geoip-ranges.sh),
 *          split into CIDR prefixes here, once, and loaded into the module
 *          and the LPM trie; hit traffic from addresses inside the ranges
 *          (uniform over the addresses), miss traffic from outside them.
 *
 * Each traffic is PACKETS distinct frames, built once and sent to every
 * program, one BPF_PROG_TEST_RUN of one run per frame: repeating a frame
 * would make every lookup after the first a cache hit. The time of a
 * packet is the kernel's own timing of the program run (bpf_test_run(),
 * around the program only); a series is the mean over its frames, and
 * the table shows the median of PASSES series per program and traffic,
 * the programs taking turns within each pass. Every verdict is checked
 * (a hit must drop, a miss must pass; the Bloom filter may drop a miss,
 * and its false positives are counted).
 *
 * The packets and keys come from a fixed seed (-s): two runs send the same.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <linux/bpf.h>
#include <linux/cfilter.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cfilter.skel.h"
#include "baseline.skel.h"

#define FRAME_LEN	60	/* Ethernet's minimum: 42 bytes of headers, padded */
#define BATCH_KEYS	4096
#define GOAL_EXACT_MISS	1.2	/* cfilter miss / hash miss, at most */
#define GOAL_TIMED	1.1	/* timed / permanent entries, at most */
#define PARSE_ONLY	"parse only (no lookup)"
#define SUMMARY		"cfilter + /16 summary"

struct opts {
	unsigned int	packets;
	unsigned int	passes;
	unsigned int	keys;
	const char	*geo_file;
	const char	*geo_label;
	uint64_t	seed;
	bool		sweep;		/* geo only, one line */
};

/* One IPv4 prefix, host byte order. */
struct prefix4 {
	uint32_t	addr;
	uint8_t		len;
};

/* One inclusive range of IPv4 addresses, host byte order. */
struct range4 {
	uint32_t	lo;
	uint32_t	hi;
};

enum traffic {
	HIT,
	MISS,
	NTRAFFIC,
};

/* One program measured on one workload. */
struct row {
	const char	*name;
	int		prog_fd;
	bool		may_fp;		/* a miss may be dropped (Bloom) */
	bool		passes_all;	/* no lookup: every frame passes */
	double		ns[NTRAFFIC];	/* median over the passes */
	unsigned long	false_pos;	/* misses dropped, last pass */
	long long	mem;		/* bytes, or -1 if not known */
};

struct workload {
	const char	*title;
	unsigned char	*frames[NTRAFFIC];
	unsigned int	nframes;
	struct row	*rows;
	unsigned int	nrows;
};

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "xdp_bench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		die("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

static uint64_t rng_state;

/* splitmix64: tiny, fast, and good enough to scatter addresses. */
static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static bool in_sorted(const uint32_t *v, size_t n, uint32_t x)
{
	return bsearch(&x, v, n, sizeof(*v), cmp_u32) != NULL;
}

/* A UDP datagram from @saddr (host order), padded to FRAME_LEN. */
static void build_frame(unsigned char *f, uint32_t saddr)
{
	static const unsigned char head[] = {
		0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02, 0x08, 0x00,
		0x45, 0, 0, 28, 0, 0, 0, 0, 64, 17, 0, 0,
	};
	uint32_t s = htonl(saddr), d = htonl(0xc0000201);	/* 192.0.2.1 */

	memset(f, 0, FRAME_LEN);
	memcpy(f, head, sizeof(head));
	memcpy(f + 26, &s, 4);
	memcpy(f + 30, &d, 4);
	f[34] = 40000 >> 8;
	f[35] = 40000 & 0xff;
	f[37] = 53;
	f[39] = 8;	/* UDP length */
}

/* ---- the module ---- */

/*
 * Adds @n keys in batches, held by @source ("" for default) with @timeout
 * (0: permanent). Returns 0, -errno of a refused call, or of the first key
 * the module refused (one already present is fine).
 */
static int batch_add_held(int dev, struct cfilter_key *keys, size_t n,
			  const char *source, __u32 timeout)
{
	__s32 *res = xcalloc(BATCH_KEYS, sizeof(*res));
	__u32 *timeouts = xcalloc(BATCH_KEYS, sizeof(*timeouts));
	struct cfilter_batch b;
	size_t i, chunk;
	int err = 0;

	for (i = 0; i < BATCH_KEYS; i++)
		timeouts[i] = timeout;
	for (i = 0; i < n && !err; i += chunk) {
		chunk = n - i < BATCH_KEYS ? n - i : BATCH_KEYS;
		memset(&b, 0, sizeof(b));
		b.op = CFILTER_BATCH_ADD;
		b.keys = (uintptr_t)(keys + i);
		b.results = (uintptr_t)res;
		b.timeouts = timeout ? (uintptr_t)timeouts : 0;
		b.count = chunk;
		snprintf(b.source, sizeof(b.source), "%s", source);
		if (ioctl(dev, CFILTER_IOC_BATCH, &b))
			err = -errno;
		else if (b.first_error != b.count &&
			 res[b.first_error] != -EEXIST)
			err = res[b.first_error];
	}
	free(timeouts);
	free(res);
	return err;
}

static int batch_add(int dev, struct cfilter_key *keys, size_t n)
{
	return batch_add_held(dev, keys, n, "", 0);
}

static void src4_key(struct cfilter_key *k, uint32_t addr, uint8_t len)
{
	uint32_t be = htonl(addr);

	memset(k, 0, sizeof(*k));
	k->type = CFILTER_KEY_SRC4;
	k->prefix_len = len;
	memcpy(k->saddr, &be, 4);
}

/*
 * Memory of the SRC4 tables, filling @ti; a module without TYPE_INFO gives
 * the memory of every type's tables instead (INFO), and @ti->type NONE.
 */
static long long module_memory(int dev, struct cfilter_type_info *ti)
{
	struct cfilter_info info = { .size = sizeof(info) };

	memset(ti, 0, sizeof(*ti));
	ti->type = CFILTER_KEY_SRC4;
	if (!ioctl(dev, CFILTER_IOC_TYPE_INFO, ti))
		return ti->memory_bytes;
	ti->type = CFILTER_KEY_NONE;
	if (ioctl(dev, CFILTER_IOC_INFO, &info))
		return -1;
	return info.memory_bytes;
}

/* ---- BPF maps ---- */

/* The kernel's own account of a map's memory (memlock in its fdinfo). */
static long long map_memory(int fd)
{
	char path[64], line[128];
	long long bytes = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %lld", &bytes) == 1)
			break;
	fclose(f);
	return bytes;
}

static void fill_hash(int fd, const uint32_t *addrs, size_t n)
{
	uint8_t one = 1;
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t be = htonl(addrs[i]);

		if (bpf_map_update_elem(fd, &be, &one, BPF_NOEXIST))
			die("hash map update %zu: %m", i);
	}
}

static void fill_bloom(int fd, const uint32_t *addrs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t be = htonl(addrs[i]);

		if (bpf_map_update_elem(fd, NULL, &be, BPF_ANY))
			die("bloom filter update %zu: %m", i);
	}
}

static void fill_lpm(int fd, const struct prefix4 *p, size_t n)
{
	struct {
		__u32	prefixlen;
		__u32	addr;
	} key;
	uint8_t one = 1;
	size_t i;

	for (i = 0; i < n; i++) {
		key.prefixlen = p[i].len;
		key.addr = htonl(p[i].addr);
		if (bpf_map_update_elem(fd, &key, &one, BPF_NOEXIST))
			die("LPM trie update %zu: %m", i);
	}
}

static struct baseline_bpf *load_baseline(unsigned int hash, unsigned int lpm,
					  unsigned int bloom)
{
	struct baseline_bpf *skel = baseline_bpf__open();

	if (!skel)
		die("opening the baseline programs: %m");
	/* A map needs one entry at least, whether it is used or not. */
	bpf_map__set_max_entries(skel->maps.hash_src4, hash ? hash : 1);
	bpf_map__set_max_entries(skel->maps.lpm_src4, lpm ? lpm : 1);
	bpf_map__set_max_entries(skel->maps.bloom_src4, bloom ? bloom : 1);
	if (baseline_bpf__load(skel))
		die("loading the baseline programs: %m");
	return skel;
}

/* ---- measuring ---- */

/* Mean ns of @prog over the frames of one traffic; checks every verdict. */
static double run_series(const struct workload *w, struct row *r,
			 enum traffic t)
{
	int want = t == HIT && !r->passes_all ? XDP_DROP : XDP_PASS;
	unsigned long long total = 0;
	unsigned int i;

	if (t == MISS)
		r->false_pos = 0;
	for (i = 0; i < w->nframes; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, o,
			.data_in = w->frames[t] + (size_t)i * FRAME_LEN,
			.data_size_in = FRAME_LEN,
			.repeat = 1,
		);

		if (bpf_prog_test_run_opts(r->prog_fd, &o))
			die("%s: test run: %m", r->name);
		total += o.duration;
		if (o.retval == (__u32)want)
			continue;
		if (t == MISS && r->may_fp && o.retval == XDP_DROP)
			r->false_pos++;
		else
			die("%s, %s: %s packet %u got verdict %u",
			    w->title, r->name, t == HIT ? "hit" : "miss", i,
			    o.retval);
	}
	return (double)total / w->nframes;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void measure(struct workload *w, unsigned int passes)
{
	unsigned int pass, i, t, nseries = w->nrows * NTRAFFIC;
	double *ns = xcalloc((size_t)nseries * passes, sizeof(*ns));

	for (pass = 0; pass < passes; pass++) {
		/* Programs take turns, starting one further on each pass. */
		for (i = 0; i < nseries; i++) {
			unsigned int s = (i + pass * NTRAFFIC) % nseries;
			struct row *r = &w->rows[s / NTRAFFIC];

			t = s % NTRAFFIC;
			ns[(size_t)s * passes + pass] = run_series(w, r, t);
		}
		fprintf(stderr, "xdp_bench: %s: pass %u of %u done\n",
			w->title, pass + 1, passes);
	}
	for (i = 0; i < nseries; i++) {
		qsort(ns + (size_t)i * passes, passes, sizeof(*ns), cmp_double);
		w->rows[i / NTRAFFIC].ns[i % NTRAFFIC] =
			ns[(size_t)i * passes + passes / 2];
	}
	free(ns);
}

/* ---- workloads ---- */

static const struct row *find_row(const struct workload *w, const char *name)
{
	unsigned int i;

	for (i = 0; i < w->nrows; i++)
		if (!strcmp(w->rows[i].name, name))
			return &w->rows[i];
	die("no row %s", name);
	return NULL;
}

static void print_mem(long long bytes)
{
	if (bytes < 0)
		printf(" %12s", "n/a");
	else
		printf(" %10.2f M", bytes / 1048576.0);
}

/*
 * The table of one workload: ns per packet, the same net of what the
 * parse-only program costs (the lookup's own share), and ratios against
 * each program named in @refs.
 */
static void print_workload(const struct workload *w, const char *const *refs,
			   unsigned int nrefs)
{
	const struct row *parse = find_row(w, PARSE_ONLY);
	unsigned int i, j;

	printf("%-24s %8s %8s %8s %8s", "program", "hit ns", "miss ns",
	       "hit net", "miss net");
	for (j = 0; j < nrefs; j++)
		printf("  hit/%-5.5s miss/%-5.5s", refs[j], refs[j]);
	printf(" %12s\n", "memory");
	for (i = 0; i < w->nrows; i++) {
		const struct row *r = &w->rows[i];

		printf("%-24s %8.0f %8.0f %8.0f %8.0f", r->name, r->ns[HIT],
		       r->ns[MISS], r->ns[HIT] - parse->ns[HIT],
		       r->ns[MISS] - parse->ns[MISS]);
		for (j = 0; j < nrefs; j++) {
			const struct row *ref = find_row(w, refs[j]);

			printf("  %9.2f %10.2f", r->ns[HIT] / ref->ns[HIT],
			       r->ns[MISS] / ref->ns[MISS]);
		}
		print_mem(r->mem);
		if (r->may_fp)
			printf("  (%lu of %u misses dropped: false positives)",
			       r->false_pos, w->nframes);
		printf("\n");
	}
	printf("\n");
}

/* @n distinct random addresses, sorted, none of them 0. */
static uint32_t *random_addrs(size_t n)
{
	uint32_t *v = xcalloc(n, sizeof(*v));
	size_t have = 0, i, j;

	while (have < n) {
		for (i = have; i < n; i++)
			v[i] = (uint32_t)rnd() | 1;
		qsort(v, n, sizeof(*v), cmp_u32);
		for (i = j = 0; i < n; i++)
			if (!j || v[i] != v[j - 1])
				v[j++] = v[i];
		have = j;
	}
	return v;
}

static unsigned char *frames_alloc(unsigned int n)
{
	return xcalloc(n, FRAME_LEN);
}

/* Program rows in order; @mem filled in by the caller. */
static struct row row(const char *name, int fd, bool may_fp)
{
	struct row r = { .name = name, .prog_fd = fd, .may_fp = may_fp,
			 .mem = -1 };

	r.passes_all = !strcmp(name, PARSE_ONLY);

	return r;
}

struct result {
	double	exact_miss_ratio;	/* cfilter / hash */
	double	timed_ratio[NTRAFFIC];	/* timed / permanent entries */
	double	geo_ratio[NTRAFFIC];	/* cfilter / lpm, 0 if not measured */
	const char *geo_skipped;	/* why, if not measured */
};

/* Net ns per packet of programs whose lookups find nothing to probe. */
struct empty_cost {
	double	cfilter;
	double	hash;
};

/*
 * The exact workload's frames (hit and miss alike: nothing is stored) with
 * the module and the maps still empty: what a lookup costs before it
 * touches a table.
 */
static struct empty_cost measure_empty(const struct workload *exact,
				       const struct opts *o,
				       struct baseline_bpf *skel,
				       int cfilter_fd)
{
	struct workload w = *exact;
	struct empty_cost cost;
	struct row rows[3];
	unsigned int i, t;
	double ns[3];

	w.title = "empty";
	rows[0] = row(PARSE_ONLY, bpf_program__fd(skel->progs.xdp_parse),
		      false);
	rows[1] = row("cfilter", cfilter_fd, false);
	rows[2] = row("hash", bpf_program__fd(skel->progs.xdp_hash), false);
	for (i = 0; i < 3; i++)
		rows[i].passes_all = true;
	w.rows = rows;
	w.nrows = 3;
	measure(&w, o->passes);
	for (i = 0; i < 3; i++) {
		ns[i] = 0;
		for (t = 0; t < NTRAFFIC; t++)
			ns[i] += rows[i].ns[t] / NTRAFFIC;
	}
	cost.cfilter = ns[1] - ns[0];
	cost.hash = ns[2] - ns[0];
	return cost;
}

/*
 * The same keys held permanently by "default", then with a day's timeout
 * by a source of their own, in turns (the module holds one set at a
 * time): what sources and timeouts cost a packet, if anything.
 */
static void bench_timed(const struct opts *o, int dev, struct workload *w,
			struct row *cf, struct cfilter_key *keys,
			struct result *res)
{
	static const char *const name[2] = { "permanent", "timed (1 day)" };
	double *ns = xcalloc((size_t)o->passes * 2 * NTRAFFIC, sizeof(*ns));
	double med[2][NTRAFFIC];
	unsigned int pass, i, m, t;
	int err;

	fprintf(stderr, "xdp_bench: timed: %u passes\n", o->passes);
	for (pass = 0; pass < o->passes; pass++) {
		for (i = 0; i < 2; i++) {
			m = (i + pass) % 2;
			if (ioctl(dev, CFILTER_IOC_CLEAR))
				die("clearing the module: %m");
			err = batch_add_held(dev, keys, o->keys, m ? "feed" : "",
					     m ? 86400 : 0);
			if (err) {
				errno = -err;
				die("adding %u %s addresses: %m", o->keys,
				    name[m]);
			}
			for (t = 0; t < NTRAFFIC; t++)
				ns[((size_t)m * NTRAFFIC + t) * o->passes + pass] =
					run_series(w, cf, t);
		}
	}
	for (m = 0; m < 2; m++) {
		for (t = 0; t < NTRAFFIC; t++) {
			double *v = ns + ((size_t)m * NTRAFFIC + t) * o->passes;

			qsort(v, o->passes, sizeof(*v), cmp_double);
			med[m][t] = v[o->passes / 2];
		}
	}
	printf("== timeouts: the same %u addresses, permanent or timed ==\n",
	       o->keys);
	printf("%-24s %8s %8s\n", "cfilter entries", "hit ns", "miss ns");
	for (m = 0; m < 2; m++)
		printf("%-24s %8.0f %8.0f\n", name[m], med[m][HIT], med[m][MISS]);
	for (t = 0; t < NTRAFFIC; t++)
		res->timed_ratio[t] = med[1][t] / med[0][t];
	printf("timed/permanent: hit %.2f, miss %.2f\n\n", res->timed_ratio[HIT],
	       res->timed_ratio[MISS]);
	free(ns);
}

static void bench_exact(const struct opts *o, int dev, int cfilter_fd,
			struct result *res)
{
	static const char *const refs[] = { "hash", "lpm" };
	struct cfilter_type_info ti;
	struct baseline_bpf *skel;
	struct workload w = { .title = "exact", .nframes = o->packets };
	struct cfilter_key *keys;
	struct prefix4 *p;
	uint32_t *addrs, *pick, a;
	struct empty_cost empty;
	unsigned int i, j;
	struct row rows[5];
	int err;

	fprintf(stderr, "xdp_bench: exact: generating %u keys\n", o->keys);
	addrs = random_addrs(o->keys);
	keys = xcalloc(o->keys, sizeof(*keys));
	p = xcalloc(o->keys, sizeof(*p));
	for (i = 0; i < o->keys; i++) {
		src4_key(&keys[i], addrs[i], 32);
		p[i].addr = addrs[i];
		p[i].len = 32;
	}

	/* Hit frames: distinct keys (a partial shuffle); misses: not keys. */
	pick = xcalloc(o->keys, sizeof(*pick));
	memcpy(pick, addrs, o->keys * sizeof(*pick));
	w.frames[HIT] = frames_alloc(w.nframes);
	w.frames[MISS] = frames_alloc(w.nframes);
	for (i = 0; i < w.nframes; i++) {
		j = i + rnd() % (o->keys - i);
		a = pick[j];
		pick[j] = pick[i];
		pick[i] = a;
		build_frame(w.frames[HIT] + (size_t)i * FRAME_LEN, a);
		do
			a = (uint32_t)rnd();
		while (in_sorted(addrs, o->keys, a));
		build_frame(w.frames[MISS] + (size_t)i * FRAME_LEN, a);
	}

	fprintf(stderr, "xdp_bench: exact: loading the module and the maps\n");
	if (ioctl(dev, CFILTER_IOC_CLEAR))
		die("clearing the module: %m");
	skel = load_baseline(o->keys, o->keys, o->keys);
	empty = measure_empty(&w, o, skel, cfilter_fd);
	err = batch_add(dev, keys, o->keys);
	if (err) {
		errno = -err;
		die("adding %u addresses to the module: %m", o->keys);
	}
	fill_hash(bpf_map__fd(skel->maps.hash_src4), addrs, o->keys);
	fill_lpm(bpf_map__fd(skel->maps.lpm_src4), p, o->keys);
	fill_bloom(bpf_map__fd(skel->maps.bloom_src4), addrs, o->keys);

	rows[0] = row(PARSE_ONLY,
		      bpf_program__fd(skel->progs.xdp_parse), false);
	rows[1] = row("cfilter", cfilter_fd, false);
	rows[1].mem = module_memory(dev, &ti);
	rows[2] = row("hash", bpf_program__fd(skel->progs.xdp_hash), false);
	rows[2].mem = map_memory(bpf_map__fd(skel->maps.hash_src4));
	rows[3] = row("lpm", bpf_program__fd(skel->progs.xdp_lpm), false);
	rows[3].mem = map_memory(bpf_map__fd(skel->maps.lpm_src4));
	rows[4] = row("bloom", bpf_program__fd(skel->progs.xdp_bloom), true);
	rows[4].mem = map_memory(bpf_map__fd(skel->maps.bloom_src4));
	w.rows = rows;
	w.nrows = 5;
	measure(&w, o->passes);

	printf("== exact: %u random IPv4 source addresses ==\n", o->keys);
	printf("(hash: BPF_MAP_TYPE_HASH, lpm: BPF_MAP_TYPE_LPM_TRIE of /32s, bloom: BPF_MAP_TYPE_BLOOM_FILTER, 5 hashes)\n");
	print_workload(&w, refs, 2);
	if (ti.type == CFILTER_KEY_NONE)
		printf("(cfilter's memory: every key type's tables; the module has no TYPE_INFO)\n\n");
	printf("With the module and the hash map empty (the same frames, all passed), net of parsing:\n");
	printf("cfilter %.0f ns (the kfunc call and the verdict, no probe), hash %.0f ns (hashing, an empty bucket)\n\n",
	       empty.cfilter, empty.hash);
	res->exact_miss_ratio = rows[1].ns[MISS] / rows[2].ns[MISS];
	bench_timed(o, dev, &w, &rows[1], keys, res);

	baseline_bpf__destroy(skel);
	if (ioctl(dev, CFILTER_IOC_CLEAR))
		die("clearing the module: %m");
	free(w.frames[HIT]);
	free(w.frames[MISS]);
	free(pick);
	free(p);
	free(keys);
	free(addrs);
}

static int cmp_range(const void *a, const void *b)
{
	const struct range4 *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Reads "LOW-HIGH" lines; returns the ranges sorted, overlaps merged. */
static struct range4 *read_ranges(const char *file, size_t *count)
{
	char line[128], *dash, *nl;
	struct range4 *r = NULL;
	size_t n = 0, room = 0, lineno = 0, i, j;
	struct in_addr lo, hi;
	FILE *f = fopen(file, "r");

	if (!f)
		die("%s: %m", file);
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		dash = strchr(line, '-');
		if (!dash)
			die("%s:%zu: want LOW-HIGH, got '%s'", file, lineno, line);
		*dash = '\0';
		if (inet_pton(AF_INET, line, &lo) != 1 ||
		    inet_pton(AF_INET, dash + 1, &hi) != 1 ||
		    ntohl(lo.s_addr) > ntohl(hi.s_addr))
			die("%s:%zu: '%s-%s' is not an IPv4 range", file, lineno,
			    line, dash + 1);
		if (n == room) {
			room = room ? 2 * room : 1024;
			r = realloc(r, room * sizeof(*r));
			if (!r)
				die("out of memory");
		}
		r[n].lo = ntohl(lo.s_addr);
		r[n].hi = ntohl(hi.s_addr);
		n++;
	}
	fclose(f);
	if (!n)
		die("%s: no range", file);
	qsort(r, n, sizeof(*r), cmp_range);
	for (i = 1, j = 0; i < n; i++) {
		if ((uint64_t)r[i].lo <= (uint64_t)r[j].hi + 1) {
			if (r[i].hi > r[j].hi)
				r[j].hi = r[i].hi;
		} else {
			r[++j] = r[i];
		}
	}
	*count = j + 1;
	return r;
}

/* The fewest CIDR prefixes covering exactly [lo, hi]; returns how many. */
static size_t split_range(uint64_t lo, uint64_t hi, struct prefix4 *out)
{
	size_t n = 0;
	uint64_t size;
	int len;

	while (lo <= hi) {
		/* The largest aligned block at lo that does not pass hi. */
		for (len = 0; len < 32; len++) {
			size = 1ULL << (32 - len);
			if (!(lo & (size - 1)) && lo + size - 1 <= hi)
				break;
		}
		if (out) {
			out[n].addr = (uint32_t)lo;
			out[n].len = len;
		}
		n++;
		lo += 1ULL << (32 - len);
	}
	return n;
}

/* Sets the bit of every /16 that the ranges touch. */
static void fill_summary(int fd, const struct range4 *r, size_t n)
{
	static __u32 bits[65536 / 32];
	__u32 i, b;
	size_t k;

	memset(bits, 0, sizeof(bits));
	for (k = 0; k < n; k++)
		for (b = r[k].lo >> 16; b <= r[k].hi >> 16; b++)
			bits[b / 32] |= 1U << (b % 32);
	for (i = 0; i < 65536 / 32; i++)
		if (bpf_map_update_elem(fd, &i, &bits[i], BPF_ANY))
			die("summary update %u: %m", i);
}

/* The length of the prefix of range @r's split that covers @a. */
static unsigned int covering_len(const struct range4 *r, uint32_t a)
{
	struct prefix4 p[64];
	size_t n = split_range(r->lo, r->hi, p), i;

	for (i = 0; i < n; i++)
		if (((uint64_t)a ^ p[i].addr) >> (32 - p[i].len) == 0)
			return p[i].len;
	die("%u is not in its range", a);
	return 0;
}

/*
 * Table probes per frame as the module makes them: the address table if
 * its summary bit of the frame's /16 is set (some /32 member in that /16);
 * then, if the prefix summary's bit is set, the levels shortest target
 * first until the one holding the frame's prefix (a miss: every level).
 * For comparison, the same longest target first; any covering prefix gives
 * the same verdict, so either order is correct.
 */
static void print_probe_counts(const struct cfilter_type_info *ti,
			       const struct range4 *r, size_t nr,
			       const size_t *hit_range,
			       const uint32_t *hit_addr,
			       const uint32_t *miss_addr, unsigned int n)
{
	static uint8_t addr16[65536], pfx16[65536];
	double shortest = 0, longest = 0, miss = 0;
	unsigned int i, l, len, at, b, nl = ti->nlevels;
	struct prefix4 p[64];
	size_t k, np, j;
	uint64_t span;

	if (ti->type != CFILTER_KEY_SRC4 || !nl)
		return;
	memset(addr16, 0, sizeof(addr16));
	memset(pfx16, 0, sizeof(pfx16));
	for (k = 0; k < nr; k++) {
		np = split_range(r[k].lo, r[k].hi, p);
		for (j = 0; j < np; j++) {
			b = p[j].addr >> 16;
			if (p[j].len == 32) {
				addr16[b] = 1;
				continue;
			}
			span = p[j].len < 16 ? 1ULL << (16 - p[j].len) : 1;
			for (; span--; b++)
				pfx16[b] = 1;
		}
	}
	for (i = 0; i < n; i++) {
		b = miss_addr[i] >> 16;
		miss += addr16[b] + (pfx16[b] ? nl : 0);
	}
	for (i = 0; i < n; i++) {
		b = hit_addr[i] >> 16;
		len = covering_len(&r[hit_range[i]], hit_addr[i]);
		if (len == 32) {
			shortest += 1;
			longest += 1;
			continue;
		}
		/* levels[] is longest first: the last one at least len. */
		for (at = 0, l = 0; l < nl; l++)
			if (ti->levels[l] >= len)
				at = l;
		shortest += addr16[b] + nl - at;
		longest += addr16[b] + at + 1;
	}
	printf("table probes per packet: hit traffic %.2f (the module's order: shortest target first), %.2f if longest first; miss traffic %.2f (%u without the summaries)\n",
	       shortest / n, longest / n, miss / n, 1 + nl);
}

static bool in_ranges(const struct range4 *r, size_t n, uint32_t a)
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

static void bench_geo(const struct opts *o, int dev, int cfilter_fd,
		      struct result *res)
{
	static const char *const refs[] = { "lpm" };
	unsigned int i, minlen = 32, maxlen = 0, l;
	struct cfilter_type_info ti;
	struct baseline_bpf *skel;
	struct workload w = { .title = "geo", .nframes = o->packets };
	struct cfilter_key *keys;
	struct range4 *r;
	struct prefix4 *p;
	uint64_t *cum, total = 0, x;
	size_t nr, np = 0, k, lo, hi, *hit_range;
	uint32_t *hit_addr, *miss_addr;
	struct row rows[4];
	int err;

	r = read_ranges(o->geo_file, &nr);
	for (k = 0; k < nr; k++)
		np += split_range(r[k].lo, r[k].hi, NULL);
	p = xcalloc(np, sizeof(*p));
	keys = xcalloc(np, sizeof(*keys));
	cum = xcalloc(nr, sizeof(*cum));
	for (k = 0, np = 0; k < nr; k++) {
		np += split_range(r[k].lo, r[k].hi, p + np);
		total += (uint64_t)r[k].hi - r[k].lo + 1;
		cum[k] = total;
	}
	for (k = 0; k < np; k++) {
		src4_key(&keys[k], p[k].addr, p[k].len);
		minlen = p[k].len < minlen ? p[k].len : minlen;
		maxlen = p[k].len > maxlen ? p[k].len : maxlen;
	}

	/* Hits uniform over the blocked addresses; misses outside them. */
	hit_range = xcalloc(w.nframes, sizeof(*hit_range));
	hit_addr = xcalloc(w.nframes, sizeof(*hit_addr));
	miss_addr = xcalloc(w.nframes, sizeof(*miss_addr));
	w.frames[HIT] = frames_alloc(w.nframes);
	w.frames[MISS] = frames_alloc(w.nframes);
	for (i = 0; i < w.nframes; i++) {
		uint32_t a;

		x = rnd() % total;
		for (lo = 0, hi = nr - 1; lo < hi;) {
			size_t mid = lo + (hi - lo) / 2;

			if (cum[mid] <= x)
				lo = mid + 1;
			else
				hi = mid;
		}
		a = r[lo].hi - (uint32_t)(cum[lo] - 1 - x);
		hit_range[i] = lo;
		hit_addr[i] = a;
		build_frame(w.frames[HIT] + (size_t)i * FRAME_LEN, a);
		do
			a = (uint32_t)rnd();
		while (in_ranges(r, nr, a));
		build_frame(w.frames[MISS] + (size_t)i * FRAME_LEN, a);
		miss_addr[i] = a;
	}

	if (!o->sweep)
		printf("== geo: %s: %zu ranges, %llu addresses, %zu prefixes (/%u to /%u) ==\n",
		       o->geo_label, nr, (unsigned long long)total, np, minlen,
		       maxlen);
	fprintf(stderr, "xdp_bench: geo: loading %zu prefixes\n", np);
	if (ioctl(dev, CFILTER_IOC_CLEAR))
		die("clearing the module: %m");
	err = batch_add(dev, keys, np);
	if (err) {
		errno = -err;
		if (o->sweep)
			printf("%-28s the module refused the prefixes: %m\n",
			       o->geo_label);
		else
			printf("not measured: the module refused the prefixes: %m (a cfilter.ko without prefix support?)\n\n");
		res->geo_skipped = "the module refused prefix keys";
		goto out;
	}
	skel = load_baseline(0, np, 0);
	fill_lpm(bpf_map__fd(skel->maps.lpm_src4), p, np);

	rows[0] = row(PARSE_ONLY,
		      bpf_program__fd(skel->progs.xdp_parse), false);
	rows[1] = row("cfilter", cfilter_fd, false);
	rows[1].mem = module_memory(dev, &ti);
	rows[2] = row("lpm", bpf_program__fd(skel->progs.xdp_lpm), false);
	rows[2].mem = map_memory(bpf_map__fd(skel->maps.lpm_src4));
	fill_summary(bpf_map__fd(skel->maps.summary_16), r, nr);
	rows[3] = row(SUMMARY, bpf_program__fd(skel->progs.xdp_summary),
		      false);
	w.rows = rows;
	w.nrows = o->sweep ? 3 : 4;
	measure(&w, o->passes);

	if (o->sweep) {
		char levels[64] = "";
		int at = 0;

		for (l = 0; l < ti.nlevels && l < CFILTER_PREFIX_LEVELS_MAX; l++)
			at += snprintf(levels + at, sizeof(levels) - at, " /%u",
				       ti.levels[l]);
		printf("%-28s %-20s %9llu %8.2f M %8.0f %8.0f %8.0f %8.0f %9.2f %9.2f\n",
		       o->geo_label, levels,
		       (unsigned long long)ti.prefix_entries,
		       rows[1].mem / 1048576.0, rows[1].ns[HIT],
		       rows[1].ns[MISS], rows[2].ns[HIT], rows[2].ns[MISS],
		       rows[1].ns[HIT] / rows[2].ns[HIT],
		       rows[1].ns[MISS] / rows[2].ns[MISS]);
	} else if (ti.type == CFILTER_KEY_SRC4) {
		printf("cfilter SRC4: %llu keys, %llu of them prefixes, %llu expanded entries; target lengths",
		       (unsigned long long)ti.count,
		       (unsigned long long)ti.prefixes,
		       (unsigned long long)ti.prefix_entries);
		for (l = 0; l < ti.nlevels && l < CFILTER_PREFIX_LEVELS_MAX; l++)
			printf(" /%u", ti.levels[l]);
		printf("\n");
		print_probe_counts(&ti, r, nr, hit_range, hit_addr, miss_addr,
				   w.nframes);
	} else {
		printf("cfilter SRC4: no CFILTER_IOC_TYPE_INFO in this module: expansion not known\n");
	}
	if (!o->sweep) {
		print_workload(&w, refs, 1);
		printf("(\"%s\": an experiment, not cfilter's program: the kfunc is called only\n"
		       "if a 64 Kibit bitmap of the /16s the ranges touch has the source's bit;\n"
		       "the module now keeps such a bitmap itself, so this row measures it twice)\n\n",
		       SUMMARY);
	}
	res->geo_ratio[HIT] = rows[1].ns[HIT] / rows[2].ns[HIT];
	res->geo_ratio[MISS] = rows[1].ns[MISS] / rows[2].ns[MISS];
	baseline_bpf__destroy(skel);
out:
	if (ioctl(dev, CFILTER_IOC_CLEAR))
		die("clearing the module: %m");
	free(w.frames[HIT]);
	free(w.frames[MISS]);
	free(hit_addr);
	free(miss_addr);
	free(hit_range);
	free(cum);
	free(keys);
	free(p);
	free(r);
}

static void print_goals(const struct opts *o, const struct result *res)
{
	static const char *const tname[NTRAFFIC] = { "hit", "miss" };
	int t;

	printf("== goals (ratios of ns per packet in this run) ==\n");
	printf("exact-address miss path within %.1fx of the hash map program: cfilter/hash = %.2f: %s\n",
	       GOAL_EXACT_MISS, res->exact_miss_ratio,
	       res->exact_miss_ratio <= GOAL_EXACT_MISS ? "MET" : "NOT MET");
	for (t = 0; t < NTRAFFIC; t++)
		printf("timed entries, %s traffic: within %.1fx of permanent ones: timed/permanent = %.2f: %s\n",
		       tname[t], GOAL_TIMED, res->timed_ratio[t],
		       res->timed_ratio[t] <= GOAL_TIMED ? "MET" : "NOT MET");
	for (t = 0; t < NTRAFFIC; t++) {
		if (!o->geo_file || res->geo_skipped) {
			printf("geo prefixes, %s traffic: cfilter faster than the LPM trie: NOT MEASURED (%s)\n",
			       tname[t], res->geo_skipped ? res->geo_skipped :
			       "no range file given");
			continue;
		}
		printf("geo prefixes, %s traffic: cfilter faster than the LPM trie: cfilter/lpm = %.2f: %s\n",
		       tname[t], res->geo_ratio[t],
		       res->geo_ratio[t] < 1.0 ? "MET" : "NOT MET");
	}
}

static unsigned long parse_num(const char *opt, const char *s,
			       unsigned long min, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "xdp_bench: %s '%s': want a number from %lu to %lu\n",
			opt, s, min, max);
		exit(2);
	}
	return v;
}

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: xdp_bench [-n PACKETS] [-p PASSES] [-k KEYS] [-s SEED] [-g RANGES -l LABEL]\n"
		"  -n  distinct frames per traffic (default 32768)\n"
		"  -p  passes; the median is reported (default 3)\n"
		"  -k  IPv4 addresses of the exact workload (default 100000)\n"
		"  -s  seed of the keys and packets (default 1)\n"
		"  -g  file of LOW-HIGH IPv4 ranges (scripts/geoip-ranges.sh) for the geo workload\n"
		"  -l  what the ranges are, for the table\n"
		"  -S  the geo workload alone, as one line of a sweep table (needs -g)\n");
	exit(status);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	fprintf(stderr, "xdp_bench: libbpf: ");
	return vfprintf(stderr, fmt, ap);
}

static void print_header(const struct opts *o)
{
	struct utsname u;

	uname(&u);
	printf("kernel %s, %ld CPUs; qemu TCG is emulated: compare ratios only\n",
	       u.release, sysconf(_SC_NPROCESSORS_ONLN));
	printf("BPF_PROG_TEST_RUN, one run per frame: %u distinct %u-byte IPv4/UDP frames per traffic,\n",
	       o->packets, FRAME_LEN);
	printf("the same frames for every program; ns/packet as the kernel times the program run,\n");
	printf("mean over the frames, median of %u passes; \"net\": minus the parse-only program\n\n",
	       o->passes);
}

int main(int argc, char **argv)
{
	struct opts o = { .packets = 32768, .passes = 3, .keys = 100000,
			  .geo_label = "ranges", .seed = 1 };
	struct result res = { 0 };
	struct cfilter_bpf *cf;
	int c, dev;

	while ((c = getopt(argc, argv, "n:p:k:s:g:l:Sh")) != -1) {
		switch (c) {
		case 'n':
			o.packets = parse_num("-n", optarg, 1, 1 << 22);
			break;
		case 'p':
			o.passes = parse_num("-p", optarg, 1, 99);
			break;
		case 'k':
			o.keys = parse_num("-k", optarg, 1, 1 << 24);
			break;
		case 's':
			o.seed = parse_num("-s", optarg, 0, ~0UL);
			break;
		case 'g':
			o.geo_file = optarg;
			break;
		case 'l':
			o.geo_label = optarg;
			break;
		case 'S':
			o.sweep = true;
			break;
		case 'h':
			usage(0);
			break;
		default:
			usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	if (o.sweep && !o.geo_file) {
		fprintf(stderr, "xdp_bench: -S needs -g RANGES\n");
		exit(2);
	}
	if (!o.sweep && o.packets > o.keys) {
		fprintf(stderr, "xdp_bench: -n %u: the hit traffic needs that many distinct keys, and -k is %u\n",
			o.packets, o.keys);
		exit(2);
	}
	rng_state = o.seed;
	libbpf_set_print(libbpf_print);

	dev = open(CFILTER_DEVICE, O_RDWR);
	if (dev < 0)
		die("%s: %m (is cfilter.ko loaded?)", CFILTER_DEVICE);
	cf = cfilter_bpf__open();
	if (!cf)
		die("opening cfilter's XDP program: %m");
	/* Counters of its own: the object pins its map by name. */
	errno = -bpf_map__set_pin_path(cf->maps.cfilter_stats, NULL);
	if (errno || cfilter_bpf__load(cf))
		die("loading cfilter's XDP program: %m (the kfunc needs cfilter.ko with BTF)");

	if (!o.sweep)
		print_header(&o);
	if (o.sweep) {
		bench_geo(&o, dev, bpf_program__fd(cf->progs.cfilter_xdp), &res);
	} else {
		bench_exact(&o, dev, bpf_program__fd(cf->progs.cfilter_xdp),
			    &res);
		if (o.geo_file)
			bench_geo(&o, dev, bpf_program__fd(cf->progs.cfilter_xdp),
				  &res);
		print_goals(&o, &res);
	}

	cfilter_bpf__destroy(cf);
	close(dev);
	return 0;
}
