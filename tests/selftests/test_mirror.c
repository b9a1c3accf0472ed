// SPDX-License-Identifier: GPL-2.0
/*
 * The mirror (CFILTER_IOC_MIRROR, struct cfilter_prefilter_mirror): in
 * compact mode the module keeps a mirror of its IPv4 source table in the
 * program's map, which the program probes itself. Here, through
 * BPF_PROG_TEST_RUN and the maps as the program reads them: held
 * addresses drop in the program (its count in the mirror goes up, and
 * "default"'s with it), every other address gets the module's verdict;
 * deletes, an allow entry, a clear and a replace are followed; a mirror
 * let go keeps its count; a held address is never passed while the
 * writer moves entries about; and maps of another shape, modes without a
 * mirror and bad requests are refused, changing nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include <linux/bpf.h>
#include <linux/cfilter.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cfilter.skel.h"
#include "xdp_stats.h"
#include "helpers.h"
#include "kselftest_harness.h"
#include "harness_timeout.h"
#include "xdp_packets.h"

/* Small, so that the race below fills it. */
#define CAPACITY	4096

FIXTURE(mirror) {
	int fd;
	struct cfilter_bpf *skel;
	int prog_fd;
	struct cfilter_info info;
};

static int load_compact(FIXTURE_DATA(mirror) *self, const char *params)
{
	int err = module_load(params);

	if (err)
		return err;
	self->fd = open(CFILTER_DEVICE, O_RDWR);
	if (self->fd < 0)
		return errno;
	memset(&self->info, 0, sizeof(self->info));
	self->info.size = sizeof(self->info);
	return cf_ioctl(self->fd, CFILTER_IOC_INFO, &self->info);
}

/* The program, sized and handed over as cfctl does. */
static int load_program(FIXTURE_DATA(mirror) *self)
{
	self->skel = xdp_load_private(false);
	if (!self->skel)
		return errno;
	self->prog_fd = bpf_program__fd(self->skel->progs.cfilter_xdp);
	return xdp_hand_over(self->skel, self->fd);
}

FIXTURE_SETUP(mirror)
{
	int err;

	self->fd = -1;
	self->skel = NULL;
	libbpf_set_print(libbpf_print);
	RELOAD_SETUP_UNLOAD();
	err = load_compact(self, "mode=compact fp_bits=16 capacity=4096");
	ASSERT_EQ(0, err) TH_LOG("loading in compact mode: %s", strerror(err));
	err = load_program(self);
	ASSERT_EQ(0, err) TH_LOG("loading and handing over the program: %s (the kfunc needs cfilter.ko with BTF)",
				 strerror(err));
}

FIXTURE_TEARDOWN(mirror)
{
	if (self->skel)
		cfilter_bpf__destroy(self->skel);
	if (self->fd >= 0)
		close(self->fd);
	module_wait_unused();
	RELOAD_TEARDOWN_DEFAULTS();
}

/* The description the module keeps in the program's prefilter. */
static struct cfilter_prefilter_mirror desc_of(struct __test_metadata *_metadata,
					     FIXTURE_DATA(mirror) *self)
{
	const struct bpf_map *m = self->skel->maps.cfilter_prefilter;
	struct cfilter_prefilter_mirror d;
	struct cfilter_prefilter *pf = malloc(bpf_map__value_size(m));
	__u32 zero = 0;

	memset(&d, 0, sizeof(d));
	if (!pf)
		return d;
	if (!bpf_map_lookup_elem(bpf_map__fd(m), &zero, pf))
		d = pf->mirror;
	free(pf);
	return d;
}

static __u64 entry(FIXTURE_DATA(mirror) *self, __u64 i)
{
	__u32 k = i;
	__u64 v = ~0ULL;

	bpf_map_lookup_elem(bpf_map__fd(self->skel->maps.cfilter_mirror), &k, &v);
	return v;
}

/* Drops the program counted in its mirror, every CPU slot. */
static __u64 mirror_drops(FIXTURE_DATA(mirror) *self)
{
	__u64 n = 0;
	unsigned int i;

	for (i = 0; i < CFILTER_MIRROR_SLOTS; i++)
		n += entry(self, i * CFILTER_MIRROR_SLOT_WORDS);
	return n;
}

