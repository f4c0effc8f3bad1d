// SPDX-License-Identifier: GPL-2.0
/*
 * Dirty limits and balance_dirty_pages(): the I/O-less throttling of 3.2+ (mm/page-writeback.c
 * of 6.12, per bdi_writeback: with cgroup writeback each group's wb has its share of the
 * global dirty limit by its fraction of recent writeback completions, its own write bandwidth
 * and dirty rate limit; no memcg domain, no strictlimit) and the 2.6.x dirtier that writes back
 * itself. Rates are in pages per second and times in jiffies, as in the kernel.
 */
#include <string.h>

#include "pc_internal.h"

static uint32_t pc_ilog2(uint64_t x)
{
	return x ? 63u - (uint32_t)__builtin_clzll(x) : 0;
}

static uint64_t roundup_pow2(uint64_t x)
{
	return x <= 1 ? 1 : 1ull << (64 - __builtin_clzll(x - 1));
}

/* domain_dirty_limits(): the whole cache is dirtyable memory (global_dirtyable_memory()). */
void pc_limits(const struct pc *pc, uint64_t *bg_thresh, uint64_t *thresh)
{
	uint64_t avail = pc->cache_pages;
	uint64_t ratio = (uint64_t)pc->p.dirty_ratio * PC_PAGE_SIZE / 100;
	uint64_t bg_ratio = (uint64_t)pc->p.dirty_background_ratio * PC_PAGE_SIZE / 100;
	uint64_t t, bg;

	if (pc->p.dirty_bytes)
		t = (pc->p.dirty_bytes + PC_PAGE_SIZE - 1) / PC_PAGE_SIZE;
	else
		t = ratio * avail / PC_PAGE_SIZE;
	if (pc->p.dirty_background_bytes)
		bg = (pc->p.dirty_background_bytes + PC_PAGE_SIZE - 1) / PC_PAGE_SIZE;
	else
		bg = bg_ratio * avail / PC_PAGE_SIZE;
	if (t > UINT32_MAX)
		t = UINT32_MAX;
	if (bg >= t)
		bg = t / 2;
	*thresh = t;
	*bg_thresh = bg;
}

static uint64_t freerun_ceiling(uint64_t thresh, uint64_t bg)
{
	return (thresh + bg) / 2;
}

static uint64_t hard_dirty_limit(const struct pc *pc, uint64_t thresh)
{
	return thresh > pc->dom_dirty_limit ? thresh : pc->dom_dirty_limit;
}

/* wb_stat_error(): the percpu counters' slack. */
static uint64_t stat_error(const struct pc *pc)
{
	return (uint64_t)pc->p.nr_cpus * 8 * (1 + pc_ilog2(pc->p.nr_cpus));
}

/* ---- 2.6.x: the task's share of recent dirtying (task_dirty_limit()) ---- */

void pc_prop_dirtied(struct pc *pc, struct pc_task *t, uint64_t now, uint32_t n)
{
	uint64_t bg, thresh, period;
	uint32_t d;

	(void)now;
	pc_limits(pc, &bg, &thresh);
	/* calc_period_shift(): 2 + ilog2(dirty_total) events per period; halves at each. */
	period = 1ull << (2 + pc_ilog2(thresh ? thresh : 1));
	pc->prop_events += n;
	pc->prop_total += n;
	if (pc->prop_events >= period) {
		pc->prop_events = 0;
		pc->prop_gen++;
		pc->prop_total >>= 1;
	}
	d = pc->prop_gen - t->prop_gen;
	t->prop_dirtied = d >= 64 ? 0 : t->prop_dirtied >> d;
	t->prop_gen = pc->prop_gen;
	t->prop_dirtied += n;
}

/* task_dirty_limit(): heavy dirtiers get up to 1/8 less. */
static uint64_t task_dirty_limit(const struct pc *pc, const struct pc_task *t, uint64_t dirty)
{
	uint32_t d = pc->prop_gen - t->prop_gen;
	uint64_t num = d >= 64 ? 0 : t->prop_dirtied >> d, den = pc->prop_total;
	uint64_t inv = dirty >> 3, lim;

	if (!den)
		return dirty;
	if (num > den)
		num = den;
	lim = dirty - inv * num / den;
	return lim < dirty / 2 ? dirty / 2 : lim;
}

