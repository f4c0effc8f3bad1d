// SPDX-License-Identifier: GPL-2.0
/*
 * sched/cfq's era profiles, switch by switch: each cfq_sw_* switch of a change between two
 * profiles is run in its older profile (cfq_version) both ways, on a few requests driven by hand
 * in virtual time, and the decision the change alters is asserted in each position (what is
 * dispatched next, an idle timer armed or not, a preemption, where a slice is charged). The
 * profiles as wholes are the oracle's (oracle/: each against its kernel's cfq-iosched.c).
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
#define KIB 1024ull
#define MIB (1024ull * 1024)
#define GIB (1024ull * MIB)
#define T0 (10ull * 1000 * MS) /* virtual time starts at 10 s */

/* ---- a scheduler of one profile, one switch given ---- */

struct era {
	struct sched_config cfg;
	struct sched *s;
	const struct cfq_stats *st;
	struct sched_request rq[64];
	unsigned int n;
	char trace[64][96];
	unsigned int nr_trace;
};

static void set(struct sched_config *cfg, const char *name, const char *value)
{
	char err[256] = "";

	if (sched_config_set_tunable(cfg, name, value, err, sizeof(err))) {
		print_error("%s=%s: %s\n", name, value, err);
		fail();
	}
}

/* The profile `version` on a rotational disk (or not) of the given depth, with switch `sw`
 * given as `on`, plus name=value pairs (NULL-terminated). */
static void era_new(struct era *e, const char *version, const char *sw, bool on, bool rotational,
		    uint32_t depth, ...)
{
	va_list ap;
	const char *name;

	memset(e, 0, sizeof(*e));
	sched_config_defaults(&e->cfg, SCHED_POLICY_CFQ);
	e->cfg.rotational = rotational;
	e->cfg.hw_queue_depth = depth;
	e->cfg.max_entities = 16;
	e->cfg.max_groups = 4;
	e->cfg.trace_bytes = 1u << 20;
	set(&e->cfg, "cfq_version", version);
	set(&e->cfg, sw, on ? "1" : "0");
	va_start(ap, depth);
	while ((name = va_arg(ap, const char *)))
		set(&e->cfg, name, va_arg(ap, const char *));
	va_end(ap);
	e->s = test_sched_new(&e->cfg, T0);
	e->st = cfq_get_stats(cfq_of(e->s));
}

static void dump_line(void *ctx, uint64_t now, const char *line)
{
	(void)ctx;
	if (getenv("ERA_DUMP"))
		fprintf(stderr, "%llu %s\n", (unsigned long long)now, line);
}

static void era_free(struct era *e)
{
	sched_trace_drain(e->s->trace, dump_line, NULL);
	test_sched_free(e->s);
}

/* A request of `owner` in `group`: a read, or a write with `flags` (0: buffered, async). */
static struct sched_request *era_rq(struct era *e, uint32_t owner, uint32_t group,
				    enum sched_op op, uint8_t flags, uint64_t offset)
{
	struct sched_request *rq = &e->rq[e->n++];

	assert_true(e->n <= sizeof(e->rq) / sizeof(e->rq[0]));
	test_rq_init(rq, owner, op, op == SCHED_OP_READ ? SCHED_RQ_SYNC : flags, offset, 4 * KIB);
	rq->group = group;
	return rq;
}

static struct sched_request *era_read(struct era *e, uint32_t owner, uint32_t group,
				      uint64_t offset, uint64_t t)
{
	struct sched_request *rq = era_rq(e, owner, group, SCHED_OP_READ, 0, offset);

	sched_insert(e->s, rq, t);
	return rq;
}

static void trace_line(void *ctx, uint64_t now, const char *line)
{
	struct era *e = ctx;

	(void)now;
	if (!strncmp(line, "P ", 2) && e->nr_trace < 64)
		snprintf(e->trace[e->nr_trace++], sizeof(e->trace[0]), "%s", line + 2);
}

/* The policy's lines logged since the last call that contain needle. */
static unsigned int era_logged(struct era *e, const char *needle)
{
	unsigned int c = 0;

	e->nr_trace = 0;
	sched_trace_drain(e->s->trace, trace_line, e);
	for (unsigned int i = 0; i < e->nr_trace; i++) {
		c += strstr(e->trace[i], needle) != NULL;
		if (getenv("ERA_DUMP"))
			fprintf(stderr, "  %s\n", e->trace[i]);
	}
	return c;
}

