// SPDX-License-Identifier: GPL-2.0
/*
 * CFQ as a policy of the core: tunables, state layout and initialisation, and the ops the core
 * calls (insert, dispatch, completed, timer, entity_exit), after cfq_insert_request,
 * cfq_dispatch_requests, cfq_completed_request, cfq_idle_slice_timer and cfq_exit_icq of Linux
 * 4.19. Counters and the trace hook are at the end.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cfq_internal.h"

#define CFQ_MS_MAX 3600000ll		/* one hour, in ms */
#define CFQ_US_MAX 3600000000ll		/* one hour, in us */
#define CFQ_COUNT_MAX 4294967295ll	/* UINT_MAX, as the kernel's sysfs store */

_Static_assert(CFQ_T_NR <= SCHED_MAX_TUNABLES, "sched_config holds every CFQ tunable");

/* The profiles, oldest first (cfq_era order). */
static const int64_t cfq_versions[] = { CFQ_VERSION_2632, CFQ_VERSION_2636, CFQ_VERSION_316,
					CFQ_VERSION_41,	  CFQ_VERSION_419,  0 };

enum cfq_era cfq_era_of(int64_t version)
{
	for (int e = 0; e < CFQ_ERA_NR; e++)
		if (cfq_versions[e] == version)
			return (enum cfq_era)e;
	return CFQ_ERA_419;
}

static const struct sched_tunable_desc cfq_tunables[CFQ_T_NR] = {
	[CFQ_T_QUANTUM] = { "quantum", "", 1, CFQ_COUNT_MAX, 8,
			    "requests a queue may have in the driver (quantum/2 at slice start)" },
	[CFQ_T_FIFO_EXPIRE_SYNC] = { "fifo_expire_sync", "ms", 1, CFQ_MS_MAX, 125,
				     "sync request deadline, checked once per slice" },
	[CFQ_T_FIFO_EXPIRE_ASYNC] = { "fifo_expire_async", "ms", 1, CFQ_MS_MAX, 250,
				      "async request deadline, checked once per slice" },
	[CFQ_T_BACK_SEEK_MAX] = { "back_seek_max", "KiB", 0, CFQ_COUNT_MAX, 16384,
				  "longest backward seek taken as in front of the head" },
	[CFQ_T_BACK_SEEK_PENALTY] = { "back_seek_penalty", "", 1, CFQ_COUNT_MAX, 2,
				      "cost of a backward seek relative to a forward one" },
	[CFQ_T_SLICE_SYNC] = { "slice_sync", "ms", 1, CFQ_MS_MAX, 100,
			       "base time slice of a sync queue" },
	[CFQ_T_SLICE_SYNC_US] = { "slice_sync_us", "us", 1, CFQ_US_MAX, 100000,
				  "slice_sync in us (wins when given)" },
	[CFQ_T_SLICE_ASYNC] = { "slice_async", "ms", 1, CFQ_MS_MAX, 40,
				"base time slice of an async queue" },
	[CFQ_T_SLICE_ASYNC_US] = { "slice_async_us", "us", 1, CFQ_US_MAX, 40000,
				   "slice_async in us (wins when given)" },
	[CFQ_T_SLICE_ASYNC_RQ] = { "slice_async_rq", "", 1, CFQ_COUNT_MAX, 2,
				   "async queue expires after 2*this*(8-prio) dispatches" },
	[CFQ_T_SLICE_IDLE] = { "slice_idle", "ms", 0, CFQ_MS_MAX, 8,
			       "idle wait for a queue's next request (0 on non-rotational)" },
	[CFQ_T_SLICE_IDLE_US] = { "slice_idle_us", "us", 0, CFQ_US_MAX, 8000,
				  "slice_idle in us (wins when given)" },
	[CFQ_T_GROUP_IDLE] = { "group_idle", "ms", 0, CFQ_MS_MAX, 8,
			       "idle wait for a group's last queue" },
	[CFQ_T_GROUP_IDLE_US] = { "group_idle_us", "us", 0, CFQ_US_MAX, 8000,
				  "group_idle in us (wins when given)" },
	[CFQ_T_LOW_LATENCY] = { "low_latency", "", 0, 1, 1,
				"scale slices to fit target_latency; ramp async depth" },
	[CFQ_T_TARGET_LATENCY] = { "target_latency", "ms", 1, CFQ_MS_MAX, 300,
				   "time in which every busy queue of a group should be served" },
	[CFQ_T_TARGET_LATENCY_US] = { "target_latency_us", "us", 1, CFQ_US_MAX, 300000,
				      "target_latency in us (wins when given)" },
	[CFQ_T_GROUP_ISOLATION] = { "group_isolation", "", 0, 1, 0,
				    "1: sync-noidle queues stay in their group; 0: served in the root "
				    "group (2.6.33 to 2.6.3x only, cfq_sw_noidle_in_group off)" },
	[CFQ_T_VERSION] = { "cfq_version", "version", CFQ_VERSION_2632, CFQ_VERSION_419,
			    CFQ_VERSION_419,
			    "behaviour profile: the kernel whose CFQ runs (2.6.32: the 2009 seed's, "
			    "2.6.36: the 2010 seed's, 4.1: the 2015 seed's...); sets the "
			    "cfq_sw_* switches not given",
			    cfq_versions },
	[CFQ_T_HZ] = { "cfq_hz", "Hz", 100, 1000, 250,
		       "the kernel's HZ: 100, 250 or 1000 (the jiffy clock before 4.10, the "
		       "one-jiffy constants)" },
	[CFQ_T_SW_NS_CLOCK] = { "cfq_sw_ns_clock", "", 0, 1, 1,
				"profile switch: times in ns, the idle timer an hrtimer, the *_us "
				"tunables (4.10; off: jiffies at cfq_hz)" },
	[CFQ_T_SW_ASYNC_IN_GROUP] = { "cfq_sw_async_in_group", "", 0, 1, 1,
				      "profile switch: async queues per group (4.2; off: shared, "
				      "in the root group)" },
	[CFQ_T_SW_FIFO_MUST_DISPATCH] = { "cfq_sw_fifo_must_dispatch", "", 0, 1, 1,
					  "profile switch: an expired FIFO head dispatches past "
					  "the depth limits (4.9)" },
	[CFQ_T_SW_PARENT_PREEMPT] = { "cfq_sw_parent_preempt", "", 0, 1, 1,
				      "profile switch: an ancestor group's queue may preempt "
				      "(4.5; off: the same group only)" },
	[CFQ_T_SW_NOIDLE_PREEMPT] = { "cfq_sw_noidle_preempt", "", 0, 1, 1,
				      "profile switch: sync-noidle preempts sync-noidle whatever "
				      "the tree's count (4.5; off: two queues only)" },
	[CFQ_T_SW_GROUP_IDLE_TT] = { "cfq_sw_group_idle_tt", "", 0, 1, 1,
				     "profile switch: no group idle when the tree thinks longer "
				     "than group_idle (4.5)" },
	[CFQ_T_SW_GROUP_IDLE_NONROT] = { "cfq_sw_group_idle_nonrot", "", 0, 1, 1,
					 "profile switch: group idle on a queueing "
					 "non-rotational device (off: no idling there)" },
	[CFQ_T_SW_SSD_IOPS] = { "cfq_sw_ssd_iops", "", 0, 1, 1,
				"profile switch: slice_idle 0 (IOPS mode) on a non-rotational "
				"device unless given (4.2)" },
	[CFQ_T_SW_IDLE_KEY_NOW] = { "cfq_sw_idle_key_now", "", 0, 1, 1,
				    "profile switch: an idle-class queue keyed 200 ms after now "
				    "(4.14; off: after the tree's last queue)" },
	[CFQ_T_SW_PRIO_BOOST] = { "cfq_sw_prio_boost", "", 0, 1, 1,
				  "profile switch: a REQ_PRIO request lifts its queue to BE, "
				  "level 4 at most (4.6)" },
	[CFQ_T_SW_NOIDLE_IN_GROUP] = { "cfq_sw_noidle_in_group", "", 0, 1, 1,
				       "profile switch: sync-noidle queues stay in their group "
				       "(off: group_isolation decides)" },
	[CFQ_T_SW_VFRACTION_CHARGE] = { "cfq_sw_vfraction_charge", "", 0, 1, 1,
					"profile switch: a group's charge scales by its vfraction "
					"(off: by 500 / weight)" },
	[CFQ_T_SW_VFRACTION_SLICE] = { "cfq_sw_vfraction_slice", "", 0, 1, 1,
				       "profile switch: a group's slice is target_latency x "
				       "vfraction (off: x weight / busy groups' weight)" },
	[CFQ_T_SW_WAIT_BUSY_QUEUED] = { "cfq_sw_wait_busy_queued", "", 0, 1, 1,
					"profile switch: no busy wait for a queue that has "
					"requests" },
	[CFQ_T_SW_GROUP_TTIME] = { "cfq_sw_group_ttime", "", 0, 1, 1,
				   "profile switch: no group idle or busy wait for a group thinking "
				   "longer than group_idle" },
	[CFQ_T_SW_TREE_TTIME] = { "cfq_sw_tree_ttime", "", 0, 1, 1,
				  "profile switch: a tree's last queue idles only if the tree "
				  "thinks less than slice_idle" },
	[CFQ_T_SW_DEEP_SEEKY_FAST] = { "cfq_sw_deep_seeky_fast", "", 0, 1, 1,
				       "profile switch: a deep seeky queue the device outpaces "
				       "stops idling" },
	[CFQ_T_SW_NOIDLE_WINDOW] = { "cfq_sw_noidle_window", "", 0, 1, 1,
				     "profile switch: a REQ_NOIDLE request ends its queue's idle "
				     "window (off: the sync-noidle tree idles after one without)" },
	[CFQ_T_SW_SOLE_SYNC] = { "cfq_sw_sole_sync", "", 0, 1, 1,
				 "profile switch: the only busy sync queue dispatches without "
				 "limit" },
	[CFQ_T_SW_CLASS_NEW_WORKLOAD] = { "cfq_sw_class_new_workload", "", 0, 1, 1,
					  "profile switch: a change of class chooses the workload "
					  "type anew" },
	[CFQ_T_SW_RESID_NEW] = { "cfq_sw_resid_new", "", 0, 1, 1,
				 "profile switch: a queue preempted before its first completion "
				 "keeps its whole slice" },
	[CFQ_T_SW_PREEMPT_NEW_TYPE] = { "cfq_sw_preempt_new_type", "", 0, 1, 1,
					"profile switch: a preemption by another workload type "
					"drops the group's saved workload slice" },
	[CFQ_T_SW_PREEMPT_NOT_IDLING] = { "cfq_sw_preempt_not_idling", "", 0, 1, 1,
					  "profile switch: an empty active queue that should not "
					  "idle is preempted" },
	[CFQ_T_SW_SAME_SECTOR] = { "cfq_sw_same_sector", "", 0, 1, 1,
				   "profile switch: two requests of a queue may start at one sector "
				   "(off: the first goes to the dispatch list, elv_rb_add()'s alias)" },
	[CFQ_T_SW_TTIME_SYNC] = { "cfq_sw_ttime_sync", "", 0, 1, 1,
				  "profile switch: a process's think time counts its sync requests "
				  "only (off: its async writes too)" },
	[CFQ_T_SW_REWORK_2633] = { "cfq_sw_rework_2633", "", 0, 1, 1,
				   "profile switch (era): 2.6.33's rework, workload service trees, "
				   "groups, seek_history, merged cooperators (off: 2.6.32's single "
				   "service tree, seek_mean, cooperators switched to, quantum 4)" },
	[CFQ_T_SW_PER_GROUP_RL] = { "cfq_sw_per_group_rl", "", 0, 1, 1,
				    "profile switch: the legacy block layer allocates each group's "
				    "requests from a request list of its own, nr_requests each "
				    "(3.6; off: one list for every group)" },
};

