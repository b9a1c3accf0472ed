// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl's options as data: one table entry per option says its kind, the
 * field of struct cfctl_opts it fills, its bounds and the verbs that take
 * it. The parser walks the table; help prints it.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "lib/source_name.h"
#include "xdp/droplog.h"

/* getopt values of long options without a short form. */
enum {
	LOPT_SKIP_BAD	= 256,
	LOPT_MATCH_DST,
	LOPT_WATCH,
	LOPT_COUNT,
	LOPT_NORMALIZE,
	LOPT_EXACT,
	LOPT_FORCE,
	LOPT_FORMAT,
	LOPT_TEXTFILE,
	LOPT_PRIORITY,
	LOPT_FROM,
	LOPT_TYPES,
	LOPT_NOMATCH_ALLOWS,
	LOPT_CAP_TIMEOUT,
	LOPT_IFACE,
	LOPT_RATE,
	LOPT_DURATION,
	LOPT_ROWS,
	LOPT_ONCE,
};

/* What an option's argument is, and so how its field is filled. */
enum opt_kind {
	KIND_HELP,	/* no field: prints the verb's help */
	KIND_FLAG,	/* a bool, set */
	KIND_STRING,	/* a const char *, the argument itself */
	KIND_UINT,	/* an unsigned int in [min, max] */
	KIND_PARSE,	/* whatever @parse makes of the argument */
};

/* Every option of every verb, in the order help lists them. */
struct cf_option {
	struct option	lo;
	unsigned int	only;	/* the OPT_* bit of the verbs that take it; 0: all */
	const char	*usage;
	const char	*help;	/* lines after the first are indented */
	enum opt_kind	kind;
	size_t		field;	/* offsetof(struct cfctl_opts, ...) */
	/* A bad argument is "invalid NOUN 'ARG': expected EXPECT". */
	const char	*noun;
	const char	*expect; /* KIND_UINT: instead of "MIN to MAX UNIT" */
	unsigned int	min, max;
	const char	*unit;
	int		(*parse)(const char *arg, void *field); /* 0 or -1 */
};

#define FIELD(name)	offsetof(struct cfctl_opts, name)

static int parse_source(const char *arg, void *field)
{
	if (!source_name_ok(arg))
		return -1;
	*(const char **)field = arg;
	return 0;
}

static int parse_timeout(const char *arg, void *field)
{
	return timeout_parse_long(arg, field);
}

static int parse_epoch(const char *arg, void *field)
{
	return epoch_parse(arg, field);
}

static int parse_format(const char *arg, void *field)
{
	enum cf_format *format = field;

	if (!strcmp(arg, "text"))
		*format = CF_FORMAT_TEXT;
	else if (!strcmp(arg, "prometheus"))
		*format = CF_FORMAT_PROMETHEUS;
	else
		return -1;
	return 0;
}

static int parse_mode(const char *arg, void *field)
{
	enum cf_xdp_mode *mode = field;

	if (!strcmp(arg, "native"))
		*mode = CF_XDP_NATIVE;
	else if (!strcmp(arg, "generic"))
		*mode = CF_XDP_GENERIC;
	else if (!strcmp(arg, "tc"))
		*mode = CF_TC;
	else
		return -1;
	return 0;
}

