/* SPDX-License-Identifier: GPL-2.0 */
/*
 * modeldev: a device model of models/ served as a real block device.
 *
 *   fio -> kernel scheduler -> /dev/loopN (direct I/O) -> FUSE file -> this daemon
 *                                                                     | one FUSE request
 *                                                                     v = one model request
 *                                        reply at model time <- devmodel (one state, one lock)
 *
 * Rooms: core.c (request table, the model under its lock, the host FIFO when the model is full,
 * the completion thread, ordered replies, statistics), store.c (the data: sparse memory, a
 * backing file or nothing), fuse_ops.c (libfuse3 low-level operations), loopdev.c (loop set-up,
 * tear-down and reclaim of stale state), main.c (command line, daemon life, control socket).
 */
#ifndef MODELDEV_MDEV_H
#define MODELDEV_MDEV_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "devmodel.h"

#define MDEV_FSNAME_PREFIX "schedengine-modeldev:"
#define MDEV_RUNDIR_DEFAULT "/run/schedengine-modeldev"
/* Exit status of `start`/`run`/`check` when the environment refuses FUSE or loop devices. */
#define MDEV_EXIT_REFUSED 3

uint64_t mdev_now(void); /* CLOCK_MONOTONIC, ns: the engine's clock */
/* SCHED_FIFO at prio for the calling thread (0: leave it); false when refused. */
bool mdev_set_rt(int prio);

/* ---- store.c: the device's data ------------------------------------------------------------ */

enum mdev_store_kind { STORE_MEM = 0, STORE_FILE, STORE_NONE };

struct mdev_store {
	enum mdev_store_kind kind;
	/* the bitmap and its count: written by the FUSE thread, read by whoever sends a reply */
	pthread_mutex_t lock;
	uint64_t size;
	/* mem: a MAP_NORESERVE mapping of size bytes and a bitmap of written 64 KiB chunks */
	char *mem;
	uint64_t *bitmap;
	uint64_t chunks_used, mem_limit;
	bool limit_warned;
	/* file */
	int fd;
	/* A read-only run of zero pages for replies from unwritten ranges. */
	char *zeros;
	size_t zeros_len;
};

int store_open(struct mdev_store *s, enum mdev_store_kind kind, const char *path, uint64_t size,
	       uint64_t mem_limit, char *err, size_t errlen);
void store_close(struct mdev_store *s);
/* Returns 0 or an errno. */
int store_write(struct mdev_store *s, const void *buf, uint64_t off, uint64_t len);
int store_discard(struct mdev_store *s, uint64_t off, uint64_t len);
/*
 * The iovec of a read reply: up to *cnt entries pointing into the store (or into buf, len bytes
 * of scratch space, for a file store). Returns 0 or an errno.
 */
int store_read_iov(struct mdev_store *s, uint64_t off, uint64_t len, struct iovec *iov, int *cnt,
		   char *buf);

/* ---- core.c: the model, the requests, the completion thread --------------------------------- */

enum mdev_rq_state { RQ_FREE = 0, RQ_FIFO, RQ_MODEL, RQ_DONE };

struct mdev_rq {
	void *req; /* fuse_req_t */
	uint64_t off, len;
	uint64_t t_recv; /* when the daemon read it */
	uint64_t t_sub;	 /* when it went into the model (later than t_recv after a FIFO wait) */
	uint64_t t_done; /* model completion time */
	int32_t next;	 /* free list, FIFO, reply queue */
	uint8_t op;	 /* enum devmodel_op */
	uint8_t state;
	int err; /* errno to reply instead of the data (store refused) */
};

#define MDEV_SIZE_BUCKETS 22 /* request sizes: bucket i holds (256 << i, 512 << i] bytes */
#define MDEV_LATE_BUCKETS 16 /* reply lateness: bucket i holds [2^i, 2^(i+1)) us, 0: < 1 us */

struct mdev_stats {
	uint64_t ops[4], bytes[2];
	uint64_t size_hist[MDEV_SIZE_BUCKETS];
	uint64_t max_len;
	uint64_t fifo_waits, errors;
	uint32_t outstanding, max_outstanding; /* requests in the daemon (FIFO + model + replying) */
	uint32_t max_fifo, max_model;
	/* reply lateness: reply started minus model completion time; the reply's own syscall */
	uint64_t late_n, late_sum_ns, late_max_ns;
	uint64_t late_hist[MDEV_LATE_BUCKETS];
	uint64_t reply_sum_ns;
	/* in the model: completion minus submission (the device's own service time) */
	uint64_t service_sum_ns;
	/* time in the daemon: reply written minus receipt */
	uint64_t resid_sum_ns;
	uint64_t since_ns;
};

struct mdev_core;
/* How a completed request is answered (fuse_ops.c). */
typedef void (*mdev_reply_fn)(struct mdev_core *c, struct mdev_rq *rq);

