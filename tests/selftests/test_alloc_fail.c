// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures: each request that changes the filter is made again
 * and again with its N-th fault forced through fail-nth (N = 1, 2, ...),
 * until a call passes with no fault left to force. The faults are those
 * of failslab, fail_page_alloc and fail_usercopy: a kmalloc, a page or a
 * copy from or to the caller. A call that fails must fail with ENOMEM or
 * EFAULT (or an errno its request documents), and leave the filter exactly
 * as it was: every holding listed and compared with the test's model. A
 * call that passes (a fault the kernel shrugged off) must have done all
 * of its work. What leaked is kmemleak's to find at unload (make
 * check-debug).
 *
 * Needs a kernel with CONFIG_FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC and
 * FAULT_INJECTION_DEBUG_FS (the debug kernel of make check-debug); skips
 * elsewhere. Reloads the module (exact mode with small tables, so that
 * adds grow them; compact mode for DUMP and RESTORE).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/cfilter.h>

#include "kselftest_harness.h"
#include "harness_timeout.h"
#include "helpers.h"
#include "cfilter.skel.h"
#include "xdp_stats.h"

#define DEBUGFS		"/sys/kernel/debug"
/* Far more faults than any call here meets: a call still failing is stuck. */
#define MAX_NTH		20000
#define MAX_ENTRIES	2048
#define TIMEOUT		3600
#define LOAD_KEYS	300
/* What BATCH's done holds until the module writes the struct back. */
#define DONE_UNSET	0xffffffffU

/* ---- the fault attributes ---------------------------------------------- */

/*
 * By default failslab and fail_page_alloc leave alone the allocations that
 * may sleep (all of the module's), and fail_page_alloc those of one page
 * and highmem (vmalloc's); each failure prints a stack trace.
 */
static const struct fault_knob {
	const char *file;
	const char *value;
} knobs[] = {
	{ "failslab/ignore-gfp-wait", "N" },
	{ "failslab/verbose", "0" },
	{ "fail_page_alloc/ignore-gfp-wait", "N" },
	{ "fail_page_alloc/ignore-gfp-highmem", "N" },
	{ "fail_page_alloc/min-order", "0" },
	{ "fail_page_alloc/verbose", "0" },
	{ "fail_usercopy/verbose", "0" },
};

#define NKNOBS	(sizeof(knobs) / sizeof(knobs[0]))

static int write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, value, strlen(value)) != (ssize_t)strlen(value))
		err = errno;
	close(fd);
	return err;
}

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int knob(const char *file, const char *value)
{
	char path[128];

	snprintf(path, sizeof(path), DEBUGFS "/%s", file);
	return write_file(path, value);
}

/* /proc/self/task/<tid>/fail-nth: the file of this thread, not the leader. */
static int open_fail_nth(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth",
		 (long)syscall(SYS_gettid));
	return open(path, O_RDWR);
}

/*
 * Whether the fault armed before the last call was forced. The file shows
 * the faults still to pass; reading and writing it are user copies, which
 * count down too, so a read that itself fails (EFAULT) means there was one
 * left: not forced. Writing 0 then disarms whatever remains.
 */
static bool nth_forced(int nth)
{
	char buf[16];
	bool forced;

	forced = pread(nth, buf, sizeof(buf) - 1, 0) > 0 && buf[0] == '0';
	if (pwrite(nth, "0", 1, 0) != 1 && errno != EFAULT)
		abort();
	return forced;
}

static bool nth_arm(int nth, unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	return pwrite(nth, buf, len, 0) == len;
}

/* ---- the model: holdings as LIST shows them ------------------------------ */

/* A holding: LIST's entry, the timeout reduced to timed or not. */
struct model {
	struct cfilter_entry e[MAX_ENTRIES];
	int n;
};

/*
 * A holding as the model has it: timed or not, and of no age (seconds go
 * by between listings; test_sources checks ages).
 */
static void hold_norm(struct cfilter_entry *e)
{
	e->timeout = !!e->timeout;
	e->age = 0;
}

static int hold_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct cfilter_entry));
}

static void model_sort(struct model *m)
{
	qsort(m->e, m->n, sizeof(m->e[0]), hold_cmp);
}

static struct cfilter_entry holding(struct cfilter_key key, const char *src,
				    bool timed)
{
	struct cfilter_entry e;

	memset(&e, 0, sizeof(e));
	e.key = key;
	e.timeout = timed;
	strncpy(e.source, *src ? src : "default", sizeof(e.source) - 1);
	return e;
}

static int model_find(const struct model *m, const struct cfilter_entry *e,
		      bool any_time)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (!memcmp(&m->e[i].key, &e->key, sizeof(e->key)) &&
		    !strcmp(m->e[i].source, e->source) &&
		    (any_time || m->e[i].timeout == e->timeout))
			return i;
	return -1;
}

