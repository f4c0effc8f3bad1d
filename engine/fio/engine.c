// SPDX-License-Identifier: GPL-2.0
/*
 * schedengine: the fio glue. queue() fills a request slot of the shared domain; commit() hands
 * the batch to the block layer, which runs the queue in this job's context: what it dispatches
 * for this job is issued at once on the job's backend, what it dispatches for other jobs goes
 * to them as grants. getevents() reaps the backend, reports completions (which may dispatch
 * more) and takes from the job's ring its grants and the requests completed for it elsewhere
 * (the device model, the device context).
 *
 *   fio queue()/commit() -> se_submit() -> block layer -> policy -> dispatch -> backend
 *   -> completion -> se_complete() -> getevents()/event() -> fio
 *
 * fio's accounting is that of its async engines: the issue time is taken when commit() has
 * handed the requests over (after any wait for a request, as io_submit() returns), io_u_queued()
 * records slat, io_u_mark_submit() the submit-depth histogram.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <string.h>
#include <unistd.h>

#include "fio.h"
#include "ioengines.h"
#include "optgroup.h"

#include "backend.h"
#include "devmodel.h"
#include "domain.h"
#include "options.h"
#include "target.h"

#define IOPRIO_CLASS_SHIFT 13
/* Most buffered writes one job may hold dirty between fsyncs (writeback=fsync). */
#define SE_MAX_DIRTY 1024u

struct se_job_data {
	struct se_member m;
	struct se_backend be;
	bool has_model;
	bool direct_ok; /* queue() may complete an io_u itself (queue_direct()) */
	bool pagecache; /* pagecache=: buffered I/O goes through the domain's page cache */
	unsigned int depth, nr_slots;
	struct io_u **slot_io_u; /* the io_u of each slot index (NULL: free, or dirty data) */
	struct se_slot **free;	 /* local stack of this job's free slots */
	unsigned int nfree;
	struct se_slot **pending; /* queued by fio, not yet given to the domain */
	unsigned int npending;
	struct io_u **committed; /* handed over by the last commit: fio's accounting */
	unsigned int ncommitted;
	struct io_u **events; /* returned by the last getevents, for ->event() */
	unsigned int nevents;
	struct io_u **ready; /* completed, not yet returned: a FIFO ring */
	unsigned int ready_head, nready;
	struct se_completion *comp;
	struct se_slot **batch, **mine;
	/* Handed to the domain and not yet back (issued here, or done): while 0, nothing but this
	 * job's own backend can bring it work, so it sleeps there without its doorbell. */
	unsigned int in_domain;
	uint64_t poll_ns;		 /* model_poll_us */
	_Atomic unsigned int nr_workers; /* io_submit_mode=offload: its submission workers */
	/* writeback=fsync (device models): buffered writes stay dirty until the job's fsync. */
	bool defer_writes;
	struct se_slot **dirty_free; /* slots for dirty data, beyond the iodepth ones */
	unsigned int ndirty_free;
	struct se_slot **dirty; /* written by fio, not yet written back */
	unsigned int ndirty;
	unsigned int wb_inflight;   /* written back by an fsync, not yet complete */
	struct se_slot *fsync_slot; /* that fsync, submitted when they complete */
	/* The io_u buffers, in the domain (iomem_alloc). */
	void *iomem;
	size_t iomem_len;
};

/* The domain a job will use, found at init (before fio allocates the buffers). */
static struct se_domain *job_domain(struct thread_data *td)
{
	struct se_job_data *jd = td->io_ops_data;

	return jd ? jd->m.d : NULL;
}

static uint8_t se_op_of(const struct io_u *io_u)
{
	switch (io_u->ddir) {
	case DDIR_READ:
		return SE_OP_READ;
	case DDIR_WRITE:
		return SE_OP_WRITE;
	case DDIR_TRIM:
		return SE_OP_TRIM;
	case DDIR_DATASYNC:
		return SE_OP_DATASYNC;
	case DDIR_SYNC_FILE_RANGE:
		return SE_OP_SYNC_FILE_RANGE;
	default:
		return SE_OP_SYNC;
	}
}

static void fill_request(struct thread_data *td, struct se_job_data *jd, struct se_slot *slot,
			 struct io_u *io_u)
{
	struct sched_request *rq = &slot->br.rq;
	unsigned int prio = io_u->ioprio ? io_u->ioprio : td->ioprio;
	struct se_domain *d = jd->m.d;

	rq->owner = jd->m.job;
	rq->group = jd->m.sj->group;
	rq->prio_class = (uint8_t)((prio >> IOPRIO_CLASS_SHIFT) & 3);
	rq->prio_level = (uint8_t)(prio & 7);
	rq->offset = io_u->offset;
	rq->length = io_u->xfer_buflen;
	slot->op = se_op_of(io_u);
	slot->off = io_u->offset;
	slot->len = io_u->xfer_buflen;
	slot->sfr_flags = td->o.sync_file_range;
	slot->file = io_u->file ? (uint32_t)io_u->file->engine_pos : 0;
	/* The buffer is in the domain (iomem_alloc): an offset any member can use. */
	slot->buf = io_u->xfer_buf ? (uint64_t)((char *)io_u->xfer_buf - (char *)d) : 0;
	slot->no_data = false;
	/* Classified as the kernel does: reads and O_DIRECT writes are sync, buffered writes are
	 * async (writeback), fsync/fdatasync are sync flushes. */
	switch (io_u->ddir) {
	case DDIR_READ:
		rq->op = SCHED_OP_READ;
		rq->flags = SCHED_RQ_SYNC;
		break;
	case DDIR_WRITE:
		rq->op = SCHED_OP_WRITE;
		if (td->o.odirect)
			rq->flags = SCHED_RQ_SYNC | SCHED_RQ_IDLE;
		else if (td->o.sync_io)
			rq->flags = SCHED_RQ_SYNC;
		else
			rq->flags = 0;
		break;
	case DDIR_TRIM:
		rq->op = SCHED_OP_DISCARD;
		rq->flags = 0;
		break;
	default:
		rq->op = SCHED_OP_FLUSH;
		rq->flags = SCHED_RQ_SYNC;
		rq->length = 0;
		break;
	}
	jd->slot_io_u[slot->index] = io_u;
}

static int se_queue_commit(struct thread_data *td);
static int commit_domain(struct thread_data *td, struct se_job_data *jd);
static int reap(struct thread_data *td, struct se_job_data *jd, int max);
static int se_invalidate(struct thread_data *td, struct fio_file *f);
static void finish_io_u(struct io_u *io_u, long long res);

/* Completions may come during commit() too: they wait here for getevents. */
static void ready_push(struct se_job_data *jd, struct io_u *io_u)
{
	jd->ready[(jd->ready_head + jd->nready++) % jd->nr_slots] = io_u;
}

static struct io_u *ready_pop(struct se_job_data *jd)
{
	struct io_u *io_u = jd->ready[jd->ready_head];

	jd->ready_head = (jd->ready_head + 1) % jd->nr_slots;
	jd->nready--;
	return io_u;
}

/*
 * writeback=fsync, the page cache of a job that fsyncs: its buffered write completes at once
 * (it only dirties the cache) and stays dirty; its fsync writes the dirty data back as sync
 * writes of the job (WB_SYNC_ALL writeback is REQ_SYNC) and is itself submitted, as the flush,
 * when they have completed, so fio's fsync latency is the writeback's, as the kernel's is.
 * Returns true when it took the io_u (*st says how).
 */
