// SPDX-License-Identifier: GPL-2.0
/*
 * Instructions per lookup of the filter core, counted by valgrind (no
 * hardware counters needed, and the same on every run):
 *
 *	make -C bench instructions
 *
 * lookup_instr MODE N fills a 2^20-slot table to 23% (240000 4-byte
 * keys), then does N lookups, half of them of present keys. MODE: compact,
 * exact, or values (exact, with a value per key, read by cuckoo_lookup()).
 * The Makefile runs it with N = 0 and N = 100000 under cachegrind and
 * prints the difference divided by N.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuckoo.h"

int main(int argc, char **argv)
{
	struct cuckoo_params p = {
		.capacity = 1 << 18, .seed = 1, .fp_bits = 16, .key_len = 4,
	};
	long n, i, hits = 0;
	struct cuckoo *c;
	u32 k, val;

	if (argc != 3) {
		fprintf(stderr, "usage: lookup_instr compact|exact|values N\n");
		return 2;
	}
	p.exact = strcmp(argv[1], "compact");
	p.values = !strcmp(argv[1], "values");
	n = atol(argv[2]);
	c = cuckoo_create(&p);
	if (!c)
		return 1;
	for (k = 0; k < 240000; k++)
		cuckoo_insert_val(c, &k, k);
	rcu_register_thread();
	rcu_read_lock();
	for (i = 0; i < n; i++) {
		k = (u32)i * 2654435761u % 480000;
		hits += p.values ? cuckoo_lookup(c, &k, &val) :
				   cuckoo_contains(c, &k);
	}
	rcu_read_unlock();
	printf("%ld\n", hits);
	return 0;
}
