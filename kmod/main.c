// SPDX-License-Identifier: GPL-2.0
/*
 * cfilter: a cuckoo filter of blocked traffic keys, managed through
 * /dev/cfilter and consulted by XDP and TC programs through a kfunc.
 *
 * One set of tables (set.h): per key type (keys.c) a prefix set or a
 * flow filter, all created from the same module parameters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/init.h>
#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "cfilter_int.h"
#include "cuckoo.h"
#include "prefix.h"
#include "prefilter.h"
#include "live.h"
#include "set.h"
#include "source.h"

/* capacity= unset: compact tables' fixed size, exact tables' first. */
#define CFILTER_DEFAULT_CAPACITY	65536UL
#define CFILTER_DEFAULT_EXACT_START	1024UL
#define CFILTER_DEFAULT_MAX_CAPACITY	(16UL << 20)

static char *mode = "exact";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "exact (default): full keys kept, no false positives, grows up to max_capacity; compact: fingerprints only, fewer bytes per key, false positives, fixed size");

static unsigned int fp_bits = 16;
module_param(fp_bits, uint, 0444);
MODULE_PARM_DESC(fp_bits, "Bits per fingerprint: 8, 12, 16 or 32 (default 16); compact mode: false positive rate at most 8/2^fp_bits");

static unsigned long capacity;
/* capacity= was given: its default depends on the mode (cfilter_params_check()). */
static bool cfilter_capacity_given;

static int cfilter_capacity_set(const char *val, const struct kernel_param *kp)
{
	cfilter_capacity_given = true;
	return param_set_ulong(val, kp);
}

static const struct kernel_param_ops cfilter_capacity_ops = {
	.set	= cfilter_capacity_set,
	.get	= param_get_ulong,
};

module_param_cb(capacity, &cfilter_capacity_ops, &capacity, 0444);
MODULE_PARM_DESC(capacity, "Keys of each type (src, dst, flow, allow; IPv4 and IPv6) the filter holds when loaded. Compact mode never grows, so size it for every key (default 65536). Exact mode grows as keys come (default 1024: an idle key type then takes kilobytes, not megabytes, and a million keys cost six more doublings, which copy about an eighth of the keys the last one copies)");

static unsigned long max_capacity;
module_param(max_capacity, ulong, 0444);
MODULE_PARM_DESC(max_capacity, "Exact mode: keys of each type the filter may grow to hold (default: the larger of 16777216 and capacity, less for a key type whose tables cannot grow that far; at least capacity). Compact mode: 0 or equal to capacity");

static unsigned long max_memory;
module_param(max_memory, ulong, 0444);
MODULE_PARM_DESC(max_memory, "MiB the tables and records of every set may take together (a replace holds two sets at once); an add or load that would pass it is refused (EDQUOT), changing nothing (default: a quarter of RAM)");

struct cfilter_config cfilter_config __ro_after_init;
/* max_capacity= was not given: each type grows as far as it can up to it. */
static bool cfilter_max_defaulted __initdata;

static const char * const cfilter_mode_names[] = {
	[CFILTER_MODE_EXACT]	= "exact",
	[CFILTER_MODE_COMPACT]	= "compact",
};

/* max_memory= in bytes, or a quarter of RAM if it was not given. */
static int __init cfilter_settle_memory(void)
{
	if (!max_memory)
		max_memory = (totalram_pages() >> (20 - PAGE_SHIFT)) / 4;
	if (!max_memory || max_memory > (U64_MAX >> 20)) {
		pr_err("max_memory=%lu is out of range: use 1 to %llu (MiB)\n",
		       max_memory, U64_MAX >> 20);
		return -EINVAL;
	}
	cfilter_mem_set_limit((u64)max_memory << 20);
	return 0;
}

/* The core's parameters for key type @f with capacity @cap and bound @max. */
static void cfilter_params(const struct cfilter_ktype *f, u64 cap, u64 max,
			   struct cuckoo_params *p)
{
	memset(p, 0, sizeof(*p));
	p->capacity = cap;
	p->max_capacity = max;
	p->fp_bits = fp_bits;
	p->key_len = f->key_len;
	p->exact = cfilter_config.mode == CFILTER_MODE_EXACT;
	/* Every exact table tags its entries (struct cfilter_set). */
	p->values = p->exact;
}

