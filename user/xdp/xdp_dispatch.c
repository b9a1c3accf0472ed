// SPDX-License-Identifier: GPL-2.0
/*
 * cfilter_xdp as one program of libxdp's dispatcher, beside other tools'
 * (docs/design.md, "Beside other XDP programs"). libxdp is linked
 * statically and carries its dispatcher inside, so cfctl needs neither
 * libxdp1 nor xdp-dispatcher.o where it runs; the links that keep the
 * programs attached are pinned under /sys/fs/bpf/xdp, where xdp-loader and
 * other libxdp users find them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <xdp/libxdp.h>

#include "lib/util.h"
#include "xdp/xdp.h"
#include "xdp/xdp_int.h"

static enum cf_xdp_mode cf_mode(enum xdp_attach_mode mode)
{
	switch (mode) {
	case XDP_MODE_NATIVE:
		return CF_XDP_NATIVE;
	case XDP_MODE_SKB:
		return CF_XDP_GENERIC;
	default:
		return CF_XDP_AUTO;
	}
}

static enum xdp_attach_mode xdp_mode(enum cf_xdp_mode mode)
{
	switch (mode) {
	case CF_XDP_NATIVE:
		return XDP_MODE_NATIVE;
	case CF_XDP_GENERIC:
		return XDP_MODE_SKB;
	default:
		return XDP_MODE_UNSPEC;
	}
}

/**
 * dispatch_query() - what libxdp's dispatcher on @ifindex runs
 * @ifindex: interface
 * @d:       filled in; @d->id is 0 if @ifindex runs no dispatcher (nothing,
 *           or one program attached without it)
 *
 * Return: 0, or a negative errno.
 */
int dispatch_query(unsigned int ifindex, struct dispatch_info *d)
{
	struct xdp_program *p = NULL;
	struct xdp_multiprog *mp;
	int err;

	memset(d, 0, sizeof(*d));
	d->ours = -1;
	mp = xdp_multiprog__get_from_ifindex(ifindex);
	err = libxdp_get_error(mp);
	if (err == -ENOENT || (!err && !mp))
		return 0;
	if (err)
		return err;
	if (xdp_multiprog__is_legacy(mp))
		goto out;
	d->id = xdp_program__id(xdp_multiprog__main_prog(mp));
	d->mode = cf_mode(xdp_multiprog__attach_mode(mp));
	while ((p = xdp_multiprog__next_prog(p, mp)) &&
	       d->n < CF_DISPATCH_MAX) {
		struct dispatch_prog *dp = &d->progs[d->n];
		unsigned int act;

		snprintf(dp->name, sizeof(dp->name), "%s",
			 xdp_program__name(p));
		dp->id = xdp_program__id(p);
		dp->priority = xdp_program__run_prio(p);
		for (act = XDP_ABORTED; act <= XDP_REDIRECT; act++)
			if (xdp_program__chain_call_enabled(p, act))
				dp->chain_actions |= 1U << act;
		if (d->ours < 0 && !strcmp(dp->name, CF_PROG_NAME))
			d->ours = d->n;
		d->n++;
	}
out:
	xdp_multiprog__close(mp);
	return 0;
}

/**
 * dispatch_clean() - drop libxdp's pins of dispatchers no longer attached
 *
 * libxdp pins the links that hold each program in its dispatcher under
 * /sys/fs/bpf/xdp. An interface deleted with its dispatcher leaves them
 * behind, holding the programs, and so cfilter.ko: rmmod fails until they
 * go. Attach and detach remove them, as xdp-loader does.
 */
void dispatch_clean(void)
{
	stats_bpffs_layout();
	libxdp_clean_references(0);
}

