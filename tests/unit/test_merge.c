// SPDX-License-Identifier: GPL-2.0
/*
 * Request merging in the block layer (blk/merge.c), in virtual time on the hdd model: each merge
 * kind (back through the one-hit cache and the hash, front through the policy's lookup, request
 * into request after a merge, at admission), each limit that stops one (max_sectors_kb,
 * max_segments, op, direction, group, I/O priority, another CFQ/BFQ queue, a sync bio into an
 * async request), nomerges 0/1/2, deadline's front_merges, and every bio of a merged request
 * handed back exactly once with its own range.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bfq_internal.h"
#include "blk.h"
#include "kyber.h"
#include "support.h"
#include "vsim.h"

#define KB 1024ull
#define MB (1024ull * 1024)
#define NR 16

struct env {
	struct blk_queue *q;
	void *mem;
	struct devmodel_params mp;
	struct blk_host h;
	struct blk_rq r[NR];
	int done[NR];
	uint64_t done_off[NR], done_len[NR];
	int seq, done_seq[NR]; /* the order bios completed in */
};

static void on_done(void *ctx, struct blk_rq *r, uint64_t now)
{
	struct env *e = ctx;
	ptrdiff_t i = r - e->r;

	(void)now;
	assert_true(i >= 0 && i < NR);
	e->done[i]++;
	e->done_seq[i] = ++e->seq;
	e->done_off[i] = r->rq.offset;
	e->done_len[i] = r->rq.length;
	assert_int_equal(r->state, BLK_RQ_IDLE);
}

static void env_init_t(struct env *e, enum sched_policy_id pol, const struct blk_params *given,
		       const char *tunable, const char *value, uint32_t nr_requests)
{
	struct sched_config cfg;
	struct blk_params bp;
	char err[256] = "";
	size_t sz;

	memset(e, 0, sizeof(*e));
	e->mp = devmodel_params_defaults(DEVMODEL_HDD);
	sched_config_defaults(&cfg, pol);
	cfg.hw_queue_depth = 1;
	cfg.rotational = true;
	cfg.max_entities = 4;
	cfg.max_groups = 4;
	/* Room for every request of a test unless it tests admission. */
	cfg.nr_requests = nr_requests ? nr_requests : 64;
	if (tunable)
		assert_int_equal(sched_config_set_tunable(&cfg, tunable, value, err, sizeof(err)),
				 0);
	if (given) {
		bp = *given;
	} else {
		blk_params_defaults(&bp);
		bp.nomerges = 0; /* the kernel's default */
	}
	bp.model = &e->mp;
	sz = blk_size(&cfg, &bp);
	assert_true(sz > 0);
	e->mem = aligned_alloc(64, (sz + 63) & ~(size_t)63);
	e->q = blk_init(e->mem, sz, &cfg, &bp, 0, err, sizeof(err));
	if (!e->q)
		print_error("%s\n", err);
	assert_non_null(e->q);
	e->h.done = on_done;
	e->h.ctx = e;
}

static void env_init(struct env *e, enum sched_policy_id pol, const struct blk_params *given)
{
	env_init_t(e, pol, given, NULL, NULL, 0);
}

static void env_free(struct env *e)
{
	free(e->mem);
}

/* Bio i: owner, op, offset, length (sync reads; writes async unless flagged). */
static int submit(struct env *e, int i, uint32_t owner, enum sched_op op, uint8_t flags,
		  uint64_t off, uint64_t len)
{
	blk_rq_init(&e->r[i]);
	test_rq_init(&e->r[i].rq, owner, op, flags, off, len);
	return blk_submit(e->q, &e->r[i], 1000, &e->h);
}

/* Runs the queue and the model until everything completed. */
static void drain(struct env *e)
{
	uint64_t t = 1000;

	blk_run(e->q, t, &e->h);
	for (int guard = 0; guard < 10000; guard++) {
		t = blk_next_event(e->q);
		if (t == SCHED_NO_TIMER)
			break;
		blk_advance(e->q, t, &e->h);
		blk_run(e->q, t, &e->h);
	}
	assert_int_equal(sched_queued(e->q->s), 0);
}

static uint64_t merges(const struct env *e, enum blk_merge_kind k)
{
	return e->q->st.merges[k];
}

static void assert_done_once(const struct env *e, int n)
{
	for (int i = 0; i < n; i++) {
		assert_int_equal(e->done[i], 1);
		assert_int_equal(e->done_off[i], e->r[i].bio_offset);
		assert_int_equal(e->done_len[i], e->r[i].bio_length);
	}
}

/* A bio starting where a queued request ends joins it (the one-hit cache); one request reaches
 * the device, both bios complete once with their own ranges; /sys/block stat counts it. */
static void test_back_merge(void **state)
{
	struct env e;

	(void)state;
	env_init(&e, SCHED_POLICY_DEADLINE, NULL);
	assert_int_equal(submit(&e, 0, 0, SCHED_OP_READ, 0, 1 * MB, 64 * KB), 1);
	assert_int_equal(submit(&e, 1, 0, SCHED_OP_READ, 0, 1 * MB + 64 * KB, 64 * KB), 1);
	assert_int_equal(e.r[1].state, BLK_RQ_MERGED);
	assert_ptr_equal(e.r[1].head, &e.r[0]);
	assert_int_equal(merges(&e, BLK_MERGE_BACK), 1);
	assert_int_equal(e.r[0].rq.length, 128 * KB);
	assert_int_equal(sched_queued(e.q->s), 1);
	assert_int_equal(e.q->s->stats.bio_merged, 1);
	assert_int_equal(blk_allocated(e.q, 0), 1); /* one tag: the merged bio took none */
	drain(&e);
	assert_done_once(&e, 2);
	assert_int_equal(e.q->s->stats.dispatched, 1);
	assert_int_equal(e.q->st.stat_ios[0], 1);
	assert_int_equal(e.q->st.stat_merges[0], 1);
	assert_int_equal(e.q->st.stat_sectors[0], 256);
	assert_int_equal(e.q->st.model_completions, 1);
	env_free(&e);
}

/* The back-merge hash finds a request the one-hit cache does not hold. */
static void test_back_merge_hash(void **state)
{
	struct env e;

	(void)state;
	env_init(&e, SCHED_POLICY_DEADLINE, NULL);
	submit(&e, 0, 0, SCHED_OP_READ, 0, 1 * MB, 64 * KB); /* last_merge */
	submit(&e, 1, 0, SCHED_OP_READ, 0, 8 * MB, 64 * KB);
	assert_int_equal(submit(&e, 2, 0, SCHED_OP_READ, 0, 8 * MB + 64 * KB, 64 * KB), 1);
	assert_ptr_equal(e.r[2].head, &e.r[1]);
	assert_int_equal(merges(&e, BLK_MERGE_BACK), 1);
	assert_ptr_equal(e.q->last_merge, &e.r[1]);
	drain(&e);
	assert_done_once(&e, 3);
	assert_int_equal(e.q->s->stats.dispatched, 2);
	env_free(&e);
}

/* dd_request_merge(): a bio ending where a queued request starts, with front_merges only; the
 * request's start moves and it is re-sorted. */
static void front_merge(bool front_merges)
{
	struct env e;

	env_init_t(&e, SCHED_POLICY_DEADLINE, NULL, "front_merges", front_merges ? "1" : "0", 0);
	submit(&e, 0, 0, SCHED_OP_READ, 0, 1 * MB + 64 * KB, 64 * KB); /* last_merge */
	submit(&e, 1, 0, SCHED_OP_READ, 0, 8 * MB, 64 * KB);
	/* A back merge elsewhere: the one-hit cache moves off request 0. */
	submit(&e, 2, 0, SCHED_OP_READ, 0, 8 * MB + 64 * KB, 64 * KB);
	assert_ptr_equal(e.q->last_merge, &e.r[1]);
	submit(&e, 3, 0, SCHED_OP_READ, 0, 1 * MB, 64 * KB);
	if (front_merges) {
		assert_int_equal(e.r[3].state, BLK_RQ_MERGED);
		assert_ptr_equal(e.r[3].head, &e.r[0]);
		assert_int_equal(e.r[0].rq.offset, 1 * MB);
		assert_int_equal(e.r[0].rq.length, 128 * KB);
		assert_int_equal(merges(&e, BLK_MERGE_FRONT), 1);
	} else {
		assert_int_equal(e.r[3].state, BLK_RQ_QUEUED);
		assert_int_equal(merges(&e, BLK_MERGE_FRONT), 0);
	}
	drain(&e);
	assert_done_once(&e, 4);
	assert_int_equal(e.q->s->stats.dispatched, front_merges ? 2 : 3);
	env_free(&e);
}

static void test_front_merge(void **state)
{
	(void)state;
	front_merge(true);
}

static void test_front_merges_off(void **state)
{
	(void)state;
	front_merge(false);
}

/* attempt_back_merge(): a bio that fills the gap between two queued requests joins the first,
 * which then takes the second; its tag is freed, the scheduler lets it go. */
