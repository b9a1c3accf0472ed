/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The characters a source name may have: one rule for the module, which
 * refuses a request that breaks it, and for cfctl, which says so before
 * any ioctl. Not UAPI: the contract there is the rule's words.
 */
#ifndef CFILTER_SOURCE_NAME_H
#define CFILTER_SOURCE_NAME_H

static inline bool cfilter_source_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == ':' ||
	       c == '@' || c == '-';
}

#endif /* CFILTER_SOURCE_NAME_H */
