// SPDX-License-Identifier: GPL-2.0
/* The none policy through the core API: FIFO, device depth, timers, statistics, counters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sched.h"
#include "support.h"

static struct sched *new_none(uint32_t depth, uint64_t now)
{
	struct sched_config cfg;

	test_none_config(&cfg, depth);
	return test_sched_new(&cfg, now);
}

static void assert_entity_zero(const struct sched *s, uint32_t owner)
{
	static const struct sched_entity_stats zero;

	assert_memory_equal(&s->stats.entity[owner], &zero, sizeof(zero));
}

static void assert_device_idle(const struct sched *s)
{
	assert_int_equal(s->dev.in_flight, 0);
	assert_int_equal(s->dev.in_flight_dir[0], 0);
	assert_int_equal(s->dev.in_flight_dir[1], 0);
	assert_int_equal(s->dev.in_flight_sync, 0);
}

static void test_init_state(void **state)
{
	struct sched *s = new_none(8, 12345);

	(void)state;
	assert_string_equal(sched_ops(s)->name, "none");
	assert_int_equal(s->dev.hw_queue_depth, 8);
	assert_true(s->dev.rotational);
	assert_int_equal(sched_queued(s), 0);
	assert_device_idle(s);
	assert_int_equal(s->stats.inserted, 0);
	assert_int_equal(s->stats.dispatched, 0);
	assert_int_equal(s->stats.completed, 0);
	assert_int_equal(s->stats.max_in_flight, 0);
	assert_int_equal(s->stats.last_change_ns, 12345);
	for (int b = 0; b < SCHED_INFLIGHT_BUCKETS; b++)
		assert_int_equal(s->stats.inflight_ns[b], 0);
	for (uint32_t o = 0; o < SCHED_MAX_ENTITIES; o++)
		assert_entity_zero(s, o);
	/* Nothing queued: nothing to dispatch. */
	assert_null(sched_dispatch(s, 12345));
	assert_int_equal(s->stats.dispatched, 0);
	test_sched_free(s);
}

/* One FIFO whatever the owner, group, priority, direction or offset. */
static void test_fifo_across_owners(void **state)
{
	enum { N = 1000 };
	struct sched_request *rqs = calloc(N, sizeof(*rqs));
	struct sched *s = new_none(4, 0);
	struct test_rng rng;
	uint64_t now = 0;
	size_t next_out = 0, done = 0;
	struct sched_request *in_flight[4];
	size_t nr_in_flight = 0;

	(void)state;
	assert_non_null(rqs);
	test_rng_seed(&rng, 11);
	for (size_t i = 0; i < N; i++) {
		struct sched_request *rq = &rqs[i];

		unsigned int op = (unsigned int)test_rng_below(&rng, SCHED_OP_NR);

		/* Flushes never enter the elevator (test_flush_first): not in this FIFO. */
		test_rq_init(rq, test_rng_below(&rng, SCHED_MAX_ENTITIES),
			     op == SCHED_OP_FLUSH ? SCHED_OP_WRITE : op, test_rng_below(&rng, 8),
			     test_rng_below(&rng, 1ull << 40) & ~511ull, 4096);
		rq->group = test_rng_below(&rng, SCHED_MAX_GROUPS);
		rq->prio_class = test_rng_below(&rng, 4);
		rq->prio_level = test_rng_below(&rng, 8);
		assert_int_equal(sched_insert(s, rq, now), 0);
		assert_int_equal(sched_queued(s), i + 1);
	}
	/* Dispatch with completions in random order in between: still insertion order out. */
	while (done < N) {
		struct sched_request *rq;

		now += 10;
		while ((rq = sched_dispatch(s, now))) {
			assert_ptr_equal(rq, &rqs[next_out]);
			next_out++;
			assert_true(nr_in_flight < 4);
			in_flight[nr_in_flight++] = rq;
			assert_int_equal(sched_queued(s), N - next_out);
		}
		assert_int_equal(nr_in_flight, next_out < N ? 4 : nr_in_flight);
		if (nr_in_flight) {
			size_t k = test_rng_below(&rng, nr_in_flight);

			sched_completed(s, in_flight[k], now);
			in_flight[k] = in_flight[--nr_in_flight];
			done++;
		}
	}
	assert_int_equal(next_out, N);
	assert_int_equal(sched_queued(s), 0);
	assert_null(sched_dispatch(s, now));
	assert_device_idle(s);
	test_sched_free(s);
	free(rqs);
}

