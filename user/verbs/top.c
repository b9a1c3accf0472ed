// SPDX-License-Identifier: GPL-2.0
/*
 * The verb top: the source addresses and the entries that dropped the
 * most over a sliding window, refreshed like top(1), from the drop log's
 * events (xdp/droplog.h).
 *
 * The events are a sample: each CPU sends at most the rate limit's number
 * a second and counts the drops past it as left out. Over the window, E
 * events came and L drops were left out, so each event stands for
 * (E + L) / E drops; an address or entry with n events is estimated at
 * n (E + L) / E packets, and its rate at that over the window. The
 * limit takes the first drops of each CPU's second, so a sender that
 * starts late in a busy second is under-counted and one early over:
 * the estimate is fair for senders that drop steadily.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/addr.h"
#include "lib/json.h"
#include "verbs/log.h"
#include "verbs/verb.h"
#include "xdp/droplog.h"

#define NS	1000000000ULL

/* The events a window keeps at most; past it the oldest go early. */
#define TOP_EVENTS_MAX	1000000

/* What top keeps of an event that passed the filters. */
struct top_event {
	__u64				time;
	__u8				family;
	__u8				saddr[16];
	struct cfilter_match_entry	entry;
};

/* Per second of the window: every event (filtered or not), and the left out. */
struct top_second {
	__u64	start;
	__u64	events;
	__u64	left_out;
};

/* One line of a table: a key, its events in the window, one event of it. */
struct top_row {
	const struct top_event	*ev;
	unsigned long long	n;
};

struct top_run {
	const struct cfctl_opts	*o;
	struct log_filter	f;
	struct log_reader	r;
	struct top_event	*ev;	/* a ring of @cap, from @head, @n of them */
	size_t			cap, head, n;
	struct top_second	*sec;	/* a ring of window + 1 seconds */
	unsigned int		nsec;
	__u64			start;
	__u64			left;	/* left out, as last read */
	unsigned long long	kept;	/* events kept, for --count */
	bool			cut;	/* the oldest went for TOP_EVENTS_MAX */
};

static struct top_second *second_of(struct top_run *t, __u64 now)
{
	__u64 s = (now - t->start) / NS;
	struct top_second *b = &t->sec[s % t->nsec];

	if (b->start != t->start + s * NS) {
		b->start = t->start + s * NS;
		b->events = 0;
		b->left_out = 0;
	}
	return b;
}

/* Room for one more event: the ring grows, up to TOP_EVENTS_MAX. */
static int make_room(struct top_run *t)
{
	struct top_event *bigger;
	size_t cap, i;

	if (t->n < t->cap)
		return 0;
	if (t->cap == TOP_EVENTS_MAX) {
		t->head = (t->head + 1) % t->cap;
		t->n--;
		t->cut = true;
		return 0;
	}
	cap = t->cap ? t->cap * 2 : 1024;
	if (cap > TOP_EVENTS_MAX)
		cap = TOP_EVENTS_MAX;
	bigger = malloc(cap * sizeof(*bigger));
	if (!bigger)
		return -1;
	for (i = 0; i < t->n; i++)
		bigger[i] = t->ev[(t->head + i) % t->cap];
	free(t->ev);
	t->ev = bigger;
	t->cap = cap;
	t->head = 0;
	return 0;
}

static int on_event(void *ctx, const struct cfilter_log_event *ev)
{
	struct top_run *t = ctx;
	struct top_event *e;

	second_of(t, mono_ns())->events++;
	if (!log_filter_match(&t->f, ev))
		return 0;
	if (make_room(t)) {
		cf_err("top: out of memory");
		return LOG_ENOUGH;
	}
	e = &t->ev[(t->head + t->n++) % t->cap];
	e->time = ev->time_ns;
	e->family = ev->pkt.family;
	memcpy(e->saddr, ev->pkt.saddr, sizeof(e->saddr));
	e->entry = ev->entry;
	if (t->o->count && ++t->kept >= t->o->count)
		return LOG_ENOUGH;
	return 0;
}

/* The left out since the last look, into this second. */
static int note_left_out(struct top_run *t, __u64 now)
{
	__u64 left;

	if (log_reader_left_out(&t->r, &left))
		return -1;
	second_of(t, now)->left_out += left - t->left;
	t->left = left;
	return 0;
}

/* The events older than the window go. */
static void prune(struct top_run *t, __u64 since)
{
	while (t->n && t->ev[t->head].time < since) {
		t->head = (t->head + 1) % t->cap;
		t->n--;
	}
}

/* What the window holds: its length, events and left out. */
struct top_totals {
	double			secs;
	unsigned long long	events;
	unsigned long long	left_out;
};

static void totals(struct top_run *t, __u64 now, __u64 since,
		   struct top_totals *tt)
{
	unsigned int i;

