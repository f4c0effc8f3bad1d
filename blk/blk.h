/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The block layer under the policies: what decides what a scheduler sees. Pure and deterministic
 * like sched/: no fio, no threads, no syscalls, no clock of its own (time in ns is passed in).
 * The same code runs under the engine's shared domain in real time and under the simulator and
 * the tests in virtual time.
 *
 *   blk_submit()    request allocation, then the elevator's insert:
 *                   LEGACY  nr_requests per sync/async list, ioc batching, ELV_MQUEUE_MUST and
 *                           the 1.5 x cap (blk-core.c get_request(), 4.19); with per_group_rl
 *                           a request list per group (blk_get_rl(): the root group's is
 *                           q->root_rl), each with its own nr_requests, full and starved
 *                           flags and sleepers, else one list for every group (before 3.6);
 *                   MQ      one pool of nr_requests scheduler tags, the policy's limit_depth()
 *                           as the sbitmap's shallow depth (blk-mq.c, blk-mq-tag.c, 6.x).
 *                   A request that cannot get one waits, as its process sleeps there; the
 *                   owner's later requests wait behind it.
 *   blk_run()       the dispatch loop (blk_mq_run_hw_queue): while a driver tag is free
 *                   (hw_queue_depth) and the policy gives a request, it goes to the device:
 *                   into the device model, or to the caller (host->issue) for real I/O.
 *   blk_complete()  the caller's device completed a request: the elevator hears of it, the
 *                   request (or tag) is freed and the first waiter that can use it is admitted.
 *   blk_advance()   the device timeline: model completions and policy timers up to now, each
 *                   processed at its own time in time order and followed by a dispatch, as the
 *                   kernel does on the completion interrupt or the timer. The queue is run by
 *                   whoever did something (blk_run()), never speculatively.
 *
 * Merging (blk-merge.c, elevator.c; blk/merge.c): what a caller submits is a bio. Before it
 * takes a request it may join one through an elevator: the one-hit cache, the back-merge hash
 * and the policy's front-merge lookup, each merge followed by a try to merge the grown request
 * with its neighbour in sector order. A woken waiter, and the bios its owner had queued behind
 * it, may each join a queued request before taking one (the kernel's insert merge, and the bios
 * submitted after the wake-up; in a plugged batch, in its plug first). A caller's batch may be
 * plugged (blk_plug_start()): its bios merge in the plug first.
 * max_sectors_kb and max_segments bound a request;
 * op, group and I/O priority must match; the policy may refuse (CFQ and BFQ: another queue).
 * nomerges 0/1/2 as the sysfs knob. A merged request is one request to the scheduler and the
 * device; its bios complete when it does, each handed back to its owner once (host->done),
 * with the bio's own offset and length restored. Merging needs the block layer to complete the
 * request itself, so it is done with a device model only: with the caller as the device (each
 * bio its own system call), requests are not merged. blk_params_defaults() gives the kernel's
 * default, nomerges 0.
 *
 * All state lives in one caller block (blk_size() bytes) holding the scheduler and the device
 * model too, with no pointer out of it: the engine places it in memory shared by processes
 * mapped at the same address. What the caller must do is returned through a process-local
 * struct blk_host passed to each call (never stored).
 */
#ifndef BLK_BLK_H
#define BLK_BLK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devmodel.h"
#include "sched.h"

/* blk-core.c: BLK_BATCH_REQ, BLK_BATCH_TIME (HZ/50). */
#define BLK_BATCH_REQ	  32u
#define BLK_BATCH_TIME_NS (20ull * SCHED_NS_PER_MS)
/*
 * blk-mq does not run the queue where a request completes: the completion frees the tag, and a
 * run comes later from the kblockd workqueue, when one is asked for: the elevator's
 * (bfq_schedule_dispatch() when nothing is left in the driver and bfq does not idle), a
 * SCHED_RESTART (a dispatch found no driver tag), or a woken tag waiter's own run. So with bfq
 * idling for the queue in service, its process's next request runs the queue (and bfq has that
 * request, not another queue's, to dispatch). The legacy block layer ran the queue at every
 * completion (scsi_end_request() -> scsi_run_queue()). The delay of kblockd's run: a worker's
 * wake-up, a few microseconds on an idle CPU.
 */