/* "default"'s count of drops, as cfctl reads it. */
static __u64 default_drops(FIXTURE_DATA(mirror) *self)
{
	struct cfilter_sources s;

	memset(&s, 0, sizeof(s));
	if (cf_ioctl(self->fd, CFILTER_IOC_SOURCES, &s) || !s.count)
		return ~0ULL;
	return s.sources[0].drops;
}

/* Does the mirror hold @addr, as the program probes it (no write under way)? */
static bool mirror_holds(FIXTURE_DATA(mirror) *self,
		       const struct cfilter_prefilter_mirror *d, const char *addr)
{
	__u64 h, b1, b2;
	__u32 a, fp;

	inet_pton(AF_INET, addr, &a);
	h = cfilter_mirror_hash4(a, d->hash_a, d->hash_b);
	fp = cfilter_mirror_fp(h, d->fp_mask);
	b1 = h & d->bucket_mask;
	b2 = cfilter_mirror_alt(b1, fp, d->bucket_mask);
	return cfilter_mirror_holds(entry(self, CFILTER_MIRROR_HEAD + b1), fp) ||
	       cfilter_mirror_holds(entry(self, CFILTER_MIRROR_HEAD + b2), fp);
}

static int key(int fd, unsigned long cmd, __u8 type, const char *addr)
{
	struct cfilter_key_req r = { .key = key_of(type, addr) };

	return cf_ioctl(fd, cmd, &r);
}

static int run(FIXTURE_DATA(mirror) *self, const char *saddr)
{
	struct frame f = frame4(saddr, 5);
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = f.data,
		.data_size_in = f.len,
		.repeat = 1,
	);

	if (bpf_prog_test_run_opts(self->prog_fd, &opts))
		return -errno;
	return opts.retval;
}

/* The module's verdict on a packet from @saddr drops it? */
static bool module_drops(FIXTURE_DATA(mirror) *self, const char *saddr)
{
	struct cfilter_match_req mr;

	memset(&mr, 0, sizeof(mr));
	mr.pkt.family = 4;
	inet_pton(AF_INET, saddr, mr.pkt.saddr);
	if (cf_ioctl(self->fd, CFILTER_IOC_MATCH, &mr))
		return false;
	return CFILTER_VERDICT_DROPS(mr.verdict);
}

/* The @i-th address of /16 @net (10.@net.0.0/16), none ending in 0. */
static void addr_in(char *buf, unsigned int net, unsigned int i)
{
	snprintf(buf, INET_ADDRSTRLEN, "10.%u.%u.%u", net % 256,
		 i / 250 % 256, 1 + i % 250);
}

static void addr_of(char *buf, unsigned int i)
{
	addr_in(buf, 1, i);
}

TEST_F(mirror, is_kept_described_and_ready)
{
	struct cfilter_prefilter_mirror d = desc_of(_metadata, self);
	__u64 buckets = d.bucket_mask + 1;

	ASSERT_NE(0ULL, self->info.mirror_entries);
	EXPECT_EQ(self->info.mirror_entries,
		  bpf_map__max_entries(self->skel->maps.cfilter_mirror));
	EXPECT_EQ(CFILTER_MIRROR_READY, d.ready);
	EXPECT_EQ(0ULL, buckets & (buckets - 1));
	EXPECT_LE((__u64)CAPACITY, buckets * 4);
	EXPECT_EQ(0xffffULL, d.fp_mask);
	EXPECT_EQ((__u64)CFILTER_MIRROR_HEAD + buckets, d.versions);
	EXPECT_EQ(self->info.mirror_entries, d.versions + d.stripe_mask + 1);
}

/*
 * Held addresses drop in the program, counted in the mirror and so for
 * "default"; others, in the same /16s, pass where the module passes them
 * (one sharing a held fingerprint, which the module drops, may still pass
 * the prefilter's hashed bits), and a deleted one passes again.
 */
