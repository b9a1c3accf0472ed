// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming JSON, compact, one document per json_init(): members and
 * elements are written as they come, so a list of a million entries needs
 * no memory. The caller nests begin/end calls correctly (at most
 * JSON_MAX_DEPTH deep, far more than cfctl uses); the writer places the
 * commas and colons and escapes strings. Strings are passed through as
 * bytes apart from the escapes JSON requires: cfctl writes ASCII only.
 */
#include "lib/json.h"

void json_init(struct json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->started = 0;
	j->after_key = false;
}

/* Before any value or key: the comma that separates it from the last one. */
static void json_sep(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->started & (1u << j->depth))
		fputc(',', j->out);
	j->started |= 1u << j->depth;
}

static void json_open(struct json *j, char c)
{
	json_sep(j);
	fputc(c, j->out);
	j->depth++;
	j->started &= ~(1u << j->depth);
}

/* The outermost close ends the document, and its line. */
static void json_close(struct json *j, char c)
{
	j->depth--;
	fputc(c, j->out);
	if (!j->depth)
		fputc('\n', j->out);
}

void json_object_begin(struct json *j)
{
	json_open(j, '{');
}

void json_object_end(struct json *j)
{
	json_close(j, '}');
}

void json_array_begin(struct json *j)
{
	json_open(j, '[');
}

void json_array_end(struct json *j)
{
	json_close(j, ']');
}

static void json_quoted(FILE *out, const char *s)
{
	const unsigned char *p;

	fputc('"', out);
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\b':
			fputs("\\b", out);
			break;
		case '\f':
			fputs("\\f", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

void json_key(struct json *j, const char *key)
{
	json_sep(j);
	json_quoted(j->out, key);
	fputc(':', j->out);
	j->after_key = true;
}

void json_string(struct json *j, const char *s)
{
	json_sep(j);
	json_quoted(j->out, s);
}

void json_uint(struct json *j, unsigned long long v)
{
	json_sep(j);
	fprintf(j->out, "%llu", v);
}

/* @v hundredths, as a decimal number with two digits after the point. */
void json_hundredths(struct json *j, unsigned long long v)
{
	json_sep(j);
	fprintf(j->out, "%llu.%02llu", v / 100, v % 100);
}

void json_bool(struct json *j, bool v)
{
	json_sep(j);
	fputs(v ? "true" : "false", j->out);
}

void json_kv_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void json_kv_uint(struct json *j, const char *key, unsigned long long v)
{
	json_key(j, key);
	json_uint(j, v);
}

void json_kv_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}
