// SPDX-License-Identifier: GPL-2.0
/* The virtual-time workload simulator: fio-like jobs -> (page cache) -> block layer -> device
 * model. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blk.h"
#include "vsim.h"

#define NO_TIME UINT64_MAX

/* Log-linear histogram: values < 64 exact, then 64 sub-buckets per power of two. */
#define H_SUB_BITS 6
#define H_SUB	   (1u << H_SUB_BITS)
#define H_BUCKETS  (H_SUB + (64 - H_SUB_BITS) * H_SUB)

struct hist {
	uint64_t n;
	double mean, m2;
	uint64_t min, max;
	uint32_t *count; /* H_BUCKETS, allocated on first use */
};

struct vio {
	struct blk_rq br; /* first: the block layer's and the scheduler's view */
	uint32_t ent;
	int32_t next_free;
	uint64_t submit_ns; /* fio's issue time: the admission wait counts in the latency */
	/* A request of the page cache (read-ahead, writeback, fsync's), not a fio I/O. */
	bool from_pc;
	struct pc_io pcio;
	struct vio *pc_next; /* on the pool's free list */
};

/* Page-cache requests come from a pool that grows in blocks (the block layer keeps pointers
 * into them, so they never move). */
#define PC_POOL_BLOCK 256
struct pc_pool_block {
	struct pc_pool_block *next;
	struct vio io[PC_POOL_BLOCK];
};

struct vent {
	uint32_t job;
	uint32_t
	    file; /* its inode (page cache): job.file, + the clone's index with file_per_clone */
	uint64_t rng;
	uint64_t start, size, pos;
	uint32_t iodepth, outstanding;
	uint64_t ready; /* earliest next submission; NO_TIME when nothing left */
	uint64_t issued, writes_since_fsync;
	uint64_t fsync_start;
	bool fsync_pending, flush_inflight, think_wait, done;
	bool exited; /* done, and its process gone from the scheduler (blk_owner_exit) */
	uint64_t end_ns;
	int32_t free_io;
	struct vio *flush_io;
	struct vio *parked; /* asleep in get_request() with this request (nr_requests) */
	int32_t held;	    /* completions in the ring not yet reaped (FIFO); -1 none */
	int32_t held_tail;
	struct hist h[VSIM_NR_DIRS];
	uint64_t bytes[2];
	/* Page cache: the clone (or the flusher) as a task of pagecache.h. */
	bool buffered;	     /* its I/O goes through the page cache */
	bool in_sys;	     /* inside a system call */
	bool pulling;	     /* the call has requests to pull (PC_SUBMIT) */
	bool woken;	     /* the page cache woke it: pc_continue() */
	uint8_t sys_dir;     /* VSIM_DIR_* of the call, or VSIM_NR_DIRS: not timed */
	uint8_t close_stage; /* end of a pass: 1 fsync, 2 truncate, then the next pass */
	uint64_t pc_ready;   /* when it was woken or may pull again */
	uint64_t sys_start;
};

struct vsim {
	const struct vsim_config *cfg;
	struct blk_queue *q; /* the block layer, with the scheduler and the device model */
	struct sched *s;
	struct devmodel *dm;
	struct blk_host host;
	struct vent *ent;
	struct vio *io;
	uint32_t nent;
	uint64_t end; /* runtime end or NO_TIME */
	uint64_t submitted, completed;
	int error; /* set by a block-layer callback that failed */
	/* The page cache (cfg->pagecache): the flushers (one per bdi_writeback: per group with
	 * cgroup writeback) are entities flusher .. flusher + nwbs - 1 (flusher = nent). */
	struct pc *pc;
	struct pc_host pch;
	uint32_t flusher, nwbs;
	uint32_t nfiles;
	struct pc_pool_block *pool_blocks;
	struct vio *pool_free;
	uint64_t pc_requests;
	bool congested;
};

static const char *const rw_names[] = {"read", "write", "randread", "randwrite", "randrw", "rw"};

int vsim_rw_by_name(const char *name)
{
	for (int i = 0; i < (int)(sizeof(rw_names) / sizeof(rw_names[0])); i++)
		if (!strcmp(name, rw_names[i]))
			return i;
	if (!strcmp(name, "readwrite"))
		return VSIM_RW;
	return -1;
}

const char *vsim_rw_name(enum vsim_rw rw)
{
	return (unsigned int)rw <= VSIM_RW ? rw_names[rw] : "?";
}

void vsim_job_defaults(struct vsim_job *job)
{
	memset(job, 0, sizeof(*job));
	job->name = "job";
	job->rw = VSIM_RANDREAD;
	job->rwmixread = 50;
	job->bs = 4096;
	job->iodepth = 1;
	job->numjobs = 1;
	job->direct = true;
	job->fadvise_hint = true;
	job->prio_class = SCHED_IOPRIO_CLASS_NONE;
	job->prio_level = SCHED_IOPRIO_DEFAULT_LEVEL;
}

void vsim_config_defaults(struct vsim_config *cfg, enum sched_policy_id policy,
			  enum devmodel_kind kind)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->runtime_ns = 1000000000ull;
	cfg->seed = 1;
	cfg->io_overhead_ns = 2000;
	cfg->nr_requests = SCHED_NR_REQUESTS_AUTO;
	cfg->nr_batching = BLK_BATCH_REQ;
	cfg->kblockd_ns = BLK_KBLOCKD_NS;
	cfg->nomerges = 0; /* the kernel's default */
	sched_config_defaults(&cfg->sched, policy);
	cfg->dev = devmodel_params_defaults(kind);
	cfg->sched.rotational = kind == DEVMODEL_HDD;
	cfg->sched.hw_queue_depth = 0;
	pc_params_defaults(&cfg->pc, PC_PROFILE_LINUX_6_12);
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* Uniform in 0 .. n-1 by multiply-shift (bias below 2^-40 for any block count used here). */
static uint64_t rng_below(uint64_t *s, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(s) * n) >> 64);
}

static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return z ? z : 1;
}

static uint32_t h_index(uint64_t v)
{
	uint32_t e;

	if (v < H_SUB)
		return (uint32_t)v;
	e = 63 - (uint32_t)__builtin_clzll(v);
	return H_SUB + (e - H_SUB_BITS) * H_SUB + (uint32_t)((v >> (e - H_SUB_BITS)) & (H_SUB - 1));
}

