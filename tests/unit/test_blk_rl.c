// SPDX-License-Identifier: GPL-2.0
/*
 * The legacy block layer's request lists per group (blk_get_rl(), 3.6: "blkcg: implement
 * per-blkg request allocation"): with cfq_sw_per_group_rl each group allocates from a list of
 * its own, nr_requests each, with its own fullness and sleepers; without it (CFQ's 2.6.32 and
 * 2.6.36 profiles) one list serves every group. In virtual time, on the block layer itself
 * (the caller is the device).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blk.h"
#include "cfq_switch_tests.h"
#include "support.h"

#define NR 32
#define MS 1000000ull

struct env {
	struct blk_queue *q;
	void *mem;
	struct blk_host h;
	struct blk_rq r[NR];
	struct blk_rq *issued[NR];
	uint32_t nr_issued, admitted;
};

static void on_issue(void *ctx, struct blk_rq *r, uint64_t now)
{
	struct env *e = ctx;

	(void)now;
	assert_true(e->nr_issued < NR);
	e->issued[e->nr_issued++] = r;
}

static void on_admitted(void *ctx, struct blk_rq *r, uint64_t now)
{
	struct env *e = ctx;

	(void)r;
	(void)now;
	e->admitted++;
}

/* cfq (or policy pol) with nr_requests 4, four owners, three groups; tunables name=value. */
static void env_init(struct env *e, enum sched_policy_id pol, int8_t per_group_rl,
		     const char *const *tunables)
{
	struct sched_config cfg;
	struct blk_params bp;
	char err[256] = "";
	size_t sz;

	memset(e, 0, sizeof(*e));
	sched_config_defaults(&cfg, pol);
	cfg.hw_queue_depth = 1;
	cfg.rotational = true;
	cfg.max_entities = 4;
	cfg.max_groups = 3;
	cfg.nr_requests = 4;
	for (; tunables && tunables[0]; tunables += 2)
		assert_int_equal(
		    sched_config_set_tunable(&cfg, tunables[0], tunables[1], err, sizeof(err)), 0);
	blk_params_defaults(&bp);
	bp.per_group_rl = per_group_rl;
	sz = blk_size(&cfg, &bp);
	assert_true(sz > 0);
	e->mem = aligned_alloc(16, (sz + 15) & ~(size_t)15);
	e->q = blk_init(e->mem, sz, &cfg, &bp, 0, err, sizeof(err));
	if (!e->q)
		print_error("%s\n", err);
	assert_non_null(e->q);
	e->h.issue = on_issue;
	e->h.admitted = on_admitted;
	e->h.ctx = e;
}

/* Request i: an async (buffered) 4 KiB write of owner in group, or a sync read. */
static int submit(struct env *e, int i, uint32_t owner, uint32_t group, bool read, uint64_t now)
{
	struct blk_rq *r = &e->r[i];

	blk_rq_init(r);
	memset(&r->rq, 0, sizeof(r->rq));
	r->rq.owner = owner;
	r->rq.group = group;
	r->rq.op = read ? SCHED_OP_READ : SCHED_OP_WRITE;
	r->rq.offset = (uint64_t)(owner * 1000 + (uint32_t)i) << 20;
	r->rq.length = 4096;
	return blk_submit(e->q, r, now, &e->h);
}

/*
 * Owner 0 in group 1 fills its list: it becomes the batcher at the fourth request and may go on
 * to 1.5 x nr_requests (6); its next requests sleep. Then owner 1 in group 2 and owner 2 in the
 * root group each submit an async write: with lists per group they are allocated at once, with
 * one list they sleep behind owner 0. Returns how many of those two were allocated.
 */
static int fill_group1_then_others(struct env *e)
{
	int in = 0;

	for (int i = 0; i < 8; i++)
		assert_int_equal(submit(e, i, 0, 1, false, MS), i < 6 ? 1 : 0);
	assert_int_equal(blk_rl_allocated(e->q, 1, 0), 6);
	assert_int_equal(e->q->st.nr_waiting, 2);
	in += submit(e, 8, 1, 2, false, 2 * MS) == 1;
	in += submit(e, 9, 2, 0, false, 2 * MS) == 1;
	/* Reads are another list (sync) in either case. */
	assert_int_equal(submit(e, 10, 3, 1, true, 2 * MS), 1);
	return in;
}

