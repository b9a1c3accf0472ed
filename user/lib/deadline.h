/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A timed holding's deadline between the module's clock and a file's.
 *
 * The module counts timeouts on CLOCK_BOOTTIME and ends a holding at a
 * whole second of it; save and snapshot files keep deadlines as seconds
 * since the epoch. A file's deadline D means "ends within second D": save
 * writes the second the module's deadline falls in, and load asks for the
 * module's first whole second at or after the start of D. A deadline
 * saved and loaded, in one boot or across a reboot, so stays in its
 * second, however often. It moves to the next second only when one
 * begins while a listing is read (boot_deadline()), or when it is loaded
 * in the second before it (a timeout is at least 1).
 */
#ifndef CF_DEADLINE_H
#define CF_DEADLINE_H

#include <stdint.h>

/* Both clocks at one moment, in nanoseconds. */
struct clocks {
	int64_t boot;
	int64_t real;
};

void clocks_now(struct clocks *c);

/* Whole seconds since the epoch at @c. */
int64_t clocks_epoch(const struct clocks *c);

/*
 * The deadline (seconds since the epoch) of a holding LIST reported with
 * @timeout seconds left (at least 1) as of @listed (ns of CLOCK_BOOTTIME).
 */
int64_t deadline_of(const struct clocks *c, int64_t listed, uint32_t timeout);

/*
 * The timeout to add a holding with, for it to end in second @deadline of
 * the epoch: at least 1; 0 if that second has begun already.
 */
int64_t timeout_until(const struct clocks *c, int64_t deadline);

/*
 * The module's deadline (a whole second of CLOCK_BOOTTIME) of a holding
 * LIST reported with @timeout seconds left as of @listed: LIST rounds the
 * time left down, so this is exact, or a second late for @timeout 1.
 */
int64_t boot_deadline(int64_t listed, uint32_t timeout);

/*
 * What LIST would report at @now (ns of CLOCK_BOOTTIME) for a holding
 * with module deadline @deadline: whole seconds left, at least 1.
 */
uint32_t secs_left(int64_t deadline, int64_t now);

#endif