static bool defer_io_u(struct thread_data *td, struct se_job_data *jd, struct io_u *io_u,
		       enum fio_q_status *st)
{
	struct se_slot *slot;

	if (io_u->ddir == DDIR_WRITE && !td->o.odirect && !td->o.sync_io && jd->ndirty_free) {
		slot = jd->dirty_free[--jd->ndirty_free];
		fill_request(td, jd, slot, io_u);
		slot->br.rq.flags = SCHED_RQ_SYNC;
		slot->no_data = true;
		jd->slot_io_u[slot->index] = NULL;
		jd->dirty[jd->ndirty++] = slot;
		finish_io_u(io_u, (long long)io_u->xfer_buflen);
		*st = FIO_Q_COMPLETED;
		return true;
	}
	if ((io_u->ddir != DDIR_SYNC && io_u->ddir != DDIR_DATASYNC) ||
	    (!jd->ndirty && !jd->wb_inflight && !jd->fsync_slot))
		return false;
	if (jd->fsync_slot) {
		/* One fsync waits for writeback already: this one after it. */
		se_queue_commit(td);
		*st = FIO_Q_BUSY;
		return true;
	}
	slot = jd->free[--jd->nfree];
	fill_request(td, jd, slot, io_u);
	io_u->engine_data = slot;
	jd->fsync_slot = slot;
	jd->committed[jd->ncommitted++] = io_u;
	jd->wb_inflight += jd->ndirty;
	for (unsigned int i = 0; i < jd->ndirty; i++)
		jd->pending[jd->npending++] = jd->dirty[i];
	jd->ndirty = 0;
	*st = FIO_Q_QUEUED;
	return true;
}

/* The kernel's page cache holds regular files and block devices, not /dev/full or a pipe. */
static bool pc_file(const struct fio_file *f)
{
	return f->filetype == FIO_TYPE_FILE || f->filetype == FIO_TYPE_BLOCK;
}

/*
 * pagecache=: a buffered io_u is one system call into the page cache, synchronous as a buffered
 * io_submit() is: the job sleeps where its task sleeps (balance_dirty_pages(), a page being
 * read, fsync's writeback) and the io_u completes when the call returns.
 */
static bool pc_io_u(struct thread_data *td, struct se_job_data *jd, struct io_u *io_u)
{
	uint32_t file = io_u->file ? (uint32_t)io_u->file->engine_pos : 0;
	int64_t r;

	if (!jd->pagecache || td->o.odirect || !io_u->file || !pc_file(io_u->file) ||
	    io_u->ddir == DDIR_TRIM || io_u->ddir == DDIR_SYNC_FILE_RANGE)
		return false;
	/* A system call: issued now (fio's sync engines take the time just before it). fio sees
	 * an async engine (FIO_ASYNCIO_SETS_ISSUE_TIME): the time from the io_u's start to here
	 * is its slat, as for the requests queued to the domain, so that slat + clat = lat. */
	if (fio_fill_issue_time(td)) {
		fio_gettime(&io_u->issue_time, NULL);
		if (td->o.read_iolog_file)
			memcpy(&td->last_issue, &io_u->issue_time, sizeof(io_u->issue_time));
		io_u_queued(td, io_u);
	}
	switch (io_u->ddir) {
	case DDIR_READ:
		r = se_pc_call(&jd->m, SE_PC_READ, file, io_u->offset, io_u->xfer_buflen,
			       io_u->xfer_buf);
		break;
	case DDIR_WRITE:
		r = se_pc_call(&jd->m, SE_PC_WRITE, file, io_u->offset, io_u->xfer_buflen,
			       io_u->xfer_buf);
		/* O_SYNC/O_DSYNC: generic_write_sync() after the copy. */
		if (r >= 0 && td->o.sync_io &&
		    se_pc_call(&jd->m, SE_PC_FSYNC, file, 0, 0, NULL) < 0)
			r = -EIO;
		break;
	case DDIR_SYNC:
	case DDIR_DATASYNC:
		r = se_pc_call(&jd->m, SE_PC_FSYNC, file, 0, 0, NULL);
		if (r > 0)
			r = 0;
		break;
	default:
		return false;
	}
	finish_io_u(io_u, r);
	return true;
}

/*
 * A backend that does the I/O in issue() (psync), or a device model, and fio committing every
 * io_u as it queues it (iodepth_batch=1, the default): queue() commits at once, as fio would
 * right after it, and when the domain granted the request and the backend did it (or the model
 * completed it in the same pass: the null model, as null_blk completes at submission), the
 * io_u completes in queue() as it does with fio's own sync engines (blk-mq's
 * blk_mq_try_issue_directly(): the request still goes through the scheduler; only the trip
 * through getevents is saved). The domain sees the same calls in the same order. The issue
 * time is taken before the I/O, as fio's sync engines take it, so clat holds the I/O. An io_u
 * not done in queue() (held back, or a timed model's) is stamped again after the commit and
 * reaped through getevents, as the async engines' are.
 *
 * Only when it is the one completion waiting: fio calls getevents only when its queue is full,
 * so an io_u held back earlier and finished here (its grant came with this commit) would wait
 * in ready[] while every later io_u completed in queue(), for as long as that lasted. Then, and
 * when the scheduler holds this one back, it is queued as any other, committed already (fio's
 * commit() right after finds nothing to do): fio reaps them all with getevents.
 */
static enum fio_q_status queue_direct(struct thread_data *td, struct se_job_data *jd,
				      struct io_u *io_u)
{
	bool timed = fio_fill_issue_time(td);

	if (timed) {
		fio_gettime(&io_u->issue_time, NULL);
		if (td->o.read_iolog_file) /* iolog replay paces from the last issue */
			memcpy(&td->last_issue, &io_u->issue_time, sizeof(io_u->issue_time));
	}
	if (commit_domain(td, jd) < 0) {
		jd->committed[jd->ncommitted++] = io_u;
		return FIO_Q_QUEUED;
	}
	if (jd->nready < jd->nr_slots)
		reap(td, jd, (int)(jd->nr_slots - jd->nready));
	io_u_mark_submit(td, 1);
	if (jd->nready == 1 && jd->ready[jd->ready_head] == io_u) {
		ready_pop(jd);
		atomic_fetch_add_explicit(&jd->m.sj->direct_completions, 1, memory_order_relaxed);
		io_u_mark_complete(td, 1);
		return FIO_Q_COMPLETED;
	}
	if (timed) {
		/* Not done in queue(): accounted as se_queue_commit() accounts the others, the
		 * issue time when the commit has handed it over (after any wait for a request),
		 * then slat. */
		fio_gettime(&io_u->issue_time, NULL);
		if (td->o.read_iolog_file)
			memcpy(&td->last_issue, &io_u->issue_time, sizeof(io_u->issue_time));
		io_u_queued(td, io_u);
	}
	return FIO_Q_QUEUED;
}

static enum fio_q_status se_queue(struct thread_data *td, struct io_u *io_u)
{
	struct se_job_data *jd = td->io_ops_data;
	struct se_slot *slot;

