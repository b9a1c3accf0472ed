/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Table probes per lookup, counted on the module's own prefix-set code
 * (core/prefix.c over core/cuckoo*.c, built for the host) holding the same
 * keys as the module: what the table of `make bench-xdp` reports beside
 * the times. Only the counts matter here, not the speed.
 */
#ifndef XDP_BENCH_PROBES_H
#define XDP_BENCH_PROBES_H

#include <stdbool.h>
#include <stdint.h>

struct probe_set;

/* An empty set of @alen-byte addresses (4 or 16), exact or compact. */
struct probe_set *probe_set_new(unsigned int alen, bool compact);
void probe_set_free(struct probe_set *s);
/* Adds a member; 0 or -errno, as prefix_set_insert(). */
int probe_set_add(struct probe_set *s, const uint8_t *addr, unsigned int len);
/*
 * Where the lookup's search over the prefix lengths began: at no level
 * (the head word answered, or flagged no class), after the hashed bits
 * of every flagged class turned it away, or at the level of prefixes of
 * /64 and longer (IPv6), of /32 to /63 (IPv6), or of /17 to /31.
 */
enum probe_level {
	PROBE_LEVEL_NONE,
	PROBE_LEVEL_HASHED_OUT,
	PROBE_LEVEL_SUBNET,
	PROBE_LEVEL_DEEP,
	PROBE_LEVEL_MID,
	PROBE_LEVELS,
};

/*
 * The table probes prefix_set_match() makes for @addr, the lookup
 * bpf_cfilter_match() makes for a source address; *@hit: whether it found
 * a covering member; *@level: where its search began.
 */
unsigned int probe_set_match(const struct probe_set *s, const uint8_t *addr,
			     bool *hit, enum probe_level *level);

#endif /* XDP_BENCH_PROBES_H */
