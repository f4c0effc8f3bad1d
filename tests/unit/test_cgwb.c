// SPDX-License-Identifier: GPL-2.0
/*
 * Writeback per group (cgroup writeback, 4.2): buffered sequential writers in groups of
 * different weights, one each, on the hdd model in virtual time. With the 6.12 profile each
 * group's dirty pages are written back by its own wb's flusher as the group's async I/O, and
 * balance_dirty_pages() throttles each writer against its wb's share of the dirty limit, so
 * CFQ's and BFQ's group weights apply to the writeback; the 2.6.29 profile (one flusher for
 * every group, no cgroup writeback) shows the old equal shares. Where the weights do not set
 * the bytes (CFQ 1:4, BFQ at the default 64 tags, a direct reader beside the writers) the
 * tests assert the kernel's own mechanism with the policies' counters (docs/pagecache.md).
 * CGWB_DEBUG=1 prints the counters of every run; build/oracle/cgwb runs the same cases with
 * the kernel's own cfq-iosched.c (4.19) and bfq-iosched.c (6.12): the same figures. Deterministic,
 * virtual time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cgwb_scenario.h"
#include "support.h"
#include "vsim.h"

#define SEC 1000000000ull
#define MiB (1ull << 20)
#define GiB (1ull << 30)

struct cgwb_row {
	double share[3];     /* of the written bytes (or device bytes) per writer group */
	double mbps[3];	     /* writeback MB/s per writer group */
	double reader_mbps;  /* the direct reader's */
	uint64_t written[3]; /* pages written back per group's wb */
	/* The policy's per-group counters, groups 1 .. 3: CFQ's slices, time used and charged
	 * (cfq_group_served(): ms used, charge in ns), both policies' sectors dispatched */
	double slices[4], used_ms[4], charge[4], sectors[4];
	/* Per writer group's flusher (6.12; the reader in [nw]): the mean number of its requests
	 * held in the scheduler (sum of dispatch - insert over the run) and in the drive
	 * (complete - dispatch) */
	double held[3], in_drive[3];
	double run_s;
};

static void group_stat(void *ctx, const char *name, int group, double value)
{
	struct cgwb_row *row = ctx;

	if (group < 1 || group > 3)
		return;
	if (!strcmp(name, "slices"))
		row->slices[group] = value;
	else if (!strcmp(name, "time_ms"))
		row->used_ms[group] = value;
	else if (!strcmp(name, "charge"))
		row->charge[group] = value;
	else if (!strcmp(name, "sectors"))
		row->sectors[group] = value;
}

static void at_end(const struct sched *s, void *ctx)
{
	sched_ops(s)->emit_stats(s->policy, group_stat, ctx);
}

static uint32_t hwqd, nrreq;
static const char *per_group_rl; /* cfq_sw_per_group_rl given ("0", "1"), else the profile's */
static bool strict;		 /* bfq's strict_guarantees */

static void run_ok(struct vsim_config *cfg, struct vsim_result *res)
{
	char err[256] = "";

	if (vsim_run(cfg, res, err, sizeof(err))) {
		print_error("vsim_run: %s\n", err);
		fail();
	}
	assert_false(res->stalled);
}

/* cgwb_scenario()'s runs (cgwb_scenario.h), with this test's tunables and counters. */
static void run_groups(enum sched_policy_id pol, enum pc_profile prof, uint32_t nw,
		       const uint32_t *w, bool reader, uint32_t rw, uint64_t runtime,
		       struct cgwb_row *row)
{
	struct vsim_config cfg;
	struct vsim_result r;
	struct vsim_job jobs[4];
	uint64_t tot = 0;

