// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/cfilter: the administrative interface to the filters.
 *
 * Anyone who can open the device may TEST and LIST keys and read INFO; ADD,
 * DEL, CLEAR and BATCH ADD or DEL also need CAP_NET_ADMIN, so the device
 * mode can be widened for monitoring without handing out control of the
 * filter.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/capability.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/math64.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "cfilter.h"
#include "cuckoo.h"

/*
 * Keys per step of BATCH and LIST: each step copies this many keys in one
 * go and holds the writer lock for no more than this many operations, so
 * that other writers and the scheduler get their turn between steps. The
 * buffers of a step stay under 16 KiB.
 */
#define CFILTER_CHUNK		256
#define CFILTER_LIST_CHUNK	128

/* A key's family and packed form, or -EINVAL if the key is malformed. */
static int cfilter_pack(const struct cfilter_key *key,
			struct cfilter_family **fp, u8 *packed)
{
	struct cfilter_family *f = cfilter_family(key->type);

	if (!f)
		return -EINVAL;
	*fp = f;
	return f->pack(key, packed);
}

/* Copies the argument of ADD, DEL or TEST, validates and packs its key. */
static int cfilter_get_key_req(const void __user *argp,
			       struct cfilter_family **fp, u8 *packed)
{
	struct cfilter_key_req req;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	if (req.flags || req.pad)
		return -EINVAL;
	return cfilter_pack(&req.key, fp, packed);
}

/*
 * The filter writers, keeping cfilter_nkeys[] in step with the filters; the
 * caller holds cfilter_lock. A count that lags its filter for a moment is
 * harmless: a lookup racing a write may see either state anyway.
 */
static int cfilter_insert(struct cfilter_family *f, const u8 *packed)
{
	int err = cuckoo_insert(f->filter, packed);

	if (!err)
		cfilter_family_nkeys_set(f, cfilter_family_nkeys(f) + 1);
	return err;
}

static int cfilter_delete(struct cfilter_family *f, const u8 *packed)
{
	int err = cuckoo_delete(f->filter, packed);

	if (!err)
		cfilter_family_nkeys_set(f, cfilter_family_nkeys(f) - 1);
	return err;
}

/* ADD and DEL: one key through @write under the writer lock. */
static long cfilter_ioc_write(const void __user *argp,
			      int (*write)(struct cfilter_family *f,
					   const u8 *packed))
{
	u8 packed[CUCKOO_KEY_MAX];
	struct cfilter_family *f;
	int err;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	err = cfilter_get_key_req(argp, &f, packed);
	if (err)
		return err;

	mutex_lock(&cfilter_lock);
	err = write(f, packed);
	mutex_unlock(&cfilter_lock);
	return err;
}

/* Lock-free, like the XDP path: a lookup never waits for a writer. */
static int cfilter_contains(const struct cfilter_family *f, const u8 *packed)
{
	bool found;

	rcu_read_lock();
	found = cuckoo_contains(f->filter, packed);
	rcu_read_unlock();
	return found ? 0 : -ENOENT;
}

static long cfilter_ioc_test(const void __user *argp)
{
	u8 packed[CUCKOO_KEY_MAX];
	struct cfilter_family *f;
	int err;

	err = cfilter_get_key_req(argp, &f, packed);
	if (err)
		return err;
	return cfilter_contains(f, packed);
}

/*
 * Clears every family. cuckoo_clear() changes nothing when it fails, but
 * families cleared before a failing one stay cleared.
 */
static long cfilter_ioc_clear(void)
{
	struct cfilter_family *f;
	int err = 0;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;

	mutex_lock(&cfilter_lock);
	for (f = cfilter_family_first(); f; f = cfilter_family_next(f)) {
		err = cuckoo_clear(f->filter);
		if (err) {
			pr_warn_ratelimited("no memory to clear the %s filter: its keys stay\n",
					    f->name);
			break;
		}
		cfilter_family_nkeys_set(f, 0);
	}
	mutex_unlock(&cfilter_lock);
	return err;
}

