// SPDX-License-Identifier: GPL-2.0
/*
 * CFQ as Linux 2.6.32 ran it (cfq_version=2.6.32: cfq_sw_rework_2633 off): before the 2.6.33
 * rework there is one service tree for all queues (RT queues first, idle-class ones last, then
 * by rb_key), no groups and no workload types, slices of the prio length only, seekiness as a
 * mean seek distance of the process (cic->seek_mean), and a close cooperator is switched to
 * (marked coop) rather than merged with. Queues leave the service tree as soon as they are
 * empty, the active one too. Written from 2.6.32's block/cfq-iosched.c; the entry points of
 * cfq.c, cfq_rq.c and cfq_service_tree.c call these when cfq_2632() holds.
 */
#include "cfq_internal.h"

#define CIC_SEEK_THR (8 * 1024) /* sectors */

static bool time_before(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) < 0;
}

/* The one service tree (cfqd->service_tree in 2.6.32): a tree of the root group, unused else. */
static struct cfq_rb_root *cfq32_tree(struct cfq_data *cfqd)
{
	return &cfqd->root_group->service_trees[BE_WORKLOAD][SYNC_WORKLOAD];
}

static bool cic_seeky(const struct cfq_io_cq *cic)
{
	return cic->seek_mean > CIC_SEEK_THR;
}

/* msecs_to_jiffies(CFQ_MIN_TT): 2 ms in the profile's clock. */
static uint64_t cfq32_min_tt(const struct cfq_data *cfqd)
{
	uint64_t per;

	if (!cfqd->jclock)
		return 2 * SCHED_NS_PER_MS;
	per = 1000 / cfqd->p.hz;
	return (2 + per - 1) / per;
}

/* ---- the service tree ---- */

/* Order of the tree: RT before the others, idle class after them, then rb_key. */
static bool cfq32_before(const struct cfq_queue *a, int64_t key, const struct cfq_queue *b)
{
	if (cfq_class_rt(a) != cfq_class_rt(b))
		return cfq_class_rt(a);
	if (cfq_class_idle(a) != cfq_class_idle(b))
		return !cfq_class_idle(a);
	return time_before((uint64_t)key, (uint64_t)cfq_qnode_key(&b->st->node));
}

void cfq32_service_tree_add(struct cfq_data *cfqd, struct cfq_queue *cfqq, bool add_front)
{
	struct cfq_rb_root *st = cfq32_tree(cfqd);
	struct sched_rb_node *parent = NULL, *cur;
	int64_t rb_key, now = (int64_t)cfqd->now;
	bool left = false, leftmost = true;

	if (cfq_class_idle(cfqq)) {
		struct sched_rb_node *last = sched_rb_last(&st->rb);

		rb_key = (int64_t)CFQ_IDLE_DELAY(cfqd);
		rb_key += last && last != &cfqq->st->node ? cfq_qnode_key(last) : now;
	} else if (!add_front) {
		/*
		 * Behind the busy queues by prio, less what was left of the last slice. The
		 * offset is unsigned int (busy_queues times an int difference of slices), so a
		 * slice longer than the best sync one (a long slice_async) makes it a large
		 * positive offset, not a negative one.
		 */
		uint32_t off = (cfqd->busy_queues - 1) *
			       (uint32_t)(cfq_prio_slice(cfqd, true, 0) -
					  cfq_prio_slice(cfqd, cfq_cfqq_sync(cfqq), cfqq->ioprio));

		rb_key = (int64_t)off + now - cfqq->slice_resid;
		cfqq->slice_resid = 0;
	} else {
		struct sched_rb_node *first = sched_rb_first(&st->rb);

		rb_key = -(int64_t)cfqd->t_sec + (first ? cfq_qnode_key(first) : now);
	}

	if (sched_rb_linked(&cfqq->st->node)) {
		if (rb_key == cfqq->st->key)
			return;
		sched_rb_erase(&st->rb, &cfqq->st->node);
	}
	cfqq->service_tree = st;
	for (cur = st->rb.root; cur;) {
		parent = cur;
		left = cfq32_before(cfqq, rb_key, cfqq_of_st(cfqd, cur));
		leftmost &= left;
		cur = sched_rb_child(cur, !left);
	}
	cfqq->st->key = rb_key;
	sched_rb_insert_at(&st->rb, &cfqq->st->node, parent, left, leftmost);
}