/* Adds or retimes the holding, as ADD does. */
static void model_add(struct model *m, struct cfilter_entry e)
{
	int i = model_find(m, &e, true);

	if (i >= 0)
		m->e[i].timeout = e.timeout;
	else if (m->n < MAX_ENTRIES)
		m->e[m->n++] = e;
}

static void model_del(struct model *m, const struct cfilter_entry *e)
{
	int i = model_find(m, e, true);

	if (i >= 0)
		m->e[i] = m->e[--m->n];
}

/* Drops every holding of @src (FLUSH, or a replaced source). */
static void model_flush(struct model *m, const char *src)
{
	int i;

	for (i = 0; i < m->n; )
		if (!strcmp(m->e[i].source, src))
			m->e[i] = m->e[--m->n];
		else
			i++;
}

/* Distinct keys: what INFO counts. */
static long long model_keys(struct model *m)
{
	long long n = 0;
	int i, j;

	for (i = 0; i < m->n; i++) {
		for (j = 0; j < i; j++)
			if (!memcmp(&m->e[i].key, &m->e[j].key, sizeof(m->e[i].key)))
				break;
		n += j == i;
	}
	return n;
}

/* Every holding of the live set, whatever the source, sorted; 0 or errno. */
static int list_live(int fd, struct model *out)
{
	struct cfilter_list l;
	int err;

	do {
		memset(&l, 0, sizeof(l));
		l.flags = CFILTER_F_ALL_SOURCES;
		out->n = 0;
		do {
			l.entries = (uintptr_t)(out->e + out->n);
			l.max = MAX_ENTRIES - out->n;
			err = cf_ioctl(fd, CFILTER_IOC_LIST, &l);
			out->n += err ? 0 : l.count;
		} while (!err && l.count && out->n < MAX_ENTRIES);
	} while (err == ESTALE);
	for (int i = 0; i < out->n; i++)
		hold_norm(&out->e[i]);
	model_sort(out);
	return err;
}

/* The live set is @m exactly: its holdings, and INFO's count of keys. */
static void expect_live(struct __test_metadata *_metadata, int fd,
			struct model *m, const char *when)
{
	static struct model got;
	int i;

	model_sort(m);
	ASSERT_EQ(0, list_live(fd, &got)) TH_LOG("%s: LIST failed", when);
	for (i = 0; i < got.n && i < m->n; i++)
		if (hold_cmp(&got.e[i], &m->e[i]))
			break;
	ASSERT_EQ(m->n, got.n) TH_LOG("%s: %d holdings listed, %d expected (first difference at %d)",
				    when, got.n, m->n, i);
	ASSERT_EQ(m->n, i) TH_LOG("%s: holding %d is %s's type %d, expected %s's type %d",
				when, i, got.e[i].source, got.e[i].key.type,
				m->e[i].source, m->e[i].key.type);
	ASSERT_EQ(model_keys(m), cf_count(fd)) TH_LOG("%s: INFO's count", when);
}

/* ---- requests -------------------------------------------------------------- */

static int req(int fd, unsigned long cmd, const struct cfilter_entry *e,
	       __u32 flags)
{
	struct cfilter_key_req r;

	memset(&r, 0, sizeof(r));
	r.key = e->key;
	r.flags = flags;
	r.timeout = cmd == CFILTER_IOC_ADD && e->timeout ? TIMEOUT : 0;
	if (strcmp(e->source, "default"))
		memcpy(r.source, e->source, sizeof(r.source));
	return cf_ioctl(fd, cmd, &r);
}

static int source_req(int fd, unsigned long cmd, const char *src)
{
	struct cfilter_source_req r;

	memset(&r, 0, sizeof(r));
	strncpy(r.source, src, sizeof(r.source) - 1);
	return cf_ioctl(fd, cmd, &r);
}

/* ---- the base state every call starts from ----------------------------- */

static struct cfilter_key flow4(unsigned int i)
{
	return flow_key(CFILTER_KEY_FLOW4, AF_INET, "192.0.2.1", "198.51.100.7",
			6, 1000 + i, 22);
}

/*
 * Holdings of every kind: addresses of both families, prefixes, a flow, an
 * allow key; permanent and timed; one source alone, two sources on one
 * key. 40 SRC4 addresses fill the small first table most of the way.
 */
static void base_model(struct model *m)
{
	unsigned int i;

	m->n = 0;
	for (i = 0; i < 40; i++)
		model_add(m, holding(nth_key4(i), i % 3 ? "" : "feed", i % 2));
	for (i = 0; i < 8; i++)
		model_add(m, holding(nth_key6(i), "jail", true));
	model_add(m, holding(nth_key4(1), "jail", false));
	model_add(m, holding(key_of(CFILTER_KEY_SRC4, "10.200.0.0/16"), "feed", false));
	model_add(m, holding(key_of(CFILTER_KEY_DST6, "2001:db8:77::/48"), "", true));
	model_add(m, holding(flow4(0), "", false));
	model_add(m, holding(key_of(CFILTER_KEY_ALLOW4, "10.0.0.5"), "", false));
}