/* The sums over every family, under the lock: a snapshot of one moment. */
static void cfilter_fill_info(struct cfilter_info *info)
{
	struct cfilter_family *f;
	struct cuckoo_stats st;

	mutex_lock(&cfilter_lock);
	for (f = cfilter_family_first(); f; f = cfilter_family_next(f)) {
		cuckoo_get_stats(f->filter, &st);
		info->capacity += st.capacity;
		info->count += st.count;
		info->buckets += st.buckets;
		info->memory_bytes += st.memory_bytes;
		info->insert_failures += st.insert_failures;
		info->grows += st.grows;
		info->fp_bits = st.fp_bits;
	}
	mutex_unlock(&cfilter_lock);

	info->slots_per_bucket = CUCKOO_SLOTS;
	info->load_ppm = mul_u64_u64_div_u64(info->count, 1000000,
					     info->capacity);
	info->max_kicks = CUCKOO_MAX_KICKS;
	info->mode = cfilter_config.mode;
	info->max_capacity = cfilter_config.max_capacity;
}

/**
 * cfilter_ioc_info() - report the filters' geometry and occupancy
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

/* One BATCH step: its keys as copied, and their results. */
struct cfilter_chunk {
	struct cfilter_key	keys[CFILTER_CHUNK];
	s32			results[CFILTER_CHUNK];
};

/* Copies the keys of step @start (at most CFILTER_CHUNK); returns how many. */
static int cfilter_batch_read(const struct cfilter_batch *b, u32 start,
			      struct cfilter_chunk *c, u32 *n)
{
	const void __user *src = u64_to_user_ptr(b->keys);

	*n = min_t(u32, b->count - start, CFILTER_CHUNK);
	if (copy_from_user(c->keys, src + (u64)start * sizeof(c->keys[0]),
			   *n * sizeof(c->keys[0])))
		return -EFAULT;
	return 0;
}

/* Between steps: let others run, and stop if the caller is being killed. */
static int cfilter_batch_yield(void)
{
	cond_resched();
	return fatal_signal_pending(current) ? -EINTR : 0;
}

/*
 * Pass 1 of BATCH: nothing is applied unless every key is well formed (else
 * -EINVAL with b->first_error naming the first bad one) and the results
 * array is writable (zeroing it proves that before anything changes).
 */
static int cfilter_batch_check(struct cfilter_batch *b, struct cfilter_chunk *c)
{
	s32 __user *results = u64_to_user_ptr(b->results);
	u8 packed[CUCKOO_KEY_MAX];
	struct cfilter_family *f;
	u32 start, n, i;
	int err;

	for (start = 0; start < b->count; start += n) {
		err = cfilter_batch_read(b, start, c, &n);
		if (err)
			return err;
		for (i = 0; i < n; i++) {
			if (cfilter_pack(&c->keys[i], &f, packed)) {
				b->first_error = start + i;
				return -EINVAL;
			}
		}
		if (clear_user(results + start, n * sizeof(*results)))
			return -EFAULT;
		err = cfilter_batch_yield();
		if (err)
			return err;
	}
	return 0;
}

/* One key of pass 2; the caller holds cfilter_lock for ADD and DEL. */
static int cfilter_batch_one(u32 op, const struct cfilter_key *key)
{
	u8 packed[CUCKOO_KEY_MAX];
	struct cfilter_family *f;
	int err;

	/* Checked in pass 1, but the caller may have changed it since. */
	err = cfilter_pack(key, &f, packed);
	if (err)
		return err;
	switch (op) {
	case CFILTER_BATCH_ADD:
		return cfilter_insert(f, packed);
	case CFILTER_BATCH_DEL:
		return cfilter_delete(f, packed);
	default:
		return cfilter_contains(f, packed);
	}
}

/*
 * Applies step @start's @n keys (already in @c), the writer lock held
 * across the step for ADD and DEL; fills in their results.
 */
static int cfilter_batch_step(struct cfilter_batch *b, u32 start,
			      struct cfilter_chunk *c, u32 n)
{
	bool write = b->op != CFILTER_BATCH_TEST;
	u32 i;

	if (write && mutex_lock_killable(&cfilter_lock))
		return -EINTR;
	for (i = 0; i < n; i++) {
		c->results[i] = cfilter_batch_one(b->op, &c->keys[i]);
		if (c->results[i] && b->first_error == b->count)
			b->first_error = start + i;
	}
	if (write)
		mutex_unlock(&cfilter_lock);
	return 0;
}

