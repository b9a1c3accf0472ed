// SPDX-License-Identifier: GPL-2.0
/* /dev/cfilter: opening it and its ioctls. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "device/device.h"
#include "lib/deadline.h"
#include "lib/addr.h"
#include "lib/source_name.h"
#include "lib/util.h"

/* Entries per LIST call. */
#define LIST_BATCH	4096

/**
 * dev_open() - open /dev/cfilter
 * @write: the caller will change the filter (add, del, clear)
 *
 * Read-only callers open read-only, so that a device node made readable to
 * a monitoring group serves test and info.
 *
 * Return: the descriptor, or -1 after saying on stderr what to do.
 */
int dev_open(bool write)
{
	int fd = open(CFILTER_DEVICE, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	switch (errno) {
	case ENOENT:	/* no node */
	case ENXIO:	/* a stale node whose driver is gone */
	case ENODEV:
		cf_err(MSG_NO_MODULE);
		break;
	case EACCES:
	case EPERM:
		cf_err(MSG_NO_PERM);
		break;
	default:
		cf_err("cannot open %s: %s", CFILTER_DEVICE, strerror(errno));
	}
	return -1;
}

/* @source as a request carries it: "" for "default", as the module says. */
static void req_source(char dst[CFILTER_SOURCE_LEN], const char *source)
{
	source_copy(dst, source_is_default(source) ? NULL : source);
}

/**
 * dev_key_req() - ADD, DEL or TEST one key
 * @fd:      the device
 * @req:     CFILTER_IOC_ADD, _DEL or _TEST
 * @key:     the key
 * @flags:   CFILTER_F_*
 * @timeout: ADD: seconds, 0 for permanent; else 0
 * @source:  the source; NULL for "default"
 *
 * Return: 0 or a negative errno.
 */
int dev_key_req(int fd, unsigned long req, const struct cfilter_key *key,
		__u32 flags, __u32 timeout, const char *source)
{
	struct cfilter_key_req kr = {
		.key = *key,
		.flags = flags,
		.timeout = timeout,
	};

	req_source(kr.source, source);
	return ioctl(fd, req, &kr) ? -errno : 0;
}

/* FLUSH or STAGE_SOURCE @source. Returns 0 or a negative errno. */
int dev_source_req(int fd, unsigned long req, const char *source)
{
	struct cfilter_source_req sr = { .flags = 0 };

	req_source(sr.source, source);
	return ioctl(fd, req, &sr) ? -errno : 0;
}

/* The live set's sources, "default" first. Returns 0 or a negative errno. */
int dev_sources(int fd, struct cfilter_sources *s)
{
	memset(s, 0, sizeof(*s));
	return ioctl(fd, CFILTER_IOC_SOURCES, s) ? -errno : 0;
}

/* dev_sources() without a word if the module is not there. */
int dev_sources_quiet(struct cfilter_sources *s)
{
	int fd = open(CFILTER_DEVICE, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = dev_sources(fd, s);
	close(fd);
	return err;
}

/*
 * An ioctl without argument: CLEAR, STAGE, COMMIT or ABORT. Returns 0 or a
 * negative errno.
 */
int dev_simple(int fd, unsigned long req)
{
	return ioctl(fd, req) ? -errno : 0;
}

/**
 * dev_type_info() - one key type's tables
 * @fd:     the device
 * @type:   enum cfilter_key_type
 * @staged: of the set staged on @fd rather than the live one
 * @ti:     filled in
 *
 * Return: 0 or a negative errno (-EINVAL: a type the module lacks).
 */
int dev_type_info(int fd, __u8 type, bool staged, struct cfilter_type_info *ti)
{
	memset(ti, 0, sizeof(*ti));
	ti->type = type;
	ti->flags = staged ? CFILTER_F_STAGED : 0;
	return ioctl(fd, CFILTER_IOC_TYPE_INFO, ti) ? -errno : 0;
}

/**
 * dev_read_state() - the live set's INFO, SOURCES and each key type's tables
 * @fd: the device
 * @s:  filled in; @s->types holds the types the module has, in order
 *
 * Return: 0 or a negative errno.
 */
int dev_read_state(int fd, struct dev_state *s)
{
	__u8 type;
	int err;

	s->ntypes = 0;
	err = dev_info(fd, &s->info);
	if (!err)
		err = dev_sources(fd, &s->sources);
	/* EINVAL: a type this module lacks; it has nothing to show. */
	for (type = 1; !err && type < __CFILTER_KEY_MAX; type++) {
		err = dev_type_info(fd, type, false, &s->types[s->ntypes]);
		if (!err)
			s->ntypes++;
		else if (err == -EINVAL)
			err = 0;
	}
	return err;
}

/* The kfunc's verdict on @pkt, and its source, into *@mr. 0 or -errno. */
int dev_match(int fd, const struct cfilter_pkt *pkt,
	      struct cfilter_match_req *mr)
{
	memset(mr, 0, sizeof(*mr));
	mr->pkt = *pkt;
	return ioctl(fd, CFILTER_IOC_MATCH, mr) ? -errno : 0;
}

/**
 * dev_dump() - read one key type's raw table (compact mode)
 * @fd:   the device
 * @t:    @t->type set; the rest filled in, with the table's flags (every
 *        flag cfctl knows is kept in its snapshots)
 * @data: set to a buffer of @t->size bytes the caller frees
 *
 * Asks for the size first; should the table grow in between, asks again.
 * A module from before a flag refuses it (EINVAL): its tables do not
 * have it, so it is asked again without it (before CFILTER_TABLE_MIX32,
 * with CFILTER_TABLE_HASH32 alone; before that, with none); without
 * that, an upgraded cfctl beside a module still loaded would take every
 * table for a key type the module lacks and save none.
 *
 * Return: 0 or a negative errno (-EOPNOTSUPP in exact mode).
 */
int dev_dump(int fd, struct cfilter_table *t, void **data)
{
	__u32 flags = CFILTER_TABLE_HASH32 | CFILTER_TABLE_MIX32;
	__u8 type = t->type;
	void *buf = NULL, *bigger;
	__u64 room = 0;

	for (;;) {
		memset(t, 0, sizeof(*t));
		t->type = type;
		t->flags = flags;
		t->data = (uintptr_t)buf;
		t->size = room;
		if (!ioctl(fd, CFILTER_IOC_DUMP, t)) {
			*data = buf;
			return 0;
		}
		if (errno == EINVAL && flags) {
			/* the newest flag first: a module before it has the others */
			flags = flags & CFILTER_TABLE_MIX32 ? CFILTER_TABLE_HASH32 : 0;
			continue;
		}
		if (errno != ENOSPC || t->size <= room || t->size > SIZE_MAX) {
			int err = -errno;

			free(buf);
			return err;
		}
		room = t->size;
		bigger = realloc(buf, room);
		if (!bigger) {
			free(buf);
			return -ENOMEM;
		}
		buf = bigger;
	}
}

/* RESTORE @t into the set staged on @fd. Returns 0 or a negative errno. */
int dev_restore(int fd, const struct cfilter_table *t)
{
	struct cfilter_table copy = *t;

	return ioctl(fd, CFILTER_IOC_RESTORE, &copy) ? -errno : 0;
}

/* Returns 0 or a negative errno. */
int dev_info(int fd, struct cfilter_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return ioctl(fd, CFILTER_IOC_INFO, info) ? -errno : 0;
}

/*
 * Listings started over because the filter changed under them, before
 * dev_list_all() gives up: a writer would have to move keys between every
 * few of its calls, for seconds, to use them all.
 */
#define LIST_TRIES	20

/* Reads the next part of the holdings; the count, or a negative errno. */
static long dev_list(int fd, struct cfilter_entry *entries, unsigned int max,
		     struct cfilter_list *l)
{
	l->entries = (uintptr_t)entries;
	l->max = max;
	if (ioctl(fd, CFILTER_IOC_LIST, l))
		return -errno;
	return l->count;
}

/*
 * Each call counts its entries' timeouts from its own moment, at most
 * @after (ns of CLOCK_BOOTTIME, read after it); @e's, @n of them, from
 * then on count from @listed, earlier. A deadline recovered from @after
 * may be a second late, never early.
 */
static void list_rebase(struct cfilter_entry *e, long n, int64_t after,
			int64_t listed)
{
	long i;

	for (i = 0; i < n; i++)
		if (e[i].timeout)
			e[i].timeout = secs_left(boot_deadline(after,
							       e[i].timeout),
						 listed);
}

/*
 * One listing from the start; the number of entries or a negative errno.
 * Sets *@listed to the boot time its timeouts count from.
 */
static long list_once(int fd, const char *source, struct cfilter_entry **all,
		      size_t *cap, int64_t *listed)
{
	struct cfilter_list l = {
		.flags = source ? 0 : CFILTER_F_ALL_SOURCES,
	};
	struct cfilter_entry *bigger;
	struct clocks after;
	size_t have = 0;
	long got;

	req_source(l.source, source);
	do {
		if (*cap - have < LIST_BATCH) {
			*cap = *cap ? *cap * 2 : 4 * LIST_BATCH;
			bigger = realloc(*all, *cap * sizeof(**all));
			if (!bigger)
				return -ENOMEM;
			*all = bigger;
		}
		got = dev_list(fd, *all + have, LIST_BATCH, &l);
		clocks_now(&after);
		if (!have)
			*listed = after.boot;
		if (got > 0) {
			list_rebase(*all + have, got, after.boot, *listed);
			have += got;
		}
	} while (got > 0);
	return got < 0 ? got : (long)have;
}

/**
 * dev_list_all() - read every holding LIST gives
 * @fd:      the device
 * @source:  the source whose holdings to read; NULL for every source's
 * @entries: set to a malloc()ed array the caller frees (NULL if none)
 * @listed:  set to the boot time (ns of CLOCK_BOOTTIME) the entries'
 *           timeouts count from, as LIST counts them: whole seconds left,
 *           rounded down, at least 1 (see boot_deadline())
 *
 * In compact mode LIST gives the prefixes only, as held by "default". Each
 * holding present throughout is read exactly once: a listing the module
 * finds stale (keys moved meanwhile) starts over, a few times at most.
 *
 * Return: the number of entries, or a negative errno (-ESTALE: the filter
 * kept changing; -ENOENT: no such source).
 */
long dev_list_all(int fd, const char *source, struct cfilter_entry **entries,
		  int64_t *listed)
{
	struct cfilter_entry *all = NULL;
	size_t cap = 0;
	long got = -ESTALE;
	int try;

	for (try = 0; try < LIST_TRIES && got == -ESTALE; try++) {
		if (try)
			usleep(1000 << (try < 8 ? try : 8));
		got = list_once(fd, source, &all, &cap, listed);
	}
	if (got < 0) {
		free(all);
		return got;
	}
	*entries = all;
	return got;
}

/**
 * dev_batch() - apply one operation to an array of keys
 * @fd:   the device
 * @b:    the call; @b->n 0 only checks that the caller may do @b->op
 * @done: set to the number of keys processed, whatever the outcome
 *
 * Return: 0 once every key was processed, or a negative errno.
 */
int dev_batch(int fd, const struct dev_batch *b, __u32 *done)
{
	struct cfilter_batch cb = {
		.op = b->op,
		.flags = b->flags,
		.keys = (uintptr_t)b->keys,
		.results = (uintptr_t)b->results,
		.timeouts = (uintptr_t)b->timeouts,
		.ages = (uintptr_t)b->ages,
		.count = b->n,
	};
	int err;

	req_source(cb.source, b->source);
	err = ioctl(fd, CFILTER_IOC_BATCH, &cb) ? -errno : 0;
	*done = cb.done;
	return err;
}

/* Is @key a prefix (shorter than its addresses)? */
static bool key_is_prefix(const struct cfilter_key *key)
{
	switch (key->type) {
	case CFILTER_KEY_SRC4:
	case CFILTER_KEY_DST4:
	case CFILTER_KEY_ALLOW4:
		return key->prefix_len < 32;
	case CFILTER_KEY_SRC6:
	case CFILTER_KEY_DST6:
	case CFILTER_KEY_ALLOW6:
		return key->prefix_len < 128;
	default:
		return false;
	}
}

/*
 * ENOSPC on adding prefix @key: a prefix takes an entry in the table of its
 * length, and markers in the tables of a few shorter ones; one of those is
 * full (or, rarely, one marker has too many entries under it).
 */
static bool report_prefix_full(int fd, bool staged,
			       const struct cfilter_key *key,
			       const struct cfilter_info *info)
{
	const char *bound = info->mode == CFILTER_MODE_EXACT ? "max_capacity" :
							      "capacity";
	struct cfilter_type_info ti;
	char buf[ENTRY_STRLEN];

	if (dev_type_info(fd, key->type, staged, &ti))
		return false;
	cf_err("%s: no room for the prefix: %s holds %llu prefix%s of %u length%s with %llu markers, and each length's table holds at most %s=%llu entries: reload the module with a larger %s=",
	       entry_format(key, buf, sizeof(buf)), key_type_name(key->type),
	       (unsigned long long)ti.prefixes, ti.prefixes == 1 ? "" : "es",
	       ti.lengths, ti.lengths == 1 ? "" : "s",
	       (unsigned long long)ti.prefix_markers, bound,
	       (unsigned long long)(info->mode == CFILTER_MODE_EXACT ?
				    info->max_capacity : info->capacity),
	       bound);
	return true;
}

#define MSG_MEM_BOUND	"cfilter's memory bound is reached"
#define MSG_MEM_FIX	"reload the module with a larger max_memory= (MiB), or remove entries"

/* EDQUOT: the module's memory bound, with what counts against it. */
static void report_memory_bound(int fd)
{
	struct cfilter_info info;

	if (dev_info(fd, &info) || !info.mem_limit) {
		cf_err(MSG_MEM_BOUND ": " MSG_MEM_FIX);
		return;
	}
	cf_err(MSG_MEM_BOUND ": %llu of max_memory=%llu MiB in use (a load, replace or restore holds the new set beside the live one): " MSG_MEM_FIX,
	       (unsigned long long)(info.mem_used >> 20),
	       (unsigned long long)(info.mem_limit >> 20));
}

/* Did an add fail for want of room: the filter's bounds or its memory's? */
bool dev_full(int err)
{
	return err == -ENOSPC || err == -EDQUOT;
}

/*
 * ENOSPC or EDQUOT (@err) on add of @key (NULL: unknown): say how full the
 * filter is and which bound to raise. The live filter's count means
 * nothing when the set that filled is @staged.
 */
void dev_report_full(int fd, int err, bool staged,
		     const struct cfilter_key *key)
{
	struct cfilter_info info;
	char keys[64] = "";

	if (err == -EDQUOT) {
		report_memory_bound(fd);
		return;
	}

	if (dev_info(fd, &info)) {
		cf_err("filter full: reload the module with a larger max_capacity= (exact mode) or capacity= (compact mode)");
		return;
	}
	if (key && key_is_prefix(key) &&
	    report_prefix_full(fd, staged, key, &info))
		return;
	if (!staged)
		snprintf(keys, sizeof(keys), "%llu keys%s",
			 (unsigned long long)info.count,
			 info.mode == CFILTER_MODE_EXACT ? "; " : " in ");
	if (info.mode == CFILTER_MODE_EXACT)
		cf_err("%s full (%smax_capacity=%llu keys per entry type): reload the module with a larger max_capacity=",
		       staged ? "new set" : "filter", keys,
		       (unsigned long long)info.max_capacity);
	else
		cf_err("%s full (%s%llu slots; compact mode does not grow): reload the module with a larger capacity=",
		       staged ? "new set" : "filter", keys,
		       (unsigned long long)info.capacity);
}

/**
 * dev_key_error() - why one key of a request failed, in words for messages
 * @err: the negative errno of the key
 *
 * Return: what it means and, for the errors of sources and timeouts, what
 * to do.
 */
const char *dev_key_error(int err)
{
	switch (-err) {
	case ENOSPC:
		return "filter full";
	case EDQUOT:
		return "cfilter's memory bound (max_memory=) reached";
	case EOPNOTSUPP:
		return MSG_COMPACT;
	case EUSERS:
		return MSG_TOO_MANY_SOURCES;
	default:
		return strerror(-err);
	}
}

/**
 * dev_report() - explain an ioctl failure no caller handles itself
 * @err:  the negative errno
 * @what: what was being done, e.g. "adding 192.0.2.1"
 */
void dev_report(int err, const char *what)
{
	switch (-err) {
	case EPERM:
	case EACCES:
		cf_err(MSG_NO_PERM);
		break;
	case ESTALE:
		cf_err("%s: the filter kept changing while it was listed (concurrent adds moving keys): try again",
		       what);
		break;
	case EOPNOTSUPP:
		cf_err("%s: " MSG_COMPACT, what);
		break;
	case EUSERS:
		cf_err("%s: " MSG_TOO_MANY_SOURCES, what);
		break;
	case EDQUOT:
		cf_err("%s: " MSG_MEM_BOUND " (cfctl info shows it): " MSG_MEM_FIX,
		       what);
		break;
	case ENOTTY:
	case EINVAL:
		/* cfctl builds only requests the module documents. */
		cf_err("%s: %s rejected the request (%s): rebuild cfctl and cfilter.ko from the same source",
		       what, CFILTER_DEVICE, strerror(-err));
		break;
	default:
		cf_err("%s: %s", what, strerror(-err));
	}
}
