// SPDX-License-Identifier: GPL-2.0
/*
 * The seed experiments (jobs/<seed>/, /work/shared/seeds/) replayed in virtual time: the
 * policies driven by vsim against the device models, each seed's effect asserted, our numbers
 * printed beside the published rows. Deterministic (fixed seeds), no wall clock.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cfq.h"
#include "support.h"
#include "vsim.h"

#define US  1000ull
#define MS  1000000ull
#define SEC 1000000000ull
#define MiB (1024.0 * 1024.0)

/* The CFQ counters of the last run, copied before vsim frees the scheduler. */
static struct cfq_stats last_cfq;
static double last_share[SCHED_MAX_GROUPS];

static void grab_cfq(const struct sched *s, void *ctx)
{
	const void *st = cfq_of(s);

	(void)ctx;
	memset(&last_cfq, 0, sizeof(last_cfq));
	memset(last_share, 0, sizeof(last_share));
	if (!st)
		return;
	last_cfq = *cfq_get_stats(st);
	for (uint32_t g = 0; g < SCHED_MAX_GROUPS && g < s->cfg.max_groups; g++)
		last_share[g] = cfq_group_share(st, g);
}

static void run_ok(struct vsim_config *cfg, struct vsim_result *res)
{
	char err[256] = "";

	cfg->at_end = grab_cfq;
	if (vsim_run(cfg, res, err, sizeof(err))) {
		print_error("vsim_run: %s\n", err);
		fail();
	}
	assert_false(res->stalled);
	/* Every request counted once, whatever waited for admission: a bio is inserted or
	 * merged into a queued request (bio_merged); each completed bio was a request that
	 * completed, a bio merged, or the head of a request merged away (rq_merged). */
	assert_int_equal(res->submitted, res->completed + res->in_flight_at_end);
	assert_int_equal(res->sched.inserted + res->sched.bio_merged, res->submitted);
	assert_true(res->sched.completed <= res->completed);
	assert_true(res->completed <=
		    res->sched.completed + res->sched.bio_merged + res->sched.rq_merged);
}

static void set_tunable(struct vsim_config *cfg, const char *name, long value)
{
	char err[256], v[32];

	snprintf(v, sizeof(v), "%ld", value);
	if (sched_config_set_tunable(&cfg->sched, name, v, err, sizeof(err))) {
		print_error("%s\n", err);
		fail();
	}
}

/* Time-weighted mean number of requests on the device (>= 64 counted as 64). */
static double mean_depth(const struct vsim_result *r)
{
	double sum = 0, t = 0;

	for (int i = 0; i < SCHED_INFLIGHT_BUCKETS; i++) {
		sum += (double)i * (double)r->sched.inflight_ns[i];
		t += (double)r->sched.inflight_ns[i];
	}
	return t > 0 ? sum / t : 0;
}

/* ---- 2015: CFQ idling on SSDs (cfq-iops-mode-on-ssd-2015) ---- */

struct row2015 {
	double iops, lat_ms, sd_ms, depth;
	uint64_t idle_armed, waits, slice_end_limited;
	uint64_t merges; /* bios merged (every kind): random 4 KiB reads that happen to touch */
};

/*
 * fio --rw=randread --bs=4k --direct=1 --iodepth=64 --numjobs=10 --runtime=10, CFQ, with the
 * legacy block layer's nr_requests (128, as in 2015; 0: unlimited).
 */
static void run_2015(enum devmodel_kind kind, long slice_idle, uint32_t nr_requests,
		     struct row2015 *row)
{
	struct vsim_config cfg;
	struct vsim_result r;
	struct vsim_job job;

