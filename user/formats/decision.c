// SPDX-License-Identifier: GPL-2.0
/*
 * One CrowdSec decision per line of JSON (decision.h). The reader takes any
 * well-formed object, skips the members it has no use for whatever their
 * kind, and refuses what is not JSON: a line from a newer bouncer with more
 * fields still reads, a garbled one is named and skipped by the caller.
 */
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "formats/decision.h"

/* Deeper nesting than any decision has is refused, not recursed into. */
#define MAX_DEPTH	16

struct reader {
	const char	*p;
	const char	*end;
	const char	*why;
};

static int fail(struct reader *r, const char *why)
{
	if (!r->why)
		r->why = why;
	return -1;
}

static void skip_space(struct reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' ||
				 *r->p == '\r' || *r->p == '\n'))
		r->p++;
}

static bool take(struct reader *r, char c)
{
	skip_space(r);
	if (r->p < r->end && *r->p == c) {
		r->p++;
		return true;
	}
	return false;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Appends @c to @out if there is room; notes that there was not. */
static void put(char *out, size_t room, size_t *n, bool *cut, char c)
{
	if (out && *n + 1 < room)
		out[(*n)++] = c;
	else
		*cut = true;
}

/*
 * A string at the reader, into @out (NUL-terminated, @room bytes; NULL to
 * skip it). \u escapes become UTF-8; cfctl compares ASCII only. *@cut is
 * set if @out was too small.
 */
static int read_string(struct reader *r, char *out, size_t room, bool *cut)
{
	size_t n = 0;
	unsigned int u;
	int i, d;

	*cut = false;
	if (!take(r, '"'))
		return fail(r, "a string was expected");
	while (r->p < r->end && *r->p != '"') {
		char c = *r->p++;

		if ((unsigned char)c < 0x20)
			return fail(r, "a control character inside a string");
		if (c != '\\') {
			put(out, room, &n, cut, c);
			continue;
		}
		if (r->p >= r->end)
			break;
		c = *r->p++;
		switch (c) {
		case '"': case '\\': case '/':
			break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'u':
			for (u = 0, i = 0; i < 4; i++) {
				d = r->p < r->end ? hex_digit(*r->p++) : -1;
				if (d < 0)
					return fail(r, "a bad \\u escape");
				u = u << 4 | d;
			}
			if (!u)
				return fail(r, "a NUL inside a string");
			if (u < 0x80) {
				c = u;
				break;
			}
			if (u < 0x800) {
				put(out, room, &n, cut, 0xc0 | u >> 6);
			} else {
				put(out, room, &n, cut, 0xe0 | u >> 12);
				put(out, room, &n, cut, 0x80 | (u >> 6 & 0x3f));
			}
			c = 0x80 | (u & 0x3f);
			break;
		default:
			return fail(r, "a bad escape in a string");
		}
		put(out, room, &n, cut, c);
	}
	if (r->p >= r->end)
		return fail(r, "a string is not closed");
	r->p++;
	if (out)
		out[n] = '\0';
	return 0;
}

static bool take_word(struct reader *r, const char *word)
{
	size_t len = strlen(word);

	skip_space(r);
	if ((size_t)(r->end - r->p) < len || memcmp(r->p, word, len))
		return false;
	r->p += len;
	return true;
}

/* A JSON number, checked for its form and skipped. */
static int skip_number(struct reader *r)
{
	const char *start;

	take(r, '-');
	start = r->p;
	while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
		r->p++;
	if (r->p == start)
		return fail(r, "a value is not JSON");
	if (r->p < r->end && *r->p == '.') {
		start = ++r->p;
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
		if (r->p == start)
			return fail(r, "a number without digits after its point");
	}
	if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
		r->p++;
		if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
			r->p++;
		start = r->p;
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
		if (r->p == start)
			return fail(r, "a number without digits in its exponent");
	}
	return 0;
}

static int skip_value(struct reader *r, int depth);

