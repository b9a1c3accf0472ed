// SPDX-License-Identifier: GPL-2.0
/* Error reporting for every part of cfctl. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "util.h"

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
