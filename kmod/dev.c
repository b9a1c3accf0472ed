// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/cfilter: the administrative interface to the filter.
 *
 * Anyone who can open the device may TEST keys and read INFO; ADD, DEL and
 * CLEAR also need CAP_NET_ADMIN, so the device mode can be widened for
 * monitoring without handing out control of the filter.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/math64.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "cfilter.h"
#include "cuckoo.h"

/**
 * cfilter_key_check() - accept only the key shapes the XDP program builds
 * @key: key from userspace
 *
 * The filter hashes all bytes of a key, so an added key matches the one the
 * XDP program looks up only if every byte is the same: fields the key type
 * does not use must be zero.
 *
 * Return: 0 if @key is well formed, else -EINVAL.
 */
static int cfilter_key_check(const struct cfilter_key *key)
{
	unsigned int alen = cfilter_key_addr_len(key->type);

	if (!alen || key->prefix_len != alen * 8)
		return -EINVAL;
	if (key->proto || key->pad || key->sport || key->dport)
		return -EINVAL;
	if (memchr_inv(key->saddr + alen, 0, sizeof(key->saddr) - alen) ||
	    memchr_inv(key->daddr, 0, sizeof(key->daddr)))
		return -EINVAL;
	return 0;
}

/* Copies the argument of ADD, DEL or TEST and validates it. */
static int cfilter_get_key_req(struct cfilter_key_req *req,
			       const void __user *argp)
{
	if (copy_from_user(req, argp, sizeof(*req)))
		return -EFAULT;
	if (req->flags || req->pad)
		return -EINVAL;
	return cfilter_key_check(&req->key);
}

static long cfilter_ioc_add(const void __user *argp)
{
	struct cfilter_key_req req;
	int err;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	err = cfilter_get_key_req(&req, argp);
	if (err)
		return err;

	mutex_lock(&cfilter_state.lock);
	err = cuckoo_insert(cfilter_locked(), &req.key, sizeof(req.key));
	mutex_unlock(&cfilter_state.lock);
	return err;
}

static long cfilter_ioc_del(const void __user *argp)
{
	struct cfilter_key_req req;
	int err;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	err = cfilter_get_key_req(&req, argp);
	if (err)
		return err;

	mutex_lock(&cfilter_state.lock);
	err = cuckoo_delete(cfilter_locked(), &req.key, sizeof(req.key));
	mutex_unlock(&cfilter_state.lock);
	return err;
}

/* Lock-free, like the XDP path: a TEST never waits for a writer. */
static long cfilter_ioc_test(const void __user *argp)
{
	struct cfilter_key_req req;
	bool found;
	int err;

	err = cfilter_get_key_req(&req, argp);
	if (err)
		return err;

	rcu_read_lock();
	found = cuckoo_contains(rcu_dereference(cfilter_state.filter),
				&req.key, sizeof(req.key));
	rcu_read_unlock();
	return found ? 0 : -ENOENT;
}

static long cfilter_ioc_clear(void)
{
	if (!capable(CAP_NET_ADMIN))
		return -EPERM;

	mutex_lock(&cfilter_state.lock);
	cuckoo_clear(cfilter_locked());
	mutex_unlock(&cfilter_state.lock);
	return 0;
}

/**
 * cfilter_ioc_info() - report the filter's geometry and occupancy
 * @uinfo: caller's struct cfilter_info
 *
 * @uinfo->size must cover at least the structure this module knows. A larger
 * size (a newer caller) is accepted: the module fills the fields it knows,
 * sets @uinfo->size to the number of bytes written and leaves the rest of
 * the caller's buffer untouched.
 *
 * Return: 0, -EFAULT or -EINVAL (nonzero flags, size too small).
 */
static long cfilter_ioc_info(struct cfilter_info __user *uinfo)
{
	struct cfilter_info info = {};
	struct cuckoo_stats st;

	if (copy_from_user(&info, uinfo, offsetofend(struct cfilter_info, flags)))
		return -EFAULT;
	if (info.flags || info.size < sizeof(info))
		return -EINVAL;

	/* Under the lock: the counters are a snapshot of one moment. */
	mutex_lock(&cfilter_state.lock);
	cuckoo_get_stats(cfilter_locked(), &st);
	mutex_unlock(&cfilter_state.lock);

	info.size = sizeof(info);
	info.capacity = st.capacity;
	info.count = st.count;
	info.buckets = st.buckets;
	info.slots_per_bucket = CUCKOO_SLOTS;
	info.fp_bits = st.fp_bits;
	info.memory_bytes = st.memory_bytes;
	info.insert_failures = st.insert_failures;
	info.load_ppm = mul_u64_u64_div_u64(st.count, 1000000, st.capacity);
	info.max_kicks = CUCKOO_MAX_KICKS;

	if (copy_to_user(uinfo, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

static long cfilter_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case CFILTER_IOC_ADD:
		return cfilter_ioc_add(argp);
	case CFILTER_IOC_DEL:
		return cfilter_ioc_del(argp);
	case CFILTER_IOC_TEST:
		return cfilter_ioc_test(argp);
	case CFILTER_IOC_CLEAR:
		return cfilter_ioc_clear();
	case CFILTER_IOC_INFO:
		return cfilter_ioc_info(argp);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations cfilter_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= cfilter_ioctl,
	/* Every argument has the same layout for 32-bit callers. */
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice cfilter_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "cfilter",
	.fops	= &cfilter_fops,
	.mode	= 0600,
};

int cfilter_dev_register(void)
{
	return misc_register(&cfilter_misc);
}

void cfilter_dev_unregister(void)
{
	misc_deregister(&cfilter_misc);
}
