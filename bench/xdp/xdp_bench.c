// SPDX-License-Identifier: GPL-2.0
/*
 * xdp_bench: ns per packet of cfilter's XDP program against XDP programs
 * that parse alike and look the source up in a BPF hash map, LPM trie or
 * Bloom filter (baseline.bpf.c), through BPF_PROG_TEST_RUN. Run as root
 * with cfilter.ko loaded (scripts/bench/bench-xdp-guest.sh does, in the guest).
 *
 * Workloads:
 *   exact  KEYS random IPv4 source addresses in the module and in every
 *          map; hit traffic from addresses of the set, miss traffic from
 *          addresses outside it.
 *   geo    the "LOW-HIGH" ranges of a file (scripts/geoip/geoip-ranges.sh),
 *          IPv4 or IPv6, split into CIDR prefixes by cfctl's range_split(),
 *          once, and loaded into the module and an LPM trie of the family;
 *          hit traffic from addresses inside the ranges, miss traffic from
 *          outside them (see geo_traffic()). One per -g.
 *
 * The exact workload also runs with a reader of the drop log and without
 * (log.c). Besides the times, for each geo workload: the table probes the module's
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
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cfilter.skel.h"
#include "xdp/prefilter_size.h"
#include "xdp_bench.h"

#define GOAL_EXACT_MISS	1.2	/* cfilter miss / hash miss, at most */
#define GOAL_TIMED	1.1	/* timed / permanent entries, at most */
#define GOAL_LOG	1.2	/* a drop log reader / none, at most */
/* the exact workload against the hash map program: cfilter / hash, at most */
#define GOAL_EXACT_MISS_HASH	0.8
#define GOAL_EXACT_HIT_HASH	1.0
#define GOAL_GEO_LPM		0.8	/* cfilter / lpm, each geo row */

static const char *met(bool ok)
{
	return ok ? "MET" : "NOT MET";
}

/* An exact workload's goals: against the hash map and the Bloom filter. */
static void print_exact_goals(const struct exact_result *e)
{
	char what[64];

	snprintf(what, sizeof(what), "exact, %u%s addresses", e->keys,
		 e->alen == 4 ? "" : " IPv6");
	printf("%s, miss traffic: at most %.1fx the hash map program: cfilter/hash = %.2f: %s\n",
	       what, GOAL_EXACT_MISS_HASH, e->hash[MISS],
	       met(e->hash[MISS] <= GOAL_EXACT_MISS_HASH));
	printf("%s, miss traffic: at most the Bloom filter program: cfilter/bloom = %.2f: %s\n",
	       what, e->miss_bloom, met(e->miss_bloom <= 1.0));
	printf("%s, hit traffic: at most %.1fx the hash map program: cfilter/hash = %.2f: %s\n",
	       what, GOAL_EXACT_HIT_HASH, e->hash[HIT],
	       met(e->hash[HIT] <= GOAL_EXACT_HIT_HASH));
	printf("%s, kernel mem at most the hash map's: cfilter %.2f M, hash %.2f M: %s\n",
	       what, e->mem / 1048576.0, e->hash_mem / 1048576.0,
	       met(e->mem <= e->hash_mem));
}