	memset(row, 0, sizeof(*row));
	cgwb_scenario(&cfg, jobs, pol, prof, nw, w, reader, rw);
	if (hwqd)
		cfg.sched.hw_queue_depth = hwqd;
	if (nrreq)
		cfg.nr_requests = nrreq;
	if (per_group_rl) {
		char err[256];

		assert_int_equal(sched_config_set_tunable(&cfg.sched, "cfq_sw_per_group_rl",
							  per_group_rl, err, sizeof(err)),
				 0);
	}
	if (strict) {
		char err[256];

		assert_int_equal(sched_config_set_tunable(&cfg.sched, "strict_guarantees", "1", err,
							  sizeof(err)),
				 0);
	}
	cfg.at_end = at_end;
	cfg.at_end_ctx = row;
	cfg.runtime_ns = runtime;
	run_ok(&cfg, &r);
	for (uint32_t i = 0; i < nw; i++) {
		/* written back in the group's name: its wb (6.12), or its inode's pages (one wb) */
		row->written[i] = r.pc.written_by_group[i + 1] * 4096;
		tot += row->written[i];
	}
	for (uint32_t i = 0; i < nw; i++) {
		row->share[i] = tot ? (double)row->written[i] / (double)tot : 0;
		row->mbps[i] = (double)row->written[i] / ((double)runtime / SEC) / 1e6;
	}
	if (reader)
		row->reader_mbps = r.job[nw].bw_bps / 1e6;
	row->run_s = (double)r.end_ns / SEC;
	for (uint32_t i = 0; i < nw + reader; i++) {
		/* the flusher of wb i + 1 (entity nr_entities + wb), the reader (clone nw) */
		uint32_t owner = i < nw ? r.nr_entities + i + 1 : nw;

		if (owner >= SCHED_MAX_ENTITIES || (i < nw && prof != PC_PROFILE_LINUX_6_12))
			continue;
		row->held[i] = (double)r.sched.entity[owner].wait_ns / (double)r.end_ns;
		row->in_drive[i] = (double)r.sched.entity[owner].service_ns / (double)r.end_ns;
	}
	if (getenv("CGWB_DEBUG")) {
		for (uint32_t i = 0; i < r.pc_nr_wbs; i++)
			printf("   wb %u: dirtied %lu written %lu flusher pages %lu reqs %lu bw %u "
			       "ratelimit %u wb_thresh %u\n",
			       i, (unsigned long)r.pc_wb[i].dirtied,
			       (unsigned long)r.pc_wb[i].written,
			       (unsigned long)r.pc_wb[i].wb_pages,
			       (unsigned long)r.pc_wb[i].wb_requests, r.pc_wb[i].write_bw,
			       r.pc_wb[i].dirty_ratelimit, r.pc_wb[i].wb_thresh);
		for (uint32_t i = 0; i < nw; i++)
			printf("   writer %u: dirtied %lu pauses %lu throttled %.2f s\n", i,
			       (unsigned long)r.pc_entity[i].dirtied,
			       (unsigned long)r.pc_entity[i].pauses,
			       (double)r.pc_entity[i].throttle_ns / SEC);
		printf("   thresh %u bg %u\n", r.pc.thresh, r.pc.bg_thresh);
		for (uint32_t g = 1; g <= nw + (reader ? 1 : 0); g++)
			printf(
			    "   group %u: held %.2f in drive %.2f; slices %.0f used %.0f ms charge "
			    "%.0f ms sectors %.0f\n",
			    g, row->held[g - 1], row->in_drive[g - 1], row->slices[g],
			    row->used_ms[g], row->charge[g] / 1e6, row->sectors[g]);
		printf("   admission waits %lu, most requests allocated in one list: async %u "
		       "sync %u\n",
		       (unsigned long)r.admission_waits, r.max_allocated[0], r.max_allocated[1]);
	}
	vsim_result_free(&r);
}

/* Each writer group's share of the written bytes within 25% of its weight's share. */
static void check_shares(const char *what, const struct cgwb_row *row, const uint32_t *w,
			 uint32_t nw)
{
	uint32_t wsum = 0;

	for (uint32_t i = 0; i < nw; i++)
		wsum += w[i];
	for (uint32_t i = 0; i < nw; i++) {
		double want = (double)w[i] / wsum;

		if (row->share[i] < 0.75 * want || row->share[i] > 1.25 * want) {
			print_error(
			    "%s: group %u wrote %.3f of the bytes, its weight's share %.3f\n", what,
			    i + 1, row->share[i], want);
			fail();
		}
	}
}

