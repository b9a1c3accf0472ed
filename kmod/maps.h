/* SPDX-License-Identifier: GPL-2.0 */
/* The BPF maps that programs hand over to the module: maps.c */
#ifndef CFILTER_KMOD_MAPS_H
#define CFILTER_KMOD_MAPS_H

#include <linux/bpf.h>
#include <linux/types.h>

struct bpf_map *cfilter_map_get_writable(int fd);
bool cfilter_map_plain_array(const struct bpf_map *map);

/* The value of array map @map, its first entry. */
static inline void *cfilter_map_value(struct bpf_map *map)
{
	return container_of(map, struct bpf_array, map)->value;
}

#endif /* CFILTER_KMOD_MAPS_H */