/* ---- slices ---- */

void cfq32_slice_expired(struct cfq_data *cfqd, struct cfq_queue *cfqq, bool timed_out,
			 enum cfq_expire_reason why)
{
	cfq_log_cfqq(cfqd, cfqq, "slice expired t=%d", timed_out);
	cfqd->stats.slices_expired[why]++;
	if (cfq_cfqq_wait_request(cfqq))
		cfq_del_timer(cfqd);
	cfq_clear_cfqq_wait_request(cfqq);
	if (timed_out && !cfq_cfqq_slice_new(cfqq)) {
		cfqq->slice_resid = (int64_t)(cfqq->slice_end - cfqd->now);
		cfq_log_cfqq(cfqd, cfqq, "resid=%lld", (long long)cfqq->slice_resid);
	}
	cfq_resort_rr_list(cfqd, cfqq);
	if (cfqq == cfqd->active_queue)
		cfqd->active_queue = NULL;
	cfqd->active_cic = NULL;
}

void cfq32_expire_active(struct cfq_data *cfqd, bool timed_out, enum cfq_expire_reason why)
{
	if (cfqd->active_queue)
		cfq32_slice_expired(cfqd, cfqd->active_queue, timed_out, why);
}

/* The first queue of the tree; its coop mark goes unless a preemption set it. */
static struct cfq_queue *cfq32_set_active_queue(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	if (!cfqq) {
		struct sched_rb_node *n = sched_rb_first(&cfq32_tree(cfqd)->rb);

		cfqq = n ? cfqq_of_st(cfqd, n) : NULL;
		if (cfqq && !cfq_cfqq_coop_preempt(cfqq))
			cfq_clear_cfqq_coop(cfqq);
	}
	if (cfqq)
		cfq_clear_cfqq_coop_preempt(cfqq);
	__cfq_set_active_queue(cfqd, cfqq);
	return cfqq;
}

struct cfq_queue *cfq32_select_queue(struct cfq_data *cfqd)
{
	struct cfq_queue *cfqq = cfqd->active_queue, *new_cfqq = NULL;
	enum cfq_expire_reason why = CFQ_EXPIRE_NO_REQUESTS;

	if (!cfqq)
		goto new_queue;
	if (cfq_slice_used(cfqd, cfqq) && !cfq_cfqq_must_dispatch(cfqq)) {
		why = CFQ_EXPIRE_SLICE_USED;
		goto expire;
	}
	if (!cfq_rb_empty(&cfqq->sort_list))
		return cfqq;
	/* A queue with a request within our mean seek distance: switch to it. */
	new_cfqq = cfq32_close_cooperator(cfqd, cfqq, false);
	if (new_cfqq) {
		why = CFQ_EXPIRE_COOPERATOR;
		goto expire;
	}
	/* Idling, or requests in flight for a queue that idles: wait. */
	if (cfqd->timer_armed || (cfqq->dispatched && cfq_cfqq_idle_window(cfqq)))
		return NULL;
expire:
	cfq32_expire_active(cfqd, false, why);
new_queue:
	return cfq32_set_active_queue(cfqd, new_cfqq);
}

/* ---- close cooperators: within the active process's mean seek distance ---- */

bool cfq32_rq_close(const struct cfq_data *cfqd, const struct sched_request *rq)
{
	const struct cfq_io_cq *cic = cfqd->active_cic;
	uint64_t pos = sched_rq_pos(rq), last = cfqd->last_position;
	uint64_t sdist = cic->seek_mean;

	if (!cfq_sample_valid(cic->seek_samples))
		sdist = CIC_SEEK_THR;
	return (pos >= last ? pos - last : last - pos) <= sdist;
}