/* ---- 2.6.32 -> 2.6.36 ---- */

/*
 * cfq_sw_rework_2633 (an era switch): the sole busy queue's dispatch depth. 2.6.32 lets a queue
 * alone on its service tree have quantum (4 then) x 4 = 16 requests in the driver; 2.6.33 on,
 * quantum/2 at first and no limit for the sole queue. 20 reads queued by one process, none
 * completing: how many go to a device of depth 32.
 */
static unsigned int rework_sole_depth(bool on)
{
	struct era e;
	unsigned int n = 0;

	era_new(&e, "2.6.32", "cfq_sw_rework_2633", on, true, 32, NULL);
	for (int i = 0; i < 20; i++)
		era_read(&e, 1, 0, (uint64_t)i * MIB, T0);
	while (sched_dispatch(e.s, T0))
		n++;
	era_free(&e);
	return n;
}

static void test_2632_rework_sole_depth(void **state)
{
	(void)state;
	assert_int_equal(rework_sole_depth(false), 16);
	assert_int_equal(rework_sole_depth(true), 20);
}

/* ---- 2.6.36 -> 3.16 ---- */

/*
 * cfq_sw_noidle_in_group: with group_isolation=0 (2.6.36's default) a group's queue that turned
 * sync-noidle (slice_idle=0 takes every idle window) is served, and charged, in the root group
 * from its next turn on. Group 1's reader alternates with a root-group reader.
 */
static void noidle_in_group(bool on, uint64_t *root_slices, uint64_t *group_slices)
{
	struct era e;
	struct sched_request *r, *q;
	uint64_t t = T0;

	era_new(&e, "2.6.36", "cfq_sw_noidle_in_group", on, true, 32, "slice_idle", "0",
		"group_idle", "0", NULL);
	r = era_read(&e, 1, 1, 0, t);
	assert_ptr_equal(sched_dispatch(e.s, t), r);
	t += 5 * MS;
	sched_completed(e.s, r, t);
	for (int i = 0; i < 2; i++) {
		/* The other reader's request ends the empty active queue's slice. */
		q = era_read(&e, 2, 0, 100 * GIB + (uint64_t)i * MIB, t);
		r = era_read(&e, 1, 1, (uint64_t)(i + 1) * MIB, t);
		if (sched_dispatch(e.s, t) == q) {
			t += 5 * MS;
			sched_completed(e.s, q, t);
			assert_ptr_equal(sched_dispatch(e.s, t), r);
		} else {
			t += 5 * MS;
			sched_completed(e.s, r, t);
			assert_ptr_equal(sched_dispatch(e.s, t), q);
			r = q;
		}
		t += 5 * MS;
		sched_completed(e.s, r, t);
	}
	/* The last turn ends too. */
	q = era_read(&e, 3, 0, 200 * GIB, t);
	assert_ptr_equal(sched_dispatch(e.s, t), q);
	*root_slices = e.st->group[0].slices;
	*group_slices = e.st->group[1].slices;
	era_free(&e);
}

static void test_2636_noidle_in_group(void **state)
{
	uint64_t root, grp;

	(void)state;
	noidle_in_group(false, &root, &grp);
	print_message("group_isolation=0: root %llu slices, group 1 %llu\n",
		      (unsigned long long)root, (unsigned long long)grp);
	assert_int_equal(root, 2); /* the root reader's slice and group 1's reader's second */
	assert_int_equal(grp, 1);
	noidle_in_group(true, &root, &grp);
	print_message("isolated: root %llu slices, group 1 %llu\n", (unsigned long long)root,
		      (unsigned long long)grp);
	assert_int_equal(root, 1);
	assert_int_equal(grp, 2);
}

/*
 * cfq_sw_vfraction_charge: a group's vdisktime grows by charge << 12 x 500 / weight (2.6.36), or
 * by charge << 24 / vfraction (3.10 on): for a group of weight 100 alone on the tree, 5 times
 * less.
 */
