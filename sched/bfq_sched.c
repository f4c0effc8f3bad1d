// SPDX-License-Identifier: GPL-2.0
/*
 * BFQ's decisions, after Linux 6.12 bfq-iosched.c: budgets (feedback on expiration, maximum
 * auto-tuned from the peak-rate estimator, budget timeouts, time charging of slow queues),
 * idling (bfq_better_to_idle: throughput boosting and service guarantees), weight raising
 * (interactive and soft real-time, their ends), I/O injection and wakers, the choice of the
 * queue in service (bfq_select_queue), request arrival (bfq_add_request) and completion
 * (bfq_completed_request), and the idle slice timer.
 *
 * Where the 2017 seed's behaviour depends on it, the 4.12-era code is selected by a profile
 * switch (bfq_sw()); each place is marked with the switch.
 */
#include "bfq_internal.h"

/* ---- service, budgets ---- */

/* Sectors charged for rq: async I/O is charged more, to throttle writes against reads. */
unsigned long bfq_serv_to_charge(struct bfq_data *bfqd, const struct sched_request *rq,
				 struct bfq_queue *bfqq)
{
	if (bfq_bfqq_sync(bfqq) || bfqq->wr_coeff > 1 ||
	    (bfq_sw(bfqd, BFQ_SW_ASYM_WRITE_CHARGE) && bfq_asymmetric_scenario(bfqd, bfqq)))
		return sched_rq_sectors(rq);
	/* 4.12 (bfq_sw_write_overcharge): 10 times, twice that while raised queues are busy. */
	if (!bfq_sw(bfqd, BFQ_SW_WRITE_OVERCHARGE))
		return sched_rq_sectors(rq) * BFQ_ASYNC_CHARGE_FACTOR_412 *
		       (bfqd->wr_busy_queues ? 2 : 1);
	return sched_rq_sectors(rq) * BFQ_ASYNC_CHARGE_FACTOR;
}

/* The first request changed: a queue not in service gets enough budget to serve it. */
void bfq_updated_next_req(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	struct bfq_entity *entity = &bfqq->entity;
	struct sched_request *next_rq = bfqq->next_rq;
	long new_budget;

	if (!next_rq || bfqq == bfqd->in_service_queue)
		return; /* budgets cannot change once selected */
	new_budget = bfqq->max_budget;
	if ((long)bfq_serv_to_charge(bfqd, next_rq, bfqq) > new_budget)
		new_budget = (long)bfq_serv_to_charge(bfqd, next_rq, bfqq);
	/* Service kept past an expiration must fit (bfq_sw_service_at_expiration). */
	if (entity->service > new_budget && bfq_sw(bfqd, BFQ_SW_SERVICE_AT_EXPIRATION))
		new_budget = entity->service;
	if (entity->budget != new_budget) {
		entity->budget = (int32_t)new_budget;
		bfq_log_bfqq(bfqd, bfqq, "updated next rq: new budget %ld", new_budget);
		bfq_requeue_bfqq(bfqd, bfqq, false);
	}
}

int bfq_max_budget(const struct bfq_data *bfqd)
{
	return bfqd->budgets_assigned < BFQ_STATS_MIN_BUDGETS ? BFQ_DEFAULT_MAX_BUDGET
							      : bfqd->bfq_max_budget;
}

int bfq_min_budget(const struct bfq_data *bfqd)
{
	return bfqd->budgets_assigned < BFQ_STATS_MIN_BUDGETS ? BFQ_DEFAULT_MAX_BUDGET / 32
							      : bfqd->bfq_max_budget / 32;
}

/* ---- weight raising ---- */

/*
 * Interactive raising lasts as long as loading a large application takes on this device:
 * reference rate x reference time / estimated peak rate, clamped to [3, 25] s (4.12: [3, 13]
 * s, with a slow device class; switch BFQ_SW_WR_DURATION).
 */
int64_t bfq_wr_duration(struct bfq_data *bfqd)
{
	uint64_t dur = bfqd->rate_dur_prod / (bfqd->peak_rate ? bfqd->peak_rate : 1);
	int64_t lo = ms_to_jiffies(3000);
	int64_t hi = ms_to_jiffies(bfq_sw(bfqd, BFQ_SW_WR_DURATION) ? 25000 : 13000);

	if ((int64_t)dur < lo)
		return lo;
	if ((int64_t)dur > hi)
		return hi;
	return (int64_t)dur;
}

static void switch_back_to_interactive_wr(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	bfqq->wr_coeff = bfqd->bfq_wr_coeff;
	bfqq->wr_cur_max_time = bfq_wr_duration(bfqd);
	bfqq->last_wr_start_finish = bfqq->wr_start_at_switch_to_srt;
}

void bfq_bfqq_end_wr(struct bfq_data *bfqd, struct bfq_queue *bfqq, enum bfq_wr_end why)
{
	/* Not soft rt: the next soft-rt check starts from now (bfq_sw_softrt_end_reset). */
	if (bfqq->wr_cur_max_time != bfqd->bfq_wr_rt_max_time &&
	    bfq_sw(bfqd, BFQ_SW_SOFTRT_END_RESET))
		bfqq->soft_rt_next_start = bfqd->jiffies;
	if (bfq_bfqq_busy(bfqq))
		bfqd->wr_busy_queues--;
	bfqq->wr_coeff = 1;
	bfqq->wr_cur_max_time = 0;
	bfqq->last_wr_start_finish = bfqd->jiffies;
	bfqq->entity.prio_changed = 1;
	bfqd->stats.wr_ended[why]++;
	bfq_log_bfqq(bfqd, bfqq, "end_wr: %s",
		     why == BFQ_WR_END_TIME	 ? "time"
		     : why == BFQ_WR_END_BURST	 ? "large burst"
		     : why == BFQ_WR_END_SERVICE ? "max_service_from_wr"
						 : "other");
}

/* low_latency set to 0: every raising period ends (bfq_end_wr). */
void bfq_end_wr(struct bfq_data *bfqd)
{
	for (uint32_t i = 0; i < bfqd->nr_queues; i++) {
		struct bfq_queue *bfqq = &bfqd->queues[i];

		if (bfqq->alive && bfqq->wr_coeff > 1)
			bfq_bfqq_end_wr(bfqd, bfqq, BFQ_WR_END_OTHER);
	}
}

void bfq_bfqq_save_state(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	struct bfq_io_cq *bic = bfqq->bic;
	struct bfq_iocq_bfqq_data *d;

	if (!bic)
		return;
	d = &bic->bfqq_data;
	d->saved_last_serv_time_ns = bfqq->last_serv_time_ns;
	d->saved_inject_limit = bfqq->inject_limit;
	d->saved_decrease_time_jif = bfqq->decrease_time_jif;
	d->saved_weight = (uint32_t)bfqq->entity.orig_weight;
	d->saved_ttime = bfqq->ttime;
	d->saved_has_short_ttime = bfq_bfqq_has_short_ttime(bfqq);
	d->saved_IO_bound = bfq_bfqq_IO_bound(bfqq);
	d->saved_io_start_time = bfqq->io_start_time;
	d->saved_tot_idle_time = bfqq->tot_idle_time;
	d->saved_in_large_burst = bfq_bfqq_in_large_burst(bfqq);
	d->was_in_burst_list = !sched_list_empty(&bfqq->burst_list_node);
	if (bfq_bfqq_just_created(bfqq) && !bfq_bfqq_in_large_burst(bfqq) && bfqd->p.low_latency &&
	    bfq_sw(bfqd, BFQ_SW_EARLY_MERGE_WR)) {
		/* Merged before its first raising: it would have been raised. */
		d->saved_wr_coeff = bfqd->bfq_wr_coeff;
		d->saved_wr_start_at_switch_to_srt = bfq_smallest_from_now(bfqd);
		d->saved_wr_cur_max_time = bfq_wr_duration(bfqd);
		d->saved_last_wr_start_finish = bfqd->jiffies;
	} else {
		d->saved_wr_coeff = bfqq->wr_coeff;
		d->saved_wr_start_at_switch_to_srt = bfqq->wr_start_at_switch_to_srt;
		d->saved_service_from_wr = bfqq->service_from_wr;
		d->saved_last_wr_start_finish = bfqq->last_wr_start_finish;
		d->saved_wr_cur_max_time = bfqq->wr_cur_max_time;
	}
}

void bfq_bfqq_resume_state(struct bfq_data *bfqd, struct bfq_queue *bfqq, struct bfq_io_cq *bic,
			   bool bfq_already_existing)
{
	struct bfq_iocq_bfqq_data *d = &bic->bfqq_data;
	uint32_t old_wr_coeff = 1;
	bool busy = bfq_already_existing && bfq_bfqq_busy(bfqq);

	if (d->saved_has_short_ttime)
		bfq_mark_bfqq_has_short_ttime(bfqq);
	else
		bfq_clear_bfqq_has_short_ttime(bfqq);
	if (d->saved_IO_bound)
		bfq_mark_bfqq_IO_bound(bfqq);
	else
		bfq_clear_bfqq_IO_bound(bfqq);
	bfqq->last_serv_time_ns = d->saved_last_serv_time_ns;
	bfqq->inject_limit = d->saved_inject_limit;
	bfqq->decrease_time_jif = d->saved_decrease_time_jif;
	if (bfq_sw(bfqd, BFQ_SW_SPLIT_WEIGHT))
		bfqq->entity.new_weight = (int32_t)d->saved_weight;
	bfqq->ttime = d->saved_ttime;
	bfqq->io_start_time = d->saved_io_start_time;
	bfqq->tot_idle_time = d->saved_tot_idle_time;
	/* 4.12 restored raising whatever low_latency (bfq_sw_split_wr_busy). */
	if (bfqd->p.low_latency || !bfq_sw(bfqd, BFQ_SW_SPLIT_WR_BUSY)) {
		old_wr_coeff = bfqq->wr_coeff;
		bfqq->wr_coeff = d->saved_wr_coeff;
	}
	bfqq->service_from_wr = d->saved_service_from_wr;
	bfqq->wr_start_at_switch_to_srt = d->saved_wr_start_at_switch_to_srt;
	bfqq->last_wr_start_finish = d->saved_last_wr_start_finish;
	bfqq->wr_cur_max_time = d->saved_wr_cur_max_time;
	if (bfqq->wr_coeff > 1 &&
	    (bfq_bfqq_in_large_burst(bfqq) ||
	     before_jiffies(bfqd, bfqq->last_wr_start_finish + bfqq->wr_cur_max_time))) {
		if (bfqq->wr_cur_max_time == bfqd->bfq_wr_rt_max_time &&
		    !bfq_bfqq_in_large_burst(bfqq) && bfq_sw(bfqd, BFQ_SW_SPLIT_SWITCH_BACK) &&
		    after_eq_jiffies(bfqd, bfqq->wr_start_at_switch_to_srt + bfq_wr_duration(bfqd)))
			switch_back_to_interactive_wr(bfqd, bfqq);
		else
			bfqq->wr_coeff = 1;
	}
	bfqq->entity.prio_changed = 1;
	/* 4.12 left wr_busy_queues as it was (bfq_sw_split_wr_busy). */
	if (!busy || !bfq_sw(bfqd, BFQ_SW_SPLIT_WR_BUSY))
		return;
	if (old_wr_coeff == 1 && bfqq->wr_coeff > 1)
		bfqd->wr_busy_queues++;
	else if (old_wr_coeff > 1 && bfqq->wr_coeff == 1)
		bfqd->wr_busy_queues--;
}

