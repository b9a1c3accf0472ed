// SPDX-License-Identifier: GPL-2.0
/* The geo workloads: ranges as prefixes against an LPM trie. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "baseline.skel.h"
#include "probes.h"
#include "xdp_bench.h"

/*
 * Net ns per packet of cfilter's programs on @w's frames with the set
 * empty (every frame passes), by traffic: without its prefilter (@call_fd)
 * into @call, the cost of the call before any lookup; with it
 * (@cfilter_fd) into @pf, all it does besides parsing: the prefilter's
 * ready word and the /16's bit, which turns every frame away.
 */
static void empty_geo(const struct workload *w, const struct opts *o,
		      int parse_fd, int call_fd, int cfilter_fd, double *call,
		      double *pf)
{
	struct workload e = *w;
	struct row rows[3];
	unsigned int t;

	rows[0] = row(PARSE_ONLY, parse_fd, false);
	rows[1] = row("cfilter, no prefilter", call_fd, false);
	rows[2] = row("cfilter", cfilter_fd, false);
	rows[1].passes_all = true;
	rows[2].passes_all = true;
	e.rows = rows;
	e.nrows = 3;
	measure(&e, o->passes);
	for (t = 0; t < NTRAFFIC; t++) {
		call[t] = rows[1].ns[t] - rows[0].ns[t];
		pf[t] = rows[2].ns[t] - rows[0].ns[t];
	}
}

/* Table probes per packet of one traffic. */
struct probe_count {
	double		mean;
	unsigned int	max;
	unsigned int	false_pos;	/* misses matched (compact mode) */
	unsigned int	level[PROBE_LEVELS];	/* packets by enum probe_level */
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
	enum probe_level level;
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
		memset(pc[tr].level, 0, sizeof(pc[tr].level));
		for (i = 0; i < n; i++) {
			k = probe_set_match(s, t->addr[tr] + (size_t)i * alen,
					    &hit, &level);
			pc[tr].level[level]++;
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

/*
 * Where the searches of @pc's packets began (enum probe_level), as shares
 * of @n; IPv4 (@alen 4) has the level of /17 to /31 only.
 */
static void print_levels(const struct probe_count *pc, unsigned int n,
			 unsigned int alen)
{
	double share[PROBE_LEVELS];
	unsigned int i;

	for (i = 0; i < PROBE_LEVELS; i++)
		share[i] = 100.0 * pc->level[i] / n;
	printf("  misses searched ");
	if (alen == 16)
		printf("from /64 %.1f%%, from /32 %.1f%%, ",
		       share[PROBE_LEVEL_SUBNET], share[PROBE_LEVEL_DEEP]);
	printf("from /24 %.1f%%; turned away by the hashed blocks of a class in their /16 %.1f%%,\n"
	       "  by the head word alone %.1f%% (the search from /64 covers every length, from /32 /1 to /63)\n",
	       share[PROBE_LEVEL_MID], share[PROBE_LEVEL_HASHED_OUT],
	       share[PROBE_LEVEL_NONE]);
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

/* What a placement of a geo workload makes anew (place_geo()). */
struct geo_place {
	int dev;
	struct cfilter_key *keys;
	const struct pfx *p;
	size_t np;
	unsigned int alen;
	struct row *lpm;		/* its row */
	struct baseline_bpf *skel;	/* this placement's trie, or NULL */
};

/* The module's set of the prefixes (tables and all) and the trie anew. */
static void place_geo(void *ctx)
{
	struct geo_place *g = ctx;
	bool v4 = g->alen == 4;

	if (g->skel)
		baseline_bpf__destroy(g->skel);
	g->skel = load_baseline(g->alen, 0, g->np, 0);
	clear_module(g->dev);
	batch_add_or_die(g->dev, g->keys, g->np);
	fill_lpm(bpf_map__fd(v4 ? g->skel->maps.lpm_src4 :
			     g->skel->maps.lpm_src6), g->p, g->np, g->alen);
	g->lpm->prog_fd = bpf_program__fd(v4 ? g->skel->progs.xdp_lpm :
					  g->skel->progs.xdp_lpm6);
}

void bench_geo(const struct opts *o, const struct geo_opt *g, int dev,
	       int cfilter_fd, int call_fd, struct geo_result *res)
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
	struct row rows[4];
	struct geo_place place;
	double empty[NTRAFFIC] = { 0 }, empty_pf[NTRAFFIC] = { 0 };
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
	skel = load_baseline(alen, 0, np, 0);
	if (!o->sweep) {
		fprintf(stderr, "xdp_bench: %s: the set empty\n", w.title);
		empty_geo(&w, o, bpf_program__fd(skel->progs.xdp_parse),
			  call_fd, cfilter_fd, empty, empty_pf);
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
	rows[1].mem_kernel = kernel_memory() - before + prefilter_mem;
	rows[1].mem_own = module_memory(dev, alen, &ti) + prefilter_mem;

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
	/* The same program without its prefilter: what the bits spare. */
	rows[3] = row("cfilter, no prefilter", call_fd, compact);
	w.rows = rows;
	w.nrows = o->sweep ? 3 : 4;
	place = (struct geo_place){ dev, keys, p, np, alen, &rows[2], NULL };
	measure_placed(&w, o->passes, o->sweep ? 1 : o->placements, place_geo,
		       &place);
	if (place.skel)
		baseline_bpf__destroy(place.skel);

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
		print_levels(&pc[MISS], w.nframes, alen);
		print_workload(&w, refs, 1);
		printf("With the set empty (the same frames, all passed), net of parsing: cfilter without its prefilter hit %.0f ns, miss %.0f ns\n"
		       "(the kfunc call and the verdict, before any lookup); with it hit %.0f ns, miss %.0f ns (all it does besides\n"
		       "parsing: the prefilter's ready word and the /16's bit, which turns every frame away); the LPM trie's\n"
		       "whole lookup: hit %.0f ns, miss %.0f ns\n",
		       empty[HIT], empty[MISS], empty_pf[HIT], empty_pf[MISS],
		       rows[2].ns[HIT] - rows[0].ns[HIT],
		       rows[2].ns[MISS] - rows[0].ns[MISS]);
	}
	for (i = 0; i < NTRAFFIC; i++) {
		res->ratio[i] = rows[1].ns[i] / rows[2].ns[i];
		res->parse[i] = rows[0].ns[i] / rows[2].ns[i];
		/* what cfilter reads with nothing to find: no set does better */
		res->empty[i] = o->sweep ? 0 : (rows[0].ns[i] + empty_pf[i]) /
					       rows[2].ns[i];
		res->floor[i] = floor_ns / rows[2].ns[i];
	}
	res->mem = rows[1].mem_kernel;
	res->lpm_mem = rows[2].mem_kernel;
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