/* The members or elements of an object or array whose opener was taken. */
static int skip_container(struct reader *r, char close, int depth)
{
	bool cut;

	if (depth >= MAX_DEPTH)
		return fail(r, "nested too deep");
	if (take(r, close))
		return 0;
	do {
		if (close == '}' && (read_string(r, NULL, 0, &cut) ||
				     !take(r, ':')))
			return fail(r, "an object member is not \"name\": value");
		if (skip_value(r, depth + 1))
			return -1;
	} while (take(r, ','));
	if (!take(r, close))
		return fail(r, close == '}' ? "an object is not closed" :
					      "an array is not closed");
	return 0;
}

static int skip_value(struct reader *r, int depth)
{
	bool cut;

	skip_space(r);
	if (r->p >= r->end)
		return fail(r, "a value is missing");
	switch (*r->p) {
	case '"':
		return read_string(r, NULL, 0, &cut);
	case '{':
		r->p++;
		return skip_container(r, '}', depth);
	case '[':
		r->p++;
		return skip_container(r, ']', depth);
	default:
		if (take_word(r, "true") || take_word(r, "false") ||
		    take_word(r, "null"))
			return 0;
		return skip_number(r);
	}
}

/* A string member that decision_parse() keeps, and where. */
struct field {
	const char	*name;
	size_t		offset;
	size_t		room;
	const char	*too_long;
};

static const struct field fields[] = {
	{ "value", offsetof(struct decision, value),
	  sizeof(((struct decision *)0)->value), "\"value\" is too long" },
	{ "scope", offsetof(struct decision, scope),
	  sizeof(((struct decision *)0)->scope), "\"scope\" is too long" },
	{ "type", offsetof(struct decision, type),
	  sizeof(((struct decision *)0)->type), "\"type\" is too long" },
};

/* What the members of one line gave, before they are checked together. */
struct seen {
	char	action[8];
	char	duration[32];
	bool	has_action, has_duration, has[sizeof(fields) / sizeof(fields[0])];
};

/* A member cfctl reads, which must be a string. */
static int read_field(struct reader *r, char *out, size_t room, bool *cut)
{
	skip_space(r);
	if (r->p >= r->end || *r->p != '"')
		return fail(r, "action, value, scope, type or duration is not a string");
	return read_string(r, out, room, cut);
}

static int read_member(struct reader *r, struct decision *d, struct seen *s)
{
	char name[16];
	size_t i;
	bool cut;

	if (read_string(r, name, sizeof(name), &cut) || !take(r, ':'))
		return fail(r, "an object member is not \"name\": value");
	if (cut)
		return skip_value(r, 1);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (strcmp(name, fields[i].name))
			continue;
		if (read_field(r, (char *)d + fields[i].offset, fields[i].room,
			       &cut))
			return -1;
		s->has[i] = true;
		return cut ? fail(r, fields[i].too_long) : 0;
	}
	if (!strcmp(name, "action")) {
		s->has_action = true;
		if (read_field(r, s->action, sizeof(s->action), &cut))
			return -1;
		return cut ? fail(r, "\"action\" is neither add nor del") : 0;
	}
	if (!strcmp(name, "duration")) {
		s->has_duration = true;
		if (read_field(r, s->duration, sizeof(s->duration), &cut))
			return -1;
		return cut ? fail(r, "\"duration\" is too long") : 0;
	}
	if (!strcmp(name, "simulated")) {
		if (take_word(r, "true"))
			d->simulated = true;
		else if (take_word(r, "false"))
			d->simulated = false;
		else
			return fail(r, "\"simulated\" is not true or false");
		return 0;
	}
	return skip_value(r, 1);
}

int decision_parse(const char *line, size_t len, struct decision *d,
		   const char **why)
{
	struct reader r = { .p = line, .end = line + len };
	struct seen s = {};
	size_t i;

	memset(d, 0, sizeof(*d));
	if (!take(&r, '{')) {
		fail(&r, "not a JSON object");
		goto bad;
	}
	if (!take(&r, '}')) {
		do {
			if (read_member(&r, d, &s))
				goto bad;
		} while (take(&r, ','));
		if (!take(&r, '}')) {
			fail(&r, "the object is not closed");
			goto bad;
		}
	}
	skip_space(&r);
	if (r.p != r.end) {
		fail(&r, "text after the object");
		goto bad;
	}

	if (!s.has_action) {
		fail(&r, "no \"action\"");
		goto bad;
	}
	if (!strcmp(s.action, "add")) {
		d->action = DECISION_ADD;
	} else if (!strcmp(s.action, "del")) {
		d->action = DECISION_DEL;
	} else {
		fail(&r, "\"action\" is neither add nor del");
		goto bad;
	}
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (!s.has[i]) {
			fail(&r, "a decision needs \"value\", \"scope\" and \"type\"");
			goto bad;
		}
	}
	if (s.has_duration && decision_duration(s.duration, &d->seconds)) {
		fail(&r, "\"duration\" is not a duration such as 3h59m58.5s");
		goto bad;
	}
	if (!s.has_duration && d->action == DECISION_ADD) {
		fail(&r, "an add without \"duration\"");
		goto bad;
	}
	return 0;
