/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a verb is: the command line it is given, parsed (cli/options.c
 * fills it), and the do_<verb>() of each, which the table of verbs
 * (cli/verbs.c) names.
 */
#ifndef CFCTL_VERB_H
#define CFCTL_VERB_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "lib/util.h"
#include "xdp/xdp.h"

/* Set by the Makefile from debian/changelog's top entry. */
#ifndef CFCTL_VERSION
#define CFCTL_VERSION	"0.1"
#endif

/* stats --format */
enum cf_format {
	CF_FORMAT_TEXT,
	CF_FORMAT_PROMETHEUS,	/* Prometheus' text exposition format */
};

/* The command line, parsed: what each do_<verb>() gets. */
struct cfctl_opts {
	const char	*arg;		/* the verb's IFACE or FILE */
	const char	*source;	/* -s, checked; NULL if not given */
	__u32		timeout;	/* -t: seconds; 0: permanent */
	unsigned long long timeout_long; /* -t as given (past the max with --cap-timeout) */
	bool		cap_timeout;	/* add, allow: hold a longer -t for the max */
	long long	from_ns;	/* --from: -t counts from here (ns since the epoch); 0: now */
	bool		all_sources;	/* del, list: every source's holdings */
	char *const	*words;		/* add, del, test, allow: the ENTRY */
	int		nwords;
	enum cf_xdp_mode mode;		/* attach */
	bool		verbose;
	bool		dry_run;	/* check and say, change nothing */
	bool		json;		/* one JSON document on stdout */
	bool		quiet;		/* nothing on stdout: the exit status says it */
	bool		exact;		/* test: this very entry, not what covers it */
	bool		skip_bad;	/* load: skip malformed lines */
	bool		normalize;	/* load: mask host bits of prefixes */
	bool		nomatch_allows;	/* load: ipset's nomatch entries as allow entries */
	bool		match_dst;	/* attach: match destination keys too */
	bool		force;		/* attach: replace another tool's program */
	bool		priority_set;	/* attach: --priority given */
	unsigned int	priority;	/* attach: in libxdp's dispatcher */
	bool		watch;		/* stats: print rates until interrupted */
	unsigned int	interval;	/* stats --watch: seconds per sample */
	unsigned int	count;		/* stats --watch: samples; 0: unbounded */
	enum cf_format	format;		/* stats */
	const char	*textfile;	/* stats: write the metrics to this file */
	const char	*types;		/* crowdsec: the decision types banned */
	const char	*iface;		/* log, top: that interface's drops only */
	unsigned int	rate;		/* log, top: events/s per CPU; 0: as is */
	unsigned int	duration;	/* log: seconds; 0: until interrupted */
	unsigned int	window;		/* top: seconds of the sliding window */
	unsigned int	rows;		/* top: lines per table */
	bool		once;		/* top: one view, after one window */
};

/* Verbs of entry.c. */
int do_add(const struct cfctl_opts *o);
int do_allow(const struct cfctl_opts *o);
int do_del(const struct cfctl_opts *o);
int do_test(const struct cfctl_opts *o);

/* The verb of match.c, and how it words a verdict (why.c too). */
int do_match(const struct cfctl_opts *o);
const char *verdict_word(__u32 verdict);
const char *verdict_reason(__u32 verdict);

/* The verb of info.c. */
int do_info(const struct cfctl_opts *o);

/* Verbs of clear.c. */
int do_clear(const struct cfctl_opts *o);
int do_flush(const struct cfctl_opts *o);

/* Verbs of xdp_verbs.c. */
int do_attach(const struct cfctl_opts *o);
int do_detach(const struct cfctl_opts *o);
int do_status(const struct cfctl_opts *o);
int do_stats(const struct cfctl_opts *o);

/* stats --format prometheus (metrics.c). */
int stats_prometheus(const struct cfctl_opts *o);

/* Verbs of bulk.c. */
int do_load(const struct cfctl_opts *o);
int do_replace(const struct cfctl_opts *o);

/* Verbs of list.c. */
int do_save(const struct cfctl_opts *o);
int do_list(const struct cfctl_opts *o);

/* Verbs of snapshot.c. */
int do_snapshot(const struct cfctl_opts *o);
int do_restore(const struct cfctl_opts *o);

/* The verb of crowdsec.c. */
int do_crowdsec(const struct cfctl_opts *o);

/* The verbs of the drop log: log.c, top.c, why.c. */
int do_log(const struct cfctl_opts *o);
int do_top(const struct cfctl_opts *o);
int do_why(const struct cfctl_opts *o);

#endif /* CFCTL_VERB_H */