	tt->events = 0;
	tt->left_out = 0;
	for (i = 0; i < t->nsec; i++) {
		if (!t->sec[i].start || t->sec[i].start + NS <= since)
			continue;
		tt->events += t->sec[i].events;
		tt->left_out += t->sec[i].left_out;
	}
	tt->secs = (double)(now - (since > t->start ? since : t->start)) / NS;
	if (tt->secs < 0.001)
		tt->secs = 0.001;
}

/* The packets @n events stand for, rounded. */
static unsigned long long estimate(const struct top_totals *tt,
				   unsigned long long n)
{
	unsigned long long all = tt->events + tt->left_out;

	return tt->events ? (n * all + tt->events / 2) / tt->events : n;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct top_event *x = *(struct top_event *const *)a;
	const struct top_event *y = *(struct top_event *const *)b;

	return x->family != y->family ? x->family - y->family :
	       memcmp(x->saddr, y->saddr, sizeof(x->saddr));
}

static int cmp_entry(const void *a, const void *b)
{
	const struct top_event *x = *(struct top_event *const *)a;
	const struct top_event *y = *(struct top_event *const *)b;

	return memcmp(&x->entry, &y->entry, sizeof(x->entry));
}

/* Most events first; a tie by key, so that the order is the same twice. */
static int (*row_key)(const void *, const void *);

static int cmp_row(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return row_key(&x->ev, &y->ev);
}

/*
 * The rows of one table: the kept events grouped by @key, most first.
 * Returns how many, in *@rows (malloc()ed), or -1.
 */
static long group(struct top_run *t, int (*key)(const void *, const void *),
		  struct top_row **rows)
{
	const struct top_event **v = calloc(t->n ? t->n : 1, sizeof(*v));
	struct top_row *r = calloc(t->n ? t->n : 1, sizeof(*r));
	size_t i, n = 0;

	if (!v || !r) {
		free(v);
		free(r);
		return -1;
	}
	for (i = 0; i < t->n; i++)
		v[i] = &t->ev[(t->head + i) % t->cap];
	qsort(v, t->n, sizeof(*v), key);
	for (i = 0; i < t->n; i++) {
		if (!n || key(&v[i], &r[n - 1].ev))
			r[n++].ev = v[i];
		r[n - 1].n++;
	}
	free(v);
	row_key = key;
	qsort(r, n, sizeof(*r), cmp_row);
	*rows = r;
	return n;
}

static void row_json(struct json *j, const struct top_totals *tt,
		     const struct top_row *row, bool by_addr)
{
	char a[ENTRY_STRLEN], source[CFILTER_SOURCE_LEN];
	struct cfilter_log_event ev = { .entry = row->ev->entry };
	unsigned long long pkts = estimate(tt, row->n);

	json_object_begin(j);
	if (by_addr)
		json_kv_string(j, "addr", log_addr(row->ev->family,
						   row->ev->saddr, a,
						   sizeof(a)));
	json_kv_string(j, "entry", log_entry(&ev, a, sizeof(a)));
	json_kv_string(j, "source", log_source(&ev, source));
	json_kv_uint(j, "events", row->n);
	json_kv_uint(j, "packets", pkts);
	json_key(j, "pps");
	json_hundredths(j, (unsigned long long)(pkts * 100 / tt->secs + 0.5));
	json_object_end(j);
}

static void rows_json(struct json *j, const char *name,
		      const struct top_totals *tt, const struct top_row *rows,
		      long n, unsigned int max, bool by_addr)
{
	long i;

	json_key(j, name);
	json_array_begin(j);
	for (i = 0; i < n && i < (long)max; i++)
		row_json(j, tt, &rows[i], by_addr);
	json_array_end(j);
}

static void row_text(const struct top_totals *tt, const struct top_row *row,
		     bool by_addr)
{
	char a[ENTRY_STRLEN], entry[ENTRY_STRLEN], source[CFILTER_SOURCE_LEN];
	struct cfilter_log_event ev = { .entry = row->ev->entry };

	printf("%10.1f %8llu  ", estimate(tt, row->n) / tt->secs, row->n);
	log_entry(&ev, entry, sizeof(entry));
	log_source(&ev, source);
	if (by_addr)
		printf("%-40s %s%s%s\n", log_addr(row->ev->family,
						   row->ev->saddr, a, sizeof(a)),
		       *entry ? entry : "(no entry)", *source ? ", " : "",
		       source);
	else
		printf("%-40s %s\n", *entry ? entry : "(no entry: the policy's)",
		       source);
}

static void rows_text(const char *title, const char *last,
		      const struct top_totals *tt, const struct top_row *rows,
		      long n, unsigned int max, bool by_addr)
{
	long i;

	printf("\n%10s %8s  %-40s %s\n", "PKTS/S", "EVENTS", title, last);
	for (i = 0; i < n && i < (long)max; i++)
		row_text(tt, &rows[i], by_addr);
}

