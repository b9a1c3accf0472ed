// SPDX-License-Identifier: GPL-2.0
/*
 * Lists into the filter: load (a list file into the filter, through BATCH)
 * and replace (the same into a staged set, committed in one swap). Out of
 * the filter, save and list are in list.c.
 *
 * load parses the whole input before touching the filter, so a malformed
 * line changes nothing, then adds up to LOAD_BATCH keys of one source per
 * ioctl, each with its timeout. The module checks every key of a call
 * before applying any, and takes its lock for a few hundred keys at a
 * time, so a big call neither half-applies a bad key nor stalls other
 * writers; big calls only save system calls.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "device/device.h"
#include "formats/keyfile.h"
#include "lib/addr.h"
#include "lib/deadline.h"
#include "verbs/verb.h"

/*
 * Keys per BATCH call: past a few thousand, calls cost a load nothing more
 * (make bench-load); 65536 bounds the results buffer (256 KiB) and how far
 * a load goes past a full filter.
 */
#define LOAD_BATCH	65536

/* What a load did, key by key. */
struct load_tally {
	size_t	added;
	size_t	present;
	size_t	processed;	/* keys the module saw */
	size_t	first_fail;	/* index of the first key not added */
	int	fail_err;	/* and why: 0 if none */
};

/*
 * Opens @o->arg ("-" is stdin) and reads every entry, as @o's --normalize,
 * --nomatch-allows and -s and @flags (enum kf_flags) say, and says what was
 * changed on the way. Returns enum cf_exit.
 */
static int read_list(const struct cfctl_opts *o, unsigned int flags,
		     struct key_list *kl, const char **shown)
{
	const char *name = o->arg;
	FILE *in = stdin;
	int err;

	*shown = "<stdin>";
	if (strcmp(name, "-")) {
		*shown = name;
		in = fopen(name, "r");
		if (!in) {
			cf_err("cannot open %s: %s: give an existing, readable file, or - for stdin",
			       name, strerror(errno));
			return CF_USAGE;
		}
	}
	if (o->normalize)
		flags |= KF_NORMALIZE;
	if (o->nomatch_allows)
		flags |= KF_NOMATCH_ALLOWS;
	err = keyfile_read(in, *shown, flags, o->source, kl, stderr);
	if (in != stdin)
		fclose(in);
	if (err == -ENOMEM) {
		cf_err("%s: out of memory after %zu entries: load the list in parts",
		       *shown, kl->n);
		return CF_SYSTEM;
	}
	if (err) {
		cf_err("cannot read %s: %s: give a text file of addresses",
		       *shown, strerror(-err));
		return CF_USAGE;
	}
	if (kl->masked)
		cf_err("%s: %zu prefix%s had host bits set: masked (--normalize)",
		       *shown, kl->masked, kl->masked == 1 ? "" : "es");
	return CF_OK;
}

/*
 * Each entry's timeout at this second: its line's, else -t's, an "expires"
 * turned into the seconds left. Entries expired already leave @kl and are
 * counted (by line) in *@expired; one expiring too far ahead is a
 * malformed line. Returns the timeouts, @kl->n of them, for the caller to
 * free; NULL if memory ran out.
 */
static __u32 *resolve_timeouts(const struct cfctl_opts *o, const char *name,
			       struct key_list *kl, size_t *expired)
{
	__u32 *timeouts = malloc((kl->n ? kl->n : 1) * sizeof(*timeouts));
	unsigned long last_bad = 0, last_expired = 0;
	struct clocks now;
	__s64 left;
	size_t i, out = 0;
	char when[24];

	*expired = 0;
	if (!timeouts)
		return NULL;
	clocks_now(&now);
	for (i = 0; i < kl->n; i++) {
		const struct kf_hold *h = &kl->holds[i];
		unsigned long line = kl->lines[i];

		timeouts[out] = h->timed ? h->timeout : o->timeout;
		if (h->expires) {
			left = timeout_until(&now, h->expires);
			if (!left) {
				/* A range's prefixes share their line. */
				*expired += line != last_expired;
				last_expired = line;
				continue;
			}
			if (left > CFILTER_TIMEOUT_MAX) {
				if (line != last_bad) {
					snprintf(when, sizeof(when), "%lld",
						 (long long)h->expires);
					keyfile_explain(stderr, name, line,
							KF_TOO_LATE, when);
					kl->bad++;
				}
				last_bad = line;
				continue;
			}
			timeouts[out] = left;
		}
		kl->keys[out] = kl->keys[i];
		kl->lines[out] = kl->lines[i];
		kl->holds[out++] = *h;
	}
	kl->n = out;
	return timeouts;
}

