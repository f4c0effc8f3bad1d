// SPDX-License-Identifier: GPL-2.0
/*
 * BFQ as a policy of the core: tunables and the behaviour profile, state layout and
 * initialisation (bfq_init_queue), the ops the core calls (bfq_insert_request,
 * bfq_dispatch_request, bfq_finish_requeue_request, the idle slice timer, bfq_exit_icq,
 * bfq_limit_depth, io.bfq.weight), counters and the bfq_log trace.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bfq_internal.h"

#define BFQ_INT_MAX 2147483647ll
#define BFQ_UINT_MAX 4294967295ll
/* Times: the kernel stores up to INT_MAX; like CFQ's here, at most an hour. */
#define BFQ_MS_MAX 3600000ll
#define BFQ_US_MAX 3600000000ll

static const int64_t bfq_versions[] = { BFQ_VERSION_412, BFQ_VERSION_612, 0 };

static const struct sched_tunable_desc bfq_tunables[BFQ_T_NR] = {
	[BFQ_T_FIFO_EXPIRE_SYNC] = { "fifo_expire_sync", "ms", 1, BFQ_MS_MAX, 125,
				     "sync request deadline, checked once per service slot" },
	[BFQ_T_FIFO_EXPIRE_ASYNC] = { "fifo_expire_async", "ms", 1, BFQ_MS_MAX, 250,
				      "async request deadline, checked once per service slot" },
	[BFQ_T_BACK_SEEK_MAX] = { "back_seek_max", "KiB", 0, BFQ_INT_MAX, 16384,
				  "longest backward seek taken as in front of the head" },
	[BFQ_T_BACK_SEEK_PENALTY] = { "back_seek_penalty", "", 1, BFQ_INT_MAX, 2,
				      "cost of a backward seek relative to a forward one" },
	[BFQ_T_SLICE_IDLE] = { "slice_idle", "ms", 0, BFQ_MS_MAX, 8,
			       "idling (I/O plugging) for the in-service queue's next request" },
	[BFQ_T_SLICE_IDLE_US] = { "slice_idle_us", "us", 0, BFQ_US_MAX, 8000,
				  "slice_idle in us (wins when given)" },
	[BFQ_T_MAX_BUDGET] = { "max_budget", "sectors", 0, BFQ_INT_MAX, 0,
			       "largest budget of a queue; 0: auto from the peak rate x timeout_sync" },
	[BFQ_T_TIMEOUT_SYNC] = { "timeout_sync", "ms", 1, BFQ_MS_MAX, 125,
				 "budget timeout: longest service slot (x30 for raised queues)" },
	[BFQ_T_STRICT_GUARANTEES] = { "strict_guarantees", "", 0, 1, 0,
				      "idle whenever service guarantees need it, one request in "
				      "the drive at a time (slice_idle at least 8 ms)" },
	[BFQ_T_LOW_LATENCY] = { "low_latency", "", 0, 1, 1,
				"weight raising of interactive and soft real-time queues" },
	[BFQ_T_VERSION] = { "bfq_version", "version", BFQ_VERSION_412, BFQ_VERSION_612,
			    BFQ_VERSION_612,
			    "behaviour profile: 4.12 (the 2017 bfq-mq) or 6.12; sets the "
			    "bfq_sw_* switches not given", bfq_versions },
	[BFQ_T_SW_NO_PLUG_ALL_RAISED] = { "bfq_sw_no_plug_all_raised", "", 0, 1, 1,
					  "profile switch: no plugging for a raised queue when "
					  "every busy queue is raised (c8765de0adfc)" },
	[BFQ_T_SW_IDLE_DEEP_DRIVE] = { "bfq_sw_idle_deep_drive", "", 0, 1, 1,
				       "profile switch: a raised queue is plugged for while 4 "
				       "more requests are in the drive (5.3)" },
	[BFQ_T_SW_MAX_SERVICE_FROM_WR] = { "bfq_sw_max_service_from_wr", "", 0, 1, 1,
					   "profile switch: interactive raising ends after "
					   "120000 sectors (8a8747dc01ce)" },
	[BFQ_T_SW_INJECTION] = { "bfq_sw_injection", "", 0, 1, 1,
				 "profile switch: I/O injection while plugging (5.2)" },
	[BFQ_T_SW_WAKERS] = { "bfq_sw_wakers", "", 0, 1, 1,
			      "profile switch: waker detection and injection (13a857a4c4e8)" },
	[BFQ_T_SW_STABLE_MERGE] = { "bfq_sw_stable_merge", "", 0, 1, 1,
				    "profile switch: stable merge of queues created together "
				    "(430a67f9d616)" },
	[BFQ_T_SW_WR_DURATION] = { "bfq_sw_wr_duration", "", 0, 1, 1,
				   "profile switch: raising lasts up to 25 s, one speed class "
				   "(4.18; 4.12: 13 s, slow/fast classes)" },
	[BFQ_T_SW_WR_IDLE_20MS] = { "bfq_sw_wr_idle_20ms", "", 0, 1, 1,
				    "profile switch: raised queues idle at least 20 ms (5.2)" },
	[BFQ_T_SW_PREEMPT_EQUAL] = { "bfq_sw_preempt_equal", "", 0, 1, 1,
				     "profile switch: a queue recovering its service hole preempts "
				     "an equally raised one, a heavier one preempts (5.3)" },
	[BFQ_T_SW_PREEMPT_UNPLUG] = { "bfq_sw_preempt_unplug", "", 0, 1, 1,
				      "profile switch: a new busy queue preempts a plugged queue "
				      "that no longer needs plugging (5.3)" },
	[BFQ_T_SW_LIMIT_DEPTH] = { "bfq_sw_limit_depth", "", 0, 1, 1,
				   "profile switch: async I/O and sync writes get a shallow depth of "
				   "the scheduler tags, fewer while raised queues are busy (4.17)" },
	[BFQ_T_SW_IDLE_LARGE_BURST] = { "bfq_sw_idle_large_burst", "", 0, 1, 1,
					"profile switch: a queue activated in a large burst is "
					"plugged for its service guarantees like any other (4.12: "
					"never)" },
	[BFQ_T_SW_RAISE_DEFAULT_WEIGHT] = { "bfq_sw_raise_default_weight", "", 0, 1, 1,
					    "profile switch: only queues of the default weight "
					    "(ioprio level 4) are raised (5.12)" },
	[BFQ_T_SW_IDLE_ONLY_BUSY] = { "bfq_sw_idle_only_busy", "", 0, 1, 1,
				      "profile switch: the only busy queue is always plugged for "
				      "(5.12)" },
	[BFQ_T_SW_TTIME_IDLE_ONLY] = { "bfq_sw_ttime_idle_only", "", 0, 1, 1,
				       "profile switch: think time is sampled only when the queue "
				       "had no I/O (5.12; 4.12: at every request)" },
	[BFQ_T_SW_SHORT_TTIME] = { "bfq_sw_short_ttime", "", 0, 1, 1,
				   "profile switch: has_short_ttime by think time alone, idling "
				   "for throughput needs a sequential queue (4.12: the idle window, "
				   "closed for seeky queues on queueing drives and by slice_idle=0)" },
	[BFQ_T_SW_TTIME_HALF_SLICE] = { "bfq_sw_ttime_half_slice", "", 0, 1, 1,
					"profile switch: a short think time is under half "
					"slice_idle (5.12; 4.12: under slice_idle)" },
	[BFQ_T_SW_BETTER_TO_IDLE] = { "bfq_sw_better_to_idle", "", 0, 1, 1,
				      "profile switch: no plugging at all with slice_idle=0 or for "
				      "the idle class (4.12: an empty queue with I/O in flight "
				      "stays in service even then)" },
	[BFQ_T_SW_IDLE_PROC_REFS] = { "bfq_sw_idle_proc_refs", "", 0, 1, 1,
				      "profile switch: no plugging for a queue no process holds "
				      "(5.6)" },
	[BFQ_T_SW_FLASH_NOQUEUE_IDLING] = { "bfq_sw_flash_noqueue_idling", "", 0, 1, 1,
					    "profile switch: on flash without queueing only "
					    "sequential queues are idled for throughput (4.14)" },
	[BFQ_T_SW_KEEP_PLUGGED] = { "bfq_sw_keep_plugged", "", 0, 1, 1,
				    "profile switch: a queue to be plugged for is not expired on "
				    "its budget timeout at a completion (5.3)" },
	[BFQ_T_SW_COMPLETION_DISPATCH] = { "bfq_sw_completion_dispatch", "", 0, 1, 1,
					   "profile switch: a completion that empties the drive "
					   "schedules a dispatch (4.13)" },
	[BFQ_T_SW_IO_INTENSITY] = { "bfq_sw_io_intensity", "", 0, 1, 1,
				    "profile switch: I/O-bound when busy 80% of the time (5.12; "
				    "4.12: 120 requests in time after idling, cleared by an idle "
				    "timeout with little service)" },
	[BFQ_T_SW_NIS_LOOKUP] = { "bfq_sw_nis_lookup", "", 0, 1, 1,
				  "profile switch: an entity that does not displace the next in "
				  "service brings a full lookup (4.12: the next stays)" },
	[BFQ_T_SW_NIS_CLASS_LOOKUP] = { "bfq_sw_nis_class_lookup", "", 0, 1, 1,
					"profile switch: an entity of a higher class is next in "
					"service only through a lookup (4.12: at once)" },
	[BFQ_T_SW_VTIME_EXPIRATION] = { "bfq_sw_vtime_expiration", "", 0, 1, 1,
					"profile switch: the lookup at an expiration moves the "
					"virtual time up (4.12: not while an entity is in service)" },
	[BFQ_T_SW_DEACT_IN_SERVICE] = { "bfq_sw_deact_in_service", "", 0, 1, 1,
					"profile switch: a group whose child is in service stays "
					"active when another child leaves (4.12: only with a next "
					"in service)" },
	[BFQ_T_SW_SERVICE_AT_EXPIRATION] = { "bfq_sw_service_at_expiration", "", 0, 1, 1,
					     "profile switch: received service is reset when a "
					     "queue expires for good, not when it is set in service "
					     "(4.16)" },
	[BFQ_T_SW_CHARGE_DEACTIVATED] = { "bfq_sw_charge_deactivated", "", 0, 1, 1,
					  "profile switch: an entity leaving its tree while not in "
					  "service is charged the service it got (4.20; 4.12: its "
					  "budget's finish stays)" },
	[BFQ_T_SW_SEEKY_THR] = { "bfq_sw_seeky_thr", "", 0, 1, 1,
				 "profile switch: a queue is seeky with more than 19 of its last "
				 "32 requests seeky (4.12: more than 4)" },
	[BFQ_T_SW_HW_TAG_THR] = { "bfq_sw_hw_tag_thr", "", 0, 1, 1,
				  "profile switch: the drive queues if it held more than 3 "
				  "requests (5.1; 4.12: more than 4)" },
	[BFQ_T_SW_HW_TAG_SHORT_TTIME] = { "bfq_sw_hw_tag_short_ttime", "", 0, 1, 1,
					  "profile switch: no queueing sample while the queue in "
					  "service has a short think time and little I/O (5.1)" },
	[BFQ_T_SW_WRITE_OVERCHARGE] = { "bfq_sw_write_overcharge", "", 0, 1, 1,
					"profile switch: async I/O is charged 3 times its size "
					"(4.18; 4.12: 10 times, 20 while raised queues are busy)" },
	[BFQ_T_SW_ASYM_WRITE_CHARGE] = { "bfq_sw_asym_write_charge", "", 0, 1, 1,
					 "profile switch: async I/O is charged its size only in an "
					 "asymmetric scenario (5.1)" },
	[BFQ_T_SW_NO_MERGE_FLASH_QUEUEING] = { "bfq_sw_no_merge_flash_queueing", "", 0, 1, 1,
					       "profile switch: no cooperator merging on flash "
					       "drives with queueing (5.2)" },
	[BFQ_T_SW_MERGE_IN_SERV_POS] = { "bfq_sw_merge_in_serv_pos", "", 0, 1, 1,
					 "profile switch: a request is close to the queue in service "
					 "by that queue's last dispatch (5.2; 4.12: the drive's last "
					 "dispatch, injected or not)" },
	[BFQ_T_SW_MERGE_TIME_LIMIT] = { "bfq_sw_merge_time_limit", "", 0, 1, 1,
					"profile switch: no merging for a queue that has done I/O "
					"for 100 ms (4.12: for a queue raised 100 ms ago)" },
	[BFQ_T_SW_POS_TREE_ON_REMOVAL] = { "bfq_sw_pos_tree_on_removal", "", 0, 1, 1,
					   "profile switch: a queue moves on the position tree when "
					   "a dispatch changes its next request (4.12: it stays "
					   "where it was)" },
	[BFQ_T_SW_CHARGE_TIME_BOUNDED] = { "bfq_sw_charge_time_bounded", "", 0, 1, 1,
					   "profile switch: a slow queue's slot of a budget timeout "
					   "or more is charged the maximum budget (4.12: only its "
					   "service)" },
	[BFQ_T_SW_IDLE_SMALLEST_WEIGHT] = { "bfq_sw_idle_smallest_weight", "", 0, 1, 1,
					    "profile switch: a queue of the smallest weight is not "
					    "plugged for to protect the others (5.1)" },
	[BFQ_T_SW_ASYM_CLASSES] = { "bfq_sw_asym_classes", "", 0, 1, 1,
				    "profile switch: queues of several ioprio classes busy make "
				    "the scenario asymmetric (5.3)" },
	[BFQ_T_SW_ASYM_GROUPS] = { "bfq_sw_asym_groups", "", 0, 1, 1,
				   "profile switch: more than one group with pending requests "
				   "makes the scenario asymmetric (4.20; 4.12: active groups of "
				   "different weights, a group in service with one child not "
				   "counted)" },
	[BFQ_T_SW_BURST_NO_ACTIVE] = { "bfq_sw_burst_no_active", "", 0, 1, 1,
				       "profile switch: a burst of new queues starts only while no "
				       "queue is busy (4.12: at any new queue)" },
	[BFQ_T_SW_MERGE_CHAIN] = { "bfq_sw_merge_chain", "", 0, 1, 1,
				   "profile switch: a scheduled merge goes to the end of the merge "
				   "chain (6.12; 4.12: one step, to the queue's own new_bfqq)" },
	[BFQ_T_SW_EARLY_MERGE_WR] = { "bfq_sw_early_merge_wr", "", 0, 1, 1,
				      "profile switch: a queue merged before its first activation is "
				      "raised when split (4.14; 4.12: it resumes unraised)" },
	[BFQ_T_SW_SPLIT_WR_BUSY] = { "bfq_sw_split_wr_busy", "", 0, 1, 1,
				     "profile switch: a split restores raising only with "
				     "low_latency, and counts a busy queue's change in wr_busy_queues "
				     "(4.13)" },
	[BFQ_T_SW_SPLIT_SWITCH_BACK] = { "bfq_sw_split_switch_back", "", 0, 1, 1,
					 "profile switch: a split queue whose soft real-time raising "
					 "ended goes back to interactive raising (4.14)" },
	[BFQ_T_SW_SOFTRT_PAST_IO] = { "bfq_sw_softrt_past_io", "", 0, 1, 1,
				      "profile switch: soft real-time detection remembers the "
				      "bandwidth used before (4.14; 4.12: a new queue, or one emptied "
				      "with I/O in flight, is not soft real-time until recomputed)" },
	[BFQ_T_SW_SOFTRT_FILTER] = { "bfq_sw_softrt_filter", "", 0, 1, 1,
				     "profile switch: no soft real-time raising for a queue with I/O "
				     "in flight, nor a recomputed next start for an interactive one "
				     "(5.1)" },
	[BFQ_T_SW_SOFTRT_SEEKY] = { "bfq_sw_softrt_seeky", "", 0, 1, 1,
				    "profile switch: a totally seeky queue is not soft real-time "
				    "(5.1)" },
	[BFQ_T_SW_SOFTRT_END_RESET] = { "bfq_sw_softrt_end_reset", "", 0, 1, 1,
					"profile switch: the end of interactive raising lets the "
					"queue be soft real-time at once" },
	[BFQ_T_SW_SRT_SWITCH_BACK] = { "bfq_sw_srt_switch_back", "", 0, 1, 1,
				       "profile switch: soft real-time raising started without "
				       "interactive raising has none to go back to (5.12; 4.12: one "
				       "from its start)" },
	[BFQ_T_SW_SPLIT_WEIGHT] = { "bfq_sw_split_weight", "", 0, 1, 1,
				    "profile switch: a queue split from a shared one gets back the "
				    "weight it had when merged (5.12; 4.12: its process's ioprio)" },
	[BFQ_T_SW_RATE_SEQ_SIZE] = { "bfq_sw_rate_seq_size", "", 0, 1, 1,
				     "profile switch: for the peak rate a dispatch is sequential "
				     "unless seeky by distance and, on flash, small (5.1; 4.12: by "
				     "distance alone)" },
	[BFQ_T_SW_REQUESTS_MERGED] = { "bfq_sw_requests_merged", "", 0, 1, 1,
				       "profile switch: a request merged into a queued one gives it "
				       "its FIFO place and its place as the queue's next request "
				       "(about 4.14; 4.12: neither, the request merged away is only "
				       "removed)" },
	[BFQ_T_MODEL_WR_FIXED_BUDGET] = { "bfq_model_wr_fixed_budget", "", 0, 1, 1,
					  "model knob (ablation, not a kernel setting): 0 gives "
					  "raised queues the normal budget feedback" },
	[BFQ_T_MODEL_BURST] = { "bfq_model_burst", "", 0, 1, 1,
				"model knob (ablation, not a kernel setting): 0 turns large-burst "
				"detection off" },
};

