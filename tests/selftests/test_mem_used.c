// SPDX-License-Identifier: GPL-2.0
/*
 * The memory bound (max_memory=) holds only if mem_used counts what the
 * module takes. mem_used (CFILTER_IOC_INFO) is held against the kernel's
 * own growth: the slab objects in use (/proc/slabinfo), kmallocs too large
 * for a cache, vmalloc areas and per-CPU chunks (/proc/meminfo), after
 * the CPUs' cached objects are given back. For empty sets (STAGE) and for filled ones
 * (every prefix length, flows, allow keys, several sources and
 * timeouts). And the copies of a table DUMP and RESTORE make are counted
 * while they exist: seen while each waits on the caller's memory.
 *
 * The module is loaded with small tables (capacity=1024), so that what a
 * set takes besides its tables weighs as much as they do.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/cfilter.h>
#include <linux/userfaultfd.h>

#include "kselftest_harness.h"
#include "harness_timeout.h"
#include "helpers.h"
#include "slab_shrink.h"

/* Sets staged at once: their sum stands out of the kernel's own noise. */
#define NSETS		4
#define SOURCES		3

/*
 * What mem_used may be off from the kernel's growth, for NSETS sets. Slab
 * objects are counted one by one, so what remains is the kernel's own
 * activity meanwhile, the objects the CPUs keep at hand after a shrink,
 * and the sets' vmalloc bookkeeping (a vm_struct, a vmap_area and a page
 * array per area). Before mem_used counted struct cuckoo and its queue,
 * struct prefix_set and kmalloc's rounding, four empty sets were off by
 * more than 1 MiB.
 */
#define SLACK		(256 << 10)

/* Kernel memory is read again until two reads this far apart agree. */
#define SETTLE_MS	200
#define SETTLE_BYTES	(16 << 10)
#define SETTLE_TRIES	25

/*
 * The parts of the kernel's memory that hold the module's. Slab objects
 * are counted in use, not by the slabs that hold them: a slab left partly
 * used by an earlier test takes new objects without growing, and keeps
 * its pages when they are freed (seen on 7.2 after the whole suite: 464
 * KiB of four empty sets went unseen in the Slab line of /proc/meminfo).
 */
enum part { OBJECTS, LARGE, VMALLOC, PERCPU, PARTS };
static const char *const part_name[PARTS] = {
	"slab objects", "large kmallocs", "vmalloc", "per-CPU",
};

/* The value of @name in /proc/meminfo, in bytes; -1 if missing. */
static long long meminfo(const char *name)
{
	long long kb, v = -1;
	size_t len = strlen(name);
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':' &&
		    sscanf(line + len + 1, "%lld", &kb) == 1)
			v = kb << 10;
	fclose(f);
	return v;
}

/*
 * The bytes of the objects in use in every slab cache (*@objects) and of
 * the pages of their slabs (*@slabs), from /proc/slabinfo; 0 on success.
 */
static int slabinfo(long long *objects, long long *slabs)
{
	unsigned long long active, size, pages, nslabs;
	char line[512], name[64];
	FILE *f = fopen("/proc/slabinfo", "r");
	int found = 0;

	if (!f)
		return -1;
	*objects = *slabs = 0;
	while (fgets(line, sizeof(line), f)) {
		/* name active_objs num_objs objsize objperslab pagesperslab
		 * : tunables ... : slabdata active_slabs num_slabs ... */
		if (sscanf(line, "%63s %llu %*u %llu %*u %llu : tunables %*u %*u %*u "
			   ": slabdata %*u %llu", name, &active, &size, &pages,
			   &nslabs) != 5)
			continue;
		*objects += active * size;
		*slabs += nslabs * pages * getpagesize();
		found++;
	}
	fclose(f);
	return found ? 0 : -1;
}

/* Each part's bytes into @v; their sum, or -1 if one is unread. */
static long long memory_now(long long v[PARTS])
{
	long long slab = meminfo("Slab"), slabs;

	if (slab < 0 || slabinfo(&v[OBJECTS], &slabs))
		return -1;
	/* The Slab line counts the pages of kmallocs too large for a cache. */
	v[LARGE] = slab - slabs;
	v[VMALLOC] = meminfo("VmallocUsed");
	v[PERCPU] = meminfo("Percpu");
	if (v[VMALLOC] < 0 || v[PERCPU] < 0)
		return -1;
	return v[OBJECTS] + v[LARGE] + v[VMALLOC] + v[PERCPU];
}

