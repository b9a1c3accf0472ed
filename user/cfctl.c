// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl: manage cfilter's filters of blocked sources, destinations and
 * flows and of allowed sources (through /dev/cfilter) and its XDP program (through libbpf).
 *
 * This is the engine: the options, the help, the parsing of the command
 * line and main(). The verbs are one table (verbs.c); each has its own
 * do_<verb>() taking the parsed options. See usage() or `cfctl --help`
 * for the exit statuses.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfctl.h"
#include "source.h"
#include "verbs.h"

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
};

/* Every option of every verb, in the order help lists them. */
struct cf_option {
	struct option	lo;
	unsigned int	only;	/* the OPT_* bit of the verbs that take it; 0: all */
	const char	*usage;
	const char	*help;	/* lines after the first are indented */
};

static const struct cf_option options[] = {
	{ { "help", no_argument, NULL, 'h' }, 0,
	  "-h, --help", "show this help" },
	{ { "verbose", no_argument, NULL, 'v' }, 0,
	  "-v, --verbose", "show libbpf's and libxdp's messages (attach, detach)" },
	{ { "mode", required_argument, NULL, 'm' }, OPT_MODE,
	  "-m, --mode MODE", "native: in the driver; generic: in the network stack\n"
	  "(any interface, slower); tc: a TC filter on clsact\n"
	  "ingress, for links without native XDP; default:\n"
	  "native if the driver supports it. The mode obtained\n"
	  "is printed." },
	{ { "dry-run", no_argument, NULL, 'n' }, OPT_DRY_RUN,
	  "-n, --dry-run", "check the input, the device and the permissions;\n"
	  "print what would be done, change nothing, and exit\n"
	  "as the command would" },
	{ { "json", no_argument, NULL, 'j' }, OPT_JSON,
	  "-j, --json", "print one JSON document instead of text" },
	{ { "quiet", no_argument, NULL, 'q' }, OPT_QUIET,
	  "-q, --quiet", "print nothing on stdout (errors still go to\n"
	  "stderr): the exit status is the answer" },
	{ { "source", required_argument, NULL, 's' }, OPT_SOURCE,
	  "-s, --source NAME", "the holdings of source NAME (1 to 31 characters of\n"
	  "A-Z a-z 0-9 _ . : @ -, not starting with -); without\n"
	  "it: add, allow, del, load and replace use \"default\",\n"
	  "test, list and save every source" },
	{ { "timeout", required_argument, NULL, 't' }, OPT_TIMEOUT,
	  "-t, --timeout SECS", "the holding expires after SECS seconds (0 to\n"
	  "2147483647; 0, the default: never); load, replace:\n"
	  "for lines without timeout or expires of their own" },
	{ { "from", required_argument, NULL, LOPT_FROM }, OPT_FROM,
	  "--from TIME", "-t counts from TIME, seconds since the epoch\n"
	  "(fractions allowed, as fail2ban's <time>), instead\n"
	  "of from now: the holding ends at TIME + SECS" },
	{ { "cap-timeout", no_argument, NULL, LOPT_CAP_TIMEOUT }, OPT_CAP_TIMEOUT,
	  "--cap-timeout", "a -t longer than 2147483647 s (68 years), or\n"
	  "ending later than that from now with --from, holds\n"
	  "for 2147483647 s, with a note, instead of being\n"
	  "refused: for callers whose times grow unbounded\n"
	  "(fail2ban's bantime.increment)" },
	{ { "all-sources", no_argument, NULL, 'a' }, OPT_ALL_SOURCES,
	  "-a, --all-sources", "del: remove the holding of every source; list:\n"
	  "every source's holdings, as without -s" },
	{ { "exact", no_argument, NULL, LOPT_EXACT }, OPT_EXACT,
	  "--exact", "test: whether this very entry is stored, not\n"
	  "whether a stored entry covers it" },
	{ { "skip-bad", no_argument, NULL, LOPT_SKIP_BAD }, OPT_SKIP_BAD,
	  "--skip-bad", "report malformed lines and load the others" },
	{ { "normalize", no_argument, NULL, LOPT_NORMALIZE }, OPT_NORMALIZE,
	  "--normalize", "mask the host bits of a prefix such as 192.0.2.7/24\n"
	  "(to 192.0.2.0/24) instead of refusing the line" },
	{ { "nomatch-allows", no_argument, NULL, LOPT_NOMATCH_ALLOWS }, OPT_NOMATCH,
	  "--nomatch-allows", "load ipset's nomatch entries as allow entries, which\n"
	  "beat every source's entries (ipset's exception holds\n"
	  "inside its own set alone); without it they are\n"
	  "refused" },
	{ { "force", no_argument, NULL, LOPT_FORCE }, OPT_FORCE,
	  "--force", "replace another tool's XDP program on IFACE, in one\n"
	  "step and in its mode" },
	{ { "priority", required_argument, NULL, LOPT_PRIORITY }, OPT_PRIORITY,
	  "--priority N", "where IFACE runs libxdp's dispatcher: run before the\n"
	  "programs of a higher N (0-2147483647; default 10,\n"
	  "or the replaced program's)" },
	{ { "match-dst", no_argument, NULL, LOPT_MATCH_DST }, OPT_MATCH_DST,
	  "--match-dst", "match destination entries (dst ADDR) too; without\n"
	  "it they are stored but match no packet" },
	{ { "watch", no_argument, NULL, LOPT_WATCH }, OPT_WATCH,
	  "--watch", "print packets per second per counter, one line per\n"
	  "interval, until interrupted (Ctrl-C exits 0)" },
	{ { "format", required_argument, NULL, LOPT_FORMAT }, OPT_FORMAT,
	  "--format FORMAT", "text (the default) or prometheus: Prometheus' text\n"
	  "exposition format, for a scraper" },
	{ { "textfile", required_argument, NULL, LOPT_TEXTFILE }, OPT_FORMAT,
	  "--textfile PATH", "write the prometheus format to PATH instead of\n"
	  "stdout, atomically (a new file renamed over it),\n"
	  "for node_exporter's textfile collector" },
	{ { "interval", required_argument, NULL, 'i' }, OPT_WATCH,
	  "-i, --interval SECS", "--watch: seconds per line (1-3600, default 1)" },
	{ { "count", required_argument, NULL, LOPT_COUNT }, OPT_WATCH,
	  "--count N", "--watch: stop after N lines" },
	{ { "types", required_argument, NULL, LOPT_TYPES }, OPT_TYPES,
	  "--types LIST", "the CrowdSec decision types that ban, separated by\n"
	  "commas (default: ban; ban,captcha,throttle bans\n"
	  "those too); others are skipped, and said so" },
};