/* The upstream change behind each profile switch. */
static const struct {
	const char *commit;
} bfq_switch_info[BFQ_SW_NR] = {
	[BFQ_SW_NO_PLUG_ALL_RAISED] = { "c8765de0adfc \"block, bfq: do not plug I/O if all queues "
					"are weight-raised\" (2019, in 5.1 and 4.19-stable)" },
	[BFQ_SW_IDLE_DEEP_DRIVE] = { "\"block, bfq: check also in-flight I/O in dispatch "
				     "plugging\" (P. Valente, V3 posted 2019-07-18, merged for "
				     "5.3-rc2; id not at hand): the rq_in_driver >= dispatched + 4 "
				     "clause of idling_needed_for_service_guarantees()" },
	[BFQ_SW_MAX_SERVICE_FROM_WR] = { "8a8747dc01ce \"block, bfq: limit sectors served with "
					 "interactive weight raising\" (2018, 4.16)" },
	[BFQ_SW_INJECTION] = { "d0edc2473be9 \"block, bfq: inject other-queue I/O into seeky "
			       "idle queues on NCQ flash\" (id as cited by 058fdecc6de7) and "
			       "\"block, bfq: tune service injection basing on request service "
			       "times\" (5.2)" },
	[BFQ_SW_WAKERS] = { "13a857a4c4e8 \"block, bfq: detect wakers and unconditionally inject "
			    "their I/O\" (2019)" },
	[BFQ_SW_STABLE_MERGE] = { "430a67f9d616 \"block, bfq: merge bursts of newly-created "
				  "queues\" (2021)" },
	[BFQ_SW_WR_DURATION] = { "d450542e3ce0 \"block, bfq: increase weight-raising duration "
				 "for interactive apps\" (D. Sapienza: 13 -> 25 s) and e24f1c245fb6 "
				 "\"block, bfq: remove slow-system class\" (P. Valente), both 4.18" },
	[BFQ_SW_WR_IDLE_20MS] = { "778c02a236a8 \"block, bfq: increase idling for weight-raised "
				  "queues\" (5.2)" },
	[BFQ_SW_PREEMPT_EQUAL] = { "96a291c38c32 \"block, bfq: preempt lower-weight or "
				   "lower-priority queues\" (5.3; 4.12 let only a more raised queue "
				   "preempt)" },
	[BFQ_SW_PREEMPT_UNPLUG] = { "3726112ec731 \"block, bfq: re-schedule empty queues if they "
				    "deserve I/O plugging\" (5.3)" },
	[BFQ_SW_IDLE_LARGE_BURST] = { "the large-burst exception of the service-guarantee idling: "
				      "4.12's bfq_bfqq_may_idle() (and 4.19's bfq_better_to_idle()) "
				      "has idling_needed_for_service_guarantees = asymmetric_scenario "
				      "&& !bfq_bfqq_in_large_burst(bfqq); 6.12's "
				      "idling_needed_for_service_guarantees() has no such term "
				      "(removed between 4.19 and 6.12, commit not identified)" },
	[BFQ_SW_RAISE_DEFAULT_WEIGHT] = { "91b896f65d32 \"block, bfq: do not raise non-default "
					  "weights\" (5.12): interactive and soft real-time raising "
					  "need entity.new_weight == 40" },
	[BFQ_SW_IDLE_ONLY_BUSY] = { "2391d13ed484 \"block, bfq: do not expire a queue when it is "
				    "the only busy one\" (5.12): the tot_busy_queues == 1 term of "
				    "idling_needed_for_service_guarantees()" },
	[BFQ_SW_LIMIT_DEPTH] = { "a52a69ea89dc \"block, bfq: limit tags for writes and async I/O\" "
				 "(4.17; the per-queue and per-group over-limit depth of 1, "
				 "bfqq_request_over_limit(), came with it in later kernels): "
				 "bfq_limit_depth()" },
	/*
	 * The changes below were found by the oracle against 4.12's own files (bfq_4_12). An id
	 * marked as seen was read in public material here (a Fixes: tag, a revert, a merge log,
	 * a paper's citation); the others are the title the change went upstream with, its id not
	 * verified here. Releases are those of the merge, approximate where so marked.
	 */
	[BFQ_SW_TTIME_IDLE_ONLY] = { "7684fbde4516 \"bfq: Use only idle IO periods for think time "
				     "calculations\" (J. Kara, 5.12; id seen in linux-block's 5.12 "
				     "log, an earlier application cd0b26057368 was reverted): "
				     "bfq_update_io_thinktime() returns for a queue with I/O" },
	[BFQ_SW_SHORT_TTIME] = { "\"block,bfq: refactor device-idling logic\" (P. Valente, 4.14, "
				 "id not verified here): idle_window becomes has_short_ttime, set by the think time "
				 "alone; the seek history moves into idling_boosts_thr_without_issues(); "
				 "by 5.2 the update precedes bfq_add_request()" },
	[BFQ_SW_TTIME_HALF_SLICE] = { "b5f74ecacc31 \"block, bfq: use half slice_idle as a threshold "
				      "to check short ttime\" (5.12; id seen in linux-block's 5.12 "
				      "log)" },
	[BFQ_SW_BETTER_TO_IDLE] = { "the slice_idle == 0 and idle-class exits of bfq_better_to_idle() "
				    "(4.12's bfq_bfqq_may_idle() had neither; only "
				    "bfq_bfqq_must_idle() looked at slice_idle): with the idling "
				    "refactoring of 4.14 as far as can be told, commit not identified" },
	[BFQ_SW_IDLE_PROC_REFS] = { "c6df9ff2d068 \"block, bfq: do not plug I/O for bfq_queues with "
				    "no proc refs\" (5.6; id seen in a downstream revert)" },
	[BFQ_SW_FLASH_NOQUEUE_IDLING] = { "\"block, bfq: boost throughput with flash-based "
					  "non-queueing devices\" (4.14, id not verified here)" },
	[BFQ_SW_KEEP_PLUGGED] = { "\"block, bfq: do not expire a queue that will deserve dispatch "
				  "plugging\" (2019, about 5.3, id not verified here): bfq_completed_request() "
				  "and bfq_select_queue() no longer expire a queue to be plugged for" },
	[BFQ_SW_COMPLETION_DISPATCH] = { "\"bfq: dispatch request to prevent queue stalling after "
					 "the request completion\" (H. Tao, 4.13, id not verified here)" },
	[BFQ_SW_IO_INTENSITY] = { "eb2fd80f9d2c \"block, bfq: replace mechanism for evaluating I/O "
				  "intensity\" (5.12; id seen in linux-block's 5.12 log)" },
	[BFQ_SW_NIS_LOOKUP] = { "\"block, bfq: guarantee update_next_in_service always returns an "
				"eligible entity\" (4.14, id not verified here)" },
	[BFQ_SW_NIS_CLASS_LOOKUP] = { "\"block, bfq: remove direct switch to an entity in higher "
				      "class\" (4.14, id not verified here)" },
	[BFQ_SW_VTIME_EXPIRATION] = { "\"block, bfq: make lookup_next_entity push up vtime on "
				      "expirations\" (4.14, id not verified here)" },
	[BFQ_SW_DEACT_IN_SERVICE] = { "\"block, bfq: consider also in_service_entity to state "
				      "whether an entity is backlogged\" (bfq-mq, July 2017; about "
				      "4.14, id not verified here)" },
	[BFQ_SW_SERVICE_AT_EXPIRATION] = { "9fae8dd59ff3 \"block, bfq: fix service being wrongly set to "
					   "zero in case of preemption\" (about 4.16; id seen in the "
					   "Fixes: tag of \"block, bfq: readd missing reset of "
					   "parent-entity service\", 4.19, which this switch covers "
					   "too)" },
	[BFQ_SW_CHARGE_DEACTIVATED] = { "cbeb869a3d11 \"block, bfq: correctly charge and reset "
					"entity service in all cases\" (4.20; id seen in a bisect "
					"log)" },
	[BFQ_SW_SEEKY_THR] = { "\"block, bfq: increase threshold to deem I/O as random\" (P. "
			       "Valente, id not verified here, release not verified): BFQQ_SEEKY() from "
			       "32 / 8 to 19 seeky requests of the last 32" },
	[BFQ_SW_HW_TAG_THR] = { "a3c92560324b \"block, bfq: reduce threshold for detecting command "
				"queueing\" (5.1; id seen in a paper's citation)" },
	[BFQ_SW_HW_TAG_SHORT_TTIME] = { "\"block, bfq: port commit \"cfq-iosched: improve hw_tag "
					"detection\"\" (5.1, id not verified here)" },
	[BFQ_SW_WRITE_OVERCHARGE] = { "d5801088a7bd \"block, bfq: reduce write overcharge\" (4.18; id "
				      "seen in a paper's citation): bfq_async_charge_factor 10 -> 3, "
				      "no doubling while raised queues are busy" },
	[BFQ_SW_ASYM_WRITE_CHARGE] = { "\"block, bfq: do not overcharge writes in asymmetric "
				       "scenarios\" (5.1, id not verified here)" },
	[BFQ_SW_NO_MERGE_FLASH_QUEUEING] = { "\"block, bfq: do not merge queues on flash storage with "
					     "queueing\" (March 2019, 5.2, id not verified here)" },
	[BFQ_SW_MERGE_IN_SERV_POS] = { "058fdecc6de7 \"block, bfq: fix in-service-queue check for "
				       "queue merging\" (5.2; id seen in the Fixes: tag of 41e76c85660c "
				       "\"bfq: Avoid false bfq queue merging\", 5.12, whose reset of "
				       "in_serv_last_pos at a queue switch this switch covers too)" },
	[BFQ_SW_MERGE_TIME_LIMIT] = { "bfq_too_late_for_merging() with bfq_merge_time_limit (no "
				      "merging for a queue busy 100 ms) in place of 4.12's "
				      "wr_from_too_long(), and service_from_backlogged counted per "
				      "dispatch with its first_IO_time: commit not identified" },
	[BFQ_SW_POS_TREE_ON_REMOVAL] = { "\"block, bfq: add missing rq_pos_tree update on rq "
					 "removal\" (id not verified here, release not verified)" },
	[BFQ_SW_CHARGE_TIME_BOUNDED] = { "\"block, bfq: improve code of bfq_bfqq_charge_time\" (August "
					 "2018, 4.19, id not verified here): a slot of a budget timeout or "
					 "more is charged the maximum budget" },
	[BFQ_SW_IDLE_SMALLEST_WEIGHT] = { "\"block, bfq: do not idle for lowest-weight queues\" (2019, "
					  "5.2, id not verified here)" },
	[BFQ_SW_ASYM_CLASSES] = { "\"block, bfq: consider also ioprio classes in symmetry "
				  "detection\" (id not verified here, release not verified)" },
	[BFQ_SW_ASYM_GROUPS] = { "2d29c9f89fcd \"block, bfq: improve asymmetric scenarios "
				 "detection\" (4.20; id seen in the stable backport of 98fa7a3e001b)" },
	[BFQ_SW_BURST_NO_ACTIVE] = { "the large-burst detection's start only with no busy queue "
				     "(bfq_reset_burst_list() and the call of bfq_handle_burst()): "
				     "commit not identified" },
	[BFQ_SW_MERGE_CHAIN] = { "0e456dba86c7 \"block, bfq: choose the last bfqq from merge chain in "
				 "bfq_setup_cooperator()\" with 42c306ed7233 \"block, bfq: don't "
				 "break merge chain in bfq_split_bfqq()\" and \"block, bfq: fix "
				 "possible UAF for bfqq->bic with merge chain\" (Y. Kuai, 6.12; ids "
				 "seen in a Fixes: tag and a merge log)" },
	[BFQ_SW_EARLY_MERGE_WR] = { "\"block, bfq: let early-merged queues be weight-raised on split "
				    "too\" (4.14, id not verified here)" },
	[BFQ_SW_SPLIT_WR_BUSY] = { "\"block, bfq: update wr_busy_queues if needed on a queue split\" "
				   "(May 2017, 4.13, id not verified here)" },
	[BFQ_SW_SPLIT_SWITCH_BACK] = { "\"block, bfq: check and switch back to interactive wr also on "
				       "queue split\" (4.14, id not verified here)" },
	[BFQ_SW_SOFTRT_PAST_IO] = { "\"block, bfq: consider also past I/O in soft real-time "
				    "detection\" (4.14, id not verified here)" },
	[BFQ_SW_SOFTRT_FILTER] = { "\"block, bfq: do not consider interactive queues in srt "
				   "filtering\" (January 2019, 5.1, id not verified here)" },
	[BFQ_SW_SOFTRT_SEEKY] = { "7074f076ff15 \"block, bfq: do not tag totally seeky queues as soft "
				  "rt\" (5.1; id seen in a Fixes: tag)" },
	[BFQ_SW_SOFTRT_END_RESET] = { "3c337690d2eb \"block, bfq: avoid spurious switches to soft_rt "
				      "of interactive queues\" (5.12; id seen in linux-block's 5.12 "
				      "log): bfq_bfqq_end_wr() resets soft_rt_next_start" },
	[BFQ_SW_SRT_SWITCH_BACK] = { "d1f600fa4732 \"block, bfq: fix switch back from soft-rt "
				     "weitgh-raising\" (5.12; id seen in linux-block's 5.12 log)" },
	[BFQ_SW_SPLIT_WEIGHT] = { "\"block, bfq: save & resume weight on a queue merge/split\" "
				  "(id not verified here, release not verified)" },
	[BFQ_SW_RATE_SEQ_SIZE] = { "\"block, bfq: fix sequential rq detection in rate estimation\" "
				   "(P. Valente, January 2019, 5.1, id not verified here): "
				   "bfq_update_peak_rate() counts a sequential sample by BFQ_RQ_SEEKY() "
				   "(a large request on flash is never seeky) in place of a seek "
				   "distance under BFQQ_SEEK_THR" },
	[BFQ_SW_REQUESTS_MERGED] = { "\"block, bfq: remove wrong check in bfq_requests_merged\" "
				     "(F. Muzzini, 2017, about 4.14, id not verified here): 4.12's "
				     "bfq_requests_merged() went to its end when rq was on a sort "
				     "tree (RB_EMPTY_NODE inverted), i.e. for every queued rq" },
};

