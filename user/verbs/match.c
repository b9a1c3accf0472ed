// SPDX-License-Identifier: GPL-2.0
/* The verb match: what the filter does with one packet, and why. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/device.h"
#include "lib/addr.h"
#include "lib/json.h"
#include "lib/source_name.h"
#include "verbs/verb.h"

/* A decimal number in [0, @max] for match; false if @s is not one. */
static bool match_number(const char *s, unsigned long max, __be16 *v)
{
	unsigned long n;
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || n > max)
		return false;
	*v = htons(n);
	return true;
}

/* The transport words of match: "tcp|udp SPORT DPORT" or "icmp|icmp6 TYPE". */
static int match_transport(char *const w[], int n, int v,
			   struct cfilter_pkt *pkt)
{
	bool icmp = !strcmp(w[0], "icmp") || !strcmp(w[0], "icmp6");

	if (strcmp(w[0], "tcp") && strcmp(w[0], "udp") && !icmp) {
		cf_err("match: unexpected '%s': expected tcp, udp, icmp or icmp6 after SRC DST",
		       w[0]);
		return CF_USAGE;
	}
	if (n != (icmp ? 2 : 3)) {
		cf_err("match: wrong number of words after '%s': expected %s",
		       w[0], icmp ? "icmp|icmp6 TYPE" : "tcp|udp SPORT DPORT");
		return CF_USAGE;
	}
	if (icmp && (w[0][4] == '6') != (v == 6)) {
		cf_err("match: '%s' with IPv%d addresses: use icmp for IPv4, icmp6 for IPv6",
		       w[0], v);
		return CF_USAGE;
	}
	if (icmp) {
		pkt->proto = v == 6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
		if (!match_number(w[1], 255, &pkt->sport)) {
			cf_err("match: invalid ICMP type '%s': expected 0 to 255", w[1]);
			return CF_USAGE;
		}
	} else {
		pkt->proto = !strcmp(w[0], "tcp") ? IPPROTO_TCP : IPPROTO_UDP;
		if (!match_number(w[1], 65535, &pkt->sport) ||
		    !match_number(w[2], 65535, &pkt->dport)) {
			cf_err("match: invalid port '%s': expected 0 to 65535",
			       match_number(w[1], 65535, &pkt->sport) ? w[2] : w[1]);
			return CF_USAGE;
		}
	}
	pkt->flags |= CFILTER_PKT_PORTS;
	return CF_OK;
}

/* "SRC [DST] [transport]" into @pkt; returns enum cf_exit. */
static int match_parse(char *const w[], int n, struct cfilter_pkt *pkt)
{
	const char *which = "SRC";
	int v = 0, v2, i;

	memset(pkt, 0, sizeof(*pkt));
	for (i = 0; i < 2 && i < n; i++) {
		v2 = addr_parse(w[i], i ? pkt->daddr : pkt->saddr);
		if (v2 < 0 && i == 1)
			break;	/* no DST: the transport words follow */
		if (v2 < 0 && strpbrk(w[i], "/-"))
			cf_err("match: %s '%s' is a prefix or range: match takes a packet, whose %s is one address",
			       which, w[i], which);
		else if (v2 < 0)
			cf_err("match: invalid %s '%s': expected an IPv4 or IPv6 address",
			       which, w[i]);
		if (v2 < 0)
			return CF_USAGE;
		if (i && v2 != v) {
			cf_err("match: DST '%s' is not of SRC's IP version", w[i]);
			return CF_USAGE;
		}
		v = v2;
		which = "DST";
	}
	pkt->family = v;
	if (i == 2)
		pkt->flags |= CFILTER_PKT_MATCH_DST;
	if (i == n)
		return CF_OK;
	if (i == 1) {
		cf_err("match: '%s' after SRC: a flow needs DST too: cfctl match SRC DST %s ...",
		       w[1], w[1]);
		return CF_USAGE;
	}
	return match_transport(w + 2, n - 2, v, pkt);
}

/* "drop", "pass" or "allowed": what becomes of the packet. */
const char *verdict_word(__u32 verdict)
{
	if (CFILTER_VERDICT_DROPS(verdict))
		return "drop";
	return CFILTER_VERDICT_KIND(verdict) == CFILTER_ALLOWED ? "allowed" :
								  "pass";
}

/* Why: "source prefix", "exception", ...; NULL for a pass. */
const char *verdict_reason(__u32 verdict)
{
	switch (CFILTER_VERDICT_KIND(verdict)) {
	case CFILTER_PASS:
		return NULL;
	case CFILTER_DROP_SRC:
		return "source address";
	case CFILTER_DROP_DST:
		return "destination address";
	case CFILTER_DROP_FLOW:
		return "flow";
	case CFILTER_ALLOWED:
		return "exception";
	case CFILTER_DROP_PREFIX:
		return verdict & CFILTER_VERDICT_DST ? "destination prefix" :
						       "source prefix";
	default:
		return "a reason this cfctl does not know";
	}
}

/* The packet match asked about, and the verdict, as one JSON document. */
static void match_json(const struct cfilter_pkt *pkt, const char *word,
		       const char *reason, const char *source)
{
	int af = pkt->family == 6 ? AF_INET6 : AF_INET;
	char a[INET6_ADDRSTRLEN];
	struct json j;

	json_init(&j, stdout);
	json_object_begin(&j);
	json_kv_string(&j, "saddr", inet_ntop(af, pkt->saddr, a, sizeof(a)));
	if (pkt->flags & CFILTER_PKT_MATCH_DST)
		json_kv_string(&j, "daddr",
			       inet_ntop(af, pkt->daddr, a, sizeof(a)));
	if (pkt->proto == IPPROTO_TCP || pkt->proto == IPPROTO_UDP) {
		json_kv_string(&j, "proto",
			       pkt->proto == IPPROTO_TCP ? "tcp" : "udp");
		json_kv_uint(&j, "sport", ntohs(pkt->sport));
		json_kv_uint(&j, "dport", ntohs(pkt->dport));
	} else if (pkt->proto) {
		json_kv_string(&j, "proto", af == AF_INET6 ? "icmp6" : "icmp");
		json_kv_uint(&j, "icmp_type", ntohs(pkt->sport));
	}
	json_kv_string(&j, "verdict", word);
	if (reason) {
		json_kv_string(&j, "reason", reason);
		json_kv_string(&j, "source", source);
	}
	json_object_end(&j);
}

int do_match(const struct cfctl_opts *o)
{
	char source[CFILTER_SOURCE_LEN + 1];
	struct cfilter_match_req mr;
	struct cfilter_pkt pkt;
	const char *reason;
	int fd, err, ret;

	ret = match_parse(o->words, o->nwords, &pkt);
	if (ret != CF_OK)
		return ret;
	fd = dev_open(false);
	if (fd < 0)
		return CF_SYSTEM;
	err = dev_match(fd, &pkt, &mr);
	close(fd);
	if (err) {
		dev_report(err, "cannot match");
		return CF_SYSTEM;
	}
	snprintf(source, sizeof(source), "%.*s", CFILTER_SOURCE_LEN,
		 mr.source);
	reason = verdict_reason(mr.verdict);
	if (o->json)
		match_json(&pkt, verdict_word(mr.verdict), reason, source);
	else if (reason && !source_is_default(source))
		printf("%s (%s), source %s\n", verdict_word(mr.verdict),
		       reason, source);
	else if (reason)
		printf("%s (%s)\n", verdict_word(mr.verdict), reason);
	else
		printf("%s\n", verdict_word(mr.verdict));
	return CFILTER_VERDICT_DROPS(mr.verdict) ? CF_OK : CF_ABSENT;
}
