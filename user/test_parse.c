// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of what cfctl does without the module: the entry parser of
 * add, del, test and `load` and the JSON writer of -j. Run by `make -C user check`, under
 * valgrind when it is installed. Prints TAP; exits 1 if a case failed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "cfctl.h"
#include "json.h"
#include "keyfile.h"

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

	what = keyfile_parse_line(line, strlen(line), key, &w);
	snprintf(word, len, "%s", w);
	free(line);
	return what;
}

static int is_key4(const struct cfilter_key *key, const char *addr)
{
	struct cfilter_key want = { .type = CFILTER_KEY_SRC4, .prefix_len = 32 };

	inet_pton(AF_INET, addr, want.saddr);
	return !memcmp(key, &want, sizeof(want));
}

static int is_key6(const struct cfilter_key *key, const char *addr)
{
	struct cfilter_key want = { .type = CFILTER_KEY_SRC6, .prefix_len = 128 };

	inet_pton(AF_INET6, addr, want.saddr);
	return !memcmp(key, &want, sizeof(want));
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
		{ "dst 192.0.2.0/24", KF_PREFIX, "192.0.2.0/24" },
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
		{ "192.0.2.0/24", KF_PREFIX, "192.0.2.0/24" },
		{ "add 2001:db8::/32", KF_PREFIX, "2001:db8::/32" },
		{ "192.0.2.0/33", KF_BAD_ADDR, "192.0.2.0/33" },
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

/* Parses @text; is the key @want and does it format back to @text? */
static void check_entry(const char *text, const struct cfilter_key *want)
{
	char word[128], back[ENTRY_STRLEN], name[200];
	struct cfilter_key key;
	enum kf_line what;

	what = parse(text, &key, word, sizeof(word));
	entry_format(&key, back, sizeof(back));
	snprintf(name, sizeof(name), "entry '%s': key, and formats back", text);
	ok(what == KF_ENTRY && !memcmp(&key, want, sizeof(key)) &&
	   !strcmp(back, text), name);
}

static void test_entries(void)
{
	struct cfilter_key k;

	memset(&k, 0, sizeof(k));
	k.type = CFILTER_KEY_DST4;
	k.prefix_len = 32;
	inet_pton(AF_INET, "198.51.100.7", k.daddr);
	check_entry("dst 198.51.100.7", &k);

	memset(&k, 0, sizeof(k));
	k.type = CFILTER_KEY_DST6;
	k.prefix_len = 128;
	inet_pton(AF_INET6, "2001:db8::7", k.daddr);
	check_entry("dst 2001:db8::7", &k);

	memset(&k, 0, sizeof(k));
	k.type = CFILTER_KEY_ALLOW4;
	k.prefix_len = 32;
	inet_pton(AF_INET, "192.0.2.9", k.saddr);
	check_entry("allow 192.0.2.9", &k);

	memset(&k, 0, sizeof(k));
	k.type = CFILTER_KEY_ALLOW6;
	k.prefix_len = 128;
	inet_pton(AF_INET6, "2001:db8::9", k.saddr);
	check_entry("allow 2001:db8::9", &k);

	memset(&k, 0, sizeof(k));
	k.type = CFILTER_KEY_FLOW4;
	k.prefix_len = 32;
	k.proto = IPPROTO_TCP;
	k.sport = htons(40000);
	k.dport = htons(80);
	inet_pton(AF_INET, "192.0.2.1", k.saddr);
	inet_pton(AF_INET, "198.51.100.1", k.daddr);
	check_entry("tcp 192.0.2.1:40000 198.51.100.1:80", &k);
	k.proto = IPPROTO_UDP;
	check_entry("udp 192.0.2.1:40000 198.51.100.1:80", &k);
	k.proto = IPPROTO_ICMP;
	k.sport = htons(8);
	k.dport = 0;
	check_entry("icmp 192.0.2.1 198.51.100.1 8", &k);

	memset(&k, 0, sizeof(k));
	k.type = CFILTER_KEY_FLOW6;
	k.prefix_len = 128;
	k.proto = IPPROTO_UDP;
	k.sport = htons(0);
	k.dport = htons(65535);
	inet_pton(AF_INET6, "2001:db8::1", k.saddr);
	inet_pton(AF_INET6, "2001:db8::2", k.daddr);
	check_entry("udp [2001:db8::1]:0 [2001:db8::2]:65535", &k);
	k.proto = IPPROTO_ICMPV6;
	k.sport = htons(128);
	k.dport = 0;
	check_entry("icmp6 2001:db8::1 2001:db8::2 128", &k);

	memset(&k, 0, sizeof(k));
	k.type = CFILTER_KEY_SRC6;
	k.prefix_len = 128;
	inet_pton(AF_INET6, "2001:db8::5", k.saddr);
	check_entry("2001:db8::5", &k);
}

/* Each reason names its word. */
static void test_reasons(void)
{
	static const struct {
		enum kf_line	what;
		const char	*word;
		const char	*msg;
	} cases[] = {
		{ KF_BAD_KIND, "del", "unknown entry kind 'del'" },
		{ KF_WORDS, "tcp", "after 'tcp': expected tcp SADDR:SPORT DADDR:DPORT" },
		{ KF_WORDS, "192.0.2.9", "unexpected '192.0.2.9' after an address" },
		{ KF_BAD_ENDPOINT, "x", "invalid endpoint 'x': expected ADDR:PORT, or [ADDR]:PORT for IPv6" },
		{ KF_BAD_PORT, "a:99999", "invalid port in 'a:99999'" },
		{ KF_BAD_TYPE, "300", "invalid ICMP type '300'" },
		{ KF_MIXED, "::1", "address '::1' is of the wrong IP version" },
	};
	char *msg = NULL, name[200];
	unsigned int i;
	size_t len;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		f = open_memstream(&msg, &len);
		keyfile_reason(f, cases[i].what, cases[i].word);
		fclose(f);
		snprintf(name, sizeof(name), "reason %d: '%s'", cases[i].what,
			 cases[i].msg);
		ok(strstr(msg, cases[i].msg) && msg[len - 1] == '\n', name);
		free(msg);
	}
}

