// SPDX-License-Identifier: GPL-2.0
/*
 * A set's record of its sources and holdings (see holds.h).
 */
#include <linux/bitops.h>
#include <linux/minmax.h>
#include <linux/random.h>
#include <linux/string.h>

#include "holds.h"

void cfilter_holds_init(struct cfilter_holds *h)
{
	const struct cfilter_ktype *f;

	BUILD_BUG_ON(BITS_PER_TYPE(h->active) < CFILTER_SOURCES_MAX);
	BUILD_BUG_ON(CFILTER_HOLD_KEY_LEN(CUCKOO_KEY_MAX) > KEYMAP_KEY_MAX);
	memset(h, 0, sizeof(*h));
	for (f = cfilter_ktype_first(); f; f = cfilter_ktype_next(f)) {
		unsigned int t = cfilter_ktype_type(f);
		const struct cuckoo_params *p = &cfilter_config.params[t];
		/* Twice the keys a table holds: room for shared entries. */
		u64 max = 2 * max(p->capacity, p->max_capacity);
		u32 len = CFILTER_HOLD_KEY_LEN(f->key_len);

		keymap_init(&h->held[t], len, max, get_random_u64());
		keymap_init(&h->timed[t], len, max, get_random_u64());
	}
	strscpy(h->names[0], "default", CFILTER_SOURCE_LEN);
	h->active = BIT(0);
}

void cfilter_holds_free(struct cfilter_holds *h)
{
	unsigned int t;

	for (t = 0; t < __CFILTER_KEY_MAX; t++) {
		keymap_free(&h->held[t]);
		keymap_free(&h->timed[t]);
	}
}

u64 cfilter_holds_timed(const struct cfilter_holds *h)
{
	u64 n = 0;
	unsigned int t;

	for (t = 0; t < __CFILTER_KEY_MAX; t++)
		n += keymap_count(&h->timed[t]);
	return n;
}
