// SPDX-License-Identifier: GPL-2.0
/*
 * The device context: what the kernel does outside any process. One small process per domain,
 * started by the first job that finds none (a double fork, so it belongs to no job and no fio
 * process), gone when the domain has no members. It
 *   - fires the policy's timers and the device model's completions on time, and dispatches
 *     after each (a job that is descheduled, stopped or thinking never holds the device idle);
 *   - issues a grant its owner has not taken within SE_GRANT_STEAL_NS, from its own ring (the
 *     buffers are in the domain, the files are opened by path), and hands the completion back;
 *   - completes at the scheduler the requests a stopped job (SIGSTOP) issued and cannot reap:
 *     the kernel's block layer hears of a completion whatever the process does;
 *   - releases the requests of members that died, and writes sched_stats if the last did.
 * A job that stops while it holds the domain lock is resumed (SIGCONT) just long enough to leave
 * the lock, then stops itself again (see se_unlock()).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "domain.h"

#define DEV_DEPTH	     1024u
#define DEV_START_TIMEOUT_NS (2000ull * SCHED_NS_PER_MS)

void se_file_sweep(struct se_domain *d);

static bool stopped(pid_t tid)
{
	char c = se_task_state(tid);

	return c == 'T'; /* job control; not a debugger's tracing stop ('t') */
}

/* ---- one pass ------------------------------------------------------------------------------- */

/*
 * Members' health (alive? stopped?) comes from their /proc stat files, a few microseconds a read.
 * The reads happen outside the domain lock and a bounded batch at a time: with every member read
 * under the lock on each pass, 400 thread jobs kept the device context (SCHED_FIFO) busy reading
 * /proc, and the jobs waiting for the lock behind it, at 2.7k IOPS where 256 jobs did 290k.
 */
#define DEV_REAP_BATCH	     64u /* members checked for death per DEV_REAP_PERIOD_NS */
#define DEV_STALL_BATCH	     16u /* stale members checked for a stop per DEV_STALL_PERIOD_NS */
#define DEV_STALL_SCAN	     256u /* members looked at for staleness per DEV_STALL_PERIOD_NS */
#define DEV_STALL_PERIOD_NS  SCHED_NS_PER_MS

struct dev_state {
	struct se_backend be;
	bool in_process;       /* a test drives the passes itself: no backend, no signals */
	uint64_t next_reap_ns; /* the next batch of liveness reads */
	uint32_t reap_cursor;  /* where that batch starts: every member gets its turn */
	uint64_t next_stall_ns; /* the next batch of stop checks */
	uint32_t stall_cursor;
	uint32_t lost_epoch; /* reissue_lost() found all a dead context left, in this epoch */
	/* Per job: when it may be looked at for a stop again (seen stale and not stopped). */
	uint64_t stall_next[SE_MAX_JOBS_LIMIT];
};
/* A member that died is found within this times the rounds its batches need (one up to
 * DEV_REAP_BATCH members); not on every pass (a kill() and a /proc read per member would be most
 * of a pass's cost at one pass per request). */
#define DEV_REAP_PERIOD_NS (10ull * SCHED_NS_PER_MS)
static struct dev_state dev;

/* What the unlocked health reads found; acted on under the lock. */
struct dev_health {
	uint32_t dead[DEV_REAP_BATCH], ndead;
	uint32_t stopped[DEV_STALL_BATCH], nstopped;
};

/* A member that has issued requests and not been in the engine for SE_STALL_NS. */
static bool stale(struct se_job *sj, uint64_t now)
{
	return atomic_load(&sj->state) == SE_JOB_ACTIVE && atomic_load(&sj->nr_issued) &&
	       atomic_load_explicit(&sj->seen_ns, memory_order_relaxed) + SE_STALL_NS <= now;
}

/*
 * Without the lock: the next batch of members' liveness, and stale members' stops. A job slot is
 * never reused, and its pid, tid and start are written before it turns ACTIVE, so they can be
 * read here; what is found is checked again under the lock.
 */