	vsim_config_defaults(&cfg, SCHED_POLICY_CFQ, kind);
	/* The 2015 kernels set slice_idle on non-rotational queues only from 4.2 on: give it. */
	set_tunable(&cfg, "slice_idle", slice_idle);
	/* The thread's kernel (4.1, before the patch it argues for): the era's CFQ, proven equal
	 * to 4.1's cfq-iosched.c by the oracle (cfq_4_1: 0 divergent of 2000 streams). Measured
	 * 2026-12-07: Off/On 1.004 (cloud-ssd) and 0.999 (ssd) with the 2015 pool, 1.002 and
	 * 1.002 on the 4.19 profile: the era does not change the answer. */
	set_tunable(&cfg, "cfq_version", 401);
	cfg.nr_requests = nr_requests;
	vsim_job_defaults(&job);
	job.rw = VSIM_RANDREAD;
	job.iodepth = 64;
	job.numjobs = 10;
	job.size = kind == DEVMODEL_CLOUD_SSD ? 100ull << 30 : 5ull << 30;
	cfg.jobs = &job;
	cfg.nr_jobs = 1;
	cfg.runtime_ns = 10 * SEC;
	run_ok(&cfg, &r);
	row->iops = r.total.iops;
	row->lat_ms = r.total.lat.mean_ns / MS;
	row->sd_ms = r.total.lat.stddev_ns / MS;
	row->depth = mean_depth(&r);
	row->idle_armed = last_cfq.idle_timer_armed;
	row->slice_end_limited = last_cfq.slice_end_limited;
	row->waits = r.admission_waits;
	row->merges = 0;
	for (int k = 0; k < BLK_MERGE_NR; k++)
		row->merges += r.blk.merges[k];
	/* 640 I/Os, 128 requests: the limit is reached; unlimited, nobody waits. */
	if (nr_requests)
		assert_true(r.admission_waits > 0);
	else
		assert_int_equal(r.admission_waits, 0);
	/* fio keeps its 640 outstanding (it reaps one per submission): Little's law, as in the
	 * thread's rows (7054 x 90.1 ms = 636, 29255 x 21.8 ms = 639). */
	assert_true(row->iops * row->lat_ms / 1e3 > 0.95 * 640);
	assert_true(row->iops * row->lat_ms / 1e3 < 640);
	vsim_result_free(&r);
}

static void print_2015(const char *dev, const char *what, const struct row2015 *on,
		       const struct row2015 *off, const double pub[2][3])
{
	printf("seed 2015 %s, %s:\n", dev, what);
	printf("  idling   iops   avg-lat(ms) stddev | published iops avg-lat stddev"
	       " | device depth, idle arms, slice-end limits, admission waits, merges\n");
	printf("    On  %7.0f   %7.3f   %7.3f | %7.0f %7.3f %7.3f | %.1f %lu %lu %lu %lu\n",
	       on->iops, on->lat_ms, on->sd_ms, pub[0][0], pub[0][1], pub[0][2], on->depth,
	       (unsigned long)on->idle_armed, (unsigned long)on->slice_end_limited,
	       (unsigned long)on->waits, (unsigned long)on->merges);
	printf("   Off  %7.0f   %7.3f   %7.3f | %7.0f %7.3f %7.3f | %.1f %lu %lu %lu %lu\n",
	       off->iops, off->lat_ms, off->sd_ms, pub[1][0], pub[1][1], pub[1][2], off->depth,
	       (unsigned long)off->idle_armed, (unsigned long)off->slice_end_limited,
	       (unsigned long)off->waits, (unsigned long)off->merges);
	printf("  ratio Off/On %.2f (published %.2f)\n", off->iops / on->iops,
	       pub[1][0] / pub[0][0]);
}

static bool within(double v, double ref, double tol)
{
	return v > ref * (1 - tol) && v < ref * (1 + tol);
}

/* ---- the published numbers, read from jobs/<seed>/published.csv ---- */

/* Splits one CSV line (RFC 4180 quotes, no newline inside a field) in place. */
static int csv_split(char *line, char **f, int max)
{
	int n = 0;
	char *w = line, *r = line;

	while (n < max) {
		bool q = false;

		f[n++] = w;
		for (;; r++) {
			if (q && *r == '"' && r[1] == '"') {
				*w++ = '"';
				r++;
			} else if (*r == '"') {
				q = !q;
			} else if ((*r == ',' && !q) || *r == '\n' || *r == '\r' || !*r) {
				break;
			} else {
				*w++ = *r;
			}
		}
		if (*r != ',') {
			*w = 0;
			break;
		}
		*w++ = 0;
		r++;
	}
	return n;
}

/*
 * The values of column `col` in the rows of jobs/<seed>/published.csv whose columns match
 * `where` ("name=value" strings, NULL-terminated). Returns their number (up to max); fails the
 * test when the file or a column is missing.
 */