static void print_row(const char *what, const struct cgwb_row *row, const uint32_t *w)
{
	printf("  %-34s weights %u:%u  written shares %.3f : %.3f  (%.1f + %.1f MB/s)  "
	       "weight shares %.3f : %.3f\n",
	       what, w[0], w[1], row->share[0], row->share[1], row->mbps[0], row->mbps[1],
	       (double)w[0] / (w[0] + w[1]), (double)w[1] / (w[0] + w[1]));
}

static const uint32_t w12[2] = {100, 200}, w14[2] = {100, 400};

/* Group g's share of the policy's counter v[1 .. ng] (charge, sectors). */
static double group_share(const double *v, uint32_t g, uint32_t ng)
{
	double tot = 0;

	for (uint32_t i = 1; i <= ng; i++)
		tot += v[i];
	return tot > 0 ? v[g] / tot : 0;
}

/* Within 25% of want. */
static void check_band(const char *what, double got, double want)
{
	if (got < 0.75 * want || got > 1.25 * want) {
		print_error("%s: %.3f, not within 25%% of %.3f\n", what, got, want);
		fail();
	}
}

/*
 * BFQ (blk-mq, 6.12). With nr_requests=256 the flushers' requests wait in BFQ (held below),
 * bfqq_request_over_limit() holds each group to its weight's share of the 128 async tags and
 * BFQ picks by the weights: they hold.
 *
 * With the kernel's default tags they do not, and the kernel alike: blk_mq_init_sched() sizes
 * them 2 x min(queue_depth, BLKDEV_DEFAULT_RQ) = 64 for the hdd's 32 commands, and async I/O
 * may hold half of them (bfq_update_depths(): async_depths[0][0] = nr_requests >> 1, 6.12
 * bfq-iosched.c:7142; bfq_limit_depth() :700). A request keeps its scheduler tag until it
 * completes, so at most 32 async requests exist and all fit in the drive: BFQ dispatches
 * each as it is inserted (an async queue is never idled for, bfq_better_to_idle() :4600;
 * it spends its budget at once) and never holds one to choose from (held 0.00 of a mean
 * 15.3 + 16.4 in the drive). bfqq_request_over_limit() (:585), which would hold group 1 to
 * round(32 x 100 / 500) = 6 tags, applies only while the flusher's bfqq is on a service tree
 * (`if (!entity->on_st_or_in_serv) goto out`, :607), i.e. between the insertions of a batch:
 * it limits group 1 there, yet group 1 keeps 15.3 requests in the drive. The tags go round
 * the two flushers as they free, and the written bytes follow the page cache's writeback
 * (0.496 : 0.504 at 1:4).
 */