static void test_depth_limit(void **state)
{
	struct sched_request rqs[10], *got[10];
	struct sched *s = new_none(4, 0);

	(void)state;
	for (int i = 0; i < 10; i++) {
		test_rq_init(&rqs[i], i % 3, SCHED_OP_READ, 0, i * 4096, 4096);
		assert_int_equal(sched_insert(s, &rqs[i], 1), 0);
	}
	assert_int_equal(sched_queued(s), 10);
	for (int i = 0; i < 4; i++) {
		got[i] = sched_dispatch(s, 2);
		assert_ptr_equal(got[i], &rqs[i]);
		assert_int_equal(s->dev.in_flight, i + 1);
	}
	/* Full: NULL, repeatedly, and no state change. */
	for (int k = 0; k < 3; k++) {
		assert_null(sched_dispatch(s, 3 + k));
		assert_int_equal(sched_queued(s), 6);
		assert_int_equal(s->dev.in_flight, 4);
		assert_int_equal(s->stats.dispatched, 4);
	}
	/* One completion frees exactly one tag. */
	sched_completed(s, got[2], 10);
	assert_int_equal(s->dev.in_flight, 3);
	got[4] = sched_dispatch(s, 10);
	assert_ptr_equal(got[4], &rqs[4]);
	assert_null(sched_dispatch(s, 10));
	assert_int_equal(sched_queued(s), 5);
	/* Two completions, two more. */
	sched_completed(s, got[0], 11);
	sched_completed(s, got[4], 11);
	assert_ptr_equal(sched_dispatch(s, 12), &rqs[5]);
	assert_ptr_equal(sched_dispatch(s, 12), &rqs[6]);
	assert_null(sched_dispatch(s, 12));
	assert_int_equal(s->dev.in_flight, 4);
	assert_int_equal(s->stats.max_in_flight, 4);
	test_sched_free(s);
}

static void test_depth_one(void **state)
{
	struct sched_request rqs[5];
	struct sched *s = new_none(1, 0);

	(void)state;
	for (int i = 0; i < 5; i++) {
		test_rq_init(&rqs[i], 0, SCHED_OP_WRITE, SCHED_RQ_SYNC, 0, 512);
		assert_int_equal(sched_insert(s, &rqs[i], 0), 0);
	}
	for (int i = 0; i < 5; i++) {
		struct sched_request *rq = sched_dispatch(s, i);

		assert_ptr_equal(rq, &rqs[i]);
		assert_null(sched_dispatch(s, i));
		sched_completed(s, rq, i);
	}
	assert_null(sched_dispatch(s, 5));
	assert_int_equal(s->stats.max_in_flight, 1);
	test_sched_free(s);
}

static void test_queued_counts(void **state)
{
	struct sched_request rqs[6], bad, *a, *b;
	struct sched *s = new_none(2, 0);

	(void)state;
	assert_int_equal(sched_queued(s), 0);
	assert_false(sched_ops(s)->has_work(s->policy));
	for (int i = 0; i < 6; i++) {
		test_rq_init(&rqs[i], 1, SCHED_OP_READ, 0, 0, 4096);
		assert_int_equal(sched_insert(s, &rqs[i], 0), 0);
		assert_int_equal(sched_queued(s), i + 1);
		assert_true(sched_ops(s)->has_work(s->policy));
	}
	/* A rejected insert does not count. */
	test_rq_init(&bad, SCHED_MAX_ENTITIES, SCHED_OP_READ, 0, 0, 4096);
	assert_int_equal(sched_insert(s, &bad, 0), -1);
	assert_int_equal(sched_queued(s), 6);

	/* Dispatch takes one off; completion does not change it; a refused dispatch neither. */
	a = sched_dispatch(s, 1);
	b = sched_dispatch(s, 1);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(sched_queued(s), 4);
	assert_null(sched_dispatch(s, 1));
	assert_int_equal(sched_queued(s), 4);
	sched_completed(s, a, 2);
	sched_completed(s, b, 2);
	assert_int_equal(sched_queued(s), 4);
	for (int i = 0; i < 4; i++) {
		struct sched_request *rq = sched_dispatch(s, 3);

		assert_non_null(rq);
		assert_int_equal(sched_queued(s), 3 - i);
		sched_completed(s, rq, 3);
	}
	assert_false(sched_ops(s)->has_work(s->policy));
	assert_int_equal(sched_queued(s), 0);
	assert_int_equal(s->stats.inserted, 6);
	assert_int_equal(s->stats.dispatched, 6);
	assert_int_equal(s->stats.completed, 6);
	test_sched_free(s);
}

