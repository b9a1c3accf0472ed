/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal streaming JSON writer for cfctl's -j/--json output. */
#ifndef CFCTL_JSON_H
#define CFCTL_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	32

struct json {
	FILE		*out;
	unsigned int	depth;
	unsigned int	started;	/* bit d: level d has a member already */
	bool		after_key;	/* a value completes "key": */
};

void json_init(struct json *j, FILE *out);
void json_object_begin(struct json *j);
void json_object_end(struct json *j);
void json_array_begin(struct json *j);
void json_array_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s);
void json_uint(struct json *j, unsigned long long v);
void json_hundredths(struct json *j, unsigned long long v);
void json_bool(struct json *j, bool v);
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_uint(struct json *j, const char *key, unsigned long long v);
void json_kv_bool(struct json *j, const char *key, bool v);

#endif /* CFCTL_JSON_H */