struct cfq_queue *cfq32_close_cooperator(struct cfq_data *cfqd, struct cfq_queue *cur_cfqq,
					 bool probe)
{
	struct cfq_queue *cfqq;

	if (!cfqd->active_cic)
		return NULL;
	cfqq = cfq_cfqq_close(cfqd, cur_cfqq);
	if (!cfqq || cfq_cfqq_coop(cfqq))
		return NULL;
	if (!probe)
		cfq_mark_cfqq_coop(cfqq);
	return cfqq;
}

/* ---- dispatch ---- */

bool cfq32_may_dispatch(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	uint32_t max_dispatch;

	/* Drain async requests before starting sync I/O. */
	if (cfq_cfqq_idle_window(cfqq) && cfqd->rq_in_driver_rw[0])
		return false;
	/* An async queue waits while sync I/O is in flight. */
	if (cfqd->rq_in_flight[1] && !cfq_cfqq_sync(cfqq))
		return false;
	max_dispatch = cfq_class_idle(cfqq) ? 1 : cfqd->p.quantum;
	if ((uint32_t)cfqq->dispatched >= max_dispatch) {
		if (cfq_class_idle(cfqq) || cfqd->busy_queues > 1)
			return false;
		max_dispatch *= 4; /* the sole queue: a bigger share */
	}
	/* Async depth ramps up with the time since the last sync completion. */
	if (!cfq_cfqq_sync(cfqq) && cfqd->p.latency) {
		uint64_t depth = (cfqd->now - cfqd->last_end_sync_rq) / cfqd->p.slice[1];

		if (!depth && !cfqq->dispatched)
			depth = 1;
		if (depth < max_dispatch) {
			max_dispatch = (uint32_t)depth;
			if ((uint32_t)cfqq->dispatched >= max_dispatch)
				cfqd->stats.async_depth_limited++;
		}
	}
	return (uint32_t)cfqq->dispatched < max_dispatch;
}

/* ---- insert: think time, seek distance, idle window, preemption ---- */

static void cfq32_update_io_seektime(struct cfq_io_cq *cic, const struct sched_request *rq)
{
	uint64_t sdist = 0, pos = sched_rq_pos(rq), cap, total;

	if (cic->last_request_pos)
		sdist = cic->last_request_pos < pos ? pos - cic->last_request_pos
						    : cic->last_request_pos - pos;
	/* Not too much weight to the odd far seek. */
	cap = cic->seek_mean * 4 + (cic->seek_samples <= 60 ? 2 * 1024 * 1024 : 2 * 1024 * 64);
	if (sdist > cap)
		sdist = cap;
	cic->seek_samples = (7 * cic->seek_samples + 256) / 8;
	cic->seek_total = (7 * cic->seek_total + 256 * sdist) / 8;
	total = cic->seek_total + cic->seek_samples / 2;
	cic->seek_mean = total / cic->seek_samples;
}

static void cfq32_update_idle_window(struct cfq_data *cfqd, struct cfq_queue *cfqq,
				     const struct cfq_io_cq *cic)
{
	bool old_idle, enable_idle;

	if (!cfq_cfqq_sync(cfqq) || cfq_class_idle(cfqq))
		return;
	enable_idle = old_idle = cfq_cfqq_idle_window(cfqq);
	if (cic->exited || !cfqd->p.slice_idle ||
	    (!cfqd->p.latency && cfqd->hw_tag && cic_seeky(cic))) {
		enable_idle = false;
	} else if (cfq_sample_valid(cic->ttime.ttime_samples)) {
		uint64_t slice_idle = cfqd->p.slice_idle;

		if (cfq_sample_valid(cic->seek_samples) && cic_seeky(cic))
			slice_idle = cfq32_min_tt(cfqd);
		enable_idle = cic->ttime.ttime_mean <= slice_idle;
	}
	if (old_idle != enable_idle) {
		cfq_log_cfqq(cfqd, cfqq, "idle=%d", enable_idle);
		if (enable_idle)
			cfq_mark_cfqq_idle_window(cfqq);
		else
			cfq_clear_cfqq_idle_window(cfqq);
	}
}