/* Middle of bucket i. */
static uint64_t h_value(uint32_t i)
{
	uint32_t e, sub;
	uint64_t lo, width;

	if (i < H_SUB)
		return i;
	e = (i - H_SUB) / H_SUB + H_SUB_BITS;
	sub = (i - H_SUB) % H_SUB;
	width = 1ull << (e - H_SUB_BITS);
	lo = (1ull << e) + sub * width;
	return lo + width / 2;
}

static int h_alloc(struct hist *h)
{
	if (h->count)
		return 0;
	h->count = calloc(H_BUCKETS, sizeof(uint32_t));
	if (!h->count)
		return -1;
	if (!h->n)
		h->min = UINT64_MAX;
	return 0;
}

static int h_add(struct hist *h, uint64_t v)
{
	double d;

	if (h_alloc(h))
		return -1;
	h->count[h_index(v)]++;
	h->n++;
	d = (double)v - h->mean;
	h->mean += d / (double)h->n;
	h->m2 += d * ((double)v - h->mean);
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	return 0;
}

/* dst += src (Chan et al. for the mean and M2). */
static int h_merge(struct hist *dst, const struct hist *src)
{
	double d, n;

	if (!src->n)
		return 0;
	if (h_alloc(dst))
		return -1;
	for (uint32_t i = 0; i < H_BUCKETS; i++)
		dst->count[i] += src->count[i];
	n = (double)dst->n + (double)src->n;
	d = src->mean - dst->mean;
	dst->m2 += src->m2 + d * d * (double)dst->n * (double)src->n / n;
	dst->mean += d * (double)src->n / n;
	dst->n += src->n;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	return 0;
}

static uint64_t h_pct(const struct hist *h, double pct)
{
	uint64_t rank = (uint64_t)ceil(pct / 100.0 * (double)h->n), cum = 0;

	if (rank < 1)
		rank = 1;
	for (uint32_t i = 0; i < H_BUCKETS; i++) {
		cum += h->count[i];
		if (cum >= rank) {
			uint64_t v = h_value(i);

			return v < h->min ? h->min : v > h->max ? h->max : v;
		}
	}
	return h->max;
}

const double vsim_pct_list[VSIM_NR_PCT] = {1,  5,  10, 20, 30,	 40,   50,    60,   70,
					   80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};

static void h_summary(const struct hist *h, struct vsim_lat *l)
{
	memset(l, 0, sizeof(*l));
	if (!h->n)
		return;
	l->n = h->n;
	l->mean_ns = h->mean;
	l->stddev_ns = h->n > 1 ? sqrt(h->m2 / (double)(h->n - 1)) : 0;
	l->min_ns = h->min;
	l->max_ns = h->max;
	l->p50_ns = h_pct(h, 50);
	l->p90_ns = h_pct(h, 90);
	l->p99_ns = h_pct(h, 99);
	l->p999_ns = h_pct(h, 99.9);
	for (int i = 0; i < VSIM_NR_PCT; i++)
		l->pct_ns[i] = h_pct(h, vsim_pct_list[i]);
}

static void h_free(struct hist *h)
{
	free(h->count);
	h->count = NULL;
}

/* Stats from the three histograms (read, write, flush) and the byte counts. */
static int make_stats(struct vsim_stats *st, struct hist *h, const uint64_t *bytes,
		      uint64_t elapsed)
{
	struct hist rw = {0};

	memset(st, 0, sizeof(*st));
	for (int d = 0; d < VSIM_NR_DIRS; d++) {
		st->ios[d] = h[d].n;
		h_summary(&h[d], &st->dir[d]);
	}
	if (h_merge(&rw, &h[0]) || h_merge(&rw, &h[1])) {
		h_free(&rw);
		return -1;
	}
	h_summary(&rw, &st->lat);
	h_free(&rw);
	st->bytes[0] = bytes[0];
	st->bytes[1] = bytes[1];
	st->elapsed_ns = elapsed;
	if (elapsed) {
		st->iops = (double)(st->ios[0] + st->ios[1]) * 1e9 / (double)elapsed;
		st->bw_bps = (double)(bytes[0] + bytes[1]) * 1e9 / (double)elapsed;
	}
	return 0;
}

/* When clone e next wants to submit (an I/O or its fsync's flush), or NO_TIME. */
static uint64_t want_time(const struct vent *e)
{
	if (e->buffered) {
		if (e->parked)
			return NO_TIME;
		if (e->pulling || e->woken)
			return e->pc_ready;
		if (e->in_sys || e->done)
			return NO_TIME;
		return e->ready;
	}
	if (e->done || e->flush_inflight || e->parked)
		return NO_TIME;
	if (e->fsync_pending || e->think_wait)
		return e->outstanding ? NO_TIME : e->ready;
	if (e->outstanding >= e->iodepth && e->held < 0)
		return NO_TIME;
	return e->ready; /* full with completions in the ring: reaps one, then submits */
}

static bool issued_all(const struct vsim *v, const struct vent *e)
{
	const struct vsim_job *j = &v->cfg->jobs[e->job];

	return j->number_ios && e->issued >= j->number_ios;
}

static void maybe_finish(struct vsim *v, struct vent *e, uint64_t now)
{
	if (!e->done && issued_all(v, e) && !e->outstanding && !e->fsync_pending &&
	    !e->flush_inflight) {
		e->done = true;
		e->end_ns = now;
	}
}

/* The next I/O's direction and offset, as fio picks them. */
static bool next_is_read(struct vsim *v, struct vent *e)
{
	const struct vsim_job *j = &v->cfg->jobs[e->job];

	switch (j->rw) {
	case VSIM_READ:
	case VSIM_RANDREAD:
		return true;
	case VSIM_WRITE:
	case VSIM_RANDWRITE:
		return false;
	default:
		return rng_below(&e->rng, 100) < j->rwmixread;
	}
}

static bool job_random(const struct vsim_job *j)
{
	return j->rw == VSIM_RANDREAD || j->rw == VSIM_RANDWRITE || j->rw == VSIM_RANDRW;
}

