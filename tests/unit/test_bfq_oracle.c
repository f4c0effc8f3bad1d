// SPDX-License-Identifier: GPL-2.0
/*
 * sched/bfq against the kernel's own bfq-iosched.c: each test replays, through vsim, a stream the
 * differential oracle (oracle/, `oracle --variant bfq_6_12 --stream I`) minimised to a divergence
 * between the port and the kernel file, and checks that the port now takes the kernel's decision
 * at the moment they parted: the block event the kernel file's run has there (a dispatch, at
 * its time). The streams' parameters are the oracle's minimised reproducer (its job file and
 * its "; vsim:" seeds line), so a test fails if the port goes back to its old decision.
 *
 * Each bfq_sw_* switch of the 4.12 profile has a case in switch_cases[]: a stream the oracle
 * finds altered by that switch alone (`oracle --variant bfq_4_12 --set bfq_sw_X=1`), minimised,
 * replayed with the switch off (the kernel file's decision) and on (the later kernel's); a
 * switch whose change shows only on the 6.12 side has a bfq_6_12 stream (`--set bfq_sw_X=0`:
 * there "on" is the kernel file's decision). A switch no stream shows has a mechanism test in
 * test_bfq.c named in bfq_switch_tests.h; test_every_switch_has_a_case checks that every
 * switch has one or the other.
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
#include "devmodel.h"
#include "sched.h"
#include "support_replay.h"
#include "vsim.h"

#define MS 1000000ull

/* ---- replays (support_replay.h) ---- */

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

