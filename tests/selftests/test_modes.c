// SPDX-License-Identifier: GPL-2.0
/*
 * The two filter modes and growth, each test on cfilter.ko reloaded with its
 * own parameters (and reloaded with defaults afterwards):
 * - exact mode gives no false positives, even with 8-bit fingerprints,
 *   where compact mode gives many;
 * - exact mode grows from a tiny table to 100,000 keys, losing none;
 * - compact mode stores no address or flow keys, so LIST shows only
 *   prefixes, but BATCH works;
 * - compact mode's raw tables (DUMP, RESTORE into a staged set, COMMIT)
 *   give back the very same answers, and a bad RESTORE changes nothing.
 * Tests skip when the module cannot be reloaded (an XDP program attached or
 * /dev/cfilter open).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include <linux/cfilter.h>

#include "helpers.h"
#include "kselftest_harness.h"
#include "harness_timeout.h"

#define FP_ADDED	50000
#define FP_PROBED	200000
#define GROW_KEYS	100000

FIXTURE(reload) {
	int fd;
	struct cfilter_key *keys;
	__s32 *results;
};

FIXTURE_SETUP(reload)
{
	self->fd = -1;
	self->keys = calloc(FP_ADDED + FP_PROBED, sizeof(*self->keys));
	self->results = calloc(FP_ADDED + FP_PROBED, sizeof(*self->results));
	ASSERT_NE(NULL, self->keys);
	ASSERT_NE(NULL, self->results);
	RELOAD_SETUP_UNLOAD();
}

FIXTURE_TEARDOWN(reload)
{
	free(self->keys);
	free(self->results);
	if (self->fd >= 0)
		close(self->fd);
	RELOAD_TEARDOWN_DEFAULTS();
}

/* Loads the module with @params and opens the device; 0 or an errno. */
static int load(int *fd, const char *params)
{
	int err = module_load(params);

	if (err)
		return err;
	*fd = open(CFILTER_DEVICE, O_RDWR);
	return *fd < 0 ? errno : 0;
}

/*
 * @n distinct random SRC4 keys: x -> a * x + c (mod 2^32) with a = 1 mod 4
 * and c odd visits every 32-bit value once per period, so no two of the
 * first @n are equal; the random start makes each run use other addresses.
 */
static void random_keys4(struct cfilter_key *keys, unsigned int n)
{
	__u32 x = (__u32)time(NULL) * 2654435761U ^ (__u32)getpid();
	unsigned int i;

	for (i = 0; i < n; i++) {
		x = x * 1664525U + 1013904223U;
		memset(&keys[i], 0, sizeof(keys[i]));
		keys[i].type = CFILTER_KEY_SRC4;
		keys[i].prefix_len = 32;
		memcpy(keys[i].saddr, &x, sizeof(x));
	}
}

/*
 * Adds FP_ADDED random keys, then tests FP_PROBED other ones; returns how
 * many of those the filter calls present (false positives).
 */
static unsigned int false_positives(struct __test_metadata *_metadata,
				    int fd, struct cfilter_key *keys,
				    __s32 *results)
{
	struct cfilter_batch b;
	unsigned int i, hits = 0;

	random_keys4(keys, FP_ADDED + FP_PROBED);
	EXPECT_EQ(0, cf_batch(fd, CFILTER_BATCH_ADD, keys, results, FP_ADDED, &b));
	EXPECT_EQ((__u32)FP_ADDED, b.done);
	/* Compact mode: EEXIST for a key sharing a stored fingerprint. */
	for (i = 0; i < FP_ADDED; i++)
		EXPECT_TRUE(!results[i] || results[i] == -EEXIST);
	EXPECT_EQ(0, cf_batch(fd, CFILTER_BATCH_TEST, keys + FP_ADDED, results,
			      FP_PROBED, &b));
	EXPECT_EQ((__u32)FP_PROBED, b.done);
	for (i = 0; i < FP_PROBED; i++) {
		EXPECT_TRUE(!results[i] || results[i] == -ENOENT);
		hits += !results[i];
	}
	return hits;
}

