/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Entries: what `cfctl add`, `del` and `test` take as words, and lists of
 * them, one per line: what `cfctl load` reads, `cfctl save` writes; and
 * what `ipset save` writes of hash:ip and hash:net sets.
 */
#ifndef CFCTL_KEYFILE_H
#define CFCTL_KEYFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/cfilter.h>

/* What one line or command line holds: an entry, nothing, or why not. */
enum kf_line {
	KF_ENTRY,	/* one entry */
	KF_EMPTY,	/* blank or a comment */
	KF_BAD_ADDR,	/* a word that is not an address */
	KF_BAD_LEN,	/* ADDR/LEN with a LEN not in 0-32 (IPv4), 0-128 (IPv6) */
	KF_HOST_BITS,	/* ADDR/LEN with address bits set past LEN */
	KF_BAD_RANGE,	/* FIRST-LAST with FIRST above LAST */
	KF_RANGE_MIXED,	/* FIRST-LAST of different IP versions */
	KF_FLOW_PREFIX,	/* a prefix or range in a flow: flows are exact */
	KF_WORDS,	/* too many or too few words for the entry's kind */
	KF_ADD_ALONE,	/* "add" and nothing else */
	KF_NUL,		/* a NUL byte: not a text file */
	KF_BAD_KIND,	/* several words, and the first names no kind of entry */
	KF_BAD_ENDPOINT, /* not ADDR:PORT, or [ADDR]:PORT for IPv6 */
	KF_BAD_PORT,	/* a port not in 0-65535 */
	KF_BAD_TYPE,	/* an ICMP type not in 0-255 */
	KF_MIXED,	/* an address of the wrong IP version for the entry */
	KF_IPSET_TYPE,	/* "create" of an ipset type that is not hash:ip/net */
	KF_IPSET_SETS,	/* more ipset sets than KF_IPSET_MAX */
	KF_IPSET_OPTION, /* an ipset entry option cfilter has no use for */
	KF_BAD_TIMEOUT,	/* "timeout" without a number of seconds */
};

/* keyfile_read() flags. */
enum kf_flags {
	/* ADDR/LEN with host bits set: mask them (else KF_HOST_BITS) */
	KF_NORMALIZE	= 1 << 0,
};

/*
 * One entry as parsed: a key, or a range FIRST-LAST of addresses (@key holds
 * FIRST, with the type; @hi holds LAST) that stands for the prefixes
 * covering it.
 */
struct kf_entry {
	struct cfilter_key	key;
	bool			range;
	bool			masked;		/* KF_NORMALIZE cleared host bits */
	__u8			hi[16];
	unsigned long		timeout;	/* seconds (ipset's); 0: none */
};

/* ipset sets a list may name, and the longest name (IPSET_MAXNAMELEN). */
#define KF_IPSET_MAX	16
#define KF_IPSET_NAME	32

/*
 * What the lines of one list read so far say about the next: ipset's save
 * format names its sets in "create" lines before their "add" lines.
 */
struct kf_state {
	unsigned int	flags;		/* enum kf_flags */
	unsigned int	nsets;
	char		sets[KF_IPSET_MAX][KF_IPSET_NAME];
};

/* The most words an entry has: "icmp SADDR DADDR TYPE". */
#define KF_MAX_WORDS	4

/* The entries of one file, in file order, with the line each came from. */
struct key_list {
	struct cfilter_key	*keys;
	unsigned long		*lines;
	size_t			n;
	size_t			cap;
	size_t			bad;	/* malformed lines seen */
	size_t			masked;	/* prefixes KF_NORMALIZE masked */
	size_t			timed;	/* entries with an ipset timeout */
};

enum kf_line keyfile_parse_words(char *const words[], int n,
				 struct kf_entry *e, const char **word);
enum kf_line keyfile_parse_line(char *line, size_t len, struct kf_state *st,
				struct kf_entry *e, const char **word);
int keyfile_expand(const struct kf_entry *e,
		   int (*emit)(const struct cfilter_key *key, void *arg),
		   void *arg);
void keyfile_reason(FILE *out, enum kf_line what, const char *word);
void keyfile_explain(FILE *out, const char *name, unsigned long lineno,
		     enum kf_line what, const char *word);
int keyfile_read(FILE *in, const char *name, unsigned int flags,
		 struct key_list *kl, FILE *errs);
void key_list_free(struct key_list *kl);

#endif /* CFCTL_KEYFILE_H */
