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
 * same address outlives CrowdSec's. The bouncer's first poll at startup
 * (the LAPI's whole list) cannot be told from the later ones on stdin: it
 * is written as the same "add" lines, and a restarted cfctl is not sent
 * it again. So the source is not replaced at startup; a ban deleted while
 * the bouncer was down ends at its deadline instead.
 *
 * Lines come in the bursts the bouncer writes: the whole lines of each
 * read() are applied, in order, before the next read, every run of adds or
 * of dels in one BATCH call, so a startup sync of thousands of decisions
 * costs a few system calls and a single decision waits for no timer. A
 * malformed line, a scope or remedy that is not an address ban (Country,
 * captcha...) and a simulated decision are logged and skipped: cfctl runs
 * until its stdin ends, and then says what it did.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cfctl.h"
#include "decision.h"
#include "dev.h"
#include "keyfile.h"
#include "source.h"

/* The longest line read; a longer one is skipped whole, not buffered. */
#define LINE_MAX_BYTES	65536
/* Keys per BATCH call; a run of decisions longer than this takes several. */
#define RUN_MAX		4096
/* Bad lines reported one by one; past this they are only counted. */
#define BAD_REPORTED	100

struct feed {
	int			fd;
	const char		*source;	/* NULL: "default" */
	bool			timed;		/* bans carry their durations */
	__u32			op;		/* of the keys pending */
	struct cfilter_key	keys[RUN_MAX];
	__u32			timeouts[RUN_MAX];
	__s32			results[RUN_MAX];
	__u32			n;
	unsigned long		line;
	unsigned long		added, renewed, deleted, absent, skipped, bad;
};

static void bad_line(struct feed *f, const char *why)
{
	if (++f->bad <= BAD_REPORTED)
		cf_err("crowdsec: line %lu: %s: skipped%s", f->line, why,
		       f->bad == BAD_REPORTED ?
		       " (further bad lines are only counted)" : "");
}

/*
 * Applies the pending run. Returns CF_OK, or CF_SYSTEM if the module
 * failed, or refused the source (every later ban would fail alike).
 */
static int flush_run(struct feed *f)
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
		return CF_OK;
	err = dev_batch(f->fd, &b, &done);
	if (err) {
		dev_report(err, "applying CrowdSec decisions");
		return CF_SYSTEM;
	}
	f->n = 0;
	for (i = 0; i < done; i++) {
		switch (-f->results[i]) {
		case 0:
			f->op == CFILTER_BATCH_ADD ? f->added++ : f->deleted++;
			break;
		case EEXIST:
			f->renewed++;
			break;
		case ENOENT:
			f->absent++;
			break;
		case ENOSPC:
		case EDQUOT:
			dev_report_full(f->fd, f->results[i], false,
					&f->keys[i]);
			f->skipped++;
			break;
		case EOPNOTSUPP:
		case EUSERS:
			cf_err("crowdsec: source %s: %s",
			       source_shown(f->source),
			       dev_key_error(f->results[i]));
			return CF_SYSTEM;
		default:
			cf_err("crowdsec: %s: %s", f->op == CFILTER_BATCH_ADD ?
			       "adding a decision" : "deleting a decision",
			       strerror(-f->results[i]));
			f->skipped++;
		}
	}
	return CF_OK;
}

