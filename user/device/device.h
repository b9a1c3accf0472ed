/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CFCTL_DEV_H
#define CFCTL_DEV_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/cfilter.h>

/* What EOPNOTSUPP and EUSERS from a source or timeout mean, and the fix. */
#define MSG_COMPACT	"compact mode keeps fingerprints only: sources and timeouts need mode=exact"
#define MSG_TOO_MANY_SOURCES \
	"too many sources (32): flush one (cfctl flush -s NAME)"

/* One BATCH call, as dev_batch() takes it. */
struct dev_batch {
	__u32				op;		/* enum cfilter_batch_op */
	__u32				flags;		/* CFILTER_F_* */
	const char			*source;	/* NULL: "default" */
	const struct cfilter_key	*keys;
	const __u32			*timeouts;	/* ADD: per key; NULL: none */
	const __u32			*ages;		/* ADD: per key; NULL: now */
	__s32				*results;	/* room for @n */
	__u32				n;		/* 0: may the caller? */
};

/* The live set as cfctl info and the metrics show it (dev_read_state()). */
struct dev_state {
	struct cfilter_info		info;
	struct cfilter_sources		sources;
	struct cfilter_type_info	types[__CFILTER_KEY_MAX];
	unsigned int			ntypes;	/* the types the module has */
};

int dev_open(bool write);
int dev_key_req(int fd, unsigned long req, const struct cfilter_key *key,
		__u32 flags, __u32 timeout, const char *source);
int dev_simple(int fd, unsigned long req);
int dev_source_req(int fd, unsigned long req, const char *source);
int dev_sources(int fd, struct cfilter_sources *s);
int dev_sources_quiet(struct cfilter_sources *s);
int dev_type_info(int fd, __u8 type, bool staged, struct cfilter_type_info *ti);
int dev_match(int fd, const struct cfilter_pkt *pkt,
	      struct cfilter_match_req *mr);
int dev_dump(int fd, struct cfilter_table *t, void **data);
int dev_restore(int fd, const struct cfilter_table *t);
int dev_info(int fd, struct cfilter_info *info);
int dev_read_state(int fd, struct dev_state *s);
long dev_list_all(int fd, const char *source, struct cfilter_entry **entries,
		  int64_t *listed);
int dev_batch(int fd, const struct dev_batch *b, __u32 *done);
bool dev_full(int err);
void dev_report_full(int fd, int err, bool staged,
		     const struct cfilter_key *key);
const char *dev_key_error(int err);
void dev_report(int err, const char *what);

#endif /* CFCTL_DEV_H */
