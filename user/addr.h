/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CFCTL_ADDR_H
#define CFCTL_ADDR_H

#include <stddef.h>
#include <linux/cfilter.h>

#define ADDR_STRLEN	48	/* INET6_ADDRSTRLEN and more */

int addr_parse(const char *str, struct cfilter_key *key);
const char *addr_format(const struct cfilter_key *key, char *buf, size_t len);

#endif /* CFCTL_ADDR_H */