static void test_cgwb_bfq(void **state)
{
	struct cgwb_row row;

	(void)state;
	printf("bfq, hdd model, one buffered sequential writer per group, 20 s:\n");
	nrreq = 256;
	run_groups(SCHED_POLICY_BFQ, PC_PROFILE_LINUX_6_12, 2, w12, false, 0, 20 * SEC, &row);
	print_row("6.12 nr_requests=256", &row, w12);
	check_shares("bfq 6.12 1:2", &row, w12, 2);
	run_groups(SCHED_POLICY_BFQ, PC_PROFILE_LINUX_6_12, 2, w14, false, 0, 20 * SEC, &row);
	print_row("6.12 nr_requests=256", &row, w14);
	printf("    requests held in bfq %.2f + %.2f, in the drive %.2f + %.2f\n", row.held[0],
	       row.held[1], row.in_drive[0], row.in_drive[1]);
	check_shares("bfq 6.12 1:4", &row, w14, 2);
	assert_true(row.held[0] > 5 && row.held[1] > 5);
	run_groups(SCHED_POLICY_BFQ, PC_PROFILE_LINUX_2_6_29, 2, w14, false, 0, 20 * SEC, &row);
	print_row("2.6.29 nr_requests=256", &row, w14);
	assert_true(row.share[0] > 0.4 && row.share[0] < 0.6);
	nrreq = 0;
	run_groups(SCHED_POLICY_BFQ, PC_PROFILE_LINUX_6_12, 2, w14, false, 0, 20 * SEC, &row);
	print_row("6.12 nr_requests=auto (64)", &row, w14);
	printf("    requests held in bfq %.2f + %.2f, in the drive %.2f + %.2f\n", row.held[0],
	       row.held[1], row.in_drive[0], row.in_drive[1]);
	/* BFQ holds nothing: the drive has all 32 async requests; shares about equal */
	assert_true(row.held[0] + row.held[1] < 0.05);
	assert_true(row.in_drive[0] + row.in_drive[1] > 30);
	assert_true(row.share[0] > 0.4 && row.share[0] < 0.6);
}

/*
 * CFQ (4.19, legacy block layer) divides the time it charges by the weights, and it does so
 * here at 1:2 and 1:4 alike (each group's share of the charge of cfq_group_served() within 25%
 * of its weight's). The written bytes do not follow at 1:4 (0.303 for 0.2), and the kernel's
 * CFQ alike: the charged time is about half the run (12.1 s of 20). An async queue of a group
 * without sync queues is charged its allocated slice (4.19 cfq-iosched.c:1476), a slice starts at
 * the queue's first completion (cfq_completed_request() :4264, cfq_set_prio_slice()), and what the
 * queue dispatched before it expired (up to cfq_quantum = 8 requests of 512 KiB, the 128
 * pages a bio is split at, cfq_may_dispatch() :3397-3460, ~34 ms of the hdd) completes after
 * it, in no one's slice:
 * the next queue's slice starts only when its own first request completes behind them
 * (cfq_cfqq_slice_usage() :1428 leaves slice_start - dispatch_start unaccounted). Each switch
 * of groups gives the outgoing group that drain uncharged, and both are switched to about as
 * often (group 1 at every slice), so the uncharged time pulls the bytes toward equal: group 1
 * gets 1.7 times group 2's sectors per charged ms. With one request list for every group
 * instead of 4.19's list per group (blk_get_rl()) group 1's flusher keeps 8.4 requests in the
 * drive, not 1.9, and the shares are equal. The 2.6.29 page
 * cache (no cgroup writeback) is run with one list as its kernels had; with 4.19's lists per
 * group the writers' own writeback in balance_dirty_pages() takes the weights in part.
 */
static void check_cfq_charge(const char *what, const struct cgwb_row *row, const uint32_t *w)
{
	double used = (row->used_ms[1] + row->used_ms[2]) / 1e3;

	printf("    charged %.0f : %.0f ms (%.3f : %.3f) in %.1f s; slices %.0f : %.0f; sectors "
	       "per charged ms %.0f : %.0f\n",
	       row->charge[1] / 1e6, row->charge[2] / 1e6, group_share(row->charge, 1, 2),
	       group_share(row->charge, 2, 2), row->run_s, row->slices[1], row->slices[2],
	       row->sectors[1] / (row->charge[1] / 1e6), row->sectors[2] / (row->charge[2] / 1e6));
	check_band(what, group_share(row->charge, 1, 2), (double)w[0] / (w[0] + w[1]));
	check_band(what, group_share(row->charge, 2, 2), (double)w[1] / (w[0] + w[1]));
	/* most of the drive's time is charged to no group */
	assert_true(used < 0.6 * row->run_s);
}

