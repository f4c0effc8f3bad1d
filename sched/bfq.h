/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BFQ, as in Linux 6.12 block/bfq-iosched.c, bfq-wf2q.c and bfq-cgroup.c, as a policy of the
 * core (blk-mq mode): per-process sync queues and per-group async queues scheduled by B-WF2Q+
 * on budgets of sectors, device idling decided by bfq_better_to_idle(), weight raising of
 * interactive and soft real-time queues, burst detection, I/O injection and wakers, queue
 * merging (cooperators and stable merges) and splitting, one level of weighted groups
 * (io.bfq.weight), and blk-mq depth limits (limit_depth).
 *
 * Behaviour profile: the tunable bfq_version selects the defaults of a set of switches, one
 * per upstream change the 2017 seed depends on (bfq_version=4.12: every switch off, the
 * behaviour of the 4.12-era bfq-mq; default: 6.12, every switch on). Each switch can also be
 * set on its own. Model knobs (bfq_model_*) switch a mechanism off for ablation studies; they
 * are not kernel behaviour.
 *
 * This header is what the engine and the tests see; the machinery is in bfq_internal.h.
 */
#ifndef SCHED_BFQ_H
#define SCHED_BFQ_H

#include <stdbool.h>
#include <stdint.h>

#include "sched.h"

extern const struct sched_policy_ops sched_bfq_ops;

/* Index of each tunable in sched_config.tunable[]: the sysfs files first, in bfq_attrs order. */
enum bfq_tunable {
	BFQ_T_FIFO_EXPIRE_SYNC,
	BFQ_T_FIFO_EXPIRE_ASYNC,
	BFQ_T_BACK_SEEK_MAX,
	BFQ_T_BACK_SEEK_PENALTY,
	BFQ_T_SLICE_IDLE,
	BFQ_T_SLICE_IDLE_US,
	BFQ_T_MAX_BUDGET,
	BFQ_T_TIMEOUT_SYNC,
	BFQ_T_STRICT_GUARANTEES,
	BFQ_T_LOW_LATENCY,
	/* The behaviour profile: a kernel version (412, 612) and one switch per change. */
	BFQ_T_VERSION,
	BFQ_T_SW_NO_PLUG_ALL_RAISED,
	BFQ_T_SW_IDLE_DEEP_DRIVE,
	BFQ_T_SW_MAX_SERVICE_FROM_WR,
	BFQ_T_SW_INJECTION,
	BFQ_T_SW_WAKERS,
	BFQ_T_SW_STABLE_MERGE,
	BFQ_T_SW_WR_DURATION,
	BFQ_T_SW_WR_IDLE_20MS,
	BFQ_T_SW_PREEMPT_EQUAL,
	BFQ_T_SW_PREEMPT_UNPLUG,
	BFQ_T_SW_LIMIT_DEPTH,
	BFQ_T_SW_IDLE_LARGE_BURST,
	BFQ_T_SW_RAISE_DEFAULT_WEIGHT,
	BFQ_T_SW_IDLE_ONLY_BUSY,
	BFQ_T_SW_TTIME_IDLE_ONLY,
	BFQ_T_SW_SHORT_TTIME,
	BFQ_T_SW_TTIME_HALF_SLICE,
	BFQ_T_SW_BETTER_TO_IDLE,
	BFQ_T_SW_IDLE_PROC_REFS,
	BFQ_T_SW_FLASH_NOQUEUE_IDLING,
	BFQ_T_SW_KEEP_PLUGGED,
	BFQ_T_SW_COMPLETION_DISPATCH,
	BFQ_T_SW_IO_INTENSITY,
	BFQ_T_SW_NIS_LOOKUP,
	BFQ_T_SW_NIS_CLASS_LOOKUP,
	BFQ_T_SW_VTIME_EXPIRATION,
	BFQ_T_SW_DEACT_IN_SERVICE,
	BFQ_T_SW_SERVICE_AT_EXPIRATION,
	BFQ_T_SW_CHARGE_DEACTIVATED,
	BFQ_T_SW_SEEKY_THR,
	BFQ_T_SW_HW_TAG_THR,
	BFQ_T_SW_HW_TAG_SHORT_TTIME,
	BFQ_T_SW_WRITE_OVERCHARGE,
	BFQ_T_SW_ASYM_WRITE_CHARGE,
	BFQ_T_SW_NO_MERGE_FLASH_QUEUEING,
	BFQ_T_SW_MERGE_IN_SERV_POS,
	BFQ_T_SW_MERGE_TIME_LIMIT,
	BFQ_T_SW_POS_TREE_ON_REMOVAL,
	BFQ_T_SW_CHARGE_TIME_BOUNDED,
	BFQ_T_SW_IDLE_SMALLEST_WEIGHT,
	BFQ_T_SW_ASYM_CLASSES,
	BFQ_T_SW_ASYM_GROUPS,
	BFQ_T_SW_BURST_NO_ACTIVE,
	BFQ_T_SW_MERGE_CHAIN,
	BFQ_T_SW_EARLY_MERGE_WR,
	BFQ_T_SW_SPLIT_WR_BUSY,
	BFQ_T_SW_SPLIT_SWITCH_BACK,
	BFQ_T_SW_SOFTRT_PAST_IO,
	BFQ_T_SW_SOFTRT_FILTER,
	BFQ_T_SW_SOFTRT_SEEKY,
	BFQ_T_SW_SOFTRT_END_RESET,
	BFQ_T_SW_SRT_SWITCH_BACK,
	BFQ_T_SW_SPLIT_WEIGHT,
	BFQ_T_SW_RATE_SEQ_SIZE,
	BFQ_T_SW_REQUESTS_MERGED,
	/* Model knobs for ablation (1 = as the kernel). */
	BFQ_T_MODEL_WR_FIXED_BUDGET,
	BFQ_T_MODEL_BURST,
	BFQ_T_NR,
};