static void test_blk_rl_per_group(void **state)
{
	static const char *const v2636[] = {"cfq_version", "2.6.36", NULL};
	static const char *const v316[] = {"cfq_version", "3.16", NULL};
	static const char *const off419[] = {"cfq_sw_per_group_rl", "0", NULL};
	static const char *const on2636[] = {"cfq_version", "2.6.36", "cfq_sw_per_group_rl", "1",
					     NULL};
	static const struct {
		const char *what;
		const char *const *tun;
		int8_t param;
		bool per_group;
	} cases[] = {
	    {"4.19 (the profile's)", NULL, BLK_PER_GROUP_RL_AUTO, true},
	    {"3.16", v316, BLK_PER_GROUP_RL_AUTO, true},
	    {"2.6.36", v2636, BLK_PER_GROUP_RL_AUTO, false},
	    {"4.19, cfq_sw_per_group_rl=0", off419, BLK_PER_GROUP_RL_AUTO, false},
	    {"2.6.36, cfq_sw_per_group_rl=1", on2636, BLK_PER_GROUP_RL_AUTO, true},
	    {"4.19, blk param per_group_rl=0", NULL, 0, false},
	    {"2.6.36, blk param per_group_rl=1", v2636, 1, true},
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct env e;
		int in;

		env_init(&e, SCHED_POLICY_CFQ, cases[c].param, cases[c].tun);
		assert_int_equal(e.q->per_group_rl, cases[c].per_group);
		in = fill_group1_then_others(&e);
		printf("  %-34s group 1 full (6 allocated, 2 asleep): groups 2 and 0 allocated %d "
		       "of 2, allocated async %u : %u : %u (root, 1, 2)\n",
		       cases[c].what, in, blk_rl_allocated(e.q, 0, 0), blk_rl_allocated(e.q, 1, 0),
		       blk_rl_allocated(e.q, 2, 0));
		if (cases[c].per_group) {
			assert_int_equal(in, 2);
			assert_int_equal(blk_rl_allocated(e.q, 2, 0), 1);
			assert_int_equal(blk_rl_allocated(e.q, 0, 0), 1);
			assert_int_equal(blk_allocated(e.q, 0), 8);
			/* The root group's list is the congestion the bdi sees: not group 1's. */
			assert_false(blk_async_congested(e.q, false));
		} else {
			assert_int_equal(in, 0);
			assert_int_equal(blk_allocated(e.q, 0), 6);
			assert_int_equal(e.q->st.nr_waiting, 4);
			assert_true(blk_async_congested(e.q, false));
		}
		free(e.mem);
	}
}

/*
 * Freed requests wake the sleepers of their own list only: group 1's completions admit group 1's
 * sleeper (below nr_requests), never another group's, and a list is full per group.
 */
static void test_blk_rl_wake_own_list(void **state)
{
	struct env e;
	uint64_t now = 3 * MS;

	(void)state;
	env_init(&e, SCHED_POLICY_CFQ, BLK_PER_GROUP_RL_AUTO, NULL);
	assert_int_equal(fill_group1_then_others(&e), 2);
	/* Group 2 fills its own list too: owner 1 becomes its batcher (6), then sleeps. */
	for (int i = 11; i < 17; i++)
		assert_int_equal(submit(&e, i, 1, 2, false, now), i < 16 ? 1 : 0);
	assert_int_equal(blk_rl_allocated(e.q, 2, 0), 6);
	assert_int_equal(e.q->st.nr_waiting, 3);
	/* Complete what CFQ dispatches, one at a time, until group 1's list is below
	 * nr_requests: each completion wakes the sleepers of its own list only. */
	for (int step = 0; step < 64 && blk_rl_allocated(e.q, 1, 0) >= 4; step++) {
		uint32_t g;
		bool g2_asleep = e.r[16].state == BLK_RQ_WAITING;

		e.nr_issued = 0;
		blk_run(e.q, now, &e.h);
		if (!e.nr_issued) {
			now = blk_advance(e.q, blk_next_event(e.q), &e.h);
			continue;
		}
		assert_int_equal(e.nr_issued, 1);
		g = e.issued[0]->rq.group;
		now += MS;
		blk_complete(e.q, e.issued[0], now, &e.h);
		/* Group 2's sleeper wakes only from its own list, below nr_requests. */
		if (g2_asleep && e.r[16].state != BLK_RQ_WAITING)
			assert_true(g == 2 && blk_rl_allocated(e.q, 2, 0) <= 4);
	}
	assert_true(blk_rl_allocated(e.q, 1, 0) < 4 || e.r[6].state != BLK_RQ_WAITING);
	/* Owner 0's sleepers were woken by group 1's completions (and it batches on). */
	assert_int_not_equal(e.r[6].state, BLK_RQ_WAITING);
	assert_int_not_equal(e.r[7].state, BLK_RQ_WAITING);
	printf("  after group 1's completions: allocated async %u : %u : %u (root, 1, 2), group "
	       "2's sleeper %s\n",
	       blk_rl_allocated(e.q, 0, 0), blk_rl_allocated(e.q, 1, 0),
	       blk_rl_allocated(e.q, 2, 0),
	       e.r[16].state == BLK_RQ_WAITING ? "asleep" : "admitted");
	free(e.mem);
}

/* blk-mq is unaffected: scheduler tags, no request lists. */
static void test_blk_rl_mq_unaffected(void **state)
{
	struct env e;

	(void)state;
	env_init(&e, SCHED_POLICY_BFQ, BLK_PER_GROUP_RL_AUTO, NULL);
	assert_int_equal(e.q->mode, SCHED_BLK_MQ);
	assert_false(e.q->per_group_rl);
	assert_null(e.q->rl);
	assert_int_equal(blk_rl_allocated(e.q, 1, 0), 0);
	free(e.mem);
	assert_false(sched_config_per_group_rl(&(struct sched_config){.policy = SCHED_POLICY_BFQ}));
}

static const struct CMUnitTest *blk_rl_tests;
static size_t blk_rl_tests_nr;

/* The switch tests cfq_switch_tests.h names in this file run here. */
static void test_blk_rl_switch_tests_exist(void **state)
{
	(void)state;
	assert_int_equal(cfq_switch_tests_missing("test_blk_rl.c", blk_rl_tests, blk_rl_tests_nr),
			 0);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_blk_rl_per_group),
	    cmocka_unit_test(test_blk_rl_wake_own_list),
	    cmocka_unit_test(test_blk_rl_mq_unaffected),
	    cmocka_unit_test(test_blk_rl_switch_tests_exist),
	};

	blk_rl_tests = tests;
	blk_rl_tests_nr = sizeof(tests) / sizeof(tests[0]);

	setvbuf(stdout, NULL, _IOLBF, 0);
	return cmocka_run_group_tests_name("blk_rl", tests, NULL, NULL);
}
