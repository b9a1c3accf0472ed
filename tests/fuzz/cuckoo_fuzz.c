// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the cuckoo filter core: runs a sequence of operations
 * decoded from the input against the filter and a reference model (a set of
 * up to 256 keys) and aborts on any difference.
 *
 * Input: byte 0 picks the mode (bit 0: exact), fingerprint width (bits 1-2)
 * and key length (bits 3-5); byte 1 the capacity (bits 0-3: 1 to 16 keys,
 * so growth and ENOSPC come quickly) and, in exact mode, how far it may grow
 * (bits 4-6: up to 2^7 times). Then two bytes per operation: the operation
 * and a key number 0-255 (its argument).
 *
 * Exact mode must answer exactly as the model does. Compact mode must never
 * report a present key absent; an add of a present key is -EEXIST, an add
 * of an absent one may also be -EEXIST (fingerprint and buckets shared
 * with a present key: the key is then not stored, and the model agrees);
 * only present keys are deleted, as compact mode documents. At the end the
 * batch reader, given every key at once, must answer as the single one.
 */
#include "cuckoo_unit.h"

#include <stdio.h>

#define KEYS		256

enum { OP_ADD, OP_DEL, OP_TEST, OP_CLEAR, OP_LIST, OP_NOMEM, OP_COUNT };

static const unsigned int fp_widths[] = { 8, 12, 16, 32 };
static const unsigned int key_lens[] = { 1, 4, 5, 16, 40, 2, 8, 3 };

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, \
				#cond);					\
			abort();					\
		}							\
	} while (0)

struct model {
	struct cuckoo *c;
	unsigned int key_len;
	bool exact;
	bool present[KEYS];
	u64 count;
};

/*
 * Key @i: its number in byte 0, the rest a pattern that depends on it;
 * key 0 is all zero bytes (an address 0.0.0.0, a prefix table's 0/8).
 */
static void key_of(u8 *k, unsigned int len, unsigned int i)
{
	unsigned int b;

	k[0] = i;
	for (b = 1; b < len; b++)
		k[b] = i ? (i * 131 + b * 17) >> (b % 3) : 0;
}

static bool has(const struct model *m, unsigned int i)
{
	u8 k[CUCKOO_KEY_MAX];
	bool hit;

	key_of(k, m->key_len, i);
	rcu_read_lock();
	hit = cuckoo_contains(m->c, k);
	rcu_read_unlock();
	return hit;
}

/* The batch reader, given every key at once, answers as the single one. */
static void check_batch(const struct model *m)
{
	static u8 keys[KEYS * CUCKOO_KEY_MAX];
	bool hits[KEYS];
	unsigned int i, found = 0;

	for (i = 0; i < KEYS; i++)
		key_of(keys + i * m->key_len, m->key_len, i);
	rcu_read_lock();
	CHECK(cuckoo_contains_batch(m->c, keys, KEYS, hits) <= KEYS);
	rcu_read_unlock();
	for (i = 0; i < KEYS; i++) {
		CHECK(hits[i] == has(m, i));
		found += hits[i];
	}
	rcu_read_lock();
	CHECK(cuckoo_contains_batch(m->c, keys, KEYS, hits) == found);
	rcu_read_unlock();
}

static void check_all(const struct model *m)
{
	struct cuckoo_stats st;
	unsigned int i;

	for (i = 0; i < KEYS; i++)
		if (m->exact)
			CHECK(has(m, i) == m->present[i]);
		else if (m->present[i])
			CHECK(has(m, i));
	cuckoo_get_stats(m->c, &st);
	CHECK(st.count == m->count);
	CHECK(st.capacity == st.buckets * CUCKOO_SLOTS);
	CHECK(st.count <= st.capacity);
}

