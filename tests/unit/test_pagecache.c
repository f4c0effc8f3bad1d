// SPDX-License-Identifier: GPL-2.0
/*
 * The page cache (pagecache/) in virtual time, through the host protocol, against a serial
 * FIFO device: writeback starts at the background threshold and throttles at the hard one,
 * fsync writes back exactly the file's dirty pages, read-ahead windows are the kernel's, data
 * written through the cache reads back (verify), the cache keeps its bound under 64 writers,
 * and every profile switch in both positions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support.h"
#include "support_pagecache.h"

#define US  1000ull
#define MS  1000000ull
#define SEC 1000000000ull
#define MiB (1ull << 20)
#define PG  PC_PAGE_SIZE

static const enum pc_profile profiles[] = {PC_PROFILE_LINUX_6_12, PC_PROFILE_LINUX_2_6_29};

static void params(struct pc_params *p, enum pc_profile prof, uint64_t cache_mib)
{
	pc_params_defaults(p, prof);
	p->cache_bytes = cache_mib * MiB;
	p->max_files = 80;
	p->max_tasks = 80;
}

/* ---- programs ---- */

/* Sequential (or, with rnd, random page-aligned) writes or reads of bs over [0, size). */
struct stream {
	enum ph_call call;
	uint32_t file;
	uint64_t bs, size, pos, count, max_calls;
	uint64_t think_ns, start_ns;
	bool rnd;
	struct test_rng rng;
	uint64_t fsync_every; /* an fsync after so many writes */
	uint64_t since_fsync;
};

static bool stream_prog(struct ph *h, uint32_t task, struct ph_call_desc *d, void *arg)
{
	struct stream *s = arg;

	(void)task;
	if (s->max_calls && s->count >= s->max_calls)
		return false;
	if (!s->rnd && s->pos + s->bs > s->size)
		return false;
	memset(d, 0, sizeof(*d));
	if (s->fsync_every && s->since_fsync == s->fsync_every) {
		s->since_fsync = 0;
		d->call = PH_CALL_FSYNC;
		d->file = s->file;
		return true;
	}
	d->call = s->call;
	d->file = s->file;
	d->len = s->bs;
	d->think_ns = s->think_ns;
	if (!s->count && h->now < s->start_ns)
		d->think_ns = s->start_ns - h->now;
	if (s->rnd) {
		d->off = test_rng_below(&s->rng, s->size / s->bs) * s->bs;
	} else {
		d->off = s->pos;
		s->pos += s->bs;
	}
	s->count++;
	s->since_fsync++;
	return true;
}

/* A fixed list of calls, each at its time (think from the previous end). */
struct script {
	struct ph_call_desc c[16];
	uint64_t at[16]; /* absolute start times */
	uint32_t n, i;
};

static bool script_prog(struct ph *h, uint32_t task, struct ph_call_desc *d, void *arg)
{
	struct script *s = arg;

	(void)task;
	if (s->i == s->n)
		return false;
	*d = s->c[s->i];
	d->think_ns = s->at[s->i] > h->now ? s->at[s->i] - h->now : 0;
	s->i++;
	return true;
}

static void script_add(struct script *s, uint64_t at, enum ph_call call, uint32_t file,
		       uint64_t off, uint64_t len)
{
	assert_true(s->n < 16);
	s->at[s->n] = at;
	s->c[s->n].call = call;
	s->c[s->n].file = file;
	s->c[s->n].off = off;
	s->c[s->n].len = len;
	s->n++;
}

static void open_file(struct ph *h, uint32_t file, uint64_t size)
{
	assert_int_equal(pc_file_open(h->pc, file, size), 0);
}

static bool is_wb(const struct ph_log *l)
{
	return l->io.op == PC_IO_WRITE;
}

/* ---- parameters ---- */

static void test_params(void **state)
{
	struct pc_params p;
	char err[256];
	uint64_t bg, thresh;
	void *mem;
	struct pc *pc;

	(void)state;
	pc_params_defaults(&p, PC_PROFILE_LINUX_6_12);
	assert_int_equal(p.dirty_ratio, 20);
	assert_int_equal(p.dirty_background_ratio, 10);
	assert_int_equal(p.dirty_expire_centisecs, 3000);
	assert_int_equal(p.dirty_writeback_centisecs, 500);
	assert_int_equal(p.read_ahead_kb, 128);
	assert_int_equal(p.max_sectors_kb, 1280);
	assert_int_equal(p.switches, 0x3f);
	pc_params_defaults(&p, PC_PROFILE_LINUX_2_6_29);
	assert_int_equal(p.switches, 0);
	assert_int_equal(p.max_sectors_kb, 512);
	assert_int_equal(pc_profile_by_name("2.6.29"), PC_PROFILE_LINUX_2_6_29);
	assert_int_equal(pc_profile_by_name("6.12"), PC_PROFILE_LINUX_6_12);
	assert_int_equal(pc_profile_by_name("4.19"), -1);
	assert_string_equal(pc_profile_name(PC_PROFILE_LINUX_6_12), "6.12");

	/* bytes/ratio pairs are exclusive; switches by name; errors in one line */
	assert_int_equal(pc_set_param(&p, "dirty_bytes", "8388608", err, sizeof(err)), 0);
	assert_int_equal(p.dirty_ratio, 0);
	assert_int_equal(pc_set_param(&p, "dirty_ratio", "30", err, sizeof(err)), 0);
	assert_int_equal(p.dirty_bytes, 0);
	assert_int_equal(pc_set_param(&p, "ioless_throttle", "1", err, sizeof(err)), 0);
	assert_int_equal(p.switches, PC_SW_IOLESS_THROTTLE);
	assert_int_equal(pc_set_param(&p, "ioless_throttle", "0", err, sizeof(err)), 0);
	assert_int_equal(p.switches, 0);
	assert_int_equal(pc_set_param(&p, "dirty_ratio", "101", err, sizeof(err)), -1);
	test_assert_one_line(err);
	assert_int_equal(pc_set_param(&p, "dirty_ratio", "-1", err, sizeof(err)), -1);
	test_assert_one_line(err);
	assert_int_equal(pc_set_param(&p, "no_such_thing", "1", err, sizeof(err)), -1);
	test_assert_one_line(err);
	assert_int_equal(pc_set_param(&p, "fsync_flush", "2", err, sizeof(err)), -1);
	test_assert_one_line(err);
	assert_int_equal(pc_set_param(&p, "pagecache_mb", "64", err, sizeof(err)), 0);
	assert_int_equal(p.cache_bytes, 64 * MiB);

	/* domain_dirty_limits(): ratio of the cache; bytes; background >= limit -> half */
	params(&p, PC_PROFILE_LINUX_6_12, 64);
	mem = aligned_alloc(16, pc_size(&p));
	pc = pc_init(mem, pc_size(&p), &p, 0, err, sizeof(err));
	assert_non_null(pc);
	pc_dirty_limits(pc, &bg, &thresh);
	/* ratios in per-PAGE_SIZE units first, as the kernel: 819 / 4096 of 16384 pages */
	assert_int_equal(thresh, (20 * 4096 / 100) * 16384 / 4096);
	assert_int_equal(bg, (10 * 4096 / 100) * 16384 / 4096);
	assert_int_equal(pc_check(pc, err, sizeof(err)), 0);
	free(mem);
	p.dirty_bytes = 4 * MiB;
	p.dirty_ratio = 0;
	p.dirty_background_bytes = 8 * MiB;
	p.dirty_background_ratio = 0;
	mem = aligned_alloc(16, pc_size(&p));
	pc = pc_init(mem, pc_size(&p), &p, 0, err, sizeof(err));
	assert_non_null(pc);
	pc_dirty_limits(pc, &bg, &thresh);
	assert_int_equal(thresh, 1024);
	assert_int_equal(bg, 512);
	/* too small a block, a bad size */
	assert_null(pc_init(mem, 100, &p, 0, err, sizeof(err)));
	test_assert_one_line(err);
	free(mem);
	p.cache_bytes = 1 * MiB;
	assert_int_equal(pc_size(&p), 0);
	assert_int_equal(pc_params_check(&p, err, sizeof(err)), -1);
	test_assert_one_line(err);
	params(&p, PC_PROFILE_LINUX_6_12, 64);
	p.hz = 300; /* does not divide 1e9 evenly: refused */
	assert_int_equal(pc_params_check(&p, err, sizeof(err)), -1);
}

