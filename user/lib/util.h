/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What cfctl's libraries and its verbs share: exit statuses, error
 * reporting, the messages more than one of them says, and the number
 * parser of their strict formats.
 */
#ifndef CF_UTIL_H
#define CF_UTIL_H

#include <stdbool.h>

/* Exit statuses; scripts depend on them, so they never change meaning. */
enum cf_exit {
	CF_OK		= 0,	/* success; for test: the address is blocked */
	CF_ABSENT	= 1,	/* test, del: the address is not blocked */
	CF_USAGE	= 2,	/* bad command line or malformed input */
	CF_SYSTEM	= 3,	/* module missing, permission, filter full, ... */
};

/* What cfctl says when the module is missing. */
#define MSG_NO_MODULE	"cfilter module not loaded: run insmod cfilter.ko (or modprobe cfilter)"
/* What cfctl says when the caller lacks @caps, the capabilities it needs. */
#define MSG_NO_PERM_NEEDS(caps) "permission denied: run as root (needs " caps ")"
/* For /dev/cfilter. */
#define MSG_NO_PERM	MSG_NO_PERM_NEEDS("CAP_NET_ADMIN")
/* For the BPF program, its links and its maps. */
#define MSG_NO_PERM_BPF	MSG_NO_PERM_NEEDS("CAP_BPF and CAP_NET_ADMIN")

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

bool digits_parse(const char *str, unsigned int max_digits,
		  unsigned long long *val);

/* Print "cfctl: <message>" and a newline on stderr. */
void cf_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Report @err, the negative errno of a BPF call: a missing privilege as
 * MSG_NO_PERM_BPF, whatever the call was, anything else as cf_err(@fmt, ...).
 */
void cf_bpf_err(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* CF_UTIL_H */
