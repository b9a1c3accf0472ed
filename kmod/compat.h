/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels cfilter builds for (Debian 12's 6.1,
 * Debian 13's 6.12 and forky's 7.2) for the module glue: the kfunc
 * definition API, module namespaces, and how a BPF map describes its
 * value. Each shim tests for the macro or header itself rather than for a
 * version number where the kernel gives one to test, so that a stable
 * kernel that backported the newer form is served by its own definition.
 */
#ifndef _CFILTER_COMPAT_H
#define _CFILTER_COMPAT_H

#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/version.h>

/*
 * 6.2 added __bpf_kfunc. Before it a kfunc only has to stay out of line, so
 * that it keeps a BTF id and a call target.
 */
#ifndef __bpf_kfunc
#define __bpf_kfunc noinline
#endif

/*
 * 6.7 added the pair that brackets kfunc definitions: global functions
 * without a prototype, which W=1 would warn about; their prototypes are in
 * the module's BTF. Defined as 6.7 defines it (checkpatch mistakes the
 * pragmas for statements).
 */
#ifndef __bpf_kfunc_start_defs
#define __bpf_kfunc_start_defs()					\
	__diag_push();							\
	__diag_ignore_all("-Wmissing-prototypes",			\
			  "Global kfuncs: their prototypes are in BTF")
#define __bpf_kfunc_end_defs() __diag_pop()
#endif

/*
 * 6.9 added BTF_KFUNCS_START/END, which flag the set as kfuncs; from then on
 * registering a plain BTF_SET8 set fails with -EINVAL. Before 6.9 the plain
 * set is the kfunc set.
 */
#ifndef BTF_KFUNCS_START
#define BTF_KFUNCS_START(name) BTF_SET8_START(name)
#define BTF_KFUNCS_END(name) BTF_SET8_END(name)
#endif

/*
 * 6.13 made MODULE_IMPORT_NS() take a string literal where it stringified a
 * bare name: only the version tells the two apart.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define CFILTER_IMPORT_NS(ns) MODULE_IMPORT_NS(#ns)
#else
#define CFILTER_IMPORT_NS(ns) MODULE_IMPORT_NS(ns)
#endif

/*
 * Does @map's value hold fields that only the BPF core may write
 * (bpf_spin_lock, bpf_timer, kptrs; from 6.2 on also list and rbtree roots
 * and nodes, refcounts, bpf_wq)? The core frees and unlocks them with the
 * map, trusting what they hold. 6.1 keeps one member of struct bpf_map per
 * kind; 6.2 gathered them all in map->record, NULL (or an error) when there
 * are none. Neither change left a macro to test for.
 */
static inline bool cfilter_map_has_special_fields(const struct bpf_map *map)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	return !IS_ERR_OR_NULL(map->record);
#else
	return map_value_has_spin_lock(map) || map_value_has_timer(map) ||
	       map_value_has_kptrs(map);
#endif
}

#endif /* _CFILTER_COMPAT_H */