const char *bfq_switch_name(enum bfq_switch sw)
{
	return (unsigned int)sw < BFQ_SW_NR ? bfq_tunables[BFQ_T_SW_NO_PLUG_ALL_RAISED + sw].name
					    : "?";
}

const char *bfq_switch_commit(enum bfq_switch sw)
{
	return (unsigned int)sw < BFQ_SW_NR ? bfq_switch_info[sw].commit : "?";
}

#define ALIGN16(x) (((x) + 15) & ~(size_t)15)

/*
 * Tree walks read one line of each queue they pass (the entity's node and keys, or the
 * position node and key): queues start on a line, so that no walk pays two misses per level.
 */
_Static_assert(sizeof(struct bfq_queue) % BFQ_CACHE_LINE == 0, "bfq_queue: whole cache lines");
_Static_assert(sizeof(struct bfq_io_cq) % BFQ_CACHE_LINE == 0, "bfq_io_cq: whole cache lines");

static uint32_t bfq_nr_pool(const struct sched_config *cfg)
{
	/*
	 * A sync queue per process, plus the queues that outlive their process for a while:
	 * shared after a merge, or on an idle tree until the virtual time passes them (the
	 * kernel allocates them; here, past the pool, requests go to oom_bfqq as on -ENOMEM).
	 */
	return 4 * cfg->max_entities;
}