static void fill_io(struct vsim *v, struct vent *e, struct sched_request *rq, uint64_t now)
{
	const struct vsim_job *j = &v->cfg->jobs[e->job];
	bool rnd, read;

	switch (j->rw) {
	case VSIM_READ:
	case VSIM_RANDREAD:
		read = true;
		break;
	case VSIM_WRITE:
	case VSIM_RANDWRITE:
		read = false;
		break;
	default:
		read = rng_below(&e->rng, 100) < j->rwmixread;
		break;
	}
	rnd = j->rw == VSIM_RANDREAD || j->rw == VSIM_RANDWRITE || j->rw == VSIM_RANDRW;
	if (rnd) {
		rq->offset = e->start + rng_below(&e->rng, e->size / j->bs) * j->bs;
	} else {
		if (e->pos + j->bs > e->size)
			e->pos = 0;
		rq->offset = e->start + e->pos;
		e->pos += j->bs;
	}
	rq->length = j->bs;
	rq->op = read ? SCHED_OP_READ : SCHED_OP_WRITE;
	/* Reads are sync; O_DIRECT writes REQ_SYNC|REQ_IDLE; buffered writeback is async. */
	rq->flags = read	     ? SCHED_RQ_SYNC
		    : j->direct	     ? SCHED_RQ_SYNC | SCHED_RQ_IDLE
		    : j->sync_writes ? SCHED_RQ_SYNC
				     : 0;
	e->issued++;
	if (!read && j->fsync && ++e->writes_since_fsync >= j->fsync) {
		e->writes_since_fsync = 0;
		e->fsync_pending = true;
		e->fsync_start = now;
	}
	/* think_after_fsync: the think follows this write's fsync (reap_one), not the write */
	if (j->thinktime_us && !(j->think_after_fsync && e->fsync_pending))
		e->think_wait = true;
}

/* The clone reaps one completion (fio's io_getevents()): latency, depth, fsync, think. */
static int reap_one(struct vsim *v, struct vio *io, uint64_t now)
{
	struct vent *e = &v->ent[io->ent];
	const struct vsim_job *j = &v->cfg->jobs[e->job];
	struct sched_request *rq = &io->br.rq;

	e->outstanding--;
	if (rq->op == SCHED_OP_FLUSH) {
		if (h_add(&e->h[VSIM_DIR_FLUSH], now - e->fsync_start))
			return -1;
		e->flush_inflight = false;
		if (e->ready != NO_TIME && e->ready < now + v->cfg->io_overhead_ns)
			e->ready = now + v->cfg->io_overhead_ns;
		if (j->think_after_fsync && j->thinktime_us && e->ready != NO_TIME)
			e->ready = now + j->thinktime_us * 1000;
	} else {
		int d = rq->op == SCHED_OP_READ ? 0 : 1;

		if (h_add(&e->h[d], now - io->submit_ns))
			return -1;
		e->bytes[d] += rq->length;
		io->next_free = e->free_io;
		e->free_io = (int32_t)(io - v->io);
	}
	if (!e->outstanding && e->think_wait) {
		e->think_wait = false;
		if (e->ready != NO_TIME)
			e->ready = now + j->thinktime_us * 1000;
	}
	if (e->fsync_pending && !e->outstanding && e->ready < now)
		e->ready = now;
	maybe_finish(v, e, now);
	return 0;
}

/* The oldest completion in the clone's ring, reaped now. */
static int reap_held_one(struct vsim *v, struct vent *e, uint64_t now)
{
	struct vio *io = &v->io[e->held];

	e->held = io->next_free;
	if (e->held < 0)
		e->held_tail = -1;
	return reap_one(v, io, now);
}

/* Every completion in the clone's ring, reaped now. */
static int reap_held(struct vsim *v, struct vent *e, uint64_t now)
{
	while (e->held >= 0)
		if (reap_held_one(v, e, now))
			return -1;
	return 0;
}

/*
 * fio reaps one completion when its queue is full (iodepth_batch_complete_min = max = 1), so
 * what completed while the clone slept in io_submit() waits in the ring and is reaped one per
 * submission. When fio waits for all its I/O instead (fsync, thinktime, the last I/O), it
 * reaps everything at once.
 */
static int reap_if_waiting_all(struct vsim *v, struct vent *e, uint64_t now)
{
	if (e->parked || e->held < 0)
		return 0;
	if (e->fsync_pending || e->think_wait || e->flush_inflight || issued_all(v, e))
		return reap_held(v, e, now);
	return 0;
}

/*
 * The block layer admitted a request its clone was asleep with (get_request()): the clone is
 * back from io_submit() and goes on.
 */
static void on_admitted(void *ctx, struct blk_rq *r, uint64_t now)
{
	struct vsim *v = ctx;
	struct vio *io = (struct vio *)r;
	struct vent *e = &v->ent[io->ent];

	v->submitted++;
	if (e->parked != io)
		return;
	e->parked = NULL;
	if (e->buffered) {
		/* Back from get_request(): the task goes on pulling its requests. */
		e->pc_ready = now;
		return;
	}
	if (reap_if_waiting_all(v, e, now))
		v->error = -1;
	/* Back from io_submit(): the next submission costs the host time again. */
	if (e->ready != NO_TIME && e->ready < now + v->cfg->io_overhead_ns)
		e->ready = now + v->cfg->io_overhead_ns;
}

/* The device model completed a request (the block layer has freed it). */
static void on_done(void *ctx, struct blk_rq *r, uint64_t now)
{
	struct vsim *v = ctx;
	struct vio *io = (struct vio *)r;
	struct vent *e = &v->ent[io->ent];

	v->completed++;
	if (io->from_pc) {
		struct pc_io pcio = io->pcio;

		io->pc_next = v->pool_free;
		v->pool_free = io;
		pc_io_done(v->pc, &pcio, now, &v->pch);
		return;
	}
	if (e->parked || e->held >= 0) {
		/* Asleep in io_submit(), or older completions still in the ring: it waits. */
		io->next_free = -1;
		if (e->held_tail >= 0)
			v->io[e->held_tail].next_free = (int32_t)(io - v->io);
		else
			e->held = (int32_t)(io - v->io);
		e->held_tail = (int32_t)(io - v->io);
		if (reap_if_waiting_all(v, e, now))
			v->error = -1;
	} else if (reap_one(v, io, now)) {
		v->error = -1;
	}
}

/* Every device is a model here: nothing is issued by the simulator itself. */
static void on_issue(void *ctx, struct blk_rq *r, uint64_t now)
{
	struct vsim *v = ctx;

	(void)r;
	(void)now;
	v->error = -1;
}