/* One line's decision into the pending run. Returns enum cf_exit. */
static int take_line(struct feed *f, char *line, size_t len)
{
	struct kf_entry e;
	struct decision d;
	const char *why, *word;
	char *words[1];
	__u32 op;

	f->line++;
	if (decision_parse(line, len, &d, &why)) {
		bad_line(f, why);
		return CF_OK;
	}
	if (strcasecmp(d.type, "ban") || d.simulated ||
	    (strcasecmp(d.scope, "ip") && strcasecmp(d.scope, "range"))) {
		f->skipped++;
		return CF_OK;
	}
	words[0] = d.value;
	if (keyfile_parse_words(words, 1, &e, &word) != KF_ENTRY || e.range ||
	    (e.key.type != CFILTER_KEY_SRC4 && e.key.type != CFILTER_KEY_SRC6)) {
		bad_line(f, "\"value\" is not an address or prefix");
		return CF_OK;
	}
	/* A ban whose time is up already ends now, as its del would. */
	op = d.action == DECISION_ADD && d.seconds > 0 ? CFILTER_BATCH_ADD :
							 CFILTER_BATCH_DEL;
	if ((op != f->op || f->n == RUN_MAX) && flush_run(f))
		return CF_SYSTEM;
	f->op = op;
	f->timeouts[f->n] = d.seconds > CFILTER_TIMEOUT_MAX ?
			    CFILTER_TIMEOUT_MAX : d.seconds;
	f->keys[f->n++] = e.key;
	return CF_OK;
}

/*
 * The whole lines of @buf[0..*@len) go to take_line(); a partial last line
 * moves to the front. A line longer than LINE_MAX_BYTES is dropped as it
 * comes (*@skipping until its end).
 */
static int take_lines(struct feed *f, char *buf, size_t *len, bool *skipping)
{
	char *p = buf, *end = buf + *len, *nl;
	int ret;

	while ((nl = memchr(p, '\n', end - p))) {
		if (*skipping) {
			*skipping = false;
		} else {
			ret = take_line(f, p, nl - p);
			if (ret)
				return ret;
		}
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
	return CF_OK;
}

/*
 * Whose bans, and whether they carry their durations: compact mode knows
 * neither sources nor timeouts, so without -s its bans are default's, for
 * as long as the bouncer does not delete them. Returns enum cf_exit.
 */
static int feed_source(const struct cfctl_opts *o, struct feed *f)
{
	struct cfilter_info info;
	int err;

	f->source = o->source ? o->source : "crowdsec";
	f->timed = true;
	err = dev_info(f->fd, &info);
	if (err) {
		dev_report(err, "cannot read the filter's info");
		return CF_SYSTEM;
	}
	if (info.mode == CFILTER_MODE_COMPACT && !o->source) {
		cf_err("crowdsec: note: compact mode keeps no sources or timeouts: bans go to \"default\" and last until the bouncer deletes them");
		f->source = NULL;
		f->timed = false;
	}
	return CF_OK;
}

int do_crowdsec(const struct cfctl_opts *o)
{
	static struct feed f;
	static char buf[LINE_MAX_BYTES];
	bool skipping = false;
	size_t len = 0;
	ssize_t got;
	int ret = CF_OK;

	f.fd = dev_open(true);
	if (f.fd < 0)
		return CF_SYSTEM;
	f.op = CFILTER_BATCH_ADD;
	ret = feed_source(o, &f);
	while (ret == CF_OK) {
		got = read(STDIN_FILENO, buf + len, sizeof(buf) - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			cf_err("crowdsec: reading stdin: %s", strerror(errno));
			ret = CF_SYSTEM;
			break;
		}
		if (!got)
			break;
		len += got;
		ret = take_lines(&f, buf, &len, &skipping);
		if (!ret)
			ret = flush_run(&f);
		if (ret)
			break;
		if (o->verbose)
			fprintf(stderr, "cfctl: crowdsec: %lu lines: %lu added, %lu deleted\n",
				f.line, f.added, f.deleted);
	}
	if (!ret && len && !skipping) {
		ret = take_line(&f, buf, len);
		if (!ret)
			ret = flush_run(&f);
	}
	fprintf(stderr, "cfctl: crowdsec: %lu lines: %lu added (%lu held already: timeout set anew), %lu deleted (%lu not held), %lu skipped, %lu malformed\n",
		f.line, f.added, f.renewed, f.deleted, f.absent, f.skipped,
		f.bad);
	close(f.fd);
	return ret;
}