static const struct cf_option options[] = {
	{ .lo = { "help", no_argument, NULL, 'h' },
	  .kind = KIND_HELP,
	  .usage = "-h, --help", .help = "show this help" },
	{ .lo = { "verbose", no_argument, NULL, 'v' },
	  .kind = KIND_FLAG, .field = FIELD(verbose),
	  .usage = "-v, --verbose",
	  .help = "show libbpf's and libxdp's messages (attach, detach)" },
	{ .lo = { "mode", required_argument, NULL, 'm' }, .only = OPT_MODE,
	  .kind = KIND_PARSE, .field = FIELD(mode), .parse = parse_mode,
	  .noun = "mode", .expect = "native, generic or tc",
	  .usage = "-m, --mode MODE",
	  .help = "native: in the driver; generic: in the network stack\n"
	  "(any interface, slower); tc: a TC filter on clsact\n"
	  "ingress, for links without native XDP; default:\n"
	  "native if the driver supports it. The mode obtained\n"
	  "is printed." },
	{ .lo = { "dry-run", no_argument, NULL, 'n' }, .only = OPT_DRY_RUN,
	  .kind = KIND_FLAG, .field = FIELD(dry_run),
	  .usage = "-n, --dry-run",
	  .help = "check the input, the device and the permissions;\n"
	  "print what would be done, change nothing, and exit\n"
	  "as the command would" },
	{ .lo = { "json", no_argument, NULL, 'j' }, .only = OPT_JSON,
	  .kind = KIND_FLAG, .field = FIELD(json),
	  .usage = "-j, --json", .help = "print one JSON document instead of text" },
	{ .lo = { "quiet", no_argument, NULL, 'q' }, .only = OPT_QUIET,
	  .kind = KIND_FLAG, .field = FIELD(quiet),
	  .usage = "-q, --quiet",
	  .help = "print nothing on stdout (errors still go to\n"
	  "stderr): the exit status is the answer" },
	{ .lo = { "source", required_argument, NULL, 's' }, .only = OPT_SOURCE,
	  .kind = KIND_PARSE, .field = FIELD(source), .parse = parse_source,
	  .noun = "source", .expect = SOURCE_RULE,
	  .usage = "-s, --source NAME",
	  .help = "the holdings of source NAME (1 to 31 characters of\n"
	  "A-Z a-z 0-9 _ . : @ -, not starting with -); without\n"
	  "it: add, allow, del, load and replace use \"default\",\n"
	  "test, list and save every source" },
	{ .lo = { "timeout", required_argument, NULL, 't' }, .only = OPT_TIMEOUT,
	  .kind = KIND_PARSE, .field = FIELD(timeout_long),
	  .parse = parse_timeout, .noun = "timeout", .expect = TIMEOUT_RULE,
	  .usage = "-t, --timeout SECS",
	  .help = "the holding expires after SECS seconds (0 to\n"
	  "2147483647; 0, the default: never); load, replace:\n"
	  "for lines without timeout or expires of their own" },
	{ .lo = { "from", required_argument, NULL, LOPT_FROM }, .only = OPT_FROM,
	  .kind = KIND_PARSE, .field = FIELD(from_ns), .parse = parse_epoch,
	  .noun = "time", .expect = EPOCH_RULE,
	  .usage = "--from TIME",
	  .help = "-t counts from TIME, seconds since the epoch\n"
	  "(fractions allowed, as fail2ban's <time>), instead\n"
	  "of from now: the holding ends at TIME + SECS" },
	{ .lo = { "cap-timeout", no_argument, NULL, LOPT_CAP_TIMEOUT },
	  .only = OPT_CAP_TIMEOUT,
	  .kind = KIND_FLAG, .field = FIELD(cap_timeout),
	  .usage = "--cap-timeout",
	  .help = "a -t longer than 2147483647 s (68 years), or\n"
	  "ending later than that from now with --from, holds\n"
	  "for 2147483647 s, with a note, instead of being\n"
	  "refused: for callers whose times grow unbounded\n"
	  "(fail2ban's bantime.increment)" },
	{ .lo = { "all-sources", no_argument, NULL, 'a' }, .only = OPT_ALL_SOURCES,
	  .kind = KIND_FLAG, .field = FIELD(all_sources),
	  .usage = "-a, --all-sources",
	  .help = "del: remove the holding of every source; list:\n"
	  "every source's holdings, as without -s" },
	{ .lo = { "exact", no_argument, NULL, LOPT_EXACT }, .only = OPT_EXACT,
	  .kind = KIND_FLAG, .field = FIELD(exact),
	  .usage = "--exact",
	  .help = "test: whether this very entry is stored, not\n"
	  "whether a stored entry covers it" },
	{ .lo = { "skip-bad", no_argument, NULL, LOPT_SKIP_BAD }, .only = OPT_SKIP_BAD,
	  .kind = KIND_FLAG, .field = FIELD(skip_bad),
	  .usage = "--skip-bad", .help = "report malformed lines and load the others" },
	{ .lo = { "normalize", no_argument, NULL, LOPT_NORMALIZE }, .only = OPT_NORMALIZE,
	  .kind = KIND_FLAG, .field = FIELD(normalize),
	  .usage = "--normalize",
	  .help = "mask the host bits of a prefix such as 192.0.2.7/24\n"
	  "(to 192.0.2.0/24) instead of refusing the line" },
	{ .lo = { "nomatch-allows", no_argument, NULL, LOPT_NOMATCH_ALLOWS },
	  .only = OPT_NOMATCH,
	  .kind = KIND_FLAG, .field = FIELD(nomatch_allows),
	  .usage = "--nomatch-allows",
	  .help = "load ipset's nomatch entries as allow entries, which\n"
	  "beat every source's entries (ipset's exception holds\n"
	  "inside its own set alone); without it they are\n"
	  "refused" },
	{ .lo = { "force", no_argument, NULL, LOPT_FORCE }, .only = OPT_FORCE,
	  .kind = KIND_FLAG, .field = FIELD(force),
	  .usage = "--force",
	  .help = "replace another tool's XDP program on IFACE, in one\n"
	  "step and in its mode" },
	{ .lo = { "priority", required_argument, NULL, LOPT_PRIORITY },
	  .only = OPT_PRIORITY,
	  .kind = KIND_UINT, .field = FIELD(priority),
	  .noun = "priority", .min = 0, .max = INT_MAX,
	  .usage = "--priority N",
	  .help = "where IFACE runs libxdp's dispatcher: run before the\n"
	  "programs of a higher N (0-2147483647; default 10,\n"
	  "or the replaced program's)" },
	{ .lo = { "match-dst", no_argument, NULL, LOPT_MATCH_DST }, .only = OPT_MATCH_DST,
	  .kind = KIND_FLAG, .field = FIELD(match_dst),
	  .usage = "--match-dst",
	  .help = "match destination entries (dst ADDR) too; without\n"
	  "it they are stored but match no packet" },
	{ .lo = { "watch", no_argument, NULL, LOPT_WATCH }, .only = OPT_WATCH,
	  .kind = KIND_FLAG, .field = FIELD(watch),
	  .usage = "--watch",
	  .help = "print packets per second per counter, one line per\n"
	  "interval, until interrupted (Ctrl-C exits 0)" },
	{ .lo = { "format", required_argument, NULL, LOPT_FORMAT }, .only = OPT_FORMAT,
	  .kind = KIND_PARSE, .field = FIELD(format), .parse = parse_format,
	  .noun = "format", .expect = "text or prometheus",
	  .usage = "--format FORMAT",
	  .help = "text (the default) or prometheus: Prometheus' text\n"
	  "exposition format, for a scraper" },
	{ .lo = { "textfile", required_argument, NULL, LOPT_TEXTFILE }, .only = OPT_FORMAT,
	  .kind = KIND_STRING, .field = FIELD(textfile),
	  .usage = "--textfile PATH",
	  .help = "write the prometheus format to PATH instead of\n"
	  "stdout, atomically (a new file renamed over it),\n"
	  "for node_exporter's textfile collector" },
	{ .lo = { "interval", required_argument, NULL, 'i' }, .only = OPT_WATCH | OPT_TOP,
	  .kind = KIND_UINT, .field = FIELD(interval),
	  .noun = "interval", .min = 1, .max = 3600, .unit = " seconds",
	  .usage = "-i, --interval SECS",
	  .help = "--watch: seconds per line; top: per view (1-3600,\n"
	  "default 1)" },
	{ .lo = { "count", required_argument, NULL, LOPT_COUNT }, .only = OPT_WATCH | OPT_LOG,
	  .kind = KIND_UINT, .field = FIELD(count),
	  .noun = "count", .min = 1, .max = UINT_MAX, .expect = "a positive number",
	  .usage = "--count N",
	  .help = "--watch: stop after N lines; log: after N events\n"
	  "shown; top: after N events kept (then a last view)" },
	{ .lo = { "iface", required_argument, NULL, LOPT_IFACE }, .only = OPT_LOG,
	  .kind = KIND_STRING, .field = FIELD(iface),
	  .usage = "--iface IF", .help = "only the drops on interface IF" },
	{ .lo = { "rate", required_argument, NULL, LOPT_RATE }, .only = OPT_LOG,
	  .kind = KIND_UINT, .field = FIELD(rate), .noun = "rate",
	  .min = 1, .max = LOG_RATE_MAX, .unit = " events per second per CPU",
	  .usage = "--rate N",
	  .help = "the programs send at most N events per second per\n"
	  "CPU (1-1000000), for every reader, until changed;\n"
	  "without it: the limit in force while another reader\n"
	  "runs, else 100" },
	{ .lo = { "duration", required_argument, NULL, LOPT_DURATION }, .only = OPT_DURATION,
	  .kind = KIND_UINT, .field = FIELD(duration),
	  .noun = "duration", .min = 1, .max = INT_MAX, .unit = " seconds",
	  .usage = "--duration SECS", .help = "stop after SECS seconds (1-2147483647)" },
	{ .lo = { "window", required_argument, NULL, 'w' }, .only = OPT_TOP,
	  .kind = KIND_UINT, .field = FIELD(window),
	  .noun = "window", .min = 1, .max = 3600, .unit = " seconds",
	  .usage = "-w, --window SECS",
	  .help = "rank the drops of the last SECS seconds (1-3600,\n"
	  "default 10)" },
	{ .lo = { "rows", required_argument, NULL, LOPT_ROWS }, .only = OPT_TOP,
	  .kind = KIND_UINT, .field = FIELD(rows),
	  .noun = "rows", .min = 1, .max = 1000,
	  .usage = "--rows N", .help = "lines per table (1-1000, default 10)" },
	{ .lo = { "once", no_argument, NULL, LOPT_ONCE }, .only = OPT_TOP,
	  .kind = KIND_FLAG, .field = FIELD(once),
	  .usage = "--once",
	  .help = "listen for one window (or until --count events, or\n"
	  "SIGINT), print one view and exit: for scripts" },
	{ .lo = { "types", required_argument, NULL, LOPT_TYPES }, .only = OPT_TYPES,
	  .kind = KIND_STRING, .field = FIELD(types),
	  .usage = "--types LIST",
	  .help = "the CrowdSec decision types that ban, separated by\n"
	  "commas (default: ban; ban,captcha,throttle bans\n"
	  "those too); others are skipped, and said so" },
};

