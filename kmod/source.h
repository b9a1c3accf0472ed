/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sources and timeouts: who holds each entry of a set, and until when.
 *
 * The tables packets read (set.h) hold each entry once. Beside them, in
 * exact mode, a set records its holdings: (entry, source) pairs, permanent
 * or with a deadline, in writer-only maps (keymap.h), all but those of
 * entries "default" alone holds permanently (see source.c). An entry is in
 * the tables exactly while some source holds it, so packets pay nothing
 * for sources or timeouts: expiry deletes through the writers' path, like
 * a DEL. Compact mode stores fingerprints and cannot tell one entry's
 * holders from another's: it knows one source, "default", and no timeouts.
 *
 * Locking: every function here runs under cfilter_lock, on the live set or
 * a staged one. A change made to the live set is made to the copy staged
 * by STAGE_SOURCE as well, but to the holdings of the source that copy
 * replaces (see cfilter_hold_copy()).
 */
#ifndef CFILTER_KMOD_SOURCE_H
#define CFILTER_KMOD_SOURCE_H

#include <linux/types.h>
#include <uapi/linux/cfilter.h>

#include "cfilter_int.h"
#include "holds.h"
#include "keymap.h"

struct cfilter_packed;
struct cfilter_set;

int cfilter_source_check(const char name[CFILTER_SOURCE_LEN]);
u32 cfilter_deadline(u32 timeout);
u32 cfilter_added(u32 age);
u32 cfilter_age(u32 added);

int cfilter_hold_add(struct cfilter_set *s, const struct cfilter_packed *k,
		     const char *source, struct cfilter_when w);
int cfilter_hold_del(struct cfilter_set *s, const struct cfilter_packed *k,
		     const char *source);
int cfilter_hold_test(struct cfilter_set *s, const struct cfilter_packed *k,
		      const char *source);
int cfilter_hold_flush(struct cfilter_set *s, const char *source);
long cfilter_hold_list(struct cfilter_set *s, const struct cfilter_ktype *f,
		       const char *source, u64 *pos, u64 *gen,
		       struct cfilter_entry *out, u32 max);
void cfilter_hold_sources(struct cfilter_set *s, struct cfilter_sources *out);
void cfilter_hold_carry(struct cfilter_set *to, const struct cfilter_set *from);

struct cfilter_set *cfilter_hold_copy(const char *without);
void cfilter_hold_stage(struct cfilter_set *s);
void cfilter_hold_unstage(struct cfilter_set *s);
void cfilter_hold_replaced(struct cfilter_set *s);

void cfilter_expiry_kick(u32 deadline);
void cfilter_expiry_stop(void);

#endif /* CFILTER_KMOD_SOURCE_H */
