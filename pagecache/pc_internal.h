/* SPDX-License-Identifier: GPL-2.0 */
/* The page cache's state and the helpers its files share. Not for hosts: see pagecache.h. */
#ifndef PAGECACHE_PC_INTERNAL_H
#define PAGECACHE_PC_INTERNAL_H

#include "pagecache.h"

#define PC_NS_PER_SEC		 1000000000ull
#define PC_TASK_QUEUE		 64 /* queued requests of one call (read-ahead runs) */
#define PC_KEY_FREE		 UINT64_MAX
#define PC_MAX_WRITEBACK_PAGES	 1024 /* 2.6.x fs-writeback.c: 4 MiB per pass */
#define PC_MIN_WRITEBACK_PAGES	 1024 /* 3.1+: writeback_chunk_size() rounding, 4 MiB */
#define PC_DIRTY_SCOPE		 8    /* 3.1+ DIRTY_SCOPE */
#define PC_INIT_BW		 (100u << (20 - PC_PAGE_SHIFT)) /* mm/backing-dev.c INIT_BW: 100 MB/s */
#define PC_RATELIMIT_CALC_SHIFT	 10
#define PC_DIRTY_POLL_THRESH	 32 /* 128 KiB in pages */
#define PC_INIT_NR_DIRTIED_PAUSE 32 /* copy_process(): 128 >> (PAGE_SHIFT - 10) */

/* 64 consecutive pages of one file. */
struct pc_chunk {
	uint64_t key; /* file << 32 | chunk number; PC_KEY_FREE when free */
	uint64_t present, uptodate, dirty, writeback, locked, towrite, ramark;
	uint32_t left, right;	     /* treap by key */
	uint32_t lru_prev, lru_next; /* LRU (free list: lru_next) */
	uint32_t frame[PC_CHUNK_PAGES];
};

/* The inode writeback lists of the (one) bdi_writeback. */
enum { WBL_NONE = 0, WBL_DIRTY, WBL_IO, WBL_MORE_IO, WBL_NR };

struct pc_list {
	uint32_t head, tail; /* list_add() puts at head; writeback takes from tail */
	uint32_t count;
};

struct pc_file {
	uint8_t open;
	uint8_t list;	      /* WBL_*: on a list while it has dirty pages (I_DIRTY_PAGES) */
	uint8_t wb_group_set; /* its wb is bound (cgroup writeback: first dirtier's group) */
	uint8_t pad;
	uint32_t prev, next;	  /* list links (file numbers) */
	uint32_t writeback_index; /* mapping->writeback_index (range_cyclic resume point) */
	uint32_t sync_owner;	  /* I_SYNC: the task writing it back in a pass, PC_NONE */
	uint32_t wb_group;
	uint32_t pad2;
	uint64_t size;	       /* i_size */
	uint64_t dirtied_when; /* inode->dirtied_when, ns */
	uint64_t nr_cached, nr_dirty, nr_writeback, nr_locked;
};

/* struct file_ra_state, per task (its open file). */
struct pc_ra {
	uint32_t file;
	uint32_t start, size, async_size;
	uint32_t ra_pages;
	uint8_t random; /* FMODE_RANDOM */
	uint8_t pad[3];
	uint64_t prev_pos; /* UINT64_MAX: -1 */
};

/* write_cache_pages() over one inode. */
struct pc_wbc {
	uint32_t file;
	uint32_t index; /* next page */
	uint32_t end;	/* last page (inclusive) */
	uint8_t sync_all;
	uint8_t cyclic;
	uint8_t pad[2];
	int64_t nr_to_write;
	int64_t written;
};

/* PASS_START_ALL: memory pressure (wakeup_flusher_threads(WB_REASON_VMSCAN)): every dirty
 * page, whatever the background threshold; its requests count as background writeback. */
enum { PASS_NONE = 0, PASS_KUPDATE, PASS_BACKGROUND, PASS_DIRTIER, PASS_START_ALL };