/* cfctl's own options, before the command. */
static const struct option global_opts[] = {
	{ "help",	no_argument,	NULL, 'h' },
	{ "verbose",	no_argument,	NULL, 'v' },
	{ "json",	no_argument,	NULL, 'j' },
	{ "quiet",	no_argument,	NULL, 'q' },
	{ "version",	no_argument,	NULL, 'V' },
	{ }
};

/* Prints @text's lines, the first after @usage, the others under it. */
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

static void usage(FILE *out)
{
	unsigned int i;

	fprintf(out, "Usage: cfctl [-v] [-j|-q] COMMAND [OPTIONS] [ARGS]\n"
		"       cfctl -V|--version\n"
		"Manage cfilter's filters (blocked sources, destinations and flows, and\n"
		"allowed sources) and its XDP program.\n\n"
		"Commands:\n");
	for (i = 0; i < nverbs; i++) {
		/* A long synopsis gets the summary on a line of its own. */
		if (strlen(verbs[i].synopsis) > 30)
			fprintf(out, "  %-8s %s\n  %-39s %s\n", verbs[i].name,
				verbs[i].synopsis, "", verbs[i].summary);
		else
			fprintf(out, "  %-8s %-30s %s\n", verbs[i].name,
				verbs[i].synopsis, verbs[i].summary);
	}
	fprintf(out, "\nOptions:\n");
	for (i = 0; i < ARRAY_SIZE(options); i++)
		option_help(out, &options[i]);
	fprintf(out, "  %-18s %s\n", "-V, --version",
		"print cfctl's version and the loaded module's");
	fprintf(out, "-j and -q before the command work as after it. cfctl COMMAND --help\n"
		"shows a command's own options.\n\n"
		"Exit status: 0 success (test: blocked; match: dropped), 1 not blocked\n"
		"(test), not present (del) or passed (match),\n"
		"2 usage error or malformed input, 3 system error (module not loaded,\n"
		"permission denied, filter full, list in compact mode, ...).\n");
}

static void verb_usage(const struct verb *v, FILE *out)
{
	unsigned int i;

	fprintf(out, "Usage: cfctl %s%s%s\n%c%s.\n", v->name,
		*v->synopsis ? " " : "", v->synopsis,
		toupper((unsigned char)v->summary[0]), v->summary + 1);
	if (v->help)
		fprintf(out, "%s", v->help);
	fprintf(out, "Options:\n");
	for (i = 0; i < ARRAY_SIZE(options); i++)
		if (!options[i].only || (options[i].only & v->opts))
			option_help(out, &options[i]);
	fprintf(out, "Run cfctl --help for the exit statuses.\n");
}

