/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the cuckoo filter core needs from its environment: the kernel, or a
 * host C library for the unit tests and benchmarks.
 */
#ifndef CFILTER_CUCKOO_ENV_H
#define CFILTER_CUCKOO_ENV_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/err.h>
#include <linux/compiler.h>
#include <linux/bitops.h>
#include <linux/bottom_half.h>
#include <linux/bug.h>
#include <linux/cache.h>
#include <linux/mm.h>
#include <linux/prefetch.h>
#include <linux/processor.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <asm/barrier.h>
/* 6.12 moved asm/unaligned.h to linux/unaligned.h. */
#if __has_include("linux/unaligned.h")
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * Readers run in softirq context (XDP, tc) and spin while a bucket's version
 * is odd. Were one to interrupt the writer on the writer's own CPU while the
 * writer is between the two version bumps of a move, it would spin forever:
 * the writer cannot continue until the reader returns. Keeping bottom halves
 * off across each move rules that out. Preemption is off too, so that no
 * reader (the TEST and MATCH ioctls run in tasks) can preempt the writer
 * and spin in its place: local_bh_disable() implies that, except on
 * PREEMPT_RT, where bottom halves are a lock and the window stays
 * preemptible without the explicit call.
 */
static inline void cuckoo_write_lock_local(void)
{
	local_bh_disable();
	preempt_disable();
}

static inline void cuckoo_write_unlock_local(void)
{
	preempt_enable();
	local_bh_enable();
}

/*
 * The module's bound on its memory (max_memory=, main.c). The core charges
 * a table's or a map's bytes before it allocates them, and fails with
 * -EDQUOT, changing nothing, where the bound would be passed.
 */
bool cuckoo_mem_charge(u64 bytes);
void cuckoo_mem_uncharge(u64 bytes);

/*
 * What kvzalloc(@bytes) takes from the kernel, which is what the memory
 * bound counts: kmalloc's size class, whole pages in a power of two past
 * its caches, or whole pages of vmalloc past what kmalloc serves (kvzalloc
 * also falls back on vmalloc when kmalloc fails: then less). A huge-page
 * table of cuckoo_table_zalloc() comes out exact either way.
 */
static inline u64 cuckoo_mem_footprint(u64 bytes)
{
	if (bytes > KMALLOC_MAX_SIZE)
		return PAGE_ALIGN(bytes);
	return kmalloc_size_roundup(bytes);
}

/*
 * A table's fingerprint and key arrays, which lookups read at random
 * places: in huge pages when their size is a whole number of them (all
 * large tables: powers of two times a small stride), so that a lookup in a
 * large table does not also miss the TLB on every read. kvzalloc() would
 * map them 4 KiB at a time; vmalloc_huge() falls back to that by itself
 * when no huge page is free. Freed by kvfree().
 */
static inline void *cuckoo_table_zalloc(size_t bytes)
{
	if (bytes >= PMD_SIZE && IS_ALIGNED(bytes, PMD_SIZE))
		return vmalloc_huge(bytes, GFP_KERNEL | __GFP_ZERO);
	return kvzalloc(bytes, GFP_KERNEL);
}

#else /* host */

#include <errno.h>
#include <sched.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/types.h>
#include <urcu.h>

/*
 * glibc's <sys/cdefs.h> (via <stdlib.h>) supplies __always_inline, and
 * the attributes of noinline and __maybe_unused below.
 */

/*
 * RCU is liburcu's default flavour: host readers rcu_register_thread() and
 * read inside rcu_read_lock(); synchronize_rcu() waits for them. Only the
 * writer stores the table pointer, so its own loads of it need no marking.
 * (<urcu/compiler.h> defines __rcu as nothing.)
 */
#define rcu_dereference_protected(p, c)	(p)
#define RCU_INIT_POINTER(p, v)		((p) = (v))

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s64 s64;

#define GFP_KERNEL		0
#define BIT_ULL(nr)		(1ULL << (nr))
#define ____cacheline_aligned	alignas(64)
#define noinline		__attribute_noinline__
#define __maybe_unused		__attribute_maybe_unused__
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
/* <linux/build_bug.h>'s, whose message is optional */
#undef static_assert
#define static_assert(e, ...)	_Static_assert(e, #e)

