// SPDX-License-Identifier: GPL-2.0
/*
 * sched/cfq: mechanism-level checks of the CFQ policy in virtual time. A small deterministic
 * simulator (jobs that submit, a rotational disk with one head or a parallel SSD, the CFQ idle
 * timer) drives the core; a few tests drive insert/dispatch/complete by hand instead.
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
#include "cfq_switch_tests.h"
#include "sched.h"
#include "support.h"

#define MS SCHED_NS_PER_MS
#define US SCHED_NS_PER_US
#define KIB 1024ull
#define MIB (1024ull * 1024)
#define GIB (1024ull * MIB)
#define T0 (10ull * 1000 * MS) /* virtual time starts at 10 s */

/* ---- configuration ---- */

static void cfq_config(struct sched_config *cfg, bool rotational, uint32_t depth)
{
	sched_config_defaults(cfg, SCHED_POLICY_CFQ);
	cfg->rotational = rotational;
	cfg->hw_queue_depth = depth;
	cfg->max_entities = 16;
	cfg->max_groups = 4;
	cfg->trace_bytes = 4u << 20; /* the queue's trace ring, read by the trace_* helpers */
}

static void set_tunable(struct sched_config *cfg, const char *name, const char *value)
{
	char err[256] = "";

	if (sched_config_set_tunable(cfg, name, value, err, sizeof(err))) {
		print_error("%s=%s: %s\n", name, value, err);
		fail();
	}
}

/* ---- the simulator ---- */

#define SIM_MAX_JOBS 8
#define SIM_MAX_IOS 256

struct sim_job {
	bool used;
	uint32_t owner, group;
	uint8_t prio_class, prio_level, op, flags;
	bool random;
	uint64_t bs, start, region, next_off;
	uint32_t depth;
	uint64_t think_ns;
	uint32_t inflight;
	uint64_t next_submit;
	uint64_t exit_at;	/* 0: never */
	bool exited;
	struct test_rng rng;
};

struct sim_io {
	struct sched_request rq;
	struct sim_job *job;
	uint64_t done_at;
	bool busy;		/* submitted, not completed */
	bool on_device;
};

struct trace_buf {
	char lines[4096][96];
	int n;
	struct sched *s; /* whose trace ring it reads */
};

/* Keeps the policy's lines ("P cfq1S ..."), without the "P ". */
static void trace_cb(void *ctx, uint64_t now, const char *line)
{
	struct trace_buf *tb = ctx;

	(void)now;
	if (strncmp(line, "P ", 2))
		return;
	if (tb->n < 4096)
		snprintf(tb->lines[tb->n++], sizeof(tb->lines[0]), "%s", line + 2);
}

/* From now on, tb collects the lines s logs (earlier ones are dropped). */
static void trace_attach(struct trace_buf *tb, struct sched *s)
{
	memset(tb, 0, sizeof(*tb));
	tb->s = s;
	sched_trace_drain(s->trace, NULL, NULL);
}

static void trace_sync(const struct trace_buf *tb)
{
	if (tb->s)
		sched_trace_drain(tb->s->trace, trace_cb, (void *)tb);
}

static int trace_count(const struct trace_buf *tb, const char *prefix, const char *needle)
{
	int c = 0;

	trace_sync(tb);
	for (int i = 0; i < tb->n; i++)
		if ((!prefix || !strncmp(tb->lines[i], prefix, strlen(prefix))) &&
		    strstr(tb->lines[i], needle))
			c++;
	return c;
}

/* First "set_slice=N" logged by queues whose line starts with prefix. */
static uint64_t trace_first_slice(const struct trace_buf *tb, const char *prefix)
{
	trace_sync(tb);
	for (int i = 0; i < tb->n; i++) {
		const char *p;

		if (strncmp(tb->lines[i], prefix, strlen(prefix)))
			continue;
		p = strstr(tb->lines[i], "set_slice=");
		if (p)
			return strtoull(p + strlen("set_slice="), NULL, 10);
	}
	return 0;
}

struct sim {
	struct sched *s;
	bool rotational;
	uint64_t now;
	uint64_t head;		/* disk head, bytes */
	uint64_t disk_free_at;	/* rotational: the head is busy until then */
	struct sim_job jobs[SIM_MAX_JOBS];
	struct sim_io ios[SIM_MAX_IOS];
	uint64_t hash;		/* of the dispatch order */
	uint64_t dispatched;
	bool timer_seen;	/* next_timer was armed at some point */
	struct trace_buf *tb;	/* collects the trace as it runs, or NULL */
	uint32_t max_owner_inflight[SCHED_MAX_ENTITIES];
	uint32_t owner_inflight[SCHED_MAX_ENTITIES];
};

static struct sim *sim_new(const struct sched_config *cfg)
{
	struct sim *sm = calloc(1, sizeof(*sm));

	assert_non_null(sm);
	sm->s = test_sched_new(cfg, T0);
	sm->rotational = cfg->rotational;
	sm->now = T0;
	sm->disk_free_at = T0;
	return sm;
}

static void sim_free(struct sim *sm)
{
	test_sched_free(sm->s);
	free(sm);
}

static struct sim_job *sim_job(struct sim *sm, uint32_t owner, enum sched_op op, bool random,
			       uint64_t bs, uint32_t depth)
{
	for (int i = 0; i < SIM_MAX_JOBS; i++) {
		struct sim_job *j = &sm->jobs[i];

		if (j->used)
			continue;
		memset(j, 0, sizeof(*j));
		j->used = true;
		j->owner = owner;
		j->op = (uint8_t)op;
		j->random = random;
		j->bs = bs;
		j->depth = depth;
		j->prio_class = SCHED_IOPRIO_CLASS_NONE;
		j->prio_level = SCHED_IOPRIO_DEFAULT_LEVEL;
		/* Each job its own 8 GiB region, far from the others. */
		j->start = (uint64_t)owner * 16 * GIB;
		j->region = 8 * GIB;
		j->next_off = j->start;
		j->next_submit = sm->now;
		test_rng_seed(&j->rng, owner + 1);
		return j;
	}
	fail();
	return NULL;
}

static uint64_t sim_service(struct sim *sm, const struct sched_request *rq)
{
	if (sm->rotational) {
		uint64_t dist = rq->offset > sm->head ? rq->offset - sm->head
						      : sm->head - rq->offset;
		uint64_t seek = 0;

		if (dist)
			seek = 2 * MS + 6 * MS * (dist > 64 * GIB ? 64 * GIB : dist) / (64 * GIB);
		return seek + rq->length * 10; /* 100 MB/s */
	}
	return 100 * US + rq->length * 2; /* 500 MB/s per request, in parallel */
}

static void sim_device_start(struct sim *sm, struct sched_request *rq)
{
	struct sim_io *io = (struct sim_io *)rq; /* rq is its first member */
	uint32_t o = rq->owner;

	if (sm->rotational) {
		uint64_t start = sm->disk_free_at > sm->now ? sm->disk_free_at : sm->now;

		io->done_at = start + sim_service(sm, rq);
		sm->head = rq->offset + rq->length;
		sm->disk_free_at = io->done_at;
	} else {
		io->done_at = sm->now + sim_service(sm, rq);
	}
	io->on_device = true;
	sm->dispatched++;
	sm->hash = (sm->hash ^ ((uint64_t)o << 40 ^ rq->offset ^ sm->now)) * 0x100000001b3ull;
	sm->owner_inflight[o]++;
	if (sm->owner_inflight[o] > sm->max_owner_inflight[o])
		sm->max_owner_inflight[o] = sm->owner_inflight[o];
}

static void sim_submit(struct sim *sm, struct sim_job *j)
{
	struct sim_io *io = NULL;

	for (int i = 0; i < SIM_MAX_IOS; i++)
		if (!sm->ios[i].busy) {
			io = &sm->ios[i];
			break;
		}
	assert_non_null(io);
	test_rq_init(&io->rq, j->owner, j->op, j->flags, 0, j->bs);
	io->rq.group = j->group;
	io->rq.prio_class = j->prio_class;
	io->rq.prio_level = j->prio_level;
	if (j->random) {
		io->rq.offset = j->start + test_rng_below(&j->rng, j->region / j->bs) * j->bs;
	} else {
		io->rq.offset = j->next_off;
		j->next_off += j->bs;
		if (j->next_off >= j->start + j->region)
			j->next_off = j->start;
	}
	io->job = j;
	io->busy = true;
	io->on_device = false;
	assert_int_equal(sched_insert(sm->s, &io->rq, sm->now), 0);
	j->inflight++;
}

static void sim_dispatch(struct sim *sm)
{
	struct sched_request *rq;

	while ((rq = sched_dispatch(sm->s, sm->now)))
		sim_device_start(sm, rq);
	if (sched_next_timer(sm->s) != SCHED_NO_TIMER)
		sm->timer_seen = true;
}

static bool job_can_submit(const struct sim_job *j)
{
	return j->used && !j->exited && j->inflight < j->depth;
}

