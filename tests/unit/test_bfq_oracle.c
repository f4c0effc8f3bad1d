// SPDX-License-Identifier: GPL-2.0
/*
 * sched/bfq against the kernel's own bfq-iosched.c: each test replays, through vsim, a stream the
 * differential oracle (oracle/, `oracle --variant bfq_6_12 --stream I`) minimised to a divergence
 * between the port and the kernel file, and checks that the port now takes the kernel's decision
 * at the moment they parted: the block event the kernel file's run has there (a dispatch, at
 * its time). The streams' parameters are the oracle's minimised reproducer (its job file and
 * its "; vsim:" seeds line), so a test fails if the port goes back to its old decision.
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
#include "sched.h"
#include "vsim.h"

#define MS 1000000ull

/* ---- a replay: the block layer's events (job<owner> I/D/C/S ...) and the policy's lines ---- */

#define REPLAY_MAX 200000
#define REPLAY_LINE 128

struct replay {
	struct vsim_config cfg;
	struct vsim_job job[8];
	uint32_t nj;
	char (*line)[REPLAY_LINE];
	uint64_t *ns;
	uint32_t n;
};

static void replay_trace(void *ctx, uint64_t now, const char *line)
{
	struct replay *r = ctx;

	if (r->n < REPLAY_MAX) {
		snprintf(r->line[r->n], REPLAY_LINE, "%s", line);
		r->ns[r->n++] = now;
	}
}

/* The oracle stream's configuration: its device, runtime and vsim seeds, bfq at `version`. */
static void replay_init(struct replay *r, enum devmodel_kind kind, uint64_t runtime_ms,
			uint64_t seed, uint64_t dev_seed, const char *version)
{
	char err[128];

	memset(r, 0, sizeof(*r));
	vsim_config_defaults(&r->cfg, SCHED_POLICY_BFQ, kind);
	r->cfg.runtime_ns = runtime_ms * MS;
	r->cfg.seed = seed;
	r->cfg.dev.seed = dev_seed;
	assert_int_equal(sched_config_set_tunable(&r->cfg.sched, "bfq_version", version, err,
						  sizeof(err)),
			 0);
}

static struct vsim_job *replay_job(struct replay *r, const char *name)
{
	struct vsim_job *j = &r->job[r->nj++];

	vsim_job_defaults(j);
	j->name = name;
	return j;
}

static void replay_go(struct replay *r)
{
	struct vsim_result res;
	char err[256] = "";

	r->line = calloc(REPLAY_MAX, REPLAY_LINE);
	r->ns = calloc(REPLAY_MAX, sizeof(*r->ns));
	assert_non_null(r->line);
	assert_non_null(r->ns);
	r->cfg.jobs = r->job;
	r->cfg.nr_jobs = r->nj;
	r->cfg.trace_fn = replay_trace;
	r->cfg.trace_ctx = r;
	r->cfg.sched.trace_bytes = 4u << 20;
	if (vsim_run(&r->cfg, &res, err, sizeof(err)))
		fail_msg("vsim_run: %s", err);
	vsim_result_free(&res);
}

static void replay_free(struct replay *r)
{
	free(r->line);
	free(r->ns);
}

static bool is_block(const char *line)
{
	return !strncmp(line, "job", 3);
}

/* The index of the first block event equal to `event` at time at_ns, or -1. */
static int replay_find(const struct replay *r, const char *event, uint64_t at_ns)
{
	for (uint32_t i = 0; i < r->n; i++)
		if (r->ns[i] == at_ns && is_block(r->line[i]) && !strcmp(r->line[i], event))
			return (int)i;
	return -1;
}

/*
 * After the block event `after` (at after_ns), the next block event is `next` at next_ns: the
 * kernel file's decision at the oracle's divergence.
 */
static void assert_next_block(const struct replay *r, const char *after, uint64_t after_ns,
			      const char *next, uint64_t next_ns)
{
	int i = replay_find(r, after, after_ns);

	if (i < 0)
		fail_msg("no \"%s\" at %" PRIu64 " ns: the stream no longer reaches the moment",
			 after, after_ns);
	for (uint32_t k = (uint32_t)i + 1; k < r->n; k++) {
		if (!is_block(r->line[k]))
			continue;
		if (r->ns[k] != next_ns || strcmp(r->line[k], next))
			fail_msg("after \"%s\": \"%s\" at %" PRIu64 " ns, the kernel's is \"%s\" at "
				 "%" PRIu64 " ns",
				 after, r->line[k], r->ns[k], next, next_ns);
		return;
	}
	fail_msg("after \"%s\": nothing, the kernel's is \"%s\"", after, next);
}

