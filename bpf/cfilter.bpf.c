// SPDX-License-Identifier: GPL-2.0
/*
 * cfilter's XDP and TC programs: drop every packet that cfilter.ko's
 * filters block by source address or prefix, destination address or prefix
 * (if the loader enabled it) or 5-tuple, unless its source is on the allow
 * list, and the packets whose headers would hide what they are (see
 * classify()); pass everything else, and count every packet exactly once
 * in cfilter_stats, under the interface it arrived on. While a reader
 * (cfctl log, cfctl top) holds a lease, describe a few dropped packets a
 * second to it (log_drop()).
 *
 * The parser (cfilter_parse.h) reads the headers down to the L4 ports; one
 * call of bpf_cfilter_match() does every lookup. The same verdicts are
 * offered at TC ingress (cfilter_tc) for links without XDP.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <linux/cfilter.h>
#include <bpf/bpf_helpers.h>
#include <xdp/xdp_helpers.h>

#include "cfilter_kfuncs.h"
#include "cfilter_parse.h"

/* ICMPv6 types of Neighbor Discovery (RFC 4861 4.1-4.5). */
#define ND_FIRST_TYPE	133	/* router solicitation */
#define ND_LAST_TYPE	137	/* redirect */
#define ND_HOP_LIMIT	255

/*
 * Pinned by name, so that every loader of this object counts into one map:
 * iproute2 (ip link ... obj, tc ... bpf obj) reuses or pins it in
 * /sys/fs/bpf/tc/globals, a place it does not let a user change; cfctl
 * points libbpf at the same place, and pins the map again where bpftool's
 * libbpf looks, /sys/fs/bpf (see user/xdp/xdp_stats.c).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CFILTER_STATS_IFACES);
	__type(key, __u32);
	__type(value, struct cfilter_if_stats);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} cfilter_stats SEC(".maps");

/*
 * The prefilter (struct cfilter_prefilter): bits per /16 of sources and
 * destinations, the blocks of longer prefixes and hashed bits of
 * addresses, kept by the module once the loader hands the map over (cfctl
 * does). Its value is the struct and prefilter_hmask + 1 hashed words: a
 * loader that expects more keys sets both larger. Not pinned: each program has its own, and one the
 * module does not keep reads as not ready. Only the module writes it, yet
 * the loader's descriptor may write: the module writes for the caller,
 * and takes no descriptor the bpf() syscall would not let write
 * (BPF_F_RDONLY here made the loader's so). No BTF types: the value's
 * size is the loader's, and the kernel wants none or both.
 */
#define PREFILTER_HWORDS	(4096 / 64)

const volatile __u32 prefilter_hmask = PREFILTER_HWORDS - 1;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct cfilter_prefilter) +
			   PREFILTER_HWORDS * sizeof(__u64));
} cfilter_prefilter SEC(".maps");

/*
 * The mirror (struct cfilter_prefilter_mirror): in compact mode, the
 * module's table of IPv4 source addresses, kept by the module once the
 * loader hands the map over with the prefilter (cfctl does), and the
 * drops this program made in it. The loader sizes it (struct
 * cfilter_info's mirror_entries); at another size the module keeps none,
 * and the prefilter's @mirror never reads ready.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} cfilter_mirror SEC(".maps");

/*
 * The drop log (struct cfilter_log_ctl in the UAPI says how readers and
 * programs share it): its switch and leases, the rate limit's state per
 * CPU, and a ring buffer per reader. Pinned by name, as cfilter_stats is,
 * so that a reader reaches the programs of every loader; the switch is
 * mmapped by readers, which take their slots by compare-and-swap.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cfilter_log_ctl);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} cfilter_log_ctl SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cfilter_log_cpu);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} cfilter_log_cpu SEC(".maps");

/* The readers make their rings: the object holds none while no one reads. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, CFILTER_LOG_READERS);
	__type(key, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
	__array(values, struct {
		__uint(type, BPF_MAP_TYPE_RINGBUF);
		__uint(max_entries, CFILTER_LOG_RING_SIZE);
	});
} cfilter_log_rb SEC(".maps");

/*
 * Neighbor Discovery is passed even from a blocked source: without it a
 * host cannot resolve its neighbours or router, and an operator who blocks
 * his own address must not lose the link to the machine. Only what the
 * stack would accept as ND is let through: hop limit 255 (RFC 4861, so
 * never from off-link) and unfragmented (RFC 6980); anything else with an
 * ND type is ordinary ICMPv6.
 */
