// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel memory of one prefix set, part by part, as the module would
 * count it (the core built with CUCKOO_HOST_KMALLOC: the kernel's
 * allocator sizes), for a real prefix set:
 *
 *	scripts/geoip/geoip-ranges.sh [-6] CC... | bench/mem [-6] [-c capacity]
 *
 * reads LOW-HIGH ranges, splits them into prefixes (user/lib/range.c),
 * inserts them into an exact prefix set made with the module's default
 * parameters (capacity = the address table's first size, given by -c)
 * and prints what each part holds: the set itself, the address table, the
 * summary's head words and each class's counts and bits, the length
 * tables and their sorted indexes. The parts add up to what the module's
 * TYPE_INFO reports for the set (memory_bytes, holdings aside): the
 * "own" kernel memory of `make bench-xdp`'s geo rows.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prefix_int.h"
#include "lib/range.h"

#define MAX_CAPACITY	(16ULL << 20)

static const char *const class_name[PREFIX_CLASSES] = {
	[PREFIX_CLASS_ADDRS]	= "addresses",
	[PREFIX_CLASS_MID]	= "/17../31",
	[PREFIX_CLASS_DEEP]	= "/32../63",
	[PREFIX_CLASS_SUBNET]	= "/64../127",
};

static void die(const char *what)
{
	fprintf(stderr, "mem: %s\n", what);
	exit(1);
}

static int insert(const u8 *addr, unsigned int len, void *arg)
{
	int err = prefix_set_insert(arg, addr, len, 0);

	if (err && err != -EEXIST)
		die("insert refused");
	return 0;
}

static void read_ranges(struct prefix_set *s, unsigned int alen)
{
	int af = alen == 4 ? AF_INET : AF_INET6;
	u8 lo[16], hi[16];
	char line[256], *dash;

	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = 0;
		dash = strchr(line, '-');
		if (!dash)
			die("a line is not LOW-HIGH");
		*dash = 0;
		if (inet_pton(af, line, lo) != 1 ||
		    inet_pton(af, dash + 1, hi) != 1)
			die("an address is not of the family asked for");
		range_split(lo, hi, alen, insert, s);
	}
}

static void part(const char *name, u64 bytes, const char *note)
{
	printf("  %-28s %10.3f MiB  %s\n", name, bytes / 1048576.0, note);
}

/* The length tables and their indexes; their number into *@n. */
static u64 length_tables(const struct prefix_set *s, u64 *idx, u32 *n)
{
	struct cuckoo_stats cs;
	u64 tabs = 0;
	u32 m;

	*idx = 0;
	*n = 0;
	for (m = 1; m < s->bits; m++) {
		if (!prefix_wtab(s, m))
			continue;
		cuckoo_get_stats(prefix_wtab(s, m), &cs);
		tabs += cs.memory_bytes;
		*idx += sorted_bytes(&s->idx[m]);
		(*n)++;
	}
	return tabs;
}

static void print_parts(const struct prefix_set *s)
{
	u64 sum = prefix_sum_bytes(&s->sum), total, tabs, idx, cb, rest = sum;
	struct prefix_stats st;
	char note[64];
	u32 c, n;

	prefix_set_get_stats(s, &st);
	printf("%llu prefixes (%u lengths), %llu addresses, %llu markers\n",
	       (unsigned long long)st.prefixes, st.lengths,
	       (unsigned long long)st.addrs.count,
	       (unsigned long long)st.markers);
	total = cuckoo_mem_footprint(sizeof(*s));
	part("the set", total, "");
	snprintf(note, sizeof(note), "%llu slots",
		 (unsigned long long)st.addrs.capacity);
	part("address table", st.addrs.memory_bytes, note);
	total += st.addrs.memory_bytes;
	for (c = 0; c < PREFIX_CLASSES; c++) {
		cb = prefix_sum_class_bytes(&s->sum, c);
		if (!cb)
			continue;
		snprintf(note, sizeof(note), "summary: %s", class_name[c]);
		part(note, cb, "counts and bits");
		rest -= cb;
	}
	part("summary: head words", rest, "");
	total += sum;
	tabs = length_tables(s, &idx, &n);
	snprintf(note, sizeof(note), "%u tables", n);
	part("length tables", tabs, note);
	part("sorted indexes", idx, "");
	total += tabs + idx;
	part("total", st.memory_bytes, "");
	if (total != st.memory_bytes)
		die("the parts do not add up to the set's memory_bytes");
}

static void usage(void)
{
	fprintf(stderr, "usage: scripts/geoip/geoip-ranges.sh [-6] CC... | mem [-6] [-c capacity]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct prefix_params p = { .addr_len = 4 };
	struct prefix_set *s;
	unsigned long long cap = 65536;
	int opt;

	while ((opt = getopt(argc, argv, "6c:")) != -1) {
		if (opt == '6')
			p.addr_len = 16;
		else if (opt == 'c')
			cap = strtoull(optarg, NULL, 0);
		else
			usage();
	}
	if (optind != argc || !cap)
		usage();
	p.addrs = (struct cuckoo_params){
		.capacity = cap,
		.max_capacity = MAX_CAPACITY,
		.seed = 0x5eed,
		.fp_bits = 16,
		.key_len = p.addr_len,
		.exact = true,
	};
	s = prefix_set_create(&p);
	if (!s)
		die("creating the set: bad parameters or no memory");
	read_ranges(s, p.addr_len);
	printf("address table capacity %llu: ", cap);
	print_parts(s);
	prefix_set_destroy(s);
	return 0;
}
