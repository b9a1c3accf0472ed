// SPDX-License-Identifier: GPL-2.0
/*
 * The table of the in-program probe (xdp_compact in baseline.bpf.c): the
 * core's compact table of the same IPv4 addresses, made as the module
 * makes one in compact mode (capacity the keys, the mixed hash), its
 * buckets copied out for an array map.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cuckoo_int.h"
#include "compact_copy.h"

/*
 * @n 4-byte keys, @stride bytes apart, into a table of @fp_bits-bit
 * fingerprints in 16-bit lanes (12 or 16). 0, or -errno.
 */
int compact_copy_make(const void *keys, size_t stride, size_t n,
		      unsigned int fp_bits, struct compact_copy *cc)
{
	struct cuckoo_params p = { .capacity = n, .seed = 1,
				   .fp_bits = fp_bits, .key_len = 4 };
	const struct cuckoo_table *t;
	struct cuckoo *c;
	int err = 0;
	size_t i;

	if (fp_bits != 12 && fp_bits != 16)
		return -EINVAL;
	c = cuckoo_create(&p);
	if (!c)
		return -ENOMEM;
	/* -EEXIST: a key whose fingerprint and buckets another has */
	for (i = 0; i < n && !err; i++) {
		err = cuckoo_insert(c, (const char *)keys + i * stride);
		if (err == -EEXIST)
			err = 0;
	}
	/* the program hashes as cuckoo_hash_mix32() does, and no other way */
	if (!err && c->hash != CUCKOO_HASH_MIX32)
		err = -EOPNOTSUPP;
	if (!err) {
		t = c->table;
		cc->nwords = t->bucket_mask + 1;
		cc->words = malloc(cc->nwords * sizeof(*cc->words));
		if (cc->words)
			memcpy(cc->words, t->t64, cc->nwords * sizeof(*cc->words));
		else
			err = -ENOMEM;
		cc->hash_a = c->hash_a;
		cc->hash_b = c->hash_b;
		cc->fp_mask = c->fp_mask;
	}
	cuckoo_destroy(c);
	return err;
}

void compact_copy_free(struct compact_copy *cc)
{
	free(cc->words);
	cc->words = NULL;
}
