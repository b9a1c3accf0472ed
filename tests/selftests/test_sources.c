// SPDX-License-Identifier: GPL-2.0
/*
 * Sources and timeouts (include/uapi/linux/cfilter.h, "Sources"): entries
 * held by several named sources, DEL, TEST and FLUSH per source, SOURCES
 * and LIST per source, holdings that expire by themselves (every key kind,
 * refreshed, outlived by another source's, across the growth of the
 * holdings), a listing stepped one holding at a time across every kind of
 * write (none lost or listed twice), a listing that walks a table of other
 * holdings letting writers in on its way, STAGE_SOURCE's copy and its
 * COMMIT (live writes of the source being replaced give way to its new
 * holdings), EUSERS, INFO's timed count, privileges, and every bad
 * argument with its exact errno and no change. Needs cfilter.ko loaded
 * with default parameters; every test starts from an empty filter. The
 * compact mode test, the full filter's (failed adds leave no source) and
 * the drop counts' (through the XDP program: they last until the module
 * goes, and an emptied source keeps its own), reload the module. Timeouts are 1 to 3 s, waited for by polling; the
 * walks fill a table of 100,000 keys and more: a few minutes in all under
 * TCG.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <linux/bpf.h>
#include <linux/cfilter.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cfilter.skel.h"
#include "xdp_stats.h"
#include "kselftest_harness.h"
#include "harness_timeout.h"
#include "helpers.h"
#include "xdp_packets.h"

#define STAGED		CFILTER_F_STAGED
#define ALL		CFILTER_F_ALL_SOURCES
/* Polling interval of the tests that wait for an expiry. */
#define POLL_MS		100
/*
 * How late an expiry may be seen: the module has a second past the
 * deadline, and a TCG guest and the polling get one more.
 */
#define EXPIRY_SLACK_MS	2000
/* Room for the holdings of every test but the growth one. */
#define STATE_MAX	64

/* @name into a source field: NUL-padded, as requests must carry it. */
static void set_name(char field[CFILTER_SOURCE_LEN], const char *name)
{
	memset(field, 0, CFILTER_SOURCE_LEN);
	memcpy(field, name, strnlen(name, CFILTER_SOURCE_LEN));
}

static struct cfilter_key flow4(const char *saddr, const char *daddr,
				__u8 proto, __u16 sport, __u16 dport)
{
	return flow_key(CFILTER_KEY_FLOW4, AF_INET, saddr, daddr, proto, sport,
			dport);
}

/* A packet @saddr -> @daddr matched with MATCH_DST, and ports if @proto. */
static struct cfilter_pkt pkt_of(const char *saddr, const char *daddr,
				 __u8 proto, __u16 sport, __u16 dport)
{
	return match_pkt(strchr(saddr, ':') ? AF_INET6 : AF_INET, saddr, daddr,
			 CFILTER_PKT_MATCH_DST | (proto ? CFILTER_PKT_PORTS : 0),
			 proto, sport, dport);
}

/* A packet from @saddr to an address no test blocks. */
static struct cfilter_pkt from(const char *saddr)
{
	return pkt_of(saddr, strchr(saddr, ':') ? "2001:db8:ffff::1" :
			     "192.0.2.250", 0, 0, 0);
}

/* MATCH of @pkt into *@mr; 0 or the errno. */
static int match_of(int fd, struct cfilter_pkt pkt,
		    struct cfilter_match_req *mr)
{
	memset(mr, 0, sizeof(*mr));
	mr->pkt = pkt;
	return ioctl(fd, CFILTER_IOC_MATCH, mr) ? errno : 0;
}

/* The kind of MATCH's verdict for @pkt, or -errno. */
static int verdict_of(int fd, struct cfilter_pkt pkt)
{
	struct cfilter_match_req mr;
	int err = match_of(fd, pkt, &mr);

	return err ? -err : (int)CFILTER_VERDICT_KIND(mr.verdict);
}

/* ADD, DEL or TEST of @key by @source; 0 or the errno. */
static int hold(int fd, unsigned long cmd, const struct cfilter_key *key,
		const char *source, __u32 flags, __u32 timeout)
{
	struct cfilter_key_req req;

	memset(&req, 0, sizeof(req));
	req.key = *key;
	req.flags = flags;
	req.timeout = timeout;
	set_name(req.source, source);
	return cf_ioctl(fd, cmd, &req);
}

static int cf_add(int fd, const struct cfilter_key *key, const char *source,
		  __u32 timeout)
{
	return hold(fd, CFILTER_IOC_ADD, key, source, 0, timeout);
}

static int cf_del(int fd, const struct cfilter_key *key, const char *source)
{
	return hold(fd, CFILTER_IOC_DEL, key, source, 0, 0);
}

static int cf_test(int fd, const struct cfilter_key *key, const char *source)
{
	return hold(fd, CFILTER_IOC_TEST, key, source, 0, 0);
}

/* Is @key held by any source of the live set (or staged, @flags)? */
static int cf_held(int fd, const struct cfilter_key *key, __u32 flags)
{
	return hold(fd, CFILTER_IOC_TEST, key, "", ALL | flags, 0);
}

/* FLUSH or STAGE_SOURCE of @source; 0 or the errno. */
static int source_req(int fd, unsigned long cmd, const char *source,
		      __u32 flags)
{
	struct cfilter_source_req req;

	memset(&req, 0, sizeof(req));
	set_name(req.source, source);
	req.flags = flags;
	return cf_ioctl(fd, cmd, &req);
}

static int cf_flush(int fd, const char *source)
{
	return source_req(fd, CFILTER_IOC_FLUSH, source, 0);
}

static int cf_stage_source(int fd, const char *source)
{
	return source_req(fd, CFILTER_IOC_STAGE_SOURCE, source, 0);
}

static int cf_sources(int fd, __u32 flags, struct cfilter_sources *out)
{
	memset(out, 0, sizeof(*out));
	out->flags = flags;
	return cf_ioctl(fd, CFILTER_IOC_SOURCES, out);
}

/* Source @name's line in @s, or NULL. */
static const struct cfilter_source_info *
source_in(const struct cfilter_sources *s, const char *name)
{
	__u32 i;

	for (i = 0; i < s->count && i < CFILTER_SOURCES_MAX; i++)
		if (!strncmp(s->sources[i].name, name, CFILTER_SOURCE_LEN))
			return &s->sources[i];
	return NULL;
}

/* @b: BATCH @op of @n keys by @source, @timeouts NULL or @n of them. */
static void batch_req(struct cfilter_batch *b, __u32 op, const char *source,
		      __u32 flags, const struct cfilter_key *keys,
		      const __u32 *timeouts, __s32 *results, __u32 n)
{
	memset(b, 0, sizeof(*b));
	b->op = op;
	b->flags = flags;
	b->keys = (uintptr_t)keys;
	b->results = (uintptr_t)results;
	b->timeouts = (uintptr_t)timeouts;
	b->count = n;
	set_name(b->source, source);
}

static int cf_batch_by(int fd, __u32 op, const char *source, __u32 flags,
		       const struct cfilter_key *keys, const __u32 *timeouts,
		       __s32 *results, __u32 n, struct cfilter_batch *b)
{
	batch_req(b, op, source, flags, keys, timeouts, results, n);
	return cf_ioctl(fd, CFILTER_IOC_BATCH, b);
}

/* @l: the first LIST call for @source, with room for @max entries at @e. */
static void list_req(struct cfilter_list *l, struct cfilter_entry *e,
		     __u32 max, const char *source, __u32 flags)
{
	memset(l, 0, sizeof(*l));
	l->entries = (uintptr_t)e;
	l->max = max;
	l->flags = flags;
	set_name(l->source, source);
}

static long long timed_of(int fd)
{
	struct cfilter_info info;

	return cf_info(fd, &info) ? -1 : (long long)info.timed;
}

/* By key, then source: the order a listing is compared in. */
static int entry_cmp(const void *a, const void *b)
{
	const struct cfilter_entry *x = a, *y = b;
	int d = memcmp(&x->key, &y->key, sizeof(x->key));

	return d ? d : strncmp(x->source, y->source, CFILTER_SOURCE_LEN);
}

/*
 * Every holding of @source (NULL: of every source) into @out, sorted;
 * returns how many, -E2BIG if @room was not enough, or -errno. A listing
 * that goes stale starts over.
 */
static int list_holdings(int fd, const char *source, struct cfilter_entry *out,
			 unsigned int room)
{
	unsigned int n = 0, restarts = 0;
	struct cfilter_list l;
	int err;

	list_req(&l, out, room, source ? source : "", source ? 0 : ALL);
	for (;;) {
		if (n == room)
			return -E2BIG;
		l.entries = (uintptr_t)(out + n);
		l.max = room - n;
		err = cf_ioctl(fd, CFILTER_IOC_LIST, &l);
		if (err == ESTALE && restarts++ < 100) {
			n = 0;
			l.cursor = 0;
			l.gen = 0;
			continue;
		}
		if (err)
			return -err;
		if (!l.count)
			break;
		n += l.count;
	}
	qsort(out, n, sizeof(*out), entry_cmp);
	return n;
}

/* Is source field @name NUL-terminated, with only NULs after? */
static bool nul_padded(const char name[CFILTER_SOURCE_LEN])
{
	size_t i = strnlen(name, CFILTER_SOURCE_LEN);

	if (i == CFILTER_SOURCE_LEN)
		return false;
	while (i < CFILTER_SOURCE_LEN && !name[i])
		i++;
	return i == CFILTER_SOURCE_LEN;
}

/* The holding of @key by @source in @e (@n of them), or NULL. */
static const struct cfilter_entry *entry_in(const struct cfilter_entry *e,
					    int n, const struct cfilter_key *key,
					    const char *source)
{
	int i;

	for (i = 0; i < n; i++)
		if (!memcmp(&e[i].key, key, sizeof(*key)) &&
		    !strncmp(e[i].source, source, CFILTER_SOURCE_LEN))
			return &e[i];
	return NULL;
}

/* What a failed request must leave as it was. */
struct state {
	struct cfilter_info	info;
	struct cfilter_sources	sources;
	struct cfilter_entry	held[STATE_MAX];
	int			nheld;
};

static void get_state(struct __test_metadata *_metadata, int fd,
		      struct state *st)
{
	int i;

	memset(st, 0, sizeof(*st));
	ASSERT_EQ(0, cf_info(fd, &st->info));
	ASSERT_EQ(0, cf_sources(fd, 0, &st->sources));
	st->nheld = list_holdings(fd, NULL, st->held, STATE_MAX);
	ASSERT_LE(0, st->nheld);
	/* Seconds left tick on; whether a holding is timed must not change. */
	/* Timed or not, recorded or not: seconds go by between two states. */
	for (i = 0; i < st->nheld; i++) {
		st->held[i].timeout = !!st->held[i].timeout;
		st->held[i].age = st->held[i].age != CFILTER_AGE_UNKNOWN;
	}
}

static void expect_unchanged(struct __test_metadata *_metadata, int fd,
			     const struct state *before, const char *what)
{
	static struct state now;

	get_state(_metadata, fd, &now);
	EXPECT_EQ(before->info.count, now.info.count) TH_LOG("after %s", what);
	EXPECT_EQ(before->info.timed, now.info.timed) TH_LOG("after %s", what);
	EXPECT_EQ(before->info.prefixes, now.info.prefixes)
		TH_LOG("after %s", what);
	EXPECT_EQ(before->sources.count, now.sources.count)
		TH_LOG("after %s", what);
	EXPECT_EQ(0, memcmp(before->sources.sources, now.sources.sources,
			    sizeof(now.sources.sources)))
		TH_LOG("SOURCES changed after %s", what);
	EXPECT_EQ(before->nheld, now.nheld) TH_LOG("after %s", what);
	EXPECT_EQ(0, memcmp(before->held, now.held, sizeof(now.held)))
		TH_LOG("holdings changed after %s", what);
}

static long long now_ms(void)
{
	struct timespec ts;

	/* The clock the module's deadlines are in. */
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * Polls @pkt's verdict every POLL_MS until it is @after: returns the ms
 * from @t0 to then, or -1 once @limit_ms from @t0 have passed. Until then
 * it must stay @before.
 */
static long long wait_verdict(struct __test_metadata *_metadata, int fd,
			      struct cfilter_pkt pkt, int before, int after,
			      long long t0, long long limit_ms)
{
	long long ms;
	int v;

	for (;;) {
		v = verdict_of(fd, pkt);
		ms = now_ms() - t0;
		if (v == after)
			return ms;
		EXPECT_EQ(before, v) TH_LOG("verdict after %lld ms", ms);
		if (v != before || ms > limit_ms)
			return -1;
		sleep_ms(POLL_MS);
	}
}

/*
 * Expects @pkt's verdict to go from @before to @after when a holding added
 * at @t0 (taken before the ADD) for @timeout seconds expires: not before
 * the timeout, and at most EXPIRY_SLACK_MS after it.
 */
static void expect_expiry(struct __test_metadata *_metadata, int fd,
			  struct cfilter_pkt pkt, int before, int after,
			  long long t0, unsigned int timeout)
{
	long long ms = wait_verdict(_metadata, fd, pkt, before, after, t0,
				    timeout * 1000LL + EXPIRY_SLACK_MS);

	ASSERT_LE(0, ms) TH_LOG("verdict not %d %u s + %d ms after the ADD",
				after, timeout, EXPIRY_SLACK_MS);
	EXPECT_LE(timeout * 1000LL, ms)
		TH_LOG("a %u s holding expired after %lld ms", timeout, ms);
}

/*
 * Polls TEST of @key (any source; @flags: STAGED) until ENOENT: the ms
 * from @t0 to then, or -1 after @limit_ms.
 */
static long long wait_gone(int fd, const struct cfilter_key *key, __u32 flags,
			   long long t0, long long limit_ms)
{
	long long ms;

	for (;;) {
		ms = now_ms() - t0;
		if (cf_held(fd, key, flags) == ENOENT)
			return ms;
		if (ms > limit_ms)
			return -1;
		sleep_ms(POLL_MS);
	}
}

/*
 * An empty filter with "default" its only source. CLEAR empties every
 * source, but one that counted drops stays for its count (an earlier
 * test's, as test_why.sh leaves), taking an index and a line of SOURCES
 * these tests expect free: the module is loaded afresh then.
 */
FIXTURE(src) {
	int fd;
};

FIXTURE_SETUP(src)
{
	struct cfilter_sources s;
	int err;

	SETUP_OPEN_EMPTY(self->fd);
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	if (s.count == 1)
		return;
	close(self->fd);
	self->fd = -1;
	RELOAD_SETUP_UNLOAD();
	err = module_load("");
	ASSERT_EQ(0, err) TH_LOG("reloading %s: %s", module_file(),
				 strerror(err));
	SETUP_OPEN_EMPTY(self->fd);
}

FIXTURE_TEARDOWN(src)
{
	teardown_close_empty(self->fd);
}

TEST_F(src, two_sources_hold_an_address_until_both_delete_it)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_pkt p = from("192.0.2.1");

	ASSERT_EQ(0, cf_add(self->fd, &a, "fail2ban", 0));
	ASSERT_EQ(0, cf_add(self->fd, &a, "crowdsec", 0));
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, p));
	/* One entry in the tables, two holdings beside them. */
	EXPECT_EQ(1, cf_count(self->fd));
	ASSERT_EQ(0, cf_del(self->fd, &a, "fail2ban"));
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, p));
	ASSERT_EQ(0, cf_del(self->fd, &a, "crowdsec"));
	EXPECT_EQ(CFILTER_PASS, verdict_of(self->fd, p));
	EXPECT_EQ(0, cf_count(self->fd));
	EXPECT_EQ(ENOENT, cf_held(self->fd, &a, 0));
}

/*
 * A verdict names a source holding the entry that decided (of several,
 * the one of lowest index: here the one named first) and marks a
 * destination key's; MATCH gives that source's name.
 */