static int published(const char *seed, const char *const *where, const char *col, double *v,
		     int max)
{
	char path[512], hdr[4096], line[4096], *h[64], *f[64];
	const char *top = getenv("TOP");
	int nh, ci = -1, n = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/jobs/%s/published.csv", top ? top : ".", seed);
	fp = fopen(path, "r");
	if (!fp || !fgets(hdr, sizeof(hdr), fp)) {
		print_error("%s: cannot read (run from the top of the tree or set TOP)\n", path);
		fail();
	}
	nh = csv_split(hdr, h, 64);
	for (int i = 0; i < nh; i++)
		if (!strcmp(h[i], col))
			ci = i;
	if (ci < 0) {
		print_error("%s: no column %s\n", path, col);
		fail();
	}
	while (fgets(line, sizeof(line), fp)) {
		int nf = csv_split(line, f, 64);
		bool ok = nf == nh;

		for (const char *const *w = where; ok && *w; w++) {
			size_t k = strcspn(*w, "=");
			int i;

			for (i = 0; i < nh; i++)
				if (strlen(h[i]) == k && !strncmp(h[i], *w, k))
					break;
			if (i == nh) {
				print_error("%s: no column %.*s\n", path, (int)k, *w);
				fail();
			}
			ok = !strcmp(f[i], *w + k + 1);
		}
		if (ok && n < max)
			v[n++] = strtod(f[ci], NULL);
	}
	fclose(fp);
	return n;
}

/* The one value of a row: fails unless exactly one row matches. */
static double published1(const char *seed, const char *const *where, const char *col)
{
	double v[2];

	if (published(seed, where, col, v, 2) != 1) {
		print_error("jobs/%s/published.csv: not exactly one row for %s (%s...)\n", seed,
			    col, where[0]);
		fail();
	}
	return v[0];
}

/* 2015: iops, avg_lat_ms, stddev_ms of the On and Off rows of one table. */
static void published_2015(const char *table, double pub[2][3])
{
	static const char *const cols[3] = {"iops", "avg_lat_ms", "stddev_ms"};

	for (int i = 0; i < 2; i++) {
		char t[64], idl[32];
		const char *where[] = {t, idl, NULL};

		snprintf(t, sizeof(t), "table=%s", table);
		snprintf(idl, sizeof(idl), "idling=%s", i ? "Off" : "On");
		for (int c = 0; c < 3; c++)
			pub[i][c] = published1("cfq-iops-mode-on-ssd-2015", where, cols[c]);
	}
}

/*
 * The CFQ-only bound, every queue backlogged (nr_requests unlimited): on a hw_tag SSD idling
 * is never armed for these deep seeky queues, and what slice_idle=8 costs is
 * cfq_slice_used_soon(): past quantum/2 in flight a queue may not dispatch when
 * now + slice_idle x dispatched passes its slice end, so On keeps ~4 in the device where Off
 * keeps quantum = 8. On a device whose throughput grows linearly with depth that is Off/On ~2,
 * the most CFQ itself can cost here.
 */
static void check_2015_cfq_bound(const struct row2015 *on, const struct row2015 *off)
{
	assert_int_equal(on->idle_armed, 0);
	assert_int_equal(off->idle_armed, 0);
	assert_true(on->slice_end_limited > 1000);
	assert_true(on->depth > 3.5 && on->depth < 4.7);
	assert_true(off->depth > 7.5 && off->depth < 8.7);
}

/* Idling On and Off, with the 2015 request pool and unlimited; both printed. */
static void run_2015_all(enum devmodel_kind kind, const char *dev, const double pub[2][3],
			 struct row2015 *on, struct row2015 *off, struct row2015 *on_u,
			 struct row2015 *off_u)
{
	run_2015(kind, 8, 128, on);
	run_2015(kind, 0, 128, off);
	print_2015(dev, "nr_requests 128 (the 2015 block layer)", on, off, pub);
	run_2015(kind, 8, 0, on_u);
	run_2015(kind, 0, 0, off_u);
	print_2015(dev, "nr_requests unlimited (CFQ alone)", on_u, off_u, pub);
	/* Idling off never arms the idle timer. */
	assert_int_equal(off->idle_armed, 0);
	check_2015_cfq_bound(on_u, off_u);
}

/*
 * CFQ alone (every queue backlogged): Off/On is what the depths CFQ keeps give on the device.
 * The depths are the mechanism's (check_2015_cfq_bound: On 3.5..4.7, Off 7.5..8.7); by
 * Little's law with 640 requests outstanding, Off/On IOPS = Off/On depth x the device's
 * service-time ratio at those depths, 1 on a device whose time per request does not change
 * with depth (cloud-ssd up to 64 in flight). Returns the depth ratio.
 */
static double cfq_alone_depth_ratio(const struct row2015 *on, const struct row2015 *off)
{
	return off->depth / on->depth;
}

