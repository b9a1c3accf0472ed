// SPDX-License-Identifier: GPL-2.0
/*
 * The filter core a second time, with the version protocol compiled out of
 * its readers (CUCKOO_NO_VERSIONS) and its external functions (the
 * interface, and the few its files share) renamed, so that one benchmark
 * binary measures both and prints their ratio.
 */
#define CUCKOO_NO_VERSIONS
#define cuckoo_params_check	cuckoo_nov_params_check
#define cuckoo_max_capacity	cuckoo_nov_max_capacity
#define cuckoo_create		cuckoo_nov_create
#define cuckoo_destroy		cuckoo_nov_destroy
#define cuckoo_insert		cuckoo_nov_insert
#define cuckoo_insert_val	cuckoo_nov_insert_val
#define cuckoo_set_val		cuckoo_nov_set_val
#define cuckoo_get_val		cuckoo_nov_get_val
#define cuckoo_delete		cuckoo_nov_delete
#define cuckoo_clear		cuckoo_nov_clear
#define cuckoo_list		cuckoo_nov_list
#define cuckoo_list_gen		cuckoo_nov_list_gen
#define cuckoo_contains		cuckoo_nov_contains
#define cuckoo_lookup		cuckoo_nov_lookup
#define cuckoo_contains_batch	cuckoo_nov_contains_batch
#define cuckoo_lookup_batch	cuckoo_nov_lookup_batch
#define cuckoo_get_stats	cuckoo_nov_get_stats
#define cuckoo_raw_bytes	cuckoo_nov_raw_bytes
#define cuckoo_raw_max_bytes	cuckoo_nov_raw_max_bytes
#define cuckoo_raw_read		cuckoo_nov_raw_read
#define cuckoo_raw_create	cuckoo_nov_raw_create
#define cuckoo_geometry		cuckoo_nov_geometry
#define cuckoo_table_alloc	cuckoo_nov_table_alloc
#define cuckoo_table_free	cuckoo_nov_table_free

#include "cuckoo_nov.h"
#include "cuckoo_unit.h"
