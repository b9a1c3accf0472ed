// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl crowdsec: CrowdSec's decisions, applied as they come. Run by
 * crowdsec-custom-bouncer with feed_via_stdin, which starts it once and
 * writes every new decision (action "add") and every expired or deleted
 * one ("del") as a line of JSON on its stdin (decision.h).
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

/* The longest line read; a longer one is skipped whole, not buffered. */
#define LINE_MAX_BYTES	65536
/* Keys per BATCH call; a run of decisions longer than this takes several. */
#define RUN_MAX		4096
/* Bad lines reported one by one; past this they are only counted. */
#define BAD_REPORTED	100

struct feed {
	int			fd;
	__u32			op;		/* of the keys pending */
	struct cfilter_key	keys[RUN_MAX];
	__s32			results[RUN_MAX];
	__u32			n;
	unsigned long		line;
	unsigned long		added, present, deleted, absent, skipped, bad;
};

static void bad_line(struct feed *f, const char *why)
{
	if (++f->bad <= BAD_REPORTED)
		cf_err("crowdsec: line %lu: %s: skipped%s", f->line, why,
		       f->bad == BAD_REPORTED ?
		       " (further bad lines are only counted)" : "");
}

/* Applies the pending run. Returns CF_OK, or CF_SYSTEM if the module failed. */
static int flush_run(struct feed *f)
{
	__u32 i, done;
	int err;

	if (!f->n)
		return CF_OK;
	err = dev_batch(f->fd, f->op, 0, f->keys, f->results, f->n, &done);
	if (err) {
		dev_report(err, "applying CrowdSec decisions");
		return CF_SYSTEM;
	}
	for (i = 0; i < done; i++) {
		switch (-f->results[i]) {
		case 0:
			f->op == CFILTER_BATCH_ADD ? f->added++ : f->deleted++;
			break;
		case EEXIST:
			f->present++;
			break;
		case ENOENT:
			f->absent++;
			break;
		case ENOSPC:
			dev_report_full(f->fd, false, &f->keys[i]);
			f->skipped++;
			break;
		default:
			cf_err("crowdsec: %s: %s", f->op == CFILTER_BATCH_ADD ?
			       "adding a decision" : "deleting a decision",
			       strerror(-f->results[i]));
			f->skipped++;
		}
	}
	f->n = 0;
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
	op = d.action == DECISION_ADD ? CFILTER_BATCH_ADD : CFILTER_BATCH_DEL;
	if ((op != f->op || f->n == RUN_MAX) && flush_run(f))
		return CF_SYSTEM;
	f->op = op;
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
	for (;;) {
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
	fprintf(stderr, "cfctl: crowdsec: %lu lines: %lu added (%lu already blocked), %lu deleted (%lu not blocked), %lu skipped, %lu malformed\n",
		f.line, f.added, f.present, f.deleted, f.absent, f.skipped,
		f.bad);
	close(f.fd);
	return ret;
}
