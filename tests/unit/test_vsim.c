// SPDX-License-Identifier: GPL-2.0
/*
 * The virtual-time simulator with the none and deadline policies: throughput against the seed
 * calibration, Little's law, exactly-once accounting, fio job semantics, determinism.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "support.h"
#include "vsim.h"

#define US  1000ull
#define MS  1000000ull
#define SEC 1000000000ull

static void run_ok(const struct vsim_config *cfg, struct vsim_result *res)
{
	char err[256] = "";

	if (vsim_run(cfg, res, err, sizeof(err))) {
		print_error("vsim_run: %s\n", err);
		fail();
	}
	assert_false(res->stalled);
}

/*
 * Every request counted once: scheduler, device and per-clone figures agree. With merging a bio
 * is either inserted as a request or merged into a queued one (bio_merged), and an inserted
 * request either reaches the device or is merged into its neighbour (rq_merged); each bio that
 * completes is counted once for its own clone: as the request it headed (completed), as a bio
 * merged (bio_merged) or as the head of a request merged away (rq_merged).
 */
static void check_accounting(const struct vsim_result *r)
{
	uint64_t ios = 0, merged = r->sched.bio_merged + r->sched.rq_merged;

	assert_int_equal(r->submitted, r->completed + r->in_flight_at_end);
	assert_int_equal(r->sched.inserted + r->sched.bio_merged, r->submitted);
	assert_true(r->sched.completed <= r->completed);
	assert_true(r->completed <= r->sched.completed + merged);
	if (!r->in_flight_at_end)
		assert_int_equal(r->sched.completed + merged, r->completed);
	assert_int_equal(r->dev.completed, r->sched.completed);
	assert_int_equal(r->sched.dispatched, r->dev.submitted);
	for (uint32_t i = 0; i < r->nr_entities; i++) {
		uint64_t own = r->entity[i].ios[0] + r->entity[i].ios[1] + r->entity[i].ios[2];
		const struct sched_entity_stats *es = &r->sched.entity[i];

		for (int d = 0; d < VSIM_NR_DIRS; d++)
			ios += r->entity[i].ios[d];
		if (!merged)
			assert_int_equal(es->completed, own);
		else
			assert_true(own <= es->completed + es->bio_merged + es->rq_merged);
	}
	assert_int_equal(ios, r->completed);
	assert_int_equal(r->total.ios[0] + r->total.ios[1] + r->total.ios[2], r->completed);
}

static void check_lat_order(const struct vsim_lat *l)
{
	if (!l->n)
		return;
	assert_true(l->min_ns <= l->p50_ns);
	assert_true(l->p50_ns <= l->p90_ns);
	assert_true(l->p90_ns <= l->p99_ns);
	assert_true(l->p99_ns <= l->p999_ns);
	assert_true(l->p999_ns <= l->max_ns);
	assert_true(l->mean_ns >= (double)l->min_ns && l->mean_ns <= (double)l->max_ns);
}

