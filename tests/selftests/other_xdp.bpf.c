// SPDX-License-Identifier: GPL-2.0
/*
 * Another tool's XDP program, for the tests of cfilter beside one: it
 * passes every packet, and counts those it sees in other_seen, so that a
 * test can tell which packets reached it.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} other_seen SEC(".maps");

SEC("xdp")
int other_xdp(struct xdp_md *ctx)
{
	__u32 key = 0;
	__u64 *seen = bpf_map_lookup_elem(&other_seen, &key);

	if (seen)
		__sync_fetch_and_add(seen, 1);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