static uint64_t vfraction_charge(bool on)
{
	struct era e;
	struct sched_request *r;
	uint64_t t = T0, vd;

	era_new(&e, "2.6.36", "cfq_sw_vfraction_charge", on, true, 32, NULL);
	e.cfg.group_weight[1] = 100;
	test_sched_free(e.s);
	e.s = test_sched_new(&e.cfg, T0);
	e.st = cfq_get_stats(cfq_of(e.s));
	r = era_read(&e, 1, 1, 0, t);
	assert_ptr_equal(sched_dispatch(e.s, t), r);
	t += 10 * MS;
	sched_completed(e.s, r, t); /* idles 8 ms for the next request */
	t += 8 * MS;
	sched_run_timer(e.s, t);
	assert_int_equal(e.st->group[1].slices, 1);
	vd = e.st->group[1].vdisktime;
	era_free(&e);
	return vd;
}

static void test_2636_vfraction_charge(void **state)
{
	uint64_t flat = vfraction_charge(false), hier = vfraction_charge(true);

	(void)state;
	assert_true(hier > 0);
	assert_int_equal(flat, 5 * hier);
}

/*
 * cfq_sw_vfraction_slice: groups of weights 100 and 200 busy, one reader each: the first's
 * share of target_latency (75 jiffies at HZ 250) is 75 x 100 / 300 = 25 (2.6.36), or, once its
 * vfraction is taken with the other group active, 75 x 1365 >> 12 = 24 (3.10 on): so its
 * reader's slice of 25 jiffies is cut to 24 from its second turn on only in the second
 * (low_latency). The device takes 60 ms a read.
 */
static unsigned int vfraction_slice(bool on, const char *want)
{
	struct era e;
	struct sched_request *rq;
	uint64_t t = T0;
	unsigned int n = 0;

	era_new(&e, "2.6.36", "cfq_sw_vfraction_slice", on, true, 1, NULL);
	e.cfg.group_weight[1] = 100;
	e.cfg.group_weight[2] = 200;
	test_sched_free(e.s);
	e.s = test_sched_new(&e.cfg, T0);
	for (int i = 0; i < 12; i++) {
		era_read(&e, 1, 1, (uint64_t)i * 4 * KIB, t);
		era_read(&e, 2, 2, 100 * GIB + (uint64_t)i * 4 * KIB, t);
	}
	for (int step = 0; step < 16; step++) {
		if ((rq = sched_dispatch(e.s, t))) {
			t += 60 * MS;
			sched_completed(e.s, rq, t);
		} else if (sched_next_timer(e.s) != SCHED_NO_TIMER) {
			t = sched_next_timer(e.s);
			sched_run_timer(e.s, t);
		}
		n += era_logged(&e, want);
	}
	era_free(&e);
	return n;
}

static void test_2636_vfraction_slice(void **state)
{
	(void)state;
	assert_int_equal(vfraction_slice(false, "cfq1S  set_slice=24"), 0);
	assert_true(vfraction_slice(false, "cfq1S  set_slice=25") >= 2);
	assert_true(vfraction_slice(true, "cfq1S  set_slice=24") >= 1);
}

/*
 * cfq_sw_wait_busy_queued: the group's only queue used its slice with a request still queued
 * (one request in the device at a time): 2.6.36 busy-waits for it anyway (wait_busy, then
 * expires as backlogged), 3.16 expires it as used up.
 */
static void wait_busy_queued(bool on, uint64_t *wait_busy, uint64_t *used)
{
	struct era e;
	struct sched_request *r[3];
	uint64_t t = T0;

	era_new(&e, "2.6.36", "cfq_sw_wait_busy_queued", on, true, 1, NULL);
	for (int i = 0; i < 3; i++)
		r[i] = era_read(&e, 1, 0, (uint64_t)i * 4 * KIB, t);
	assert_ptr_equal(sched_dispatch(e.s, t), r[0]);
	t += 5 * MS;
	sched_completed(e.s, r[0], t); /* the slice starts: 100 ms */
	assert_ptr_equal(sched_dispatch(e.s, t), r[1]);
	t += 200 * MS;
	sched_completed(e.s, r[1], t);
	*wait_busy = e.st->wait_busy;
	*used = e.st->slices_expired[CFQ_EXPIRE_SLICE_USED];
	era_free(&e);
}

static void test_2636_wait_busy_queued(void **state)
{
	uint64_t wb, used;

	(void)state;
	wait_busy_queued(false, &wb, &used);
	assert_int_equal(wb, 1);
	assert_int_equal(used, 0);
	wait_busy_queued(true, &wb, &used);
	assert_int_equal(wb, 0);
	assert_int_equal(used, 1);
}