TEST_F(src, verdicts_name_the_source_of_the_entry_that_decided)
{
	struct cfilter_key addr = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_key net = key_of(CFILTER_KEY_SRC4, "198.51.100.0/24");
	struct cfilter_key dst = key_of(CFILTER_KEY_DST4, "203.0.113.0/24");
	struct cfilter_key ok = key_of(CFILTER_KEY_ALLOW4, "198.51.100.7");
	struct cfilter_key mine = key_of(CFILTER_KEY_SRC4, "192.0.2.9");
	struct cfilter_key fl = flow4("192.0.2.5", "192.0.2.200", IPPROTO_UDP,
				      53, 53);
	struct cfilter_match_req mr;

	ASSERT_EQ(0, cf_add(self->fd, &addr, "feed", 0));
	ASSERT_EQ(0, cf_add(self->fd, &net, "jail", 0));
	ASSERT_EQ(0, cf_add(self->fd, &dst, "ops", 0));
	ASSERT_EQ(0, cf_add(self->fd, &ok, "admin", 0));
	ASSERT_EQ(0, cf_add(self->fd, &fl, "jail", 0));
	ASSERT_EQ(0, cf_add(self->fd, &mine, "default", 0));

	ASSERT_EQ(0, match_of(self->fd, from("192.0.2.1"), &mr));
	EXPECT_EQ((__u32)CFILTER_DROP_SRC, CFILTER_VERDICT_KIND(mr.verdict));
	EXPECT_STREQ("feed", mr.source);
	EXPECT_EQ(0U, mr.verdict & CFILTER_VERDICT_DST);
	ASSERT_EQ(0, match_of(self->fd, from("198.51.100.9"), &mr));
	EXPECT_EQ((__u32)CFILTER_DROP_PREFIX, CFILTER_VERDICT_KIND(mr.verdict));
	EXPECT_STREQ("jail", mr.source);
	EXPECT_EQ(0U, mr.verdict & CFILTER_VERDICT_DST);
	ASSERT_EQ(0, match_of(self->fd, pkt_of("192.0.2.250", "203.0.113.9",
					       0, 0, 0), &mr));
	EXPECT_EQ((__u32)CFILTER_DROP_PREFIX, CFILTER_VERDICT_KIND(mr.verdict));
	EXPECT_EQ(CFILTER_VERDICT_DST, mr.verdict & CFILTER_VERDICT_DST);
	EXPECT_STREQ("ops", mr.source);
	ASSERT_EQ(0, match_of(self->fd, from("198.51.100.7"), &mr));
	EXPECT_EQ((__u32)CFILTER_ALLOWED, CFILTER_VERDICT_KIND(mr.verdict));
	EXPECT_STREQ("admin", mr.source);
	ASSERT_EQ(0, match_of(self->fd, pkt_of("192.0.2.5", "192.0.2.200",
					       IPPROTO_UDP, 53, 53), &mr));
	EXPECT_EQ((__u32)CFILTER_DROP_FLOW, CFILTER_VERDICT_KIND(mr.verdict));
	EXPECT_STREQ("jail", mr.source);
	ASSERT_EQ(0, match_of(self->fd, from("192.0.2.9"), &mr));
	EXPECT_STREQ("default", mr.source);
	EXPECT_EQ(0U, CFILTER_VERDICT_SOURCE(mr.verdict));
	ASSERT_EQ(0, match_of(self->fd, from("192.0.2.77"), &mr));
	EXPECT_EQ((__u32)CFILTER_PASS, mr.verdict);
	EXPECT_STREQ("", mr.source);

	/* Shared, the prefix names "feed"; let go, "jail" again. */
	ASSERT_EQ(0, cf_add(self->fd, &net, "feed", 0));
	ASSERT_EQ(0, match_of(self->fd, from("198.51.100.9"), &mr));
	EXPECT_STREQ("feed", mr.source);
	ASSERT_EQ(0, cf_del(self->fd, &net, "feed"));
	ASSERT_EQ(0, match_of(self->fd, from("198.51.100.9"), &mr));
	EXPECT_STREQ("jail", mr.source);
	/* The same for the flow, and for the address "default" holds. */
	ASSERT_EQ(0, cf_add(self->fd, &fl, "feed", 0));
	ASSERT_EQ(0, match_of(self->fd, pkt_of("192.0.2.5", "192.0.2.200",
					       IPPROTO_UDP, 53, 53), &mr));
	EXPECT_STREQ("feed", mr.source);
	ASSERT_EQ(0, cf_add(self->fd, &mine, "feed", 0));
	ASSERT_EQ(0, match_of(self->fd, from("192.0.2.9"), &mr));
	EXPECT_STREQ("default", mr.source);
	ASSERT_EQ(0, cf_del(self->fd, &mine, "default"));
	ASSERT_EQ(0, match_of(self->fd, from("192.0.2.9"), &mr));
	EXPECT_STREQ("feed", mr.source);
}

TEST_F(src, del_by_one_source_leaves_the_others_holding)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC6, "2001:db8::1");
	struct cfilter_sources s;

	ASSERT_EQ(0, cf_add(self->fd, &a, "fail2ban", 0));
	ASSERT_EQ(0, cf_add(self->fd, &a, "", 0));
	ASSERT_EQ(0, cf_del(self->fd, &a, "fail2ban"));
	EXPECT_EQ(ENOENT, cf_test(self->fd, &a, "fail2ban"));
	EXPECT_EQ(0, cf_test(self->fd, &a, ""));
	EXPECT_EQ(0, cf_held(self->fd, &a, 0));
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, from("2001:db8::1")));
	EXPECT_EQ(ENOENT, cf_del(self->fd, &a, "fail2ban"));
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	EXPECT_EQ(1U, s.count);
	EXPECT_EQ(1ULL, s.sources[0].entries);
}

TEST_F(src, add_again_by_the_same_source_is_eexist_and_one_holding)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_entry e[4];
	struct cfilter_sources s;

	ASSERT_EQ(0, cf_add(self->fd, &a, "feed", 0));
	EXPECT_EQ(EEXIST, cf_add(self->fd, &a, "feed", 0));
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	ASSERT_NE(NULL, source_in(&s, "feed"));
	EXPECT_EQ(1ULL, source_in(&s, "feed")->entries);
	EXPECT_EQ(1, list_holdings(self->fd, NULL, e, 4));
	ASSERT_EQ(0, cf_del(self->fd, &a, "feed"));
	EXPECT_EQ(CFILTER_PASS, verdict_of(self->fd, from("192.0.2.1")));
}

TEST_F(src, del_of_a_holding_the_source_lacks_is_enoent)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_key b = key_of(CFILTER_KEY_SRC4, "192.0.2.2");
	struct state before;

	ASSERT_EQ(0, cf_add(self->fd, &a, "feed", 0));
	ASSERT_EQ(0, cf_add(self->fd, &b, "admin", 0));
	get_state(_metadata, self->fd, &before);
	EXPECT_EQ(ENOENT, cf_del(self->fd, &a, "admin"));
	EXPECT_EQ(ENOENT, cf_del(self->fd, &a, ""));
	EXPECT_EQ(ENOENT, cf_del(self->fd, &a, "no-such-source"));
	expect_unchanged(_metadata, self->fd, &before, "DEL by another source");
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, from("192.0.2.1")));
}

TEST_F(src, test_asks_one_source_or_any_with_all_sources)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_key b = key_of(CFILTER_KEY_SRC4, "192.0.2.2");

	ASSERT_EQ(0, cf_add(self->fd, &a, "feed", 0));
	ASSERT_EQ(0, cf_add(self->fd, &b, "admin", 0));
	EXPECT_EQ(0, cf_test(self->fd, &a, "feed"));
	EXPECT_EQ(ENOENT, cf_test(self->fd, &a, "admin"));
	EXPECT_EQ(ENOENT, cf_test(self->fd, &a, ""));
	EXPECT_EQ(ENOENT, cf_test(self->fd, &a, "no-such-source"));
	EXPECT_EQ(0, cf_held(self->fd, &a, 0));
	EXPECT_EQ(0, cf_held(self->fd, &b, 0));
}

/* The header: "TEST and LIST ignore the source name" with ALL_SOURCES. */
/* Every source means no one source: a name beside the flag is a mistake. */
TEST_F(src, all_sources_with_a_source_name_is_einval)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_entry e[4];
	struct cfilter_list l;

	ASSERT_EQ(0, cf_add(self->fd, &a, "feed", 0));
	EXPECT_EQ(EINVAL, hold(self->fd, CFILTER_IOC_TEST, &a, "admin", ALL, 0));
	EXPECT_EQ(EINVAL, hold(self->fd, CFILTER_IOC_DEL, &a, "feed", ALL, 0));
	EXPECT_EQ(0, hold(self->fd, CFILTER_IOC_TEST, &a, "", ALL, 0));
	list_req(&l, e, 4, "admin", ALL);
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_LIST, &l));
	memset(l.source, 0, sizeof(l.source));
	EXPECT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_LIST, &l));
	EXPECT_EQ(1U, l.count);
}

TEST_F(src, del_with_all_sources_removes_every_holding)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_key b = key_of(CFILTER_KEY_SRC4, "192.0.2.2");
	struct cfilter_sources s;

	ASSERT_EQ(0, cf_add(self->fd, &a, "", 0));
	ASSERT_EQ(0, cf_add(self->fd, &a, "feed", 3600));
	ASSERT_EQ(0, cf_add(self->fd, &a, "admin", 0));
	ASSERT_EQ(0, cf_add(self->fd, &b, "admin", 0));
	ASSERT_EQ(0, hold(self->fd, CFILTER_IOC_DEL, &a, "", ALL, 0));
	EXPECT_EQ(CFILTER_PASS, verdict_of(self->fd, from("192.0.2.1")));
	EXPECT_EQ(ENOENT, cf_held(self->fd, &a, 0));
	EXPECT_EQ(0, timed_of(self->fd));
	/* "feed" held nothing else: it is gone; "admin" keeps b. */
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	EXPECT_EQ(2U, s.count);
	EXPECT_EQ(NULL, source_in(&s, "feed"));
	ASSERT_NE(NULL, source_in(&s, "admin"));
	EXPECT_EQ(1ULL, source_in(&s, "admin")->entries);
	EXPECT_EQ(0ULL, s.sources[0].entries);
	EXPECT_EQ(ENOENT, hold(self->fd, CFILTER_IOC_DEL, &a, "", ALL, 0));
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, from("192.0.2.2")));
}

TEST_F(src, empty_source_name_is_default)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_entry e[4];
	struct cfilter_sources s;

	ASSERT_EQ(0, cf_add(self->fd, &a, "", 0));
	EXPECT_EQ(EEXIST, cf_add(self->fd, &a, "default", 0));
	EXPECT_EQ(0, cf_test(self->fd, &a, "default"));
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	ASSERT_EQ(1U, s.count);
	EXPECT_STREQ("default", s.sources[0].name);
	EXPECT_EQ(1ULL, s.sources[0].entries);
	ASSERT_EQ(1, list_holdings(self->fd, "", e, 4));
	EXPECT_STREQ("default", e[0].source);
	ASSERT_EQ(1, list_holdings(self->fd, "default", e, 4));
	EXPECT_EQ(0, cf_del(self->fd, &a, "default"));
	EXPECT_EQ(ENOENT, cf_held(self->fd, &a, 0));
}

/*
 * "feed" and "admin" share an address, a prefix, a destination, a flow and
 * an allow entry; each has others of its own. FLUSH of "feed" leaves every
 * shared one and "admin"'s own, and takes only what "feed" alone held.
 */
TEST_F(src, flush_leaves_the_entries_other_sources_hold)
{
	struct cfilter_key shared[] = {
		key_of(CFILTER_KEY_SRC4, "192.0.2.1"),
		key_of(CFILTER_KEY_SRC4, "198.51.100.0/24"),
		key_of(CFILTER_KEY_DST4, "203.0.113.9"),
		flow4("203.0.113.5", "192.0.2.200", IPPROTO_TCP, 40000, 80),
		key_of(CFILTER_KEY_ALLOW4, "198.51.100.7"),
	};
	struct cfilter_key feed_only[] = {
		key_of(CFILTER_KEY_SRC4, "192.0.2.3"),
		key_of(CFILTER_KEY_SRC6, "2001:db8:1::/48"),
		key_of(CFILTER_KEY_ALLOW4, "198.51.100.8"),
		flow4("203.0.113.5", "192.0.2.200", IPPROTO_UDP, 53, 53),
	};
	struct cfilter_key admin_only = key_of(CFILTER_KEY_SRC4, "192.0.2.2");
	const struct cfilter_source_info *admin;
	struct cfilter_sources s;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(shared); i++) {
		ASSERT_EQ(0, cf_add(self->fd, &shared[i], "feed", 0));
		ASSERT_EQ(0, cf_add(self->fd, &shared[i], "admin", 0));
	}
	for (i = 0; i < ARRAY_SIZE(feed_only); i++)
		ASSERT_EQ(0, cf_add(self->fd, &feed_only[i], "feed", 0));
	ASSERT_EQ(0, cf_add(self->fd, &admin_only, "admin", 0));
	EXPECT_EQ(CFILTER_ALLOWED, verdict_of(self->fd, from("198.51.100.8")));

	ASSERT_EQ(0, cf_flush(self->fd, "feed"));
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, from("192.0.2.1")));
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, from("192.0.2.2")));
	EXPECT_EQ(CFILTER_PASS, verdict_of(self->fd, from("192.0.2.3")));
	EXPECT_EQ(CFILTER_DROP_PREFIX, verdict_of(self->fd, from("198.51.100.9")));
	EXPECT_EQ(CFILTER_PASS, verdict_of(self->fd, from("2001:db8:1::5")));
	EXPECT_EQ(CFILTER_DROP_DST,
		  verdict_of(self->fd, pkt_of("192.0.2.250", "203.0.113.9",
					      0, 0, 0)));
	EXPECT_EQ(CFILTER_DROP_FLOW,
		  verdict_of(self->fd, pkt_of("203.0.113.5", "192.0.2.200",
					      IPPROTO_TCP, 40000, 80)));
	EXPECT_EQ(CFILTER_PASS,
		  verdict_of(self->fd, pkt_of("203.0.113.5", "192.0.2.200",
					      IPPROTO_UDP, 53, 53)));
	/* The shared exemption stays; "feed"'s own went, so blocking is back. */
	EXPECT_EQ(CFILTER_ALLOWED, verdict_of(self->fd, from("198.51.100.7")));
	EXPECT_EQ(CFILTER_DROP_PREFIX, verdict_of(self->fd, from("198.51.100.8")));

	EXPECT_EQ((long long)ARRAY_SIZE(shared) + 1, cf_count(self->fd));
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	EXPECT_EQ(2U, s.count);
	EXPECT_EQ(NULL, source_in(&s, "feed"));
	admin = source_in(&s, "admin");
	ASSERT_NE(NULL, admin);
	EXPECT_EQ(ARRAY_SIZE(shared) + 1, admin->entries);
	EXPECT_EQ(ENOENT, cf_test(self->fd, &shared[0], "feed"));
	EXPECT_EQ(ENOENT, cf_flush(self->fd, "feed"));
}

TEST_F(src, flush_of_a_source_the_set_lacks_is_enoent)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct state before;

	ASSERT_EQ(0, cf_add(self->fd, &a, "feed", 0));
	get_state(_metadata, self->fd, &before);
	EXPECT_EQ(ENOENT, cf_flush(self->fd, "admin"));
	EXPECT_EQ(ENOENT, cf_flush(self->fd, "fee"));
	expect_unchanged(_metadata, self->fd, &before, "FLUSH of no source");
}

/* "default" always exists, holding something or not. */
TEST_F(src, flush_of_default_leaves_named_sources)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_key b = key_of(CFILTER_KEY_SRC4, "192.0.2.2");
	struct cfilter_sources s;

	EXPECT_EQ(0, cf_flush(self->fd, ""));
	ASSERT_EQ(0, cf_add(self->fd, &a, "", 0));
	ASSERT_EQ(0, cf_add(self->fd, &b, "", 0));
	ASSERT_EQ(0, cf_add(self->fd, &b, "feed", 0));
	ASSERT_EQ(0, cf_flush(self->fd, ""));
	EXPECT_EQ(CFILTER_PASS, verdict_of(self->fd, from("192.0.2.1")));
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, from("192.0.2.2")));
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	ASSERT_EQ(2U, s.count);
	EXPECT_STREQ("default", s.sources[0].name);
	EXPECT_EQ(0ULL, s.sources[0].entries);
	EXPECT_EQ(0, cf_flush(self->fd, "default"));
}

