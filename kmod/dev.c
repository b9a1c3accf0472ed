// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/cfilter: the administrative interface to the filters.
 *
 * Anyone who can open the device may TEST, LIST and MATCH and read INFO
 * and TYPE_INFO. ADD, DEL, CLEAR, BATCH ADD or DEL, STAGE, COMMIT, ABORT
 * and RESTORE also need the device opened for writing (else EBADF) and
 * CAP_NET_ADMIN; DUMP, which hands out hash seeds, needs CAP_NET_ADMIN. So
 * the device mode can be widened for monitoring without handing out
 * control of the filter, or the means to attack its hashing.
 *
 * Each open file may hold one staged set (file->private_data, under
 * cfilter_lock): a whole set of tables that CFILTER_F_STAGED requests fill
 * and COMMIT makes live at once. A staged set costs as much memory as a
 * live one; only CAP_NET_ADMIN may create one, one per open file, and it
 * is freed on ABORT, COMMIT (the old live set then) or close, so it cannot
 * outlive its owner's file.
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
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "cfilter.h"
#include "cuckoo.h"
#include "prefix.h"
#include "set.h"
#include "verdict.h"

/*
 * Keys per step of BATCH and LIST: each step copies this many keys in one
 * go and holds the writer lock for no more than this many operations, so
 * that other writers and the scheduler get their turn between steps. The
 * buffers of a step stay under 16 KiB.
 */
#define CFILTER_CHUNK		256
#define CFILTER_LIST_CHUNK	128

/* Validates and packs @key, or returns -EINVAL if it is malformed. */
static int cfilter_pack(const struct cfilter_key *key, struct cfilter_packed *k)
{
	k->f = cfilter_ktype(key->type);
	if (!k->f)
		return -EINVAL;
	return cfilter_key_pack(k->f, key, k->bytes, &k->len);
}

/*
 * The set a request names: the live one, or with CFILTER_F_STAGED this
 * file's staged one (NULL if there is none). Caller holds cfilter_lock.
 */
static struct cfilter_set *cfilter_target(struct file *file, u32 flags)
{
	lockdep_assert_held(&cfilter_lock);
	if (flags & CFILTER_F_STAGED)
		return file->private_data;
	return cfilter_live_locked();
}

/*
 * Changing the filter needs a descriptor opened for writing, so that one
 * opened read-only (a monitoring group's) cannot, and CAP_NET_ADMIN.
 */
static int cfilter_may_write(struct file *file)
{
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	return 0;
}

/*
 * Checks what ADD, DEL and TEST (@cmd) share: flags, timeout and source.
 * CFILTER_F_ALL_SOURCES names no source; only ADD has a timeout.
 */
static int cfilter_req_args(unsigned int cmd, u32 flags, u32 timeout,
			    const char *source)
{
	u32 known = CFILTER_F_STAGED;

	if (cmd != CFILTER_IOC_ADD)
		known |= CFILTER_F_ALL_SOURCES;
	if ((flags & ~known) || (cmd != CFILTER_IOC_ADD && timeout) ||
	    timeout > CFILTER_TIMEOUT_MAX ||
	    ((flags & CFILTER_F_ALL_SOURCES) && source[0]))
		return -EINVAL;
	return cfilter_source_check(source);
}

/* Copies the argument of ADD, DEL or TEST, validates and packs its key. */
static int cfilter_get_key_req(unsigned int cmd, const void __user *argp,
			       struct cfilter_key_req *req,
			       struct cfilter_packed *k)
{
	int err;

	if (copy_from_user(req, argp, sizeof(*req)))
		return -EFAULT;
	err = cfilter_req_args(cmd, req->flags, req->timeout, req->source);
	return err ? err : cfilter_pack(&req->key, k);
}

/* The source a request names: NULL for every source. */
static const char *cfilter_req_source(u32 flags, const char *source)
{
	return flags & CFILTER_F_ALL_SOURCES ? NULL : source;
}

/* ADD and DEL: one key under the writer lock. */
static long cfilter_ioc_write(struct file *file, unsigned int cmd,
			      const void __user *argp)
{
	struct cfilter_key_req req;
	struct cfilter_packed k;
	struct cfilter_set *s;
	int err;

	err = cfilter_may_write(file);
	if (err)
		return err;
	err = cfilter_get_key_req(cmd, argp, &req, &k);
	if (err)
		return err;

	mutex_lock(&cfilter_lock);
	s = cfilter_target(file, req.flags);
	if (!s)
		err = -EINVAL;
	else if (cmd == CFILTER_IOC_ADD)
		err = cfilter_hold_add(s, &k, req.source,
				       cfilter_deadline(req.timeout));
	else
		err = cfilter_hold_del(s, &k, cfilter_req_source(req.flags,
								 req.source));
	mutex_unlock(&cfilter_lock);
	return err;
}

