// SPDX-License-Identifier: GPL-2.0
/*
 * Kyber through the core API in virtual time: the domains and their batches, the token pools
 * (exhaustion, the hardware queue's wait and its wake batch, the pool after a shrink), the
 * latency histograms and the timer's depth adjustment (congestion from the p90, scaling by the
 * p99, the p99 kept for the next congestion, the 500-sample / 1 s rule), limit_depth, and a
 * reader beside async writers through vsim (the block layer and a model).
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

#include "kyber.h"
#include "sched.h"
#include "support.h"
#include "vsim.h"

#define MS SCHED_NS_PER_MS
#define US SCHED_NS_PER_US
/* The stats timer: HZ/10 jiffies after a completion, on a jiffy boundary. */
#define TIMER_NS (SCHED_HZ / 10 * SCHED_JIFFY_NS)

static void set(struct sched_config *cfg, const char *name, const char *value)
{
	char err[256] = "";

	assert_int_equal(sched_config_set_tunable(cfg, name, value, err, sizeof(err)), 0);
}

/* Kyber with a device of the given depth (deep enough not to be the limit unless asked). */
static struct sched *new_kyber(uint32_t depth, uint32_t trace_bytes)
{
	struct sched_config cfg;

	sched_config_defaults(&cfg, SCHED_POLICY_KYBER);
	cfg.hw_queue_depth = depth;
	cfg.rotational = false;
	cfg.trace_bytes = trace_bytes;
	return test_sched_new(&cfg, 0);
}

static struct kyber_domain_state dom(const struct sched *s, enum kyber_domain d)
{
	struct kyber_domain_state st;

	assert_true(kyber_domain_state(s, d, &st));
	return st;
}

static void rq_op(struct sched_request *rq, enum sched_op op, uint32_t owner, uint64_t n)
{
	uint8_t flags = op == SCHED_OP_READ ? SCHED_RQ_SYNC : op == SCHED_OP_WRITE ? 0 : 0;

	test_rq_init(rq, owner, op, flags, n * 4096, 4096);
}

static void test_registered_and_tunables(void **state)
{
	const struct sched_policy_ops *ops = sched_policy_ops(SCHED_POLICY_KYBER);
	struct sched_config cfg;
	char err[256];
	struct sched *s;

	(void)state;
	assert_ptr_equal(ops, &sched_kyber_ops);
	assert_true(sched_policy_available(SCHED_POLICY_KYBER));
	assert_int_equal(sched_policy_by_name("kyber"), SCHED_POLICY_KYBER);
	assert_string_equal(ops->name, "kyber");
	assert_int_equal(ops->blk_mode, SCHED_BLK_MQ);
	assert_int_equal(ops->nr_tunables, KYBER_NR_TUNABLES);
	/* The sysfs files, in ns, any non-negative value (kstrtoull; int64 here). */
	assert_string_equal(ops->tunables[KYBER_READ_LAT_NSEC].name, "read_lat_nsec");
	assert_string_equal(ops->tunables[KYBER_WRITE_LAT_NSEC].name, "write_lat_nsec");
	for (int i = 0; i < KYBER_NR_TUNABLES; i++) {
		assert_string_equal(ops->tunables[i].unit, "ns");
		assert_int_equal(ops->tunables[i].min, 0);
		assert_int_equal(ops->tunables[i].max, INT64_MAX);
		assert_non_null(ops->tunables[i].help);
	}
	assert_int_equal(ops->tunables[KYBER_READ_LAT_NSEC].def, 2000000);
	assert_int_equal(ops->tunables[KYBER_WRITE_LAT_NSEC].def, 10000000);
	sched_config_defaults(&cfg, SCHED_POLICY_KYBER);
	assert_int_equal(sched_config_set_tunable(&cfg, "read_lat_nsec", "-1", err, sizeof(err)),
			 -1);
	test_assert_one_line(err);
	assert_int_equal(sched_config_set_tunable(&cfg, "write_lat_nsec", "1ms", err, sizeof(err)),
			 -1);
	test_assert_one_line(err);
	assert_int_equal(sched_config_set_tunable(&cfg, "slice_idle", "0", err, sizeof(err)), -1);
	test_assert_one_line(err);
	set(&cfg, "read_lat_nsec", "0");
	set(&cfg, "write_lat_nsec", "9223372036854775807");
	s = test_sched_new(&cfg, 0);
	assert_int_equal(sched_tunable_value(s, KYBER_READ_LAT_NSEC), 0);
	assert_int_equal(sched_tunable_value(s, KYBER_WRITE_LAT_NSEC), INT64_MAX);
	assert_int_equal(sched_next_timer(s), SCHED_NO_TIMER);
	test_sched_free(s);

	/* Every domain at its kernel depth and wake batch (depth / 8, at most 8), none waiting. */
	s = new_kyber(32, 0);
	static const uint32_t depth[KYBER_NUM_DOMAINS] = {256, 128, 64, 16};
	static const uint32_t batch[KYBER_NUM_DOMAINS] = {8, 8, 8, 2};

	for (int d = 0; d < KYBER_NUM_DOMAINS; d++) {
		struct kyber_domain_state st = dom(s, d);

		assert_int_equal(st.depth, depth[d]);
		assert_int_equal(st.wake_batch, batch[d]);
		assert_int_equal(st.in_use, 0);
		assert_false(st.waiting);
		assert_int_equal(st.p99, -1);
	}
	test_sched_free(s);
}