/* ---- writeback starts at the background threshold ---- */

static void test_background_threshold(void **state)
{
	(void)state;
	for (unsigned int k = 0; k < 2; k++) {
		struct pc_params p;
		struct ph *h = calloc(1, sizeof(*h));
		struct stream w = {.call = PH_CALL_WRITE,
				   .file = 0,
				   .bs = PG,
				   .size = 48 * MiB,
				   .think_ns = 100 * US};
		uint64_t bg, thresh;
		const struct ph_log *first = NULL;
		uint32_t fl;

		params(&p, profiles[k], 64);
		ph_init(h, &p, 100, 100, 128);
		fl = ph_flusher(h);
		open_file(h, 0, 0);
		ph_task(h, 0, 0, stream_prog, &w);
		ph_run(h, 3 * SEC);
		pc_dirty_limits(h->pc, &bg, &thresh);
		for (uint32_t i = 0; i < h->nlog && !first; i++)
			if (is_wb(&h->log[i]))
				first = &h->log[i];
		assert_non_null(first);
		print_message("%s: bg_thresh %lu, first writeback at %.3f s with %lu dirty by task "
			      "%u (%s); writer pauses %lu\n",
			      pc_profile_name(profiles[k]), (unsigned long)bg,
			      (double)first->submit_ns / SEC, (unsigned long)first->dirty_plus_wb,
			      first->io.issuer, first->io.issuer == fl ? "flusher" : "writer",
			      (unsigned long)pc_task_stats(h->pc, 0)->pauses);
		/* Background writeback by the flusher, once the dirty pages passed bg_thresh
		 * (2.6.x: noticed at the next ratelimit_pages boundary), before any kupdate. */
		assert_int_equal(first->io.issuer, fl);
		assert_int_equal(first->io.reason, PC_WHY_BACKGROUND);
		assert_true(first->dirty_plus_wb >= bg);
		/* checked every dirty_poll_interval() pages (about sqrt(thresh - dirty)) in
		 * 3.2+, every ratelimit_pages (256 here) in 2.6.x */
		assert_true(first->dirty_plus_wb <= bg + (k ? 256 : 64));
		assert_true(first->submit_ns < 5 * SEC);
		/* A writer slower than the disk is never throttled. */
		assert_int_equal(pc_task_stats(h->pc, 0)->pauses, 0);
		assert_true(pc_stats(h->pc)->max_dirty_plus_writeback < (bg + thresh) / 2);
		assert_int_equal(pc_check(h->pc, h->err, sizeof(h->err)), 0);
		ph_free(h);
		free(h);
	}
}

/* ---- throttles at the hard limit ---- */

static void test_throttle_at_hard_limit(void **state)
{
	(void)state;
	for (unsigned int k = 0; k < 2; k++) {
		struct pc_params p;
		struct ph *h = calloc(1, sizeof(*h));
		struct stream w = {
		    .call = PH_CALL_WRITE, .file = 0, .bs = 64 * 1024, .size = 1024 * MiB};
		uint64_t bg, thresh, dirtier = 0, bytes2 = 0;
		double mbps;
		const struct pc_task_stats *ts;

		params(&p, profiles[k], 64);
		ph_init(h, &p, 50, 100, 128);
		open_file(h, 0, 0);
		ph_task(h, 0, 0, stream_prog, &w);
		ph_run(h, 2 * SEC);
		bytes2 = h->t[0].bytes;
		ph_run(h, 8 * SEC);
		pc_dirty_limits(h->pc, &bg, &thresh);
		ts = pc_task_stats(h->pc, 0);
		for (uint32_t i = 0; i < h->nlog; i++)
			dirtier += h->log[i].io.reason == PC_WHY_DIRTIER;
		mbps = (double)(h->t[0].bytes - bytes2) / 6.0 / 1e6;
		print_message(
		    "%s: thresh %lu, max dirty+writeback %lu; writer %.1f MB/s (device 50), "
		    "pauses %lu, throttled %.2f s, congestion waits %lu, own writeback "
		    "requests %lu; flusher requests bg %lu kupdate %lu\n",
		    pc_profile_name(profiles[k]), (unsigned long)thresh,
		    (unsigned long)pc_stats(h->pc)->max_dirty_plus_writeback, mbps,
		    (unsigned long)ts->pauses, (double)ts->throttle_ns / SEC,
		    (unsigned long)ts->congestion_waits, (unsigned long)dirtier,
		    (unsigned long)pc_stats(h->pc)->wb_requests[PC_WHY_BACKGROUND],
		    (unsigned long)pc_stats(h->pc)->wb_requests[PC_WHY_KUPDATE]);
		/* The writer is held to the device's rate... */
		assert_true(mbps > 0.85 * 50 && mbps < 1.15 * 50);
		assert_true(ts->throttle_ns > 4 * SEC);
		/* ... and dirty + writeback stays at the hard limit. */
		assert_true(pc_stats(h->pc)->max_dirty_plus_writeback <= thresh + thresh / 10);
		assert_true(pc_stats(h->pc)->max_dirty_plus_writeback > (bg + thresh) / 2);
		if (profiles[k] == PC_PROFILE_LINUX_6_12) {
			/* I/O-less: paused, never writing back itself */
			assert_true(ts->pauses > 50);
			assert_int_equal(dirtier, 0);
		} else {
			/* 2.6.x: the dirtier writes back and waits for congestion */
			assert_int_equal(ts->pauses, 0);
			assert_true(dirtier > 50);
		}
		ph_free(h);
		free(h);
	}
}

/* ---- fsync writes back exactly the file's dirty pages ---- */