TEST_F(src, empty_set_has_only_default)
{
	struct cfilter_sources s;

	memset(&s, 0xa5, sizeof(s));
	s.flags = 0;
	s.reserved = 0;
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_SOURCES, &s));
	ASSERT_EQ(1U, s.count);
	EXPECT_STREQ("default", s.sources[0].name);
	EXPECT_EQ(0ULL, s.sources[0].entries);
	EXPECT_EQ(0ULL, s.sources[0].timed);
}

TEST_F(src, sources_counts_entries_and_timed_per_source)
{
	struct cfilter_key k[4] = {
		key_of(CFILTER_KEY_SRC4, "192.0.2.1"),
		key_of(CFILTER_KEY_SRC4, "198.51.100.0/24"),
		key_of(CFILTER_KEY_DST6, "2001:db8::9"),
		flow4("203.0.113.5", "192.0.2.200", IPPROTO_TCP, 40000, 80),
	};
	const struct cfilter_source_info *a, *b;
	struct cfilter_sources s;

	ASSERT_EQ(0, cf_add(self->fd, &k[0], "", 0));
	ASSERT_EQ(0, cf_add(self->fd, &k[1], "", 600));
	ASSERT_EQ(0, cf_add(self->fd, &k[0], "b", 600));
	ASSERT_EQ(0, cf_add(self->fd, &k[2], "b", 600));
	ASSERT_EQ(0, cf_add(self->fd, &k[3], "b", 0));
	ASSERT_EQ(0, cf_add(self->fd, &k[3], "a", 0));
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	ASSERT_EQ(3U, s.count);
	EXPECT_STREQ("default", s.sources[0].name);
	EXPECT_EQ(2ULL, s.sources[0].entries);
	EXPECT_EQ(1ULL, s.sources[0].timed);
	a = source_in(&s, "a");
	b = source_in(&s, "b");
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	EXPECT_EQ(1ULL, a->entries);
	EXPECT_EQ(0ULL, a->timed);
	EXPECT_EQ(3ULL, b->entries);
	EXPECT_EQ(2ULL, b->timed);
	/* Entries, not holdings, are what INFO counts. */
	EXPECT_EQ(4, cf_count(self->fd));
}

TEST_F(src, a_source_goes_with_its_last_holding)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_entry e[4];
	struct cfilter_sources s;

	ASSERT_EQ(0, cf_add(self->fd, &a, "feed", 0));
	ASSERT_EQ(0, cf_add(self->fd, &a, "", 0));
	ASSERT_EQ(0, cf_del(self->fd, &a, "feed"));
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	EXPECT_EQ(1U, s.count);
	EXPECT_EQ(NULL, source_in(&s, "feed"));
	EXPECT_EQ(ENOENT, cf_test(self->fd, &a, "feed"));
	EXPECT_EQ(ENOENT, cf_flush(self->fd, "feed"));
	EXPECT_EQ(-ENOENT, list_holdings(self->fd, "feed", e, 4));
}

/*
 * An entry held by two sources is listed once for each; a source's own
 * listing has its holdings only; a timed one reports the seconds left, at
 * most the timeout asked for.
 */
TEST_F(src, list_reports_each_holding_with_its_source_and_seconds_left)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_key p = key_of(CFILTER_KEY_SRC6, "2001:db8:1::/48");
	const struct cfilter_entry *x;
	struct cfilter_entry e[8];
	int n;

	ASSERT_EQ(0, cf_add(self->fd, &a, "one", 0));
	ASSERT_EQ(0, cf_add(self->fd, &a, "two", 100));
	ASSERT_EQ(0, cf_add(self->fd, &p, "two", 0));

	ASSERT_EQ(1, list_holdings(self->fd, "one", e, 8));
	EXPECT_EQ(0, memcmp(&a, &e[0].key, sizeof(a)));
	EXPECT_STREQ("one", e[0].source);
	EXPECT_EQ(0U, e[0].timeout);

	ASSERT_EQ(2, list_holdings(self->fd, "two", e, 8));
	x = entry_in(e, 2, &a, "two");
	ASSERT_NE(NULL, x);
	EXPECT_GE(100U, x->timeout);
	EXPECT_LE(98U, x->timeout);
	x = entry_in(e, 2, &p, "two");
	ASSERT_NE(NULL, x);
	EXPECT_EQ(0U, x->timeout);

	n = list_holdings(self->fd, NULL, e, 8);
	ASSERT_EQ(3, n);
	EXPECT_NE(NULL, entry_in(e, n, &a, "one"));
	EXPECT_NE(NULL, entry_in(e, n, &a, "two"));
	EXPECT_NE(NULL, entry_in(e, n, &p, "two"));
	for (n = 0; n < 3; n++) {
		EXPECT_GE(5U, e[n].age) TH_LOG("entry %d", n);
		EXPECT_TRUE(nul_padded(e[n].source)) TH_LOG("entry %d", n);
	}
	/* "default" exists, holding nothing; an unknown source does not. */
	EXPECT_EQ(0, list_holdings(self->fd, "", e, 8));
	EXPECT_EQ(-ENOENT, list_holdings(self->fd, "three", e, 8));
}

/*
 * A write between two calls of a stepped listing, given the @n holdings
 * listed so far: returns true once it made its write (it is not called
 * again), false to wait for the next call.
 */
typedef bool (*list_write_fn)(struct __test_metadata *_metadata, int fd,
			      const struct cfilter_entry *got, int n);

/*
 * Every source's holdings, one per LIST call as cfctl save steps its
 * cursor, into @out (sorted), with @between's write; a call that
 * fails with ESTALE starts the listing over, as a client does. Returns
 * how many, -E2BIG if @room was not enough, or -errno; the restarts into
 * *@restarts.
 */
static int list_stepped(struct __test_metadata *_metadata, int fd,
			list_write_fn between, struct cfilter_entry *out,
			unsigned int room, int *restarts)
{
	struct cfilter_list l;
	unsigned int n = 0;
	bool written = false;
	int err;

	*restarts = 0;
	list_req(&l, out, 1, "", ALL);
	for (;;) {
		if (n == room)
			return -E2BIG;
		l.entries = (uintptr_t)(out + n);
		err = cf_ioctl(fd, CFILTER_IOC_LIST, &l);
		if (err == ESTALE && *restarts < 100) {
			(*restarts)++;
			n = 0;
			l.cursor = 0;
			l.gen = 0;
			continue;
		}
		if (err)
			return -err;
		if (!l.count)
			break;
		n += l.count;
		if (!written)
			written = between(_metadata, fd, out, n);
	}
	EXPECT_TRUE(written) TH_LOG("the listing ended before its write");
	qsort(out, n, sizeof(*out), entry_cmp);
	return n;
}

#define STEPPED_MAX	16

/* @key's IPv4 address as text, in a buffer the next call reuses. */
static const char *addr4(const struct cfilter_key *key)
{
	static char buf[INET_ADDRSTRLEN];

	return inet_ntop(AF_INET, key->saddr, buf, sizeof(buf));
}

/*
 * Lists every holding one per call with @between's write, and expects
 * each holding there before and after to be listed exactly once, and
 * nothing else. Returns the times the listing started over.
 */
static int expect_stepped_listing(struct __test_metadata *_metadata, int fd,
				  list_write_fn between)
{
	struct cfilter_entry before[STEPPED_MAX], after[STEPPED_MAX];
	struct cfilter_entry got[2 * STEPPED_MAX];
	const struct cfilter_entry *e;
	int nb, na, n, i, restarts = -1;

	nb = list_holdings(fd, NULL, before, STEPPED_MAX);
	EXPECT_LE(0, nb);
	n = list_stepped(_metadata, fd, between, got, 2 * STEPPED_MAX,
			 &restarts);
	EXPECT_LE(0, n);
	na = list_holdings(fd, NULL, after, STEPPED_MAX);
	EXPECT_LE(0, na);
	if (nb < 0 || n < 0 || na < 0)
		return restarts;
	for (i = 0; i < nb; i++) {
		e = &before[i];
		if (!entry_in(after, na, &e->key, e->source))
			continue;
		EXPECT_NE(NULL, entry_in(got, n, &e->key, e->source))
			TH_LOG("%s by %s, there throughout, not listed",
			       addr4(&e->key), e->source);
	}
	for (i = 0; i < n; i++) {
		e = &got[i];
		EXPECT_TRUE(entry_in(before, nb, &e->key, e->source) ||
			    entry_in(after, na, &e->key, e->source))
			TH_LOG("%s by %s listed, never there", addr4(&e->key),
			       e->source);
		if (i)
			EXPECT_NE(0, entry_cmp(&got[i - 1], e))
				TH_LOG("%s by %s listed twice", addr4(&e->key),
				       e->source);
	}
	return restarts;
}

/* The first of @n keys from nth_key4(@first) that @got lacks, or -1. */
static int unlisted(const struct cfilter_entry *got, int n_got,
		    const char *source, unsigned int first, unsigned int n)
{
	struct cfilter_key k;
	unsigned int i;

	for (i = first; i < first + n; i++) {
		k = nth_key4(i);
		if (!entry_in(got, n_got, &k, source))
			return i;
	}
	return -1;
}

/*
 * "jail" holds key 0 permanently and key 1 for a minute, so that neither
 * kind of record is empty (a write to an empty one lays it out, which a
 * listing notices anyway); @source holds keys 2 to 5, for @timeout.
 */
static void hold_four(struct __test_metadata *_metadata, int fd,
		      const char *source, __u32 timeout)
{
	struct cfilter_key k;
	unsigned int i;

	k = nth_key4(0);
	ASSERT_EQ(0, cf_add(fd, &k, "jail", 0));
	k = nth_key4(1);
	ASSERT_EQ(0, cf_add(fd, &k, "jail", 60));
	for (i = 2; i < 6; i++) {
		k = nth_key4(i);
		ASSERT_EQ(0, cf_add(fd, &k, source, timeout));
	}
}

/* Another source adds an entry "default" holds unrecorded, not listed yet. */
static bool add_unlisted_by_feed(struct __test_metadata *_metadata, int fd,
				 const struct cfilter_entry *got, int n)
{
	struct cfilter_key k;
	int i;

	/* Default's unrecorded holdings are listed last: we are there. */
	if (strcmp(got[n - 1].source, "default"))
		return false;
	i = unlisted(got, n, "default", 2, 4);
	ASSERT_LE(0, i);
	k = nth_key4(i);
	EXPECT_EQ(0, cf_add(fd, &k, "feed", 0));
	return true;
}

/*
 * A listing past the records, among default's unrecorded holdings, when
 * another source adds one not listed yet (default's is recorded from then
 * on, among the records walked): it is listed all the same.
 */
TEST_F(src, stepped_list_keeps_a_default_holding_that_gains_a_record)
{
	hold_four(_metadata, self->fd, "", 0);
	expect_stepped_listing(_metadata, self->fd, add_unlisted_by_feed);
}

/* Default adds again, for a minute, an entry it holds unrecorded. */
static bool time_unlisted_default(struct __test_metadata *_metadata, int fd,
				  const struct cfilter_entry *got, int n)
{
	struct cfilter_key k;
	int i;

	if (strcmp(got[n - 1].source, "default"))
		return false;
	i = unlisted(got, n, "default", 2, 4);
	ASSERT_LE(0, i);
	k = nth_key4(i);
	EXPECT_EQ(EEXIST, cf_add(fd, &k, "", 60));
	return true;
}

/* The same when default gives it a timeout: recorded among the timed. */
TEST_F(src, stepped_list_keeps_a_default_holding_that_gains_a_timeout)
{
	hold_four(_metadata, self->fd, "", 0);
	expect_stepped_listing(_metadata, self->fd, time_unlisted_default);
}

/* Among the timed records, one not listed yet is made permanent. */
static bool make_unlisted_permanent(struct __test_metadata *_metadata, int fd,
				    const struct cfilter_entry *got, int n)
{
	struct cfilter_key k;
	int i;

	if (!got[n - 1].timeout)
		return false;
	i = unlisted(got, n, "feed", 2, 4);
	ASSERT_LE(0, i);
	k = nth_key4(i);
	EXPECT_EQ(EEXIST, cf_add(fd, &k, "feed", 0));
	return true;
}

/*
 * A timed holding not listed yet, made permanent while the listing walks
 * the timed ones (it moves among the permanent ones, walked): listed.
 */
TEST_F(src, stepped_list_keeps_a_holding_made_permanent)
{
	hold_four(_metadata, self->fd, "feed", 60);
	expect_stepped_listing(_metadata, self->fd, make_unlisted_permanent);
}

/* The permanent holding just listed gets a timeout. */
static bool time_listed(struct __test_metadata *_metadata, int fd,
			const struct cfilter_entry *got, int n)
{
	if (strcmp(got[n - 1].source, "feed"))
		return false;
	EXPECT_EQ(0U, got[n - 1].timeout);
	EXPECT_EQ(EEXIST, cf_add(fd, &got[n - 1].key, "feed", 60));
	return true;
}

/*
 * A permanent holding listed, then given a timeout (it moves among the
 * timed ones, walked next): listed once, not twice.
 */
TEST_F(src, stepped_list_reports_a_holding_made_timed_once)
{
	hold_four(_metadata, self->fd, "feed", 0);
	expect_stepped_listing(_metadata, self->fd, time_listed);
}

/*
 * Other sources add a holding of an entry held already, and of a new
 * one, and delete one of theirs; key 6 is new.
 */
static bool add_and_del_others(struct __test_metadata *_metadata, int fd,
			       const struct cfilter_entry *got, int n)
{
	struct cfilter_key k;

	k = nth_key4(2);
	EXPECT_EQ(0, cf_add(fd, &k, "jail", 0));
	k = nth_key4(6);
	EXPECT_EQ(0, cf_add(fd, &k, "other", 0));
	k = nth_key4(0);
	EXPECT_EQ(0, cf_del(fd, &k, "jail"));
	return true;
}

/*
 * Adds and deletes of other holdings that lay nothing out anew leave the
 * listing as it was: no ESTALE, and every holding there throughout.
 */
TEST_F(src, stepped_list_goes_on_past_other_adds_and_deletes)
{
	hold_four(_metadata, self->fd, "feed", 0);
	EXPECT_EQ(0, expect_stepped_listing(_metadata, self->fd,
					    add_and_del_others));
}

/* Waits for jail's holding of key 7, of a second, to expire. */
static bool wait_expiry(struct __test_metadata *_metadata, int fd,
			const struct cfilter_entry *got, int n)
{
	struct cfilter_key k = nth_key4(7);

	EXPECT_LE(0, wait_gone(fd, &k, 0, now_ms(), 1000 + EXPIRY_SLACK_MS));
	return true;
}

/* An expiry between two calls: the rest is listed. */
TEST_F(src, stepped_list_keeps_the_rest_past_an_expiry)
{
	struct cfilter_key k = nth_key4(7);

	hold_four(_metadata, self->fd, "feed", 0);
	ASSERT_EQ(0, cf_add(self->fd, &k, "jail", 1));
	expect_stepped_listing(_metadata, self->fd, wait_expiry);
}

/*
 * The long walks: "bulk" holds IPv4 addresses from nth_key4(0) on, at
 * least BULK_MIN of them, and as many more as fill the SRC4 table to
 * BRIM_PCT of its slots: a listing that looks at each of them takes many
 * holds of the writer lock, and most further inserts move keys between
 * buckets. Closer to the 95% at which it grows, an insert may find no
 * slot and grow it all the same, to a table where few inserts move keys.
 */
#define BULK_MIN	100000
#define BULK_CHUNK	4096
#define BRIM_PCT	90
/* Listings a test starts before it concludes that no write got in. */
#define WALK_TRIES	20