/* ---- idle to busy ---- */

/*
 * A queue becomes busy again. If it was waiting for a request that came soon (arrived in
 * time), it resumes its budget and old timestamps, to recover the service hole, and asks
 * for the in-service queue to be expired.
 */
static bool bfq_bfqq_update_budg_for_activation(struct bfq_data *bfqd, struct bfq_queue *bfqq,
						bool arrived_in_time)
{
	struct bfq_entity *entity = &bfqq->entity;
	/* 4.12 reset the service when the queue is set in service, and recovered a hole
	 * with no budget left too (bfq_sw_service_at_expiration). */
	bool reset = bfq_sw(bfqd, BFQ_SW_SERVICE_AT_EXPIRATION);
	long budget;

	if (bfq_bfqq_non_blocking_wait_rq(bfqq) && arrived_in_time &&
	    (bfq_bfqq_budget_left(bfqq) > 0 || !reset)) {
		int left = bfq_bfqq_budget_left(bfqq);

		entity->budget = left < bfqq->max_budget ? left : bfqq->max_budget;
		if (reset)
			entity->service = 0;
		return true;
	}
	if (reset)
		entity->service = 0;
	budget = bfqq->max_budget;
	if ((long)bfq_serv_to_charge(bfqd, bfqq->next_rq, bfqq) > budget)
		budget = (long)bfq_serv_to_charge(bfqd, bfqq->next_rq, bfqq);
	entity->budget = (int32_t)budget;
	bfq_clear_bfqq_non_blocking_wait_rq(bfqq);
	return false;
}

static void bfq_update_bfqq_wr_on_rq_arrival(struct bfq_data *bfqd, struct bfq_queue *bfqq,
					     uint32_t old_wr_coeff, bool wr_or_deserves_wr,
					     bool interactive, bool in_burst, bool soft_rt)
{
	if (old_wr_coeff == 1 && wr_or_deserves_wr) {
		if (interactive) {
			bfqq->service_from_wr = 0;
			bfqq->wr_coeff = bfqd->bfq_wr_coeff;
			bfqq->wr_cur_max_time = bfq_wr_duration(bfqd);
			bfqd->stats.wr_started[BFQ_WR_INTERACTIVE]++;
		} else {
			/* No interactive raising in progress for soft rt to fall back to (4.12:
			 * one from now, bfq_sw_srt_switch_back). */
			bfqq->wr_start_at_switch_to_srt = bfq_sw(bfqd, BFQ_SW_SRT_SWITCH_BACK)
							      ? bfq_smallest_from_now(bfqd)
							      : bfqd->jiffies;
			bfqq->wr_coeff = bfqd->bfq_wr_coeff * BFQ_SOFTRT_WEIGHT_FACTOR;
			bfqq->wr_cur_max_time = bfqd->bfq_wr_rt_max_time;
			bfqd->stats.wr_started[BFQ_WR_SOFT_RT]++;
		}
		bfq_log_bfqq(bfqd, bfqq, "wr start: %s coeff %u dur %lld ms",
			     interactive ? "interactive" : "soft rt", bfqq->wr_coeff,
			     (long long)jiffies_to_ms(bfqq->wr_cur_max_time));
		/* A budget close to the backlog of a latency-sensitive queue. */
		if (bfqd->p.wr_fixed_budget && bfqq->entity.budget > 2 * bfq_min_budget(bfqd))
			bfqq->entity.budget = 2 * bfq_min_budget(bfqd);
	} else if (old_wr_coeff > 1) {
		if (interactive) {
			bfqq->wr_coeff = bfqd->bfq_wr_coeff;
			bfqq->wr_cur_max_time = bfq_wr_duration(bfqd);
		} else if (in_burst) {
			bfqq->wr_coeff = 1;
			bfqd->stats.wr_ended[BFQ_WR_END_BURST]++;
		} else if (soft_rt) {
			/* Recharge as soft rt before interactive raising ends. */
			if (bfqq->wr_cur_max_time != bfqd->bfq_wr_rt_max_time) {
				bfqq->wr_start_at_switch_to_srt = bfqq->last_wr_start_finish;
				bfqq->wr_cur_max_time = bfqd->bfq_wr_rt_max_time;
				bfqq->wr_coeff = bfqd->bfq_wr_coeff * BFQ_SOFTRT_WEIGHT_FACTOR;
				bfqd->stats.wr_started[BFQ_WR_SOFT_RT]++;
			}
			bfqq->last_wr_start_finish = bfqd->jiffies;
		}
	}
}

static bool bfq_bfqq_idle_for_long_time(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	return bfqq->dispatched == 0 &&
	       before_jiffies(bfqd, bfqq->budget_timeout + bfqd->bfq_wr_min_idle_time);
}

static bool bfq_bfqq_higher_class_or_weight(struct bfq_queue *bfqq,
					    struct bfq_queue *in_serv_bfqq)
{
	int bfqq_weight, in_serv_weight;

	if (bfqq->ioprio_class < in_serv_bfqq->ioprio_class)
		return true;
	if (in_serv_bfqq->entity.parent == bfqq->entity.parent) {
		bfqq_weight = bfqq->entity.weight;
		in_serv_weight = in_serv_bfqq->entity.weight;
	} else {
		bfqq_weight = bfqq->entity.parent ? bfqq->entity.parent->weight
						  : bfqq->entity.weight;
		in_serv_weight = in_serv_bfqq->entity.parent ? in_serv_bfqq->entity.parent->weight
							     : in_serv_bfqq->entity.weight;
	}
	return bfqq_weight > in_serv_weight;
}

static void bfq_bfqq_handle_idle_busy_switch(struct bfq_data *bfqd, struct bfq_queue *bfqq,
					     struct bfq_io_cq *bic, uint32_t old_wr_coeff,
					     bool *interactive)
{
	bool soft_rt, in_burst, wr_or_deserves_wr, bfqq_wants_to_preempt, preempt, default_weight;
	bool idle_for_long_time = bfq_bfqq_idle_for_long_time(bfqd, bfqq);
	/* bfq_slice_idle * 3 is u32 arithmetic in the kernel: it wraps too. */
	bool arrived_in_time =
	    bfqd->now <= bfqq->ttime.last_end_request + (uint32_t)(bfqd->p.slice_idle * 3);
	/* Merged queues are not raised, unless stably merged (same application). */
	bool non_merged_or_stably_merged = bfqq->bic || bic->bfqq_data.stably_merged;

	in_burst = bfq_bfqq_in_large_burst(bfqq);
	/* Default weight only (BFQ_SW_RAISE_DEFAULT_WEIGHT; 4.12 raised any weight). */
	default_weight = !bfq_sw(bfqd, BFQ_SW_RAISE_DEFAULT_WEIGHT) || bfqq->entity.new_weight == 40;
	soft_rt = bfqd->bfq_wr_max_softrt_rate > 0 &&
		  (!BFQQ_TOTALLY_SEEKY(bfqq) || !bfq_sw(bfqd, BFQ_SW_SOFTRT_SEEKY)) && !in_burst &&
		  before_jiffies(bfqd, bfqq->soft_rt_next_start) &&
		  (bfqq->dispatched == 0 || !bfq_sw(bfqd, BFQ_SW_SOFTRT_FILTER)) && default_weight;
	*interactive = !in_burst && idle_for_long_time && default_weight;
	/* Sync, not in a large burst, idle long enough or soft rt, own queue, default weight. */
	wr_or_deserves_wr = bfqd->p.low_latency &&
			    (bfqq->wr_coeff > 1 ||
			     (bfq_bfqq_sync(bfqq) && non_merged_or_stably_merged &&
			      (*interactive || soft_rt)));
	bfqq_wants_to_preempt = bfq_bfqq_update_budg_for_activation(bfqd, bfqq, arrived_in_time);
	/* Idle much longer than an interactive queue: its part of the burst is over. */
	if (!bfq_bfqq_just_created(bfqq) && idle_for_long_time &&
	    before_jiffies(bfqd, bfqq->budget_timeout + ms_to_jiffies(10000))) {
		sched_list_del_init(&bfqq->burst_list_node);
		bfq_clear_bfqq_in_large_burst(bfqq);
	}
	bfq_clear_bfqq_just_created(bfqq);
	/* 4.12 (bfq_sw_io_intensity off): I/O-bound again after 120 activations in time. */
	if (!bfq_sw(bfqd, BFQ_SW_IO_INTENSITY) && !bfq_bfqq_IO_bound(bfqq)) {
		if (arrived_in_time) {
			if (++bfqq->requests_within_timer >= BFQ_REQUESTS_WITHIN_TIMER)
				bfq_mark_bfqq_IO_bound(bfqq);
		} else {
			bfqq->requests_within_timer = 0;
		}
	}
	if (bfqd->p.low_latency) {
		if (after_jiffies(bfqd, bfqq->split_time))
			bfqq->split_time = bfqd->jiffies - bfqd->bfq_wr_min_idle_time - 1;
		if (before_jiffies(bfqd, bfqq->split_time + bfqd->bfq_wr_min_idle_time)) {
			bfq_update_bfqq_wr_on_rq_arrival(bfqd, bfqq, old_wr_coeff,
							 wr_or_deserves_wr, *interactive, in_burst,
							 soft_rt);
			if (old_wr_coeff != bfqq->wr_coeff)
				bfqq->entity.prio_changed = 1;
		}
	}
	bfqq->last_idle_bklogged = bfqd->jiffies;
	bfqq->service_from_backlogged = 0;
	bfq_clear_bfqq_softrt_update(bfqq);
	bfq_add_bfqq_busy(bfqd, bfqq);
	/*
	 * Expire the in-service queue when bfqq recovers a service hole and is at least as
	 * raised, or has a higher class or weight (4.12: only when bfqq is more raised;
	 * BFQ_SW_PREEMPT_EQUAL), or when plugging is no longer useful (BFQ_SW_PREEMPT_UNPLUG);
	 * and only if bfqq may be the next to serve.
	 */
	if (!bfqd->in_service_queue || !next_queue_may_preempt(bfqd))
		goto out;
	if (bfq_sw(bfqd, BFQ_SW_PREEMPT_EQUAL))
		preempt = (bfqq_wants_to_preempt &&
			   bfqq->wr_coeff >= bfqd->in_service_queue->wr_coeff) ||
			  bfq_bfqq_higher_class_or_weight(bfqq, bfqd->in_service_queue);
	else /* 4.12: a hole to recover, or deserving raising, and more raised than it */
		preempt = (bfqq_wants_to_preempt || wr_or_deserves_wr) &&
			  bfqd->in_service_queue->wr_coeff < bfqq->wr_coeff;
	if (bfq_sw(bfqd, BFQ_SW_PREEMPT_UNPLUG))
		preempt = preempt || !bfq_better_to_idle(bfqd, bfqd->in_service_queue);
	if (preempt) {
		bfqd->stats.preemptions++;
		bfq_bfqq_expire(bfqd, bfqd->in_service_queue, false, BFQ_EXP_PREEMPTED);
	}
out:
	return;
}

