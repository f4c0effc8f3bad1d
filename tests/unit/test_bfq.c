// SPDX-License-Identifier: GPL-2.0
/*
 * sched/bfq: mechanism-level checks of the BFQ policy in virtual time. Workloads run through
 * vsim (the block layer in MQ mode and the device models); the counters of struct bfq_stats
 * and the bfq_log lines of the queue's trace ring say what the policy did. A few tests drive
 * insert/dispatch/complete by hand where the order of events is the point (wakers, depth
 * limits, the B-WF2Q+ invariants under a random load).
 *
 * Profile switches (bfq_sw_*) are exercised here by mechanism where a counter shows them;
 * every switch is replayed in both positions against the kernel file's decision in
 * test_bfq_oracle.c (switch_cases[], which test_every_switch_has_a_case checks).
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
#include "bfq_switch_tests.h"
#include "bfq_internal.h"
#include "sched.h"
#include "support.h"
#include "vsim.h"

#define US 1000ull
#define MS 1000000ull
#define SEC 1000000000ull
#define KIB 1024ull
#define MIB (1024ull * 1024)
#define GIB (1024ull * MIB)

/* ---- a vsim run with BFQ's counters, queue snapshots and selected trace lines ---- */

#define RUN_MAX_JOBS 10
#define RUN_MAX_OWNERS 16
#define RUN_MAX_LINES 20000
#define RUN_LINE 160

struct run {
	struct vsim_config cfg;
	struct vsim_job job[RUN_MAX_JOBS];
	uint32_t nj;
	const char *keep[4];	/* trace lines containing one of these are kept */
	/* results */
	struct vsim_result res;
	bool have_res;
	struct bfq_stats st;
	struct bfq_params par;
	struct bfq_queue_info qi[RUN_MAX_OWNERS];
	double share[SCHED_MAX_GROUPS];
	char (*lines)[RUN_LINE];
	int nlines;
	uint64_t *line_ns;
};

static void run_set(struct run *r, const char *name, const char *value)
{
	char err[256] = "";

	if (sched_config_set_tunable(&r->cfg.sched, name, value, err, sizeof(err))) {
		print_error("%s=%s: %s\n", name, value, err);
		fail();
	}
}

static void run_init(struct run *r, enum devmodel_kind kind, const char *version)
{
	memset(r, 0, sizeof(*r));
	vsim_config_defaults(&r->cfg, SCHED_POLICY_BFQ, kind);
	r->cfg.runtime_ns = 5 * SEC;
	if (version)
		run_set(r, "bfq_version", version);
}

/* A job with vsim's defaults in its own 64 GiB region. */
static struct vsim_job *run_job(struct run *r, enum vsim_rw rw, uint32_t bs, uint32_t depth)
{
	struct vsim_job *j;

	assert_true(r->nj < RUN_MAX_JOBS);
	j = &r->job[r->nj];
	vsim_job_defaults(j);
	j->rw = rw;
	j->bs = bs;
	j->iodepth = depth;
	j->offset = (uint64_t)r->nj * 64 * GIB;
	j->size = 16 * GIB;
	r->nj++;
	return j;
}

static void run_trace(void *ctx, uint64_t now, const char *line)
{
	struct run *r = ctx;

	if (strncmp(line, "P ", 2) || r->nlines >= RUN_MAX_LINES)
		return;
	for (int k = 0; k < 4 && r->keep[k]; k++) {
		if (strstr(line, r->keep[k])) {
			snprintf(r->lines[r->nlines], RUN_LINE, "%s", line + 2);
			r->line_ns[r->nlines++] = now;
			return;
		}
	}
}

static void run_grab(const struct sched *s, void *ctx)
{
	struct run *r = ctx;
	const void *b = bfq_of(s);

	assert_non_null(b);
	r->st = *bfq_get_stats(b);
	r->par = *bfq_get_params(b);
	for (uint32_t o = 0; o < RUN_MAX_OWNERS && o < s->cfg.max_entities; o++)
		bfq_get_queue_info(b, o, &r->qi[o]);
	for (uint32_t g = 0; g < SCHED_MAX_GROUPS && g < s->cfg.max_groups; g++)
		r->share[g] = bfq_group_share(b, g);
	assert_true(bfq_wf2q_check(b));
}

static void run_go(struct run *r)
{
	char err[256] = "";

	r->cfg.jobs = r->job;
	r->cfg.nr_jobs = r->nj;
	r->cfg.at_end = run_grab;
	r->cfg.at_end_ctx = r;
	if (r->keep[0]) {
		r->lines = calloc(RUN_MAX_LINES, RUN_LINE);
		r->line_ns = calloc(RUN_MAX_LINES, sizeof(*r->line_ns));
		assert_non_null(r->lines);
		assert_non_null(r->line_ns);
		r->cfg.trace_fn = run_trace;
		r->cfg.trace_ctx = r;
		r->cfg.sched.trace_bytes = 4u << 20;
	}
	if (vsim_run(&r->cfg, &r->res, err, sizeof(err))) {
		print_error("vsim_run: %s\n", err);
		fail();
	}
	r->have_res = true;
	assert_false(r->res.stalled);
	assert_int_equal(r->res.submitted, r->res.completed + r->res.in_flight_at_end);
	/* A bio is inserted as a request or merged into a queued one. */
	assert_int_equal(r->res.sched.inserted + r->res.sched.bio_merged, r->res.submitted);
}

static void run_free(struct run *r)
{
	if (r->have_res)
		vsim_result_free(&r->res);
	free(r->lines);
	free(r->line_ns);
	r->have_res = false;
	r->lines = NULL;
	r->line_ns = NULL;
}

static int run_count(const struct run *r, const char *prefix, const char *needle)
{
	int c = 0;

	for (int i = 0; i < r->nlines; i++)
		if ((!prefix || !strncmp(r->lines[i], prefix, strlen(prefix))) &&
		    strstr(r->lines[i], needle))
			c++;
	return c;
}

static double mbps(const struct vsim_stats *s)
{
	return s->bw_bps / 1e6;
}

/* ---- configuration ---- */

static int64_t tunable_def(const char *name)
{
	const struct sched_policy_ops *ops = sched_policy_ops(SCHED_POLICY_BFQ);

	for (uint32_t i = 0; i < ops->nr_tunables; i++)
		if (!strcmp(ops->tunables[i].name, name))
			return ops->tunables[i].def;
	fail_msg("no tunable %s", name);
	return -1;
}

static int set_err(struct sched_config *cfg, const char *name, const char *value, char *err,
		   size_t len)
{
	err[0] = 0;
	return sched_config_set_tunable(cfg, name, value, err, len);
}

/* The sysfs names, units and defaults of block/bfq-iosched.c; what CFQ alone has is refused. */
static void test_bfq_tunables(void **state)
{
	const struct sched_policy_ops *ops = sched_policy_ops(SCHED_POLICY_BFQ);
	struct sched_config cfg;
	char err[256];
	uint32_t wmin, wmax, wdef;

	(void)state;
	assert_non_null(ops);
	assert_string_equal(ops->name, "bfq");
	assert_true(sched_policy_available(SCHED_POLICY_BFQ));
	assert_int_equal(ops->blk_mode, SCHED_BLK_MQ);
	assert_non_null(ops->limit_depth);

	assert_int_equal(tunable_def("slice_idle"), 8);
	assert_int_equal(tunable_def("slice_idle_us"), 8000);
	assert_int_equal(tunable_def("max_budget"), 0);
	assert_int_equal(tunable_def("timeout_sync"), 125);
	assert_int_equal(tunable_def("back_seek_max"), 16384);
	assert_int_equal(tunable_def("back_seek_penalty"), 2);
	assert_int_equal(tunable_def("fifo_expire_sync"), 125);
	assert_int_equal(tunable_def("fifo_expire_async"), 250);
	assert_int_equal(tunable_def("low_latency"), 1);
	assert_int_equal(tunable_def("strict_guarantees"), 0);
	assert_int_equal(tunable_def("bfq_version"), BFQ_VERSION_612);

	/* io.bfq.weight: 1..1000, default 100; CFQ keeps blkio.weight's 10..1000, 500. */
	sched_policy_weights(SCHED_POLICY_BFQ, &wmin, &wmax, &wdef);
	assert_int_equal(wmin, 1);
	assert_int_equal(wmax, 1000);
	assert_int_equal(wdef, 100);
	sched_policy_weights(SCHED_POLICY_CFQ, &wmin, &wmax, &wdef);
	assert_int_equal(wmin, 10);
	assert_int_equal(wdef, 500);

	sched_config_defaults(&cfg, SCHED_POLICY_BFQ);
	assert_int_equal(cfg.group_weight[0], 100);
	/* Tunables of the other policies are refused for sched=bfq. */
	assert_int_not_equal(set_err(&cfg, "quantum", "8", err, sizeof(err)), 0);
	test_assert_one_line(err);
	assert_non_null(strstr(err, "no such tunable"));
	assert_int_not_equal(set_err(&cfg, "group_idle", "8", err, sizeof(err)), 0);
	assert_int_not_equal(set_err(&cfg, "target_latency", "300", err, sizeof(err)), 0);
	assert_int_not_equal(set_err(&cfg, "writes_starved", "2", err, sizeof(err)), 0);
	assert_int_not_equal(set_err(&cfg, "fifo_batch", "16", err, sizeof(err)), 0);
	/* Ranges. */
	assert_int_not_equal(set_err(&cfg, "low_latency", "2", err, sizeof(err)), 0);
	test_assert_one_line(err);
	assert_int_not_equal(set_err(&cfg, "strict_guarantees", "-1", err, sizeof(err)), 0);
	assert_int_not_equal(set_err(&cfg, "slice_idle", "-1", err, sizeof(err)), 0);
	assert_int_not_equal(set_err(&cfg, "timeout_sync", "0", err, sizeof(err)), 0);
	assert_int_not_equal(set_err(&cfg, "back_seek_penalty", "0", err, sizeof(err)), 0);
	assert_int_not_equal(set_err(&cfg, "fifo_expire_sync", "x", err, sizeof(err)), 0);
	/* The profile takes kernel versions, and only those that are modelled. */
	assert_int_equal(set_err(&cfg, "bfq_version", "4.12", err, sizeof(err)), 0);
	assert_int_equal(set_err(&cfg, "bfq_version", "6.12", err, sizeof(err)), 0);
	assert_int_not_equal(set_err(&cfg, "bfq_version", "5.4", err, sizeof(err)), 0);
	test_assert_one_line(err);
	assert_non_null(strstr(err, "4.12"));
	assert_int_not_equal(set_err(&cfg, "bfq_version", "412x", err, sizeof(err)), 0);
	assert_int_equal(set_err(&cfg, "max_budget", "0", err, sizeof(err)), 0);
	assert_int_equal(set_err(&cfg, "max_budget", "4096", err, sizeof(err)), 0);
}

static const struct bfq_params *params_of(struct sched *s)
{
	const struct bfq_params *p = bfq_get_params(bfq_of(s));

	assert_non_null(p);
	return p;
}

/* slice_idle and slice_idle_us are one parameter; the one given wins, _us when both are. */
static void test_bfq_effective_params(void **state)
{
	struct sched_config cfg;
	struct sched *s;
	char err[256];

	(void)state;
	sched_config_defaults(&cfg, SCHED_POLICY_BFQ);
	s = test_sched_new(&cfg, 0);
	assert_int_equal(params_of(s)->slice_idle, 8 * MS);
	assert_int_equal(params_of(s)->fifo_expire[1], 125 * MS);
	assert_int_equal(params_of(s)->fifo_expire[0], 250 * MS);
	assert_int_equal(params_of(s)->user_max_budget, 0);
	assert_true(params_of(s)->low_latency);
	assert_int_equal(params_of(s)->version, BFQ_VERSION_612);
	test_sched_free(s);

	sched_config_defaults(&cfg, SCHED_POLICY_BFQ);
	assert_int_equal(set_err(&cfg, "slice_idle", "3", err, sizeof(err)), 0);
	s = test_sched_new(&cfg, 0);
	assert_int_equal(params_of(s)->slice_idle, 3 * MS);
	test_sched_free(s);

	assert_int_equal(set_err(&cfg, "slice_idle_us", "2500", err, sizeof(err)), 0);
	s = test_sched_new(&cfg, 0);
	assert_int_equal(params_of(s)->slice_idle, 2500 * US);
	test_sched_free(s);

	sched_config_defaults(&cfg, SCHED_POLICY_BFQ);
	assert_int_equal(set_err(&cfg, "strict_guarantees", "1", err, sizeof(err)), 0);
	assert_int_equal(set_err(&cfg, "max_budget", "2048", err, sizeof(err)), 0);
	s = test_sched_new(&cfg, 0);
	assert_true(params_of(s)->strict_guarantees);
	assert_int_equal(params_of(s)->user_max_budget, 2048);
	test_sched_free(s);
}