static void test_2015_cloud_ssd(void **state)
{
	double pub[2][3];
	struct row2015 on, off, on_u, off_u;
	double ratio, ratio_u, depth_ratio;

	(void)state;
	published_2015("cloud-ssd", pub);
	run_2015_all(DEVMODEL_CLOUD_SSD, "cloud-ssd", pub, &on, &off, &on_u, &off_u);
	ratio = off.iops / on.iops;
	ratio_u = off_u.iops / on_u.iops;
	depth_ratio = cfq_alone_depth_ratio(&on_u, &off_u);
	/*
	 * CALIBRATION, not reproduction: the cloud-ssd model was fitted so that ~8 in flight gives
	 * the On row (test_devmodel.c), and CFQ with the 2015 pool keeps ~8 in flight. +-15%.
	 */
	assert_true(within(on.iops, pub[0][0], 0.15));
	assert_true(within(on.lat_ms, pub[0][1], 0.15));
	/* Mechanism, not the seed: CFQ alone, on a device linear in depth, Off/On = the depth
	 * ratio (within 5%: the model's jitter); measured 1.96 for depths 8.0/4.0. */
	printf("seed 2015 cloud-ssd, CFQ alone: Off/On %.3f, depth ratio %.3f\n", ratio_u,
	       depth_ratio);
	assert_true(within(ratio_u, depth_ratio, 0.05));
	/*
	 * The seed: Off/On = 29255 / 7054 = 4.15 published; reproduced when the effect is within
	 * +-50% (effect_reproduced(): 2.58..5.73). KNOWN GAP: with nr_requests=128 one queue at a
	 * time holds the device at <= quantum in both settings, so we measure 1.01; documented
	 * range 0.95..1.10 (jobs/README.md, cfq-iops-mode-on-ssd-2015).
	 */
	if (effect_reproduced(ratio, pub[1][0] / pub[0][0])) {
		print_error("XPASS: cloud-ssd Off/On %.2f reproduces the published %.2f: the known "
			    "gap closed, make this a plain check\n",
			    ratio, pub[1][0] / pub[0][0]);
		fail();
	}
	known_gap("seed 2015 cloud-ssd Off/On IOPS with nr_requests=128 (published 4.15)", ratio,
		  0.95, 1.10,
		  "one queue at a time holds the device at <= quantum with idling on or off; "
		  "jobs/README.md");
}

static void test_2015_local_ssd(void **state)
{
	double pub[2][3];
	struct row2015 on, off, on_u, off_u;
	double ratio, ratio_u;

	(void)state;
	published_2015("local-ssd", pub);
	run_2015_all(DEVMODEL_SSD, "ssd", pub, &on, &off, &on_u, &off_u);
	ratio = off.iops / on.iops;
	ratio_u = off_u.iops / on_u.iops;
	/*
	 * CALIBRATION, not reproduction: the ssd model was fitted to the Off row at saturation and
	 * the On row at <= 8 in flight (test_devmodel.c); both rows within 10% (IOPS, and latency,
	 * which follows from Little's law with 640 outstanding).
	 */
	assert_true(within(on.iops, pub[0][0], 0.10) && within(on.lat_ms, pub[0][1], 0.10));
	assert_true(within(off.iops, pub[1][0], 0.10) && within(off.lat_ms, pub[1][1], 0.10));
	/*
	 * CFQ alone on this SSD (4 units: throughput saturates, so not the depth ratio): a
	 * REGRESSION GUARD with the measured value, 1.31 +- 0.05 (deterministic in virtual time);
	 * the direction (Off > On) is the mechanism's.
	 */
	assert_true(ratio_u > 1.26 && ratio_u < 1.36);
	/*
	 * The seed: Off/On = 21626 / 19320 = 1.12 published; reproduced within +-50% of the
	 * effect: 1.06..1.18. KNOWN GAP: with nr_requests=128 we measure 0.999 (both settings
	 * hold ~8 in flight); documented range 0.97..1.03.
	 */
	if (effect_reproduced(ratio, pub[1][0] / pub[0][0])) {
		print_error("XPASS: ssd Off/On %.3f reproduces the published %.3f: the known gap "
			    "closed, make this a plain check\n",
			    ratio, pub[1][0] / pub[0][0]);
		fail();
	}
	known_gap("seed 2015 ssd Off/On IOPS with nr_requests=128 (published 1.12)", ratio, 0.97,
		  1.03,
		  "both settings keep ~8 in flight with the 2015 request pool; CFQ alone gives "
		  "1.31; jobs/README.md");
}

/* ---- 2010: CFQ group_idle (cfq-group-idle-2010) ----
 * The job file as written (buffered 4 KiB readers through the page cache): test_seed_buffered.c.
 */

/* ---- 2014: target_latency 300 vs 600 ms (cfq-target-latency-600ms-2014) ---- */

