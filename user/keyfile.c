// SPDX-License-Identifier: GPL-2.0
/*
 * Entries, and the entry-list format of `cfctl load` and `cfctl save`.
 *
 * An entry is one key, written as words:
 *	ADDR or src ADDR			source address
 *	dst ADDR				destination address
 *	allow ADDR				source exempt from blocking
 *	tcp|udp SADDR:SPORT DADDR:DPORT		5-tuple ([ADDR]:PORT for IPv6)
 *	icmp|icmp6 SADDR DADDR TYPE		ICMP or ICMPv6 messages of TYPE
 * `cfctl add`, `del` and `test` take these words as arguments. The ADDR of
 * src, dst and allow may be a CIDR prefix ADDR/LEN (host bits zero) or a
 * range FIRST-LAST, which stands for the fewest prefixes covering it; flows
 * name single addresses.
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
 * before is an entry; a nomatch entry, an exception inside the set, is an
 * allow entry; a timeout is the holding's. Counters, comments and skb
 * options are ignored.
 *
 * Parsing never touches the filter: `load` reads the whole file first and
 * applies nothing if a line is bad.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "keyfile.h"
#include "range.h"
#include "source.h"

/* Longest part of a bad line quoted in its message. */
#define QUOTE_MAX	60

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

/* Parses decimal @str, at most @max, into @val; false if it is not one. */
static bool parse_uint(const char *str, unsigned long max, unsigned long *val)
{
	const char *p;

	*val = 0;
	if (!*str || strlen(str) > 5)
		return false;
	for (p = str; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		*val = *val * 10 + (*p - '0');
	}
	return *val <= max;
}

/*
 * A flow's address, of IP version @v (0: either), into @addr; returns a
 * verdict.
 */
static enum kf_line parse_addr_word(const char *str, int *v, __u8 *addr)
{
	int ret = addr_parse(str, addr);

	if (ret < 0 && strpbrk(str, "/-"))
		return KF_FLOW_PREFIX;
	if (ret < 0)
		return KF_BAD_ADDR;
	if (*v && ret != *v)
		return KF_MIXED;
	*v = ret;
	return KF_ENTRY;
}

/*
 * "ADDR:PORT", or "[ADDR]:PORT" for IPv6 (whose colons would make a bare
 * form ambiguous), into @addr and @port.
 */
static enum kf_line parse_endpoint(const char *str, int *v, __u8 *addr,
				   __be16 *port)
{
	char a[INET6_ADDRSTRLEN + 2];
	const char *colon = strrchr(str, ':');
	enum kf_line what;
	unsigned long p;
	size_t len;

	if (!colon || (size_t)(colon - str) >= sizeof(a))
		return KF_BAD_ENDPOINT;
	len = colon - str;
	if (*str == '[') {
		if (len < 2 || str[len - 1] != ']')
			return KF_BAD_ENDPOINT;
		memcpy(a, str + 1, len - 2);
		a[len - 2] = '\0';
	} else {
		memcpy(a, str, len);
		a[len] = '\0';
	}
	what = parse_addr_word(a, v, addr);
	if (what == KF_BAD_ADDR && (*str == '[') != (strchr(a, ':') != NULL))
		return KF_BAD_ENDPOINT;
	if (what == KF_ENTRY && (*str == '[') != (*v == 6))
		return KF_BAD_ENDPOINT;
	if (what != KF_ENTRY)
		return what;
	if (!parse_uint(colon + 1, 65535, &p))
		return KF_BAD_PORT;
	*port = htons(p);
	return KF_ENTRY;
}

/* Sets the key type of IP version @v: @t4 or the IPv6 type after it. */
static void set_type(struct cfilter_key *key, __u8 t4, int v)
{
	key->type = v == 6 ? t4 + 1 : t4;
	key->prefix_len = v == 6 ? 128 : 32;
}

/* "tcp|udp SADDR:SPORT DADDR:DPORT" */
static enum kf_line parse_port_flow(char *const w[], struct cfilter_key *key,
				    const char **word)
{
	enum kf_line what;
	int v = 0, i;

	for (i = 1; i <= 2; i++) {
		*word = w[i];
		what = parse_endpoint(w[i], &v, i == 1 ? key->saddr : key->daddr,
				      i == 1 ? &key->sport : &key->dport);
		if (what != KF_ENTRY)
			return what;
	}
	key->proto = !strcmp(w[0], "tcp") ? IPPROTO_TCP : IPPROTO_UDP;
	set_type(key, CFILTER_KEY_FLOW4, v);
	*word = w[0];
	return KF_ENTRY;
}

