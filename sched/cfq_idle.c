// SPDX-License-Identifier: GPL-2.0
/*
 * CFQ idling: think time (7/8 EWMA capped at 2*slice_idle), seekiness (rotational: > 800
 * sectors from the last request; non-rotational: < 64 sectors in size), the per-queue idle
 * window, hw_tag (queueing) detection, whether to idle (cfq_should_idle), the slice_idle and
 * group_idle timer (cfq_arm_slice_timer), wait_busy, and the timer itself
 * (cfq_idle_slice_timer).
 */
#include "cfq_internal.h"

bool cfq_io_thinktime_big(const struct cfq_data *cfqd, const struct cfq_ttime *ttime,
			  bool group_idle)
{
	if (!cfq_sample_valid(ttime->ttime_samples))
		return false;
	return ttime->ttime_mean > (group_idle ? cfqd->p.group_idle : cfqd->p.slice_idle);
}

void cfq_ttime_sample(struct cfq_ttime *ttime, uint64_t now, uint64_t slice_idle)
{
	uint64_t elapsed = now - ttime->last_end_request;

	if (elapsed > 2 * slice_idle)
		elapsed = 2 * slice_idle;
	ttime->ttime_samples = (7 * ttime->ttime_samples + 256) / 8;
	ttime->ttime_total = (7 * ttime->ttime_total + 256 * elapsed) / 8;
	ttime->ttime_mean = (ttime->ttime_total + 128) / ttime->ttime_samples;
}

void cfq_update_io_thinktime(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			     struct cfq_io_cq *cic)
{
	/* Before cfq_sw_ttime_sync every request of the process was a sample, async ones too. */
	if (!cfq_cfqq_sync(cfqq) && !cfq_sw(cfqd, CFQ_SW_TTIME_SYNC))
		cfq_ttime_sample(&cic->ttime, cfqd->now, cfqd->p.slice_idle);
	if (cfq_cfqq_sync(cfqq)) {
		cfq_ttime_sample(&cic->ttime, cfqd->now, cfqd->p.slice_idle);
		if (cfqq->service_tree)
			cfq_ttime_sample(&cfqq->service_tree->ttime, cfqd->now,
						  cfqd->p.slice_idle);
	}
	cfq_ttime_sample(&cfqq->cfqg->ttime, cfqd->now, cfqd->p.group_idle);
}

void cfq_update_io_seektime(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			    const struct sched_request *rq)
{
	uint64_t sdist = 0, pos = sched_rq_pos(rq);

	if (cfqq->last_request_pos)
		sdist = cfqq->last_request_pos < pos ? pos - cfqq->last_request_pos
						     : cfqq->last_request_pos - pos;
	cfqq->seek_history <<= 1;
	if (cfqd->nonrot)
		cfqq->seek_history |= sched_rq_sectors(rq) < CFQQ_SECT_THR_NONROT;
	else
		cfqq->seek_history |= sdist > CFQQ_SEEK_THR;
}

void cfq_update_idle_window(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			    const struct cfq_io_cq *cic)
{
	bool old_idle, enable_idle;

	if (!cfq_cfqq_sync(cfqq) || cfq_class_idle(cfqq))
		return;
	enable_idle = old_idle = cfq_cfqq_idle_window(cfqq);

	if (cfqq->queued[0] + cfqq->queued[1] >= 4)
		cfq_mark_cfqq_deep(cfqq);

	if (cfq_sw(cfqd, CFQ_SW_NOIDLE_WINDOW) && cfqq->next_rq && cfq_rq_noidle(cfqq->next_rq))
		enable_idle = false;
	else if (cic->exited || !cfqd->p.slice_idle ||
		 (!cfq_cfqq_deep(cfqq) && CFQQ_SEEKY(cfqq)))
		enable_idle = false;
	else if (cfq_sample_valid(cic->ttime.ttime_samples))
		enable_idle = cic->ttime.ttime_mean <= cfqd->p.slice_idle;

	if (old_idle != enable_idle) {
		cfq_log_cfqq(cfqd, cfqq, "idle=%d", enable_idle);
		if (enable_idle)
			cfq_mark_cfqq_idle_window(cfqq);
		else
			cfq_clear_cfqq_idle_window(cfqq);
	}
}