/* ---- injection and wakers ---- */

void bfq_reset_inject_limit(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	bfqq->last_serv_time_ns = 0;
	bfqd->waited_rq = NULL;
	/* Short think time: start prudently at 0; long: at 1, as it will hardly be sampled. */
	bfqq->inject_limit = bfq_bfqq_has_short_ttime(bfqq) ? 0 : 1;
	bfqq->decrease_time_jif = bfqd->jiffies;
}

static void bfq_update_io_intensity(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	uint64_t now_ns = bfqd->now;
	uint64_t tot_io_time = now_ns - bfqq->io_start_time;

	/* last_end_request starts 1 ns after creation: this wraps (bfq_internal.h). */
	if (sched_rb_empty(&bfqq->sort_list) && bfqq->dispatched == 0)
		bfqq->tot_idle_time += now_ns - bfqq->ttime.last_end_request;
	if (bfq_bfqq_just_created(bfqq))
		return;
	/* I/O bound: busy at least about 80% of the time. */
	if (bfqq->tot_idle_time * 5 > tot_io_time)
		bfq_clear_bfqq_IO_bound(bfqq);
	else
		bfq_mark_bfqq_IO_bound(bfqq);
	/* A window of at most 200 ms. */
	if (tot_io_time > 200 * BFQ_NSEC_PER_MSEC) {
		bfqq->io_start_time = now_ns - (tot_io_time >> 1);
		bfqq->tot_idle_time >>= 1;
	}
}

/*
 * bfqq gets new I/O right after completions of another queue, three times in a row within a
 * short window: that queue is its waker, whose I/O is injected while bfqq is plugged.
 */
static void bfq_check_waker(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	uint64_t now_ns = bfqd->now;

	if (!bfqd->last_completed_rq_bfqq || bfqd->last_completed_rq_bfqq == bfqq ||
	    bfq_bfqq_has_short_ttime(bfqq) || now_ns - bfqd->last_completion >= 4 * BFQ_NSEC_PER_MSEC ||
	    bfqd->last_completed_rq_bfqq == &bfqd->oom_bfqq || bfqq == &bfqd->oom_bfqq)
		return;
	if (bfqd->last_completed_rq_bfqq != bfqq->tentative_waker_bfqq ||
	    now_ns > bfqq->waker_detection_started + 128 * bfqd->p.slice_idle) {
		bfqq->tentative_waker_bfqq = bfqd->last_completed_rq_bfqq;
		bfqq->num_waker_detections = 1;
		bfqq->waker_detection_started = now_ns;
		bfq_log_bfqq(bfqd, bfqq, "set tentative waker %d",
			     bfqq->tentative_waker_bfqq->pid);
	} else {
		bfqq->num_waker_detections++;
	}
	if (bfqq->num_waker_detections == 3) {
		bfqq->waker_bfqq = bfqd->last_completed_rq_bfqq;
		bfqq->tentative_waker_bfqq = NULL;
		bfqd->stats.wakers_detected++;
		bfq_log_bfqq(bfqd, bfqq, "set waker %d", bfqq->waker_bfqq->pid);
		if (!sched_list_empty(&bfqq->woken_list_node))
			sched_list_del_init(&bfqq->woken_list_node);
		sched_list_add(&bfqq->woken_list_node, &bfqd->last_completed_rq_bfqq->woken_list);
	}
}

/*
 * The inject limit follows the total service time of bfqq's first request after it became
 * empty: up while it stays below 1.5x the baseline measured without injection, down
 * otherwise.
 */
void bfq_update_inject_limit(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	uint64_t tot_time_ns = bfqd->now - bfqd->last_empty_occupied_ns;
	uint32_t old_limit = bfqq->inject_limit;

	if (bfqq->last_serv_time_ns > 0 && bfqd->rqs_injected) {
		uint64_t threshold = (bfqq->last_serv_time_ns * 3) >> 1;

		if (tot_time_ns >= threshold && old_limit > 0) {
			bfqq->inject_limit--;
			bfqq->decrease_time_jif = bfqd->jiffies;
		} else if (tot_time_ns < threshold && old_limit <= (uint32_t)bfqd->max_rq_in_driver) {
			bfqq->inject_limit++;
		}
	}
	if ((bfqq->last_serv_time_ns == 0 && bfqd->tot_rq_in_driver == 1) ||
	    tot_time_ns < bfqq->last_serv_time_ns) {
		if (bfqq->last_serv_time_ns == 0)
			bfqq->inject_limit = old_limit > 1 ? old_limit : 1;
		bfqq->last_serv_time_ns = tot_time_ns;
	} else if (!bfqd->rqs_injected && bfqd->tot_rq_in_driver == 1) {
		bfqq->last_serv_time_ns = tot_time_ns;
	}
	bfqd->waited_rq = NULL;
	bfqd->rqs_injected = false;
}

/* ---- requests in, requests out ---- */

static bool rq_pos_less(const struct sched_rb_node *a, const struct sched_rb_node *b)
{
	return sched_rq_pos(sched_rb_entry(a, struct sched_request, priv.rb)) <
	       sched_rq_pos(sched_rb_entry(b, struct sched_request, priv.rb));
}

void bfq_add_request(struct bfq_data *bfqd, struct sched_request *rq)
{
	struct bfq_queue *bfqq = RQ_BFQQ(rq);
	struct bfq_io_cq *bic = &bfqd->bics[rq->priv.aux];
	struct sched_request *prev;
	uint32_t old_wr_coeff = bfqq->wr_coeff;
	bool interactive = false;

	bfq_log_bfqq(bfqd, bfqq, "add_request %d", rq_is_sync(rq));
	bfqq->queued[rq_is_sync(rq)]++;
	bfqd->queued++;
	if (bfq_bfqq_sync(bfqq) && bic->requests <= 1 && bfq_sw(bfqd, BFQ_SW_INJECTION)) {
		if (bfq_sw(bfqd, BFQ_SW_WAKERS))
			bfq_check_waker(bfqd, bfqq);
		/* Periodically, the inject limit is recomputed from scratch. */
		if (before_eq_jiffies(bfqd, bfqq->decrease_time_jif + ms_to_jiffies(1000)))
			bfq_reset_inject_limit(bfqd, bfqq);
		/* Sample the total service time of this first request after bfqq emptied. */
		if (bfqq == bfqd->in_service_queue &&
		    (bfqd->tot_rq_in_driver == 0 ||
		     (bfqq->last_serv_time_ns > 0 && bfqd->rqs_injected &&
		      bfqd->tot_rq_in_driver > 0)) &&
		    before_eq_jiffies(bfqd, bfqq->decrease_time_jif + ms_to_jiffies(10))) {
			bfqd->last_empty_occupied_ns = bfqd->now;
			bfqd->wait_dispatch = true;
			if (bfqd->tot_rq_in_driver == 0)
				bfqd->rqs_injected = false;
		}
	}
	if (bfq_bfqq_sync(bfqq) && bfq_sw(bfqd, BFQ_SW_IO_INTENSITY))
		bfq_update_io_intensity(bfqd, bfqq);

	sched_rb_insert(&bfqq->sort_list, &rq->priv.rb, rq_pos_less);
	prev = bfqq->next_rq;
	bfqq->next_rq = bfq_choose_req(bfqd, bfqq->next_rq, rq, bfqd->last_position);
	if (!bfq_no_coop_merging(bfqd) && prev != bfqq->next_rq)
		bfq_pos_tree_add_move(bfqd, bfqq);

	if (!bfq_bfqq_busy(bfqq)) {
		bfq_bfqq_handle_idle_busy_switch(bfqd, bfqq, bic, old_wr_coeff, &interactive);
	} else {
		/* A busy async queue idle long enough between arrivals is raised. */
		if (bfqd->p.low_latency && old_wr_coeff == 1 && !rq_is_sync(rq) &&
		    before_jiffies(bfqd, bfqq->last_wr_start_finish +
						 bfqd->bfq_wr_min_inter_arr_async)) {
			bfqq->wr_coeff = bfqd->bfq_wr_coeff;
			bfqq->wr_cur_max_time = bfq_wr_duration(bfqd);
			bfqd->wr_busy_queues++;
			bfqq->entity.prio_changed = 1;
			bfqd->stats.wr_started[BFQ_WR_INTERACTIVE]++;
		}
		if (prev != bfqq->next_rq)
			bfq_updated_next_req(bfqd, bfqq);
	}
	if (bfqd->p.low_latency && (old_wr_coeff == 1 || bfqq->wr_coeff == 1 || interactive))
		bfqq->last_wr_start_finish = bfqd->jiffies;
}