static int submit_one(struct vsim *v, uint32_t ei, uint64_t now)
{
	struct vent *e = &v->ent[ei];
	const struct vsim_job *j = &v->cfg->jobs[e->job];
	struct sched_request *rq;
	struct vio *io;

	if (e->outstanding >= e->iodepth && e->held >= 0) {
		/* Full: fio reaps one completion from its ring before it submits again. */
		if (reap_held_one(v, e, now) || reap_if_waiting_all(v, e, now))
			return -1;
		if (want_time(e) > now)
			return 0;
	}
	if (e->fsync_pending) {
		io = e->flush_io;
		rq = &io->br.rq;
		memset(rq, 0, sizeof(*rq));
		rq->op = SCHED_OP_FLUSH;
		rq->flags = SCHED_RQ_SYNC;
		e->fsync_pending = false;
		e->flush_inflight = true;
	} else {
		io = &v->io[e->free_io];
		e->free_io = io->next_free;
		rq = &io->br.rq;
		memset(rq, 0, sizeof(*rq));
		fill_io(v, e, rq, now);
	}
	rq->owner = ei;
	rq->group = j->group;
	rq->prio_class = j->prio_class;
	rq->prio_level = j->prio_level;
	io->ent = ei;
	io->submit_ns = now;
	e->outstanding++;
	if (v->cfg->on_submit)
		v->cfg->on_submit(v->cfg->on_submit_ctx, rq, now);
	blk_rq_init(&io->br);
	switch (blk_submit(v->q, &io->br, now, &v->host)) {
	case 1:
		v->submitted++;
		break;
	case 0:
		e->parked = io; /* asleep in get_request() with it */
		break;
	default:
		return -1;
	}
	e->ready = issued_all(v, e) && !e->fsync_pending ? NO_TIME : now + v->cfg->io_overhead_ns;
	return 0;
}

/* ---- buffered I/O through the page cache -------------------------------------------------- */

/* pagecache.h's wake-up: the task goes on at now (pc_continue()). */
static void pc_wake_cb(void *ctx, uint32_t task, uint64_t now)
{
	struct vsim *v = ctx;
	struct vent *e =
	    &v->ent[task >= pc_flusher(v->pc) ? v->flusher + (task - pc_flusher(v->pc)) : task];

	e->woken = true;
	e->pc_ready = now;
}

static struct vio *pool_get(struct vsim *v)
{
	struct vio *io = v->pool_free;

	if (!io) {
		struct pc_pool_block *b = calloc(1, sizeof(*b));

		if (!b)
			return NULL;
		b->next = v->pool_blocks;
		v->pool_blocks = b;
		for (int i = PC_POOL_BLOCK - 1; i >= 0; i--) {
			b->io[i].pc_next = v->pool_free;
			v->pool_free = &b->io[i];
		}
		io = v->pool_free;
	}
	v->pool_free = io->pc_next;
	return io;
}

/*
 * The legacy block layer's congestion flag on the async list (blk_queue_congestion_threshold():
 * on at nr_requests - nr/8 + 1, off below nr - nr/8 - nr/16 - 1), for pdflush (2.6.x).
 */
static void update_congestion(struct vsim *v, uint64_t now)
{
	bool c;

	if (!v->pc)
		return;
	c = blk_async_congested(v->q, v->congested);
	if (c != v->congested) {
		v->congested = c;
		pc_set_congested(v->pc, c, now, &v->pch);
	}
}

/* A page-cache request into the block layer in the name of entity ei. 1 in, 0 asleep in
 * get_request() with it, -1 error. */
static int pc_submit(struct vsim *v, uint32_t ei, const struct pc_io *pio, uint64_t now)
{
	struct vent *e = &v->ent[ei];
	struct vio *io = pool_get(v);
	struct sched_request *rq;

	if (!io)
		return -1;
	io->from_pc = true;
	io->pcio = *pio;
	io->ent = ei;
	io->submit_ns = now;
	rq = &io->br.rq;
	memset(rq, 0, sizeof(*rq));
	rq->owner = ei;
	rq->group = pio->group;
	if (ei >= v->flusher) {
		rq->prio_class = SCHED_IOPRIO_CLASS_NONE; /* a kworker: BE/4 */
		rq->prio_level = SCHED_IOPRIO_DEFAULT_LEVEL;
	} else {
		rq->prio_class = v->cfg->jobs[e->job].prio_class;
		rq->prio_level = v->cfg->jobs[e->job].prio_level;
	}
	rq->op = pio->op;
	rq->offset = (uint64_t)pio->index << PC_PAGE_SHIFT;
	rq->length = (uint64_t)pio->npages << PC_PAGE_SHIFT;
	/* Reads are sync anyway; writeback is async unless REQ_SYNC (fsync); no REQ_IDLE. */
	rq->flags = (pio->flags & PC_IO_SYNC) ? SCHED_RQ_SYNC : 0;
	v->pc_requests++;
	blk_rq_init(&io->br);
	switch (blk_submit(v->q, &io->br, now, &v->host)) {
	case 1:
		v->submitted++;
		update_congestion(v, now);
		return 1;
	case 0:
		e->parked = io;
		return 0;
	default:
		return -1;
	}
}

/* The system call of a buffered clone ended: fio's latency and bytes. */
static int sys_done(struct vsim *v, struct vent *e, uint64_t bytes, uint64_t now)
{
	const struct vsim_job *j = e - v->ent < v->nent ? &v->cfg->jobs[e->job] : NULL;

	e->in_sys = false;
	if (!j)
		return 0; /* the flusher */
	if (e->sys_dir < VSIM_NR_DIRS) {
		if (h_add(&e->h[e->sys_dir], now - e->sys_start))
			return -1;
		if (e->sys_dir < 2)
			e->bytes[e->sys_dir] += bytes;
	}
	if (e->ready != NO_TIME)
		e->ready = now + v->cfg->io_overhead_ns;
	/* fio thinks after each read or write (handle_thinktime()), so with fsync=N the fsync
	 * comes after the think; think_after_fsync puts it after the fsync instead. */
	if (j->thinktime_us && e->ready != NO_TIME && !e->close_stage &&
	    (j->think_after_fsync ? (e->sys_dir == VSIM_DIR_FLUSH ||
				     (e->sys_dir < VSIM_DIR_FLUSH && !e->fsync_pending))
				  : e->sys_dir != VSIM_DIR_FLUSH))
		e->ready = now + j->thinktime_us * 1000;
	/* fio's rate_ddir() sleeps before a read or write until rate_next_io_time; a due fsync
	 * or the end of a pass (fsync_on_close, unlink) goes first, ungated. */
	if (j->rate_iops && e->ready != NO_TIME && !e->fsync_pending && !e->close_stage &&
	    (job_random(j) || e->pos + j->bs <= e->size ||
	     !(j->fsync_on_close || j->unlink_each_loop))) {
		uint64_t due = j->startdelay_ns + e->issued * 1000000000ull / j->rate_iops;

		if (e->ready < due)
			e->ready = due;
	}
	if (issued_all(v, e) && !e->fsync_pending && !e->close_stage) {
		e->done = true;
		e->end_ns = now;
	}
	return 0;
}

