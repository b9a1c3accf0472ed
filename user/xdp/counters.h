/* SPDX-License-Identifier: GPL-2.0 */
/* The counters' names, and the interfaces of their slots (counters.c). */
#ifndef CFCTL_COUNTERS_H
#define CFCTL_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/cfilter.h>

#include "xdp/xdp.h"

/* A counter and its name, in the order stats prints them. */
struct stat_name {
	enum cfilter_stat	stat;
	const char		*name;
};
extern const struct stat_name stat_names[__CFILTER_STAT_MAX];

const char *stats_iface_name(unsigned int slot, char *buf, size_t len);
bool stats_iface_used(const struct cf_stats *st, unsigned int slot);

#endif /* CFCTL_COUNTERS_H */