TEST_F(mirror, held_addresses_drop_in_the_program_and_count_for_default)
{
	enum { HELD = 300, ALL = 1500 };
	struct cfilter_prefilter_mirror d;
	char a[INET_ADDRSTRLEN];
	__u64 drops0 = default_drops(self), others = 0;
	unsigned int i;

	for (i = 0; i < HELD; i++) {
		addr_of(a, i);
		ASSERT_EQ(0, key(self->fd, CFILTER_IOC_ADD, CFILTER_KEY_SRC4, a));
	}
	d = desc_of(_metadata, self);
	for (i = 0; i < HELD; i++) {
		addr_of(a, i);
		ASSERT_TRUE(mirror_holds(self, &d, a)) TH_LOG("%s", a);
		ASSERT_EQ(XDP_DROP, run(self, a)) TH_LOG("%s", a);
	}
	EXPECT_EQ((__u64)HELD, mirror_drops(self));
	EXPECT_EQ(drops0 + HELD, default_drops(self));
	for (i = HELD; i < ALL; i++) {
		int got;

		addr_of(a, i);
		got = run(self, a);
		if (module_drops(self, a)) {
			others++;
			ASSERT_TRUE(got == XDP_DROP || got == XDP_PASS)
				TH_LOG("%s: %d", a, got);
		} else {
			ASSERT_EQ(XDP_PASS, got) TH_LOG("%s", a);
		}
	}
	TH_LOG("%llu of %u others share a held fingerprint", others,
	       ALL - HELD);
	addr_of(a, 7);
	ASSERT_EQ(0, key(self->fd, CFILTER_IOC_DEL, CFILTER_KEY_SRC4, a));
	d = desc_of(_metadata, self);
	EXPECT_FALSE(mirror_holds(self, &d, a));
	EXPECT_EQ(XDP_PASS, run(self, a));
}

/* An allowed source must reach the module: the mirror is off meanwhile. */
TEST_F(mirror, an_allow_entry_turns_the_copy_off_until_it_goes)
{
	ASSERT_EQ(0, key(self->fd, CFILTER_IOC_ADD, CFILTER_KEY_SRC4, "10.9.0.1"));
	ASSERT_EQ(0, key(self->fd, CFILTER_IOC_ADD, CFILTER_KEY_ALLOW4, "10.9.0.1"));
	EXPECT_EQ(0ULL, desc_of(_metadata, self).ready);
	EXPECT_EQ(XDP_PASS, run(self, "10.9.0.1"));
	EXPECT_EQ(0ULL, mirror_drops(self));
	ASSERT_EQ(0, key(self->fd, CFILTER_IOC_DEL, CFILTER_KEY_ALLOW4, "10.9.0.1"));
	EXPECT_EQ(CFILTER_MIRROR_READY, desc_of(_metadata, self).ready);
	EXPECT_EQ(XDP_DROP, run(self, "10.9.0.1"));
	EXPECT_EQ(1ULL, mirror_drops(self));
}

/*
 * A clear publishes a new set, with a new table: the mirror follows it, and
 * "default"'s count outlives the clear as ever.
 */
TEST_F(mirror, a_clear_brings_the_new_table_and_keeps_the_count)
{
	struct cfilter_prefilter_mirror d0, d;

	ASSERT_EQ(0, key(self->fd, CFILTER_IOC_ADD, CFILTER_KEY_SRC4, "10.9.0.1"));
	EXPECT_EQ(XDP_DROP, run(self, "10.9.0.1"));
	d0 = desc_of(_metadata, self);
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_CLEAR, NULL));
	d = desc_of(_metadata, self);
	EXPECT_EQ(CFILTER_MIRROR_READY, d.ready);
	EXPECT_TRUE(d.hash_a != d0.hash_a || d.hash_b != d0.hash_b);
	EXPECT_FALSE(mirror_holds(self, &d, "10.9.0.1"));
	EXPECT_EQ(XDP_PASS, run(self, "10.9.0.1"));
	ASSERT_EQ(0, key(self->fd, CFILTER_IOC_ADD, CFILTER_KEY_SRC4, "10.9.0.2"));
	EXPECT_EQ(XDP_DROP, run(self, "10.9.0.2"));
	EXPECT_EQ(2ULL, mirror_drops(self));
	EXPECT_EQ(2ULL, default_drops(self));
}

/*
 * A snapshot restored (as a boot restores the saved bans) brings addresses
 * the prefilter's hashed bits never saw: every hashed bit is set, and the
 * mirror, filled from the restored table, settles them in the program.
 */