/* The 2015 seed, local SSD with slice_idle=0: 10 jobs x iodepth 64 4 KiB randread, 21626. */
static void test_ssd_seed_none(void **state)
{
	struct vsim_config cfg;
	struct vsim_result r;
	struct vsim_job job;
	double little;

	(void)state;
	vsim_config_defaults(&cfg, SCHED_POLICY_NONE, DEVMODEL_SSD);
	vsim_job_defaults(&job);
	job.rw = VSIM_RANDREAD;
	job.iodepth = 64;
	job.numjobs = 10;
	job.size = 5ull << 30;
	cfg.jobs = &job;
	cfg.nr_jobs = 1;
	cfg.runtime_ns = 2 * SEC;
	/* The calibration: all 640 I/Os in the scheduler or the device (no request limit). */
	cfg.nr_requests = 0;
	run_ok(&cfg, &r);
	check_accounting(&r);
	little = 640.0 / r.total.iops * 1e9;
	print_message("ssd none 10x64: %.0f IOPS, lat mean %.2f ms (Little %.2f) p99 %.2f ms\n",
		      r.total.iops, r.total.lat.mean_ns / MS, little / MS,
		      (double)r.total.lat.p99_ns / MS);
	assert_true(r.total.iops > 0.95 * 21626 && r.total.iops < 1.05 * 21626);
	assert_true(r.job[0].iops == r.total.iops);
	/* Little's law: 640 outstanding (every clone always full). */
	assert_true(r.total.lat.mean_ns > 0.97 * little && r.total.lat.mean_ns < 1.03 * little);
	/* The device is kept at its 32 tags; the scheduler holds the rest. */
	assert_int_equal(r.sched.max_in_flight, 32);
	check_lat_order(&r.total.lat);
	/* Each clone gets about a tenth. */
	for (uint32_t i = 0; i < 10; i++)
		assert_true(r.entity[i].iops > 0.08 * r.total.iops &&
			    r.entity[i].iops < 0.12 * r.total.iops);
	vsim_result_free(&r);

	/* Same with deadline: only reads, no expiry at ~30 ms: the same throughput. */
	cfg.sched.policy = SCHED_POLICY_DEADLINE;
	sched_config_defaults(&cfg.sched, SCHED_POLICY_DEADLINE);
	cfg.sched.rotational = false;
	cfg.sched.hw_queue_depth = 0;
	cfg.nr_requests = 0;
	run_ok(&cfg, &r);
	check_accounting(&r);
	assert_true(r.total.iops > 0.95 * 21626 && r.total.iops < 1.05 * 21626);
	vsim_result_free(&r);
}

/* The cloud SSD at 640 outstanding: 29255 IOPS, 21.8 ms in the seed. */
static void test_cloud_seed_none(void **state)
{
	struct vsim_config cfg;
	struct vsim_result r;
	struct vsim_job job;

	(void)state;
	vsim_config_defaults(&cfg, SCHED_POLICY_NONE, DEVMODEL_CLOUD_SSD);
	vsim_job_defaults(&job);
	job.iodepth = 64;
	job.numjobs = 10;
	job.size = 100ull << 30;
	cfg.jobs = &job;
	cfg.nr_jobs = 1;
	cfg.nr_requests = 0; /* the calibration: all 640 in the scheduler or the device */
	run_ok(&cfg, &r);
	check_accounting(&r);
	print_message("cloud none 10x64: %.0f IOPS, lat mean %.2f ms\n", r.total.iops,
		      r.total.lat.mean_ns / MS);
	assert_true(r.total.iops > 0.9 * 29255 && r.total.iops < 1.1 * 29255);
	assert_true(r.total.lat.mean_ns > 0.9 * 21.836 * MS &&
		    r.total.lat.mean_ns < 1.1 * 21.836 * MS);
	vsim_result_free(&r);
}

/*
 * nr_requests: 640 I/Os, 128 requests. Clones sleep for a request and are admitted in FIFO
 * order; with batching off the list never holds more than nr_requests, with it (the kernel's
 * 32 per wake-up) never more than 1.5 x. The device stays busy, every clone gets its share,
 * and what completes while a clone sleeps is reaped (and timed) when it wakes.
 */