/* ---- the wbs' shares: writeback completions (lib/flex_proportions.c) ---- */

/* VM_COMPLETIONS_PERIOD_LEN: the completions halve every 3 s. */
static uint64_t completions_period_len(const struct pc *pc)
{
	return 3ull * pc->p.hz;
}

/*
 * The global completions and the wb's, aged to jiffy j: writeout_period() (the timer that
 * fprop_new_period()s the domain's completions every VM_COMPLETIONS_PERIOD_LEN, missed periods
 * at once, stopping when at most one event is left), run here when next looked at, then
 * fprop_reflect_period_percpu() of the wb's.
 */
static void completions_at(const struct pc *pc, const struct pc_wb *w, uint64_t j, uint64_t *num,
			   uint64_t *den, uint32_t *period_out, uint64_t *period_time_out)
{
	uint64_t events = pc->completions_events, pt = pc->completions_period_time, local;
	uint32_t period = pc->completions_period, d;

	if (pt && j >= pt) {
		uint64_t n = (j - pt) / completions_period_len(pc) + 1;

		if (events > 1) {
			events = n < 64 ? events >> n : 0;
			period += (uint32_t)n;
			pt += n * completions_period_len(pc);
		} else {
			pt = 0;
		}
	}
	local = w ? w->completions : 0;
	d = w ? period - w->completions_period : 0;
	if (d)
		local = d < 64 ? local >> d : 0;
	*num = local;
	*den = events;
	if (period_out)
		*period_out = period;
	if (period_time_out)
		*period_time_out = pt;
}

/* __wb_writeout_add(wb, 1): WB_WRITTEN, and wb_domain_writeout_add() of the global domain. */
void pc_wb_writeout(struct pc *pc, uint32_t wb, uint64_t now)
{
	struct pc_wb *w = pc_wb_of(pc, wb);
	uint64_t j = pc_jiffies(pc, now), num, den, pt;
	uint32_t period;

	w->wb_written++;
	w->st.written++;
	completions_at(pc, w, j, &num, &den, &period, &pt);
	pc->completions_events = den + 1;
	pc->completions_period = period;
	pc->completions_period_time = pt;
	w->completions = num + 1;
	w->completions_period = period;
	if (!pc->completions_period_time) {
		/* wp_next_time(): 0 means "stopped" */
		pc->completions_period_time = j + completions_period_len(pc);
		if (!pc->completions_period_time)
			pc->completions_period_time = 1;
	}
}

uint64_t pc_wb_calc_thresh(const struct pc *pc, uint32_t wb, uint64_t thresh, uint64_t dirty)
{
	uint64_t num, den;

	(void)dirty; /* 6.12 raises a near-0 wb_thresh for strictlimit bdis only */
	if (pc->nr_wbs_used <= 1)
		return thresh; /* one wb: all of it (its fraction is 1 once it has written) */
	completions_at(pc, pc_wb_of(pc, wb), pc_jiffies(pc, pc->clock), &num, &den, NULL, NULL);
	/* fprop_fraction_percpu(): a fraction <= 1, a denominator > 0 */
	if (den <= num)
		den = num ? num : 1;
	/* bdi min_ratio 0, max_ratio 100%: the share alone */
	return thresh * num / den;
}

/* ---- 3.2+: bandwidth estimation and the rate limit ---- */

struct dtc {
	uint64_t dirty, thresh, bg_thresh, wb_thresh, wb_dirty;
	uint64_t pos_ratio;
	bool dirty_exceeded;
};

static int64_t pos_ratio_polynom(uint64_t setpoint, uint64_t dirty, uint64_t limit)
{
	int64_t x = (((int64_t)setpoint - (int64_t)dirty) * (1 << PC_RATELIMIT_CALC_SHIFT)) /
		    (int64_t)((limit - setpoint) | 1);
	int64_t pr = x;

	pr = pr * x >> PC_RATELIMIT_CALC_SHIFT;
	pr = pr * x >> PC_RATELIMIT_CALC_SHIFT;
	pr += 1 << PC_RATELIMIT_CALC_SHIFT;
	if (pr < 0)
		pr = 0;
	if (pr > 2 << PC_RATELIMIT_CALC_SHIFT)
		pr = 2 << PC_RATELIMIT_CALC_SHIFT;
	return pr;
}