/*
 * cfq_sw_group_ttime: slice_idle=0, group_idle 8 ms. Group 1's only process thinks 20 ms between
 * its reads: 3.16 stops group-idling for a group thinking longer than group_idle, so group 2's
 * request goes while group 1's last read is in the device; 2.6.36 waits for it.
 */
static bool group_ttime(bool on)
{
	struct era e;
	struct sched_request *a = NULL, *b;
	uint64_t t = T0;
	bool b_went;

	era_new(&e, "2.6.36", "cfq_sw_group_ttime", on, true, 32, "slice_idle", "0", NULL);
	for (int i = 0; i < 4; i++) {
		a = era_read(&e, 1, 1, (uint64_t)i * 4 * KIB, t);
		assert_ptr_equal(sched_dispatch(e.s, t), a);
		if (i == 3)
			break;
		t += 5 * MS;
		sched_completed(e.s, a, t);
		t += 20 * MS;
		sched_run_timer(e.s, t); /* the group idle ran out meanwhile */
	}
	t += MS;
	b = era_read(&e, 2, 2, 100 * GIB, t);
	b_went = sched_dispatch(e.s, t) == b;
	era_free(&e);
	return b_went;
}

static void test_2636_group_ttime(void **state)
{
	(void)state;
	assert_false(group_ttime(false));
	assert_true(group_ttime(true));
}

/*
 * cfq_sw_tree_ttime: a process thinking 20 ms between reads loses its idle window and is alone
 * on the sync-noidle tree: 2.6.36 idles for the last queue of a tree whatever the tree's think
 * time, 3.16 not once the tree thinks longer than slice_idle (group_idle=0: no group idling
 * instead).
 */
static uint64_t tree_ttime(bool on)
{
	struct era e;
	struct sched_request *a;
	uint64_t t = T0, armed;

	era_new(&e, "2.6.36", "cfq_sw_tree_ttime", on, true, 32, "group_idle", "0", NULL);
	for (int i = 0; i < 8; i++) {
		a = era_read(&e, 1, 0, (uint64_t)i * 4 * KIB, t);
		assert_ptr_equal(sched_dispatch(e.s, t), a);
		t += 5 * MS;
		sched_completed(e.s, a, t);
		t += 20 * MS;
		sched_run_timer(e.s, t);
	}
	armed = e.st->idle_timer_armed;
	era_free(&e);
	return armed;
}

static void test_2636_tree_ttime(void **state)
{
	uint64_t flat = tree_ttime(false), ttime = tree_ttime(true);

	(void)state;
	print_message("idle timers armed: %llu without the tree's think time, %llu with\n",
		      (unsigned long long)flat, (unsigned long long)ttime);
	assert_int_equal(flat, 8);
	/* Only after its first two reads (idle window) and its last, the first on the sync-noidle
	 * tree, whose think time is not yet known; none while the sync tree thinks long. */
	assert_int_equal(ttime, 3);
}

/*
 * cfq_sw_deep_seeky_fast: two deep seeky readers (6 far-apart reads each). When the first has
 * sent all its reads with most of its slice left, 3.16 takes its idle window (the device
 * outpaces it) and, with two queues on the tree, serves the second at once; 2.6.36 waits for
 * the first's reads.
 */
static bool deep_seeky_fast(bool on)
{
	struct era e;
	struct sched_request *a[6], *b[6], *rq, *first_done = NULL;
	uint64_t t = T0;
	int sent = 0;
	bool b_went;

	era_new(&e, "2.6.36", "cfq_sw_deep_seeky_fast", on, true, 32, NULL);
	for (int i = 0; i < 6; i++)
		a[i] = era_read(&e, 1, 0, (uint64_t)i * 10 * GIB, t);
	for (int i = 0; i < 6; i++)
		b[i] = era_read(&e, 2, 0, 100 * GIB + (uint64_t)i * 10 * GIB, t);
	while ((rq = sched_dispatch(e.s, t))) {
		assert_int_equal(rq->owner, 1);
		if (!first_done)
			first_done = rq;
		sent++;
	}
	assert_int_equal(sent, 4); /* quantum / 2 while the slice is new */
	t += 10 * MS;
	sched_completed(e.s, first_done, t);
	while (sent < 6 && (rq = sched_dispatch(e.s, t)) && rq->owner == 1)
		sent++;
	assert_int_equal(sent, 6);
	rq = sched_dispatch(e.s, t);
	b_went = rq && rq->owner == 2;
	(void)a;
	(void)b;
	era_free(&e);
	return b_went;
}

