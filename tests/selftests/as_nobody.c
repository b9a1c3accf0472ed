// SPDX-License-Identifier: GPL-2.0
/*
 * as_nobody CMD [ARGS]: run CMD as uid and gid 65534 with no supplementary
 * groups, and so without CAP_NET_ADMIN (busybox's setpriv cannot change
 * ids and the guest has no passwd database for su).
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <unistd.h>

#define NOBODY	65534

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: as_nobody CMD [ARGS]\n");
		return 2;
	}
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY)) {
		perror("as_nobody: dropping root");
		return 2;
	}
	execvp(argv[1], argv + 1);
	perror("as_nobody: exec");
	return 2;
}