static void test_cgwb_cfq(void **state)
{
	struct cgwb_row row;
	double per_group, in_drive;

	(void)state;
	printf("cfq, hdd model, one buffered sequential writer per group, 20 s:\n");
	run_groups(SCHED_POLICY_CFQ, PC_PROFILE_LINUX_6_12, 2, w12, false, 0, 20 * SEC, &row);
	print_row("6.12", &row, w12);
	check_cfq_charge("cfq 6.12 1:2, charge", &row, w12);
	check_shares("cfq 6.12 1:2", &row, w12, 2);
	run_groups(SCHED_POLICY_CFQ, PC_PROFILE_LINUX_6_12, 2, w14, false, 0, 20 * SEC, &row);
	print_row("6.12", &row, w14);
	check_cfq_charge("cfq 6.12 1:4, charge", &row, w14);
	/* group 1's slices carry more uncharged drain per charged ms */
	assert_true(row.sectors[1] / row.charge[1] > 1.5 * row.sectors[2] / row.charge[2]);
	assert_true(row.share[0] > 0.25 && row.share[0] < 0.45);
	assert_true(row.share[1] > 1.3 * row.share[0]);
	per_group = row.share[0];
	in_drive = row.in_drive[0];
	per_group_rl = "0";
	run_groups(SCHED_POLICY_CFQ, PC_PROFILE_LINUX_6_12, 2, w14, false, 0, 20 * SEC, &row);
	print_row("6.12, one request list", &row, w14);
	printf("    group 1's requests in the drive %.2f (a list per group: %.2f)\n",
	       row.in_drive[0], in_drive);
	/* one list for both: group 1's flusher has more requests to dispatch in its slices, and
	 * more of its drain goes uncharged */
	assert_true(row.in_drive[0] > 2 * in_drive);
	assert_true(row.share[0] > per_group && row.share[0] < 0.6);
	run_groups(SCHED_POLICY_CFQ, PC_PROFILE_LINUX_2_6_29, 2, w12, false, 0, 20 * SEC, &row);
	print_row("2.6.29, one request list", &row, w12);
	assert_true(row.share[0] > 0.4 && row.share[0] < 0.6);
	run_groups(SCHED_POLICY_CFQ, PC_PROFILE_LINUX_2_6_29, 2, w14, false, 0, 20 * SEC, &row);
	print_row("2.6.29, one request list", &row, w14);
	assert_true(row.share[0] > 0.4 && row.share[0] < 0.6);
	per_group_rl = NULL;
	run_groups(SCHED_POLICY_CFQ, PC_PROFILE_LINUX_2_6_29, 2, w14, false, 0, 20 * SEC, &row);
	print_row("2.6.29, a list per group", &row, w14);
	assert_true(row.share[0] > 0.3 && row.share[0] <= 0.5);
}

/*
 * A direct sequential reader (128 KiB, one at a time, weight 200) in a third group beside the
 * writer groups 100 and 200 gets well under its weight's share (0.4) of its 120 MB/s alone,
 * under both policies, by their own rules (the kernel alike):
 * - cfq: its group gets its weight's share of the charged time (0.41), but the charged time
 *   is two thirds of the run (0.56 of its share, 27 MB/s). Before its sync queue dispatches, the
 * writers' async requests in the drive are drained (cfq_may_dispatch(): "Drain async requests
 * before we start sync IO", 4.19 cfq-iosched.c:3405) and that wait is not charged
 * (cfq_cfqq_slice_usage() :1453); the writer groups, charged their allocated slices, get the drain
 * of what they dispatched uncharged (see test_cgwb_cfq).
 * - bfq: the reader's queue is in service nearly all the time, yet slow: a writer's turn
 *   spends its budget (up to 8 MiB, charged as sectors: bfq_serv_to_charge() :1052, groups
 *   make the scenario asymmetric) in no time by putting its requests in the drive's 32
 *   command slots, and the reader's next budget, timed from its set_in_service
 *   (bfq_set_budget_timeout() :3358), waits behind them; timed out slow, it is charged by
 *   time (bfq_bfqq_charge_time() :4381). BFQ's own remedy, strict_guarantees (one request in
 *   the drive at a time, __bfq_dispatch_request() :5239), gives the reader its weight's share
 *   of the sectors (0.33) and 31 of its 48 MB/s.
 */