static void test_request_merge(void **state)
{
	struct env e;

	(void)state;
	env_init(&e, SCHED_POLICY_DEADLINE, NULL);
	submit(&e, 0, 0, SCHED_OP_WRITE, 0, 1 * MB, 64 * KB);
	submit(&e, 1, 1, SCHED_OP_WRITE, 0, 1 * MB + 128 * KB, 64 * KB);
	assert_int_equal(blk_allocated(e.q, 0), 2);
	assert_int_equal(submit(&e, 2, 2, SCHED_OP_WRITE, 0, 1 * MB + 64 * KB, 64 * KB), 1);
	assert_int_equal(merges(&e, BLK_MERGE_BACK), 1);
	assert_int_equal(merges(&e, BLK_MERGE_REQUEST), 1);
	assert_int_equal(e.r[1].state, BLK_RQ_MERGED);
	assert_ptr_equal(e.r[1].head, &e.r[0]);
	assert_int_equal(e.r[0].rq.length, 192 * KB);
	assert_int_equal(blk_allocated(e.q, 0), 1);
	assert_int_equal(sched_queued(e.q->s), 1);
	assert_int_equal(e.q->s->stats.rq_merged, 1);
	assert_int_equal(sched_entity_stats(e.q->s, 1)->rq_merged, 1);
	assert_int_equal(sched_entity_stats(e.q->s, 2)->bio_merged, 1);
	drain(&e);
	assert_done_once(&e, 3);
	assert_int_equal(e.q->s->stats.dispatched, 1);
	assert_int_equal(e.q->s->stats.inserted, 2);
	assert_int_equal(e.q->st.stat_merges[1], 2);
	assert_int_equal(e.q->st.stat_ios[1], 1);
	env_free(&e);
}

/* attempt_front_merge(): after a front merge the previous request takes the grown one. */
static void test_request_merge_front(void **state)
{
	struct env e;

	(void)state;
	env_init(&e, SCHED_POLICY_DEADLINE, NULL);
	submit(&e, 0, 0, SCHED_OP_READ, 0, 1 * MB, 64 * KB);
	submit(&e, 1, 0, SCHED_OP_READ, 0, 1 * MB + 128 * KB, 64 * KB);
	submit(&e, 2, 0, SCHED_OP_READ, 0, 8 * MB, 64 * KB);
	submit(&e, 3, 0, SCHED_OP_READ, 0, 8 * MB + 64 * KB, 64 * KB); /* last_merge: 2 */
	/* A bio ending where 1 starts, starting where no request ends: dd_request_merge(). */
	assert_int_equal(submit(&e, 4, 0, SCHED_OP_READ, 0, 1 * MB + 96 * KB, 32 * KB), 1);
	assert_int_equal(merges(&e, BLK_MERGE_FRONT), 1);
	assert_ptr_equal(e.r[4].head, &e.r[1]);
	assert_int_equal(e.r[1].rq.offset, 1 * MB + 96 * KB);
	/* 0 ends at 64 KiB, 1 now starts at 96: not contiguous, no request merge yet. */
	assert_int_equal(merges(&e, BLK_MERGE_REQUEST), 0);
	assert_int_equal(submit(&e, 5, 0, SCHED_OP_READ, 0, 1 * MB + 64 * KB, 32 * KB), 1);
	/* In front of 1 (the one-hit cache holds it now), then 0 takes 1. */
	assert_int_equal(merges(&e, BLK_MERGE_FRONT), 2);
	assert_int_equal(merges(&e, BLK_MERGE_BACK), 1);
	assert_int_equal(merges(&e, BLK_MERGE_REQUEST), 1);
	assert_int_equal(e.r[1].state, BLK_RQ_MERGED);
	assert_int_equal(e.r[0].rq.length, 192 * KB);
	drain(&e);
	assert_done_once(&e, 6);
	assert_int_equal(e.q->s->stats.dispatched, 2);
	env_free(&e);
}

/* max_sectors_kb: a merge past it is refused and flags the request REQ_NOMERGE. */
static void test_limit_max_sectors(void **state)
{
	struct blk_params bp;
	struct env e;

	(void)state;
	blk_params_defaults(&bp);
	bp.nomerges = 0;
	bp.max_sectors_kb = 128;
	env_init(&e, SCHED_POLICY_DEADLINE, &bp);
	submit(&e, 0, 0, SCHED_OP_WRITE, 0, 1 * MB, 64 * KB);
	assert_int_equal(submit(&e, 1, 0, SCHED_OP_WRITE, 0, 1 * MB + 64 * KB, 64 * KB), 1);
	assert_int_equal(e.r[1].state, BLK_RQ_MERGED);
	assert_int_equal(submit(&e, 2, 0, SCHED_OP_WRITE, 0, 1 * MB + 128 * KB, 64 * KB), 1);
	assert_int_equal(e.r[2].state, BLK_RQ_QUEUED);
	assert_int_equal(e.q->st.merge_refused_limit, 1);
	assert_true(e.r[0].nomerge);
	assert_null(e.q->last_merge == &e.r[0] ? &e.r[0] : NULL);
	drain(&e);
	assert_done_once(&e, 3);
	assert_int_equal(e.q->s->stats.dispatched, 2);
	env_free(&e);
}

/* max_segments: 4 KiB pages; a 64 KiB bio has 16. */
static void test_limit_max_segments(void **state)
{
	struct blk_params bp;
	struct env e;

	(void)state;
	blk_params_defaults(&bp);
	bp.nomerges = 0;
	bp.max_segments = 24;
	env_init(&e, SCHED_POLICY_DEADLINE, &bp);
	submit(&e, 0, 0, SCHED_OP_READ, 0, 1 * MB, 64 * KB);
	assert_int_equal(e.r[0].nr_phys_segments, 16);
	submit(&e, 1, 0, SCHED_OP_READ, 0, 1 * MB + 64 * KB, 32 * KB); /* 24: fits */
	assert_int_equal(e.r[1].state, BLK_RQ_MERGED);
	submit(&e, 2, 0, SCHED_OP_READ, 0, 1 * MB + 96 * KB, 4 * KB); /* 25: refused */
	assert_int_equal(e.r[2].state, BLK_RQ_QUEUED);
	assert_int_equal(e.q->st.merge_refused_limit, 1);
	drain(&e);
	assert_done_once(&e, 3);
	env_free(&e);
}

/* blk_rq_merge_ok(): another op, direction, group or I/O priority never merges; flushes never. */
static void test_limit_kind(void **state)
{
	struct env e;

	(void)state;
	env_init(&e, SCHED_POLICY_DEADLINE, NULL);
	submit(&e, 0, 0, SCHED_OP_READ, 0, 1 * MB, 64 * KB);
	submit(&e, 1, 0, SCHED_OP_WRITE, 0, 1 * MB + 64 * KB, 64 * KB); /* direction */
	assert_int_equal(e.r[1].state, BLK_RQ_QUEUED);
	blk_rq_init(&e.r[2]);
	test_rq_init(&e.r[2].rq, 0, SCHED_OP_READ, 0, 2 * MB, 64 * KB);
	blk_submit(e.q, &e.r[2], 1000, &e.h);
	blk_rq_init(&e.r[3]);
	test_rq_init(&e.r[3].rq, 0, SCHED_OP_READ, 0, 2 * MB + 64 * KB, 64 * KB);
	e.r[3].rq.group = 1; /* another blkcg */
	blk_submit(e.q, &e.r[3], 1000, &e.h);
	assert_int_equal(e.r[3].state, BLK_RQ_QUEUED);
	blk_rq_init(&e.r[4]);
	test_rq_init(&e.r[4].rq, 0, SCHED_OP_READ, 0, 2 * MB + 64 * KB, 64 * KB);
	e.r[4].rq.prio_class = SCHED_IOPRIO_CLASS_RT; /* another I/O priority */
	blk_submit(e.q, &e.r[4], 1000, &e.h);
	assert_int_equal(e.r[4].state, BLK_RQ_QUEUED);
	submit(&e, 5, 0, SCHED_OP_DISCARD, 0, 4 * MB, 64 * KB);
	submit(&e, 6, 0, SCHED_OP_DISCARD, 0, 4 * MB + 64 * KB, 64 * KB); /* not merged here */
	assert_int_equal(e.r[6].state, BLK_RQ_QUEUED);
	for (int k = 0; k < BLK_MERGE_NR; k++)
		assert_int_equal(merges(&e, (enum blk_merge_kind)k), 0);
	drain(&e);
	assert_done_once(&e, 7);
	env_free(&e);
}

/*
 * I/O priorities and the block core's era: 6.12's blk_rq_merge_ok() and attempt_merge() refuse a
 * merge between priorities, 4.x's did not compare them (merge_any_prio, from the policy's
 * profile: deadline_version=4.19, bfq_version=4.12, every CFQ profile).
 */
static void test_limit_prio_era(void **state)
{
	static const struct {
		enum sched_policy_id pol;
		const char *tunable, *version;
		bool merged;
	} c[] = {
	    {SCHED_POLICY_DEADLINE, "deadline_version", "6.12", false},
	    {SCHED_POLICY_DEADLINE, "deadline_version", "4.19", true},
	    {SCHED_POLICY_BFQ, "bfq_version", "6.12", false},
	    {SCHED_POLICY_BFQ, "bfq_version", "4.12", true},
	};

	(void)state;
	for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		struct env e;

		env_init_t(&e, c[k].pol, NULL, c[k].tunable, c[k].version, 0);
		submit(&e, 0, 0, SCHED_OP_READ, 0, 1 * MB, 64 * KB);
		blk_rq_init(&e.r[1]);
		test_rq_init(&e.r[1].rq, 0, SCHED_OP_READ, 0, 1 * MB + 64 * KB, 64 * KB);
		e.r[1].rq.prio_class = SCHED_IOPRIO_CLASS_RT; /* another I/O priority */
		blk_submit(e.q, &e.r[1], 1000, &e.h);
		assert_int_equal(e.r[1].state, c[k].merged ? BLK_RQ_MERGED : BLK_RQ_QUEUED);
		assert_int_equal(merges(&e, BLK_MERGE_BACK), c[k].merged ? 1 : 0);
		drain(&e);
		assert_done_once(&e, 2);
		env_free(&e);
	}
}

