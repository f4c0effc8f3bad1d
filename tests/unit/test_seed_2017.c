// SPDX-License-Identifier: GPL-2.0
/*
 * The 2017 seed (jobs/bfq-mq-vs-cfq-2017/, /work/shared/seeds/bfq-mq-vs-cfq-2017.txt) in virtual
 * time: "bfq-mq performance comparison to cfq", sequential readers 1..8 on a SAMSUNG HD103SJ,
 * bfq-mq with low_latency 1 and 0 against cfq. Each cell is the thread's fio job (rw=read,
 * bs=4k, numjobs=N, iodepth=1, direct=1, size=5G, one 5G region per job, runtime=10s) on the
 * hdd device model, through the block layer in the policy's mode (cfq: legacy request lists,
 * bfq: blk-mq scheduler tags, as the kernel sizes them).
 *
 * The thread gives no unit, so the shape is compared: T(N)/T(1). Asserted, with the 4.12
 * profile: ll=1 at N=2..7 within 0.45..0.75, recovered at N=8 (>= 0.8); ll=0 >= 0.8 throughout;
 * cfq in between and falling with N. Then, one mechanism switched off at a time, which one
 * makes the dent, with the counters that show it; and what the 6.12 profile predicts.
 * Deterministic; no wall clock. Nothing here was tuned to the published numbers.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bfq.h"
#include "support.h"
#include "vsim.h"

#define SEC 1000000000ull
#define GIB (1024ull * 1024 * 1024)
#define NMAX 8

/* The thread's means (fio's aggregate figure, unit not stated), N = 1..8. */
static const double pub_cfq[NMAX] = {17060.3, 15318.2, 15403.2, 14521.2,
				     13893.9, 13065.3, 12169.6, 12422.2};
static const double pub_bfq_ll1[NMAX] = {17657.5, 10678.0, 9874.6, 9918.7,
					 9485.0,  9419.8,  9863.8, 15335.3};
static const double pub_bfq_ll0[NMAX] = {17959.5, 16137.2, 16223.6, 16012.2,
					 15937.9, 15849.3, 15794.3, 15494.8};

struct cell {
	double mbps;
	struct bfq_stats st; /* BFQ cells */
};

static void grab(const struct sched *s, void *ctx)
{
	struct cell *c = ctx;

	if (bfq_of(s))
		c->st = *bfq_get_stats(bfq_of(s));
}

/* One run of the thread's job with numjobs=n; tunables as name, value pairs (NULL-ended);
 * think_us between each completion and the job's next request. */
static void run_cell(enum sched_policy_id pol, const char *const *tunables, uint32_t n,
		     uint64_t think_us, struct cell *c)
{
	struct vsim_config cfg;
	struct vsim_result r;
	struct vsim_job job;
	char err[256] = "";

	memset(c, 0, sizeof(*c));
	vsim_config_defaults(&cfg, pol, DEVMODEL_HDD);
	for (int i = 0; tunables && tunables[i]; i += 2) {
		if (sched_config_set_tunable(&cfg.sched, tunables[i], tunables[i + 1], err,
					     sizeof(err))) {
			print_error("%s=%s: %s\n", tunables[i], tunables[i + 1], err);
			fail();
		}
	}
	vsim_job_defaults(&job);
	job.name = "seqread";
	job.rw = VSIM_READ;
	job.bs = 4096;
	job.iodepth = 1;
	job.numjobs = n;
	job.direct = true;
	job.size = 5 * GIB;
	job.offset_increment = 5 * GIB;
	job.thinktime_us = think_us;
	cfg.jobs = &job;
	cfg.nr_jobs = 1;
	cfg.runtime_ns = 10 * SEC;
	cfg.at_end = grab;
	cfg.at_end_ctx = c;
	if (vsim_run(&cfg, &r, err, sizeof(err))) {
		print_error("vsim_run: %s\n", err);
		fail();
	}
	assert_false(r.stalled);
	assert_int_equal(r.submitted, r.completed + r.in_flight_at_end);
	c->mbps = r.total.bw_bps / 1e6;
	/* Merging is on (the kernel's default, since 2026-12-07) and merges nothing here: each
	 * job has one read outstanding (iodepth=1, submitted when the last completed) in a
	 * region of its own, so no bio finds a queued request or a plug to join. The table is
	 * the one measured without merging. */
	for (int k = 0; k < BLK_MERGE_NR; k++)
		assert_int_equal(r.blk.merges[k], 0);
	vsim_result_free(&r);
}