/* bfq_version sets every switch; a switch given on its own overrides the profile. */
static void test_bfq_profile_switches(void **state)
{
	struct sched_config cfg;
	struct sched *s;
	char err[256];

	(void)state;
	for (int v = 0; v < 2; v++) {
		sched_config_defaults(&cfg, SCHED_POLICY_BFQ);
		assert_int_equal(set_err(&cfg, "bfq_version", v ? "6.12" : "4.12", err,
					 sizeof(err)), 0);
		s = test_sched_new(&cfg, 0);
		assert_int_equal(params_of(s)->version, v ? BFQ_VERSION_612 : BFQ_VERSION_412);
		for (int i = 0; i < BFQ_SW_NR; i++)
			assert_int_equal(params_of(s)->sw[i], v);
		assert_true(params_of(s)->wr_fixed_budget);
		assert_true(params_of(s)->burst_detection);
		test_sched_free(s);

		/* Each switch alone, against the profile. */
		for (int i = 0; i < BFQ_SW_NR; i++) {
			sched_config_defaults(&cfg, SCHED_POLICY_BFQ);
			assert_int_equal(set_err(&cfg, "bfq_version", v ? "6.12" : "4.12", err,
						 sizeof(err)), 0);
			assert_int_equal(set_err(&cfg, bfq_switch_name(i), v ? "0" : "1", err,
						 sizeof(err)), 0);
			s = test_sched_new(&cfg, 0);
			for (int k = 0; k < BFQ_SW_NR; k++)
				assert_int_equal(params_of(s)->sw[k], k == i ? !v : v);
			test_sched_free(s);
		}
	}
	/* Every switch names the upstream change it stands for. */
	for (int i = 0; i < BFQ_SW_NR; i++) {
		assert_true(!strncmp(bfq_switch_name(i), "bfq_sw_", 7));
		assert_true(strlen(bfq_switch_commit(i)) > 20);
	}
	assert_non_null(strstr(bfq_switch_commit(BFQ_SW_NO_PLUG_ALL_RAISED), "c8765de0adfc"));
	assert_non_null(strstr(bfq_switch_commit(BFQ_SW_WAKERS), "13a857a4c4e8"));
	assert_non_null(strstr(bfq_switch_commit(BFQ_SW_STABLE_MERGE), "430a67f9d616"));

	/* Model knobs are off only when asked. */
	sched_config_defaults(&cfg, SCHED_POLICY_BFQ);
	assert_int_equal(set_err(&cfg, "bfq_model_wr_fixed_budget", "0", err, sizeof(err)), 0);
	assert_int_equal(set_err(&cfg, "bfq_model_burst", "0", err, sizeof(err)), 0);
	s = test_sched_new(&cfg, 0);
	assert_false(params_of(s)->wr_fixed_budget);
	assert_false(params_of(s)->burst_detection);
	test_sched_free(s);
}

/* ---- B-WF2Q+: weights ---- */

/*
 * Three sequential readers of equal demand with weights 1:2:4 get 1/7, 2/7, 4/7 of the
 * sectors, within 5%: once as ioprio levels 7, 6, 4 (weights 10, 20, 40) in one group, once as
 * groups of io.bfq.weight 100, 200, 400.
 */
static void test_bfq_weights_1_2_4(void **state)
{
	static const uint8_t level[3] = {7, 6, 4};
	static const uint16_t gw[3] = {100, 200, 400};

	(void)state;
	for (int mode = 0; mode < 2; mode++) {
		struct run r;
		double bytes[3], tot = 0;

		run_init(&r, DEVMODEL_HDD, NULL);
		run_set(&r, "low_latency", "0"); /* no raising: the weights alone */
		r.cfg.runtime_ns = 20 * SEC;
		for (int i = 0; i < 3; i++) {
			struct vsim_job *j = run_job(&r, VSIM_READ, 64 * 1024, 1);

			if (mode == 0) {
				j->prio_class = SCHED_IOPRIO_CLASS_BE;
				j->prio_level = level[i];
			} else {
				j->group = (uint32_t)i + 1;
				r.cfg.sched.group_weight[i + 1] = gw[i];
			}
		}
		run_go(&r);
		for (int i = 0; i < 3; i++) {
			bytes[i] = (double)r.res.job[i].bytes[0];
			tot += bytes[i];
		}
		print_message("weights 1:2:4 (%s): shares %.4f %.4f %.4f (ideal 0.1429 0.2857 "
			      "0.5714), %.1f MB/s\n", mode ? "groups 100/200/400" : "ioprio 7/6/4",
			      bytes[0] / tot, bytes[1] / tot, bytes[2] / tot,
			      mbps(&r.res.total));
		for (int i = 0; i < 3; i++) {
			double ideal = (double)(1 << i) / 7.0;

			assert_true(bytes[i] / tot > 0.95 * ideal && bytes[i] / tot < 1.05 * ideal);
			if (mode)
				assert_true(r.share[i + 1] > 0.95 * ideal &&
					    r.share[i + 1] < 1.05 * ideal);
		}
		print_message("  expirations: too_idle %" PRIu64 " budget_timeout %" PRIu64
			      " budget_exhausted %" PRIu64 " no_more_requests %" PRIu64 "\n",
			      r.st.expired[BFQ_EXP_TOO_IDLE], r.st.expired[BFQ_EXP_BUDGET_TIMEOUT],
			      r.st.expired[BFQ_EXP_BUDGET_EXHAUSTED],
			      r.st.expired[BFQ_EXP_NO_MORE_REQUESTS]);
		/* Service by budgets: most slots end with their budget used up (the rest at the
		 * budget timeout, as a slow queue is charged time). */
		assert_true(r.st.expired[BFQ_EXP_BUDGET_EXHAUSTED] >
			    r.st.expired[BFQ_EXP_BUDGET_TIMEOUT]);
		assert_true(r.st.expired[BFQ_EXP_BUDGET_EXHAUSTED] >= 50);
		run_free(&r);
	}
}

/* ---- budgets ---- */

struct feedback {
	int checked[BFQ_EXP_NR];	/* recalc_budg pairs that obeyed the rule, by reason */
	int fixed;			/* raised queues kept at 2 x min_budget */
	int async_max;			/* async queues set to the max budget */
	int grew, shrank;
};

/*
 * Checks every "recalc_budg" pair of the trace against __bfq_bfqq_recalc_budget(): for sync
 * queues too idle: x2 with requests in flight, else -4 x min (floor min); timeout: x2;
 * exhausted: x4; no more requests: what was used (at least min); never above the max budget.
 */
static void check_feedback(const struct run *r, struct feedback *f, bool expect_fixed)
{
	char prefix[32] = "";
	long last = -1, minb = 0, maxb = 0, service = 0, disp = 0;

	memset(f, 0, sizeof(*f));
	for (int i = 0; i < r->nlines; i++) {
		const char *l = r->lines[i], *p = strstr(l, "recalc_budg: ");
		long reason, newmax, budget, expect;
		size_t plen = (size_t)(strchr(l, ' ') - l);

		if (!p)
			continue;
		if (sscanf(p, "recalc_budg: last max_budg %ld, min budg %ld, max budg %ld, "
			   "service %ld, disp %ld", &last, &minb, &maxb, &service, &disp) == 5) {
			snprintf(prefix, sizeof(prefix), "%.*s", (int)plen, l);
			continue;
		}
		assert_int_equal(sscanf(p, "recalc_budg: reason %ld, new max_budget %ld, budget "
					"%ld", &reason, &newmax, &budget), 3);
		assert_true(last >= 0);
		assert_true(!strncmp(l, prefix, strlen(prefix)));
		assert_true(reason >= 0 && reason < BFQ_EXP_NR);
		if (prefix[0] && prefix[strlen(prefix) - 1] == 'A') { /* bfq<pid>A: async */
			assert_int_equal(newmax, maxb);
			f->async_max++;
		} else if (expect_fixed && last == 2 * minb && newmax == last) {
			f->fixed++;
		} else {
			switch (reason) {
			case BFQ_EXP_TOO_IDLE:
				expect = disp > 0 ? 2 * last : last > 5 * minb ? last - 4 * minb
									  : minb;
				break;
			case BFQ_EXP_BUDGET_TIMEOUT:
				expect = 2 * last;
				break;
			case BFQ_EXP_BUDGET_EXHAUSTED:
				expect = 4 * last;
				break;
			case BFQ_EXP_NO_MORE_REQUESTS:
				expect = service > minb ? service : minb;
				break;
			default:
				fail_msg("no feedback expected for reason %ld", reason);
				return;
			}
			if (expect > maxb && reason != BFQ_EXP_NO_MORE_REQUESTS)
				expect = maxb;
			if (newmax != expect && !(newmax == maxb && expect > maxb)) {
				print_error("%s: reason %ld last %ld min %ld max %ld service %ld "
					    "disp %ld -> %ld, expected %ld\n", prefix, reason, last,
					    minb, maxb, service, disp, newmax, expect);
				fail();
			}
			f->checked[reason]++;
			f->grew += newmax > last;
			f->shrank += newmax < last;
		}
		/* The next slot's budget covers at least the next request. */
		assert_true(budget >= newmax || budget > 0);
		last = -1;
	}
}

static void budget_run(struct run *r, const char *what, struct feedback *f, bool fixed)
{
	r->keep[0] = "recalc_budg";
	run_go(r);
	check_feedback(r, f, fixed);
	print_message("%-34s expired too_idle %" PRIu64 " timeout %" PRIu64 " exhausted %"
		      PRIu64 " no_more %" PRIu64 " preempted %" PRIu64 "; checked %d %d %d %d, "
		      "fixed %d, async %d; budget min %" PRId64 " mean %.0f max %" PRId64
		      " (max_budget %d)\n", what, r->st.expired[0], r->st.expired[1],
		      r->st.expired[2], r->st.expired[3], r->st.expired[4], f->checked[0],
		      f->checked[1], f->checked[2], f->checked[3], f->fixed, f->async_max,
		      r->st.budget_min,
		      r->st.budgets_assigned ? (double)r->st.budget_sum /
						       (double)r->st.budgets_assigned : 0.0,
		      r->st.budget_max, r->st.max_budget);
}