/*
 * The upstream change behind each profile switch: its commit (id where one was found, checked
 * against a copy of the commit; "unverified" where the title is known but no copy was found),
 * its release, and the first profile that has it (the switch's default from that one on). The
 * switch's code was written from the difference between the two versions' cfq-iosched.c.
 */
struct cfq_switch_info {
	const char *id;		/* 12 hex digits, or "unverified" */
	const char *title;	/* and author */
	const char *release;
	enum cfq_era since;
	const char *note;	/* what changed, where the title does not say it */
};

static const struct cfq_switch_info cfq_switch_info[CFQ_SW_NR] = {
	[CFQ_SW_NS_CLOCK] = { "unverified",
			      "\"cfq-iosched: Convert from jiffies to nanoseconds\" and \"cfq-iosched: "
			      "Convert to use highres timers\" (Jan Kara)", "4.10", CFQ_ERA_419,
			      "added the *_us tunables" },
	[CFQ_SW_ASYNC_IN_GROUP] = { "unverified",
				    "\"cfq-iosched: make cfq_get_queue() and async queues per "
				    "cfq_group\" (Tejun Heo, cgroup writeback series)", "4.2",
				    CFQ_ERA_419,
				    "cfqd->async_cfqq moved to cfq_group; cfq_link_cfqq_cfqg() no longer "
				    "maps async queues to the root group" },
	[CFQ_SW_FIFO_MUST_DISPATCH] = { "3932a86b4b9d",
					"\"cfq: fix starvation of asynchronous writes\" (Glauber "
					"Costa)", "4.9", CFQ_ERA_419, NULL },
	[CFQ_SW_PARENT_PREEMPT] = { "unverified",
				    "\"cfq-iosched: Allow parent cgroup to preempt its child\" (Jan "
				    "Kara)", "4.5", CFQ_ERA_419, NULL },
	[CFQ_SW_NOIDLE_PREEMPT] = { "unverified",
				    "\"cfq-iosched: Allow sync noidle workloads to preempt each "
				    "other\" (Jan Kara)", "4.5", CFQ_ERA_419, NULL },
	[CFQ_SW_GROUP_IDLE_TT] = { "unverified",
				   "\"cfq-iosched: Don't group_idle if cfqq has big thinktime\" (Jan "
				   "Kara)", "4.5", CFQ_ERA_419, NULL },
	[CFQ_SW_GROUP_IDLE_NONROT] = { "unverified", "title not found",
				       "between 4.1 and 4.19", CFQ_ERA_419,
				       "the '!cfqd->cfq_group_idle' clause of cfq_arm_slice_timer()'s "
				       "non-rotational test" },
	[CFQ_SW_SSD_IOPS] = { "41c0126b3f22",
			      "\"block: Make CFQ default to IOPS mode on SSDs\" (Tahsin Erdogan)",
			      "4.2", CFQ_ERA_419,
			      "later done at registration (cfq_registered_queue())" },
	[CFQ_SW_IDLE_KEY_NOW] = { "unverified",
				  "\"block/cfq: cache rightmost rb_node\" (Davidlohr Bueso)", "4.14",
				  CFQ_ERA_419,
				  "cfq_service_tree_add() reads a queue tree's rb_rightmost, which only "
				  "the group tree maintains" },
	[CFQ_SW_PRIO_BOOST] = { "unverified",
				"\"cfq-iosched: temporarily boost queue priority for meta data\" "
				"(Jens Axboe)", "4.6", CFQ_ERA_419, "cfqq_boost_on_prio(), absent from 4.1" },
	[CFQ_SW_NOIDLE_IN_GROUP] = { "unverified",
				     "\"cfq-iosched: Get rid of tunable group_isolation\" (Vivek "
				     "Goyal)", "2.6.37 to 3.x", CFQ_ERA_316,
				     "2.6.36's cfq_service_tree_add() moved a group's sync-noidle queue "
				     "to the root group unless group_isolation=1 (ae30c286553c "
				     "\"blkio: Implement group_isolation tunable\", 2.6.33)" },
	[CFQ_SW_VFRACTION_CHARGE] = { "1d3650f713e7",
				      "\"cfq-iosched: implement hierarchy-ready cfq_group charge "
				      "scaling\" (Tejun Heo)", "3.10", CFQ_ERA_316,
				      "vdisktime += charge << 24 / vfraction; before, charge << 12 x "
				      "500 / weight" },
	[CFQ_SW_VFRACTION_SLICE] = { "unverified",
				     "\"cfq-iosched: convert cfq_group_slice() to use "
				     "cfqg->vfraction\" (Tejun Heo)", "3.10", CFQ_ERA_316,
				     "before: target_latency x weight / the total weight of the groups "
				     "on the service tree" },
	[CFQ_SW_WAIT_BUSY_QUEUED] = { "unverified",
				      "\"cfq-iosched: Don't wait if queue already has requests.\"",
				      "2.6.37", CFQ_ERA_316,
				      "cfq_should_wait_busy(); a 2.6.36.y stable copy has it too" },
	[CFQ_SW_GROUP_TTIME] = { "unverified", "group think time (cfqg->ttime) for group_idle "
				 "(Shaohua Li)", "3.x", CFQ_ERA_316,
				 "cfq_select_queue()'s group idle and cfq_should_wait_busy() skip a "
				 "group thinking longer than group_idle" },
	[CFQ_SW_TREE_TTIME] = { "unverified", "service tree think time (st->ttime) (Shaohua Li)",
				"3.x", CFQ_ERA_316,
				"cfq_should_idle(): the last queue of a tree thinking longer than "
				"slice_idle does not idle" },
	[CFQ_SW_DEEP_SEEKY_FAST] = { "unverified", "title not found", "2.6.37 to 3.16",
				     CFQ_ERA_316,
				     "cfq_select_queue(): 'This is a deep seek queue, but the device "
				     "is much faster than the queue can deliver, don't idle'" },
	[CFQ_SW_NOIDLE_WINDOW] = { "unverified", "title not found", "2.6.37 to 3.16",
				   CFQ_ERA_316,
				   "cfq_update_idle_window() clears the idle window for a REQ_NOIDLE "
				   "next_rq, and cfq_completed_request() drops "
				   "noidle_tree_requires_idle" },
	[CFQ_SW_SOLE_SYNC] = { "unverified", "title not found (Shaohua Li; 'useful for "
			       "aiostress test')", "2.6.37 to 3.16", CFQ_ERA_316,
			       "cfq_may_dispatch()'s promote_sync, cfqd->busy_sync_queues" },
	[CFQ_SW_CLASS_NEW_WORKLOAD] = { "unverified", "title not found", "2.6.37 to 3.16",
					CFQ_ERA_316,
					"choose_wl_class_and_type(): a class other than the last "
					"served one goes to new_workload" },
	[CFQ_SW_RESID_NEW] = { "unverified", "title not found", "2.6.37 to 3.16", CFQ_ERA_316,
			       "__cfq_slice_expired(): a timed-out queue still slice_new keeps "
			       "cfq_scaled_cfqq_slice() as its residual" },
	[CFQ_SW_PREEMPT_NEW_TYPE] = { "unverified", "title not found", "2.6.37 to 3.16",
				      CFQ_ERA_316,
				      "cfq_preempt_queue(): 'workload type is changed, don't save "
				      "slice, otherwise preempt doesn't happen'" },
	[CFQ_SW_PREEMPT_NOT_IDLING] = { "unverified", "title not found", "2.6.37 to 3.16",
					CFQ_ERA_316,
					"cfq_should_preempt(): 'An idle queue should not be idle "
					"now for some reason'" },
	[CFQ_SW_SAME_SECTOR] = { "unverified", "title not found", "2.6.37 to 3.16", CFQ_ERA_316,
				 "elv_rb_add() returned a request of the same sector (an alias), "
				 "which cfq_add_rq_rb() dispatched at once" },
	[CFQ_SW_TTIME_SYNC] = { "unverified", "struct cfq_ttime (Shaohua Li)", "3.x", CFQ_ERA_316,
				"cfq_update_io_thinktime(): 2.6.36 sampled the io context's think "
				"time at every request, async ones too" },
	[CFQ_SW_REWORK_2633] = { "unverified",
				 "era switch for a set of 2.6.33 commits, each too wide for a switch "
				 "of its own: \"cfq-iosched: reimplement priorities using different "
				 "service trees\", \"cfq-iosched: enable idling for last queue on "
				 "priority class\", \"cfq-iosched: fairness for sync no-idle queues\" "
				 "and \"cfq-iosched: rework seeky detection\" (Corrado Zoccolo), "
				 "\"blkio: Introduce the root service tree for cfq groups\" and the "
				 "rest of the cfq groups series (Vivek Goyal), \"cfq: Merge "
				 "cooperating cfq_queues\" and \"cfq: change the meaning of the "
				 "cfqq_coop flag\" (Jeff Moyer), the quantum of 8 with quantum/2 at "
				 "slice start; ids not verified here",
				 "2.6.33", CFQ_ERA_2636,
				 "off: 2.6.32 (sched/cfq_2632.c): one service tree sorted RT first, "
				 "idle last, then rb_key offset by busy_queues; prio-length slices; "
				 "seekiness as cic->seek_mean; a close cooperator within the active "
				 "process's mean seek distance is switched to (coop, coop_preempt); "
				 "queues leave the tree when empty; quantum 4 (x4 for the sole queue); "
				 "hw_tag assumed until measured, measured anew every 50 samples" },
	[CFQ_SW_PER_GROUP_RL] = { "a051661ca6d1",
				  "\"blkcg: implement per-blkg request allocation\" (Tejun Heo)", "3.6",
				  CFQ_ERA_316,
				  "a block layer change, not cfq-iosched.c's: blk_get_rl() gives a bio "
				  "its blkg's request_list (the root group q->root_rl), each with "
				  "nr_requests, its own full/starved flags, waiters and congestion "
				  "(blk-core.c __get_request(), freed_request()); blk/ reads it "
				  "through sched_config_per_group_rl()" },
};

