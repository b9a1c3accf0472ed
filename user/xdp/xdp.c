// SPDX-License-Identifier: GPL-2.0
/*
 * The XDP side of cfctl: attach the program embedded as a libbpf skeleton.
 * The program shares its counters with every attached interface, and with
 * the programs other loaders load from the same object, through the map
 * pinned at CF_STATS_PIN (xdp_stats.c); detach is in xdp_detach.c, the TC
 * hook in xdp_tc.c, libxdp's dispatcher in xdp_dispatch.c, and where the
 * program runs (cfctl status) in xdp_status.c.
 *
 * An XDP attach goes through libxdp's dispatcher, so that other tools'
 * programs can run beside cfilter's, unless cfilter's or another tool's
 * program runs there without one: then the program is attached plain, as
 * it is where the dispatcher cannot work (an older kernel, no bpffs,
 * LIBXDP_SKIP_DISPATCHER=1).
 *
 * The pinned map outlives detach on purpose: nothing tells cheaply whether
 * another interface still runs the program, and counters that survive a
 * detach/attach cycle are what an operator expects. It goes away at reboot,
 * or with rm.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/cfilter.h>

#include "cfilter.skel.h"
#include "device/device.h"
#include "lib/util.h"
#include "xdp/droplog.h"
#include "xdp/prefilter_size.h"
#include "xdp/xdp.h"
#include "xdp/xdp_int.h"

#define MSG_NO_BTF	"cfilter.ko is loaded without BTF, so no BPF program can call its kfunc: build it against a kernel build tree that has vmlinux and tools/bpf/resolve_btfids (README, \"Using it on a real host\")"

/* Sets *@ifindex; else says why there is none. Returns enum cf_exit. */
int iface_index(const char *ifname, unsigned int *ifindex)
{
	*ifindex = if_nametoindex(ifname);
	if (*ifindex)
		return CF_OK;
	if (errno == ENODEV) {
		cf_err("unknown interface '%s': no such network device",
		       ifname);
		return CF_USAGE;
	}
	cf_err("cannot look up interface '%s': %s", ifname, strerror(errno));
	return CF_SYSTEM;
}

/* ARPHRD_ETHER of <linux/if_arp.h>, which clashes with libc's headers. */
#define LINK_TYPE_ETHER	1

/*
 * The programs parse Ethernet frames: on a link without Ethernet headers
 * (loopback, tun, WireGuard) they would read an IP header as one and pass
 * everything unparsed. Refused; a link whose type cannot be read is let be.
 * Returns enum cf_exit.
 */
static int check_ethernet(const char *ifname)
{
	unsigned int type;
	char path[64];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/sys/class/net/%s/type", ifname);
	f = fopen(path, "r");
	if (!f)
		return CF_OK;
	n = fscanf(f, "%u", &type);
	fclose(f);
	if (n != 1 || type == LINK_TYPE_ETHER)
		return CF_OK;
	cf_err("%s is not an Ethernet link (link type %u%s): cfilter parses Ethernet frames; attach it to the Ethernet device the traffic arrives on",
	       ifname, type, type == 772 ? ", loopback" :
	       type == 65534 ? ", no link-layer header: tun, WireGuard" : "");
	return CF_USAGE;
}

static const char *xdp_mode_name(__u8 attach_mode)
{
	switch (attach_mode) {
	case XDP_ATTACHED_DRV:
		return "native";
	case XDP_ATTACHED_SKB:
		return "generic";
	case XDP_ATTACHED_HW:
		return "offloaded";
	default:
		return "mixed";
	}
}

/* The mode the kernel chose for @ifindex's XDP program. */
static const char *attached_mode(unsigned int ifindex)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	if (bpf_xdp_query(ifindex, 0, &q) || !q.prog_id)
		return "an unknown";
	return xdp_mode_name(q.attach_mode);
}

/*
 * Is the module there, and with the BTF a program needs to call its kfunc?
 * Says which is missing; returns false if either is.
 */
static bool module_ready(void)
{
	if (access(CF_MODULE, F_OK)) {
		cf_err(MSG_NO_MODULE);
		return false;
	}
	if (access(CF_MODULE_BTF, F_OK)) {
		cf_err(MSG_NO_BTF);
		return false;
	}
	return true;
}