	fio_ro_check(td, io_u);
	if (pc_io_u(td, jd, io_u))
		return FIO_Q_COMPLETED;
	if (!jd->nfree) {
		/* fio never queues more than iodepth; flush what we hold and ask it to wait. */
		se_queue_commit(td);
		return FIO_Q_BUSY;
	}
	if (jd->defer_writes) {
		enum fio_q_status st;

		if (defer_io_u(td, jd, io_u, &st))
			return st;
	}
	slot = jd->free[--jd->nfree];
	fill_request(td, jd, slot, io_u);
	io_u->engine_data = slot;
	jd->pending[jd->npending++] = slot;
	if (jd->direct_ok && !jd->ncommitted && td->o.iodepth_batch <= 1)
		return queue_direct(td, jd, io_u);
	jd->committed[jd->ncommitted++] = io_u;
	return FIO_Q_QUEUED;
}

/* A dirty write an fsync wrote back has completed: the fsync goes on when it was the last. */
static void writeback_done(struct se_job_data *jd, struct se_slot *slot)
{
	jd->dirty_free[jd->ndirty_free++] = slot;
	if (!--jd->wb_inflight && jd->fsync_slot) {
		jd->pending[jd->npending++] = jd->fsync_slot;
		jd->fsync_slot = NULL;
	}
}

static void issue(struct thread_data *td, struct se_job_data *jd, struct se_slot **v, int n);

/* A request completed for this job (DONE: by a device model, or the device context). */
static void slot_done(struct se_job_data *jd, struct se_slot *slot)
{
	struct io_u *io_u = jd->slot_io_u[slot->index];

	atomic_store_explicit(&slot->state, SE_SLOT_FREE, memory_order_relaxed);
	if (slot->no_data) {
		writeback_done(jd, slot);
		return;
	}
	jd->slot_io_u[slot->index] = NULL;
	finish_io_u(io_u, slot->res);
	ready_push(jd, io_u);
	jd->free[jd->nfree++] = slot;
}

/* Requests that completed for this job elsewhere (DONE) or that it must issue (grants). */
static void take_ring(struct thread_data *td, struct se_job_data *jd)
{
	int n;

	if (!se_has_ring_work(&jd->m))
		return;
	while ((n = se_pop(&jd->m, jd->batch, (int)jd->nr_slots)) > 0) {
		jd->in_domain -= (unsigned int)n;
		issue(td, jd, jd->batch, n);
	}
}

/* Issues requests dispatched for this job on its backend; those already done go back to fio. */
static void issue(struct thread_data *td, struct se_job_data *jd, struct se_slot **v, int n)
{
	int flush = 0;

	for (int i = 0; i < n; i++) {
		struct se_slot *slot = v[i];
		struct io_u *io_u = jd->slot_io_u[slot->index];
		struct se_io io;
		int r;

		if (atomic_load_explicit(&slot->state, memory_order_relaxed) == SE_SLOT_DONE) {
			slot_done(jd, slot);
			continue;
		}
		if (jd->has_model || slot->no_data) {
			/* Nothing to move (bypass of a model domain): done as issued. */
			jd->comp[0].tag = (uint64_t)(uintptr_t)slot;
			jd->comp[0].res = slot->op <= SE_OP_WRITE ? (int64_t)slot->len : 0;
			se_complete(&jd->m, &slot, 1, jd->mine, 0);
			if (slot->no_data) {
				writeback_done(jd, slot);
			} else {
				jd->slot_io_u[slot->index] = NULL;
				finish_io_u(io_u, jd->comp[0].res);
				ready_push(jd, io_u);
				jd->free[jd->nfree++] = slot;
			}
			continue;
		}
		io = (struct se_io){
		    .fd = io_u->file->fd,
		    .buf = io_u->xfer_buf,
		    .len = io_u->xfer_buflen,
		    .off = io_u->offset,
		    .op = slot->op,
		    .sfr_flags = td->o.sync_file_range,
		    .blockdev = io_u->file->filetype == FIO_TYPE_BLOCK,
		    .tag = (uint64_t)(uintptr_t)slot,
		};
		r = jd->be.ops->issue(&jd->be, &io);
		if (r < 0) {
			/* Failed to issue: completed once, with the error, through the normal path.
			 */
			struct se_slot *s1 = slot;

			finish_io_u(io_u, r);
			jd->slot_io_u[slot->index] = NULL;
			ready_push(jd, io_u);
			/* max 0: what the completion grants this job goes to its ring
			 * (take_ring()), not into mine[], which v may be and this loop still reads.
			 */
			(void)se_complete(&jd->m, &s1, 1, jd->mine, 0);
			jd->free[jd->nfree++] = slot;
			continue;
		}
		flush = 1;
	}
	if (flush)
		jd->be.ops->flush(&jd->be);
	(void)td;
}

static void finish_io_u(struct io_u *io_u, long long res)
{
	if (res < 0) {
		io_u->error = (unsigned int)-res;
		return;
	}
	if ((io_u->ddir == DDIR_READ || io_u->ddir == DDIR_WRITE) &&
	    (unsigned long long)res != io_u->xfer_buflen) {
		if (res == 0 && io_u->ddir == DDIR_WRITE)
			io_u->error = ENOSPC;
		else
			io_u->resid = io_u->xfer_buflen - (unsigned long long)res;
	}
}

static int reap_once(struct thread_data *td, struct se_job_data *jd, int max, int *granted)
{
	int n = jd->be.ops->reap(&jd->be, jd->comp, max), nm;

	*granted = 0;
	for (int i = 0; i < n; i++) {
		struct se_slot *slot = (struct se_slot *)(uintptr_t)jd->comp[i].tag;
		struct io_u *io_u = jd->slot_io_u[slot->index];

		finish_io_u(io_u, jd->comp[i].res);
		jd->slot_io_u[slot->index] = NULL;
		ready_push(jd, io_u);
		jd->batch[i] = slot;
	}
	if (!n)
		return 0;
	nm = se_complete(&jd->m, jd->batch, n, jd->mine, (int)jd->nr_slots);
	for (int i = 0; i < n; i++)
		jd->free[jd->nfree++] = jd->batch[i];
	jd->in_domain -= (unsigned int)nm;
	*granted = nm;
	if (nm)
		issue(td, jd, jd->mine, nm);
	return n;
}

/*
 * Takes what the backend finished and reports it to the domain. Returns how many. The grants
 * the completions bring are issued at once; a backend that does them in issue() (psync) has
 * finished them too, and they are reported now, not at the next reap: until then the domain
 * would count them in flight on the device, through fio's think time.
 */
static int reap(struct thread_data *td, struct se_job_data *jd, int max)
{
	int total = 0, n, granted;

	do {
		n = reap_once(td, jd, max - total, &granted);
		total += n;
	} while (n && granted && jd->be.ops->completes_in_issue && total < max);
	return total;
}