/*
 * Each operation has its domain and each domain its FIFO; dispatch takes batches of 16 reads, 8
 * writes, 1 discard round robin, and a domain with nothing queued is passed over.
 */
static void test_domains_and_batches(void **state)
{
	enum { N = 40 };
	struct sched_request r[N], w[N], t[4];
	struct sched *s = new_kyber(1024, 0);
	char got[2 * N + 8 + 1] = "";
	const char *want =
	    "RRRRRRRRRRRRRRRRWWWWWWWWTRRRRRRRRRRRRRRRRWWWWWWWWTRRRRRRRRWWWWWWWWTWWWWWWWWTWWWWWWWW";
	uint32_t next_r = 0, next_w = 0, next_t = 0, cur, batching;

	(void)state;
	for (int i = 0; i < N; i++) {
		rq_op(&r[i], SCHED_OP_READ, 0, (uint64_t)i);
		assert_int_equal(sched_insert(s, &r[i], 0), 0);
		rq_op(&w[i], SCHED_OP_WRITE, 1, (uint64_t)i);
		assert_int_equal(sched_insert(s, &w[i], 0), 0);
	}
	for (int i = 0; i < 4; i++) {
		rq_op(&t[i], SCHED_OP_DISCARD, 2, (uint64_t)i);
		assert_int_equal(sched_insert(s, &t[i], 0), 0);
	}
	assert_int_equal(dom(s, KYBER_READ).queued, N);
	assert_int_equal(dom(s, KYBER_WRITE).queued, N);
	assert_int_equal(dom(s, KYBER_DISCARD).queued, 4);
	for (int i = 0; i < 2 * N + 4; i++) {
		struct sched_request *rq = sched_dispatch(s, 1000);

		assert_non_null(rq);
		/* FIFO within each domain */
		if (rq->op == SCHED_OP_READ)
			assert_ptr_equal(rq, &r[next_r++]);
		else if (rq->op == SCHED_OP_WRITE)
			assert_ptr_equal(rq, &w[next_w++]);
		else
			assert_ptr_equal(rq, &t[next_t++]);
		got[i] = rq->op == SCHED_OP_READ ? 'R' : rq->op == SCHED_OP_WRITE ? 'W' : 'T';
	}
	print_message("%s\n", got);
	assert_string_equal(got, want);
	assert_null(sched_dispatch(s, 1000));
	assert_false(sched_ops(s)->has_work(s->policy));
	kyber_batch_state(s, &cur, &batching);
	assert_int_equal(cur, KYBER_WRITE);
	assert_int_equal(batching, 8);
	/* Nothing queued: dispatch is not even asked, so the batch state stays (has_work). */
	assert_null(sched_ops(s)->dispatch(s->policy, 2000));
	kyber_batch_state(s, &cur, &batching);
	assert_int_equal(cur, KYBER_WRITE);
	assert_int_equal(batching, 8);
	test_sched_free(s);
}

