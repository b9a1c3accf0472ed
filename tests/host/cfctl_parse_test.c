// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of what cfctl does without the module: the entry parser of
 * add, del, test and `load` (prefixes and ranges included; sources,
 * timeouts and expiry times), the checks of -s and -t, the range
 * splitter, the snapshot file format (built, then damaged), the JSON
 * writer of -j, the reader of CrowdSec's decisions, their --types and the
 * table cfctl crowdsec keeps of them. Built from user/'s sources and run
 * by `make -C tests/host cfctl-check` (or `make -C user check`), under
 * valgrind when it is installed. Prints TAP; exits 1 if a case failed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/decision.h"
#include "formats/decision_table.h"
#include "formats/keyfile.h"
#include "formats/snapfile.h"
#include "lib/addr.h"
#include "lib/deadline.h"
#include "lib/json.h"
#include "lib/range.h"
#include "lib/source_name.h"
#include "lib/util.h"

static int tests, failures;

static void ok(int cond, const char *name)
{
	tests++;
	if (!cond)
		failures++;
	printf("%sok %d %s\n", cond ? "" : "not ", tests, name);
}

/* Parses a copy of @text as one line; returns the verdict, key and word. */
static enum kf_line parse(const char *text, struct cfilter_key *key,
			  char *word, size_t len)
{
	char *line = strdup(text);
	const char *w = "";
	enum kf_line what;
	struct kf_entry e;

	what = keyfile_parse_line(line, strlen(line), NULL, &e, &w);
	*key = e.key;
	snprintf(word, len, "%s", w);
	free(line);
	return what;
}

/*
 * The key a line should give: @type (its family that of the addresses),
 * @len, the addresses @saddr and @daddr (NULL: none), and @proto with its
 * ports or ICMP type in host order.
 */
static struct cfilter_key want_key(__u8 type, unsigned int len,
				   const char *saddr, const char *daddr,
				   __u8 proto, __u16 sport, __u16 dport)
{
	int af = type == CFILTER_KEY_SRC6 || type == CFILTER_KEY_DST6 ||
		 type == CFILTER_KEY_FLOW6 || type == CFILTER_KEY_ALLOW6 ?
		 AF_INET6 : AF_INET;
	struct cfilter_key k;

	memset(&k, 0, sizeof(k));
	k.type = type;
	k.prefix_len = len;
	k.proto = proto;
	k.sport = htons(sport);
	k.dport = htons(dport);
	if ((saddr && inet_pton(af, saddr, k.saddr) != 1) ||
	    (daddr && inet_pton(af, daddr, k.daddr) != 1))
		abort();
	return k;
}

static int is_key(const struct cfilter_key *key, struct cfilter_key want)
{
	return !memcmp(key, &want, sizeof(want));
}

static int is_key4(const struct cfilter_key *key, const char *addr)
{
	return is_key(key, want_key(CFILTER_KEY_SRC4, 32, addr, NULL, 0, 0, 0));
}

static int is_key6(const struct cfilter_key *key, const char *addr)
{
	return is_key(key, want_key(CFILTER_KEY_SRC6, 128, addr, NULL, 0, 0, 0));
}

static void test_lines(void)
{
	static const struct {
		const char	*line;
		enum kf_line	what;
		const char	*word;
	} cases[] = {
		{ "", KF_EMPTY, "" },
		{ "\n", KF_EMPTY, "" },
		{ "   \t \r\n", KF_EMPTY, "" },
		{ "# a comment\n", KF_EMPTY, "" },
		{ "  ; another\n", KF_EMPTY, "" },
		{ "192.0.2.1\n", KF_ENTRY, "192.0.2.1" },
		{ "  192.0.2.1  \r\n", KF_ENTRY, "192.0.2.1" },
		{ "192.0.2.1# why", KF_ENTRY, "192.0.2.1" },
		{ "192.0.2.1 ; why", KF_ENTRY, "192.0.2.1" },
		{ "add 192.0.2.1\n", KF_ENTRY, "192.0.2.1" },
		{ "add\t 2001:db8::1 # x\n", KF_ENTRY, "2001:db8::1" },
		{ "2001:DB8::1", KF_ENTRY, "2001:DB8::1" },
		{ "add\n", KF_ADD_ALONE, "add" },
		{ "add # nothing", KF_ADD_ALONE, "add" },
		{ "added 192.0.2.1", KF_BAD_KIND, "added" },
		{ "addr", KF_BAD_ADDR, "addr" },
		{ "192.0.2.1 192.0.2.2", KF_WORDS, "192.0.2.2" },
		{ "192.0.2.1 a b c d e f", KF_WORDS, "a" },
		{ "tcp 192.0.2.1 80", KF_BAD_ENDPOINT, "192.0.2.1" },
		{ "del 192.0.2.1", KF_BAD_KIND, "del" },
		{ "src 192.0.2.1", KF_ENTRY, "192.0.2.1" },
		{ "dst 2001:db8::1", KF_ENTRY, "2001:db8::1" },
		{ "allow 192.0.2.1 # ok", KF_ENTRY, "192.0.2.1" },
		{ "add allow 192.0.2.1", KF_ENTRY, "192.0.2.1" },
		{ "tcp 192.0.2.1:1 198.51.100.1:80", KF_ENTRY, "tcp" },
		{ "udp  [2001:db8::1]:53\t[2001:db8::2]:5353", KF_ENTRY, "udp" },
		{ "icmp 192.0.2.1 198.51.100.1 8", KF_ENTRY, "icmp" },
		{ "icmp6 2001:db8::1 2001:db8::2 128", KF_ENTRY, "icmp6" },
		{ "src", KF_WORDS, "src" },
		{ "dst", KF_WORDS, "dst" },
		{ "allow 192.0.2.1 192.0.2.2", KF_WORDS, "allow" },
		{ "tcp 192.0.2.1:1", KF_WORDS, "tcp" },
		{ "icmp 192.0.2.1 198.51.100.1 8 9", KF_WORDS, "icmp" },
		{ "icmp 192.0.2.1 198.51.100.1 8 9 10", KF_WORDS, "icmp" },
		{ "dst 192.0.2.0/24", KF_ENTRY, "192.0.2.0/24" },
		{ "dst 192.0.2.7/24", KF_HOST_BITS, "192.0.2.7/24" },
		{ "allow 2001:db8::/129", KF_BAD_LEN, "2001:db8::/129" },
		{ "192.0.2.0/24 192.0.2.9", KF_WORDS, "192.0.2.9" },
		{ "192.0.2.1-192.0.2.9 x", KF_WORDS, "x" },
		{ "tcp 192.0.2.0/24:80 198.51.100.1:80", KF_FLOW_PREFIX, "192.0.2.0/24:80" },
		{ "icmp 192.0.2.0/24 198.51.100.1 8", KF_FLOW_PREFIX, "192.0.2.0/24" },
		{ "icmp 192.0.2.1-192.0.2.2 198.51.100.1 8", KF_FLOW_PREFIX, "192.0.2.1-192.0.2.2" },
		{ "allow nowhere", KF_BAD_ADDR, "nowhere" },
		{ "tcp 2001:db8::1:80 [2001:db8::2]:80", KF_BAD_ENDPOINT, "2001:db8::1:80" },
		{ "tcp [192.0.2.1]:80 198.51.100.1:80", KF_BAD_ENDPOINT, "[192.0.2.1]:80" },
		{ "tcp [2001:db8::1:80 [2001:db8::2]:80", KF_BAD_ENDPOINT, "[2001:db8::1:80" },
		{ "tcp 192.0.2.1:80 [2001:db8::2]:80", KF_MIXED, "[2001:db8::2]:80" },
		{ "udp 192.0.2.1:65536 198.51.100.1:80", KF_BAD_PORT, "192.0.2.1:65536" },
		{ "udp 192.0.2.1:1 198.51.100.1:", KF_BAD_PORT, "198.51.100.1:" },
		{ "udp 192.0.2.1:-1 198.51.100.1:2", KF_BAD_PORT, "192.0.2.1:-1" },
		{ "udp 192.0.2.1:1x 198.51.100.1:2", KF_BAD_PORT, "192.0.2.1:1x" },
		{ "udp 192.0.2.300:1 198.51.100.1:2", KF_BAD_ADDR, "192.0.2.300:1" },
		{ "icmp 192.0.2.1 198.51.100.1 256", KF_BAD_TYPE, "256" },
		{ "icmp 192.0.2.1 198.51.100.1 echo", KF_BAD_TYPE, "echo" },
		{ "icmp 2001:db8::1 2001:db8::2 8", KF_MIXED, "2001:db8::1" },
		{ "icmp6 2001:db8::1 192.0.2.1 8", KF_MIXED, "192.0.2.1" },
		{ "icmp6 192.0.2.1 192.0.2.2 8", KF_MIXED, "192.0.2.1" },
		{ "TCP 192.0.2.1:1 198.51.100.1:80", KF_BAD_KIND, "TCP" },
		{ "192.0.2.0/24", KF_ENTRY, "192.0.2.0/24" },
		{ "add 2001:db8::/32", KF_ENTRY, "2001:db8::/32" },
		{ "192.0.2.0/33", KF_BAD_LEN, "192.0.2.0/33" },
		{ "192.0.2.0/", KF_BAD_LEN, "192.0.2.0/" },
		{ "192.0.2.0/024", KF_BAD_LEN, "192.0.2.0/024" },
		{ "192.0.2.0/2x", KF_BAD_LEN, "192.0.2.0/2x" },
		{ "192.0.2.0/-1", KF_BAD_ADDR, "192.0.2.0/-1" },
		{ "192.0.2.0/ 24", KF_WORDS, "24" },
		{ "192.0.2/24", KF_BAD_ADDR, "192.0.2/24" },
		{ "/24", KF_BAD_ADDR, "/24" },
		{ "0.0.0.0/0", KF_ENTRY, "0.0.0.0/0" },
		{ "::/0", KF_ENTRY, "::/0" },
		{ "192.0.2.1/32", KF_ENTRY, "192.0.2.1/32" },
		{ "192.0.2.128/25", KF_ENTRY, "192.0.2.128/25" },
		{ "192.0.2.128/24", KF_HOST_BITS, "192.0.2.128/24" },
		{ "0.0.0.1/0", KF_HOST_BITS, "0.0.0.1/0" },
		{ "2001:db8::1/64", KF_HOST_BITS, "2001:db8::1/64" },
		{ "2001:db8::/0129", KF_BAD_LEN, "2001:db8::/0129" },
		{ "192.0.2.10-192.0.2.99", KF_ENTRY, "192.0.2.10-192.0.2.99" },
		{ "dst 2001:db8::-2001:db8::ff", KF_ENTRY, "2001:db8::-2001:db8::ff" },
		{ "192.0.2.99-192.0.2.10", KF_BAD_RANGE, "192.0.2.99-192.0.2.10" },
		{ "192.0.2.1-2001:db8::1", KF_RANGE_MIXED, "192.0.2.1-2001:db8::1" },
		{ "192.0.2.1-", KF_BAD_ADDR, "192.0.2.1-" },
		{ "-192.0.2.1", KF_BAD_ADDR, "-192.0.2.1" },
		{ "192.0.2.0/24-192.0.2.255", KF_BAD_ADDR, "192.0.2.0/24-192.0.2.255" },
		{ "192.0.2.1-192.0.2.2-192.0.2.3", KF_BAD_ADDR, "192.0.2.1-192.0.2.2-192.0.2.3" },
		{ "192.0.2.256", KF_BAD_ADDR, "192.0.2.256" },
		{ "192.0.2", KF_BAD_ADDR, "192.0.2" },
		{ "192.0.2.01", KF_BAD_ADDR, "192.0.2.01" },
		{ "::g", KF_BAD_ADDR, "::g" },
		{ "ADD 192.0.2.1", KF_BAD_KIND, "ADD" },
	};
	struct cfilter_key key;
	char word[128], name[200];
	unsigned int i;
	enum kf_line what;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		what = parse(cases[i].line, &key, word, sizeof(word));
		snprintf(name, sizeof(name), "line '%s': verdict %d, word '%s'",
			 cases[i].line, cases[i].what, cases[i].word);
		for (char *p = name; *p; p++)
			if (*p == '\n' || *p == '\r' || *p == '#')
				*p = '.';
		ok(what == cases[i].what && !strcmp(word, cases[i].word), name);
	}

	parse("add 192.0.2.7 ; x", &key, word, sizeof(word));
	ok(is_key4(&key, "192.0.2.7"), "IPv4 entry: the XDP program's key");
	parse(" 2001:db8:0::7\n", &key, word, sizeof(word));
	ok(is_key6(&key, "2001:db8::7"), "IPv6 entry: the XDP program's key");
}

