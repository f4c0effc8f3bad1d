/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ENGINE_ROTATIONAL_H
#define ENGINE_ROTATIONAL_H

#include <stddef.h>

/*
 * The rotational flag of the block device holding path (or of path itself when it is a block
 * device), from /sys/dev/block/MAJ:MIN/queue/rotational as the kernel exports it. Returns 0 or
 * 1, or -1 when there is no such device (tmpfs, overlay...). src names where it was read.
 */
int se_detect_rotational(const char *path, char *src, size_t srclen);

#endif