struct series {
	const char *name;
	enum sched_policy_id pol;
	const char *tun[8];
	uint64_t think_us; /* between a completion and the next request (see S_612_*) */
	struct cell c[NMAX];
	double ratio[NMAX];
};

static void run_series(struct series *s)
{
	for (uint32_t n = 1; n <= NMAX; n++)
		run_cell(s->pol, s->tun, n, s->think_us, &s->c[n - 1]);
	for (int i = 0; i < NMAX; i++)
		s->ratio[i] = s->c[i].mbps / s->c[0].mbps;
}

static double pub_ratio(const double *pub, int i)
{
	return pub[i] / pub[0];
}

enum { S_CFQ, S_412_LL1, S_412_LL0, S_612_LL1, S_612_LL0, S_NR };

static struct series series[S_NR] = {
	[S_CFQ] = {.name = "cfq", .pol = SCHED_POLICY_CFQ, .tun = {NULL}},
	[S_412_LL1] = {.name = "bfq 4.12 ll=1", .pol = SCHED_POLICY_BFQ,
		       .tun = {"bfq_version", "4.12", "low_latency", "1", NULL}},
	[S_412_LL0] = {.name = "bfq 4.12 ll=0", .pol = SCHED_POLICY_BFQ,
		       .tun = {"bfq_version", "4.12", "low_latency", "0", NULL}},
	/*
	 * 6.12 with a microsecond between each completion and the job's next request, as any
	 * host takes (the engine's is 11-44 us): vsim's jobs resubmit at the completion's very
	 * instant, and under 6.12's plug clock a new queue's idle time starts at U64_MAX (its
	 * first request arrives at the instant it was made) and only a positive idle time
	 * wraps it back; resubmitted at once, a reader stays "not I/O-bound", is not plugged
	 * for, and N >= 2 readers alternate on the disk at ll=0 too (0.006; the kernel's own
	 * bfq-iosched.c does the same in vsim: `oracle --variant bfq_6_12 --job FILE`).
	 */
	[S_612_LL1] = {.name = "bfq 6.12 ll=1", .pol = SCHED_POLICY_BFQ,
		       .tun = {"bfq_version", "6.12", "low_latency", "1", NULL}, .think_us = 1},
	[S_612_LL0] = {.name = "bfq 6.12 ll=0", .pol = SCHED_POLICY_BFQ,
		       .tun = {"bfq_version", "6.12", "low_latency", "0", NULL}, .think_us = 1},
};

static bool have_series;

static void need_series(void)
{
	if (have_series)
		return;
	for (int k = 0; k < S_NR; k++)
		run_series(&series[k]);
	have_series = true;
}

/*
 * The thread's table, as T(N)/T(1): [0] cfq, [1] bfq-mq low_latency=1, [2] bfq-mq
 * low_latency=0, ours (4.12 profile) beside the published mean; then the 6.12 prediction.
 */
static void print_2017(void)
{
	printf("\n2017 seqread (rw=read bs=4k iodepth=1 direct=1, 5G per job, 10 s), hdd model, "
	       "virtual time: T(N)/T(1), ours / published\n");
	printf("jo  [0] cfq          [1] bfq-mq ll=1      [2] bfq-mq ll=0     | 6.12 profile\n");
	printf("bs  ours    pub      ours    pub          ours    pub         | ll=1    ll=0\n");
	for (int i = 0; i < NMAX; i++)
		printf("%d & %.3f & %.3f  & %.3f & %.3f      & %.3f & %.3f     | %.3f   %.3f\n",
		       i + 1, series[S_CFQ].ratio[i], pub_ratio(pub_cfq, i),
		       series[S_412_LL1].ratio[i], pub_ratio(pub_bfq_ll1, i),
		       series[S_412_LL0].ratio[i], pub_ratio(pub_bfq_ll0, i),
		       series[S_612_LL1].ratio[i], series[S_612_LL0].ratio[i]);
	printf("MB/s:");
	for (int k = 0; k < S_NR; k++) {
		printf("\n  %-14s", series[k].name);
		for (int i = 0; i < NMAX; i++)
			printf(" %6.1f", series[k].c[i].mbps);
	}
	printf("\n");
}

