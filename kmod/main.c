// SPDX-License-Identifier: GPL-2.0
/*
 * cfilter: a cuckoo filter of blocked traffic keys, managed through
 * /dev/cfilter and consulted by XDP and TC programs through a kfunc.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/init.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/random.h>
#include <linux/rcupdate.h>

#include "cfilter.h"
#include "cuckoo.h"

static unsigned long capacity = 1UL << 20;
module_param(capacity, ulong, 0444);
MODULE_PARM_DESC(capacity, "Keys the filter must hold (default 1048576)");

static unsigned int fp_bits = 16;
module_param(fp_bits, uint, 0444);
MODULE_PARM_DESC(fp_bits, "Bits per fingerprint: 8, 12, 16 or 32 (default 16)");

struct cfilter_state cfilter_state = {
	.lock = __MUTEX_INITIALIZER(cfilter_state.lock),
};

/*
 * The largest capacity cuckoo_params_check() accepts with @bits, which must be
 * valid. The core's limit is on table bytes, so it depends on the fingerprint
 * width; acceptance is monotonic in capacity, so a binary search finds it.
 */
static u64 __init cfilter_max_capacity(unsigned int bits)
{
	u64 lo = 1, hi = U64_MAX;

	while (lo < hi) {
		u64 mid = hi - (hi - lo) / 2;

		if (cuckoo_params_check(mid, bits))
			hi = mid - 1;
		else
			lo = mid;
	}
	return lo;
}

/* cuckoo_params_check() does not say which parameter is wrong: find out. */
static int __init cfilter_params_check(void)
{
	if (cuckoo_params_check(1, fp_bits)) {
		pr_err("fp_bits=%u is invalid: use 8, 12, 16 or 32\n", fp_bits);
		return -EINVAL;
	}
	if (cuckoo_params_check(capacity, fp_bits)) {
		pr_err("capacity=%lu is out of range for fp_bits=%u: use 1 to %llu\n",
		       capacity, fp_bits, cfilter_max_capacity(fp_bits));
		return -EINVAL;
	}
	return 0;
}

static int __init cfilter_init(void)
{
	struct cuckoo *c;
	int err;

	err = cfilter_params_check();
	if (err)
		return err;

	c = cuckoo_create(capacity, fp_bits, get_random_u64());
	if (!c) {
		pr_err("no memory for a filter of capacity=%lu fp_bits=%u: lower capacity\n",
		       capacity, fp_bits);
		return -ENOMEM;
	}
	RCU_INIT_POINTER(cfilter_state.filter, c);

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
	/* Never published to a reader: no grace period to wait for. */
	cuckoo_destroy(c);
	return err;
}

static void __exit cfilter_exit(void)
{
	struct cuckoo *c;

	cfilter_dev_unregister();
	/* The device is gone, so no writer is left. */
	c = rcu_replace_pointer(cfilter_state.filter, NULL, true);
	synchronize_rcu();
	cuckoo_destroy(c);
}

module_init(cfilter_init);
module_exit(cfilter_exit);

/* GPL: kfuncs are usable only from GPL modules and GPL programs. */
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Cuckoo filter of blocked traffic keys for XDP, managed via /dev/cfilter");
MODULE_AUTHOR("cfilter developers");