#define NOPTIONS	ARRAY_SIZE(options)

/* Prints @opt's help: its lines, the first after its usage, the others under it. */
static void option_help(FILE *out, const struct cf_option *opt)
{
	const char *text = opt->help, *nl;

	/* A long one gets the help on lines of its own. */
	if (strlen(opt->usage) > 18)
		fprintf(out, "  %s\n%21s", opt->usage, "");
	else
		fprintf(out, "  %-18s ", opt->usage);
	while ((nl = strchr(text, '\n'))) {
		fprintf(out, "%.*s\n%21s", (int)(nl - text), text, "");
		text = nl + 1;
	}
	fprintf(out, "%s\n", text);
}

/* Whether a verb that takes the OPT_* bits @opts takes @opt. */
static bool takes(unsigned int opts, const struct cf_option *opt)
{
	return !opt->only || (opt->only & opts);
}

void options_help(FILE *out, unsigned int opts)
{
	unsigned int i;

	for (i = 0; i < NOPTIONS; i++)
		if (takes(opts, &options[i]))
			option_help(out, &options[i]);
}

static void verb_usage(const struct verb *v, FILE *out)
{
	fprintf(out, "Usage: cfctl %s%s%s\n%c%s.\n", v->name,
		*v->synopsis ? " " : "", v->synopsis,
		toupper((unsigned char)v->summary[0]), v->summary + 1);
	if (v->help)
		fprintf(out, "%s", v->help);
	fprintf(out, "Options:\n");
	options_help(out, v->opts);
	fprintf(out, "Run cfctl --help for the exit statuses.\n");
}