/*
 * Hands the loaded program's prefilter map to the module, which keeps it
 * in step with the keys from then on: packets from address space no key
 * touches then pass without the kfunc call; and in compact mode its mirror
 * of the IPv4 source table, which settles most of the rest in the
 * program. Without them the program still filters every packet, through
 * the kfunc: say so and go on.
 */
static void hand_over_prefilter(struct cfilter_bpf *skel)
{
	int fd = open(CFILTER_DEVICE, O_RDWR | O_CLOEXEC);
	int err = fd < 0 ? -errno : 0, mirror_err = -ENOENT;

	if (!err)
		err = cf_hand_over(skel, fd, &mirror_err);
	if (err)
		cf_err("note: cfilter.ko does not keep the program's prefilter (%s): every packet calls the kfunc",
		       err == -ENOTTY ? "a module older than cfctl" :
		       strerror(-err));
	else if (mirror_err && mirror_err != -ENOENT)
		cf_err("note: cfilter.ko does not keep the program's mirror (%s): IPv4 sources the prefilter cannot settle call the kfunc",
		       mirror_err == -ENOTTY ? "a module older than cfctl" :
		       strerror(-mirror_err));
	if (fd >= 0)
		close(fd);
}

static int report_load_error(int err, const char *ifname)
{
	switch (-err) {
	case ESRCH:	/* libbpf: the kfunc is in no kernel or module BTF */
		module_ready();
		break;
	case EPERM:
		cf_err(MSG_NO_PERM_BPF);
		break;
	default:
		cf_err("the kernel rejected cfilter's BPF program (%s): run cfctl attach -v %s to see why",
		       strerror(-err), ifname);
	}
	return CF_SYSTEM;
}

static int report_attach_error(int err, const char *ifname,
			       enum cf_xdp_mode mode)
{
	switch (-err) {
	case EBUSY:	/* XDP_FLAGS_UPDATE_IF_NOEXIST: a program is there */
	case EEXIST:	/* one in the other mode: only one mode at a time */
		cf_err("%s already has an XDP program: cfctl attach --force %s replaces it in one step",
		       ifname, ifname);
		break;
	case EOPNOTSUPP:
		if (mode == CF_XDP_NATIVE)
			cf_err("%s does not support native XDP: use --mode generic",
			       ifname);
		else
			cf_err("%s does not support XDP", ifname);
		break;
	default:
		cf_bpf_err(err, "cannot attach to %s: %s: run cfctl attach -v %s for the kernel's reason",
			   ifname, strerror(-err), ifname);
	}
	return CF_SYSTEM;
}

/* The id of the program @prog_fd, or 0 if it cannot be read. */
static __u32 prog_id_of(int prog_fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(prog_fd, &info, &len) ? 0 : info.id;
}

/* What runs on an interface, as attach needs to know it. */
struct xdp_running {
	__u32			ours;		/* cfilter's program, or 0 */
	enum cf_xdp_mode	ours_mode;
	__u32			other;		/* another tool's XDP program, or 0 */
	enum cf_xdp_mode	other_mode;
	char			other_name[BPF_OBJ_NAME_LEN];
	struct dispatch_info	disp;		/* libxdp's dispatcher there */
};

/*
 * The program @id in the XDP slot of @mode, if any, into @r: ours, or
 * another tool's (one it cannot read counts as another's, named "?").
 */
static void note_xdp(__u32 id, enum cf_xdp_mode mode, struct xdp_running *r)
{
	char name[BPF_OBJ_NAME_LEN] = "?";
	int fd;

	if (!id)
		return;
	fd = prog_open(id, name);
	if (fd >= 0)
		close(fd);
	if (fd >= 0 && !strcmp(name, CF_PROG_NAME)) {
		if (!r->ours) {
			r->ours = id;
			r->ours_mode = mode;
		}
	} else if (!r->other) {
		r->other = id;
		r->other_mode = mode;
		memcpy(r->other_name, name, sizeof(name));
	}
}

