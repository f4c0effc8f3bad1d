/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine's own page cache: what the kernel's I/O scheduler saw of buffered I/O. Pure and
 * deterministic like blk/ and sched/: no fio, no threads, no syscalls, no clock of its own
 * (time in ns is passed in), all state in one caller block (pc_size() bytes) holding indices,
 * never pointers out of it, and no function pointer: it may live in memory shared by processes.
 *
 * What it models (Linux 6.12 mm/page-writeback.c, fs/fs-writeback.c, mm/readahead.c, and the
 * 2.6.29 behaviour the 2009 seed ran, as switches of a named profile):
 *   - pages per file: absent, uptodate (clean), dirty, under writeback, locked for a read, the
 *     PG_readahead marker and the TOWRITE tag of data-integrity writeback;
 *   - dirty accounting against dirty_background_ratio/bytes and dirty_ratio/bytes of the cache
 *     (the model's dirtyable memory is the whole cache: no anonymous memory);
 *   - balance_dirty_pages(): I/O-less throttling (3.2+: pauses from the position and rate
 *     control), or (before 3.2) the dirtier writing back write_chunk pages itself and sleeping
 *     in congestion_wait();
 *   - the flusher: kupdate (dirty_writeback_centisecs, inodes older than
 *     dirty_expire_centisecs), background writeback above the background threshold, the
 *     b_dirty/b_io/b_more_io inode lists, writeback_chunk_size() per inode (or 2.6.x's fixed
 *     1024-page passes), requests built as ascending runs of dirty pages up to max_sectors_kb;
 *   - fsync/fdatasync: TOWRITE tagging, WB_SYNC_ALL writeback (REQ_SYNC or not: a switch), the
 *     wait on pages already under writeback (flusher I/O still queued: the priority
 *     inversion), then a cache flush unless the file system is mounted nobarrier;
 *   - read-ahead: page_cache_sync_ra()/page_cache_async_ra() (the 6.12 split of
 *     ondemand_readahead()): the initial window from the request size, x4/x2 growth up to
 *     read_ahead_kb, the PG_readahead marker that starts the next window early;
 *     POSIX_FADV_SEQUENTIAL doubles the window, POSIX_FADV_RANDOM reads exactly the request;
 *   - bounded memory: the cache holds at most cache_bytes / 4 KiB pages; clean pages are
 *     reclaimed from the least recently used chunk when a page is needed.
 *
 * Representation (why): pages live in chunks of 64 consecutive pages of one file (one 64-bit
 * mask per page state, and the 64 pages' frame numbers), found through a treap keyed by
 * (file, chunk). Only cached pages cost memory: a 5 GiB file is 1.3 M pages but a 1 GiB cache
 * holds at most 262144 of them; densely cached, a chunk costs 336 bytes per 64 pages (5.3 bytes
 * a page); the chunk table is bounded by max_chunks (default: cache pages / 8: a page per chunk
 * on average may be as sparse as 1 in 8 before the table, not the cache, limits; past that the
 * least recently used clean chunk goes). pc_size() for 1 GiB, 256 tasks and files: 12.6 MB of
 * address space, touched only as it is used. Runs of dirty pages are
 * found with bit operations, so writeback builds its ascending runs without per-page lists.
 * Extents were the alternative; they fragment without bound under random 4 KiB writes, and
 * chunks keep per-page state exact at a fixed cost.
 *
 * Frames: every cached page has a frame number 0 .. cache pages - 1 (pc_frame()): the host that
 * moves data (the engine with real I/O) keeps cache_bytes of frame memory and copies user data
 * to and from frame * 4096; a model host ignores frames.
 *
 * Tasks: the host numbers its tasks (fio jobs) 0 .. max_tasks - 1; the flusher is one more
 * task, pc_flusher() (with max_wbs > 1, one flusher per wb: pc_flusher() + w). A task runs one
 * system call at a time (write, read, fsync, truncate); each call returns what the host must do
 * next:
 * *   PC_DONE    the call is complete (res->bytes done). Every invocation (the call, then each
 *              pc_continue()) reports the bytes it moved in res->copy_lo .. copy_hi: a write
 *              dirtied those pages, a read found them uptodate (copy them at once: a later
 *              invocation may have let them be reclaimed).
 *   PC_SUBMIT  the task has I/O to issue: call pc_next_io() until it returns 0, submitting each
 *              request to the block layer as the task's own (owner = the task's blk owner,
 *              group = io.group, REQ_SYNC when io.flags & PC_IO_SYNC). If the block layer makes
 *              the task wait for a request (get_request()), stop pulling until it is admitted:
 *              the task is asleep there. When pc_next_io() returns 0, call pc_continue().
 *   PC_SLEEP   the task sleeps (balance_dirty_pages() pause, congestion_wait()) until
 *              res->until at the latest; pc_advance() or pc_set_congested() wake it early.
 *   PC_WAIT    the task waits for I/O (a page being read or written back, its flush, memory).
 *
 * A sleeping or waiting task is woken through host->wake(task): the host then calls
 * pc_continue(task), which goes on from where the task stopped. host is process-local and
 * passed to each call, never stored. Every I/O the host submitted for the page cache is handed
 * back with pc_io_done() when it completes (the descriptor as pc_next_io() filled it).
 *
 * The host's loop, in whatever clock it runs:
 *   - a task's system call: pc_write/pc_read/pc_fsync/pc_truncate, then act on the result;
 *   - wake(task): pc_continue(task), act on the result (the flusher is woken this way too);
 *   - completion of a page-cache I/O: pc_io_done() (it may wake tasks);
 *   - time: pc_advance(now) at pc_next_event() (pauses ending, the flusher's timers);
 *   - before 2.6.32 only: pc_set_congested() when the async request list crosses the legacy
 *     block layer's congestion thresholds (pdflush does not block on a congested queue). * Calls
 * must come with non-decreasing now.
 *
 * What a host provides (sim/vsim.c does all of it in virtual time):
 *   1. Memory: pc_size() bytes, 16-byte aligned, in the same shared block and under the same
 *      lock as the block layer (no call is thread-safe).
 *   2. Ids: tasks are the jobs' slots (pc_task_init() at job start with the job's group;
 *      pc_fadvise() as fio's fadvise_hint does: SEQUENTIAL for sequential jobs, RANDOM for
 *      random ones); files are inode numbers, one per distinct file of the domain
 *      (pc_file_open() with its size: the size of a laid-out file or device, 0 for a file
 *      created by writing it); the flusher needs one more block-layer owner.
 *   3. Requests: a pc_io becomes a block-layer request of the issuing task's owner (the
 *      flusher's for pc_flusher()), group io.group, op io.op, REQ_SYNC when PC_IO_SYNC (reads
 *      are sync anyway), never REQ_IDLE; offset = (io.index << PC_PAGE_SHIFT) in the file
 *      (plus the file's base on a device), length = io.npages << PC_PAGE_SHIFT. The flusher
 *      runs at the kworker's ioprio (BE/4). Keep the pc_io to hand back to pc_io_done().
 *   4. A buffered fio io_u is one system call: it completes when the call returns PC_DONE
 *      (iodepth does not matter: a buffered io_submit() is synchronous). fsync/fdatasync
 *      io_us are pc_fsync(); fio's unlink_each_loop is pc_truncate().
 *   5. The flusher is no fio job: some member of the domain must run it when it is woken
 *      (pull its requests, issue them, hand their completions back), whoever holds the lock.
 *   6. Data, for real I/O: cache_bytes of frame memory beside the block. After every call,
 *      copy res->copy_lo .. copy_hi between the user buffer and the pages' frames
 *      (pc_frame()), before releasing the lock. Issue a read request as an O_DIRECT preadv()
 *      into its pages' frames and a write request as an O_DIRECT pwritev() from them (frames
 *      of consecutive pages need not be consecutive), a flush as fdatasync() of the file.
 *      On a device model nothing moves.
 *   7. Time: pc_next_event() joins the domain's next timer (with blk_next_event()), and
 *      pc_advance() runs when it is due.
 *   8. The legacy block layer with a 2.6.x profile: pc_set_congested() from the async list's
 *      count (blk_allocated(q, 0)) against blk_queue_congestion_threshold()'s marks.
 */
