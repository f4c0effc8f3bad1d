// SPDX-License-Identifier: GPL-2.0
/*
 * pagecache=on: the page cache of pagecache/ between a domain's buffered jobs and its block
 * layer, in real time. What the kernel's I/O scheduler saw of buffered I/O: writes complete
 * into the cache (unless balance_dirty_pages() pauses the writer), the flusher's writeback and
 * the readers' read-ahead reach the scheduler as requests of their own, fsync writes back the
 * file's dirty pages as sync writes and waits.
 *
 * Where things live (the house rule: nothing process-local in the shared domain):
 *   - the model's state (pc_size() bytes) in the control area, under the domain lock;
 *   - its request slots (struct se_slot with pc set, and struct se_pc_req beside them) in the
 *     control area: they belong to no job, so no job's leaving or stop can hold them;
 *   - with real I/O, cache_bytes of page frames and one bounce buffer per request slot in the
 *     buffer heap (offsets). Writeback copies the pages' frames into the bounce buffer when the
 *     request is built (the data as it was then, as a kernel without stable pages sends it);
 *     a read-ahead lands there and is copied into the frames when it completes. The bounce
 *     buffer is why O_DIRECT works on non-consecutive frames with the single-buffer backends.
 *
 * Who runs what: a job runs its own system call (se_pc_call(): the job sleeps as its task
 * would, in balance_dirty_pages() or on a page); the device context runs the flusher (its
 * timers via pc_advance() at pc_next_event(), its work when woken) and issues every page-cache
 * request on the device (a page-cache request is I/O of the kernel's, not of a job's process,
 * once dispatched). The process-local struct pc_host is built per call from the pass's wake
 * set: a woken task gets its flag set and its bell rung after the unlock.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "domain.h"
#include "stats_json.h"

#define SE_PC_NSLOTS 128u
/* With buffer_head_writeback each bio is a page: room for 128 MiB of them in flight (the
 * kernel's bound is its requests, 256 scheduler tags of 128 pages at max_sectors_kb 512);
 * past it the flusher waits for a slot (pc_slot_waits). */
#define SE_PC_NSLOTS_BH 32768u
/* A waiting job looks again this often even unrung (a lost wake-up costs this much). */
#define SE_PC_POLL_NS (50ull * SCHED_NS_PER_MS)
/* task_go(): nothing to do until the task is woken. */
#define SE_PC_IDLE 100

void *se_arena_alloc(struct se_domain *d, uint64_t size, uint64_t *off);

static struct pc *dpc(const struct se_domain *d)
{
	return se_at(d, d->pc);
}

static struct se_pc_task *dtask(const struct se_domain *d, uint32_t task)
{
	return (struct se_pc_task *)se_at(d, d->pc_tasks) + task;
}

static struct se_slot *dslot(const struct se_domain *d, uint32_t i)
{
	return (struct se_slot *)se_at(d, d->pc_slots) + i;
}

static struct se_pc_req *dreq(const struct se_domain *d, uint32_t i)
{
	return (struct se_pc_req *)se_at(d, d->pc_reqs) + i;
}

static char *frame_at(const struct se_domain *d, uint32_t frame)
{
	return (char *)se_at(d, d->pc_frames) + ((uint64_t)frame << PC_PAGE_SHIFT);
}

/* ---- the host: wake-ups ------------------------------------------------------------------- */

struct wctx {
	struct se_domain *d;
	struct se_wake_set *w;
};

static void pc_wake(void *ctx, uint32_t task, uint64_t now)
{
	struct wctx *x = ctx;

	(void)now;
	atomic_store(&dtask(x->d, task)->woken, 1);
	if (task >= pc_flusher(dpc(x->d)))
		x->w->device = true; /* a flusher (one per wb) */
	else
		se_wake_add(x->w, task);
}

/*
 * The legacy block layer's congestion flag on the async list (blk_queue_congestion_threshold():
 * on at nr_requests - nr/8 + 1, off below nr - nr/8 - nr/16 - 1), for pdflush (2.6.x), as the
 * simulator computes it; whoever changed the list looks.
 */
