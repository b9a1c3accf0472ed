// SPDX-License-Identifier: GPL-2.0
/*
 * Many entries at once: load (a list file into the filter, through BATCH),
 * replace (the same into a staged set, committed in one swap), save and
 * list (the filter's entries, through LIST).
 *
 * load parses the whole input before touching the filter, so a malformed
 * line changes nothing, then adds LOAD_BATCH keys per ioctl. The module
 * checks every key of a call before applying any, and takes its lock for a
 * few hundred keys at a time, so a big call neither half-applies a bad key
 * nor stalls other writers; big calls only save system calls.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "addr.h"
#include "cfctl.h"
#include "dev.h"
#include "json.h"
#include "keyfile.h"

/*
 * Keys per BATCH call. Loading a million keys in the TCG guest took 3.0 s
 * with 256 per call and 2.5-2.8 s with 4096, 65536 or all in one: past a
 * few thousand, calls cost nothing more. 65536 bounds the results buffer
 * (256 KiB) and how far a load goes past a full filter.
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
 * Opens @name ("-" is stdin) and reads every entry, as @o's --normalize
 * says, and says what was changed or left out on the way. Returns enum
 * cf_exit.
 */
static int read_list(const struct cfctl_opts *o, struct key_list *kl,
		     const char **shown)
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
	err = keyfile_read(in, *shown, o->normalize ? KF_NORMALIZE : 0, kl,
			   stderr);
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
	if (kl->timed)
		cf_err("%s: %zu entr%s carry an ipset timeout, which cfilter does not keep yet: added without one",
		       *shown, kl->timed, kl->timed == 1 ? "y" : "ies");
	return CF_OK;
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
 * Adds every key of @kl (to the staged set with @flags CFILTER_F_STAGED),
 * stopping after a batch in which one failed.
 */
static int load_apply(int fd, const struct key_list *kl, __u32 flags,
		      struct load_tally *t)
{
	__s32 *results;
	__u32 n, done;
	int err = 0;

	results = malloc(LOAD_BATCH * sizeof(*results));
	if (!results)
		return -ENOMEM;
	while (t->processed < kl->n && !t->fail_err) {
		n = kl->n - t->processed < LOAD_BATCH ?
		    kl->n - t->processed : LOAD_BATCH;
		err = dev_batch(fd, CFILTER_BATCH_ADD, flags, kl->keys + t->processed,
				results, n, &done);
		tally(t, results, done);
		if (err)
			break;
	}
	free(results);
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
	       t->fail_err == -ENOSPC ? "filter full" : strerror(-t->fail_err),
	       t->added, kl->n, t->present, kl->n - t->added - t->present);
	switch (-t->fail_err) {
	case ENOSPC:
		dev_report_full(fd, false, &kl->keys[t->first_fail]);
		break;
	case ENOMEM:
		cf_err("no memory to grow the filter: free some memory, or reload the module with a larger capacity= to allocate up front");
		break;
	}
	cf_err("the entries added stay; once fixed, run the load again: entries already present are counted, not added twice");
	return CF_SYSTEM;
}

/*
 * Orders keys by type, then addresses, then prefix length, so that a
 * list reads in address order; any other difference decides last.
 */
static int key_cmp(const void *a, const void *b)
{
	const struct cfilter_key *x = a, *y = b;
	int d = x->type - y->type;

	if (!d)
		d = memcmp(x->saddr, y->saddr, sizeof(x->saddr));
	if (!d)
		d = memcmp(x->daddr, y->daddr, sizeof(x->daddr));
	if (!d)
		d = x->prefix_len - y->prefix_len;
	return d ? d : memcmp(a, b, sizeof(*x));
}

/* Sorts @keys and drops repeats; returns how many distinct keys remain. */
static size_t sort_unique(struct cfilter_key *keys, size_t n)
{
	size_t i, out = 0;

	qsort(keys, n, sizeof(*keys), key_cmp);
	for (i = 0; i < n; i++)
		if (!out || key_cmp(&keys[out - 1], &keys[i]))
			keys[out++] = keys[i];
	return out;
}

/*
 * load --dry-run: may the caller add, and how many entries are new? TEST
 * answers the latter (in compact mode, a false positive counts a new entry
 * as present). Reorders @kl, which is not applied.
 */
static int load_dry_run(int fd, struct key_list *kl, size_t skipped)
{
	size_t n = sort_unique(kl->keys, kl->n), start, present = 0;
	__s32 *results;
	__u32 i, chunk, done;
	int err;

	err = dev_batch(fd, CFILTER_BATCH_ADD, 0, NULL, NULL, 0, &done);
	if (err) {
		dev_report(err, "cannot add");
		return CF_SYSTEM;
	}
	results = malloc(LOAD_BATCH * sizeof(*results));
	if (!results) {
		cf_err("out of memory");
		return CF_SYSTEM;
	}
	for (start = 0; start < n; start += chunk) {
		chunk = n - start < LOAD_BATCH ? n - start : LOAD_BATCH;
		err = dev_batch(fd, CFILTER_BATCH_TEST, 0, kl->keys + start,
				results, chunk, &done);
		if (err)
			break;
		for (i = 0; i < done; i++)
			present += !results[i];
	}
	free(results);
	if (err) {
		dev_report(err, "cannot test the entries");
		return CF_SYSTEM;
	}
	printf("would load %zu entries (%zu to add, %zu already present, %zu skipped); dry run: nothing changed\n",
	       kl->n, n - present, kl->n - (n - present), skipped);
	return CF_OK;
}