static void test_fsync_exact(void **state)
{
	(void)state;
	for (unsigned int k = 0; k < 2; k++) {
		struct pc_params p;
		struct ph *h = calloc(1, sizeof(*h));
		struct script s0 = {0}, s1 = {0};
		uint8_t *seen = calloc(2000, 1);
		uint64_t cached, dirty, wb, fsync_pages = 0;
		int flushes = 0, last_fsync = -1, first_flush = -1;

		params(&p, profiles[k], 64);
		ph_init(h, &p, 10, 100, 128);
		open_file(h, 0, 0);
		open_file(h, 1, 0);
		/* task 0: 400 pages of file 0 (two runs), 50 of file 1, then fsync(file 0) */
		script_add(&s0, 0, PH_CALL_WRITE, 0, 0, 300 * PG);
		script_add(&s0, 1 * MS, PH_CALL_WRITE, 0, 500 * PG, 100 * PG);
		script_add(&s0, 2 * MS, PH_CALL_WRITE, 1, 0, 50 * PG);
		script_add(&s0, 1 * SEC, PH_CALL_FSYNC, 0, 0, 0);
		/* task 1 dirties file 0 pages 1000.. while the fsync runs: not its business */
		script_add(&s1, 1 * SEC + 5 * MS, PH_CALL_WRITE, 0, 1000 * PG, 100 * PG);
		ph_task(h, 0, 0, script_prog, &s0);
		ph_task(h, 1, 0, script_prog, &s1);
		ph_run(h, 3 * SEC);
		for (uint32_t i = 0; i < h->nlog; i++) {
			const struct pc_io *io = &h->log[i].io;

			if (io->reason != PC_WHY_FSYNC)
				continue;
			assert_int_equal(io->issuer, 0);
			if (io->op == PC_IO_FLUSH) {
				flushes++;
				if (first_flush < 0)
					first_flush = (int)i;
				continue;
			}
			assert_int_equal(io->file, 0);
			assert_true(io->npages <= p.max_sectors_kb / 4);
			assert_int_equal(!!(io->flags & PC_IO_SYNC), k == 0);
			for (uint32_t j = 0; j < io->npages; j++) {
				assert_true(io->index + j < 2000);
				assert_int_equal(seen[io->index + j], 0);
				seen[io->index + j] = 1;
			}
			fsync_pages += io->npages;
			last_fsync = (int)i;
		}
		for (uint32_t j = 0; j < 2000; j++)
			assert_int_equal(seen[j], (j < 300) || (j >= 500 && j < 600));
		assert_int_equal(fsync_pages, 400);
		/* then exactly one flush, after the data */
		assert_int_equal(flushes, 1);
		assert_true(first_flush > last_fsync);
		pc_file_counts(h->pc, 1, &cached, &dirty, &wb);
		assert_int_equal(dirty, 50);
		pc_file_counts(h->pc, 0, &cached, &dirty, &wb);
		assert_int_equal(dirty, 100); /* task 1's, dirtied after the fsync began */
		print_message("%s: fsync wrote %lu pages in %.1f ms (%s), %d flush\n",
			      pc_profile_name(profiles[k]), (unsigned long)fsync_pages,
			      (double)h->t[0].fsync_lat_max / MS, k ? "async" : "REQ_SYNC",
			      flushes);
		free(seen);
		ph_free(h);
		free(h);
	}
}

/* fsync waits for pages the flusher has under writeback (the priority inversion). */
static void test_fsync_waits_for_writeback(void **state)
{
	struct pc_params p;
	struct ph *h = calloc(1, sizeof(*h));
	struct script s0 = {0}, s1 = {0};
	const struct pc_task_stats *ts;
	uint64_t cached, dirty, wb, last_flusher_done = 0;

	(void)state;
	params(&p, PC_PROFILE_LINUX_6_12, 64);
	ph_init(h, &p, 4, 100, 4);
	open_file(h, 0, 0);
	/* past bg_thresh (1636 pages), below the freerun ceiling (2456) */
	script_add(&s0, 0, PH_CALL_WRITE, 0, 0, 2000 * PG);
	/* the first pages again while the flusher has them under writeback */
	script_add(&s0, 100 * MS, PH_CALL_WRITE, 0, 0, 64 * PG);
	/* while the first request (128 pages, 131 ms at 4 MB/s) still has them */
	script_add(&s1, 120 * MS, PH_CALL_FSYNC, 0, 0, 0);
	ph_task(h, 0, 0, script_prog, &s0);
	ph_task(h, 1, 0, script_prog, &s1);
	ph_run(h, 30 * SEC);
	ts = pc_task_stats(h->pc, 1);
	for (uint32_t i = 0; i < h->nlog; i++)
		if (h->log[i].io.issuer == ph_flusher(h) && h->log[i].submit_ns < 120 * MS &&
		    h->log[i].done_ns > last_flusher_done)
			last_flusher_done = h->log[i].done_ns;
	print_message("fsync under flusher writeback: %lu waits on pages under writeback "
		      "(%lu of them re-dirtied), %.2f s (the flusher's last earlier write done at "
		      "%.2f s)\n",
		      (unsigned long)ts->fsync_waits_on_writeback,
		      (unsigned long)ts->fsync_redirty_waits, (double)h->t[1].fsync_lat_max / SEC,
		      (double)last_flusher_done / SEC);
	assert_int_equal(h->t[1].fsyncs, 1);
	assert_true(ts->fsync_waits_on_writeback > 0);
	assert_true(ts->fsync_redirty_waits > 0);
	/* It returned only after the flusher's earlier writes were on the disk. */
	assert_true(120 * MS + h->t[1].fsync_lat_max >= last_flusher_done);
	pc_file_counts(h->pc, 0, &cached, &dirty, &wb);
	assert_int_equal(dirty, 0);
	assert_int_equal(wb, 0);
	ph_free(h);
	free(h);
}

/* ---- read-ahead windows ---- */

struct win {
	uint32_t index, npages;
	bool async;
};

static void check_windows(struct ph *h, uint32_t task, const struct win *w, uint32_t n)
{
	uint32_t j = 0;

	for (uint32_t i = 0; i < h->nlog && j < n; i++) {
		const struct pc_io *io = &h->log[i].io;

		if (io->issuer != task || io->op != PC_IO_READ)
			continue;
		if (io->index != w[j].index || io->npages != w[j].npages ||
		    !!(io->flags & PC_IO_RAHEAD) != w[j].async)
			fail_msg("window %u: got [%u, +%u) %s, want [%u, +%u) %s", j, io->index,
				 io->npages, io->flags & PC_IO_RAHEAD ? "async" : "sync",
				 w[j].index, w[j].npages, w[j].async ? "async" : "sync");
		j++;
	}
	assert_int_equal(j, n);
}

static void run_reader(struct ph *h, uint32_t task, struct stream *s, enum pc_fadvise adv)
{
	ph_task(h, task, 0, stream_prog, s);
	assert_int_equal(pc_fadvise(h->pc, task, s->file, adv), 0);
}