bool cfq_should_idle(const struct cfq_data *cfqd, const struct cfq_queue *cfqq)
{
	const struct cfq_rb_root *st = cfqq->service_tree;

	if (!cfqd->p.slice_idle)
		return false;
	if (cfqq_class(cfqq) == IDLE_WORKLOAD)
		return false;
	/* Queues with the idle window, unless the device is non-rotational and queueing. */
	if (cfq_cfqq_idle_window(cfqq) && !(cfqd->nonrot && cfqd->hw_tag))
		return true;
	/* Otherwise only the last sync queue of its tree, if the tree does not think long. */
	if (st && cfq_st_count(st) == 1 && cfq_cfqq_sync(cfqq) &&
	    !(cfq_sw(cfqd, CFQ_SW_TREE_TTIME) && cfq_io_thinktime_big(cfqd, &st->ttime, false)))
		return true;
	cfq_log_cfqq((struct cfq_data *)cfqd, cfqq, "Not idling. st->count:%u",
		     st ? cfq_st_count(st) : 0);
	return false;
}

void cfq_del_timer(struct cfq_data *cfqd)
{
	cfqd->timer_armed = false;
}

void cfq_arm_slice_timer(struct cfq_data *cfqd)
{
	struct cfq_queue *cfqq = cfqd->active_queue;
	const struct cfq_rb_root *st = cfqq->service_tree;
	const struct cfq_io_cq *cic;
	uint64_t sl, group_idle = 0, now = cfqd->now;

	/* Non-rotational and queueing: no idling, unless group idling is on (before
	 * cfq_sw_group_idle_nonrot: none at all). */
	if (cfqd->nonrot && cfqd->hw_tag &&
	    (!cfqd->p.group_idle || !cfq_sw(cfqd, CFQ_SW_GROUP_IDLE_NONROT)))
		return;

	if (!cfq_should_idle(cfqd, cfqq)) {
		/* No queue idling: maybe group idling. */
		group_idle = cfqd->p.group_idle;
		if (!group_idle)
			return;
	}
	/* Requests of this queue still in flight: their completion decides. */
	if (cfqq->dispatched)
		return;
	/* The process has exited: nothing more will come. */
	cic = cfqd->active_cic;
	if (!cic || cic->exited)
		return;
	/* Think time longer than what is left of the slice: don't overrun it. */
	if (cfq_sample_valid(cic->ttime.ttime_samples) &&
	    cfqq->slice_end - now < cic->ttime.ttime_mean) {
		cfq_log_cfqq(cfqd, cfqq, "Not idling. think_time:%llu",
			     (unsigned long long)cic->ttime.ttime_mean);
		return;
	}
	/* Group idle only for the last queue of the group, if the tree does not think long
	 * (the think time asked since cfq_sw_group_idle_tt). */
	if (group_idle && (cfqq->cfqg->nr_cfqq > 1 ||
			   (cfq_sw(cfqd, CFQ_SW_GROUP_IDLE_TT) && st &&
			    cfq_io_thinktime_big(cfqd, &st->ttime, true))))
		return;

	cfq_mark_cfqq_wait_request(cfqq);
	sl = group_idle ? group_idle : cfqd->p.slice_idle;
	cfqd->timer_armed = true;
	cfqd->timer_expires = now + sl;
	cfqd->stats.idle_timer_armed++;
	if (group_idle)
		cfqd->stats.group_idle_armed++;
	cfq_log_cfqq(cfqd, cfqq, "arm_idle: %llu group_idle: %d", (unsigned long long)sl,
		     group_idle ? 1 : 0);
}