static void test_switch(void **state)
{
	replay_switch_case(*state, SCHED_POLICY_BFQ);
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
	replay_assert_next_block(&r, "job0 D RS 1201980160 + 8", t0, "job1 D RS 1405713880 + 8", t0);
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
	replay_assert_next_block(&r, "job1 I RS 292405072 + 8", t0, "job0 D RS 602801416 + 8", t0);
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
	replay_assert_next_block(&r, "job6 I RS 1376689232 + 8", t0, "job8 D RS 1464268760 + 8", t0);
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
	replay_assert_next_block(&r, "job0 I RS 88151032 + 8", t0, "job1 D RS 401714432 + 8", t0);
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
	replay_assert_next_block(&r, "job0 I WS 744342480 + 8", t0, "job5 D RS 1197433384 + 8", t0);
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
	replay_assert_next_block(&r, "job3 I W 385654784 + 2048", 0, "job4 I W 385656832 + 2048", 0);
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
	replay_assert_next_block(&r, "job1 I RS 138602496 + 2048", 0, "job2 I RS 148285440 + 2048", 0);
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

/* BEGIN switch cases */
static const struct switch_case switch_cases[] = {
    {"bfq_sw_ttime_idle_only",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 0 --set bfq_sw_ttime_idle_only=1 */
     "; vsim: seed=0x1050eb558c64fe5 dev.seed=0x65b1fc97ee0147\n"
     "[global] device_model=hdd runtime=100ms bfq_version=4.12\n"
     "[job0] rw=randread bs=4096 iodepth=1 direct=1 numjobs=16 prioclass=3 prio=7\n"
     "[job6] rw=randwrite bs=4096 iodepth=1 direct=1 numjobs=4 offset=468528922624 "
     "size=1048576 offset_increment=1048576\n",
     "job0 D RS 61286944 + 8", 23552, "job16 C WS 915096400 + 8", 23601},
    {"bfq_sw_short_ttime",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 0 --set bfq_sw_short_ttime=1 */
     "; vsim: seed=0x1050eb558c64fe5 dev.seed=0x65b1fc97ee0147\n"
     "[global] device_model=hdd runtime=100ms bfq_version=4.12\n"
     "[job0] rw=read bs=4096 iodepth=1 direct=1 numjobs=16 prioclass=3 prio=7\n"
     "[job6] rw=randwrite bs=4096 iodepth=1 direct=1\n",
     "job16 C WS 104947376 + 8", 62010, "job0 D RS 8 + 8", 61961},
    {"bfq_sw_ttime_half_slice",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 2 --set bfq_sw_ttime_half_slice=1 */
     "; vsim: seed=0x9a763f3670ba38d1 dev.seed=0x64680d29e4d282\n"
     "[global] device_model=hdd runtime=300ms bfq_version=4.12\n"
     "[job2] rw=randread bs=4096 iodepth=1 direct=1 numjobs=16\n",
     "job6 C RS 1090128104 + 8", 88118, "job0 D RS 1209160512 + 8", 77664},
    {"bfq_sw_better_to_idle",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 0 --set bfq_sw_better_to_idle=1 */
     "; vsim: seed=0x1050eb558c64fe5 dev.seed=0x65b1fc97ee0147\n"
     "[global] device_model=hdd runtime=100ms bfq_version=4.12\n"
     "[job0] rw=randread bs=4096 iodepth=1 direct=1 numjobs=16 prioclass=3 prio=7\n",
     "job2 I RS 731899576 + 8", 0, "job1 D RS 724217288 + 8", 0},
    {"bfq_sw_flash_noqueue_idling",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 34 --set bfq_sw_flash_noqueue_idling=1 */
     "; vsim: seed=0xa3b059d04e1dd38b dev.seed=0x77e9724de2d46f\n"
     "[global] device_model=ssd runtime=500ms hw_queue_depth=2 bfq_version=4.12\n"
     "[job4] rw=randwrite bs=4096 iodepth=1 direct=1 numjobs=8\n",
     "job2 C WS 442102496 + 8", 34354, "job4 D WS 234995080 + 8", 34287},
    {"bfq_sw_keep_plugged",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 116 --set bfq_sw_keep_plugged=1 */
     "; vsim: seed=0x7ff4ca4c14ef7047 dev.seed=0x27f64fdf60b9b\n"
     "[global] device_model=ssd runtime=100ms hw_queue_depth=4 max_budget=1 timeout_sync=1 "
     "bfq_version=4.12\n"
     "[job0] rw=read bs=4096 iodepth=1 direct=1 sched_group=g2 sched_weight=100 "
     "startdelay=5ms\n"
     "[job1] rw=read bs=4096 iodepth=1 direct=1 numjobs=32 sched_group=g2 sched_weight=100\n",
     "job11 D RS 384 + 8", 96042, "job15 D RS 400 + 8", 96042},
    {"bfq_sw_completion_dispatch",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 72 --set bfq_sw_completion_dispatch=1 */
     "; vsim: seed=0xcac90df2ab64b3c3 dev.seed=0xd97db3c2704248\n"
     "[global] device_model=ssd runtime=100ms strict_guarantees=1 bfq_version=4.12\n"
     "[job1] rw=write bs=4096 iodepth=1 direct=1 numjobs=3 thinktime=50\n",
     "job0 I WS 8 + 8", 168, "job2 D WS 0 + 8", 128},
    {"bfq_sw_io_intensity",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 0 --set bfq_sw_io_intensity=1 */
     "; vsim: seed=0x1050eb558c64fe5 dev.seed=0x65b1fc97ee0147\n"
     "[global] device_model=hdd runtime=100ms bfq_version=4.12\n"
     "[job0] rw=read bs=4096 iodepth=1 direct=1 numjobs=16\n",
     "job10 I RS 0 + 8", 0, "job8 D RS 0 + 8", 0},
    {"bfq_sw_nis_lookup",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 2 --set bfq_sw_nis_lookup=1 */
     "; vsim: seed=0x9a763f3670ba38d1 dev.seed=0x64680d29e4d282\n"
     "[global] device_model=hdd runtime=300ms bfq_version=4.12\n"
     "[job0] rw=randread bs=4096 iodepth=1 direct=1\n"
     "[job2] rw=randrw bs=8192 iodepth=1 direct=1 rwmixread=10 numjobs=16\n",
     "job0 D RS 1209160512 + 8", 120107, "job1 D WS 810615344 + 16", 120107},
    {"bfq_sw_nis_class_lookup",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 0 --set bfq_sw_nis_class_lookup=1 */
     "; vsim: seed=0x1050eb558c64fe5 dev.seed=0x65b1fc97ee0147\n"
     "[global] device_model=hdd runtime=100ms bfq_version=4.12\n"
     "[job2] rw=randread bs=16384 iodepth=32 direct=1\n"
     "[job3] rw=randread bs=4096 iodepth=1 direct=1 prioclass=3 prio=0\n",
     "job0 D RS 1068804928 + 32", 14980, "job1 D RS 724217288 + 8", 14980},
    {"bfq_sw_vtime_expiration",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 13 --set bfq_sw_vtime_expiration=1 */
     "; vsim: seed=0xb84a00f7408c134d dev.seed=0xa43ffe70a240d9\n"
     "[global] device_model=cloud-ssd runtime=200ms bfq_version=4.12\n"
     "[job0] rw=write bs=1048576 iodepth=8 direct=1 numjobs=16\n"
     "[job1] rw=randrw bs=4096 iodepth=16 direct=1 rwmixread=70 fsync=16 sched_group=g2 "
     "sched_weight=100\n",
     "job16 D RS 884631552 + 8", 156208, "job7 D WS 100352 + 2048", 156208},
    {"bfq_sw_deact_in_service",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 1 --set bfq_sw_deact_in_service=1 */
     "; vsim: seed=0xa52ea052b1d1072b dev.seed=0xc3317241eaf573\n"
     "[global] device_model=ssd runtime=100ms bfq_version=4.12\n"
     "[job0] rw=randread bs=4096 iodepth=1 direct=1 startdelay=5ms\n"
     "[job1] rw=randwrite bs=4096 iodepth=1 direct=0 sched_group=g1 sched_weight=100\n",
     "job0 D RS 217759152 + 8", 5000, "job1 C W 17957728 + 8", 5102},
    {"bfq_sw_service_at_expiration",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 13 --set bfq_sw_service_at_expiration=1
      */
     "; vsim: seed=0xb84a00f7408c134d dev.seed=0xa43ffe70a240d9\n"
     "[global] device_model=cloud-ssd runtime=200ms bfq_version=4.12\n"
     "[job0] rw=write bs=1048576 iodepth=1 direct=0\n"
     "[job1] rw=randread bs=4096 iodepth=1 direct=1\n",
     "job1 D RS 776852136 + 8", 138317, "job0 D W 2048 + 2048", 138317},
    {"bfq_sw_charge_deactivated",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 13 --set bfq_sw_charge_deactivated=1 */
     "; vsim: seed=0xb84a00f7408c134d dev.seed=0xa43ffe70a240d9\n"
     "[global] device_model=cloud-ssd runtime=200ms bfq_version=4.12\n"
     "[job0] rw=write bs=1048576 iodepth=8 direct=1 numjobs=16\n"
     "[job1] rw=randrw bs=4096 iodepth=16 direct=1 rwmixread=70 fsync=16 sched_group=g2 "
     "sched_weight=100\n",
     "job16 D RS 884631552 + 8", 156208, "job7 D WS 100352 + 2048", 156208},
    {"bfq_sw_seeky_thr",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 27 --set bfq_sw_seeky_thr=1 */
     "; vsim: seed=0xc1348d9b380239d3 dev.seed=0x5946dd61f23df3\n"
     "[global] device_model=ssd runtime=500ms bfq_version=4.12\n"
     "[job1] rw=randread bs=4096 iodepth=1 direct=1 numjobs=8 offset=17234395136 "
     "size=1048576 offset_increment=1048576\n",
     "job7 I RS 33675912 + 8", 0, "job6 D RS 33673608 + 8", 0},
    {"bfq_sw_hw_tag_thr",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 38 --set bfq_sw_hw_tag_thr=1 */
     "; vsim: seed=0x37637a56547bf943 dev.seed=0x465e8e96ba7bb8\n"
     "[global] device_model=cloud-ssd runtime=500ms nr_requests=4 bfq_version=4.12\n"
     "[job0] rw=randwrite bs=4096 iodepth=1 direct=0\n"
     "[job1] rw=randread bs=4096 iodepth=1 direct=1\n"
     "[job2] rw=rw bs=4096 iodepth=1 direct=1 rwmixread=30\n"
     "[job3] rw=read bs=16384 iodepth=4 direct=1\n",
     "job3 C RS 1984 + 32", 145855, "job0 D W 231531408 + 8", 144913},
    {"bfq_sw_hw_tag_short_ttime",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 34 --set bfq_sw_hw_tag_short_ttime=1 */
     "; vsim: seed=0xa3b059d04e1dd38b dev.seed=0x77e9724de2d46f\n"
     "[global] device_model=ssd runtime=500ms hw_queue_depth=2 bfq_version=4.12\n"
     "[job4] rw=randwrite bs=4096 iodepth=1 direct=1 numjobs=8\n",
     "job2 C WS 442102496 + 8", 34354, "job4 D WS 234995080 + 8", 34287},
    {"bfq_sw_write_overcharge",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 0 --set bfq_sw_write_overcharge=1 */
     "; vsim: seed=0x1050eb558c64fe5 dev.seed=0x65b1fc97ee0147\n"
     "[global] device_model=hdd runtime=100ms bfq_version=4.12\n"
     "[job2] rw=randwrite bs=16384 iodepth=32 direct=0\n"
     "[job3] rw=randread bs=4096 iodepth=1 direct=1 numjobs=2 prioclass=3 prio=0\n"
     "[job4] rw=randread bs=4096 iodepth=4 direct=1\n"
     "[job5] rw=randread bs=4096 iodepth=1 direct=1\n"
     "[job6] rw=randread bs=4096 iodepth=32 direct=1 numjobs=4 startdelay=50ms\n",
     "job5 D RS 531649960 + 8", 50089, "job0 D W 352994624 + 32", 50089},
    {"bfq_sw_asym_write_charge",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 0 --set bfq_sw_asym_write_charge=1 */
     "; vsim: seed=0x1050eb558c64fe5 dev.seed=0x65b1fc97ee0147\n"
     "[global] device_model=hdd runtime=100ms bfq_version=4.12\n"
     "[job2] rw=randwrite bs=4096 iodepth=32 direct=0\n"
     "[job3] rw=randread bs=4096 iodepth=1 direct=1 numjobs=2 prioclass=3 prio=0 "
     "startdelay=5ms\n"
     "[job4] rw=randwrite bs=4096 iodepth=1 direct=1\n"
     "[job5] rw=randread bs=4096 iodepth=1 direct=1 prioclass=1 prio=7\n"
     "[job6] rw=randwrite bs=4096 iodepth=32 direct=1 numjobs=4 startdelay=50ms\n",
     "job5 D WS 1004062736 + 8", 89679, "job3 D WS 800157624 + 8", 89679},
    {"bfq_sw_no_merge_flash_queueing",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 1 --set bfq_sw_no_merge_flash_queueing=1
      */
     "; vsim: seed=0xa52ea052b1d1072b dev.seed=0xc3317241eaf573\n"
     "[global] device_model=ssd runtime=100ms bfq_version=4.12\n"
     "[job2] rw=read bs=4096 iodepth=1 direct=1 numjobs=32\n",
     "job2 D RS 0 + 8", 0, "job3 I RS 0 + 8", 0},
    {"bfq_sw_merge_time_limit",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 57 --set bfq_sw_merge_time_limit=1 */
     "; vsim: seed=0x9f8a7032a3109851 dev.seed=0x2731e7bbfc98da\n"
     "[global] device_model=ssd runtime=300ms hw_queue_depth=16 max_budget=1 "
     "bfq_version=4.12\n"
     "[job2] rw=randread bs=4096 iodepth=1 direct=1\n"
     "[job3] rw=write bs=4096 iodepth=1 direct=1 numjobs=8\n"
     "[job4] rw=read bs=4096 iodepth=2 direct=1 numjobs=8 offset=97852063744 size=1048576 "
     "offset_increment=1048576\n"
     "[job5] rw=randread bs=4096 iodepth=1 direct=1\n",
     "job11 D RS 191123208 + 8", 108082, "job10 D RS 191121200 + 8", 108082},
    {"bfq_sw_pos_tree_on_removal",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 49 --set bfq_sw_pos_tree_on_removal=1 */
     "; vsim: seed=0x9b9530f35e4c0971 dev.seed=0x56dc5b22825ea6\n"
     "[global] device_model=ssd runtime=300ms bfq_version=4.12\n"
     "[job0] rw=randread bs=4096 iodepth=16 direct=1 numjobs=8 offset=95859769344 "
     "size=1048576 offset_increment=1048576\n"
     "[job2] rw=randread bs=4096 iodepth=1 direct=1\n",
     "job1 D RS 187229920 + 8", 6308, "job0 D RS 187227864 + 8", 6308},
    {"bfq_sw_idle_smallest_weight",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 34 --set bfq_sw_idle_smallest_weight=1 */
     "; vsim: seed=0xa3b059d04e1dd38b dev.seed=0x77e9724de2d46f\n"
     "[global] device_model=ssd runtime=500ms hw_queue_depth=2 low_latency=0 "
     "bfq_version=4.12\n"
     "[job3] rw=randread bs=4096 iodepth=1 direct=1 prioclass=1 prio=0 sched_group=g1 "
     "sched_weight=100\n"
     "[job4] rw=randread bs=4096 iodepth=1 direct=1\n",
     "job1 C RS 28553720 + 8", 124283, "job0 D RS 201062152 + 8", 124080},
    {"bfq_sw_asym_groups",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 34 --set bfq_sw_asym_groups=1 */
     "; vsim: seed=0xa3b059d04e1dd38b dev.seed=0x77e9724de2d46f\n"
     "[global] device_model=ssd runtime=500ms low_latency=0 bfq_version=4.12\n"
     "[job2] rw=randread bs=4096 iodepth=1 direct=1 sched_group=g1 sched_weight=100\n"
     "[job4] rw=randread bs=4096 iodepth=1 direct=1\n",
     "job1 D RS 28553720 + 8", 0, "job0 C RS 67296072 + 8", 196},
    {"bfq_sw_burst_no_active",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 6 --set bfq_sw_burst_no_active=1 */
     "; vsim: seed=0xb16834fd009a7757 dev.seed=0x1fcb8ea6133bf3\n"
     "[global] device_model=hdd runtime=200ms bfq_version=4.12\n"
     "[job1] rw=randread bs=4096 iodepth=1 direct=1 sched_group=g3 sched_weight=100\n"
     "[job3] rw=randread bs=4096 iodepth=16 direct=1 numjobs=8\n",
     "job4 D RS 391466480 + 8", 20330, "job2 C RS 494727936 + 8", 29351},
    {"bfq_sw_early_merge_wr",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 38 --set bfq_sw_early_merge_wr=1 */
     "; vsim: seed=0x37637a56547bf943 dev.seed=0x465e8e96ba7bb8\n"
     "[global] device_model=cloud-ssd runtime=500ms bfq_version=4.12\n"
     "[job1] rw=randread bs=4096 iodepth=1 direct=1 thinktime=10000\n"
     "[job2] rw=rw bs=4096 iodepth=1 direct=1 rwmixread=30\n"
     "[job3] rw=read bs=4096 iodepth=4 direct=1\n",
     "job1 D WS 1432 + 8", 230982, "job2 C RS 1648 + 8", 231916},
    {"bfq_sw_softrt_past_io",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 31 --set bfq_sw_softrt_past_io=1 */
     "; vsim: seed=0x89155823f9be07bf dev.seed=0xd331a8f4d23bf5\n"
     "[global] device_model=cloud-ssd runtime=500ms timeout_sync=31 bfq_version=4.12\n"
     "[job0] rw=randread bs=4096 iodepth=2 direct=1 sched_group=g3 sched_weight=100 "
     "startdelay=20ms\n"
     "[job1] rw=randrw bs=4096 iodepth=1 direct=0 rwmixread=10\n",
     "job0 D RS 281343560 + 8", 320793, "job1 D W 418084936 + 8", 320793},
    {"bfq_sw_softrt_filter",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 47 --set bfq_sw_softrt_filter=1 */
     "; vsim: seed=0x10254f4f366b45ff dev.seed=0x5ab473d8e9fc99\n"
     "[global] device_model=hdd runtime=500ms bfq_version=4.12\n"
     "[job0] rw=randwrite bs=4096 iodepth=1 direct=1 fsync=16 prioclass=3 prio=0\n"
     "[job1] rw=write bs=4096 iodepth=1 direct=0 numjobs=4 sched_group=g1 "
     "sched_weight=1000\n"
     "[job2] rw=randread bs=4096 iodepth=1 direct=1 numjobs=2 startdelay=50ms\n",
     "job1 D W 8160 + 8", 221640, "job5 C RS 1212678528 + 8", 236720},
    {"bfq_sw_idle_proc_refs",
     /* oracle --variant bfq_4_12 --seed 1 --stream 63 --set bfq_sw_idle_proc_refs=1 */
     "; vsim: seed=0xbe2b0688265d7755 dev.seed=0xea860cc4ce6b27\n"
     "[global] device_model=hdd runtime=300ms nr_requests=32 bfq_version=4.12\n"
     "[job2] rw=read bs=4096 iodepth=16 direct=1\n"
     "[job3] rw=rw bs=4096 iodepth=1 direct=1 rwmixread=90\n"
     "[job4] rw=rw bs=4096 iodepth=1 direct=1 rwmixread=10\n"
     "[job5] rw=rw bs=4096 iodepth=32 direct=1 rwmixread=70 startdelay=20ms\n"
     "[job6] rw=write bs=4096 iodepth=1 direct=0 prioclass=1 prio=1\n",
     "job4 C W 56 + 8", 251933, "job2 D WS 448 + 8", 251884},
    {"bfq_sw_charge_time_bounded",
     /* oracle --variant bfq_4_12 --seed 1 --stream 87 --set bfq_sw_charge_time_bounded=1 */
     "; vsim: seed=0x331a88096bfb90e7 dev.seed=0xf29713af347f5b\n"
     "[global] device_model=hdd runtime=300ms bfq_version=4.12\n"
     "[job1] rw=randwrite bs=4096 iodepth=1 direct=1\n"
     "[job2] rw=randread bs=4096 iodepth=1 direct=1 numjobs=8 offset=288825016320 "
     "size=1048576 offset_increment=1048576\n",
     "job0 D WS 623573536 + 8", 154434, "job4 D RS 564118872 + 8", 154434},
    {"bfq_sw_asym_classes",
     /* oracle --variant bfq_4_12 --seed 1 --stream 177 --set bfq_sw_asym_classes=1 */
     "; vsim: seed=0x58210161f63bd7cd dev.seed=0x2c0102f645ed76\n"
     "[global] device_model=cloud-ssd runtime=200ms low_latency=0 bfq_version=4.12\n"
     "[job0] rw=randread bs=4096 iodepth=1 direct=1 prioclass=1 prio=4\n"
     "[job1] rw=randread bs=4096 iodepth=1 direct=1\n",
     "job1 D RS 750198160 + 8", 0, "job0 C RS 467370432 + 8", 1107},
    {"bfq_sw_merge_chain",
     /* oracle --variant bfq_4_12 --seed 1 --stream 34 --set bfq_sw_merge_chain=1 */
     "; vsim: seed=0xefc328b61d70c87d dev.seed=0x935b0f1b1838ae\n"
     "[global] device_model=hdd runtime=100ms bfq_version=4.12\n"
     "[job0] rw=read bs=4096 iodepth=1 direct=1 numjobs=16\n",
     "job14 C RS 8 + 8", 21013, "job3 D RS 8 + 8", 20979},
    {"bfq_sw_softrt_seeky",
     /* oracle --variant bfq_4_12 --seed 2 --stream 734 --set bfq_sw_softrt_seeky=1 */
     "; vsim: seed=0x248745b2059072fd dev.seed=0xa4d9d06a11af99\n"
     "[global] device_model=cloud-ssd runtime=500ms bfq_version=4.12\n"
     "[job3] rw=randrw bs=4096 iodepth=1 direct=0 rwmixread=90\n"
     "[job5] rw=rw bs=4096 iodepth=1 direct=0 rwmixread=50\n"
     "[job7] rw=randread bs=4096 iodepth=1 direct=1 sched_group=g2 sched_weight=100\n",
     "job0 D RS 167316024 + 8", 408171, "job2 C RS 44483792 + 8", 408231},
    {"bfq_sw_rate_seq_size",
     /* oracle --variant bfq_4_12 --seed 1 --stream 1129 --set bfq_sw_rate_seq_size=1: 1 MiB
      * reads far apart count as sequential samples only with the switch, the peak rate (and
      * the maximum budget, 5546 sectors in 4.12 against 6808) differs from 433.423 ms */
     "; vsim: seed=0x2fc93aabb443f95d dev.seed=0x703e01cc9337c2\n"
     "[global] device_model=cloud-ssd runtime=500ms bfq_version=4.12\n"
     "[job0] rw=read bs=4096 iodepth=4 direct=1 sched_group=g1 sched_weight=100\n"
     "[job1] rw=randread bs=4096 iodepth=1 direct=1 numjobs=2 thinktime=200 startdelay=1ms\n"
     "[job2] rw=randread bs=1048576 iodepth=4 direct=1 numjobs=32 sched_group=g1 "
     "sched_weight=100\n"
     "[job3] rw=randread bs=4096 iodepth=4 direct=1 sched_group=g1 sched_weight=100 "
     "offset=31353470976 size=1048576 offset_increment=1048576\n"
     "[job5] rw=read bs=262144 iodepth=1 direct=1\n",
     "job32 D RS 821237760 + 2048", 480170, "job7 D RS 164616192 + 2048", 480170},
    {"bfq_sw_split_weight",
     /* oracle --variant bfq_4_12 --seed 1 --stream 677 --set bfq_sw_split_weight=1 */
     "; vsim: seed=0x61a448888e89f0b5 dev.seed=0x9f2a8091cafb76\n"
     "[global] device_model=ssd runtime=500ms bfq_version=4.12\n"
     "[job0] rw=read bs=4096 iodepth=8 direct=1\n"
     "[job1] rw=read bs=4096 iodepth=1 direct=1 prioclass=2 prio=7\n",
     "job1 D RS 5808 + 8", 284136, "job0 D RS 30592 + 8", 284136},
    {"bfq_sw_merge_in_serv_pos",
     /* oracle --variant bfq_6_12 --seed 1 --stream 609 --set bfq_sw_merge_in_serv_pos=0: the
      * 6.12 side (on = the kernel file). 4.12 never shows it: with no injection the drive's
      * last dispatch is always the in-service queue's, so both positions are one sector. */
     "; vsim: seed=0x664e38b29c90e6c7 dev.seed=0xd1ee68a6e719a9\n"
     "[global] device_model=hdd runtime=200ms bfq_version=6.12\n"
     "[job0] rw=write bs=131072 iodepth=1 direct=1 thinktime=10000 startdelay=20ms\n"
     "[job1] rw=read bs=131072 iodepth=16 direct=1\n",
     "job1 D RS 17408 + 256", 62696, "job1 C RS 13568 + 256", 63788},
    {"bfq_sw_split_wr_busy",
     /* oracle --variant bfq_4_12 --seed 1 --stream 121 --set bfq_sw_split_wr_busy=1 */
     "; vsim: seed=0x5beb92ade41435fd dev.seed=0x8b34f1cfdbea8f\n"
     "[global] device_model=cloud-ssd runtime=200ms hw_queue_depth=4 "
     "bfq_version=4.12\n"
     "[job0] rw=randread bs=4096 iodepth=1 direct=1\n"
     "[job1] rw=rw bs=1048576 iodepth=8 direct=0 rwmixread=70 sched_group=g1 "
     "sched_weight=100\n"
     "[job2] rw=rw bs=4096 iodepth=1 direct=1 rwmixread=30 numjobs=4 sched_group=g1 "
     "sched_weight=100\n",
     "job5 D WS 24 + 8", 82331, "job2 C RS 24 + 8", 83430},
    {"bfq_sw_requests_merged",
     /* oracle --variant bfq_4_12 --seed 20261207 --stream 159 --nomerges 0
      * --set bfq_sw_requests_merged=1: at 415 us a back merge takes the request after it,
      * bfq1S's next request; 4.12 removes that one (bfq_find_next_rq(): 856 + 32 follows),
      * the switch gives its place to the grown request (864 + 8 is dispatched first) */
     "; vsim: seed=0x4f6d66fd4a58f67b dev.seed=0x8a92aed2e5348\n"
     "[global] device_model=hdd runtime=300ms nomerges=0 bfq_version=4.12\n"
     "[job0] rw=write bs=4096 iodepth=32 direct=1 numjobs=4\n"
     "[job2] rw=rw bs=4096 iodepth=2 direct=1 rwmixread=10\n",
     "job3 D WS 856 + 32", 415, "job0 D WS 864 + 8", 415},
};
/* END switch cases */

/*
 * The project's rule: every switch is tested in both positions. A switch passes with a case in
 * switch_cases[] (replayed both ways against the kernel files' decisions) or a mechanism test
 * named in bfq_switch_tests.h (test_bfq.c checks that it runs). Every name in either table is a
 * switch, and no switch is in both.
 */
static void test_every_switch_has_a_case(void **state)
{
	enum { NS = sizeof(switch_cases) / sizeof(switch_cases[0]) };
	int missing = 0;

	(void)state;
	for (int i = 0; i < BFQ_SW_NR; i++) {
		const char *name = bfq_switch_name((enum bfq_switch)i);
		int cases = 0, tests = 0;

		for (size_t k = 0; k < NS; k++)
			cases += !strcmp(switch_cases[k].sw, name);
		for (size_t k = 0; k < BFQ_SWITCH_TESTS_NR; k++)
			tests += !strcmp(bfq_switch_tests[k].sw, name);
		if (!cases && !tests) {
			print_error("%s: no switch case and no test in bfq_switch_tests.h\n", name);
			missing++;
		}
		if (cases && tests) {
			print_error("%s: a switch case and bfq_switch_tests.h both\n", name);
			missing++;
		}
	}
	for (size_t k = 0; k < NS + BFQ_SWITCH_TESTS_NR; k++) {
		const char *sw = k < NS ? switch_cases[k].sw : bfq_switch_tests[k - NS].sw;
		int known = 0;

		for (int i = 0; i < BFQ_SW_NR; i++)
			known += !strcmp(sw, bfq_switch_name((enum bfq_switch)i));
		if (!known) {
			print_error("%s: no such switch\n", sw);
			missing++;
		}
	}
	assert_int_equal(missing, 0);
}

/* ---- process exits: vsim ends a clone's process (blk_owner_exit, the kernel's exit_icq) ---- */

/*
 * Streams of seed 1 (the 10,000-stream campaign after de577d2) in which a process exits while
 * others go on. bfq_exit_bfqq() expires the exiting queue if it is in service and calls
 * bfq_schedule_dispatch(): blk_mq_run_hw_queues(q, true), one kblockd run, which here is the
 * run the block layer makes after every exit (vsim, the engine's domain; the port asks for
 * none). The shim's k_entity_exit left that request pending (oracle_rt's run flag), and the
 * next completion returned it: a phantom kblockd run 10 us after that completion, in which the
 * kernel file dispatched ("kernel-first"; with strict_guarantees=1 or an idling queue the port
 * waits for the next request) or went on where the port had nothing more to do ("missing",
 * bfq_6_12 stream 5599). The shim now takes the run at the exit (oracle/shim/adapt/mq.c), and
 * the kernel file's trace is the port's: each case is the oracle's minimised reproducer, the
 * block event after which the two parted (`after`, at its time in us), the event that follows
 * it in both now (`next`; NULL: the run ends there), and the phantom run's event the kernel
 * file had there before the fix. The oracle's side of the check: tests/integration/test_oracle.sh.
 */
struct exit_case {
	unsigned int stream;
	const char *job; /* the reproducer, as the oracle printed it */
	const char *after;
	uint64_t after_us;
	const char *next;
	uint64_t next_us;
	const char *phantom; /* the kernel file's event in the shim's extra run, before the fix */
	uint64_t phantom_us;
};

/* A time in us as the oracle prints it (%.6f s). */
static uint64_t printed_us(uint64_t ns)
{
	return (ns + 500) / 1000;
}

/*
 * Replays a minimised stream's job file on the port and finds the first block event after the
 * line "after" at after_us (the moment the kernel's run and the port's parted). Fails, naming
 * what, when the stream no longer gets there. Returns the replay (replay_done()) and the
 * index of that next block event in *next (r->n: the run ends there).
 */
static struct replay *replay_to(const char *job, const char *after, uint64_t after_us,
				const char *what, uint32_t *next)
{
	struct replay *r = calloc(1, sizeof(*r));
	uint32_t i;

	assert_non_null(r);
	replay_jobfile(r, SCHED_POLICY_BFQ, job, NULL);
	replay_go(r);
	for (i = 0; i < r->n; i++)
		if (printed_us(r->ns[i]) == after_us && !strcmp(r->line[i], after))
			break;
	if (i == r->n)
		fail_msg("%s: no \"%s\" at %" PRIu64 " us: the stream no longer gets there", what,
			 after, after_us);
	for (i++; i < r->n && !replay_is_block(r->line[i]); i++)
		;
	*next = i;
	return r;
}

static void replay_done(struct replay *r)
{
	replay_free(r);
	free(r);
}

static void exit_case_check(const struct exit_case *c)
{
	char what[32];
	uint32_t i;
	struct replay *r;

	snprintf(what, sizeof(what), "stream %u", c->stream);
	r = replay_to(c->job, c->after, c->after_us, what, &i);
	if (!c->next && i < r->n)
		fail_msg("stream %u: after \"%s\": \"%s\" at %" PRIu64 " ns, the kernel's run ends "
			 "there",
			 c->stream, c->after, r->line[i], r->ns[i]);
	if (c->next &&
	    (i == r->n || printed_us(r->ns[i]) != c->next_us || strcmp(r->line[i], c->next)))
		fail_msg("stream %u: after \"%s\": \"%s\" at %" PRIu64 " ns; the kernel's: "
			 "\"%s\" at %" PRIu64 " us (not \"%s\" at %" PRIu64 " us, a phantom run)",
			 c->stream, c->after, i < r->n ? r->line[i] : "nothing",
			 i < r->n ? r->ns[i] : 0, c->next, c->next_us, c->phantom, c->phantom_us);
	replay_done(r);
}

static const struct exit_case exit_cases_412[] = {
    {2162, /* oracle --variant bfq_4_12 --seed 1 --stream 2162, minimised */
     "; vsim: seed=0x241e7cc1a306d7a1 dev.seed=0x4d5301e6e86001\n"
     "[global] device_model=hdd runtime=100ms max_budget=1 strict_guarantees=1 "
     "bfq_version=4.12\n"
     "[job1] rw=randread bs=65536 iodepth=1 direct=1 numjobs=8 thinktime=50 "
     "offset=425801547776 size=1048576 offset_increment=1048576\n"
     "[job2] rw=read bs=4096 iodepth=1 direct=1 number_ios=4\n",
     "job0 C RS 831644544 + 128", 72844, "job0 I RS 831645056 + 128", 72894,
     "job1 D RS 831646720 + 128", 72854},
    {3206, /* oracle --variant bfq_4_12 --seed 1 --stream 3206, minimised */
     "; vsim: seed=0x4a43eb062137d82f dev.seed=0xf25da443a4fcaf\n"
     "[global] device_model=hdd runtime=300ms strict_guarantees=1 bfq_version=4.12\n"
     "[job0] rw=write bs=4096 iodepth=1 direct=1 numjobs=32 thinktime=1000 "
     "number_ios=32\n",
     "job31 C WS 8 + 8", 71065, "job31 I WS 16 + 8", 72065, "job30 D WS 8 + 8", 71075},
    {5164, /* oracle --variant bfq_4_12 --seed 1 --stream 5164, minimised */
     "; vsim: seed=0xdf9a697cf7061689 dev.seed=0xa81f997710bb3\n"
     "[global] device_model=ssd runtime=500ms strict_guarantees=1 bfq_version=4.12\n"
     "[job0] rw=rw bs=4096 iodepth=1 direct=1 rwmixread=70 thinktime=5000\n"
     "[job1] rw=rw bs=4096 iodepth=1 direct=1 rwmixread=10 numjobs=16 number_ios=1\n",
     "job0 C RS 8 + 8", 5444, "job0 I RS 16 + 8", 10444, "job1 D WS 0 + 8", 5454},
    {7072, /* oracle --variant bfq_4_12 --seed 1 --stream 7072, minimised */
     "; vsim: seed=0xf82eb27cc74e74c1 dev.seed=0xaf358f4c761d11\n"
     "[global] device_model=cloud-ssd runtime=500ms strict_guarantees=1 "
     "bfq_version=4.12\n"
     "[job0] rw=rw bs=4096 iodepth=1 direct=1 rwmixread=70 thinktime=20000 "
     "startdelay=50ms\n"
     "[job1] rw=randread bs=4096 iodepth=1 direct=1\n"
     "[job2] rw=rw bs=4096 iodepth=1 direct=1 rwmixread=70 fsync=4\n"
     "[job3] rw=randread bs=4096 iodepth=1 direct=1\n"
     "[job4] rw=read bs=4096 iodepth=1 direct=1 numjobs=3 number_ios=1\n",
     "job0 C RS 0 + 8", 301830, "job0 I RS 8 + 8", 321830, "job2 D RS 144 + 8", 301840},
    {7973, /* oracle --variant bfq_4_12 --seed 1 --stream 7973, minimised */
     "; vsim: seed=0x2fc0c2ceab03f311 dev.seed=0x5a14a18322f800\n"
     "[global] device_model=ssd runtime=500ms strict_guarantees=1 bfq_version=4.12\n"
     "[job0] rw=randwrite bs=4096 iodepth=1 direct=0 thinktime=50 prioclass=3 prio=6\n"
     "[job1] rw=randrw bs=4096 iodepth=1 direct=0 rwmixread=90 prioclass=3 prio=3\n"
     "[job2] rw=randrw bs=4096 iodepth=1 direct=0 rwmixread=10 prioclass=3 prio=1 "
     "number_ios=1\n",
     "job0 C W 432550504 + 8", 600, "job0 I W 233124176 + 8", 650, "job1 D W 49240696 + 8", 610},
    {9171, /* oracle --variant bfq_4_12 --seed 1 --stream 9171, minimised */
     "; vsim: seed=0x1b4e55ce307027cb dev.seed=0x5d59c65d1a5ee0\n"
     "[global] device_model=hdd runtime=500ms strict_guarantees=1 bfq_version=4.12\n"
     "[job0] rw=rw bs=4096 iodepth=1 direct=1 rwmixread=30 numjobs=4 thinktime=5000 "
     "sched_group=g2 sched_weight=100\n"
     "[job1] rw=write bs=4096 iodepth=1 direct=1 number_ios=256\n"
     "[job2] rw=read bs=4096 iodepth=1 direct=1 sched_group=g2 sched_weight=100\n",
     "job0 C WS 8 + 8", 48568, "job0 I RS 16 + 8", 53568, "job2 D WS 8 + 8", 48578},
};

static const struct exit_case exit_cases_612[] = {
    {2877, /* oracle --variant bfq_6_12 --seed 1 --stream 2877, minimised */
     "; vsim: seed=0x9c2dc47c5cf75835 dev.seed=0x51850ce0c106c8\n"
     "[global] device_model=cloud-ssd runtime=500ms bfq_version=6.12\n"
     "[job0] rw=randread bs=1048576 iodepth=1 direct=1 thinktime=20000\n"
     "[job1] rw=randrw bs=4096 iodepth=1 direct=0 rwmixread=70 numjobs=4\n"
     "[job2] rw=rw bs=4096 iodepth=1 direct=0 rwmixread=30\n"
     "[job3] rw=randread bs=16384 iodepth=1 direct=1 thinktime=1000\n"
     "[job4] rw=randwrite bs=4096 iodepth=1 direct=1 numjobs=16 prioclass=2 prio=1 "
     "number_ios=4 offset=176744824832 size=1048576 offset_increment=1048576\n"
     "[job5] rw=read bs=262144 iodepth=1 direct=1 numjobs=8\n",
     "job6 C RS 794378784 + 32", 83242, "job6 I RS 607491104 + 32", 84242, "job27 D RS 512 + 512",
     83246},
    {4398, /* oracle --variant bfq_6_12 --seed 1 --stream 4398, minimised */
     "; vsim: seed=0xdc308447b74ab56f dev.seed=0x864830cb257a65\n"
     "[global] device_model=hdd runtime=100ms bfq_version=6.12\n"
     "[job0] rw=randrw bs=262144 iodepth=1 direct=1 rwmixread=10 prioclass=2 prio=1\n"
     "[job1] rw=read bs=4096 iodepth=1 direct=1 numjobs=8 thinktime=10000 number_ios=4 "
     "offset=295167852544 size=16777216 offset_increment=16777216\n"
     "[job2] rw=randread bs=4096 iodepth=1 direct=1 prioclass=3 prio=0\n"
     "[job5] rw=rw bs=4096 iodepth=1 direct=1 rwmixread=90 numjobs=32\n",
     "job3 C RS 576565264 + 8", 94014, "job6 I RS 576663576 + 8", 98472,
     "job0 D WS 1845520384 + 512", 94024},
    {5290, /* oracle --variant bfq_6_12 --seed 1 --stream 5290, minimised */
     "; vsim: seed=0x3dc58fd5fd627e35 dev.seed=0x7c9b28b2a88ed6\n"
     "[global] device_model=ssd runtime=100ms hw_queue_depth=16 low_latency=0 "
     "bfq_version=6.12\n"
     "[job0] rw=randread bs=4096 iodepth=16 direct=1 numjobs=16 sched_group=g1 "
     "sched_weight=100\n"
     "[job1] rw=randrw bs=4096 iodepth=1 direct=1 rwmixread=10 sched_group=g2 "
     "sched_weight=100 number_ios=256\n"
     "[job3] rw=randread bs=4096 iodepth=1 direct=1 thinktime=10000 prioclass=2 prio=1\n"
     "[job4] rw=randread bs=4096 iodepth=1 direct=1\n"
     "[job5] rw=randwrite bs=8192 iodepth=16 direct=1 numjobs=32\n"
     "[job6] rw=randread bs=4096 iodepth=1 direct=1 prioclass=2 prio=6\n",
     "job17 C RS 392798952 + 8", 79071, "job24 D WS 235611632 + 16", 87071,
     "job37 D WS 72055264 + 16", 79081},
    {5599, /* oracle --variant bfq_6_12 --seed 1 --stream 5599, minimised */
     "; vsim: seed=0x96166d2eb25b3b09 dev.seed=0xd274ff66ef43b2\n"
     "[global] device_model=hdd runtime=200ms bfq_version=6.12\n"
     "[job0] rw=read bs=4096 iodepth=1 direct=1 thinktime=10000 prioclass=1 prio=6 "
     "sched_group=g2 sched_weight=100\n"
     "[job1] rw=randread bs=4096 iodepth=1 direct=1 numjobs=32 sched_group=g2 "
     "sched_weight=100 number_ios=4\n",
     "job0 C RS 16 + 8", 197585, NULL, 0, "job3 D RS 369940736 + 8", 197595},
    {5911, /* oracle --variant bfq_6_12 --seed 1 --stream 5911, minimised */
     "; vsim: seed=0x27df8b0595fcedb5 dev.seed=0xfa414f7680b8a0\n"
     "[global] device_model=ssd runtime=200ms hw_queue_depth=8 timeout_sync=1 "
     "strict_guarantees=1 bfq_version=6.12\n"
     "[job1] rw=randrw bs=8192 iodepth=32 direct=0 rwmixread=30 numjobs=4 prioclass=2 "
     "prio=0 sched_group=g2 sched_weight=100 number_ios=32\n",
     "job0 C RS 112518272 + 16", 44041, "job1 D W 64297824 + 16", 46041, "job1 D W 64297824 + 16",
     44051},
    {6032, /* oracle --variant bfq_6_12 --seed 1 --stream 6032, minimised */
     "; vsim: seed=0xccf83eb142c79295 dev.seed=0x6cd9ffe46c4d8\n"
     "[global] device_model=hdd runtime=200ms bfq_version=6.12\n"
     "[job0] rw=randrw bs=4096 iodepth=2 direct=1 rwmixread=10 number_ios=32\n"
     "[job1] rw=randrw bs=4096 iodepth=1 direct=1 rwmixread=90 numjobs=8 "
     "thinktime=20000 sched_group=g1 sched_weight=100\n",
     "job4 C RS 1450407840 + 8", 46063, "job1 C RS 940100944 + 8", 55617, "job6 D RS 478716200 + 8",
     46073},
    {7413, /* oracle --variant bfq_6_12 --seed 1 --stream 7413, minimised */
     "; vsim: seed=0x822489ce58f4ded dev.seed=0x2cda4d19fac9a3\n"
     "[global] device_model=ssd runtime=500ms bfq_version=6.12\n"
     "[job1] rw=randread bs=65536 iodepth=1 direct=1 thinktime=200\n"
     "[job2] rw=randread bs=4096 iodepth=1 direct=1 prioclass=2 prio=5 number_ios=1\n"
     "[job4] rw=randread bs=4096 iodepth=1 direct=1 sched_group=g1 sched_weight=100\n",
     "job0 C RS 148183552 + 128", 77792, "job0 I RS 248055552 + 128", 77992,
     "job2 D RS 156036200 + 8", 77802},
};

/* bfq_4_12: most with strict_guarantees=1 (no dispatch while a request is in the driver). */
static void test_oracle_exit_412(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(exit_cases_412) / sizeof(exit_cases_412[0]); i++)
		exit_case_check(&exit_cases_412[i]);
}

