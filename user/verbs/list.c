// SPDX-License-Identifier: GPL-2.0
/* cfctl list and cfctl save: every holding of the filter, through LIST. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "device/device.h"
#include "lib/addr.h"
#include "lib/deadline.h"
#include "lib/json.h"
#include "lib/source_name.h"
#include "verbs/verb.h"

/*
 * Sources in the order save and list print them: "default" first, then
 * by name.
 */
static int source_cmp(const char *x, const char *y)
{
	bool dx = !strcmp(x, SOURCE_DEFAULT), dy = !strcmp(y, SOURCE_DEFAULT);

	if (dx != dy)
		return dx ? -1 : 1;
	return strncmp(x, y, CFILTER_SOURCE_LEN);
}

/* list's order: by entry, each entry's holdings by source. */
static int entry_cmp(const void *a, const void *b)
{
	const struct cfilter_entry *x = a, *y = b;
	int d = key_cmp(&x->key, &y->key);

	return d ? d : source_cmp(x->source, y->source);
}

/* save's order: by source, then by entry. */
static int saved_cmp(const void *a, const void *b)
{
	const struct cfilter_entry *x = a, *y = b;
	int d = source_cmp(x->source, y->source);

	return d ? d : key_cmp(&x->key, &y->key);
}

/*
 * Reads every holding LIST gives of @o->source, or of every source
 * (compact mode: the prefixes), sorted by @cmp without repeats; *@mode is
 * the module's, *@listed the boot time their timeouts count from. Returns
 * enum cf_exit; on CF_OK the caller frees *@entries.
 */
static int read_all(const char *verb, const struct cfctl_opts *o,
		    int (*cmp)(const void *, const void *),
		    struct cfilter_entry **entries, size_t *n, __u32 *mode,
		    int64_t *listed)
{
	struct cfilter_entry *e = NULL;
	struct cfilter_info info;
	size_t i, out = 0;
	long got;
	int fd;

	fd = dev_open(false);
	if (fd < 0)
		return CF_SYSTEM;
	got = dev_info(fd, &info);
	*mode = info.mode;
	if (!got)
		got = dev_list_all(fd, o->source, &e, listed);
	close(fd);
	if (got == -ENOENT && o->source) {
		cf_err("%s: the filter has no source '%s': cfctl info lists its sources",
		       verb, o->source);
		return CF_USAGE;
	}
	if (got < 0) {
		dev_report(got, "cannot list the entries");
		return CF_SYSTEM;
	}
	qsort(e, got, sizeof(*e), cmp);
	for (i = 0; i < (size_t)got; i++)
		if (!out || cmp(&e[out - 1], &e[i]))
			e[out++] = e[i];
	*entries = e;
	*n = out;
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

/* One holding: its type, its text form, its fields, source and timeout. */
static void entry_json(struct json *j, const struct cfilter_entry *e)
{
	const struct cfilter_key *key = &e->key;
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
	json_kv_string(j, "source", e->source);
	json_kv_uint(j, "timeout", e->timeout);
	json_object_end(j);
}

static void list_json(const struct cfilter_entry *e, size_t n)
{
	struct json j;
	size_t i;

	json_init(&j, stdout);
	json_object_begin(&j);
	json_key(&j, "entries");
	json_array_begin(&j);
	for (i = 0; i < n; i++)
		entry_json(&j, &e[i]);
	json_array_end(&j);
	json_object_end(&j);
}

/*
 * One holding per line, as the options and words of the cfctl add that
 * would make it: "[-s SOURCE] [-t SECONDS-LEFT] ENTRY", -s left out when
 * it is "default" or the one listed.
 */
static void list_text(const struct cfilter_entry *e, size_t n, bool one)
{
	char buf[ENTRY_STRLEN];
	size_t i;

	for (i = 0; i < n; i++) {
		if (!one && strcmp(e[i].source, SOURCE_DEFAULT))
			printf("-s %s ", e[i].source);
		if (e[i].timeout)
			printf("-t %u ", e[i].timeout);
		puts(entry_format(&e[i].key, buf, sizeof(buf)));
	}
}

int do_list(const struct cfctl_opts *o)
{
	struct cfilter_entry *e;
	int64_t listed;
	__u32 mode;
	size_t n;
	int ret;

	ret = read_all("list", o, entry_cmp, &e, &n, &mode, &listed);
	if (ret != CF_OK)
		return ret;
	if (mode == CFILTER_MODE_COMPACT)
		cf_err("note: compact mode: only prefixes are listed; addresses and flows are kept as fingerprints, which cannot be listed (cfctl snapshot saves them)");
	if (o->json)
		list_json(e, n);
	else
		list_text(e, n, o->source != NULL);
	free(e);
	return CF_OK;
}

/* Keys of a type this cfctl cannot write would not load back: refuse. */
static bool all_known(const struct cfilter_entry *e, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (e[i].key.type == CFILTER_KEY_NONE ||
		    e[i].key.type >= __CFILTER_KEY_MAX) {
			cf_err("the filter holds keys of type %u, which this cfctl cannot write: use the cfctl built with the module",
			       e[i].key.type);
			return false;
		}
	}
	return true;
}

/* The header comment of save: what follows, and where it comes from. */
static void save_header(const struct cfctl_opts *o,
			const struct cfilter_entry *e, size_t n, time_t now)
{
	unsigned int sources = 0;
	char date[32];
	size_t i;

	for (i = 0; i < n; i++)
		sources += !i || strcmp(e[i].source, e[i - 1].source);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	if (o->source)
		printf("# cfilter: %zu entr%s of source %s saved by cfctl %s on %s\n",
		       n, n == 1 ? "y" : "ies", o->source, CFCTL_VERSION, date);
	else
		printf("# cfilter: %zu entr%s of %u source%s saved by cfctl %s on %s\n",
		       n, n == 1 ? "y" : "ies", sources, sources == 1 ? "" : "s",
		       CFCTL_VERSION, date);
}

/*
 * What load reads back: per source a "source NAME" line (none with -s),
 * then its entries, a timed one ending in "expires UNIXTIME".
 */
int do_save(const struct cfctl_opts *o)
{
	struct cfilter_entry *e;
	char buf[ENTRY_STRLEN];
	struct clocks now;
	int64_t listed;
	__u32 mode;
	size_t n, i;
	int ret;

	ret = read_all("save", o, saved_cmp, &e, &n, &mode, &listed);
	if (ret != CF_OK)
		return ret;
	if (mode == CFILTER_MODE_COMPACT) {
		cf_err("filter is in compact mode: its addresses and flows are kept as fingerprints, which cannot be listed or saved as entries: use cfctl snapshot FILE (and cfctl restore FILE) to save and restore it whole");
		free(e);
		return CF_SYSTEM;
	}
	if (!all_known(e, n)) {
		free(e);
		return CF_SYSTEM;
	}
	clocks_now(&now);
	save_header(o, e, n, clocks_epoch(&now));
	for (i = 0; i < n; i++) {
		if (!o->source && (!i || strcmp(e[i].source, e[i - 1].source)))
			printf("source %s\n", e[i].source);
		entry_format(&e[i].key, buf, sizeof(buf));
		if (e[i].timeout)
			printf("%s expires %lld\n", buf, (long long)
			       deadline_of(&now, listed, e[i].timeout));
		else
			puts(buf);
	}
	free(e);
	return CF_OK;
}