/* The thread measured 3.16.0-rc1: cfq_version=3.16, proven against 3.16's cfq-iosched.c by the
 * oracle (cfq_3_16: 0 of 2000 streams divergent); 419 runs the default profile. */
static double run_2014(uint32_t threads, long target_latency, long version)
{
	struct vsim_config cfg;
	struct vsim_result r;
	struct vsim_job job;
	double mbps;

	vsim_config_defaults(&cfg, SCHED_POLICY_CFQ, DEVMODEL_HDD);
	set_tunable(&cfg, "cfq_version", version);
	set_tunable(&cfg, "target_latency", target_latency);
	vsim_job_defaults(&job);
	/* tiotest's 4 KiB read()s of its own file reach the disk as 128 KiB read-ahead. */
	job.rw = VSIM_READ;
	job.direct = false;
	job.bs = 128 * 1024;
	job.iodepth = 1;
	job.numjobs = threads;
	job.size = 4ull << 30;
	job.offset_increment = 4ull << 30;
	cfg.jobs = &job;
	cfg.nr_jobs = 1;
	cfg.runtime_ns = 8 * SEC;
	run_ok(&cfg, &r);
	mbps = r.total.bw_bps / 1e6;
	vsim_result_free(&r);
	return mbps;
}

static void test_2014_target_latency(void **state)
{
	static const struct {
		uint32_t n;
		double pub300, pub600;
	} t[] = {{1, 121.88, 121.60},
		 {2, 101.99, 102.35},
		 {4, 97.42, 99.71},
		 {8, 83.39, 90.39},
		 {16, 68.90, 77.29}};

	(void)state;
	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		double a = run_2014(t[i].n, 300, 316), b = run_2014(t[i].n, 600, 316);
		double a419 = run_2014(t[i].n, 300, 419), b419 = run_2014(t[i].n, 600, 419);

		printf(
		    "seed 2014 SeqRead-MB/sec-%-2u: cfq_version=3.16 target_latency 300 %6.2f, 600 "
		    "%6.2f (%+.2f%%) | 4.19 %6.2f, %6.2f (%+.2f%%) | published %6.2f, %6.2f "
		    "(%+.2f%%)\n",
		    t[i].n, a, b, (b / a - 1) * 100, a419, b419, (b419 / a419 - 1) * 100,
		    t[i].pub300, t[i].pub600, (t[i].pub600 / t[i].pub300 - 1) * 100);
		/* The thread's direction: with 4 readers or more, 600 ms reads more. */
		if (t[i].n >= 4)
			assert_true(b > a);
		/*
		 * The size, on the thread's kernel's CFQ (3.16, jiffies at cfq_hz=250, the
		 * default): the published gain within +-50% of it (effect_reproduced(); below 1%
		 * published, below 1% ours) at every NR. Measured 2026-12-07: NR 4 +2.03%
		 * (published +2.35%), NR 8 +11.12% (+8.39%), NR 16 +15.68% (+12.18%).
		 */
		assert_true(effect_reproduced(b / a, t[i].pub600 / t[i].pub300));
		/*
		 * The era changes the answer: 4.19's CFQ (ns clock) gives NR 8 +1.13% and NR 16
		 * +18.72%, where the two known gaps were before the seed ran on 3.16 (1.005..1.020,
		 * 1.18..1.20). The switch that makes the difference is cfq_sw_ns_clock: 3.16 with
		 * it on reads as 4.19 does (NR 8 +1.13%). The size on 3.16 depends on the kernel's
		 * HZ, which the thread does not give: NR 8 +15.26% / +5.19%, NR 16 +16.56% /
		 * +19.96% at cfq_hz=100 / 1000 (jobs/README.md).
		 */
		if (t[i].n == 8)
			assert_true(b419 / a419 > 1.005 && b419 / a419 < 1.02);
		else if (t[i].n == 16)
			assert_true(b419 / a419 > 1.18 && b419 / a419 < 1.20);
	}
}

/* ---- 2009: fsync under a heavy buffered writer (ssd-and-io-schedulers-2009) ---- */

/*
 * Heinz's run: xfs mounted nobarrier on /dev/sda4 (the seed gives the mount line), so fsync()
 * sends no cache flush to the disk: its time is the writeback of fsync-tester's 1 MiB, which
 * fsync() issues with REQ_SYNC (WB_SYNC_ALL), waiting behind the dd loop's async writeback.
 * So fsync-tester here is a 1 MiB sync write (direct: REQ_SYNC|REQ_IDLE), one per second,
 * whose latency is the fsync time; no SCHED_OP_FLUSH. The disk is the hdd model (the thread
 * does not name liesel's disk; the dd loop's 2 GiB at ~100 MB/s suits a desktop disk).
 */
