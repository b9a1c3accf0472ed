// SPDX-License-Identifier: GPL-2.0
/*
 * The verbs of one entry: add, allow and del change it, test asks what
 * covers it and who holds that.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "device/device.h"
#include "formats/keyfile.h"
#include "lib/addr.h"
#include "lib/json.h"
#include "lib/source_name.h"
#include "verbs/verb.h"
#include "xdp/xdp.h"

/*
 * Parses the entry @words (@n of them) into @key, and writes it back in
 * canonical form to @text (ENTRY_STRLEN bytes) for messages; returns enum
 * cf_exit.
 */
static int parse_entry(const char *verb, char *const words[], int n,
		       struct kf_entry *e, char *text)
{
	enum kf_line what;
	const char *word;

	what = keyfile_parse_words(words, n, e, &word);
	if (what != KF_ENTRY) {
		fprintf(stderr, "cfctl: %s: ", verb);
		keyfile_reason(stderr, what, word);
		return CF_USAGE;
	}
	if (e->range)
		snprintf(text, ENTRY_STRLEN, "%s", word);
	else
		entry_format(&e->key, text, ENTRY_STRLEN);
	return CF_OK;
}

/* The keys of a range, for one BATCH. */
struct range_keys {
	struct cfilter_key	keys[256];
	__u32			timeouts[256];
	__s32			results[256];
	unsigned int		n;
};

static int collect_key(const struct cfilter_key *key, void *arg)
{
	struct range_keys *rk = arg;

	/* A range of n-bit addresses splits into at most 2n - 2 prefixes. */
	if (rk->n == ARRAY_SIZE(rk->keys))
		return -E2BIG;
	rk->keys[rk->n++] = *key;
	return 0;
}

/* The flags and source of a DEL or TEST as -s and --all-sources say. */
static __u32 req_flags(const struct cfctl_opts *o)
{
	return o->all_sources ? CFILTER_F_ALL_SOURCES : 0;
}

/* The sources holding one entry. */
struct holders {
	unsigned int	n;
	char		name[CFILTER_SOURCES_MAX][CFILTER_SOURCE_LEN + 1];
};

/*
 * The sources holding @key into @h (none if the module cannot be asked):
 * one TEST per source of the set.
 */
static void holders_find(int fd, const struct cfilter_key *key,
			 struct holders *h)
{
	struct cfilter_sources s;
	unsigned int i;

	h->n = 0;
	if (dev_sources(fd, &s))
		return;
	for (i = 0; i < s.count && i < CFILTER_SOURCES_MAX; i++) {
		const char *name = s.sources[i].name;

		if (!dev_key_req(fd, CFILTER_IOC_TEST, key, 0, 0, name))
			snprintf(h->name[h->n++], sizeof(h->name[0]), "%.*s",
				 CFILTER_SOURCE_LEN, name);
	}
}

/* Room for the names of every source, as holders() writes them. */
#define HOLDERS_LEN	(CFILTER_SOURCES_MAX * (CFILTER_SOURCE_LEN + 2))

/* The sources holding @key, as "a, b" in @buf (empty if none). */
static void holders(int fd, const struct cfilter_key *key, char *buf,
		    size_t len)
{
	struct holders h;
	size_t at = 0;
	unsigned int i;

	*buf = '\0';
	holders_find(fd, key, &h);
	for (i = 0; i < h.n && at < len; i++)
		at += snprintf(buf + at, len - at, "%s%s", i ? ", " : "",
			       h.name[i]);
}

/*
 * add, allow and del of a range FIRST-LAST (@text): its prefixes in one
 * BATCH. del exits 1 if any of them was not there. Returns enum cf_exit.
 */
