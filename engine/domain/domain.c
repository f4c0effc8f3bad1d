// SPDX-License-Identifier: GPL-2.0
/* The shared scheduler domain: locking, membership, the data path, recovery. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "domain.h"
#include "stats_json.h"
#include "trace.h"

#define SE_ALIGN 64

static se_clock_fn clock_fn = se_now_ns;

void se_set_clock(se_clock_fn fn)
{
	clock_fn = fn ? fn : se_now_ns;
}

/* ---- liveness ------------------------------------------------------------------------------ */

/*
 * The state letter of the task's stat file (R, S, D, T, Z...): 'X' when the task is gone, '?' when
 * it cannot be read. With open/read only: the device context calls it, and it is a fork of a
 * multithreaded fio, where fopen's malloc may wait forever for a lock another thread held at the
 * fork (seen under ASan: a domain hung with its lock held by the device context).
 * /proc/TID/task/TID/stat, not /proc/TID/stat: the latter adds up the CPU times of every thread
 * of the group (thread_group_cputime()), so with N thread jobs each read walked N threads.
 */
static char task_stat(pid_t tid, uint64_t *start)
{
	char path[64], buf[512], *s;
	ssize_t n;
	int fd;

	*start = 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)tid, (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? 'X' : '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = 0;
	s = strrchr(buf, ')');
	if (!s || s[1] != ' ')
		return '?';
	/* starttime, field 22: the 20th after the command's ')' (field 2). */
	for (char *t = s + 2, f = 3; *t; t++) {
		if (*t == ' ' && ++f == 22) {
			uint64_t v = 0;

			for (t++; *t >= '0' && *t <= '9'; t++)
				v = v * 10 + (uint64_t)(*t - '0');
			*start = v;
			break;
		}
	}
	return s[2];
}

char se_task_state(pid_t tid)
{
	uint64_t start;

	return task_stat(tid, &start);
}

uint64_t se_task_start(pid_t tid)
{
	uint64_t start;

	task_stat(tid, &start);
	return start;
}

bool se_task_alive(pid_t tid, uint64_t start)
{
	uint64_t now_start;
	char c;

	if (tid <= 0 || (kill(tid, 0) && errno == ESRCH))
		return false;
	c = task_stat(tid, &now_start);
	return c != 'X' && c != 'Z' && (!start || !now_start || now_start == start);
}