/*
 * A domain's pool: 256 reads in flight at most; the 257th finds no token, the hardware queue
 * waits on the pool, and is run again only by the eighth free (the wake batch), each free
 * counted; a token freed makes the next dispatch succeed at once if anything runs the queue.
 */
static void test_token_accounting(void **state)
{
	enum { N = 300 };
	struct sched_request *r = calloc(N, sizeof(*r));
	struct sched *s = new_kyber(1024, 0);
	struct sched_request *got[N];
	int n = 0;

	(void)state;
	assert_non_null(r);
	for (int i = 0; i < N; i++) {
		rq_op(&r[i], SCHED_OP_READ, 0, (uint64_t)i);
		assert_int_equal(sched_insert(s, &r[i], 0), 0);
	}
	while ((got[n] = sched_dispatch(s, 10)))
		n++;
	assert_int_equal(n, 256);
	assert_int_equal(dom(s, KYBER_READ).in_use, 256);
	assert_true(dom(s, KYBER_READ).waiting);
	assert_int_equal(dom(s, KYBER_READ).queued, N - 256);
	/* Seven frees: no run asked for; a dispatch between them would find a token, but nothing
	 * runs the queue. The eighth wakes it. */
	for (int i = 0; i < 7; i++)
		assert_false(sched_completed(s, got[i], 20));
	assert_true(dom(s, KYBER_READ).waiting);
	assert_int_equal(dom(s, KYBER_READ).in_use, 249);
	assert_true(sched_completed(s, got[7], 20));
	assert_false(dom(s, KYBER_READ).waiting);
	/* The queue runs: 8 tokens free, 8 requests go, and it waits again. */
	n = 0;
	while ((got[n] = sched_dispatch(s, 30)))
		n++;
	assert_int_equal(n, 8);
	assert_true(dom(s, KYBER_READ).waiting);
	/* A free counted before the hardware queue waited again counts toward its next wake: the
	 * pool's completion and wake-up counts are kept across waits. Here: free 3, take one
	 * (coming off the wait queue), wait again, free 5 more: the fifth wakes. */
	for (int i = 0; i < 3; i++)
		assert_false(sched_completed(s, got[i], 40));
	assert_non_null(got[0] = sched_dispatch(s, 41));
	assert_false(dom(s, KYBER_READ).waiting);
	assert_non_null(sched_dispatch(s, 41));
	assert_non_null(sched_dispatch(s, 41));
	assert_null(sched_dispatch(s, 41));
	assert_true(dom(s, KYBER_READ).waiting);
	for (int i = 3; i < 7; i++)
		assert_false(sched_completed(s, got[i], 50));
	assert_true(sched_completed(s, got[7], 50));
	assert_false(dom(s, KYBER_READ).waiting);
	/* The other domains are not held by the read pool. */
	struct sched_request wr;

	rq_op(&wr, SCHED_OP_WRITE, 1, 0);
	assert_int_equal(sched_insert(s, &wr, 60), 0);
	for (int k = 0;; k++) {
		struct sched_request *rq = sched_dispatch(s, 60);

		assert_true(k < 16);
		assert_non_null(rq);
		if (rq == &wr)
			break;
	}
	assert_int_equal(dom(s, KYBER_WRITE).in_use, 1);
	free(r);
	test_sched_free(s);
}

/* The other domains' pools: 64 discards, 16 others' worth (a wake batch of 2). */
static void test_discard_pool(void **state)
{
	enum { N = 70 };
	struct sched_request t[N];
	struct sched *s = new_kyber(1024, 0);
	int n = 0;

	(void)state;
	for (int i = 0; i < N; i++) {
		rq_op(&t[i], SCHED_OP_DISCARD, 0, (uint64_t)i);
		assert_int_equal(sched_insert(s, &t[i], 0), 0);
	}
	while (sched_dispatch(s, 1))
		n++;
	assert_int_equal(n, 64);
	assert_int_equal(dom(s, KYBER_DISCARD).in_use, 64);
	assert_true(dom(s, KYBER_DISCARD).waiting);
	for (int i = 0; i < 7; i++)
		assert_false(sched_completed(s, &t[i], 2));
	assert_true(sched_completed(s, &t[7], 2));
	test_sched_free(s);
}

