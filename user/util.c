// SPDX-License-Identifier: GPL-2.0
/* Error reporting for every part of cfctl. */
#include <stdarg.h>
#include <stdio.h>

#include "util.h"

void cf_err(const char *fmt, ...)
{
	va_list ap;

	fputs("cfctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
