/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * cfilter: a cuckoo filter of blocked traffic keys, managed through
 * /dev/cfilter and consulted by an XDP program through a kfunc.
 *
 * Every structure here has fixed-size fields, explicit padding that must be
 * zero, and reserved room that must be zero, so that later versions can give
 * meaning to it without breaking old callers.
 */
#ifndef _UAPI_LINUX_CFILTER_H
#define _UAPI_LINUX_CFILTER_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define CFILTER_DEVICE		"/dev/cfilter"

/*
 * Key types. A key names one thing to block. Fields a type does not use must
 * be zero, so that one logical key has exactly one byte representation.
 */
enum cfilter_key_type {
	CFILTER_KEY_NONE	= 0,	/* invalid: catches zeroed keys */
	CFILTER_KEY_SRC4	= 1,	/* source IPv4 address: saddr[0..3] */
	CFILTER_KEY_SRC6	= 2,	/* source IPv6 address: saddr[0..15] */
	CFILTER_KEY_DST4	= 3,	/* destination IPv4 address: daddr[0..3] */
	CFILTER_KEY_DST6	= 4,	/* destination IPv6 address: daddr[0..15] */
	CFILTER_KEY_FLOW4	= 5,	/* IPv4 5-tuple: see below */
	CFILTER_KEY_FLOW6	= 6,	/* IPv6 5-tuple: see below */
	CFILTER_KEY_ALLOW4	= 7,	/* exempt IPv4 source: saddr[0..3] */
	CFILTER_KEY_ALLOW6	= 8,	/* exempt IPv6 source: saddr[0..15] */
	__CFILTER_KEY_MAX,
};

/*
 * Flow keys (FLOW4, FLOW6) name one 5-tuple: @proto, @saddr, @daddr, @sport,
 * @dport. @proto is IPPROTO_TCP (6) or IPPROTO_UDP (17), matched by ports;
 * or IPPROTO_ICMP (1, FLOW4 only) or IPPROTO_ICMPV6 (58, FLOW6 only),
 * matched by message type: @sport holds the type (0-255, network byte
 * order like a port) and @dport is zero. The module stores a flow key as
 * proto, saddr, daddr, sport, dport (13 bytes for FLOW4, 37 for FLOW6).
 *
 * An allow key (ALLOW4, ALLOW6) exempts a source address from blocking:
 * a packet from it passes whatever source, destination or flow key would
 * drop it.
 *
 * Every key type's @prefix_len is, for now, the full length of its
 * addresses: 32 for the IPv4 types, 128 for the IPv6 ones.
 */

/**
 * struct cfilter_key - one blocked key (40 bytes)
 * @type:       enum cfilter_key_type
 * @prefix_len: prefix length in bits; for address keys this is currently
 *              the full length (32 for SRC4, 128 for SRC6)
 * @proto:      IP protocol of a flow key; zero for address keys
 * @pad:        must be zero
 * @sport:      source port of a flow key, network byte order; else zero
 * @dport:      destination port of a flow key, network byte order; else zero
 * @saddr:      source address (SRC, FLOW and ALLOW keys), network byte
 *              order; an IPv4 address uses the first four bytes and the
 *              rest must be zero; else zero
 * @daddr:      destination address (DST and FLOW keys), laid out as @saddr;
 *              else zero
 */
struct cfilter_key {
	__u8	type;
	__u8	prefix_len;
	__u8	proto;
	__u8	pad;
	__be16	sport;
	__be16	dport;
	__u8	saddr[16];
	__u8	daddr[16];
};

/**
 * struct cfilter_key_req - argument of ADD, DEL and TEST
 * @key:   the key
 * @flags: no flags are defined yet; must be zero
 * @pad:   must be zero
 */
struct cfilter_key_req {
	struct cfilter_key key;
	__u32	flags;
	__u32	pad;
};