static uint64_t get_sdist(uint64_t last_pos, const struct sched_request *rq)
{
	uint64_t pos = sched_rq_pos(rq);

	if (!last_pos)
		return 0;
	return pos > last_pos ? pos - last_pos : last_pos - pos;
}

static bool bfq_rq_seeky(const struct bfq_data *bfqd, uint64_t last_pos,
			 const struct sched_request *rq)
{
	return get_sdist(last_pos, rq) > BFQQ_SEEK_THR &&
	       (!bfqd->nonrot || sched_rq_sectors(rq) < BFQQ_SECT_THR_NONROT);
}

void bfq_remove_request(struct bfq_data *bfqd, struct sched_request *rq)
{
	struct bfq_queue *bfqq = RQ_BFQQ(rq);

	if (bfqq->next_rq == rq) {
		bfqq->next_rq = bfq_find_next_rq(bfqd, bfqq, rq);
		bfq_updated_next_req(bfqd, bfqq);
	}
	sched_list_del_init(&rq->priv.fifo);
	bfqq->queued[rq_is_sync(rq)]--;
	bfqd->queued--;
	sched_rb_erase(&bfqq->sort_list, &rq->priv.rb);
	if (sched_rb_empty(&bfqq->sort_list)) {
		bfqq->next_rq = NULL;
		if (bfq_bfqq_busy(bfqq) && bfqq != bfqd->in_service_queue) {
			bfq_del_bfqq_busy(bfqd, bfqq, false);
			/* Emptied while not in service: budget and service mean nothing now. */
			bfqq->entity.budget = bfqq->entity.service = 0;
		}
		if (bfqq->pos_root) {
			sched_rb_erase(bfqq->pos_root, &bfqq_pos(bfqd, bfqq)->node);
			bfqq->pos_root = NULL;
		}
	} else if (!bfq_no_coop_merging(bfqd)) {
		if (bfq_sw(bfqd, BFQ_SW_POS_TREE_ON_REMOVAL))
			bfq_pos_tree_add_move(bfqd, bfqq);
		else if (bfqq->pos_root)
			/* 4.12: the node stays; the walks compare the queue's next request as it
			 * is now, whatever the node was sorted by. */
			bfqq_pos(bfqd, bfqq)->key = sched_rq_pos(bfqq->next_rq);
	}
	if (rq_is_meta(rq))
		bfqq->meta_pending--;
}

void bfq_update_io_thinktime(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	struct bfq_ttime *ttime = &bfqq->ttime;
	uint64_t elapsed;

	/* Only the time the queue had no I/O is think time (bfq_sw_ttime_idle_only; 4.12 took
	 * the time since the last completion at every arrival, I/O pending or not). */
	if (bfq_sw(bfqd, BFQ_SW_TTIME_IDLE_ONLY) && (bfqq->dispatched || bfq_bfqq_busy(bfqq)))
		return;
	/* The first arrival at the creation instant wraps: "infinite" (bfq_internal.h). */
	elapsed = bfqd->now - ttime->last_end_request;
	if (elapsed > 2 * bfqd->p.slice_idle)
		elapsed = 2 * bfqd->p.slice_idle;
	ttime->ttime_samples = (7 * ttime->ttime_samples + 256) / 8;
	ttime->ttime_total = (7 * ttime->ttime_total + 256 * elapsed) / 8;
	ttime->ttime_mean = (ttime->ttime_total + 128) / ttime->ttime_samples;
}

void bfq_update_io_seektime(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			    const struct sched_request *rq)
{
	bfqq->seek_history <<= 1;
	bfqq->seek_history |= bfq_rq_seeky(bfqd, bfqq->last_request_pos, rq);
	/* A totally seeky soft-rt queue is no soft-rt application. */
	if (bfqq->wr_coeff > 1 && bfqq->wr_cur_max_time == bfqd->bfq_wr_rt_max_time &&
	    BFQQ_TOTALLY_SEEKY(bfqq) && bfq_sw(bfqd, BFQ_SW_SOFTRT_SEEKY)) {
		if (before_jiffies(bfqd, bfqq->wr_start_at_switch_to_srt + bfq_wr_duration(bfqd))) {
			bfq_bfqq_end_wr(bfqd, bfqq, BFQ_WR_END_OTHER);
		} else {
			switch_back_to_interactive_wr(bfqd, bfqq);
			bfqq->entity.prio_changed = 1;
		}
	}
}

/* A short think time: under half the idle slice (bfq_sw_ttime_half_slice; 4.12: under it). */
static uint64_t bfq_ttime_thresh(const struct bfq_data *bfqd)
{
	return bfq_sw(bfqd, BFQ_SW_TTIME_HALF_SLICE) ? bfqd->p.slice_idle >> 1 : bfqd->p.slice_idle;
}

void bfq_update_has_short_ttime(struct bfq_data *bfqd, struct bfq_queue *bfqq,
				struct bfq_io_cq *bic)
{
	bool has_short_ttime = true, state_changed;

	if (!bfq_bfqq_sync(bfqq) || bfq_class_idle(bfqq) || bfqd->p.slice_idle == 0)
		return;
	/* Just restored after a split: the statistics mean nothing. */
	if (after_eq_jiffies(bfqd, bfqq->split_time + bfqd->bfq_wr_min_idle_time))
		return;
	if (bic->exited || (bfq_sample_valid(bfqq->ttime.ttime_samples) &&
			    bfqq->ttime.ttime_mean > bfq_ttime_thresh(bfqd)))
		has_short_ttime = false;
	state_changed = has_short_ttime != bfq_bfqq_has_short_ttime(bfqq);
	if (has_short_ttime)
		bfq_mark_bfqq_has_short_ttime(bfqq);
	else
		bfq_clear_bfqq_has_short_ttime(bfqq);
	if (state_changed && bfqq->last_serv_time_ns == 0 &&
	    (before_eq_jiffies(bfqd, bfqq->decrease_time_jif + ms_to_jiffies(100)) ||
	     !has_short_ttime))
		bfq_reset_inject_limit(bfqd, bfqq);
}

/*
 * 4.12's bfq_update_idle_window() (bfq_sw_short_ttime off), on the same flag: the idle
 * window closes for a process gone, with slice_idle=0, or for a seeky queue that is not raised
 * on a drive not known to lack queueing (hw_tag not 0: unknown counts as queueing); otherwise
 * it follows the think time, and a raised queue keeps it open.
 */
void bfq_update_idle_window(struct bfq_data *bfqd, struct bfq_queue *bfqq, struct bfq_io_cq *bic)
{
	bool enable_idle;

	if (!bfq_bfqq_sync(bfqq) || bfq_class_idle(bfqq))
		return;
	/* Just restored after a split: the statistics mean nothing. */
	if (after_eq_jiffies(bfqd, bfqq->split_time + bfqd->bfq_wr_min_idle_time))
		return;
	enable_idle = bfq_bfqq_has_short_ttime(bfqq);
	if (bic->exited || bfqd->p.slice_idle == 0 ||
	    (bfqd->hw_tag && BFQQ_SEEKY(bfqd, bfqq) && bfqq->wr_coeff == 1))
		enable_idle = false;
	else if (bfq_sample_valid(bfqq->ttime.ttime_samples))
		enable_idle =
		    bfqq->ttime.ttime_mean <= bfq_ttime_thresh(bfqd) || bfqq->wr_coeff > 1;
	if (enable_idle)
		bfq_mark_bfqq_has_short_ttime(bfqq);
	else
		bfq_clear_bfqq_has_short_ttime(bfqq);
	bfq_log_bfqq(bfqd, bfqq, "update_idle_window: enable_idle %d", enable_idle);
}

void bfq_rq_enqueued(struct bfq_data *bfqd, struct bfq_queue *bfqq, struct sched_request *rq)
{
	if (rq_is_meta(rq))
		bfqq->meta_pending++;
	bfqq->last_request_pos = sched_rq_pos(rq) + sched_rq_sectors(rq);
	if (bfqq == bfqd->in_service_queue && bfq_bfqq_wait_request(bfqq)) {
		bool small_req = bfqq->queued[rq_is_sync(rq)] == 1 && sched_rq_sectors(rq) < 32;
		bool budget_timeout = bfq_bfqq_budget_timeout(bfqd, bfqq);

		bfqd->stats.idle_hits++;
		/*
		 * A single small request while idling boosts throughput: keep the device plugged
		 * a little more, for it to grow (or for more to come).
		 */
		if (small_req && idling_boosts_thr_without_issues(bfqd, bfqq) && !budget_timeout)
			return;
		bfq_clear_bfqq_wait_request(bfqq);
		bfq_del_timer(bfqd);
		if (budget_timeout)
			bfq_bfqq_expire(bfqd, bfqq, false, BFQ_EXP_BUDGET_TIMEOUT);
	}
}

/* ---- in service ---- */

static void bfq_set_budget_timeout(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	uint32_t timeout_coeff;

	/* Raised (interactive) queues get longer: weight / orig_weight times. */
	if (bfqq->wr_cur_max_time == bfqd->bfq_wr_rt_max_time)
		timeout_coeff = 1;
	else
		timeout_coeff = (uint32_t)(bfqq->entity.weight / bfqq->entity.orig_weight);
	bfqd->last_budget_start = bfqd->now;
	bfqq->budget_timeout = bfqd->jiffies + bfqd->bfq_timeout * timeout_coeff;
}