/*
 * blkcgs and the block core's era: 4.x's blk_rq_merge_ok() did not compare them (the elevator's
 * allow_merge did, through its queues), 6.12's does (blk_cgroup_mergeable()): deadline merges
 * across groups at 4.19 only. CFQ before 4.2 kept the async queues in cfq_data, one for every
 * group (cfqd->async_cfqq; moved to cfq_group in 4.2), so an async write of one group joins
 * another's there (the oracle's cfq_3_16 campaign with merging).
 */
static void test_limit_blkcg_era(void **state)
{
	static const struct {
		enum sched_policy_id pol;
		const char *tunable, *version;
		enum sched_op op;
		bool merged;
	} c[] = {
	    {SCHED_POLICY_DEADLINE, "deadline_version", "6.12", SCHED_OP_READ, false},
	    {SCHED_POLICY_DEADLINE, "deadline_version", "4.19", SCHED_OP_READ, true},
	    {SCHED_POLICY_CFQ, "cfq_version", "3.16", SCHED_OP_WRITE, true},
	    {SCHED_POLICY_CFQ, "cfq_version", "4.19", SCHED_OP_WRITE, false},
	};

	(void)state;
	for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		struct env e;

		env_init_t(&e, c[k].pol, NULL, c[k].tunable, c[k].version, 0);
		submit(&e, 0, 0, c[k].op, 0, 1 * MB, 64 * KB);
		/* Owner 1, of another blkcg, has its queues (CFQ: its cic) from a first request. */
		for (int i = 1; i <= 2; i++) {
			blk_rq_init(&e.r[i]);
			test_rq_init(&e.r[i].rq, 1, c[k].op, 0, i == 1 ? 20 * MB : 1 * MB + 64 * KB,
				     64 * KB);
			e.r[i].rq.group = 1;
			blk_submit(e.q, &e.r[i], 1000, &e.h);
		}
		assert_int_equal(e.r[2].state, c[k].merged ? BLK_RQ_MERGED : BLK_RQ_QUEUED);
		assert_int_equal(merges(&e, BLK_MERGE_BACK), c[k].merged ? 1 : 0);
		drain(&e);
		assert_done_once(&e, 3);
		env_free(&e);
	}
}

/*
 * The legacy elevator's dispatch list (CFQ until 3.x, cfq_sw_same_sector off: elv_rb_add()'s
 * alias goes there at once): elv_dispatch_sort() takes a request off the merge hash and the
 * one-hit cache as it leaves the elevator, before the driver fetches it. The hash lookup goes on
 * to the next request ending there (the oracle's cfq_2_6_36 campaign with merging); with
 * nomerges 1 the one-hit cache is the next request inserted (cfq_2_6_32's).
 */
static void test_dispatch_list_leaves_cache(void **state)
{
	struct blk_params bp;
	struct env e;

	(void)state;
	env_init_t(&e, SCHED_POLICY_CFQ, NULL, "cfq_sw_same_sector", "0", 0);
	submit(&e, 0, 0, SCHED_OP_READ, 0, 1 * MB + 32 * KB, 32 * KB); /* ends at 1 MB + 64 KB */
	submit(&e, 1, 0, SCHED_OP_READ, 0, 1 * MB, 64 * KB);	       /* there too */
	submit(&e, 2, 0, SCHED_OP_READ, 0, 50 * MB, 4 * KB);
	submit(&e, 3, 0, SCHED_OP_READ, 0, 50 * MB + 4 * KB, 4 * KB); /* the cache is 2 */
	assert_int_equal(e.r[3].state, BLK_RQ_MERGED);
	submit(&e, 4, 0, SCHED_OP_READ, 0, 1 * MB, 16 * KB); /* 1's alias: 1 to the dispatch list */
	assert_int_equal(e.r[4].state, BLK_RQ_QUEUED);
	assert_false(sched_rq_queued(&e.r[1].rq));
	submit(&e, 5, 0, SCHED_OP_READ, 0, 1 * MB + 64 * KB, 64 * KB); /* the hash: 0, not 1 */
	assert_int_equal(e.r[5].state, BLK_RQ_MERGED);
	assert_ptr_equal(e.r[5].head, &e.r[0]);
	drain(&e);
	assert_done_once(&e, 6);
	env_free(&e);

	blk_params_defaults(&bp);
	bp.nomerges = 1;
	env_init_t(&e, SCHED_POLICY_CFQ, &bp, "cfq_sw_same_sector", "0", 0);
	submit(&e, 0, 0, SCHED_OP_READ, 0, 1 * MB, 64 * KB); /* the cache */
	submit(&e, 1, 0, SCHED_OP_READ, 0, 1 * MB, 16 * KB); /* 0's alias: 0 and the cache go */
	submit(&e, 2, 0, SCHED_OP_READ, 0, 5 * MB, 4 * KB);  /* the cache */
	submit(&e, 3, 0, SCHED_OP_READ, 0, 5 * MB + 4 * KB, 4 * KB);
	assert_int_equal(e.r[3].state, BLK_RQ_MERGED);
	assert_ptr_equal(e.r[3].head, &e.r[2]);
	drain(&e);
	assert_done_once(&e, 4);
	env_free(&e);
}

/*
 * CFQ 2.6.32's cfq_merged_requests() leaves the queue's next request to cfq_remove_request():
 * when next (merged away) was it, cfq_find_next_rq() chooses among next's neighbours in the sort
 * tree; 2.6.36's gives rq (which next joined) the place first (the oracle's cfq_2_6_32
 * campaign with merging). Request 2 is next_rq (the head is at its start); 4 joins 1, then 2
 * joins 1; then 2.6.32 serves 3 (ahead) before 1 (behind, the back seek penalty), 2.6.36 1.
 */
static void test_cfq_2632_merged_next_rq(void **state)
{
	static const struct {
		const char *version;
		int first, then;
	} c[] = {{"2.6.32", 3, 1}, {"2.6.36", 1, 3}};

	(void)state;
	for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		struct env e;

		env_init_t(&e, SCHED_POLICY_CFQ, NULL, "cfq_version", c[k].version, 0);
		submit(&e, 0, 0, SCHED_OP_READ, 0, 1 * MB + 64 * KB, 64 * KB);
		blk_run(e.q, 1000, &e.h); /* in the device: the head at 1 MB + 128 KB */
		submit(&e, 1, 0, SCHED_OP_READ, 0, 1 * MB, 64 * KB);
		submit(&e, 2, 0, SCHED_OP_READ, 0, 1 * MB + 128 * KB, 64 * KB);
		submit(&e, 3, 0, SCHED_OP_READ, 0, 1 * MB + 256 * KB, 64 * KB);
		submit(&e, 4, 0, SCHED_OP_READ, 0, 1 * MB + 64 * KB, 64 * KB);
		assert_int_equal(e.r[4].state, BLK_RQ_MERGED);
		assert_ptr_equal(e.r[4].head, &e.r[1]);
		assert_int_equal(e.r[2].merged, BLK_MERGE_REQUEST);
		assert_ptr_equal(e.r[2].head, &e.r[1]);
		drain(&e);
		assert_done_once(&e, 5);
		assert_true(e.done_seq[c[k].first] < e.done_seq[c[k].then]);
		env_free(&e);
	}
}

/* nomerges 1: the one-hit cache only; 2: nothing. */
static void test_nomerges(void **state)
{
	for (uint32_t nm = 0; nm <= 2; nm++) {
		struct blk_params bp;
		struct env e;

		(void)state;
		blk_params_defaults(&bp);
		bp.nomerges = nm;
		env_init(&e, SCHED_POLICY_DEADLINE, &bp);
		assert_int_equal(e.q->nomerges, nm);
		submit(&e, 0, 0, SCHED_OP_READ, 0, 1 * MB, 64 * KB); /* last_merge */
		submit(&e, 1, 0, SCHED_OP_READ, 0, 8 * MB, 64 * KB);
		submit(&e, 2, 0, SCHED_OP_READ, 0, 8 * MB + 64 * KB, 64 * KB); /* the hash */
		submit(&e, 3, 0, SCHED_OP_READ, 0, 1 * MB + 64 * KB, 64 * KB); /* the cache */
		assert_int_equal(e.r[2].state, nm == 0 ? BLK_RQ_MERGED : BLK_RQ_QUEUED);
		assert_int_equal(e.r[3].state, nm <= 1 ? BLK_RQ_MERGED : BLK_RQ_QUEUED);
		drain(&e);
		assert_done_once(&e, 4);
		env_free(&e);
	}
}

/* Refused with a one-line message. */
static void test_nomerges_bad(void **state)
{
	struct sched_config cfg;
	struct blk_params bp;
	struct devmodel_params mp = devmodel_params_defaults(DEVMODEL_HDD);
	char err[256] = "";
	void *mem;
	size_t sz;

	(void)state;
	sched_config_defaults(&cfg, SCHED_POLICY_DEADLINE);
	cfg.hw_queue_depth = 1;
	blk_params_defaults(&bp);
	bp.model = &mp;
	bp.nomerges = 3;
	sz = blk_size(&cfg, &bp);
	mem = aligned_alloc(64, (sz + 63) & ~(size_t)63);
	assert_null(blk_init(mem, sz, &cfg, &bp, 0, err, sizeof(err)));
	assert_non_null(strstr(err, "nomerges=3"));
	assert_null(strchr(err, '\n'));
	free(mem);
}

