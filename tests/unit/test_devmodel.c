// SPDX-License-Identifier: GPL-2.0
/*
 * Device models in virtual time: parameters, the completion protocol, and the calibration of
 * each kind against the seed experiments (see engine/devmodel.h).
 */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "devmodel.h"
#include "support.h"

#define US  1000ull
#define MS  1000000ull
#define SEC 1000000000ull

static struct devmodel *dm_new(const struct devmodel_params *p)
{
	size_t size = devmodel_size(p);
	void *mem;
	struct devmodel *m;

	assert_true(size > 0);
	mem = aligned_alloc(8, (size + 7) & ~(size_t)7);
	assert_non_null(mem);
	memset(mem, 0x5a, size); /* garbage: create must not rely on zeroed memory */
	m = devmodel_create_in(mem, size, p, 0);
	assert_ptr_equal(m, mem);
	return m;
}

struct loop_result {
	double iops, mbps, mean_lat_ms;
	uint64_t end_ns;
	uint64_t hash; /* of the completion sequence */
};

/*
 * A closed loop: `depth` requests outstanding, each completion immediately replaced. seq: the
 * next block after the last one issued; otherwise uniform in [0, span). Runs n completions.
 */
static struct loop_result closed_loop(const struct devmodel_params *p, uint32_t depth, bool seq,
				      uint64_t bs, uint64_t span, enum devmodel_op op, long n,
				      uint64_t seed)
{
	struct devmodel *m = dm_new(p);
	uint64_t *sub = calloc(depth, sizeof(*sub));
	uint64_t ids[64], now = 0, pos = 0;
	struct loop_result r = {0, 0, 0, 0, 1469598103934665603ull};
	struct test_rng rng;
	double lat = 0;
	long done = 0;

	assert_non_null(sub);
	test_rng_seed(&rng, seed);
	for (uint32_t i = 0; i < depth; i++) {
		uint64_t off = seq ? pos : test_rng_below(&rng, span / bs) * bs;

		pos += bs;
		sub[i] = now;
		assert_int_equal(devmodel_submit(m, i, off, bs, op, now), 0);
	}
	while (done < n) {
		uint64_t t = devmodel_next_completion(m);
		int k;

		assert_true(t != DEVMODEL_NO_COMPLETION);
		assert_true(t >= now);
		now = t;
		k = devmodel_reap(m, now, ids, 64);
		for (int j = 0; j < k; j++) {
			uint64_t i = ids[j], off = seq ? pos : test_rng_below(&rng, span / bs) * bs;

			assert_true(i < depth);
			lat += (double)(now - sub[i]);
			r.hash = (r.hash ^ (i + now)) * 1099511628211ull;
			done++;
			pos += bs;
			sub[i] = now;
			assert_int_equal(devmodel_submit(m, i, off, bs, op, now), 0);
		}
		if (k < 64)
			assert_true(devmodel_next_completion(m) > now);
	}
	r.end_ns = now;
	r.iops = done / ((double)now / SEC);
	r.mbps = r.iops * (double)bs / 1e6;
	r.mean_lat_ms = lat / done / MS;
	free(sub);
	free(m);
	return r;
}

