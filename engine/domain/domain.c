// SPDX-License-Identifier: GPL-2.0
/* The shared scheduler domain: membership, locking, grants, doorbells, timers, recovery. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "domain.h"
#include "stats_json.h"
#include "trace.h"

#define SE_MAGIC 0x53434845444f4d31ull /* "SCHEDOM1" */
#define SE_VERSION 2
#define SE_ALIGN 64

uint64_t se_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- creation ---------------------------------------------------------------------------- */

static int domain_init(struct se_domain *d, uint64_t size, const char *name)
{
	pthread_mutexattr_t a;
	int r;

	memset(d, 0, sizeof(*d));
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	r = pthread_mutex_init(&d->lock, &a);
	pthread_mutexattr_destroy(&a);
	if (r)
		return -r;
	d->base = d;
	d->size = size;
	d->used = (sizeof(*d) + SE_ALIGN - 1) & ~(uint64_t)(SE_ALIGN - 1);
	d->next_timer = SCHED_NO_TIMER;
	d->created_ns = se_now_ns();
	d->clock = d->created_ns;
	atomic_store(&d->timekeeper, -1);
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->version = SE_VERSION;
	atomic_thread_fence(memory_order_release);
	d->magic = SE_MAGIC;
	return 0;
}

/*
 * The run's default domain. The engine is dlopen'ed by fio's parent while it parses the job
 * options, before it forks jobs, so a MAP_SHARED region made here is inherited by every job
 * process at the same address, and shared as is by thread-mode jobs.
 */
static struct se_domain *default_domain;

__attribute__((constructor)) static void se_domain_load(void)
{
	void *p = mmap(NULL, SE_ARENA_SIZE, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return;
	if (domain_init(p, SE_ARENA_SIZE, "default")) {
		munmap(p, SE_ARENA_SIZE);
		return;
	}
	default_domain = p;
}

static bool pid_alive(pid_t pid)
{
	char path[64], buf[256], *s;
	FILE *f;
	bool alive = true;

	if (kill(pid, 0) && errno == ESRCH)
		return false;
	/* A killed child stays a zombie until fio reaps it. */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return errno != ENOENT;
	if (fgets(buf, sizeof(buf), f)) {
		s = strrchr(buf, ')');
		if (s && s[1] == ' ' && (s[2] == 'Z' || s[2] == 'X'))
			alive = false;
	}
	fclose(f);
	return alive;
}

static bool any_member_alive(struct se_domain *d)
{
	for (uint32_t j = 0; j < d->nr_jobs; j++)
		if (atomic_load(&d->jobs[j].state) == SE_JOB_ACTIVE && pid_alive(d->jobs[j].pid))
			return true;
	return false;
}

/*
 * A named domain is a file in /dev/shm mapped at the address its creator chose, so pointers
 * inside stay valid for every process that joins. A file whose members are all gone is
 * re-initialised: the next run starts clean.
 */
static struct se_domain *named_attach(const char *name, char *err, size_t errlen)
{
	char path[128];
	struct stat st;
	struct se_domain *d = NULL;
	void *p;
	int fd;

	for (const char *c = name; *c; c++) {
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		      *c == '-' || *c == '_' || *c == '.')) {
			snprintf(err, errlen, "sched_domain=%s: use letters, digits, '-', '_' or '.'",
				 name);
			return NULL;
		}
	}
	if (!*name || strlen(name) >= SE_NAME_MAX) {
		snprintf(err, errlen, "sched_domain=%s: name must be 1..%d characters", name,
			 SE_NAME_MAX - 1);
		return NULL;
	}
	snprintf(path, sizeof(path), "/dev/shm/schedengine.%s", name);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "sched_domain=%s: cannot open %s: %s", name, path,
			 strerror(errno));
		return NULL;
	}
	flock(fd, LOCK_EX); /* serialises creation between processes */
	if (fstat(fd, &st))
		goto fail_errno;
	if (st.st_size >= (off_t)sizeof(struct se_domain)) {
		struct se_domain hdr;

		if (pread(fd, &hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr))
			goto fail_errno;
		if (hdr.magic == SE_MAGIC && hdr.version == SE_VERSION && hdr.size == (uint64_t)st.st_size) {
			p = mmap(hdr.base, hdr.size, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_NORESERVE, fd, 0);
			if (p != MAP_FAILED && p != hdr.base) {
				munmap(p, hdr.size);
				p = MAP_FAILED;
			}
			if (p != MAP_FAILED) {
				d = p;
				if (any_member_alive(d))
					goto out;
				munmap(p, hdr.size); /* stale: recreate below */
				d = NULL;
			} else if (any_member_alive(&hdr)) {
				snprintf(err, errlen,
					 "sched_domain=%s: cannot map the domain at %p in this process",
					 name, hdr.base);
				goto fail;
			}
		}
	}
	/* Create (or re-create) it. */
	if (ftruncate(fd, 0) || ftruncate(fd, (off_t)SE_ARENA_SIZE))
		goto fail_errno;
	p = mmap(NULL, SE_ARENA_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
	if (p == MAP_FAILED)
		goto fail_errno;
	if (domain_init(p, SE_ARENA_SIZE, name)) {
		munmap(p, SE_ARENA_SIZE);
		snprintf(err, errlen, "sched_domain=%s: cannot initialise the domain lock", name);
		goto fail;
	}
	d = p;
out:
	flock(fd, LOCK_UN);
	close(fd);
	return d;
fail_errno:
	snprintf(err, errlen, "sched_domain=%s: %s: %s", name, path, strerror(errno));
fail:
	flock(fd, LOCK_UN);
	close(fd);
	return NULL;
}