/*
 * With 8-bit fingerprints, fingerprint matches are frequent; exact mode
 * confirms each against the stored key, so none becomes a false positive.
 */
TEST_F(reload, exact_mode_has_no_false_positives)
{
	unsigned int hits;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, load(&self->fd, "fp_bits=8"));
	hits = false_positives(_metadata, self->fd, self->keys, self->results);
	EXPECT_EQ(0U, hits);
	TH_LOG("exact mode, fp_bits=8: %u false positives in %u lookups",
		       hits, FP_PROBED);
}

/*
 * The same probe in compact mode does find false positives, within the
 * documented bound of 2 * 4 / 2^8 per lookup: the probe above has teeth.
 */
TEST_F(reload, compact_mode_false_positives_within_bound)
{
	unsigned int hits;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, load(&self->fd, "mode=compact fp_bits=8"));
	hits = false_positives(_metadata, self->fd, self->keys, self->results);
	EXPECT_LT(0U, hits);
	EXPECT_GE(FP_PROBED * 8U / 256, hits);
	TH_LOG("compact mode, fp_bits=8: %u false positives in %u lookups (bound %u)",
		       hits, FP_PROBED, FP_PROBED * 8U / 256);
}

/* From a table for 64 keys to 100,000 keys: doublings, nothing lost. */
TEST_F(reload, exact_mode_grows_and_keeps_every_key)
{
	struct cfilter_info info;
	struct cfilter_batch b;
	unsigned int i;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, load(&self->fd, "capacity=64"));
	for (i = 0; i < GROW_KEYS; i++)
		self->keys[i] = nth_key4(i);
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, self->keys,
			      self->results, GROW_KEYS, &b));
	EXPECT_EQ((__u32)GROW_KEYS, b.done);
	EXPECT_EQ((__u32)GROW_KEYS, b.first_error)
		TH_LOG("key %u: %s", b.first_error,
		       strerror(-self->results[b.first_error]));

	ASSERT_EQ(0, cf_info(self->fd, &info));
	EXPECT_EQ((__u64)GROW_KEYS, info.count);
	EXPECT_LT(0ULL, info.grows);
	EXPECT_EQ(0ULL, info.insert_failures);
	EXPECT_LE(GROW_KEYS * 100ULL, info.capacity * 95);
	TH_LOG("64 -> %u keys: %llu grows, %llu slots, %llu bytes",
		       GROW_KEYS, (unsigned long long)info.grows,
		       (unsigned long long)info.capacity,
		       (unsigned long long)info.memory_bytes);

	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_TEST, self->keys,
			      self->results, GROW_KEYS, &b));
	EXPECT_EQ((__u32)GROW_KEYS, b.first_error)
		TH_LOG("key %u lost after growing", b.first_error);
}

TEST_F(reload, compact_mode_lists_prefixes_only)
{
	struct cfilter_key keys[2] = { nth_key4(1), nth_key4(0) };
	struct cfilter_entry out[4];
	struct cfilter_list l = { .entries = (uintptr_t)out, .max = 4 };
	struct cfilter_info info;
	struct cfilter_batch b;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, load(&self->fd, "mode=compact"));
	ASSERT_EQ(0, cf_info(self->fd, &info));
	EXPECT_EQ((__u32)CFILTER_MODE_COMPACT, info.mode);
	keys[1].prefix_len = 8;		/* 10.0.0.0/8 */
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, keys, self->results,
			      2, &b));
	EXPECT_EQ(0, self->results[0]);
	EXPECT_EQ(0, self->results[1]);
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_LIST, &l));
	ASSERT_EQ(1U, l.count);
	EXPECT_EQ(0, memcmp(&keys[1], &out[0].key, sizeof(out[0].key)));
	EXPECT_STREQ("default", out[0].source);
	EXPECT_EQ(0U, out[0].timeout);
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_LIST, &l));
	EXPECT_EQ(0U, l.count);
	/* Batch and single-key ioctls work as in exact mode. */
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_TEST, keys, self->results,
			      2, &b));
	EXPECT_EQ(0, self->results[0]);
	EXPECT_EQ(0, self->results[1]);
}