static void test_names_and_params(void **state)
{
	struct devmodel_params p = devmodel_params_defaults(DEVMODEL_HDD);
	char err[256];

	(void)state;
	assert_int_equal(devmodel_kind_by_name("hdd"), DEVMODEL_HDD);
	assert_int_equal(devmodel_kind_by_name("ssd"), DEVMODEL_SSD);
	assert_int_equal(devmodel_kind_by_name("cloud-ssd"), DEVMODEL_CLOUD_SSD);
	assert_int_equal(devmodel_kind_by_name("null"), DEVMODEL_NULL);
	assert_int_equal(devmodel_kind_by_name("tape"), -1);
	assert_string_equal(devmodel_kind_name(DEVMODEL_CLOUD_SSD), "cloud-ssd");
	assert_int_equal(p.kind, DEVMODEL_HDD);
	assert_int_equal(p.queue_depth, 32);
	assert_true(p.hdd.rpm == 7200);
	assert_int_equal(devmodel_params_check(&p, err, sizeof(err)), 0);

	assert_int_equal(devmodel_set_param(&p, "hdd_seek_full_ms", "18.5", err, sizeof(err)), 0);
	assert_true(p.hdd.seek_full_ms == 18.5);
	assert_int_equal(devmodel_set_param(&p, "dev_queue_depth", "1", err, sizeof(err)), 0);
	assert_int_equal(p.queue_depth, 1);
	assert_int_equal(devmodel_set_param(&p, "dev_capacity_gib", "2", err, sizeof(err)), 0);
	assert_int_equal(p.capacity_bytes, 2ull << 30);
	assert_int_equal(devmodel_set_param(&p, "cloud_units", "128", err, sizeof(err)), 0);
	assert_int_equal(p.cloud.units, 128);
	assert_int_equal(devmodel_set_param(&p, "hdd_write_cache", "2", err, sizeof(err)), -1);
	test_assert_one_line(err);
	assert_int_equal(devmodel_set_param(&p, "dev_queue_depth", "0", err, sizeof(err)), -1);
	assert_int_equal(devmodel_set_param(&p, "dev_queue_depth", "-3", err, sizeof(err)), -1);
	assert_int_equal(devmodel_set_param(&p, "hdd_rpm", "fast", err, sizeof(err)), -1);
	test_assert_one_line(err);
	assert_int_equal(devmodel_set_param(&p, "hdd_rpm", "7200x", err, sizeof(err)), -1);
	assert_int_equal(devmodel_set_param(&p, "hdd_warp", "1", err, sizeof(err)), -1);
	test_assert_one_line(err);
	/* Failed sets left the values alone. */
	assert_int_equal(p.queue_depth, 1);
	assert_true(p.hdd.rpm == 7200);
	p.hdd.seek_track_ms = 20;
	assert_int_equal(devmodel_params_check(&p, err, sizeof(err)), -1);
	test_assert_one_line(err);
	assert_int_equal(devmodel_size(&p), 0);
}

struct name_list {
	const char *name[64];
	int n;
};

static void collect_name(const char *name, const char *help, void *arg)
{
	struct name_list *l = arg;

	assert_non_null(help);
	assert_true(strlen(help) > 5);
	assert_true(l->n < 64);
	l->name[l->n++] = name;
}

/*
 * Every listed parameter can be set, and setting it changes one field (a byte range of at most
 * 8 bytes) of struct devmodel_params, not overlapping any other name's; a rejected value
 * ("-1" is below every minimum, "abc" is no number) leaves the struct alone.
 */
static void test_param_names_all_settable(void **state)
{
	static const char *const candidates[] = {"1", "0", "2", "3", "1000", "1001"};
	struct name_list l = {.n = 0};
	size_t first[64], last[64];
	char err[256];

	(void)state;
	devmodel_param_names(collect_name, &l);
	/* dev_*: 3, hdd_*: 14, ssd_* and cloud_*: 11 each (models/devmodel.h). */
	assert_int_equal(l.n, 3 + 14 + 2 * 11);
	for (int i = 0; i < l.n; i++) {
		struct devmodel_params p0 = devmodel_params_defaults(DEVMODEL_HDD), p;
		const unsigned char *a = (const unsigned char *)&p0, *b = (const unsigned char *)&p;
		bool changed = false;

		for (int j = 0; j < i; j++)
			assert_string_not_equal(l.name[i], l.name[j]);
		memcpy(&p, &p0, sizeof(p));
		assert_int_equal(devmodel_set_param(&p, l.name[i], "-1", err, sizeof(err)), -1);
		assert_int_equal(devmodel_set_param(&p, l.name[i], "abc", err, sizeof(err)), -1);
		assert_memory_equal(&p, &p0, sizeof(p));
		for (size_t c = 0; c < sizeof(candidates) / sizeof(candidates[0]) && !changed;
		     c++) {
			memcpy(&p, &p0, sizeof(p));
			if (devmodel_set_param(&p, l.name[i], candidates[c], err, sizeof(err)))
				continue;
			changed = memcmp(&p, &p0, sizeof(p)) != 0;
		}
		if (!changed) {
			print_error(
			    "%s: no value of 1, 0, 2, 3, 1000, 1001 was accepted and changed the "
			    "parameters\n",
			    l.name[i]);
			fail();
		}
		first[i] = SIZE_MAX;
		last[i] = 0;
		for (size_t k = 0; k < sizeof(p); k++)
			if (a[k] != b[k]) {
				if (first[i] == SIZE_MAX)
					first[i] = k;
				last[i] = k;
			}
		assert_true(last[i] - first[i] < 8);
		for (int j = 0; j < i; j++)
			if (first[i] <= last[j] && first[j] <= last[i]) {
				print_error("%s and %s set the same field\n", l.name[i], l.name[j]);
				fail();
			}
	}
}