/* Sleeps until something may be there for this job, or the deadline; 1 when it passed. */
static int sleep_job(struct thread_data *td, struct se_job_data *jd, uint64_t deadline)
{
	struct se_bell *bell = &jd->m.sj->bell;
	uint32_t seen = se_bell_read(bell);
	uint64_t check = se_now_ns() + SE_JOB_CHECK_NS, until, event = UINT64_MAX;
	int r;

	if (jd->has_model && jd->in_domain) {
		/*
		 * Waiting for the device model: the job wakes when the next event is due and runs
		 * it itself, as the device context would, instead of waiting for the device
		 * context to run it and then ring this job (two wake-ups in a row, each adding to
		 * the QD1 think time the policy sees). With a request of its own in the model it
		 * polls the clock for the last poll_ns, since a sleeper wakes late (tens of us on
		 * a VM's idle vCPU). The device context still runs the event if the job is late.
		 */
		uint64_t now = se_now_ns();
		bool own = atomic_load_explicit(&jd->m.sj->in_model, memory_order_relaxed);

		event = se_next_event(&jd->m);
		if (own && event > now && event - now <= jd->poll_ns) {
			atomic_fetch_add_explicit(&jd->m.sj->model_polls, 1, memory_order_relaxed);
			while ((now = se_now_ns()) < event && !se_has_ring_work(&jd->m) &&
			       se_bell_read(bell) == seen)
				sched_yield(); /* others runnable on this CPU go first */
		}
		if (event <= now) {
			int n = se_advance(&jd->m, jd->mine, (int)jd->nr_slots);

			jd->in_domain -= (unsigned int)n;
			if (n)
				issue(td, jd, jd->mine, n);
			return 0;
		}
		if (se_has_ring_work(&jd->m) || se_bell_read(bell) != seen)
			return 0;
		if (own && event - now > jd->poll_ns && jd->poll_ns)
			event -= jd->poll_ns; /* sleep until the polling starts */
	}
	until = deadline < check ? deadline : check;
	if (event < until)
		until = event;
	if (!jd->in_domain && !jd->has_model && atomic_load(&jd->m.sj->nr_issued)) {
		/* Its requests are all on its own backend: no other member can grant it one or
		 * complete one for it, so only the backend can wake it. */
		r = jd->be.ops->wait(&jd->be, NULL, 0, until);
	} else {
		se_bell_sleep_begin(bell);
		if (se_has_ring_work(&jd->m)) {
			se_bell_sleep_end(bell);
			return 0;
		}
		r = jd->be.ops->wait(&jd->be, bell, seen, until);
		se_bell_sleep_end(bell);
	}
	if (r == 1 && until == event && event < deadline)
		return 0; /* the event is due: the caller's next sleep_job() runs it */
	if (r < 0) {
		td_verror(td, -r, "schedengine wait");
		return r;
	}
	if (r == 1 && deadline > check) {
		/* Nothing for a long while: is the device context still there? */
		se_check_device(&jd->m);
		return 0;
	}
	return r;
}

/*
 * Submission. When no request is free (nr_requests, scheduler tags), the submitter sleeps as a
 * process does in the kernel's get_request(): it cannot return to fio meanwhile, but its I/O
 * keeps completing; those completions wait for getevents.
 */
/* Hands what this job holds to the domain; what it dispatches for us is issued at once. */
static void submit_pending(struct thread_data *td, struct se_job_data *jd)
{
	while (jd->npending) {
		int n =
		    se_submit(&jd->m, jd->pending, (int)jd->npending, jd->mine, (int)jd->nr_slots);

		jd->in_domain += jd->npending - (unsigned int)n;
		jd->npending = 0;
		if (n)
			issue(td, jd, jd->mine, n);
	}
}

/* What this job holds goes to the domain, waiting while no request is free for it. */
static int commit_domain(struct thread_data *td, struct se_job_data *jd)
{
	submit_pending(td, jd);
	take_ring(td, jd);
	while (se_blocked(&jd->m)) {
		if (jd->nready < jd->nr_slots && reap(td, jd, (int)(jd->nr_slots - jd->nready)) > 0)
			continue;
		take_ring(td, jd);
		if (!se_blocked(&jd->m))
			break;
		if (sleep_job(td, jd, UINT64_MAX) < 0)
			return -EIO;
		take_ring(td, jd);
	}
	return 0;
}

static int se_queue_commit(struct thread_data *td)
{
	struct se_job_data *jd = td->io_ops_data;
	struct timespec now;

	if (commit_domain(td, jd) < 0)
		return -EIO;
	/* As fio's libaio engine after io_submit(): issue time, slat, submit depth. */
	if (jd->ncommitted) {
		if (fio_fill_issue_time(td)) {
			fio_gettime(&now, NULL);
			for (unsigned int i = 0; i < jd->ncommitted; i++) {
				memcpy(&jd->committed[i]->issue_time, &now, sizeof(now));
				io_u_queued(td, jd->committed[i]);
			}
			if (td->o.read_iolog_file)
				memcpy(&td->last_issue, &now, sizeof(now));
		}
		io_u_mark_submit(td, jd->ncommitted);
		jd->ncommitted = 0;
	}
	return 0;
}

static int se_getevents(struct thread_data *td, unsigned int min, unsigned int max,
			const struct timespec *t)
{
	struct se_job_data *jd = td->io_ops_data;
	uint64_t user_deadline = UINT64_MAX;
	int r;

	if (t)
		user_deadline =
		    se_now_ns() + (uint64_t)t->tv_sec * 1000000000ull + (uint64_t)t->tv_nsec;
	jd->nevents = 0;
	/* What queue() holds goes first (fio commits before it waits; this is for the rest). */
	if (jd->npending || jd->ncommitted || se_blocked(&jd->m))
		se_queue_commit(td);
	for (;;) {
		take_ring(td, jd);
		if (jd->nready < max)
			reap(td, jd, (int)(jd->nr_slots - jd->nready));
		/* An fsync whose writeback just completed (writeback=fsync) goes now. */
		submit_pending(td, jd);
		while (jd->nready && jd->nevents < max)
			jd->events[jd->nevents++] = ready_pop(jd);
		if (jd->nevents >= min || jd->nevents >= max)
			break;
		if (se_has_ring_work(&jd->m))
			continue;
		if (t && se_now_ns() >= user_deadline)
			break;
		r = sleep_job(td, jd, user_deadline);
		if (r < 0)
			return r;
	}
	return (int)jd->nevents;
}

static struct io_u *se_event(struct thread_data *td, int event)
{
	struct se_job_data *jd = td->io_ops_data;

	return jd->events[event];
}

static void free_job_data(struct se_job_data *jd)
{
	if (jd->be.priv)
		jd->be.ops->exit(&jd->be);
	free(jd->slot_io_u);
	free(jd->free);
	free(jd->pending);
	free(jd->committed);
	free(jd->events);
	free(jd->ready);
	free(jd->comp);
	free(jd->batch);
	free(jd->mine);
	free(jd->dirty_free);
	free(jd->dirty);
	free(jd);
}

static void se_cleanup(struct thread_data *td)
{
	struct se_job_data *jd = td->io_ops_data;
	struct se_domain *d;

	if (!jd)
		return;
	d = jd->m.d;
	if (jd->pagecache)
		se_pc_leave_sync(&jd->m);
	se_leave(&jd->m);
	if (jd->iomem && d) {
		se_buf_free(d, jd->iomem, jd->iomem_len);
		jd->iomem = NULL;
	}
	se_domain_detach(d);
	free_job_data(jd);
	td->io_ops_data = NULL;
}

/*
 * The page cache a job's domain has: pagecache= as given, or for auto (the default) what the
 * kernel gives this run's jobs of the domain: a page cache (6.12) when one of them is buffered
 * (direct=0), none when all are direct or one asks writeback=fsync (the model's own deferred
 * writeback). A job that says pagecache= decides for the auto ones beside it. *any: auto found
 * no buffered job, so a domain of another run with any page cache serves this one (its direct
 * jobs bypass it).
 */