/*
 * Compact mode keeps no sources or timeouts: addresses of both families,
 * one prefix, one destination.
 */
static void base_model_compact(struct model *m)
{
	unsigned int i;

	m->n = 0;
	for (i = 0; i < 100; i++)
		model_add(m, holding(nth_key4(i), "", false));
	for (i = 0; i < 20; i++)
		model_add(m, holding(nth_key6(i), "", false));
	model_add(m, holding(key_of(CFILTER_KEY_SRC4, "10.200.0.0/16"), "", false));
	model_add(m, holding(key_of(CFILTER_KEY_DST4, "203.0.113.9"), "", false));
}

/*
 * CLEAR, then the base state, one ADD per holding (no fault armed). A
 * compact filter may take a key for one it holds (EEXIST): it is not
 * compared with the model, but with itself (struct snap).
 */
static void reset(struct __test_metadata *_metadata, int fd, struct model *m,
		  bool compact)
{
	int i, err;

	ASSERT_EQ(0, cf_ioctl(fd, CFILTER_IOC_CLEAR, NULL));
	if (compact)
		base_model_compact(m);
	else
		base_model(m);
	for (i = 0; i < m->n; i++) {
		err = req(fd, CFILTER_IOC_ADD, &m->e[i], 0);
		ASSERT_TRUE(!err || (compact && err == EEXIST))
			TH_LOG("base holding %d: %s", i, strerror(err));
	}
	if (!compact)
		expect_live(_metadata, fd, m, "base state");
}

/*
 * What a compact filter is: its listed prefixes, its count, and the raw
 * tables of its addresses.
 */
static const __u8 snap_types[] = { CFILTER_KEY_SRC4, CFILTER_KEY_SRC6 };
#define NSNAP		(sizeof(snap_types) / sizeof(snap_types[0]))
#define TABLE_BYTES	(64 * 1024)

struct snap {
	struct model prefixes;
	long long count;
	struct cfilter_table t[NSNAP];
	__u8 data[NSNAP][TABLE_BYTES];
};

/* DUMP of @type into @data (TABLE_BYTES); 0 or errno. */
static int dump(int fd, __u8 type, struct cfilter_table *t, void *data)
{
	memset(t, 0, sizeof(*t));
	t->type = type;
	t->flags = CFILTER_TABLE_MIX32;
	t->data = (uintptr_t)data;
	t->size = TABLE_BYTES;
	return cf_ioctl(fd, CFILTER_IOC_DUMP, t);
}

static void snap_take(struct __test_metadata *_metadata, int fd, struct snap *s)
{
	unsigned int i;

	ASSERT_EQ(0, list_live(fd, &s->prefixes));
	s->count = cf_count(fd);
	for (i = 0; i < NSNAP; i++)
		ASSERT_EQ(0, dump(fd, snap_types[i], &s->t[i], s->data[i]));
}

static void expect_snap(struct __test_metadata *_metadata, int fd,
			const struct snap *want, const char *when)
{
	static struct snap got;
	unsigned int i;

	snap_take(_metadata, fd, &got);
	ASSERT_EQ(want->count, got.count) TH_LOG("%s: INFO's count", when);
	ASSERT_EQ(want->prefixes.n, got.prefixes.n) TH_LOG("%s: prefixes", when);
	ASSERT_EQ(0, memcmp(want->prefixes.e, got.prefixes.e,
			    got.prefixes.n * sizeof(got.prefixes.e[0])))
		TH_LOG("%s: prefixes", when);
	for (i = 0; i < NSNAP; i++) {
		ASSERT_EQ(want->t[i].size, got.t[i].size) TH_LOG("%s: table %u", when, i);
		ASSERT_EQ(want->t[i].count, got.t[i].count) TH_LOG("%s: table %u", when, i);
		ASSERT_EQ(0, memcmp(want->data[i], got.data[i], got.t[i].size))
			TH_LOG("%s: table %u's slots differ", when, i);
	}
}

/* ---- one request, every fault in turn ---------------------------------- */

struct ctx;

/*
 * One request under test. @prepare readies the base state further (no
 * fault armed); @call is the one call made with the N-th fault armed, and
 * returns its errno; @ok is its errno when it works (0, or EEXIST for a
 * retimed holding); @done turns the model into what a working call leaves
 * (in compact mode, checks the filter for it); after a failed call the
 * filter must be as before, unless @failed says what it may have done
 * (and checks it, in compact mode). @finish runs after that check, no fault
 * armed, and checks what follows (a COMMIT), given the call's errno.
 */
struct request {
	const char *name;
	void (*prepare)(struct __test_metadata *_metadata, struct ctx *c);
	int (*call)(struct ctx *c);
	int ok;
	void (*done)(struct __test_metadata *_metadata, struct ctx *c);
	void (*failed)(struct __test_metadata *_metadata, struct ctx *c);
	void (*finish)(struct __test_metadata *_metadata, struct ctx *c,
		       int err);
};