static void test_create_refuses(void **state)
{
	struct devmodel_params p = devmodel_params_defaults(DEVMODEL_SSD);
	size_t size = devmodel_size(&p);
	uint64_t *mem = calloc(1, size + 16);

	(void)state;
	assert_non_null(mem);
	assert_null(devmodel_create_in(mem, size - 1, &p, 0));
	assert_null(devmodel_create_in((char *)mem + 4, size, &p, 0));
	assert_null(devmodel_create_in(NULL, size, &p, 0));
	assert_non_null(devmodel_create_in(mem, size, &p, 0));
	/* Depth is what sizes the state. */
	p.queue_depth = 1000;
	assert_true(devmodel_size(&p) > size);
	free(mem);
}

static void test_null_instant(void **state)
{
	struct devmodel_params p = devmodel_params_defaults(DEVMODEL_NULL);
	struct devmodel *m;
	uint64_t ids[8];

	(void)state;
	p.queue_depth = 4;
	m = dm_new(&p);
	assert_int_equal(devmodel_next_completion(m), DEVMODEL_NO_COMPLETION);
	for (uint64_t i = 0; i < 4; i++)
		assert_int_equal(devmodel_submit(m, 100 + i, i * 4096, 4096, DEVMODEL_READ, 7 * MS),
				 0);
	/* Full. */
	assert_int_equal(devmodel_submit(m, 999, 0, 4096, DEVMODEL_READ, 7 * MS), -1);
	assert_int_equal(devmodel_in_flight(m), 4);
	assert_int_equal(devmodel_next_completion(m), 7 * MS);
	assert_int_equal(devmodel_reap(m, 7 * MS, ids, 2), 2);
	assert_int_equal(ids[0], 100);
	assert_int_equal(ids[1], 101);
	assert_int_equal(devmodel_reap(m, 7 * MS, ids, 8), 2);
	assert_int_equal(ids[0], 102);
	assert_int_equal(ids[1], 103);
	assert_int_equal(devmodel_next_completion(m), DEVMODEL_NO_COMPLETION);
	/* Bad arguments. */
	assert_int_equal(devmodel_submit(m, 1, 0, 0, DEVMODEL_READ, 8 * MS), -1);
	assert_int_equal(devmodel_submit(m, 1, 0, 4096, (enum devmodel_op)9, 8 * MS), -1);
	assert_int_equal(devmodel_submit(m, 1, 0, 0, DEVMODEL_FLUSH, 8 * MS), 0);
	assert_int_equal(devmodel_reap(m, 8 * MS, ids, 8), 1);
	assert_int_equal(devmodel_stats(m)->completed, 5);
	assert_int_equal(devmodel_stats(m)->ops[DEVMODEL_FLUSH], 1);
	free(m);
}

