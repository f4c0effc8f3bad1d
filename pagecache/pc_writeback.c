// SPDX-License-Identifier: GPL-2.0
/*
 * Writeback: write_cache_pages() over one inode (ascending runs of dirty pages, one request
 * per run up to max_sectors_kb), the passes over the inode lists (writeback_sb_inodes() of
 * 6.12, writeback_inodes() of 2.6.x), the flusher (the per-bdi wb_workfn() of 2.6.32+ or
 * pdflush's background_writeout() and wb_kupdate()), fsync and truncate.
 */
#include <string.h>

#include "pc_internal.h"

void pc_wbc_init(struct pc_wbc *w, uint32_t file, uint32_t index, uint32_t end, bool sync_all,
		 bool cyclic, int64_t nr_to_write)
{
	memset(w, 0, sizeof(*w));
	w->file = file;
	w->index = index;
	w->end = end;
	w->sync_all = sync_all;
	w->cyclic = cyclic;
	w->nr_to_write = nr_to_write;
}

static uint8_t io_flags(const struct pc *pc, int reason)
{
	switch (reason) {
	case PC_WHY_FSYNC:
		/* wbc_to_write_flags(): WB_SYNC_ALL -> REQ_SYNC (not in 2.6.29's xfs) */
		return pc_sw(pc, PC_SW_SYNC_WRITEBACK_REQ_SYNC) ? PC_IO_SYNC : 0;
	case PC_WHY_KUPDATE:
	case PC_WHY_BACKGROUND:
		return PC_IO_BACKGROUND;
	default:
		return 0;
	}
}

/*
 * The next request of the walk: from w->index, the first page tagged for this writeback
 * (DIRTY and not under writeback for WB_SYNC_NONE; TOWRITE for WB_SYNC_ALL), and the run of
 * eligible pages after it, up to max_sectors_kb and PC_MAX_SEGMENTS pages (bios merged in the
 * plug, or split, up to the queue's limits). WB_SYNC_ALL waits on a tagged page still under
 * writeback; a tagged page already cleaned by someone else is skipped.
 */