static void dev_health(struct se_domain *d, uint64_t now, struct dev_health *hl)
{
	struct se_job *jobs = se_jobs(d);
	uint32_t nr = atomic_load(&d->nr_jobs);

	hl->ndead = hl->nstopped = 0;
	if (!jobs || !nr)
		return;
	if (now >= dev.next_reap_ns) {
		uint32_t n = nr < DEV_REAP_BATCH ? nr : DEV_REAP_BATCH;

		for (uint32_t i = 0; i < n; i++) {
			uint32_t j = (dev.reap_cursor + i) % nr;
			struct se_job *sj = &jobs[j];

			if (atomic_load(&sj->state) == SE_JOB_ACTIVE &&
			    !se_task_alive(sj->tid, sj->tid_start))
				hl->dead[hl->ndead++] = j;
		}
		dev.reap_cursor = (dev.reap_cursor + n) % nr;
		dev.next_reap_ns = now + DEV_REAP_PERIOD_NS;
	}
	if (now >= dev.next_stall_ns) {
		uint32_t reads = 0, i;

		for (i = 0; i < nr && i < DEV_STALL_SCAN && reads < DEV_STALL_BATCH; i++) {
			uint32_t j = (dev.stall_cursor + i) % nr;
			struct se_job *sj = &jobs[j];

			if (!stale(sj, now) || now < dev.stall_next[j])
				continue;
			reads++;
			if (stopped(sj->tid))
				hl->stopped[hl->nstopped++] = j;
			else /* descheduled, not stopped: not again before SE_STALL_NS */
				dev.stall_next[j] = now + SE_STALL_NS;
		}
		dev.stall_cursor = (dev.stall_cursor + i) % nr;
		dev.next_stall_ns = now + DEV_STALL_PERIOD_NS;
	}
}

/*
 * Grants waiting too long for their owner: the device context takes them (CAS with the owner).
 * Only the jobs marked in grant_jobs are looked at; a job found with no grant left is unmarked.
 */
static int steal_grants(struct se_domain *d, uint64_t now, struct se_slot **v, int max)
{
	struct se_job *jobs = se_jobs(d);
	int n = 0;

	for (uint32_t w = 0; w < (d->nr_jobs + 63) / 64 && n < max; w++) {
		for (uint64_t bits = d->grant_jobs[w]; bits && n < max; bits &= bits - 1) {
			uint32_t j = w * 64 + (uint32_t)__builtin_ctzll(bits);
			struct se_job *sj = &jobs[j];
			struct se_slot *slots = se_job_slots(d, sj);
			uint32_t *ring = se_at(d, sj->ring);
			uint32_t head, tail;
			bool left = false;

			if (atomic_load(&sj->state) != SE_JOB_ACTIVE || !slots) {
				d->grant_jobs[w] &= ~(1ull << (j % 64));
				continue;
			}
			head = atomic_load_explicit(&sj->ring_head, memory_order_acquire);
			tail = atomic_load_explicit(&sj->ring_tail, memory_order_relaxed);
			for (uint32_t p = head; p != tail; p++) {
				uint32_t e = ring[p % sj->ring_size];
				struct se_slot *slot = &slots[SE_RING_INDEX(e)];
				uint32_t st = SE_SLOT_GRANTED;

				if ((e & SE_RING_DONE) ||
				    atomic_load(&slot->state) != SE_SLOT_GRANTED)
					continue;
				if (slot->grant_ns + SE_GRANT_STEAL_NS > now || n == max ||
				    !atomic_compare_exchange_strong(&slot->state, &st,
								    SE_SLOT_DEV_CLAIMED)) {
					left = true; /* young, no room, or its owner took it now */
					continue;
				}
				atomic_fetch_sub(&d->grants_pending, 1);
				slot->dev_epoch = atomic_load(&d->dev_epoch);
				sj->stolen++;
				d->dev_inflight++;
				v[n++] = slot;
			}
			if (!left)
				d->grant_jobs[w] &= ~(1ull << (j % 64));
		}
	}
	return n;
}

/*
 * A job stopped with requests it issued itself: the kernel completed them long ago, only the
 * job has not looked. The scheduler hears of them now (once); the job still reaps them later.
 */