static size_t bfq_nr_queues(const struct sched_config *cfg)
{
	return bfq_nr_pool(cfg) + (size_t)cfg->max_groups * BFQ_ASYNC_PER_GROUP;
}

static size_t bfq_state_size(const struct sched_config *cfg)
{
	return ALIGN16(sizeof(struct bfq_data)) +
	       ALIGN16(2 * (BFQ_MAX_WEIGHT + 1) * sizeof(struct bfq_weight_counter)) +
	       BFQ_CACHE_LINE + cfg->max_entities * sizeof(struct bfq_io_cq) +
	       ALIGN16(cfg->max_groups * sizeof(struct bfq_group)) + BFQ_CACHE_LINE +
	       bfq_nr_queues(cfg) * sizeof(struct bfq_queue) + BFQ_CACHE_LINE +
	       bfq_nr_queues(cfg) * sizeof(struct bfq_pos_node);
}

static void bfq_load_params(struct bfq_data *bfqd, const struct sched_config *cfg)
{
	struct bfq_params *p = &bfqd->p;
	bool modern;

	p->fifo_expire[1] = (uint64_t)cfg->tunable[BFQ_T_FIFO_EXPIRE_SYNC] * SCHED_NS_PER_MS;
	p->fifo_expire[0] = (uint64_t)cfg->tunable[BFQ_T_FIFO_EXPIRE_ASYNC] * SCHED_NS_PER_MS;
	p->back_max = (uint32_t)cfg->tunable[BFQ_T_BACK_SEEK_MAX];
	p->back_penalty = (uint32_t)cfg->tunable[BFQ_T_BACK_SEEK_PENALTY];
	/* bfqd->bfq_slice_idle is a u32 of ns (4.12 and 6.12): a store of 2^32 ns (4.29 s) or
	 * more wraps, and every use sees what is left (slice_idle_us=4417224: 122 ms). */
	if (cfg->tunable_given[BFQ_T_SLICE_IDLE_US])
		p->slice_idle =
		    (uint32_t)((uint64_t)cfg->tunable[BFQ_T_SLICE_IDLE_US] * SCHED_NS_PER_US);
	else
		p->slice_idle =
		    (uint32_t)((uint64_t)cfg->tunable[BFQ_T_SLICE_IDLE] * SCHED_NS_PER_MS);
	p->user_max_budget = (int32_t)cfg->tunable[BFQ_T_MAX_BUDGET];
	p->timeout_ms = (uint64_t)cfg->tunable[BFQ_T_TIMEOUT_SYNC];
	p->strict_guarantees = cfg->tunable[BFQ_T_STRICT_GUARANTEES] != 0;
	/* bfq_strict_guarantees_store(): strict guarantees idle at least 8 ms. */
	if (p->strict_guarantees && p->slice_idle < 8 * SCHED_NS_PER_MS)
		p->slice_idle = 8 * SCHED_NS_PER_MS;
	p->low_latency = cfg->tunable[BFQ_T_LOW_LATENCY] != 0;
	p->version = (uint32_t)cfg->tunable[BFQ_T_VERSION];
	modern = p->version >= BFQ_VERSION_612;
	for (int i = 0; i < BFQ_SW_NR; i++) {
		int t = BFQ_T_SW_NO_PLUG_ALL_RAISED + i;

		p->sw[i] = cfg->tunable_given[t] ? cfg->tunable[t] != 0 : modern;
	}
	p->wr_fixed_budget = cfg->tunable[BFQ_T_MODEL_WR_FIXED_BUDGET] != 0;
	p->burst_detection = cfg->tunable[BFQ_T_MODEL_BURST] != 0;
}