/* wb_position_ratio(), no strictlimit. */
static void position_ratio(const struct pc *pc, const struct pc_wb *w, struct dtc *d)
{
	uint64_t write_bw = w->avg_write_bandwidth;
	uint64_t freerun = freerun_ceiling(d->thresh, d->bg_thresh);
	uint64_t limit = hard_dirty_limit(pc, d->thresh);
	uint64_t wb_thresh = d->wb_thresh, setpoint, wb_setpoint, span, x_intercept, x;
	int64_t pos_ratio;

	d->pos_ratio = 0;
	if (d->dirty >= limit)
		return;
	setpoint = (freerun + limit) / 2;
	pos_ratio = pos_ratio_polynom(setpoint, d->dirty, limit);
	if (wb_thresh > d->thresh)
		wb_thresh = d->thresh;
	if (wb_thresh < (limit - d->dirty) / 8)
		wb_thresh = (limit - d->dirty) / 8;
	x = (wb_thresh << 16) / (d->thresh | 1);
	wb_setpoint = setpoint * x >> 16;
	span = (d->thresh - wb_thresh + 8 * write_bw) * x >> 16;
	x_intercept = wb_setpoint + span;
	if (d->wb_dirty < x_intercept - span / 4)
		pos_ratio = (int64_t)((uint64_t)pos_ratio * (x_intercept - d->wb_dirty) /
				      ((x_intercept - wb_setpoint) | 1));
	else
		pos_ratio /= 4;
	/* wb reserve area: safeguard against the dirty pool running dry and the disk idling. */
	x_intercept = wb_thresh / 2;
	if (d->wb_dirty < x_intercept) {
		if (d->wb_dirty > x_intercept / 8)
			pos_ratio = (int64_t)((uint64_t)pos_ratio * x_intercept / d->wb_dirty);
		else
			pos_ratio *= 8;
	}
	d->pos_ratio = (uint64_t)pos_ratio;
}

static void update_write_bandwidth(struct pc *pc, struct pc_wb *w, uint64_t elapsed,
				   uint64_t written)
{
	uint64_t period = roundup_pow2(3ull * pc->p.hz);
	uint64_t avg = w->avg_write_bandwidth, old = w->write_bandwidth, bw;

	bw = written - (written < w->written_stamp ? written : w->written_stamp);
	bw *= pc->p.hz;
	if (elapsed > period) {
		bw /= elapsed;
		avg = bw;
		goto out;
	}
	bw += w->write_bandwidth * (period - elapsed);
	bw >>= pc_ilog2(period);
	/* one more level of smoothing, for filtering out sudden spikes */
	if (avg > old && old >= bw)
		avg -= (avg - old) >> 3;
	if (avg < old && old <= bw)
		avg += (old - avg) >> 3;
out:
	if (avg < 1)
		avg = 1;
	w->write_bandwidth = bw;
	w->avg_write_bandwidth = avg;
	w->st.write_bw = (uint32_t)avg;
	pc->st.write_bw = (uint32_t)avg;
}

/* update_dirty_limit(): follows thresh up at once, down slowly. */
static void domain_update_dirty_limit(struct pc *pc, const struct dtc *d, uint64_t j)
{
	uint64_t thresh = d->thresh, limit = pc->dom_dirty_limit;

	if (j < pc->dirty_limit_tstamp + (pc->p.hz / 5 ? pc->p.hz / 5 : 1))
		return;
	if (limit < thresh) {
		limit = thresh;
	} else {
		if (thresh < d->dirty)
			thresh = d->dirty;
		if (limit > thresh)
			limit -= (limit - thresh) >> 5;
	}
	pc->dom_dirty_limit = limit;
	pc->dirty_limit_tstamp = j;
}