/* Says why libxdp failed to attach, as an operator can act on it. */
void dispatch_report_error(int err, const char *ifname)
{
	switch (-err) {
	case E2BIG:
		cf_err("%s's dispatcher is full (%d programs): detach one first",
		       ifname, CF_DISPATCH_MAX);
		break;
	case EBUSY:
		cf_err("%s runs a libxdp dispatcher older than cfctl's, or that kept changing: detach its programs first, or try again",
		       ifname);
		break;
	default:
		cf_bpf_err(err, "cannot attach to %s through libxdp's dispatcher: %s: run cfctl attach -v %s for libxdp's reason",
			   ifname, strerror(-err), ifname);
	}
}

/*
 * Removes the programs @ids from @ifindex's dispatcher, attached in @mode,
 * in one step (libxdp builds a dispatcher without them and swaps it in);
 * the last one out takes the dispatcher with it. The mode must be named:
 * libxdp swaps with the caller's, and the kernel reads none as native's.
 * Returns 0 or a negative errno.
 */
static int remove_progs(unsigned int ifindex, enum cf_xdp_mode mode,
			const __u32 *ids, size_t n)
{
	struct xdp_program *progs[CF_DISPATCH_MAX];
	size_t i, opened;
	int err = 0;

	for (opened = 0; opened < n; opened++) {
		int fd = bpf_prog_get_fd_by_id(ids[opened]);

		if (fd < 0) {
			err = -errno;
			break;
		}
		/*
		 * Not xdp_program__from_id(): libxdp before 1.4.1 keeps its
		 * descriptor open. from_fd() takes a copy of ours.
		 */
		progs[opened] = xdp_program__from_fd(fd);
		close(fd);
		err = libxdp_get_error(progs[opened]);
		if (err || !progs[opened]) {
			err = err ?: -ENOENT;
			break;
		}
	}
	if (!err)
		err = xdp_program__detach_multi(progs, n, ifindex,
						xdp_mode(mode), 0);
	for (i = 0; i < opened; i++)
		xdp_program__close(progs[i]);
	return err;
}

/**
 * dispatch_attach() - run @obj's cfilter_xdp in @ifindex's dispatcher
 * @ifname:   interface, for messages
 * @ifindex:  interface
 * @obj:      cfilter's object, opened and set up but not loaded: libxdp
 *            loads it as an extension of the dispatcher
 * @mode:     XDP mode when there is no dispatcher yet, else the
 *            dispatcher's
 * @priority: run priority, or -1 for the program's own (XDP_RUN_CONFIG)
 *            or, when replacing, the replaced one's
 * @now:      what the dispatcher runs now (dispatch_query())
 * @out:      on success, the program's id and priority
 * @dispatcher_id: on success, the dispatcher's id; 0 if libxdp attached the
 *            program without one (the kernel cannot run it, or
 *            LIBXDP_SKIP_DISPATCHER=1)
 *
 * Where cfilter runs already, the new program is added first and the old
 * one removed after: each step swaps the whole dispatcher in one go, so a
 * packet always meets one of them (both, for the moment in between).
 *
 * Return: 0, or a negative errno; a failure after the add has been
 * reported, and leaves both programs running (-EALREADY).
 */
int dispatch_attach(const char *ifname, unsigned int ifindex,
		    struct bpf_object *obj, enum cf_xdp_mode mode,
		    int priority, const struct dispatch_info *now,
		    struct dispatch_prog *out, __u32 *dispatcher_id)
{
	DECLARE_LIBXDP_OPTS(xdp_program_opts, opts, .obj = obj,
			    .prog_name = CF_PROG_NAME);
	struct dispatch_info after;
	struct xdp_program *prog;
	__u32 old_ids[CF_DISPATCH_MAX];
	size_t n_old = 0;
	unsigned int i;
	int err;

