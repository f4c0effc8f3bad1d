// SPDX-License-Identifier: GPL-2.0
/*
 * schedengine: the fio glue. queue() hands each io_u to the shared scheduler domain; requests
 * the scheduler dispatches come back as grants, which this job issues to its backend (it holds
 * the buffers); completions are reported to the domain and returned to fio.
 *
 *   fio queue()/commit() -> se_submit() -> policy -> grant -> backend -> completion
 *   -> se_complete() -> getevents()/event() -> fio
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "fio.h"
#include "ioengines.h"
#include "optgroup.h"

#include "backend.h"
#include "devmodel.h"
#include "domain.h"
#include "options.h"
#include "rotational.h"

#define IOPRIO_CLASS_SHIFT 13

struct se_job_data {
	struct se_member m;
	struct se_backend be;
	int efd;
	unsigned int depth;
	struct se_slot **free;	/* local stack of this job's free slots */
	unsigned int nfree;
	struct se_slot **pending; /* queued by fio, not yet given to the domain */
	unsigned int npending;
	struct io_u **events;	/* returned by the last getevents, for ->event() */
	unsigned int nevents;
	struct io_u **ready;	/* completed, not yet returned: a FIFO ring */
	unsigned int ready_head, nready;
	struct se_completion *comp;
	struct se_slot **batch;
	/* writeback=fsync (device models): buffered writes stay dirty until the job's fsync. */
	bool defer_writes;
	struct se_slot **dirty_free; /* slots for dirty data, beyond the iodepth ones */
	unsigned int ndirty_free;
	struct se_slot **dirty; /* written by fio, not yet written back */
	unsigned int ndirty;
	unsigned int wb_inflight;   /* written back by an fsync, not yet complete */
	struct se_slot *fsync_slot; /* that fsync, submitted when they complete */
};

/* Most buffered writes one job may hold dirty between fsyncs (writeback=fsync). */
#define SE_MAX_DIRTY 1024u

static void fill_request(struct thread_data *td, struct se_job_data *jd, struct se_slot *slot,
			 struct io_u *io_u)
{
	struct sched_request *rq = &slot->rq;
	unsigned int prio = io_u->ioprio ? io_u->ioprio : td->ioprio;

	rq->owner = jd->m.job;
	rq->group = jd->m.sj->group;
	rq->prio_class = (uint8_t)((prio >> IOPRIO_CLASS_SHIFT) & 3);
	rq->prio_level = (uint8_t)(prio & 7);
	rq->offset = io_u->offset;
	rq->length = io_u->xfer_buflen;
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
	slot->io_u = io_u;
}

static int se_queue_commit(struct thread_data *td);
static void finish_io_u(struct io_u *io_u, long long res);

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
		slot->rq.flags = SCHED_RQ_SYNC;
		slot->io_u = NULL;
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
	jd->wb_inflight += jd->ndirty;
	if (jd->ndirty)
		se_submit(&jd->m, jd->dirty, (int)jd->ndirty);
	jd->ndirty = 0;
	*st = FIO_Q_QUEUED;
	return true;
}

static enum fio_q_status se_queue(struct thread_data *td, struct io_u *io_u)
{
	struct se_job_data *jd = td->io_ops_data;
	struct se_slot *slot;

	fio_ro_check(td, io_u);
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
	return FIO_Q_QUEUED;
}

static void finish_io_u(struct io_u *io_u, long long res);

/* Completions may come during commit() too (device models): they wait here for getevents. */
static void ready_push(struct se_job_data *jd, struct io_u *io_u)
{
	jd->ready[(jd->ready_head + jd->nready++) % jd->depth] = io_u;
}

static struct io_u *ready_pop(struct se_job_data *jd)
{
	struct io_u *io_u = jd->ready[jd->ready_head];

	jd->ready_head = (jd->ready_head + 1) % jd->depth;
	jd->nready--;
	return io_u;
}

/* A dirty write an fsync wrote back has completed: the fsync goes on when it was the last. */
static void writeback_done(struct se_job_data *jd, struct se_slot *slot)
{
	jd->dirty_free[jd->ndirty_free++] = slot;
	if (!--jd->wb_inflight && jd->fsync_slot) {
		se_submit(&jd->m, &jd->fsync_slot, 1);
		jd->fsync_slot = NULL;
	}
}

