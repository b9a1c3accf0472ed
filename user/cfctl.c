// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl: manage cfilter's filters of blocked sources, destinations and
 * flows and of allowed sources (through /dev/cfilter) and its XDP program (through libbpf).
 *
 * One table of verbs; each has its own do_<verb>() taking the parsed
 * options. See usage() or `cfctl --help` for the exit statuses.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "cfctl.h"
#include "dev.h"
#include "json.h"
#include "keyfile.h"
#include "source.h"
#include "xdp.h"

/* Options some verbs take: bits of struct verb's opts. */
enum {
	OPT_MODE	= 1 << 0,
	OPT_DRY_RUN	= 1 << 1,
	OPT_JSON	= 1 << 2,
	OPT_SKIP_BAD	= 1 << 3,
	OPT_MATCH_DST	= 1 << 4,
	OPT_WATCH	= 1 << 5,
	OPT_NORMALIZE	= 1 << 6,
	OPT_SOURCE	= 1 << 7,
	OPT_TIMEOUT	= 1 << 8,
	OPT_ALL_SOURCES	= 1 << 9,
	OPT_EXACT	= 1 << 10,
	OPT_QUIET	= 1 << 11,
	OPT_FORCE	= 1 << 12,
};

/* getopt values of long options without a short form. */
enum {
	LOPT_SKIP_BAD	= 256,
	LOPT_MATCH_DST,
	LOPT_WATCH,
	LOPT_COUNT,
	LOPT_NORMALIZE,
	LOPT_EXACT,
	LOPT_FORCE,
};

struct verb {
	const char	*name;
	int		(*run)(const struct cfctl_opts *o);
	const char	*arg;		/* its one argument, or NULL */
	bool		entry;		/* @arg is an ENTRY: one or more words */
	unsigned int	opts;		/* OPT_* it takes besides -h and -v */
	const char	*synopsis;	/* after "cfctl NAME" */
	const char	*summary;	/* one line for the verb list */
	const char	*help;		/* more for `cfctl NAME --help` */
};

