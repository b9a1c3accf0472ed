/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CFCTL_DEV_H
#define CFCTL_DEV_H

#include <stdbool.h>
#include <linux/cfilter.h>

int dev_open(bool write);
int dev_key_ioctl(int fd, unsigned long req, const struct cfilter_key *key);
int dev_simple(int fd, unsigned long req);
int dev_type_info(int fd, __u8 type, bool staged, struct cfilter_type_info *ti);
int dev_match(int fd, const struct cfilter_pkt *pkt, __u32 *verdict);
int dev_dump(int fd, struct cfilter_table *t, void **data);
int dev_restore(int fd, const struct cfilter_table *t);
int dev_info(int fd, struct cfilter_info *info);
long dev_list_all(int fd, struct cfilter_key **keys);
int dev_batch(int fd, __u32 op, __u32 flags, const struct cfilter_key *keys,
	      __s32 *results, __u32 n, __u32 *done);
void dev_report_full(int fd, bool staged, const struct cfilter_key *key);
void dev_report(int err, const char *what);

#endif /* CFCTL_DEV_H */