/* "icmp|icmp6 SADDR DADDR TYPE": the flow key holds TYPE in sport. */
static enum kf_line parse_icmp_flow(char *const w[], struct cfilter_key *key,
				    const char **word)
{
	int v = !strcmp(w[0], "icmp6") ? 6 : 4;
	enum kf_line what;
	unsigned long type;
	int i;

	for (i = 1; i <= 2; i++) {
		*word = w[i];
		what = parse_addr_word(w[i], &v, i == 1 ? key->saddr : key->daddr);
		if (what != KF_ENTRY)
			return what;
	}
	*word = w[3];
	if (!parse_uint(w[3], 255, &type))
		return KF_BAD_TYPE;
	key->proto = v == 6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
	key->sport = htons(type);
	set_type(key, CFILTER_KEY_FLOW4, v);
	*word = w[0];
	return KF_ENTRY;
}

/* The kinds of entry: first word, word count, the key type for IPv4. */
static const struct kf_kind {
	const char	*name;
	int		words;
	__u8		type4;
	const char	*usage;
} kf_kinds[] = {
	{ "src",   2, CFILTER_KEY_SRC4,   "src ADDR" },
	{ "dst",   2, CFILTER_KEY_DST4,   "dst ADDR" },
	{ "allow", 2, CFILTER_KEY_ALLOW4, "allow ADDR" },
	{ "tcp",   3, CFILTER_KEY_FLOW4,  "tcp SADDR:SPORT DADDR:DPORT" },
	{ "udp",   3, CFILTER_KEY_FLOW4,  "udp SADDR:SPORT DADDR:DPORT" },
	{ "icmp",  4, CFILTER_KEY_FLOW4,  "icmp SADDR DADDR TYPE" },
	{ "icmp6", 4, CFILTER_KEY_FLOW4,  "icmp6 SADDR DADDR TYPE" },
};

static const struct kf_kind *find_kind(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(kf_kinds) / sizeof(kf_kinds[0]); i++)
		if (!strcmp(kf_kinds[i].name, name))
			return &kf_kinds[i];
	return NULL;
}

/* FIRST-LAST: both addresses of one IP version, FIRST not above LAST. */
static enum kf_line parse_range(const char *str, const char *dash, __u8 *lo,
				__u8 *hi, int *v)
{
	char first[INET6_ADDRSTRLEN];
	size_t len = dash - str;
	int v2;

	if (len >= sizeof(first))
		return KF_BAD_ADDR;
	memcpy(first, str, len);
	first[len] = '\0';
	*v = addr_parse(first, lo);
	v2 = addr_parse(dash + 1, hi);
	if (*v < 0 || v2 < 0)
		return KF_BAD_ADDR;
	if (*v != v2)
		return KF_RANGE_MIXED;
	if (memcmp(lo, hi, *v == 6 ? 16 : 4) > 0)
		return KF_BAD_RANGE;
	return KF_ENTRY;
}

/*
 * "ADDR" (a source) or "src|dst|allow ADDR": @addr is the address word: an
 * address, a prefix or a range.
 */
static enum kf_line parse_addr_entry(const char *addr, __u8 type4,
				     unsigned int flags, struct kf_entry *e)
{
	struct cfilter_key *key = &e->key;
	__u8 *a = type4 == CFILTER_KEY_DST4 ? key->daddr : key->saddr;
	const char *dash = strchr(addr, '-');
	enum kf_line what;
	unsigned int len;
	int v;

	if (dash) {
		what = parse_range(addr, dash, a, e->hi, &v);
		if (what != KF_ENTRY)
			return what;
		set_type(key, type4, v);
		e->range = true;
		return KF_ENTRY;
	}
	v = prefix_parse(addr, a, &len);
	switch (v) {
	case -EINVAL:
		return KF_BAD_ADDR;
	case -ERANGE:
		return KF_BAD_LEN;
	case -EADDRNOTAVAIL:
		if (!(flags & KF_NORMALIZE))
			return KF_HOST_BITS;
		/* prefix_parse() masked them: say so, and go on. */
		v = strchr(addr, ':') ? 6 : 4;
		e->masked = true;
	}
	set_type(key, type4, v);
	key->prefix_len = len;
	return KF_ENTRY;
}

