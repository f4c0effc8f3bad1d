/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mq-deadline (block/mq-deadline.c): one sector-sorted tree and one FIFO per data direction,
 * batches of fifo_batch requests in sector order, reads preferred over writes unless writes
 * were starved writes_starved times, an expired FIFO head served first; since 5.14 all of that
 * once per I/O priority class (RT, BE, IDLE), dispatched in class order.
 *
 * Behaviour profile: deadline_version=4.19 is 4.19 .. 5.13 (and the legacy deadline-iosched.c
 * of 2.6.x, whose dispatch is the same); 6.12 (the default) is 6.5 and later. Five upstream
 * changes separate them, one switch each (set on their own, they win over the version):
 *   - deadline_sw_keep_pos (d672d325b149, 5.14): a batch in one direction no longer forgets
 *     where the other direction stopped, and a batch continues in the direction it started;
 *   - deadline_sw_async_depth (07757588e507 "block/mq-deadline: Reserve 25% of scheduler tags
 *     for synchronous requests", 5.14): writes and async requests allocate from async_depth
 *     scheduler tags only (the policy's limit_depth); the default is 6.12's, nr_requests
 *     (39823b47bbd4, 6.11; 5.14 .. 6.10 reserved a quarter: 3/4 of nr_requests);
 *   - deadline_sw_prio (c807ab520fc3 "block/mq-deadline: Add I/O priority support", 5.14):
 *     a tree, FIFOs and sweep positions per class (the request's prio_class; NONE is BE), the
 *     batch, starved count and direction shared; the first class that gives a request wins;
 *   - deadline_sw_prio_aging (322cff70d46c "block/mq-deadline: Prioritize high-priority
 *     requests", 5.16; a first version, fb926032b320, was reverted before 5.14's release): a lower
 *     class waits while a higher one has requests inserted and not completed, and BE or IDLE
 *     requests inserted prio_aging_expire ago go first once two classes have such requests.
 *     Without deadline_sw_prio there is one class and it changes nothing;
 *   - deadline_sw_latest_pos (83c46ed67557, 6.5): the next request in sector order is looked up
 *     at dispatch time, the first at or after the last dispatched request's start sector, so a
 *     request queued since counts (before: the successor remembered at the last dispatch).
 * async_depth and prio_aging_expire, sysfs files since 5.14 and 5.16, are taken in every
 * profile (the oracle gives its streams' tunables to both sides, and 4.19's file has neither):
 * with their switch off they are stored and shown, and change nothing.
 * Ids: c807ab520fc3, 322cff70d46c and 39823b47bbd4 as later mainline commits cite them (Fixes:
 * tags, a stable backport's "upstream commit"); 07757588e507 only from the linux-block push log
 * that lists it beside d672d325b149 and c807ab520fc3. None was checked in a kernel git tree.
 */
#ifndef SCHED_DEADLINE_H
#define SCHED_DEADLINE_H

#include "sched.h"

/* Indices into sched_deadline_ops.tunables and sched_config.tunable[]: the sysfs files in 6.12's
 * order, then the profile. */
enum deadline_tunable {
	DEADLINE_READ_EXPIRE = 0, /* ms */
	DEADLINE_WRITE_EXPIRE,	  /* ms */
	DEADLINE_WRITES_STARVED,
	DEADLINE_FRONT_MERGES,
	DEADLINE_ASYNC_DEPTH, /* scheduler tags; not given: nr_requests */
	DEADLINE_FIFO_BATCH,
	DEADLINE_PRIO_AGING_EXPIRE, /* ms */
	/* The behaviour profile: a kernel version (419, 612) and one switch per change. */
	DEADLINE_VERSION,
	DEADLINE_SW_KEEP_POS,
	DEADLINE_SW_LATEST_POS,
	DEADLINE_SW_PRIO,
	DEADLINE_SW_PRIO_AGING,
	DEADLINE_SW_ASYNC_DEPTH,
	DEADLINE_NR_TUNABLES,
};

#define DEADLINE_VERSION_419 419
#define DEADLINE_VERSION_612 612

extern const struct sched_policy_ops sched_deadline_ops;

#endif
