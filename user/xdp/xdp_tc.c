// SPDX-License-Identifier: GPL-2.0
/* cfilter_tc at TC ingress: find it, attach it, detach it. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "lib/util.h"
#include "xdp/xdp_int.h"

/*
 * Where cfilter_tc sits on clsact ingress: a fixed handle and priority, so
 * that a second attach collides (EEXIST) and detach finds exactly ours.
 */
#define CF_TC_HANDLE	0xcf
#define CF_TC_PRIO	0xcf

/*
 * Sets *@prog_id to the program of the TC filter at our handle and
 * priority on @ifindex's ingress, or to 0 if there is none. Returns 0 or a
 * negative errno.
 */
int tc_query(unsigned int ifindex, __u32 *prog_id)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = CF_TC_HANDLE,
		    .priority = CF_TC_PRIO);
	int err;

	*prog_id = 0;
	err = bpf_tc_query(&hook, &opts);
	/* ENOENT: no such filter; EINVAL: no clsact qdisc at all. */
	if (err == -ENOENT || err == -EINVAL)
		return 0;
	if (!err)
		*prog_id = opts.prog_id;
	return err;
}

/*
 * Attaches @prog_fd at @ifindex's clsact ingress, creating the qdisc if
 * there is none. Returns enum cf_exit.
 */
int tc_attach(const char *ifname, unsigned int ifindex, int prog_fd,
	      bool replace)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = CF_TC_HANDLE,
		    .priority = CF_TC_PRIO, .prog_fd = prog_fd,
		    .flags = replace ? BPF_TC_F_REPLACE : 0);
	bool created = true;
	int err;

	err = bpf_tc_hook_create(&hook);
	if (err == -EEXIST) {
		created = false;
		err = 0;
	}
	if (!err)
		err = bpf_tc_attach(&hook, &opts);
	if (!err) {
		printf("%s: %s %s at TC ingress (prog id %u)\n", ifname,
		       replace ? "replaced" : "attached", CF_TC_PROG_NAME,
		       opts.prog_id);
		return CF_OK;
	}

	if (err == -EEXIST)
		cf_err("%s already has a TC filter at cfilter's handle and priority: run cfctl detach %s first",
		       ifname, ifname);
	else if (err == -ENOENT)	/* no such qdisc or classifier kind */
		cf_err("the kernel lacks the clsact qdisc or the bpf classifier: run modprobe sch_ingress cls_bpf");
	else
		cf_bpf_err(err, "cannot attach to %s at TC ingress: %s", ifname,
			   strerror(-err));
	/* A clsact qdisc cfctl created for nothing would stay for good. */
	if (created) {
		hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&hook);
	}
	return CF_SYSTEM;
}

/*
 * Detaches cfilter_tc from @ifindex. Returns 0 if it did (or would), 1 if
 * it is not there, or a reported negative errno. The clsact qdisc stays:
 * it may hold other filters.
 */
int tc_detach(const char *ifname, unsigned int ifindex, bool dry_run)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = CF_TC_HANDLE,
		    .priority = CF_TC_PRIO);
	__u32 id;
	int err;

	err = tc_query(ifindex, &id);
	if (!err && !prog_is(id, CF_TC_PROG_NAME))
		return 1;
	if (!err && dry_run) {
		printf("would detach %s (prog id %u) from %s (dry run: nothing changed)\n",
		       CF_TC_PROG_NAME, id, ifname);
		return 0;
	}
	if (!err)
		err = bpf_tc_detach(&hook, &opts);
	if (err)
		cf_bpf_err(err, "cannot detach from %s at TC ingress: %s",
			   ifname, strerror(-err));
	return err;
}
