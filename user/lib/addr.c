// SPDX-License-Identifier: GPL-2.0
/*
 * Addresses and prefixes as typed, and keys as the entries that name them.
 * inet_pton() is the parser because it is strict: no surrounding spaces, no
 * trailing garbage, all four IPv4 parts, no leading zeros (which other
 * parsers read as octal).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/addr.h"

/*
 * An IPv4-mapped IPv6 address, ::ffff:a.b.c.d: what a dual-stack socket
 * shows of an IPv4 peer, and what logs and feeds then carry. No IPv4 packet
 * meets it as an IPv6 key, so it is taken for the IPv4 address it maps.
 */
static bool addr_is_mapped(const __u8 addr[16])
{
	static const __u8 prefix[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};

	return !memcmp(addr, prefix, sizeof(prefix));
}

/* Moves the IPv4 address that @addr maps to its first 4 bytes. */
static void addr_unmap(__u8 addr[16])
{
	memmove(addr, addr + 12, 4);
	memset(addr + 4, 0, 12);
}

/**
 * addr_parse() - parse an IPv4 or IPv6 address
 * @str:  the address, exactly as typed
 * @addr: 16 bytes: the address in network byte order, IPv4 in the first 4
 *        and the rest zero
 *
 * An IPv4-mapped address (::ffff:192.0.2.1) is the IPv4 address it maps.
 *
 * Return: 4 or 6, the IP version of the address; -EINVAL if @str is not
 * an address (a prefix ADDR/LEN is not one: see prefix_parse()).
 */
int addr_parse(const char *str, __u8 addr[16])
{
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, str, addr) == 1)
		return 4;
	if (inet_pton(AF_INET6, str, addr) != 1) {
		memset(addr, 0, 16);
		return -EINVAL;
	}
	if (!addr_is_mapped(addr))
		return 6;
	addr_unmap(addr);
	return 4;
}

/* Decimal digits of a prefix length, without sign or leading zeros. */
static int prefix_len_parse(const char *p, unsigned int max, unsigned int *len)
{
	unsigned int bits = 0;

	if (!*p || strlen(p) > 3 || (*p == '0' && p[1]))
		return -ERANGE;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -ERANGE;
		bits = bits * 10 + (*p - '0');
	}
	if (bits > max)
		return -ERANGE;
	*len = bits;
	return 0;
}

/**
 * prefix_parse() - parse an address or a CIDR prefix ADDR/LEN
 * @str:    what was typed; a bare address is a full-length prefix
 * @addr:   16 bytes: the prefix's address as addr_parse() writes it, with
 *          any bits past LEN cleared
 * @len:    its length in bits: 0-32 for IPv4, 0-128 for IPv6
 * @masked: set if bits past LEN were set in @str (cleared in @addr: the
 *          likely intent), cleared if not
 *
 * LEN is decimal, without sign, spaces or leading zeros ("/08" is refused:
 * some tools read it as something else). An IPv4-mapped prefix of 96 bits
 * or more (::ffff:192.0.2.0/120) is the IPv4 prefix it maps (192.0.2.0/24);
 * a shorter one covers other IPv6 addresses too, and stays IPv6.
 *
 * Return: 4 or 6; -EINVAL if the address is not one, -ERANGE if LEN is not
 * a length for its family.
 */
int prefix_parse(const char *str, __u8 addr[16], unsigned int *len,
		 bool *masked)
{
	const char *slash = strchr(str, '/');
	char a[INET6_ADDRSTRLEN];
	unsigned int bits, max, i;
	int v, err;

	*masked = false;
	if (!slash) {
		v = addr_parse(str, addr);
		*len = v == 6 ? 128 : 32;
		return v;
	}
	if ((size_t)(slash - str) >= sizeof(a))
		return -EINVAL;
	memcpy(a, str, slash - str);
	a[slash - str] = '\0';
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, a, addr) == 1)
		v = 4;
	else if (inet_pton(AF_INET6, a, addr) == 1)
		v = 6;
	else
		return -EINVAL;
	max = v == 6 ? 128 : 32;
	err = prefix_len_parse(slash + 1, max, &bits);
	if (err)
		return err;
	for (i = bits; i < max; i++) {
		__u8 mask = 0x80 >> (i % 8);

		if (addr[i / 8] & mask) {
			*masked = true;
			addr[i / 8] &= ~mask;
		}
	}
	if (v == 6 && bits >= 96 && addr_is_mapped(addr)) {
		addr_unmap(addr);
		bits -= 96;
		v = 4;
	}
	*len = bits;
	return v;
}