/*
 * The statistics the cross-checks compare between the engine's model and modeldev's: time in the
 * model by direction, the writes a read finds there, the write stream's continuity, and the mean
 * occupancy (the integral of the requests in the model over the span, computed here from the
 * completion times independently).
 */
static void test_occupancy_stats(void **state)
{
	struct devmodel_params p = devmodel_params_defaults(DEVMODEL_HDD);
	const struct devmodel_stats *st;
	struct devmodel *m;
	uint64_t ids[8], t, integral = 0, wintegral = 0;
	int done = 0;

	(void)state;
	p.queue_depth = 8;
	p.hdd.write_cache = 0;
	m = dm_new(&p);
	assert_int_equal(devmodel_submit(m, 1, 1 << 20, 65536, DEVMODEL_WRITE, 0), 0);
	assert_int_equal(devmodel_submit(m, 2, (1 << 20) + 65536, 65536, DEVMODEL_WRITE, 0), 0);
	assert_int_equal(devmodel_submit(m, 3, 1ull << 30, 65536, DEVMODEL_WRITE, 0), 0);
	assert_int_equal(devmodel_submit(m, 4, 2ull << 30, 4096, DEVMODEL_READ, 0), 0);
	assert_int_equal(devmodel_submit(m, 5, 512 << 10, 4096, DEVMODEL_WRITE, 0), 0);
	assert_int_equal(devmodel_submit(m, 6, 3ull << 30, 4096, DEVMODEL_READ, 0), 0);
	st = devmodel_stats(m);
	/* The first read found three writes in the model, the second four. */
	assert_int_equal(st->read_writes_ahead, 7);
	assert_int_equal(st->writes_in_flight, 4);
	/* 1 MiB (not where "nothing" ended), +64 KiB (continues), 1 GiB, 512 KiB (backwards). */
	assert_int_equal(st->writes_discontig, 3);
	assert_int_equal(st->writes_backward, 1);
	assert_true(devmodel_occupancy(st, false) == 0.0); /* nothing completed yet */
	assert_int_equal(st->done[0] + st->done[1], 0);
	while (done < 6) {
		int k;

		t = devmodel_next_completion(m);
		assert_true(t != DEVMODEL_NO_COMPLETION);
		k = devmodel_reap(m, t, ids, 8);
		for (int j = 0; j < k; j++) {
			integral += t; /* every request was submitted at 0 */
			if (ids[j] != 4 && ids[j] != 6)
				wintegral += t;
		}
		done += k;
	}
	assert_int_equal(st->writes_in_flight, 0);
	assert_int_equal(st->svc_ns[0] + st->svc_ns[1], integral);
	assert_int_equal(st->svc_ns[1], wintegral);
	assert_int_equal(st->last_done_ns, t);
	assert_true(fabs(devmodel_occupancy(st, false) - (double)integral / (double)t) < 1e-9);
	assert_true(fabs(devmodel_occupancy(st, true) - (double)wintegral / (double)t) < 1e-9);
	assert_true(devmodel_occupancy(st, true) < devmodel_occupancy(st, false));
	assert_int_equal(st->done[0], 2); /* the means divide by completions, not submissions */
	assert_int_equal(st->done[1], 4);
	assert_true(dm_mean_us(st->svc_ns[0], st->done[0]) > 0.0);
	assert_true(dm_mean_us(0, 0) == 0.0);
	free(m);
}