/* The shape the thread shows, in the 4.12 profile. */
static void test_2017_dent_shape(void **state)
{
	const double *cfq = series[S_CFQ].ratio, *ll1 = series[S_412_LL1].ratio,
		     *ll0 = series[S_412_LL0].ratio;
	double cfq_early = 0, cfq_late = 0;

	(void)state;
	need_series();
	print_2017();
	for (int i = 1; i < NMAX - 1; i++) {
		/* the dent: N = 2..7 at 0.45..0.75 of N = 1 */
		assert_true(ll1[i] >= 0.45 && ll1[i] <= 0.75);
		/* cfq between bfq ll=1 and ll=0 */
		assert_true(cfq[i] > ll1[i]);
		assert_true(cfq[i] < ll0[i]);
	}
	/* recovered at N = 8 */
	assert_true(ll1[NMAX - 1] >= 0.8);
	/* low_latency=0: no dent */
	for (int i = 0; i < NMAX; i++)
		assert_true(ll0[i] >= 0.8);
	/* cfq falls with N: the last four below the first three, and N = 8 lowest */
	for (int i = 1; i <= 3; i++)
		cfq_early += cfq[i] / 3;
	for (int i = 4; i <= 7; i++)
		cfq_late += cfq[i] / 4;
	assert_true(cfq_late < cfq_early);
	for (int i = 1; i < NMAX - 1; i++)
		assert_true(cfq[NMAX - 1] < cfq[i]);
	assert_true(cfq[NMAX - 1] < 0.9);
	/* N = 1: one queue, nothing to schedule: the three agree */
	assert_true(series[S_412_LL1].c[0].mbps > 0.97 * series[S_CFQ].c[0].mbps);
	assert_true(series[S_412_LL0].c[0].mbps > 0.97 * series[S_CFQ].c[0].mbps);
}

/*
 * The counters behind the dent (4.12, ll=1): every slot of a raised queue is a fixed budget of
 * 2 x min_budget sectors that ends exhausted, then the disk seeks to the next 5G region; idling
 * keeps each queue's slot sequential. At N=8 the large burst ends the raising of all of them.
 */
