/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * cfilter: a cuckoo filter of blocked traffic keys, managed through
 * /dev/cfilter and consulted by an XDP program through a kfunc.
 *
 * The contract of every ioctl, kfunc and shared map (arguments, errors,
 * what changes on error, the capability needed) is docs/uapi.md.
 * Structures have fixed-size fields; padding and reserved fields must be
 * zero, so that later versions can give them meaning.
 */
#ifndef _UAPI_LINUX_CFILTER_H
#define _UAPI_LINUX_CFILTER_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define CFILTER_DEVICE		"/dev/cfilter"

/*
 * Key types (docs/uapi.md, "Keys"). Fields a type does not use must be
 * zero: one logical key has one byte representation.
 */
enum cfilter_key_type {
	CFILTER_KEY_NONE	= 0,	/* invalid: catches zeroed keys */
	CFILTER_KEY_SRC4	= 1,	/* source IPv4 address: saddr[0..3] */
	CFILTER_KEY_SRC6	= 2,	/* source IPv6 address: saddr[0..15] */
	CFILTER_KEY_DST4	= 3,	/* destination IPv4 address: daddr[0..3] */
	CFILTER_KEY_DST6	= 4,	/* destination IPv6 address: daddr[0..15] */
	CFILTER_KEY_FLOW4	= 5,	/* IPv4 5-tuple */
	CFILTER_KEY_FLOW6	= 6,	/* IPv6 5-tuple */
	CFILTER_KEY_ALLOW4	= 7,	/* exempt IPv4 source: saddr[0..3] */
	CFILTER_KEY_ALLOW6	= 8,	/* exempt IPv6 source: saddr[0..15] */
	__CFILTER_KEY_MAX,
};

/**
 * struct cfilter_key - one blocked key (40 bytes)
 * @type:       enum cfilter_key_type
 * @prefix_len: the full length (32, 128) for a flow or an address, shorter
 *              for a prefix, whose bits past it must be zero
 * @proto:      IP protocol of a flow key (TCP, UDP, ICMP, ICMPv6); else 0
 * @pad:        must be zero
 * @sport:      flow key: source port or ICMP type, network order; else 0
 * @dport:      flow key: destination port (0 for ICMP); else 0
 * @saddr:      source address (SRC, FLOW, ALLOW), network order; IPv4 in
 *              the first four bytes, the rest zero; else zero
 * @daddr:      destination address (DST, FLOW), as @saddr; else zero
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
 * Sources and timeouts (docs/uapi.md, "Sources and holdings"): a name of
 * 1 to CFILTER_SOURCE_LEN - 1 characters of [A-Za-z0-9_.:@-], not starting
 * with '-', "" for "default"; at most CFILTER_SOURCES_MAX per set; a
 * timeout in seconds, 0 (permanent) to CFILTER_TIMEOUT_MAX.
 */
#define CFILTER_SOURCE_LEN	32
#define CFILTER_SOURCES_MAX	32
#define CFILTER_TIMEOUT_MAX	0x7fffffffU

/*
 * Flags of requests. CFILTER_F_STAGED: act on the set staged on this open
 * file, not the live one. CFILTER_F_ALL_SOURCES: DEL, TEST and LIST of
 * every source's holdings (the source name empty).
 */
#define CFILTER_F_STAGED	(1U << 0)
#define CFILTER_F_ALL_SOURCES	(1U << 1)

/**
 * struct cfilter_key_req - argument of ADD, DEL and TEST (80 bytes)
 * @key:     the key
 * @flags:   CFILTER_F_STAGED; DEL and TEST: CFILTER_F_ALL_SOURCES
 * @timeout: ADD: seconds until the holding expires, 0 for never; else 0
 * @source:  the source, NUL-terminated and NUL-padded; "" for "default"
 */
struct cfilter_key_req {
	struct cfilter_key key;
	__u32	flags;
	__u32	timeout;
	char	source[CFILTER_SOURCE_LEN];
};