/* Snapshots of compact tables. */
#define SNAP_ADDRS	1000
#define SNAP_FLOWS	50
#define SNAP_PROBES	20000
#define SNAP_KEYS	(SNAP_ADDRS + SNAP_FLOWS + 2 * SNAP_PROBES)

static const __u8 snap_types[] = {
	CFILTER_KEY_SRC4, CFILTER_KEY_DST6, CFILTER_KEY_FLOW4,
};

/*
 * @keys: SNAP_ADDRS SRC4 addresses, SNAP_FLOWS FLOW4 flows, then as many
 * absent SRC4 and DST6 keys to probe false positives with.
 */
static void snap_keys(struct cfilter_key *keys)
{
	unsigned int i;

	for (i = 0; i < SNAP_ADDRS; i++)
		keys[i] = nth_key4(i);
	for (i = 0; i < SNAP_FLOWS; i++) {
		struct cfilter_key *k = &keys[SNAP_ADDRS + i];

		memset(k, 0, sizeof(*k));
		k->type = CFILTER_KEY_FLOW4;
		k->prefix_len = 32;
		k->proto = 6;
		k->saddr[0] = 192;
		k->daddr[0] = 198;
		k->sport = htons(1024 + i);
		k->dport = htons(443);
	}
	for (i = 0; i < SNAP_PROBES; i++) {
		struct cfilter_key *k = &keys[SNAP_ADDRS + SNAP_FLOWS + 2 * i];

		*k = nth_key4(SNAP_ADDRS + i);
		memset(k + 1, 0, sizeof(*k));
		k[1].type = CFILTER_KEY_DST6;
		k[1].prefix_len = 128;
		k[1].daddr[0] = 0x20;
		k[1].daddr[14] = i >> 8;
		k[1].daddr[15] = i;
	}
}

/*
 * DUMP of @type, as cfctl asks (keeping every flag): a malloc'd buffer
 * (freed by the caller) in @t->data.
 */
static int dump(int fd, __u8 type, struct cfilter_table *t)
{
	void *data;
	int err;

	memset(t, 0, sizeof(*t));
	t->type = type;
	t->flags = CFILTER_TABLE_MIX32;
	err = cf_ioctl(fd, CFILTER_IOC_DUMP, t);
	if (err != ENOSPC)
		return err ? err : EPROTO;	/* size 0 cannot hold a table */
	data = malloc(t->size);
	if (!data)
		return ENOMEM;
	t->data = (uintptr_t)data;
	err = cf_ioctl(fd, CFILTER_IOC_DUMP, t);
	if (err)
		free(data);
	return err;
}

/*
 * DUMP every table, forget everything (CLEAR), then restore as cfctl does:
 * STAGE, RESTORE per type, BATCH STAGED of the listed prefixes, COMMIT.
 * Every key, present or absent, gets the same answer as before, false
 * positives included: the tables are the same bits under the same seeds.
 */
