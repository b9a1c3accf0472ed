// SPDX-License-Identifier: GPL-2.0
/*
 * Entries as words: parsing one, the keys it stands for, and why one is
 * malformed. The lists of `cfctl load` and `cfctl save` (keyfile.c) are
 * made of them.
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
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "formats/entry_words.h"
#include "formats/keyfile.h"
#include "lib/addr.h"
#include "lib/range.h"
#include "lib/source_name.h"
#include "lib/util.h"

/* Longest part of a bad line quoted in its message. */
#define QUOTE_MAX	60

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
	unsigned long long p;
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
	/* Brackets go with IPv6's colons, also where the address maps IPv4. */
	if ((what == KF_ENTRY || what == KF_BAD_ADDR) &&
	    (*str == '[') != (strchr(a, ':') != NULL))
		return KF_BAD_ENDPOINT;
	if (what != KF_ENTRY)
		return what;
	if (!digits_parse(colon + 1, 5, &p) || p > 65535)
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
	unsigned long long type;
	int i;

	for (i = 1; i <= 2; i++) {
		*word = w[i];
		what = parse_addr_word(w[i], &v, i == 1 ? key->saddr : key->daddr);
		if (what != KF_ENTRY)
			return what;
	}
	*word = w[3];
	if (!digits_parse(w[3], 5, &type) || type > 255)
		return KF_BAD_TYPE;
	key->proto = v == 6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
	key->sport = htons(type);
	set_type(key, CFILTER_KEY_FLOW4, v);
	*word = w[0];
	return KF_ENTRY;
}

/* The kinds of entry, by their first word. */
static const struct kf_kind kf_kinds[] = {
	{ "src",   2, CFILTER_KEY_SRC4,   "src ADDR" },
	{ "dst",   2, CFILTER_KEY_DST4,   "dst ADDR" },
	{ "allow", 2, CFILTER_KEY_ALLOW4, "allow ADDR" },
	{ "tcp",   3, CFILTER_KEY_FLOW4,  "tcp SADDR:SPORT DADDR:DPORT" },
	{ "udp",   3, CFILTER_KEY_FLOW4,  "udp SADDR:SPORT DADDR:DPORT" },
	{ "icmp",  4, CFILTER_KEY_FLOW4,  "icmp SADDR DADDR TYPE" },
	{ "icmp6", 4, CFILTER_KEY_FLOW4,  "icmp6 SADDR DADDR TYPE" },
};

const struct kf_kind *kf_find_kind(const char *name)
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
enum kf_line kf_parse_addr_entry(const char *addr, __u8 type4,
				 unsigned int flags, struct kf_entry *e)
{
	struct cfilter_key *key = &e->key;
	__u8 *a = type4 == CFILTER_KEY_DST4 ? key->daddr : key->saddr;
	const char *dash = strchr(addr, '-');
	enum kf_line what;
	unsigned int len;
	bool masked;
	int v;

	if (dash) {
		what = parse_range(addr, dash, a, e->hi, &v);
		if (what != KF_ENTRY)
			return what;
		set_type(key, type4, v);
		e->range = true;
		return KF_ENTRY;
	}
	v = prefix_parse(addr, a, &len, &masked);
	if (v == -EINVAL)
		return KF_BAD_ADDR;
	if (v == -ERANGE)
		return KF_BAD_LEN;
	if (masked && !(flags & KF_NORMALIZE))
		return KF_HOST_BITS;
	/* prefix_parse() masked them: say so, and go on. */
	e->masked = masked;
	set_type(key, type4, v);
	key->prefix_len = len;
	return KF_ENTRY;
}

/* keyfile_parse_words(), and with KF_NORMALIZE for lists. */
enum kf_line kf_parse_words(char *const words[], int n, unsigned int flags,
			    struct kf_entry *e, const char **word)
{
	const struct kf_kind *kind = n ? kf_find_kind(words[0]) : NULL;
	struct cfilter_key *key = &e->key;
	enum kf_line what;