/* wb_update_dirty_ratelimit(): dirty_ratelimit tracks write_bw / N dirtiers. */
static void update_dirty_ratelimit(struct pc *pc, struct pc_wb *w, const struct dtc *d,
				   uint64_t dirtied, uint64_t elapsed)
{
	uint64_t dirty = d->dirty;
	uint64_t freerun = freerun_ceiling(d->thresh, d->bg_thresh);
	uint64_t limit = hard_dirty_limit(pc, d->thresh);
	uint64_t setpoint = (freerun + limit) / 2;
	uint64_t write_bw = w->avg_write_bandwidth, dirty_ratelimit = w->dirty_ratelimit;
	uint64_t dirty_rate, task_ratelimit, balanced, step = 0, x, shift;

	dirty_rate = (dirtied - w->dirtied_stamp) * pc->p.hz / elapsed;
	task_ratelimit = (dirty_ratelimit * d->pos_ratio >> PC_RATELIMIT_CALC_SHIFT) + 1;
	balanced = task_ratelimit * write_bw / (dirty_rate | 1);
	if (balanced > write_bw)
		balanced = write_bw;
	if (dirty < setpoint) {
		x = w->balanced_dirty_ratelimit;
		if (balanced < x)
			x = balanced;
		if (task_ratelimit < x)
			x = task_ratelimit;
		if (dirty_ratelimit < x)
			step = x - dirty_ratelimit;
	} else {
		x = w->balanced_dirty_ratelimit;
		if (balanced > x)
			x = balanced;
		if (task_ratelimit > x)
			x = task_ratelimit;
		if (dirty_ratelimit > x)
			step = dirty_ratelimit - x;
	}
	/* Don't pursue 100% rate matching: slow down near the target. */
	shift = dirty_ratelimit / (2 * step + 1);
	if (shift < 64)
		step = ((step >> shift) + 7) / 8;
	else
		step = 0;
	if (dirty_ratelimit < balanced)
		dirty_ratelimit += step;
	else
		dirty_ratelimit -= step;
	w->dirty_ratelimit = dirty_ratelimit ? dirty_ratelimit : 1;
	w->balanced_dirty_ratelimit = balanced;
	w->st.dirty_ratelimit = (uint32_t)w->dirty_ratelimit;
	pc->st.dirty_ratelimit = (uint32_t)w->dirty_ratelimit;
}

static void bw_update(struct pc *pc, uint32_t wb, uint64_t now, const struct dtc *d)
{
	struct pc_wb *w = pc_wb_of(pc, wb);
	uint64_t j = pc_jiffies(pc, now);
	uint64_t elapsed = j > w->bw_time_stamp ? j - w->bw_time_stamp : 1;

	if (d) {
		domain_update_dirty_limit(pc, d, j);
		update_dirty_ratelimit(pc, w, d, w->wb_dirtied, elapsed);
	}
	update_write_bandwidth(pc, w, elapsed, w->wb_written);
	w->dirtied_stamp = w->wb_dirtied;
	w->written_stamp = w->wb_written;
	w->bw_time_stamp = j;
}

void pc_bw_update(struct pc *pc, uint32_t wb, uint64_t now)
{
	bw_update(pc, wb, now, NULL);
}

/* dirty_poll_interval(): near-sqrt of the pages still allowed. */
static uint32_t dirty_poll_interval(uint64_t dirty, uint64_t thresh)
{
	if (thresh > dirty)
		return 1u << (pc_ilog2(thresh - dirty) >> 1);
	return 1;
}

static int64_t wb_max_pause(const struct pc *pc, const struct pc_wb *w, uint64_t wb_dirty)
{
	uint64_t bw = w->avg_write_bandwidth;
	uint64_t t = wb_dirty / (1 + bw / roundup_pow2(1 + pc->p.hz / 8)) + 1;
	uint64_t max_pause = pc->p.hz / 5 ? pc->p.hz / 5 : 1;

	return (int64_t)(t < max_pause ? t : max_pause);
}