/* Runs the simulation until `until` (absolute). Fails on a stall. */
static void sim_run(struct sim *sm, uint64_t until)
{
	while (sm->now < until) {
		uint64_t t = UINT64_MAX, timer;

		for (int i = 0; i < SIM_MAX_JOBS; i++) {
			struct sim_job *j = &sm->jobs[i];

			if (j->used && !j->exited && j->exit_at && j->exit_at <= sm->now) {
				j->exited = true;
				sched_entity_exit(sm->s, j->owner, sm->now);
			}
			while (job_can_submit(j) && j->next_submit <= sm->now)
				sim_submit(sm, j);
		}
		sim_dispatch(sm);
		if (sm->tb)
			trace_sync(sm->tb);

		for (int i = 0; i < SIM_MAX_IOS; i++)
			if (sm->ios[i].on_device && sm->ios[i].done_at < t)
				t = sm->ios[i].done_at;
		timer = sched_next_timer(sm->s);
		if (timer < t)
			t = timer;
		for (int i = 0; i < SIM_MAX_JOBS; i++) {
			struct sim_job *j = &sm->jobs[i];

			if (job_can_submit(j) && j->next_submit > sm->now && j->next_submit < t)
				t = j->next_submit;
			if (j->used && !j->exited && j->exit_at > sm->now && j->exit_at < t)
				t = j->exit_at;
		}
		if (t == UINT64_MAX) {
			/* Nothing will ever happen again: CFQ must not sit on requests. */
			assert_int_equal(sched_queued(sm->s), 0);
			sm->now = until;
			break;
		}
		if (t > until) {
			sm->now = until;
			break;
		}
		if (t > sm->now)
			sm->now = t;

		for (int i = 0; i < SIM_MAX_IOS; i++) {
			struct sim_io *io = &sm->ios[i];

			if (!io->on_device || io->done_at > sm->now)
				continue;
			io->on_device = false;
			io->busy = false;
			sm->owner_inflight[io->rq.owner]--;
			sched_completed(sm->s, &io->rq, sm->now);
			io->job->inflight--;
			io->job->next_submit = sm->now + io->job->think_ns;
		}
		if (sched_next_timer(sm->s) <= sm->now)
			sched_run_timer(sm->s, sm->now);
	}
	sched_stats_sync(sm->s, sm->now);
}

static const struct cfq_stats *sim_cfq(const struct sim *sm)
{
	const struct cfq_stats *st = cfq_get_stats(cfq_of(sm->s));

	assert_non_null(st);
	return st;
}

/* ---- trace capture ---- */

/* ---- tests: configuration ---- */

static void test_cfq_tunables(void **state)
{
	const struct sched_policy_ops *ops = sched_policy_ops(SCHED_POLICY_CFQ);
	static const struct {
		const char *name;
		int64_t def;
	} expect[] = {
		{ "quantum", 8 }, { "fifo_expire_sync", 125 }, { "fifo_expire_async", 250 },
		{ "back_seek_max", 16384 }, { "back_seek_penalty", 2 }, { "slice_sync", 100 },
		{ "slice_sync_us", 100000 }, { "slice_async", 40 }, { "slice_async_us", 40000 },
		{ "slice_async_rq", 2 }, { "slice_idle", 8 }, { "slice_idle_us", 8000 },
		{ "group_idle", 8 }, { "group_idle_us", 8000 }, { "low_latency", 1 },
		{ "target_latency", 300 }, { "target_latency_us", 300000 }, { "group_isolation", 0 },
		{ "cfq_version", 419 }, { "cfq_hz", 250 }, { "cfq_sw_ns_clock", 1 },
		{ "cfq_sw_async_in_group", 1 }, { "cfq_sw_fifo_must_dispatch", 1 },
		{ "cfq_sw_parent_preempt", 1 }, { "cfq_sw_noidle_preempt", 1 },
		{ "cfq_sw_group_idle_tt", 1 }, { "cfq_sw_group_idle_nonrot", 1 },
		{ "cfq_sw_ssd_iops", 1 }, { "cfq_sw_idle_key_now", 1 }, { "cfq_sw_prio_boost", 1 },
		{ "cfq_sw_noidle_in_group", 1 }, { "cfq_sw_vfraction_charge", 1 },
		{ "cfq_sw_vfraction_slice", 1 }, { "cfq_sw_wait_busy_queued", 1 },
		{ "cfq_sw_group_ttime", 1 }, { "cfq_sw_tree_ttime", 1 },
		{ "cfq_sw_deep_seeky_fast", 1 }, { "cfq_sw_noidle_window", 1 },
		{ "cfq_sw_sole_sync", 1 }, { "cfq_sw_class_new_workload", 1 },
		{ "cfq_sw_resid_new", 1 }, { "cfq_sw_preempt_new_type", 1 },
		{ "cfq_sw_preempt_not_idling", 1 }, { "cfq_sw_same_sector", 1 },
		{ "cfq_sw_ttime_sync", 1 }, { "cfq_sw_rework_2633", 1 },
		{ "cfq_sw_per_group_rl", 1 },
	};
	struct sched_config cfg;
	char err[256];

	(void)state;
	assert_true(sched_policy_available(SCHED_POLICY_CFQ));
	assert_int_equal(sched_policy_by_name("cfq"), SCHED_POLICY_CFQ);
	assert_non_null(ops);
	assert_int_equal(ops->nr_tunables, sizeof(expect) / sizeof(expect[0]));
	assert_true(ops->nr_tunables <= SCHED_MAX_TUNABLES);
	for (unsigned int i = 0; i < ops->nr_tunables; i++) {
		assert_string_equal(ops->tunables[i].name, expect[i].name);
		assert_int_equal(ops->tunables[i].def, expect[i].def);
		if (i == CFQ_T_VERSION)
			continue; /* a list of versions, oldest first (test_core) */
		assert_true(ops->tunables[i].min <= ops->tunables[i].def);
		assert_true(ops->tunables[i].def <= ops->tunables[i].max);
	}

	sched_config_defaults(&cfg, SCHED_POLICY_CFQ);
	assert_int_equal(sched_config_check(&cfg, err, sizeof(err)), 0);
	/* Range errors: one line each, value untouched. */
	assert_int_equal(sched_config_set_tunable(&cfg, "quantum", "0", err, sizeof(err)), -1);
	test_assert_one_line(err);
	assert_int_equal(cfg.tunable[CFQ_T_QUANTUM], 8);
	assert_int_equal(sched_config_set_tunable(&cfg, "low_latency", "2", err, sizeof(err)), -1);
	test_assert_one_line(err);
	assert_int_equal(sched_config_set_tunable(&cfg, "slice_idle", "-1", err, sizeof(err)), -1);
	test_assert_one_line(err);
	assert_int_equal(sched_config_set_tunable(&cfg, "fifo_expire_sync", "0", err, sizeof(err)),
			 -1);
	assert_int_equal(sched_config_set_tunable(&cfg, "back_seek_penalty", "0", err,
						  sizeof(err)), -1);
	assert_int_equal(sched_config_set_tunable(&cfg, "target_latency", "0", err, sizeof(err)),
			 -1);
	assert_int_equal(sched_config_set_tunable(&cfg, "slice_sync", "abc", err, sizeof(err)), -1);
	test_assert_one_line(err);
	assert_int_equal(sched_config_set_tunable(&cfg, "no_such", "1", err, sizeof(err)), -1);
	test_assert_one_line(err);
	/* In range: set and marked as given. */
	assert_int_equal(sched_config_set_tunable(&cfg, "slice_idle", "0", err, sizeof(err)), 0);
	assert_int_equal(cfg.tunable[CFQ_T_SLICE_IDLE], 0);
	assert_true(cfg.tunable_given[CFQ_T_SLICE_IDLE]);
	assert_int_equal(sched_config_set_tunable(&cfg, "back_seek_max", "0", err, sizeof(err)), 0);
}

static void test_cfq_device_defaults(void **state)
{
	struct sched_config cfg;
	struct sched *s;
	const struct cfq_params *p;

	(void)state;
	/* Rotational: the kernel defaults, in ns. */
	cfq_config(&cfg, true, 32);
	s = test_sched_new(&cfg, T0);
	p = cfq_get_params(cfq_of(s));
	assert_int_equal(p->slice_idle, 8 * MS);
	assert_int_equal(p->group_idle, 8 * MS);
	assert_int_equal(p->slice[1], 100 * MS);
	assert_int_equal(p->slice[0], 40 * MS);
	assert_int_equal(p->fifo_expire[1], 125 * MS);
	assert_int_equal(p->fifo_expire[0], 250 * MS);
	assert_int_equal(p->target_latency, 300 * MS);
	assert_int_equal(p->quantum, 8);
	test_sched_free(s);

	/* Non-rotational: slice_idle 0 (the 2015 fix), group_idle stays. */
	cfq_config(&cfg, false, 32);
	s = test_sched_new(&cfg, T0);
	p = cfq_get_params(cfq_of(s));
	assert_int_equal(p->slice_idle, 0);
	assert_int_equal(p->group_idle, 8 * MS);
	/* sysfs (and sched_stats) show the value in force, not the configured default. */
	assert_int_equal(sched_tunable_value(s, CFQ_T_SLICE_IDLE), 0);
	assert_int_equal(sched_tunable_value(s, CFQ_T_SLICE_IDLE_US), 0);
	assert_int_equal(sched_tunable_value(s, CFQ_T_GROUP_IDLE), 8);
	test_sched_free(s);

	/* ... unless slice_idle was given. */
	cfq_config(&cfg, false, 32);
	set_tunable(&cfg, "slice_idle", "8");
	s = test_sched_new(&cfg, T0);
	assert_int_equal(cfq_get_params(cfq_of(s))->slice_idle, 8 * MS);
	test_sched_free(s);

	/* The _us variants. */
	cfq_config(&cfg, false, 32);
	set_tunable(&cfg, "slice_idle_us", "2500");
	set_tunable(&cfg, "target_latency_us", "600000");
	s = test_sched_new(&cfg, T0);
	assert_int_equal(cfq_get_params(cfq_of(s))->slice_idle, 2500 * US);
	assert_int_equal(cfq_get_params(cfq_of(s))->target_latency, 600 * MS);
	assert_int_equal(sched_tunable_value(s, CFQ_T_SLICE_IDLE), 2);
	assert_int_equal(sched_tunable_value(s, CFQ_T_SLICE_IDLE_US), 2500);
	assert_int_equal(sched_tunable_value(s, CFQ_T_TARGET_LATENCY), 600);
	assert_int_equal(sched_tunable_value(s, CFQ_T_QUANTUM), 8);
	test_sched_free(s);
}

