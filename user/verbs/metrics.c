// SPDX-License-Identifier: GPL-2.0
/*
 * stats --format prometheus: whether the module is loaded (with BTF) and
 * where the program runs, the counters, the sources' drops and holdings,
 * the sets' sizes and memory and the versions, in Prometheus' text
 * exposition format, on stdout or (--textfile) atomically into a file for
 * node_exporter's textfile collector. Written in every state, the module
 * missing and nothing attached included: those are what an alert must see,
 * and a file left from before would hide them.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device/device.h"
#include "lib/addr.h"
#include "verbs/verb.h"
#include "xdp/counters.h"

#define CF_MODULE_VERSION	CF_MODULE "/version"

/* The module and where its program runs, as the metrics need them. */
struct module_state {
	bool			present;	/* CF_MODULE */
	bool			btf;		/* CF_MODULE_BTF */
	bool			answered;	/* @live was read from the device */
	char			version[64];
	struct dev_state	live;
	struct cf_stats		stats;
	struct xdp_where	*where;		/* each program attached */
	size_t			nwhere;
};

static void family(FILE *f, const char *name, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value, with what the format escapes escaped. */
static void label_value(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(f, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

/* NAME{LABEL="VALUE"} N */
static void sample1(FILE *f, const char *name, const char *label,
		    const char *value, unsigned long long n)
{
	fprintf(f, "%s{%s=\"", name, label);
	label_value(f, value);
	fprintf(f, "\"} %llu\n", n);
}

/* The start of @w's sample of @name: its interface and hook (and mode). */
static void where_labels(FILE *f, const char *name, const struct xdp_where *w,
			 bool mode)
{
	fprintf(f, "%s{interface=\"", name);
	label_value(f, w->ifname);
	fprintf(f, "\",hook=\"%s\"", w->hook);
	if (mode)
		fprintf(f, ",mode=\"%s\"", w->mode);
	fputs("} ", f);
}

/* Interfaces running a program: one per interface, XDP and TC alike. */
static unsigned int interfaces(const struct module_state *m)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < m->nwhere; i++)
		n += !i || strcmp(m->where[i].ifname, m->where[i - 1].ifname);
	return n;
}

/* What an alert on "cfilter filters nothing" reads. */
static void state_metrics(FILE *f, const struct module_state *m)
{
	size_t i;

	family(f, "cfilter_module_loaded", "gauge",
	       "1 if cfilter.ko is loaded, else 0.");
	fprintf(f, "cfilter_module_loaded %d\n", m->present);
	family(f, "cfilter_module_btf", "gauge",
	       "1 if the loaded module has BTF (/sys/kernel/btf/cfilter), without which no program can call it; else 0.");
	fprintf(f, "cfilter_module_btf %d\n", m->btf);
	family(f, "cfilter_attached", "gauge",
	       "Interfaces running cfilter's XDP or TC program; 0: no packet is filtered.");
	fprintf(f, "cfilter_attached %u\n", interfaces(m));
	family(f, "cfilter_attachment_info", "gauge",
	       "Always 1: an interface running cfilter's program, its hook (xdp or tc) and mode (native, generic, offloaded or tc).");
	for (i = 0; i < m->nwhere; i++) {
		where_labels(f, "cfilter_attachment_info", &m->where[i], true);
		fputs("1\n", f);
	}
	family(f, "cfilter_prefilter_enabled", "gauge",
	       "1 where the module keeps the program's prefilter, 0 where every packet calls the module (no sample: unknown).");
	for (i = 0; i < m->nwhere; i++) {
		if (m->where[i].prefilter < 0)
			continue;
		where_labels(f, "cfilter_prefilter_enabled", &m->where[i], false);
		fprintf(f, "%d\n", m->where[i].prefilter);
	}
}

static void counter_metrics(FILE *f, const struct cf_stats *st)
{
	char name[IF_NAMESIZE + 16];
	unsigned int slot, i;

	family(f, "cfilter_packets_total", "counter",
	       "Packets cfilter's XDP and TC programs judged on every interface, by outcome.");
	for (i = 0; i < ARRAY_SIZE(stat_names); i++)
		sample1(f, "cfilter_packets_total", "reason", stat_names[i].name,
			st->total[stat_names[i].stat]);
	family(f, "cfilter_interface_packets_total", "counter",
	       "Packets judged per interface (\"other\": ifindex past the counter map's slots), by outcome.");
	for (slot = 0; slot < CFILTER_STATS_IFACES; slot++) {
		if (!stats_iface_used(st, slot))
			continue;
		stats_iface_name(slot, name, sizeof(name));
		for (i = 0; i < ARRAY_SIZE(stat_names); i++) {
			fputs("cfilter_interface_packets_total{interface=\"", f);
			label_value(f, name);
			fprintf(f, "\",reason=\"%s\"} %llu\n", stat_names[i].name,
				(unsigned long long)st->iface[slot][stat_names[i].stat]);
		}
	}
}

static void source_metrics(FILE *f, const struct cfilter_sources *s)
{
	static const struct {
		const char	*name, *type, *help;
	} fams[] = {
		{ "cfilter_source_drops_total", "counter",
		  "Packets dropped by an entry the source holds." },
		{ "cfilter_source_entries", "gauge",
		  "Entries the source holds." },
		{ "cfilter_source_timed_entries", "gauge",
		  "Entries the source holds with a timeout." },
	};
	char name[CFILTER_SOURCE_LEN + 1];
	unsigned int k, i;

	for (k = 0; k < ARRAY_SIZE(fams); k++) {
		family(f, fams[k].name, fams[k].type, fams[k].help);
		for (i = 0; i < s->count && i < CFILTER_SOURCES_MAX; i++) {
			const struct cfilter_source_info *si = &s->sources[i];

			snprintf(name, sizeof(name), "%.*s", CFILTER_SOURCE_LEN,
				 si->name);
			sample1(f, fams[k].name, "source", name,
				k == 0 ? si->drops : k == 1 ? si->entries :
				si->timed);
		}
	}
}

static void set_metrics(FILE *f, const struct module_state *m)
{
	static const struct {
		const char	*name, *help;
		size_t		offset;
	} fams[] = {
		{ "cfilter_set_entries", "Entries of the key type, prefixes counted once.",
		  offsetof(struct cfilter_type_info, count) },
		{ "cfilter_set_prefixes", "Prefixes among the key type's entries.",
		  offsetof(struct cfilter_type_info, prefixes) },
		{ "cfilter_set_prefix_markers", "Markers the key type's prefix search keeps.",
		  offsetof(struct cfilter_type_info, prefix_markers) },
		{ "cfilter_set_capacity", "Slots of the key type's tables.",
		  offsetof(struct cfilter_type_info, capacity) },
		{ "cfilter_set_memory_bytes", "Bytes the key type's tables take.",
		  offsetof(struct cfilter_type_info, memory_bytes) },
	};
	unsigned int k, i;

	for (k = 0; k < ARRAY_SIZE(fams); k++) {
		family(f, fams[k].name, "gauge", fams[k].help);
		for (i = 0; i < m->live.ntypes; i++) {
			const char *ti = (const char *)&m->live.types[i];

			sample1(f, fams[k].name, "key_type",
				key_type_name(m->live.types[i].type),
				*(const __u64 *)(ti + fams[k].offset));
		}
	}
	family(f, "cfilter_memory_used_bytes", "gauge",
	       "Bytes every set takes (staged ones too) against the module's max_memory.");
	fprintf(f, "cfilter_memory_used_bytes %llu\n",
		(unsigned long long)m->live.info.mem_used);
	family(f, "cfilter_memory_limit_bytes", "gauge",
	       "The module's max_memory= bound.");
	fprintf(f, "cfilter_memory_limit_bytes %llu\n",
		(unsigned long long)m->live.info.mem_limit);
	family(f, "cfilter_insert_failures_total", "counter",
	       "Adds refused because the filter was full.");
	fprintf(f, "cfilter_insert_failures_total %llu\n",
		(unsigned long long)m->live.info.insert_failures);
}

static void build_info(FILE *f, const struct module_state *m)
{
	family(f, "cfilter_build_info", "gauge",
	       "Always 1: the versions of cfctl (and of the XDP and TC programs it embeds) and of the loaded cfilter.ko (empty if none is).");
	fprintf(f, "cfilter_build_info{cfctl_version=\"");
	label_value(f, CFCTL_VERSION);
	fprintf(f, "\",module_version=\"");
	label_value(f, m->version);
	fprintf(f, "\"} 1\n");
}

/*
 * What the module tells, if it is loaded, and where its program runs.
 * Returns 0, or a reported negative errno (or -1) for what is there but
 * cannot be read.
 */
static int read_module(struct module_state *m)
{
	bool pinned;
	FILE *vf;
	int fd, err;

	m->present = !access(CF_MODULE, F_OK);
	m->btf = !access(CF_MODULE_BTF, F_OK);
	vf = fopen(CF_MODULE_VERSION, "r");
	if (vf) {
		if (fgets(m->version, sizeof(m->version), vf))
			m->version[strcspn(m->version, "\n")] = '\0';
		fclose(vf);
	}
	/* No map pinned: no program loaded since boot, nothing counted. */
	if (xdp_stats_read(&m->stats, &pinned) != CF_OK)
		return -1;
	err = xdp_where_all(&m->where, &m->nwhere);
	if (err) {
		cf_bpf_err(err, "cannot list the network interfaces: %s",
			   strerror(-err));
		return err;
	}
	fd = open(CFILTER_DEVICE, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0) {
		dev_report(-errno, "cannot open " CFILTER_DEVICE);
		return -1;
	}
	err = dev_read_state(fd, &m->live);
	close(fd);
	if (err) {
		dev_report(err, "cannot read the filter's info");
		return err;
	}
	m->answered = true;
	return 0;
}

static void write_metrics(FILE *f, const struct module_state *m)
{
	state_metrics(f, m);
	counter_metrics(f, &m->stats);
	if (m->answered) {
		source_metrics(f, &m->live.sources);
		set_metrics(f, m);
	}
	build_info(f, m);
}

/*
 * Writes through a temporary file in @path's directory renamed over @path,
 * so that node_exporter never reads half a file.
 */
static int write_textfile(const char *path, const struct module_state *m)
{
	size_t len = strlen(path) + sizeof(".XXXXXX");
	char *tmp = malloc(len);
	FILE *f = NULL;
	int fd, err = 0;

	if (!tmp) {
		cf_err("out of memory");
		return CF_SYSTEM;
	}
	snprintf(tmp, len, "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		cf_err("cannot create a file next to %s: %s", path,
		       strerror(errno));
		free(tmp);
		return CF_SYSTEM;
	}
	/* What node_exporter, running as another user, can read. */
	if (fchmod(fd, 0644))
		err = errno;
	else
		f = fdopen(fd, "w");
	if (!f && !err)
		err = errno;
	if (f) {
		write_metrics(f, m);
		if (fflush(f) || ferror(f) || fsync(fd))
			err = errno ? errno : EIO;
		if (fclose(f) && !err)
			err = errno;
	} else {
		close(fd);
	}
	if (!err && rename(tmp, path))
		err = errno;
	if (err) {
		cf_err("cannot write %s: %s", path, strerror(err));
		unlink(tmp);
	}
	free(tmp);
	return err ? CF_SYSTEM : CF_OK;
}

/**
 * stats_prometheus() - print or write the metrics
 * @o: with @o->textfile, the file to write them to instead of stdout
 *
 * In every state: without the module, or with no program attached, the
 * gauges say so and the counters are 0 (none has counted since boot) or
 * what the pinned map kept.
 *
 * Return: enum cf_exit: CF_SYSTEM only if something there cannot be read
 * (permissions) or the file cannot be written.
 */
int stats_prometheus(const struct cfctl_opts *o)
{
	struct module_state *m = calloc(1, sizeof(*m));
	int ret = CF_SYSTEM;

	if (!m) {
		cf_err("out of memory");
		return CF_SYSTEM;
	}
	if (read_module(m))
		goto out;
	if (o->textfile) {
		ret = write_textfile(o->textfile, m);
	} else {
		write_metrics(stdout, m);
		ret = CF_OK;
	}
out:
	free(m->where);
	free(m);
	return ret;
}