/*
 * The kernel's memory once frees under way (after RCU) have settled; each
 * field's part in @v.
 */
static long long kernel_memory(long long v[PARTS])
{
	long long a, b = -1;
	unsigned int i;

	slab_shrink_all();
	a = memory_now(v);
	for (i = 0; a >= 0 && i < SETTLE_TRIES; i++) {
		sleep_ms(SETTLE_MS);
		slab_shrink_all();
		b = memory_now(v);
		if (llabs(b - a) < SETTLE_BYTES)
			break;
		a = b;
	}
	return b;
}

static long long mem_used(int fd)
{
	struct cfilter_info info;

	return cf_info(fd, &info) ? -1 : (long long)info.mem_used;
}

FIXTURE(mem) {
	int fd[NSETS];
};

FIXTURE_SETUP(mem)
{
	int i, err;

	for (i = 0; i < NSETS; i++)
		self->fd[i] = -1;
	RELOAD_SETUP_UNLOAD();
	err = module_load("capacity=1024");
	ASSERT_EQ(0, err) TH_LOG("loading with capacity=1024: %s", strerror(err));
	for (i = 0; i < NSETS; i++) {
		self->fd[i] = open(CFILTER_DEVICE, O_RDWR);
		ASSERT_LE(0, self->fd[i]);
	}
}

FIXTURE_TEARDOWN(mem)
{
	int i;

	for (i = 0; i < NSETS; i++)
		if (self->fd[i] >= 0)
			close(self->fd[i]);
	RELOAD_TEARDOWN_DEFAULTS();
}

/* The last reading: mem_used and the kernel's memory. */
struct reading {
	long long used, kernel, part[PARTS];
};

/*
 * Reads both again and checks that mem_used grew as the kernel's memory
 * did since @r (which it then holds), within SLACK.
 */
static void grew_alike(struct __test_metadata *_metadata, int fd,
		       struct reading *r, const char *what)
{
	struct reading now;

	now.kernel = kernel_memory(now.part);
	now.used = mem_used(fd);
	ASSERT_LE(0, now.kernel);
	ASSERT_LE(0, now.used);
	TH_LOG("%s: mem_used grew %lld KiB, the kernel's memory %lld KiB "
	       "(%s %lld, %s %lld, %s %lld, %s %lld)",
	       what, (now.used - r->used) >> 10, (now.kernel - r->kernel) >> 10,
	       part_name[0], (now.part[0] - r->part[0]) >> 10,
	       part_name[1], (now.part[1] - r->part[1]) >> 10,
	       part_name[2], (now.part[2] - r->part[2]) >> 10,
	       part_name[3], (now.part[3] - r->part[3]) >> 10);
	EXPECT_GE(SLACK, llabs((now.used - r->used) - (now.kernel - r->kernel)));
	*r = now;
}

/* @n keys of @type with a prefix of every length, and @n addresses. */
static unsigned int prefixes(struct cfilter_key *k, __u8 type, unsigned int n)
{
	bool v6 = type_is_v6(type);
	bool dst = type == CFILTER_KEY_DST4 || type == CFILTER_KEY_DST6;
	unsigned int bits = v6 ? 128 : 32, i, len, b;
	__u8 *a;

	for (i = 0; i < n; i++) {
		memset(&k[i], 0, sizeof(k[i]));
		k[i].type = type;
		len = i < bits ? i + 1 : bits;
		k[i].prefix_len = len;
		a = dst ? k[i].daddr : k[i].saddr;
		/* Distinct bits everywhere, then the host bits cleared. */
		for (b = 0; b < bits / 8; b++)
			a[b] = (i * 37 + b * 101 + 0x5a) ^ (b ? 0 : 0x20);
		a[bits / 8 - 1] ^= i;
		a[bits / 8 - 2] ^= i >> 8;
		for (b = len; b < bits; b++)
			a[b / 8] &= ~(0x80 >> (b % 8));
	}
	return n;
}

/* @n flows of @type. */
static unsigned int flows(struct cfilter_key *k, __u8 type, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		k[i] = flow_key(type, type == CFILTER_KEY_FLOW4 ? AF_INET : AF_INET6,
				type == CFILTER_KEY_FLOW4 ? "192.0.2.1" : "2001:db8::1",
				type == CFILTER_KEY_FLOW4 ? "198.51.100.1" : "2001:db8::2",
				IPPROTO_TCP, 1024 + i, 443);
	return n;
}

