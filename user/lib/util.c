// SPDX-License-Identifier: GPL-2.0
/* Error reporting and strict numbers for every part of cfctl. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/util.h"

static void cf_verr(const char *fmt, va_list ap)
{
	fputs("cfctl: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cf_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cf_verr(fmt, ap);
	va_end(ap);
}

void cf_bpf_err(int err, const char *fmt, ...)
{
	va_list ap;

	if (err == -EPERM || err == -EACCES) {
		cf_err(MSG_NO_PERM_BPF);
		return;
	}
	va_start(ap, fmt);
	cf_verr(fmt, ap);
	va_end(ap);
}

/**
 * digits_parse() - a number written in decimal digits alone
 * @str:        no sign, space, point or exponent
 * @max_digits: the most digits it may have (19 at most), leading zeros
 *              included: the bound of what fits, before any range check
 * @val:        set on success
 *
 * Return: true, or false if @str is empty, longer or not all digits.
 */
bool digits_parse(const char *str, unsigned int max_digits,
		  unsigned long long *val)
{
	unsigned long long v = 0;
	const char *p;

	if (!*str || strlen(str) > max_digits)
		return false;
	for (p = str; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (*p - '0');
	}
	*val = v;
	return true;
}