static int pc_handle(struct vsim *v, uint32_t ei, int rc, const struct pc_result *res, uint64_t now)
{
	struct vent *e = &v->ent[ei];

	switch (rc) {
	case PC_DONE:
		e->pulling = false;
		return e->in_sys ? sys_done(v, e, res->bytes, now) : 0;
	case PC_SUBMIT:
		e->pulling = true;
		e->pc_ready = now;
		return 0;
	case PC_SLEEP:
	case PC_WAIT:
		e->pulling = false;
		return 0;
	default:
		return -1;
	}
}

/* The next system call of a buffered clone: its I/O, its fsync, or the end of a pass. */
static int sys_start(struct vsim *v, uint32_t ei, uint64_t now)
{
	struct vent *e = &v->ent[ei];
	const struct vsim_job *j = &v->cfg->jobs[e->job];
	struct pc_result res;
	int rc;

	e->in_sys = true;
	e->sys_start = now;
	if (e->fsync_pending) {
		e->fsync_pending = false;
		e->sys_dir = VSIM_DIR_FLUSH;
		rc = pc_fsync(v->pc, ei, e->file, now, &v->pch, &res);
		return pc_handle(v, ei, rc, &res, now);
	}
	if (!job_random(j) && e->pos + j->bs > e->size && !e->close_stage &&
	    (j->fsync_on_close || j->unlink_each_loop))
		e->close_stage = j->fsync_on_close ? 1 : 2;
	if (e->close_stage == 1) {
		/* fio's fsync_on_close: the job's DDIR_SYNC as the file closes */
		e->close_stage = j->unlink_each_loop ? 2 : 3;
		e->sys_dir = VSIM_DIR_FLUSH;
		rc = pc_fsync(v->pc, ei, e->file, now, &v->pch, &res);
		return pc_handle(v, ei, rc, &res, now);
	}
	if (e->close_stage == 2) {
		e->close_stage = 3;
		e->sys_dir = VSIM_NR_DIRS;
		rc = pc_truncate(v->pc, ei, e->file, now, &v->pch, &res);
		return pc_handle(v, ei, rc, &res, now);
	}
	e->close_stage = 0;
	{
		bool read = next_is_read(v, e);
		uint64_t off;

		if (job_random(j)) {
			off = e->start + rng_below(&e->rng, e->size / j->bs) * j->bs;
		} else {
			if (e->pos + j->bs > e->size)
				e->pos = 0;
			off = e->start + e->pos;
			e->pos += j->bs;
		}
		e->issued++;
		if (!read && j->fsync && ++e->writes_since_fsync >= j->fsync) {
			e->writes_since_fsync = 0;
			e->fsync_pending = true;
		}
		e->sys_dir = read ? VSIM_DIR_READ : VSIM_DIR_WRITE;
		rc = read ? pc_read(v->pc, ei, e->file, off, j->bs, now, &v->pch, &res)
			  : pc_write(v->pc, ei, e->file, off, j->bs, now, &v->pch, &res);
	}
	return pc_handle(v, ei, rc, &res, now);
}

static int pc_step_plugged(struct vsim *v, uint32_t ei, uint64_t now);

/*
 * Everything a buffered clone (or the flusher) can do at now, under its plug: the kernel's
 * writeback (wb_writeback(), ext4_do_writepages()) and read-ahead (read_pages()) submit under
 * blk_start_plug(). Finished before the next event (the flush on schedule), except while it
 * sleeps in get_request() inside that pass: then the block layer flushed it and the woken task
 * goes on under it (its request onto it, as blk_mq_submit_bio() puts it).
 */
static int pc_step(struct vsim *v, uint32_t ei, uint64_t now)
{
	int rc;

	blk_plug_start(v->q, ei);
	rc = pc_step_plugged(v, ei, now);
	/* Asleep in get_request() inside its pass: its plug is flushed (the block layer did, as
	 * schedule() does) but still its own; woken, it goes on under it. */
	if (!v->ent[ei].parked)
		blk_plug_finish(v->q, ei, now, &v->host);
	return rc;
}

static int pc_step_plugged(struct vsim *v, uint32_t ei, uint64_t now)
{
	struct vent *e = &v->ent[ei];
	uint32_t task = ei >= v->flusher ? pc_flusher(v->pc) + (ei - v->flusher) : ei;

	for (unsigned int guard = 0; guard < 1000000; guard++) {
		struct pc_result res;
		struct pc_io io;
		int rc;

		if (e->parked)
			return 0;
		if (e->pulling) {
			if (e->pc_ready > now)
				return 0;
			if (pc_next_io(v->pc, task, now, &io)) {
				if (pc_submit(v, ei, &io, now) < 0)
					return -1;
				if (io.flags & PC_IO_UNPLUG) {
					/* read_pages()'s blk_finish_plug(): in, and the queue
					 * run, before the task's next window */
					blk_plug_finish(v->q, ei, now, &v->host);
					blk_run(v->q, now, &v->host);
					blk_plug_start(v->q, ei);
				}
				continue;
			}
			e->pulling = false;
			rc = pc_continue(v->pc, task, now, &v->pch, &res);
			if (pc_handle(v, ei, rc, &res, now))
				return -1;
			continue;
		}
		if (e->woken) {
			e->woken = false;
			rc = pc_continue(v->pc, task, now, &v->pch, &res);
			if (pc_handle(v, ei, rc, &res, now))
				return -1;
			continue;
		}
		if (e->in_sys || e->done || ei >= v->flusher || e->ready > now)
			return 0;
		if (sys_start(v, ei, now))
			return -1;
	}
	return -1;
}