const char *cfq_switch_name(enum cfq_switch sw)
{
	return (unsigned int)sw < CFQ_SW_NR ? cfq_tunables[CFQ_T_SW_NS_CLOCK + sw].name : "?";
}

/* "id title (release)[: note]", e.g. for the documentation's table. */
const char *cfq_switch_commit(enum cfq_switch sw)
{
	static _Thread_local char buf[CFQ_SW_NR][400];
	const struct cfq_switch_info *i;

	if ((unsigned int)sw >= CFQ_SW_NR)
		return "?";
	i = &cfq_switch_info[sw];
	snprintf(buf[sw], sizeof(buf[sw]), "%s %s (%s)%s%s", i->id, i->title, i->release,
		 i->note ? ": " : "", i->note ? i->note : "");
	return buf[sw];
}

enum cfq_era cfq_switch_since(enum cfq_switch sw)
{
	return (unsigned int)sw < CFQ_SW_NR ? cfq_switch_info[sw].since : CFQ_ERA_419;
}

#define CFQ_BLKIO_WEIGHT_MIN_2636 100u /* BLKIO_WEIGHT_MIN, 10 by 3.16 */

#define ALIGN16(x) (((x) + 15) & ~(size_t)15)

/* Sync queues: two slots per process (cfqd->queues), the OOM queue, the async queues. */
static size_t cfq_nr_queues(const struct sched_config *cfg)
{
	return 2 * (size_t)cfg->max_entities + 1 + (size_t)cfg->max_groups * CFQ_ASYNC_PER_GROUP;
}

static size_t cfq_state_size(const struct sched_config *cfg)
{
	/* The block is 16-byte aligned; the queues start at the next cache line in it. */
	return ALIGN16(sizeof(struct cfq_data)) +
	       ALIGN16(cfg->max_entities * sizeof(struct cfq_io_cq)) +
	       ALIGN16(cfg->max_groups * sizeof(struct cfq_group)) +
	       (_Alignof(struct cfq_queue) - 16) + cfq_nr_queues(cfg) * sizeof(struct cfq_queue) +
	       2 * ALIGN16(cfq_nr_queues(cfg) * sizeof(struct cfq_qnode));
}

/* A time tunable in ns: the _us variant when given, else the ms one. */
static uint64_t cfq_time_param(const struct sched_config *cfg, enum cfq_tunable ms,
			       enum cfq_tunable us)
{
	if (cfg->tunable_given[us])
		return (uint64_t)cfg->tunable[us] * SCHED_NS_PER_US;
	return (uint64_t)cfg->tunable[ms] * SCHED_NS_PER_MS;
}

/* msecs_to_jiffies() for an HZ that divides 1000. */
static uint64_t cfq_ms_to_jiffies(uint64_t ms, uint32_t hz)
{
	uint64_t per = 1000 / hz;

	return (ms + per - 1) / per;
}

/*
 * A time tunable in jiffies (cfq_sw_ns_clock off): msecs_to_jiffies() of the ms written to
 * sysfs, else the kernel's HZ-based default (HZ / div, at least one jiffy where the module's init
 * made it so).
 */
static uint64_t cfq_jiffy_param(const struct sched_config *cfg, enum cfq_tunable ms, uint32_t hz,
				uint64_t def, bool min1)
{
	if (cfg->tunable_given[ms])
		return cfq_ms_to_jiffies((uint64_t)cfg->tunable[ms], hz);
	return min1 && !def ? 1 : def;
}

static void cfq_load_jiffy_params(struct cfq_params *p, const struct sched_config *cfg)
{
	uint32_t hz = p->hz;

	p->fifo_expire[1] = cfq_jiffy_param(cfg, CFQ_T_FIFO_EXPIRE_SYNC, hz, hz / 8, false);
	p->fifo_expire[0] = cfq_jiffy_param(cfg, CFQ_T_FIFO_EXPIRE_ASYNC, hz, hz / 4, false);
	p->slice[1] = cfq_jiffy_param(cfg, CFQ_T_SLICE_SYNC, hz, hz / 10, false);
	p->slice[0] = cfq_jiffy_param(cfg, CFQ_T_SLICE_ASYNC, hz, hz / 25, true);
	p->slice_idle = cfq_jiffy_param(cfg, CFQ_T_SLICE_IDLE, hz, hz / 125, true);
	p->group_idle = cfq_jiffy_param(cfg, CFQ_T_GROUP_IDLE, hz, hz / 125, true);
	p->target_latency = cfq_jiffy_param(cfg, CFQ_T_TARGET_LATENCY, hz, hz * 3 / 10, false);
}