/* The reader alone, beside 2.6.29's one flusher, beside 6.12's flushers per group: returns its
 * MB/s beside the 6.12 writers over its weight's share (0.4) of its MB/s alone (*alone); row
 * holds that last run. */
static double reader_beside_writers(enum sched_policy_id pol, const char *name,
				    struct cgwb_row *row, double *alone_out)
{
	double alone, ratio;

	run_groups(pol, PC_PROFILE_LINUX_6_12, 0, w12, true, 200, 10 * SEC, row);
	alone = *alone_out = row->reader_mbps;
	assert_true(alone > 100);
	run_groups(pol, PC_PROFILE_LINUX_2_6_29, 2, w12, true, 200, 10 * SEC, row);
	printf("%s 2.6.29: the reader beside the writers %.1f MB/s\n", name, row->reader_mbps);
	assert_true(row->reader_mbps > 0);
	run_groups(pol, PC_PROFILE_LINUX_6_12, 2, w12, true, 200, 10 * SEC, row);
	ratio = row->reader_mbps / (0.4 * alone);
	printf("%s 6.12: a direct reader (weight 200) alone %.1f MB/s, beside writers 100:200 "
	       "%.1f MB/s (%.2f of its weight's share 0.40: %.1f); writers %.3f : %.3f\n",
	       name, alone, row->reader_mbps, ratio, 0.4 * alone, row->share[0], row->share[1]);
	return ratio;
}

static void test_cgwb_reader(void **state)
{
	struct cgwb_row row;
	double alone, ratio;

	(void)state;
	ratio = reader_beside_writers(SCHED_POLICY_CFQ, "cfq", &row, &alone);
	printf("    charged %.0f : %.0f : %.0f ms of %.1f s\n", row.charge[1] / 1e6,
	       row.charge[2] / 1e6, row.charge[3] / 1e6, row.run_s);
	check_band("cfq: the reader's group's share of the charged time",
		   group_share(row.charge, 3, 3), 0.4);
	/* over a third of the drive's time is charged to no group (0.63 charged) */
	assert_true((row.used_ms[1] + row.used_ms[2] + row.used_ms[3]) / 1e3 < 0.7 * row.run_s);
	assert_true(ratio < 0.6);

	nrreq = 256;
	ratio = reader_beside_writers(SCHED_POLICY_BFQ, "bfq", &row, &alone);
	printf("    in the drive: the reader %.2f, writeback %.2f + %.2f; sectors share %.3f\n",
	       row.in_drive[2], row.in_drive[0], row.in_drive[1], group_share(row.sectors, 3, 3));
	/* the reader always has its read in the drive, with writeback beside it */
	assert_true(row.in_drive[2] > 0.9 && row.in_drive[0] + row.in_drive[1] > 2);
	assert_true(ratio < 0.5);
	strict = true;
	run_groups(SCHED_POLICY_BFQ, PC_PROFILE_LINUX_6_12, 2, w12, true, 200, 10 * SEC, &row);
	strict = false;
	ratio = row.reader_mbps / (0.4 * alone);
	printf("bfq 6.12 strict_guarantees=1: the reader %.1f MB/s (%.2f of its weight's share); "
	       "sectors share %.3f\n",
	       row.reader_mbps, ratio, group_share(row.sectors, 3, 3));
	check_band("bfq strict_guarantees: the reader's group's share of the sectors",
		   group_share(row.sectors, 3, 3), 0.4);
	assert_true(ratio > 0.6);
	nrreq = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cgwb_bfq),
	    cmocka_unit_test(test_cgwb_cfq),
	    cmocka_unit_test(test_cgwb_reader),
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	return cmocka_run_group_tests_name("cgwb", tests, NULL, NULL);
}