/*
 * What runs on @ifindex: where cfilter's program runs (a zero @r->ours if
 * nowhere there), and another tool's XDP program. One hook per interface:
 * the XDP and the TC program together would judge and count every packet
 * twice. An offloaded program of ours cannot be replaced: it is refused.
 * Returns enum cf_exit.
 */
static int find_running(const char *ifname, unsigned int ifindex,
			struct xdp_running *r)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	__u32 tc_id;
	int err;

	memset(r, 0, sizeof(*r));
	r->disp.ours = -1;
	err = bpf_xdp_query(ifindex, 0, &q);
	if (!err)
		err = tc_query(ifindex, &tc_id);
	if (err) {
		cf_bpf_err(err, "cannot query the programs on %s: %s", ifname,
			   strerror(-err));
		return CF_SYSTEM;
	}
	if (prog_is(q.hw_prog_id, CF_PROG_NAME)) {
		cf_err("%s runs cfilter's program offloaded: run cfctl detach %s first",
		       ifname, ifname);
		return CF_SYSTEM;
	}
	/*
	 * A dispatcher is no other tool's program but a place beside them,
	 * where cfilter's may run already.
	 */
	if (prog_is(q.drv_prog_id, CF_DISPATCHER_NAME) ||
	    prog_is(q.skb_prog_id, CF_DISPATCHER_NAME)) {
		err = dispatch_query(ifindex, &r->disp);
		if (err) {
			cf_err("cannot read %s's libxdp dispatcher: %s", ifname,
			       strerror(-err));
			return CF_SYSTEM;
		}
	}
	if (r->disp.ours >= 0) {
		r->ours = r->disp.progs[r->disp.ours].id;
		r->ours_mode = r->disp.mode;
	}
	/* An offloaded program of another tool does not stop an attach. */
	if (q.drv_prog_id != r->disp.id)
		note_xdp(q.drv_prog_id, CF_XDP_NATIVE, r);
	if (q.skb_prog_id != r->disp.id)
		note_xdp(q.skb_prog_id, CF_XDP_GENERIC, r);
	if (!r->ours && prog_is(tc_id, CF_TC_PROG_NAME)) {
		r->ours_mode = CF_TC;
		r->ours = tc_id;
	}
	return CF_OK;
}

static __u32 mode_flags(enum cf_xdp_mode mode)
{
	switch (mode) {
	case CF_XDP_NATIVE:
		return XDP_FLAGS_DRV_MODE;
	case CF_XDP_GENERIC:
		return XDP_FLAGS_SKB_MODE;
	default:
		return 0;
	}
}

static const char *const mode_words[] = {
	[CF_XDP_AUTO]		= "auto",
	[CF_XDP_NATIVE]		= "native",
	[CF_XDP_GENERIC]	= "generic",
	[CF_TC]			= "tc",
};

/*
 * A new attach where cfilter runs already replaces its program in one step
 * (destination matching on or off), in the same hook and mode: moving it
 * elsewhere would leave packets unfiltered between the two. Returns the
 * mode to attach in, or -1 (reported) if @want asks for another.
 */
static int replace_mode(const char *ifname, enum cf_xdp_mode want,
			enum cf_xdp_mode now)
{
	if (want == CF_XDP_AUTO || want == now)
		return now;
	cf_err("%s runs cfilter's program in %s mode: it is replaced only in the same mode (run cfctl detach %s first to move it to %s)",
	       ifname, mode_words[now], ifname, mode_words[want]);
	return -1;
}

/* The ip(8) word that removes an XDP program attached in @mode. */
static const char *ip_xdp_word(enum cf_xdp_mode mode)
{
	return mode == CF_XDP_NATIVE ? "xdpdrv" : "xdpgeneric";
}

/*
 * Another tool's XDP program runs on @ifname: with --force, cfilter's
 * replaces it in one step, in its mode (replacing it elsewhere would leave
 * packets unfiltered between the two). Returns the mode to attach in, or
 * -1 (reported).
 */