static int range_entry(const struct cfctl_opts *o, int fd, const char *text,
		       const struct kf_entry *e, __u32 op)
{
	bool add = op == CFILTER_BATCH_ADD;
	struct range_keys rk = { .n = 0 };
	struct dev_batch b = {
		.op = o->dry_run ? CFILTER_BATCH_TEST : op,
		.flags = add ? 0 : req_flags(o),
		.source = o->source,
		.keys = rk.keys,
		.results = rk.results,
	};
	unsigned int i, ok = 0, same = 0;
	__u32 done;
	int err;

	keyfile_expand(e, collect_key, &rk);
	b.n = rk.n;
	for (i = 0; i < rk.n; i++)
		rk.timeouts[i] = o->timeout;
	if (add && !o->dry_run)
		b.timeouts = rk.timeouts;
	err = dev_batch(fd, &b, &done);
	if (err) {
		dev_report(err, add ? "cannot add" : "cannot delete");
		return CF_SYSTEM;
	}
	for (i = 0; i < rk.n; i++) {
		if (!rk.results[i])
			ok++;
		else if (rk.results[i] == (add ? -EEXIST : -ENOENT))
			same++;
	}
	if (o->dry_run) {
		printf("would %s %s: %u prefixes, %u of them present (dry run: nothing changed)\n",
		       add ? "add" : "delete", text, rk.n, ok);
		return !add && ok < rk.n ? CF_ABSENT : CF_OK;
	}
	for (i = 0; i < rk.n; i++) {
		if (rk.results[i] && rk.results[i] != (add ? -EEXIST : -ENOENT)) {
			char buf[ENTRY_STRLEN];

			if (dev_full(rk.results[i])) {
				dev_report_full(fd, rk.results[i], false,
						&rk.keys[i]);
			} else {
				cf_err("cannot %s %s: %s", add ? "add" : "delete",
				       entry_format(&rk.keys[i], buf, sizeof(buf)),
				       dev_key_error(rk.results[i]));
			}
			cf_err("%s: %u of %u prefixes %s, the others not",
			       text, ok + same, rk.n,
			       add ? "blocked" : "deleted or absent");
			return CF_SYSTEM;
		}
	}
	if (add)
		printf("%s: %u prefixes (%u added, %u already present)\n", text,
		       rk.n, ok, same);
	else
		printf("%s: %u prefixes (%u deleted, %u not present)\n", text,
		       rk.n, ok, same);
	return !add && same ? CF_ABSENT : CF_OK;
}

/*
 * --dry-run of add and del: may the caller change the filter (a BATCH of no
 * keys asks exactly that), and does the source hold @key? Returns enum
 * cf_exit.
 */
static int key_dry_run(const struct cfctl_opts *o, int fd, const char *text,
		       __u32 op, const struct cfilter_key *key)
{
	bool add = op == CFILTER_BATCH_ADD;
	struct dev_batch may = { .op = op };
	const char *source = source_shown(o->source);
	__u32 done;
	int err;

	err = dev_batch(fd, &may, &done);
	if (!err)
		err = dev_key_req(fd, CFILTER_IOC_TEST, key,
				  add ? 0 : req_flags(o), 0, o->source);
	if (err && err != -ENOENT) {
		dev_report(err, add ? "cannot add" : "cannot delete");
		return CF_SYSTEM;
	}
	if (add && !err)
		printf("%s is already blocked (held by %s): add would set its timeout anew (dry run: nothing changed)\n",
		       text, source);
	else if (add)
		printf("would add %s, held by %s (dry run: nothing changed)\n",
		       text, source);
	else if (!err)
		printf("would delete %s (dry run: nothing changed)\n", text);
	else if (o->all_sources)
		cf_err("%s is not blocked", text);
	else
		cf_err("%s is not held by %s", text, source);
	return !add && err ? CF_ABSENT : CF_OK;
}

/*
 * The start add and del share: parses the entry (@op is its batch op) and
 * opens the device; a range, and -n, are carried out here. Returns the
 * exit code with *@fd = -1 when that is all, or CF_OK with *@fd open when
 * the caller has its one-key ioctl to make.
 */
static int entry_begin(const struct cfctl_opts *o, const char *verb,
		       char *const words[], int n, __u32 op,
		       struct kf_entry *e, char *text, int *fd)
{
	int ret;

	*fd = -1;
	ret = parse_entry(verb, words, n, e, text);
	if (ret != CF_OK)
		return ret;
	*fd = dev_open(true);
	if (*fd < 0)
		return CF_SYSTEM;
	if (!e->range && !o->dry_run)
		return CF_OK;
	if (e->range)
		ret = range_entry(o, *fd, text, e, op);
	else
		ret = key_dry_run(o, *fd, text, op, &e->key);
	close(*fd);
	*fd = -1;
	return ret;
}

#define NSEC_PER_SEC	1000000000LL

