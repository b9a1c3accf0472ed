// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/cfilter's reports: INFO, TYPE_INFO and SOURCES (see dev_ioc.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "cfilter_int.h"
#include "mirror.h"
#include "live.h"
#include "set.h"
#include "source.h"
#include "dev_ioc.h"
#include "dev_req.h"

/* The sums over every type of the live set, under the lock: one moment. */
static void cfilter_fill_info(struct cfilter_info *info)
{
	const struct cfilter_ktype *f;
	struct cfilter_type_stats st;
	struct cfilter_set *s;

	cfilter_lock_take();
	s = cfilter_live_locked();
	info->grows = cfilter_live_grows();
	for (f = cfilter_ktype_first(); f; f = cfilter_ktype_next(f)) {
		cfilter_set_type_stats(s, f, &st);
		info->capacity += st.table.capacity;
		info->count += st.count;
		info->buckets += st.table.buckets;
		info->memory_bytes += st.memory_bytes;
		info->insert_failures += st.table.insert_failures;
		info->grows += st.table.grows;
		info->prefixes += st.prefixes;
		info->prefix_markers += st.prefix_markers;
	}
	info->timed = cfilter_holds_timed(&s->holds);
	info->mirror_entries = cfilter_mirror_entries();
	if (s->hashed)
		info->memory_bytes +=
			cuckoo_mem_footprint(cfilter_config.prefilter_bits / 8);
	mutex_unlock(&cfilter_lock);

	info->fp_bits = cfilter_config.fp_bits;
	info->slots_per_bucket = CUCKOO_SLOTS;
	info->load_ppm = mul_u64_u64_div_u64(info->count, 1000000,
					     info->capacity);
	info->max_kicks = CUCKOO_MAX_KICKS;
	info->mode = cfilter_config.mode;
	info->prefilter_bits = cfilter_config.prefilter_bits;
	info->max_capacity = cfilter_config.max_capacity;
	cfilter_mem(&info->mem_used, &info->mem_limit);
}

/**
 * cfilter_ioc_info() - report the live set's geometry and occupancy
 * @file:  the open device
 * @uinfo: caller's struct cfilter_info
 *
 * @uinfo->size must cover at least the structure this module knows. A larger
 * size (a newer caller) is accepted: the module fills the fields it knows,
 * sets @uinfo->size to the number of bytes written and leaves the rest of
 * the caller's buffer untouched.
 *
 * Return: 0, -EFAULT or -EINVAL (nonzero flags, size too small).
 */
long cfilter_ioc_info(struct file *file, void __user *uinfo)
{
	struct cfilter_info info = {};

	if (copy_from_user(&info, uinfo, offsetofend(struct cfilter_info, flags)))
		return -EFAULT;
	if (info.flags || info.size < sizeof(info))
		return -EINVAL;

	info.size = sizeof(info);
	cfilter_fill_info(&info);
	if (copy_to_user(uinfo, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

/**
 * cfilter_ioc_type_info() - report one key type's tables
 * @file: the open device (its staged set, with CFILTER_F_STAGED)
 * @uti:  caller's struct cfilter_type_info
 *
 * Return: 0; -EINVAL (a type the module lacks, nonzero pad or reserved,
 * unknown flags, CFILTER_F_STAGED with nothing staged); -EFAULT.
 */
long cfilter_ioc_type_info(struct file *file, void __user *uti)
{
	const struct cfilter_ktype *f;
	struct cfilter_type_stats st;
	struct cfilter_type_info ti;
	struct cfilter_set *s;

	if (copy_from_user(&ti, uti, sizeof(ti)))
		return -EFAULT;
	f = cfilter_ktype(ti.type);
	if (!f || (ti.flags & ~CFILTER_F_STAGED) || ti.pad2 ||
	    memchr_inv(ti.pad, 0, sizeof(ti.pad)) ||
	    memchr_inv(ti.reserved, 0, sizeof(ti.reserved)))
		return -EINVAL;

	cfilter_lock_take();
	s = cfilter_req_set(file, ti.flags);
	if (s)
		cfilter_set_type_stats(s, f, &st);
	mutex_unlock(&cfilter_lock);
	if (!s)
		return -EINVAL;

	ti.probes = st.probes;
	ti.lengths = st.lengths;
	ti.count = st.count;
	ti.prefixes = st.prefixes;
	ti.prefix_markers = st.prefix_markers;
	ti.memory_bytes = st.memory_bytes;
	ti.capacity = st.table.capacity;
	if (copy_to_user(uti, &ti, sizeof(ti)))
		return -EFAULT;
	return 0;
}

/* SOURCES: the sources of the live or staged set. */
long cfilter_ioc_sources(struct file *file, void __user *arg)
{
	struct cfilter_sources __user *usrc = arg;
	struct cfilter_sources *out;
	struct cfilter_set *s;
	u32 flags;
	u64 reserved;
	int err = 0;

	if (get_user(flags, &usrc->flags) || get_user(reserved, &usrc->reserved))
		return -EFAULT;
	if ((flags & ~CFILTER_F_STAGED) || reserved)
		return -EINVAL;
	out = kzalloc(sizeof(*out), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	out->flags = flags;
	cfilter_lock_take();
	s = cfilter_req_set(file, flags);
	if (s)
		cfilter_hold_sources(s, out);
	mutex_unlock(&cfilter_lock);
	if (!s)
		err = -EINVAL;
	else if (copy_to_user(usrc, out, sizeof(*out)))
		err = -EFAULT;
	kfree(out);
	return err;
}