/*
 * After reading @kl: a bad source line refuses the whole list (skipping it
 * would give its entries to another source); other malformed lines do,
 * unless --skip-bad. @what is what stays undone, @rest what --skip-bad
 * does. Returns enum cf_exit.
 */
static int check_bad(const struct cfctl_opts *o, const char *name,
		     const struct key_list *kl, const char *what,
		     const char *rest)
{
	if (kl->bad_sources) {
		cf_err("%s: %zu bad source line%s: %s; --skip-bad skips no source line, whose entries would go to another source",
		       name, kl->bad_sources, kl->bad_sources == 1 ? "" : "s",
		       what);
		return CF_USAGE;
	}
	if (kl->bad && !o->skip_bad) {
		cf_err("%s: %zu malformed line%s: %s; fix %s, or pass --skip-bad to %s",
		       name, kl->bad, kl->bad == 1 ? "" : "s", what,
		       kl->bad == 1 ? "it" : "them", rest);
		return CF_USAGE;
	}
	return CF_OK;
}

/*
 * What load and replace read: @o's list (read_list() with @flags), each
 * entry with its timeout in *@timeouts, checked by check_bad() (@what and
 * @rest as there); says how many expired entries it left out. Returns enum
 * cf_exit; the caller frees @kl and *@timeouts either way.
 */
static int read_entries(const struct cfctl_opts *o, unsigned int flags,
			const char *what, const char *rest,
			struct key_list *kl, const char **name,
			__u32 **timeouts)
{
	size_t expired;
	int ret;

	ret = read_list(o, flags, kl, name);
	if (ret != CF_OK)
		return ret;
	*timeouts = resolve_timeouts(o, *name, kl, &expired);
	if (!*timeouts) {
		cf_err("out of memory");
		return CF_SYSTEM;
	}
	ret = check_bad(o, *name, kl, what, rest);
	if (ret == CF_OK && expired)
		cf_err("%s: %zu entr%s had expired: skipped", *name, expired,
		       expired == 1 ? "y" : "ies");
	return ret;
}

/* Adds up one batch's results; stops at the first key that found no room. */
static void tally(struct load_tally *t, const __s32 *results, __u32 done)
{
	__u32 i;

	for (i = 0; i < done; i++) {
		if (!results[i]) {
			t->added++;
		} else if (results[i] == -EEXIST) {
			t->present++;
		} else if (!t->fail_err) {
			t->fail_err = results[i];
			t->first_fail = t->processed + i;
		}
	}
	t->processed += done;
}

/*
 * Adds every key of @kl with its timeout (to the staged set with @flags
 * CFILTER_F_STAGED), in one BATCH per run of keys of one source, stopping
 * after a batch in which one failed.
 */
static int load_apply(int fd, const struct key_list *kl,
		      const __u32 *timeouts, __u32 flags,
		      struct load_tally *t)
{
	struct dev_batch b = { .op = CFILTER_BATCH_ADD, .flags = flags };
	size_t start, end;
	__u32 done;
	int err = 0;

	b.results = malloc(LOAD_BATCH * sizeof(*b.results));
	if (!b.results)
		return -ENOMEM;
	while (t->processed < kl->n && !t->fail_err) {
		start = t->processed;
		for (end = start + 1; end < kl->n && end - start < LOAD_BATCH;
		     end++)
			if (kl->holds[end].source != kl->holds[start].source)
				break;
		b.source = kl->sources[kl->holds[start].source];
		b.keys = kl->keys + start;
		b.timeouts = timeouts + start;
		b.n = end - start;
		err = dev_batch(fd, &b, &done);
		tally(t, b.results, done);
		if (err)
			break;
	}
	free(b.results);
	return err;
}

/* After a key failed: what stayed, what did not, and what to do. */
static int report_load_failure(int fd, const char *name,
			       const struct key_list *kl,
			       const struct load_tally *t)
{
	char buf[ENTRY_STRLEN];

	cf_err("%s:%lu: cannot add %s: %s: %zu of %zu entries added in all (%zu already present), %zu not added",
	       name, kl->lines[t->first_fail],
	       entry_format(&kl->keys[t->first_fail], buf, sizeof(buf)),
	       dev_key_error(t->fail_err), t->added, kl->n, t->present,
	       kl->n - t->added - t->present);
	switch (-t->fail_err) {
	case ENOSPC:
	case EDQUOT:
		dev_report_full(fd, t->fail_err, false,
				&kl->keys[t->first_fail]);
		break;
	case ENOMEM:
		cf_err("no memory to grow the filter: free some memory, or reload the module with a larger capacity= to allocate up front");
		break;
	}
	cf_err("the entries added stay; once fixed, run the load again: entries already present are counted, not added twice");
	return CF_SYSTEM;
}