static void test_hdd_sequential_read_rate(void **state)
{
	struct devmodel_params p = devmodel_params_defaults(DEVMODEL_HDD);
	struct loop_result r;

	(void)state;
	r = closed_loop(&p, 1, true, 1 << 20, p.capacity_bytes, DEVMODEL_READ, 300, 1);
	print_message("hdd seq read 1 MiB QD1: %.1f MB/s\n", r.mbps);
	assert_true(r.mbps > 110 && r.mbps < 130);
	r = closed_loop(&p, 1, true, 128 << 10, p.capacity_bytes, DEVMODEL_READ, 2000, 1);
	print_message("hdd seq read 128 KiB QD1: %.1f MB/s\n", r.mbps);
	assert_true(r.mbps > 110 && r.mbps < 130);
	/* 4 KiB at QD1: per-command overhead bound (2017 seed: ~17k IOPS with host time). */
	r = closed_loop(&p, 1, true, 4096, p.capacity_bytes, DEVMODEL_READ, 20000, 1);
	print_message("hdd seq read 4 KiB QD1: %.0f IOPS\n", r.iops);
	assert_true(r.iops > 15000 && r.iops < 25000);
	/* Without the read cache every request misses a revolution. */
	p.hdd.readahead_kib = 0;
	r = closed_loop(&p, 1, true, 4096, p.capacity_bytes, DEVMODEL_READ, 300, 1);
	assert_true(r.iops < 200);
}

/*
 * Two sequential 4 KiB readers 5 GiB apart, one request each in the drive (the 2017 seed's N=2
 * with deadline or none): IOPS over n completions, and the model's counters.
 */
static double two_streams(const struct devmodel_params *p, long n, struct devmodel_stats *st)
{
	struct devmodel *m = dm_new(p);
	uint64_t ids[4], now = 0, pos[2] = {0, 5ull << 30};
	long done = 0;

	for (uint32_t i = 0; i < 2; i++) {
		assert_int_equal(devmodel_submit(m, i, pos[i], 4096, DEVMODEL_READ, now), 0);
		pos[i] += 4096;
	}
	while (done < n) {
		uint64_t t = devmodel_next_completion(m);
		int k;

		assert_true(t != DEVMODEL_NO_COMPLETION && t >= now);
		now = t;
		k = devmodel_reap(m, now, ids, 4);
		for (int j = 0; j < k; j++, done++) {
			assert_int_equal(devmodel_submit(m, ids[j], pos[ids[j]], 4096,
							 DEVMODEL_READ, now + 2 * US),
					 0);
			pos[ids[j]] += 4096;
		}
	}
	*st = *devmodel_stats(m);
	free(m);
	return done / ((double)now / SEC);
}

/*
 * hdd_min_readahead_kib, both ways. 0: a queued command stops the read-ahead at once, so two
 * sequential streams each pay a seek and a rotation for every 4 KiB (no minimum pre-fetch held
 * the head). 512 (the whole window): each media read brings 512 KiB for its stream, and the
 * other's requests wait for it.
 */
static void test_hdd_min_prefetch(void **state)
{
	struct devmodel_params p = devmodel_params_defaults(DEVMODEL_HDD);
	struct devmodel_stats st0, st1;
	double off, on;
	char err[256];

	(void)state;
	off = two_streams(&p, 400, &st0);
	p.hdd.min_readahead_kib = 512;
	on = two_streams(&p, 4000, &st1);
	print_message("hdd two sequential 4 KiB readers: min pre-fetch 0 %.0f IOPS (%" PRIu64
		      " media ops for 400), 512 KiB %.0f IOPS (%" PRIu64 " media ops, %" PRIu64
		      " pre-fetches held the head, for 4000)\n",
		      off, st0.media_ops, on, st1.media_ops, st1.min_prefetches);
	assert_int_equal(st0.min_prefetches, 0);
	assert_true(st0.media_ops >= 390); /* every request from the media */
	assert_true(st1.min_prefetches > 0 && st1.min_prefetches == st1.media_ops);
	assert_true(st1.media_ops < 4000 / 50); /* 128 requests per media read, give or take */
	assert_true(on > 20 * off);
	/* More than the window: refused, naming both. */
	p.hdd.min_readahead_kib = 1024;
	assert_int_equal(devmodel_params_check(&p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "hdd_min_readahead_kib=1024: above hdd_readahead_kib=512"));
}