/**
 * struct cfilter_info - filter geometry and occupancy (CFILTER_IOC_INFO)
 * @size:             in: sizeof(struct cfilter_info) as the caller knows
 *                    it; out: bytes the kernel filled in
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
 * @prefilter_bits:   compact mode: the hashed bits a program's prefilter
 *                    map needs for the module to fill them (struct
 *                    cfilter_prefilter); 0 in exact mode, whose maps may
 *                    have any size
 * @max_capacity:     exact mode: the keys the filter may grow to hold
 * @grows:            table doublings since the module was loaded
 * @prefixes:         prefix keys stored (included in @count)
 * @prefix_markers:   markers the prefix search keeps (not in @count)
 * @timed:            holdings with a timeout, every source
 * @mem_used:         bytes charged against the module's memory bound
 * @mem_limit:        that bound (max_memory=, in bytes)
 * @mirror_entries:   the entries of a program's mirror map (struct
 *                    cfilter_prefilter_mirror); 0 where the module keeps
 *                    none: exact mode, or fingerprints of 8 or 32 bits
 *
 * Sums over the tables of every key type, prefix tables included.
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
	__u32	prefilter_bits;
	__u64	max_capacity;
	__u64	grows;
	__u64	prefixes;
	__u64	prefix_markers;
	__u64	timed;
	__u64	mem_used;
	__u64	mem_limit;
	__u64	mirror_entries;
};

/**
 * struct cfilter_type_info - one key type's tables (CFILTER_IOC_TYPE_INFO)
 * @type:           in: enum cfilter_key_type
 * @probes:         out: table probes a lookup makes at most (0 for flows)
 * @lengths:        out: distinct prefix lengths stored
 * @pad:            zero
 * @flags:          in: 0 or CFILTER_F_STAGED
 * @pad2:           zero
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
 * @results:     user pointer to @count __s32: each key's 0 or -errno
 * @timeouts:    ADD: user pointer to @count __u32 timeouts, or 0; else 0
 * @count:       number of keys
 * @done:        out: keys processed
 * @first_error: out: index of the first key whose result is not 0, or
 *               @count if there is none
 * @pad:         must be zero
 * @source:      the source of every key, as in struct cfilter_key_req
 * @ages:        ADD: user pointer to @count __u32: seconds since each
 *               holding was added (a snapshot's), CFILTER_AGE_UNKNOWN if
 *               not known; or 0: added now. Else 0
 * @reserved:    must be zero
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
	__u64	ages;
	__u64	reserved;
};

/* An age the module does not know (struct cfilter_entry, cfilter_batch). */
#define CFILTER_AGE_UNKNOWN	0xffffffffU

/**
 * struct cfilter_entry - one holding, as LIST reports it (80 bytes)
 * @key:     the key
 * @timeout: seconds until the holding expires (at least 1), 0: permanent
 * @age:     seconds since it was added, or CFILTER_AGE_UNKNOWN: "default"'s
 *           holdings of entries no other source holds have no record
 * @source:  the source holding it, NUL-terminated and NUL-padded
 */
struct cfilter_entry {
	struct cfilter_key key;
	__u32	timeout;
	__u32	age;
	char	source[CFILTER_SOURCE_LEN];
};

/**
 * struct cfilter_list - read the stored holdings (CFILTER_IOC_LIST)
 * @entries:  user pointer to room for @max struct cfilter_entry
 * @max:      in: room in @entries
 * @count:    out: entries written; 0 at the end
 * @cursor:   in: 0 to start, else the previous call's; out: the next one
 * @flags:    in: 0, or CFILTER_F_ALL_SOURCES to list every source's
 * @pad:      must be zero
 * @gen:      in: 0 to start, else the previous call's; out: the layout of
 *            the tables @cursor points into
 * @source:   in: the source to list ("" for "default"), unless
 *            CFILTER_F_ALL_SOURCES
 * @reserved: must be zero
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
 * @drops:   packets its entries dropped since the module was loaded
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

/* A packet as the kfunc bpf_cfilter_match() takes it. */
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
 * @sport:  with CFILTER_PKT_PORTS: source port or ICMP type, as in a flow
 *          key; else 0 (a non-first fragment has no ports)
 * @dport:  with CFILTER_PKT_PORTS: destination port, 0 for ICMP; else 0
 * @saddr:  source address, network order; IPv4 in the first 4 bytes
 * @daddr:  destination address, laid out as @saddr
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
 * Indices of the programs' counters ("cfilter_stats"): every packet is
 * counted exactly once, a verdict under its kind (docs/uapi.md, "Counters").
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
 * The counter map: a per-CPU array of struct cfilter_if_stats, slot N for
 * ifindex N, slot 0 for every ifindex of CFILTER_STATS_IFACES or more.
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
 * What bpf_cfilter_match() decides (docs/uapi.md, "Packets and verdicts"):
 * a kind, numbered like its counter, CFILTER_VERDICT_DST if a destination
 * key matched, and the index of a source holding the deciding key.
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
 * @verdict:  out: the verdict, exactly as the kfunc decides it
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
 * The programs' prefilter (docs/uapi.md, "The prefilter maps"): per family
 * a bit per /16 of source addresses and one per /16 of destination
 * addresses (@bits), set while the live set may drop a packet there through
 * a member up to /16 (IPv6: up to /31) or any flow; the same for
 * addresses (@addrs), and for longer prefixes (@longer: IPv4 /17 to /31,
 * IPv6 /32 and longer); hashed bits, two set for each address
 * (cfilter_prefilter_hash() and cfilter_prefilter_hbits()); and a bit per
 * hashed block, an IPv4 /24 or an IPv6 /32, with a longer prefix in or
 * over it (@blocks, cfilter_prefilter_block()). @any has a /16's bit set
 * where any of @bits, @addrs or @longer has it, so that most packets read
 * one word. The module writes them from CFILTER_IOC_PREFILTER on, and
 * @ready (CFILTER_PREFILTER_READY) says it does.
 */