struct se_domain *se_domain_attach(const char *name, char *err, size_t errlen)
{
	if (name && *name)
		return named_attach(name, err, errlen);
	if (!default_domain)
		snprintf(err, errlen, "cannot map the shared scheduler domain (%zu MiB, MAP_SHARED)",
			 (size_t)(SE_ARENA_SIZE >> 20));
	return default_domain;
}

/* ---- locking and recovery ----------------------------------------------------------------- */

static void reap_dead_locked(struct se_domain *d, uint64_t now);
static void bypass_requeue_locked(struct se_domain *d);
struct wake_set;
static void request_done(struct se_domain *d, struct se_slot *slot, uint64_t at,
			 struct wake_set *w);

/* Takes the lock and returns the scheduler's now: read under the lock, so it never goes back. */
static uint64_t domain_lock(struct se_domain *d)
{
	int r = pthread_mutex_lock(&d->lock);
	uint64_t now;

	if (r == EOWNERDEAD) {
		/* The holder died mid-update: the policy state cannot be trusted any more. */
		pthread_mutex_consistent(&d->lock);
		if (!d->degraded) {
			d->degraded = true;
			snprintf(d->degraded_why, sizeof(d->degraded_why),
				 "a member died holding the domain lock; scheduler bypassed");
			fprintf(stderr, "schedengine: %s\n", d->degraded_why);
		}
		reap_dead_locked(d, d->clock);
		bypass_requeue_locked(d);
	} else if (r) {
		fprintf(stderr, "schedengine: domain lock: %s\n", strerror(r));
		abort();
	}
	now = se_now_ns();
	if (now < d->clock)
		now = d->clock;
	d->clock = now;
	return now;
}

static void domain_unlock(struct se_domain *d)
{
	if (d->trace_on && d->sched)
		sched_trace_drain(d->sched->trace, se_trace_line, d);
	pthread_mutex_unlock(&d->lock);
}

static void *arena_alloc(struct se_domain *d, uint64_t size)
{
	uint64_t off = d->used;
	void *p;

	size = (size + SE_ALIGN - 1) & ~(uint64_t)(SE_ALIGN - 1);
	if (off + size > d->size)
		return NULL;
	d->used = off + size;
	p = (char *)d + off;
	memset(p, 0, size);
	return p;
}

/* Producer side of a grant ring: always under the domain lock. state: GRANTED or DONE. */
static void ring_push(struct se_domain *d, struct se_slot *slot, uint32_t state)
{
	struct se_job *sj = &d->jobs[slot->job];
	uint32_t tail = atomic_load_explicit(&sj->grant_tail, memory_order_relaxed);

	atomic_store_explicit(&slot->state, state, memory_order_relaxed);
	sj->grant_ring[tail % sj->nr_slots] = slot->index;
	atomic_store_explicit(&sj->grant_tail, tail + 1, memory_order_release);
}

static void grant_push(struct se_domain *d, struct se_slot *slot)
{
	ring_push(d, slot, SE_SLOT_GRANTED);
}

/* Doorbells: an eventfd per job; other processes reach it through pidfd_getfd(). */
struct remote_fd {
	const struct se_domain *d;
	uint32_t job;
	pid_t pid;
	int remote, local;
};
static struct remote_fd remote_fds[SE_MAX_JOBS];
static pthread_mutex_t remote_fds_lock = PTHREAD_MUTEX_INITIALIZER;
static bool remote_fd_warned;

