// SPDX-License-Identifier: GPL-2.0
/*
 * Baselines for `make bench-xdp`: XDP programs that parse exactly as
 * cfilter's program does (bpf/cfilter_parse.h), then look the IPv4 source
 * address up in one BPF map instead of calling the kfunc, and count the
 * verdict in a per-CPU array as cfilter's program does. What differs
 * between them and cfilter_xdp is the lookup, and only that.
 *
 *   xdp_parse: no lookup at all (the floor every program pays)
 *   xdp_hash:  BPF_MAP_TYPE_HASH of addresses
 *   xdp_lpm:   BPF_MAP_TYPE_LPM_TRIE of prefixes (/32 for an address)
 *   xdp_bloom: BPF_MAP_TYPE_BLOOM_FILTER of addresses (false positives)
 *
 * and one experiment, not a baseline: xdp_summary calls cfilter's kfunc
 * only for a source whose /16 holds a key according to a bitmap the loader
 * fills from the same keys (summary_16). It measures what such a summary
 * in front of the module's probes would save; cfilter's own program has
 * none, as a second copy of the set kept outside the module could go stale.
 *
 * The loader sizes the maps before loading.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/cfilter.h>
#include <bpf/bpf_helpers.h>

#include "cfilter_kfuncs.h"
#include "cfilter_parse.h"

/* Indices of baseline_stats. */
enum {
	STAT_PASS,
	STAT_DROP,
	STAT_UNPARSED,
	STAT_MAX,
};

struct lpm_key4 {
	__u32	prefixlen;
	__u8	addr[4];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} baseline_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8);
} hash_src4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct lpm_key4);
	__type(value, __u8);
} lpm_src4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(max_entries, 1);
	__uint(value_size, sizeof(__u32));
} bloom_src4 SEC(".maps");

/* One bit per /16 of IPv4: 2048 words of 32 bits. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 65536 / 32);
	__type(key, __u32);
	__type(value, __u32);
} summary_16 SEC(".maps");

enum lookup {
	LOOKUP_NONE,
	LOOKUP_HASH,
	LOOKUP_LPM,
	LOOKUP_BLOOM,
	LOOKUP_SUMMARY,
};

/* cfilter's verdict on a TCP or UDP packet, asked as cfilter_xdp asks. */
static __always_inline bool cfilter_drops(const struct packet *pkt)
{
	struct cfilter_pkt m;
	int v;

	__builtin_memset(&m, 0, sizeof(m));
	m.family = pkt->family;
	m.proto = pkt->l4_proto;
	if (pkt->flags & PKT_PORTS) {
		m.flags = CFILTER_PKT_PORTS;
		m.sport = pkt->sport;
		m.dport = pkt->dport;
	}
	__builtin_memcpy(m.saddr, pkt->saddr, 16);
	__builtin_memcpy(m.daddr, pkt->daddr, 16);
	v = bpf_cfilter_match(&m, sizeof(m));
	return v > 0 && CFILTER_VERDICT_DROPS(v);
}

static __always_inline bool summary_says_maybe(const struct packet *pkt)
{
	__u32 slash16 = pkt->saddr[0] << 8 | pkt->saddr[1];
	__u32 word = slash16 / 32;
	__u32 *bits = bpf_map_lookup_elem(&summary_16, &word);

	return bits && (*bits >> (slash16 % 32) & 1);
}

static __always_inline bool lookup_src4(const struct packet *pkt,
					enum lookup how)
{
	struct lpm_key4 lk = { .prefixlen = 32 };
	__u32 addr;

	__builtin_memcpy(&addr, pkt->saddr, sizeof(addr));
	switch (how) {
	case LOOKUP_HASH:
		return bpf_map_lookup_elem(&hash_src4, &addr);
	case LOOKUP_LPM:
		__builtin_memcpy(lk.addr, pkt->saddr, sizeof(lk.addr));
		return bpf_map_lookup_elem(&lpm_src4, &lk);
	case LOOKUP_BLOOM:
		return bpf_map_peek_elem(&bloom_src4, &addr) == 0;
	case LOOKUP_SUMMARY:
		return summary_says_maybe(pkt) && cfilter_drops(pkt);
	default:
		return false;
	}
}

static __always_inline int run(struct xdp_md *ctx, enum lookup how)
{
	struct cursor c = {
		.pos = (void *)(long)ctx->data,
		.end = (void *)(long)ctx->data_end,
	};
	struct packet pkt;
	__u32 stat;
	__u64 *n;

	if (parse_packet(&c, &pkt) < PARSE_OK)
		stat = STAT_UNPARSED;
	else if (pkt.family == PKT_IPV4 && lookup_src4(&pkt, how))
		stat = STAT_DROP;
	else
		stat = STAT_PASS;
	n = bpf_map_lookup_elem(&baseline_stats, &stat);
	if (n)
		*n += 1;
	return stat == STAT_DROP ? XDP_DROP : XDP_PASS;
}

SEC("xdp")
int xdp_parse(struct xdp_md *ctx)
{
	return run(ctx, LOOKUP_NONE);
}

SEC("xdp")
int xdp_hash(struct xdp_md *ctx)
{
	return run(ctx, LOOKUP_HASH);
}

SEC("xdp")
int xdp_lpm(struct xdp_md *ctx)
{
	return run(ctx, LOOKUP_LPM);
}

SEC("xdp")
int xdp_bloom(struct xdp_md *ctx)
{
	return run(ctx, LOOKUP_BLOOM);
}

SEC("xdp")
int xdp_summary(struct xdp_md *ctx)
{
	return run(ctx, LOOKUP_SUMMARY);
}

char LICENSE[] SEC("license") = "GPL";
