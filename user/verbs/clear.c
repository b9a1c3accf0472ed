// SPDX-License-Identifier: GPL-2.0
/* The verbs that empty the filter: clear (all of it) and flush (one source). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "device/device.h"
#include "lib/source_name.h"
#include "verbs/verb.h"

/* --dry-run of clear: may the caller clear, and how much would go? */
static int clear_dry_run(int fd)
{
	struct dev_batch may = { .op = CFILTER_BATCH_DEL };
	struct cfilter_info info;
	__u32 done;
	int err;

	err = dev_batch(fd, &may, &done);
	if (!err)
		err = dev_info(fd, &info);
	if (err) {
		dev_report(err, "cannot clear");
		return CF_SYSTEM;
	}
	printf("would remove %llu entries (dry run: nothing changed)\n",
	       (unsigned long long)info.count);
	return CF_OK;
}

int do_clear(const struct cfctl_opts *o)
{
	int fd, err;

	fd = dev_open(true);
	if (fd < 0)
		return CF_SYSTEM;
	if (o->dry_run) {
		err = clear_dry_run(fd);
		close(fd);
		return err;
	}
	err = dev_simple(fd, CFILTER_IOC_CLEAR);
	close(fd);
	if (err) {
		dev_report(err, "cannot clear");
		return CF_SYSTEM;
	}
	return CF_OK;
}

/* The entries @source holds, from SOURCES; -ENOENT if the set lacks it. */
static long long source_entries(int fd, const char *source)
{
	struct cfilter_sources s;
	unsigned int i;
	int err;

	err = dev_sources(fd, &s);
	if (err)
		return err;
	for (i = 0; i < s.count && i < CFILTER_SOURCES_MAX; i++)
		if (!strncmp(s.sources[i].name, source_shown(source),
			     CFILTER_SOURCE_LEN))
			return s.sources[i].entries;
	return -ENOENT;
}

/* cfctl flush -s NAME: every holding of NAME goes, the others stay. */
int do_flush(const struct cfctl_opts *o)
{
	struct dev_batch may = { .op = CFILTER_BATCH_DEL };
	struct cfilter_info info;
	long long n;
	__u32 done;
	int fd, err;

	if (!o->source) {
		cf_err("flush: which source? cfctl flush -s NAME (cfctl clear removes every entry)");
		return CF_USAGE;
	}
	fd = dev_open(true);
	if (fd < 0)
		return CF_SYSTEM;
	n = source_entries(fd, o->source);
	err = n < 0 ? n : 0;
	if (!err && o->dry_run) {
		err = dev_batch(fd, &may, &done);
		if (!err)
			err = dev_info(fd, &info);
		if (!err && info.mode == CFILTER_MODE_COMPACT)
			err = -EOPNOTSUPP;
	} else if (!err) {
		err = dev_source_req(fd, CFILTER_IOC_FLUSH, o->source);
	}
	close(fd);
	if (err == -ENOENT) {
		cf_err("flush: the filter has no source '%s': cfctl info lists its sources",
		       o->source);
		return CF_USAGE;
	}
	if (err) {
		dev_report(err, "cannot flush");
		return CF_SYSTEM;
	}
	printf("%s source %s: %lld entr%s%s\n",
	       o->dry_run ? "would flush" : "flushed", source_shown(o->source),
	       n, n == 1 ? "y" : "ies",
	       o->dry_run ? " (dry run: nothing changed)" : "");
	return CF_OK;
}