/* bfq_6_12: most with groups; in 5599 the run ends where the phantom run went on. */
static void test_oracle_exit_612(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(exit_cases_612) / sizeof(exit_cases_612[0]); i++)
		exit_case_check(&exit_cases_612[i]);
}

/*
 * Merging on (nomerges=0): bfq_6_12 stream 22 of seed 20261207, minimised to 32 sequential
 * readers beside a random one. bfq_allow_bio_merge() merges the queues of cooperating processes
 * before it answers (bfq_setup_cooperator() with the bio's sector), and blk-mq asks it twice for
 * a bio (elv_merge()'s elv_bio_merge_ok(), then blk_mq_sched_try_merge()'s
 * blk_mq_sched_allow_merge()), so a chain of shared queues is followed one step a question. The
 * port had no early merge (a bio back-merged at 30.253 ms where the kernel file's request
 * merged into its neighbour after insertion), then asked once (at 113.792 ms the same).
 */
static void test_oracle_bio_merge_cooperators(void **state)
{
	static const char *const job =
	    "; vsim: seed=0xf2e861e24b420809 dev.seed=0xb7833076252585\n"
	    "[global] device_model=hdd runtime=300ms nomerges=0 bfq_version=6.12\n"
	    "[job0] rw=read bs=4096 iodepth=1 direct=1 numjobs=32\n"
	    "[job2] rw=randread bs=4096 iodepth=1 direct=1\n";
	struct replay *r = calloc(1, sizeof(*r));

	(void)state;
	assert_non_null(r);
	replay_jobfile(r, SCHED_POLICY_BFQ, job, NULL);
	replay_go(r);
	/* request-into-request merges ('m') where the bio alone would have back-merged ('M') */
	assert_int_equal(replay_time_of(r, "job0 m RS 24 + 8") / 1000, 30253);
	assert_int_equal(replay_time_of(r, "job0 M RS 24 + 8"), UINT64_MAX);
	assert_int_equal(replay_time_of(r, "job9 m RS 72 + 8") / 1000, 113791);
	assert_int_equal(replay_time_of(r, "job9 M RS 72 + 8"), UINT64_MAX);
	replay_free(r);
	free(r);
}