int pc_wbc_next(struct pc *pc, uint32_t task, struct pc_wbc *w, struct pc_io *io, int reason,
		uint32_t *wait_index)
{
	struct pc_file *f = pc_file_of(pc, w->file);
	uint64_t idx = w->index;

	if (!w->sync_all && w->nr_to_write <= 0) {
		if (w->cyclic)
			f->writeback_index = w->index;
		return WALK_BUDGET;
	}
	for (;;) {
		uint32_t c, cn, n = 0;
		uint64_t base, mask, cand, p, first;
		struct pc_chunk *C;

		if (idx > w->end)
			break;
		c = pc_chunk_next(pc, w->file, (uint32_t)(idx >> PC_CHUNK_SHIFT));
		if (c == PC_NONE)
			break;
		C = pc_chunk_of(pc, c);
		cn = (uint32_t)C->key;
		base = (uint64_t)cn << PC_CHUNK_SHIFT;
		if (base > w->end)
			break;
		if (idx < base)
			idx = base;
		mask = ~0ull << (idx - base);
		if (w->end - base < PC_CHUNK_PAGES - 1)
			mask &= (2ull << (w->end - base)) - 1;
		cand = (w->sync_all ? C->towrite : C->dirty & ~C->writeback) & mask;
		if (!cand) {
			idx = base + PC_CHUNK_PAGES;
			continue;
		}
		p = base + (uint64_t)__builtin_ctzll(cand);
		if (w->sync_all) {
			uint64_t m = 1ull << (p - base);

			if (!(C->dirty & m)) {
				/* Somebody else wrote it for us. */
				C->towrite &= ~m;
				idx = p + 1;
				continue;
			}
			if (C->writeback & m) {
				w->index = (uint32_t)p;
				*wait_index = (uint32_t)p;
				return WALK_WAIT;
			}
		}
		first = p;
		/* A raw block device's writeback: a bio per page (buffer head), for the plug to
		 * merge. */
		while (n < (pc->p.buffer_head_writeback ? 1u : pc->rq_pages) &&
		       first + n <= w->end) {
			uint64_t q = first + n, m;

			if ((q >> PC_CHUNK_SHIFT) != cn) {
				cn = (uint32_t)(q >> PC_CHUNK_SHIFT);
				c = pc_chunk_find(pc, w->file, cn);
				if (c == PC_NONE)
					break;
				C = pc_chunk_of(pc, c);
			}
			m = 1ull << (q & (PC_CHUNK_PAGES - 1));
			if (!(C->dirty & m) || (C->writeback & m) ||
			    (w->sync_all && !(C->towrite & m)))
				break;
			pc_page_start_writeback(pc, c, (uint32_t)(q & (PC_CHUNK_PAGES - 1)));
			n++;
			if (!w->sync_all && --w->nr_to_write <= 0)
				break;
		}
		w->index = (uint32_t)(first + n);
		w->written += n;
		memset(io, 0, sizeof(*io));
		io->file = w->file;
		io->index = (uint32_t)first;
		io->npages = n;
		io->op = PC_IO_WRITE;
		io->flags = io_flags(pc, reason);
		io->reason = (uint8_t)reason;
		io->issuer = task;
		io->group = pc_io_group(pc, task, w->file, true);
		pc->st.wb_requests[reason]++;
		pc->st.wb_pages[reason] += n;
		pc_task_of(pc, task)->st.wb_pages += n;
		pc_task_of(pc, task)->st.wb_requests++;
		if (pc_is_flusher(pc, task)) {
			struct pc_wb_stats *ws = &pc_wb_of(pc, task - pc->max_tasks)->st;

			ws->wb_pages += n;
			ws->wb_requests++;
		}
		return WALK_IO;
	}
	/* No more pages: range_cyclic writeback starts at 0 next time (6.12 does not loop back
	 * within the call). */
	w->index = w->end;
	if (w->cyclic)
		f->writeback_index = 0;
	return WALK_END;
}

/* ---- the inode lists ---- */

/*
 * queue_io(): b_more_io goes back to b_io, then the inodes of b_dirty dirtied no later than
 * dirtied_before, oldest first; writeback takes b_io from its tail, so it meets the old b_io,
 * then b_more_io, then the expired inodes eldest first.
 */
void pc_queue_io(struct pc *pc, uint32_t wb, uint64_t dirtied_before)
{
	struct pc_list *wbl = pc_wb_of(pc, wb)->wbl;

	while (wbl[WBL_MORE_IO].tail != PC_NONE)
		pc_list_add_head(pc, wbl[WBL_MORE_IO].tail, WBL_IO);
	while (wbl[WBL_DIRTY].tail != PC_NONE) {
		uint32_t f = wbl[WBL_DIRTY].tail;

		if (pc_file_of(pc, f)->dirtied_when > dirtied_before)
			break;
		pc_list_add_head(pc, f, WBL_IO);
	}
}

/* redirty_tail(): back to b_dirty, keeping it ordered by dirtied_when. */
static void redirty_tail(struct pc *pc, uint32_t f, uint64_t now)
{
	struct pc_file *F = pc_file_of(pc, f);
	uint32_t newest = pc_file_wb(pc, f)->wbl[WBL_DIRTY].head;

	if (newest != PC_NONE && newest != f &&
	    F->dirtied_when < pc_file_of(pc, newest)->dirtied_when)
		F->dirtied_when = now;
	pc_list_add_head(pc, f, WBL_DIRTY);
}

/*
 * wb_over_bg_thresh(): the global dirty pages over the background threshold, or (cgroup
 * writeback) the wb's own reclaimable pages over its share of it (__wb_calc_thresh(bg_thresh)).
 */
