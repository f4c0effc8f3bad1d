/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A virtual-time workload simulator: fio-like jobs submit requests into a struct sched (any
 * policy) in front of a device model, in a discrete-event loop whose next event is the
 * earliest of: a job able to submit, a device completion (or internal device event), a policy
 * timer. Pure C (no fio, no clock, no syscalls); deterministic for a given seed.
 *
 * Job semantics, after fio:
 *   rw           read, write (sequential, wrapping in the region), randread, randwrite,
 *                randrw and rw (mixed by rwmixread percent, random or sequential offsets).
 *   bs, iodepth  each clone keeps up to iodepth requests outstanding (libaio-like).
 *   numjobs      clones; clone k is scheduling entity (owner) number k over all jobs, its region
 *                starts at offset + k * offset_increment.
 *   thinktime    fio's default thinktime_blocks=1: after each I/O the clone waits for all its
 *                I/O to complete, then thinks thinktime_us before the next.
 *   fsync=N      after every N writes the clone waits for its outstanding I/O, then issues a
 *                flush (SCHED_OP_FLUSH, sync) and waits for it: the fsync latency is from the
 *                Nth write's submission to the flush's completion.
 *   direct       writes are REQ_SYNC|REQ_IDLE (O_DIRECT). Buffered I/O (direct false):
 *                - without the page cache (cfg.pagecache false, the old model): buffered writes
 *                  go to the queue as async requests standing for writeback, reads as they are;
 *                - with it (cfg.pagecache true): every buffered read, write and fsync is a
 *                  system call into pagecache/ (pagecache.h), one at a time per clone whatever
 *                  iodepth (a buffered io_submit() is synchronous); what reaches the queue is
 *                  the page cache's: read-ahead in the clone's name, writeback by the flusher
 *                  (one more scheduling entity, owner nr_entities) or, before 3.2, by the
 *                  dirtier, fsync's WB_SYNC_ALL writeback and flush. The clone's latency is
 *                  the system call's (balance_dirty_pages() pauses included). Offsets stay
 *                  device offsets (file offset = device offset); job.file names the inode
 *                  (file_per_clone: each clone its own, as fio's files without filename=).
 *   fadvise_hint fio's (default on): POSIX_FADV_SEQUENTIAL for sequential jobs (read-ahead
 *                window x 2), POSIX_FADV_RANDOM for random ones (no read-ahead).
 *   fsync_on_close, unlink_each_loop  (page cache) at the end of each sequential pass over
 *                the region, as fio does between loops: fsync, then truncate the file.
 *   io_overhead  host time per submission (the syscall, fio): the next submission of a clone
 *                is at least this much later. Must be >= 1 ns.
 *   runtime      submissions stop at runtime; I/O completed by then is counted, I/O still in
 *                flight is reported (in_flight_at_end) but not counted. runtime 0: run until
 *                every clone has done number_ios (with exitall: until the first one has).
 *   admission    the block layer (blk/blk.h), the same code as the engine's: LEGACY request
 *                lists (nr_requests per sync/async list, ioc batching, ELV_MQUEUE_MUST, the
 *                1.5 x cap) or MQ scheduler tags (limit_depth). A clone that gets no request
 *                sleeps with it, as a process in get_request() or blk_mq_get_tag(), and
 *                submits nothing more until it is admitted; what completes meanwhile stays in
 *                its ring (fio is inside io_submit()).
 *   reaping     as fio with its defaults (iodepth_batch_complete_min = max = 1): a clone with
 *                iodepth requests outstanding reaps one completion, then submits one, so
 *                completions left in its ring while it slept are reaped one per submission;
 *                when it waits for all its I/O (fsync, thinktime, its last I/O) it reaps them
 *                all. A clone that is not asleep and has nothing in its ring reaps each
 *                completion as it comes.
 * Latency is fio's "lat": from the submission (before any admission wait) to the reap
 * (admission wait + scheduler queueing + device + time in the ring). So the sum over clones of
 * requests outstanding in fio's sense stays near numjobs x iodepth, and the mean latency obeys
 * Little's law as in the seeds' tables (2015: 7054 IOPS x 90.1 ms = 636 of 640).
 * Percentiles come from a log-linear histogram (64 sub-buckets per power of two: within 0.8%),
 * clamped to the exact min/max; mean and stddev are exact (Welford).
 */