/* writeback_inodes() / writeback_sb_inodes(): one walk over b_io by one task. */
struct pc_pass {
	uint8_t active;
	uint8_t kind;
	uint8_t nonblocking; /* pdflush: stop when the queue is congested */
	uint8_t per_inode;   /* 3.1+: each inode gets writeback_chunk_size() */
	uint8_t in_inode;    /* wbc is walking an inode */
	uint8_t encountered_congestion;
	uint8_t more_io;
	uint8_t pad;
	uint32_t wb; /* the bdi_writeback whose lists it walks */
	uint32_t pad2;
	int64_t budget;	  /* pages left for the call (2.6.x) / work->nr_pages (3.1+) */
	int64_t wrote;	  /* pages written by this call */
	int64_t progress; /* pages written plus inodes found clean (wb_writeback()) */
	uint64_t dirtied_before;
	struct pc_wbc wbc;
};

enum {
	CALL_NONE = 0,
	CALL_WRITE,
	CALL_READ,
	CALL_FSYNC,
	CALL_TRUNCATE,
	CALL_FLUSHER,
	CALL_INVALIDATE,
};

enum {
	W_NONE = 0,
	W_SLEEP,      /* until sleep_until (pause) */
	W_CONGESTION, /* congestion_wait(): until sleep_until or the queue decongests */
	W_PAGE,	      /* a page's read or writeback */
	W_MEMORY,     /* any completion (a page may become reclaimable) */
	W_IOS,	      /* its own queued requests (the flush) */
	W_INODE,      /* an inode under I_SYNC by another task */
};

/* Phases of the calls. */
enum {
	PH_NONE = 0,
	/* write */
	PH_COPY,
	PH_BDP,		/* inside balance_dirty_pages() */
	PH_BDP_WRITING, /* 2.6.x: the dirtier's writeback pass */
	/* fsync */
	PH_FSYNC_WRITE,
	PH_FSYNC_WAIT,
	PH_FSYNC_FLUSH,
	PH_FSYNC_FLUSHING,
	/* flusher */
	PH_FL_IDLE,
	PH_FL_PASS,
};

struct pc_task {
	uint8_t used;
	uint8_t call;
	uint8_t phase;
	uint8_t wait;
	uint8_t bdp_again; /* 3.2+: the balance_dirty_pages() loop goes on after the pause */
	uint8_t fadvise;
	uint8_t woken; /* a wake-up was sent and not consumed */
	uint8_t pad;
	uint32_t group;
	uint32_t file;
	uint32_t wait_file, wait_index;
	uint32_t read_waited; /* the page this read last waited for (not a hit) */
	uint32_t pad5;
	uint64_t pos, end; /* the call's remaining byte range */
	uint64_t done;	   /* bytes done */
	uint64_t sleep_until;
	uint64_t sleep_start;
	uint64_t bdp_start; /* when balance_dirty_pages() began to hold the task */
	/* Requests queued by the call (read-ahead runs, a page read, the flush). */
	struct pc_io q[PC_TASK_QUEUE];
	uint32_t q_head, q_count;
	uint32_t own_in_flight; /* its queued requests submitted and not completed */
	/* balance_dirty_pages() */
	uint32_t nr_dirtied, nr_dirtied_pause;
	uint64_t dirty_paused_when; /* jiffies (3.2+); 0 none */
	uint64_t bdp_pages;
	int64_t bdp_written;   /* 2.6.x: pages_written in this balance_dirty_pages() */
	uint64_t prop_dirtied; /* 2.6.x task_dirty_limit(): decayed count */
	/* fsync */
	uint32_t fsync_wait_pos;
	uint32_t prop_gen; /* 2.6.x: the period prop_dirtied was last decayed to */
	struct pc_ra ra;
	struct pc_pass pass;
	struct pc_task_stats st;
};