/**
 * struct cfilter_info - filter geometry and occupancy (CFILTER_IOC_INFO)
 * @size:             in: sizeof(struct cfilter_info) as the caller knows it;
 *                    out: number of bytes the kernel filled in
 * @flags:            in: must be zero
 * @capacity:         slots in the tables (@buckets * @slots_per_bucket)
 * @count:            fingerprints stored
 * @buckets:          number of buckets (a power of two per table)
 * @slots_per_bucket: slots per bucket
 * @fp_bits:          bits per fingerprint
 * @memory_bytes:     bytes of kernel memory the filter uses
 * @insert_failures:  adds refused with ENOSPC since load or last clear
 * @load_ppm:         @count / @capacity in parts per million
 * @max_kicks:        bound on the slots searched for a free one per insert
 * @mode:             enum cfilter_mode
 * @pad:              zero
 * @max_capacity:     exact mode: the keys the filter may grow to hold
 * @grows:            table doublings since the module was loaded
 * @reserved:         zero
 *
 * Counts, capacities and memory add up the tables of every key type.
 */
struct cfilter_info {
	__u32	size;
	__u32	flags;
	__u64	capacity;
	__u64	count;
	__u64	buckets;
	__u32	slots_per_bucket;
	__u32	fp_bits;
	__u64	memory_bytes;
	__u64	insert_failures;
	__u32	load_ppm;
	__u32	max_kicks;
	__u32	mode;
	__u32	pad;
	__u64	max_capacity;
	__u64	grows;
	__u64	reserved[3];
};

enum cfilter_mode {
	/* Full keys kept beside the fingerprints: no false positives. */
	CFILTER_MODE_EXACT	= 0,
	/* Fingerprints only: fewer bytes per key, false positives. */
	CFILTER_MODE_COMPACT	= 1,
};

enum cfilter_batch_op {
	CFILTER_BATCH_ADD	= 1,
	CFILTER_BATCH_DEL	= 2,
	CFILTER_BATCH_TEST	= 3,
};

/**
 * struct cfilter_batch - apply one operation to an array of keys
 * @op:          enum cfilter_batch_op
 * @flags:       none defined yet; must be zero
 * @keys:        user pointer to @count struct cfilter_key
 * @results:     user pointer to @count __s32, set to each key's result as
 *               its single-key ioctl would return it (0 or -errno)
 * @count:       number of keys
 * @done:        out: keys processed
 * @first_error: out: index of the first key whose result is not 0, or
 *               @count if there is none
 * @pad:         must be zero
 * @reserved:    must be zero
 *
 * Every key is checked before any is applied: a malformed key fails the
 * whole call with EINVAL, @first_error naming it, and nothing changes.
 */
struct cfilter_batch {
	__u32	op;
	__u32	flags;
	__u64	keys;
	__u64	results;
	__u32	count;
	__u32	done;
	__u32	first_error;
	__u32	pad;
	__u64	reserved[2];
};

/**
 * struct cfilter_list - read stored keys (exact mode)
 * @keys:     user pointer to room for @max struct cfilter_key
 * @max:      in: room in @keys
 * @count:    out: keys written; 0 at the end
 * @cursor:   in: 0 to start, else the value returned by the previous call;
 *            out: where the next call continues
 * @flags:    must be zero
 * @pad:      must be zero
 * @reserved: must be zero
 *
 * Keys added or deleted between calls may or may not be reported; every
 * other key is reported, and reported once unless the filter grew between
 * calls.
 */
struct cfilter_list {
	__u64	keys;
	__u32	max;
	__u32	count;
	__u64	cursor;
	__u32	flags;
	__u32	pad;
	__u64	reserved[2];
};

/*
 * A packet as the kfunc bpf_cfilter_match() takes it.
 */
enum cfilter_pkt_flags {
	/* @sport and @dport hold the flow fields: match flow keys */
	CFILTER_PKT_PORTS	= 1 << 0,
	/* match destination keys against @daddr */
	CFILTER_PKT_MATCH_DST	= 1 << 1,
};

/**
 * struct cfilter_pkt - the fields of a packet that keys match (40 bytes)
 * @family: 4 (IPv4) or 6 (IPv6)
 * @proto:  IP protocol of the transport header
 * @flags:  enum cfilter_pkt_flags
 * @pad:    must be zero
 * @sport:  with CFILTER_PKT_PORTS: the TCP or UDP source port, or the
 *          ICMP/ICMPv6 type, as in a flow key (network byte order); else 0
 * @dport:  with CFILTER_PKT_PORTS: the TCP or UDP destination port, or 0
 *          for ICMP/ICMPv6; else 0
 * @saddr:  source address, network byte order; IPv4 in the first 4 bytes,
 *          the rest zero
 * @daddr:  destination address, laid out as @saddr
 *
 * A non-first fragment has no transport header: leave CFILTER_PKT_PORTS
 * clear, and only its addresses are matched.
 */