/* A line and the key it gives; the fields are want_key()'s arguments. */
struct entry_case {
	const char	*text;
	__u8		type;
	unsigned int	len;
	const char	*saddr, *daddr;
	__u8		proto;
	__u16		sport, dport;
};

/* Each case parses to its key, which formats back to its text. */
static void check_entries(const struct entry_case *cases, size_t n)
{
	char word[128], back[ENTRY_STRLEN], name[200];
	struct cfilter_key key, want;
	enum kf_line what;
	size_t i;

	for (i = 0; i < n; i++) {
		want = want_key(cases[i].type, cases[i].len, cases[i].saddr,
				cases[i].daddr, cases[i].proto, cases[i].sport,
				cases[i].dport);
		what = parse(cases[i].text, &key, word, sizeof(word));
		entry_format(&key, back, sizeof(back));
		snprintf(name, sizeof(name), "entry '%s': key, and formats back",
			 cases[i].text);
		ok(what == KF_ENTRY && is_key(&key, want) &&
		   !strcmp(back, cases[i].text), name);
	}
}

static void test_entries(void)
{
	static const struct entry_case cases[] = {
		{ "dst 198.51.100.7", CFILTER_KEY_DST4, 32, NULL, "198.51.100.7",
		  0, 0, 0 },
		{ "dst 2001:db8::7", CFILTER_KEY_DST6, 128, NULL, "2001:db8::7",
		  0, 0, 0 },
		{ "allow 192.0.2.9", CFILTER_KEY_ALLOW4, 32, "192.0.2.9", NULL,
		  0, 0, 0 },
		{ "allow 2001:db8::9", CFILTER_KEY_ALLOW6, 128, "2001:db8::9", NULL,
		  0, 0, 0 },
		{ "tcp 192.0.2.1:40000 198.51.100.1:80", CFILTER_KEY_FLOW4, 32,
		  "192.0.2.1", "198.51.100.1", IPPROTO_TCP, 40000, 80 },
		{ "udp 192.0.2.1:40000 198.51.100.1:80", CFILTER_KEY_FLOW4, 32,
		  "192.0.2.1", "198.51.100.1", IPPROTO_UDP, 40000, 80 },
		{ "icmp 192.0.2.1 198.51.100.1 8", CFILTER_KEY_FLOW4, 32,
		  "192.0.2.1", "198.51.100.1", IPPROTO_ICMP, 8, 0 },
		{ "udp [2001:db8::1]:0 [2001:db8::2]:65535", CFILTER_KEY_FLOW6, 128,
		  "2001:db8::1", "2001:db8::2", IPPROTO_UDP, 0, 65535 },
		{ "icmp6 2001:db8::1 2001:db8::2 128", CFILTER_KEY_FLOW6, 128,
		  "2001:db8::1", "2001:db8::2", IPPROTO_ICMPV6, 128, 0 },
		{ "2001:db8::5", CFILTER_KEY_SRC6, 128, "2001:db8::5", NULL,
		  0, 0, 0 },
	};

	check_entries(cases, ARRAY_SIZE(cases));
}

/* What keyfile_reason() prints for @what and @word; the caller frees it. */
static char *reason_text(enum kf_line what, const char *word)
{
	char *msg = NULL;
	size_t len;
	FILE *f = open_memstream(&msg, &len);

	if (!f)
		abort();
	keyfile_reason(f, what, word);
	fclose(f);
	return msg;
}

/* A verdict, its word, and the exact text keyfile_reason() gives for them. */
struct reason_case {
	enum kf_line	what;
	const char	*word;
	const char	*msg;
};

static void check_reasons(const struct reason_case *cases, size_t n)
{
	char *msg, name[300];
	size_t i;

	for (i = 0; i < n; i++) {
		msg = reason_text(cases[i].what, cases[i].word);
		snprintf(name, sizeof(name), "reason %d: %.200s", cases[i].what,
			 cases[i].msg);
		name[strcspn(name, "\n")] = '\0';
		ok(!strcmp(msg, cases[i].msg), name);
		if (strcmp(msg, cases[i].msg))
			printf("# got %s", msg);
		free(msg);
	}
}

/* Each reason names its word and what was expected, on one line. */
static void test_reasons(void)
{
	static const struct reason_case cases[] = {
		{ KF_BAD_KIND, "del", "unknown entry kind 'del': expected an address, or src, dst, allow, tcp, udp, icmp or icmp6\n" },
		{ KF_WORDS, "tcp", "wrong number of words after 'tcp': expected tcp SADDR:SPORT DADDR:DPORT\n" },
		{ KF_WORDS, "192.0.2.9", "unexpected '192.0.2.9' after an address: an entry is one address, or a kind (src, dst, allow, tcp, udp, icmp, icmp6) and its words\n" },
		{ KF_BAD_ENDPOINT, "x", "invalid endpoint 'x': expected ADDR:PORT, or [ADDR]:PORT for IPv6\n" },
		{ KF_BAD_PORT, "a:99999", "invalid port in 'a:99999': expected 0 to 65535\n" },
		{ KF_BAD_TYPE, "300", "invalid ICMP type '300': expected 0 to 255\n" },
		{ KF_MIXED, "::1", "address '::1' is of the wrong IP version: a flow's addresses are both IPv4 or both IPv6, icmp takes IPv4 and icmp6 IPv6\n" },
	};

	check_reasons(cases, ARRAY_SIZE(cases));
}

static void test_nul(void)
{
	char line[] = "192.0.2.1\0junk\n";
	struct kf_entry key;
	const char *w;

	ok(keyfile_parse_line(line, sizeof(line) - 1, NULL, &key, &w) == KF_NUL,
	   "a NUL byte inside the line: KF_NUL");
}

/* Is @key the source prefix @addr/@len? */
static int is_prefix4(const struct cfilter_key *key, const char *addr,
		      unsigned int len)
{
	return is_key(key, want_key(CFILTER_KEY_SRC4, len, addr, NULL, 0, 0, 0));
}

/* keyfile_read() of @text: entries, lines, bad count, and the messages. */
static void test_read(void)
{
	static const char text[] =
		"\xef\xbb\xbf# list v1\n"		/* 1 */
		"192.0.2.1\n"				/* 2 */
		"\n"					/* 3 */
		"add 192.0.2.2 ; from a script\n"	/* 4 */
		"192.0.2.300\n"				/* 5 */
		"2001:db8::1 # v6\n"			/* 6 */
		"192.0.2.7/24\n"			/* 7 */
		"198.51.100.1-198.51.100.6\n"		/* 8: four prefixes */
		"192.0.2.1";				/* 9: repeat, no newline */
	struct key_list kl = { 0 };
	char *msgs = NULL;
	size_t msgs_len;
	FILE *in, *errs;
	int err;

	in = fmemopen((void *)text, sizeof(text) - 1, "r");
	errs = open_memstream(&msgs, &msgs_len);
	err = keyfile_read(in, "list.txt", 0, NULL, &kl, errs);
	fclose(in);
	fclose(errs);

	ok(!err, "read: no error");
	ok(kl.n == 8 && kl.bad == 2, "read: 8 keys, 2 malformed lines");
	ok(kl.n == 8 && kl.lines[0] == 2 && kl.lines[1] == 4 &&
	   kl.lines[2] == 6 && kl.lines[3] == 8 && kl.lines[6] == 8 &&
	   kl.lines[7] == 9, "read: each key's line number, a range's on each");
	ok(kl.n == 8 && is_key4(&kl.keys[0], "192.0.2.1") &&
	   is_key4(&kl.keys[1], "192.0.2.2") &&
	   is_key6(&kl.keys[2], "2001:db8::1") &&
	   is_prefix4(&kl.keys[3], "198.51.100.1", 32) &&
	   is_prefix4(&kl.keys[4], "198.51.100.2", 31) &&
	   is_prefix4(&kl.keys[5], "198.51.100.4", 31) &&
	   is_prefix4(&kl.keys[6], "198.51.100.6", 32) &&
	   is_key4(&kl.keys[7], "192.0.2.1"), "read: the keys, in file order");
	ok(msgs && strstr(msgs, "list.txt:5: invalid address '192.0.2.300'"),
	   "read: bad address reported as FILE:LINE: with the word");
	ok(msgs && strstr(msgs,
			  "list.txt:7: 192.0.2.7/24: host bits set (did you mean 192.0.2.0/24?)\n"),
	   "read: host bits reported with the prefix meant");
	ok(msgs && !strstr(msgs, "list.txt:1:"),
	   "read: byte order mark and comment accepted");
	free(msgs);
	key_list_free(&kl);
}

/* keyfile_read() of @text with @flags and -s @source: list and messages. */
static int read_source_text(const char *text, unsigned int flags,
			    const char *source, struct key_list *kl,
			    char **msgs)
{
	size_t msgs_len;
	FILE *in, *errs;
	int err;

	in = fmemopen((void *)text, strlen(text), "r");
	errs = open_memstream(msgs, &msgs_len);
	err = keyfile_read(in, "f", flags, source, kl, errs);
	fclose(in);
	fclose(errs);
	return err;
}

/* keyfile_read() of @text with @flags: the list, and the messages. */
static int read_text(const char *text, unsigned int flags, struct key_list *kl,
		     char **msgs)
{
	return read_source_text(text, flags, NULL, kl, msgs);
}

/* What `ipset save` writes, as `ipset save bl | cfctl load -` reads it. */
static void test_ipset(void)
{
	static const char saved[] =
		"create bl hash:net family inet hashsize 1024 maxelem 65536 timeout 300 counters comment\n"
		"add bl 192.0.2.0/24 timeout 250 packets 5 bytes 420 comment \"from a feed\"\n"
		"add bl 198.51.100.7 timeout 0\n"
		"add bl 192.0.2.128/25 nomatch\n"
		"create bl6 hash:ip family inet6 hashsize 1024 maxelem 65536\n"
		"add bl6 2001:db8::66\n"
		"add 203.0.113.9\n";
	struct key_list kl = { 0 };
	char *msgs = NULL;
	int err;

	err = read_text(saved, KF_NOMATCH_ALLOWS, &kl, &msgs);
	ok(!err && kl.n == 5 && !kl.bad && kl.holds[0].timed &&
	   kl.holds[0].timeout == 250 && kl.holds[1].timed &&
	   !kl.holds[1].timeout && !kl.holds[2].timed && !kl.holds[4].timed,
	   "ipset: two sets' entries read, create lines skipped, timeouts kept (0: permanent)");
	ok(kl.n == 5 && is_prefix4(&kl.keys[0], "192.0.2.0", 24) &&
	   is_key4(&kl.keys[1], "198.51.100.7") &&
	   is_key(&kl.keys[2], want_key(CFILTER_KEY_ALLOW4, 25, "192.0.2.128",
					NULL, 0, 0, 0)) &&
	   is_key6(&kl.keys[3], "2001:db8::66") &&
	   is_key4(&kl.keys[4], "203.0.113.9"),
	   "ipset: the entries; --nomatch-allows: nomatch an allow entry; cfctl's own lines too");
	free(msgs);
	key_list_free(&kl);

	err = read_text(saved, 0, &kl, &msgs);
	ok(!err && kl.n == 4 && kl.bad == 1 &&
	   strstr(msgs, "f:4: ipset nomatch entry '192.0.2.128/25': in ipset an exception inside its own set alone; cfilter's nearest, an allow entry, would let it through every source's entries, fail2ban's and CrowdSec's bans included: leave the line out, or load with --nomatch-allows to make it an allow entry all the same\n"),
	   "ipset: nomatch refused by default, the difference said, the option named");
	free(msgs);
	key_list_free(&kl);

	err = read_text("add bl 192.0.2.1\n", 0, &kl, &msgs);
	ok(!err && kl.bad == 1 && strstr(msgs, "f:1: unknown entry kind 'bl'"),
	   "ipset: an add of a set never created is not read as ipset's");
	free(msgs);
	key_list_free(&kl);

	err = read_text("create m hash:ip,port family inet\n", 0, &kl, &msgs);
	ok(!err && kl.bad == 1 &&
	   strstr(msgs, "ipset set type 'hash:ip,port': cfilter takes hash:ip and hash:net sets"),
	   "ipset: a set of another type: refused, named");
	free(msgs);
	key_list_free(&kl);

	err = read_text("create bl hash:ip\nadd bl 192.0.2.1 timeout\nadd bl 192.0.2.2 timeout 2147484\n"
			"add bl 192.0.2.3 forceadd\nadd bl 192.0.2.4/24\n",
			0, &kl, &msgs);
	ok(!err && kl.n == 0 && kl.bad == 4 &&
	   strstr(msgs, "f:2: 'timeout' needs a number of seconds") &&
	   strstr(msgs, "f:3: 'timeout' needs") &&
	   strstr(msgs, "f:4: ipset entry option 'forceadd'") &&
	   strstr(msgs, "f:5: 192.0.2.4/24: host bits set"),
	   "ipset: a timeout without seconds or past ipset's, an unknown option, host bits: refused");
	free(msgs);
	key_list_free(&kl);
}