/* keyfile_parse_words(), and with KF_NORMALIZE for lists. */
static enum kf_line parse_words(char *const words[], int n, unsigned int flags,
				struct kf_entry *e, const char **word)
{
	const struct kf_kind *kind = n ? find_kind(words[0]) : NULL;
	struct cfilter_key *key = &e->key;
	enum kf_line what;

	memset(e, 0, sizeof(*e));
	*word = n ? words[0] : "";
	if (!kind) {
		if (!n)
			return KF_WORDS;
		what = parse_addr_entry(words[0], CFILTER_KEY_SRC4, flags, e);
		if (n > 1 && what == KF_BAD_ADDR) {
			what = KF_BAD_KIND;
		} else if (n > 1) {
			/* One address per entry: the next word is the bad one. */
			what = KF_WORDS;
			*word = words[1];
		}
		if (what != KF_ENTRY)
			memset(e, 0, sizeof(*e));
		return what;
	}
	if (n != kind->words)
		return KF_WORDS;
	switch (kind->words) {
	case 2:
		*word = words[1];
		what = parse_addr_entry(words[1], kind->type4, flags, e);
		break;
	case 3:
		what = parse_port_flow(words, key, word);
		break;
	default:
		what = parse_icmp_flow(words, key, word);
	}
	if (what != KF_ENTRY)
		memset(e, 0, sizeof(*e));
	return what;
}

/**
 * keyfile_parse_words() - parse one entry given as words
 * @words: the words (see the top of this file)
 * @n:     how many
 * @e:     set for KF_ENTRY, zeroed otherwise
 * @word:  set to the word a KF_ENTRY or an error is about
 *
 * Return: KF_ENTRY, or why @words are not an entry.
 */
enum kf_line keyfile_parse_words(char *const words[], int n,
				 struct kf_entry *e, const char **word)
{
	return parse_words(words, n, 0, e, word);
}

/* What keyfile_expand() passes range_split() for each prefix. */
struct expand_ctx {
	const struct kf_entry	*e;
	int			(*emit)(const struct cfilter_key *key, void *arg);
	void			*arg;
};

static int expand_prefix(const __u8 *addr, unsigned int len, void *arg)
{
	struct expand_ctx *c = arg;
	struct cfilter_key key = c->e->key;
	bool dst = key.type == CFILTER_KEY_DST4 || key.type == CFILTER_KEY_DST6;

	/* The template's length is the full one: the address's size. */
	memcpy(dst ? key.daddr : key.saddr, addr, key.prefix_len / 8);
	key.prefix_len = len;
	return c->emit(&key, c->arg);
}

/**
 * keyfile_expand() - the keys an entry stands for
 * @e:    an entry keyfile_parse_words() or keyfile_parse_line() accepted
 * @emit: called once per key: once for a key, once per prefix for a range
 *        (lowest first); a nonzero return stops and is returned
 * @arg:  passed to @emit
 *
 * Return: 0, or what @emit returned.
 */
