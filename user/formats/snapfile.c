// SPDX-License-Identifier: GPL-2.0
/* Snapshot files: see snapfile.h for the layout. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/snapfile.h"
#include "lib/source_name.h"

/* CRC-32, reflected, polynomial 0x04C11DB7: zlib's crc32(). */
uint32_t snap_crc32(uint32_t crc, const uint8_t *p, size_t len)
{
	static uint32_t table[256];
	uint32_t c;
	int i, k;

	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			c = i;
			for (k = 0; k < 8; k++)
				c = c & 1 ? 0xEDB88320U ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	}
	crc = ~crc;
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* Bytes per slot of a table of @fp_bits fingerprints; 0 if not a width. */
size_t snap_slot_bytes(uint32_t fp_bits)
{
	switch (fp_bits) {
	case 8:
		return 1;
	case 12:
	case 16:
		return 2;
	case 32:
		return 4;
	default:
		return 0;
	}
}

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		p[i] = v >> (8 * i);
}

static uint64_t get_le(const uint8_t *p, int bytes)
{
	uint64_t v = 0;
	int i;

	for (i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Room for @len more bytes at the end of @b; NULL once out of memory. */
static uint8_t *snap_room(struct snap_buf *b, size_t len)
{
	size_t cap = b->cap ? b->cap : 4096;
	uint8_t *data;

	if (b->err)
		return NULL;
	while (cap - b->len < len) {
		if (cap > SIZE_MAX / 2)
			goto nomem;
		cap *= 2;
	}
	if (cap != b->cap) {
		data = realloc(b->data, cap);
		if (!data)
			goto nomem;
		b->data = data;
		b->cap = cap;
	}
	b->len += len;
	return b->data + b->len - len;
nomem:
	b->err = -ENOMEM;
	return NULL;
}

/**
 * snap_begin() - start a snapshot in memory
 * @b:       zeroed; snap_finish() ends it, and the caller frees @b->data
 * @mode:    enum cfilter_mode of the module
 * @fp_bits: its bits per fingerprint
 */
void snap_begin(struct snap_buf *b, uint32_t mode, uint32_t fp_bits)
{
	uint8_t *h = snap_room(b, SNAP_HEADER_LEN);

	if (!h)
		return;
	memset(h, 0, SNAP_HEADER_LEN);
	memcpy(h, SNAP_MAGIC, SNAP_MAGIC_LEN);
	put_le(h + 8, SNAP_VERSION, 4);
	put_le(h + 12, mode, 4);
	put_le(h + 16, fp_bits, 4);
}

static void add_section(struct snap_buf *b, uint32_t kind, uint32_t type,
			uint32_t flags, uint64_t seed, uint64_t buckets,
			uint64_t count, const void *data, size_t len)
{
	uint8_t *p = snap_room(b, SNAP_SECTION_LEN + len);

	if (!p)
		return;
	put_le(p, kind, 4);
	put_le(p + 4, type, 2);
	put_le(p + 6, flags, 2);
	put_le(p + 8, seed, 8);
	put_le(p + 16, buckets, 8);
	put_le(p + 24, count, 8);
	put_le(p + 32, len, 8);
	if (len)
		memcpy(p + SNAP_SECTION_LEN, data, len);
	b->nsect++;
}

/**
 * snap_add_table() - append a raw table, as CFILTER_IOC_DUMP gave it
 * @b:       the snapshot
 * @type:    enum cfilter_key_type
 * @flags:   its CFILTER_TABLE_* flags
 * @seed:    the table's hash key
 * @buckets: its buckets
 * @count:   fingerprints stored in it
 * @slots:   its slots
 * @len:     bytes at @slots
 */
void snap_add_table(struct snap_buf *b, uint32_t type, uint32_t flags,
		    uint64_t seed, uint64_t buckets, uint64_t count,
		    const void *slots, size_t len)
{
	add_section(b, SNAP_TABLE, type, flags, seed, buckets, count, slots,
		    len);
}

/**
 * snap_add_keys() - append a list of keys
 * @b:    the snapshot
 * @keys: the keys
 * @n:    how many
 */
void snap_add_keys(struct snap_buf *b, const struct cfilter_key *keys,
		   size_t n)
{
	add_section(b, SNAP_KEYS, 0, 0, 0, 0, n, keys, n * sizeof(*keys));
}

/**
 * snap_add_holds() - append the holdings of one source
 * @b:      the snapshot
 * @source: the source's name, as LIST reports it
 * @e:      its holdings, as LIST reports them (@source's alone)
 * @n:      how many
 * @now:    seconds since the epoch when they were listed: a holding with
 *          a timeout is saved with its deadline, @now + the timeout, and
 *          one of known age with when it was added, @now - the age
 */
void snap_add_holds(struct snap_buf *b, const char *source,
		    const struct cfilter_entry *e, size_t n, int64_t now)
{
	size_t len = CFILTER_SOURCE_LEN + n * SNAP_HOLD_LEN, i;
	uint8_t *p = snap_room(b, SNAP_SECTION_LEN + len);

	if (!p)
		return;
	put_le(p, SNAP_HOLDS, 4);
	put_le(p + 4, 0, 4);
	put_le(p + 8, 0, 8);
	put_le(p + 16, 0, 8);
	put_le(p + 24, n, 8);
	put_le(p + 32, len, 8);
	p += SNAP_SECTION_LEN;
	source_copy((char *)p, source);
	p += CFILTER_SOURCE_LEN;
	for (i = 0; i < n; i++, p += SNAP_HOLD_LEN) {
		memcpy(p, &e[i].key, sizeof(e[i].key));
		put_le(p + sizeof(e[i].key),
		       e[i].timeout ? (uint64_t)now + e[i].timeout : 0, 8);
		put_le(p + sizeof(e[i].key) + 8,
		       e[i].age == CFILTER_AGE_UNKNOWN || e[i].age >= now ?
		       0 : (uint64_t)now - e[i].age, 8);
	}
	b->nsect++;
}

/* The source of a SNAP_HOLDS section snap_parse() accepted. */
const char *snap_holds_source(const struct snap_section *sec)
{
	return (const char *)sec->data;
}

/**
 * snap_hold() - one holding of a SNAP_HOLDS section snap_parse() accepted
 * @sec: the section
 * @i:   which, below @sec->count
 * @h:   set to it (added 0 before version 4)
 */
void snap_hold(const struct snap_section *sec, uint64_t i,
	       struct snap_hold *h)
{
	const uint8_t *p = sec->data + CFILTER_SOURCE_LEN + i * sec->hold_len;

	memcpy(&h->key, p, sizeof(h->key));
	h->deadline = get_le(p + sizeof(h->key), 8);
	h->added = sec->hold_len == SNAP_HOLD_LEN ?
		   get_le(p + sizeof(h->key) + 8, 8) : 0;
}

/**
 * snap_finish() - complete the header and append the checksum
 * @b: the snapshot; @b->data and @b->len are then the file
 *
 * Return: 0, or -ENOMEM if any part could not be appended.
 */
int snap_finish(struct snap_buf *b)
{
	uint8_t *crc = snap_room(b, 4);

	if (!crc)
		return b->err;
	put_le(b->data + 20, b->nsect, 4);
	put_le(b->data + 24, b->len, 8);
	put_le(crc, snap_crc32(0, b->data, b->len - 4), 4);
	return 0;
}

/* Is the key at @p of a type this cfctl knows? The type is its first byte. */
static int key_type_ok(unsigned int i, uint64_t j, const uint8_t *p,
		       char *why, size_t whylen)
{
	if (*p != CFILTER_KEY_NONE && *p < __CFILTER_KEY_MAX)
		return 1;
	snprintf(why, whylen, "section %u: key %llu of unknown type %u",
		 i + 1, (unsigned long long)j + 1, *p);
	return 0;
}

/* Checks a SNAP_HOLDS section; false after writing why to @why. */
static int holds_ok(struct snap *s, unsigned int i, char *why, size_t whylen)
{
	struct snap_section *sec = &s->sect[i];
	const char *name = (const char *)sec->data;
	size_t n;
	uint64_t j;

	sec->hold_len = s->version >= 4 ? SNAP_HOLD_LEN : SNAP_HOLD_LEN_V3;
	if (s->mode != CFILTER_MODE_EXACT || sec->type || sec->flags || sec->seed ||
	    sec->buckets || sec->length < CFILTER_SOURCE_LEN ||
	    sec->count > (sec->length - CFILTER_SOURCE_LEN) / sec->hold_len ||
	    sec->length != CFILTER_SOURCE_LEN + sec->count * sec->hold_len) {
		snprintf(why, whylen, "section %u: holdings of %llu bytes for %llu keys, or not in an exact-mode snapshot",
			 i + 1, (unsigned long long)sec->length,
			 (unsigned long long)sec->count);
		return 0;
	}
	n = strnlen(name, CFILTER_SOURCE_LEN);
	for (j = n; j < CFILTER_SOURCE_LEN; j++)
		if (name[j])
			n = CFILTER_SOURCE_LEN;
	if (n == CFILTER_SOURCE_LEN || !source_name_ok(name)) {
		snprintf(why, whylen, "section %u: a source name that is not one",
			 i + 1);
		return 0;
	}
	for (j = 0; j < i; j++) {
		if (s->sect[j].kind == SNAP_HOLDS &&
		    !strcmp(snap_holds_source(&s->sect[j]), name)) {
			snprintf(why, whylen, "section %u: source %s a second time",
				 i + 1, name);
			return 0;
		}
	}
	for (j = 0; j < sec->count; j++)
		if (!key_type_ok(i, j, sec->data + CFILTER_SOURCE_LEN +
				 j * sec->hold_len, why, whylen))
			return 0;
	return 1;
}

/* Checks one section's fields; false after writing why to @why. */
static int section_ok(struct snap *s, unsigned int i, char *why,
		      size_t whylen)
{
	const struct snap_section *sec = &s->sect[i];
	size_t slot = snap_slot_bytes(s->fp_bits);
	unsigned int j;

	if (sec->kind == SNAP_HOLDS && s->version >= 2)
		return holds_ok(s, i, why, whylen);
	if (sec->kind == SNAP_KEYS) {
		if (sec->type || sec->flags || sec->seed || sec->buckets ||
		    sec->count > sec->length / sizeof(struct cfilter_key) ||
		    sec->length != sec->count * sizeof(struct cfilter_key)) {
			snprintf(why, whylen, "section %u: a key list of %llu bytes for %llu keys",
				 i + 1, (unsigned long long)sec->length,
				 (unsigned long long)sec->count);
			return 0;
		}
		for (j = 0; j < i; j++) {
			if (s->sect[j].kind == SNAP_KEYS) {
				snprintf(why, whylen, "section %u: a second key list", i + 1);
				return 0;
			}
		}
		for (j = 0; j < sec->count; j++)
			if (!key_type_ok(i, j, sec->data +
					 j * sizeof(struct cfilter_key), why,
					 whylen))
				return 0;
		return 1;
	}
	if (sec->kind != SNAP_TABLE) {
		snprintf(why, whylen, "section %u: unknown kind %u", i + 1,
			 sec->kind);
		return 0;
	}
	if (s->mode != CFILTER_MODE_COMPACT || !slot) {
		snprintf(why, whylen, "section %u: a raw table, but the snapshot is not of a compact filter with 8, 12, 16 or 32-bit fingerprints",
			 i + 1);
		return 0;
	}
	if (sec->type == CFILTER_KEY_NONE || sec->type >= __CFILTER_KEY_MAX) {
		snprintf(why, whylen, "section %u: table of unknown key type %u",
			 i + 1, sec->type);
		return 0;
	}
	/*
	 * A table has one hash. Before version 3, the flags' bytes were the
	 * type's upper half.
	 */
	if (sec->flags & ~(CFILTER_TABLE_HASH32 | CFILTER_TABLE_MIX32) ||
	    sec->flags == (CFILTER_TABLE_HASH32 | CFILTER_TABLE_MIX32) ||
	    (sec->flags && s->version < 3)) {
		snprintf(why, whylen, "section %u: table flags %#x this cfctl does not know",
			 i + 1, sec->flags);
		return 0;
	}
	if (!sec->buckets || sec->buckets & (sec->buckets - 1) ||
	    sec->buckets > SIZE_MAX / 4 / slot ||
	    sec->length != sec->buckets * 4 * slot ||
	    sec->count > sec->buckets * 4) {
		snprintf(why, whylen, "section %u: a table of %llu bytes for %llu buckets and %llu fingerprints",
			 i + 1, (unsigned long long)sec->length,
			 (unsigned long long)sec->buckets,
			 (unsigned long long)sec->count);
		return 0;
	}
	for (j = 0; j < i; j++) {
		if (s->sect[j].kind == SNAP_TABLE &&
		    s->sect[j].type == sec->type) {
			snprintf(why, whylen, "section %u: a second table of key type %u",
				 i + 1, sec->type);
			return 0;
		}
	}
	return 1;
}

/* Reads the section headers after the checksum held; SNAP_BAD_SECTION. */
static enum snap_err parse_sections(const uint8_t *buf, size_t len,
				    struct snap *s, char *why, size_t whylen)
{
	size_t off = SNAP_HEADER_LEN, end = len - 4;
	unsigned int i;

	if (s->nsect > SNAP_MAX_SECTIONS) {
		snprintf(why, whylen, "%u sections, more than the key types and sources allow (%u)",
			 s->nsect, SNAP_MAX_SECTIONS);
		return SNAP_BAD_SECTION;
	}
	for (i = 0; i < s->nsect; i++) {
		struct snap_section *sec = &s->sect[i];
		const uint8_t *p = buf + off;

		if (end - off < SNAP_SECTION_LEN) {
			snprintf(why, whylen, "section %u: past the end", i + 1);
			return SNAP_BAD_SECTION;
		}
		sec->kind = get_le(p, 4);
		sec->type = get_le(p + 4, 2);
		sec->flags = get_le(p + 6, 2);
		sec->seed = get_le(p + 8, 8);
		sec->buckets = get_le(p + 16, 8);
		sec->count = get_le(p + 24, 8);
		sec->length = get_le(p + 32, 8);
		off += SNAP_SECTION_LEN;
		if (sec->length > end - off) {
			snprintf(why, whylen, "section %u: %llu bytes, past the end",
				 i + 1, (unsigned long long)sec->length);
			return SNAP_BAD_SECTION;
		}
		sec->data = buf + off;
		off += sec->length;
		if (!section_ok(s, i, why, whylen))
			return SNAP_BAD_SECTION;
	}
	if (off != end) {
		snprintf(why, whylen, "%zu bytes after the last section", end - off);
		return SNAP_BAD_SECTION;
	}
	return SNAP_OK;
}

/**
 * snap_parse() - check a whole snapshot file and read its sections
 * @buf:    the file's bytes
 * @len:    how many
 * @s:      filled in on SNAP_OK; section data point into @buf
 * @why:    set to a message for anything but SNAP_OK
 * @whylen: room at @why
 *
 * Checked in order: the magic, the version, the length, the checksum,
 * then every section's fields, so that the message names the first thing
 * wrong: a file that is not a snapshot is not called corrupted.
 *
 * Return: SNAP_OK, or what is wrong.
 */
enum snap_err snap_parse(const uint8_t *buf, size_t len, struct snap *s,
			 char *why, size_t whylen)
{
	char section_why[256];
	uint64_t size;

	memset(s, 0, sizeof(*s));
	if (memcmp(buf, SNAP_MAGIC, len < SNAP_MAGIC_LEN ? len : SNAP_MAGIC_LEN) ||
	    !len) {
		snprintf(why, whylen, "not a cfilter snapshot");
		return SNAP_BAD_MAGIC;
	}
	if (len < SNAP_HEADER_LEN + 4) {
		snprintf(why, whylen, "truncated: %zu bytes, shorter than any snapshot",
			 len);
		return SNAP_TRUNCATED;
	}
	s->version = get_le(buf + 8, 4);
	if (!s->version || s->version > SNAP_VERSION) {
		snprintf(why, whylen, "snapshot format version %u: this cfctl reads versions 1 to %u; restore with the cfctl that wrote it",
			 s->version, SNAP_VERSION);
		return SNAP_BAD_VERSION;
	}
	size = get_le(buf + 24, 8);
	if (size > len) {
		snprintf(why, whylen, "truncated: %zu of %llu bytes", len,
			 (unsigned long long)size);
		return SNAP_TRUNCATED;
	}
	if (size < len) {
		snprintf(why, whylen, "corrupted: %zu bytes after the snapshot's end",
			 len - (size_t)size);
		return SNAP_TRAILING;
	}
	if (snap_crc32(0, buf, len - 4) != get_le(buf + len - 4, 4)) {
		snprintf(why, whylen, "corrupted: checksum mismatch");
		return SNAP_CHECKSUM;
	}
	s->mode = get_le(buf + 12, 4);
	s->fp_bits = get_le(buf + 16, 4);
	s->nsect = get_le(buf + 20, 4);
	if (s->mode != CFILTER_MODE_EXACT && s->mode != CFILTER_MODE_COMPACT) {
		snprintf(why, whylen, "corrupted: unknown mode %u", s->mode);
		return SNAP_BAD_SECTION;
	}
	if (parse_sections(buf, len, s, section_why, sizeof(section_why)) ==
	    SNAP_OK)
		return SNAP_OK;
	snprintf(why, whylen, "corrupted: %s", section_why);
	return SNAP_BAD_SECTION;
}

static const char *mode_param(uint32_t mode)
{
	return mode == CFILTER_MODE_COMPACT ? "compact" : "exact";
}

/**
 * snap_check_module() - may this snapshot be restored into this module?
 * @s:       a snapshot snap_parse() accepted
 * @mode:    the module's enum cfilter_mode
 * @fp_bits: its bits per fingerprint
 * @why:     set to what to do when the answer is no
 * @whylen:  room at @why
 *
 * An exact snapshot holds keys, which are added again: any module takes
 * it, whatever its mode and width. A compact one holds raw tables, which
 * only a compact module with fingerprints of the same width can take.
 *
 * Return: 0, or -EINVAL.
 */
int snap_check_module(const struct snap *s, uint32_t mode, uint32_t fp_bits,
		      char *why, size_t whylen)
{
	if (s->mode == CFILTER_MODE_EXACT)
		return 0;
	if (mode != CFILTER_MODE_COMPACT) {
		snprintf(why, whylen, "the snapshot is of a filter in %s mode and the module is in %s mode: reload cfilter with mode=%s",
			 mode_param(s->mode), mode_param(mode),
			 mode_param(s->mode));
		return -EINVAL;
	}
	if (s->fp_bits != fp_bits) {
		snprintf(why, whylen, "the snapshot's fingerprints have %u bits and the module's %u: reload cfilter with fp_bits=%u",
			 s->fp_bits, fp_bits, s->fp_bits);
		return -EINVAL;
	}
	return 0;
}
