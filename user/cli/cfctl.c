// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl: manage cfilter's filters of blocked sources, destinations and
 * flows and of allowed sources (through /dev/cfilter) and its XDP program (through libbpf).
 *
 * This is the engine: the help, cfctl's own options and main(). The verbs
 * are one table (verbs.c), their options another (options.c); each verb
 * has its own do_<verb>() taking the parsed options. See usage() or
 * `cfctl --help` for the exit statuses.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "cli/verbs.h"
#include "verbs/verb.h"

/* cfctl's own options, before the command. */
static const struct option global_opts[] = {
	{ "help",	no_argument,	NULL, 'h' },
	{ "verbose",	no_argument,	NULL, 'v' },
	{ "json",	no_argument,	NULL, 'j' },
	{ "quiet",	no_argument,	NULL, 'q' },
	{ "version",	no_argument,	NULL, 'V' },
	{ }
};

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
	options_help(out, ~0u);
	fprintf(out, "  %-18s %s\n", "-V, --version",
		"print cfctl's version and the loaded module's");
	fprintf(out, "-j and -q before the command work as after it. cfctl COMMAND --help\n"
		"shows a command's own options.\n\n"
		"Exit status: 0 success (test: blocked; match: dropped), 1 not blocked\n"
		"(test), not present (del) or passed (match),\n"
		"2 usage error or malformed input, 3 system error (module not loaded,\n"
		"permission denied, filter full, list in compact mode, ...).\n");
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
