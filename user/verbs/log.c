// SPDX-License-Identifier: GPL-2.0
/*
 * The verb log: a line per dropped packet the programs describe (the drop
 * log, xdp/droplog.h), filtered, and a line a second saying how many drops
 * the rate limit left out meanwhile; and what top shares of it: the
 * filters and how an event is named.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/addr.h"
#include "lib/json.h"
#include "lib/source_name.h"
#include "verbs/log.h"
#include "verbs/verb.h"
#include "xdp/counters.h"
#include "xdp/droplog.h"

/**
 * log_filter_init() - the filters of log and top, from their options
 * @f:    set
 * @o:    -s, --iface and the CIDR argument
 * @verb: for messages
 *
 * Return: enum cf_exit: CF_USAGE for an unknown interface or a bad CIDR.
 */
int log_filter_init(struct log_filter *f, const struct cfctl_opts *o,
		    const char *verb)
{
	bool masked;

	memset(f, 0, sizeof(*f));
	f->source = o->source;
	if (o->iface) {
		f->ifindex = if_nametoindex(o->iface);
		if (!f->ifindex) {
			cf_err("%s: unknown interface '%s'", verb, o->iface);
			return CF_USAGE;
		}
	}
	if (!o->arg)
		return CF_OK;
	f->family = prefix_parse(o->arg, f->addr, &f->len, &masked);
	if (f->family < 0) {
		cf_err("%s: invalid CIDR '%s': expected an address or a prefix such as 192.0.2.0/24 or 2001:db8::/32",
		       verb, o->arg);
		return CF_USAGE;
	}
	if (masked) {
		cf_err("%s: %s: host bits set (a prefix has its host bits zero)",
		       verb, o->arg);
		return CF_USAGE;
	}
	return CF_OK;
}

/* Is @addr in the prefix @f names? */
static bool in_prefix(const struct log_filter *f, const __u8 *addr)
{
	unsigned int i;

	for (i = 0; i < f->len; i++)
		if ((addr[i / 8] ^ f->addr[i / 8]) & (0x80 >> (i % 8)))
			return false;
	return true;
}

/* Does @ev pass the filters? The CIDR: its source or its destination. */
bool log_filter_match(const struct log_filter *f,
		      const struct cfilter_log_event *ev)
{
	char source[CFILTER_SOURCE_LEN];

	if (f->ifindex && ev->ifindex != f->ifindex)
		return false;
	if (f->source && strcmp(log_source(ev, source), f->source))
		return false;
	return !f->family ||
	       (ev->pkt.family == f->family &&
		(in_prefix(f, ev->pkt.saddr) || in_prefix(f, ev->pkt.daddr)));
}

/*
 * The source of @ev's entry into @buf (CFILTER_SOURCE_LEN bytes): "" if
 * none, "?" for a name the module read torn.
 */
const char *log_source(const struct cfilter_log_event *ev, char *buf)
{
	snprintf(buf, CFILTER_SOURCE_LEN, "%.*s", CFILTER_SOURCE_LEN - 1,
		 ev->entry.source);
	if (*buf && !source_name_ok(buf))
		strcpy(buf, "?");
	return buf;
}

/* The entry of @ev as `cfctl load` takes it; "" if none. */
const char *log_entry(const struct cfilter_log_event *ev, char *buf,
		      size_t len)
{
	if (ev->entry.key.type == CFILTER_KEY_NONE) {
		*buf = '\0';
		return buf;
	}
	return entry_format(&ev->entry.key, buf, len);
}

/* An address of an event's packet, as text. */
const char *log_addr(int family, const __u8 *addr, char *buf, size_t len)
{
	return inet_ntop(family == 6 ? AF_INET6 : AF_INET, addr, buf, len);
}

/* The counter the drop went to, as cfctl stats names it. */
const char *log_reason(const struct cfilter_log_event *ev)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(stat_names); i++)
		if (stat_names[i].stat == ev->kind)
			return stat_names[i].name;
	return "dropped";
}

static const char *proto_word(const struct cfilter_pkt *p)
{
	switch (p->proto) {
	case IPPROTO_TCP:
		return "tcp";
	case IPPROTO_UDP:
		return "udp";
	case IPPROTO_ICMP:
		return "icmp";
	case IPPROTO_ICMPV6:
		return "icmp6";
	default:
		return NULL;
	}
}