	prog = xdp_program__create(&opts);
	err = libxdp_get_error(prog);
	if (err || !prog)
		return err ?: -ENOMEM;
	for (i = 0; i < now->n; i++)
		if (!strcmp(now->progs[i].name, CF_PROG_NAME))
			old_ids[n_old++] = now->progs[i].id;
	if (priority < 0 && now->ours >= 0)
		priority = now->progs[now->ours].priority;
	if (priority >= 0)
		xdp_program__set_run_prio(prog, priority);
	err = xdp_program__attach(prog, ifindex,
				  now->id ? xdp_mode(now->mode) : xdp_mode(mode),
				  0);
	if (err)
		goto out;
	out->id = xdp_program__id(prog);
	out->priority = xdp_program__run_prio(prog);
	if (n_old) {
		err = remove_progs(ifindex, now->mode, old_ids, n_old);
		if (err) {
			cf_err("%s runs cfilter's new program %u and still its old one %u: removing the old one failed (%s); run cfctl attach %s again",
			       ifname, out->id, old_ids[0], strerror(-err),
			       ifname);
			err = -EALREADY;
			goto out;
		}
	}
	*dispatcher_id = 0;
	if (!dispatch_query(ifindex, &after))
		*dispatcher_id = after.id;
out:
	xdp_program__close(prog);
	return err;
}

/**
 * dispatch_detach() - take cfilter_xdp out of @ifindex's dispatcher
 * @ifname:  interface, for messages
 * @ifindex: interface
 * @d:       what the dispatcher runs (dispatch_query())
 * @dry_run: say what would go, and change nothing
 *
 * The other programs stay, in a dispatcher of their own swapped in for
 * this one; with none left, the dispatcher goes too.
 *
 * Return: 0 if cfilter's program was (or would be) taken out, 1 if the
 * dispatcher does not run it, or a reported negative errno.
 */
int dispatch_detach(const char *ifname, unsigned int ifindex,
		    const struct dispatch_info *d, bool dry_run)
{
	__u32 ids[CF_DISPATCH_MAX];
	size_t n = 0;
	unsigned int i;
	int err;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->progs[i].name, CF_PROG_NAME))
			ids[n++] = d->progs[i].id;
	if (!n)
		return 1;
	if (dry_run) {
		printf("would detach %s (prog id %u) from %s's dispatcher, leaving %u other program%s (dry run: nothing changed)\n",
		       CF_PROG_NAME, ids[0], ifname, d->n - (unsigned int)n,
		       d->n - n == 1 ? "" : "s");
		return 0;
	}
	err = remove_progs(ifindex, d->mode, ids, n);
	if (err)
		cf_bpf_err(err, "cannot take %s out of %s's dispatcher: %s: run cfctl detach -v %s for libxdp's reason",
			   CF_PROG_NAME, ifname, strerror(-err), ifname);
	return err;
}

/**
 * dispatch_detach_ours() - dispatch_detach() of what @ifindex's dispatcher
 * runs, in a process of its own
 * @ifname:  interface, for messages
 * @ifindex: interface
 * @dry_run: say what would go, and change nothing
 *
 * libxdp before 1.4.1 (Debian 12 has 1.3.1) leaves open a descriptor of
 * every program it looks at (fixed upstream by commit 48ad94b), so a
 * detached cfilter_xdp, and with it cfilter.ko, would stay held until
 * cfctl exits: rmmod right after cfctl detach would fail. The leaks end
 * with the child.
 *
 * Return: as dispatch_detach(); -EIO for a failure the child reported.
 */
int dispatch_detach_ours(const char *ifname, unsigned int ifindex,
			 bool dry_run)
{
	struct dispatch_info d;
	int status, err;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		cf_err("cannot fork: %s", strerror(-err));
		return err;
	}
	if (!pid) {
		err = dispatch_query(ifindex, &d);
		if (err)
			cf_err("cannot read %s's libxdp dispatcher: %s", ifname,
			       strerror(-err));
		else
			err = dispatch_detach(ifname, ifindex, &d, dry_run);
		fflush(NULL);
		_exit(err == 0 ? 0 : err == 1 ? 1 : 2);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status) > 1)
		return -EIO;
	return WEXITSTATUS(status);
}
