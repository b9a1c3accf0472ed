// SPDX-License-Identifier: GPL-2.0
/*
 * Another tool's XDP program, for the tests of cfilter beside one: it
 * passes every packet.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int other_xdp(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
