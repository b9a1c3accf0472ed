// SPDX-License-Identifier: GPL-2.0
/*
 * The entry-list format of `cfctl load` and `cfctl save`: lines of entries
 * (entry_words.c), with their sources and timeouts.
 *
 * A list has one entry per line, which may end in "timeout SECS" (the
 * holding expires SECS seconds after it is added; 0: never) or "expires
 * UNIXTIME" (at that second since the epoch: what `cfctl save` writes).
 * A line "source NAME" makes NAME the source of the entries after it;
 * those before any are the caller's (cfctl's -s, else "default"). Blank
 * lines and comments ('#' or ';' to the end of the line) are ignored, and
 * so are surrounding whitespace, a leading "add " (lists made as cfctl
 * command scripts), a UTF-8 byte order mark and CR line ends (lists saved
 * on Windows). Anything else is a malformed line, reported with its file
 * and line number so that an editor can jump to it.
 *
 * A list may also be what `ipset save` writes of hash:ip and hash:net sets,
 * so that a set moves over in one command: "create NAME TYPE ..." names a
 * set, and "add NAME ADDR[/LEN] [timeout N] [nomatch] ..." of a set named
 * before is an entry; a timeout is the holding's. An entry of a hash:ip
 * set with a netmask is the network ipset stores for it. A nomatch entry,
 * an exception inside its set, has no equal in cfilter: it is refused, or
 * with KF_NOMATCH_ALLOWS an allow entry, which beats every source.
 * Counters, comments and skb options are ignored.
 *
 * Parsing never touches the filter: `load` reads the whole file first and
 * applies nothing if a line is bad.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/entry_words.h"
#include "formats/keyfile.h"
#include "lib/addr.h"
#include "lib/source_name.h"
#include "lib/util.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' ||
	       c == '\v' || c == '\f';
}

/* Cuts @s at its comment, if any, and trims it; returns the start. */
static char *strip(char *s)
{
	char *end;

	s[strcspn(s, "#;")] = '\0';
	while (is_space(*s))
		s++;
	end = s + strlen(s);
	while (end > s && is_space(end[-1]))
		end--;
	*end = '\0';
	return s;
}

/*
 * Splits @s at white space into at most @max words; a line with more words
 * keeps the rest after the last one, unsplit.
 */
static int split(char *s, char *words[], int max)
{
	int n = 0;

	while (*s && n < max) {
		words[n++] = s;
		while (*s && !is_space(*s))
			s++;
		if (!*s)
			break;
		*s++ = '\0';
		while (is_space(*s))
			s++;
	}
	return n;
}

/* The most words of an ipset "add" line cfilter reads. */
#define IPSET_MAX_WORDS	24

static struct kf_ipset *find_set(struct kf_state *st, const char *name)
{
	unsigned int i;

	for (i = 0; st && i < st->nsets; i++)
		if (!strcmp(st->sets[i].name, name))
			return &st->sets[i];
	return NULL;
}

/* The word after option @name among @w[@from..@n), or NULL. */
static const char *option_value(char *const w[], int n, int from,
				const char *name, bool *given)
{
	int i;

	for (i = from; i < n; i++) {
		if (strcmp(w[i], name))
			continue;
		*given = true;
		return i + 1 < n ? w[i + 1] : NULL;
	}
	return NULL;
}

/* The leading ones of @mask (@bytes long); -1 if a one follows a zero. */
static int mask_prefix(const __u8 *mask, unsigned int bytes)
{
	unsigned int i, ones = 0;
	bool zero = false;

	for (i = 0; i < bytes * 8; i++) {
		bool one = mask[i / 8] & (0x80 >> (i % 8));

		if (one && zero)
			return -1;
		zero |= !one;
		ones += one;
	}
	return ones;
}

/*
 * A hash:ip set's netmask and bitmask: the length of the networks it
 * stores into @set->prefix, or a reason in @st->detail. ipset matches an
 * address when its masked bits are an entry's: a prefix exactly when the
 * mask is ones, then zeros.
 */