static int doorbell_fd(struct se_domain *d, uint32_t j)
{
	struct se_job *sj = &d->jobs[j];
	struct remote_fd *r = &remote_fds[j];
	int fd = -1, pidfd;

	if (sj->pid == getpid())
		return sj->efd;
	pthread_mutex_lock(&remote_fds_lock);
	if (r->d == d && r->job == j && r->pid == sj->pid && r->remote == sj->efd) {
		fd = r->local;
		goto out;
	}
	if (r->d && r->local >= 0)
		close(r->local);
	r->d = NULL;
	pidfd = (int)syscall(SYS_pidfd_open, sj->pid, 0);
	if (pidfd >= 0) {
		fd = (int)syscall(SYS_pidfd_getfd, pidfd, sj->efd, 0);
		close(pidfd);
	}
	if (fd < 0) {
		if (!remote_fd_warned)
			fprintf(stderr,
				"schedengine: cannot reach job %u's doorbell in pid %d (%s): it will "
				"poll every %llu ms\n",
				j, (int)sj->pid, strerror(errno),
				(unsigned long long)(SE_LIVENESS_TICK_NS / SCHED_NS_PER_MS));
		remote_fd_warned = true;
		goto out;
	}
	*r = (struct remote_fd){ .d = d, .job = j, .pid = sj->pid, .remote = sj->efd, .local = fd };
out:
	pthread_mutex_unlock(&remote_fds_lock);
	return fd;
}

static void ring_doorbell(struct se_domain *d, uint32_t j)
{
	uint64_t one = 1;
	int fd = doorbell_fd(d, j);

	atomic_fetch_add_explicit(&d->jobs[j].doorbells, 1, memory_order_relaxed);
	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		fprintf(stderr, "schedengine: doorbell of job %u: %s\n", j, strerror(errno));
}

struct wake_set {
	uint64_t bits[SE_MAX_JOBS / 64];
};

static void wake_add(struct wake_set *w, uint32_t j)
{
	w->bits[j / 64] |= 1ull << (j % 64);
}

/* Rings the sleeping jobs of w other than self. Called after the lock is dropped. */
static void wake_ring(struct se_domain *d, const struct wake_set *w, uint32_t self)
{
	/* Pairs with the sleeper's fence between `sleeping = 1` and its last look at its ring. */
	atomic_thread_fence(memory_order_seq_cst);
	for (uint32_t i = 0; i < SE_MAX_JOBS / 64; i++) {
		uint64_t b = w->bits[i];

		while (b) {
			uint32_t j = i * 64 + (uint32_t)__builtin_ctzll(b);

			b &= b - 1;
			if (j != self && atomic_load(&d->jobs[j].sleeping))
				ring_doorbell(d, j);
		}
	}
}

/* Takes a request off the nr_requests wait list (its job left, died, or the domain degraded). */
static void unwait(struct se_domain *d, struct se_slot *slot)
{
	sched_list_del_init(&slot->wait);
	d->nr_waiting--;
	d->jobs[slot->job].nr_waiting--;
}

/* Completes and frees every request of a dead job; its queued ones complete when dispatched. */
static void reap_job_locked(struct se_domain *d, uint32_t j, uint64_t now)
{
	struct se_job *sj = &d->jobs[j];

	for (uint32_t i = 0; i < sj->nr_slots; i++) {
		struct se_slot *slot = &sj->slots[i];
		uint32_t st = atomic_load(&slot->state);

		if (st == SE_SLOT_WAITING) {
			unwait(d, slot);
			atomic_store(&slot->state, SE_SLOT_FREE);
		} else if (st == SE_SLOT_QUEUED && !d->degraded) {
			slot->orphan = true;
		} else if (st == SE_SLOT_ISSUED && d->model && !d->degraded) {
			slot->orphan = true; /* in the device model: released when it completes */
		} else if (st == SE_SLOT_GRANTED || st == SE_SLOT_ISSUED) {
			if (!d->degraded)
				request_done(d, slot, now, NULL);
			atomic_store(&slot->state, SE_SLOT_FREE);
		} else if (st == SE_SLOT_QUEUED || st == SE_SLOT_DONE) {
			atomic_store(&slot->state, SE_SLOT_FREE);
		}
	}
	if (!d->degraded)
		sched_entity_exit(d->sched, j, now);
	sj->died = true;
	sj->left_ns = now;
	atomic_store(&sj->state, SE_JOB_GONE);
	d->members--;
	fprintf(stderr, "schedengine: job %u (%s, pid %d) died; its requests were released\n", j,
		sj->name, (int)sj->pid);
}

static void reap_dead_locked(struct se_domain *d, uint64_t now)
{
	pid_t self = getpid();

	for (uint32_t j = 0; j < d->nr_jobs; j++) {
		struct se_job *sj = &d->jobs[j];

		if (atomic_load(&sj->state) == SE_JOB_ACTIVE && sj->pid != self && !pid_alive(sj->pid))
			reap_job_locked(d, j, now);
	}
}

/*
 * Degraded mode: the scheduler is abandoned. Every request still waiting in it is granted
 * directly, and a grant the dead holder had half-pushed is pushed again.
 */