static int pagecache_of(struct thread_data *me, const struct se_options *mo, bool *any)
{
	const char *dom = mo->sched_domain ? mo->sched_domain : "";
	bool buffered = false, fsync = mo->writeback_fsync;
	struct thread_data *td;
	int i;

	*any = false;
	if (!mo->pc_auto)
		return mo->pc_profile;
	if (mo->pc_resolved) {
		*any = mo->pc_res_any;
		return mo->pc_resolved - 2;
	}
	/* The ops pointers are compared, not read: in a forked job other jobs' may be freed. */
	for_each_td(td, i)
	{
		const struct se_options *o = td->eo;

		if (!o || !td->io_ops || td->io_ops != me->io_ops ||
		    strcmp(o->sched_domain ? o->sched_domain : "", dom))
			continue;
		if (!o->pc_auto)
			return o->pc_profile;
		buffered |= !td->o.odirect;
		fsync |= o->writeback_fsync;
	}
	/* The offload submission worker (not in fio's table) has its parent's configuration. */
	buffered |= !me->o.odirect;
	*any = !buffered;
	return buffered && !fsync ? mo->pc_profile : -1;
}

/* The scheduler and device this job expects; the first job of the domain sets them up. */
static int build_config(struct thread_data *td, const struct se_options *o,
			struct se_domain_config *dc)
{
	struct sched_config *cfg = &dc->sched;
	struct devmodel_params *model = &dc->model;
	struct se_target tgt = {.rotational = -1, .nr_tags = -1, .nr_requests = -1};
	char err[256];
	int rot = o->rotational_flag, pc;

	memset(dc, 0, sizeof(*dc));
	sched_config_defaults(cfg, (enum sched_policy_id)o->policy);
	cfg->blk_mode = (enum sched_blk_mode)o->blk_mode_val;
	dc->has_model = o->model_kind >= 0;
	/* The kernel's default 0; the block layer merges with a device model only. */
	dc->nomerges = o->nomerges_set ? o->nomerges_val : 0;
	pc = pagecache_of(td, o, &dc->pc_any);
	dc->pc_on = pc >= 0 ? (uint32_t)pc + 1 : 0;
	dc->pc_mb = pc >= 0 ? o->pc_mb : 0;
	/* vm.dirty_* and read_ahead_kb: for the page cache only (pc_tunables_join()). */
	if (pc_tunables_join((const char *const *)o->pc_param, pc >= 0 || o->pc_auto,
			     dc->pc_tunables, sizeof(dc->pc_tunables), err, sizeof(err)))
		goto fail;
	/* queue/max_sectors_kb is the block layer's too: the largest merged request. */
	if (o->pc_param[PC_MAX_SECTORS_KB_PARAM]) {
		const char *v = o->pc_param[PC_MAX_SECTORS_KB_PARAM];
		char *end;
		unsigned long kb;

		errno = 0;
		kb = strtoul(v, &end, 10);
		if (errno || end == v || *end || *v == '-' || kb < 4 || kb > 65536) {
			snprintf(err, sizeof(err),
				 "max_sectors_kb=%s: must be an integer in 4..65536", v);
			goto fail;
		}
		dc->max_sectors_kb = (uint32_t)kb;
	}
	if (pc >= 0 || o->pc_auto) {
		const char *bh = o->pc_param[PC_BH_WRITEBACK_PARAM];
		bool all_bdev = td->files_index > 0;

		for (unsigned int i = 0; i < td->files_index; i++)
			all_bdev &= td->files[i]->filetype == FIO_TYPE_BLOCK;
		if (bh && strtoul(bh, NULL, 10) && !dc->has_model) {
			snprintf(err, sizeof(err),
				 "buffer_head_writeback=%s needs a device_model (the engine merges "
				 "bios only there)",
				 bh);
			goto fail;
		}
		/* A raw block device's writeback is a bio per buffer head (blkdev_writepages()):
		 * as the kernel's, where the engine merges them as it does. */
		if (!bh && all_bdev && dc->has_model) {
			size_t n = strlen(dc->pc_tunables);

			snprintf(dc->pc_tunables + n, sizeof(dc->pc_tunables) - n,
				 "%sbuffer_head_writeback=1", n ? "," : "");
		}
	}
	if (pc >= 0 && o->writeback_fsync) {
		snprintf(err, sizeof(err),
			 "pagecache=%s and writeback=fsync: choose one (the page "
			 "cache writes back itself)",
			 o->pagecache);
		goto fail;
	}
	/* Checked here, in se_setup()'s check of the run: before fio lays out any file. */
	if (o->writeback_fsync) {
		unsigned int nd = td->o.fsync_blocks > td->o.fdatasync_blocks
				      ? td->o.fsync_blocks
				      : td->o.fdatasync_blocks;

		if (!dc->has_model) {
			snprintf(err, sizeof(err),
				 "writeback=fsync needs a device_model (with real I/O the kernel's "
				 "page cache writes back)");
			goto fail;
		}
		if (nd > SE_MAX_DIRTY) {
			snprintf(err, sizeof(err),
				 "writeback=fsync holds at most %u writes between fsyncs: fsync=%u "
				 "is more",
				 SE_MAX_DIRTY, nd);
			goto fail;
		}
	}
	if (dc->has_model) {
		*model = devmodel_params_defaults((enum devmodel_kind)o->model_kind);
		for (unsigned int i = 0; se_model_opt_name(i); i++) {
			if (!o->model_param[i])
				continue;
			/* Another kind's parameter would change nothing: a typo of the model. */
			if (devmodel_param_kind((enum devmodel_kind)o->model_kind,
						se_model_opt_name(i)) != 1) {
				snprintf(err, sizeof(err),
					 "%s=%s: not a parameter of device_model=%s",
					 se_model_opt_name(i), o->model_param[i], o->device_model);
				goto fail;
			}
			if (devmodel_set_param(model, se_model_opt_name(i), o->model_param[i], err,
					       sizeof(err)))
				goto fail;
		}
		if (devmodel_params_check(model, err, sizeof(err)))
			goto fail;
		if (td->o.verify) { /* VERIFY_NONE is 0 */
			snprintf(err, sizeof(err),
				 "device_model=%s moves no data: verify= cannot be used with it",
				 o->device_model);
			goto fail;
		}
	} else {
		for (unsigned int i = 0; se_model_opt_name(i); i++) {
			if (o->model_param[i]) {
				snprintf(err, sizeof(err),
					 "%s=%s: a device-model parameter, but no device_model is "
					 "chosen",
					 se_model_opt_name(i), o->model_param[i]);
				goto fail;
			}
		}
		if (td->files_index > 0 && td->files[0])
			se_target_probe(td->files[0]->file_name, &tgt);
	}
	/* sched_group/sched_weight with none or deadline: accepted, and without effect, as the
	 * kernel's cgroup weights under those schedulers (a matrix compares schedulers on one job
	 * file with groups: test_sb_hosts, jobs/crosscheck-bfq/two-groups.fio). */
	/* Driver tags: the model's queue, or the device's, unless hw_queue_depth says otherwise. */
	if (o->hw_queue_depth)
		cfg->hw_queue_depth = o->depth;
	else if (dc->has_model)
		cfg->hw_queue_depth = model->queue_depth;
	else if (tgt.nr_tags > 0)
		cfg->hw_queue_depth = (uint32_t)tgt.nr_tags;
	else
		cfg->hw_queue_depth = 32;
	if (dc->has_model && cfg->hw_queue_depth > model->queue_depth) {
		snprintf(
		    err, sizeof(err),
		    "hw_queue_depth=%u is more than device_model=%s holds (dev_queue_depth=%u)",
		    cfg->hw_queue_depth, o->device_model, model->queue_depth);
		goto fail;
	}
	/*
	 * The request pool: as given, else as the kernel sizes it. In blk-mq mode a device whose
	 * queue has an elevator already shows its scheduler tags in queue/nr_requests; without
	 * one, blk_mq_init_sched() would make 2 x min(tags, 128).
	 */
	cfg->nr_requests = o->nr_requests_val;
	if (cfg->nr_requests == SCHED_NR_REQUESTS_AUTO &&
	    sched_config_blk_mode(cfg) == SCHED_BLK_MQ && tgt.has_elevator == 1 &&
	    tgt.nr_requests >= 4)
		cfg->nr_requests = (uint32_t)tgt.nr_requests;
	if (rot < 0 && dc->has_model)
		rot = model->kind == DEVMODEL_HDD;
	if (rot < 0)
		rot = tgt.rotational;
	/* No block device behind the target (tmpfs...): the kernel's default is rotational. */
	cfg->rotational = rot != 0;
	for (unsigned int i = 0; se_tunable_opt_name(i); i++) {
		if (!o->tunable[i])
			continue;
		if (sched_config_set_tunable(cfg, se_tunable_opt_name(i), o->tunable[i], err,
					     sizeof(err)))
			goto fail;
	}
	/* What the policy cannot run (a profile not modelled, a tunable its kernel lacks): refused
	 * here, in the run's check before any job starts, not by the first job's sched_init(). */
	if (sched_config_check(cfg, err, sizeof(err)))
		goto fail;
	return 0;
fail:
	log_err("schedengine: %s\n", err);
	return -1;
}