void cf_err(const char *fmt, ...)
{
	va_list ap;

	fputs("cfctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

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

/* add and allow: @words are the entry; returns enum cf_exit. */
static int add_entry(const struct cfctl_opts *o, const char *verb,
		     char *const words[], int n)
{
	char text[ENTRY_STRLEN];
	struct kf_entry e;
	int fd, err, ret;

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

static int do_add(const struct cfctl_opts *o)
{
	return add_entry(o, "add", o->words, o->nwords);
}

/* cfctl allow ADDR: cfctl add allow ADDR. */
static int do_allow(const struct cfctl_opts *o)
{
	char *words[] = { "allow", o->words[0] };

	if (o->nwords != 1) {
		cf_err("allow: unexpected argument '%s': expected one ADDR",
		       o->words[1]);
		return CF_USAGE;
	}
	return add_entry(o, "allow", words, 2);
}

static int do_del(const struct cfctl_opts *o)
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
static int do_test(const struct cfctl_opts *o)
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

/* A decimal number in [0, @max] for match; false if @s is not one. */
static bool match_number(const char *s, unsigned long max, __be16 *v)
{
	unsigned long n;
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || n > max)
		return false;
	*v = htons(n);
	return true;
}

/* The transport words of match: "tcp|udp SPORT DPORT" or "icmp|icmp6 TYPE". */
static int match_transport(char *const w[], int n, int v,
			   struct cfilter_pkt *pkt)
{
	bool icmp = !strcmp(w[0], "icmp") || !strcmp(w[0], "icmp6");

	if (strcmp(w[0], "tcp") && strcmp(w[0], "udp") && !icmp) {
		cf_err("match: unexpected '%s': expected tcp, udp, icmp or icmp6 after SRC DST",
		       w[0]);
		return CF_USAGE;
	}
	if (n != (icmp ? 2 : 3)) {
		cf_err("match: wrong number of words after '%s': expected %s",
		       w[0], icmp ? "icmp|icmp6 TYPE" : "tcp|udp SPORT DPORT");
		return CF_USAGE;
	}
	if (icmp && (w[0][4] == '6') != (v == 6)) {
		cf_err("match: '%s' with IPv%d addresses: use icmp for IPv4, icmp6 for IPv6",
		       w[0], v);
		return CF_USAGE;
	}
	if (icmp) {
		pkt->proto = v == 6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
		if (!match_number(w[1], 255, &pkt->sport)) {
			cf_err("match: invalid ICMP type '%s': expected 0 to 255", w[1]);
			return CF_USAGE;
		}
	} else {
		pkt->proto = !strcmp(w[0], "tcp") ? IPPROTO_TCP : IPPROTO_UDP;
		if (!match_number(w[1], 65535, &pkt->sport) ||
		    !match_number(w[2], 65535, &pkt->dport)) {
			cf_err("match: invalid port '%s': expected 0 to 65535",
			       match_number(w[1], 65535, &pkt->sport) ? w[2] : w[1]);
			return CF_USAGE;
		}
	}
	pkt->flags |= CFILTER_PKT_PORTS;
	return CF_OK;
}

/* "SRC [DST] [transport]" into @pkt; returns enum cf_exit. */
static int match_parse(char *const w[], int n, struct cfilter_pkt *pkt)
{
	const char *which = "SRC";
	int v = 0, v2, i;

	memset(pkt, 0, sizeof(*pkt));
	for (i = 0; i < 2 && i < n; i++) {
		v2 = addr_parse(w[i], i ? pkt->daddr : pkt->saddr);
		if (v2 < 0 && i == 1)
			break;	/* no DST: the transport words follow */
		if (v2 < 0 && strpbrk(w[i], "/-"))
			cf_err("match: %s '%s' is a prefix or range: match takes a packet, whose %s is one address",
			       which, w[i], which);
		else if (v2 < 0)
			cf_err("match: invalid %s '%s': expected an IPv4 or IPv6 address",
			       which, w[i]);
		if (v2 < 0)
			return CF_USAGE;
		if (i && v2 != v) {
			cf_err("match: DST '%s' is not of SRC's IP version", w[i]);
			return CF_USAGE;
		}
		v = v2;
		which = "DST";
	}
	pkt->family = v;
	if (i == 2)
		pkt->flags |= CFILTER_PKT_MATCH_DST;
	if (i == n)
		return CF_OK;
	if (i == 1) {
		cf_err("match: '%s' after SRC: a flow needs DST too: cfctl match SRC DST %s ...",
		       w[1], w[1]);
		return CF_USAGE;
	}
	return match_transport(w + 2, n - 2, v, pkt);
}

/* "drop", "pass" or "allowed": what becomes of the packet. */
static const char *verdict_word(__u32 verdict)
{
	if (CFILTER_VERDICT_DROPS(verdict))
		return "drop";
	return CFILTER_VERDICT_KIND(verdict) == CFILTER_ALLOWED ? "allowed" :
								  "pass";
}

/* Why: "source prefix", "exception", ...; NULL for a pass. */
static const char *verdict_reason(__u32 verdict)
{
	switch (CFILTER_VERDICT_KIND(verdict)) {
	case CFILTER_PASS:
		return NULL;
	case CFILTER_DROP_SRC:
		return "source address";
	case CFILTER_DROP_DST:
		return "destination address";
	case CFILTER_DROP_FLOW:
		return "flow";
	case CFILTER_ALLOWED:
		return "exception";
	case CFILTER_DROP_PREFIX:
		return verdict & CFILTER_VERDICT_DST ? "destination prefix" :
						       "source prefix";
	default:
		return "a reason this cfctl does not know";
	}
}

/* The packet match asked about, and the verdict, as one JSON document. */
static void match_json(const struct cfilter_pkt *pkt, const char *word,
		       const char *reason, const char *source)
{
	int af = pkt->family == 6 ? AF_INET6 : AF_INET;
	char a[INET6_ADDRSTRLEN];
	struct json j;

	json_init(&j, stdout);
	json_object_begin(&j);
	json_kv_string(&j, "saddr", inet_ntop(af, pkt->saddr, a, sizeof(a)));
	if (pkt->flags & CFILTER_PKT_MATCH_DST)
		json_kv_string(&j, "daddr",
			       inet_ntop(af, pkt->daddr, a, sizeof(a)));
	if (pkt->proto == IPPROTO_TCP || pkt->proto == IPPROTO_UDP) {
		json_kv_string(&j, "proto",
			       pkt->proto == IPPROTO_TCP ? "tcp" : "udp");
		json_kv_uint(&j, "sport", ntohs(pkt->sport));
		json_kv_uint(&j, "dport", ntohs(pkt->dport));
	} else if (pkt->proto) {
		json_kv_string(&j, "proto", af == AF_INET6 ? "icmp6" : "icmp");
		json_kv_uint(&j, "icmp_type", ntohs(pkt->sport));
	}
	json_kv_string(&j, "verdict", word);
	if (reason) {
		json_kv_string(&j, "reason", reason);
		json_kv_string(&j, "source", source);
	}
	json_object_end(&j);
}

static int do_match(const struct cfctl_opts *o)
{
	char source[CFILTER_SOURCE_LEN + 1];
	struct cfilter_match_req mr;
	struct cfilter_pkt pkt;
	const char *reason;
	int fd, err, ret;

	ret = match_parse(o->words, o->nwords, &pkt);
	if (ret != CF_OK)
		return ret;
	fd = dev_open(false);
	if (fd < 0)
		return CF_SYSTEM;
	err = dev_match(fd, &pkt, &mr);
	close(fd);
	if (err) {
		dev_report(err, "cannot match");
		return CF_SYSTEM;
	}
	snprintf(source, sizeof(source), "%.*s", CFILTER_SOURCE_LEN,
		 mr.source);
	reason = verdict_reason(mr.verdict);
	if (o->json)
		match_json(&pkt, verdict_word(mr.verdict), reason, source);
	else if (reason && !source_is_default(source))
		printf("%s (%s), source %s\n", verdict_word(mr.verdict),
		       reason, source);
	else if (reason)
		printf("%s (%s)\n", verdict_word(mr.verdict), reason);
	else
		printf("%s\n", verdict_word(mr.verdict));
	return CFILTER_VERDICT_DROPS(mr.verdict) ? CF_OK : CF_ABSENT;
}

static const char *mode_name(__u32 mode)
{
	switch (mode) {
	case CFILTER_MODE_EXACT:
		return "exact";
	case CFILTER_MODE_COMPACT:
		return "compact";
	default:
		return "unknown";
	}
}

static void print_info(const struct cfilter_info *info)
{
	printf("mode: %s\n", mode_name(info->mode));
	printf("capacity: %llu\n", (unsigned long long)info->capacity);
	printf("max_capacity: %llu\n", (unsigned long long)info->max_capacity);
	printf("count: %llu\n", (unsigned long long)info->count);
	printf("load_percent: %u.%02u\n", info->load_ppm / 10000,
	       info->load_ppm % 10000 / 100);
	printf("buckets: %llu\n", (unsigned long long)info->buckets);
	printf("slots_per_bucket: %u\n", info->slots_per_bucket);
	printf("fp_bits: %u\n", info->fp_bits);
	printf("max_kicks: %u\n", info->max_kicks);
	printf("memory_bytes: %llu\n", (unsigned long long)info->memory_bytes);
	printf("insert_failures: %llu\n",
	       (unsigned long long)info->insert_failures);
	printf("grows: %llu\n", (unsigned long long)info->grows);
	printf("prefixes: %llu\n", (unsigned long long)info->prefixes);
	printf("prefix_entries: %llu\n",
	       (unsigned long long)info->prefix_entries);
	printf("timed: %llu\n", (unsigned long long)info->timed);
	printf("mem_used: %llu\n", (unsigned long long)info->mem_used);
	printf("mem_limit: %llu\n", (unsigned long long)info->mem_limit);
}

/* "source NAME: entries N, timed M, drops D" per source, default first. */
static void print_sources(const struct cfilter_sources *s)
{
	unsigned int i;

	for (i = 0; i < s->count && i < CFILTER_SOURCES_MAX; i++)
		printf("source %.*s: entries %llu, timed %llu, drops %llu\n",
		       CFILTER_SOURCE_LEN, s->sources[i].name,
		       (unsigned long long)s->sources[i].entries,
		       (unsigned long long)s->sources[i].timed,
		       (unsigned long long)s->sources[i].drops);
}

static void sources_json(struct json *j, const struct cfilter_sources *s)
{
	char name[CFILTER_SOURCE_LEN + 1];
	unsigned int i;

	json_key(j, "sources");
	json_array_begin(j);
	for (i = 0; i < s->count && i < CFILTER_SOURCES_MAX; i++) {
		snprintf(name, sizeof(name), "%.*s", CFILTER_SOURCE_LEN,
			 s->sources[i].name);
		json_object_begin(j);
		json_kv_string(j, "name", name);
		json_kv_uint(j, "entries", s->sources[i].entries);
		json_kv_uint(j, "timed", s->sources[i].timed);
		json_kv_uint(j, "drops", s->sources[i].drops);
		json_object_end(j);
	}
	json_array_end(j);
}

/* "24,16": a type's prefix target lengths, or "-" if it has none. */
static void levels_text(const struct cfilter_type_info *ti, char *buf,
			size_t len)
{
	size_t n = 0;
	unsigned int i;

	snprintf(buf, len, "-");
	for (i = 0; i < ti->nlevels && i < CFILTER_PREFIX_LEVELS_MAX; i++)
		n += snprintf(buf + n, len - n, "%s%u", i ? "," : "",
			      ti->levels[i]);
}

static void print_type_info(const struct cfilter_type_info *ti)
{
	char levels[CFILTER_PREFIX_LEVELS_MAX * 4 + 1];

	levels_text(ti, levels, sizeof(levels));
	printf("%s: count %llu, prefixes %llu, prefix_entries %llu, levels %s, memory_bytes %llu, capacity %llu\n",
	       key_type_name(ti->type), (unsigned long long)ti->count,
	       (unsigned long long)ti->prefixes,
	       (unsigned long long)ti->prefix_entries, levels,
	       (unsigned long long)ti->memory_bytes,
	       (unsigned long long)ti->capacity);
}

static void type_info_json(struct json *j, const struct cfilter_type_info *ti)
{
	unsigned int i;

	json_object_begin(j);
	json_kv_string(j, "type", key_type_name(ti->type));
	json_kv_uint(j, "count", ti->count);
	json_kv_uint(j, "prefixes", ti->prefixes);
	json_kv_uint(j, "prefix_entries", ti->prefix_entries);
	json_key(j, "levels");
	json_array_begin(j);
	for (i = 0; i < ti->nlevels && i < CFILTER_PREFIX_LEVELS_MAX; i++)
		json_uint(j, ti->levels[i]);
	json_array_end(j);
	json_kv_uint(j, "memory_bytes", ti->memory_bytes);
	json_kv_uint(j, "capacity", ti->capacity);
	json_object_end(j);
}

static void print_info_json(const struct cfilter_info *info,
			    const struct cfilter_sources *sources,
			    const struct cfilter_type_info *types,
			    unsigned int ntypes)
{
	unsigned int i;
	struct json j;

	json_init(&j, stdout);
	json_object_begin(&j);
	json_kv_string(&j, "mode", mode_name(info->mode));
	json_kv_uint(&j, "capacity", info->capacity);
	json_kv_uint(&j, "max_capacity", info->max_capacity);
	json_kv_uint(&j, "count", info->count);
	json_key(&j, "load_percent");
	json_hundredths(&j, info->load_ppm / 100);
	json_kv_uint(&j, "buckets", info->buckets);
	json_kv_uint(&j, "slots_per_bucket", info->slots_per_bucket);
	json_kv_uint(&j, "fp_bits", info->fp_bits);
	json_kv_uint(&j, "max_kicks", info->max_kicks);
	json_kv_uint(&j, "memory_bytes", info->memory_bytes);
	json_kv_uint(&j, "insert_failures", info->insert_failures);
	json_kv_uint(&j, "grows", info->grows);
	json_kv_uint(&j, "prefixes", info->prefixes);
	json_kv_uint(&j, "prefix_entries", info->prefix_entries);
	json_kv_uint(&j, "timed", info->timed);
	json_kv_uint(&j, "mem_used", info->mem_used);
	json_kv_uint(&j, "mem_limit", info->mem_limit);
	sources_json(&j, sources);
	json_key(&j, "types");
	json_array_begin(&j);
	for (i = 0; i < ntypes; i++)
		type_info_json(&j, &types[i]);
	json_array_end(&j);
	json_object_end(&j);
}

static int do_info(const struct cfctl_opts *o)
{
	struct cfilter_type_info types[__CFILTER_KEY_MAX];
	struct cfilter_sources sources;
	struct cfilter_info info;
	unsigned int n = 0, i;
	__u8 type;
	int fd, err;

	fd = dev_open(false);
	if (fd < 0)
		return CF_SYSTEM;
	err = dev_info(fd, &info);
	if (!err)
		err = dev_sources(fd, &sources);
	/* EINVAL: a type this module lacks; it has nothing to show. */
	for (type = 1; !err && type < __CFILTER_KEY_MAX; type++) {
		err = dev_type_info(fd, type, false, &types[n]);
		if (!err)
			n++;
		else if (err == -EINVAL)
			err = 0;
	}
	close(fd);
	if (err) {
		dev_report(err, "cannot read the filter's info");
		return CF_SYSTEM;
	}
	if (o->json) {
		print_info_json(&info, &sources, types, n);
	} else {
		print_info(&info);
		print_sources(&sources);
		for (i = 0; i < n; i++)
			print_type_info(&types[i]);
	}
	return CF_OK;
}

/* --dry-run of clear: may the caller clear, and how much would go? */
static int clear_dry_run(int fd)
{
	struct dev_batch may = { .op = CFILTER_BATCH_DEL };
	struct cfilter_info info;
	__u32 done;
	int err;

	err = dev_batch(fd, &may, &done);
	if (!err)
		err = dev_info(fd, &info);
	if (err) {
		dev_report(err, "cannot clear");
		return CF_SYSTEM;
	}
	printf("would remove %llu entries (dry run: nothing changed)\n",
	       (unsigned long long)info.count);
	return CF_OK;
}

static int do_clear(const struct cfctl_opts *o)
{
	int fd, err;

	fd = dev_open(true);
	if (fd < 0)
		return CF_SYSTEM;
	if (o->dry_run) {
		err = clear_dry_run(fd);
		close(fd);
		return err;
	}
	err = dev_simple(fd, CFILTER_IOC_CLEAR);
	close(fd);
	if (err) {
		dev_report(err, "cannot clear");
		return CF_SYSTEM;
	}
	return CF_OK;
}

/* The entries @source holds, from SOURCES; -ENOENT if the set lacks it. */
static long long source_entries(int fd, const char *source)
{
	struct cfilter_sources s;
	unsigned int i;
	int err;

	err = dev_sources(fd, &s);
	if (err)
		return err;
	for (i = 0; i < s.count && i < CFILTER_SOURCES_MAX; i++)
		if (!strncmp(s.sources[i].name, source_shown(source),
			     CFILTER_SOURCE_LEN))
			return s.sources[i].entries;
	return -ENOENT;
}

/* cfctl flush -s NAME: every holding of NAME goes, the others stay. */
static int do_flush(const struct cfctl_opts *o)
{
	struct dev_batch may = { .op = CFILTER_BATCH_DEL };
	struct cfilter_info info;
	long long n;
	__u32 done;
	int fd, err;

	if (!o->source) {
		cf_err("flush: which source? cfctl flush -s NAME (cfctl clear removes every entry)");
		return CF_USAGE;
	}
	fd = dev_open(true);
	if (fd < 0)
		return CF_SYSTEM;
	n = source_entries(fd, o->source);
	err = n < 0 ? n : 0;
	if (!err && o->dry_run) {
		err = dev_batch(fd, &may, &done);
		if (!err)
			err = dev_info(fd, &info);
		if (!err && info.mode == CFILTER_MODE_COMPACT)
			err = -EOPNOTSUPP;
	} else if (!err) {
		err = dev_source_req(fd, CFILTER_IOC_FLUSH, o->source);
	}
	close(fd);
	if (err == -ENOENT) {
		cf_err("flush: the filter has no source '%s': cfctl info lists its sources",
		       o->source);
		return CF_USAGE;
	}
	if (err) {
		dev_report(err, "cannot flush");
		return CF_SYSTEM;
	}
	printf("%s source %s: %lld entr%s%s\n",
	       o->dry_run ? "would flush" : "flushed", source_shown(o->source),
	       n, n == 1 ? "y" : "ies",
	       o->dry_run ? " (dry run: nothing changed)" : "");
	return CF_OK;
}

/* Outcomes first, in the order the program decides them. */
static const struct {
	enum cfilter_stat	stat;
	const char		*name;
} counters[] = {
	{ CFILTER_STAT_PASS,		"passed" },
	{ CFILTER_STAT_ALLOWED,		"allowed" },
	{ CFILTER_STAT_DROP_SRC,	"dropped_src" },
	{ CFILTER_STAT_DROP_DST,	"dropped_dst" },
	{ CFILTER_STAT_DROP_FLOW,	"dropped_flow" },
	{ CFILTER_STAT_DROP_PREFIX,	"dropped_prefix" },
	{ CFILTER_STAT_DROP_FRAG,	"dropped_tiny_fragment" },
	{ CFILTER_STAT_DROP_DEEP,	"dropped_deep_headers" },
	{ CFILTER_STAT_UNPARSED,	"unparsed" },
};

/*
 * The program's counters, then the drops of each source of the live set
 * (@src NULL: none to show).
 */
static void print_counters(const struct cfctl_opts *o, const __u64 *sums,
			   const struct cfilter_sources *src)
{
	char name[CFILTER_SOURCE_LEN + 1];
	struct json j;
	unsigned int i;

	json_init(&j, stdout);
	if (o->json)
		json_object_begin(&j);
	for (i = 0; i < ARRAY_SIZE(counters); i++) {
		__u64 n = sums[counters[i].stat];

		if (o->json)
			json_kv_uint(&j, counters[i].name, n);
		else
			printf("%s: %llu\n", counters[i].name,
			       (unsigned long long)n);
	}
	if (src && o->json) {
		json_key(&j, "sources");
		json_array_begin(&j);
	}
	for (i = 0; src && i < src->count && i < CFILTER_SOURCES_MAX; i++) {
		snprintf(name, sizeof(name), "%.*s", CFILTER_SOURCE_LEN,
			 src->sources[i].name);
		if (!o->json) {
			printf("source %s: drops %llu\n", name,
			       (unsigned long long)src->sources[i].drops);
			continue;
		}
		json_object_begin(&j);
		json_kv_string(&j, "name", name);
		json_kv_uint(&j, "drops", src->sources[i].drops);
		json_object_end(&j);
	}
	if (src && o->json)
		json_array_end(&j);
	if (o->json)
		json_object_end(&j);
}

/* One line (text or a JSON document) of packets per second per counter. */
static void print_rates(const struct cfctl_opts *o, const __u64 *cur,
			const __u64 *prev)
{
	struct json j;
	unsigned int i;

	json_init(&j, stdout);
	if (o->json)
		json_object_begin(&j);
	for (i = 0; i < ARRAY_SIZE(counters); i++) {
		enum cfilter_stat s = counters[i].stat;
		__u64 rate = (cur[s] - prev[s]) / o->interval;

		if (o->json)
			json_kv_uint(&j, counters[i].name, rate);
		else
			printf("%s%s %llu/s", i ? " " : "", counters[i].name,
			       (unsigned long long)rate);
	}
	if (o->json)
		json_object_end(&j);
	else
		putchar('\n');
	fflush(stdout);
}

static volatile sig_atomic_t stop_watch;

static void on_stop(int sig)
{
	(void)sig;
	stop_watch = 1;
}

/*
 * Without SA_RESTART, so that a signal cuts the sleep short: an interrupted
 * watch ends at once, and successfully, as the operator asked it to.
 */
static void catch_stop_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static int stats_watch(const struct cfctl_opts *o)
{
	__u64 prev[__CFILTER_STAT_MAX], cur[__CFILTER_STAT_MAX];
	unsigned int n;
	int ret;

	catch_stop_signals();
	ret = xdp_stats(prev);
	for (n = 0; ret == CF_OK && (!o->count || n < o->count); n++) {
		sleep(o->interval);
		if (stop_watch)
			break;
		ret = xdp_stats(cur);
		if (ret != CF_OK)
			break;
		print_rates(o, cur, prev);
		memcpy(prev, cur, sizeof(prev));
	}
	return ret;
}

static int do_stats(const struct cfctl_opts *o)
{
	__u64 sums[__CFILTER_STAT_MAX];
	int ret;

	struct cfilter_sources src;

	if (o->watch)
		return stats_watch(o);
	ret = xdp_stats(sums);
	if (ret != CF_OK)
		return ret;
	print_counters(o, sums, dev_sources_quiet(&src) ? NULL : &src);
	return ret;
}

static int do_status(const struct cfctl_opts *o)
{
	return xdp_status(o->json);
}

static int do_attach(const struct cfctl_opts *o)
{
	const struct xdp_attach_req r = {
		.mode = o->mode, .match_dst = o->match_dst, .force = o->force,
		.verbose = o->verbose, .dry_run = o->dry_run,
	};

	return xdp_attach(o->arg, &r);
}

static int do_detach(const struct cfctl_opts *o)
{
	return xdp_detach(o->arg, o->verbose, o->dry_run);
}

/* Every option of every verb, in the order help lists them. */
struct cf_option {
	struct option	lo;
	unsigned int	only;	/* the OPT_* bit of the verbs that take it; 0: all */
	const char	*usage;
	const char	*help;	/* lines after the first are indented */
};

static const struct cf_option options[] = {
	{ { "help", no_argument, NULL, 'h' }, 0,
	  "-h, --help", "show this help" },
	{ { "verbose", no_argument, NULL, 'v' }, 0,
	  "-v, --verbose", "show libbpf's messages (attach, detach)" },
	{ { "mode", required_argument, NULL, 'm' }, OPT_MODE,
	  "-m, --mode MODE", "native: in the driver; generic: in the network stack\n"
	  "(any interface, slower); tc: a TC filter on clsact\n"
	  "ingress, for links without native XDP; default:\n"
	  "native if the driver supports it. The mode obtained\n"
	  "is printed." },
	{ { "dry-run", no_argument, NULL, 'n' }, OPT_DRY_RUN,
	  "-n, --dry-run", "check the input, the device and the permissions;\n"
	  "print what would be done, change nothing, and exit\n"
	  "as the command would" },
	{ { "json", no_argument, NULL, 'j' }, OPT_JSON,
	  "-j, --json", "print one JSON document instead of text" },
	{ { "quiet", no_argument, NULL, 'q' }, OPT_QUIET,
	  "-q, --quiet", "print nothing on stdout (errors still go to\n"
	  "stderr): the exit status is the answer" },
	{ { "source", required_argument, NULL, 's' }, OPT_SOURCE,
	  "-s, --source NAME", "the holdings of source NAME (1 to 31 characters of\n"
	  "A-Z a-z 0-9 _ . : @ -, not starting with -); without\n"
	  "it: add, allow, del, load and replace use \"default\",\n"
	  "test, list and save every source" },
	{ { "timeout", required_argument, NULL, 't' }, OPT_TIMEOUT,
	  "-t, --timeout SECS", "the holding expires after SECS seconds (0 to\n"
	  "2147483647; 0, the default: never); load, replace:\n"
	  "for lines without timeout or expires of their own" },
	{ { "all-sources", no_argument, NULL, 'a' }, OPT_ALL_SOURCES,
	  "-a, --all-sources", "del: remove the holding of every source; list:\n"
	  "every source's holdings, as without -s" },
	{ { "exact", no_argument, NULL, LOPT_EXACT }, OPT_EXACT,
	  "--exact", "test: whether this very entry is stored, not\n"
	  "whether a stored entry covers it" },
	{ { "skip-bad", no_argument, NULL, LOPT_SKIP_BAD }, OPT_SKIP_BAD,
	  "--skip-bad", "report malformed lines and load the others" },
	{ { "normalize", no_argument, NULL, LOPT_NORMALIZE }, OPT_NORMALIZE,
	  "--normalize", "mask the host bits of a prefix such as 192.0.2.7/24\n"
	  "(to 192.0.2.0/24) instead of refusing the line" },
	{ { "force", no_argument, NULL, LOPT_FORCE }, OPT_FORCE,
	  "--force", "replace another tool's XDP program on IFACE, in one\n"
	  "step and in its mode" },
	{ { "match-dst", no_argument, NULL, LOPT_MATCH_DST }, OPT_MATCH_DST,
	  "--match-dst", "match destination entries (dst ADDR) too; without\n"
	  "it they are stored but match no packet" },
	{ { "watch", no_argument, NULL, LOPT_WATCH }, OPT_WATCH,
	  "--watch", "print packets per second per counter, one line per\n"
	  "interval, until interrupted (Ctrl-C exits 0)" },
	{ { "interval", required_argument, NULL, 'i' }, OPT_WATCH,
	  "-i, --interval SECS", "--watch: seconds per line (1-3600, default 1)" },
	{ { "count", required_argument, NULL, LOPT_COUNT }, OPT_WATCH,
	  "--count N", "--watch: stop after N lines" },
};

/* cfctl's own options, before the command. */
static const struct option global_opts[] = {
	{ "help",	no_argument,	NULL, 'h' },
	{ "verbose",	no_argument,	NULL, 'v' },
	{ "json",	no_argument,	NULL, 'j' },
	{ "quiet",	no_argument,	NULL, 'q' },
	{ "version",	no_argument,	NULL, 'V' },
	{ }
};

static const struct verb verbs[] = {
	{
		.name = "add", .run = do_add, .arg = "ENTRY", .entry = true,
		.opts = OPT_DRY_RUN | OPT_SOURCE | OPT_TIMEOUT | OPT_QUIET,
		.synopsis = "[-n] [-s NAME] [-t SECS] ENTRY",
		.summary = "block what ENTRY names",
		.help = "ENTRY is one of:\n"
			"  ADDR | src ADDR                  packets from ADDR (IPv4 or IPv6)\n"
			"  dst ADDR                         packets to ADDR (needs attach --match-dst)\n"
			"  tcp|udp SADDR:SPORT DADDR:DPORT  one flow; IPv6 as [ADDR]:PORT\n"
			"  icmp|icmp6 SADDR DADDR TYPE      ICMP/ICMPv6 messages of TYPE (0-255)\n"
			"  allow ADDR                       never drop packets from ADDR\n"
			"The ADDR of src, dst and allow may be a prefix, 203.0.113.0/24 or\n"
			"2001:db8::/32 (host bits zero: 192.0.2.7/24 is refused), or a range\n"
			"FIRST-LAST, added as the fewest prefixes covering it, in one call.\n"
			"A flow names single addresses.\n"
			"An allow entry wins over every other: a packet from ADDR passes\n"
			"whichever entry would drop it. Non-first fragments carry no ports and\n"
			"match no flow (their addresses still match).\n"
			"The entry is held by the source -s names (\"default\" without it),\n"
			"for -t seconds or for ever; it stays blocked while any source holds\n"
			"it. Adding an entry the source holds already succeeds, sets its\n"
			"timeout anew (-t, or none) and says so on stderr.\n"
			"A full filter is a system error (exit 3): in exact mode the filter\n"
			"grows by itself up to the module's max_capacity= keys per entry\n"
			"type; in compact mode it holds capacity= keys. Reload the module\n"
			"with a larger value to hold more.\n",
	}, {
		.name = "allow", .run = do_allow, .arg = "ADDR", .entry = true,
		.opts = OPT_DRY_RUN | OPT_SOURCE | OPT_TIMEOUT | OPT_QUIET,
		.synopsis = "[-n] [-s NAME] [-t SECS] ADDR",
		.summary = "never drop packets from ADDR (add allow ADDR)",
		.help = "ADDR may be a prefix or a range, as for add; -s and -t as for add.\n"
			"Undo with cfctl del allow ADDR.\n",
	}, {
		.name = "del", .run = do_del, .arg = "ENTRY", .entry = true,
		.opts = OPT_DRY_RUN | OPT_SOURCE | OPT_ALL_SOURCES | OPT_QUIET,
		.synopsis = "[-n] [-s NAME | -a] ENTRY",
		.summary = "remove a source's holding of ENTRY (see add)",
		.help = "Removes the holding of the source -s names (\"default\" without it),\n"
			"or with -a every source's: ENTRY stays blocked while another source\n"
			"holds it. Exits 1 if that source does not hold ENTRY (naming the\n"
			"sources that do); for a range, if it does not hold one of its\n"
			"prefixes. A prefix is deleted as it was added: deleting an address\n"
			"inside a stored prefix does not split the prefix.\n",
	}, {
		.name = "test", .run = do_test, .arg = "ENTRY", .entry = true,
		.opts = OPT_SOURCE | OPT_JSON | OPT_EXACT | OPT_QUIET,
		.synopsis = "[-j] [-s NAME] [--exact] ENTRY",
		.summary = "tell whether ENTRY (see add) is blocked, and by what",
		.help = "Exits 0 if a stored entry covers ENTRY (an address equal to it, or a\n"
			"prefix or range containing it) and no allow entry does, and prints\n"
			"\"ENTRY: blocked by PREFIX (held by SOURCES)\" (\"blocked (held by\n"
			"...)\" if ENTRY itself is stored). The longest covering entry is\n"
			"named; shorter ones may cover ENTRY too. An address an allow entry\n"
			"covers is not blocked (exit 1): \"ENTRY: allowed by PREFIX (held by\n"
			"...)\", \", though blocked by PREFIX (...)\" if a block entry covers it\n"
			"too. Else \"ENTRY: not blocked\" (exit 1). For allow ADDR, exit 0 if an\n"
			"allow entry covers ADDR. Flows are exact; a range is refused.\n"
			"With -s NAME, NAME's entries alone count (the others are named).\n"
			"With --exact, exit 0 only if this very entry is stored (an address\n"
			"inside a stored prefix is not); allow entries are not asked.\n"
			"JSON: {\"entry\":\"198.19.3.3\",\"blocked\":true,\"allowed\":false,\n"
			"\"by\":\"198.18.0.0/15\",\"sources\":[\"default\"]}, with allowed_by and\n"
			"allowed_sources when an allow entry covers it.\n"
			"In exact mode (the default) the answer is always right. In compact\n"
			"mode, like any cuckoo filter, it may call an address that was never\n"
			"added present (a false positive), never the reverse.\n",
	}, {
		.name = "match", .run = do_match, .arg = "SRC", .entry = true,
		.opts = OPT_JSON | OPT_QUIET,
		.synopsis = "[-j] SRC [DST [PROTO PORTS|TYPE]]",
		.summary = "tell what the filter does to such a packet",
		.help = "PROTO PORTS|TYPE: tcp|udp SPORT DPORT, or icmp|icmp6 TYPE.\n"
			"Asks the module what the XDP program would decide for a packet from\n"
			"SRC (to DST, of that flow), prefixes and the allow list included,\n"
			"and prints it: \"drop (source address)\", \"drop (source prefix)\",\n"
			"\"drop (destination address)\", \"drop (destination prefix)\",\n"
			"\"drop (flow)\", \"allowed (exception)\" or \"pass\". Exits 0 if the\n"
			"packet would be dropped, 1 if it would pass (allowed included).\n"
			"With DST, destination entries are matched, as after attach\n"
			"--match-dst; without it, the source only.\n"
			"JSON: {\"saddr\":\"203.0.113.9\",\"verdict\":\"drop\",\"reason\":\n"
			"\"source prefix\"}, with daddr, proto and sport and dport or icmp_type\n"
			"when given; verdict drop, allowed or pass (no reason).\n",
	}, {
		.name = "load", .run = do_load, .arg = "FILE",
		.opts = OPT_DRY_RUN | OPT_SKIP_BAD | OPT_NORMALIZE | OPT_SOURCE |
			OPT_TIMEOUT | OPT_QUIET,
		.synopsis = "[-n] [--skip-bad] [--normalize] [-s NAME] [-t SECS] FILE|-",
		.summary = "add the entries listed in FILE",
		.help = "One entry (see add) per line, which may end in \"timeout SECS\" or\n"
			"\"expires UNIXTIME\" (an entry expired already is skipped, and\n"
			"counted). A line \"source NAME\" gives the lines after it to NAME;\n"
			"those before any go to -s NAME, else to \"default\". Blank lines,\n"
			"comments from '#' or ';' to the end of the line, surrounding\n"
			"whitespace and a leading \"add \" are ignored: cfctl save writes this\n"
			"format. So is what ipset save writes of hash:ip and hash:net sets\n"
			"(ipset save NAME | cfctl load -): a nomatch entry is an allow entry,\n"
			"a timeout is kept. -t is the timeout of lines without their own.\n"
			"The whole file is read first; a malformed line is reported as\n"
			"FILE:LINE: and nothing is loaded (exit 2) unless --skip-bad is given\n"
			"(which never skips a bad source line).\n"
			"Then prints \"loaded N entries (A added, E already present, S\n"
			"skipped)\". Should the filter fill up, the entries added stay, and\n"
			"cfctl says how many and which line failed (exit 3).\n",
	}, {
		.name = "replace", .run = do_replace, .arg = "FILE",
		.opts = OPT_DRY_RUN | OPT_SKIP_BAD | OPT_NORMALIZE | OPT_SOURCE |
			OPT_TIMEOUT | OPT_QUIET,
		.synopsis = "[-n] [--skip-bad] [--normalize] [-s NAME] [-t SECS] FILE|-",
		.summary = "make FILE's entries the whole filter (or NAME's), atomically",
		.help = "Reads FILE as load does, builds the new set beside the live one and\n"
			"swaps it in at once: packets meet the old set or the new one, never\n"
			"a mix or an empty filter. Without -s, FILE (its source lines\n"
			"included) becomes the whole filter: cfctl save > F; cfctl replace F\n"
			"restores every source and deadline. With -s NAME, FILE becomes\n"
			"NAME's holdings and every other source's stay (a FILE with a source\n"
			"line naming another source is refused, exit 2). Any failure before\n"
			"the swap (a malformed line without --skip-bad: exit 2; a full\n"
			"filter: exit 3) leaves the live set untouched, and says so. Then\n"
			"prints \"replaced the filter (or source NAME) with N entries (A\n"
			"added, R repeated, S skipped)\". --dry-run parses only.\n",
	}, {
		.name = "save", .run = do_save,
		.opts = OPT_SOURCE,
		.synopsis = "[-s NAME]",
		.summary = "print every entry, for load",
		.help = "A comment line with the count, the date and cfctl's version, then\n"
			"per source a line \"source NAME\" and its entries, one per line, in\n"
			"add's syntax, sorted, a timed one ending in \"expires UNIXTIME\":\n"
			"cfctl save > F; cfctl replace F restores the filter, every source and\n"
			"deadline. With -s NAME, that source's entries alone, without the\n"
			"source line (exit 2 if the filter has no such source). Exact mode\n"
			"only: a compact filter keeps its addresses and flows as fingerprints,\n"
			"which cannot be listed (exit 3): use cfctl snapshot there.\n",
	}, {
		.name = "snapshot", .run = do_snapshot, .arg = "FILE",
		.opts = OPT_DRY_RUN,
		.synopsis = "[-n] FILE",
		.summary = "save the whole filter, in either mode, to FILE",
		.help = "A binary file (see cfctl(8)): in compact mode the raw tables and the\n"
			"prefixes, in exact mode every entry; with a checksum. Written to\n"
			"FILE.tmp, then renamed: FILE is whole or untouched. Entries changed\n"
			"while it runs may or may not be in it.\n",
	}, {
		.name = "restore", .run = do_restore, .arg = "FILE",
		.opts = OPT_DRY_RUN,
		.synopsis = "[-n] FILE",
		.summary = "replace the whole filter with a snapshot, atomically",
		.help = "Checks all of FILE first: not a snapshot, another format version,\n"
			"truncated or corrupted (checksum mismatch) is exit 2. An exact\n"
			"snapshot (its entries) restores into any module; a compact one (raw\n"
			"tables) needs a compact module with its fp_bits=: if not, cfctl names\n"
			"the parameter (exit 3). Then swaps the snapshot in as replace does;\n"
			"nothing changes if any step fails.\n",
	}, {
		.name = "list", .run = do_list,
		.opts = OPT_JSON | OPT_SOURCE | OPT_ALL_SOURCES,
		.synopsis = "[-j] [-s NAME | -a]",
		.summary = "print every holding",
		.help = "Sorted by entry, one holding per line, as the options and words of\n"
			"the cfctl add that would make it: \"[-s SOURCE] [-t SECONDS-LEFT] ENTRY\",\n"
			"-s left out for \"default\" and -t for a permanent holding; no header.\n"
			"With -s NAME, NAME's alone, without -s (exit 2 if the filter has no\n"
			"such source). In compact mode the filter keeps addresses and flows as\n"
			"fingerprints only: list prints the prefixes, with a note on stderr.\n"
			"Entries added or deleted while list runs may or may not be printed.\n"
			"JSON: {\"entries\":[{\"type\":\"src4\",\"entry\":\"192.0.2.0/24\",\"addr\":\n"
			"\"192.0.2.0\",\"prefix_len\":24,\"source\":\"default\",\"timeout\":0}]};\n"
			"flows have proto, saddr, daddr and sport and dport, or icmp_type,\n"
			"instead of addr and prefix_len; timeout is the seconds left, 0 for\n"
			"never.\n",
	}, {
		.name = "crowdsec", .run = do_crowdsec,
		.opts = OPT_SOURCE,
		.synopsis = "[-s NAME]",
		.summary = "apply CrowdSec decisions read from stdin, until it ends",
		.help = "For crowdsec-custom-bouncer with feed_via_stdin: true and bin_path\n"
			"naming a script that runs cfctl crowdsec (see cfctl(8)): it writes each\n"
			"decision as one line of JSON, action \"add\" when CrowdSec decides a ban\n"
			"and \"del\" when the decision expires or is deleted. Bans of scope Ip\n"
			"and Range are held by source \"crowdsec\" (or -s NAME) for the\n"
			"decision's duration, so they end on time even if the bouncer is gone,\n"
			"and deleted as they come (a duration of 0 or less deletes too); every\n"
			"burst of lines in one call. Other remedies (captcha) and scopes\n"
			"(Country, AS), and simulated decisions, are skipped. A malformed line\n"
			"is reported with its number and skipped. When stdin ends, prints what\n"
			"it did and exits 0; exits 3 if the module fails. In compact mode,\n"
			"without -s, bans go to \"default\" without a timeout (with a note).\n",
	}, {
		.name = "info", .run = do_info,
		.opts = OPT_JSON,
		.synopsis = "[-j]",
		.summary = "show the filter's size and occupancy",
		.help = "Prints one \"key: value\" line per property: mode (exact or compact),\n"
			"capacity (slots), max_capacity (keys each entry type may grow\n"
			"to hold), count, load, geometry, memory_bytes, insert_failures (adds\n"
			"refused because the filter was full) and grows (table doublings).\n"
			"Counts and sizes add up the tables of every entry type (source,\n"
			"destination, flow and allow; IPv4 and IPv6); prefixes (among count)\n"
			"and prefix_entries (what their expansion stores) too; timed, the\n"
			"holdings with a timeout; mem_used, the bytes every set (staged ones\n"
			"too) takes against mem_limit, the module's max_memory= bound. Then\n"
			"one line per source, \"default\" first:\n"
			"\"source NAME: entries N, timed T\"; and one line per entry type: its\n"
			"count, prefixes, prefix_entries, levels (the lengths prefixes are\n"
			"expanded to, or -), memory_bytes and capacity. JSON uses the same\n"
			"names, the sources in a \"sources\" array of {name, entries, timed},\n"
			"the types in a \"types\" array.\n",
	}, {
		.name = "flush", .run = do_flush,
		.opts = OPT_DRY_RUN | OPT_SOURCE | OPT_QUIET,
		.synopsis = "[-n] -s NAME",
		.summary = "remove every holding of source NAME",
		.help = "Entries other sources hold stay blocked. Exit 2 if the filter has no\n"
			"source NAME (a source holding nothing is gone); 3 in compact mode,\n"
			"which knows no sources (cfctl clear removes everything there).\n",
	}, {
		.name = "clear", .run = do_clear,
		.opts = OPT_DRY_RUN | OPT_QUIET,
		.synopsis = "[-n]",
		.summary = "remove every entry, of every source",
	}, {
		.name = "stats", .run = do_stats,
		.opts = OPT_JSON | OPT_WATCH,
		.synopsis = "[-j] [--watch [-i SECS] [--count N]]",
		.summary = "show the XDP program's packet counters",
		.help = "Prints the packets passed, allowed (would be dropped, but the source\n"
			"is on the allow list; passed), dropped by source, destination or flow\n"
			"entry or by a source or destination prefix, dropped as a tiny first\n"
			"fragment (too short to hold its ports) or for deep headers (more than\n"
			"6 IPv6 extension headers or 2 VLAN tags), and unparsed (not IP,\n"
			"truncated or malformed; passed too) on every interface the program\n"
			"is attached to,\n"
			"since the first attach after boot. They live in " CF_STATS_PIN ".\n"
			"With --watch, prints their rates instead; with -j, one JSON object\n"
			"per line.\n",
	}, {
		.name = "status", .run = do_status,
		.opts = OPT_JSON,
		.synopsis = "[-j]",
		.summary = "show where the XDP program runs",
		.help = "Prints whether cfilter.ko is loaded, and with the BTF programs\n"
			"need to call its kfunc, then one line per interface running\n"
			"cfilter_xdp: its mode, program id and whether destination matching\n"
			"(attach --match-dst) is on; or \"not attached anywhere\".\n"
			"JSON: {\"module_loaded\":true,\"module_btf\":true,\"attached\":[{\"interface\":\"eth0\",\n"
			"\"hook\":\"xdp\",\"mode\":\"native\",\"prog_id\":7,\"match_dst\":false}]}.\n",
	}, {
		.name = "attach", .run = do_attach, .arg = "IFACE",
		.opts = OPT_MODE | OPT_DRY_RUN | OPT_MATCH_DST | OPT_FORCE,
		.synopsis = "[-n] [--match-dst] [--force] IFACE [-m native|generic|tc]",
		.summary = "attach the XDP (or TC) program to IFACE",
		.help = "The program stays attached after cfctl exits. Needs cfilter.ko loaded.\n"
			"An interface runs it once: attaching again replaces it in one step,\n"
			"in the same hook and mode (to turn --match-dst on or off with no\n"
			"unfiltered moment); another mode there is an error (exit 3) until\n"
			"cfctl detach. Another tool's XDP program there is an error too,\n"
			"unless --force: then cfilter's replaces it in one step.\n",
	}, {
		.name = "detach", .run = do_detach, .arg = "IFACE",
		.opts = OPT_DRY_RUN,
		.synopsis = "[-n] IFACE",
		.summary = "detach the XDP or TC program from IFACE",
		.help = "Refuses to detach another tool's program. The counters stay in\n"
			CF_STATS_PIN " for the next attach, and a clsact qdisc\n"
			"stays for the other filters it may hold.\n",
	},
};

/* Prints @text's lines, the first after @usage, the others under it. */
static void option_help(FILE *out, const struct cf_option *opt)
{
	const char *text = opt->help, *nl;

	/* A long one gets the help on lines of its own. */
	if (strlen(opt->usage) > 18)
		fprintf(out, "  %s\n%21s", opt->usage, "");
	else
		fprintf(out, "  %-18s ", opt->usage);
	while ((nl = strchr(text, '\n'))) {
		fprintf(out, "%.*s\n%21s", (int)(nl - text), text, "");
		text = nl + 1;
	}
	fprintf(out, "%s\n", text);
}

static void usage(FILE *out)
{
	unsigned int i;

	fprintf(out, "Usage: cfctl [-v] [-j|-q] COMMAND [OPTIONS] [ARGS]\n"
		"       cfctl -V|--version\n"
		"Manage cfilter's filters (blocked sources, destinations and flows, and\n"
		"allowed sources) and its XDP program.\n\n"
		"Commands:\n");
	for (i = 0; i < ARRAY_SIZE(verbs); i++) {
		/* A long synopsis gets the summary on a line of its own. */
		if (strlen(verbs[i].synopsis) > 30)
			fprintf(out, "  %-8s %s\n  %-39s %s\n", verbs[i].name,
				verbs[i].synopsis, "", verbs[i].summary);
		else
			fprintf(out, "  %-8s %-30s %s\n", verbs[i].name,
				verbs[i].synopsis, verbs[i].summary);
	}
	fprintf(out, "\nOptions:\n");
	for (i = 0; i < ARRAY_SIZE(options); i++)
		option_help(out, &options[i]);
	fprintf(out, "  %-18s %s\n", "-V, --version",
		"print cfctl's version and the loaded module's");
	fprintf(out, "-j and -q before the command work as after it. cfctl COMMAND --help\n"
		"shows a command's own options.\n\n"
		"Exit status: 0 success (test: blocked; match: dropped), 1 not blocked\n"
		"(test), not present (del) or passed (match),\n"
		"2 usage error or malformed input, 3 system error (module not loaded,\n"
		"permission denied, filter full, list in compact mode, ...).\n");
}

static void verb_usage(const struct verb *v, FILE *out)
{
	unsigned int i;

	fprintf(out, "Usage: cfctl %s%s%s\n%c%s.\n", v->name,
		*v->synopsis ? " " : "", v->synopsis,
		toupper((unsigned char)v->summary[0]), v->summary + 1);
	if (v->help)
		fprintf(out, "%s", v->help);
	fprintf(out, "Options:\n");
	for (i = 0; i < ARRAY_SIZE(options); i++)
		if (!options[i].only || (options[i].only & v->opts))
			option_help(out, &options[i]);
	fprintf(out, "Run cfctl --help for the exit statuses.\n");
}

/* After a usage error: the verb's synopsis and where to read more. */
static void verb_hint(const struct verb *v)
{
	fprintf(stderr, "Usage: cfctl %s%s%s (cfctl %s --help for more)\n",
		v->name, *v->synopsis ? " " : "", v->synopsis, v->name);
}

/* After a usage error before any command. */
static void hint(void)
{
	fprintf(stderr, "Usage: cfctl [-v] [-j|-q] COMMAND [OPTIONS] [ARGS] (cfctl --help for the commands)\n");
}

static const struct verb *find_verb(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(verbs); i++)
		if (!strcmp(verbs[i].name, name))
			return &verbs[i];
	return NULL;
}

static int parse_mode(const char *s, enum cf_xdp_mode *mode)
{
	if (!strcmp(s, "native"))
		*mode = CF_XDP_NATIVE;
	else if (!strcmp(s, "generic"))
		*mode = CF_XDP_GENERIC;
	else if (!strcmp(s, "tc"))
		*mode = CF_TC;
	else
		return -EINVAL;
	return 0;
}

/* The verbs that take @opt, for "only ... take it" messages. */
static void verbs_taking(unsigned int opt, char *buf, size_t len)
{
	const char *sep = "";
	unsigned int i;
	int n;

	*buf = '\0';
	for (i = 0; i < ARRAY_SIZE(verbs) && len > 1; i++) {
		if (!(verbs[i].opts & opt))
			continue;
		n = snprintf(buf, len, "%s%s", sep, verbs[i].name);
		if (n < 0 || (size_t)n >= len)
			break;
		buf += n;
		len -= n;
		sep = ", ";
	}
}

/* The option getopt_long() refused, if another verb takes it. */
static const struct cf_option *other_verbs_option(const char *arg)
{
	unsigned int i;
	size_t len;

	for (i = 0; i < ARRAY_SIZE(options); i++) {
		const struct option *lo = &options[i].lo;

		if (!options[i].only)
			continue;
		if (optopt && optopt == lo->val)
			return &options[i];
		if (optopt || strncmp(arg, "--", 2))
			continue;
		len = strcspn(arg + 2, "=");
		if (len == strlen(lo->name) && !strncmp(arg + 2, lo->name, len))
			return &options[i];
	}
	return NULL;
}

/* Names the option getopt_long() refused: a short one, or a long one. */
static void bad_option(const struct verb *v, char *const argv[])
{
	const struct cf_option *opt = other_verbs_option(argv[optind - 1]);
	char which[128];

	if (opt) {
		verbs_taking(opt->only, which, sizeof(which));
		cf_err("%s: %s applies only to %s", v->name, opt->usage, which);
	} else if (optopt && optopt < LOPT_SKIP_BAD) {
		cf_err("%s: unknown option '-%c'", v->name, optopt);
	} else {
		cf_err("%s: unknown option '%s'", v->name, argv[optind - 1]);
	}
	verb_hint(v);
}

/* Parses all of @s as a decimal number in [@min, @max]. Returns 0 or -1. */
static int parse_uint(const char *s, unsigned int min, unsigned int max,
		      unsigned int *v)
{
	unsigned long n;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || n < min || n > max)
		return -1;
	*v = n;
	return 0;
}

