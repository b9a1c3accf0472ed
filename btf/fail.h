/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CFILTER_BTF_FAIL_H
#define CFILTER_BTF_FAIL_H

/* Prints "resolve_btfids: " and the message on stderr; returns -1. */
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