/* Adds every kind of key to the set staged on @fd, from SOURCES sources. */
static void fill(struct __test_metadata *_metadata, int fd)
{
	static struct cfilter_key k[2400];
	static __s32 res[2400];
	static __u32 timeouts[2400];
	struct cfilter_batch b;
	unsigned int n = 0, i, s;

	n += prefixes(k + n, CFILTER_KEY_SRC6, 400);
	n += prefixes(k + n, CFILTER_KEY_SRC4, 400);
	n += prefixes(k + n, CFILTER_KEY_DST6, 300);
	n += prefixes(k + n, CFILTER_KEY_DST4, 300);
	n += prefixes(k + n, CFILTER_KEY_ALLOW6, 200);
	n += prefixes(k + n, CFILTER_KEY_ALLOW4, 200);
	n += flows(k + n, CFILTER_KEY_FLOW4, 300);
	n += flows(k + n, CFILTER_KEY_FLOW6, 300);
	for (i = 0; i < n; i++)
		timeouts[i] = i % 3 ? 0 : 3600;
	for (s = 0; s < SOURCES; s++) {
		memset(&b, 0, sizeof(b));
		b.op = CFILTER_BATCH_ADD;
		b.flags = CFILTER_F_STAGED;
		b.keys = (uintptr_t)k;
		b.results = (uintptr_t)res;
		b.timeouts = (uintptr_t)timeouts;
		b.count = n;
		snprintf(b.source, sizeof(b.source), "feed%u", s);
		ASSERT_EQ(0, cf_ioctl(fd, CFILTER_IOC_BATCH, &b));
		ASSERT_EQ(n, b.first_error) TH_LOG("key %u: %s", b.first_error,
						    strerror(-res[b.first_error]));
	}
}

TEST_F(mem, mem_used_follows_the_kernels_growth_for_empty_and_full_sets)
{
	struct reading r;
	int i;

	/*
	 * KASAN's metadata beside each object and kmemleak's record of each
	 * allocation (make check-debug's kernel) grow the kernel's memory by
	 * about a third more than what the module asked for.
	 */
	if (getenv("SELFTESTS_ALLOC_DEBUG"))
		SKIP(return, "SELFTESTS_ALLOC_DEBUG: the kernel's allocator adds memory of its own to each allocation");
	r.kernel = kernel_memory(r.part);
	r.used = mem_used(self->fd[0]);
	for (i = 0; i < NSETS; i++)
		ASSERT_EQ(0, cf_ioctl(self->fd[i], CFILTER_IOC_STAGE, NULL));
	grew_alike(_metadata, self->fd[0], &r, "empty sets");
	for (i = 0; i < NSETS; i++)
		fill(_metadata, self->fd[i]);
	grew_alike(_metadata, self->fd[0], &r, "filled sets");
	for (i = 0; i < NSETS; i++)
		ASSERT_EQ(0, cf_ioctl(self->fd[i], CFILTER_IOC_ABORT, NULL));
	grew_alike(_metadata, self->fd[0], &r, "sets dropped");
}

/* Compact mode, for DUMP and RESTORE: the module reloaded, the device open. */
FIXTURE(compact) {
	int fd;
};

FIXTURE_SETUP(compact)
{
	int err;

	self->fd = -1;
	RELOAD_SETUP_UNLOAD();
	err = module_load("mode=compact");
	ASSERT_EQ(0, err) TH_LOG("loading in compact mode: %s", strerror(err));
	self->fd = open(CFILTER_DEVICE, O_RDWR);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(compact)
{
	if (self->fd >= 0)
		close(self->fd);
	RELOAD_TEARDOWN_DEFAULTS();
}

/* DUMP or RESTORE of @t on @fd, in a thread of its own. */
struct table_call {
	int fd;
	unsigned long cmd;
	struct cfilter_table *t;
	int err;
};

static void *table_thread(void *p)
{
	struct table_call *c = p;

	c->err = cf_ioctl(c->fd, c->cmd, c->t);
	return NULL;
}

/*
 * Anonymous memory of @len bytes behind a userfaultfd (*@uffd) that
 * serves no fault until told to: an ioctl copying to or from it waits.
 */
static void *waiting_memory(size_t len, int *uffd)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	void *buf;

	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return NULL;
	*uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	reg.range.start = (uintptr_t)buf;
	reg.range.len = len;
	if (*uffd < 0 || ioctl(*uffd, UFFDIO_API, &api) ||
	    ioctl(*uffd, UFFDIO_REGISTER, &reg)) {
		munmap(buf, len);
		return NULL;
	}
	return buf;
}

