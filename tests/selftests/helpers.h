/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every C selftest shares: the small ioctl, sysfs, key and packet
 * helpers, fixtures that start from an empty filter, and reloading
 * cfilter.ko with chosen parameters for the selftests that need a module
 * configured their way (test_full, test_modes). Reloading is only possible
 * when nothing holds the module (no XDP program using the kfunc, no open
 * /dev/cfilter): callers skip then.
 *
 * CFILTER_KO names the module file (default /lib/modules/cfilter.ko).
 */
#ifndef CFILTER_SELFTESTS_HELPERS_H
#define CFILTER_SELFTESTS_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <linux/cfilter.h>

#define DEFAULT_KO	"/lib/modules/cfilter.ko"
/* Programs release the module from an RCU callback: allow some delay. */
#define RELEASE_WAIT_MS	5000

static inline const char *module_file(void)
{
	const char *ko = getenv("CFILTER_KO");

	return ko && *ko ? ko : DEFAULT_KO;
}

static inline void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Users of the module, or -1 if it is not loaded. */
static inline int module_refcnt(void)
{
	char buf[32];
	ssize_t n;
	int fd;

	fd = open("/sys/module/cfilter/refcnt", O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return atoi(buf);
}

/* Returns 0 or the errno of the last delete_module attempt. */
static inline int module_unload(void)
{
	int waited;

	for (waited = 0; ; waited += 100) {
		if (!syscall(SYS_delete_module, "cfilter", O_NONBLOCK))
			return 0;
		if ((errno != EAGAIN && errno != EBUSY) ||
		    waited >= RELEASE_WAIT_MS)
			return errno;
		sleep_ms(100);
	}
}

/* Returns 0 or the errno of finit_module. */
static inline int module_load(const char *params)
{
	int fd, err = 0;

	fd = open(module_file(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (syscall(SYS_finit_module, fd, params, 0))
		err = errno;
	close(fd);
	return err;
}

/*
 * Waits for programs that are being freed to let go of the module. Returns
 * the remaining users (0 when the module can be unloaded, -1 when it is not
 * loaded).
 */
static inline int module_wait_unused(void)
{
	int waited, refs = module_refcnt();

	for (waited = 0; refs > 0 && waited < RELEASE_WAIT_MS; waited += 100) {
		sleep_ms(100);
		refs = module_refcnt();
	}
	return refs;
}

/*
 * For a FIXTURE_SETUP that reloads the module: skips the test if the module
 * file is unreadable or something holds the module, else unloads it (if
 * loaded), ready for module_load(). A harness macro: it may SKIP() and
 * ASSERT(), which return from the setup.
 */
#define RELOAD_SETUP_UNLOAD() do {					\
	int _refs;							\
									\
	if (access(module_file(), R_OK))				\
		SKIP(return, "%s not readable: set CFILTER_KO",		\
		     module_file());					\
	_refs = module_wait_unused();					\
	if (_refs > 0)							\
		SKIP(return, "cfilter.ko has %d users (XDP program attached or /dev/cfilter open): cannot reload it", \
		     _refs);						\
	if (_refs == 0)							\
		ASSERT_EQ(0, module_unload());				\
} while (0)

/*
 * For a FIXTURE_TEARDOWN after RELOAD_SETUP_UNLOAD(): leaves the module
 * loaded with its default parameters for the next test.
 */
#define RELOAD_TEARDOWN_DEFAULTS() do {					\
	int _err;							\
									\
	if (_metadata->skip)						\
		break;							\
	if (module_refcnt() >= 0)					\
		EXPECT_EQ(0, module_unload());				\
	_err = module_load("");						\
	EXPECT_EQ(0, _err) TH_LOG("reloading %s with defaults: %s",	\
				  module_file(), strerror(_err));	\
} while (0)

/*
 * For a FIXTURE_SETUP: opens the device into @fd and empties the filter, so
 * that the test starts from nothing. A harness macro, as above.
 */
#define SETUP_OPEN_EMPTY(fd) do {					\
	int _fd = open(CFILTER_DEVICE, O_RDWR);				\
									\
	(fd) = _fd;							\
	ASSERT_LE(0, _fd) TH_LOG("open %s: %s (is cfilter.ko loaded?)", \
				 CFILTER_DEVICE, strerror(errno));	\
	ASSERT_EQ(0, cf_ioctl(_fd, CFILTER_IOC_CLEAR, NULL));		\
} while (0)