static bool stalled_jobs(struct se_domain *d, const struct dev_health *hl, uint64_t now,
			 const struct blk_host *h)
{
	struct se_job *jobs = se_jobs(d);
	bool any = false;

	for (uint32_t k = 0; k < hl->nstopped; k++) {
		struct se_job *sj = &jobs[hl->stopped[k]];
		struct se_slot *slots = se_job_slots(d, sj);

		if (!slots || !stale(sj, now))
			continue;
		sj->stalled = true;
		for (uint32_t i = 0; i < sj->nr_slots; i++) {
			struct se_slot *slot = &slots[i];

			if (atomic_load(&slot->state) != SE_SLOT_ISSUED || slot->sched_done ||
			    slot->issue_ns + SE_STALL_NS > now)
				continue;
			slot->sched_done = true;
			sj->early_completions++;
			blk_complete(se_blk(d), &slot->br, now, h);
			any = true;
		}
	}
	return any;
}

/*
 * Requests a dead device context had issued: issue them again. Looked for by a new context until
 * a scan finds fewer than it can take (they all were), not on every pass: the scan reads every
 * slot of every member.
 */
static int reissue_lost(struct se_domain *d, struct se_slot **v, int max)
{
	struct se_job *jobs = se_jobs(d);
	uint32_t epoch = atomic_load(&d->dev_epoch);
	int n = 0;

	if (dev.lost_epoch == epoch)
		return 0;

	for (uint32_t j = 0; j < d->nr_jobs && n < max; j++) {
		struct se_job *sj = &jobs[j];
		struct se_slot *slots = se_job_slots(d, sj);

		for (uint32_t i = 0; slots && i < sj->nr_slots && n < max; i++) {
			struct se_slot *slot = &slots[i];
			uint32_t st = atomic_load(&slot->state);

			if ((st == SE_SLOT_DEV_ISSUED || st == SE_SLOT_DEV_CLAIMED) &&
			    slot->dev_epoch != epoch) {
				slot->dev_epoch = epoch;
				atomic_store(&slot->state, SE_SLOT_DEV_CLAIMED);
				v[n++] = slot;
			}
		}
	}
	if (n < max)
		dev.lost_epoch = epoch;
	return n;
}

/* A request this device context issued completed: the scheduler hears of it, its owner too. */
static void dev_complete(struct se_domain *d, struct se_slot *slot, int64_t res, uint64_t now,
			 const struct blk_host *h, struct se_wake_set *w)
{
	if (atomic_load(&slot->state) != SE_SLOT_DEV_ISSUED) {
		d->stray_completions++;
		return;
	}
	d->dev_inflight--;
	if (!slot->sched_done && !d->degraded)
		blk_complete(se_blk(d), &slot->br, now, h);
	slot->sched_done = true;
	if (slot->pc) {
		se_pc_completed(d, slot, res, now, w);
		return;
	}
	if (slot->orphan) {
		slot->orphan = false;
		atomic_store(&slot->state, SE_SLOT_FREE);
		return;
	}
	slot->res = res;
	se_ring_push(d, slot, SE_SLOT_DONE);
	se_wake_add(w, slot->job);
}

static void issue_claimed(struct se_domain *d, struct se_slot **v, int n, struct se_wake_set *w)
{
	int issued = 0;

	for (int i = 0; i < n; i++) {
		struct se_slot *slot = v[i];
		struct se_io io = {
		    .buf = (char *)d + slot->buf,
		    .len = slot->len,
		    .off = slot->off,
		    .op = slot->op,
		    .sfr_flags = slot->sfr_flags,
		    .blockdev = slot->file < d->nr_files && d->files[slot->file].blockdev,
		    .tag = (uint64_t)(uintptr_t)slot,
		};
		int r;

		io.fd = se_file_fd(d, slot->file);
		slot->issue_ns = se_now_ns();
		atomic_store(&slot->state, SE_SLOT_DEV_ISSUED);
		r = io.fd < 0 ? io.fd : dev.be.ops ? dev.be.ops->issue(&dev.be, &io) : -ENODEV;
		if (r < 0) {
			/* Completed with the error, through the normal path. */
			uint64_t now = se_lock(d);
			struct se_host_ctx c = {.d = d, .w = w, .self = -1, .now = now};
			struct blk_host h;

			se_host_init(&h, &c);
			d->issue_errors++;
			dev_complete(d, slot, r, now, &h, w);
			blk_run(se_blk(d), now, &h);
			se_unlock(d);
			continue;
		}
		issued++;
	}
	if (issued)
		dev.be.ops->flush(&dev.be);
}

/*
 * The lock, whoever holds it. A holder that is stopped (SIGSTOP) would hold every job and the
 * device with it: it is resumed to leave the lock and stops itself again in se_unlock().
 */