struct ctx {
	int fd;
	int nth;
	bool compact;
	struct model m;
	struct snap before;
	struct cfilter_key keys[LOAD_KEYS];
	__u32 timeouts[LOAD_KEYS];
	__s32 res[LOAD_KEYS];
	struct cfilter_batch batch;
	struct cfilter_entry listed[MAX_ENTRIES];
	struct cfilter_entry e;
	struct cfilter_bpf *skel;
	struct cfilter_table t;
	__u8 data[TABLE_BYTES];
	/* Calls made, faults forced, calls failed: for the log. */
	unsigned int calls, forced, failed;
};

/*
 * Makes @r's call with fault N = 1, 2, ... armed, each from the base
 * state, until a call works with no fault forced.
 */
static void every_fault(struct __test_metadata *_metadata, struct ctx *c,
			const struct request *r)
{
	unsigned int n;
	bool forced;
	int err;

	for (n = 1; n <= MAX_NTH; n++) {
		reset(_metadata, c->fd, &c->m, c->compact);
		if (r->prepare)
			r->prepare(_metadata, c);
		if (c->compact)
			snap_take(_metadata, c->fd, &c->before);
		ASSERT_TRUE(nth_arm(c->nth, n));
		err = r->call(c);
		forced = nth_forced(c->nth);
		c->calls++;
		c->forced += forced;
		if (err == r->ok) {
			if (r->done)
				r->done(_metadata, c);
		} else {
			c->failed++;
			ASSERT_TRUE(forced) TH_LOG("%s: failed with %s, no fault forced",
						   r->name, strerror(err));
			ASSERT_TRUE(err == ENOMEM || err == EFAULT)
				TH_LOG("%s, fault %u: %s", r->name, n, strerror(err));
			if (r->failed)
				r->failed(_metadata, c);
		}
		{
			char when[96];

			snprintf(when, sizeof(when), "%s, fault %u (%s)", r->name,
				 n, err == r->ok ? "worked" : strerror(err));
			if (!c->compact)
				expect_live(_metadata, c->fd, &c->m, when);
			else if (err != r->ok && !r->failed)
				expect_snap(_metadata, c->fd, &c->before, when);
		}
		if (r->finish)
			r->finish(_metadata, c, err);
		if (!forced) {
			ASSERT_EQ(r->ok, err);
			return;
		}
	}
	TH_LOG("%s: a fault still forced after %u calls", r->name, MAX_NTH);
	ASSERT_TRUE(false);
}

/* ---- the requests ---------------------------------------------------------- */

static int call_add(struct ctx *c)
{
	return req(c->fd, CFILTER_IOC_ADD, &c->e, 0);
}

static int call_del(struct ctx *c)
{
	return req(c->fd, CFILTER_IOC_DEL, &c->e, 0);
}

static void done_add(struct __test_metadata *_metadata, struct ctx *c)
{
	if (c->compact) {
		ASSERT_EQ(0, req(c->fd, CFILTER_IOC_TEST, &c->e, 0));
		ASSERT_EQ(c->before.count + 1, cf_count(c->fd));
		return;
	}
	model_add(&c->m, c->e);
}

static void done_del(struct __test_metadata *_metadata, struct ctx *c)
{
	model_del(&c->m, &c->e);
}

/* A new timed address of a source the base state lacks. */
static void prep_add_new_source(struct __test_metadata *_metadata, struct ctx *c)
{
	c->e = holding(nth_key4(1000), "newcomer", true);
}

/*
 * The SRC4 addresses past the base state up to the one whose add grows
 * the small table: found once by watching INFO's count of grows.
 */
static unsigned int grow_at;

static void find_grow(struct __test_metadata *_metadata, struct ctx *c)
{
	struct cfilter_info info;
	unsigned long long grows;
	unsigned int i;

	ASSERT_EQ(0, cf_info(c->fd, &info));
	grows = info.grows;
	for (i = 0; i < 4096 && !grow_at; i++) {
		c->e = holding(nth_key4(100 + i), "", false);
		ASSERT_EQ(0, call_add(c));
		ASSERT_EQ(0, cf_info(c->fd, &info));
		if (info.grows != grows)
			grow_at = i + 1;
	}
	ASSERT_NE(0U, grow_at) TH_LOG("4096 adds and the table never grew");
	reset(_metadata, c->fd, &c->m, c->compact);
}

static void prep_add_grows(struct __test_metadata *_metadata, struct ctx *c)
{
	unsigned int i;

	if (!grow_at)
		find_grow(_metadata, c);
	for (i = 0; i < grow_at; i++) {
		c->e = holding(nth_key4(100 + i), "", false);
		if (i + 1 == grow_at)
			break;
		ASSERT_EQ(0, call_add(c));
		done_add(_metadata, c);
	}
}

/* A second source's holding of a key the base state holds. */
static void prep_add_holding(struct __test_metadata *_metadata, struct ctx *c)
{
	c->e = holding(nth_key4(2), "jail", true);
}