/* Inside an RCU read-side section (and cfilter_lock for a staged set). */
static int cfilter_contains(const struct cfilter_set *s,
			    const struct cfilter_packed *k)
{
	return cfilter_set_contains(s, k->f, k->bytes, k->len) ? 0 : -ENOENT;
}

/*
 * TEST of the live set by any source is lock-free, like the XDP path: a
 * lookup never waits for a writer. Who holds an entry is the writers'
 * bookkeeping, read under the lock; so is a staged set, which ABORT from
 * another thread sharing the file may free.
 */
static long cfilter_ioc_test(struct file *file, const void __user *argp)
{
	struct cfilter_key_req req;
	struct cfilter_packed k;
	struct cfilter_set *s;
	int err;

	err = cfilter_get_key_req(CFILTER_IOC_TEST, argp, &req, &k);
	if (err)
		return err;
	if (req.flags == CFILTER_F_ALL_SOURCES) {
		rcu_read_lock();
		err = cfilter_contains(rcu_dereference(cfilter_live), &k);
		rcu_read_unlock();
		return err;
	}
	mutex_lock(&cfilter_lock);
	s = cfilter_target(file, req.flags);
	if (!s) {
		err = -EINVAL;
	} else if (req.flags & CFILTER_F_ALL_SOURCES) {
		rcu_read_lock();
		err = cfilter_contains(s, &k);
		rcu_read_unlock();
	} else {
		err = cfilter_hold_test(s, &k, req.source);
	}
	mutex_unlock(&cfilter_lock);
	return err;
}

/*
 * Replaces the live set with an empty one, in one swap: a packet sees every
 * key or none, and nothing changes if there is no memory for the new set.
 * The memory bound never refuses the empty set: clearing is how an
 * operator gets back under it.
 */
static long cfilter_ioc_clear(struct file *file)
{
	static DEFINE_MUTEX(clearing);
	struct cfilter_set *s;
	int err;

	err = cfilter_may_write(file);
	if (err)
		return err;
	mutex_lock(&clearing);
	cfilter_mem_exempt(true);
	s = cfilter_set_create();
	cfilter_mem_exempt(false);
	mutex_unlock(&clearing);
	if (IS_ERR(s))
		return PTR_ERR(s);
	cfilter_set_publish(s);
	return 0;
}

/* The sums over every type of the live set, under the lock: one moment. */
static void cfilter_fill_info(struct cfilter_info *info)
{
	const struct cfilter_ktype *f;
	struct cfilter_type_stats st;
	struct cfilter_set *s;

	mutex_lock(&cfilter_lock);
	s = cfilter_live_locked();
	info->grows = cfilter_set_grows();
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
	mutex_unlock(&cfilter_lock);

	info->fp_bits = cfilter_config.fp_bits;
	info->slots_per_bucket = CUCKOO_SLOTS;
	info->load_ppm = mul_u64_u64_div_u64(info->count, 1000000,
					     info->capacity);
	info->max_kicks = CUCKOO_MAX_KICKS;
	info->mode = cfilter_config.mode;
	info->max_capacity = cfilter_config.max_capacity;
	cfilter_mem(&info->mem_used, &info->mem_limit);
}

/**
 * cfilter_ioc_info() - report the live set's geometry and occupancy
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

/**
 * cfilter_ioc_type_info() - report one key type's tables
 * @file: the open device (its staged set, with CFILTER_F_STAGED)
 * @uti:  caller's struct cfilter_type_info
 *
 * Return: 0; -EINVAL (a type the module lacks, nonzero pad or reserved,
 * unknown flags, CFILTER_F_STAGED with nothing staged); -EFAULT.
 */
static long cfilter_ioc_type_info(struct file *file,
				  struct cfilter_type_info __user *uti)
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

	mutex_lock(&cfilter_lock);
	s = cfilter_target(file, ti.flags);
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

/**
 * cfilter_ioc_match() - the kfunc's verdict for a packet
 * @umr: caller's struct cfilter_match_req
 *
 * Under the lock, so that the source the verdict names keeps its name; it
 * counts no drop.
 *
 * Return: 0 with @umr->verdict and @umr->source set; -EINVAL (nonzero
 * flags or reserved, a packet the kfunc refuses); -EFAULT; -EINTR.
 */