static void congestion(struct se_domain *d, uint64_t now, struct se_wake_set *w)
{
	struct wctx x = {d, w};
	struct pc_host ph = {.wake = pc_wake, .ctx = &x};
	bool c = blk_async_congested(se_blk(d), d->pc_congested);

	if (c != d->pc_congested) {
		d->pc_congested = c;
		pc_set_congested(dpc(d), c, now, &ph);
	}
}

/* ---- set-up ----------------------------------------------------------------------------- */

/* The page cache's flushers (and their block-layer owners) a configuration needs: one per
 * blkio group with cgroup writeback (the 6.12 profile), else one; 0 without the cache. */
uint32_t se_pc_nr_flushers(const struct se_domain_config *cfg)
{
	struct pc_params p;

	if (!cfg->pc_on)
		return 0;
	pc_params_defaults(&p, (enum pc_profile)(cfg->pc_on - 1));
	return (p.switches & PC_SW_CGROUP_WRITEBACK) ? SCHED_MAX_GROUPS : 1;
}

int se_pc_configure_locked(struct se_domain *d, uint64_t now, char *err, size_t errlen)
{
	struct pc_params p;
	struct pc *pc;
	size_t size;
	uint64_t off;
	uint32_t nslots;
	void *mem;

	if (!d->cfg.pc_on)
		return 0;
	pc_params_defaults(&p, (enum pc_profile)(d->cfg.pc_on - 1));
	p.cache_bytes = (uint64_t)d->cfg.pc_mb << 20;
	p.max_files = SE_MAX_FILES;
	p.max_tasks = d->max_jobs;
	p.max_wbs = se_pc_nr_flushers(&d->cfg);
	if (pc_apply_tunables(&p, d->cfg.pc_tunables, err, errlen) ||
	    pc_params_check(&p, err, errlen))
		return -1;
	size = pc_size(&p);
	mem = size ? se_arena_alloc(d, size, &off) : NULL;
	if (!mem) {
		snprintf(err, errlen,
			 "pagecache_mb=%u: the page cache's %zu bytes of state do not fit "
			 "the domain",
			 d->cfg.pc_mb, size);
		return -1;
	}
	pc = pc_init(mem, size, &p, now, err, errlen);
	if (!pc)
		return -1;
	d->pc = off;
	nslots = p.buffer_head_writeback ? SE_PC_NSLOTS_BH : SE_PC_NSLOTS;
	if (!se_arena_alloc(d, (uint64_t)(d->max_jobs + p.max_wbs) * sizeof(struct se_pc_task),
			    &d->pc_tasks) ||
	    !se_arena_alloc(d, nslots * sizeof(struct se_slot), &d->pc_slots) ||
	    !se_arena_alloc(d, nslots * sizeof(struct se_pc_req), &d->pc_reqs)) {
		snprintf(err, errlen, "the page cache's request slots do not fit the domain");
		d->pc = 0;
		return -1;
	}
	d->pc_nslots = nslots;
	d->pc_bounce_len = p.max_sectors_kb << 10;
	if (!d->cfg.has_model) {
		char *frames = se_buf_alloc_locked(d, p.cache_bytes);
		char *bounce = se_buf_alloc_locked(d, (uint64_t)nslots * d->pc_bounce_len);

		if (!frames || !bounce) {
			snprintf(err, errlen,
				 "pagecache_mb=%u: the page frames do not fit the domain",
				 d->cfg.pc_mb);
			d->pc = 0;
			return -1;
		}
		d->pc_frames = (uint64_t)(frames - (char *)d);
		d->pc_bounce = (uint64_t)(bounce - (char *)d);
	}
	d->pc_free = PC_NONE;
	for (uint32_t i = nslots; i-- > 0;) {
		struct se_slot *s = dslot(d, i);

		s->job = UINT32_MAX;
		s->index = i;
		s->pc = true;
		s->buf = d->pc_bounce ? d->pc_bounce + (uint64_t)i * d->pc_bounce_len : 0;
		blk_rq_init(&s->br);
		dreq(d, i)->next_free = d->pc_free;
		d->pc_free = i;
	}
	d->pc_flusher_owner = d->max_jobs;
	return 0;
}

void se_pc_join_locked(struct se_domain *d, uint32_t job, uint32_t group)
{
	if (se_pc_on(d))
		pc_task_init(dpc(d), job, group);
}