static __always_inline bool is_neigh_discovery(const struct packet *pkt)
{
	return pkt->m.family == PKT_IPV6 && (pkt->flags & PKT_ICMP) &&
	       !(pkt->flags & PKT_FRAGMENT) &&
	       pkt->icmp_type >= ND_FIRST_TYPE &&
	       pkt->icmp_type <= ND_LAST_TYPE &&
	       pkt->hop_limit == ND_HOP_LIMIT;
}

/*
 * Set by the loader before the program is loaded (cfctl attach --match-dst):
 * look destinations up too. Off by default, as a host's own addresses are
 * the destination of most of what it receives.
 */
const volatile bool match_dst;

/*
 * The packet as the module matches it: the parser's, with the loader's
 * choice of destinations. The module matches bytewise: the parser leaves
 * every byte it gives no value zero.
 */
static __always_inline const struct cfilter_pkt *match_pkt(struct packet *pkt)
{
	if (match_dst)
		pkt->m.flags |= CFILTER_PKT_MATCH_DST;
	return &pkt->m;
}

static __always_inline void count(__u32 ifindex, enum cfilter_stat stat)
{
	__u32 slot = ifindex < CFILTER_STATS_IFACES ? ifindex : 0;
	struct cfilter_if_stats *s;

	s = bpf_map_lookup_elem(&cfilter_stats, &slot);
	/* Per-CPU slot, and a BPF program does not migrate: no atomic needed. */
	if (s && stat < __CFILTER_STAT_MAX)
		s->packets[stat] += 1;
}

/* Are both hashed bits of address @addr of key type @type set? */
static __always_inline bool prefilter_hashed(const struct cfilter_prefilter *pf,
					     __u32 type, const __u8 *addr,
					     bool v6, __u64 dep, __u64 hmask)
{
	__u64 h, bits, w;

	if (v6)
		h = cfilter_prefilter_hash6(type, *(const __u64 *)addr,
					    *(const __u64 *)(addr + 8));
	else
		h = cfilter_prefilter_hash4(type, *(const __u32 *)addr);
	/* masked, so that a @dep the verifier does not know stays in bounds */
	w = pf->hashed[cfilter_prefilter_hword(h + dep, hmask)];
	bits = cfilter_prefilter_hbits(h);
	return (w & bits) == bits;
}

/* Is the bit of @addr's block (IPv4: its /24; IPv6: its /32) set? */
static __always_inline bool prefilter_block(const __u32 *words,
					    const __u8 *addr, bool v6,
					    __u64 dep)
{
	__u32 a = bpf_ntohl(*(const __u32 *)addr);
	__u32 k = cfilter_prefilter_block(v6 ? a : a >> 8);

	return words[(k / 32 + dep) & (CFILTER_PREFILTER_BLOCK_WORDS - 1)] >>
	       (k % 32) & 1;
}

/* Entry @i of the mirror, or NULL past its end. */
static __always_inline __u64 *mirror_entry(__u64 i)
{
	__u32 k = i;

	return k == i ? bpf_map_lookup_elem(&cfilter_mirror, &k) : NULL;
}

/* @x, which the compiler may no longer assume anything of. */
static __always_inline __u64 opaque(__u64 x)
{
	barrier_var(x);
	return x;
}

enum mirror_answer {
	MIRROR_UNSURE,	/* not ready, or a write under way: call */
	MIRROR_MISS,
	MIRROR_HIT,
};

