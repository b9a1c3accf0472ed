/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CFCTL_ADDR_H
#define CFCTL_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/cfilter.h>

/*
 * The longest entry_format() writes: "icmp6 ADDR6 ADDR6 255",
 * "tcp [ADDR6]:65535 ..."
 */
#define ENTRY_STRLEN	128

int addr_parse(const char *str, __u8 addr[16]);
int prefix_parse(const char *str, __u8 addr[16], unsigned int *len,
		 bool *masked);
const char *key_type_name(__u8 type);
const char *entry_format(const struct cfilter_key *key, char *buf, size_t len);
const char *key_addr_format(const struct cfilter_key *key, char *buf,
			    size_t len);
void key_widen(struct cfilter_key *key, unsigned int len);
int key_cmp(const void *a, const void *b);

#endif /* CFCTL_ADDR_H */