/*
 * Merging on (nomerges=0), seed 20261207 and 1: minimised streams where the port parted from the
 * kernel file at `after` (the times in us as the oracle prints them): the kernel's next block
 * event is `next`, the port's was `old` before its fix.
 */
struct merge_case {
	const char *what; /* the oracle's stream */
	const char *job;  /* the reproducer, as the oracle printed it */
	const char *after;
	uint64_t after_us;
	const char *next;
	uint64_t next_us;
	const char *old;
};

static const struct merge_case merge_cases[] = {
    /* bfq_6_12 seed 20261207 stream 1: job17's async write at 22.672 ms finds its queue over
     * its limit (bfqq_request_over_limit(): depth 1) and waits for a tag. Its earlier write
     * had been insert-merged: bfq_insert_request() had run bfq_init_rq() on it first, which
     * set the process's async queue in its bic; the port had skipped that for an insert
     * merge, found no queue in the bic and gave the full depth. */
    {"bfq_6_12 --seed 20261207 --stream 1",
     "; vsim: seed=0x56ba2f75da40859 dev.seed=0x4f37ee133a4b64\n"
     "[global] device_model=cloud-ssd runtime=200ms nomerges=0 bfq_version=6.12\n"
     "[job7] rw=rw bs=4096 iodepth=1 direct=0 rwmixread=30 numjobs=18\n",
     "job11 S W 8 + 8", 22672, "job17 S W 16 + 8", 22672, "job17 I W 16 + 8"},
    /* bfq_4_12 seed 1 stream 419: front merges took the async queue's next request to an
     * earlier sector in place; the kernel's position-tree walks compare blk_rq_pos(next_rq) as
     * it is now, the port compared the key of its last insertion, and served job3 at
     * 278.759 ms where the kernel file served job2's request. */
    {"bfq_4_12 --seed 1 --stream 419",
     "; vsim: seed=0xc7c2fbdae47fd8e1 dev.seed=0x783a38eceb3070\n"
     "[global] device_model=cloud-ssd runtime=500ms nomerges=0 bfq_version=4.12\n"
     "[job0] rw=write bs=4096 iodepth=16 direct=1 startdelay=1ms\n"
     "[job1] rw=rw bs=4096 iodepth=32 direct=0 rwmixread=90 numjobs=8\n",
     "job2 M RS 24176 + 8", 278759, "job2 D RS 24128 + 24", 278759, "job3 D RS 25120 + 8"},
    /* bfq_4_12 seed 1 stream 355: a front merge that sorts a request before its predecessor
     * makes it the queue's next request; 4.12's bfq_request_merged() moves the queue on the
     * position tree then on flash with queueing too (6.12 does not: nonrot_with_queueing), the
     * port had not, and missed the cooperator of job19's read at 160.188 ms. */
    {"bfq_4_12 --seed 1 --stream 355",
     "; vsim: seed=0x5038a3527138ef17 dev.seed=0x750deefb61b2f5\n"
     "[global] device_model=cloud-ssd runtime=300ms nomerges=0 bfq_version=4.12\n"
     "[job0] rw=rw bs=4096 iodepth=8 direct=0 rwmixread=10 numjobs=32\n"
     "[job1] rw=read bs=1048576 iodepth=4 direct=1 number_ios=4\n"
     "[job6] rw=randread bs=4096 iodepth=32 direct=1 offset=120197218304 size=16777216 "
     "offset_increment=16777216\n",
     "job2 M W 3416 + 8", 160196, "job33 D RS 234791416 + 8", 160196, "job19 D RS 3336 + 8"},
    /* bfq_6_12 seed 2 stream 121 (found once the woken sleeper no longer retried its bio
     * merge): bfqd->bfq_slice_idle is a u32, slice_idle_us=4417224 leaves 122 ms; the port
     * had wrapped it in the idle timer only, so bfq_bfqq_softrt_next_start() put bfq32S's
     * next soft real-time start 4.4 s ahead where the kernel's was 136 ms: at 182.023 ms the
     * kernel raised it soft real-time (weight 120000), the port kept it interactive (1200),
     * and job32's read then found its queue over its limit (bfqq_request_over_limit()). */
    {"bfq_6_12 --seed 2 --stream 121",
     "; vsim: seed=0x7c5984e7981716ff dev.seed=0xae55a099df83c7\n"
     "[global] device_model=cloud-ssd runtime=200ms hw_queue_depth=2 nomerges=0 "
     "slice_idle_us=4417224 bfq_version=6.12\n"
     "[job0] rw=randwrite bs=4096 iodepth=1 direct=0 numjobs=2 thinktime=50\n"
     "[job1] rw=rw bs=4096 iodepth=8 direct=1 rwmixread=70 numjobs=32\n"
     "[job2] rw=randrw bs=1048576 iodepth=1 direct=1 rwmixread=50 numjobs=2\n",
     "job32 I WS 32 + 8", 182023, "job32 I RS 40 + 8", 182025, "job32 S RS 40 + 8"},
};

