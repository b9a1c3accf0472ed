/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Entries: what `cfctl add`, `del` and `test` take as words (entry_words.c),
 * and lists of them, one per line, with their sources and timeouts: what
 * `cfctl load` reads, `cfctl save` writes; and what `ipset save` writes of
 * hash:ip and hash:net sets (keyfile.c).
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
	KF_BAD_TIMEOUT,	/* ipset's "timeout" without a number of seconds */
	KF_SOURCE,	/* a "source NAME" line: the source of the lines after it */
	KF_BAD_SOURCE,	/* "source" without a good NAME */
	KF_SOURCE_WORDS, /* "source NAME" and more words */
	KF_SOURCES_MAX,	/* more sources than a set holds */
	KF_OTHER_SOURCE, /* KF_ONE_SOURCE: "source" naming another one */
	KF_BAD_SECONDS,	/* "timeout" without SECS of TIMEOUT_RULE */
	KF_BAD_EXPIRES,	/* "expires" without a UNIXTIME */
	KF_TWO_TIMES,	/* both "timeout" and "expires" */
	KF_TRAILING,	/* more words after "timeout SECS" or "expires TIME" */
	KF_TOO_LATE,	/* "expires" too far ahead for a timeout (cfctl load) */
	KF_IPSET_MASK,	/* a set's netmask or bitmask that is no prefix */
	KF_IPSET_REFUSED, /* an entry of a set whose "create" was refused */
	KF_IPSET_NOMATCH, /* a nomatch entry, without KF_NOMATCH_ALLOWS */
	KF_IPSET_FAMILY, /* an entry not of its netmask set's family */
};

/* keyfile_read() flags. */
enum kf_flags {
	/* ADDR/LEN with host bits set: mask them (else KF_HOST_BITS) */
	KF_NORMALIZE	= 1 << 0,
	/* "source" lines naming another source than the first: KF_OTHER_SOURCE */
	KF_ONE_SOURCE	= 1 << 1,
	/* ipset's nomatch entries: allow entries (else KF_IPSET_NOMATCH) */
	KF_NOMATCH_ALLOWS = 1 << 2,
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
	bool			timed;		/* "timeout" or "expires" given */
	__u32			timeout;	/* seconds; 0: permanent */
	__s64			expires;	/* "expires": seconds since the epoch */
};

/* ipset sets a list may name, and the longest name (IPSET_MAXNAMELEN). */
#define KF_IPSET_MAX	16
#define KF_IPSET_NAME	32

/* An ipset set as its "create" line describes it. */
struct kf_ipset {
	char	name[KF_IPSET_NAME];
	int	prefix;		/* netmask: entries are networks this long; -1: none */
	__u8	family;		/* 4 or 6 */
	bool	refused;	/* its "create" was: so are its entries */
};

/* The longest reason KF_IPSET_MASK gives. */
#define KF_DETAIL_LEN	256

/*
 * What the lines of one list read so far say about the next: ipset's save
 * format names its sets in "create" lines before their "add" lines.
 */
struct kf_state {
	unsigned int	flags;		/* enum kf_flags */
	unsigned int	nsets;
	struct kf_ipset	sets[KF_IPSET_MAX];
	char		detail[KF_DETAIL_LEN];	/* KF_IPSET_MASK's word */
};

/* The most words an entry has: "icmp SADDR DADDR TYPE". */
#define KF_MAX_WORDS	4

/* Who holds an entry of a list, and for how long. */
struct kf_hold {
	__s64	expires;	/* seconds since the epoch; 0: see @timeout */
	__u32	timeout;	/* seconds; 0: permanent */
	bool	timed;		/* the line gave one of the two */
	__u8	source;		/* index into the list's sources */
};

/*
 * The entries of one file, in file order, with the line each came from and
 * its holding. @sources[0] is the source of the lines before any "source"
 * line.
 */
struct key_list {
	struct cfilter_key	*keys;
	unsigned long		*lines;
	struct kf_hold		*holds;
	size_t			n;
	size_t			cap;
	size_t			bad;	/* malformed lines seen */
	size_t			bad_sources; /* bad "source" lines seen */
	size_t			masked;	/* prefixes KF_NORMALIZE masked */
	unsigned int		nsources;
	char			sources[CFILTER_SOURCES_MAX][CFILTER_SOURCE_LEN];
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
		 const char *source, struct key_list *kl, FILE *errs);
void key_list_free(struct key_list *kl);

#endif /* CFCTL_KEYFILE_H */
