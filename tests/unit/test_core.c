// SPDX-License-Identifier: GPL-2.0
/*
 * The core's API contracts: configuration, policy table, memory, request validation, tunables,
 * and two properties of whole runs: determinism and exactly-once delivery.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sched.h"
#include "support.h"

static const char *const names[SCHED_POLICY_NR] = {
	[SCHED_POLICY_NONE] = "none",
	[SCHED_POLICY_DEADLINE] = "deadline",
	[SCHED_POLICY_CFQ] = "cfq",
	[SCHED_POLICY_BFQ] = "bfq",
	[SCHED_POLICY_KYBER] = "kyber",
};

/* ---- configuration ---------------------------------------------------------------------- */

static void test_config_defaults(void **state)
{
	(void)state;
	for (int id = 0; id < SCHED_POLICY_NR; id++) {
		const struct sched_policy_ops *ops = sched_policy_ops(id);
		unsigned int nr = ops ? ops->nr_tunables : 0;
		struct sched_config cfg;

		memset(&cfg, 0xa5, sizeof(cfg)); /* every field must be written */
		sched_config_defaults(&cfg, id);
		assert_int_equal(cfg.policy, id);
		assert_int_equal(cfg.hw_queue_depth, 32);
		assert_true(cfg.rotational);
		assert_int_equal(cfg.max_entities, SCHED_MAX_ENTITIES);
		assert_int_equal(cfg.max_groups, SCHED_MAX_GROUPS);
		for (int g = 0; g < SCHED_MAX_GROUPS; g++) /* io.bfq.weight: 100; blkio: 500 */
			assert_int_equal(cfg.group_weight[g],
					 id == SCHED_POLICY_BFQ ? 100 : SCHED_WEIGHT_DEFAULT);
		assert_true(nr <= SCHED_MAX_TUNABLES);
		for (unsigned int i = 0; i < SCHED_MAX_TUNABLES; i++) {
			assert_false(cfg.tunable_given[i]);
			assert_int_equal(cfg.tunable[i], i < nr ? ops->tunables[i].def : 0);
		}
	}
	assert_int_equal(SCHED_WEIGHT_DEFAULT, 500);
}

static void test_config_defaults_pass_check(void **state)
{
	(void)state;
	for (int id = 0; id < SCHED_POLICY_NR; id++) {
		struct sched_config cfg;
		char err[256] = "";

		if (!sched_policy_available(id))
			continue;
		sched_config_defaults(&cfg, id);
		assert_int_equal(sched_config_check(&cfg, err, sizeof(err)), 0);
	}
}

/* Checks that cfg is refused with a one-line message, and that sched_init refuses it too. */
static void expect_config_error(const struct sched_config *cfg, const char *needle)
{
	char err[256];
	void *mem;

	memset(err, 0, sizeof(err));
	assert_int_equal(sched_config_check(cfg, err, sizeof(err)), -1);
	test_assert_one_line(err);
	if (needle && !strstr(err, needle)) {
		print_error("message '%s' does not mention '%s'\n", err, needle);
		fail();
	}

	/* Plenty of aligned memory: the refusal must come from the configuration. */
	mem = aligned_alloc(16, 1 << 20);
	assert_non_null(mem);
	memset(err, 0, sizeof(err));
	assert_null(sched_init(mem, 1 << 20, cfg, 0, err, sizeof(err)));
	test_assert_one_line(err);
	free(mem);
}

static void expect_config_ok(const struct sched_config *cfg)
{
	char err[256] = "";
	struct sched *s;

	if (sched_config_check(cfg, err, sizeof(err))) {
		print_error("refused: %s\n", err);
		fail();
	}
	s = test_sched_new(cfg, 0);
	test_sched_free(s);
}

static void test_config_check_errors(void **state)
{
	static const uint16_t bad_weights[] = {0, SCHED_WEIGHT_MIN - 1, SCHED_WEIGHT_MAX + 1,
					       UINT16_MAX};
	struct sched_config cfg;

	(void)state;
	test_none_config(&cfg, 0);
	expect_config_error(&cfg, "hw_queue_depth");
	test_none_config(&cfg, 65537);
	expect_config_error(&cfg, "hw_queue_depth");
	test_none_config(&cfg, UINT32_MAX);
	expect_config_error(&cfg, "hw_queue_depth");

	test_none_config(&cfg, 32);
	cfg.max_entities = 0;
	expect_config_error(&cfg, "max_entities");
	cfg.max_entities = SCHED_CORE_MAX_ENTITIES + 1;
	expect_config_error(&cfg, "max_entities");
	cfg.max_entities = UINT32_MAX;
	expect_config_error(&cfg, "max_entities");

	test_none_config(&cfg, 32);
	cfg.max_groups = 0;
	expect_config_error(&cfg, "max_groups");
	cfg.max_groups = SCHED_MAX_GROUPS + 1;
	expect_config_error(&cfg, "max_groups");

	/* Weights out of 10..1000, at the first and at the last group in use. */
	for (size_t i = 0; i < sizeof(bad_weights) / sizeof(bad_weights[0]); i++) {
		test_none_config(&cfg, 32);
		cfg.group_weight[0] = bad_weights[i];
		expect_config_error(&cfg, "weight");
		test_none_config(&cfg, 32);
		cfg.group_weight[SCHED_MAX_GROUPS - 1] = bad_weights[i];
		expect_config_error(&cfg, "weight");
		test_none_config(&cfg, 32);
		cfg.max_groups = 5;
		cfg.group_weight[4] = bad_weights[i];
		expect_config_error(&cfg, "weight");
	}

	/* A policy id outside the table. */
	test_none_config(&cfg, 32);
	cfg.policy = SCHED_POLICY_NR;
	expect_config_error(&cfg, NULL);
	cfg.policy = (enum sched_policy_id)-1;
	expect_config_error(&cfg, NULL);
}