static void run_2009(enum sched_policy_id pol, struct vsim_lat *fsync, double *writer_mbps)
{
	struct vsim_config cfg;
	struct vsim_result r;
	struct vsim_job jobs[2];

	vsim_config_defaults(&cfg, pol, DEVMODEL_HDD);
	/* 2009's deadline is deadline-iosched.c, whose sweep 4.19's profile keeps. */
	if (pol == SCHED_POLICY_DEADLINE) {
		char err[256];

		if (sched_config_set_tunable(&cfg.sched, "deadline_version", "4.19", err,
					     sizeof(err)))
			fail_msg("%s", err);
	}
	/* dd if=/dev/zero of=bigfile bs=8M count=256: writeback, async, a deep queue. */
	vsim_job_defaults(&jobs[0]);
	jobs[0].name = "linus-dd-loop";
	jobs[0].rw = VSIM_WRITE;
	jobs[0].direct = false;
	jobs[0].bs = 512 * 1024;
	jobs[0].iodepth = 64;
	jobs[0].size = 2ull << 30;
	vsim_job_defaults(&jobs[1]);
	jobs[1].name = "fsync-tester";
	jobs[1].rw = VSIM_WRITE;
	jobs[1].direct = true;
	jobs[1].bs = 1024 * 1024;
	jobs[1].iodepth = 1;
	jobs[1].thinktime_us = 1000000;
	jobs[1].offset = 500ull << 30;
	jobs[1].size = 1024 * 1024;
	cfg.jobs = jobs;
	cfg.nr_jobs = 2;
	cfg.runtime_ns = 40 * SEC;
	run_ok(&cfg, &r);
	*fsync = r.job[1].dir[VSIM_DIR_WRITE];
	*writer_mbps = r.job[0].bw_bps / 1e6;
	vsim_result_free(&r);
}

static void test_2009_fsync_under_writer(void **state)
{
	struct vsim_lat cfq, dl;
	double wc, wd, pub[2][64], lo[2], hi[2], mean[2];
	int np[2];

	(void)state;
	/* The published samples (fsync-tester's fsync times, liesel, dd loop), from the CSV. */
	for (int i = 0; i < 2; i++) {
		const char *where[] = {"table=liesel-fsync-vs-dd-loop",
				       i ? "scheduler=deadline" : "scheduler=cfq", NULL};

		np[i] = published("ssd-and-io-schedulers-2009", where, "fsync_s", pub[i], 64);
		assert_true(np[i] > 0);
		lo[i] = hi[i] = pub[i][0];
		mean[i] = 0;
		for (int k = 0; k < np[i]; k++) {
			lo[i] = pub[i][k] < lo[i] ? pub[i][k] : lo[i];
			hi[i] = pub[i][k] > hi[i] ? pub[i][k] : hi[i];
			mean[i] += pub[i][k] / np[i];
		}
	}
	run_2009(SCHED_POLICY_CFQ, &cfq, &wc);
	run_2009(SCHED_POLICY_DEADLINE, &dl, &wd);
	printf(
	    "seed 2009 fsync under dd: cfq      n=%2lu mean %6.3f p50 %6.3f p99 %6.3f max %6.3f s"
	    " (dd %.1f MB/s) | published %.3f..%.3f s, mean %.3f (%d samples)\n",
	    (unsigned long)cfq.n, cfq.mean_ns / SEC, (double)cfq.p50_ns / SEC,
	    (double)cfq.p99_ns / SEC, (double)cfq.max_ns / SEC, wc, lo[0], hi[0], mean[0], np[0]);
	printf(
	    "seed 2009 fsync under dd: deadline n=%2lu mean %6.3f p50 %6.3f p99 %6.3f max %6.3f s"
	    " (dd %.1f MB/s) | published %.3f..%.3f s, mean %.3f (%d samples)\n",
	    (unsigned long)dl.n, dl.mean_ns / SEC, (double)dl.p50_ns / SEC, (double)dl.p99_ns / SEC,
	    (double)dl.max_ns / SEC, wd, lo[1], hi[1], mean[1], np[1]);
	assert_true(cfq.n >= 20 && dl.n >= 3);
	/* The seed: deadline's fsyncs wait seconds (write_expire 5 s), CFQ's do not. */
	assert_true((double)dl.p99_ns >= 2.0 * (double)cfq.p99_ns);
	assert_true(dl.mean_ns >= 2.0 * cfq.mean_ns);
	assert_true(dl.mean_ns > 1.0 * SEC);
	/* ... at little cost to the writer. */
	assert_true(wc > 0.8 * wd);
}

