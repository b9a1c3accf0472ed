/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough ELF64 for resolve_btfids: a whole file in memory, its sections
 * by name and its symbol table, every offset checked against the file.
 */
#ifndef CFILTER_BTF_ELF_H
#define CFILTER_BTF_ELF_H

#include <elf.h>
#include <stddef.h>

struct elf_file {
	const char *path;
	unsigned char *buf;
	size_t size;
	const Elf64_Shdr *shdrs;
	unsigned int shnum;
	unsigned int symtab;	/* index of SHT_SYMTAB, 0 if none */
};

int read_file(const char *path, unsigned char **buf, size_t *size);
int is_elf(const unsigned char *buf, size_t size);
int elf_parse(struct elf_file *elf, const char *path, unsigned char *buf,
	      size_t size);
unsigned int elf_section(const struct elf_file *elf, const char *name);
unsigned char *elf_data(const struct elf_file *elf, unsigned int index);
size_t elf_nsyms(const struct elf_file *elf);
const Elf64_Sym *elf_sym(const struct elf_file *elf, size_t i, Elf64_Sym *sym);
const char *elf_sym_name(const struct elf_file *elf, const Elf64_Sym *sym);

#endif
