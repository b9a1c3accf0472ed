/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CrowdSec decisions in force, by the key each bans: what cfctl
 * crowdsec applies again when cfilter comes back (a module loaded anew is
 * empty, one that was away took nothing), and the keys it must still
 * delete there. The bouncer writes each decision once; this table is the
 * only copy cfctl has.
 *
 * An open-addressing hash table of keys, grown by doubling and bounded:
 * past @max keys a decision is applied but not kept (the caller says so).
 */
#ifndef CFCTL_DECISION_TABLE_H
#define CFCTL_DECISION_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/cfilter.h>

#include "formats/decision.h"

/* The keys a table keeps at most: a million, in 2M slots of 60 bytes. */
#define DT_MAX_DEFAULT	(1UL << 20)

/**
 * struct dt_entry - one key's decisions
 * @key:   the key, a source address or prefix
 * @until: per type of the --types list, when its decision ends, in
 *         CLOCK_BOOTTIME seconds (at most INT_MAX); 0: none of that type
 * @used:  the slot holds an entry
 * @gone:  every decision ended (deleted) before cfilter was told: delete
 *         the key there, then forget it
 */
struct dt_entry {
	struct cfilter_key	key;
	int			until[DECISION_TYPES_MAX];
	bool			used;
	bool			gone;
};

/**
 * struct decision_table - the keys, in @cap slots
 * @slots: the entries, at most 3/4 of the slots used
 * @cap:   a power of two, or 0 before the first key
 * @n:     the used slots
 * @max:   the most keys kept
 */
struct decision_table {
	struct dt_entry	*slots;
	size_t		cap;
	size_t		n;
	size_t		max;
};

void dt_init(struct decision_table *t, size_t max);
void dt_free(struct decision_table *t);

/* @key's entry, or NULL. */
struct dt_entry *dt_find(const struct decision_table *t,
			 const struct cfilter_key *key);

/*
 * @key's entry, a new one (zeroed) if there was none; NULL if the table
 * keeps @max keys even after dropping those ended by @now, or memory ran
 * out. Entries move: a pointer holds until the next dt_get() or dt_drop().
 */
struct dt_entry *dt_get(struct decision_table *t,
			const struct cfilter_key *key, int now);

/* Forgets @e, an entry of @t. */
void dt_drop(struct decision_table *t, struct dt_entry *e);

/* When @e's last decision ends (0: none). */
int dt_until(const struct dt_entry *e);

/*
 * Forgets the entries deleted (@gone) and those no decision holds past
 * @now: what is left is what cfilter must hold.
 */
void dt_sweep(struct decision_table *t, int now);

#endif /* CFCTL_DECISION_TABLE_H */