/*
 * A hash:ip set with netmask N stores networks, ADDR/N, and matches every
 * address inside one: so must its entries loaded into cfilter.
 */
static void test_ipset_netmask(void)
{
	struct key_list kl = { 0 };
	char *msgs = NULL;
	int err;

	err = read_text("create nets hash:ip family inet hashsize 1024 maxelem 65536 netmask 24 bucketsize 12 initval 0x1d5e7b20\n"
			"add nets 198.51.100.0\n"
			"add nets 203.0.113.0 timeout 30\n"
			"add nets 192.0.2.7\n"
			"create nets6 hash:ip family inet6 netmask 64\n"
			"add nets6 2001:db8:1::\n",
			0, &kl, &msgs);
	ok(!err && !kl.bad && kl.n == 4 &&
	   is_prefix4(&kl.keys[0], "198.51.100.0", 24) &&
	   is_prefix4(&kl.keys[1], "203.0.113.0", 24) && kl.holds[1].timed &&
	   kl.holds[1].timeout == 30 &&
	   is_prefix4(&kl.keys[2], "192.0.2.0", 24) &&
	   is_key(&kl.keys[3], want_key(CFILTER_KEY_SRC6, 64, "2001:db8:1::",
					NULL, 0, 0, 0)),
	   "ipset netmask: each address is its network, as ipset matches it (an address masked as ipset adds it)");
	free(msgs);
	key_list_free(&kl);

	err = read_text("create b hash:ip family inet bitmask 255.255.0.0\n"
			"add b 10.1.0.0\n"
			"create both hash:ip family inet netmask 28 bitmask 255.255.255.240\n"
			"add both 10.2.0.16\n"
			"create b6 hash:ip family inet6 bitmask ffff:ffff:ffff::\n"
			"add b6 2001:db8:2::\n",
			0, &kl, &msgs);
	ok(!err && !kl.bad && kl.n == 3 &&
	   is_prefix4(&kl.keys[0], "10.1.0.0", 16) &&
	   is_prefix4(&kl.keys[1], "10.2.0.16", 28) &&
	   is_key(&kl.keys[2], want_key(CFILTER_KEY_SRC6, 48, "2001:db8:2::",
					NULL, 0, 0, 0)),
	   "ipset bitmask of leading ones: a netmask, IPv4 and IPv6; with a netmask that agrees");
	free(msgs);
	key_list_free(&kl);

	err = read_text("create odd hash:ip family inet bitmask 255.0.255.0\n"
			"add odd 10.0.1.0\n"
			"192.0.2.1\n",
			0, &kl, &msgs);
	ok(!err && kl.bad == 2 && kl.n == 1 && is_key4(&kl.keys[0], "192.0.2.1") &&
	   strstr(msgs, "f:1: ipset set 'odd': bitmask 255.0.255.0 is not a netmask (ones, then zeros): the set matches addresses whose masked bits agree, which no prefix can block; move its entries by hand\n") &&
	   strstr(msgs, "f:2: entry of ipset set 'odd', refused above: nothing of it is loaded\n"),
	   "ipset bitmask not a prefix: refused clearly, its entries never loaded as hosts");
	free(msgs);
	key_list_free(&kl);

	err = read_text("create n hash:ip family inet netmask 33\n"
			"create m hash:ip family inet netmask 24 bitmask 255.255.0.0\n"
			"create o hash:ip family inet6 bitmask 255.255.0.0\n"
			"create p hash:ip netmask\n",
			0, &kl, &msgs);
	ok(!err && kl.bad == 4 &&
	   strstr(msgs, "f:1: ipset set 'n': netmask 33 is no prefix length of its family (1-32 for inet, 1-128 for inet6)\n") &&
	   strstr(msgs, "f:2: ipset set 'm': netmask 24 and bitmask 255.255.0.0 disagree\n") &&
	   strstr(msgs, "f:3: ipset set 'o': bitmask 255.255.0.0 is not an address of its family\n") &&
	   strstr(msgs, "f:4: ipset set 'p': netmask without a value\n"),
	   "ipset netmask out of range, masks that disagree, a bitmask of another family, no value: refused");
	free(msgs);
	key_list_free(&kl);
}

/*
 * ::ffff:a.b.c.d is what a dual-stack socket shows of an IPv4 peer: as an
 * IPv6 key no IPv4 packet would meet it. Every parser takes it for IPv4.
 */
static void test_mapped(void)
{
	struct key_list kl = { 0 };
	struct cfilter_key key;
	char word[128], *msgs = NULL;
	__u8 addr[16];
	int err;

	ok(parse("::ffff:192.0.2.1", &key, word, sizeof(word)) == KF_ENTRY &&
	   is_key4(&key, "192.0.2.1"), "mapped: ::ffff:192.0.2.1 is the source 192.0.2.1");
	ok(parse("src ::FFFF:c000:201", &key, word, sizeof(word)) == KF_ENTRY &&
	   is_key4(&key, "192.0.2.1"), "mapped: in hex, upper case: the same");
	ok(parse("dst ::ffff:198.51.100.7", &key, word, sizeof(word)) == KF_ENTRY &&
	   is_key(&key, want_key(CFILTER_KEY_DST4, 32, NULL, "198.51.100.7", 0, 0, 0)),
	   "mapped: a destination");
	ok(parse("allow ::ffff:192.0.2.0/120", &key, word, sizeof(word)) == KF_ENTRY &&
	   is_key(&key, want_key(CFILTER_KEY_ALLOW4, 24, "192.0.2.0", NULL, 0, 0, 0)),
	   "mapped: an allow prefix of 120 bits is the IPv4 /24");
	ok(parse("::ffff:0.0.0.0/96", &key, word, sizeof(word)) == KF_ENTRY &&
	   is_key(&key, want_key(CFILTER_KEY_SRC4, 0, "0.0.0.0", NULL, 0, 0, 0)),
	   "mapped: ::ffff:0.0.0.0/96 is every IPv4 address");
	ok(parse("::/80", &key, word, sizeof(word)) == KF_ENTRY &&
	   is_key(&key, want_key(CFILTER_KEY_SRC6, 80, "::", NULL, 0, 0, 0)),
	   "mapped: a prefix shorter than 96 bits covers more than IPv4: IPv6");
	ok(parse("::ffff:192.0.2.7/120", &key, word, sizeof(word)) == KF_HOST_BITS,
	   "mapped: host bits set: refused");
	check_reasons((const struct reason_case[]) {
		{ KF_HOST_BITS, "::ffff:192.0.2.7/120",
		  "::ffff:192.0.2.7/120: host bits set (did you mean 192.0.2.0/24?)\n" },
	}, 1);
	ok(parse("tcp [::ffff:192.0.2.1]:40000 [::ffff:198.51.100.1]:80", &key,
		 word, sizeof(word)) == KF_ENTRY &&
	   is_key(&key, want_key(CFILTER_KEY_FLOW4, 32, "192.0.2.1", "198.51.100.1",
				 IPPROTO_TCP, 40000, 80)),
	   "mapped: a flow, its IPv6 form in brackets, is an IPv4 flow");
	ok(parse("icmp ::ffff:192.0.2.1 198.51.100.1 8", &key, word,
		 sizeof(word)) == KF_ENTRY &&
	   is_key(&key, want_key(CFILTER_KEY_FLOW4, 32, "192.0.2.1", "198.51.100.1",
				 IPPROTO_ICMP, 8, 0)),
	   "mapped: an icmp flow");
	ok(parse("tcp ::ffff:192.0.2.1:1 198.51.100.1:80", &key, word,
		 sizeof(word)) == KF_BAD_ENDPOINT,
	   "mapped: a flow's IPv6 form without brackets: refused as any IPv6");
	ok(addr_parse("::ffff:192.0.2.1", addr) == 4 &&
	   !memcmp(addr, "\xc0\x00\x02\x01\0\0\0\0\0\0\0\0\0\0\0\0", 16),
	   "mapped: addr_parse() (match's SRC and DST) gives the IPv4 address");

	err = read_text("::ffff:192.0.2.8-::ffff:192.0.2.9\n"
			"create bl6 hash:ip family inet6\n"
			"add bl6 ::ffff:198.51.100.7\n",
			0, &kl, &msgs);
	ok(!err && !kl.bad && kl.n == 2 &&
	   is_prefix4(&kl.keys[0], "192.0.2.8", 31) &&
	   is_key4(&kl.keys[1], "198.51.100.7"),
	   "mapped: a range and an ipset entry in a list are IPv4");
	free(msgs);
	key_list_free(&kl);
}

/* --normalize: host bits masked and counted, not refused. */
static void test_normalize(void)
{
	struct key_list kl = { 0 };
	char *msgs = NULL;
	int err;

	err = read_text("192.0.2.7/24\nsrc 2001:db8::1/32\n198.51.100.0/24\n",
			KF_NORMALIZE, &kl, &msgs);
	ok(!err && kl.n == 3 && !kl.bad && kl.masked == 2 &&
	   is_prefix4(&kl.keys[0], "192.0.2.0", 24) &&
	   kl.keys[1].type == CFILTER_KEY_SRC6 && kl.keys[1].prefix_len == 32 &&
	   kl.keys[1].saddr[3] == 0xb8 && !kl.keys[1].saddr[15] &&
	   is_prefix4(&kl.keys[2], "198.51.100.0", 24),
	   "normalize: two prefixes masked and counted, the clean one kept");
	free(msgs);
	key_list_free(&kl);

	err = read_text("192.0.2.7/33\n", KF_NORMALIZE, &kl, &msgs);
	ok(!err && kl.bad == 1 && strstr(msgs, "invalid prefix length"),
	   "normalize: a bad length is still refused");
	free(msgs);
	key_list_free(&kl);
}

/* -s NAME and -t SECS: checked before anything reaches the module. */
static void test_source_rules(void)
{
	static const struct {
		const char	*name;
		bool		good;
	} names[] = {
		{ "feed", true }, { "f2b-sshd", true }, { "crowdsec", true },
		{ "default", true }, { "a", true }, { "A.b_c:d@e-1", true },
		{ "1234567890123456789012345678901", true },	/* 31 */
		{ "12345678901234567890123456789012", false },	/* 32 */
		{ "", false }, { "-feed", false }, { "a b", false },
		{ "feed/1", false }, { "f\xc3\xa9" "ed", false }, { "a\tb", false },
		{ "feed!", false }, { "a,b", false },
	};
	static const struct {
		const char	*text;
		int		ret;
		__u32		secs;
	} timeouts[] = {
		{ "0", 0, 0 }, { "1", 0, 1 }, { "600", 0, 600 },
		{ "2147483647", 0, 2147483647U }, { "0000000600", 0, 600 },
		{ "2147483648", -1, 0 }, { "99999999999", -1, 0 },
		{ "4294967296", -1, 0 }, { "", -1, 0 }, { "abc", -1, 0 },
		{ "-5", -1, 0 }, { "+5", -1, 0 }, { "1.5", -1, 0 },
		{ "1e3", -1, 0 }, { " 5", -1, 0 }, { "5 ", -1, 0 },
		{ "0x10", -1, 0 }, { "5s", -1, 0 },
	};
	char name[200];
	unsigned int i;
	__u32 secs;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(name, sizeof(name), "source name '%s': %s", names[i].name,
			 names[i].good ? "taken" : "refused");
		ok(source_name_ok(names[i].name) == names[i].good, name);
	}
	for (i = 0; i < ARRAY_SIZE(timeouts); i++) {
		secs = 7;
		snprintf(name, sizeof(name), "timeout '%s': %s", timeouts[i].text,
			 timeouts[i].ret ? "refused" : "taken");
		ok(timeout_parse(timeouts[i].text, &secs) == timeouts[i].ret &&
		   (timeouts[i].ret || secs == timeouts[i].secs), name);
	}
	ok(source_is_default(NULL) && source_is_default("") &&
	   source_is_default("default") && !source_is_default("Default"),
	   "source: NULL, \"\" and \"default\" are the default source");
	ok(!strcmp(source_shown(""), "default") && !strcmp(source_shown("x"), "x"),
	   "source: \"\" is shown as default");
}