/* What bfq's sysfs shows: slice_idle in force (strict_guarantees raise it), the profile's
 * switches as the version sets them unless given. */
static int64_t bfq_tunable_value(const void *st, unsigned int idx)
{
	const struct bfq_data *bfqd = st;
	const struct bfq_params *p = &bfqd->p;

	if (idx == BFQ_T_SLICE_IDLE)
		return (int64_t)(p->slice_idle / SCHED_NS_PER_MS);
	if (idx == BFQ_T_SLICE_IDLE_US)
		return (int64_t)(p->slice_idle / SCHED_NS_PER_US);
	if (idx == BFQ_T_TIMEOUT_SYNC) /* bfq_timeout_sync_show(): jiffies_to_msecs() */
		return (int64_t)jiffies_to_ms(bfqd->bfq_timeout);
	if (idx >= BFQ_T_SW_NO_PLUG_ALL_RAISED && idx < BFQ_T_SW_NO_PLUG_ALL_RAISED + BFQ_SW_NR)
		return p->sw[idx - BFQ_T_SW_NO_PLUG_ALL_RAISED];
	return bfqd->cfg->tunable[idx];
}

static void bfq_set_now(struct bfq_data *bfqd, uint64_t now)
{
	bfqd->now = now;
	bfqd->jiffies = BFQ_INITIAL_JIFFIES + (int64_t)(now / BFQ_JIFFY_NS);
}

/* bfq_update_depths(): async and sync-write depths, lower while raised queues are busy. */
static void bfq_update_depths(struct bfq_data *bfqd)
{
	uint32_t nr = bfqd->dev->nr_requests;

#define AT_LEAST_1(x) ((x) > 1 ? (x) : 1)
	bfqd->async_depths[0][0] = AT_LEAST_1(nr >> 1);
	bfqd->async_depths[0][1] = AT_LEAST_1((nr * 3) >> 2);
	bfqd->async_depths[1][0] = AT_LEAST_1((nr * 3) >> 4);
	bfqd->async_depths[1][1] = AT_LEAST_1((nr * 6) >> 4);
#undef AT_LEAST_1
}

static void bfq_init_group(struct bfq_data *bfqd, struct bfq_group *bfqg, uint32_t index,
			   uint32_t weight)
{
	struct bfq_group zero = { 0 };

	*bfqg = zero;
	bfqg->index = index;
	bfq_init_sched_data(bfqd, &bfqg->sched_data);
	sched_rb_init(&bfqg->rq_pos_tree);
	sched_rb_clear(&bfqg->entity.rb_node);
	/* The configured weight, also the root's (never scheduled): sched_stats' policy_groups
	 * print it beside the domain's groups[], which take it from the same config. */
	bfqd->stats.group[index].weight = weight;
	if (index == 0) {
		bfqg->my_entity = NULL; /* the root group is never scheduled */
		return;
	}
	bfqg->my_entity = &bfqg->entity;
	bfqg->entity.my_sched_data = &bfqg->sched_data;
	bfqg->entity.weight = bfqg->entity.new_weight = bfqg->entity.orig_weight =
		(int32_t)weight;
	/* One level under the root (bfq_group_set_parent). */
	bfqg->entity.parent = NULL;
	bfqg->entity.sched_data = &bfqd->root_group->sched_data;
}

static int bfq_init(void *st, const struct sched_config *cfg, const struct sched_device *dev,
		    uint64_t now)
{
	struct bfq_data *bfqd = st;
	char *mem = st;
	size_t off = ALIGN16(sizeof(struct bfq_data));
	uint32_t nr_ent = cfg->max_entities, nr_grp = cfg->max_groups;

	memset(st, 0, bfq_state_size(cfg));
	bfqd->cfg = cfg;
	bfqd->dev = dev;
	bfq_set_now(bfqd, now);
	bfqd->nonrot = !dev->rotational;
	bfq_load_params(bfqd, cfg);

	bfqd->counters = (struct bfq_weight_counter *)(mem + off);
	off += ALIGN16(2 * (BFQ_MAX_WEIGHT + 1) * sizeof(struct bfq_weight_counter));
	off += (BFQ_CACHE_LINE - (uintptr_t)(mem + off) % BFQ_CACHE_LINE) % BFQ_CACHE_LINE;
	bfqd->bics = (struct bfq_io_cq *)(mem + off);
	off += nr_ent * sizeof(struct bfq_io_cq);
	bfqd->groups = (struct bfq_group *)(mem + off);
	off += ALIGN16(nr_grp * sizeof(struct bfq_group));
	off += (BFQ_CACHE_LINE - (uintptr_t)(mem + off) % BFQ_CACHE_LINE) % BFQ_CACHE_LINE;
	bfqd->queues = (struct bfq_queue *)(mem + off);
	off += bfq_nr_queues(cfg) * sizeof(struct bfq_queue);
	off += (BFQ_CACHE_LINE - (uintptr_t)(mem + off) % BFQ_CACHE_LINE) % BFQ_CACHE_LINE;
	bfqd->pos_nodes = (struct bfq_pos_node *)(mem + off);
	bfqd->nr_bics = nr_ent;
	bfqd->nr_groups = nr_grp;
	bfqd->nr_pool = bfq_nr_pool(cfg);
	bfqd->nr_queues = (uint32_t)bfq_nr_queues(cfg);

	for (uint32_t i = 0; i < nr_ent; i++) {
		bfqd->bics[i].ioprio_class = -1;
		bfqd->bics[i].owner = i;
	}
	bfqd->free_queue = -1;
	for (uint32_t i = bfqd->nr_queues; i-- > 0;) {
		bfqd->queues[i].index = i;
		bfqd->queues[i].free_next = -1;
		sched_rb_clear(&bfqd->pos_nodes[i].node);
		if (i < bfqd->nr_pool) {
			bfqd->queues[i].free_next = bfqd->free_queue;
			bfqd->free_queue = (int32_t)i;
		}
	}
	sched_rb_init(&bfqd->queue_weights_tree);
	sched_rb_init(&bfqd->group_weights_tree);
	sched_list_init(&bfqd->active_list);
	sched_list_init(&bfqd->burst_list);
	sched_list_init(&bfqd->dispatch);

	bfqd->root_group = &bfqd->groups[0];
	bfq_init_group(bfqd, bfqd->root_group, 0, cfg->group_weight[0]);
	for (uint32_t g = 1; g < nr_grp; g++)
		bfq_init_group(bfqd, &bfqd->groups[g], g, cfg->group_weight[g]);

	/* The fallback queue when the pool is empty; never freed, never merged. */
	{
		struct bfq_queue *oom = &bfqd->oom_bfqq;

		sched_rb_clear(&oom->entity.rb_node);
		sched_rb_init(&oom->sort_list);
		sched_list_init(&oom->fifo);
		sched_list_init(&oom->bfqq_list);
		sched_list_init(&oom->burst_list_node);
		sched_list_init(&oom->woken_list_node);
		sched_list_init(&oom->woken_list);
		oom->alive = true;
		oom->ref = 1;
		oom->pid = 1;
		oom->wr_coeff = 1;
		oom->max_budget = (2 * BFQ_DEFAULT_MAX_BUDGET) / 3;
		oom->new_ioprio = BFQ_DEFAULT_QUEUE_IOPRIO;
		oom->new_ioprio_class = SCHED_IOPRIO_CLASS_BE;
		oom->entity.new_weight = bfq_ioprio_to_weight(oom->new_ioprio);
		oom->entity.prio_changed = 1;
		oom->seek_history = 1;
		oom->index = UINT32_MAX;
		bfq_mark_bfqq_IO_bound(oom);
		bfq_init_entity(&oom->entity, bfqd->root_group);
	}

	bfqd->hw_tag = -1;
	bfqd->stats.hw_tag = -1;
	bfqd->nonrot_with_queueing = bfqd->nonrot;
	bfqd->bfq_max_budget = BFQ_DEFAULT_MAX_BUDGET;
	bfqd->stats.max_budget = bfqd->bfq_max_budget;
	/* bfq_timeout_sync_store(): msecs_to_jiffies() of what is written; else HZ / 8. */
	bfqd->bfq_timeout = cfg->tunable_given[BFQ_T_TIMEOUT_SYNC] ? ms_to_jiffies(bfqd->p.timeout_ms)
								    : BFQ_TIMEOUT;
	bfqd->bfq_large_burst_thresh = 8;
	bfqd->bfq_burst_interval = ms_to_jiffies(180);
	bfqd->bfq_wr_coeff = 30;
	bfqd->bfq_wr_rt_max_time = ms_to_jiffies(300);
	bfqd->bfq_wr_min_idle_time = ms_to_jiffies(2000);
	bfqd->bfq_wr_min_inter_arr_async = ms_to_jiffies(500);
	bfqd->bfq_wr_max_softrt_rate = 7000; /* sectors/s: HD compressed video */
	/* ref_rate x ref_wr_duration (rotational: 14000 x 7 s; non-rotational 33000 x 2.5 s). */
	bfqd->rate_dur_prod = (bfqd->nonrot ? 33000ull : 14000ull) *
			      (uint64_t)ms_to_jiffies(bfqd->nonrot ? 2500 : 7000);
	bfqd->peak_rate = (bfqd->nonrot ? 33000u : 14000u) * 2 / 3;
	bfqd->device_fast = true; /* 4.12 starts optimistically in the fast class */
	bfqd->stats.peak_rate = bfqd->peak_rate;
	bfqd->actuator_load_threshold = 4;
	/* The sysfs stores at init, in bfq_attrs order: max_budget sets the user's budget;
	 * timeout_sync then recomputes an automatic one from the initial peak rate. */
	if (!bfqd->p.user_max_budget && cfg->tunable_given[BFQ_T_TIMEOUT_SYNC]) {
		bfqd->bfq_max_budget = bfq_calc_max_budget(bfqd);
		bfqd->stats.max_budget = bfqd->bfq_max_budget;
	}
	if (bfqd->p.user_max_budget)
		bfqd->bfq_max_budget = bfqd->p.user_max_budget;
	bfq_update_depths(bfqd);
	return 0;
}

