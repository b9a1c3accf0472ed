// SPDX-License-Identifier: GPL-2.0
/*
 * bench.c's access to the reference cuckoo filter (see ref.h), compiled
 * only by make REF=dir against dir/src/cuckoofilter.h. Each call is one
 * call of the reference's own method, as bench.c's calls of cuckoo.c's
 * functions are: neither side's lookup is inlined into the loops.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <new>

#include "cuckoofilter.h"
#include "ref.h"

typedef cuckoofilter::CuckooFilter<uint64_t, 16> RefFilter;

/*
 * The reference's table (its one new[]) in huge pages as cfilter's are
 * (cuckoo_table_zalloc() in cuckoo_env.h), so that neither side's figures
 * owe anything to a TLB the other lacks. Only the reference calls new[].
 */
static const std::size_t huge_page = 2UL << 20;

void *operator new[](std::size_t n)
{
	std::size_t bytes = (n + huge_page - 1) / huge_page * huge_page;
	void *p = n < huge_page ? malloc(n) : aligned_alloc(huge_page, bytes);

	if (!p)
		throw std::bad_alloc();
	if (n >= huge_page)
		madvise(p, bytes, MADV_HUGEPAGE);
	return p;
}

/* GCC takes free() for a mismatch with new[]: here they are a pair. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete[](void *p) noexcept
{
	free(p);
}

void operator delete[](void *p, std::size_t) noexcept
{
	free(p);
}
#pragma GCC diagnostic pop

struct cf_ref {
	RefFilter f;
	explicit cf_ref(uint64_t keys) : f(keys) {}
};

extern "C" struct cf_ref *cf_ref_create(uint64_t slots)
{
	/* The reference sizes itself from the keys it is to hold. */
	struct cf_ref *r = new (std::nothrow) cf_ref(slots * 95 / 100);

	if (r && r->f.SizeInBytes() != slots * 2) {
		delete r;
		return NULL;
	}
	return r;
}

extern "C" void cf_ref_destroy(struct cf_ref *r)
{
	delete r;
}

extern "C" int cf_ref_insert(struct cf_ref *r, const uint32_t *key)
{
	return r->f.Add(*key) == cuckoofilter::Ok ? 0 : -ENOSPC;
}

extern "C" int cf_ref_delete(struct cf_ref *r, const uint32_t *key)
{
	return r->f.Delete(*key) == cuckoofilter::Ok ? 0 : -ENOENT;
}

extern "C" int cf_ref_contains(const struct cf_ref *r, const uint32_t *key)
{
	return r->f.Contain(*key) == cuckoofilter::Ok;
}

extern "C" uint64_t cf_ref_count(const struct cf_ref *r)
{
	return r->f.Size();
}

extern "C" uint64_t cf_ref_memory_bytes(const struct cf_ref *r)
{
	return r->f.SizeInBytes();
}