/*
 * Relaxed C11 atomics: untorn, never elided or merged, and (unlike volatile)
 * formally free of data races, so the fences below do order them.
 */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, val)	__atomic_store_n(&(x), (val), __ATOMIC_RELAXED)

/*
 * smp_rmb() must order earlier loads before later loads, and smp_wmb()
 * earlier stores before later stores. An acquire fence orders earlier loads
 * before everything after it, a release fence everything before it before
 * later stores: each is a little more than needed, and both are free on x86.
 */
#define smp_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE) /* loads */
#define smp_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE) /* stores */

/*
 * A host writer, unlike the kernel's, can be preempted inside a move;
 * yielding lets it finish instead of burning the reader's time slice.
 */
#define cpu_relax()		sched_yield()

/* A host build is a test: a broken invariant must stop it loudly. */
#define WARN_ON_ONCE(cond)	(unlikely(cond) ? (abort(), 1) : 0)

#define cond_resched()		do { } while (0)

/*
 * Tests set this to the number of allocations that may still succeed, to
 * check that a failed one leaves the filter as it was; -1: no limit.
 */
static long cuckoo_host_alloc_budget = -1;

#define CUCKOO_HUGE_PAGE	(2UL << 20)

/*
 * Zeroed @bytes aligned on @align (a power of two), within the tests'
 * allocation budget; aligned on a huge page, asked of transparent huge
 * pages before the zeroing faults it in.
 */
static inline void *cuckoo_host_zalloc(size_t bytes, size_t align)
{
	void *p;

	if (!cuckoo_host_alloc_budget)
		return NULL;
	if (cuckoo_host_alloc_budget > 0)
		cuckoo_host_alloc_budget--;
	if (bytes > SIZE_MAX - align)
		return NULL;
	p = aligned_alloc(align, (bytes + align - 1) & ~(align - 1));
	if (!p)
		return NULL;
	if (align == CUCKOO_HUGE_PAGE)
		madvise(p, bytes, MADV_HUGEPAGE);
	memset(p, 0, bytes);
	return p;
}

/*
 * Cache-line aligned, as the kernel's allocators align such sizes, so that
 * what the core keeps apart on lines of their own is apart here too.
 */
static inline void *kvcalloc(size_t n, size_t size, int flags)
{
	size_t bytes;

	(void)flags;
	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	return cuckoo_host_zalloc(bytes, 64);
}

/*
 * The host's stand-in for the module's memory bound: tests set it to the
 * bytes that may still be charged; -1: no bound. Per translation unit, as
 * the allocation budget above.
 */
static long long cuckoo_host_mem_left = -1;

static inline bool cuckoo_mem_charge(u64 bytes)
{
	if (cuckoo_host_mem_left < 0)
		return true;
	if (bytes > (u64)cuckoo_host_mem_left)
		return false;
	cuckoo_host_mem_left -= bytes;
	return true;
}

static inline void cuckoo_mem_uncharge(u64 bytes)
{
	if (cuckoo_host_mem_left >= 0)
		cuckoo_host_mem_left += bytes;
}

#ifdef CUCKOO_HOST_KMALLOC
/*
 * bench/mem.c: the kernel's footprint (x86-64, 4 KiB pages), so that the
 * host counts what the module would: kmalloc's size classes up to 8 KiB,
 * a power of two of pages up to KMALLOC_MAX_SIZE (4 MiB), whole pages
 * past it (vmalloc).
 */
static inline u64 cuckoo_mem_footprint(u64 bytes)
{
	u64 size = 8;

	if (bytes > (4ULL << 20))
		return (bytes + 4095) & ~4095ULL;
	if (bytes > 64 && bytes <= 96)
		return 96;
	if (bytes > 128 && bytes <= 192)
		return 192;
	while (size < bytes)
		size *= 2;
	return bytes ? size : 0;
}
#else
/* The host's allocator is not the kernel's: what was asked for. */
static inline u64 cuckoo_mem_footprint(u64 bytes)
{
	return bytes;
}
#endif

static inline void *kvzalloc(size_t size, int flags)
{
	return kvcalloc(1, size, flags);
}

static inline void kvfree(const void *p)
{
	free((void *)p);
}