static void test_2636_deep_seeky_fast(void **state)
{
	(void)state;
	assert_false(deep_seeky_fast(false));
	assert_true(deep_seeky_fast(true));
}

/*
 * cfq_sw_noidle_window: two writers of sync writes without REQ_IDLE (REQ_NOIDLE before 4.10). In
 * 3.16 each loses its idle window with its first such write, so none is idled for while the other
 * is on the tree; 2.6.36 keeps the window and idles after the first's write.
 */
static uint64_t noidle_window(bool on)
{
	struct era e;
	struct sched_request *p, *q;
	uint64_t t = T0, armed;

	era_new(&e, "2.6.36", "cfq_sw_noidle_window", on, true, 32, NULL);
	p = era_rq(&e, 1, 0, SCHED_OP_WRITE, SCHED_RQ_SYNC, 0);
	q = era_rq(&e, 2, 0, SCHED_OP_WRITE, SCHED_RQ_SYNC, 100 * GIB);
	sched_insert(e.s, p, t);
	sched_insert(e.s, q, t);
	assert_ptr_equal(sched_dispatch(e.s, t), p);
	t += 5 * MS;
	sched_completed(e.s, p, t);
	armed = e.st->idle_timer_armed;
	era_free(&e);
	return armed;
}

static void test_2636_noidle_window(void **state)
{
	(void)state;
	assert_int_equal(noidle_window(false), 1);
	assert_int_equal(noidle_window(true), 0);
}

/*
 * cfq_sw_sole_sync: the only busy sync queue, 12 reads queued, with an async queue busy too:
 * 3.16 lets it send them all, 2.6.36 stops it at quantum / 2 while its slice is new.
 */
static int sole_sync(bool on)
{
	struct era e;
	int sent = 0;

	era_new(&e, "2.6.36", "cfq_sw_sole_sync", on, true, 64, NULL);
	for (int i = 0; i < 12; i++)
		era_read(&e, 1, 0, (uint64_t)i * 4 * KIB, T0);
	for (int i = 0; i < 3; i++)
		sched_insert(e.s, era_rq(&e, 2, 0, SCHED_OP_WRITE, 0, 50 * GIB + (uint64_t)i * MIB),
			     T0);
	while (sched_dispatch(e.s, T0))
		sent++;
	era_free(&e);
	return sent;
}

static void test_2636_sole_sync(void **state)
{
	(void)state;
	assert_int_equal(sole_sync(false), 4);
	assert_int_equal(sole_sync(true), 12);
}

/*
 * cfq_sw_class_new_workload: a best-effort reader is preempted by a real-time one. The group's
 * saved workload (best-effort, sync) still runs: 3.16 chooses the real-time class's workload
 * anew (a new workload slice), 2.6.36 keeps the saved type and its time.
 */
static unsigned int class_new_workload(bool on)
{
	struct era e;
	struct sched_request *x, *r;
	uint64_t t = T0;
	unsigned int n;

	era_new(&e, "2.6.36", "cfq_sw_class_new_workload", on, true, 32, NULL);
	x = era_read(&e, 1, 0, 0, t);
	era_read(&e, 1, 0, 4 * KIB, t);
	assert_ptr_equal(sched_dispatch(e.s, t), x);
	t += MS;
	r = era_rq(&e, 2, 0, SCHED_OP_READ, 0, 100 * GIB);
	r->prio_class = SCHED_IOPRIO_CLASS_RT;
	r->prio_level = 4;
	era_logged(&e, "");
	sched_insert(e.s, r, t);
	assert_int_equal(e.st->preemptions, 1);
	assert_ptr_equal(sched_dispatch(e.s, t), r);
	n = era_logged(&e, "workload slice:");
	era_free(&e);
	return n;
}

static void test_2636_class_new_workload(void **state)
{
	(void)state;
	assert_int_equal(class_new_workload(false), 0);
	assert_int_equal(class_new_workload(true), 1);
}

