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
 * Prefixes. An address key (SRC, DST, ALLOW) names a CIDR prefix when its
 * @prefix_len is shorter than the full length of its addresses (32 for the
 * IPv4 types, 128 for the IPv6 ones): 0-32 and 0-128. The address bits
 * beyond @prefix_len must be zero (192.0.2.0/24, not 192.0.2.7/24), so
 * that one prefix has one representation. A full-length key is a single
 * address. Prefix and address keys of one type coexist; a packet matches a
 * type if its address equals an address key or lies in a prefix key.
 * Flow keys always carry the full length.
 *
 * Delete and LIST of a prefix are exact, in either mode. How prefixes are
 * stored and matched: docs/design.md.
 *
 * The allow list wins: a packet whose source matches an allow key (address
 * or prefix) passes whatever block key matches it.
 */

/**
 * struct cfilter_key - one blocked key (40 bytes)
 * @type:       enum cfilter_key_type
 * @prefix_len: prefix length in bits: the full length (32 or 128) for a
 *              flow or a single address, shorter for a prefix (see above)
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

/*
 * Sources. Every entry is held by one or more named sources (a feed, a
 * fail2ban jail, CrowdSec, the operator), each holding with its own timeout
 * or none. An entry stays in the filter while any source holds it: adding
 * it again from another source adds a holding, deleting it from one source
 * removes that holding only. A source name is 1 to CFILTER_SOURCE_LEN - 1
 * characters of [A-Za-z0-9_.:@-], not starting with '-'; the empty name
 * means "default", the source of requests that name none. A set holds at
 * most CFILTER_SOURCES_MAX sources, "default" always; another exists while
 * it holds entries, and after that while it has dropped packets, so that
 * its count of drops lasts: SOURCES lists such an emptied source with 0
 * entries and its drops, which go on from there if it holds entries again,
 * across CLEAR and replaces (each source's count goes to the new set), as
 * long as the module is loaded. A new source that finds every place taken
 * takes that of the emptied source that dropped least, whose count is
 * lost; EUSERS only if every source holds entries. So counts last until
 * the module is unloaded while no more than CFILTER_SOURCES_MAX sources
 * hold entries or have dropped packets. Compact mode stores fingerprints
 * only, so it knows one source, "default", and no timeouts (EOPNOTSUPP).
 *
 * Timeouts are seconds from the request, 1 to CFILTER_TIMEOUT_MAX; 0 means
 * permanent. The module removes an expired holding within a second of its
 * deadline, with no help from userspace, and the entry with its last one.
 */
#define CFILTER_SOURCE_LEN	32
#define CFILTER_SOURCES_MAX	32
#define CFILTER_TIMEOUT_MAX	0x7fffffffU

/*
 * Flags of requests.
 * CFILTER_F_STAGED: act on the set staged on this open file by
 * CFILTER_IOC_STAGE (see there) instead of the live one.
 * CFILTER_F_ALL_SOURCES: DEL removes every source's holding of the entry,
 * TEST and LIST look at every source's; the source name must be empty.
 */
#define CFILTER_F_STAGED	(1U << 0)
#define CFILTER_F_ALL_SOURCES	(1U << 1)

/**
 * struct cfilter_key_req - argument of ADD, DEL and TEST (80 bytes)
 * @key:     the key
 * @flags:   CFILTER_F_STAGED; DEL and TEST: CFILTER_F_ALL_SOURCES
 * @timeout: ADD: seconds until this source's holding expires, 0 for never;
 *           adding a holding that exists sets its timeout anew (EEXIST);
 *           DEL and TEST: must be zero
 * @source:  the source, NUL-terminated and NUL-padded; "" for "default"
 *
 * TEST asks whether this very key is stored (an address inside a stored
 * prefix is not) and held by @source, or by any source with
 * CFILTER_F_ALL_SOURCES; CFILTER_IOC_MATCH asks what a packet would meet.
 */
struct cfilter_key_req {
	struct cfilter_key key;
	__u32	flags;
	__u32	timeout;
	char	source[CFILTER_SOURCE_LEN];
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
 * @prefixes:         prefix keys stored (included in @count)
 * @prefix_markers:   markers the prefix search keeps (not in @count)
 * @timed:            holdings with a timeout, every source
 * @mem_used:         bytes charged against the module's memory bound:
 *                    all that every set allocates, staged sets included,
 *                    and the copies of a table DUMP and RESTORE make, at
 *                    what the kernel's allocators take for them
 * @mem_limit:        that bound (max_memory=, in bytes): an add, load or
 *                    stage that would pass it fails with EDQUOT
 *
 * Counts, capacities and memory add up the tables of every key type,
 * prefix tables included.
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
	__u64	prefixes;
	__u64	prefix_markers;
	__u64	timed;
	__u64	mem_used;
	__u64	mem_limit;
};