#ifndef PAGECACHE_PAGECACHE_H
#define PAGECACHE_PAGECACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PC_PAGE_SHIFT  12
#define PC_PAGE_SIZE   (1u << PC_PAGE_SHIFT)
#define PC_CHUNK_SHIFT 6
#define PC_CHUNK_PAGES (1u << PC_CHUNK_SHIFT)
#define PC_NO_TIME     UINT64_MAX
#define PC_NONE	       UINT32_MAX
#define PC_MAX_FILES   65536
#define PC_MAX_TASKS   65536
#define PC_MAX_WBS     64 /* SCHED_MAX_GROUPS */

/*
 * One switch per upstream change the seeds depend on. A profile is a set of them (plus the
 * defaults of that era's tunables); each can be flipped alone.
 */
enum pc_switch {
	/*
	 * 3.2, 143dfe8611a6 "writeback: IO-less balance_dirty_pages()": the dirtier sleeps
	 * according to the dirty position and the write bandwidth and never writes back itself.
	 * Off (2.6.x): balance_dirty_pages() writes back write_chunk = 1.5 x ratelimit_pages of
	 * any dirty inode in the dirtier's own context (async requests of the dirtier), then
	 * sleeps in congestion_wait(HZ/10) until it has done its duty or is under the limit.
	 */
	PC_SW_IOLESS_THROTTLE = 1u << 0,
	/*
	 * 2.6.32, 03ba3782e8dc "writeback: switch to per-bdi threads for flushing data": the
	 * flusher blocks in get_request() like any writer. Off: pdflush, whose background and
	 * kupdate writeback is nonblocking (it stops when the queue is congested and sleeps in
	 * congestion_wait()).
	 */
	PC_SW_PER_BDI_FLUSHER = 1u << 1,
	/*
	 * 3.1, 1a12d8bd7b29 "writeback: scale IO chunk size up to half device bandwidth":
	 * writeback_chunk_size() per inode. Off: MAX_WRITEBACK_PAGES = 1024 pages (4 MiB) per
	 * writeback_inodes() call, shared by the inodes it visits.
	 */
	PC_SW_CHUNK_BY_BANDWIDTH = 1u << 2,
	/*
	 * fsync's data writeback (WB_SYNC_ALL) as REQ_SYNC. 2.6.29's xfs submitted it as a plain
	 * WRITE (xfs_submit_ioend_bio() took no wbc; read in an xfs_aops.c of that era), so it
	 * went to the device-wide async queue behind the flusher's; later xfs passed
	 * WRITE_SYNC(_PLUG) for WB_SYNC_ALL (commit not found; between 2.6.29 and 2.6.36), and
	 * since 4.10 wbc_to_write_flags() does it for every file system.
	 */
	PC_SW_SYNC_WRITEBACK_REQ_SYNC = 1u << 3,
	/*
	 * 4.2, cgroup writeback (Tejun Heo's series "writeback: cgroup writeback support",
	 * merged for 4.2; e.g. 52ebea749aae "writeback: make backing_dev_info host
	 * cgroup-specific bdi_writebacks"): an inode belongs to the bdi_writeback of its first
	 * dirtier's group (__inode_attach_wb()); each wb has its own inode lists, its own
	 * flusher work (kupdate, background; fsync writes the inode as its wb's) issuing the
	 * group's pages as the group's I/O, and its own share of the dirty limit in
	 * balance_dirty_pages() (__wb_calc_thresh(): the wb's fraction of recent writeback
	 * completions) with its own write bandwidth and dirty rate limit. The host gives one wb
	 * per group (max_wbs). Off: one wb, one flusher (a kworker of the root group) for every
	 * group.
	 */
	PC_SW_CGROUP_WRITEBACK = 1u << 4,
	/*
	 * 2.6.36, Wu Fengguang's "writeback: merge for_kupdate and !for_kupdate cases" (with
	 * "writeback: fix queue_io() ordering", Jul-Aug 2010; ids not looked up): an inode whose
	 * slice of writeback was used up goes to b_more_io for the next turn whatever started the
	 * writeback. Off (2.6.29's __sync_single_inode()): only kupdate requeues it; background
	 * writeback and the dirtier's redirty_tail() it, which restamps its dirtied_when when an
	 * inode dirtied later waits on s_dirty, so that one is written first at the next pass.
	 */
	PC_SW_REQUEUE_IO_ALL = 1u << 5,
};