static void bypass_requeue_locked(struct se_domain *d)
{
	for (uint32_t j = 0; j < d->nr_jobs; j++) {
		struct se_job *sj = &d->jobs[j];
		uint32_t head, tail;
		bool in_ring[4096];
		bool have_map = sj->nr_slots <= 4096;
		bool pushed = false;

		if (atomic_load(&sj->state) != SE_JOB_ACTIVE)
			continue;
		head = atomic_load(&sj->grant_head);
		tail = atomic_load(&sj->grant_tail);
		if (have_map) {
			memset(in_ring, 0, sj->nr_slots);
			for (uint32_t p = head; p != tail; p++)
				in_ring[sj->grant_ring[p % sj->nr_slots]] = true;
		}
		for (uint32_t i = 0; i < sj->nr_slots; i++) {
			struct se_slot *slot = &sj->slots[i];
			uint32_t st = atomic_load(&slot->state);

			if (st == SE_SLOT_WAITING)
				unwait(d, slot);
			if (st == SE_SLOT_QUEUED || st == SE_SLOT_WAITING ||
			    (st == SE_SLOT_GRANTED && have_map && !in_ring[i])) {
				grant_push(d, slot);
				pushed = true;
			}
		}
		if (pushed)
			ring_doorbell(d, j);
	}
}

/* Puts a request into the scheduler; it holds one of nr_requests until it completes. */
static void admit(struct se_domain *d, struct se_slot *slot, uint64_t at)
{
	slot->counted_sync = sched_rq_is_sync(&slot->rq);
	if (sched_insert(d->sched, &slot->rq, at)) {
		/* A request the core refuses (cannot happen for fio's): issue it unscheduled. */
		d->bypass_dispatched++;
		grant_push(d, slot);
		return;
	}
	if (++d->allocated[slot->counted_sync] > d->max_allocated[slot->counted_sync])
		d->max_allocated[slot->counted_sync] = d->allocated[slot->counted_sync];
	atomic_store_explicit(&slot->state, SE_SLOT_QUEUED, memory_order_relaxed);
}

/* The legacy block layer's ioc batching (blk-core.c): BLK_BATCH_REQ, BLK_BATCH_TIME. */
#define SE_NR_BATCHING	 32u
#define SE_BATCH_TIME_NS (20 * 1000000ull)

/* ioc_batching(): within its batch (its first request always, then 20 ms). */
static bool ioc_batching(const struct se_job *sj, uint64_t now)
{
	return sj->nr_batch == SE_NR_BATCHING ||
	       (sj->nr_batch && now < sj->last_waited + SE_BATCH_TIME_NS);
}

static void ioc_set_batching(struct se_job *sj, uint64_t now)
{
	if (ioc_batching(sj, now))
		return;
	sj->nr_batch = SE_NR_BATCHING;
	sj->last_waited = now;
}

/*
 * __get_request(): may this request of its job take one of nr_requests now? The policy is
 * asked every time (CFQ spends its once-per-slice ELV_MQUEUE_MUST here). The allocation that
 * fills the list makes its job the batcher; past a full list only batchers and MUST allocate,
 * up to 1.5 x nr_requests.
 */
static bool may_allocate(struct se_domain *d, struct se_slot *slot, bool sync, uint64_t now)
{
	struct se_job *sj = &d->jobs[slot->job];
	uint32_t nr = d->nr_requests;
	bool must;

	if (!nr)
		return true;
	must = sched_may_queue_must(d->sched, slot->rq.owner, sync);
	if (d->allocated[sync] + 1 >= nr) {
		if (!d->rl_full[sync]) {
			ioc_set_batching(sj, now);
			d->rl_full[sync] = true;
		} else if (!ioc_batching(sj, now)) {
			if (!must)
				return false;
			if (d->allocated[sync] < 3 * nr / 2)
				d->admitted_must++;
		} else if (d->allocated[sync] >= nr && d->allocated[sync] < 3 * nr / 2) {
			d->admitted_batching++;
		}
	}
	if (d->allocated[sync] >= 3 * nr / 2)
		return false;
	if (ioc_batching(sj, now))
		sj->nr_batch--;
	return true;
}

/* No free request: the request waits, as its process sleeps in get_request(). */
static void wait_for_request(struct se_domain *d, struct se_slot *slot, bool sync, uint64_t now)
{
	atomic_store_explicit(&slot->state, SE_SLOT_WAITING, memory_order_relaxed);
	sched_list_add_tail(&slot->wait, &d->waiting[sync]);
	d->admission_waits++;
	d->jobs[slot->job].nr_waiting++;
	if (++d->nr_waiting > d->max_waiting)
		d->max_waiting = d->nr_waiting;
	if (d->trace_on)
		se_trace_request(d, now, 'S', slot);
}

/*
 * freed_request(): below nr_requests the list is no longer full and the first sleeper wakes.
 * Woken, its job is a batcher: its request, and those it had queued behind it, are admitted
 * while its batch allows (the process goes on submitting).
 */