static void test_nr_requests(void **state)
{
	struct vsim_config cfg;
	struct vsim_result r;
	struct vsim_job job;

	(void)state;
	for (int batch = 0; batch < 2; batch++) {
		vsim_config_defaults(&cfg, SCHED_POLICY_NONE, DEVMODEL_SSD);
		assert_int_equal(cfg.nr_requests, SCHED_NR_REQUESTS_AUTO);
		assert_int_equal(cfg.nr_batching, 32);
		/* The legacy block layer in front of none: 128 requests per list. */
		cfg.sched.blk_mode = SCHED_BLK_LEGACY;
		cfg.nr_batching = batch ? 32 : 0;
		vsim_job_defaults(&job);
		job.iodepth = 64;
		job.numjobs = 10;
		job.size = 5ull << 30;
		cfg.jobs = &job;
		cfg.nr_jobs = 1;
		cfg.runtime_ns = SEC;
		run_ok(&cfg, &r);
		check_accounting(&r);
		print_message("ssd none 10x64 nr_requests 128 batching %u: %.0f IOPS, lat %.2f ms, "
			      "%lu waits, most allocated %u, most asleep %u\n",
			      cfg.nr_batching, r.total.iops, r.total.lat.mean_ns / MS,
			      (unsigned long)r.admission_waits, r.max_allocated[1], r.max_waiting);
		assert_true(r.admission_waits > 100);
		assert_int_equal(r.max_waiting, 10);
		assert_int_equal(r.max_allocated[0], 0);
		if (batch)
			assert_true(r.max_allocated[1] > 128 && r.max_allocated[1] <= 192);
		else
			assert_int_equal(r.max_allocated[1], 128);
		/* The device still has its 32 tags full: the same throughput. */
		assert_true(r.total.iops > 0.95 * 21626 && r.total.iops < 1.05 * 21626);
		for (uint32_t i = 0; i < 10; i++)
			assert_true(r.entity[i].iops > 0.08 * r.total.iops &&
				    r.entity[i].iops < 0.12 * r.total.iops);
		/* The wait for a request is part of the latency: more than the device's. And fio
		 * reaps one completion per submission, so a clone woken from the wait still has
		 * its 64 outstanding: Little's law holds over all 640, as in the seed's table. */
		assert_true(r.total.lat.mean_ns > 128.0 / r.total.iops * 1e9 * 0.9);
		print_message("  Little: lat x IOPS = %.0f of 640 outstanding\n",
			      r.total.lat.mean_ns * r.total.iops / 1e9);
		assert_true(r.total.lat.mean_ns * r.total.iops / 1e9 > 0.95 * 640);
		assert_true(r.total.lat.mean_ns * r.total.iops / 1e9 < 640);
		vsim_result_free(&r);
	}
	/* Out of range. */
	{
		char err[256];

		cfg.nr_requests = 3;
		assert_int_equal(vsim_run(&cfg, &r, err, sizeof(err)), -1);
		test_assert_one_line(err);
	}
}

/* Little's law on other devices, depths and policies. */
static void test_littles_law(void **state)
{
	static const struct {
		enum devmodel_kind kind;
		enum sched_policy_id pol;
		uint32_t depth, jobs;
	} c[] = {
	    {DEVMODEL_HDD, SCHED_POLICY_NONE, 4, 2},
	    {DEVMODEL_HDD, SCHED_POLICY_DEADLINE, 16, 3},
	    {DEVMODEL_CLOUD_SSD, SCHED_POLICY_DEADLINE, 8, 1},
	    {DEVMODEL_SSD, SCHED_POLICY_NONE, 1, 1},
	};

	(void)state;
	for (unsigned int k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		struct vsim_config cfg;
		struct vsim_result r;
		struct vsim_job job;
		double n = c[k].depth * c[k].jobs, little;

		vsim_config_defaults(&cfg, c[k].pol, c[k].kind);
		vsim_job_defaults(&job);
		job.iodepth = c[k].depth;
		job.numjobs = c[k].jobs;
		job.size = 20ull << 30;
		cfg.jobs = &job;
		cfg.nr_jobs = 1;
		cfg.runtime_ns = c[k].kind == DEVMODEL_HDD ? 20 * SEC : SEC;
		run_ok(&cfg, &r);
		check_accounting(&r);
		/* Outstanding minus the host time between completion and the next submission. */
		little = n / r.total.iops * 1e9;
		print_message("%s %s %ux%u: %.0f IOPS, lat %.3f ms, n/X %.3f ms\n",
			      devmodel_kind_name(c[k].kind), c[k].pol ? "deadline" : "none",
			      c[k].jobs, c[k].depth, r.total.iops, r.total.lat.mean_ns / MS,
			      little / MS);
		assert_true(r.total.lat.mean_ns < little);
		assert_true(r.total.lat.mean_ns > 0.95 * little);
		check_lat_order(&r.total.lat);
		vsim_result_free(&r);
	}
}