/* Pass 2 of BATCH: apply, step by step, and report each key's result. */
static int cfilter_batch_apply(struct cfilter_batch *b, struct cfilter_chunk *c)
{
	s32 __user *results = u64_to_user_ptr(b->results);
	u32 n;
	int err;

	while (b->done < b->count) {
		err = cfilter_batch_read(b, b->done, c, &n);
		if (err)
			return err;
		err = cfilter_batch_step(b, b->done, c, n);
		if (err)
			return err;
		/* Applied: counted as done even if the results are lost. */
		b->done += n;
		if (copy_to_user(results + b->done - n, c->results,
				 n * sizeof(c->results[0])))
			return -EFAULT;
		err = cfilter_batch_yield();
		if (err)
			return err;
	}
	return 0;
}

static int cfilter_batch_args(const struct cfilter_batch *b)
{
	if (b->flags || b->pad || b->reserved[0] || b->reserved[1])
		return -EINVAL;
	switch (b->op) {
	case CFILTER_BATCH_ADD:
	case CFILTER_BATCH_DEL:
		return capable(CAP_NET_ADMIN) ? 0 : -EPERM;
	case CFILTER_BATCH_TEST:
		return 0;
	default:
		return -EINVAL;
	}
}

/**
 * cfilter_ioc_batch() - add, delete or test an array of keys
 * @ub: caller's struct cfilter_batch
 *
 * Pass 1 reads every key and checks it, pass 2 reads them again and applies
 * them in steps of CFILTER_CHUNK keys, so that any number of keys takes a
 * fixed amount of kernel memory and a million keys do not hold the writer
 * lock for seconds. Once the arguments are accepted, @ub's done and
 * first_error are written back whatever the outcome.
 *
 * Return: 0 once every key was processed (per-key results in the results
 * array); -EINVAL (bad arguments, or a malformed key: nothing applied),
 * -EPERM, -EFAULT, -ENOMEM, or -EINTR if the caller is being killed (done
 * says how far it got).
 */
static long cfilter_ioc_batch(struct cfilter_batch __user *ub)
{
	struct cfilter_chunk *c;
	struct cfilter_batch b;
	int err;

	if (copy_from_user(&b, ub, sizeof(b)))
		return -EFAULT;
	err = cfilter_batch_args(&b);
	if (err)
		return err;
	b.done = 0;
	b.first_error = b.count;
	if (!b.count)
		goto out;

	c = kmalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	err = cfilter_batch_check(&b, c);
	if (!err)
		err = cfilter_batch_apply(&b, c);
	kfree(c);
out:
	if (copy_to_user(ub, &b, sizeof(b)))
		return -EFAULT;
	return err;
}

static int cfilter_list_args(const struct cfilter_list *l)
{
	if (l->flags || l->pad || l->reserved[0] || l->reserved[1] || !l->max)
		return -EINVAL;
	if (cfilter_config.mode != CFILTER_MODE_EXACT)
		return -EOPNOTSUPP;
	return 0;
}

/*
 * A LIST cursor, opaque to the caller: the key type being listed, the
 * number of times that type's table had grown (its low bits), and the
 * core's position in that table. Cursor 0 starts at the first type; a type
 * past the last one is the end.
 *
 * Positions are slots of the current table, so a growth between two calls
 * moves keys to other positions: continuing from the old position could
 * skip keys that were present all along. The grow count tells; the type is
 * then listed again from its start, so every key present throughout is
 * reported at least once (some twice). The core's tables have fewer than
 * 2^40 slots (no array of theirs exceeds 1 GiB).
 */
#define CFILTER_CURSOR_TYPE	GENMASK_ULL(63, 56)
#define CFILTER_CURSOR_GEN	GENMASK_ULL(55, 40)
#define CFILTER_CURSOR_POS	GENMASK_ULL(39, 0)

struct cfilter_cursor {
	u64	type;
	u64	gen;
	u64	pos;
};

/* One LIST step: packed keys from the core, unpacked for the caller. */
struct cfilter_list_buf {
	u8			packed[CFILTER_LIST_CHUNK * CUCKOO_KEY_MAX];
	struct cfilter_key	keys[CFILTER_LIST_CHUNK];
};

/*
 * Copies up to @room keys of family @f from cursor @cur on to @dst,
 * advancing @cur; returns how many (0 at the family's end) or a negative
 * errno.
 */
