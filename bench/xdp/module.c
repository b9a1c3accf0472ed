// SPDX-License-Identifier: GPL-2.0
/*
 * The module through its device (clear, add in batches, its own account)
 * and its parameters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "xdp_bench.h"

#define BATCH_KEYS	4096

/* Empties the module, as each workload starts and ends. */
void clear_module(int dev)
{
	if (ioctl(dev, CFILTER_IOC_CLEAR))
		die("clearing the module: %m");
}

/*
 * Adds @n keys in batches, held by @source ("" for default) with @timeout
 * (0: permanent). Returns 0, -errno of a refused call, or of the first key
 * the module refused (one already present is fine).
 */
int batch_add_held(int dev, struct cfilter_key *keys, size_t n,
		   const char *source, __u32 timeout)
{
	__s32 *res = xcalloc(BATCH_KEYS, sizeof(*res));
	__u32 *timeouts = xcalloc(BATCH_KEYS, sizeof(*timeouts));
	struct cfilter_batch b;
	size_t i, chunk;
	int err = 0;

	for (i = 0; i < BATCH_KEYS; i++)
		timeouts[i] = timeout;
	for (i = 0; i < n && !err; i += chunk) {
		chunk = n - i < BATCH_KEYS ? n - i : BATCH_KEYS;
		memset(&b, 0, sizeof(b));
		b.op = CFILTER_BATCH_ADD;
		b.keys = (uintptr_t)(keys + i);
		b.results = (uintptr_t)res;
		b.timeouts = timeout ? (uintptr_t)timeouts : 0;
		b.count = chunk;
		snprintf(b.source, sizeof(b.source), "%s", source);
		if (ioctl(dev, CFILTER_IOC_BATCH, &b))
			err = -errno;
		else if (b.first_error != b.count &&
			 res[b.first_error] != -EEXIST)
			err = res[b.first_error];
	}
	free(timeouts);
	free(res);
	return err;
}

int batch_add(int dev, struct cfilter_key *keys, size_t n)
{
	return batch_add_held(dev, keys, n, "", 0);
}

/* batch_add(), where a refusal ends the bench: dies with the reason. */
void batch_add_or_die(int dev, struct cfilter_key *keys, size_t n)
{
	int err = batch_add(dev, keys, n);

	if (err) {
		errno = -err;
		die("adding %zu keys to the module: %m", n);
	}
}

/* The source key of prefix @p, of @alen-byte addresses. */
void src_key(struct cfilter_key *k, const struct pfx *p,
	     unsigned int alen)
{
	memset(k, 0, sizeof(*k));
	k->type = alen == 4 ? CFILTER_KEY_SRC4 : CFILTER_KEY_SRC6;
	k->prefix_len = p->len;
	memcpy(k->saddr, p->addr, alen);
}

/*
 * Memory of the source tables of @alen-byte addresses by the module's own
 * account, filling @ti; a module without TYPE_INFO gives the memory of
 * every type's tables instead (INFO), and @ti->type NONE.
 */
long long module_memory(int dev, unsigned int alen,
			struct cfilter_type_info *ti)
{
	struct cfilter_info info = { .size = sizeof(info) };

	memset(ti, 0, sizeof(*ti));
	ti->type = alen == 4 ? CFILTER_KEY_SRC4 : CFILTER_KEY_SRC6;
	if (!ioctl(dev, CFILTER_IOC_TYPE_INFO, ti))
		return ti->memory_bytes;
	ti->type = CFILTER_KEY_NONE;
	if (ioctl(dev, CFILTER_IOC_INFO, &info))
		return -1;
	return info.memory_bytes;
}

/* The module's geometry (CFILTER_IOC_INFO) into @info. */
void module_info(int dev, struct cfilter_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	if (ioctl(dev, CFILTER_IOC_INFO, info))
		die("CFILTER_IOC_INFO: %m");
}

/* Is the module in compact mode? */
bool module_compact(int dev)
{
	struct cfilter_info info;

	module_info(dev, &info);
	return info.mode == CFILTER_MODE_COMPACT;
}