/* The profile switches (bit i = switch BFQ_T_SW_* number i). */
enum bfq_switch {
	BFQ_SW_NO_PLUG_ALL_RAISED = 0,
	BFQ_SW_IDLE_DEEP_DRIVE,
	BFQ_SW_MAX_SERVICE_FROM_WR,
	BFQ_SW_INJECTION,
	BFQ_SW_WAKERS,
	BFQ_SW_STABLE_MERGE,
	BFQ_SW_WR_DURATION,
	BFQ_SW_WR_IDLE_20MS,
	BFQ_SW_PREEMPT_EQUAL,
	BFQ_SW_PREEMPT_UNPLUG,
	BFQ_SW_LIMIT_DEPTH,
	BFQ_SW_IDLE_LARGE_BURST,
	BFQ_SW_RAISE_DEFAULT_WEIGHT,
	BFQ_SW_IDLE_ONLY_BUSY,
	BFQ_SW_TTIME_IDLE_ONLY,
	BFQ_SW_SHORT_TTIME,
	BFQ_SW_TTIME_HALF_SLICE,
	BFQ_SW_BETTER_TO_IDLE,
	BFQ_SW_IDLE_PROC_REFS,
	BFQ_SW_FLASH_NOQUEUE_IDLING,
	BFQ_SW_KEEP_PLUGGED,
	BFQ_SW_COMPLETION_DISPATCH,
	BFQ_SW_IO_INTENSITY,
	BFQ_SW_NIS_LOOKUP,
	BFQ_SW_NIS_CLASS_LOOKUP,
	BFQ_SW_VTIME_EXPIRATION,
	BFQ_SW_DEACT_IN_SERVICE,
	BFQ_SW_SERVICE_AT_EXPIRATION,
	BFQ_SW_CHARGE_DEACTIVATED,
	BFQ_SW_SEEKY_THR,
	BFQ_SW_HW_TAG_THR,
	BFQ_SW_HW_TAG_SHORT_TTIME,
	BFQ_SW_WRITE_OVERCHARGE,
	BFQ_SW_ASYM_WRITE_CHARGE,
	BFQ_SW_NO_MERGE_FLASH_QUEUEING,
	BFQ_SW_MERGE_IN_SERV_POS,
	BFQ_SW_MERGE_TIME_LIMIT,
	BFQ_SW_POS_TREE_ON_REMOVAL,
	BFQ_SW_CHARGE_TIME_BOUNDED,
	BFQ_SW_IDLE_SMALLEST_WEIGHT,
	BFQ_SW_ASYM_CLASSES,
	BFQ_SW_ASYM_GROUPS,
	BFQ_SW_BURST_NO_ACTIVE,
	BFQ_SW_MERGE_CHAIN,
	BFQ_SW_EARLY_MERGE_WR,
	BFQ_SW_SPLIT_WR_BUSY,
	BFQ_SW_SPLIT_SWITCH_BACK,
	BFQ_SW_SOFTRT_PAST_IO,
	BFQ_SW_SOFTRT_FILTER,
	BFQ_SW_SOFTRT_SEEKY,
	BFQ_SW_SOFTRT_END_RESET,
	BFQ_SW_SRT_SWITCH_BACK,
	BFQ_SW_SPLIT_WEIGHT,
	BFQ_SW_RATE_SEQ_SIZE,
	BFQ_SW_REQUESTS_MERGED,
	BFQ_SW_NR,
};

#define BFQ_VERSION_412 412
#define BFQ_VERSION_612 612

/* Why a queue was expired: the kernel's enum bfqq_expiration. */
enum bfq_expire_reason {
	BFQ_EXP_TOO_IDLE = 0,	 /* BFQQE_TOO_IDLE: the idle timer fired */
	BFQ_EXP_BUDGET_TIMEOUT,	 /* BFQQE_BUDGET_TIMEOUT */
	BFQ_EXP_BUDGET_EXHAUSTED, /* BFQQE_BUDGET_EXHAUSTED */
	BFQ_EXP_NO_MORE_REQUESTS, /* BFQQE_NO_MORE_REQUESTS */
	BFQ_EXP_PREEMPTED,	 /* BFQQE_PREEMPTED */
	BFQ_EXP_NR,
};

