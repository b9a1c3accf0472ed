/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A set's record of its sources and holdings (see source.h): the maps,
 * made and freed with the set (set.c). What holds them, and what they
 * mean, is source.c's. Under cfilter_lock, as the set.
 */
#ifndef CFILTER_KMOD_HOLDS_H
#define CFILTER_KMOD_HOLDS_H

#include <linux/types.h>
#include <uapi/linux/cfilter.h>

#include "cfilter_int.h"
#include "keymap.h"

/* Holding keys: the packed key, its prefix length, the source's index. */
#define CFILTER_HOLD_KEY_LEN(key_len)	((key_len) + 2)

/**
 * struct cfilter_holds - a set's sources and holdings
 * @held:    per key type, permanent holdings (the value: when added)
 * @timed:   per key type, holdings with a deadline (the value: the
 *           deadline, and when added; struct cfilter_when)
 * @names:   the sources by index; index 0 is "default"
 * @entries: holdings per source
 * @ntimed:  timed holdings per source
 * @moves:   per key type, holdings moved from one part of a listing's walk
 *           to another (see source_list.c): default's unrecorded holding
 *           recorded, or a holding moved between @held and @timed
 * @active:  indexes in use: sources that hold something, or held and have
 *           a drop count to keep (see source.c); bit 0 always
 * @stale:   a copy that missed a change of the live set: COMMIT refuses it
 */
struct cfilter_holds {
	struct keymap	held[__CFILTER_KEY_MAX];
	struct keymap	timed[__CFILTER_KEY_MAX];
	char		names[CFILTER_SOURCES_MAX][CFILTER_SOURCE_LEN];
	u64		entries[CFILTER_SOURCES_MAX];
	u64		ntimed[CFILTER_SOURCES_MAX];
	u64		moves[__CFILTER_KEY_MAX];
	u32		active;
	bool		stale;
};

/**
 * struct cfilter_when - when a recorded holding began and ends
 * @deadline: seconds of boot time (cfilter_deadline()); 0: permanent
 * @added:    seconds since the epoch; 0: not known (a holding "default" had
 *            unrecorded until another source shared its entry, or one
 *            restored from a snapshot that did not keep it)
 */
struct cfilter_when {
	u32	deadline;
	u32	added;
};

void cfilter_holds_init(struct cfilter_holds *h);
void cfilter_holds_free(struct cfilter_holds *h);
u64 cfilter_holds_timed(const struct cfilter_holds *h);
int cfilter_record_put(struct cfilter_holds *h, unsigned int t, const u8 *hk,
		       struct cfilter_when w);
bool cfilter_record_get(const struct cfilter_holds *h, unsigned int t,
			const u8 *hk, struct cfilter_when *w);
struct cfilter_when cfilter_when_of(bool timed, u64 val);

#endif /* CFILTER_KMOD_HOLDS_H */
