// SPDX-License-Identifier: GPL-2.0
/* A timed holding's deadline between the module's clock and a file's. */
#include <time.h>

#include "lib/deadline.h"

#define NS	1000000000LL
/* Seconds (about 35,000 years), far more than any timeout. */
#define FAR	(1LL << 40)

static int64_t ns_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * NS + ts.tv_nsec;
}

/* Boot time first: the pair is then never early on the wall clock. */
void clocks_now(struct clocks *c)
{
	c->boot = ns_of(CLOCK_BOOTTIME);
	c->real = ns_of(CLOCK_REALTIME);
}

int64_t clocks_epoch(const struct clocks *c)
{
	return c->real / NS;
}

static int64_t div_up(int64_t a)
{
	return a > 0 ? (a + NS - 1) / NS : -(-a / NS);
}

static int64_t div_down(int64_t a)
{
	return a >= 0 ? a / NS : -((-a + NS - 1) / NS);
}

/*
 * LIST gives whole seconds from @listed to the deadline, rounded down:
 * the deadline is the one whole second in [@listed + @timeout,
 * @listed + @timeout + 1).
 */
int64_t boot_deadline(int64_t listed, uint32_t timeout)
{
	return div_up(listed + timeout * NS);
}

uint32_t secs_left(int64_t deadline, int64_t now)
{
	int64_t at = deadline * NS;

	return at > now + NS ? (at - now) / NS : 1;
}

int64_t deadline_of(const struct clocks *c, int64_t listed, uint32_t timeout)
{
	return div_down(boot_deadline(listed, timeout) * NS - c->boot + c->real);
}

/*
 * The module ends a holding added at boot time b with timeout t at
 * ceil(b) + t, and b is at least @c->boot: the first whole second of boot
 * time at or after the start of @deadline is ceil(that start).
 */
int64_t timeout_until(const struct clocks *c, int64_t deadline)
{
	int64_t start, t;

	/* Far beyond any timeout: said in seconds, before they overflow. */
	if (deadline - c->real / NS > FAR)
		return deadline - c->real / NS;
	if (deadline * NS <= c->real)
		return 0;
	start = deadline * NS - c->real + c->boot;
	t = div_up(start) - div_up(c->boot);
	return t > 0 ? t : 1;
}