int se_pc_file_open(struct se_domain *d, uint32_t file, uint64_t size)
{
	int r;

	se_lock(d);
	r = pc_file_open(dpc(d), file, size);
	if (!r && file < d->nr_files && !d->files[file].pc_held) {
		/* The cache holds the file as long as the domain lives: its pages outlive the
		 * jobs' descriptors (writeback after close) and its index is never reused for
		 * another path (it is the page cache's inode number). */
		d->files[file].pc_held = true;
		d->files[file].refs++;
	}
	se_unlock(d);
	return r;
}

void se_pc_fadvise(struct se_domain *d, uint32_t job, uint32_t file, bool random)
{
	se_lock(d);
	pc_fadvise(dpc(d), job, file, random ? PC_FADV_RANDOM : PC_FADV_SEQUENTIAL);
	se_unlock(d);
}

/* ---- requests --------------------------------------------------------------------------- */

/* The task's block-layer owner: wb w's flusher is owner max_jobs + w, a kworker of its own. */
static uint32_t pc_owner(struct se_domain *d, uint32_t task)
{
	uint32_t f = pc_flusher(dpc(d));

	return task >= f ? d->pc_flusher_owner + (task - f) : task;
}

/* A request of the model into the block layer in the task's name. 1 in, 0 waiting for
 * admission, -1 no slot free. */
static int pc_submit(struct se_domain *d, uint32_t task, const struct pc_io *io, uint64_t now,
		     const struct blk_host *h)
{
	struct pc *pc = dpc(d);
	struct se_slot *slot;
	struct se_pc_req *req;
	struct sched_request *rq;
	uint32_t i = d->pc_free;
	int r;

	if (i == PC_NONE)
		return -1;
	slot = dslot(d, i);
	req = dreq(d, i);
	d->pc_free = req->next_free;
	req->io = *io;
	req->task = task;
	rq = &slot->br.rq;
	memset(rq, 0, sizeof(*rq));
	rq->owner = pc_owner(d, task);
	rq->group = io->group;
	/* The flusher is a kworker (BE/4); a job's read-ahead and fsync carry its own class
	 * (NONE: derived from its CPU nice, as the kernel does). */
	rq->prio_class = SCHED_IOPRIO_CLASS_NONE;
	rq->prio_level = SCHED_IOPRIO_DEFAULT_LEVEL;
	rq->op = io->op;
	rq->offset = (uint64_t)io->index << PC_PAGE_SHIFT;
	rq->length = (uint64_t)io->npages << PC_PAGE_SHIFT;
	/* Reads are sync anyway; writeback is async unless REQ_SYNC (fsync); never REQ_IDLE. */
	rq->flags = (io->flags & PC_IO_SYNC) || io->op == PC_IO_READ ? SCHED_RQ_SYNC : 0;
	slot->file = io->file;
	slot->off = rq->offset;
	slot->len = rq->length;
	slot->op = io->op == PC_IO_READ	   ? SE_OP_READ
		   : io->op == PC_IO_WRITE ? SE_OP_WRITE
					   : SE_OP_DATASYNC;
	slot->sfr_flags = 0;
	slot->orphan = false;
	slot->sched_done = false;
	slot->res = 0;
	if (io->op == PC_IO_FLUSH)
		rq->op = SCHED_OP_FLUSH;
	if (d->pc_frames && io->op == PC_IO_WRITE) {
		/* The data as the pages hold it now. */
		char *b = (char *)d + slot->buf;

		for (uint32_t k = 0; k < io->npages; k++) {
			uint32_t f = pc_frame(pc, io->file, io->index + k);

			if (f != PC_NONE)
				memcpy(b + ((uint64_t)k << PC_PAGE_SHIFT), frame_at(d, f),
				       PC_PAGE_SIZE);
		}
	}
	atomic_store_explicit(&slot->state, SE_SLOT_BLK, memory_order_relaxed);
	blk_rq_init(&slot->br);
	r = blk_submit(se_blk(d), &slot->br, now, h);
	if (r < 0) {
		/* Malformed for the core (cannot happen): completed at once without I/O. */
		d->bypass_dispatched++;
		atomic_store(&slot->state, SE_SLOT_FREE);
		req->next_free = d->pc_free;
		d->pc_free = i;
		return 1;
	}
	if (r == 0)
		dtask(d, task)->parked++;
	return 1;
}