/* ---- insert ---- */

static void __bfq_insert_request(struct bfq_data *bfqd, struct sched_request *rq)
{
	struct bfq_io_cq *bic = &bfqd->bics[rq->owner];
	struct bfq_queue *bfqq = RQ_BFQQ(rq);
	struct bfq_queue *new_bfqq = bfq_setup_cooperator(bfqd, bfqq, rq, bic);

	if (new_bfqq) {
		struct bfq_queue *old_bfqq = bfqq;

		if (!bfq_sw(bfqd, BFQ_SW_MERGE_CHAIN) && bic->bfqq[1] != bfqq) {
			/* 4.12: the process was redirected already; its queue takes the
			 * request (bfq_sw_merge_chain). */
			new_bfqq = bic->bfqq[1];
		}
		/* The request's reference moves to the shared queue. */
		bfqq_request_allocated(new_bfqq);
		bfqq_request_freed(bfqq);
		new_bfqq->ref++;
		if (bic->bfqq[1] == bfqq) {
			while (bfqq != new_bfqq)
				bfqq = bfq_merge_bfqqs(bfqd, bic, bfqq);
		} else {
			bfqq = new_bfqq;
		}
		bfq_clear_bfqq_just_created(old_bfqq);
		bfq_put_queue(bfqd, old_bfqq);
		rq->priv.queue = new_bfqq;
	}
	bfq_update_io_thinktime(bfqd, bfqq);
	if (bfq_sw(bfqd, BFQ_SW_SHORT_TTIME)) {
		bfq_update_has_short_ttime(bfqd, bfqq, bic);
		bfq_update_io_seektime(bfqd, bfqq, rq);
	}
	bfq_add_request(bfqd, rq);
	if (!bfq_sw(bfqd, BFQ_SW_SHORT_TTIME)) {
		/*
		 * 4.12 (bfq_rq_enqueued()): after the request is added, so with the raising its
		 * arrival started or ended; the idle window after the seek history, and for a
		 * seeky queue only once it has had some service in its slot. The think time
		 * sample is the same taken before (nothing here moves last_end_request).
		 */
		bfq_update_io_seektime(bfqd, bfqq, rq);
		if (bfqq->entity.service > bfq_max_budget(bfqd) / 8 || !BFQQ_SEEKY(bfqd, bfqq))
			bfq_update_idle_window(bfqd, bfqq, bic);
	}
	rq->priv.fifo_time = bfqd->now + bfqd->p.fifo_expire[rq_is_sync(rq)];
	sched_list_add_tail(&rq->priv.fifo, &bfqq->fifo);
	bfq_rq_enqueued(bfqd, bfqq, rq);
}

static void bfq_insert(void *st, struct sched_request *rq, uint64_t now)
{
	struct bfq_data *bfqd = st;

	bfq_set_now(bfqd, now);
	if (rq->op == SCHED_OP_FLUSH) {
		/* Flushes bypass the elevator in blk-mq: straight to the dispatch list. */
		rq->priv.queue = NULL;
		sched_list_add_tail(&rq->priv.fifo, &bfqd->dispatch);
		bfqd->dispatch_count++;
		return;
	}
	bfq_init_rq(bfqd, rq);
	__bfq_insert_request(bfqd, rq);
}

/* ---- dispatch ---- */

static struct sched_request *bfq_dispatch(void *st, uint64_t now)
{
	struct bfq_data *bfqd = st;
	struct bfq_queue *bfqq;
	struct sched_request *rq;

	bfq_set_now(bfqd, now);
	if (!sched_list_empty(&bfqd->dispatch)) {
		rq = sched_list_first_entry(&bfqd->dispatch, struct sched_request, priv.fifo);
		sched_list_del_init(&rq->priv.fifo);
		bfqd->dispatch_count--;
		return rq;
	}
	if (!bfq_tot_busy_queues(bfqd))
		return NULL;
	/* strict_guarantees: one request at a time in a queueing drive. */
	if (bfqd->p.strict_guarantees && bfqd->tot_rq_in_driver > 0)
		return NULL;
	bfqq = bfq_select_queue(bfqd);
	if (!bfqq)
		return NULL;
	rq = bfq_dispatch_rq_from_bfqq(bfqd, bfqq);
	bfqd->tot_rq_in_driver++;
	{
		struct bfq_group_stats *gs = &bfqd->stats.group[bfqq_group(bfqq)->index];

		gs->dispatched++;
		gs->sectors += sched_rq_sectors(rq);
	}
	bfq_log_bfqq(bfqd, bfqq, "dispatch %llu+%llu in_driver %d",
		     (unsigned long long)sched_rq_pos(rq),
		     (unsigned long long)sched_rq_sectors(rq), bfqd->tot_rq_in_driver);
	return rq;
}

/* ---- completion ---- */

static bool bfq_completed(void *st, struct sched_request *rq, uint64_t now)
{
	struct bfq_data *bfqd = st;
	struct bfq_queue *bfqq = RQ_BFQQ(rq);
	struct bfq_io_cq *bic;

	bfq_set_now(bfqd, now);
	bool run;

	if (!bfqq)
		return false; /* a flush */
	bic = &bfqd->bics[rq->priv.aux];
	if (rq == bfqd->waited_rq)
		bfq_update_inject_limit(bfqd, bfqq);
	run = bfq_completed_request(bfqd, bfqq);
	bfqq_request_freed(bfqq);
	bfq_put_queue(bfqd, bfqq);
	bic->requests--;
	/* The io context of an exited process goes with its last request. */
	if (bic->exited && !bic->icq_exited && !bic->requests)
		bfq_exit_icq(bfqd, bic);
	return run;
}

/* ---- timer, work, exit ---- */

static uint64_t bfq_next_timer(const void *st)
{
	const struct bfq_data *bfqd = st;

	return bfqd->timer_armed ? bfqd->timer_expires : SCHED_NO_TIMER;
}

static void bfq_timer(void *st, uint64_t now)
{
	struct bfq_data *bfqd = st;

	if (!bfqd->timer_armed || now < bfqd->timer_expires)
		return;
	bfq_set_now(bfqd, now);
	bfqd->timer_armed = false;
	bfq_log(bfqd, "idle timer fired");
	bfq_idle_slice_timer(bfqd);
}

static bool bfq_has_work(const void *st)
{
	const struct bfq_data *bfqd = st;

	return bfqd->dispatch_count > 0 || bfqd->queued > 0;
}

static void bfq_entity_exit(void *st, uint32_t owner, uint64_t now)
{
	struct bfq_data *bfqd = st;
	struct bfq_io_cq *bic = &bfqd->bics[owner];

	bfq_set_now(bfqd, now);
	if (bic->ioprio_class < 0 || bic->exited)
		return;
	bic->exited = true;
	if (!bic->requests)
		bfq_exit_icq(bfqd, bic);
}

/* io.bfq.weight written (bfq_group_set_weight): applied at the group's next activation. */
static void bfq_set_group_weight(void *st, uint32_t group, uint32_t weight)
{
	struct bfq_data *bfqd = st;
	struct bfq_group *bfqg = &bfqd->groups[group];

	bfqd->stats.group[group].weight = weight;
	if (!group)
		return;
	if ((int32_t)weight != bfqg->entity.new_weight) {
		bfqg->entity.new_weight = (int32_t)weight;
		bfqg->entity.prio_changed = 1;
	}
}

/*
 * bfqq_request_over_limit(): a queue, or a group on its path, holding more scheduler tags
 * than its weight's share of limit, gets a depth of 1 so it cannot starve the others.
 */
