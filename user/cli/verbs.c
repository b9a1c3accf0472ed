// SPDX-License-Identifier: GPL-2.0
/* The table of cfctl's verbs: what each runs and takes, and its help. */
#include "cli/verbs.h"
#include "verbs/verb.h"
#include "xdp/xdp.h"

/* load and replace read the same lists, so they take the same options. */
#define LIST_OPTS	(OPT_DRY_RUN | OPT_SKIP_BAD | OPT_NORMALIZE | OPT_NOMATCH | \
			 OPT_SOURCE | OPT_TIMEOUT | OPT_QUIET)
#define LIST_SYNOPSIS	"[-n] [--skip-bad] [--normalize] [--nomatch-allows] [-s NAME] [-t SECS] FILE|-"

const struct verb verbs[] = {
	{
		.name = "add", .run = do_add, .arg = "ENTRY", .entry = true,
		.opts = OPT_DRY_RUN | OPT_SOURCE | OPT_TIMEOUT | OPT_FROM |
			OPT_CAP_TIMEOUT | OPT_QUIET,
		.synopsis = "[-n] [-s NAME] [-t SECS [--from TIME] [--cap-timeout]] ENTRY",
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
			"A flow names single addresses. An IPv4-mapped IPv6 address\n"
			"(::ffff:192.0.2.1, as dual-stack servers log IPv4 peers) is the IPv4\n"
			"address it maps, as IPv4 packets carry it.\n"
			"An allow entry wins over every other: a packet from ADDR passes\n"
			"whichever entry would drop it. Non-first fragments carry no ports and\n"
			"match no flow (their addresses still match).\n"
			"The entry is held by the source -s names (\"default\" without it),\n"
			"for -t seconds or for ever; it stays blocked while any source holds\n"
			"it. Adding an entry the source holds already succeeds, sets its\n"
			"timeout anew (-t, or none) and says so on stderr.\n"
			"With --from, -t counts from TIME rather than from now (fail2ban's\n"
			"action passes its ban's own start, so that the kernel ends the ban\n"
			"when fail2ban does, also after a restart); a holding whose time is\n"
			"over by now is not added, and cfctl says so (exit 0).\n"
			"A timeout past 2147483647 s (68 years) from now is refused (exit 2),\n"
			"unless --cap-timeout: then the holding lasts 2147483647 s, and cfctl\n"
			"says so (fail2ban's action passes it: bantime.increment without\n"
			"bantime.maxtime doubles a bantime past that bound).\n"
			"A full filter is a system error (exit 3): in exact mode the filter\n"
			"grows by itself up to the module's max_capacity= keys per entry\n"
			"type; in compact mode it holds capacity= keys. Reload the module\n"
			"with a larger value to hold more.\n",
	}, {
		.name = "allow", .run = do_allow, .arg = "ADDR", .entry = true,
		.opts = OPT_DRY_RUN | OPT_SOURCE | OPT_TIMEOUT | OPT_FROM |
			OPT_CAP_TIMEOUT | OPT_QUIET,
		.synopsis = "[-n] [-s NAME] [-t SECS [--from TIME] [--cap-timeout]] ADDR",
		.summary = "never drop packets from ADDR (add allow ADDR)",
		.help = "ADDR may be a prefix or a range, as for add; -s, -t, --from and\n"
			"--cap-timeout as for add.\n"
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
		.name = "why", .run = do_why, .arg = "ADDR",
		.opts = OPT_JSON,
		.synopsis = "[-j] ADDR",
		.summary = "tell what holds ADDR blocked: every entry, source and deadline",
		.help = "Prints what a packet from ADDR meets (as match does), then every\n"
			"holding of an entry that covers ADDR or names it: the address\n"
			"itself and each prefix containing it, as a source, destination or\n"
			"allow entry, and each flow from or to it, one line per source\n"
			"holding it, with the time it has left (\"expires in 597 s (DATE)\")\n"
			"or \"permanent\"; then the drops each of those sources counted, by\n"
			"all its entries: the module keeps no count per entry. When a\n"
			"holding was added is not recorded (the module keeps a timed\n"
			"holding's deadline only), and said so. Exits 0 if an entry covers\n"
			"or names ADDR, 1 if none does. In compact mode, an address entry\n"
			"is a fingerprint, held by default, and may be a false positive.\n"
			"JSON: {\"addr\":\"192.0.2.5\",\"verdict\":\"drop\",\"reason\":\"source prefix\",\n"
			"\"source\":\"feed\",\"holdings\":[{\"entry\":\"192.0.2.4/31\",\"source\":\"feed\",\n"
			"\"timeout\":0}],\"drops\":[{\"source\":\"feed\",\"drops\":12}]}, a timed\n"
			"holding with \"expires\" (UTC).\n",
	}, {
		.name = "load", .run = do_load, .arg = "FILE",
		.opts = LIST_OPTS,
		.synopsis = LIST_SYNOPSIS,
		.summary = "add the entries listed in FILE",
		.help = "One entry (see add) per line, which may end in \"timeout SECS\" or\n"
			"\"expires UNIXTIME\" (an entry expired already is skipped, and\n"
			"counted). A line \"source NAME\" gives the lines after it to NAME;\n"
			"those before any go to -s NAME, else to \"default\". Blank lines,\n"
			"comments from '#' or ';' to the end of the line, surrounding\n"
			"whitespace and a leading \"add \" are ignored: cfctl save writes this\n"
			"format. So is what ipset save writes of hash:ip and hash:net sets\n"
			"(ipset save NAME | cfctl load -): a timeout is kept; each entry of a\n"
			"hash:ip set with netmask N (or a bitmask of N leading ones) is the\n"
			"network ADDR/N it stands for there (another bitmask is refused); a\n"
			"nomatch entry, an exception inside its own set, is refused unless\n"
			"--nomatch-allows makes it an allow entry, which beats every source.\n"
			"-t is the timeout of lines without their own.\n"
			"The whole file is read first; a malformed line is reported as\n"
			"FILE:LINE: and nothing is loaded (exit 2) unless --skip-bad is given\n"
			"(which never skips a bad source line).\n"
			"Then prints \"loaded N entries (A added, E already present, S\n"
			"skipped)\". Should the filter fill up, the entries added stay, and\n"
			"cfctl says how many and which line failed (exit 3).\n",
	}, {
		.name = "replace", .run = do_replace, .arg = "FILE",
		.opts = LIST_OPTS,
		.synopsis = LIST_SYNOPSIS,
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
		.opts = OPT_SOURCE | OPT_TYPES,
		.synopsis = "[-s NAME] [--types LIST]",
		.summary = "apply CrowdSec decisions read from stdin, until it ends",
		.help = "For crowdsec-custom-bouncer with feed_via_stdin: true and bin_path\n"
			"naming a script that runs cfctl crowdsec (see cfctl(8)): it writes each\n"
			"decision as one line of JSON, action \"add\" when CrowdSec decides a ban\n"
			"and \"del\" when the decision expires or is deleted. Decisions of scope\n"
			"Ip and Range and of a type in --types (ban) are held by source\n"
			"\"crowdsec\" (or -s NAME) for the decision's duration, so they end on\n"
			"time even if the bouncer is gone, and deleted as they come (a duration\n"
			"of 0 or less deletes too); every burst of lines in one call. A range\n"
			"with host bits (198.51.100.7/24) bans its network. Other types, scopes\n"
			"and simulated decisions are skipped, and said so; a malformed line is\n"
			"reported with its number and skipped. The decisions in force are kept:\n"
			"when the module is away or loaded anew, they are applied once it is\n"
			"back (looked for every 5 s at most). /dev/cfilter is open only while\n"
			"a burst is applied. When stdin ends, prints what it did and exits 0,\n"
			"or 3 if the module could not take the decisions then. In compact\n"
			"mode, without -s, bans go to \"default\" without a timeout.\n",
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
			"module loaded (with BTF), where the program runs (cfilter_attached:\n"
			"0 means nothing is filtered), the counters per reason and per\n"
			"interface, each source's drops and entries, each key type's entries\n"
			"and memory, cfilter_build_info; in every state (exit 0), the module\n"
			"missing or nothing attached included.\n",
	}, {
		.name = "log", .run = do_log, .arg = "CIDR", .arg_optional = true,
		.opts = OPT_JSON | OPT_SOURCE | OPT_LOG | OPT_DURATION,
		.synopsis = "[-j] [-s NAME] [--iface IF] [--rate N] [--count N] [--duration SECS] [CIDR]",
		.summary = "print the packets the program drops, as it drops them",
		.help = "One line per dropped packet: time, interface, the packet (protocol,\n"
			"source > destination, ports or ICMP type), the counter it went to\n"
			"(as stats names them), the entry that matched and the source holding\n"
			"it: \"2026-11-28 10:15:32.123456 eth0 icmp 192.0.2.3 > 192.0.2.1\n"
			"type 8: dropped_src by 192.0.2.3, source jail\". Only the packets of\n"
			"source NAME's entries with -s, of interface IF with --iface, from or\n"
			"to an address in CIDR with CIDR. The programs send each CPU's first\n"
			"N drops of every second (100 by default; --rate) and count the others;\n"
			"a line \"-- M drops left out\" says how many each second they leave\n"
			"out, and once more at the end. Nothing is made while no one reads:\n"
			"up to 4 readers (log, top) at once. Ends at Ctrl-C (exit 0),\n"
			"after --count lines or --duration seconds.\n"
			"JSON: one object a line, {\"time\":\"...Z\",\"interface\":\"eth0\",\n"
			"\"hook\":\"xdp\",\"cpu\":0,\"family\":4,\"saddr\":...,\"daddr\":...,\n"
			"\"proto\":\"icmp\",\"icmp_type\":8,\"reason\":\"dropped_src\",\"entry\":\n"
			"\"192.0.2.3\",\"source\":\"jail\"} (sport and dport for TCP and UDP),\n"
			"and {\"left_out\":M,\"rate\":N}.\n",
	}, {
		.name = "top", .run = do_top, .arg = "CIDR", .arg_optional = true,
		.opts = OPT_JSON | OPT_SOURCE | OPT_LOG | OPT_TOP,
		.synopsis = "[-j] [-s NAME] [--iface IF] [--rate N] [-w SECS] [-i SECS | --once [--count N]] [--rows N] [CIDR]",
		.summary = "show the addresses and entries that drop the most, refreshed",
		.help = "Every -i seconds, over the last -w: the source addresses of the\n"
			"packets dropped most, each with its entry and source, and the\n"
			"entries that dropped most, each with its source; packets per second\n"
			"and events. Built from log's events (filters as for log): with E\n"
			"events and L drops left out in the window, an address or entry with\n"
			"n events is estimated at n (E + L) / E packets. JSON: one object per\n"
			"view, {\"window\":10.00,\"drops\":E+L,\"events\":E,\"left_out\":L,\n"
			"\"rate\":100,\"addresses\":[{\"addr\":...,\"entry\":...,\"source\":...,\n"
			"\"events\":n,\"packets\":...,\"pps\":...}],\"entries\":[{\"entry\":...,\n"
			"\"source\":...,\"events\":...,\"packets\":...,\"pps\":...}]}.\n",
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

const unsigned int nverbs = ARRAY_SIZE(verbs);
