/* SPDX-License-Identifier: GPL-2.0 */
/* What the host bench's files share: sizes, subjects, metrics, the state. */
#ifndef CFILTER_BENCH_INT_H
#define CFILTER_BENCH_INT_H

#include <stdbool.h>
#include <time.h>

#include "cuckoo.h"
#include "cuckoo_copies.h"
#include "hashset.h"
#include "host.h"
#ifdef CFILTER_REF
#include "ref.h"
#endif

#ifndef REPS			/* -DREPS=3 for a quick look */
#define REPS		7
#endif
#define LOOKUPS		(1U << 20)	/* a power of two */
#define BATCH		16	/* keys per call of the batch readers */
#define PAIR_CHUNKS	16		/* turns of a versioned/unversioned pair */
#define FP_LOOKUPS	(1U << 24)
#define FP_SLOT_SHIFT	20
#define KEY_LEN		4
#define ABSENT_BASE	(1ULL << 31)
#define WINDOW_PCT	1
#define NLOADS		3
#define NSIZES		2

/* Goals (bench/README.md): the version protocol, memory. */
#define GOAL_NOV_RATIO	1.15
#define GOAL_MEM_RATIO	5.0
/* The tags' cost: exact+tags / exact lookup. */
#define GOAL_TAGS_RATIO	1.15
/* lookups while a writer works on the other CPU, against idle */
#define GOAL_WRITER_RATIO	1.2
/* the writer's keys, added and then taken out again, in turn */
#define WRITER_KEYS	(1U << 16)
#define WRITER_BASE	(3ULL << 30)
/* cfilter's lookups per second / the reference's, at 95% load. */
#define GOAL_REF_ABSENT		1.0
#define GOAL_REF_PRESENT	1.0	/* compact */
#define GOAL_REF_PRESENT_EXACT	0.7	/* exact reads its key array too */
#define GOAL_REF_CHAINED	1.0	/* latency at most the reference's */

/*
 * The structures under test. A _NOV subject is the version-free reader on
 * the table of the subject before it; S_EXACT_TWIN is a second exact table
 * built like S_EXACT's (same seed, same keys, same order) in other memory;
 * S_COMPACT_CODE reads S_COMPACT's table with the core's reader compiled a
 * second time (cuckoo_twin.c);
 * S_EXACT_TAGS is built like S_EXACT's too, but with values (tag_of()).
 * S_REF, with REF only, is the reference implementation (ref.h).
 */
enum subject {
	S_EXACT,
	S_EXACT_NOV,
	S_EXACT_TAGS,
	S_COMPACT,
	S_COMPACT_NOV,
	S_EXACT_TWIN,
	S_COMPACT_CODE,
	S_HASHSET,
#ifdef CFILTER_REF
	S_REF,
#endif
	NSUBJECTS,
};

/*
 * Pairs measured in alternating turns (paired_lookups()): the first
 * NFILTERS are each filter and its version-free reader on the same table;
 * then P_PLACEMENT, the exact table and its twin, the same reader;
 * P_CODE, compact fp16's table read by the core and by its copy, the same
 * code elsewhere; and P_TAGS, the tagged exact table and the plain one;
 * with REF, the reference against compact fp16 and against exact
 * (reference first, so that a ratio is cfilter's speed as a multiple of
 * the reference's).
 */
#define NFILTERS	2
#define P_PLACEMENT	NFILTERS
#define P_CODE		(NFILTERS + 1)
#define P_TAGS		(NFILTERS + 2)
#ifdef CFILTER_REF
#define P_REF_COMPACT	(NFILTERS + 3)
#define P_REF_EXACT	(NFILTERS + 4)
#define NPAIRS		(NFILTERS + 5)
#else
#define NPAIRS		(NFILTERS + 3)
#endif

/*
 * Lookups: independent (overlapping in the CPU), chained (see lookups()),
 * or independent through the batch readers, BATCH keys per call.
 */
enum metric {
	M_PRESENT,
	M_ABSENT,
	M_PRESENT_CHAINED,
	M_ABSENT_CHAINED,
	M_PRESENT_BATCH,
	M_ABSENT_BATCH,
	M_INSERT,
	M_BYTES,
	NMETRICS,
};

struct bench {
	struct cuckoo *c[NSUBJECTS];
	struct hashset *h;
#ifdef CFILTER_REF
	struct cf_ref *ref;
#endif
	u64 slots;
	u64 next;		/* keys[next] is the next key to insert */
	u64 stored[NSUBJECTS];	/* keys each subject stored */
#ifdef CFILTER_REF
	u32 *chase;		/* chase.c's array, as large as exact's keys */
#endif
};

/*
 * After each chained lookup: wait until it has completed, so that no
 * prediction of its answer lets the next one start early (see the header).
 */
#if defined(__x86_64__) || defined(__i386__)
#define CHAIN_BARRIER()	__builtin_ia32_lfence()
#define CHAIN_HONEST	1
#else
#define CHAIN_BARRIER()	__asm__ __volatile__("" ::: "memory")
#define CHAIN_HONEST	0
#endif