static void test_config_check_boundaries_ok(void **state)
{
	struct sched_config cfg;

	(void)state;
	test_none_config(&cfg, 1);
	expect_config_ok(&cfg);
	test_none_config(&cfg, 65536);
	expect_config_ok(&cfg);

	test_none_config(&cfg, 32);
	cfg.max_entities = 1;
	cfg.max_groups = 1;
	expect_config_ok(&cfg);
	cfg.max_entities = SCHED_MAX_ENTITIES;
	cfg.max_groups = SCHED_MAX_GROUPS;
	expect_config_ok(&cfg);
	/* Beyond the engine's limit, up to the core's own. */
	cfg.max_entities = SCHED_MAX_ENTITIES + 1;
	expect_config_ok(&cfg);
	cfg.max_entities = SCHED_CORE_MAX_ENTITIES;
	expect_config_ok(&cfg);

	for (int g = 0; g < SCHED_MAX_GROUPS; g++)
		cfg.group_weight[g] = g & 1 ? SCHED_WEIGHT_MAX : SCHED_WEIGHT_MIN;
	expect_config_ok(&cfg);
}

/* A short buffer gets a terminated, truncated message and nothing is written past it. */
static void test_config_check_message_truncated(void **state)
{
	struct sched_config cfg;
	char err[64];

	(void)state;
	test_none_config(&cfg, 0);
	memset(err, 'Z', sizeof(err));
	assert_int_equal(sched_config_check(&cfg, err, 8), -1);
	assert_int_equal(strlen(err), 7);
	for (size_t i = 8; i < sizeof(err); i++)
		assert_int_equal(err[i], 'Z');
}

/* ---- the policy table ------------------------------------------------------------------- */

static void test_policy_by_name(void **state)
{
	static const char *const unknown[] = {"", "noop", "mq-deadline", "kyber ", "non", "nonee",
					      "cfq ", " bfq", "deadline\n", "Kyber"};

	(void)state;
	assert_int_equal(sched_policy_by_name("none"), SCHED_POLICY_NONE);
	assert_int_equal(sched_policy_by_name("deadline"), SCHED_POLICY_DEADLINE);
	assert_int_equal(sched_policy_by_name("cfq"), SCHED_POLICY_CFQ);
	assert_int_equal(sched_policy_by_name("bfq"), SCHED_POLICY_BFQ);
	assert_int_equal(sched_policy_by_name("kyber"), SCHED_POLICY_KYBER);
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
		assert_int_equal(sched_policy_by_name(unknown[i]), -1);
}

static void test_policy_table(void **state)
{
	(void)state;
	assert_true(sched_policy_available(SCHED_POLICY_NONE));
	assert_false(sched_policy_available(SCHED_POLICY_NR));
	assert_null(sched_policy_ops(SCHED_POLICY_NR));
	assert_null(sched_policy_ops((enum sched_policy_id)-1));
	for (int id = 0; id < SCHED_POLICY_NR; id++) {
		const struct sched_policy_ops *ops = sched_policy_ops(id);

		assert_int_equal(sched_policy_available(id), ops != NULL);
		if (!ops)
			continue;
		/* Its name maps back to it, and every mandatory op is there. */
		assert_string_equal(ops->name, names[id]);
		assert_int_equal(sched_policy_by_name(ops->name), id);
		assert_true(ops->nr_tunables <= SCHED_MAX_TUNABLES);
		assert_true(!ops->nr_tunables || ops->tunables);
		assert_non_null(ops->state_size);
		assert_non_null(ops->init);
		assert_non_null(ops->insert);
		assert_non_null(ops->dispatch);
		assert_non_null(ops->completed);
		/* Timers are optional, but both or neither. */
		assert_true(!ops->next_timer == !ops->timer);
		assert_non_null(ops->has_work);
	}
}

/* Runs the timer at its deadline (or now, when later): for policies that idle. */
static uint64_t run_due_timer(struct sched *s, uint64_t now)
{
	uint64_t t = sched_next_timer(s);

	if (t == SCHED_NO_TIMER)
		return now;
	if (t > now)
		now = t;
	sched_run_timer(s, now);
	return now;
}

