// SPDX-License-Identifier: GPL-2.0
/* The exact workload, and timed entries against permanent ones. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <bpf/libbpf.h>

#include "baseline.skel.h"
#include "cfilter.skel.h"
#include "xdp_bench.h"

/*
 * Net ns per packet of programs whose lookups find nothing to probe, and
 * the page control: a random word of the control's array over the first.
 */
struct empty_cost {
	double	cfilter;
	double	hash;
	double	page;
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
	struct row rows[5];
	unsigned int i, t;
	double ns[5];

	w.title = "empty";
	rows[0] = row(PARSE_ONLY, bpf_program__fd(skel->progs.xdp_parse),
		      false);
	rows[1] = row("cfilter", cfilter_fd, false);
	rows[2] = row("hash", bpf_program__fd(skel->progs.xdp_hash), false);
	rows[3] = row("one word", bpf_program__fd(skel->progs.xdp_word_one),
		      false);
	rows[4] = row("any word", bpf_program__fd(skel->progs.xdp_word_any),
		      false);
	for (i = 0; i < 5; i++)
		rows[i].passes_all = true;
	w.rows = rows;
	w.nrows = 5;
	measure(&w, o->passes);
	for (i = 0; i < 5; i++) {
		ns[i] = 0;
		for (t = 0; t < NTRAFFIC; t++)
			ns[i] += rows[i].ns[t] / NTRAFFIC;
	}
	cost.cfilter = ns[1] - ns[0];
	cost.hash = ns[2] - ns[0];
	cost.page = ns[4] - ns[3];
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

/* The exact workload's keys, as the module, the maps and the LPM trie take them. */
struct exact_keys {
	uint32_t		*addrs;		/* sorted, host order */
	struct cfilter_key	*keys;
	struct pfx		*p;		/* the same as /32s */
};

/*
 * KEYS random addresses in @k, and @w's frames: hits from distinct keys
 * (a partial shuffle), misses from addresses that are not keys. The same
 * seed makes the same keys and frames in every run and every mode.
 */
static void exact_workload(const struct opts *o, struct workload *w,
			   struct exact_keys *k)
{
	uint32_t *pick, a;
	unsigned int i, j;

	fprintf(stderr, "xdp_bench: exact: generating %u keys\n", o->keys);
	k->addrs = random_addrs(o->keys);
	k->keys = xcalloc(o->keys, sizeof(*k->keys));
	k->p = xcalloc(o->keys, sizeof(*k->p));
	for (i = 0; i < o->keys; i++) {
		a = htonl(k->addrs[i]);
		memcpy(k->p[i].addr, &a, 4);
		k->p[i].len = 32;
		src_key(&k->keys[i], &k->p[i], 4);
	}