/* Adds bulk's holdings of nth_key4(@from) to nth_key4(@to - 1). */
static void add_bulk(struct __test_metadata *_metadata, int fd,
		     unsigned int from, unsigned int to)
{
	static struct cfilter_key keys[BULK_CHUNK];
	static __s32 results[BULK_CHUNK];
	struct cfilter_batch b;
	unsigned int i, n;

	for (; from < to; from += n) {
		n = to - from < BULK_CHUNK ? to - from : BULK_CHUNK;
		for (i = 0; i < n; i++)
			keys[i] = nth_key4(from + i);
		ASSERT_EQ(0, cf_batch_by(fd, CFILTER_BATCH_ADD, "bulk", 0, keys,
					 NULL, results, n, &b));
		ASSERT_EQ(n, b.first_error)
			TH_LOG("bulk's holding %u of %u: %s", from + b.first_error,
			       to, strerror(-results[b.first_error]));
	}
}

/* Fills the SRC4 table with bulk's holdings as said above. */
static void fill_src4(struct __test_metadata *_metadata, int fd)
{
	struct cfilter_type_info ti;
	unsigned long long brim;
	unsigned int bulk = BULK_MIN;

	add_bulk(_metadata, fd, 0, bulk);
	for (;;) {
		ASSERT_EQ(0, cf_type_info(fd, CFILTER_KEY_SRC4, 0, &ti));
		brim = ti.capacity * BRIM_PCT / 100;
		ASSERT_GE(brim, ti.count) TH_LOG("%llu keys in %llu slots",
					 (unsigned long long)ti.count,
					 (unsigned long long)ti.capacity);
		if (ti.count == brim)
			return;
		/* It may grow meanwhile (no slot found): fill it again. */
		add_bulk(_metadata, fd, bulk, bulk + (brim - ti.count));
		bulk += brim - ti.count;
	}
}

/* Keeps the caller on CPU @cpu. */
static void pin_to(struct __test_metadata *_metadata, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
}

/*
 * Keeps the caller on the CPU it runs on, and returns another CPU it may
 * run on, for a writer; -1 if there is none. A writer that waits for the
 * lock on a CPU of its own spins rather than sleeps, watching the owner,
 * and may lose every race to take it to a listing that lets go and takes
 * it again (emulated CPUs lose them often), unless the listing makes way.
 */
static int cpu_apart(struct __test_metadata *_metadata)
{
	int cpu = sched_getcpu(), other;
	cpu_set_t set;

	ASSERT_LE(0, cpu);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(set), &set));
	for (other = 0; other < CPU_SETSIZE; other++)
		if (other != cpu && CPU_ISSET(other, &set))
			break;
	if (other == CPU_SETSIZE)
		return -1;
	pin_to(_metadata, cpu);
	return other;
}

/* One write of a writer child, the @i-th. */
typedef void (*writer_fn)(int fd, unsigned int i);

/*
 * Starts a child on CPU @cpu that makes @write's writes on @fd until it is
 * killed (or its parent ends); returns its pid once its first write is
 * done.
 */
static pid_t start_writer(struct __test_metadata *_metadata, int fd,
			  writer_fn write_one, int cpu)
{
	unsigned int i;
	pid_t child;
	int go[2];
	char c = 0;

	ASSERT_EQ(0, pipe(go));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pin_to(_metadata, cpu);
		write_one(fd, 0);
		if (write(go[1], &c, 1) != 1)
			_exit(1);
		for (i = 1;; i++)
			write_one(fd, i);
	}
	close(go[1]);
	ASSERT_EQ(1, read(go[0], &c, 1));
	close(go[0]);
	return child;
}

static void stop_writer(pid_t child)
{
	int status;

	kill(child, SIGKILL);
	waitpid(child, &status, 0);
}

/*
 * Bulk's holding of key 0 made timed, then permanent again: each moves it
 * between the records' two parts, which a listing of its type notices.
 */
static void retime_bulk(int fd, unsigned int i)
{
	struct cfilter_key k = nth_key4(0);

	cf_add(fd, &k, "bulk", i % 2 ? 0 : 600);
}

/*
 * "other" adds a key new to the tables, then deletes it: in a table at
 * the brim, one add in four or five moves keys between buckets, which
 * changes the tables' layout and not the records'.
 */
static void churn_other(int fd, unsigned int i)
{
	struct cfilter_key k = nth_key4(i / 2);

	k.saddr[0] = 12;
	if (i % 2)
		cf_del(fd, &k, "other");
	else
		cf_add(fd, &k, "other", 0);
}

/*
 * LIST of @source from cursor @l->cursor (0: the start), one entry at
 * most, into @e; 0 or the errno.
 */
static int list_one(int fd, struct cfilter_list *l, struct cfilter_entry *e,
		    const char *source)
{
	__u64 cursor = l->cursor, gen = l->gen;

	list_req(l, e, 1, source, 0);
	l->cursor = cursor;
	l->gen = gen;
	return cf_ioctl(fd, CFILTER_IOC_LIST, l);
}

/*
 * Listing "rare", which holds one IPv6 address, walks bulk's records of
 * IPv4 ones first and finds none of its own there. A write made while it
 * walks them makes that call fail with ESTALE, since it moves a holding:
 * it can only happen if the call lets go of the writer lock on its way.
 * Held for the whole walk, the lock keeps every write (and expiry) out
 * for as long as a reader with a read-only descriptor likes. The writer
 * runs on another CPU, where it spins for the lock (see cpu_apart()).
 * Without writes, the one call finds rare's holding: no count 0 before
 * the end.
 */
TEST_F_TIMEOUT(src, list_of_a_rare_source_lets_writers_in_as_it_walks, 600)
{
	struct cfilter_key rare = nth_key6(1);
	struct cfilter_list l = { 0 };
	struct cfilter_entry e;
	bool stale = false;
	pid_t writer;
	int try, err, cpu;

	fill_src4(_metadata, self->fd);
	ASSERT_EQ(0, cf_add(self->fd, &rare, "rare", 0));
	ASSERT_EQ(0, list_one(self->fd, &l, &e, "rare"));
	ASSERT_EQ(1U, l.count);
	EXPECT_EQ(0, memcmp(&rare, &e.key, sizeof(rare)));
	ASSERT_EQ(0, list_one(self->fd, &l, &e, "rare"));
	EXPECT_EQ(0U, l.count);

	cpu = cpu_apart(_metadata);
	if (cpu < 0)
		SKIP(return, "one CPU: no writer spins on another");
	writer = start_writer(_metadata, self->fd, retime_bulk, cpu);
	for (try = 0; try < WALK_TRIES && !stale; try++) {
		memset(&l, 0, sizeof(l));
		err = list_one(self->fd, &l, &e, "rare");
		stale = err == ESTALE;
		if (!stale) {
			EXPECT_EQ(0, err);
			EXPECT_EQ(1U, l.count);
		}
	}
	stop_writer(writer);
	if (stale)
		TH_LOG("a write got in during listing %d", try);
	EXPECT_TRUE(stale)
		TH_LOG("no write got in while %d listings walked %lld records",
		       WALK_TRIES, cf_type_count(self->fd, CFILTER_KEY_SRC4, 0));
}

/*
 * Listing "default", which holds one timed IPv4 address and nothing else:
 * the first call walks bulk's records to find it, the second walks the
 * tables for default's unrecorded holdings, bulk's there as well. Writes
 * that move keys in the tables, and not the records, change what only
 * the second walk checks, and only once it started: a call that fails
 * with ESTALE let go of the lock on its way through the tables, to a
 * writer spinning for it on another CPU.
 */
TEST_F_TIMEOUT(src, list_of_default_lets_writers_in_as_it_walks_the_tables,
	       600)
{
	struct cfilter_key mine = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_list l = { 0 };
	struct cfilter_entry e;
	bool stale = false;
	pid_t writer;
	int try, err, cpu;

	ASSERT_EQ(0, cf_add(self->fd, &mine, "", 600));
	fill_src4(_metadata, self->fd);
	ASSERT_EQ(0, list_one(self->fd, &l, &e, ""));
	ASSERT_EQ(1U, l.count);
	EXPECT_EQ(0, memcmp(&mine, &e.key, sizeof(mine)));
	ASSERT_EQ(0, list_one(self->fd, &l, &e, ""));
	EXPECT_EQ(0U, l.count);

	cpu = cpu_apart(_metadata);
	if (cpu < 0)
		SKIP(return, "one CPU: no writer spins on another");
	writer = start_writer(_metadata, self->fd, churn_other, cpu);
	for (try = 0; try < WALK_TRIES && !stale; try++) {
		memset(&l, 0, sizeof(l));
		ASSERT_EQ(0, list_one(self->fd, &l, &e, ""));
		ASSERT_EQ(1U, l.count);
		err = list_one(self->fd, &l, &e, "");
		stale = err == ESTALE;
		if (!stale) {
			EXPECT_EQ(0, err);
			EXPECT_EQ(0U, l.count);
		}
	}
	stop_writer(writer);
	if (stale)
		TH_LOG("a write got in during listing %d", try);
	EXPECT_TRUE(stale)
		TH_LOG("no write got in while %d listings walked %lld entries",
		       WALK_TRIES, cf_type_count(self->fd, CFILTER_KEY_SRC4, 0));
}

/* A timed address drops at once and passes within its timeout + 1 s. */
TEST_F(src, timed_address_expires_by_itself)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_pkt p = from("192.0.2.1");
	struct cfilter_sources s;
	long long t0 = now_ms();

	ASSERT_EQ(0, cf_add(self->fd, &a, "fail2ban", 2));
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, p));
	EXPECT_EQ(1, timed_of(self->fd));
	expect_expiry(_metadata, self->fd, p, CFILTER_DROP_SRC, CFILTER_PASS,
		      t0, 2);
	EXPECT_EQ(ENOENT, cf_held(self->fd, &a, 0));
	EXPECT_EQ(0, cf_count(self->fd));
	EXPECT_EQ(0, timed_of(self->fd));
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	EXPECT_EQ(1U, s.count);
	EXPECT_EQ(NULL, source_in(&s, "fail2ban"));
}

/*
 * ADD again sets the timeout anew: a longer one outlives the first, which
 * would have gone 2 s after the ADD at the latest (a second of rounding,
 * a second of grace).
 */
TEST_F(src, add_again_with_a_longer_timeout_refreshes_it)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_pkt p = from("192.0.2.1");
	long long t0, ms;

	ASSERT_EQ(0, cf_add(self->fd, &a, "fail2ban", 1));
	t0 = now_ms();
	ASSERT_EQ(EEXIST, cf_add(self->fd, &a, "fail2ban", 3));
	EXPECT_EQ(1, timed_of(self->fd));
	ms = wait_verdict(_metadata, self->fd, p, CFILTER_DROP_SRC,
			  CFILTER_PASS, t0, 2500);
	EXPECT_EQ(-1, ms) TH_LOG("refreshed holding gone after %lld ms", ms);
	expect_expiry(_metadata, self->fd, p, CFILTER_DROP_SRC, CFILTER_PASS,
		      t0, 3);
}

TEST_F(src, add_again_with_a_shorter_timeout_shortens_it)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_pkt p = from("192.0.2.1");
	long long t0;

	ASSERT_EQ(0, cf_add(self->fd, &a, "fail2ban", 3600));
	t0 = now_ms();
	ASSERT_EQ(EEXIST, cf_add(self->fd, &a, "fail2ban", 1));
	expect_expiry(_metadata, self->fd, p, CFILTER_DROP_SRC, CFILTER_PASS,
		      t0, 1);
}

/* ADD again without a timeout: permanent, while a timed twin expires. */
TEST_F(src, add_again_without_a_timeout_makes_it_permanent)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_key twin = key_of(CFILTER_KEY_SRC4, "192.0.2.2");
	struct cfilter_entry e[4];
	long long t0 = now_ms();

	ASSERT_EQ(0, cf_add(self->fd, &a, "fail2ban", 1));
	ASSERT_EQ(0, cf_add(self->fd, &twin, "fail2ban", 1));
	ASSERT_EQ(EEXIST, cf_add(self->fd, &a, "fail2ban", 0));
	EXPECT_EQ(1, timed_of(self->fd));
	expect_expiry(_metadata, self->fd, from("192.0.2.2"), CFILTER_DROP_SRC,
		      CFILTER_PASS, t0, 1);
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, from("192.0.2.1")));
	ASSERT_EQ(1, list_holdings(self->fd, "fail2ban", e, 4));
	EXPECT_EQ(0U, e[0].timeout);
	EXPECT_EQ(0, timed_of(self->fd));
}

TEST_F(src, permanent_holding_outlives_another_sources_timed_one)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_pkt p = from("192.0.2.1");
	struct cfilter_sources s;
	long long t0 = now_ms(), ms = 0;

	ASSERT_EQ(0, cf_add(self->fd, &a, "fail2ban", 1));
	ASSERT_EQ(0, cf_add(self->fd, &a, "admin", 0));
	for (;;) {
		EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, p));
		ms = now_ms() - t0;
		if (cf_test(self->fd, &a, "fail2ban") == ENOENT)
			break;
		ASSERT_GT(1000LL + EXPIRY_SLACK_MS, ms)
			TH_LOG("the 1 s holding still there");
		sleep_ms(POLL_MS);
	}
	EXPECT_LE(1000, ms);
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, p));
	EXPECT_EQ(0, cf_test(self->fd, &a, "admin"));
	EXPECT_EQ(1, cf_count(self->fd));
	EXPECT_EQ(0, timed_of(self->fd));
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	EXPECT_EQ(NULL, source_in(&s, "fail2ban"));
}

/*
 * Timed IPv4 and IPv6 prefixes and a flow, in tables of their own, expire
 * like addresses; a permanent prefix beside them stays.
 */
TEST_F(src, timed_prefixes_and_flows_expire)
{
	struct cfilter_key p4 = key_of(CFILTER_KEY_SRC4, "198.51.100.0/24");
	struct cfilter_key p6 = key_of(CFILTER_KEY_DST6, "2001:db8:1::/48");
	struct cfilter_key f = flow4("203.0.113.5", "192.0.2.200", IPPROTO_TCP,
				     40000, 80);
	struct cfilter_key stay = key_of(CFILTER_KEY_SRC4, "198.51.0.0/16");
	struct cfilter_pkt q6 = pkt_of("2001:db8:ffff::1", "2001:db8:1::5",
				       0, 0, 0);
	struct cfilter_pkt qf = pkt_of("203.0.113.5", "192.0.2.200",
				       IPPROTO_TCP, 40000, 80);
	struct cfilter_info info;
	long long t0 = now_ms();

	ASSERT_EQ(0, cf_add(self->fd, &p4, "geo", 1));
	ASSERT_EQ(0, cf_add(self->fd, &p6, "geo", 1));
	ASSERT_EQ(0, cf_add(self->fd, &f, "ids", 1));
	ASSERT_EQ(0, cf_add(self->fd, &stay, "", 0));
	EXPECT_EQ(CFILTER_DROP_PREFIX, verdict_of(self->fd, q6));
	EXPECT_EQ(CFILTER_DROP_FLOW, verdict_of(self->fd, qf));
	expect_expiry(_metadata, self->fd, q6, CFILTER_DROP_PREFIX,
		      CFILTER_PASS, t0, 1);
	expect_expiry(_metadata, self->fd, qf, CFILTER_DROP_FLOW,
		      CFILTER_PASS, t0, 1);
	EXPECT_LE(0, wait_gone(self->fd, &p4, 0, t0, 1000 + EXPIRY_SLACK_MS));
	EXPECT_EQ(CFILTER_DROP_PREFIX, verdict_of(self->fd, from("198.51.100.7")));
	ASSERT_EQ(0, cf_info(self->fd, &info));
	EXPECT_EQ(1ULL, info.prefixes);
	EXPECT_EQ(1ULL, info.count);
	EXPECT_EQ(0ULL, info.timed);
	EXPECT_EQ(0, cf_type_count(self->fd, CFILTER_KEY_DST6, 0));
	EXPECT_EQ(0, cf_type_count(self->fd, CFILTER_KEY_FLOW4, 0));
}