/* The page cache: one task per clone, the flusher as entity nent, one inode per job.file. */
static int setup_pagecache(struct vsim *v, const struct vsim_config *cfg, char *err, size_t errlen)
{
	struct pc_params p = cfg->pc;
	size_t size;
	void *mem;
	uint32_t k = 0;

	p.max_tasks = v->nent;
	p.max_files = v->nfiles;
	p.max_wbs = v->nwbs;
	size = pc_size(&p);
	if (!size) {
		pc_params_check(&p, err, errlen);
		return -1;
	}
	mem = aligned_alloc(16, (size + 15) & ~(size_t)15);
	if (!mem) {
		snprintf(err, errlen, "vsim: out of memory");
		return -1;
	}
	v->pc = pc_init(mem, size, &p, 0, err, errlen);
	if (!v->pc) {
		free(mem);
		return -1;
	}
	v->pch = (struct pc_host){.wake = pc_wake_cb, .ctx = v};
	for (uint32_t i = 0; i < cfg->nr_jobs; i++) {
		const struct vsim_job *j = &cfg->jobs[i];
		bool reads = j->rw != VSIM_WRITE && j->rw != VSIM_RANDWRITE;

		for (uint32_t c = 0; c < j->numjobs; c++, k++) {
			struct vent *e = &v->ent[k];

			if (j->direct)
				continue;
			e->buffered = true;
			pc_task_init(v->pc, k, j->group);
			/* A file read is laid out already (i_size); one only written grows. */
			pc_file_open(v->pc, e->file, reads ? e->start + e->size : 0);
			if (j->fadvise_hint)
				pc_fadvise(v->pc, k, e->file,
					   job_random(j) ? PC_FADV_RANDOM : PC_FADV_SEQUENTIAL);
		}
	}
	v->flusher = v->nent;
	for (uint32_t w = 0; w < v->nwbs; w++) {
		struct vent *e = &v->ent[v->flusher + w];

		e->buffered = true;
		e->ready = NO_TIME;
		e->held = e->held_tail = -1;
	}
	return 0;
}

static int setup(struct vsim *v, const struct vsim_config *cfg, struct vsim_result *res, char *err,
		 size_t errlen)
{
	struct sched_config sc = cfg->sched;
	struct blk_params bp;
	uint64_t cap = cfg->dev.capacity_bytes;
	uint32_t nio = 0, k = 0;
	size_t size;
	void *mem;

	if (!cfg->jobs || !cfg->nr_jobs) {
		snprintf(err, errlen, "vsim: no jobs");
		return -1;
	}
	if (!cfg->io_overhead_ns) {
		snprintf(err, errlen, "vsim: io_overhead_ns must be at least 1");
		return -1;
	}
	if (cfg->nr_requests && cfg->nr_requests != SCHED_NR_REQUESTS_AUTO &&
	    (cfg->nr_requests < 4 || cfg->nr_requests > 1048576)) {
		snprintf(err, errlen, "vsim: nr_requests %u: must be 0 (unlimited) or 4..1048576",
			 cfg->nr_requests);
		return -1;
	}
	if (devmodel_params_check(&cfg->dev, err, errlen))
		return -1;
	for (uint32_t i = 0; i < cfg->nr_jobs; i++) {
		const struct vsim_job *j = &cfg->jobs[i];

		if (!j->bs || !j->iodepth || !j->numjobs || j->rw > VSIM_RW || j->rwmixread > 100 ||
		    j->offset >= cap || (j->size && j->size < j->bs)) {
			snprintf(err, errlen,
				 "vsim: job %u (%s): bad bs, iodepth, numjobs, rw, offset or size",
				 i, j->name ? j->name : "?");
			return -1;
		}
		if (!cfg->runtime_ns && !j->number_ios) {
			snprintf(err, errlen, "vsim: job %u has neither runtime nor number_ios", i);
			return -1;
		}
		uint32_t last_file = j->file + (j->file_per_clone ? j->numjobs - 1 : 0);

		if (cfg->pagecache && last_file >= PC_MAX_FILES) {
			snprintf(err, errlen, "vsim: job %u: file %u out of range", i, last_file);
			return -1;
		}
		if (last_file + 1 > v->nfiles)
			v->nfiles = last_file + 1;
		v->nent += j->numjobs;
		nio += j->numjobs * (j->iodepth + 1);
	}
	/* One wb, and one flusher, per group of a buffered job with cgroup writeback; else one. */
	v->nwbs = cfg->pagecache ? 1 : 0;
	for (uint32_t i = 0;
	     cfg->pagecache && (cfg->pc.switches & PC_SW_CGROUP_WRITEBACK) && i < cfg->nr_jobs; i++)
		if (!cfg->jobs[i].direct && cfg->jobs[i].group + 1 > v->nwbs)
			v->nwbs = cfg->jobs[i].group + 1 < PC_MAX_WBS ? cfg->jobs[i].group + 1
								      : PC_MAX_WBS;
	if (v->nent + v->nwbs > sc.max_entities) {
		snprintf(err, errlen, "vsim: %u clones%s, the scheduler takes %u entities", v->nent,
			 cfg->pagecache ? " and the flushers" : "", sc.max_entities);
		return -1;
	}
	if (!sc.hw_queue_depth)
		sc.hw_queue_depth = cfg->dev.queue_depth;
	if (sc.hw_queue_depth > cfg->dev.queue_depth) {
		snprintf(err, errlen, "vsim: hw_queue_depth %u deeper than the device's %u",
			 sc.hw_queue_depth, cfg->dev.queue_depth);
		return -1;
	}
	sc.nr_requests = cfg->nr_requests;
	if (cfg->trace_fn && !sc.trace_bytes)
		sc.trace_bytes = 1u << 20;
	blk_params_defaults(&bp);
	bp.nr_batching = cfg->nr_batching;
	bp.kblockd_ns = cfg->kblockd_ns;
	bp.nomerges = cfg->nomerges;
	/* Unset, the queue's limit is the page cache's era's (BLK_DEF_MAX_SECTORS: 512 KiB on
	 * 2.6.x, 1280 on 6.x), as the engine's domain takes it. */
	bp.max_sectors_kb = cfg->max_sectors_kb ? cfg->max_sectors_kb
			    : cfg->pagecache	? cfg->pc.max_sectors_kb
						: 0;
	bp.model = &cfg->dev;
	size = blk_size(&sc, &bp);
	if (!size) {
		snprintf(err, errlen,
			 "vsim: sched policy %d is not built, or the device is invalid",
			 (int)sc.policy);
		return -1;
	}
	mem = aligned_alloc(16, (size + 15) & ~(size_t)15);
	if (!mem)
		goto oom;
	v->q = blk_init(mem, size, &sc, &bp, 0, err, errlen);
	if (!v->q) {
		free(mem);
		return -1;
	}
	v->s = v->q->s;
	v->dm = v->q->model;
	v->host = (struct blk_host){
	    .issue = on_issue, .done = on_done, .admitted = on_admitted, .ctx = v};
	v->ent = calloc(v->nent + (v->nwbs ? v->nwbs : 1), sizeof(*v->ent));
	v->io = calloc(nio, sizeof(*v->io));
	res->entity_job = calloc(v->nent, sizeof(uint32_t));
	if (!v->ent || !v->io || !res->entity_job)
		goto oom;
	nio = 0;
	for (uint32_t i = 0; i < cfg->nr_jobs; i++) {
		const struct vsim_job *j = &cfg->jobs[i];

		for (uint32_t c = 0; c < j->numjobs; c++, k++) {
			struct vent *e = &v->ent[k];

			e->job = i;
			e->file = j->file + (j->file_per_clone ? c : 0);
			res->entity_job[k] = i;
			e->rng = mix(cfg->seed * 0x100000001b3ull + k);
			e->start = (j->offset + c * j->offset_increment) % cap;
			e->size = j->size ? j->size : cap - j->offset;
			if (e->start + e->size > cap)
				e->size = cap - e->start;
			e->size -= e->size % j->bs;
			if (!e->size)
				e->size = j->bs;
			e->iodepth = j->iodepth;
			e->ready = j->startdelay_ns;
			e->free_io = -1;
			e->held = e->held_tail = -1;
			for (uint32_t d = 0; d < j->iodepth; d++, nio++) {
				v->io[nio].next_free = e->free_io;
				e->free_io = (int32_t)nio;
			}
			e->flush_io = &v->io[nio++];
		}
	}
	v->end = cfg->runtime_ns ? cfg->runtime_ns : NO_TIME;
	v->flusher = UINT32_MAX;
	if (cfg->pagecache && setup_pagecache(v, cfg, err, errlen))
		return -1;
	return 0;
oom:
	snprintf(err, errlen, "vsim: out of memory");
	return -1;
}