/* Without a device model (the caller is the device) nothing is merged. */
static void test_no_model_no_merge(void **state)
{
	struct sched_config cfg;
	struct blk_params bp;
	struct blk_host h = {0};
	struct blk_rq a, b;
	char err[256] = "";
	struct blk_queue *q;
	void *mem;
	size_t sz;

	(void)state;
	sched_config_defaults(&cfg, SCHED_POLICY_DEADLINE);
	cfg.hw_queue_depth = 1;
	blk_params_defaults(&bp);
	bp.nomerges = 0; /* asked for, but forced off */
	sz = blk_size(&cfg, &bp);
	mem = aligned_alloc(64, (sz + 63) & ~(size_t)63);
	q = blk_init(mem, sz, &cfg, &bp, 0, err, sizeof(err));
	assert_non_null(q);
	assert_int_equal(q->nomerges, BLK_NOMERGES_MAX);
	blk_rq_init(&a);
	test_rq_init(&a.rq, 0, SCHED_OP_READ, 0, 0, 4096);
	blk_submit(q, &a, 0, &h);
	blk_rq_init(&b);
	test_rq_init(&b.rq, 0, SCHED_OP_READ, 0, 4096, 4096);
	blk_submit(q, &b, 0, &h);
	assert_int_equal(b.state, BLK_RQ_QUEUED);
	free(mem);
}

/* CFQ and BFQ: a bio joins only a request of its own queue, and a sync bio never an async
 * request. BFQ runs over blk-mq, whose elevator then tries the request it allocated as an
 * insert merge (bfq_insert_request()), which asks no allow_merge: there the other process's
 * request and the sync one join after all (the oracle's bfq_6_12 stream 1 of seed 20261207
 * with --nomerges 0: its buffered writers' contiguous requests). */
static void own_queue(enum sched_policy_id pol)
{
	bool mq = pol == SCHED_POLICY_BFQ;
	struct env e;

	env_init(&e, pol, NULL);
	submit(&e, 0, 0, SCHED_OP_READ, 0, 1 * MB, 64 * KB);
	submit(&e, 1, 1, SCHED_OP_READ, 0, 1 * MB + 64 * KB, 64 * KB); /* another process */
	assert_int_equal(e.r[1].state == BLK_RQ_MERGED, mq);
	if (mq) {
		assert_int_equal(e.r[1].merged, BLK_MERGE_REQUEST);
		assert_ptr_equal(e.r[1].head, &e.r[0]);
	}
	submit(&e, 2, 0, SCHED_OP_READ, 0, 8 * MB, 64 * KB);
	submit(&e, 3, 0, SCHED_OP_READ, 0, 8 * MB + 64 * KB, 64 * KB); /* its own: merged */
	assert_int_equal(e.r[3].state, BLK_RQ_MERGED);
	submit(&e, 7, 0, SCHED_OP_READ, 0, 8 * MB - 64 * KB, 64 * KB); /* front */
	assert_int_equal(e.r[7].state, BLK_RQ_MERGED);
	assert_ptr_equal(e.r[7].head, &e.r[2]);
	assert_int_equal(e.r[2].rq.offset, 8 * MB - 64 * KB);
	if (pol == SCHED_POLICY_BFQ)
		assert_true(bfq_wf2q_check(e.q->s->policy));
	submit(&e, 4, 0, SCHED_OP_WRITE, 0, 16 * MB, 64 * KB);			     /* async */
	submit(&e, 5, 0, SCHED_OP_WRITE, SCHED_RQ_SYNC, 16 * MB + 64 * KB, 64 * KB); /* sync */
	assert_int_equal(e.r[5].state == BLK_RQ_MERGED, mq);
	/* async: CFQ's request 5 is of the sync queue; BFQ's 4 has 5 and is of its own queue */
	submit(&e, 6, 0, SCHED_OP_WRITE, 0, 16 * MB + 128 * KB, 64 * KB);
	assert_int_equal(e.r[6].state == BLK_RQ_MERGED, mq);
	if (mq)
		assert_ptr_equal(e.r[6].head, &e.r[4]);
	drain(&e);
	assert_done_once(&e, 8);
	assert_int_equal(e.q->s->stats.dispatched, mq ? 3 : 6);
	env_free(&e);
}

static void test_cfq_own_queue(void **state)
{
	(void)state;
	own_queue(SCHED_POLICY_CFQ);
}

static void test_bfq_own_queue(void **state)
{
	(void)state;
	own_queue(SCHED_POLICY_BFQ);
}

/* CFQ and BFQ: a request merged away leaves its queue (its request slot or tag freed); the
 * requests of the queue still complete and nothing is left queued or allocated. */
static void request_merge_in_queue(enum sched_policy_id pol)
{
	struct env e;

	env_init(&e, pol, NULL);
	submit(&e, 0, 0, SCHED_OP_READ, 0, 1 * MB, 64 * KB);
	submit(&e, 1, 0, SCHED_OP_READ, 0, 1 * MB + 128 * KB, 64 * KB);
	submit(&e, 2, 0, SCHED_OP_READ, 0, 1 * MB + 64 * KB, 64 * KB);
	assert_int_equal(merges(&e, BLK_MERGE_BACK), 1);
	assert_int_equal(merges(&e, BLK_MERGE_REQUEST), 1);
	assert_int_equal(sched_queued(e.q->s), 1);
	assert_int_equal(e.q->s->stats.rq_merged, 1);
	if (pol == SCHED_POLICY_BFQ)
		assert_true(bfq_wf2q_check(e.q->s->policy));
	drain(&e);
	if (pol == SCHED_POLICY_BFQ)
		assert_true(bfq_wf2q_check(e.q->s->policy));
	assert_done_once(&e, 3);
	assert_int_equal(e.q->s->stats.dispatched, 1);
	assert_int_equal(blk_allocated(e.q, 0) + blk_allocated(e.q, 1), 0);
	env_free(&e);
}

static void test_bfq_request_merge(void **state)
{
	(void)state;
	request_merge_in_queue(SCHED_POLICY_BFQ);
}

/* CFQ: a request merged away leaves its queue's count; the queue, left empty, is freed once
 * its requests complete (nothing leaks: every queue's requests reach zero). */
static void test_cfq_request_merge(void **state)
{
	struct env e;

	(void)state;
	request_merge_in_queue(SCHED_POLICY_CFQ);
	env_init(&e, SCHED_POLICY_CFQ, NULL);
	submit(&e, 0, 0, SCHED_OP_READ, 0, 1 * MB, 64 * KB);
	submit(&e, 1, 0, SCHED_OP_READ, 0, 1 * MB + 128 * KB, 64 * KB);
	submit(&e, 2, 0, SCHED_OP_READ, 0, 1 * MB + 64 * KB, 64 * KB);
	assert_int_equal(merges(&e, BLK_MERGE_REQUEST), 1);
	assert_int_equal(sched_queued(e.q->s), 1);
	assert_int_equal(e.q->allocated[1], 1);
	drain(&e);
	assert_done_once(&e, 3);
	assert_int_equal(e.q->allocated[1], 0);
	env_free(&e);
}

/* The bios a sleeping process queued behind its waiter are submitted when it wakes: the waiter
 * takes the freed tag, the next bio joins a queued request. */
static void test_merge_at_admission(void **state)
{
	struct env e;

	(void)state;
	env_init_t(&e, SCHED_POLICY_DEADLINE, NULL, NULL, NULL, 4);
	submit(&e, 0, 0, SCHED_OP_WRITE, 0, 100 * MB, 4 * KB);
	blk_run(e.q, 1000, &e.h); /* in the device */
	submit(&e, 1, 1, SCHED_OP_WRITE, 0, 1 * MB, 64 * KB);
	submit(&e, 2, 1, SCHED_OP_WRITE, 0, 20 * MB, 64 * KB);
	submit(&e, 3, 1, SCHED_OP_WRITE, 0, 30 * MB, 64 * KB); /* the 4 tags taken */
	assert_int_equal(submit(&e, 4, 2, SCHED_OP_WRITE, 0, 50 * MB, 64 * KB), 0); /* waits */
	assert_int_equal(submit(&e, 5, 2, SCHED_OP_WRITE, 0, 1 * MB + 64 * KB, 64 * KB), 0);
	/* 0 completes: 4 takes its tag, 5 joins 1, which is still queued. */
	blk_advance(e.q, blk_next_event(e.q), &e.h);
	assert_int_equal(e.r[4].state, BLK_RQ_QUEUED);
	assert_int_equal(e.r[5].state, BLK_RQ_MERGED);
	assert_ptr_equal(e.r[5].head, &e.r[1]);
	drain(&e);
	assert_done_once(&e, 6);
	assert_int_equal(merges(&e, BLK_MERGE_BACK), 1);
	assert_ptr_equal(e.r[5].head, &e.r[5]); /* restored at completion */
	env_free(&e);
}

/*
 * blk_mq_submit_bio() tries the bio merge before blk_mq_get_new_requests(): a bio that slept in
 * blk_mq_get_tag() does not try it again when woken, though a queued request grew to its end
 * meanwhile; its request goes into the elevator (an insert merge would take only a request
 * ending where it starts). The bio its process queued behind it is submitted after the wake,
 * bio merge first.
 */