static void test_2017_dent_counters(void **state)
{
	const struct bfq_stats *st2, *st8;

	(void)state;
	need_series();
	st2 = &series[S_412_LL1].c[1].st;
	st8 = &series[S_412_LL1].c[NMAX - 1].st;
	printf("\n4.12 ll=1, N=2: raised %" PRIu64 " (interactive), ended %" PRIu64 "; slots %"
	       PRIu64 ": exhausted %" PRIu64 ", timeout %" PRIu64 ", too idle %" PRIu64
	       ", preempted %" PRIu64 "; budget min %" PRId64 " mean %.0f max %" PRId64
	       " sectors (max_budget %d); idle timers %" PRIu64 " (hits %" PRIu64 ")\n",
	       st2->wr_started[BFQ_WR_INTERACTIVE],
	       st2->wr_ended[BFQ_WR_END_TIME] + st2->wr_ended[BFQ_WR_END_BURST] +
		       st2->wr_ended[BFQ_WR_END_SERVICE] + st2->wr_ended[BFQ_WR_END_OTHER],
	       st2->budgets_assigned, st2->expired[BFQ_EXP_BUDGET_EXHAUSTED],
	       st2->expired[BFQ_EXP_BUDGET_TIMEOUT], st2->expired[BFQ_EXP_TOO_IDLE],
	       st2->expired[BFQ_EXP_PREEMPTED], st2->budget_min,
	       (double)st2->budget_sum / (double)st2->budgets_assigned, st2->budget_max,
	       st2->max_budget, st2->idle_timer_armed, st2->idle_hits);
	printf("4.12 ll=1, N=8: large bursts %" PRIu64 ", queues marked %" PRIu64
	       ", raising ended by the burst %" PRIu64 ", budget mean %.0f sectors\n",
	       st8->bursts_large, st8->burst_marked, st8->wr_ended[BFQ_WR_END_BURST],
	       (double)st8->budget_sum / (double)st8->budgets_assigned);
	/* N=2: both raised all along; small fixed budgets, all exhausted; plugging between */
	assert_int_equal(st2->wr_started[BFQ_WR_INTERACTIVE], 2);
	assert_int_equal(st2->budget_max, st2->budget_min);
	assert_true(st2->budget_max <= st2->max_budget / 8);
	assert_true(st2->expired[BFQ_EXP_BUDGET_EXHAUSTED] >= st2->budgets_assigned - 2);
	assert_true(st2->idle_timer_armed > 10000);
	/* N=8: one large burst, every queue in it, raising ended for those that had it */
	assert_int_equal(st8->bursts_large, 1);
	assert_int_equal(st8->burst_marked, NMAX);
	assert_int_equal(st8->wr_ended[BFQ_WR_END_BURST], NMAX - 1);
	assert_true((double)st8->budget_sum / (double)st8->budgets_assigned >
		    4.0 * (double)st2->budget_max);
}

/*
 * Ablation: the 4.12 ll=1 series again with one mechanism off (or one later kernel change on)
 * at a time. The dent goes with the raised queues' fixed budget; the recovery at N=8 goes with
 * burst detection.
 */
static void test_2017_ablation(void **state)
{
	static struct series abl[] = {
	    {.name = "raised queues' fixed budget off (bfq_model_wr_fixed_budget=0)",
	     .pol = SCHED_POLICY_BFQ,
	     .tun = {"bfq_version", "4.12", "bfq_model_wr_fixed_budget", "0", NULL}},
	    {.name = "burst detection off (bfq_model_burst=0)", .pol = SCHED_POLICY_BFQ,
	     .tun = {"bfq_version", "4.12", "bfq_model_burst", "0", NULL}},
	    {.name = "max_service_from_wr on (bfq_sw_max_service_from_wr=1)", .pol = SCHED_POLICY_BFQ,
	     .tun = {"bfq_version", "4.12", "bfq_sw_max_service_from_wr", "1", NULL}},
	    {.name = "no plugging when all raised (c8765de0adfc)", .pol = SCHED_POLICY_BFQ,
	     .tun = {"bfq_version", "4.12", "bfq_sw_no_plug_all_raised", "1", NULL}},
	    {.name = "no idling at all (slice_idle=0)", .pol = SCHED_POLICY_BFQ,
	     .tun = {"bfq_version", "4.12", "slice_idle", "0", NULL}},
	};
	enum { FIXED, BURST, MAXSERV, NOPLUG, NOIDLE, NABL };
	const struct series *base = &series[S_412_LL1];

	(void)state;
	need_series();
	for (int k = 0; k < NABL; k++)
		run_series(&abl[k]);
	printf("\nAblation, 4.12 ll=1, T(N)/T(1) for N = 1..8:\n  %-62s", "as is");
	for (int i = 0; i < NMAX; i++)
		printf(" %.2f", base->ratio[i]);
	printf("\n  %-62s", "low_latency=0 (no raising)");
	for (int i = 0; i < NMAX; i++)
		printf(" %.2f", series[S_412_LL0].ratio[i]);
	for (int k = 0; k < NABL; k++) {
		printf("\n  %-62s", abl[k].name);
		for (int i = 0; i < NMAX; i++)
			printf(" %.2f", abl[k].ratio[i]);
	}
	printf("\n  N=2 counters with the fixed budget off: budget mean %.0f sectors (as is: %.0f), "
	       "exhausted %" PRIu64 " (as is: %" PRIu64 "), idle timers %" PRIu64 "\n",
	       (double)abl[FIXED].c[1].st.budget_sum / (double)abl[FIXED].c[1].st.budgets_assigned,
	       (double)base->c[1].st.budget_sum / (double)base->c[1].st.budgets_assigned,
	       abl[FIXED].c[1].st.expired[BFQ_EXP_BUDGET_EXHAUSTED],
	       base->c[1].st.expired[BFQ_EXP_BUDGET_EXHAUSTED],
	       abl[FIXED].c[1].st.idle_timer_armed);
	printf("  N=2 with no plugging: idle timers %" PRIu64 ", %.1f MB/s: the two streams' "
	       "requests alternate on the disk\n", abl[NOPLUG].c[1].st.idle_timer_armed,
	       abl[NOPLUG].c[1].mbps);

	for (int i = 1; i < NMAX; i++) {
		/* the fixed budget is the dent: with normal feedback raised queues run at ll=0 pace */
		assert_true(abl[FIXED].ratio[i] >= 0.8);
		/* plugging is what keeps each slot sequential: without it, far below the dent */
		assert_true(abl[NOPLUG].ratio[i] < base->ratio[i] || i == NMAX - 1);
		assert_true(abl[NOIDLE].ratio[i] < base->ratio[i]);
	}
	/* the budgets really are larger without the fixed budget */
	assert_true(abl[FIXED].c[1].st.budget_sum / abl[FIXED].c[1].st.budgets_assigned >
		    4 * (base->c[1].st.budget_sum / base->c[1].st.budgets_assigned));
	/* the recovery at N=8 is burst detection: without it N=8 stays in the dent */
	assert_true(abl[BURST].ratio[NMAX - 1] < 0.8);
	for (int i = 1; i < NMAX - 1; i++)
		assert_true(abl[BURST].ratio[i] == base->ratio[i]);
	/* raising bounded by service (4.16+) narrows the dent without closing it */
	for (int i = 1; i < NMAX - 1; i++)
		assert_true(abl[MAXSERV].ratio[i] >= base->ratio[i]);
}