/* ---- the latency histograms and the timer ---- */

/* A completion of op whose total latency (insert to completion) and I/O latency (dispatch to
 * completion) are given, ending at `end`. */
static void complete_one(struct sched *s, enum sched_op op, uint64_t total, uint64_t io,
			 uint64_t end)
{
	struct sched_request rq, *got;

	rq_op(&rq, op, 0, 0);
	assert_int_equal(sched_insert(s, &rq, end - total), 0);
	got = sched_dispatch(s, end - io);
	assert_ptr_equal(got, &rq);
	sched_completed(s, &rq, end);
}

static void complete_n(struct sched *s, enum sched_op op, int n, uint64_t total, uint64_t io,
		       uint64_t end)
{
	for (int i = 0; i < n; i++)
		complete_one(s, op, total, io, end);
}

/* Runs the timer when due: it must be armed for `due`. */
static void fire(struct sched *s, uint64_t due)
{
	assert_int_equal(sched_next_timer(s), due);
	sched_run_timer(s, due - 1);
	assert_int_equal(sched_next_timer(s), due);
	sched_run_timer(s, due);
	assert_int_equal(sched_next_timer(s), SCHED_NO_TIMER);
}

/* The timer: armed HZ/10 after a completion, on its jiffy, never pushed later by the next ones. */
static void test_timer_arming(void **state)
{
	struct sched *s = new_kyber(32, 0);
	uint64_t t0 = 10 * MS + 123; /* jiffy 2 */

	(void)state;
	complete_one(s, SCHED_OP_READ, 100 * US, 100 * US, t0);
	assert_int_equal(sched_next_timer(s), (sched_jiffies(t0) + SCHED_HZ / 10) * SCHED_JIFFY_NS);
	complete_one(s, SCHED_OP_WRITE, 100 * US, 100 * US, t0 + 50 * MS);
	assert_int_equal(sched_next_timer(s), (sched_jiffies(t0) + SCHED_HZ / 10) * SCHED_JIFFY_NS);
	fire(s, (sched_jiffies(t0) + SCHED_HZ / 10) * SCHED_JIFFY_NS);
	/* too few samples (2) within the first second: no percentile, no adjustment */
	for (int d = 0; d < KYBER_OTHER; d++) {
		assert_int_equal(dom(s, d).p99, -1);
		assert_int_equal(dom(s, d).depth, d == KYBER_READ    ? 256
						  : d == KYBER_WRITE ? 128
								     : 64);
	}
	test_sched_free(s);
}

/*
 * Congestion: reads' p90 I/O latency over their 2 ms target (3 ms: bucket 5) while writes'
 * total p99 is well under their 10 ms (1 ms: bucket 0). Each timer run shrinks the write pool to
 * (0 + 1) / 4 of its depth, down to 1; reads, over target, are to grow by 6/4 but are at their
 * 256 already. Then writes over target (p99 in the last bucket) double, without congestion.
 */