/*
 * The kernel's cuckoo_table_zalloc(): huge pages, asked of transparent
 * huge pages, for the same sizes, so that the host's benchmarks measure
 * the tables as the module maps them.
 */
static inline void *cuckoo_table_zalloc(size_t bytes)
{
	bool huge = bytes >= CUCKOO_HUGE_PAGE && !(bytes % CUCKOO_HUGE_PAGE);

	return cuckoo_host_zalloc(bytes, huge ? CUCKOO_HUGE_PAGE : 64);
}

static inline u64 rol64(u64 word, unsigned int shift)
{
	return (word << (shift & 63)) | (word >> ((-shift) & 63));
}

/* The lowest set bit of @word, which must not be 0. */
static inline unsigned long __ffs64(u64 word)
{
	return __builtin_ctzll(word);
}

/*
 * The kernel's generic prefetch(). x86's is a prefetchnta: on the host the
 * batch readers measured the same with either.
 */
#define prefetch(x)		__builtin_prefetch(x)

static inline u64 get_unaligned_le64(const void *p)
{
	const u8 *b = p;

	/* gcc and clang turn this into one load on little-endian hosts */
	return (u64)b[0] | (u64)b[1] << 8 | (u64)b[2] << 16 |
	       (u64)b[3] << 24 | (u64)b[4] << 32 | (u64)b[5] << 40 |
	       (u64)b[6] << 48 | (u64)b[7] << 56;
}

static inline u32 get_unaligned_le32(const void *p)
{
	const u8 *b = p;

	return (u32)b[0] | (u32)b[1] << 8 | (u32)b[2] << 16 | (u32)b[3] << 24;
}

static inline void put_unaligned_le32(u32 v, void *p)
{
	u8 *b = p;
	unsigned int i;

	for (i = 0; i < 4; i++)
		b[i] = v >> (8 * i);
}

static inline void put_unaligned_le64(u64 v, void *p)
{
	u8 *b = p;
	unsigned int i;

	for (i = 0; i < 8; i++)
		b[i] = v >> (8 * i);
}

/* The kernel's error pointers: the top 4095 addresses are errnos. */
#define MAX_ERRNO	4095

static inline void *ERR_PTR(long err)
{
	return (void *)err;
}

static inline long PTR_ERR(const void *p)
{
	return (long)p;
}

static inline bool IS_ERR(const void *p)
{
	return (unsigned long)p >= (unsigned long)-MAX_ERRNO;
}

static inline int PTR_ERR_OR_ZERO(const void *p)
{
	return IS_ERR(p) ? (int)PTR_ERR(p) : 0;
}

static inline void *ERR_CAST(const void *p)
{
	return (void *)p;
}

/* As the kernel's; "+ 0" drops the const of *ptr (u32, u64). */
#define get_unaligned(ptr)						\
	({								\
		__typeof__(ptr) p_ = (ptr);				\
		__typeof__(*p_ + 0) v_;					\
		memcpy(&v_, p_, sizeof(v_));				\
		v_;							\
	})

/* Host readers are threads, never interrupts of the writer: nothing to do. */
static inline void cuckoo_write_lock_local(void)
{
}

static inline void cuckoo_write_unlock_local(void)
{
}

#endif /* __KERNEL__ */

/*
 * @bytes of zeroed memory, charged against the memory bound first (at
 * what the allocator takes for them); or ERR_PTR(-EDQUOT) (the bound) or
 * ERR_PTR(-ENOMEM), nothing charged.
 */
static inline void *cuckoo_mem_zalloc(u64 bytes)
{
	u64 charge = cuckoo_mem_footprint(bytes);
	void *p;

	if (!cuckoo_mem_charge(charge))
		return ERR_PTR(-EDQUOT);
	p = kvzalloc(bytes, GFP_KERNEL);
	if (!p) {
		cuckoo_mem_uncharge(charge);
		return ERR_PTR(-ENOMEM);
	}
	return p;
}

/* Frees what cuckoo_mem_zalloc(@bytes) gave (or NULL), uncharging it. */
static inline void cuckoo_mem_free(void *p, u64 bytes)
{
	if (p)
		cuckoo_mem_uncharge(cuckoo_mem_footprint(bytes));
	kvfree(p);
}

#endif /* CFILTER_CUCKOO_ENV_H */