bad:
	*why = r.why;
	return -1;
}

/* Nanoseconds per unit; "ms" before "m", which is its prefix. */
static const struct {
	const char	*name;
	uint64_t	ns;
} units[] = {
	{ "ns", 1 },
	{ "us", 1000 },
	{ "\xc2\xb5s", 1000 },		/* U+00B5 micro sign */
	{ "\xce\xbcs", 1000 },		/* U+03BC Greek mu */
	{ "ms", 1000000 },
	{ "s", 1000000000ULL },
	{ "m", 60 * 1000000000ULL },
	{ "h", 3600 * 1000000000ULL },
};

/* Go's own bound: a duration is an int64 of nanoseconds. */
#define DURATION_MAX_NS	((unsigned __int128)INT64_MAX)

int decision_duration(const char *s, long long *seconds)
{
	unsigned __int128 total = 0, whole, frac, scale;
	bool negative = false;
	const char *start;
	size_t i, len;

	if (*s == '-' || *s == '+')
		negative = *s++ == '-';
	if (!strcmp(s, "0")) {
		*seconds = 0;
		return 0;
	}
	if (!*s)
		return -1;
	while (*s) {
		whole = 0;
		frac = 0;
		scale = 1;
		start = s;
		for (; *s >= '0' && *s <= '9'; s++) {
			whole = whole * 10 + (*s - '0');
			if (whole > DURATION_MAX_NS)
				return -1;
		}
		if (*s == '.') {
			/* Digits past the 18th cannot change whole seconds. */
			for (s++; *s >= '0' && *s <= '9'; s++) {
				if (scale < 1000000000000000000ULL) {
					frac = frac * 10 + (*s - '0');
					scale *= 10;
				}
			}
		}
		if (s == start || (s == start + 1 && *start == '.'))
			return -1;
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			len = strlen(units[i].name);
			if (!strncmp(s, units[i].name, len))
				break;
		}
		if (i == sizeof(units) / sizeof(units[0]))
			return -1;
		s += len;
		total += whole * units[i].ns + frac * units[i].ns / scale;
		if (total > DURATION_MAX_NS)
			return -1;
	}
	*seconds = (long long)((total + 999999999) / 1000000000);
	if (negative)
		*seconds = -*seconds;
	return 0;
}

static bool type_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-';
}

int decision_types_parse(const char *list, struct decision_types *t,
			 const char **why)
{
	const char *p = list;
	size_t len;

	memset(t, 0, sizeof(*t));
	for (;;) {
		for (len = 0; type_char(p[len]); len++)
			;
		if (p[len] && p[len] != ',') {
			*why = "a type has a character other than A-Z a-z 0-9 _ -";
			return -1;
		}
		if (!len) {
			*why = "an empty type: name them separated by commas, such as ban,captcha";
			return -1;
		}
		if (len >= sizeof(t->name[0])) {
			*why = "a type of more than 15 characters";
			return -1;
		}
		if (t->n == DECISION_TYPES_MAX) {
			*why = "more than 4 types";
			return -1;
		}
		memcpy(t->name[t->n], p, len);
		if (decision_type_index(t, t->name[t->n]) != -1) {
			*why = "a type named twice";
			return -1;
		}
		t->n++;
		p += len;
		if (!*p)
			return 0;
		p++;
	}
}

int decision_type_index(const struct decision_types *t, const char *type)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (!strcasecmp(t->name[i], type))
			return i;
	return -1;
}
