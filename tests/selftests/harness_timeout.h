/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SELFTESTS_HARNESS_TIMEOUT=S gives every TEST at least S seconds instead
 * of the harness's 30 (or its own TEST_F_TIMEOUT), for a kernel that runs
 * the same work several times slower: make check-debug's. Unset, nothing
 * changes. Include right after kselftest_harness.h: TEST_HARNESS_MAIN's
 * main() then raises the timeouts before running the tests.
 */
#ifndef CFILTER_SELFTESTS_HARNESS_TIMEOUT_H
#define CFILTER_SELFTESTS_HARNESS_TIMEOUT_H

#include <stdlib.h>

static inline void harness_timeout_floor(void)
{
	const char *env = getenv("SELFTESTS_HARNESS_TIMEOUT");
	struct __fixture_metadata *f;
	struct __test_metadata *t;
	int floor = env ? atoi(env) : 0;

	for (f = __fixture_list; floor > 0 && f; f = f->next)
		for (t = f->tests; t; t = t->next)
			if (t->timeout < floor)
				t->timeout = floor;
}

/* The harness's own, with the timeouts raised first. */
#undef TEST_HARNESS_MAIN
#define TEST_HARNESS_MAIN \
	static void __attribute__((constructor)) \
	__constructor_order_last(void) \
	{ \
		if (!__constructor_order) \
			__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD; \
	} \
	int main(int argc, char **argv) { \
		harness_timeout_floor(); \
		return test_harness_run(argc, argv); \
	}

#endif /* CFILTER_SELFTESTS_HARNESS_TIMEOUT_H */
