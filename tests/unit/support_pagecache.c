// SPDX-License-Identifier: GPL-2.0
/* The page cache tests' virtual-time host (see support_pagecache.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blk.h"
#include "support_pagecache.h"

#define NO_TIME UINT64_MAX

uint32_t ph_flusher(const struct ph *h)
{
	return pc_flusher(h->pc);
}

static void wake(void *ctx, uint32_t task, uint64_t now)
{
	struct ph *h = ctx;

	(void)now;
	h->t[task == pc_flusher(h->pc) ? PH_MAX_TASKS : task].woken = true;
}

static uint32_t task_id(struct ph *h, uint32_t slot)
{
	return slot == PH_MAX_TASKS ? pc_flusher(h->pc) : slot;
}

void ph_init(struct ph *h, const struct pc_params *p, double mbps, uint64_t lat_us,
	     uint32_t nr_requests)
{
	size_t size;

	memset(h, 0, sizeof(*h));
	h->params = *p;
	size = pc_size(p);
	assert_true(size > 0);
	h->mem = aligned_alloc(16, (size + 15) & ~(size_t)15);
	assert_non_null(h->mem);
	h->pc = pc_init(h->mem, size, p, 0, h->err, sizeof(h->err));
	if (!h->pc)
		print_error("pc_init: %s\n", h->err);
	assert_non_null(h->pc);
	h->bytes_per_ns = mbps * 1e6 / 1e9;
	h->lat_ns = lat_us * 1000;
	h->nr_requests = nr_requests;
	h->log_cap = 1024;
	h->log = calloc(h->log_cap, sizeof(*h->log));
	assert_non_null(h->log);
	h->t[PH_MAX_TASKS].active = true; /* the flusher */
}

void ph_free(struct ph *h)
{
	free(h->mem);
	free(h->log);
	free(h->frames);
	for (int i = 0; i < PH_MAX_FILES; i++) {
		free(h->disk[i]);
		free(h->truth[i]);
	}
	memset(h, 0, sizeof(*h));
}

void ph_enable_data(struct ph *h, uint32_t nfiles, uint64_t file_bytes)
{
	h->data = true;
	h->file_bytes = file_bytes;
	h->frames = calloc(1, h->params.cache_bytes);
	assert_non_null(h->frames);
	for (uint32_t f = 0; f < nfiles; f++) {
		h->disk[f] = calloc(1, file_bytes);
		h->truth[f] = calloc(1, file_bytes);
		assert_non_null(h->disk[f]);
		assert_non_null(h->truth[f]);
	}
}

void ph_task(struct ph *h, uint32_t task, uint32_t group, ph_program_fn program, void *arg)
{
	struct ph_task *t = &h->t[task];

	assert_true(task < PH_MAX_TASKS);
	assert_int_equal(pc_task_init(h->pc, task, group), 0);
	t->program = program;
	t->arg = arg;
	t->active = true;
	if (task >= h->nr_tasks)
		h->nr_tasks = task + 1;
}

static void log_io(struct ph *h, const struct pc_io *io, uint64_t done)
{
	if (h->nlog == h->log_cap) {
		h->log_cap *= 2;
		h->log = realloc(h->log, h->log_cap * sizeof(*h->log));
		assert_non_null(h->log);
	}
	h->log[h->nlog].io = *io;
	h->log[h->nlog].submit_ns = h->now;
	h->log[h->nlog].done_ns = done;
	h->log[h->nlog].dirty_plus_wb = pc_stats(h->pc)->nr_dirty + pc_stats(h->pc)->nr_writeback;
	h->nlog++;
}

static bool is_async(const struct pc_io *io)
{
	return io->op == PC_IO_WRITE && !(io->flags & PC_IO_SYNC);
}

static void update_congestion(struct ph *h)
{
	/* blk_queue_congestion_threshold() of the legacy block layer, on this host's async count */
	struct pc_host host = {.wake = wake, .ctx = h};
	bool c = blk_congestion_next(h->nr_requests, h->async_queued, h->congested);

	if (c != h->congested) {
		h->congested = c;
		pc_set_congested(h->pc, c, h->now, &host);
	}
}