enum pc_profile {
	PC_PROFILE_LINUX_6_12 = 0, /* every switch on; max_sectors_kb 1280, HZ 1000 */
	PC_PROFILE_LINUX_2_6_29,   /* every switch off; max_sectors_kb 512, HZ 250 */
	PC_PROFILE_NR,
};

/* The kernel's tunables, names and units (vm.* sysctls, queue/ sysfs). */
struct pc_params {
	uint64_t cache_bytes;		    /* the cache (dirtyable memory); default 1 GiB */
	uint32_t max_chunks;		    /* chunk table; 0: cache pages / 8 */
	uint32_t max_files;		    /* files are 0 .. max_files - 1 */
	uint32_t max_tasks;		    /* tasks are 0 .. max_tasks - 1, plus the flushers */
	/* bdi_writebacks (cgroup writeback): wb w is blkio group w's, with a flusher of its own
	 * (task max_tasks + w); 1 (the default): one wb and one flusher for every group. */
	uint32_t max_wbs;
	uint32_t dirty_background_ratio;    /* % of the cache (10) */
	uint64_t dirty_background_bytes;    /* wins over the ratio when set (0) */
	uint32_t dirty_ratio;		    /* % of the cache (20) */
	uint64_t dirty_bytes;		    /* wins over the ratio when set (0) */
	uint32_t dirty_expire_centisecs;    /* 3000 */
	uint32_t dirty_writeback_centisecs; /* 500; 0 disables periodic writeback */
	uint32_t read_ahead_kb;		    /* queue/read_ahead_kb: 128 */
	uint32_t max_sectors_kb;	    /* queue/max_sectors_kb: largest request */
	uint32_t hz;			    /* jiffies per second in the throttle arithmetic */
	uint32_t nr_cpus;		    /* for ratelimit_pages */
	uint32_t switches;		    /* enum pc_switch */
	bool fsync_flush;		    /* fsync ends with a cache flush; false: nobarrier */
	/* 1: writeback sends a bio per 4 KiB page, as a raw block device's does (6.12's
	 * blkdev_writepages() with CONFIG_BUFFER_HEAD, 2.6.x's generic_writepages():
	 * block_write_full_folio()/_page() per page, whose submit_bh() sends each 4 KiB buffer
	 * head as a bio), for the pass's plug or the elevator to merge. 0: a bio per run of
	 * dirty pages up to max_sectors_kb, as a filesystem's writepages (ext4, xfs, iomap). */
	uint32_t buffer_head_writeback;
};

