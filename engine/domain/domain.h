/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduler domain: one block layer (blk/) with its policy and device shared by every job of
 * a fio run (fork and thread mode), or by several fio runs that name the same sched_domain.
 *
 * Sharing. One MAP_SHARED region, mapped at the same address in every member (the policy
 * core's trees link by address), holding the header, the block layer, the jobs' request slots
 * and grant rings, the file table and the jobs' I/O buffers. Nothing process-local is stored in
 * it: no function pointer, no file descriptor, no private address. The engine's own parts refer
 * to each other by offsets from its base; the block layer and the policies inside it link by
 * absolute address within the region (valid because every member maps it at the same address,
 * MAP_FIXED_NOREPLACE at the header's base, or refuses). The region is trusted as its owner's:
 * a named domain's file is the caller's, 0600, in a directory of its own (attach.c), so only the
 * same user can change it; the checks of offsets (se_at(): the start within the mapping) catch
 * a damaged header, not a hostile same-user writer.
 *
 * Other local users. Files a job names are reopened elsewhere only if the path still names the
 * file the job registered (files.c); the statistics' temporary file is new (O_EXCL|O_NOFOLLOW);
 * sched_trace does not follow another user's symlink; the directory's lock is a 0600 file of
 * ours; the domain's own memory and the jobs' buffers are backed when allocated (a full
 * /dev/shm is an error, not a SIGBUS; the page cache's frames, up to pagecache_mb, are backed as
 * they are used); pids are compared with their start times (a recycled pid is not the member).
 *
 * Locking. One robust process-shared mutex guards the block layer. A member that dies holding
 * it leaves the domain degraded (scheduler bypassed), never hung.
 *
 * The data path, after blk-mq. A job inserts its requests and runs the queue itself (the
 * submitter's context, as blk_mq_run_hw_queue() does). A request dispatched for its own job is
 * issued by it at once; one dispatched for another job is granted to that job (it holds the
 * buffer's io_u and its file), whose doorbell rings. The device context, a small process of
 * the domain's own that no job's stop or descheduling can hold up, stands for what the kernel
 * does outside any process: it fires the policy's timers and the device model's completions on
 * time, issues a grant its owner has not taken within SE_GRANT_STEAL_NS (the buffers are
 * shared, the files open by path), and completes at the scheduler the requests of a job that
 * is stopped (SIGSTOP) with its I/O done but not reaped.
 */
#ifndef ENGINE_DOMAIN_H
#define ENGINE_DOMAIN_H

#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend.h"
#include "blk.h"
#include "pagecache.h"
#include "devmodel.h"
#include "sched.h"
#include "wake.h"

#define SE_DEFAULT_MAX_JOBS 256u
#define SE_MAX_JOBS_LIMIT   4096u
#define SE_NAME_MAX	    64
#define SE_PATH_MAX	    1024
#define SE_MAX_FILES	    1024u
#define SE_MAX_ATTACH	    1024u
/* Virtual size of a domain; pages are only backed when touched (MAP_NORESERVE). */
#define SE_ARENA_SIZE (64ull << 30)
/* A grant its owner has not taken by then is issued by the device context. */
#define SE_GRANT_STEAL_NS (1ull * SCHED_NS_PER_MS)
/* The device context's tick while requests are outstanding (grants, stalled jobs). */
#define SE_DEVICE_TICK_NS (1ull * SCHED_NS_PER_MS)
/* ... and while nothing is: member liveness. */
#define SE_DEVICE_IDLE_TICK_NS (50ull * SCHED_NS_PER_MS)
/* A job that has not come back for this long is looked at (stopped? dead?). */
#define SE_STALL_NS (10ull * SCHED_NS_PER_MS)
/* A job waiting this long checks that the device context is alive. */
#define SE_JOB_CHECK_NS (200ull * SCHED_NS_PER_MS)

enum se_slot_state {
	SE_SLOT_FREE = 0,
	SE_SLOT_BLK,	     /* in the block layer: waiting for admission, or in the elevator */
	SE_SLOT_GRANTED,     /* dispatched: in its owner's grant ring, to issue */
	SE_SLOT_ISSUED,	     /* issued by its owner */
	SE_SLOT_DEV_CLAIMED, /* a grant the device context took, about to issue */
	SE_SLOT_DEV_ISSUED,  /* issued by the device context */
	SE_SLOT_DONE, /* completed for its owner (model, or the device context): in its ring */
};

/* One request, in shared memory. */
struct se_slot {
	struct blk_rq br; /* first: the block layer's and the policy's view */
	uint32_t job, index;
	_Atomic uint32_t state; /* enum se_slot_state */
	uint32_t file;		/* in the domain's file table */
	uint8_t op;		/* enum se_op */
	bool orphan;		/* its owner left or died: complete it without I/O */
	bool sched_done;	/* the scheduler already heard of its completion */
	bool no_data;		/* a written-back dirty write (writeback=fsync): no io_u */
	bool pc;		/* a page-cache request (pagecache=): no job's, see pcache.c */
	uint32_t sfr_flags;	/* sync_file_range() flags */
	uint32_t dev_epoch;	/* the device context that issued it */
	uint64_t buf;		/* offset of its buffer from the domain's base */
	uint64_t len, off;
	int64_t res; /* bytes or -errno, for DONE */
	uint64_t grant_ns, issue_ns;
};

enum se_job_state {
	SE_JOB_FREE = 0,
	SE_JOB_ACTIVE,
	SE_JOB_GONE, /* left (or reaped): its stats stay */
};

struct se_job {
	_Atomic uint32_t state;
	pid_t pid, tid;
	uint64_t tid_start; /* se_task_start(tid) */
	uint32_t group;
	uint32_t thread_number, subjob; /* fio's */
	uint32_t nr_slots;
	uint32_t ring_size;
	uint64_t slots, ring;	    /* offsets of its slots and its grant ring */
	_Atomic uint32_t ring_head; /* consumer: the owner */
	_Atomic uint32_t ring_tail; /* producers: under the domain lock */
	struct se_bell bell;
	_Atomic uint64_t seen_ns;   /* last time it was in the engine */
	_Atomic uint32_t nr_issued; /* ISSUED by itself, not yet reported */
	_Atomic uint32_t in_model;  /* its requests in the device model now */
	_Atomic uint64_t model_polls; /* waits for a model event that polled the clock */
	uint64_t self_runs;	    /* timeline passes it ran itself (se_advance) with events due */
	_Atomic uint64_t direct_completions; /* io_us completed in fio's queue() */
	bool died, stalled;
	bool pc_leaving; /* past its last I/O, in se_pc_leave_sync() (counted in pc_leaving) */
	uint64_t joined_ns, left_ns;
	uint64_t stolen;	    /* its grants issued by the device context */
	uint64_t early_completions; /* completed at the scheduler while it was stopped */
	uint64_t bypassed; /* degraded: issued without the scheduler (from its queue or new) */
	char name[SE_NAME_MAX];
};

struct se_group {
	char name[SE_NAME_MAX];
	uint32_t weight;
	bool used;
};

/* A file some job does I/O on; each process opens it by path (the device context too). */
struct se_file {
	char path[SE_PATH_MAX];
	uint32_t flags; /* open(2) flags: access mode, O_DIRECT, O_SYNC, O_DSYNC */
	uint32_t refs;	/* jobs that have it open */
	uint32_t gen;	/* bumped when the slot is reused: caches reopen */
	bool blockdev;
	bool pc_held; /* the page cache holds a reference (pagecache=) */
	/* The file the registering job opened: a reopen by path must find the same one (a path
	 * can be renamed or replaced by a symlink after fio opened it: another user's, in a
	 * directory they can write). */
	uint64_t dev, ino;
};

/* A free extent of the buffer heap. */
struct se_buf_free {
	uint64_t off, len;
};
#define SE_BUF_FREE_MAX 4096u

/* What the jobs of a domain must agree on (they share one scheduler and one device). */
struct se_domain_config {
	struct sched_config sched;
	bool has_model;
	struct devmodel_params model;
	uint32_t pc_on; /* pagecache=: 1 + enum pc_profile; 0 none (a zeroed config) */
	uint32_t pc_mb; /* pagecache_mb */
	char pc_tunables[384]; /* "dirty_ratio=40,read_ahead_kb=256": pc_apply_tunables() */
	bool pc_any; /* pagecache=auto, direct jobs only: any page cache of the domain serves */
	uint32_t nomerges; /* queue/nomerges (blk_params) */
	uint32_t max_sectors_kb; /* queue/max_sectors_kb (blk_params; 0: its default, 1280) */
};

struct se_domain {
	char magic[8];
	uint32_t version;
	uint32_t header_size; /* sizeof(struct se_domain) */
	uint64_t size;	      /* of the mapping */
	uint64_t base;	      /* where it is mapped in every member */
	uint32_t creator_uid;
	uint32_t max_jobs;
	pthread_mutex_t lock;
	uint64_t used;	    /* control-area bump allocator (offset) */
	uint64_t buf_start; /* the buffer heap: [buf_start, size) */
	uint32_t nr_buf_free;
	struct se_buf_free buf_free[SE_BUF_FREE_MAX];
	bool configured;
	bool degraded; /* a member died holding the lock: scheduler bypassed */
	char degraded_why[128];
	char name[SE_NAME_MAX];
	char config_job[SE_NAME_MAX]; /* the job whose configuration the domain has */
	char stats_path[SE_PATH_MAX];
	char trace_path[SE_PATH_MAX];
	uint64_t trace_dev, trace_ino; /* the file opened at configure: others' reopens match it */
	bool trace_on;
	bool summary; /* one line on stderr when the last job leaves */
	uint64_t created_ns;
	uint64_t clock; /* the scheduler's time: never goes back, across processes */
	struct se_domain_config cfg;
	uint64_t blk;	  /* offset of the block layer (struct blk_queue) */
	uint64_t jobs;	  /* offset of struct se_job[max_jobs] */
	uint32_t members; /* jobs active now */
	uint32_t pc_leaving; /* members past their last I/O (se_pc_leave_sync()) */
	uint32_t nr_jobs; /* job slots handed out (never reused: stats stay per job) */
	uint32_t nr_files;
	struct se_file files[SE_MAX_FILES];
	struct se_group groups[SCHED_MAX_GROUPS];
	/* Processes that map it (named domains): the file goes when the last one unmaps. */
	uint32_t nr_attached;
	pid_t attached[SE_MAX_ATTACH];
	uint64_t attached_start[SE_MAX_ATTACH]; /* se_task_start() of each */
	/* The device context. */
	_Atomic int32_t dev_pid;    /* 0: none, -1: starting */
	_Atomic uint64_t dev_start; /* its se_task_start(), stored before dev_pid */
	_Atomic int32_t restop_tid; /* a job resumed only to leave the lock: it stops again */
	_Atomic uint32_t dev_epoch;
	_Atomic uint64_t dev_seen_ns;
	_Atomic uint64_t dev_wake_at; /* when it will look again: an earlier event rings it */
	/* The block layer's next event (model completion or policy timer) as the last pass left
	 * it: a job waiting for a model completion sleeps until then and runs it itself. */
	_Atomic uint64_t next_event;
	struct se_bell dev_bell;
	_Atomic uint32_t grants_pending; /* GRANTED, not yet taken */
	/* Jobs that may hold a grant not yet taken: set when one is pushed, cleared by the device
	 * context when it finds none (both under the lock), so its steal scan visits those jobs
	 * only, not every member on every pass. */
	uint64_t grant_jobs[SE_MAX_JOBS_LIMIT / 64];
	uint32_t dev_inflight;		 /* DEV_ISSUED */
	uint64_t dev_wakeups, dev_passes;
	/* The page cache (pagecache=, pcache.c); offsets, 0 when off. */
	uint64_t pc;	    /* struct pc */
	uint64_t pc_frames; /* cache_bytes of page frames (real I/O only) */
	uint64_t pc_slots;  /* struct se_slot[pc_nslots]: its requests */
	uint64_t pc_reqs;   /* struct se_pc_req[pc_nslots] */
	uint64_t pc_bounce; /* pc_nslots x max request bytes: the O_DIRECT buffers */
	uint64_t pc_tasks;  /* struct se_pc_task[max_jobs + flushers]; the flushers last */
	uint32_t pc_nslots, pc_free, pc_bounce_len;
	uint32_t pc_flusher_owner; /* wb 0's flusher's block-layer owner (max_jobs); wb w's + w */
	uint64_t pc_slot_waits;	   /* a pc request had to wait for a free slot */
	bool pc_congested;	   /* the async list's congestion flag as last told */
	/* Counters. */
	uint64_t bypass_dispatched;
	uint64_t stray_completions; /* completions of requests not issued: must stay 0 */
	uint64_t issue_errors;
	uint64_t stats_writes;
};

/* What differs between two configurations (a: theirs, b: mine) as one clause naming the first
 * difference with both values ("slice_idle: 0 here, 8 in the domain"); "" when none. */
void se_config_diff(const struct se_domain_config *a, const struct se_domain_config *b,
		    const char *mine, const char *theirs, char *out, size_t len);

/* What a job brings when it joins. */
/*
 * The system call fio's ioengine makes for a job's batch (the engine's backend), which decides
 * whether the batch is plugged: the kernel's submission paths plug only batches of more than
 * 2 I/Os, and a pread()/pwrite() of one bio none.
 */
enum se_submit_path {
	SE_SUBMIT_IO_URING = 0, /* io_submit_sqes(): state->need_plug = max_ios > 2 */
	SE_SUBMIT_LIBAIO,	/* io_submit(): nr > AIO_PLUG_THRESHOLD */
	SE_SUBMIT_PSYNC,	/* __blkdev_direct_IO_simple() (one bio): no plug */
};
/* fs/aio.c AIO_PLUG_THRESHOLD; io_uring's need_plug has the same 2. */
#define SE_AIO_PLUG_THRESHOLD 2

/* Whether a batch of n I/Os through path is submitted under a plug. */
static inline bool se_batch_plugged(enum se_submit_path path, int n)
{
	return path != SE_SUBMIT_PSYNC && n > SE_AIO_PLUG_THRESHOLD;
}

struct se_join_params {
	struct se_domain_config cfg; /* the scheduler it expects (the first job configures) */
	const char *group;	     /* NULL or "" = root */
	uint32_t weight;	     /* 0 = not given */
	uint32_t nr_slots;	     /* iodepth (+ dirty slots) */
	const char *name;
	uint32_t thread_number, subjob;
	const char *stats_path; /* NULL = none */
	const char *trace_path; /* NULL = none */
	bool summary;		/* one line on stderr when the last job leaves */
	uint32_t max_jobs;	/* capacity of a domain this job creates (0: default) */
	enum se_submit_path submit_path; /* its batches' system call (0: io_uring) */
};

/* A member job's process-local view. */
struct se_member {
	struct se_domain *d;
	uint32_t job;
	struct se_job *sj;
	struct se_slot *slots;
	const struct blk_ioc *ioc; /* its io_context in the block layer (waits for requests) */
	enum se_submit_path submit_path;
};

/* Addresses from offsets: the start checked against the mapping (not the length). */
static inline void *se_at(const struct se_domain *d, uint64_t off)
{
	return off && off < d->size ? (char *)d + off : NULL;
}

static inline struct blk_queue *se_blk(const struct se_domain *d)
{
	return se_at(d, d->blk);
}

static inline struct se_job *se_jobs(const struct se_domain *d)
{
	return se_at(d, d->jobs);
}

static inline struct se_slot *se_job_slots(const struct se_domain *d, const struct se_job *j)
{
	return se_at(d, j->slots);
}

/* Its start time (/proc/PID/stat's starttime, clock ticks since boot), 0 when unreadable. */
uint64_t se_task_start(pid_t tid);
/* Alive, not a zombie, and the task that had that start time (when both are known): a pid
 * recycled for another process (another user's, cycling pids) is not the member that died. */
bool se_task_alive(pid_t tid, uint64_t start);
/* /proc/PID/stat's state letter ('X' gone, '?' unreadable), without malloc or stdio. */
char se_task_state(pid_t tid);
/* "schedengine: ..." and a newline on stderr, without malloc or stdio (the device context). */
void se_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- attach (attach.c) ---- */
struct se_attach_params {
	const char *name; /* NULL or "": the run's default domain */
	const char *dir;  /* named domains: NULL = the caller's private directory */
	uint32_t max_jobs;
};
/* The run's domain (created when the engine is loaded, inherited by fork), or NAME. */
struct se_domain *se_domain_attach(const struct se_attach_params *p, char *err, size_t errlen);
/* Would attaching work? The checks of a named domain's directory, file and header, without
 * creating or mapping anything (fio's parent, before any I/O). 0, or -1 with a message. */
int se_domain_check(const struct se_attach_params *p, char *err, size_t errlen);
/* This process no longer uses d (named domains: unmapped, the file removed by the last). */
void se_domain_detach(struct se_domain *d);
/* The private directory named domains live in by default (created 0700 if missing). */
int se_domain_default_dir(char *buf, size_t len, char *err, size_t errlen);
/* Builds a domain in anonymous memory of this process (tests, the simulator's cells). */
struct se_domain *se_domain_private(uint64_t size, uint32_t max_jobs, char *err, size_t errlen);
void se_domain_private_free(struct se_domain *d);
/* Sets up the header of a fresh region. */
int se_domain_init(struct se_domain *d, uint64_t size, const char *name, uint32_t max_jobs);

/* ---- membership and the data path (domain.c) ---- */
int se_join(struct se_domain *d, const struct se_join_params *p, struct se_member *m, char *err,
	    size_t errlen);
void se_leave(struct se_member *m);
/* The clock every member reads (CLOCK_MONOTONIC; tests may replace it). */
typedef uint64_t (*se_clock_fn)(void);
void se_set_clock(se_clock_fn fn);

/* Backs [p, p + len) of the domain with memory now (MADV_POPULATE_WRITE): a named domain's
 * file system being full (another user filled /dev/shm) is an error here, -ENOMEM or -EFAULT,
 * instead of a SIGBUS at the first touch. 0 when backed (or on kernels before 5.14). */
int se_populate(void *p, uint64_t len);
/* Registers a file the job does I/O on, open as fd; returns its index or -1 (err set). */
int se_file_register(struct se_domain *d, const char *path, uint32_t flags, bool blockdev, int fd,
		     char *err, size_t errlen);
void se_file_release(struct se_domain *d, uint32_t file);
/* Is file index idx registered for path (under the domain lock: another job may register)? */
bool se_file_is(struct se_domain *d, uint32_t idx, const char *path);
/* This process's descriptor for a registered file (opened by path on first use), or -errno:
 * -ESTALE when the path no longer names the file the job registered. */
int se_file_fd(struct se_domain *d, uint32_t file);

/* Buffers of a job's io_us, from the domain's buffer heap (fio's iomem_alloc). */
/* A job's buffers, backed (se_populate()); NULL with errno ENOMEM (no room) or ENOSPC. */
void *se_buf_alloc(struct se_domain *d, uint64_t len);
void *se_buf_alloc_locked(struct se_domain *d, uint64_t len);
void se_buf_free(struct se_domain *d, void *p, uint64_t len);

/*
 * Inserts n prepared slots (rq filled), runs the queue. Requests dispatched for this job are
 * returned in mine (up to max) to issue now (state ISSUED), with those a device model completed
 * in the same pass (state DONE, res set); the count is the return value.
 */
int se_submit(struct se_member *m, struct se_slot **v, int n, struct se_slot **mine, int max);
/*
 * Reports n finished slots this job issued (their res set); runs the queue. Requests now
 * dispatched for this job come back in mine as above.
 */
int se_complete(struct se_member *m, struct se_slot **v, int n, struct se_slot **mine, int max);
/*
 * Runs the device timeline up to now in this job's context (model completions and policy
 * timers due), as the device context would; requests completed or dispatched for this job come
 * back in mine as above.
 */
int se_advance(struct se_member *m, struct se_slot **mine, int max);
/* When the block layer's next event is due (UINT64_MAX: none known). */
static inline uint64_t se_next_event(const struct se_member *m)
{
	return atomic_load_explicit(&m->d->next_event, memory_order_relaxed);
}
/*
 * Pops up to max entries of this job's ring: grants to issue (state ISSUED on return) and
 * requests completed for it (state DONE, res set). Lock-free.
 */
int se_pop(struct se_member *m, struct se_slot **v, int max);
/* Something in this job's ring (inline: the glue asks before every pop, per request). */
static inline bool se_has_ring_work(const struct se_member *m)
{
	return atomic_load_explicit(&m->sj->ring_head, memory_order_relaxed) !=
	       atomic_load_explicit(&m->sj->ring_tail, memory_order_acquire);
}
/* True while some request of this job waits for admission (nr_requests / tags). */
static inline bool se_blocked(const struct se_member *m)
{
	return __atomic_load_n(&m->ioc->nr_waiting, __ATOMIC_RELAXED) != 0;
}
/* The job is in the engine now (its heartbeat). */
static inline void se_touch(struct se_member *m, uint64_t now)
{
	atomic_store_explicit(&m->sj->seen_ns, now, memory_order_relaxed);
}
/* Checks that the device context is alive, restarting it if not. */
void se_check_device(struct se_member *m);
/* Writes the sched_stats JSON now (also done when the last member leaves). */
int se_write_stats(struct se_domain *d, const char *path);

/* ---- the device context (device.c) ---- */
/* Makes sure a device context serves d (under the lock). */
void se_device_ensure_locked(struct se_domain *d);
/*
 * One pass of the device context at now: timers and model events due, grants to steal,
 * stalled jobs. Returns when it wants to run next. Used by the device process's loop and,
 * with a controlled clock, by tests.
 */
uint64_t se_device_poll(struct se_domain *d, uint64_t now);
/* Tests: the calling thread is the device context (no process); returns -1 without a ring. */
int se_device_in_process(bool on);
/* In-process mode: waits for the device context's own I/O to complete, or the deadline. */
void se_device_wait_io(uint64_t deadline);

/* ---- internal, shared by domain.c and device.c ---- */
/* The jobs to ring after the unlock. Only the words of bits[] named in `words` hold anything:
 * starting a set costs two stores, not 512 bytes of zeroes on every lock hold. */
struct se_wake_set {
	bool device;
	uint64_t words; /* bit i: bits[i] is in use (jobs 64i..64i+63) */
	uint64_t bits[SE_MAX_JOBS_LIMIT / 64];
};
_Static_assert(SE_MAX_JOBS_LIMIT / 64 <= 64, "se_wake_set.words has a bit per word");
static inline void se_wake_init(struct se_wake_set *w)
{
	w->device = false;
	w->words = 0;
}
uint64_t se_lock(struct se_domain *d);
/* The lock within timeout_ns, or false (nothing taken): the device context's watchdog. */
bool se_lock_timed(struct se_domain *d, uint64_t timeout_ns, uint64_t *now);
void se_unlock(struct se_domain *d);
/* The thread holding the lock (0: none); the robust futex word carries its tid. */
pid_t se_lock_holder(const struct se_domain *d);
void se_wake_add(struct se_wake_set *w, uint32_t job);
void se_wake_ring(struct se_domain *d, const struct se_wake_set *w, int self);
/* The block layer's callbacks for a pass on behalf of `self` (-1: the device context). */
struct se_host_ctx {
	struct se_domain *d;
	struct se_wake_set *w;
	int self;
	struct se_slot **mine; /* dispatched for self: to issue */
	int nmine, max;
	const struct blk_host *h;
	uint64_t now;
};
void se_host_init(struct blk_host *h, struct se_host_ctx *c);
void se_ring_push(struct se_domain *d, struct se_slot *slot, uint32_t state);
/* A ring entry: the slot index, and whether it says "done" (else "granted"). A grant the device
 * context took leaves its entry behind, which the owner skips when it sees the slot's state. */
#define SE_RING_DONE	 (1u << 31)
#define SE_RING_INDEX(e) ((e) & ~SE_RING_DONE)
/* Releases the requests of members that died: all of them, or job j if it did (its liveness is
 * read again under the lock). */
void se_reap_dead_locked(struct se_domain *d, uint64_t now);
void se_reap_job_locked(struct se_domain *d, uint32_t j, uint64_t now);

/* ---- the page cache (pcache.c), pagecache=on ---- */
/* A page-cache task's state beside the model's: woken by it, parked in get_request(). */
struct se_pc_task {
	_Atomic uint32_t woken;
	uint32_t parked; /* requests waiting for admission */
	bool pulling;	 /* PC_SUBMIT: requests to pull */
};
/* Per page-cache request slot: the model's descriptor and the free list. */
struct se_pc_req {
	struct pc_io io;
	uint32_t task; /* the issuing task (pc_flusher() for the flusher) */
	uint32_t next_free;
};
static inline bool se_pc_on(const struct se_domain *d)
{
	return d->pc != 0;
}
int se_pc_configure_locked(struct se_domain *d, uint64_t now, char *err, size_t errlen);
/* The page cache's flushers, each a block-layer owner after the jobs' (max_jobs + wb): one per
 * blkio group with cgroup writeback (the 6.12 profile), else one; 0 without the cache. */
uint32_t se_pc_nr_flushers(const struct se_domain_config *cfg);
void se_pc_join_locked(struct se_domain *d, uint32_t job, uint32_t group);
int se_pc_file_open(struct se_domain *d, uint32_t file, uint64_t size);
void se_pc_fadvise(struct se_domain *d, uint32_t job, uint32_t file, bool random);
enum se_pc_call {
	SE_PC_READ = 0,
	SE_PC_WRITE,
	SE_PC_FSYNC,
	SE_PC_TRUNCATE,	  /* unlink (fio's unlink_each_loop): the file's pages go */
	SE_PC_INVALIDATE, /* POSIX_FADV_DONTNEED (fio's invalidate=1) */
};
/* A buffered system call of the job, done synchronously (the job sleeps as its task does).
 * Returns the bytes done, or -errno. */
int64_t se_pc_call(struct se_member *m, enum se_pc_call call, uint32_t file, uint64_t off,
		   uint64_t len, void *buf);
/* The block layer dispatched a page-cache request (under the lock, in c's pass). */
void se_pc_dispatched(struct se_host_ctx *c, struct se_slot *slot);
/* A page-cache request completed (res: bytes or -errno; under the lock). */
void se_pc_completed(struct se_domain *d, struct se_slot *slot, int64_t res, uint64_t now,
		     struct se_wake_set *w);
/* A page-cache request waiting for admission got in. */
void se_pc_admitted(struct se_domain *d, struct se_slot *slot, struct se_wake_set *w);
/* The device context's part: the flusher's timers and work; returns the page cache's next
 * event (SCHED_NO_TIMER: none). Under the lock. */
uint64_t se_pc_device_locked(struct se_domain *d, uint64_t now, const struct blk_host *h,
			     struct se_wake_set *w);
/* Grants of page-cache requests for the device context to issue (under the lock). */
int se_pc_claim(struct se_domain *d, struct se_slot **v, int max);
struct se_out;
void se_pc_stats_json(const struct se_domain *d, struct se_out *f);
/* The last member writes back what is dirty before it leaves. */
void se_pc_leave_sync(struct se_member *m);

#endif
