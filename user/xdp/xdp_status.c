// SPDX-License-Identifier: GPL-2.0
/*
 * Where cfilter's programs run, and whether they match destinations: for
 * cfctl status, the metrics' gauges, and the note add gives about
 * destination entries.
 */
#include <errno.h>
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/cfilter.h>

#include "cfilter.skel.h"
#include "lib/json.h"
#include "lib/util.h"
#include "xdp/xdp.h"
#include "xdp/xdp_int.h"

/*
 * Is the prefilter map @fd (of values of @size bytes: the struct and its
 * hashed bits) kept by the module? 1, 0 or a negative errno; and *@mirror,
 * whether the mirror it describes is ready: 1 or 0.
 */
static int prefilter_ready(int fd, __u32 size, int *mirror)
{
	struct cfilter_prefilter *pf = malloc(size);
	__u32 key = 0;
	int ret;

	if (!pf)
		return -ENOMEM;
	ret = bpf_map_lookup_elem(fd, &key, pf) ? -errno :
	      pf->ready == CFILTER_PREFILTER_READY;
	if (ret > 0)
		*mirror = pf->mirror.ready == CFILTER_MIRROR_READY;
	free(pf);
	return ret;
}

/*
 * What the program @prog_fd was set up with, from its maps: whether it was
 * loaded with match_dst set (in its read-only data, which libbpf names
 * "<obj>.rodata"), whether the module keeps its prefilter (the map's
 * ready word) and, for a program loaded with a mirror, whether the
 * mirror is in use. Each is 1 or 0, or a negative errno if unreadable (or
 * -ENOENT: no mirror).
 */
static void prog_settings(int prog_fd, int *match_dst, int *prefilter,
			  int *mirror, __u64 *hbits)
{
	struct cfilter_bpf__rodata rodata;
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	__u32 ids[8], i, key = 0;
	int mirror_ready = 0;
	bool sized = false;

	*match_dst = *prefilter = *mirror = -ENOENT;
	info.nr_map_ids = ARRAY_SIZE(ids);
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len)) {
		*match_dst = *prefilter = -errno;
		return;
	}
	for (i = 0; i < info.nr_map_ids && i < ARRAY_SIZE(ids); i++) {
		struct bpf_map_info m = {};
		__u32 mlen = sizeof(m);
		int fd = bpf_map_get_fd_by_id(ids[i]);

		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &m, &mlen)) {
			close(fd);
			continue;
		}
		/* the section's size: the struct's, less its tail padding */
		memset(&rodata, 0, sizeof(rodata));
		if (strstr(m.name, ".rodata") &&
		    m.value_size <= sizeof(rodata) &&
		    m.value_size > offsetof(struct cfilter_bpf__rodata, match_dst) &&
		    !bpf_map_lookup_elem(fd, &key, &rodata))
			*match_dst = rodata.match_dst;
		if (!strncmp(m.name, "cfilter_prefil", 14) &&
		    m.value_size > sizeof(struct cfilter_prefilter)) {
			*prefilter = prefilter_ready(fd, m.value_size,
						     &mirror_ready);
			*hbits = (m.value_size -
				  sizeof(struct cfilter_prefilter)) * 8ULL;
		}
		if (!strcmp(m.name, "cfilter_mirror") && m.max_entries > 1)
			sized = true;
		close(fd);
	}
	if (sized && *prefilter >= 0)
		*mirror = *prefilter > 0 && mirror_ready;
}

/* One interface's cfilter program, for status. */
struct attachment {
	const char	*ifname;
	const char	*hook;		/* xdp or tc */
	const char	*mode;
	__u32		prog_id;
	int		match_dst;	/* 1, 0, or a negative errno: unknown */
	int		prefilter;	/* kept by the module: the same */
	int		mirror;		/* mirror in use: the same */
	__u64		hbits;		/* the prefilter's hashed bits */
	const struct dispatch_info *disp;	/* XDP: its dispatcher, or NULL */
};

