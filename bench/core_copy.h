/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The filter core compiled once more into the benchmark, its external
 * functions (the interface, and the few its files share) renamed with
 * CUCKOO_COPY(), which the includer defines: cuckoo_nov.c (the readers
 * without the version protocol) and cuckoo_twin.c (the same code at other
 * addresses). Every copy shares the structures and the writer's code, so
 * each reads the tables the core builds.
 */
#define cuckoo_params_check	CUCKOO_COPY(params_check)
#define cuckoo_max_capacity	CUCKOO_COPY(max_capacity)
#define cuckoo_create		CUCKOO_COPY(create)
#define cuckoo_destroy		CUCKOO_COPY(destroy)
#define cuckoo_insert		CUCKOO_COPY(insert)
#define cuckoo_insert_val	CUCKOO_COPY(insert_val)
#define cuckoo_set_val		CUCKOO_COPY(set_val)
#define cuckoo_get_val		CUCKOO_COPY(get_val)
#define cuckoo_delete		CUCKOO_COPY(delete)
#define cuckoo_clear		CUCKOO_COPY(clear)
#define cuckoo_list		CUCKOO_COPY(list)
#define cuckoo_list_gen		CUCKOO_COPY(list_gen)
#define cuckoo_contains		CUCKOO_COPY(contains)
#define cuckoo_lookup		CUCKOO_COPY(lookup)
#define cuckoo_lookup_word	CUCKOO_COPY(lookup_word)
#define cuckoo_contains_batch	CUCKOO_COPY(contains_batch)
#define cuckoo_lookup_batch	CUCKOO_COPY(lookup_batch)
#define cuckoo_get_stats	CUCKOO_COPY(get_stats)
#define cuckoo_raw_bytes	CUCKOO_COPY(raw_bytes)
#define cuckoo_raw_max_bytes	CUCKOO_COPY(raw_max_bytes)
#define cuckoo_raw_read		CUCKOO_COPY(raw_read)
#define cuckoo_raw_create	CUCKOO_COPY(raw_create)
#define cuckoo_mirrorable	CUCKOO_COPY(mirrorable)
#define cuckoo_mirror_start	CUCKOO_COPY(mirror_start)
#define cuckoo_mirror_stop	CUCKOO_COPY(mirror_stop)
#define cuckoo_geometry		CUCKOO_COPY(geometry)
#define cuckoo_table_alloc	CUCKOO_COPY(table_alloc)
#define cuckoo_table_free	CUCKOO_COPY(table_free)

#include "cuckoo_copies.h"
#include "cuckoo_unit.h"