bool pc_over_bg_thresh(const struct pc *pc, uint32_t wb)
{
	uint64_t bg, thresh;

	pc_limits(pc, &bg, &thresh);
	if (pc->nr_dirty > bg)
		return true;
	return pc->nr_wbs_used > 1 &&
	       pc_wb_of(pc, wb)->nr_reclaimable > pc_wb_calc_thresh(pc, wb, bg, pc->nr_dirty);
}

/* ---- passes ---- */

void pc_pass_start(struct pc *pc, uint32_t task, uint32_t wb, int kind, int64_t budget,
		   uint64_t dirtied_before, bool nonblocking, bool per_inode, int queue)
{
	struct pc_pass *p = &pc_task_of(pc, task)->pass;

	memset(p, 0, sizeof(*p));
	p->active = 1;
	p->wb = wb;
	p->kind = (uint8_t)kind;
	p->nonblocking = nonblocking;
	p->per_inode = per_inode;
	p->budget = budget;
	p->dirtied_before = dirtied_before;
	if (queue == PASS_QUEUE_ALWAYS ||
	    (queue == PASS_QUEUE_IF_EMPTY && pc_wb_of(pc, wb)->wbl[WBL_IO].count == 0))
		pc_queue_io(pc, wb, dirtied_before);
}

/* writeback_chunk_size() (3.1+): half a second of the wb's writeback, at most an eighth of the
 * dirty limit, rounded to 4 MiB. */
static int64_t chunk_size(const struct pc *pc, uint32_t wb, int64_t nr_pages)
{
	int64_t pages = (int64_t)(pc_wb_of(pc, wb)->avg_write_bandwidth / 2);
	int64_t lim = (int64_t)(pc->dom_dirty_limit / PC_DIRTY_SCOPE);

	if (pages > lim)
		pages = lim;
	if (pages > nr_pages)
		pages = nr_pages;
	return (pages + PC_MIN_WRITEBACK_PAGES) / PC_MIN_WRITEBACK_PAGES * PC_MIN_WRITEBACK_PAGES;
}

static int pass_reason(const struct pc_pass *p)
{
	return p->kind == PASS_KUPDATE	 ? PC_WHY_KUPDATE
	       : p->kind == PASS_DIRTIER ? PC_WHY_DIRTIER
					 : PC_WHY_BACKGROUND;
}

/* requeue_inode() after one inode's writeback. */
static void end_inode(struct pc *pc, struct pc_pass *p, uint64_t now)
{
	uint32_t f = p->wbc.file;
	struct pc_file *F = pc_file_of(pc, f);

	if (F->nr_dirty) {
		/* Before 2.6.36 only kupdate requeued; other writeback redirty_tail()ed. */
		if (p->wbc.nr_to_write <= 0 &&
		    (!p->per_inode || F->dirtied_when <= p->dirtied_before) &&
		    (p->kind == PASS_KUPDATE || pc_sw(pc, PC_SW_REQUEUE_IO_ALL)))
			pc_list_add_head(pc, f, WBL_MORE_IO); /* slice used up: next turn */
		else
			redirty_tail(pc, f, now);
	} else {
		pc_list_del(pc, f); /* clean: off the lists */
		p->progress++;
	}
	F->sync_owner = PC_NONE;
	p->in_inode = 0;
}

static void end_pass(struct pc *pc, struct pc_pass *p, uint64_t now)
{
	if (p->in_inode)
		end_inode(pc, p, now);
	p->active = 0;
}