void se_pc_dispatched(struct se_host_ctx *c, struct se_slot *slot)
{
	struct se_domain *d = c->d;

	/* Issued by the device context (the kernel's I/O, whoever's pass dispatched it). */
	slot->grant_ns = c->now;
	atomic_fetch_add(&d->grants_pending, 1);
	atomic_store(&slot->state, SE_SLOT_GRANTED);
	c->w->device = true;
}

int se_pc_claim(struct se_domain *d, struct se_slot **v, int max)
{
	int n = 0;

	/* Only real I/O is claimed: with a model the block layer completes them itself. */
	if (d->cfg.has_model)
		return 0;
	for (uint32_t i = 0; se_pc_on(d) && i < d->pc_nslots && n < max; i++) {
		struct se_slot *slot = dslot(d, i);
		uint32_t st = SE_SLOT_GRANTED;

		if (!atomic_compare_exchange_strong(&slot->state, &st, SE_SLOT_DEV_CLAIMED))
			continue;
		atomic_fetch_sub(&d->grants_pending, 1);
		slot->dev_epoch = atomic_load(&d->dev_epoch);
		d->dev_inflight++;
		v[n++] = slot;
	}
	return n;
}

void se_pc_completed(struct se_domain *d, struct se_slot *slot, int64_t res, uint64_t now,
		     struct se_wake_set *w)
{
	struct pc *pc = dpc(d);
	uint32_t i = slot->index;
	struct se_pc_req *req = dreq(d, i);
	struct pc_io io = req->io;
	struct wctx x = {d, w};
	struct pc_host ph = {.wake = pc_wake, .ctx = &x};
	bool starved = d->pc_free == PC_NONE;

	if (res < 0)
		d->issue_errors++;
	if (d->pc_frames && io.op == PC_IO_READ) {
		char *b = (char *)d + slot->buf;

		if (res < (int64_t)slot->len) /* past the end of the file: zeroes, as the kernel */
			memset(b + (res > 0 ? res : 0), 0,
			       slot->len - (uint64_t)(res > 0 ? res : 0));
		for (uint32_t k = 0; k < io.npages; k++) {
			uint32_t f = pc_frame(pc, io.file, io.index + k);

			if (f != PC_NONE)
				memcpy(frame_at(d, f), b + ((uint64_t)k << PC_PAGE_SHIFT),
				       PC_PAGE_SIZE);
		}
	}
	atomic_store(&slot->state, SE_SLOT_FREE);
	req->next_free = d->pc_free;
	d->pc_free = i;
	pc_io_done(pc, &io, now, &ph);
	congestion(d, now, w);
	if (starved) {
		/* Tasks that stopped pulling for want of a slot go on. */
		for (uint32_t t = 0; t < d->max_jobs + pc_nr_wbs(pc); t++) {
			struct se_pc_task *pt = dtask(d, t);

			if (!pt->pulling || pt->parked)
				continue;
			if (t >= d->max_jobs)
				w->device = true;
			else
				se_wake_add(w, t);
		}
	}
}

void se_pc_admitted(struct se_domain *d, struct se_slot *slot, struct se_wake_set *w)
{
	uint32_t task = dreq(d, slot->index)->task;
	struct se_pc_task *pt = dtask(d, task);

	if (pt->parked && --pt->parked == 0) {
		if (task >= pc_flusher(dpc(d)))
			w->device = true;
		else
			se_wake_add(w, task);
	}
}

/* ---- tasks ------------------------------------------------------------------------------ */

/* What a job's call copies between its buffer and the frames. */
struct copy {
	enum se_pc_call call;
	char *buf;
	uint64_t off; /* of buf in the file */
	uint32_t file;
};

static void do_copy(struct se_domain *d, const struct copy *cp, const struct pc_result *res)
{
	struct pc *pc = dpc(d);

	if (!cp || !d->pc_frames || cp->call >= SE_PC_FSYNC)
		return;
	for (uint64_t b = res->copy_lo; b < res->copy_hi;) {
		uint32_t idx = (uint32_t)(b >> PC_PAGE_SHIFT), f = pc_frame(pc, cp->file, idx);
		uint64_t in = b & (PC_PAGE_SIZE - 1), n = PC_PAGE_SIZE - in;

		if (n > res->copy_hi - b)
			n = res->copy_hi - b;
		if (f != PC_NONE) {
			char *fr = frame_at(d, f) + in;

			if (cp->call == SE_PC_WRITE)
				memcpy(fr, cp->buf + (b - cp->off), n);
			else
				memcpy(cp->buf + (b - cp->off), fr, n);
		}
		b += n;
	}
}