static int take_over_mode(const char *ifname, const struct xdp_running *run,
			  const struct xdp_attach_req *r)
{
	if (!r->force) {
		cf_err("%s runs another tool's XDP program (%s, prog id %u): cfctl attach --force %s replaces it in one step, or remove it first (ip link set dev %s %s off)",
		       ifname, run->other_name, run->other, ifname, ifname,
		       ip_xdp_word(run->other_mode));
		return -1;
	}
	if (r->mode != CF_XDP_AUTO && r->mode != run->other_mode) {
		cf_err("%s runs %s in %s mode: --force replaces it only in that mode (remove it first to attach in %s mode)",
		       ifname, run->other_name, mode_words[run->other_mode],
		       mode_words[r->mode]);
		return -1;
	}
	return run->other_mode;
}

/*
 * Another tool's dispatcher runs on @ifname: cfilter's program joins it, in
 * its mode (a dispatcher has one). Returns that mode, or -1 (reported) if
 * @want is another.
 */
static int join_mode(const char *ifname, enum cf_xdp_mode want,
		     const struct dispatch_info *d)
{
	if (want == CF_XDP_AUTO || want == d->mode)
		return d->mode;
	cf_err("%s runs a libxdp dispatcher in %s mode: cfilter's program joins it only in that mode (unload its programs first to attach in %s mode)",
	       ifname, mode_words[d->mode], mode_words[want]);
	return -1;
}

/*
 * Replaces the XDP program @old_id on @ifindex by @prog_fd, in one step:
 * XDP_FLAGS_REPLACE fails if @old_id was replaced meanwhile.
 */
static int xdp_replace(const char *ifname, unsigned int ifindex, int prog_fd,
		       enum cf_xdp_mode mode, __u32 old_id)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts);
	int err;

	opts.old_prog_fd = bpf_prog_get_fd_by_id(old_id);
	if (opts.old_prog_fd < 0) {
		cf_err("cannot open %s's program %u: %s", ifname, old_id,
		       strerror(errno));
		return CF_SYSTEM;
	}
	err = bpf_xdp_attach(ifindex, prog_fd,
			     XDP_FLAGS_REPLACE | mode_flags(mode), &opts);
	close(opts.old_prog_fd);
	if (err == -EEXIST) {
		cf_err("%s's program changed while cfctl replaced it: nothing done, try again",
		       ifname);
		return CF_SYSTEM;
	}
	if (err)
		return report_attach_error(err, ifname, mode);
	return CF_OK;
}

/* How an XDP attach is made: in libxdp's dispatcher, or alone. */
struct path {
	bool		dispatcher;
	const char	*why_plain;	/* a plain attach's reason, or NULL */
};

/*
 * What attach would do, short of doing it. Whether a driver supports native
 * XDP shows only when attaching; an occupied interface showed already.
 */
static int attach_dry_run(const char *ifname, enum cf_xdp_mode mode,
			  const struct xdp_running *run,
			  const struct path *path)
{
	static const char *const how[] = {
		[CF_XDP_AUTO]		= "native mode if the driver supports it, else generic",
		[CF_XDP_NATIVE]		= "native mode",
		[CF_XDP_GENERIC]	= "generic mode",
		[CF_TC]			= "TC ingress",
	};
	const char *via = mode == CF_TC ? "" : path->dispatcher ?
			  ", through libxdp's dispatcher" : ", plain XDP";

	if (run->ours)
		printf("would replace %s's program %u in %s%s (dry run: nothing changed)\n",
		       ifname, run->ours, how[mode], via);
	else if (run->other && mode != CF_TC)
		printf("would replace %s's program %s (prog id %u) by %s in %s%s (dry run: nothing changed)\n",
		       ifname, run->other_name, run->other, CF_PROG_NAME,
		       how[mode], via);
	else
		printf("would attach %s to %s in %s%s (dry run: nothing changed)\n",
		       mode == CF_TC ? CF_TC_PROG_NAME : CF_PROG_NAME, ifname,
		       how[mode], via);
	return CF_OK;
}

/*
 * The prefilter's hashed bits for the module as it is (prefilter_size.h):
 * for the addresses the live set holds, or what compact mode records; the
 * fewest if the module does not say (it hands the map over anyway, or not
 * at all, and says so then). And in *@mirror the entries of its compact
 * mirror, 0 for none.
 */
