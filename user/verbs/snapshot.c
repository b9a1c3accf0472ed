// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl snapshot and cfctl restore: the whole filter to a file and back,
 * in either mode. A compact filter keeps no addresses or flows, only
 * fingerprints, so its raw tables are saved (with their hash seeds, which
 * give the fingerprints their meaning) and restored as they were; its
 * prefixes are saved as keys and added again. An exact filter's holdings
 * are saved per source, each with its deadline, and added again with the
 * time they have left; those expired meanwhile are left out. The format
 * is in snapfile.h.
 *
 * restore checks the whole file, then the module's mode and fingerprint
 * width, before it changes anything; then it builds the new set on the
 * side (STAGE, RESTORE, BATCH with CFILTER_F_STAGED) and swaps it in with
 * COMMIT, so that packets meet the old set or the new one, never a mix.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "device/device.h"
#include "formats/snapfile.h"
#include "lib/addr.h"
#include "lib/deadline.h"
#include "lib/source_name.h"
#include "verbs/verb.h"

/* Keys per BATCH call of restore, as load. */
#define RESTORE_BATCH	65536

/* What a snapshot or restore moved: for its last line. */
struct snap_tally {
	unsigned int	tables;
	__u64		fingerprints;
	size_t		keys;
	unsigned int	sources;	/* exact mode: of the keys */
	size_t		expired;	/* restore: holdings left out */
};

/* Adds each key type's raw table that holds anything. Returns 0 or -errno. */
static int snapshot_tables(int fd, struct snap_buf *b, struct snap_tally *t)
{
	struct cfilter_table tab;
	void *data;
	__u8 type;
	int err;

	for (type = 1; type < __CFILTER_KEY_MAX; type++) {
		tab.type = type;
		err = dev_dump(fd, &tab, &data);
		if (err == -EINVAL)	/* a key type this module lacks */
			continue;
		if (err)
			return err;
		if (tab.count) {
			snap_add_table(b, type, tab.flags, tab.seed, tab.buckets,
				       tab.count, data, tab.size);
			t->tables++;
			t->fingerprints += tab.count;
		}
		free(data);
	}
	return 0;
}

/* Writes @len bytes to @name through a temporary file: all or nothing. */
static int write_file(const char *name, const void *data, size_t len)
{
	char tmp[4096];
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", name) >= (int)sizeof(tmp)) {
		cf_err("snapshot: file name too long: %s", name);
		return CF_USAGE;
	}
	f = fopen(tmp, "wb");
	if (!f) {
		cf_err("cannot create %s: %s: give a writable place", tmp,
		       strerror(errno));
		return CF_SYSTEM;
	}
	if (fwrite(data, 1, len, f) != len || fflush(f) || fsync(fileno(f))) {
		cf_err("cannot write %s: %s", tmp, strerror(errno));
		fclose(f);
		unlink(tmp);
		return CF_SYSTEM;
	}
	if (fclose(f) || rename(tmp, name)) {
		cf_err("cannot write %s: %s", name, strerror(errno));
		unlink(tmp);
		return CF_SYSTEM;
	}
	return CF_OK;
}

static int entry_source_cmp(const void *a, const void *b)
{
	const struct cfilter_entry *x = a, *y = b;

	return strncmp(x->source, y->source, CFILTER_SOURCE_LEN);
}

/*
 * Adds what LIST gives: compact mode, the prefixes as keys; exact mode,
 * every holding, in a section per source. Returns 0 or -errno.
 */
static int snapshot_entries(int fd, __u32 mode, struct snap_buf *b,
			    struct snap_tally *t)
{
	struct cfilter_entry *e = NULL;
	struct cfilter_key *keys;
	struct clocks now;
	int64_t listed, secs, end;
	size_t i, start;
	long n;

