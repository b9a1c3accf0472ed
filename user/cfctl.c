// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl: manage cfilter's filter of blocked source addresses (through
 * /dev/cfilter) and its XDP program (through libbpf).
 *
 * One table of verbs; each has its own do_<verb>() taking the parsed
 * options. See usage() or `cfctl --help` for the exit statuses.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "cfctl.h"
#include "dev.h"
#include "xdp.h"

struct cfctl_opts {
	const char		*arg;	/* the verb's ADDR or IFACE */
	enum cf_xdp_mode	mode;
	bool			verbose;
};

struct verb {
	const char	*name;
	int		(*run)(const struct cfctl_opts *o);
	const char	*arg;		/* its one argument, or NULL */
	bool		takes_mode;	/* --mode */
	const char	*synopsis;	/* after "cfctl NAME" */
	const char	*summary;	/* one line for the verb list */
	const char	*help;		/* more for `cfctl NAME --help` */
};

void cf_err(const char *fmt, ...)
{
	va_list ap;

	fputs("cfctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Parses @o->arg into @key; returns enum cf_exit. */
static int parse_addr(const struct cfctl_opts *o, struct cfilter_key *key)
{
	switch (addr_parse(o->arg, key)) {
	case 0:
		return CF_OK;
	case -EOPNOTSUPP:
		cf_err("invalid address '%s': prefixes are not supported yet, give one address",
		       o->arg);
		return CF_USAGE;
	default:
		cf_err("invalid address '%s': expected an IPv4 or IPv6 address",
		       o->arg);
		return CF_USAGE;
	}
}

/* ENOSPC on add: say how full the filter is and which bound to raise. */
static void report_full(int fd)
{
	struct cfilter_info info;

	if (dev_info(fd, &info))
		cf_err("filter full: reload the module with a larger max_capacity= (exact mode) or capacity= (compact mode)");
	else if (info.mode == CFILTER_MODE_EXACT)
		cf_err("filter full (%llu keys; max_capacity=%llu keys per address family): reload the module with a larger max_capacity=",
		       (unsigned long long)info.count,
		       (unsigned long long)info.max_capacity);
	else
		cf_err("filter full (%llu keys in %llu slots; compact mode does not grow): reload the module with a larger capacity=",
		       (unsigned long long)info.count,
		       (unsigned long long)info.capacity);
}

static int do_add(const struct cfctl_opts *o)
{
	struct cfilter_key key;
	int fd, err, ret;

	ret = parse_addr(o, &key);
	if (ret != CF_OK)
		return ret;
	fd = dev_open(true);
	if (fd < 0)
		return CF_SYSTEM;

	err = dev_key_ioctl(fd, CFILTER_IOC_ADD, &key);
	switch (-err) {
	case 0:
		break;
	case EEXIST:
		/* The goal, "ADDR is blocked", holds: scripts may re-add. */
		cf_err("%s is already blocked", o->arg);
		break;
	case ENOSPC:
		report_full(fd);
		ret = CF_SYSTEM;
		break;
	case ENOMEM:
		cf_err("cannot add %s: no memory to grow the filter: free some memory, or reload the module with a larger capacity= to allocate up front",
		       o->arg);
		ret = CF_SYSTEM;
		break;
	default:
		dev_report(err, "cannot add");
		ret = CF_SYSTEM;
	}
	close(fd);
	return ret;
}

static int do_del(const struct cfctl_opts *o)
{
	struct cfilter_key key;
	int fd, err, ret;

	ret = parse_addr(o, &key);
	if (ret != CF_OK)
		return ret;
	fd = dev_open(true);
	if (fd < 0)
		return CF_SYSTEM;

	err = dev_key_ioctl(fd, CFILTER_IOC_DEL, &key);
	if (err == -ENOENT) {
		cf_err("%s is not blocked", o->arg);
		ret = CF_ABSENT;
	} else if (err) {
		dev_report(err, "cannot delete");
		ret = CF_SYSTEM;
	}
	close(fd);
	return ret;
}

static int do_test(const struct cfctl_opts *o)
{
	struct cfilter_key key;
	int fd, err, ret;

	ret = parse_addr(o, &key);
	if (ret != CF_OK)
		return ret;
	fd = dev_open(false);
	if (fd < 0)
		return CF_SYSTEM;

	err = dev_key_ioctl(fd, CFILTER_IOC_TEST, &key);
	if (!err) {
		printf("%s: blocked\n", o->arg);
	} else if (err == -ENOENT) {
		printf("%s: not blocked\n", o->arg);
		ret = CF_ABSENT;
	} else {
		dev_report(err, "cannot test");
		ret = CF_SYSTEM;
	}
	close(fd);
	return ret;
}

static const char *mode_name(__u32 mode)
{
	switch (mode) {
	case CFILTER_MODE_EXACT:
		return "exact";
	case CFILTER_MODE_COMPACT:
		return "compact";
	default:
		return "unknown";
	}
}

static void print_info(const struct cfilter_info *info)
{
	printf("mode: %s\n", mode_name(info->mode));
	printf("capacity: %llu\n", (unsigned long long)info->capacity);
	printf("max_capacity: %llu\n", (unsigned long long)info->max_capacity);
	printf("count: %llu\n", (unsigned long long)info->count);
	printf("load_percent: %u.%02u\n", info->load_ppm / 10000,
	       info->load_ppm % 10000 / 100);
	printf("buckets: %llu\n", (unsigned long long)info->buckets);
	printf("slots_per_bucket: %u\n", info->slots_per_bucket);
	printf("fp_bits: %u\n", info->fp_bits);
	printf("max_kicks: %u\n", info->max_kicks);
	printf("memory_bytes: %llu\n", (unsigned long long)info->memory_bytes);
	printf("insert_failures: %llu\n",
	       (unsigned long long)info->insert_failures);
	printf("grows: %llu\n", (unsigned long long)info->grows);
}

static int do_info(const struct cfctl_opts *o)
{
	struct cfilter_info info;
	int fd, err;

	(void)o;
	fd = dev_open(false);
	if (fd < 0)
		return CF_SYSTEM;
	err = dev_info(fd, &info);
	close(fd);
	if (err) {
		dev_report(err, "cannot read the filter's info");
		return CF_SYSTEM;
	}
	print_info(&info);
	return CF_OK;
}

/* Keys per LIST call: few calls, 40 KiB of buffer. */
#define LIST_BATCH	1024

static int do_list(const struct cfctl_opts *o)
{
	static struct cfilter_key keys[LIST_BATCH];
	unsigned long long cursor = 0;
	char buf[ADDR_STRLEN];
	long n, i;
	int fd;

	(void)o;
	fd = dev_open(false);
	if (fd < 0)
		return CF_SYSTEM;
	while ((n = dev_list(fd, keys, LIST_BATCH, &cursor)) > 0)
		for (i = 0; i < n; i++)
			puts(addr_format(&keys[i], buf, sizeof(buf)));
	close(fd);
	if (n == -EOPNOTSUPP) {
		cf_err("filter is in compact mode: keys are not stored, so they cannot be listed");
		return CF_SYSTEM;
	}
	if (n < 0) {
		dev_report(n, "cannot list the blocked addresses");
		return CF_SYSTEM;
	}
	return CF_OK;
}

static int do_clear(const struct cfctl_opts *o)
{
	int fd, err;

	(void)o;
	fd = dev_open(true);
	if (fd < 0)
		return CF_SYSTEM;
	err = dev_clear(fd);
	close(fd);
	if (err) {
		dev_report(err, "cannot clear");
		return CF_SYSTEM;
	}
	return CF_OK;
}

static int do_stats(const struct cfctl_opts *o)
{
	(void)o;
	return xdp_stats();
}

static int do_attach(const struct cfctl_opts *o)
{
	return xdp_attach(o->arg, o->mode, o->verbose);
}

static int do_detach(const struct cfctl_opts *o)
{
	return xdp_detach(o->arg, o->verbose);
}

/* Every verb takes --help and --verbose; getopt_long() rejects the rest. */
static const struct option common_opts[] = {
	{ "help",	no_argument,		NULL, 'h' },
	{ "verbose",	no_argument,		NULL, 'v' },
	{ }
};

static const struct option mode_opts[] = {
	{ "help",	no_argument,		NULL, 'h' },
	{ "verbose",	no_argument,		NULL, 'v' },
	{ "mode",	required_argument,	NULL, 'm' },
	{ }
};

static const struct verb verbs[] = {
	{
		.name = "add", .run = do_add, .arg = "ADDR",
		.synopsis = "ADDR",
		.summary = "block packets from ADDR (IPv4 or IPv6)",
		.help = "Adding an address already blocked succeeds, with a note on stderr.\n"
			"A full filter is a system error (exit 3): in exact mode the filter\n"
			"grows by itself up to the module's max_capacity= keys per address\n"
			"family; in compact mode it holds capacity= keys. Reload the module\n"
			"with a larger value to hold more.\n",
	}, {
		.name = "del", .run = do_del, .arg = "ADDR",
		.synopsis = "ADDR",
		.summary = "unblock ADDR",
		.help = "Exits 1 if ADDR is not blocked.\n",
	}, {
		.name = "test", .run = do_test, .arg = "ADDR",
		.synopsis = "ADDR",
		.summary = "tell whether ADDR is blocked",
		.help = "Prints \"ADDR: blocked\" (exit 0) or \"ADDR: not blocked\" (exit 1).\n"
			"In exact mode (the default) the answer is always right. In compact\n"
			"mode, like any cuckoo filter, it may call an address that was never\n"
			"added blocked (a false positive), never the reverse.\n",
	}, {
		.name = "info", .run = do_info,
		.synopsis = "",
		.summary = "show the filter's geometry and occupancy",
		.help = "Prints one \"key: value\" line per property: mode (exact or compact),\n"
			"capacity (slots), max_capacity (keys each address family may grow\n"
			"to hold), count, load, geometry, memory_bytes, insert_failures (adds\n"
			"refused because the filter was full) and grows (table doublings).\n"
			"Counts and sizes add up the IPv4 and IPv6 tables.\n",
	}, {
		.name = "list", .run = do_list,
		.synopsis = "",
		.summary = "print every blocked address, one per line",
		.help = "Exact mode only: in compact mode the filter keeps no addresses, only\n"
			"fingerprints, and list fails with exit status 3. Addresses added or\n"
			"deleted while list runs may or may not be printed; should the filter\n"
			"grow meanwhile, some addresses may be printed twice.\n",
	}, {
		.name = "clear", .run = do_clear,
		.synopsis = "",
		.summary = "unblock every address",
	}, {
		.name = "stats", .run = do_stats,
		.synopsis = "",
		.summary = "show the XDP program's packet counters",
		.help = "Prints the packets passed, dropped and unparsed (not IP, truncated or\n"
			"malformed; passed too) on every interface the program is attached to,\n"
			"since the first attach after boot. They live in " CF_STATS_PIN ".\n",
	}, {
		.name = "attach", .run = do_attach, .arg = "IFACE",
		.takes_mode = true,
		.synopsis = "IFACE [--mode native|generic]",
		.summary = "attach the XDP program to IFACE",
		.help = "Options:\n"
			"  -m, --mode MODE  native: in the driver; generic: in the network stack\n"
			"                   (any interface, slower); default: native if the\n"
			"                   driver supports it. The mode obtained is printed.\n"
			"The program stays attached after cfctl exits. Needs cfilter.ko loaded.\n",
	}, {
		.name = "detach", .run = do_detach, .arg = "IFACE",
		.synopsis = "IFACE",
		.summary = "detach the XDP program from IFACE",
		.help = "Refuses to detach another tool's XDP program. The counters stay in\n"
			CF_STATS_PIN " for the next attach.\n",
	},
};

static void usage(FILE *out)
{
	unsigned int i;

	fprintf(out, "Usage: cfctl [-v] COMMAND [ARGS]\n"
		"Manage cfilter's filter of blocked source addresses and its XDP program.\n\n"
		"Commands:\n");
	for (i = 0; i < ARRAY_SIZE(verbs); i++)
		fprintf(out, "  %-7s %-30s %s\n", verbs[i].name,
			verbs[i].synopsis, verbs[i].summary);
	fprintf(out, "\nOptions:\n"
		"  -h, --help     show this help; cfctl COMMAND --help shows a command's\n"
		"  -v, --verbose  show libbpf's messages (attach, detach)\n\n"
		"Exit status: 0 success (test: blocked), 1 not blocked (test, del),\n"
		"2 usage error or malformed input, 3 system error (module not loaded,\n"
		"permission denied, filter full, list in compact mode, ...).\n");
}

static void verb_usage(const struct verb *v, FILE *out)
{
	fprintf(out, "Usage: cfctl %s%s%s\n%c%s.\n", v->name,
		*v->synopsis ? " " : "", v->synopsis,
		toupper((unsigned char)v->summary[0]), v->summary + 1);
	if (v->help)
		fprintf(out, "%s", v->help);
	fprintf(out, "Run cfctl --help for the common options and exit statuses.\n");
}

static const struct verb *find_verb(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(verbs); i++)
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
	else
		return -EINVAL;
	return 0;
}

/* Names the option getopt_long() refused: a short one, or a long one. */
static void bad_option(const struct verb *v, char *const argv[])
{
	if (optopt)
		cf_err("%s: unknown option '-%c'", v->name, optopt);
	else
		cf_err("%s: unknown option '%s'", v->name, argv[optind - 1]);
	verb_usage(v, stderr);
}

/*
 * Parses the verb's options and argument (argv[0] is the verb). Returns -1
 * to run the verb, or the exit status to end with.
 */
static int parse_verb(const struct verb *v, int argc, char *argv[],
		      struct cfctl_opts *o)
{
	int c;

	/* glibc: 0 re-initialises, dropping the global parse's "+" mode. */
	optind = 0;
	while ((c = getopt_long(argc, argv, v->takes_mode ? ":hvm:" : ":hv",
				v->takes_mode ? mode_opts : common_opts,
				NULL)) != -1) {
		switch (c) {
		case 'h':
			verb_usage(v, stdout);
			return CF_OK;
		case 'v':
			o->verbose = true;
			break;
		case 'm':
			if (parse_mode(optarg, &o->mode)) {
				cf_err("%s: invalid mode '%s': expected native or generic",
				       v->name, optarg);
				return CF_USAGE;
			}
			break;
		case ':':
			cf_err("%s: option '%s' needs an argument", v->name,
			       argv[optind - 1]);
			verb_usage(v, stderr);
			return CF_USAGE;
		default:
			bad_option(v, argv);
			return CF_USAGE;
		}
	}

	if (v->arg) {
		if (optind == argc) {
			cf_err("%s: missing %s", v->name, v->arg);
			verb_usage(v, stderr);
			return CF_USAGE;
		}
		o->arg = argv[optind++];
	}
	if (optind < argc) {
		cf_err("%s: unexpected argument '%s'", v->name, argv[optind]);
		verb_usage(v, stderr);
		return CF_USAGE;
	}
	return -1;
}

int main(int argc, char *argv[])
{
	struct cfctl_opts o = { .mode = CF_XDP_AUTO };
	const struct verb *v;
	int c, ret;

	opterr = 0;
	/* "+": stop at the verb; what follows is the verb's to parse. */
	while ((c = getopt_long(argc, argv, "+hv", common_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return CF_OK;
		case 'v':
			o.verbose = true;
			break;
		default:
			if (optopt)
				cf_err("unknown option '-%c'", optopt);
			else
				cf_err("unknown option '%s'", argv[optind - 1]);
			usage(stderr);
			return CF_USAGE;
		}
	}
	if (optind == argc) {
		cf_err("missing command");
		usage(stderr);
		return CF_USAGE;
	}
	v = find_verb(argv[optind]);
	if (!v) {
		cf_err("unknown command '%s'", argv[optind]);
		usage(stderr);
		return CF_USAGE;
	}

	ret = parse_verb(v, argc - optind, argv + optind, &o);
	if (ret >= 0)
		return ret;
	ret = v->run(&o);
	if (fflush(stdout) || ferror(stdout)) {
		cf_err("cannot write the output: %s", strerror(errno));
		return CF_SYSTEM;
	}
	return ret;
}