/*
 * The timeout of add and allow: -t, or with --from what is left of it now
 * (0 if that is past), into *@left; past CFILTER_TIMEOUT_MAX, refused, or
 * with --cap-timeout cut to it with a note. Returns CF_OK or CF_USAGE.
 */
static int holding_timeout(const struct cfctl_opts *o, const char *verb,
			   __u32 *left)
{
	long long secs = o->timeout_long, now;
	struct timespec ts;

	if (o->from_ns && !o->timeout_long) {
		cf_err("%s: --from needs the timeout it starts: -t SECS", verb);
		return CF_USAGE;
	}
	if (o->from_ns) {
		clock_gettime(CLOCK_REALTIME, &ts);
		now = ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
		secs = timeout_left(o->timeout_long, o->from_ns, now);
	}
	*left = secs;
	if (secs <= CFILTER_TIMEOUT_MAX)
		return CF_OK;
	*left = CFILTER_TIMEOUT_MAX;
	if (o->cap_timeout) {
		cf_err("note: %s: -t %llu%s ends %lld seconds from now, past the longest timeout: held for %u s (68 years) (--cap-timeout)",
		       verb, o->timeout_long, o->from_ns ? " --from TIME" : "",
		       secs, CFILTER_TIMEOUT_MAX);
		return CF_OK;
	}
	cf_err("%s: -t %llu --from %lld ends %lld seconds from now: more than %u (--cap-timeout: hold it that long)",
	       verb, o->timeout_long, o->from_ns / NSEC_PER_SEC, secs,
	       CFILTER_TIMEOUT_MAX);
	return CF_USAGE;
}

/* add and allow: @words are the entry; returns enum cf_exit. */
static int add_entry(const struct cfctl_opts *opts, const char *verb,
		     char *const words[], int n)
{
	struct cfctl_opts now = *opts, *o = &now;
	char text[ENTRY_STRLEN];
	struct kf_entry e;
	int fd, err, ret;

	ret = holding_timeout(opts, verb, &o->timeout);
	if (ret == CF_OK && opts->from_ns && !o->timeout) {
		/* Checked all the same: bad input is an error whenever. */
		ret = parse_entry(verb, words, n, &e, text);
		if (ret == CF_OK)
			cf_err("%s: its %llu s from %lld are over: nothing added",
			       text, opts->timeout_long,
			       opts->from_ns / NSEC_PER_SEC);
		return ret;
	}
	if (ret != CF_OK)
		return ret;
	ret = entry_begin(o, verb, words, n, CFILTER_BATCH_ADD, &e, text, &fd);
	if (ret == CF_OK)
		xdp_warn_dst(&e.key, 1);
	if (fd < 0)
		return ret;

	err = dev_key_req(fd, CFILTER_IOC_ADD, &e.key, 0, o->timeout, o->source);
	switch (-err) {
	case 0:
		break;
	case EEXIST:
		/* The goal, "ENTRY is held", holds: scripts may re-add. */
		if (o->timeout)
			cf_err("%s is already held by %s: its timeout is now %u s",
			       text, source_shown(o->source), o->timeout);
		else
			cf_err("%s is already held by %s: it is now permanent",
			       text, source_shown(o->source));
		break;
	case ENOSPC:
	case EDQUOT:
		dev_report_full(fd, err, false, &e.key);
		ret = CF_SYSTEM;
		break;
	case ENOMEM:
		cf_err("cannot add %s: no memory to grow the filter: free some memory, or reload the module with a larger capacity= to allocate up front",
		       text);
		ret = CF_SYSTEM;
		break;
	default:
		dev_report(err, "cannot add");
		ret = CF_SYSTEM;
	}
	close(fd);
	return ret;
}

int do_add(const struct cfctl_opts *o)
{
	return add_entry(o, "add", o->words, o->nwords);
}

/* cfctl allow ADDR: cfctl add allow ADDR. */
int do_allow(const struct cfctl_opts *o)
{
	char *words[] = { "allow", o->words[0] };

	if (o->nwords != 1) {
		cf_err("allow: unexpected argument '%s': expected one ADDR",
		       o->words[1]);
		return CF_USAGE;
	}
	return add_entry(o, "allow", words, 2);
}