/* The time of the first block event equal to `event`, or UINT64_MAX. */
static uint64_t replay_time_of(const struct replay *r, const char *event)
{
	for (uint32_t i = 0; i < r->n; i++)
		if (is_block(r->line[i]) && !strcmp(r->line[i], event))
			return r->ns[i];
	return UINT64_MAX;
}

/*
 * bfq_6_12 stream 70 (seed 1), minimised to 32 random readers at iodepth 1 on the hdd model.
 * 6.12's clock is the plug's (blk_time_get_ns()): a new queue's first request arrives at the
 * instant the queue was made (last_end_request = now + 1), so tot_idle_time starts at U64_MAX
 * and, for a reader whose next request comes as its last completes, stays there: the queue is
 * not I/O-bound and bfq does not idle for it. The port had clamped the negative time to 0 (the
 * 4.12 clock, which had moved on), kept bfq0S I/O-bound and idled after its request at
 * 57.146 ms, where the kernel expired it (no more requests) and served bfq1S at once.
 */
static void test_oracle_plug_clock_idle_time(void **state)
{
	struct replay r;
	struct vsim_job *j;
	uint64_t t0;

	(void)state;
	replay_init(&r, DEVMODEL_HDD, 200, 0x88734ac102e7d68dull, 0x1ec485bd7b6292ull, "6.12");
	j = replay_job(&r, "job1");
	j->numjobs = 32;
	replay_go(&r);
	t0 = replay_time_of(&r, "job0 D RS 1201980160 + 8");
	assert_true(t0 / 1000 == 57146); /* 57.146 ms, as in the oracle's traces */
	assert_next_block(&r, "job0 D RS 1201980160 + 8", t0, "job1 D RS 1405713880 + 8", t0);
	replay_free(&r);
}

/*
 * bfq_6_12 stream 60 (seed 1), minimised to two random readers at low_latency=0, one in
 * ioprio class BE level 0 (weight 80), the other BE by default (weight 40) starting 5 ms later.
 * The kernel's budget timeout is bfq_timeout = HZ / 8 jiffies (31 at HZ 250: 124 ms), which
 * also scales the peak rate into bfq_max_budget; the port had msecs_to_jiffies(125) (32: 128
 * ms), so its budgets and finish times drifted from the kernel's, and at 459.720 ms it served
 * job1's new request where the kernel served job0's.
 */
static void test_oracle_budget_timeout_default(void **state)
{
	struct replay r;
	struct vsim_job *j;
	char err[128];
	uint64_t t0;

	(void)state;
	replay_init(&r, DEVMODEL_HDD, 500, 0xde77e813ab4f9c5dull, 0x1660712da8c601ull, "6.12");
	assert_int_equal(sched_config_set_tunable(&r.cfg.sched, "low_latency", "0", err,
						  sizeof(err)),
			 0);
	j = replay_job(&r, "job0");
	j->startdelay_ns = 5 * MS;
	j = replay_job(&r, "job1");
	j->prio_class = SCHED_IOPRIO_CLASS_BE;
	j->prio_level = 0;
	replay_go(&r);
	t0 = replay_time_of(&r, "job1 I RS 292405072 + 8");
	assert_true(t0 / 1000 == 459720);
	assert_next_block(&r, "job1 I RS 292405072 + 8", t0, "job0 D RS 602801416 + 8", t0);
	replay_free(&r);
}

/*
 * bfq_6_12 stream 136 (seed 1), minimised to 16 random readers with timeout_sync=1. Writing
 * timeout_sync (bfq_timeout_sync_store()) sets the budget timeout and, with no max_budget
 * given, recomputes bfq_max_budget from the peak rate at once (the port kept 16384 until the
 * first rate update); time charged to a slow queue stays scaled by the constant bfq_timeout
 * (bfq_bfqq_charge_time(); the port scaled it by timeout_sync). At 68.449 ms the kernel
 * served job8's request, the port job6's new one.
 */
static void test_oracle_timeout_sync(void **state)
{
	struct replay r;
	struct vsim_job *j;
	char err[128];
	uint64_t t0;

	(void)state;
	replay_init(&r, DEVMODEL_HDD, 300, 0x977df98fc1c9fcc5ull, 0x72274261bd9d88ull, "6.12");
	assert_int_equal(sched_config_set_tunable(&r.cfg.sched, "timeout_sync", "1", err,
						  sizeof(err)),
			 0);
	j = replay_job(&r, "job0");
	j->numjobs = 16;
	replay_go(&r);
	t0 = replay_time_of(&r, "job6 I RS 1376689232 + 8");
	assert_true(t0 / 1000 == 68449);
	assert_next_block(&r, "job6 I RS 1376689232 + 8", t0, "job8 D RS 1464268760 + 8", t0);
	replay_free(&r);
}