/* A built policy initialises with its defaults and carries one request through. */
static void check_policy_works(enum sched_policy_id id)
{
	struct sched_config cfg;
	struct sched_request rq;
	struct sched *s;
	char err[256] = "";
	uint64_t now = 1000;

	sched_config_defaults(&cfg, id);
	assert_int_equal(sched_config_check(&cfg, err, sizeof(err)), 0);
	assert_true(sched_size(&cfg) > sizeof(struct sched));
	s = test_sched_new(&cfg, now);
	assert_string_equal(sched_ops(s)->name, names[id]);
	assert_int_equal(sched_queued(s), 0);
	assert_null(sched_dispatch(s, now));
	test_rq_init(&rq, 0, SCHED_OP_READ, 0, 0, 4096);
	assert_int_equal(sched_insert(s, &rq, now), 0);
	assert_int_equal(sched_queued(s), 1);
	/* The only request of the only owner must go out, at once or after a timer. */
	for (int k = 0; k < 1000; k++) {
		struct sched_request *got = sched_dispatch(s, now);

		if (got) {
			assert_ptr_equal(got, &rq);
			break;
		}
		assert_true(sched_next_timer(s) != SCHED_NO_TIMER);
		now = run_due_timer(s, now);
	}
	assert_int_equal(sched_queued(s), 0);
	assert_int_equal(s->dev.in_flight, 1);
	sched_completed(s, &rq, now + 100);
	assert_int_equal(s->stats.completed, 1);
	assert_int_equal(s->dev.in_flight, 0);
	test_sched_free(s);
}

/*
 * deadline, cfq and bfq land one at a time. Until one does, it must be refused with "not built
 * yet"; once it does, it must initialise and carry a request through.
 */
static void test_policies_not_built_or_working(void **state)
{
	static const enum sched_policy_id ids[] = {SCHED_POLICY_DEADLINE, SCHED_POLICY_CFQ,
						   SCHED_POLICY_BFQ};

	(void)state;
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		enum sched_policy_id id = ids[i];
		struct sched_config cfg;
		char err[256], want[64];
		int rc;

		if (sched_policy_available(id)) {
			check_policy_works(id);
			continue;
		}
		sched_config_defaults(&cfg, id);
		assert_int_equal(cfg.policy, id);
		snprintf(want, sizeof(want), "sched=%s: not built yet", names[id]);
		expect_config_error(&cfg, want);
		memset(err, 0, sizeof(err));
		rc = sched_config_set_tunable(&cfg, "slice_idle", "8", err, sizeof(err));
		assert_int_equal(rc, -1);
		test_assert_one_line(err);
	}
}

/* ---- memory ----------------------------------------------------------------------------- */

static void test_size(void **state)
{
	struct sched_config cfg;

	(void)state;
	for (int id = 0; id < SCHED_POLICY_NR; id++) {
		if (!sched_policy_available(id))
			continue;
		sched_config_defaults(&cfg, id);
		assert_true(sched_size(&cfg) >= sizeof(struct sched));
		assert_int_equal(sched_size(&cfg) % 16, 0);
		cfg.max_entities = 1;
		cfg.max_groups = 1;
		cfg.hw_queue_depth = 1;
		assert_true(sched_size(&cfg) >= sizeof(struct sched));
	}
}

/* Memory that is too small or misaligned is refused before a byte of it is written. */
static void test_init_refuses_bad_memory(void **state)
{
	enum { GUARD = 256 };
	struct sched_config cfg;
	unsigned char *mem, *copy;
	size_t size, total;
	char err[256];
	static const size_t shortfall[] = {1, 8, 15, 16, 17};
	static const size_t misalign[] = {1, 4, 8, 12};

	(void)state;
	test_none_config(&cfg, 32);
	size = sched_size(&cfg);
	assert_true(size > 0);
	total = size + 2 * GUARD;
	mem = aligned_alloc(16, total);
	copy = malloc(total);
	assert_non_null(mem);
	assert_non_null(copy);
	for (size_t i = 0; i < total; i++)
		mem[i] = (unsigned char)(i * 31 + 7);
	memcpy(copy, mem, total);

	assert_null(sched_init(mem + GUARD, 0, &cfg, 0, err, sizeof(err)));
	for (size_t i = 0; i < sizeof(shortfall) / sizeof(shortfall[0]); i++) {
		memset(err, 0, sizeof(err));
		assert_null(sched_init(mem + GUARD, size - shortfall[i], &cfg, 0, err,
				       sizeof(err)));
		test_assert_one_line(err);
		assert_memory_equal(mem, copy, total);
	}
	for (size_t i = 0; i < sizeof(misalign) / sizeof(misalign[0]); i++) {
		memset(err, 0, sizeof(err));
		assert_null(sched_init(mem + GUARD + misalign[i], size + 64, &cfg, 0, err,
				       sizeof(err)));
		test_assert_one_line(err);
		assert_memory_equal(mem, copy, total);
	}
	/* A bad configuration with good memory: nothing written either. */
	cfg.hw_queue_depth = 0;
	assert_null(sched_init(mem + GUARD, size, &cfg, 0, err, sizeof(err)));
	assert_memory_equal(mem, copy, total);
	free(copy);
	free(mem);
}

