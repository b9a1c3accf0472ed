// SPDX-License-Identifier: GPL-2.0
/* The kernel's memory: its growth across loading a structure. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "xdp_bench.h"
#include "slab_shrink.h"

/* Kernel memory is read again until two reads this far apart agree. */
#define SETTLE_US	300000
#define SETTLE_BYTES	(256 << 10)
#define SETTLE_TRIES	20
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * The kernel's memory in slabs (kmalloc, large kmallocs included), vmalloc
 * areas and per-CPU chunks: where the module's tables and the BPF maps
 * live. The growth around loading a structure is what it took, whatever it
 * says of itself; the guest runs nothing else meanwhile.
 */
static long long kernel_memory_now(void)
{
	static const char *const field[] = {
		"Slab:", "VmallocUsed:", "Percpu:",
	};
	long long total = 0, kb;
	char line[128];
	unsigned int i, found = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("/proc/meminfo: %m");
	while (fgets(line, sizeof(line), f))
		for (i = 0; i < ARRAY_SIZE(field); i++)
			if (!strncmp(line, field[i], strlen(field[i])) &&
			    sscanf(line + strlen(field[i]), "%lld", &kb) == 1) {
				total += kb << 10;
				found++;
			}
	fclose(f);
	if (found != ARRAY_SIZE(field))
		die("/proc/meminfo lacks Slab, VmallocUsed or Percpu");
	return total;
}

/*
 * The same, once frees still under way (a map destroyed a moment ago is
 * freed by a worker, after RCU) have settled, and empty slabs are gone.
 */
long long kernel_memory(void)
{
	long long a, b;
	unsigned int i;

	slab_shrink_all();
	a = kernel_memory_now();
	b = a;

	for (i = 0; i < SETTLE_TRIES; i++) {
		usleep(SETTLE_US);
		slab_shrink_all();
		b = kernel_memory_now();
		if (llabs(b - a) < SETTLE_BYTES)
			break;
		a = b;
	}
	return b;
}

/*
 * What a preallocated map of @n entries takes: one is made and closed
 * again, as the skeleton's map of the same geometry is made at load with
 * the others, which cannot be told apart.
 */
long long prealloc_map_memory(enum bpf_map_type type, __u32 key_size,
			      __u32 value_size, __u32 n)
{
	long long before = kernel_memory(), after;
	int fd = bpf_map_create(type, NULL, key_size, value_size, n, NULL);

	if (fd < 0)
		die("creating a map of %u entries to measure it: %m", n);
	after = kernel_memory();
	close(fd);
	return after - before;
}