#define CFILTER_PREFILTER_WORDS	(65536 / 64)
/* The 32-bit words of a kind of hashed blocks: 65536 bits. */
#define CFILTER_PREFILTER_BLOCK_WORDS	(65536 / 32)

/* The bitmaps of struct cfilter_prefilter. */
enum cfilter_prefilter_bits {
	CFILTER_PREFILTER_SRC4,
	CFILTER_PREFILTER_SRC6,
	CFILTER_PREFILTER_DST4,
	CFILTER_PREFILTER_DST6,
	__CFILTER_PREFILTER_BITS,
};

/*
 * The map's value is the struct and @hashed: a power of two of 64-bit
 * words, from 1 to CFILTER_PREFILTER_HASHED_MAX; the loader picks the
 * count (value_size), the module writes @hmask: the count less one.
 */
#define CFILTER_PREFILTER_HASHED_MAX	(1U << 18)

/*
 * The hashed bits for @addresses exact addresses, as cfctl sizes a map and
 * the module, in compact mode, its own record of the addresses added:
 * CFILTER_PREFILTER_ADDR_BITS each, a power of two, at least 4096 and at
 * most the map's maximum. A random miss then finds both its bits set
 * about 3 times in 100.
 */
#define CFILTER_PREFILTER_ADDR_BITS	8

static __inline__ __u32 cfilter_prefilter_bits_for(__u64 addresses)
{
	__u64 want = addresses * CFILTER_PREFILTER_ADDR_BITS;
	__u32 n = 4096;

	while (n < want && n < CFILTER_PREFILTER_HASHED_MAX * 64)
		n *= 2;
	return n;
}

/*
 * @ready once the module keeps the map: the layout's number, so that a
 * program of another layout, which waits for another value, calls for
 * every packet instead of misreading the map.
 */
#define CFILTER_PREFILTER_READY	4ULL

/*
 * The mirror (docs/uapi.md, "The mirror"): in compact mode, with
 * fingerprints of 12 or 16 bits, the module can keep a mirror of its
 * table of IPv4 source addresses in a map of the program's, which the
 * program probes itself: a hit drops without a call, and a miss the
 * table's version vouches for passes. The map is a BPF array of 64-bit
 * entries, struct cfilter_info's @mirror_entries of them: first a count of
 * the drops it made per CPU slot (cpu % CFILTER_MIRROR_SLOTS, at entry
 * CFILTER_MIRROR_SLOT_WORDS times the slot: a cache line each), then the
 * table's buckets from entry CFILTER_MIRROR_HEAD on, then its versions (one
 * per entry, from @versions on). A program hands it over with its
 * prefilter map (CFILTER_IOC_MIRROR), and the module describes it in that
 * map's @mirror:
 * @ready:       CFILTER_MIRROR_READY while the mirror is the live table's
 *               and the IPv4 allow list is empty (so that a hit drops);
 *               else 0, and the program calls
 * @hash_a, @hash_b: the table's hash key (the core's cuckoo_hash_mix32())
 * @bucket_mask: buckets - 1
 * @stripe_mask: versions - 1
 * @fp_mask:     (1 << fingerprint bits) - 1
 * @versions:    the entry of the first version
 * Every field is written before @ready, which is 0 while any changes.
 */