static void cfq_load_params(struct cfq_data *cfqd, const struct sched_config *cfg)
{
	struct cfq_params *p = &cfqd->p;

	p->version = (uint32_t)cfg->tunable[CFQ_T_VERSION];
	p->era = cfq_era_of(cfg->tunable[CFQ_T_VERSION]);
	p->hz = (uint32_t)cfg->tunable[CFQ_T_HZ];
	for (int i = 0; i < CFQ_SW_NR; i++) {
		int t = CFQ_T_SW_NS_CLOCK + i;

		p->sw[i] = cfg->tunable_given[t] ? cfg->tunable[t] != 0
						 : p->era >= cfq_switch_info[i].since;
	}
	p->quantum = (uint32_t)cfg->tunable[CFQ_T_QUANTUM];
	p->fifo_expire[1] = (uint64_t)cfg->tunable[CFQ_T_FIFO_EXPIRE_SYNC] * SCHED_NS_PER_MS;
	p->fifo_expire[0] = (uint64_t)cfg->tunable[CFQ_T_FIFO_EXPIRE_ASYNC] * SCHED_NS_PER_MS;
	p->back_max = (uint32_t)cfg->tunable[CFQ_T_BACK_SEEK_MAX];
	p->back_penalty = (uint32_t)cfg->tunable[CFQ_T_BACK_SEEK_PENALTY];
	p->slice[1] = cfq_time_param(cfg, CFQ_T_SLICE_SYNC, CFQ_T_SLICE_SYNC_US);
	p->slice[0] = cfq_time_param(cfg, CFQ_T_SLICE_ASYNC, CFQ_T_SLICE_ASYNC_US);
	p->slice_async_rq = (uint32_t)cfg->tunable[CFQ_T_SLICE_ASYNC_RQ];
	p->slice_idle = cfq_time_param(cfg, CFQ_T_SLICE_IDLE, CFQ_T_SLICE_IDLE_US);
	p->group_idle = cfq_time_param(cfg, CFQ_T_GROUP_IDLE, CFQ_T_GROUP_IDLE_US);
	p->latency = cfg->tunable[CFQ_T_LOW_LATENCY] != 0;
	p->target_latency = cfq_time_param(cfg, CFQ_T_TARGET_LATENCY, CFQ_T_TARGET_LATENCY_US);
	p->group_isolation = cfg->tunable[CFQ_T_GROUP_ISOLATION] != 0;
	if (!p->sw[CFQ_SW_NS_CLOCK])
		cfq_load_jiffy_params(p, cfg);
	/* 2.6.32's cfq_quantum was 4. */
	if (!p->sw[CFQ_SW_REWORK_2633] && !cfg->tunable_given[CFQ_T_QUANTUM])
		p->quantum = 4;
	/* cfq_registered_queue (the 2015 fix): no idling, IOPS mode, on non-rotational. */
	if (p->sw[CFQ_SW_SSD_IOPS] && cfqd->nonrot && !cfg->tunable_given[CFQ_T_SLICE_IDLE] &&
	    !cfg->tunable_given[CFQ_T_SLICE_IDLE_US])
		p->slice_idle = 0;
}

/* What cfq's sysfs shows: the ms/us time tunables from the parameters in force. */
static int64_t cfq_tunable_value(const void *st, unsigned int idx)
{
	const struct cfq_data *cfqd = st;
	const struct cfq_params *p = &cfqd->p;

	if (idx >= CFQ_T_SW_NS_CLOCK && idx < CFQ_T_SW_NS_CLOCK + CFQ_SW_NR)
		return p->sw[idx - CFQ_T_SW_NS_CLOCK];
	if (cfqd->jclock) {
		/* jiffies_to_msecs() of what is in force; no *_us files before 4.10. */
		uint64_t ms_per = 1000 / p->hz;

		switch (idx) {
		case CFQ_T_FIFO_EXPIRE_SYNC: return (int64_t)(p->fifo_expire[1] * ms_per);
		case CFQ_T_FIFO_EXPIRE_ASYNC: return (int64_t)(p->fifo_expire[0] * ms_per);
		case CFQ_T_SLICE_SYNC: return (int64_t)(p->slice[1] * ms_per);
		case CFQ_T_SLICE_ASYNC: return (int64_t)(p->slice[0] * ms_per);
		case CFQ_T_SLICE_IDLE: return (int64_t)(p->slice_idle * ms_per);
		case CFQ_T_GROUP_IDLE: return (int64_t)(p->group_idle * ms_per);
		case CFQ_T_TARGET_LATENCY: return (int64_t)(p->target_latency * ms_per);
		default: return cfqd->cfg->tunable[idx];
		}
	}
	switch (idx) {
	case CFQ_T_SLICE_SYNC: return (int64_t)(p->slice[1] / SCHED_NS_PER_MS);
	case CFQ_T_SLICE_SYNC_US: return (int64_t)(p->slice[1] / SCHED_NS_PER_US);
	case CFQ_T_SLICE_ASYNC: return (int64_t)(p->slice[0] / SCHED_NS_PER_MS);
	case CFQ_T_SLICE_ASYNC_US: return (int64_t)(p->slice[0] / SCHED_NS_PER_US);
	case CFQ_T_SLICE_IDLE: return (int64_t)(p->slice_idle / SCHED_NS_PER_MS);
	case CFQ_T_SLICE_IDLE_US: return (int64_t)(p->slice_idle / SCHED_NS_PER_US);
	case CFQ_T_GROUP_IDLE: return (int64_t)(p->group_idle / SCHED_NS_PER_MS);
	case CFQ_T_GROUP_IDLE_US: return (int64_t)(p->group_idle / SCHED_NS_PER_US);
	case CFQ_T_TARGET_LATENCY: return (int64_t)(p->target_latency / SCHED_NS_PER_MS);
	case CFQ_T_TARGET_LATENCY_US: return (int64_t)(p->target_latency / SCHED_NS_PER_US);
	default: return cfqd->cfg->tunable[idx];
	}
}

static int cfq_init(void *st, const struct sched_config *cfg, const struct sched_device *dev,
		    uint64_t now)
{
	struct cfq_data *cfqd = st;
	char *mem = st;
	size_t off = ALIGN16(sizeof(struct cfq_data));
	uint32_t nr_ent = cfg->max_entities, nr_grp = cfg->max_groups;

	memset(st, 0, cfq_state_size(cfg));
	cfqd->cfg = cfg;
	cfqd->dev = dev;
	cfqd->nonrot = !cfg->rotational;
	cfq_load_params(cfqd, cfg);
	/* The clock: jiffies before 4.10, counted from INITIAL_JIFFIES at this start. */
	cfqd->jclock = !cfqd->p.sw[CFQ_SW_NS_CLOCK];
	cfqd->tick_ns = CFQ_NSEC_PER_SEC / cfqd->p.hz;
	cfqd->epoch_ns = now;
	cfqd->t_jiffy = cfqd->jclock ? 1 : cfqd->tick_ns;
	cfqd->t_sec = cfqd->jclock ? cfqd->p.hz : CFQ_NSEC_PER_SEC;
	cfq_set_now(cfqd, now);
	now = cfqd->now;

	cfqd->cics = (struct cfq_io_cq *)(mem + off);
	off += ALIGN16(nr_ent * sizeof(struct cfq_io_cq));
	cfqd->groups = (struct cfq_group *)(mem + off);
	off += ALIGN16(nr_grp * sizeof(struct cfq_group));
	cfqd->queues =
	    (struct cfq_queue *)(((uintptr_t)(mem + off) + _Alignof(struct cfq_queue) - 1) &
				 ~(uintptr_t)(_Alignof(struct cfq_queue) - 1));
	cfqd->nr_cics = nr_ent;
	cfqd->nr_groups = nr_grp;
	cfqd->nr_queues = (uint32_t)cfq_nr_queues(cfg);
	cfqd->st_nodes = (struct cfq_qnode *)(cfqd->queues + cfqd->nr_queues);
	cfqd->p_nodes = (struct cfq_qnode *)((char *)cfqd->st_nodes +
					     ALIGN16(cfqd->nr_queues * sizeof(struct cfq_qnode)));
	for (uint32_t i = 0; i < cfqd->nr_queues; i++) {
		cfqd->queues[i].st = &cfqd->st_nodes[i];
		cfqd->queues[i].p = &cfqd->p_nodes[i];
	}

	for (uint32_t i = 0; i < nr_ent; i++)
		cfqd->cics[i].ioprio_class = -1;

	sched_rb_init(&cfqd->grp_service_tree.rb);
	cfqd->grp_service_tree.ttime.last_end_request = now;
	cfqd->root_group = &cfqd->groups[0];
	for (uint32_t g = 0; g < nr_grp; g++) {
		struct cfq_group *cfqg = &cfqd->groups[g];
		struct cfq_queue *async = &cfqd->queues[2 * nr_ent + 1 + g * CFQ_ASYNC_PER_GROUP];

		cfqg->index = g;
		cfqg->parent = g ? cfqd->root_group : NULL;
		/* The root's weight file is its leaf weight (its own tasks vs child groups). */
		cfqg->weight = cfg->group_weight[g];
		cfqg->leaf_weight = cfg->group_weight[g];
		/* The root's blkg exists with the queue; the others' come with their first
		 * request (cfq_group_online()). */
		if (!g) {
			cfq_init_cfqg_base(cfqd, cfqg);
			cfqg->online = true;
		}
		for (int l = 0; l < SCHED_IOPRIO_NR_LEVELS; l++) {
			cfqg->async_cfqq[0][l] = &async[l];
			cfqg->async_cfqq[1][l] = &async[SCHED_IOPRIO_NR_LEVELS + l];
		}
		cfqg->async_idle_cfqq = &async[2 * SCHED_IOPRIO_NR_LEVELS];
		cfqd->stats.group[g].weight = cfqg->weight;
	}
	for (int i = 0; i < CFQ_PRIO_LISTS; i++)
		sched_rb_init(&cfqd->prio_trees[i]);
	sched_list_init(&cfqd->dispatch_list);
	/* cfq_init_queue(): the OOM queue, pid 1, async-looking, in the root group, pinned. */
	cfqd->oom_cfqq = &cfqd->queues[2 * nr_ent];
	cfq_init_cfqq(cfqd, cfqd->oom_cfqq, cfqd->root_group, 1, false);
	cfqd->oom_cfqq->pref = 1;

	cfqd->serving_wl_class = BE_WORKLOAD;
	cfqd->serving_wl_type = ASYNC_WORKLOAD;
	/* 2.6.32 assumed queueing until measured. */
	cfqd->hw_tag = cfq_2632(cfqd) ? 1 : -1;
	cfqd->stats.hw_tag = cfqd->hw_tag;
	cfqd->last_end_sync_rq = now;
	/* Assume sync I/O was not delayed in the last second: async may start deeper. */
	cfqd->last_delayed_sync = now - cfqd->t_sec;
	return 0;
}

