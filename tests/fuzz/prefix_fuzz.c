// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for prefix sets (core/prefix.c): runs operations decoded
 * from the input on an IPv4 or IPv6 set and on a reference (a plain list
 * of members), and aborts on any difference: a wrong return code, a wrong
 * verdict or tag, a listing that is not the members, or a structure that
 * breaks an invariant of the comment at the top of prefix.c (checked after
 * every operation, see tests/host/prefix_check.h). A failed insert
 * (-ENOSPC from small tables, -ENOMEM from a failed allocation) must leave
 * everything exactly as it was: the structure and both summaries still
 * those of the unchanged reference.
 *
 * Input: byte 0 picks the family (bit 0: IPv6), the address table (bit 1:
 * compact), the tables' capacity (bits 2-3: 4 to 32) and, exact, how far
 * they may grow (bits 4-5: up to 8 times), small so that tables fill and
 * grow early. Then 4 bytes per operation: the operation; an address (bits
 * 0-1: one of four bases, so members nest and share markers; bits 2-7: a
 * bit to flip in it); a length (the byte mod W + 1); a byte for the tag,
 * the chunk size or the allocation budget, also XORed into the address
 * after the flipped bit.
 */
#include "prefix_check.h"

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: %s (%s)\n", __FILE__,	\
				__LINE__, #cond, check_why);		\
			abort();					\
		}							\
	} while (0)

enum { OP_INSERT, OP_DELETE, OP_RETAG, OP_MATCH, OP_CONTAINS, OP_LIST,
       OP_CLEAR, OP_NOMEM, OP_COUNT };

#define MEMBERS_MAX	512

