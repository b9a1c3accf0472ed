// SPDX-License-Identifier: GPL-2.0
/*
 * insns.so: a QEMU TCG plugin that counts what the guest runs, so that a
 * guest bench can compare programs by a figure the host's load cannot move.
 * It counts, per vCPU, the instructions run, the translation blocks
 * entered (about one per branch taken, and one per iteration of a rep
 * string instruction) and the memory accesses made. When a guest program
 * runs the marker, `xchg %bx,%bx` in user mode, it prints that vCPU's
 * counts so far: "insns-mark CPU N insns I blocks B mem M" (N: the vCPU's
 * markers before it). The guest prints its own line per pair of markers,
 * in the same order, and the host pairs them
 * (scripts/bench/bench-xdp-insns.sh).
 *
 * With the argument profile=on it also prints, at every second marker of
 * vCPU 0, each translation block that ran there since the one before:
 * "insns-block VADDR INSNS RUNS TICKS", for the host to put names to.
 * TICKS: the host's clock from each of its runs to the next block's, what
 * the emulator spent on it (this plugin's callback included, the same for
 * every block); the host's TSC on x86-64, else ns.
 *
 * Built against QEMU 7.2's plugin API (version 1), whose few calls used
 * here are declared below: Debian ships QEMU with plugin support but not
 * its header.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_info_t;

typedef uint32_t qemu_plugin_meminfo_t;

enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W,
			  QEMU_PLUGIN_MEM_RW };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
	void (*cb)(qemu_plugin_id_t, struct qemu_plugin_tb *));
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
	void (*cb)(unsigned int vcpu, void *udata),
	enum qemu_plugin_cb_flags flags, void *udata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
	void (*cb)(unsigned int vcpu, void *udata),
	enum qemu_plugin_cb_flags flags, void *udata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn,
	void (*cb)(unsigned int vcpu, qemu_plugin_meminfo_t info,
		   uint64_t vaddr, void *udata),
	enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw,
	void *udata);
void qemu_plugin_outs(const char *string);

EXPORT int qemu_plugin_version = 1;

/* x86-64 user addresses end below this: kernel code is never a marker. */
#define USER_END	0x0000800000000000ULL

static const uint8_t marker[] = { 0x66, 0x87, 0xdb };	/* xchg %bx,%bx */

/* Per vCPU: the marked work runs on one while the others idle. */
#define MAX_VCPUS	64

static struct {
	uint64_t insns, blocks, mem;
	uint64_t marks;
} vcpus[MAX_VCPUS];

/*
 * profile=on: each translated block's runs on vCPU 0, printed and cleared
 * at every second marker, so that a series' blocks come out by address.
 * Blocks may be translated on any vCPU's thread: the lock keeps the list.
 */
struct block {
	uint64_t vaddr, n, runs, ticks;
};

/* The host's clock, in its own ticks: what the emulator spends. */
static uint64_t host_ticks(void)
{
#if defined(__x86_64__)
	return __builtin_ia32_rdtsc();
#else
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000 + t.tv_nsec;
#endif
}

/* vCPU 0's block running now, and when it began */
static struct block *running;
static uint64_t running_since;

static bool profile;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct block **blocks;
static size_t nblocks, blocks_cap;

static void on_block(unsigned int vcpu, void *udata)
{
	if (vcpu < MAX_VCPUS) {
		vcpus[vcpu].insns += (uintptr_t)udata;
		vcpus[vcpu].blocks++;
	}
}

static void on_block_profiled(unsigned int vcpu, void *udata)
{
	struct block *b = udata;

	if (vcpu < MAX_VCPUS) {
		vcpus[vcpu].insns += b->n;
		vcpus[vcpu].blocks++;
		if (vcpu == 0) {
			uint64_t now = host_ticks();

			/* the block before, until this one: its cost and ours */
			if (running)
				running->ticks += now - running_since;
			running = b;
			running_since = now;
			b->runs++;
		}
	}
}

static struct block *new_block(uint64_t vaddr, size_t n)
{
	struct block *b = calloc(1, sizeof(*b));

	if (!b)
		abort();
	b->vaddr = vaddr;
	b->n = n;
	pthread_mutex_lock(&lock);
	if (nblocks == blocks_cap) {
		blocks_cap = blocks_cap ? 2 * blocks_cap : 4096;
		blocks = realloc(blocks, blocks_cap * sizeof(*blocks));
		if (!blocks)
			abort();
	}
	blocks[nblocks++] = b;
	pthread_mutex_unlock(&lock);
	return b;
}

/* @print: the blocks that ran, printed; either way their runs cleared. */
static void end_profile(bool print)
{
	char line[128];
	size_t i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < nblocks; i++) {
		struct block *b = blocks[i];

		if (print && b->runs) {
			snprintf(line, sizeof(line),
				 "insns-block %" PRIx64 " %" PRIu64 " %" PRIu64
				 " %" PRIu64 "\n", b->vaddr, b->n, b->runs,
				 b->ticks);
			qemu_plugin_outs(line);
		}
		b->runs = 0;
		b->ticks = 0;
	}
	running = NULL;
	pthread_mutex_unlock(&lock);
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info,
		   uint64_t vaddr, void *udata)
{
	(void)info;
	(void)vaddr;
	(void)udata;
	if (vcpu < MAX_VCPUS)
		vcpus[vcpu].mem++;
}

static void on_marker(unsigned int vcpu, void *udata)
{
	char line[160];

	(void)udata;
	if (vcpu >= MAX_VCPUS)
		return;
	snprintf(line, sizeof(line),
		 "insns-mark %u %" PRIu64 " insns %" PRIu64 " blocks %" PRIu64
		 " mem %" PRIu64 "\n", vcpu, vcpus[vcpu].marks++,
		 vcpus[vcpu].insns, vcpus[vcpu].blocks, vcpus[vcpu].mem);
	qemu_plugin_outs(line);
	/* marks now counts this one: odd after a series' first */
	if (profile && vcpu == 0)
		end_profile(vcpus[0].marks % 2 == 0);
}

static bool is_marker(const struct qemu_plugin_insn *insn)
{
	return qemu_plugin_insn_vaddr(insn) < USER_END &&
	       qemu_plugin_insn_size(insn) == sizeof(marker) &&
	       !memcmp(qemu_plugin_insn_data(insn), marker, sizeof(marker));
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	if (profile)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block_profiled,
			QEMU_PLUGIN_CB_NO_REGS,
			new_block(qemu_plugin_tb_vaddr(tb), n));
	else
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block,
			QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		qemu_plugin_register_vcpu_mem_cb(insn, on_mem,
						 QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, NULL);
		if (is_marker(insn))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
						QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
			       const struct qemu_info_t *info, int argc,
			       char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "profile=on")) {
			fprintf(stderr, "insns.so: unknown argument '%s' (profile=on is the one)\n",
				argv[i]);
			return -1;
		}
		profile = true;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	return 0;
}