/* Exactly sched_size() bytes are enough, and nothing outside them is touched by a run. */
static void test_init_exact_size_stays_inside(void **state)
{
	enum { GUARD = 256, N = 2000 };
	struct sched_request *rqs = calloc(N, sizeof(*rqs));
	struct sched_config cfg;
	unsigned char *mem;
	struct sched *s;
	size_t size;
	char err[256] = "";
	uint64_t now = 0;

	(void)state;
	assert_non_null(rqs);
	for (int id = 0; id < SCHED_POLICY_NR; id++) {
		if (!sched_policy_available(id))
			continue;
		sched_config_defaults(&cfg, id);
		cfg.hw_queue_depth = 8;
		size = sched_size(&cfg);
		mem = aligned_alloc(16, size + 2 * GUARD);
		assert_non_null(mem);
		memset(mem, 0x5a, size + 2 * GUARD);
		s = sched_init(mem + GUARD, size, &cfg, 0, err, sizeof(err));
		assert_ptr_equal(s, mem + GUARD);
		assert_true((char *)s->policy >= (char *)s + sizeof(*s));
		assert_int_equal((uintptr_t)s->policy % 16, 0);
		for (int i = 0; i < N; i++) {
			test_rq_init(&rqs[i], i % 16, i % SCHED_OP_NR, i & 1, i * 4096ull, 4096);
			assert_int_equal(sched_insert(s, &rqs[i], now), 0);
		}
		while (sched_queued(s) || s->dev.in_flight) {
			struct sched_request *rq;
			struct sched_request *batch[8];
			int n = 0;

			now += 1000;
			while ((rq = sched_dispatch(s, now)))
				batch[n++] = rq;
			for (int k = 0; k < n; k++)
				sched_completed(s, batch[k], now + 500);
			if (!n)
				now = run_due_timer(s, now);
			assert_true(now < 1000000000ull);
		}
		for (size_t i = 0; i < GUARD; i++) {
			assert_int_equal(mem[i], 0x5a);
			assert_int_equal(mem[GUARD + size + i], 0x5a);
		}
		free(mem);
	}
	free(rqs);
}

/*
 * Owners from SCHED_MAX_ENTITIES up keep their statistics after the policy state, inside the
 * sched_size() bytes; the first ones stay in struct sched_stats, as before.
 */
static void test_entity_stats_beyond_engine_limit(void **state)
{
	enum { GUARD = 256, EXTRA = 40 };
	static const uint32_t owners[] = {0, SCHED_MAX_ENTITIES - 1, SCHED_MAX_ENTITIES,
					  SCHED_MAX_ENTITIES + EXTRA - 1};
	struct sched_request rqs[4];
	struct sched_config cfg;
	unsigned char *mem;
	struct sched *s;
	size_t size;
	char err[256] = "";

	(void)state;
	for (int id = 0; id < SCHED_POLICY_NR; id++) {
		uint64_t now = 1000;
		int done = 0;

		if (!sched_policy_available(id))
			continue;
		sched_config_defaults(&cfg, id);
		cfg.max_entities = SCHED_MAX_ENTITIES + EXTRA;
		size = sched_size(&cfg);
		mem = aligned_alloc(16, size + 2 * GUARD);
		assert_non_null(mem);
		memset(mem, 0x5a, size + 2 * GUARD);
		s = sched_init(mem + GUARD, size, &cfg, now, err, sizeof(err));
		assert_ptr_equal(s, mem + GUARD);
		assert_non_null(s->entity_more);
		for (int i = 0; i < 4; i++) {
			test_rq_init(&rqs[i], owners[i], SCHED_OP_READ, 0, i * 1048576ull, 4096);
			assert_int_equal(sched_insert(s, &rqs[i], now), 0);
		}
		while (done < 4) {
			struct sched_request *rq;

			now += 1000;
			while ((rq = sched_dispatch(s, now))) {
				sched_completed(s, rq, now);
				done++;
			}
			now = run_due_timer(s, now);
			assert_true(now < 1000000000ull);
		}
		for (int i = 0; i < 4; i++) {
			const struct sched_entity_stats *es = sched_entity_stats(s, owners[i]);

			assert_int_equal(es->inserted, 1);
			assert_int_equal(es->completed, 1);
			assert_int_equal(es->bytes, 4096);
		}
		assert_ptr_equal(sched_entity_stats(s, 3), &s->stats.entity[3]);
		assert_int_equal(sched_entity_stats(s, SCHED_MAX_ENTITIES + 1)->inserted, 0);
		for (size_t i = 0; i < GUARD; i++) {
			assert_int_equal(mem[i], 0x5a);
			assert_int_equal(mem[GUARD + size + i], 0x5a);
		}
		free(mem);
	}
}

/* ---- request validation ----------------------------------------------------------------- */

struct rq_case {
	const char *what;
	uint32_t owner, group;
	uint8_t op, prio_class, prio_level;
};