static const char *const xdp_actions[] = {
	[XDP_ABORTED]	= "XDP_ABORTED",
	[XDP_DROP]	= "XDP_DROP",
	[XDP_PASS]	= "XDP_PASS",
	[XDP_TX]	= "XDP_TX",
	[XDP_REDIRECT]	= "XDP_REDIRECT",
};

/* The dispatcher's programs, in the order they run, as JSON. */
static void json_chain(const struct dispatch_info *d, struct json *j)
{
	unsigned int i, act;

	json_key(j, "dispatcher");
	json_object_begin(j);
	json_kv_uint(j, "prog_id", d->id);
	json_key(j, "programs");
	json_array_begin(j);
	for (i = 0; i < d->n; i++) {
		json_object_begin(j);
		json_kv_string(j, "name", d->progs[i].name);
		json_kv_uint(j, "prog_id", d->progs[i].id);
		json_kv_uint(j, "priority", d->progs[i].priority);
		json_key(j, "chain_call_actions");
		json_array_begin(j);
		for (act = 0; act < ARRAY_SIZE(xdp_actions); act++)
			if (d->progs[i].chain_actions & 1U << act)
				json_string(j, xdp_actions[act]);
		json_array_end(j);
		json_kv_bool(j, "cfilter", (int)i == d->ours);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

/* The dispatcher's programs, in the order they run, one a line. */
static void print_chain(const struct dispatch_info *d)
{
	unsigned int i, act;

	for (i = 0; i < d->n; i++) {
		const struct dispatch_prog *p = &d->progs[i];
		const char *sep = " on ";

		printf("  %u. priority %u: %s (prog id %u%s), next program",
		       i + 1, p->priority, p->name, p->id,
		       (int)i == d->ours ? ", cfilter" : "");
		if (!p->chain_actions)
			printf(" never");
		for (act = 0; act < ARRAY_SIZE(xdp_actions); act++) {
			if (!(p->chain_actions & 1U << act))
				continue;
			printf("%s%s", sep, xdp_actions[act]);
			sep = ", ";
		}
		printf("\n");
	}
}

/* @key: @v as a boolean, or "unknown" for a negative errno. */
static void json_kv_known(struct json *j, const char *key, int v)
{
	json_key(j, key);
	if (v < 0)
		json_string(j, "unknown");
	else
		json_bool(j, v);
}

static void print_attachment(const struct attachment *a, struct json *j)
{
	bool xdp = !strcmp(a->hook, "xdp");
	char via[64] = "";

	if (j) {
		json_object_begin(j);
		json_kv_string(j, "interface", a->ifname);
		json_kv_string(j, "hook", a->hook);
		json_kv_string(j, "mode", a->mode);
		json_kv_uint(j, "prog_id", a->prog_id);
		if (xdp)
			json_kv_string(j, "via", a->disp ? "dispatcher" : "plain");
		if (a->disp)
			json_chain(a->disp, j);
		json_kv_known(j, "prefilter", a->prefilter);
		json_kv_uint(j, "prefilter_hashed_bits", a->hbits);
		if (a->mirror != -ENOENT)
			json_kv_known(j, "compact_mirror", a->mirror);
		json_kv_known(j, "match_dst", a->match_dst);
		json_object_end(j);
		return;
	}
	if (a->disp)
		snprintf(via, sizeof(via), "; libxdp dispatcher %u",
			 a->disp->id);
	else if (xdp)
		snprintf(via, sizeof(via), "; plain XDP");
	printf("%s: %s in %s mode (prog id %u%s), destination matching %s\n",
	       a->ifname, xdp ? CF_PROG_NAME : CF_TC_PROG_NAME,
	       a->mode, a->prog_id, via,
	       a->match_dst < 0 ? "unknown" : a->match_dst ? "on" : "off");
	/* A line of its own: scripts read the line above to its end. */
	printf("  prefilter: %s\n", a->prefilter < 0 ? "unknown" :
	       a->prefilter ? "on" : "off (every packet calls the module)");
	if (a->prefilter > 0)
		printf("  prefilter hashed bits: %llu (%u per address at attach, or of capacity in compact mode; attach again to size anew)\n",
		       (unsigned long long)a->hbits,
		       CFILTER_PREFILTER_ADDR_BITS);
	if (a->mirror != -ENOENT)
		printf("  mirror: %s\n", a->mirror < 0 ? "unknown" :
		       a->mirror ? "on (IPv4 sources probed in the program)" :
		       "off (while an IPv4 source is allowed, or a replace settles)");
	if (a->disp)
		print_chain(a->disp);
}

/*
 * What a walk over the interfaces found: cfilter's attachments, and those
 * of them matching destination entries; each printed if @print, kept in
 * @list if @keep.
 */
struct survey {
	bool		print;
	struct json	*j;		/* with @print: JSON, else text */
	unsigned int	found;
	unsigned int	match_dst;
	bool		keep;
	struct xdp_where *list;
	size_t		cap;
	int		err;		/* -ENOMEM if keeping failed */
};

/* Appends @a to @s->list. */
static void survey_keep(struct survey *s, const struct attachment *a)
{
	struct xdp_where *w;

	if (s->found > s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		w = realloc(s->list, s->cap * sizeof(*w));
		if (!w) {
			s->err = -ENOMEM;
			return;
		}
		s->list = w;
	}
	w = &s->list[s->found - 1];
	snprintf(w->ifname, sizeof(w->ifname), "%s", a->ifname);
	w->hook = a->hook;
	w->mode = a->mode;
	w->match_dst = a->match_dst;
	w->prefilter = a->prefilter;
}

static void survey_add(struct survey *s, const struct attachment *a)
{
	if (s->err)
		return;
	s->found++;
	s->match_dst += a->match_dst == 1;
	if (s->print)
		print_attachment(a, s->j);
	if (s->keep)
		survey_keep(s, a);
}

/* Adds cfilter_tc if it is on @ifn's ingress. */
static void status_tc(const struct if_nameindex *ifn, struct survey *s)
{
	struct attachment a = {
		.ifname = ifn->if_name,
		.hook = "tc",
		.mode = "tc",
	};
	char name[BPF_OBJ_NAME_LEN];
	int fd;

	if (tc_query(ifn->if_index, &a.prog_id) || !a.prog_id)
		return;
	fd = prog_open(a.prog_id, name);
	if (fd < 0)
		return;
	if (strcmp(name, CF_TC_PROG_NAME)) {
		close(fd);
		return;
	}
	prog_settings(fd, &a.match_dst, &a.prefilter, &a.mirror, &a.hbits);
	close(fd);
	survey_add(s, &a);
}

/*
 * Adds every cfilter program attached to @ifname. Returns 0, or a
 * negative errno (permission) that makes the whole walk pointless.
 */
static int status_iface(const struct if_nameindex *ifn, struct survey *s)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	char name[BPF_OBJ_NAME_LEN];
	struct dispatch_info disp;
	const struct {
		__u32		*id;
		const char	*mode;
	} slots[] = {
		{ &q.drv_prog_id, "native" },
		{ &q.skb_prog_id, "generic" },
		{ &q.hw_prog_id, "offloaded" },
	};
	unsigned int i;
	int fd;

	/* An interface that went away during the walk has nothing on it. */
	if (bpf_xdp_query(ifn->if_index, 0, &q))
		return 0;
	for (i = 0; i < ARRAY_SIZE(slots); i++) {
		struct attachment a = {
			.ifname = ifn->if_name,
			.hook = "xdp",
			.mode = slots[i].mode,
			.prog_id = *slots[i].id,
		};

		if (!a.prog_id)
			continue;
		fd = prog_open(a.prog_id, name);
		if (fd == -EPERM || fd == -EACCES)
			return fd;
		if (fd >= 0 && !strcmp(name, CF_DISPATCHER_NAME)) {
			close(fd);
			/* Where it runs, cfilter's program is in there. */
			if (dispatch_query(ifn->if_index, &disp) ||
			    disp.ours < 0)
				continue;
			a.prog_id = disp.progs[disp.ours].id;
			a.disp = &disp;
			fd = prog_open(a.prog_id, name);
			if (fd == -EPERM || fd == -EACCES)
				return fd;
		}
		if (fd < 0 || strcmp(name, CF_PROG_NAME)) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		prog_settings(fd, &a.match_dst, &a.prefilter, &a.mirror, &a.hbits);
		close(fd);
		survey_add(s, &a);
	}
	status_tc(ifn, s);
	return 0;
}

/* Walks every interface into @s. Returns 0 or a negative errno. */
static int survey_all(struct survey *s)
{
	struct if_nameindex *ifs, *ifn;
	int err = 0;

	ifs = if_nameindex();
	if (!ifs)
		return -errno;
	set_verbose(false);
	for (ifn = ifs; !err && ifn->if_index; ifn++)
		err = status_iface(ifn, s);
	if_freenameindex(ifs);
	return err ? err : s->err;
}

/**
 * xdp_where_all() - where cfilter's programs run, for the metrics
 * @list: set to an array of them, one per program attached (an interface
 *        may run the XDP and the TC one), in interface order; free() it
 * @n:    set to its length
 *
 * Return: 0, or a negative errno (a missing permission makes the walk
 * pointless) with *@list NULL; nothing is printed.
 */
int xdp_where_all(struct xdp_where **list, size_t *n)
{
	struct survey s = { .keep = true };
	int err = survey_all(&s);

	*list = NULL;
	*n = 0;
	if (err) {
		free(s.list);
		return err;
	}
	*list = s.list;
	*n = s.found;
	return 0;
}

/**
 * xdp_status() - print where the program runs and whether the module is in
 * @json: one JSON document instead of text
 *
 * Return: enum cf_exit.
 */
int xdp_status(bool json)
{
	bool module = !access(CF_MODULE, F_OK);
	bool btf = !access(CF_MODULE_BTF, F_OK);
	struct json j;
	struct survey s = { .print = true, .j = json ? &j : NULL };
	int err;

	json_init(&j, stdout);
	if (json) {
		json_object_begin(&j);
		json_kv_bool(&j, "module_loaded", module);
		json_kv_bool(&j, "module_btf", btf);
		json_key(&j, "attached");
		json_array_begin(&j);
	} else {
		printf("module: %s\n", !module ? "not loaded" :
		       btf ? "loaded" : "loaded without BTF: programs cannot call its kfunc (README, \"Using it on a real host\")");
	}
	err = survey_all(&s);
	if (err) {
		cf_bpf_err(err, "cannot list the network interfaces: %s",
			   strerror(-err));
		return CF_SYSTEM;
	}
	if (json) {
		json_array_end(&j);
		json_object_end(&j);
	} else if (!s.found) {
		printf("%s: not attached anywhere\n", CF_PROG_NAME);
	}
	return CF_OK;
}

/**
 * xdp_warn_dst() - say that destination entries match nowhere, if so
 * @keys: the keys being added
 * @n:    how many
 *
 * Destination entries are looked up only by programs attached with
 * --match-dst: adding one while no interface has such a program is
 * allowed (it may be attached later) but is most likely a mistake.
 */
void xdp_warn_dst(const struct cfilter_key *keys, size_t n)
{
	struct survey s = { 0 };
	size_t i;

	for (i = 0; i < n; i++)
		if (keys[i].type == CFILTER_KEY_DST4 ||
		    keys[i].type == CFILTER_KEY_DST6)
			break;
	if (i == n || survey_all(&s) || s.match_dst)
		return;
	cf_err("note: dst entries match only where the program was attached with --match-dst, and %s: cfctl attach --match-dst IFACE (cfctl status shows where it runs)",
	       s.found ? "no interface has it so" : "it is attached nowhere");
}