/* number_ios: every clone does exactly that many, then the run ends with nothing in flight. */
static void test_number_ios_exact(void **state)
{
	struct vsim_config cfg;
	struct vsim_result r;
	struct vsim_job jobs[2];

	(void)state;
	vsim_config_defaults(&cfg, SCHED_POLICY_DEADLINE, DEVMODEL_HDD);
	vsim_job_defaults(&jobs[0]);
	jobs[0].rw = VSIM_RANDRW;
	jobs[0].rwmixread = 70;
	jobs[0].iodepth = 8;
	jobs[0].numjobs = 3;
	jobs[0].number_ios = 300;
	jobs[0].size = 1ull << 30;
	vsim_job_defaults(&jobs[1]);
	jobs[1].rw = VSIM_READ;
	jobs[1].bs = 65536;
	jobs[1].number_ios = 500;
	jobs[1].offset = 100ull << 30;
	cfg.jobs = jobs;
	cfg.nr_jobs = 2;
	cfg.runtime_ns = 0;
	run_ok(&cfg, &r);
	check_accounting(&r);
	assert_int_equal(r.nr_entities, 4);
	assert_int_equal(r.in_flight_at_end, 0);
	for (uint32_t i = 0; i < 3; i++) {
		assert_int_equal(r.entity_job[i], 0);
		assert_int_equal(r.entity[i].ios[0] + r.entity[i].ios[1], 300);
		/* rwmixread 70: roughly 70% reads. */
		assert_true(r.entity[i].ios[0] > 170 && r.entity[i].ios[0] < 250);
	}
	assert_int_equal(r.entity_job[3], 1);
	assert_int_equal(r.entity[3].ios[0], 500);
	assert_int_equal(r.entity[3].bytes[0], 500ull * 65536);
	assert_int_equal(r.job[0].ios[0] + r.job[0].ios[1], 900);
	assert_int_equal(r.total.ios[0] + r.total.ios[1], 1400);
	vsim_result_free(&r);
}

/* fsync=N: one flush per N writes, its latency is the fsync's, and it is on the write side. */
static void test_fsync(void **state)
{
	struct vsim_config cfg;
	struct vsim_result r;
	struct vsim_job job;

	(void)state;
	vsim_config_defaults(&cfg, SCHED_POLICY_DEADLINE, DEVMODEL_HDD);
	vsim_job_defaults(&job);
	job.rw = VSIM_RANDWRITE;
	job.direct = false;
	job.iodepth = 4;
	job.fsync = 8;
	job.number_ios = 400;
	job.size = 10ull << 30;
	cfg.jobs = &job;
	cfg.nr_jobs = 1;
	cfg.runtime_ns = 0;
	run_ok(&cfg, &r);
	check_accounting(&r);
	assert_int_equal(r.total.ios[VSIM_DIR_WRITE], 400);
	assert_int_equal(r.total.ios[VSIM_DIR_FLUSH], 50);
	assert_int_equal(r.dev.ops[DEVMODEL_FLUSH], 50);
	print_message("hdd fsync=8 randwrite: fsync mean %.2f ms p99 %.2f ms, write mean %.3f ms\n",
		      r.total.dir[VSIM_DIR_FLUSH].mean_ns / MS,
		      (double)r.total.dir[VSIM_DIR_FLUSH].p99_ns / MS,
		      r.total.dir[VSIM_DIR_WRITE].mean_ns / MS);
	/* The drive's cache absorbs the writes; the flush pays for destaging them. */
	assert_true(r.total.dir[VSIM_DIR_FLUSH].mean_ns > 5 * r.total.dir[VSIM_DIR_WRITE].mean_ns);
	assert_true(r.total.dir[VSIM_DIR_FLUSH].mean_ns > 10.0 * MS);
	check_lat_order(&r.total.dir[VSIM_DIR_FLUSH]);
	vsim_result_free(&r);
}