static void test_wake_no_bio_merge(void **state)
{
	const uint64_t x = 8 * MB;
	struct env e;

	(void)state;
	env_init_t(&e, SCHED_POLICY_DEADLINE, NULL, NULL, NULL, 4);
	submit(&e, 0, 0, SCHED_OP_WRITE, 0, 100 * MB, 4 * KB);
	blk_run(e.q, 1000, &e.h);			 /* in the device */
	submit(&e, 1, 1, SCHED_OP_WRITE, 0, x, 64 * KB); /* A: the one-hit cache */
	submit(&e, 2, 1, SCHED_OP_WRITE, 0, 50 * MB, 64 * KB);
	submit(&e, 3, 1, SCHED_OP_WRITE, 0, 60 * MB, 64 * KB); /* the 4 tags taken */
	/* B ends 64 KiB before A: no merge, it sleeps; its process's next bio waits behind it. */
	assert_int_equal(submit(&e, 4, 2, SCHED_OP_WRITE, 0, x - 128 * KB, 64 * KB), 0);
	assert_true(e.r[4].merge_tried);
	assert_int_equal(submit(&e, 5, 2, SCHED_OP_WRITE, 0, x + 64 * KB, 64 * KB), 0);
	assert_false(e.r[5].merge_tried);
	/* Another process's bio front-merges into A, which now starts where B ends. */
	assert_int_equal(submit(&e, 6, 3, SCHED_OP_WRITE, 0, x - 64 * KB, 64 * KB), 1);
	assert_int_equal(e.r[6].merged, BLK_MERGE_FRONT);
	/* 0 completes: B takes its tag (no front merge into A), then 5 back-merges into A. */
	blk_advance(e.q, blk_next_event(e.q), &e.h);
	assert_int_equal(e.r[4].state, BLK_RQ_QUEUED);
	assert_ptr_equal(e.r[4].head, &e.r[4]);
	assert_int_equal(e.r[5].state, BLK_RQ_MERGED);
	assert_int_equal(e.r[5].merged, BLK_MERGE_BACK);
	assert_ptr_equal(e.r[5].head, &e.r[1]);
	assert_int_equal(merges(&e, BLK_MERGE_FRONT), 1);
	assert_int_equal(merges(&e, BLK_MERGE_BACK), 1);
	assert_int_equal(merges(&e, BLK_MERGE_REQUEST), 0);
	drain(&e);
	assert_done_once(&e, 7);
	env_free(&e);
}

/*
 * A woken waiter's request is insert-merged (dd_insert_request(): blk_mq_sched_try_insert_merge())
 * and elv_attempt_insert_merge()'s hash loop goes on with the grown request: Z <- A <- B, B
 * having slept while A did not reach it yet, Z a request of its own before A (front_merges 0,
 * and the one-hit cache elsewhere).
 */
static void test_insert_merge_chain(void **state)
{
	const uint64_t x = 8 * MB;
	struct env e;

	(void)state;
	env_init_t(&e, SCHED_POLICY_DEADLINE, NULL, "front_merges", "0", 4);
	submit(&e, 0, 0, SCHED_OP_WRITE, 0, 100 * MB, 4 * KB);
	blk_run(e.q, 1000, &e.h);
	submit(&e, 1, 2, SCHED_OP_WRITE, 0, 300 * MB, 4 * KB);	   /* Y: the one-hit cache */
	submit(&e, 2, 1, SCHED_OP_WRITE, 0, x, 32 * KB);	   /* A */
	submit(&e, 3, 1, SCHED_OP_WRITE, 0, x - 64 * KB, 64 * KB); /* Z: no front merge */
	assert_int_equal(e.r[3].state, BLK_RQ_QUEUED);
	assert_int_equal(submit(&e, 4, 3, SCHED_OP_WRITE, 0, x + 64 * KB, 64 * KB), 0); /* B */
	submit(&e, 5, 0, SCHED_OP_WRITE, 0, x + 32 * KB, 32 * KB); /* A reaches B */
	assert_ptr_equal(e.r[5].head, &e.r[2]);
	submit(&e, 6, 0, SCHED_OP_WRITE, 0, 300 * MB + 4 * KB, 4 * KB); /* the cache back on Y */
	assert_ptr_equal(e.q->last_merge, &e.r[1]);
	blk_advance(e.q, blk_next_event(e.q), &e.h);
	/* B into A (the hash), then A into Z (the hash again, at A's start). */
	assert_int_equal(e.r[4].state, BLK_RQ_MERGED);
	assert_int_equal(e.r[2].state, BLK_RQ_MERGED);
	assert_ptr_equal(e.r[4].head, &e.r[3]);
	assert_int_equal(e.r[3].rq.offset, x - 64 * KB);
	assert_int_equal(e.r[3].rq.length, 192 * KB);
	assert_int_equal(merges(&e, BLK_MERGE_REQUEST), 2);
	assert_int_equal(sched_queued(e.q->s), 2); /* Y and Z */
	drain(&e);
	assert_done_once(&e, 7);
	env_free(&e);
}

/* blk_attempt_plug_merge(): a plugged batch of contiguous bios is one request when the plug is
 * flushed, with none too (no elevator: the plug is its only merge). */