/* Iterations allowed at one instant before the run is declared stuck (a policy timer that does
 * not move, or a zero-time submit/complete cycle). */
#define MAX_SAME_INSTANT 1000000u

/* Requests handed to the block layer so far (admitted or waiting). */
static uint64_t submissions(const struct vsim *v)
{
	return v->q->s->stats.inserted + v->q->s->stats.bio_merged + v->q->st.admission_waits;
}

/* The trace ring into the caller's sink. */
static void drain_trace(struct vsim *v)
{
	if (v->cfg->trace_fn)
		sched_trace_drain(v->s->trace, v->cfg->trace_fn, v->cfg->trace_ctx);
}

static int loop(struct vsim *v, struct vsim_result *res, char *err, size_t errlen)
{
	uint64_t now = 0;
	uint32_t same = 0;

	for (;;) {
		uint64_t t = blk_next_event(v->q);
		bool any_left = false;

		if (v->pc) {
			uint64_t pe = pc_next_event(v->pc);

			if (pe < t)
				t = pe;
			for (uint32_t k = 0; k < v->nwbs; k++) {
				uint64_t w = want_time(&v->ent[v->flusher + k]);

				if (w < t)
					t = w;
			}
		}
		for (uint32_t i = 0; i < v->nent; i++) {
			uint64_t w = want_time(&v->ent[i]);

			any_left |= !v->ent[i].done;
			if (w < t)
				t = w;
		}
		if (t == NO_TIME) {
			res->stalled = any_left && v->end == NO_TIME;
			break;
		}
		if (t < now)
			t = now;
		if (t > v->end)
			break;
		same = t == now ? same + 1 : 0;
		if (same > MAX_SAME_INSTANT) {
			snprintf(err, errlen,
				 "vsim: no progress at %llu ns (policy timer or zero-time cycle)",
				 (unsigned long long)now);
			return -1;
		}
		now = t;
		res->events++;
		/* 1. The device timeline: completions and policy timers due, each followed by a
		 * dispatch, as on the completion interrupt or the timer. */
		blk_advance(v->q, now, &v->host);
		if (v->pc)
			pc_advance(v->pc, now, &v->pch);
		/* 2. Submissions (system calls into the page cache for buffered clones), each
		 * running the queue in its submitter's context, as blk_mq_run_hw_queue() (and the
		 * engine's jobs) do. */
		for (uint32_t i = 0; i < v->nent + (v->pc ? v->nwbs : 1); i++) {
			uint64_t before = submissions(v);
			int rc = 0;

			if (i >= v->nent) {
				if (!v->pc)
					break;
				rc = pc_step(v, i, now);
			} else if (v->ent[i].buffered) {
				rc = pc_step(v, i, now);
			} else if (want_time(&v->ent[i]) <= now) {
				rc = submit_one(v, i, now);
			}
			if (rc) {
				snprintf(err, errlen, "vsim: sched_insert refused a request");
				return -1;
			}
			if (submissions(v) != before)
				blk_run(v->q, now, &v->host);
		}
		/* 3. Clones that finished leave, as fio's job does when it closes: the scheduler
		 * sees its process exit (the engine's domain calls blk_owner_exit() then too). */
		for (uint32_t i = 0; i < v->nent; i++) {
			struct vent *e = &v->ent[i];

			if (e->done && !e->exited && i != v->flusher && !e->outstanding) {
				e->exited = true;
				blk_owner_exit(v->q, i, now);
				blk_run(v->q, now, &v->host);
			}
		}
		update_congestion(v, now);
		drain_trace(v);
		if (v->error) {
			snprintf(err, errlen,
				 "vsim: out of memory, or the device refused a request");
			return -1;
		}
		if (v->cfg->exitall) {
			bool one_done = false;

			for (uint32_t i = 0; i < v->nent; i++)
				one_done |= v->ent[i].done;
			if (one_done) {
				v->end = now;
				break;
			}
		}
	}
	res->end_ns = v->end != NO_TIME ? v->end : now;
	/* Clones still asleep at the end: fio reaps what completed as it stops. */
	for (uint32_t i = 0; i < v->nent; i++)
		if (reap_held(v, &v->ent[i], res->end_ns)) {
			snprintf(err, errlen, "vsim: out of memory");
			return -1;
		}
	return 0;
}

