// SPDX-License-Identifier: GPL-2.0
/*
 * A chained hash set as it is usually written: a power-of-two array of
 * bucket pointers with at least as many buckets as keys (load factor at most
 * 1), and one malloc'd node {next, key} per key, pushed at the head of its
 * bucket's list.
 *
 * The hash is the exact filter's own (core/cuckoo_hash.h: for 4-byte keys
 * its short one), keyed by a random seed, so that it costs what the
 * filter's does and is as good. (An identity hash would be faster and
 * would flatter the baseline.)
 *
 * Memory model: the bucket array, plus for every node malloc_usable_size()
 * plus the 8-byte chunk header glibc keeps in front of each allocation. A
 * 4-byte key thus costs a 24-byte usable chunk + 8 = 32 bytes, not the 12
 * bytes the node struct needs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "cuckoo_hash.h"
#include "hashset.h"

#define MALLOC_HEADER	8

struct hs_node {
	struct hs_node *next;
	unsigned char key[];
};

struct hashset {
	struct hs_node **buckets;
	uint64_t mask;
	uint64_t seed;
	uint64_t count;
	uint64_t node_bytes;	/* malloc'd node memory, per the model above */
	uint32_t key_len;
};

static uint64_t hs_hash(const struct hashset *h, const void *key)
{
	return cuckoo_hash_default(key, h->key_len, cuckoo_hash_a(h->seed),
				   cuckoo_hash_b(h->seed));
}

struct hashset *hashset_create(uint64_t max_keys, uint32_t key_len,
			       uint64_t seed)
{
	struct hashset *h = calloc(1, sizeof(*h));
	uint64_t nbuckets = 1;

	if (!h)
		return NULL;
	while (nbuckets < max_keys)
		nbuckets <<= 1;
	/* In huge pages where the filter's tables are: cuckoo_env.h. */
	h->buckets = cuckoo_table_zalloc(nbuckets * sizeof(*h->buckets));
	if (!h->buckets) {
		free(h);
		return NULL;
	}
	h->mask = nbuckets - 1;
	h->seed = seed;
	h->key_len = key_len;
	return h;
}

void hashset_destroy(struct hashset *h)
{
	struct hs_node *n, *next;
	uint64_t b;

	if (!h)
		return;
	for (b = 0; b <= h->mask; b++)
		for (n = h->buckets[b]; n; n = next) {
			next = n->next;
			free(n);
		}
	free(h->buckets);
	free(h);
}

/*
 * An IPv4 key is compared as one word, as a hand-written set of addresses
 * would do: the baseline gets no handicap from a memcmp() call.
 */
static bool hs_equal(const struct hashset *h, const void *a, const void *b)
{
	uint32_t x, y;

	if (h->key_len != sizeof(x))
		return !memcmp(a, b, h->key_len);
	memcpy(&x, a, sizeof(x));
	memcpy(&y, b, sizeof(y));
	return x == y;
}

static struct hs_node *hs_find(const struct hashset *h, struct hs_node *n,
			       const void *key)
{
	for (; n; n = n->next)
		if (hs_equal(h, n->key, key))
			return n;
	return NULL;
}

int hashset_insert(struct hashset *h, const void *key)
{
	struct hs_node **head = &h->buckets[hs_hash(h, key) & h->mask];
	struct hs_node *n;

	if (hs_find(h, *head, key))
		return -EEXIST;
	n = malloc(sizeof(*n) + h->key_len);
	if (!n)
		return -ENOMEM;
	memcpy(n->key, key, h->key_len);
	n->next = *head;
	*head = n;
	h->count++;
	h->node_bytes += malloc_usable_size(n) + MALLOC_HEADER;
	return 0;
}

bool hashset_contains(const struct hashset *h, const void *key)
{
	return hs_find(h, h->buckets[hs_hash(h, key) & h->mask], key);
}

uint64_t hashset_count(const struct hashset *h)
{
	return h->count;
}

uint64_t hashset_memory_bytes(const struct hashset *h)
{
	return sizeof(*h) + (h->mask + 1) * sizeof(*h->buckets) + h->node_bytes;
}