/* The request reaches the device: false when the task must sleep for a request. */
static bool submit(struct ph *h, uint32_t task, const struct pc_io *io)
{
	uint64_t start, done, bytes = (uint64_t)io->npages * PC_PAGE_SIZE;
	uint32_t slot;

	if (is_async(io) && h->nr_requests && h->async_queued >= h->nr_requests)
		return false;
	assert_true(h->q_count < PH_QUEUE);
	start = h->now > h->dev_free_at ? h->now : h->dev_free_at;
	done =
	    io->op == PC_IO_FLUSH ? start : start + h->lat_ns + (uint64_t)(bytes / h->bytes_per_ns);
	h->dev_free_at = done;
	if (h->reorder_ns && io->op != PC_IO_FLUSH) {
		/* A scheduler and a device that reorder: each request takes its own time. */
		h->rng = h->rng * 6364136223846793005ull + 1442695040888963407ull;
		done = h->now + h->lat_ns + (uint64_t)(bytes / h->bytes_per_ns) +
		       (h->rng >> 33) % h->reorder_ns;
	}
	/* Kept in completion order (FIFO for equal times). */
	slot = (h->q_head + h->q_count) % PH_QUEUE;
	while (slot != h->q_head && h->q_done[(slot + PH_QUEUE - 1) % PH_QUEUE] > done) {
		uint32_t prev = (slot + PH_QUEUE - 1) % PH_QUEUE;

		h->q[slot] = h->q[prev];
		h->q_done[slot] = h->q_done[prev];
		slot = prev;
	}
	h->q[slot] = *io;
	h->q_done[slot] = done;
	h->q_count++;
	if (is_async(io))
		h->async_queued++;
	log_io(h, io, done);
	(void)task;
	update_congestion(h);
	return true;
}

static void copy_data(struct ph *h, uint32_t file, uint64_t lo, uint64_t hi, bool to_cache)
{
	for (uint64_t pos = lo; pos < hi;) {
		uint32_t idx = (uint32_t)(pos >> PC_PAGE_SHIFT);
		uint64_t off = pos & (PC_PAGE_SIZE - 1), n = PC_PAGE_SIZE - off;
		uint32_t frame = pc_frame(h->pc, file, idx);

		if (n > hi - pos)
			n = hi - pos;
		assert_int_not_equal(frame, PC_NONE);
		if (to_cache) {
			memcpy(h->frames + (uint64_t)frame * PC_PAGE_SIZE + off,
			       h->truth[file] + pos, n);
		} else if (memcmp(h->frames + (uint64_t)frame * PC_PAGE_SIZE + off,
				  h->truth[file] + pos, n)) {
			h->verify_errors++;
		}
		pos += n;
	}
}

/* The device finished io: data moves, then the page cache hears of it. */
static void complete(struct ph *h, const struct pc_io *io)
{
	struct pc_host host = {.wake = wake, .ctx = h};

	if (h->data && io->op != PC_IO_FLUSH) {
		for (uint32_t i = 0; i < io->npages; i++) {
			uint32_t idx = io->index + i, frame = pc_frame(h->pc, io->file, idx);
			uint8_t *fr, *dk = h->disk[io->file] + (uint64_t)idx * PC_PAGE_SIZE;

			if (frame == PC_NONE)
				continue;
			fr = h->frames + (uint64_t)frame * PC_PAGE_SIZE;
			if (io->op == PC_IO_READ)
				memcpy(fr, dk, PC_PAGE_SIZE);
			else
				memcpy(dk, fr, PC_PAGE_SIZE);
		}
	}
	if (is_async(io)) {
		h->async_queued--;
		if (h->nb) {
			/* freed_request(): the first sleeper may allocate */
			struct ph_task *w = &h->t[h->blocked_fifo[0]];

			memmove(h->blocked_fifo, h->blocked_fifo + 1, --h->nb * sizeof(uint32_t));
			w->blocked = false;
		}
	}
	pc_io_done(h->pc, io, h->now, &host);
	update_congestion(h);
}

static void fill_truth(struct ph *h, uint32_t file, uint64_t off, uint64_t len)
{
	for (uint64_t i = 0; i < len; i++) {
		uint64_t x = (off + i) * 2654435761u + file * 40503u + h->data_seed;

		h->truth[file][off + i] = (uint8_t)(x >> 11);
	}
}

static void handle(struct ph *h, uint32_t slot, int rc, const struct pc_result *res)
{
	struct ph_task *t = &h->t[slot];

	if (h->data && res->copy_hi > res->copy_lo) {
		/* The bytes move now, under the same step: a write's new data is born here. */
		if (t->cur.call == PH_CALL_WRITE)
			fill_truth(h, t->cur.file, res->copy_lo, res->copy_hi - res->copy_lo);
		copy_data(h, t->cur.file, res->copy_lo, res->copy_hi, t->cur.call == PH_CALL_WRITE);
	}
	switch (rc) {
	case PC_DONE:
		if (slot != PH_MAX_TASKS && t->in_call) {
			uint64_t lat = h->now - t->call_start;

			t->in_call = false;
			t->calls++;
			t->bytes += res->bytes;
			t->lat_sum += lat;
			t->last_lat = lat;
			if (lat > t->lat_max)
				t->lat_max = lat;
			if (t->cur.call == PH_CALL_FSYNC) {
				t->fsyncs++;
				t->fsync_lat_sum += lat;
				if (lat > t->fsync_lat_max)
					t->fsync_lat_max = lat;
			}
		}
		t->pulling = t->waiting = false;
		break;
	case PC_SUBMIT:
		t->pulling = true;
		t->waiting = false;
		break;
	case PC_SLEEP:
	case PC_WAIT:
		t->pulling = false;
		t->waiting = true;
		break;
	default:
		fail_msg("page cache call failed (rc %d) for task slot %u", rc, slot);
	}
}