/*
 * For a FIXTURE_TEARDOWN: closes @fd (if open), then empties the filter for
 * the next test. Closing first drops a staged copy, which would follow the
 * CLEAR.
 */
static inline void teardown_close_empty(int fd)
{
	if (fd >= 0)
		close(fd);
	fd = open(CFILTER_DEVICE, O_RDWR);
	if (fd >= 0) {
		ioctl(fd, CFILTER_IOC_CLEAR);
		close(fd);
	}
}

/*
 * The fixture @name of tests that start from an empty filter, with the
 * device open in self->fd: SETUP_OPEN_EMPTY() and teardown_close_empty().
 */
#define FIXTURE_EMPTY_FILTER(name)					\
	FIXTURE(name) {							\
		int fd;							\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
		SETUP_OPEN_EMPTY(self->fd);				\
	}								\
	FIXTURE_TEARDOWN(name)						\
	{								\
		teardown_close_empty(self->fd);				\
	}

/* The user a caller without CAP_NET_ADMIN runs as. */
#define NOBODY		65534

/* Drops root for good: no groups, uid and gid nobody. Returns 0 or errno. */
static inline int become_nobody(void)
{
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return errno;
	return 0;
}

/*
 * Runs @child(@fd, @arg, @result) in a process of its own that dropped root
 * first (become_nobody()), so that it uses @fd, opened by root, as a caller
 * without CAP_NET_ADMIN; *@result (@len bytes, zeroed before) comes back
 * as the child left it. Returns 0, the errno of dropping root (the child
 * then runs nothing), or -1 if no child ran or it did not report.
 */
static inline int run_as_nobody(void (*child)(int fd, const void *arg,
					      void *result),
				int fd, const void *arg, void *result,
				size_t len)
{
	int pipefd[2], err = 0, status;
	pid_t pid;
	bool ok;

	memset(result, 0, len);
	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (!pid) {
		close(pipefd[0]);
		err = become_nobody();
		if (!err)
			child(fd, arg, result);
		_exit(write(pipefd[1], &err, sizeof(err)) == sizeof(err) &&
		      write(pipefd[1], result, len) == (ssize_t)len ? 0 : 1);
	}
	close(pipefd[1]);
	ok = read(pipefd[0], &err, sizeof(err)) == sizeof(err) &&
	     (err || read(pipefd[0], result, len) == (ssize_t)len);
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid || !ok)
		return -1;
	return err;
}

/* A module parameter's value as sysfs shows it, or 0 if unreadable. */
static inline unsigned long long read_param(const char *name)
{
	char path[128], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/module/cfilter/parameters/%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtoull(buf, NULL, 0);
}

/* Returns 0 or the errno of the failed ioctl, so tests can compare exactly. */
static inline int cf_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

static inline int cf_info(int fd, struct cfilter_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return cf_ioctl(fd, CFILTER_IOC_INFO, info);
}

/* The number of keys stored, or -1 if INFO fails. */
static inline long long cf_count(int fd)
{
	struct cfilter_info info;

	return cf_info(fd, &info) ? -1 : (long long)info.count;
}

/* TYPE_INFO of @type, live or (CFILTER_F_STAGED in @flags) staged. */
static inline int cf_type_info(int fd, __u8 type, __u32 flags,
			       struct cfilter_type_info *ti)
{
	memset(ti, 0, sizeof(*ti));
	ti->type = type;
	ti->flags = flags;
	return cf_ioctl(fd, CFILTER_IOC_TYPE_INFO, ti);
}

/* The number of keys of @type stored, or -1 if TYPE_INFO fails. */
static inline long long cf_type_count(int fd, __u8 type, __u32 flags)
{
	struct cfilter_type_info ti;

	return cf_type_info(fd, type, flags, &ti) ? -1 : (long long)ti.count;
}

/* BATCH @op over @n keys with @flags; returns 0 or the ioctl's errno. */
static inline int cf_batch_flags(int fd, __u32 op, __u32 flags,
				 const struct cfilter_key *keys,
				 __s32 *results, __u32 n,
				 struct cfilter_batch *b)
{
	memset(b, 0, sizeof(*b));
	b->op = op;
	b->flags = flags;
	b->keys = (uintptr_t)keys;
	b->results = (uintptr_t)results;
	b->count = n;
	return cf_ioctl(fd, CFILTER_IOC_BATCH, b);
}