#define CFILTER_MIRROR_SLOTS		64
#define CFILTER_MIRROR_SLOT_WORDS	8
#define CFILTER_MIRROR_HEAD		(CFILTER_MIRROR_SLOTS * CFILTER_MIRROR_SLOT_WORDS)
#define CFILTER_MIRROR_READY		1ULL

struct cfilter_prefilter_mirror {
	__u64	ready;
	__u64	hash_a;
	__u64	hash_b;
	__u64	bucket_mask;
	__u64	stripe_mask;
	__u64	fp_mask;
	__u64	versions;
	__u64	reserved;
};

/* The fields of struct cfilter_prefilter_mirror, as 64-bit words. */
enum cfilter_mirror_word {
	CFILTER_MIRROR_W_READY,
	CFILTER_MIRROR_W_HASH_A,
	CFILTER_MIRROR_W_HASH_B,
	CFILTER_MIRROR_W_BUCKET_MASK,
	CFILTER_MIRROR_W_STRIPE_MASK,
	CFILTER_MIRROR_W_FP_MASK,
	CFILTER_MIRROR_W_VERSIONS,
	__CFILTER_MIRROR_WORDS = 8,
};

/*
 * The hash of IPv4 address @a (its 4 bytes as the packet has them, read
 * in the host's order) in the mirror's table: its low bits pick the first
 * bucket, its high half makes the fingerprint. The core's compact tables
 * of 4-byte keys hash so (tests/host checks that the two agree).
 */
#define CFILTER_MIRROR_K0	0x9e3779b97f4a7c15ULL
#define CFILTER_MIRROR_K1	0xc2b2ae3d27d4eb4fULL

static __inline__ __u64 cfilter_mirror_hash4(__u32 a, __u64 hash_a,
					     __u64 hash_b)
{
	__u64 h = (a ^ hash_a) * CFILTER_MIRROR_K1;

	h ^= h >> 32;
	h *= hash_b | 1;
	return h ^ h >> 29;
}

/* The fingerprint of hash @h: its high half, masked, and never 0. */
static __inline__ __u32 cfilter_mirror_fp(__u64 h, __u64 fp_mask)
{
	__u64 fp = (h >> 32) & fp_mask;

	/* 0 becomes 1 without a branch: fp - 1 wraps only for 0 */
	return fp | (fp - 1) >> 63;
}

/* The other bucket of fingerprint @fp in bucket @b. */
static __inline__ __u64 cfilter_mirror_alt(__u64 b, __u32 fp, __u64 bucket_mask)
{
	return (b ^ ((fp * CFILTER_MIRROR_K0) >> 32)) & bucket_mask;
}

/* Does bucket word @w hold fingerprint @fp in one of its 16-bit slots? */
static __inline__ int cfilter_mirror_holds(__u64 w, __u32 fp)
{
	__u64 x = w ^ fp * 0x0001000100010001ULL;

	return ((x - 0x0001000100010001ULL) & ~x & 0x8000800080008000ULL) != 0;
}

struct cfilter_prefilter {
	__u64	ready;
	__u64	hmask;
	struct cfilter_prefilter_mirror mirror;
	__u64	any[__CFILTER_PREFILTER_BITS][CFILTER_PREFILTER_WORDS];
	__u64	bits[__CFILTER_PREFILTER_BITS][CFILTER_PREFILTER_WORDS];
	__u64	addrs[__CFILTER_PREFILTER_BITS][CFILTER_PREFILTER_WORDS];
	__u64	longer[__CFILTER_PREFILTER_BITS][CFILTER_PREFILTER_WORDS];
	__u32	blocks[__CFILTER_PREFILTER_BITS][CFILTER_PREFILTER_BLOCK_WORDS];
	__u64	hashed[];
};

/*
 * The bit of @blocks for block @v: an IPv4 address's first 24 bits (its
 * /24) or an IPv6 address's first 32 (its /32) as a number. The module's
 * prefix sets hash their blocks alike (core/prefix_summary.h), and the
 * map copies them.
 */
#define CFILTER_PREFILTER_BLOCK_MUL	0x61c88647U

static __inline__ __u32 cfilter_prefilter_block(__u32 v)
{
	return (__u32)(v * CFILTER_PREFILTER_BLOCK_MUL) >> 16;
}