/* After a usage error: the verb's synopsis and where to read more. */
static void verb_hint(const struct verb *v)
{
	fprintf(stderr, "Usage: cfctl %s%s%s (cfctl %s --help for more)\n",
		v->name, *v->synopsis ? " " : "", v->synopsis, v->name);
}

/* After a usage error before any command. */
static void hint(void)
{
	fprintf(stderr, "Usage: cfctl [-v] [-j|-q] COMMAND [OPTIONS] [ARGS] (cfctl --help for the commands)\n");
}

static const struct verb *find_verb(const char *name)
{
	unsigned int i;

	for (i = 0; i < nverbs; i++)
		if (!strcmp(verbs[i].name, name))
			return &verbs[i];
	return NULL;
}

static int parse_mode(const char *s, enum cf_xdp_mode *mode)
{
	if (!strcmp(s, "native"))
		*mode = CF_XDP_NATIVE;
	else if (!strcmp(s, "generic"))
		*mode = CF_XDP_GENERIC;
	else if (!strcmp(s, "tc"))
		*mode = CF_TC;
	else
		return -EINVAL;
	return 0;
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

	for (i = 0; i < ARRAY_SIZE(options); i++) {
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
 * getopt_long()'s tables for @v: the options it takes. @shorts has room for
 * ":" and "x:" per option; @longs for every option and the terminator.
 */
static void verb_getopt(const struct verb *v, char *shorts,
			struct option *longs)
{
	unsigned int i;

	*shorts++ = ':';	/* a missing argument is ':', not '?' */
	for (i = 0; i < ARRAY_SIZE(options); i++) {
		const struct option *lo = &options[i].lo;

		if (options[i].only && !(options[i].only & v->opts))
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
 * Parses the verb's options and argument (argv[0] is the verb). Returns -1
 * to run the verb, or the exit status to end with.
 */
static int parse_verb(const struct verb *v, int argc, char *argv[],
		      struct cfctl_opts *o)
{
	struct option longs[ARRAY_SIZE(options) + 1];
	char shorts[1 + 2 * ARRAY_SIZE(options) + 1];
	const char *timeout_arg = NULL;
	char which[128];
	int c;

	verb_getopt(v, shorts, longs);
	/* glibc: 0 re-initialises, dropping the global parse's "+" mode. */
	optind = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		switch (c) {
		case 'h':
			verb_usage(v, stdout);
			return CF_OK;
		case 'v':
			o->verbose = true;
			break;
		case 'n':
			o->dry_run = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case LOPT_EXACT:
			o->exact = true;
			break;
		case 's':
			if (!source_name_ok(optarg)) {
				cf_err("%s: invalid source '%s': expected %s",
				       v->name, optarg, SOURCE_RULE);
				return CF_USAGE;
			}
			o->source = optarg;
			break;
		case 't':
			if (timeout_parse_long(optarg, &o->timeout_long)) {
				cf_err("%s: invalid timeout '%s': expected %s",
				       v->name, optarg, TIMEOUT_RULE);
				return CF_USAGE;
			}
			timeout_arg = optarg;
			break;
		case LOPT_NOMATCH_ALLOWS:
			o->nomatch_allows = true;
			break;
		case LOPT_CAP_TIMEOUT:
			o->cap_timeout = true;
			break;
		case LOPT_FROM:
			if (epoch_parse(optarg, &o->from_ns)) {
				cf_err("%s: invalid time '%s': expected %s",
				       v->name, optarg, EPOCH_RULE);
				return CF_USAGE;
			}
			break;
		case 'a':
			o->all_sources = true;
			break;
		case LOPT_SKIP_BAD:
			o->skip_bad = true;
			break;
		case LOPT_NORMALIZE:
			o->normalize = true;
			break;
		case LOPT_MATCH_DST:
			o->match_dst = true;
			break;
		case LOPT_FORCE:
			o->force = true;
			break;
		case LOPT_WATCH:
			o->watch = true;
			break;
		case LOPT_FORMAT:
			if (!strcmp(optarg, "text")) {
				o->format = CF_FORMAT_TEXT;
			} else if (!strcmp(optarg, "prometheus")) {
				o->format = CF_FORMAT_PROMETHEUS;
			} else {
				cf_err("%s: invalid format '%s': expected text or prometheus",
				       v->name, optarg);
				return CF_USAGE;
			}
			break;
		case LOPT_TEXTFILE:
			o->textfile = optarg;
			break;
		case LOPT_TYPES:
			o->types = optarg;
			break;
		case LOPT_PRIORITY:
			if (parse_uint(optarg, 0, INT_MAX, &o->priority)) {
				cf_err("%s: invalid priority '%s': expected 0 to %d",
				       v->name, optarg, INT_MAX);
				return CF_USAGE;
			}
			o->priority_set = true;
			break;
		case 'i':
			if (parse_uint(optarg, 1, 3600, &o->interval)) {
				cf_err("%s: invalid interval '%s': expected 1 to 3600 seconds",
				       v->name, optarg);
				return CF_USAGE;
			}
			break;
		case LOPT_COUNT:
			if (parse_uint(optarg, 1, UINT_MAX, &o->count)) {
				cf_err("%s: invalid count '%s': expected a positive number",
				       v->name, optarg);
				return CF_USAGE;
			}
			break;
		case 'm':
			if (parse_mode(optarg, &o->mode)) {
				cf_err("%s: invalid mode '%s': expected native, generic or tc",
				       v->name, optarg);
				return CF_USAGE;
			}
			break;
		case ':':
			cf_err("%s: option '%s' needs an argument", v->name,
			       argv[optind - 1]);
			verb_hint(v);
			return CF_USAGE;
		default:
			bad_option(v, argv);
			return CF_USAGE;
		}
	}

	if (o->timeout_long > CFILTER_TIMEOUT_MAX && !o->cap_timeout) {
		cf_err("%s: invalid timeout '%s': expected %s%s", v->name,
		       timeout_arg, TIMEOUT_RULE, v->opts & OPT_CAP_TIMEOUT ?
		       " (--cap-timeout: hold a longer one that long)" : "");
		return CF_USAGE;
	}
	o->timeout = o->timeout_long > CFILTER_TIMEOUT_MAX ?
		     CFILTER_TIMEOUT_MAX : o->timeout_long;
	if (o->all_sources && o->source) {
		cf_err("%s: -a (every source) and -s %s (one source): give one",
		       v->name, o->source);
		return CF_USAGE;
	}
	if ((o->interval || o->count) && !o->watch) {
		cf_err("%s: -i and --count apply only with --watch", v->name);
		return CF_USAGE;
	}
	if (!o->interval)
		o->interval = 1;
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
	if (v->arg) {
		if (optind == argc) {
			cf_err("%s: missing %s", v->name, v->arg);
			verb_hint(v);
			return CF_USAGE;
		}
		o->arg = argv[optind++];
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

/*
 * "cfctl VERSION", and the module's version when it is loaded: the two are
 * built together, and a mismatch is worth seeing.
 */
static void print_version(void)
{
	char version[64] = "";
	FILE *f = fopen("/sys/module/cfilter/version", "r");

	printf("cfctl %s\n", CFCTL_VERSION);
	if (f && fgets(version, sizeof(version), f))
		printf("cfilter.ko %s", version);
	else
		printf("cfilter.ko not loaded\n");
	if (f)
		fclose(f);
}

/* cfctl's own options. Returns -1 to go on, or the exit status. */
static int parse_global(int argc, char *argv[], struct cfctl_opts *o)
{
	int c;

	opterr = 0;
	/* "+": stop at the verb; what follows is the verb's to parse. */
	while ((c = getopt_long(argc, argv, "+hvjqV", global_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return CF_OK;
		case 'v':
			o->verbose = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'V':
			print_version();
			return CF_OK;
		default:
			if (optopt)
				cf_err("unknown option '-%c'", optopt);
			else
				cf_err("unknown option '%s'", argv[optind - 1]);
			hint();
			return CF_USAGE;
		}
	}
	return -1;
}

int main(int argc, char *argv[])
{
	struct cfctl_opts o = { .mode = CF_XDP_AUTO };
	const struct verb *v;
	int ret;

	ret = parse_global(argc, argv, &o);
	if (ret >= 0)
		return ret;
	if (optind == argc) {
		cf_err("missing command");
		hint();
		return CF_USAGE;
	}
	v = find_verb(argv[optind]);
	if (!v) {
		cf_err("unknown command '%s'", argv[optind]);
		hint();
		return CF_USAGE;
	}

	ret = parse_verb(v, argc - optind, argv + optind, &o);
	if (ret >= 0)
		return ret;
	/* Every verb writes its answer to stdout and its errors to stderr. */
	if (o.quiet && !freopen("/dev/null", "w", stdout)) {
		cf_err("cannot open /dev/null for --quiet: %s", strerror(errno));
		return CF_SYSTEM;
	}
	ret = v->run(&o);
	if (fflush(stdout) || ferror(stdout)) {
		cf_err("cannot write the output: %s", strerror(errno));
		return CF_SYSTEM;
	}
	return ret;
}