/* An exemption that expires: the blocked source drops again. */
TEST_F(src, timed_allow_expires_and_blocking_resumes)
{
	struct cfilter_key block = key_of(CFILTER_KEY_SRC4, "198.51.100.0/24");
	struct cfilter_key allow = key_of(CFILTER_KEY_ALLOW4, "198.51.100.7");
	struct cfilter_pkt p = from("198.51.100.7");
	long long t0 = now_ms();

	ASSERT_EQ(0, cf_add(self->fd, &block, "feed", 0));
	ASSERT_EQ(0, cf_add(self->fd, &allow, "admin", 1));
	EXPECT_EQ(CFILTER_ALLOWED, verdict_of(self->fd, p));
	expect_expiry(_metadata, self->fd, p, CFILTER_ALLOWED,
		      CFILTER_DROP_PREFIX, t0, 1);
	EXPECT_EQ(ENOENT, cf_held(self->fd, &allow, 0));
}

/*
 * The holdings' maps grow as keys come: a timed holding added first keeps
 * its deadline through every growth, and thousands added after it keep
 * theirs (half of them timed, half permanent).
 */
#define GROWTH_KEYS	4000

TEST_F(src, timeouts_survive_the_holdings_growing)
{
	struct cfilter_key first = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	const struct cfilter_source_info *feed;
	struct cfilter_key *keys;
	struct cfilter_entry *e;
	struct cfilter_sources s;
	struct cfilter_batch b;
	__u32 *timeouts;
	__s32 *results;
	long long t0;
	int i, n;

	keys = calloc(GROWTH_KEYS, sizeof(*keys));
	timeouts = calloc(GROWTH_KEYS, sizeof(*timeouts));
	results = calloc(GROWTH_KEYS, sizeof(*results));
	e = calloc(GROWTH_KEYS + 2, sizeof(*e));
	ASSERT_NE(NULL, keys);
	ASSERT_NE(NULL, timeouts);
	ASSERT_NE(NULL, results);
	ASSERT_NE(NULL, e);
	for (i = 0; i < GROWTH_KEYS; i++) {
		keys[i] = nth_key4(i);
		timeouts[i] = i % 2 ? 0 : 600;
	}
	t0 = now_ms();
	ASSERT_EQ(0, cf_add(self->fd, &first, "feed", 1));
	ASSERT_EQ(0, cf_batch_by(self->fd, CFILTER_BATCH_ADD, "feed", 0, keys,
				 timeouts, results, GROWTH_KEYS, &b));
	ASSERT_EQ((__u32)GROWTH_KEYS, b.first_error);
	EXPECT_EQ(1 + GROWTH_KEYS / 2, timed_of(self->fd));

	expect_expiry(_metadata, self->fd, from("192.0.2.1"), CFILTER_DROP_SRC,
		      CFILTER_PASS, t0, 1);
	ASSERT_EQ(0, cf_batch_by(self->fd, CFILTER_BATCH_TEST, "feed", 0, keys,
				 NULL, results, GROWTH_KEYS, &b));
	EXPECT_EQ((__u32)GROWTH_KEYS, b.first_error)
		TH_LOG("key %u lost", b.first_error);
	EXPECT_EQ(GROWTH_KEYS / 2, timed_of(self->fd));
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	feed = source_in(&s, "feed");
	ASSERT_NE(NULL, feed);
	EXPECT_EQ((__u64)GROWTH_KEYS, feed->entries);
	EXPECT_EQ((__u64)GROWTH_KEYS / 2, feed->timed);
	n = list_holdings(self->fd, "feed", e, GROWTH_KEYS + 2);
	ASSERT_EQ(GROWTH_KEYS, n);
	for (i = 0; i < n; i++) {
		/* 10.x.y.z: the key's number is x.y.z. */
		unsigned int k = e[i].key.saddr[1] << 16 |
				 e[i].key.saddr[2] << 8 | e[i].key.saddr[3];

		__u32 want_min = k % 2 ? 0 : 591, want_max = k % 2 ? 0 : 600;

		EXPECT_TRUE(e[i].timeout >= want_min && e[i].timeout <= want_max)
			TH_LOG("key %u: %u s left", k, e[i].timeout);
	}
	free(keys);
	free(timeouts);
	free(results);
	free(e);
}

/* INFO's timed counts holdings: two sources' timed holdings of one entry. */
TEST_F(src, info_counts_timed_holdings)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_key b = flow4("192.0.2.2", "192.0.2.3", IPPROTO_UDP, 1, 2);
	struct cfilter_key c = key_of(CFILTER_KEY_SRC6, "2001:db8::/32");

	EXPECT_EQ(0, timed_of(self->fd));
	ASSERT_EQ(0, cf_add(self->fd, &a, "x", 600));
	ASSERT_EQ(0, cf_add(self->fd, &a, "y", 600));
	ASSERT_EQ(0, cf_add(self->fd, &b, "x", 600));
	ASSERT_EQ(0, cf_add(self->fd, &c, "x", 0));
	EXPECT_EQ(3, timed_of(self->fd));
	EXPECT_EQ(3, cf_count(self->fd));
	ASSERT_EQ(EEXIST, cf_add(self->fd, &a, "y", 0));
	EXPECT_EQ(2, timed_of(self->fd));
	ASSERT_EQ(EEXIST, cf_add(self->fd, &c, "x", 600));
	EXPECT_EQ(3, timed_of(self->fd));
	ASSERT_EQ(0, cf_del(self->fd, &b, "x"));
	EXPECT_EQ(2, timed_of(self->fd));
	ASSERT_EQ(0, cf_flush(self->fd, "x"));
	EXPECT_EQ(0, timed_of(self->fd));
	EXPECT_EQ(1, cf_count(self->fd));
}

/* "default" counts: 31 named sources fill the set; nothing else comes in. */
TEST_F(src, a_source_past_the_thirty_second_is_eusers)
{
	struct cfilter_key shared = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_key fresh = key_of(CFILTER_KEY_SRC4, "192.0.2.2");
	struct cfilter_key both[2] = { fresh, shared };
	struct state before;
	struct cfilter_batch b;
	__s32 results[2];
	char name[16];
	int i;

	for (i = 0; i < CFILTER_SOURCES_MAX - 1; i++) {
		snprintf(name, sizeof(name), "s%02d", i);
		ASSERT_EQ(0, cf_add(self->fd, &shared, name, 0));
	}
	get_state(_metadata, self->fd, &before);
	ASSERT_EQ((__u32)CFILTER_SOURCES_MAX, before.sources.count);
	EXPECT_EQ(EUSERS, cf_add(self->fd, &fresh, "one-too-many", 0));
	EXPECT_EQ(EUSERS, cf_add(self->fd, &shared, "one-too-many", 60));
	ASSERT_EQ(0, cf_batch_by(self->fd, CFILTER_BATCH_ADD, "one-too-many", 0,
				 both, NULL, results, 2, &b));
	EXPECT_EQ(-EUSERS, results[0]);
	EXPECT_EQ(-EUSERS, results[1]);
	EXPECT_EQ(0U, b.first_error);
	expect_unchanged(_metadata, self->fd, &before, "EUSERS");
	EXPECT_EQ(ENOENT, cf_held(self->fd, &fresh, 0));
	EXPECT_EQ(CFILTER_PASS, verdict_of(self->fd, from("192.0.2.2")));
	/* The sources there still add; one that goes makes room. */
	EXPECT_EQ(0, cf_add(self->fd, &fresh, "", 0));
	EXPECT_EQ(0, cf_add(self->fd, &fresh, "s00", 0));
	ASSERT_EQ(0, cf_flush(self->fd, "s01"));
	EXPECT_EQ(0, cf_add(self->fd, &fresh, "one-too-many", 0));
}

TEST_F(src, stage_source_copies_the_live_set_without_that_source)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_key b = key_of(CFILTER_KEY_SRC4, "192.0.2.2");
	struct cfilter_key c = key_of(CFILTER_KEY_SRC4, "198.51.100.0/24");
	struct cfilter_key d = key_of(CFILTER_KEY_DST6, "2001:db8::9");
	const struct cfilter_source_info *admin;
	struct cfilter_sources s;
	struct state before;

	ASSERT_EQ(0, cf_add(self->fd, &a, "feed", 0));
	ASSERT_EQ(0, cf_add(self->fd, &b, "feed", 600));
	ASSERT_EQ(0, cf_add(self->fd, &b, "admin", 0));
	ASSERT_EQ(0, cf_add(self->fd, &c, "admin", 600));
	ASSERT_EQ(0, cf_add(self->fd, &d, "", 0));
	get_state(_metadata, self->fd, &before);
	ASSERT_EQ(0, cf_stage_source(self->fd, "feed"));

	EXPECT_EQ(ENOENT, cf_held(self->fd, &a, STAGED));
	EXPECT_EQ(0, cf_held(self->fd, &b, STAGED));
	EXPECT_EQ(ENOENT, hold(self->fd, CFILTER_IOC_TEST, &b, "feed", STAGED, 0));
	EXPECT_EQ(0, hold(self->fd, CFILTER_IOC_TEST, &b, "admin", STAGED, 0));
	EXPECT_EQ(0, cf_held(self->fd, &c, STAGED));
	EXPECT_EQ(0, cf_held(self->fd, &d, STAGED));
	EXPECT_EQ(2, cf_type_count(self->fd, CFILTER_KEY_SRC4, STAGED));
	ASSERT_EQ(0, cf_sources(self->fd, STAGED, &s));
	EXPECT_EQ(2U, s.count);
	EXPECT_STREQ("default", s.sources[0].name);
	EXPECT_EQ(1ULL, s.sources[0].entries);
	EXPECT_EQ(NULL, source_in(&s, "feed"));
	admin = source_in(&s, "admin");
	ASSERT_NE(NULL, admin);
	EXPECT_EQ(2ULL, admin->entries);
	EXPECT_EQ(1ULL, admin->timed);
	EXPECT_EQ(ENOENT, source_req(self->fd, CFILTER_IOC_FLUSH, "feed", STAGED));
	/* The live set is as it was, and serves packets. */
	expect_unchanged(_metadata, self->fd, &before, "STAGE_SOURCE");
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, from("192.0.2.1")));
	EXPECT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ABORT, NULL));
	expect_unchanged(_metadata, self->fd, &before, "ABORT");
}

/*
 * COMMIT: the replaced source's old-only entries go, its new ones come,
 * what it held old and new stays, and the other sources' are untouched.
 */
TEST_F(src, commit_replaces_the_holdings_of_that_source_only)
{
	struct cfilter_key old_only = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_key kept = key_of(CFILTER_KEY_SRC4, "192.0.2.2");
	struct cfilter_key fresh = key_of(CFILTER_KEY_SRC4, "192.0.2.3");
	struct cfilter_key shared = key_of(CFILTER_KEY_SRC4, "192.0.2.4");
	struct cfilter_key other = key_of(CFILTER_KEY_SRC4, "192.0.2.5");
	struct cfilter_sources s;

	ASSERT_EQ(0, cf_add(self->fd, &old_only, "feed", 0));
	ASSERT_EQ(0, cf_add(self->fd, &kept, "feed", 0));
	ASSERT_EQ(0, cf_add(self->fd, &shared, "feed", 0));
	ASSERT_EQ(0, cf_add(self->fd, &shared, "admin", 0));
	ASSERT_EQ(0, cf_add(self->fd, &other, "admin", 0));
	ASSERT_EQ(0, cf_stage_source(self->fd, "feed"));
	ASSERT_EQ(0, hold(self->fd, CFILTER_IOC_ADD, &kept, "feed", STAGED, 0));
	ASSERT_EQ(0, hold(self->fd, CFILTER_IOC_ADD, &fresh, "feed", STAGED, 0));
	/* Nothing shows before COMMIT. */
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, from("192.0.2.1")));
	EXPECT_EQ(CFILTER_PASS, verdict_of(self->fd, from("192.0.2.3")));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));

	EXPECT_EQ(CFILTER_PASS, verdict_of(self->fd, from("192.0.2.1")));
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, from("192.0.2.2")));
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, from("192.0.2.3")));
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, from("192.0.2.4")));
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, from("192.0.2.5")));
	EXPECT_EQ(ENOENT, cf_test(self->fd, &shared, "feed"));
	EXPECT_EQ(0, cf_test(self->fd, &shared, "admin"));
	EXPECT_EQ(4, cf_count(self->fd));
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	ASSERT_NE(NULL, source_in(&s, "feed"));
	ASSERT_NE(NULL, source_in(&s, "admin"));
	EXPECT_EQ(2ULL, source_in(&s, "feed")->entries);
	EXPECT_EQ(2ULL, source_in(&s, "admin")->entries);
	/* The committed set is the live one: plain requests reach it. */
	EXPECT_EQ(0, cf_del(self->fd, &fresh, "feed"));
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
}

/* Between STAGE_SOURCE and COMMIT, live changes reach the copy too. */
TEST_F(src, live_changes_during_stage_source_survive_commit)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_key b = key_of(CFILTER_KEY_SRC4, "192.0.2.2");
	struct cfilter_key c = key_of(CFILTER_KEY_SRC4, "192.0.2.3");
	struct cfilter_key d = key_of(CFILTER_KEY_SRC4, "192.0.2.4");
	struct cfilter_key e = key_of(CFILTER_KEY_SRC4, "192.0.2.5");
	struct cfilter_key f = key_of(CFILTER_KEY_SRC4, "192.0.2.6");
	struct cfilter_entry held[8];
	struct cfilter_sources s;
	int fd2 = open(CFILTER_DEVICE, O_RDWR);

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, cf_add(self->fd, &a, "feed", 0));
	ASSERT_EQ(0, cf_add(self->fd, &b, "admin", 0));
	ASSERT_EQ(0, cf_add(self->fd, &c, "admin", 0));
	ASSERT_EQ(0, cf_add(self->fd, &d, "jail", 0));
	ASSERT_EQ(0, cf_stage_source(self->fd, "feed"));
	/* Another writer, on its own file, meanwhile. */
	ASSERT_EQ(0, cf_add(fd2, &e, "admin", 600));
	ASSERT_EQ(0, cf_del(fd2, &c, "admin"));
	ASSERT_EQ(0, cf_flush(fd2, "jail"));
	ASSERT_EQ(0, cf_add(fd2, &a, "admin", 0));
	ASSERT_EQ(0, hold(self->fd, CFILTER_IOC_ADD, &f, "feed", STAGED, 0));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));

	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, from("192.0.2.1")));
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, from("192.0.2.2")));
	EXPECT_EQ(CFILTER_PASS, verdict_of(self->fd, from("192.0.2.3")));
	EXPECT_EQ(CFILTER_PASS, verdict_of(self->fd, from("192.0.2.4")));
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, from("192.0.2.5")));
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, from("192.0.2.6")));
	EXPECT_EQ(ENOENT, cf_test(self->fd, &a, "feed"));
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	EXPECT_EQ(3U, s.count);
	EXPECT_EQ(NULL, source_in(&s, "jail"));
	ASSERT_NE(NULL, source_in(&s, "admin"));
	EXPECT_EQ(3ULL, source_in(&s, "admin")->entries);
	EXPECT_EQ(1ULL, source_in(&s, "admin")->timed);
	/* The live ADD's timeout came through. */
	ASSERT_EQ(3, list_holdings(self->fd, "admin", held, 8));
	ASSERT_NE(NULL, entry_in(held, 3, &e, "admin"));
	EXPECT_LT(590U, entry_in(held, 3, &e, "admin")->timeout);
	close(fd2);
}

/* Expects @source to hold exactly the @n keys @keys, permanently. */
static void expect_holds_exactly(struct __test_metadata *_metadata, int fd,
				 const char *source,
				 const struct cfilter_key *keys, int n)
{
	struct cfilter_entry held[STATE_MAX];
	const struct cfilter_entry *e;
	int got, i;

	got = list_holdings(fd, source, held, STATE_MAX);
	EXPECT_EQ(n, got) TH_LOG("%s's holdings", source);
	for (i = 0; i < n; i++) {
		e = entry_in(held, got, &keys[i], source);
		EXPECT_NE(NULL, e) TH_LOG("%s lacks %s", source,
					  addr4(&keys[i]));
		if (e)
			EXPECT_EQ(0U, e->timeout) TH_LOG("%s", addr4(&keys[i]));
	}
}

/*
 * A FLUSH of the source being replaced, on the live set, between two
 * parts of its new holdings staged: it removes the old ones, which the
 * COMMIT replaces anyway, and the COMMIT publishes the whole new feed, as
 * if the FLUSH had come first. (Made to the copy as well, it wiped the
 * part staged so far, and the COMMIT published the rest alone: no order of
 * the two gives that.) Other sources' holdings stay.
 */
