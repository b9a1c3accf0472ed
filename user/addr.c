// SPDX-License-Identifier: GPL-2.0
/*
 * Command-line addresses to filter keys. inet_pton() is the parser because
 * it is strict: no surrounding spaces, no trailing garbage, all four IPv4
 * parts, no leading zeros (which other parsers read as octal).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "addr.h"

/* "ADDR/LEN" with a LEN that fits ADDR's family: a well-formed prefix. */
static bool is_prefix(const char *str, const char *slash)
{
	unsigned char buf[sizeof(struct in6_addr)];
	char addr[INET6_ADDRSTRLEN];
	size_t len = slash - str;
	unsigned int bits = 0, max;
	const char *p;

	if (len >= sizeof(addr))
		return false;
	memcpy(addr, str, len);
	addr[len] = '\0';
	if (inet_pton(AF_INET, addr, buf) == 1)
		max = 32;
	else if (inet_pton(AF_INET6, addr, buf) == 1)
		max = 128;
	else
		return false;

	if (!slash[1] || strlen(slash + 1) > 3)
		return false;
	for (p = slash + 1; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		bits = bits * 10 + (*p - '0');
	}
	return bits <= max;
}

/**
 * addr_parse() - turn an IPv4 or IPv6 address into a source-address key
 * @str: the address, exactly as typed
 * @key: filled with the key the XDP program builds for packets from @str
 *
 * Return: 0; -EOPNOTSUPP if @str is a well-formed prefix (ADDR/LEN), which
 * the filter cannot hold yet; -EINVAL if @str is not an address at all.
 */
int addr_parse(const char *str, struct cfilter_key *key)
{
	const char *slash = strchr(str, '/');

	memset(key, 0, sizeof(*key));
	if (inet_pton(AF_INET, str, key->saddr) == 1) {
		key->type = CFILTER_KEY_SRC4;
		key->prefix_len = 32;
		return 0;
	}
	if (inet_pton(AF_INET6, str, key->saddr) == 1) {
		key->type = CFILTER_KEY_SRC6;
		key->prefix_len = 128;
		return 0;
	}
	memset(key, 0, sizeof(*key));
	if (slash && is_prefix(str, slash))
		return -EOPNOTSUPP;
	return -EINVAL;
}

/**
 * addr_format() - the inverse of addr_parse(), for listing keys
 * @key: a key read from the filter
 * @buf: room for the text
 * @len: bytes at @buf; ADDR_STRLEN is enough for any key
 *
 * Return: @buf, holding the address, or a description of a key type this
 * cfctl does not know (a newer module).
 */
const char *addr_format(const struct cfilter_key *key, char *buf, size_t len)
{
	switch (key->type) {
	case CFILTER_KEY_SRC4:
		return inet_ntop(AF_INET, key->saddr, buf, len);
	case CFILTER_KEY_SRC6:
		return inet_ntop(AF_INET6, key->saddr, buf, len);
	default:
		snprintf(buf, len, "(key of unknown type %u)", key->type);
		return buf;
	}
}
