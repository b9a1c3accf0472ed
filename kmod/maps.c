// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF maps that programs hand over to the module, their prefilter
 * (prefilter.c) and mirror (mirror.c), which the module then writes for
 * the caller: taken only where the bpf() syscall would let the caller
 * write, and only arrays the module may write whole.
 */
#include <linux/bpf.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>

#include "compat.h"
#include "maps.h"

/* bpf_map_get() is in this namespace from 6.12 on. */
CFILTER_IMPORT_NS(BPF_INTERNAL);

/*
 * The map of descriptor @fd, if the bpf() syscall would let the caller
 * write it (the module writes it on the caller's behalf): as the kernel's
 * map_get_sys_perms(), not through a descriptor opened read-only
 * (BPF_F_RDONLY, which BPF_OBJ_GET gives a user who may only read the
 * pin), nor a frozen map, whose owner wants no more writes from user space.
 */
struct bpf_map *cfilter_map_get_writable(int fd)
{
	struct bpf_map *map;
	struct file *file;

	file = fget(fd);
	if (!file)
		return ERR_PTR(-EBADF);
	/*
	 * A second look-up of @fd, which may have been closed or reused since:
	 * only the file of this very map has it as its private data.
	 */
	map = bpf_map_get(fd);
	if (!IS_ERR(map) && file->private_data != map) {
		bpf_map_put(map);
		map = ERR_PTR(-EBADF);
	}
	if (!IS_ERR(map) &&
	    (!(file->f_mode & FMODE_CAN_WRITE) || READ_ONCE(map->frozen))) {
		bpf_map_put(map);
		map = ERR_PTR(-EPERM);
	}
	fput(file);
	return map;
}

/*
 * An array with 4-byte keys that the module may write whole: one programs
 * may write too, not an inner map, and with nothing the BPF core owns in
 * its values, which the module's words would overwrite (a bpf_timer so
 * written took the kernel down when the core freed the map).
 */
bool cfilter_map_plain_array(const struct bpf_map *map)
{
	return map->map_type == BPF_MAP_TYPE_ARRAY &&
	       map->key_size == sizeof(u32) &&
	       !(map->map_flags & (BPF_F_RDONLY_PROG | BPF_F_INNER_MAP)) &&
	       !cfilter_map_has_special_fields(map);
}
