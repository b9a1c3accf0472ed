// SPDX-License-Identifier: GPL-2.0
/*
 * The verb why: a ban's story. For one address: what a packet from it
 * meets (the MATCH ioctl), every holding of an entry that covers it (the
 * address and the prefixes containing it, as a source, a destination or
 * an allow entry, and the flows naming it), each with its source and the
 * time it has left, and the drops each of those sources counted.
 *
 * One walk of LIST gives every holding with its timeout and its age; the
 * module counts drops per source, not per entry, and does not record when
 * "default" took the entries it alone holds for ever (they cost no more
 * than the tables' bytes): the output says both. In compact mode LIST
 * gives the prefixes only, and the address itself is asked with TEST.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "device/device.h"
#include "lib/addr.h"
#include "lib/json.h"
#include "lib/source_name.h"
#include "verbs/verb.h"

#define WHY_BATCH	4096
/* Walks started over because the filter changed under them (device.c's). */
#define WHY_TRIES	20

/* The address asked about, and the holdings found. */
struct why {
	int			family;
	__u8			addr[16];
	struct cfilter_entry	*h;
	size_t			n, cap;
};

static bool is_type(__u8 type, __u8 t4, __u8 t6, int family)
{
	return type == (family == 6 ? t6 : t4);
}

/* Does the prefix @len of @p contain @addr? */
static bool contains(const __u8 *p, unsigned int len, const __u8 *addr)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if ((p[i / 8] ^ addr[i / 8]) & (0x80 >> (i % 8)))
			return false;
	return true;
}

/* Is @k an entry about @w's address: covering it, or a flow naming it? */
static bool about(const struct why *w, const struct cfilter_key *k)
{
	size_t alen = w->family == 6 ? 16 : 4;

	if (is_type(k->type, CFILTER_KEY_SRC4, CFILTER_KEY_SRC6, w->family) ||
	    is_type(k->type, CFILTER_KEY_ALLOW4, CFILTER_KEY_ALLOW6, w->family))
		return contains(k->saddr, k->prefix_len, w->addr);
	if (is_type(k->type, CFILTER_KEY_DST4, CFILTER_KEY_DST6, w->family))
		return contains(k->daddr, k->prefix_len, w->addr);
	if (is_type(k->type, CFILTER_KEY_FLOW4, CFILTER_KEY_FLOW6, w->family))
		return !memcmp(k->saddr, w->addr, alen) ||
		       !memcmp(k->daddr, w->addr, alen);
	return false;
}

static int keep(struct why *w, const struct cfilter_entry *e)
{
	struct cfilter_entry *bigger;

	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 16;
		bigger = realloc(w->h, w->cap * sizeof(*bigger));
		if (!bigger)
			return -ENOMEM;
		w->h = bigger;
	}
	w->h[w->n++] = *e;
	return 0;
}

/* One walk of every holding, keeping @w's; 0 or a negative errno. */
static int walk_once(int fd, struct why *w, struct cfilter_entry *buf)
{
	struct cfilter_list l = { .flags = CFILTER_F_ALL_SOURCES };
	__u32 i;
	int err;

	w->n = 0;
	do {
		l.entries = (uintptr_t)buf;
		l.max = WHY_BATCH;
		if (ioctl(fd, CFILTER_IOC_LIST, &l))
			return -errno;
		for (i = 0; i < l.count; i++) {
			if (!about(w, &buf[i].key))
				continue;
			err = keep(w, &buf[i]);
			if (err)
				return err;
		}
	} while (l.count);
	return 0;
}

/* Every holding about @w's address, into @w; 0 or a negative errno. */
static int walk(int fd, struct why *w)
{
	struct cfilter_entry *buf = calloc(WHY_BATCH, sizeof(*buf));
	int err = -ESTALE, try;

	if (!buf)
		return -ENOMEM;
	for (try = 0; try < WHY_TRIES && err == -ESTALE; try++) {
		if (try)
			usleep(1000 << (try < 8 ? try : 8));
		err = walk_once(fd, w, buf);
	}
	free(buf);
	return err;
}

/*
 * Compact mode: the address itself as a source, destination or allow
 * entry, which LIST does not give (fingerprints), held by "default" for
 * ever. Returns 0 or a negative errno.
 */