/* One step of a task at now: true when something happened. */
static bool step(struct ph *h, uint32_t slot)
{
	struct ph_task *t = &h->t[slot];
	uint32_t task = task_id(h, slot);
	struct pc_host host = {.wake = wake, .ctx = h};
	struct pc_result res;
	int rc;

	if (!t->active || t->blocked)
		return false;
	if (t->has_pending) {
		if (!submit(h, task, &t->pending)) {
			t->blocked = true;
			h->blocked_fifo[h->nb++] = slot;
			return false;
		}
		t->has_pending = false;
		return true;
	}
	if (t->pulling) {
		struct pc_io io;

		if (pc_next_io(h->pc, task, h->now, &io)) {
			if (!submit(h, task, &io)) {
				t->pending = io;
				t->has_pending = true;
				t->blocked = true;
				h->blocked_fifo[h->nb++] = slot;
			}
			return true;
		}
		t->pulling = false;
		rc = pc_continue(h->pc, task, h->now, &host, &res);
		handle(h, slot, rc, &res);
		return true;
	}
	if (t->woken) {
		t->woken = false;
		rc = pc_continue(h->pc, task, h->now, &host, &res);
		handle(h, slot, rc, &res);
		return true;
	}
	if (t->waiting || t->in_call || slot == PH_MAX_TASKS || t->done)
		return false;
	/* Idle: the program's next call, after its think time. */
	if (!t->ready_at) {
		if (!t->program(h, task, &t->cur, t->arg)) {
			t->done = true;
			return true;
		}
		t->ready_at = h->now + t->cur.think_ns + 1;
	}
	if (h->now + 1 < t->ready_at)
		return false;
	t->ready_at = 0;
	t->in_call = true;
	t->call_start = h->now;
	switch (t->cur.call) {
	case PH_CALL_WRITE:
		h->data_seed++;
		rc =
		    pc_write(h->pc, task, t->cur.file, t->cur.off, t->cur.len, h->now, &host, &res);
		break;
	case PH_CALL_READ:
		rc = pc_read(h->pc, task, t->cur.file, t->cur.off, t->cur.len, h->now, &host, &res);
		break;
	case PH_CALL_FSYNC:
		rc = pc_fsync(h->pc, task, t->cur.file, h->now, &host, &res);
		break;
	case PH_CALL_INVALIDATE:
		rc = pc_invalidate(h->pc, task, t->cur.file, t->cur.off, t->cur.len, h->now, &host,
				   &res);
		break;
	default:
		rc = pc_truncate(h->pc, task, t->cur.file, h->now, &host, &res);
		break;
	}
	handle(h, slot, rc, &res);
	return true;
}

void ph_run(struct ph *h, uint64_t end_ns)
{
	struct pc_host host = {.wake = wake, .ctx = h};
	uint32_t same = 0;

	h->end = end_ns;
	for (;;) {
		uint64_t next = NO_TIME, pe;
		bool any = true, busy = false;

		for (int guard = 0; any; guard++) {
			any = false;
			assert_true(guard < 10000000);
			for (uint32_t s = 0; s <= PH_MAX_TASKS; s++) {
				if (s < h->nr_tasks || s == PH_MAX_TASKS) {
					while (step(h, s))
						any = true;
				}
			}
			if (h->check_each_step && any) {
				h->steps++;
				if (pc_check(h->pc, h->err, sizeof(h->err)))
					fail_msg("pc_check at %llu ns: %s",
						 (unsigned long long)h->now, h->err);
			}
		}
		if (h->q_count)
			next = h->q_done[h->q_head];
		pe = pc_next_event(h->pc);
		if (pe < next)
			next = pe;
		for (uint32_t s = 0; s < h->nr_tasks; s++) {
			struct ph_task *t = &h->t[s];

			if (t->active && !t->done)
				busy = true;
			if (t->active && t->ready_at && t->ready_at - 1 < next)
				next = t->ready_at - 1;
		}
		if (next == NO_TIME) {
			assert_false(busy && h->q_count); /* nothing can happen: a stall */
			break;
		}
		if (next > end_ns)
			break;
		if (next < h->now)
			next = h->now;
		same = next == h->now ? same + 1 : 0;
		assert_true(same < 1000000);
		h->now = next;
		while (h->q_count && h->q_done[h->q_head] <= h->now) {
			struct pc_io io = h->q[h->q_head];

			h->q_head = (h->q_head + 1) % PH_QUEUE;
			h->q_count--;
			complete(h, &io);
		}
		pc_advance(h->pc, h->now, &host);
	}
}