#define BLK_KBLOCKD_NS (10ull * 1000)

enum blk_rq_state {
	BLK_RQ_IDLE = 0,
	BLK_RQ_WAITING, /* no request/tag free: waits to be admitted */
	BLK_RQ_QUEUED,	/* in the elevator */
	BLK_RQ_DEVICE,	/* dispatched: in the device (model or the caller's) */
	BLK_RQ_MERGED,	/* a bio of another request (head): completes with it */
	BLK_RQ_PLUGGED, /* holds a request or tag, on its owner's plug until the plug is flushed */
};

/* How a bio or a request was merged: sched_stats' merges by kind. */
enum blk_merge_kind {
	BLK_MERGE_PLUG = 0, /* a bio into a request of its owner's plug */
	BLK_MERGE_BACK,	    /* a bio behind a queued request (the one-hit cache or the hash) */
	BLK_MERGE_FRONT,    /* a bio in front of a queued request */
	BLK_MERGE_REQUEST,  /* a request into a queued one (attempt_merge()) */
	BLK_MERGE_NR,
};

/* queue/nomerges: 0 all merges, 1 only the one-hit cache, 2 none. */
#define BLK_NOMERGES_MAX 2
/* BLK_DEF_MAX_SECTORS_CAP (6.x): 1280 KiB; BLK_MAX_SEGMENTS. */
#define BLK_DEF_MAX_SECTORS_KB 1280u
#define BLK_DEF_MAX_SEGMENTS   128u
/* A bio's segments: one per 4 KiB page it touches (user pages are not physically contiguous). */
#define BLK_SEGMENT_SHIFT 12
/* blk_add_rq_to_plug(): the plug is flushed at BLK_MAX_REQUEST_COUNT requests (16 in 4.19's
 * legacy layer, 32 in 6.x) or before a request joins it behind one of BLK_PLUG_FLUSH_SIZE
 * (6.x: only while merging; 4.19's blk_queue_bio(): always). */
#define BLK_PLUG_MAX_RQ_LEGACY 16u
#define BLK_PLUG_MAX_RQ_MQ     32u
#define BLK_PLUG_FLUSH_SIZE    (128u * 1024)
/* ELV_HASH_BITS: the back-merge hash of queued requests by end sector. */
#define BLK_HASH_BITS 6
#define BLK_HASH_SIZE (1u << BLK_HASH_BITS)

/* One bio as the block layer sees it, and, while it heads one, its request; embedded first in
 * the caller's request. */
struct blk_rq {
	struct sched_request
	    rq;		  /* first: the policies' view (a head's offset/length: its request's) */
	uint32_t state;	  /* enum blk_rq_state */
	uint8_t list;	  /* LEGACY: the list it was allocated from (0 async, 1 sync) */
	uint8_t merged;	  /* MERGED: how it joined (enum blk_merge_kind) */
	bool nomerge;	  /* head: REQ_NOMERGE, a merge failed on a limit (req_set_nomerge()) */
	uint8_t rl;	  /* LEGACY: the request list (rq->rl): its group's, 0 the root's */
	uint16_t nr_segs; /* the bio's own segments */
	bool merge_tried; /* WAITING: its bio merge was tried before it slept for a request/tag */
	int32_t tag;	  /* MQ: its scheduler tag, -1 none */
	uint32_t nr_phys_segments;	 /* head: the request's */
	uint64_t wait_start;		 /* when it began to wait */
	uint64_t bio_offset, bio_length; /* the bio's own range (rq.offset/length: the request's) */
	struct sched_list wait;		 /* on a wait list while WAITING */
	struct blk_rq *head;		 /* the request it belongs to; itself when it heads one */
	struct sched_list bios;		 /* head: its bios in sector order, itself among them */
	struct sched_list bio_node;	 /* its place in its head's bios */
	struct sched_list hash;		 /* head, QUEUED in an elevator: on the back-merge hash */
};