/* After a call or pc_continue(): copy, then what the task does next. */
static int handle(struct se_domain *d, uint32_t task, int rc, const struct pc_result *res,
		  const struct copy *cp)
{
	struct se_pc_task *pt = dtask(d, task);

	do_copy(d, cp, res);
	pt->pulling = rc == PC_SUBMIT;
	return rc;
}

static int task_go_plugged(struct se_domain *d, uint32_t task, uint64_t now,
			   const struct blk_host *h, struct se_wake_set *w, const struct copy *cp,
			   struct pc_result *res);

/*
 * Runs the task as far as it goes now: pulls its requests into the block layer, goes on with
 * its call when it may. Returns PC_DONE (res: the call's result), PC_SLEEP (res->until),
 * PC_WAIT, SE_PC_IDLE (nothing to do until woken, admitted or given a slot) or PC_ERROR.
 * What it pulls goes in under its plug, as the kernel's writeback (wb_writeback(),
 * ext4_do_writepages()) and read-ahead (read_pages()) submit under blk_start_plug(); the plug
 * is finished before the lock is released (the kernel's flush on schedule), so no request is
 * held across passes; except while the task sleeps in get_request() inside its pass: the block
 * layer flushed the plug then, and the woken task goes on under it (release_job_locked()
 * ends it for a job that leaves asleep).
 */
static int task_go(struct se_domain *d, uint32_t task, uint64_t now, const struct blk_host *h,
		   struct se_wake_set *w, const struct copy *cp, struct pc_result *res)
{
	struct blk_queue *q = se_blk(d);
	uint32_t owner = pc_owner(d, task);
	int rc;

	blk_plug_start(q, owner);
	rc = task_go_plugged(d, task, now, h, w, cp, res);
	/* Asleep in get_request() inside its pass: its plug is flushed (the block layer did, as
	 * schedule() does) but still its own; woken, it goes on under it. */
	if (!dtask(d, task)->parked)
		blk_plug_finish(q, owner, now, h);
	return rc;
}

static int task_go_plugged(struct se_domain *d, uint32_t task, uint64_t now,
			   const struct blk_host *h, struct se_wake_set *w, const struct copy *cp,
			   struct pc_result *res)
{
	struct pc *pc = dpc(d);
	struct se_pc_task *pt = dtask(d, task);
	struct wctx x = {d, w};
	struct pc_host ph = {.wake = pc_wake, .ctx = &x};

	for (unsigned int guard = 0; guard < 1000000; guard++) {
		struct pc_io io;
		int rc;

		if (pt->pulling) {
			if (pt->parked)
				return SE_PC_IDLE;
			if (d->pc_free == PC_NONE) {
				d->pc_slot_waits++;
				return SE_PC_IDLE;
			}
			if (pc_next_io(pc, task, now, &io)) {
				pc_submit(d, task, &io, now, h);
				if (io.flags & PC_IO_UNPLUG) {
					/* read_pages()'s blk_finish_plug(): in, and the queue
					 * run, before the task's next window */
					struct blk_queue *q = se_blk(d);

					blk_plug_finish(q, pc_owner(d, task), now, h);
					blk_run(q, now, h);
					blk_plug_start(q, pc_owner(d, task));
				}
				congestion(d, now, w);
				continue;
			}
			pt->pulling = false;
		} else if (!atomic_exchange(&pt->woken, 0)) {
			return SE_PC_IDLE;
		}
		atomic_store(&pt->woken, 0);
		rc = handle(d, task, pc_continue(pc, task, now, &ph, res), res, cp);
		if (rc != PC_SUBMIT)
			return rc;
	}
	return PC_ERROR;
}

/* The queue runs after the task's submissions; the device context hears of earlier events. */
static void run_queue(struct se_domain *d, uint64_t now, const struct blk_host *h,
		      struct se_wake_set *w)
{
	struct blk_queue *q = se_blk(d);
	uint64_t next;

