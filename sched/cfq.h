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
	CFQ_T_GROUP_ISOLATION,	/* 2.6.33 to 2.6.3x: sync-noidle queues of groups in the root */
	CFQ_T_VERSION,		/* cfq_version: the behaviour profile (CFQ_VERSION_*) */
	CFQ_T_HZ,		/* cfq_hz: the kernel's HZ (jiffy-sized constants, jiffy clock) */
	CFQ_T_SW_NS_CLOCK,	/* cfq_sw_*: one per upstream change, as the version sets them */
	CFQ_T_SW_ASYNC_IN_GROUP,
	CFQ_T_SW_FIFO_MUST_DISPATCH,
	CFQ_T_SW_PARENT_PREEMPT,
	CFQ_T_SW_NOIDLE_PREEMPT,
	CFQ_T_SW_GROUP_IDLE_TT,
	CFQ_T_SW_GROUP_IDLE_NONROT,
	CFQ_T_SW_SSD_IOPS,
	CFQ_T_SW_IDLE_KEY_NOW,
	CFQ_T_SW_PRIO_BOOST,
	CFQ_T_SW_NOIDLE_IN_GROUP,
	CFQ_T_SW_VFRACTION_CHARGE,
	CFQ_T_SW_VFRACTION_SLICE,
	CFQ_T_SW_WAIT_BUSY_QUEUED,
	CFQ_T_SW_GROUP_TTIME,
	CFQ_T_SW_TREE_TTIME,
	CFQ_T_SW_DEEP_SEEKY_FAST,
	CFQ_T_SW_NOIDLE_WINDOW,
	CFQ_T_SW_SOLE_SYNC,
	CFQ_T_SW_CLASS_NEW_WORKLOAD,
	CFQ_T_SW_RESID_NEW,
	CFQ_T_SW_PREEMPT_NEW_TYPE,
	CFQ_T_SW_PREEMPT_NOT_IDLING,
	CFQ_T_SW_SAME_SECTOR,
	CFQ_T_SW_TTIME_SYNC,
	CFQ_T_SW_REWORK_2633,
	CFQ_T_SW_PER_GROUP_RL,	/* kept last: the earlier indices stay as they were */
	CFQ_T_NR,
};

/* cfq_version codes (sched_tunable_desc: M*100+m, 2.6.x as M*10000+m*100+p). */
#define CFQ_VERSION_2632 20632
#define CFQ_VERSION_2636 20636
#define CFQ_VERSION_316	 316
#define CFQ_VERSION_41	 401
#define CFQ_VERSION_419	 419

/* The profiles in release order: a switch is on from the era of its change on. */
enum cfq_era {
	CFQ_ERA_2632,
	CFQ_ERA_2636,
	CFQ_ERA_316,
	CFQ_ERA_41,
	CFQ_ERA_419,
	CFQ_ERA_NR,
};
/* The era of a cfq_version code (CFQ_ERA_419 for an unknown one: the default). */
enum cfq_era cfq_era_of(int64_t version);

/*
 * The profile switches: each an upstream change to cfq-iosched.c that alters a decision (cfq.c:
 * cfq_switch_info names the commit and the first profile with it); cfq_version sets those not
 * given (on from that profile, off before). Between 4.1 and 4.19:
 */
enum cfq_switch {
	CFQ_SW_NS_CLOCK,	   /* time in ns, idle timer an hrtimer (else jiffies at cfq_hz) */
	CFQ_SW_ASYNC_IN_GROUP,	   /* async queues per group (else shared, in the root group) */
	CFQ_SW_FIFO_MUST_DISPATCH, /* an expired FIFO head dispatches past the depth limits */
	CFQ_SW_PARENT_PREEMPT,	   /* a queue of an ancestor group may preempt */
	CFQ_SW_NOIDLE_PREEMPT,	   /* sync-noidle preempts sync-noidle at any tree count */
	CFQ_SW_GROUP_IDLE_TT,	   /* no group idle when the tree thinks long */
	CFQ_SW_GROUP_IDLE_NONROT,  /* group idle on a queueing non-rotational device */
	CFQ_SW_SSD_IOPS,	   /* slice_idle 0 (IOPS mode) on non-rotational by default */
	CFQ_SW_IDLE_KEY_NOW,	   /* idle-class key after now, not after the last queue */
	CFQ_SW_PRIO_BOOST,	   /* REQ_PRIO boosts an idle/low-prio queue to BE/norm */
	/* Between 2.6.36 and 3.16: */
	CFQ_SW_NOIDLE_IN_GROUP,	   /* sync-noidle queues stay in their group (no group_isolation) */
	CFQ_SW_VFRACTION_CHARGE,   /* charge scaled by the group's vfraction, not 500 / weight */
	CFQ_SW_VFRACTION_SLICE,	   /* group slice by vfraction, not weight / total busy weight */
	CFQ_SW_WAIT_BUSY_QUEUED,   /* no busy wait for a queue with requests queued */
	CFQ_SW_GROUP_TTIME,	   /* no group idle / busy wait for a group that thinks long */
	CFQ_SW_TREE_TTIME,	   /* no idling for a tree's last queue when the tree thinks long */
	CFQ_SW_DEEP_SEEKY_FAST,	   /* a deep seeky queue outpaced by the device stops idling */
	CFQ_SW_NOIDLE_WINDOW,	   /* REQ_NOIDLE ends the idle window (no noidle_tree_requires_idle) */
	CFQ_SW_SOLE_SYNC,	   /* the only busy sync queue has no dispatch limit */
	CFQ_SW_CLASS_NEW_WORKLOAD, /* a change of class picks the workload type anew */
	CFQ_SW_RESID_NEW,	   /* a preempted queue before its first completion keeps its slice */
	CFQ_SW_PREEMPT_NEW_TYPE,   /* preemption by another workload type drops the saved slice */
	CFQ_SW_PREEMPT_NOT_IDLING, /* an empty active queue that should not idle is preempted */
	CFQ_SW_SAME_SECTOR,	   /* requests of a queue may start at one sector (no alias) */
	CFQ_SW_TTIME_SYNC,	   /* a process's think time counts its sync requests only */
	/* Between 2.6.32 and 2.6.36 (an era switch: a set of 2.6.33 commits, see cfq.c): */
	CFQ_SW_REWORK_2633,	   /* workload service trees, groups, seek_history, merged
				    * cooperators (else 2.6.32's single service tree) */
	/* Between 2.6.36 and 3.16, added after the others (its tunable index is the last): */
	CFQ_SW_PER_GROUP_RL,	   /* the legacy block layer: a request list per group (blk/) */
	CFQ_SW_NR,
};
const char *cfq_switch_name(enum cfq_switch sw);
const char *cfq_switch_commit(enum cfq_switch sw);
/* The first profile that has the change on. */
enum cfq_era cfq_switch_since(enum cfq_switch sw);

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

/*
 * The effective parameters after device-dependent defaults. Times are in the profile's clock:
 * ns (cfq_sw_ns_clock, 4.10 on) or jiffies at hz (before: msecs_to_jiffies() of the ms given,
 * the kernel's HZ-based defaults otherwise).
 */
struct cfq_params {
	uint32_t version;		/* CFQ_VERSION_* */
	enum cfq_era era;
	uint32_t hz;
	bool sw[CFQ_SW_NR];
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
	bool group_isolation;		/* the 2.6.3x tunable (cfq_sw_noidle_in_group off) */
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