/* Each expiration reason's budget feedback, on the workload that produces it. */
static void test_bfq_budget_feedback(void **state)
{
	struct run r;
	struct feedback f;
	struct vsim_job *j;

	(void)state;
	/* A greedy sequential reader exhausts its budgets: x4 up to the max. */
	run_init(&r, DEVMODEL_HDD, NULL);
	run_set(&r, "low_latency", "0");
	run_job(&r, VSIM_READ, 128 * 1024, 1);
	budget_run(&r, "sequential reader (exhausted)", &f, false);
	assert_true(f.checked[BFQ_EXP_BUDGET_EXHAUSTED] > 10);
	assert_true(f.grew > 0);
	assert_int_equal(r.st.max_budget, r.qi[0].max_budget);
	run_free(&r);

	/* A deep random reader on the disk cannot use its budget in timeout_sync: x2. */
	run_init(&r, DEVMODEL_HDD, NULL);
	run_set(&r, "low_latency", "0");
	run_job(&r, VSIM_RANDREAD, 4096, 8);
	run_job(&r, VSIM_READ, 128 * 1024, 1);
	budget_run(&r, "deep random reader (timeout)", &f, false);
	assert_true(f.checked[BFQ_EXP_BUDGET_TIMEOUT] > 3);
	assert_true(r.st.charged_time > 0); /* slow queues pay in time */
	run_free(&r);

	/*
	 * A lone reader thinking 20 ms (> slice_idle): the device idles for it (a single busy
	 * queue needs it for its guarantees) and the timer fires: shrink.
	 */
	run_init(&r, DEVMODEL_HDD, NULL);
	run_set(&r, "low_latency", "0");
	j = run_job(&r, VSIM_READ, 64 * 1024, 1);
	j->thinktime_us = 20000;
	budget_run(&r, "thinking reader (too idle)", &f, false);
	assert_true(f.checked[BFQ_EXP_TOO_IDLE] > 10);
	assert_true(f.shrank > 0);
	assert_true(r.st.idle_timer_fired > 10);
	run_free(&r);

	/* No idling (slice_idle=0): a queue that empties gets what it used. */
	run_init(&r, DEVMODEL_HDD, NULL);
	run_set(&r, "low_latency", "0");
	run_set(&r, "slice_idle", "0");
	j = run_job(&r, VSIM_READ, 64 * 1024, 1);
	j->thinktime_us = 1000;
	run_job(&r, VSIM_RANDREAD, 4096, 1);
	budget_run(&r, "slice_idle=0 (no more requests)", &f, false);
	assert_true(f.checked[BFQ_EXP_NO_MORE_REQUESTS] > 10);
	assert_int_equal(r.st.idle_timer_armed, 0);
	run_free(&r);

	/* Async queues always get the max budget. */
	run_init(&r, DEVMODEL_HDD, NULL);
	run_set(&r, "low_latency", "0");
	j = run_job(&r, VSIM_WRITE, 64 * 1024, 4);
	j->direct = false;
	run_job(&r, VSIM_READ, 64 * 1024, 1);
	budget_run(&r, "buffered writer + reader (async)", &f, false);
	assert_true(f.async_max > 3);
	run_free(&r);

	/* Raised queues keep 2 x min_budget (both profiles); the model knob gives them feedback. */
	for (int knob = 1; knob >= 0; knob--) {
		run_init(&r, DEVMODEL_HDD, "4.12");
		run_set(&r, "bfq_model_wr_fixed_budget", knob ? "1" : "0");
		run_job(&r, VSIM_READ, 4096, 1);
		run_job(&r, VSIM_READ, 4096, 1);
		budget_run(&r, knob ? "raised readers (fixed)" : "raised readers (knob off)", &f,
			   true);
		if (knob) {
			assert_true(f.fixed > 100);
			assert_int_equal(f.checked[BFQ_EXP_BUDGET_EXHAUSTED], 0);
		} else {
			assert_true(f.checked[BFQ_EXP_BUDGET_EXHAUSTED] > 3);
			assert_true(f.grew > 0);
		}
		run_free(&r);
	}
}

/* ---- weight raising ---- */

/* Time (ns) of the first kept line containing needle, or 0. */
static uint64_t run_first(const struct run *r, const char *needle, const char **line)
{
	for (int i = 0; i < r->nlines; i++)
		if (strstr(r->lines[i], needle)) {
			if (line)
				*line = r->lines[i];
			return r->line_ns[i];
		}
	return 0;
}

/*
 * Interactive raising: a new queue starts raised (x30) for a duration from the peak rate;
 * with max_service_from_wr (8a8747dc01ce) a greedy queue loses it after 120000 sectors,
 * without it raising runs its time out.
 */
static void test_bfq_wr_interactive(void **state)
{
	struct run r;
	const char *l = NULL;
	uint64_t t_start, t_end;
	long long dur_ms = 0;

	(void)state;
	/* switch on: ended by service, after about 120000 sectors (~60 MB) */
	run_init(&r, DEVMODEL_HDD, NULL);
	r.keep[0] = "wr start";
	r.keep[1] = "end_wr";
	run_job(&r, VSIM_READ, 128 * 1024, 1);
	run_go(&r);
	t_start = run_first(&r, "wr start: interactive", NULL);
	t_end = run_first(&r, "end_wr: max_service_from_wr", NULL);
	print_message("6.12 greedy reader: raised at %.3f s, raising ended by service at %.3f s "
		      "(%.0f MB/s)\n", (double)t_start / 1e9, (double)t_end / 1e9,
		      mbps(&r.res.total));
	assert_int_equal(r.st.wr_started[BFQ_WR_INTERACTIVE], 1);
	assert_int_equal(r.st.wr_ended[BFQ_WR_END_SERVICE], 1);
	assert_true(t_end > t_start);
	/* 120000 sectors at the disk's rate, with some slack for the start */
	assert_true((double)(t_end - t_start) / 1e9 < 3 * 61.44 / mbps(&r.res.total));
	assert_int_equal(r.qi[0].wr_coeff, 1);
	run_free(&r);

	/* switch off: still raised after 5 s; ended by time when the duration has passed */
	for (int len = 0; len < 2; len++) {
		run_init(&r, DEVMODEL_HDD, NULL);
		run_set(&r, "bfq_sw_max_service_from_wr", "0");
		r.keep[0] = "wr start";
		r.keep[1] = "end_wr";
		r.cfg.runtime_ns = len ? 30 * SEC : 5 * SEC;
		run_job(&r, VSIM_READ, 128 * 1024, 1);
		run_go(&r);
		t_start = run_first(&r, "wr start: interactive", &l);
		assert_non_null(l);
		assert_int_equal(sscanf(strstr(l, "dur "), "dur %lld ms", &dur_ms), 1);
		assert_true(dur_ms >= 3000 && dur_ms <= 25000);
		assert_int_equal(r.st.wr_ended[BFQ_WR_END_SERVICE], 0);
		if (!len) {
			assert_int_equal(r.qi[0].wr_coeff, 30);
			assert_int_equal(r.qi[0].wr_cur_max_time_ms, dur_ms);
			assert_int_equal(r.st.wr_ended[BFQ_WR_END_TIME], 0);
		} else {
			t_end = run_first(&r, "end_wr: time", NULL);
			print_message("max_service_from_wr off: raised at %.3f s for %lld ms, ended "
				      "by time at %.3f s\n", (double)t_start / 1e9, dur_ms,
				      (double)t_end / 1e9);
			assert_int_equal(r.st.wr_ended[BFQ_WR_END_TIME], 1);
			assert_int_equal(r.qi[0].wr_coeff, 1);
			/* checked on expirations: at the first one past the duration */
			assert_true(t_end >= t_start + (uint64_t)dur_ms * MS);
			assert_true(t_end < t_start + (uint64_t)dur_ms * MS + 1 * SEC);
		}
		run_free(&r);
	}

	/* low_latency=0: nobody is raised */
	run_init(&r, DEVMODEL_HDD, NULL);
	run_set(&r, "low_latency", "0");
	run_job(&r, VSIM_READ, 128 * 1024, 1);
	run_job(&r, VSIM_RANDREAD, 4096, 1)->thinktime_us = 50000;
	run_go(&r);
	assert_int_equal(r.st.wr_started[BFQ_WR_INTERACTIVE] + r.st.wr_started[BFQ_WR_SOFT_RT], 0);
	run_free(&r);
}

/*
 * The raising duration follows the estimated peak rate: 6.12 clamps it to 3..25 s with one
 * reference pair per device kind; 4.12 clamps to 3..13 s and has slow and fast device classes
 * (bfq_sw_wr_duration in both positions).
 */
static void test_bfq_wr_duration(void **state)
{
	static const enum devmodel_kind kinds[3] = {DEVMODEL_HDD, DEVMODEL_SSD, DEVMODEL_HDD};
	static const char *const names[3] = {"hdd", "ssd", "hdd at 40 MB/s"};
	long long dur[3][2];

	(void)state;
	for (int k = 0; k < 3; k++) {
		for (int sw = 0; sw < 2; sw++) {
			struct run r;

			run_init(&r, kinds[k], NULL);
			if (k == 2)
				r.cfg.dev.hdd.media_mbps = 40;
			run_set(&r, "bfq_sw_wr_duration", sw ? "1" : "0");
			run_set(&r, "bfq_sw_max_service_from_wr", "0");
			r.cfg.runtime_ns = 5 * SEC;
			/* the peak rate is estimated by the first; the second is raised after */
			run_job(&r, VSIM_READ, 128 * 1024, 1);
			run_job(&r, VSIM_READ, 128 * 1024, 1)->startdelay_ns = 4 * SEC;
			r.keep[0] = "wr start: interactive";
			run_go(&r);
			assert_true(r.st.peak_rate_updates > 0);
			assert_int_equal(run_count(&r, "bfq1S", "wr start"), 1);
			for (int i = 0; i < r.nlines; i++)
				if (!strncmp(r.lines[i], "bfq1S", 5))
					assert_int_equal(sscanf(strstr(r.lines[i], "dur "),
								"dur %lld ms", &dur[k][sw]), 1);
			assert_true(dur[k][sw] >= 3000);
			assert_true(dur[k][sw] <= (sw ? 25000 : 13000));
			run_free(&r);
		}
		print_message("%s: raising lasts %lld ms (4.12) / %lld ms (6.12)\n", names[k],
			      dur[k][0], dur[k][1]);
	}
	/* the slower device raises longer; past 13 s only the 6.12 profile follows it */
	assert_true(dur[0][1] > dur[1][1]);
	assert_true(dur[2][1] > dur[0][1]);
	assert_true(dur[2][1] > 13000);
	assert_int_equal(dur[2][0], 13000);
}

/*
 * Soft real-time raising: a reader issuing a little I/O at a steady low rate (4 KiB every
 * 50 ms, far below bfq_wr_max_softrt_rate) next to a greedy reader is raised x100 as soft rt.
 */
static void test_bfq_wr_soft_rt(void **state)
{
	for (int ll = 1; ll >= 0; ll--) {
		struct run r;
		struct vsim_job *j;

		(void)state;
		run_init(&r, DEVMODEL_HDD, NULL);
		run_set(&r, "low_latency", ll ? "1" : "0");
		r.cfg.runtime_ns = 10 * SEC;
		run_job(&r, VSIM_READ, 128 * 1024, 1);
		j = run_job(&r, VSIM_READ, 4096, 1);
		j->thinktime_us = 50000;
		j->startdelay_ns = 500 * MS;
		run_go(&r);
		print_message("low_latency=%d: soft-rt raisings %" PRIu64 ", interactive %" PRIu64
			      "; periodic reader mean latency %.2f ms (max %.2f)\n", ll,
			      r.st.wr_started[BFQ_WR_SOFT_RT], r.st.wr_started[BFQ_WR_INTERACTIVE],
			      r.res.job[1].lat.mean_ns / 1e6, (double)r.res.job[1].lat.max_ns / 1e6);
		if (ll) {
			assert_true(r.st.wr_started[BFQ_WR_SOFT_RT] >= 1);
			assert_int_equal(r.qi[1].wr_coeff, 30 * 100);
		} else {
			assert_int_equal(r.st.wr_started[BFQ_WR_SOFT_RT], 0);
			assert_int_equal(r.qi[1].wr_coeff, 1);
		}
		run_free(&r);
	}
}

/* ---- burst detection ---- */

static void burst_run(struct run *r, const char *version, uint32_t n, uint64_t spacing_ns,
		      bool knob)
{
	run_init(r, DEVMODEL_HDD, version);
	if (!knob)
		run_set(r, "bfq_model_burst", "0");
	r->cfg.runtime_ns = 2 * SEC;
	for (uint32_t i = 0; i < n; i++)
		run_job(r, VSIM_READ, 64 * 1024, 1)->startdelay_ns = i * spacing_ns;
	run_go(r);
	print_message("%s, %u queues %3.0f ms apart%s: large bursts %" PRIu64 ", marked %" PRIu64
		      ", raised %" PRIu64 ", raising ended by the burst %" PRIu64 "\n", version, n,
		      (double)spacing_ns / 1e6, knob ? "" : " (burst knob off)",
		      r->st.bursts_large, r->st.burst_marked, r->st.wr_started[BFQ_WR_INTERACTIVE],
		      r->st.wr_ended[BFQ_WR_END_BURST]);
}

/*
 * Queues created within bfq_burst_interval (180 ms) of each other form a burst; at
 * bfq_large_burst_thresh (8) queues it is large: all of them are marked and lose (or never
 * get) weight raising. 7 queues, or 8 created 200 ms apart, are no large burst.
 */
