// SPDX-License-Identifier: GPL-2.0
/* The baseline programs and their BPF maps: load, fill, their own account. */
#include <stdio.h>
#include <string.h>
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

/*
 * Fills a hash map with the addresses of @p (/32s or /128s): the map's key
 * size says how many bytes of each it reads.
 */
void fill_hash(int fd, const struct pfx *p, size_t n)
{
	uint8_t one = 1;
	size_t i;

	for (i = 0; i < n; i++)
		if (bpf_map_update_elem(fd, p[i].addr, &one, BPF_NOEXIST))
			die("hash map update %zu: %m", i);
}

/* The same for a Bloom filter, whose value size says it. */
void fill_bloom(int fd, const struct pfx *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (bpf_map_update_elem(fd, NULL, p[i].addr, BPF_ANY))
			die("bloom filter update %zu: %m", i);
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

/*
 * The baseline programs, the maps of @alen-byte addresses sized for @hash,
 * @lpm and @bloom entries, the other family's for one.
 */
struct baseline_bpf *load_baseline(unsigned int alen, unsigned int hash,
				   unsigned int lpm, unsigned int bloom)
{
	struct baseline_bpf *skel = baseline_bpf__open();
	unsigned int v4 = alen == 4;

	if (!skel)
		die("opening the baseline programs: %m");
	/* A map needs one entry at least, whether it is used or not. */
	bpf_map__set_max_entries(skel->maps.hash_src4, v4 && hash ? hash : 1);
	bpf_map__set_max_entries(skel->maps.lpm_src4, v4 && lpm ? lpm : 1);
	bpf_map__set_max_entries(skel->maps.bloom_src4, v4 && bloom ? bloom : 1);
	bpf_map__set_max_entries(skel->maps.hash_src6, !v4 && hash ? hash : 1);
	bpf_map__set_max_entries(skel->maps.lpm_src6, !v4 && lpm ? lpm : 1);
	bpf_map__set_max_entries(skel->maps.bloom_src6, !v4 && bloom ? bloom : 1);
	/* the control's words: as many as the prefilter's hashed bits have */
	bpf_map__set_max_entries(skel->maps.words, prefilter_words);
	skel->rodata->word_mask[1] = prefilter_words - 1;
	if (baseline_bpf__load(skel))
		die("loading the baseline programs: %m");
	return skel;
}