struct pc_flusher_state {
	uint8_t work;	     /* PASS_*: wb_writeback() work in progress */
	uint8_t kick;	     /* wb_wakeup() / pdflush_operation(background_writeout) pending */
	uint8_t kupdate_due; /* 2.6.x: wb_timer fired */
	uint8_t running;     /* WB_writeback_running / BDI_pdflush */
	uint8_t stage;	     /* 3.2+ wb_do_writeback(): 0 kupdate check, 1 background, 2 done */
	uint8_t queued;	     /* this wb_writeback() iteration queued io */
	uint8_t pass_ran;    /* a pass of the current work has run */
	uint8_t start_all;   /* reclaim asked for all dirty pages (WB_start_all) */
	int64_t nr_pages;    /* work->nr_pages (3.1+); nr_to_write (2.6.x kupdate) */
	uint64_t timer;	     /* the delayed wake-up (kupdate), PC_NO_TIME */
	uint64_t last_old_flush;
	uint64_t dirtied_before;
	uint64_t work_start;
};

/*
 * One bdi_writeback (struct bdi_writeback): its inode lists, its flusher (wb_workfn()), its
 * share of the dirty pages and of the writeback completions, its bandwidth estimate and dirty
 * rate limit. With cgroup writeback (4.2+) one per blkio group (wb w is group w's, its flusher
 * task max_tasks + w), else one (wb 0) for everyone.
 */
struct pc_wb {
	struct pc_list wbl[WBL_NR];
	struct pc_flusher_state fl;
	uint64_t nr_reclaimable, nr_writeback; /* wb_stat(WB_RECLAIMABLE), WB_WRITEBACK */
	uint64_t wb_dirtied, wb_written;       /* WB_DIRTIED, WB_WRITTEN */
	uint64_t bw_time_stamp, dirtied_stamp, written_stamp;
	uint64_t write_bandwidth, avg_write_bandwidth;
	uint64_t dirty_ratelimit, balanced_dirty_ratelimit;
	uint64_t completions; /* wb->completions (struct fprop_local_percpu): events */
	uint32_t completions_period;
	uint8_t dirty_exceeded;
	uint8_t pad[3];
	struct pc_wb_stats st;
};

struct pc {
	struct pc_params p;
	uint32_t cache_pages, max_chunks, max_files, max_tasks;
	uint32_t ra_pages; /* read_ahead_kb in pages */
	uint32_t io_pages; /* max_sectors_kb in pages (bdi->io_pages: read-ahead's reach) */
	uint32_t rq_pages; /* a request's pages: io_pages within PC_MAX_SEGMENTS */
	uint64_t jiffy_ns;
	uint64_t off_files, off_tasks, off_chunks, off_frames;
	/* Which tasks wait, by class (pc_set_wait()): the scans for waiters (completions,
	 * timers, decongestion) visit those tasks only, in ascending order as the walk of every
	 * task did, not all max_tasks + 1 on every request. */
	uint64_t off_waiters;
	/* chunks */
	uint32_t root;			/* treap */
	uint32_t chunk_hwm, chunk_free; /* never used from here on; free list */
	uint32_t lru_head, lru_tail;
	uint32_t nr_chunks;
	/* frames */
	uint32_t frame_hwm, frame_free_top;
	uint32_t pin_chunk; /* not reclaimed while a call fills it */
	uint32_t task_hi;   /* tasks ever initialized are below this (the flushers aside) */
	/* the bdi_writebacks (struct pc_wb[nr_wbs]); tasks are 0 .. nr_all - 1, the flusher of
	 * wb w is max_tasks + w */
	uint64_t off_wbs;
	uint32_t nr_wbs, nr_all;
	uint32_t nr_wbs_used; /* wbs an inode was ever attached to */
	uint32_t completions_period;
	/* global_wb_domain.completions (struct fprop_global): events, and the period timer
	 * (jiffies; 0: stopped) that ages them every VM_COMPLETIONS_PERIOD_LEN */
	uint64_t completions_events, completions_period_time;
	/* global counters (NR_FILE_DIRTY, NR_WRITEBACK) */
	uint64_t nr_dirty, nr_writeback, nr_cached;
	/* 3.2+ the global domain's dirty_limit (pages, jiffies) */
	uint64_t dom_dirty_limit, dirty_limit_tstamp;
	uint32_t ratelimit_pages, bdp_ratelimits;
	uint8_t congested;
	uint8_t pad3[7];
	/* 2.6.x task_dirty_limit(): the decayed total of recent dirtying, the events of the
	 * current period and the period number */
	uint64_t prop_total, prop_events;
	uint32_t prop_gen, pad4;
	struct pc_stats st;
	uint64_t clock;
};