/* ---- tests: the behaviour profiles (cfq_version, cfq_hz, cfq_sw_*) ---- */

/* 4.1 counts in jiffies: the kernel's HZ-based defaults, msecs_to_jiffies() of what is given. */
static void test_cfq_profile_41_jiffies(void **state)
{
	struct sched_config cfg;
	struct sched *s;
	const struct cfq_params *p;

	(void)state;
	cfq_config(&cfg, true, 32);
	set_tunable(&cfg, "cfq_version", "4.1");
	s = test_sched_new(&cfg, T0);
	p = cfq_get_params(cfq_of(s));
	assert_false(p->sw[CFQ_SW_NS_CLOCK]);
	assert_int_equal(p->slice[1], 25);	/* HZ / 10 */
	assert_int_equal(p->slice[0], 10);	/* HZ / 25 */
	assert_int_equal(p->slice_idle, 2);	/* HZ / 125: 8 ms */
	assert_int_equal(p->fifo_expire[1], 31); /* HZ / 8: 124 ms, not 125 */
	assert_int_equal(p->fifo_expire[0], 62); /* HZ / 4 */
	assert_int_equal(p->target_latency, 75); /* HZ * 3 / 10 */
	assert_int_equal(sched_tunable_value(s, CFQ_T_FIFO_EXPIRE_SYNC), 124);
	assert_int_equal(sched_tunable_value(s, CFQ_T_VERSION), 401);
	test_sched_free(s);

	cfq_config(&cfg, true, 32);
	set_tunable(&cfg, "cfq_version", "4.1");
	set_tunable(&cfg, "fifo_expire_sync", "125"); /* msecs_to_jiffies() rounds up */
	set_tunable(&cfg, "slice_idle", "5");
	s = test_sched_new(&cfg, T0);
	p = cfq_get_params(cfq_of(s));
	assert_int_equal(p->fifo_expire[1], 32);
	assert_int_equal(p->slice_idle, 2);
	test_sched_free(s);

	/* HZ 1000: the same times, in 1 ms jiffies. */
	cfq_config(&cfg, true, 32);
	set_tunable(&cfg, "cfq_version", "4.1");
	set_tunable(&cfg, "cfq_hz", "1000");
	s = test_sched_new(&cfg, T0);
	p = cfq_get_params(cfq_of(s));
	assert_int_equal(p->slice[1], 100);
	assert_int_equal(p->fifo_expire[1], 125);
	assert_int_equal(p->slice_idle, 8);
	test_sched_free(s);

	/* The switch alone, at 4.19: ns again. */
	cfq_config(&cfg, true, 32);
	set_tunable(&cfg, "cfq_version", "4.1");
	set_tunable(&cfg, "cfq_sw_ns_clock", "1");
	s = test_sched_new(&cfg, T0);
	assert_int_equal(cfq_get_params(cfq_of(s))->slice[1], 100 * MS);
	test_sched_free(s);
}

/* Bad profiles are refused at configuration, before any I/O, in one line. */
static void test_cfq_profile_refusals(void **state)
{
	struct sched_config cfg;
	char err[256];

	(void)state;
	sched_config_defaults(&cfg, SCHED_POLICY_CFQ);
	assert_int_equal(sched_config_set_tunable(&cfg, "cfq_version", "4.2", err, sizeof(err)),
			 -1);
	test_assert_one_line(err);
	assert_int_equal(sched_config_set_tunable(&cfg, "cfq_version", "four", err, sizeof(err)),
			 -1);
	assert_int_equal(sched_config_set_tunable(&cfg, "cfq_hz", "300", err, sizeof(err)), 0);
	assert_int_equal(sched_config_check(&cfg, err, sizeof(err)), -1);
	test_assert_one_line(err);
	assert_non_null(strstr(err, "cfq_hz=300"));

	sched_config_defaults(&cfg, SCHED_POLICY_CFQ);
	set_tunable(&cfg, "cfq_version", "4.1");
	set_tunable(&cfg, "slice_idle_us", "2500");
	assert_int_equal(sched_config_check(&cfg, err, sizeof(err)), -1);
	test_assert_one_line(err);
	assert_non_null(strstr(err, "slice_idle_us"));
	/* With the ns clock switched on the file exists. */
	set_tunable(&cfg, "cfq_sw_ns_clock", "1");
	assert_int_equal(sched_config_check(&cfg, err, sizeof(err)), 0);

	/* target_latency was a constant in 2.6.3x, group_idle came in 2.6.36. */
	sched_config_defaults(&cfg, SCHED_POLICY_CFQ);
	set_tunable(&cfg, "cfq_version", "2.6.36");
	set_tunable(&cfg, "target_latency", "600");
	assert_int_equal(sched_config_check(&cfg, err, sizeof(err)), -1);
	test_assert_one_line(err);
	assert_non_null(strstr(err, "target_latency: no such tunable with cfq_version=2.6.36"));
	set_tunable(&cfg, "cfq_version", "3.16");
	assert_int_equal(sched_config_check(&cfg, err, sizeof(err)), 0);
	sched_config_defaults(&cfg, SCHED_POLICY_CFQ);
	set_tunable(&cfg, "group_idle", "0");
	set_tunable(&cfg, "cfq_version", "2.6.36");
	assert_int_equal(sched_config_check(&cfg, err, sizeof(err)), 0);

	/* 2.6.32 runs; it had neither group_idle nor group_isolation (no groups). */
	sched_config_defaults(&cfg, SCHED_POLICY_CFQ);
	set_tunable(&cfg, "cfq_version", "2.6.32");
	assert_int_equal(sched_config_check(&cfg, err, sizeof(err)), 0);
	set_tunable(&cfg, "group_isolation", "1");
	assert_int_equal(sched_config_check(&cfg, err, sizeof(err)), -1);
	test_assert_one_line(err);
	assert_non_null(strstr(err, "group_isolation: no such tunable with cfq_version=2.6.32"));
	sched_config_defaults(&cfg, SCHED_POLICY_CFQ);
	set_tunable(&cfg, "cfq_version", "2.6.32");
	set_tunable(&cfg, "group_idle", "0");
	assert_int_equal(sched_config_check(&cfg, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "group_idle: no such tunable with cfq_version=2.6.32"));

	/* group_isolation: a 2.6.3x file, gone with cfq_sw_noidle_in_group. */
	sched_config_defaults(&cfg, SCHED_POLICY_CFQ);
	set_tunable(&cfg, "group_isolation", "1");
	assert_int_equal(sched_config_check(&cfg, err, sizeof(err)), -1);
	test_assert_one_line(err);
	assert_non_null(strstr(err, "group_isolation: no such tunable with cfq_version=4.19"));
	set_tunable(&cfg, "cfq_version", "2.6.36");
	assert_int_equal(sched_config_check(&cfg, err, sizeof(err)), 0);
	set_tunable(&cfg, "cfq_sw_noidle_in_group", "1");
	assert_int_equal(sched_config_check(&cfg, err, sizeof(err)), -1);

	/* 2.6.36's blkio.weight took 100..1000. */
	sched_config_defaults(&cfg, SCHED_POLICY_CFQ);
	set_tunable(&cfg, "cfq_version", "2.6.36");
	cfg.group_weight[2] = 50;
	assert_int_equal(sched_config_check(&cfg, err, sizeof(err)), -1);
	test_assert_one_line(err);
	assert_non_null(strstr(err, "sched_weight=50: cfq_version=2.6.36's blkio.weight takes"));
	set_tunable(&cfg, "cfq_version", "3.16");
	assert_int_equal(sched_config_check(&cfg, err, sizeof(err)), 0);
}

static const char *const cfq_version_names[CFQ_ERA_NR] = { "2.6.32", "2.6.36", "3.16", "4.1",
							   "4.19" };

/*
 * Each switch: on from the profile of its change (its 'since') unless given, settable one by one
 * both ways in every profile; the other switches keep their profile's values.
 */
static void test_cfq_profile_switches(void **state)
{
	(void)state;
	for (int sw = 0; sw < CFQ_SW_NR; sw++) {
		assert_non_null(strstr(cfq_switch_name(sw), "cfq_sw_"));
		assert_true(strlen(cfq_switch_commit(sw)) > 20);
		/* Every switch is off in the oldest profile and on in the newest. */
		assert_true(cfq_switch_since(sw) > CFQ_ERA_2632);
		for (int v = CFQ_ERA_2632; v < CFQ_ERA_NR; v++)
			for (int given = -1; given <= 1; given++) {
				struct sched_config cfg;
				struct sched *s;
				bool want = given < 0 ? v >= (int)cfq_switch_since(sw) : given == 1;

				cfq_config(&cfg, true, 32);
				set_tunable(&cfg, "cfq_version", cfq_version_names[v]);
				if (given >= 0)
					set_tunable(&cfg, cfq_switch_name(sw), given ? "1" : "0");
				s = test_sched_new(&cfg, T0);
				assert_non_null(s);
				assert_int_equal(cfq_get_params(cfq_of(s))->era, v);
				assert_int_equal(cfq_get_params(cfq_of(s))->sw[sw], want);
				assert_int_equal(sched_tunable_value(s, CFQ_T_SW_NS_CLOCK + sw), want);
				for (int o = 0; o < CFQ_SW_NR; o++)
					if (o != sw)
						assert_int_equal(cfq_get_params(cfq_of(s))->sw[o],
								 v >= (int)cfq_switch_since(o));
				test_sched_free(s);
			}
	}
}