/* One view of the window ending @now; returns enum cf_exit. */
static int show(struct top_run *t, __u64 now)
{
	__u64 window = (__u64)t->o->window * NS;
	/* --once: the window is the whole run, whenever it ended */
	__u64 since = !t->o->once && now > t->start + window ? now - window :
		      t->start;
	struct top_row *addrs = NULL, *entries = NULL;
	long naddrs, nentries;
	struct top_totals tt;
	struct json j;

	if (note_left_out(t, now))
		return CF_SYSTEM;
	prune(t, since);
	totals(t, now, since, &tt);
	naddrs = group(t, cmp_addr, &addrs);
	nentries = naddrs < 0 ? -1 : group(t, cmp_entry, &entries);
	if (nentries < 0) {
		free(addrs);
		cf_err("top: out of memory");
		return CF_SYSTEM;
	}
	if (t->o->json) {
		json_init(&j, stdout);
		json_object_begin(&j);
		json_key(&j, "window");
		json_hundredths(&j, (unsigned long long)(tt.secs * 100 + 0.5));
		json_kv_uint(&j, "drops", tt.events + tt.left_out);
		json_kv_uint(&j, "events", tt.events);
		json_kv_uint(&j, "left_out", tt.left_out);
		json_kv_uint(&j, "rate", t->r.rate);
		rows_json(&j, "addresses", &tt, addrs, naddrs, t->o->rows, true);
		rows_json(&j, "entries", &tt, entries, nentries, t->o->rows,
			  false);
		json_object_end(&j);
	} else {
		if (!t->o->once && isatty(STDOUT_FILENO))
			fputs("\033[H\033[J", stdout);
		printf("cfctl top: the last %.1f s: %llu drops, %llu events (%llu left out, at most %u events/s per CPU)%s\n",
		       tt.secs, tt.events + tt.left_out, tt.events, tt.left_out,
		       t->r.rate, t->cut ? "; only the last 1000000 events kept" : "");
		rows_text("SOURCE ADDRESS", "ENTRY, SOURCE", &tt, addrs, naddrs,
			  t->o->rows, true);
		rows_text("ENTRY", "SOURCE", &tt, entries, nentries, t->o->rows,
			  false);
	}
	free(addrs);
	free(entries);
	if (fflush(stdout) || ferror(stdout)) {
		cf_err("top: cannot write the output: %m");
		return CF_SYSTEM;
	}
	return CF_OK;
}

/* Reads and shows until a signal, --count, or with --once the window. */
static int top_loop(struct top_run *t)
{
	__u64 now = t->start, next, end = 0, tick = now + NS, wake;
	int n = 0, ret;

	next = t->o->once ? 0 : now + (__u64)t->o->interval * NS;
	if (t->o->once)
		end = now + (__u64)t->o->window * NS;
	while (!log_stop) {
		now = mono_ns();
		if (end && now >= end)
			break;
		if (now >= tick) {
			if (note_left_out(t, now))
				return CF_SYSTEM;
			tick = now + NS;
		}
		if (next && now >= next) {
			ret = show(t, now);
			if (ret != CF_OK)
				return ret;
			next = now + (__u64)t->o->interval * NS;
		}
		wake = next && next < tick ? next : tick;
		if (end && end < wake)
			wake = end;
		n = log_reader_poll(&t->r, wake > now ? (wake - now) / 1000000 + 1 : 0);
		if (n < 0)
			return CF_SYSTEM;
		if (n)
			break;
	}
	if (!n && log_reader_drain(&t->r) < 0)
		return CF_SYSTEM;
	return show(t, mono_ns());
}

/**
 * do_top() - the top dropped source addresses and entries, refreshed
 * @o: -j, -s, --iface, the CIDR, --rate, -w, -i, --rows, --once, --count
 *
 * Return: enum cf_exit: 0 when a signal, --count or --once's window ends it.
 */
int do_top(const struct cfctl_opts *o)
{
	struct top_run t = { .o = o };
	int ret;

	ret = log_filter_init(&t.f, o, "top");
	if (ret != CF_OK)
		return ret;
	t.nsec = o->window + 2;
	t.sec = calloc(t.nsec, sizeof(*t.sec));
	if (!t.sec) {
		cf_err("top: out of memory");
		return CF_SYSTEM;
	}
	log_stop_on_signals();
	ret = log_reader_open(&t.r, o->rate, o->verbose, on_event, &t);
	if (ret == CF_OK) {
		t.start = mono_ns();
		fprintf(stderr, "cfctl top: listening, at most %u events/s per CPU\n",
			t.r.rate);
		ret = top_loop(&t);
		log_reader_close(&t.r);
	}
	free(t.ev);
	free(t.sec);
	return ret;
}