static void wake_first_waiter(struct se_domain *d, bool sync, uint64_t at, struct wake_set *w)
{
	struct sched_list *pos, *next;
	uint32_t job;

	if (!d->nr_requests || d->allocated[sync] >= d->nr_requests)
		return;
	d->rl_full[sync] = false;
	if (sched_list_empty(&d->waiting[sync]))
		return;
	job = sched_list_first_entry(&d->waiting[sync], struct se_slot, wait)->job;
	ioc_set_batching(&d->jobs[job], at);
	for (pos = d->waiting[sync].next; pos != &d->waiting[sync]; pos = next) {
		struct se_slot *slot = sched_list_entry(pos, struct se_slot, wait);

		next = pos->next;
		if (slot->job != job)
			continue;
		if (!may_allocate(d, slot, sync, at))
			break;
		unwait(d, slot);
		if (d->trace_on)
			se_trace_request(d, at, 'I', slot);
		admit(d, slot, at);
	}
	if (w)
		wake_add(w, job); /* it may be blocked in commit() */
}

/* A request completed (or was released): it goes back to its list, a sleeper may wake. */
static void request_done(struct se_domain *d, struct se_slot *slot, uint64_t at,
			 struct wake_set *w)
{
	bool sync = slot->counted_sync;

	sched_completed(d->sched, &slot->rq, at);
	d->allocated[sync]--;
	wake_first_waiter(d, sync, at, w);
}

/* Dispatches at time `at` while the device has room: grants to owners, or into the model. */
static void dispatch_at(struct se_domain *d, uint64_t at, struct wake_set *w)
{
	struct sched *s = d->sched;
	struct sched_request *rq;

	while ((rq = sched_dispatch(s, at))) {
		struct se_slot *slot = (struct se_slot *)rq;

		if (d->trace_on)
			se_trace_request(d, at, 'D', slot);
		if (d->model) {
			atomic_store_explicit(&slot->state, SE_SLOT_ISSUED, memory_order_relaxed);
			if (!devmodel_submit(d->model, (uint64_t)(uintptr_t)slot, rq->offset, rq->length,
					     (enum devmodel_op)rq->op, at))
				continue;
			/* Cannot happen: hw_queue_depth <= the model's depth is checked at set-up. */
			request_done(d, slot, at, w);
			ring_push(d, slot, SE_SLOT_DONE);
			wake_add(w, slot->job);
			continue;
		}
		if (slot->orphan) {
			request_done(d, slot, at, w);
			slot->orphan = false;
			atomic_store(&slot->state, SE_SLOT_FREE);
			continue;
		}
		grant_push(d, slot);
		wake_add(w, slot->job);
	}
}

/* The model finished what it had by time t; the scheduler hears of it at `at` (>= t). */
static void model_complete(struct se_domain *d, uint64_t t, uint64_t at, struct wake_set *w)
{
	uint64_t ids[64];
	int n;

	while ((n = devmodel_reap(d->model, t, ids, 64)) > 0) {
		for (int i = 0; i < n; i++) {
			struct se_slot *slot = (struct se_slot *)(uintptr_t)ids[i];

			d->model_completions++;
			request_done(d, slot, at, w);
			if (d->trace_on)
				se_trace_request(d, at, 'C', slot);
			if (slot->orphan) {
				slot->orphan = false;
				atomic_store(&slot->state, SE_SLOT_FREE);
				continue;
			}
			ring_push(d, slot, SE_SLOT_DONE);
			wake_add(w, slot->job);
		}
	}
}

/* The time of the next event: the policy's timer or the model's next completion. */
static uint64_t next_event(const struct se_domain *d)
{
	uint64_t t = sched_next_timer(d->sched);

	if (d->model) {
		uint64_t m = devmodel_next_completion(d->model);

		if (m < t)
			t = m;
	}
	return t;
}

/*
 * Makes sure a sleeping member will wake by next_timer: the timekeeper, or another sleeper that
 * is rung to take the role. self (about to sleep and take it) is not rung.
 */
static void timer_handoff(struct se_domain *d, struct wake_set *w, int self)
{
	int tk = atomic_load(&d->timekeeper);
	uint64_t t = d->next_timer;

	if (t == SCHED_NO_TIMER || tk == self)
		return;
	if (tk >= 0 && atomic_load(&d->jobs[tk].sleeping) && atomic_load(&d->jobs[tk].wake_at) <= t)
		return;
	if (tk >= 0 && atomic_load(&d->jobs[tk].sleeping)) {
		wake_add(w, (uint32_t)tk);
		return;
	}
	for (uint32_t j = 0; j < d->nr_jobs; j++) {
		struct se_job *sj = &d->jobs[j];

		if ((int)j != self && atomic_load(&sj->state) == SE_JOB_ACTIVE &&
		    atomic_load(&sj->sleeping)) {
			wake_add(w, j);
			return;
		}
	}
}