/*
 * The hash of an address of key type @type (CFILTER_KEY_SRC4 ...): @a is
 * its 4 bytes, or @a and @b its first and last 8, each read in the host's
 * byte order. The multiplier is 2^64 divided by the golden ratio; the high
 * half of a product mixes every bit of the multiplicand.
 */
#define CFILTER_PREFILTER_MUL	0x9e3779b97f4a7c15ULL

static __inline__ __u32 cfilter_prefilter_hash4(__u32 type, __u32 a)
{
	return (__u32)((((__u64)type << 32 | a) * CFILTER_PREFILTER_MUL) >> 32);
}

static __inline__ __u32 cfilter_prefilter_hash6(__u32 type, __u64 a, __u64 b)
{
	return (__u32)((((a ^ type) * CFILTER_PREFILTER_MUL ^ b) *
			CFILTER_PREFILTER_MUL) >> 32);
}

/* The same of the address at @addr: 16 bytes if @v6, else 4. */
static __inline__ __u32 cfilter_prefilter_hash(__u32 type, const __u8 *addr,
					       int v6)
{
	__u64 a, b;
	__u32 a4;

	if (!v6) {
		__builtin_memcpy(&a4, addr, sizeof(a4));
		return cfilter_prefilter_hash4(type, a4);
	}
	__builtin_memcpy(&a, addr, sizeof(a));
	__builtin_memcpy(&b, addr + sizeof(a), sizeof(b));
	return cfilter_prefilter_hash6(type, a, b);
}

/*
 * The hashed bits of hash @h: two bits of one word of @hashed, so that a
 * miss finds both set about as seldom as the square of the fill, for one
 * read. The word is the hash's low bits under @hmask (the word count less
 * one), the bits' positions its top twelve, which no word index reaches:
 * a program tests them with no shift by a count it must read.
 */
static __inline__ __u64 cfilter_prefilter_hword(__u64 h, __u64 hmask)
{
	return h & hmask;
}

static __inline__ __u64 cfilter_prefilter_hbits(__u32 h)
{
	return 1ULL << (h >> 26) | 1ULL << (h >> 20 & 63);
}

/**
 * struct cfilter_prefilter_req - argument of CFILTER_IOC_PREFILTER
 * @map_fd: a writable descriptor of a BPF array map of one struct
 *          cfilter_prefilter, not BPF_F_RDONLY_PROG, whose value has no
 *          fields the BPF core owns
 * @flags:  must be zero
 */
struct cfilter_prefilter_req {
	__s32	map_fd;
	__u32	flags;
};

/**
 * struct cfilter_mirror_req - argument of CFILTER_IOC_MIRROR
 * @prefilter_fd: a descriptor of a prefilter map the module keeps
 *                (CFILTER_IOC_PREFILTER), whose @mirror describes the mirror
 * @mirror_fd:    a writable descriptor of a BPF array map of struct
 *                cfilter_info's @mirror_entries 64-bit values, not
 *                BPF_F_RDONLY_PROG
 * @flags:        must be zero
 * @reserved:     must be zero
 */
struct cfilter_mirror_req {
	__s32	prefilter_fd;
	__s32	mirror_fd;
	__u32	flags;
	__u32	reserved;
};

/*
 * struct cfilter_table's flags: the hash that placed a table of 4-byte
 * keys (IPv4 addresses), none for the general hash of longer keys and of
 * tables dumped before the flags. CFILTER_TABLE_HASH32: the short hash,
 * of tables dumped before CFILTER_TABLE_MIX32; CFILTER_TABLE_MIX32: the
 * mixed hash, of every such table this module makes. DUMP refuses with
 * EPROTO a caller that does not pass in its table's flag.
 */
#define CFILTER_TABLE_HASH32	(1U << 0)
#define CFILTER_TABLE_MIX32	(1U << 1)

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
 * @data:     user pointer to the slots: @buckets * 4 slots of @fp_bits
 *            (8, 16 or 32; 12 stored in 16), little endian
 * @size:     DUMP in: room at @data, out: bytes needed; RESTORE in: bytes
 *            at @data
 * @reserved: zero
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

/**
 * struct cfilter_match_entry - what bpf_cfilter_entry() says decided
 * @key:    the entry that matched (the longest prefix covering the
 *          address); type CFILTER_KEY_NONE if none
 * @source: the name of the source CFILTER_VERDICT_SOURCE() names; "" if
 *          none. Read without the writers' lock: may show torn
 */
struct cfilter_match_entry {
	struct cfilter_key key;
	char	source[CFILTER_SOURCE_LEN];
};

