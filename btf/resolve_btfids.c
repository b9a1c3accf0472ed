// SPDX-License-Identifier: GPL-2.0
/*
 * resolve_btfids: writes the BTF ids a module's .BTF_ids section asks for,
 * the last step of a module build with BTF (scripts/Makefile.modfinal runs
 * "$(objtree)/tools/bpf/resolve_btfids/resolve_btfids -b vmlinux M.ko"
 * after pahole). Debian 12's kernel headers lack the kernel's own tool; this
 * one stands in for it, for the symbols a module's kfunc set emits:
 *
 *   __BTF_ID__func__NAME__N  4 bytes: the id of FUNC NAME, looked up in the
 *                            base BTF, then in the module's split BTF
 *   __BTF_ID__set8__NAME     struct btf_id_set8: cnt (from the symbol's
 *                            size) and its {id, flags} pairs sorted by id,
 *                            as the kernel searches them
 *
 * Any other kind of BTF_ID (struct, union, typedef, set) is refused: a
 * module with a zero id in it would build, load, and fail much later.
 *
 * A module whose BTF was distilled (7.x kernels' kbuild writes the types it
 * uses of the kernel's into .BTF.base, which the kernel relocates at load)
 * numbers its ids after that base, not after vmlinux: .BTF.base then is
 * the base, whatever -b says.
 *
 * With --check it writes nothing and tells whether a module was resolved.
 * One run reads one module: nothing read is freed before the process ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf.h"
#include "elf.h"
#include "fail.h"

#define FUNC_PREFIX	"__BTF_ID__func__"
#define SET8_PREFIX	"__BTF_ID__set8__"
#define ANY_PREFIX	"__BTF_ID__"

enum {
	EXIT_UNRESOLVED = 1,	/* an id cannot be, or was not, resolved */
	EXIT_USAGE = 2,
	EXIT_FILE = 3,		/* a file cannot be read or written, or is malformed */
};

/* One __BTF_ID__ symbol: where its data lie in .BTF_ids. */
struct slot {
	const char *sym;
	int is_set8;
	const char *func;	/* for a func: its name, not NUL-terminated */
	size_t func_len;
	size_t off;
	size_t size;
};

struct module {
	struct elf_file elf;
	unsigned int btf;	/* index of .BTF, 0 if none */
	unsigned int btf_base;	/* index of .BTF.base (distilled), 0 if none */
	unsigned int ids;	/* index of .BTF_ids, 0 if none */
	unsigned char *data;	/* the content of .BTF_ids */
	size_t size;
	struct slot *slots;
	size_t nslots;
};

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/*
 * "__BTF_ID__func__NAME__N" -> NAME: what comes before the last "__", as
 * the kernel's tool cuts it (a name may hold "__" itself).
 */
static int func_name(struct slot *s)
{
	const char *name = s->sym + strlen(FUNC_PREFIX);
	const char *last = strrchr(name, '_');

	if (!last || last == name || last[-1] != '_' || last - 1 == name)
		return -1;
	s->func = name;
	s->func_len = last - 1 - name;
	return 0;
}

/* Return: 0, or the exit status for a slot that cannot be resolved. */
static int slot_parse(const struct module *m, struct slot *s,
		      const Elf64_Sym *sym)
{
	const Elf64_Shdr *sh = &m->elf.shdrs[m->ids];

	/* st_value is an address: the section's offset in a .ko (sh_addr 0) */
	s->off = sym->st_value - sh->sh_addr;
	if (!strncmp(s->sym, FUNC_PREFIX, strlen(FUNC_PREFIX))) {
		s->size = 4;
		if (func_name(s)) {
			fail("%s: symbol %s: no function name in it",
			     m->elf.path, s->sym);
			return EXIT_FILE;
		}
	} else if (!strncmp(s->sym, SET8_PREFIX, strlen(SET8_PREFIX))) {
		s->is_set8 = 1;
		s->size = sym->st_size;
		if (s->size < 8 || s->size % 8) {
			fail("%s: set %s has size %zu, not 8 + 8 per entry",
			     m->elf.path, s->sym, s->size);
			return EXIT_FILE;
		}
	} else {
		fail("%s: symbol %s: only func and set8 BTF ids are supported",
		     m->elf.path, s->sym);
		return EXIT_UNRESOLVED;
	}
	if (sym->st_value < sh->sh_addr || s->off > m->size ||
	    s->size > m->size - s->off) {
		fail("%s: symbol %s lies outside .BTF_ids", m->elf.path, s->sym);
		return EXIT_FILE;
	}
	return 0;
}