static void __bfq_set_in_service_queue(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	if (bfqq) {
		struct bfq_stats *st = &bfqd->stats;

		bfq_clear_bfqq_fifo_expire(bfqq);
		bfqd->budgets_assigned = (bfqd->budgets_assigned * 7 + 256) / 8;
		/* Soft rt: the raising period moves forward by the time without service. */
		if (before_jiffies(bfqd, bfqq->last_wr_start_finish) && bfqq->wr_coeff > 1 &&
		    bfqq->wr_cur_max_time == bfqd->bfq_wr_rt_max_time &&
		    before_jiffies(bfqd, bfqq->budget_timeout)) {
			if (bfqq->budget_timeout > bfqq->last_wr_start_finish)
				bfqq->last_wr_start_finish += bfqd->jiffies - bfqq->budget_timeout;
			else
				bfqq->last_wr_start_finish = bfqd->jiffies;
		}
		bfq_set_budget_timeout(bfqd, bfqq);
		st->budgets_assigned++;
		st->budget_sum += (uint64_t)bfqq->entity.budget;
		if (st->budgets_assigned == 1 || bfqq->entity.budget < st->budget_min)
			st->budget_min = bfqq->entity.budget;
		if (bfqq->entity.budget > st->budget_max)
			st->budget_max = bfqq->entity.budget;
		bfq_log_bfqq(bfqd, bfqq, "set_in_service_queue, cur-budget = %d",
			     bfqq->entity.budget);
	}
	bfqd->in_service_queue = bfqq;
	bfqd->in_serv_last_pos = 0;
}

static struct bfq_queue *bfq_set_in_service_queue(struct bfq_data *bfqd)
{
	struct bfq_queue *bfqq = bfq_get_next_queue(bfqd);

	__bfq_set_in_service_queue(bfqd, bfqq);
	return bfqq;
}

void bfq_del_timer(struct bfq_data *bfqd)
{
	bfqd->timer_armed = false;
}

/* Plug the device for the in-service queue, waiting for its next request. */
void bfq_arm_slice_timer(struct bfq_data *bfqd)
{
	struct bfq_queue *bfqq = bfqd->in_service_queue;
	/* A u32 in the kernel (bfq_arm_slice_timer(), as bfq_slice_idle itself: bfq_load_params()):
	 * a slice_idle of 2^32 ns (4.29 s) or more wraps (slice_idle_us=4417224 idles 122 ms). */
	uint32_t sl = (uint32_t)bfqd->p.slice_idle;

	bfq_mark_bfqq_wait_request(bfqq);
	/* Seeky queues idle briefly when all queues are equal; raised ones at least 20 ms. */
	if (BFQQ_SEEKY(bfqd, bfqq) && bfqq->wr_coeff == 1 && !bfq_asymmetric_scenario(bfqd, bfqq)) {
		if (sl > BFQ_MIN_TT)
			sl = BFQ_MIN_TT;
	} else if (bfqq->wr_coeff > 1 && bfq_sw(bfqd, BFQ_SW_WR_IDLE_20MS)) {
		if (sl < 20 * BFQ_NSEC_PER_MSEC)
			sl = 20 * BFQ_NSEC_PER_MSEC;
	}
	bfqd->last_idling_start = bfqd->now;
	bfqd->last_idling_start_jiffies = bfqd->jiffies;
	bfqd->timer_armed = true;
	bfqd->timer_expires = bfqd->now + sl;
	bfqd->stats.idle_timer_armed++;
	bfq_log_bfqq(bfqd, bfqq, "arm idle: %llu us", (unsigned long long)(sl / 1000));
}

/* ---- peak rate ---- */

/* The sectors transferable at the peak rate in a budget timeout. */
int32_t bfq_calc_max_budget(struct bfq_data *bfqd)
{
	return (int32_t)(((uint64_t)bfqd->peak_rate * BFQ_USEC_PER_MSEC *
			  jiffies_to_ms(bfqd->bfq_timeout)) >> BFQ_RATE_SHIFT);
}

/* 4.12 reference rates and times (R_slow, R_fast, T_slow, T_fast) for its speed classes. */
static const uint64_t r_slow_412[2] = { 1000, 10700 }, r_fast_412[2] = { 14000, 33000 };
static const uint64_t t_slow_ms_412[2] = { 3500, 6000 }, t_fast_ms_412[2] = { 7000, 2500 };

static void update_thr_responsiveness_params(struct bfq_data *bfqd)
{
	if (bfqd->p.user_max_budget == 0) {
		bfqd->bfq_max_budget = bfq_calc_max_budget(bfqd);
		bfq_log(bfqd, "new max_budget = %d", bfqd->bfq_max_budget);
	}
	bfqd->stats.max_budget = bfqd->bfq_max_budget;
	if (!bfq_sw(bfqd, BFQ_SW_WR_DURATION)) {
		int t = bfqd->nonrot ? 1 : 0;
		uint64_t thresh = 4 * r_slow_412[t] / 3;

		if (bfqd->device_fast && bfqd->peak_rate < thresh) {
			bfqd->device_fast = false;
			bfqd->rate_dur_prod = r_slow_412[t] * (uint64_t)ms_to_jiffies(t_slow_ms_412[t]);
		} else if (!bfqd->device_fast && bfqd->peak_rate > thresh) {
			bfqd->device_fast = true;
			bfqd->rate_dur_prod = r_fast_412[t] * (uint64_t)ms_to_jiffies(t_fast_ms_412[t]);
		}
	}
}

static void bfq_reset_rate_computation(struct bfq_data *bfqd, const struct sched_request *rq)
{
	if (rq) {
		bfqd->last_dispatch = bfqd->first_dispatch = bfqd->now;
		bfqd->peak_rate_samples = 1;
		bfqd->sequential_samples = 0;
		bfqd->tot_sectors_dispatched = bfqd->last_rq_max_size =
			(uint32_t)sched_rq_sectors(rq);
	} else {
		bfqd->peak_rate_samples = 0;
	}
}

static void bfq_update_rate_reset(struct bfq_data *bfqd, const struct sched_request *rq)
{
	uint32_t rate, weight, divisor;
	uint64_t us;

	if (bfqd->peak_rate_samples < BFQ_RATE_MIN_SAMPLES ||
	    bfqd->delta_from_first < BFQ_RATE_MIN_INTERVAL)
		goto reset_computation;
	/* A completion after the last dispatch extends the interval to it. As in the kernel's
	 * max_t(u64, ...), a last completion before the first dispatch wraps: the interval
	 * becomes huge and the rate 0. */
	if (bfqd->last_completion - bfqd->first_dispatch > bfqd->delta_from_first)
		bfqd->delta_from_first = bfqd->last_completion - bfqd->first_dispatch;
	us = bfqd->delta_from_first / BFQ_NSEC_PER_USEC;
	rate = (uint32_t)((bfqd->tot_sectors_dispatched << BFQ_RATE_SHIFT) / (us ? us : 1));
	/* Mostly random and not faster, or absurdly fast: no update. */
	if ((bfqd->sequential_samples < (3u * (uint32_t)bfqd->peak_rate_samples) >> 2 &&
	     rate <= bfqd->peak_rate) ||
	    rate > 20u << BFQ_RATE_SHIFT)
		goto reset_computation;
	/* Low-pass filter weighted by sequentiality and interval length. */
	weight = (9 * bfqd->sequential_samples) / (uint32_t)bfqd->peak_rate_samples;
	{
		uint64_t w = (uint64_t)weight * bfqd->delta_from_first / BFQ_RATE_REF_INTERVAL;

		weight = w < 8 ? (uint32_t)w : 8;
	}
	divisor = 10 - weight;
	bfqd->peak_rate = (uint32_t)((uint64_t)bfqd->peak_rate * (divisor - 1) / divisor);
	rate /= divisor;
	bfqd->peak_rate += rate;
	if (bfqd->peak_rate < 1)
		bfqd->peak_rate = 1;
	bfqd->stats.peak_rate = bfqd->peak_rate;
	bfqd->stats.peak_rate_updates++;
	update_thr_responsiveness_params(bfqd);
reset_computation:
	bfq_reset_rate_computation(bfqd, rq);
}

/* On every dispatch: the device's rate, estimated from dispatch times of mostly sequential I/O. */
static void bfq_update_peak_rate(struct bfq_data *bfqd, struct sched_request *rq)
{
	uint64_t now_ns = bfqd->now;

	if (bfqd->peak_rate_samples == 0) {
		bfq_reset_rate_computation(bfqd, rq);
		goto update_last_values;
	}
	/* Idle for long: the interval so far is closed before this dispatch. */
	if (now_ns - bfqd->last_dispatch > 100 * BFQ_NSEC_PER_MSEC && bfqd->tot_rq_in_driver == 0)
		goto update_rate_and_reset;
	bfqd->peak_rate_samples++;
	if ((bfqd->tot_rq_in_driver > 0 || now_ns - bfqd->last_completion < BFQ_MIN_TT) &&
	    (bfq_sw(bfqd, BFQ_SW_RATE_SEQ_SIZE)
		 ? !bfq_rq_seeky(bfqd, bfqd->last_position, rq)
		 : get_sdist(bfqd->last_position, rq) < BFQQ_SEEK_THR))
		bfqd->sequential_samples++;
	bfqd->tot_sectors_dispatched += sched_rq_sectors(rq);
	if (bfqd->peak_rate_samples % 32) {
		if (sched_rq_sectors(rq) > bfqd->last_rq_max_size)
			bfqd->last_rq_max_size = (uint32_t)sched_rq_sectors(rq);
	} else {
		bfqd->last_rq_max_size = (uint32_t)sched_rq_sectors(rq);
	}
	bfqd->delta_from_first = now_ns - bfqd->first_dispatch;
	if (bfqd->delta_from_first < BFQ_RATE_REF_INTERVAL)
		goto update_last_values;
update_rate_and_reset:
	bfq_update_rate_reset(bfqd, rq);
update_last_values:
	bfqd->last_position = sched_rq_pos(rq) + sched_rq_sectors(rq);
	if (RQ_BFQQ(rq) == bfqd->in_service_queue)
		bfqd->in_serv_last_pos = bfqd->last_position;
	bfqd->last_dispatch = now_ns;
}

