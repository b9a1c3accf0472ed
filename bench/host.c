// SPDX-License-Identifier: GPL-2.0
/* The host a measurement ran on (CPU, kernel), and what else it was doing. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>

#include "host.h"

/* "@prog: CPU model, kernel" with no newline, for the caller to go on. */
void print_host(const char *prog)
{
	char line[256], model[200] = "unknown CPU";
	FILE *f = fopen("/proc/cpuinfo", "r");
	struct utsname u;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "model name : %199[^\n]", model) == 1)
			break;
	if (f)
		fclose(f);
	uname(&u);
	printf("%s: %s, %s %s", prog, model, u.sysname, u.release);
}

/*
 * Other work on the machine (a qemu guest, a build) skews the figures even
 * in CPU time, through shared caches: say how busy it was.
 */
void print_load(const char *when)
{
	double load[3];

	if (getloadavg(load, 3) == 3)
		printf("%s: %.2f %.2f %.2f\n", when, load[0], load[1], load[2]);
}

/*
 * How much of the process's anonymous memory transparent huge pages hold
 * (smaps_rollup): the tables ask for them (cuckoo_table_zalloc(), ref.cc)
 * but get them at once only where the kernel has them free, else later
 * from khugepaged, and lookups differ with it.
 */
void print_huge(const char *when)
{
	unsigned long long anon = 0, huge = 0, v;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[128];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Anonymous: %llu kB", &v) == 1)
			anon = v;
		else if (sscanf(line, "AnonHugePages: %llu kB", &v) == 1)
			huge = v;
	}
	fclose(f);
	printf("%s: %llu of %llu MiB of anonymous memory in huge pages\n",
	       when, huge >> 10, anon >> 10);
}