/* An IPv6 prefix and a flow: other tables, prefix markers. */
static void prep_add_prefix6(struct __test_metadata *_metadata, struct ctx *c)
{
	c->e = holding(key_of(CFILTER_KEY_SRC6, "2001:db8:1200::/40"), "feed", false);
}

static void prep_add_flow(struct __test_metadata *_metadata, struct ctx *c)
{
	c->e = holding(flow4(9), "jail", true);
}

/* A permanent holding made timed: EEXIST, the timeout set anew. */
static void prep_retime(struct __test_metadata *_metadata, struct ctx *c)
{
	c->e = holding(nth_key4(2), "", true);
}

static void prep_del_holding(struct __test_metadata *_metadata, struct ctx *c)
{
	c->e = holding(nth_key4(1), "jail", false);
}

static void prep_del_prefix(struct __test_metadata *_metadata, struct ctx *c)
{
	c->e = holding(key_of(CFILTER_KEY_SRC4, "10.200.0.0/16"), "feed", false);
}

/*
 * BATCH ADD of LOAD_KEYS addresses (exact mode: timed, held by "feed"):
 * the table grows several times on the way.
 */
static void prep_load(struct __test_metadata *_metadata, struct ctx *c)
{
	struct cfilter_batch *b = &c->batch;
	unsigned int i;

	for (i = 0; i < LOAD_KEYS; i++) {
		c->keys[i] = nth_key4(5000 + i);
		c->timeouts[i] = c->compact ? 0 : TIMEOUT;
		c->res[i] = 0x55;
	}
	memset(b, 0, sizeof(*b));
	b->done = DONE_UNSET;
	b->op = CFILTER_BATCH_ADD;
	b->keys = (uintptr_t)c->keys;
	b->results = (uintptr_t)c->res;
	b->timeouts = (uintptr_t)c->timeouts;
	b->count = LOAD_KEYS;
	if (!c->compact)
		strcpy(b->source, "feed");
}

/*
 * A batch works key by key: a key whose own add ran out of memory says so
 * in its result and is not stored; the call still works.
 */
static int call_load(struct ctx *c)
{
	return cf_ioctl(c->fd, CFILTER_IOC_BATCH, &c->batch);
}

static void done_load(struct __test_metadata *_metadata, struct ctx *c)
{
	unsigned int i, stored = 0;

	for (i = 0; i < LOAD_KEYS; i++) {
		stored += !c->res[i];
		if (!c->res[i] && !c->compact)
			model_add(&c->m, holding(c->keys[i], "feed", true));
	}
	if (c->compact)
		ASSERT_EQ(c->before.count + stored, cf_count(c->fd));
}

/*
 * A batch that failed (a copy of its keys or results) has applied the keys
 * before the one it stopped at, and says how many in done; per-key results
 * tell which of those were not stored. When its struct could not be
 * written back at the end, done is still DONE_UNSET: the keys it applied
 * are then the first j of the array, whole, for some j.
 */
static void failed_load(struct __test_metadata *_metadata, struct ctx *c)
{
	__u32 i, done = c->batch.done, stored = 0;
	struct cfilter_entry e;

	if (done == DONE_UNSET) {
		if (c->compact) {
			done = cf_count(c->fd) - c->before.count;
			ASSERT_LE(done, (__u32)LOAD_KEYS);
		} else {
			for (done = 0; done < LOAD_KEYS; done++) {
				e = holding(c->keys[done], "feed", true);
				if (req(c->fd, CFILTER_IOC_TEST, &e, 0))
					break;
			}
		}
		for (i = 0; i < LOAD_KEYS; i++) {
			e = holding(c->keys[i], c->compact ? "" : "feed", true);
			ASSERT_EQ(i < done ? 0 : ENOENT,
				  req(c->fd, CFILTER_IOC_TEST, &e, 0))
				TH_LOG("BATCH failed without writing back done: key %u of %u applied",
				       i, done);
		}
		if (!c->compact)
			for (i = 0; i < done; i++)
				model_add(&c->m, holding(c->keys[i], "feed", true));
		return;
	}
	ASSERT_LE(done, (__u32)LOAD_KEYS);
	for (i = 0; i < done; i++) {
		if (c->res[i] == -ENOMEM || c->res[i] == -EEXIST)
			continue;
		stored++;
		if (!c->compact)
			model_add(&c->m, holding(c->keys[i], "feed", true));
	}
	if (c->compact)
		ASSERT_EQ(c->before.count + stored, cf_count(c->fd))
			TH_LOG("BATCH failed after %u keys", done);
}

static void finish_load(struct __test_metadata *_metadata, struct ctx *c,
			int err)
{
	unsigned int i, stored = 0;

	if (err)
		return;
	for (i = 0; i < LOAD_KEYS; i++) {
		ASSERT_TRUE(c->res[i] == 0 || c->res[i] == -ENOMEM ||
			    (c->compact && c->res[i] == -EEXIST))
			TH_LOG("key %u: result %d", i, c->res[i]);
		stored += !c->res[i];
	}
	ASSERT_LT(0U, stored);
}