/* thinktime: fio's thinktime_blocks=1 makes any depth one I/O then a pause. */
static void test_thinktime_and_null(void **state)
{
	struct vsim_config cfg;
	struct vsim_result r;
	struct vsim_job job;

	(void)state;
	vsim_config_defaults(&cfg, SCHED_POLICY_NONE, DEVMODEL_NULL);
	vsim_job_defaults(&job);
	job.iodepth = 8;
	job.thinktime_us = 1000;
	cfg.jobs = &job;
	cfg.nr_jobs = 1;
	run_ok(&cfg, &r);
	check_accounting(&r);
	/* One I/O (instant) per 1 ms think: 1000 per second. */
	assert_true(r.total.iops >= 990 && r.total.iops <= 1001);
	assert_int_equal(r.sched.max_in_flight, 1);
	vsim_result_free(&r);

	/* No think: the null device at depth 1 does one I/O per io_overhead (2 us). */
	job.thinktime_us = 0;
	job.iodepth = 1;
	cfg.runtime_ns = 100 * MS;
	run_ok(&cfg, &r);
	check_accounting(&r);
	assert_true(r.total.iops > 499000 && r.total.iops < 501000);
	/* Instant completion: every latency is 0. */
	assert_int_equal(r.total.lat.max_ns, 0);
	assert_int_equal(r.total.lat.p999_ns, 0);
	vsim_result_free(&r);
}

/*
 * fio's rate_iops on a buffered writer through the page cache, fsync=1 (the 2009 fsync-tester's
 * translation): write, fsync at once, then wait for the next 1/rate_iops mark. A 10 ms hdd-like
 * fsync leaves the 0.5 s period alone; against thinktime (write, think, fsync) the fsync no
 * longer waits a think behind its write.
 */
static void test_rate_iops_buffered(void **state)
{
	struct vsim_config cfg;
	struct vsim_result r;
	struct vsim_job job;

	(void)state;
	vsim_config_defaults(&cfg, SCHED_POLICY_NONE, DEVMODEL_SSD);
	cfg.pagecache = true;
	pc_params_defaults(&cfg.pc, PC_PROFILE_LINUX_2_6_29);
	vsim_job_defaults(&job);
	job.rw = VSIM_WRITE;
	job.direct = false;
	job.bs = 1 << 20;
	job.size = 1 << 20;
	job.file = 1;
	job.fsync = 1;
	job.rate_iops = 2;
	cfg.jobs = &job;
	cfg.nr_jobs = 1;
	cfg.runtime_ns = 3 * SEC + 250 * MS;
	run_ok(&cfg, &r);
	/* writes at 0, 0.5, .. 3.0 s: 7, each followed by its fsync */
	print_message("rate_iops=2, 3.25 s: %lu writes, %lu fsyncs\n",
		      (unsigned long)r.job[0].dir[VSIM_DIR_WRITE].n,
		      (unsigned long)r.job[0].dir[VSIM_DIR_FLUSH].n);
	assert_int_equal(r.job[0].dir[VSIM_DIR_WRITE].n, 7);
	assert_int_equal(r.job[0].dir[VSIM_DIR_FLUSH].n, 7);
	vsim_result_free(&r);
	/* A 0.5 s think instead: write, think, fsync; the same 7 writes, the last fsync (due at
	 * 3.5 s) not reached. */
	job.rate_iops = 0;
	job.thinktime_us = 500000;
	run_ok(&cfg, &r);
	assert_int_equal(r.job[0].dir[VSIM_DIR_WRITE].n, 7);
	assert_int_equal(r.job[0].dir[VSIM_DIR_FLUSH].n, 6);
	vsim_result_free(&r);
}