/*
 * The profiles are the five kernels, written as the kernel names them; 3.16 has 4.1's switches
 * (no change between the two alters a decision: sched/cfq.c, cfq_versions[]).
 */
static void test_cfq_profile_versions(void **state)
{
	static const struct {
		const char *v;
		int64_t code;
	} ok[] = { { "2.6.32", CFQ_VERSION_2632 }, { "2.6.36", CFQ_VERSION_2636 },
		   { "3.16", CFQ_VERSION_316 },	   { "4.1", CFQ_VERSION_41 },
		   { "4.19", CFQ_VERSION_419 },	   { "316", CFQ_VERSION_316 } };
	static const char *const bad[] = { "2.6.33", "2.6", "4.2", "3.16.0", "2.6.32.1", "2..6",
					   "4.19x", "" };
	struct sched_config cfg;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		sched_config_defaults(&cfg, SCHED_POLICY_CFQ);
		assert_int_equal(sched_config_set_tunable(&cfg, "cfq_version", ok[i].v, err,
							  sizeof(err)),
				 0);
		assert_true(cfg.tunable[CFQ_T_VERSION] == ok[i].code);
		assert_int_equal(sched_config_check(&cfg, err, sizeof(err)), 0);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sched_config_defaults(&cfg, SCHED_POLICY_CFQ);
		assert_int_equal(sched_config_set_tunable(&cfg, "cfq_version", bad[i], err,
							  sizeof(err)),
				 -1);
		test_assert_one_line(err);
		assert_non_null(strstr(err, "must be 2.6.32, 2.6.36, 3.16, 4.1 or 4.19"));
		assert_true(cfg.tunable[CFQ_T_VERSION] == CFQ_VERSION_419);
	}
	for (int v = CFQ_ERA_2632; v < CFQ_ERA_NR; v++) {
		struct sched *s;

		cfq_config(&cfg, true, 32);
		set_tunable(&cfg, "cfq_version", cfq_version_names[v]);
		s = test_sched_new(&cfg, T0);
		assert_int_equal(cfq_get_params(cfq_of(s))->era, v);
		if (v == CFQ_ERA_316)
			for (int sw = 0; sw < CFQ_SW_NR; sw++)
				assert_int_equal(cfq_get_params(cfq_of(s))->sw[sw],
						 cfq_switch_since(sw) <= CFQ_ERA_41);
		test_sched_free(s);
	}
}

/* cfq_sw_ssd_iops: 4.1 idled on SSDs by default (slice_idle 8 ms: 2 jiffies), 4.19 did not. */
static void test_cfq_profile_ssd_iops(void **state)
{
	struct sched_config cfg;
	struct sched *s;

	(void)state;
	cfq_config(&cfg, false, 32);
	set_tunable(&cfg, "cfq_version", "4.1");
	s = test_sched_new(&cfg, T0);
	assert_int_equal(cfq_get_params(cfq_of(s))->slice_idle, 2);
	test_sched_free(s);
	cfq_config(&cfg, false, 32);
	set_tunable(&cfg, "cfq_version", "4.1");
	set_tunable(&cfg, "cfq_sw_ssd_iops", "1");
	s = test_sched_new(&cfg, T0);
	assert_int_equal(cfq_get_params(cfq_of(s))->slice_idle, 0);
	test_sched_free(s);
}

/* ---- tests: by hand ---- */

static void rq_read(struct sched_request *rq, uint32_t owner, uint64_t offset, uint64_t len)
{
	test_rq_init(rq, owner, SCHED_OP_READ, 0, offset, len);
}

static void test_cfq_idle_window_hit(void **state)
{
	static struct trace_buf hit_tb;
	struct sched_config cfg;
	struct sched *s;
	struct sched_request a1, a2, b1, b2, *rq;
	const struct cfq_stats *st;
	uint64_t t = T0;

	(void)state;
	cfq_config(&cfg, true, 32);
	s = test_sched_new(&cfg, t);
	st = cfq_get_stats(cfq_of(s));

	/* A: sequential reader; B: another reader far away, with requests waiting. */
	rq_read(&a1, 1, 0, 64 * KIB);
	rq_read(&b1, 2, 100 * GIB, 64 * KIB);
	rq_read(&b2, 2, 100 * GIB + 64 * KIB, 64 * KIB);
	sched_insert(s, &a1, t);
	sched_insert(s, &b1, t);
	sched_insert(s, &b2, t);
	trace_attach(&hit_tb, s);
	rq = sched_dispatch(s, t);
	assert_ptr_equal(rq, &a1);
	/* A is active and has its request in flight: CFQ waits for it, B does not go. */
	assert_null(sched_dispatch(s, t));
	assert_int_equal(sched_next_timer(s), SCHED_NO_TIMER);
	/* The slice starts at the first completion, not at the first dispatch. */
	assert_int_equal(trace_count(&hit_tb, "cfq1S", "set_slice="), 0);

	t += 5 * MS;
	sched_completed(s, &a1, t);
	assert_int_equal(trace_count(&hit_tb, "cfq1S", "set_slice="), 1);
	assert_int_equal(trace_count(&hit_tb, "cfq1S", "arm_idle: 8000000 group_idle: 0"), 1);
	/* Empty active sync queue on a rotational disk: idle slice_idle past the completion. */
	assert_int_equal(st->idle_timer_armed, 1);
	assert_int_equal(sched_next_timer(s), t + 8 * MS);
	assert_null(sched_dispatch(s, t + 1 * MS));

	/* A's next request comes within slice_idle: a hit, the timer goes, A is served. */
	t += 2 * MS;
	rq_read(&a2, 1, 64 * KIB, 64 * KIB);
	sched_insert(s, &a2, t);
	assert_int_equal(st->idle_hits, 1);
	assert_int_equal(sched_next_timer(s), SCHED_NO_TIMER);
	assert_ptr_equal(sched_dispatch(s, t), &a2);
	assert_int_equal(st->slices_started, 1);

	/* Complete, idle again, and this time let the timer fire: B gets the disk. */
	t += 5 * MS;
	sched_completed(s, &a2, t);
	assert_int_equal(sched_next_timer(s), t + 8 * MS);
	t += 8 * MS;
	sched_run_timer(s, t);
	assert_int_equal(st->idle_timer_fired, 1);
	assert_int_equal(st->slices_expired[CFQ_EXPIRE_IDLE_TIMER], 1);
	assert_ptr_equal(sched_dispatch(s, t), &b1);
	test_sched_free(s);
}

static void test_cfq_exit_stops_idling(void **state)
{
	struct sched_config cfg;
	struct sched *s;
	struct sched_request a1, a2, b1;
	const struct cfq_stats *st;
	uint64_t t = T0;

	(void)state;
	cfq_config(&cfg, true, 32);
	s = test_sched_new(&cfg, t);
	st = cfq_get_stats(cfq_of(s));

	rq_read(&a1, 1, 0, 64 * KIB);
	rq_read(&b1, 2, 100 * GIB, 64 * KIB);
	sched_insert(s, &a1, t);
	sched_insert(s, &b1, t);
	assert_ptr_equal(sched_dispatch(s, t), &a1);
	t += 5 * MS;
	sched_completed(s, &a1, t);
	assert_int_equal(sched_next_timer(s), t + 8 * MS);

	/* A exits while CFQ idles for it: the slice ends, no more waiting. */
	sched_entity_exit(s, 1, t + MS);
	assert_int_equal(st->slices_expired[CFQ_EXPIRE_EXIT], 1);
	assert_int_equal(sched_next_timer(s), SCHED_NO_TIMER);
	assert_ptr_equal(sched_dispatch(s, t + MS), &b1);
	test_sched_free(s);

	/* Exit with a request in flight: its completion arms nothing. */
	t = T0;
	s = test_sched_new(&cfg, t);
	st = cfq_get_stats(cfq_of(s));
	rq_read(&a1, 1, 0, 64 * KIB);
	rq_read(&a2, 1, 64 * KIB, 64 * KIB);
	sched_insert(s, &a1, t);
	assert_ptr_equal(sched_dispatch(s, t), &a1);
	sched_entity_exit(s, 1, t + MS);
	t += 5 * MS;
	sched_completed(s, &a1, t);
	assert_int_equal(st->idle_timer_armed, 0);
	assert_int_equal(sched_next_timer(s), SCHED_NO_TIMER);
	/* The owner id comes back as a new process: served normally, idling again. */
	sched_insert(s, &a2, t + MS);
	assert_ptr_equal(sched_dispatch(s, t + MS), &a2);
	sched_completed(s, &a2, t + 2 * MS);
	assert_int_equal(st->idle_timer_armed, 1);
	test_sched_free(s);
}

