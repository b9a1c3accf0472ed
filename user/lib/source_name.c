// SPDX-License-Identifier: GPL-2.0
/* Source names and timeouts: see source_name.h. */
#include <stdbool.h>
#include <string.h>

#include <cfilter/source_name.h>

#include "lib/source_name.h"
#include "lib/util.h"

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

/**
 * timeout_parse_long() - seconds as TIMEOUT_RULE says, but for the bound
 * @str:  decimal digits only, as many as given
 * @secs: set on success; TIMEOUT_LONG_MAX if @str is more
 *
 * For callers whose timeouts have no bound (fail2ban's bantime.increment)
 * and who ask (--cap-timeout) to hold such a one for CFILTER_TIMEOUT_MAX.
 *
 * Return: 0, or -1 if @str is not all digits (or empty).
 */
int timeout_parse_long(const char *str, unsigned long long *secs)
{
	size_t n = strlen(str);

	if (!n || strspn(str, "0123456789") != n)
		return -1;
	while (n > 1 && *str == '0') {
		str++;
		n--;
	}
	if (n > 18 || !digits_parse(str, 18, secs) || *secs > TIMEOUT_LONG_MAX)
		*secs = TIMEOUT_LONG_MAX;
	return 0;
}

#define NSEC_PER_SEC	1000000000LL

/**
 * timeout_left() - what is left at @now_ns of @secs counted from @from_ns
 * @secs:    at most TIMEOUT_LONG_MAX
 * @from_ns: the start, nanoseconds since the epoch (as epoch_parse() gives)
 * @now_ns:  now, likewise
 *
 * In whole seconds rounded up, as the kernel rounds its deadline, so that
 * a holding of that timeout ends within two seconds after @from_ns +
 * @secs and never before.
 *
 * Return: the seconds left, 0 if the time is over.
 */
long long timeout_left(unsigned long long secs, long long from_ns,
		       long long now_ns)
{
	long long gone = now_ns - from_ns;
	/* ceil(secs - gone / 10^9) is secs - floor(gone / 10^9) */
	long long whole = gone / NSEC_PER_SEC - (gone % NSEC_PER_SEC < 0);
	long long left = (long long)secs - whole;

	return left > 0 ? left : 0;
}

/**
 * epoch_parse() - a time as EPOCH_RULE says, in nanoseconds
 * @str: decimal digits, then optionally a point and 1 to 9 digits
 * @ns:  set on success
 *
 * Return: 0, or -1 if @str is not one (0, signs, exponents and times past
 * the year 2096 included: with any timeout, nanoseconds fit in 63 bits).
 */
int epoch_parse(const char *str, long long *ns)
{
	unsigned long long secs, frac = 0;
	const char *point = strchr(str, '.');
	char whole[12];
	size_t n = point ? (size_t)(point - str) : strlen(str), digits;

	if (n >= sizeof(whole))
		return -1;
	memcpy(whole, str, n);
	whole[n] = '\0';
	if (!digits_parse(whole, 10, &secs) || secs > 4000000000ULL)
		return -1;
	if (point) {
		digits = strlen(point + 1);
		if (!digits || digits > 9 || !digits_parse(point + 1, 9, &frac))
			return -1;
		while (digits++ < 9)
			frac *= 10;
	}
	if (!secs && !frac)
		return -1;
	*ns = (long long)(secs * 1000000000ULL + frac);
	return 0;
}