static void test_insert_rejects_malformed(void **state)
{
	static const struct rq_case bad[] = {
		{"owner = max_entities", 8, 0, SCHED_OP_READ, 0, 0},
		{"owner huge", UINT32_MAX, 0, SCHED_OP_READ, 0, 0},
		{"group = max_groups", 0, 4, SCHED_OP_READ, 0, 0},
		{"group huge", 0, UINT32_MAX, SCHED_OP_READ, 0, 0},
		{"op = SCHED_OP_NR", 0, 0, SCHED_OP_NR, 0, 0},
		{"op 255", 0, 0, 255, 0, 0},
		{"prio_level 8", 0, 0, SCHED_OP_READ, SCHED_IOPRIO_CLASS_BE, 8},
		{"prio_level 255", 0, 0, SCHED_OP_READ, SCHED_IOPRIO_CLASS_BE, 255},
		{"prio_class 4", 0, 0, SCHED_OP_READ, 4, 0},
		{"prio_class 255", 0, 0, SCHED_OP_READ, 255, 0},
	};
	struct sched_config cfg;
	struct sched_request good, rq;
	struct sched *s;
	unsigned char *before;
	size_t size;

	(void)state;
	test_none_config(&cfg, 4);
	cfg.max_entities = 8;
	cfg.max_groups = 4;
	s = test_sched_new(&cfg, 0);
	size = sched_size(&cfg);
	before = malloc(size);
	assert_non_null(before);

	/* One request queued and one in flight, so that there is state to disturb. */
	test_rq_init(&good, 1, SCHED_OP_READ, 0, 0, 4096);
	assert_int_equal(sched_insert(s, &good, 5), 0);
	assert_ptr_equal(sched_dispatch(s, 6), &good);
	test_rq_init(&rq, 2, SCHED_OP_WRITE, 0, 0, 4096);
	assert_int_equal(sched_insert(s, &rq, 7), 0);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sched_request r;

		test_rq_init(&r, bad[i].owner, bad[i].op, 0, 0, 4096);
		r.group = bad[i].group;
		r.prio_class = bad[i].prio_class;
		r.prio_level = bad[i].prio_level;
		memcpy(before, s, size);
		if (sched_insert(s, &r, 10) != -1) {
			print_error("accepted: %s\n", bad[i].what);
			fail();
		}
		/* Nothing of the scheduler changed: counters, stats, policy state. */
		assert_memory_equal(s, before, size);
	}
	assert_int_equal(sched_queued(s), 1);
	assert_int_equal(s->stats.inserted, 2);
	assert_ptr_equal(sched_dispatch(s, 20), &rq);
	assert_null(sched_dispatch(s, 20));
	free(before);
	test_sched_free(s);
}

static void test_insert_accepts_boundaries(void **state)
{
	static const struct rq_case ok[] = {
		{"last owner", 7, 0, SCHED_OP_READ, 0, 0},
		{"last group", 0, 3, SCHED_OP_READ, 0, 0},
		{"last op", 0, 0, SCHED_OP_NR - 1, 0, 0},
		{"prio_level 7", 0, 0, SCHED_OP_READ, SCHED_IOPRIO_CLASS_BE, 7},
		{"class IDLE", 0, 0, SCHED_OP_READ, SCHED_IOPRIO_CLASS_IDLE, 0},
		{"class RT", 0, 0, SCHED_OP_READ, SCHED_IOPRIO_CLASS_RT, 0},
	};
	enum { NR = sizeof(ok) / sizeof(ok[0]) };
	struct sched_request rqs[NR];
	struct sched_config cfg;
	struct sched *s;

	(void)state;
	test_none_config(&cfg, 64);
	cfg.max_entities = 8;
	cfg.max_groups = 4;
	s = test_sched_new(&cfg, 0);
	for (size_t i = 0; i < NR; i++) {
		test_rq_init(&rqs[i], ok[i].owner, ok[i].op, 0, 0, 4096);
		rqs[i].group = ok[i].group;
		rqs[i].prio_class = ok[i].prio_class;
		rqs[i].prio_level = ok[i].prio_level;
		if (sched_insert(s, &rqs[i], 1)) {
			print_error("refused: %s\n", ok[i].what);
			fail();
		}
	}
	assert_int_equal(sched_queued(s), NR);
	for (size_t i = 0; i < NR; i++)
		assert_non_null(sched_dispatch(s, 2));
	for (size_t i = 0; i < NR; i++)
		sched_completed(s, &rqs[i], 3);
	assert_int_equal(s->stats.entity[7].completed, 1);
	assert_int_equal(s->stats.entity[0].completed, NR - 1);
	test_sched_free(s);
}

/* ---- tunables --------------------------------------------------------------------------- */

static void expect_tunable_error(struct sched_config *cfg, const char *name, const char *value)
{
	struct sched_config before = *cfg;
	char err[256];

	memset(err, 0, sizeof(err));
	if (sched_config_set_tunable(cfg, name, value, err, sizeof(err)) != -1) {
		print_error("accepted %s=%s\n", name, value);
		fail();
	}
	test_assert_one_line(err);
	assert_memory_equal(cfg, &before, sizeof(before));
}

static void test_tunables_none(void **state)
{
	static const char *const unknown[] = {"slice_idle", "fifo_expire_sync", "quantum",
					      "low_latency", "", "none", "hw_queue_depth"};
	struct sched_config cfg;

	(void)state;
	test_none_config(&cfg, 32);
	assert_int_equal(sched_policy_ops(SCHED_POLICY_NONE)->nr_tunables, 0);
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
		expect_tunable_error(&cfg, unknown[i], "1");
}

