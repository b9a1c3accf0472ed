/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CFCTL_DEV_H
#define CFCTL_DEV_H

#include <stdbool.h>
#include <linux/cfilter.h>

int dev_open(bool write);
int dev_key_ioctl(int fd, unsigned long req, const struct cfilter_key *key);
int dev_clear(int fd);
int dev_info(int fd, struct cfilter_info *info);
long dev_list(int fd, struct cfilter_key *keys, unsigned int max,
	      unsigned long long *cursor);
int dev_batch(int fd, __u32 op, const struct cfilter_key *keys,
	      __s32 *results, __u32 n, __u32 *done);
void dev_report_full(int fd);
void dev_report(int err, const char *what);

#endif /* CFCTL_DEV_H */
