/* SPDX-License-Identifier: GPL-2.0 */
/* The host a measurement ran on, and what it was doing, printed with the tables. */
#ifndef CFILTER_BENCH_HOST_H
#define CFILTER_BENCH_HOST_H

/* "@prog: CPU model, kernel", to be ended by the caller. */
void print_host(const char *prog);
/* "@when: " and the load average. */
void print_load(const char *when);
/* "@when: " and how much anonymous memory huge pages hold. */
void print_huge(const char *when);

#endif /* CFILTER_BENCH_HOST_H */