int pc_pass_next(struct pc *pc, uint32_t task, struct pc_io *io, uint64_t now)
{
	struct pc_pass *p = &pc_task_of(pc, task)->pass;

	while (p->active) {
		uint32_t f, wi;
		struct pc_file *F;

		if (p->in_inode) {
			int r;

			if (p->nonblocking && pc->congested) {
				/* 2.6.x write_cache_pages(): nonblocking and congested: stop. */
				p->encountered_congestion = 1;
				end_pass(pc, p, now);
				break;
			}
			r = pc_wbc_next(pc, task, &p->wbc, io, pass_reason(p), &wi);
			if (r == WALK_IO) {
				p->wrote += io->npages;
				p->progress += io->npages;
				p->budget -= io->npages;
				return 1;
			}
			end_inode(pc, p, now);
			if (!p->per_inode && p->budget <= 0) {
				p->more_io = 1;
				end_pass(pc, p, now);
				break;
			}
			if (p->per_inode && p->wrote && p->budget <= 0) {
				end_pass(pc, p, now);
				break;
			}
			continue;
		}
		f = pc_list_tail(pc, p->wb, WBL_IO);
		if (f == PC_NONE) {
			end_pass(pc, p, now);
			break;
		}
		F = pc_file_of(pc, f);
		if (p->kind == PASS_KUPDATE && !p->per_inode &&
		    F->dirtied_when > p->dirtied_before) {
			/* 2.6.x: kupdate stops at the first inode dirtied too recently. */
			end_pass(pc, p, now);
			break;
		}
		if (F->sync_owner != PC_NONE && F->sync_owner != task) {
			/* I_SYNC: another task is writing it; requeue_io() and go on. */
			pc_list_add_head(pc, f, WBL_MORE_IO);
			p->more_io = 1;
			continue;
		}
		if (p->nonblocking && pc->congested) {
			p->encountered_congestion = 1;
			end_pass(pc, p, now);
			break;
		}
		F->sync_owner = task;
		p->in_inode = 1;
		pc_wbc_init(&p->wbc, f, F->writeback_index, UINT32_MAX, false, true,
			    p->per_inode ? chunk_size(pc, p->wb, p->budget) : p->budget);
	}
	return 0;
}

/* ---- the flusher ---- */

static uint64_t interval_ns(const struct pc *pc)
{
	return (uint64_t)pc->p.dirty_writeback_centisecs * 10000000ull;
}

static uint64_t expire_ns(const struct pc *pc)
{
	return (uint64_t)pc->p.dirty_expire_centisecs * 10000000ull;
}

static uint64_t dirty_inodes(const struct pc_wb *wb)
{
	return wb->wbl[WBL_DIRTY].count + wb->wbl[WBL_IO].count + wb->wbl[WBL_MORE_IO].count;
}

/* wb_wakeup() (3.2+) or pdflush_operation(background_writeout) (2.6.x). */
void pc_flusher_kick(struct pc *pc, uint32_t wb, uint64_t now, const struct pc_host *h)
{
	struct pc_task *t = pc_task_of(pc, pc_flusher_task(pc, wb));
	struct pc_flusher_state *fl = &pc_wb_of(pc, wb)->fl;

	pc->st.background_kicks++;
	if (!pc_sw(pc, PC_SW_PER_BDI_FLUSHER)) {
		if (fl->running)
			return; /* another pdflush fails writeback_acquire() on this bdi */
		fl->kick = 1;
	} else if (t->phase != PH_FL_IDLE) {
		fl->kick = 1; /* mod_delayed_work(0) on a running work: it runs again */
	}
	if (t->phase == PH_FL_IDLE)
		pc_wake(pc, pc_flusher_task(pc, wb), now, h);
}

/* Reclaim found nothing clean: wakeup_flusher_threads(WB_REASON_VMSCAN) (3.2+ start_all, every
 * wb with dirty inodes) or wakeup_pdflush(0) (2.6.x: background_writeout with min_pages = every
 * dirty page). */
void pc_memory_wait(struct pc *pc, uint32_t task, uint64_t now, const struct pc_host *h)
{
	struct pc_task *t = pc_task_of(pc, task);

	pc_set_wait(pc, t, W_MEMORY);
	t->st.memory_waits++;
	for (uint32_t w = 0; w < pc->nr_wbs; w++) {
		struct pc_task *fl = pc_task_of(pc, pc_flusher_task(pc, w));

		if (w && !dirty_inodes(pc_wb_of(pc, w)))
			continue;
		pc_wb_of(pc, w)->fl.start_all = 1;
		if (fl->phase == PH_FL_IDLE)
			pc_wake(pc, pc_flusher_task(pc, w), now, h);
	}
}