/*
 * io_submit_mode=offload: fio's submission workers (rate-submit.c) each init the engine on a
 * thread_data of their own (calloc'd, thread_number 0) holding a copy of their job's options,
 * its own copy of the engine's. Their job is the job of that name with offload whose engine is
 * up in this process (a fork job's process; every thread job's). Clones of one job (numjobs)
 * are alike, so a worker may land on any of them: the same configuration and group. Each worker
 * is a member of the job's domain with the job's configuration and group, and a scheduling
 * entity of its own: in the kernel each worker thread (a pthread, no CLONE_IO) has its own
 * io_context, so CFQ and BFQ give each a queue of its own too.
 */
static struct thread_data *offload_parent(struct thread_data *td)
{
	struct thread_data *t;
	int i;

	if (td->thread_number || td->o.io_submit_mode != IO_MODE_OFFLOAD || !td->o.name)
		return NULL;
	for_each_td(t, i)
	{
		if (t == td || !t->thread_number || t->o.io_submit_mode != IO_MODE_OFFLOAD ||
		    !t->o.name || strcmp(t->o.name, td->o.name) ||
		    (!td->o.use_thread && t->pid != getpid()) || !t->io_ops_data ||
		    t->io_ops != td->io_ops)
			continue;
		return t;
	}
	return NULL;
}

static int se_init(struct thread_data *td)
{
	struct se_options *o = td->eo;
	struct se_attach_params ap;
	struct se_join_params p;
	struct se_job_data *jd;
	struct se_domain *d;
	struct thread_data *parent = offload_parent(td);
	char err[256] = "", wname[SE_NAME_MAX];
	unsigned int depth = td->o.iodepth ? td->o.iodepth : 1, extra = 0, ns;

	jd = calloc(1, sizeof(*jd));
	if (!jd)
		return 1;
	memset(&p, 0, sizeof(p));
	if (parent) {
		/* A submission worker: its job's domain and configuration, as it is in there. */
		struct se_job_data *pj = parent->io_ops_data;

		/*
		 * fio 3.33's start_worker() sets the worker's flags to SW_F_IDLE after creating it,
		 * wiping the SW_F_RUNNING a worker that inits fast has already set, and
		 * workqueue_init() then waits for it forever (axboe/fio#2053, fixed upstream in
		 * 2026; native psync hung 9 of 12 one-second offload runs here). A worker that
		 * inits after start_worker() has returned is not lost: 1 ms is thousands of times
		 * the window.
		 */
		usleep(1000);
		p.cfg = pj->m.d->cfg;
		if (parent->o.numjobs > 1 || parent->subjob_number) /* a clone of numjobs */
			snprintf(wname, sizeof(wname), "%.32s.%u (submit worker %u)",
				 parent->o.name, parent->subjob_number,
				 atomic_fetch_add(&pj->nr_workers, 1) + 1);
		else
			snprintf(wname, sizeof(wname), "%.40s (submit worker %u)", parent->o.name,
				 atomic_fetch_add(&pj->nr_workers, 1) + 1);
	} else if (td->thread_number == 0 && td->o.io_submit_mode == IO_MODE_OFFLOAD) {
		log_err("schedengine: job %s: io_submit_mode=offload: the submission worker's job "
			"is not found\n",
			td->o.name);
		goto fail;
	} else if (build_config(td, o, &p.cfg)) {
		goto fail;
	}
	jd->has_model = p.cfg.has_model;
	jd->pagecache = p.cfg.pc_on != 0;
	/* Groups: sched_group/sched_weight, else fio's own cgroup=/cgroup_weight= (fio sets them
	 * up in the kernel too where it can; on cgroup2 without blkio.weight it cannot). */
	p.group = o->sched_group ? o->sched_group : td->o.cgroup;
	p.weight = o->weight ? o->weight : td->o.cgroup_weight;
	p.trace_path = o->sched_trace;
	if (o->writeback_fsync) {
		unsigned int nd = td->o.fsync_blocks > td->o.fdatasync_blocks
				      ? td->o.fsync_blocks
				      : td->o.fdatasync_blocks;

		if (nd) { /* build_config() checked the model and nd */
			jd->defer_writes = true;
			extra = nd;
		}
	}
	ns = depth + extra;
	jd->depth = depth;
	jd->nr_slots = ns;
	jd->poll_ns = (uint64_t)(o->poll_set ? o->poll_us : 100) * 1000;
	jd->slot_io_u = calloc(ns, sizeof(*jd->slot_io_u));
	jd->free = calloc(ns, sizeof(*jd->free));
	jd->pending = calloc(ns, sizeof(*jd->pending));
	jd->committed = calloc(ns, sizeof(*jd->committed));
	jd->events = calloc(ns, sizeof(*jd->events));
	jd->ready = calloc(ns, sizeof(*jd->ready));
	jd->comp = calloc(ns, sizeof(*jd->comp));
	jd->batch = calloc(ns, sizeof(*jd->batch));
	jd->mine = calloc(ns, sizeof(*jd->mine));
	jd->dirty_free = calloc(extra ? extra : 1, sizeof(*jd->dirty_free));
	jd->dirty = calloc(extra ? extra : 1, sizeof(*jd->dirty));
	if (!jd->slot_io_u || !jd->free || !jd->pending || !jd->committed || !jd->events ||
	    !jd->ready || !jd->comp || !jd->batch || !jd->mine || !jd->dirty_free || !jd->dirty) {
		log_err("schedengine: job %s: out of memory\n", td->o.name);
		goto fail;
	}
	p.nr_slots = ns;
	p.name = parent ? wname : td->o.name;
	p.thread_number = parent ? parent->thread_number : td->thread_number;
	p.subjob = parent ? parent->subjob_number : td->subjob_number;
	p.stats_path = o->sched_stats;
	p.summary = o->summary;
	/* The backend is the system call fio's ioengine would make: its batches' plug. */
	if (o->backend_ops == &se_backend_libaio)
		p.submit_path = SE_SUBMIT_LIBAIO;
	else if (o->backend_ops == &se_backend_psync)
		p.submit_path = SE_SUBMIT_PSYNC;
	else
		p.submit_path = SE_SUBMIT_IO_URING;
	/* A domain this run creates holds its jobs (at least the default). */
	p.max_jobs = o->domain_jobs ? o->domain_jobs
				    : (thread_number > SE_DEFAULT_MAX_JOBS ? thread_number
									   : SE_DEFAULT_MAX_JOBS);

	memset(&ap, 0, sizeof(ap));
	ap.name = o->sched_domain;
	ap.dir = o->sched_domain_dir;
	ap.max_jobs = p.max_jobs;
	d = se_domain_attach(&ap, err, sizeof(err));
	if (!d) {
		log_err("schedengine: %s\n", err);
		goto fail;
	}
	if (se_join(d, &p, &jd->m, err, sizeof(err))) {
		log_err("schedengine: %s\n", err);
		se_domain_detach(d);
		goto fail;
	}
	/*
	 * A job sleeps until a device model's completion time or a policy timer: with the default
	 * 50 us timer slack of a SCHED_OTHER thread every such wake-up would come up to 50 us late,
	 * a think time the kernel's jobs never had (BFQ and CFQ measure it). 1 ns: on time.
	 */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	for (unsigned int i = 0; i < depth; i++)
		jd->free[jd->nfree++] = &jd->m.slots[depth - 1 - i];
	for (unsigned int i = 0; i < extra; i++)
		jd->dirty_free[jd->ndirty_free++] = &jd->m.slots[depth + extra - 1 - i];

	jd->be.ops = o->backend_ops ? o->backend_ops : &se_backend_io_uring;
	jd->be.depth = ns;
	if (jd->be.ops->init(&jd->be) < 0) {
		log_err("schedengine: backend=%s: cannot set up for job %s: %s\n", jd->be.ops->name,
			td->o.name, strerror(errno));
		jd->be.priv = NULL;
		se_leave(&jd->m);
		se_domain_detach(d);
		goto fail;
	}
	/* With a device model the completion is the model's, at its time: in queue() only when
	 * the request is done by the time the commit returns (queue_direct()). */
	jd->direct_ok = jd->be.ops->completes_in_issue || jd->has_model;
	td->io_ops_data = jd;
	return 0;
fail:
	free_job_data(jd);
	return 1;
}