#ifndef ENGINE_VSIM_H
#define ENGINE_VSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blk.h"
#include "devmodel.h"
#include "pagecache.h"
#include "sched.h"

enum vsim_rw {
	VSIM_READ = 0,
	VSIM_WRITE,
	VSIM_RANDREAD,
	VSIM_RANDWRITE,
	VSIM_RANDRW,
	VSIM_RW,
};

struct vsim_job {
	const char *name;
	enum vsim_rw rw;
	uint32_t rwmixread; /* percent of reads for randrw / rw */
	uint32_t bs;	    /* bytes */
	uint32_t iodepth;
	uint32_t numjobs;
	uint64_t thinktime_us;
	/* fio's rate_iops (rate_process=linear) of a buffered job: its n-th read or write is not
	 * issued before startdelay + n / rate_iops s (fio's rate_next_io_time, which catches up
	 * when late); fsyncs are not gated. 0: no limit. */
	uint32_t rate_iops;
	uint32_t fsync; /* flush every N writes; 0 never */
	bool direct;
	uint64_t offset, size; /* region, bytes; size 0: offset to the end of the device */
	uint64_t offset_increment;
	uint64_t startdelay_ns;
	uint64_t number_ios; /* per clone; 0 unlimited */
	uint8_t prio_class;  /* enum sched_ioprio_class */
	uint8_t prio_level;
	uint32_t group;
	/* Page cache (cfg.pagecache, buffered jobs). */
	uint32_t file;	     /* the inode; jobs naming the same one share its pages */
	bool file_per_clone; /* clone c has inode file + c (fio's jobname.c.0 without filename=) */
	bool fadvise_hint;   /* fio's fadvise_hint (default true) */
	bool fsync_on_close; /* fsync at the end of each pass over the region */
	bool unlink_each_loop; /* then truncate the file (fio's unlink_each_loop) */
	/* fio thinks after each read/write, so with fsync=N and thinktime the fsync follows
	 * the think; true: the think follows the fsync (fsync-tester.c's loop; without the page
	 * cache: the engine's writeback=fsync, whose fio write completes at once). */
	bool think_after_fsync;
	/* Without the page cache: buffered writes reach the queue as REQ_SYNC (no REQ_IDLE), the
	 * engine's writeback=fsync (a fsync's WB_SYNC_ALL writeback). */
	bool sync_writes;
	/* fio's reporting group (groupid: new_group, stonewall): res->group[report_group] merges
	 * the jobs of one group, as fio's group_reporting. */
	uint32_t report_group;
};

struct vsim_config {
	const struct vsim_job *jobs;
	uint32_t nr_jobs;
	uint64_t runtime_ns;
	uint64_t seed;
	uint64_t io_overhead_ns;
	/* fio's exitall (exit_what=all): the run ends when the first clone has done its
	 * number_ios; what is in flight then is not counted. */
	bool exitall;
	/* queue/nr_requests (overrides sched.nr_requests): LEGACY per sync/async list, MQ
	 * scheduler tags; 0 unlimited; SCHED_NR_REQUESTS_AUTO (default) as the kernel sizes it */
	uint32_t nr_requests;
	uint32_t nr_batching; /* LEGACY: a woken sleeper's batch (BLK_BATCH_REQ 32); 0 none */
	uint64_t kblockd_ns;  /* MQ: the run after a completion (BLK_KBLOCKD_NS); 0 at once */
	uint32_t nomerges;    /* queue/nomerges 0..2 (default 0: every merge, as the kernel) */
	uint32_t max_sectors_kb; /* queue/max_sectors_kb, the largest merged request (0: default) */
	/* hw_queue_depth 0: the device's queue depth; blk_mode DEFAULT: the policy's */
	struct sched_config sched;
	sched_trace_fn trace_fn; /* optional: the queue's trace lines (block layer and policy) */
	void *trace_ctx;
	/* optional: called with the scheduler at the end of a run, before it is freed */
	void (*at_end)(const struct sched *s, void *ctx);
	void *at_end_ctx;
	/* optional: every request as it is submitted (before admission), for replaying the
	 * same submissions through another host of the block layer (the equivalence test) */
	void (*on_submit)(void *ctx, const struct sched_request *rq, uint64_t now);
	void *on_submit_ctx;
	struct devmodel_params dev;
	/* The page cache in front of the block layer for buffered jobs (see direct above);
	 * false: the old model. pc: its tunables and profile (default: 6.12, 1 GiB). */
	bool pagecache;
	struct pc_params pc;
	/* optional: called with the page cache at the end of a run, before it is freed */
	void (*pc_at_end)(const struct pc *pc, void *ctx);
	void *pc_at_end_ctx;
};