TEST_F(mirror, a_restored_table_is_mirrored_and_settles_in_the_program)
{
	struct cfilter_table t = { .type = CFILTER_KEY_SRC4,
				   .flags = CFILTER_TABLE_MIX32 };
	struct cfilter_prefilter_mirror d;

	ASSERT_EQ(0, key(self->fd, CFILTER_IOC_ADD, CFILTER_KEY_SRC4, "10.9.0.1"));
	ASSERT_EQ(ENOSPC, cf_ioctl(self->fd, CFILTER_IOC_DUMP, &t));
	t.data = (uintptr_t)malloc(t.size);
	ASSERT_NE(0ULL, t.data);
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_DUMP, &t));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_CLEAR, NULL));
	EXPECT_EQ(XDP_PASS, run(self, "10.9.0.1"));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_RESTORE, &t));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	free((void *)(uintptr_t)t.data);
	d = desc_of(_metadata, self);
	EXPECT_EQ(CFILTER_MIRROR_READY, d.ready);
	EXPECT_TRUE(mirror_holds(self, &d, "10.9.0.1"));
	EXPECT_EQ(XDP_DROP, run(self, "10.9.0.1"));
	EXPECT_EQ(1ULL, mirror_drops(self));
	EXPECT_EQ(XDP_PASS, run(self, "10.9.0.2"));
}

/*
 * A program gone, the module lets its maps go at the next handover; the
 * drops counted in its mirror stay "default"'s.
 */
TEST_F(mirror, the_count_of_a_copy_let_go_stays)
{
	ASSERT_EQ(0, key(self->fd, CFILTER_IOC_ADD, CFILTER_KEY_SRC4, "10.9.0.1"));
	EXPECT_EQ(XDP_DROP, run(self, "10.9.0.1"));
	EXPECT_EQ(XDP_DROP, run(self, "10.9.0.1"));
	cfilter_bpf__destroy(self->skel);
	self->skel = NULL;
	EXPECT_EQ(2ULL, default_drops(self));
	ASSERT_EQ(0, load_program(self));
	EXPECT_EQ(2ULL, default_drops(self));
	EXPECT_EQ(XDP_DROP, run(self, "10.9.0.1"));
	EXPECT_EQ(3ULL, default_drops(self));
}

#define RACE_HELD	1000

struct race {
	FIXTURE_DATA(mirror) *self;
	volatile bool stop;
	unsigned long runs;
	unsigned int passed[RACE_HELD];
};

static void *prober(void *arg)
{
	struct race *r = arg;
	char a[INET_ADDRSTRLEN];
	unsigned int i = 0;

	while (!r->stop) {
		addr_of(a, i % RACE_HELD);
		if (run(r->self, a) != XDP_DROP)
			r->passed[i % RACE_HELD]++;
		r->runs++;
		i++;
	}
	return NULL;
}

/*
 * While the writer fills the table to 90% and empties it again, moving
 * entries between buckets, the program never passes a held address: its
 * misses are vouched for by the version, as the core's readers' are.
 * (A compact table may lose a held address for good: deleting an address
 * of the same fingerprint and buckets deletes their one entry. Those the
 * module no longer drops at the end are left out.)
 */
TEST_F(mirror, a_held_address_is_never_passed_while_entries_move)
{
	struct cfilter_prefilter_mirror d = desc_of(_metadata, self);
	struct race r = { .self = self };
	char a[INET_ADDRSTRLEN];
	unsigned int i, round, churn, lost;
	pthread_t th;
	int err;

	/*
	 * An address may find its fingerprint in its buckets already, an
	 * earlier one's (EEXIST): that entry holds both, and is held too.
	 */
	for (i = 0; i < RACE_HELD; i++) {
		addr_of(a, i);
		err = key(self->fd, CFILTER_IOC_ADD, CFILTER_KEY_SRC4, a);
		ASSERT_TRUE(!err || err == EEXIST) TH_LOG("%s: %d", a, err);
	}
	churn = (d.bucket_mask + 1) * 4 * 9 / 10 - RACE_HELD;
	ASSERT_EQ(0, pthread_create(&th, NULL, prober, &r));
	for (round = 0; round < 3; round++) {
		for (i = 0; i < churn; i++) {
			addr_in(a, 2, i);
			key(self->fd, CFILTER_IOC_ADD, CFILTER_KEY_SRC4, a);
		}
		for (i = 0; i < churn; i++) {
			addr_in(a, 2, i);
			key(self->fd, CFILTER_IOC_DEL, CFILTER_KEY_SRC4, a);
		}
	}
	r.stop = true;
	pthread_join(th, NULL);
	TH_LOG("%lu runs during %u rounds", r.runs, round);
	EXPECT_LT(0UL, r.runs);
	for (i = 0, lost = 0; i < RACE_HELD; i++) {
		addr_of(a, i);
		if (!module_drops(self, a)) {
			lost++;
			continue;
		}
		EXPECT_EQ(0U, r.passed[i]) TH_LOG("%s passed", a);
	}
	TH_LOG("%u held addresses lost to a twin's delete", lost);
}