static void test_depth_adjustment(void **state)
{
	struct sched *s = new_kyber(1024, 0);
	static const uint32_t shrink[] = {32, 8, 2, 1, 1};
	uint64_t t = 0;

	(void)state;
	for (unsigned int k = 0; k < sizeof(shrink) / sizeof(shrink[0]); k++) {
		uint64_t due;

		t += 200 * MS;
		complete_n(s, SCHED_OP_READ, 500, 3 * MS, 3 * MS, t);
		complete_n(s, SCHED_OP_WRITE, 500, 1 * MS, 1 * MS, t);
		due = (sched_jiffies(t) + SCHED_HZ / 10) * SCHED_JIFFY_NS;
		fire(s, due);
		assert_int_equal(dom(s, KYBER_WRITE).depth, shrink[k]);
		assert_int_equal(dom(s, KYBER_WRITE).wake_batch,
				 shrink[k] / 8 < 1 ? 1 : shrink[k] / 8);
		assert_int_equal(dom(s, KYBER_READ).depth, 256);
		/* congestion uses the p99s up */
		assert_int_equal(dom(s, KYBER_READ).p99, -1);
		assert_int_equal(dom(s, KYBER_WRITE).p99, -1);
	}
	/* Writes over their target, reads fine: no congestion, and the write pool doubles
	 * ((7 + 1) / 4) each time: 1, 2, 4 ... capped at 128. */
	static const uint32_t grow[] = {2, 4, 8, 16, 32, 64, 128, 128};

	for (unsigned int k = 0; k < sizeof(grow) / sizeof(grow[0]); k++) {
		t += 200 * MS;
		complete_n(s, SCHED_OP_READ, 500, 100 * US, 100 * US, t);
		complete_n(s, SCHED_OP_WRITE, 500, 30 * MS, 100 * US, t);
		fire(s, (sched_jiffies(t) + SCHED_HZ / 10) * SCHED_JIFFY_NS);
		assert_int_equal(dom(s, KYBER_WRITE).depth, grow[k]);
		assert_int_equal(dom(s, KYBER_READ).depth, 256);
		/* without congestion a p99 computed is kept */
		assert_int_equal(dom(s, KYBER_WRITE).p99, 7);
		assert_int_equal(dom(s, KYBER_READ).p99, 0);
	}
	test_sched_free(s);
}

/*
 * The p99 kept for the next congestion: reads' p99 (bucket 1: 0.5..1 ms of 2) is computed in a
 * window without congestion and kept; in the next window writes are congested (their p90 I/O
 * latency 20 ms, over 10) and reads have no samples: the kept p99 shrinks the read pool to
 * (1 + 1) / 4 = 128, and is used up. The writes' own p99, over target, would grow them past
 * their 128: they stay.
 */
static void test_p99_kept_for_congestion(void **state)
{
	struct sched *s = new_kyber(1024, 0);
	uint64_t t = 100 * MS;

	(void)state;
	complete_n(s, SCHED_OP_READ, 500, 1 * MS, 100 * US, t);
	fire(s, (sched_jiffies(t) + SCHED_HZ / 10) * SCHED_JIFFY_NS);
	assert_int_equal(dom(s, KYBER_READ).p99, 1);
	assert_int_equal(dom(s, KYBER_READ).depth, 256);
	t += 300 * MS;
	complete_n(s, SCHED_OP_WRITE, 500, 20 * MS, 20 * MS, t);
	fire(s, (sched_jiffies(t) + SCHED_HZ / 10) * SCHED_JIFFY_NS);
	assert_int_equal(dom(s, KYBER_READ).depth, 128);
	assert_int_equal(dom(s, KYBER_READ).p99, -1);
	assert_int_equal(dom(s, KYBER_WRITE).depth, 128);
	assert_int_equal(dom(s, KYBER_WRITE).p99, -1);
	/* Congestion again with nothing kept: the read pool stays. */
	t += 300 * MS;
	complete_n(s, SCHED_OP_WRITE, 500, 20 * MS, 20 * MS, t);
	fire(s, (sched_jiffies(t) + SCHED_HZ / 10) * SCHED_JIFFY_NS);
	assert_int_equal(dom(s, KYBER_READ).depth, 128);
	test_sched_free(s);
}

struct lines {
	char buf[64][SCHED_TRACE_LINE_MAX];
	unsigned int n;
};

static void collect(void *ctx, uint64_t now, const char *line)
{
	struct lines *l = ctx;

	(void)now;
	if (strncmp(line, "P ", 2) || l->n >= 64)
		return;
	snprintf(l->buf[l->n++], SCHED_TRACE_LINE_MAX, "%s", line + 2);
}

static bool has_line(const struct lines *l, const char *prefix)
{
	for (unsigned int i = 0; i < l->n; i++)
		if (!strncmp(l->buf[i], prefix, strlen(prefix)))
			return true;
	return false;
}

