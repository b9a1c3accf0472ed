// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for cfctl's reader of CrowdSec decisions
 * (user/formats/decision.c), which takes lines from a feed cfilter does not
 * control. Beyond the sanitizers: a line the reader accepts, written back
 * as the bouncer would write it, reads back the same; a duration it
 * accepts, written in whole seconds, reads back the same seconds; a
 * --types list it accepts finds each of its names where it put it, and
 * reads back the same when written again.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/decision.h"

/* One byte string's worth of JSON, escaping what must be. */
static size_t put_json_string(char *out, const char *s)
{
	size_t n = 0;

	out[n++] = '"';
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			n += sprintf(out + n, "\\%c", c);
		else if (c < 0x20)
			n += sprintf(out + n, "\\u%04x", c);
		else
			out[n++] = c;
	}
	out[n++] = '"';
	return n;
}

static void check_round_trip(const struct decision *d)
{
	char line[512], seconds[32];
	struct decision again;
	const char *why;
	size_t n = 0;

	n += sprintf(line + n, "{\"action\":\"%s\",\"value\":",
		     d->action == DECISION_ADD ? "add" : "del");
	n += put_json_string(line + n, d->value);
	n += sprintf(line + n, ",\"scope\":");
	n += put_json_string(line + n, d->scope);
	n += sprintf(line + n, ",\"type\":");
	n += put_json_string(line + n, d->type);
	snprintf(seconds, sizeof(seconds), "%llds", d->seconds);
	n += sprintf(line + n, ",\"simulated\":%s,\"duration\":\"%s\"}",
		     d->simulated ? "true" : "false", seconds);
	if (decision_parse(line, n, &again, &why) ||
	    again.action != d->action || strcmp(again.value, d->value) ||
	    strcmp(again.scope, d->scope) || strcmp(again.type, d->type) ||
	    again.simulated != d->simulated || again.seconds != d->seconds) {
		fprintf(stderr, "round trip differs: %s\n", line);
		abort();
	}
}

static void check_types(const char *list)
{
	struct decision_types t, again;
	char joined[DECISION_TYPES_MAX * 16];
	const char *why;
	size_t n = 0;
	unsigned int i;

	if (decision_types_parse(list, &t, &why)) {
		if (!why || !*why)
			abort();
		return;
	}
	if (!t.n || t.n > DECISION_TYPES_MAX)
		abort();
	for (i = 0; i < t.n; i++) {
		if (!*t.name[i] || decision_type_index(&t, t.name[i]) != (int)i)
			abort();
		n += sprintf(joined + n, "%s%s", i ? "," : "", t.name[i]);
	}
	if (strcmp(joined, list) || decision_types_parse(joined, &again, &why) ||
	    memcmp(&again, &t, sizeof(t)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct decision d;
	const char *why;
	long long s, t;
	char text[64], again[32];

	if (!decision_parse((const char *)data, size, &d, &why)) {
		if (strlen(d.value) >= sizeof(d.value) ||
		    strlen(d.scope) >= sizeof(d.scope) ||
		    strlen(d.type) >= sizeof(d.type))
			abort();
		check_round_trip(&d);
	} else if (!why || !*why) {
		abort();
	}

	/* The same bytes as a duration, up to the first NUL. */
	if (size >= sizeof(text))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	check_types(text);
	/* Whole seconds past INT64_MAX ns (Go's bound) would not read back. */
	if (!decision_duration(text, &s) && s < 9223372036 && s > -9223372036) {
		snprintf(again, sizeof(again), "%llds", s);
		if (decision_duration(again, &t) || t != s)
			abort();
	}
	return 0;
}
