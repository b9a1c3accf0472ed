// SPDX-License-Identifier: GPL-2.0
/*
 * The verbs of the XDP program: attach, detach, status, and stats (its
 * counters, once or as rates with --watch).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cfctl.h"
#include "dev.h"
#include "json.h"
#include "xdp.h"

/* Outcomes first, in the order the program decides them. */
static const struct {
	enum cfilter_stat	stat;
	const char		*name;
} counters[] = {
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

/*
 * The program's counters, then the drops of each source of the live set
 * (@src NULL: none to show).
 */
static void print_counters(const struct cfctl_opts *o, const __u64 *sums,
			   const struct cfilter_sources *src)
{
	char name[CFILTER_SOURCE_LEN + 1];
	struct json j;
	unsigned int i;

	json_init(&j, stdout);
	if (o->json)
		json_object_begin(&j);
	for (i = 0; i < ARRAY_SIZE(counters); i++) {
		__u64 n = sums[counters[i].stat];

		if (o->json)
			json_kv_uint(&j, counters[i].name, n);
		else
			printf("%s: %llu\n", counters[i].name,
			       (unsigned long long)n);
	}
	if (src && o->json) {
		json_key(&j, "sources");
		json_array_begin(&j);
	}
	for (i = 0; src && i < src->count && i < CFILTER_SOURCES_MAX; i++) {
		snprintf(name, sizeof(name), "%.*s", CFILTER_SOURCE_LEN,
			 src->sources[i].name);
		if (!o->json) {
			printf("source %s: drops %llu\n", name,
			       (unsigned long long)src->sources[i].drops);
			continue;
		}
		json_object_begin(&j);
		json_kv_string(&j, "name", name);
		json_kv_uint(&j, "drops", src->sources[i].drops);
		json_object_end(&j);
	}
	if (src && o->json)
		json_array_end(&j);
	if (o->json)
		json_object_end(&j);
}

/* One line (text or a JSON document) of packets per second per counter. */
static void print_rates(const struct cfctl_opts *o, const __u64 *cur,
			const __u64 *prev)
{
	struct json j;
	unsigned int i;

	json_init(&j, stdout);
	if (o->json)
		json_object_begin(&j);
	for (i = 0; i < ARRAY_SIZE(counters); i++) {
		enum cfilter_stat s = counters[i].stat;
		__u64 rate = (cur[s] - prev[s]) / o->interval;

		if (o->json)
			json_kv_uint(&j, counters[i].name, rate);
		else
			printf("%s%s %llu/s", i ? " " : "", counters[i].name,
			       (unsigned long long)rate);
	}
	if (o->json)
		json_object_end(&j);
	else
		putchar('\n');
	fflush(stdout);
}

static volatile sig_atomic_t stop_watch;

static void on_stop(int sig)
{
	(void)sig;
	stop_watch = 1;
}

/*
 * Without SA_RESTART, so that a signal cuts the sleep short: an interrupted
 * watch ends at once, and successfully, as the operator asked it to.
 */
static void catch_stop_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static int stats_watch(const struct cfctl_opts *o)
{
	__u64 prev[__CFILTER_STAT_MAX], cur[__CFILTER_STAT_MAX];
	unsigned int n;
	int ret;

	catch_stop_signals();
	ret = xdp_stats(prev);
	for (n = 0; ret == CF_OK && (!o->count || n < o->count); n++) {
		sleep(o->interval);
		if (stop_watch)
			break;
		ret = xdp_stats(cur);
		if (ret != CF_OK)
			break;
		print_rates(o, cur, prev);
		memcpy(prev, cur, sizeof(prev));
	}
	return ret;
}

int do_stats(const struct cfctl_opts *o)
{
	__u64 sums[__CFILTER_STAT_MAX];
	int ret;

	struct cfilter_sources src;

	if (o->watch)
		return stats_watch(o);
	ret = xdp_stats(sums);
	if (ret != CF_OK)
		return ret;
	print_counters(o, sums, dev_sources_quiet(&src) ? NULL : &src);
	return ret;
}

int do_status(const struct cfctl_opts *o)
{
	return xdp_status(o->json);
}

int do_attach(const struct cfctl_opts *o)
{
	const struct xdp_attach_req r = {
		.mode = o->mode, .match_dst = o->match_dst, .force = o->force,
		.priority = o->priority_set ? (int)o->priority : -1,
		.verbose = o->verbose, .dry_run = o->dry_run,
	};

	return xdp_attach(o->arg, &r);
}

int do_detach(const struct cfctl_opts *o)
{
	return xdp_detach(o->arg, o->verbose, o->dry_run);
}
