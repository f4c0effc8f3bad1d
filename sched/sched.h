/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The policy core: a userspace elevator. Pure and deterministic: no threads, no syscalls, no
 * clock of its own. Time is an argument in nanoseconds, so the same code runs under the engine in
 * real time and under tests in virtual time.
 *
 * Model (the kernel's elevator, block/elevator.h and blk-mq-sched):
 *   submitter -> sched_insert() -> policy queues
 *   device has room -> sched_dispatch() -> one request goes to the device (in flight)
 *   device finishes -> sched_completed()
 *   policy timers (slice_idle, group_idle, ...) -> sched_next_timer() tells when,
 *   the caller calls sched_run_timer() at or after that time, then dispatches again.
 *
 * All state lives in one caller-provided block of memory (sched_size() bytes) with no pointers
 * out of it, so the engine can place it in memory shared by every fio job of a run.
 */
#ifndef SCHED_SCHED_H
#define SCHED_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "list.h"
#include "rbtree.h"
#include "trace.h"

#define SCHED_NO_TIMER UINT64_MAX
#define SCHED_NR_REQUESTS_AUTO UINT32_MAX
#define SCHED_NS_PER_MS 1000000ull
#define SCHED_NS_PER_US 1000ull
#define SCHED_SECTOR_SHIFT 9
/*
 * The kernel's jiffies, for what the schedulers time in jiffies (mq-deadline's FIFO deadlines,
 * BFQ's and the old CFQ's timeouts): HZ 250 as distribution kernels build it, counted from the
 * clock passed in (jiffies = ns / SCHED_JIFFY_NS).
 */
#define SCHED_HZ 250
#define SCHED_JIFFY_NS (1000000000ull / SCHED_HZ)
static inline uint64_t sched_jiffies(uint64_t ns)
{
	return ns / SCHED_JIFFY_NS;
}
/* msecs_to_jiffies(): rounds up. */
static inline uint64_t sched_msecs_to_jiffies(uint64_t ms)
{
	return (ms * SCHED_HZ + 999) / 1000;
}

/* ioprio classes, the kernel's values (include/uapi/linux/ioprio.h). */
enum sched_ioprio_class {
	SCHED_IOPRIO_CLASS_NONE = 0,
	SCHED_IOPRIO_CLASS_RT = 1,
	SCHED_IOPRIO_CLASS_BE = 2,
	SCHED_IOPRIO_CLASS_IDLE = 3,
};
#define SCHED_IOPRIO_NR_LEVELS 8
#define SCHED_IOPRIO_DEFAULT_LEVEL 4

enum sched_op {
	SCHED_OP_READ = 0,
	SCHED_OP_WRITE = 1,
	SCHED_OP_FLUSH = 2,	/* fsync/fdatasync: a sync write-direction request */
	SCHED_OP_DISCARD = 3,	/* trim */
	SCHED_OP_NR,
};

/* Request flags, named after the kernel's REQ_* bits they stand for. */
enum sched_rq_flags {
	SCHED_RQ_SYNC = 1u << 0, /* REQ_SYNC: reads, O_DIRECT writes, flushes */
	SCHED_RQ_IDLE = 1u << 1, /* REQ_IDLE: a sync write that does not expect more I/O soon */
	SCHED_RQ_META = 1u << 2, /* REQ_META */
};

/*
 * Per-request private linkage of the policies. Opaque to the core and to the engine; sized for
 * the largest policy (a tree node, a FIFO link, the owning queue and a deadline).
 */
struct sched_rq_private {
	struct sched_rb_node rb;
	struct sched_list fifo;
	void *queue;
	uint64_t fifo_time;
	uint64_t aux;
};

/*
 * One request. Storage belongs to the submitter and must stay valid from sched_insert() until
 * sched_completed() returns.
 */
struct sched_request {
	/* Set by the submitter before sched_insert(). */
	uint32_t owner;		/* scheduling entity: one fio job (the kernel's io_context) */
	uint32_t group;		/* blkio group index, 0 = root */
	uint8_t prio_class;	/* enum sched_ioprio_class; NONE = derive like the kernel */
	uint8_t prio_level;	/* 0 (highest) .. 7 */
	uint8_t op;		/* enum sched_op */
	uint8_t flags;		/* enum sched_rq_flags */
	uint64_t length;	/* bytes */

	/* Set by the core. */
	uint64_t insert_ns;
	uint64_t dispatch_ns;

	/* Set by the submitter. Just before the sort-tree node: a descent reads the node's links
	 * and this key, and with thousands of requests queued (the async queue of bfq rw30 at
	 * 4096 owners) each level is a cold request, one line where it was often two. */
	uint64_t offset; /* bytes */
	struct sched_rq_private priv;
};

static inline uint64_t sched_rq_pos(const struct sched_request *rq)
{
	return rq->offset >> SCHED_SECTOR_SHIFT; /* blk_rq_pos(): 512-byte sectors */
}

static inline uint64_t sched_rq_sectors(const struct sched_request *rq)
{
	return (rq->length + (1u << SCHED_SECTOR_SHIFT) - 1) >> SCHED_SECTOR_SHIFT;
}

static inline bool sched_rq_is_sync(const struct sched_request *rq)
{
	/* Flushes are always sync, as REQ_PREFLUSH requests are in the kernel. */
	return rq->op == SCHED_OP_READ || rq->op == SCHED_OP_FLUSH || (rq->flags & SCHED_RQ_SYNC);
}

/* Data direction as the schedulers see it: reads vs everything else. */
static inline int sched_rq_dir(const struct sched_request *rq)
{
	return rq->op == SCHED_OP_READ ? 0 : 1;
}

/* How a bio joins a queued request (the kernel's enum elv_merge). */
enum sched_merge {
	SCHED_NO_MERGE = 0,
	SCHED_FRONT_MERGE, /* the bio ends where the request starts: the request's sector moves */
	SCHED_BACK_MERGE,  /* the bio starts where the request ends */
};

/*
 * How requests are allocated in front of a policy (the block layer's two halves):
 * LEGACY  the single-queue block layer of CFQ's time: nr_requests per sync/async list,
 *         ioc batching and the elevator's may_queue (ELV_MQUEUE_MUST);
 * MQ      blk-mq with an elevator: one pool of nr_requests scheduler tags, each policy's
 *         limit_depth() restricting the depth some requests may use (BFQ, mq-deadline).
 */
enum sched_blk_mode {
	SCHED_BLK_DEFAULT = 0, /* the policy's own (ops->blk_mode) */
	SCHED_BLK_LEGACY,
	SCHED_BLK_MQ,
};

/* The queue's merge limits, for a policy with its own merge core (core_bio_merge). */
struct sched_merge_limits {
	uint32_t nomerges;	/* queue/nomerges 0..2 */
	uint32_t max_segments;	/* queue/max_segments */
	uint64_t max_sectors;	/* queue/max_sectors_kb, in 512-byte sectors */
	uint32_t segment_shift; /* a bio's segments: the pages of 1 << segment_shift it touches */
};

/* What a merge core did: the request a bio (or an inserted request) joined and how, then the
 * request-into-request merges that followed, in order (next joined into[i] and is freed). A
 * chain (elv_attempt_insert_merge()'s loop) joins requests of a segment or more each into one
 * of at most max_segments, which blk/ keeps at or below SCHED_MERGE_CHAIN: 127 merges at most.
 * (8 lost the ninth merge of a chain: deadline_4_19 stream 8841 of seed 3.) */
#define SCHED_MERGE_CHAIN 128
struct sched_merge_out {
	struct sched_request *rq;
	enum sched_merge type;
	uint32_t nr;
	struct sched_request *into[SCHED_MERGE_CHAIN], *next[SCHED_MERGE_CHAIN];
};

enum sched_policy_id {
	SCHED_POLICY_NONE = 0,
	SCHED_POLICY_DEADLINE,
	SCHED_POLICY_CFQ,
	SCHED_POLICY_BFQ,
	SCHED_POLICY_KYBER,
	SCHED_POLICY_NR,
};

/*
 * A policy tunable: the kernel's sysfs name, unit and range. Value 0 of a flag is "off".
 * Unit "version": a kernel version written "M.m" (M*100+m) or "M.m.p" (M*10000+m*100+p: 2.6.x
 * kernels), one of versions[] (oldest first, 0-terminated); min and max are its first and last.
 */
struct sched_tunable_desc {
	const char *name;
	const char *unit;	/* "ms", "us", "KiB", "" */
	int64_t min, max, def;
	const char *help;
	const int64_t *versions; /* unit "version" only */
};

/* A version code as it is written ("4.19", "2.6.32") into buf; returns buf. */
const char *sched_version_str(int64_t v, char *buf, size_t len);
/* The versions of d, written "4.1, 4.19" (the last one joined by " or "), into buf. */
const char *sched_versions_list(const struct sched_tunable_desc *d, char *buf, size_t len);

#define SCHED_MAX_TUNABLES 96
/*
 * SCHED_MAX_ENTITIES is the default max_entities and the engine's limit (jobs per domain; the
 * statistics of owners below it live in struct sched_stats). The core itself accepts up to
 * SCHED_CORE_MAX_ENTITIES (simulators, benchmarks): the statistics of owners from
 * SCHED_MAX_ENTITIES up live after the policy state, sized by max_entities.
 */
#define SCHED_MAX_ENTITIES 256
#define SCHED_CORE_MAX_ENTITIES 65536
#define SCHED_MAX_GROUPS 64
/* Group weights (blkio.weight) of policies that give no range of their own (CFQ's). */
#define SCHED_WEIGHT_MIN 10
#define SCHED_WEIGHT_MAX 1000
#define SCHED_WEIGHT_DEFAULT 500

/*
 * Which code runs the policy: its port in sched/ (the engine's, always), or the kernel's own
 * scheduler file compiled in userspace behind the oracle's shim (oracle/), which is only linked
 * into the oracle's binaries: they define sched_kernel_policy_table; elsewhere it is absent (a
 * weak reference) and SCHED_IMPL_KERNEL is refused. The configuration (tunables, weights, modes)
 * is the policy's either way: both run from the same sched_config.
 */
enum sched_impl {
	SCHED_IMPL_EMBEDDED = 0,
	SCHED_IMPL_KERNEL,
};

struct sched_config {
	enum sched_policy_id policy;
	uint8_t impl;			/* enum sched_impl */
	uint32_t hw_queue_depth;	/* device tags: at most this many in flight */
	bool rotational;		/* the queue's rotational flag */
	enum sched_blk_mode blk_mode;	/* DEFAULT: the policy's */
	/* queue/nr_requests: per sync/async list (LEGACY) or scheduler tags (MQ); 0 unlimited;
	 * SCHED_NR_REQUESTS_AUTO: as the kernel sizes it (sched_default_nr_requests()) */
	uint32_t nr_requests;
	uint32_t trace_bytes;		/* size of the trace ring; 0: no trace */
	uint32_t max_entities;		/* owners are 0 .. max_entities-1 */
	uint32_t max_groups;		/* groups are 0 .. max_groups-1 */
	/* Policy tunables by index into the policy's descriptor table. */
	int64_t tunable[SCHED_MAX_TUNABLES];
	bool tunable_given[SCHED_MAX_TUNABLES]; /* false: policy default (may depend on device) */
	uint16_t group_weight[SCHED_MAX_GROUPS];
};

/* Device-side state, visible read-only to the policies (the request_queue's view). */
struct sched_device {
	uint32_t hw_queue_depth;
	bool rotational;
	enum sched_blk_mode blk_mode;	/* LEGACY or MQ, resolved */
	uint32_t nr_requests;
	struct sched_trace *trace;	/* the queue's trace ring (NULL or off: no trace) */
	uint32_t in_flight;		/* dispatched, not yet completed */
	uint32_t in_flight_dir[2];	/* by sched_rq_dir() */
	uint32_t in_flight_sync;
};

/* Receives one policy counter; group is -1 for device-wide ones. */
typedef void (*sched_stat_fn)(void *ctx, const char *name, int group, double value);
/* Receives one row of a policy's time series: ncols values, named by columns (the same names
 * on every row). */
typedef void (*sched_row_fn)(void *ctx, const char *const *columns, unsigned int ncols,
			     const double *row);

/*
 * The ops table of one policy, after the kernel's struct elevator_mq_ops. Tables are constant
 * and found by policy id: no pointer to them is kept in the scheduler's memory, which may be
 * shared by processes that map the code at different addresses.
 */
struct sched_policy_ops {
	const char *name;
	enum sched_blk_mode blk_mode;	/* LEGACY (cfq) or MQ (none, deadline, bfq) */
	const struct sched_tunable_desc *tunables;
	unsigned int nr_tunables;
	/* Group weights: range and default (0: SCHED_WEIGHT_MIN/MAX/DEFAULT). BFQ's
	 * io.bfq.weight is 1..1000, default 100. */
	uint16_t weight_min, weight_max, weight_default;
	/* Bytes of policy state for this configuration (allocated by the core, 16-byte aligned). */
	size_t (*state_size)(const struct sched_config *cfg);
	/* dev stays valid for the policy's lifetime; the policy may keep the pointer. */
	int (*init)(void *st, const struct sched_config *cfg, const struct sched_device *dev,
		    uint64_t now);
	void (*insert)(void *st, struct sched_request *rq, uint64_t now);
	/* Next request for the device, or NULL (nothing queued, or deliberately idling). */
	struct sched_request *(*dispatch)(void *st, uint64_t now);
	/* Called after the core has removed rq from the device counters. Returns true when the
	 * policy asks for a queue run (the kernel's bfq/cfq_schedule_dispatch()). */
	bool (*completed)(void *st, struct sched_request *rq, uint64_t now);
	/* Absolute time of the policy's next timer, or SCHED_NO_TIMER. Optional (no timers). */
	uint64_t (*next_timer)(const void *st);
	void (*timer)(void *st, uint64_t now);
	/* Requests inserted and not yet dispatched. */
	bool (*has_work)(const void *st);
	/* The entity (process) exited: the kernel's exit_icq. Optional. */
	void (*entity_exit)(void *st, uint32_t owner, uint64_t now);
	/* A group's weight changed (blkio.weight written). Optional. */
	void (*set_group_weight)(void *st, uint32_t group, uint32_t weight);
	/* Policy counters as name/value pairs (idle timer arms, slices...). Optional. */
	void (*emit_stats)(const void *st, sched_stat_fn emit, void *ctx);
	/* The policy's time series, oldest row first (kyber: its depths and tokens at each timer
	 * run). Optional. */
	void (*emit_timeline)(const void *st, sched_row_fn row, void *ctx);
	/*
	 * The request list is full (nr_requests): may this owner allocate anyway? True is the
	 * kernel's ELV_MQUEUE_MUST (CFQ: the active queue it is idling for). Optional.
	 */
	bool (*may_queue_must)(void *st, uint32_t owner, bool sync);
	/*
	 * blk-mq's limit_depth(): the shallow depth (in scheduler tags, of nr_requests) that rq
	 * may allocate from, 0 for no limit. Asked before each allocation (MQ mode). Optional.
	 */
	uint32_t (*limit_depth)(void *st, const struct sched_request *rq);
	/*
	 * The value of tunable idx in force, as its sysfs file would read (CFQ's slice_idle is 0
	 * on a non-rotational device unless given). Optional: the configured value.
	 */
	int64_t (*tunable_value)(const void *st, unsigned int idx);
	/*
	 * Refuses a configuration the policy's behaviour profile cannot run (CFQ: a tunable its
	 * cfq_version does not have), with a message in err. Called by sched_config_check().
	 * Optional.
	 */
	int (*check)(const struct sched_config *cfg, char *err, size_t errlen);
	/*
	 * The legacy block layer of the policy's profile gives each group a request list of its
	 * own (blk_get_rl(), 3.6 on) rather than one for every group. Read by the block layer when
	 * the queue is built (sched_config_per_group_rl()). Optional: absent, one list.
	 */
	bool (*per_group_rl)(const struct sched_config *cfg);
	/*
	 * The block core of the policy's profile merges requests of different I/O priorities and
	 * blkcgs (4.x: blk_rq_merge_ok() and attempt_merge() compared neither; later kernels refuse
	 * both, blk_cgroup_mergeable()); the elevator's allow_merge may still refuse.
	 * Read when the queue is built (sched_config_merge_any_prio()). Optional: absent, refused.
	 */
	bool (*merge_any_prio)(const struct sched_config *cfg);
	/*
	 * Merging: the elevator's hooks (elevator.c). A policy with request_merge is an elevator
	 * the block layer merges through (the one-hit cache, the back-merge hash, its front-merge
	 * lookup, request-into-request merges); with bio_merge_list instead (kyber) bios merge
	 * into the list it gives; with neither (none) requests merge in the plug only, as blk-mq
	 * without an elevator does. The requests a request_merge policy keeps queued are in its
	 * sector-sorted trees through priv.rb, which elv_latter_request()/elv_former_request()
	 * follow. A bio is passed as the request it would become (owner, group, op, flags, prio,
	 * offset, length set). The others are optional for a request_merge policy.
	 */
	/* request_merge (cfq_merge, dd_request_merge, bfq_request_merge): a queued request that
	 * bio may be front-merged into (it starts where bio ends), or NULL. */
	struct sched_request *(*request_merge)(void *st, const struct sched_request *bio,
					       uint64_t now);
	/* allow_bio_merge (elv_bio_merge_ok()): may bio join rq? Absent: yes. (BFQ merges
	 * cooperating processes' queues here, at now.) */
	bool (*allow_bio_merge)(void *st, const struct sched_request *rq,
				const struct sched_request *bio, uint64_t now);
	/* request_merged: rq took a bio (a front merge moved its sector: re-sort it). */
	void (*request_merged)(void *st, struct sched_request *rq, enum sched_merge type,
			       uint64_t now);
	/* allow_rq_merge (the legacy elevator's elevator_allow_rq_merge_fn): may next join rq? */
	bool (*allow_rq_merge)(void *st, const struct sched_request *rq,
			       const struct sched_request *next);
	/* requests_merged: next was merged into rq and is freed. queued: next was in the policy;
	 * false for blk-mq's insert merge of a request never inserted (the kernel's elevator saw it
	 * only through its own insert call, which the merge ended). */
	void (*requests_merged)(void *st, struct sched_request *rq, struct sched_request *next,
				bool queued, uint64_t now);
	/* bio_merged (the legacy elevator's elevator_bio_merged_fn): bio joined rq. */
	void (*bio_merged)(void *st, struct sched_request *rq, const struct sched_request *bio);
	/*
	 * bio_merge_list: a blk-mq elevator whose bio_merge walks a list of its own with
	 * blk_bio_list_merge() (kyber_bio_merge(): the bio's domain list of its software
	 * context) rather than blk_mq_sched_try_merge(). Fills out with the queued requests of
	 * that list, newest first, at most max of them, and returns how many; the block layer
	 * checks each (blk_attempt_bio_merge()) and does the join, then tells the policy through
	 * bio_merged. A policy with it merges only so: no one-hit cache, hash, request_merge,
	 * request-into-request or insert merge (the elevator hashes nothing).
	 */
	unsigned int (*bio_merge_list)(void *st, const struct sched_request *bio,
				       struct sched_request **out, unsigned int max);
	/*
	 * The block core's own merge path around the elevator, for a policy that brings its own
	 * core (the oracle's kernel side: the shim's elv_merge(), blk_mq_sched_try_merge(),
	 * attempt_merge(), elv_attempt_insert_merge() around the kernel file's hooks). With it the
	 * block layer decides nothing itself: it asks, then carries the outcome out (the bios and
	 * requests, their slots) without calling the hooks above. Both optional.
	 *
	 * core_bio_merge: may bio join a queued request (elv_merge() and its followers)? true with
	 * out filled. core_insert: insert rq (into the policy, as insert), or merge it into a
	 * queued request first where the core would (plugged: from a plug, the legacy
	 * ELEVATOR_INSERT_SORT_MERGE; blk-mq's elevator tries every insert); true when it merged
	 * (rq was not inserted; out says into what), false when it was inserted.
	 */
	bool (*core_bio_merge)(void *st, struct sched_request *bio,
			       const struct sched_merge_limits *l, uint64_t now,
			       struct sched_merge_out *out);
	bool (*core_insert)(void *st, struct sched_request *rq, bool plugged,
			    const struct sched_merge_limits *l, uint64_t now,
			    struct sched_merge_out *out);
};

const struct sched_policy_ops *sched_policy_ops(enum sched_policy_id id);
/* Policy id by name ("none", "deadline", "cfq", "bfq", "kyber"); -1 when unknown. */
int sched_policy_by_name(const char *name);
/* True when the policy is implemented in this build. */
bool sched_policy_available(enum sched_policy_id id);

/* Fills cfg with defaults for policy id (hw_queue_depth 32, rotational, the policy's default
 * group weight, nr_requests 128 in LEGACY mode, 2 x min(hw_queue_depth, 128) in MQ mode). */
void sched_config_defaults(struct sched_config *cfg, enum sched_policy_id id);
/* The group weight range and default of a policy (SCHED_WEIGHT_* when it gives none). */
void sched_policy_weights(enum sched_policy_id id, uint32_t *min, uint32_t *max, uint32_t *def);
/*
 * Parses a tunable's value as sched_config_set_tunable() does (an integer in range, or a
 * version). Returns 0, or -1 with a one-line message in err.
 */
int sched_tunable_parse(const struct sched_tunable_desc *d, const char *value, int64_t *v,
			char *err, size_t errlen);
/*
 * Sets a tunable by its sysfs name from text, checking type and range. Returns 0, or -1 with a
 * one-line message in err.
 */
int sched_config_set_tunable(struct sched_config *cfg, const char *name, const char *value,
			     char *err, size_t errlen);
/*
 * Whether the legacy block layer gives each group its own request list under this configuration
 * (the policy's profile: per_group_rl); false for a policy without the op.
 */
bool sched_config_per_group_rl(const struct sched_config *cfg);
/* Whether the block core of the policy's profile merges across I/O priorities and blkcgs
 * (merge_any_prio);
 * false for a policy without the op. */
bool sched_config_merge_any_prio(const struct sched_config *cfg);
/* Checks the whole configuration; returns 0, or -1 with a one-line message in err. */
int sched_config_check(const struct sched_config *cfg, char *err, size_t errlen);

#define SCHED_INFLIGHT_BUCKETS 65 /* 0..63 exactly, the last one is ">= 64" */

struct sched_entity_stats {
	uint64_t inserted;
	uint64_t dispatched;
	uint64_t completed;
	uint64_t bytes;
	uint64_t wait_ns;	/* sum over requests of dispatch - insert */
	uint64_t max_wait_ns;
	uint64_t service_ns;	/* sum over requests of complete - dispatch */
	/* Merging: its bios that joined a queued request without being inserted, and its
	 * requests merged into another after insertion (neither is dispatched on its own):
	 * submitted = inserted + bio_merged, inserted = dispatched + rq_merged + queued. */
	uint64_t bio_merged;
	uint64_t rq_merged;
};

struct sched_stats {
	uint64_t inserted, dispatched, completed;
	uint64_t bio_merged, rq_merged; /* as in struct sched_entity_stats */
	uint64_t timer_runs;
	/* Time spent with i requests in flight; sampled at each change, so exact. */
	uint64_t inflight_ns[SCHED_INFLIGHT_BUCKETS];
	uint64_t last_change_ns;
	uint32_t max_in_flight;
	/* Owners 0 .. SCHED_MAX_ENTITIES-1; see sched_entity_stats() for all of them. */
	struct sched_entity_stats entity[SCHED_MAX_ENTITIES];
};

struct sched {
	struct sched_config cfg;
	struct sched_device dev;
	struct sched_stats stats;
	uint32_t queued;	/* inserted, not yet dispatched */
	/*
	 * Flushes waiting for the device: a flush never enters the elevator (blk_insert_flush():
	 * the flush machinery puts it on hctx->dispatch, on the legacy queue's q->queue_head), and
	 * what is there goes to the driver before anything the elevator would give.
	 */
	struct sched_list bypass;
	void *policy;		/* points just after this struct, inside the same block */
	/* Owners SCHED_MAX_ENTITIES .. max_entities-1, after the policy state; else NULL. */
	struct sched_entity_stats *entity_more;
	struct sched_trace *trace;	/* after those; NULL when cfg.trace_bytes is 0 */
};

/* The policies' ops tables, by id (constant: read-only data of whichever process calls). */
extern const struct sched_policy_ops *const sched_policy_table[SCHED_POLICY_NR];
/* The kernel's own code for each policy (SCHED_IMPL_KERNEL): empty here (a weak definition in
 * policy.c); the oracle's binaries link a table of their own over it (oracle/harness). */
extern const struct sched_policy_ops *const sched_kernel_policy_table[SCHED_POLICY_NR];

/* The ops that run a configuration (its policy, by its impl); NULL when not built. */
const struct sched_policy_ops *sched_config_ops(const struct sched_config *cfg);

/* The policy's ops table (on every request: inline, no range check; cfg.policy and cfg.impl were
 * checked at sched_init()). */
static inline const struct sched_policy_ops *sched_ops(const struct sched *s)
{
	if (__builtin_expect(s->cfg.impl == SCHED_IMPL_KERNEL, 0))
		return sched_kernel_policy_table[s->cfg.policy];
	return sched_policy_table[s->cfg.policy];
}

/* The statistics of one owner (< max_entities). */
static inline const struct sched_entity_stats *sched_entity_stats(const struct sched *s,
								  uint32_t owner)
{
	return owner < SCHED_MAX_ENTITIES ? &s->stats.entity[owner]
					  : &s->entity_more[owner - SCHED_MAX_ENTITIES];
}

size_t sched_size(const struct sched_config *cfg);
/*
 * Builds a scheduler in mem (sched_size(cfg) bytes, 16-byte aligned). Returns it, or NULL with
 * a message in err when the configuration is invalid or mem too small.
 */
struct sched *sched_init(void *mem, size_t size, const struct sched_config *cfg, uint64_t now,
			 char *err, size_t errlen);

/* Returns 0, or -1 when the request is malformed (owner/group out of range, bad op). */
int sched_insert(struct sched *s, struct sched_request *rq, uint64_t now);
/*
 * One request for the device, or NULL when the device is full (hw_queue_depth in flight), the
 * policy has nothing, or the policy is idling. Call in a loop until NULL. Flushes go first and
 * never through the policy (see struct sched's bypass).
 */
struct sched_request *sched_dispatch(struct sched *s, uint64_t now);
/* Returns true when the policy asks for a queue run (its *_schedule_dispatch()). */
bool sched_completed(struct sched *s, struct sched_request *rq, uint64_t now);
/* The policy's next timer (SCHED_NO_TIMER for a policy without timers: none, deadline). */
static inline uint64_t sched_next_timer(const struct sched *s)
{
	const struct sched_policy_ops *ops = sched_ops(s);

	return ops->next_timer ? ops->next_timer(s->policy) : SCHED_NO_TIMER;
}
/* Runs the policy's expired timers (no-op before the deadline). */
void sched_run_timer(struct sched *s, uint64_t now);
void sched_entity_exit(struct sched *s, uint32_t owner, uint64_t now);
/* The policy's ELV_MQUEUE_MUST answer for an owner blocked by nr_requests (false if none). */
bool sched_may_queue_must(struct sched *s, uint32_t owner, bool sync);
/* The policy's limit_depth(): shallow depth for rq in MQ mode, 0 for none. */
uint32_t sched_limit_depth(struct sched *s, const struct sched_request *rq);
/* Tunable idx (< the policy's nr_tunables) as in force, as its sysfs file would read. */
int64_t sched_tunable_value(const struct sched *s, unsigned int idx);
/* The mode the block layer runs in for this configuration (never DEFAULT). */
enum sched_blk_mode sched_config_blk_mode(const struct sched_config *cfg);
/* blk_mq_init_sched(): 2 x min(hw_queue_depth, BLKDEV_DEFAULT_RQ); LEGACY: BLKDEV_MAX_RQ. */
uint32_t sched_default_nr_requests(enum sched_blk_mode mode, uint32_t hw_queue_depth);
/*
 * Sets a group's weight (in the policy's range: 10..1000 for CFQ, 1..1000 for BFQ) after init,
 * as writing blkio.weight / io.bfq.weight does. Policies read weights from the configuration
 * they were given at init, which this updates in place. -1 when out of range.
 */
int sched_set_group_weight(struct sched *s, uint32_t group, uint32_t weight);
/* Requests inserted and not dispatched. */
static inline uint32_t sched_queued(const struct sched *s)
{
	return s->queued;
}
/* ---- merging (elevator.c), for the block layer ---- */

/* The policy is an elevator the block layer merges through elevator.c's path (elv_merge(), the
 * hash, insert merges): not none, not kyber (sched_has_bio_merge_list()). */
static inline bool sched_has_elevator(const struct sched *s)
{
	return sched_ops(s)->request_merge != NULL || sched_ops(s)->core_bio_merge != NULL;
}
/* The policy gives the block layer a list to merge bios into (blk_bio_list_merge(): kyber). */
static inline bool sched_has_bio_merge_list(const struct sched *s)
{
	return sched_ops(s)->bio_merge_list != NULL;
}
/* The policy brings the block core's merge path with it (the oracle's kernel side). */
static inline bool sched_has_merge_core(const struct sched *s)
{
	return sched_ops(s)->core_bio_merge != NULL;
}
/* rq is queued in the policy (inserted, not dispatched, not merged away). */
static inline bool sched_rq_queued(const struct sched_request *rq)
{
	return sched_rb_linked(&rq->priv.rb);
}
/* elv_bio_merge_ok()'s elevator half: the policy's allow_bio_merge. */
bool sched_allow_bio_merge(struct sched *s, const struct sched_request *rq,
			   const struct sched_request *bio, uint64_t now);
/* The policy's front-merge candidate for bio, or NULL. */
struct sched_request *sched_request_merge(struct sched *s, const struct sched_request *bio,
					  uint64_t now);
/* The policy's bio_merge_list: the requests bio may join, newest first, at most max (0 for a
 * policy without it). */
unsigned int sched_bio_merge_list(struct sched *s, const struct sched_request *bio,
				  struct sched_request **out, unsigned int max);
/* A bio joined rq without being inserted (counted; the policy's bio_merged hook). */
void sched_bio_merged(struct sched *s, struct sched_request *rq, const struct sched_request *bio);
/* elv_rb_find(): a request of the sector-sorted tree root starting at sector, or NULL. */
struct sched_request *sched_elv_rb_find(const struct sched_rb_root *root, uint64_t sector);
/* elv_merged_request(): rq grew by a bio. */
void sched_request_merged(struct sched *s, struct sched_request *rq, enum sched_merge type,
			  uint64_t now);
/* The legacy elevator's allow_rq_merge (true without one). */
bool sched_allow_rq_merge(struct sched *s, const struct sched_request *rq,
			  const struct sched_request *next);
/*
 * elv_merge_requests(): next joined rq. A queued next leaves the scheduler (no longer counted
 * queued); rq keeps the earlier start (attempt_merge()'s start_time). The legacy elevator hears
 * only of a next it had sorted (RQF_SORTED); blk-mq's always.
 */
void sched_requests_merged(struct sched *s, struct sched_request *rq, struct sched_request *next,
			   bool queued, uint64_t now);
/* With a merge core (sched_has_merge_core()): the core's bio merge (out filled when true), and
 * the insertion through it (0 inserted as sched_insert(), 1 merged as out says, -1 refused). */
bool sched_core_bio_merge(struct sched *s, struct sched_request *bio,
			  const struct sched_merge_limits *l, uint64_t now,
			  struct sched_merge_out *out);
int sched_core_insert(struct sched *s, struct sched_request *rq, bool plugged,
		      const struct sched_merge_limits *l, uint64_t now,
		      struct sched_merge_out *out);
/* elv_latter_request() / elv_former_request(): the next queued request in rq's sort tree. */
struct sched_request *sched_latter_request(const struct sched *s, struct sched_request *rq);
struct sched_request *sched_former_request(const struct sched *s, struct sched_request *rq);

/* Closes the in-flight time accounting at now (call before reading stats). */
void sched_stats_sync(struct sched *s, uint64_t now);

#endif