static inline bool pc_sw(const struct pc *pc, uint32_t sw)
{
	return (pc->p.switches & sw) != 0;
}

static inline struct pc_file *pc_file_of(const struct pc *pc, uint32_t f)
{
	return (struct pc_file *)((char *)pc + pc->off_files) + f;
}

static inline struct pc_task *pc_task_of(const struct pc *pc, uint32_t t)
{
	return (struct pc_task *)((char *)pc + pc->off_tasks) + t;
}

static inline struct pc_wb *pc_wb_of(const struct pc *pc, uint32_t w)
{
	return (struct pc_wb *)((char *)pc + pc->off_wbs) + w;
}

/* The inode's wb (inode_to_wb()): its first dirtier's group's with cgroup writeback (a group
 * past the host's wbs: the root's), else the one wb. Fixed once the inode is dirtied. */
static inline uint32_t pc_file_wbi(const struct pc *pc, const struct pc_file *f)
{
	return f->wb_group_set && pc_sw(pc, PC_SW_CGROUP_WRITEBACK) && f->wb_group < pc->nr_wbs
		   ? f->wb_group
		   : 0;
}

static inline struct pc_wb *pc_file_wb(const struct pc *pc, uint32_t f)
{
	return pc_wb_of(pc, pc_file_wbi(pc, pc_file_of(pc, f)));
}

static inline bool pc_is_flusher(const struct pc *pc, uint32_t task)
{
	return task >= pc->max_tasks && task < pc->nr_all;
}

/* The flusher task of wb w, and the wb of a flusher task. */
static inline uint32_t pc_flusher_task(const struct pc *pc, uint32_t w)
{
	return pc->max_tasks + w;
}

/* The waiter bitmaps, (max_tasks + 1 + 63) / 64 words each: the timed waits (W_SLEEP,
 * W_CONGESTION: timers, decongestion), the waits for a page (W_PAGE), the others (W_MEMORY,
 * W_IOS, W_INODE). After them, per task, the page a W_PAGE waiter waits for (pc_page_key()):
 * a completion looks at those keys, not at every waiter's task. */
enum { PC_WAITERS_TIMED = 0, PC_WAITERS_PAGE, PC_WAITERS_OTHER, PC_WAITERS_NR };

static inline uint32_t pc_waiter_words(const struct pc *pc)
{
	return (pc->nr_all + 63) / 64;
}

static inline uint64_t *pc_waiters(const struct pc *pc, int cls)
{
	return (uint64_t *)((char *)pc + pc->off_waiters) + (uint32_t)cls * pc_waiter_words(pc);
}

/* Sets what task t waits for, keeping the waiter bitmaps in step: every write of t->wait is
 * this. */
static inline void pc_set_wait(struct pc *pc, struct pc_task *t, uint8_t wait)
{
	uint32_t k = (uint32_t)(t - pc_task_of(pc, 0));
	uint64_t bit = 1ull << (k % 64);
	uint64_t *timed = &pc_waiters(pc, PC_WAITERS_TIMED)[k / 64],
		 *io = &pc_waiters(pc, PC_WAITERS_OTHER)[k / 64];

	uint64_t *page = &pc_waiters(pc, PC_WAITERS_PAGE)[k / 64];

	t->wait = wait;
	*timed &= ~bit;
	*page &= ~bit;
	*io &= ~bit;
	if (wait == W_SLEEP || wait == W_CONGESTION)
		*timed |= bit;
	else if (wait == W_PAGE)
		*page |= bit;
	else if (wait != W_NONE)
		*io |= bit;
}