static void test_cfq_rt_before_be(void **state)
{
	struct sched_config cfg;
	struct sched *s;
	struct sched_request be[4], rt[2], rt2;
	const struct cfq_stats *st;
	uint64_t t = T0;

	(void)state;
	cfq_config(&cfg, true, 32);
	s = test_sched_new(&cfg, t);
	st = cfq_get_stats(cfq_of(s));

	for (int i = 0; i < 4; i++) {
		rq_read(&be[i], 1, (uint64_t)i * 64 * KIB, 64 * KIB);
		sched_insert(s, &be[i], t);
	}
	for (int i = 0; i < 2; i++) {
		rq_read(&rt[i], 2, 50 * GIB + (uint64_t)i * 64 * KIB, 64 * KIB);
		rt[i].prio_class = SCHED_IOPRIO_CLASS_RT;
		rt[i].prio_level = 0;
		sched_insert(s, &rt[i], t);
	}
	/* The RT queue is served first although the BE requests came first. */
	assert_int_equal(sched_dispatch(s, t)->owner, 2);
	assert_int_equal(sched_dispatch(s, t)->owner, 2);
	sched_completed(s, &rt[0], t + MS);
	sched_completed(s, &rt[1], t + 2 * MS);
	/* Idling for RT, then BE. */
	sched_run_timer(s, sched_next_timer(s));
	t = t + 20 * MS;
	assert_int_equal(sched_dispatch(s, t)->owner, 1);

	/* An RT request arriving during a BE slice preempts it. */
	rq_read(&rt2, 2, 50 * GIB + 128 * KIB, 64 * KIB);
	rt2.prio_class = SCHED_IOPRIO_CLASS_RT;
	rt2.prio_level = 0;
	sched_insert(s, &rt2, t + MS);
	assert_int_equal(st->preemptions, 1);
	assert_int_equal(st->slices_expired[CFQ_EXPIRE_PREEMPTED], 1);
	assert_ptr_equal(sched_dispatch(s, t + MS), &rt2);
	test_sched_free(s);
}

static void test_cfq_async_waits_for_sync(void **state)
{
	struct sched_config cfg;
	struct sched *s;
	struct sched_request r, w[4], *rq;

	(void)state;
	cfq_config(&cfg, true, 32);
	set_tunable(&cfg, "slice_idle", "0");
	set_tunable(&cfg, "group_idle", "0");
	s = test_sched_new(&cfg, T0);

	rq_read(&r, 1, 0, 64 * KIB);
	sched_insert(s, &r, T0);
	assert_ptr_equal(sched_dispatch(s, T0), &r);
	for (int i = 0; i < 4; i++) {
		test_rq_init(&w[i], 2, SCHED_OP_WRITE, 0, 10 * GIB + (uint64_t)i * 64 * KIB,
			     64 * KIB);
		assert_false(sched_rq_is_sync(&w[i]));
		sched_insert(s, &w[i], T0 + MS);
	}
	/* The read is in flight: the async queue may not dispatch. */
	assert_null(sched_dispatch(s, T0 + MS));
	assert_null(sched_dispatch(s, T0 + 2 * MS));
	sched_completed(s, &r, T0 + 3 * MS);
	rq = sched_dispatch(s, T0 + 3 * MS);
	assert_non_null(rq);
	assert_int_equal(rq->owner, 2);
	test_sched_free(s);
}

static int count_dispatch(struct sched *s, uint64_t t, uint32_t *owner_count)
{
	struct sched_request *rq;
	int n = 0;

	while ((rq = sched_dispatch(s, t))) {
		owner_count[rq->owner]++;
		n++;
	}
	return n;
}

static void test_cfq_quantum_caps(void **state)
{
	static struct sched_request rqs[2][16];
	struct sched_config cfg;
	struct sched *s;
	uint32_t cnt[SCHED_MAX_ENTITIES];

	(void)state;
	for (int q = 8; q <= 16; q += 8) {
		char v[8];

		cfq_config(&cfg, true, 32);
		set_tunable(&cfg, "slice_idle", "0");
		snprintf(v, sizeof(v), "%d", q);
		set_tunable(&cfg, "quantum", v);
		s = test_sched_new(&cfg, T0);
		for (int o = 0; o < 2; o++)
			for (int i = 0; i < 16; i++) {
				rq_read(&rqs[o][i], (uint32_t)o + 1,
					(uint64_t)o * 100 * GIB + (uint64_t)i * 64 * KIB, 64 * KIB);
				sched_insert(s, &rqs[o][i], T0);
			}
		memset(cnt, 0, sizeof(cnt));
		/* Two busy sync queues: the active one stops at quantum/2 at slice start. */
		assert_int_equal(count_dispatch(s, T0, cnt), q / 2);
		assert_int_equal(cnt[1] + cnt[2], q / 2);
		assert_true(cnt[1] == 0 || cnt[2] == 0);
		test_sched_free(s);
	}

	/* A sole queue has no limit but the device's. */
	cfq_config(&cfg, true, 12);
	s = test_sched_new(&cfg, T0);
	for (int i = 0; i < 16; i++) {
		rq_read(&rqs[0][i], 1, (uint64_t)i * 64 * KIB, 64 * KIB);
		sched_insert(s, &rqs[0][i], T0);
	}
	memset(cnt, 0, sizeof(cnt));
	assert_int_equal(count_dispatch(s, T0, cnt), 12);
	test_sched_free(s);
}

static void test_cfq_back_seek(void **state)
{
	struct sched_config cfg;
	struct sched *s;
	struct sched_request first, behind, ahead, far_behind;
	uint64_t sect = 512;

	(void)state;
	/* Head ends at sector 1008 after the first request. */
	for (int variant = 0; variant < 3; variant++) {
		cfq_config(&cfg, true, 1);
		if (variant == 2)
			set_tunable(&cfg, "back_seek_penalty", "1");
		s = test_sched_new(&cfg, T0);
		rq_read(&first, 1, 1000 * sect, 8 * sect);
		sched_insert(s, &first, T0);
		assert_ptr_equal(sched_dispatch(s, T0), &first);
		/* 1200 is 192 sectors ahead; 900 is 108 behind (216 with penalty 2). */
		rq_read(&ahead, 1, 1200 * sect, 8 * sect);
		rq_read(&behind, 1, (variant == 0 ? 900 : 960) * sect, 8 * sect);
		rq_read(&far_behind, 1, 0, 8 * sect);
		sched_insert(s, &ahead, T0 + 100);
		sched_insert(s, &behind, T0 + 200);
		sched_completed(s, &first, T0 + MS);
		if (variant == 0)
			/* 216 > 192: the forward request wins. */
			assert_ptr_equal(sched_dispatch(s, T0 + MS), &ahead);
		else
			/* 960: 48 behind, 96 (penalty 2) or 48 (penalty 1) < 192. */
			assert_ptr_equal(sched_dispatch(s, T0 + MS), &behind);
		test_sched_free(s);
	}

	/* Beyond back_seek_max (0 KiB here) a request behind the head waits for the wrap. */
	cfq_config(&cfg, true, 1);
	set_tunable(&cfg, "back_seek_max", "0");
	s = test_sched_new(&cfg, T0);
	rq_read(&first, 1, 1000 * sect, 8 * sect);
	sched_insert(s, &first, T0);
	assert_ptr_equal(sched_dispatch(s, T0), &first);
	rq_read(&behind, 1, 1000 * sect, 8 * sect);
	rq_read(&ahead, 1, 5000 * sect, 8 * sect);
	sched_insert(s, &behind, T0 + 100);
	sched_insert(s, &ahead, T0 + 200);
	sched_completed(s, &first, T0 + MS);
	assert_ptr_equal(sched_dispatch(s, T0 + MS), &ahead);
	test_sched_free(s);
}

static void test_cfq_queues_per_owner(void **state)
{
	struct sched_config cfg;
	struct sched *s;
	struct sched_request r1, r2, w1, w2, w3, w4;

	(void)state;
	cfq_config(&cfg, true, 32);
	s = test_sched_new(&cfg, T0);
	rq_read(&r1, 1, 0, 4096);
	rq_read(&r2, 2, GIB, 4096);
	test_rq_init(&w1, 1, SCHED_OP_WRITE, 0, 2 * GIB, 4096);
	test_rq_init(&w2, 2, SCHED_OP_WRITE, 0, 3 * GIB, 4096);
	test_rq_init(&w3, 3, SCHED_OP_WRITE, 0, 4 * GIB, 4096);
	w3.prio_class = SCHED_IOPRIO_CLASS_BE;
	w3.prio_level = 0;
	test_rq_init(&w4, 3, SCHED_OP_WRITE, 0, 5 * GIB, 4096);
	w4.group = 1;
	sched_insert(s, &r1, T0);
	sched_insert(s, &r2, T0);
	sched_insert(s, &w1, T0);
	sched_insert(s, &w2, T0);
	sched_insert(s, &w3, T0);
	/* Sync: one queue per process. */
	assert_ptr_not_equal(r1.priv.queue, r2.priv.queue);
	/* Async: shared per (group, class, level); class NONE is BE level 4. */
	assert_ptr_equal(w1.priv.queue, w2.priv.queue);
	assert_ptr_not_equal(w1.priv.queue, r1.priv.queue);
	assert_ptr_not_equal(w3.priv.queue, w1.priv.queue);
	sched_insert(s, &w4, T0);
	assert_ptr_not_equal(w4.priv.queue, w1.priv.queue);
	test_sched_free(s);

	/* A process that moves to another group takes its (drained) sync queue along. */
	cfq_config(&cfg, true, 32);
	set_tunable(&cfg, "slice_idle", "0");
	set_tunable(&cfg, "group_idle", "0");
	s = test_sched_new(&cfg, T0);
	rq_read(&r1, 1, 0, 4096);
	sched_insert(s, &r1, T0);
	assert_ptr_equal(sched_dispatch(s, T0), &r1);
	sched_completed(s, &r1, T0 + MS);
	rq_read(&r2, 1, 4096, 4096);
	r2.group = 2;
	sched_insert(s, &r2, T0 + 2 * MS);
	assert_ptr_equal(sched_dispatch(s, T0 + 2 * MS), &r2);
	assert_int_equal(cfq_get_stats(cfq_of(s))->group[0].dispatched, 1);
	assert_int_equal(cfq_get_stats(cfq_of(s))->group[2].dispatched, 1);
	sched_completed(s, &r2, T0 + 3 * MS);
	test_sched_free(s);
}