static int test_address(int fd, struct why *w)
{
	static const __u8 types[][2] = {
		{ CFILTER_KEY_SRC4, CFILTER_KEY_SRC6 },
		{ CFILTER_KEY_DST4, CFILTER_KEY_DST6 },
		{ CFILTER_KEY_ALLOW4, CFILTER_KEY_ALLOW6 },
	};
	struct cfilter_entry e;
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		memset(&e, 0, sizeof(e));
		e.age = CFILTER_AGE_UNKNOWN;
		e.key.type = types[i][w->family == 6];
		e.key.prefix_len = w->family == 6 ? 128 : 32;
		memcpy(i == 1 ? e.key.daddr : e.key.saddr, w->addr, 16);
		err = dev_key_req(fd, CFILTER_IOC_TEST, &e.key,
				  CFILTER_F_ALL_SOURCES, 0, NULL);
		if (err == -ENOENT)
			continue;
		if (err || (err = keep(w, &e)))
			return err;
	}
	return 0;
}

/* The order shown: sources, destinations, allow entries, flows; longest first. */
static int kind_rank(__u8 type)
{
	switch (type) {
	case CFILTER_KEY_SRC4:
	case CFILTER_KEY_SRC6:
		return 0;
	case CFILTER_KEY_DST4:
	case CFILTER_KEY_DST6:
		return 1;
	case CFILTER_KEY_ALLOW4:
	case CFILTER_KEY_ALLOW6:
		return 2;
	default:
		return 3;
	}
}

static int cmp_holding(const void *a, const void *b)
{
	const struct cfilter_entry *x = a, *y = b;
	int d = kind_rank(x->key.type) - kind_rank(y->key.type);

	if (d)
		return d;
	if (x->key.prefix_len != y->key.prefix_len)
		return y->key.prefix_len - x->key.prefix_len;
	d = memcmp(&x->key, &y->key, sizeof(x->key));
	return d ? d : strncmp(x->source, y->source, CFILTER_SOURCE_LEN);
}

/* The name of a holding's source, for people ("" is "default"). */
static const char *holder(const struct cfilter_entry *e, char *buf)
{
	snprintf(buf, CFILTER_SOURCE_LEN + 1, "%.*s", CFILTER_SOURCE_LEN,
		 e->source);
	return source_shown(buf);
}

/* When @secs from now ends, local ("2026-11-28 10:25:32") or UTC for JSON. */
/* The time @secs from now (before, if negative), local or UTC. */
static const char *clock_at(long long secs, bool utc, char *buf, size_t len)
{
	time_t t = time(NULL) + secs;
	struct tm tm;

	if (utc)
		gmtime_r(&t, &tm);
	else
		localtime_r(&t, &tm);
	strftime(buf, len, utc ? "%Y-%m-%dT%H:%M:%SZ" : "%Y-%m-%d %H:%M:%S",
		 &tm);
	return buf;
}

/* Does the module not know when one of @w's holdings was added? */
static bool any_unrecorded(const struct why *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (w->h[i].age == CFILTER_AGE_UNKNOWN)
			return true;
	return false;
}

/* Is @name among the sources of @w's holdings? */
static bool holds_any(const struct why *w, const char *name)
{
	char buf[CFILTER_SOURCE_LEN + 1];
	size_t i;

	for (i = 0; i < w->n; i++)
		if (!strcmp(holder(&w->h[i], buf), source_shown(name)))
			return true;
	return false;
}

static void why_text(const char *text, const struct why *w,
		     const struct cfilter_match_req *mr,
		     const struct cfilter_sources *s)
{
	char entry[ENTRY_STRLEN], who[CFILTER_SOURCE_LEN + 1], when[32];
	const char *reason = verdict_reason(mr->verdict), *sep = "";
	size_t i;

	printf("%s: %s", text, verdict_word(mr->verdict));
	if (reason)
		printf(" (%s), source %.*s", reason, CFILTER_SOURCE_LEN,
		       mr->source);
	putchar('\n');
	if (!w->n) {
		printf("  no entry covers it or names it\n");
		return;
	}
	for (i = 0; i < w->n; i++) {
		const struct cfilter_entry *e = &w->h[i];

		printf("  %-32s held by %s, ", entry_format(&e->key, entry,
							    sizeof(entry)),
		       holder(e, who));
		if (e->timeout)
			printf("expires in %u s (%s)", e->timeout,
			       clock_at(e->timeout, false, when, sizeof(when)));
		else
			printf("permanent");
		if (e->age == CFILTER_AGE_UNKNOWN)
			printf(", added: not recorded\n");
		else
			printf(", added %s (%u s ago)\n",
			       clock_at(-(long long)e->age, false, when,
					sizeof(when)), e->age);
	}
	printf("drops by all the entries of each source (none are counted per entry):");
	for (i = 0; i < s->count; i++) {
		if (!holds_any(w, s->sources[i].name))
			continue;
		printf("%s %.*s %llu", sep, CFILTER_SOURCE_LEN,
		       s->sources[i].name,
		       (unsigned long long)s->sources[i].drops);
		sep = ",";
	}
	putchar('\n');
	if (any_unrecorded(w))
		printf("added: not recorded for \"default\"'s permanent entries that no other source holds\n");
}