/* Waits (10 s at most) until a copy faults on @uffd's memory. */
static bool copy_waits(int uffd)
{
	struct pollfd p = { .fd = uffd, .events = POLLIN };
	struct uffd_msg msg;

	return poll(&p, 1, 10000) == 1 &&
	       read(uffd, &msg, sizeof(msg)) == sizeof(msg) &&
	       msg.event == UFFD_EVENT_PAGEFAULT;
}

/*
 * A compact table is a power of two of bytes, which the allocator takes
 * as asked: DUMP's copy of it, and RESTORE's of the caller's data, count
 * exactly that while they exist, and nothing once the call returned.
 */
TEST_F(compact, the_copies_dump_and_restore_make_are_counted)
{
	struct cfilter_key_req req = { .key = key_of(CFILTER_KEY_SRC4, "192.0.2.1") };
	struct table_call call = { .fd = self->fd };
	struct uffdio_copy fill = { .mode = 0 };
	struct cfilter_table t, saved;
	long long before, waiting;
	pthread_t thread;
	size_t len;
	void *buf, *table;
	int uffd;

	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_ADD, &req));
	memset(&t, 0, sizeof(t));
	t.type = CFILTER_KEY_SRC4;
	t.flags = CFILTER_TABLE_MIX32;
	ASSERT_EQ(ENOSPC, cf_ioctl(self->fd, CFILTER_IOC_DUMP, &t));
	len = (t.size + getpagesize() - 1) / getpagesize() * getpagesize();
	table = aligned_alloc(getpagesize(), len);
	ASSERT_NE(NULL, table);
	t.data = (uintptr_t)table;
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_DUMP, &t));
	saved = t;

	/* DUMP, its copy waiting to go out. */
	buf = waiting_memory(len, &uffd);
	ASSERT_NE(NULL, buf) TH_LOG("userfaultfd: %s", strerror(errno));
	before = mem_used(self->fd);
	t.data = (uintptr_t)buf;
	call.cmd = CFILTER_IOC_DUMP;
	call.t = &t;
	ASSERT_EQ(0, pthread_create(&thread, NULL, table_thread, &call));
	ASSERT_TRUE(copy_waits(uffd)) TH_LOG("DUMP never touched its buffer");
	waiting = mem_used(self->fd);
	close(uffd);
	pthread_join(thread, NULL);
	EXPECT_EQ(0, call.err);
	EXPECT_EQ((long long)saved.size, waiting - before);
	EXPECT_EQ(before, mem_used(self->fd));
	EXPECT_EQ(0, memcmp(buf, table, saved.size));
	munmap(buf, len);

	/* RESTORE, its copy of the data waiting to come in. */
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_STAGE, NULL));
	buf = waiting_memory(len, &uffd);
	ASSERT_NE(NULL, buf);
	before = mem_used(self->fd);
	t = saved;
	t.data = (uintptr_t)buf;
	call.cmd = CFILTER_IOC_RESTORE;
	ASSERT_EQ(0, pthread_create(&thread, NULL, table_thread, &call));
	ASSERT_TRUE(copy_waits(uffd)) TH_LOG("RESTORE never read its data");
	waiting = mem_used(self->fd);
	/* The data comes in: the table as DUMP gave it. */
	fill.dst = (uintptr_t)buf;
	fill.src = (uintptr_t)table;
	fill.len = len;
	EXPECT_EQ(0, ioctl(uffd, UFFDIO_COPY, &fill));
	pthread_join(thread, NULL);
	close(uffd);
	EXPECT_EQ(0, call.err);
	EXPECT_EQ((long long)saved.size, waiting - before);
	/* The restored table replaced one of the same size. */
	EXPECT_EQ(before, mem_used(self->fd));
	ASSERT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_COMMIT, NULL));
	EXPECT_EQ(0, cf_ioctl(self->fd, CFILTER_IOC_TEST, &req));
	munmap(buf, len);
	free(table);
}

TEST_HARNESS_MAIN