/* ---- insert ---- */

/*
 * A group's cfq_group is made with its blkg, at the first bio of its cgroup on the queue
 * (blkg_lookup_create() -> cfq_pd_alloc() -> cfq_init_cfqg_base()): its service trees' and its
 * own think time count from then, not from the scheduler's start.
 */
static void cfq_group_online(struct cfq_data *cfqd, struct cfq_group *cfqg)
{
	if (cfqg->online)
		return;
	cfq_init_cfqg_base(cfqd, cfqg);
	cfqg->online = true;
}

static void cfq_rq_enqueued(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			    struct sched_request *rq)
{
	struct cfq_io_cq *cic = &cfqd->cics[rq->owner];

	if (cfq_2632(cfqd)) {
		cfq32_rq_enqueued(cfqd, cfqq, rq);
		return;
	}
	cfqd->rq_queued++;
	if (cfq_rq_prio(rq))
		cfqq->prio_pending++;

	cfq_update_io_thinktime(cfqd, cfqq, cic);
	cfq_update_io_seektime(cfqd, cfqq, rq);
	cfq_update_idle_window(cfqd, cfqq, cic);
	cfqq->last_request_pos = sched_rq_pos(rq) + sched_rq_sectors(rq);

	if (cfqq == cfqd->active_queue) {
		if (cfq_cfqq_wait_request(cfqq)) {
			/* The idling paid off. */
			cfqd->stats.idle_hits++;
			if (rq->length > CFQ_PAGE_SIZE || cfqd->busy_queues > 1) {
				cfq_del_timer(cfqd);
				cfq_clear_cfqq_wait_request(cfqq);
			} else {
				/* Small request on an otherwise idle disk: let it merge a bit. */
				cfq_mark_cfqq_must_dispatch(cfqq);
			}
		}
	} else if (cfq_should_preempt(cfqd, cfqq, rq)) {
		cfq_preempt_queue(cfqd, cfqq);
	}
}

static void cfq_insert(void *st, struct sched_request *rq, uint64_t now)
{
	struct cfq_data *cfqd = st;
	struct cfq_queue *cfqq;
	bool sync = sched_rq_is_sync(rq);

	cfq_set_now(cfqd, now);
	now = cfqd->now;
	cfq_group_online(cfqd, &cfqd->groups[rq->group]);
	cfqq = cfq_get_queue(cfqd, rq);
	/* cfq_may_queue: prio data and REQ_PRIO boost, then the insert proper. */
	cfq_init_prio_data(cfqq, &cfqd->cics[rq->owner]);
	if (cfq_sw(cfqd, CFQ_SW_PRIO_BOOST))
		cfqq_boost_on_prio(cfqq, cfq_rq_prio(rq));
	rq->priv.queue = cfqq;
	/* RQ_CFQG(): the group of the queue when the request was allocated; a queue moved to
	 * the root group without group_isolation (2.6.3x) counts its requests there. */
	rq->priv.aux = cfqq->cfqg->index;
	cfq_log_cfqq(cfqd, cfqq, "insert_request");

	rq->priv.fifo_time = now + cfqd->p.fifo_expire[sync];
	sched_list_add_tail(&rq->priv.fifo, &cfqq->fifo);
	cfq_add_rq_rb(cfqd, rq);
	cfq_rq_enqueued(cfqd, cfqq, rq);
}

/* ---- dispatch ---- */

/* The expired FIFO head, checked once per slice; NULL to go by sector order. */
static struct sched_request *cfq_check_fifo(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	struct sched_request *rq;

	if (cfq_cfqq_fifo_expire(cfqq))
		return NULL;
	cfq_mark_cfqq_fifo_expire(cfqq);
	if (sched_list_empty(&cfqq->fifo))
		return NULL;
	rq = sched_list_first_entry(&cfqq->fifo, struct sched_request, priv.fifo);
	if ((int64_t)(cfqd->now - rq->priv.fifo_time) < 0)
		return NULL;
	return rq;
}

static int cfq_prio_to_maxrq(const struct cfq_data *cfqd, const struct cfq_queue *cfqq)
{
	return 2 * (int)cfqd->p.slice_async_rq * (SCHED_IOPRIO_NR_LEVELS - cfqq->ioprio);
}

static bool cfq_slice_used_soon(const struct cfq_data *cfqd, const struct cfq_queue *cfqq)
{
	if (cfq_cfqq_slice_new(cfqq))
		return true;
	return cfqd->now + cfqd->p.slice_idle * (uint64_t)cfqq->dispatched > cfqq->slice_end;
}

static bool cfq_may_dispatch(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	unsigned int max_dispatch;

	if (cfq_2632(cfqd))
		return cfq32_may_dispatch(cfqd, cfqq);
	if (cfq_sw(cfqd, CFQ_SW_FIFO_MUST_DISPATCH) && cfq_cfqq_must_dispatch(cfqq))
		return true;
	/* Drain async requests before starting sync I/O that idles. */
	if (cfq_should_idle(cfqd, cfqq) && cfqd->rq_in_flight[0])
		return false;
	/* Async waits while sync is in flight. */
	if (cfqd->rq_in_flight[1] && !cfq_cfqq_sync(cfqq))
		return false;

	max_dispatch = cfqd->p.quantum / 2 ? cfqd->p.quantum / 2 : 1;
	if (cfq_class_idle(cfqq))
		max_dispatch = 1;

	if ((unsigned int)cfqq->dispatched >= max_dispatch) {
		bool promote_sync = false;

		if (cfq_class_idle(cfqq))
			return false;
		/* The only sync queue: async cannot preempt it anyway, no limit. */
		if (cfq_sw(cfqd, CFQ_SW_SOLE_SYNC) && cfq_cfqq_sync(cfqq) &&
		    cfqd->busy_sync_queues == 1)
			promote_sync = true;
		if (cfqd->busy_queues > 1 && cfq_slice_used_soon(cfqd, cfqq) && !promote_sync) {
			cfqd->stats.slice_end_limited++;
			return false;
		}
		/* Sole queue: no limit; else up to quantum while the slice is young. */
		if (cfqd->busy_queues == 1 || promote_sync)
			max_dispatch = UINT32_MAX;
		else
			max_dispatch = cfqd->p.quantum;
	}

	/* Async depth ramps up with the time since the last delayed sync completion. */
	if (!cfq_cfqq_sync(cfqq) && cfqd->p.latency) {
		uint64_t last_sync = cfqd->now - cfqd->last_delayed_sync;
		uint64_t depth = last_sync / cfqd->p.slice[1];

		if (!depth && !cfqq->dispatched)
			depth = 1;
		if (depth < max_dispatch) {
			max_dispatch = (unsigned int)depth;
			if ((unsigned int)cfqq->dispatched >= max_dispatch)
				cfqd->stats.async_depth_limited++;
		}
	}
	return (unsigned int)cfqq->dispatched < max_dispatch;
}

static void cfq_dispatch_insert(struct cfq_data *cfqd, struct sched_request *rq)
{
	struct cfq_queue *cfqq = cfq_queue_of_req(rq);
	struct cfq_group_stats *gs = &cfqd->stats.group[cfqq->cfqg->index];

	cfq_log_cfqq(cfqd, cfqq, "dispatch_insert");
	cfq_set_next_rq(cfqq, cfq_find_next_rq(cfqd, cfqq, rq));
	cfq_remove_request(cfqd, rq);
	cfqq->dispatched++;
	cfqd->groups[rq->priv.aux].dispatched++;
	cfqd->rq_in_flight[cfq_cfqq_sync(cfqq)]++;
	cfqq->nr_sectors += sched_rq_sectors(rq);
	gs->dispatched++;
	gs->sectors += sched_rq_sectors(rq);
}

