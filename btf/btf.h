/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading BTF (Documentation/bpf/btf.rst) for resolve_btfids: the kernel's
 * base BTF and a module's split BTF on top of it. A split BTF numbers its
 * types after the base's last one and its strings after the base's string
 * section, so a name or an id may point into either.
 */
#ifndef CFILTER_BTF_BTF_H
#define CFILTER_BTF_BTF_H

#include <stddef.h>
#include <stdint.h>

#define BTF_MAGIC 0xeB9F

struct btf {
	const char *path;		/* for messages */
	const struct btf *base;		/* NULL for a base BTF */
	const unsigned char *types;
	uint32_t types_size;
	const char *strs;
	uint32_t strs_size;
	uint32_t first_id;		/* id of the first type here */
	uint32_t nr_types;
	uint32_t first_str;		/* offset that strs[0] has */
};

int is_btf(const unsigned char *buf, size_t size);
int btf_parse(struct btf *btf, const char *path, const unsigned char *buf,
	      size_t size, const struct btf *base);
uint32_t btf_find_func(const struct btf *btf, const char *name, size_t len);

#endif
