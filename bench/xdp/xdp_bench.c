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
 *          IPv4 or IPv6, split into CIDR prefixes by cfctl's range_split(),
 *          once, and loaded into the module and an LPM trie of the family;
 *          hit traffic from addresses inside the ranges, miss traffic from
 *          outside them (see geo_traffic()). One per -g.
 *
 * Besides the times, for each geo workload: the table probes the module's
 * lookup makes per packet, counted on the module's own code holding the
 * same keys (probes.c), and the kernel memory each structure took, read
 * from /proc/meminfo around its loading (kernel_memory()).
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
#include <dirent.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <linux/bpf.h>
#include <linux/cfilter.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cfilter.skel.h"
#include "baseline.skel.h"
#include "probes.h"
#include "range.h"

/* Ethernet's minimum, 42 bytes of IPv4/UDP headers padded; IPv6/UDP: 62 */
#define FRAME4_LEN	60
#define FRAME6_LEN	62
#define BATCH_KEYS	4096
#define GOAL_EXACT_MISS	1.2	/* cfilter miss / hash miss, at most */
#define GOAL_TIMED	1.1	/* timed / permanent entries, at most */
#define PARSE_ONLY	"parse only (no lookup)"
#define GEO_MAX		8
/* Kernel memory is read again until two reads this far apart agree. */
#define SETTLE_US	300000
#define SETTLE_BYTES	(256 << 10)
#define SETTLE_TRIES	20
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

typedef unsigned __int128 u128;

/* One geo workload: a file of ranges and what they are. */
struct geo_opt {
	const char	*file;
	const char	*label;
	const char	*misses;	/* ranges the miss traffic comes from */
	const char	*miss_label;	/* what they are */
};

struct opts {
	unsigned int	packets;
	unsigned int	passes;
	unsigned int	keys;
	struct geo_opt	geo[GEO_MAX];
	unsigned int	ngeo;
	uint64_t	seed;
	bool		sweep;		/* the first geo only, one line */
};

/* One prefix: @alen bytes of address, network byte order, and a length. */
struct pfx {
	uint8_t		addr[16];
	uint8_t		len;
};

/* One inclusive range of addresses, as numbers (IPv4 in the low bits). */
struct range {
	u128		lo;
	u128		hi;
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
	long long	mem_kernel;	/* bytes the kernel grew by, or -1 */
	long long	mem_own;	/* bytes by its own account, or -1 */
};