static void test_readahead_windows(void **state)
{
	/* 4 KiB sequential from 0, read_ahead_kb 128 (32 pages): the reference's sequence. */
	static const struct win seq[] = {{0, 4, false},	  {4, 8, true},	  {12, 16, true},
					 {28, 32, true},  {60, 32, true}, {92, 32, true},
					 {124, 32, true}, {156, 32, true}};
	/* POSIX_FADV_SEQUENTIAL (fio's fadvise_hint): a 64-page window. */
	static const struct win fadv[] = {{0, 4, false},  {4, 8, true},	  {12, 16, true},
					  {28, 32, true}, {60, 64, true}, {124, 64, true},
					  {188, 64, true}};
	/* 128 KiB reads: the first window is the request, the next one starts at its middle. */
	static const struct win big[] = {
	    {0, 32, false}, {32, 32, true}, {64, 32, true}, {96, 32, true}};
	struct pc_params p;
	struct ph *h = calloc(1, sizeof(*h));
	struct stream s0 = {
	    .call = PH_CALL_READ, .file = 0, .bs = PG, .size = 4 * MiB, .think_ns = 10 * US};
	struct stream s1 = {
	    .call = PH_CALL_READ, .file = 1, .bs = PG, .size = 4 * MiB, .think_ns = 10 * US};
	struct stream s2 = {.call = PH_CALL_READ,
			    .file = 2,
			    .bs = 128 * 1024,
			    .size = 4 * MiB,
			    .think_ns = 10 * US};
	struct stream s3 = {.call = PH_CALL_READ,
			    .file = 3,
			    .bs = PG,
			    .size = 4 * MiB,
			    .rnd = true,
			    .max_calls = 200};
	struct stream s4 = {.call = PH_CALL_READ,
			    .file = 4,
			    .bs = 2 * PG,
			    .size = 4 * MiB,
			    .rnd = true,
			    .max_calls = 50,
			    .start_ns = 0};
	const struct pc_task_stats *ts;
	uint32_t reads3 = 0, pages3 = 0;

	(void)state;
	test_rng_seed(&s3.rng, 3);
	test_rng_seed(&s4.rng, 4);
	params(&p, PC_PROFILE_LINUX_6_12, 256);
	ph_init(h, &p, 100, 100, 0);
	for (uint32_t f = 0; f < 5; f++)
		open_file(h, f, 4 * MiB);
	run_reader(h, 0, &s0, PC_FADV_NORMAL);
	run_reader(h, 1, &s1, PC_FADV_SEQUENTIAL);
	run_reader(h, 2, &s2, PC_FADV_NORMAL);
	run_reader(h, 3, &s3, PC_FADV_RANDOM);
	run_reader(h, 4, &s4, PC_FADV_NORMAL);
	ph_run(h, 10 * SEC);
	check_windows(h, 0, seq, sizeof(seq) / sizeof(seq[0]));
	check_windows(h, 1, fadv, sizeof(fadv) / sizeof(fadv[0]));
	check_windows(h, 2, big, sizeof(big) / sizeof(big[0]));
	/* FMODE_RANDOM: exactly the page asked for, and a cached page costs no I/O. */
	for (uint32_t i = 0; i < h->nlog; i++)
		if (h->log[i].io.issuer == 3) {
			reads3++;
			pages3 += h->log[i].io.npages;
		}
	ts = pc_task_stats(h->pc, 3);
	print_message("random reader: %u requests for %u pages, %lu cache hits of 200 reads\n",
		      reads3, pages3, (unsigned long)ts->read_hits);
	assert_int_equal(pages3, reads3);
	assert_int_equal(reads3 + ts->read_hits, 200);
	assert_true(ts->read_hits > 0);
	/* Without the hint, a lone small random read is read as is (no window). */
	for (uint32_t i = 0; i < h->nlog; i++)
		if (h->log[i].io.issuer == 4)
			assert_true(h->log[i].io.npages <= 2);
	/* Everything was read: every reader finished, the sequential ones with few waits. */
	for (uint32_t t = 0; t < 5; t++)
		assert_true(h->t[t].done);
	assert_int_equal(h->t[0].bytes, 4 * MiB);
	assert_int_equal(pc_task_stats(h->pc, 0)->ra_pages, 1024);
	assert_int_equal(pc_check(h->pc, h->err, sizeof(h->err)), 0);
	ph_free(h);
	free(h);
}

/* ---- verify: data written through the cache reads back ---- */

struct mixed {
	uint32_t files;
	uint64_t size;
	struct test_rng rng;
	uint64_t calls, max_calls;
};

static bool mixed_prog(struct ph *h, uint32_t task, struct ph_call_desc *d, void *arg)
{
	struct mixed *m = arg;
	uint64_t r = test_rng_below(&m->rng, 100);

	(void)h;
	(void)task;
	if (m->calls++ >= m->max_calls)
		return false;
	memset(d, 0, sizeof(*d));
	d->file = (uint32_t)test_rng_below(&m->rng, m->files);
	d->think_ns = test_rng_below(&m->rng, 2 * MS);
	if (r < 3) {
		d->call = PH_CALL_FSYNC;
		return true;
	}
	d->call = r < 55 ? PH_CALL_WRITE : PH_CALL_READ;
	d->len = 1 + test_rng_below(&m->rng, r < 30 ? 300000 : 20000);
	d->off = test_rng_below(&m->rng, m->size - d->len);
	return true;
}

static bool fsync_all_prog(struct ph *h, uint32_t task, struct ph_call_desc *d, void *arg)
{
	uint32_t *next = arg;

	(void)h;
	(void)task;
	if (*next == 3)
		return false;
	memset(d, 0, sizeof(*d));
	d->call = PH_CALL_FSYNC;
	d->file = (*next)++;
	return true;
}

static void test_verify(void **state)
{
	(void)state;
	/* both profiles; completions in order, then out of order (as a scheduler reorders) */
	for (unsigned int kk = 0; kk < 4; kk++) {
		unsigned int k = kk % 2;
		struct pc_params p;
		struct ph *h = calloc(1, sizeof(*h));
		struct mixed m[3];
		uint32_t next = 0;
		uint64_t ios = 0;

		params(&p, profiles[k], 4); /* 1024 pages: eviction all the time */
		ph_init(h, &p, 40, 200, 32);
		if (kk >= 2)
			h->reorder_ns = 50 * MS;
		ph_enable_data(h, 3, 8 * MiB);
		h->check_each_step = true;
		for (uint32_t f = 0; f < 3; f++)
			open_file(h, f, 8 * MiB);
		for (uint32_t t = 0; t < 3; t++) {
			m[t] = (struct mixed){.files = 3, .size = 8 * MiB, .max_calls = 400};
			test_rng_seed(&m[t].rng, 100 + t + 10 * kk);
			ph_task(h, t, 0, mixed_prog, &m[t]);
		}
		ph_run(h, 60 * SEC);
		for (uint32_t t = 0; t < 3; t++)
			assert_true(h->t[t].done);
		/* Then every file is fsynced: the disk holds what was written. */
		ph_task(h, 3, 0, fsync_all_prog, &next);
		ph_run(h, 120 * SEC);
		assert_true(h->t[3].done);
		for (uint32_t f = 0; f < 3; f++)
			assert_memory_equal(h->disk[f], h->truth[f], 8 * MiB);
		for (uint32_t t = 0; t < 3; t++)
			ios += h->t[t].calls;
		print_message(
		    "%s verify%s: %lu calls, %lu reads of the device's pages, %lu "
		    "evicted chunks, %lu pages reclaimed, %lu verify errors, %lu checks\n",
		    pc_profile_name(profiles[k]), kk >= 2 ? " (reordered)" : "", (unsigned long)ios,
		    (unsigned long)pc_stats(h->pc)->read_pages,
		    (unsigned long)pc_stats(h->pc)->evicted_chunks,
		    (unsigned long)pc_stats(h->pc)->reclaimed, (unsigned long)h->verify_errors,
		    (unsigned long)h->steps);
		assert_int_equal(h->verify_errors, 0);
		assert_true(pc_stats(h->pc)->reclaimed > 1000);
		ph_free(h);
		free(h);
	}
}