/*
 * Buffered clones without filename= read files of their own (fio's jobname.N.0): each clone's
 * file is a separate inode (file_per_clone), so the same offsets are read from the device once
 * per clone; clones sharing one named file read them once between them.
 */
static void test_file_per_clone(void **state)
{
	struct vsim_config cfg;
	struct vsim_result r;
	struct vsim_job job;
	uint64_t shared, own;

	(void)state;
	vsim_config_defaults(&cfg, SCHED_POLICY_NONE, DEVMODEL_SSD);
	cfg.pagecache = true;
	pc_params_defaults(&cfg.pc, PC_PROFILE_LINUX_6_12);
	vsim_job_defaults(&job);
	job.rw = VSIM_READ;
	job.direct = false;
	job.bs = 4096;
	job.size = 1 << 20;
	job.numjobs = 2;
	job.file = 0;
	cfg.jobs = &job;
	cfg.nr_jobs = 1;
	cfg.runtime_ns = 1 * SEC;
	run_ok(&cfg, &r);
	shared = r.dev.bytes[DEVMODEL_READ];
	vsim_result_free(&r);
	job.file_per_clone = true;
	run_ok(&cfg, &r);
	own = r.dev.bytes[DEVMODEL_READ];
	vsim_result_free(&r);
	print_message("2 clones, 1 MiB each, 1 s: %lu bytes read from the device with one inode, "
		      "%lu with one per clone\n",
		      (unsigned long)shared, (unsigned long)own);
	/* every page cached after its first read: one read of the region, or one per clone */
	assert_true(shared >= 1u << 20 && shared < 3u << 19);
	assert_true(own >= 2u << 20 && own < 3u << 20);
}

/* A sequential reader on the hdd streams at the media rate through the simulator. */
static void test_hdd_sequential(void **state)
{
	struct vsim_config cfg;
	struct vsim_result r;
	struct vsim_job job;

	(void)state;
	vsim_config_defaults(&cfg, SCHED_POLICY_DEADLINE, DEVMODEL_HDD);
	vsim_job_defaults(&job);
	job.rw = VSIM_READ;
	job.bs = 128 * 1024;
	cfg.jobs = &job;
	cfg.nr_jobs = 1;
	cfg.runtime_ns = 5 * SEC;
	run_ok(&cfg, &r);
	check_accounting(&r);
	print_message("hdd seq read 128k QD1: %.1f MB/s\n", r.total.bw_bps / 1e6);
	assert_true(r.total.bw_bps > 110e6 && r.total.bw_bps < 125e6);
	vsim_result_free(&r);
}

static uint64_t result_hash(const struct vsim_result *r)
{
	uint64_t h = 1469598103934665603ull;

	for (uint32_t i = 0; i < r->nr_entities; i++) {
		h = (h ^ r->entity[i].ios[0]) * 1099511628211ull;
		h = (h ^ r->entity[i].ios[1]) * 1099511628211ull;
		h = (h ^ r->entity[i].lat.p99_ns) * 1099511628211ull;
		h = (h ^ r->entity[i].lat.max_ns) * 1099511628211ull;
	}
	return (h ^ r->events) * 1099511628211ull;
}

static void test_determinism(void **state)
{
	struct vsim_config cfg;
	struct vsim_result a, b, c;
	struct vsim_job jobs[2];

	(void)state;
	vsim_config_defaults(&cfg, SCHED_POLICY_DEADLINE, DEVMODEL_HDD);
	vsim_job_defaults(&jobs[0]);
	jobs[0].rw = VSIM_RANDRW;
	jobs[0].iodepth = 4;
	jobs[0].numjobs = 2;
	vsim_job_defaults(&jobs[1]);
	jobs[1].rw = VSIM_WRITE;
	jobs[1].direct = false;
	jobs[1].iodepth = 16;
	jobs[1].fsync = 32;
	cfg.jobs = jobs;
	cfg.nr_jobs = 2;
	cfg.runtime_ns = 3 * SEC;
	run_ok(&cfg, &a);
	run_ok(&cfg, &b);
	assert_int_equal(result_hash(&a), result_hash(&b));
	assert_int_equal(a.completed, b.completed);
	cfg.seed = 2;
	run_ok(&cfg, &c);
	assert_true(result_hash(&c) != result_hash(&a));
	check_accounting(&a);
	check_accounting(&c);
	vsim_result_free(&a);
	vsim_result_free(&b);
	vsim_result_free(&c);
}

