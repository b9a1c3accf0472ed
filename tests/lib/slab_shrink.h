/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory measured across a change in the kernel (test_mem_used, the XDP
 * bench): first the slabs are shrunk, so that objects the CPUs keep at
 * hand and slabs frees left empty are given back, and memory freed before
 * is not reused unseen by what is measured next.
 */
#ifndef CFILTER_TESTS_SLAB_SHRINK_H
#define CFILTER_TESTS_SLAB_SHRINK_H

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

/* Shrinks every SLUB cache; a cache that refuses is reported, not fatal. */
static inline void slab_shrink_all(void)
{
	char path[320];
	struct dirent *e;
	DIR *d = opendir("/sys/kernel/slab");
	int fd;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 e->d_name);
		fd = open(path, O_WRONLY);
		if (fd < 0)
			continue;
		if (write(fd, "1", 1) < 0)
			perror(path);
		close(fd);
	}
	closedir(d);
}

#endif /* CFILTER_TESTS_SLAB_SHRINK_H */
