/* SPDX-License-Identifier: GPL-2.0 */
/* cfctl's verbs as the engine (cfctl.c) reads them from their table (verbs.c). */
#ifndef CFCTL_VERBS_H
#define CFCTL_VERBS_H

#include <stdbool.h>

#include "verbs/verb.h"

/* Options some verbs take: bits of struct verb's opts. */
enum {
	OPT_MODE	= 1 << 0,
	OPT_DRY_RUN	= 1 << 1,
	OPT_JSON	= 1 << 2,
	OPT_SKIP_BAD	= 1 << 3,
	OPT_MATCH_DST	= 1 << 4,
	OPT_WATCH	= 1 << 5,
	OPT_NORMALIZE	= 1 << 6,
	OPT_SOURCE	= 1 << 7,
	OPT_TIMEOUT	= 1 << 8,
	OPT_ALL_SOURCES	= 1 << 9,
	OPT_EXACT	= 1 << 10,
	OPT_QUIET	= 1 << 11,
	OPT_FORCE	= 1 << 12,
	OPT_FORMAT	= 1 << 13,
	OPT_PRIORITY	= 1 << 14,
	OPT_FROM	= 1 << 15,
	OPT_TYPES	= 1 << 16,
	OPT_NOMATCH	= 1 << 17,
	OPT_CAP_TIMEOUT	= 1 << 18,
	OPT_LOG		= 1 << 19,	/* log, top: --iface, --rate, --count */
	OPT_DURATION	= 1 << 20,
	OPT_TOP		= 1 << 21,	/* -w, -i, --rows, --once */
};

struct verb {
	const char	*name;
	int		(*run)(const struct cfctl_opts *o);
	const char	*arg;		/* its one argument, or NULL */
	bool		arg_optional;	/* @arg may be left out */
	bool		entry;		/* @arg is an ENTRY: one or more words */
	unsigned int	opts;		/* OPT_* it takes besides -h and -v */
	const char	*synopsis;	/* after "cfctl NAME" */
	const char	*summary;	/* one line for the verb list */
	const char	*help;		/* more for `cfctl NAME --help` */
};

/* Every verb, in the order help lists them. */
extern const struct verb verbs[];
extern const unsigned int nverbs;

#endif /* CFCTL_VERBS_H */