static void test_hdd_random_read_iops(void **state)
{
	struct devmodel_params p = devmodel_params_defaults(DEVMODEL_HDD);
	struct loop_result r1, r32, fifo;

	(void)state;
	r1 = closed_loop(&p, 1, false, 4096, p.capacity_bytes, DEVMODEL_READ, 1500, 2);
	r32 = closed_loop(&p, 32, false, 4096, p.capacity_bytes, DEVMODEL_READ, 4000, 2);
	print_message("hdd rand 4 KiB: QD1 %.1f IOPS (%.2f ms), QD32 %.1f IOPS\n", r1.iops,
		      r1.mean_lat_ms, r32.iops);
	assert_true(r1.iops > 70 && r1.iops < 150);
	assert_true(r32.iops > 1.5 * r1.iops);
	/* NCQ reordering is what buys it: FIFO at depth 32 is no better than QD1. */
	p.hdd.ncq_reorder = 0;
	fifo = closed_loop(&p, 32, false, 4096, p.capacity_bytes, DEVMODEL_READ, 1500, 2);
	assert_true(fifo.iops < 1.15 * r1.iops);
	/* A short span seeks less. */
	p.hdd.ncq_reorder = 1;
	r1 = closed_loop(&p, 1, false, 4096, 5ull << 30, DEVMODEL_READ, 1500, 2);
	assert_true(r1.iops > 150);
}

static void test_hdd_write_cache_and_flush(void **state)
{
	struct devmodel_params p = devmodel_params_defaults(DEVMODEL_HDD);
	struct devmodel *m = dm_new(&p);
	struct test_rng rng;
	uint64_t ids[4], now = 0, t;

	(void)state;
	test_rng_seed(&rng, 3);
	/* A clean cache: a flush costs only the command. */
	assert_int_equal(devmodel_submit(m, 1, 0, 0, DEVMODEL_FLUSH, now), 0);
	t = devmodel_next_completion(m);
	assert_true(t < 100 * US);
	assert_int_equal(devmodel_reap(m, t, ids, 4), 1);
	/* Cached random writes: acknowledged in well under a millisecond. */
	for (int i = 0; i < 20; i++) {
		uint64_t off = test_rng_below(&rng, p.capacity_bytes / 4096) * 4096;

		now += 10 * US;
		assert_int_equal(devmodel_submit(m, 10 + i, off, 4096, DEVMODEL_WRITE, now), 0);
		while ((t = devmodel_next_completion(m)) <= now + 100 * US) {
			int k = devmodel_reap(m, t, ids, 4);

			if (k)
				assert_int_equal(ids[0], 10 + i);
			if (t > now)
				now = t;
			if (k)
				break;
		}
	}
	assert_int_equal(devmodel_stats(m)->cached_writes, 20);
	/* The flush waits for 20 random destages: tens of milliseconds at least. */
	assert_int_equal(devmodel_submit(m, 99, 0, 0, DEVMODEL_FLUSH, now), 0);
	for (;;) {
		t = devmodel_next_completion(m);
		assert_true(t != DEVMODEL_NO_COMPLETION);
		if (devmodel_reap(m, t, ids, 4)) {
			assert_int_equal(ids[0], 99);
			break;
		}
	}
	print_message("hdd flush after 20 random cached writes: %.1f ms\n", (double)(t - now) / MS);
	assert_true(t - now > 20 * MS);
	assert_int_equal(devmodel_stats(m)->destages, 20);
	free(m);

	/* Write-through: a 4 KiB random write takes a media operation. */
	p.hdd.write_cache = 0;
	{
		struct loop_result r =
		    closed_loop(&p, 1, false, 4096, p.capacity_bytes, DEVMODEL_WRITE, 300, 4);

		assert_true(r.mean_lat_ms > 5);
	}
}