/* The address at @addr of IP version @v as text, @brackets around IPv6. */
static int addr_print(char *buf, size_t len, const __u8 *addr, bool v6,
		      bool brackets)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(v6 ? AF_INET6 : AF_INET, addr, a, sizeof(a));
	return snprintf(buf, len, v6 && brackets ? "[%s]" : "%s", a);
}

/* An address key's address, and "/LEN" if it is a prefix. */
static void prefix_print(char *buf, size_t len, const __u8 *addr, bool v6,
			 unsigned int bits)
{
	int n = addr_print(buf, len, addr, v6, false);

	if (bits < (v6 ? 128U : 32U))
		snprintf(buf + n, len - n, "/%u", bits);
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
 * "dst ADDR", "allow ADDR" (ADDR/LEN for a prefix), "tcp|udp SADDR:SPORT DADDR:DPORT" or
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
		prefix_print(buf, len, key->saddr,
			     key->type == CFILTER_KEY_SRC6, key->prefix_len);
		break;
	case CFILTER_KEY_ALLOW4:
	case CFILTER_KEY_ALLOW6:
		n = snprintf(buf, len, "allow ");
		prefix_print(buf + n, len - n, key->saddr,
			     key->type == CFILTER_KEY_ALLOW6, key->prefix_len);
		break;
	case CFILTER_KEY_DST4:
	case CFILTER_KEY_DST6:
		n = snprintf(buf, len, "dst ");
		prefix_print(buf + n, len - n, key->daddr,
			     key->type == CFILTER_KEY_DST6, key->prefix_len);
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

/**
 * key_addr_format() - an address key's address or prefix, without its kind
 * @key: a source, destination or allow key
 * @buf: room for the text
 * @len: bytes at @buf; INET6_ADDRSTRLEN + 4 is enough
 *
 * Return: @buf: "ADDR", or "ADDR/LEN" for a prefix.
 */
const char *key_addr_format(const struct cfilter_key *key, char *buf,
			    size_t len)
{
	bool dst = key->type == CFILTER_KEY_DST4 || key->type == CFILTER_KEY_DST6;
	bool v6 = key->type == CFILTER_KEY_SRC6 || key->type == CFILTER_KEY_DST6 ||
		  key->type == CFILTER_KEY_ALLOW6;

	prefix_print(buf, len, dst ? key->daddr : key->saddr, v6,
		     key->prefix_len);
	return buf;
}

/**
 * key_widen() - the prefix of length @len that contains an address key
 * @key: a source, destination or allow key, @len bits long or longer
 * @len: the new prefix length
 *
 * Clears the address bits past @len, so that the key is one the module
 * takes (host bits zero).
 */
void key_widen(struct cfilter_key *key, unsigned int len)
{
	bool dst = key->type == CFILTER_KEY_DST4 || key->type == CFILTER_KEY_DST6;
	__u8 *addr = dst ? key->daddr : key->saddr;
	unsigned int i;

	key->prefix_len = len;
	for (i = len; i < 128; i++)
		addr[i / 8] &= ~(0x80 >> (i % 8));
}

/* The short name of a key type, as info and list -j print it. */
const char *key_type_name(__u8 type)
{
	static const char *const names[__CFILTER_KEY_MAX] = {
		[CFILTER_KEY_SRC4]	= "src4",
		[CFILTER_KEY_SRC6]	= "src6",
		[CFILTER_KEY_DST4]	= "dst4",
		[CFILTER_KEY_DST6]	= "dst6",
		[CFILTER_KEY_FLOW4]	= "flow4",
		[CFILTER_KEY_FLOW6]	= "flow6",
		[CFILTER_KEY_ALLOW4]	= "allow4",
		[CFILTER_KEY_ALLOW6]	= "allow6",
	};

	return type < __CFILTER_KEY_MAX && names[type] ? names[type] : "unknown";
}

/*
 * qsort()'s order of keys (struct cfilter_key): by type, then addresses,
 * then prefix length, so that a list reads in address order; any other
 * difference decides last.
 */
int key_cmp(const void *a, const void *b)
{
	const struct cfilter_key *x = a, *y = b;
	int d = x->type - y->type;

	if (!d)
		d = memcmp(x->saddr, y->saddr, sizeof(x->saddr));
	if (!d)
		d = memcmp(x->daddr, y->daddr, sizeof(x->daddr));
	if (!d)
		d = x->prefix_len - y->prefix_len;
	return d ? d : memcmp(a, b, sizeof(*x));
}