/* --from TIME: fail2ban's <time> is a float; anything else is refused. */
static void test_epochs(void)
{
	static const struct {
		const char	*text;
		int		ret;
		long long	ns;
	} times[] = {
		{ "1732752000", 0, 1732752000000000000LL },
		{ "1732752000.5", 0, 1732752000500000000LL },
		{ "1732752000.123456789", 0, 1732752000123456789LL },
		{ "0.000000001", 0, 1 },
		{ "4000000000", 0, 4000000000000000000LL },
		{ "4000000001", -1, 0 },
		{ "0", -1, 0 },
		{ "0.0", -1, 0 },
		{ "", -1, 0 },
		{ ".5", -1, 0 },
		{ "5.", -1, 0 },
		{ "1.1234567891", -1, 0 },
		{ "-1", -1, 0 },
		{ "+1", -1, 0 },
		{ "1e9", -1, 0 },
		{ "1.2.3", -1, 0 },
		{ " 1", -1, 0 },
		{ "123456789012", -1, 0 },
	};
	char name[96];
	unsigned int i;
	long long ns;

	for (i = 0; i < ARRAY_SIZE(times); i++) {
		ns = 7;
		snprintf(name, sizeof(name), "time '%s': %s", times[i].text,
			 times[i].ret ? "refused" : "taken");
		ok(epoch_parse(times[i].text, &ns) == times[i].ret &&
		   ns == (times[i].ret ? 7 : times[i].ns), name);
	}
}

/*
 * -t with --cap-timeout: any number of digits, counted to TIMEOUT_LONG_MAX;
 * and what is left of it at a time after its start (--from).
 */
static void test_long_timeouts(void)
{
	static const struct {
		const char		*text;
		int			ret;
		unsigned long long	secs;
	} longs[] = {
		{ "0", 0, 0 }, { "600", 0, 600 }, { "2147483648", 0, 2147483648ULL },
		{ "3774873600", 0, 3774873600ULL },	/* 1 h << 20 */
		{ "999999999999999999", 0, 999999999999999999ULL },
		{ "1000000000000000001", 0, TIMEOUT_LONG_MAX },
		{ "123456789012345678901234567890", 0, TIMEOUT_LONG_MAX },
		{ "000000000000000000000000000600", 0, 600 },
		{ "", -1, 7 }, { "-1", -1, 7 }, { "1.5", -1, 7 },
		{ "1e20", -1, 7 }, { " 5", -1, 7 },
	};
	static const struct {
		unsigned long long	secs;
		long long		from_ns, now_ns, left;
		const char		*name;
	} lefts[] = {
		{ 600, 1000000000000000000LL, 1000000000000000000LL, 600,
		  "from now: the whole timeout" },
		{ 600, 1000000000000000000LL, 1000000000500000000LL, 600,
		  "half a second on: rounded up, never ending early" },
		{ 600, 1000000000000000000LL, 1000000001000000000LL, 599,
		  "one second on: a second less" },
		{ 600, 1000000000000000000LL, 1000000600000000000LL, 0,
		  "its end: nothing left" },
		{ 600, 1000000000000000000LL, 1000000700000000000LL, 0,
		  "past its end: nothing left" },
		{ 600, 1000000000500000000LL, 1000000000000000000LL, 601,
		  "a start half a second ahead: rounded up" },
		{ 3774873600ULL, 1764300000250000000LL, 1764300010000000000LL,
		  3774873591LL, "1 h << 20, 9.75 s on: past the kernel's bound" },
		{ TIMEOUT_LONG_MAX, 4000000000000000000LL, 0, TIMEOUT_LONG_MAX + 4000000000LL,
		  "the longest, from the latest start: no overflow" },
	};
	unsigned long long secs;
	char name[200];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(longs); i++) {
		secs = 7;
		snprintf(name, sizeof(name), "long timeout '%s': %s", longs[i].text,
			 longs[i].ret ? "refused" : "taken");
		ok(timeout_parse_long(longs[i].text, &secs) == longs[i].ret &&
		   secs == longs[i].secs, name);
	}
	for (i = 0; i < ARRAY_SIZE(lefts); i++) {
		snprintf(name, sizeof(name), "timeout left: %s", lefts[i].name);
		ok(timeout_left(lefts[i].secs, lefts[i].from_ns, lefts[i].now_ns) ==
		   lefts[i].left, name);
	}
}

/* One line's verdict, word, timeout and expiry time. */
static void check_when(const char *text, enum kf_line want, const char *word,
		       bool timed, __u32 timeout, __s64 expires)
{
	char *line = strdup(text), name[200];
	const char *w = "";
	struct kf_entry e;
	enum kf_line what;

	what = keyfile_parse_line(line, strlen(line), NULL, &e, &w);
	snprintf(name, sizeof(name), "line '%s': verdict %d, word '%s'", text,
		 want, word);
	ok(what == want && !strcmp(w, word) &&
	   (what != KF_ENTRY || (e.timed == timed && e.timeout == timeout &&
				 e.expires == expires)), name);
	if (what != want || strcmp(w, word))
		printf("# got verdict %d, word '%s'\n", what, w);
	free(line);
}

/* "[add] ENTRY [timeout SECS | expires UNIXTIME]" and "source NAME". */
static void test_when_lines(void)
{
	check_when("192.0.2.1 timeout 600", KF_ENTRY, "192.0.2.1", true, 600, 0);
	check_when("add 192.0.2.1 timeout 0", KF_ENTRY, "192.0.2.1", true, 0, 0);
	check_when("192.0.2.1 expires 1900000000 # saved", KF_ENTRY, "192.0.2.1",
		   true, 0, 1900000000);
	check_when("192.0.2.1", KF_ENTRY, "192.0.2.1", false, 0, 0);
	check_when("src 192.0.2.0/24 timeout 5", KF_ENTRY, "192.0.2.0/24", true, 5, 0);
	check_when("allow 2001:db8::/64 expires 2000000000", KF_ENTRY,
		   "2001:db8::/64", true, 0, 2000000000);
	check_when("tcp 192.0.2.1:1 198.51.100.1:80 timeout 30", KF_ENTRY, "tcp",
		   true, 30, 0);
	check_when("icmp6 2001:db8::1 2001:db8::2 128 expires 1", KF_ENTRY,
		   "icmp6", true, 0, 1);
	check_when("192.0.2.10-192.0.2.20 timeout 9", KF_ENTRY,
		   "192.0.2.10-192.0.2.20", true, 9, 0);
	check_when("192.0.2.1 timeout 2147483647", KF_ENTRY, "192.0.2.1", true,
		   2147483647U, 0);
	check_when("192.0.2.1 timeout 2147483648", KF_BAD_SECONDS, "2147483648",
		   false, 0, 0);
	check_when("192.0.2.1 timeout abc", KF_BAD_SECONDS, "abc", false, 0, 0);
	check_when("192.0.2.1 timeout -5", KF_BAD_SECONDS, "-5", false, 0, 0);
	check_when("192.0.2.1 timeout 1.5", KF_BAD_SECONDS, "1.5", false, 0, 0);
	check_when("192.0.2.1 timeout 99999999999", KF_BAD_SECONDS, "99999999999",
		   false, 0, 0);
	check_when("192.0.2.1 timeout", KF_BAD_SECONDS, "", false, 0, 0);
	check_when("192.0.2.1 expires", KF_BAD_EXPIRES, "", false, 0, 0);
	check_when("192.0.2.1 expires 0", KF_BAD_EXPIRES, "0", false, 0, 0);
	check_when("192.0.2.1 expires -1", KF_BAD_EXPIRES, "-1", false, 0, 0);
	check_when("192.0.2.1 expires 17e8", KF_BAD_EXPIRES, "17e8", false, 0, 0);
	check_when("192.0.2.1 expires 1234567890123456789", KF_BAD_EXPIRES,
		   "1234567890123456789", false, 0, 0);
	check_when("192.0.2.1 timeout 5 expires 1900000000", KF_TWO_TIMES,
		   "expires", false, 0, 0);
	check_when("192.0.2.1 expires 1900000000 timeout 5", KF_TWO_TIMES,
		   "timeout", false, 0, 0);
	check_when("192.0.2.1 timeout 5 6", KF_TRAILING, "6", false, 0, 0);
	check_when("192.0.2.1 timeout 5 timeout 6", KF_TWO_TIMES, "timeout",
		   false, 0, 0);
	check_when("192.0.2.300 timeout 5", KF_BAD_ADDR, "192.0.2.300", false, 0, 0);
	check_when("192.0.2.1 timeouts 5", KF_WORDS, "timeouts", false, 0, 0);
	check_when("tcp 192.0.2.1:1 timeout 5", KF_WORDS, "tcp", false, 0, 0);
	check_when("timeout 5", KF_BAD_KIND, "timeout", false, 0, 0);
	check_when("source feed", KF_SOURCE, "feed", false, 0, 0);
	check_when("  source   f2b-sshd  # jail", KF_SOURCE, "f2b-sshd", false, 0, 0);
	check_when("source default", KF_SOURCE, "default", false, 0, 0);
	check_when("source", KF_BAD_SOURCE, "", false, 0, 0);
	check_when("source -feed", KF_BAD_SOURCE, "-feed", false, 0, 0);
	check_when("source 12345678901234567890123456789012", KF_BAD_SOURCE,
		   "12345678901234567890123456789012", false, 0, 0);
	check_when("source a/b", KF_BAD_SOURCE, "a/b", false, 0, 0);
	check_when("source feed extra", KF_SOURCE_WORDS, "extra", false, 0, 0);
	check_when("add source feed", KF_BAD_KIND, "source", false, 0, 0);
	check_when("Source feed", KF_BAD_KIND, "Source", false, 0, 0);
}

/* The reasons of the new verdicts name the word and what to do. */
static void test_when_reasons(void)
{
	static const struct reason_case cases[] = {
		{ KF_BAD_SECONDS, "abc", "invalid timeout 'abc': expected whole seconds, 0 (permanent) to 2147483647\n" },
		{ KF_BAD_EXPIRES, "x", "invalid expiry time 'x': expected seconds since the epoch (date +%s)\n" },
		{ KF_TWO_TIMES, "expires", "both 'timeout' and 'expires': give one of them\n" },
		{ KF_TRAILING, "6", "unexpected '6' at the end: a line is [add] ENTRY [timeout SECS | expires UNIXTIME]\n" },
		{ KF_BAD_SOURCE, "a/b", "invalid source name 'a/b': expected 1 to 31 characters of A-Z a-z 0-9 _ . : @ -, not starting with '-'\n" },
		{ KF_BAD_SOURCE, "", "'source' without a NAME: expected 1 to 31 characters of A-Z a-z 0-9 _ . : @ -, not starting with '-'\n" },
		{ KF_SOURCE_WORDS, "x", "unexpected 'x' after the source's name: a source line is source NAME\n" },
		{ KF_SOURCES_MAX, "s33", "source 's33': more than 32 sources in one list, as many as a set holds\n" },
		{ KF_OTHER_SOURCE, "f2", "source 'f2': replace -s NAME takes the entries of NAME alone: remove the source lines, or replace the whole filter (without -s)\n" },
		{ KF_TOO_LATE, "99999999999", "expires 99999999999: more than 2147483647 seconds (68 years) from now\n" },
	};

	check_reasons(cases, ARRAY_SIZE(cases));
}