static void bfq_dispatch_remove(struct bfq_data *bfqd, struct sched_request *rq)
{
	struct bfq_queue *bfqq = RQ_BFQQ(rq);

	bfqq->dispatched++;
	bfq_update_peak_rate(bfqd, rq);
	bfq_remove_request(bfqd, rq);
}

/* ---- idling ---- */

/*
 * Plugging needed so that bfqq gets its share: a raised queue competing with non-raised ones
 * (4.12: any raised queue, switch BFQ_SW_NO_PLUG_ALL_RAISED) or with a deep drive queue
 * (BFQ_SW_IDLE_DEEP_DRIVE); an asymmetric scenario; or bfqq alone.
 */
static bool idling_needed_for_service_guarantees(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	unsigned int tot_busy_queues = bfq_tot_busy_queues(bfqd);
	bool raised;

	if (bfq_sw(bfqd, BFQ_SW_IDLE_PROC_REFS) && !bfqq_process_refs(bfqq))
		return false;
	/* 4.12: no plugging for a queue activated in a large burst (BFQ_SW_IDLE_LARGE_BURST). */
	if (!bfq_sw(bfqd, BFQ_SW_IDLE_LARGE_BURST) && bfq_bfqq_in_large_burst(bfqq))
		return false;
	raised = bfqq->wr_coeff > 1 &&
		 (!bfq_sw(bfqd, BFQ_SW_NO_PLUG_ALL_RAISED) ||
		  (unsigned int)bfqd->wr_busy_queues < tot_busy_queues ||
		  (bfq_sw(bfqd, BFQ_SW_IDLE_DEEP_DRIVE) &&
		   bfqd->tot_rq_in_driver >= bfqq->dispatched + 4));
	return raised || bfq_asymmetric_scenario(bfqd, bfqq) ||
	       (tot_busy_queues == 1 && bfq_sw(bfqd, BFQ_SW_IDLE_ONLY_BUSY));
}

/*
 * Idling boosts throughput on a rotational device without queueing, or for a sequential,
 * I/O-bound queue with a short think time on a rotational or non-queueing device; but not
 * while raised queues are busy (they must not be delayed for it). 4.12: on any device known
 * not to queue (bfq_sw_flash_noqueue_idling), or on a rotational one for an I/O-bound queue
 * with its idle window open (bfq_sw_short_ttime: the window, not the seek history).
 */
bool idling_boosts_thr_without_issues(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	bool rot_without_queueing = !bfqd->nonrot && !bfqd->hw_tag;
	bool seq_and_io_bound, boosts;

	if (bfq_sw(bfqd, BFQ_SW_IDLE_PROC_REFS) && !bfqq_process_refs(bfqq))
		return false;
	seq_and_io_bound = bfq_bfqq_IO_bound(bfqq) && bfq_bfqq_has_short_ttime(bfqq) &&
			   (!bfq_sw(bfqd, BFQ_SW_SHORT_TTIME) || !BFQQ_SEEKY(bfqd, bfqq));
	if (bfq_sw(bfqd, BFQ_SW_FLASH_NOQUEUE_IDLING))
		boosts =
		    rot_without_queueing || ((!bfqd->nonrot || !bfqd->hw_tag) && seq_and_io_bound);
	else
		boosts = !bfqd->hw_tag || (!bfqd->nonrot && seq_and_io_bound);
	return boosts && bfqd->wr_busy_queues == 0;
}

/*
 * 4.12's bfq_bfqq_may_idle() had neither the process-reference check (bfq_sw_idle_proc_refs)
 * nor the slice_idle and idle-class ones (bfq_sw_better_to_idle): with slice_idle=0 only the
 * timer was not armed (bfq_bfqq_must_idle()), and an empty queue with requests in flight stayed
 * in service while it "may idle".
 */
bool bfq_better_to_idle(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	if (bfq_sw(bfqd, BFQ_SW_IDLE_PROC_REFS) && !bfqq_process_refs(bfqq))
		return false;
	if (bfqd->p.strict_guarantees)
		return true;
	if (!bfq_bfqq_sync(bfqq))
		return false;
	if (bfq_sw(bfqd, BFQ_SW_BETTER_TO_IDLE) &&
	    (bfqd->p.slice_idle == 0 || bfq_class_idle(bfqq)))
		return false;
	return idling_boosts_thr_without_issues(bfqd, bfqq) ||
	       idling_needed_for_service_guarantees(bfqd, bfqq);
}

bool bfq_bfqq_must_idle(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	return sched_rb_empty(&bfqq->sort_list) &&
	       (bfq_sw(bfqd, BFQ_SW_BETTER_TO_IDLE) || bfqd->p.slice_idle != 0) &&
	       bfq_better_to_idle(bfqd, bfqq);
}

bool bfq_bfqq_budget_timeout(const struct bfq_data *bfqd, const struct bfq_queue *bfqq)
{
	return before_eq_jiffies(bfqd, bfqq->budget_timeout);
}

/* Not while idling with most of the budget consumed: that would misalign timestamps. */
bool bfq_may_expire_for_budg_timeout(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	return (!bfq_bfqq_wait_request(bfqq) ||
		bfq_bfqq_budget_left(bfqq) >= bfqq->entity.budget / 3) &&
	       bfq_bfqq_budget_timeout(bfqd, bfqq);
}

/* ---- expiration ---- */

bool __bfq_bfqq_expire(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		       enum bfq_expire_reason reason)
{
	/* A shared queue turned seeky: its processes will be split apart. */
	if (bfq_bfqq_coop(bfqq) && BFQQ_SEEKY(bfqd, bfqq))
		bfq_mark_bfqq_split_coop(bfqq);
	/* An empty queue leaves the service trees, unless preempted while it must be plugged. */
	if (sched_rb_empty(&bfqq->sort_list) &&
	    !(reason == BFQ_EXP_PREEMPTED && bfq_sw(bfqd, BFQ_SW_PREEMPT_UNPLUG) &&
	      idling_needed_for_service_guarantees(bfqd, bfqq))) {
		if (bfqq->dispatched == 0)
			bfqq->budget_timeout = bfqd->jiffies; /* when it went idle */
		bfq_del_bfqq_busy(bfqd, bfqq, true);
	} else {
		bfq_requeue_bfqq(bfqd, bfqq, true);
		if (!bfq_no_coop_merging(bfqd) && !sched_rb_empty(&bfqq->sort_list))
			bfq_pos_tree_add_move(bfqd, bfqq);
	}
	return __bfq_bfqd_reset_in_service(bfqd);
}

/*
 * Budget feedback on expiration (sync, not raised): too idle with nothing in flight shrinks
 * it, a timeout doubles it, an exhausted budget quadruples it, no more requests sets it to
 * what was used. Raised queues get a small fixed budget (2 x min_budget), async ones the max.
 */
static void __bfq_bfqq_recalc_budget(struct bfq_data *bfqd, struct bfq_queue *bfqq,
				     enum bfq_expire_reason reason)
{
	int budget, min_budget = bfq_min_budget(bfqd);
	bool fixed = bfqq->wr_coeff > 1 && bfqd->p.wr_fixed_budget;
	struct sched_request *next_rq;

	budget = fixed ? 2 * min_budget : bfqq->max_budget;
	bfq_log_bfqq(bfqd, bfqq,
		     "recalc_budg: last max_budg %d, min budg %d, max budg %d, service %d, disp %d",
		     budget, min_budget, bfqd->bfq_max_budget, bfqq->entity.service,
		     bfqq->dispatched);
	if (bfq_bfqq_sync(bfqq) && !fixed) {
		switch (reason) {
		case BFQ_EXP_TOO_IDLE:
			if (bfqq->dispatched > 0) {
				budget = budget * 2 < bfqd->bfq_max_budget ? budget * 2
									   : bfqd->bfq_max_budget;
			} else if (budget > 5 * min_budget) {
				budget -= 4 * min_budget;
			} else {
				budget = min_budget;
			}
			break;
		case BFQ_EXP_BUDGET_TIMEOUT:
			budget = budget * 2 < bfqd->bfq_max_budget ? budget * 2 : bfqd->bfq_max_budget;
			break;
		case BFQ_EXP_BUDGET_EXHAUSTED:
			budget = budget * 4 < bfqd->bfq_max_budget ? budget * 4 : bfqd->bfq_max_budget;
			break;
		case BFQ_EXP_NO_MORE_REQUESTS:
			budget = bfqq->entity.service > min_budget ? bfqq->entity.service
								    : min_budget;
			break;
		default:
			return;
		}
	} else if (!bfq_bfqq_sync(bfqq)) {
		budget = bfqd->bfq_max_budget;
	}
	bfqq->max_budget = budget;
	if (bfqd->budgets_assigned >= BFQ_STATS_MIN_BUDGETS && !bfqd->p.user_max_budget &&
	    bfqq->max_budget > bfqd->bfq_max_budget)
		bfqq->max_budget = bfqd->bfq_max_budget;
	next_rq = bfqq->next_rq;
	if (next_rq) {
		long b = bfqq->max_budget, c = (long)bfq_serv_to_charge(bfqd, next_rq, bfqq);

		bfqq->entity.budget = (int32_t)(b > c ? b : c);
	}
	bfq_log_bfqq(bfqd, bfqq, "recalc_budg: reason %d, new max_budget %d, budget %d",
		     (int)reason, bfqq->max_budget, bfqq->entity.budget);
}

/*
 * Slow: used less than half the max budget in a slot longer than 20 ms (seekiness for shorter
 * slots). delta_ms is the slot's length, for time charging.
 */
