/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The drop log (struct cfilter_log_ctl in the UAPI): where its maps are
 * pinned (log_pins.c), a reader's lease of them and its rings
 * (log_reader.c). What cfctl log and cfctl top make of the events is
 * theirs (verbs/log.h).
 */
#ifndef CFCTL_DROPLOG_H
#define CFCTL_DROPLOG_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/cfilter.h>

struct bpf_object;
struct ring_buffer;

/* The maps of the drop log, by their index in log_map_names. */
enum log_map {
	LOG_CTL,
	LOG_CPU,
	LOG_RB,
	LOG_NMAPS,
};

extern const char *const log_map_names[LOG_NMAPS];

/* Where loaders pin maps by name: iproute2's place, bpftool's, ip's XDP one. */
#define LOG_PLACES	3

/* How long a reader's lease lasts, and how often it renews it. */
#define LOG_LEASE_NS	(5 * 1000000000ULL)
#define LOG_RENEW_NS	1000000000ULL

/* The most events per second per CPU --rate takes. */
#define LOG_RATE_MAX	1000000

/* One loader's set of the maps, as a reader holds them. */
struct log_set {
	int			fd[LOG_NMAPS];
	__u32			ctl_id;
	struct cfilter_log_ctl	*ctl;	/* mmapped */
	int			slot;	/* the reader's, or -1 */
	__u64			lease;	/* its end, as last written */
	int			ring_fd;
	__u64			base;	/* left out and lost at the start */
};

/* The events a reader gets: return 0 to go on, LOG_ENOUGH to stop. */
#define LOG_ENOUGH	(-ECANCELED)
typedef int (*log_event_fn)(void *ctx, const struct cfilter_log_event *ev);

/* A reader of every set pinned (log_reader.c). */
struct log_reader {
	struct log_set		sets[LOG_PLACES];
	unsigned int		nsets;
	struct ring_buffer	*rb;
	__u32			rate;		/* the limit in effect */
	int			ncpus;
	__u64			renewed;	/* when the leases were renewed */
	long long		mono_to_real;	/* CLOCK_MONOTONIC ns to the epoch's */
	log_event_fn		fn;		/* gets each event, with @ctx */
	void			*ctx;
};

/* log_pins.c: attach's part */
int log_pins_prepare(struct bpf_object *obj, bool dry_run);
int log_pins_share(struct bpf_object *obj);
/* log_pins.c: a reader's part */
int log_pins_open(struct log_set *sets, unsigned int *n, bool verbose);

/* log_reader.c */
__u64 mono_ns(void);
int log_reader_open(struct log_reader *r, unsigned int rate, bool verbose,
		    log_event_fn fn, void *ctx);
int log_reader_poll(struct log_reader *r, int timeout_ms);
int log_reader_drain(struct log_reader *r);
int log_reader_left_out(struct log_reader *r, __u64 *n);
void log_reader_close(struct log_reader *r);

/* Set by SIGINT and SIGTERM while a reader runs (log_stop_on_signals()). */
extern volatile sig_atomic_t log_stop;
void log_stop_on_signals(void);

#endif /* CFCTL_DROPLOG_H */
