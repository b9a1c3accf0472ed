// SPDX-License-Identifier: GPL-2.0
/*
 * BPF programs as the parts of cfctl's XDP side look at them: by id and
 * name, with libbpf and libxdp as quiet as the user asked.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "xdp/xdp_int.h"

static int print_libbpf(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int print_libxdp(enum libxdp_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBXDP_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/*
 * libbpf and libxdp explain failures at length; cfctl prints one line
 * unless asked.
 */
void set_verbose(bool verbose)
{
	libbpf_set_print(verbose ? print_libbpf : NULL);
	libxdp_set_print(verbose ? print_libxdp : NULL);
}

/*
 * Opens the program with @id and copies its name to @name (BPF_OBJ_NAME_LEN
 * bytes). Returns its descriptor or a negative errno.
 */
int prog_open(__u32 id, char *name)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd, err;

	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		err = -errno;
		close(fd);
		return err;
	}
	memcpy(name, info.name, BPF_OBJ_NAME_LEN);
	return fd;
}

/* Is @prog_id a program called @want? */
bool prog_is(__u32 prog_id, const char *want)
{
	char name[BPF_OBJ_NAME_LEN];
	int fd;

	if (!prog_id)
		return false;
	fd = prog_open(prog_id, name);
	if (fd < 0)
		return false;
	close(fd);
	return !strcmp(name, want);
}