static enum kf_line ipset_mask(struct kf_state *st, struct kf_ipset *set,
			       char *const w[], int n)
{
	unsigned int max = set->family == 6 ? 128 : 32;
	const char *netmask, *bitmask;
	bool has_net = false, has_bit = false;
	unsigned long long len = 0;
	__u8 mask[16];
	int bits = -1;

	netmask = option_value(w, n, 3, "netmask", &has_net);
	bitmask = option_value(w, n, 3, "bitmask", &has_bit);
	if ((has_net && !netmask) || (has_bit && !bitmask)) {
		snprintf(st->detail, sizeof(st->detail), "set '%s': %s without a value",
			 set->name, has_net && !netmask ? "netmask" : "bitmask");
		return KF_IPSET_MASK;
	}
	if (netmask && (!digits_parse(netmask, 3, &len) || !len || len > max)) {
		snprintf(st->detail, sizeof(st->detail),
			 "set '%s': netmask %s is no prefix length of its family (1-32 for inet, 1-128 for inet6)",
			 set->name, netmask);
		return KF_IPSET_MASK;
	}
	if (bitmask && inet_pton(set->family == 6 ? AF_INET6 : AF_INET,
				 bitmask, mask) != 1) {
		snprintf(st->detail, sizeof(st->detail),
			 "set '%s': bitmask %s is not an address of its family",
			 set->name, bitmask);
		return KF_IPSET_MASK;
	}
	if (bitmask)
		bits = mask_prefix(mask, max / 8);
	if (bitmask && bits < 0) {
		snprintf(st->detail, sizeof(st->detail),
			 "set '%s': bitmask %s is not a netmask (ones, then zeros): the set matches addresses whose masked bits agree, which no prefix can block; move its entries by hand",
			 set->name, bitmask);
		return KF_IPSET_MASK;
	}
	if (netmask && bitmask && (unsigned long long)bits != len) {
		snprintf(st->detail, sizeof(st->detail),
			 "set '%s': netmask %s and bitmask %s disagree",
			 set->name, netmask, bitmask);
		return KF_IPSET_MASK;
	}
	set->prefix = netmask ? (int)len : bits;
	return KF_EMPTY;
}

/*
 * "create NAME TYPE [OPTIONS]": remembers NAME for its "add" lines, with
 * its family and netmask; a set refused is remembered too, so that its
 * entries are refused rather than read as something else.
 */
static enum kf_line ipset_create(struct kf_state *st, char *const w[], int n,
				 const char **word)
{
	struct kf_ipset *set;
	const char *family;
	bool given = false;
	enum kf_line what = KF_EMPTY;

	*word = w[0];
	if (n < 2)
		return KF_IPSET_TYPE;
	if (find_set(st, w[1]))
		return KF_EMPTY;
	*word = w[1];
	if (st->nsets == KF_IPSET_MAX || strlen(w[1]) >= KF_IPSET_NAME)
		return KF_IPSET_SETS;
	set = &st->sets[st->nsets++];
	strcpy(set->name, w[1]);
	set->prefix = -1;
	family = option_value(w, n, 3, "family", &given);
	set->family = family && !strcmp(family, "inet6") ? 6 : 4;
	*word = n > 2 ? w[2] : w[0];
	if (n < 3 || (strcmp(w[2], "hash:ip") && strcmp(w[2], "hash:net")))
		what = KF_IPSET_TYPE;
	else if (!strcmp(w[2], "hash:ip"))
		what = ipset_mask(st, set, w, n);
	if (what == KF_IPSET_MASK)
		*word = st->detail;
	set->refused = what != KF_EMPTY;
	return what;
}

/* Seconds of ipset's "timeout N": 0 (permanent) to its 2147483. */
#define IPSET_TIMEOUT_MAX	2147483

/* Options ipset writes with a value that cfilter has no use for. */
static bool is_ignored_option(const char *word)
{
	static const char *const names[] = {
		"packets", "bytes", "skbmark", "skbprio", "skbqueue",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(word, names[i]))
			return true;
	return false;
}

/*
 * An entry of a set with a netmask: the network holding it, as ipset
 * stored it. Returns KF_ENTRY or KF_IPSET_FAMILY.
 */