static inline int cf_batch(int fd, __u32 op, const struct cfilter_key *keys,
			   __s32 *results, __u32 n, struct cfilter_batch *b)
{
	return cf_batch_flags(fd, op, 0, keys, results, n, b);
}

/* Key number @i: a distinct SRC4 key per i (10.x.y.z, never routed). */
static inline struct cfilter_key nth_key4(unsigned int i)
{
	struct cfilter_key key;

	memset(&key, 0, sizeof(key));
	key.type = CFILTER_KEY_SRC4;
	key.prefix_len = 32;
	key.saddr[0] = 10;
	key.saddr[1] = i >> 16;
	key.saddr[2] = i >> 8;
	key.saddr[3] = i;
	return key;
}

/* Key number @i: a distinct SRC6 key per i (in 2001:db8::/32). */
static inline struct cfilter_key nth_key6(unsigned int i)
{
	struct cfilter_key key = {
		.type = CFILTER_KEY_SRC6,
		.prefix_len = 128,
		.saddr = { 0x20, 0x01, 0x0d, 0xb8 },
	};

	memcpy(key.saddr + 12, &i, sizeof(i));
	return key;
}

static inline bool type_is_v6(__u8 type)
{
	return type == CFILTER_KEY_SRC6 || type == CFILTER_KEY_DST6 ||
	       type == CFILTER_KEY_ALLOW6;
}

/*
 * The address key of @type (SRC, DST or ALLOW) for "addr" or "addr/len"
 * (no length: the whole address), in the field @type uses. The length is
 * taken as written, so tests can pass bad ones; unparsable text aborts.
 */
static inline struct cfilter_key key_of(__u8 type, const char *cidr)
{
	bool dst = type == CFILTER_KEY_DST4 || type == CFILTER_KEY_DST6;
	bool v6 = type_is_v6(type);
	const char *slash = strchr(cidr, '/');
	size_t n = slash ? (size_t)(slash - cidr) : strlen(cidr);
	struct cfilter_key key;
	char addr[INET6_ADDRSTRLEN];

	memset(&key, 0, sizeof(key));
	key.type = type;
	key.prefix_len = slash ? atoi(slash + 1) : v6 ? 128 : 32;
	if (n >= sizeof(addr))
		abort();
	memcpy(addr, cidr, n);
	addr[n] = '\0';
	if (inet_pton(v6 ? AF_INET6 : AF_INET, addr,
		      dst ? key.daddr : key.saddr) != 1)
		abort();
	return key;
}

/*
 * A key of any type, the full length: @af's addresses @saddr and @daddr
 * (either may be NULL), and @proto with its ports or ICMP type in host
 * order.
 */
static inline struct cfilter_key flow_key(__u8 type, int af, const char *saddr,
					  const char *daddr, __u8 proto,
					  __u16 sport, __u16 dport)
{
	struct cfilter_key key;

	memset(&key, 0, sizeof(key));
	key.type = type;
	key.prefix_len = af == AF_INET ? 32 : 128;
	key.proto = proto;
	key.sport = htons(sport);
	key.dport = htons(dport);
	if ((saddr && inet_pton(af, saddr, key.saddr) != 1) ||
	    (daddr && inet_pton(af, daddr, key.daddr) != 1))
		abort();
	return key;
}

/*
 * The packet MATCH asks about: @af's addresses @saddr -> @daddr, @flags
 * (CFILTER_PKT_*), and @proto with its ports or ICMP type in host order.
 */
static inline struct cfilter_pkt match_pkt(int af, const char *saddr,
					   const char *daddr, __u8 flags,
					   __u8 proto, __u16 sport,
					   __u16 dport)
{
	struct cfilter_pkt pkt;

	memset(&pkt, 0, sizeof(pkt));
	pkt.family = af == AF_INET ? 4 : 6;
	pkt.flags = flags;
	pkt.proto = proto;
	pkt.sport = htons(sport);
	pkt.dport = htons(dport);
	if (inet_pton(af, saddr, pkt.saddr) != 1 ||
	    inet_pton(af, daddr, pkt.daddr) != 1)
		abort();
	return pkt;
}

#endif /* CFILTER_SELFTESTS_HELPERS_H */