	memset(e, 0, sizeof(*e));
	*word = n ? words[0] : "";
	if (!kind) {
		if (!n)
			return KF_WORDS;
		what = kf_parse_addr_entry(words[0], CFILTER_KEY_SRC4, flags, e);
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
		what = kf_parse_addr_entry(words[1], kind->type4, flags, e);
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
	return kf_parse_words(words, n, 0, e, word);
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

/* "192.0.2.7/24: host bits set (did you mean 192.0.2.0/24?)" */
static void host_bits_reason(FILE *out, const char *word, int len,
			     const char *more)
{
	char fixed[INET6_ADDRSTRLEN];
	unsigned int bits;
	__u8 addr[16];
	bool masked;
	int v;

	v = prefix_parse(word, addr, &bits, &masked);
	inet_ntop(v == 6 ? AF_INET6 : AF_INET, addr, fixed, sizeof(fixed));
	fprintf(out, "%.*s%s: host bits set (did you mean %s/%u?)\n", len, word,
		more, fixed, bits);
}

/*
 * An address, prefix or range that is malformed, or of the wrong IP version.
 * Returns whether @what is one of them.
 */
static bool addr_reason(FILE *out, enum kf_line what, const char *word,
			int len, const char *more)
{
	switch (what) {
	case KF_BAD_ADDR:
		fprintf(out, "invalid address '%.*s%s': expected an IPv4 or IPv6 address\n",
			len, word, more);
		return true;
	case KF_BAD_LEN:
		fprintf(out, "invalid prefix length in '%.*s%s': expected /0 to /32 for IPv4, /0 to /128 for IPv6, without leading zeros\n",
			len, word, more);
		return true;
	case KF_HOST_BITS:
		host_bits_reason(out, word, len, more);
		return true;
	case KF_BAD_RANGE:
		fprintf(out, "invalid range '%.*s%s': its first address is above its last\n",
			len, word, more);
		return true;
	case KF_RANGE_MIXED:
		fprintf(out, "invalid range '%.*s%s': both ends must be IPv4 or both IPv6\n",
			len, word, more);
		return true;
	case KF_FLOW_PREFIX:
		fprintf(out, "'%.*s%s': a flow names single addresses, not a prefix or range\n",
			len, word, more);
		return true;
	case KF_MIXED:
		fprintf(out, "address '%.*s%s' is of the wrong IP version: a flow's addresses are both IPv4 or both IPv6, icmp takes IPv4 and icmp6 IPv6\n",
			len, word, more);
		return true;
	default:
		return false;
	}
}

/*
 * An entry's kind, its number of words, and the ports and types of flows.
 * Returns whether @what is one of them.
 */
static bool words_reason(FILE *out, enum kf_line what, const char *word,
			 int len, const char *more)
{
	const struct kf_kind *kind;

	switch (what) {
	case KF_WORDS:
		kind = kf_find_kind(word);
		if (kind)
			fprintf(out, "wrong number of words after '%s': expected %s\n",
				word, kind->usage);
		else
			fprintf(out, "unexpected '%.*s%s' after an address: an entry is one address, or a kind (src, dst, allow, tcp, udp, icmp, icmp6) and its words\n",
				len, word, more);
		return true;
	case KF_BAD_KIND:
		fprintf(out, "unknown entry kind '%.*s%s': expected an address, or src, dst, allow, tcp, udp, icmp or icmp6\n",
			len, word, more);
		return true;
	case KF_BAD_ENDPOINT:
		fprintf(out, "invalid endpoint '%.*s%s': expected ADDR:PORT, or [ADDR]:PORT for IPv6\n",
			len, word, more);
		return true;
	case KF_BAD_PORT:
		fprintf(out, "invalid port in '%.*s%s': expected 0 to 65535\n",
			len, word, more);
		return true;
	case KF_BAD_TYPE:
		fprintf(out, "invalid ICMP type '%.*s%s': expected 0 to 255\n",
			len, word, more);
		return true;
	case KF_ADD_ALONE:
		fprintf(out, "'add' without an entry\n");
		return true;
	default:
		return false;
	}
}

/*
 * What ipset's save format says that cfilter cannot take. Returns whether
 * @what is one of them.
 */
static bool ipset_reason(FILE *out, enum kf_line what, const char *word,
			 int len, const char *more)
{
	switch (what) {
	case KF_IPSET_TYPE:
		fprintf(out, "ipset set type '%.*s%s': cfilter takes hash:ip and hash:net sets\n",
			len, word, more);
		return true;
	case KF_IPSET_SETS:
		fprintf(out, "ipset set '%.*s%s': more than %d sets, or a name of %d characters or more\n",
			len, word, more, KF_IPSET_MAX, KF_IPSET_NAME);
		return true;
	case KF_IPSET_OPTION:
		fprintf(out, "ipset entry option '%.*s%s': cfilter reads timeout and nomatch, and skips comment, packets, bytes and skb options\n",
			len, word, more);
		return true;
	case KF_BAD_TIMEOUT:
		fprintf(out, "'timeout' needs a number of seconds, 0 to 2147483\n");
		return true;
	case KF_IPSET_MASK:
		fprintf(out, "ipset %s\n", word);
		return true;
	case KF_IPSET_REFUSED:
		fprintf(out, "entry of ipset set '%.*s%s', refused above: nothing of it is loaded\n",
			len, word, more);
		return true;
	case KF_IPSET_NOMATCH:
		fprintf(out, "ipset nomatch entry '%.*s%s': in ipset an exception inside its own set alone; cfilter's nearest, an allow entry, would let it through every source's entries, fail2ban's and CrowdSec's bans included: leave the line out, or load with --nomatch-allows to make it an allow entry all the same\n",
			len, word, more);
		return true;
	case KF_IPSET_FAMILY:
		fprintf(out, "address '%.*s%s' is not of the family of its ipset set's netmask\n",
			len, word, more);
		return true;
	default:
		return false;
	}
}

/*
 * A "source NAME" line that is malformed, or one too many. Returns whether
 * @what is one of them.
 */
static bool source_reason(FILE *out, enum kf_line what, const char *word,
			  int len, const char *more)
{
	switch (what) {
	case KF_BAD_SOURCE:
		if (*word)
			fprintf(out, "invalid source name '%.*s%s': expected %s\n",
				len, word, more, SOURCE_RULE);
		else
			fprintf(out, "'source' without a NAME: expected %s\n",
				SOURCE_RULE);
		return true;
	case KF_SOURCE_WORDS:
		fprintf(out, "unexpected '%.*s%s' after the source's name: a source line is source NAME\n",
			len, word, more);
		return true;
	case KF_SOURCES_MAX:
		fprintf(out, "source '%.*s%s': more than %d sources in one list, as many as a set holds\n",
			len, word, more, CFILTER_SOURCES_MAX);
		return true;
	case KF_OTHER_SOURCE:
		fprintf(out, "source '%.*s%s': replace -s NAME takes the entries of NAME alone: remove the source lines, or replace the whole filter (without -s)\n",
			len, word, more);
		return true;
	default:
		return false;
	}
}

/*
 * An entry's "timeout SECS" or "expires TIME", and what follows them.
 * Returns whether @what is one of them.
 */
static bool time_reason(FILE *out, enum kf_line what, const char *word,
			int len, const char *more)
{
	switch (what) {
	case KF_BAD_SECONDS:
		fprintf(out, "invalid timeout '%.*s%s': expected %s\n", len,
			word, more, TIMEOUT_RULE);
		return true;
	case KF_BAD_EXPIRES:
		fprintf(out, "invalid expiry time '%.*s%s': expected seconds since the epoch (date +%%s)\n",
			len, word, more);
		return true;
	case KF_TWO_TIMES:
		fprintf(out, "both 'timeout' and 'expires': give one of them\n");
		return true;
	case KF_TRAILING:
		fprintf(out, "unexpected '%.*s%s' at the end: a line is [add] ENTRY [timeout SECS | expires UNIXTIME]\n",
			len, word, more);
		return true;
	case KF_TOO_LATE:
		fprintf(out, "expires %.*s%s: more than 2147483647 seconds (68 years) from now\n",
			len, word, more);
		return true;
	default:
		return false;
	}
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

	if (!addr_reason(out, what, word, len, more) &&
	    !words_reason(out, what, word, len, more) &&
	    !ipset_reason(out, what, word, len, more) &&
	    !source_reason(out, what, word, len, more) &&
	    !time_reason(out, what, word, len, more))
		fprintf(out, "the line has a NUL byte: is this a text file?\n");
}