bool cfq_should_wait_busy(const struct cfq_data *cfqd, const struct cfq_queue *cfqq)
{
	const struct cfq_io_cq *cic = cfqd->active_cic;
	uint64_t now = cfqd->now;

	if (cfq_sw(cfqd, CFQ_SW_WAIT_BUSY_QUEUED) && !cfq_rb_empty(&cfqq->sort_list))
		return false;
	if (cfqq->cfqg->nr_cfqq > 1)
		return false;
	if (cfq_sw(cfqd, CFQ_SW_GROUP_TTIME) &&
	    cfq_io_thinktime_big(cfqd, &cfqq->cfqg->ttime, true))
		return false;
	if (cfq_slice_used(cfqd, cfqq))
		return true;
	/* Less slice left than the think time: wait busy. */
	if (cic && cfq_sample_valid(cic->ttime.ttime_samples) &&
	    cfqq->slice_end - now < cic->ttime.ttime_mean)
		return true;
	/* Think time under a jiffy: wait busy when a jiffy or less is left (in jiffies: exactly
	 * one, as before 4.10). */
	if (cfqd->jclock)
		return cfqq->slice_end - now == 1;
	return cfqq->slice_end - now <= cfqd->t_jiffy;
}

/* Queueing detection: the peak depth over 50 samples under enough load (>= 5 deep). */
void cfq_update_hw_tag(struct cfq_data *cfqd)
{
	const struct cfq_queue *cfqq = cfqd->active_queue;

	if (cfqd->rq_in_driver > cfqd->hw_tag_est_depth)
		cfqd->hw_tag_est_depth = cfqd->rq_in_driver;
	cfqd->stats.hw_tag_est_depth = (uint32_t)cfqd->hw_tag_est_depth;
	if (cfqd->hw_tag == 1)
		return;
	if (cfqd->rq_queued <= CFQ_HW_QUEUE_MIN && cfqd->rq_in_driver <= CFQ_HW_QUEUE_MIN)
		return;
	/* An idling active queue with little I/O does not fill the device: no verdict. */
	if (cfqq && cfq_cfqq_idle_window(cfqq) &&
	    cfqq->dispatched + cfqq->queued[0] + cfqq->queued[1] < CFQ_HW_QUEUE_MIN &&
	    cfqd->rq_in_driver < CFQ_HW_QUEUE_MIN)
		return;
	if (cfqd->hw_tag_samples++ < 50)
		return;
	cfqd->hw_tag = cfqd->hw_tag_est_depth >= CFQ_HW_QUEUE_MIN ? 1 : 0;
	cfqd->stats.hw_tag = cfqd->hw_tag;
	cfq_log(cfqd, "hw_tag=%d depth=%d", cfqd->hw_tag, cfqd->hw_tag_est_depth);
}

/* The idle slice timer fired (the kernel's cfq_idle_slice_timer). */
void cfq_idle_slice_timer(struct cfq_data *cfqd)
{
	struct cfq_queue *cfqq = cfqd->active_queue;
	enum cfq_expire_reason why = CFQ_EXPIRE_IDLE_TIMER;
	bool timed_out = true;

	cfq_log(cfqd, "idle timer fired");
	cfqd->stats.idle_timer_fired++;
	if (cfqq) {
		timed_out = false;
		/* A request came before the queue expired: let it through. */
		if (cfq_cfqq_must_dispatch(cfqq))
			return;
		if (cfq_slice_used(cfqd, cfqq)) {
			why = CFQ_EXPIRE_SLICE_USED;
			goto expire;
		}
		/* Expire only when other queues have work. */
		if (!cfqd->busy_queues)
			return;
		/* Not expired and it has a request: let it dispatch. */
		if (!cfq_rb_empty(&cfqq->sort_list))
			return;
		/* The idle did not pay off: the queue depth flag goes (2.6.32 had none). */
		if (!cfq_2632(cfqd))
			cfq_clear_cfqq_deep(cfqq);
	}
expire:
	if (cfqd->active_queue)
		cfqd->stats.idle_timer_expired++;
	if (cfq_2632(cfqd))
		cfq32_expire_active(cfqd, timed_out, why); /* 2.6.32's one service tree */
	else
		cfq_slice_expired(cfqd, timed_out, why);
}