/*
 * elv_rb_add()'s alias (cfq_sw_same_sector off): a queued request of the same sector as the one
 * being added leaves CFQ for the block core's dispatch list at once (cfq_dispatch_insert() ->
 * elv_dispatch_sort()), where the driver takes it before asking CFQ again (__elv_next_request()).
 * Its place on the list is elv_dispatch_sort()'s: in sector order from the end of the last
 * request the driver took (last_position), behind what another direction or op holds.
 */
void cfq_dispatch_alias(struct cfq_data *cfqd, struct sched_request *rq)
{
	uint64_t boundary = cfqd->last_position, pos = sched_rq_pos(rq);
	struct sched_list *e;

	cfq_dispatch_insert(cfqd, rq);
	for (e = cfqd->dispatch_list.prev; e != &cfqd->dispatch_list; e = e->prev) {
		const struct sched_request *o = sched_list_entry(e, struct sched_request, priv.fifo);
		uint64_t opos = sched_rq_pos(o);

		if (o->op != rq->op || sched_rq_dir(o) != sched_rq_dir(rq))
			break;
		if (pos >= boundary) {
			if (opos < boundary)
				continue;
		} else if (opos >= boundary) {
			break;
		}
		if (pos >= opos)
			break;
	}
	sched_list_add(&rq->priv.fifo, e);
}

static struct sched_request *cfq_dispatch_request(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	struct sched_request *rq;

	/* An expired FIFO head is looked for first and must go (cfq_sw_fifo_must_dispatch);
	 * before, only after the depth limits let the queue dispatch. */
	if (cfq_sw(cfqd, CFQ_SW_FIFO_MUST_DISPATCH)) {
		rq = cfq_check_fifo(cfqd, cfqq);
		if (rq)
			cfq_mark_cfqq_must_dispatch(cfqq);
		if (!cfq_may_dispatch(cfqd, cfqq))
			return NULL;
	} else {
		if (!cfq_may_dispatch(cfqd, cfqq))
			return NULL;
		rq = cfq_check_fifo(cfqd, cfqq);
	}
	if (!rq) {
		rq = cfqq->next_rq;
	} else {
		cfqd->stats.fifo_dispatches++;
		cfq_log_cfqq(cfqd, cfqq, "fifo=%llu", (unsigned long long)sched_rq_pos(rq));
	}
	cfq_dispatch_insert(cfqd, rq);
	if (!cfqd->active_cic)
		cfqd->active_cic = &cfqd->cics[rq->owner];
	return rq;
}

static struct sched_request *cfq_dispatch(void *st, uint64_t now)
{
	struct cfq_data *cfqd = st;
	struct cfq_queue *cfqq;
	struct sched_request *rq;

	cfq_set_now(cfqd, now);
	now = cfqd->now;
	/* The dispatch list first (aliases): the driver takes them without asking CFQ. */
	if (!sched_list_empty(&cfqd->dispatch_list)) {
		rq = sched_list_first_entry(&cfqd->dispatch_list, struct sched_request, priv.fifo);
		sched_list_del_init(&rq->priv.fifo);
		cfqq = cfq_queue_of_req(rq);
		goto activate;
	}
	if (!cfqd->busy_queues)
		return NULL;
	cfqq = cfq_select_queue(cfqd);
	if (!cfqq)
		return NULL;
	rq = cfq_dispatch_request(cfqd, cfqq);
	if (!rq)
		return NULL;
	cfqq->slice_dispatch++;
	cfq_clear_cfqq_must_dispatch(cfqq);

	/* An async queue that used its request budget, or an idle-class one: expire now. */
	if (cfqd->busy_queues > 1 &&
	    ((!cfq_cfqq_sync(cfqq) &&
	      cfqq->slice_dispatch >= (uint64_t)cfq_prio_to_maxrq(cfqd, cfqq)) ||
	     cfq_class_idle(cfqq))) {
		cfqq->slice_end = now + 1;
		cfq_slice_expired(cfqd, false, cfq_class_idle(cfqq) ? CFQ_EXPIRE_IDLE_CLASS
								    : CFQ_EXPIRE_DISPATCH_LIMIT);
	}

activate:
	/* cfq_activate_request: the driver takes it now. */
	cfqd->rq_in_driver++;
	cfqd->rq_in_driver_rw[sched_rq_is_sync(rq)]++;
	cfqd->last_position = sched_rq_pos(rq) + sched_rq_sectors(rq);
	cfq_log_cfqq(cfqd, cfqq, "activate rq, drv=%d", cfqd->rq_in_driver);
	return rq;
}

/* ---- completion ---- */

static bool cfq_completed(void *st, struct sched_request *rq, uint64_t now)
{
	struct cfq_data *cfqd = st;
	struct cfq_queue *cfqq = cfq_queue_of_req(rq);
	bool sync = sched_rq_is_sync(rq), kick;

	cfq_set_now(cfqd, now);
	now = cfqd->now;
	cfq_log_cfqq(cfqd, cfqq, "complete rqnoidle %d", cfq_rq_noidle(rq));
	if (cfq_2632(cfqd)) {
		kick = cfq32_completed(cfqd, cfqq, rq);
		goto put;
	}
	cfq_update_hw_tag(cfqd);

	cfqd->rq_in_driver--;
	cfqd->rq_in_driver_rw[sync]--;
	cfqq->dispatched--;
	cfqd->groups[rq->priv.aux].dispatched--;
	cfqd->rq_in_flight[cfq_cfqq_sync(cfqq)]--;

	if (sync) {
		struct cfq_rb_root *st_ = cfq_cfqq_on_rr(cfqq) && cfqq->service_tree
			? cfqq->service_tree
			: st_for(cfqq->cfqg, cfqq_class(cfqq), cfqq_type(cfqq));

		cfqd->cics[rq->owner].ttime.last_end_request = now;
		st_->ttime.last_end_request = now;
		if ((int64_t)(cfq_clock_at(cfqd, rq->insert_ns) + cfqd->p.fifo_expire[1] - now) <= 0)
			cfqd->last_delayed_sync = now;
	}
	cfqq->cfqg->ttime.last_end_request = now;

	if (cfqd->active_queue == cfqq) {
		bool cfqq_empty = cfq_rb_empty(&cfqq->sort_list);

		/* The slice starts at its first completion. */
		if (cfq_cfqq_slice_new(cfqq)) {
			cfq_set_prio_slice(cfqd, cfqq);
			cfq_clear_cfqq_slice_new(cfqq);
		}
		/* Keep the group backlogged: extend the slice to wait for the next request. */
		if (cfq_should_wait_busy(cfqd, cfqq)) {
			uint64_t extend_sl = cfqd->p.slice_idle ? cfqd->p.slice_idle
								: cfqd->p.group_idle;

			cfqq->slice_end = now + extend_sl;
			cfq_mark_cfqq_wait_busy(cfqq);
			cfqd->stats.wait_busy++;
			cfq_log_cfqq(cfqd, cfqq, "will busy wait");
		}
		if (cfq_slice_used(cfqd, cfqq) || cfq_class_idle(cfqq))
			cfq_slice_expired(cfqd, true, cfq_class_idle(cfqq) ? CFQ_EXPIRE_IDLE_CLASS
									  : CFQ_EXPIRE_SLICE_USED);
		else if (sync && cfqq_empty && !cfq_close_cooperator(cfqd, cfqq)) {
			/* Before cfq_sw_noidle_window the sync-noidle tree idled at its end only
			 * once one of its requests came without REQ_NOIDLE since the workload began
			 * (or for the group's only queue). */
			cfqd->noidle_tree_requires_idle |= !cfq_rq_noidle(rq);
			if (cfq_sw(cfqd, CFQ_SW_NOIDLE_WINDOW) ||
			    cfqd->serving_wl_type == SYNC_WORKLOAD || cfqd->noidle_tree_requires_idle ||
			    cfqq->cfqg->nr_cfqq == 1)
				cfq_arm_slice_timer(cfqd);
		}
	}
	/* if (!cfqd->rq_in_driver) cfq_schedule_dispatch(): when some queue is busy */
	kick = !cfqd->rq_in_driver && cfqd->busy_queues;
put:
	/* cfq_put_request(): the request's reference goes; the last one frees the queue. */
	cfq_release_queue(cfqd, cfqq);
	kick |= cfqd->kick;
	cfqd->kick = false;
	return kick;
}

/* ---- timer, work, exit ---- */

static uint64_t cfq_next_timer(const void *st)
{
	const struct cfq_data *cfqd = st;

	if (!cfqd->timer_armed)
		return SCHED_NO_TIMER;
	/* A timer_list fires on the jiffy its expires names (before 4.10). */
	if (cfqd->jclock)
		return cfqd->epoch_ns +
		       (cfqd->timer_expires - CFQ_INITIAL_JIFFIES(cfqd->p.hz)) * cfqd->tick_ns;
	return cfqd->timer_expires;
}