/*
 * What the 6.12 profile predicts for the same disk: printed, with the mechanism. With ll=0 it
 * matches 4.12. With ll=1 every busy queue is raised, so none is plugged for (c8765de0adfc) and
 * raised queues preempt each other (96a291c38c32): the streams' requests alternate on the disk,
 * and this hdd model does not read ahead while another command is queued, so each request pays
 * a seek. That number is the model's as much as the profile's (see the report).
 */
static void test_2017_modern_prediction(void **state)
{
	const struct series *m1 = &series[S_612_LL1], *m0 = &series[S_612_LL0];

	(void)state;
	need_series();
	printf("\n6.12 profile on the same disk, T(N)/T(1):\n  ll=1:");
	for (int i = 0; i < NMAX; i++)
		printf(" %.3f", m1->ratio[i]);
	printf("\n  ll=0:");
	for (int i = 0; i < NMAX; i++)
		printf(" %.3f", m0->ratio[i]);
	printf("\n  6.12 ll=1, N=2: idle timers %" PRIu64 ", preemptions %" PRIu64
	       ", soft-rt raisings %" PRIu64 ", stable merges %" PRIu64 "\n",
	       m1->c[1].st.idle_timer_armed, m1->c[1].st.preemptions,
	       m1->c[1].st.wr_started[BFQ_WR_SOFT_RT], m1->c[1].st.stable_merges);
	for (int i = 0; i < NMAX; i++)
		assert_true(m0->ratio[i] >= 0.8);
	/* no plugging while all are raised */
	assert_true(m1->c[1].st.idle_timer_armed < series[S_412_LL1].c[1].st.idle_timer_armed / 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_2017_dent_shape),
	    cmocka_unit_test(test_2017_dent_counters),
	    cmocka_unit_test(test_2017_ablation),
	    cmocka_unit_test(test_2017_modern_prediction),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
