/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduler domain: one scheduler shared by every job of a fio run (fork and thread mode),
 * or by several fio runs that name the same sched_domain.
 *
 * It lives in one MAP_SHARED region mapped at the same address in every member, so the policy
 * core's pointers stay valid everywhere. One robust process-shared mutex guards the scheduler;
 * a job killed while holding it leaves the domain degraded (scheduler bypassed), never hung.
 *
 * Whoever holds a request's buffer issues it: a dispatch by any member becomes a *grant* pushed
 * to the owning job's grant ring; the owner pops it, issues it to its backend and reports the
 * completion. A job that waits publishes `sleeping` and is woken through its doorbell (an
 * eventfd that its backend also signals), so neither grants nor completions are lost.
 */
#ifndef ENGINE_DOMAIN_H
#define ENGINE_DOMAIN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "devmodel.h"
#include "sched.h"

#define SE_MAX_JOBS SCHED_MAX_ENTITIES
#define SE_NAME_MAX 64
#define SE_PATH_MAX 1024
/* Virtual size of a domain; pages are only backed when touched (MAP_NORESERVE). */
#define SE_ARENA_SIZE (256ull << 20)
/* A waiting job wakes at least this often to check that the other members are alive. */
#define SE_LIVENESS_TICK_NS (100ull * SCHED_NS_PER_MS)

enum se_slot_state {
	SE_SLOT_FREE = 0,
	SE_SLOT_WAITING, /* no request free (nr_requests): waits to be admitted */
	SE_SLOT_QUEUED,	 /* inside the scheduler */
	SE_SLOT_GRANTED, /* dispatched: in the owner's grant ring */
	SE_SLOT_ISSUED,	 /* the owner gave it to its backend, or it is in the device model */
	SE_SLOT_DONE,	 /* the device model completed it: in the owner's ring, to hand to fio */
};

/* One request slot, in shared memory. rq must stay first (container_of from the core). */
struct se_slot {
	struct sched_request rq;
	uint32_t job;
	uint32_t index;
	_Atomic uint32_t state;
	bool orphan;	/* owner died while it was queued: complete it on dispatch */
	bool counted_sync; /* which nr_requests list it was allocated from */
	struct sched_list wait; /* on the domain's admission list while WAITING */
	uint64_t issue_ns;
	void *io_u;	/* the owner's io_u: valid in the owner's address space only */
};

enum se_job_state {
	SE_JOB_FREE = 0,
	SE_JOB_ACTIVE,
	SE_JOB_GONE, /* left (or reaped): its stats stay */
};

struct se_job {
	_Atomic uint32_t state;
	pid_t pid;
	int efd;	/* doorbell eventfd, a number in the owner's fd table */
	uint32_t group;
	uint32_t thread_number, subjob;
	uint32_t nr_slots;
	bool died;
	char name[SE_NAME_MAX];
	struct se_slot *slots;
	uint32_t *grant_ring;
	_Atomic uint32_t grant_head; /* consumer: the owner */
	_Atomic uint32_t grant_tail; /* producers: whoever holds the domain lock */
	_Atomic int sleeping;
	_Atomic uint64_t wake_at;   /* the sleeper's deadline, for timer hand-off */
	uint64_t joined_ns, left_ns;
	_Atomic uint64_t doorbells; /* times others rang it */
	_Atomic uint32_t nr_waiting; /* its requests waiting for nr_requests */
	uint32_t nr_batch;	     /* ioc->nr_batch_requests: allocations left in its batch */
	uint64_t last_waited;	     /* ioc->last_waited: when its batch started */
};

struct se_group {
	char name[SE_NAME_MAX];
	uint32_t weight;
	bool used;
};