static void test_bfq_burst(void **state)
{
	static const char *const versions[2] = {"4.12", "6.12"};
	struct run r;

	(void)state;
	for (int v = 0; v < 2; v++) {
		burst_run(&r, versions[v], 8, 10 * MS, true);
		assert_int_equal(r.st.bursts_large, 1);
		assert_int_equal(r.st.burst_marked, 8);
		for (int o = 0; o < 8; o++)
			assert_true(r.qi[o].in_large_burst || r.qi[o].shared);
		/* the first ones were raised, and lost it when the burst became large */
		assert_int_equal(r.st.wr_ended[BFQ_WR_END_BURST], 7);
		for (int o = 0; o < 8; o++)
			assert_int_equal(r.qi[o].wr_coeff, 1);
		run_free(&r);

		burst_run(&r, versions[v], 7, 10 * MS, true);
		assert_int_equal(r.st.bursts_large, 0);
		assert_int_equal(r.st.burst_marked, 0);
		assert_int_equal(r.st.wr_ended[BFQ_WR_END_BURST], 0);
		run_free(&r);

		burst_run(&r, versions[v], 8, 200 * MS, true);
		assert_int_equal(r.st.bursts_large, 0);
		assert_int_equal(r.st.burst_marked, 0);
		run_free(&r);

		burst_run(&r, versions[v], 8, 10 * MS, false);
		assert_int_equal(r.st.bursts_large, 0);
		assert_int_equal(r.st.burst_marked, 0);
		assert_int_equal(r.st.wr_ended[BFQ_WR_END_BURST], 0);
		run_free(&r);
	}
}

/*
 * A process exit in a burst: eight queues created 10 ms apart, the first two of processes that
 * exit after one request. 4.14's "decrease burst size when queues in burst exit" would take them
 * out of the burst's count; but 6.12 clears bfqq->bic in bic_set_bfqq() before bfq_exit_bfqq()
 * puts the queue, so its decrement (which needs bfqq->bic) never runs at an exit, and 4.12 had
 * none: in both the eighth queue makes the burst large, and the six queues left are marked.
 * (vsim ends a clone's process when it has issued its number_ios, as the engine does when fio's
 * job closes.)
 */
static void test_bfq_burst_exit(void **state)
{
	static const char *const versions[2] = {"4.12", "6.12"};
	struct run r;

	(void)state;
	for (int v = 0; v < 2; v++) {
		run_init(&r, DEVMODEL_HDD, versions[v]);
		r.cfg.runtime_ns = 2 * SEC;
		for (uint32_t i = 0; i < 8; i++) {
			struct vsim_job *j = run_job(&r, VSIM_READ, 64 * 1024, 1);

			j->startdelay_ns = i * 10 * MS;
			if (i < 2)
				j->number_ios = 1;
		}
		run_go(&r);
		print_message("%s, 2 of 8 processes exit: large bursts %" PRIu64 ", marked %" PRIu64
			      "\n",
			      versions[v], r.st.bursts_large, r.st.burst_marked);
		assert_int_equal(r.st.bursts_large, 1);
		assert_int_equal(r.st.burst_marked, 6);
		run_free(&r);
	}
}


/* ---- idling ---- */

/* Idle-timer lengths (us) logged by bfq_arm_slice_timer() for lines starting with prefix. */
static int arm_count(const struct run *r, const char *prefix, unsigned long us)
{
	char needle[48];

	snprintf(needle, sizeof(needle), "arm idle: %lu us", us);
	return run_count(r, prefix, needle);
}

/*
 * bfq_better_to_idle(): on an SSD two equal random readers are a symmetric scenario and the
 * device is never idled for them (no throughput to gain, no guarantee to keep); give them
 * different weights and the heavier one is idled for, to keep its share (the lightest is not:
 * "do not idle for lowest-weight queues"). The second reader starts 300 ms later, past the
 * burst interval, or the two would be stably merged at once on a flash device.
 */
static void test_bfq_idling_symmetric_asymmetric(void **state)
{
	struct run r;
	uint64_t armed[2];
	double share[2];

	(void)state;
	for (int asym = 0; asym < 2; asym++) {
		run_init(&r, DEVMODEL_SSD, NULL);
		run_set(&r, "low_latency", "0");
		for (int i = 0; i < 2; i++) {
			struct vsim_job *j = run_job(&r, VSIM_RANDREAD, 4096, 1);

			j->prio_class = SCHED_IOPRIO_CLASS_BE;
			j->prio_level = asym && i == 0 ? 0 : 4;
			j->startdelay_ns = i * 300 * MS;
		}
		r.keep[0] = "arm idle";
		run_go(&r);
		/* timers armed once both are busy (alone, a queue is idled for) */
		armed[asym] = 0;
		for (int i = 0; i < r.nlines; i++)
			armed[asym] += r.line_ns[i] > 310 * MS;
		share[asym] = (double)r.res.job[0].bytes[0] /
			      (double)(r.res.job[0].bytes[0] + r.res.job[1].bytes[0]);
		print_message("ssd, 2 random readers, %s: idle timer armed %" PRIu64 " (with both "
			      "busy), reader 0 "
			      "share %.3f, %.0f IOPS\n",
			      asym ? "weights 80:40 (asymmetric)" : "equal (symmetric)",
			      armed[asym], share[asym], r.res.total.iops);
		assert_int_equal(r.st.merges, 0);
		run_free(&r);
	}
	assert_int_equal(armed[0], 0);
	assert_true(armed[1] > 1000);
	assert_true(share[0] > 0.45 && share[0] < 0.55);
	assert_true(share[1] > 0.6); /* weight 80 vs 40 */
}

/*
 * bfq_arm_slice_timer() variants: a seeky queue in a symmetric scenario idles at most
 * BFQ_MIN_TT (2 ms); a raised queue at least 20 ms (778c02a236a8, bfq_sw_wr_idle_20ms: off, the
 * plain slice_idle of 8 ms).
 */
static void test_bfq_idle_timer_variants(void **state)
{
	struct run r;

	(void)state;
	/*
	 * A lone queue is idled for (a single busy queue needs it for its guarantees): seeky, it
	 * waits BFQ_MIN_TT; sequential, slice_idle.
	 */
	for (int seq = 0; seq < 2; seq++) {
		run_init(&r, DEVMODEL_HDD, NULL);
		run_set(&r, "low_latency", "0");
		r.keep[0] = "arm idle";
		run_job(&r, seq ? VSIM_READ : VSIM_RANDREAD, 4096, 1)->thinktime_us = 10000;
		run_go(&r);
		print_message("hdd, a lone %s reader thinking 10 ms: %d timers of 2 ms, %d of 8 ms\n",
			      seq ? "sequential" : "random", arm_count(&r, NULL, 2000),
			      arm_count(&r, NULL, 8000));
		assert_true(arm_count(&r, NULL, seq ? 8000 : 2000) > 100);
		/* seeky once more than 19 of its last 32 requests were seeks (6.x threshold) */
		assert_true(arm_count(&r, NULL, seq ? 2000 : 8000) <= (seq ? 0 : 19));
		run_free(&r);
	}

	/* a raised sequential reader (started late) beside a non-raised one: 20 ms / 8 ms */
	for (int sw = 1; sw >= 0; sw--) {
		run_init(&r, DEVMODEL_HDD, NULL);
		run_set(&r, "bfq_sw_wr_idle_20ms", sw ? "1" : "0");
		run_set(&r, "bfq_sw_max_service_from_wr", "0");
		r.keep[0] = "arm idle";
		r.cfg.runtime_ns = 6 * SEC;
		run_job(&r, VSIM_READ, 64 * 1024, 1)->thinktime_us = 3000;
		run_job(&r, VSIM_READ, 64 * 1024, 1)->startdelay_ns = 5 * SEC;
		run_go(&r);
		print_message("bfq_sw_wr_idle_20ms=%d: raised queue timers 20 ms %d, 8 ms %d\n", sw,
			      arm_count(&r, "bfq1S", 20000), arm_count(&r, "bfq1S", 8000));
		assert_true(r.qi[1].wr_coeff > 1);
		assert_true(arm_count(&r, "bfq1S", sw ? 20000 : 8000) > 10);
		assert_int_equal(arm_count(&r, "bfq1S", sw ? 8000 : 20000), 0);
		run_free(&r);
	}
}

/*
 * When the queue runs after a completion (blk/blk.h, BLK_KBLOCKD_NS). Two sequential 64 KiB
 * readers at QD1 in groups of weight 100 and 300 (one level, as the kernel's cgroups under the
 * root), low_latency=1, on the hdd model: both weight-raised. blk-mq does not run the queue
 * where a request completes: bfq_completed_request() asks kblockd for a run only when it does
 * not idle, so the reader's next submission runs it, with that request queued: bfq has nothing
 * to inject and the w300 queue stays busy, so it never preempts. Run at the completion instead
 * (kblockd_ns 0, the legacy block layer's timing), the idling w100 queue gets the w300 request
 * injected, the w300 queue preempts it on its next arrival and every switch is a seek: a tenth
 * of the throughput (the kernel's bfq on the model-backed device: 301:889 IOPS, docs/models.md,
 * "Cross-check findings", the bfq two groups).
 */
static void test_bfq_run_after_completion(void **state)
{
	double iops[2][2];
	uint64_t preempted[2];

	(void)state;
	for (int mode = 0; mode < 2; mode++) {
		struct run r;

		run_init(&r, DEVMODEL_HDD, NULL);
		r.cfg.runtime_ns = 4 * SEC;
		if (mode == 0)
			r.cfg.kblockd_ns = 0;
		for (int i = 0; i < 2; i++) {
			struct vsim_job *j = run_job(&r, VSIM_READ, 64 * 1024, 1);

			j->group = (uint32_t)i + 1;
			r.cfg.sched.group_weight[i + 1] = i ? 300 : 100;
		}
		run_go(&r);
		for (int i = 0; i < 2; i++)
			iops[mode][i] = (double)r.res.job[i].dir[VSIM_DIR_READ].n / 4.0;
		preempted[mode] = r.st.expired[BFQ_EXP_PREEMPTED];
		run_free(&r);
	}
	print_message("two groups 100:300, low_latency=1, 4 s: run at completion %.1f:%.1f IOPS "
		      "(%" PRIu64 " preemptions); kblockd's run %.1f:%.1f (%" PRIu64 ")\n",
		      iops[0][0], iops[0][1], preempted[0], iops[1][0], iops[1][1], preempted[1]);
	assert_true(iops[1][0] + iops[1][1] > 5 * (iops[0][0] + iops[0][1]));
	assert_true(preempted[0] > 100 && preempted[1] < preempted[0] / 10);
	/* the weights still hold: about 1:3 of the service either way */
	for (int mode = 0; mode < 2; mode++)
		assert_true(iops[mode][1] > 2 * iops[mode][0] && iops[mode][1] < 4 * iops[mode][0]);
}

/* ---- injection and wakers ---- */

/*
 * I/O injection (5.2, bfq_sw_injection): while the device is plugged for a sequential reader
 * with short think times, a low-weight random reader's requests are dispatched into the idle
 * device instead of waiting for its own turn.
 */
static void test_bfq_injection(void **state)
{
	double light_iops[2], heavy_iops[2];
	uint64_t injected[2];

	(void)state;
	for (int sw = 0; sw < 2; sw++) {
		struct run r;
		struct vsim_job *j;

		run_init(&r, DEVMODEL_SSD, NULL);
		run_set(&r, "low_latency", "0");
		run_set(&r, "bfq_sw_injection", sw ? "1" : "0");
		j = run_job(&r, VSIM_READ, 4096, 1);
		j->thinktime_us = 1000;
		j->prio_class = SCHED_IOPRIO_CLASS_BE;
		j->prio_level = 0;
		j = run_job(&r, VSIM_RANDREAD, 4096, 4);
		j->prio_class = SCHED_IOPRIO_CLASS_BE;
		j->prio_level = 7;
		j->startdelay_ns = 300 * MS;
		run_go(&r);
		injected[sw] = r.st.injected;
		heavy_iops[sw] = r.res.job[0].iops;
		light_iops[sw] = r.res.job[1].iops;
		print_message("bfq_sw_injection=%d: injected %" PRIu64 ", idle timers %" PRIu64
			      "; plugged reader %.0f IOPS, random reader %.0f IOPS\n", sw,
			      injected[sw], r.st.idle_timer_armed, heavy_iops[sw], light_iops[sw]);
		run_free(&r);
	}
	assert_int_equal(injected[0], 0);
	assert_true(injected[1] > 1000);
	/* the injected reader gets the idle device; the plugged one keeps its pace */
	assert_true(light_iops[1] > 10 * light_iops[0]);
	assert_true(heavy_iops[1] > 0.9 * heavy_iops[0]);
}