/* A key of a list and the index of its source, for load --dry-run. */
struct source_key {
	struct cfilter_key	key;
	unsigned int		source;
};

static int source_key_cmp(const void *a, const void *b)
{
	const struct source_key *x = a, *y = b;

	if (x->source != y->source)
		return x->source < y->source ? -1 : 1;
	return key_cmp(&x->key, &y->key);
}

/* TESTs @n keys held by @source; how many are, or a negative errno. */
static long count_held(int fd, const char *source, const struct source_key *sk,
		       size_t n, struct cfilter_key *keys, __s32 *results)
{
	struct dev_batch b = {
		.op = CFILTER_BATCH_TEST,
		.source = source,
		.keys = keys,
		.results = results,
	};
	size_t start, i;
	long held = 0;
	__u32 done;
	int err;

	for (start = 0; start < n; start += b.n) {
		b.n = n - start < LOAD_BATCH ? n - start : LOAD_BATCH;
		for (i = 0; i < b.n; i++)
			keys[i] = sk[start + i].key;
		err = dev_batch(fd, &b, &done);
		if (err)
			return err;
		for (i = 0; i < done; i++)
			held += !results[i];
	}
	return held;
}

/*
 * load --dry-run: may the caller add, and how many holdings are new? TEST
 * answers the latter, per source (in compact mode, a false positive counts
 * a new entry as present).
 */
static int load_dry_run(int fd, const struct key_list *kl, size_t skipped)
{
	struct dev_batch may = { .op = CFILTER_BATCH_ADD };
	struct source_key *sk = malloc((kl->n ? kl->n : 1) * sizeof(*sk));
	struct cfilter_key *keys = malloc(LOAD_BATCH * sizeof(*keys));
	__s32 *results = malloc(LOAD_BATCH * sizeof(*results));
	size_t i, n = 0, start, end, present = 0;
	__u32 done;
	long held = 0;
	int err;

	err = dev_batch(fd, &may, &done);
	if (err) {
		dev_report(err, "cannot add");
		goto out;
	}
	if (!sk || !keys || !results) {
		cf_err("out of memory");
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < kl->n; i++) {
		sk[i].key = kl->keys[i];
		sk[i].source = kl->holds[i].source;
	}
	qsort(sk, kl->n, sizeof(*sk), source_key_cmp);
	for (i = 0; i < kl->n; i++)
		if (!n || source_key_cmp(&sk[n - 1], &sk[i]))
			sk[n++] = sk[i];
	for (start = 0; start < n && held >= 0; start = end) {
		for (end = start + 1; end < n; end++)
			if (sk[end].source != sk[start].source)
				break;
		held = count_held(fd, kl->sources[sk[start].source],
				  sk + start, end - start, keys, results);
		present += held > 0 ? held : 0;
	}
	if (held < 0) {
		err = held;
		dev_report(err, "cannot test the entries");
		goto out;
	}
	printf("would load %zu entries (%zu to add, %zu already present, %zu skipped); dry run: nothing changed\n",
	       kl->n, n - present, kl->n - (n - present), skipped);
out:
	free(sk);
	free(keys);
	free(results);
	return err ? CF_SYSTEM : CF_OK;
}

int do_load(const struct cfctl_opts *o)
{
	struct key_list kl = { 0 };
	struct load_tally t = { 0 };
	__u32 *timeouts = NULL;
	const char *name;
	int fd, err, ret;

	ret = read_entries(o, 0, "nothing loaded", "load the rest", &kl, &name,
			   &timeouts);
	if (ret != CF_OK)
		goto out;
	fd = dev_open(true);
	if (fd < 0) {
		ret = CF_SYSTEM;
		goto out;
	}
	if (o->dry_run) {
		ret = load_dry_run(fd, &kl, kl.bad);
		goto out_close;
	}

	err = load_apply(fd, &kl, timeouts, 0, &t);
	if (t.fail_err) {
		ret = report_load_failure(fd, name, &kl, &t);
	} else if (err) {
		dev_report(err, "cannot load");
		if (t.processed)
			cf_err("%zu of %zu entries added before the error (%zu already present)",
			       t.added, kl.n, t.present);
		ret = CF_SYSTEM;
	} else {
		printf("loaded %zu entries (%zu added, %zu already present, %zu skipped)\n",
		       kl.n, t.added, t.present, kl.bad);
		xdp_warn_dst(kl.keys, kl.n);
	}
out_close:
	close(fd);
out:
	free(timeouts);
	key_list_free(&kl);
	return ret;
}