static int call_flush(struct ctx *c)
{
	return source_req(c->fd, CFILTER_IOC_FLUSH, "feed");
}

static void done_flush(struct __test_metadata *_metadata, struct ctx *c)
{
	model_flush(&c->m, "feed");
}

static int call_list(struct ctx *c)
{
	struct cfilter_list l;

	memset(&l, 0, sizeof(l));
	l.flags = CFILTER_F_ALL_SOURCES;
	l.entries = (uintptr_t)c->listed;
	l.max = MAX_ENTRIES;
	return cf_ioctl(c->fd, CFILTER_IOC_LIST, &l);
}

/* STAGE: on success ABORT finds a staged set, on failure none. */
static int call_stage(struct ctx *c)
{
	return cf_ioctl(c->fd, CFILTER_IOC_STAGE, NULL);
}

static void finish_stage(struct __test_metadata *_metadata, struct ctx *c,
			 int err)
{
	ASSERT_EQ(err ? EINVAL : 0, cf_ioctl(c->fd, CFILTER_IOC_ABORT, NULL));
}

/* ADD into a staged set: after COMMIT the live set is what was staged. */
static void prep_staged(struct __test_metadata *_metadata, struct ctx *c)
{
	c->e = holding(nth_key4(7000), "feed", true);
	ASSERT_EQ(0, call_stage(c));
	ASSERT_EQ(0, req(c->fd, CFILTER_IOC_ADD, &c->m.e[0], CFILTER_F_STAGED));
}

static int call_add_staged(struct ctx *c)
{
	return req(c->fd, CFILTER_IOC_ADD, &c->e, CFILTER_F_STAGED);
}

static void finish_add_staged(struct __test_metadata *_metadata, struct ctx *c,
			      int err)
{
	struct model m = { .n = 0 };

	model_add(&m, c->m.e[0]);
	if (!err)
		model_add(&m, c->e);
	ASSERT_EQ(0, cf_ioctl(c->fd, CFILTER_IOC_COMMIT, NULL));
	expect_live(_metadata, c->fd, &m, "after COMMIT of the staged set");
}

/* COMMIT: the staged set, or the live one as it was and nothing staged. */
static int call_commit(struct ctx *c)
{
	return cf_ioctl(c->fd, CFILTER_IOC_COMMIT, NULL);
}

static void done_commit(struct __test_metadata *_metadata, struct ctx *c)
{
	struct cfilter_entry first = c->m.e[0];

	c->m.n = 0;
	model_add(&c->m, first);
}

static void finish_commit(struct __test_metadata *_metadata, struct ctx *c,
			  int err)
{
	ASSERT_EQ(EINVAL, cf_ioctl(c->fd, CFILTER_IOC_ABORT, NULL))
		TH_LOG("COMMIT (%s) left a staged set", strerror(err));
}

/* STAGE_SOURCE: on success, the copy without "feed" goes live at COMMIT. */
static int call_stage_source(struct ctx *c)
{
	return source_req(c->fd, CFILTER_IOC_STAGE_SOURCE, "feed");
}

static void finish_stage_source(struct __test_metadata *_metadata,
				struct ctx *c, int err)
{
	if (err) {
		ASSERT_EQ(EINVAL, cf_ioctl(c->fd, CFILTER_IOC_ABORT, NULL));
		return;
	}
	c->e = holding(nth_key4(8000), "feed", false);
	ASSERT_EQ(0, req(c->fd, CFILTER_IOC_ADD, &c->e, CFILTER_F_STAGED));
	ASSERT_EQ(0, cf_ioctl(c->fd, CFILTER_IOC_COMMIT, NULL));
	model_flush(&c->m, "feed");
	model_add(&c->m, c->e);
	expect_live(_metadata, c->fd, &c->m, "after COMMIT of the copy");
}

/*
 * A live ADD while a copy follows the live set: the copy must follow it
 * or fail the COMMIT with ESTALE; either way the ADD is kept.
 */
static void prep_follow(struct __test_metadata *_metadata, struct ctx *c)
{
	ASSERT_EQ(0, call_stage_source(c));
	c->e = holding(nth_key4(9000), "jail", true);
}

static void finish_follow(struct __test_metadata *_metadata, struct ctx *c,
			  int err)
{
	int commit = cf_ioctl(c->fd, CFILTER_IOC_COMMIT, NULL);

	ASSERT_TRUE(commit == 0 || commit == ESTALE) TH_LOG("COMMIT: %s",
							   strerror(commit));
	if (!commit)
		model_flush(&c->m, "feed");
	expect_live(_metadata, c->fd, &c->m,
		    commit ? "after a COMMIT that was stale" : "after COMMIT of the copy");
}

/* PREFILTER of the XDP object's map: kept and filled, or not kept. */
static void prep_prefilter(struct __test_metadata *_metadata, struct ctx *c)
{
	c->skel = xdp_load_private(false);
	ASSERT_NE(NULL, c->skel) TH_LOG("loading the XDP object: %s", strerror(errno));
}

