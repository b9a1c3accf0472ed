/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The snapshot file of `cfctl snapshot` and `cfctl restore`: building one
 * in memory, and checking one before anything of it reaches the module.
 * Pure: no device, no I/O, so that corrupted files are unit-tested.
 *
 * Layout, every integer little endian:
 *
 *   header, 32 bytes:
 *     magic[8]     "\x89" "CFSNAP\n": binary, and mangled by text-mode copies
 *     version u32  SNAP_VERSION; a reader refuses a later one (version 1,
 *                  from before sources, is read: it has no SNAP_HOLDS;
 *                  so is version 2, from before table flags: its tables
 *                  have none, so IPv4's have the general hash; and 3,
 *                  whose holdings do not say when they were added)
 *     mode u32     enum cfilter_mode of the module snapshotted
 *     fp_bits u32  its bits per fingerprint
 *     nsect u32    sections that follow, at most SNAP_MAX_SECTIONS
 *     size u64     bytes of the whole file, checksum included
 *   nsect sections, each a 40-byte header and its payload:
 *     kind u32     SNAP_TABLE, SNAP_KEYS or SNAP_HOLDS
 *     type u16     SNAP_TABLE: the key type of the table; else 0
 *     flags u16    SNAP_TABLE: its CFILTER_TABLE_* flags, as DUMP gives
 *                  them (version 3; before, 0: type was 32 bits); else 0
 *     seed u64     SNAP_TABLE: the table's hash key; else 0
 *     buckets u64  SNAP_TABLE: its buckets (a power of two); else 0
 *     count u64    SNAP_TABLE: fingerprints stored; SNAP_KEYS: keys;
 *                  SNAP_HOLDS: holdings
 *     length u64   payload bytes
 *     payload      SNAP_TABLE: the slots as CFILTER_IOC_DUMP gives them,
 *                  buckets * 4 slots of 1, 2 or 4 bytes (fp_bits 8; 12 or
 *                  16; 32); SNAP_KEYS: count struct cfilter_key, 40 bytes
 *                  each, as the UAPI lays them out (bytes and big-endian
 *                  ports: no byte order of the host in them); SNAP_HOLDS:
 *                  the source's name (32 bytes, NUL-padded), then count
 *                  holdings of 56 bytes (48 before version 4): the key,
 *                  as in SNAP_KEYS, deadline u64, the second since the
 *                  epoch it expires at, 0 for never, and added u64, the
 *                  second since the epoch it was added at, 0 if not known
 *                  (version 4)
 *   crc u32        CRC-32 (IEEE 802.3, as zlib and gzip) of every byte
 *                  before it
 *
 * A compact-mode snapshot has a SNAP_TABLE per key type holding any
 * address or flow and one SNAP_KEYS of the prefixes (fingerprints cannot
 * be listed, prefixes are kept whole); an exact-mode one has a SNAP_HOLDS
 * per source holding anything (version 1: one SNAP_KEYS of every key, all
 * of them "default"'s for ever).
 */
#ifndef CFCTL_SNAPFILE_H
#define CFCTL_SNAPFILE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/cfilter.h>

#define SNAP_MAGIC		"\x89" "CFSNAP\n"
#define SNAP_MAGIC_LEN		8
#define SNAP_VERSION		4
#define SNAP_HEADER_LEN		32
#define SNAP_SECTION_LEN	40
#define SNAP_HOLD_LEN		56
#define SNAP_HOLD_LEN_V3	48
#define SNAP_MAX_SECTIONS	(2 * __CFILTER_KEY_MAX + CFILTER_SOURCES_MAX)

enum snap_kind {
	SNAP_TABLE	= 1,
	SNAP_KEYS	= 2,
	SNAP_HOLDS	= 3,
};

struct snap_section {
	uint32_t	kind;
	uint32_t	type;
	uint32_t	flags;
	uint64_t	seed;
	uint64_t	buckets;
	uint64_t	count;
	uint64_t	length;
	const uint8_t	*data;		/* into the parsed buffer */
	uint32_t	hold_len;	/* SNAP_HOLDS: bytes per holding */
};

/* A snapshot as snap_parse() found it. */
struct snap {
	uint32_t		version;
	uint32_t		mode;
	uint32_t		fp_bits;
	uint32_t		nsect;
	struct snap_section	sect[SNAP_MAX_SECTIONS];
};

/* Why a buffer is not a snapshot cfctl can restore. */
enum snap_err {
	SNAP_OK,
	SNAP_BAD_MAGIC,		/* not a cfilter snapshot */
	SNAP_BAD_VERSION,	/* a format version this cfctl does not read */
	SNAP_TRUNCATED,		/* shorter than its header says */
	SNAP_TRAILING,		/* longer than its header says */
	SNAP_CHECKSUM,		/* the CRC does not match */
	SNAP_BAD_SECTION,	/* well summed, but inconsistent */
};

/* A snapshot being written: a growing buffer. */
struct snap_buf {
	uint8_t		*data;
	size_t		len;
	size_t		cap;
	uint32_t	nsect;
	int		err;	/* -ENOMEM once an append failed */
};

uint32_t snap_crc32(uint32_t crc, const uint8_t *p, size_t len);
size_t snap_slot_bytes(uint32_t fp_bits);
void snap_begin(struct snap_buf *b, uint32_t mode, uint32_t fp_bits);
void snap_add_table(struct snap_buf *b, uint32_t type, uint32_t flags,
		    uint64_t seed, uint64_t buckets, uint64_t count,
		    const void *slots, size_t len);
void snap_add_keys(struct snap_buf *b, const struct cfilter_key *keys,
		   size_t n);
void snap_add_holds(struct snap_buf *b, const char *source,
		    const struct cfilter_entry *e, size_t n, int64_t now);
const char *snap_holds_source(const struct snap_section *sec);

/* One holding of a SNAP_HOLDS section: seconds since the epoch, 0 if none. */
struct snap_hold {
	struct cfilter_key	key;
	uint64_t		deadline;	/* 0: never expires */
	uint64_t		added;		/* 0: not known */
};

void snap_hold(const struct snap_section *sec, uint64_t i,
	       struct snap_hold *h);
int snap_finish(struct snap_buf *b);
enum snap_err snap_parse(const uint8_t *buf, size_t len, struct snap *s,
			 char *why, size_t whylen);
int snap_check_module(const struct snap *s, uint32_t mode, uint32_t fp_bits,
		      char *why, size_t whylen);

#endif /* CFCTL_SNAPFILE_H */