TEST_F(reload, compact_dump_restore_gives_the_same_answers)
{
	struct cfilter_table t[ARRAY_SIZE(snap_types)];
	struct cfilter_key prefixes[2], listed[4];
	struct cfilter_entry entries[4];
	struct cfilter_list l = { .entries = (uintptr_t)entries, .max = 4 };
	struct cfilter_info before, after;
	struct cfilter_batch b;
	__s32 *again;
	unsigned int i;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, load(&self->fd, "mode=compact fp_bits=8 capacity=4096"));
	again = calloc(SNAP_KEYS, sizeof(*again));
	ASSERT_NE(NULL, again);
	snap_keys(self->keys);
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, self->keys,
			      self->results, SNAP_ADDRS + SNAP_FLOWS, &b));
	for (i = 0; i < 40; i++) {	/* DST6 addresses among the probes */
		struct cfilter_key *k = &self->keys[SNAP_ADDRS + SNAP_FLOWS + 2 * i + 1];

		ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, k,
				      self->results, 1, &b));
	}
	prefixes[0] = nth_key4(0);
	prefixes[0].saddr[0] = 172;
	prefixes[0].prefix_len = 12;	/* 172.0.0.0/12 */
	prefixes[1] = prefixes[0];
	prefixes[1].type = CFILTER_KEY_DST4;
	memcpy(prefixes[1].daddr, prefixes[1].saddr, 4);
	memset(prefixes[1].saddr, 0, 4);
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, prefixes,
			      self->results, 2, &b));
	ASSERT_EQ(2U, b.first_error);
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_TEST, self->keys,
			      self->results, SNAP_KEYS, &b));
	ASSERT_EQ(0, cf_info(self->fd, &before));

	for (i = 0; i < ARRAY_SIZE(snap_types); i++) {
		ASSERT_EQ(0, dump(self->fd, snap_types[i], &t[i]));
		EXPECT_EQ(8U, t[i].fp_bits);
		EXPECT_LT(0U, t[i].count);
		/* IPv4 addresses' tables alone take the mixed hash. */
		EXPECT_EQ(snap_types[i] == CFILTER_KEY_SRC4 ?
			  CFILTER_TABLE_MIX32 : 0, t[i].flags);
	}
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_LIST, &l));
	ASSERT_EQ(2U, l.count);
	for (i = 0; i < l.count; i++)
		listed[i] = entries[i].key;

	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_CLEAR, NULL));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
	for (i = 0; i < ARRAY_SIZE(snap_types); i++)
		ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_RESTORE, &t[i]));
	ASSERT_EQ(0, cf_batch_flags(self->fd, CFILTER_BATCH_ADD,
				    CFILTER_F_STAGED, listed, again, l.count,
				    &b));
	ASSERT_EQ(b.count, b.first_error);
	/* Nothing live until the commit. */
	EXPECT_EQ(0, cf_type_count(self->fd, CFILTER_KEY_SRC4, 0));
	EXPECT_EQ((long long)t[0].count + 1,
		  cf_type_count(self->fd, CFILTER_KEY_SRC4, CFILTER_F_STAGED));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));

	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_TEST, self->keys, again,
			      SNAP_KEYS, &b));
	for (i = 0; i < SNAP_KEYS; i++)
		ASSERT_EQ(self->results[i], again[i]) TH_LOG("key %u", i);
	ASSERT_EQ(0, cf_info(self->fd, &after));
	EXPECT_EQ(before.count, after.count);
	EXPECT_EQ(before.prefixes, after.prefixes);
	for (i = 0; i < ARRAY_SIZE(snap_types); i++)
		free((void *)(uintptr_t)t[i].data);
	free(again);
}