/*
 * cfq_sw_resid_new: a best-effort level-0 reader X, preempted by a real-time one before its first
 * completion, keeps its whole slice (45 jiffies) as residual in 3.16 and goes back ahead of a
 * reader Y that queued a jiffy before the preemption; 2.6.36 keeps nothing and Y goes first.
 */
static uint32_t resid_new(bool on)
{
	struct era e;
	struct sched_request *x, *r, *rq;
	uint64_t t = T0;
	uint32_t next;

	era_new(&e, "2.6.36", "cfq_sw_resid_new", on, true, 32, NULL);
	x = era_rq(&e, 1, 0, SCHED_OP_READ, 0, 0);
	rq = era_rq(&e, 1, 0, SCHED_OP_READ, 0, 4 * KIB);
	x->prio_class = rq->prio_class = SCHED_IOPRIO_CLASS_BE;
	x->prio_level = rq->prio_level = 0;
	sched_insert(e.s, x, t);
	sched_insert(e.s, rq, t);
	assert_ptr_equal(sched_dispatch(e.s, t), x);
	era_read(&e, 2, 0, 50 * GIB, t); /* Y queues behind the active X */
	t += 4 * MS;
	r = era_rq(&e, 3, 0, SCHED_OP_READ, 0, 100 * GIB);
	r->prio_class = SCHED_IOPRIO_CLASS_RT;
	r->prio_level = 4;
	sched_insert(e.s, r, t);
	assert_ptr_equal(sched_dispatch(e.s, t), r);
	t += 5 * MS;
	sched_completed(e.s, x, t);
	sched_completed(e.s, r, t);
	t += 8 * MS;
	sched_run_timer(e.s, t); /* the real-time reader sends nothing more */
	rq = sched_dispatch(e.s, t);
	assert_non_null(rq);
	next = rq->owner;
	era_free(&e);
	return next;
}

static void test_2636_resid_new(void **state)
{
	(void)state;
	assert_int_equal(resid_new(false), 2);
	assert_int_equal(resid_new(true), 1);
}

/*
 * cfq_sw_preempt_new_type: a sync read preempts the active async queue. 3.16 drops the group's
 * saved async workload, so the read goes next; 2.6.36 restores it, and the async queue, still
 * backlogged and in its workload time, is chosen again.
 */
static bool preempt_new_type(bool on)
{
	struct era e;
	struct sched_request *n, *w, *rq;
	uint64_t t = T0;
	bool read_next;

	era_new(&e, "2.6.36", "cfq_sw_preempt_new_type", on, true, 32, NULL);
	for (int i = 0; i < 4; i++)
		sched_insert(e.s, era_rq(&e, 1, 0, SCHED_OP_WRITE, 0, (uint64_t)i * MIB), t);
	w = sched_dispatch(e.s, t);
	assert_non_null(w);
	assert_int_equal(w->op, SCHED_OP_WRITE);
	t += MS;
	n = era_read(&e, 2, 0, 100 * GIB, t);
	assert_int_equal(e.st->preemptions, 1);
	/* The write done (a read that idles waits for async I/O to drain), the next: */
	t += MS;
	sched_completed(e.s, w, t);
	rq = sched_dispatch(e.s, t);
	read_next = rq == n;
	era_free(&e);
	return read_next;
}

static void test_2636_preempt_new_type(void **state)
{
	(void)state;
	assert_false(preempt_new_type(false));
	assert_true(preempt_new_type(true));
}

/*
 * cfq_sw_preempt_not_idling: slice_idle=0, group_idle=0: the active reader's queue is empty and
 * will not be idled for; a second reader's request preempts it in 3.16, not in 2.6.36 (whose
 * next dispatch expires the empty queue instead).
 */
static uint64_t preempt_not_idling(bool on)
{
	struct era e;
	struct sched_request *x;
	uint64_t t = T0, p;

	era_new(&e, "2.6.36", "cfq_sw_preempt_not_idling", on, true, 32, "slice_idle", "0",
		"group_idle", "0", NULL);
	x = era_read(&e, 1, 0, 0, t);
	assert_ptr_equal(sched_dispatch(e.s, t), x);
	t += MS;
	era_read(&e, 2, 0, 100 * GIB, t);
	p = e.st->preemptions;
	era_free(&e);
	return p;
}