/* ---- the bound under 64 writers ---- */

static void test_bound_64_writers(void **state)
{
	(void)state;
	for (unsigned int k = 0; k < 2; k++) {
		struct pc_params p;
		struct ph *h = calloc(1, sizeof(*h));
		struct stream *w = calloc(64, sizeof(*w));
		uint64_t bg, thresh, least = UINT64_MAX;

		params(&p, profiles[k], 16); /* 4096 pages, 512 chunks */
		ph_init(h, &p, 100, 100, 128);
		h->check_each_step = true;
		for (uint32_t t = 0; t < 64; t++) {
			open_file(h, t, 0);
			w[t] = (struct stream){.call = PH_CALL_WRITE,
					       .file = t,
					       .bs = PG,
					       .size = 64 * MiB,
					       .rnd = t % 2,
					       .think_ns = 50 * US};
			test_rng_seed(&w[t].rng, t + 1);
			ph_task(h, t, 0, stream_prog, &w[t]);
		}
		ph_run(h, 4 * SEC);
		pc_dirty_limits(h->pc, &bg, &thresh);
		for (uint32_t t = 0; t < 64; t++)
			if (h->t[t].calls < least)
				least = h->t[t].calls;
		print_message(
		    "%s 64 writers: most cached %lu of 4096 pages, most chunks %lu of "
		    "512, most dirty+writeback %lu (thresh %lu), slowest writer %lu calls, "
		    "%lu pc_check passes\n",
		    pc_profile_name(profiles[k]), (unsigned long)pc_stats(h->pc)->max_cached,
		    (unsigned long)pc_stats(h->pc)->max_chunks_used,
		    (unsigned long)pc_stats(h->pc)->max_dirty_plus_writeback, (unsigned long)thresh,
		    (unsigned long)least, (unsigned long)h->steps);
		assert_true(pc_stats(h->pc)->max_cached <= 4096);
		assert_true(pc_stats(h->pc)->max_chunks_used <= 512);
		/* Over the limit by at most what the dirtiers may dirty between two checks:
		 * 8 pages each once dirty_exceeded (balance_dirty_pages_ratelimited()). */
		assert_true(pc_stats(h->pc)->max_dirty_plus_writeback <= thresh + 64 * 8);
		assert_true(least > 20); /* nobody starves */
		ph_free(h);
		free(w);
		free(h);
	}
}

/* ---- kupdate: dirty_expire_centisecs on a light writer ---- */

static void test_kupdate_expiry(void **state)
{
	(void)state;
	for (unsigned int k = 0; k < 2; k++) {
		struct pc_params p;
		struct ph *h = calloc(1, sizeof(*h));
		struct script s = {0};
		const struct ph_log *first = NULL;

		params(&p, profiles[k], 64);
		ph_init(h, &p, 100, 100, 128);
		open_file(h, 0, 0);
		script_add(&s, 500 * MS, PH_CALL_WRITE, 0, 0, 100 * PG);
		ph_task(h, 0, 0, script_prog, &s);
		ph_run(h, 60 * SEC);
		for (uint32_t i = 0; i < h->nlog && !first; i++)
			if (is_wb(&h->log[i]))
				first = &h->log[i];
		assert_non_null(first);
		print_message("%s: 100 pages dirtied at 0.5 s, written back at %.2f s (%s)\n",
			      pc_profile_name(profiles[k]), (double)first->submit_ns / SEC,
			      first->io.reason == PC_WHY_KUPDATE ? "kupdate" : "?");
		assert_int_equal(first->io.reason, PC_WHY_KUPDATE);
		/* dirty_expire_centisecs after the dirtying, at a dirty_writeback_centisecs tick */
		assert_true(first->submit_ns >= 30 * SEC + 500 * MS);
		assert_true(first->submit_ns <= 35 * SEC + 500 * MS);
		assert_int_equal(pc_stats(h->pc)->nr_dirty, 0);
		ph_free(h);
		free(h);
	}
}

/* ---- truncate: dirty pages cancelled, writeback waited for ---- */

static void test_truncate(void **state)
{
	struct pc_params p;
	struct ph *h = calloc(1, sizeof(*h));
	struct script s0 = {0};
	uint64_t cached, dirty, wb;

	(void)state;
	params(&p, PC_PROFILE_LINUX_6_12, 16);
	ph_init(h, &p, 2, 100, 4);
	open_file(h, 0, 0);
	script_add(&s0, 0, PH_CALL_WRITE, 0, 0, 1000 * PG); /* background writeback starts */
	script_add(&s0, 100 * MS, PH_CALL_TRUNCATE, 0, 0, 0);
	ph_task(h, 0, 0, script_prog, &s0);
	ph_run(h, 30 * SEC);
	pc_file_counts(h->pc, 0, &cached, &dirty, &wb);
	print_message("truncate: took %.2f s (waited for the writeback in flight)\n",
		      (double)h->t[0].last_lat / SEC);
	assert_true(h->t[0].done);
	assert_int_equal(cached, 0);
	assert_int_equal(dirty, 0);
	assert_int_equal(wb, 0);
	assert_int_equal(pc_stats(h->pc)->nr_dirty, 0);
	assert_true(h->t[0].last_lat > 0);	      /* it waited */
	assert_true(pc_stats(h->pc)->written < 1000); /* the rest was cancelled */
	assert_int_equal(pc_check(h->pc, h->err, sizeof(h->err)), 0);
	ph_free(h);
	free(h);
}

/* ---- invalidate (POSIX_FADV_DONTNEED): writeback started, clean pages dropped ---- */