static int64_t wb_min_pause(const struct pc *pc, const struct pc_wb *w, int64_t max_pause,
			    uint64_t task_ratelimit, uint64_t dirty_ratelimit,
			    uint32_t *nr_dirtied_pause)
{
	int64_t hi = pc_ilog2(w->avg_write_bandwidth), lo = pc_ilog2(w->dirty_ratelimit);
	int64_t hz = pc->p.hz, t, pause;
	uint64_t pages;

	t = hz / 100 > 1 ? hz / 100 : 1; /* 10 ms on one dd */
	if (hi > lo)
		t += (hi - lo) * (10 * hz) / 1024; /* N x 10 ms on 2^N dirtiers */
	if (t > 1 + max_pause / 2)
		t = 1 + max_pause / 2;
	pages = dirty_ratelimit * (uint64_t)t / roundup_pow2((uint64_t)hz);
	/* Push nr_dirtied_pause up to DIRTY_POLL_THRESH: tiny ones hurt CFQ's idling. */
	if (pages < PC_DIRTY_POLL_THRESH) {
		t = max_pause;
		pages = dirty_ratelimit * (uint64_t)t / roundup_pow2((uint64_t)hz);
		if (pages > PC_DIRTY_POLL_THRESH) {
			pages = PC_DIRTY_POLL_THRESH;
			t = hz * PC_DIRTY_POLL_THRESH /
			    (int64_t)(dirty_ratelimit ? dirty_ratelimit : 1);
		}
	}
	pause = (int64_t)((uint64_t)hz * pages / (task_ratelimit + 1));
	if (pause > max_pause) {
		t = max_pause;
		pages = task_ratelimit * (uint64_t)t / roundup_pow2((uint64_t)hz);
	}
	*nr_dirtied_pause = (uint32_t)pages;
	return pages >= PC_DIRTY_POLL_THRESH ? 1 + t / 2 : t;
}

static bool writeback_in_progress(const struct pc *pc, uint32_t wb)
{
	return pc_wb_of(pc, wb)->fl.running;
}

/* The wb of the task's file (balance_dirty_pages()'s inode_to_wb()). */
static uint32_t task_wb(const struct pc *pc, const struct pc_task *t)
{
	return t->file < pc->max_files ? pc_file_wbi(pc, pc_file_of(pc, t->file)) : 0;
}

/* 3.2+ balance_dirty_pages(): returns PC_DONE, or PC_SLEEP with the pause set up. */
static int bdp_ioless(struct pc *pc, uint32_t task, uint64_t pages_dirtied, uint64_t now,
		      const struct pc_host *h)
{
	struct pc_task *t = pc_task_of(pc, task);
	uint32_t wbi = task_wb(pc, t);
	struct pc_wb *w = pc_wb_of(pc, wbi);
	int64_t hz = pc->p.hz;

	for (;;) {
		uint64_t j = pc_jiffies(pc, now), nr_dirty = pc->nr_dirty;
		uint64_t dirty_ratelimit, task_ratelimit;
		int64_t period, pause, max_pause, min_pause;
		uint32_t nr_dirtied_pause;
		struct dtc d;

		memset(&d, 0, sizeof(d));
		d.dirty = pc->nr_dirty + pc->nr_writeback;
		pc_limits(pc, &d.bg_thresh, &d.thresh);
		pc->st.thresh = (uint32_t)d.thresh;
		pc->st.bg_thresh = (uint32_t)d.bg_thresh;
		if (nr_dirty > d.bg_thresh && !writeback_in_progress(pc, wbi))
			pc_flusher_kick(pc, wbi, now, h);
		if (d.dirty <= freerun_ceiling(d.thresh, d.bg_thresh)) {
			t->dirty_paused_when = j;
			t->nr_dirtied = 0;
			t->nr_dirtied_pause = dirty_poll_interval(d.dirty, d.thresh);
			return PC_DONE;
		}
		if (!writeback_in_progress(pc, wbi))
			pc_flusher_kick(pc, wbi, now, h);
		/* wb_dirty_limits(): the wb's share of the limit and its dirty pages (one wb in
		 * use: all of them). */
		if (pc->nr_wbs_used <= 1) {
			d.wb_thresh = d.thresh;
			d.wb_dirty = d.dirty;
		} else {
			d.wb_thresh = pc_wb_calc_thresh(pc, wbi, d.thresh, d.dirty);
			d.wb_dirty = w->nr_reclaimable + w->nr_writeback;
		}
		w->st.wb_thresh = (uint32_t)d.wb_thresh;
		d.dirty_exceeded = d.wb_dirty > d.wb_thresh && d.dirty > d.thresh;
		position_ratio(pc, w, &d);
		w->dirty_exceeded = d.dirty_exceeded;
		if (d.dirty_exceeded)
			pc->st.dirty_exceeded++;
		if (j >= w->bw_time_stamp + (uint64_t)(hz / 5 ? hz / 5 : 1))
			bw_update(pc, wbi, now, &d);
		dirty_ratelimit = w->dirty_ratelimit;
		task_ratelimit = dirty_ratelimit * d.pos_ratio >> PC_RATELIMIT_CALC_SHIFT;
		max_pause = wb_max_pause(pc, w, d.wb_dirty);
		min_pause = wb_min_pause(pc, w, max_pause, task_ratelimit, dirty_ratelimit,
					 &nr_dirtied_pause);
		if (task_ratelimit == 0) {
			period = max_pause;
			pause = max_pause;
			goto pause;
		}
		period = (int64_t)((uint64_t)hz * pages_dirtied / task_ratelimit);
		pause = period;
		if (t->dirty_paused_when)
			pause -= (int64_t)(j - t->dirty_paused_when);
		/* Less than min_pause to sleep: compensate in the next periods. */
		if (pause < min_pause) {
			if (pause < -hz) {
				t->dirty_paused_when = j;
				t->nr_dirtied = 0;
			} else if (period) {
				t->dirty_paused_when += (uint64_t)period;
				t->nr_dirtied = 0;
			} else if (t->nr_dirtied_pause <= pages_dirtied) {
				t->nr_dirtied_pause += (uint32_t)pages_dirtied;
			}
			return PC_DONE;
		}
		if (pause > max_pause) {
			/* for occasional dropped task_ratelimit */
			int64_t extra =
			    pause - max_pause < max_pause ? pause - max_pause : max_pause;

			j += (uint64_t)extra;
			pause = max_pause;
		}
	pause:
		t->sleep_start = now;
		t->sleep_until = now + (uint64_t)pause * pc->jiffy_ns;
		pc_set_wait(pc, t, W_SLEEP);
		t->st.pauses++;
		t->dirty_paused_when = j + (uint64_t)pause;
		t->nr_dirtied = 0;
		t->nr_dirtied_pause = nr_dirtied_pause;
		/* The loop goes on after the sleep only when the task may not dirty at all. */
		t->bdp_again = !task_ratelimit && d.wb_dirty > stat_error(pc);
		t->bdp_pages = pages_dirtied;
		t->phase = PH_BDP;
		return PC_SLEEP;
	}
}