/*
 * Independent lookups overlap in the CPU, several cache misses in flight:
 * the throughput of a tight loop. In chained ones, the index of each key
 * depends on the previous answer and the barrier waits for that answer's
 * lookup, so each lookup waits for the one before: its latency, as when a
 * CPU handles one packet after another. Each expansion has a constant
 * @chained, so the independent loop carries no dependency through @n.
 */
#define LOOKUP_LOOP(fn, obj, chained, n)					\
	do {									\
		u32 i_;								\
										\
		for (i_ = lo; i_ < hi; i_++) {					\
			n += fn(obj, &probe[(chained) ?				\
					    (i_ + (u32)n) & (LOOKUPS - 1) : i_]);	\
			if (chained)						\
				CHAIN_BARRIER();				\
		}								\
	} while (0)

struct bench_size {
	const char *name;
	unsigned int slot_shift;
};

extern const unsigned int load_pct[NLOADS];
extern const struct bench_size sizes[NSIZES];
extern const enum subject pairs[NPAIRS][2];
extern const char *const subject_names[NSUBJECTS];

extern double samples[NSIZES][NLOADS][NSUBJECTS][NMETRICS][REPS];
extern double pair_ratio[NSIZES][NLOADS][NPAIRS][NMETRICS][REPS];
extern u32 *keys;
extern u32 *probe;
extern u8 *stored;
extern u32 key_salt;
extern unsigned int rebuilds[NSUBJECTS];
extern u64 rng_state;

struct hs_goals {
	double speed;		/* worst hash set / exact absent ns, 16M */
	double mem;		/* worst hash set / exact B/key at 95% load */
	double mem_50;		/* ... at 50% load */
};

#ifdef CFILTER_REF
struct ref_goals {
	/*
	 * worst cfilter / reference lookups per second at 95% load, [0]
	 * compact, [1] exact; independent ones by the batch readers, and by
	 * the single ones (_single)
	 */
	double absent[2], present[2], chained[2][2];
	double absent_single[2], present_single[2];
	/*
	 * exact present chained, ns at 95% load per size: its latency, and
	 * compact fp16's (the same reader but for the key it reads)
	 */
	double key_latency[NSIZES][2];
};

/* chase.c: one sample per repetition at the 95% load point (ns) */
extern double key_read[NSIZES][REPS];
extern double floor_read[NSIZES][REPS];
u32 *chase_create(u64 bytes);
void chase_destroy(u32 *arr);
double key_read_ns(const u32 *arr, u64 bytes);
double floor_read_ns(const u32 *arr, u64 bytes);
#endif

/* stats.c */
void die(const char *what);
double clock_ns(clockid_t clock);
double now_ns(void);
u64 rng(void);
u32 key_at(u64 i);
u64 slots_of(unsigned int size);
u64 keys_at_load(unsigned int size, unsigned int pct);
double median(const double *v);
double med(unsigned int size, unsigned int l, enum subject s,
	   enum metric m);
double med_ratio(unsigned int size, unsigned int l, unsigned int p,
		 enum metric m);

/* subject.c */
bool is_nov(enum subject s);
bool is_exact(enum subject s);
bool is_reader(enum subject s);
bool owns_filter(enum subject s);
bool is_ref(enum subject s);
bool owns_cuckoo(enum subject s);
struct cuckoo *filter_create(enum subject s, u64 slots, u32 fp_bits,
			     u64 seed);
u64 memory_of(const struct bench *b, enum subject s);
u32 tag_of(u32 key);
unsigned int stored_or_die(enum subject s, int err);
void readers_follow(struct bench *b);
bool subject_full(struct bench *b, enum subject s, int err, u64 upto);
void fill(struct bench *b, enum subject s, u64 from, u64 to);
double insert_window(struct bench *b, enum subject s, u64 from,
		     u64 to, bool undo);

/* lookup.c */
void check_hits(enum subject s, bool present, u64 hits);
double lookups(const struct bench *b, enum subject s, enum metric m,
	       u64 *hits);
void paired_lookups(const struct bench *b, enum subject v,
		    enum subject n, enum metric m, double ns[2]);
void draw_absent(void);
void run_size(unsigned int size);

/* print.c */
const char *verdict(bool met);
void print_header(void);
void print_figures(unsigned int size, unsigned int l, enum subject v,
		   bool batch);
void print_filters(void);
void print_versions(double worst[2]);
void print_controls(void);
void code_control_chained(unsigned int l, double *lo, double *hi);
void print_tags(double worst[2]);
void print_hashset(struct hs_goals *g);

#ifdef CFILTER_REF
/* ref_print.c */
void print_ref(struct ref_goals *g);
void print_ref_goals(const struct ref_goals *g);
#endif

/* writer.c */
double measure_writer(double *ratio_other);

#endif
