// SPDX-License-Identifier: GPL-2.0
/*
 * The verbs of the XDP program: attach, detach, status, and stats (its
 * counters, in total and per interface, once or as rates with --watch; as
 * metrics in metrics.c).
 */
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "device/device.h"
#include "lib/json.h"
#include "verbs/verb.h"
#include "xdp/counters.h"
#include "xdp/xdp.h"

/* "interface NAME: passed N, allowed N, ..." per interface that counted. */
static void print_ifaces(const struct cf_stats *st)
{
	char name[IF_NAMESIZE + 16];
	unsigned int slot, i;

	for (slot = 0; slot < CFILTER_STATS_IFACES; slot++) {
		if (!stats_iface_used(st, slot))
			continue;
		printf("interface %s:", stats_iface_name(slot, name,
							 sizeof(name)));
		for (i = 0; i < ARRAY_SIZE(stat_names); i++)
			printf("%s %s %llu", i ? "," : "", stat_names[i].name,
			       (unsigned long long)st->iface[slot][stat_names[i].stat]);
		putchar('\n');
	}
}

static void ifaces_json(struct json *j, const struct cf_stats *st)
{
	char name[IF_NAMESIZE + 16];
	unsigned int slot, i;

	json_key(j, "interfaces");
	json_array_begin(j);
	for (slot = 0; slot < CFILTER_STATS_IFACES; slot++) {
		if (!stats_iface_used(st, slot))
			continue;
		json_object_begin(j);
		json_kv_string(j, "interface",
			       stats_iface_name(slot, name, sizeof(name)));
		json_kv_uint(j, "ifindex", slot);
		for (i = 0; i < ARRAY_SIZE(stat_names); i++)
			json_kv_uint(j, stat_names[i].name,
				     st->iface[slot][stat_names[i].stat]);
		json_object_end(j);
	}
	json_array_end(j);
}

/*
 * The program's counters, then the drops of each source of the live set
 * (@src NULL: none to show), then the counters of each interface.
 */
static void print_counters(const struct cfctl_opts *o, const struct cf_stats *st,
			   const struct cfilter_sources *src)
{
	char name[CFILTER_SOURCE_LEN + 1];
	struct json j;
	unsigned int i;

	json_init(&j, stdout);
	if (o->json)
		json_object_begin(&j);
	for (i = 0; i < ARRAY_SIZE(stat_names); i++) {
		__u64 n = st->total[stat_names[i].stat];

		if (o->json)
			json_kv_uint(&j, stat_names[i].name, n);
		else
			printf("%s: %llu\n", stat_names[i].name,
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
	if (o->json) {
		ifaces_json(&j, st);
		json_object_end(&j);
	} else {
		print_ifaces(st);
	}
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
	for (i = 0; i < ARRAY_SIZE(stat_names); i++) {
		enum cfilter_stat s = stat_names[i].stat;
		__u64 rate = (cur[s] - prev[s]) / o->interval;

		if (o->json)
			json_kv_uint(&j, stat_names[i].name, rate);
		else
			printf("%s%s %llu/s", i ? " " : "", stat_names[i].name,
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
	/* Static: a struct cf_stats has a slot per interface. */
	static struct cf_stats prev, cur;
	unsigned int n;
	int ret;

	catch_stop_signals();
	ret = xdp_stats(&prev);
	for (n = 0; ret == CF_OK && (!o->count || n < o->count); n++) {
		sleep(o->interval);
		if (stop_watch)
			break;
		ret = xdp_stats(&cur);
		if (ret != CF_OK)
			break;
		print_rates(o, cur.total, prev.total);
		prev = cur;
	}
	return ret;
}

int do_stats(const struct cfctl_opts *o)
{
	static struct cf_stats st;
	struct cfilter_sources src;
	int ret;

	if (o->watch)
		return stats_watch(o);
	if (o->format == CF_FORMAT_PROMETHEUS)
		return stats_prometheus(o);
	ret = xdp_stats(&st);
	if (ret != CF_OK)
		return ret;
	print_counters(o, &st, dev_sources_quiet(&src) ? NULL : &src);
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