/* After a usage error: the verb's synopsis and where to read more. */
static void verb_hint(const struct verb *v)
{
	fprintf(stderr, "Usage: cfctl %s%s%s (cfctl %s --help for more)\n",
		v->name, *v->synopsis ? " " : "", v->synopsis, v->name);
}

/* The verbs that take @opt, for "only ... take it" messages. */
static void verbs_taking(unsigned int opt, char *buf, size_t len)
{
	const char *sep = "";
	unsigned int i;
	int n;

	*buf = '\0';
	for (i = 0; i < nverbs && len > 1; i++) {
		if (!(verbs[i].opts & opt))
			continue;
		n = snprintf(buf, len, "%s%s", sep, verbs[i].name);
		if (n < 0 || (size_t)n >= len)
			break;
		buf += n;
		len -= n;
		sep = ", ";
	}
}

/* The option getopt_long() refused, if another verb takes it. */
static const struct cf_option *other_verbs_option(const char *arg)
{
	unsigned int i;
	size_t len;

	for (i = 0; i < NOPTIONS; i++) {
		const struct option *lo = &options[i].lo;

		if (!options[i].only)
			continue;
		if (optopt && optopt == lo->val)
			return &options[i];
		if (optopt || strncmp(arg, "--", 2))
			continue;
		len = strcspn(arg + 2, "=");
		if (len == strlen(lo->name) && !strncmp(arg + 2, lo->name, len))
			return &options[i];
	}
	return NULL;
}