static uint64_t dev_lock(struct se_domain *d)
{
	uint64_t now;

	if (dev.in_process)
		return se_lock(d);
	while (!se_lock_timed(d, 2 * SCHED_NS_PER_MS, &now)) {
		pid_t tid = se_lock_holder(d);

		if (tid > 0 && stopped(tid) && !atomic_load(&d->restop_tid)) {
			atomic_store(&d->restop_tid, tid);
			kill(tid, SIGCONT); /* continues its whole process */
		}
	}
	return now;
}

uint64_t se_device_poll(struct se_domain *d, uint64_t now)
{
	struct se_wake_set w;
	struct se_host_ctx c = {.d = d, .w = &w, .self = -1};
	struct se_completion comp[64];
	struct se_slot *claimed[256];
	struct dev_health hl;
	struct blk_host h;
	struct blk_queue *q;
	uint64_t next, pc_next = SCHED_NO_TIMER;
	int nclaimed = 0, n;

	se_wake_init(&w);
	/* Completions of what this context issued. */
	while (dev.be.ops && (n = dev.be.ops->reap(&dev.be, comp, 64)) > 0) {
		uint64_t t = dev_lock(d);

		c.now = t;
		se_host_init(&h, &c);
		for (int i = 0; i < n; i++)
			dev_complete(d, (struct se_slot *)(uintptr_t)comp[i].tag, comp[i].res, t,
				     &h, &w);
		if (!d->degraded)
			blk_run_completed(se_blk(d), t, &h);
		se_unlock(d);
	}

	dev_health(d, now, &hl);
	now = dev_lock(d);
	c.now = now;
	se_host_init(&h, &c);
	q = se_blk(d);
	atomic_store(&d->dev_seen_ns, now);
	d->dev_passes++;
	if (!q || !d->configured) {
		se_unlock(d);
		return now + SE_DEVICE_IDLE_TICK_NS;
	}
	for (uint32_t k = 0; k < hl.ndead; k++)
		se_reap_job_locked(d, hl.dead[k], now);
	if (!d->degraded) {
		/* The completion interrupts the stopped job could not take: then the queue runs. */
		if (stalled_jobs(d, &hl, now, &h))
			blk_run_completed(q, now, &h);
		blk_advance(q, now, &h);
		if (se_pc_on(d)) {
			/* The flusher's timers and work, then the queue runs for what it sent. */
			pc_next = se_pc_device_locked(d, now, &h, &w);
			blk_run(q, now, &h);
			nclaimed = se_pc_claim(d, claimed, 256);
		}
		nclaimed += steal_grants(d, now, claimed + nclaimed, 256 - nclaimed);
		nclaimed += reissue_lost(d, claimed + nclaimed, 256 - nclaimed);
	}
	if (d->members == 0 && d->nr_jobs && !d->dev_inflight && !nclaimed) {
		/* Nobody left: the last member wrote the stats unless it died. */
		if (d->stats_path[0] && !d->stats_writes) {
			sched_stats_sync(q->s, now);
			se_write_stats(d, d->stats_path);
		}
		atomic_store(&d->dev_pid, 0);
		se_unlock(d);
		se_wake_ring(d, &w, -1);
		return UINT64_MAX; /* the context goes */
	}
	next = d->degraded ? SCHED_NO_TIMER : blk_next_event(q);
	atomic_store_explicit(&d->next_event, next, memory_order_relaxed);
	if (pc_next < next)
		next = pc_next;
	if (atomic_load(&d->grants_pending) || d->dev_inflight || nclaimed) {
		if (now + SE_DEVICE_TICK_NS < next)
			next = now + SE_DEVICE_TICK_NS;
	} else {
		struct se_job *jobs = se_jobs(d);
		bool busy = false;

		for (uint32_t j = 0; j < d->nr_jobs && !busy; j++)
			busy = atomic_load(&jobs[j].state) == SE_JOB_ACTIVE &&
			       atomic_load(&jobs[j].nr_issued);
		if (now + (busy ? SE_STALL_NS : SE_DEVICE_IDLE_TICK_NS) < next)
			next = now + (busy ? SE_STALL_NS : SE_DEVICE_IDLE_TICK_NS);
	}
	atomic_store(&d->dev_wake_at, next);
	se_unlock(d);
	se_wake_ring(d, &w, -1);
	if (nclaimed)
		issue_claimed(d, claimed, nclaimed, &w);
	se_file_sweep(d);
	return next;
}