static inline uint64_t pc_page_key(uint32_t file, uint32_t index)
{
	return (uint64_t)file << 32 | index;
}

/* Per task: the page it waits for while in W_PAGE. */
static inline uint64_t *pc_wait_keys(const struct pc *pc)
{
	return pc_waiters(pc, PC_WAITERS_NR);
}

/* Task t waits for page index of file (W_PAGE). */
static inline void pc_wait_page(struct pc *pc, struct pc_task *t, uint32_t file, uint32_t index)
{
	t->wait_file = file;
	t->wait_index = index;
	pc_wait_keys(pc)[t - pc_task_of(pc, 0)] = pc_page_key(file, index);
	pc_set_wait(pc, t, W_PAGE);
}

/* The first task at or after k in the waiter class cls, nr_all when none. */
static inline uint32_t pc_next_waiter(const struct pc *pc, int cls, uint32_t k)
{
	const uint64_t *wv = pc_waiters(pc, cls);
	uint32_t nw = pc_waiter_words(pc), w = k / 64;
	uint64_t bits;

	if (k >= pc->nr_all)
		return pc->nr_all;
	bits = wv[w] & (~0ull << (k % 64));
	while (!bits) {
		if (++w >= nw)
			return pc->nr_all;
		bits = wv[w];
	}
	k = w * 64 + (uint32_t)__builtin_ctzll(bits);
	return k < pc->nr_all ? k : pc->nr_all;
}

static inline struct pc_chunk *pc_chunk_of(const struct pc *pc, uint32_t c)
{
	return (struct pc_chunk *)((char *)pc + pc->off_chunks) + c;
}

static inline uint32_t *pc_frame_stack(const struct pc *pc)
{
	return (uint32_t *)((char *)pc + pc->off_frames);
}

static inline uint64_t pc_key(uint32_t file, uint32_t chunkno)
{
	return (uint64_t)file << 32 | chunkno;
}

static inline uint64_t pc_jiffies(const struct pc *pc, uint64_t now)
{
	return now / pc->jiffy_ns;
}

/* pagecache.c: chunks, pages, accounting, lists */
uint32_t pc_chunk_find(const struct pc *pc, uint32_t file, uint32_t chunkno);
/* The first chunk of file at or after chunkno, PC_NONE when none. */
uint32_t pc_chunk_next(const struct pc *pc, uint32_t file, uint32_t chunkno);
/* Puts a page in the cache (absent before): a frame, present; false when no memory. */
bool pc_page_alloc(struct pc *pc, uint32_t file, uint32_t index);
uint32_t pc_page_bits(const struct pc *pc, uint32_t file, uint32_t index, uint32_t *chunk);
void pc_lru_touch(struct pc *pc, uint32_t c);
/* Page transitions, with the global/file counters. */
void pc_page_set_dirty(struct pc *pc, uint32_t c, uint32_t bit, uint32_t task, uint64_t now);
void pc_page_start_writeback(struct pc *pc, uint32_t c, uint32_t bit);
void pc_page_end_writeback(struct pc *pc, uint32_t c, uint32_t bit, uint64_t now);
void pc_page_drop(struct pc *pc, uint32_t c, uint32_t bit); /* truncate: cancels dirty */
void pc_chunk_release_if_empty(struct pc *pc, uint32_t c);
/* The lists of the file's wb (pc_file_wbi()). */
void pc_list_del(struct pc *pc, uint32_t f);
void pc_list_add_head(struct pc *pc, uint32_t f, int list);
uint32_t pc_list_tail(const struct pc *pc, uint32_t wb, int list);
void pc_wake(struct pc *pc, uint32_t task, uint64_t now, const struct pc_host *h);
void pc_task_queue_io(struct pc *pc, uint32_t task, const struct pc_io *io);
uint32_t pc_io_group(const struct pc *pc, uint32_t task, uint32_t file, bool write);
void pc_flusher_arm(struct pc *pc, uint32_t wb, uint64_t at);