static bool cfq32_should_preempt(struct cfq_data *cfqd, struct cfq_queue *new_cfqq,
				 const struct sched_request *rq)
{
	struct cfq_queue *cfqq = cfqd->active_queue;

	if (!cfqq)
		return false;
	if (cfq_slice_used(cfqd, cfqq))
		return true;
	if (cfq_class_idle(new_cfqq))
		return false;
	if (cfq_class_idle(cfqq))
		return true;
	/* A sync request against an async active queue. */
	if (sched_rq_is_sync(rq) && !cfq_cfqq_sync(cfqq))
		return true;
	/* Metadata against regular I/O. */
	if (cfq_rq_prio(rq) && !cfqq->prio_pending)
		return true;
	/* RT against a non-RT slice. */
	if (cfq_class_rt(new_cfqq) && !cfq_class_rt(cfqq))
		return true;
	if (!cfqd->active_cic || !cfq_cfqq_wait_request(cfqq))
		return false;
	/* As good as what the idling queue would send: it preempts as a cooperator, and its
	 * coop mark outlives its activation. */
	if (cfq32_rq_close(cfqd, rq) && (!cfq_cfqq_coop(new_cfqq) || cfqd->busy_queues == 1)) {
		cfq_mark_cfqq_coop_preempt(new_cfqq);
		cfq_mark_cfqq_coop(new_cfqq);
		return true;
	}
	return false;
}

static void cfq32_preempt_queue(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	cfq_log_cfqq(cfqd, cfqq, "preempt");
	cfqd->stats.preemptions++;
	cfq32_expire_active(cfqd, true, CFQ_EXPIRE_PREEMPTED);
	cfq32_service_tree_add(cfqd, cfqq, true);
	cfqq->slice_end = 0;
	cfq_mark_cfqq_slice_new(cfqq);
}

void cfq32_rq_enqueued(struct cfq_data *cfqd, struct cfq_queue *cfqq, struct sched_request *rq)
{
	struct cfq_io_cq *cic = &cfqd->cics[rq->owner];

	cfqd->rq_queued++;
	if (cfq_rq_prio(rq))
		cfqq->prio_pending++;
	/* Every request of the process is a think time sample, async ones too. */
	cfq_ttime_sample(&cic->ttime, cfqd->now, cfqd->p.slice_idle);
	cfq32_update_io_seektime(cic, rq);
	cfq32_update_idle_window(cfqd, cfqq, cic);
	cic->last_request_pos = sched_rq_pos(rq) + sched_rq_sectors(rq);

	if (cfqq == cfqd->active_queue) {
		/* The idling paid off. The timer goes for a big request or a busy system (the
		 * wait_request mark stays until the slice ends or the timer is armed again). */
		if (cfq_cfqq_wait_request(cfqq)) {
			cfqd->stats.idle_hits++;
			if (rq->length > CFQ_PAGE_SIZE || cfqd->busy_queues > 1)
				cfq_del_timer(cfqd);
			cfq_mark_cfqq_must_dispatch(cfqq);
		}
	} else if (cfq32_should_preempt(cfqd, cfqq, rq)) {
		cfq32_preempt_queue(cfqd, cfqq);
	}
}

/* ---- completion, idling ---- */

/* Queueing detection: the peak depth over 50 samples under enough load, checked anew each 50. */
static void cfq32_update_hw_tag(struct cfq_data *cfqd)
{
	if (cfqd->rq_in_driver > cfqd->hw_tag_est_depth)
		cfqd->hw_tag_est_depth = cfqd->rq_in_driver;
	if (cfqd->rq_queued <= CFQ_HW_QUEUE_MIN && cfqd->rq_in_driver <= CFQ_HW_QUEUE_MIN)
		return;
	if (cfqd->hw_tag_samples++ < 50)
		return;
	cfqd->hw_tag = cfqd->hw_tag_est_depth >= CFQ_HW_QUEUE_MIN ? 1 : 0;
	cfqd->stats.hw_tag = cfqd->hw_tag;
	cfqd->stats.hw_tag_est_depth = (uint32_t)cfqd->hw_tag_est_depth;
	cfqd->hw_tag_samples = 0;
	cfqd->hw_tag_est_depth = 0;
	cfq_log(cfqd, "hw_tag=%d", cfqd->hw_tag);
}

