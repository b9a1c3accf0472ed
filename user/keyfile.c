// SPDX-License-Identifier: GPL-2.0
/*
 * The entry-list format of `cfctl load` and `cfctl save`: one address per
 * line; blank lines and comments ('#' or ';' to the end of the line) are
 * ignored, and so are surrounding whitespace, a leading "add " (lists made
 * as cfctl command scripts), a UTF-8 byte order mark and CR line ends
 * (lists saved on Windows). Anything else is a malformed line, reported with
 * its file and line number so that an editor can jump to it.
 *
 * Parsing never touches the filter: `load` reads the whole file first and
 * applies nothing if a line is bad.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "keyfile.h"

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

static bool has_space(const char *s)
{
	for (; *s; s++)
		if (is_space(*s))
			return true;
	return false;
}

/**
 * keyfile_parse_line() - parse one line of an entry list
 * @line: the line, with or without its newline; modified
 * @len:  its length in bytes (a NUL byte inside is an error)
 * @key:  set for KF_ENTRY
 * @word: set to the part of @line a KF_ENTRY or error is about
 *
 * Return: what the line holds.
 */
enum kf_line keyfile_parse_line(char *line, size_t len,
				struct cfilter_key *key, const char **word)
{
	char *s;

	if (memchr(line, '\0', len))
		return KF_NUL;
	s = strip(line);
	*word = s;
	if (!*s)
		return KF_EMPTY;
	if (!strcmp(s, "add"))
		return KF_ADD_ALONE;
	if (!strncmp(s, "add", 3) && is_space(s[3])) {
		s += 4;
		while (is_space(*s))
			s++;
		*word = s;
	}
	if (has_space(s))
		return KF_WORDS;
	switch (addr_parse(s, key)) {
	case 0:
		return KF_ENTRY;
	case -EOPNOTSUPP:
		return KF_PREFIX;
	default:
		return KF_BAD_ADDR;
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
	int len = strlen(word) > QUOTE_MAX ? QUOTE_MAX : (int)strlen(word);
	const char *more = strlen(word) > QUOTE_MAX ? "..." : "";

	fprintf(out, "%s:%lu: ", name, lineno);
	switch (what) {
	case KF_BAD_ADDR:
		fprintf(out, "invalid address '%.*s%s': expected an IPv4 or IPv6 address\n",
			len, word, more);
		break;
	case KF_PREFIX:
		fprintf(out, "'%.*s%s' is a prefix: prefixes are not supported yet, list single addresses\n",
			len, word, more);
		break;
	case KF_WORDS:
		fprintf(out, "'%.*s%s': expected one address per line (flows are not supported yet)\n",
			len, word, more);
		break;
	case KF_ADD_ALONE:
		fprintf(out, "'add' without an address\n");
		break;
	default:
		fprintf(out, "the line has a NUL byte: is this a text file?\n");
	}
}

/* Makes room for one more entry. Returns 0 or -ENOMEM. */
static int key_list_grow(struct key_list *kl)
{
	size_t cap = kl->cap ? kl->cap * 2 : 4096;
	struct cfilter_key *keys;
	unsigned long *lines;

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
	kl->cap = cap;
	return 0;
}

/**
 * keyfile_read() - read every line of an entry list
 * @in:   the open file
 * @name: its name in messages
 * @kl:   entries are appended here; malformed lines are counted
 * @errs: where each malformed line is explained
 *
 * Return: 0 (malformed lines included), or a negative errno if @in cannot
 * be read or memory runs out; @kl keeps what was read so far.
 */
int keyfile_read(FILE *in, const char *name, struct key_list *kl, FILE *errs)
{
	unsigned long lineno = 0;
	size_t size = 0;
	const char *word;
	char *line = NULL;
	enum kf_line what;
	ssize_t len;
	int err = 0;

	while ((len = getline(&line, &size, in)) >= 0) {
		char *s = line;

		lineno++;
		/* A byte order mark says UTF-8; addresses are ASCII anyway. */
		if (lineno == 1 && !strncmp(s, "\xef\xbb\xbf", 3)) {
			s += 3;
			len -= 3;
		}
		if (kl->n == kl->cap) {
			err = key_list_grow(kl);
			if (err)
				break;
		}
		what = keyfile_parse_line(s, len, &kl->keys[kl->n], &word);
		if (what == KF_ENTRY) {
			kl->lines[kl->n++] = lineno;
		} else if (what != KF_EMPTY) {
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
	memset(kl, 0, sizeof(*kl));
}