	blk_run(q, now, h);
	for (int guard = 0; (next = blk_next_event(q)) <= now && guard < 1024; guard++)
		blk_advance(q, now, h);
	if (pc_next_event(dpc(d)) < next)
		next = pc_next_event(dpc(d));
	if (next < atomic_load_explicit(&d->dev_wake_at, memory_order_relaxed))
		w->device = true;
}

int64_t se_pc_call(struct se_member *m, enum se_pc_call call, uint32_t file, uint64_t off,
		   uint64_t len, void *buf)
{
	struct se_domain *d = m->d;
	struct pc *pc = dpc(d);
	uint32_t task = m->job;
	struct se_pc_task *pt = dtask(d, task);
	struct copy cp = {call, buf, off, file};
	struct se_wake_set w;
	struct se_host_ctx c = {.d = d, .w = &w, .self = (int)m->job};
	struct wctx x = {d, &w};
	struct pc_host ph = {.wake = pc_wake, .ctx = &x};
	struct pc_result res;
	struct blk_host h;
	uint64_t now = se_lock(d), until = UINT64_MAX, check = now + SE_JOB_CHECK_NS;
	int rc;

	c.now = now;
	se_wake_init(&w);
	se_host_init(&h, &c);
	se_touch(m, now);
	atomic_store(&pt->woken, 0);
	switch (call) {
	case SE_PC_WRITE:
		rc = pc_write(pc, task, file, off, len, now, &ph, &res);
		break;
	case SE_PC_READ:
		rc = pc_read(pc, task, file, off, len, now, &ph, &res);
		break;
	case SE_PC_INVALIDATE:
		rc = pc_invalidate(pc, task, file, off, len, now, &ph, &res);
		break;
	case SE_PC_TRUNCATE:
		rc = pc_truncate(pc, task, file, now, &ph, &res);
		/* A file created again under the path is another inode: descriptors reopen. */
		if (file < d->nr_files)
			d->files[file].gen++;
		break;
	default:
		rc = pc_fsync(pc, task, file, now, &ph, &res);
		break;
	}
	rc = handle(d, task, rc, &res, &cp);
	if (rc == PC_SUBMIT)
		rc = task_go(d, task, now, &h, &w, &cp, &res);
	while (rc != PC_DONE && rc != PC_ERROR) {
		struct se_bell *bell = &m->sj->bell;
		uint64_t deadline;
		uint32_t seen;

		if (rc == PC_SLEEP)
			until = res.until;
		else if (rc == PC_WAIT)
			until = UINT64_MAX;
		run_queue(d, now, &h, &w);
		se_unlock(d);
		se_wake_ring(d, &w, (int)m->job);
		memset(&w, 0, sizeof(w));
		deadline = now + SE_PC_POLL_NS;
		if (until < deadline)
			deadline = until;
		seen = se_bell_read(bell);
		se_bell_sleep_begin(bell);
		if (!atomic_load(&pt->woken))
			se_bell_wait(bell, seen, deadline);
		se_bell_sleep_end(bell);
		now = se_lock(d);
		c.now = now;
		c.nmine = 0;
		se_touch(m, now);
		if (now >= check) {
			/* Waiting long: the device context (which issues our I/O) must be alive. */
			se_device_ensure_locked(d);
			check = now + SE_JOB_CHECK_NS;
		}
		/* The pause's end is a timer the device context fires too; whoever is first. */
		if (until != UINT64_MAX && now >= until && pc_next_event(pc) <= now)
			pc_advance(pc, now, &ph);
		rc = task_go(d, task, now, &h, &w, &cp, &res);
		if (rc == SE_PC_IDLE)
			rc = until != UINT64_MAX ? PC_SLEEP : PC_WAIT;
		if (rc == PC_SLEEP && until != UINT64_MAX && res.until < until)
			until = res.until;
	}
	run_queue(d, now, &h, &w);
	se_unlock(d);
	se_wake_ring(d, &w, (int)m->job);
	return rc == PC_DONE ? (int64_t)res.bytes : -EIO;
}

