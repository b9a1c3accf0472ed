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

		keymap_init(&h->held[t], len, sizeof(u32), max,
			    get_random_u64());
		keymap_init(&h->timed[t], len, sizeof(u64), max,
			    get_random_u64());
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

/*
 * A permanent record's value is when it was added; a timed one's, its
 * deadline and when it was added: a permanent holding costs no more for
 * knowing when it began.
 */
struct cfilter_when cfilter_when_of(bool timed, u64 val)
{
	if (!timed)
		return (struct cfilter_when){ .added = val };
	return (struct cfilter_when){ .deadline = val, .added = val >> 32 };
}

/*
 * Records the holding @hk of key type @t in the map @w.deadline says (it
 * may be in the other one too: the caller moves it). 0, or keymap_put()'s
 * error.
 */
int cfilter_record_put(struct cfilter_holds *h, unsigned int t, const u8 *hk,
		       struct cfilter_when w)
{
	if (w.deadline)
		return keymap_put(&h->timed[t], hk,
				  (u64)w.added << 32 | w.deadline);
	return keymap_put(&h->held[t], hk, w.added);
}

/* Is the holding @hk of key type @t recorded? Its times into *@w if so. */
bool cfilter_record_get(const struct cfilter_holds *h, unsigned int t,
			const u8 *hk, struct cfilter_when *w)
{
	u64 val;

	if (keymap_get(&h->held[t], hk, &val)) {
		*w = cfilter_when_of(false, val);
		return true;
	}
	if (keymap_get(&h->timed[t], hk, &val)) {
		*w = cfilter_when_of(true, val);
		return true;
	}
	return false;
}