/* Names the option getopt_long() refused: a short one, or a long one. */
static void bad_option(const struct verb *v, char *const argv[])
{
	const struct cf_option *opt = other_verbs_option(argv[optind - 1]);
	char which[128];

	if (opt) {
		verbs_taking(opt->only, which, sizeof(which));
		cf_err("%s: %s applies only to %s", v->name, opt->usage, which);
	} else if (optopt && optopt < LOPT_SKIP_BAD) {
		cf_err("%s: unknown option '-%c'", v->name, optopt);
	} else {
		cf_err("%s: unknown option '%s'", v->name, argv[optind - 1]);
	}
	verb_hint(v);
}

/* Parses all of @s as a decimal number in [@min, @max]. Returns 0 or -1. */
static int parse_uint(const char *s, unsigned int min, unsigned int max,
		      unsigned int *v)
{
	unsigned long n;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || n < min || n > max)
		return -1;
	*v = n;
	return 0;
}

/*
 * Fills @opt's field from @arg, as its kind says. Returns 0, or CF_USAGE
 * after naming the bad argument.
 */
static int take_option(const struct verb *v, const struct cf_option *opt,
		       const char *arg, struct cfctl_opts *o)
{
	void *field = (char *)o + opt->field;
	const char *expect = opt->expect;
	char bounds[64];

	switch (opt->kind) {
	case KIND_HELP:
		break;
	case KIND_FLAG:
		*(bool *)field = true;
		return 0;
	case KIND_STRING:
		*(const char **)field = arg;
		return 0;
	case KIND_UINT:
		if (!parse_uint(arg, opt->min, opt->max, field))
			return 0;
		if (!expect) {
			snprintf(bounds, sizeof(bounds), "%u to %u%s", opt->min,
				 opt->max, opt->unit ? opt->unit : "");
			expect = bounds;
		}
		break;
	case KIND_PARSE:
		if (!opt->parse(arg, field))
			return 0;
		break;
	}
	cf_err("%s: invalid %s '%s': expected %s", v->name, opt->noun, arg,
	       expect);
	return CF_USAGE;
}

/* The entry of getopt value @val. */
static const struct cf_option *option_of(int val)
{
	unsigned int i;

	for (i = 0; i < NOPTIONS; i++)
		if (options[i].lo.val == val)
			return &options[i];
	return NULL;
}

/*
 * getopt_long()'s tables for @v: the options it takes. @shorts has room for
 * ":" and "x:" per option; @longs for every option and the terminator.
 */
static void verb_getopt(const struct verb *v, char *shorts,
			struct option *longs)
{
	unsigned int i;

	*shorts++ = ':';	/* a missing argument is ':', not '?' */
	for (i = 0; i < NOPTIONS; i++) {
		const struct option *lo = &options[i].lo;

		if (!takes(v->opts, &options[i]))
			continue;
		*longs++ = *lo;
		if (lo->val >= LOPT_SKIP_BAD)
			continue;
		*shorts++ = lo->val;
		if (lo->has_arg == required_argument)
			*shorts++ = ':';
	}
	*shorts = '\0';
	memset(longs, 0, sizeof(*longs));
}

/*
 * Walks the verb's options (argv[0] is the verb), filling @o and @given:
 * the argument last given to each option, NULL for those not given.
 * Returns -1 to go on, or the exit status to end with.
 */
static int walk_options(const struct verb *v, int argc, char *argv[],
			struct cfctl_opts *o, const char *given[])
{
	struct option longs[NOPTIONS + 1];
	char shorts[1 + 2 * NOPTIONS + 1];
	const struct cf_option *opt;
	int c;

	verb_getopt(v, shorts, longs);
	/* glibc: 0 re-initialises, dropping the global parse's "+" mode. */
	optind = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		if (c == ':') {
			cf_err("%s: option '%s' needs an argument", v->name,
			       argv[optind - 1]);
			verb_hint(v);
			return CF_USAGE;
		}
		opt = option_of(c);
		if (!opt) {
			bad_option(v, argv);
			return CF_USAGE;
		}
		if (opt->kind == KIND_HELP) {
			verb_usage(v, stdout);
			return CF_OK;
		}
		if (take_option(v, opt, optarg, o))
			return CF_USAGE;
		given[opt - options] = optarg ? optarg : "";
	}
	/* --priority 0 is a priority: whether it was given is kept apart. */
	o->priority_set = given[option_of(LOPT_PRIORITY) - options] != NULL;
	return -1;
}