uint64_t se_pc_device_locked(struct se_domain *d, uint64_t now, const struct blk_host *h,
			     struct se_wake_set *w)
{
	struct pc *pc = dpc(d);
	struct wctx x = {d, w};
	struct pc_host ph = {.wake = pc_wake, .ctx = &x};
	struct pc_result res;

	if (!pc)
		return SCHED_NO_TIMER;
	if (pc_next_event(pc) <= now)
		pc_advance(pc, now, &ph);
	congestion(d, now, w);
	/* every wb's flusher, wb 0 (the root's) first */
	for (uint32_t wb = 0; wb < pc_nr_wbs(pc); wb++)
		task_go(d, pc_flusher(pc) + wb, now, h, w, NULL, &res);
	return pc_next_event(pc) == PC_NO_TIME ? SCHED_NO_TIMER : pc_next_event(pc);
}

/* ---- statistics ------------------------------------------------------------------------- */

/* A group's name as a JSON string. */
static void name_json(struct se_out *f, const char *s)
{
	se_outf(f, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			se_outf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			se_outf(f, "\\u%04x", (unsigned char)*s);
		else
			se_outf(f, "%c", *s);
	}
	se_outf(f, "\"");
}

static void task_json(struct se_out *f, const struct pc_task_stats *t)
{
	se_outf(f,
		"{\"dirtied\": %" PRIu64 ", \"throttle_ns\": %" PRIu64 ", \"pauses\": %" PRIu64
		", \"wb_pages\": %" PRIu64 ", \"wb_requests\": %" PRIu64 ", \"read_hits\": %" PRIu64
		", \"read_waits\": %" PRIu64 ", \"ra_sync\": %" PRIu64 ", \"ra_async\": %" PRIu64
		", \"ra_pages\": %" PRIu64 ", \"read_requests\": %" PRIu64 ", \"fsyncs\": %" PRIu64
		", \"fsync_waits_on_writeback\": %" PRIu64 ", \"memory_waits\": %" PRIu64
		", \"congestion_waits\": %" PRIu64 "}",
		t->dirtied, t->throttle_ns, t->pauses, t->wb_pages, t->wb_requests, t->read_hits,
		t->read_waits, t->ra_sync, t->ra_async, t->ra_pages, t->read_requests, t->fsyncs,
		t->fsync_waits_on_writeback, t->memory_waits, t->congestion_waits);
}