struct blk_params {
	uint32_t nr_batching;	/* LEGACY: a woken sleeper's batch (BLK_BATCH_REQ); 0 none */
	uint64_t batch_time_ns; /* LEGACY: BLK_BATCH_TIME */
	uint64_t kblockd_ns;	/* MQ: the queue runs this long after a completion; 0 at once */
	const struct devmodel_params *model; /* NULL: the caller is the device */
	uint32_t nomerges;		     /* queue/nomerges 0..2 (forced 2 without a model) */
	uint32_t max_sectors_kb;	     /* queue/max_sectors_kb: the largest merged request */
	uint32_t max_segments;		     /* queue/max_segments */
	/* LEGACY: a request list per group (1), one for every group (0), or as the policy's
	 * profile has it (BLK_PER_GROUP_RL_AUTO, the default: sched_config_per_group_rl()). */
	int8_t per_group_rl;
};
#define BLK_PER_GROUP_RL_AUTO (-1)

struct blk_stats {
	uint64_t admission_waits;   /* submissions that waited for a request or tag */
	uint64_t admitted_batching; /* LEGACY: allocated past a full list by a batcher */
	uint64_t admitted_must;	    /* LEGACY: allocated past a full list by ELV_MQUEUE_MUST */
	uint64_t shallow_limited;   /* MQ: allocations refused by the policy's limit_depth */
	uint64_t wait_ns;	    /* total time requests waited for admission */
	uint32_t max_allocated[2];  /* LEGACY [async, sync], in one list; MQ: [0] tags in use */
	uint32_t max_waiting;
	uint32_t nr_waiting; /* now */
	uint64_t model_completions;
	uint64_t timer_events;
	/* How late policy timers were run (now - due), log2 buckets of ns: [i] holds
	 * [2^(i-1), 2^i); the scheduler still sees each at its due time. */
	uint64_t timer_late_hist[40];
	uint64_t timer_late_max_ns;
	/* Merging. */
	uint64_t merges[BLK_MERGE_NR]; /* by kind */
	uint64_t merge_refused_limit;  /* merges a limit (max_sectors_kb, max_segments) stopped */
	uint64_t plug_flushes;	       /* plugs flushed (batch end, a wait, the plug's limit) */
	uint64_t plug_limit_flushes;   /* of which at the plug's limit */
	/* /sys/block/<dev>/stat: requests completed, merges, sectors, by direction [read, write]
	 * (a merge counts in the direction of the request it joined). */
	uint64_t stat_ios[2];
	uint64_t stat_merges[2];
	uint64_t stat_sectors[2];
};

/*
 * LEGACY: one request list (struct request_list): the root group's (q->root_rl), or with
 * per_group_rl each group's (blkg->rl). nr_requests and the 1.5 x cap apply to each.
 */
struct blk_rl {
	uint32_t count[2];	      /* rl->count [async, sync] */
	bool full[2];		      /* blk_rl_full() */
	struct sched_list waiting[2]; /* rl->wait: its sleepers in get_request() */
};

/* Per owner (the kernel's io_context): ioc batching and how many of its requests wait. */
struct blk_ioc {
	uint32_t nr_batch;    /* ioc->nr_batch_requests */
	uint32_t nr_waiting;  /* its requests waiting for admission */
	uint64_t last_waited; /* ioc->last_waited */
	/* Its task's plug (struct blk_plug) while the caller holds one (blk_plug_start()). */
	bool plugging;
	/* It sleeps for a request or tag inside a plugged batch: woken, what it allocates goes on
	 * its plug (the system call in progress still holds it), flushed when it sleeps again or
	 * its queued submissions are all in. */
	bool plug_asleep;
	uint32_t plug_count;
	struct sched_list plug;
};