static void test_no_timer(void **state)
{
	struct sched_request rq;
	struct sched *s = new_none(4, 0);

	(void)state;
	assert_true(sched_next_timer(s) == SCHED_NO_TIMER);
	test_rq_init(&rq, 0, SCHED_OP_READ, 0, 0, 4096);
	assert_int_equal(sched_insert(s, &rq, 100), 0);
	assert_true(sched_next_timer(s) == SCHED_NO_TIMER);
	/* Running timers early is a no-op and is not counted. */
	sched_run_timer(s, 200);
	sched_run_timer(s, 1ull << 62);
	assert_int_equal(s->stats.timer_runs, 0);
	assert_int_equal(sched_queued(s), 1);
	assert_ptr_equal(sched_dispatch(s, 300), &rq);
	assert_true(sched_next_timer(s) == SCHED_NO_TIMER);
	sched_completed(s, &rq, 400);
	assert_true(sched_next_timer(s) == SCHED_NO_TIMER);
	/* No exit hook for none; the call must still be safe, in range or not. */
	sched_entity_exit(s, 0, 500);
	sched_entity_exit(s, SCHED_MAX_ENTITIES + 5, 500);
	assert_true(sched_next_timer(s) == SCHED_NO_TIMER);
	test_sched_free(s);
}

/*
 * A scripted scenario in virtual time, depth 2:
 *   t=100  insert A (owner 0, 4096 B), B (owner 1, 8192 B), C (owner 0, 512 B)
 *   t=150  dispatch A, dispatch B, dispatch -> NULL (full)
 *   t=400  complete A, dispatch C
 *   t=1000 complete C
 *   t=1200 complete B
 *   t=2000 stats sync
 */
static void test_stats_scripted(void **state)
{
	struct sched_request a, b, c;
	struct sched *s = new_none(2, 0);
	const struct sched_entity_stats *e0 = &s->stats.entity[0], *e1 = &s->stats.entity[1];

	(void)state;
	test_rq_init(&a, 0, SCHED_OP_READ, 0, 0, 4096);
	test_rq_init(&b, 1, SCHED_OP_WRITE, 0, 1 << 20, 8192);
	test_rq_init(&c, 0, SCHED_OP_READ, 0, 8192, 512);
	assert_int_equal(sched_insert(s, &a, 100), 0);
	assert_int_equal(sched_insert(s, &b, 100), 0);
	assert_int_equal(sched_insert(s, &c, 100), 0);
	assert_int_equal(a.insert_ns, 100);
	assert_int_equal(e0->inserted, 2);
	assert_int_equal(e1->inserted, 1);
	assert_int_equal(e0->dispatched, 0);

	assert_ptr_equal(sched_dispatch(s, 150), &a);
	assert_ptr_equal(sched_dispatch(s, 150), &b);
	assert_null(sched_dispatch(s, 150));
	assert_int_equal(a.dispatch_ns, 150);
	assert_int_equal(b.dispatch_ns, 150);
	/* Bytes and service are charged on completion, wait on dispatch. */
	assert_int_equal(e0->dispatched, 1);
	assert_int_equal(e0->wait_ns, 50);
	assert_int_equal(e0->bytes, 0);
	assert_int_equal(e0->completed, 0);

	sched_completed(s, &a, 400);
	assert_ptr_equal(sched_dispatch(s, 400), &c);
	assert_int_equal(c.dispatch_ns, 400);
	sched_completed(s, &c, 1000);
	sched_completed(s, &b, 1200);

	/* Before the sync the histogram stops at the last change. */
	assert_int_equal(s->stats.last_change_ns, 1200);
	assert_int_equal(s->stats.inflight_ns[0], 150);
	sched_stats_sync(s, 2000);
	sched_stats_sync(s, 2000); /* idempotent */

	assert_int_equal(s->stats.inserted, 3);
	assert_int_equal(s->stats.dispatched, 3);
	assert_int_equal(s->stats.completed, 3);
	assert_int_equal(s->stats.timer_runs, 0);
	assert_int_equal(s->stats.max_in_flight, 2);
	assert_int_equal(s->stats.last_change_ns, 2000);

	assert_int_equal(e0->inserted, 2);
	assert_int_equal(e0->dispatched, 2);
	assert_int_equal(e0->completed, 2);
	assert_int_equal(e0->bytes, 4096 + 512);
	assert_int_equal(e0->wait_ns, 50 + 300);
	assert_int_equal(e0->max_wait_ns, 300);
	assert_int_equal(e0->service_ns, 250 + 600);

	assert_int_equal(e1->inserted, 1);
	assert_int_equal(e1->dispatched, 1);
	assert_int_equal(e1->completed, 1);
	assert_int_equal(e1->bytes, 8192);
	assert_int_equal(e1->wait_ns, 50);
	assert_int_equal(e1->max_wait_ns, 50);
	assert_int_equal(e1->service_ns, 1050);
	for (uint32_t o = 2; o < SCHED_MAX_ENTITIES; o++)
		assert_entity_zero(s, o);

	/* [0,150) idle, [150,400) 2, [400,1000) 2, [1000,1200) 1, [1200,2000) idle. */
	assert_int_equal(s->stats.inflight_ns[0], 150 + 800);
	assert_int_equal(s->stats.inflight_ns[1], 200);
	assert_int_equal(s->stats.inflight_ns[2], 250 + 600);
	for (int i = 3; i < SCHED_INFLIGHT_BUCKETS; i++)
		assert_int_equal(s->stats.inflight_ns[i], 0);
	assert_device_idle(s);

	/* Further syncs only add idle time. */
	sched_stats_sync(s, 2500);
	assert_int_equal(s->stats.inflight_ns[0], 950 + 500);
	test_sched_free(s);
}