/*
 * bfq_6_12 stream 377 (seed 1), minimised to three random readers on the ssd model: one in the
 * root group, two in group g1, one of them in the idle class. The kernel's jiffies start at
 * INITIAL_JIFFIES and a group's bfq_class_idle_last_service is zeroed (only the root's is set
 * at init), so the first lookup in g1 finds the idle class unserved for "long" and serves it:
 * at 24.525 ms the kernel dispatched job1's (idle class) request before job2's. The port's
 * jiffies started at 0 and every group's last idle service at init, so it served job2.
 */
static void test_oracle_jiffies_origin_idle_class(void **state)
{
	struct replay r;
	struct vsim_job *j;
	uint64_t t0;

	(void)state;
	replay_init(&r, DEVMODEL_SSD, 200, 0xed89a4a4b264c1e5ull, 0x37d66787972b3ull, "6.12");
	replay_job(&r, "job0");
	j = replay_job(&r, "job1");
	j->prio_class = SCHED_IOPRIO_CLASS_IDLE;
	j->prio_level = 2;
	j->group = 1;
	j = replay_job(&r, "job2");
	j->group = 1;
	r.cfg.sched.group_weight[1] = 100;
	replay_go(&r);
	t0 = replay_time_of(&r, "job0 I RS 88151032 + 8");
	assert_true(t0 / 1000 == 24525);
	assert_next_block(&r, "job0 I RS 88151032 + 8", t0, "job1 D RS 401714432 + 8", t0);
	replay_free(&r);
}

/*
 * bfq_6_12 stream 53 (seed 1), minimised to a random O_DIRECT writer beside 4 + 1 random
 * readers at depths 4 and 16, slice_idle=0, low_latency=0, hdd. A slow queue's slot shorter
 * than 1 ms is charged at least one seek on a rotational disk: the kernel's constant
 * bfq_slice_idle (8 ms), not the slice_idle tunable (bfq_bfqq_is_slow()). With slice_idle=0
 * the port charged 0 ms, so the writer kept a small budget and its place; at 0.973 ms the
 * kernel, having charged it 1049 sectors, served job5's reader instead.
 */
static void test_oracle_slow_charge_slice_idle(void **state)
{
	struct replay r;
	struct vsim_job *j;
	char err[128];
	uint64_t t0;

	(void)state;
	replay_init(&r, DEVMODEL_HDD, 500, 0xcfc2a96303685c31ull, 0x272ee8e6e1df64ull, "6.12");
	assert_int_equal(sched_config_set_tunable(&r.cfg.sched, "slice_idle", "0", err,
						  sizeof(err)),
			 0);
	assert_int_equal(sched_config_set_tunable(&r.cfg.sched, "low_latency", "0", err,
						  sizeof(err)),
			 0);
	j = replay_job(&r, "job0");
	j->rw = VSIM_RANDWRITE;
	j = replay_job(&r, "job1");
	j->iodepth = 4;
	j->numjobs = 4;
	j = replay_job(&r, "job5");
	j->iodepth = 16;
	replay_go(&r);
	t0 = replay_time_of(&r, "job0 I WS 744342480 + 8");
	assert_true(t0 / 1000 == 973);
	assert_next_block(&r, "job0 I WS 744342480 + 8", t0, "job5 D RS 1197433384 + 8", t0);
	replay_free(&r);
}

/*
 * bfq_4_12 stream 8 (seed 1): two sequential readers and 16 buffered 1 MiB random writers,
 * hw_queue_depth=8, nr_requests=16, on the hdd model. The 4.12 bfq-mq had no limit_depth
 * (a52a69ea89dc came in 4.17): the writers' async requests take scheduler tags like any other.
 * The port's 4.12 profile limited them to half the tags (8), so the third writer's first
 * request waited for a tag at time 0 where the kernel file inserted it.
 */