static void test_nul(void)
{
	char line[] = "192.0.2.1\0junk\n";
	struct cfilter_key key;
	const char *w;

	ok(keyfile_parse_line(line, sizeof(line) - 1, &key, &w) == KF_NUL,
	   "a NUL byte inside the line: KF_NUL");
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
		"192.0.2.0/24\n"			/* 7 */
		"192.0.2.1";				/* 8: repeat, no newline */
	struct key_list kl = { 0 };
	char *msgs = NULL;
	size_t msgs_len;
	FILE *in, *errs;
	int err;

	in = fmemopen((void *)text, sizeof(text) - 1, "r");
	errs = open_memstream(&msgs, &msgs_len);
	err = keyfile_read(in, "list.txt", &kl, errs);
	fclose(in);
	fclose(errs);

	ok(!err, "read: no error");
	ok(kl.n == 4 && kl.bad == 2, "read: 4 entries, 2 malformed lines");
	ok(kl.n == 4 && kl.lines[0] == 2 && kl.lines[1] == 4 &&
	   kl.lines[2] == 6 && kl.lines[3] == 8, "read: each entry's line number");
	ok(kl.n == 4 && is_key4(&kl.keys[0], "192.0.2.1") &&
	   is_key4(&kl.keys[1], "192.0.2.2") &&
	   is_key6(&kl.keys[2], "2001:db8::1") &&
	   is_key4(&kl.keys[3], "192.0.2.1"), "read: the keys, in file order");
	ok(msgs && strstr(msgs, "list.txt:5: invalid address '192.0.2.300'"),
	   "read: bad address reported as FILE:LINE: with the word");
	ok(msgs && strstr(msgs,
			  "list.txt:7: '192.0.2.0/24' is a prefix: prefixes are not supported yet"),
	   "read: prefix reported as not supported yet");
	ok(msgs && !strstr(msgs, "list.txt:1:"),
	   "read: byte order mark and comment accepted");
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
	err = keyfile_read(f, "big", &kl, stderr);
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
	struct cfilter_key key;
	const char *w;
	size_t len;
	FILE *f;

	memset(line, 'x', n);
	line[n] = '\0';
	ok(keyfile_parse_line(line, n, &key, &w) == KF_BAD_ADDR,
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

int main(void)
{
	printf("TAP version 13\n");
	test_lines();
	test_entries();
	test_reasons();
	test_nul();
	test_read();
	test_read_many();
	test_long_line();
	test_json();
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