enum { VSIM_DIR_READ = 0, VSIM_DIR_WRITE, VSIM_DIR_FLUSH, VSIM_NR_DIRS };

/* fio's default percentile list (its json "percentile" keys): 1 5 10 20 30 40 50 60 70 80 90 95
 * 99 99.5 99.9 99.95 99.99. */
#define VSIM_NR_PCT 17
extern const double vsim_pct_list[VSIM_NR_PCT];

struct vsim_lat {
	uint64_t n;
	double mean_ns, stddev_ns;
	uint64_t min_ns, max_ns;
	uint64_t p50_ns, p90_ns, p99_ns, p999_ns;
	uint64_t pct_ns[VSIM_NR_PCT]; /* at vsim_pct_list */
};

struct vsim_stats {
	uint64_t ios[VSIM_NR_DIRS]; /* completed within the run */
	uint64_t bytes[2];	    /* read, written */
	uint64_t elapsed_ns;
	double iops;			   /* reads + writes per second */
	double bw_bps;			   /* bytes per second */
	struct vsim_lat lat;		   /* reads + writes */
	struct vsim_lat dir[VSIM_NR_DIRS]; /* read, write, flush (fsync) */
};

struct vsim_result {
	uint32_t nr_entities, nr_jobs;
	struct vsim_stats *entity; /* per clone = owner */
	uint32_t *entity_job;	   /* job index of each clone */
	struct vsim_stats *job;	   /* per job, clones merged (fio's group_reporting) */
	struct vsim_stats *group;  /* per report_group (0 .. nr_groups-1), jobs merged */
	uint32_t nr_groups;
	struct vsim_stats total;
	uint64_t submitted;	   /* requests inserted into the scheduler */
	uint64_t completed;	   /* requests completed by the end */
	uint64_t in_flight_at_end; /* still queued or on the device at the end */
	uint64_t admission_waits;  /* submissions that slept for a request (nr_requests) */
	uint64_t admitted_must;	   /* allocated past a full list by ELV_MQUEUE_MUST */
	uint32_t max_waiting;	   /* most clones asleep for a request at once */
	uint32_t max_allocated[2]; /* most requests allocated at once: [async, sync] */
	uint64_t waiting_at_end;   /* requests still waiting for admission at the end */
	struct blk_stats blk;	   /* the block layer's statistics */
	uint64_t events;	   /* loop iterations */
	uint64_t end_ns;
	bool stalled;		  /* nothing could happen while clones still had work */
	struct sched_stats sched; /* the scheduler's statistics at the end */
	struct devmodel_stats dev;
	/* With the page cache: its statistics, and per entity (clones, then the flushers at
	 * nr_entities + wb) the throttling, writeback and read-ahead counters; per bdi_writeback
	 * (wb w: group w's with cgroup writeback, else one) what it dirtied and wrote. */
	struct pc_stats pc;
	struct pc_task_stats *pc_entity;
	struct pc_wb_stats *pc_wb;
	uint32_t pc_nr_wbs;
	uint64_t pc_requests; /* requests the page cache sent to the queue */
};

/* Defaults: no jobs, 1 s, seed 1, 2 us per submission, nr_requests as the kernel sizes it
 * (LEGACY 128, MQ 2 x min(depth, 128)), policy and device
 * defaults; the scheduler's rotational flag follows the device kind and its depth the
 * device's. */
void vsim_config_defaults(struct vsim_config *cfg, enum sched_policy_id policy,
			  enum devmodel_kind kind);
/* fio-like job defaults: randread, 4 KiB, iodepth 1, numjobs 1, direct, whole device,
 * fadvise_hint. */
void vsim_job_defaults(struct vsim_job *job);
int vsim_rw_by_name(const char *name);
const char *vsim_rw_name(enum vsim_rw rw);

/* Runs the simulation. Returns 0, or -1 with a one-line message in err. */
int vsim_run(const struct vsim_config *cfg, struct vsim_result *res, char *err, size_t errlen);
void vsim_result_free(struct vsim_result *res);

#endif
