// SPDX-License-Identifier: GPL-2.0
/* Detach cfilter's XDP and TC programs from an interface, and only cfilter's. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/util.h"
#include "xdp/xdp.h"
#include "xdp/xdp_int.h"

/* How many references hold cfilter.ko; absent when it is not loaded. */
#define CF_MODULE_REFCNT	CF_MODULE "/refcnt"
/* How long detach waits for a detached program to let go of the module. */
#define CF_RELEASE_WAIT_MS	5000

/*
 * One slot per XDP mode: an interface can hold an offloaded program next to
 * a native or generic one.
 */
struct xdp_slot {
	__u32		prog_id;
	__u32		flags;
	const char	*ip_word;	/* what ip(8) calls the mode */
};

/*
 * Detaches the program in @slot if it is ours. Returns 0 if it was, 1 with
 * its name in @other if it is another tool's, or a reported negative errno.
 */
static int detach_slot(const char *ifname, unsigned int ifindex,
		       const struct xdp_slot *slot, char *other, bool dry_run)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts);
	char name[BPF_OBJ_NAME_LEN];
	int fd, err;

	fd = prog_open(slot->prog_id, name);
	if (fd < 0) {
		cf_bpf_err(fd, "cannot inspect XDP program %u on %s: %s",
			   slot->prog_id, ifname, strerror(-fd));
		return fd;
	}
	if (!strcmp(name, CF_DISPATCHER_NAME)) {
		close(fd);
		err = dispatch_detach_ours(ifname, ifindex, dry_run);
		if (err == 1)
			memcpy(other, name, BPF_OBJ_NAME_LEN);
		return err;
	}
	if (strcmp(name, CF_PROG_NAME)) {
		memcpy(other, name, BPF_OBJ_NAME_LEN);
		close(fd);
		return 1;
	}

	if (dry_run) {
		printf("would detach %s (prog id %u) from %s (dry run: nothing changed)\n",
		       CF_PROG_NAME, slot->prog_id, ifname);
		close(fd);
		return 0;
	}
	/* Detach exactly this program, never one attached meanwhile. */
	opts.old_prog_fd = fd;
	err = bpf_xdp_detach(ifindex, slot->flags, &opts);
	close(fd);
	if (err)
		cf_bpf_err(err, "cannot detach from %s: %s", ifname,
			   strerror(-err));
	return err;
}

/* Detaches our XDP and TC programs. Returns enum cf_exit. */
static int detach_ours(const char *ifname, unsigned int ifindex,
		       const struct bpf_xdp_query_opts *q, bool dry_run)
{
	const struct xdp_slot slots[] = {
		{ q->drv_prog_id, XDP_FLAGS_DRV_MODE, "xdpdrv" },
		{ q->skb_prog_id, XDP_FLAGS_SKB_MODE, "xdpgeneric" },
		{ q->hw_prog_id, XDP_FLAGS_HW_MODE, "xdpoffload" },
	};
	char other[BPF_OBJ_NAME_LEN] = "";
	const char *other_word = "xdp";
	bool detached = false;
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(slots); i++) {
		if (!slots[i].prog_id)
			continue;
		err = detach_slot(ifname, ifindex, &slots[i], other, dry_run);
		if (err < 0)
			return CF_SYSTEM;
		detached |= !err;
		if (err == 1)
			other_word = slots[i].ip_word;
	}
	err = tc_detach(ifname, ifindex, dry_run);
	if (err < 0)
		return CF_SYSTEM;
	detached |= !err;

	if (detached)
		return CF_OK;
	if (other[0])
		cf_err("%s runs another tool's XDP program (%s): cfctl detaches only %s and %s; remove it with the tool that attached it, or ip link set dev %s %s off",
		       ifname, other, CF_PROG_NAME, CF_TC_PROG_NAME, ifname,
		       other_word);
	else
		cf_err("no cfilter program on %s", ifname);
	return CF_SYSTEM;
}

/* cfilter.ko's reference count, or -1 if it cannot be read. */
static long module_refcnt(void)
{
	FILE *f = fopen(CF_MODULE_REFCNT, "r");
	long n = -1;

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

/*
 * A detached program lets go of cfilter.ko only after an RCU grace period
 * and a work item, a moment after the detach; until then rmmod fails
 * (EAGAIN). Waits a little for the module's count to fall below @before,
 * so that "cfctl detach IFACE; rmmod cfilter" works as written. Another
 * holder of the program (a pin) keeps it: then the wait just ends.
 */
static void wait_module_released(long before)
{
	const struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };
	int waited;

	for (waited = 0; waited < CF_RELEASE_WAIT_MS; waited += 10) {
		long now = module_refcnt();

		if (now < 0 || now < before)
			return;
		nanosleep(&tick, NULL);
	}
}

/**
 * xdp_detach() - detach our program from @ifname
 * @ifname:  interface
 * @verbose: let libbpf print its diagnostics
 * @dry_run: say what would be detached, and detach nothing
 *
 * Only a program named CF_PROG_NAME is detached; another tool's program is
 * left alone. The pinned counter map stays (see the top of xdp.c).
 * Returns once the program has let go of the module, or after a few
 * seconds if something else still holds it.
 *
 * Return: enum cf_exit.
 */
int xdp_detach(const char *ifname, bool verbose, bool dry_run)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	unsigned int ifindex;
	int err, ret;
	long before;

	ret = iface_index(ifname, &ifindex);
	if (ret != CF_OK)
		return ret;

	set_verbose(verbose);
	err = bpf_xdp_query(ifindex, 0, &q);
	if (err) {
		cf_bpf_err(err, "cannot query XDP programs on %s: %s", ifname,
			   strerror(-err));
		return CF_SYSTEM;
	}
	before = module_refcnt();
	if (!dry_run)
		dispatch_clean();
	ret = detach_ours(ifname, ifindex, &q, dry_run);
	if (ret == CF_OK && !dry_run && before > 0)
		wait_module_released(before);
	return ret;
}