	pick = xcalloc(o->keys, sizeof(*pick));
	memcpy(pick, k->addrs, o->keys * sizeof(*pick));
	w->title = "exact";
	w->nframes = o->packets;
	w->frame_len = FRAME4_LEN;
	w->frames[HIT] = frames_alloc(w->nframes, w->frame_len);
	w->frames[MISS] = frames_alloc(w->nframes, w->frame_len);
	for (i = 0; i < w->nframes; i++) {
		j = i + rnd() % (o->keys - i);
		a = pick[j];
		pick[j] = pick[i];
		pick[i] = a;
		build_frame4(w->frames[HIT] + (size_t)i * w->frame_len, a);
		do
			a = (uint32_t)rnd();
		while (in_sorted(k->addrs, o->keys, a));
		build_frame4(w->frames[MISS] + (size_t)i * w->frame_len, a);
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
static long long exact_load_module(const struct opts *o, int dev,
				   const struct exact_keys *k)
{
	struct cfilter_type_info ti;
	long long before;
	int err;

	clear_module(dev);
	before = kernel_memory() - module_memory(dev, 4, &ti);
	err = batch_add(dev, k->keys, o->keys);
	if (err) {
		errno = -err;
		die("adding %u addresses to the module: %m", o->keys);
	}
	return kernel_memory() - before;
}

void bench_exact(const struct opts *o, int dev, struct cfilter_bpf *cf,
		 int call_fd, struct result *res)
{
	int cfilter_fd = bpf_program__fd(cf->progs.cfilter_xdp);
	static const char *const refs[] = { "hash", "lpm" };
	struct cfilter_type_info ti;
	struct baseline_bpf *skel;
	struct workload w = { 0 };
	struct exact_keys k;
	struct empty_cost empty;
	long long before;
	unsigned int t;
	struct row rows[5];
	int err;

	exact_workload(o, &w, &k);
	fprintf(stderr, "xdp_bench: exact: loading the module and the maps\n");
	clear_module(dev);
	skel = load_baseline(o->keys, o->keys, 0, o->keys);
	empty = measure_empty(&w, o, skel, call_fd);
	rows[0] = row(PARSE_ONLY,
		      bpf_program__fd(skel->progs.xdp_parse), false);
	rows[1] = row("cfilter", cfilter_fd, false);
	rows[2] = row("hash", bpf_program__fd(skel->progs.xdp_hash), false);
	rows[3] = row("lpm", bpf_program__fd(skel->progs.xdp_lpm), false);
	rows[4] = row("bloom", bpf_program__fd(skel->progs.xdp_bloom), true);

	rows[1].mem_kernel = exact_load_module(o, dev, &k);
	fill_hash(bpf_map__fd(skel->maps.hash_src4), k.addrs, o->keys);
	before = kernel_memory();
	fill_lpm(bpf_map__fd(skel->maps.lpm_src4), k.p, o->keys, 4);
	rows[3].mem_kernel = kernel_memory() - before;
	fill_bloom(bpf_map__fd(skel->maps.bloom_src4), k.addrs, o->keys);
	rows[2].mem_kernel = prealloc_map_memory(BPF_MAP_TYPE_HASH, 4, 1,
						 o->keys);
	rows[4].mem_kernel = prealloc_map_memory(BPF_MAP_TYPE_BLOOM_FILTER, 0,
						 4, o->keys);

	rows[1].mem_own = module_memory(dev, 4, &ti) + prefilter_mem;
	rows[1].mem_kernel += prefilter_mem;
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
	printf("cfilter without its prefilter %.0f ns (the kfunc call and the verdict, no probe), hash %.0f ns (hashing, an empty bucket)\n",
	       empty.cfilter, empty.hash);
	printf("The page control: a load at the hashed word of an array of %u KiB (the prefilter's hashed bits)\n"
	       "costs %.0f ns more than the same load always at its first word\n\n",
	       prefilter_words / 128, empty.page);
	for (t = 0; t < NTRAFFIC; t++)
		res->exact_hash[t] = rows[1].ns[t] / rows[2].ns[t];
	res->exact_miss_bloom = rows[1].ns[MISS] / rows[4].ns[MISS];
	res->exact_mem = rows[1].mem_kernel;
	res->exact_hash_mem = rows[2].mem_kernel;
	bench_timed(o, dev, &w, &rows[1], k.keys, res);
	clear_module(dev);
	err = batch_add(dev, k.keys, o->keys);
	if (err) {
		errno = -err;
		die("adding %u addresses to the module: %m", o->keys);
	}
	bench_log(o, cf, &w, &rows[1], res);

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
			 const char *label)
{
	struct cfilter_type_info ti;
	struct baseline_bpf *skel;
	struct workload w = { 0 };
	struct exact_keys k;
	struct row rows[3];
	const struct row *cf = &rows[0], *hash = &rows[1], *bloom = &rows[2];
	bool met;

	if (!module_compact(dev))
		die("-C: cfilter.ko is in exact mode (load it with mode=compact)");
	exact_workload(o, &w, &k);
	fprintf(stderr, "xdp_bench: exact, %s: loading the module and the maps\n",
		label);
	skel = load_baseline(o->keys, 0, 0, o->keys);
	rows[0] = row("cfilter", cfilter_fd, true);
	rows[1] = row("hash", bpf_program__fd(skel->progs.xdp_hash), false);
	rows[2] = row("bloom", bpf_program__fd(skel->progs.xdp_bloom), true);
	rows[0].mem_kernel = exact_load_module(o, dev, &k) + prefilter_mem;
	rows[0].mem_own = module_memory(dev, 4, &ti) + prefilter_mem;
	fill_hash(bpf_map__fd(skel->maps.hash_src4), k.addrs, o->keys);
	fill_bloom(bpf_map__fd(skel->maps.bloom_src4), k.addrs, o->keys);
	rows[2].mem_kernel = prealloc_map_memory(BPF_MAP_TYPE_BLOOM_FILTER, 0,
						 4, o->keys);
	w.rows = rows;
	w.nrows = 3;
	measure(&w, o->passes);

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
