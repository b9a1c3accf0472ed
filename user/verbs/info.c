// SPDX-License-Identifier: GPL-2.0
/* The verb info: the filter's settings and fill, per source and key type. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "device/device.h"
#include "lib/addr.h"
#include "lib/json.h"
#include "verbs/verb.h"

static const char *filter_mode_name(__u32 mode)
{
	switch (mode) {
	case CFILTER_MODE_EXACT:
		return "exact";
	case CFILTER_MODE_COMPACT:
		return "compact";
	default:
		return "unknown";
	}
}

static void print_info(const struct cfilter_info *info)
{
	printf("mode: %s\n", filter_mode_name(info->mode));
	printf("capacity: %llu\n", (unsigned long long)info->capacity);
	printf("max_capacity: %llu\n", (unsigned long long)info->max_capacity);
	printf("count: %llu\n", (unsigned long long)info->count);
	printf("load_percent: %u.%02u\n", info->load_ppm / 10000,
	       info->load_ppm % 10000 / 100);
	printf("buckets: %llu\n", (unsigned long long)info->buckets);
	printf("slots_per_bucket: %u\n", info->slots_per_bucket);
	printf("fp_bits: %u\n", info->fp_bits);
	printf("max_kicks: %u\n", info->max_kicks);
	printf("memory_bytes: %llu\n", (unsigned long long)info->memory_bytes);
	printf("insert_failures: %llu\n",
	       (unsigned long long)info->insert_failures);
	printf("grows: %llu\n", (unsigned long long)info->grows);
	printf("prefixes: %llu\n", (unsigned long long)info->prefixes);
	printf("prefix_markers: %llu\n",
	       (unsigned long long)info->prefix_markers);
	printf("timed: %llu\n", (unsigned long long)info->timed);
	printf("mem_used: %llu\n", (unsigned long long)info->mem_used);
	printf("mem_limit: %llu\n", (unsigned long long)info->mem_limit);
}

/* "source NAME: entries N, timed M, drops D" per source, default first. */
static void print_sources(const struct cfilter_sources *s)
{
	unsigned int i;

	for (i = 0; i < s->count && i < CFILTER_SOURCES_MAX; i++)
		printf("source %.*s: entries %llu, timed %llu, drops %llu\n",
		       CFILTER_SOURCE_LEN, s->sources[i].name,
		       (unsigned long long)s->sources[i].entries,
		       (unsigned long long)s->sources[i].timed,
		       (unsigned long long)s->sources[i].drops);
}

static void sources_json(struct json *j, const struct cfilter_sources *s)
{
	char name[CFILTER_SOURCE_LEN + 1];
	unsigned int i;

	json_key(j, "sources");
	json_array_begin(j);
	for (i = 0; i < s->count && i < CFILTER_SOURCES_MAX; i++) {
		snprintf(name, sizeof(name), "%.*s", CFILTER_SOURCE_LEN,
			 s->sources[i].name);
		json_object_begin(j);
		json_kv_string(j, "name", name);
		json_kv_uint(j, "entries", s->sources[i].entries);
		json_kv_uint(j, "timed", s->sources[i].timed);
		json_kv_uint(j, "drops", s->sources[i].drops);
		json_object_end(j);
	}
	json_array_end(j);
}

static void print_type_info(const struct cfilter_type_info *ti)
{
	printf("%s: count %llu, prefixes %llu, lengths %u, markers %llu, probes %u, memory_bytes %llu, capacity %llu\n",
	       key_type_name(ti->type), (unsigned long long)ti->count,
	       (unsigned long long)ti->prefixes, ti->lengths,
	       (unsigned long long)ti->prefix_markers, ti->probes,
	       (unsigned long long)ti->memory_bytes,
	       (unsigned long long)ti->capacity);
}

static void type_info_json(struct json *j, const struct cfilter_type_info *ti)
{
	json_object_begin(j);
	json_kv_string(j, "type", key_type_name(ti->type));
	json_kv_uint(j, "count", ti->count);
	json_kv_uint(j, "prefixes", ti->prefixes);
	json_kv_uint(j, "lengths", ti->lengths);
	json_kv_uint(j, "markers", ti->prefix_markers);
	json_kv_uint(j, "probes", ti->probes);
	json_kv_uint(j, "memory_bytes", ti->memory_bytes);
	json_kv_uint(j, "capacity", ti->capacity);
	json_object_end(j);
}

static void print_info_json(const struct cfilter_info *info,
			    const struct cfilter_sources *sources,
			    const struct cfilter_type_info *types,
			    unsigned int ntypes)
{
	unsigned int i;
	struct json j;

	json_init(&j, stdout);
	json_object_begin(&j);
	json_kv_string(&j, "mode", filter_mode_name(info->mode));
	json_kv_uint(&j, "capacity", info->capacity);
	json_kv_uint(&j, "max_capacity", info->max_capacity);
	json_kv_uint(&j, "count", info->count);
	json_key(&j, "load_percent");
	json_hundredths(&j, info->load_ppm / 100);
	json_kv_uint(&j, "buckets", info->buckets);
	json_kv_uint(&j, "slots_per_bucket", info->slots_per_bucket);
	json_kv_uint(&j, "fp_bits", info->fp_bits);
	json_kv_uint(&j, "max_kicks", info->max_kicks);
	json_kv_uint(&j, "memory_bytes", info->memory_bytes);
	json_kv_uint(&j, "insert_failures", info->insert_failures);
	json_kv_uint(&j, "grows", info->grows);
	json_kv_uint(&j, "prefixes", info->prefixes);
	json_kv_uint(&j, "prefix_markers", info->prefix_markers);
	json_kv_uint(&j, "timed", info->timed);
	json_kv_uint(&j, "mem_used", info->mem_used);
	json_kv_uint(&j, "mem_limit", info->mem_limit);
	sources_json(&j, sources);
	json_key(&j, "types");
	json_array_begin(&j);
	for (i = 0; i < ntypes; i++)
		type_info_json(&j, &types[i]);
	json_array_end(&j);
	json_object_end(&j);
}

int do_info(const struct cfctl_opts *o)
{
	struct dev_state s;
	unsigned int i;
	int fd, err;

	fd = dev_open(false);
	if (fd < 0)
		return CF_SYSTEM;
	err = dev_read_state(fd, &s);
	close(fd);
	if (err) {
		dev_report(err, "cannot read the filter's info");
		return CF_SYSTEM;
	}
	if (o->json) {
		print_info_json(&s.info, &s.sources, s.types, s.ntypes);
	} else {
		print_info(&s.info);
		print_sources(&s.sources);
		for (i = 0; i < s.ntypes; i++)
			print_type_info(&s.types[i]);
	}
	return CF_OK;
}