/* One line on stderr without stdio (see se_task_state()). */
void se_log(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	memcpy(line, "schedengine: ", 13);
	va_start(ap, fmt);
	n = vsnprintf(line + 13, sizeof(line) - 14, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n = 13 + (n < (int)sizeof(line) - 14 ? n : (int)sizeof(line) - 15);
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

/* ---- locking ------------------------------------------------------------------------------- */

static void bypass_requeue_locked(struct se_domain *d);

static __thread pid_t my_tid;

static pid_t self_tid(void)
{
	if (!my_tid)
		my_tid = (pid_t)syscall(SYS_gettid);
	return my_tid;
}

/* What follows a successful lock: recovery after a dead holder, the clock. */
static uint64_t locked(struct se_domain *d, int r)
{
	uint64_t now;

	if (r == EOWNERDEAD) {
		/* The holder died mid-update: the block layer cannot be trusted any more. */
		pthread_mutex_consistent(&d->lock);
		if (!d->degraded) {
			d->degraded = true;
			snprintf(d->degraded_why, sizeof(d->degraded_why),
				 "a member died holding the domain lock; scheduler bypassed");
			se_log("%s", d->degraded_why);
		}
		se_reap_dead_locked(d, d->clock);
		bypass_requeue_locked(d);
	} else if (r) {
		se_log("domain lock: %s", strerror(r));
		abort();
	}
	now = clock_fn();
	if (now < d->clock)
		now = d->clock;
	d->clock = now;
	return now;
}

/*
 * Tries the lock for a moment before sleeping on it, as glibc's adaptive mutexes do (robust ones
 * never spin): a hold is a microsecond, and the holder is usually running on another CPU. Without
 * it, every collision is a futex sleep and a wake-up, and with hundreds of jobs each sleeper waits
 * for a CPU behind the others runnable, holding the request it came to complete meanwhile.
 */
#define SE_LOCK_SPINS 200

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

/* Takes the lock and returns the scheduler's now: read under the lock, so it never goes back. */
uint64_t se_lock(struct se_domain *d)
{
	for (int i = 0; i < SE_LOCK_SPINS; i++) {
		if (!se_lock_holder(d)) {
			int r = pthread_mutex_trylock(&d->lock);

			if (r != EBUSY)
				return locked(d, r);
		}
		cpu_relax();
	}
	return locked(d, pthread_mutex_lock(&d->lock));
}

bool se_lock_timed(struct se_domain *d, uint64_t timeout_ns, uint64_t *now)
{
	struct timespec ts;
	int r;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += (long)(timeout_ns % 1000000000ull);
	ts.tv_sec += (time_t)(timeout_ns / 1000000000ull) + ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
	r = pthread_mutex_timedlock(&d->lock, &ts);
	if (r == ETIMEDOUT)
		return false;
	*now = locked(d, r);
	return true;
}

pid_t se_lock_holder(const struct se_domain *d)
{
	/* glibc's robust mutexes keep the owner's tid in the futex word (FUTEX_TID_MASK). */
	return (pid_t)(__atomic_load_n(&d->lock.__data.__lock, __ATOMIC_RELAXED) & 0x3fffffff);
}

void se_unlock(struct se_domain *d)
{
	struct blk_queue *q = se_blk(d);
	bool restop = false;

	if (d->trace_on && q)
		sched_trace_drain(q->s->trace, se_trace_line, d);
	if (atomic_load_explicit(&d->restop_tid, memory_order_relaxed) &&
	    atomic_load(&d->restop_tid) == self_tid()) {
		/* Resumed by the device context only to leave the lock: stop again. */
		atomic_store(&d->restop_tid, 0);
		restop = true;
	}
	pthread_mutex_unlock(&d->lock);
	if (restop)
		raise(SIGSTOP);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

int se_populate(void *p, uint64_t len)
{
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095,
		  e = ((uintptr_t)p + len + 4095) & ~(uintptr_t)4095;

	if (!len || !madvise((void *)a, e - a, MADV_POPULATE_WRITE))
		return 0;
	/* EINVAL: a kernel before 5.14; the pages are touched as before. EFAULT: the fault
	 * that would have been a SIGBUS, a full file system: said as ENOSPC. */
	return errno == EINVAL ? 0 : errno == EFAULT ? -ENOSPC : -errno;
}

static void *arena_alloc(struct se_domain *d, uint64_t size, uint64_t *off)
{
	uint64_t o = (d->used + SE_ALIGN - 1) & ~(uint64_t)(SE_ALIGN - 1);
	int r;

	size = (size + SE_ALIGN - 1) & ~(uint64_t)(SE_ALIGN - 1);
	if (o + size > d->buf_start)
		return NULL;
	r = se_populate((char *)d + o, size);
	if (r) {
		se_log("scheduler domain '%s': %" PRIu64 " bytes of its memory: %s", d->name, size,
		       strerror(-r));
		return NULL;
	}
	d->used = o + size;
	*off = o;
	memset((char *)d + o, 0, size);
	return (char *)d + o;
}

void *se_arena_alloc(struct se_domain *d, uint64_t size, uint64_t *off);
void *se_arena_alloc(struct se_domain *d, uint64_t size, uint64_t *off)
{
	return arena_alloc(d, size, off);
}

/* ---- wake-ups ------------------------------------------------------------------------------ */

void se_wake_add(struct se_wake_set *w, uint32_t job)
{
	if (job < SE_MAX_JOBS_LIMIT) {
		uint64_t word = 1ull << (job / 64);

		if (!(w->words & word)) {
			w->words |= word;
			w->bits[job / 64] = 0;
		}
		w->bits[job / 64] |= 1ull << (job % 64);
	}
}

/* Rings the jobs of w other than self, and the device context if asked. After the unlock. */
void se_wake_ring(struct se_domain *d, const struct se_wake_set *w, int self)
{
	struct se_job *jobs = se_jobs(d);

	if (!w->words && !w->device)
		return;
	uint32_t nr_jobs = __atomic_load_n(&d->nr_jobs, __ATOMIC_RELAXED); /* after the unlock */

	for (uint64_t words = jobs ? w->words : 0; words; words &= words - 1) {
		uint32_t i = (uint32_t)__builtin_ctzll(words);
		uint64_t b = w->bits[i];

		while (b) {
			uint32_t j = i * 64 + (uint32_t)__builtin_ctzll(b);

			b &= b - 1;
			if ((int)j != self && j < nr_jobs)
				se_bell_ring(&jobs[j].bell);
		}
	}
	if (w->device)
		se_bell_ring(&d->dev_bell);
}

/* ---- grant rings ---------------------------------------------------------------------------- */

/* Producer side of a job's ring, under the domain lock. state: GRANTED or DONE. */
void se_ring_push(struct se_domain *d, struct se_slot *slot, uint32_t state)
{
	struct se_job *sj = &se_jobs(d)[slot->job];
	uint32_t *ring = se_at(d, sj->ring);
	uint32_t tail = atomic_load_explicit(&sj->ring_tail, memory_order_relaxed);

	atomic_store_explicit(&slot->state, state, memory_order_relaxed);
	if (state == SE_SLOT_GRANTED)
		d->grant_jobs[slot->job / 64] |= 1ull << (slot->job % 64);
	ring[tail % sj->ring_size] = slot->index | (state == SE_SLOT_DONE ? SE_RING_DONE : 0);
	atomic_store_explicit(&sj->ring_tail, tail + 1, memory_order_release);
}

/* ---- the block layer's callbacks ------------------------------------------------------------ */

static void slot_grant(struct se_host_ctx *c, struct se_slot *slot)
{
	struct se_domain *d = c->d;

	if (slot->pc) {
		se_pc_dispatched(c, slot);
		return;
	}
	if (slot->orphan) {
		/* Its owner is gone: the request completes on the spot, without I/O. */
		blk_complete(se_blk(d), &slot->br, c->now, c->h);
		slot->orphan = false;
		atomic_store(&slot->state, SE_SLOT_FREE);
		return;
	}
	if ((int)slot->job == c->self && c->nmine < c->max) {
		/* Dispatched in its owner's context: issued right away, like blk-mq's queue_rq. */
		atomic_store_explicit(&slot->state, SE_SLOT_ISSUED, memory_order_relaxed);
		slot->issue_ns = c->now;
		atomic_fetch_add(&se_jobs(d)[slot->job].nr_issued, 1);
		c->mine[c->nmine++] = slot;
		return;
	}
	slot->grant_ns = c->now;
	atomic_fetch_add(&d->grants_pending, 1);
	se_ring_push(d, slot, SE_SLOT_GRANTED);
	se_wake_add(c->w, slot->job);
}

static void host_issue(void *ctx, struct blk_rq *r, uint64_t now)
{
	struct se_host_ctx *c = ctx;

	c->now = now > c->now ? now : c->now;
	slot_grant(c, (struct se_slot *)r);
}

/* The device model finished a request: it moved no data, the whole length counts. */
static void host_done(void *ctx, struct blk_rq *r, uint64_t now)
{
	struct se_host_ctx *c = ctx;
	struct se_slot *slot = (struct se_slot *)r;

	(void)now;
	slot->sched_done = true;
	if (!slot->pc)
		atomic_fetch_sub_explicit(&se_jobs(c->d)[slot->job].in_model, 1,
					  memory_order_relaxed);
	if (slot->pc) {
		se_pc_completed(c->d, slot, (int64_t)slot->len, now, c->w);
		return;
	}
	if (slot->orphan) {
		slot->orphan = false;
		atomic_store(&slot->state, SE_SLOT_FREE);
		return;
	}
	slot->res = slot->op == SE_OP_READ || slot->op == SE_OP_WRITE ? (int64_t)slot->len : 0;
	if ((int)slot->job == c->self && c->nmine < c->max) {
		/* Completed in its owner's own pass: handed back directly, not through its ring. */
		atomic_store_explicit(&slot->state, SE_SLOT_DONE, memory_order_relaxed);
		c->mine[c->nmine++] = slot;
		return;
	}
	se_ring_push(c->d, slot, SE_SLOT_DONE);
	se_wake_add(c->w, slot->job);
}

/* A request that waited for admission is in the elevator: its owner may be asleep in commit. */
static void host_admitted(void *ctx, struct blk_rq *r, uint64_t now)
{
	struct se_host_ctx *c = ctx;

	(void)now;
	if (((struct se_slot *)r)->pc) {
		se_pc_admitted(c->d, (struct se_slot *)r, c->w);
		return;
	}
	se_wake_add(c->w, ((struct se_slot *)r)->job);
}

/* A request went into the device model: its owner may poll for the completion (se_advance). */
static void host_to_model(void *ctx, struct blk_rq *r, uint64_t now)
{
	struct se_host_ctx *c = ctx;
	struct se_slot *slot = (struct se_slot *)r;

	(void)now;
	if (!slot->pc)
		atomic_fetch_add_explicit(&se_jobs(c->d)[slot->job].in_model, 1,
					  memory_order_relaxed);
}

void se_host_init(struct blk_host *h, struct se_host_ctx *c)
{
	h->issue = host_issue;
	h->done = host_done;
	h->admitted = host_admitted;
	h->to_model = host_to_model;
	h->ctx = c;
	c->h = h;
}

/* ---- recovery ------------------------------------------------------------------------------- */

/* Releases every request of a job that is gone; queued ones complete when dispatched. */
static void release_job_locked(struct se_domain *d, uint32_t j, uint64_t now, bool died)
{
	struct se_job *sj = &se_jobs(d)[j];
	struct se_slot *slots = se_job_slots(d, sj);
	struct blk_queue *q = se_blk(d);
	struct se_wake_set w;
	struct se_host_ctx c = {.d = d, .w = &w, .self = -1, .now = now};
	struct blk_host h;

	se_wake_init(&w);
	se_host_init(&h, &c);
	for (uint32_t i = 0; slots && i < sj->nr_slots; i++) {
		struct se_slot *slot = &slots[i];
		uint32_t st = atomic_load(&slot->state);

		if (d->degraded) {
			atomic_store(&slot->state, SE_SLOT_FREE);
			continue;
		}
		switch (st) {
		case SE_SLOT_BLK:
			if (slot->br.state == BLK_RQ_WAITING) {
				blk_abandon(q, &slot->br);
				atomic_store(&slot->state, SE_SLOT_FREE);
			} else {
				/* In the elevator (completes when dispatched) or in the device
				 * model (released when the model completes it). */
				slot->orphan = true;
			}
			break;
		case SE_SLOT_GRANTED:
			atomic_fetch_sub(&d->grants_pending, 1);
			/* fall through */
		case SE_SLOT_ISSUED:
			if (st == SE_SLOT_ISSUED)
				atomic_fetch_sub(&sj->nr_issued, 1);
			if (!slot->sched_done)
				blk_complete(q, &slot->br, now, &h);
			atomic_store(&slot->state, SE_SLOT_FREE);
			break;
		case SE_SLOT_DEV_CLAIMED:
		case SE_SLOT_DEV_ISSUED:
			slot->orphan = true; /* the device context finishes it */
			break;
		case SE_SLOT_DONE:
		default:
			atomic_store(&slot->state, SE_SLOT_FREE);
			break;
		}
	}
	if (!d->degraded) {
		/* A plug it held asleep inside a page cache call: its requests are the cache's. */
		blk_plug_finish(q, j, now, &h);
		blk_owner_exit(q, j, now);
		blk_run(q, now, &h);
	}
	sj->died = died;
	sj->left_ns = now;
	atomic_store(&sj->state, SE_JOB_GONE);
	d->members--;
	if (sj->pc_leaving) {
		sj->pc_leaving = false;
		d->pc_leaving--;
	}
	se_wake_ring(d, &w, -1);
}

void se_reap_job_locked(struct se_domain *d, uint32_t j, uint64_t now)
{
	struct se_job *sj = &se_jobs(d)[j];

	if (atomic_load(&sj->state) != SE_JOB_ACTIVE || se_task_alive(sj->tid, sj->tid_start))
		return;
	release_job_locked(d, j, now, true);
	se_log("job %u (%s, pid %d) died; its requests were released", j, sj->name, (int)sj->pid);
}

void se_reap_dead_locked(struct se_domain *d, uint64_t now)
{
	for (uint32_t j = 0; se_jobs(d) && j < d->nr_jobs; j++)
		se_reap_job_locked(d, j, now);
}

/*
 * Degraded mode: the block layer is abandoned. Every request still in it is granted directly
 * (a grant the dead holder had half-pushed is pushed again).
 */
static void bypass_requeue_locked(struct se_domain *d)
{
	struct se_job *jobs = se_jobs(d);

	for (uint32_t j = 0; jobs && j < d->nr_jobs; j++) {
		struct se_job *sj = &jobs[j];
		struct se_slot *slots = se_job_slots(d, sj);
		uint32_t *ring = se_at(d, sj->ring);
		uint32_t head, tail;
		bool pushed = false;

		if (atomic_load(&sj->state) != SE_JOB_ACTIVE || !slots)
			continue;
		head = atomic_load(&sj->ring_head);
		tail = atomic_load(&sj->ring_tail);
		for (uint32_t i = 0; i < sj->nr_slots; i++) {
			struct se_slot *slot = &slots[i];
			uint32_t st = atomic_load(&slot->state);
			bool in_ring = false;

			for (uint32_t p = head; p != tail && !in_ring; p++)
				in_ring = SE_RING_INDEX(ring[p % sj->ring_size]) == i;
			if (st == SE_SLOT_BLK || (st == SE_SLOT_GRANTED && !in_ring)) {
				if (st == SE_SLOT_BLK)
					sj->bypassed++;
				slot->sched_done = true;
				se_ring_push(d, slot, SE_SLOT_GRANTED);
				pushed = true;
			}
		}
		if (pushed)
			se_bell_ring(&sj->bell);
	}
}

/* ---- configuration and membership ---------------------------------------------------------- */

static int group_lookup_locked(struct se_domain *d, const char *name, uint32_t weight, char *err,
			       size_t errlen)
{
	struct blk_queue *q = se_blk(d);
	uint32_t g, free_g = UINT32_MAX, ng = q->s->cfg.max_groups;

	/* Group 0 is the root (the policies build their hierarchy under it). */
	if (!d->groups[0].used) {
		d->groups[0].used = true;
		snprintf(d->groups[0].name, sizeof(d->groups[0].name), "root");
	}
	if (!name || !*name)
		name = "root";
	for (g = 0; g < ng; g++) {
		if (d->groups[g].used && !strcmp(d->groups[g].name, name))
			break;
		if (!d->groups[g].used && free_g == UINT32_MAX)
			free_g = g;
	}
	if (g == ng) {
		if (free_g == UINT32_MAX) {
			snprintf(err, errlen, "sched_group=%s: more than %u groups", name, ng);
			return -1;
		}
		g = free_g;
		d->groups[g].used = true;
		snprintf(d->groups[g].name, sizeof(d->groups[g].name), "%s", name);
		d->groups[g].weight = 0;
	}
	if (weight) {
		if (d->groups[g].weight && d->groups[g].weight != weight) {
			snprintf(err, errlen,
				 "sched_weight=%u: group %s already has weight %u from another job",
				 weight, name, d->groups[g].weight);
			return -1;
		}
		if (sched_set_group_weight(q->s, g, weight)) {
			snprintf(err, errlen, "sched_weight=%u: out of range for sched=%s", weight,
				 sched_ops(q->s)->name);
			return -1;
		}
		d->groups[g].weight = weight;
	}
	return (int)g;
}

static const char *blk_mode_name(enum sched_blk_mode m)
{
	return m == SCHED_BLK_LEGACY ? "legacy" : m == SCHED_BLK_MQ ? "mq" : "auto";
}

static const char *nr_text(uint32_t v, char *buf, size_t len)
{
	if (v == SCHED_NR_REQUESTS_AUTO)
		return "auto";
	snprintf(buf, len, "%u", v);
	return buf;
}

/*
 * What differs between two jobs' configurations, a (theirs: the domain's, or the first job's)
 * and b (this job's): "" when they may share one scheduler and device, else the first
 * difference with both values, in the words of the engine's options ("hw_queue_depth: 32 here,
 * 128 in the domain"); mine and theirs label the two ("here", "in the domain").
 */
static const char *pc_text(const struct se_domain_config *c, char *buf, size_t len)
{
	if (!c->pc_on)
		return "none";
	snprintf(buf, len, "%s (pagecache_mb=%u)", pc_profile_name((enum pc_profile)(c->pc_on - 1)),
		 c->pc_mb);
	return buf;
}

void se_config_diff(const struct se_domain_config *a, const struct se_domain_config *b,
		    const char *mine, const char *theirs, char *out, size_t len)
{
	const struct sched_config *x = &a->sched, *y = &b->sched;
	const struct sched_policy_ops *ops = sched_policy_ops(x->policy);
	char b1[16], b2[16];

	out[0] = 0;
	if (x->policy != y->policy) {
		snprintf(out, len, "sched: %s %s, %s %s",
			 sched_policy_ops(y->policy) ? sched_policy_ops(y->policy)->name : "?", mine,
			 ops ? ops->name : "?", theirs);
	} else if (x->hw_queue_depth != y->hw_queue_depth) {
		snprintf(out, len, "hw_queue_depth: %u %s, %u %s", y->hw_queue_depth, mine,
			 x->hw_queue_depth, theirs);
	} else if (x->nr_requests != y->nr_requests) {
		snprintf(out, len, "nr_requests: %s %s, %s %s", nr_text(y->nr_requests, b1, sizeof(b1)),
			 mine, nr_text(x->nr_requests, b2, sizeof(b2)), theirs);
	} else if (x->blk_mode != y->blk_mode) {
		snprintf(out, len, "blk_mode: %s %s, %s %s", blk_mode_name(y->blk_mode), mine,
			 blk_mode_name(x->blk_mode), theirs);
	} else if (x->rotational != y->rotational) {
		snprintf(out, len, "rotational: %d %s, %d %s", y->rotational, mine, x->rotational,
			 theirs);
	} else if (memcmp(x->tunable, y->tunable, sizeof(x->tunable))) {
		for (unsigned int i = 0; i < SCHED_MAX_TUNABLES; i++)
			if (x->tunable[i] != y->tunable[i]) {
				snprintf(out, len, "%s: %lld %s, %lld %s",
					 ops && i < ops->nr_tunables ? ops->tunables[i].name : "tunable",
					 (long long)y->tunable[i], mine, (long long)x->tunable[i], theirs);
				break;
			}
	} else if (a->has_model != b->has_model || (a->has_model && a->model.kind != b->model.kind)) {
		snprintf(out, len, "device_model: %s %s, %s %s",
			 b->has_model ? devmodel_kind_name(b->model.kind) : "none", mine,
			 a->has_model ? devmodel_kind_name(a->model.kind) : "none", theirs);
	} else if (a->has_model && memcmp(&a->model, &b->model, sizeof(a->model))) {
		snprintf(out, len, "device_model=%s: its parameters differ (%s from %s)",
			 devmodel_kind_name(a->model.kind), mine, theirs);
	} else if (b->pc_any) {
		/* direct jobs only (pagecache=auto): they bypass whatever page cache there is */
	} else if (a->nomerges != b->nomerges) {
		snprintf(out, len, "nomerges: %u %s, %u %s", b->nomerges, mine, a->nomerges,
			 theirs);
	} else if (a->max_sectors_kb != b->max_sectors_kb) {
		snprintf(out, len, "max_sectors_kb: %u %s, %u %s", b->max_sectors_kb, mine,
			 a->max_sectors_kb, theirs);
	} else if (a->pc_on != b->pc_on || (a->pc_on && a->pc_mb != b->pc_mb)) {
		char p1[40], p2[40];

		snprintf(out, len, "pagecache: %s %s, %s %s", pc_text(b, p1, sizeof(p1)), mine,
			 pc_text(a, p2, sizeof(p2)), theirs);
	} else if (a->pc_on && strcmp(a->pc_tunables, b->pc_tunables)) {
		snprintf(out, len, "the page cache's tunables: '%s' %s, '%s' %s", b->pc_tunables,
			 mine, a->pc_tunables, theirs);
	}
}

static int configure_locked(struct se_domain *d, const struct se_join_params *p, uint32_t max_jobs,
			    uint64_t now, char *err, size_t errlen)
{
	struct sched_config sc = p->cfg.sched;
	struct blk_params bp;
	size_t need;
	void *mem;

	if (!d->max_jobs)
		d->max_jobs = max_jobs ? max_jobs : SE_DEFAULT_MAX_JOBS;
	if (d->max_jobs > SE_MAX_JOBS_LIMIT)
		d->max_jobs = SE_MAX_JOBS_LIMIT;
	/* The page cache's flushers are more owners (kworkers of their own): one per group's
	 * bdi_writeback with cgroup writeback, else one. */
	sc.max_entities = d->max_jobs + se_pc_nr_flushers(&p->cfg);
	if (p->trace_path)
		sc.trace_bytes = 256u << 10;
	blk_params_defaults(&bp);
	bp.model = p->cfg.has_model ? &p->cfg.model : NULL;
	bp.nomerges = p->cfg.nomerges;
	bp.max_sectors_kb = p->cfg.max_sectors_kb;
	if (!bp.max_sectors_kb && p->cfg.pc_on) {
		/* Unset, the queue's limit is the page cache's era's (BLK_DEF_MAX_SECTORS: 512 KiB
		 * on 2.6.x, 1280 on 6.x). */
		struct pc_params pp;

		pc_params_defaults(&pp, (enum pc_profile)(p->cfg.pc_on - 1));
		bp.max_sectors_kb = pp.max_sectors_kb;
	}
	need = blk_size(&sc, &bp);
	if (!need) {
		snprintf(err, errlen, "sched=%d: not built, or the device model is invalid",
			 (int)sc.policy);
		return -1;
	}
	if (!arena_alloc(d, (uint64_t)d->max_jobs * sizeof(struct se_job), &d->jobs)) {
		snprintf(err, errlen, "%u job slots do not fit the domain", d->max_jobs);
		return -1;
	}
	mem = arena_alloc(d, need, &d->blk);
	if (!mem) {
		snprintf(err, errlen, "scheduler state of %zu bytes does not fit the domain", need);
		return -1;
	}
	if (!blk_init(mem, need, &sc, &bp, now, err, errlen))
		return -1;
	d->cfg = p->cfg;
	if (se_pc_configure_locked(d, now, err, errlen))
		return -1;
	if (p->stats_path)
		snprintf(d->stats_path, sizeof(d->stats_path), "%s", p->stats_path);
	if (p->trace_path) {
		snprintf(d->trace_path, sizeof(d->trace_path), "%s", p->trace_path);
		if (se_trace_open_first(d, err, errlen))
			return -1;
		d->trace_on = true;
	}
	d->summary = p->summary;
	snprintf(d->config_job, sizeof(d->config_job), "%s", p->name ? p->name : "?");
	d->configured = true;
	return 0;
}

int se_join(struct se_domain *d, const struct se_join_params *p, struct se_member *m, char *err,
	    size_t errlen)
{
	struct se_job *sj;
	struct se_slot *slots;
	uint32_t j, *ring;
	uint64_t now, off_slots, off_ring;
	int g, ret = -1;

	now = se_lock(d);
	if (!d->configured) {
		if (configure_locked(d, p, p->max_jobs, now, err, errlen))
			goto out;
	} else {
		char diff[320];

		se_config_diff(&d->cfg, &p->cfg, "here", "in the domain", diff, sizeof(diff));
		if (diff[0]) {
			snprintf(err, errlen,
				 "job %s: %s (set by job %s): the jobs of scheduler domain '%s' "
				 "share one scheduler and device",
				 p->name, diff, d->config_job, d->name);
			goto out;
		}
	}
	if (d->nr_jobs >= d->max_jobs) {
		snprintf(err, errlen, "more than %u jobs in scheduler domain '%s'", d->max_jobs,
			 d->name);
		goto out;
	}
	g = group_lookup_locked(d, p->group, p->weight, err, errlen);
	if (g < 0)
		goto out;
	slots = arena_alloc(d, (uint64_t)p->nr_slots * sizeof(struct se_slot), &off_slots);
	ring = arena_alloc(d, 2ull * p->nr_slots * sizeof(uint32_t), &off_ring);
	if (!slots || !ring) {
		snprintf(err, errlen, "%u request slots do not fit scheduler domain '%s'",
			 p->nr_slots, d->name);
		goto out;
	}
	j = d->nr_jobs;
	__atomic_store_n(&d->nr_jobs, j + 1, __ATOMIC_RELAXED); /* se_wake_ring reads it unlocked */
	sj = &se_jobs(d)[j];
	memset(sj, 0, sizeof(*sj));
	for (uint32_t i = 0; i < p->nr_slots; i++) {
		slots[i].job = j;
		slots[i].index = i;
		blk_rq_init(&slots[i].br);
	}
	sj->slots = off_slots;
	sj->ring = off_ring;
	sj->nr_slots = p->nr_slots;
	sj->ring_size = 2 * p->nr_slots;
	sj->pid = getpid();
	sj->tid = self_tid();
	sj->tid_start = se_task_start(sj->tid);
	sj->group = (uint32_t)g;
	sj->thread_number = p->thread_number;
	sj->subjob = p->subjob;
	sj->joined_ns = now;
	atomic_store(&sj->seen_ns, now);
	snprintf(sj->name, sizeof(sj->name), "%s", p->name ? p->name : "");
	atomic_store(&sj->state, SE_JOB_ACTIVE);
	d->members++;
	se_pc_join_locked(d, j, (uint32_t)g);
	se_device_ensure_locked(d);
	m->d = d;
	m->job = j;
	m->sj = sj;
	m->slots = slots;
	m->ioc = &se_blk(d)->ioc[j];
	m->submit_path = p->submit_path;
	ret = 0;
out:
	se_unlock(d);
	return ret;
}

static void summary_line(struct se_domain *d);

void se_leave(struct se_member *m)
{
	struct se_domain *d = m->d;
	struct se_job *sj = m->sj;
	uint64_t now;

	if (!d)
		return;
	now = se_lock(d);
	if (atomic_load(&sj->state) == SE_JOB_ACTIVE)
		release_job_locked(d, m->job, now, false); /* fio reaped all; this is defensive */
	if (d->members == 0) {
		struct blk_queue *q = se_blk(d);

		if (q)
			sched_stats_sync(q->s, now);
		if (d->stats_path[0])
			se_write_stats(d, d->stats_path);
		summary_line(d);
	}
	se_unlock(d);
	se_bell_ring(&d->dev_bell); /* it may be time for the device context to go */
	m->d = NULL;
}

/* sched_summary=1: one line on stderr at the end, beside fio's own output. */
static void summary_line(struct se_domain *d)
{
	struct blk_queue *q = se_blk(d);

	if (!d->summary || !q)
		return;
	fprintf(stderr,
		"schedengine: sched=%s domain=%s jobs=%u dispatched=%" PRIu64 " max_in_flight=%u "
		"admission_waits=%" PRIu64 "%s%s%s\n",
		sched_ops(q->s)->name, d->name, d->nr_jobs, q->s->stats.dispatched,
		q->s->stats.max_in_flight, q->st.admission_waits, d->degraded ? " DEGRADED" : "",
		d->stats_path[0] ? " stats=" : " (sched_stats=FILE for the details)",
		d->stats_path[0] ? d->stats_path : "");
}

/* ---- the data path -------------------------------------------------------------------------- */

/* Runs a pass of the block layer for this job, with its own dispatches returned in mine. */
static int pass_end(struct se_member *m, struct se_host_ctx *c, struct blk_host *h, bool completed)
{
	struct se_domain *d = m->d;
	struct blk_queue *q = se_blk(d);
	uint64_t next;

	/* The queue runs; what the device completes at once (the null model, a cache hit in the
	 * hdd model) completes in this context too, as null_blk's submit-time completion. */
	if (completed)
		blk_run_completed(q, c->now, h); /* blk-mq: kblockd's run, a wake-up later */
	else
		blk_run(q, c->now, h);
	/* Events due by now (blk_advance() runs the queue after each), and the next one. */
	next = blk_advance(q, c->now, h);
	atomic_store_explicit(&d->next_event, next, memory_order_relaxed);
	/* A timer or model event earlier than the device context will look: tell it. */
	if (next < atomic_load_explicit(&d->dev_wake_at, memory_order_relaxed))
		c->w->device = true;
	return c->nmine;
}

/* A job's pass under the lock: its host context (what is dispatched for it comes back in
 * mine), the wake set to ring after the unlock, its heartbeat. Returns the scheduler's now. */
static uint64_t pass_begin(struct se_member *m, struct se_host_ctx *c, struct se_wake_set *w,
			   struct blk_host *h, struct se_slot **mine, int max)
{
	uint64_t now = se_lock(m->d);

	*c = (struct se_host_ctx){
	    .d = m->d, .w = w, .self = (int)m->job, .mine = mine, .max = max, .now = now};
	se_wake_init(w);
	se_host_init(h, c);
	se_touch(m, now);
	return now;
}

int se_submit(struct se_member *m, struct se_slot **v, int n, struct se_slot **mine, int max)
{
	struct se_domain *d = m->d;
	struct se_wake_set w;
	struct se_host_ctx c;
	struct blk_host h;
	uint64_t now = pass_begin(m, &c, &w, &h, mine, max);
	struct blk_queue *q = se_blk(d);
	bool plugged = !d->degraded && se_batch_plugged(m->submit_path, n);
	int r;

	/* Device events already due (a late device context) happened before this submission. */
	if (!d->degraded && blk_next_event(q) <= now)
		blk_advance(q, now, &h);
	/* fio's batch under the job's plug where the kernel's system call holds one: io_submit()
	 * and io_uring_enter() of more than 2 I/Os (AIO_PLUG_THRESHOLD, need_plug), never a
	 * pread()/pwrite() of one bio. With merging its bios merge in the plug first. */
	if (plugged)
		blk_plug_start(q, m->job);
	for (int i = 0; i < n; i++) {
		struct se_slot *slot = v[i];

		slot->orphan = false;
		slot->sched_done = false;
		slot->res = 0;
		if (d->degraded) {
			/* Bypass: the block layer cannot be trusted; issue directly. */
			d->bypass_dispatched++;
			m->sj->bypassed++;
			slot->sched_done = true;
			if (c.nmine < max) {
				atomic_store(&slot->state, SE_SLOT_ISSUED);
				mine[c.nmine++] = slot;
			} else {
				se_ring_push(d, slot, SE_SLOT_GRANTED);
			}
			continue;
		}
		atomic_store_explicit(&slot->state, SE_SLOT_BLK, memory_order_relaxed);
		blk_rq_init(&slot->br);
		if (blk_submit(q, &slot->br, now, &h) < 0) {
			/* A request the core refuses (cannot happen for fio's): issue it anyway. */
			d->bypass_dispatched++;
			m->sj->bypassed++;
			slot->sched_done = true;
			se_ring_push(d, slot, SE_SLOT_GRANTED);
		}
	}
	if (plugged)
		blk_plug_finish(q, m->job, now, &h);
	r = d->degraded ? c.nmine : pass_end(m, &c, &h, false);
	se_unlock(d);
	se_wake_ring(d, &w, (int)m->job);
	return r;
}

int se_complete(struct se_member *m, struct se_slot **v, int n, struct se_slot **mine, int max)
{
	struct se_domain *d = m->d;
	struct se_wake_set w;
	struct se_host_ctx c;
	struct blk_host h;
	uint64_t now = pass_begin(m, &c, &w, &h, mine, max);
	struct blk_queue *q = se_blk(d);
	int r;

	for (int i = 0; i < n; i++) {
		struct se_slot *slot = v[i];

		if (atomic_load_explicit(&slot->state, memory_order_relaxed) != SE_SLOT_ISSUED) {
			d->stray_completions++; /* never issued, or completed twice: a bug */
			continue;
		}
		atomic_fetch_sub(&m->sj->nr_issued, 1);
		if (!slot->sched_done && !d->degraded)
			blk_complete(q, &slot->br, now, &h);
		atomic_store_explicit(&slot->state, SE_SLOT_FREE, memory_order_relaxed);
	}
	r = d->degraded ? 0 : pass_end(m, &c, &h, true);
	se_unlock(d);
	se_wake_ring(d, &w, (int)m->job);
	return r;
}

int se_advance(struct se_member *m, struct se_slot **mine, int max)
{
	struct se_domain *d = m->d;
	struct se_wake_set w;
	struct se_host_ctx c;
	struct blk_host h;
	uint64_t now = pass_begin(m, &c, &w, &h, mine, max);
	struct blk_queue *q = se_blk(d);
	uint64_t next;

	if (!d->degraded) {
		next = blk_next_event(q);
		if (next <= now) {
			m->sj->self_runs++;
			next = blk_advance(q, now, &h);
		}
		atomic_store_explicit(&d->next_event, next, memory_order_relaxed);
		if (next < atomic_load_explicit(&d->dev_wake_at, memory_order_relaxed))
			w.device = true;
	} else {
		/* Bypassed: no timeline to wait for. */
		atomic_store_explicit(&d->next_event, UINT64_MAX, memory_order_relaxed);
	}
	se_unlock(d);
	se_wake_ring(d, &w, (int)m->job);
	return c.nmine;
}

int se_pop(struct se_member *m, struct se_slot **v, int max)
{
	struct se_job *sj = m->sj;
	uint32_t head = atomic_load_explicit(&sj->ring_head, memory_order_relaxed);
	uint32_t tail = atomic_load_explicit(&sj->ring_tail, memory_order_acquire);
	uint32_t *ring;
	int n = 0;

	if (head == tail)
		return 0;
	ring = se_at(m->d, sj->ring);
	while (head != tail && n < max) {
		uint32_t e = ring[head % sj->ring_size];
		struct se_slot *slot = &m->slots[SE_RING_INDEX(e)];
		uint32_t st = atomic_load_explicit(&slot->state, memory_order_acquire);

		head++;
		if (!(e & SE_RING_DONE)) {
			/* Taken before the device context steals it: this job issues it. */
			if (st != SE_SLOT_GRANTED ||
			    !atomic_compare_exchange_strong(&slot->state, &st, SE_SLOT_ISSUED))
				continue;
			atomic_fetch_add(&sj->nr_issued, 1);
			atomic_fetch_sub(&m->d->grants_pending, 1);
			slot->issue_ns = se_now_ns();
			v[n++] = slot;
		} else if (st == SE_SLOT_DONE) {
			v[n++] = slot;
		}
		/* A grant entry of a slot the device context took: its DONE entry follows. */
	}
	atomic_store_explicit(&sj->ring_head, head, memory_order_release);
#if defined(__SANITIZE_THREAD__)
	/*
	 * A DONE entry may come from the device context, another process TSan does not see: its
	 * ring_tail release carries the lock's history (the dispatching thread's unlock) to us, but
	 * TSan cannot follow it. Taking the lock once gives TSan the same edge; builds without TSan
	 * need nothing here.
	 */
	if (n) {
		se_lock(m->d);
		se_unlock(m->d);
	}
#endif
	if (n)
		se_touch(m, se_now_ns());
	return n;
}

void se_check_device(struct se_member *m)
{
	struct se_domain *d = m->d;

	se_lock(d);
	se_device_ensure_locked(d);
	se_unlock(d);
}

int se_write_stats(struct se_domain *d, const char *path)
{
	char tmp[SE_PATH_MAX + 16];
	struct se_out o = {.cap = (256u << 10) + (size_t)d->nr_jobs * 2048u};
	size_t off = 0;
	int fd, r = 0;

	/* mmap and write, not malloc and stdio: the device context writes it too (se_log()). */
	for (;;) {
		o.buf =
		    mmap(NULL, o.cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (o.buf == MAP_FAILED) {
			se_log("sched_stats=%s: %s", path, strerror(errno));
			return -1;
		}
		o.len = 0;
		o.full = false;
		se_stats_json(d, &o);
		if (!o.full)
			break;
		munmap(o.buf, o.cap);
		o.cap *= 2;
	}
	/* A new file (O_EXCL, O_NOFOLLOW), renamed over the path: a name planted in a directory
	 * others can write (a symlink to a file of ours) is never opened, only skipped. */
	fd = -1;
	for (unsigned int i = 0; fd < 0 && i < 64; i++) {
		snprintf(tmp, sizeof(tmp), "%s.tmp%d.%u", path, (int)getpid(), i);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST && errno != ELOOP)
			break;
	}
	if (fd < 0) {
		se_log("sched_stats=%s: %s", path, strerror(errno));
		munmap(o.buf, o.cap);
		return -1;
	}
	while (off < o.len && r == 0) {
		ssize_t n = write(fd, o.buf + off, o.len - off);

		if (n < 0 && errno != EINTR)
			r = -1;
		else if (n > 0)
			off += (size_t)n;
	}
	munmap(o.buf, o.cap);
	if (close(fd) || r || rename(tmp, path)) {
		se_log("sched_stats=%s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	d->stats_writes++;
	return 0;
}