static __u32 module_prefilter_bits(__u64 *mirror)
{
	static const __u8 types[] = { CFILTER_KEY_SRC4, CFILTER_KEY_SRC6,
				      CFILTER_KEY_DST4, CFILTER_KEY_DST6 };
	struct cfilter_type_info ti;
	struct cfilter_info info;
	__u64 n = 0;
	unsigned int i;
	int fd = open(CFILTER_DEVICE, O_RDONLY | O_CLOEXEC);

	*mirror = 0;
	if (fd < 0)
		return cfilter_prefilter_bits_for(0);
	if (dev_info(fd, &info)) {
		close(fd);
		return cfilter_prefilter_bits_for(0);
	}
	*mirror = cf_mirror_entries(&info);
	for (i = 0; i < sizeof(types); i++)
		if (!dev_type_info(fd, types[i], false, &ti))
			n += ti.count - ti.prefixes;
	close(fd);
	return cf_prefilter_bits(&info, n);
}

/*
 * Opens the embedded object for @mode's program, set up as @r asks, its
 * counters the pinned map's if there is one (*@pinned_map: whether).
 * Returns the skeleton, or NULL (reported).
 */
static struct cfilter_bpf *open_program(const struct xdp_attach_req *r,
					enum cf_xdp_mode mode,
					bool *pinned_map)
{
	struct cfilter_bpf *skel;
	int shared, err;
	__u64 mirror;

	skel = cfilter_bpf__open();
	if (!skel) {
		cf_err("cannot open the embedded XDP program: %s",
		       strerror(errno));
		return NULL;
	}
	/* Only the program @mode runs is loaded. */
	bpf_program__set_autoload(skel->progs.cfilter_tc, mode == CF_TC);
	bpf_program__set_autoload(skel->progs.cfilter_xdp, mode != CF_TC);
	/* Read-only data, fixed at load: the verifier prunes the other path. */
	skel->rodata->match_dst = r->match_dst;
	err = cf_prefilter_size(skel, module_prefilter_bits(&mirror));
	if (!err)
		err = cf_mirror_size(skel, mirror);
	if (err) {
		cf_err("cannot size the program's prefilter maps: %s", strerror(-err));
		goto err;
	}

	/*
	 * libbpf reuses the map pinned at CF_STATS_PIN, or pins the one it
	 * creates there before the program can count into it. A dry run
	 * pins nothing: its map is its own.
	 */
	shared = r->dry_run ? 0 : stats_map_prepare();
	if (shared < 0)
		goto err;
	*pinned_map = shared;
	err = bpf_map__set_pin_path(skel->maps.cfilter_stats,
				    r->dry_run ? NULL : CF_STATS_PIN);
	if (err) {
		cf_err("cannot set the counter map's pin path: %s",
		       strerror(-err));
		goto err;
	}
	/* The drop log's maps are shared alike (log_pins.c). */
	if (log_pins_prepare(skel->obj, r->dry_run))
		goto err;
	return skel;
err:
	cfilter_bpf__destroy(skel);
	return NULL;
}

/*
 * Attaches through libxdp's dispatcher: a new one if @ifname has none,
 * else the one there, beside its programs, replacing cfilter's. Returns
 * enum cf_exit, or -1 if a plain attach should be made instead
 * (@path->why_plain says why).
 */