static void cfq_timer(void *st, uint64_t now)
{
	struct cfq_data *cfqd = st;

	if (!cfqd->timer_armed || now < cfq_next_timer(cfqd))
		return;
	cfq_set_now(cfqd, now);
	now = cfqd->now;
	cfqd->timer_armed = false;
	cfq_idle_slice_timer(cfqd);
}

static bool cfq_has_work(const void *st)
{
	const struct cfq_data *cfqd = st;

	return cfqd->rq_queued > 0 || !sched_list_empty(&cfqd->dispatch_list);
}

static const char *const cfq_expire_names[CFQ_EXPIRE_NR] = {
	[CFQ_EXPIRE_SLICE_USED] = "slice_used",	     [CFQ_EXPIRE_IDLE_TIMER] = "idle_timer",
	[CFQ_EXPIRE_NO_REQUESTS] = "no_requests",    [CFQ_EXPIRE_WAIT_BUSY] = "wait_busy",
	[CFQ_EXPIRE_COOPERATOR] = "cooperator",	     [CFQ_EXPIRE_PREEMPTED] = "preempted",
	[CFQ_EXPIRE_DISPATCH_LIMIT] = "dispatch_limit", [CFQ_EXPIRE_IDLE_CLASS] = "idle_class",
	[CFQ_EXPIRE_EXIT] = "exit",
};

static void cfq_emit_stats(const void *st, sched_stat_fn emit, void *ctx)
{
	const struct cfq_stats *cs = cfq_get_stats(st);
	const struct cfq_data *cfqd = st;
	char name[64];

	emit(ctx, "idle_timer_armed", -1, (double)cs->idle_timer_armed);
	emit(ctx, "group_idle_armed", -1, (double)cs->group_idle_armed);
	emit(ctx, "idle_hits", -1, (double)cs->idle_hits);
	emit(ctx, "idle_timer_fired", -1, (double)cs->idle_timer_fired);
	emit(ctx, "idle_timer_expired", -1, (double)cs->idle_timer_expired);
	emit(ctx, "wait_busy", -1, (double)cs->wait_busy);
	emit(ctx, "slices_started", -1, (double)cs->slices_started);
	for (int r = 0; r < CFQ_EXPIRE_NR; r++) {
		snprintf(name, sizeof(name), "slices_expired_%s", cfq_expire_names[r]);
		emit(ctx, name, -1, (double)cs->slices_expired[r]);
	}
	emit(ctx, "preemptions", -1, (double)cs->preemptions);
	emit(ctx, "fifo_dispatches", -1, (double)cs->fifo_dispatches);
	emit(ctx, "time_mode_charges", -1, (double)cs->time_mode_charges);
	emit(ctx, "iops_mode_charges", -1, (double)cs->iops_mode_charges);
	emit(ctx, "async_depth_limited", -1, (double)cs->async_depth_limited);
	emit(ctx, "slice_end_limited", -1, (double)cs->slice_end_limited);
	emit(ctx, "hw_tag", -1, (double)cs->hw_tag);
	emit(ctx, "iops_mode", -1, cfq_iops_mode(st) ? 1 : 0);
	for (uint32_t g = 0; g < cfqd->cfg->max_groups; g++) {
		const struct cfq_group_stats *gs = &cs->group[g];

		if (!gs->dispatched && !gs->slices)
			continue;
		emit(ctx, "slices", (int)g, (double)gs->slices);
		emit(ctx, "time_ms", (int)g, (double)gs->time_ns / 1e6);
		emit(ctx, "charge", (int)g, (double)gs->charge);
		emit(ctx, "dispatched", (int)g, (double)gs->dispatched);
		emit(ctx, "sectors", (int)g, (double)gs->sectors);
		emit(ctx, "share", (int)g, cfq_group_share(st, g));
	}
}

/*
 * cfq_may_queue(): the queue CFQ is idling for may allocate past nr_requests, once per slice
 * (must_alloc_slice), so idling does not wait for a process stuck in get_request().
 */
static bool cfq_may_queue_must(void *st, uint32_t owner, bool sync)
{
	struct cfq_data *cfqd = st;
	struct cfq_queue *cfqq = cfqd->cics[owner].cfqq[sync];

	if (!cfqq || !cfq_cfqq_wait_request(cfqq) || cfq_cfqq_must_alloc_slice(cfqq))
		return false;
	cfq_mark_cfqq_must_alloc_slice(cfqq);
	return true;
}

/* blkio.weight written: cfq_set_weight() keeps it in new_weight until re-activation. */
static void cfq_set_group_weight(void *st, uint32_t group, uint32_t weight)
{
	struct cfq_data *cfqd = st;
	struct cfq_group *cfqg = &cfqd->groups[group];

	if (cfqg->nr_active)
		cfqg->new_weight = weight;
	else
		cfqg->weight = cfqg->leaf_weight = weight;
}

/*
 * cfq_exit_icq: the process is gone; the active one of its queues expires and it drops its
 * references (cfq_exit_cfqq: its cooperators', its queue's; the async ones are pinned by their
 * group). Its idle window is left as it is: a queue it shared goes on; a later request sees the
 * exit through its own cic (cfq_update_idle_window()).
 */
static void cfq_entity_exit(void *st, uint32_t owner, uint64_t now)
{
	struct cfq_data *cfqd = st;
	struct cfq_io_cq *cic = &cfqd->cics[owner];

	cfq_set_now(cfqd, now);
	now = cfqd->now;
	cic->exited = true;
	for (int i = 0; i < 2; i++) {
		struct cfq_queue *cfqq = cic->cfqq[i];

		if (!cfqq)
			continue;
		if (cfqq == cfqd->active_queue)
			__cfq_slice_expired(cfqd, cfqq, false, CFQ_EXPIRE_EXIT);
		cic->cfqq[i] = NULL;
		if (i == 1 && cfq_2632(cfqd)) { /* 2.6.32's cfq_exit_cfqq(): the reference only */
			cfq_put_queue(cfqd, cfqq);
		} else if (i == 1) {
			/* cfq_exit_cfqq(): no change to the queue's idle window (a queue merged
			 * with another process's goes on with its requests) */
			cfq_put_cooperator(cfqd, cfqq);
			cfq_put_queue(cfqd, cfqq);
		}
	}
	if (cfqd->active_cic == cic && !cfqd->active_queue)
		cfqd->active_cic = NULL;
}

/* ---- counters and trace ---- */

void cfq_trace(struct cfq_data *cfqd, const struct cfq_queue *cfqq, const struct cfq_group *cfqg,
	       const char *fmt, ...)
{
	char buf[256];
	int n;
	va_list ap;

	if (cfqq)
		n = snprintf(buf, sizeof(buf), "cfq%u%c%c ", cfqq->pid,
			     cfq_cfqq_sync(cfqq) ? 'S' : 'A',
			     cfqq_type(cfqq) == SYNC_NOIDLE_WORKLOAD ? 'N' : ' ');
	else if (cfqg)
		n = snprintf(buf, sizeof(buf), "cfq/g%u ", cfqg->index);
	else
		n = snprintf(buf, sizeof(buf), "cfq ");
	if (n < 0 || (size_t)n >= sizeof(buf))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	va_end(ap);
	sched_trace_printf(cfqd->dev->trace, cfqd->now, "P %s", buf);
}

const struct cfq_stats *cfq_get_stats(const void *policy_state)
{
	const struct cfq_data *cfqd = policy_state;

	return cfqd ? &cfqd->stats : NULL;
}

const struct cfq_params *cfq_get_params(const void *policy_state)
{
	const struct cfq_data *cfqd = policy_state;

	return cfqd ? &cfqd->p : NULL;
}

bool cfq_iops_mode(const void *policy_state)
{
	const struct cfq_data *cfqd = policy_state;

	return cfqd && iops_mode(cfqd);
}

double cfq_group_share(const void *policy_state, uint32_t g)
{
	const struct cfq_data *cfqd = policy_state;
	bool by_rq;
	uint64_t total = 0, mine = 0;

	if (!cfqd || g >= cfqd->nr_groups)
		return 0.0;
	by_rq = iops_mode(cfqd);
	for (uint32_t i = 0; i < cfqd->nr_groups; i++) {
		const struct cfq_group_stats *gs = &cfqd->stats.group[i];
		uint64_t v = by_rq ? gs->dispatched : gs->time_ns;

		total += v;
		if (i == g)
			mine = v;
	}
	return total ? (double)mine / (double)total : 0.0;
}

/* A switch as a configuration sets it: given, else its version's. */
static bool cfq_cfg_sw(const struct sched_config *cfg, enum cfq_switch sw)
{
	int t = CFQ_T_SW_NS_CLOCK + sw;

	if (cfg->tunable_given[t])
		return cfg->tunable[t] != 0;
	return cfq_era_of(cfg->tunable[CFQ_T_VERSION]) >= cfq_switch_info[sw].since;
}

/* Every CFQ profile's block core (4.19 and before) merges across I/O priorities. */
static bool cfq_merge_any_prio(const struct sched_config *cfg)
{
	(void)cfg;
	return true;
}