/* The flusher's timer: the delayed wb_workfn() (3.2+) or pdflush's wb_timer (2.6.x). */
void pc_flusher_timer(struct pc *pc, uint32_t wb, uint64_t now, const struct pc_host *h)
{
	uint32_t task = pc_flusher_task(pc, wb);
	struct pc_task *t = pc_task_of(pc, task);
	struct pc_flusher_state *fl = &pc_wb_of(pc, wb)->fl;

	pc->st.flusher_wakeups++;
	if (pc_sw(pc, PC_SW_PER_BDI_FLUSHER)) {
		if (t->phase != PH_FL_IDLE)
			fl->kick = 1;
		else
			pc_wake(pc, task, now, h);
		return;
	}
	if (fl->running) {
		/* wb_kupdate() finds the bdi busy (writeback_acquire()), writes nothing and
		 * re-arms. */
		if (pc->p.dirty_writeback_centisecs)
			pc_flusher_arm(pc, wb, now + interval_ns(pc));
		return;
	}
	fl->kupdate_due = 1;
	pc_wake(pc, task, now, h);
}

static void start_work(struct pc *pc, uint32_t wb, int kind, int64_t nr_pages, uint64_t now)
{
	struct pc_flusher_state *fl = &pc_wb_of(pc, wb)->fl;

	fl->work = (uint8_t)kind;
	fl->nr_pages = nr_pages;
	fl->pass_ran = 0;
	fl->work_start = now;
	fl->running = 1;
	if (kind == PASS_KUPDATE)
		pc->st.kupdate_works++;
	else
		pc->st.background_works++;
}

static void wb_bandwidth_estimate_start(struct pc *pc, uint32_t wb, uint64_t now)
{
	struct pc_wb *w = pc_wb_of(pc, wb);
	uint64_t j = pc_jiffies(pc, now);

	if (j > w->bw_time_stamp + pc->p.hz) {
		w->dirtied_stamp = w->wb_dirtied;
		w->written_stamp = w->wb_written;
		w->bw_time_stamp = j;
	}
}

/*
 * One step of the current work, no pass running: 1 a pass was started, 0 the work is over,
 * 2 the flusher sleeps (congestion_wait()).
 */