static int attach_dispatched(const char *ifname, unsigned int ifindex,
			     const struct xdp_attach_req *r,
			     enum cf_xdp_mode mode,
			     const struct xdp_running *run, struct path *path)
{
	struct dispatch_prog got;
	struct dispatch_info now;
	struct cfilter_bpf *skel;
	__u32 dispatcher_id;
	bool pinned_map;
	int err, ret = CF_SYSTEM;

	skel = open_program(r, mode, &pinned_map);
	if (!skel)
		return CF_SYSTEM;
	err = dispatch_attach(ifname, ifindex, skel->obj, mode, r->priority,
			      &run->disp, &got, &dispatcher_id);
	if (err == -EALREADY)
		goto out;
	if (err == -ESRCH) {	/* libbpf: the kfunc is in no BTF */
		module_ready();
		goto out;
	}
	if (err && !run->disp.id && err != -EPERM && err != -EACCES) {
		/* Nothing ran there: a plain attach does what it can. */
		path->dispatcher = false;
		path->why_plain = "libxdp's dispatcher failed here (cfctl attach -v says why)";
		ret = -1;
		goto out;
	}
	if (err) {
		dispatch_report_error(err, ifname);
		goto out;
	}
	hand_over_prefilter(skel);
	/* Counting started: bpftool's place for the counters too. */
	if (stats_map_share(skel->maps.cfilter_stats) ||
	    log_pins_share(skel->obj)) {
		if (!dispatch_query(ifindex, &now))
			dispatch_detach(ifname, ifindex, &now, false);
		goto out;
	}
	if (!dispatcher_id) {
		/* libxdp's own fallback, where the kernel cannot do better */
		printf("%s: attached %s in %s mode (prog id %u; plain XDP)\n",
		       ifname, CF_PROG_NAME, attached_mode(ifindex), got.id);
		cf_err("note: libxdp attached %s without its dispatcher (this kernel cannot run one, or LIBXDP_SKIP_DISPATCHER=1): no other XDP program can join it on %s",
		       CF_PROG_NAME, ifname);
	} else if (run->ours) {
		printf("%s: replaced %s in %s mode (prog id %u was %u; libxdp dispatcher %u, priority %u)\n",
		       ifname, CF_PROG_NAME, attached_mode(ifindex), got.id,
		       run->ours, dispatcher_id, got.priority);
	} else {
		printf("%s: attached %s in %s mode (prog id %u; libxdp dispatcher %u, priority %u%s)\n",
		       ifname, CF_PROG_NAME, attached_mode(ifindex), got.id,
		       dispatcher_id, got.priority,
		       run->disp.n ? ", beside other programs" : "");
	}
	ret = CF_OK;
out:
	/* A failed first attach leaves no pin behind (a fallback reuses it). */
	if (ret > 0 && !pinned_map)
		stats_map_unpin();
	cfilter_bpf__destroy(skel);
	return ret;
}

/* What runs on an interface, and how attach goes about it there. */
struct attach_plan {
	enum cf_xdp_mode	mode;	/* the mode to attach in */
	struct xdp_running	run;
	struct path		path;
	__u32			old;	/* the program replaced in one step, or 0 */
};

/*
 * Looks at what runs on @ifname and decides, from @r, the mode and path
 * of the attach into @p. Returns enum cf_exit.
 */
static int plan_attach(const char *ifname, unsigned int ifindex,
		       const struct xdp_attach_req *r, struct attach_plan *p)
{
	int ret = 0;

	p->mode = r->mode;
	p->path = (struct path){ .dispatcher = true };
	p->old = 0;
	set_verbose(r->verbose);
	dispatch_clean();
	ret = find_running(ifname, ifindex, &p->run);
	if (ret != CF_OK)
		return ret;
	if (p->run.ours) {
		ret = replace_mode(ifname, p->mode, p->run.ours_mode);
		p->old = p->run.ours;
	} else if (p->run.other && p->mode != CF_TC) {
		ret = take_over_mode(ifname, &p->run, r);
		p->old = p->run.other;
	} else if (p->run.disp.id && p->mode != CF_TC) {
		ret = join_mode(ifname, p->mode, &p->run.disp);
	}
	if (ret < 0)
		return CF_SYSTEM;
	if (p->old || (p->run.disp.id && p->mode != CF_TC))
		p->mode = ret;
	/*
	 * A program attached alone is replaced alone: putting a dispatcher
	 * in its place would take two steps.
	 */
	if (p->old && !p->run.disp.id)
		p->path.dispatcher = false;
	if (p->mode != CF_TC && !p->path.dispatcher && r->priority >= 0)
		cf_err("note: --priority orders the programs of libxdp's dispatcher; %s runs %s without one",
		       ifname, p->run.ours ? CF_PROG_NAME : p->run.other_name);
	return CF_OK;
}

/*
 * Puts the loaded program of @skel on @ifname as @p says, alone: in TC,
 * in the place of @p->old, or on an empty XDP slot. Returns enum cf_exit.
 */
