// SPDX-License-Identifier: GPL-2.0
/*
 * Instructions per lookup of the filter core, counted by valgrind (no
 * hardware counters needed, and the same on every run):
 *
 *	make -C bench instructions
 *
 * lookup_instr MODE N fills a 2^20-slot table to 23% (240000 4-byte
 * keys), then does N lookups, half of them of present keys. MODE: compact,
 * exact, or values (exact, with a value per key, read by cuckoo_lookup()),
 * each alone or followed by "-batch": the same lookups through the batch
 * readers, BATCH keys per call (N a multiple of BATCH). The Makefile runs
 * it with N = 0 and N = 100000 under cachegrind and prints the difference
 * divided by N.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuckoo.h"

#define BATCH	16

int main(int argc, char **argv)
{
	struct cuckoo_params p = {
		.capacity = 1 << 18, .seed = 1, .fp_bits = 16, .key_len = 4,
	};
	long n, i, hits = 0;
	struct cuckoo *c;
	u32 k, val, keys[BATCH], vals[BATCH];
	bool hit[BATCH], batch;
	size_t mode_len;

	if (argc != 3) {
		fprintf(stderr, "usage: lookup_instr compact|exact|values[-batch] N\n");
		return 2;
	}
	mode_len = strcspn(argv[1], "-");
	batch = !strcmp(argv[1] + mode_len, "-batch");
	p.exact = strncmp(argv[1], "compact", mode_len);
	p.values = !strncmp(argv[1], "values", mode_len);
	n = atol(argv[2]);
	c = cuckoo_create(&p);
	if (!c)
		return 1;
	for (k = 0; k < 240000; k++)
		cuckoo_insert_val(c, &k, k);
	rcu_register_thread();
	rcu_read_lock();
	for (i = 0; batch && i < n; i += BATCH) {
		for (k = 0; k < BATCH; k++)
			keys[k] = (u32)(i + k) * 2654435761u % 480000;
		hits += p.values ? cuckoo_lookup_batch(c, keys, BATCH, hit, vals) :
				   cuckoo_contains_batch(c, keys, BATCH, hit);
	}
	for (i = 0; !batch && i < n; i++) {
		k = (u32)i * 2654435761u % 480000;
		hits += p.values ? cuckoo_lookup(c, &k, &val) :
				   cuckoo_contains(c, &k);
	}
	rcu_read_unlock();
	printf("%ld\n", hits);
	return 0;
}
