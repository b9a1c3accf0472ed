/* SPDX-License-Identifier: GPL-2.0 */
/* What the host was doing around a measurement, printed with the tables. */
#ifndef CFILTER_BENCH_HOST_H
#define CFILTER_BENCH_HOST_H

/* "@when: " and the load average. */
void print_load(const char *when);
/* "@when: " and how much anonymous memory huge pages hold. */
void print_huge(const char *when);

#endif /* CFILTER_BENCH_HOST_H */
