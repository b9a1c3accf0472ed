// SPDX-License-Identifier: GPL-2.0
/* Measuring (BPF_PROG_TEST_RUN over the frames) and a workload's table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdp_bench.h"

bool mark_series;

/*
 * The marker bench/qemu/insns.so counts at: `xchg %bx,%bx`, which does
 * nothing. A series is marked before and after, then its line printed: the
 * plugin's marks 2n and 2n+1 are the guest's nth such line.
 */
static void mark(void)
{
	asm volatile("xchg %%bx, %%bx" ::: "memory");
}

/*
 * The JIT's symbols of the programs loaded now (while the guest lets
 * /proc/kallsyms show them: net.core.bpf_jit_kallsyms), for a profile of
 * the series to name.
 */
static void print_bpf_symbols(void)
{
	static int shown = -1;	/* net.core.bpf_jit_kallsyms, read once */
	char line[256];
	FILE *f;

	if (shown < 0) {
		f = fopen("/proc/sys/net/core/bpf_jit_kallsyms", "r");
		shown = f && fgetc(f) == '1';
		if (f)
			fclose(f);
	}
	if (!shown || !(f = fopen("/proc/kallsyms", "r")))
		return;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "\t[bpf]"))
			printf("insns-ksym %s", line);
	fclose(f);
}

static void mark_end(const struct workload *w, const struct row *r,
		     enum traffic t)
{
	mark();
	print_bpf_symbols();
	printf("insns-series %s | %s | %s | %u\n", w->title, r->name,
	       t == HIT ? "hit" : "miss", w->nframes);
	fflush(stdout);
}

/* Mean ns of @prog over the frames of one traffic; checks every verdict. */
double run_series(const struct workload *w, struct row *r,
		  enum traffic t)
{
	int want = t == HIT && !r->passes_all ? XDP_DROP : XDP_PASS;
	unsigned long long total = 0;
	unsigned int i;

	if (t == MISS)
		r->false_pos = 0;
	if (mark_series)
		mark();
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
	if (mark_series)
		mark_end(w, r, t);
	return (double)total / w->nframes;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @v's @n values; sorts them. */
double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

void measure(struct workload *w, unsigned int passes)
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
		w->rows[i / NTRAFFIC].ns[i % NTRAFFIC] =
			median(ns + (size_t)i * passes, passes);
	}
	free(ns);
}

/*
 * Measures @w @placements times, calling @place(@ctx) before each but
 * the first to make the workload's tables anew, as TCG prices a row by
 * where its tables landed (its software TLB charges for pages). Each row's
 * ns: the median over the placements. @place may change rows' programs.
 */
void measure_placed(struct workload *w, unsigned int passes,
		    unsigned int placements,
		    void (*place)(void *ctx), void *ctx)
{
	unsigned int n = w->nrows * NTRAFFIC, np = placements, p, i;
	double *ns = xcalloc((size_t)n * np, sizeof(*ns));

	for (p = 0; p < np; p++) {
		if (p)
			place(ctx);
		measure(w, passes);
		for (i = 0; i < n; i++)
			ns[(size_t)i * np + p] = w->rows[i / NTRAFFIC].ns[i % NTRAFFIC];
	}
	for (i = 0; i < n; i++)
		w->rows[i / NTRAFFIC].ns[i % NTRAFFIC] =
			median(ns + (size_t)i * np, np);
	free(ns);
}

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
void print_workload(const struct workload *w, const char *const *refs,
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

/* Program rows in order; @mem filled in by the caller. */
struct row row(const char *name, int fd, bool may_fp)
{
	struct row r = { .name = name, .prog_fd = fd, .may_fp = may_fp,
			 .mem_kernel = -1, .mem_own = -1 };

	r.passes_all = !strcmp(name, PARSE_ONLY);

	return r;
}