/* pc_throttle.c: dirty limits and balance_dirty_pages() */
void pc_limits(const struct pc *pc, uint64_t *bg_thresh, uint64_t *thresh);
/* After a page was dirtied by a write: balance_dirty_pages_ratelimited(). Returns PC_DONE to
 * go on copying, or what the task must do (SLEEP; SUBMIT for the 2.6.x dirtier). */
int pc_bdp_ratelimited(struct pc *pc, uint32_t task, uint64_t now, const struct pc_host *h,
		       struct pc_result *res);
/* Continues balance_dirty_pages() after a sleep or the 2.6.x dirtier's pass. */
int pc_bdp_continue(struct pc *pc, uint32_t task, uint64_t now, const struct pc_host *h,
		    struct pc_result *res);
/* __wb_calc_thresh(): the wb's share of thresh, by its fraction of the recent writeback
 * completions (one wb in use: all of it); dirty is the domain's (for nothing in 6.12). */
uint64_t pc_wb_calc_thresh(const struct pc *pc, uint32_t wb, uint64_t thresh, uint64_t dirty);
/* __wb_update_bandwidth(update_ratelimit = false): the write bandwidth only. */
void pc_bw_update(struct pc *pc, uint32_t wb, uint64_t now);
/* A page's writeback completed: WB_WRITTEN and the completions (__wb_writeout_add()). */
void pc_wb_writeout(struct pc *pc, uint32_t wb, uint64_t now);
void pc_prop_dirtied(struct pc *pc, struct pc_task *t, uint64_t now, uint32_t n);

/* pc_writeback.c: the walk, passes, the flusher, fsync, truncate */
void pc_wbc_init(struct pc_wbc *w, uint32_t file, uint32_t index, uint32_t end, bool sync_all,
		 bool cyclic, int64_t nr_to_write);
enum { WALK_IO = 0, WALK_END, WALK_BUDGET, WALK_WAIT, WALK_CONGESTED };
int pc_wbc_next(struct pc *pc, uint32_t task, struct pc_wbc *w, struct pc_io *io, int reason,
		uint32_t *wait_index);
enum { PASS_QUEUE_NONE = 0, PASS_QUEUE_ALWAYS, PASS_QUEUE_IF_EMPTY };
void pc_pass_start(struct pc *pc, uint32_t task, uint32_t wb, int kind, int64_t budget,
		   uint64_t dirtied_before, bool nonblocking, bool per_inode, int queue);
/* The pass's next request: 1 io, 0 the pass is over (or waits: see task->wait). */
int pc_pass_next(struct pc *pc, uint32_t task, struct pc_io *io, uint64_t now);
void pc_queue_io(struct pc *pc, uint32_t wb, uint64_t dirtied_before);
int pc_flusher_run(struct pc *pc, uint32_t wb, uint64_t now, const struct pc_host *h,
		   struct pc_result *res);
void pc_flusher_kick(struct pc *pc, uint32_t wb, uint64_t now, const struct pc_host *h);
void pc_flusher_timer(struct pc *pc, uint32_t wb, uint64_t now, const struct pc_host *h);
/* A task found no page to reclaim: the flusher writes back everything. */
void pc_memory_wait(struct pc *pc, uint32_t task, uint64_t now, const struct pc_host *h);
int pc_fsync_run(struct pc *pc, uint32_t task, uint64_t now, struct pc_result *res);
int pc_truncate_run(struct pc *pc, uint32_t task, uint64_t now, struct pc_result *res);
bool pc_over_bg_thresh(const struct pc *pc, uint32_t wb);

/* pc_readahead.c */
int pc_read_run(struct pc *pc, uint32_t task, uint64_t now, const struct pc_host *h,
		struct pc_result *res);
void pc_ra_reset(struct pc *pc, struct pc_task *t, uint32_t file);
/* Reads the page in (partial write): locks it and queues its request. */
void pc_read_one(struct pc *pc, uint32_t task, uint32_t file, uint32_t index, int reason);

#endif
