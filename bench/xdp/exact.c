// SPDX-License-Identifier: GPL-2.0
/* The exact workload, and timed entries against permanent ones. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <bpf/libbpf.h>

#include "baseline.skel.h"
#include "lib/range.h"
#include "cfilter.skel.h"
#include "xdp_bench.h"

/*
 * Net ns per packet of programs whose lookups find nothing to probe; the
 * page control: a random word of the control's array over the first; and
 * the floor: a program that returns at once, and parsing over it.
 */
struct empty_cost {
	double	cfilter;
	double	hash;
	double	page;
	double	floor;
	double	parse;
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
	struct row rows[6];
	unsigned int i, t;
	char title[64];
	double ns[6];

	snprintf(title, sizeof(title), "%s, all empty", exact->title);
	w.title = title;
	rows[0] = row(PARSE_ONLY, bpf_program__fd(skel->progs.xdp_parse),
		      false);
	rows[1] = row("cfilter", cfilter_fd, false);
	rows[2] = row("hash", bpf_program__fd(skel->progs.xdp_hash), false);
	rows[3] = row("one word", bpf_program__fd(skel->progs.xdp_word_one),
		      false);
	rows[4] = row("any word", bpf_program__fd(skel->progs.xdp_word_any),
		      false);
	rows[5] = row("none", bpf_program__fd(skel->progs.xdp_none), false);
	for (i = 0; i < 6; i++)
		rows[i].passes_all = true;
	w.rows = rows;
	w.nrows = 6;
	measure(&w, o->passes);
	for (i = 0; i < 6; i++) {
		ns[i] = 0;
		for (t = 0; t < NTRAFFIC; t++)
			ns[i] += rows[i].ns[t] / NTRAFFIC;
	}
	cost.cfilter = ns[1] - ns[0];
	cost.hash = ns[2] - ns[0];
	cost.page = ns[4] - ns[3];
	cost.floor = ns[5];
	cost.parse = ns[0] - ns[5];
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
	struct row timed[2];
	int err;