int do_load(const struct cfctl_opts *o)
{
	struct key_list kl = { 0 };
	struct load_tally t = { 0 };
	const char *name;
	int fd, err, ret;

	ret = read_list(o, &kl, &name);
	if (ret != CF_OK)
		goto out;
	if (kl.bad && !o->skip_bad) {
		cf_err("%s: %zu malformed line%s: nothing loaded; fix %s, or pass --skip-bad to load the rest",
		       name, kl.bad, kl.bad == 1 ? "" : "s",
		       kl.bad == 1 ? "it" : "them");
		ret = CF_USAGE;
		goto out;
	}
	fd = dev_open(true);
	if (fd < 0) {
		ret = CF_SYSTEM;
		goto out;
	}
	if (o->dry_run) {
		ret = load_dry_run(fd, &kl, kl.bad);
		goto out_close;
	}

	err = load_apply(fd, &kl, 0, &t);
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
	}
out_close:
	close(fd);
out:
	key_list_free(&kl);
	return ret;
}

#define UNTOUCHED	"nothing replaced: the live set is untouched"

/* Stages @kl and commits it. Returns enum cf_exit. */
static int replace_apply(int fd, const char *name, const struct key_list *kl,
			 struct load_tally *t)
{
	char buf[ENTRY_STRLEN];
	int err;

	err = dev_simple(fd, CFILTER_IOC_STAGE);
	if (err) {
		dev_report(err, "cannot stage a new set");
		cf_err(UNTOUCHED);
		return CF_SYSTEM;
	}
	err = load_apply(fd, kl, CFILTER_F_STAGED, t);
	if (t->fail_err) {
		cf_err("%s:%lu: cannot add %s: %s", name,
		       kl->lines[t->first_fail],
		       entry_format(&kl->keys[t->first_fail], buf, sizeof(buf)),
		       t->fail_err == -ENOSPC ? "filter full" :
		       strerror(-t->fail_err));
		if (t->fail_err == -ENOSPC)
			dev_report_full(fd, true, &kl->keys[t->first_fail]);
	} else if (err) {
		dev_report(err, "cannot fill the staged set");
	} else {
		err = dev_simple(fd, CFILTER_IOC_COMMIT);
		if (!err)
			return CF_OK;
		dev_report(err, "cannot commit the staged set");
	}
	/* Closing the file would drop it too; ABORT says so at once. */
	dev_simple(fd, CFILTER_IOC_ABORT);
	cf_err(UNTOUCHED);
	return CF_SYSTEM;
}

int do_replace(const struct cfctl_opts *o)
{
	struct key_list kl = { 0 };
	struct load_tally t = { 0 };
	const char *name;
	int fd, ret;

	ret = read_list(o, &kl, &name);
	if (ret != CF_OK)
		goto out;
	if (kl.bad && !o->skip_bad) {
		cf_err("%s: %zu malformed line%s: %s; fix %s, or pass --skip-bad to replace with the rest",
		       name, kl.bad, kl.bad == 1 ? "" : "s", UNTOUCHED,
		       kl.bad == 1 ? "it" : "them");
		ret = CF_USAGE;
		goto out;
	}
	if (o->dry_run) {
		printf("would replace the filter with %zu entries (%zu skipped); dry run: nothing changed\n",
		       kl.n, kl.bad);
		goto out;
	}
	fd = dev_open(true);
	if (fd < 0) {
		ret = CF_SYSTEM;
		goto out;
	}
	ret = replace_apply(fd, name, &kl, &t);
	if (ret == CF_OK)
		printf("replaced the filter with %zu entries (%zu added, %zu repeated, %zu skipped)\n",
		       kl.n, t.added, t.present, kl.bad);
	close(fd);
out:
	key_list_free(&kl);
	return ret;
}

/*
 * Reads every key LIST gives (compact mode: the prefixes only), sorted;
 * *@mode is the module's. Returns enum cf_exit; on CF_OK the caller frees
 * *@keys.
 */
static int read_all(struct cfilter_key **keys, size_t *n, __u32 *mode)
{
	struct cfilter_info info;
	long got;
	int fd;

	fd = dev_open(false);
	if (fd < 0)
		return CF_SYSTEM;
	got = dev_info(fd, &info);
	*mode = info.mode;
	if (!got)
		got = dev_list_all(fd, keys);
	close(fd);
	if (got < 0) {
		dev_report(got, "cannot list the entries");
		return CF_SYSTEM;
	}
	*n = sort_unique(*keys, got);
	return CF_OK;
}