/* ---- mechanisms (kernel-schedulers.md) ---- */

/* slice_idle=0 and group_idle=0: the idle timer is never armed, on any device. */
static void test_no_idle_timer_without_idling(void **state)
{
	static const enum devmodel_kind kinds[] = {DEVMODEL_HDD, DEVMODEL_SSD, DEVMODEL_CLOUD_SSD};

	(void)state;
	for (unsigned int k = 0; k < 3; k++) {
		struct vsim_config cfg;
		struct vsim_result r;
		struct vsim_job jobs[2];

		vsim_config_defaults(&cfg, SCHED_POLICY_CFQ, kinds[k]);
		set_tunable(&cfg, "slice_idle", 0);
		set_tunable(&cfg, "group_idle", 0);
		cfg.sched.group_weight[1] = 200;
		vsim_job_defaults(&jobs[0]);
		jobs[0].rw = VSIM_READ;
		jobs[0].numjobs = 3;
		jobs[0].offset_increment = 1ull << 30;
		vsim_job_defaults(&jobs[1]);
		jobs[1].rw = VSIM_RANDRW;
		jobs[1].iodepth = 4;
		jobs[1].numjobs = 2;
		jobs[1].group = 1;
		jobs[1].thinktime_us = 300;
		cfg.jobs = jobs;
		cfg.nr_jobs = 2;
		cfg.runtime_ns = 2 * SEC;
		run_ok(&cfg, &r);
		printf("no idling on %s: %.0f IOPS, idle timer armed %lu, slices %lu\n",
		       devmodel_kind_name(kinds[k]), r.total.iops,
		       (unsigned long)last_cfq.idle_timer_armed,
		       (unsigned long)last_cfq.slices_started);
		assert_int_equal(last_cfq.idle_timer_armed, 0);
		assert_int_equal(last_cfq.group_idle_armed, 0);
		assert_int_equal(last_cfq.idle_timer_fired, 0);
		assert_true(last_cfq.slices_started > 10);
		vsim_result_free(&r);
	}
	/* The same job with the defaults on the hdd does idle: the check above can fail. */
	{
		struct vsim_config cfg;
		struct vsim_result r;
		struct vsim_job job;

		vsim_config_defaults(&cfg, SCHED_POLICY_CFQ, DEVMODEL_HDD);
		vsim_job_defaults(&job);
		job.rw = VSIM_READ;
		job.numjobs = 3;
		job.offset_increment = 1ull << 30;
		cfg.jobs = &job;
		cfg.nr_jobs = 1;
		run_ok(&cfg, &r);
		assert_true(last_cfq.idle_timer_armed > 0);
		vsim_result_free(&r);
	}
}

/*
 * Under contention no request waits in CFQ beyond fifo_expire_sync + one round: its queue's
 * FIFO is checked when the queue's next slice starts, and with low_latency every busy queue's
 * slice is scaled to fit target_latency, so the queue's turn comes back within one round and
 * an expired head goes first. Bound: fifo_expire_sync + target_latency + one sync slice.
 * Without low_latency the slices are not scaled (5 queues x 100 ms): the bound is lost.
 */
static uint64_t run_fifo(long low_latency, uint64_t *fifo_dispatches, double *mean_wait)
{
	struct vsim_config cfg;
	struct vsim_result r;
	struct vsim_job jobs[2];
	uint64_t max_wait = 0, wait = 0, n = 0;

	vsim_config_defaults(&cfg, SCHED_POLICY_CFQ, DEVMODEL_HDD);
	set_tunable(&cfg, "low_latency", low_latency);
	/* Four random readers at depth 8 and a sequential one: the disk is the bottleneck. */
	vsim_job_defaults(&jobs[0]);
	jobs[0].rw = VSIM_RANDREAD;
	jobs[0].iodepth = 8;
	jobs[0].numjobs = 4;
	vsim_job_defaults(&jobs[1]);
	jobs[1].rw = VSIM_READ;
	jobs[1].bs = 64 * 1024;
	jobs[1].iodepth = 4;
	jobs[1].offset = 200ull << 30;
	cfg.jobs = jobs;
	cfg.nr_jobs = 2;
	cfg.runtime_ns = 10 * SEC;
	run_ok(&cfg, &r);
	for (uint32_t i = 0; i < r.nr_entities; i++) {
		if (r.sched.entity[i].max_wait_ns > max_wait)
			max_wait = r.sched.entity[i].max_wait_ns;
		wait += r.sched.entity[i].wait_ns;
		n += r.sched.entity[i].dispatched;
	}
	*mean_wait = n ? (double)wait / (double)n : 0;
	*fifo_dispatches = last_cfq.fifo_dispatches;
	vsim_result_free(&r);
	return max_wait;
}

