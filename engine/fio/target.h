/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel knows about the device holding a target: its queue's rotational flag, the
 * driver's tag depth and queue/nr_requests, from /sys/dev/block/MAJ:MIN (a partition's queue is
 * its disk's), as blk-mq sizes them. Fields are -1 when there is no such device (tmpfs, overlay).
 */
#ifndef ENGINE_TARGET_H
#define ENGINE_TARGET_H

#include <stddef.h>

struct se_target {
	int rotational;	 /* queue/rotational */
	int nr_tags;	 /* mq/0/nr_tags: the driver's tags (hw queue 0) */
	int nr_requests; /* queue/nr_requests: scheduler tags with an elevator, else the driver's */
	int has_elevator; /* queue/scheduler names something other than [none] */
	char dev[64];	 /* MAJ:MIN of the queue read */
};

/* Fills t for the device holding path; returns 0, or -1 when there is none. */
int se_target_probe(const char *path, struct se_target *t);

#endif
