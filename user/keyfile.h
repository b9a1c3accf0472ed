/* SPDX-License-Identifier: GPL-2.0 */
/* Lists of entries, one per line: what `cfctl load` reads, `cfctl save` writes. */
#ifndef CFCTL_KEYFILE_H
#define CFCTL_KEYFILE_H

#include <stdio.h>
#include <linux/cfilter.h>

/* What one line holds: an entry, nothing, or why it is malformed. */
enum kf_line {
	KF_ENTRY,	/* one address */
	KF_EMPTY,	/* blank or a comment */
	KF_BAD_ADDR,	/* a word that is not an address */
	KF_PREFIX,	/* ADDR/LEN: not supported yet */
	KF_WORDS,	/* more than one word: a flow? not supported yet */
	KF_ADD_ALONE,	/* "add" and nothing else */
	KF_NUL,		/* a NUL byte: not a text file */
};

/* The entries of one file, in file order, with the line each came from. */
struct key_list {
	struct cfilter_key	*keys;
	unsigned long		*lines;
	size_t			n;
	size_t			cap;
	size_t			bad;	/* malformed lines seen */
};

enum kf_line keyfile_parse_line(char *line, size_t len,
				struct cfilter_key *key, const char **word);
void keyfile_explain(FILE *out, const char *name, unsigned long lineno,
		     enum kf_line what, const char *word);
int keyfile_read(FILE *in, const char *name, struct key_list *kl, FILE *errs);
void key_list_free(struct key_list *kl);

#endif /* CFCTL_KEYFILE_H */