	n = dev_list_all(fd, NULL, &e, &listed);
	if (n < 0)
		return n;
	clocks_now(&now);
	secs = clocks_epoch(&now);
	t->keys = n;
	if (mode == CFILTER_MODE_COMPACT) {
		keys = malloc((n ? n : 1) * sizeof(*keys));
		if (!keys) {
			free(e);
			return -ENOMEM;
		}
		for (i = 0; i < (size_t)n; i++)
			keys[i] = e[i].key;
		snap_add_keys(b, keys, n);
		free(keys);
		free(e);
		return 0;
	}
	/* Deadlines as save writes them: secs + timeout is deadline_of(). */
	for (i = 0; i < (size_t)n; i++) {
		if (!e[i].timeout)
			continue;
		end = deadline_of(&now, listed, e[i].timeout);
		e[i].timeout = end > secs ? end - secs : 1;
	}
	qsort(e, n, sizeof(*e), entry_source_cmp);
	for (start = 0; start < (size_t)n; start = i) {
		for (i = start + 1; i < (size_t)n; i++)
			if (entry_source_cmp(&e[i], &e[start]))
				break;
		snap_add_holds(b, e[start].source, e + start, i - start, secs);
		t->sources++;
	}
	free(e);
	return 0;
}

/* "6 keys" (compact mode), "6 keys of 2 sources" (exact mode). */
static void keys_text(const struct snap_tally *t, __u32 mode, char *buf,
		      size_t len)
{
	int n = snprintf(buf, len, "%zu keys", t->keys);

	if (mode == CFILTER_MODE_EXACT && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " of %u source%s", t->sources,
			 t->sources == 1 ? "" : "s");
}

int do_snapshot(const struct cfctl_opts *o)
{
	struct snap_buf b = { .data = NULL };
	struct snap_tally t = { 0 };
	struct cfilter_info info;
	char keys[64];
	int fd, err, ret;

	fd = dev_open(false);
	if (fd < 0)
		return CF_SYSTEM;
	err = dev_info(fd, &info);
	if (!err) {
		snap_begin(&b, info.mode, info.fp_bits);
		if (info.mode == CFILTER_MODE_COMPACT)
			err = snapshot_tables(fd, &b, &t);
	}
	if (!err)
		err = snapshot_entries(fd, info.mode, &b, &t);
	close(fd);
	if (!err)
		err = snap_finish(&b);
	if (err) {
		dev_report(err, "cannot take a snapshot");
		free(b.data);
		return CF_SYSTEM;
	}
	keys_text(&t, info.mode, keys, sizeof(keys));
	if (o->dry_run) {
		printf("would write %zu bytes to %s: %u tables of %llu fingerprints, %s (dry run: nothing written)\n",
		       b.len, o->arg, t.tables,
		       (unsigned long long)t.fingerprints, keys);
		free(b.data);
		return CF_OK;
	}
	ret = write_file(o->arg, b.data, b.len);
	if (ret == CF_OK)
		printf("snapshot of the %s-mode filter written to %s: %u tables of %llu fingerprints, %s, %zu bytes\n",
		       info.mode == CFILTER_MODE_COMPACT ? "compact" : "exact",
		       o->arg, t.tables, (unsigned long long)t.fingerprints,
		       keys, b.len);
	free(b.data);
	return ret;
}

/* Reads all of @name into *@buf. Returns enum cf_exit. */
static int read_file(const char *name, uint8_t **buf, size_t *len)
{
	size_t cap = 1 << 16, got;
	uint8_t *data = NULL, *bigger;
	FILE *f = fopen(name, "rb");

	if (!f) {
		cf_err("cannot open %s: %s: give a snapshot written by cfctl snapshot",
		       name, strerror(errno));
		return CF_USAGE;
	}
	*len = 0;
	for (;;) {
		bigger = realloc(data, cap);
		if (!bigger) {
			cf_err("%s: out of memory", name);
			free(data);
			fclose(f);
			return CF_SYSTEM;
		}
		data = bigger;
		got = fread(data + *len, 1, cap - *len, f);
		*len += got;
		if (*len < cap)
			break;
		cap *= 2;
	}
	if (ferror(f)) {
		cf_err("cannot read %s: %s", name, strerror(errno));
		free(data);
		fclose(f);
		return CF_USAGE;
	}
	fclose(f);
	*buf = data;
	return CF_OK;
}

/* One BATCH of restore: the keys of one source, gathered. */
struct restore_batch {
	struct cfilter_key	keys[RESTORE_BATCH];
	__u32			timeouts[RESTORE_BATCH];
	__u32			ages[RESTORE_BATCH];
	__s32			results[RESTORE_BATCH];
	size_t			index[RESTORE_BATCH];	/* in the section */
	__u32			n;
};

/*
 * Adds the gathered keys of @source to the staged set. Returns 0 or -errno
 * (*@bad_key set to the section's index of a key refused).
 */
