/* SPDX-License-Identifier: GPL-2.0 */
/* What every part of cfctl shares: exit statuses and error reporting. */
#ifndef CFCTL_H
#define CFCTL_H

/* Exit statuses; scripts depend on them, so they never change meaning. */
enum cf_exit {
	CF_OK		= 0,	/* success; for test: the address is blocked */
	CF_ABSENT	= 1,	/* test, del: the address is not blocked */
	CF_USAGE	= 2,	/* bad command line or malformed input */
	CF_SYSTEM	= 3,	/* module missing, permission, filter full, ... */
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Print "cfctl: <message>" and a newline on stderr. */
void cf_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* CFCTL_H */