static void test_oracle_merge_cases(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(merge_cases) / sizeof(merge_cases[0]); k++) {
		const struct merge_case *c = &merge_cases[k];
		uint32_t i;
		struct replay *r = replay_to(c->job, c->after, c->after_us, c->what, &i);

		if (i == r->n || printed_us(r->ns[i]) != c->next_us || strcmp(r->line[i], c->next))
			fail_msg("%s: after \"%s\": \"%s\" at %" PRIu64 " ns; the kernel's: \"%s\" "
				 "at %" PRIu64 " us (the port's before its fix: \"%s\")",
				 c->what, c->after, i < r->n ? r->line[i] : "nothing",
				 i < r->n ? r->ns[i] : 0, c->next, c->next_us, c->old);
		replay_done(r);
	}
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
	    cmocka_unit_test(test_oracle_plug_clock_idle_time),
	    cmocka_unit_test(test_oracle_budget_timeout_default),
	    cmocka_unit_test(test_oracle_timeout_sync),
	    cmocka_unit_test(test_oracle_jiffies_origin_idle_class),
	    cmocka_unit_test(test_oracle_slow_charge_slice_idle),
	    cmocka_unit_test(test_oracle_412_no_limit_depth),
	    cmocka_unit_test(test_oracle_412_raising_and_plugging),
	    cmocka_unit_test(test_oracle_idle_slice_u32),
	    cmocka_unit_test(test_oracle_exit_412),
	    cmocka_unit_test(test_oracle_exit_612),
	    cmocka_unit_test(test_oracle_bio_merge_cooperators),
	    cmocka_unit_test(test_oracle_merge_cases),
	    cmocka_unit_test(test_every_switch_has_a_case),
	};
	enum {
		NF = sizeof(fixed) / sizeof(fixed[0]),
		NS = sizeof(switch_cases) / sizeof(switch_cases[0])
	};
	struct CMUnitTest tests[NF + NS];

	memcpy(tests, fixed, sizeof(fixed));
	for (size_t i = 0; i < NS; i++)
		tests[NF + i] = (struct CMUnitTest){.name = switch_cases[i].sw,
						    .test_func = test_switch,
						    .initial_state = (void *)&switch_cases[i]};
	return _cmocka_run_group_tests("test_bfq_oracle", tests, NF + NS, NULL, NULL);
}