static void test_ssd_calibration(void **state)
{
	struct devmodel_params p = devmodel_params_defaults(DEVMODEL_SSD);
	struct loop_result r1, r8, rsat;

	(void)state;
	r1 = closed_loop(&p, 1, false, 4096, 5ull << 30, DEVMODEL_READ, 20000, 5);
	r8 = closed_loop(&p, 8, false, 4096, 5ull << 30, DEVMODEL_READ, 50000, 5);
	rsat = closed_loop(&p, 32, false, 4096, 5ull << 30, DEVMODEL_READ, 100000, 5);
	print_message("ssd rand 4 KiB: QD1 %.0f IOPS (%.3f ms), QD8 %.0f, QD32 %.0f (%.2f ms)\n",
		      r1.iops, r1.mean_lat_ms, r8.iops, rsat.iops, rsat.mean_lat_ms);
	/*
	 * CALIBRATION, not reproduction: the ssd model's parameters (4 units x 130 us + 38.8 us
	 * front end) were chosen so that saturated 4 KiB random reads give the 2015 seed's local
	 * Off row, 21626 IOPS (jobs/cfq-iops-mode-on-ssd-2015/published.csv). This guards the fit
	 * (+-10%); that the model then reproduces the seed is test_seeds.c's question.
	 */
	assert_true(rsat.iops > 0.9 * 21626 && rsat.iops < 1.1 * 21626);
	assert_true(r1.mean_lat_ms >= 0.1 && r1.mean_lat_ms <= 0.2);
	assert_true(r1.iops >= 5000 && r1.iops <= 10000);
	/* Calibration too: CFQ's idling keeps <= 8 in flight, 19320 in the seed (On row). */
	assert_true(r8.iops > 19320 && r8.iops < rsat.iops);
}

static void test_cloud_calibration(void **state)
{
	struct devmodel_params p = devmodel_params_defaults(DEVMODEL_CLOUD_SSD);
	struct loop_result r1, r8, r32, rsat;

	(void)state;
	r1 = closed_loop(&p, 1, false, 4096, 100ull << 30, DEVMODEL_READ, 3000, 6);
	r8 = closed_loop(&p, 8, false, 4096, 100ull << 30, DEVMODEL_READ, 20000, 6);
	r32 = closed_loop(&p, 32, false, 4096, 100ull << 30, DEVMODEL_READ, 50000, 6);
	rsat = closed_loop(&p, 64, false, 4096, 100ull << 30, DEVMODEL_READ, 100000, 6);
	print_message("cloud rand 4 KiB: QD1 %.3f ms, QD8 %.0f, QD32 %.0f, QD64 %.0f IOPS\n",
		      r1.mean_lat_ms, r8.iops, r32.iops, rsat.iops);
	/*
	 * CALIBRATION, not reproduction: 64 units x 600 us + 460 us were fitted to the 2015 seed's
	 * cloud Off row at saturation (29255 IOPS) and its On row at CFQ's ~8 in flight (7054).
	 * These guard the fit (+-10%, and 6500..8000 at depth 8); whether CFQ on this model gives
	 * the seed's rows is test_seeds.c's question.
	 */
	assert_true(rsat.iops > 0.9 * 29255 && rsat.iops < 1.1 * 29255);
	assert_true(r1.mean_lat_ms >= 1.0 && r1.mean_lat_ms < 3.0);
	/* Throughput grows with depth; 8 in flight is the seed's On row (7054), by calibration. */
	assert_true(r8.iops > 4 * r1.iops && r32.iops > 3 * r8.iops && rsat.iops > r32.iops);
	assert_true(r8.iops > 6500 && r8.iops < 8000);
}

static void test_determinism(void **state)
{
	static const enum devmodel_kind kinds[] = {DEVMODEL_HDD, DEVMODEL_SSD, DEVMODEL_CLOUD_SSD};

	(void)state;
	for (int k = 0; k < 3; k++) {
		struct devmodel_params p = devmodel_params_defaults(kinds[k]);
		struct loop_result a, b, c;

		a = closed_loop(&p, 8, false, 4096, 1ull << 30, DEVMODEL_READ, 2000, 7);
		b = closed_loop(&p, 8, false, 4096, 1ull << 30, DEVMODEL_READ, 2000, 7);
		assert_int_equal(a.hash, b.hash);
		assert_int_equal(a.end_ns, b.end_ns);
		p.seed = 12345;
		c = closed_loop(&p, 8, false, 4096, 1ull << 30, DEVMODEL_READ, 2000, 7);
		assert_true(c.hash != a.hash);
	}
}