/* ---- a hand-driven queue, for exact event orders ---- */

#define H_IOS 64

struct hand {
	struct sched *s;
	uint64_t now;
	struct sched_request rq[H_IOS];
	bool busy[H_IOS];
	bool dispatched[H_IOS];
};

static void hand_init(struct hand *h, bool rotational, const char *const *tunables)
{
	struct sched_config cfg;
	char err[256];

	memset(h, 0, sizeof(*h));
	sched_config_defaults(&cfg, SCHED_POLICY_BFQ);
	cfg.rotational = rotational;
	cfg.hw_queue_depth = 32;
	cfg.max_entities = 16;
	cfg.max_groups = 4;
	cfg.trace_bytes = 1u << 20;
	for (int i = 0; tunables && tunables[i]; i += 2)
		assert_int_equal(set_err(&cfg, tunables[i], tunables[i + 1], err, sizeof(err)), 0);
	h->now = 1 * SEC;
	h->s = test_sched_new(&cfg, h->now);
}

static struct sched_request *hand_insert_g(struct hand *h, uint32_t owner, uint32_t group,
					   enum sched_op op, uint8_t flags, uint64_t offset)
{
	for (int i = 0; i < H_IOS; i++) {
		if (h->busy[i])
			continue;
		test_rq_init(&h->rq[i], owner, op, flags, offset, 4096);
		h->rq[i].group = group;
		h->busy[i] = true;
		h->dispatched[i] = false;
		assert_int_equal(sched_insert(h->s, &h->rq[i], h->now), 0);
		return &h->rq[i];
	}
	fail();
	return NULL;
}

/* Dispatches what the policy gives now; runs its timer when due by `until`. */
static struct sched_request *hand_insert(struct hand *h, uint32_t owner, enum sched_op op,
					 uint8_t flags, uint64_t offset)
{
	return hand_insert_g(h, owner, 0, op, flags, offset);
}

static int hand_dispatch(struct hand *h, uint64_t until)
{
	struct sched_request *rq;
	int n = 0;

	for (;;) {
		while ((rq = sched_dispatch(h->s, h->now))) {
			h->dispatched[rq - h->rq] = true;
			n++;
		}
		if (n || sched_next_timer(h->s) > until)
			return n;
		h->now = sched_next_timer(h->s);
		sched_run_timer(h->s, h->now);
	}
}

static void hand_complete(struct hand *h, struct sched_request *rq)
{
	assert_true(h->dispatched[rq - h->rq]);
	sched_completed(h->s, rq, h->now);
	h->busy[rq - h->rq] = false;
}

static void hand_free(struct hand *h)
{
	assert_true(bfq_wf2q_check(bfq_of(h->s)));
	test_sched_free(h->s);
}

/*
 * Waker detection (13a857a4c4e8, bfq_sw_wakers): a queue whose new I/O keeps arriving right
 * after another queue's I/O completes (here: 100 us later, while its own think time is 19 ms)
 * is woken by that queue; three times in a row make it its waker.
 */
static void test_bfq_waker_detection(void **state)
{
	(void)state;
	for (int sw = 1; sw >= 0; sw--) {
		const char *tun[] = {"bfq_sw_wakers", sw ? "1" : "0", "low_latency", "0", NULL};
		struct bfq_queue_info qi;
		struct hand h;

		hand_init(&h, false, tun);
		/*
		 * Owner 1 alone for 300 ms, then owner 2 too (past the burst interval: queues
		 * created together on flash would be stably merged at once).
		 */
		for (int i = 0; i < 30; i++) {
			struct sched_request *w, *q;
			uint64_t t0 = h.now;

			/* both think 19 ms: neither has a short think time */
			w = hand_insert(&h, 1, SCHED_OP_READ, SCHED_RQ_SYNC, (uint64_t)i * 4096);
			assert_int_equal(hand_dispatch(&h, UINT64_MAX), 1);
			h.now += 1 * MS;
			hand_complete(&h, w);
			if (i >= 15) {
				h.now += 100 * US;
				q = hand_insert(&h, 2, SCHED_OP_READ, SCHED_RQ_SYNC,
						100 * GIB + (uint64_t)i * 1 * MIB);
				assert_int_equal(hand_dispatch(&h, UINT64_MAX), 1);
				assert_true(h.dispatched[q - h.rq]);
				h.now += 1 * MS;
				hand_complete(&h, q);
			}
			assert_true(h.now < t0 + 20 * MS);
			h.now = t0 + 20 * MS;
		}
		assert_int_equal(bfq_get_stats(bfq_of(h.s))->merges, 0);
		bfq_get_queue_info(bfq_of(h.s), 2, &qi);
		print_message("bfq_sw_wakers=%d: wakers detected %" PRIu64 ", waker of owner 2: %d\n",
			      sw, bfq_get_stats(bfq_of(h.s))->wakers_detected, qi.waker_owner);
		if (sw) {
			assert_true(bfq_get_stats(bfq_of(h.s))->wakers_detected >= 1);
			assert_int_equal(qi.waker_owner, 1);
		} else {
			assert_int_equal(bfq_get_stats(bfq_of(h.s))->wakers_detected, 0);
			assert_int_equal(qi.waker_owner, -1);
		}
		hand_free(&h);
	}
}

/* ---- merging ---- */

/*
 * Close cooperators: two processes reading the same file region on a disk, one some MB ahead,
 * are merged into a shared queue (their next requests are within BFQQ_CLOSE_THR); the shared
 * queue alternates between the two positions, turns seeky and is split again.
 */
static void test_bfq_cooperator_merge_split(void **state)
{
	struct run r;

	(void)state;
	run_init(&r, DEVMODEL_HDD, "4.12");
	run_set(&r, "low_latency", "0");
	/* The same region, the second 1 MiB ahead: within BFQQ_CLOSE_THR (4 MiB) of each other,
	 * but a shared queue alternating between them jumps more than BFQQ_SEEK_THR (800
	 * sectors) each time. (Readers at the very same offset stay in step, never seeky.) */
	run_job(&r, VSIM_READ, 4096, 1)->offset = 0;
	run_job(&r, VSIM_READ, 4096, 1)->offset = 1 << 20;
	/* a third reader elsewhere: nobody to merge with */
	run_job(&r, VSIM_READ, 4096, 1);
	run_go(&r);
	print_message("4.12, two readers of one region: merges %" PRIu64 " (stable %" PRIu64
		      "), splits %" PRIu64 ", %.1f MB/s\n", r.st.merges, r.st.stable_merges,
		      r.st.splits, mbps(&r.res.total));
	assert_true(r.st.merges >= 1);
	assert_true(r.st.splits >= 1);
	assert_int_equal(r.st.stable_merges, 0);
	assert_false(r.qi[2].shared);
	run_free(&r);
}

/*
 * Stable merge (430a67f9d616, bfq_sw_stable_merge): queues of the same priority created
 * within the burst interval are merged once they have shown, 600 ms later on a disk, that
 * their I/O is not sequential; without the switch two random readers stay apart.
 */
static void test_bfq_stable_merge(void **state)
{
	(void)state;
	for (int sw = 1; sw >= 0; sw--) {
		struct run r;

		run_init(&r, DEVMODEL_HDD, NULL);
		run_set(&r, "low_latency", "0");
		run_set(&r, "bfq_sw_stable_merge", sw ? "1" : "0");
		r.cfg.runtime_ns = 3 * SEC;
		run_job(&r, VSIM_RANDREAD, 4096, 1);
		run_job(&r, VSIM_RANDREAD, 4096, 1);
		run_go(&r);
		print_message("bfq_sw_stable_merge=%d: merges %" PRIu64 " (stable %" PRIu64 "), "
			      "owners 0 and 1 on a shared queue: %d %d\n", sw, r.st.merges,
			      r.st.stable_merges, r.qi[0].shared, r.qi[1].shared);
		assert_int_equal(r.st.stable_merges, sw ? 1 : 0);
		assert_int_equal(r.st.merges, sw ? 1 : 0);
		assert_int_equal(r.st.splits, 0); /* stably merged queues are never split */
		if (sw)
			assert_true(r.qi[0].shared && r.qi[1].shared);
		run_free(&r);
	}
}


/* ---- soft real-time raising after interactive raising, and switching back ---- */

/* One 4 KiB read of owner, dispatched at once and completed svc later. */
static void hand_read(struct hand *h, uint32_t owner, uint64_t *pos, uint64_t svc)
{
	struct sched_request *rq = hand_insert(h, owner, SCHED_OP_READ, SCHED_RQ_SYNC, *pos);

	*pos += 4096;
	assert_int_equal(hand_dispatch(h, h->now), 1);
	h->now += svc;
	hand_complete(h, rq);
}

/* One read every `period` until `until`, timers run in between; the first soft-rt start. */
static uint64_t hand_periodic(struct hand *h, uint64_t *pos, uint64_t period, uint64_t until)
{
	const struct bfq_stats *st = bfq_get_stats(bfq_of(h->s));
	uint64_t first_srt = 0;

	while (h->now < until) {
		uint64_t t = h->now, srt = st->wr_started[BFQ_WR_SOFT_RT];

		hand_read(h, 1, pos, 1 * MS);
		if (!first_srt && st->wr_started[BFQ_WR_SOFT_RT] > srt)
			first_srt = t;
		hand_dispatch(h, t + period); /* the idle timer: the queue goes idle */
		h->now = t + period;
	}
	return first_srt;
}

struct srt_run {
	uint64_t srt_at;	 /* first soft-rt start, from the queue's creation (0: none) */
	uint64_t srt_started;	 /* soft-rt starts */
	uint64_t ended_by_time;	 /* raising periods ended by time */
	uint32_t coeff_periodic; /* wr_coeff after the periodic phase */
	uint32_t coeff_fast;	 /* after the fast phase */
};

/*
 * 6.12 profile, one process: 1.2 s of back-to-back reads (60000 x 4 KiB, one backlogged
 * period: soft_rt_next_start goes 68 s ahead, HZ * service / bfq_wr_max_softrt_rate), then a
 * read every 50 ms until 12 s (soft-rt pace), then one every 5 ms until 13 s (not soft rt:
 * no recharge). Interactive raising lasts 10.5 s (the duration taken at the start, before any
 * peak-rate sample) and max_service_from_wr is off, so it ends by time, during the periodic
 * phase.
 */
static void srt_run(int end_reset, int switch_back, struct srt_run *o)
{
	const char *tun[] = {"bfq_version",
			     "6.12",
			     "bfq_sw_softrt_end_reset",
			     end_reset ? "1" : "0",
			     "bfq_sw_srt_switch_back",
			     switch_back ? "1" : "0",
			     "bfq_sw_max_service_from_wr",
			     "0",
			     NULL};
	const struct bfq_stats *st;
	struct bfq_queue_info qi;
	struct hand h;
	uint64_t pos = 0, t0, srt;

	hand_init(&h, true, tun);
	st = bfq_get_stats(bfq_of(h.s));
	t0 = h.now;
	for (int i = 0; i < 60000; i++)
		hand_read(&h, 1, &pos, 20 * US);
	hand_dispatch(&h, h.now + 100 * MS);
	h.now += 100 * MS;
	assert_int_equal(st->wr_started[BFQ_WR_INTERACTIVE], 1);
	assert_int_equal(st->wr_ended[BFQ_WR_END_TIME], 0);
	bfq_get_queue_info(bfq_of(h.s), 1, &qi);
	assert_int_equal(qi.wr_cur_max_time_ms, 10500);
	srt = hand_periodic(&h, &pos, 50 * MS, t0 + 12 * SEC);
	o->srt_at = srt ? srt - t0 : 0;
	bfq_get_queue_info(bfq_of(h.s), 1, &qi);
	o->coeff_periodic = qi.wr_coeff;
	hand_periodic(&h, &pos, 5 * MS, t0 + 13 * SEC);
	bfq_get_queue_info(bfq_of(h.s), 1, &qi);
	o->coeff_fast = qi.wr_coeff;
	o->srt_started = st->wr_started[BFQ_WR_SOFT_RT];
	o->ended_by_time = st->wr_ended[BFQ_WR_END_TIME];
	print_message("softrt_end_reset=%d srt_switch_back=%d: soft-rt starts %" PRIu64
		      " (first at %.3f s), raising ended by time %" PRIu64
		      ", wr_coeff %u after the 50 ms phase, %u after the 5 ms phase\n",
		      end_reset, switch_back, o->srt_started, (double)o->srt_at / 1e9,
		      o->ended_by_time, o->coeff_periodic, o->coeff_fast);
	hand_free(&h);
}