static bool has_ports(const struct cfilter_pkt *p)
{
	return (p->flags & CFILTER_PKT_PORTS) &&
	       (p->proto == IPPROTO_TCP || p->proto == IPPROTO_UDP);
}

static bool has_type(const struct cfilter_pkt *p)
{
	return (p->flags & CFILTER_PKT_PORTS) &&
	       (p->proto == IPPROTO_ICMP || p->proto == IPPROTO_ICMPV6);
}

/* "ADDR[:PORT]", IPv6 in brackets before a port. */
static void endpoint(FILE *out, const struct cfilter_pkt *p, const __u8 *addr,
		     __be16 port)
{
	char a[INET6_ADDRSTRLEN];
	bool ports = has_ports(p);

	log_addr(p->family, addr, a, sizeof(a));
	if (ports && p->family == 6)
		fprintf(out, "[%s]:%u", a, ntohs(port));
	else if (ports)
		fprintf(out, "%s:%u", a, ntohs(port));
	else
		fputs(a, out);
}

/* "PROTO SRC > DST[ type T| fragment]", as tcpdump would say it. */
static void packet_text(FILE *out, const struct cfilter_pkt *p)
{
	const char *proto = proto_word(p);

	if (p->family != 4 && p->family != 6) {
		fputs("frame", out);
		return;
	}
	if (proto)
		fprintf(out, "%s ", proto);
	else
		fprintf(out, "proto %u ", p->proto);
	endpoint(out, p, p->saddr, p->sport);
	fputs(" > ", out);
	endpoint(out, p, p->daddr, p->dport);
	if (has_type(p))
		fprintf(out, " type %u", ntohs(p->sport));
	else if (proto && !(p->flags & CFILTER_PKT_PORTS))
		fputs(" fragment", out);
}

/* @ev's time as the epoch's, from CLOCK_MONOTONIC's. */
static void event_time(const struct log_reader *r,
		       const struct cfilter_log_event *ev, struct timespec *ts)
{
	long long ns = (long long)ev->time_ns + r->mono_to_real;

	ts->tv_sec = ns / 1000000000LL;
	ts->tv_nsec = ns % 1000000000LL;
}

static const char *iface_name(unsigned int ifindex, char *buf)
{
	if (!if_indextoname(ifindex, buf))
		snprintf(buf, IF_NAMESIZE, "if%u", ifindex);
	return buf;
}

/*
 * "TIME IFACE PACKET: REASON by ENTRY, source NAME", the time local, to
 * the microsecond.
 */
