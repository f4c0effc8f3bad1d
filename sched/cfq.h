/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CFQ, as in Linux 4.19 block/cfq-iosched.c, as a policy of the core: per-process sync queues,
 * shared async queues, RT/BE/IDLE x ASYNC/SYNC_NOIDLE/SYNC service trees, weighted groups by
 * vdisktime (time or IOPS mode), slices, idling, FIFO expiry, preemption.
 *
 * This header is what the engine and the tests see: the ops table, the counters, the effective
 * parameters. The machinery lives in cfq_internal.h.
 */
#ifndef SCHED_CFQ_H
#define SCHED_CFQ_H

#include <stdbool.h>
#include <stdint.h>

#include "sched.h"

extern const struct sched_policy_ops sched_cfq_ops;

/* Index of each tunable in sched_config.tunable[] (the order of the sysfs table). */
enum cfq_tunable {
	CFQ_T_QUANTUM,
	CFQ_T_FIFO_EXPIRE_SYNC,
	CFQ_T_FIFO_EXPIRE_ASYNC,
	CFQ_T_BACK_SEEK_MAX,
	CFQ_T_BACK_SEEK_PENALTY,
	CFQ_T_SLICE_SYNC,
	CFQ_T_SLICE_SYNC_US,
	CFQ_T_SLICE_ASYNC,
	CFQ_T_SLICE_ASYNC_US,
	CFQ_T_SLICE_ASYNC_RQ,
	CFQ_T_SLICE_IDLE,
	CFQ_T_SLICE_IDLE_US,
	CFQ_T_GROUP_IDLE,
	CFQ_T_GROUP_IDLE_US,
	CFQ_T_LOW_LATENCY,
	CFQ_T_TARGET_LATENCY,
	CFQ_T_TARGET_LATENCY_US,
	CFQ_T_NR,
};

/* Why a slice ended (the call site of __cfq_slice_expired in the kernel). */
enum cfq_expire_reason {
	CFQ_EXPIRE_SLICE_USED,		/* slice time used up (select_queue or completion) */
	CFQ_EXPIRE_IDLE_TIMER,		/* idle timer fired without a new request */
	CFQ_EXPIRE_NO_REQUESTS,		/* queue empty and not worth idling for */
	CFQ_EXPIRE_WAIT_BUSY,		/* waited busy for the group, request came: move on */
	CFQ_EXPIRE_COOPERATOR,		/* a close cooperator gets the disk */
	CFQ_EXPIRE_PREEMPTED,		/* another queue preempted this one */
	CFQ_EXPIRE_DISPATCH_LIMIT,	/* async used 2*slice_async_rq*(8-prio), or idle class */
	CFQ_EXPIRE_IDLE_CLASS,		/* idle-class queue after one completion */
	CFQ_EXPIRE_EXIT,		/* the owning process exited */
	CFQ_EXPIRE_NR,
};

struct cfq_group_stats {
	uint64_t slices;		/* slices of queues of this group that ended */
	uint64_t time_ns;		/* slice time used (cfq_cfqq_slice_usage) */
	uint64_t charge;		/* charged: ns in time mode, requests in IOPS mode */
	uint64_t dispatched;		/* requests dispatched */
	uint64_t sectors;		/* sectors dispatched */
	uint64_t vdisktime;		/* last vdisktime */
	uint32_t weight;
};

struct cfq_stats {
	uint64_t idle_timer_armed;	/* cfq_arm_slice_timer armed the timer (all kinds) */
	uint64_t group_idle_armed;	/* ... of which with group_idle */
	uint64_t idle_hits;		/* a request came for the active queue while it idled */
	uint64_t idle_timer_fired;	/* cfq_idle_slice_timer ran */
	uint64_t idle_timer_expired;	/* ... and expired the queue */
	uint64_t wait_busy;		/* queue marked wait_busy */
	uint64_t slices_started;	/* a queue became active */
	uint64_t slices_expired[CFQ_EXPIRE_NR];
	uint64_t preemptions;
	uint64_t fifo_dispatches;	/* requests taken from an expired FIFO head */
	uint64_t time_mode_charges;	/* groups charged by time */
	uint64_t iops_mode_charges;	/* groups charged by dispatched requests */
	uint64_t async_depth_limited;	/* async dispatch refused by the depth ramp */
	uint64_t slice_end_limited;	/* refused at >= quantum/2 in flight: slice new or ending soon */
	int hw_tag;			/* -1 unknown, 0 no queueing, 1 queueing */
	uint32_t hw_tag_est_depth;
	struct cfq_group_stats group[SCHED_MAX_GROUPS];
};

/* The effective parameters after device-dependent defaults, in ns where they are times. */
struct cfq_params {
	uint32_t quantum;
	uint64_t fifo_expire[2];	/* [async, sync] */
	uint32_t back_max;		/* KiB */
	uint32_t back_penalty;
	uint64_t slice[2];		/* [async, sync] */
	uint32_t slice_async_rq;
	uint64_t slice_idle;
	uint64_t group_idle;
	bool latency;
	uint64_t target_latency;
};

/*
 * Trace: cfq_log-style lines ("P cfq3S  slice expired t=0") go to the queue's trace ring
 * (sched_device.trace), formatted only while it is on.
 */

/* policy_state is struct sched.policy of a scheduler built with SCHED_POLICY_CFQ. */
const struct cfq_stats *cfq_get_stats(const void *policy_state);
const struct cfq_params *cfq_get_params(const void *policy_state);
/* True while groups are charged by requests (slice_idle == 0 and hw_tag). */
bool cfq_iops_mode(const void *policy_state);
/* Share of the service charged to group g among all groups, 0..1 (time or requests). */
double cfq_group_share(const void *policy_state, uint32_t g);

/* The same, from the scheduler; NULL / no-op when s does not run CFQ. */
static inline void *cfq_of(const struct sched *s)
{
	return s && s->cfg.policy == SCHED_POLICY_CFQ ? s->policy : NULL;
}

#endif
