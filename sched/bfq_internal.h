/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BFQ internals shared by bfq.c (ops, insert, dispatch, completion, timer, tunables, stats),
 * bfq_wf2q.c (B-WF2Q+: entities, service trees, virtual time), bfq_queue.c (queues, requests,
 * bursts, merging and splitting) and bfq_sched.c (budgets, peak rate, idling, injection,
 * weight raising, queue selection and expiration).
 *
 * Names follow block/bfq-*.c of Linux 6.12. Times are ns; the kernel's jiffy-based fields are
 * kept in jiffies of 1/BFQ_HZ s, derived from the clock passed in (bfqd->jiffies), so that
 * budget timeouts, raising periods and burst intervals round as they do in the kernel.
 *
 * Everything lives in the policy's block (no allocation): queues come from a pool with a free
 * list (a process's sync queue, the shared queues left behind by merges), and when the pool is
 * empty the request goes to oom_bfqq, as the kernel does when its kmem_cache is exhausted.
 */
#ifndef SCHED_BFQ_INTERNAL_H
#define SCHED_BFQ_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "bfq.h"
#include "sched.h"

#define BFQ_HZ 250
#define BFQ_JIFFY_NS (1000000000ull / BFQ_HZ)
/*
 * jiffies at time 0: the kernel's INITIAL_JIFFIES, (unsigned long)(unsigned int)(-300 * HZ) on
 * 64 bits. The kernel's zeroed jiffy fields (a new group's last idle-class service, the last
 * insertion in a burst...) are then, as there, long past, not "now" at the start of a run.
 */
#define BFQ_INITIAL_JIFFIES ((int64_t)(uint32_t)(-300 * BFQ_HZ))
#define BFQ_NSEC_PER_MSEC 1000000ull
#define BFQ_NSEC_PER_USEC 1000ull
#define BFQ_USEC_PER_MSEC 1000ull

#define BFQ_IOPRIO_CLASSES 3
#define BFQ_CL_IDLE_TIMEOUT (BFQ_HZ / 5)
/* The kernel's bfq_timeout, HZ / 8 (31 jiffies: 124 ms at HZ 250): the budget timeout unless
 * timeout_sync is written (msecs_to_jiffies()), and always the scale of charged time. */
#define BFQ_TIMEOUT (BFQ_HZ / 8)
/* The kernel's bfq_slice_idle, the default idle slice (8 ms): what a too short slot of a slow
 * queue on a rotational disk is charged ("at least one seek"), whatever slice_idle is set to. */
#define BFQ_SLICE_IDLE_DEFAULT_NS (1000000000ull / 125)
#define BFQ_MIN_WEIGHT 1
#define BFQ_MAX_WEIGHT 1000
#define BFQ_WEIGHT_CONVERSION_COEFF 10
#define BFQ_DEFAULT_QUEUE_IOPRIO 4
#define BFQ_DEFAULT_GRP_WEIGHT 100	/* CGROUP_WEIGHT_DFL */
#define BFQ_SOFTRT_WEIGHT_FACTOR 100
#define BFQ_IOPRIO_NR_LEVELS 8

#define WFQ_SERVICE_SHIFT 22
#define BFQ_RATE_SHIFT 16
#define BFQ_MIN_TT (2 * BFQ_NSEC_PER_MSEC)
#define BFQ_HW_QUEUE_THRESHOLD 3
#define BFQ_HW_QUEUE_SAMPLES 32
#define BFQQ_SEEK_THR (8 * 100)
#define BFQQ_SECT_THR_NONROT (2 * 32)
#define BFQQ_CLOSE_THR (8 * 1024)
#define BFQ_RATE_MIN_SAMPLES 32
#define BFQ_RATE_MIN_INTERVAL (300 * BFQ_NSEC_PER_MSEC)
#define BFQ_RATE_REF_INTERVAL 1000000000ull

/* 4.12's bfq_requests_within_timer: activations in time that make a queue I/O-bound. */
#define BFQ_REQUESTS_WITHIN_TIMER	 120
#define BFQ_STATS_MIN_BUDGETS 194
#define BFQ_DEFAULT_MAX_BUDGET (16 * 1024)
#define BFQ_ASYNC_CHARGE_FACTOR 3
#define BFQ_ASYNC_CHARGE_FACTOR_412	 10
#define BFQ_MAX_SERVICE_FROM_WR 120000
#define BFQ_ACTIVATION_STABLE_MERGING_MS 600
#define BFQ_LATE_STABLE_MERGING_MS 600

/* Queues of one group: async RT and BE by level, one async idle. */
#define BFQ_ASYNC_PER_GROUP (2 * BFQ_IOPRIO_NR_LEVELS + 1)

#define bfq_sample_valid(samples) ((samples) > 80)

static inline int64_t ms_to_jiffies(uint64_t ms)
{
	return (int64_t)((ms * BFQ_HZ + 999) / 1000); /* msecs_to_jiffies rounds up */
}

static inline uint64_t jiffies_to_ms(int64_t j)
{
	return (uint64_t)j * 1000 / BFQ_HZ;
}

static inline int64_t ns_to_jiffies(uint64_t ns)
{
	return (int64_t)(ns / BFQ_JIFFY_NS);
}

struct bfq_data;
struct bfq_queue;
struct bfq_group;

/* Per class: the B-WF2Q+ scheduler of one sched_data. */
struct bfq_service_tree {
	struct sched_rb_root active;	/* backlogged entities, by finish */
	struct sched_rb_root idle;	/* idle entities with finish > vtime, by finish */
	struct bfq_entity *first_idle, *last_idle;
	uint64_t vtime;
	uint64_t wsum;			/* weights of active and idle entities */
};

struct bfq_sched_data {
	struct bfq_entity *in_service_entity;
	struct bfq_entity *next_in_service;
	struct bfq_service_tree service_tree[BFQ_IOPRIO_CLASSES];
	int64_t bfq_class_idle_last_service; /* jiffies */
};

struct bfq_weight_counter {
	uint32_t weight;
	uint32_t num_active;
	struct sched_rb_node weights_node;
};

struct bfq_entity {
	/* What the tree walks read, first and together (one cache line in a bfq_queue). */
	struct sched_rb_node rb_node;
	uint64_t start, finish, min_start;
	struct sched_rb_root *tree;	/* the tree it is on, NULL if none */
	bool on_st_or_in_serv;
	bool in_groups_with_pending_reqs;
	int32_t service, budget;
	int32_t allocated;		/* requests allocated in its subtree */
	int32_t weight, new_weight, orig_weight;
	int32_t prio_changed;
	struct bfq_entity *parent;
	struct bfq_sched_data *my_sched_data; /* groups only */
	struct bfq_sched_data *sched_data;
	struct bfq_queue *last_bfqq_created;
};

struct bfq_ttime {
	uint64_t last_end_request;
	uint64_t ttime_total;
	uint64_t ttime_samples;
	uint64_t ttime_mean;
};

enum bfqq_state_flags {
	BFQQF_just_created = 0,
	BFQQF_busy,
	BFQQF_wait_request,
	BFQQF_non_blocking_wait_rq,
	BFQQF_fifo_expire,
	BFQQF_has_short_ttime,
	BFQQF_sync,
	BFQQF_IO_bound,
	BFQQF_in_large_burst,
	BFQQF_softrt_update,
	BFQQF_coop,
	BFQQF_split_coop,
};

#define BFQ_BFQQ_FNS(name)                                                                   \
	static inline void bfq_mark_bfqq_##name(struct bfq_queue *bfqq)                      \
	{                                                                                    \
		bfqq->flags |= 1u << BFQQF_##name;                                           \
	}                                                                                    \
	static inline void bfq_clear_bfqq_##name(struct bfq_queue *bfqq)                     \
	{                                                                                    \
		bfqq->flags &= ~(1u << BFQQF_##name);                                        \
	}                                                                                    \
	static inline bool bfq_bfqq_##name(const struct bfq_queue *bfqq)                     \
	{                                                                                    \
		return (bfqq->flags & (1u << BFQQF_##name)) != 0;                            \
	}

#define BFQ_CACHE_LINE 64 /* the state's layout and the prefetches assume it */

struct bfq_io_cq;

/*
 * A queue's node on its group's position tree (the kernel's bfqq->pos_node), kept apart from
 * the queue in bfqd->pos_nodes[queue index] as CFQ's cfq_qnode: every request walks the tree
 * (bfq_pos_tree_add_move(), the close-cooperator search), and with thousands of queues a walk
 * through the queues themselves touches a line and often a page per level, spread over
 * megabytes; the dense array keeps the walk within a few pages, two nodes per line.
 */
struct bfq_pos_node {
	uint64_t key; /* the next request's sector (the walk's compare): bfq_pos_key_update() */
	struct sched_rb_node node;
};

struct bfq_queue {
	/*
	 * Lines 0-1: the entity; with thousands of queues every tree walk is a cache miss per
	 * level, so what the walks read shares one line of each. Lines 2-6: what inserting,
	 * dispatching and completing a request read or write (by traces of the microbenchmark's
	 * accesses: valgrind lackey, and a page-protection trace of one page of queues at 4096
	 * queues x 1, every field each turn touches); lines 7-8: merging, bursts, waker
	 * detection, touched rarely (woken_list_node only for a queue with a waker). A queue that
	 * gets its turn has not been touched for thousands of requests: each line it spans is a
	 * miss, and bfq_update_next_in_service() prefetches lines 1-6.
	 */
	struct bfq_entity entity;
	struct sched_rb_root *pos_root; /* on its group's position tree: bfqd->pos_nodes[index] */
	struct sched_request *next_rq;
	uint32_t flags;
	int32_t dispatched;

	struct sched_rb_root sort_list;
	struct sched_list fifo;
	int32_t queued[2];
	struct bfq_queue *new_bfqq; /* shared queue this one is to merge into */
	struct bfq_group *group;    /* for logs and stats; the entity's parent says it too */

	int32_t ref;
	int32_t stable_ref;
	uint16_t ioprio, ioprio_class;
	uint32_t wr_coeff;
	struct bfq_weight_counter *weight_counter;
	int64_t budget_timeout;		/* jiffies */
	uint64_t service_from_backlogged;
	int64_t first_IO_time;
	int64_t wr_cur_max_time; /* jiffies */
	int32_t max_budget;
	uint32_t seek_history;

	struct bfq_ttime ttime;
	uint64_t last_request_pos;
	int64_t last_wr_start_finish;
	int64_t soft_rt_next_start;
	int64_t last_idle_bklogged;

	struct sched_list bfqq_list; /* active_list, while on an active tree */
	uint64_t io_start_time;
	uint64_t tot_idle_time;

	/* Line 6: the rest of what a request reads (injection, wakers, a split's age, the bic). */
	struct bfq_io_cq *bic; /* NULL when shared */
	int64_t decrease_time_jif;
	struct bfq_queue *waker_bfqq;
	int64_t split_time;
	struct sched_list woken_list;
	uint32_t inject_limit;
	int32_t meta_pending;
	uint32_t index;	   /* slot in bfqd->queues */
	int32_t free_next; /* pool free list */

	/* Lines 7-8: touched rarely. */
	uint64_t last_serv_time_ns;
	uint32_t requests_within_timer; /* 4.12: IO_bound by requests within the idle timer */
	uint64_t service_from_wr;
	struct sched_list burst_list_node;
	struct sched_list woken_list_node;
	int64_t creation_time;
	int64_t wr_start_at_switch_to_srt;
	struct bfq_queue *tentative_waker_bfqq;
	uint32_t num_waker_detections;
	int32_t pid; /* owner that created it, -1 when shared */
	uint64_t waker_detection_started;
	uint16_t new_ioprio, new_ioprio_class;
	bool alive;	      /* allocated */
	char pad_to_line[25]; /* to whole cache lines (bfq.c asserts it): resize with the fields */
};

BFQ_BFQQ_FNS(just_created)
BFQ_BFQQ_FNS(busy)
BFQ_BFQQ_FNS(wait_request)
BFQ_BFQQ_FNS(non_blocking_wait_rq)
BFQ_BFQQ_FNS(fifo_expire)
BFQ_BFQQ_FNS(has_short_ttime)
BFQ_BFQQ_FNS(sync)
BFQ_BFQQ_FNS(IO_bound)
BFQ_BFQQ_FNS(in_large_burst)
BFQ_BFQQ_FNS(softrt_update)
BFQ_BFQQ_FNS(coop)
BFQ_BFQQ_FNS(split_coop)
#undef BFQ_BFQQ_FNS

/* What survives a merge, to be restored on split (struct bfq_iocq_bfqq_data). */
struct bfq_iocq_bfqq_data {
	/* First: bfq_setup_cooperator() reads it for every request. */
	struct bfq_queue *stable_merge_bfqq;
	bool stably_merged;
	bool saved_has_short_ttime;
	bool saved_IO_bound;
	bool saved_in_large_burst;
	bool was_in_burst_list;
	uint64_t saved_io_start_time;
	uint64_t saved_tot_idle_time;
	uint32_t saved_weight;
	uint32_t saved_wr_coeff;
	int64_t saved_last_wr_start_finish;
	uint64_t saved_service_from_wr;
	int64_t saved_wr_start_at_switch_to_srt;
	int64_t saved_wr_cur_max_time;
	struct bfq_ttime saved_ttime;
	uint64_t saved_last_serv_time_ns;
	uint32_t saved_inject_limit;
	int64_t saved_decrease_time_jif;
};

/*
 * Per process (owner): the kernel's bfq_io_cq. What every request reads or writes (the queues,
 * the request count, the exit flags, the stable-merge candidate) is in its first line; the
 * array starts on a line and the struct is whole lines (bfq.c asserts it).
 */
struct bfq_io_cq {
	struct bfq_queue *bfqq[2];	/* [async, sync] */
	int ioprio_class;		/* -1: not yet seen */
	int ioprio;
	uint32_t group;
	uint32_t requests; /* its requests allocated and not finished */
	uint32_t owner;
	bool exited;			/* ioc->active_ref == 0 */
	bool icq_exited;		/* bfq_exit_icq done */
	struct bfq_iocq_bfqq_data bfqq_data;
	char pad_to_line[24]; /* to whole cache lines: resize with the fields */
};

struct bfq_group {
	struct bfq_entity entity;
	struct bfq_sched_data sched_data;
	struct bfq_entity *my_entity;	/* NULL for the root group */
	int active_entities;
	int num_queues_with_pending_reqs;
	struct sched_rb_root rq_pos_tree;
	uint32_t index;
	struct bfq_queue *async_bfqq[2][BFQ_IOPRIO_NR_LEVELS];
	struct bfq_queue *async_idle_bfqq;
	struct bfq_weight_counter *weight_counter; /* on group_weights_tree (4.12) */
};

struct bfq_data {
	const struct sched_config *cfg;
	const struct sched_device *dev;
	uint64_t now;
	int64_t jiffies;

	struct bfq_group *root_group;
	struct sched_rb_root queue_weights_tree;
	struct sched_rb_root group_weights_tree; /* 4.12's, for bfq_sw_asym_groups off */
	/* [2][BFQ_MAX_WEIGHT + 1], by weight: queues', then groups' */
	struct bfq_weight_counter *counters;
	uint32_t num_groups_with_pending_reqs;

	uint32_t busy_queues[3];
	int wr_busy_queues;
	int queued;
	int tot_rq_in_driver;
	bool nonrot;
	bool nonrot_with_queueing;
	int max_rq_in_driver;
	int hw_tag_samples;
	int hw_tag;
	int budgets_assigned;

	bool timer_armed;
	uint64_t timer_expires;

	struct bfq_queue *in_service_queue;
	uint64_t last_position;
	uint64_t in_serv_last_pos;
	uint64_t last_completion;
	struct bfq_queue *last_completed_rq_bfqq;
	struct bfq_queue *last_bfqq_created;
	uint64_t last_empty_occupied_ns;
	bool wait_dispatch;
	struct sched_request *waited_rq;
	bool rqs_injected;

	uint64_t first_dispatch, last_dispatch;
	uint64_t last_budget_start;
	uint64_t last_idling_start;
	int64_t last_idling_start_jiffies;
	int peak_rate_samples;
	uint32_t sequential_samples;
	uint64_t tot_sectors_dispatched;
	uint32_t last_rq_max_size;
	uint64_t delta_from_first;
	uint32_t peak_rate;
	int32_t bfq_max_budget;

	/*
	 * Queues on an active tree, the last activated first: injection candidates. The kernel
	 * keeps an idle_list too, for bfq_end_wr(), which here scans the pool instead: unlinking
	 * from either list writes to two queues not otherwise touched, so there is none.
	 */
	struct sched_list active_list;
	struct sched_list dispatch;	/* requests that bypass the queues (flushes) */
	int dispatch_count;

	struct bfq_params p;		/* effective tunables */
	int64_t bfq_timeout;		/* jiffies */
	int64_t last_ins_in_burst;
	int64_t bfq_burst_interval;
	int burst_size;
	struct bfq_entity *burst_parent_entity;
	int bfq_large_burst_thresh;
	bool large_burst;
	struct sched_list burst_list;

	uint32_t bfq_wr_coeff;
	int64_t bfq_wr_rt_max_time;
	int64_t bfq_wr_min_idle_time;
	int64_t bfq_wr_min_inter_arr_async;
	uint32_t bfq_wr_max_softrt_rate;
	uint64_t rate_dur_prod;
	bool device_fast;		/* 4.12 speed class */

	uint32_t async_depths[2][2];
	uint32_t actuator_load_threshold;

	struct bfq_queue oom_bfqq;

	/* Preallocated objects. */
	uint32_t nr_bics, nr_groups, nr_queues;
	struct bfq_io_cq *bics;
	struct bfq_group *groups;
	struct bfq_queue *queues;	/* [0, nr_pool): pool; then the async queues by group */
	struct bfq_pos_node *pos_nodes; /* [nr_queues]: queues[i]'s position-tree node */
	uint32_t nr_pool;
	int32_t free_queue;

	struct bfq_stats stats;
};

/* ---- small helpers ---- */

#define bfq_class_idle(bfqq) ((bfqq)->ioprio_class == SCHED_IOPRIO_CLASS_IDLE)
/* hweight32() without a libgcc call when the target lacks popcnt. */
static inline unsigned int bfq_hweight32(uint32_t w)
{
	w = w - ((w >> 1) & 0x55555555u);
	w = (w & 0x33333333u) + ((w >> 2) & 0x33333333u);
	w = (w + (w >> 4)) & 0x0f0f0f0fu;
	return (w * 0x01010101u) >> 24;
}

#define BFQQ_SEEKY(bfqd, bfqq)	 ((int)bfq_hweight32((bfqq)->seek_history) > bfq_seeky_thr(bfqd))
#define BFQQ_TOTALLY_SEEKY(bfqq) ((bfqq)->seek_history == UINT32_MAX)

static inline bool bfq_sw(const struct bfq_data *bfqd, enum bfq_switch sw)
{
	return bfqd->p.sw[sw];
}

/*
 * now - last_end_request is taken in u64, as the kernel does: a queue made for a request
 * (bfq_init_bfqq(): last_end_request = now + 1, "minus infinity from now") and that request's
 * arrival see the same instant, so the difference wraps: the first think-time sample is the
 * longest (2 x slice_idle) and tot_idle_time starts at U64_MAX (back to the real idle time at
 * the queue's first arrival after an idle period, by wrapping again). In 6.12 the plug's
 * cached clock (blk_time_get_ns(), 6.9; __submit_bio() always plugs from 6.10) makes it so on
 * any machine. In 4.12 ktime_get_ns() moved on by the few microseconds between the request's
 * allocation (bfq_get_rq_private(), where the queue is made) and its insertion; the
 * simulator's clock does not move between the two, and the kernel's file, run on it, wraps
 * too: the port does as the kernel's code does at the simulated instants.
 */
static inline struct bfq_queue *bfq_entity_to_bfqq(struct bfq_entity *entity)
{
	return entity->my_sched_data ? NULL
				     : sched_container_of(entity, struct bfq_queue, entity);
}

static inline struct bfq_queue *RQ_BFQQ(const struct sched_request *rq)
{
	return rq->priv.queue;
}

static inline unsigned int bfq_tot_busy_queues(const struct bfq_data *bfqd)
{
	return bfqd->busy_queues[0] + bfqd->busy_queues[1] + bfqd->busy_queues[2];
}

static inline int bfq_bfqq_budget_left(const struct bfq_queue *bfqq)
{
	return bfqq->entity.budget - bfqq->entity.service;
}

/*
 * A pool or async queue's position-tree node (never oom_bfqq's: it is never on the tree). Its
 * index from the address, not bfqq->index: that would be one more line of a cold queue.
 */
static inline struct bfq_pos_node *bfqq_pos(const struct bfq_data *bfqd,
					    const struct bfq_queue *bfqq)
{
	return &bfqd->pos_nodes[bfqq - bfqd->queues];
}

static inline struct bfq_pos_node *bfq_pos_of(const struct sched_rb_node *n)
{
	return sched_rb_entry(n, struct bfq_pos_node, node);
}

static inline struct bfq_group *bfqq_group(const struct bfq_queue *bfqq)
{
	return bfqq->group;
}

static inline bool rq_is_sync(const struct sched_request *rq)
{
	return sched_rq_is_sync(rq);
}

static inline bool rq_is_meta(const struct sched_request *rq)
{
	return (rq->flags & SCHED_RQ_META) != 0;
}

/* time_is_before_jiffies(a) and friends, on the emulated jiffies. */
static inline bool before_jiffies(const struct bfq_data *bfqd, int64_t a)
{
	return a < bfqd->jiffies;
}
static inline bool before_eq_jiffies(const struct bfq_data *bfqd, int64_t a)
{
	return a <= bfqd->jiffies;
}
static inline bool after_jiffies(const struct bfq_data *bfqd, int64_t a)
{
	return a > bfqd->jiffies;
}
static inline bool after_eq_jiffies(const struct bfq_data *bfqd, int64_t a)
{
	return a >= bfqd->jiffies;
}

/* "Minus infinity" in jiffies (bfq_smallest_from_now), "plus infinity" (4.12's greatest). */
static inline int64_t bfq_smallest_from_now(const struct bfq_data *bfqd)
{
	return bfqd->jiffies - ((int64_t)1 << 40);
}
static inline int64_t bfq_greatest_from_now(const struct bfq_data *bfqd)
{
	return bfqd->jiffies + ((int64_t)1 << 40);
}

/* Flash with queueing: no cooperator merging there (bfq_sw_no_merge_flash_queueing; 4.12
 * merged on any drive). */
static inline bool bfq_no_coop_merging(const struct bfq_data *bfqd)
{
	return bfqd->p.sw[BFQ_SW_NO_MERGE_FLASH_QUEUEING] && bfqd->nonrot_with_queueing;
}

/* A queue is seeky with more than 19 seeky requests of its last 32 (bfq_sw_seeky_thr; 4.12:
 * more than 32 / 8). */
static inline int bfq_seeky_thr(const struct bfq_data *bfqd)
{
	return bfqd->p.sw[BFQ_SW_SEEKY_THR] ? 19 : 32 / 8;
}

/* ---- trace (bfq.c) ---- */

void bfq_trace(struct bfq_data *bfqd, const struct bfq_queue *bfqq, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define bfq_log_bfqq(bfqd, bfqq, ...)                                                        \
	do {                                                                                 \
		if (sched_trace_on((bfqd)->dev->trace))                                      \
			bfq_trace((bfqd), (bfqq), __VA_ARGS__);                              \
	} while (0)
#define bfq_log(bfqd, ...)                                                                   \
	do {                                                                                 \
		if (sched_trace_on((bfqd)->dev->trace))                                      \
			bfq_trace((bfqd), NULL, __VA_ARGS__);                                \
	} while (0)

/* ---- bfq_wf2q.c ---- */

struct bfq_service_tree *bfq_entity_service_tree(struct bfq_entity *entity);
uint16_t bfq_ioprio_to_weight(int ioprio);
void bfq_put_idle_entity(struct bfq_data *bfqd, struct bfq_service_tree *st,
			 struct bfq_entity *entity);
struct bfq_service_tree *__bfq_entity_update_weight_prio(struct bfq_data *bfqd,
							 struct bfq_service_tree *old_st,
							 struct bfq_entity *entity,
							 bool update_class_too);
void bfq_bfqq_served(struct bfq_data *bfqd, struct bfq_queue *bfqq, int served);
void bfq_bfqq_charge_time(struct bfq_data *bfqd, struct bfq_queue *bfqq, uint64_t time_ms);
bool next_queue_may_preempt(struct bfq_data *bfqd);
struct bfq_queue *bfq_get_next_queue(struct bfq_data *bfqd);
bool __bfq_bfqd_reset_in_service(struct bfq_data *bfqd);
void bfq_deactivate_bfqq(struct bfq_data *bfqd, struct bfq_queue *bfqq, bool ins_into_idle_tree,
			 bool expiration);
void bfq_activate_bfqq(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_requeue_bfqq(struct bfq_data *bfqd, struct bfq_queue *bfqq, bool expiration);
void bfq_del_bfqq_busy(struct bfq_data *bfqd, struct bfq_queue *bfqq, bool expiration);
void bfq_add_bfqq_busy(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_add_bfqq_in_groups_with_pending_reqs(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_del_bfqq_in_groups_with_pending_reqs(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_init_entity(struct bfq_entity *entity, struct bfq_group *bfqg);
void bfq_init_sched_data(struct bfq_data *bfqd, struct bfq_sched_data *sd);
/* Checks the min_start augmentation and the red-black invariants of every service tree and
 * position tree (tests). */
bool bfq_wf2q_check(const struct bfq_data *bfqd);

/* ---- bfq_queue.c ---- */

void bfq_put_queue(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_release_process_ref(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_put_cooperator(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_weights_tree_add(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_weights_tree_remove(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_group_weights_tree_add(struct bfq_data *bfqd, struct bfq_entity *entity);
void bfq_group_weights_tree_remove(struct bfq_data *bfqd, struct bfq_entity *entity);
bool bfq_asymmetric_scenario(struct bfq_data *bfqd, struct bfq_queue *bfqq);
int bfqq_process_refs(const struct bfq_queue *bfqq);
void bfq_pos_tree_add_move(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_pos_key_update(struct bfq_data *bfqd, struct bfq_queue *bfqq);
struct sched_request *bfq_choose_req(struct bfq_data *bfqd, struct sched_request *rq1,
				     struct sched_request *rq2, uint64_t last);
struct sched_request *bfq_find_next_rq(struct bfq_data *bfqd, struct bfq_queue *bfqq,
				       struct sched_request *last);
struct bfq_queue *bfq_init_rq(struct bfq_data *bfqd, struct sched_request *rq);
struct bfq_queue *bfq_setup_cooperator(struct bfq_data *bfqd, struct bfq_queue *bfqq,
				       struct sched_request *rq, struct bfq_io_cq *bic);
struct bfq_queue *bfq_merge_bfqqs(struct bfq_data *bfqd, struct bfq_io_cq *bic,
				  struct bfq_queue *bfqq);
void bfq_exit_icq(struct bfq_data *bfqd, struct bfq_io_cq *bic);
void bfqq_request_allocated(struct bfq_queue *bfqq);
void bfqq_request_freed(struct bfq_queue *bfqq);
void bfq_reassign_last_bfqq(struct bfq_data *bfqd, struct bfq_queue *cur_bfqq,
			    struct bfq_queue *new_bfqq);

/* ---- bfq_sched.c ---- */

unsigned long bfq_serv_to_charge(struct bfq_data *bfqd, const struct sched_request *rq,
				 struct bfq_queue *bfqq);
void bfq_updated_next_req(struct bfq_data *bfqd, struct bfq_queue *bfqq);
int bfq_max_budget(const struct bfq_data *bfqd);
int bfq_min_budget(const struct bfq_data *bfqd);
int64_t bfq_wr_duration(struct bfq_data *bfqd);
void bfq_bfqq_end_wr(struct bfq_data *bfqd, struct bfq_queue *bfqq, enum bfq_wr_end why);
/* The largest budget the estimated peak rate allows in a budget timeout (bfq_max_budget). */
int32_t bfq_calc_max_budget(struct bfq_data *bfqd);
void bfq_bfqq_expire(struct bfq_data *bfqd, struct bfq_queue *bfqq, bool compensate,
		     enum bfq_expire_reason reason);
bool __bfq_bfqq_expire(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		       enum bfq_expire_reason reason);
bool bfq_better_to_idle(struct bfq_data *bfqd, struct bfq_queue *bfqq);
bool idling_boosts_thr_without_issues(struct bfq_data *bfqd, struct bfq_queue *bfqq);
bool bfq_bfqq_budget_timeout(const struct bfq_data *bfqd, const struct bfq_queue *bfqq);
bool bfq_may_expire_for_budg_timeout(struct bfq_data *bfqd, struct bfq_queue *bfqq);
bool bfq_bfqq_must_idle(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_arm_slice_timer(struct bfq_data *bfqd);
void bfq_del_timer(struct bfq_data *bfqd);
struct bfq_queue *bfq_select_queue(struct bfq_data *bfqd);
struct sched_request *bfq_dispatch_rq_from_bfqq(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_add_request(struct bfq_data *bfqd, struct sched_request *rq);
void bfq_remove_request(struct bfq_data *bfqd, struct sched_request *rq);
void bfq_rq_enqueued(struct bfq_data *bfqd, struct bfq_queue *bfqq, struct sched_request *rq);
void bfq_update_io_thinktime(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_update_has_short_ttime(struct bfq_data *bfqd, struct bfq_queue *bfqq,
				struct bfq_io_cq *bic);
void bfq_update_idle_window(struct bfq_data *bfqd, struct bfq_queue *bfqq, struct bfq_io_cq *bic);
void bfq_update_io_seektime(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			    const struct sched_request *rq);
bool bfq_completed_request(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_update_inject_limit(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_idle_slice_timer(struct bfq_data *bfqd);
void bfq_reset_inject_limit(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_update_wr_data(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_end_wr(struct bfq_data *bfqd);
void bfq_bfqq_resume_state(struct bfq_data *bfqd, struct bfq_queue *bfqq, struct bfq_io_cq *bic,
			   bool bfq_already_existing);
void bfq_bfqq_save_state(struct bfq_data *bfqd, struct bfq_queue *bfqq);

#endif