/* ---- 2.6.x: the dirtier writes back ---- */

static int64_t write_chunk_old(const struct pc *pc)
{
	/* sync_writeback_pages(): ratelimit_pages + ratelimit_pages / 2 */
	return pc->ratelimit_pages + pc->ratelimit_pages / 2;
}

static bool old_under_limit(const struct pc *pc, const struct pc_task *t)
{
	uint64_t bg, thresh;

	pc_limits(pc, &bg, &thresh);
	/* One bdi: bdi_thresh is the whole limit, less the task's heavy-dirtier cut. */
	return pc->nr_dirty + pc->nr_writeback <= task_dirty_limit(pc, t, thresh);
}

/* The end of 2.6.x balance_dirty_pages(): kick pdflush above the background threshold. */
static int bdp_old_end(struct pc *pc, uint32_t task, uint64_t now, const struct pc_host *h)
{
	struct pc_task *t = pc_task_of(pc, task);
	uint64_t bg, thresh;

	pc_limits(pc, &bg, &thresh);
	if (pc->nr_dirty + pc->nr_writeback < task_dirty_limit(pc, t, thresh))
		pc_wb_of(pc, task_wb(pc, t))->dirty_exceeded = 0;
	t->phase = PH_COPY;
	if (!writeback_in_progress(pc, task_wb(pc, t)) && pc->nr_dirty > bg)
		pc_flusher_kick(pc, task_wb(pc, t), now, h);
	return PC_DONE;
}