/* ---- tests: simulated ---- */

static void test_cfq_no_idle_timer_slice_idle_0(void **state)
{
	struct sched_config cfg;
	struct sim *sm;
	struct sim_job *j;

	(void)state;
	cfq_config(&cfg, true, 32);
	set_tunable(&cfg, "slice_idle", "0");
	set_tunable(&cfg, "group_idle", "0");
	sm = sim_new(&cfg);
	sim_job(sm, 1, SCHED_OP_READ, false, 64 * KIB, 1)->think_ns = 200 * US;
	sim_job(sm, 2, SCHED_OP_READ, true, 4 * KIB, 4);
	j = sim_job(sm, 3, SCHED_OP_WRITE, false, 64 * KIB, 8);
	j->think_ns = MS;
	j = sim_job(sm, 4, SCHED_OP_READ, false, 64 * KIB, 1);
	j->group = 1;
	sim_run(sm, T0 + 5000 * MS);
	assert_int_equal(sim_cfq(sm)->idle_timer_armed, 0);
	assert_false(sm->timer_seen);
	assert_true(sm->dispatched > 100);
	sim_free(sm);

	/* The same with the default slice_idle=8: the timer is used. */
	cfq_config(&cfg, true, 32);
	sm = sim_new(&cfg);
	sim_job(sm, 1, SCHED_OP_READ, false, 64 * KIB, 1)->think_ns = 200 * US;
	sim_job(sm, 2, SCHED_OP_READ, false, 64 * KIB, 1)->think_ns = 200 * US;
	sim_run(sm, T0 + 2000 * MS);
	assert_true(sim_cfq(sm)->idle_timer_armed > 10);
	assert_true(sim_cfq(sm)->idle_hits > 10);
	assert_true(sm->timer_seen);
	sim_free(sm);
}

static void test_cfq_fifo_expire_bound(void **state)
{
	struct sched_config cfg;
	struct sim *sm;
	const struct sched_stats *ss;
	uint64_t bound;

	(void)state;
	cfq_config(&cfg, true, 32);
	sm = sim_new(&cfg);
	for (uint32_t o = 1; o <= 3; o++)
		sim_job(sm, o, SCHED_OP_READ, true, 4 * KIB, 8);
	sim_job(sm, 4, SCHED_OP_READ, false, 64 * KIB, 2);
	sim_run(sm, T0 + 10000 * MS);
	ss = &sm->s->stats;
	/*
	 * FIFO expiry is checked once per slice, so a request may wait out its fifo_expire,
	 * then the other queues' turn (at most target_latency), then one more slice.
	 */
	bound = 125 * MS + 300 * MS + 100 * MS;
	for (uint32_t o = 1; o <= 4; o++) {
		assert_true(ss->entity[o].completed > 50);
		print_message("owner %u max wait %llu ms\n", o,
			      (unsigned long long)(ss->entity[o].max_wait_ns / MS));
		if (ss->entity[o].max_wait_ns > bound)
			print_error("owner %u max wait %llu ms\n", o,
				    (unsigned long long)(ss->entity[o].max_wait_ns / MS));
		assert_true(ss->entity[o].max_wait_ns <= bound);
	}
	assert_true(sim_cfq(sm)->fifo_dispatches > 0);
	sim_free(sm);
}

static void run_two_groups(bool rotational, const char *slice_idle, const char *group_idle,
			   double *ratio, struct sim **out)
{
	struct sched_config cfg;
	struct sim *sm;
	struct sim_job *j;

	cfq_config(&cfg, rotational, 32);
	cfg.group_weight[1] = 100;
	cfg.group_weight[2] = 200;
	if (slice_idle)
		set_tunable(&cfg, "slice_idle", slice_idle);
	if (group_idle)
		set_tunable(&cfg, "group_idle", group_idle);
	sm = sim_new(&cfg);
	if (rotational) {
		j = sim_job(sm, 1, SCHED_OP_READ, false, 64 * KIB, 1);
		j->group = 1;
		j = sim_job(sm, 2, SCHED_OP_READ, false, 64 * KIB, 1);
		j->group = 2;
	} else {
		for (uint32_t o = 1; o <= 4; o++) {
			j = sim_job(sm, o, SCHED_OP_READ, true, 4 * KIB, 16);
			j->group = o <= 2 ? 1 : 2;
		}
	}
	sim_run(sm, T0 + 20000 * MS);
	*ratio = cfq_group_share(cfq_of(sm->s), 2) / cfq_group_share(cfq_of(sm->s), 1);
	*out = sm;
}

static void test_cfq_group_weights_time_mode(void **state)
{
	struct sim *sm;
	const struct sched_stats *ss;
	double ratio, bytes_ratio;

	(void)state;
	run_two_groups(true, NULL, NULL, &ratio, &sm);
	ss = &sm->s->stats;
	assert_false(cfq_iops_mode(cfq_of(sm->s)));
	assert_true(sim_cfq(sm)->time_mode_charges > 10);
	assert_int_equal(sim_cfq(sm)->iops_mode_charges, 0);
	bytes_ratio = (double)ss->entity[2].bytes / (double)ss->entity[1].bytes;
	print_message("time mode: group 2/1 service %.2f, bytes %.2f\n", ratio, bytes_ratio);
	assert_true(ratio > 1.7 && ratio < 2.3);
	assert_true(bytes_ratio > 1.6 && bytes_ratio < 2.4);
	/* The only queue of its group waits busy at the end of its slice. */
	assert_true(sim_cfq(sm)->wait_busy > 0);
	/* Group idling kept each group on the tree between its requests. */
	assert_true(sim_cfq(sm)->idle_timer_armed > 0);
	sim_free(sm);
}

static void test_cfq_iops_mode_ssd(void **state)
{
	struct sim *sm;
	double ratio;
	const struct cfq_stats *st;

	(void)state;
	/* Non-rotational with the defaults: slice_idle 0, a queueing device: IOPS mode. */
	run_two_groups(false, NULL, NULL, &ratio, &sm);
	st = sim_cfq(sm);
	print_message("iops mode: group 2/1 requests %.2f, hw_tag %d depth %u\n", ratio,
		      st->hw_tag, st->hw_tag_est_depth);
	assert_int_equal(st->hw_tag, 1);
	assert_true(cfq_iops_mode(cfq_of(sm->s)));
	assert_true(st->iops_mode_charges > 10);
	assert_true(ratio > 1.5 && ratio < 2.5);
	/* No per-queue idling on a queueing SSD: only group idling may arm the timer. */
	assert_int_equal(st->idle_timer_armed, st->group_idle_armed);
	assert_true(sm->s->stats.max_in_flight >= 5);
	sim_free(sm);
}

static void test_cfq_hw_tag_detection(void **state)
{
	struct sched_config cfg;
	struct sim *sm;

	(void)state;
	/* A device that takes one request at a time: no queueing. */
	cfq_config(&cfg, false, 1);
	sm = sim_new(&cfg);
	for (uint32_t o = 1; o <= 3; o++)
		sim_job(sm, o, SCHED_OP_READ, true, 4 * KIB, 8);
	sim_run(sm, T0 + 2000 * MS);
	assert_int_equal(sim_cfq(sm)->hw_tag, 0);
	assert_false(cfq_iops_mode(cfq_of(sm->s)));
	sim_free(sm);
}

static void test_cfq_slice_prio_scaling(void **state)
{
	static struct trace_buf tb;
	struct sched_config cfg;
	struct sim *sm;
	struct sim_job *j;
	uint64_t s0, s7;

	(void)state;
	for (int level = 0; level <= 7; level += 7) {
		cfq_config(&cfg, true, 32);
		sm = sim_new(&cfg);
		trace_attach(&tb, sm->s);
		sm->tb = &tb;
		j = sim_job(sm, 1, SCHED_OP_READ, false, 64 * KIB, 1);
		j->prio_class = SCHED_IOPRIO_CLASS_BE;
		j->prio_level = (uint8_t)level;
		sim_run(sm, T0 + 500 * MS);
		if (level == 0)
			s0 = trace_first_slice(&tb, "cfq1S");
		else
			s7 = trace_first_slice(&tb, "cfq1S");
		sim_free(sm);
	}
	/* slice_sync + slice_sync/5 * (4 - level) */
	assert_int_equal(s0, 180 * MS);
	assert_int_equal(s7, 40 * MS);
	assert_true(s0 > s7);
}