enum pc_rc {
	PC_DONE = 0,
	PC_SUBMIT,
	PC_SLEEP,
	PC_WAIT,
	PC_ERROR = -1, /* bad arguments (task busy, file not open, out of range) */
};

enum pc_io_op {
	PC_IO_READ = 0, /* the same values as enum sched_op */
	PC_IO_WRITE = 1,
	PC_IO_FLUSH = 2,
};

enum pc_io_flags {
	PC_IO_SYNC = 1u << 0,	    /* REQ_SYNC (reads are always sync) */
	PC_IO_RAHEAD = 1u << 1,	    /* an async read-ahead window (REQ_RAHEAD) */
	PC_IO_BACKGROUND = 1u << 2, /* flusher writeback (REQ_BACKGROUND) */
	/* The last request of one read_pages() (a read-ahead window) or of a single page read:
	 * the host finishes the task's plug after it and runs the queue, as blk_finish_plug()
	 * does there, so a read's sync window is in the queue (dispatched if it may be) before
	 * the async window behind it is submitted. Writeback has no such mark: wb_writeback()
	 * and ext4_do_writepages() hold one plug over the whole pass. */
	PC_IO_UNPLUG = 1u << 3,
};

enum pc_reason {
	PC_WHY_READ = 0,    /* a read's own (synchronous) read-ahead or page read */
	PC_WHY_READAHEAD,   /* async read-ahead (the marker was hit) */
	PC_WHY_WRITE_BEGIN, /* a partial-page write read the page first */
	PC_WHY_FSYNC,	    /* WB_SYNC_ALL writeback, or fsync's flush */
	PC_WHY_KUPDATE,	    /* the flusher: expired inodes */
	PC_WHY_BACKGROUND,
	/* the flusher: above the background threshold */ PC_WHY_DIRTIER, /* balance_dirty_pages()
									     before 3.2: the dirtier
									     writes back */
	PC_WHY_FADVISE, /* POSIX_FADV_DONTNEED's WB_SYNC_NONE writeback (fio's invalidate) */
	PC_WHY_NR,
};

