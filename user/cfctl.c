// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl: manage cfilter's filters of blocked sources, destinations and
 * flows and of allowed sources (through /dev/cfilter) and its XDP program (through libbpf).
 *
 * One table of verbs; each has its own do_<verb>() taking the parsed
 * options. See usage() or `cfctl --help` for the exit statuses.
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
#include "xdp.h"

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
};

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
};

struct verb {
	const char	*name;
	int		(*run)(const struct cfctl_opts *o);
	const char	*arg;		/* its one argument, or NULL */
	bool		entry;		/* @arg is an ENTRY: one or more words */
	unsigned int	opts;		/* OPT_* it takes besides -h and -v */
	const char	*synopsis;	/* after "cfctl NAME" */
	const char	*summary;	/* one line for the verb list */
	const char	*help;		/* more for `cfctl NAME --help` */
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

static const struct verb verbs[] = {
	{
		.name = "add", .run = do_add, .arg = "ENTRY", .entry = true,
		.opts = OPT_DRY_RUN | OPT_SOURCE | OPT_TIMEOUT | OPT_QUIET,
		.synopsis = "[-n] [-s NAME] [-t SECS] ENTRY",
		.summary = "block what ENTRY names",
		.help = "ENTRY is one of:\n"
			"  ADDR | src ADDR                  packets from ADDR (IPv4 or IPv6)\n"
			"  dst ADDR                         packets to ADDR (needs attach --match-dst)\n"
			"  tcp|udp SADDR:SPORT DADDR:DPORT  one flow; IPv6 as [ADDR]:PORT\n"
			"  icmp|icmp6 SADDR DADDR TYPE      ICMP/ICMPv6 messages of TYPE (0-255)\n"
			"  allow ADDR                       never drop packets from ADDR\n"
			"The ADDR of src, dst and allow may be a prefix, 203.0.113.0/24 or\n"
			"2001:db8::/32 (host bits zero: 192.0.2.7/24 is refused), or a range\n"
			"FIRST-LAST, added as the fewest prefixes covering it, in one call.\n"
			"A flow names single addresses.\n"
			"An allow entry wins over every other: a packet from ADDR passes\n"
			"whichever entry would drop it. Non-first fragments carry no ports and\n"
			"match no flow (their addresses still match).\n"
			"The entry is held by the source -s names (\"default\" without it),\n"
			"for -t seconds or for ever; it stays blocked while any source holds\n"
			"it. Adding an entry the source holds already succeeds, sets its\n"
			"timeout anew (-t, or none) and says so on stderr.\n"
			"A full filter is a system error (exit 3): in exact mode the filter\n"
			"grows by itself up to the module's max_capacity= keys per entry\n"
			"type; in compact mode it holds capacity= keys. Reload the module\n"
			"with a larger value to hold more.\n",
	}, {
		.name = "allow", .run = do_allow, .arg = "ADDR", .entry = true,
		.opts = OPT_DRY_RUN | OPT_SOURCE | OPT_TIMEOUT | OPT_QUIET,
		.synopsis = "[-n] [-s NAME] [-t SECS] ADDR",
		.summary = "never drop packets from ADDR (add allow ADDR)",
		.help = "ADDR may be a prefix or a range, as for add; -s and -t as for add.\n"
			"Undo with cfctl del allow ADDR.\n",
	}, {
		.name = "del", .run = do_del, .arg = "ENTRY", .entry = true,
		.opts = OPT_DRY_RUN | OPT_SOURCE | OPT_ALL_SOURCES | OPT_QUIET,
		.synopsis = "[-n] [-s NAME | -a] ENTRY",
		.summary = "remove a source's holding of ENTRY (see add)",
		.help = "Removes the holding of the source -s names (\"default\" without it),\n"
			"or with -a every source's: ENTRY stays blocked while another source\n"
			"holds it. Exits 1 if that source does not hold ENTRY (naming the\n"
			"sources that do); for a range, if it does not hold one of its\n"
			"prefixes. A prefix is deleted as it was added: deleting an address\n"
			"inside a stored prefix does not split the prefix.\n",
	}, {
		.name = "test", .run = do_test, .arg = "ENTRY", .entry = true,
		.opts = OPT_SOURCE | OPT_JSON | OPT_EXACT | OPT_QUIET,
		.synopsis = "[-j] [-s NAME] [--exact] ENTRY",
		.summary = "tell whether ENTRY (see add) is blocked, and by what",
		.help = "Exits 0 if a stored entry covers ENTRY (an address equal to it, or a\n"
			"prefix or range containing it) and no allow entry does, and prints\n"
			"\"ENTRY: blocked by PREFIX (held by SOURCES)\" (\"blocked (held by\n"
			"...)\" if ENTRY itself is stored). The longest covering entry is\n"
			"named; shorter ones may cover ENTRY too. An address an allow entry\n"
			"covers is not blocked (exit 1): \"ENTRY: allowed by PREFIX (held by\n"
			"...)\", \", though blocked by PREFIX (...)\" if a block entry covers it\n"
			"too. Else \"ENTRY: not blocked\" (exit 1). For allow ADDR, exit 0 if an\n"
			"allow entry covers ADDR. Flows are exact; a range is refused.\n"
			"With -s NAME, NAME's entries alone count (the others are named).\n"
			"With --exact, exit 0 only if this very entry is stored (an address\n"
			"inside a stored prefix is not); allow entries are not asked.\n"
			"JSON: {\"entry\":\"198.19.3.3\",\"blocked\":true,\"allowed\":false,\n"
			"\"by\":\"198.18.0.0/15\",\"sources\":[\"default\"]}, with allowed_by and\n"
			"allowed_sources when an allow entry covers it.\n"
			"In exact mode (the default) the answer is always right. In compact\n"
			"mode, like any cuckoo filter, it may call an address that was never\n"
			"added present (a false positive), never the reverse.\n",
	}, {
		.name = "match", .run = do_match, .arg = "SRC", .entry = true,
		.opts = OPT_JSON | OPT_QUIET,
		.synopsis = "[-j] SRC [DST [PROTO PORTS|TYPE]]",
		.summary = "tell what the filter does to such a packet",
		.help = "PROTO PORTS|TYPE: tcp|udp SPORT DPORT, or icmp|icmp6 TYPE.\n"
			"Asks the module what the XDP program would decide for a packet from\n"
			"SRC (to DST, of that flow), prefixes and the allow list included,\n"
			"and prints it: \"drop (source address)\", \"drop (source prefix)\",\n"
			"\"drop (destination address)\", \"drop (destination prefix)\",\n"
			"\"drop (flow)\", \"allowed (exception)\" or \"pass\". Exits 0 if the\n"
			"packet would be dropped, 1 if it would pass (allowed included).\n"
			"With DST, destination entries are matched, as after attach\n"
			"--match-dst; without it, the source only.\n"
			"JSON: {\"saddr\":\"203.0.113.9\",\"verdict\":\"drop\",\"reason\":\n"
			"\"source prefix\"}, with daddr, proto and sport and dport or icmp_type\n"
			"when given; verdict drop, allowed or pass (no reason).\n",
	}, {
		.name = "load", .run = do_load, .arg = "FILE",
		.opts = OPT_DRY_RUN | OPT_SKIP_BAD | OPT_NORMALIZE | OPT_SOURCE |
			OPT_TIMEOUT | OPT_QUIET,
		.synopsis = "[-n] [--skip-bad] [--normalize] [-s NAME] [-t SECS] FILE|-",
		.summary = "add the entries listed in FILE",
		.help = "One entry (see add) per line, which may end in \"timeout SECS\" or\n"
			"\"expires UNIXTIME\" (an entry expired already is skipped, and\n"
			"counted). A line \"source NAME\" gives the lines after it to NAME;\n"
			"those before any go to -s NAME, else to \"default\". Blank lines,\n"
			"comments from '#' or ';' to the end of the line, surrounding\n"
			"whitespace and a leading \"add \" are ignored: cfctl save writes this\n"
			"format. So is what ipset save writes of hash:ip and hash:net sets\n"
			"(ipset save NAME | cfctl load -): a nomatch entry is an allow entry,\n"
			"a timeout is kept. -t is the timeout of lines without their own.\n"
			"The whole file is read first; a malformed line is reported as\n"
			"FILE:LINE: and nothing is loaded (exit 2) unless --skip-bad is given\n"
			"(which never skips a bad source line).\n"
			"Then prints \"loaded N entries (A added, E already present, S\n"
			"skipped)\". Should the filter fill up, the entries added stay, and\n"
			"cfctl says how many and which line failed (exit 3).\n",
	}, {
		.name = "replace", .run = do_replace, .arg = "FILE",
		.opts = OPT_DRY_RUN | OPT_SKIP_BAD | OPT_NORMALIZE | OPT_SOURCE |
			OPT_TIMEOUT | OPT_QUIET,
		.synopsis = "[-n] [--skip-bad] [--normalize] [-s NAME] [-t SECS] FILE|-",
		.summary = "make FILE's entries the whole filter (or NAME's), atomically",
		.help = "Reads FILE as load does, builds the new set beside the live one and\n"
			"swaps it in at once: packets meet the old set or the new one, never\n"
			"a mix or an empty filter. Without -s, FILE (its source lines\n"
			"included) becomes the whole filter: cfctl save > F; cfctl replace F\n"
			"restores every source and deadline. With -s NAME, FILE becomes\n"
			"NAME's holdings and every other source's stay (a FILE with a source\n"
			"line naming another source is refused, exit 2). Any failure before\n"
			"the swap (a malformed line without --skip-bad: exit 2; a full\n"
			"filter: exit 3) leaves the live set untouched, and says so. Then\n"
			"prints \"replaced the filter (or source NAME) with N entries (A\n"
			"added, R repeated, S skipped)\". --dry-run parses only.\n",
	}, {
		.name = "save", .run = do_save,
		.opts = OPT_SOURCE,
		.synopsis = "[-s NAME]",
		.summary = "print every entry, for load",
		.help = "A comment line with the count, the date and cfctl's version, then\n"
			"per source a line \"source NAME\" and its entries, one per line, in\n"
			"add's syntax, sorted, a timed one ending in \"expires UNIXTIME\":\n"
			"cfctl save > F; cfctl replace F restores the filter, every source and\n"
			"deadline. With -s NAME, that source's entries alone, without the\n"
			"source line (exit 2 if the filter has no such source). Exact mode\n"
			"only: a compact filter keeps its addresses and flows as fingerprints,\n"
			"which cannot be listed (exit 3): use cfctl snapshot there.\n",
	}, {
		.name = "snapshot", .run = do_snapshot, .arg = "FILE",
		.opts = OPT_DRY_RUN,
		.synopsis = "[-n] FILE",
		.summary = "save the whole filter, in either mode, to FILE",
		.help = "A binary file (see cfctl(8)): in compact mode the raw tables and the\n"
			"prefixes, in exact mode every entry; with a checksum. Written to\n"
			"FILE.tmp, then renamed: FILE is whole or untouched. Entries changed\n"
			"while it runs may or may not be in it.\n",
	}, {
		.name = "restore", .run = do_restore, .arg = "FILE",
		.opts = OPT_DRY_RUN,
		.synopsis = "[-n] FILE",
		.summary = "replace the whole filter with a snapshot, atomically",
		.help = "Checks all of FILE first: not a snapshot, another format version,\n"
			"truncated or corrupted (checksum mismatch) is exit 2. An exact\n"
			"snapshot (its entries) restores into any module; a compact one (raw\n"
			"tables) needs a compact module with its fp_bits=: if not, cfctl names\n"
			"the parameter (exit 3). Then swaps the snapshot in as replace does;\n"
			"nothing changes if any step fails.\n",
	}, {
		.name = "list", .run = do_list,
		.opts = OPT_JSON | OPT_SOURCE | OPT_ALL_SOURCES,
		.synopsis = "[-j] [-s NAME | -a]",
		.summary = "print every holding",
		.help = "Sorted by entry, one holding per line, as the options and words of\n"
			"the cfctl add that would make it: \"[-s SOURCE] [-t SECONDS-LEFT] ENTRY\",\n"
			"-s left out for \"default\" and -t for a permanent holding; no header.\n"
			"With -s NAME, NAME's alone, without -s (exit 2 if the filter has no\n"
			"such source). In compact mode the filter keeps addresses and flows as\n"
			"fingerprints only: list prints the prefixes, with a note on stderr.\n"
			"Entries added or deleted while list runs may or may not be printed.\n"
			"JSON: {\"entries\":[{\"type\":\"src4\",\"entry\":\"192.0.2.0/24\",\"addr\":\n"
			"\"192.0.2.0\",\"prefix_len\":24,\"source\":\"default\",\"timeout\":0}]};\n"
			"flows have proto, saddr, daddr and sport and dport, or icmp_type,\n"
			"instead of addr and prefix_len; timeout is the seconds left, 0 for\n"
			"never.\n",
	}, {
		.name = "crowdsec", .run = do_crowdsec,
		.opts = OPT_SOURCE,
		.synopsis = "[-s NAME]",
		.summary = "apply CrowdSec decisions read from stdin, until it ends",
		.help = "For crowdsec-custom-bouncer with feed_via_stdin: true and bin_path\n"
			"naming a script that runs cfctl crowdsec (see cfctl(8)): it writes each\n"
			"decision as one line of JSON, action \"add\" when CrowdSec decides a ban\n"
			"and \"del\" when the decision expires or is deleted. Bans of scope Ip\n"
			"and Range are held by source \"crowdsec\" (or -s NAME) for the\n"
			"decision's duration, so they end on time even if the bouncer is gone,\n"
			"and deleted as they come (a duration of 0 or less deletes too); every\n"
			"burst of lines in one call. Other remedies (captcha) and scopes\n"
			"(Country, AS), and simulated decisions, are skipped. A malformed line\n"
			"is reported with its number and skipped. When stdin ends, prints what\n"
			"it did and exits 0; exits 3 if the module fails. In compact mode,\n"
			"without -s, bans go to \"default\" without a timeout (with a note).\n",
	}, {
		.name = "info", .run = do_info,
		.opts = OPT_JSON,
		.synopsis = "[-j]",
		.summary = "show the filter's size and occupancy",
		.help = "Prints one \"key: value\" line per property: mode (exact or compact),\n"
			"capacity (slots), max_capacity (keys each entry type may grow\n"
			"to hold), count, load, geometry, memory_bytes, insert_failures (adds\n"
			"refused because the filter was full) and grows (table doublings).\n"
			"Counts and sizes add up the tables of every entry type (source,\n"
			"destination, flow and allow; IPv4 and IPv6); prefixes (among count)\n"
			"and prefix_markers (what their search adds) too; timed, the\n"
			"holdings with a timeout; mem_used, the bytes every set (staged ones\n"
			"too) takes against mem_limit, the module's max_memory= bound. Then\n"
			"one line per source, \"default\" first:\n"
			"\"source NAME: entries N, timed T\"; and one line per entry type: its\n"
			"count, prefixes, lengths (distinct prefix lengths), markers, probes\n"
			"(table probes a lookup makes at most), memory_bytes and capacity.\n"
			"JSON uses the same\n"
			"names, the sources in a \"sources\" array of {name, entries, timed},\n"
			"the types in a \"types\" array.\n",
	}, {
		.name = "flush", .run = do_flush,
		.opts = OPT_DRY_RUN | OPT_SOURCE | OPT_QUIET,
		.synopsis = "[-n] -s NAME",
		.summary = "remove every holding of source NAME",
		.help = "Entries other sources hold stay blocked. Exit 2 if the filter has no\n"
			"source NAME (a source holding nothing is gone); 3 in compact mode,\n"
			"which knows no sources (cfctl clear removes everything there).\n",
	}, {
		.name = "clear", .run = do_clear,
		.opts = OPT_DRY_RUN | OPT_QUIET,
		.synopsis = "[-n]",
		.summary = "remove every entry, of every source",
	}, {
		.name = "stats", .run = do_stats,
		.opts = OPT_JSON | OPT_WATCH | OPT_FORMAT,
		.synopsis = "[-j | --format prometheus [--textfile PATH]] [--watch [-i SECS] [--count N]]",
		.summary = "show the XDP program's packet counters",
		.help = "Prints the packets passed, allowed (would be dropped, but the source\n"
			"is on the allow list; passed), dropped by source, destination or flow\n"
			"entry or by a source or destination prefix, dropped as a tiny first\n"
			"fragment (too short to hold its ports) or for deep headers (more than\n"
			"6 IPv6 extension headers or 2 VLAN tags), and unparsed (not IP,\n"
			"truncated or malformed; passed too) on every interface the program\n"
			"is attached to, since the first attach after boot; then each source's\n"
			"drops; then one line per interface that counted a packet:\n"
			"\"interface NAME: passed N, ...\" (\"other\": ifindex 256 and up).\n"
			"They live in " CF_STATS_PIN ", shared with\n"
			"the programs ip(8), tc(8) and bpftool load from cfilter.bpf.o.\n"
			"With --watch, prints the totals' rates instead; with -j,\n"
			"one JSON object per line. --format prometheus prints metrics: the\n"
			"counters per reason and per interface, each source's drops and\n"
			"entries, each key type's entries and memory, cfilter_build_info.\n",
	}, {
		.name = "status", .run = do_status,
		.opts = OPT_JSON,
		.synopsis = "[-j]",
		.summary = "show where the XDP program runs",
		.help = "Prints whether cfilter.ko is loaded, and with the BTF programs\n"
			"need to call its kfunc, then one line per interface running\n"
			"cfilter_xdp: its mode, program id, how it runs (plain XDP or in\n"
			"libxdp's dispatcher) and whether destination matching (attach\n"
			"--match-dst) is on, then the dispatcher's programs in the order they\n"
			"run; or \"not attached anywhere\".\n"
			"JSON: {\"module_loaded\":true,\"module_btf\":true,\"attached\":[{\"interface\":\"eth0\",\n"
			"\"hook\":\"xdp\",\"mode\":\"native\",\"prog_id\":7,\"via\":\"dispatcher\",\"dispatcher\":\n"
			"{\"prog_id\":6,\"programs\":[{\"name\":\"cfilter_xdp\",\"prog_id\":7,\"priority\":10,\n"
			"\"chain_call_actions\":[\"XDP_PASS\"],\"cfilter\":true}]},\"match_dst\":false}]}.\n",
	}, {
		.name = "attach", .run = do_attach, .arg = "IFACE",
		.opts = OPT_MODE | OPT_DRY_RUN | OPT_MATCH_DST | OPT_FORCE |
			OPT_PRIORITY,
		.synopsis = "[-n] [--match-dst] [--force] [--priority N] IFACE [-m native|generic|tc]",
		.summary = "attach the XDP (or TC) program to IFACE",
		.help = "The program stays attached after cfctl exits. Needs cfilter.ko loaded.\n"
			"An interface runs it once: attaching again replaces it in one step,\n"
			"in the same hook and mode (to turn --match-dst on or off with no\n"
			"unfiltered moment); another mode there is an error (exit 3) until\n"
			"cfctl detach. Another tool's XDP program attached without a\n"
			"dispatcher is an error too, unless --force: then cfilter's replaces\n"
			"it in one step.\n"
			"XDP goes through libxdp's dispatcher, which runs the programs of\n"
			"other tools that use it (xdp-loader, xdp-filter) beside cfilter's,\n"
			"in order of priority; cfilter's passes what it does not drop on to\n"
			"the next. Where the dispatcher cannot work, or cfilter's or another\n"
			"program runs without one, the program is attached plain; the\n"
			"output says which (\"libxdp dispatcher\" or \"plain XDP\").\n",
	}, {
		.name = "detach", .run = do_detach, .arg = "IFACE",
		.opts = OPT_DRY_RUN,
		.synopsis = "[-n] IFACE",
		.summary = "detach the XDP or TC program from IFACE",
		.help = "Refuses to detach another tool's program. The counters stay in\n"
			CF_STATS_PIN " for the next attach, and a clsact\n"
			"qdisc\n"
			"stays for the other filters it may hold.\n",
	},
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
	for (i = 0; i < ARRAY_SIZE(verbs); i++) {
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
	for (i = 0; i < ARRAY_SIZE(verbs) && len > 1; i++) {
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
			if (timeout_parse(optarg, &o->timeout)) {
				cf_err("%s: invalid timeout '%s': expected %s",
				       v->name, optarg, TIMEOUT_RULE);
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