enum bfq_wr_kind {
	BFQ_WR_INTERACTIVE = 0,
	BFQ_WR_SOFT_RT,
	BFQ_WR_NR,
};

/* Why weight raising ended (bfq_bfqq_end_wr and its callers). */
enum bfq_wr_end {
	BFQ_WR_END_TIME = 0,	/* wr_cur_max_time elapsed */
	BFQ_WR_END_BURST,	/* the queue is in a large burst */
	BFQ_WR_END_SERVICE,	/* max_service_from_wr sectors served */
	BFQ_WR_END_OTHER,	/* low_latency off, merge, seeky soft-rt, ... */
	BFQ_WR_END_NR,
};

struct bfq_group_stats {
	uint64_t dispatched;	/* requests */
	uint64_t sectors;	/* sectors dispatched */
	uint32_t weight;
};

struct bfq_stats {
	uint64_t expired[BFQ_EXP_NR];	/* expirations by reason */
	uint64_t budgets_assigned;	/* queues set in service */
	uint64_t budget_sum;		/* sum of the budgets they were given (sectors) */
	int64_t budget_min, budget_max; /* smallest and largest such budget */
	uint64_t charged_time;		/* expirations charged by time (slow queues) */
	uint32_t peak_rate;		/* bfqd->peak_rate, sectors/us << 16 */
	uint64_t peak_rate_updates;
	int32_t max_budget;		/* bfqd->bfq_max_budget, sectors */
	uint64_t idle_timer_armed;	/* bfq_arm_slice_timer */
	uint64_t idle_hits;		/* a request came for the queue idling for it */
	uint64_t idle_timer_fired;
	uint64_t wr_started[BFQ_WR_NR];
	uint64_t wr_ended[BFQ_WR_END_NR];
	uint64_t bursts_large;		/* bursts that reached the large-burst threshold */
	uint64_t burst_marked;		/* queues marked in_large_burst */
	uint64_t injected;		/* requests dispatched from a queue not in service */
	uint64_t injected_waker;	/* ... of which from the in-service queue's waker */
	uint64_t wakers_detected;
	uint64_t merges;		/* queues merged (cooperator or stable) */
	uint64_t stable_merges;
	uint64_t splits;
	uint64_t preemptions;		/* in-service queue expired for a new busy queue */
	uint64_t fifo_dispatches;
	uint64_t depth_limited;		/* limit_depth() returned a shallow depth */
	uint64_t oom_queue;		/* requests put on oom_bfqq: the queue pool was empty */
	uint64_t insert_merge_init;	/* insert-merged requests given a queue, then freed */
	uint64_t pos_key_moved;		/* position-tree keys that followed next_rq in place */
	int32_t hw_tag;
	struct bfq_group_stats group[SCHED_MAX_GROUPS];
};

/* The effective parameters, in ns where they are times. */
struct bfq_params {
	uint64_t fifo_expire[2];	/* [async, sync] */
	uint32_t back_max;		/* KiB */
	uint32_t back_penalty;
	uint64_t slice_idle;
	int32_t user_max_budget;	/* sectors, 0 auto */
	uint64_t timeout_ms;
	bool strict_guarantees;
	bool low_latency;
	uint32_t version;
	bool sw[BFQ_SW_NR];
	bool wr_fixed_budget;
	bool burst_detection;
};

/* policy_state is struct sched.policy of a scheduler built with SCHED_POLICY_BFQ. */
const struct bfq_stats *bfq_get_stats(const void *policy_state);
const struct bfq_params *bfq_get_params(const void *policy_state);
/* Share of the sectors dispatched for group g among all groups, 0..1. */
double bfq_group_share(const void *policy_state, uint32_t g);
/* Name of a switch (its tunable) and the upstream change it stands for. */
const char *bfq_switch_name(enum bfq_switch sw);
const char *bfq_switch_commit(enum bfq_switch sw);

/*
 * What one owner's sync queue looks like now (for tests): wr_coeff, budgets, flags. All zero
 * when the owner has no sync queue.
 */
struct bfq_queue_info {
	bool exists;
	uint32_t wr_coeff;
	int64_t wr_cur_max_time_ms;
	int32_t budget, max_budget, service;
	int32_t weight, orig_weight;
	bool busy, in_service, in_large_burst, coop, idle_window;
	uint64_t service_from_wr;
	uint32_t inject_limit;
	int32_t waker_owner; /* -1 none */
	bool shared;	     /* it uses a queue that is not its own (merged) */
};
void bfq_get_queue_info(const void *policy_state, uint32_t owner, struct bfq_queue_info *info);

static inline void *bfq_of(const struct sched *s)
{
	return s && s->cfg.policy == SCHED_POLICY_BFQ ? s->policy : NULL;
}

#endif