void se_pc_stats_json(const struct se_domain *d, struct se_out *f)
{
	static const char *const why[PC_WHY_NR] = {"read",    "readahead", "write_begin",
						   "fsync",   "kupdate",   "background",
						   "dirtier", "fadvise"};
	const struct pc *pc = dpc(d);
	const struct pc_stats *s;

	if (!pc)
		return;
	s = pc_stats(pc);
	se_outf(f,
		"  \"pagecache\": {\"profile\": \"%s\", \"cache_bytes\": %" PRIu64
		", \"nr_cached\": %" PRIu64 ", \"max_cached\": %" PRIu64 ", \"nr_dirty\": %" PRIu64
		", \"max_dirty\": %" PRIu64 ", \"nr_writeback\": %" PRIu64
		", \"max_writeback\": %" PRIu64 ", \"dirtied\": %" PRIu64 ", \"written\": %" PRIu64
		", \"read_pages\": %" PRIu64 ", \"reclaimed\": %" PRIu64
		", \"background_works\": %" PRIu64 ", \"kupdate_works\": %" PRIu64
		", \"flusher_wakeups\": %" PRIu64 ", \"dirty_exceeded\": %" PRIu64
		", \"bg_thresh\": %u, \"thresh\": %u, \"slot_waits\": %" PRIu64,
		pc_profile_name((enum pc_profile)(d->cfg.pc_on - 1)), (uint64_t)d->cfg.pc_mb << 20,
		s->nr_cached, s->max_cached, s->nr_dirty, s->max_dirty, s->nr_writeback,
		s->max_writeback, s->dirtied, s->written, s->read_pages, s->reclaimed,
		s->background_works, s->kupdate_works, s->flusher_wakeups, s->dirty_exceeded,
		s->bg_thresh, s->thresh, d->pc_slot_waits);
	se_outf(f, ",\n    \"requests\": {");
	for (int i = 0; i < PC_WHY_NR; i++)
		se_outf(f, "%s\"%s\": %" PRIu64, i ? ", " : "", why[i], s->wb_requests[i]);
	se_outf(f, "},\n    \"pages\": {");
	for (int i = 0; i < PC_WHY_NR; i++)
		se_outf(f, "%s\"%s\": %" PRIu64, i ? ", " : "", why[i], s->wb_pages[i]);
	se_outf(f, "},\n    \"flusher\": ");
	task_json(f, pc_task_stats(pc, pc_flusher(pc)));
	/* Written back per group (the groups of the inodes' first dirtiers), and per wb
	 * (cgroup writeback: each group's wb with its flusher, share and bandwidth). */
	se_outf(f, ",\n    \"written_bytes_by_group\": {");
	for (uint32_t g = 0, n = 0; g < SCHED_MAX_GROUPS && g < PC_MAX_WBS; g++) {
		if (!s->written_by_group[g] || !d->groups[g].used)
			continue;
		se_outf(f, "%s", n++ ? ", " : "");
		name_json(f, d->groups[g].name);
		se_outf(f, ": %" PRIu64, s->written_by_group[g] << PC_PAGE_SHIFT);
	}
	se_outf(f, "},\n    \"wbs\": [");
	for (uint32_t wb = 0, n = 0; wb < pc_nr_wbs(pc); wb++) {
		const struct pc_wb_stats *ws = pc_wb_stats(pc, wb);

		if (!pc_wb_used(pc, wb))
			continue;
		se_outf(f, "%s\n      {\"group\": ", n++ ? "," : "");
		if (pc_nr_wbs(pc) > 1 && wb < SCHED_MAX_GROUPS && d->groups[wb].used)
			name_json(f, d->groups[wb].name);
		else
			se_outf(f, "\"%s\"", pc_nr_wbs(pc) > 1 ? "?" : "all");
		se_outf(f,
			", \"inodes\": %" PRIu64 ", \"dirtied\": %" PRIu64 ", \"written\": %" PRIu64
			", \"written_bytes\": %" PRIu64 ", \"flusher_pages\": %" PRIu64
			", \"flusher_requests\": %" PRIu64
			", \"write_bw\": %u, \"dirty_ratelimit\": %u, \"wb_thresh\": %u}",
			ws->inodes, ws->dirtied, ws->written, ws->written << PC_PAGE_SHIFT,
			ws->wb_pages, ws->wb_requests, ws->write_bw, ws->dirty_ratelimit,
			ws->wb_thresh);
	}
	se_outf(f, "]");
	se_outf(f, ",\n    \"jobs\": [");
	for (uint32_t j = 0; j < d->nr_jobs; j++) {
		se_outf(f, "%s\n      ", j ? "," : "");
		task_json(f, pc_task_stats(pc, j));
	}
	se_outf(f, "\n    ]},\n");
}

/*
 * The last job to leave writes back what is still dirty, with its own fsyncs: the cache goes
 * with the domain, where the kernel's would be written back later, and the files must hold
 * the data (a later run reads or verifies them). After the job's I/O, so fio's figures do not
 * see it; jobs still running would, so only the last does it. "Last": the last member to get
 * here, counted under the lock and uncounted only when it leaves, so two jobs ending together
 * cannot both take the other for still running.
 */
void se_pc_leave_sync(struct se_member *m)
{
	struct se_domain *d = m->d;

	if (!d || !se_pc_on(d) || !d->pc_frames)
		return;
	se_lock(d);
	if (!m->sj->pc_leaving) {
		m->sj->pc_leaving = true;
		d->pc_leaving++;
	}
	se_unlock(d);
	for (unsigned int guard = 0; guard < SE_MAX_FILES; guard++) {
		uint32_t file = PC_NONE;

		se_lock(d);
		for (uint32_t f = 0;
		     d->pc_leaving == d->members && f < d->nr_files && file == PC_NONE; f++) {
			uint64_t cached, dirty, wb;

			pc_file_counts(dpc(d), f, &cached, &dirty, &wb);
			/* pages the flusher has under writeback too: fsync waits for them */
			if (dirty || wb)
				file = f;
		}
		se_unlock(d);
		if (file == PC_NONE || se_pc_call(m, SE_PC_FSYNC, file, 0, 0, NULL) < 0)
			return;
	}
}
