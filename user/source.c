// SPDX-License-Identifier: GPL-2.0
/* Source names and timeouts: see source.h. */
#include <stdbool.h>
#include <string.h>

#include <cfilter/source_name.h>

#include "source.h"
#include "util.h"

/**
 * source_name_ok() - is @name a source name (SOURCE_RULE)?
 * @name: as the user gave it; "" is refused (the default is "default")
 *
 * The module's own rule, less the empty name requests use for "default".
 */
bool source_name_ok(const char *name)
{
	size_t n = strlen(name), i;

	if (!n || n >= CFILTER_SOURCE_LEN || name[0] == '-')
		return false;
	for (i = 0; i < n; i++)
		if (!cfilter_source_char(name[i]))
			return false;
	return true;
}

/* Does @name (NULL, "" or a checked name) stand for "default"? */
bool source_is_default(const char *name)
{
	return !name || !*name || !strcmp(name, SOURCE_DEFAULT);
}

/* @name (NULL for "default") as a request carries it: NUL-padded. */
void source_copy(char dst[CFILTER_SOURCE_LEN], const char *name)
{
	memset(dst, 0, CFILTER_SOURCE_LEN);
	if (name)
		memcpy(dst, name, strnlen(name, CFILTER_SOURCE_LEN - 1));
}

/* @name for messages: "default" for NULL or "". */
const char *source_shown(const char *name)
{
	return source_is_default(name) ? SOURCE_DEFAULT : name;
}

/**
 * timeout_parse() - seconds as TIMEOUT_RULE says
 * @str:  decimal digits only: no sign, point, space or exponent
 * @secs: set on success
 *
 * Return: 0, or -1 if @str is not one (empty, too large included).
 */
int timeout_parse(const char *str, __u32 *secs)
{
	unsigned long long v;

	if (!digits_parse(str, 10, &v) || v > CFILTER_TIMEOUT_MAX)
		return -1;
	*secs = v;
	return 0;
}