/* Source lines in a list: who holds each entry, and for how long. */
static void test_read_sources(void)
{
	static const char text[] =
		"192.0.2.1\n"				/* 1: -s's */
		"source feed\n"				/* 2 */
		"192.0.2.2 timeout 60\n"		/* 3 */
		"198.51.100.1-198.51.100.2 expires 1900000000\n"	/* 4: 2 keys */
		"source default\n"			/* 5 */
		"192.0.2.3\n"				/* 6 */
		"source feed\n"				/* 7: again */
		"192.0.2.4\n";				/* 8 */
	struct key_list kl = { 0 };
	char *msgs = NULL, big[33 * 32];
	size_t at = 0;
	unsigned int i;
	int err;

	err = read_source_text(text, 0, "ops", &kl, &msgs);
	ok(!err && kl.n == 6 && !kl.bad && !kl.bad_sources && kl.nsources == 3 &&
	   !strcmp(kl.sources[0], "ops") && !strcmp(kl.sources[1], "feed") &&
	   !strcmp(kl.sources[2], "default"),
	   "sources: -s's first, then each named once, in order");
	ok(kl.n == 6 && kl.holds[0].source == 0 && kl.holds[1].source == 1 &&
	   kl.holds[2].source == 1 && kl.holds[3].source == 1 &&
	   kl.holds[4].source == 2 && kl.holds[5].source == 1,
	   "sources: each entry held by the source of the lines above it");
	ok(kl.n == 6 && !kl.holds[0].timed && kl.holds[1].timed &&
	   kl.holds[1].timeout == 60 && !kl.holds[1].expires &&
	   kl.holds[2].expires == 1900000000 && kl.holds[3].expires == 1900000000 &&
	   kl.lines[2] == 4 && kl.lines[3] == 4,
	   "sources: timeouts and expiry times, a range's on each prefix");
	free(msgs);
	key_list_free(&kl);

	err = read_source_text("192.0.2.1\n", 0, NULL, &kl, &msgs);
	ok(!err && kl.nsources == 1 && !strcmp(kl.sources[0], "default"),
	   "sources: without -s the lines go to default");
	free(msgs);
	key_list_free(&kl);

	err = read_source_text("source feed\n192.0.2.1\nsource default\n192.0.2.2\n",
			       KF_ONE_SOURCE, "feed", &kl, &msgs);
	ok(!err && kl.bad_sources == 1 && !kl.bad &&
	   strstr(msgs, "f:3: source 'default': replace -s NAME takes"),
	   "sources: replace -s feed: a source line naming default is refused, FILE:LINE");
	free(msgs);
	key_list_free(&kl);

	err = read_source_text("source default\n192.0.2.1\n", KF_ONE_SOURCE, NULL,
			       &kl, &msgs);
	ok(!err && !kl.bad_sources && kl.n == 1,
	   "sources: replace -s default: source default is that one");
	free(msgs);
	key_list_free(&kl);

	err = read_source_text("192.0.2.1\nsource bad/name\n192.0.2.2\nsource\n"
			       "192.0.2.300\nsource a b\n", 0, NULL, &kl, &msgs);
	ok(!err && kl.bad_sources == 3 && kl.bad == 1 &&
	   strstr(msgs, "f:2: invalid source name 'bad/name'") &&
	   strstr(msgs, "f:4: 'source' without a NAME") &&
	   strstr(msgs, "f:6: unexpected 'b' after the source's name"),
	   "sources: bad source lines counted apart from bad entries, each named");
	free(msgs);
	key_list_free(&kl);

	for (i = 0; i < 33; i++)
		at += snprintf(big + at, sizeof(big) - at,
			       "source s%02u\n192.0.2.%u\n", i, i);
	err = read_source_text(big, 0, NULL, &kl, &msgs);
	ok(!err && kl.bad_sources == 2 && kl.nsources == 32 &&
	   strstr(msgs, "f:63: source 's31': more than 32 sources") &&
	   strstr(msgs, "f:65: source 's32'"),
	   "sources: default and 31 more fill a list; the 33rd is refused");
	free(msgs);
	key_list_free(&kl);
}

/* Many lines: the list grows past its first allocation. */
static void test_read_many(void)
{
	const unsigned int n = 100000;
	struct key_list kl = { 0 };
	char *text = NULL;
	size_t len;
	unsigned int i;
	FILE *f = open_memstream(&text, &len);
	int err, good = 1;

	for (i = 0; i < n; i++)
		fprintf(f, "10.%u.%u.%u\n", i >> 16, (i >> 8) & 255, i & 255);
	fclose(f);
	f = fmemopen(text, len, "r");
	err = keyfile_read(f, "big", 0, NULL, &kl, stderr);
	fclose(f);
	for (i = 0; i < kl.n && good; i++)
		good = kl.keys[i].saddr[3] == (i & 255) && kl.lines[i] == i + 1;
	ok(!err && kl.n == n && !kl.bad && good, "read: 100000 lines");
	free(text);
	key_list_free(&kl);
}

static void test_long_line(void)
{
	size_t n = 10000;
	char *line = malloc(n + 1), *msgs = NULL;
	struct kf_entry key;
	const char *w;
	size_t len;
	FILE *f;

	memset(line, 'x', n);
	line[n] = '\0';
	ok(keyfile_parse_line(line, n, NULL, &key, &w) == KF_BAD_ADDR,
	   "a 10000-byte word: bad address");
	f = open_memstream(&msgs, &len);
	keyfile_explain(f, "f", 9, KF_BAD_ADDR, w);
	fclose(f);
	ok(len < 200 && strstr(msgs, "xxx...'"),
	   "a long word is quoted cut short, with ...");
	free(msgs);
	free(line);
}

/* Runs @fn's JSON writing into a string; returns it (caller frees). */
static char *json_of(void (*fn)(struct json *j))
{
	char *buf = NULL;
	size_t len;
	struct json j;
	FILE *f = open_memstream(&buf, &len);

	json_init(&j, f);
	fn(&j);
	fclose(f);
	return buf;
}

static void doc_empty_object(struct json *j)
{
	json_object_begin(j);
	json_object_end(j);
}

static void doc_nested(struct json *j)
{
	json_object_begin(j);
	json_kv_uint(j, "a", 0);
	json_kv_uint(j, "big", 18446744073709551615ULL);
	json_key(j, "load_percent");
	json_hundredths(j, 1205);
	json_key(j, "entries");
	json_array_begin(j);
	json_object_begin(j);
	json_kv_string(j, "type", "src4");
	json_object_end(j);
	json_array_begin(j);
	json_array_end(j);
	json_uint(j, 7);
	json_array_end(j);
	json_kv_string(j, "z", "");
	json_object_end(j);
}

static void doc_escapes(struct json *j)
{
	json_array_begin(j);
	json_string(j, "q\"b\\s/\b\f\n\r\t\x01\x1f\x7f\xc3\xa9");
	json_array_end(j);
}

static void test_json(void)
{
	char *s;

	s = json_of(doc_empty_object);
	ok(!strcmp(s, "{}\n"), "json: empty object, then a newline");
	free(s);
	s = json_of(doc_nested);
	ok(!strcmp(s, "{\"a\":0,\"big\":18446744073709551615,\"load_percent\":12.05,"
		   "\"entries\":[{\"type\":\"src4\"},[],7],\"z\":\"\"}\n"),
	   "json: nesting, commas, numbers");
	free(s);
	s = json_of(doc_escapes);
	ok(!strcmp(s, "[\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f\xc3\xa9\"]\n"),
	   "json: string escapes; UTF-8 passed through");
	free(s);
}

/* Prefix entries format back as typed: the host-bits rule keeps one form. */
static void test_prefix_entries(void)
{
	static const struct entry_case cases[] = {
		{ "203.0.113.0/24", CFILTER_KEY_SRC4, 24, "203.0.113.0", NULL,
		  0, 0, 0 },
		{ "2001:db8::/32", CFILTER_KEY_SRC6, 32, "2001:db8::", NULL,
		  0, 0, 0 },
		{ "dst 198.51.100.0/24", CFILTER_KEY_DST4, 24, NULL, "198.51.100.0",
		  0, 0, 0 },
		{ "allow ::/0", CFILTER_KEY_ALLOW6, 0, NULL, NULL, 0, 0, 0 },
		{ "0.0.0.0/0", CFILTER_KEY_SRC4, 0, NULL, NULL, 0, 0, 0 },
	};

	check_entries(cases, ARRAY_SIZE(cases));
}

/* What range_split() emitted, as "ADDR/LEN ..." text. */
struct split_out {
	char	text[8192];
	int	n;
	int	af;
	int	stop_after;	/* nonzero: return 7 from the n-th emit */
};

static int split_emit(const uint8_t *addr, unsigned int len, void *arg)
{
	struct split_out *o = arg;
	char a[INET6_ADDRSTRLEN];
	size_t used = strlen(o->text);

	inet_ntop(o->af, addr, a, sizeof(a));
	snprintf(o->text + used, sizeof(o->text) - used, "%s%s/%u",
		 o->n ? " " : "", a, len);
	o->n++;
	return o->stop_after && o->n == o->stop_after ? 7 : 0;
}

static int split(const char *lo, const char *hi, struct split_out *o)
{
	uint8_t l[16], h[16];
	int af = strchr(lo, ':') ? AF_INET6 : AF_INET;

	memset(o->text, 0, sizeof(o->text));
	o->n = 0;
	o->af = af;
	inet_pton(af, lo, l);
	inet_pton(strchr(hi, ':') ? AF_INET6 : AF_INET, hi, h);
	return range_split(l, h, af == AF_INET6 ? 16 : 4, split_emit, o);
}