static long cfilter_ioc_match(struct cfilter_match_req __user *umr)
{
	struct cfilter_match_req mr;
	struct cfilter_set *s;
	int verdict;

	if (copy_from_user(&mr, umr, sizeof(mr)))
		return -EFAULT;
	if (mr.flags || mr.reserved[0] || mr.reserved[1])
		return -EINVAL;
	if (mutex_lock_interruptible(&cfilter_lock))
		return -EINTR;
	s = cfilter_live_locked();
	rcu_read_lock();
	verdict = cfilter_verdict(s, &mr.pkt);
	rcu_read_unlock();
	memset(mr.source, 0, sizeof(mr.source));
	if (verdict > 0)
		strscpy(mr.source,
			s->holds.names[CFILTER_VERDICT_SOURCE(verdict)],
			sizeof(mr.source));
	mutex_unlock(&cfilter_lock);
	if (verdict < 0)
		return verdict;
	mr.verdict = verdict;
	if (copy_to_user(umr, &mr, sizeof(mr)))
		return -EFAULT;
	return 0;
}

/* One BATCH step: its keys and timeouts as copied, and their results. */
struct cfilter_chunk {
	struct cfilter_key	keys[CFILTER_CHUNK];
	u32			timeouts[CFILTER_CHUNK];
	s32			results[CFILTER_CHUNK];
};

/*
 * Copies the keys and timeouts of step @start (at most CFILTER_CHUNK);
 * returns how many.
 */
static int cfilter_batch_read(const struct cfilter_batch *b, u32 start,
			      struct cfilter_chunk *c, u32 *n)
{
	const void __user *src = u64_to_user_ptr(b->keys);
	const u32 __user *timeouts = u64_to_user_ptr(b->timeouts);

	*n = min_t(u32, b->count - start, CFILTER_CHUNK);
	if (copy_from_user(c->keys, src + (u64)start * sizeof(c->keys[0]),
			   *n * sizeof(c->keys[0])))
		return -EFAULT;
	if (!b->timeouts)
		memset(c->timeouts, 0, *n * sizeof(c->timeouts[0]));
	else if (copy_from_user(c->timeouts, timeouts + start,
				*n * sizeof(c->timeouts[0])))
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
	struct cfilter_packed k;
	u32 start, n, i;
	int err;