static const u8 bases[4][16] = {
	{ 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	{ 10, 1, 2, 0x83, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 },
	{ 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	  0xff, 0xff, 0xff, 0xff, 0xfe },
};

struct fuzz {
	struct prefix_set *s;
	struct ref r;
	u32 alen, bits;
	bool exact;
	u64 fp;
};

/* The address an operation names, before masking. */
static void addr_of(const struct fuzz *f, u8 sel, u8 extra, u8 *a)
{
	u32 bit = (sel >> 2) * f->bits / 64;

	memset(a, 0, 16);
	memcpy(a, bases[sel & 3], f->alen);
	a[bit / 8] ^= 0x80 >> (bit % 8);
	if (bit / 8 + 1 < f->alen)
		a[bit / 8 + 1] ^= extra;
}

static void check_match(struct fuzz *f, const u8 *a)
{
	u32 tag, probes;
	enum prefix_hit h = prefix_match_counted(f->s, a, &tag, &probes);

	CHECK(probes <= (f->alen == 4 ? 6U : 8U));
	CHECK(ref_verdict_ok(&f->r, a, f->exact, h, tag, &f->fp));
}

static void op_insert(struct fuzz *f, const u8 *a, u32 len, u32 tag)
{
	int at = ref_find(&f->r, a, len), rc;

	rc = prefix_set_insert(f->s, a, len, tag);
	if (tag >> PREFIX_TAG_BITS) {
		CHECK(rc == -EINVAL);
	} else if (at >= 0) {
		CHECK(rc == -EEXIST);
	} else {
		CHECK(rc == 0 || rc == -ENOSPC || rc == -ENOMEM ||
		      (rc == -EEXIST && !f->exact && len == f->bits));
		if (!rc)
			ref_add(&f->r, a, len, tag);
	}
	/* the reference did not change: nor may the set, summary included */
	if (rc)
		CHECK(!prefix_check_set(f->s, &f->r) &&
		      !prefix_check_summary(f->s, &f->r));
}

static void op_delete(struct fuzz *f, const u8 *a, u32 len)
{
	int at = ref_find(&f->r, a, len);

	/* a compact table may hold another key's fingerprint instead */
	if (!f->exact && len == f->bits && at < 0)
		return;
	CHECK(prefix_set_delete(f->s, a, len) == (at >= 0 ? 0 : -ENOENT));
	if (at >= 0)
		ref_del_at(&f->r, at);
}

static void op_retag(struct fuzz *f, const u8 *a, u32 len, u32 tag)
{
	int at = ref_find(&f->r, a, len), rc;

	if (!f->exact && len == f->bits && at < 0)
		return;
	rc = prefix_set_retag(f->s, a, len, tag);
	if (tag >> PREFIX_TAG_BITS) {
		CHECK(rc == -EINVAL);
		return;
	}
	CHECK(rc == (at >= 0 ? 0 : -ENOENT));
	if (at >= 0)
		f->r.m[at].tag = f->exact || len < f->bits ? tag : 0;
}

/* Lists in chunks of @chunk: each member exactly once, nothing else. */
static void op_list(struct fuzz *f, u32 chunk)
{
	u8 out[7 * PREFIX_ENTRY_LEN(16)], a[16];
	u32 elen = PREFIX_ENTRY_LEN(f->alen), listed = 0, want = 0, i;
	static bool seen[MEMBERS_MAX];
	u64 pos = 0;
	long n, j;
	int at;

	chunk = chunk % 7 + 1;
	memset(seen, 0, sizeof(seen));
	while ((n = prefix_set_list(f->s, &pos, out, chunk)) != 0) {
		if (n == -EAGAIN)
			continue;
		CHECK(n > 0 && n <= (long)chunk);
		for (j = 0; j < n; j++) {
			memset(a, 0, sizeof(a));
			memcpy(a, out + j * elen, f->alen);
			at = ref_find(&f->r, a, out[j * elen + f->alen]);
			CHECK(at >= 0 && !seen[at]);
			seen[at] = true;
			listed++;
		}
	}
	CHECK(n == 0);
	for (i = 0; i < f->r.n; i++)
		want += f->exact || f->r.m[i].len < f->bits;
	CHECK(listed == want);
}

/* Host bits set: -EINVAL from every writer, nothing changed, no member. */
static void bad_input(struct fuzz *f, const u8 *a, u32 len)
{
	CHECK(prefix_set_insert(f->s, a, len, 0) == -EINVAL);
	CHECK(prefix_set_delete(f->s, a, len) == -EINVAL);
	CHECK(prefix_set_retag(f->s, a, len, 0) == -EINVAL);
	rcu_read_lock();
	CHECK(!prefix_set_contains(f->s, a, len));
	rcu_read_unlock();
	CHECK(!prefix_check_set(f->s, &f->r));
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct prefix_params p = { 0 };
	struct fuzz f = { 0 };
	size_t at;
	u8 a[16];

	if (size < 1)
		return 0;
	rcu_register_thread();
	f.alen = data[0] & 1 ? 16 : 4;
	f.bits = 8 * f.alen;
	f.exact = !(data[0] & 2);
	p.addr_len = f.alen;
	p.addrs.capacity = 4 << ((data[0] >> 2) & 3);
	p.addrs.max_capacity = p.addrs.capacity;
	if (f.exact)
		p.addrs.max_capacity <<= (data[0] >> 4) & 3;
	p.addrs.seed = 0x5eed;
	p.addrs.fp_bits = 16;
	p.addrs.key_len = f.alen;
	p.addrs.exact = f.exact;
	f.s = prefix_set_create(&p);
	CHECK(f.s);
	ref_init(&f.r, f.alen);

	for (at = 1; at + 3 < size; at += 4) {
		u32 op = data[at] % OP_COUNT, len = data[at + 2] % (f.bits + 1);
		u32 x = data[at + 3];

		addr_of(&f, data[at + 1], x, a);
		if (op <= OP_RETAG || op == OP_CONTAINS || op == OP_NOMEM) {
			if ((x & 0x80) &&
			    !prefix_host_bits_zero(a, f.alen, len)) {
				bad_input(&f, a, len);
				continue;
			}
			prefix_mask(a, f.alen, len);
		}
		switch (op) {
		case OP_INSERT:
			if (f.r.n < MEMBERS_MAX)
				op_insert(&f, a, len, x % 33);
			break;
		case OP_DELETE:
			op_delete(&f, a, len);
			break;
		case OP_RETAG:
			op_retag(&f, a, len, x % 33);
			break;
		case OP_MATCH:
			check_match(&f, a);
			break;
		case OP_CONTAINS:
			rcu_read_lock();
			if (ref_find(&f.r, a, len) >= 0)
				CHECK(prefix_set_contains(f.s, a, len));
			else if (f.exact || len < f.bits)
				CHECK(!prefix_set_contains(f.s, a, len));
			rcu_read_unlock();
			break;
		case OP_LIST:
			op_list(&f, x);
			break;
		case OP_CLEAR:
			CHECK(prefix_set_clear(f.s) == 0);
			f.r.n = 0;
			break;
		case OP_NOMEM:
			/* an insert that may allocate x % 8 times */
			cuckoo_host_alloc_budget = x % 8;
			if (f.r.n < MEMBERS_MAX)
				op_insert(&f, a, len, x % 32);
			cuckoo_host_alloc_budget = -1;
			break;
		}
		CHECK(!prefix_check_set(f.s, &f.r));
		check_match(&f, a);
	}
	CHECK(!prefix_check_summary(f.s, &f.r));
	ref_free(&f.r);
	prefix_set_destroy(f.s);
	rcu_unregister_thread();
	return 0;
}