/* ---- the process ---------------------------------------------------------------------------- */

static void device_main(struct se_domain *d)
{
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	uint32_t epoch;

	/* Hold nothing of the fio process that started it: its pipes would not see EOF. */
	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
	}
	if (syscall(SYS_close_range, 3, ~0u, 0)) { /* before 5.9: one by one */
		long max = sysconf(_SC_OPEN_MAX);

		for (long fd = 3; fd < (max > 0 && max < 1 << 20 ? max : 1 << 16); fd++)
			close((int)fd);
	}
	prctl(PR_SET_NAME, "schedengine-dev", 0, 0, 0);
	/*
	 * The kernel runs timers and completions in interrupt context, ahead of any process: the
	 * device context asks for the lowest real-time priority (it sleeps between events and
	 * does little each time), else for a better nice value; without privileges it runs as it
	 * is and its lateness shows in sched_stats (timer_late_ns).
	 */
	{
		struct sched_param sp = {.sched_priority = 1};

		if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp))
			setpriority(PRIO_PROCESS, 0, -10);
	}
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	dev.be.ops = &se_backend_io_uring;
	dev.be.depth = DEV_DEPTH;
	if (dev.be.ops->init(&dev.be) < 0)
		dev.be.ops = NULL; /* it still runs timers; stolen requests fail with ENODEV */
	epoch = atomic_fetch_add(&d->dev_epoch, 1) + 1;
	(void)epoch;
	atomic_store(&d->dev_start, se_task_start(getpid()));
	atomic_store(&d->dev_pid, (int32_t)getpid());
	for (;;) {
		uint32_t seen = se_bell_read(&d->dev_bell);
		uint64_t next = se_device_poll(d, se_now_ns());

		if (next == UINT64_MAX || atomic_load(&d->dev_pid) != (int32_t)getpid())
			break;
		se_bell_sleep_begin(&d->dev_bell);
		if (se_bell_read(&d->dev_bell) == seen) {
			if (dev.be.ops)
				dev.be.ops->wait(&dev.be, &d->dev_bell, seen, next);
			else
				se_bell_wait(&d->dev_bell, seen, next);
		}
		se_bell_sleep_end(&d->dev_bell);
		d->dev_wakeups++;
	}
	_exit(0);
}

/* Starts a device context unless a live one serves d. Under the domain lock. */
void se_device_ensure_locked(struct se_domain *d)
{
	int32_t pid = atomic_load(&d->dev_pid);
	pid_t child;

	if (dev.in_process)
		return;
	if (pid > 0 && se_task_alive(pid, atomic_load(&d->dev_start)))
		return;
	if (pid < 0 && se_now_ns() < (uint64_t)atomic_load(&d->dev_seen_ns) + DEV_START_TIMEOUT_NS)
		return; /* being started */
	atomic_store(&d->dev_pid, -1);
	atomic_store(&d->dev_seen_ns, se_now_ns());
	child = fork();
	if (child < 0) {
		atomic_store(&d->dev_pid, 0);
		fprintf(stderr, "schedengine: cannot start the device context: %s\n",
			strerror(errno));
		return;
	}
	if (child == 0) {
		/* The middle process: the device context must belong to no job and no fio. */
		setsid();
		if (fork() == 0)
			device_main(d);
		_exit(0);
	}
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
}

/*
 * Tests drive se_device_poll() themselves: no process is started, the calling thread is the
 * device context (with a ring of its own for the grants it steals).
 */
int se_device_in_process(bool on)
{
	dev.in_process = on;
	if (on && !dev.be.ops) {
		dev.be.ops = &se_backend_io_uring;
		dev.be.depth = DEV_DEPTH;
		if (dev.be.ops->init(&dev.be) < 0) {
			dev.be.ops = NULL;
			return -1;
		}
	} else if (!on && dev.be.ops) {
		dev.be.ops->exit(&dev.be);
		dev.be.ops = NULL;
	}
	return 0;
}

/* In-process mode: waits for the device context's own I/O (or the deadline). */
void se_device_wait_io(uint64_t deadline)
{
	if (dev.be.ops)
		dev.be.ops->wait(&dev.be, NULL, 0, deadline);
}