/*
 * Brings the scheduler and the device model up to now: model completions and policy timers are
 * processed in time order at their own times (never before the scheduler's clock), each followed
 * by a dispatch, as the kernel would on the completion interrupt or the timer. Then dispatches
 * at now.
 */
static void advance_locked(struct se_domain *d, uint64_t now, struct wake_set *w, int self)
{
	struct sched *s = d->sched;

	if (d->degraded)
		return;
	for (unsigned int guard = 0; guard < (1u << 20); guard++) {
		uint64_t tp = sched_next_timer(s);
		uint64_t tm = d->model ? devmodel_next_completion(d->model) : SCHED_NO_TIMER;
		uint64_t t = tm < tp ? tm : tp, at;

		if (t > now)
			break;
		at = t > d->clock ? t : d->clock;
		d->clock = at;
		if (tm <= tp)
			model_complete(d, tm, at, w);
		else
			sched_run_timer(s, at);
		dispatch_at(d, at, w);
	}
	dispatch_at(d, now, w);
	d->next_timer = next_event(d);
	timer_handoff(d, w, self);
}

/* ---- membership ---------------------------------------------------------------------------- */

static int group_lookup_locked(struct se_domain *d, const char *name, uint32_t weight, char *err,
			       size_t errlen)
{
	uint32_t g, free_g = UINT32_MAX;

	/* Group 0 is the root (the policies build their hierarchy under it). */
	if (!d->groups[0].used) {
		d->groups[0].used = true;
		snprintf(d->groups[0].name, sizeof(d->groups[0].name), "root");
	}
	if (!name || !*name)
		name = "root";
	for (g = 0; g < d->cfg.max_groups; g++) {
		if (d->groups[g].used && !strcmp(d->groups[g].name, name))
			break;
		if (!d->groups[g].used && free_g == UINT32_MAX)
			free_g = g;
	}
	if (g == d->cfg.max_groups) {
		if (free_g == UINT32_MAX) {
			snprintf(err, errlen, "sched_group=%s: more than %u groups", name,
				 d->cfg.max_groups);
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
				 "sched_weight=%u: group %s already has weight %u from another job", weight,
				 name, d->groups[g].weight);
			return -1;
		}
		d->groups[g].weight = weight;
		sched_set_group_weight(d->sched, g, weight);
	}
	return (int)g;
}

static bool same_config(const struct se_domain *d, const struct se_join_params *p)
{
	const struct sched_config *a = &d->cfg, *b = &p->cfg;

	if (a->policy != b->policy || a->hw_queue_depth != b->hw_queue_depth ||
	    d->nr_requests != p->nr_requests ||
	    a->rotational != b->rotational || memcmp(a->tunable, b->tunable, sizeof(a->tunable)))
		return false;
	if (!d->model != !p->model)
		return false;
	return !p->model || !memcmp(&d->model_params, p->model, sizeof(*p->model));
}

static int configure_locked(struct se_domain *d, const struct se_join_params *p, uint64_t now,
			    char *err, size_t errlen)
{
	size_t need;
	void *mem;

	if (sched_config_check(&p->cfg, err, errlen))
		return -1;
	d->cfg = p->cfg;
	if (p->trace_path)
		d->cfg.trace_bytes = 256u << 10;
	need = sched_size(&d->cfg);
	mem = arena_alloc(d, need);
	if (!mem) {
		snprintf(err, errlen, "scheduler state of %zu bytes does not fit the domain", need);
		return -1;
	}
	d->nr_requests = p->nr_requests;
	sched_list_init(&d->waiting[0]);
	sched_list_init(&d->waiting[1]);
	d->sched = sched_init(mem, need, &d->cfg, now, err, errlen);
	if (!d->sched)
		return -1;
	if (p->model) {
		size_t msize = devmodel_size(p->model);

		mem = msize ? arena_alloc(d, msize) : NULL;
		if (!mem) {
			snprintf(err, errlen, "device model state of %zu bytes does not fit the domain",
				 msize);
			return -1;
		}
		d->model_params = *p->model;
		d->model = devmodel_create_in(mem, msize, &d->model_params, now);
		if (!d->model) {
			snprintf(err, errlen, "device_model=%s: cannot be built",
				 devmodel_kind_name(p->model->kind));
			return -1;
		}
	}
	if (p->stats_path)
		snprintf(d->stats_path, sizeof(d->stats_path), "%s", p->stats_path);
	if (p->trace_path) {
		snprintf(d->trace_path, sizeof(d->trace_path), "%s", p->trace_path);
		d->trace_on = true;
	}
	d->configured = true;
	return 0;
}