static void plug_batch(enum sched_policy_id pol)
{
	struct env e;

	env_init(&e, pol, NULL);
	blk_plug_start(e.q, 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(
		    submit(&e, i, 0, SCHED_OP_WRITE, 0, 1 * MB + (uint64_t)i * 4 * KB, 4 * KB), 1);
	assert_int_equal(e.r[0].state, BLK_RQ_PLUGGED);
	assert_int_equal(merges(&e, BLK_MERGE_PLUG), 3);
	assert_int_equal(sched_queued(e.q->s), 0); /* nothing in the elevator yet */
	assert_int_equal(e.r[0].rq.length, 16 * KB);
	blk_plug_finish(e.q, 0, 1000, &e.h);
	assert_int_equal(e.r[0].state, BLK_RQ_QUEUED);
	assert_int_equal(sched_queued(e.q->s), 1);
	assert_int_equal(e.q->st.plug_flushes, 1);
	drain(&e);
	assert_done_once(&e, 4);
	assert_int_equal(e.q->s->stats.dispatched, 1);
	assert_int_equal(e.q->s->stats.bio_merged, 3);
	env_free(&e);
}

static void test_plug_merge_none(void **state)
{
	(void)state;
	plug_batch(SCHED_POLICY_NONE);
}

static void test_plug_merge_deadline(void **state)
{
	(void)state;
	plug_batch(SCHED_POLICY_DEADLINE);
}

static void test_plug_merge_cfq(void **state)
{
	(void)state;
	plug_batch(SCHED_POLICY_CFQ);
}

/* blk-mq tries the plug's last request only; the legacy layer (CFQ) any, newest first. */
static void test_plug_last_only(void **state)
{
	for (int legacy = 0; legacy <= 1; legacy++) {
		struct env e;

		(void)state;
		env_init(&e, legacy ? SCHED_POLICY_CFQ : SCHED_POLICY_NONE, NULL);
		blk_plug_start(e.q, 0);
		submit(&e, 0, 0, SCHED_OP_READ, 0, 1 * MB, 4 * KB);
		submit(&e, 1, 0, SCHED_OP_READ, 0, 8 * MB, 4 * KB);
		submit(&e, 2, 0, SCHED_OP_READ, 0, 1 * MB + 4 * KB, 4 * KB); /* behind 0 */
		assert_int_equal(e.r[2].state, legacy ? BLK_RQ_MERGED : BLK_RQ_PLUGGED);
		blk_plug_finish(e.q, 0, 1000, &e.h);
		drain(&e);
		assert_done_once(&e, 3);
		env_free(&e);
	}
}

/* The plug's limits: a request of 128 KiB last in it, or BLK_PLUG_MAX_RQ_* requests, flush it
 * before the next joins; a submitter that must wait for a tag flushes it too. */
static void test_plug_limits(void **state)
{
	struct env e;

	(void)state;
	env_init(&e, SCHED_POLICY_NONE, NULL);
	blk_plug_start(e.q, 0);
	submit(&e, 0, 0, SCHED_OP_READ, 0, 1 * MB, 128 * KB);
	submit(&e, 1, 0, SCHED_OP_READ, 0, 8 * MB, 4 * KB);
	assert_int_equal(e.q->st.plug_limit_flushes, 1);
	assert_int_equal(e.r[0].state, BLK_RQ_QUEUED);
	assert_int_equal(e.r[1].state, BLK_RQ_PLUGGED);
	blk_plug_finish(e.q, 0, 1000, &e.h);
	drain(&e);
	assert_done_once(&e, 2);
	env_free(&e);

	env_init(&e, SCHED_POLICY_NONE, NULL);
	blk_plug_start(e.q, 0);
	for (int i = 0; i < NR; i++)
		submit(&e, i, 0, SCHED_OP_READ, 0, (uint64_t)i * MB, 4 * KB);
	assert_int_equal(e.q->st.plug_limit_flushes, 0); /* 16 < 32 (blk-mq) */
	blk_plug_finish(e.q, 0, 1000, &e.h);
	drain(&e);
	env_free(&e);

	env_init(&e, SCHED_POLICY_CFQ, NULL); /* the legacy plug holds 16 */
	blk_plug_start(e.q, 0);
	for (int i = 0; i < NR; i++)
		submit(&e, i, 0, SCHED_OP_READ, 0, (uint64_t)i * MB, 4 * KB);
	assert_int_equal(e.q->st.plug_limit_flushes, 0);
	assert_int_equal(e.q->ioc[0].plug_count, 16);
	blk_plug_finish(e.q, 0, 1000, &e.h);
	assert_int_equal(e.q->ioc[0].plug_count, 0);
	drain(&e);
	assert_done_once(&e, NR);
	env_free(&e);

	env_init_t(&e, SCHED_POLICY_NONE, NULL, NULL, NULL, 4);
	blk_plug_start(e.q, 0);
	for (int i = 0; i < 4; i++)
		submit(&e, i, 0, SCHED_OP_READ, 0, (uint64_t)i * MB, 4 * KB);
	assert_int_equal(sched_queued(e.q->s), 0);
	assert_int_equal(submit(&e, 4, 0, SCHED_OP_READ, 0, 9 * MB, 4 * KB), 0); /* no tag */
	assert_int_equal(sched_queued(e.q->s), 4); /* flushed before it sleeps */
	blk_plug_finish(e.q, 0, 1000, &e.h);
	drain(&e);
	assert_done_once(&e, 5);
	env_free(&e);
}

/*
 * A plugged submitter that sleeps for a tag (its plug flushed as it sleeps: sched_submit_work())
 * is woken inside its system call, which still holds the plug: the request it allocates goes on
 * it, the bios it had queued behind merge there (blk_attempt_plug_merge()), and the plug is
 * flushed when its queued submissions are all in (blk_finish_plug()), or when one of them has
 * to sleep again. Without the plug the followers would back-merge in the elevator.
 */
static void test_plug_woken_sleeper(void **state)
{
	struct env e;
	uint64_t t;

	(void)state;
	for (int again = 0; again <= 1; again++) {
		env_init_t(&e, SCHED_POLICY_DEADLINE, NULL, NULL, NULL, 4);
		for (int i = 0; i < 4; i++) /* another submitter takes every tag */
			assert_int_equal(
			    submit(&e, i, 1, SCHED_OP_READ, 0, (uint64_t)(i + 1) * 64 * MB, 4 * KB),
			    1);
		blk_plug_start(e.q, 0);
		assert_int_equal(submit(&e, 4, 0, SCHED_OP_READ, 0, 1 * MB, 4 * KB), 0);
		assert_int_equal(submit(&e, 5, 0, SCHED_OP_READ, 0, 1 * MB + 4 * KB, 4 * KB), 0);
		/* again: a bio that needs a tag of its own, which only one completion frees */
		assert_int_equal(
		    submit(&e, 6, 0, SCHED_OP_READ, 0, again ? 32 * MB : 1 * MB + 8 * KB, 4 * KB),
		    0);
		blk_plug_finish(e.q, 0, 1000, &e.h);
		assert_true(e.q->ioc[0].plug_asleep);
		assert_int_equal(e.q->st.plug_flushes, 0); /* nothing was on it */
		/* One completion frees one tag. */
		blk_run(e.q, 1000, &e.h);
		t = blk_next_event(e.q);
		blk_advance(e.q, t, &e.h);
		assert_int_equal(merges(&e, BLK_MERGE_PLUG), again ? 1 : 2);
		assert_int_equal(merges(&e, BLK_MERGE_BACK), 0);
		assert_int_equal(e.q->st.plug_flushes, 1);
		assert_int_equal(e.r[4].state, BLK_RQ_QUEUED); /* flushed */
		assert_int_equal(e.r[4].rq.length, again ? 8 * KB : 12 * KB);
		assert_int_equal(e.r[6].state, again ? BLK_RQ_WAITING : BLK_RQ_MERGED);
		assert_int_equal(e.q->ioc[0].plug_asleep, again);
		drain(&e);
		assert_done_once(&e, 7);
		assert_false(e.q->ioc[0].plug_asleep);
		env_free(&e);
	}
}

/* elv_attempt_insert_merge(): a plugged request whose neighbour entered the elevator meanwhile
 * joins it when the plug is flushed, and its tag is freed. */
static void test_insert_merge(void **state)
{
	struct env e;

	(void)state;
	env_init(&e, SCHED_POLICY_DEADLINE, NULL);
	blk_plug_start(e.q, 0);
	submit(&e, 0, 0, SCHED_OP_WRITE, 0, 2 * MB, 64 * KB);
	assert_int_equal(e.r[0].state, BLK_RQ_PLUGGED);
	submit(&e, 1, 1, SCHED_OP_WRITE, 0, 2 * MB - 64 * KB, 64 * KB); /* another submitter */
	assert_int_equal(e.r[1].state, BLK_RQ_QUEUED);
	assert_int_equal(blk_allocated(e.q, 0), 2);
	blk_plug_finish(e.q, 0, 1000, &e.h);
	assert_int_equal(e.r[0].state, BLK_RQ_MERGED);
	assert_ptr_equal(e.r[0].head, &e.r[1]);
	assert_int_equal(merges(&e, BLK_MERGE_REQUEST), 1);
	assert_int_equal(blk_allocated(e.q, 0), 1);
	assert_int_equal(e.q->s->stats.inserted, 1);
	assert_int_equal(e.q->s->stats.bio_merged, 1); /* never inserted: counted as a bio */
	drain(&e);
	assert_done_once(&e, 2);
	assert_int_equal(e.q->s->stats.dispatched, 1);
	env_free(&e);
}

/*
 * The insert merge through the hash goes on with the request merged into
 * (elv_attempt_insert_merge()'s loop): 3 (from the plug) joins 1, then 1 joins 2, which ends where
 * 1 starts (deadline without front merges left 2 and 1 apart); the one-hit cache is elsewhere (0).
 */
static void test_insert_merge_again(void **state)
{
	struct env e;

	(void)state;
	env_init_t(&e, SCHED_POLICY_DEADLINE, NULL, "front_merges", "0", 0);
	blk_plug_start(e.q, 0);
	submit(&e, 3, 0, SCHED_OP_WRITE, 0, 1 * MB + 64 * KB, 64 * KB);
	assert_int_equal(e.r[3].state, BLK_RQ_PLUGGED);
	submit(&e, 0, 1, SCHED_OP_WRITE, 0, 50 * MB, 4 * KB); /* the cache */
	submit(&e, 1, 1, SCHED_OP_WRITE, 0, 1 * MB, 64 * KB);
	submit(&e, 2, 1, SCHED_OP_WRITE, 0, 1 * MB - 64 * KB, 64 * KB); /* no front merge */
	assert_int_equal(e.r[2].state, BLK_RQ_QUEUED);
	blk_plug_finish(e.q, 0, 1000, &e.h);
	assert_int_equal(e.r[3].state, BLK_RQ_MERGED);
	assert_ptr_equal(e.r[3].head, &e.r[2]);
	assert_int_equal(e.r[1].state, BLK_RQ_MERGED);
	assert_ptr_equal(e.r[1].head, &e.r[2]);
	assert_int_equal(merges(&e, BLK_MERGE_REQUEST), 2);
	assert_int_equal(sched_queued(e.q->s), 2);
	drain(&e);
	assert_done_once(&e, 4);
	assert_int_equal(e.q->s->stats.dispatched, 2);
	env_free(&e);
}

/*
 * With merging off the plug still holds its requests (blk_queue_bio() and blk_mq_submit_bio()
 * add to it whatever nomerges says) and nothing merges in it or at its flush. 6.x flushes it
 * behind a request of BLK_PLUG_FLUSH_SIZE only while merging (blk_add_rq_to_plug()), 4.19's
 * legacy layer always (at their request count both, as test_plug_limits has it).
 */
static void test_plug_off(void **state)
{
	struct blk_params bp;
	struct env e;

	(void)state;
	blk_params_defaults(&bp);
	assert_int_equal(bp.nomerges, 0); /* the kernel's default */
	bp.nomerges = BLK_NOMERGES_MAX;
	for (int legacy = 0; legacy <= 1; legacy++) {
		env_init(&e, legacy ? SCHED_POLICY_CFQ : SCHED_POLICY_DEADLINE, &bp);
		blk_plug_start(e.q, 0);
		submit(&e, 0, 0, SCHED_OP_READ, 0, 1 * MB, 4 * KB);
		submit(&e, 1, 0, SCHED_OP_READ, 0, 1 * MB + 4 * KB, 4 * KB);
		assert_int_equal(e.r[0].state, BLK_RQ_PLUGGED);
		assert_int_equal(e.r[1].state, BLK_RQ_PLUGGED);
		assert_int_equal(sched_queued(e.q->s), 0);
		submit(&e, 2, 0, SCHED_OP_READ, 0, 8 * MB, 128 * KB);
		submit(&e, 3, 0, SCHED_OP_READ, 0, 16 * MB, 4 * KB);
		assert_int_equal(e.q->st.plug_limit_flushes, legacy ? 1 : 0);
		assert_int_equal(e.r[2].state, legacy ? BLK_RQ_QUEUED : BLK_RQ_PLUGGED);
		assert_int_equal(e.r[3].state, BLK_RQ_PLUGGED);
		blk_plug_finish(e.q, 0, 1000, &e.h);
		assert_int_equal(e.q->st.plug_flushes, legacy ? 2 : 1);
		assert_int_equal(sched_queued(e.q->s), 4);
		drain(&e);
		assert_done_once(&e, 4);
		assert_int_equal(e.q->s->stats.dispatched, 4);
		for (int k = 0; k < BLK_MERGE_NR; k++)
			assert_int_equal(merges(&e, k), 0);
		env_free(&e);
	}
}

/* ---- kyber: blk_bio_list_merge() into the kcq ---------------------------------------------- */

static uint32_t kyber_in_kcq(const struct env *e, enum kyber_domain d)
{
	struct kyber_domain_state st;

	assert_true(kyber_domain_state(e->q->s, d, &st));
	return st.in_kcq;
}

/* kyber_bio_merge(): a bio joins a request still in the kcq, behind it or in front of it, past a
 * newer request it is not adjacent to; with nomerges 1 too (blk_bio_list_merge() ignores
 * QUEUE_FLAG_NOXMERGES), never with 2. Nothing is hashed nor cached (q->last_merge). */
static void test_kyber_kcq_merge(void **state)
{
	for (uint32_t nm = 0; nm <= 2; nm++) {
		struct blk_params bp;
		struct env e;

		(void)state;
		blk_params_defaults(&bp);
		bp.nomerges = nm;
		env_init(&e, SCHED_POLICY_KYBER, &bp);
		submit(&e, 0, 0, SCHED_OP_READ, 0, 1 * MB, 64 * KB);
		submit(&e, 1, 1, SCHED_OP_READ, 0, 8 * MB, 64 * KB);
		assert_int_equal(kyber_in_kcq(&e, KYBER_READ), 2);
		assert_int_equal(submit(&e, 2, 2, SCHED_OP_READ, 0, 1 * MB + 64 * KB, 64 * KB), 1);
		assert_int_equal(submit(&e, 3, 2, SCHED_OP_READ, 0, 1 * MB - 32 * KB, 32 * KB), 1);
		if (nm == 2) {
			assert_int_equal(e.r[2].state, BLK_RQ_QUEUED);
			assert_int_equal(e.r[3].state, BLK_RQ_QUEUED);
			assert_int_equal(sched_queued(e.q->s), 4);
		} else {
			assert_int_equal(e.r[2].state, BLK_RQ_MERGED);
			assert_ptr_equal(e.r[2].head, &e.r[0]);
			assert_int_equal(e.r[3].state, BLK_RQ_MERGED);
			assert_ptr_equal(e.r[3].head, &e.r[0]);
			assert_int_equal(merges(&e, BLK_MERGE_BACK), 1);
			assert_int_equal(merges(&e, BLK_MERGE_FRONT), 1);
			assert_int_equal(e.r[0].rq.offset, 1 * MB - 32 * KB);
			assert_int_equal(e.r[0].rq.length, 160 * KB);
			assert_int_equal(sched_queued(e.q->s), 2);
			assert_int_equal(e.q->s->stats.bio_merged, 2);
			assert_int_equal(sched_entity_stats(e.q->s, 2)->bio_merged, 2);
			assert_int_equal(blk_allocated(e.q, 0), 2);
		}
		assert_null(e.q->last_merge);
		drain(&e);
		assert_done_once(&e, 4);
		assert_int_equal(e.q->s->stats.dispatched, nm == 2 ? 4 : 2);
		env_free(&e);
	}
}

/* A request kyber_flush_busy_kcqs() moved to khd->rqs (the first dispatch of the domain with its
 * token flushes the whole kcq) takes no bio; one inserted after the flush does. */
static void test_kyber_flushed(void **state)
{
	struct env e;

	(void)state;
	env_init(&e, SCHED_POLICY_KYBER, NULL);
	submit(&e, 0, 0, SCHED_OP_READ, 0, 1 * MB, 64 * KB);
	submit(&e, 1, 0, SCHED_OP_READ, 0, 8 * MB, 64 * KB);
	submit(&e, 2, 0, SCHED_OP_READ, 0, 16 * MB, 64 * KB);
	blk_run(e.q, 1000, &e.h); /* 0 to the device (depth 1); 1 and 2 flushed with it */
	assert_int_equal(e.q->s->stats.dispatched, 1);
	assert_int_equal(kyber_in_kcq(&e, KYBER_READ), 0);
	assert_int_equal(submit(&e, 3, 1, SCHED_OP_READ, 0, 8 * MB + 64 * KB, 64 * KB), 1);
	assert_int_equal(e.r[3].state, BLK_RQ_QUEUED);
	assert_int_equal(kyber_in_kcq(&e, KYBER_READ), 1);
	assert_int_equal(submit(&e, 4, 1, SCHED_OP_READ, 0, 8 * MB + 128 * KB, 64 * KB), 1);
	assert_int_equal(e.r[4].state, BLK_RQ_MERGED);
	assert_ptr_equal(e.r[4].head, &e.r[3]);
	/* Still in the kcq behind the flushed 1 and 2: 3 goes after them. */
	assert_int_equal(submit(&e, 5, 1, SCHED_OP_READ, 0, 16 * MB + 64 * KB, 64 * KB), 1);
	assert_int_equal(e.r[5].state, BLK_RQ_QUEUED);
	assert_int_equal(merges(&e, BLK_MERGE_BACK), 1);
	drain(&e);
	assert_done_once(&e, 6);
	assert_int_equal(e.q->s->stats.dispatched, 5);
	env_free(&e);
}

/* blk_bio_list_merge() checks the newest 8 requests of the list only. */
static void test_kyber_eight(void **state)
{
	struct env e;

	(void)state;
	env_init(&e, SCHED_POLICY_KYBER, NULL);
	for (int i = 0; i < 9; i++)
		submit(&e, i, 0, SCHED_OP_READ, 0, (uint64_t)(i + 1) * MB, 64 * KB);
	assert_int_equal(kyber_in_kcq(&e, KYBER_READ), 9);
	/* Behind 1, the 8th newest: found. */
	assert_int_equal(submit(&e, 9, 1, SCHED_OP_READ, 0, 2 * MB + 64 * KB, 64 * KB), 1);
	assert_int_equal(e.r[9].state, BLK_RQ_MERGED);
	assert_ptr_equal(e.r[9].head, &e.r[1]);
	/* Behind 0, the 9th: not looked at. */
	assert_int_equal(submit(&e, 10, 1, SCHED_OP_READ, 0, 1 * MB + 64 * KB, 64 * KB), 1);
	assert_int_equal(e.r[10].state, BLK_RQ_QUEUED);
	assert_int_equal(merges(&e, BLK_MERGE_BACK), 1);
	drain(&e);
	assert_done_once(&e, 11);
	assert_int_equal(e.q->s->stats.dispatched, 10);
	env_free(&e);
}

/* BIO_MERGE_FAILED ends the walk: a bio behind a newer request the limits refuse (which flags it
 * REQ_NOMERGE) is not tried in front of an older one it would fit. */
static void test_kyber_failed_stops(void **state)
{
	struct blk_params bp;
	struct env e;

	(void)state;
	blk_params_defaults(&bp);
	bp.nomerges = 0;
	bp.max_sectors_kb = 128;
	env_init(&e, SCHED_POLICY_KYBER, &bp);
	submit(&e, 0, 0, SCHED_OP_WRITE, SCHED_RQ_SYNC, 2 * MB + 192 * KB, 64 * KB); /* older */
	submit(&e, 1, 0, SCHED_OP_WRITE, SCHED_RQ_SYNC, 2 * MB, 128 * KB);	     /* full */
	assert_int_equal(
	    submit(&e, 2, 1, SCHED_OP_WRITE, SCHED_RQ_SYNC, 2 * MB + 128 * KB, 64 * KB), 1);
	assert_int_equal(e.r[2].state, BLK_RQ_QUEUED);
	assert_true(e.r[1].nomerge);
	assert_false(e.r[0].nomerge);
	assert_int_equal(e.r[0].rq.length, 64 * KB);
	assert_int_equal(e.q->st.merge_refused_limit, 1);
	for (int k = 0; k < BLK_MERGE_NR; k++)
		assert_int_equal(merges(&e, (enum blk_merge_kind)k), 0);
	drain(&e);
	assert_done_once(&e, 3);
	env_free(&e);

	/* The same bio with request 1 out of the way (a read: the other domain's list) goes in
	 * front of 0. */
	env_init(&e, SCHED_POLICY_KYBER, &bp);
	submit(&e, 0, 0, SCHED_OP_WRITE, SCHED_RQ_SYNC, 2 * MB + 192 * KB, 64 * KB);
	submit(&e, 1, 0, SCHED_OP_READ, 0, 2 * MB, 128 * KB);
	assert_int_equal(
	    submit(&e, 2, 1, SCHED_OP_WRITE, SCHED_RQ_SYNC, 2 * MB + 128 * KB, 64 * KB), 1);
	assert_int_equal(e.r[2].state, BLK_RQ_MERGED);
	assert_ptr_equal(e.r[2].head, &e.r[0]);
	assert_int_equal(merges(&e, BLK_MERGE_FRONT), 1);
	drain(&e);
	assert_done_once(&e, 3);
	env_free(&e);
}

/*
 * The page cache's writeback and read-ahead submit under their task's plug (wb_writeback(),
 * ext4_do_writepages(), read_pages() hold one): in virtual time, a buffered sequential writer
 * (its pages written back by the flusher) beside a buffered sequential reader (read-ahead),
 * deadline on the hdd model (writer false: the reader alone). With merging each task's batch
 * is flushed from its plug; without it the plug is not held and nothing merges.
 */
static void run_pc_bh(uint32_t nomerges, enum pc_profile prof, bool writer, uint32_t bh,
		      struct vsim_result *r)
{
	struct vsim_config cfg;
	struct vsim_job job[2];
	char err[256] = "";

	vsim_config_defaults(&cfg, SCHED_POLICY_DEADLINE, DEVMODEL_HDD);
	cfg.nomerges = nomerges;
	cfg.pagecache = true;
	pc_params_defaults(&cfg.pc, prof);
	cfg.pc.buffer_head_writeback = bh;
	cfg.runtime_ns = 3000000000ull;
	for (int i = 0; i < 2; i++) {
		vsim_job_defaults(&job[i]);
		job[i].direct = false;
		job[i].bs = 4096;
		job[i].size = 1024 * MB;
		job[i].offset = (uint64_t)i * 1024 * MB;
		job[i].file = (uint32_t)i;
	}
	job[0].rw = VSIM_WRITE;
	job[1].rw = VSIM_READ;
	cfg.jobs = writer ? job : job + 1;
	cfg.nr_jobs = writer ? 2 : 1;
	if (vsim_run(&cfg, r, err, sizeof(err))) {
		print_error("vsim_run: %s\n", err);
		fail();
	}
}

static void run_pc(uint32_t nomerges, enum pc_profile prof, bool writer, struct vsim_result *r)
{
	run_pc_bh(nomerges, prof, writer, 0, r);
}

/*
 * A read() that reaches a window's PG_readahead page before the window is read submits two
 * windows in one system call (filemap_get_pages(): the sync window, then page_cache_async_ra()
 * for the next one), each in a read_pages() of its own, whose blk_finish_plug() puts the first in
 * the queue and runs it before the second is built. So the two are not merged in a plug: the
 * sync window is on the device when the async one, adjacent to it, is submitted. Had the task
 * one plug over both (the model before PC_IO_UNPLUG), the async window would join the sync one
 * in the plug: one request of two windows, one in the device where the kernel has two.
 */
static void pc_ra_unplug(void)
{
	struct vsim_result r;

	run_pc(0, PC_PROFILE_LINUX_6_12, false, &r);
	print_message("reader alone: plug flushes %llu, merges plug %llu back %llu, %llu reads of "
		      "%.0f KiB\n",
		      (unsigned long long)r.blk.plug_flushes,
		      (unsigned long long)r.blk.merges[BLK_MERGE_PLUG],
		      (unsigned long long)r.blk.merges[BLK_MERGE_BACK],
		      (unsigned long long)r.dev.ops[DEVMODEL_READ],
		      (double)r.dev.bytes[0] / 1024.0 / (double)r.dev.ops[DEVMODEL_READ]);
	assert_true(r.blk.plug_flushes > 0);
	assert_int_equal(r.blk.merges[BLK_MERGE_PLUG], 0);
	/* 256 KiB windows (fio's POSIX_FADV_SEQUENTIAL doubles read_ahead_kb's 128), not 512 */
	assert_true(r.dev.bytes[0] / r.dev.ops[DEVMODEL_READ] <= 256 * KB);
	vsim_result_free(&r);
}

/*
 * A raw block device's writeback (buffer_head_writeback=1) sends a bio per 4 KiB page, as
 * block_write_full_folio()'s submit_bh() does; the flusher's plug merges them into requests
 * up to the queue's limits, so the device sees requests as a filesystem's extent writeback
 * gives, and /sys/block's writes_merged counts the pages merged (the kernel merged 210,058 in
 * 8 s on the async-writer cross-check). Without merging each page is a request.
 */
static void test_buffer_head_writeback(void **state)
{
	static const enum pc_profile prof[] = {PC_PROFILE_LINUX_6_12, PC_PROFILE_LINUX_2_6_29};

	(void)state;
	for (unsigned int p = 0; p < 2; p++) {
		struct vsim_result ext, bh, bh_off;
		uint64_t w_ext, w_bh, w_off;

		run_pc_bh(0, prof[p], true, 0, &ext);
		run_pc_bh(0, prof[p], true, 1, &bh);
		run_pc_bh(BLK_NOMERGES_MAX, prof[p], true, 1, &bh_off);
		w_ext = ext.dev.ops[DEVMODEL_WRITE];
		w_bh = bh.dev.ops[DEVMODEL_WRITE];
		w_off = bh_off.dev.ops[DEVMODEL_WRITE];
		print_message(
		    "profile %u: writes extent %llu of %.0f KiB (%llu merged); buffer heads "
		    "%llu of %.0f KiB (%llu merged: plug %llu back %llu front %llu); "
		    "nomerges=2 %llu of %.0f KiB; plug flushes %llu (at the limit %llu)\n",
		    p, (unsigned long long)w_ext, (double)ext.dev.bytes[1] / 1024.0 / (double)w_ext,
		    (unsigned long long)ext.blk.stat_merges[1], (unsigned long long)w_bh,
		    (double)bh.dev.bytes[1] / 1024.0 / (double)w_bh,
		    (unsigned long long)bh.blk.stat_merges[1],
		    (unsigned long long)bh.blk.merges[BLK_MERGE_PLUG],
		    (unsigned long long)bh.blk.merges[BLK_MERGE_BACK],
		    (unsigned long long)bh.blk.merges[BLK_MERGE_FRONT], (unsigned long long)w_off,
		    (double)bh_off.dev.bytes[1] / 1024.0 / (double)w_off,
		    (unsigned long long)bh.blk.plug_flushes,
		    (unsigned long long)bh.blk.plug_limit_flushes);
		assert_true(w_ext > 0 && w_bh > 0 && w_off > 0);
		/* extents: whole runs already, the writes do not merge */
		assert_int_equal(ext.blk.stat_merges[1], 0);
		/* the device sees the same requests either way (128 pages, the queue's segments) */
		assert_true((w_ext > w_bh ? w_ext - w_bh : w_bh - w_ext) * 50 <= w_bh);
		/* pages: merged, most of them in the flusher's plug, into requests of many pages */
		assert_true(bh.blk.stat_merges[1] > 0);
		assert_true(bh.blk.merges[BLK_MERGE_PLUG] * 2 > bh.blk.stat_merges[1]);
		assert_true(bh.dev.bytes[1] / w_bh >= 64 * KB);
		/* every completed page was a bio: requests + merges cover them (merges count as
		 * they happen, requests and sectors as they complete) */
		assert_true(bh.blk.stat_ios[1] + bh.blk.stat_merges[1] >=
			    bh.blk.stat_sectors[1] / 8);
		assert_true(bh.blk.stat_ios[1] + bh.blk.stat_merges[1] <=
			    bh.blk.stat_sectors[1] / 8 + 256 * 128);
		/* nomerges=2: a request per page */
		assert_int_equal(bh_off.dev.bytes[1], w_off * 4096);
		for (int k = 0; k < BLK_MERGE_NR; k++)
			assert_int_equal(bh_off.blk.merges[k], 0);
		vsim_result_free(&ext);
		vsim_result_free(&bh);
		vsim_result_free(&bh_off);
	}
}

static void test_pagecache_plugged(void **state)
{
	static const enum pc_profile prof[] = {PC_PROFILE_LINUX_6_12, PC_PROFILE_LINUX_2_6_29};

	(void)state;
	for (unsigned int p = 0; p < 2; p++) {
		struct vsim_result on, off;

		run_pc(0, prof[p], true, &on);
		run_pc(BLK_NOMERGES_MAX, prof[p], true, &off);
		print_message("profile %u: plug flushes %llu (at the limit %llu; nomerges=2: %llu, "
			      "%llu), merges plug %llu back %llu front %llu request %llu; requests "
			      "%llu -> %llu\n",
			      p, (unsigned long long)on.blk.plug_flushes,
			      (unsigned long long)on.blk.plug_limit_flushes,
			      (unsigned long long)off.blk.plug_flushes,
			      (unsigned long long)off.blk.plug_limit_flushes,
			      (unsigned long long)on.blk.merges[BLK_MERGE_PLUG],
			      (unsigned long long)on.blk.merges[BLK_MERGE_BACK],
			      (unsigned long long)on.blk.merges[BLK_MERGE_FRONT],
			      (unsigned long long)on.blk.merges[BLK_MERGE_REQUEST],
			      (unsigned long long)(off.blk.stat_ios[0] + off.blk.stat_ios[1]),
			      (unsigned long long)(on.blk.stat_ios[0] + on.blk.stat_ios[1]));
		/* The batches go through the plug (a writeback pass's requests are already
		 * whole runs up to max_sectors_kb: nothing is left to merge there). */
		assert_true(on.blk.plug_flushes > 0);
		/* Without merging the plug still holds them (nothing merges there). */
		assert_true(off.blk.plug_flushes > 0);
		for (int k = 0; k < BLK_MERGE_NR; k++)
			assert_int_equal(off.blk.merges[k], 0);
		vsim_result_free(&on);
		vsim_result_free(&off);
	}
	pc_ra_unplug();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_back_merge),
	    cmocka_unit_test(test_back_merge_hash),
	    cmocka_unit_test(test_front_merge),
	    cmocka_unit_test(test_front_merges_off),
	    cmocka_unit_test(test_request_merge),
	    cmocka_unit_test(test_request_merge_front),
	    cmocka_unit_test(test_limit_max_sectors),
	    cmocka_unit_test(test_limit_max_segments),
	    cmocka_unit_test(test_limit_kind),
	    cmocka_unit_test(test_limit_prio_era),
	    cmocka_unit_test(test_limit_blkcg_era),
	    cmocka_unit_test(test_dispatch_list_leaves_cache),
	    cmocka_unit_test(test_cfq_2632_merged_next_rq),
	    cmocka_unit_test(test_nomerges),
	    cmocka_unit_test(test_pagecache_plugged),
	    cmocka_unit_test(test_wake_no_bio_merge),
	    cmocka_unit_test(test_insert_merge_chain),
	    cmocka_unit_test(test_nomerges_bad),
	    cmocka_unit_test(test_no_model_no_merge),
	    cmocka_unit_test(test_cfq_own_queue),
	    cmocka_unit_test(test_bfq_own_queue),
	    cmocka_unit_test(test_cfq_request_merge),
	    cmocka_unit_test(test_bfq_request_merge),
	    cmocka_unit_test(test_plug_merge_none),
	    cmocka_unit_test(test_plug_merge_deadline),
	    cmocka_unit_test(test_plug_merge_cfq),
	    cmocka_unit_test(test_plug_last_only),
	    cmocka_unit_test(test_plug_limits),
	    cmocka_unit_test(test_insert_merge),
	    cmocka_unit_test(test_insert_merge_again),
	    cmocka_unit_test(test_plug_off),
	    cmocka_unit_test(test_merge_at_admission),
	    cmocka_unit_test(test_kyber_kcq_merge),
	    cmocka_unit_test(test_kyber_flushed),
	    cmocka_unit_test(test_kyber_eight),
	    cmocka_unit_test(test_kyber_failed_stops),
	    cmocka_unit_test(test_plug_woken_sleeper),
	    cmocka_unit_test(test_buffer_head_writeback),
	};

	return cmocka_run_group_tests_name("merge", tests, NULL, NULL);
}
