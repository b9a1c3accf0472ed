// SPDX-License-Identifier: GPL-2.0
/*
 * Traffic of an exact 5-tuple for test_flows.sh (busybox nc has no UDP and
 * picks its own source port):
 *	flow_ping udp-serve ADDR PORT			echo every datagram back
 *	flow_ping udp SADDR SPORT DADDR DPORT	one datagram, wait 1 s for the echo
 *	flow_ping tcp SADDR SPORT DADDR DPORT	connect, waiting at most 2 s
 *	flow_ping udp-flood SADDR DADDR DPORT SECS	datagrams for SECS seconds
 *	flow_ping udp-count ADDR PORT SECS	datagrams received in SECS seconds
 * udp and tcp exit 0 on success, 1 if no answer came, 2 on a usage or
 * system error. udp-flood and udp-count print how many datagrams they sent
 * or received.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <arpa/inet.h>
#include <netinet/in.h>

/* ADDR (IPv4 or IPv6) and PORT as a socket address; -1 if malformed. */
static int resolve(const char *addr, const char *port,
		   struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	char *end;
	long p = strtol(port, &end, 10);

	memset(ss, 0, sizeof(*ss));
	if (*end || p < 0 || p > 65535) {
		fprintf(stderr, "flow_ping: invalid port '%s'\n", port);
		return -1;
	}
	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(p);
		*len = sizeof(*sin);
		return 0;
	}
	if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(p);
		*len = sizeof(*sin6);
		return 0;
	}
	fprintf(stderr, "flow_ping: invalid address '%s'\n", addr);
	return -1;
}

/* A socket of @type bound to ADDR:PORT, or -1. */
static int bound(int type, const char *addr, const char *port)
{
	int one = 1;
	struct sockaddr_storage ss;
	socklen_t len;
	int fd;

	if (resolve(addr, port, &ss, &len))
		return -1;
	fd = socket(ss.ss_family, type, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&ss, len)) {
		fprintf(stderr, "flow_ping: bind %s port %s: %s\n", addr, port,
			strerror(errno));
		return -1;
	}
	return fd;
}

static int serve(const char *addr, const char *port)
{
	struct sockaddr_storage peer;
	socklen_t len;
	char buf[512];
	ssize_t n;
	int fd = bound(SOCK_DGRAM, addr, port);

	if (fd < 0)
		return 2;
	for (;;) {
		len = sizeof(peer);
		n = recvfrom(fd, buf, sizeof(buf), 0,
			     (struct sockaddr *)&peer, &len);
		if (n >= 0)
			sendto(fd, buf, n, 0, (struct sockaddr *)&peer, len);
	}
}

static int udp(char *const argv[])
{
	struct timeval tv = { .tv_sec = 1 };
	struct sockaddr_storage dst;
	socklen_t len;
	char buf[16];
	int fd = bound(SOCK_DGRAM, argv[0], argv[1]);

	if (fd < 0 || resolve(argv[2], argv[3], &dst, &len))
		return 2;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    sendto(fd, "ping", 4, 0, (struct sockaddr *)&dst, len) != 4) {
		fprintf(stderr, "flow_ping: send: %s\n", strerror(errno));
		return 2;
	}
	if (recv(fd, buf, sizeof(buf), 0) == 4 && !memcmp(buf, "ping", 4))
		return 0;
	fprintf(stderr, "flow_ping: no echo from %s port %s\n", argv[2], argv[3]);
	return 1;
}

static int tcp(char *const argv[])
{
	struct pollfd pfd = { .events = POLLOUT };
	struct sockaddr_storage dst;
	socklen_t len;
	int err = 0;

	pfd.fd = bound(SOCK_STREAM, argv[0], argv[1]);
	if (pfd.fd < 0 || resolve(argv[2], argv[3], &dst, &len))
		return 2;
	fcntl(pfd.fd, F_SETFL, O_NONBLOCK);
	if (connect(pfd.fd, (struct sockaddr *)&dst, len) && errno != EINPROGRESS) {
		fprintf(stderr, "flow_ping: connect: %s\n", strerror(errno));
		return 1;
	}
	if (poll(&pfd, 1, 2000) != 1) {
		fprintf(stderr, "flow_ping: no answer from %s port %s\n",
			argv[2], argv[3]);
		return 1;
	}
	len = sizeof(err);
	getsockopt(pfd.fd, SOL_SOCKET, SO_ERROR, &err, &len);
	if (err) {
		fprintf(stderr, "flow_ping: connect: %s\n", strerror(err));
		return 1;
	}
	return 0;
}

/* Seconds from now, on the monotonic clock. */
static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

static int udp_flood(char *const argv[])
{
	struct sockaddr_storage dst;
	unsigned long sent = 0;
	struct timespec t0;
	double secs = atof(argv[3]);
	socklen_t len;
	int fd = bound(SOCK_DGRAM, argv[0], "0");

	if (fd < 0 || resolve(argv[1], argv[2], &dst, &len))
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (since(&t0) < secs) {
		/* A full queue (ENOBUFS) is the flood's own doing: go on. */
		if (sendto(fd, "flood", 5, 0, (struct sockaddr *)&dst, len) == 5)
			sent++;
	}
	printf("%lu\n", sent);
	return 0;
}

static int udp_count(char *const argv[])
{
	struct timeval tv = { .tv_usec = 100 * 1000 };
	unsigned long got = 0;
	struct timespec t0;
	double secs = atof(argv[2]);
	char buf[64];
	int fd = bound(SOCK_DGRAM, argv[0], argv[1]);

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (since(&t0) < secs)
		if (recv(fd, buf, sizeof(buf), 0) >= 0)
			got++;
	printf("%lu\n", got);
	return 0;
}

int main(int argc, char *argv[])
{
	if (argc == 6 && !strcmp(argv[1], "udp-flood"))
		return udp_flood(argv + 2);
	if (argc == 5 && !strcmp(argv[1], "udp-count"))
		return udp_count(argv + 2);
	if (argc == 4 && !strcmp(argv[1], "udp-serve"))
		return serve(argv[2], argv[3]);
	if (argc == 6 && !strcmp(argv[1], "udp"))
		return udp(argv + 2);
	if (argc == 6 && !strcmp(argv[1], "tcp"))
		return tcp(argv + 2);
	fprintf(stderr, "usage: flow_ping udp-serve ADDR PORT | udp|tcp SADDR SPORT DADDR DPORT |\n"
		"       udp-flood SADDR DADDR DPORT SECS | udp-count ADDR PORT SECS\n");
	return 2;
}