/* Can a filter of every key type be built with @cap and @max? */
static bool __init cfilter_params_ok(u64 cap, u64 max)
{
	const struct cfilter_ktype *f;
	struct cuckoo_params p;

	for (f = cfilter_ktype_first(); f; f = cfilter_ktype_next(f)) {
		cfilter_params(f, cap, max, &p);
		if (cuckoo_params_check(&p))
			return false;
	}
	return true;
}

/*
 * The largest value in [@lo, U64_MAX] that @ok accepts, @lo being accepted.
 * The core's limits are on table bytes, so they depend on the fingerprint
 * width, the mode and the key length; acceptance is monotonic, so a binary
 * search finds the limit without knowing the core's rules.
 */
static u64 __init cfilter_limit(u64 lo, bool (*ok)(u64 v, u64 other),
				u64 other)
{
	u64 hi = U64_MAX;

	while (lo < hi) {
		u64 mid = hi - (hi - lo) / 2;

		if (ok(mid, other))
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static bool __init cfilter_cap_ok(u64 cap, u64 unused)
{
	/* Compact tables never grow: their bound is their capacity. */
	return cfilter_params_ok(cap, cfilter_config.mode == CFILTER_MODE_EXACT ?
				 cap : 0);
}

static bool __init cfilter_max_ok(u64 max, u64 cap)
{
	return cfilter_params_ok(cap, max);
}

static int __init cfilter_parse_mode(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cfilter_mode_names); i++) {
		if (!strcmp(mode, cfilter_mode_names[i])) {
			cfilter_config.mode = i;
			return 0;
		}
	}
	pr_err("mode=%s is invalid: use exact or compact\n", mode);
	return -EINVAL;
}

/*
 * Checks every parameter, naming the first bad one with its allowed range
 * (cuckoo_params_check() only says that something is wrong), and settles
 * capacity (sysfs then shows the value in use) and max_capacity.
 */
static int __init cfilter_params_check(void)
{
	bool exact;
	int err;

	err = cfilter_parse_mode();
	if (err)
		return err;
	exact = cfilter_config.mode == CFILTER_MODE_EXACT;
	if (!cfilter_capacity_given)
		capacity = exact ? CFILTER_DEFAULT_EXACT_START :
				   CFILTER_DEFAULT_CAPACITY;

	if (!cfilter_params_ok(1, exact ? 1 : 0)) {
		pr_err("fp_bits=%u is invalid: use 8, 12, 16 or 32\n", fp_bits);
		return -EINVAL;
	}
	if (!capacity || !cfilter_cap_ok(capacity, 0)) {
		pr_err("capacity=%lu is out of range for mode=%s fp_bits=%u: use 1 to %llu\n",
		       capacity, mode, fp_bits,
		       cfilter_limit(1, cfilter_cap_ok, 0));
		return -EINVAL;
	}

	if (!exact) {
		if (max_capacity && max_capacity != capacity) {
			pr_err("max_capacity=%lu is invalid in compact mode, which never grows: leave it unset or equal to capacity=%lu\n",
			       max_capacity, capacity);
			return -EINVAL;
		}
		cfilter_config.max_capacity = capacity;
		cfilter_config.prefilter_bits = cfilter_prefilter_bits_for(capacity);
		return 0;
	}

	if (!max_capacity) {
		/* Bounded per type in cfilter_settle_config(). */
		max_capacity = max(CFILTER_DEFAULT_MAX_CAPACITY, capacity);
		cfilter_config.max_capacity = max_capacity;
		cfilter_max_defaulted = true;
		return 0;
	}
	if (max_capacity < capacity || !cfilter_max_ok(max_capacity, capacity)) {
		pr_err("max_capacity=%lu is out of range for capacity=%lu fp_bits=%u: use %lu to %llu\n",
		       max_capacity, capacity, fp_bits, capacity,
		       cfilter_limit(capacity, cfilter_max_ok, capacity));
		return -EINVAL;
	}
	cfilter_config.max_capacity = max_capacity;
	return 0;
}