static enum kf_line ipset_network(const struct kf_ipset *set,
				  struct kf_entry *e)
{
	bool v6 = e->key.type == CFILTER_KEY_SRC6 ||
		  e->key.type == CFILTER_KEY_ALLOW6;
	int len = set->prefix;

	/* An IPv4-mapped address of an inet6 set: its IPv4 part. */
	if (set->family == 6 && !v6)
		len -= 96;
	if (len < 0 || (set->family == 4 && v6))
		return KF_IPSET_FAMILY;
	if ((unsigned int)len < e->key.prefix_len)
		key_widen(&e->key, len);
	return KF_ENTRY;
}

/* "add NAME ADDR[/LEN] [OPTIONS]" of @set: one entry. */
static enum kf_line ipset_add(const struct kf_ipset *set, char *const w[],
			      int n, unsigned int flags, struct kf_entry *e,
			      const char **word)
{
	bool nomatch = false, timed = false;
	unsigned long long timeout = 0;
	enum kf_line what;
	int i;

	for (i = 3; i < n; i++) {
		*word = w[i];
		if (!strcmp(w[i], "timeout")) {
			if (++i == n || !digits_parse(w[i], 7, &timeout) ||
			    timeout > IPSET_TIMEOUT_MAX)
				return KF_BAD_TIMEOUT;
			timed = true;
		} else if (!strcmp(w[i], "nomatch")) {
			nomatch = true;
		} else if (!strcmp(w[i], "comment")) {
			/* "comment \"TEXT\"": TEXT may hold spaces. */
			if (++i < n && w[i][0] == '"')
				while (i + 1 < n && (strlen(w[i]) < 2 ||
				       w[i][strlen(w[i]) - 1] != '"'))
					i++;
		} else if (is_ignored_option(w[i]) && i + 1 < n) {
			i++;
		} else {
			return KF_IPSET_OPTION;
		}
	}
	*word = w[2];
	what = kf_parse_addr_entry(w[2], nomatch ? CFILTER_KEY_ALLOW4 :
				   CFILTER_KEY_SRC4, flags, e);
	if (what == KF_ENTRY && e->range)
		what = KF_BAD_ADDR;
	/* ipset's exception holds inside its set, an allow entry everywhere. */
	if (what == KF_ENTRY && nomatch && !(flags & KF_NOMATCH_ALLOWS))
		what = KF_IPSET_NOMATCH;
	if (what == KF_ENTRY && set->prefix >= 0)
		what = ipset_network(set, e);
	if (what != KF_ENTRY) {
		memset(e, 0, sizeof(*e));
		return what;
	}
	e->timed = timed;
	e->timeout = timeout;
	return KF_ENTRY;
}

/* "source NAME": the source of the lines after it. */
static enum kf_line parse_source(char *const w[], int n, const char **word)
{
	*word = n > 1 ? w[1] : "";
	if (n > 2) {
		*word = w[2];
		return KF_SOURCE_WORDS;
	}
	return n == 2 && source_name_ok(w[1]) ? KF_SOURCE : KF_BAD_SOURCE;
}

static bool is_when(const char *word)
{
	return !strcmp(word, "timeout") || !strcmp(word, "expires");
}

/*
 * Seconds since the epoch, from 1 (0 would mean "none" in struct kf_hold):
 * decimal digits, as many as a 64-bit time holds with room to spare.
 */
static bool parse_epoch(const char *str, __s64 *val)
{
	unsigned long long v;

	if (!digits_parse(str, 18, &v) || !v)
		return false;
	*val = v;
	return true;
}

/* "timeout SECS" or "expires UNIXTIME" (@w, @n words) after an entry. */
static enum kf_line parse_when(char *const w[], int n, struct kf_entry *e,
			       const char **word)
{
	*word = n > 1 ? w[1] : "";
	if (n > 2) {
		*word = w[2];
		return is_when(w[2]) ? KF_TWO_TIMES : KF_TRAILING;
	}
	if (!strcmp(w[0], "expires")) {
		if (n < 2 || !parse_epoch(w[1], &e->expires))
			return KF_BAD_EXPIRES;
	} else if (n < 2 || timeout_parse(w[1], &e->timeout)) {
		return KF_BAD_SECONDS;
	}
	e->timed = true;
	return KF_ENTRY;
}