/* Issues every grant waiting for this job; requests a device model completed go back to fio. */
static void issue_grants(struct se_job_data *jd)
{
	int n;

	while ((n = se_pop_grants(&jd->m, jd->batch, (int)jd->depth)) > 0) {
		for (int i = 0; i < n; i++) {
			struct se_slot *slot = jd->batch[i];
			int r;

			if (atomic_load(&slot->state) == SE_SLOT_DONE) {
				/* The model moved no data: the transfer counts as complete. */
				struct io_u *io_u = slot->io_u;

				atomic_store(&slot->state, SE_SLOT_FREE);
				if (!io_u) {
					writeback_done(jd, slot);
					continue;
				}
				finish_io_u(io_u, (long long)io_u->xfer_buflen);
				ready_push(jd, io_u);
				jd->free[jd->nfree++] = slot;
				continue;
			}
			if (!slot->io_u) {
				/* A written-back dirty write granted for issue (the domain degraded to
				 * bypass): the model mode moves no data, it is done. */
				se_complete(&jd->m, &slot, 1);
				writeback_done(jd, slot);
				continue;
			}
			r = jd->be.ops->issue(&jd->be, slot, slot->io_u);

			if (r < 0) {
				/* Report it as failed through the normal completion path. */
				struct io_u *io_u = slot->io_u;

				io_u->error = -r;
				jd->be.ops->flush(&jd->be);
				jd->be.ops->issue(&jd->be, slot, io_u);
			}
		}
		jd->be.ops->flush(&jd->be);
	}
}

static int reap(struct se_job_data *jd, int max);

/*
 * Submission. When the queue has no free request (nr_requests), the submitter sleeps as a
 * process does in the kernel's get_request(): it cannot return to fio meanwhile, but its I/O
 * keeps completing (the kernel's interrupt path); those completions wait for getevents.
 */