/* The block layer's request lists: one per group from 3.6 (cfq_sw_per_group_rl). */
static bool cfq_per_group_rl(const struct sched_config *cfg)
{
	return cfq_cfg_sw(cfg, CFQ_SW_PER_GROUP_RL);
}

/*
 * Whether the profile has tunable t's sysfs file (writing one the kernel lacks would silently do
 * nothing): the *_us files came with 4.10's ns clock, target_latency's between 2.6.36 and 3.16,
 * group_idle's in 2.6.36 (80bdf0c78ff, "cfq-iosched: Implement tunable group_idle"). NULL when
 * it has it, else why not.
 */
static const char *cfq_tunable_missing(const struct sched_config *cfg, enum cfq_tunable t)
{
	enum cfq_era era = cfq_era_of(cfg->tunable[CFQ_T_VERSION]);

	switch (t) {
	case CFQ_T_SLICE_SYNC_US:
	case CFQ_T_SLICE_ASYNC_US:
	case CFQ_T_SLICE_IDLE_US:
	case CFQ_T_GROUP_IDLE_US:
	case CFQ_T_TARGET_LATENCY_US:
		return cfq_cfg_sw(cfg, CFQ_SW_NS_CLOCK) ? NULL
							: "the *_us files came with 4.10's ns clock, "
							  "cfq_sw_ns_clock; give it in ms";
	case CFQ_T_TARGET_LATENCY:
		return era >= CFQ_ERA_316 ? NULL
					  : "a constant of 300 ms until its sysfs file came, after "
					    "2.6.36";
	case CFQ_T_GROUP_IDLE:
		return era >= CFQ_ERA_2636 ? NULL : "group idling came in 2.6.36";
	case CFQ_T_GROUP_ISOLATION:
		return era >= CFQ_ERA_2636 && !cfq_cfg_sw(cfg, CFQ_SW_NOIDLE_IN_GROUP)
			       ? NULL
			       : "it went with cfq_sw_noidle_in_group (groups always isolated)";
	default:
		return NULL;
	}
}

/*
 * What the profile cannot run: an HZ whose jiffy is not a whole number of ms (msecs_to_jiffies()
 * here divides 1000 by it), and a tunable its kernel has no file for.
 */
static int cfq_check(const struct sched_config *cfg, char *err, size_t errlen)
{
	int64_t hz = cfg->tunable[CFQ_T_HZ];
	char ver[24];

	if (hz != 100 && hz != 250 && hz != 1000) {
		snprintf(err, errlen, "cfq_hz=%lld: want 100, 250 or 1000", (long long)hz);
		return -1;
	}
	for (int t = 0; t < CFQ_T_NR; t++) {
		const char *why;

		if (!cfg->tunable_given[t] || !(why = cfq_tunable_missing(cfg, (enum cfq_tunable)t)))
			continue;
		snprintf(err, errlen, "%s: no such tunable with cfq_version=%s (%s)",
			 cfq_tunables[t].name,
			 sched_version_str(cfg->tunable[CFQ_T_VERSION], ver, sizeof(ver)), why);
		return -1;
	}
	/* 2.6.36's blkio.weight refused a weight below BLKIO_WEIGHT_MIN (the write failed). */
	if (cfq_era_of(cfg->tunable[CFQ_T_VERSION]) == CFQ_ERA_2636)
		for (uint32_t g = 0; g < cfg->max_groups && g < SCHED_MAX_GROUPS; g++)
			if (cfg->group_weight[g] < CFQ_BLKIO_WEIGHT_MIN_2636) {
				snprintf(err, errlen,
					 "sched_weight=%u: cfq_version=2.6.36's blkio.weight takes "
					 "%u..1000",
					 cfg->group_weight[g], CFQ_BLKIO_WEIGHT_MIN_2636);
				return -1;
			}
	return 0;
}

/* ---- merging (the legacy elevator's hooks) ---- */

/* cic_to_cfqq() of the bio's process: the queue the bio would go to, or NULL (none yet). */
static struct cfq_queue *cfq_bio_queue(const struct cfq_data *cfqd, const struct sched_request *bio)
{
	const struct cfq_io_cq *cic = &cfqd->cics[bio->owner];

	if (cic->ioprio_class < 0 || cic->exited)
		return NULL;
	return cic->cfqq[sched_rq_is_sync(bio)];
}

/* cfq_merge() -> cfq_find_rq_fmerge(): in the bio's queue, a request starting where it ends. */
static struct sched_request *cfq_request_merge(void *st, const struct sched_request *bio,
					       uint64_t now)
{
	struct cfq_data *cfqd = st;
	struct cfq_queue *cfqq = cfq_bio_queue(cfqd, bio);

	(void)now;
	if (!cfqq)
		return NULL;
	return sched_elv_rb_find(&cfqq->sort_list, sched_rq_pos(bio) + sched_rq_sectors(bio));
}

/* cfq_allow_bio_merge(): not a sync bio into an async request; only into its own queue. */
static bool cfq_allow_bio_merge(void *st, const struct sched_request *rq,
				const struct sched_request *bio, uint64_t now)
{
	struct cfq_data *cfqd = st;

	(void)now;
	if (sched_rq_is_sync(bio) && !sched_rq_is_sync(rq))
		return false;
	return cfq_bio_queue(cfqd, bio) == cfq_queue_of_req(rq);
}

/* cfq_allow_rq_merge(): requests of one queue only (a plugged next: the queue it will go to,
 * which the kernel set at its allocation). */
static bool cfq_allow_rq_merge(void *st, const struct sched_request *rq,
			       const struct sched_request *next)
{
	const struct cfq_queue *nq =
	    sched_rq_queued(next) ? cfq_queue_of_req(next) : cfq_bio_queue(st, next);

	return nq && cfq_queue_of_req(rq) == nq;
}

/* cfq_merged_request(): a front merge re-sorts the request. */
static void cfq_request_merged(void *st, struct sched_request *rq, enum sched_merge type,
			       uint64_t now)
{
	struct cfq_data *cfqd = st;

	cfq_set_now(cfqd, now);
	if (type == SCHED_FRONT_MERGE)
		cfq_reposition_rq_rb(cfqd, rq);
}

/*
 * cfq_merged_requests(): next joined rq. rq takes an older FIFO place of next's in the same
 * queue; next is removed, and its queue, left with nothing queued, leaves the service tree
 * unless it is the active one; next's reference on its queue goes (cfq_put_request()).
 */
static void cfq_requests_merged(void *st, struct sched_request *rq, struct sched_request *next,
				bool queued, uint64_t now)
{
	struct cfq_data *cfqd = st;
	struct cfq_queue *cfqq = cfq_queue_of_req(rq), *ncfqq = cfq_queue_of_req(next);

	cfq_set_now(cfqd, now);
	if (!queued)
		return;
	if (!sched_list_empty(&rq->priv.fifo) && !sched_list_empty(&next->priv.fifo) &&
	    (int64_t)(next->priv.fifo_time - rq->priv.fifo_time) < 0 && cfqq == ncfqq) {
		sched_list_del_init(&rq->priv.fifo);
		sched_list_add(&rq->priv.fifo, &next->priv.fifo);
		rq->priv.fifo_time = next->priv.fifo_time;
	}
	/* 2.6.32's cfq_merged_requests() leaves next_rq to cfq_remove_request(), which picks
	 * next's successor by cfq_find_next_rq(); 2.6.36's hands it to rq first. */
	if (cfqq->next_rq == next && !cfq_2632(cfqd))
		cfq_set_next_rq(cfqq, rq);
	cfq_remove_request(cfqd, next);
	if (cfq_cfqq_on_rr(ncfqq) && cfq_rb_empty(&ncfqq->sort_list) && ncfqq != cfqd->active_queue)
		cfq_del_cfqq_rr(cfqd, ncfqq);
	cfq_release_queue(cfqd, ncfqq);
}

const struct sched_policy_ops sched_cfq_ops = {
	.check = cfq_check,
	.name = "cfq",
	.blk_mode = SCHED_BLK_LEGACY,
	.tunables = cfq_tunables,
	.nr_tunables = CFQ_T_NR,
	.state_size = cfq_state_size,
	.init = cfq_init,
	.insert = cfq_insert,
	.dispatch = cfq_dispatch,
	.completed = cfq_completed,
	.next_timer = cfq_next_timer,
	.timer = cfq_timer,
	.has_work = cfq_has_work,
	.entity_exit = cfq_entity_exit,
	.set_group_weight = cfq_set_group_weight,
	.may_queue_must = cfq_may_queue_must,
	.per_group_rl = cfq_per_group_rl,
	.merge_any_prio = cfq_merge_any_prio,
	.emit_stats = cfq_emit_stats,
	.tunable_value = cfq_tunable_value,
	.request_merge = cfq_request_merge,
	.allow_bio_merge = cfq_allow_bio_merge,
	.request_merged = cfq_request_merged,
	.allow_rq_merge = cfq_allow_rq_merge,
	.requests_merged = cfq_requests_merged,
};