int se_join(struct se_domain *d, const struct se_join_params *p, struct se_member *m, char *err,
	    size_t errlen)
{
	struct se_job *sj;
	uint64_t now;
	uint32_t j;
	int g, ret = -1;

	now = domain_lock(d);
	if (!d->configured) {
		if (configure_locked(d, p, now, err, errlen))
			goto out;
	} else if (!same_config(d, p)) {
		snprintf(err, errlen,
			 "job %s: sched/hw_queue_depth/nr_requests/rotational/tunables/device_model differ from the "
			 "other jobs of scheduler domain '%s' (they share one scheduler and device)",
			 p->name, d->name);
		goto out;
	}
	if (d->nr_jobs >= d->cfg.max_entities) {
		snprintf(err, errlen, "more than %u jobs in scheduler domain '%s'", d->cfg.max_entities,
			 d->name);
		goto out;
	}
	g = group_lookup_locked(d, p->group, p->weight, err, errlen);
	if (g < 0)
		goto out;
	j = d->nr_jobs;
	sj = &d->jobs[j];
	memset(sj, 0, sizeof(*sj));
	sj->slots = arena_alloc(d, (uint64_t)p->nr_slots * sizeof(struct se_slot));
	sj->grant_ring = arena_alloc(d, (uint64_t)p->nr_slots * sizeof(uint32_t));
	if (!sj->slots || !sj->grant_ring) {
		snprintf(err, errlen, "%u request slots do not fit scheduler domain '%s' (%llu MiB)",
			 p->nr_slots, d->name, (unsigned long long)(d->size >> 20));
		goto out;
	}
	for (uint32_t i = 0; i < p->nr_slots; i++) {
		sj->slots[i].job = j;
		sj->slots[i].index = i;
		sched_list_init(&sj->slots[i].wait);
	}
	d->nr_jobs++;
	sj->nr_slots = p->nr_slots;
	sj->pid = getpid();
	sj->efd = p->efd;
	sj->group = (uint32_t)g;
	sj->thread_number = p->thread_number;
	sj->subjob = p->subjob;
	sj->joined_ns = now;
	atomic_store(&sj->wake_at, SCHED_NO_TIMER);
	snprintf(sj->name, sizeof(sj->name), "%s", p->name ? p->name : "");
	atomic_store(&sj->state, SE_JOB_ACTIVE);
	d->members++;
	m->d = d;
	m->job = j;
	m->sj = sj;
	ret = 0;
out:
	domain_unlock(d);
	return ret;
}

void se_leave(struct se_member *m)
{
	struct se_domain *d = m->d;
	struct se_job *sj = m->sj;
	struct wake_set w = { { 0 } };
	uint64_t now;

	if (!d)
		return;
	now = domain_lock(d);
	if (atomic_load(&sj->state) == SE_JOB_ACTIVE) {
		/* fio reaped everything before cleanup; this is defensive. */
		for (uint32_t i = 0; i < sj->nr_slots; i++) {
			struct se_slot *slot = &sj->slots[i];

			if (atomic_load(&slot->state) == SE_SLOT_QUEUED) {
				slot->orphan = true;
			} else if (atomic_load(&slot->state) == SE_SLOT_WAITING) {
				unwait(d, slot);
				atomic_store(&slot->state, SE_SLOT_FREE);
			}
		}
		if (!d->degraded)
			sched_entity_exit(d->sched, m->job, now);
		sj->left_ns = now;
		atomic_store(&sj->state, SE_JOB_GONE);
		d->members--;
		/* Our leaving may leave a pending timer with no one to run it: hand it over. */
		advance_locked(d, now, &w, -1);
	}
	if (d->members == 0 && d->stats_path[0]) {
		if (d->sched)
			sched_stats_sync(d->sched, now);
		se_write_stats(d, d->stats_path);
	}
	domain_unlock(d);
	wake_ring(d, &w, m->job);
	m->d = NULL;
}

/* ---- the data path ----------------------------------------------------------------------- */

void se_submit(struct se_member *m, struct se_slot **v, int n)
{
	struct se_domain *d = m->d;
	struct wake_set w = { { 0 } };
	uint64_t now = domain_lock(d);

	for (int i = 0; i < n; i++) {
		struct se_slot *slot = v[i];

		bool sync = sched_rq_is_sync(&slot->rq);

		slot->orphan = false;
		if (d->degraded) {
			/* Bypass: the policy state cannot be trusted; grant directly. */
			d->bypass_dispatched++;
			grant_push(d, slot);
			continue;
		}
		/* A job with a request waiting is asleep in get_request(): the rest of its
		 * submission waits behind it. */
		if (atomic_load_explicit(&m->sj->nr_waiting, memory_order_relaxed) ||
		    !may_allocate(d, slot, sync, now)) {
			wait_for_request(d, slot, sync, now);
			continue;
		}
		if (d->trace_on)
			se_trace_request(d, now, 'I', slot);
		admit(d, slot, now);
	}
	advance_locked(d, now, &w, -1);
	domain_unlock(d);
	wake_ring(d, &w, m->job);
}