/* One request for the block layer. Filled by pc_next_io(), handed back to pc_io_done(). */
struct pc_io {
	uint32_t file;
	uint32_t index;	 /* first page; the byte offset in the file is index << PC_PAGE_SHIFT */
	uint32_t npages; /* 0 for a flush */
	uint8_t op;	 /* enum pc_io_op */
	uint8_t flags;	 /* enum pc_io_flags */
	uint8_t reason;	 /* enum pc_reason */
	uint8_t tag;	 /* the page cache's own; hand it back unchanged */
	uint32_t issuer; /* the task that submits it (pc_flusher() for the flusher) */
	uint32_t group;	 /* the blkio group to charge */
};

struct pc_result {
	int rc;		/* enum pc_rc, also returned */
	uint64_t bytes; /* bytes of the call done so far (written into / read from the cache) */
	uint64_t until; /* PC_SLEEP: wake-up time at the latest */
	/* Bytes [copy_lo, copy_hi) of the file were moved into the cache (write) or are uptodate
	 * for the read (read) by this very invocation: a host that keeps data copies them between
	 * the user buffer and their frames now, before anything else runs. Empty when equal. */
	uint64_t copy_lo, copy_hi;
};

/* What the host does for the page cache; process-local, passed to each call, never stored. */
struct pc_host {
	/* The task may go on: call pc_continue(task) (not from inside this callback). */
	void (*wake)(void *ctx, uint32_t task, uint64_t now);
	void *ctx;
};

/* Per bdi_writeback (pc_wb_stats()). */
struct pc_wb_stats {
	uint64_t dirtied;     /* pages dirtied in its inodes */
	uint64_t written;     /* writeback completions of its pages (by anyone: flusher, fsync) */
	uint64_t wb_pages;    /* pages its flusher wrote back (kupdate, background, reclaim) */
	uint64_t wb_requests; /* ... in requests */
	uint64_t inodes;      /* inodes attached to it */
	uint32_t write_bw;    /* avg_write_bandwidth, pages/s (3.2+) */
	uint32_t dirty_ratelimit; /* pages/s (3.2+) */
	uint32_t wb_thresh;	  /* its share of the dirty limit, pages, as last computed */
	uint32_t pad;
};

/* Per task; the flusher's at pc_flusher(). */
struct pc_task_stats {
	uint64_t dirtied;     /* pages it dirtied */
	uint64_t throttle_ns; /* time paused in balance_dirty_pages() (both eras) */
	uint64_t pauses;      /* balance_dirty_pages() sleeps */
	uint64_t wb_pages;    /* pages it wrote back (flusher; dirtier before 3.2; fsync) */
	uint64_t wb_requests;
	uint64_t read_hits;	    /* pages read from the cache without waiting */
	uint64_t read_waits;	    /* waits for a page being read */
	uint64_t ra_sync, ra_async; /* read-ahead windows started */
	uint64_t ra_pages;	    /* pages it read ahead */
	uint64_t read_requests;
	uint64_t fsyncs;
	uint64_t fsync_waits_on_writeback; /* fsync waited for a page under writeback */
	uint64_t fsync_redirty_waits;	   /* ... that was dirty again (before writing it) */
	uint64_t memory_waits;		   /* no page could be reclaimed */
	uint64_t congestion_waits;	   /* before 2.6.32 / 3.2 */
};

struct pc_stats {
	uint64_t nr_cached, max_cached;	      /* pages in the cache now, most ever */
	uint64_t nr_dirty, max_dirty;	      /* NR_FILE_DIRTY */
	uint64_t nr_writeback, max_writeback; /* NR_WRITEBACK */
	uint64_t max_dirty_plus_writeback;
	uint64_t dirtied, written; /* pages dirtied, writeback completions */
	uint64_t read_pages;	   /* pages read from the device */
	uint64_t reclaimed, evicted_chunks;
	uint64_t chunks, max_chunks_used;
	uint64_t background_works, kupdate_works, background_kicks;
	uint64_t wb_requests[PC_WHY_NR]; /* requests by reason */
	uint64_t wb_pages[PC_WHY_NR];	 /* pages by reason */
	uint64_t flusher_wakeups;
	uint64_t dirty_exceeded;	    /* balance_dirty_pages() calls past the limit */
	uint32_t thresh, bg_thresh;	    /* the last computed limits, pages */
	uint32_t dirty_ratelimit, write_bw; /* pages/s (3.2+; the wb last updated) */
	/* Writeback completions of the pages of inodes first dirtied by group g (with cgroup
	 * writeback the group whose I/O they were), whoever wrote them back. */
	uint64_t written_by_group[PC_MAX_WBS];
};

struct pc;