static void print_goals(const struct opts *o, const struct result *res)
{
	static const char *const tname[NTRAFFIC] = { "hit", "miss" };
	unsigned int g;
	int t;

	printf("== goals (ratios of ns per packet in this run) ==\n");
	printf("exact-address miss path within %.1fx of the hash map program: cfilter/hash = %.2f: %s\n",
	       GOAL_EXACT_MISS, res->exact.hash[MISS],
	       met(res->exact.hash[MISS] <= GOAL_EXACT_MISS));
	print_exact_goals(&res->exact);
	for (g = 0; g < o->nmore; g++)
		print_exact_goals(&res->more[g]);
	for (t = 0; t < NTRAFFIC; t++)
		printf("timed entries, %s traffic: within %.1fx of permanent ones: timed/permanent = %.2f: %s\n",
		       tname[t], GOAL_TIMED, res->timed_ratio[t],
		       met(res->timed_ratio[t] <= GOAL_TIMED));
	for (t = 0; t < NTRAFFIC; t++)
		printf("drop log, %s traffic: a reader at 100 events/s per CPU within %.1fx of none: %.2f: %s; every drop an event: %.2f\n",
		       tname[t], GOAL_LOG, res->log_ratio[t],
		       met(res->log_ratio[t] <= GOAL_LOG),
		       res->log_each_ratio[t]);
	for (g = 0; g < o->ngeo; g++) {
		const struct geo_result *gr = &res->geo[g];

		for (t = 0; t < NTRAFFIC; t++) {
			if (gr->skipped) {
				printf("%s, %s traffic: cfilter faster than the LPM trie: NOT MEASURED (%s)\n",
				       gr->title, tname[t], gr->skipped);
				continue;
			}
			printf("%s, %s traffic: at most %.1fx the LPM trie: cfilter/lpm = %.2f (the parser alone %.2f, cfilter with the set empty %.2f, the floor %.2f): %s\n",
			       gr->title, tname[t], GOAL_GEO_LPM, gr->ratio[t],
			       gr->parse[t], gr->empty[t], gr->floor[t],
			       met(gr->ratio[t] <= GOAL_GEO_LPM));
		}
		if (!gr->skipped)
			printf("%s, kernel mem at most the LPM trie's: cfilter %.2f M, lpm %.2f M: %s\n",
			       gr->title, gr->mem / 1048576.0,
			       gr->lpm_mem / 1048576.0,
			       met(gr->mem <= gr->lpm_mem));
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

/* -e's FAMILY:KEYS, as 4:1000000 or 6:100000. */
static struct exact_opt parse_exact(const char *s)
{
	struct exact_opt e;

	if ((s[0] != '4' && s[0] != '6') || s[1] != ':') {
		fprintf(stderr, "xdp_bench: -e '%s': want 4:KEYS or 6:KEYS\n", s);
		exit(2);
	}
	e.alen = s[0] == '4' ? 4 : 16;
	e.keys = parse_num("-e", s + 2, 1, 1 << 24);
	return e;
}

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: xdp_bench [-n PACKETS] [-p PASSES] [-P PLACEMENTS] [-k KEYS] [-e 4|6:KEYS]...\n"
		"                 [-s SEED]\n"
		"                 [-g RANGES [-l LABEL] [-m RANGES [-M LABEL]]]... [-S | -C] [-I]\n"
		"  -n  distinct frames per traffic (default 32768)\n"
		"  -p  passes; the median is reported (default 3)\n"
		"  -P  exact and geo workloads: measured with the module's tables and the maps\n"
		"      (hash, Bloom; LPM trie) made anew this many times; each the median\n"
		"      (default 1)\n"
		"  -k  IPv4 addresses of the exact workload (default 100000)\n"
		"  -e  another exact workload, of KEYS IPv4 (4:) or IPv6 (6:) addresses,\n"
		"      against the same maps; up to %d\n"
		"  -s  seed of the keys and packets (default 1)\n"
		"  -g  file of LOW-HIGH IPv4 or IPv6 ranges (scripts/geoip/geoip-ranges.sh): a geo\n"
		"      workload; up to %d\n"
		"  -l  what the ranges of the -g before are, for the table\n"
		"  -m  ranges the -g before's miss traffic comes from, as its hit\n"
		"      traffic comes from its own (default: uniform over the family)\n"
		"  -M  what the ranges of the -m before are\n"
		"  -S  the first geo workload alone, as one line of a table of module\n"
		"      parameters (needs -g)\n"
		"  -C  the exact workload alone, cfilter.ko loaded in compact mode, against\n"
		"      the hash map and the Bloom filter: one line of a table of module\n"
		"      parameters, then its goal's line\n"
		"  -I  run on CPU 0 and mark each series for the QEMU plugin\n"
		"      bench/qemu/insns.so, which counts the guest's instructions\n"
		"      (scripts/bench/bench-xdp-insns.sh)\n", EXACT_MAX, GEO_MAX);
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

static void print_header(const struct opts *o, __u32 hbits)
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
	if (o->placements > 1)
		printf("exact and geo workloads: measured %u times, the module's set and the maps (hash, Bloom;\n"
		       "LPM trie) made anew each time (where tables land moves a row here); each row the median\n",
		       o->placements);
	printf("kernel mem: growth of Slab + VmallocUsed + Percpu (/proc/meminfo, empty slabs shrunk) across\n"
	       "loading the keys into the module (plus its own count of the type's tables before, made empty\n"
	       "at load), filling the LPM trie, or creating a preallocated map (hash, Bloom);\n"
	       "own count: the module's (TYPE_INFO memory_bytes, its tables) or the map's memlock (on 6.1 an\n"
	       "estimate, key and value bytes times entries, not what the map allocates);\n"
	       "cfilter's rows add its program's prefilter map to both (%.0f KiB kernel mem: bits per /16,\n"
	       "the blocks of longer prefixes, and %u hashed bits, as cfctl attach sizes them for %u addresses)\n",
	       prefilter_mem / 1024.0, hbits, o->keys);
	printf("TCG models no cache, but its software TLB charges for pages: a load from a page not read of\n"
	       "late pays a page-table walk, whether real hardware would find the line in L1 or in DRAM (the\n"
	       "page control, under the exact table, measures it). Time here grows with the instructions run\n"
	       "and with how many distinct pages a program reads across packets, but is not made of them alone:\n"
	       "`make bench-xdp-insns` counts each program's instructions, branches and memory accesses per\n"
	       "packet, and two rows level in all three can read a third apart here (compact hits against the\n"
	       "Bloom program). The ratios rank paths as this emulator prices them, and move by up to 0.2\n"
	       "between runs of unchanged code; they cannot rank designs that trade instructions for memory\n"
	       "reads on real hardware. For those, `make bench` times the miss path natively\n"
	       "(bench/results/miss-path.txt).\n\n");
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

/*
 * Loads cfilter's program, with counters and a drop log of its own (the
 * object pins those maps by name); with @prefilter, its prefilter map
 * handed to the module, and its mirror if @mirror (its entries) is
 * not 0. The map has @hbits hashed bits.
 */
static struct cfilter_bpf *load_cfilter(int dev, bool prefilter, __u32 hbits,
					__u64 mirror)
{
	struct cfilter_bpf *cf = cfilter_bpf__open();
	int mirror_err;

	if (!cf)
		die("opening cfilter's XDP program: %m");
	errno = -cf_prefilter_size(cf, hbits);
	if (!errno)
		errno = -cf_mirror_size(cf, prefilter ? mirror : 0);
	if (!errno)
		errno = -bpf_map__set_pin_path(cf->maps.cfilter_stats, NULL);
	/* and a drop log of its own, which log.c switches on */
	if (!errno)
		errno = -bpf_map__set_pin_path(cf->maps.cfilter_log_ctl, NULL);
	if (!errno)
		errno = -bpf_map__set_pin_path(cf->maps.cfilter_log_cpu, NULL);
	if (!errno)
		errno = -bpf_map__set_pin_path(cf->maps.cfilter_log_rb, NULL);
	if (errno || cfilter_bpf__load(cf))
		die("loading cfilter's XDP program: %m (the kfunc needs cfilter.ko with BTF)");
	if (!prefilter)
		return cf;
	errno = -cf_hand_over(cf, dev, &mirror_err);
	if (errno)
		die("handing the prefilter map to the module: %m");
	errno = -mirror_err;
	if (mirror && mirror_err)
		die("handing the mirror to the module: %m");
	return cf;
}

/*
 * An -e workload through a program of its own, whose prefilter's hashed
 * bits are sized as cfctl attach sizes them for its keys.
 */
static void bench_more(const struct opts *o, const struct exact_opt *e,
		       int dev, const struct cfilter_info *info,
		       struct exact_result *res)
{
	struct cfilter_bpf *cf = load_cfilter(dev, true,
					      cf_prefilter_bits(info, e->keys),
					      cf_mirror_entries(info));
	long long mem = prealloc_map_memory(BPF_MAP_TYPE_ARRAY, 4,
			bpf_map__value_size(cf->maps.cfilter_prefilter), 1);
	uint64_t rng = rng_state;

	bench_exact_more(o, e, dev, bpf_program__fd(cf->progs.cfilter_xdp),
			 mem, res);
	/* the workloads after it get the frames they got without it */
	rng_state = rng;
	cfilter_bpf__destroy(cf);
}

int main(int argc, char **argv)
{
	struct opts o = { .packets = 32768, .passes = 3, .keys = 100000,
			  .placements = 1, .seed = 1 };
	struct result res;
	struct cfilter_bpf *cf, *call;
	struct cfilter_info info;
	__u32 hbits;
	struct geo_opt *geo;
	unsigned int g;
	int c, dev;

	memset(&res, 0, sizeof(res));
	while ((c = getopt(argc, argv, "n:p:P:k:e:s:g:l:m:M:SCIh")) != -1) {
		switch (c) {
		case 'n':
			o.packets = parse_num("-n", optarg, 1, 1 << 22);
			break;
		case 'p':
			o.passes = parse_num("-p", optarg, 1, 99);
			break;
		case 'P':
			o.placements = parse_num("-P", optarg, 1, 9);
			break;
		case 'k':
			o.keys = parse_num("-k", optarg, 1, 1 << 24);
			break;
		case 'e':
			if (o.nmore == EXACT_MAX) {
				fprintf(stderr, "xdp_bench: at most %d -e\n",
					EXACT_MAX);
				exit(2);
			}
			o.more[o.nmore++] = parse_exact(optarg);
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
		case 'C':
			o.compact = true;
			break;
		case 'I':
			mark_series = true;
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
	if (mark_series) {
		cpu_set_t cpu0;

		/* the plugin's counts are of all CPUs: the others idle */
		CPU_ZERO(&cpu0);
		CPU_SET(0, &cpu0);
		if (sched_setaffinity(0, sizeof(cpu0), &cpu0))
			die("sched_setaffinity: %m");
	}
	if (o.sweep && !o.ngeo) {
		fprintf(stderr, "xdp_bench: -S needs -g RANGES\n");
		exit(2);
	}
	if (o.sweep && o.compact) {
		fprintf(stderr, "xdp_bench: -S and -C: one at a time\n");
		exit(2);
	}
	if ((o.sweep || o.compact) && o.nmore) {
		fprintf(stderr, "xdp_bench: -e runs with the whole table, not with -S or -C\n");
		exit(2);
	}
	if (!o.sweep && o.packets > o.keys) {
		fprintf(stderr, "xdp_bench: -n %u: the hit traffic needs that many distinct keys, and -k is %u\n",
			o.packets, o.keys);
		exit(2);
	}
	for (g = 0; g < o.nmore; g++) {
		if (o.more[g].keys >= o.packets)
			continue;
		fprintf(stderr, "xdp_bench: -n %u: the hit traffic needs that many distinct keys, and an -e has %u\n",
			o.packets, o.more[g].keys);
		exit(2);
	}
	rng_state = o.seed;
	libbpf_set_print(libbpf_print);

	dev = open(CFILTER_DEVICE, O_RDWR);
	if (dev < 0)
		die("%s: %m (is cfilter.ko loaded?)", CFILTER_DEVICE);
	/*
	 * As cfctl attaches it once the keys are loaded, and a copy whose
	 * prefilter the module lacks.
	 */
	module_info(dev, &info);
	hbits = cf_prefilter_bits(&info, o.keys);
	cf = load_cfilter(dev, true, hbits, cf_mirror_entries(&info));
	call = load_cfilter(dev, false, hbits, 0);
	prefilter_words = hbits / 64;
	prefilter_mem = prealloc_map_memory(BPF_MAP_TYPE_ARRAY, 4,
			bpf_map__value_size(cf->maps.cfilter_prefilter), 1);
	/* and in compact mode the mirror of the IPv4 source table */
	if (cf_mirror_entries(&info))
		prefilter_mem += prealloc_map_memory(BPF_MAP_TYPE_ARRAY, 4, 8,
						     cf_mirror_entries(&info));
	/* and in compact mode the set's record of its addresses (kmod/set.h) */
	if (info.mode == CFILTER_MODE_COMPACT)
		prefilter_mem += info.prefilter_bits / 8;

	if (o.compact) {
		bench_exact_compact(&o, dev,
				    bpf_program__fd(cf->progs.cfilter_xdp),
				    info.fp_bits);
	} else if (o.sweep) {
		bench_geo(&o, &o.geo[0], dev,
			  bpf_program__fd(cf->progs.cfilter_xdp),
			  bpf_program__fd(call->progs.cfilter_xdp), &res.geo[0]);
	} else {
		print_header(&o, hbits);
		bench_exact(&o, dev, cf,
			    bpf_program__fd(call->progs.cfilter_xdp), &res);
		for (g = 0; g < o.nmore; g++)
			bench_more(&o, &o.more[g], dev, &info, &res.more[g]);
		for (g = 0; g < o.ngeo; g++)
			bench_geo(&o, &o.geo[g], dev,
				  bpf_program__fd(cf->progs.cfilter_xdp),
				  bpf_program__fd(call->progs.cfilter_xdp),
				  &res.geo[g]);
		print_goals(&o, &res);
	}

	cfilter_bpf__destroy(call);
	cfilter_bpf__destroy(cf);
	close(dev);
	return 0;
}