/*
 * 3c337690d2eb (bfq_sw_softrt_end_reset): when interactive raising ends, soft_rt_next_start is
 * reset to now. A queue that was greedy while raised (soft_rt_next_start far ahead, and kept
 * there: bfq_bfqq_softrt_next_start() is lower-bounded by its last value) becomes soft rt at
 * its first arrival after the end with the switch (10.570 s: 10.5 s, then the next read
 * 50 ms on); without it not before 68 s.
 */
static void test_bfq_softrt_end_reset(void **state)
{
	struct srt_run o;

	(void)state;
	for (int sw = 0; sw < 2; sw++) {
		srt_run(sw, 1, &o);
		assert_int_equal(o.ended_by_time, sw ? 2 : 1);
		assert_int_equal(o.srt_started, sw);
		if (sw) {
			assert_true(o.srt_at > 10500 * MS && o.srt_at <= 10600 * MS);
			assert_int_equal(o.coeff_periodic, 30 * 100);
		} else {
			assert_int_equal(o.coeff_periodic, 1);
		}
	}
}

/*
 * d1f600fa4732 (bfq_sw_srt_switch_back): soft-rt raising that started with no interactive
 * raising in progress (here the one bfq_sw_softrt_end_reset allows, at 10.570 s) has
 * wr_start_at_switch_to_srt at minus infinity, so when it runs out (no recharge at 5 ms
 * arrivals, 300 ms later) raising ends. 4.12 set it to now: the queue went back to
 * interactive raising (x30) for a whole bfq_wr_duration() it never earned.
 */
static void test_bfq_srt_switch_back(void **state)
{
	struct srt_run o;

	(void)state;
	for (int sw = 0; sw < 2; sw++) {
		srt_run(1, sw, &o);
		assert_int_equal(o.srt_started, 1);
		assert_int_equal(o.coeff_periodic, 30 * 100);
		assert_int_equal(o.coeff_fast, sw ? 1 : 30);
		assert_int_equal(o.ended_by_time, sw ? 2 : 1);
	}
}

/*
 * "check and switch back to interactive wr also on queue split" (4.14,
 * bfq_sw_split_switch_back): at a split, bfq_bfqq_resume_state() restores the raising saved
 * at the merge; soft-rt raising that has run out while the interactive period it interrupted
 * is still on goes back to interactive raising (x30 for bfq_wr_duration(), from the start of
 * the interactive period), as bfq_update_wr_data() does for a queue never merged; 4.12 ended
 * raising. No oracle stream gets there (a queue soft-rt raised when merged, within the 100 ms
 * merge window, split later: the streams run 100-500 ms), so the bic is left as
 * bfq_bfqq_save_state() leaves it at such a merge and the split's resume is called as
 * bfq_get_bfqq_handle_split() calls it. Saved soft-rt raising with no interactive period
 * under it (wr_start_at_switch_to_srt at minus infinity) ends in both positions.
 */
static void test_bfq_split_switch_back(void **state)
{
	(void)state;
	for (int sw = 0; sw < 2; sw++) {
		for (int inter = 0; inter < 2; inter++) {
			const char *tun[] = {"bfq_version", "6.12", "bfq_sw_split_switch_back",
					     sw ? "1" : "0", NULL};
			struct bfq_iocq_bfqq_data *d;
			struct bfq_data *bfqd;
			struct bfq_queue *bfqq;
			struct hand h;
			uint64_t pos = 0;
			int64_t inter_start;

			hand_init(&h, true, tun);
			hand_read(&h, 1, &pos, 1 * MS);
			hand_dispatch(&h, h.now + 100 * MS); /* idle timer: expired, not busy */
			bfqd = bfq_of(h.s);
			bfqq = bfqd->bics[1].bfqq[1];
			assert_non_null(bfqq);
			assert_false(bfq_bfqq_busy(bfqq));
			/* merged 1 s ago while soft-rt raised (300 ms, over), within an interactive
			 * period started 1.5 s ago (bfq_wr_duration() is 3 s at least) or none */
			inter_start = bfqd->jiffies - ms_to_jiffies(1500);
			d = &bfqd->bics[1].bfqq_data;
			d->saved_wr_coeff = bfqd->bfq_wr_coeff * BFQ_SOFTRT_WEIGHT_FACTOR;
			d->saved_wr_cur_max_time = bfqd->bfq_wr_rt_max_time;
			d->saved_last_wr_start_finish = bfqd->jiffies - ms_to_jiffies(1000);
			d->saved_wr_start_at_switch_to_srt =
			    inter ? inter_start : bfq_smallest_from_now(bfqd);
			d->saved_in_large_burst = false;
			bfq_bfqq_resume_state(bfqd, bfqq, &bfqd->bics[1], true);
			print_message("bfq_sw_split_switch_back=%d, %s: wr_coeff %u after the split\n",
				      sw, inter ? "in an interactive period" : "soft rt only",
				      bfqq->wr_coeff);
			if (sw && inter) {
				assert_int_equal(bfqq->wr_coeff, bfqd->bfq_wr_coeff);
				assert_int_equal(bfqq->wr_cur_max_time, bfq_wr_duration(bfqd));
				assert_true(bfqq->last_wr_start_finish == inter_start);
			} else {
				assert_int_equal(bfqq->wr_coeff, 1);
			}
			bfqq->wr_coeff = 1; /* not busy: no weight to put back */
			hand_free(&h);
		}
	}
}

/* ---- blk-mq depth limits ---- */

/*
 * bfq_limit_depth(): sync reads may use every scheduler tag; async I/O half of them and sync
 * writes three quarters, less while a queue is weight-raised (~18% and ~37%).
 */
static void test_bfq_limit_depth(void **state)
{
	const char *tun[] = {"low_latency", "1", NULL};
	struct sched_request rd, wr_async, wr_sync;
	uint32_t nr;
	struct hand h;

	(void)state;
	hand_init(&h, true, tun);
	nr = h.s->dev.nr_requests;
	assert_true(nr >= 16);
	test_rq_init(&rd, 3, SCHED_OP_READ, SCHED_RQ_SYNC, 0, 4096);
	test_rq_init(&wr_async, 3, SCHED_OP_WRITE, 0, 0, 4096);
	test_rq_init(&wr_sync, 3, SCHED_OP_WRITE, SCHED_RQ_SYNC, 0, 4096);
	/* nothing raised yet */
	assert_int_equal(sched_limit_depth(h.s, &rd), 0);
	assert_int_equal(sched_limit_depth(h.s, &wr_async), nr >> 1);
	assert_int_equal(sched_limit_depth(h.s, &wr_sync), (nr * 3) >> 2);
	/* a new reader is raised (interactive): while it is busy, less for async and writes */
	hand_insert(&h, 1, SCHED_OP_READ, SCHED_RQ_SYNC, 0);
	assert_int_equal(bfq_get_stats(bfq_of(h.s))->wr_started[BFQ_WR_INTERACTIVE], 1);
	assert_int_equal(sched_limit_depth(h.s, &rd), 0);
	assert_int_equal(sched_limit_depth(h.s, &wr_async), (nr * 3) >> 4);
	assert_int_equal(sched_limit_depth(h.s, &wr_sync), (nr * 6) >> 4);
	assert_true(bfq_get_stats(bfq_of(h.s))->depth_limited >= 4);
	hand_dispatch(&h, UINT64_MAX);
	hand_complete(&h, &h.rq[0]);
	hand_free(&h);

	/* 4.12 had no limit_depth (a52a69ea89dc, 4.17; bfq_sw_limit_depth): the full depth. */
	for (int sw = 0; sw < 2; sw++) {
		const char *t412[] = {"bfq_version", "4.12", "bfq_sw_limit_depth", sw ? "1" : "0",
				      NULL};

		hand_init(&h, true, t412);
		assert_int_equal(sched_limit_depth(h.s, &rd), 0);
		assert_int_equal(sched_limit_depth(h.s, &wr_async), sw ? nr >> 1 : 0);
		assert_int_equal(sched_limit_depth(h.s, &wr_sync), sw ? (nr * 3) >> 2 : 0);
		hand_free(&h);
	}
}

/* ---- switches of later kernels the 4.12 profile leaves off ---- */

/*
 * 91b896f65d32 (bfq_sw_raise_default_weight): only default-weight queues are raised. A
 * new reader of ioprio level 0 (weight 80) is raised as interactive in 4.12, not with the
 * switch. 2391d13ed484 (bfq_sw_idle_only_busy): the only busy queue is plugged for; a lone
 * random reader on a flash drive (where idling does not boost throughput) gets idle timers
 * only with the switch. The large-burst exception (bfq_sw_idle_large_burst): nine random
 * readers of different weights started together on a flash drive (asymmetric, a large
 * burst) are plugged for with the switch, never in 4.12.
 */
static void test_bfq_412_switches(void **state)
{
	uint64_t raised[2], armed_only[2], armed_burst[2];

	(void)state;
	for (int sw = 0; sw < 2; sw++) {
		struct run r;
		struct vsim_job *j;

		run_init(&r, DEVMODEL_HDD, NULL);
		run_set(&r, "bfq_sw_raise_default_weight", sw ? "1" : "0");
		r.cfg.runtime_ns = 200 * MS;
		j = run_job(&r, VSIM_READ, 64 * 1024, 1);
		j->prio_class = SCHED_IOPRIO_CLASS_BE;
		j->prio_level = 0;
		run_go(&r);
		raised[sw] = r.st.wr_started[BFQ_WR_INTERACTIVE];
		run_free(&r);

		run_init(&r, DEVMODEL_SSD, NULL);
		run_set(&r, "low_latency", "0");
		run_set(&r, "bfq_sw_idle_only_busy", sw ? "1" : "0");
		r.cfg.runtime_ns = 200 * MS;
		run_job(&r, VSIM_RANDREAD, 4096, 1);
		run_go(&r);
		armed_only[sw] = r.st.idle_timer_armed;
		run_free(&r);

		run_init(&r, DEVMODEL_SSD, NULL);
		run_set(&r, "low_latency", "0");
		run_set(&r, "bfq_sw_idle_large_burst", sw ? "1" : "0");
		r.cfg.runtime_ns = 200 * MS;
		for (int i = 0; i < 9; i++) {
			j = run_job(&r, VSIM_RANDREAD, 4096, 1);
			j->prio_class = SCHED_IOPRIO_CLASS_BE;
			j->prio_level = (uint8_t)(i % 8);
			j->offset = (uint64_t)i * GIB; /* within the flash drive */
			j->size = GIB;
		}
		run_go(&r);
		assert_int_equal(r.st.bursts_large, 1);
		armed_burst[sw] = r.st.idle_timer_armed;
		run_free(&r);
		print_message("switch %d: level-0 reader raised %" PRIu64 "; idle timers: lone "
			      "random reader %" PRIu64 ", large burst of 9 %" PRIu64 "\n",
			      sw, raised[sw], armed_only[sw], armed_burst[sw]);
	}
	assert_int_equal(raised[0], 1);
	assert_int_equal(raised[1], 0);
	assert_int_equal(armed_only[0], 0);
	assert_true(armed_only[1] > 10);
	assert_int_equal(armed_burst[0], 0);
	assert_true(armed_burst[1] > 10);
}

/* ---- preemption and plugging switches ---- */

/*
 * c8765de0adfc (bfq_sw_no_plug_all_raised): when every busy queue is weight-raised, a raised
 * queue is no longer plugged for. Two new sequential readers on a disk are both raised: in the
 * 4.12 profile the device idles for each of them, with the switch on it never does.
 */