static void cfq32_arm_slice_timer(struct cfq_data *cfqd)
{
	struct cfq_queue *cfqq = cfqd->active_queue;
	const struct cfq_io_cq *cic = cfqd->active_cic;
	uint64_t sl, now = cfqd->now;

	/* Non-rotational and queueing: no idling. */
	if (cfqd->nonrot && cfqd->hw_tag)
		return;
	if (!cfqd->p.slice_idle || !cfq_cfqq_idle_window(cfqq))
		return;
	/* Any request still in the driver: its completion decides. */
	if (cfqd->rq_in_driver)
		return;
	if (!cic || cic->exited)
		return;
	/* Think time longer than what is left of the slice: don't overrun it. */
	if (cfq_sample_valid(cic->ttime.ttime_samples) &&
	    cfqq->slice_end - now < cic->ttime.ttime_mean)
		return;
	cfq_mark_cfqq_wait_request(cfqq);
	/* A seeky process gets a little time only for its next request. */
	sl = cfqd->p.slice_idle;
	if (cfq_sample_valid(cic->seek_samples) && cic_seeky(cic) && cfq32_min_tt(cfqd) < sl)
		sl = cfq32_min_tt(cfqd);
	cfqd->timer_armed = true;
	cfqd->timer_expires = now + sl;
	cfqd->stats.idle_timer_armed++;
	cfq_log_cfqq(cfqd, cfqq, "arm_idle: %llu", (unsigned long long)sl);
}

/* cfq_completed_request() of 2.6.32, less the bookkeeping cfq.c's caller did; whether to kick. */
bool cfq32_completed(struct cfq_data *cfqd, struct cfq_queue *cfqq, struct sched_request *rq)
{
	bool sync = sched_rq_is_sync(rq);
	uint64_t now = cfqd->now;

	cfq32_update_hw_tag(cfqd);
	cfqd->rq_in_driver--;
	cfqd->rq_in_driver_rw[sync]--;
	cfqq->dispatched--;
	cfqd->groups[rq->priv.aux].dispatched--;
	cfqd->rq_in_flight[cfq_cfqq_sync(cfqq)]--;
	if (sync) {
		cfqd->cics[rq->owner].ttime.last_end_request = now;
		cfqd->last_end_sync_rq = now;
	}
	if (cfqd->active_queue == cfqq) {
		bool cfqq_empty = cfq_rb_empty(&cfqq->sort_list);

		/* The slice starts at its first completion, of its prio length. */
		if (cfq_cfqq_slice_new(cfqq)) {
			uint64_t slice = cfq_prio_slice(cfqd, cfq_cfqq_sync(cfqq), cfqq->ioprio);

			cfqq->slice_start = now;
			cfqq->slice_end = now + slice;
			cfqq->allocated_slice = slice;
			cfq_clear_cfqq_slice_new(cfqq);
			cfq_log_cfqq(cfqd, cfqq, "set_slice=%llu", (unsigned long long)slice);
		}
		if (cfq_slice_used(cfqd, cfqq) || cfq_class_idle(cfqq))
			cfq32_expire_active(cfqd, true,
					    cfq_class_idle(cfqq) ? CFQ_EXPIRE_IDLE_CLASS
								 : CFQ_EXPIRE_SLICE_USED);
		else if (cfqq_empty && !cfq32_close_cooperator(cfqd, cfqq, true) && sync &&
			 !cfq_rq_noidle(rq))
			cfq32_arm_slice_timer(cfqd);
	}
	return !cfqd->rq_in_driver && cfqd->busy_queues;
}