static int call_prefilter(struct ctx *c)
{
	return xdp_hand_over(c->skel, c->fd);
}

static void finish_prefilter(struct __test_metadata *_metadata, struct ctx *c,
			     int err)
{
	int map = bpf_map__fd(c->skel->maps.cfilter_prefilter);
	struct cfilter_prefilter *pf =
		calloc(1, bpf_map__value_size(c->skel->maps.cfilter_prefilter));
	__u32 zero = 0;
	unsigned int i;
	bool any = false;

	ASSERT_NE(NULL, pf);
	/* A prefix in a new /16 after the call: a map the module keeps follows it. */
	c->e = holding(key_of(CFILTER_KEY_SRC4, "10.123.4.0/24"), "", false);
	ASSERT_EQ(0, call_add(c));
	ASSERT_EQ(0, bpf_map_lookup_elem(map, &zero, pf));
	for (i = 0; i < CFILTER_PREFILTER_WORDS; i++)
		any |= pf->bits[CFILTER_PREFILTER_SRC4][i] != 0;
	if (err) {
		EXPECT_EQ(0ULL, pf->ready);
		EXPECT_FALSE(any) TH_LOG("a map handed over in vain has bits");
	} else {
		EXPECT_EQ(CFILTER_PREFILTER_READY, pf->ready);
		EXPECT_EQ(1ULL, pf->bits[CFILTER_PREFILTER_SRC4][(10 << 8 | 123) / 64] >>
			  ((10 << 8 | 123) % 64) & 1);
	}
	free(pf);
	cfilter_bpf__destroy(c->skel);
	c->skel = NULL;
}

#define REQ(n, p, c, o, d, f) \
	{ .name = n, .prepare = p, .call = c, .ok = o, .done = d, .finish = f }
#define REQ_LOAD \
	{ .name = "BATCH ADD (load)", .prepare = prep_load, .call = call_load, \
	  .done = done_load, .failed = failed_load, .finish = finish_load }

static const struct request exact_requests[] = {
	REQ("ADD of a new source", prep_add_new_source, call_add, 0, done_add, NULL),
	REQ("ADD into a nearly full table", prep_add_grows, call_add, 0, done_add, NULL),
	REQ("ADD of a second holding", prep_add_holding, call_add, 0, done_add, NULL),
	REQ("ADD of an IPv6 prefix", prep_add_prefix6, call_add, 0, done_add, NULL),
	REQ("ADD of a flow", prep_add_flow, call_add, 0, done_add, NULL),
	REQ("ADD giving a timeout", prep_retime, call_add, EEXIST, done_add, NULL),
	REQ("DEL of one holding", prep_del_holding, call_del, 0, done_del, NULL),
	REQ("DEL of a prefix", prep_del_prefix, call_del, 0, done_del, NULL),
	REQ_LOAD,
	REQ("FLUSH", NULL, call_flush, 0, done_flush, NULL),
	REQ("LIST", NULL, call_list, 0, NULL, NULL),
	REQ("STAGE", NULL, call_stage, 0, NULL, finish_stage),
	REQ("ADD into a staged set", prep_staged, call_add_staged, 0, NULL,
	    finish_add_staged),
	REQ("COMMIT", prep_staged, call_commit, 0, done_commit, finish_commit),
	REQ("STAGE_SOURCE", NULL, call_stage_source, 0, NULL, finish_stage_source),
	REQ("ADD followed by a staged copy", prep_follow, call_add, 0, done_add,
	    finish_follow),
	REQ("PREFILTER", prep_prefilter, call_prefilter, 0, NULL, finish_prefilter),
};

/* Compact mode: the raw tables out (DUMP) and into a staged set (RESTORE). */
static int call_dump(struct ctx *c)
{
	return dump(c->fd, CFILTER_KEY_SRC4, &c->t, c->data);
}

static void done_dump(struct __test_metadata *_metadata, struct ctx *c)
{
	ASSERT_EQ(c->before.t[0].size, c->t.size);
	ASSERT_EQ(c->before.t[0].count, c->t.count);
	ASSERT_EQ(0, memcmp(c->before.data[0], c->data, c->t.size));
}

static int call_restore(struct ctx *c)
{
	return cf_ioctl(c->fd, CFILTER_IOC_RESTORE, &c->before.t[0]);
}

/* The staged set has the table restored, or none. */
static void finish_restore(struct __test_metadata *_metadata, struct ctx *c,
			   int err)
{
	long long staged = cf_type_count(c->fd, CFILTER_KEY_SRC4,
					 CFILTER_F_STAGED);

	if (err) {
		ASSERT_EQ(0, staged);
		ASSERT_EQ(0, cf_ioctl(c->fd, CFILTER_IOC_ABORT, NULL));
		return;
	}
	ASSERT_EQ((long long)c->before.t[0].count, staged);
	ASSERT_EQ(0, cf_ioctl(c->fd, CFILTER_IOC_COMMIT, NULL));
	ASSERT_EQ(0, call_dump(c));
	done_dump(_metadata, c);
}