static void test_cfq_low_latency_scaling(void **state)
{
	static struct trace_buf tb;
	struct sched_config cfg;
	struct sim *sm;
	uint64_t with, without;

	(void)state;
	for (int ll = 1; ll >= 0; ll--) {
		cfq_config(&cfg, true, 32);
		if (!ll)
			set_tunable(&cfg, "low_latency", "0");
		sm = sim_new(&cfg);
		for (uint32_t o = 1; o <= 6; o++)
			sim_job(sm, o, SCHED_OP_READ, false, 64 * KIB, 1);
		sim_run(sm, T0 + 3000 * MS);
		/* Slices after the busy average has settled. */
		trace_attach(&tb, sm->s);
		sm->tb = &tb;
		sim_run(sm, T0 + 4000 * MS);
		if (ll)
			with = trace_first_slice(&tb, "cfq");
		else
			without = trace_first_slice(&tb, "cfq");
		sim_free(sm);
	}
	/* Six queues x 100 ms > 300 ms: scaled to 300/6 = 50 ms (floor 2*slice_idle = 16). */
	assert_int_equal(without, 100 * MS);
	assert_int_equal(with, 50 * MS);
}

static void test_cfq_seeky_no_idle(void **state)
{
	static struct trace_buf tb;
	struct sched_config cfg;
	struct sim *sm;

	(void)state;
	cfq_config(&cfg, true, 32);
	sm = sim_new(&cfg);
	trace_attach(&tb, sm->s);
	sm->tb = &tb;
	sim_job(sm, 1, SCHED_OP_READ, true, 4 * KIB, 1);
	sim_job(sm, 2, SCHED_OP_READ, false, 64 * KIB, 1);
	sim_run(sm, T0 + 1000 * MS);
	/* The random reader loses its idle window; the sequential one keeps it. */
	assert_true(trace_count(&tb, "cfq1S", "idle=0") >= 1);
	assert_int_equal(trace_count(&tb, "cfq2S", "idle=0"), 0);
	assert_true(trace_count(&tb, "cfq2S", "arm_idle") > 0);
	assert_true(trace_count(&tb, NULL, "slice expired t=") > 0);
	sim_free(sm);

	/* Non-rotational: small requests are seeky even when sequential. */
	cfq_config(&cfg, false, 32);
	set_tunable(&cfg, "slice_idle", "8");
	sm = sim_new(&cfg);
	trace_attach(&tb, sm->s);
	sm->tb = &tb;
	sim_job(sm, 1, SCHED_OP_READ, false, 4 * KIB, 1);
	sim_job(sm, 2, SCHED_OP_READ, false, 64 * KIB, 1);
	sim_run(sm, T0 + 500 * MS);
	assert_true(trace_count(&tb, "cfq1S", "idle=0") >= 1);
	assert_int_equal(trace_count(&tb, "cfq2S", "idle=0"), 0);
	sim_free(sm);
}

static void test_cfq_idle_class(void **state)
{
	struct sched_config cfg;
	struct sched *s;
	struct sched_request idle, be;
	uint64_t t = T0;

	(void)state;
	cfq_config(&cfg, true, 32);
	s = test_sched_new(&cfg, t);
	rq_read(&idle, 1, 0, 4096);
	idle.prio_class = SCHED_IOPRIO_CLASS_IDLE;
	rq_read(&be, 2, 10 * GIB, 4096);
	sched_insert(s, &idle, t);
	sched_insert(s, &be, t);
	/* BE first, however early the idle-class request came. */
	assert_ptr_equal(sched_dispatch(s, t), &be);
	sched_completed(s, &be, t + MS);
	if (sched_next_timer(s) != SCHED_NO_TIMER)
		sched_run_timer(s, sched_next_timer(s));
	/* No BE left: the idle class gets the disk, one request at a time, never idled for. */
	t += 20 * MS;
	assert_ptr_equal(sched_dispatch(s, t), &idle);
	sched_completed(s, &idle, t + MS);
	assert_int_equal(sched_next_timer(s), SCHED_NO_TIMER);
	assert_int_equal(cfq_get_stats(cfq_of(s))->slices_expired[CFQ_EXPIRE_IDLE_CLASS], 1);
	test_sched_free(s);
}

/* Seed 2015: on a queueing SSD, slice_idle=0 (IOPS mode) is at least as fast as 8 ms. */
static void test_cfq_seed_ssd_slice_idle(void **state)
{
	uint64_t done[2];

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct sched_config cfg;
		struct sim *sm;

		cfq_config(&cfg, false, 32);
		set_tunable(&cfg, "slice_idle", i ? "8" : "0");
		sm = sim_new(&cfg);
		for (uint32_t o = 1; o <= 8; o++)
			sim_job(sm, o, SCHED_OP_READ, true, 4 * KIB, 32);
		sim_run(sm, T0 + 2000 * MS);
		done[i] = sm->s->stats.completed;
		if (i == 0)
			assert_true(cfq_iops_mode(cfq_of(sm->s)));
		else
			assert_false(cfq_iops_mode(cfq_of(sm->s)));
		sim_free(sm);
	}
	print_message("ssd random read: slice_idle=0 %llu, slice_idle=8 %llu requests (Off/On %.2f)\n",
		      (unsigned long long)done[0], (unsigned long long)done[1],
		      (double)done[0] / (double)done[1]);
	/*
	 * Expected values from this sim and the kernel's source, not from a run: the sim's SSD
	 * serves each 4 KiB read in 100 us + 4096 x 2 ns = 108.192 us, all in parallel, so
	 * throughput is depth / 108.192 us. slice_idle=0 (IOPS mode) keeps quantum = 8 in flight:
	 * 8 x 2 s / 108.192 us = 147,885 requests (-1% for filling the queue at the start).
	 * slice_idle=8: cfq_slice_used_soon() stops a queue past quantum/2 in flight when
	 * now + slice_idle x dispatched passes its slice end, so 4..5 in flight: 73,942..92,428,
	 * and Off/On 1.6..2.0.
	 */
	{
		const double per_depth = 2000.0 * MS / (100.0 * US + 4096 * 2.0);

		assert_true(done[0] >= 0.99 * 8 * per_depth && done[0] <= 8 * per_depth);
		assert_true(done[1] >= 0.99 * 4 * per_depth && done[1] <= 5 * per_depth);
	}
}

/* Seed 2010: without any idling, 100:200 groups of one reader each drift towards 1:1. */
static void test_cfq_seed_group_idle_off(void **state)
{
	struct sim *sm;
	double ratio;

	(void)state;
	run_two_groups(true, "0", "0", &ratio, &sm);
	print_message("no idling: group 2/1 service %.2f\n", ratio);
	assert_int_equal(sim_cfq(sm)->idle_timer_armed, 0);
	assert_true(ratio < 1.3);
	sim_free(sm);
}

/* Seed 2014: longer target_latency keeps slices long for many sequential readers. */
static void test_cfq_seed_target_latency(void **state)
{
	uint64_t bytes[2];

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct sched_config cfg;
		struct sim *sm;

		cfq_config(&cfg, true, 32);
		set_tunable(&cfg, "target_latency", i ? "600" : "300");
		sm = sim_new(&cfg);
		for (uint32_t o = 1; o <= 8; o++)
			sim_job(sm, o, SCHED_OP_READ, false, 64 * KIB, 1);
		sim_run(sm, T0 + 5000 * MS);
		bytes[i] = 0;
		for (uint32_t o = 1; o <= 8; o++)
			bytes[i] += sm->s->stats.entity[o].bytes;
		sim_free(sm);
	}
	print_message("8 seq readers: target_latency 300 %llu MiB, 600 %llu MiB\n",
		      (unsigned long long)(bytes[0] / MIB), (unsigned long long)(bytes[1] / MIB));
	assert_true(bytes[1] > bytes[0]);
}

/* Seed 2009: fsync writes are sync-noidle and get through a heavy buffered writer. */
static void test_cfq_seed_fsync_vs_writer(void **state)
{
	static struct trace_buf tb;
	struct sched_config cfg;
	struct sim *sm;
	struct sim_job *j;
	const struct sched_stats *ss;

	(void)state;
	cfq_config(&cfg, true, 32);
	sm = sim_new(&cfg);
	trace_attach(&tb, sm->s);
	sm->tb = &tb;
	sim_job(sm, 1, SCHED_OP_WRITE, false, 256 * KIB, 64);
	j = sim_job(sm, 2, SCHED_OP_WRITE, false, 4 * KIB, 1);
	j->flags = SCHED_RQ_SYNC;
	j->think_ns = 10 * MS;
	sim_run(sm, T0 + 3000 * MS);
	ss = &sm->s->stats;
	print_message("fsync writer: %llu done, max wait %llu ms\n",
		      (unsigned long long)ss->entity[2].completed,
		      (unsigned long long)(ss->entity[2].max_wait_ns / MS));
	/* Its queue lives on the sync-noidle tree ("N"), preempting the async writer. */
	assert_true(trace_count(&tb, "cfq2SN", "insert_request") > 0);
	assert_true(sim_cfq(sm)->preemptions > 0);
	assert_true(ss->entity[2].completed > 20);
	assert_true(ss->entity[2].max_wait_ns < 125 * MS);
	assert_true(ss->entity[1].completed > 0);
	sim_free(sm);
}

/*
 * Random operations: inserts of every kind from processes that come and go, completions in
 * any order, timers, exits. Then drain: CFQ must hand out every request and stop its timer.
 */