	for (start = 0; start < b->count; start += n) {
		err = cfilter_batch_read(b, start, c, &n);
		if (err)
			return err;
		for (i = 0; i < n; i++) {
			if (cfilter_pack(&c->keys[i], &k) ||
			    c->timeouts[i] > CFILTER_TIMEOUT_MAX) {
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

/* One key of pass 2 into set @s; see cfilter_batch_step() for locking. */
static int cfilter_batch_one(struct cfilter_set *s,
			     const struct cfilter_batch *b,
			     const struct cfilter_key *key, u32 timeout)
{
	const char *source = cfilter_req_source(b->flags, b->source);
	struct cfilter_packed k;
	int err;

	/* Checked in pass 1, but the caller may have changed it since. */
	err = cfilter_pack(key, &k);
	if (err || timeout > CFILTER_TIMEOUT_MAX)
		return -EINVAL;
	switch (b->op) {
	case CFILTER_BATCH_ADD:
		return cfilter_hold_add(s, &k, source,
					cfilter_deadline(timeout));
	case CFILTER_BATCH_DEL:
		return cfilter_hold_del(s, &k, source);
	default:
		if (source)
			return cfilter_hold_test(s, &k, source);
		rcu_read_lock();
		err = cfilter_contains(s, &k);
		rcu_read_unlock();
		return err;
	}
}

/*
 * Applies step @start's @n keys (already in @c) to the set @b names;
 * fills in their results. The writer lock is held across the step for ADD
 * and DEL, for a TEST of one source's holdings and for anything on a
 * staged set (which ABORT may free); a TEST of the live set by any source
 * is lock-free, inside one RCU read-side section. The set
 * is looked up anew each step: a COMMIT between steps sends the rest of a
 * live batch to the new live set, and -EINVAL ends a staged batch whose set
 * was committed or aborted meanwhile.
 */
static int cfilter_batch_step(struct file *file, struct cfilter_batch *b,
			      u32 start, struct cfilter_chunk *c, u32 n)
{
	bool lock = b->op != CFILTER_BATCH_TEST ||
		    b->flags != CFILTER_F_ALL_SOURCES;
	struct cfilter_set *s;
	u32 i;

	if (lock) {
		if (mutex_lock_killable(&cfilter_lock))
			return -EINTR;
		s = cfilter_target(file, b->flags);
	} else {
		rcu_read_lock();
		s = rcu_dereference(cfilter_live);
	}
	for (i = 0; s && i < n; i++) {
		c->results[i] = cfilter_batch_one(s, b, &c->keys[i],
						  c->timeouts[i]);
		if (c->results[i] && b->first_error == b->count)
			b->first_error = start + i;
	}
	if (lock)
		mutex_unlock(&cfilter_lock);
	else
		rcu_read_unlock();
	return s ? 0 : -EINVAL;
}

/* Pass 2 of BATCH: apply, step by step, and report each key's result. */
static int cfilter_batch_apply(struct file *file, struct cfilter_batch *b,
			       struct cfilter_chunk *c)
{
	s32 __user *results = u64_to_user_ptr(b->results);
	u32 n;
	int err;

	while (b->done < b->count) {
		err = cfilter_batch_read(b, b->done, c, &n);
		if (err)
			return err;
		err = cfilter_batch_step(file, b, b->done, c, n);
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

/* Is this file's staged set there? (It may go before the call uses it.) */
static bool cfilter_has_staged(struct file *file)
{
	bool staged;

	mutex_lock(&cfilter_lock);
	staged = file->private_data;
	mutex_unlock(&cfilter_lock);
	return staged;
}

static int cfilter_batch_args(struct file *file, const struct cfilter_batch *b)
{
	int err;

	unsigned int cmd = b->op == CFILTER_BATCH_ADD ? CFILTER_IOC_ADD :
			   CFILTER_IOC_DEL;

	if (b->pad || b->reserved[0] || b->reserved[1] ||
	    (b->timeouts && b->op != CFILTER_BATCH_ADD) ||
	    cfilter_req_args(cmd, b->flags, 0, b->source))
		return -EINVAL;
	switch (b->op) {
	case CFILTER_BATCH_ADD:
	case CFILTER_BATCH_DEL:
		err = cfilter_may_write(file);
		if (err)
			return err;
		break;
	case CFILTER_BATCH_TEST:
		break;
	default:
		return -EINVAL;
	}
	if ((b->flags & CFILTER_F_STAGED) && !cfilter_has_staged(file))
		return -EINVAL;
	return 0;
}

/**
 * cfilter_ioc_batch() - add, delete or test an array of keys
 * @file: the open device (its staged set, with CFILTER_F_STAGED)
 * @ub:   caller's struct cfilter_batch
 *
 * Pass 1 reads every key and checks it, pass 2 reads them again and applies
 * them in steps of CFILTER_CHUNK keys, so that any number of keys takes a
 * fixed amount of kernel memory and a million keys do not hold the writer
 * lock for seconds. Once the arguments are accepted, @ub's done and
 * first_error are written back whatever the outcome.
 *
 * Return: 0 once every key was processed (per-key results in the results
 * array); -EINVAL (bad arguments, CFILTER_F_STAGED with nothing staged, or
 * a malformed key: nothing applied; or the staged set went mid-call),
 * -EPERM, -EFAULT, -ENOMEM, or -EINTR if the caller is being killed (done
 * says how far it got).
 */
static long cfilter_ioc_batch(struct file *file, struct cfilter_batch __user *ub)
{
	struct cfilter_chunk *c;
	struct cfilter_batch b;
	int err;

	if (copy_from_user(&b, ub, sizeof(b)))
		return -EFAULT;
	err = cfilter_batch_args(file, &b);
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
		err = cfilter_batch_apply(file, &b, c);
	kfree(c);
out:
	if (copy_to_user(ub, &b, sizeof(b)))
		return -EFAULT;
	return err;
}

static int cfilter_list_args(const struct cfilter_list *l)
{
	if ((l->flags & ~CFILTER_F_ALL_SOURCES) || l->pad || l->reserved ||
	    !l->max)
		return -EINVAL;
	return cfilter_req_args(CFILTER_IOC_TEST, l->flags, 0, l->source);
}

/*
 * A LIST cursor, opaque to the caller: the key type being listed and the
 * position in its tables, with the generation of their layout beside it
 * (struct cfilter_list's @gen). Cursor 0 starts at the first type; a type
 * past the last one is the end.
 *
 * Positions are slots, so a key moved between buckets, a growth, or a
 * commit or clear that put another set in place can carry a key from a
 * slot not yet listed to one already listed. The
 * generation says whether any of that happened: it is the set's id (top
 * 24 bits) and the type's layout generation (low 40 bits, which a listing
 * would need 2^40 moves between two of its calls to wrap), checked at
 * every step under the writer lock. A changed one fails the call with
 * ESTALE, and the caller starts over: a listing that ends reports every
 * key present throughout exactly once.
 */
#define CFILTER_CURSOR_TYPE	GENMASK_ULL(63, 56)
#define CFILTER_CURSOR_POS	GENMASK_ULL(55, 0)
#define CFILTER_GEN_SET		GENMASK_ULL(63, 40)
#define CFILTER_GEN_LAYOUT	GENMASK_ULL(39, 0)

struct cfilter_cursor {
	u64	type;
	u64	gen;
	u64	pos;
};

/*
 * One LIST step: packed prefixes from a compact prefix set (its address
 * and one byte of length), and the entries for the caller.
 */
struct cfilter_list_buf {
	u8			packed[CFILTER_LIST_CHUNK * CUCKOO_KEY_MAX];
	struct cfilter_entry	entries[CFILTER_LIST_CHUNK];
};

/*
 * Compact mode: the prefixes of type @f, from @cur->pos on, as held by
 * "default"; flow tables hold fingerprints only and list nothing.
 */
static long cfilter_list_compact(struct cfilter_set *s,
				 const struct cfilter_ktype *f,
				 struct cfilter_cursor *cur, u32 max,
				 struct cfilter_list_buf *buf)
{
	u32 step = cfilter_set_list_step(f);
	long n, i;

	n = cfilter_set_list(s, f, &cur->pos, buf->packed, max);
	for (i = 0; i < n; i++) {
		const u8 *in = buf->packed + i * step;

		memset(&buf->entries[i], 0, sizeof(buf->entries[i]));
		cfilter_key_unpack(f, in, in[f->addr_len], &buf->entries[i].key);
		strscpy(buf->entries[i].source, "default", CFILTER_SOURCE_LEN);
	}
	return n;
}

/*
 * Copies up to @max entries of type @f of set @s from @cur->pos on into
 * @buf->entries: holdings of @source (NULL: all) in exact mode, prefixes
 * in compact mode. Returns how many (0 at the type's end), or -ESTALE if
 * the set was replaced or the type's tables laid out anew since the cursor
 * was made, or -ENOENT for a source the set lacks. Caller holds
 * cfilter_lock.
 */
static long cfilter_list_type(struct cfilter_set *s,
			      const struct cfilter_ktype *f,
			      const char *source, struct cfilter_cursor *cur,
			      u32 max, struct cfilter_list_buf *buf)
{
	u64 layout = FIELD_GET(CFILTER_GEN_LAYOUT, cur->gen);
	u64 set = FIELD_PREP(CFILTER_GEN_SET, s->id);
	long n;

	BUILD_BUG_ON(PREFIX_LIST_PREFIXES * 2 - 1 > FIELD_MAX(CFILTER_CURSOR_POS));
	/* Position 0: nothing of this type listed yet, any layout will do. */
	if (cur->pos && (cur->gen & CFILTER_GEN_SET) != set)
		return -ESTALE;
	if (cfilter_config.mode == CFILTER_MODE_EXACT) {
		n = cfilter_hold_list(s, f, source, &cur->pos, &layout,
				      buf->entries, max);
	} else {
		u64 now = cfilter_set_list_gen(s, f) &
			  FIELD_MAX(CFILTER_GEN_LAYOUT);

		if (!cur->pos)
			layout = now;
		else if (layout != now)
			return -ESTALE;
		if (source && source[0] && strcmp(source, "default"))
			return -ENOENT;
		n = cfilter_list_compact(s, f, cur, max, buf);
	}
	cur->gen = set | FIELD_PREP(CFILTER_GEN_LAYOUT, layout);
	return n;
}

/*
 * Copies up to @room entries of type @f from cursor @cur on to @dst,
 * advancing @cur; returns how many (0 at the type's end) or a negative
 * errno.
 */
static long cfilter_list_step(const struct cfilter_ktype *f,
			      const char *source, struct cfilter_cursor *cur,
			      u32 room, struct cfilter_list_buf *buf,
			      struct cfilter_entry __user *dst)
{
	long n;

	mutex_lock(&cfilter_lock);
	n = cfilter_list_type(cfilter_live_locked(), f, source, cur,
			      min_t(u32, room, CFILTER_LIST_CHUNK), buf);
	mutex_unlock(&cfilter_lock);
	if (n <= 0)
		return n;
	if (copy_to_user(dst, buf->entries, n * sizeof(buf->entries[0])))
		return -EFAULT;
	return n;
}

/* Fills @l->entries from @l->cursor on; updates @l->count and @l->cursor. */
static long cfilter_list_fill(struct cfilter_list *l,
			      struct cfilter_list_buf *buf)
{
	struct cfilter_entry __user *dst = u64_to_user_ptr(l->entries);
	const char *source = cfilter_req_source(l->flags, l->source);
	struct cfilter_cursor cur = {
		.type = FIELD_GET(CFILTER_CURSOR_TYPE, l->cursor),
		.gen = l->gen,
		.pos = FIELD_GET(CFILTER_CURSOR_POS, l->cursor),
	};
	const struct cfilter_ktype *f = NULL;
	long n;

	if (cur.type > __CFILTER_KEY_MAX)
		return -EINVAL;
	if (cur.type < __CFILTER_KEY_MAX)
		f = cfilter_ktype_from(&cfilter_ktypes[cur.type]);
	l->count = 0;
	while (f && l->count < l->max) {
		if (cfilter_ktype_type(f) != cur.type) {
			cur.type = cfilter_ktype_type(f);
			cur.pos = 0;
		}
		n = cfilter_list_step(f, source, &cur, l->max - l->count, buf,
				      dst + l->count);
		if (n < 0)
			return n;
		l->count += n;
		if (!n)
			f = cfilter_ktype_next(f);
		cond_resched();
	}
	if (!f)
		cur = (struct cfilter_cursor){ .type = __CFILTER_KEY_MAX };
	l->cursor = FIELD_PREP(CFILTER_CURSOR_TYPE, cur.type) |
		    FIELD_PREP(CFILTER_CURSOR_POS, cur.pos);
	l->gen = cur.gen;
	return 0;
}

/**
 * cfilter_ioc_list() - read the live set's entries, a part per call
 * @ul: caller's struct cfilter_list
 *
 * Exact mode lists holdings, of one source or all; compact mode only
 * prefixes (its address and flow tables hold fingerprints: see DUMP). A
 * listing that reaches its end reported every holding present throughout
 * exactly once.
 *
 * Return: 0 (count 0: the end), -ESTALE (the tables were laid out anew
 * since the previous call: start again from cursor 0), -ENOENT (no such
 * source), -EINVAL (unknown flags, nonzero pad or reserved, max 0, a bad
 * source name, a cursor naming no key type), -EFAULT, -ENOMEM, -EINTR.
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

/* STAGE: an empty set for this file. */
static long cfilter_ioc_stage(struct file *file)
{
	struct cfilter_set *s;
	int err;

	err = cfilter_may_write(file);
	if (err)
		return err;
	/* Checked first so that a refused STAGE allocates nothing. */
	if (cfilter_has_staged(file))
		return -EBUSY;
	s = cfilter_set_create();
	if (IS_ERR(s))
		return PTR_ERR(s);
	mutex_lock(&cfilter_lock);
	if (file->private_data) {
		mutex_unlock(&cfilter_lock);
		cfilter_set_destroy(s);
		return -EBUSY;
	}
	file->private_data = s;
	cfilter_hold_stage(s);
	mutex_unlock(&cfilter_lock);
	return 0;
}

/*
 * Copies and checks the argument of FLUSH and STAGE_SOURCE, requests that
 * change the filter; @flags are those the request knows.
 */
static int cfilter_get_source_req(struct file *file,
				  const struct cfilter_source_req __user *ureq,
				  struct cfilter_source_req *req, u32 flags)
{
	int err = cfilter_may_write(file);

	if (err)
		return err;
	if (copy_from_user(req, ureq, sizeof(*req)))
		return -EFAULT;
	if ((req->flags & ~flags) || req->pad || req->reserved)
		return -EINVAL;
	return cfilter_source_check(req->source);
}

/*
 * STAGE_SOURCE: a copy of the live set without one source's holdings,
 * following the live set until COMMIT (see source.h).
 */
static long cfilter_ioc_stage_source(struct file *file,
				     const struct cfilter_source_req __user *ureq)
{
	struct cfilter_source_req req;
	struct cfilter_set *s;
	int err;

	err = cfilter_get_source_req(file, ureq, &req, 0);
	if (err)
		return err;
	if (mutex_lock_killable(&cfilter_lock))
		return -EINTR;
	if (file->private_data) {
		err = -EBUSY;
	} else {
		s = cfilter_hold_copy(req.source);
		if (IS_ERR(s))
			err = PTR_ERR(s);
		else
			file->private_data = s;
	}
	mutex_unlock(&cfilter_lock);
	return err;
}

/*
 * Takes this file's staged set off it (a copy stops following the live
 * set); NULL if there is none. Caller holds cfilter_lock.
 */
static struct cfilter_set *cfilter_unstage_locked(struct file *file)
{
	struct cfilter_set *s = file->private_data;

	file->private_data = NULL;
	cfilter_hold_unstage(s);
	return s;
}

/*
 * COMMIT: the staged set goes live in one swap; the old one is freed. A
 * copy goes live in the same hold of the lock it stops following the live
 * set in, so no change made meanwhile is lost.
 */
static long cfilter_ioc_commit(struct file *file)
{
	struct cfilter_set *s, *old;
	int err;

	err = cfilter_may_write(file);
	if (err)
		return err;
	mutex_lock(&cfilter_lock);
	s = file->private_data;
	file->private_data = NULL;
	old = s ? cfilter_set_swap(s) : ERR_PTR(-EINVAL);
	mutex_unlock(&cfilter_lock);
	if (IS_ERR(old)) {
		cfilter_set_destroy(s);
		return PTR_ERR(old);
	}
	cfilter_set_retire(old);
	return 0;
}

/* ABORT: the staged set, never seen by a reader, is freed at once. */
static long cfilter_ioc_abort(struct file *file)
{
	struct cfilter_set *s;
	int err;

	err = cfilter_may_write(file);
	if (err)
		return err;
	mutex_lock(&cfilter_lock);
	s = cfilter_unstage_locked(file);
	mutex_unlock(&cfilter_lock);
	if (!s)
		return -EINVAL;
	cfilter_set_destroy(s);
	return 0;
}

/* FLUSH: every holding of one source goes. */
static long cfilter_ioc_flush(struct file *file,
			      const struct cfilter_source_req __user *ureq)
{
	struct cfilter_source_req req;
	struct cfilter_set *s;
	int err;

	err = cfilter_get_source_req(file, ureq, &req, CFILTER_F_STAGED);
	if (err)
		return err;
	if (mutex_lock_killable(&cfilter_lock))
		return -EINTR;
	s = cfilter_target(file, req.flags);
	err = s ? cfilter_hold_flush(s, req.source) : -EINVAL;
	mutex_unlock(&cfilter_lock);
	return err;
}

/* SOURCES: the sources of the live or staged set. */
static long cfilter_ioc_sources(struct file *file,
				struct cfilter_sources __user *usrc)
{
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
	mutex_lock(&cfilter_lock);
	s = cfilter_target(file, flags);
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

/* DUMP and RESTORE: compact mode, a known type, zero pad and reserved. */
static int cfilter_table_args(const struct cfilter_table *t,
			      const struct cfilter_ktype **f)
{
	if (cfilter_config.mode != CFILTER_MODE_COMPACT)
		return -EOPNOTSUPP;
	*f = cfilter_ktype(t->type);
	if (!*f || t->flags || t->pad2 || memchr_inv(t->pad, 0, sizeof(t->pad)) ||
	    t->reserved[0] || t->reserved[1])
		return -EINVAL;
	return 0;
}

/* Bytes of a table DUMP copies per step: a multiple of any word size. */
#define CFILTER_DUMP_CHUNK	SZ_64K

/*
 * Copies type @f's live table to @t->data in CFILTER_DUMP_CHUNK steps
 * through @buf, all under the writer lock, so that the copy is one moment
 * of the table and takes no memory of the table's size. Sets @t's size
 * (and, if it fits, its geometry).
 */
static int cfilter_dump_copy(const struct cfilter_ktype *f,
			     struct cfilter_table *t, void *buf)
{
	void __user *dst = u64_to_user_ptr(t->data);
	struct cuckoo_raw r;
	struct cuckoo *c;
	u64 size, off, n;
	int err = 0;

	if (mutex_lock_killable(&cfilter_lock))
		return -EINTR;
	c = cfilter_set_table(cfilter_live_locked(), f);
	size = cuckoo_raw_bytes(c);
	if (t->size < size)
		err = -ENOSPC;
	for (off = 0; !err && off < size; off += n) {
		n = min_t(u64, size - off, CFILTER_DUMP_CHUNK);
		err = cuckoo_raw_read(c, &r, buf, off, n);
		if (!err && copy_to_user(dst + off, buf, n))
			err = -EFAULT;
		if (!err && fatal_signal_pending(current))
			err = -EINTR;
		cond_resched();
	}
	mutex_unlock(&cfilter_lock);
	t->size = size;
	if (!err) {
		t->fp_bits = r.fp_bits;
		t->seed = r.seed;
		t->buckets = r.buckets;
		t->count = r.count;
	}
	return err;
}

/**
 * cfilter_ioc_dump() - copy a type's live address or flow table out
 * @ut: caller's struct cfilter_table
 *
 * Needs CAP_NET_ADMIN: the table comes with its hash seed, which would let
 * a reader craft keys that collide.
 *
 * Return: 0; -ENOSPC with @ut->size set to the bytes needed (nothing else
 * written); -EPERM; -EOPNOTSUPP in exact mode; -EINVAL; -EFAULT; -ENOMEM;
 * -EINTR.
 */
static long cfilter_ioc_dump(struct cfilter_table __user *ut)
{
	const struct cfilter_ktype *f;
	struct cfilter_table t;
	void *buf;
	int err;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	if (copy_from_user(&t, ut, sizeof(t)))
		return -EFAULT;
	err = cfilter_table_args(&t, &f);
	if (err)
		return err;

	buf = kmalloc(CFILTER_DUMP_CHUNK, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	err = cfilter_dump_copy(f, &t, buf);
	kfree(buf);
	if (err && err != -ENOSPC)
		return err;
	if (copy_to_user(ut, &t, sizeof(t)))
		return -EFAULT;
	return err;
}

/**
 * cfilter_ioc_restore() - install a raw table into the staged set
 * @file: the open device, which must hold a staged set
 * @ut:   caller's struct cfilter_table
 *
 * The table is built to the side from a checked copy of the caller's data
 * (cuckoo_raw_create() trusts none of it), then replaces the staged set's
 * table of that type, which no reader can see yet. A prefix set keeps its
 * prefixes.
 *
 * Return: 0; -EOPNOTSUPP in exact mode; -EINVAL (nothing staged, bad
 * arguments, a table the module could not have made); -EPERM; -EFAULT;
 * -ENOMEM. Nothing changes on error.
 */
static long cfilter_ioc_restore(struct file *file,
				const struct cfilter_table __user *ut)
{
	const struct cfilter_ktype *f;
	struct cfilter_table t;
	struct cfilter_set *s;
	struct cuckoo_raw r;
	struct cuckoo *c;
	void *data;
	int err;

	err = cfilter_may_write(file);
	if (err)
		return err;
	if (copy_from_user(&t, ut, sizeof(t)))
		return -EFAULT;
	err = cfilter_table_args(&t, &f);
	if (err)
		return err;
	/* Bounds the copy; cuckoo_raw_create() checks the size exactly. */
	if (!t.size ||
	    t.size > cuckoo_raw_max_bytes(&cfilter_config.params[cfilter_ktype_type(f)]))
		return -EINVAL;
	if (!cfilter_has_staged(file))
		return -EINVAL;

	data = kvmalloc(t.size, GFP_KERNEL);
	if (!data)
		return -ENOMEM;
	if (copy_from_user(data, u64_to_user_ptr(t.data), t.size)) {
		kvfree(data);
		return -EFAULT;
	}
	r = (struct cuckoo_raw){
		.seed = t.seed,
		.buckets = t.buckets,
		.count = t.count,
		.fp_bits = t.fp_bits,
	};
	c = cuckoo_raw_create(&cfilter_config.params[cfilter_ktype_type(f)],
			      &r, data, t.size);
	kvfree(data);
	if (IS_ERR(c))
		return PTR_ERR(c);

	mutex_lock(&cfilter_lock);
	s = file->private_data;
	if (s)
		c = cfilter_set_replace_table(s, f, c);
	mutex_unlock(&cfilter_lock);
	/* The table replaced, or the new one if the set went meanwhile. */
	cuckoo_destroy(c);
	return s ? 0 : -EINVAL;
}

static long cfilter_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case CFILTER_IOC_ADD:
	case CFILTER_IOC_DEL:
		return cfilter_ioc_write(file, cmd, argp);
	case CFILTER_IOC_TEST:
		return cfilter_ioc_test(file, argp);
	case CFILTER_IOC_CLEAR:
		return cfilter_ioc_clear(file);
	case CFILTER_IOC_INFO:
		return cfilter_ioc_info(argp);
	case CFILTER_IOC_BATCH:
		return cfilter_ioc_batch(file, argp);
	case CFILTER_IOC_LIST:
		return cfilter_ioc_list(argp);
	case CFILTER_IOC_STAGE:
		return cfilter_ioc_stage(file);
	case CFILTER_IOC_COMMIT:
		return cfilter_ioc_commit(file);
	case CFILTER_IOC_ABORT:
		return cfilter_ioc_abort(file);
	case CFILTER_IOC_TYPE_INFO:
		return cfilter_ioc_type_info(file, argp);
	case CFILTER_IOC_MATCH:
		return cfilter_ioc_match(argp);
	case CFILTER_IOC_DUMP:
		return cfilter_ioc_dump(argp);
	case CFILTER_IOC_RESTORE:
		return cfilter_ioc_restore(file, argp);
	case CFILTER_IOC_FLUSH:
		return cfilter_ioc_flush(file, argp);
	case CFILTER_IOC_SOURCES:
		return cfilter_ioc_sources(file, argp);
	case CFILTER_IOC_STAGE_SOURCE:
		return cfilter_ioc_stage_source(file, argp);
	default:
		return -ENOTTY;
	}
}

/* misc_open() left the miscdevice here: the file starts with nothing staged. */
static int cfilter_open(struct inode *inode, struct file *file)
{
	file->private_data = NULL;
	return 0;
}

/* A set staged and never committed goes with the file. */
static int cfilter_release(struct inode *inode, struct file *file)
{
	struct cfilter_set *s;

	mutex_lock(&cfilter_lock);
	s = cfilter_unstage_locked(file);
	mutex_unlock(&cfilter_lock);
	cfilter_set_destroy(s);
	return 0;
}

static const struct file_operations cfilter_fops = {
	.owner		= THIS_MODULE,
	.open		= cfilter_open,
	.release	= cfilter_release,
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