/* Profile defaults (the era's tunables and switches); cache 1 GiB, 256 files, 256 tasks. */
void pc_params_defaults(struct pc_params *p, enum pc_profile profile);
const char *pc_profile_name(enum pc_profile profile);
int pc_profile_by_name(const char *name); /* "6.12", "2.6.29"; -1 when unknown */
/* Sets one tunable by its kernel name ("dirty_ratio", "read_ahead_kb", "pagecache_mb",
 * "fsync_flush", a switch name such as "ioless_throttle"). 0, or -1 with a message. */
int pc_set_param(struct pc_params *p, const char *name, const char *value, char *err,
		 size_t errlen);
int pc_params_check(const struct pc_params *p, char *err, size_t errlen);

/* The sysctl and queue tunables a user may set (vm.dirty_*, queue/read_ahead_kb; and
 * buffer_head_writeback, what the target is), by their
 * kernel names and units: the engine's and schedsim's options of the same names. */
#define PC_NR_TUNABLES 9
/* queue/max_segments (BLK_MAX_SEGMENTS, blk/'s too): page cache pages are not physically
 * contiguous, a segment each, and a bio past the queue's limits is split there
 * (blk_queue_split() from 4.3, __bio_split_to_limits() in 6.x; before 4.3 bio_add_page()
 * refused the page), so no request holds more pages, whatever max_sectors_kb allows. */
#define PC_MAX_SEGMENTS 128u
/* max_sectors_kb's index in pc_tunable_names (the block layer reads it too). */
#define PC_MAX_SECTORS_KB_PARAM 7
/* buffer_head_writeback's: the engine sets it for a raw block device it merges for. */
#define PC_BH_WRITEBACK_PARAM 8
extern const char *const pc_tunable_names[PC_NR_TUNABLES];
/* Applies "name=value,name=value" (names of pc_tunable_names) in order. 0, or -1 with a
 * message naming the first bad one. */
int pc_apply_tunables(struct pc_params *p, const char *list, char *err, size_t errlen);
/* The list pc_apply_tunables() takes, from one value (or NULL) per pc_tunable_names entry, as
 * given to a job: each checked (its range; the page cache on; one of each bytes/ratio pair, as
 * the sysctl handlers keep one). 0, or -1 with a one-line message naming the option. */
int pc_tunables_join(const char *const vals[PC_NR_TUNABLES], bool pagecache_on, char *out,
		     size_t outlen, char *err, size_t errlen);

/* Bytes for a cache of these parameters (0 when invalid). */
size_t pc_size(const struct pc_params *p);
/* Builds it in mem (16-byte aligned, pc_size() bytes). NULL with a one-line message in err. */
struct pc *pc_init(void *mem, size_t size, const struct pc_params *p, uint64_t now, char *err,
		   size_t errlen);

/* The flusher's task number (max_tasks): wb 0's, the root group's. With max_wbs > 1 the
 * flusher of wb w is pc_flusher() + w: tasks pc_flusher() .. pc_flusher() + pc_nr_wbs() - 1
 * are flushers, each an owner of its own (a kworker, BE/4) woken through host->wake. */
uint32_t pc_flusher(const struct pc *pc);
uint32_t pc_nr_wbs(const struct pc *pc);
/* The wb's statistics (NULL past pc_nr_wbs()); whether an inode was ever attached to it. */
const struct pc_wb_stats *pc_wb_stats(const struct pc *pc, uint32_t wb);
bool pc_wb_used(const struct pc *pc, uint32_t wb);
/* A file (an inode) of i_size size bytes. 0, or -1 when out of range. Opening again only
 * grows i_size. */
int pc_file_open(struct pc *pc, uint32_t file, uint64_t size);
/* A task starts: its blkio group (for reads, and writeback without cgroup writeback). */
int pc_task_init(struct pc *pc, uint32_t task, uint32_t group);

enum pc_fadvise {
	PC_FADV_NORMAL = 0,
	PC_FADV_SEQUENTIAL, /* read-ahead window x 2 (fio's fadvise_hint for sequential jobs) */
	PC_FADV_RANDOM,	    /* FMODE_RANDOM: read exactly what is asked (random jobs) */
};
/* posix_fadvise() of the task's open file (its read-ahead state). */
int pc_fadvise(struct pc *pc, uint32_t task, uint32_t file, enum pc_fadvise advice);

