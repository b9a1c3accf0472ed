// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/cfilter's LIST: the stored holdings from a cursor, a step at a time
 * (see dev_ioc.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "cfilter_int.h"
#include "prefix.h"
#include "set.h"
#include "source.h"
#include "dev_ioc.h"
#include "dev_req.h"

/*
 * Entries per step: each step copies this many in one go and holds the
 * writer lock for no more than this many, so that other writers and the
 * scheduler get their turn between steps (a step also ends when it has
 * looked at a few thousand holdings it does not list: see
 * cfilter_hold_list()). The buffers of a step stay under 16 KiB.
 */
#define CFILTER_LIST_CHUNK	128

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
		buf->entries[i].age = CFILTER_AGE_UNKNOWN;
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
 * advancing @cur, under one hold of cfilter_lock, which requests waiting
 * for it take first; returns how many (0 at the type's end), -EAGAIN if it
 * found none but the type goes on, or another negative errno.
 */
static long cfilter_list_step(const struct cfilter_ktype *f,
			      const char *source, struct cfilter_cursor *cur,
			      u32 room, struct cfilter_list_buf *buf,
			      struct cfilter_entry __user *dst)
{
	long n;

	if (cfilter_lock_make_way())
		return -EINTR;
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
		/*
		 * A step that found nothing before its end of the lock is no
		 * end: the call goes on, so that count 0 still means the end.
		 */
		if (n == -EAGAIN)
			n = 0;
		else if (n < 0)
			return n;
		else if (!n)
			f = cfilter_ktype_next(f);
		l->count += n;
		if (fatal_signal_pending(current))
			return -EINTR;
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
 * @file: the open device
 * @ul:   caller's struct cfilter_list
 *
 * Exact mode lists holdings, of one source or all; compact mode only
 * prefixes (its address and flow tables hold fingerprints: see DUMP). A
 * listing that reaches its end reported every holding present throughout
 * exactly once.
 *
 * A call goes on until it has @max entries or reaches the end, however
 * many holdings of other sources it passes on the way, but takes
 * cfilter_lock a step at a time (CFILTER_LIST_CHUNK entries, or a few
 * thousand records or table entries looked at): before each step, the
 * requests waiting for the lock take it (writers, expiry, even one
 * spinning for it on another CPU: see lock.c), and the layout is checked
 * again at each.
 *
 * Return: 0 (count 0: the end), -ESTALE (the tables were laid out anew
 * since the previous call, or during this one: start again from cursor
 * 0), -ENOENT (no such source), -EINVAL (unknown flags, nonzero pad or
 * reserved, max 0, a bad source name, a cursor naming no key type),
 * -EFAULT, -ENOMEM, -EINTR (a fatal signal).
 */
long cfilter_ioc_list(struct file *file, void __user *ul)
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