struct cfilter_pkt {
	__u8	family;
	__u8	proto;
	__u8	flags;
	__u8	pad;
	__be16	sport;
	__be16	dport;
	__u8	saddr[16];
	__u8	daddr[16];
};

/*
 * What bpf_cfilter_match() decides. The source is looked up first, then the
 * destination (with CFILTER_PKT_MATCH_DST), then the flow (with
 * CFILTER_PKT_PORTS); the first hit is the would-be drop, and an allow key
 * for the source turns any of them into CFILTER_ALLOWED.
 */
enum cfilter_verdict {
	CFILTER_PASS		= 0,	/* no key matches */
	CFILTER_DROP_SRC	= 1,	/* the source address is blocked */
	CFILTER_DROP_DST	= 2,	/* the destination address is blocked */
	CFILTER_DROP_FLOW	= 3,	/* the 5-tuple is blocked */
	CFILTER_ALLOWED		= 4,	/* blocked, but the source is exempt */
};

/*
 * Indices of the XDP program's per-CPU counter map ("cfilter_stats"). Every
 * packet is counted exactly once.
 */
enum cfilter_stat {
	CFILTER_STAT_PASS	= 0,	/* parsed, not blocked: XDP_PASS */
	CFILTER_STAT_DROP_SRC	= 1,	/* source blocked: XDP_DROP */
	CFILTER_STAT_UNPARSED	= 2,	/* not IP, truncated or malformed: XDP_PASS */
	CFILTER_STAT_DROP_DST	= 3,	/* destination blocked: XDP_DROP */
	CFILTER_STAT_DROP_FLOW	= 4,	/* 5-tuple blocked: XDP_DROP */
	CFILTER_STAT_ALLOWED	= 5,	/* blocked but exempt source: XDP_PASS */
	__CFILTER_STAT_MAX,
};

/*
 * 0xCF is shared with one CIFS ioctl (nr 0x02); cfilter uses nr 0x40-0x5F.
 *
 * ADD:   0, or EEXIST if the key is present (compact mode: or one
 *        indistinguishable from it), ENOSPC if the filter is full, ENOMEM
 *        if it could not grow (nothing stored is lost either way)
 * DEL:   0, or ENOENT if the key is not present
 * TEST:  0 if the key is present, ENOENT if not
 * CLEAR: removes every key
 * INFO:  fills struct cfilter_info
 * BATCH: struct cfilter_batch; 0 once every key was processed (per-key
 *        results in the array), EINVAL for a malformed key (nothing done)
 * LIST:  struct cfilter_list; EOPNOTSUPP in compact mode
 * ADD, DEL, CLEAR and BATCH with ADD or DEL need CAP_NET_ADMIN.
 */
#define CFILTER_IOC_MAGIC	0xCF

#define CFILTER_IOC_ADD		_IOW (CFILTER_IOC_MAGIC, 0x40, struct cfilter_key_req)
#define CFILTER_IOC_DEL		_IOW (CFILTER_IOC_MAGIC, 0x41, struct cfilter_key_req)
#define CFILTER_IOC_TEST	_IOW (CFILTER_IOC_MAGIC, 0x42, struct cfilter_key_req)
#define CFILTER_IOC_CLEAR	_IO  (CFILTER_IOC_MAGIC, 0x43)
#define CFILTER_IOC_INFO	_IOWR(CFILTER_IOC_MAGIC, 0x44, struct cfilter_info)
#define CFILTER_IOC_BATCH	_IOWR(CFILTER_IOC_MAGIC, 0x45, struct cfilter_batch)
#define CFILTER_IOC_LIST	_IOWR(CFILTER_IOC_MAGIC, 0x46, struct cfilter_list)

#endif /* _UAPI_LINUX_CFILTER_H */