int do_del(const struct cfctl_opts *o)
{
	char text[ENTRY_STRLEN], who[HOLDERS_LEN];
	struct kf_entry e;
	int fd, err, ret;

	ret = entry_begin(o, "del", o->words, o->nwords, CFILTER_BATCH_DEL, &e,
			  text, &fd);
	if (fd < 0)
		return ret;

	err = dev_key_req(fd, CFILTER_IOC_DEL, &e.key, req_flags(o), 0,
			  o->source);
	if (err == -ENOENT && o->all_sources) {
		cf_err("%s is not blocked", text);
		ret = CF_ABSENT;
	} else if (err == -ENOENT) {
		holders(fd, &e.key, who, sizeof(who));
		if (*who)
			cf_err("%s is not held by %s, but by %s: name one with -s, or delete every holding with --all-sources",
			       text, source_shown(o->source), who);
		else
			cf_err("%s is not blocked", text);
		ret = CF_ABSENT;
	} else if (err) {
		dev_report(err, "cannot delete");
		ret = CF_SYSTEM;
	}
	close(fd);
	return ret;
}

/* What covers an entry: the longest stored keys that contain it. */
struct cover {
	struct cfilter_key	block;	/* type CFILTER_KEY_NONE: none */
	struct cfilter_key	allow;	/* likewise */
};

static bool key_is_allow(const struct cfilter_key *key)
{
	return key->type == CFILTER_KEY_ALLOW4 || key->type == CFILTER_KEY_ALLOW6;
}

/*
 * test: the longest keys held by @source (NULL: by any source) that cover
 * @key: @key itself or a prefix containing it, and for a source address
 * the same of the allow type; @exact (and for a flow): @key itself only.
 * One BATCH TEST asks for all of them, longest first. Returns 0 or a
 * negative errno.
 */
static int cover_find(int fd, const struct cfilter_key *key, bool exact,
		      const char *source, struct cover *c)
{
	bool walk = !exact && key->type != CFILTER_KEY_FLOW4 &&
		    key->type != CFILTER_KEY_FLOW6;
	__u8 types[2] = { key->type, CFILTER_KEY_NONE };
	struct cfilter_key keys[2 * 129];
	__s32 results[ARRAY_SIZE(keys)];
	struct dev_batch b = {
		.op = CFILTER_BATCH_TEST,
		.flags = source ? 0 : CFILTER_F_ALL_SOURCES,
		.source = source,
		.keys = keys,
		.results = results,
	};
	unsigned int t, len, i;
	__u32 done;
	int err;

	if (walk && key->type == CFILTER_KEY_SRC4)
		types[1] = CFILTER_KEY_ALLOW4;
	else if (walk && key->type == CFILTER_KEY_SRC6)
		types[1] = CFILTER_KEY_ALLOW6;
	for (t = 0; t < ARRAY_SIZE(types) && types[t]; t++) {
		len = key->prefix_len;
		do {
			keys[b.n] = *key;
			keys[b.n].type = types[t];
			if (walk)
				key_widen(&keys[b.n], len);
			b.n++;
		} while (walk && len--);
	}
	memset(c, 0, sizeof(*c));
	err = dev_batch(fd, &b, &done);
	for (i = 0; !err && i < b.n; i++) {
		struct cfilter_key *found = key_is_allow(&keys[i]) ?
					    &c->allow : &c->block;

		if (results[i] && results[i] != -ENOENT)
			err = results[i];
		else if (!results[i] && !found->type)
			*found = keys[i];
	}
	return err;
}

/* @found, a key covering an entry, as test names it. */
static const char *found_format(const struct cfilter_key *found, char *buf)
{
	if (found->type == CFILTER_KEY_FLOW4 || found->type == CFILTER_KEY_FLOW6)
		return entry_format(found, buf, ENTRY_STRLEN);
	return key_addr_format(found, buf, ENTRY_STRLEN);
}

/*
 * "[ by PREFIX] (held by SOURCES)": @found, a key covering @key (named
 * only if it is not @key itself), and who holds it.
 */
static void print_found(int fd, const struct cfilter_key *key,
			const struct cfilter_key *found, const char *source)
{
	char buf[ENTRY_STRLEN], who[HOLDERS_LEN];

	holders(fd, found, who, sizeof(who));
	if (found->prefix_len != key->prefix_len)
		printf(" by %s", found_format(found, buf));
	printf(" (held by %s)", *who ? who : source_shown(source));
}