static bool bfqq_request_over_limit(struct bfq_data *bfqd, struct bfq_queue *bfqq, int limit)
{
	struct bfq_entity *entities[2];
	int depth = 0;

	for (struct bfq_entity *e = &bfqq->entity; e; e = e->parent) {
		if (!e->on_st_or_in_serv)
			return false;
		if (depth == 2)
			return false;
		entities[depth++] = e;
	}
	for (int level = depth - 1; level >= 0; level--) {
		struct bfq_entity *e = entities[level];
		uint64_t wsum = 0;

		if (level > 0) {
			wsum = bfq_entity_service_tree(e)->wsum;
		} else {
			/* The queue: higher classes count as IOPRIO_BE_NR times more. */
			for (int i = 0; i <= bfqq->ioprio_class - 1; i++)
				wsum = wsum * SCHED_IOPRIO_NR_LEVELS +
				       e->sched_data->service_tree[i].wsum;
		}
		if (!wsum)
			continue;
		limit = (int)(((uint64_t)limit * (uint64_t)e->weight + wsum / 2) / wsum);
		if (e->allocated >= limit) {
			bfq_log_bfqq(bfqd, bfqq, "too many requests: allocated %d limit %d level %d",
				     e->allocated, limit, level);
			return true;
		}
	}
	return false;
}

static uint32_t bfq_limit_depth(void *st, const struct sched_request *rq)
{
	struct bfq_data *bfqd = st;
	uint32_t nr = bfqd->dev->nr_requests, limit;
	bool sync = sched_rq_is_sync(rq);
	struct bfq_io_cq *bic = &bfqd->bics[rq->owner];

	/* 4.12 had no limit_depth hook (bfq_sw_limit_depth). */
	if (!nr || !bfq_sw(bfqd, BFQ_SW_LIMIT_DEPTH))
		return 0;
	/* Sync reads have the full depth; async I/O and sync writes less. */
	if (sync && rq->op == SCHED_OP_READ)
		limit = nr;
	else
		limit = bfqd->async_depths[!!bfqd->wr_busy_queues][sync];
	if (bic->ioprio_class >= 0 && !bic->exited && bic->bfqq[sync] &&
	    bfqq_request_over_limit(bfqd, bic->bfqq[sync], (int)limit))
		limit = 1;
	if (limit < nr) {
		bfqd->stats.depth_limited++;
		return limit;
	}
	return 0;
}

/* ---- counters and trace ---- */

static const char *const bfq_expire_names[BFQ_EXP_NR] = {
	[BFQ_EXP_TOO_IDLE] = "too_idle",
	[BFQ_EXP_BUDGET_TIMEOUT] = "budget_timeout",
	[BFQ_EXP_BUDGET_EXHAUSTED] = "budget_exhausted",
	[BFQ_EXP_NO_MORE_REQUESTS] = "no_more_requests",
	[BFQ_EXP_PREEMPTED] = "preempted",
};

static const char *const bfq_wr_end_names[BFQ_WR_END_NR] = {
	[BFQ_WR_END_TIME] = "time",
	[BFQ_WR_END_BURST] = "large_burst",
	[BFQ_WR_END_SERVICE] = "max_service_from_wr",
	[BFQ_WR_END_OTHER] = "other",
};

static void bfq_emit_stats(const void *st, sched_stat_fn emit, void *ctx)
{
	const struct bfq_data *bfqd = st;
	const struct bfq_stats *s = &bfqd->stats;
	char name[64];

	for (int r = 0; r < BFQ_EXP_NR; r++) {
		snprintf(name, sizeof(name), "expired_%s", bfq_expire_names[r]);
		emit(ctx, name, -1, (double)s->expired[r]);
	}
	emit(ctx, "budgets_assigned", -1, (double)s->budgets_assigned);
	emit(ctx, "budget_min", -1, (double)s->budget_min);
	emit(ctx, "budget_max", -1, (double)s->budget_max);
	emit(ctx, "budget_mean", -1,
	     s->budgets_assigned ? (double)s->budget_sum / (double)s->budgets_assigned : 0);
	emit(ctx, "max_budget", -1, (double)s->max_budget);
	emit(ctx, "charged_time", -1, (double)s->charged_time);
	/* sectors/us << 16 to MB/s */
	emit(ctx, "peak_rate_mbps", -1, (double)s->peak_rate / 65536.0 * 512.0);
	emit(ctx, "peak_rate_updates", -1, (double)s->peak_rate_updates);
	emit(ctx, "idle_timer_armed", -1, (double)s->idle_timer_armed);
	emit(ctx, "idle_hits", -1, (double)s->idle_hits);
	emit(ctx, "idle_timer_fired", -1, (double)s->idle_timer_fired);
	emit(ctx, "wr_started_interactive", -1, (double)s->wr_started[BFQ_WR_INTERACTIVE]);
	emit(ctx, "wr_started_soft_rt", -1, (double)s->wr_started[BFQ_WR_SOFT_RT]);
	for (int r = 0; r < BFQ_WR_END_NR; r++) {
		snprintf(name, sizeof(name), "wr_ended_%s", bfq_wr_end_names[r]);
		emit(ctx, name, -1, (double)s->wr_ended[r]);
	}
	emit(ctx, "bursts_large", -1, (double)s->bursts_large);
	emit(ctx, "burst_marked", -1, (double)s->burst_marked);
	emit(ctx, "injected", -1, (double)s->injected);
	emit(ctx, "injected_waker", -1, (double)s->injected_waker);
	emit(ctx, "wakers_detected", -1, (double)s->wakers_detected);
	emit(ctx, "merges", -1, (double)s->merges);
	emit(ctx, "stable_merges", -1, (double)s->stable_merges);
	emit(ctx, "splits", -1, (double)s->splits);
	emit(ctx, "preemptions", -1, (double)s->preemptions);
	emit(ctx, "fifo_dispatches", -1, (double)s->fifo_dispatches);
	emit(ctx, "depth_limited", -1, (double)s->depth_limited);
	emit(ctx, "oom_queue", -1, (double)s->oom_queue);
	emit(ctx, "insert_merge_init", -1, (double)s->insert_merge_init);
	emit(ctx, "pos_key_moved", -1, (double)s->pos_key_moved);
	emit(ctx, "hw_tag", -1, (double)s->hw_tag);
	emit(ctx, "version", -1, (double)bfqd->p.version);
	for (int i = 0; i < BFQ_SW_NR; i++)
		emit(ctx, bfq_switch_name((enum bfq_switch)i), -1, bfqd->p.sw[i] ? 1 : 0);
	for (uint32_t g = 0; g < bfqd->nr_groups; g++) {
		const struct bfq_group_stats *gs = &s->group[g];

		if (!gs->dispatched)
			continue;
		emit(ctx, "dispatched", (int)g, (double)gs->dispatched);
		emit(ctx, "sectors", (int)g, (double)gs->sectors);
		emit(ctx, "weight", (int)g, (double)gs->weight);
		emit(ctx, "share", (int)g, bfq_group_share(st, g));
	}
}

/* bfq_log / bfq_log_bfqq: "bfq<pid><S|A> ..." or "bfqSHARED-<S|A> ...". */
void bfq_trace(struct bfq_data *bfqd, const struct bfq_queue *bfqq, const char *fmt, ...)
{
	char buf[SCHED_TRACE_LINE_MAX];
	int n;
	va_list ap;

	if (!bfqq)
		n = snprintf(buf, sizeof(buf), "bfq ");
	else if (bfqq->pid != -1)
		n = snprintf(buf, sizeof(buf), "bfq%d%c ", bfqq->pid,
			     bfq_bfqq_sync(bfqq) ? 'S' : 'A');
	else
		n = snprintf(buf, sizeof(buf), "bfqSHARED-%c ", bfq_bfqq_sync(bfqq) ? 'S' : 'A');
	if (n < 0 || (size_t)n >= sizeof(buf))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	va_end(ap);
	sched_trace_printf(bfqd->dev->trace, bfqd->now, "P %s", buf);
}

const struct bfq_stats *bfq_get_stats(const void *policy_state)
{
	const struct bfq_data *bfqd = policy_state;

	return bfqd ? &bfqd->stats : NULL;
}

const struct bfq_params *bfq_get_params(const void *policy_state)
{
	const struct bfq_data *bfqd = policy_state;

	return bfqd ? &bfqd->p : NULL;
}

double bfq_group_share(const void *policy_state, uint32_t g)
{
	const struct bfq_data *bfqd = policy_state;
	uint64_t total = 0;

	if (!bfqd || g >= bfqd->nr_groups)
		return 0.0;
	for (uint32_t i = 0; i < bfqd->nr_groups; i++)
		total += bfqd->stats.group[i].sectors;
	return total ? (double)bfqd->stats.group[g].sectors / (double)total : 0.0;
}

