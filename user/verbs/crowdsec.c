// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl crowdsec: CrowdSec's decisions, applied as they come. Run by
 * crowdsec-custom-bouncer with feed_via_stdin, which starts it once and
 * writes every new decision (action "add") and every expired or deleted
 * one ("del") as a line of JSON on its stdin (decision.h).
 *
 * A ban is a holding of source "crowdsec" (or -s) with the decision's
 * duration as its timeout, so the kernel ends it on time even if the
 * bouncer is gone by then, and an operator's or another tool's ban of the
 * same address outlives CrowdSec's. Decisions of the types --types names
 * ("ban" by default) are bans; a range typed with host bits bans the
 * network CrowdSec means. The bouncer's first poll at startup (the LAPI's
 * whole list) cannot be told from the later ones on stdin: it is written
 * as the same "add" lines. So the source is not replaced at startup; a ban
 * deleted while the bouncer was down ends at its deadline instead.
 *
 * cfctl crowdsec runs until its stdin ends, whatever cfilter does. The
 * bouncer (0.0.15) writes each decision once, to whatever program it runs:
 * one it starts again after an exit is sent nothing of what came before,
 * and what comes between is lost. So the decisions in force are kept in a
 * table (decision_table.h); /dev/cfilter is held only while a burst of
 * lines is applied, so that rmmod works between bursts; and when the
 * module could not be opened, failed, or is another one than the table
 * was applied to (its /sys/module/cfilter files are new), the whole table
 * is applied once it can be: cfctl looks again after 1, 2, 4 and then
 * every RETRY_MAX_MS, and every CHECK_MS while all is well.
 *
 * Lines come in the bursts the bouncer writes: the whole lines of each
 * read() are applied, in order, every run of adds or of dels in one BATCH
 * call, so a startup sync of thousands of decisions costs a few system
 * calls and a single decision waits for no timer. A malformed line is
 * reported (its number and why) and skipped; a skipped decision (another
 * type, scope, a simulation) and a masked range are said too, at most
 * NOTES_MAX per burst.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "device/device.h"
#include "formats/decision.h"
#include "formats/decision_table.h"
#include "formats/entry_words.h"
#include "lib/addr.h"
#include "lib/source_name.h"
#include "verbs/verb.h"

/* The longest line read; a longer one is skipped whole, not buffered. */
#define LINE_MAX_BYTES	65536
/* Keys per BATCH call; a run of decisions longer than this takes several. */
#define RUN_MAX		4096
/* Bad lines reported one by one; past this they are only counted. */
#define BAD_REPORTED	100
/* Skipped decisions and masked ranges said per burst; the rest counted. */
#define NOTES_MAX	20
/* A module missing or failing is looked for 1, 2, 4 s later, then every 5 s. */
#define RETRY_MIN_MS	1000
#define RETRY_MAX_MS	5000
/* While all is well, whether the module was unloaded is checked this often. */
#define CHECK_MS	5000
/* A file of the module's sysfs directory: a read fails once it is unloaded. */
#define MODULE_FILE	"/sys/module/cfilter/initstate"

struct feed {
	const char		*source;	/* NULL: "default" */
	bool			timed;		/* bans carry their durations */
	const char		*types_arg;	/* --types as given */
	struct decision_types	types;
	struct decision_table	table;
	int			fd;		/* /dev/cfilter during a burst */
	int			module;		/* MODULE_FILE of the module synced to */
	bool			synced;		/* it holds what the table says */
	bool			resyncing;
	int			down_err;	/* why it could not, said once; 0 */
	int			retry_ms;
	__u32			op;		/* of the keys pending */
	struct cfilter_key	keys[RUN_MAX];
	__u32			timeouts[RUN_MAX];
	__s32			results[RUN_MAX];
	__u32			n;
	unsigned long		line;
	unsigned int		notes;		/* said in this burst */
	unsigned long		added, renewed, deleted, absent, skipped, bad;
	unsigned long		unkept;
};

