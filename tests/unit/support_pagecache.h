/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small virtual-time host for the page cache's unit tests: tasks run scripted system calls
 * through the protocol of pagecache.h, the requests go to a serial FIFO device (latency +
 * bytes / bandwidth) behind an async request limit (get_request()), and, when asked, data is
 * kept: frames for the cache, a backing store per file, and the bytes the program wrote.
 */
#ifndef TESTS_UNIT_SUPPORT_PAGECACHE_H
#define TESTS_UNIT_SUPPORT_PAGECACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "pagecache.h"

#define PH_MAX_TASKS 80
#define PH_MAX_FILES 80
#define PH_QUEUE     8192

enum ph_call {
	PH_CALL_NONE = 0,
	PH_CALL_WRITE,
	PH_CALL_READ,
	PH_CALL_FSYNC,
	PH_CALL_TRUNCATE,
	PH_CALL_INVALIDATE,
};

struct ph;

/* The next call of a task's program: false when the program is over. */
struct ph_call_desc {
	enum ph_call call;
	uint32_t file;
	uint64_t off, len;
	uint64_t think_ns; /* before the call */
};
typedef bool (*ph_program_fn)(struct ph *h, uint32_t task, struct ph_call_desc *next, void *arg);

/* Every request the device got, in submission order. */
struct ph_log {
	struct pc_io io;
	uint64_t submit_ns, done_ns;
	uint64_t dirty_plus_wb; /* NR_FILE_DIRTY + NR_WRITEBACK when it was pulled */
};

struct ph_task {
	ph_program_fn program;
	void *arg;
	bool active, in_call, pulling, waiting, woken, blocked, done;
	struct pc_io pending; /* pulled, not yet admitted (get_request() sleep) */
	bool has_pending;
	struct ph_call_desc cur;
	uint64_t ready_at, call_start;
	uint64_t calls, bytes;
	uint64_t lat_sum, lat_max;
	uint64_t last_lat;
	uint64_t fsync_lat_max, fsync_lat_sum, fsyncs;
};

struct ph {
	struct pc *pc;
	void *mem;
	struct pc_params params;
	uint64_t now, end;
	/* device */
	double bytes_per_ns;
	uint64_t lat_ns;
	uint64_t dev_free_at;
	uint32_t nr_requests; /* async writes in the device queue; 0 unlimited */
	uint64_t reorder_ns;  /* 0: serial FIFO; else each request alone, + 0..reorder_ns */
	uint64_t rng;
	uint32_t async_queued;
	struct pc_io q[PH_QUEUE];
	uint64_t q_done[PH_QUEUE];
	uint32_t q_head, q_count;
	uint32_t blocked_fifo[PH_MAX_TASKS + 1], nb;
	bool congested;
	/* tasks: 0 .. nr_tasks - 1, the flusher at pc_flusher() */
	uint32_t nr_tasks;
	struct ph_task t[PH_MAX_TASKS + 1];
	/* log */
	struct ph_log *log;
	uint32_t nlog, log_cap;
	/* data (optional) */
	bool data;
	uint8_t *frames;
	uint8_t *disk[PH_MAX_FILES];  /* what the device holds */
	uint8_t *truth[PH_MAX_FILES]; /* what the program wrote */
	uint64_t file_bytes;
	uint32_t data_seed;
	uint64_t verify_errors;
	/* per-step check (pc_check) */
	bool check_each_step;
	uint64_t steps;
	char err[256];
};

/* A cache of these parameters and a device of mbps MB/s and lat_us of latency per request. */
void ph_init(struct ph *h, const struct pc_params *p, double mbps, uint64_t lat_us,
	     uint32_t nr_requests);
void ph_free(struct ph *h);
/* Keeps data: nfiles files of file_bytes each (frames, disk, truth). */
void ph_enable_data(struct ph *h, uint32_t nfiles, uint64_t file_bytes);
void ph_task(struct ph *h, uint32_t task, uint32_t group, ph_program_fn program, void *arg);
/* Runs until end_ns or until every program is done and nothing is left to do. */
void ph_run(struct ph *h, uint64_t end_ns);
/* The flusher's task number. */
uint32_t ph_flusher(const struct ph *h);

#endif