void bfq_get_queue_info(const void *policy_state, uint32_t owner, struct bfq_queue_info *info)
{
	const struct bfq_data *bfqd = policy_state;
	const struct bfq_queue *bfqq;

	memset(info, 0, sizeof(*info));
	info->waker_owner = -1;
	if (!bfqd || owner >= bfqd->nr_bics || bfqd->bics[owner].ioprio_class < 0)
		return;
	bfqq = bfqd->bics[owner].bfqq[1];
	if (!bfqq)
		return;
	info->exists = true;
	info->wr_coeff = bfqq->wr_coeff;
	info->wr_cur_max_time_ms = (int64_t)jiffies_to_ms(bfqq->wr_cur_max_time);
	info->budget = bfqq->entity.budget;
	info->max_budget = bfqq->max_budget;
	info->service = bfqq->entity.service;
	info->weight = bfqq->entity.weight;
	info->orig_weight = bfqq->entity.orig_weight;
	info->busy = bfq_bfqq_busy(bfqq);
	info->in_service = bfqq == bfqd->in_service_queue;
	info->in_large_burst = bfq_bfqq_in_large_burst(bfqq);
	info->coop = bfq_bfqq_coop(bfqq);
	info->idle_window = bfq_bfqq_has_short_ttime(bfqq);
	info->service_from_wr = bfqq->service_from_wr;
	info->inject_limit = bfqq->inject_limit;
	if (bfqq->waker_bfqq)
		info->waker_owner = bfqq->waker_bfqq->pid;
	info->shared = bfqq->pid != (int32_t)owner;
}

/* ---- merging ---- */

static bool bfq_rq_pos_less(const struct sched_rb_node *a, const struct sched_rb_node *b)
{
	return sched_rq_pos(sched_rb_entry(a, struct sched_request, priv.rb)) <
	       sched_rq_pos(sched_rb_entry(b, struct sched_request, priv.rb));
}

/* bfqd->bio_bfqq (bfq_bio_merge()): the queue of the bio's process, or NULL. */
static struct bfq_queue *bfq_bio_queue(const struct bfq_data *bfqd, const struct sched_request *bio)
{
	const struct bfq_io_cq *bic = &bfqd->bics[bio->owner];

	if (bic->exited)
		return NULL;
	return bic->bfqq[rq_is_sync(bio)];
}

/* bfq_request_merge() -> bfq_find_rq_fmerge(): a request of the bio's queue starting where the
 * bio ends. */
static struct sched_request *bfq_request_merge(void *st, const struct sched_request *bio,
					       uint64_t now)
{
	struct bfq_data *bfqd = st;
	struct bfq_queue *bfqq = bfq_bio_queue(bfqd, bio);

	(void)now;
	if (!bfqq)
		return NULL;
	return sched_elv_rb_find(&bfqq->sort_list, sched_rq_pos(bio) + sched_rq_sectors(bio));
}

/*
 * bfq_allow_bio_merge(): not a sync bio into an async request; only into the queue the bio will
 * go to. First the early merge of cooperating processes' queues: bfq_setup_cooperator() with the
 * bio's sector, and the process's requests go to the shared queue from now on (4.12 and 6.12
 * alike; 6.12 follows the merge chain, bfq_sw_merge_chain).
 */
static bool bfq_allow_bio_merge(void *st, const struct sched_request *rq,
				const struct sched_request *bio, uint64_t now)
{
	struct bfq_data *bfqd = st;
	struct bfq_queue *bfqq = bfq_bio_queue(bfqd, bio), *new_bfqq;
	struct bfq_io_cq *bic = &bfqd->bics[bio->owner];

	if (rq_is_sync(bio) && !rq_is_sync(rq))
		return false;
	if (!bfqq)
		return false;
	bfq_set_now(bfqd, now);
	/* The cooperator lookup reads only the bio's sector. */
	new_bfqq = bfq_setup_cooperator(bfqd, bfqq, (struct sched_request *)bio, bic);
	if (new_bfqq) {
		if (!bfq_sw(bfqd, BFQ_SW_MERGE_CHAIN))
			new_bfqq = bfqq->new_bfqq; /* 4.12: one step, to the queue's own new_bfqq */
		while (bfqq != new_bfqq)
			bfqq = bfq_merge_bfqqs(bfqd, bic, bfqq);
	}
	return bfqq == RQ_BFQQ(rq);
}

/*
 * bfq_request_merged(): a front merge that took the request before its predecessor in the
 * queue's sort tree re-sorts it, and it may become the queue's next request.
 */
static void bfq_request_merged(void *st, struct sched_request *rq, enum sched_merge type,
			       uint64_t now)
{
	struct bfq_data *bfqd = st;
	struct bfq_queue *bfqq = RQ_BFQQ(rq);
	struct sched_rb_node *p = sched_rb_prev(&rq->priv.rb);
	struct sched_request *prev;

	bfq_set_now(bfqd, now);
	if (type == SCHED_FRONT_MERGE && bfqq && bfqq->next_rq == rq)
		bfq_pos_key_update(bfqd, bfqq); /* its sector moved */
	if (type != SCHED_FRONT_MERGE || !p || !bfqq ||
	    sched_rq_pos(rq) >= sched_rq_pos(sched_rb_entry(p, struct sched_request, priv.rb)))
		return;
	sched_rb_erase(&bfqq->sort_list, &rq->priv.rb);
	sched_rb_insert(&bfqq->sort_list, &rq->priv.rb, bfq_rq_pos_less);
	prev = bfqq->next_rq;
	bfqq->next_rq = bfq_choose_req(bfqd, bfqq->next_rq, rq, bfqd->last_position);
	if (prev != bfqq->next_rq) {
		bfq_updated_next_req(bfqd, bfqq);
		/* 4.12 moved it on flash with queueing too (bfq_sw_no_merge_flash_queueing). */
		if (!bfq_no_coop_merging(bfqd))
			bfq_pos_tree_add_move(bfqd, bfqq);
	}
}

/*
 * bfq_requests_merged(): next joined rq. In one queue rq takes next's older FIFO place and
 * next's place as the queue's next request (not in 4.12: bfq_sw_requests_merged, next's removal
 * then chooses the queue's next request); next leaves the scheduler, and its freeing
 * (bfq_finish_requeue_request() of a request never started) drops its queue's and its io
 * context's counts. An insert merge (!queued) frees a request the kernel had given its queue
 * already (6.12: bfq_insert_request() runs bfq_init_rq() before
 * blk_mq_sched_try_insert_merge(); 4.12: get_rq_priv): the process's queue is looked up or
 * made, split or joined to a burst, and its async queue is set in the bic (which
 * bfq_limit_depth() then reads), as for any request.
 */
static void bfq_requests_merged(void *st, struct sched_request *rq, struct sched_request *next,
				bool queued, uint64_t now)
{
	struct bfq_data *bfqd = st;
	struct bfq_queue *bfqq = RQ_BFQQ(rq), *nbfqq = RQ_BFQQ(next);
	struct bfq_io_cq *bic;

	bfq_set_now(bfqd, now);
	if (!queued && !nbfqq && next->op != SCHED_OP_FLUSH) {
		/* Neither in rq's FIFO place nor its queue's next request: freed only. */
		nbfqq = bfq_init_rq(bfqd, next);
		bfqd->stats.insert_merge_init++;
	} else if (!queued || !nbfqq) {
		return;
	} else if (bfqq && bfq_sw(bfqd, BFQ_SW_REQUESTS_MERGED)) {
		if (bfqq == nbfqq && !sched_list_empty(&rq->priv.fifo) &&
		    !sched_list_empty(&next->priv.fifo) &&
		    (int64_t)(next->priv.fifo_time - rq->priv.fifo_time) < 0) {
			sched_list_del_init(&rq->priv.fifo);
			sched_list_add(&rq->priv.fifo, &next->priv.fifo);
			sched_list_del_init(&next->priv.fifo);
			rq->priv.fifo_time = next->priv.fifo_time;
		}
		if (bfqq->next_rq == next) {
			bfqq->next_rq = rq;
			bfq_pos_key_update(bfqd, bfqq);
		}
	}
	if (sched_rq_queued(next))
		bfq_remove_request(bfqd, next);
	bic = &bfqd->bics[next->priv.aux];
	bfqq_request_freed(nbfqq);
	bfq_put_queue(bfqd, nbfqq);
	bic->requests--;
	if (bic->exited && !bic->icq_exited && !bic->requests)
		bfq_exit_icq(bfqd, bic);
}

/* The 4.12 profile's block core merges across I/O priorities; 6.12's does not. */
static bool bfq_merge_any_prio(const struct sched_config *cfg)
{
	return cfg->tunable[BFQ_T_VERSION] < BFQ_VERSION_612;
}

const struct sched_policy_ops sched_bfq_ops = {
	.name = "bfq",
	.blk_mode = SCHED_BLK_MQ,
	.tunables = bfq_tunables,
	.nr_tunables = BFQ_T_NR,
	.weight_min = BFQ_MIN_WEIGHT,
	.weight_max = BFQ_MAX_WEIGHT,
	.weight_default = BFQ_DEFAULT_GRP_WEIGHT,
	.state_size = bfq_state_size,
	.init = bfq_init,
	.insert = bfq_insert,
	.dispatch = bfq_dispatch,
	.completed = bfq_completed,
	.next_timer = bfq_next_timer,
	.timer = bfq_timer,
	.has_work = bfq_has_work,
	.entity_exit = bfq_entity_exit,
	.set_group_weight = bfq_set_group_weight,
	.emit_stats = bfq_emit_stats,
	.tunable_value = bfq_tunable_value,
	.limit_depth = bfq_limit_depth,
	.request_merge = bfq_request_merge,
	.allow_bio_merge = bfq_allow_bio_merge,
	.merge_any_prio = bfq_merge_any_prio,
	.request_merged = bfq_request_merged,
	.requests_merged = bfq_requests_merged,
};
