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

void bench_exact(const struct opts *o, int dev, struct cfilter_bpf *cf,
		 int call_fd, struct result *res)
{
	int cfilter_fd = bpf_program__fd(cf->progs.cfilter_xdp);
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
	empty = measure_empty(&w, o, skel, call_fd);
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
	printf("cfilter without its prefilter %.0f ns (the kfunc call and the verdict, no probe), hash %.0f ns (hashing, an empty bucket)\n\n",
	       empty.cfilter, empty.hash);
	res->exact_miss_ratio = rows[1].ns[MISS] / rows[2].ns[MISS];
	bench_timed(o, dev, &w, &rows[1], keys, res);
	clear_module(dev);
	err = batch_add(dev, keys, o->keys);
	if (err) {
		errno = -err;
		die("adding %u addresses to the module: %m", o->keys);
	}
	bench_log(o, cf, &w, &rows[1], res);

	baseline_bpf__destroy(skel);
	clear_module(dev);
	free(w.frames[HIT]);
	free(w.frames[MISS]);
	free(pick);
	free(p);
	free(keys);
	free(addrs);
}