static int place_program(const char *ifname, unsigned int ifindex,
			 struct cfilter_bpf *skel,
			 const struct attach_plan *p)
{
	int fd, err, ret;

	if (p->mode == CF_TC)
		return tc_attach(ifname, ifindex,
				 bpf_program__fd(skel->progs.cfilter_tc),
				 p->run.ours);
	fd = bpf_program__fd(skel->progs.cfilter_xdp);
	if (p->old) {
		ret = xdp_replace(ifname, ifindex, fd, p->mode, p->old);
		if (ret == CF_OK)
			printf("%s: replaced %s%s%s in %s mode (prog id %u was %u; plain XDP)\n",
			       ifname,
			       p->run.ours ? CF_PROG_NAME : p->run.other_name,
			       p->run.ours ? "" : " with ",
			       p->run.ours ? "" : CF_PROG_NAME,
			       mode_words[p->mode], prog_id_of(fd), p->old);
		return ret;
	}
	err = bpf_xdp_attach(ifindex, fd,
			     XDP_FLAGS_UPDATE_IF_NOEXIST | mode_flags(p->mode),
			     NULL);
	if (err)
		return report_attach_error(err, ifname, p->mode);
	printf("%s: attached %s in %s mode (prog id %u; plain XDP)\n", ifname,
	       CF_PROG_NAME, attached_mode(ifindex), prog_id_of(fd));
	if (p->path.why_plain)
		cf_err("note: %s: %s runs cfilter's program without a dispatcher, which no other XDP program can join",
		       p->path.why_plain, ifname);
	return CF_OK;
}

/*
 * Loads the program and attaches it without libxdp's dispatcher (or, with
 * @r->dry_run, says what it would do). Returns enum cf_exit.
 */
static int attach_plain(const char *ifname, unsigned int ifindex,
			const struct xdp_attach_req *r,
			const struct attach_plan *p)
{
	struct cfilter_bpf *skel;
	bool pinned = false, pinned_map;
	int err, ret = CF_SYSTEM;

	skel = open_program(r, p->mode, &pinned_map);
	if (!skel)
		return CF_SYSTEM;

	err = cfilter_bpf__load(skel);
	if (err) {
		ret = report_load_error(err, ifname);
		goto cleanup;
	}
	if (r->dry_run) {
		ret = attach_dry_run(ifname, p->mode, &p->run, &p->path);
		goto cleanup;
	}
	pinned = !pinned_map;
	if (stats_map_share(skel->maps.cfilter_stats) ||
	    log_pins_share(skel->obj))
		goto cleanup;
	hand_over_prefilter(skel);
	ret = place_program(ifname, ifindex, skel, p);

cleanup:
	/* A failed first attach leaves nothing behind. */
	if (ret != CF_OK && pinned)
		stats_map_unpin();
	cfilter_bpf__destroy(skel);
	return ret;
}

/**
 * xdp_attach() - load the program and attach it to @ifname
 * @ifname: interface
 * @r:      how (see struct xdp_attach_req); with @r->dry_run, the program
 *          is loaded (the verifier and permissions have their say) and
 *          @ifname looked at, but nothing is attached or pinned
 *
 * The program shares the pinned counter map if there is one, else pins the
 * one it creates. The attachment is held by the interface (a pinned link,
 * in libxdp's dispatcher), not by cfctl. A program of ours there, or
 * another tool's with @r->force, is replaced in one step.
 *
 * Return: enum cf_exit.
 */
int xdp_attach(const char *ifname, const struct xdp_attach_req *r)
{
	struct attach_plan plan;
	unsigned int ifindex;
	int ret;

	ret = iface_index(ifname, &ifindex);
	if (ret != CF_OK)
		return ret;
	ret = check_ethernet(ifname);
	if (ret != CF_OK)
		return ret;
	ret = plan_attach(ifname, ifindex, r, &plan);
	if (ret != CF_OK)
		return ret;
	/* The kfunc lives in the module: say so before libbpf fails on it. */
	if (!module_ready())
		return CF_SYSTEM;

	set_verbose(r->verbose);
	if (plan.mode != CF_TC && plan.path.dispatcher && !r->dry_run) {
		ret = attach_dispatched(ifname, ifindex, r, plan.mode,
					&plan.run, &plan.path);
		if (ret >= 0)
			return ret;
	}
	return attach_plain(ifname, ifindex, r, &plan);
}