static int results(struct vsim *v, const struct vsim_config *cfg, struct vsim_result *res)
{
	struct hist *jh = calloc((size_t)cfg->nr_jobs * VSIM_NR_DIRS, sizeof(*jh));
	struct hist th[VSIM_NR_DIRS];
	uint64_t *jb = calloc((size_t)cfg->nr_jobs * 2, sizeof(uint64_t)), tb[2] = {0, 0};
	uint64_t *jel = calloc(cfg->nr_jobs, sizeof(uint64_t)), tel = 0;
	uint32_t ng = 1;
	int rc = -1;

	for (uint32_t j = 0; j < cfg->nr_jobs; j++)
		if (cfg->jobs[j].report_group + 1 > ng)
			ng = cfg->jobs[j].report_group + 1;
	struct hist *gh = calloc((size_t)ng * VSIM_NR_DIRS, sizeof(*gh));
	uint64_t *gb = calloc((size_t)ng * 2, sizeof(uint64_t));
	uint64_t *gel = calloc(ng, sizeof(uint64_t));

	memset(th, 0, sizeof(th));
	res->entity = calloc(v->nent, sizeof(*res->entity));
	res->job = calloc(cfg->nr_jobs, sizeof(*res->job));
	res->group = calloc(ng, sizeof(*res->group));
	res->nr_groups = ng;
	if (!jh || !jb || !jel || !res->entity || !res->job || !gh || !gb || !gel || !res->group)
		goto out;
	for (uint32_t i = 0; i < v->nent; i++) {
		struct vent *e = &v->ent[i];
		uint64_t start = cfg->jobs[e->job].startdelay_ns;
		uint64_t stop = e->done ? e->end_ns : res->end_ns;
		uint64_t el = stop > start ? stop - start : 0;

		if (make_stats(&res->entity[i], e->h, e->bytes, el))
			goto out;
		for (int d = 0; d < VSIM_NR_DIRS; d++)
			if (h_merge(&jh[e->job * VSIM_NR_DIRS + d], &e->h[d]) ||
			    h_merge(&th[d], &e->h[d]))
				goto out;
		for (int d = 0; d < 2; d++) {
			jb[e->job * 2 + d] += e->bytes[d];
			tb[d] += e->bytes[d];
		}
		if (el > jel[e->job])
			jel[e->job] = el;
		if (el > tel)
			tel = el;
		{
			uint32_t g = cfg->jobs[e->job].report_group;

			for (int d = 0; d < VSIM_NR_DIRS; d++)
				if (h_merge(&gh[g * VSIM_NR_DIRS + d], &e->h[d]))
					goto out;
			for (int d = 0; d < 2; d++)
				gb[g * 2 + d] += e->bytes[d];
			if (el > gel[g])
				gel[g] = el;
		}
	}
	for (uint32_t j = 0; j < cfg->nr_jobs; j++)
		if (make_stats(&res->job[j], &jh[j * VSIM_NR_DIRS], &jb[j * 2], jel[j]))
			goto out;
	for (uint32_t g = 0; g < ng; g++)
		if (make_stats(&res->group[g], &gh[g * VSIM_NR_DIRS], &gb[g * 2], gel[g]))
			goto out;
	if (make_stats(&res->total, th, tb, tel))
		goto out;
	rc = 0;
out:
	if (jh)
		for (uint32_t j = 0; j < cfg->nr_jobs * VSIM_NR_DIRS; j++)
			h_free(&jh[j]);
	for (int d = 0; d < VSIM_NR_DIRS; d++)
		h_free(&th[d]);
	if (gh)
		for (uint32_t g = 0; g < ng * VSIM_NR_DIRS; g++)
			h_free(&gh[g]);
	free(gh);
	free(gb);
	free(gel);
	free(jh);
	free(jb);
	free(jel);
	return rc;
}

int vsim_run(const struct vsim_config *cfg, struct vsim_result *res, char *err, size_t errlen)
{
	struct vsim v;
	int rc = -1;

	memset(&v, 0, sizeof(v));
	memset(res, 0, sizeof(*res));
	v.cfg = cfg;
	if (setup(&v, cfg, res, err, errlen))
		goto out;
	res->nr_entities = v.nent;
	res->nr_jobs = cfg->nr_jobs;
	if (loop(&v, res, err, errlen))
		goto out;
	res->submitted = v.submitted;
	res->completed = v.completed;
	res->in_flight_at_end = v.submitted - v.completed;
	res->blk = v.q->st;
	res->admission_waits = v.q->st.admission_waits;
	res->admitted_must = v.q->st.admitted_must;
	res->max_waiting = v.q->st.max_waiting;
	res->max_allocated[0] = v.q->st.max_allocated[0];
	res->max_allocated[1] = v.q->st.max_allocated[1];
	res->waiting_at_end = v.q->st.nr_waiting;
	sched_stats_sync(v.s, res->end_ns);
	res->sched = v.s->stats;
	if (cfg->at_end)
		cfg->at_end(v.s, cfg->at_end_ctx);
	res->dev = *devmodel_stats(v.dm);
	if (v.pc) {
		res->pc = *pc_stats(v.pc);
		res->pc_requests = v.pc_requests;
		res->pc_entity = calloc(v.nent + v.nwbs, sizeof(*res->pc_entity));
		res->pc_wb = calloc(v.nwbs, sizeof(*res->pc_wb));
		res->pc_nr_wbs = v.nwbs;
		if (!res->pc_entity || !res->pc_wb) {
			snprintf(err, errlen, "vsim: out of memory");
			goto out;
		}
		for (uint32_t i = 0; i < v.nent; i++)
			if (v.ent[i].buffered)
				res->pc_entity[i] = *pc_task_stats(v.pc, i);
		for (uint32_t w = 0; w < v.nwbs; w++) {
			res->pc_entity[v.nent + w] = *pc_task_stats(v.pc, pc_flusher(v.pc) + w);
			res->pc_wb[w] = *pc_wb_stats(v.pc, w);
		}
		if (cfg->pc_at_end)
			cfg->pc_at_end(v.pc, cfg->pc_at_end_ctx);
	}
	if (results(&v, cfg, res)) {
		snprintf(err, errlen, "vsim: out of memory");
		goto out;
	}
	rc = 0;
out:
	free(v.pc);
	while (v.pool_blocks) {
		struct pc_pool_block *b = v.pool_blocks;

		v.pool_blocks = b->next;
		free(b);
	}
	if (v.ent)
		for (uint32_t i = 0; i < v.nent; i++)
			for (int d = 0; d < VSIM_NR_DIRS; d++)
				h_free(&v.ent[i].h[d]);
	free(v.ent);
	free(v.io);
	free(v.q);
	if (rc)
		vsim_result_free(res);
	return rc;
}

void vsim_result_free(struct vsim_result *res)
{
	free(res->entity);
	free(res->entity_job);
	free(res->job);
	free(res->group);
	res->group = NULL;
	res->nr_groups = 0;
	free(res->pc_entity);
	res->pc_entity = NULL;
	free(res->pc_wb);
	res->pc_wb = NULL;
	res->pc_nr_wbs = 0;
	res->entity = NULL;
	res->entity_job = NULL;
	res->job = NULL;
}
