/* SPDX-License-Identifier: GPL-2.0 */
/* What xdp_bench's files share: options, workloads, rows, results. */
#ifndef CFILTER_XDP_BENCH_H
#define CFILTER_XDP_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>
#include <linux/cfilter.h>

/* Ethernet's minimum, 42 bytes of IPv4/UDP headers padded; IPv6/UDP: 62 */
#define FRAME4_LEN	60
#define FRAME6_LEN	62
#define PARSE_ONLY	"parse only (no lookup)"
#define GEO_MAX		8
#define EXACT_MAX	4

typedef unsigned __int128 u128;

/* One geo workload: a file of ranges and what they are. */
struct geo_opt {
	const char	*file;
	const char	*label;
	const char	*misses;	/* ranges the miss traffic comes from */
	const char	*miss_label;	/* what they are */
};

/* One more exact workload (-e): random addresses of a family. */
struct exact_opt {
	unsigned int	alen;		/* 4 or 16 */
	unsigned int	keys;
};

struct opts {
	unsigned int	packets;
	unsigned int	passes;
	unsigned int	keys;		/* of the first exact workload, IPv4 */
	unsigned int	placements;	/* exact, geo workloads: tables made anew */
	struct exact_opt more[EXACT_MAX];
	unsigned int	nmore;
	struct geo_opt	geo[GEO_MAX];
	unsigned int	ngeo;
	uint64_t	seed;
	bool		sweep;		/* the first geo only, one line */
	bool		compact;	/* the exact workload in compact mode */
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

/* What one geo workload's goals need. */
struct geo_result {
	char	title[128];
	double	ratio[NTRAFFIC];	/* cfilter / lpm */
	double	parse[NTRAFFIC];	/* the parser alone / lpm: a floor */
	double	empty[NTRAFFIC];	/* cfilter, the set empty / lpm: its least */
	double	floor[NTRAFFIC];	/* a program that returns / lpm */
	long long mem, lpm_mem;		/* kernel mem: cfilter's, the trie's */
	const char *skipped;		/* why, if not measured */
};

/* What one exact workload's goals need. */
struct exact_result {
	unsigned int	alen;
	unsigned int	keys;
	double	hash[NTRAFFIC];		/* cfilter / hash */
	double	miss_bloom;		/* cfilter / bloom, misses */
	long long mem;			/* kernel mem: cfilter's, bytes */
	long long hash_mem;		/* the hash map's */
};

struct result {
	struct exact_result exact;	/* the first exact workload */
	struct exact_result more[EXACT_MAX];
	double	timed_ratio[NTRAFFIC];	/* timed / permanent entries */
	double	log_ratio[NTRAFFIC];	/* a drop log reader / none */
	double	log_each_ratio[NTRAFFIC]; /* the same, every drop an event */
	struct geo_result geo[GEO_MAX];
};

/* The addresses of a geo workload's traffic, @alen bytes each. */
struct geo_traffic {
	uint8_t		*addr[NTRAFFIC];
};

extern uint64_t rng_state;
/* The kernel memory of cfilter's program's prefilter map, in its rows. */
extern long long prefilter_mem;
/* The hashed words of cfilter's prefilter map (a power of two). */
extern unsigned int prefilter_words;
/* ns per packet of a program that returns at once (exact workload). */
extern double floor_ns;

struct baseline_bpf;
struct cfilter_bpf;

/* util.c */
void die(const char *fmt, ...);
void *xcalloc(size_t n, size_t size);
uint64_t rnd(void);
void sort_u128(u128 *v, size_t n);
bool in_sorted(const u128 *v, size_t n, u128 x);
u128 rnd128(void);

/* module.c */
void clear_module(int dev);
int batch_add_held(int dev, struct cfilter_key *keys, size_t n,
		   const char *source, __u32 timeout);
int batch_add(int dev, struct cfilter_key *keys, size_t n);
void batch_add_or_die(int dev, struct cfilter_key *keys, size_t n);
void src_key(struct cfilter_key *k, const struct pfx *p,
	     unsigned int alen);
long long module_memory(int dev, unsigned int alen,
			struct cfilter_type_info *ti);
void module_info(int dev, struct cfilter_info *info);
bool module_compact(int dev);

/* traffic.c */
void build_frame(unsigned char *f, const uint8_t *saddr, unsigned int alen);
u128 rnd_unicast6(void);
u128 *random_addrs(size_t n, unsigned int alen);
unsigned char *frames_alloc(unsigned int n, unsigned int len);
void geo_traffic(struct workload *w, struct geo_traffic *t,
		 const struct range *r, size_t nr,
		 const struct range *miss, size_t nm, unsigned int alen);

/* memory.c */
long long kernel_memory(void);
long long prealloc_map_memory(enum bpf_map_type type, __u32 key_size,
			      __u32 value_size, __u32 n);

/* maps.c */
long long map_memory(int fd);
void fill_hash(int fd, const struct pfx *p, size_t n);
void fill_bloom(int fd, const struct pfx *p, size_t n);
void fill_lpm(int fd, const struct pfx *p, size_t n, unsigned int alen);
struct baseline_bpf *load_baseline(unsigned int alen, unsigned int hash,
				   unsigned int lpm, unsigned int bloom);

/* measure.c */
/* -I: mark each series for bench/qemu/insns.so (measure.c) */
extern bool mark_series;
double run_series(const struct workload *w, struct row *r,
		  enum traffic t);
double median(double *v, unsigned int n);
void measure(struct workload *w, unsigned int passes);
void measure_placed(struct workload *w, unsigned int passes,
		    unsigned int placements,
		    void (*place)(void *ctx), void *ctx);
void print_workload(const struct workload *w, const char *const *refs,
		    unsigned int nrefs);
struct row row(const char *name, int fd, bool may_fp);

/* exact.c */
void bench_exact(const struct opts *o, int dev, struct cfilter_bpf *cf,
		 int call_fd, struct result *res);
void bench_exact_more(const struct opts *o, const struct exact_opt *e,
		      int dev, int cfilter_fd, long long pf_mem,
		      struct exact_result *res);
void bench_exact_compact(const struct opts *o, int dev, int cfilter_fd,
			 unsigned int fp_bits);

/* log.c */
void bench_log(const struct opts *o, struct cfilter_bpf *cf,
	       struct workload *w, struct row *row, struct result *res);

/* ranges.c */
struct range *read_ranges(const char *file, unsigned int *alen,
			  size_t *count);
struct pfx *split_ranges(const struct range *r, size_t nr,
			 unsigned int alen, size_t *count);

/* geo.c */
void bench_geo(const struct opts *o, const struct geo_opt *g, int dev,
	       int cfilter_fd, int call_fd, struct geo_result *res);

#endif