/*
 * The drop log (docs/uapi.md, "The drop log"): the maps cfilter_log_ctl
 * (leases), cfilter_log_rb (a ring buffer per reader slot) and
 * cfilter_log_cpu (each CPU's rate limit), pinned by name.
 */
#define CFILTER_LOG_READERS	4
#define CFILTER_LOG_RATE	100
#define CFILTER_LOG_RING_SIZE	(1U << 20)

/**
 * struct cfilter_log_ctl - the drop log's switch and leases
 * @until:      the latest lease of any reader, CLOCK_MONOTONIC ns; 0: none
 * @slot_until: each reader slot's lease; 0 or past: free
 * @rate:       events per second per CPU; 0: CFILTER_LOG_RATE
 * @pad:        zero
 */
struct cfilter_log_ctl {
	__u64	until;
	__u64	slot_until[CFILTER_LOG_READERS];
	__u32	rate;
	__u32	pad;
};

/**
 * struct cfilter_log_cpu - one CPU's part of the drop log
 * @window:   when the rate limit's current window began (ns, at the tick)
 * @sent:     events made in it
 * @pad:      zero
 * @events:   events made, in all
 * @left_out: drops the rate limit left out, in all
 * @lost:     per reader slot, events its ring had no room for
 */
struct cfilter_log_cpu {
	__u64	window;
	__u32	sent;
	__u32	pad;
	__u64	events;
	__u64	left_out;
	__u64	lost[CFILTER_LOG_READERS];
};

/* Where an event's program runs: struct cfilter_log_event's @hook. */
enum cfilter_log_hook {
	CFILTER_LOG_XDP	= 1,
	CFILTER_LOG_TC	= 2,
};

/**
 * struct cfilter_log_event - one dropped packet, as a reader gets it
 * @time_ns: when, CLOCK_MONOTONIC ns (bpf_ktime_get_ns())
 * @ifindex: the interface it arrived on
 * @cpu:     the CPU whose rate limit let it through
 * @kind:    the counter the drop went to (enum cfilter_stat)
 * @hook:    enum cfilter_log_hook
 * @verdict: bpf_cfilter_entry()'s verdict; 0 for a drop no entry makes
 *           (CFILTER_STAT_DROP_DEEP, CFILTER_STAT_DROP_FRAG)
 * @pad:     zero
 * @pkt:     the packet as the program matched it (family 0: no IP header)
 * @entry:   the entry that matched, and its source
 */
struct cfilter_log_event {
	__u64	time_ns;
	__u32	ifindex;
	__u16	cpu;
	__u8	kind;
	__u8	hook;
	__u32	verdict;
	__u32	pad;
	struct cfilter_pkt pkt;
	struct cfilter_match_entry entry;
};

/*
 * The ioctls (docs/uapi.md, "ioctl reference"). 0xCF is shared with one
 * CIFS ioctl (nr 0x02); cfilter uses nr 0x40-0x5F. Those that change the
 * filter need a descriptor open for writing and CAP_NET_ADMIN.
 */
#define CFILTER_IOC_MAGIC	0xCF

/**
 * CFILTER_IOC_ADD - struct cfilter_key_req: a holding of the key by the
 * source, with its timeout. See docs/uapi.md.
 */
#define CFILTER_IOC_ADD		_IOW (CFILTER_IOC_MAGIC, 0x40, struct cfilter_key_req)
/**
 * CFILTER_IOC_DEL - struct cfilter_key_req: the source's holding goes, and
 * the entry with its last one. See docs/uapi.md.
 */
#define CFILTER_IOC_DEL		_IOW (CFILTER_IOC_MAGIC, 0x41, struct cfilter_key_req)
/**
 * CFILTER_IOC_TEST - struct cfilter_key_req: is this very key held by the
 * source? See docs/uapi.md.
 */
#define CFILTER_IOC_TEST	_IOW (CFILTER_IOC_MAGIC, 0x42, struct cfilter_key_req)
/**
 * CFILTER_IOC_CLEAR - no argument: an empty live set. See docs/uapi.md.
 */
#define CFILTER_IOC_CLEAR	_IO  (CFILTER_IOC_MAGIC, 0x43)
/**
 * CFILTER_IOC_INFO - struct cfilter_info: the live set's geometry and
 * occupancy. See docs/uapi.md.
 */