static bool bfq_bfqq_is_slow(struct bfq_data *bfqd, struct bfq_queue *bfqq, bool compensate,
			     uint64_t *delta_ms)
{
	uint64_t end = compensate ? bfqd->last_idling_start : bfqd->now;
	uint64_t delta_usecs = end > bfqd->last_budget_start
				       ? (end - bfqd->last_budget_start) / BFQ_NSEC_PER_USEC
				       : 0;
	bool slow = BFQQ_SEEKY(bfqd, bfqq);

	if (!bfq_bfqq_sync(bfqq))
		return false;
	if (delta_usecs < 1000) {
		/* Too short: charge at least one seek (rotational) or the minimum think time. */
		*delta_ms = bfqd->nonrot ? BFQ_MIN_TT / BFQ_NSEC_PER_MSEC
					 : BFQ_SLICE_IDLE_DEFAULT_NS / BFQ_NSEC_PER_MSEC;
		return slow;
	}
	*delta_ms = delta_usecs / BFQ_USEC_PER_MSEC;
	if (delta_usecs > 20000)
		slow = bfqq->entity.service < bfqd->bfq_max_budget / 2;
	return slow;
}

/* The earliest next arrival that keeps the queue's rate under bfq_wr_max_softrt_rate. */
static int64_t bfq_bfqq_softrt_next_start(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	/* 4.12 forgot the bandwidth used before (bfq_sw_softrt_past_io). */
	int64_t a = bfq_sw(bfqd, BFQ_SW_SOFTRT_PAST_IO) ? bfqq->soft_rt_next_start
							: bfq_smallest_from_now(bfqd);
	int64_t b = bfqq->last_idle_bklogged +
		    (int64_t)((uint64_t)BFQ_HZ * bfqq->service_from_backlogged /
			      bfqd->bfq_wr_max_softrt_rate);
	int64_t c = bfqd->jiffies + ns_to_jiffies(bfqd->p.slice_idle) + 4;
	int64_t m = a > b ? a : b;

	return m > c ? m : c;
}

void bfq_bfqq_expire(struct bfq_data *bfqd, struct bfq_queue *bfqq, bool compensate,
		     enum bfq_expire_reason reason)
{
	struct bfq_entity *entity = &bfqq->entity;
	uint64_t delta = 0;
	bool slow = bfq_bfqq_is_slow(bfqd, bfqq, compensate, &delta);

	/* 4.12 summed the service of each slot here (bfq_sw_merge_time_limit: per dispatch). */
	if (!bfq_sw(bfqd, BFQ_SW_MERGE_TIME_LIMIT))
		bfqq->service_from_backlogged += (uint64_t)entity->service;

	/* Slow or timed-out queues are charged by time, to favour sequential ones. */
	if (bfqq->wr_coeff == 1 &&
	    (slow || (reason == BFQ_EXP_BUDGET_TIMEOUT &&
		      bfq_bfqq_budget_left(bfqq) >= entity->budget / 3)))
		bfq_bfqq_charge_time(bfqd, bfqq, delta);
	/* 4.12: an idle timeout after little service is no I/O-bound queue. */
	if (!bfq_sw(bfqd, BFQ_SW_IO_INTENSITY) && reason == BFQ_EXP_TOO_IDLE &&
	    entity->service <= 2 * entity->budget / 10)
		bfq_clear_bfqq_IO_bound(bfqq);
	if (bfqd->p.low_latency && bfqq->wr_coeff == 1)
		bfqq->last_wr_start_finish = bfqd->jiffies;
	if (bfqd->p.low_latency && bfqd->bfq_wr_max_softrt_rate > 0 &&
	    sched_rb_empty(&bfqq->sort_list)) {
		/* Isochronous only if nothing is in flight: decided at the last completion. */
		if (bfqq->dispatched == 0) {
			bfqq->soft_rt_next_start = bfq_bfqq_softrt_next_start(bfqd, bfqq);
		} else {
			/* 4.12: not soft real-time until the update (bfq_sw_softrt_past_io). */
			if (!bfq_sw(bfqd, BFQ_SW_SOFTRT_PAST_IO))
				bfqq->soft_rt_next_start = bfq_greatest_from_now(bfqd);
			bfq_mark_bfqq_softrt_update(bfqq);
		}
	}
	bfq_log_bfqq(bfqd, bfqq, "expire (%d, slow %d, num_disp %d, short_ttime %d)", reason,
		     slow, bfqq->dispatched, bfq_bfqq_has_short_ttime(bfqq));
	bfqd->stats.expired[reason]++;
	bfqd->rqs_injected = bfqd->wait_dispatch = false;
	bfqd->waited_rq = NULL;
	__bfq_bfqq_recalc_budget(bfqd, bfqq, reason);
	if (__bfq_bfqq_expire(bfqd, bfqq, reason))
		return; /* freed */
	/* Waiting for a request: keep service for the hole recovery on reactivation. */
	if (!bfq_bfqq_busy(bfqq) && reason != BFQ_EXP_BUDGET_TIMEOUT &&
	    reason != BFQ_EXP_BUDGET_EXHAUSTED)
		bfq_mark_bfqq_non_blocking_wait_rq(bfqq);
	else if (bfq_sw(bfqd, BFQ_SW_SERVICE_AT_EXPIRATION))
		entity->service = 0;
	if (bfq_sw(bfqd, BFQ_SW_SERVICE_AT_EXPIRATION))
		for (entity = entity->parent; entity; entity = entity->parent)
			entity->service = 0;
}

/* ---- choosing the queue ---- */

/* A queue whose next request fits its budget, to fill the drive while bfqq is plugged. */
static struct bfq_queue *bfq_choose_bfqq_for_injection(struct bfq_data *bfqd)
{
	struct bfq_queue *in_serv_bfqq = bfqd->in_service_queue;
	uint32_t limit = in_serv_bfqq->inject_limit;
	/* A raised queue with a short think time only lets raised queues inject. */
	bool in_serv_always_inject =
		in_serv_bfqq->wr_coeff == 1 || !bfq_bfqq_has_short_ttime(in_serv_bfqq);
	struct sched_list *pos;

	/*
	 * No baseline yet and the idle slot is about to end: one request costs little. The
	 * kernel adds bfq_slice_idle (ns) to a time in jiffies here, so in practice this never
	 * holds; kept as written.
	 */
	if (limit == 0 && in_serv_bfqq->last_serv_time_ns == 0 &&
	    bfq_bfqq_wait_request(in_serv_bfqq) &&
	    before_eq_jiffies(bfqd, bfqd->last_idling_start_jiffies + (int64_t)bfqd->p.slice_idle))
		limit = 1;
	if ((uint32_t)bfqd->tot_rq_in_driver >= limit)
		return NULL;
	for (pos = bfqd->active_list.next; pos != &bfqd->active_list; pos = pos->next) {
		struct bfq_queue *bfqq = sched_list_entry(pos, struct bfq_queue, bfqq_list);

		if (sched_rb_empty(&bfqq->sort_list) ||
		    !(in_serv_always_inject || bfqq->wr_coeff > 1) ||
		    (long)bfq_serv_to_charge(bfqd, bfqq->next_rq, bfqq) > bfq_bfqq_budget_left(bfqq))
			continue;
		/* A large request on a non-rotational device would hold it too long. */
		if (bfqd->nonrot && sched_rq_sectors(bfqq->next_rq) >= BFQQ_SECT_THR_NONROT &&
		    bfqd->tot_rq_in_driver >= 1)
			continue;
		bfqd->rqs_injected = true;
		return bfqq;
	}
	return NULL;
}

static bool bfqq_fits_budget(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	return bfq_bfqq_busy(bfqq) && bfqq->next_rq &&
	       (long)bfq_serv_to_charge(bfqd, bfqq->next_rq, bfqq) <= bfq_bfqq_budget_left(bfqq);
}

/*
 * The queue to dispatch from: the in-service one while it has budget for its next request;
 * while it is plugged (idling), possibly a queue to inject from (its own async queue, its
 * waker, a queue it wakes, or any queue within the inject limit); otherwise it expires
 * (BUDGET_EXHAUSTED, BUDGET_TIMEOUT, NO_MORE_REQUESTS) and B-WF2Q+ picks the next.
 */
struct bfq_queue *bfq_select_queue(struct bfq_data *bfqd)
{
	struct bfq_queue *bfqq = bfqd->in_service_queue;
	enum bfq_expire_reason reason = BFQ_EXP_BUDGET_TIMEOUT;
	struct sched_request *next_rq;

	if (!bfqq)
		goto new_queue;
	/* Not for budget timeout while bfqq is about to be plugged for (see completion). */
	/* 4.12 kept a queue waiting for a request (bfq_sw_keep_plugged). */
	if (bfq_may_expire_for_budg_timeout(bfqd, bfqq) &&
	    (bfq_sw(bfqd, BFQ_SW_KEEP_PLUGGED) || !bfq_bfqq_wait_request(bfqq)) &&
	    !bfq_bfqq_must_idle(bfqd, bfqq))
		goto expire;
check_queue:
	next_rq = bfqq->next_rq;
	if (next_rq) {
		if ((long)bfq_serv_to_charge(bfqd, next_rq, bfqq) > bfq_bfqq_budget_left(bfqq)) {
			reason = BFQ_EXP_BUDGET_EXHAUSTED;
			goto expire;
		}
		if (bfq_bfqq_wait_request(bfqq)) {
			/* A request came during idling and the device is unplugged now. */
			bfq_clear_bfqq_wait_request(bfqq);
			bfq_del_timer(bfqd);
		}
		return bfqq;
	}
	/* No request: keep bfqq if idling for it, or if its in-flight I/O may bring more. */
	if (bfq_bfqq_wait_request(bfqq) || (bfqq->dispatched != 0 && bfq_better_to_idle(bfqd, bfqq))) {
		struct bfq_queue *async_bfqq = NULL, *blocked_bfqq = NULL, *inject = NULL;

		if (!bfq_sw(bfqd, BFQ_SW_INJECTION))
			return NULL;
		if (!sched_list_empty(&bfqq->woken_list))
			blocked_bfqq = sched_list_entry(bfqq->woken_list.next, struct bfq_queue,
							woken_list_node);
		if (bfqq->bic && bfqq->bic->bfqq[0] && bfqq_fits_budget(bfqd, bfqq->bic->bfqq[0]) &&
		    bfqq->bic->bfqq[0]->next_rq->priv.aux == bfqq->bic->owner)
			async_bfqq = bfqq->bic->bfqq[0];
		if (async_bfqq) {
			inject = async_bfqq;
		} else if (bfq_sw(bfqd, BFQ_SW_WAKERS) && bfqq->waker_bfqq &&
			   bfqq_fits_budget(bfqd, bfqq->waker_bfqq)) {
			inject = bfqq->waker_bfqq;
			bfqd->stats.injected_waker++;
		} else if (bfq_sw(bfqd, BFQ_SW_WAKERS) && blocked_bfqq &&
			   bfqq_fits_budget(bfqd, blocked_bfqq)) {
			inject = blocked_bfqq;
		} else if (!idling_boosts_thr_without_issues(bfqd, bfqq) &&
			   (bfqq->wr_coeff == 1 || bfqd->wr_busy_queues > 1 ||
			    !bfq_bfqq_has_short_ttime(bfqq))) {
			inject = bfq_choose_bfqq_for_injection(bfqd);
		}
		if (inject)
			bfq_log_bfqq(bfqd, inject, "select_queue: injecting for %d", bfqq->pid);
		return inject;
	}
	reason = BFQ_EXP_NO_MORE_REQUESTS;
expire:
	bfq_bfqq_expire(bfqd, bfqq, false, reason);
new_queue:
	bfqq = bfq_set_in_service_queue(bfqd);
	if (bfqq)
		goto check_queue;
	return NULL;
}