/* "ENTRY [timeout SECS | expires UNIXTIME]" */
static enum kf_line parse_entry_line(char *const w[], int n,
				     unsigned int flags, struct kf_entry *e,
				     const char **word)
{
	const struct kf_kind *kind = kf_find_kind(w[0]);
	int words = kind ? kind->words : 1;
	const char *entry_word;
	enum kf_line what;

	if (n <= words || !is_when(w[words]))
		return kf_parse_words(w, n, flags, e, word);
	what = kf_parse_words(w, words, flags, e, word);
	if (what != KF_ENTRY)
		return what;
	entry_word = *word;
	what = parse_when(w + words, n - words, e, word);
	if (what != KF_ENTRY) {
		memset(e, 0, sizeof(*e));
		return what;
	}
	*word = entry_word;
	return KF_ENTRY;
}

/**
 * keyfile_parse_line() - parse one line of an entry list
 * @line: the line, with or without its newline; modified
 * @len:  its length in bytes (a NUL byte inside is an error)
 * @st:   what the lines before said (ipset's sets, flags); NULL: a line
 *        alone, strict, in cfilter's own format only
 * @e:    set for KF_ENTRY
 * @word: set to the part of @line a KF_ENTRY or error is about; for
 *        KF_SOURCE, the source's name
 *
 * Return: what the line holds.
 */
enum kf_line keyfile_parse_line(char *line, size_t len, struct kf_state *st,
				struct kf_entry *e, const char **word)
{
	char *words[IPSET_MAX_WORDS + 1];
	unsigned int flags = st ? st->flags : 0;
	struct kf_ipset *set;
	char *s;
	int n;

	memset(e, 0, sizeof(*e));
	if (memchr(line, '\0', len))
		return KF_NUL;
	s = strip(line);
	*word = s;
	if (!*s)
		return KF_EMPTY;
	if (!strcmp(s, "add"))
		return KF_ADD_ALONE;
	n = split(s, words, IPSET_MAX_WORDS + 1);
	if (st && !strcmp(words[0], "create"))
		return ipset_create(st, words, n, word);
	set = n >= 3 && !strcmp(words[0], "add") ? find_set(st, words[1]) : NULL;
	if (set && set->refused) {
		*word = set->name;
		return KF_IPSET_REFUSED;
	}
	if (set)
		return ipset_add(set, words, n, flags, e, word);
	if (!strcmp(words[0], "source"))
		return parse_source(words, n, word);
	if (!strcmp(words[0], "add"))
		return parse_entry_line(words + 1, n - 1, flags, e, word);
	return parse_entry_line(words, n, flags, e, word);
}

/**
 * keyfile_explain() - print "NAME:LINE: reason" for a malformed line
 * @out:    where to
 * @name:   the file as the user named it
 * @lineno: line number, from 1
 * @what:   keyfile_parse_line()'s verdict (not KF_ENTRY or KF_EMPTY)
 * @word:   and the part of the line it is about
 */
void keyfile_explain(FILE *out, const char *name, unsigned long lineno,
		     enum kf_line what, const char *word)
{
	fprintf(out, "%s:%lu: ", name, lineno);
	keyfile_reason(out, what, word);
}