/* Requests and maps the module refuses, changing nothing. */
TEST_F(mirror, bad_requests_and_maps_of_another_shape_are_refused)
{
	struct cfilter_mirror_req r = {
		.prefilter_fd = bpf_map__fd(self->skel->maps.cfilter_prefilter),
	};
	int other_pf, small, big;

	small = bpf_map_create(BPF_MAP_TYPE_ARRAY, "small", 4, 8,
			       self->info.mirror_entries - 1, NULL);
	big = bpf_map_create(BPF_MAP_TYPE_ARRAY, "wide", 4, 16,
			     self->info.mirror_entries, NULL);
	other_pf = bpf_map_create(BPF_MAP_TYPE_ARRAY, "pf", 4,
				  bpf_map__value_size(self->skel->maps.cfilter_prefilter),
				  1, NULL);
	ASSERT_LE(0, small);
	ASSERT_LE(0, big);
	ASSERT_LE(0, other_pf);
	r.mirror_fd = small;
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_MIRROR, &r));
	r.mirror_fd = big;
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_MIRROR, &r));
	r.mirror_fd = bpf_map__fd(self->skel->maps.cfilter_mirror);
	r.flags = 1;
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_MIRROR, &r));
	r.flags = 0;
	r.reserved = 1;
	EXPECT_EQ(EINVAL, cf_ioctl(self->fd, CFILTER_IOC_MIRROR, &r));
	r.reserved = 0;
	r.prefilter_fd = other_pf;
	EXPECT_EQ(ENOENT, cf_ioctl(self->fd, CFILTER_IOC_MIRROR, &r));
	r.prefilter_fd = -1;
	EXPECT_EQ(EBADF, cf_ioctl(self->fd, CFILTER_IOC_MIRROR, &r));
	/* the program's mirror is still kept */
	EXPECT_EQ(CFILTER_MIRROR_READY, desc_of(_metadata, self).ready);
	ASSERT_EQ(0, key(self->fd, CFILTER_IOC_ADD, CFILTER_KEY_SRC4, "10.9.0.1"));
	EXPECT_EQ(XDP_DROP, run(self, "10.9.0.1"));
	EXPECT_EQ(1ULL, mirror_drops(self));
	close(small);
	close(big);
	close(other_pf);
}

/*
 * Exact mode and 8- or 32-bit fingerprints keep no mirror: INFO says 0
 * entries, and a handover is refused.
 */
TEST_F(mirror, modes_without_a_copy_refuse_one)
{
	static const char *const params[] = {
		"", "mode=compact fp_bits=8", "mode=compact fp_bits=32",
	};
	unsigned int i;
	int map, err;

	cfilter_bpf__destroy(self->skel);
	self->skel = NULL;
	for (i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		struct cfilter_mirror_req r = { 0 };

		close(self->fd);
		self->fd = -1;
		ASSERT_EQ(0, module_wait_unused());
		ASSERT_EQ(0, module_unload());
		err = load_compact(self, params[i]);
		ASSERT_EQ(0, err) TH_LOG("%s: %s", params[i], strerror(err));
		EXPECT_EQ(0ULL, self->info.mirror_entries) TH_LOG("%s", params[i]);
		ASSERT_EQ(0, load_program(self)) TH_LOG("%s", params[i]);
		map = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mirror", 4, 8, 4096,
				     NULL);
		ASSERT_LE(0, map);
		r.prefilter_fd = bpf_map__fd(self->skel->maps.cfilter_prefilter);
		r.mirror_fd = map;
		EXPECT_EQ(EOPNOTSUPP, cf_ioctl(self->fd, CFILTER_IOC_MIRROR, &r))
			TH_LOG("%s", params[i]);
		EXPECT_EQ(0ULL, desc_of(_metadata, self).ready);
		close(map);
		cfilter_bpf__destroy(self->skel);
		self->skel = NULL;
	}
}

TEST_HARNESS_MAIN