/* -t past the longest timeout: refused, or held that long. */
static int settle_timeout(const struct verb *v, struct cfctl_opts *o,
			const char *given[])
{
	if (o->timeout_long > CFILTER_TIMEOUT_MAX && !o->cap_timeout) {
		cf_err("%s: invalid timeout '%s': expected %s%s", v->name,
		       given[option_of('t') - options], TIMEOUT_RULE,
		       v->opts & OPT_CAP_TIMEOUT ?
		       " (--cap-timeout: hold a longer one that long)" : "");
		return CF_USAGE;
	}
	o->timeout = o->timeout_long > CFILTER_TIMEOUT_MAX ?
		     CFILTER_TIMEOUT_MAX : o->timeout_long;
	return -1;
}

/* Options that exclude or need each other. */
static int check_together(const struct verb *v, const struct cfctl_opts *o)
{
	if (o->all_sources && o->source) {
		cf_err("%s: -a (every source) and -s %s (one source): give one",
		       v->name, o->source);
		return CF_USAGE;
	}
	if ((v->opts & OPT_WATCH) && (o->interval || o->count) && !o->watch) {
		cf_err("%s: -i and --count apply only with --watch", v->name);
		return CF_USAGE;
	}
	if (o->once && o->interval) {
		cf_err("%s: -i refreshes the view, --once prints one: give one",
		       v->name);
		return CF_USAGE;
	}
	if (o->textfile && o->format != CF_FORMAT_PROMETHEUS) {
		cf_err("%s: --textfile writes the prometheus format: add --format prometheus",
		       v->name);
		return CF_USAGE;
	}
	if (o->format == CF_FORMAT_PROMETHEUS && (o->json || o->watch)) {
		cf_err("%s: --format prometheus is one format, %s another: give one",
		       v->name, o->json ? "-j" : "--watch");
		return CF_USAGE;
	}
	return -1;
}

/* -j and -q, which cfctl takes before the verb too. */
static int check_output(const struct verb *v, const struct cfctl_opts *o)
{
	char which[128];

	/* -j before the verb: not caught by the verb's own options. */
	if (o->json && !(v->opts & OPT_JSON)) {
		verbs_taking(OPT_JSON, which, sizeof(which));
		cf_err("%s: -j, --json applies only to %s", v->name, which);
		return CF_USAGE;
	}
	if (o->quiet && !(v->opts & OPT_QUIET)) {
		verbs_taking(OPT_QUIET, which, sizeof(which));
		cf_err("%s: -q, --quiet applies only to %s", v->name, which);
		return CF_USAGE;
	}
	if (o->quiet && o->json) {
		cf_err("%s: -q prints nothing, -j a JSON document: give one",
		       v->name);
		return CF_USAGE;
	}
	return -1;
}

/* What a verb's options are when not given. */
static void set_defaults(struct cfctl_opts *o)
{
	if (!o->interval)
		o->interval = 1;
	if (!o->window)
		o->window = 10;
	if (!o->rows)
		o->rows = 10;
}

/* The verb's argument, or its ENTRY's words, after the options. */
static int take_args(const struct verb *v, int argc, char *argv[],
		     struct cfctl_opts *o)
{
	if (v->arg && optind < argc) {
		o->arg = argv[optind++];
	} else if (v->arg && !v->arg_optional) {
		cf_err("%s: missing %s", v->name, v->arg);
		verb_hint(v);
		return CF_USAGE;
	}
	if (v->entry) {
		o->words = argv + optind - 1;
		o->nwords = argc - optind + 1;
		optind = argc;
	}
	if (optind < argc) {
		cf_err("%s: unexpected argument '%s'", v->name, argv[optind]);
		verb_hint(v);
		return CF_USAGE;
	}
	return -1;
}

int parse_verb(const struct verb *v, int argc, char *argv[],
	       struct cfctl_opts *o)
{
	const char *given[NOPTIONS] = { NULL };
	int ret;

	ret = walk_options(v, argc, argv, o, given);
	if (ret < 0)
		ret = settle_timeout(v, o, given);
	/* Before the defaults: -i and --count only with --watch. */
	if (ret < 0)
		ret = check_together(v, o);
	if (ret >= 0)
		return ret;
	set_defaults(o);
	ret = check_output(v, o);
	if (ret < 0)
		ret = take_args(v, argc, argv, o);
	return ret;
}