static long cfilter_list_step(struct cfilter_family *f,
			      struct cfilter_cursor *cur, u32 room,
			      struct cfilter_list_buf *buf,
			      struct cfilter_key __user *dst)
{
	struct cuckoo_stats st;
	long n, i;
	u64 gen;

	mutex_lock(&cfilter_lock);
	cuckoo_get_stats(f->filter, &st);
	gen = st.grows & FIELD_MAX(CFILTER_CURSOR_GEN);
	if (cur->gen != gen) {
		cur->gen = gen;
		cur->pos = 0;
	}
	n = cuckoo_list(f->filter, &cur->pos, buf->packed,
			min_t(u32, room, CFILTER_LIST_CHUNK));
	mutex_unlock(&cfilter_lock);
	if (n <= 0)
		return n;
	for (i = 0; i < n; i++)
		f->unpack(buf->packed + i * f->key_len, &buf->keys[i]);
	if (copy_to_user(dst, buf->keys, n * sizeof(buf->keys[0])))
		return -EFAULT;
	return n;
}

/* Fills @l->keys from @l->cursor on; updates @l->count and @l->cursor. */
static long cfilter_list_fill(struct cfilter_list *l,
			      struct cfilter_list_buf *buf)
{
	struct cfilter_key __user *dst = u64_to_user_ptr(l->keys);
	struct cfilter_cursor cur = {
		.type = FIELD_GET(CFILTER_CURSOR_TYPE, l->cursor),
		.gen = FIELD_GET(CFILTER_CURSOR_GEN, l->cursor),
		.pos = FIELD_GET(CFILTER_CURSOR_POS, l->cursor),
	};
	struct cfilter_family *f = NULL;
	long n;

	if (cur.type > __CFILTER_KEY_MAX)
		return -EINVAL;
	if (cur.type < __CFILTER_KEY_MAX)
		f = cfilter_family_from(&cfilter_families[cur.type]);
	l->count = 0;
	while (f && l->count < l->max) {
		if (f - cfilter_families != cur.type) {
			cur.type = f - cfilter_families;
			cur.pos = 0;
		}
		n = cfilter_list_step(f, &cur, l->max - l->count, buf,
				      dst + l->count);
		if (n < 0)
			return n;
		l->count += n;
		if (!n)
			f = cfilter_family_next(f);
		cond_resched();
	}
	if (!f)
		cur = (struct cfilter_cursor){ .type = __CFILTER_KEY_MAX };
	l->cursor = FIELD_PREP(CFILTER_CURSOR_TYPE, cur.type) |
		    FIELD_PREP(CFILTER_CURSOR_GEN, cur.gen) |
		    FIELD_PREP(CFILTER_CURSOR_POS, cur.pos);
	return 0;
}

/**
 * cfilter_ioc_list() - read the stored keys, a part per call (exact mode)
 * @ul: caller's struct cfilter_list
 *
 * Return: 0 (count 0: the end), -EINVAL (nonzero flags, pad or reserved,
 * max 0, a cursor naming no key type), -EOPNOTSUPP in compact mode,
 * -EFAULT, -ENOMEM.
 */
static long cfilter_ioc_list(struct cfilter_list __user *ul)
{
	struct cfilter_list_buf *buf;
	struct cfilter_list l;
	long err;

	if (copy_from_user(&l, ul, sizeof(l)))
		return -EFAULT;
	err = cfilter_list_args(&l);
	if (err)
		return err;

	buf = kmalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	err = cfilter_list_fill(&l, buf);
	kfree(buf);
	if (err)
		return err;
	if (copy_to_user(ul, &l, sizeof(l)))
		return -EFAULT;
	return 0;
}

static long cfilter_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case CFILTER_IOC_ADD:
		return cfilter_ioc_write(argp, cfilter_insert);
	case CFILTER_IOC_DEL:
		return cfilter_ioc_write(argp, cfilter_delete);
	case CFILTER_IOC_TEST:
		return cfilter_ioc_test(argp);
	case CFILTER_IOC_CLEAR:
		return cfilter_ioc_clear();
	case CFILTER_IOC_INFO:
		return cfilter_ioc_info(argp);
	case CFILTER_IOC_BATCH:
		return cfilter_ioc_batch(argp);
	case CFILTER_IOC_LIST:
		return cfilter_ioc_list(argp);
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