/* The loop of 2.6.x balance_dirty_pages(), from its top. */
static int bdp_old_loop(struct pc *pc, uint32_t task, uint64_t now, const struct pc_host *h)
{
	struct pc_task *t = pc_task_of(pc, task);
	uint64_t bg, thresh;

	pc_limits(pc, &bg, &thresh);
	pc->st.thresh = (uint32_t)thresh;
	pc->st.bg_thresh = (uint32_t)bg;
	if (old_under_limit(pc, t))
		return bdp_old_end(pc, task, now, h);
	/* Throttle it only when the background writeback cannot catch up. */
	if (pc->nr_dirty + pc->nr_writeback < (bg + thresh) / 2)
		return bdp_old_end(pc, task, now, h);
	pc_wb_of(pc, task_wb(pc, t))->dirty_exceeded = 1;
	pc->st.dirty_exceeded++;
	if (pc->nr_dirty) {
		/* writeback_inodes(): any dirty inode of the bdi, in the dirtier's context,
		 * blocking on the request queue. */
		pc_pass_start(pc, task, task_wb(pc, t), PASS_DIRTIER,
			      write_chunk_old(pc) - t->bdp_written, UINT64_MAX, false, false,
			      PASS_QUEUE_ALWAYS);
		t->phase = PH_BDP_WRITING;
		return PC_SUBMIT;
	}
	t->phase = PH_BDP;
	if (old_under_limit(pc, t) || t->bdp_written >= write_chunk_old(pc))
		return bdp_old_end(pc, task, now, h);
	/* congestion_wait(WRITE, HZ/10) */
	t->sleep_start = now;
	t->sleep_until = now + (pc->p.hz / 10 ? pc->p.hz / 10 : 1) * pc->jiffy_ns;
	pc_set_wait(pc, t, W_CONGESTION);
	t->st.congestion_waits++;
	return PC_SLEEP;
}

int pc_bdp_ratelimited(struct pc *pc, uint32_t task, uint64_t now, const struct pc_host *h,
		       struct pc_result *res)
{
	struct pc_task *t = pc_task_of(pc, task);
	uint32_t ratelimit;

	(void)res;
	if (!pc_sw(pc, PC_SW_IOLESS_THROTTLE)) {
		/* balance_dirty_pages_ratelimited_nr(mapping, 1), per page written */
		ratelimit = pc_wb_of(pc, task_wb(pc, t))->dirty_exceeded ? 8 : pc->ratelimit_pages;
		if (++pc->bdp_ratelimits < ratelimit)
			return PC_DONE;
		pc->bdp_ratelimits = 0;
		t->bdp_written = 0;
		t->phase = PH_BDP;
		return bdp_old_loop(pc, task, now, h);
	}
	ratelimit = t->nr_dirtied_pause;
	if (pc_wb_of(pc, task_wb(pc, t))->dirty_exceeded && ratelimit > 8)
		ratelimit = 8; /* 32 >> (PAGE_SHIFT - 10) */
	if (t->nr_dirtied >= ratelimit) {
		pc->bdp_ratelimits = 0;
	} else if (pc->bdp_ratelimits >= pc->ratelimit_pages) {
		pc->bdp_ratelimits = 0;
		ratelimit = 0;
	}
	if (t->nr_dirtied < ratelimit)
		return PC_DONE;
	return bdp_ioless(pc, task, t->nr_dirtied, now, h);
}

int pc_bdp_continue(struct pc *pc, uint32_t task, uint64_t now, const struct pc_host *h,
		    struct pc_result *res)
{
	struct pc_task *t = pc_task_of(pc, task);

	(void)res;
	if (pc_sw(pc, PC_SW_IOLESS_THROTTLE)) {
		t->phase = PH_COPY;
		if (!t->bdp_again)
			return PC_DONE;
		t->bdp_again = 0;
		return bdp_ioless(pc, task, t->bdp_pages, now, h);
	}
	if (t->phase == PH_BDP_WRITING) {
		/* Back from writeback_inodes(): pages_written += what the pass wrote. */
		uint64_t bg, thresh;

		if (t->pass.active)
			return PC_SUBMIT;
		t->bdp_written += t->pass.wrote;
		t->phase = PH_BDP;
		pc_limits(pc, &bg, &thresh);
		if (old_under_limit(pc, t) || t->bdp_written >= write_chunk_old(pc))
			return bdp_old_end(pc, task, now, h);
		t->sleep_start = now;
		t->sleep_until = now + (pc->p.hz / 10 ? pc->p.hz / 10 : 1) * pc->jiffy_ns;
		pc_set_wait(pc, t, W_CONGESTION);
		t->st.congestion_waits++;
		return PC_SLEEP;
	}
	/* After congestion_wait(): the loop again. */
	return bdp_old_loop(pc, task, now, h);
}
