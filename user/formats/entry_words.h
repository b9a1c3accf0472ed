/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the list format (keyfile.c) takes from the entry words
 * (entry_words.c) beyond keyfile.h: the kinds of entry, and parsing with
 * the flags a list gives (KF_NORMALIZE).
 */
#ifndef CFCTL_ENTRY_WORDS_H
#define CFCTL_ENTRY_WORDS_H

#include <linux/types.h>

#include "formats/keyfile.h"

/* The kinds of entry: first word, word count, the key type for IPv4. */
struct kf_kind {
	const char	*name;
	int		words;
	__u8		type4;
	const char	*usage;
};

const struct kf_kind *kf_find_kind(const char *name);
enum kf_line kf_parse_addr_entry(const char *addr, __u8 type4,
				 unsigned int flags, struct kf_entry *e);
enum kf_line kf_parse_words(char *const words[], int n, unsigned int flags,
			    struct kf_entry *e, const char **word);

#endif /* CFCTL_ENTRY_WORDS_H */