static int restore_batch(int fd, const char *source, struct restore_batch *rb,
			 size_t *bad_key)
{
	struct dev_batch b = {
		.op = CFILTER_BATCH_ADD,
		.flags = CFILTER_F_STAGED,
		.source = source,
		.keys = rb->keys,
		.timeouts = rb->timeouts,
		.ages = rb->ages,
		.results = rb->results,
		.n = rb->n,
	};
	__u32 i, done;
	int err;

	err = dev_batch(fd, &b, &done);
	for (i = 0; !err && i < done; i++) {
		/* EEXIST: a key twice, which LIST may report. */
		if (rb->results[i] && rb->results[i] != -EEXIST) {
			err = rb->results[i];
			*bad_key = rb->index[i];
		}
	}
	rb->n = 0;
	return err;
}

/*
 * Adds the keys of @sec to the staged set: a key list, as "default"'s for
 * ever; or one source's holdings, each for the time it has left at @now
 * and with the age it has then (expired ones counted in @t, not added).
 * Returns 0 or -errno.
 */
static int restore_keys(int fd, const struct snap_section *sec,
			const struct clocks *c,
			bool compact, struct snap_tally *t, size_t *bad_key)
{
	bool holds = sec->kind == SNAP_HOLDS;
	/* Compact mode's one source holds them all (see compact_check()). */
	const char *source = holds && !compact ? snap_holds_source(sec) : NULL;
	struct restore_batch *rb = malloc(sizeof(*rb));
	struct snap_hold h = { .deadline = 0, .added = 0 };
	int64_t now = clocks_epoch(c), left;
	uint64_t i;
	int err = 0;

	if (!rb)
		return -ENOMEM;
	rb->n = 0;
	for (i = 0; !err && i < sec->count; i++) {
		/* The file's bytes need not be aligned for the ioctl. */
		if (holds)
			snap_hold(sec, i, &h);
		else
			memcpy(&h.key, sec->data + i * sizeof(h.key),
			       sizeof(h.key));
		left = !h.deadline ? 0 : h.deadline > INT64_MAX ? INT64_MAX :
		       timeout_until(c, h.deadline);
		if (h.deadline && !left) {
			t->expired++;
			continue;
		}
		rb->keys[rb->n] = h.key;
		/* Written at most CFILTER_TIMEOUT_MAX ahead, unless the clock went back. */
		rb->timeouts[rb->n] = left > CFILTER_TIMEOUT_MAX ?
				      CFILTER_TIMEOUT_MAX : left;
		/* A key list's keys, like holdings of no known age: unknown. */
		rb->ages[rb->n] = !h.added ? CFILTER_AGE_UNKNOWN :
				  (int64_t)h.added >= now ? 0 :
				  now - h.added >= CFILTER_AGE_UNKNOWN ?
				  CFILTER_AGE_UNKNOWN - 1 : now - h.added;
		rb->index[rb->n++] = i;
		t->keys++;
		if (rb->n == RESTORE_BATCH)
			err = restore_batch(fd, source, rb, bad_key);
	}
	if (!err && rb->n)
		err = restore_batch(fd, source, rb, bad_key);
	free(rb);
	return err;
}

/*
 * An exact snapshot going into a compact filter, which knows one source,
 * "default", and no timeouts: every source's entries become default's (said
 * on stderr), but a holding that has time left is refused, as compact mode
 * would keep it for ever. Returns enum cf_exit.
 */
static int compact_check(const char *name, const struct snap *s, int64_t now)
{
	const char *timed_source = NULL;
	unsigned int i, others = 0;
	struct snap_hold h;
	size_t timed = 0;
	uint64_t k;

	for (i = 0; i < s->nsect; i++) {
		const struct snap_section *sec = &s->sect[i];

		if (sec->kind != SNAP_HOLDS)
			continue;
		others += !source_is_default(snap_holds_source(sec));
		for (k = 0; k < sec->count; k++) {
			snap_hold(sec, k, &h);
			if (h.deadline && (int64_t)h.deadline > now) {
				timed++;
				timed_source = snap_holds_source(sec);
			}
		}
	}
	if (timed) {
		cf_err("%s: %zu holding%s with a timeout (source %s%s): compact mode cannot expire entries, so nothing restored; restore into mode=exact, or flush the timed sources and snapshot again",
		       name, timed, timed == 1 ? "" : "s", timed_source,
		       timed > 1 ? ", ..." : "");
		return CF_SYSTEM;
	}
	if (others)
		cf_err("%s: compact mode has one source: the entries of %u other source%s are held by default",
		       name, others, others == 1 ? "" : "s");
	return CF_OK;
}