/* CLOCK_BOOTTIME in whole seconds: decisions end by it. */
static int now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec > INT_MAX ? INT_MAX : (int)ts.tv_sec;
}

static void bad_line(struct feed *f, const char *why)
{
	if (++f->bad <= BAD_REPORTED)
		cf_err("crowdsec: line %lu: %s: skipped%s", f->line, why,
		       f->bad == BAD_REPORTED ?
		       " (further bad lines are only counted)" : "");
}

/* Whether to say one more note in this burst. */
static bool note(struct feed *f)
{
	return ++f->notes <= NOTES_MAX;
}

/* The module could not take the decisions: @err, said once per cause. */
static void went_down(struct feed *f, int err)
{
	bool said = !f->synced && f->down_err == err;

	f->synced = false;
	f->retry_ms = f->retry_ms ? f->retry_ms * 2 : RETRY_MIN_MS;
	if (f->retry_ms > RETRY_MAX_MS)
		f->retry_ms = RETRY_MAX_MS;
	if (said)
		return;
	f->down_err = err;
	switch (-err) {
	case ENOENT:	/* no node */
	case ENXIO:	/* a stale node whose driver is gone */
	case ENODEV:
		cf_err("crowdsec: cfilter module not loaded: keeping the %zu decisions in force until it is",
		       f->table.n);
		return;
	case EPERM:
	case EACCES:
		cf_err("crowdsec: " MSG_NO_PERM);
		break;
	default:
		dev_report(err, "crowdsec: applying decisions");
	}
	cf_err("crowdsec: keeping the %zu decisions in force until cfilter takes them",
	       f->table.n);
}

/* The deletions just applied need no longer be kept. */
static void forget_deleted(struct feed *f, __u32 done)
{
	struct dt_entry *e;
	__u32 i;

	for (i = 0; i < done; i++) {
		e = dt_find(&f->table, &f->keys[i]);
		if (e && e->gone)
			dt_drop(&f->table, e);
	}
}

/*
 * One key's result of the run just applied; false if the module failed.
 * The lines' counts leave out what the table's replays do.
 */
static bool count_result(struct feed *f, __u32 i)
{
	switch (-f->results[i]) {
	case 0:
		if (!f->resyncing)
			f->op == CFILTER_BATCH_ADD ? f->added++ : f->deleted++;
		return true;
	case EEXIST:
		f->renewed += !f->resyncing;
		return true;
	case ENOENT:
		f->absent += !f->resyncing;
		return true;
	case ENOSPC:
	case EDQUOT:
		dev_report_full(f->fd, f->results[i], false, &f->keys[i]);
		f->skipped++;
		return true;
	case EOPNOTSUPP:
	case EUSERS:
		/* No ban of this source can be added now: the module's state. */
		return false;
	default:
		cf_err("crowdsec: %s: %s", f->op == CFILTER_BATCH_ADD ?
		       "adding a decision" : "deleting a decision",
		       strerror(-f->results[i]));
		f->skipped++;
		return true;
	}
}

/* Applies the pending run; on failure the module is down. */
static void flush_run(struct feed *f)
{
	struct dev_batch b = {
		.op = f->op,
		.source = f->source,
		.keys = f->keys,
		.timeouts = f->op == CFILTER_BATCH_ADD && f->timed ?
			    f->timeouts : NULL,
		.results = f->results,
		.n = f->n,
	};
	__u32 i, done;
	int err;

	if (!f->n)
		return;
	f->n = 0;
	err = dev_batch(f->fd, &b, &done);
	if (err) {
		went_down(f, err);
		return;
	}
	for (i = 0; i < done; i++) {
		if (!count_result(f, i)) {
			went_down(f, f->results[i]);
			return;
		}
	}
	if (b.op == CFILTER_BATCH_DEL && !f->resyncing)
		forget_deleted(f, done);
}

/* Queues @key for @op, after applying the run if of the other op, or full. */
static void queue(struct feed *f, __u32 op, const struct cfilter_key *key,
		  int seconds)
{
	if (f->n && (op != f->op || f->n == RUN_MAX))
		flush_run(f);
	if (!f->synced)
		return;
	f->op = op;
	f->timeouts[f->n] = seconds;
	f->keys[f->n++] = *key;
}