/* Every tunable of every built policy: range, syntax, and the given flag. */
static void test_tunables_built_policies(void **state)
{
	(void)state;
	for (int id = 0; id < SCHED_POLICY_NR; id++) {
		const struct sched_policy_ops *ops = sched_policy_ops(id);
		struct sched_config cfg;
		char err[256], buf[32];

		if (!ops)
			continue;
		sched_config_defaults(&cfg, id);
		expect_tunable_error(&cfg, "no_such_tunable", "1");
		expect_tunable_error(&cfg, "", "1");
		for (unsigned int i = 0; i < ops->nr_tunables; i++) {
			const struct sched_tunable_desc *d = &ops->tunables[i];

			assert_non_null(d->name);
			assert_true(strlen(d->name) > 0);
			assert_non_null(d->unit);
			if (!strcmp(d->unit, "version")) {
				/* A list, oldest first: min and max are its ends, def one of it. */
				const int64_t *v = d->versions;
				bool has_def = false;

				assert_non_null(v);
				assert_true(v[0] == d->min);
				for (; *v; v++)
					has_def |= *v == d->def;
				assert_true(v[-1] == d->max);
				assert_true(has_def);
			} else {
				assert_true(d->min <= d->def && d->def <= d->max);
			}
			expect_tunable_error(&cfg, d->name, "");
			expect_tunable_error(&cfg, d->name, "x");
			expect_tunable_error(&cfg, d->name, "1x");
			if (d->min > INT64_MIN) {
				snprintf(buf, sizeof(buf), "%lld", (long long)d->min - 1);
				expect_tunable_error(&cfg, d->name, buf);
			}
			if (d->max < INT64_MAX) {
				snprintf(buf, sizeof(buf), "%lld", (long long)d->max + 1);
				expect_tunable_error(&cfg, d->name, buf);
			}
			snprintf(buf, sizeof(buf), "%lld", (long long)d->max);
			assert_int_equal(sched_config_set_tunable(&cfg, d->name, buf, err,
								  sizeof(err)),
					 0);
			assert_true(cfg.tunable[i] == d->max);
			assert_true(cfg.tunable_given[i]);
			snprintf(buf, sizeof(buf), "%lld", (long long)d->min);
			assert_int_equal(sched_config_set_tunable(&cfg, d->name, buf, err,
								  sizeof(err)),
					 0);
			assert_true(cfg.tunable[i] == d->min);
		}
		/* Every tunable at its minimum: the oldest profile, which may lack tunables that
		 * were given (cfq's *_us before 4.10): refused in one line naming the profile. */
		if (ops->check && sched_config_check(&cfg, err, sizeof(err))) {
			test_assert_one_line(err);
			assert_non_null(strstr(err, "_version="));
			/* back to the newest profile, switches as it sets them */
			for (unsigned int i = 0; i < ops->nr_tunables; i++)
				if (!strcmp(ops->tunables[i].unit, "version") ||
				    strstr(ops->tunables[i].name, "_sw_")) {
					cfg.tunable[i] = ops->tunables[i].def;
					cfg.tunable_given[i] = false;
				}
		}
		/* A tunable that went with an old profile (cfq's group_isolation) is refused by
		 * the newest in one line naming it; without it the configuration passes. */
		for (unsigned int n = 0; ops->check && n < ops->nr_tunables &&
					 sched_config_check(&cfg, err, sizeof(err));
		     n++) {
			bool named = false;

			test_assert_one_line(err);
			assert_non_null(strstr(err, ": no such tunable with "));
			for (unsigned int i = 0; i < ops->nr_tunables; i++)
				if (cfg.tunable_given[i] && !strncmp(err, ops->tunables[i].name,
								   strlen(ops->tunables[i].name)) &&
				    err[strlen(ops->tunables[i].name)] == ':') {
					cfg.tunable_given[i] = false;
					cfg.tunable[i] = ops->tunables[i].def;
					named = true;
				}
			assert_true(named);
		}
		assert_int_equal(sched_config_check(&cfg, err, sizeof(err)), 0);
	}
}

/* ---- whole runs: determinism and exactly-once ------------------------------------------- */

struct script {
	uint64_t seed;
	uint32_t nr;		/* requests */
	uint32_t depth;		/* hw_queue_depth, 0 = random */
	uint32_t outstanding;	/* most requests submitted and not completed, 0 = random */
};

struct outcome {
	struct sched_stats stats;
	uint32_t *order;	/* request indices in dispatch order */
	uint8_t *flush;		/* by request index: a flush (it never enters the elevator) */
	uint64_t end_ns;
};

#define START_NS 1000000000ull

static void shadow_level(uint64_t *hist, uint64_t *last, uint32_t level, uint64_t now)
{
	hist[level < SCHED_INFLIGHT_BUCKETS ? level : SCHED_INFLIGHT_BUCKETS - 1] += now - *last;
	*last = now;
}

/*
 * Runs a seeded random workload in virtual time: bursts of inserts from random owners, groups,
 * priorities, ops and sizes, greedy dispatch, completions in random order. Checks on the way that
 * each request is dispatched once and completed once, and at the end that the statistics equal
 * a shadow account kept by the test.
 */