static void test_bad_configs(void **state)
{
	struct vsim_config cfg;
	struct vsim_result r;
	struct vsim_job job;
	char err[256];

	(void)state;
	vsim_config_defaults(&cfg, SCHED_POLICY_NONE, DEVMODEL_SSD);
	vsim_job_defaults(&job);
	assert_int_equal(vsim_run(&cfg, &r, err, sizeof(err)), -1); /* no jobs */
	test_assert_one_line(err);
	cfg.jobs = &job;
	cfg.nr_jobs = 1;
	job.bs = 0;
	assert_int_equal(vsim_run(&cfg, &r, err, sizeof(err)), -1);
	test_assert_one_line(err);
	job.bs = 4096;
	job.numjobs = 300;
	assert_int_equal(vsim_run(&cfg, &r, err, sizeof(err)), -1);
	test_assert_one_line(err);
	job.numjobs = 1;
	cfg.sched.hw_queue_depth = 64; /* the ssd has 32 tags */
	assert_int_equal(vsim_run(&cfg, &r, err, sizeof(err)), -1);
	test_assert_one_line(err);
	cfg.sched.hw_queue_depth = 0;
	cfg.io_overhead_ns = 0;
	assert_int_equal(vsim_run(&cfg, &r, err, sizeof(err)), -1);
	cfg.io_overhead_ns = 1;
	cfg.runtime_ns = 0; /* and no number_ios */
	assert_int_equal(vsim_run(&cfg, &r, err, sizeof(err)), -1);
	test_assert_one_line(err);
	assert_int_equal(vsim_rw_by_name("randrw"), VSIM_RANDRW);
	assert_int_equal(vsim_rw_by_name("readwrite"), VSIM_RW);
	assert_int_equal(vsim_rw_by_name("trim"), -1);
	assert_string_equal(vsim_rw_name(VSIM_RANDWRITE), "randwrite");
}

/* Speed is reported, not asserted (no wall-clock asserts in unit tests). */
static void test_speed_report(void **state)
{
	struct vsim_config cfg;
	struct vsim_result r;
	struct vsim_job job;
	struct timespec t0, t1;
	double s;

	(void)state;
	vsim_config_defaults(&cfg, SCHED_POLICY_DEADLINE, DEVMODEL_SSD);
	vsim_job_defaults(&job);
	job.iodepth = 64;
	job.numjobs = 10;
	cfg.jobs = &job;
	cfg.nr_jobs = 1;
	cfg.runtime_ns = 20 * SEC;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	run_ok(&cfg, &r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	print_message("vsim speed: %lu requests in %.3f s: %.2f M requests/s\n",
		      (unsigned long)r.completed, s, (double)r.completed / s / 1e6);
	assert_true(r.completed > 400000);
	vsim_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ssd_seed_none),      cmocka_unit_test(test_cloud_seed_none),
	    cmocka_unit_test(test_nr_requests),	       cmocka_unit_test(test_littles_law),
	    cmocka_unit_test(test_number_ios_exact),   cmocka_unit_test(test_fsync),
	    cmocka_unit_test(test_thinktime_and_null), cmocka_unit_test(test_rate_iops_buffered),
	    cmocka_unit_test(test_file_per_clone),     cmocka_unit_test(test_hdd_sequential),
	    cmocka_unit_test(test_determinism),	       cmocka_unit_test(test_bad_configs),
	    cmocka_unit_test(test_speed_report),
	};

	return cmocka_run_group_tests_name("vsim", tests, NULL, NULL);
}