/* Each RESTORE below breaks one rule: EINVAL, and the staged set unchanged. */
TEST_F(reload, compact_bad_restore_is_einval_and_changes_nothing)
{
	struct cfilter_table good, bad;
	struct cfilter_key_req req = {
		.key = nth_key4(7),
		.flags = CFILTER_F_STAGED,
	};
	struct cfilter_batch b;
	unsigned char *data, *copy;
	__u64 i, added;
	int c;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, load(&self->fd, "mode=compact capacity=1000"));
	for (i = 0; i < 500; i++)
		self->keys[i] = nth_key4(100 + i);
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, self->keys,
			      self->results, 500, &b));
	/* An address on another's fingerprint is EEXIST, and not counted. */
	for (i = 0, added = 0; i < 500; i++) {
		ASSERT_TRUE(!self->results[i] || self->results[i] == -EEXIST)
			TH_LOG("key %llu: %d", (unsigned long long)i,
			       self->results[i]);
		added += !self->results[i];
	}
	ASSERT_EQ(0, dump(self->fd, CFILTER_KEY_SRC4, &good));
	ASSERT_EQ(added, good.count);
	data = (unsigned char *)(uintptr_t)good.data;
	copy = malloc(good.size * 2);
	ASSERT_NE(NULL, copy);
	memcpy(copy, data, good.size);
	memset(copy + good.size, 0, good.size);

	/* No staged set; then one holding one key. */
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_RESTORE, &good));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req));

	for (c = 0; c < 17; c++) {
		bad = good;
		bad.data = (uintptr_t)copy;
		switch (c) {
		case 0: bad.type = CFILTER_KEY_NONE; break;
		case 1: bad.type = __CFILTER_KEY_MAX; break;
		case 2: bad.pad[1] = 1; break;
		case 3: bad.flags = CFILTER_TABLE_MIX32 << 1; break;
		case 4: bad.pad2 = 1; break;
		case 5: bad.reserved[1] = 1; break;
		case 6: bad.fp_bits = 8; break;
		case 7: bad.buckets = good.buckets - 1; break;
		case 8: bad.buckets = good.buckets * 2;	/* past capacity */
			bad.size = good.size * 2; break;
		case 9: bad.size = good.size - 8; break;
		case 10: bad.size = good.size + 8; break;
		case 11: bad.size = 0; break;
		case 12: bad.count = good.count + 1; break;
		case 13: bad.count = good.count - 1; break;
		case 14: /* a slot emptied behind the count's back */
			i = 0;
			while (i < good.size && !copy[i])
				i++;
			copy[i & ~1ULL] = 0;
			copy[i | 1] = 0;
			break;
		case 15: bad.flags |= 1U << 31; break;
		case 16: bad.flags |= CFILTER_TABLE_HASH32; break; /* two hashes */
		}
		EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_RESTORE, &bad))
			TH_LOG("case %d", c);
		memcpy(copy, data, good.size);
		EXPECT_EQ(1, cf_type_count(self->fd, CFILTER_KEY_SRC4,
					   CFILTER_F_STAGED)) TH_LOG("case %d", c);
	}
	/* The live set was never touched; the good table still restores. */
	EXPECT_EQ((long long)added, cf_type_count(self->fd, CFILTER_KEY_SRC4, 0));
	bad = good;
	bad.data = (uintptr_t)copy;
	EXPECT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_RESTORE, &bad));
	EXPECT_EQ((long long)added,
		  cf_type_count(self->fd, CFILTER_KEY_SRC4, CFILTER_F_STAGED));

	/* The 4-byte keys' hashes are not for an IPv6 table. */
	free(data);
	ASSERT_EQ(0, dump(self->fd, CFILTER_KEY_SRC6, &good));
	data = (unsigned char *)(uintptr_t)good.data;
	EXPECT_EQ(0U, good.flags);
	bad = good;
	bad.flags = CFILTER_TABLE_HASH32;
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_RESTORE, &bad));
	bad.flags = CFILTER_TABLE_MIX32;
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_RESTORE, &bad));
	EXPECT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_RESTORE, &good));
	EXPECT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ABORT, NULL));
	free(copy);
	free(data);
}