/*
 * Whose bans, and whether they carry their durations: compact mode knows
 * neither sources nor timeouts, so without -s its bans are default's, for
 * as long as the bouncer does not delete them. Returns 0 or a negative errno.
 */
static int feed_source(const struct cfctl_opts *o, struct feed *f)
{
	struct cfilter_info info;
	int err;

	f->source = o->source ? o->source : "crowdsec";
	f->timed = true;
	err = dev_info(f->fd, &info);
	if (err)
		return err;
	if (info.mode == CFILTER_MODE_COMPACT && !o->source) {
		cf_err("crowdsec: note: compact mode keeps no sources or timeouts: bans go to \"default\" and last until the bouncer deletes them");
		f->source = NULL;
		f->timed = false;
	}
	return 0;
}

/* Is the module whose MODULE_FILE is open as @fd still loaded? */
static bool module_loaded(int fd)
{
	char c;

	return pread(fd, &c, 1, 0) == 1;
}

/*
 * Opens /dev/cfilter for a burst. A module other than the one the table
 * was applied to (loaded anew) is not synced. Returns false if the device
 * cannot be opened, now down.
 */
static bool connect(const struct cfctl_opts *o, struct feed *f)
{
	int err;

	f->fd = open(CFILTER_DEVICE, O_RDWR | O_CLOEXEC);
	if (f->fd < 0) {
		went_down(f, -errno);
		return false;
	}
	/* The device open pins the module: its sysfs files are its own. */
	if (f->module >= 0 && module_loaded(f->module))
		return true;
	if (f->module >= 0) {
		close(f->module);
		if (f->synced)
			cf_err("crowdsec: cfilter was loaded anew: applying the %zu decisions in force again",
			       f->table.n);
		f->synced = false;
	}
	/* Without sysfs a reload goes unseen: the table is applied after failures. */
	f->module = open(MODULE_FILE, O_RDONLY | O_CLOEXEC);
	err = feed_source(o, f);
	if (err) {
		went_down(f, err);
		close(f->fd);
		f->fd = -1;
		return false;
	}
	return true;
}

static void disconnect(struct feed *f)
{
	close(f->fd);
	f->fd = -1;
}

/* Queues every entry of @op: the bans in force, or the keys deleted. */
static void queue_table(struct feed *f, __u32 op, int now)
{
	const struct dt_entry *e;
	size_t i;

	for (i = 0; i < f->table.cap && f->synced; i++) {
		e = &f->table.slots[i];
		if (!e->used)
			continue;
		if (op == CFILTER_BATCH_DEL && e->gone)
			queue(f, op, &e->key, 0);
		else if (op == CFILTER_BATCH_ADD && !e->gone &&
			 dt_until(e) > now)
			queue(f, op, &e->key, dt_until(e) - now);
	}
	if (f->synced)
		flush_run(f);
}

/*
 * Applies the whole table to the module just connected: every ban in force
 * with the time it has left, every key deleted meanwhile removed.
 */
static void resync(struct feed *f)
{
	bool was_down = f->down_err;
	int now = now_s();

	f->synced = true;
	f->resyncing = true;
	f->n = 0;
	queue_table(f, CFILTER_BATCH_ADD, now);
	queue_table(f, CFILTER_BATCH_DEL, now);
	f->resyncing = false;
	if (!f->synced)
		return;
	dt_sweep(&f->table, now);
	f->down_err = 0;
	f->retry_ms = 0;
	if (was_down)
		cf_err("crowdsec: cfilter takes decisions again: the %zu in force applied",
		       f->table.n);
}