/* The max-wait is a maximum, not the last value; and a zero wait counts as zero. */
static void test_stats_max_wait(void **state)
{
	struct sched_request rqs[4];
	static const uint64_t insert_at[4] = {0, 10, 20, 995}, dispatch_at[4] = {5, 710, 990, 995};
	struct sched *s = new_none(8, 0);
	const struct sched_entity_stats *e = &s->stats.entity[7];

	(void)state;
	for (int i = 0; i < 4; i++) {
		test_rq_init(&rqs[i], 7, SCHED_OP_READ, 0, 0, 1000 + i);
		assert_int_equal(sched_insert(s, &rqs[i], insert_at[i]), 0);
		assert_ptr_equal(sched_dispatch(s, dispatch_at[i]), &rqs[i]);
	}
	for (int i = 0; i < 4; i++)
		sched_completed(s, &rqs[i], 1000);
	assert_int_equal(e->wait_ns, 5 + 700 + 970 + 0);
	assert_int_equal(e->max_wait_ns, 970);
	assert_int_equal(e->service_ns, 995 + 290 + 10 + 5);
	assert_int_equal(e->bytes, 4006);
	assert_int_equal(s->stats.max_in_flight, 4);
	test_sched_free(s);
}

/* Depths beyond 63 share the last bucket; max_in_flight is exact. */
static void test_inflight_histogram_deep(void **state)
{
	enum { N = 70 };
	struct sched_request rqs[N];
	struct sched *s = new_none(100, 0);
	uint64_t sum = 0;

	(void)state;
	for (int i = 0; i < N; i++) {
		test_rq_init(&rqs[i], i, SCHED_OP_READ, 0, 0, 4096);
		assert_int_equal(sched_insert(s, &rqs[i], 0), 0);
	}
	/* Dispatch i at t = i + 1: depth i lasts exactly 1 ns. */
	for (int i = 0; i < N; i++)
		assert_ptr_equal(sched_dispatch(s, i + 1), &rqs[i]);
	assert_int_equal(s->stats.max_in_flight, N);
	sched_stats_sync(s, N + 100);
	for (int b = 0; b < SCHED_INFLIGHT_BUCKETS - 1; b++)
		assert_int_equal(s->stats.inflight_ns[b], 1);
	assert_int_equal(s->stats.inflight_ns[SCHED_INFLIGHT_BUCKETS - 1], (N - 64) + 100);
	/* Complete all at once at t = 200: 30 more ns at depth 70, then zero-length levels. */
	for (int i = 0; i < N; i++)
		sched_completed(s, &rqs[i], 200);
	sched_stats_sync(s, 300);
	assert_int_equal(s->stats.inflight_ns[0], 1 + 100);
	assert_int_equal(s->stats.inflight_ns[SCHED_INFLIGHT_BUCKETS - 1], (N - 64) + 130);
	for (int b = 0; b < SCHED_INFLIGHT_BUCKETS; b++)
		sum += s->stats.inflight_ns[b];
	assert_int_equal(sum, 300);
	assert_int_equal(s->stats.max_in_flight, N);
	test_sched_free(s);
}

