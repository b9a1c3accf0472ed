/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What cfctl log and cfctl top share of the drop log's events (log.c):
 * which ones they show, and how an event is named.
 */
#ifndef CFCTL_VERBS_LOG_H
#define CFCTL_VERBS_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/cfilter.h>

#include "verbs/verb.h"

/* Which events log and top show. */
struct log_filter {
	const char	*source;	/* -s; NULL: any */
	unsigned int	ifindex;	/* --iface; 0: any */
	int		family;		/* the CIDR's: 4 or 6; 0: none */
	__u8		addr[16];
	unsigned int	len;
};

int log_filter_init(struct log_filter *f, const struct cfctl_opts *o,
		    const char *verb);
bool log_filter_match(const struct log_filter *f,
		      const struct cfilter_log_event *ev);
const char *log_source(const struct cfilter_log_event *ev, char *buf);
const char *log_entry(const struct cfilter_log_event *ev, char *buf,
		      size_t len);
const char *log_addr(int family, const __u8 *addr, char *buf, size_t len);
const char *log_reason(const struct cfilter_log_event *ev);

#endif /* CFCTL_VERBS_LOG_H */