/*
 * Random mixed traffic at random times: every id completes exactly once, in non-decreasing
 * completion time, never before its submission, and reaping at next_completion() never
 * leaves a completion behind.
 */
static void test_protocol_exactly_once(void **state)
{
	static const enum devmodel_kind kinds[] = {DEVMODEL_NULL, DEVMODEL_HDD, DEVMODEL_SSD,
						   DEVMODEL_CLOUD_SSD};

	(void)state;
	for (int k = 0; k < 4; k++) {
		enum { N = 4000 };
		struct devmodel_params p = devmodel_params_defaults(kinds[k]);
		struct devmodel *m;
		uint64_t *sub = calloc(N, sizeof(*sub)), ids[16], now = 0, last = 0;
		unsigned char *seen = calloc(N, 1);
		struct test_rng rng;
		int issued = 0, done = 0;

		assert_non_null(sub);
		assert_non_null(seen);
		p.queue_depth = 16;
		p.hdd.wcache_extents = 8;
		m = dm_new(&p);
		test_rng_seed(&rng, 11 + k);
		while (done < N) {
			uint64_t next = devmodel_next_completion(m);
			uint64_t arrive = now + test_rng_below(&rng, 4 * MS);

			if (issued < N && devmodel_in_flight(m) < 16 && arrive < next) {
				uint64_t r = test_rng_below(&rng, 100);
				enum devmodel_op op = r < 55   ? DEVMODEL_READ
						      : r < 95 ? DEVMODEL_WRITE
						      : r < 98 ? DEVMODEL_FLUSH
							       : DEVMODEL_DISCARD;
				uint64_t off = test_rng_below(&rng, 2)
						   ? issued * 8192ull
						   : test_rng_below(&rng, 1u << 28) * 512;

				now = arrive;
				sub[issued] = now;
				assert_int_equal(
				    devmodel_submit(m, issued, off,
						    op == DEVMODEL_FLUSH ? 0 : 4096 << (r % 4), op,
						    now),
				    0);
				issued++;
				continue;
			}
			assert_true(next != DEVMODEL_NO_COMPLETION);
			assert_true(next >= now);
			now = next;
			for (int n; (n = devmodel_reap(m, now, ids, 16)) > 0;) {
				for (int j = 0; j < n; j++) {
					assert_true(ids[j] < (uint64_t)issued);
					assert_int_equal(seen[ids[j]], 0);
					seen[ids[j]] = 1;
					assert_true(now >= sub[ids[j]]);
					done++;
				}
			}
			assert_true(now >= last);
			last = now;
			assert_true(devmodel_next_completion(m) > now);
		}
		assert_int_equal(devmodel_in_flight(m), 0);
		assert_int_equal(devmodel_stats(m)->completed, N);
		free(seen);
		free(sub);
		free(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names_and_params),
	    cmocka_unit_test(test_param_names_all_settable),
	    cmocka_unit_test(test_create_refuses),
	    cmocka_unit_test(test_null_instant),
	    cmocka_unit_test(test_hdd_sequential_read_rate),
	    cmocka_unit_test(test_hdd_min_prefetch),
	    cmocka_unit_test(test_hdd_random_read_iops),
	    cmocka_unit_test(test_hdd_write_cache_and_flush),
	    cmocka_unit_test(test_ssd_calibration),
	    cmocka_unit_test(test_cloud_calibration),
	    cmocka_unit_test(test_determinism),
	    cmocka_unit_test(test_protocol_exactly_once),
	    cmocka_unit_test(test_occupancy_stats),
	};

	return cmocka_run_group_tests_name("devmodel", tests, NULL, NULL);
}