/* The histogram starts at the init time, not at zero. */
static void test_inflight_histogram_starts_at_init(void **state)
{
	struct sched_request rq;
	struct sched *s = new_none(4, 1000000);

	(void)state;
	test_rq_init(&rq, 3, SCHED_OP_READ, 0, 0, 4096);
	assert_int_equal(sched_insert(s, &rq, 1000100), 0);
	assert_ptr_equal(sched_dispatch(s, 1000200), &rq);
	sched_completed(s, &rq, 1000500);
	sched_stats_sync(s, 1001000);
	assert_int_equal(s->stats.inflight_ns[0], 200 + 500);
	assert_int_equal(s->stats.inflight_ns[1], 300);
	test_sched_free(s);
}

struct kind {
	enum sched_op op;
	uint8_t flags;
	bool sync;
	int dir;
};

/*
 * What the submitter sets for each kind of I/O, and what the scheduler must make of it: reads
 * are sync with or without the flag; O_DIRECT writes and fsync flushes carry SYNC; buffered
 * write-back does not, and META alone does not make a request sync. Everything but a read is
 * the write direction.
 */
static const struct kind kinds[] = {
	{SCHED_OP_READ, 0, true, 0},
	{SCHED_OP_READ, SCHED_RQ_SYNC, true, 0},
	{SCHED_OP_WRITE, SCHED_RQ_SYNC, true, 1},
	{SCHED_OP_WRITE, SCHED_RQ_SYNC | SCHED_RQ_IDLE, true, 1},
	{SCHED_OP_WRITE, 0, false, 1},
	{SCHED_OP_WRITE, SCHED_RQ_META, false, 1},
	{SCHED_OP_FLUSH, SCHED_RQ_SYNC, true, 1},
	{SCHED_OP_DISCARD, 0, false, 1},
	{SCHED_OP_DISCARD, SCHED_RQ_SYNC, true, 1},
};
#define NR_KINDS (sizeof(kinds) / sizeof(kinds[0]))

static void test_rq_sync_semantics(void **state)
{
	(void)state;
	for (size_t k = 0; k < NR_KINDS; k++) {
		struct sched_request rq;

		test_rq_init(&rq, 0, kinds[k].op, kinds[k].flags, 0, 4096);
		assert_int_equal(sched_rq_is_sync(&rq), kinds[k].sync);
		assert_int_equal(sched_rq_dir(&rq), kinds[k].dir);
	}
}

static void test_rq_geometry(void **state)
{
	struct sched_request rq;

	(void)state;
	test_rq_init(&rq, 0, SCHED_OP_READ, 0, 4096, 4096);
	assert_int_equal(sched_rq_pos(&rq), 8);
	assert_int_equal(sched_rq_sectors(&rq), 8);
	rq.length = 513;
	assert_int_equal(sched_rq_sectors(&rq), 2);
	rq.length = 0;
	assert_int_equal(sched_rq_sectors(&rq), 0);
	rq.offset = 511;
	assert_int_equal(sched_rq_pos(&rq), 0);
	rq.offset = 1ull << 50;
	assert_int_equal(sched_rq_pos(&rq), 1ull << 41);
}

static void assert_counters(const struct sched *s, const uint32_t want[4])
{
	assert_int_equal(s->dev.in_flight, want[0]);
	assert_int_equal(s->dev.in_flight_dir[0], want[1]);
	assert_int_equal(s->dev.in_flight_dir[1], want[2]);
	assert_int_equal(s->dev.in_flight_sync, want[3]);
}