static int work_step(struct pc *pc, uint32_t wb, uint64_t now)
{
	uint32_t task = pc_flusher_task(pc, wb);
	struct pc_task *t = pc_task_of(pc, task);
	struct pc_wb *w = pc_wb_of(pc, wb);
	struct pc_flusher_state *fl = &w->fl;
	bool per_bdi = pc_sw(pc, PC_SW_PER_BDI_FLUSHER);

	if (per_bdi) {
		/* wb_writeback() */
		uint64_t dirtied_before;

		if (fl->pass_ran) {
			fl->nr_pages -= t->pass.wrote;
			if (!t->pass.progress && fl->queued)
				return 0; /* no more inodes for IO */
		}
		if (fl->nr_pages <= 0 || !w->nr_reclaimable)
			return 0;
		if (fl->work == PASS_BACKGROUND && !pc_over_bg_thresh(pc, wb))
			return 0;
		dirtied_before = fl->work == PASS_KUPDATE
				     ? (now > expire_ns(pc) ? now - expire_ns(pc) : 0)
				     : now;
		fl->queued = w->wbl[WBL_IO].count == 0;
		wb_bandwidth_estimate_start(pc, wb, now);
		if (pc_sw(pc, PC_SW_CHUNK_BY_BANDWIDTH)) {
			pc_pass_start(pc, task, wb, fl->work, fl->nr_pages, dirtied_before, false,
				      true, PASS_QUEUE_IF_EMPTY);
		} else {
			/* 2.6.32-3.0 wb_writeback(): MAX_WRITEBACK_PAGES per call, shared by the
			 * inodes it visits. */
			int64_t n = fl->nr_pages < PC_MAX_WRITEBACK_PAGES ? fl->nr_pages
									  : PC_MAX_WRITEBACK_PAGES;

			pc_pass_start(pc, task, wb, fl->work, n, dirtied_before, false, false,
				      PASS_QUEUE_IF_EMPTY);
			t->pass.budget = n;
		}
		fl->pass_ran = 1;
		return 1;
	}
	/* pdflush: background_writeout() or wb_kupdate(), 1024 pages a call, nonblocking. */
	if (fl->pass_ran) {
		bool short_call = t->pass.budget > 0; /* wrote less than MAX_WRITEBACK_PAGES */

		fl->pass_ran = 0;
		if (fl->work == PASS_KUPDATE)
			fl->nr_pages -= PC_MAX_WRITEBACK_PAGES;
		else if (fl->work == PASS_START_ALL)
			fl->nr_pages -= t->pass.wrote;
		if (short_call) {
			if (t->pass.encountered_congestion || t->pass.more_io) {
				t->sleep_start = now;
				t->sleep_until =
				    now + (pc->p.hz / 10 ? pc->p.hz / 10 : 1) * pc->jiffy_ns;
				pc_set_wait(pc, t, W_CONGESTION);
				t->st.congestion_waits++;
				return 2;
			}
			return 0;
		}
	}
	if (fl->work == PASS_BACKGROUND && !pc_over_bg_thresh(pc, wb))
		return 0;
	if (fl->work == PASS_KUPDATE && fl->nr_pages <= 0)
		return 0;
	/* background_writeout(min_pages): on until below bg_thresh and min_pages written */
	if (fl->work == PASS_START_ALL &&
	    (!w->nr_reclaimable || (!pc_over_bg_thresh(pc, wb) && fl->nr_pages <= 0)))
		return 0;
	/* generic_sync_sb_inodes(): kupdate queues only when s_io is empty; background takes
	 * every dirty inode (older_than_this NULL). */
	pc_pass_start(pc, task, wb, fl->work,
		      pc_sw(pc, PC_SW_CHUNK_BY_BANDWIDTH) ? chunk_size(pc, wb, INT64_MAX)
							  : PC_MAX_WRITEBACK_PAGES,
		      fl->dirtied_before, true, false,
		      fl->work == PASS_KUPDATE ? PASS_QUEUE_IF_EMPTY : PASS_QUEUE_ALWAYS);
	fl->pass_ran = 1;
	return 1;
}

static void end_work(struct pc *pc, uint32_t wb, uint64_t now)
{
	struct pc_flusher_state *fl = &pc_wb_of(pc, wb)->fl;

	if (!pc_sw(pc, PC_SW_PER_BDI_FLUSHER) && fl->work == PASS_KUPDATE &&
	    pc->p.dirty_writeback_centisecs) {
		/* wb_kupdate(): the next run one interval after this one began, at least a
		 * second from now. */
		uint64_t next = fl->work_start + interval_ns(pc);

		if (next < now + PC_NS_PER_SEC)
			next = now + PC_NS_PER_SEC;
		pc_flusher_arm(pc, wb, next);
	}
	fl->work = PASS_NONE;
	fl->pass_ran = 0;
}

int pc_flusher_run(struct pc *pc, uint32_t wb, uint64_t now, const struct pc_host *h,
		   struct pc_result *res)
{
	struct pc_task *t = pc_task_of(pc, pc_flusher_task(pc, wb));
	struct pc_wb *w = pc_wb_of(pc, wb);
	struct pc_flusher_state *fl = &w->fl;
	bool per_bdi = pc_sw(pc, PC_SW_PER_BDI_FLUSHER);