/* Stages the snapshot @s and commits it. Returns enum cf_exit. */
static int restore_apply(int fd, const char *name, const struct snap *s,
			 bool compact, struct snap_tally *t)
{
	const struct snap_section *sec;
	struct cfilter_table tab;
	size_t bad_key = SIZE_MAX;
	struct clocks now;
	unsigned int i, bad_sect = 0;
	int err;

	clocks_now(&now);
	if (compact && compact_check(name, s, clocks_epoch(&now)) != CF_OK)
		return CF_SYSTEM;
	err = dev_simple(fd, CFILTER_IOC_STAGE);
	for (i = 0; !err && i < s->nsect; i++) {
		sec = &s->sect[i];
		if (sec->kind != SNAP_TABLE) {
			bad_sect = i + 1;
			err = restore_keys(fd, sec, &now, compact, t, &bad_key);
			t->sources += sec->kind == SNAP_HOLDS;
			continue;
		}
		memset(&tab, 0, sizeof(tab));
		tab.type = sec->type;
		tab.flags = sec->flags;
		tab.fp_bits = s->fp_bits;
		tab.seed = sec->seed;
		tab.buckets = sec->buckets;
		tab.count = sec->count;
		tab.data = (uintptr_t)sec->data;
		tab.size = sec->length;
		err = dev_restore(fd, &tab);
		if (err == -EINVAL)
			cf_err("%s: the module refused the table of %s keys (%llu buckets): is its max_capacity= smaller than the snapshotted filter's%s?",
			       name, key_type_name(sec->type),
			       (unsigned long long)sec->buckets,
			       sec->flags ? ", or cfilter.ko older than this cfctl (it would not know the table's flags)" : "");
		t->tables++;
		t->fingerprints += sec->count;
	}
	if (!err)
		err = dev_simple(fd, CFILTER_IOC_COMMIT);
	if (!err)
		return CF_OK;
	if (dev_full(err))
		dev_report_full(fd, err, true, NULL);
	else if (bad_key != SIZE_MAX)
		cf_err("%s: section %u: cannot add key %zu: %s", name,
		       bad_sect, bad_key + 1, dev_key_error(err));
	else
		dev_report(err, "cannot restore");
	dev_simple(fd, CFILTER_IOC_ABORT);
	cf_err("nothing restored: the live set is untouched");
	return CF_SYSTEM;
}

int do_restore(const struct cfctl_opts *o)
{
	struct snap_tally t = { 0 };
	struct cfilter_info info;
	uint8_t *buf = NULL;
	char why[256];
	struct snap s;
	size_t len;
	int fd, err, ret;

	ret = read_file(o->arg, &buf, &len);
	if (ret != CF_OK)
		return ret;
	if (snap_parse(buf, len, &s, why, sizeof(why)) != SNAP_OK) {
		cf_err("%s: %s: nothing restored", o->arg, why);
		free(buf);
		return CF_USAGE;
	}
	fd = dev_open(true);
	if (fd < 0) {
		free(buf);
		return CF_SYSTEM;
	}
	err = dev_info(fd, &info);
	if (err) {
		dev_report(err, "cannot read the filter's info");
		ret = CF_SYSTEM;
	} else if (snap_check_module(&s, info.mode, info.fp_bits, why,
				     sizeof(why))) {
		cf_err("%s: %s: nothing restored", o->arg, why);
		ret = CF_SYSTEM;
	} else if (o->dry_run) {
		printf("%s: a valid snapshot that this module can restore (dry run: nothing changed)\n",
		       o->arg);
	} else {
		ret = restore_apply(fd, o->arg, &s,
				    info.mode == CFILTER_MODE_COMPACT, &t);
		if (ret == CF_OK && t.expired)
			cf_err("%s: %zu holding%s had expired: skipped", o->arg,
			       t.expired, t.expired == 1 ? "" : "s");
		if (ret == CF_OK)
			printf("restored %s: %u tables of %llu fingerprints, %zu keys\n",
			       o->arg, t.tables,
			       (unsigned long long)t.fingerprints, t.keys);
	}
	close(fd);
	free(buf);
	return ret;
}