#define UNTOUCHED	"nothing replaced: the live set is untouched"

/*
 * Times replace starts over when its copy of the live set could not follow
 * it (ESTALE), or another replace -s has one (EBUSY).
 */
#define REPLACE_TRIES	5

/* Starts the new set: empty, or the live set without @source's holdings. */
static int replace_stage(int fd, const char *source)
{
	if (!source)
		return dev_simple(fd, CFILTER_IOC_STAGE);
	return dev_source_req(fd, CFILTER_IOC_STAGE_SOURCE, source);
}

/* Fills the staged set with @kl; on failure says why and drops it. */
static int replace_fill(int fd, const char *name, const struct key_list *kl,
			const __u32 *timeouts, struct load_tally *t)
{
	char buf[ENTRY_STRLEN];
	int err;

	memset(t, 0, sizeof(*t));
	err = load_apply(fd, kl, timeouts, CFILTER_F_STAGED, t);
	if (t->fail_err) {
		cf_err("%s:%lu: cannot add %s: %s", name,
		       kl->lines[t->first_fail],
		       entry_format(&kl->keys[t->first_fail], buf, sizeof(buf)),
		       dev_key_error(t->fail_err));
		if (dev_full(t->fail_err))
			dev_report_full(fd, t->fail_err, true,
					&kl->keys[t->first_fail]);
		err = t->fail_err;
	} else if (err) {
		dev_report(err, "cannot fill the staged set");
	}
	/* Closing the file would drop it too; ABORT says so at once. */
	if (err)
		dev_simple(fd, CFILTER_IOC_ABORT);
	return err;
}

/*
 * Stages @kl (the whole filter, or @source's holdings when @source is not
 * NULL) and commits it, starting over a few times if the live set moves
 * under the copy. Returns enum cf_exit.
 */
static int replace_apply(int fd, const char *name, const char *source,
			 const struct key_list *kl, const __u32 *timeouts,
			 struct load_tally *t)
{
	int err, try;

	for (try = 1; try <= REPLACE_TRIES; try++) {
		err = replace_stage(fd, source);
		if (err == -EBUSY && source) {
			usleep(200000 * try);
			continue;
		}
		if (err) {
			if (err == -EDQUOT)
				dev_report_full(fd, err, true, NULL);
			else
				dev_report(err, "cannot stage a new set");
			cf_err(UNTOUCHED);
			return CF_SYSTEM;
		}
		err = replace_fill(fd, name, kl, timeouts, t);
		if (err)
			break;
		/* A COMMIT that fails drops the staged set. */
		err = dev_simple(fd, CFILTER_IOC_COMMIT);
		if (err != -ESTALE)
			break;
	}
	if (!err)
		return CF_OK;
	if (err == -EBUSY)
		cf_err("cannot stage a new set: another replace -s kept one staged for %d tries: try again",
		       REPLACE_TRIES);
	else if (err == -ESTALE)
		cf_err("cannot commit: the live set was cleared or replaced under each of %d new sets: try again",
		       REPLACE_TRIES);
	else if (err != t->fail_err)
		dev_report(err, "cannot commit the staged set");
	cf_err(UNTOUCHED);
	return CF_SYSTEM;
}

int do_replace(const struct cfctl_opts *o)
{
	struct key_list kl = { 0 };
	struct load_tally t = { 0 };
	__u32 *timeouts = NULL;
	char what[64] = "the filter";
	const char *name;
	int fd, ret;

	if (o->source)
		snprintf(what, sizeof(what), "source %s", o->source);
	ret = read_entries(o, o->source ? KF_ONE_SOURCE : 0, UNTOUCHED,
			   "replace with the rest", &kl, &name, &timeouts);
	if (ret != CF_OK)
		goto out;
	if (o->dry_run) {
		printf("would replace %s with %zu entries (%zu skipped); dry run: nothing changed\n",
		       what, kl.n, kl.bad);
		goto out;
	}
	fd = dev_open(true);
	if (fd < 0) {
		ret = CF_SYSTEM;
		goto out;
	}
	ret = replace_apply(fd, name, o->source, &kl, timeouts, &t);
	if (ret == CF_OK) {
		printf("replaced %s with %zu entries (%zu added, %zu repeated, %zu skipped)\n",
		       what, kl.n, t.added, t.present, kl.bad);
		xdp_warn_dst(kl.keys, kl.n);
	}
	close(fd);
out:
	free(timeouts);
	key_list_free(&kl);
	return ret;
}
