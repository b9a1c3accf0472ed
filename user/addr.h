/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CFCTL_ADDR_H
#define CFCTL_ADDR_H

#include <linux/cfilter.h>

int addr_parse(const char *str, struct cfilter_key *key);

#endif /* CFCTL_ADDR_H */
