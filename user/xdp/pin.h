/* SPDX-License-Identifier: GPL-2.0 */
/* Pinned maps in bpffs: opening, pinning, and the folders they live in. */
#ifndef CFCTL_PIN_H
#define CFCTL_PIN_H

int pin_open(const char *path);
int pin_map(int fd, const char *path, const char *what);
int pin_dir(const char *dir);

#endif /* CFCTL_PIN_H */