/* Raising ends by time, large burst or (6.x) service received; the weight follows at once. */
void bfq_update_wr_data(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	struct bfq_entity *entity = &bfqq->entity;

	if (bfqq->wr_coeff > 1) {
		if (bfq_bfqq_in_large_burst(bfqq)) {
			bfq_bfqq_end_wr(bfqd, bfqq, BFQ_WR_END_BURST);
		} else if (before_jiffies(bfqd, bfqq->last_wr_start_finish + bfqq->wr_cur_max_time)) {
			if (bfqq->wr_cur_max_time != bfqd->bfq_wr_rt_max_time ||
			    before_jiffies(bfqd, bfqq->wr_start_at_switch_to_srt +
							 bfq_wr_duration(bfqd))) {
				bfq_bfqq_end_wr(bfqd, bfqq, BFQ_WR_END_TIME);
			} else {
				/* Soft rt over while still in the interactive period. */
				switch_back_to_interactive_wr(bfqd, bfqq);
				bfqq->entity.prio_changed = 1;
			}
		}
		if (bfqq->wr_coeff > 1 && bfqq->wr_cur_max_time != bfqd->bfq_wr_rt_max_time &&
		    bfq_sw(bfqd, BFQ_SW_MAX_SERVICE_FROM_WR) &&
		    bfqq->service_from_wr > BFQ_MAX_SERVICE_FROM_WR)
			bfq_bfqq_end_wr(bfqd, bfqq, BFQ_WR_END_SERVICE);
	}
	if ((entity->weight > entity->orig_weight) != (bfqq->wr_coeff > 1))
		__bfq_entity_update_weight_prio(bfqd, bfq_entity_service_tree(entity), entity, false);
}

struct sched_request *bfq_dispatch_rq_from_bfqq(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	struct sched_request *rq = bfqq->next_rq;

	bfq_bfqq_served(bfqd, bfqq, (int)bfq_serv_to_charge(bfqd, rq, bfqq));
	if (bfqq == bfqd->in_service_queue && bfqd->wait_dispatch) {
		bfqd->wait_dispatch = false;
		bfqd->waited_rq = rq;
	}
	bfq_dispatch_remove(bfqd, rq);
	if (bfqq != bfqd->in_service_queue) {
		bfqd->stats.injected++;
		return rq;
	}
	bfq_update_wr_data(bfqd, bfqq);
	/* An idle-class queue gives way after each request when others wait. */
	if (bfq_tot_busy_queues(bfqd) > 1 && bfq_class_idle(bfqq))
		bfq_bfqq_expire(bfqd, bfqq, false, BFQ_EXP_BUDGET_EXHAUSTED);
	return rq;
}

/* ---- completion ---- */

static void bfq_update_hw_tag(struct bfq_data *bfqd)
{
	struct bfq_queue *bfqq = bfqd->in_service_queue;

	if (bfqd->tot_rq_in_driver > bfqd->max_rq_in_driver)
		bfqd->max_rq_in_driver = bfqd->tot_rq_in_driver;
	if (bfqd->hw_tag == 1)
		return;
	/* Samples only under enough load to show queueing (4.12: < 4, the same test). */
	if (bfqd->tot_rq_in_driver + bfqd->queued <= BFQ_HW_QUEUE_THRESHOLD)
		return;
	/* A short-think queue with little I/O does not fill the device: no sample
	 * (bfq_sw_hw_tag_short_ttime). */
	if (bfq_sw(bfqd, BFQ_SW_HW_TAG_SHORT_TTIME) && bfqq && bfq_bfqq_has_short_ttime(bfqq) &&
	    bfqq->dispatched + bfqq->queued[0] + bfqq->queued[1] < BFQ_HW_QUEUE_THRESHOLD &&
	    bfqd->tot_rq_in_driver < BFQ_HW_QUEUE_THRESHOLD)
		return;
	if (bfqd->hw_tag_samples++ < BFQ_HW_QUEUE_SAMPLES)
		return;
	/* Queueing: more than 3 requests in the drive (bfq_sw_hw_tag_thr; 4.12: 4). */
	bfqd->hw_tag =
	    bfqd->max_rq_in_driver > (bfq_sw(bfqd, BFQ_SW_HW_TAG_THR) ? BFQ_HW_QUEUE_THRESHOLD : 4);
	bfqd->max_rq_in_driver = 0;
	bfqd->hw_tag_samples = 0;
	bfqd->nonrot_with_queueing = bfqd->nonrot && bfqd->hw_tag;
	bfqd->stats.hw_tag = bfqd->hw_tag;
	bfq_log(bfqd, "hw_tag=%d", bfqd->hw_tag);
}

bool bfq_completed_request(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	uint64_t now_ns = bfqd->now, delta_us;

	bfq_update_hw_tag(bfqd);
	bfqd->tot_rq_in_driver--;
	bfqq->dispatched--;
	if (!bfqq->dispatched && !bfq_bfqq_busy(bfqq)) {
		bfqq->budget_timeout = bfqd->jiffies; /* when it went idle */
		bfq_del_bfqq_in_groups_with_pending_reqs(bfqd, bfqq);
		bfq_weights_tree_remove(bfqd, bfqq);
	}
	bfqq->ttime.last_end_request = now_ns;
	/* A very slow completion (< 1M sectors/s for the largest request): no rate sample. */
	delta_us = (now_ns - bfqd->last_completion) / BFQ_NSEC_PER_USEC;
	if (delta_us > BFQ_MIN_TT / BFQ_NSEC_PER_USEC &&
	    ((uint64_t)bfqd->last_rq_max_size << BFQ_RATE_SHIFT) / delta_us <
		    (1ull << (BFQ_RATE_SHIFT - 10)))
		bfq_update_rate_reset(bfqd, NULL);
	bfqd->last_completion = now_ns;
	bfqd->last_completed_rq_bfqq = bfq_bfqq_coop(bfqq) ? NULL : bfqq;
	if (bfq_bfqq_softrt_update(bfqq) && bfqq->dispatched == 0 &&
	    sched_rb_empty(&bfqq->sort_list) &&
	    (bfqq->wr_coeff != bfqd->bfq_wr_coeff || !bfq_sw(bfqd, BFQ_SW_SOFTRT_FILTER)))
		bfqq->soft_rt_next_start = bfq_bfqq_softrt_next_start(bfqd, bfqq);
	if (bfqd->in_service_queue == bfqq) {
		/* 4.12 could still expire it on its budget timeout while requests were in
		 * flight (bfq_sw_keep_plugged). */
		if ((bfqq->dispatched == 0 || bfq_sw(bfqd, BFQ_SW_KEEP_PLUGGED)) &&
		    bfq_bfqq_must_idle(bfqd, bfqq)) {
			if (bfqq->dispatched == 0)
				bfq_arm_slice_timer(bfqd);
			/* Not expired even on budget timeout: that would break its guarantees.
			 * Nor is a dispatch scheduled: the queue idles for its next request. */
			return false;
		} else if (bfq_may_expire_for_budg_timeout(bfqd, bfqq)) {
			bfq_bfqq_expire(bfqd, bfqq, false, BFQ_EXP_BUDGET_TIMEOUT);
		} else if (sched_rb_empty(&bfqq->sort_list) &&
			   (bfqq->dispatched == 0 || !bfq_better_to_idle(bfqd, bfqq))) {
			bfq_bfqq_expire(bfqd, bfqq, false, BFQ_EXP_NO_MORE_REQUESTS);
		}
	}
	/* if (!bfqd->tot_rq_in_driver) bfq_schedule_dispatch(): when something is queued
	 * (bfq_sw_completion_dispatch; 4.12 left the run to the next insertion) */
	return bfq_sw(bfqd, BFQ_SW_COMPLETION_DISPATCH) && !bfqd->tot_rq_in_driver && bfqd->queued;
}

/* The idle slice timer fired (bfq_idle_slice_timer_body). */
void bfq_idle_slice_timer(struct bfq_data *bfqd)
{
	struct bfq_queue *bfqq = bfqd->in_service_queue;
	enum bfq_expire_reason reason;

	bfqd->stats.idle_timer_fired++;
	if (!bfqq)
		return;
	bfq_clear_bfqq_wait_request(bfqq);
	if (bfq_bfqq_budget_timeout(bfqd, bfqq))
		reason = BFQ_EXP_BUDGET_TIMEOUT;
	else if (bfqq->queued[0] == 0 && bfqq->queued[1] == 0)
		reason = BFQ_EXP_TOO_IDLE;
	else
		return; /* a request came: dispatch it */
	bfq_bfqq_expire(bfqd, bfqq, true, reason);
}