/*
 * The most keys key type @f may grow to hold, at most @max: the core bounds
 * a table's bytes, so a key type with long keys (FLOW6: 37 bytes) stops short
 * of the default bound that a short one (SRC4: 4 bytes) reaches.
 */
static u64 __init cfilter_ktype_max(const struct cfilter_ktype *f, u64 max)
{
	struct cuckoo_params p;

	cfilter_params(f, capacity, max, &p);
	return cuckoo_max_capacity(&p);
}

/*
 * Settles each key type's table parameters, from which every set is
 * created (cfilter_set_create()). The prefix sets take them as they are:
 * the checks above covered every table a set holds.
 */
static int __init cfilter_settle_config(void)
{
	const struct cfilter_ktype *f;
	u64 max;

	max = cfilter_config.mode == CFILTER_MODE_EXACT ?
	      cfilter_config.max_capacity : 0;
	cfilter_config.fp_bits = fp_bits;
	for (f = cfilter_ktype_first(); f; f = cfilter_ktype_next(f)) {
		unsigned int t = cfilter_ktype_type(f);
		struct prefix_params pp = { .addr_len = f->addr_len };

		cfilter_params(f, capacity, cfilter_max_defaulted ?
			       cfilter_ktype_max(f, max) : max,
			       &cfilter_config.params[t]);
		if (!f->addr_len)
			continue;
		pp.addrs = cfilter_config.params[t];
		if (prefix_params_check(&pp)) {
			pr_err("the %s prefix set refuses mode=%s capacity=%lu fp_bits=%u\n",
			       f->name, mode, capacity, fp_bits);
			return -EINVAL;
		}
	}
	return 0;
}

static int __init cfilter_init(void)
{
	struct cfilter_set *set;
	int err;

	err = cfilter_params_check();
	if (!err)
		err = cfilter_settle_config();
	if (!err)
		err = cfilter_settle_memory();
	if (err)
		return err;
	set = cfilter_set_create();
	if (IS_ERR(set)) {
		if (PTR_ERR(set) == -EDQUOT)
			pr_err("the empty tables (mode=%s capacity=%lu fp_bits=%u) need more than max_memory=%lu MiB: lower capacity or raise max_memory\n",
			       mode, capacity, fp_bits, max_memory);
		else
			pr_err("no memory for the tables (mode=%s capacity=%lu fp_bits=%u): lower capacity\n",
			       mode, capacity, fp_bits);
		return PTR_ERR(set);
	}
	cfilter_live_publish(set);

	/*
	 * A kfunc set cannot be unregistered on 6.1, and need not be: it lives
	 * in the module's BTF, which goes away with the module. No program can
	 * reference the kfunc before this function returns 0 (the module's BTF
	 * becomes usable only once the module is live), and a program that
	 * does holds a reference on the module, so rmmod is refused while one
	 * is loaded.
	 */
	err = cfilter_kfunc_register();
	if (err) {
		pr_err("cannot register the kfunc set: %d\n", err);
		goto err_destroy;
	}

	err = cfilter_dev_register();
	if (err) {
		pr_err("cannot register /dev/cfilter: %d\n", err);
		goto err_destroy;
	}
	return 0;

err_destroy:
	cfilter_expiry_stop();
	/* Never reachable by a reader: no grace period to wait for. */
	cfilter_set_destroy(rcu_dereference_protected(cfilter_live, true));
	return err;
}

/*
 * The module is unloaded only when nothing references it: no open
 * /dev/cfilter (no writer, no TEST) and no BPF program using the kfunc (a
 * program drops its reference only after an RCU grace period). So no reader
 * can be inside a set any more, and no file holds a staged one.
 */
static void __exit cfilter_exit(void)
{
	cfilter_dev_unregister();
	cfilter_expiry_stop();
	cfilter_prefilter_release();
	cfilter_set_destroy(rcu_dereference_protected(cfilter_live, true));
}

module_init(cfilter_init);
module_exit(cfilter_exit);

/* GPL: kfuncs are usable only from GPL modules and GPL programs. */
MODULE_LICENSE("GPL");
MODULE_VERSION(CFILTER_VERSION);
MODULE_DESCRIPTION("Cuckoo filter of blocked traffic keys for XDP, managed via /dev/cfilter");
MODULE_AUTHOR("cfilter developers");