static void test_fifo_expire_bounds_wait(void **state)
{
	uint64_t w, w0, f, f0, bound = (125 + 300 + 100) * MS;
	double m, m0;

	(void)state;
	w = run_fifo(1, &f, &m);
	w0 = run_fifo(0, &f0, &m0);
	printf("fifo_expire_sync 125 ms: longest wait in CFQ %.1f ms (bound 125 + target_latency "
	       "300 + slice_sync 100 = %.0f ms), mean %.1f ms, %lu FIFO dispatches\n",
	       (double)w / MS, (double)bound / MS, m / MS, (unsigned long)f);
	printf("same, low_latency=0: longest wait %.1f ms, mean %.1f ms, %lu FIFO dispatches\n",
	       (double)w0 / MS, m0 / MS, (unsigned long)f0);
	assert_true(f > 0);
	assert_true(w > 125 * MS); /* contention: requests do reach the FIFO deadline */
	assert_true(w <= bound);
	/* Unscaled slices: the bound is the FIFO deadline and one round of 5 x slice_sync. (The
	 * longest waits come out alike, 391 and 389 ms: the FIFO caps both; the mean is lower
	 * unscaled, 37.5 against 45.1 ms, as longer slices serve more per seek.) */
	assert_true(w0 > 125 * MS && w0 <= (125 + 5 * 100) * MS);
}

/* Weights give proportional service: groups of weight 100, 200, 400 on a busy disk. */
static void test_weights_proportional(void **state)
{
	static const uint16_t w[3] = {100, 200, 400};
	struct vsim_config cfg;
	struct vsim_result r;
	struct vsim_job jobs[3];

	(void)state;
	for (int mode = 0; mode < 2; mode++) {
		/* mode 0: time slices on the hdd; mode 1: IOPS mode on the ssd (slice_idle=0). */
		vsim_config_defaults(&cfg, SCHED_POLICY_CFQ, mode ? DEVMODEL_SSD : DEVMODEL_HDD);
		if (mode)
			set_tunable(&cfg, "slice_idle", 0);
		for (int g = 0; g < 3; g++) {
			cfg.sched.group_weight[g + 1] = w[g];
			vsim_job_defaults(&jobs[g]);
			jobs[g].rw = mode ? VSIM_RANDREAD : VSIM_READ;
			jobs[g].bs = mode ? 4096 : 64 * 1024;
			jobs[g].iodepth = mode ? 16 : 1;
			jobs[g].offset = (uint64_t)g * (50ull << 30);
			jobs[g].size = 10ull << 30;
			jobs[g].group = (uint32_t)g + 1;
		}
		cfg.jobs = jobs;
		cfg.nr_jobs = 3;
		cfg.runtime_ns = 6 * SEC;
		run_ok(&cfg, &r);
		printf("weights 100:200:400 (%s mode): shares %.3f %.3f %.3f (ideal 0.143 0.286 "
		       "0.571); IOPS %.0f %.0f %.0f\n",
		       mode ? "IOPS" : "time", last_share[1], last_share[2], last_share[3],
		       r.job[0].iops, r.job[1].iops, r.job[2].iops);
		for (int g = 0; g < 3; g++) {
			double ideal = w[g] / 700.0;

			assert_true(last_share[g + 1] > 0.85 * ideal &&
				    last_share[g + 1] < 1.15 * ideal);
		}
		/* The service itself follows: the 400 group gets the most I/O. */
		assert_true(r.job[2].iops > 1.5 * r.job[1].iops);
		assert_true(r.job[1].iops > 1.5 * r.job[0].iops);
		vsim_result_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_2015_cloud_ssd),
	    cmocka_unit_test(test_2015_local_ssd),
	    cmocka_unit_test(test_2014_target_latency),
	    cmocka_unit_test(test_2009_fsync_under_writer),
	    cmocka_unit_test(test_no_idle_timer_without_idling),
	    cmocka_unit_test(test_fifo_expire_bounds_wait),
	    cmocka_unit_test(test_weights_proportional),
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	return cmocka_run_group_tests_name("seeds", tests, NULL, NULL);
}