/*
 * Do the mirror's buckets @b1 and @b2 hold @fp? The second is read only if
 * the first does not; @w gets what a miss read, for the loads after it.
 */
static __always_inline enum mirror_answer
mirror_buckets(__u64 b1, __u64 b2, __u32 fp, __u64 *w)
{
	__u64 *e = mirror_entry(CFILTER_MIRROR_HEAD + b1);
	__u64 w1, w2;

	if (!e)
		return MIRROR_UNSURE;
	w1 = *(volatile const __u64 *)e;
	if (cfilter_mirror_holds(w1, fp))
		return MIRROR_HIT;
	e = mirror_entry(CFILTER_MIRROR_HEAD + b2);
	if (!e)
		return MIRROR_UNSURE;
	w2 = *(volatile const __u64 *)e;
	if (cfilter_mirror_holds(w2, fp))
		return MIRROR_HIT;
	*w = w1 ^ w2;
	return MIRROR_MISS;
}

/*
 * IPv4 source @addr in the mirror, as the core's readers look (cuckoo_int.h):
 * a hit is final, so the buckets are read first and a hit needs nothing
 * more; a miss holds only if its fingerprint's version was even and the
 * same before and after the buckets were read again. Each load's address
 * depends on what the one before it read (@dep, the versions, the
 * buckets: 0 added), so that a CPU that reorders loads still makes them in
 * order: the module writes the description before @ready, and the core
 * the versions and buckets in the order the protocol needs. The first
 * reading's two buckets need no order between them: a hit is final and
 * a miss is read again.
 */
static __always_inline enum mirror_answer
mirror_probe(const struct cfilter_prefilter *pf, const __u8 *addr, __u64 dep)
{
	const __u64 *d = (const __u64 *)&pf->mirror;
	__u64 ready, h, bmask, smask, b1, b2, w = 0, *v, vbase;
	enum mirror_answer r;
	__u32 fp, seq;

	ready = *(volatile const __u64 *)&d[(CFILTER_MIRROR_W_READY + dep) & 7];
	/*
	 * Taken before the test: after it the compiler knows @ready and would
	 * offset the loads below by a constant, which orders nothing.
	 */
	dep = opaque(ready) - CFILTER_MIRROR_READY;
	if (ready != CFILTER_MIRROR_READY)
		return MIRROR_UNSURE;
	d += dep & 7;
	h = cfilter_mirror_hash4(*(const __u32 *)addr,
				 d[CFILTER_MIRROR_W_HASH_A],
				 d[CFILTER_MIRROR_W_HASH_B]);
	fp = cfilter_mirror_fp(h, d[CFILTER_MIRROR_W_FP_MASK]);
	bmask = d[CFILTER_MIRROR_W_BUCKET_MASK];
	smask = d[CFILTER_MIRROR_W_STRIPE_MASK];
	vbase = d[CFILTER_MIRROR_W_VERSIONS];
	b1 = h & bmask;
	b2 = cfilter_mirror_alt(b1, fp, bmask);
	r = mirror_buckets(b1, b2, fp, &w);
	if (r != MIRROR_MISS)
		return r;
	/* A miss: now version, buckets, version, as a miss needs. */
	dep = opaque(w) - w;
	v = mirror_entry(vbase + ((fp + dep) & smask));
	if (!v)
		return MIRROR_UNSURE;
	seq = *(volatile const __u64 *)v;
	dep = opaque(seq) - seq;
	r = mirror_buckets((b1 + dep) & bmask, (b2 + dep) & bmask, fp, &w);
	if (r != MIRROR_MISS)
		return r;
	dep = opaque(w) - w;
	v = mirror_entry(vbase + ((fp + dep) & smask));
	if (!v)
		return MIRROR_UNSURE;
	return (__u32)*(volatile const __u64 *)v == (seq & ~1U) ? MIRROR_MISS :
								 MIRROR_UNSURE;
}