static void event_text(const struct log_reader *r,
		       const struct cfilter_log_event *ev)
{
	char when[32], ifname[IF_NAMESIZE], entry[ENTRY_STRLEN];
	char source[CFILTER_SOURCE_LEN];
	struct timespec ts;
	struct tm tm;

	event_time(r, ev, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	printf("%s.%06ld %s ", when, ts.tv_nsec / 1000,
	       iface_name(ev->ifindex, ifname));
	packet_text(stdout, &ev->pkt);
	printf(": %s", log_reason(ev));
	if (!ev->verdict)
		printf(" (no entry: the policy's)\n");
	else if (!*log_entry(ev, entry, sizeof(entry)))
		printf(" (by an entry gone since)\n");
	else
		printf(" by %s, source %s\n", entry, log_source(ev, source));
}

static void event_json(const struct log_reader *r,
		       const struct cfilter_log_event *ev)
{
	char when[48], ifname[IF_NAMESIZE], a[INET6_ADDRSTRLEN];
	char entry[ENTRY_STRLEN], source[CFILTER_SOURCE_LEN], proto[16];
	const struct cfilter_pkt *p = &ev->pkt;
	struct timespec ts;
	struct json j;
	struct tm tm;
	size_t n;

	event_time(r, ev, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + n, sizeof(when) - n, ".%06ldZ", ts.tv_nsec / 1000);
	json_init(&j, stdout);
	json_object_begin(&j);
	json_kv_string(&j, "time", when);
	json_kv_string(&j, "interface", iface_name(ev->ifindex, ifname));
	json_kv_string(&j, "hook", ev->hook == CFILTER_LOG_TC ? "tc" : "xdp");
	json_kv_uint(&j, "cpu", ev->cpu);
	if (p->family == 4 || p->family == 6) {
		json_kv_uint(&j, "family", p->family);
		json_kv_string(&j, "saddr", log_addr(p->family, p->saddr, a,
						     sizeof(a)));
		json_kv_string(&j, "daddr", log_addr(p->family, p->daddr, a,
						     sizeof(a)));
		snprintf(proto, sizeof(proto), "%u", p->proto);
		json_kv_string(&j, "proto", proto_word(p) ? proto_word(p) :
							  proto);
	}
	if (has_ports(p)) {
		json_kv_uint(&j, "sport", ntohs(p->sport));
		json_kv_uint(&j, "dport", ntohs(p->dport));
	} else if (has_type(p)) {
		json_kv_uint(&j, "icmp_type", ntohs(p->sport));
	}
	json_kv_string(&j, "reason", log_reason(ev));
	if (*log_entry(ev, entry, sizeof(entry))) {
		json_kv_string(&j, "entry", entry);
		json_kv_string(&j, "source", log_source(ev, source));
	}
	json_object_end(&j);
}

/* A run of log: its options, filters and reader, and what it printed. */
struct log_run {
	const struct cfctl_opts	*o;
	struct log_filter	f;
	struct log_reader	r;
	unsigned long long	shown;
	__u64			reported;	/* left out, said so far */
	bool			write_failed;
};

static bool output_ok(struct log_run *lr)
{
	if (!fflush(stdout) && !ferror(stdout))
		return true;
	lr->write_failed = true;
	return false;
}

static int on_event(void *ctx, const struct cfilter_log_event *ev)
{
	struct log_run *lr = ctx;

	if (!log_filter_match(&lr->f, ev))
		return 0;
	if (lr->o->json)
		event_json(&lr->r, ev);
	else
		event_text(&lr->r, ev);
	if (!output_ok(lr))
		return LOG_ENOUGH;
	if (lr->o->count && ++lr->shown >= lr->o->count)
		return LOG_ENOUGH;
	return 0;
}

/* The drops left out since the last such line, if any: one more line. */
static int report_left_out(struct log_run *lr)
{
	struct json j;
	__u64 left;

	if (log_reader_left_out(&lr->r, &left))
		return -1;
	if (left <= lr->reported)
		return 0;
	if (lr->o->json) {
		json_init(&j, stdout);
		json_object_begin(&j);
		json_kv_uint(&j, "left_out", left - lr->reported);
		json_kv_uint(&j, "rate", lr->r.rate);
		json_object_end(&j);
	} else {
		printf("-- %llu drops left out (at most %u events/s per CPU)\n",
		       (unsigned long long)(left - lr->reported), lr->r.rate);
	}
	lr->reported = left;
	return output_ok(lr) ? 0 : -1;
}

/* Reads until a signal, --count or --duration; returns enum cf_exit. */
static int log_loop(struct log_run *lr)
{
	__u64 now = mono_ns(), next = now + 1000000000ULL, end = 0, wake;
	int n = 0;

	if (lr->o->duration)
		end = now + lr->o->duration * 1000000000ULL;
	while (!log_stop) {
		now = mono_ns();
		if (end && now >= end)
			break;
		if (now >= next) {
			if (report_left_out(lr))
				return CF_SYSTEM;
			next = now + 1000000000ULL;
		}
		wake = end && end < next ? end : next;
		n = log_reader_poll(&lr->r, (wake - now) / 1000000 + 1);
		if (n < 0)
			return CF_SYSTEM;
		if (n)
			break;
	}
	if (!n && log_reader_drain(&lr->r) < 0)
		return CF_SYSTEM;
	if (lr->write_failed || report_left_out(lr)) {
		if (lr->write_failed)
			cf_err("log: cannot write the output: %m");
		return CF_SYSTEM;
	}
	return CF_OK;
}

/**
 * do_log() - print the dropped packets the programs describe
 * @o: -j, -s, --iface, the CIDR, --rate, --count, --duration
 *
 * Return: enum cf_exit: 0 when a signal, --count or --duration ends it.
 */
int do_log(const struct cfctl_opts *o)
{
	struct log_run lr = { .o = o };
	int ret;

	ret = log_filter_init(&lr.f, o, "log");
	if (ret != CF_OK)
		return ret;
	log_stop_on_signals();
	ret = log_reader_open(&lr.r, o->rate, o->verbose, on_event, &lr);
	if (ret != CF_OK)
		return ret;
	fprintf(stderr, "cfctl log: listening, at most %u events/s per CPU\n",
		lr.r.rate);
	ret = log_loop(&lr);
	log_reader_close(&lr.r);
	return ret;
}