#define CFILTER_IOC_INFO	_IOWR(CFILTER_IOC_MAGIC, 0x44, struct cfilter_info)
/**
 * CFILTER_IOC_BATCH - struct cfilter_batch: ADD, DEL or TEST of an array of
 * keys, every key checked first. See docs/uapi.md.
 */
#define CFILTER_IOC_BATCH	_IOWR(CFILTER_IOC_MAGIC, 0x45, struct cfilter_batch)
/**
 * CFILTER_IOC_LIST - struct cfilter_list: the live set's holdings from a
 * cursor. See docs/uapi.md.
 */
#define CFILTER_IOC_LIST	_IOWR(CFILTER_IOC_MAGIC, 0x46, struct cfilter_list)
/**
 * CFILTER_IOC_STAGE - no argument: an empty set staged on this open file.
 * See docs/uapi.md.
 */
#define CFILTER_IOC_STAGE	_IO  (CFILTER_IOC_MAGIC, 0x47)
/**
 * CFILTER_IOC_COMMIT - no argument: the staged set goes live in one swap.
 * See docs/uapi.md.
 */
#define CFILTER_IOC_COMMIT	_IO  (CFILTER_IOC_MAGIC, 0x48)
/**
 * CFILTER_IOC_ABORT - no argument: the staged set goes. See docs/uapi.md.
 */
#define CFILTER_IOC_ABORT	_IO  (CFILTER_IOC_MAGIC, 0x49)
/**
 * CFILTER_IOC_TYPE_INFO - struct cfilter_type_info: one key type's tables.
 * See docs/uapi.md.
 */
#define CFILTER_IOC_TYPE_INFO	_IOWR(CFILTER_IOC_MAGIC, 0x4a, struct cfilter_type_info)
/**
 * CFILTER_IOC_MATCH - struct cfilter_match_req: the kfunc's verdict for a
 * packet, and its source. See docs/uapi.md.
 */
#define CFILTER_IOC_MATCH	_IOWR(CFILTER_IOC_MAGIC, 0x4b, struct cfilter_match_req)
/**
 * CFILTER_IOC_DUMP - struct cfilter_table: a type's raw live table out
 * (compact mode). See docs/uapi.md.
 */
#define CFILTER_IOC_DUMP	_IOWR(CFILTER_IOC_MAGIC, 0x4c, struct cfilter_table)
/**
 * CFILTER_IOC_RESTORE - struct cfilter_table: a raw table into the staged
 * set (compact mode). See docs/uapi.md.
 */
#define CFILTER_IOC_RESTORE	_IOW (CFILTER_IOC_MAGIC, 0x4d, struct cfilter_table)
/**
 * CFILTER_IOC_FLUSH - struct cfilter_source_req: every holding of one
 * source goes. See docs/uapi.md.
 */
#define CFILTER_IOC_FLUSH	_IOW (CFILTER_IOC_MAGIC, 0x4e, struct cfilter_source_req)
/**
 * CFILTER_IOC_SOURCES - struct cfilter_sources: the sources of a set. See
 * docs/uapi.md.
 */
#define CFILTER_IOC_SOURCES	_IOWR(CFILTER_IOC_MAGIC, 0x4f, struct cfilter_sources)
/**
 * CFILTER_IOC_STAGE_SOURCE - struct cfilter_source_req: a staged copy of the
 * live set without one source, following it until COMMIT. See docs/uapi.md.
 */
#define CFILTER_IOC_STAGE_SOURCE _IOW (CFILTER_IOC_MAGIC, 0x50, struct cfilter_source_req)
/**
 * CFILTER_IOC_PREFILTER - struct cfilter_prefilter_req: the module keeps a
 * program's prefilter map. See docs/uapi.md.
 */
#define CFILTER_IOC_PREFILTER	_IOW (CFILTER_IOC_MAGIC, 0x51, struct cfilter_prefilter_req)
/**
 * CFILTER_IOC_MIRROR - struct cfilter_mirror_req: the module keeps a
 * program's mirror of its IPv4 source table, for a prefilter map it keeps.
 * See docs/uapi.md.
 */
#define CFILTER_IOC_MIRROR	_IOW (CFILTER_IOC_MAGIC, 0x52, struct cfilter_mirror_req)

/* Prefilter maps the module keeps at once (one per loaded program). */
#define CFILTER_PREFILTERS_MAX	64

#endif /* _UAPI_LINUX_CFILTER_H */