static void test_2636_preempt_not_idling(void **state)
{
	(void)state;
	assert_int_equal(preempt_not_idling(false), 0);
	assert_int_equal(preempt_not_idling(true), 1);
}

/*
 * cfq_sw_same_sector: one request in the device at a time, a real-time reader served. A
 * best-effort reader queues two reads of one sector: 2.6.36's elv_rb_add() hands back the
 * first (an alias), which CFQ dispatches at once to the dispatch list, so it goes before the
 * real-time reader's next read; 3.16 queues both.
 */
static bool same_sector(bool on)
{
	struct era e;
	struct sched_request *b1, *r1, *rq;
	uint64_t t = T0;
	bool alias_next;

	era_new(&e, "2.6.36", "cfq_sw_same_sector", on, true, 1, NULL);
	b1 = era_rq(&e, 2, 0, SCHED_OP_READ, 0, 100 * GIB);
	b1->prio_class = SCHED_IOPRIO_CLASS_RT;
	b1->prio_level = 4;
	sched_insert(e.s, b1, t);
	rq = era_rq(&e, 2, 0, SCHED_OP_READ, 0, 100 * GIB + 4 * KIB);
	rq->prio_class = SCHED_IOPRIO_CLASS_RT;
	rq->prio_level = 4;
	sched_insert(e.s, rq, t);
	assert_ptr_equal(sched_dispatch(e.s, t), b1);
	r1 = era_read(&e, 1, 0, MIB, t);
	era_read(&e, 1, 0, MIB, t);
	t += 5 * MS;
	sched_completed(e.s, b1, t);
	rq = sched_dispatch(e.s, t);
	alias_next = rq == r1;
	era_free(&e);
	return alias_next;
}

static void test_2636_same_sector(void **state)
{
	(void)state;
	assert_true(same_sector(false));
	assert_false(same_sector(true));
}

/*
 * cfq_sw_ttime_sync: a process writes three buffered (async) writes 20 ms apart after a read.
 * 2.6.36 samples its think time at every request, so the gaps make it a long thinker: its next
 * read finds its idle window gone and is served from the sync-noidle tree; 3.16 samples its sync
 * requests only, and serves the read from the sync tree, idle window kept.
 */
static unsigned int ttime_sync(bool on, const char *want)
{
	struct era e;
	struct sched_request *p;
	uint64_t t = T0;
	unsigned int n;

	era_new(&e, "2.6.36", "cfq_sw_ttime_sync", on, true, 32, NULL);
	p = era_read(&e, 1, 0, 0, t);
	assert_ptr_equal(sched_dispatch(e.s, t), p);
	t += 5 * MS;
	sched_completed(e.s, p, t);
	t += 8 * MS;
	sched_run_timer(e.s, t);
	for (int i = 0; i < 3; i++) {
		t += 20 * MS;
		sched_insert(e.s, era_rq(&e, 1, 0, SCHED_OP_WRITE, 0, 10 * GIB + (uint64_t)i * MIB),
			     t);
	}
	while ((p = sched_dispatch(e.s, t))) {
		t += MS;
		sched_completed(e.s, p, t);
	}
	t += MS;
	era_logged(&e, "");
	p = era_read(&e, 1, 0, 4 * KIB, t);
	assert_ptr_equal(sched_dispatch(e.s, t), p);
	n = era_logged(&e, want);
	era_free(&e);
	return n;
}

static void test_2636_ttime_sync(void **state)
{
	(void)state;
	assert_int_equal(ttime_sync(false, "set_active wl_class:0 wl_type:1"), 1);
	assert_int_equal(ttime_sync(true, "set_active wl_class:0 wl_type:2"), 1);
}

/* ---- 4.1 -> 4.19 ---- */

/*
 * cfq_sw_prio_boost: an idle-class process whose queue exists (one read served before) sends a
 * metadata read (REQ_META|REQ_PRIO) while a best-effort reader is served. 4.19's
 * cfqq_boost_on_prio() lifts the queue to best effort for it, and the read preempts the reader
 * (metadata vs regular I/O) and goes next; 4.1 has no boost: an idle-class queue never preempts,
 * and the reader's next read goes first. No oracle stream shows it: the simulator's requests
 * carry no REQ_PRIO.
 */