static void test_bfq_no_plug_all_raised(void **state)
{
	uint64_t armed[2];

	(void)state;
	for (int sw = 0; sw < 2; sw++) {
		struct run r;

		run_init(&r, DEVMODEL_HDD, "4.12");
		run_set(&r, "bfq_sw_no_plug_all_raised", sw ? "1" : "0");
		run_job(&r, VSIM_READ, 4096, 1);
		run_job(&r, VSIM_READ, 4096, 1);
		run_go(&r);
		armed[sw] = r.st.idle_timer_armed;
		print_message("4.12 + bfq_sw_no_plug_all_raised=%d: raised %" PRIu64 ", idle timers %"
			      PRIu64 ", %.1f MB/s\n", sw, r.st.wr_started[BFQ_WR_INTERACTIVE],
			      armed[sw], mbps(&r.res.total));
		assert_int_equal(r.st.wr_started[BFQ_WR_INTERACTIVE], 2);
		/* raised throughout (interactive for up to 13 s, or soft rt) */
		assert_true(r.qi[0].wr_coeff > 1 && r.qi[1].wr_coeff > 1);
		run_free(&r);
	}
	assert_true(armed[0] > 1000);
	assert_int_equal(armed[1], 0);
}

/*
 * The tot_rq_in_driver >= dispatched + 4 clause (bfq_sw_idle_deep_drive): with every busy queue
 * raised, a raised queue is still plugged for while the drive holds 4 more requests than its
 * own, so that the others' deep I/O cannot take its share.
 */
static void test_bfq_idle_deep_drive(void **state)
{
	uint64_t armed[2];
	double deep_iops[2];

	(void)state;
	for (int sw = 0; sw < 2; sw++) {
		struct run r;

		run_init(&r, DEVMODEL_SSD, NULL);
		run_set(&r, "bfq_sw_idle_deep_drive", sw ? "1" : "0");
		run_set(&r, "bfq_sw_max_service_from_wr", "0"); /* both raised throughout */
		run_set(&r, "bfq_sw_stable_merge", "0");
		r.cfg.runtime_ns = 2 * SEC;
		run_job(&r, VSIM_READ, 4096, 1)->thinktime_us = 1000;
		run_job(&r, VSIM_RANDREAD, 4096, 8);
		run_go(&r);
		armed[sw] = r.st.idle_timer_armed;
		deep_iops[sw] = r.res.job[1].iops;
		print_message("bfq_sw_idle_deep_drive=%d: idle timers %" PRIu64 ", deep reader %.0f "
			      "IOPS\n", sw, armed[sw], deep_iops[sw]);
		assert_true(r.qi[0].wr_coeff > 1 && r.qi[1].wr_coeff > 1);
		run_free(&r);
	}
	assert_int_equal(armed[0], 0);
	assert_true(armed[1] > 20);
	assert_true(deep_iops[1] < deep_iops[0]);
}

/*
 * 96a291c38c32 (bfq_sw_preempt_equal): a heavier queue preempts. A periodic reader of weight
 * 80 next to a greedy reader of weight 10: with the switch, each of its requests expires the
 * greedy queue and is served at once; in 4.12 only a more raised queue preempts, so it waits.
 */
static void test_bfq_preempt_heavier(void **state)
{
	uint64_t preempt[2];
	uint64_t max_lat[2];

	(void)state;
	for (int sw = 0; sw < 2; sw++) {
		struct run r;
		struct vsim_job *j;

		run_init(&r, DEVMODEL_HDD, NULL);
		run_set(&r, "low_latency", "0");
		run_set(&r, "bfq_sw_preempt_equal", sw ? "1" : "0");
		j = run_job(&r, VSIM_READ, 64 * 1024, 1);
		j->prio_class = SCHED_IOPRIO_CLASS_BE;
		j->prio_level = 7;
		/* A host's microsecond between a completion and the next submission: resubmitted
		 * at its completion's very instant, the reader would keep the idle time 6.12's
		 * plug clock gives a new queue (U64_MAX: not I/O-bound, not plugged for, and
		 * preempted by bfq_sw_preempt_unplug). */
		j->thinktime_us = 1;
		j = run_job(&r, VSIM_RANDREAD, 4096, 1);
		j->prio_class = SCHED_IOPRIO_CLASS_BE;
		j->prio_level = 0;
		j->thinktime_us = 50000;
		j->startdelay_ns = 300 * MS;
		run_go(&r);
		preempt[sw] = r.st.preemptions;
		max_lat[sw] = r.res.job[1].lat.max_ns;
		print_message("bfq_sw_preempt_equal=%d: preemptions %" PRIu64 ", periodic reader "
			      "latency mean %.2f ms max %.2f ms\n", sw, preempt[sw],
			      r.res.job[1].lat.mean_ns / 1e6, (double)max_lat[sw] / 1e6);
		run_free(&r);
	}
	assert_int_equal(preempt[0], 0);
	assert_true(preempt[1] > 50);
	assert_true(max_lat[1] < max_lat[0]);
}

/*
 * 3726112ec731 (bfq_sw_preempt_unplug): a queue that becomes busy preempts the in-service one
 * when plugging for it is no longer useful. A random reader on an SSD is plugged for while it
 * is alone (its guarantees); when a second reader arrives it stops being worth it.
 */
static void test_bfq_preempt_unplug(void **state)
{
	uint64_t preempt[2];

	(void)state;
	for (int sw = 0; sw < 2; sw++) {
		struct run r;

		run_init(&r, DEVMODEL_SSD, NULL);
		run_set(&r, "low_latency", "0");
		run_set(&r, "bfq_sw_injection", "0");
		run_set(&r, "bfq_sw_preempt_unplug", sw ? "1" : "0");
		run_job(&r, VSIM_RANDREAD, 4096, 1)->thinktime_us = 1000;
		run_job(&r, VSIM_RANDREAD, 4096, 1)->thinktime_us = 5000;
		r.job[1].startdelay_ns = 300 * MS;
		run_go(&r);
		preempt[sw] = r.st.preemptions;
		print_message("bfq_sw_preempt_unplug=%d: preemptions %" PRIu64 ", %.0f IOPS\n", sw,
			      preempt[sw], r.res.total.iops);
		run_free(&r);
	}
	assert_true(preempt[1] > preempt[0] + preempt[0] / 2);
}

/* ---- classes and strict guarantees ---- */

/*
 * Classes are strict, but an IDLE-class queue is served at least every BFQ_CL_IDLE_TIMEOUT
 * (200 ms) when BE queues keep the device busy; an RT queue always goes first.
 */
static void test_bfq_classes(void **state)
{
	struct run r;
	struct vsim_job *j;
	uint64_t last = 0, min_gap = UINT64_MAX, max_gap = 0;
	int served = 0;

	(void)state;
	run_init(&r, DEVMODEL_HDD, NULL);
	run_set(&r, "low_latency", "0");
	r.keep[0] = "set_in_service";
	run_job(&r, VSIM_READ, 64 * 1024, 1);
	j = run_job(&r, VSIM_READ, 64 * 1024, 1);
	j->prio_class = SCHED_IOPRIO_CLASS_IDLE;
	run_go(&r);
	for (int i = 0; i < r.nlines; i++) {
		if (strncmp(r.lines[i], "bfq1S", 5))
			continue;
		if (served++) {
			uint64_t gap = r.line_ns[i] - last;

			min_gap = gap < min_gap ? gap : min_gap;
			max_gap = gap > max_gap ? gap : max_gap;
		}
		last = r.line_ns[i];
	}
	print_message("IDLE-class reader beside a BE reader: served %d times in 5 s, every %.0f.."
		      "%.0f ms; %.0f vs %.0f IOPS\n", served, (double)min_gap / 1e6,
		      (double)max_gap / 1e6, r.res.job[0].iops, r.res.job[1].iops);
	assert_true(served >= 10 && served <= 26);
	assert_true(min_gap >= 200 * MS);
	assert_true(r.res.job[1].iops * 20 < r.res.job[0].iops);
	run_free(&r);

	/* RT before BE: an RT reader takes the disk */
	run_init(&r, DEVMODEL_HDD, NULL);
	run_set(&r, "low_latency", "0");
	run_job(&r, VSIM_READ, 64 * 1024, 1);
	j = run_job(&r, VSIM_READ, 64 * 1024, 1);
	j->prio_class = SCHED_IOPRIO_CLASS_RT;
	j->startdelay_ns = 300 * MS;
	run_go(&r);
	print_message("RT reader beside a BE reader: %.1f vs %.1f MB/s\n", mbps(&r.res.job[1]),
		      mbps(&r.res.job[0]));
	assert_true(r.res.job[1].bytes[0] > 5 * r.res.job[0].bytes[0]);
	run_free(&r);
}

/* Time with n requests on the device, n >= 2, over the run. */
static uint64_t time_at_depth_2_or_more(const struct vsim_result *res)
{
	uint64_t t = 0;

	for (int i = 2; i < SCHED_INFLIGHT_BUCKETS; i++)
		t += res->sched.inflight_ns[i];
	return t;
}

/* strict_guarantees: one request in the drive at a time (and always plugging). */
static void test_bfq_strict_guarantees(void **state)
{
	(void)state;
	for (int strict = 0; strict < 2; strict++) {
		struct run r;

		run_init(&r, DEVMODEL_SSD, NULL);
		run_set(&r, "strict_guarantees", strict ? "1" : "0");
		r.cfg.runtime_ns = 2 * SEC;
		run_job(&r, VSIM_RANDREAD, 4096, 8);
		run_job(&r, VSIM_RANDREAD, 4096, 8)->startdelay_ns = 300 * MS;
		run_go(&r);
		print_message("strict_guarantees=%d: %.0f IOPS, %.3f s with 2+ requests in the "
			      "drive, idle timers %" PRIu64 "\n", strict, r.res.total.iops,
			      (double)time_at_depth_2_or_more(&r.res) / 1e9, r.st.idle_timer_armed);
		if (strict) {
			assert_int_equal(time_at_depth_2_or_more(&r.res), 0);
		} else {
			assert_true(time_at_depth_2_or_more(&r.res) > 1 * SEC);
		}
		run_free(&r);
	}
}

/* ---- io.bfq.weight at run time ---- */

/* Group weights change while running, in BFQ's range 1..1000; the shares follow. */
static void test_bfq_group_weight_runtime(void **state)
{
	struct hand h;
	const struct bfq_stats *st;
	uint64_t before[3] = {0}, after[3] = {0};
	const char *tun[] = {"low_latency", "0", NULL};

	(void)state;
	hand_init(&h, false, tun);
	st = bfq_get_stats(bfq_of(h.s));
	/* the statistics' weights are the configured ones, the root's too (sched_stats printed
	 * policy_groups.root.weight 0 beside groups[0].weight 100) */
	for (int g = 0; g <= 2; g++)
		assert_int_equal(st->group[g].weight, 100);
	assert_int_equal(sched_set_group_weight(h.s, 1, 1), 0);
	assert_int_equal(sched_set_group_weight(h.s, 1, 1000), 0);
	assert_int_not_equal(sched_set_group_weight(h.s, 1, 0), 0);
	assert_int_not_equal(sched_set_group_weight(h.s, 1, 1001), 0);
	assert_int_equal(sched_set_group_weight(h.s, 1, 100), 0);
	assert_int_equal(sched_set_group_weight(h.s, 2, 100), 0);
	/*
	 * two owners in groups 1 and 2 keep 12 requests each; one completes every 100 us. Each
	 * phase is measured over 4.5 s: over 2 s the last service slots' boundaries could leave
	 * the share of group 2 at 0.81 (with the kernel's budget timeout, HZ / 8); it is 0.750
	 * over 4.5 s and longer.
	 */
	for (int phase = 0; phase < 2; phase++) {
		if (phase)
			assert_int_equal(sched_set_group_weight(h.s, 2, 300), 0);
		for (int step = 0; step < 50000; step++) {
			if (step == 5000) /* measured once the new weights are in force */
				for (int g = 1; g <= 2; g++)
					before[g] = st->group[g].sectors;
			for (uint32_t o = 1; o <= 2; o++) {
				int mine = 0;

				for (int i = 0; i < H_IOS; i++)
					mine += h.busy[i] && h.rq[i].owner == o;
				while (mine++ < 12)
					hand_insert_g(&h, o, o, SCHED_OP_READ, SCHED_RQ_SYNC,
						      o * 100 * GIB + (uint64_t)step * 64 * KIB);
			}
			hand_dispatch(&h, h.now);
			/* complete the oldest dispatched request */
			for (int i = 0; i < H_IOS; i++) {
				if (h.busy[i] && h.dispatched[i]) {
					h.now += 100 * US;
					hand_complete(&h, &h.rq[i]);
					break;
				}
			}
		}
		for (int g = 1; g <= 2; g++)
			after[g] = st->group[g].sectors - before[g];
		print_message("groups 1:2 at weights 100:%d: sectors %" PRIu64 " : %" PRIu64
			      " (share of group 2 %.3f)\n", phase ? 300 : 100, after[1], after[2],
			      (double)after[2] / (double)(after[1] + after[2]));
	}
	assert_true((double)after[2] / (double)(after[1] + after[2]) > 0.70);
	assert_true((double)after[2] / (double)(after[1] + after[2]) < 0.80);
	hand_free(&h);
}