/* The module's __BTF_ID__ symbols in .BTF_ids, into m->slots. */
static int collect_slots(struct module *m)
{
	size_t i, n = elf_nsyms(&m->elf);
	const char *name;
	Elf64_Sym sym;
	int err;

	m->slots = calloc(n ? n : 1, sizeof(*m->slots));
	if (!m->slots) {
		fail("out of memory");
		return EXIT_FILE;
	}
	for (i = 0; i < n; i++) {
		elf_sym(&m->elf, i, &sym);
		if (sym.st_shndx != m->ids)
			continue;
		name = elf_sym_name(&m->elf, &sym);
		if (!name) {
			fail("%s: symbol %zu has no name", m->elf.path, i);
			return EXIT_FILE;
		}
		if (strncmp(name, ANY_PREFIX, strlen(ANY_PREFIX)))
			continue;
		m->slots[m->nslots].sym = name;
		err = slot_parse(m, &m->slots[m->nslots], &sym);
		if (err)
			return err;
		m->nslots++;
	}
	return 0;
}

/* Return: 0, or the exit status for a module that cannot be read. */
static int module_open(struct module *m, const char *path)
{
	unsigned char *buf;
	size_t size;

	memset(m, 0, sizeof(*m));
	if (read_file(path, &buf, &size) ||
	    elf_parse(&m->elf, path, buf, size))
		return EXIT_FILE;
	m->btf = elf_section(&m->elf, ".BTF");
	m->btf_base = elf_section(&m->elf, ".BTF.base");
	m->ids = elf_section(&m->elf, ".BTF_ids");
	if (!m->ids || !m->elf.symtab)
		return 0;
	m->data = elf_data(&m->elf, m->ids);
	m->size = m->elf.shdrs[m->ids].sh_size;
	return collect_slots(m);
}

/* The base BTF: an ELF file's .BTF section, or a raw BTF file. */
static int base_open(struct btf *btf, const char *path)
{
	struct elf_file elf;
	unsigned char *buf;
	unsigned int btf_sec;
	size_t size;

	if (read_file(path, &buf, &size))
		return -1;
	if (!is_elf(buf, size))
		return btf_parse(btf, path, buf, size, NULL);
	if (elf_parse(&elf, path, buf, size))
		return -1;
	btf_sec = elf_section(&elf, ".BTF");
	if (!btf_sec)
		return fail("%s has no .BTF section", path);
	return btf_parse(btf, path, elf_data(&elf, btf_sec),
			 elf.shdrs[btf_sec].sh_size, NULL);
}

static int cmp_pair_id(const void *a, const void *b)
{
	uint32_t x = get32(a), y = get32(b);

	return x < y ? -1 : x > y;
}

/* Every func id first: a set is sorted by the ids written into it. */
static int write_ids(struct module *m, const struct btf *btf)
{
	struct slot *s;
	uint32_t id;
	int err = 0;

	for (s = m->slots; s < m->slots + m->nslots; s++) {
		if (s->is_set8)
			continue;
		id = btf_find_func(btf, s->func, s->func_len);
		if (!id) {
			fail("%s: no FUNC '%.*s' in its BTF or the base's (symbol %s)",
			     m->elf.path, (int)s->func_len, s->func, s->sym);
			err = -1;
		}
		put32(m->data + s->off, id);
	}
	for (s = m->slots; s < m->slots + m->nslots; s++) {
		if (!s->is_set8)
			continue;
		put32(m->data + s->off, s->size / 8 - 1);
		qsort(m->data + s->off + 8, s->size / 8 - 1, 8, cmp_pair_id);
	}
	return err;
}