/*
 * Fewer than 500 samples: a percentile waits a second (HZ) from the first timer run that saw the
 * domain's samples. The deadline is the domain's, shared by both types: the p90 of I/O latency,
 * computed first once it has passed, clears it, and the p99 of total latency then sets a new one
 * and waits again. With 10 congested reads a window (5 ms of I/O latency), the p90 comes every
 * tenth run and the p99 never on time: only when its histogram reaches 500 samples (the 50th
 * run), then alone, and without congestion it is kept.
 */
static void test_sample_timeout(void **state)
{
	struct sched *s = new_kyber(1024, 1u << 16);
	struct lines l;
	uint64_t t = 0;
	int p90_runs[8], n90 = 0, p99_run = -1;

	(void)state;
	for (int k = 0; k < 60 && p99_run < 0; k++) {
		t += 100 * MS;
		complete_n(s, SCHED_OP_READ, 10, 5 * MS + 100 * US, 5 * MS, t);
		memset(&l, 0, sizeof(l));
		sched_trace_drain(s->trace, NULL, NULL);
		fire(s, (sched_jiffies(t) + SCHED_HZ / 10) * SCHED_JIFFY_NS);
		sched_trace_drain(s->trace, collect, &l);
		if (has_line(&l, "kyber_latency READ I/O p90")) {
			assert_true(n90 < 8);
			p90_runs[n90++] = k;
			assert_false(has_line(&l, "kyber_latency READ total p99"));
			/* congested, and no p99 of its own nor kept: the pool stays */
			assert_int_equal(dom(s, KYBER_READ).depth, 256);
			assert_int_equal(dom(s, KYBER_READ).p99, -1);
		}
		if (has_line(&l, "kyber_latency READ total p99")) {
			p99_run = k;
			assert_false(has_line(&l, "kyber_latency READ I/O p90"));
			assert_true(has_line(&l, "kyber_latency READ total p99 8/4 samples=500"));
			assert_int_equal(dom(s, KYBER_READ).p99, 7);
		}
	}
	print_message("p90 at runs %d %d %d %d, p99 at run %d\n", p90_runs[0], p90_runs[1],
		      p90_runs[2], p90_runs[3], p99_run);
	assert_int_equal(n90, 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(p90_runs[i], 10 * (i + 1));
	assert_int_equal(p99_run, 49);
	test_sched_free(s);
}

/*
 * A shrink below the tokens held: the pool hands out only the free tokens under the new depth;
 * tokens at or past it come back only when freed and a depth covers them again.
 */
static void test_shrink_with_tokens_held(void **state)
{
	enum { N = 200 };
	struct sched_request *r = calloc(N, sizeof(*r));
	struct sched *s = new_kyber(1024, 0);
	struct sched_request *held[N];
	uint64_t t = 100 * MS;
	int n = 0;

	(void)state;
	assert_non_null(r);
	/* 100 reads in flight: tokens 0..99 (the hint starts at 0) */
	for (int i = 0; i < 100; i++) {
		rq_op(&r[i], SCHED_OP_READ, 0, (uint64_t)i);
		assert_int_equal(sched_insert(s, &r[i], t), 0);
		assert_non_null(held[i] = sched_dispatch(s, t));
	}
	/* congestion from the writes, reads' p99 good: 256 -> 64 */
	complete_n(s, SCHED_OP_WRITE, 500, 20 * MS, 20 * MS, t);
	complete_n(s, SCHED_OP_READ, 500, 100 * US, 100 * US, t);
	fire(s, (sched_jiffies(t) + SCHED_HZ / 10) * SCHED_JIFFY_NS);
	assert_int_equal(dom(s, KYBER_READ).depth, 64);
	assert_int_equal(dom(s, KYBER_READ).in_use, 100);
	/* no token free under 64: nothing more goes */
	for (int i = 100; i < N; i++) {
		rq_op(&r[i], SCHED_OP_READ, 0, (uint64_t)i);
		assert_int_equal(sched_insert(s, &r[i], t + 200 * MS), 0);
	}
	assert_null(sched_dispatch(s, t + 200 * MS));
	/* freeing the tokens past 64 (36 requests) frees nothing usable */
	for (int i = 64; i < 100; i++)
		sched_completed(s, held[i], t + 201 * MS);
	assert_null(sched_dispatch(s, t + 202 * MS));
	/* each token under 64 freed is one request more */
	for (int i = 0; i < 10; i++)
		sched_completed(s, held[i], t + 203 * MS);
	while (sched_dispatch(s, t + 204 * MS))
		n++;
	assert_int_equal(n, 10);
	assert_int_equal(dom(s, KYBER_READ).in_use, 64);
	free(r);
	test_sched_free(s);
}

/* kyber_limit_depth(): async requests allocate from 75% of the scheduler tags. */
static void test_limit_depth(void **state)
{
	struct sched_request rd, wr, wr_sync, trim;
	struct sched *s = new_kyber(32, 0); /* nr_requests 64 */

	(void)state;
	test_rq_init(&rd, 0, SCHED_OP_READ, SCHED_RQ_SYNC, 0, 4096);
	test_rq_init(&wr, 0, SCHED_OP_WRITE, 0, 0, 4096);
	test_rq_init(&wr_sync, 0, SCHED_OP_WRITE, SCHED_RQ_SYNC | SCHED_RQ_IDLE, 0, 4096);
	test_rq_init(&trim, 0, SCHED_OP_DISCARD, 0, 0, 4096);
	assert_int_equal(s->dev.nr_requests, 64);
	assert_int_equal(sched_limit_depth(s, &rd), 0);
	assert_int_equal(sched_limit_depth(s, &wr_sync), 0);
	assert_int_equal(sched_limit_depth(s, &wr), 48);
	assert_int_equal(sched_limit_depth(s, &trim), 48);
	test_sched_free(s);
}

/*
 * Random streams of the three domains: every request dispatched and completed once, the tokens
 * held always those dispatched and not completed, never more than a pool's depth taken while
 * the depth stands (pools change only at the timer), and all back at the end.
 */
static void test_random_exactly_once(void **state)
{
	enum { N = 4000 };
	struct sched_request *r = calloc(N, sizeof(*r));
	uint8_t *seen = calloc(N, 1);
	struct sched_request **fly = calloc(N, sizeof(*fly));
	struct test_rng rng;
	struct sched *s = new_kyber(64, 0);
	uint32_t inserted = 0, nfly = 0, done = 0, in_dom[KYBER_NUM_DOMAINS] = {0};
	uint64_t now = 0;

	(void)state;
	assert_non_null(r);
	test_rng_seed(&rng, 7);
	while (done < N) {
		uint64_t a = test_rng_below(&rng, 10);

		now += test_rng_below(&rng, 300 * US);
		sched_run_timer(s, now);
		if (a < 4 && inserted < N) {
			static const enum sched_op ops[] = {SCHED_OP_READ, SCHED_OP_READ,
							    SCHED_OP_WRITE, SCHED_OP_DISCARD};
			enum sched_op op = ops[test_rng_below(&rng, 4)];

			rq_op(&r[inserted], op, (uint32_t)test_rng_below(&rng, 8), inserted);
			r[inserted].offset = inserted; /* identity */
			assert_int_equal(sched_insert(s, &r[inserted], now), 0);
			inserted++;
		} else if (a < 7) {
			struct sched_request *rq = sched_dispatch(s, now);

			if (rq) {
				int d = rq->op == SCHED_OP_READ	   ? KYBER_READ
					: rq->op == SCHED_OP_WRITE ? KYBER_WRITE
								   : KYBER_DISCARD;

				assert_int_equal(seen[rq->offset]++, 0);
				fly[nfly++] = rq;
				in_dom[d]++;
			}
		} else if (nfly) {
			uint32_t k = (uint32_t)test_rng_below(&rng, nfly);
			struct sched_request *rq = fly[k];
			int d = rq->op == SCHED_OP_READ	   ? KYBER_READ
				: rq->op == SCHED_OP_WRITE ? KYBER_WRITE
							   : KYBER_DISCARD;

			fly[k] = fly[--nfly];
			sched_completed(s, rq, now);
			assert_int_equal(seen[rq->offset]++, 1);
			in_dom[d]--;
			done++;
		} else if (inserted == N) {
			/* nothing in flight: whatever is queued must be dispatchable */
			assert_true(sched_queued(s) == 0 || sched_dispatch(s, now) != NULL);
			if (sched_queued(s) || nfly)
				continue;
		}
		for (int d = 0; d < KYBER_OTHER; d++)
			assert_int_equal(dom(s, d).in_use, in_dom[d]);
	}
	for (int d = 0; d < KYBER_NUM_DOMAINS; d++)
		assert_int_equal(dom(s, d).in_use, 0);
	assert_int_equal(sched_queued(s), 0);
	free(fly);
	free(seen);
	free(r);
	test_sched_free(s);
}

/* ---- through the block layer and a model (vsim) ---- */

/*
 * A 4k random reader at depth 1 beside 4 async writers at depth 32 on the cloud-ssd model (64
 * device tags, 128 scheduler tags): under none each read waits behind the writes queued ahead of
 * it, in the scheduler and in the device (4.4 ms). Under kyber a read waits only for the device
 * (its own domain, its turn each round), and when its p90 I/O latency is over 2 ms (the device
 * full of writes: 2.2 ms) the write pool (writes' p99 under their 10 ms) shrinks, 128 -> 64 -> 32,
 * until the reads are under target; the writes lose a few percent.
 */
static void at_end(const struct sched *s, void *ctx)
{
	struct kyber_domain_state *w = ctx;

	if (!kyber_domain_state(s, KYBER_WRITE, w))
		memset(w, 0, sizeof(*w));
}

static void reader_writers(enum sched_policy_id pol, struct vsim_result *res,
			   struct kyber_domain_state *w)
{
	struct vsim_config cfg;
	struct vsim_job job[2];
	char err[256] = "";

	vsim_config_defaults(&cfg, pol, DEVMODEL_CLOUD_SSD);
	cfg.runtime_ns = 3000 * MS;
	cfg.at_end = at_end;
	cfg.at_end_ctx = w;
	for (int j = 0; j < 2; j++)
		vsim_job_defaults(&job[j]);
	job[0].name = "reader";
	job[1].name = "writers";
	job[1].rw = VSIM_RANDWRITE;
	job[1].direct = false;
	job[1].iodepth = 32;
	job[1].numjobs = 4;
	cfg.jobs = job;
	cfg.nr_jobs = 2;
	if (vsim_run(&cfg, res, err, sizeof(err))) {
		print_error("vsim_run: %s\n", err);
		fail();
	}
	assert_false(res->stalled);
	print_message("%s: reads %.0f IOPS mean %.3f ms p99 %.3f ms, writes %.0f IOPS, write pool "
		      "%u\n",
		      sched_policy_ops(pol)->name, res->job[0].iops, res->job[0].lat.mean_ns / 1e6,
		      res->job[0].lat.p99_ns / 1e6, res->job[1].iops, w->depth);
}

static void test_reader_beside_async_writers(void **state)
{
	struct kyber_domain_state kw, nw;
	struct vsim_result ky, none;

	(void)state;
	reader_writers(SCHED_POLICY_KYBER, &ky, &kw);
	reader_writers(SCHED_POLICY_NONE, &none, &nw);
	assert_int_equal(kw.depth, 32);
	assert_true(ky.job[0].lat.mean_ns * 2 < none.job[0].lat.mean_ns);
	assert_true(ky.job[0].iops > 2 * none.job[0].iops);
	assert_true(ky.job[1].iops > 0.95 * none.job[1].iops);
	vsim_result_free(&ky);
	vsim_result_free(&none);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_registered_and_tunables),
	    cmocka_unit_test(test_domains_and_batches),
	    cmocka_unit_test(test_token_accounting),
	    cmocka_unit_test(test_discard_pool),
	    cmocka_unit_test(test_timer_arming),
	    cmocka_unit_test(test_depth_adjustment),
	    cmocka_unit_test(test_p99_kept_for_congestion),
	    cmocka_unit_test(test_sample_timeout),
	    cmocka_unit_test(test_shrink_with_tokens_held),
	    cmocka_unit_test(test_limit_depth),
	    cmocka_unit_test(test_random_exactly_once),
	    cmocka_unit_test(test_reader_beside_async_writers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