/* "KEY_by": @found, and "KEY_sources": who holds it. */
static void found_json(struct json *j, int fd, const char *by,
		       const char *sources, const struct cfilter_key *found)
{
	char buf[ENTRY_STRLEN];
	struct holders h;
	unsigned int i;

	holders_find(fd, found, &h);
	json_kv_string(j, by, found_format(found, buf));
	json_key(j, sources);
	json_array_begin(j);
	for (i = 0; i < h.n; i++)
		json_string(j, h.name[i]);
	json_array_end(j);
}

static void test_json(int fd, const struct cfctl_opts *o, const char *text,
		      const struct cover *c, bool blocked)
{
	struct json j;

	json_init(&j, stdout);
	json_object_begin(&j);
	json_kv_string(&j, "entry", text);
	if (o->source)
		json_kv_string(&j, "source", o->source);
	json_kv_bool(&j, "blocked", blocked);
	json_kv_bool(&j, "allowed", c->allow.type);
	if (c->block.type)
		found_json(&j, fd, "by", "sources", &c->block);
	if (c->allow.type)
		found_json(&j, fd, "allowed_by", "allowed_sources", &c->allow);
	json_object_end(&j);
}

/*
 * Nothing of source @o->source covers @key: say so, and name what of the
 * other sources' covers it.
 */
static int test_not_held(int fd, const struct cfctl_opts *o, const char *text,
			 const struct cfilter_key *key)
{
	const char *what = key_is_allow(key) ? "allowed" : "blocked";
	struct cover other;
	const struct cfilter_key *found;
	char buf[ENTRY_STRLEN], who[HOLDERS_LEN];
	int err;

	err = cover_find(fd, key, o->exact, NULL, &other);
	if (err)
		return err;
	found = key_is_allow(key) ? &other.allow : &other.block;
	if (!found->type) {
		printf("%s: not %s (not held by %s)\n", text, what, o->source);
		return 0;
	}
	holders(fd, found, who, sizeof(who));
	printf("%s: not held by %s (%s", text, o->source, what);
	if (found->prefix_len != key->prefix_len)
		printf(" by %s", found_format(found, buf));
	printf(", held by %s)\n", who);
	return 0;
}

/*
 * Is ENTRY blocked: does a stored entry (held by -s NAME) cover it, and no
 * allow entry? With --exact: is ENTRY itself stored? The entry that
 * answers is named, with the sources holding it.
 */
int do_test(const struct cfctl_opts *o)
{
	char text[ENTRY_STRLEN];
	struct kf_entry e;
	struct cover c;
	bool blocked;
	int fd, err, ret;

	ret = parse_entry("test", o->words, o->nwords, &e, text);
	if (ret != CF_OK)
		return ret;
	if (e.range) {
		cf_err("test: %s is a range, which stands for several prefixes: test one address or prefix, or ask cfctl match ADDR",
		       text);
		return CF_USAGE;
	}
	fd = dev_open(false);
	if (fd < 0)
		return CF_SYSTEM;

	err = cover_find(fd, &e.key, o->exact, o->source, &c);
	blocked = c.block.type && !c.allow.type;
	if (!err && o->json) {
		test_json(fd, o, text, &c, blocked);
	} else if (!err && !c.block.type && !c.allow.type && o->source) {
		err = test_not_held(fd, o, text, &e.key);
	} else if (!err && !c.block.type && !c.allow.type) {
		printf("%s: not %s\n", text,
		       key_is_allow(&e.key) ? "allowed" : "blocked");
	} else if (!err) {
		printf("%s: ", text);
		if (c.allow.type) {
			printf("allowed");
			print_found(fd, &e.key, &c.allow, o->source);
		}
		if (c.block.type) {
			printf("%s", c.allow.type ? ", though blocked" : "blocked");
			print_found(fd, &e.key, &c.block, o->source);
		}
		putchar('\n');
	}
	close(fd);
	if (err) {
		dev_report(err, "cannot test");
		return CF_SYSTEM;
	}
	if (key_is_allow(&e.key))
		return c.allow.type ? CF_OK : CF_ABSENT;
	return blocked ? CF_OK : CF_ABSENT;
}
