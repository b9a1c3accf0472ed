// SPDX-License-Identifier: GPL-2.0
/*
 * BTF reading for resolve_btfids: walks the type records to count them and
 * to find a FUNC by name; nothing else of a type is interpreted.
 */
#include <string.h>

#include "btf.h"
#include "fail.h"

/* struct btf_header of include/uapi/linux/btf.h, field by field. */
#define HDR_MAGIC	0	/* u16 */
#define HDR_VERSION	2	/* u8 */
#define HDR_LEN		4	/* u32, and then u32 each: */
#define HDR_TYPE_OFF	8
#define HDR_TYPE_LEN	12
#define HDR_STR_OFF	16
#define HDR_STR_LEN	20
#define HDR_SIZE	24

/* struct btf_type: name_off, info (vlen: bits 0-15, kind: 24-28), size. */
#define TYPE_SIZE	12

enum {
	KIND_INT = 1, KIND_PTR, KIND_ARRAY, KIND_STRUCT, KIND_UNION, KIND_ENUM,
	KIND_FWD, KIND_TYPEDEF, KIND_VOLATILE, KIND_CONST, KIND_RESTRICT,
	KIND_FUNC, KIND_FUNC_PROTO, KIND_VAR, KIND_DATASEC, KIND_FLOAT,
	KIND_DECL_TAG, KIND_TYPE_TAG, KIND_ENUM64,
};

/* The data are not aligned inside a file read whole. */
static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static unsigned int kind_of(const unsigned char *t)
{
	return (get32(t + 4) >> 24) & 0x1f;
}

int is_btf(const unsigned char *buf, size_t size)
{
	return size >= HDR_SIZE && buf[0] == (BTF_MAGIC & 0xff) &&
	       buf[1] == BTF_MAGIC >> 8;
}

static int bad(const struct btf *btf, const char *what)
{
	return fail("%s: %s", btf->path, what);
}

/*
 * Bytes of the type record at t, the kind's trailing data included, or 0
 * for a kind this reader does not know (its length is unknown, so nothing
 * after it could be read).
 */
static size_t type_size(const unsigned char *t)
{
	size_t vlen = get32(t + 4) & 0xffff;

	switch (kind_of(t)) {
	case KIND_PTR: case KIND_FWD: case KIND_TYPEDEF: case KIND_VOLATILE:
	case KIND_CONST: case KIND_RESTRICT: case KIND_FUNC: case KIND_FLOAT:
	case KIND_TYPE_TAG:
		return TYPE_SIZE;
	case KIND_INT: case KIND_VAR: case KIND_DECL_TAG:
		return TYPE_SIZE + 4;
	case KIND_ARRAY:
		return TYPE_SIZE + 12;
	case KIND_ENUM: case KIND_FUNC_PROTO:
		return TYPE_SIZE + vlen * 8;
	case KIND_STRUCT: case KIND_UNION: case KIND_DATASEC: case KIND_ENUM64:
		return TYPE_SIZE + vlen * 12;
	}
	return 0;
}

static int count_types(struct btf *btf)
{
	uint32_t off = 0;
	size_t len;

	while (off < btf->types_size) {
		if (btf->types_size - off < TYPE_SIZE)
			return bad(btf, "BTF type section ends inside a type");
		len = type_size(btf->types + off);
		if (!len)
			return fail("%s: BTF type %u has unknown kind %u",
				    btf->path, btf->first_id + btf->nr_types,
				    kind_of(btf->types + off));
		if (len > btf->types_size - off)
			return bad(btf, "BTF type section ends inside a type");
		off += len;
		btf->nr_types++;
	}
	return 0;
}

/**
 * btf_parse() - check a BTF blob and count its types
 * @btf:  filled in; refers to @buf from now on
 * @path: where the blob came from, for messages
 * @buf:  the blob (a raw BTF file or the content of a .BTF section)
 * @size: its length
 * @base: the BTF that @buf is split from, or NULL
 *
 * Return: 0, or -1 after a message naming what is wrong.
 */
int btf_parse(struct btf *btf, const char *path, const unsigned char *buf,
	      size_t size, const struct btf *base)
{
	uint32_t hdr_len, type_off, type_len, str_off, str_len;

	memset(btf, 0, sizeof(*btf));
	btf->path = path;
	btf->base = base;
	if (!is_btf(buf, size))
		return bad(btf, "no BTF magic");
	if (buf[HDR_VERSION] != 1)
		return bad(btf, "BTF version is not 1");
	hdr_len = get32(buf + HDR_LEN);
	type_off = get32(buf + HDR_TYPE_OFF);
	type_len = get32(buf + HDR_TYPE_LEN);
	str_off = get32(buf + HDR_STR_OFF);
	str_len = get32(buf + HDR_STR_LEN);
	if (hdr_len < HDR_SIZE || hdr_len > size ||
	    type_off > size - hdr_len || type_len > size - hdr_len - type_off ||
	    str_off > size - hdr_len || str_len > size - hdr_len - str_off)
		return bad(btf, "BTF header points outside the data");
	if (str_len && buf[hdr_len + str_off + str_len - 1])
		return bad(btf, "BTF string section is not NUL-terminated");
	btf->types = buf + hdr_len + type_off;
	btf->types_size = type_len;
	btf->strs = (const char *)buf + hdr_len + str_off;
	btf->strs_size = str_len;
	btf->first_id = base ? base->first_id + base->nr_types : 1;
	btf->first_str = base ? base->first_str + base->strs_size : 0;
	return count_types(btf);
}

/* The string at off, which may lie in a base; NULL if it is nowhere. */
static const char *btf_name(const struct btf *btf, uint32_t off)
{
	if (off < btf->first_str)
		return btf->base ? btf_name(btf->base, off) : NULL;
	off -= btf->first_str;
	return off < btf->strs_size ? btf->strs + off : NULL;
}

/**
 * btf_find_func() - the id of the first FUNC of a name
 * @btf:  where to look: its bases first, then itself
 * @name: the function's name, not NUL-terminated
 * @len:  its length
 *
 * As the kernel's resolve_btfids, takes the lowest id when several FUNCs
 * share the name.
 *
 * Return: the id, or 0 if no FUNC has that name.
 */
uint32_t btf_find_func(const struct btf *btf, const char *name, size_t len)
{
	const unsigned char *t = btf->types;
	const char *s;
	uint32_t id;

	if (btf->base) {
		id = btf_find_func(btf->base, name, len);
		if (id)
			return id;
	}
	for (id = 0; id < btf->nr_types; id++, t += type_size(t)) {
		if (kind_of(t) != KIND_FUNC)
			continue;
		s = btf_name(btf, get32(t));
		if (s && !strncmp(s, name, len) && !s[len])
			return btf->first_id + id;
	}
	return 0;
}