TEST_F(src, flush_during_replace_of_that_source_keeps_the_whole_new_feed)
{
	struct cfilter_key old = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_key other = key_of(CFILTER_KEY_SRC4, "192.0.2.9");
	struct cfilter_key feed[4];
	int fd2 = open(CFILTER_DEVICE, O_RDWR);
	int i;

	ASSERT_LE(0, fd2);
	for (i = 0; i < 4; i++)
		feed[i] = nth_key4(i);
	ASSERT_EQ(0, cf_add(self->fd, &old, "feed", 0));
	ASSERT_EQ(0, cf_add(self->fd, &feed[0], "feed", 0));
	ASSERT_EQ(0, cf_add(self->fd, &other, "admin", 0));
	ASSERT_EQ(0, cf_stage_source(self->fd, "feed"));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, hold(self->fd, CFILTER_IOC_ADD, &feed[i], "feed",
				  STAGED, 0));
	ASSERT_EQ(0, cf_flush(fd2, "feed"));
	EXPECT_EQ(ENOENT, cf_held(self->fd, &old, 0));
	EXPECT_EQ(ENOENT, cf_held(self->fd, &feed[0], 0));
	for (i = 2; i < 4; i++)
		ASSERT_EQ(0, hold(self->fd, CFILTER_IOC_ADD, &feed[i], "feed",
				  STAGED, 0));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));

	expect_holds_exactly(_metadata, self->fd, "feed", feed, 4);
	EXPECT_EQ(ENOENT, cf_held(self->fd, &old, 0));
	expect_holds_exactly(_metadata, self->fd, "admin", &other, 1);
	EXPECT_EQ(5, cf_count(self->fd));
	close(fd2);
}

/*
 * Likewise an ADD and a DEL by the source being replaced, on the live
 * set, and a DEL by every source: what they do to its holdings, the
 * COMMIT replaces, as if they had come first; what they do to the other
 * sources' stays. Made to the copy as well, they mixed into the new feed
 * (an entry the file lacks, a timeout it does not give, a staged entry
 * deleted), each as if it came after the COMMIT, in an order that the
 * live set, old feed and all until the COMMIT, never went through.
 */
TEST_F(src, live_writes_of_the_source_being_replaced_give_way_to_its_new_feed)
{
	struct cfilter_key old = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_key extra = key_of(CFILTER_KEY_SRC4, "192.0.2.2");
	struct cfilter_key shared = key_of(CFILTER_KEY_SRC4, "192.0.2.3");
	struct cfilter_key feed[3];
	int fd2 = open(CFILTER_DEVICE, O_RDWR);
	int i;

	ASSERT_LE(0, fd2);
	for (i = 0; i < 3; i++)
		feed[i] = nth_key4(i);
	feed[2] = shared;
	ASSERT_EQ(0, cf_add(self->fd, &old, "feed", 0));
	ASSERT_EQ(0, cf_add(self->fd, &feed[0], "feed", 0));
	ASSERT_EQ(0, cf_add(self->fd, &shared, "admin", 0));
	ASSERT_EQ(0, cf_stage_source(self->fd, "feed"));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, hold(self->fd, CFILTER_IOC_ADD, &feed[i], "feed",
				  STAGED, 0));

	ASSERT_EQ(0, cf_add(fd2, &extra, "feed", 0));
	ASSERT_EQ(0, cf_del(fd2, &feed[0], "feed"));
	ASSERT_EQ(ENOENT, cf_del(fd2, &feed[1], "feed"));
	ASSERT_EQ(0, cf_add(fd2, &feed[1], "feed", 600));
	ASSERT_EQ(0, hold(fd2, CFILTER_IOC_DEL, &shared, "", ALL, 0));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));

	expect_holds_exactly(_metadata, self->fd, "feed", feed, 3);
	EXPECT_EQ(ENOENT, cf_held(self->fd, &old, 0));
	EXPECT_EQ(ENOENT, cf_held(self->fd, &extra, 0));
	EXPECT_EQ(ENOENT, cf_test(self->fd, &shared, "admin"));
	EXPECT_EQ(3, cf_count(self->fd));
	close(fd2);
}

/* A feed's first replace: no holdings of its own to leave out. */
TEST_F(src, stage_source_of_a_new_source_leaves_nothing_out)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_key b = key_of(CFILTER_KEY_SRC4, "192.0.2.2");

	ASSERT_EQ(0, cf_add(self->fd, &a, "admin", 0));
	ASSERT_EQ(0, cf_stage_source(self->fd, "feed"));
	EXPECT_EQ(0, cf_held(self->fd, &a, STAGED));
	ASSERT_EQ(0, hold(self->fd, CFILTER_IOC_ADD, &b, "feed", STAGED, 0));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	EXPECT_EQ(0, cf_test(self->fd, &a, "admin"));
	EXPECT_EQ(0, cf_test(self->fd, &b, "feed"));
	EXPECT_EQ(2, cf_count(self->fd));
}

TEST_F(src, second_stage_source_is_ebusy)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	int fd2 = open(CFILTER_DEVICE, O_RDWR);

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, cf_add(self->fd, &a, "feed", 0));
	ASSERT_EQ(0, cf_stage_source(self->fd, "feed"));
	EXPECT_EQ(EBUSY, cf_stage_source(self->fd, "feed"));
	EXPECT_EQ(EBUSY, cf_stage_source(self->fd, "other"));
	EXPECT_EQ(EBUSY, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
	/* One copy at a time, whichever file asks. */
	EXPECT_EQ(EBUSY, cf_stage_source(fd2, "other"));
	/* A plain staged set is no copy. */
	EXPECT_EQ(0, cf_ioctl(fd2, CFILTER_IOC_STAGE, NULL));
	EXPECT_EQ(EBUSY, cf_stage_source(fd2, "other"));
	EXPECT_EQ(0, cf_ioctl(fd2, CFILTER_IOC_ABORT, NULL));
	/* The first copy is still there and still works. */
	EXPECT_EQ(ENOENT, cf_held(self->fd, &a, STAGED));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ABORT, NULL));
	EXPECT_EQ(0, cf_stage_source(fd2, "other"));
	EXPECT_EQ(0, cf_held(fd2, &a, STAGED));
	EXPECT_EQ(0, cf_ioctl(fd2, CFILTER_IOC_ABORT, NULL));
	close(fd2);
}

TEST_F(src, closing_the_file_drops_its_copy)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	int fd2 = open(CFILTER_DEVICE, O_RDWR);

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, cf_stage_source(fd2, "feed"));
	close(fd2);
	/* A change the copy would follow, were it still there. */
	ASSERT_EQ(0, cf_add(self->fd, &a, "admin", 0));
	ASSERT_EQ(0, cf_stage_source(self->fd, "feed"));
	EXPECT_EQ(0, cf_held(self->fd, &a, STAGED));
	EXPECT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, from("192.0.2.1")));
}

TEST_F(src, clear_during_stage_source_makes_commit_estale)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_key b = key_of(CFILTER_KEY_SRC4, "192.0.2.2");
	struct cfilter_sources s;

	ASSERT_EQ(0, cf_add(self->fd, &a, "admin", 0));
	ASSERT_EQ(0, cf_stage_source(self->fd, "feed"));
	ASSERT_EQ(0, hold(self->fd, CFILTER_IOC_ADD, &b, "feed", STAGED, 0));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_CLEAR, NULL));
	EXPECT_EQ(ESTALE, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	/* The cleared set stays live; the copy is gone. */
	EXPECT_EQ(0, cf_count(self->fd));
	EXPECT_EQ(CFILTER_PASS, verdict_of(self->fd, from("192.0.2.1")));
	EXPECT_EQ(CFILTER_PASS, verdict_of(self->fd, from("192.0.2.2")));
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	EXPECT_EQ(1U, s.count);
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_ABORT, NULL));
	/* Try again: a new copy of the new live set. */
	ASSERT_EQ(0, cf_stage_source(self->fd, "feed"));
	ASSERT_EQ(0, hold(self->fd, CFILTER_IOC_ADD, &b, "feed", STAGED, 0));
	EXPECT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, from("192.0.2.2")));
}

TEST_F(src, another_commit_during_stage_source_makes_it_estale)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_key b = key_of(CFILTER_KEY_SRC4, "192.0.2.2");
	int fd2 = open(CFILTER_DEVICE, O_RDWR);

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, cf_stage_source(self->fd, "feed"));
	ASSERT_EQ(0, cf_ioctl(fd2, CFILTER_IOC_STAGE, NULL));
	ASSERT_EQ(0, hold(fd2, CFILTER_IOC_ADD, &a, "admin", STAGED, 0));
	ASSERT_EQ(0, cf_ioctl(fd2, CFILTER_IOC_COMMIT, NULL));
	ASSERT_EQ(0, hold(self->fd, CFILTER_IOC_ADD, &b, "feed", STAGED, 0));
	EXPECT_EQ(ESTALE, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	EXPECT_EQ(CFILTER_DROP_SRC, verdict_of(self->fd, from("192.0.2.1")));
	EXPECT_EQ(CFILTER_PASS, verdict_of(self->fd, from("192.0.2.2")));
	close(fd2);
}

/*
 * A holding the copy took from the live set keeps its deadline: it expires
 * in both at once, and one still running at COMMIT expires after it, as
 * does a timed holding staged into the copy.
 */
TEST_F(src, timed_holdings_expire_in_the_copy_and_after_commit)
{
	struct cfilter_key x = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_key y = key_of(CFILTER_KEY_SRC4, "192.0.2.2");
	struct cfilter_key z = key_of(CFILTER_KEY_SRC4, "192.0.2.3");
	struct cfilter_entry e[4];
	long long t0 = now_ms(), t1;

	ASSERT_EQ(0, cf_add(self->fd, &x, "admin", 1));
	ASSERT_EQ(0, cf_add(self->fd, &z, "admin", 2));
	ASSERT_EQ(0, cf_stage_source(self->fd, "feed"));
	t1 = now_ms();
	ASSERT_EQ(0, hold(self->fd, CFILTER_IOC_ADD, &y, "feed", STAGED, 2));
	expect_expiry(_metadata, self->fd, from("192.0.2.1"), CFILTER_DROP_SRC,
		      CFILTER_PASS, t0, 1);
	EXPECT_EQ(ENOENT, cf_held(self->fd, &x, STAGED));
	EXPECT_EQ(0, cf_held(self->fd, &z, STAGED));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	ASSERT_EQ(1, list_holdings(self->fd, "admin", e, 4));
	EXPECT_GE(2U, e[0].timeout);
	EXPECT_EQ(2, timed_of(self->fd));
	expect_expiry(_metadata, self->fd, from("192.0.2.3"), CFILTER_DROP_SRC,
		      CFILTER_PASS, t0, 2);
	expect_expiry(_metadata, self->fd, from("192.0.2.2"), CFILTER_DROP_SRC,
		      CFILTER_PASS, t1, 2);
	EXPECT_EQ(0, cf_count(self->fd));
}

/* The age LIST reports for the holding of @key by @source; -1 if none. */
static long long age_of(int fd, const struct cfilter_key *key,
			const char *source)
{
	struct cfilter_entry e[16];
	const struct cfilter_entry *x;
	int n = list_holdings(fd, NULL, e, 16);

	x = n > 0 ? entry_in(e, n, key, source) : NULL;
	return x ? (long long)x->age : -1;
}

/*
 * A holding's age: from its ADD, or as BATCH's ages give it (a restored
 * snapshot's); kept through a refreshed timeout, a move between timed and
 * permanent and a STAGE_SOURCE copy; unknown for "default"'s unrecorded
 * holdings, also once another source shares their entry.
 */
TEST_F(src, list_reports_how_long_ago_each_holding_was_added)
{
	struct cfilter_key k[2] = {
		key_of(CFILTER_KEY_SRC4, "192.0.2.1"),
		key_of(CFILTER_KEY_SRC6, "2001:db8::/32"),
	};
	struct cfilter_key d = key_of(CFILTER_KEY_SRC4, "192.0.2.9");
	struct cfilter_key t = key_of(CFILTER_KEY_SRC4, "192.0.2.10");
	__u32 timeouts[2] = { 600, 0 }, ages[2] = { 3600, CFILTER_AGE_UNKNOWN };
	struct cfilter_batch b;
	__s32 results[2];

	batch_req(&b, CFILTER_BATCH_ADD, "crowdsec", 0, k, timeouts, results,
		  2);
	b.ages = (uintptr_t)ages;
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_BATCH, &b));
	ASSERT_EQ(0, results[0]);
	ASSERT_EQ(0, results[1]);
	EXPECT_LE(3600, age_of(self->fd, &k[0], "crowdsec"));
	EXPECT_GE(3605, age_of(self->fd, &k[0], "crowdsec"));
	EXPECT_EQ(CFILTER_AGE_UNKNOWN, age_of(self->fd, &k[1], "crowdsec"));

	ASSERT_EQ(0, cf_add(self->fd, &k[0], "f2b", 60));
	EXPECT_GE(5, age_of(self->fd, &k[0], "f2b"));
	/* Refreshed, then made permanent, then timed again: the same age. */
	ASSERT_EQ(EEXIST, cf_add(self->fd, &k[0], "crowdsec", 1200));
	EXPECT_LE(3600, age_of(self->fd, &k[0], "crowdsec"));
	ASSERT_EQ(EEXIST, cf_add(self->fd, &k[0], "crowdsec", 0));
	EXPECT_LE(3600, age_of(self->fd, &k[0], "crowdsec"));
	ASSERT_EQ(EEXIST, cf_add(self->fd, &k[0], "crowdsec", 300));
	EXPECT_LE(3600, age_of(self->fd, &k[0], "crowdsec"));

	/* default's own: unrecorded; recorded when timed. */
	ASSERT_EQ(0, cf_add(self->fd, &d, "", 0));
	EXPECT_EQ(CFILTER_AGE_UNKNOWN, age_of(self->fd, &d, "default"));
	ASSERT_EQ(0, cf_add(self->fd, &d, "f2b", 0));
	EXPECT_EQ(CFILTER_AGE_UNKNOWN, age_of(self->fd, &d, "default"));
	EXPECT_GE(5, age_of(self->fd, &d, "f2b"));
	ASSERT_EQ(0, cf_add(self->fd, &t, "", 100));
	EXPECT_GE(5, age_of(self->fd, &t, "default"));

	/* A source replaced through STAGE_SOURCE: the others keep theirs. */
	ASSERT_EQ(0, cf_stage_source(self->fd, "feed"));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	EXPECT_LE(3600, age_of(self->fd, &k[0], "crowdsec"));
	EXPECT_EQ(CFILTER_AGE_UNKNOWN, age_of(self->fd, &k[1], "crowdsec"));
	EXPECT_EQ(CFILTER_AGE_UNKNOWN, age_of(self->fd, &d, "default"));
	EXPECT_GE(5, age_of(self->fd, &d, "f2b"));
}

/* A plain staged set's timed holding expires, staged or committed. */
TEST_F(src, staged_timed_holding_expires_before_and_after_commit)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	long long t0 = now_ms(), ms;

	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
	ASSERT_EQ(0, hold(self->fd, CFILTER_IOC_ADD, &a, "feed", STAGED, 1));
	ms = wait_gone(self->fd, &a, STAGED, t0, 1000 + EXPIRY_SLACK_MS);
	EXPECT_LE(0, ms) TH_LOG("still in the staged set");
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	t0 = now_ms();
	ms = wait_verdict(_metadata, self->fd, from("192.0.2.1"),
			  CFILTER_DROP_SRC, CFILTER_PASS, t0, EXPIRY_SLACK_MS);
	EXPECT_LE(0, ms) TH_LOG("expired holding still drops after COMMIT");
	EXPECT_EQ(0, timed_of(self->fd));
}