static void prep_stage(struct __test_metadata *_metadata, struct ctx *c)
{
	ASSERT_EQ(0, call_stage(c));
}

/* A key the filter does not take for one it holds (no false positive). */
static void prep_add_compact(struct __test_metadata *_metadata, struct ctx *c)
{
	unsigned int i = 3000;

	do
		c->e = holding(nth_key4(i++), "", false);
	while (req(c->fd, CFILTER_IOC_TEST, &c->e, 0) != ENOENT);
}

static const struct request compact_requests[] = {
	REQ("ADD", prep_add_compact, call_add, 0, done_add, NULL),
	REQ_LOAD,
	REQ("LIST", NULL, call_list, 0, NULL, NULL),
	REQ("DUMP", NULL, call_dump, 0, done_dump, NULL),
	REQ("RESTORE", prep_stage, call_restore, 0, NULL, finish_restore),
	REQ("STAGE", NULL, call_stage, 0, NULL, finish_stage),
};

/* ---- fixtures ---------------------------------------------------------------- */

static bool fault_injection_present(void)
{
	int fd = open_fail_nth();

	if (fd < 0)
		return false;
	close(fd);
	return !access(DEBUGFS "/failslab/ignore-gfp-wait", W_OK) &&
	       !access(DEBUGFS "/fail_page_alloc/min-order", W_OK);
}

FIXTURE(faults) {
	struct ctx *c;
	char saved[NKNOBS][16];
	bool knobs_set;
};

FIXTURE_VARIANT(faults) {
	const char *params;
	const struct request *requests;
	unsigned int n;
};

/* Small tables, so that adds grow them. */
FIXTURE_VARIANT_ADD(faults, exact) {
	.params = "capacity=64",
	.requests = exact_requests,
	.n = sizeof(exact_requests) / sizeof(exact_requests[0]),
};

FIXTURE_VARIANT_ADD(faults, compact) {
	.params = "mode=compact capacity=1024",
	.requests = compact_requests,
	.n = sizeof(compact_requests) / sizeof(compact_requests[0]),
};

FIXTURE_SETUP(faults)
{
	char path[128];
	unsigned int i;

	self->c = NULL;
	self->knobs_set = false;
	if (!fault_injection_present())
		SKIP(return, "no fault injection in this kernel (fail-nth, failslab and fail_page_alloc in debugfs): make check-debug has it");
	/*
	 * Every page of this process in memory, now and later: a page fault
	 * inside an armed call would spend the fault on this process's
	 * memory, not on the module's.
	 */
	ASSERT_EQ(0, mlockall(MCL_CURRENT | MCL_FUTURE)) TH_LOG("mlockall: %s", strerror(errno));
	RELOAD_SETUP_UNLOAD();
	ASSERT_EQ(0, module_load(variant->params));
	for (i = 0; i < NKNOBS; i++) {
		snprintf(path, sizeof(path), DEBUGFS "/%s", knobs[i].file);
		ASSERT_EQ(0, read_file(path, self->saved[i], sizeof(self->saved[i])))
			TH_LOG("%s", path);
	}
	self->knobs_set = true;
	for (i = 0; i < NKNOBS; i++) {
		const char *file = knobs[i].file;

		ASSERT_EQ(0, knob(file, knobs[i].value)) TH_LOG("%s", file);
	}
	self->c = calloc(1, sizeof(*self->c));
	ASSERT_NE(NULL, self->c);
	self->c->compact = strstr(variant->params, "compact") != NULL;
	self->c->fd = open(CFILTER_DEVICE, O_RDWR);
	ASSERT_LE(0, self->c->fd);
	self->c->nth = open_fail_nth();
	ASSERT_LE(0, self->c->nth);
	libbpf_set_print(libbpf_print);
}

FIXTURE_TEARDOWN(faults)
{
	unsigned int i;

	if (self->knobs_set)
		for (i = 0; i < NKNOBS; i++)
			knob(knobs[i].file, self->saved[i]);
	knob("failslab/probability", "0");
	knob("failslab/task-filter", "N");
	if (self->c) {
		if (self->c->skel)
			cfilter_bpf__destroy(self->c->skel);
		close(self->c->nth);
		close(self->c->fd);
		free(self->c);
	}
	RELOAD_TEARDOWN_DEFAULTS();
}

TEST_F_TIMEOUT(faults, every_fault_of_every_request, 3000)
{
	struct ctx *c = self->c;
	unsigned int i;

	/* This harness runs the test after a setup that skipped. */
	if (_metadata->skip)
		return;
	for (i = 0; i < variant->n; i++) {
		every_fault(_metadata, c, &variant->requests[i]);
		TH_LOG("%s: %u calls, %u faults forced, %u calls failed",
		       variant->requests[i].name, c->calls, c->forced, c->failed);
		c->calls = c->forced = c->failed = 0;
	}
}

TEST_HARNESS_MAIN