/**
 * struct cfilter_type_info - one key type's tables (CFILTER_IOC_TYPE_INFO)
 * @type:           in: enum cfilter_key_type
 * @probes:         out: table probes a lookup makes at most (address types;
 *                  0 for flows)
 * @lengths:        out: distinct prefix lengths stored
 * @flags:          in: 0 or CFILTER_F_STAGED
 * @pad:            zero
 * @count:          out: keys stored, addresses or flows and prefixes
 * @prefixes:       out: prefix keys among them
 * @prefix_markers: out: markers the prefix search keeps
 * @memory_bytes:   out: kernel memory of this type's tables
 * @capacity:       out: slots of the address or flow table
 * @reserved:       zero
 */
struct cfilter_type_info {
	__u8	type;
	__u8	probes;
	__u8	lengths;
	__u8	pad[13];
	__u32	flags;
	__u32	pad2;
	__u64	count;
	__u64	prefixes;
	__u64	prefix_markers;
	__u64	memory_bytes;
	__u64	capacity;
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
 * @flags:       as for the single-key request of @op
 * @keys:        user pointer to @count struct cfilter_key
 * @results:     user pointer to @count __s32, set to each key's result as
 *               its single-key ioctl would return it (0 or -errno)
 * @timeouts:    ADD: user pointer to @count __u32, each key's timeout as
 *               in struct cfilter_key_req, or 0 for none; else 0
 * @count:       number of keys
 * @done:        out: keys processed
 * @first_error: out: index of the first key whose result is not 0, or
 *               @count if there is none
 * @pad:         must be zero
 * @source:      the source of every key, as in struct cfilter_key_req
 * @reserved:    must be zero
 *
 * Every key and timeout is checked before any is applied: a malformed one
 * fails the whole call with EINVAL, @first_error naming it, and nothing
 * changes.
 */
struct cfilter_batch {
	__u32	op;
	__u32	flags;
	__u64	keys;
	__u64	results;
	__u64	timeouts;
	__u32	count;
	__u32	done;
	__u32	first_error;
	__u32	pad;
	char	source[CFILTER_SOURCE_LEN];
	__u64	reserved[2];
};

/**
 * struct cfilter_entry - one holding, as LIST reports it (80 bytes)
 * @key:     the key
 * @timeout: seconds until the holding expires (at least 1), 0: permanent
 * @pad:     zero
 * @source:  the source holding it, NUL-terminated and NUL-padded
 */
struct cfilter_entry {
	struct cfilter_key key;
	__u32	timeout;
	__u32	pad;
	char	source[CFILTER_SOURCE_LEN];
};

/**
 * struct cfilter_list - read the stored entries
 * @entries:  user pointer to room for @max struct cfilter_entry
 * @max:      in: room in @entries
 * @count:    out: entries written; 0 at the end
 * @cursor:   in: 0 to start, else the value returned by the previous call;
 *            out: where the next call continues
 * @flags:    in: 0, or CFILTER_F_ALL_SOURCES to list every source's
 * @pad:      must be zero
 * @gen:      in: 0 to start, else the value returned by the previous call;
 *            out: the layout of the tables @cursor points into
 * @source:   in: the source whose holdings to list ("" for "default"),
 *            unless CFILTER_F_ALL_SOURCES; ENOENT if the set has no such
 *            source
 * @reserved: must be zero
 *
 * Exact mode lists holdings: an entry held by two sources is listed once
 * for each. A listing reports every holding present from its first call
 * to its last exactly once; holdings added or removed meanwhile may or may
 * not be reported. A call returns count 0 only at the end, however many
 * holdings of other sources it passes first, and lets writers in on the
 * way. If the tables were laid out anew since the previous call, or while
 * this one ran (a table grew, the set was replaced), it fails with ESTALE
 * and the listing must start over from cursor 0; so it may when a holding
 * became timed or permanent, or an entry "default" held alone gained
 * another source or a timeout. Compact mode lists only prefix keys (kept
 * exactly in both modes), as held by "default": addresses and flows are
 * fingerprints only (see CFILTER_IOC_DUMP).
 */
struct cfilter_list {
	__u64	entries;
	__u32	max;
	__u32	count;
	__u64	cursor;
	__u32	flags;
	__u32	pad;
	__u64	gen;
	char	source[CFILTER_SOURCE_LEN];
	__u64	reserved;
};

/**
 * struct cfilter_source_req - argument of FLUSH and STAGE_SOURCE
 * @source:   the source, as in struct cfilter_key_req
 * @flags:    FLUSH: 0 or CFILTER_F_STAGED; STAGE_SOURCE: 0
 * @pad:      zero
 * @reserved: zero
 */
struct cfilter_source_req {
	char	source[CFILTER_SOURCE_LEN];
	__u32	flags;
	__u32	pad;
	__u64	reserved;
};

/**
 * struct cfilter_source_info - one source of a set
 * @name:    its name
 * @entries: entries it holds
 * @timed:   those of them with a timeout
 * @drops:   packets its entries dropped (bpf_cfilter_match()) since the
 *           module was loaded, across CLEAR and replaces (a source that
 *           took the place of an emptied one counts from 0: see Sources);
 *           a drop by an entry that several sources hold counts for one of
 *           them (compact mode: "default" holds everything)
 */
struct cfilter_source_info {
	char	name[CFILTER_SOURCE_LEN];
	__u64	entries;
	__u64	timed;
	__u64	drops;
};

/**
 * struct cfilter_sources - the sources of a set (CFILTER_IOC_SOURCES)
 * @flags:    in: 0 or CFILTER_F_STAGED
 * @count:    out: sources in @sources; "default" is first
 * @reserved: zero
 * @sources:  out
 */
struct cfilter_sources {
	__u32	flags;
	__u32	count;
	__u64	reserved;
	struct cfilter_source_info sources[CFILTER_SOURCES_MAX];
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
 * Indices of the XDP program's counters ("cfilter_stats"). Every
 * packet is counted exactly once. A verdict of the module is counted under
 * its kind, which has the counter's number (enum cfilter_verdict).
 */
enum cfilter_stat {
	CFILTER_STAT_PASS	= 0,	/* parsed, not blocked: XDP_PASS */
	CFILTER_STAT_DROP_SRC	= 1,	/* source blocked: XDP_DROP */
	CFILTER_STAT_UNPARSED	= 2,	/* not IP, truncated or malformed: XDP_PASS */
	CFILTER_STAT_DROP_DST	= 3,	/* destination blocked: XDP_DROP */
	CFILTER_STAT_DROP_FLOW	= 4,	/* 5-tuple blocked: XDP_DROP */
	CFILTER_STAT_ALLOWED	= 5,	/* blocked but exempt source: XDP_PASS */
	CFILTER_STAT_DROP_PREFIX = 6,	/* source or destination prefix: XDP_DROP */
	CFILTER_STAT_DROP_DEEP	= 7,	/* headers past the bounds below: XDP_DROP */
	CFILTER_STAT_DROP_FRAG	= 8,	/* first fragment without its ports: XDP_DROP */
	__CFILTER_STAT_MAX,
};

/*
 * The counter map's layout: a per-CPU array of struct cfilter_if_stats.
 * Slot N counts the packets that arrived on the interface of ifindex N;
 * slot 0, which no interface has, those of every interface whose ifindex
 * is CFILTER_STATS_IFACES or more. A packet costs one slot lookup, as a
 * single array of totals would.
 */
#define CFILTER_STATS_IFACES	256

struct cfilter_if_stats {
	__u64	packets[__CFILTER_STAT_MAX];
};

/* The counters of dropped packets: bit N set if counter N's are dropped. */
#define CFILTER_STAT_DROPS	(1U << CFILTER_STAT_DROP_SRC |		\
				 1U << CFILTER_STAT_DROP_DST |		\
				 1U << CFILTER_STAT_DROP_FLOW |		\
				 1U << CFILTER_STAT_DROP_PREFIX |	\
				 1U << CFILTER_STAT_DROP_DEEP |		\
				 1U << CFILTER_STAT_DROP_FRAG)

/*
 * What bpf_cfilter_match() decides: a verdict. The source is looked up
 * first (its address keys, then its prefixes), then the destination (with
 * CFILTER_PKT_MATCH_DST; addresses, then prefixes), then the flow (with
 * CFILTER_PKT_PORTS); the first hit is the would-be drop, and an allow key
 * (address or prefix) for the source turns any of them into
 * CFILTER_ALLOWED.
 *
 * A verdict is its kind (CFILTER_VERDICT_KIND(): one of these, numbered
 * like the counter the program counts it under), CFILTER_VERDICT_DST if a
 * destination key matched, and the index of a source holding the key
 * that decided (CFILTER_VERDICT_SOURCE(); for CFILTER_ALLOWED the allow
 * key's; 0 is "default"). MATCH names that source.
 */
enum cfilter_verdict {
	CFILTER_PASS		= CFILTER_STAT_PASS,	 /* no key matches */
	CFILTER_DROP_SRC	= CFILTER_STAT_DROP_SRC, /* a source address */
	CFILTER_DROP_DST	= CFILTER_STAT_DROP_DST, /* a destination address */
	CFILTER_DROP_FLOW	= CFILTER_STAT_DROP_FLOW, /* the 5-tuple */
	CFILTER_ALLOWED		= CFILTER_STAT_ALLOWED,	 /* blocked, the source exempt */
	CFILTER_DROP_PREFIX	= CFILTER_STAT_DROP_PREFIX, /* a source or destination prefix */
};

#define CFILTER_VERDICT_DST		(1U << 8)
#define CFILTER_VERDICT_SOURCE_SHIFT	16
#define CFILTER_VERDICT_KIND(v)		((__u32)(v) & 0xff)
#define CFILTER_VERDICT_SOURCE(v)	((__u32)(v) >> CFILTER_VERDICT_SOURCE_SHIFT & 0xff)
/* Does verdict @v (not negative) drop the packet? */
#define CFILTER_VERDICT_DROPS(v)					\
	(CFILTER_VERDICT_KIND(v) < 32 &&				\
	 (CFILTER_STAT_DROPS >> CFILTER_VERDICT_KIND(v) & 1))

/*
 * How deep the programs follow headers: a frame with more VLAN tags, or an
 * IPv6 packet with more extension headers, is CFILTER_STAT_DROP_DEEP.
 */
#define CFILTER_MAX_VLAN_TAGS	2
#define CFILTER_MAX_EXT_HDRS	6

/**
 * struct cfilter_match_req - argument of CFILTER_IOC_MATCH
 * @pkt:      in: the packet, as bpf_cfilter_match() takes it
 * @verdict:  out: the verdict, exactly as the kfunc decides it (see enum
 *            cfilter_verdict)
 * @flags:    in: must be zero
 * @source:   out: the name of the source CFILTER_VERDICT_SOURCE() of
 *            @verdict names; "" for a pass
 * @reserved: must be zero
 */
struct cfilter_match_req {
	struct cfilter_pkt pkt;
	__u32	verdict;
	__u32	flags;
	char	source[CFILTER_SOURCE_LEN];
	__u64	reserved[2];
};

/*
 * The XDP and TC programs' prefilter: a map (an array of one struct
 * cfilter_prefilter) the program reads before the kfunc. Per family, a
 * bit per /16 of source addresses, set while the live set may drop a
 * packet from that /16 (a source address or prefix inside or over it, any
 * flow key of the family, or, in compact mode, any source address of the
 * family: a compact table keeps no summary); and a bit per /16 of
 * destination addresses, the same for destination entries. A packet whose
 * source bit is clear, and whose destination bit is clear too where the
 * program matches destinations, passes without calling the kfunc; the
 * kfunc would have passed it too. The module writes the map, and keeps it
 * in step with every change, from CFILTER_IOC_PREFILTER on; until then
 * @ready is 0 and the program calls the kfunc for every packet.
 */
#define CFILTER_PREFILTER_WORDS	(65536 / 64)

/* The bitmaps of struct cfilter_prefilter. */
enum cfilter_prefilter_bits {
	CFILTER_PREFILTER_SRC4,
	CFILTER_PREFILTER_SRC6,
	CFILTER_PREFILTER_DST4,
	CFILTER_PREFILTER_DST6,
	__CFILTER_PREFILTER_BITS,
};

struct cfilter_prefilter {
	__u64	ready;
	__u64	bits[__CFILTER_PREFILTER_BITS][CFILTER_PREFILTER_WORDS];
};

/**
 * struct cfilter_prefilter_req - argument of CFILTER_IOC_PREFILTER
 * @map_fd: a BPF array map of one struct cfilter_prefilter, without
 *          BPF_F_RDONLY_PROG (a frozen read-only map would let the
 *          verifier fold its bits into the program) and without fields
 *          the BPF core owns in its value's BTF (bpf_spin_lock,
 *          bpf_timer, kptrs, list or rbtree roots...: the bits would
 *          overwrite them); a descriptor that may write the map, as the
 *          bpf() syscall says (not opened with BPF_F_RDONLY, the map not
 *          frozen), since the module writes it for the caller
 * @flags:  must be zero
 */
struct cfilter_prefilter_req {
	__s32	map_fd;
	__u32	flags;
};

/*
 * struct cfilter_table's flags. CFILTER_TABLE_HASH32: the table's 4-byte
 * keys (IPv4 addresses) were placed by the short hash, as every such table
 * of this module is; without it, by the general hash of the tables dumped
 * before the flag. DUMP refuses (EPROTO) to give such a table to a caller
 * that does not pass the flag in: one that cannot keep it would restore
 * fingerprints that no longer match their keys.
 */
#define CFILTER_TABLE_HASH32	(1U << 0)

/**
 * struct cfilter_table - one key type's raw table (DUMP and RESTORE)
 * @type:     enum cfilter_key_type
 * @pad:      zero
 * @flags:    CFILTER_TABLE_*: DUMP in, those the caller keeps; out, the
 *            table's; RESTORE in, the table's
 * @fp_bits:  bits per fingerprint of the table
 * @pad2:     zero
 * @seed:     the table's hash key: fingerprints mean nothing without it
 * @buckets:  buckets in the table (a power of two)
 * @count:    fingerprints stored (nonzero slots)
 * @data:     user pointer to the slots, in the module's in-memory layout:
 *            @buckets * 4 slots of @fp_bits (8, 16 or 32; 12-bit
 *            fingerprints are stored in 16), little endian
 * @size:     DUMP in: room at @data, out: bytes needed (ENOSPC if the room
 *            is too small, nothing written); RESTORE in: bytes at @data
 * @reserved: zero
 *
 * Compact mode only (exact mode lists its keys: see CFILTER_IOC_LIST). A
 * raw table holds a type's addresses or flows; its prefixes are listed.
 */
struct cfilter_table {
	__u8	type;
	__u8	pad[3];
	__u32	flags;
	__u32	fp_bits;
	__u32	pad2;
	__u64	seed;
	__u64	buckets;
	__u64	count;
	__u64	data;
	__u64	size;
	__u64	reserved[2];
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
 * LIST:  struct cfilter_list (compact mode: prefixes only)
 * FLUSH: struct cfilter_source_req: removes every holding of the source,
 *        and every entry no other source holds; ENOENT if the set has no
 *        such source; EOPNOTSUPP in compact mode (use CLEAR)
 * SOURCES: struct cfilter_sources
 * PREFILTER: struct cfilter_prefilter_req: the module fills the map and
 *        keeps it until the module goes or no program uses it any more;
 *        EBADF for a closed descriptor, EPERM (as BPF_MAP_UPDATE_ELEM's)
 *        for a descriptor opened read-only or a frozen map, EINVAL for one
 *        that is no BPF map or a map of another shape or with fields the
 *        BPF core owns, ENOSPC if CFILTER_PREFILTERS_MAX maps in use are
 *        kept already (the program still works, through the kfunc);
 *        nothing is written on error
 *
 * Atomic replacement, like `ipset swap`: STAGE gives this open file an
 * empty set of tables of its own (EBUSY if it already has one); ADD, DEL,
 * TEST, BATCH and TYPE_INFO with CFILTER_F_STAGED and RESTORE act on it
 * (EINVAL if there is none); COMMIT makes it the live set in one pointer
 * swap, so a packet sees the whole old set or the whole new one, and frees
 * the old set after an RCU grace period; ABORT, or closing the file, drops
 * it. The live set serves packets untouched until COMMIT.
 * STAGE_SOURCE (struct cfilter_source_req) stages instead a copy of the
 * live set without the source's holdings, to be filled with its new ones:
 * until COMMIT, every change made to the live set is made to the copy too
 * (so a ban added meanwhile by another source survives the COMMIT), but
 * ADD, DEL and FLUSH of that source itself: they change the old holdings,
 * which the COMMIT replaces with exactly those staged, as if they came
 * first (a DEL of every source's holding leaves the staged one). One
 * such copy exists at a time (EBUSY). If the copy cannot follow the live
 * set (memory ran short, or CLEAR, RESTORE's COMMIT or another COMMIT
 * replaced the live set), COMMIT fails with ESTALE and drops it: try again.
 * Exact mode only (EOPNOTSUPP).
 * STAGE:     0, EBUSY, ENOMEM
 * COMMIT:    0, EINVAL (nothing staged), ESTALE (see STAGE_SOURCE)
 * ABORT:     0, EINVAL (nothing staged)
 *
 * TYPE_INFO: struct cfilter_type_info; EINVAL for a type the module lacks
 * MATCH:     struct cfilter_match_req: the kfunc's verdict for a packet
 * DUMP:      struct cfilter_table: a type's raw table (compact mode; else
 *            EOPNOTSUPP); ENOSPC with @size set if the room is too small;
 *            the module copies the table aside first, then out: EDQUOT if
 *            the memory bound leaves no room for that copy
 * RESTORE:   struct cfilter_table into the staged set: replaces that type's
 *            address or flow table (compact mode; else EOPNOTSUPP). EINVAL
 *            if anything disagrees with the module (fp_bits, a bucket count
 *            that is not a power of two or over max_capacity, a size that
 *            is not the table's, a count that is not the nonzero slots);
 *            EDQUOT past the memory bound (the copy of @data counts too)
 *
 * ADD, DEL, CLEAR, BATCH with ADD or DEL, FLUSH, STAGE, STAGE_SOURCE,
 * COMMIT, ABORT, RESTORE and PREFILTER need CAP_NET_ADMIN.
 *
 * Source errors: EINVAL for a malformed name or timeout; ENOENT for DEL,
 * TEST, FLUSH and LIST of a source the set does not have (an emptied
 * source it has: FLUSH does nothing, LIST lists nothing); EUSERS when an
 * ADD names a new source and all CFILTER_SOURCES_MAX hold entries.
 */
#define CFILTER_IOC_MAGIC	0xCF

#define CFILTER_IOC_ADD		_IOW (CFILTER_IOC_MAGIC, 0x40, struct cfilter_key_req)
#define CFILTER_IOC_DEL		_IOW (CFILTER_IOC_MAGIC, 0x41, struct cfilter_key_req)
#define CFILTER_IOC_TEST	_IOW (CFILTER_IOC_MAGIC, 0x42, struct cfilter_key_req)
#define CFILTER_IOC_CLEAR	_IO  (CFILTER_IOC_MAGIC, 0x43)
#define CFILTER_IOC_INFO	_IOWR(CFILTER_IOC_MAGIC, 0x44, struct cfilter_info)
#define CFILTER_IOC_BATCH	_IOWR(CFILTER_IOC_MAGIC, 0x45, struct cfilter_batch)
#define CFILTER_IOC_LIST	_IOWR(CFILTER_IOC_MAGIC, 0x46, struct cfilter_list)
#define CFILTER_IOC_STAGE	_IO  (CFILTER_IOC_MAGIC, 0x47)
#define CFILTER_IOC_COMMIT	_IO  (CFILTER_IOC_MAGIC, 0x48)
#define CFILTER_IOC_ABORT	_IO  (CFILTER_IOC_MAGIC, 0x49)
#define CFILTER_IOC_TYPE_INFO	_IOWR(CFILTER_IOC_MAGIC, 0x4a, struct cfilter_type_info)
#define CFILTER_IOC_MATCH	_IOWR(CFILTER_IOC_MAGIC, 0x4b, struct cfilter_match_req)
#define CFILTER_IOC_DUMP	_IOWR(CFILTER_IOC_MAGIC, 0x4c, struct cfilter_table)
#define CFILTER_IOC_RESTORE	_IOW (CFILTER_IOC_MAGIC, 0x4d, struct cfilter_table)
#define CFILTER_IOC_FLUSH	_IOW (CFILTER_IOC_MAGIC, 0x4e, struct cfilter_source_req)
#define CFILTER_IOC_SOURCES	_IOWR(CFILTER_IOC_MAGIC, 0x4f, struct cfilter_sources)
#define CFILTER_IOC_STAGE_SOURCE _IOW (CFILTER_IOC_MAGIC, 0x50, struct cfilter_source_req)
#define CFILTER_IOC_PREFILTER	_IOW (CFILTER_IOC_MAGIC, 0x51, struct cfilter_prefilter_req)

/* Prefilter maps the module keeps at once (one per loaded program). */
#define CFILTER_PREFILTERS_MAX	64

#endif /* _UAPI_LINUX_CFILTER_H */