TEST_F(src, timeout_past_the_maximum_is_einval)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_key k[2] = {
		key_of(CFILTER_KEY_SRC4, "192.0.2.2"),
		key_of(CFILTER_KEY_SRC4, "192.0.2.3"),
	};
	__u32 timeouts[2] = { 5, CFILTER_TIMEOUT_MAX + 1 };
	struct cfilter_entry e[4];
	struct cfilter_batch b;
	struct state before;
	__s32 results[2];

	ASSERT_EQ(0, cf_add(self->fd, &a, "feed", 0));
	get_state(_metadata, self->fd, &before);
	EXPECT_EQ(EINVAL, cf_add(self->fd, &a, "feed", CFILTER_TIMEOUT_MAX + 1));
	EXPECT_EQ(EINVAL, cf_add(self->fd, &k[0], "feed", 0xffffffff));
	EXPECT_EQ(EINVAL, cf_batch_by(self->fd, CFILTER_BATCH_ADD, "feed", 0, k,
				      timeouts, results, 2, &b));
	EXPECT_EQ(1U, b.first_error);
	expect_unchanged(_metadata, self->fd, &before, "too long a timeout");
	/* The maximum itself is fine. */
	ASSERT_EQ(0, cf_add(self->fd, &k[0], "feed", CFILTER_TIMEOUT_MAX));
	ASSERT_EQ(0, cf_add(self->fd, &k[1], "", CFILTER_TIMEOUT_MAX));
	ASSERT_EQ(1, list_holdings(self->fd, "", e, 4));
	EXPECT_LE(CFILTER_TIMEOUT_MAX - 10, e[0].timeout);
	EXPECT_EQ(2, timed_of(self->fd));
}

TEST_F(src, timeout_on_del_or_test_is_einval)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	__u32 timeouts[1] = { 0 };
	struct cfilter_batch b;
	struct state before;
	__s32 results[1];

	ASSERT_EQ(0, cf_add(self->fd, &a, "feed", 0));
	get_state(_metadata, self->fd, &before);
	EXPECT_EQ(EINVAL, hold(self->fd, CFILTER_IOC_DEL, &a, "feed", 0, 1));
	EXPECT_EQ(EINVAL, hold(self->fd, CFILTER_IOC_DEL, &a, "", ALL, 1));
	EXPECT_EQ(EINVAL, hold(self->fd, CFILTER_IOC_TEST, &a, "feed", 0, 1));
	EXPECT_EQ(EINVAL, hold(self->fd, CFILTER_IOC_TEST, &a, "", ALL, 1));
	/* BATCH: a timeouts array at all, zeros or not, is ADD's only. */
	EXPECT_EQ(EINVAL, cf_batch_by(self->fd, CFILTER_BATCH_DEL, "feed", 0,
				      &a, timeouts, results, 1, &b));
	EXPECT_EQ(EINVAL, cf_batch_by(self->fd, CFILTER_BATCH_TEST, "feed", 0,
				      &a, timeouts, results, 1, &b));
	expect_unchanged(_metadata, self->fd, &before, "a timeout on DEL/TEST");
}

static const char * const bad_text[] = {
	"-feed", "-", "fail 2ban", "a/b", "a,b", "*", "feed\n", "\t",
	"f\xc3\xa9", "a\\b", "a'b", "#",
};

/* bad_text[], then a name without its NUL and one with a byte after it. */
#define BAD_NAMES	(ARRAY_SIZE(bad_text) + 2)

/* Bad source name @i as a request carries it, and what is wrong with it. */
static void bad_name(unsigned int i, char name[CFILTER_SOURCE_LEN],
		     const char **what)
{
	memset(name, 0, CFILTER_SOURCE_LEN);
	if (i < ARRAY_SIZE(bad_text)) {
		memcpy(name, bad_text[i], strlen(bad_text[i]));
		*what = bad_text[i];
	} else if (i == ARRAY_SIZE(bad_text)) {
		memset(name, 'a', CFILTER_SOURCE_LEN);
		*what = "32 bytes without a NUL";
	} else {
		name[0] = 'a';
		name[CFILTER_SOURCE_LEN - 1] = 'b';
		*what = "a byte after the NUL";
	}
}

/* Every request naming a source refuses a malformed one, changing nothing. */
TEST_F(src, malformed_source_names_are_einval_everywhere)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_source_req sr;
	struct cfilter_key_req req;
	struct cfilter_entry e[4];
	struct cfilter_batch b;
	struct cfilter_list l;
	struct state before;
	__s32 results[1];
	const char *what;
	unsigned int i;

	ASSERT_EQ(0, cf_add(self->fd, &a, "feed", 0));
	get_state(_metadata, self->fd, &before);
	for (i = 0; i < BAD_NAMES; i++) {
		memset(&req, 0, sizeof(req));
		req.key = a;
		bad_name(i, req.source, &what);
		EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req))
			TH_LOG("ADD by %s", what);
		EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_DEL, &req))
			TH_LOG("DEL by %s", what);
		EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_TEST, &req))
			TH_LOG("TEST by %s", what);
		req.timeout = 60;
		EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req))
			TH_LOG("timed ADD by %s", what);

		memset(&sr, 0, sizeof(sr));
		memcpy(sr.source, req.source, sizeof(sr.source));
		EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_FLUSH, &sr))
			TH_LOG("FLUSH of %s", what);
		EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_STAGE_SOURCE,
					   &sr))
			TH_LOG("STAGE_SOURCE of %s", what);

		list_req(&l, e, 4, "", 0);
		memcpy(l.source, req.source, sizeof(l.source));
		EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_LIST, &l))
			TH_LOG("LIST of %s", what);

		batch_req(&b, CFILTER_BATCH_ADD, "", 0, &a, NULL, results, 1);
		memcpy(b.source, req.source, sizeof(b.source));
		EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_BATCH, &b))
			TH_LOG("BATCH ADD by %s", what);
		b.op = CFILTER_BATCH_DEL;
		EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_BATCH, &b))
			TH_LOG("BATCH DEL by %s", what);
		b.op = CFILTER_BATCH_TEST;
		EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_BATCH, &b))
			TH_LOG("BATCH TEST by %s", what);
	}
	expect_unchanged(_metadata, self->fd, &before, "malformed names");
	/* No STAGE_SOURCE took: nothing is staged. */
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_ABORT, NULL));
}

TEST_F(src, well_formed_source_names_are_accepted)
{
	static const char * const names[] = {
		"azAZ09_.:@-", "a-", "crowdsec:cscli@host-1.example",
		"abcdefghijklmnopqrstuvwxyz01234",	/* 31: the longest */
		"0", "_", ".", ":", "@",
	};
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_entry e[4];
	struct cfilter_sources s;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		ASSERT_EQ(0, cf_add(self->fd, &a, names[i], 0))
			TH_LOG("%s", names[i]);
	}
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	EXPECT_EQ(ARRAY_SIZE(names) + 1, s.count);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		ASSERT_NE(NULL, source_in(&s, names[i])) TH_LOG("%s", names[i]);
		EXPECT_EQ(1ULL, source_in(&s, names[i])->entries);
		ASSERT_EQ(1, list_holdings(self->fd, names[i], e, 4));
		EXPECT_STREQ(names[i], e[0].source);
		EXPECT_EQ(0, cf_test(self->fd, &a, names[i]));
		EXPECT_EQ(0, cf_flush(self->fd, names[i]));
	}
	EXPECT_EQ(0, cf_count(self->fd));
}

TEST_F(src, unknown_and_misplaced_flags_are_einval)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	static const __u32 unknown[] = { 1U << 2, 1U << 31 };
	struct cfilter_sources s;
	struct cfilter_entry e[4];
	struct cfilter_batch b;
	struct cfilter_list l;
	struct state before;
	__s32 results[1];
	size_t i;

	ASSERT_EQ(0, cf_add(self->fd, &a, "feed", 0));
	get_state(_metadata, self->fd, &before);
	/* ALL_SOURCES: not for ADD; DEL with it names no source. */
	EXPECT_EQ(EINVAL, hold(self->fd, CFILTER_IOC_ADD, &a, "", ALL, 0));
	EXPECT_EQ(EINVAL, hold(self->fd, CFILTER_IOC_DEL, &a, "feed", ALL, 0));
	EXPECT_EQ(EINVAL, cf_batch_by(self->fd, CFILTER_BATCH_ADD, "", ALL, &a,
				      NULL, results, 1, &b));
	EXPECT_EQ(EINVAL, cf_batch_by(self->fd, CFILTER_BATCH_DEL, "feed", ALL,
				      &a, NULL, results, 1, &b));
	for (i = 0; i < ARRAY_SIZE(unknown); i++) {
		EXPECT_EQ(EINVAL, hold(self->fd, CFILTER_IOC_ADD, &a, "feed",
				       unknown[i], 0));
		EXPECT_EQ(EINVAL, hold(self->fd, CFILTER_IOC_DEL, &a, "feed",
				       unknown[i], 0));
		EXPECT_EQ(EINVAL, hold(self->fd, CFILTER_IOC_TEST, &a, "feed",
				       unknown[i], 0));
		EXPECT_EQ(EINVAL, source_req(self->fd, CFILTER_IOC_FLUSH,
					     "feed", unknown[i]));
		EXPECT_EQ(EINVAL, source_req(self->fd, CFILTER_IOC_STAGE_SOURCE,
					     "feed", unknown[i]));
		EXPECT_EQ(EINVAL, cf_sources(self->fd, unknown[i], &s));
	}
	/* FLUSH takes STAGED only, STAGE_SOURCE nothing, SOURCES STAGED. */
	EXPECT_EQ(EINVAL, source_req(self->fd, CFILTER_IOC_FLUSH, "feed", ALL));
	EXPECT_EQ(EINVAL, source_req(self->fd, CFILTER_IOC_STAGE_SOURCE, "feed",
				     STAGED));
	EXPECT_EQ(EINVAL, source_req(self->fd, CFILTER_IOC_STAGE_SOURCE, "feed",
				     ALL));
	EXPECT_EQ(EINVAL, cf_sources(self->fd, ALL, &s));
	/* STAGED names this file's staged set, and there is none. */
	EXPECT_EQ(EINVAL, cf_sources(self->fd, STAGED, &s));
	EXPECT_EQ(EINVAL, source_req(self->fd, CFILTER_IOC_FLUSH, "feed",
				     STAGED));
	list_req(&l, e, 4, "feed", STAGED);
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_LIST, &l));
	expect_unchanged(_metadata, self->fd, &before, "bad flags");
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_ABORT, NULL));
}

TEST_F(src, nonzero_pad_or_reserved_is_einval)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	static const unsigned long cmds[] = {
		CFILTER_IOC_FLUSH, CFILTER_IOC_STAGE_SOURCE,
	};
	struct cfilter_source_req sr;
	struct cfilter_sources s;
	struct cfilter_entry e[4];
	struct cfilter_batch b;
	struct cfilter_list l;
	struct state before;
	__s32 results[1];
	size_t i;
	int j;

	ASSERT_EQ(0, cf_add(self->fd, &a, "feed", 0));
	get_state(_metadata, self->fd, &before);
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		memset(&sr, 0, sizeof(sr));
		set_name(sr.source, "feed");
		sr.pad = 1;
		EXPECT_EQ(EINVAL, cf_ioctl(self->fd, cmds[i], &sr));
		sr.pad = 0;
		sr.reserved = 1ULL << 63;
		EXPECT_EQ(EINVAL, cf_ioctl(self->fd, cmds[i], &sr));
	}
	memset(&s, 0, sizeof(s));
	s.reserved = 1;
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_SOURCES, &s));
	for (j = 0; j < 3; j++) {
		batch_req(&b, CFILTER_BATCH_DEL, "feed", 0, &a, NULL, results,
			  1);
		if (j == 0)
			b.pad = 1;
		else if (j == 1)
			b.reserved = 1;
		else
			b.ages = (uintptr_t)results;
		EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_BATCH, &b))
			TH_LOG("batch case %d", j);
	}
	for (j = 0; j < 2; j++) {
		list_req(&l, e, 4, "feed", 0);
		if (j == 0)
			l.pad = 1;
		else
			l.reserved = 1;
		EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_LIST, &l))
			TH_LOG("list case %d", j);
	}
	expect_unchanged(_metadata, self->fd, &before, "nonzero pad");
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_ABORT, NULL));
}

TEST_F(src, bad_pointers_are_efault)
{
	static void * const ptrs[] = { NULL, (void *)1 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ptrs); i++) {
		EXPECT_EQ(EFAULT, cf_ioctl(self->fd, CFILTER_IOC_FLUSH, ptrs[i]));
		EXPECT_EQ(EFAULT, cf_ioctl(self->fd, CFILTER_IOC_SOURCES,
					   ptrs[i]));
		EXPECT_EQ(EFAULT, cf_ioctl(self->fd, CFILTER_IOC_STAGE_SOURCE,
					   ptrs[i]));
	}
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_ABORT, NULL));
}

/* What a caller without CAP_NET_ADMIN saw. */
struct unpriv_result {
	int flush, stage, sources, list, test;
	__u32 nsources;
};

/* run_as_nobody()'s child: @arg is a key source "feed" holds. */
static void unpriv_child(int fd, const void *arg, void *result)
{
	struct unpriv_result *r = result;
	struct cfilter_sources s;
	struct cfilter_entry e[2];

	r->flush = cf_flush(fd, "feed");
	r->stage = cf_stage_source(fd, "feed");
	r->sources = cf_sources(fd, 0, &s);
	r->nsources = s.count;
	r->list = list_holdings(fd, "feed", e, 2);
	r->test = cf_test(fd, arg, "feed");
}

/*
 * Dropping root loses CAP_NET_ADMIN: SOURCES, LIST and TEST still read,
 * FLUSH and STAGE_SOURCE are EPERM.
 */
TEST_F(src, unprivileged_reads_sources_but_cannot_flush_or_stage)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct unpriv_result r;

	ASSERT_EQ(0, cf_add(self->fd, &a, "feed", 0));
	ASSERT_EQ(0, run_as_nobody(unpriv_child, self->fd, &a, &r, sizeof(r)));
	EXPECT_EQ(EPERM, r.flush);
	EXPECT_EQ(EPERM, r.stage);
	EXPECT_EQ(0, r.sources);
	EXPECT_EQ(2U, r.nsources);
	EXPECT_EQ(1, r.list);
	EXPECT_EQ(0, r.test);
	EXPECT_EQ(0, cf_test(self->fd, &a, "feed"));
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_ABORT, NULL));
}

TEST_F(src, read_only_descriptor_cannot_flush_or_stage)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_sources s;
	int ro = open(CFILTER_DEVICE, O_RDONLY);

	ASSERT_LE(0, ro);
	ASSERT_EQ(0, cf_add(self->fd, &a, "feed", 0));
	EXPECT_EQ(EBADF, cf_flush(ro, "feed"));
	EXPECT_EQ(EBADF, cf_stage_source(ro, "feed"));
	EXPECT_EQ(EBADF, hold(ro, CFILTER_IOC_ADD, &a, "admin", 0, 60));
	EXPECT_EQ(0, cf_sources(ro, 0, &s));
	EXPECT_EQ(2U, s.count);
	EXPECT_EQ(0, cf_test(self->fd, &a, "feed"));
	EXPECT_EQ(ENOENT, cf_test(self->fd, &a, "admin"));
	/* No copy was made: this file may make one. */
	EXPECT_EQ(0, cf_stage_source(self->fd, "feed"));
	close(ro);
}

FIXTURE(compact) {
	int fd;
};

