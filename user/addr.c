// SPDX-License-Identifier: GPL-2.0
/*
 * Addresses as typed, and keys as the entries that name them. inet_pton()
 * is the parser because it is strict: no surrounding spaces, no trailing garbage, all four IPv4
 * parts, no leading zeros (which other parsers read as octal).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
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
 * addr_parse() - parse an IPv4 or IPv6 address
 * @str:  the address, exactly as typed
 * @addr: 16 bytes: the address in network byte order, IPv4 in the first 4
 *        and the rest zero
 *
 * Return: 4 or 6, the IP version of @str; -EOPNOTSUPP if @str is a
 * well-formed prefix (ADDR/LEN), which the filter cannot hold yet; -EINVAL
 * if @str is not an address at all.
 */
int addr_parse(const char *str, __u8 addr[16])
{
	const char *slash = strchr(str, '/');

	memset(addr, 0, 16);
	if (inet_pton(AF_INET, str, addr) == 1)
		return 4;
	if (inet_pton(AF_INET6, str, addr) == 1)
		return 6;
	memset(addr, 0, 16);
	if (slash && is_prefix(str, slash))
		return -EOPNOTSUPP;
	return -EINVAL;
}

/* The address at @addr of IP version @v as text, @brackets around IPv6. */
static int addr_print(char *buf, size_t len, const __u8 *addr, bool v6,
		      bool brackets)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(v6 ? AF_INET6 : AF_INET, addr, a, sizeof(a));
	return snprintf(buf, len, v6 && brackets ? "[%s]" : "%s", a);
}

static const char *proto_name(__u8 proto, bool v6)
{
	switch (proto) {
	case IPPROTO_TCP:
		return "tcp";
	case IPPROTO_UDP:
		return "udp";
	default:
		return v6 ? "icmp6" : "icmp";
	}
}

/* "tcp SADDR:SPORT DADDR:DPORT" or "icmp SADDR DADDR TYPE". */
static void flow_format(const struct cfilter_key *key, char *buf, size_t len)
{
	bool v6 = key->type == CFILTER_KEY_FLOW6;
	bool ports = key->proto == IPPROTO_TCP || key->proto == IPPROTO_UDP;
	size_t n;

	n = snprintf(buf, len, "%s ", proto_name(key->proto, v6));
	n += addr_print(buf + n, len - n, key->saddr, v6, ports);
	if (ports)
		n += snprintf(buf + n, len - n, ":%u", ntohs(key->sport));
	n += snprintf(buf + n, len - n, " ");
	n += addr_print(buf + n, len - n, key->daddr, v6, ports);
	if (ports)
		snprintf(buf + n, len - n, ":%u", ntohs(key->dport));
	else
		snprintf(buf + n, len - n, " %u", ntohs(key->sport));
}

/**
 * entry_format() - a key as the entry that names it, for listing keys
 * @key: a key read from the filter
 * @buf: room for the text
 * @len: bytes at @buf; ENTRY_STRLEN is enough for any key
 *
 * Writes what `cfctl load` reads back as @key: "ADDR" for a source,
 * "dst ADDR", "allow ADDR", "tcp|udp SADDR:SPORT DADDR:DPORT" or
 * "icmp|icmp6 SADDR DADDR TYPE".
 *
 * Return: @buf, or a description of a key type this cfctl does not know
 * (a newer module).
 */
const char *entry_format(const struct cfilter_key *key, char *buf, size_t len)
{
	size_t n;

	switch (key->type) {
	case CFILTER_KEY_SRC4:
	case CFILTER_KEY_SRC6:
		addr_print(buf, len, key->saddr,
			   key->type == CFILTER_KEY_SRC6, false);
		break;
	case CFILTER_KEY_ALLOW4:
	case CFILTER_KEY_ALLOW6:
		n = snprintf(buf, len, "allow ");
		addr_print(buf + n, len - n, key->saddr,
			   key->type == CFILTER_KEY_ALLOW6, false);
		break;
	case CFILTER_KEY_DST4:
	case CFILTER_KEY_DST6:
		n = snprintf(buf, len, "dst ");
		addr_print(buf + n, len - n, key->daddr,
			   key->type == CFILTER_KEY_DST6, false);
		break;
	case CFILTER_KEY_FLOW4:
	case CFILTER_KEY_FLOW6:
		flow_format(key, buf, len);
		break;
	default:
		snprintf(buf, len, "(key of unknown type %u)", key->type);
	}
	return buf;
}