static void test_range_split(void)
{
	static const struct {
		const char	*lo, *hi;
		const char	*want;
	} cases[] = {
		{ "192.0.2.10", "192.0.2.99",
		  "192.0.2.10/31 192.0.2.12/30 192.0.2.16/28 192.0.2.32/27 192.0.2.64/27 192.0.2.96/30" },
		{ "192.0.2.7", "192.0.2.7", "192.0.2.7/32" },
		{ "192.0.2.0", "192.0.2.255", "192.0.2.0/24" },
		{ "192.0.2.0", "192.0.3.255", "192.0.2.0/23" },
		{ "192.0.2.255", "192.0.3.0", "192.0.2.255/32 192.0.3.0/32" },
		{ "0.0.0.0", "255.255.255.255", "0.0.0.0/0" },
		{ "0.0.0.0", "255.255.255.254",
		  "0.0.0.0/1 128.0.0.0/2 192.0.0.0/3 224.0.0.0/4 240.0.0.0/5 248.0.0.0/6 252.0.0.0/7 254.0.0.0/8 255.0.0.0/9 255.128.0.0/10 255.192.0.0/11 255.224.0.0/12 255.240.0.0/13 255.248.0.0/14 255.252.0.0/15 255.254.0.0/16 255.255.0.0/17 255.255.128.0/18 255.255.192.0/19 255.255.224.0/20 255.255.240.0/21 255.255.248.0/22 255.255.252.0/23 255.255.254.0/24 255.255.255.0/25 255.255.255.128/26 255.255.255.192/27 255.255.255.224/28 255.255.255.240/29 255.255.255.248/30 255.255.255.252/31 255.255.255.254/32" },
		{ "255.255.255.255", "255.255.255.255", "255.255.255.255/32" },
		{ "0.0.0.1", "255.255.255.255", NULL },	/* 32 prefixes: counted below */
		{ "::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "::/0" },
		{ "2001:db8::", "2001:db8::ff", "2001:db8::/120" },
		{ "2001:db8::1", "2001:db8::2", "2001:db8::1/128 2001:db8::2/128" },
		{ "2001:db8::", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", "2001:db8::/32" },
		{ "::ffff:ffff:ffff:ffff", "::1:0:0:0:0", "::ffff:ffff:ffff:ffff/128 0:0:0:1::/128" },
	};
	struct split_out o = { .stop_after = 0 };
	char name[300];
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (!cases[i].want)
			continue;
		ret = split(cases[i].lo, cases[i].hi, &o);
		snprintf(name, sizeof(name), "range %s-%s: %.150s", cases[i].lo,
			 cases[i].hi, cases[i].want);
		ok(!ret && !strcmp(o.text, cases[i].want), name);
		if (ret || strcmp(o.text, cases[i].want))
			printf("# got %s\n", o.text);
	}
	ret = split("0.0.0.1", "255.255.255.255", &o);
	ok(!ret && o.n == 32 && !strncmp(o.text, "0.0.0.1/32 0.0.0.2/31 ", 22) &&
	   strstr(o.text, " 128.0.0.0/1"), "range 0.0.0.1-255.255.255.255: 32 prefixes");
	ret = split("::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe", &o);
	ok(!ret && o.n == 254, "range ::1 to the last but one IPv6: 254 prefixes, the most");
	ok(split("192.0.2.9", "192.0.2.8", &o) == -EINVAL && !o.n,
	   "range lo > hi: -EINVAL, nothing emitted");
	o.stop_after = 2;
	ok(split("192.0.2.1", "192.0.2.9", &o) == 7 && o.n == 2,
	   "range: emit's nonzero return stops the split and is returned");
	o.stop_after = 0;
	{
		uint8_t a[16] = { 0 };

		ok(range_split(a, a, 8, split_emit, &o) == -EINVAL,
		   "range: an address length other than 4 or 16: -EINVAL");
	}
}

/* An address as a number and back, most significant byte first. */
static void test_range_addr_num(void)
{
	static const uint8_t v4[4] = { 192, 0, 2, 1 };
	uint8_t v6[16], back[16];

	ok(range_addr_num(v4, 4) == 0xc0000201, "range_addr_num: 192.0.2.1 is 0xc0000201");
	range_addr_bytes(0xc0000201, back, 4);
	ok(!memcmp(back, v4, 4), "range_addr_bytes: 0xc0000201 is 192.0.2.1");
	memset(v6, 0xff, sizeof(v6));
	ok(range_addr_num(v6, 16) == ~(unsigned __int128)0,
	   "range_addr_num: the last IPv6 address is all ones");
	range_addr_bytes((unsigned __int128)1 << 120 | 2, back, 16);
	ok(back[0] == 1 && back[15] == 2 && !back[1] && !back[14],
	   "range_addr_bytes: IPv6, the top byte first and the low one last");
}

/* Each new reason: exact text, the fix named. */
static void test_prefix_reasons(void)
{
	static const struct reason_case cases[] = {
		{ KF_HOST_BITS, "192.0.2.7/24", "192.0.2.7/24: host bits set (did you mean 192.0.2.0/24?)\n" },
		{ KF_HOST_BITS, "2001:db8::1/32", "2001:db8::1/32: host bits set (did you mean 2001:db8::/32?)\n" },
		{ KF_BAD_LEN, "192.0.2.0/33", "invalid prefix length in '192.0.2.0/33': expected /0 to /32 for IPv4, /0 to /128 for IPv6, without leading zeros\n" },
		{ KF_BAD_RANGE, "192.0.2.9-192.0.2.1", "invalid range '192.0.2.9-192.0.2.1': its first address is above its last\n" },
		{ KF_RANGE_MIXED, "192.0.2.1-::1", "invalid range '192.0.2.1-::1': both ends must be IPv4 or both IPv6\n" },
		{ KF_FLOW_PREFIX, "192.0.2.0/24", "'192.0.2.0/24': a flow names single addresses, not a prefix or range\n" },
	};

	check_reasons(cases, ARRAY_SIZE(cases));
}

/* A compact snapshot: a table of 2 buckets of 16-bit slots and 2 keys. */
static struct snap_buf make_snapshot(void)
{
	struct snap_buf b = { .data = NULL };
	__u16 slots[8] = { 0x1234, 0, 0, 0, 0, 0xbeef, 0, 0 };
	struct cfilter_key keys[2] = {
		{ .type = CFILTER_KEY_SRC4, .prefix_len = 24, .saddr = { 192, 0, 2 } },
		{ .type = CFILTER_KEY_DST6, .prefix_len = 32,
		  .daddr = { 0x20, 0x01, 0x0d, 0xb8 } },
	};

	snap_begin(&b, CFILTER_MODE_COMPACT, 16);
	snap_add_table(&b, CFILTER_KEY_SRC4, CFILTER_TABLE_HASH32,
		       0x0123456789abcdefULL, 2, 2, slots, sizeof(slots));
	snap_add_keys(&b, keys, 2);
	snap_finish(&b);
	return b;
}

/* Rewrites the checksum of @b after a deliberate change to its fields. */
static void resum(struct snap_buf *b)
{
	uint32_t crc = snap_crc32(0, b->data, b->len - 4);

	memcpy(b->data + b->len - 4, &crc, 4);	/* the host is little endian */
}

/*
 * Well summed but inconsistent, as a buggy writer could make it: byte @off
 * of @b set to @val must be refused as corrupted, for a reason containing
 * @want. The byte is put back after.
 */
static void corrupted(struct snap_buf *b, size_t off, uint8_t val,
		      const char *want, const char *name)
{
	uint8_t was = b->data[off];
	struct snap s;
	char why[256];

	b->data[off] = val;
	resum(b);
	ok(snap_parse(b->data, b->len, &s, why, sizeof(why)) == SNAP_BAD_SECTION &&
	   strstr(why, want), name);
	if (!strstr(why, want))
		printf("# got \"%s\"\n", why);
	b->data[off] = was;
	resum(b);
}

static void test_snapshot(void)
{
	struct snap_buf b = make_snapshot();
	struct snap s;
	char why[256];
	enum snap_err err;

	ok(snap_crc32(0, (const uint8_t *)"123456789", 9) == 0xCBF43926,
	   "snapshot: CRC-32 of \"123456789\" is the standard check value");
	ok(!b.err && b.len == 32 + 40 + 16 + 40 + 80 + 4,
	   "snapshot: header, two sections and the CRC: 212 bytes");
	err = snap_parse(b.data, b.len, &s, why, sizeof(why));
	ok(err == SNAP_OK && s.version == 4 && s.mode == CFILTER_MODE_COMPACT &&
	   s.fp_bits == 16 && s.nsect == 2, "snapshot: parses back");
	ok(err == SNAP_OK && s.sect[0].kind == SNAP_TABLE &&
	   s.sect[0].type == CFILTER_KEY_SRC4 &&
	   s.sect[0].flags == CFILTER_TABLE_HASH32 && b.data[32 + 6] == 1 &&
	   s.sect[0].seed == 0x0123456789abcdefULL && s.sect[0].buckets == 2 &&
	   s.sect[0].count == 2 && s.sect[0].length == 16 &&
	   s.sect[0].data[0] == 0x34 && s.sect[0].data[10] == 0xef,
	   "snapshot: the table section, fields and slots");
	ok(err == SNAP_OK && s.sect[1].kind == SNAP_KEYS && s.sect[1].count == 2 &&
	   s.sect[1].data[40] == CFILTER_KEY_DST6, "snapshot: the key section");
	ok(!memcmp(b.data, "\x89" "CFSNAP\n\x04\0\0\0\x01\0\0\0\x10\0\0\0\x02\0\0\0\xd4\0\0\0\0\0\0\0", 32),
	   "snapshot: header bytes, little endian");
	ok(!snap_check_module(&s, CFILTER_MODE_COMPACT, 16, why, sizeof(why)),
	   "snapshot: restorable into a compact module with 16-bit fingerprints");
	ok(snap_check_module(&s, CFILTER_MODE_COMPACT, 8, why, sizeof(why)) &&
	   !strcmp(why, "the snapshot's fingerprints have 16 bits and the module's 8: reload cfilter with fp_bits=16"),
	   "snapshot: other fp_bits: names fp_bits=16");
	ok(snap_check_module(&s, CFILTER_MODE_EXACT, 16, why, sizeof(why)) &&
	   !strcmp(why, "the snapshot is of a filter in compact mode and the module is in exact mode: reload cfilter with mode=compact"),
	   "snapshot: other mode: names mode=compact");

	err = snap_parse(b.data, b.len - 1, &s, why, sizeof(why));
	ok(err == SNAP_TRUNCATED && !strcmp(why, "truncated: 211 of 212 bytes"),
	   "snapshot: one byte short: truncated");
	err = snap_parse(b.data, 20, &s, why, sizeof(why));
	ok(err == SNAP_TRUNCATED, "snapshot: cut inside the header: truncated");
	err = snap_parse(b.data, 5, &s, why, sizeof(why));
	ok(err == SNAP_TRUNCATED, "snapshot: cut inside the magic: truncated");
	err = snap_parse(b.data, 0, &s, why, sizeof(why));
	ok(err == SNAP_BAD_MAGIC && !strcmp(why, "not a cfilter snapshot"),
	   "snapshot: empty file: not a cfilter snapshot");
	err = snap_parse((const uint8_t *)"192.0.2.1\n", 10, &s, why, sizeof(why));
	ok(err == SNAP_BAD_MAGIC, "snapshot: a text list: not a cfilter snapshot");

	b.data[100] ^= 0x10;
	err = snap_parse(b.data, b.len, &s, why, sizeof(why));
	ok(err == SNAP_CHECKSUM && !strcmp(why, "corrupted: checksum mismatch"),
	   "snapshot: a flipped bit in the table: checksum mismatch");
	b.data[100] ^= 0x10;
	b.data[b.len - 1] ^= 1;
	err = snap_parse(b.data, b.len, &s, why, sizeof(why));
	ok(err == SNAP_CHECKSUM, "snapshot: a flipped bit in the CRC: checksum mismatch");
	b.data[b.len - 1] ^= 1;

	b.data[0] = 'X';
	err = snap_parse(b.data, b.len, &s, why, sizeof(why));
	ok(err == SNAP_BAD_MAGIC, "snapshot: wrong magic: not a cfilter snapshot");
	b.data[0] = 0x89;

	b.data[8] = 5;
	err = snap_parse(b.data, b.len, &s, why, sizeof(why));
	ok(err == SNAP_BAD_VERSION &&
	   strstr(why, "snapshot format version 5: this cfctl reads versions 1 to 4"),
	   "snapshot: version 5: refused, named");
	b.data[8] = 3;
	resum(&b);
	ok(snap_parse(b.data, b.len, &s, why, sizeof(why)) == SNAP_OK &&
	   s.version == 3 && s.sect[0].flags == CFILTER_TABLE_HASH32,
	   "snapshot: version 3, from before holdings' ages: read, with flags");
	b.data[8] = 0;
	err = snap_parse(b.data, b.len, &s, why, sizeof(why));
	ok(err == SNAP_BAD_VERSION, "snapshot: version 0: refused");
	b.data[8] = 1;
	resum(&b);
	ok(snap_parse(b.data, b.len, &s, why, sizeof(why)) == SNAP_BAD_SECTION &&
	   strstr(why, "section 1: table flags 0x1 this cfctl does not know"),
	   "snapshot: version 1 with table flags: refused (its type had 32 bits)");
	b.data[8] = 2;
	resum(&b);
	ok(snap_parse(b.data, b.len, &s, why, sizeof(why)) == SNAP_BAD_SECTION,
	   "snapshot: version 2 with table flags: refused");
	b.data[32 + 6] = 0;
	resum(&b);
	ok(snap_parse(b.data, b.len, &s, why, sizeof(why)) == SNAP_OK &&
	   s.version == 2 && !s.sect[0].flags,
	   "snapshot: version 2, from before table flags: read, the general hash");
	b.data[8] = 1;
	resum(&b);
	ok(snap_parse(b.data, b.len, &s, why, sizeof(why)) == SNAP_OK &&
	   s.version == 1, "snapshot: version 1, from before sources: still read");
	b.data[8] = 4;
	b.data[32 + 6] = 1;
	resum(&b);

	/* Well summed but inconsistent: what a buggy writer could make. */
	b.data[32 + 16] = 3;	/* 3 buckets */
	resum(&b);
	err = snap_parse(b.data, b.len, &s, why, sizeof(why));
	ok(err == SNAP_BAD_SECTION && !strncmp(why, "corrupted: section 1: a table", 29),
	   "snapshot: a bucket count not a power of two: corrupted, section named");
	{
		char small[8];

		err = snap_parse(b.data, b.len, &s, small, sizeof(small));
		ok(err == SNAP_BAD_SECTION && !strcmp(small, "corrupt"),
		   "snapshot: a message room shorter than \"corrupted: \": cut, not overrun");
		err = snap_parse(b.data, b.len, &s, NULL, 0);
		ok(err == SNAP_BAD_SECTION,
		   "snapshot: no message room at all: still the error");
	}
	b.data[32 + 16] = 2;
	resum(&b);
	corrupted(&b, 32 + 4, 9, "unknown key type 9",
		  "snapshot: a table of an unknown key type: corrupted");
	corrupted(&b, 32 + 6, 4, "section 1: table flags 0x4 this cfctl does not know",
		  "snapshot: a table flag this cfctl does not know: corrupted");
	corrupted(&b, 32 + 6, 3, "section 1: table flags 0x3 this cfctl does not know",
		  "snapshot: both hashes' flags on one table: corrupted");
	b.data[32 + 6] = CFILTER_TABLE_MIX32;
	resum(&b);
	ok(snap_parse(b.data, b.len, &s, why, sizeof(why)) == SNAP_OK &&
	   s.sect[0].flags == CFILTER_TABLE_MIX32,
	   "snapshot: a table of the mixed hash: read, with its flag");
	b.data[32 + 6] = CFILTER_TABLE_HASH32;
	resum(&b);
	corrupted(&b, 32 + 40 + 16 + 6, 1, "section 2: a key list",
		  "snapshot: flags on a key list: corrupted");
	corrupted(&b, 32 + 40 + 16 + 40, 0,	/* first key: type NONE */
		  "section 2: key 1 of unknown type 0",
		  "snapshot: a key of type 0: corrupted");
	corrupted(&b, 12, CFILTER_MODE_EXACT, "a raw table, but",
		  "snapshot: a raw table in an exact-mode snapshot: corrupted");
	corrupted(&b, 20, 3,	/* one section more than there is */
		  "section 3: past the end",
		  "snapshot: more sections than bytes: corrupted");
	ok(snap_parse(b.data, b.len, &s, why, sizeof(why)) == SNAP_OK,
	   "snapshot: every change undone: parses again");
	free(b.data);

	b = (struct snap_buf){ .data = NULL };
	snap_begin(&b, CFILTER_MODE_EXACT, 12);
	snap_add_keys(&b, NULL, 0);
	snap_finish(&b);
	ok(snap_parse(b.data, b.len, &s, why, sizeof(why)) == SNAP_OK &&
	   s.nsect == 1 && !s.sect[0].count &&
	   !snap_check_module(&s, CFILTER_MODE_EXACT, 16, why, sizeof(why)),
	   "snapshot: an empty exact one restores into any fp_bits");
	ok(!snap_check_module(&s, CFILTER_MODE_COMPACT, 8, why, sizeof(why)),
	   "snapshot: an exact one restores into a compact module (keys added)");
	free(b.data);
}

/* Holdings of @source: @n keys 10.0.0.i, every other one timed. */
static void add_holds(struct snap_buf *b, const char *source, size_t n,
		      int64_t now)
{
	struct cfilter_entry e[4];
	size_t i;

	memset(e, 0, sizeof(e));
	for (i = 0; i < n; i++) {
		e[i].key.type = CFILTER_KEY_SRC4;
		e[i].key.prefix_len = 32;
		e[i].key.saddr[0] = 10;
		e[i].key.saddr[3] = i;
		e[i].timeout = i % 2 ? 100 * i : 0;
		/* ages 0, 60, 120; the last not recorded */
		e[i].age = i == 3 ? CFILTER_AGE_UNKNOWN : 60 * i;
		snprintf(e[i].source, sizeof(e[i].source), "%s", source);
	}
	snap_add_holds(b, source, e, n, now);
}

/*
 * Rewrites the exact snapshot @b (one section, holdings of 56 bytes) as
 * version 3 wrote it: 48 bytes a holding, no age.
 */
static void as_version_3(struct snap_buf *b)
{
	uint64_t n = b->data[32 + 24], i;
	uint8_t *h = b->data + 32 + 40 + 32;

	for (i = 0; i < n; i++)
		memmove(h + i * 48, h + i * 56, 48);
	b->data[8] = 3;
	b->len = 32 + 40 + 32 + n * 48 + 4;
	for (i = 0; i < 8; i++) {
		b->data[32 + 32 + i] = (32 + n * 48) >> 8 * i;
		b->data[24 + i] = (uint64_t)b->len >> 8 * i;
	}
	resum(b);
}

/* An exact snapshot (version 2 on): a section of holdings per source. */
static void test_holds(void)
{
	/* The second source's name: after the header and the first section. */
	const size_t name = 32 + 40 + 32 + 2 * 56 + 40;
	struct snap_buf b = { .data = NULL };
	struct snap_hold h;
	struct snap s;
	char why[256];
	size_t len;

	snap_begin(&b, CFILTER_MODE_EXACT, 16);
	add_holds(&b, "default", 2, 1800000000);
	add_holds(&b, "f2b-sshd", 4, 1800000000);
	snap_finish(&b);
	len = 32 + 40 + 32 + 2 * 56 + 40 + 32 + 4 * 56 + 4;
	ok(!b.err && b.len == len, "holds: header, two sections of 32 + 56 bytes per key, CRC");
	ok(snap_parse(b.data, b.len, &s, why, sizeof(why)) == SNAP_OK &&
	   s.nsect == 2 && s.sect[0].kind == SNAP_HOLDS && s.sect[0].count == 2 &&
	   s.sect[1].count == 4 && !strcmp(snap_holds_source(&s.sect[0]), "default") &&
	   !strcmp(snap_holds_source(&s.sect[1]), "f2b-sshd"),
	   "holds: parse back, a source per section");
	snap_hold(&s.sect[1], 3, &h);
	ok(h.key.type == CFILTER_KEY_SRC4 && h.key.saddr[3] == 3 &&
	   h.deadline == 1800000000 + 300, "holds: a timed one: its deadline");
	ok(!h.added, "holds: one of unknown age: added 0");
	snap_hold(&s.sect[1], 2, &h);
	ok(h.key.saddr[3] == 2 && !h.deadline, "holds: a permanent one: deadline 0");
	ok(h.added == 1800000000 - 120, "holds: added when listed less its age");
	/* The second key of the first section: deadline 1800000100. */
	ok(!memcmp(b.data + 32 + 40 + 32 + 56 + 40, "\x64\xd2\x49\x6b\0\0\0\0", 8),
	   "holds: a deadline's bytes, little endian");
	/* ... added 1799999940. */
	ok(!memcmp(b.data + 32 + 40 + 32 + 56 + 48, "\xc4\xd1\x49\x6b\0\0\0\0", 8),
	   "holds: an added time's bytes, little endian");

	corrupted(&b, name, '-', "section 2: a source name that is not one",
		  "holds: a source name starting with '-': corrupted");
	corrupted(&b, name + 9, 'x', "a source name that is not one",
		  "holds: bytes after the name's NUL: corrupted");
	memcpy(b.data + name, "default\0", 8);
	resum(&b);
	ok(snap_parse(b.data, b.len, &s, why, sizeof(why)) == SNAP_BAD_SECTION &&
	   strstr(why, "section 2: source default a second time"),
	   "holds: one source twice: corrupted");
	memcpy(b.data + name, "f2b-sshd", 8);
	resum(&b);
	corrupted(&b, 32 + 40 + 32, 0,	/* the first key: type NONE */
		  "section 1: key 1 of unknown type 0",
		  "holds: a key of type 0: corrupted");
	corrupted(&b, 32 + 24, 3,	/* count 3 in 2 keys' bytes */
		  "section 1: holdings of 144 bytes for 3 keys",
		  "holds: a count the length does not hold: corrupted");
	corrupted(&b, 12, CFILTER_MODE_COMPACT, "or not in an exact-mode snapshot",
		  "holds: in a compact-mode snapshot: corrupted");
	corrupted(&b, 8, 1, "section 1: unknown kind 3",
		  "holds: in a version 1 snapshot: unknown kind");
	ok(snap_parse(b.data, b.len, &s, why, sizeof(why)) == SNAP_OK,
	   "holds: every change undone: parses again");
	free(b.data);

	b = (struct snap_buf){ .data = NULL };
	snap_begin(&b, CFILTER_MODE_EXACT, 16);
	snap_finish(&b);
	ok(snap_parse(b.data, b.len, &s, why, sizeof(why)) == SNAP_OK && !s.nsect,
	   "holds: an empty exact filter: no section");
	free(b.data);

	b = (struct snap_buf){ .data = NULL };
	snap_begin(&b, CFILTER_MODE_EXACT, 16);
	add_holds(&b, "f2b-sshd", 4, 1800000000);
	snap_finish(&b);
	as_version_3(&b);
	ok(snap_parse(b.data, b.len, &s, why, sizeof(why)) == SNAP_OK &&
	   s.version == 3 && s.sect[0].count == 4,
	   "holds: version 3, 48 bytes a holding: read");
	snap_hold(&s.sect[0], 3, &h);
	ok(h.key.saddr[3] == 3 && h.deadline == 1800000000 + 300 && !h.added,
	   "holds: version 3: key and deadline, added not known");
	b.data[8] = 4;
	resum(&b);
	ok(snap_parse(b.data, b.len, &s, why, sizeof(why)) == SNAP_BAD_SECTION &&
	   strstr(why, "holdings of 224 bytes for 4 keys"),
	   "holds: 48-byte holdings in a version 4 snapshot: corrupted");
	free(b.data);
}

/* What decision_parse() makes of @text: 0 or -1, and why. */
static int decide(const char *text, struct decision *d, const char **why)
{
	*why = "";
	return decision_parse(text, strlen(text), d, why);
}

/* Is @text refused, for the reason @want? */
static void refused(const char *text, const char *want, const char *name)
{
	struct decision d;
	const char *why;

	ok(decide(text, &d, &why) == -1 && !strcmp(why, want), name);
	if (strcmp(why, want))
		printf("# got \"%s\"\n", why);
}

static void test_decisions(void)
{
	struct decision d;
	const char *why;
	long long s;

	/* As crowdsec-custom-bouncer 0.0.15 writes them. */
	ok(!decide("{\"duration\":\"3h59m58.93s\",\"id\":7,\"origin\":\"cscli\","
		   "\"scenario\":\"manual 'ban' from 'x'\",\"scope\":\"Ip\","
		   "\"type\":\"ban\",\"value\":\"192.0.2.9\",\"action\":\"add\"}",
		   &d, &why) &&
	   d.action == DECISION_ADD && !strcmp(d.value, "192.0.2.9") &&
	   !strcmp(d.scope, "Ip") && !strcmp(d.type, "ban") &&
	   !d.simulated && d.seconds == 14399,
	   "decision: a bouncer's add line, duration rounded up");
	ok(!decide(" { \"action\" : \"del\" , \"value\":\"2001:db8::/48\","
		   "\"scope\":\"Range\",\"type\":\"ban\",\"duration\":\"-2.5s\","
		   "\"simulated\":true,\"uuid\":null,\"meta\":{\"a\":[1,2.5e3,{}]}} ",
		   &d, &why) &&
	   d.action == DECISION_DEL && !strcmp(d.value, "2001:db8::/48") &&
	   d.simulated && d.seconds == -3,
	   "decision: a del, expired, with members of every kind skipped");
	ok(!decide("{\"action\":\"del\",\"value\":\"192.0.2.9\",\"scope\":\"Ip\","
		   "\"type\":\"ban\"}", &d, &why) && d.seconds == 0,
	   "decision: a del needs no duration");
	ok(!decide("{\"action\":\"add\",\"value\":\"\\u0031\\u0039\\u0032.0.2.1\","
		   "\"scope\":\"Ip\",\"type\":\"ban\",\"duration\":\"1s\"}", &d, &why) &&
	   !strcmp(d.value, "192.0.2.1"), "decision: \\u escapes are read");

	refused("", "not a JSON object", "decision: an empty line: refused");
	refused("192.0.2.1", "not a JSON object", "decision: a bare address: refused");
	refused("{\"action\":\"add\"", "the object is not closed",
		"decision: cut short: refused");
	refused("{\"action\":\"add\"} x", "text after the object",
		"decision: text after the object: refused");
	refused("{\"value\":\"192.0.2.1\",\"scope\":\"Ip\",\"type\":\"ban\"}",
		"no \"action\"", "decision: no action: refused");
	refused("{\"action\":\"block\",\"value\":\"192.0.2.1\",\"scope\":\"Ip\","
		"\"type\":\"ban\",\"duration\":\"1s\"}",
		"\"action\" is neither add nor del", "decision: unknown action: refused");
	refused("{\"action\":\"add\",\"value\":\"192.0.2.1\",\"type\":\"ban\","
		"\"duration\":\"1s\"}",
		"a decision needs \"value\", \"scope\" and \"type\"",
		"decision: no scope: refused");
	refused("{\"action\":\"add\",\"value\":\"192.0.2.1\",\"scope\":\"Ip\","
		"\"type\":\"ban\"}", "an add without \"duration\"",
		"decision: an add without duration: refused");
	refused("{\"action\":\"add\",\"value\":\"192.0.2.1\",\"scope\":\"Ip\","
		"\"type\":\"ban\",\"duration\":\"4 hours\"}",
		"\"duration\" is not a duration such as 3h59m58.5s",
		"decision: a duration in words: refused");
	refused("{\"action\":\"add\",\"value\":7,\"scope\":\"Ip\",\"type\":\"ban\","
		"\"duration\":\"1s\"}",
		"action, value, scope, type or duration is not a string",
		"decision: a number for value: refused");
	refused("{\"action\":\"add\",\"value\":\"1111:2222:3333:4444:5555:6666:7777:8888/128xxxxxxxxxxxxxxxxxxxxxx\","
		"\"scope\":\"Ip\",\"type\":\"ban\",\"duration\":\"1s\"}",
		"\"value\" is too long", "decision: a value of 64 characters: refused");
	refused("{\"action\":\"add\",\"x\":[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]}",
		"nested too deep", "decision: nesting past 16: refused, not recursed");
	refused("{\"action\":\"add\",\"value\":\"192.0.2.1\\u0000junk\"}",
		"a NUL inside a string",
		"decision: a NUL cannot cut a value short: refused");
	refused("{\"action\":\"add\",\"x\":\"a\tb\"}",
		"a control character inside a string",
		"decision: a raw tab in a string: refused");
	refused("{\"action\":\"add\",\"x\":01.}",
		"a number without digits after its point",
		"decision: a number cut after its point: refused");
	refused("{\"action\":\"add\",\"simulated\":\"yes\"}",
		"\"simulated\" is not true or false",
		"decision: simulated as a string: refused");

	ok(!decision_duration("4h", &s) && s == 14400, "duration: 4h");
	ok(!decision_duration("1h2m3s", &s) && s == 3723, "duration: 1h2m3s");
	ok(!decision_duration("1.5s", &s) && s == 2, "duration: 1.5s rounds up to 2");
	ok(!decision_duration("150ms", &s) && s == 1, "duration: 150ms rounds up to 1");
	ok(!decision_duration("-1.5s", &s) && s == -2, "duration: -1.5s is -2");
	ok(!decision_duration("0", &s) && s == 0, "duration: 0");
	ok(!decision_duration(".5m", &s) && s == 30, "duration: .5m");
	ok(!decision_duration("1\xc2\xb5s", &s) && s == 1, "duration: 1 microsecond (U+00B5)");
	ok(!decision_duration("2562047h47m16.854775807s", &s) && s == 9223372037,
	   "duration: Go's largest");
	ok(decision_duration("2562048h", &s) == -1, "duration: past Go's largest: refused");
	ok(decision_duration("99999999999999999999999h", &s) == -1,
	   "duration: digits past 2^128: refused");
	ok(decision_duration("5", &s) == -1, "duration: no unit: refused");
	ok(decision_duration("5d", &s) == -1, "duration: days: refused, as in Go");
	ok(decision_duration("", &s) == -1, "duration: empty: refused");
	ok(decision_duration("-", &s) == -1, "duration: a sign alone: refused");
	ok(decision_duration(".s", &s) == -1, "duration: a point alone: refused");
}

/* Is the --types list @list refused, for the reason @want? */
static void types_refused(const char *list, const char *want, const char *name)
{
	struct decision_types t;
	const char *why = "";

	ok(decision_types_parse(list, &t, &why) == -1 && !strcmp(why, want),
	   name);
	if (strcmp(why, want))
		printf("# got \"%s\"\n", why);
}

static void test_decision_types(void)
{
	struct decision_types t;
	const char *why;

	ok(!decision_types_parse("ban", &t, &why) && t.n == 1 &&
	   decision_type_index(&t, "ban") == 0 &&
	   decision_type_index(&t, "Ban") == 0 &&
	   decision_type_index(&t, "captcha") == -1,
	   "types: ban alone; found without regard to case; captcha is not");
	ok(!decision_types_parse("ban,captcha,throttle,my-type_2", &t, &why) &&
	   t.n == 4 && decision_type_index(&t, "throttle") == 2 &&
	   decision_type_index(&t, "my-type_2") == 3,
	   "types: four, each at its place");
	types_refused("", "an empty type: name them separated by commas, such as ban,captcha",
		      "types: an empty list: refused");
	types_refused("ban,", "an empty type: name them separated by commas, such as ban,captcha",
		      "types: a trailing comma: refused");
	types_refused("ban captcha", "a type has a character other than A-Z a-z 0-9 _ -",
		      "types: a space: refused");
	types_refused("a,b,c,d,e", "more than 4 types", "types: five: refused");
	types_refused("ban,BAN", "a type named twice", "types: one twice: refused");
	types_refused("abcdefghijklmnop", "a type of more than 15 characters",
		      "types: 16 characters: refused");
}

/* The IPv4 source key 10.0.0.0/32 plus @i. */
static struct cfilter_key table_key(unsigned int i)
{
	struct cfilter_key key = { .type = CFILTER_KEY_SRC4, .prefix_len = 32 };

	key.saddr[0] = 10;
	key.saddr[1] = i >> 16;
	key.saddr[2] = i >> 8;
	key.saddr[3] = i;
	return key;
}

/* Does @t hold exactly the keys of [@lo, @hi), each once, and @t->n them? */
static int table_holds(const struct decision_table *t, unsigned int lo,
		       unsigned int hi)
{
	struct cfilter_key key;
	size_t i, used = 0;
	unsigned int k;

	for (i = 0; i < t->cap; i++)
		used += t->slots[i].used;
	if (used != t->n || t->n != hi - lo)
		return 0;
	for (k = lo; k < hi; k++) {
		key = table_key(k);
		if (!dt_find(t, &key))
			return 0;
	}
	return 1;
}

static void test_decision_table(void)
{
	struct decision_table t;
	struct cfilter_key key;
	struct dt_entry *e;
	unsigned int i;
	int ok_all = 1;

	dt_init(&t, 5000);
	key = table_key(1);
	ok(!dt_find(&t, &key), "table: empty, nothing found");
	for (i = 0; i < 3000 && ok_all; i++) {
		key = table_key(i);
		e = dt_get(&t, &key, 100);
		ok_all = e && !memcmp(&e->key, &key, sizeof(key)) && !e->gone &&
			 !dt_until(e);
		if (e)
			e->until[i % 2] = 200 + i;
	}
	ok(ok_all && table_holds(&t, 0, 3000) && t.n * 4 <= t.cap * 3,
	   "table: 3000 keys, grown past its first 64 slots, at most 3/4 full");
	key = table_key(7);
	e = dt_get(&t, &key, 100);
	ok(e && e->until[1] == 207 && dt_until(e) == 207 && t.n == 3000,
	   "table: a key got again is the one there, with its decisions");
	e->until[0] = 150;
	ok(dt_until(e) == 207, "table: a key ends with its last decision");
	for (i = 0; i < 3000; i += 2) {
		key = table_key(i);
		dt_drop(&t, dt_find(&t, &key));
	}
	ok_all = t.n == 1500;
	for (i = 0; i < 3000; i++) {
		key = table_key(i);
		ok_all &= !dt_find(&t, &key) == !(i % 2);
	}
	ok(ok_all, "table: every other key dropped, the rest all found");
	/* Odd keys end at 200 + i: at 1200, those of i < 1000 have ended. */
	key = table_key(1001);
	dt_find(&t, &key)->gone = true;
	key = table_key(2001);
	dt_find(&t, &key)->until[1] = 0;
	dt_sweep(&t, 1200);
	ok_all = t.n == 998;
	for (i = 1; i < 3000; i += 2) {
		key = table_key(i);
		ok_all &= !dt_find(&t, &key) == (i < 1000 || i == 1001 || i == 2001);
	}
	ok(ok_all, "table: a sweep forgets the ended and the deleted, keeps the rest");
	dt_free(&t);

	dt_init(&t, 10);
	for (i = 0; i < 10; i++) {
		key = table_key(i);
		dt_get(&t, &key, 0)->until[0] = i < 5 ? 50 : 500;
	}
	key = table_key(10);
	ok(!dt_get(&t, &key, 10) && t.n == 10,
	   "table: full at its bound, nothing ended: refused");
	e = dt_get(&t, &key, 100);
	ok(e && t.n == 6 && table_holds(&t, 5, 11),
	   "table: full at its bound, the ended ones make room");
	dt_free(&t);
}

/* Widens the entry @text to @len bits; true if it reads back as @want. */
static int widens_to(const char *text, unsigned int len, const char *want)
{
	char word[64], buf[ENTRY_STRLEN];
	struct cfilter_key k;

	if (parse(text, &k, word, sizeof(word)) != KF_ENTRY)
		return 0;
	key_widen(&k, len);
	return !strcmp(key_addr_format(&k, buf, sizeof(buf)), want);
}

/* test's walk: an address key widened to each prefix that may cover it. */
static void test_widen(void)
{
	ok(widens_to("198.19.3.3", 15, "198.18.0.0/15"),
	   "widen: 198.19.3.3 to /15 is 198.18.0.0/15");
	ok(widens_to("198.19.3.3", 32, "198.19.3.3"),
	   "widen: to the full length, the address itself, without /32");
	ok(widens_to("255.255.255.255", 0, "0.0.0.0/0"),
	   "widen: to /0, every bit cleared");
	ok(widens_to("198.19.3.0/24", 23, "198.19.2.0/23"),
	   "widen: a prefix to a shorter one");
	ok(widens_to("2001:db8:ffff::1", 33, "2001:db8:8000::/33"),
	   "widen: IPv6, a length that is no multiple of 8");
	ok(widens_to("dst 2001:db8::1", 127, "2001:db8::/127"),
	   "widen: a destination key's address, without its kind");
	ok(widens_to("allow 192.0.2.1", 31, "192.0.2.0/31"),
	   "widen: an allow key");
}

/* The module's rules (kmod/source.c, kmod/source_list.c), in ns. */
#define NS	1000000000LL

static int64_t module_deadline(int64_t now, int64_t timeout)
{
	return (now + timeout * NS + NS - 1) / NS;
}

static int64_t module_left(int64_t deadline, int64_t now)
{
	return deadline * NS > now + NS ? (deadline * NS - now) / NS : 1;
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

/* A number in [@lo, @hi], from xorshift64*. */
static int64_t rnd(int64_t lo, int64_t hi)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return lo + (int64_t)((rnd_state * 0x2545f4914f6cdd1dULL) %
			      (uint64_t)(hi - lo + 1));
}

/* Two clocks @boot apart, the wall clock @off ahead of boot time. */
static struct clocks at(int64_t boot, int64_t off)
{
	return (struct clocks){ .boot = boot, .real = boot + off };
}

/*
 * A holding saved (cfctl save) and loaded (load) again, within a boot and
 * across one, at random moments and random phases between the clocks.
 */
static void test_deadlines(void)
{
	int save_exact = 1, save_late = 1, load_in = 1, load_again = 1;
	int64_t b, off, t, dl, n, d, t2, b2, off2, dl2, wall, after;
	struct clocks c;
	int i;

	for (i = 0; i < 200000; i++) {
		b = rnd(NS, 1000000 * NS);
		off = rnd(1000000000 * NS, 2000000000 * NS);
		t = rnd(2, 10000000);
		dl = module_deadline(b, t);
		/* Listed, then saved, before its last second. */
		n = rnd(b, dl * NS - 2 * NS);
		c = at(n, off);
		d = deadline_of(&c, n, module_left(dl, n));
		if (d != (dl * NS + off) / NS)
			save_exact = 0;
		/* The clocks read up to a millisecond after the listing. */
		after = n + rnd(0, 1000000);
		c = at(after, off);
		d = deadline_of(&c, after, module_left(dl, n));
		if (d < (dl * NS + off) / NS || d > (dl * NS + off) / NS + 1)
			save_late = 0;
		d = (dl * NS + off) / NS;

		/* Loaded in another boot, at another phase. */
		b2 = rnd(NS, 1000000 * NS);
		off2 = rnd(1000000000 * NS, 2000000000 * NS);
		if (d * NS <= b2 + off2)
			off2 = d * NS - b2 - rnd(1, 10000000 * NS);
		c = at(b2, off2);
		t2 = timeout_until(&c, d);
		dl2 = module_deadline(b2, t2);
		wall = dl2 * NS + off2;
		if (t2 < 1 || wall < d * NS ||
		    wall >= (d + (t2 == 1 ? 2 : 1)) * NS)
			load_in = 0;
		/* And saved there again, before its last second. */
		if (t2 > 2) {
			n = rnd(b2, dl2 * NS - 2 * NS);
			c = at(n, off2);
			if (deadline_of(&c, n, module_left(dl2, n)) != d)
				load_again = 0;
		}
	}
	ok(save_exact, "save: the second of the epoch the module's deadline is in");
	ok(save_late, "save: clocks read after the listing: never early, at most a second late");
	ok(load_in, "load: the module ends it within the file's second (its first, timeout 1: the next)");
	ok(load_again, "load, then save: the same deadline");

	c = at(5 * NS + 300, 1000 * NS);
	ok(timeout_until(&c, 1005) == 0 && timeout_until(&c, 1004) == 0,
	   "load: a deadline whose second has begun: expired");
	ok(timeout_until(&c, 1006) == 1,
	   "load: a deadline in the next second: timeout 1");
	ok(timeout_until(&c, 999999999999999999LL) > CFILTER_TIMEOUT_MAX,
	   "load: a deadline too far for any timeout says so, without overflow");
	ok(secs_left(module_deadline(5 * NS, 10), 5 * NS + 1) == 9 &&
	   secs_left(module_deadline(5 * NS, 10), 14 * NS + 1) == 1 &&
	   secs_left(module_deadline(5 * NS, 10), 20 * NS) == 1,
	   "secs_left: whole seconds left, rounded down, at least 1, as LIST");
}

int main(void)
{
	printf("TAP version 13\n");
	test_lines();
	test_entries();
	test_reasons();
	test_nul();
	test_read();
	test_read_many();
	test_ipset();
	test_ipset_netmask();
	test_mapped();
	test_normalize();
	test_long_line();
	test_json();
	test_prefix_entries();
	test_widen();
	test_range_split();
	test_range_addr_num();
	test_prefix_reasons();
	test_snapshot();
	test_decisions();
	test_decision_types();
	test_decision_table();
	test_source_rules();
	test_epochs();
	test_long_timeouts();
	test_when_lines();
	test_when_reasons();
	test_read_sources();
	test_holds();
	test_deadlines();
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