/* fio's buffers for this job, in the domain, so whoever issues a request reaches its buffer. */
static int se_iomem_alloc(struct thread_data *td, size_t total)
{
	struct se_job_data *jd = td->io_ops_data;
	struct se_domain *d = job_domain(td);

	if (!d)
		return 1;
	td->orig_buffer = se_buf_alloc(d, total);
	if (!td->orig_buffer) {
		if (errno == ENOMEM)
			log_err("schedengine: job %s: %zu bytes of buffers do not fit the domain\n",
				td->o.name, total);
		else
			log_err("schedengine: job %s: %zu bytes of buffers in the domain: %s\n",
				td->o.name, total, strerror(errno));
		return 1;
	}
	jd->iomem = td->orig_buffer;
	jd->iomem_len = total;
	return 0;
}

static void se_iomem_free(struct thread_data *td)
{
	struct se_job_data *jd = td->io_ops_data;

	if (jd && jd->iomem) {
		se_buf_free(jd->m.d, jd->iomem, jd->iomem_len);
		jd->iomem = NULL;
	}
	td->orig_buffer = NULL;
}

static int se_open_file(struct thread_data *td, struct fio_file *f)
{
	struct se_job_data *jd = td->io_ops_data;
	char err[256];
	int r = generic_open_file(td, f), flags, idx;
	bool cached;

	if (r || !jd)
		return r;
	/* A direct job's file is the kernel's, past the page cache (O_DIRECT). */
	cached = jd->pagecache && !td->o.odirect && pc_file(f);
	if (jd->has_model) {
		if (!cached)
			return r;
		/* Nothing is opened by path with a model: the index is the page cache's inode. */
		flags = 0;
		goto reg;
	}
	/* Registered by path and flags: another process may issue this job's requests. */
	flags = fcntl(f->fd, F_GETFL);
	if (flags < 0)
		flags = O_RDWR;
	flags &= O_ACCMODE | O_DIRECT | O_SYNC | O_DSYNC | O_NOATIME;
	if (cached) {
		/* The page cache's I/O bypasses the kernel's (where the file system allows it);
		 * it writes back too, so read-only jobs' files are opened for writing by it. */
		int fd = open(f->file_name, O_RDWR | O_DIRECT);

		flags = (flags & ~(O_ACCMODE | O_SYNC | O_DSYNC)) | O_RDWR;
		if (fd >= 0) {
			flags |= O_DIRECT;
			close(fd);
		}
	}
reg:
	idx = se_file_register(jd->m.d, f->file_name, (uint32_t)flags,
			       f->filetype == FIO_TYPE_BLOCK, f->fd, err, sizeof(err));
	if (idx < 0) {
		log_err("schedengine: %s\n", err);
		if (generic_close_file(td, f))
			log_err("schedengine: %s: close failed\n", f->file_name);
		return 1;
	}
	f->engine_pos = (uint64_t)idx;
	if (cached) {
		uint64_t size = f->real_file_size != -1ULL ? f->real_file_size : 0;

		if (se_pc_file_open(jd->m.d, (uint32_t)idx, size)) {
			log_err("schedengine: %s: page cache: bad file\n", f->file_name);
			return 1;
		}
		/* fio's fadvise_hint (td_io_open_file()): POSIX_FADV_RANDOM or _SEQUENTIAL on the
		 * job's file, by the job's pattern (1, the default) or as named. SEQUENTIAL doubles
		 * the read-ahead window, as generic_fadvise() does. */
		if (td->o.fadvise_hint == F_ADV_TYPE)
			se_pc_fadvise(jd->m.d, jd->m.job, (uint32_t)idx, td_random(td));
		else if (td->o.fadvise_hint == F_ADV_RANDOM ||
			 td->o.fadvise_hint == F_ADV_SEQUENTIAL)
			se_pc_fadvise(jd->m.d, jd->m.job, (uint32_t)idx,
				      td->o.fadvise_hint == F_ADV_RANDOM);
	}
	return 0;
}

static int se_close_file(struct thread_data *td, struct fio_file *f)
{
	struct se_job_data *jd = td->io_ops_data;

	if (jd && (!jd->has_model || (jd->pagecache && !td->o.odirect && pc_file(f))) &&
	    f->fd != -1)
		se_file_release(jd->m.d, (uint32_t)f->engine_pos);
	return generic_close_file(td, f);
}

/*
 * fio's invalidate=1 (at open and each loop): fio 3.33's __file_invalidate_cache() would call
 * posix_fadvise(fd, f->file_offset, f->io_size, POSIX_FADV_DONTNEED) on a regular file: the
 * job's own range, so jobs sharing a file (offset_increment) keep each other's pages. On the
 * engine's cache that range starts writeback of its dirty pages and drops its whole clean ones,
 * as the kernel does (pc_invalidate()). A block device gets BLKFLSBUF from fio (the whole
 * device's cache): here the whole file. The hook is installed (by check_run(), in fio's parent)
 * only when some job has pagecache= on; another job (another domain) gets fio's own fadvise.
 */
