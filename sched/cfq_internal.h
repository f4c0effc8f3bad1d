/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CFQ internals shared by cfq.c (ops, insert, dispatch, completion), cfq_rq.c (per-queue
 * request order, queue lookup, preemption), cfq_service_tree.c (service trees, groups,
 * slices, queue selection) and cfq_idle.c (think time, seekiness, idling, timers, hw_tag).
 *
 * Names follow block/cfq-iosched.c of Linux 4.19. Times are ns; the clock is cfqd->now, set
 * at every entry point from the `now` argument (the kernel's ktime_get_ns()).
 */
#ifndef SCHED_CFQ_INTERNAL_H
#define SCHED_CFQ_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfq.h"
#include "sched.h"

/*
 * The clock (cfqd->now) is the profile's: ns from 4.10 on (cfq_sw_ns_clock), jiffies before,
 * at cfq_hz, counted from the kernel's INITIAL_JIFFIES at the scheduler's start as the oracle's
 * shim counts them. Every time CFQ keeps (slices, keys, think times, the idle timer) is in that
 * clock; the constants below are in it too (cfqd->t_jiffy, t_sec: one jiffy, one second).
 */
#define CFQ_NSEC_PER_SEC	1000000000ull
#define CFQ_INITIAL_JIFFIES(hz) ((uint64_t)(uint32_t)(-300 * (int64_t)(hz)))

#define CFQ_IDLE_DELAY(cfqd)	((cfqd)->t_sec / 5)	/* idle class: offset from tree end */
#define CFQ_SLICE_MODE_GROUP_DELAY(cfqd) ((cfqd)->t_sec / 5)
#define CFQ_IOPS_MODE_GROUP_DELAY(cfqd) ((uint64_t)(cfqd)->p.hz / 5) /* raw vdisktime units */
#define CFQ_MIN_TT(cfqd)	(2 * (cfqd)->t_jiffy)
#define CFQ_SLICE_SCALE		5
#define CFQ_HW_QUEUE_MIN	5
#define CFQ_SERVICE_SHIFT	12
#define CFQ_HIST_DIVISOR	4
#define CFQ_PAGE_SIZE		4096
#define BLKIO_WEIGHT_DEFAULT	500	/* 2.6.3x: the unit of cfq_scale_slice()'s weight */

#define CFQQ_SEEK_THR		(8 * 100)
#define CFQQ_CLOSE_THR		(8 * 1024)
#define CFQQ_SECT_THR_NONROT	(2 * 32)

#define CFQ_PRIO_LISTS		SCHED_IOPRIO_NR_LEVELS
#define CFQ_IOPRIO_NORM		4
/* Async queues of one group: RT x 8 levels, BE x 8 levels, one IDLE. */
#define CFQ_ASYNC_PER_GROUP	(2 * SCHED_IOPRIO_NR_LEVELS + 1)

#define cfq_sample_valid(samples) ((samples) > 80)

enum cfq_wl_class {
	BE_WORKLOAD = 0,
	RT_WORKLOAD = 1,
	IDLE_WORKLOAD = 2,
	CFQ_PRIO_NR,
};

enum cfq_wl_type {
	ASYNC_WORKLOAD = 0,
	SYNC_NOIDLE_WORKLOAD = 1,
	SYNC_WORKLOAD = 2,
};

struct cfq_ttime {
	uint64_t last_end_request;
	uint64_t ttime_total;
	uint64_t ttime_mean;
	uint64_t ttime_samples;
};

/* A service tree: queues by rb_key, or groups by vdisktime. */
struct cfq_rb_root {
	struct sched_rb_root rb;
	uint64_t min_vdisktime;
	struct cfq_ttime ttime;
};

enum cfqq_state_flags {
	CFQ_CFQQ_FLAG_on_rr = 0,	/* on a service tree (busy) */
	CFQ_CFQQ_FLAG_wait_request,	/* idling for a request */
	CFQ_CFQQ_FLAG_must_dispatch,	/* a request came while idling: let it through */
	CFQ_CFQQ_FLAG_must_alloc_slice,
	CFQ_CFQQ_FLAG_fifo_expire,	/* FIFO already checked in this slice */
	CFQ_CFQQ_FLAG_idle_window,	/* idling enabled for this queue */
	CFQ_CFQQ_FLAG_prio_changed,
	CFQ_CFQQ_FLAG_slice_new,	/* slice starts at the first completion */
	CFQ_CFQQ_FLAG_sync,
	CFQ_CFQQ_FLAG_deep,		/* had >= 4 requests queued */
	CFQ_CFQQ_FLAG_wait_busy,	/* wait for the next request to keep the group busy */
	CFQ_CFQQ_FLAG_coop,		/* shared by processes (cooperating queues merged) */
	CFQ_CFQQ_FLAG_split_coop,	/* shared and seeky: its processes split off */
	CFQ_CFQQ_FLAG_alive,		/* allocated (the kernel's kmem_cache object exists) */
	CFQ_CFQQ_FLAG_merge,		/* new_cfqq is set: the insert path reads only the flags */
	CFQ_CFQQ_FLAG_coop_preempt,	/* 2.6.32: its coop mark survives its next activation */
};

#define CFQ_CFQQ_FNS(name)							\
static inline void cfq_mark_cfqq_##name(struct cfq_queue *cfqq)			\
{										\
	cfqq->flags |= 1u << CFQ_CFQQ_FLAG_##name;				\
}										\
static inline void cfq_clear_cfqq_##name(struct cfq_queue *cfqq)		\
{										\
	cfqq->flags &= ~(1u << CFQ_CFQQ_FLAG_##name);				\
}										\
static inline bool cfq_cfqq_##name(const struct cfq_queue *cfqq)		\
{										\
	return (cfqq->flags & (1u << CFQ_CFQQ_FLAG_##name)) != 0;		\
}

struct cfq_group;

/*
 * A queue's place in a tree of queues, a service tree or a prio tree: its node and the key the
 * tree is sorted by, in one of two dense arrays indexed like cfqd->queues (cfqq->st, cfqq->p).
 * A walk down either tree, and the rebalancing after an insert or an erase, reads only these,
 * not lines of the queues themselves (measured alone, this did not move the 4096-queue time
 * beyond noise: a walk costs a dependent load per level wherever the nodes are).
 */
struct cfq_qnode {
	/*
	 * Service tree: rb_key (signed: a front insertion is < now). Prio tree: p_key, the sector
	 * of next_rq, updated whenever next_rq changes, not only when the queue is (re)inserted: as
	 * in the kernel, comparisons use the current next_rq, and the tree is not re-sorted when a
	 * dispatch moves next_rq (cfq_remove_request). Before the node: a descent reads the first
	 * 24 bytes (key, left, right).
	 */
	int64_t key;
	struct sched_rb_node node;
};

struct cfq_queue {
	_Alignas(64) struct cfq_qnode *st; /* service tree member: cfqd->st_nodes[index] */
	struct cfq_qnode *p;		/* prio tree member: cfqd->p_nodes[index] */
	struct sched_request *next_rq;	/* set with cfq_set_next_rq() */
	int queued[2];			/* by sync */
	uint32_t flags;
	/*
	 * The kernel's references but its requests' (each holds the queue from its insert to
	 * its completion: queued + dispatched): a process's (its cic's pointer), an async
	 * queue's pin in its group, and those cfq_setup_merge() takes for the processes to come.
	 * With none of either the queue is freed (cfq_release_queue()).
	 */
	int pref;

	struct sched_rb_root sort_list;	/* pending requests by sector */

	struct sched_rb_root *p_root;
	struct sched_list fifo;

	uint64_t dispatch_start;
	uint64_t allocated_slice;
	uint64_t slice_dispatch;
	uint64_t slice_start;
	uint64_t slice_end;
	int64_t slice_resid;

	int prio_pending;
	int dispatched;			/* in the driver */

	uint16_t ioprio, org_ioprio;
	uint16_t ioprio_class, org_ioprio_class;

	uint32_t pid;			/* owner that created it */
	uint32_t seek_history;
	uint64_t last_request_pos;

	struct cfq_rb_root *service_tree;
	struct cfq_group *cfqg;
	uint64_t nr_sectors;
	struct cfq_queue *new_cfqq;	/* to merge into (cfq_setup_merge), with the merge flag */
	/* Its own group while served in the root group (group_isolation=0, 2.6.3x). */
	struct cfq_group *orig_cfqg;
};

_Static_assert(sizeof(struct cfq_queue) % 64 == 0, "queues in whole cache lines");

/* next_rq and the prio tree key change together. */
static inline void cfq_set_next_rq(struct cfq_queue *cfqq, struct sched_request *rq)
{
	cfqq->next_rq = rq;
	if (rq)
		cfqq->p->key = (int64_t)sched_rq_pos(rq);
}

CFQ_CFQQ_FNS(on_rr)
CFQ_CFQQ_FNS(wait_request)
CFQ_CFQQ_FNS(must_dispatch)
CFQ_CFQQ_FNS(must_alloc_slice)
CFQ_CFQQ_FNS(fifo_expire)
CFQ_CFQQ_FNS(idle_window)
CFQ_CFQQ_FNS(prio_changed)
CFQ_CFQQ_FNS(slice_new)
CFQ_CFQQ_FNS(sync)
CFQ_CFQQ_FNS(deep)
CFQ_CFQQ_FNS(wait_busy)
CFQ_CFQQ_FNS(coop)
CFQ_CFQQ_FNS(split_coop)
CFQ_CFQQ_FNS(alive)
CFQ_CFQQ_FNS(merge)
CFQ_CFQQ_FNS(coop_preempt)
#undef CFQ_CFQQ_FNS

struct cfq_group {
	uint32_t index;
	bool online;			/* its blkg exists (cfq_group_online()) */
	struct cfq_group *parent;	/* NULL for the root group (group 0) */
	struct sched_rb_node rb_node;	/* group service tree member */
	uint64_t vdisktime;

	int nr_active;
	unsigned int children_weight;
	unsigned int vfraction;		/* fixed point, CFQ_SERVICE_SHIFT */
	unsigned int weight;		/* against sibling groups */
	unsigned int leaf_weight;	/* of this group's own queues against its children */
	unsigned int new_weight;	/* written while active: applied when next activated */

	int nr_cfqq;			/* busy queues of this group */
	unsigned int busy_queues_avg[CFQ_PRIO_NR];
	struct cfq_rb_root service_trees[2][3];
	struct cfq_rb_root service_tree_idle;

	uint64_t saved_wl_slice;
	enum cfq_wl_type saved_wl_type;
	enum cfq_wl_class saved_wl_class;

	int dispatched;
	struct cfq_ttime ttime;

	/* Async queues: [0]=RT, [1]=BE by level, and the idle one; slots in cfqd->queues. */
	struct cfq_queue *async_cfqq[2][SCHED_IOPRIO_NR_LEVELS];
	struct cfq_queue *async_idle_cfqq;
};

/* Per process (owner) io context: the kernel's cfq_io_cq. */
struct cfq_io_cq {
	struct cfq_queue *cfqq[2];	/* [async (last used), sync] */
	struct cfq_ttime ttime;
	int ioprio_class;		/* the current ioprio, -1 before the first request */
	int ioprio;
	uint32_t group;
	bool exited;			/* the kernel's ioc->active_ref == 0 */
	/* 2.6.32 (cfq_sw_rework_2633 off): seekiness of the process, a mean seek distance. */
	uint64_t seek_samples;
	uint64_t seek_total;
	uint64_t seek_mean;		/* sectors */
	uint64_t last_request_pos;
};

struct cfq_data {
	const struct sched_config *cfg;
	const struct sched_device *dev;
	uint64_t now;			/* the profile's clock: ns, or jiffies (cfq_set_now()) */
	bool jclock;			/* jiffies: cfq_sw_ns_clock off */
	uint64_t t_jiffy, t_sec;	/* one jiffy, one second, in the clock */
	uint64_t tick_ns;		/* one jiffy in ns */
	uint64_t epoch_ns;		/* the scheduler's start: jiffies count from it */

	struct cfq_rb_root grp_service_tree;
	/* The weights of the groups on grp_service_tree (cfq_group_slice() before vfraction). */
	unsigned int grp_total_weight;
	struct cfq_group *root_group;

	enum cfq_wl_class serving_wl_class;
	enum cfq_wl_type serving_wl_type;
	uint64_t workload_expires;
	struct cfq_group *serving_group;
	/* A request without REQ_NOIDLE completed in this sync-noidle workload (before
	 * cfq_sw_noidle_window). */
	bool noidle_tree_requires_idle;

	struct sched_rb_root prio_trees[CFQ_PRIO_LISTS];

	unsigned int busy_queues;
	unsigned int busy_sync_queues;

	int rq_in_driver;
	int rq_in_flight[2];		/* by the queue's sync (2.6.32's sync_flight: [1]) */
	int rq_in_driver_rw[2];		/* by the request's sync (2.6.32's rq_in_driver[]) */
	uint64_t last_end_sync_rq;	/* 2.6.32: the last sync completion (async depth ramp) */
	int rq_queued;
	int hw_tag;
	int hw_tag_est_depth;
	unsigned int hw_tag_samples;

	/* The idle slice timer (hrtimer): armed or not, and when. */
	bool timer_armed;
	uint64_t timer_expires;

	struct cfq_queue *active_queue;
	struct cfq_io_cq *active_cic;
	/* The block core's dispatch list: aliases CFQ gave up at insertion (cfq_dispatch_alias). */
	struct sched_list dispatch_list;
	/* The fallback queue when no sync queue slot is free (the kernel's oom_cfqq). */
	struct cfq_queue *oom_cfqq;
	bool kick;			/* a queue run asked for outside completion's own test */

	uint64_t last_position;
	uint64_t last_delayed_sync;

	bool nonrot;
	struct cfq_params p;

	/* Preallocated objects. */
	uint32_t nr_cics, nr_groups, nr_queues;
	struct cfq_io_cq *cics;		/* [max_entities] */
	struct cfq_group *groups;	/* [max_groups] */
	/*
	 * Sync queues [2 * max_entities] (a process's first one in slot owner; processes that
	 * merged and split again take the next free one), the OOM queue, then async per group.
	 */
	struct cfq_queue *queues;
	struct cfq_qnode *st_nodes;	/* [nr_queues]: queues[i].st */
	struct cfq_qnode *p_nodes;	/* [nr_queues]: queues[i].p */

	struct cfq_stats stats;
};

/* ---- small helpers ---- */

/* The clock at ns (the core's time): ns, or jiffies since the start from INITIAL_JIFFIES. */
static inline uint64_t cfq_clock_at(const struct cfq_data *cfqd, uint64_t ns)
{
	if (!cfqd->jclock)
		return ns;
	return CFQ_INITIAL_JIFFIES(cfqd->p.hz) + (ns - cfqd->epoch_ns) / cfqd->tick_ns;
}

static inline void cfq_set_now(struct cfq_data *cfqd, uint64_t ns)
{
	cfqd->now = cfq_clock_at(cfqd, ns);
}

/* A duration of the clock in ns (statistics). */
static inline uint64_t cfq_clock_ns(const struct cfq_data *cfqd, uint64_t t)
{
	return cfqd->jclock ? t * cfqd->tick_ns : t;
}

static inline bool cfq_sw(const struct cfq_data *cfqd, enum cfq_switch sw)
{
	return cfqd->p.sw[sw];
}

/* 2.6.32's CFQ (cfq_sw_rework_2633 off): its own paths in cfq_2632.c. */
static inline bool cfq_2632(const struct cfq_data *cfqd)
{
	return !cfqd->p.sw[CFQ_SW_REWORK_2633];
}

#define cfq_class_idle(cfqq)	((cfqq)->ioprio_class == SCHED_IOPRIO_CLASS_IDLE)
#define cfq_class_rt(cfqq)	((cfqq)->ioprio_class == SCHED_IOPRIO_CLASS_RT)

static inline bool cfq_rb_empty(const struct sched_rb_root *r)
{
	return sched_rb_empty(r);
}

static inline unsigned int cfq_st_count(const struct cfq_rb_root *st)
{
	return (unsigned int)st->rb.count;
}

/* The queue of a service tree node (st) or prio tree node (p). */
static inline struct cfq_queue *cfqq_of_st(const struct cfq_data *cfqd,
					   const struct sched_rb_node *n)
{
	return &cfqd->queues[sched_rb_entry(n, struct cfq_qnode, node) - cfqd->st_nodes];
}

static inline struct cfq_queue *cfqq_of_p(const struct cfq_data *cfqd,
					  const struct sched_rb_node *n)
{
	return &cfqd->queues[sched_rb_entry(n, struct cfq_qnode, node) - cfqd->p_nodes];
}

static inline int64_t cfq_qnode_key(const struct sched_rb_node *n)
{
	return sched_rb_entry(n, struct cfq_qnode, node)->key;
}

static inline struct cfq_queue *cfq_queue_of_req(const struct sched_request *rq)
{
	return rq->priv.queue;
}

static inline bool cfq_rq_prio(const struct sched_request *rq)
{
	/* Filesystems tag metadata REQ_META|REQ_PRIO together; CFQ looks at REQ_PRIO. */
	return (rq->flags & SCHED_RQ_META) != 0;
}

/* A REQ_SYNC write without REQ_IDLE (before 4.10: with REQ_NOIDLE): the writer does not expect
 * to send more soon. */
static inline bool cfq_rq_noidle(const struct sched_request *rq)
{
	return (rq->op == SCHED_OP_WRITE || rq->op == SCHED_OP_FLUSH) &&
	       (rq->flags & (SCHED_RQ_SYNC | SCHED_RQ_IDLE)) == SCHED_RQ_SYNC;
}

static inline struct cfq_rb_root *st_for(struct cfq_group *cfqg, enum cfq_wl_class class,
					 enum cfq_wl_type type)
{
	if (!cfqg)
		return NULL;
	if (class == IDLE_WORKLOAD)
		return &cfqg->service_tree_idle;
	return &cfqg->service_trees[class][type];
}

static inline enum cfq_wl_class cfqq_class(const struct cfq_queue *cfqq)
{
	if (cfq_class_idle(cfqq))
		return IDLE_WORKLOAD;
	if (cfq_class_rt(cfqq))
		return RT_WORKLOAD;
	return BE_WORKLOAD;
}

static inline enum cfq_wl_type cfqq_type(const struct cfq_queue *cfqq)
{
	if (!cfq_cfqq_sync(cfqq))
		return ASYNC_WORKLOAD;
	if (!cfq_cfqq_idle_window(cfqq))
		return SYNC_NOIDLE_WORKLOAD;
	return SYNC_WORKLOAD;
}

static inline bool iops_mode(const struct cfq_data *cfqd)
{
	return !cfqd->p.slice_idle && cfqd->hw_tag;
}

static inline uint32_t cfqq_index(const struct cfq_data *cfqd, const struct cfq_queue *cfqq)
{
	return (uint32_t)(cfqq - cfqd->queues);
}

/* ---- trace (cfq.c) ---- */

void cfq_trace(struct cfq_data *cfqd, const struct cfq_queue *cfqq, const struct cfq_group *cfqg,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#define cfq_log_cfqq(cfqd, cfqq, ...)					\
	do {								\
		if (sched_trace_on((cfqd)->dev->trace))					\
			cfq_trace((cfqd), (cfqq), NULL, __VA_ARGS__);	\
	} while (0)
#define cfq_log_cfqg(cfqd, cfqg, ...)					\
	do {								\
		if (sched_trace_on((cfqd)->dev->trace))					\
			cfq_trace((cfqd), NULL, (cfqg), __VA_ARGS__);	\
	} while (0)
#define cfq_log(cfqd, ...)						\
	do {								\
		if (sched_trace_on((cfqd)->dev->trace))					\
			cfq_trace((cfqd), NULL, NULL, __VA_ARGS__);	\
	} while (0)

/* ---- cfq_rq.c: requests inside a queue, queue lookup, preemption ---- */

void cfq_add_rq_rb(struct cfq_data *cfqd, struct sched_request *rq);
void cfq_dispatch_alias(struct cfq_data *cfqd, struct sched_request *rq); /* cfq.c */
void cfq_remove_request(struct cfq_data *cfqd, struct sched_request *rq);
void cfq_reposition_rq_rb(struct cfq_data *cfqd, struct sched_request *rq);
struct sched_request *cfq_find_next_rq(struct cfq_data *cfqd, struct cfq_queue *cfqq,
				       struct sched_request *last);
void cfq_prio_tree_add(struct cfq_data *cfqd, struct cfq_queue *cfqq);
void cfq_prio_tree_del(struct cfq_queue *cfqq);
struct cfq_queue *cfq_get_queue(struct cfq_data *cfqd, const struct sched_request *rq);
void cfq_init_cfqq(struct cfq_data *cfqd, struct cfq_queue *cfqq, struct cfq_group *cfqg,
		   uint32_t pid, bool is_sync);
void cfq_init_prio_data(struct cfq_queue *cfqq, const struct cfq_io_cq *cic);
void cfqq_boost_on_prio(struct cfq_queue *cfqq, bool prio);
void cfq_put_queue(struct cfq_data *cfqd, struct cfq_queue *cfqq);
void cfq_release_queue(struct cfq_data *cfqd, struct cfq_queue *cfqq);
void cfq_put_cooperator(struct cfq_data *cfqd, struct cfq_queue *cfqq);
void cfq_setup_merge(struct cfq_queue *cfqq, struct cfq_queue *new_cfqq);
bool cfq_should_preempt(struct cfq_data *cfqd, struct cfq_queue *new_cfqq,
			const struct sched_request *rq);
void cfq_preempt_queue(struct cfq_data *cfqd, struct cfq_queue *cfqq);
struct cfq_queue *cfq_close_cooperator(struct cfq_data *cfqd, struct cfq_queue *cur_cfqq);
bool cfq_rq_close(const struct cfq_data *cfqd, const struct sched_request *rq);

/* ---- cfq_service_tree.c: service trees, groups, slices, queue selection ---- */

uint64_t cfq_prio_slice(const struct cfq_data *cfqd, bool sync, unsigned int prio);
uint64_t cfq_scaled_cfqq_slice(struct cfq_data *cfqd, struct cfq_queue *cfqq);
void cfq_set_prio_slice(struct cfq_data *cfqd, struct cfq_queue *cfqq);
bool cfq_slice_used(const struct cfq_data *cfqd, const struct cfq_queue *cfqq);
void cfq_service_tree_add(struct cfq_data *cfqd, struct cfq_queue *cfqq, bool add_front);
void cfq_resort_rr_list(struct cfq_data *cfqd, struct cfq_queue *cfqq);
void cfq_add_cfqq_rr(struct cfq_data *cfqd, struct cfq_queue *cfqq);
void cfq_del_cfqq_rr(struct cfq_data *cfqd, struct cfq_queue *cfqq);
void cfq_init_cfqg_base(struct cfq_data *cfqd, struct cfq_group *cfqg);
void __cfq_slice_expired(struct cfq_data *cfqd, struct cfq_queue *cfqq, bool timed_out,
			 enum cfq_expire_reason why);
void cfq_slice_expired(struct cfq_data *cfqd, bool timed_out, enum cfq_expire_reason why);
struct cfq_queue *cfq_select_queue(struct cfq_data *cfqd);

/* ---- cfq_idle.c: think time, seekiness, idle window, idle timers, hw_tag ---- */

/*
 * The kernel's hweight32, inline: without -mpopcnt (the build targets any x86-64)
 * __builtin_popcount is a call into libgcc, 6% of cfq's time at 64 queues.
 */
static inline unsigned int cfq_hweight32(uint32_t w)
{
	w -= (w >> 1) & 0x55555555u;
	w = (w & 0x33333333u) + ((w >> 2) & 0x33333333u);
	w = (w + (w >> 4)) & 0x0f0f0f0fu;
	return (w * 0x01010101u) >> 24;
}

#define CFQQ_SEEKY(cfqq) (cfq_hweight32((cfqq)->seek_history) > 32 / 8)

bool cfq_io_thinktime_big(const struct cfq_data *cfqd, const struct cfq_ttime *ttime,
			  bool group_idle);
void cfq_update_io_thinktime(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			     struct cfq_io_cq *cic);
void cfq_update_io_seektime(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			    const struct sched_request *rq);
void cfq_update_idle_window(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			    const struct cfq_io_cq *cic);
bool cfq_should_idle(const struct cfq_data *cfqd, const struct cfq_queue *cfqq);
void cfq_arm_slice_timer(struct cfq_data *cfqd);
void cfq_del_timer(struct cfq_data *cfqd);
bool cfq_should_wait_busy(const struct cfq_data *cfqd, const struct cfq_queue *cfqq);
void cfq_update_hw_tag(struct cfq_data *cfqd);
void cfq_idle_slice_timer(struct cfq_data *cfqd);
void cfq_ttime_sample(struct cfq_ttime *ttime, uint64_t now, uint64_t slice_idle);

/* ---- cfq_2632.c: 2.6.32's single service tree CFQ (cfq_sw_rework_2633 off) ---- */

void __cfq_set_active_queue(struct cfq_data *cfqd, struct cfq_queue *cfqq);
void cfq32_service_tree_add(struct cfq_data *cfqd, struct cfq_queue *cfqq, bool add_front);
void cfq32_slice_expired(struct cfq_data *cfqd, struct cfq_queue *cfqq, bool timed_out,
			 enum cfq_expire_reason why);
struct cfq_queue *cfq32_select_queue(struct cfq_data *cfqd);
bool cfq32_rq_close(const struct cfq_data *cfqd, const struct sched_request *rq);
struct cfq_queue *cfq32_close_cooperator(struct cfq_data *cfqd, struct cfq_queue *cur_cfqq,
					 bool probe);
bool cfq32_may_dispatch(struct cfq_data *cfqd, struct cfq_queue *cfqq);
void cfq32_rq_enqueued(struct cfq_data *cfqd, struct cfq_queue *cfqq, struct sched_request *rq);
bool cfq32_completed(struct cfq_data *cfqd, struct cfq_queue *cfqq, struct sched_request *rq);
void cfq32_expire_active(struct cfq_data *cfqd, bool timed_out, enum cfq_expire_reason why);
struct cfq_queue *cfq_cfqq_close(struct cfq_data *cfqd, struct cfq_queue *cur_cfqq);

#endif