/* Makes room for one more entry. Returns 0 or -ENOMEM. */
static int key_list_grow(struct key_list *kl)
{
	size_t cap = kl->cap ? kl->cap * 2 : 4096;
	struct cfilter_key *keys;
	unsigned long *lines;
	struct kf_hold *holds;

	if (cap > SIZE_MAX / sizeof(*keys))
		return -ENOMEM;
	keys = realloc(kl->keys, cap * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	kl->keys = keys;
	lines = realloc(kl->lines, cap * sizeof(*lines));
	if (!lines)
		return -ENOMEM;
	kl->lines = lines;
	holds = realloc(kl->holds, cap * sizeof(*holds));
	if (!holds)
		return -ENOMEM;
	kl->holds = holds;
	kl->cap = cap;
	return 0;
}

struct append_ctx {
	struct key_list	*kl;
	unsigned long	lineno;
	struct kf_hold	hold;
};

/* Appends one key of line @arg->lineno. Returns 0 or -ENOMEM. */
static int append_key(const struct cfilter_key *key, void *arg)
{
	struct append_ctx *c = arg;
	struct key_list *kl = c->kl;
	int err;

	if (kl->n == kl->cap) {
		err = key_list_grow(kl);
		if (err)
			return err;
	}
	kl->keys[kl->n] = *key;
	kl->holds[kl->n] = c->hold;
	kl->lines[kl->n++] = c->lineno;
	return 0;
}

/*
 * A "source NAME" line: *@cur becomes NAME's index in @kl, or what is
 * wrong with it.
 */
static enum kf_line switch_source(struct key_list *kl, unsigned int flags,
				  const char *name, unsigned int *cur)
{
	unsigned int i;

	name = source_shown(name);
	if ((flags & KF_ONE_SOURCE) && strcmp(name, kl->sources[0]))
		return KF_OTHER_SOURCE;
	for (i = 0; i < kl->nsources; i++) {
		if (!strcmp(kl->sources[i], name)) {
			*cur = i;
			return KF_SOURCE;
		}
	}
	if (kl->nsources == CFILTER_SOURCES_MAX)
		return KF_SOURCES_MAX;
	source_copy(kl->sources[kl->nsources], name);
	*cur = kl->nsources++;
	return KF_SOURCE;
}

/**
 * keyfile_read() - read every line of an entry list
 * @in:     the open file
 * @name:   its name in messages
 * @flags:  enum kf_flags
 * @source: the source of the lines before any "source" line; NULL or ""
 *          for "default"
 * @kl:     zeroed; entries are appended here, with their holdings;
 *          malformed lines and masked prefixes are counted
 * @errs:   where each malformed line is explained
 *
 * A bad "source" line is counted apart from the other malformed lines:
 * skipping it would give the entries after it to another source.
 *
 * Return: 0 (malformed lines included), or a negative errno if @in cannot
 * be read or memory runs out; @kl keeps what was read so far.
 */
int keyfile_read(FILE *in, const char *name, unsigned int flags,
		 const char *source, struct key_list *kl, FILE *errs)
{
	struct kf_state st = { .flags = flags };
	unsigned long lineno = 0;
	unsigned int cur = 0;
	struct kf_entry e;
	size_t size = 0;
	const char *word;
	char *line = NULL;
	enum kf_line what;
	ssize_t len;
	int err = 0;

	source_copy(kl->sources[0], source_shown(source));
	kl->nsources = 1;
	while ((len = getline(&line, &size, in)) >= 0) {
		char *s = line;

		lineno++;
		/* A byte order mark says UTF-8; addresses are ASCII anyway. */
		if (lineno == 1 && !strncmp(s, "\xef\xbb\xbf", 3)) {
			s += 3;
			len -= 3;
		}
		what = keyfile_parse_line(s, len, &st, &e, &word);
		if (what == KF_SOURCE)
			what = switch_source(kl, flags, word, &cur);
		if (what == KF_ENTRY) {
			struct append_ctx c = {
				.kl = kl,
				.lineno = lineno,
				.hold = {
					.expires = e.expires,
					.timeout = e.timeout,
					.timed = e.timed,
					.source = cur,
				},
			};

			kl->masked += e.masked;
			err = keyfile_expand(&e, append_key, &c);
			if (err)
				break;
		} else if (what != KF_EMPTY && what != KF_SOURCE) {
			if (what == KF_BAD_SOURCE || what == KF_SOURCE_WORDS ||
			    what == KF_SOURCES_MAX || what == KF_OTHER_SOURCE)
				kl->bad_sources++;
			else
				kl->bad++;
			keyfile_explain(errs, name, lineno, what, word);
		}
	}
	if (!err && ferror(in))
		err = errno ? -errno : -EIO;
	free(line);
	return err;
}

void key_list_free(struct key_list *kl)
{
	free(kl->keys);
	free(kl->lines);
	free(kl->holds);
	memset(kl, 0, sizeof(*kl));
}