/* ---- random load: invariants, conservation, no leaks ---- */

#define ST_OWNERS 24
#define ST_IOS 1024

struct st_io {
	struct sched_request rq;
	int state; /* 0 free, 1 queued, 2 on the device */
	uint64_t done;
};

/*
 * Random mixed load (reads, writes, flushes, discards, sync and async, metadata, priority
 * classes and levels, group moves, weight changes, process exits) on a random device: the
 * B-WF2Q+ trees stay valid (bfq_wf2q_check: red-black and min_start invariants, idle-tree
 * bounds), every request comes out exactly once, and once every process has exited and the
 * virtual time has moved on no queue is left but those parked on idle trees.
 */
static void stress_one(uint64_t seed, const char *version, uint64_t *hash_out)
{
	static struct st_io ios[ST_IOS];
	struct test_rng rng;
	struct sched_config cfg;
	struct sched *s;
	struct bfq_data *bfqd;
	char err[256];
	uint64_t now = 0, pos[ST_OWNERS], inserted = 0, completed = 0, hash = 0;
	int prio[ST_OWNERS], grp[ST_OWNERS], inflight = 0, live = 0;

	memset(ios, 0, sizeof(ios));
	test_rng_seed(&rng, seed);
	sched_config_defaults(&cfg, SCHED_POLICY_BFQ);
	cfg.max_entities = ST_OWNERS;
	cfg.max_groups = 4;
	cfg.hw_queue_depth = 1 + (uint32_t)test_rng_below(&rng, 32);
	cfg.rotational = test_rng_below(&rng, 2);
	cfg.group_weight[1] = 50;
	cfg.group_weight[2] = 300;
	cfg.group_weight[3] = 1000;
	cfg.nr_requests = 64;
	assert_int_equal(set_err(&cfg, "bfq_version", version, err, sizeof(err)), 0);
	if (test_rng_below(&rng, 3) == 0)
		assert_int_equal(set_err(&cfg, "low_latency", "0", err, sizeof(err)), 0);
	if (test_rng_below(&rng, 5) == 0)
		assert_int_equal(set_err(&cfg, "strict_guarantees", "1", err, sizeof(err)), 0);
	if (test_rng_below(&rng, 5) == 0)
		assert_int_equal(set_err(&cfg, "slice_idle", "0", err, sizeof(err)), 0);
	s = test_sched_new(&cfg, now);
	bfqd = bfq_of(s);
	for (int i = 0; i < ST_OWNERS; i++) {
		pos[i] = test_rng_below(&rng, 1000) << 20;
		prio[i] = 4;
		grp[i] = i % 4;
	}
	for (long step = 0; step < 30000; step++) {
		struct sched_request *rq;
		int k;

		now += test_rng_below(&rng, 300000);
		for (int i = 0; i < ST_IOS; i++) {
			if (ios[i].state == 2 && ios[i].done <= now) {
				ios[i].state = 0;
				sched_completed(s, &ios[i].rq, now);
				inflight--;
				completed++;
			}
		}
		if (sched_next_timer(s) <= now)
			sched_run_timer(s, now);
		k = (int)test_rng_below(&rng, 4);
		for (int j = 0; j < k; j++) {
			int slot = -1, o;
			uint64_t r;

			for (int i = 0; i < ST_IOS && slot < 0; i++)
				if (!ios[i].state)
					slot = i;
			if (slot < 0)
				break;
			o = (int)test_rng_below(&rng, ST_OWNERS);
			rq = &ios[slot].rq;
			if (test_rng_below(&rng, 50) == 0)
				prio[o] = (int)test_rng_below(&rng, 8);
			if (test_rng_below(&rng, 200) == 0)
				grp[o] = (int)test_rng_below(&rng, 4);
			r = test_rng_below(&rng, 100);
			test_rq_init(rq, (uint32_t)o,
				     r < 60 ? SCHED_OP_READ : r < 90 ? SCHED_OP_WRITE
						 : r < 95 ? SCHED_OP_FLUSH : SCHED_OP_DISCARD,
				     test_rng_below(&rng, 2) ? SCHED_RQ_SYNC : 0, 0,
				     4096 * (1 + test_rng_below(&rng, 16)));
			if (test_rng_below(&rng, 10) == 0)
				rq->flags |= SCHED_RQ_META;
			rq->group = (uint32_t)grp[o];
			rq->prio_class = test_rng_below(&rng, 20) == 0
						 ? (uint8_t)test_rng_below(&rng, 4)
						 : SCHED_IOPRIO_CLASS_NONE;
			rq->prio_level = (uint8_t)prio[o];
			if (o % 3 == 0) { /* sequential */
				rq->offset = pos[o];
				pos[o] += rq->length;
			} else if (o % 3 == 1) { /* interleaved with a sequential one */
				rq->offset = pos[o % 12] + test_rng_below(&rng, 64) * 4096;
			} else {
				rq->offset = test_rng_below(&rng, 1ull << 28) * 4096;
			}
			assert_int_equal(sched_insert(s, rq, now), 0);
			ios[slot].state = 1;
			inserted++;
		}
		if (test_rng_below(&rng, 2000) == 0)
			sched_entity_exit(s, (uint32_t)test_rng_below(&rng, ST_OWNERS), now);
		if (test_rng_below(&rng, 3000) == 0)
			assert_int_equal(sched_set_group_weight(s, 1 + (uint32_t)test_rng_below(&rng, 3),
								1 + (uint32_t)test_rng_below(&rng, 1000)),
					 0);
		while ((rq = sched_dispatch(s, now))) {
			struct st_io *io = (struct st_io *)rq;

			assert_int_equal(io->state, 1);
			io->state = 2;
			io->done = now + 50000 + test_rng_below(&rng, 2000000);
			inflight++;
			hash = (hash ^ ((uint64_t)rq->owner << 40 ^ rq->offset ^ now)) * 0x100000001b3ull;
		}
		if (step % 64 == 0)
			assert_true(bfq_wf2q_check(bfqd));
	}
	/* drain: every queued request comes out, with the timers run */
	for (int it = 0; it < 100000 && (inflight || s->queued); it++) {
		struct sched_request *rq;

		now += 1 * MS;
		for (int i = 0; i < ST_IOS; i++) {
			if (ios[i].state == 2 && ios[i].done <= now) {
				ios[i].state = 0;
				sched_completed(s, &ios[i].rq, now);
				inflight--;
				completed++;
			}
		}
		if (sched_next_timer(s) <= now)
			sched_run_timer(s, now);
		while ((rq = sched_dispatch(s, now))) {
			((struct st_io *)rq)->state = 2;
			((struct st_io *)rq)->done = now + 100000;
			inflight++;
		}
	}
	assert_int_equal(inflight, 0);
	assert_int_equal(s->queued, 0);
	assert_int_equal(completed, inserted);
	for (int o = 0; o < ST_OWNERS; o++)
		sched_entity_exit(s, (uint32_t)o, now);
	now += 2 * SEC;
	sched_run_timer(s, now);
	assert_true(bfq_wf2q_check(bfqd));
	for (uint32_t i = 0; i < bfqd->nr_pool; i++) {
		const struct bfq_queue *q = &bfqd->queues[i];
		bool parked = false;

		if (!q->alive)
			continue;
		for (int c = 0; c < BFQ_IOPRIO_CLASSES; c++)
			parked |= q->entity.tree == &q->entity.sched_data->service_tree[c].idle;
		/* only the idle tree's reference may remain */
		if (!(parked && q->ref == 1 && !q->stable_ref))
			live++;
	}
	assert_int_equal(live, 0);
	assert_int_equal(bfqd->wr_busy_queues, 0);
	assert_int_equal(bfqd->tot_rq_in_driver, 0);
	if (hash_out)
		*hash_out = hash;
	print_message("stress seed %" PRIu64 " %s: %" PRIu64 " requests, merges %" PRIu64
		      ", splits %" PRIu64 ", injected %" PRIu64 ", oom %" PRIu64 "\n", seed, version,
		      inserted, bfqd->stats.merges, bfqd->stats.splits, bfqd->stats.injected,
		      bfqd->stats.oom_queue);
	test_sched_free(s);
}

static void test_bfq_random_stress(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 6; seed++) {
		stress_one(seed, "6.12", NULL);
		stress_one(seed, "4.12", NULL);
	}
}

/* Same seed, same schedule: no hidden state (addresses, clocks) leaks into decisions. */
static void test_bfq_deterministic(void **state)
{
	uint64_t a, b;

	(void)state;
	stress_one(11, "6.12", &a);
	stress_one(11, "6.12", &b);
	assert_true(a == b);
}

/* The tests of this file cmocka runs (main()), for test_bfq_switch_tests_exist. */
static const struct CMUnitTest *bfq_tests;
static size_t bfq_tests_nr;

/*
 * Each test bfq_switch_tests.h names for a switch (its both-position test, in place of an oracle
 * case: test_bfq_oracle.c's test_every_switch_has_a_case) is one that this file runs.
 */
static void test_bfq_switch_tests_exist(void **state)
{
	int missing = 0;

	(void)state;
	for (size_t k = 0; k < BFQ_SWITCH_TESTS_NR; k++) {
		int found = 0;

		for (size_t i = 0; i < bfq_tests_nr; i++)
			found += !strcmp(bfq_tests[i].name, bfq_switch_tests[k].test);
		if (found != 1) {
			print_error("%s: %s is not a test of test_bfq.c\n", bfq_switch_tests[k].sw,
				    bfq_switch_tests[k].test);
			missing++;
		}
	}
	assert_int_equal(missing, 0);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bfq_tunables),
	    cmocka_unit_test(test_bfq_effective_params),
	    cmocka_unit_test(test_bfq_profile_switches),
	    cmocka_unit_test(test_bfq_weights_1_2_4),
	    cmocka_unit_test(test_bfq_budget_feedback),
	    cmocka_unit_test(test_bfq_wr_interactive),
	    cmocka_unit_test(test_bfq_wr_duration),
	    cmocka_unit_test(test_bfq_wr_soft_rt),
	    cmocka_unit_test(test_bfq_burst),
	    cmocka_unit_test(test_bfq_burst_exit),
	    cmocka_unit_test(test_bfq_idling_symmetric_asymmetric),
	    cmocka_unit_test(test_bfq_idle_timer_variants),
	    cmocka_unit_test(test_bfq_run_after_completion),
	    cmocka_unit_test(test_bfq_injection),
	    cmocka_unit_test(test_bfq_waker_detection),
	    cmocka_unit_test(test_bfq_cooperator_merge_split),
	    cmocka_unit_test(test_bfq_stable_merge),
	    cmocka_unit_test(test_bfq_softrt_end_reset),
	    cmocka_unit_test(test_bfq_srt_switch_back),
	    cmocka_unit_test(test_bfq_split_switch_back),
	    cmocka_unit_test(test_bfq_limit_depth),
	    cmocka_unit_test(test_bfq_412_switches),
	    cmocka_unit_test(test_bfq_no_plug_all_raised),
	    cmocka_unit_test(test_bfq_idle_deep_drive),
	    cmocka_unit_test(test_bfq_preempt_heavier),
	    cmocka_unit_test(test_bfq_preempt_unplug),
	    cmocka_unit_test(test_bfq_classes),
	    cmocka_unit_test(test_bfq_strict_guarantees),
	    cmocka_unit_test(test_bfq_group_weight_runtime),
	    cmocka_unit_test(test_bfq_random_stress),
	    cmocka_unit_test(test_bfq_deterministic),
	    cmocka_unit_test(test_bfq_switch_tests_exist),
	};

	bfq_tests = tests;
	bfq_tests_nr = sizeof(tests) / sizeof(tests[0]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