static void why_json(const char *text, const struct why *w,
		     const struct cfilter_match_req *mr,
		     const struct cfilter_sources *s)
{
	char entry[ENTRY_STRLEN], who[CFILTER_SOURCE_LEN + 1], when[32];
	const char *reason = verdict_reason(mr->verdict);
	struct json j;
	size_t i;

	json_init(&j, stdout);
	json_object_begin(&j);
	json_kv_string(&j, "addr", text);
	json_kv_string(&j, "verdict", verdict_word(mr->verdict));
	if (reason) {
		snprintf(who, sizeof(who), "%.*s", CFILTER_SOURCE_LEN,
			 mr->source);
		json_kv_string(&j, "reason", reason);
		json_kv_string(&j, "source", who);
	}
	json_key(&j, "holdings");
	json_array_begin(&j);
	for (i = 0; i < w->n; i++) {
		json_object_begin(&j);
		json_kv_string(&j, "entry", entry_format(&w->h[i].key, entry,
							 sizeof(entry)));
		json_kv_string(&j, "source", holder(&w->h[i], who));
		json_kv_uint(&j, "timeout", w->h[i].timeout);
		if (w->h[i].timeout)
			json_kv_string(&j, "expires",
				       clock_at(w->h[i].timeout, true, when,
						sizeof(when)));
		if (w->h[i].age != CFILTER_AGE_UNKNOWN) {
			json_kv_uint(&j, "age", w->h[i].age);
			json_kv_string(&j, "added",
				       clock_at(-(long long)w->h[i].age, true,
						when, sizeof(when)));
		}
		json_object_end(&j);
	}
	json_array_end(&j);
	json_key(&j, "drops");
	json_array_begin(&j);
	for (i = 0; i < s->count; i++) {
		if (!holds_any(w, s->sources[i].name))
			continue;
		snprintf(who, sizeof(who), "%.*s", CFILTER_SOURCE_LEN,
			 s->sources[i].name);
		json_object_begin(&j);
		json_kv_string(&j, "source", who);
		json_kv_uint(&j, "drops", s->sources[i].drops);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);
}

/* The verdict, the holdings and the sources; 0 or a negative errno. */
static int why_read(int fd, struct why *w, struct cfilter_match_req *mr,
		    struct cfilter_sources *s)
{
	struct cfilter_pkt pkt = { .family = w->family };
	struct cfilter_info info;
	int err;

	memcpy(pkt.saddr, w->addr, sizeof(pkt.saddr));
	err = dev_match(fd, &pkt, mr);
	if (!err)
		err = dev_info(fd, &info);
	if (!err)
		err = walk(fd, w);
	if (!err && info.mode == CFILTER_MODE_COMPACT)
		err = test_address(fd, w);
	if (!err)
		err = dev_sources(fd, s);
	return err;
}

/**
 * do_why() - what covers an address, held by whom, until when, and why
 * @o: the address (@o->words[0]), -j
 *
 * Return: enum cf_exit: 0 if an entry covers or names the address, 1 if
 * none does.
 */
int do_why(const struct cfctl_opts *o)
{
	struct why w = { 0 };
	struct cfilter_match_req mr;
	struct cfilter_sources s;
	int fd, err;

	w.family = addr_parse(o->arg, w.addr);
	if (w.family < 0) {
		cf_err("why: invalid address '%s': expected one IPv4 or IPv6 address%s",
		       o->arg, strpbrk(o->arg, "/-") ?
		       " (a packet has one: ask about an address of the prefix or range)" : "");
		return CF_USAGE;
	}
	fd = dev_open(false);
	if (fd < 0)
		return CF_SYSTEM;
	err = why_read(fd, &w, &mr, &s);
	close(fd);
	if (err) {
		free(w.h);
		dev_report(err, "cannot tell why");
		return CF_SYSTEM;
	}
	qsort(w.h, w.n, sizeof(*w.h), cmp_holding);
	if (o->json)
		why_json(o->arg, &w, &mr, &s);
	else
		why_text(o->arg, &w, &mr, &s);
	free(w.h);
	return w.n ? CF_OK : CF_ABSENT;
}