static int se_queue_commit(struct thread_data *td)
{
	struct se_job_data *jd = td->io_ops_data;
	uint64_t deadline;
	int r;

	if (jd->npending) {
		se_submit(&jd->m, jd->pending, (int)jd->npending);
		jd->npending = 0;
	}
	issue_grants(jd);
	while (se_blocked(&jd->m)) {
		if (jd->nready < jd->depth && reap(jd, (int)(jd->depth - jd->nready)) > 0)
			continue;
		issue_grants(jd);
		if (!se_blocked(&jd->m) || se_has_grants(&jd->m))
			continue;
		if (!se_sleep_begin(&jd->m, &deadline))
			continue;
		if (!se_blocked(&jd->m)) {
			se_sleep_end(&jd->m, false);
			continue;
		}
		r = jd->be.ops->wait(&jd->be, deadline);
		se_sleep_end(&jd->m, r == 1);
		if (r < 0) {
			td_verror(td, -r, "schedengine wait");
			return r;
		}
	}
	return 0;
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

/* Takes what the backend finished, reports it to the domain. Returns how many. */
static int reap(struct se_job_data *jd, int max)
{
	int n = jd->be.ops->reap(&jd->be, jd->comp, max);

	for (int i = 0; i < n; i++) {
		struct se_slot *slot = jd->comp[i].slot;
		struct io_u *io_u = slot->io_u;

		finish_io_u(io_u, jd->comp[i].res);
		ready_push(jd, io_u);
		jd->batch[i] = slot;
	}
	if (n) {
		se_complete(&jd->m, jd->batch, n);
		for (int i = 0; i < n; i++)
			jd->free[jd->nfree++] = jd->batch[i];
	}
	return n;
}

static int se_getevents(struct thread_data *td, unsigned int min, unsigned int max,
			const struct timespec *t)
{
	struct se_job_data *jd = td->io_ops_data;
	uint64_t user_deadline = UINT64_MAX, deadline;
	int r;

	if (t)
		user_deadline = se_now_ns() + (uint64_t)t->tv_sec * 1000000000ull +
				(uint64_t)t->tv_nsec;
	jd->nevents = 0;
	se_queue_commit(td);
	for (;;) {
		issue_grants(jd);
		if (jd->nready < max)
			reap(jd, (int)(max - jd->nready));
		while (jd->nready && jd->nevents < max)
			jd->events[jd->nevents++] = ready_pop(jd);
		if (jd->nevents >= min || jd->nevents >= max)
			break;
		if (se_has_grants(&jd->m))
			continue;
		if (t && se_now_ns() >= user_deadline)
			break;
		if (!se_sleep_begin(&jd->m, &deadline))
			continue;
		if (deadline > user_deadline)
			deadline = user_deadline;
		r = jd->be.ops->wait(&jd->be, deadline);
		se_sleep_end(&jd->m, r == 1);
		if (r < 0) {
			td_verror(td, -r, "schedengine wait");
			return r;
		}
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
	if (jd->efd >= 0)
		close(jd->efd);
	free(jd->free);
	free(jd->pending);
	free(jd->events);
	free(jd->ready);
	free(jd->comp);
	free(jd->batch);
	free(jd->dirty_free);
	free(jd->dirty);
	free(jd);
}

static void se_cleanup(struct thread_data *td)
{
	struct se_job_data *jd = td->io_ops_data;

	if (!jd)
		return;
	se_leave(&jd->m);
	free_job_data(jd);
	td->io_ops_data = NULL;
}

/* The scheduler and device this job expects; the first job of the domain sets them up. */
static int build_config(struct thread_data *td, const struct se_options *o,
			struct sched_config *cfg, struct devmodel_params *model, bool *has_model)
{
	char src[300], err[256];
	int rot = o->rotational_flag;

	sched_config_defaults(cfg, (enum sched_policy_id)o->policy);
	*has_model = o->model_kind >= 0;
	if (*has_model) {
		*model = devmodel_params_defaults((enum devmodel_kind)o->model_kind);
		for (unsigned int i = 0; se_model_opt_name(i); i++)
			if (o->model_param[i] &&
			    devmodel_set_param(model, se_model_opt_name(i), o->model_param[i], err,
					       sizeof(err)))
				goto fail;
		if (devmodel_params_check(model, err, sizeof(err)))
			goto fail;
		if (td->o.verify) { /* VERIFY_NONE is 0 */
			snprintf(err, sizeof(err),
				 "device_model=%s moves no data: verify= cannot be used with it",
				 o->device_model);
			goto fail;
		}
	}
	/* The device's tags: the model's queue unless hw_queue_depth says otherwise. */
	cfg->hw_queue_depth = o->hw_queue_depth ? o->depth : *has_model ? model->queue_depth : 32;
	if (*has_model && cfg->hw_queue_depth > model->queue_depth) {
		snprintf(err, sizeof(err),
			 "hw_queue_depth=%u is more than device_model=%s holds (dev_queue_depth=%u)",
			 cfg->hw_queue_depth, o->device_model, model->queue_depth);
		goto fail;
	}
	if (rot < 0 && *has_model)
		rot = model->kind == DEVMODEL_HDD;
	if (rot < 0 && td->files_index > 0 && td->files[0])
		rot = se_detect_rotational(td->files[0]->file_name, src, sizeof(src));
	/* No block device behind the target (tmpfs...): the kernel's default is rotational. */
	cfg->rotational = rot != 0;
	for (unsigned int i = 0; se_tunable_opt_name(i); i++) {
		if (!o->tunable[i])
			continue;
		if (sched_config_set_tunable(cfg, se_tunable_opt_name(i), o->tunable[i], err,
					     sizeof(err)))
			goto fail;
	}
	return 0;
fail:
	log_err("schedengine: %s\n", err);
	return -1;
}

static int se_init(struct thread_data *td)
{
	struct se_options *o = td->eo;
	struct se_join_params p;
	struct se_job_data *jd;
	struct se_domain *d;
	struct devmodel_params model;
	bool has_model = false;
	char err[256];
	unsigned int depth = td->o.iodepth ? td->o.iodepth : 1, extra = 0;

	jd = calloc(1, sizeof(*jd));
	if (!jd)
		return 1;
	jd->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	jd->depth = depth;
	jd->free = calloc(depth, sizeof(*jd->free));
	jd->pending = calloc(depth, sizeof(*jd->pending));
	jd->events = calloc(depth, sizeof(*jd->events));
	jd->ready = calloc(depth, sizeof(*jd->ready));
	jd->comp = calloc(depth, sizeof(*jd->comp));
	jd->batch = calloc(depth, sizeof(*jd->batch));
	if (jd->efd < 0 || !jd->free || !jd->pending || !jd->events || !jd->ready || !jd->comp ||
	    !jd->batch) {
		log_err("schedengine: job %s: out of memory or file descriptors\n", td->o.name);
		goto fail;
	}

	memset(&p, 0, sizeof(p));
	if (build_config(td, o, &p.cfg, &model, &has_model))
		goto fail;
	p.model = has_model ? &model : NULL;
	p.nr_requests = o->nr_requests_val;
	/* Groups: sched_group/sched_weight, else fio's own cgroup=/cgroup_weight= (fio sets them
	 * up in the kernel too where it can; on cgroup2 without blkio.weight it cannot). */
	p.group = o->sched_group ? o->sched_group : td->o.cgroup;
	p.weight = o->weight ? o->weight : td->o.cgroup_weight;
	p.trace_path = o->sched_trace;
	if (o->writeback_fsync) {
		unsigned int nd = td->o.fsync_blocks > td->o.fdatasync_blocks ? td->o.fsync_blocks
									   : td->o.fdatasync_blocks;

		if (!has_model) {
			log_err("schedengine: writeback=fsync needs a device_model (with real I/O the "
				"kernel's page cache writes back)\n");
			goto fail;
		}
		if (nd > SE_MAX_DIRTY) {
			log_err("schedengine: writeback=fsync holds at most %u writes between fsyncs: "
				"fsync=%u is more\n", SE_MAX_DIRTY, nd);
			goto fail;
		}
		if (nd) {
			jd->defer_writes = true;
			jd->dirty_free = calloc(nd, sizeof(*jd->dirty_free));
			jd->dirty = calloc(nd, sizeof(*jd->dirty));
			if (!jd->dirty_free || !jd->dirty) {
				log_err("schedengine: job %s: out of memory\n", td->o.name);
				goto fail;
			}
			extra = nd;
		}
	}
	p.nr_slots = depth + extra;
	p.name = td->o.name;
	p.thread_number = td->thread_number;
	p.subjob = td->subjob_number;
	p.stats_path = o->sched_stats;
	p.efd = jd->efd;

	d = se_domain_attach(o->sched_domain, err, sizeof(err));
	if (!d || se_join(d, &p, &jd->m, err, sizeof(err))) {
		log_err("schedengine: %s\n", err);
		goto fail;
	}
	for (unsigned int i = 0; i < depth; i++)
		jd->free[jd->nfree++] = &jd->m.sj->slots[depth - 1 - i];
	for (unsigned int i = 0; i < extra; i++)
		jd->dirty_free[jd->ndirty_free++] = &jd->m.sj->slots[depth + extra - 1 - i];

	jd->be.ops = o->backend_ops ? o->backend_ops : &se_backend_io_uring;
	jd->be.td = td;
	jd->be.depth = depth;
	jd->be.doorbell = jd->efd;
	if (jd->be.ops->init(&jd->be) < 0) {
		log_err("schedengine: backend=%s: cannot set up for job %s: %s\n", jd->be.ops->name,
			td->o.name, strerror(errno));
		jd->be.priv = NULL;
		se_leave(&jd->m);
		goto fail;
	}
	td->io_ops_data = jd;
	return 0;
fail:
	free_job_data(jd);
	return 1;
}

static int se_open_file(struct thread_data *td, struct fio_file *f)
{
	return generic_open_file(td, f);
}

static int se_close_file(struct thread_data *td, struct fio_file *f)
{
	return generic_close_file(td, f);
}

static int se_get_file_size(struct thread_data *td, struct fio_file *f)
{
	return generic_get_file_size(td, f);
}

/* Non-static: fio finds an external engine's ops by its symbol name "ioengine". */
struct ioengine_ops ioengine = {
	.name = "schedengine",
	.version = FIO_IOOPS_VERSION,
	.flags = 0,
	.init = se_init,
	.queue = se_queue,
	.commit = se_queue_commit,
	.getevents = se_getevents,
	.event = se_event,
	.cleanup = se_cleanup,
	.open_file = se_open_file,
	.close_file = se_close_file,
	.get_file_size = se_get_file_size,
	.option_struct_size = sizeof(struct se_options),
	.options = se_engine_options,
};