static void test_invalidate(void **state)
{
	struct pc_params p;
	struct ph *h = calloc(1, sizeof(*h));
	struct script s = {0};
	uint64_t cached, dirty, wb, pages = 0, cached_after_wb;

	(void)state;
	params(&p, PC_PROFILE_LINUX_6_12, 64);
	ph_init(h, &p, 10, 100, 128);
	open_file(h, 0, 0);
	open_file(h, 1, 1 * MiB);
	script_add(&s, 0, PH_CALL_WRITE, 0, 0, 300 * PG);
	script_add(&s, 1 * MS, PH_CALL_READ, 1, 0, 100 * PG);
	script_add(&s, 100 * MS, PH_CALL_INVALIDATE, 0, 0, 0);
	script_add(&s, 100 * MS, PH_CALL_INVALIDATE, 1, 0, 0);
	ph_task(h, 0, 0, script_prog, &s);
	ph_run(h, 101 * MS);
	/* file 0: its dirty pages went to the disk in the caller's name, not waited for */
	for (uint32_t i = 0; i < h->nlog; i++)
		if (h->log[i].io.reason == PC_WHY_FADVISE) {
			assert_int_equal(h->log[i].io.issuer, 0);
			assert_int_equal(h->log[i].io.flags & PC_IO_SYNC, 0);
			pages += h->log[i].io.npages;
		}
	assert_int_equal(pages, 300);
	pc_file_counts(h->pc, 0, &cached, &dirty, &wb);
	assert_int_equal(dirty, 0);
	assert_true(wb > 0); /* still on their way: kept */
	cached_after_wb =
	    cached; /* file 1: what was read is clean, so gone (read-ahead still in flight stays) */
	for (uint32_t i = 0; i < 100; i++) {
		uint32_t st = pc_page_state(h->pc, 1, i);

		assert_true(!(st & PC_PG_PRESENT) || (st & PC_PG_LOCKED));
	}
	ph_run(h, 2 * SEC);
	pc_file_counts(h->pc, 0, &cached, &dirty, &wb);
	print_message("invalidate: %lu pages written without waiting, %lu kept under writeback\n",
		      (unsigned long)pages, (unsigned long)cached_after_wb);
	assert_int_equal(wb, 0);
	assert_int_equal(pc_check(h->pc, h->err, sizeof(h->err)), 0);
	ph_free(h);
	free(h);
}

/* ---- memory pressure: no page to reclaim wakes the flusher for everything ---- */

static void test_memory_pressure(void **state)
{
	(void)state;
	for (unsigned int k = 0; k < 2; k++) {
		struct pc_params p;
		struct ph *h = calloc(1, sizeof(*h));
		struct stream w = {.call = PH_CALL_WRITE,
				   .file = 0,
				   .bs = PG,
				   .size = 64 * MiB,
				   .rnd = true,
				   .max_calls = 200};

		/* 16 chunks: one dirty page in each fills the table far below bg_thresh */
		params(&p, profiles[k], 4);
		p.max_chunks = 16;
		ph_init(h, &p, 100, 100, 128);
		h->check_each_step = true;
		open_file(h, 0, 0);
		test_rng_seed(&w.rng, 7);
		ph_task(h, 0, 0, stream_prog, &w);
		ph_run(h, 10 * SEC);
		print_message("%s: 200 scattered 4 KiB writes into 16 chunks: %lu memory waits, "
			      "done in %.3f s, flusher wrote %lu requests\n",
			      pc_profile_name(profiles[k]),
			      (unsigned long)pc_task_stats(h->pc, 0)->memory_waits,
			      (double)h->t[0].lat_sum / SEC,
			      (unsigned long)pc_stats(h->pc)->wb_requests[PC_WHY_BACKGROUND]);
		assert_true(h->t[0].done);
		assert_true(pc_task_stats(h->pc, 0)->memory_waits > 0);
		assert_true(pc_stats(h->pc)->max_chunks_used <= 16);
		/* long before kupdate would have written anything (30 s) */
		assert_true(h->t[0].lat_sum < 5 * SEC);
		ph_free(h);
		free(h);
	}
}

/* ---- each switch, both positions ---- */

struct heavy {
	struct ph *h;
	uint64_t reqs[PC_WHY_NR];
	uint64_t flusher_congestion_waits, writer_pauses;
	uint32_t median_run; /* the flusher's stretches of pages on one file (the last dropped) */
	uint32_t group_of_flusher_io;
};

/* Two fast writers, 48 MiB each into files 0 and 1 (group 3), a 100 MB/s device. */
static void heavy_run(struct heavy *r, uint32_t switches_on, uint32_t switches_off,
		      uint32_t nr_requests, uint64_t cache_mib, uint32_t max_sectors_kb)
{
	struct pc_params p;
	struct ph *h = calloc(1, sizeof(*h));
	struct stream *w = calloc(2, sizeof(*w));
	uint32_t fl, cur = PC_NONE, run = 0, nruns = 0, *runs;

	memset(r, 0, sizeof(*r));
	params(&p, PC_PROFILE_LINUX_6_12, cache_mib);
	p.switches = (p.switches | switches_on) & ~switches_off;
	p.max_sectors_kb = max_sectors_kb;
	ph_init(h, &p, 100, 100, nr_requests);
	fl = ph_flusher(h);
	for (uint32_t t = 0; t < 2; t++) {
		open_file(h, t, 0);
		w[t] =
		    (struct stream){.call = PH_CALL_WRITE,
				    .file = t,
				    .bs = 256 * 1024,
				    .size = cache_mib > 128 ? cache_mib * MiB * 3 / 8 : 48 * MiB};
		ph_task(h, t, 3, stream_prog, &w[t]);
	}
	ph_run(h, 3 * SEC);
	runs = calloc(h->nlog + 1, sizeof(*runs));
	for (uint32_t i = 0; i < h->nlog; i++) {
		const struct pc_io *io = &h->log[i].io;

		r->reqs[io->reason]++;
		if (io->issuer != fl || io->op != PC_IO_WRITE)
			continue;
		r->group_of_flusher_io = io->group;
		if (io->file != cur) {
			if (run)
				runs[nruns++] = run;
			cur = io->file;
			run = 0;
		}
		run += io->npages;
	}
	/* the median of the completed stretches */
	for (uint32_t i = 1; i < nruns; i++)
		for (uint32_t j = i; j > 0 && runs[j - 1] > runs[j]; j--) {
			uint32_t x = runs[j];

			runs[j] = runs[j - 1];
			runs[j - 1] = x;
		}
	r->median_run = nruns ? runs[nruns / 2] : 0;
	free(runs);
	r->flusher_congestion_waits = pc_task_stats(h->pc, fl)->congestion_waits;
	r->writer_pauses = pc_task_stats(h->pc, 0)->pauses + pc_task_stats(h->pc, 1)->pauses;
	ph_free(h);
	free(w);
	free(h);
}