/* A drop the mirror made, counted in it for the module (per CPU slot). */
static __always_inline void mirror_count(void)
{
	__u32 slot = bpf_get_smp_processor_id() % CFILTER_MIRROR_SLOTS;
	__u64 *n = mirror_entry(slot * CFILTER_MIRROR_SLOT_WORDS);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/* What the prefilter says of a packet, or of one of its addresses. */
enum pf_answer {
	PF_PASS,	/* no entry may drop it: no call */
	PF_CALL,	/* an entry may: the module decides */
	PF_DROP,	/* the mirror holds its source */
};

/*
 * May an entry of the bitmap @b (and key type @type) drop a packet with
 * address @addr? Not if its /16's bit of @any is clear, as for most
 * packets. Else its /16's bit; then, for what lies in the /16 (and only
 * for that: a set of prefixes hashes no address), the address's hashed
 * bits and, where they are set, the mirror if there is one (@mirror: the
 * cheap test first settles most misses), and the bit of its block. The
 * bits are read at addresses offset by @dep, 0 computed from the ready
 * word, so that a CPU that reorders loads still reads them after it: the
 * module writes them first.
 */
static __always_inline enum pf_answer
prefilter_may(const struct cfilter_prefilter *pf, unsigned int b, __u32 type,
	      const __u8 *addr, bool v6, __u64 dep, __u64 hmask, bool mirror)
{
	__u32 slot = bpf_ntohs(*(const __u16 *)addr);
	__u32 sw = ((slot >> 6) + dep) & (CFILTER_PREFILTER_WORDS - 1);
	__u32 bit = slot & 63;

	if (!(pf->any[b][sw] >> bit & 1))
		return PF_PASS;
	if (pf->bits[b][sw] >> bit & 1)
		return PF_CALL;
	if (pf->addrs[b][sw] >> bit & 1 &&
	    prefilter_hashed(pf, type, addr, v6, dep, hmask)) {
		switch (mirror ? mirror_probe(pf, addr, dep) : MIRROR_UNSURE) {
		case MIRROR_HIT:
			return PF_DROP;
		case MIRROR_MISS:
			break;
		default:
			return PF_CALL;
		}
	}
	return pf->longer[b][sw] >> bit & 1 &&
	       prefilter_block(pf->blocks[b], addr, v6, dep) ? PF_CALL : PF_PASS;
}

/*
 * What the prefilter says of @pkt (of family @v6): a pass when no entry
 * may drop a packet from its source (nor, where destinations are matched,
 * to its destination), a drop when the mirror holds its source (the
 * verdict looks at the source first, and the mirror is ready only while no
 * source is allowed), else a call.
 */
static __always_inline enum pf_answer prefilter_of(const struct packet *pkt,
						   bool v6)
{
	const struct cfilter_prefilter *pf;
	enum pf_answer src;
	__u64 ready, dep, hmask;
	__u32 zero = 0;

	pf = bpf_map_lookup_elem(&cfilter_prefilter, &zero);
	if (!pf)
		return PF_CALL;
	ready = *(volatile const __u64 *)&pf->ready;
	dep = ready;	/* a copy the compiler cannot fold */
	barrier_var(dep);
	dep -= CFILTER_PREFILTER_READY;
	/*
	 * hmask is written once, before ready: a map of another size than
	 * this program was loaded for calls, as one not yet kept does.
	 */
	hmask = prefilter_hmask;	/* read once: rodata is volatile */
	if (ready != CFILTER_PREFILTER_READY || pf->hmask != hmask)
		return PF_CALL;
	/*
	 * The mask as the verifier knows it, a constant: else the compiler
	 * may mask with the map's copy, equal but unbounded to the verifier.
	 */
	barrier_var(hmask);
	src = prefilter_may(pf, v6 ? CFILTER_PREFILTER_SRC6 :
			    CFILTER_PREFILTER_SRC4,
			    v6 ? CFILTER_KEY_SRC6 : CFILTER_KEY_SRC4,
			    pkt->m.saddr, v6, dep, hmask, !v6);
	if (src != PF_PASS || !match_dst)
		return src;
	return prefilter_may(pf, v6 ? CFILTER_PREFILTER_DST6 :
			     CFILTER_PREFILTER_DST4,
			     v6 ? CFILTER_KEY_DST6 : CFILTER_KEY_DST4,
			     pkt->m.daddr, v6, dep, hmask, false) == PF_PASS ?
	       PF_PASS : PF_CALL;
}

/* One copy per family, each with its lengths and types constant. */
static __always_inline enum pf_answer prefilter(const struct packet *pkt)
{
	return pkt->m.family == PKT_IPV6 ? prefilter_of(pkt, true) :
					 prefilter_of(pkt, false);
}

/* The counter of a verdict the module gave: its kind's. */
static __always_inline enum cfilter_stat verdict_stat(int verdict)
{
	/*
	 * A negative return means the module rejected the packet's shape,
	 * which only a program and module built from different UAPIs can
	 * cause, as a kind that is no verdict's can: fail open rather than
	 * black-hole the host.
	 */
	if (verdict < 0 || CFILTER_VERDICT_KIND(verdict) >= __CFILTER_STAT_MAX ||
	    CFILTER_VERDICT_KIND(verdict) == CFILTER_STAT_UNPARSED)
		return CFILTER_STAT_PASS;
	return CFILTER_VERDICT_KIND(verdict);
}

/*
 * The verdict on a packet the parser read as @res, as the counter it goes
 * to: the XDP and the TC program differ only in how they say drop.
 *
 * Whenever the IP header parsed, its addresses (and the ports, if their
 * bytes are there) are matched first, so that no blocked address passes
 * for what follows it. Then what the parser could not follow is decided:
 *   PARSE_NOT_IP     pass, unparsed: not IP, or an IP header the stack
 *                    discards itself
 *   PARSE_CUT,       pass, unparsed: a truncated datagram, which the stack
 *   PARSE_FRAME_END  discards (at TC, the caller pulls more and parses
 *                    again first)
 *   PARSE_TINY_FRAG  drop: a first fragment too short for its ports hides
 *                    its flow (RFC 1858, 3128); no sender needs one
 *   PARSE_DEEP,      drop: more than MAX_EXT_HDRS extension headers or
 *   PARSE_DEEP_L2    MAX_VLAN_TAGS tags, which no legitimate packet has,
 *                    would hide the flow or the addresses
 * An allow entry wins over every entry; the policy drops are not entries.
 */
static __always_inline enum cfilter_stat classify(enum parse_result res,
						  struct packet *pkt)
{
	enum cfilter_stat stat;

	if (res == PARSE_NOT_IP)
		return CFILTER_STAT_UNPARSED;
	if (res == PARSE_DEEP_L2)
		return CFILTER_STAT_DROP_DEEP;
	if (res == PARSE_OK && is_neigh_discovery(pkt))
		return CFILTER_STAT_PASS;

	switch (prefilter(pkt)) {
	case PF_PASS:
		stat = CFILTER_STAT_PASS;
		break;
	case PF_DROP:
		mirror_count();
		stat = CFILTER_STAT_DROP_SRC;
		break;
	default:
		stat = verdict_stat(bpf_cfilter_match(match_pkt(pkt),
						      sizeof(pkt->m)));
	}
	if (stat != CFILTER_STAT_PASS)
		return stat;
	switch (res) {
	case PARSE_OK:
		return CFILTER_STAT_PASS;
	case PARSE_TINY_FRAG:
		return CFILTER_STAT_DROP_FRAG;
	case PARSE_DEEP:
		return CFILTER_STAT_DROP_DEEP;
	default:
		return CFILTER_STAT_UNPARSED;
	}
}

static __always_inline bool is_drop(enum cfilter_stat stat)
{
	return CFILTER_STAT_DROPS >> stat & 1;
}

#define NSEC_PER_SEC	1000000000ULL

/*
 * A drop @ctl's rate limit lets through on this CPU at @now: true, and
 * counted as an event; else counted as left out.
 */
static __always_inline bool log_admit(const struct cfilter_log_ctl *ctl,
				      __u64 now)
{
	struct cfilter_log_cpu *c;
	__u32 zero = 0, rate;

	c = bpf_map_lookup_elem(&cfilter_log_cpu, &zero);
	if (!c)
		return false;
	rate = ctl->rate ? ctl->rate : CFILTER_LOG_RATE;
	/* Per CPU, and a BPF program does not migrate: no atomic needed. */
	if (now - c->window >= NSEC_PER_SEC) {
		c->window = now;
		c->sent = 0;
	}
	if (c->sent >= rate) {
		c->left_out++;
		return false;
	}
	c->sent++;
	c->events++;
	return true;
}

/* @ev into the ring of every slot whose lease holds at @now. */
static __always_inline void log_output(const struct cfilter_log_ctl *ctl,
				       struct cfilter_log_event *ev,
				       __u64 now)
{
	struct cfilter_log_cpu *c;
	__u32 zero = 0, slot;
	void *ring;
	int i;

	c = bpf_map_lookup_elem(&cfilter_log_cpu, &zero);
	if (!c)
		return;
	/* Unrolled: each slot's index a constant, as the verifier wants it. */
#pragma clang loop unroll(full)
	for (i = 0; i < CFILTER_LOG_READERS; i++) {
		if (*(volatile const __u64 *)&ctl->slot_until[i] <= now)
			continue;
		slot = i;
		ring = bpf_map_lookup_elem(&cfilter_log_rb, &slot);
		if (!ring || bpf_ringbuf_output(ring, ev, sizeof(*ev), 0))
			c->lost[i]++;
	}
}

/*
 * A dropped packet, the drop counted under @stat, for the readers holding
 * a lease of @ctl, which ends at @until: out of line, so that a drop costs
 * no more than log_drop()'s test while no one reads. @how: @stat, and the
 * enum cfilter_log_hook shifted by 8.
 */
static __noinline int log_send(struct packet *pkt, __u32 ifindex,
			       __u32 how, struct cfilter_log_ctl *ctl,
			       __u64 until)
{
	struct cfilter_log_event ev;
	/*
	 * The coarse clock (CLOCK_MONOTONIC at the tick) is read from memory,
	 * where the exact one may read a slow clocksource: it times the lease
	 * and the rate's windows, to a tick, on every drop of a flood; the
	 * exact one stamps the few events.
	 */
	__u64 now = bpf_ktime_get_coarse_ns();
	__u32 stat = how & 0xff;
	int verdict;

	if (now >= until) {
		/*
		 * Every lease is past (its reader died): off again, unless a
		 * reader renewed it meanwhile.
		 */
		__sync_val_compare_and_swap(&ctl->until, until, 0);
		return 0;
	}
	if (!log_admit(ctl, now))
		return 0;
	__builtin_memset(&ev, 0, sizeof(ev));
	ev.time_ns = bpf_ktime_get_ns();
	ev.ifindex = ifindex;
	ev.cpu = bpf_get_smp_processor_id();
	ev.kind = stat;
	ev.hook = how >> 8;
	ev.pkt = *match_pkt(pkt);
	/* The policy's drops (tiny fragments, deep headers) have no entry. */
	if (CFILTER_VERDICT_DROPS(stat) && stat != CFILTER_STAT_DROP_DEEP &&
	    stat != CFILTER_STAT_DROP_FRAG) {
		verdict = bpf_cfilter_entry(&ev.pkt, sizeof(ev.pkt), &ev.entry,
					    sizeof(ev.entry));
		ev.verdict = verdict > 0 ? verdict : 0;
	}
	log_output(ctl, &ev, now);
	return 0;
}

/*
 * The drop log's whole cost to a drop while no reader holds a lease: one
 * load of its switch and one branch, after an array lookup of a constant
 * key, which the verifier inlines (a bounds check, no call).
 */
static __always_inline void log_drop(struct packet *pkt, __u32 ifindex,
				     enum cfilter_stat stat,
				     enum cfilter_log_hook hook)
{
	struct cfilter_log_ctl *ctl;
	__u32 zero = 0;
	__u64 until;

	ctl = bpf_map_lookup_elem(&cfilter_log_ctl, &zero);
	if (!ctl)
		return;
	until = *(volatile const __u64 *)&ctl->until;
	if (until)
		log_send(pkt, ifindex, stat | hook << 8, ctl, until);
}

/*
 * For libxdp's dispatcher, which runs the programs of an interface in order
 * of priority, lowest first (cfctl attach --priority overrides it): a
 * blocklist goes before programs that would redirect or answer a blocked
 * packet, and a packet it passes goes on to the next program.
 */
struct {
	__uint(priority, 10);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(cfilter_xdp);

SEC("xdp")
int cfilter_xdp(struct xdp_md *ctx)
{
	struct cursor c = {
		.pos = (void *)(long)ctx->data,
		.end = (void *)(long)ctx->data_end,
	};
	enum cfilter_stat stat;
	struct packet pkt;

	stat = classify(parse_packet(&c, &pkt), &pkt);
	count(ctx->ingress_ifindex, stat);
	if (!is_drop(stat))
		return XDP_PASS;
	log_drop(&pkt, ctx->ingress_ifindex, stat, CFILTER_LOG_XDP);
	return XDP_DROP;
}

/*
 * What the TC program pulls into the linear area before it parses: the
 * headers of an ordinary packet (Ethernet, two VLAN tags, IPv6 with a few
 * extension headers, the ports), so that most packets need no second look.
 */
#define TC_PULL_LEN	256
/*
 * The most the parser reads: Ethernet, the VLAN tags, IPv6 and its longest
 * extension headers, the ports.
 */
#define TC_PULL_MAX	(sizeof(struct ethhdr) + \
			 MAX_VLAN_TAGS * sizeof(struct vlan_tag) + \
			 sizeof(struct ipv6hdr) + \
			 MAX_EXT_HDRS * MAX_EXT_HDR_LEN + 4)

/* Pulls @len bytes (no more than the skb has) and points @c at them. */
static __always_inline void tc_pull(struct __sk_buff *skb, struct cursor *c,
				    __u32 len)
{
	if (len > skb->len)
		len = skb->len;
	if (c->pos + len > c->end)
		/* A failed pull leaves what the parser can still read. */
		bpf_skb_pull_data(skb, len);
	c->pos = (void *)(long)skb->data;
	c->end = (void *)(long)skb->data_end;
	c->ip_left = 0;
}

/*
 * For links whose driver has no native XDP: the same verdicts on clsact
 * ingress. Unlike XDP, an skb's headers may lie partly outside its linear
 * area: they are pulled in (which unclones a shared skb) only when the
 * parser needs them, so that a long header chain is read, not passed.
 */
SEC("tc")
int cfilter_tc(struct __sk_buff *skb)
{
	struct cursor c = {
		.pos = (void *)(long)skb->data,
		.end = (void *)(long)skb->data_end,
	};
	enum parse_result res;
	enum cfilter_stat stat;
	struct packet pkt;

	tc_pull(skb, &c, TC_PULL_LEN);
	res = parse_packet(&c, &pkt);
	/* Past the linear data, or a frame cut short: pulling tells. */
	if (res == PARSE_FRAME_END) {
		c.pos = (void *)(long)skb->data;
		tc_pull(skb, &c, TC_PULL_MAX);
		res = parse_packet(&c, &pkt);
	}
	stat = classify(res, &pkt);
	count(skb->ifindex, stat);
	if (!is_drop(stat))
		return TC_ACT_OK;
	log_drop(&pkt, skb->ifindex, stat, CFILTER_LOG_TC);
	return TC_ACT_SHOT;
}

char LICENSE[] SEC("license") = "GPL";