static void run_script(enum sched_policy_id id, const struct script *sc, struct outcome *out)
{
	struct sched_entity_stats *shadow = calloc(SCHED_MAX_ENTITIES, sizeof(*shadow));
	struct sched_request *rqs = calloc(sc->nr, sizeof(*rqs));
	uint8_t *dispatched = calloc(sc->nr, 1), *completed = calloc(sc->nr, 1);
	struct sched_request **in_flight;
	uint64_t hist[SCHED_INFLIGHT_BUCKETS] = {0}, last = START_NS, timer_runs = 0;
	uint32_t nr_in = 0, nr_out = 0, nr_done = 0, nr_in_flight = 0, max_seen = 0;
	uint32_t outstanding, max_burst;
	uint64_t now = START_NS, stuck = 0;
	struct sched_config cfg;
	struct test_rng rng;
	struct sched *s;

	assert_non_null(shadow);
	assert_non_null(rqs);
	assert_non_null(dispatched);
	assert_non_null(completed);
	test_rng_seed(&rng, sc->seed);
	sched_config_defaults(&cfg, id);
	cfg.hw_queue_depth = sc->depth ? sc->depth : test_rng_range(&rng, 1, 64);
	cfg.rotational = test_rng_below(&rng, 2);
	cfg.max_entities = test_rng_range(&rng, 1, SCHED_MAX_ENTITIES);
	cfg.max_groups = test_rng_range(&rng, 1, SCHED_MAX_GROUPS);
	for (uint32_t g = 0; g < cfg.max_groups; g++)
		cfg.group_weight[g] = test_rng_range(&rng, SCHED_WEIGHT_MIN, SCHED_WEIGHT_MAX);
	outstanding = sc->outstanding ? sc->outstanding : test_rng_range(&rng, 1, 512);
	max_burst = test_rng_range(&rng, 1, 64);
	in_flight = calloc(cfg.hw_queue_depth, sizeof(*in_flight));
	assert_non_null(in_flight);
	s = test_sched_new(&cfg, now);

	while (nr_done < sc->nr) {
		struct sched_request *rq;
		uint32_t burst, progress = 0;

		now += test_rng_below(&rng, 4) ? test_rng_below(&rng, 2000) : 0;

		/* Submit a burst, within the submitters' depth. */
		burst = test_rng_below(&rng, max_burst + 1);
		for (uint32_t k = 0; k < burst && nr_in < sc->nr && nr_in - nr_done < outstanding;
		     k++) {
			struct sched_request *r = &rqs[nr_in];

			test_rq_init(r, test_rng_below(&rng, cfg.max_entities),
				     test_rng_below(&rng, SCHED_OP_NR), test_rng_below(&rng, 8),
				     test_rng_below(&rng, 1ull << 31) << 9,
				     test_rng_range(&rng, 1, 2048) << 9);
			r->group = test_rng_below(&rng, cfg.max_groups);
			r->prio_class = test_rng_below(&rng, 4);
			r->prio_level = test_rng_below(&rng, 8);
			if (out->flush)
				out->flush[nr_in] = r->op == SCHED_OP_FLUSH;
			assert_int_equal(sched_insert(s, r, now), 0);
			assert_int_equal(r->insert_ns, now);
			shadow[r->owner].inserted++;
			nr_in++;
			progress++;
		}

		if (sched_next_timer(s) <= now) {
			sched_run_timer(s, now);
			timer_runs++;
		}

		/* Fill the device. */
		while ((rq = sched_dispatch(s, now))) {
			uint32_t idx = (uint32_t)(rq - rqs);
			struct sched_entity_stats *e;

			assert_true(idx < nr_in);
			assert_ptr_equal(rq, &rqs[idx]);
			assert_int_equal(dispatched[idx], 0);
			dispatched[idx] = 1;
			assert_int_equal(rq->dispatch_ns, now);
			assert_true(nr_in_flight < cfg.hw_queue_depth);
			shadow_level(hist, &last, nr_in_flight, now);
			in_flight[nr_in_flight++] = rq;
			if (nr_in_flight > max_seen)
				max_seen = nr_in_flight;
			assert_int_equal(s->dev.in_flight, nr_in_flight);
			e = &shadow[rq->owner];
			e->dispatched++;
			e->wait_ns += now - rq->insert_ns;
			if (now - rq->insert_ns > e->max_wait_ns)
				e->max_wait_ns = now - rq->insert_ns;
			out->order[nr_out++] = idx;
			progress++;
		}
		assert_int_equal(sched_queued(s), nr_in - nr_out);
		if (id == SCHED_POLICY_NONE) /* work-conserving */
			assert_true(nr_in_flight == cfg.hw_queue_depth || nr_in == nr_out);

		/* Complete a random number of the in-flight requests, in random order. */
		if (nr_in_flight) {
			uint32_t n = test_rng_range(&rng, nr_in < sc->nr ? 0 : 1, nr_in_flight);

			now += test_rng_below(&rng, 500);
			for (uint32_t k = 0; k < n; k++) {
				uint32_t j = test_rng_below(&rng, nr_in_flight);
				uint32_t idx;
				struct sched_entity_stats *e;

				rq = in_flight[j];
				in_flight[j] = in_flight[--nr_in_flight];
				idx = (uint32_t)(rq - rqs);
				assert_int_equal(dispatched[idx], 1);
				assert_int_equal(completed[idx], 0);
				completed[idx] = 1;
				shadow_level(hist, &last, nr_in_flight + 1, now);
				sched_completed(s, rq, now);
				e = &shadow[rq->owner];
				e->completed++;
				e->bytes += rq->length;
				e->service_ns += now - rq->dispatch_ns;
				nr_done++;
				progress++;
			}
		}

		/* An idling policy must have a timer armed to get out of it. */
		if (!progress && !nr_in_flight && nr_in > nr_out) {
			uint64_t t = sched_next_timer(s);

			assert_true(t != SCHED_NO_TIMER);
			if (t > now)
				now = t;
		}
		stuck = progress ? 0 : stuck + 1;
		assert_true(stuck < 100000);
	}

	sched_stats_sync(s, now);
	shadow_level(hist, &last, nr_in_flight, now);
	assert_int_equal(nr_out, sc->nr);
	assert_int_equal(sched_queued(s), 0);
	assert_int_equal(s->dev.in_flight, 0);
	assert_int_equal(s->dev.in_flight_dir[0], 0);
	assert_int_equal(s->dev.in_flight_dir[1], 0);
	assert_int_equal(s->dev.in_flight_sync, 0);
	assert_false(sched_ops(s)->has_work(s->policy));
	for (uint32_t i = 0; i < sc->nr; i++) {
		assert_int_equal(dispatched[i], 1);
		assert_int_equal(completed[i], 1);
	}
	assert_int_equal(s->stats.inserted, sc->nr);
	assert_int_equal(s->stats.dispatched, sc->nr);
	assert_int_equal(s->stats.completed, sc->nr);
	assert_int_equal(s->stats.timer_runs, timer_runs);
	assert_int_equal(s->stats.max_in_flight, max_seen);
	assert_true(max_seen <= cfg.hw_queue_depth);
	assert_int_equal(s->stats.last_change_ns, now);
	assert_memory_equal(s->stats.inflight_ns, hist, sizeof(hist));
	assert_memory_equal(s->stats.entity, shadow, SCHED_MAX_ENTITIES * sizeof(*shadow));

	memcpy(&out->stats, &s->stats, sizeof(out->stats));
	out->end_ns = now;
	test_sched_free(s);
	free(in_flight);
	free(completed);
	free(dispatched);
	free(rqs);
	free(shadow);
}