struct workload {
	const char	*title;
	unsigned char	*frames[NTRAFFIC];
	unsigned int	nframes;
	unsigned int	frame_len;
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

/* Empties the module, as each workload starts and ends. */
static void clear_module(int dev)
{
	if (ioctl(dev, CFILTER_IOC_CLEAR))
		die("clearing the module: %m");
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

/* A UDP datagram from @saddr (host order), padded to FRAME4_LEN. */
static void build_frame4(unsigned char *f, uint32_t saddr)
{
	static const unsigned char head[] = {
		0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02, 0x08, 0x00,
		0x45, 0, 0, 28, 0, 0, 0, 0, 64, 17, 0, 0,
	};
	uint32_t s = htonl(saddr), d = htonl(0xc0000201);	/* 192.0.2.1 */

	memset(f, 0, FRAME4_LEN);
	memcpy(f, head, sizeof(head));
	memcpy(f + 26, &s, 4);
	memcpy(f + 30, &d, 4);
	f[34] = 40000 >> 8;
	f[35] = 40000 & 0xff;
	f[37] = 53;
	f[39] = 8;	/* UDP length */
}

/* A UDP datagram from @saddr (16 bytes, network order): FRAME6_LEN bytes. */
static void build_frame6(unsigned char *f, const uint8_t *saddr)
{
	static const unsigned char head[] = {
		0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02, 0x86, 0xdd,
		0x60, 0, 0, 0, 0, 8, 17, 64,	/* payload 8 bytes, UDP */
	};
	static const unsigned char daddr[16] = {	/* 2001:db8::1 */
		0x20, 0x01, 0x0d, 0xb8, [15] = 1,
	};

	memset(f, 0, FRAME6_LEN);
	memcpy(f, head, sizeof(head));
	memcpy(f + 22, saddr, 16);
	memcpy(f + 38, daddr, 16);
	f[54] = 40000 >> 8;
	f[55] = 40000 & 0xff;
	f[57] = 53;
	f[59] = 8;	/* UDP length */
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

/* The source key of prefix @p, of @alen-byte addresses. */
static void src_key(struct cfilter_key *k, const struct pfx *p,
		    unsigned int alen)
{
	memset(k, 0, sizeof(*k));
	k->type = alen == 4 ? CFILTER_KEY_SRC4 : CFILTER_KEY_SRC6;
	k->prefix_len = p->len;
	memcpy(k->saddr, p->addr, alen);
}

/*
 * Memory of the source tables of @alen-byte addresses by the module's own
 * account, filling @ti; a module without TYPE_INFO gives the memory of
 * every type's tables instead (INFO), and @ti->type NONE.
 */
static long long module_memory(int dev, unsigned int alen,
			       struct cfilter_type_info *ti)
{
	struct cfilter_info info = { .size = sizeof(info) };

	memset(ti, 0, sizeof(*ti));
	ti->type = alen == 4 ? CFILTER_KEY_SRC4 : CFILTER_KEY_SRC6;
	if (!ioctl(dev, CFILTER_IOC_TYPE_INFO, ti))
		return ti->memory_bytes;
	ti->type = CFILTER_KEY_NONE;
	if (ioctl(dev, CFILTER_IOC_INFO, &info))
		return -1;
	return info.memory_bytes;
}

/* Is the module in compact mode? */
static bool module_compact(int dev)
{
	struct cfilter_info info = { .size = sizeof(info) };

	if (ioctl(dev, CFILTER_IOC_INFO, &info))
		die("CFILTER_IOC_INFO: %m");
	return info.mode == CFILTER_MODE_COMPACT;
}

/* ---- memory ---- */

/*
 * The kernel's memory in slabs (kmalloc, large kmallocs included), vmalloc
 * areas and per-CPU chunks: where the module's tables and the BPF maps
 * live. The growth around loading a structure is what it took, whatever it
 * says of itself; the guest runs nothing else meanwhile.
 */
static long long kernel_memory_now(void)
{
	static const char *const field[] = {
		"Slab:", "VmallocUsed:", "Percpu:",
	};
	long long total = 0, kb;
	char line[128];
	unsigned int i, found = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("/proc/meminfo: %m");
	while (fgets(line, sizeof(line), f))
		for (i = 0; i < ARRAY_SIZE(field); i++)
			if (!strncmp(line, field[i], strlen(field[i])) &&
			    sscanf(line + strlen(field[i]), "%lld", &kb) == 1) {
				total += kb << 10;
				found++;
			}
	fclose(f);
	if (found != ARRAY_SIZE(field))
		die("/proc/meminfo lacks Slab, VmallocUsed or Percpu");
	return total;
}

/*
 * Gives the slabs that frees left empty back (SLUB's shrink), so that
 * memory a structure freed earlier, still counted in Slab, is not reused
 * unseen by the next one measured.
 */
static void shrink_slabs(void)
{
	char path[320];
	struct dirent *e;
	DIR *d = opendir("/sys/kernel/slab");
	int fd;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 e->d_name);
		fd = open(path, O_WRONLY);
		if (fd < 0)
			continue;
		if (write(fd, "1", 1) < 0)
			fprintf(stderr, "xdp_bench: %s: %m\n", path);
		close(fd);
	}
	closedir(d);
}

/*
 * The same, once frees still under way (a map destroyed a moment ago is
 * freed by a worker, after RCU) have settled, and empty slabs are gone.
 */
static long long kernel_memory(void)
{
	long long a, b;
	unsigned int i;

	shrink_slabs();
	a = kernel_memory_now();
	b = a;

	for (i = 0; i < SETTLE_TRIES; i++) {
		usleep(SETTLE_US);
		shrink_slabs();
		b = kernel_memory_now();
		if (llabs(b - a) < SETTLE_BYTES)
			break;
		a = b;
	}
	return b;
}

/*
 * What a preallocated map of @n entries takes: one is made and closed
 * again, as the skeleton's map of the same geometry is made at load with
 * the others, which cannot be told apart.
 */
static long long prealloc_map_memory(enum bpf_map_type type, __u32 key_size,
				     __u32 value_size, __u32 n)
{
	long long before = kernel_memory(), after;
	int fd = bpf_map_create(type, NULL, key_size, value_size, n, NULL);

	if (fd < 0)
		die("creating a map of %u entries to measure it: %m", n);
	after = kernel_memory();
	close(fd);
	return after - before;
}

/* ---- BPF maps ---- */

/*
 * The kernel's own account of a map's memory (memlock in its fdinfo): on
 * 6.1 an estimate, key and value bytes times entries, not what the map
 * allocates.
 */
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

/* Fills an LPM trie of @alen-byte addresses (its key: length, address). */
static void fill_lpm(int fd, const struct pfx *p, size_t n, unsigned int alen)
{
	struct {
		__u32	prefixlen;
		__u8	addr[16];
	} key;
	uint8_t one = 1;
	size_t i;

	memset(&key, 0, sizeof(key));
	for (i = 0; i < n; i++) {
		key.prefixlen = p[i].len;
		memcpy(key.addr, p[i].addr, alen);
		if (bpf_map_update_elem(fd, &key, &one, BPF_NOEXIST))
			die("LPM trie update %zu: %m", i);
	}
}

static struct baseline_bpf *load_baseline(unsigned int hash, unsigned int lpm,
					  unsigned int lpm6, unsigned int bloom)
{
	struct baseline_bpf *skel = baseline_bpf__open();

	if (!skel)
		die("opening the baseline programs: %m");
	/* A map needs one entry at least, whether it is used or not. */
	bpf_map__set_max_entries(skel->maps.hash_src4, hash ? hash : 1);
	bpf_map__set_max_entries(skel->maps.lpm_src4, lpm ? lpm : 1);
	bpf_map__set_max_entries(skel->maps.lpm_src6, lpm6 ? lpm6 : 1);
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
			.data_in = w->frames[t] + (size_t)i * w->frame_len,
			.data_size_in = w->frame_len,
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
		printf(" %10s", "n/a");
	else
		printf(" %8.2f M", bytes / 1048576.0);
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
	printf(" %10s %10s\n", "kernel mem", "own count");
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
		print_mem(r->mem_kernel);
		print_mem(r->mem_own);
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

static unsigned char *frames_alloc(unsigned int n, unsigned int len)
{
	return xcalloc(n, len);
}

/* Program rows in order; @mem filled in by the caller. */
static struct row row(const char *name, int fd, bool may_fp)
{
	struct row r = { .name = name, .prog_fd = fd, .may_fp = may_fp,
			 .mem_kernel = -1, .mem_own = -1 };

	r.passes_all = !strcmp(name, PARSE_ONLY);

	return r;
}

/* What one geo workload's goals need. */
struct geo_result {
	char	title[128];
	double	ratio[NTRAFFIC];	/* cfilter / lpm */
	const char *skipped;		/* why, if not measured */
};

struct result {
	double	exact_miss_ratio;	/* cfilter / hash */
	double	timed_ratio[NTRAFFIC];	/* timed / permanent entries */
	struct geo_result geo[GEO_MAX];
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
 * Net ns per packet of cfilter's program on @w's frames with the set empty
 * (every frame passes), by traffic: its cost before any lookup.
 */
static void empty_geo(const struct workload *w, const struct opts *o,
		      int parse_fd, int cfilter_fd, double *ns)
{
	struct workload e = *w;
	struct row rows[2];
	unsigned int t;

	rows[0] = row(PARSE_ONLY, parse_fd, false);
	rows[1] = row("cfilter", cfilter_fd, false);
	rows[1].passes_all = true;
	e.rows = rows;
	e.nrows = 2;
	measure(&e, o->passes);
	for (t = 0; t < NTRAFFIC; t++)
		ns[t] = rows[1].ns[t] - rows[0].ns[t];
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
			clear_module(dev);
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
	struct workload w = { .title = "exact", .nframes = o->packets,
			      .frame_len = FRAME4_LEN };
	struct cfilter_key *keys;
	struct pfx *p;
	uint32_t *addrs, *pick, a;
	struct empty_cost empty;
	long long before;
	unsigned int i, j;
	struct row rows[5];
	int err;

	fprintf(stderr, "xdp_bench: exact: generating %u keys\n", o->keys);
	addrs = random_addrs(o->keys);
	keys = xcalloc(o->keys, sizeof(*keys));
	p = xcalloc(o->keys, sizeof(*p));
	for (i = 0; i < o->keys; i++) {
		a = htonl(addrs[i]);
		memcpy(p[i].addr, &a, 4);
		p[i].len = 32;
		src_key(&keys[i], &p[i], 4);
	}

	/* Hit frames: distinct keys (a partial shuffle); misses: not keys. */
	pick = xcalloc(o->keys, sizeof(*pick));
	memcpy(pick, addrs, o->keys * sizeof(*pick));
	w.frames[HIT] = frames_alloc(w.nframes, w.frame_len);
	w.frames[MISS] = frames_alloc(w.nframes, w.frame_len);
	for (i = 0; i < w.nframes; i++) {
		j = i + rnd() % (o->keys - i);
		a = pick[j];
		pick[j] = pick[i];
		pick[i] = a;
		build_frame4(w.frames[HIT] + (size_t)i * w.frame_len, a);
		do
			a = (uint32_t)rnd();
		while (in_sorted(addrs, o->keys, a));
		build_frame4(w.frames[MISS] + (size_t)i * w.frame_len, a);
	}

	fprintf(stderr, "xdp_bench: exact: loading the module and the maps\n");
	clear_module(dev);
	skel = load_baseline(o->keys, o->keys, 0, o->keys);
	empty = measure_empty(&w, o, skel, cfilter_fd);
	rows[0] = row(PARSE_ONLY,
		      bpf_program__fd(skel->progs.xdp_parse), false);
	rows[1] = row("cfilter", cfilter_fd, false);
	rows[2] = row("hash", bpf_program__fd(skel->progs.xdp_hash), false);
	rows[3] = row("lpm", bpf_program__fd(skel->progs.xdp_lpm), false);
	rows[4] = row("bloom", bpf_program__fd(skel->progs.xdp_bloom), true);

	/* the empty tables, made before the measurement: by their count */
	before = kernel_memory() - module_memory(dev, 4, &ti);
	err = batch_add(dev, keys, o->keys);
	if (err) {
		errno = -err;
		die("adding %u addresses to the module: %m", o->keys);
	}
	rows[1].mem_kernel = kernel_memory() - before;
	fill_hash(bpf_map__fd(skel->maps.hash_src4), addrs, o->keys);
	before = kernel_memory();
	fill_lpm(bpf_map__fd(skel->maps.lpm_src4), p, o->keys, 4);
	rows[3].mem_kernel = kernel_memory() - before;
	fill_bloom(bpf_map__fd(skel->maps.bloom_src4), addrs, o->keys);
	rows[2].mem_kernel = prealloc_map_memory(BPF_MAP_TYPE_HASH, 4, 1,
						 o->keys);
	rows[4].mem_kernel = prealloc_map_memory(BPF_MAP_TYPE_BLOOM_FILTER, 0,
						 4, o->keys);

	rows[1].mem_own = module_memory(dev, 4, &ti);
	rows[2].mem_own = map_memory(bpf_map__fd(skel->maps.hash_src4));
	rows[3].mem_own = map_memory(bpf_map__fd(skel->maps.lpm_src4));
	rows[4].mem_own = map_memory(bpf_map__fd(skel->maps.bloom_src4));
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
	clear_module(dev);
	free(w.frames[HIT]);
	free(w.frames[MISS]);
	free(pick);
	free(p);
	free(keys);
	free(addrs);
}

/* ---- geo workloads ---- */

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static u128 rnd128(void)
{
	u128 hi = rnd();

	return hi << 64 | rnd();
}

/* One "LOW-HIGH" address into @out; its family's address length, or 0. */
static unsigned int parse_addr(const char *s, uint8_t *out)
{
	if (inet_pton(AF_INET, s, out) == 1)
		return 4;
	if (inet_pton(AF_INET6, s, out) == 1)
		return 16;
	return 0;
}

/*
 * Reads "LOW-HIGH" lines, all of one family (its address length into
 * *@alen); returns the ranges sorted, overlaps merged. Ranges that only
 * touch stay apart: a file of several countries' ranges, each merged on
 * its own (scripts/geoip-ranges.sh -s), keeps them as loading the
 * countries one by one would.
 */
static struct range *read_ranges(const char *file, unsigned int *alen,
				 size_t *count)
{
	char line[160], *dash, *nl;
	struct range *r = NULL;
	size_t n = 0, room = 0, lineno = 0, i, j;
	uint8_t lo[16], hi[16];
	unsigned int al, ah;
	FILE *f = fopen(file, "r");

	if (!f)
		die("%s: %m", file);
	*alen = 0;
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
		al = parse_addr(line, lo);
		ah = parse_addr(dash + 1, hi);
		if (!al || al != ah || (*alen && al != *alen) ||
		    memcmp(lo, hi, al) > 0)
			die("%s:%zu: '%s-%s' is not a range of the file's family",
			    file, lineno, line, dash + 1);
		*alen = al;
		if (n == room) {
			room = room ? 2 * room : 1024;
			r = realloc(r, room * sizeof(*r));
			if (!r)
				die("out of memory");
		}
		r[n].lo = range_addr_num(lo, al);
		r[n].hi = range_addr_num(hi, al);
		n++;
	}
	fclose(f);
	if (!n)
		die("%s: no range", file);
	qsort(r, n, sizeof(*r), cmp_range);
	for (i = 1, j = 0; i < n; i++) {
		if (r[i].lo <= r[j].hi) {
			if (r[i].hi > r[j].hi)
				r[j].hi = r[i].hi;
		} else {
			r[++j] = r[i];
		}
	}
	*count = j + 1;
	return r;
}

struct pfx_list {
	struct pfx	*p;
	size_t		n;
	size_t		room;
	unsigned int	alen;
};

static int pfx_emit(const uint8_t *addr, unsigned int len, void *arg)
{
	struct pfx_list *l = arg;

	if (l->n == l->room) {
		l->room = l->room ? 2 * l->room : 4096;
		l->p = realloc(l->p, l->room * sizeof(*l->p));
		if (!l->p)
			die("out of memory");
	}
	memset(&l->p[l->n], 0, sizeof(l->p[l->n]));
	memcpy(l->p[l->n].addr, addr, l->alen);
	l->p[l->n].len = len;
	l->n++;
	return 0;
}

/* The ranges as CIDR prefixes, as cfctl splits them (user/range.c). */
static struct pfx *split_ranges(const struct range *r, size_t nr,
				unsigned int alen, size_t *count)
{
	struct pfx_list l = { .alen = alen };
	uint8_t lo[16], hi[16];
	size_t k;

	for (k = 0; k < nr; k++) {
		range_addr_bytes(r[k].lo, lo, alen);
		range_addr_bytes(r[k].hi, hi, alen);
		if (range_split(lo, hi, alen, pfx_emit, &l))
			die("splitting range %zu", k);
	}
	*count = l.n;
	return l.p;
}

static bool in_ranges(const struct range *r, size_t n, u128 a)
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

/* The addresses of a geo workload's traffic, @alen bytes each. */
struct geo_traffic {
	uint8_t		*addr[NTRAFFIC];
};

/* Where traffic picks its addresses from: ranges, with their weights. */
struct picker {
	const struct range	*r;
	size_t			nr;
	u128			*cum;
	u128			total;
	unsigned int		alen;
};

/*
 * IPv4: uniform over the ranges' addresses; IPv6: a range picked
 * uniformly, then uniform inside it (uniform over the addresses, every
 * IPv6 address would come from the few largest ranges).
 */
static void picker_init(struct picker *pk, const struct range *r, size_t nr,
			unsigned int alen)
{
	size_t k;

	pk->r = r;
	pk->nr = nr;
	pk->alen = alen;
	pk->cum = xcalloc(nr, sizeof(*pk->cum));
	pk->total = 0;
	for (k = 0; k < nr; k++) {
		pk->total += alen == 4 ? r[k].hi - r[k].lo + 1 : 1;
		pk->cum[k] = pk->total;
	}
}

static u128 pick(const struct picker *pk)
{
	u128 x = rnd128() % pk->total, size;
	size_t lo, hi;

	for (lo = 0, hi = pk->nr - 1; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (pk->cum[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	size = pk->r[lo].hi - pk->r[lo].lo + 1;
	if (pk->alen == 4)
		return pk->r[lo].lo + (x - (pk->cum[lo] - size));
	return pk->r[lo].lo + (size ? rnd128() % size : rnd128());
}

/*
 * Hit traffic: picked from the ranges (see picker_init()). Miss traffic:
 * picked the same way from @miss (@nm ranges: other countries', where
 * traffic that must pass comes from), or, with none, uniform over IPv4 or
 * over IPv6's global unicast 2000::/3 (mostly space nobody is given);
 * either way outside the ranges. Frames into @w, addresses into @t.
 */
static void geo_traffic(struct workload *w, struct geo_traffic *t,
			const struct range *r, size_t nr,
			const struct range *miss, size_t nm, unsigned int alen)
{
	struct picker hits, misses;
	unsigned int i, tr;
	uint8_t *b;
	u128 a;

	picker_init(&hits, r, nr, alen);
	if (nm)
		picker_init(&misses, miss, nm, alen);
	for (tr = 0; tr < NTRAFFIC; tr++) {
		w->frames[tr] = frames_alloc(w->nframes, w->frame_len);
		t->addr[tr] = xcalloc(w->nframes, alen);
	}
	for (i = 0; i < w->nframes; i++) {
		for (tr = 0; tr < NTRAFFIC; tr++) {
			do {
				if (tr == HIT)
					a = pick(&hits);
				else if (nm)
					a = pick(&misses);
				else
					a = alen == 4 ? (u128)(uint32_t)rnd() :
					    rnd128() >> 3 | (u128)1 << 125;
			} while (tr == MISS && in_ranges(r, nr, a));
			b = t->addr[tr] + (size_t)i * alen;
			range_addr_bytes(a, b, alen);
			if (alen == 4)
				build_frame4(w->frames[tr] +
					     (size_t)i * w->frame_len,
					     (uint32_t)a);
			else
				build_frame6(w->frames[tr] +
					     (size_t)i * w->frame_len, b);
		}
	}
	free(hits.cum);
	if (nm)
		free(misses.cum);
}

/* Table probes per packet of one traffic. */
struct probe_count {
	double		mean;
	unsigned int	max;
	unsigned int	false_pos;	/* misses matched (compact mode) */
};

/*
 * The probes the module's lookup makes for each packet of @t, counted on
 * the core holding the same keys in the module's mode; each answer is
 * checked against the traffic's (a hit must be found, a miss not, but
 * for a compact address table's false positives).
 */
static void count_probes(const struct pfx *p, size_t np, unsigned int alen,
			 bool compact, const struct geo_traffic *t,
			 unsigned int n, struct probe_count pc[NTRAFFIC])
{
	struct probe_set *s = probe_set_new(alen, compact);
	unsigned long long sum;
	unsigned int i, tr, k;
	size_t j;
	bool hit;
	int err;

	if (!s)
		die("creating the core's prefix set to count probes: out of memory");
	for (j = 0; j < np; j++) {
		err = probe_set_add(s, p[j].addr, p[j].len);
		if (err) {
			errno = -err;
			die("prefix %zu into the core's set: %m", j);
		}
	}
	for (tr = 0; tr < NTRAFFIC; tr++) {
		sum = 0;
		pc[tr].max = 0;
		pc[tr].false_pos = 0;
		for (i = 0; i < n; i++) {
			k = probe_set_match(s, t->addr[tr] + (size_t)i * alen,
					    &hit);
			if (compact && tr == MISS && hit)
				pc[tr].false_pos++;
			else if (hit != (tr == HIT))
				die("the core's set %s %s packet %u",
				    hit ? "matches" : "misses",
				    tr == HIT ? "hit" : "miss", i);
			sum += k;
			if (k > pc[tr].max)
				pc[tr].max = k;
		}
		pc[tr].mean = (double)sum / n;
	}
	probe_set_free(s);
}

static unsigned int count_lengths(const struct pfx *p, size_t np,
				  unsigned int *minlen, unsigned int *maxlen)
{
	bool seen[129] = { false };
	unsigned int n = 0;
	size_t k;

	*minlen = 128;
	*maxlen = 0;
	for (k = 0; k < np; k++) {
		n += !seen[p[k].len];
		seen[p[k].len] = true;
		*minlen = p[k].len < *minlen ? p[k].len : *minlen;
		*maxlen = p[k].len > *maxlen ? p[k].len : *maxlen;
	}
	return n;
}

static void bench_geo(const struct opts *o, const struct geo_opt *g, int dev,
		      int cfilter_fd, struct geo_result *res)
{
	static const char *const refs[] = { "lpm" };
	unsigned int alen, nlen, minlen, maxlen, i, v;
	struct probe_count pc[NTRAFFIC];
	struct cfilter_type_info ti;
	struct baseline_bpf *skel;
	struct workload w = { .nframes = o->packets };
	struct geo_traffic t;
	struct cfilter_key *keys;
	struct range *r, *miss = NULL;
	struct pfx *p;
	struct row rows[3];
	double empty[NTRAFFIC] = { 0 };
	long long before;
	size_t nr, np, k, nm = 0;
	unsigned int malen;
	double addrs = 0;
	bool compact = module_compact(dev);
	int err;

	r = read_ranges(g->file, &alen, &nr);
	if (g->misses) {
		miss = read_ranges(g->misses, &malen, &nm);
		if (malen != alen || !nm)
			die("%s: no ranges of %s's family", g->misses, g->file);
	}
	v = alen == 4 ? 4 : 6;
	snprintf(res->title, sizeof(res->title), "geo IPv%u %s", v, g->label);
	w.title = res->title;
	w.frame_len = alen == 4 ? FRAME4_LEN : FRAME6_LEN;
	p = split_ranges(r, nr, alen, &np);
	keys = xcalloc(np, sizeof(*keys));
	for (k = 0; k < np; k++)
		src_key(&keys[k], &p[k], alen);
	for (k = 0; k < nr; k++)
		addrs += (double)(r[k].hi - r[k].lo) + 1;
	nlen = count_lengths(p, np, &minlen, &maxlen);
	fprintf(stderr, "xdp_bench: %s: %zu prefixes, building the traffic\n",
		w.title, np);
	geo_traffic(&w, &t, r, nr, miss, nm, alen);

	if (!o->sweep) {
		printf("== %s: %zu ranges, %.*g addresses, %zu prefixes of %u lengths (/%u to /%u) ==\n",
		       w.title, nr, alen == 4 ? 10 : 3, addrs, np, nlen, minlen,
		       maxlen);
		printf("hit traffic: %s; miss traffic: ",
		       alen == 4 ? "uniform over the blocked addresses" :
		       "a range picked uniformly, then an address uniform in it");
		if (nm)
			printf("picked the same way from %zu ranges of %s, outside the ranges\n",
			       nm, g->miss_label);
		else
			printf("uniform over %s outside the ranges\n",
			       alen == 4 ? "IPv4" : "2000::/3");
	}
	clear_module(dev);
	skel = load_baseline(0, alen == 4 ? np : 0, alen == 16 ? np : 0, 0);
	if (!o->sweep) {
		fprintf(stderr, "xdp_bench: %s: the set empty\n", w.title);
		empty_geo(&w, o, bpf_program__fd(skel->progs.xdp_parse),
			  cfilter_fd, empty);
	}
	fprintf(stderr, "xdp_bench: %s: loading the module\n", w.title);
	rows[0] = row(PARSE_ONLY, -1, false);
	rows[1] = row("cfilter", cfilter_fd, compact);
	/* the empty tables, made before the measurement: by their count */
	before = kernel_memory() - module_memory(dev, alen, &ti);
	err = batch_add(dev, keys, np);
	if (err) {
		errno = -err;
		if (o->sweep)
			printf("%-28s the module refused the prefixes: %m\n",
			       g->label);
		else
			printf("not measured: the module refused the prefixes: %m\n\n");
		res->skipped = "the module refused the prefixes";
		goto out;
	}
	rows[1].mem_kernel = kernel_memory() - before;
	rows[1].mem_own = module_memory(dev, alen, &ti);

	fprintf(stderr, "xdp_bench: %s: counting probes\n", w.title);
	count_probes(p, np, alen, compact, &t, w.nframes, pc);

	fprintf(stderr, "xdp_bench: %s: loading the LPM trie\n", w.title);
	rows[0].prog_fd = bpf_program__fd(skel->progs.xdp_parse);
	rows[2] = row("lpm", bpf_program__fd(alen == 4 ? skel->progs.xdp_lpm :
					      skel->progs.xdp_lpm6), false);
	before = kernel_memory();
	fill_lpm(bpf_map__fd(alen == 4 ? skel->maps.lpm_src4 :
			     skel->maps.lpm_src6), p, np, alen);
	rows[2].mem_kernel = kernel_memory() - before;
	rows[2].mem_own = map_memory(bpf_map__fd(alen == 4 ? skel->maps.lpm_src4 :
						 skel->maps.lpm_src6));
	w.rows = rows;
	w.nrows = 3;
	measure(&w, o->passes);

	if (o->sweep) {
		printf("%-28s %4u %9llu %8.2f M %6.2f %6.2f %8.0f %8.0f %8.0f %8.0f %9.2f %9.2f\n",
		       g->label, ti.lengths,
		       (unsigned long long)ti.prefix_markers,
		       rows[1].mem_own / 1048576.0, pc[HIT].mean, pc[MISS].mean,
		       rows[1].ns[HIT], rows[1].ns[MISS], rows[2].ns[HIT],
		       rows[2].ns[MISS], rows[1].ns[HIT] / rows[2].ns[HIT],
		       rows[1].ns[MISS] / rows[2].ns[MISS]);
	} else {
		if (ti.type != CFILTER_KEY_NONE)
			printf("cfilter SRC%u: %llu keys, %llu of them prefixes, %u lengths, %llu markers\n",
			       v, (unsigned long long)ti.count,
			       (unsigned long long)ti.prefixes, ti.lengths,
			       (unsigned long long)ti.prefix_markers);
		printf("table probes per packet (the module's lookup, counted on core/prefix.c holding the same keys): at most %u;\n",
		       ti.type != CFILTER_KEY_NONE ? ti.probes : 0);
		printf("  hit traffic: mean %.2f, max %u; miss traffic: mean %.2f, max %u\n",
		       pc[HIT].mean, pc[HIT].max, pc[MISS].mean, pc[MISS].max);
		print_workload(&w, refs, 1);
		printf("With the set empty (the same frames, all passed), net of parsing: cfilter hit %.0f ns, miss %.0f ns\n"
		       "(the kfunc call and the verdict, before any lookup); the LPM trie's whole lookup: hit %.0f ns, miss %.0f ns\n",
		       empty[HIT], empty[MISS], rows[2].ns[HIT] - rows[0].ns[HIT],
		       rows[2].ns[MISS] - rows[0].ns[MISS]);
	}
	for (i = 0; i < NTRAFFIC; i++)
		res->ratio[i] = rows[1].ns[i] / rows[2].ns[i];
out:
	baseline_bpf__destroy(skel);
	clear_module(dev);
	for (i = 0; i < NTRAFFIC; i++) {
		free(w.frames[i]);
		free(t.addr[i]);
	}
	free(keys);
	free(p);
	free(r);
	free(miss);
}

static void print_goals(const struct opts *o, const struct result *res)
{
	static const char *const tname[NTRAFFIC] = { "hit", "miss" };
	unsigned int g;
	int t;

	printf("== goals (ratios of ns per packet in this run) ==\n");
	printf("exact-address miss path within %.1fx of the hash map program: cfilter/hash = %.2f: %s\n",
	       GOAL_EXACT_MISS, res->exact_miss_ratio,
	       res->exact_miss_ratio <= GOAL_EXACT_MISS ? "MET" : "NOT MET");
	for (t = 0; t < NTRAFFIC; t++)
		printf("timed entries, %s traffic: within %.1fx of permanent ones: timed/permanent = %.2f: %s\n",
		       tname[t], GOAL_TIMED, res->timed_ratio[t],
		       res->timed_ratio[t] <= GOAL_TIMED ? "MET" : "NOT MET");
	for (g = 0; g < o->ngeo; g++) {
		const struct geo_result *gr = &res->geo[g];

		for (t = 0; t < NTRAFFIC; t++) {
			if (gr->skipped) {
				printf("%s, %s traffic: cfilter faster than the LPM trie: NOT MEASURED (%s)\n",
				       gr->title, tname[t], gr->skipped);
				continue;
			}
			printf("%s, %s traffic: cfilter faster than the LPM trie: cfilter/lpm = %.2f: %s\n",
			       gr->title, tname[t], gr->ratio[t],
			       gr->ratio[t] < 1.0 ? "MET" : "NOT MET");
		}
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
		"usage: xdp_bench [-n PACKETS] [-p PASSES] [-k KEYS] [-s SEED]\n"
		"                 [-g RANGES [-l LABEL] [-m RANGES [-M LABEL]]]... [-S]\n"
		"  -n  distinct frames per traffic (default 32768)\n"
		"  -p  passes; the median is reported (default 3)\n"
		"  -k  IPv4 addresses of the exact workload (default 100000)\n"
		"  -s  seed of the keys and packets (default 1)\n"
		"  -g  file of LOW-HIGH IPv4 or IPv6 ranges (scripts/geoip-ranges.sh): a geo\n"
		"      workload; up to %d\n"
		"  -l  what the ranges of the -g before are, for the table\n"
		"  -m  ranges the -g before's miss traffic comes from, as its hit\n"
		"      traffic comes from its own (default: uniform over the family)\n"
		"  -M  what the ranges of the -m before are\n"
		"  -S  the first geo workload alone, as one line of a table of module\n"
		"      parameters (needs -g)\n", GEO_MAX);
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
	printf("BPF_PROG_TEST_RUN, one run per frame: %u distinct UDP frames per traffic (IPv4 %u bytes,\n",
	       o->packets, FRAME4_LEN);
	printf("IPv6 %u), the same frames for every program; ns/packet as the kernel times the program run,\n",
	       FRAME6_LEN);
	printf("mean over the frames, median of %u passes; \"net\": minus the parse-only program\n",
	       o->passes);
	printf("kernel mem: growth of Slab + VmallocUsed + Percpu (/proc/meminfo, empty slabs shrunk) across\n"
	       "loading the keys into the module (plus its own count of the type's tables before, made empty\n"
	       "at load), filling the LPM trie, or creating a preallocated map (hash, Bloom);\n"
	       "own count: the module's (TYPE_INFO memory_bytes, its tables) or the map's memlock (on 6.1 an\n"
	       "estimate, key and value bytes times entries, not what the map allocates)\n\n");
}

/*
 * The -g that an -l, -m or -M qualifies: the last one given, which must
 * have its -m too when @need_misses. Exits saying @usage otherwise.
 */
static struct geo_opt *last_geo(struct opts *o, bool need_misses,
				const char *usage)
{
	struct geo_opt *g = o->ngeo ? &o->geo[o->ngeo - 1] : NULL;

	if (!g || (need_misses && !g->misses)) {
		fprintf(stderr, "xdp_bench: %s\n", usage);
		exit(2);
	}
	return g;
}

int main(int argc, char **argv)
{
	struct opts o = { .packets = 32768, .passes = 3, .keys = 100000,
			  .seed = 1 };
	struct result res;
	struct cfilter_bpf *cf;
	struct geo_opt *geo;
	unsigned int g;
	int c, dev;

	memset(&res, 0, sizeof(res));
	while ((c = getopt(argc, argv, "n:p:k:s:g:l:m:M:Sh")) != -1) {
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
			if (o.ngeo == GEO_MAX) {
				fprintf(stderr, "xdp_bench: at most %d -g\n",
					GEO_MAX);
				exit(2);
			}
			o.geo[o.ngeo].file = optarg;
			o.geo[o.ngeo].label = optarg;
			o.ngeo++;
			break;
		case 'l':
			geo = last_geo(&o, false, "-l labels the -g before it");
			geo->label = optarg;
			break;
		case 'm':
			geo = last_geo(&o, false,
				       "-m gives the misses of the -g before it");
			geo->misses = optarg;
			geo->miss_label = optarg;
			break;
		case 'M':
			geo = last_geo(&o, true, "-M labels the -m before it");
			geo->miss_label = optarg;
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
	if (o.sweep && !o.ngeo) {
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

	if (o.sweep) {
		bench_geo(&o, &o.geo[0], dev,
			  bpf_program__fd(cf->progs.cfilter_xdp), &res.geo[0]);
	} else {
		print_header(&o);
		bench_exact(&o, dev, bpf_program__fd(cf->progs.cfilter_xdp),
			    &res);
		for (g = 0; g < o.ngeo; g++)
			bench_geo(&o, &o.geo[g], dev,
				  bpf_program__fd(cf->progs.cfilter_xdp),
				  &res.geo[g]);
		print_goals(&o, &res);
	}

	cfilter_bpf__destroy(cf);
	close(dev);
	return 0;
}