static void op_add(struct model *m, unsigned int i, const u8 *k)
{
	int rc = cuckoo_insert(m->c, k);

	if (m->present[i]) {
		CHECK(rc == -EEXIST);
		return;
	}
	CHECK(rc == 0 || rc == -ENOSPC || rc == -ENOMEM ||
	      (rc == -EEXIST && !m->exact));
	if (!rc) {
		m->present[i] = true;
		m->count++;
	}
	if (rc == -ENOMEM)
		check_all(m);
	else if (rc && m->exact)
		CHECK(!has(m, i));
}

static void op_del(struct model *m, unsigned int i, const u8 *k)
{
	if (!m->exact && !m->present[i])
		return;
	CHECK(cuckoo_delete(m->c, k) == (m->present[i] ? 0 : -ENOENT));
	if (m->present[i]) {
		m->present[i] = false;
		m->count--;
	}
}

static void op_clear(struct model *m)
{
	int rc = cuckoo_clear(m->c);

	CHECK(rc == 0 || rc == -ENOMEM);
	if (!rc) {
		memset(m->present, 0, sizeof(m->present));
		m->count = 0;
	}
	check_all(m);
}

/* Lists in chunks of @chunk keys; each present key must come exactly once. */
static void op_list(struct model *m, unsigned int chunk)
{
	u8 keys[7 * CUCKOO_KEY_MAX], k[CUCKOO_KEY_MAX];
	bool seen[KEYS] = { false };
	u64 pos = 0, total = 0;
	long n, j;

	chunk = chunk % 7 + 1;
	if (!m->exact) {
		CHECK(cuckoo_list(m->c, &pos, keys, chunk) == -EOPNOTSUPP);
		return;
	}
	while ((n = cuckoo_list(m->c, &pos, keys, chunk)) != 0) {
		if (n == -EAGAIN)
			continue;
		CHECK(n > 0 && n <= (long)chunk);
		for (j = 0; j < n; j++) {
			const u8 *key = keys + j * m->key_len;

			key_of(k, m->key_len, key[0]);
			CHECK(!memcmp(k, key, m->key_len));
			CHECK(m->present[key[0]] && !seen[key[0]]);
			seen[key[0]] = true;
		}
		total += n;
	}
	CHECK(n == 0 && total == m->count);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct cuckoo_params p = { .seed = 0x5eed };
	struct model m = { 0 };
	u8 k[CUCKOO_KEY_MAX];
	size_t at;

	if (size < 2)
		return 0;
	p.exact = data[0] & 1;
	p.fp_bits = fp_widths[(data[0] >> 1) & 3];
	p.key_len = key_lens[(data[0] >> 3) & 7];
	p.capacity = (data[1] & 15) + 1;
	if (p.exact)
		p.max_capacity = p.capacity << ((data[1] >> 4) & 7);
	CHECK(!cuckoo_params_check(&p));
	m.c = cuckoo_create(&p);
	CHECK(m.c);
	m.key_len = p.key_len;
	m.exact = p.exact;

	for (at = 2; at + 1 < size; at += 2) {
		unsigned int op = data[at] % OP_COUNT, i = data[at + 1];

		key_of(k, m.key_len, i);
		if (!(at & 63))
			check_all(&m);
		switch (op) {
		case OP_ADD:
			op_add(&m, i, k);
			break;
		case OP_DEL:
			op_del(&m, i, k);
			break;
		case OP_TEST:
			if (m.exact)
				CHECK(has(&m, i) == m.present[i]);
			else if (m.present[i])
				CHECK(has(&m, i));
			break;
		case OP_CLEAR:
			op_clear(&m);
			break;
		case OP_LIST:
			op_list(&m, i);
			break;
		case OP_NOMEM:
			/* the next operation may allocate i % 5 times */
			if (at + 3 >= size)
				break;
			cuckoo_host_alloc_budget = i % 5;
			at += 2;
			i = data[at + 1];
			key_of(k, m.key_len, i);
			if (data[at] & 1)
				op_clear(&m);
			else
				op_add(&m, i, k);
			cuckoo_host_alloc_budget = -1;
			break;
		}
	}
	check_all(&m);
	check_batch(&m);
	cuckoo_destroy(m.c);
	return 0;
}