static void test_oracle_412_no_limit_depth(void **state)
{
	struct replay r;
	struct vsim_job *j;
	char err[128];

	(void)state;
	replay_init(&r, DEVMODEL_HDD, 300, 0x8bd33e26de49bc45ull, 0x4c98992030e9eull, "4.12");
	r.cfg.sched.hw_queue_depth = 8;
	r.cfg.nr_requests = 16;
	assert_int_equal(sched_config_set_tunable(&r.cfg.sched, "fifo_expire_sync", "1", err,
						  sizeof(err)),
			 0);
	assert_int_equal(sched_config_set_tunable(&r.cfg.sched, "back_seek_penalty", "56", err,
						  sizeof(err)),
			 0);
	j = replay_job(&r, "job0");
	j->rw = VSIM_READ;
	j->numjobs = 2;
	j->offset = 24581767168ull;
	j->size = j->offset_increment = 268435456ull;
	j = replay_job(&r, "job1");
	j->rw = VSIM_RANDWRITE;
	j->bs = 1048576;
	j->direct = false;
	j->numjobs = 16;
	j->offset = 197454200832ull;
	j->size = j->offset_increment = 1048576ull;
	replay_go(&r);
	assert_next_block(&r, "job3 I W 385654784 + 2048", 0, "job4 I W 385656832 + 2048", 0);
	replay_free(&r);
}

/*
 * bfq_4_12 stream 13 (seed 1): a sequential reader of ioprio level 5 and 16 random 1 MiB
 * readers on the ssd model. 4.12 raised any new queue, whatever its weight (the level-5 reader
 * too: w 900(30)), did not plug for queues in a large burst, and had no rule that the only busy
 * queue is plugged for; the port's 4.12 profile had the later rules (91b896f65d32, 2391d13ed484
 * and the large-burst exception's removal), so the level-5 reader was not raised and the first
 * random reader's request was dispatched at once, where the kernel inserted the second's.
 */
static void test_oracle_412_raising_and_plugging(void **state)
{
	struct replay r;
	struct vsim_job *j;

	(void)state;
	replay_init(&r, DEVMODEL_SSD, 300, 0x82f6bec36423196dull, 0x2d35e7524b0519ull, "4.12");
	j = replay_job(&r, "job0");
	j->rw = VSIM_READ;
	j->bs = 65536;
	j->prio_class = SCHED_IOPRIO_CLASS_BE;
	j->prio_level = 5;
	j = replay_job(&r, "job1");
	j->bs = 1048576;
	j->numjobs = 16;
	replay_go(&r);
	assert_next_block(&r, "job1 I RS 138602496 + 2048", 0, "job2 I RS 148285440 + 2048", 0);
	replay_free(&r);
}

/*
 * bfq_6_12 stream 121 of seed 2, minimised to a buffered random writer and a random O_DIRECT
 * reader/writer on the cloud-ssd model, hw_queue_depth=2, slice_idle_us=4417224. The kernel
 * keeps the idle slice in a u32 (bfq_arm_slice_timer()): 4417224000 ns wraps to 122.3 ms, so
 * the idle timer of the raised queue armed at 2.468 ms fires at 124.725 ms and the writer's
 * request is dispatched then. The port idled 4.4 s and the run ended with it still waiting.
 */
static void test_oracle_idle_slice_u32(void **state)
{
	struct replay r;
	struct vsim_job *j;
	char err[128];

	(void)state;
	replay_init(&r, DEVMODEL_CLOUD_SSD, 200, 0x7c5984e7981716ffull, 0xae55a099df83c7ull,
		    "6.12");
	r.cfg.sched.hw_queue_depth = 2;
	assert_int_equal(sched_config_set_tunable(&r.cfg.sched, "slice_idle_us", "4417224", err,
						  sizeof(err)),
			 0);
	j = replay_job(&r, "job0");
	j->rw = VSIM_RANDWRITE;
	j->direct = false;
	j = replay_job(&r, "job2");
	j->rw = VSIM_RANDRW;
	j->rwmixread = 50;
	replay_go(&r);
	/* 2.468 ms + 122.257 ms: 124.724776 ms */
	assert_int_equal(replay_time_of(&r, "job0 D W 18037880 + 8"), 124724776);
	replay_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_oracle_plug_clock_idle_time),
	    cmocka_unit_test(test_oracle_budget_timeout_default),
	    cmocka_unit_test(test_oracle_timeout_sync),
	    cmocka_unit_test(test_oracle_jiffies_origin_idle_class),
	    cmocka_unit_test(test_oracle_slow_charge_slice_idle),
	    cmocka_unit_test(test_oracle_412_no_limit_depth),
	    cmocka_unit_test(test_oracle_412_raising_and_plugging),
	    cmocka_unit_test(test_oracle_idle_slice_u32),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