/* Says that a decision on @d was skipped, and why. */
static void say_skipped(struct feed *f, const struct decision *d)
{
	f->skipped++;
	if (d->action != DECISION_ADD || !note(f))
		return;
	if (d->simulated)
		cf_err("crowdsec: line %lu: simulated %s decision on %s skipped",
		       f->line, d->type, d->value);
	else if (strcasecmp(d->scope, "ip") && strcasecmp(d->scope, "range"))
		cf_err("crowdsec: line %lu: %s decision on %s %s skipped: cfilter takes scopes Ip and Range",
		       f->line, d->type, d->scope, d->value);
	else
		cf_err("crowdsec: line %lu: %s decision on %s skipped (--types %s)",
		       f->line, d->type, d->value, f->types_arg);
}

/* Records an add of type @ti for @seconds, and queues it. */
static void take_add(struct feed *f, const struct cfilter_key *key, int ti,
		     long long seconds)
{
	int now = now_s(), until;
	struct dt_entry *e;

	if (seconds > CFILTER_TIMEOUT_MAX)
		seconds = CFILTER_TIMEOUT_MAX;
	until = seconds > INT_MAX - now ? INT_MAX : now + (int)seconds;
	e = dt_get(&f->table, key, now);
	if (e) {
		e->until[ti] = until;
		e->gone = false;
		until = dt_until(e);
	} else if (!f->unkept++) {
		cf_err("crowdsec: more than %zu decisions in force, or no memory: the others are applied but not kept for cfilter's return",
		       f->table.max);
	}
	queue(f, CFILTER_BATCH_ADD, key, until - now);
}

/*
 * Records the end of type @ti's decision on @key, and queues what follows:
 * a deletion, or the time the key's other decisions give it.
 */
static void take_del(struct feed *f, const struct cfilter_key *key, int ti)
{
	struct dt_entry *e = dt_find(&f->table, key);
	int now = now_s();

	if (e) {
		e->until[ti] = 0;
		if (dt_until(e) > now) {
			queue(f, CFILTER_BATCH_ADD, key, dt_until(e) - now);
			return;
		}
		e->gone = true;
	}
	queue(f, CFILTER_BATCH_DEL, key, 0);
}

/* One line's decision into the table and the pending run. */
static void take_line(struct feed *f, char *line, size_t len)
{
	struct kf_entry e;
	struct decision d;
	const char *why;
	int ti;

	f->line++;
	if (decision_parse(line, len, &d, &why)) {
		bad_line(f, why);
		return;
	}
	ti = decision_type_index(&f->types, d.type);
	if (ti < 0 || d.simulated ||
	    (strcasecmp(d.scope, "ip") && strcasecmp(d.scope, "range"))) {
		say_skipped(f, &d);
		return;
	}
	memset(&e, 0, sizeof(e));
	if (kf_parse_addr_entry(d.value, CFILTER_KEY_SRC4, KF_NORMALIZE, &e) !=
	    KF_ENTRY || e.range) {
		bad_line(f, "\"value\" is not an address or prefix");
		return;
	}
	if (e.masked && d.action == DECISION_ADD && note(f)) {
		char net[ENTRY_STRLEN];

		cf_err("crowdsec: line %lu: %s has host bits set: banning %s, the network CrowdSec means",
		       f->line, d.value, key_addr_format(&e.key, net, sizeof(net)));
	}
	/* A ban whose time is up already ends now, as its del would. */
	if (d.action == DECISION_ADD && d.seconds > 0)
		take_add(f, &e.key, ti, d.seconds);
	else
		take_del(f, &e.key, ti);
}

/*
 * The whole lines of @buf[0..*@len) go to take_line(); a partial last line
 * moves to the front. A line longer than LINE_MAX_BYTES is dropped as it
 * comes (*@skipping until its end).
 */
static void take_lines(struct feed *f, char *buf, size_t *len, bool *skipping)
{
	char *p = buf, *end = buf + *len, *nl;

	while ((nl = memchr(p, '\n', end - p))) {
		if (*skipping)
			*skipping = false;
		else
			take_line(f, p, nl - p);
		p = nl + 1;
	}
	*len = end - p;
	memmove(buf, p, *len);
	if (*len == LINE_MAX_BYTES) {
		if (!*skipping) {
			f->line++;
			bad_line(f, "longer than 65536 bytes");
		}
		*skipping = true;
		*len = 0;
	}
}