void se_complete(struct se_member *m, struct se_slot **v, int n)
{
	struct se_domain *d = m->d;
	struct wake_set w = { { 0 } };
	uint64_t now = domain_lock(d);

	for (int i = 0; i < n; i++) {
		struct se_slot *slot = v[i];

		if (atomic_load_explicit(&slot->state, memory_order_relaxed) != SE_SLOT_ISSUED) {
			d->stray_completions++; /* never issued, or completed twice: a bug */
			continue;
		}
		if (!d->degraded)
			request_done(d, slot, now, &w);
		if (d->trace_on)
			se_trace_request(d, now, 'C', slot);
		atomic_store_explicit(&slot->state, SE_SLOT_FREE, memory_order_relaxed);
	}
	advance_locked(d, now, &w, -1);
	domain_unlock(d);
	wake_ring(d, &w, m->job);
}

bool se_has_grants(const struct se_member *m)
{
	return atomic_load_explicit(&m->sj->grant_head, memory_order_relaxed) !=
	       atomic_load_explicit(&m->sj->grant_tail, memory_order_acquire);
}

int se_pop_grants(struct se_member *m, struct se_slot **v, int max)
{
	struct se_job *sj = m->sj;
	uint32_t head = atomic_load_explicit(&sj->grant_head, memory_order_relaxed);
	uint32_t tail = atomic_load_explicit(&sj->grant_tail, memory_order_acquire);
	int n = 0;

	while (head != tail && n < max) {
		struct se_slot *slot = &sj->slots[sj->grant_ring[head % sj->nr_slots]];

		/* ISSUED before the head moves, so recovery never grants it twice. DONE (the
		 * model completed it) stays DONE for the engine to see. */
		if (atomic_load_explicit(&slot->state, memory_order_relaxed) == SE_SLOT_GRANTED)
			atomic_store_explicit(&slot->state, SE_SLOT_ISSUED, memory_order_relaxed);
		v[n++] = slot;
		head++;
		atomic_store_explicit(&sj->grant_head, head, memory_order_release);
	}
	return n;
}

bool se_sleep_begin(struct se_member *m, uint64_t *deadline)
{
	struct se_domain *d = m->d;
	struct wake_set w = { { 0 } };
	int self = (int)m->job, tk;
	uint64_t now, t;

	now = domain_lock(d);
	advance_locked(d, now, &w, self);
	/* One sleeper, the timekeeper, wakes for the domain's next event; the others only
	 * for their doorbell or the liveness tick. */
	t = d->degraded ? SCHED_NO_TIMER : d->next_timer;
	tk = atomic_load(&d->timekeeper);
	if (t != SCHED_NO_TIMER && tk >= 0 && tk != self && atomic_load(&d->jobs[tk].sleeping) &&
	    atomic_load(&d->jobs[tk].wake_at) <= t)
		t = SCHED_NO_TIMER;
	else if (t != SCHED_NO_TIMER)
		atomic_store(&d->timekeeper, self);
	m->liveness_wait = t > now + SE_LIVENESS_TICK_NS;
	if (m->liveness_wait)
		t = now + SE_LIVENESS_TICK_NS;
	atomic_store(&m->sj->wake_at, t);
	atomic_store(&m->sj->sleeping, 1);
	domain_unlock(d);
	wake_ring(d, &w, m->job);
	atomic_thread_fence(memory_order_seq_cst);
	if (se_has_grants(m)) {
		atomic_store(&m->sj->sleeping, 0);
		return false;
	}
	*deadline = t;
	return true;
}

void se_sleep_end(struct se_member *m, bool timed_out)
{
	struct se_domain *d = m->d;
	struct wake_set w = { { 0 } };
	int self = (int)m->job;
	uint64_t now;

	atomic_store(&m->sj->sleeping, 0);
	atomic_store(&m->sj->wake_at, SCHED_NO_TIMER);
	atomic_compare_exchange_strong(&d->timekeeper, &self, -1);
	if (!timed_out || !m->liveness_wait)
		return;
	now = domain_lock(d);
	reap_dead_locked(d, now);
	advance_locked(d, now, &w, -1);
	domain_unlock(d);
	wake_ring(d, &w, m->job);
}

int se_write_stats(struct se_domain *d, const char *path)
{
	char tmp[SE_PATH_MAX + 16];
	FILE *f;
	int r;

	snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "schedengine: sched_stats=%s: %s\n", path, strerror(errno));
		return -1;
	}
	se_stats_json(d, f);
	r = fclose(f);
	if (r || rename(tmp, path)) {
		fprintf(stderr, "schedengine: sched_stats=%s: %s\n", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	d->stats_writes++;
	return 0;
}