struct blk_queue {
	enum sched_blk_mode mode; /* resolved: LEGACY or MQ */
	uint32_t nr_requests;	  /* 0 unlimited */
	uint32_t nr_batching;
	uint64_t batch_time_ns;
	uint64_t clock; /* the latest time seen: events are never processed before it */
	uint64_t kblockd_ns;
	uint64_t run_at; /* MQ: the queue run a completion asked for (kblockd); SCHED_NO_TIMER */
	bool kick; /* since the last run, a completion asked for one (see blk_run_completed) */
	struct sched *s;
	struct devmodel *model; /* NULL: the caller's device */
	struct blk_ioc *ioc;	/* [max_entities] */
	/* LEGACY request lists: [0] the root group's, then one per group with per_group_rl. */
	bool per_group_rl;
	/* The profile's block core merges requests of different I/O priorities and blkcgs (4.x). */
	bool merge_any_prio;
	uint32_t nr_rl;
	struct blk_rl *rl;
	uint32_t allocated[2]; /* q->nr_rqs [async, sync]: over every list */
	/* MQ scheduler tags: an sbitmap of nr_requests bits in words of 1 << tag_shift. */
	uint32_t tag_shift, tag_words, tags_used;
	uint64_t *tag_map;
	struct sched_list tag_waiting;
	/* Merging: the knobs, the one-hit cache (q->last_merge), the back-merge hash. */
	uint32_t nomerges;
	uint64_t max_sectors; /* 512-byte sectors */
	uint32_t max_segments;
	uint32_t plug_max_rq;
	struct blk_rq *last_merge;
	struct sched_list hash[BLK_HASH_SIZE];
	struct blk_stats st;
};

/* What the caller does on the block layer's behalf; process-local, passed to each call. */
struct blk_host {
	/* A request dispatched to the caller's device (no model): issue it. */
	void (*issue)(void *ctx, struct blk_rq *r, uint64_t now);
	/* The device model completed a request: hand it back to its owner. */
	void (*done)(void *ctx, struct blk_rq *r, uint64_t now);
	/* A waiting request got its request/tag and is in the elevator (its owner may sleep). */
	void (*admitted)(void *ctx, struct blk_rq *r, uint64_t now);
	/* Optional: a request went into the device model (done() follows when it completes). */
	void (*to_model)(void *ctx, struct blk_rq *r, uint64_t now);
	void *ctx;
};

/* Bytes for a queue of this configuration (0 when invalid). */
size_t blk_size(const struct sched_config *cfg, const struct blk_params *p);
/*
 * Builds the queue (scheduler and model included) in mem (16-byte aligned, blk_size() bytes).
 * Returns it, or NULL with a one-line message in err.
 */
struct blk_queue *blk_init(void *mem, size_t size, const struct sched_config *cfg,
			   const struct blk_params *p, uint64_t now, char *err, size_t errlen);
void blk_params_defaults(struct blk_params *p);

/* Readies a request for submission (sets the block layer's fields). */
void blk_rq_init(struct blk_rq *r);
/*
 * Allocation and insertion. Returns 1 when r is in the elevator, 0 when it waits (the owner
 * sleeps; host->admitted says when it is in), -1 when the core refuses it (malformed).
 * Does not dispatch: call blk_run() or blk_advance() after a batch.
 */
int blk_submit(struct blk_queue *q, struct blk_rq *r, uint64_t now, const struct blk_host *h);
/* Dispatches at now while a driver tag is free and the policy gives a request. */
void blk_run(struct blk_queue *q, uint64_t now, const struct blk_host *h);
/* The caller's device completed r (issued through host->issue). Does not dispatch. */
void blk_complete(struct blk_queue *q, struct blk_rq *r, uint64_t now, const struct blk_host *h);
/*
 * The queue run after completions: at once (LEGACY: scsi_run_queue()); in MQ mode kblockd_ns
 * later, and only when one was asked for and something is queued: the policy's
 * *_schedule_dispatch() (sched_completed()), a restart (the device was full, requests wait in
 * the elevator: SCHED_RESTART), or a tag waiter admitted (it runs the queue when it wakes).
 */
