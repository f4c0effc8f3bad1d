/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mq-deadline (block/mq-deadline.c, Linux 4.19 .. 5.10): one sector-sorted tree and one FIFO per
 * data direction, batches of fifo_batch requests in sector order, reads preferred over writes
 * unless writes were starved writes_starved times, an expired FIFO head served first.
 */
#ifndef SCHED_DEADLINE_H
#define SCHED_DEADLINE_H

#include "sched.h"

/* Indices into sched_deadline_ops.tunables and sched_config.tunable[] (the sysfs order). */
enum deadline_tunable {
	DEADLINE_READ_EXPIRE = 0, /* ms */
	DEADLINE_WRITE_EXPIRE,	  /* ms */
	DEADLINE_WRITES_STARVED,
	DEADLINE_FRONT_MERGES,
	DEADLINE_FIFO_BATCH,
	DEADLINE_NR_TUNABLES,
};

extern const struct sched_policy_ops sched_deadline_ops;

#endif