static void outcome_init(struct outcome *o, uint32_t nr)
{
	memset(o, 0, sizeof(*o));
	o->order = calloc(nr, sizeof(*o->order));
	o->flush = calloc(nr, 1);
	assert_non_null(o->order);
	assert_non_null(o->flush);
}

static void outcome_free(struct outcome *o)
{
	free(o->order);
	free(o->flush);
	o->order = NULL;
	o->flush = NULL;
}

static void test_determinism(void **state)
{
	enum { NR = 100000 };
	static const uint64_t seeds[] = {1, 0xdeadbeef, 20240601};

	(void)state;
	for (int id = 0; id < SCHED_POLICY_NR; id++) {
		struct outcome first = {0};

		if (!sched_policy_available(id))
			continue;
		for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
			struct script sc = {.seed = seeds[i], .nr = NR};
			struct outcome a, b;

			outcome_init(&a, NR);
			outcome_init(&b, NR);
			run_script(id, &sc, &a);
			run_script(id, &sc, &b);
			assert_memory_equal(&a.stats, &b.stats, sizeof(a.stats));
			assert_memory_equal(a.order, b.order, NR * sizeof(*a.order));
			assert_true(a.end_ns == b.end_ns);
			if (id == SCHED_POLICY_NONE) { /* one FIFO: dispatch order = insert order */
				uint32_t next = 0, flushes = 0;

				for (uint32_t k = 0; k < NR; k++) {
					if (a.flush[a.order[k]]) { /* a flush overtakes the FIFO */
						flushes++;
						continue;
					}
					while (a.flush[next])
						next++;
					assert_int_equal(a.order[k], next);
					next++;
				}
				assert_true(flushes > NR / 8);
			}
			/* Other seeds make other runs: the comparison above means something. */
			if (!i) {
				first = a;
				a.order = NULL;
				a.flush = NULL;
			} else {
				assert_memory_not_equal(&first.stats, &a.stats, sizeof(a.stats));
			}
			outcome_free(&a);
			outcome_free(&b);
		}
		outcome_free(&first);
	}
}

static void test_exactly_once(void **state)
{
	static const struct script scripts[] = {
		{.seed = 7, .nr = 100000},
		{.seed = 8, .nr = 100000, .depth = 1},
		{.seed = 9, .nr = 20000, .depth = 1, .outstanding = 1},
		{.seed = 10, .nr = 100000, .depth = 65536},
		{.seed = 11, .nr = 50000, .depth = 3, .outstanding = 100000},
	};

	(void)state;
	for (int id = 0; id < SCHED_POLICY_NR; id++) {
		if (!sched_policy_available(id))
			continue;
		for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
			struct outcome o;

			outcome_init(&o, scripts[i].nr);
			run_script(id, &scripts[i], &o);
			outcome_free(&o);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_defaults),
		cmocka_unit_test(test_config_defaults_pass_check),
		cmocka_unit_test(test_config_check_errors),
		cmocka_unit_test(test_config_check_boundaries_ok),
		cmocka_unit_test(test_config_check_message_truncated),
		cmocka_unit_test(test_policy_by_name),
		cmocka_unit_test(test_policy_table),
		cmocka_unit_test(test_policies_not_built_or_working),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_init_refuses_bad_memory),
		cmocka_unit_test(test_init_exact_size_stays_inside),
		cmocka_unit_test(test_entity_stats_beyond_engine_limit),
		cmocka_unit_test(test_insert_rejects_malformed),
		cmocka_unit_test(test_insert_accepts_boundaries),
		cmocka_unit_test(test_tunables_none),
		cmocka_unit_test(test_tunables_built_policies),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_exactly_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