struct se_domain {
	uint64_t magic;
	uint32_t version;
	pthread_mutex_t lock;
	void *base;		/* where the region is mapped in every member */
	uint64_t size;
	uint64_t used;		/* bump allocator over the region */
	bool configured;
	bool degraded;		/* a member died holding the lock: scheduler bypassed */
	char degraded_why[128];
	char name[SE_NAME_MAX];
	char stats_path[SE_PATH_MAX];
	uint64_t created_ns;
	uint64_t clock;		/* the scheduler's time: never goes back, across processes */
	struct sched_config cfg;
	struct sched *sched;
	uint64_t next_timer;	/* earliest of the policy's timer and the model's next event */
	_Atomic int timekeeper;	/* the sleeping job that wakes for next_timer, -1 none */
	struct devmodel *model;	/* NULL: real I/O through the backends */
	struct devmodel_params model_params;
	uint64_t model_completions;
	/* The legacy block layer's request allocation: nr_requests per sync/async list. */
	uint32_t nr_requests;	/* 0: unlimited */
	uint32_t allocated[2];	/* [async, sync]: queued in the scheduler or in the device */
	struct sched_list waiting[2];
	bool rl_full[2];	/* blk_rl_full(): the list filled; only batchers and MUST go on */
	uint32_t max_allocated[2];
	uint64_t admission_waits;
	uint64_t admitted_batching; /* allocated past a full list by a batcher */
	uint64_t admitted_must;	/* allocated past a full list by the policy's ELV_MQUEUE_MUST */
	uint32_t max_waiting, nr_waiting;
	bool trace_on;
	char trace_path[SE_PATH_MAX];
	uint32_t members;	/* jobs active now */
	uint32_t nr_jobs;	/* job slots handed out (never reused: stats stay per job) */
	uint64_t bypass_dispatched;
	uint64_t stray_completions; /* completions of requests not issued: must stay 0 */
	uint64_t stats_writes;
	struct se_job jobs[SE_MAX_JOBS];
	struct se_group groups[SCHED_MAX_GROUPS];
};

/* What a job brings when it joins. */
struct se_join_params {
	struct sched_config cfg;	/* the scheduler it expects (the first job configures) */
	const char *group;		/* NULL or "" = root */
	uint32_t weight;		/* 0 = not given */
	uint32_t nr_slots;		/* iodepth */
	const char *name;
	uint32_t thread_number, subjob;
	const char *stats_path;		/* NULL = none */
	const char *trace_path;		/* NULL = none */
	const struct devmodel_params *model; /* NULL = real I/O */
	uint32_t nr_requests;		/* 0 = unlimited */
	int efd;
};

/* A member job's process-local view. */
struct se_member {
	struct se_domain *d;
	uint32_t job;
	struct se_job *sj;
	bool liveness_wait; /* the current sleep ends at the liveness tick, not at a timer */
};

/* The run's default domain (created when the engine is loaded, inherited by fork) or NAME. */
struct se_domain *se_domain_attach(const char *name, char *err, size_t errlen);
int se_join(struct se_domain *d, const struct se_join_params *p, struct se_member *m, char *err,
	    size_t errlen);
void se_leave(struct se_member *m);

uint64_t se_now_ns(void);
/* Inserts n prepared slots (their rq filled), dispatches, hands out grants. */
void se_submit(struct se_member *m, struct se_slot **v, int n);
/* Reports n finished slots, dispatches, hands out grants. */
void se_complete(struct se_member *m, struct se_slot **v, int n);
/* Pops up to max of this job's grants. Lock-free. */
int se_pop_grants(struct se_member *m, struct se_slot **v, int max);
bool se_has_grants(const struct se_member *m);
/* True while some request of this job waits for a free request (nr_requests). */
static inline bool se_blocked(const struct se_member *m)
{
	return atomic_load(&m->sj->nr_waiting) != 0;
}
/*
 * Before blocking: runs due timers, publishes `sleeping`, and returns false when grants arrived
 * meanwhile (do not sleep). Otherwise *deadline is when to wake at the latest.
 */
bool se_sleep_begin(struct se_member *m, uint64_t *deadline);
/* After blocking; a timed-out liveness wait checks that the other members are alive. */
void se_sleep_end(struct se_member *m, bool timed_out);
/* Writes the sched_stats JSON now (also done when the last member leaves). */
int se_write_stats(struct se_domain *d, const char *path);

#endif
