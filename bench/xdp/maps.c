// SPDX-License-Identifier: GPL-2.0
/* The baseline programs and their BPF maps: load, fill, their own account. */
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "baseline.skel.h"
#include "xdp_bench.h"

/*
 * The kernel's own account of a map's memory (memlock in its fdinfo): on
 * 6.1 an estimate, key and value bytes times entries, not what the map
 * allocates.
 */
long long map_memory(int fd)
{
	char path[64], line[128];
	long long bytes = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %lld", &bytes) == 1)
			break;
	fclose(f);
	return bytes;
}

void fill_hash(int fd, const uint32_t *addrs, size_t n)
{
	uint8_t one = 1;
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t be = htonl(addrs[i]);

		if (bpf_map_update_elem(fd, &be, &one, BPF_NOEXIST))
			die("hash map update %zu: %m", i);
	}
}

void fill_bloom(int fd, const uint32_t *addrs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t be = htonl(addrs[i]);

		if (bpf_map_update_elem(fd, NULL, &be, BPF_ANY))
			die("bloom filter update %zu: %m", i);
	}
}

/* Fills an LPM trie of @alen-byte addresses (its key: length, address). */
void fill_lpm(int fd, const struct pfx *p, size_t n, unsigned int alen)
{
	struct {
		__u32	prefixlen;
		__u8	addr[16];
	} key;
	uint8_t one = 1;
	size_t i;

	memset(&key, 0, sizeof(key));
	for (i = 0; i < n; i++) {
		key.prefixlen = p[i].len;
		memcpy(key.addr, p[i].addr, alen);
		if (bpf_map_update_elem(fd, &key, &one, BPF_NOEXIST))
			die("LPM trie update %zu: %m", i);
	}
}

struct baseline_bpf *load_baseline(unsigned int hash, unsigned int lpm,
				   unsigned int lpm6, unsigned int bloom)
{
	struct baseline_bpf *skel = baseline_bpf__open();

	if (!skel)
		die("opening the baseline programs: %m");
	/* A map needs one entry at least, whether it is used or not. */
	bpf_map__set_max_entries(skel->maps.hash_src4, hash ? hash : 1);
	bpf_map__set_max_entries(skel->maps.lpm_src4, lpm ? lpm : 1);
	bpf_map__set_max_entries(skel->maps.lpm_src6, lpm6 ? lpm6 : 1);
	bpf_map__set_max_entries(skel->maps.bloom_src4, bloom ? bloom : 1);
	/* the control's words: as many as the prefilter's hashed bits have */
	bpf_map__set_max_entries(skel->maps.words, prefilter_words);
	skel->rodata->word_mask[1] = prefilter_words - 1;
	if (baseline_bpf__load(skel))
		die("loading the baseline programs: %m");
	return skel;
}