/* The tunables the engine and schedsim take as options (pc_tunable_names), as one list. */
static void test_apply_tunables(void **state)
{
	struct pc_params p;
	char err[200];

	(void)state;
	pc_params_defaults(&p, PC_PROFILE_LINUX_6_12);
	assert_int_equal(
	    pc_apply_tunables(&p, "dirty_ratio=40,read_ahead_kb=512,dirty_expire_centisecs=100",
			      err, sizeof(err)),
	    0);
	assert_int_equal(p.dirty_ratio, 40);
	assert_int_equal(p.read_ahead_kb, 512);
	assert_int_equal(p.dirty_expire_centisecs, 100);
	/* a bytes setting clears its ratio, as the sysctl handlers do */
	assert_int_equal(pc_apply_tunables(&p, "dirty_background_bytes=1048576", err, sizeof(err)),
			 0);
	assert_int_equal(p.dirty_background_ratio, 0);
	assert_int_equal(p.dirty_background_bytes, 1048576);
	assert_int_equal(pc_apply_tunables(&p, "", err, sizeof(err)), 0);
	/* refused, each with a message naming what */
	assert_int_equal(pc_apply_tunables(&p, "dirty_ratio=101", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "dirty_ratio=101"));
	assert_int_equal(pc_apply_tunables(&p, "read_ahead_kb=1,bogus=1", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bogus"));
	assert_int_equal(pc_apply_tunables(&p, "dirty_ratio", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "name=value"));
	/* queue/max_sectors_kb: the largest request the cache sends, 4..65536 */
	assert_int_equal(pc_apply_tunables(&p, "max_sectors_kb=64", err, sizeof(err)), 0);
	assert_int_equal(p.max_sectors_kb, 64);
	assert_int_equal(pc_apply_tunables(&p, "max_sectors_kb=2", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "max_sectors_kb"));
}

static void test_switches(void **state)
{
	struct heavy on, off;

	(void)state;
	/* I/O-less throttling: pauses vs the dirtier's own writeback */
	heavy_run(&on, PC_SW_IOLESS_THROTTLE, 0, 128, 64, 1280);
	heavy_run(&off, 0, PC_SW_IOLESS_THROTTLE, 128, 64, 1280);
	print_message("ioless_throttle on: %lu pauses, %lu dirtier requests; off: %lu pauses, "
		      "%lu dirtier requests\n",
		      (unsigned long)on.writer_pauses, (unsigned long)on.reqs[PC_WHY_DIRTIER],
		      (unsigned long)off.writer_pauses, (unsigned long)off.reqs[PC_WHY_DIRTIER]);
	assert_true(on.writer_pauses > 10 && on.reqs[PC_WHY_DIRTIER] == 0);
	assert_true(off.writer_pauses == 0 && off.reqs[PC_WHY_DIRTIER] > 10);

	/* per-bdi flusher: blocks on the queue; pdflush backs off when it is congested */
	heavy_run(&on, PC_SW_PER_BDI_FLUSHER, 0, 16, 64, 128);
	heavy_run(&off, 0, PC_SW_PER_BDI_FLUSHER, 16, 64, 128);
	print_message("per_bdi_flusher on: %lu flusher congestion waits; off: %lu\n",
		      (unsigned long)on.flusher_congestion_waits,
		      (unsigned long)off.flusher_congestion_waits);
	assert_int_equal(on.flusher_congestion_waits, 0);
	assert_true(off.flusher_congestion_waits > 5);

	/* writeback_chunk_size(): stretches on one inode */
	heavy_run(&on, PC_SW_CHUNK_BY_BANDWIDTH, 0, 128, 1024, 1280);
	heavy_run(&off, 0, PC_SW_CHUNK_BY_BANDWIDTH, 128, 1024, 1280);
	print_message("chunk_by_bandwidth on: the flusher stays on one file for %u pages (median); "
		      "off: %u\n",
		      on.median_run, off.median_run);
	/* min(write_bw / 2, dirty_limit / DIRTY_SCOPE) rounded to 4 MiB: 7168 pages here */
	assert_true(on.median_run >= 4096);
	assert_int_equal(off.median_run, 1024); /* MAX_WRITEBACK_PAGES */

	/* cgroup writeback: the flusher's requests in the dirtier's group */
	heavy_run(&on, PC_SW_CGROUP_WRITEBACK, 0, 128, 64, 1280);
	heavy_run(&off, 0, PC_SW_CGROUP_WRITEBACK, 128, 64, 1280);
	print_message("cgroup_writeback on: flusher I/O in group %u; off: group %u\n",
		      on.group_of_flusher_io, off.group_of_flusher_io);
	assert_int_equal(on.group_of_flusher_io, 3);
	assert_int_equal(off.group_of_flusher_io, 0);

	/* REQ_SYNC on fsync's writeback: test_fsync_exact checks both profiles; here the switch
	 * alone. */
	for (int sw = 0; sw < 2; sw++) {
		struct pc_params p;
		struct ph *h = calloc(1, sizeof(*h));
		struct script s = {0};
		uint32_t n = 0;

		params(&p, PC_PROFILE_LINUX_6_12, 64);
		if (!sw)
			p.switches &= ~PC_SW_SYNC_WRITEBACK_REQ_SYNC;
		ph_init(h, &p, 100, 100, 128);
		open_file(h, 0, 0);
		script_add(&s, 0, PH_CALL_WRITE, 0, 0, 64 * PG);
		script_add(&s, 10 * MS, PH_CALL_FSYNC, 0, 0, 0);
		ph_task(h, 0, 0, script_prog, &s);
		ph_run(h, SEC);
		for (uint32_t i = 0; i < h->nlog; i++)
			if (h->log[i].io.op == PC_IO_WRITE) {
				assert_int_equal(!!(h->log[i].io.flags & PC_IO_SYNC), sw);
				n++;
			}
		assert_int_equal(n, 1);
		ph_free(h);
		free(h);
	}
}

/*
 * requeue_io_all (2.6.36's merge of the kupdate and other cases): a writer at the dirty limit
 * writes back 2.6.x's write_chunk of any inode itself (balance_dirty_pages(), blocking on a
 * 4-request queue), and a small file is dirtied while such a pass is on the big one. 2.6.29
 * (off): the pass ends with the big inode's slice used up and redirty_tail() restamps it behind
 * the small one, so the next pass writes the small file first. On: the big inode goes to
 * b_more_io and gets another slice before the small file.
 */
struct order_run {
	uint64_t big_pages_before; /* the big file's pages submitted while the small one waited */
	uint64_t small_delay_ns;   /* from the small write to its first writeback request */
	uint32_t small_reason;
};

static void order_run(struct order_run *r, bool on)
{
	struct pc_params p;
	struct ph *h = calloc(1, sizeof(*h));
	struct stream w = {.call = PH_CALL_WRITE, .file = 0, .bs = MiB, .size = 64 * MiB};
	struct script s = {0};
	const uint64_t at = 1510 * MS; /* inside the pass the dirtier began at 1.5 s */
	bool seen = false;

	params(&p, PC_PROFILE_LINUX_2_6_29, 64);
	if (on)
		p.switches |= PC_SW_REQUEUE_IO_ALL;
	ph_init(h, &p, 10, 100, 4);
	open_file(h, 0, 0);
	open_file(h, 1, 0);
	ph_task(h, 0, 0, stream_prog, &w);
	script_add(&s, at, PH_CALL_WRITE, 1, 0, 16 * PG);
	ph_task(h, 1, 0, script_prog, &s);
	ph_run(h, 5 * SEC);
	memset(r, 0, sizeof(*r));
	for (uint32_t i = 0; i < h->nlog && !seen; i++) {
		const struct ph_log *l = &h->log[i];

		if (!is_wb(l) || l->submit_ns < at)
			continue;
		if (l->io.file == 1) {
			seen = true;
			r->small_delay_ns = l->submit_ns - at;
			r->small_reason = l->io.reason;
		} else {
			r->big_pages_before += l->io.npages;
		}
	}
	assert_true(seen);
	ph_free(h);
	free(h);
}

static void test_requeue_io_all(void **state)
{
	struct order_run off, on;

	(void)state;
	order_run(&off, false);
	order_run(&on, true);
	print_message(
	    "a small file dirtied during the dirtier's pass on a big one (2.6.29): the big "
	    "file's pages before the small one's writeback %lu with redirty_tail (off), %lu "
	    "with requeue_io_all; the small one waited %.1f / %.1f ms\n",
	    (unsigned long)off.big_pages_before, (unsigned long)on.big_pages_before,
	    (double)off.small_delay_ns / MS, (double)on.small_delay_ns / MS);
	/* Both are the dirtier's writeback, not kupdate's (30 s away). */
	assert_int_equal(off.small_reason, PC_WHY_DIRTIER);
	assert_int_equal(on.small_reason, PC_WHY_DIRTIER);
	/* Off, the small file is not passed over by the big one's next slice. */
	assert_true(on.big_pages_before > off.big_pages_before);
	assert_true(on.small_delay_ns > off.small_delay_ns);
}

/*
 * ---- invalidate of a range (fio's invalidate=1: its job's file_offset/io_size) ----
 * Two jobs read their halves of one file; each one's DONTNEED drops only its own whole pages:
 * the other half stays cached, partial pages at the edges stay (unless the range ends at
 * i_size), and WB_SYNC_NONE writeback covers only the pages the range touches.
 */
static bool page_cached(struct ph *h, uint32_t file, uint32_t index)
{
	return (pc_page_state(h->pc, file, index) & PC_PG_PRESENT) != 0;
}

static void test_invalidate_range(void **state)
{
	struct pc_params p;
	struct ph *h = calloc(1, sizeof(*h));
	struct script s0 = {0}, s1 = {0}, s2 = {0};
	uint64_t pages = 0, cached, dirty, wb;

	(void)state;
	params(&p, PC_PROFILE_LINUX_6_12, 64);
	ph_init(h, &p, 100, 100, 128);
	open_file(h, 0, 256 * PG);
	open_file(h, 1, 10 * PG + 50);
	open_file(h, 2, 0);
	script_add(&s0, 0, PH_CALL_READ, 0, 0, 128 * PG);
	script_add(&s0, 0, PH_CALL_READ, 1, 0, 10 * PG + 50);
	script_add(&s0, 500 * MS, PH_CALL_INVALIDATE, 0, 0, 128 * PG);
	script_add(&s0, 500 * MS, PH_CALL_INVALIDATE, 1, 0, 10 * PG + 50);
	script_add(&s1, 0, PH_CALL_READ, 0, 128 * PG, 128 * PG);
	/* bytes [138 pages + 100, 158 pages + 100): whole pages 139 .. 157 */
	script_add(&s1, 600 * MS, PH_CALL_INVALIDATE, 0, 138 * PG + 100, 20 * PG);
	script_add(&s2, 0, PH_CALL_WRITE, 2, 0, 64 * PG);
	script_add(&s2, 0, PH_CALL_WRITE, 2, 192 * PG, 64 * PG);
	script_add(&s2, 100 * MS, PH_CALL_INVALIDATE, 2, 0, 128 * PG);
	/* touches pages 224 .. 234 (partial at both ends): all written back, none dropped */
	script_add(&s2, 200 * MS, PH_CALL_INVALIDATE, 2, 224 * PG + 100, 10 * PG);
	ph_task(h, 0, 0, script_prog, &s0);
	ph_task(h, 1, 0, script_prog, &s1);
	ph_task(h, 2, 0, script_prog, &s2);
	ph_run(h, 550 * MS);
	assert_true(h->t[0].done);
	for (uint32_t i = 0; i < 128; i++)
		assert_false(page_cached(h, 0, i));
	for (uint32_t i = 128; i < 256; i++) /* the other job's half */
		assert_true(page_cached(h, 0, i));
	for (uint32_t i = 0; i <= 10; i++) /* page 10 is partial, but the range ends at i_size */
		assert_false(page_cached(h, 1, i));
	ph_run(h, 2 * SEC);
	assert_true(h->t[1].done);
	for (uint32_t i = 128; i < 256; i++)
		assert_int_equal(page_cached(h, 0, i), i < 139 || i > 157);
	/* file 2: writeback of the pages each range touched, no more, without waiting */
	for (uint32_t i = 0; i < h->nlog; i++)
		if (h->log[i].io.reason == PC_WHY_FADVISE) {
			assert_int_equal(h->log[i].io.file, 2);
			assert_true(h->log[i].io.index < 64 ||
				    (h->log[i].io.index >= 224 &&
				     h->log[i].io.index + h->log[i].io.npages <= 235));
			pages += h->log[i].io.npages;
		}
	assert_int_equal(pages, 64 + 11);
	pc_file_counts(h->pc, 2, &cached, &dirty, &wb);
	print_message("invalidate of a range: %lu pages written back, %lu still dirty (file 2), "
		      "the other job's %u pages kept\n",
		      (unsigned long)pages, (unsigned long)dirty, 128 - 19);
	assert_int_equal(dirty, 64 - 11);
	for (uint32_t i = 192; i < 256; i++)
		assert_int_equal((pc_page_state(h->pc, 2, i) & PC_PG_DIRTY) != 0,
				 i < 224 || i > 234);
	assert_int_equal(pc_stats(h->pc)->nr_cached, cached + (128 - 19));
	assert_int_equal(pc_check(h->pc, h->err, sizeof(h->err)), 0);
	ph_free(h);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_params),
	    cmocka_unit_test(test_background_threshold),
	    cmocka_unit_test(test_throttle_at_hard_limit),
	    cmocka_unit_test(test_fsync_exact),
	    cmocka_unit_test(test_fsync_waits_for_writeback),
	    cmocka_unit_test(test_readahead_windows),
	    cmocka_unit_test(test_verify),
	    cmocka_unit_test(test_bound_64_writers),
	    cmocka_unit_test(test_kupdate_expiry),
	    cmocka_unit_test(test_truncate),
	    cmocka_unit_test(test_memory_pressure),
	    cmocka_unit_test(test_invalidate),
	    cmocka_unit_test(test_invalidate_range),
	    cmocka_unit_test(test_switches),
	    cmocka_unit_test(test_requeue_io_all),
	    cmocka_unit_test(test_apply_tunables),
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	return cmocka_run_group_tests_name("pagecache", tests, NULL, NULL);
}