/* The fields of a flow key, named as in the UAPI. */
static void flow_json(struct json *j, const struct cfilter_key *key)
{
	int af = key->type == CFILTER_KEY_FLOW6 ? AF_INET6 : AF_INET;
	char buf[INET6_ADDRSTRLEN];

	json_kv_uint(j, "proto", key->proto);
	json_kv_string(j, "saddr", inet_ntop(af, key->saddr, buf, sizeof(buf)));
	json_kv_string(j, "daddr", inet_ntop(af, key->daddr, buf, sizeof(buf)));
	if (key->proto == IPPROTO_TCP || key->proto == IPPROTO_UDP) {
		json_kv_uint(j, "sport", ntohs(key->sport));
		json_kv_uint(j, "dport", ntohs(key->dport));
	} else {
		json_kv_uint(j, "icmp_type", ntohs(key->sport));
	}
}

/* One entry: its type, its text form, and its fields. */
static void entry_json(struct json *j, const struct cfilter_key *key)
{
	char buf[ENTRY_STRLEN];
	int af = AF_INET6;

	json_object_begin(j);
	json_kv_string(j, "type", key_type_name(key->type));
	json_kv_string(j, "entry", entry_format(key, buf, sizeof(buf)));
	switch (key->type) {
	case CFILTER_KEY_SRC4:
	case CFILTER_KEY_ALLOW4:
		af = AF_INET;
		/* fall through */
	case CFILTER_KEY_SRC6:
	case CFILTER_KEY_ALLOW6:
		json_kv_string(j, "addr",
			       inet_ntop(af, key->saddr, buf, sizeof(buf)));
		json_kv_uint(j, "prefix_len", key->prefix_len);
		break;
	case CFILTER_KEY_DST4:
		af = AF_INET;
		/* fall through */
	case CFILTER_KEY_DST6:
		json_kv_string(j, "addr",
			       inet_ntop(af, key->daddr, buf, sizeof(buf)));
		json_kv_uint(j, "prefix_len", key->prefix_len);
		break;
	case CFILTER_KEY_FLOW4:
	case CFILTER_KEY_FLOW6:
		flow_json(j, key);
		break;
	default:
		json_kv_uint(j, "type_id", key->type);
	}
	json_object_end(j);
}

static void list_json(const struct cfilter_key *keys, size_t n)
{
	struct json j;
	size_t i;

	json_init(&j, stdout);
	json_object_begin(&j);
	json_key(&j, "entries");
	json_array_begin(&j);
	for (i = 0; i < n; i++)
		entry_json(&j, &keys[i]);
	json_array_end(&j);
	json_object_end(&j);
}

static void list_text(const struct cfilter_key *keys, size_t n)
{
	char buf[ENTRY_STRLEN];
	size_t i;

	for (i = 0; i < n; i++)
		puts(entry_format(&keys[i], buf, sizeof(buf)));
}

int do_list(const struct cfctl_opts *o)
{
	struct cfilter_key *keys;
	__u32 mode;
	size_t n;
	int ret;

	ret = read_all(&keys, &n, &mode);
	if (ret != CF_OK)
		return ret;
	if (mode == CFILTER_MODE_COMPACT)
		cf_err("note: compact mode: only prefixes are listed; addresses and flows are kept as fingerprints, which cannot be listed (cfctl snapshot saves them)");
	if (o->json)
		list_json(keys, n);
	else
		list_text(keys, n);
	free(keys);
	return CF_OK;
}

/* Keys of a type this cfctl cannot write would not load back: refuse. */
static bool all_known(const struct cfilter_key *keys, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (keys[i].type == CFILTER_KEY_NONE ||
		    keys[i].type >= __CFILTER_KEY_MAX) {
			cf_err("the filter holds keys of type %u, which this cfctl cannot write: use the cfctl built with the module",
			       keys[i].type);
			return false;
		}
	}
	return true;
}

int do_save(const struct cfctl_opts *o)
{
	struct cfilter_key *keys;
	char date[32];
	time_t now = time(NULL);
	__u32 mode;
	size_t n;
	int ret;

	(void)o;
	ret = read_all(&keys, &n, &mode);
	if (ret != CF_OK)
		return ret;
	if (mode == CFILTER_MODE_COMPACT) {
		cf_err("filter is in compact mode: its addresses and flows are kept as fingerprints, which cannot be listed or saved as entries: use cfctl snapshot FILE (and cfctl restore FILE) to save and restore it whole");
		free(keys);
		return CF_SYSTEM;
	}
	if (!all_known(keys, n)) {
		free(keys);
		return CF_SYSTEM;
	}
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	printf("# cfilter: %zu entr%s saved by cfctl %s on %s\n", n,
	       n == 1 ? "y" : "ies", CFCTL_VERSION, date);
	list_text(keys, n);
	free(keys);
	return CF_OK;
}