FIXTURE_SETUP(compact)
{
	int err;

	self->fd = -1;
	RELOAD_SETUP_UNLOAD();
	err = module_load("mode=compact");
	ASSERT_EQ(0, err) TH_LOG("loading mode=compact: %s", strerror(err));
	self->fd = open(CFILTER_DEVICE, O_RDWR);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(compact)
{
	if (self->fd >= 0)
		close(self->fd);
	RELOAD_TEARDOWN_DEFAULTS();
}

/*
 * Compact mode stores fingerprints: one source, "default", and no
 * timeouts. Anything else is EOPNOTSUPP and changes nothing.
 */
TEST_F(compact, compact_mode_knows_only_default_and_no_timeouts)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_key k[2] = {
		key_of(CFILTER_KEY_SRC4, "192.0.2.2"),
		key_of(CFILTER_KEY_SRC4, "192.0.2.3"),
	};
	__u32 timeouts[2] = { 0, 60 };
	struct cfilter_sources s;
	struct cfilter_batch b;
	__s32 results[2];

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, cf_add(self->fd, &a, "", 0));
	EXPECT_EQ(EEXIST, cf_add(self->fd, &a, "default", 0));
	EXPECT_EQ(EOPNOTSUPP, cf_add(self->fd, &k[0], "feed", 0));
	EXPECT_EQ(EOPNOTSUPP, cf_add(self->fd, &k[0], "", 60));
	EXPECT_EQ(EOPNOTSUPP, cf_add(self->fd, &a, "", 60));
	EXPECT_EQ(EOPNOTSUPP, cf_del(self->fd, &a, "feed"));
	EXPECT_EQ(EOPNOTSUPP, cf_test(self->fd, &a, "feed"));
	EXPECT_EQ(EOPNOTSUPP, cf_flush(self->fd, ""));
	EXPECT_EQ(EOPNOTSUPP, cf_flush(self->fd, "feed"));
	EXPECT_EQ(EOPNOTSUPP, cf_stage_source(self->fd, "feed"));
	ASSERT_EQ(0, cf_batch_by(self->fd, CFILTER_BATCH_ADD, "", 0, k,
				 timeouts, results, 2, &b));
	EXPECT_EQ(0, results[0]);
	EXPECT_EQ(-EOPNOTSUPP, results[1]);
	ASSERT_EQ(0, cf_batch_by(self->fd, CFILTER_BATCH_ADD, "feed", 0, k,
				 NULL, results, 2, &b));
	EXPECT_EQ(-EOPNOTSUPP, results[0]);
	EXPECT_EQ(-EOPNOTSUPP, results[1]);
	EXPECT_EQ(2, cf_count(self->fd));
	EXPECT_EQ(0, timed_of(self->fd));
	EXPECT_EQ(ENOENT, cf_held(self->fd, &k[1], 0));
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	ASSERT_EQ(1U, s.count);
	EXPECT_STREQ("default", s.sources[0].name);
	EXPECT_EQ(2ULL, s.sources[0].entries);
	EXPECT_EQ(0ULL, s.sources[0].timed);
	/* Default's requests work as ever. */
	EXPECT_EQ(0, cf_test(self->fd, &a, ""));
	EXPECT_EQ(0, cf_del(self->fd, &a, "default"));
	EXPECT_EQ(0, hold(self->fd, CFILTER_IOC_DEL, &k[0], "", ALL, 0));
	EXPECT_EQ(0, cf_count(self->fd));
}

/*
 * A filter of 64 keys per type that cannot grow, live or staged: its
 * table fills, and so do its records of holdings (twice the keys).
 */
FIXTURE(full) {
	int fd;
};

FIXTURE_VARIANT(full) {
	__u32 flags;
};

FIXTURE_VARIANT_ADD(full, live) {
	.flags = 0,
};

FIXTURE_VARIANT_ADD(full, staged) {
	.flags = STAGED,
};

FIXTURE_SETUP(full)
{
	int err;

	self->fd = -1;
	RELOAD_SETUP_UNLOAD();
	err = module_load("capacity=64 max_capacity=64");
	ASSERT_EQ(0, err) TH_LOG("loading capacity=64 max_capacity=64: %s",
				 strerror(err));
	self->fd = open(CFILTER_DEVICE, O_RDWR);
	ASSERT_LE(0, self->fd);
	if (variant->flags & STAGED)
		ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
}

FIXTURE_TEARDOWN(full)
{
	if (self->fd >= 0)
		close(self->fd);
	RELOAD_TEARDOWN_DEFAULTS();
}

/* More adds than a table of 64 keys, or its records, can take. */
#define FULL_MAX_ADDS	1024

/*
 * Adds key 0, 1, ... by @source until an ADD fails, which must be with
 * ENOSPC; returns how many were added.
 */
static unsigned int add_until_full(struct __test_metadata *_metadata, int fd,
				   const char *source, __u32 flags)
{
	struct cfilter_key k;
	unsigned int i;
	int err = 0;

	for (i = 0; i < FULL_MAX_ADDS && !err; i++) {
		k = nth_key4(i);
		err = hold(fd, CFILTER_IOC_ADD, &k, source, flags, 0);
	}
	EXPECT_EQ(ENOSPC, err) TH_LOG("%s after %u adds", source, i - 1);
	return i - 1;
}

/* How expect_failed_add() adds: ADD, permanent or timed, or BATCH ADD. */
enum failed_add { ADD_PERMANENT, ADD_TIMED, BATCH_FRESH_FIRST, BATCH_TIMED };

/*
 * Expects ENOSPC from ADD or BATCH ADD (@op) of @unrecorded, an entry
 * "default" holds unrecorded, by @source (a new one), in a set whose
 * table and records are full; BATCH puts @fresh, not in the table, first.
 * Then SOURCES must be @before.
 */
static void expect_failed_add(struct __test_metadata *_metadata, int fd,
			      __u32 flags, enum failed_add op,
			      const char *source,
			      const struct cfilter_key *unrecorded,
			      const struct cfilter_key *fresh,
			      const struct cfilter_sources *before)
{
	struct cfilter_key both[2] = { *fresh, *unrecorded };
	__u32 timeouts[2] = { 0, op == BATCH_TIMED ? 60 : 0 };
	struct cfilter_sources after;
	struct cfilter_batch b;
	__s32 results[2];

	switch (op) {
	case ADD_PERMANENT:
	case ADD_TIMED:
		EXPECT_EQ(ENOSPC, hold(fd, CFILTER_IOC_ADD, unrecorded, source,
				       flags, op == ADD_TIMED ? 60 : 0))
			TH_LOG("%s, op %d", source, op);
		break;
	default:
		ASSERT_EQ(0, cf_batch_by(fd, CFILTER_BATCH_ADD, source, flags,
					 both, timeouts, results, 2, &b));
		EXPECT_EQ(-ENOSPC, results[0]) TH_LOG("%s, op %d", source, op);
		EXPECT_EQ(-ENOSPC, results[1]) TH_LOG("%s, op %d", source, op);
		EXPECT_EQ(0U, b.first_error);
	}
	/* A source left behind is left by every such add: stop at the first. */
	ASSERT_EQ(0, cf_sources(fd, flags, &after));
	ASSERT_EQ(before->count, after.count) TH_LOG("%s, op %d", source, op);
	ASSERT_EQ(0, memcmp(before->sources, after.sources,
			    sizeof(after.sources)))
		TH_LOG("SOURCES changed: %s, op %d", source, op);
}

/*
 * An ADD or BATCH ADD that fails makes no source: new sources refused
 * for want of room (in the table, or in the records when "default" held
 * the entry unrecorded) leave SOURCES as it was, and never use up the
 * CFILTER_SOURCES_MAX - 1 free indexes.
 */
TEST_F(full, failed_adds_by_new_sources_leave_no_source)
{
	struct cfilter_key unrecorded, fresh, k;
	struct cfilter_sources before, after;
	__u32 flags = variant->flags;
	unsigned int stored, shared, i;
	char name[CFILTER_SOURCE_LEN];
	int op;

	if (_metadata->skip)
		return;
	/*
	 * Default's, unrecorded; then "feed"'s of the first ones, recorded
	 * with default's beside them, until the records are full.
	 */
	stored = add_until_full(_metadata, self->fd, "", flags);
	shared = add_until_full(_metadata, self->fd, "feed", flags);
	ASSERT_LT(shared, stored)
		TH_LOG("the records never ran out: no entry is left unrecorded");
	unrecorded = nth_key4(stored - 1);
	fresh = nth_key4(stored);
	ASSERT_EQ(0, cf_sources(self->fd, flags, &before));
	ASSERT_EQ(2U, before.count);

	for (i = 0; i < 2 * CFILTER_SOURCES_MAX; i++) {
		snprintf(name, sizeof(name), "b%02u", i);
		for (op = ADD_PERMANENT; op <= BATCH_TIMED; op++)
			expect_failed_add(_metadata, self->fd, flags, op, name,
					  &unrecorded, &fresh, &before);
	}
	EXPECT_EQ(stored, cf_type_count(self->fd, CFILTER_KEY_SRC4, flags));

	/* A record freed, a new source takes it. */
	k = nth_key4(0);
	ASSERT_EQ(0, hold(self->fd, CFILTER_IOC_DEL, &k, "feed", flags, 0));
	EXPECT_EQ(0, hold(self->fd, CFILTER_IOC_ADD, &k, "late", flags, 0));
	ASSERT_EQ(0, cf_sources(self->fd, flags, &after));
	EXPECT_EQ(3U, after.count);
}

/*
 * Drop counts of sources, counted by the XDP program (with counters of its
 * own, calling the kfunc for every frame): each test on a module loaded
 * for it, as the counts last until the module goes. The program holds the
 * module, and goes before the teardown reloads it.
 */
FIXTURE(drops) {
	int fd;
	struct cfilter_bpf *prog;
};

FIXTURE_SETUP(drops)
{
	int err;

	self->fd = -1;
	self->prog = NULL;
	RELOAD_SETUP_UNLOAD();
	err = module_load("");
	ASSERT_EQ(0, err) TH_LOG("loading %s: %s", module_file(),
				 strerror(err));
	self->fd = open(CFILTER_DEVICE, O_RDWR);
	ASSERT_LE(0, self->fd);
	libbpf_set_print(libbpf_print);
	self->prog = xdp_load_private(false);
	ASSERT_NE(NULL, self->prog)
		TH_LOG("loading cfilter_xdp: %s; the kfunc needs cfilter.ko loaded with BTF",
		       strerror(errno));
}

FIXTURE_TEARDOWN(drops)
{
	cfilter_bpf__destroy(self->prog);
	if (self->fd >= 0)
		close(self->fd);
	RELOAD_TEARDOWN_DEFAULTS();
}

/* @n frames from IPv4 address @saddr through the program: each dropped. */
static void drop_from(struct __test_metadata *_metadata,
		      struct cfilter_bpf *prog, const char *saddr, int n)
{
	struct frame f = frame4(saddr, 5);
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = f.data,
		.data_size_in = f.len,
		.repeat = 1,
	);
	int i;

	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, bpf_prog_test_run_opts(
				     bpf_program__fd(prog->progs.cfilter_xdp),
				     &opts));
		ASSERT_EQ(XDP_DROP, (int)opts.retval) TH_LOG("from %s", saddr);
	}
}

/* SOURCES lists @name with @entries entries and @drops drops. */
static void expect_source(struct __test_metadata *_metadata, int fd,
			  const char *name, __u64 entries, __u64 drops)
{
	const struct cfilter_source_info *si;
	struct cfilter_sources s;

	ASSERT_EQ(0, cf_sources(fd, 0, &s));
	si = source_in(&s, name);
	ASSERT_NE(NULL, si) TH_LOG("SOURCES has no %s", name);
	EXPECT_EQ(entries, si->entries) TH_LOG("entries of %s", name);
	EXPECT_EQ(0ULL, si->timed) TH_LOG("timed entries of %s", name);
	EXPECT_EQ(drops, si->drops) TH_LOG("drops of %s", name);
}

/*
 * A jail with no bans keeps its count: emptied by DEL, FLUSH or expiry,
 * "jail" stays in SOURCES with 0 entries and its drops, and counts on
 * from there when it holds entries again; a replace of another source,
 * and CLEAR, keep it too. A source that never dropped goes with its last
 * holding, as ever.
 */
TEST_F(drops, an_emptied_source_keeps_its_drops_until_the_module_goes)
{
	struct cfilter_key a = key_of(CFILTER_KEY_SRC4, "192.0.2.1");
	struct cfilter_key b = key_of(CFILTER_KEY_SRC4, "192.0.2.2");
	struct cfilter_sources s;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, cf_add(self->fd, &a, "jail", 0));
	ASSERT_EQ(0, cf_add(self->fd, &b, "quiet", 0));
	drop_from(_metadata, self->prog, "192.0.2.1", 3);
	expect_source(_metadata, self->fd, "jail", 1, 3);

	ASSERT_EQ(0, cf_del(self->fd, &a, "jail"));
	expect_source(_metadata, self->fd, "jail", 0, 3);
	EXPECT_EQ(ENOENT, cf_test(self->fd, &a, "jail"));
	ASSERT_EQ(0, cf_del(self->fd, &b, "quiet"));
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	EXPECT_EQ(2U, s.count);
	EXPECT_EQ(NULL, source_in(&s, "quiet"));

	ASSERT_EQ(0, cf_add(self->fd, &a, "jail", 0));
	drop_from(_metadata, self->prog, "192.0.2.1", 2);
	expect_source(_metadata, self->fd, "jail", 1, 5);
	ASSERT_EQ(0, cf_flush(self->fd, "jail"));
	expect_source(_metadata, self->fd, "jail", 0, 5);

	ASSERT_EQ(0, cf_add(self->fd, &b, "jail", 1));
	drop_from(_metadata, self->prog, "192.0.2.2", 1);
	ASSERT_LE(0, wait_gone(self->fd, &b, 0, now_ms(),
			       1000 + EXPIRY_SLACK_MS));
	expect_source(_metadata, self->fd, "jail", 0, 6);

	ASSERT_EQ(0, cf_stage_source(self->fd, "feed"));
	ASSERT_EQ(0, hold(self->fd, CFILTER_IOC_ADD, &b, "feed", STAGED, 0));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	expect_source(_metadata, self->fd, "jail", 0, 6);
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_CLEAR, NULL));
	expect_source(_metadata, self->fd, "jail", 0, 6);

	ASSERT_EQ(0, cf_add(self->fd, &a, "jail", 0));
	drop_from(_metadata, self->prog, "192.0.2.1", 1);
	expect_source(_metadata, self->fd, "jail", 1, 7);
}

/*
 * Emptied sources that dropped keep their indexes while others are free;
 * a new source that finds none takes the index of the emptied one that
 * dropped least, counting from 0, and the other stays. EUSERS only when
 * every source holds something.
 */
TEST_F(drops, a_new_source_takes_the_place_of_the_emptied_one_that_dropped_least)
{
	struct cfilter_key k, one = nth_key4(1), two = nth_key4(2);
	struct cfilter_sources s;
	char name[CFILTER_SOURCE_LEN], addr[INET_ADDRSTRLEN];
	unsigned int i;

	if (_metadata->skip)
		return;
	for (i = 1; i < CFILTER_SOURCES_MAX; i++) {
		snprintf(name, sizeof(name), "s%02u", i);
		k = nth_key4(i);
		ASSERT_EQ(0, cf_add(self->fd, &k, name, 0));
	}
	inet_ntop(AF_INET, one.saddr, addr, sizeof(addr));
	drop_from(_metadata, self->prog, addr, 2);
	inet_ntop(AF_INET, two.saddr, addr, sizeof(addr));
	drop_from(_metadata, self->prog, addr, 1);
	ASSERT_EQ(0, cf_del(self->fd, &one, "s01"));
	ASSERT_EQ(0, cf_del(self->fd, &two, "s02"));
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	EXPECT_EQ((__u32)CFILTER_SOURCES_MAX, s.count);
	expect_source(_metadata, self->fd, "s01", 0, 2);
	expect_source(_metadata, self->fd, "s02", 0, 1);

	k = nth_key4(100);
	ASSERT_EQ(0, cf_add(self->fd, &k, "late", 0));
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	EXPECT_EQ((__u32)CFILTER_SOURCES_MAX, s.count);
	EXPECT_EQ(NULL, source_in(&s, "s02"));
	expect_source(_metadata, self->fd, "s01", 0, 2);
	expect_source(_metadata, self->fd, "late", 1, 0);

	k = nth_key4(101);
	ASSERT_EQ(0, cf_add(self->fd, &k, "later", 0));
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	EXPECT_EQ(NULL, source_in(&s, "s01"));
	expect_source(_metadata, self->fd, "later", 1, 0);
	k = nth_key4(102);
	EXPECT_EQ(EUSERS, cf_add(self->fd, &k, "latest", 0));
	ASSERT_EQ(0, cf_sources(self->fd, 0, &s));
	EXPECT_EQ((__u32)CFILTER_SOURCES_MAX, s.count);
	EXPECT_EQ(NULL, source_in(&s, "latest"));
}

TEST_HARNESS_MAIN