static int write_section(const struct module *m)
{
	const char *path = m->elf.path;
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return fail("cannot open %s for writing: %s", path, strerror(errno));
	n = pwrite(fd, m->data, m->size, m->elf.shdrs[m->ids].sh_offset);
	if (n < 0 || close(fd))
		return fail("cannot write %s: %s", path, strerror(errno));
	if (n != (ssize_t)m->size)
		return fail("cannot write %s: short write", path);
	return 0;
}

static int resolve(const char *path, const char *base_path)
{
	struct btf base, split;
	struct module m;
	int err;

	err = module_open(&m, path);
	if (err)
		return err;
	if (!m.nslots)
		return 0;
	if (!m.btf) {
		fail("%s has BTF ids but no .BTF section to resolve them from (did pahole -J run?)",
		     path);
		return EXIT_UNRESOLVED;
	}
	if (m.btf_base) {
		if (btf_parse(&base, path, elf_data(&m.elf, m.btf_base),
			      m.elf.shdrs[m.btf_base].sh_size, NULL))
			return EXIT_FILE;
	} else if (base_path && base_open(&base, base_path)) {
		return EXIT_FILE;
	}
	if (btf_parse(&split, path, elf_data(&m.elf, m.btf),
		      m.elf.shdrs[m.btf].sh_size,
		      m.btf_base || base_path ? &base : NULL))
		return EXIT_FILE;
	if (write_ids(&m, &split))
		return EXIT_UNRESOLVED;
	return write_section(&m) ? EXIT_FILE : 0;
}

/* A set8 as resolving leaves it: its count, and nonzero ids in order. */
static int set8_resolved(const struct module *m, const struct slot *s)
{
	const unsigned char *set = m->data + s->off;
	uint32_t i, cnt = s->size / 8 - 1;

	if (get32(set) != cnt)
		return 0;
	for (i = 0; i < cnt; i++) {
		if (!get32(set + 8 + 8 * i))
			return 0;
		if (i && get32(set + 8 * i) > get32(set + 8 + 8 * i))
			return 0;
	}
	return 1;
}

static int check(const char *path)
{
	struct module m;
	struct btf btf;
	struct slot *s;
	int bad = 0, err;

	err = module_open(&m, path);
	if (err)
		return err;
	if (!m.btf) {
		fail("%s has no .BTF section: it was built without module BTF, and no BPF program can call its kfuncs",
		     path);
		return EXIT_UNRESOLVED;
	}
	if (btf_parse(&btf, path, elf_data(&m.elf, m.btf),
		      m.elf.shdrs[m.btf].sh_size, NULL))
		return EXIT_FILE;
	for (s = m.slots; s < m.slots + m.nslots; s++) {
		if (s->is_set8 ? set8_resolved(&m, s) : get32(m.data + s->off) != 0)
			continue;
		fail("%s: %s is not resolved (%s)", path, s->sym,
		     s->is_set8 ? "count or order of its ids" : "its BTF id is 0");
		bad = 1;
	}
	return bad ? EXIT_UNRESOLVED : 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: resolve_btfids [-b BASE] MODULE.ko   write MODULE's BTF ids\n"
		"       resolve_btfids --check MODULE.ko     are they written?\n"
		"BASE: the kernel's BTF, an ELF file with a .BTF section (vmlinux)\n"
		"or a raw BTF file (/sys/kernel/btf/vmlinux).\n");
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "btf_base", required_argument, NULL, 'b' },
		{ "check", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *base = NULL;
	int opt, check_only = 0;

	while ((opt = getopt_long(argc, argv, "b:h", options, NULL)) != -1) {
		switch (opt) {
		case 'b':
			base = optarg;
			break;
		case 'c':
			check_only = 1;
			break;
		default:
			return usage();
		}
	}
	if (optind != argc - 1 || (check_only && base))
		return usage();
	return check_only ? check(argv[optind]) : resolve(argv[optind], base);
}