/* Flushes on the core's dispatch list (they never enter the elevator). */
static uint32_t flushes_waiting(const struct sched *s)
{
	uint32_t n = 0;

	for (const struct sched_list *p = s->bypass.next; p != &s->bypass; p = p->next)
		n++;
	return n;
}

static void stress_run(bool rotational, uint32_t depth, const char *slice_idle, uint64_t seed)
{
	static struct sched_request rqs[128];
	static bool busy[128], on_dev[128];
	struct sched_config cfg;
	struct sched *s;
	struct sched_request *rq;
	struct test_rng rng;
	uint64_t now = T0, next_off[8] = { 0 };
	int guard;

	memset(busy, 0, sizeof(busy));
	memset(on_dev, 0, sizeof(on_dev));
	test_rng_seed(&rng, seed);
	cfq_config(&cfg, rotational, depth);
	cfg.group_weight[1] = 100;
	cfg.group_weight[2] = 1000;
	if (slice_idle)
		set_tunable(&cfg, "slice_idle", slice_idle);
	s = test_sched_new(&cfg, now);

	for (int it = 0; it < 20000; it++) {
		uint64_t a = test_rng_below(&rng, 10);

		if (a <= 4) {
			int i = (int)test_rng_below(&rng, 128);
			uint32_t o = (uint32_t)test_rng_below(&rng, 8);

			if (!busy[i]) {
				static const uint8_t fl[] = { 0, SCHED_RQ_SYNC,
							      SCHED_RQ_SYNC | SCHED_RQ_IDLE,
							      SCHED_RQ_META };
				test_rq_init(&rqs[i], o, (enum sched_op)test_rng_below(&rng, 4),
					     fl[test_rng_below(&rng, 4)], 0,
					     512 * test_rng_range(&rng, 1, 512));
				if (test_rng_below(&rng, 2)) {
					rqs[i].offset = next_off[o];
				} else {
					rqs[i].offset = test_rng_below(&rng, 1u << 20) * 4096;
				}
				next_off[o] = rqs[i].offset + rqs[i].length;
				rqs[i].group = (uint32_t)test_rng_below(&rng, 3);
				rqs[i].prio_class = (uint8_t)test_rng_below(&rng, 4);
				rqs[i].prio_level = (uint8_t)test_rng_below(&rng, 8);
				assert_int_equal(sched_insert(s, &rqs[i], now), 0);
				busy[i] = true;
			}
		} else if (a <= 6) {
			int i = (int)test_rng_below(&rng, 128);

			if (on_dev[i]) {
				sched_completed(s, &rqs[i], now);
				on_dev[i] = false;
				busy[i] = false;
			}
		} else if (a <= 8) {
			now += test_rng_below(&rng, 12 * MS);
			if (sched_next_timer(s) <= now)
				sched_run_timer(s, now);
		} else {
			sched_entity_exit(s, (uint32_t)test_rng_below(&rng, 8), now);
		}
		while ((rq = sched_dispatch(s, now)))
			on_dev[rq - rqs] = true;
		/* Flushes waiting are the core's (they never enter the elevator), not CFQ's. */
		assert_int_equal(sched_ops(s)->has_work(s->policy),
				 sched_queued(s) > flushes_waiting(s));
	}

	/* Drain. */
	for (guard = 0; guard < 100000; guard++) {
		bool any = false;

		for (int i = 0; i < 128; i++)
			if (on_dev[i]) {
				now += 100 * US;
				sched_completed(s, &rqs[i], now);
				on_dev[i] = false;
				busy[i] = false;
				any = true;
				break;
			}
		if (!any && sched_next_timer(s) != SCHED_NO_TIMER) {
			now = sched_next_timer(s) > now ? sched_next_timer(s) : now;
			sched_run_timer(s, now);
			any = true;
		}
		while ((rq = sched_dispatch(s, now))) {
			on_dev[rq - rqs] = true;
			any = true;
		}
		if (!any)
			break;
	}
	assert_int_equal(sched_queued(s), 0);
	assert_false(sched_ops(s)->has_work(s->policy));
	assert_int_equal(s->dev.in_flight, 0);
	assert_int_equal(s->stats.inserted, s->stats.completed);
	test_sched_free(s);
}

static void test_cfq_random_stress(void **state)
{
	(void)state;
	stress_run(true, 32, NULL, 1);
	stress_run(true, 1, NULL, 2);
	stress_run(false, 32, NULL, 3);
	stress_run(false, 64, "8", 4);
	stress_run(true, 4, "0", 5);
}

static void run_mixed(uint64_t *hash, struct cfq_stats *out, uint64_t *dispatched)
{
	struct sched_config cfg;
	struct sim *sm;
	struct sim_job *j;

	cfq_config(&cfg, true, 32);
	cfg.group_weight[1] = 300;
	sm = sim_new(&cfg);
	sim_job(sm, 1, SCHED_OP_READ, false, 64 * KIB, 1)->think_ns = 300 * US;
	sim_job(sm, 2, SCHED_OP_READ, true, 4 * KIB, 4);
	j = sim_job(sm, 3, SCHED_OP_WRITE, false, 128 * KIB, 16);
	j->think_ns = 2 * MS;
	j = sim_job(sm, 4, SCHED_OP_WRITE, true, 4 * KIB, 1);
	j->flags = SCHED_RQ_SYNC; /* fsync-like: sync write, no REQ_IDLE */
	j->think_ns = 5 * MS;
	j = sim_job(sm, 5, SCHED_OP_READ, false, 64 * KIB, 2);
	j->group = 1;
	j = sim_job(sm, 6, SCHED_OP_READ, true, 4 * KIB, 1);
	j->prio_class = SCHED_IOPRIO_CLASS_IDLE;
	j = sim_job(sm, 7, SCHED_OP_READ, true, 16 * KIB, 2);
	j->prio_class = SCHED_IOPRIO_CLASS_RT;
	j->prio_level = 3;
	j->think_ns = 20 * MS;
	j->exit_at = T0 + 1500 * MS;
	sim_run(sm, T0 + 3000 * MS);
	*hash = sm->hash;
	*dispatched = sm->dispatched;
	*out = *sim_cfq(sm);
	/*
	 * Everyone got service but the idle class: the root group always has busy BE queues
	 * (the async writer), and 4.19 serves IDLE only when a group has no RT/BE queue.
	 */
	for (uint32_t o = 1; o <= 7; o++) {
		if (o == 6)
			continue;
		if (!sm->s->stats.entity[o].completed)
			print_error("owner %u: nothing completed\n", o);
		assert_true(sm->s->stats.entity[o].completed > 0);
	}
	assert_int_equal(sm->s->stats.entity[6].completed, 0);
	sim_free(sm);
}

static void test_cfq_deterministic(void **state)
{
	static struct cfq_stats a, b;
	uint64_t ha, hb, da, db;

	(void)state;
	run_mixed(&ha, &a, &da);
	run_mixed(&hb, &b, &db);
	assert_int_equal(ha, hb);
	assert_int_equal(da, db);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_true(da > 100);
	assert_true(a.slices_started > 10);
}

/* The tests of this file cmocka runs (main()). */
static const struct CMUnitTest *cfq_tests;
static size_t cfq_tests_nr;

/* The tests cfq_switch_tests.h names in this file (a switch's both-position test) run here. */
static void test_cfq_switch_tests_exist(void **state)
{
	(void)state;
	assert_int_equal(cfq_switch_tests_missing("test_cfq.c", cfq_tests, cfq_tests_nr), 0);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cfq_tunables),
		cmocka_unit_test(test_cfq_device_defaults),
		cmocka_unit_test(test_cfq_profile_41_jiffies),
		cmocka_unit_test(test_cfq_profile_refusals),
		cmocka_unit_test(test_cfq_profile_switches),
		cmocka_unit_test(test_cfq_profile_versions),
		cmocka_unit_test(test_cfq_profile_ssd_iops),
		cmocka_unit_test(test_cfq_idle_window_hit),
		cmocka_unit_test(test_cfq_exit_stops_idling),
		cmocka_unit_test(test_cfq_rt_before_be),
		cmocka_unit_test(test_cfq_async_waits_for_sync),
		cmocka_unit_test(test_cfq_quantum_caps),
		cmocka_unit_test(test_cfq_back_seek),
		cmocka_unit_test(test_cfq_queues_per_owner),
		cmocka_unit_test(test_cfq_no_idle_timer_slice_idle_0),
		cmocka_unit_test(test_cfq_fifo_expire_bound),
		cmocka_unit_test(test_cfq_group_weights_time_mode),
		cmocka_unit_test(test_cfq_iops_mode_ssd),
		cmocka_unit_test(test_cfq_hw_tag_detection),
		cmocka_unit_test(test_cfq_slice_prio_scaling),
		cmocka_unit_test(test_cfq_low_latency_scaling),
		cmocka_unit_test(test_cfq_seeky_no_idle),
		cmocka_unit_test(test_cfq_idle_class),
		cmocka_unit_test(test_cfq_seed_ssd_slice_idle),
		cmocka_unit_test(test_cfq_seed_group_idle_off),
		cmocka_unit_test(test_cfq_seed_target_latency),
		cmocka_unit_test(test_cfq_seed_fsync_vs_writer),
		cmocka_unit_test(test_cfq_random_stress),
		cmocka_unit_test(test_cfq_deterministic),
		cmocka_unit_test(test_cfq_switch_tests_exist),
	};

	cfq_tests = tests;
	cfq_tests_nr = sizeof(tests) / sizeof(tests[0]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
