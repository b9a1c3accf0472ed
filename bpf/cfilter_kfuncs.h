/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BPF-side declarations of the kfuncs exported by cfilter.ko. The kernel
 * side, and the rules the verifier applies to the arguments, are in
 * kmod/kfunc.c; keep the two in step.
 */
#ifndef __CFILTER_KFUNCS_H
#define __CFILTER_KFUNCS_H

#include <linux/types.h>
#include <bpf/bpf_helpers.h>

/*
 * bpf_cfilter_match - what do the filters say about a packet?
 * @pkt:     a struct cfilter_pkt on the BPF stack, every unused byte zero
 * @pkt__sz: sizeof(struct cfilter_pkt)
 *
 * Returns an enum cfilter_verdict: the source, then the destination (with
 * CFILTER_PKT_MATCH_DST), then the 5-tuple (with CFILTER_PKT_PORTS) is
 * looked up, and a hit is CFILTER_ALLOWED if the source is on the allow
 * list. -EINVAL if @pkt__sz is wrong or @pkt has a shape the module rejects.
 */
extern int bpf_cfilter_match(const void *pkt, __u32 pkt__sz) __ksym;

/*
 * bpf_cfilter_entry - the verdict, and the entry and source behind it
 * @pkt:       as for bpf_cfilter_match()
 * @pkt__sz:   sizeof(struct cfilter_pkt)
 * @entry:     a struct cfilter_match_entry on the BPF stack, initialised
 *             (the verifier checks it may be read and written)
 * @entry__sz: sizeof(struct cfilter_match_entry)
 *
 * Looks the packet up again and names the entry that decided (the longest
 * prefix, by a probe per length): for the few drops a program logs, never
 * for every packet. Counts no drop. Returns the verdict, or -EINVAL.
 */
extern int bpf_cfilter_entry(const void *pkt, __u32 pkt__sz, void *entry,
			     __u32 entry__sz) __ksym;

#endif /* __CFILTER_KFUNCS_H */
