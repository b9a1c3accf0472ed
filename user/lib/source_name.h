/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Source names and timeouts as cfctl takes them (options, list files,
 * snapshots): checked here, before any ioctl, so that a bad one is named
 * by cfctl rather than refused by the module with a bare EINVAL.
 */
#ifndef CFCTL_SOURCE_H
#define CFCTL_SOURCE_H

#include <stdbool.h>
#include <linux/cfilter.h>

/* What a message says a good source name or timeout is. */
#define SOURCE_RULE	"1 to 31 characters of A-Z a-z 0-9 _ . : @ -, not starting with '-'"
#define TIMEOUT_RULE	"whole seconds, 0 (permanent) to 2147483647"
#define EPOCH_RULE	"seconds since the epoch, 1 to 4000000000, with up to 9 decimals"

/* The name "" stands for in messages and files. */
#define SOURCE_DEFAULT	"default"

bool source_name_ok(const char *name);
bool source_is_default(const char *name);
void source_copy(char dst[CFILTER_SOURCE_LEN], const char *name);
const char *source_shown(const char *name);
/* Where timeout_parse_long() stops counting: 10^18 s, past any deadline. */
#define TIMEOUT_LONG_MAX	1000000000000000000ULL

int timeout_parse(const char *str, __u32 *secs);
int timeout_parse_long(const char *str, unsigned long long *secs);
long long timeout_left(unsigned long long secs, long long from_ns,
		       long long now_ns);
int epoch_parse(const char *str, long long *ns);

#endif /* CFCTL_SOURCE_H */