/*
 * getopt_long()'s tables for @v: the options it takes. @shorts has room for
 * ":" and "x:" per option; @longs for every option and the terminator.
 */
static void verb_getopt(const struct verb *v, char *shorts,
			struct option *longs)
{
	unsigned int i;

	*shorts++ = ':';	/* a missing argument is ':', not '?' */
	for (i = 0; i < ARRAY_SIZE(options); i++) {
		const struct option *lo = &options[i].lo;

		if (options[i].only && !(options[i].only & v->opts))
			continue;
		*longs++ = *lo;
		if (lo->val >= LOPT_SKIP_BAD)
			continue;
		*shorts++ = lo->val;
		if (lo->has_arg == required_argument)
			*shorts++ = ':';
	}
	*shorts = '\0';
	memset(longs, 0, sizeof(*longs));
}

/*
 * Parses the verb's options and argument (argv[0] is the verb). Returns -1
 * to run the verb, or the exit status to end with.
 */
static int parse_verb(const struct verb *v, int argc, char *argv[],
		      struct cfctl_opts *o)
{
	struct option longs[ARRAY_SIZE(options) + 1];
	char shorts[1 + 2 * ARRAY_SIZE(options) + 1];
	char which[128];
	int c;

	verb_getopt(v, shorts, longs);
	/* glibc: 0 re-initialises, dropping the global parse's "+" mode. */
	optind = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		switch (c) {
		case 'h':
			verb_usage(v, stdout);
			return CF_OK;
		case 'v':
			o->verbose = true;
			break;
		case 'n':
			o->dry_run = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case LOPT_EXACT:
			o->exact = true;
			break;
		case 's':
			if (!source_name_ok(optarg)) {
				cf_err("%s: invalid source '%s': expected %s",
				       v->name, optarg, SOURCE_RULE);
				return CF_USAGE;
			}
			o->source = optarg;
			break;
		case 't':
			if (timeout_parse(optarg, &o->timeout)) {
				cf_err("%s: invalid timeout '%s': expected %s",
				       v->name, optarg, TIMEOUT_RULE);
				return CF_USAGE;
			}
			break;
		case 'a':
			o->all_sources = true;
			break;
		case LOPT_SKIP_BAD:
			o->skip_bad = true;
			break;
		case LOPT_NORMALIZE:
			o->normalize = true;
			break;
		case LOPT_MATCH_DST:
			o->match_dst = true;
			break;
		case LOPT_FORCE:
			o->force = true;
			break;
		case LOPT_WATCH:
			o->watch = true;
			break;
		case 'i':
			if (parse_uint(optarg, 1, 3600, &o->interval)) {
				cf_err("%s: invalid interval '%s': expected 1 to 3600 seconds",
				       v->name, optarg);
				return CF_USAGE;
			}
			break;
		case LOPT_COUNT:
			if (parse_uint(optarg, 1, UINT_MAX, &o->count)) {
				cf_err("%s: invalid count '%s': expected a positive number",
				       v->name, optarg);
				return CF_USAGE;
			}
			break;
		case 'm':
			if (parse_mode(optarg, &o->mode)) {
				cf_err("%s: invalid mode '%s': expected native, generic or tc",
				       v->name, optarg);
				return CF_USAGE;
			}
			break;
		case ':':
			cf_err("%s: option '%s' needs an argument", v->name,
			       argv[optind - 1]);
			verb_hint(v);
			return CF_USAGE;
		default:
			bad_option(v, argv);
			return CF_USAGE;
		}
	}

	if (o->all_sources && o->source) {
		cf_err("%s: -a (every source) and -s %s (one source): give one",
		       v->name, o->source);
		return CF_USAGE;
	}
	if ((o->interval || o->count) && !o->watch) {
		cf_err("%s: -i and --count apply only with --watch", v->name);
		return CF_USAGE;
	}
	if (!o->interval)
		o->interval = 1;

	/* -j before the verb: not caught by the verb's own options. */
	if (o->json && !(v->opts & OPT_JSON)) {
		verbs_taking(OPT_JSON, which, sizeof(which));
		cf_err("%s: -j, --json applies only to %s", v->name, which);
		return CF_USAGE;
	}
	if (o->quiet && !(v->opts & OPT_QUIET)) {
		verbs_taking(OPT_QUIET, which, sizeof(which));
		cf_err("%s: -q, --quiet applies only to %s", v->name, which);
		return CF_USAGE;
	}
	if (o->quiet && o->json) {
		cf_err("%s: -q prints nothing, -j a JSON document: give one",
		       v->name);
		return CF_USAGE;
	}
	if (v->arg) {
		if (optind == argc) {
			cf_err("%s: missing %s", v->name, v->arg);
			verb_hint(v);
			return CF_USAGE;
		}
		o->arg = argv[optind++];
	}
	if (v->entry) {
		o->words = argv + optind - 1;
		o->nwords = argc - optind + 1;
		optind = argc;
	}
	if (optind < argc) {
		cf_err("%s: unexpected argument '%s'", v->name, argv[optind]);
		verb_hint(v);
		return CF_USAGE;
	}
	return -1;
}

