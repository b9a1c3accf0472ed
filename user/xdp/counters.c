// SPDX-License-Identifier: GPL-2.0
/*
 * The program's counters as people and scrapers read them: their names,
 * in the order stats prints them, and the interface of each slot. stats
 * (xdp_verbs.c), its metrics (metrics.c) and the drop log (log.c) share them.
 */
#include <net/if.h>
#include <stdio.h>

#include "xdp/counters.h"

/* Outcomes first, in the order the program decides them. */
const struct stat_name stat_names[__CFILTER_STAT_MAX] = {
	{ CFILTER_STAT_PASS,		"passed" },
	{ CFILTER_STAT_ALLOWED,		"allowed" },
	{ CFILTER_STAT_DROP_SRC,	"dropped_src" },
	{ CFILTER_STAT_DROP_DST,	"dropped_dst" },
	{ CFILTER_STAT_DROP_FLOW,	"dropped_flow" },
	{ CFILTER_STAT_DROP_PREFIX,	"dropped_prefix" },
	{ CFILTER_STAT_DROP_FRAG,	"dropped_tiny_fragment" },
	{ CFILTER_STAT_DROP_DEEP,	"dropped_deep_headers" },
	{ CFILTER_STAT_UNPARSED,	"unparsed" },
};

/**
 * stats_iface_name() - the name of interface slot @slot, for people
 * @slot: index of struct cf_stats's iface
 * @buf:  room for IF_NAMESIZE bytes at least
 *
 * Slot 0 is every interface past the map's slots: "other". An ifindex is
 * named in cfctl's network namespace; one it lacks there is "ifindex N".
 */
const char *stats_iface_name(unsigned int slot, char *buf, size_t len)
{
	char name[IF_NAMESIZE];

	if (!slot)
		snprintf(buf, len, "other");
	else if (if_indextoname(slot, name))
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "ifindex %u", slot);
	return buf;
}

/* Has interface slot @slot counted anything? */
bool stats_iface_used(const struct cf_stats *st, unsigned int slot)
{
	unsigned int i;

	for (i = 0; i < __CFILTER_STAT_MAX; i++)
		if (st->iface[slot][i])
			return true;
	return false;
}