static bool prio_boost(bool on)
{
	struct era e;
	struct sched_request *i, *m, *r1, *rq;
	uint64_t t = T0;
	bool meta_next;

	era_new(&e, "4.1", "cfq_sw_prio_boost", on, true, 1, NULL);
	i = era_rq(&e, 2, 0, SCHED_OP_READ, 0, 100 * GIB);
	i->prio_class = SCHED_IOPRIO_CLASS_IDLE;
	sched_insert(e.s, i, t);
	assert_ptr_equal(sched_dispatch(e.s, t), i);
	t += MS;
	sched_completed(e.s, i, t);
	assert_null(sched_dispatch(e.s, t));
	t += 10 * MS;
	r1 = era_read(&e, 1, 0, 0, t);
	for (int k = 1; k < 4; k++)
		era_read(&e, 1, 0, (uint64_t)k * 4 * KIB, t);
	assert_ptr_equal(sched_dispatch(e.s, t), r1);
	t += MS;
	m = era_rq(&e, 2, 0, SCHED_OP_READ, 0, 100 * GIB + 4 * KIB);
	m->prio_class = SCHED_IOPRIO_CLASS_IDLE;
	m->flags |= SCHED_RQ_META;
	sched_insert(e.s, m, t);
	assert_int_equal(e.st->preemptions, on ? 1 : 0);
	t += MS;
	sched_completed(e.s, r1, t);
	rq = sched_dispatch(e.s, t);
	assert_non_null(rq);
	meta_next = rq == m;
	era_free(&e);
	return meta_next;
}

static void test_41_prio_boost(void **state)
{
	(void)state;
	assert_false(prio_boost(false));
	assert_true(prio_boost(true));
}

/* The tests of this file cmocka runs (main()). */
static const struct CMUnitTest *eras_tests;
static size_t eras_tests_nr;

/*
 * The project's rule: every switch is tested in both positions. Each cfq_sw_* switch has
 * exactly one test in cfq_switch_tests.h (those of this file run here: checked; each other file
 * checks its own), and every name there is a switch. No switch goes untested: there is no gap
 * list.
 */
static void test_cfq_every_switch_tested(void **state)
{
	int missing = 0;

	(void)state;
	for (int i = 0; i < CFQ_SW_NR; i++) {
		const char *name = cfq_switch_name((enum cfq_switch)i);
		int tests = 0;

		for (size_t k = 0; k < CFQ_SWITCH_TESTS_NR; k++)
			tests += !strcmp(cfq_switch_tests[k].sw, name);
		if (tests != 1) {
			print_error("%s: %d tests in cfq_switch_tests.h\n", name, tests);
			missing++;
		}
	}
	for (size_t k = 0; k < CFQ_SWITCH_TESTS_NR; k++) {
		int known = 0;

		for (int i = 0; i < CFQ_SW_NR; i++)
			known += !strcmp(cfq_switch_tests[k].sw, cfq_switch_name((enum cfq_switch)i));
		if (!known) {
			print_error("%s: no such switch\n", cfq_switch_tests[k].sw);
			missing++;
		}
	}
	missing += cfq_switch_tests_missing("test_cfq_eras.c", eras_tests, eras_tests_nr);
	assert_int_equal(missing, 0);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_2632_rework_sole_depth),
		cmocka_unit_test(test_2636_noidle_in_group),
		cmocka_unit_test(test_2636_vfraction_charge),
		cmocka_unit_test(test_2636_vfraction_slice),
		cmocka_unit_test(test_2636_wait_busy_queued),
		cmocka_unit_test(test_2636_group_ttime),
		cmocka_unit_test(test_2636_tree_ttime),
		cmocka_unit_test(test_2636_deep_seeky_fast),
		cmocka_unit_test(test_2636_noidle_window),
		cmocka_unit_test(test_2636_sole_sync),
		cmocka_unit_test(test_2636_class_new_workload),
		cmocka_unit_test(test_2636_resid_new),
		cmocka_unit_test(test_2636_preempt_new_type),
		cmocka_unit_test(test_2636_preempt_not_idling),
		cmocka_unit_test(test_2636_same_sector),
		cmocka_unit_test(test_2636_ttime_sync),
		cmocka_unit_test(test_41_prio_boost),
		cmocka_unit_test(test_cfq_every_switch_tested),
	};

	eras_tests = tests;
	eras_tests_nr = sizeof(tests) / sizeof(tests[0]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