/*
 * "cfctl VERSION", and the module's version when it is loaded: the two are
 * built together, and a mismatch is worth seeing.
 */
static void print_version(void)
{
	char version[64] = "";
	FILE *f = fopen("/sys/module/cfilter/version", "r");

	printf("cfctl %s\n", CFCTL_VERSION);
	if (f && fgets(version, sizeof(version), f))
		printf("cfilter.ko %s", version);
	else
		printf("cfilter.ko not loaded\n");
	if (f)
		fclose(f);
}

/* cfctl's own options. Returns -1 to go on, or the exit status. */
static int parse_global(int argc, char *argv[], struct cfctl_opts *o)
{
	int c;

	opterr = 0;
	/* "+": stop at the verb; what follows is the verb's to parse. */
	while ((c = getopt_long(argc, argv, "+hvjqV", global_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return CF_OK;
		case 'v':
			o->verbose = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'V':
			print_version();
			return CF_OK;
		default:
			if (optopt)
				cf_err("unknown option '-%c'", optopt);
			else
				cf_err("unknown option '%s'", argv[optind - 1]);
			hint();
			return CF_USAGE;
		}
	}
	return -1;
}

int main(int argc, char *argv[])
{
	struct cfctl_opts o = { .mode = CF_XDP_AUTO };
	const struct verb *v;
	int ret;

	ret = parse_global(argc, argv, &o);
	if (ret >= 0)
		return ret;
	if (optind == argc) {
		cf_err("missing command");
		hint();
		return CF_USAGE;
	}
	v = find_verb(argv[optind]);
	if (!v) {
		cf_err("unknown command '%s'", argv[optind]);
		hint();
		return CF_USAGE;
	}

	ret = parse_verb(v, argc - optind, argv + optind, &o);
	if (ret >= 0)
		return ret;
	/* Every verb writes its answer to stdout and its errors to stderr. */
	if (o.quiet && !freopen("/dev/null", "w", stdout)) {
		cf_err("cannot open /dev/null for --quiet: %s", strerror(errno));
		return CF_SYSTEM;
	}
	ret = v->run(&o);
	if (fflush(stdout) || ferror(stdout)) {
		cf_err("cannot write the output: %s", strerror(errno));
		return CF_SYSTEM;
	}
	return ret;
}