struct mdev_core {
	pthread_mutex_t lock;
	pthread_mutex_t reply_lock; /* one sender at a time: replies leave in model order */
	pthread_cond_t cv;	    /* the completion thread's sleep */
	uint64_t sleep_until;	    /* its deadline, UINT64_MAX when untimed, 0 when awake */
	bool stop;
	pthread_t thread;
	bool thread_started;

	struct devmodel_params params;
	struct devmodel *model;
	void *model_mem;
	size_t model_size;
	uint64_t model_clock; /* last time given to the model */
	uint32_t qd;
	int rt_prio;	/* the completion thread's SCHED_FIFO priority (0: none) */
	bool rt_ok;

	struct mdev_rq *rq;
	uint32_t nr_rq;
	int32_t free_head;
	uint32_t replying; /* replies being sent: counted out of outstanding, slots not yet free */
	int32_t fifo_head, fifo_tail;
	uint32_t fifo_len;
	int32_t done_head, done_tail; /* reply queue, in model completion order */
	uint64_t resets;

	struct mdev_stats st;
	struct mdev_store *store;
	mdev_reply_fn reply;
};

int core_init(struct mdev_core *c, const struct devmodel_params *p, uint32_t nr_rq,
	      struct mdev_store *store, mdev_reply_fn reply, char *err, size_t errlen);
int core_start(struct mdev_core *c, char *err, size_t errlen);
void core_stop(struct mdev_core *c);
void core_destroy(struct mdev_core *c);
/*
 * A request from the kernel. Returns 0 when taken (its reply comes at model time), or an errno
 * to reply at once (no free request slot).
 */
int core_submit(struct mdev_core *c, void *req, enum devmodel_op op, uint64_t off, uint64_t len,
		int err);
/* A fresh model (same parameters) and fresh statistics, when nothing is in flight: 0 or EBUSY. */
int core_reset(struct mdev_core *c);
/* Statistics as JSON into buf. */
void core_stats_json(struct mdev_core *c, char *buf, size_t len);

/* ---- fuse_ops.c ---------------------------------------------------------------------------- */

struct mdev_fuse_opts {
	const char *name;
	const char *mountpoint;
	uint64_t size;
	unsigned int max_background;
	unsigned int threads;
	int rt_prio; /* SCHED_FIFO priority of the threads reading /dev/fuse (0: none) */
};

struct mdev_fuse;
/* The core's reply function: answers a completed request on its FUSE channel. */
mdev_reply_fn mfuse_reply_fn(void);
struct mdev_fuse *mfuse_create(struct mdev_core *c, const struct mdev_fuse_opts *o, char *err,
			       size_t errlen);
/* Runs the session loop in threads; returns at once. */
int mfuse_start(struct mdev_fuse *f, char *err, size_t errlen);
/* True when the session loop has ended (connection gone). */
bool mfuse_ended(struct mdev_fuse *f);
/* Waits up to ms for the session loop to end; true when it has. */
bool mfuse_wait_end(struct mdev_fuse *f, int ms);
void mfuse_unmount(struct mdev_fuse *f);
void mfuse_destroy(struct mdev_fuse *f);
void mfuse_info_json(struct mdev_fuse *f, char *buf, size_t len);

/* ---- loopdev.c ----------------------------------------------------------------------------- */

struct mdev_loop {
	int fd;	       /* /dev/loopN, held open for the daemon's life (autoclear) */
	int nr;	       /* N */
	char dev[32];  /* /dev/loopN */
	char name[64]; /* lo_file_name: schedengine-modeldev:NAME:PID */
};

/* Attaches a loop device with direct I/O over path; refuses when direct I/O does not stick. */
int loop_attach(struct mdev_loop *l, const char *path, const char *tag, unsigned int block_size,
		char *err, size_t errlen);
/* Clears it (deferred to the last close when others hold it open) and closes our descriptor. */
void loop_detach(struct mdev_loop *l);
/* Writes /sys/block/loopN/queue/<attr>; returns 0 or -1 with err. */
int loop_queue_set(const struct mdev_loop *l, const char *attr, const char *val, char *err,
		   size_t errlen);
int loop_queue_get(const struct mdev_loop *l, const char *attr, char *out, size_t outlen);
/*
 * Stale state of dead daemons: run directories, FUSE mounts named schedengine-modeldev:*, loop
 * devices whose lo_file_name is ours. Prints one line per thing removed (to out when not NULL).
 * Returns how many were removed.
 */
int mdev_reclaim(const char *rundir, bool verbose);
/* Prints every loop device and FUSE mount of ours, live or not; returns how many. */
int mdev_list_ours(void);
/* The PID in "schedengine-modeldev:NAME:PID", or -1. */
long mdev_tag_pid(const char *tag);
/* Is pid a live modeldev daemon? */
bool mdev_pid_alive(long pid);

#endif