	/* named apart, for xdp_bench -I's series */
	for (m = 0; m < 2; m++) {
		timed[m] = *cf;
		timed[m].name = name[m];
	}
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
					run_series(w, &timed[m], t);
		}
	}
	for (m = 0; m < 2; m++) {
		for (t = 0; t < NTRAFFIC; t++) {
			med[m][t] = median(ns + ((size_t)m * NTRAFFIC + t) *
					   o->passes, o->passes);
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

/* An exact workload's keys, as the module, the maps and the LPM trie take them. */
struct exact_keys {
	unsigned int		alen;
	unsigned int		n;
	u128			*addrs;		/* sorted, host order */
	struct cfilter_key	*keys;
	struct pfx		*p;		/* the same as /32s or /128s */
	char			title[32];	/* its workload's */
};

/*
 * @n random addresses of @alen bytes in @k (IPv6: in 2000::/3, where
 * unicast is given out), and @w's frames: hits from distinct keys (a
 * partial shuffle), misses from addresses of the same space that are not
 * keys. The same seed makes the same keys and frames in every run and
 * every mode.
 */
static void exact_workload(const struct opts *o, struct workload *w,
			   struct exact_keys *k, unsigned int alen,
			   unsigned int n)
{
	unsigned int i, j, h, *pick;
	uint8_t b[16];
	u128 a;

	fprintf(stderr, "xdp_bench: exact: generating %u IPv%c keys\n", n,
		alen == 4 ? '4' : '6');
	memset(k, 0, sizeof(*k));
	k->alen = alen;
	k->n = n;
	k->addrs = random_addrs(n, alen);
	k->keys = xcalloc(n, sizeof(*k->keys));
	k->p = xcalloc(n, sizeof(*k->p));
	for (i = 0; i < n; i++) {
		range_addr_bytes(k->addrs[i], k->p[i].addr, alen);
		k->p[i].len = alen * 8;
		src_key(&k->keys[i], &k->p[i], alen);
	}

	pick = xcalloc(n, sizeof(*pick));
	for (i = 0; i < n; i++)
		pick[i] = i;
	snprintf(k->title, sizeof(k->title), "exact, %u IPv%c", n,
		 alen == 4 ? '4' : '6');
	w->title = k->title;
	w->nframes = o->packets;
	w->frame_len = alen == 4 ? FRAME4_LEN : FRAME6_LEN;
	w->frames[HIT] = frames_alloc(w->nframes, w->frame_len);
	w->frames[MISS] = frames_alloc(w->nframes, w->frame_len);
	for (i = 0; i < w->nframes; i++) {
		j = i + rnd() % (n - i);
		h = pick[j];
		pick[j] = pick[i];
		pick[i] = h;
		build_frame(w->frames[HIT] + (size_t)i * w->frame_len,
			    k->p[h].addr, alen);
		do
			a = alen == 4 ? (u128)(uint32_t)rnd() : rnd_unicast6();
		while (in_sorted(k->addrs, n, a));
		range_addr_bytes(a, b, alen);
		build_frame(w->frames[MISS] + (size_t)i * w->frame_len, b,
			    alen);
	}
	free(pick);
}

static void exact_workload_free(struct workload *w, struct exact_keys *k)
{
	free(w->frames[HIT]);
	free(w->frames[MISS]);
	free(k->p);
	free(k->keys);
	free(k->addrs);
}

/*
 * Adds the exact workload's keys to the (cleared) module: the kernel
 * memory it grew by, with the empty tables made at load by their count.
 */
static long long exact_load_module(int dev, const struct exact_keys *k)
{
	struct cfilter_type_info ti;
	long long before;

	clear_module(dev);
	before = kernel_memory() - module_memory(dev, k->alen, &ti);
	batch_add_or_die(dev, k->keys, k->n);
	return kernel_memory() - before;
}

/* What a placement of an exact workload makes anew (place_exact()). */
struct exact_place {
	int dev;
	const struct exact_keys *k;
	struct workload *w;
	unsigned int hash_row, bloom_row;
	struct baseline_bpf *skel;	/* this placement's maps, or NULL */
};

/*
 * The module's set of the keys (tables and all), the hash map (row
 * @hash_row) and the Bloom filter (row @bloom_row) made anew.
 */
static void place_exact(void *ctx)
{
	struct exact_place *e = ctx;
	const struct exact_keys *k = e->k;
	bool v4 = k->alen == 4;

	/* one copy at a time: the caller's maps stay too */
	if (e->skel)
		baseline_bpf__destroy(e->skel);
	e->skel = load_baseline(k->alen, k->n, 0, k->n);
	/* a new set: its tables are allocated again */
	clear_module(e->dev);
	batch_add_or_die(e->dev, k->keys, k->n);
	fill_hash(bpf_map__fd(v4 ? e->skel->maps.hash_src4 :
			      e->skel->maps.hash_src6), k->p, k->n);
	fill_bloom(bpf_map__fd(v4 ? e->skel->maps.bloom_src4 :
			       e->skel->maps.bloom_src6), k->p, k->n);
	e->w->rows[e->hash_row].prog_fd = bpf_program__fd(
		v4 ? e->skel->progs.xdp_hash : e->skel->progs.xdp_hash6);
	e->w->rows[e->bloom_row].prog_fd = bpf_program__fd(
		v4 ? e->skel->progs.xdp_bloom : e->skel->progs.xdp_bloom6);
}

/* @w over the placements (-P) of place_exact(); the caller's maps after. */
static void measure_exact(const struct opts *o, int dev, struct workload *w,
			  const struct exact_keys *k, unsigned int hash_row,
			  unsigned int bloom_row)
{
	struct exact_place e = { dev, k, w, hash_row, bloom_row, NULL };
	int fds[2] = { w->rows[hash_row].prog_fd, w->rows[bloom_row].prog_fd };

	measure_placed(w, o->passes, o->placements, place_exact, &e);
	w->rows[hash_row].prog_fd = fds[0];
	w->rows[bloom_row].prog_fd = fds[1];
	if (e.skel)
		baseline_bpf__destroy(e.skel);
}

/*
 * The exact table of @k against the programs of @skel, whose maps are
 * empty: cfilter (@cfilter_fd, its prefilter map taking @pf_mem of kernel
 * memory) and the maps filled, measured, printed; its ratios into @res.
 * Leaves the keys in the module.
 */
static void exact_table(const struct opts *o, int dev, int cfilter_fd,
			long long pf_mem, struct baseline_bpf *skel,
			struct workload *w, const struct exact_keys *k,
			struct row rows[5], struct exact_result *res)
{
	static const char *const refs[] = { "hash", "lpm" };
	bool v4 = k->alen == 4;
	struct cfilter_type_info ti;
	long long before;
	int hash_fd, lpm_fd, bloom_fd;

	hash_fd = bpf_map__fd(v4 ? skel->maps.hash_src4 : skel->maps.hash_src6);
	lpm_fd = bpf_map__fd(v4 ? skel->maps.lpm_src4 : skel->maps.lpm_src6);
	bloom_fd = bpf_map__fd(v4 ? skel->maps.bloom_src4 :
				    skel->maps.bloom_src6);
	rows[0] = row(PARSE_ONLY,
		      bpf_program__fd(skel->progs.xdp_parse), false);
	rows[1] = row("cfilter", cfilter_fd, false);
	rows[2] = row("hash", bpf_program__fd(v4 ? skel->progs.xdp_hash :
						   skel->progs.xdp_hash6),
		      false);
	rows[3] = row("lpm", bpf_program__fd(v4 ? skel->progs.xdp_lpm :
						  skel->progs.xdp_lpm6),
		      false);
	rows[4] = row("bloom", bpf_program__fd(v4 ? skel->progs.xdp_bloom :
						    skel->progs.xdp_bloom6),
		      true);

	rows[1].mem_kernel = exact_load_module(dev, k);
	fill_hash(hash_fd, k->p, k->n);
	before = kernel_memory();
	fill_lpm(lpm_fd, k->p, k->n, k->alen);
	rows[3].mem_kernel = kernel_memory() - before;
	fill_bloom(bloom_fd, k->p, k->n);
	rows[2].mem_kernel = prealloc_map_memory(BPF_MAP_TYPE_HASH, k->alen,
						 1, k->n);
	rows[4].mem_kernel = prealloc_map_memory(BPF_MAP_TYPE_BLOOM_FILTER, 0,
						 k->alen, k->n);

	rows[1].mem_own = module_memory(dev, k->alen, &ti) + pf_mem;
	rows[1].mem_kernel += pf_mem;
	rows[2].mem_own = map_memory(hash_fd);
	rows[3].mem_own = map_memory(lpm_fd);
	rows[4].mem_own = map_memory(bloom_fd);
	w->rows = rows;
	w->nrows = 5;
	measure_exact(o, dev, w, k, 2, 4);

	printf("== exact: %u random IPv%c source addresses%s ==\n", k->n,
	       v4 ? '4' : '6', v4 ? "" : " in 2000::/3");
	printf("(hash: BPF_MAP_TYPE_HASH, lpm: BPF_MAP_TYPE_LPM_TRIE of /%u, bloom: BPF_MAP_TYPE_BLOOM_FILTER, 5 hashes)\n",
	       k->alen * 8);
	print_workload(w, refs, 2);
	if (ti.type == CFILTER_KEY_NONE)
		printf("(cfilter's memory: every key type's tables; the module has no TYPE_INFO)\n\n");
	res->alen = k->alen;
	res->keys = k->n;
	res->hash[HIT] = rows[1].ns[HIT] / rows[2].ns[HIT];
	res->hash[MISS] = rows[1].ns[MISS] / rows[2].ns[MISS];
	res->miss_bloom = rows[1].ns[MISS] / rows[4].ns[MISS];
	res->mem = rows[1].mem_kernel;
	res->hash_mem = rows[2].mem_kernel;
}

void bench_exact(const struct opts *o, int dev, struct cfilter_bpf *cf,
		 int call_fd, struct result *res)
{
	int cfilter_fd = bpf_program__fd(cf->progs.cfilter_xdp);
	struct baseline_bpf *skel;
	struct workload w = { 0 };
	struct exact_keys k;
	struct empty_cost empty;
	struct row rows[5];

	exact_workload(o, &w, &k, 4, o->keys);
	fprintf(stderr, "xdp_bench: exact: loading the module and the maps\n");
	clear_module(dev);
	skel = load_baseline(4, o->keys, o->keys, o->keys);
	empty = measure_empty(&w, o, skel, call_fd);
	exact_table(o, dev, cfilter_fd, prefilter_mem, skel, &w, &k, rows,
		    &res->exact);
	printf("With the module and the hash map empty (the same frames, all passed), net of parsing:\n");
	printf("cfilter without its prefilter %.0f ns (the kfunc call and the verdict, no probe), hash %.0f ns (hashing, an empty bucket)\n",
	       empty.cfilter, empty.hash);
	printf("The page control: a load at the hashed word of an array of %u KiB (the prefilter's hashed bits)\n"
	       "costs %.0f ns more than the same load always at its first word\n",
	       prefilter_words / 128, empty.page);
	printf("The floor: a program that returns at once, parsing nothing, %.0f ns (the kernel's timing of\n"
	       "one run, in every row); the parser adds %.0f ns to it\n\n",
	       empty.floor, empty.parse);
	floor_ns = empty.floor;
	bench_timed(o, dev, &w, &rows[1], k.keys, res);
	clear_module(dev);
	batch_add_or_die(dev, k.keys, k.n);
	bench_log(o, cf, &w, &rows[1], res);

	baseline_bpf__destroy(skel);
	clear_module(dev);
	exact_workload_free(&w, &k);
}

/*
 * Another exact workload (-e): @e's keys against the same maps, through
 * cfilter's program @cfilter_fd, whose prefilter map takes @pf_mem.
 */
void bench_exact_more(const struct opts *o, const struct exact_opt *e,
		      int dev, int cfilter_fd, long long pf_mem,
		      struct exact_result *res)
{
	struct baseline_bpf *skel;
	struct workload w = { 0 };
	struct exact_keys k;
	struct row rows[5];

	exact_workload(o, &w, &k, e->alen, e->keys);
	fprintf(stderr, "xdp_bench: exact, %u IPv%c: loading the module and the maps\n",
		e->keys, e->alen == 4 ? '4' : '6');
	clear_module(dev);
	skel = load_baseline(e->alen, e->keys, e->keys, e->keys);
	exact_table(o, dev, cfilter_fd, pf_mem, skel, &w, &k, rows, res);
	printf("(cfilter's rows include its prefilter map, its hashed bits sized for %u addresses: %.0f KiB)\n\n",
	       e->keys, pf_mem / 1024.0);
	baseline_bpf__destroy(skel);
	clear_module(dev);
	exact_workload_free(&w, &k);
}

/*
 * The exact workload against a module loaded in compact mode, as one line
 * of a table of module parameters, then the compact goal's line: cfilter,
 * whose false positives now drop misses too, against the hash map and the
 * Bloom filter, the same traffic as the exact workload's (the same seed).
 */
void bench_exact_compact(const struct opts *o, int dev, int cfilter_fd,
			 unsigned int fp_bits)
{
	struct cfilter_type_info ti;
	char label[32];
	struct baseline_bpf *skel;
	struct workload w = { 0 };
	struct exact_keys k;
	struct row rows[3];
	const struct row *cf = &rows[0], *hash = &rows[1], *bloom = &rows[2];
	bool met;

	if (!module_compact(dev))
		die("-C: cfilter.ko is in exact mode (load it with mode=compact)");
	snprintf(label, sizeof(label), "compact fp%u", fp_bits);
	exact_workload(o, &w, &k, 4, o->keys);
	fprintf(stderr, "xdp_bench: exact, %s: loading the module and the maps\n",
		label);
	skel = load_baseline(4, o->keys, 0, o->keys);
	rows[0] = row("cfilter", cfilter_fd, true);
	rows[1] = row("hash", bpf_program__fd(skel->progs.xdp_hash), false);
	rows[2] = row("bloom", bpf_program__fd(skel->progs.xdp_bloom), true);
	rows[0].mem_kernel = exact_load_module(dev, &k) + prefilter_mem;
	rows[0].mem_own = module_memory(dev, 4, &ti) + prefilter_mem;
	fill_hash(bpf_map__fd(skel->maps.hash_src4), k.p, o->keys);
	fill_bloom(bpf_map__fd(skel->maps.bloom_src4), k.p, o->keys);
	rows[2].mem_kernel = prealloc_map_memory(BPF_MAP_TYPE_BLOOM_FILTER, 0,
						 4, o->keys);
	w.rows = rows;
	w.nrows = 3;
	measure_exact(o, dev, &w, &k, 1, 2);

	printf("%-22s %7.0f %7.0f %7.0f %7.0f %9.2f %10.2f %8.2f %9.2f %8lu %8lu %8.2f M %8.2f M %8.2f M\n",
	       label, cf->ns[HIT], cf->ns[MISS], bloom->ns[HIT],
	       bloom->ns[MISS], cf->ns[HIT] / bloom->ns[HIT],
	       cf->ns[MISS] / bloom->ns[MISS], cf->ns[HIT] / hash->ns[HIT],
	       cf->ns[MISS] / hash->ns[MISS], cf->false_pos, bloom->false_pos,
	       cf->mem_kernel / 1048576.0, cf->mem_own / 1048576.0,
	       bloom->mem_kernel / 1048576.0);
	met = cf->ns[HIT] <= bloom->ns[HIT] && cf->ns[MISS] <= bloom->ns[MISS] &&
	      cf->false_pos < bloom->false_pos;
	printf("exact, %u addresses, %s: hit and miss at most the Bloom filter program's, with fewer false drops: cfilter/bloom hit %.2f, miss %.2f, false drops %lu against %lu: %s\n",
	       o->keys, label, cf->ns[HIT] / bloom->ns[HIT],
	       cf->ns[MISS] / bloom->ns[MISS], cf->false_pos, bloom->false_pos,
	       met ? "MET" : "NOT MET");

	baseline_bpf__destroy(skel);
	clear_module(dev);
	exact_workload_free(&w, &k);
}