TEST_F(reload, compact_dump_arguments)
{
	struct cfilter_table t;
	unsigned char small[16];
	unsigned int i;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, load(&self->fd, "mode=compact capacity=1000"));
	memset(&t, 0, sizeof(t));
	t.type = CFILTER_KEY_FLOW6;
	t.data = (uintptr_t)small;
	t.size = sizeof(small);
	memset(small, 0xa5, sizeof(small));
	/* Too small: ENOSPC, the size needed, nothing written. */
	EXPECT_EQ(ENOSPC, cf_ioctl(self->fd, CFILTER_IOC_DUMP, &t));
	EXPECT_LT(sizeof(small), t.size);
	EXPECT_EQ(0xa5, small[0]);
	EXPECT_EQ(0U, t.buckets);
	t.size = sizeof(small);
	t.type = 0;
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_DUMP, &t));
	t.type = CFILTER_KEY_FLOW6;
	t.reserved[0] = 1;
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_DUMP, &t));
	t.reserved[0] = 0;
	t.pad[0] = 1;
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_DUMP, &t));
	t.pad[0] = 0;
	t.flags = CFILTER_TABLE_MIX32 << 1;	/* no such flag */
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_DUMP, &t));

	/*
	 * A caller that cannot keep the mixed hash (cfctl before it: flags
	 * CFILTER_TABLE_HASH32 or none) gets no IPv4 table, whose
	 * fingerprints it would restore under another hash: EPROTO, nothing
	 * written. Passed in, a flag only permits: any other table is given
	 * as before.
	 */
	t.type = CFILTER_KEY_SRC4;
	t.size = sizeof(small);
	for (i = 0; i < 2; i++) {
		t.flags = i ? CFILTER_TABLE_HASH32 : 0;
		EXPECT_EQ(EPROTO, cf_ioctl(self->fd, CFILTER_IOC_DUMP, &t));
		EXPECT_EQ(sizeof(small), t.size);
		EXPECT_EQ(0xa5, small[0]);
	}
	t.flags = CFILTER_TABLE_HASH32 | CFILTER_TABLE_MIX32;
	EXPECT_EQ(ENOSPC, cf_ioctl(self->fd, CFILTER_IOC_DUMP, &t));
	t.type = CFILTER_KEY_SRC6;
	t.size = sizeof(small);
	t.flags = CFILTER_TABLE_MIX32;
	EXPECT_EQ(ENOSPC, cf_ioctl(self->fd, CFILTER_IOC_DUMP, &t));
}

/*
 * prefix_levels4= and prefix_levels6= are gone with prefix expansion: a
 * modprobe.d line that still sets them loads, with the kernel's warning,
 * and prefixes of any length match.
 */
TEST_F(reload, old_prefix_levels_params_load_and_prefixes_match)
{
	struct cfilter_key keys[2] = { nth_key4(0), nth_key4(0) };
	struct cfilter_match_req mr = { .pkt = { .family = 4 } };
	struct cfilter_type_info ti = { .type = CFILTER_KEY_SRC4 };
	struct cfilter_batch b;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, load(&self->fd, "prefix_levels4=1 prefix_levels6=8"));

	keys[0].prefix_len = 8;		/* 10.0.0.0/8 */
	keys[1].saddr[0] = 192;		/* 192.0.0.0/17 */
	keys[1].prefix_len = 17;
	ASSERT_EQ(0, cf_batch(self->fd, CFILTER_BATCH_ADD, keys, self->results,
			      2, &b));
	ASSERT_EQ(2U, b.first_error);
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_TYPE_INFO, &ti));
	EXPECT_EQ(2, ti.lengths);
	/* /17 leaves a marker at /16 */
	EXPECT_EQ(1ULL, ti.prefix_markers);
	EXPECT_EQ(2ULL, ti.prefixes);
	mr.pkt.saddr[0] = 10;
	mr.pkt.saddr[1] = 200;
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_MATCH, &mr));
	EXPECT_EQ((__u32)CFILTER_DROP_PREFIX, mr.verdict);
	mr.pkt.saddr[0] = 192;
	mr.pkt.saddr[1] = 0;
	mr.pkt.saddr[2] = 127;
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_MATCH, &mr));
	EXPECT_EQ((__u32)CFILTER_DROP_PREFIX, mr.verdict);
	mr.pkt.saddr[2] = 128;
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_MATCH, &mr));
	EXPECT_EQ((__u32)CFILTER_PASS, mr.verdict);
	mr.pkt.saddr[0] = 11;
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_MATCH, &mr));
	EXPECT_EQ((__u32)CFILTER_PASS, mr.verdict);
}

TEST_HARNESS_MAIN