static int se_invalidate(struct thread_data *td, struct fio_file *f)
{
	struct se_job_data *jd = td->io_ops_data;
	bool range = f->filetype == FIO_TYPE_FILE && f->io_size != -1ULL;
	uint64_t off = range ? f->file_offset : 0, len = range ? f->io_size : 0;

	if (jd && jd->pagecache && !td->o.odirect && pc_file(f) &&
	    se_file_is(jd->m.d, (uint32_t)f->engine_pos, f->file_name))
		return se_pc_call(&jd->m, SE_PC_INVALIDATE, (uint32_t)f->engine_pos, off, len,
				  NULL) < 0
			   ? -EIO
			   : 0;
	if (f->filetype == FIO_TYPE_FILE && f->fd >= 0)
		return -posix_fadvise(f->fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
	return 0;
}

/* unlink(2) of a file with pages in the engine's cache: they go first (pc_truncate()). */
static int se_unlink_file(struct thread_data *td, struct fio_file *f)
{
	struct se_job_data *jd = td->io_ops_data;

	/* Only a file this domain registered (fio also unlinks before any open, at layout). */
	if (jd && jd->pagecache && !td->o.odirect && pc_file(f) &&
	    se_file_is(jd->m.d, (uint32_t)f->engine_pos, f->file_name) &&
	    se_pc_call(&jd->m, SE_PC_TRUNCATE, (uint32_t)f->engine_pos, 0, 0, NULL) < 0)
		log_err("schedengine: %s: page cache truncate failed\n", f->file_name);
	if (unlink(f->file_name) < 0)
		return errno;
	return 0;
}

static int se_get_file_size(struct thread_data *td, struct fio_file *f)
{
	return generic_get_file_size(td, f);
}

/*
 * What can be known before any job starts is checked before any job starts. fio calls setup()
 * in its parent for every job before it forks them (create_serialize, the default): the first
 * call looks at every job of the run that uses this engine, and one bad job stops them all.
 */
static int check_run(struct thread_data *first)
{
	struct {
		const char *domain;
		const struct se_options *o;
		struct se_domain_config cfg;
		const char *job;
		uint32_t count;
	} seen[64];
	unsigned int nseen = 0;
	struct thread_data *td;
	int i;

	for_each_td(td, i)
	{
		const struct se_options *o = td->eo;
		struct se_domain_config cfg;
		const char *dom;
		unsigned int k;

		if (!td->io_ops || td->io_ops->queue != first->io_ops->queue || !o)
			continue;
		if (build_config(td, o, &cfg))
			return -1;
		/* For the job's own init(), where the other jobs' options may be gone. */
		((struct se_options *)o)->pc_resolved = cfg.pc_on ? (int)cfg.pc_on + 1 : 1;
		((struct se_options *)o)->pc_res_any = cfg.pc_any;
		/* fio's parent, before any job runs: the ops are shared by thread-mode jobs. */
		if (cfg.pc_on)
			td->io_ops->invalidate = se_invalidate;
		dom = o->sched_domain ? o->sched_domain : "";
		for (k = 0; k < nseen && strcmp(seen[k].domain, dom); k++)
			;
		if (k == nseen) {
			struct se_attach_params ap = {.name = dom, .dir = o->sched_domain_dir};
			char err[512] = "";

			/* A named domain that could not be joined stops the run now. */
			if (se_domain_check(&ap, err, sizeof(err))) {
				log_err("schedengine: %s\n", err);
				return -1;
			}
			if (nseen == sizeof(seen) / sizeof(seen[0]))
				continue;
			seen[nseen].domain = dom;
			seen[nseen].o = o;
			seen[nseen].cfg = cfg;
			seen[nseen].job = td->o.name;
			seen[nseen++].count = 0;
		}
		if (++seen[k].count > SE_MAX_JOBS_LIMIT ||
		    (o->domain_jobs && seen[k].count > o->domain_jobs)) {
			log_err("schedengine: job %s: more than %u jobs in scheduler domain '%s' "
				"(sched_domain_jobs=%u, at most %u)\n",
				td->o.name, seen[k].count - 1, *dom ? dom : "default",
				o->domain_jobs ? o->domain_jobs : SE_MAX_JOBS_LIMIT,
				SE_MAX_JOBS_LIMIT);
			return -1;
		}
		{
			char diff[320], mine[SE_NAME_MAX + 8], theirs[SE_NAME_MAX + 8];

			snprintf(mine, sizeof(mine), "in job %.60s", td->o.name);
			snprintf(theirs, sizeof(theirs), "in job %.60s", seen[k].job);
			se_config_diff(&seen[k].cfg, &cfg, mine, theirs, diff, sizeof(diff));
			if (!diff[0])
				continue;
			log_err(
			    "schedengine: job %s: %s: the jobs of scheduler domain '%s' share one "
			    "scheduler and device\n",
			    td->o.name, diff, *dom ? dom : "default");
			return -1;
		}
	}
	return 0;
}

/*
 * Before each fork of fio's parent: the heap's unsorted free chunks are put in their bins. fio's
 * parent frees a chunk per job the size of the engine's options (1312 bytes, beyond the tcache's
 * sizes) into the unsorted bin, and a forked job's first malloc() the tcache cannot serve (its
 * se_init()) walked that bin, writing into every chunk and so copying each such page of the
 * parent's heap: the k-th job walked about k/2 chunks, 1.5 GiB of copies at 1024 fork jobs, and
 * 4088 fork jobs ran out of 24 GiB. A request no free chunk fits exactly sorts the whole bin, in
 * the parent, once per fork.
 */
static void sort_heap(void)
{
	void *volatile p = malloc(64 << 10); /* volatile: a free(malloc()) pair is elided */

	free(p);
}

static int se_setup(struct thread_data *td)
{
	/* 0: not checked yet; 1: the run is fine; -1: refused (every job fails its set-up). */
	static int run_checked;
	struct fio_file *f;
	unsigned int i;

	if (!run_checked) {
		run_checked = check_run(td) ? -1 : 1;
		pthread_atfork(sort_heap, NULL, NULL);
	}
	if (run_checked < 0)
		return 1;
	/* What fio's get_file_sizes() does when an engine has no setup(). */
	for_each_file(td, f, i)
	{
		if (td_io_get_file_size(td, f)) {
			if (td->error != ENOENT) {
				log_err("%s\n", td->verror);
				return 1;
			}
			td->error = 0; /* filesetup.c clear_error() */
			td->verror[0] = 0;
		}
		if (f->real_file_size == -1ULL && td->o.size)
			f->real_file_size = td->o.size / td->o.nr_files;
	}
	return 0;
}

/* Non-static: fio finds an external engine's ops by its symbol name "ioengine". */
struct ioengine_ops ioengine = {
    .name = "schedengine",
    .version = FIO_IOOPS_VERSION,
    .flags = FIO_ASYNCIO_SETS_ISSUE_TIME,
    .setup = se_setup,
    .init = se_init,
    .queue = se_queue,
    .commit = se_queue_commit,
    .getevents = se_getevents,
    .event = se_event,
    .cleanup = se_cleanup,
    .open_file = se_open_file,
    .close_file = se_close_file,
    .get_file_size = se_get_file_size,
    .unlink_file = se_unlink_file,
    .iomem_alloc = se_iomem_alloc,
    .iomem_free = se_iomem_free,
    .option_struct_size = sizeof(struct se_options),
    .options = se_engine_options,
};