	(void)h;
	(void)res;
	for (unsigned int guard = 0; guard < 1000000; guard++) {
		if (t->pass.active) {
			t->phase = PH_FL_PASS;
			return PC_SUBMIT;
		}
		if (fl->work != PASS_NONE) {
			int r = work_step(pc, wb, now);

			if (r == 1)
				continue;
			if (r == 2)
				return PC_SLEEP;
			end_work(pc, wb, now);
			continue;
		}
		if (per_bdi) {
			/* wb_do_writeback(): kupdate if due, then background. */
			fl->running = 1;
			if (fl->stage == 0 && fl->start_all) {
				/* wb_check_start_all() */
				fl->start_all = 0;
				if (w->nr_reclaimable) {
					start_work(pc, wb, PASS_START_ALL,
						   (int64_t)(w->nr_reclaimable + dirty_inodes(w)),
						   now);
					continue;
				}
			}
			if (fl->stage == 0) {
				fl->stage = 1;
				if (pc->p.dirty_writeback_centisecs &&
				    now >= fl->last_old_flush + interval_ns(pc)) {
					uint64_t nr = w->nr_reclaimable + dirty_inodes(w);

					fl->last_old_flush = now;
					if (nr) {
						start_work(pc, wb, PASS_KUPDATE, (int64_t)nr, now);
						continue;
					}
				}
			}
			if (fl->stage == 1) {
				fl->stage = 2;
				if (pc_over_bg_thresh(pc, wb)) {
					start_work(pc, wb, PASS_BACKGROUND, INT64_MAX, now);
					continue;
				}
			}
			fl->running = 0;
			fl->stage = 0;
			if (fl->kick) {
				/* wb_wakeup() while running: mod_delayed_work(0) runs it again. */
				fl->kick = 0;
				fl->running = 1;
				continue;
			}
			/* wb_workfn(): re-arm the periodic writeback while dirty I/O remains. */
			if (dirty_inodes(w) && pc->p.dirty_writeback_centisecs)
				pc_flusher_arm(pc, wb, now + interval_ns(pc));
			t->phase = PH_FL_IDLE;
			return PC_DONE;
		} /* pdflush */
		if (fl->start_all) {
			fl->start_all = 0;
			fl->dirtied_before = UINT64_MAX;
			start_work(pc, wb, PASS_START_ALL, (int64_t)w->nr_reclaimable, now);
			continue;
		}
		if (fl->kupdate_due) {
			fl->kupdate_due = 0;
			fl->dirtied_before = now > expire_ns(pc) ? now - expire_ns(pc) : 0;
			start_work(pc, wb, PASS_KUPDATE,
				   (int64_t)(w->nr_reclaimable + dirty_inodes(w)), now);
			if (fl->nr_pages <= 0)
				end_work(pc, wb, now);
			continue;
		}
		if (fl->kick) {
			fl->kick = 0;
			fl->dirtied_before = UINT64_MAX;
			start_work(pc, wb, PASS_BACKGROUND, INT64_MAX, now);
			continue;
		}
		fl->running = 0;
		t->phase = PH_FL_IDLE;
		return PC_DONE;
	}
	t->phase = PH_FL_IDLE;
	return PC_DONE;
}

/* ---- fsync, truncate ---- */

/* The first page of file at or after index with any of the bits in want, PC_NONE if none. */
static uint32_t first_page_with(const struct pc *pc, uint32_t file, uint32_t index, int want)
{
	uint64_t idx = index;

	for (;;) {
		uint32_t c = pc_chunk_next(pc, file, (uint32_t)(idx >> PC_CHUNK_SHIFT));
		const struct pc_chunk *C;
		uint64_t base, bits;

		if (c == PC_NONE)
			return PC_NONE;
		C = pc_chunk_of(pc, c);
		base = (uint64_t)(uint32_t)C->key << PC_CHUNK_SHIFT;
		if (idx < base)
			idx = base;
		bits = ((want & PC_PG_WRITEBACK) ? C->writeback : 0) |
		       ((want & PC_PG_LOCKED) ? C->locked : 0);
		bits &= ~0ull << (idx - base);
		if (bits)
			return (uint32_t)(base + (uint64_t)__builtin_ctzll(bits));
		idx = base + PC_CHUNK_PAGES;
		if (idx > UINT32_MAX)
			return PC_NONE;
	}
}

