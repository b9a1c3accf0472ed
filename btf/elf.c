// SPDX-License-Identifier: GPL-2.0
/*
 * ELF64 reading for resolve_btfids. Only little-endian x86-64 style files
 * are read: the module and the kernel it is built for share the host's
 * byte order, and a file of another order is refused rather than misread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf.h"
#include "fail.h"

int read_file(const char *path, unsigned char **buf, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *data = NULL, *bigger;
	size_t len = 0, cap = 0, n;

	if (!f)
		return fail("cannot open %s: %s", path, strerror(errno));
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 1 << 20;
			bigger = realloc(data, cap);
			if (!bigger)
				goto err;
			data = bigger;
		}
		n = fread(data + len, 1, cap - len, f);
		len += n;
	} while (n);
	if (ferror(f))
		goto err;
	fclose(f);
	*buf = data;
	*size = len;
	return 0;
err:
	fail("cannot read %s: %s", path, strerror(errno));
	free(data);
	fclose(f);
	return -1;
}

int is_elf(const unsigned char *buf, size_t size)
{
	return size >= SELFMAG && !memcmp(buf, ELFMAG, SELFMAG);
}

static int bad(const struct elf_file *elf, const char *what)
{
	return fail("%s: %s", elf->path, what);
}

/* The section header at index i, which elf_parse() checked. */
static const Elf64_Shdr *shdr(const struct elf_file *elf, unsigned int i)
{
	return &elf->shdrs[i];
}

static int in_file(const struct elf_file *elf, Elf64_Off off, Elf64_Xword len)
{
	return off <= elf->size && len <= elf->size - off;
}

static int check_sections(struct elf_file *elf)
{
	const Elf64_Shdr *sh;
	unsigned int i;

	for (i = 1; i < elf->shnum; i++) {
		sh = shdr(elf, i);
		if (sh->sh_type != SHT_NOBITS &&
		    !in_file(elf, sh->sh_offset, sh->sh_size))
			return bad(elf, "a section lies outside the file");
		if (sh->sh_type != SHT_SYMTAB)
			continue;
		if (sh->sh_entsize != sizeof(Elf64_Sym) ||
		    !sh->sh_link || sh->sh_link >= elf->shnum ||
		    shdr(elf, sh->sh_link)->sh_type != SHT_STRTAB)
			return bad(elf, "malformed symbol table");
		elf->symtab = i;
	}
	return 0;
}

/**
 * elf_parse() - check an ELF64 file read whole and index its sections
 * @elf:  filled in
 * @path: the file's name, for messages
 * @buf:  its content, which @elf refers to from now on
 * @size: its length
 *
 * Return: 0, or -1 after a message naming what is wrong.
 */
int elf_parse(struct elf_file *elf, const char *path, unsigned char *buf,
	      size_t size)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
	const Elf64_Shdr *strs;

	memset(elf, 0, sizeof(*elf));
	elf->path = path;
	elf->buf = buf;
	elf->size = size;
	if (!is_elf(buf, size) || size < sizeof(*eh))
		return bad(elf, "not an ELF file");
	if (eh->e_ident[EI_CLASS] != ELFCLASS64)
		return bad(elf, "not a 64-bit ELF file");
	if (eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return bad(elf, "not a little-endian ELF file");
	if (eh->e_shentsize != sizeof(Elf64_Shdr) || !eh->e_shnum ||
	    eh->e_shstrndx >= eh->e_shnum ||
	    eh->e_shoff % 8 ||
	    !in_file(elf, eh->e_shoff, (Elf64_Xword)eh->e_shnum * sizeof(Elf64_Shdr)))
		return bad(elf, "malformed section headers");
	elf->shdrs = (const Elf64_Shdr *)(buf + eh->e_shoff);
	elf->shnum = eh->e_shnum;
	if (check_sections(elf))
		return -1;
	strs = shdr(elf, eh->e_shstrndx);
	if (strs->sh_type != SHT_STRTAB || !strs->sh_size ||
	    buf[strs->sh_offset + strs->sh_size - 1])
		return bad(elf, "malformed section name table");
	return 0;
}

/* The NUL-terminated string at off in string table section i, or NULL. */
static const char *elf_string(const struct elf_file *elf, unsigned int i,
			      Elf64_Word off)
{
	const Elf64_Shdr *sh = shdr(elf, i);
	const char *s = (const char *)elf->buf + sh->sh_offset;

	if (off >= sh->sh_size || !memchr(s + off, 0, sh->sh_size - off))
		return NULL;
	return s + off;
}

/* Index of the section called name, 0 if there is none. */
unsigned int elf_section(const struct elf_file *elf, const char *name)
{
	unsigned int shstrndx = ((const Elf64_Ehdr *)elf->buf)->e_shstrndx;
	const char *s;
	unsigned int i;

	for (i = 1; i < elf->shnum; i++) {
		s = elf_string(elf, shstrndx, shdr(elf, i)->sh_name);
		if (s && !strcmp(s, name))
			return i;
	}
	return 0;
}

unsigned char *elf_data(const struct elf_file *elf, unsigned int index)
{
	return elf->buf + shdr(elf, index)->sh_offset;
}

size_t elf_nsyms(const struct elf_file *elf)
{
	return elf->symtab ? shdr(elf, elf->symtab)->sh_size / sizeof(Elf64_Sym) : 0;
}

/* Symbol i, copied: the table need not be aligned in a file read whole. */
const Elf64_Sym *elf_sym(const struct elf_file *elf, size_t i, Elf64_Sym *sym)
{
	memcpy(sym, elf_data(elf, elf->symtab) + i * sizeof(*sym), sizeof(*sym));
	return sym;
}

/* The symbol's name, or NULL when it lies outside the string table. */
const char *elf_sym_name(const struct elf_file *elf, const Elf64_Sym *sym)
{
	return elf_string(elf, shdr(elf, elf->symtab)->sh_link, sym->st_name);
}