int keyfile_expand(const struct kf_entry *e,
		   int (*emit)(const struct cfilter_key *key, void *arg),
		   void *arg)
{
	struct expand_ctx c = { .e = e, .emit = emit, .arg = arg };
	const struct cfilter_key *k = &e->key;
	bool dst = k->type == CFILTER_KEY_DST4 || k->type == CFILTER_KEY_DST6;

	if (!e->range)
		return emit(k, arg);
	return range_split(dst ? k->daddr : k->saddr, e->hi, k->prefix_len / 8,
			   expand_prefix, &c);
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

static bool is_ipset_set(const struct kf_state *st, const char *name)
{
	unsigned int i;

	for (i = 0; st && i < st->nsets; i++)
		if (!strcmp(st->sets[i], name))
			return true;
	return false;
}

/* "create NAME TYPE [OPTIONS]": remembers NAME for its "add" lines. */
static enum kf_line ipset_create(struct kf_state *st, char *const w[], int n,
				 const char **word)
{
	*word = n > 2 ? w[2] : w[0];
	if (n < 3 || (strcmp(w[2], "hash:ip") && strcmp(w[2], "hash:net")))
		return KF_IPSET_TYPE;
	if (is_ipset_set(st, w[1]))
		return KF_EMPTY;
	*word = w[1];
	if (st->nsets == KF_IPSET_MAX || strlen(w[1]) >= KF_IPSET_NAME)
		return KF_IPSET_SETS;
	strcpy(st->sets[st->nsets++], w[1]);
	return KF_EMPTY;
}

/* Seconds of ipset's "timeout N": 0 (permanent) to its 2147483. */
static bool parse_timeout(const char *str, unsigned long *val)
{
	const char *p;

	*val = 0;
	if (!*str || strlen(str) > 7)
		return false;
	for (p = str; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		*val = *val * 10 + (*p - '0');
	}
	return *val <= 2147483;
}

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

/* "add NAME ADDR[/LEN] [OPTIONS]" of a set of @st: one entry. */
static enum kf_line ipset_add(char *const w[], int n, unsigned int flags,
			      struct kf_entry *e, const char **word)
{
	bool nomatch = false, timed = false;
	unsigned long timeout = 0;
	enum kf_line what;
	int i;

	for (i = 3; i < n; i++) {
		*word = w[i];
		if (!strcmp(w[i], "timeout")) {
			if (++i == n || !parse_timeout(w[i], &timeout))
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
	what = parse_addr_entry(w[2], nomatch ? CFILTER_KEY_ALLOW4 :
				CFILTER_KEY_SRC4, flags, e);
	if (what != KF_ENTRY || e->range) {
		memset(e, 0, sizeof(*e));
		return what != KF_ENTRY ? what : KF_BAD_ADDR;
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
	const char *p;

	*val = 0;
	if (!*str || strlen(str) > 18)
		return false;
	for (p = str; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		*val = *val * 10 + (*p - '0');
	}
	return *val > 0;
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
	const struct kf_kind *kind = find_kind(w[0]);
	int words = kind ? kind->words : 1;
	const char *entry_word;
	enum kf_line what;

	if (n <= words || !is_when(w[words]))
		return parse_words(w, n, flags, e, word);
	what = parse_words(w, words, flags, e, word);
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
	if (n >= 3 && !strcmp(words[0], "add") && is_ipset_set(st, words[1]))
		return ipset_add(words, n, flags, e, word);
	if (!strcmp(words[0], "source"))
		return parse_source(words, n, word);
	if (!strcmp(words[0], "add"))
		return parse_entry_line(words + 1, n - 1, flags, e, word);
	return parse_entry_line(words, n, flags, e, word);
}

/* "192.0.2.7/24: host bits set (did you mean 192.0.2.0/24?)" */
static void host_bits_reason(FILE *out, const char *word, int len,
			     const char *more)
{
	char fixed[INET6_ADDRSTRLEN];
	unsigned int bits;
	__u8 addr[16];
	int v;

	prefix_parse(word, addr, &bits);
	v = strchr(word, ':') ? AF_INET6 : AF_INET;
	inet_ntop(v, addr, fixed, sizeof(fixed));
	fprintf(out, "%.*s%s: host bits set (did you mean %s/%u?)\n", len, word,
		more, fixed, bits);
}

/**
 * keyfile_reason() - say why an entry is malformed, naming the bad word
 * @out:  where to; a newline ends the message
 * @what: the verdict (not KF_ENTRY or KF_EMPTY)
 * @word: and the word it is about
 */
void keyfile_reason(FILE *out, enum kf_line what, const char *word)
{
	int len = strlen(word) > QUOTE_MAX ? QUOTE_MAX : (int)strlen(word);
	const char *more = strlen(word) > QUOTE_MAX ? "..." : "";
	const struct kf_kind *kind = find_kind(word);

	switch (what) {
	case KF_BAD_ADDR:
		fprintf(out, "invalid address '%.*s%s': expected an IPv4 or IPv6 address\n",
			len, word, more);
		break;
	case KF_BAD_LEN:
		fprintf(out, "invalid prefix length in '%.*s%s': expected /0 to /32 for IPv4, /0 to /128 for IPv6, without leading zeros\n",
			len, word, more);
		break;
	case KF_HOST_BITS:
		host_bits_reason(out, word, len, more);
		break;
	case KF_BAD_RANGE:
		fprintf(out, "invalid range '%.*s%s': its first address is above its last\n",
			len, word, more);
		break;
	case KF_RANGE_MIXED:
		fprintf(out, "invalid range '%.*s%s': both ends must be IPv4 or both IPv6\n",
			len, word, more);
		break;
	case KF_FLOW_PREFIX:
		fprintf(out, "'%.*s%s': a flow names single addresses, not a prefix or range\n",
			len, word, more);
		break;
	case KF_WORDS:
		if (kind)
			fprintf(out, "wrong number of words after '%s': expected %s\n",
				word, kind->usage);
		else
			fprintf(out, "unexpected '%.*s%s' after an address: an entry is one address, or a kind (src, dst, allow, tcp, udp, icmp, icmp6) and its words\n",
				len, word, more);
		break;
	case KF_BAD_KIND:
		fprintf(out, "unknown entry kind '%.*s%s': expected an address, or src, dst, allow, tcp, udp, icmp or icmp6\n",
			len, word, more);
		break;
	case KF_BAD_ENDPOINT:
		fprintf(out, "invalid endpoint '%.*s%s': expected ADDR:PORT, or [ADDR]:PORT for IPv6\n",
			len, word, more);
		break;
	case KF_BAD_PORT:
		fprintf(out, "invalid port in '%.*s%s': expected 0 to 65535\n",
			len, word, more);
		break;
	case KF_BAD_TYPE:
		fprintf(out, "invalid ICMP type '%.*s%s': expected 0 to 255\n",
			len, word, more);
		break;
	case KF_MIXED:
		fprintf(out, "address '%.*s%s' is of the wrong IP version: a flow's addresses are both IPv4 or both IPv6, icmp takes IPv4 and icmp6 IPv6\n",
			len, word, more);
		break;
	case KF_ADD_ALONE:
		fprintf(out, "'add' without an entry\n");
		break;
	case KF_IPSET_TYPE:
		fprintf(out, "ipset set type '%.*s%s': cfilter takes hash:ip and hash:net sets\n",
			len, word, more);
		break;
	case KF_IPSET_SETS:
		fprintf(out, "ipset set '%.*s%s': more than %d sets, or a name of %d characters or more\n",
			len, word, more, KF_IPSET_MAX, KF_IPSET_NAME);
		break;
	case KF_IPSET_OPTION:
		fprintf(out, "ipset entry option '%.*s%s': cfilter reads timeout and nomatch, and skips comment, packets, bytes and skb options\n",
			len, word, more);
		break;
	case KF_BAD_TIMEOUT:
		fprintf(out, "'timeout' needs a number of seconds, 0 to 2147483\n");
		break;
	case KF_BAD_SOURCE:
		if (*word)
			fprintf(out, "invalid source name '%.*s%s': expected %s\n",
				len, word, more, SOURCE_RULE);
		else
			fprintf(out, "'source' without a NAME: expected %s\n",
				SOURCE_RULE);
		break;
	case KF_SOURCE_WORDS:
		fprintf(out, "unexpected '%.*s%s' after the source's name: a source line is source NAME\n",
			len, word, more);
		break;
	case KF_SOURCES_MAX:
		fprintf(out, "source '%.*s%s': more than %d sources in one list, as many as a set holds\n",
			len, word, more, CFILTER_SOURCES_MAX);
		break;
	case KF_OTHER_SOURCE:
		fprintf(out, "source '%.*s%s': replace -s NAME takes the entries of NAME alone: remove the source lines, or replace the whole filter (without -s)\n",
			len, word, more);
		break;
	case KF_BAD_SECONDS:
		fprintf(out, "invalid timeout '%.*s%s': expected %s\n", len,
			word, more, TIMEOUT_RULE);
		break;
	case KF_BAD_EXPIRES:
		fprintf(out, "invalid expiry time '%.*s%s': expected seconds since the epoch (date +%%s)\n",
			len, word, more);
		break;
	case KF_TWO_TIMES:
		fprintf(out, "both 'timeout' and 'expires': give one of them\n");
		break;
	case KF_TRAILING:
		fprintf(out, "unexpected '%.*s%s' at the end: a line is [add] ENTRY [timeout SECS | expires UNIXTIME]\n",
			len, word, more);
		break;
	case KF_TOO_LATE:
		fprintf(out, "expires %.*s%s: more than 2147483647 seconds (68 years) from now\n",
			len, word, more);
		break;
	default:
		fprintf(out, "the line has a NUL byte: is this a text file?\n");
	}
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
