// SPDX-License-Identifier: GPL-2.0
/*
 * The memory bound (max_memory=): everything a set allocates (the set,
 * its tables with their handles and BFS queues, its prefix sets, records
 * and holdings) and the copies of a table DUMP and RESTORE make are
 * charged before they are allocated, at what the allocator takes for them
 * (cuckoo_mem_footprint() in cuckoo_env.h), and a charge that would pass
 * the bound is refused, so that no input can make the module eat the
 * host. What an ioctl allocates for its own bounded steps is not counted.
 */
#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/init.h>
#include <linux/sched.h>
#include <linux/types.h>

#include "cfilter.h"
#include "cuckoo.h"

/*
 * @cfilter_mem_refused counts the charges refused, so that a caller whose
 * allocation failed can tell the bound from a shortage.
 */
static atomic64_t cfilter_mem_used = ATOMIC64_INIT(0);
static atomic64_t cfilter_mem_refused = ATOMIC64_INIT(0);
static u64 cfilter_mem_limit __ro_after_init;
/* The task whose charges pass the bound (cfilter_mem_exempt()), or NULL. */
static struct task_struct *cfilter_mem_exempt_task;

bool cuckoo_mem_charge(u64 bytes)
{
	if ((u64)atomic64_add_return(bytes, &cfilter_mem_used) <=
	    cfilter_mem_limit ||
	    READ_ONCE(cfilter_mem_exempt_task) == current)
		return true;
	atomic64_sub(bytes, &cfilter_mem_used);
	atomic64_inc(&cfilter_mem_refused);
	return false;
}

void cuckoo_mem_uncharge(u64 bytes)
{
	atomic64_sub(bytes, &cfilter_mem_used);
}

/**
 * cfilter_mem() - the memory bound and what is charged against it
 * @used:  set to the bytes charged now
 * @limit: set to the bound, in bytes
 *
 * Return: the number of charges refused since the module was loaded.
 */
u64 cfilter_mem(u64 *used, u64 *limit)
{
	if (used)
		*used = atomic64_read(&cfilter_mem_used);
	if (limit)
		*limit = cfilter_mem_limit;
	return atomic64_read(&cfilter_mem_refused);
}

/**
 * cfilter_mem_exempt() - let the calling task's charges pass the bound
 * @on: from now on (true), or no longer (false)
 *
 * For CLEAR's empty set alone; one task at a time (the caller serialises).
 */
void cfilter_mem_exempt(bool on)
{
	WRITE_ONCE(cfilter_mem_exempt_task, on ? current : NULL);
}

/* The bound, in bytes: set once, at load. */
void __init cfilter_mem_set_limit(u64 bytes)
{
	cfilter_mem_limit = bytes;
}