/* The system calls. Each returns enum pc_rc (also in res->rc). */
int pc_write(struct pc *pc, uint32_t task, uint32_t file, uint64_t off, uint64_t len, uint64_t now,
	     const struct pc_host *h, struct pc_result *res);
int pc_read(struct pc *pc, uint32_t task, uint32_t file, uint64_t off, uint64_t len, uint64_t now,
	    const struct pc_host *h, struct pc_result *res);
/* fsync/fdatasync (alike here: no metadata): the file's dirty pages as WB_SYNC_ALL
 * writeback, the wait for every page under writeback, then the flush (fsync_flush). */
int pc_fsync(struct pc *pc, uint32_t task, uint32_t file, uint64_t now, const struct pc_host *h,
	     struct pc_result *res);
/* unlink/ftruncate(0): waits for pages under I/O, drops every page (dirty ones cancelled). */
int pc_truncate(struct pc *pc, uint32_t task, uint32_t file, uint64_t now, const struct pc_host *h,
		struct pc_result *res);
/* posix_fadvise(fd, off, len, POSIX_FADV_DONTNEED) (fio's invalidate=1 at open and each loop:
 * the job's own range, file_offset and io_size; len 0: to the end of the file), as 6.12's
 * generic_fadvise(): starts WB_SYNC_NONE writeback of the dirty pages the range touches in the
 * caller's name, without waiting (not while the queue is congested: the 2.6.x profile), then
 * drops the clean, idle pages wholly inside the range (a partial first or last page stays,
 * unless the range ends at i_size). 2.6.29 wrote back the whole file (filemap_flush()) and
 * dropped a partial last page too: not modelled. */
int pc_invalidate(struct pc *pc, uint32_t task, uint32_t file, uint64_t off, uint64_t len,
		  uint64_t now, const struct pc_host *h, struct pc_result *res);
/* Goes on with the task's call (after SUBMIT's last pc_next_io(), or when woken). */
int pc_continue(struct pc *pc, uint32_t task, uint64_t now, const struct pc_host *h,
		struct pc_result *res);
/* The task's next request: 1 (io filled) or 0 (none now: call pc_continue()). */
int pc_next_io(struct pc *pc, uint32_t task, uint64_t now, struct pc_io *io);
/* A request from pc_next_io() completed. */
void pc_io_done(struct pc *pc, const struct pc_io *io, uint64_t now, const struct pc_host *h);
/* Before 2.6.32: the async request list became (un)congested. */
void pc_set_congested(struct pc *pc, bool congested, uint64_t now, const struct pc_host *h);
/* When pc_advance() must next run; PC_NO_TIME when nothing is timed. */
uint64_t pc_next_event(const struct pc *pc);
/* Wakes the tasks whose pause ended and fires the flusher's timers up to now. */
void pc_advance(struct pc *pc, uint64_t now, const struct pc_host *h);

/* The frame of a cached page, PC_NONE when the page is not in the cache. */
uint32_t pc_frame(const struct pc *pc, uint32_t file, uint32_t index);
enum pc_page_state {
	PC_PG_PRESENT = 1u << 0,
	PC_PG_UPTODATE = 1u << 1,
	PC_PG_DIRTY = 1u << 2,
	PC_PG_WRITEBACK = 1u << 3,
	PC_PG_LOCKED = 1u << 4, /* being read */
	PC_PG_TOWRITE = 1u << 5,
	PC_PG_READAHEAD = 1u << 6,
};
/* enum pc_page_state bits of a page (0: not cached). */
uint32_t pc_page_state(const struct pc *pc, uint32_t file, uint32_t index);
/* Whether the task is inside a call (between a pc_write/read/fsync/truncate and its DONE). */
bool pc_task_busy(const struct pc *pc, uint32_t task);

const struct pc_stats *pc_stats(const struct pc *pc);
const struct pc_task_stats *pc_task_stats(const struct pc *pc, uint32_t task);
/* The file's pages: cached, dirty, under writeback. */
void pc_file_counts(const struct pc *pc, uint32_t file, uint64_t *cached, uint64_t *dirty,
		    uint64_t *writeback);
/* The dirty limits now, in pages (domain_dirty_limits()). */
void pc_dirty_limits(const struct pc *pc, uint64_t *bg_thresh, uint64_t *thresh);
/* Consistency check of the whole structure (counts against bits, treap, LRU); for tests.
 * 0, or -1 with a message. */
int pc_check(const struct pc *pc, char *err, size_t errlen);

#endif