/*
 * file_write_and_wait_range(): the WB_SYNC_ALL walk runs in pc_next_io(); here the wait for
 * every page under writeback (filemap_fdatawait, ascending, so pages the flusher puts under
 * writeback behind the scan are not waited for), then the file system's flush.
 */
int pc_fsync_run(struct pc *pc, uint32_t task, uint64_t now, struct pc_result *res)
{
	struct pc_task *t = pc_task_of(pc, task);

	(void)now;
	(void)res;
	for (;;) {
		switch (t->phase) {
		case PH_FSYNC_WRITE:
			return PC_SUBMIT;
		case PH_FSYNC_WAIT: {
			uint32_t p =
			    first_page_with(pc, t->file, t->fsync_wait_pos, PC_PG_WRITEBACK);

			if (p != PC_NONE) {
				t->st.fsync_waits_on_writeback++;
				t->fsync_wait_pos = p;
				pc_wait_page(pc, t, t->file, p);
				return PC_WAIT;
			}
			t->phase = PH_FSYNC_FLUSH;
			break;
		}
		case PH_FSYNC_FLUSH: {
			struct pc_io io;

			if (!pc->p.fsync_flush)
				return PC_DONE; /* nobarrier: no cache flush */
			memset(&io, 0, sizeof(io));
			io.file = t->file;
			io.op = PC_IO_FLUSH;
			io.flags = PC_IO_SYNC;
			io.reason = PC_WHY_FSYNC;
			io.issuer = task;
			io.group = t->group;
			pc_task_queue_io(pc, task, &io);
			t->phase = PH_FSYNC_FLUSHING;
			return PC_SUBMIT;
		}
		case PH_FSYNC_FLUSHING:
			if (t->q_count)
				return PC_SUBMIT;
			if (t->own_in_flight) {
				pc_set_wait(pc, t, W_IOS);
				return PC_WAIT;
			}
			return PC_DONE;
		default:
			return PC_DONE;
		}
	}
}

/* truncate_inode_pages(): drops what it can, waits on pages under I/O, then drops those. */
int pc_truncate_run(struct pc *pc, uint32_t task, uint64_t now, struct pc_result *res)
{
	struct pc_task *t = pc_task_of(pc, task);
	struct pc_file *F = pc_file_of(pc, t->file);
	uint32_t busy = PC_NONE, c;

	(void)now;
	(void)res;
	for (c = pc_chunk_next(pc, t->file, 0); c != PC_NONE;) {
		struct pc_chunk *C = pc_chunk_of(pc, c);
		uint32_t cn = (uint32_t)C->key;
		uint64_t drop = C->present & ~(C->writeback | C->locked);
		uint64_t held = C->present & (C->writeback | C->locked);

		if (held && busy == PC_NONE)
			busy = (cn << PC_CHUNK_SHIFT) + (uint32_t)__builtin_ctzll(held);
		while (drop) {
			uint32_t bit = (uint32_t)__builtin_ctzll(drop);

			drop &= drop - 1;
			pc_page_drop(pc, c, bit);
		}
		pc_chunk_release_if_empty(pc, c);
		if (cn == UINT32_MAX >> PC_CHUNK_SHIFT)
			break;
		c = pc_chunk_next(pc, t->file, cn + 1);
	}
	if (busy != PC_NONE) {
		pc_wait_page(pc, t, t->file, busy);
		return PC_WAIT;
	}
	if (F->sync_owner == PC_NONE)
		pc_list_del(pc, t->file);
	F->writeback_index = 0;
	F->size = 0;
	return PC_DONE;
}