/* dev.in_flight_dir and in_flight_sync follow every dispatch and completion. */
static void test_device_counters(void **state)
{
	struct sched_request rqs[NR_KINDS];
	struct sched *s = new_none(NR_KINDS, 0);
	uint32_t want[4] = {0, 0, 0, 0};
	struct test_rng rng;
	uint32_t order[NR_KINDS];

	(void)state;
	for (size_t k = 0; k < NR_KINDS; k++) {
		test_rq_init(&rqs[k], k, kinds[k].op, kinds[k].flags, k << 20, 4096);
		assert_int_equal(sched_insert(s, &rqs[k], 0), 0);
		/* Queued requests are not in flight. */
		assert_counters(s, want);
	}
	/* The flush first (it never enters the elevator), then the others in their order. */
	for (size_t i = 0, k; i < NR_KINDS; i++) {
		k = i == 0 ? 6 : i <= 6 ? i - 1 : i;
		assert_int_equal(kinds[6].op, SCHED_OP_FLUSH);
		assert_ptr_equal(sched_dispatch(s, i + 1), &rqs[k]);
		want[0]++;
		want[1 + kinds[k].dir]++;
		want[3] += kinds[k].sync;
		assert_counters(s, want);
	}
	assert_int_equal(want[1], 2);
	assert_int_equal(want[2], NR_KINDS - 2);
	assert_int_equal(want[3], 6);
	/* Complete in a shuffled order. */
	test_rng_seed(&rng, 12);
	for (size_t k = 0; k < NR_KINDS; k++)
		order[k] = k;
	test_rng_shuffle(&rng, order, NR_KINDS);
	for (size_t i = 0; i < NR_KINDS; i++) {
		size_t k = order[i];

		sched_completed(s, &rqs[k], 100 + i);
		want[0]--;
		want[1 + kinds[k].dir]--;
		want[3] -= kinds[k].sync;
		assert_counters(s, want);
	}
	assert_device_idle(s);
	test_sched_free(s);
}

/*
 * A flush never enters the elevator: blk_insert_flush() puts it on the dispatch list
 * (hctx->dispatch, the legacy q->queue_head), which the driver is given before anything the
 * elevator holds; its completion is not the elevator's either.
 */
static void test_flush_first(void **state)
{
	struct sched *s = new_none(1, 0);
	struct sched_request r[4], fl;

	(void)state;
	for (int i = 0; i < 4; i++) {
		test_rq_init(&r[i], (uint32_t)i, SCHED_OP_READ, SCHED_RQ_SYNC, (uint64_t)i << 20, 4096);
		assert_int_equal(sched_insert(s, &r[i], 0), 0);
	}
	assert_ptr_equal(sched_dispatch(s, 1), &r[0]);
	test_rq_init(&fl, 3, SCHED_OP_FLUSH, SCHED_RQ_SYNC, 0, 0);
	assert_int_equal(sched_insert(s, &fl, 2), 0);
	assert_int_equal(sched_queued(s), 4);
	assert_null(sched_dispatch(s, 3)); /* depth 1: full */
	assert_false(sched_completed(s, &r[0], 4));
	assert_ptr_equal(sched_dispatch(s, 5), &fl);
	assert_false(sched_completed(s, &fl, 6));
	for (int i = 1; i < 4; i++) {
		assert_ptr_equal(sched_dispatch(s, 7), &r[i]);
		sched_completed(s, &r[i], 8);
	}
	assert_int_equal(sched_queued(s), 0);
	test_sched_free(s);
}

/* The counters of each kind alone, several in flight at once, many rounds. */
static void test_device_counters_per_kind(void **state)
{
	enum { DEPTH = 5 };
	struct sched_request rqs[DEPTH];
	struct sched *s = new_none(DEPTH, 0);
	uint64_t now = 0;

	(void)state;
	for (size_t k = 0; k < NR_KINDS; k++) {
		for (int i = 0; i < DEPTH; i++) {
			test_rq_init(&rqs[i], i, kinds[k].op, kinds[k].flags, 0, 512);
			assert_int_equal(sched_insert(s, &rqs[i], now), 0);
		}
		for (int i = 0; i < DEPTH; i++)
			assert_non_null(sched_dispatch(s, ++now));
		assert_int_equal(s->dev.in_flight, DEPTH);
		assert_int_equal(s->dev.in_flight_dir[kinds[k].dir], DEPTH);
		assert_int_equal(s->dev.in_flight_dir[!kinds[k].dir], 0);
		assert_int_equal(s->dev.in_flight_sync, kinds[k].sync ? DEPTH : 0);
		for (int i = 0; i < DEPTH; i++)
			sched_completed(s, &rqs[i], ++now);
		assert_device_idle(s);
	}
	test_sched_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_state),
		cmocka_unit_test(test_fifo_across_owners),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_depth_one),
		cmocka_unit_test(test_queued_counts),
		cmocka_unit_test(test_no_timer),
		cmocka_unit_test(test_stats_scripted),
		cmocka_unit_test(test_stats_max_wait),
		cmocka_unit_test(test_inflight_histogram_deep),
		cmocka_unit_test(test_inflight_histogram_starts_at_init),
		cmocka_unit_test(test_rq_sync_semantics),
		cmocka_unit_test(test_rq_geometry),
		cmocka_unit_test(test_device_counters),
		cmocka_unit_test(test_flush_first),
		cmocka_unit_test(test_device_counters_per_kind),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