/* Says how many notes of the burst just applied were not said. */
static void end_burst(struct feed *f)
{
	if (f->notes > NOTES_MAX)
		cf_err("crowdsec: %u more skipped decisions or masked ranges in this burst, not shown",
		       f->notes - NOTES_MAX);
	f->notes = 0;
}

/*
 * One burst: @buf's lines applied to the module, or only recorded if it
 * cannot take them; the whole table applied if it was not synced.
 */
static void apply_burst(const struct cfctl_opts *o, struct feed *f,
			char *buf, size_t *len, bool *skipping, bool last)
{
	bool connected = connect(o, f);

	take_lines(f, buf, len, skipping);
	if (last && *len && !*skipping)
		take_line(f, buf, *len);
	if (connected) {
		if (f->synced)
			flush_run(f);
		else
			resync(f);
		disconnect(f);
	}
	f->n = 0;
	end_burst(f);
}

/* No line for a while: is the module still the one synced to, or back? */
static void idle(const struct cfctl_opts *o, struct feed *f)
{
	if (f->synced && module_loaded(f->module))
		return;
	if (connect(o, f)) {
		resync(f);
		disconnect(f);
	}
}

/* How long to wait for input: -1 for ever. */
static int wait_ms(const struct feed *f)
{
	if (!f->synced)
		return f->retry_ms;
	return f->module >= 0 ? CHECK_MS : -1;
}

/* Reads stdin to its end. Returns CF_OK, or CF_SYSTEM if it failed. */
static int read_feed(const struct cfctl_opts *o, struct feed *f)
{
	static char buf[LINE_MAX_BYTES];
	struct pollfd in = { .fd = STDIN_FILENO, .events = POLLIN };
	bool skipping = false;
	size_t len = 0;
	ssize_t got;
	int ready;

	for (;;) {
		ready = poll(&in, 1, wait_ms(f));
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0) {
			cf_err("crowdsec: waiting for stdin: %s", strerror(errno));
			return CF_SYSTEM;
		}
		if (!ready) {
			idle(o, f);
			continue;
		}
		got = read(STDIN_FILENO, buf + len, sizeof(buf) - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			cf_err("crowdsec: reading stdin: %s", strerror(errno));
			return CF_SYSTEM;
		}
		len += got;
		apply_burst(o, f, buf, &len, &skipping, !got);
		if (!got)
			return CF_OK;
		if (o->verbose)
			fprintf(stderr, "cfctl: crowdsec: %lu lines: %lu added, %lu deleted\n",
				f->line, f->added, f->deleted);
	}
}

int do_crowdsec(const struct cfctl_opts *o)
{
	static struct feed f;
	const char *why;
	int ret;

	f.types_arg = o->types ? o->types : "ban";
	if (decision_types_parse(f.types_arg, &f.types, &why)) {
		cf_err("crowdsec: --types '%s': %s", f.types_arg, why);
		return CF_USAGE;
	}
	/* stderr may be a pipe to logger: its end must not end the bans. */
	signal(SIGPIPE, SIG_IGN);
	dt_init(&f.table, DT_MAX_DEFAULT);
	f.fd = -1;
	f.module = -1;
	if (connect(o, &f)) {
		resync(&f);
		disconnect(&f);
	}
	ret = read_feed(o, &f);
	fprintf(stderr, "cfctl: crowdsec: %lu lines: %lu added (%lu held already: timeout set anew), %lu deleted (%lu not held), %lu skipped, %lu malformed\n",
		f.line, f.added, f.renewed, f.deleted, f.absent, f.skipped,
		f.bad);
	if (!ret && !f.synced) {
		if (f.table.n)
			cf_err("crowdsec: stdin ended with %zu decisions in force that cfilter did not take",
			       f.table.n);
		ret = CF_SYSTEM;
	}
	if (f.module >= 0)
		close(f.module);
	dt_free(&f.table);
	return ret;
}
