// SPDX-License-Identifier: GPL-2.0
/*
 * Baselines for `make bench-xdp`: XDP programs that parse exactly as
 * cfilter's program does (bpf/cfilter_parse.h), then look the source
 * address up in one BPF map instead of calling the kfunc, and count the
 * verdict in a per-CPU array as cfilter's program does. What differs
 * between them and cfilter_xdp is the lookup, and only that.
 *
 *   xdp_parse: no lookup at all (the floor every program pays)
 *   xdp_hash:  BPF_MAP_TYPE_HASH of IPv4 addresses (xdp_hash6: IPv6)
 *   xdp_lpm:   BPF_MAP_TYPE_LPM_TRIE of IPv4 prefixes (/32 for an address)
 *   xdp_lpm6:  BPF_MAP_TYPE_LPM_TRIE of IPv6 prefixes
 *   xdp_bloom: BPF_MAP_TYPE_BLOOM_FILTER of IPv4 addresses (false
 *              positives; xdp_bloom6: IPv6)
 *   xdp_none:  returns at once, parsing nothing: the harness's own cost,
 *              the kernel's timing of one run, which every row includes
 *   xdp_word_one, xdp_word_any: a control, not a lookup. Each hashes the
 *              source address as the prefilter hashes it, then loads one
 *              64-bit word of an array the size of the prefilter's hashed
 *              bits: always the first (one), or the hashed one (any). The
 *              same instructions; only how many pages the loads touch
 *              differs, which is what the emulator's TLB charges for.
 *
 * A program looks up sources of its own family only; others pass. The
 * loader sizes the maps before loading.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/cfilter.h>
#include <bpf/bpf_helpers.h>

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

struct lpm_key6 {
	__u32	prefixlen;
	__u8	addr[16];
};

/* A key type, not a key size: libbpf gives a map both types or none. */
struct addr6 {
	__u8	b[16];
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
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct addr6);
	__type(value, __u8);
} hash_src6 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct lpm_key4);
	__type(value, __u8);
} lpm_src4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct lpm_key6);
	__type(value, __u8);
} lpm_src6 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(max_entries, 1);
	__uint(value_size, sizeof(__u32));
} bloom_src4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(max_entries, 1);
	__uint(value_size, 16);
} bloom_src6 SEC(".maps");

/* The control's words; the loader sizes it, a power of two. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} words SEC(".maps");

/* Index masks of xdp_word_one and xdp_word_any; the loader sets [1]. */
const volatile __u32 word_mask[2] = { 0, 0 };

enum lookup {
	LOOKUP_NONE,
	LOOKUP_HASH,
	LOOKUP_LPM,
	LOOKUP_BLOOM,
	LOOKUP_HASH6,
	LOOKUP_LPM6,
	LOOKUP_BLOOM6,
	LOOKUP_WORD_ONE,
	LOOKUP_WORD_ANY,
};

/* Never true (the words stay 0), but the load must be made to know it. */
static __always_inline bool load_word(const struct packet *pkt, int which)
{
	__u32 a, i;
	__u64 *v;

	__builtin_memcpy(&a, pkt->m.saddr, sizeof(a));
	i = cfilter_prefilter_hash4(CFILTER_KEY_SRC4, a) & word_mask[which];
	v = bpf_map_lookup_elem(&words, &i);
	return v && *v == 1;
}

static __always_inline bool lookup_src6(const struct packet *pkt,
					enum lookup how)
{
	struct lpm_key6 lk = { .prefixlen = 128 };
	struct addr6 a;

	__builtin_memcpy(a.b, pkt->m.saddr, sizeof(a.b));
	switch (how) {
	case LOOKUP_HASH6:
		return bpf_map_lookup_elem(&hash_src6, &a);
	case LOOKUP_LPM6:
		__builtin_memcpy(lk.addr, pkt->m.saddr, sizeof(lk.addr));
		return bpf_map_lookup_elem(&lpm_src6, &lk);
	case LOOKUP_BLOOM6:
		return bpf_map_peek_elem(&bloom_src6, &a) == 0;
	default:
		return false;
	}
}

static __always_inline bool lookup_src4(const struct packet *pkt,
					enum lookup how)
{
	struct lpm_key4 lk = { .prefixlen = 32 };
	__u32 addr;

	__builtin_memcpy(&addr, pkt->m.saddr, sizeof(addr));
	switch (how) {
	case LOOKUP_HASH:
		return bpf_map_lookup_elem(&hash_src4, &addr);
	case LOOKUP_LPM:
		__builtin_memcpy(lk.addr, pkt->m.saddr, sizeof(lk.addr));
		return bpf_map_lookup_elem(&lpm_src4, &lk);
	case LOOKUP_BLOOM:
		return bpf_map_peek_elem(&bloom_src4, &addr) == 0;
	case LOOKUP_WORD_ONE:
		return load_word(pkt, 0);
	case LOOKUP_WORD_ANY:
		return load_word(pkt, 1);
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
	enum parse_result res;
	struct packet pkt;
	__u32 stat;
	__u64 *n;

	res = parse_packet(&c, &pkt);
	/*
	 * Everything parsed is used, as cfilter's program uses it (ports for
	 * flows, the destination): else the compiler keeps of the parser
	 * only what finds the source address, and the baselines would parse
	 * less than the program they are measured against.
	 */
	asm volatile("" : : "r"(&pkt) : "memory");
	if (res < PARSE_OK)
		stat = STAT_UNPARSED;
	else if (how >= LOOKUP_HASH6 && how <= LOOKUP_BLOOM6 ?
		 pkt.m.family == PKT_IPV6 && lookup_src6(&pkt, how) :
		 pkt.m.family == PKT_IPV4 && lookup_src4(&pkt, how))
		stat = STAT_DROP;
	else
		stat = STAT_PASS;
	n = bpf_map_lookup_elem(&baseline_stats, &stat);
	if (n)
		*n += 1;
	return stat == STAT_DROP ? XDP_DROP : XDP_PASS;
}

SEC("xdp")
int xdp_none(struct xdp_md *ctx)
{
	return XDP_PASS;
}

/* One program per lookup, for the loader to pick by name. */
#define BASELINE_PROG(name, how)		\
	SEC("xdp")				\
	int name(struct xdp_md *ctx)		\
	{					\
		return run(ctx, how);		\
	}

BASELINE_PROG(xdp_parse, LOOKUP_NONE)
BASELINE_PROG(xdp_hash, LOOKUP_HASH)
BASELINE_PROG(xdp_lpm, LOOKUP_LPM)
BASELINE_PROG(xdp_bloom, LOOKUP_BLOOM)
BASELINE_PROG(xdp_hash6, LOOKUP_HASH6)
BASELINE_PROG(xdp_lpm6, LOOKUP_LPM6)
BASELINE_PROG(xdp_bloom6, LOOKUP_BLOOM6)
BASELINE_PROG(xdp_word_one, LOOKUP_WORD_ONE)
BASELINE_PROG(xdp_word_any, LOOKUP_WORD_ANY)

char LICENSE[] SEC("license") = "GPL";