void blk_run_completed(struct blk_queue *q, uint64_t now, const struct blk_host *h);
/*
 * Processes model completions, policy timers and deferred runs up to now, in time order, each
 * followed by a dispatch (the timer, the run; a model completion: blk_run_completed()). Nothing
 * else runs the queue: a submitter or a completer calls blk_run() after its own work, as the kernel
 * runs the queue in that context. Returns the time of the next event (as blk_next_event() would
 * after it).
 */
uint64_t blk_advance(struct blk_queue *q, uint64_t now, const struct blk_host *h);
/* Time of the next model event, policy timer or deferred run; SCHED_NO_TIMER when none. */
uint64_t blk_next_event(const struct blk_queue *q);
/* A waiting request whose owner is gone: taken off its wait list, never admitted. */
void blk_abandon(struct blk_queue *q, struct blk_rq *r);
/*
 * The owner's plug (blk_start_plug()/blk_finish_plug()) around a batch of submissions: its
 * requests are held (with their request or tag) where its next bios may merge into them
 * (blk_attempt_plug_merge(): the last one in blk-mq, any in the legacy layer), then go into the
 * elevator at blk_plug_finish(), each tried first as an insert merge. The plug is also flushed
 * when the owner has to wait for a request or tag (the flush on schedule; woken, what it allocates
 * goes on the plug again until its queued submissions are in) and when it is full
 * (BLK_PLUG_MAX_RQ_*, or a request of BLK_PLUG_FLUSH_SIZE last in it). Held whatever nomerges
 * says, as the kernel's: with nomerges 2 (or no device model) nothing merges in it or at its
 * flush, its requests only enter the elevator later. Does not dispatch.
 */
void blk_plug_start(struct blk_queue *q, uint32_t owner);
void blk_plug_finish(struct blk_queue *q, uint32_t owner, uint64_t now, const struct blk_host *h);
/* Whether bios are merged on this queue (nomerges < 2 and a device model). */
static inline bool blk_merging(const struct blk_queue *q)
{
	return q->nomerges < BLK_NOMERGES_MAX;
}
/* The owner is gone (the kernel's exit_icq). */
void blk_owner_exit(struct blk_queue *q, uint32_t owner, uint64_t now);

static inline struct blk_rq *blk_rq_of(struct sched_request *rq)
{
	return (struct blk_rq *)rq;
}

/* Requests allocated now: LEGACY [async, sync] over every list; MQ: tags in use in [0]. */
static inline uint32_t blk_allocated(const struct blk_queue *q, int list)
{
	return q->mode == SCHED_BLK_MQ ? (list ? 0 : q->tags_used) : q->allocated[list];
}

/* LEGACY: the request list a group's requests are allocated from (blk_get_rl()). */
static inline uint32_t blk_rl_index(const struct blk_queue *q, uint32_t group)
{
	return q->per_group_rl && group < q->nr_rl ? group : 0;
}

/* LEGACY: requests allocated now from group's list [async, sync]; 0 outside the legacy mode. */
static inline uint32_t blk_rl_allocated(const struct blk_queue *q, uint32_t group, int list)
{
	return q->mode == SCHED_BLK_LEGACY ? q->rl[blk_rl_index(q, group)].count[list] : 0;
}

/*
 * The legacy queue's congestion thresholds for nr_requests (blk_queue_congestion_threshold()):
 * an async list is congested from *on allocated requests and clear again below *off.
 */
void blk_congestion_thresholds(uint32_t nr, uint32_t *on, uint32_t *off);
/* The async list's congestion flag with the kernel's hysteresis (set at the "on" threshold,
 * cleared below "off"): the new value given the old one and the list's allocated count. */
bool blk_congestion_next(uint32_t nr_requests, uint32_t allocated, bool was);
/* The same for a queue's async list, the root group's (without cgroup writeback the bdi's
 * congestion follows q->root_rl only: blk_set_congested()); false outside the legacy mode. */
bool blk_async_congested(const struct blk_queue *q, bool was);

#endif
