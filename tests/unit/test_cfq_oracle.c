// SPDX-License-Identifier: GPL-2.0
/*
 * sched/cfq against the kernel's own cfq-iosched.c (4.19): decisions where the two parted, found
 * by the differential oracle (oracle/, variant cfq_4_19) and fixed in the port. Each test replays
 * the oracle's minimised stream (its reproducer: the job file and the vsim seeds) in virtual time
 * through vsim, the same block layer and device model the oracle runs both on, and checks the
 * decision the kernel file made where the two traces first differed. The times are the
 * simulator's: when vsim, blk/ or a device model changes, a test may need its stream found again
 * (oracle --variant cfq_4_19 --seed S --stream I prints the reproducer, seeds included).
 *
 * The cfq_sw_* switches the oracle shows have a case in switch_cases[] (support_replay.h: the
 * reproducer replayed with the switch off and on, the first block event where the two differ
 * checked against the oracle's lines).
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
#include "support.h"
#include "support_replay.h"
#include "vsim.h"

#define US 1000ull
#define MS 1000000ull

/* ---- replay and trace ---- */

struct line {
	uint64_t t;
	char *text;
};

struct trace {
	struct line *l;
	size_t n, cap;
};

static void collect(void *ctx, uint64_t now, const char *text)
{
	struct trace *tr = ctx;

	if (tr->n == tr->cap) {
		tr->cap = tr->cap ? 2 * tr->cap : 4096;
		tr->l = realloc(tr->l, tr->cap * sizeof(*tr->l));
		assert_non_null(tr->l);
	}
	tr->l[tr->n].t = now;
	tr->l[tr->n].text = strdup(text);
	assert_non_null(tr->l[tr->n++].text);
}

static void trace_free(struct trace *tr)
{
	for (size_t i = 0; i < tr->n; i++)
		free(tr->l[i].text);
	free(tr->l);
	memset(tr, 0, sizeof(*tr));
}

/* A reproducer's [global] part: cfq on a device model, the run's length and its seeds. */
static void stream_config(struct vsim_config *cfg, enum devmodel_kind kind, uint64_t runtime_ms,
			  uint64_t seed, uint64_t dev_seed)
{
	vsim_config_defaults(cfg, SCHED_POLICY_CFQ, kind);
	cfg->runtime_ns = runtime_ms * MS;
	cfg->seed = seed;
	cfg->dev.seed = dev_seed;
	cfg->sched.trace_bytes = 4u << 20;
}

static void replay(struct vsim_config *cfg, struct trace *tr)
{
	struct vsim_result res;
	char err[256] = "";

	memset(tr, 0, sizeof(*tr));
	cfg->trace_fn = collect;
	cfg->trace_ctx = tr;
	if (vsim_run(cfg, &res, err, sizeof(err))) {
		print_error("vsim_run: %s\n", err);
		fail();
	}
	vsim_result_free(&res);
}

/* The last line in [from, to) ns containing needle, or NULL. */
static const char *find_last(const struct trace *tr, uint64_t from, uint64_t to, const char *needle)
{
	const char *l = NULL;

	for (size_t i = 0; i < tr->n; i++)
		if (tr->l[i].t >= from && tr->l[i].t < to && strstr(tr->l[i].text, needle))
			l = tr->l[i].text;
	return l;
}

/* ---- the decisions ---- */

/*
 * Oracle stream 60 of seed 1 (cloud-ssd, 8 idle-class readers at depth 32). 4.19 keys an
 * idle-class queue CFQ_IDLE_DELAY after its tree's rb_rightmost, which is kept for the group
 * tree only, so after now: the port took the tree's last key (4.1's rb_last()).
 */
static void test_cfq_oracle_idle_class_key(void **state)
{
	struct vsim_config cfg;
	struct vsim_job job;
	struct trace tr;
	const char *l;

	(void)state;
	stream_config(&cfg, DEVMODEL_CLOUD_SSD, 300, 15983648359831313699ull, 10655149177936106ull);
	vsim_job_defaults(&job);
	job.name = "job1";
	job.iodepth = 32;
	job.numjobs = 8;
	job.prio_class = SCHED_IOPRIO_CLASS_IDLE;
	job.prio_level = 5;
	cfg.jobs = &job;
	cfg.nr_jobs = 1;
	replay(&cfg, &tr);
	/* The completion at 36.528 ms: the idle tree is served until the device is full; the
	 * last queue made active is cfq7, back on the tree after its dispatch (the port's cfq0
	 * had its key behind cfq7's, rb_last() + CFQ_IDLE_DELAY, from an earlier resort). */
	l = find_last(&tr, 36527 * US, 36529 * US, "set_active wl_class:2");
	assert_non_null(l);
	assert_string_equal(l, "P cfq7SN set_active wl_class:2 wl_type:0");
	trace_free(&tr);
}

/*
 * Oracle stream 38 of seed 1 (hdd; a reader at depth 8 in group 1 from 50 ms, a reader at depth
 * 1 in the root). A group's cfq_group is made with its blkg, at its cgroup's first bio
 * (cfq_pd_alloc() -> cfq_init_cfqg_base()), so its service trees' think time starts there:
 * the port made every group at init, and the group's sync tree looked as if it had thought for
 * 50 ms. At 58.141 ms the root reader's request came while cfq0 (group 1) had only requests in
 * flight: the kernel kept idling for it (cfq_should_idle(): the last queue of its tree, whose
 * think time is short); the port saw a long think time, expired it and served cfq1.
 */
static void test_cfq_oracle_group_made_at_first_bio(void **state)
{
	struct vsim_config cfg;
	struct vsim_job job[2];
	struct trace tr;

	(void)state;
	stream_config(&cfg, DEVMODEL_HDD, 500, 7264751842589077785ull, 25001919633248107ull);
	vsim_job_defaults(&job[0]);
	job[0].name = "job2";
	job[0].iodepth = 8;
	job[0].group = 1;
	job[0].startdelay_ns = 50 * MS;
	vsim_job_defaults(&job[1]);
	job[1].name = "job7";
	cfg.jobs = job;
	cfg.nr_jobs = 2;
	replay(&cfg, &tr);
	assert_non_null(find_last(&tr, 58140 * US, 58142 * US, "job1 I RS"));
	assert_null(find_last(&tr, 58140 * US, 58142 * US, "cfq0SN slice expired"));
	assert_null(find_last(&tr, 58140 * US, 58142 * US, "job1 D RS"));
	/* The group's queue goes on with its slice once its requests complete. */
	assert_non_null(find_last(&tr, 67289 * US, 67291 * US, "cfq0SN set_slice="));
	trace_free(&tr);
}

/*
 * Oracle stream 13 of seed 1 (hdd; two clones reading at random, each in its own 1 MiB of
 * adjacent regions): close cooperators. When the active queue runs dry and another has a
 * request close to where it ended, 4.19 does not only give the disk to that one: it sets the
 * two to merge (cfq_setup_merge()) and at its next request the process moves to the shared
 * queue (cfq_merge_cfqqs()), split again when it turns seeky. The port only switched queues:
 * at 82.825 ms clone 0's request went to its own queue and waited; the kernel put it in the
 * shared queue cfq1, active, and dispatched it at once.
 */
static void test_cfq_oracle_cooperators_merge(void **state)
{
	struct vsim_config cfg;
	struct vsim_job job;
	struct trace tr;
	const char *l;

	(void)state;
	stream_config(&cfg, DEVMODEL_HDD, 200, 2306394106960083259ull, 4410473859868627ull);
	vsim_job_defaults(&job);
	job.name = "job0";
	job.numjobs = 2;
	job.offset = 202419208192ull;
	job.size = 1ull << 20;
	job.offset_increment = 1ull << 20;
	cfg.jobs = &job;
	cfg.nr_jobs = 1;
	replay(&cfg, &tr);
	l = find_last(&tr, 82824 * US, 82826 * US, "insert_request");
	assert_non_null(l);
	assert_string_equal(l, "P cfq1SN insert_request");
	assert_non_null(find_last(&tr, 82824 * US, 82826 * US, "job0 D RS 395351976 + 8"));
	assert_non_null(find_last(&tr, 0, 82825 * US, "cfq0S  merging with queue"));
	/* The shared queue turned seeky: at their next requests its processes split off
	 * (split_cfqq()), the first into a new queue, the last keeping the shared one as its own,
	 * at the kernel's moments (the whole stream agrees with it). */
	assert_non_null(find_last(&tr, 115091 * US, 115093 * US, "cfq1SN breaking apart cfqq"));
	assert_non_null(find_last(&tr, 115091 * US, 115093 * US, "cfq1S  alloced"));
	assert_non_null(find_last(&tr, 116328 * US, 116330 * US, "cfq1SN breaking apart cfqq"));
	assert_non_null(find_last(&tr, 116328 * US, 116330 * US, "cfq0SN insert_request"));
	trace_free(&tr);
}

/*
 * Oracle stream 249 of seed 3 (hdd, 32 random readers, slice_sync=4455, target_latency_us=
 * 9096690). 4.19 scales a slice to the target latency with div64_u64(slice * group_slice,
 * expect_latency), the product in u64: 4.455 s x 9.1 s wraps. The port multiplied in 128 bits
 * and gave cfq0 a 379 ms slice where the kernel's was 34 ms (and expired it at 54.472 ms).
 */
static void test_cfq_oracle_slice_scaling_wraps(void **state)
{
	struct vsim_config cfg;
	struct vsim_job job;
	struct trace tr;
	char err[128];

	(void)state;
	stream_config(&cfg, DEVMODEL_HDD, 500, 2846053353577000685ull, 20316104182132724ull);
	assert_int_equal(
	    sched_config_set_tunable(&cfg.sched, "slice_sync", "4455", err, sizeof(err)), 0);
	assert_int_equal(
	    sched_config_set_tunable(&cfg.sched, "target_latency_us", "9096690", err, sizeof(err)),
	    0);
	vsim_job_defaults(&job);
	job.name = "job0";
	job.numjobs = 32;
	cfg.jobs = &job;
	cfg.nr_jobs = 1;
	replay(&cfg, &tr);
	assert_non_null(find_last(&tr, 20399 * US, 20401 * US, "cfq0S  set_slice=33971808"));
	assert_non_null(find_last(&tr, 54471 * US, 54473 * US, "cfq0S  slice expired t=1"));
	trace_free(&tr);
}

/*
 * Oracle stream 298 of seed 20261207 (hdd, eight sequential readers of which the processes exit
 * after 4 requests, beside a random reader; cfq_hz=250). The readers' queues merge as close
 * cooperators; when the process whose queue it was exits, cfq_exit_cfqq() only puts its
 * references: the shared queue keeps its idle window and goes on as sync (S). The port cleared
 * the window at the exit, so the shared queue went on as sync-noidle (SN) on the other service
 * tree, and at 146.782 ms another queue got the slice (job5's request went first, where the
 * kernel served the shared queue's: job4's, job7's, ...).
 */
static void test_cfq_oracle_exit_keeps_shared_idle_window(void **state)
{
	struct vsim_config cfg;
	struct vsim_job job[2];
	struct trace tr;
	char err[256];

	(void)state;
	stream_config(&cfg, DEVMODEL_HDD, 200, 0x570de152e58d0fd1ull, 0xcfcf85b9e463faull);
	assert_int_equal(sched_config_set_tunable(&cfg.sched, "cfq_hz", "250", err, sizeof(err)),
			 0);
	vsim_job_defaults(&job[0]);
	job[0].name = "job0";
	job[0].rw = VSIM_READ;
	job[0].numjobs = 8;
	job[0].number_ios = 4;
	vsim_job_defaults(&job[1]);
	job[1].name = "job2";
	cfg.jobs = job;
	cfg.nr_jobs = 2;
	replay(&cfg, &tr);
	/* the shared queue (cfq1, made by job0, whose process exited at 27.517 ms) takes the next
	 * request as a sync queue still idling, then the slice after cfq8's */
	assert_non_null(find_last(&tr, 35746 * US, 35748 * US, "cfq1S  insert_request"));
	assert_null(find_last(&tr, 0, 146782 * US, "cfq1SN"));
	assert_non_null(find_last(&tr, 146781 * US, 146782 * US, "cfq1S  set_active"));
	assert_non_null(find_last(&tr, 146781 * US, 146782 * US, "job4 D RS 8 + 8"));
	assert_null(find_last(&tr, 146781 * US, 146782 * US, "job5 D RS 8 + 8"));
	trace_free(&tr);
}

/*
 * The cfq_sw_* switches the oracle shows: each case is a stream it finds altered by that switch
 * alone (`oracle --variant cfq_4_1 --set cfq_sw_X=1`), minimised, replayed with the switch off
 * (the 4.1 profile: the kernel file's decision, the oracle's "kernel" line at the minimised
 * divergence) and on (the port with the later kernel's change, its "ours" line). Each is named
 * in cfq_switch_tests.h under its switch's name. cfq_sw_idle_key_now shows on fast devices with
 * several idle-class queues: a queue re-keyed within the jiffy it was keyed in keeps its place
 * at the front with the switch (now + CFQ_IDLE_DELAY both times), goes behind the tree's last
 * without. cfq_sw_prio_boost is in none: the simulator's requests carry no REQ_PRIO
 * (test_cfq_eras.c's test_41_prio_boost drives one by hand).
 */
static const struct switch_case switch_cases[] = {
    {"cfq_sw_async_in_group",
     /* oracle --variant cfq_4_1 --seed 1 --stream 27 --set cfq_sw_async_in_group=1 */
     "; vsim: seed=0x745f30a6831512bd dev.seed=0x65ce6a649f1cff\n"
     "[global] device_model=hdd runtime=200ms cfq_version=4.1 cfq_hz=250\n"
     "[job0] rw=randread bs=4096 iodepth=1 direct=1\n"
     "[job1] rw=randwrite bs=4096 iodepth=1 direct=0 sched_group=g2 sched_weight=500\n",
     "job0 D RS 1864599672 + 8", 113727, "job1 D W 892928072 + 8", 113727},
    {"cfq_sw_fifo_must_dispatch",
     /* oracle --variant cfq_4_1 --seed 1 --stream 73 --set cfq_sw_fifo_must_dispatch=1 */
     "; vsim: seed=0x4816f8810dfd4fe9 dev.seed=0x6907ffd95d5cef\n"
     "[global] device_model=hdd runtime=300ms cfq_version=4.1 cfq_hz=250\n"
     "[job2] rw=write bs=4096 iodepth=1 direct=0 numjobs=16\n"
     "[job3] rw=randread bs=4096 iodepth=1 direct=1 sched_group=g2 sched_weight=500\n"
     "[job4] rw=randread bs=4096 iodepth=1 direct=1 numjobs=2\n",
     "job10 C W 0 + 8", 259616, "job16 D RS 477274480 + 8", 259568},
    {"cfq_sw_parent_preempt",
     /* oracle --variant cfq_4_1 --seed 1 --stream 47 --set cfq_sw_parent_preempt=1 */
     "; vsim: seed=0xbef45b6cba3fb23f dev.seed=0x601f85120f1431\n"
     "[global] device_model=hdd runtime=300ms cfq_version=4.1 cfq_hz=250\n"
     "[job4] rw=randread bs=4096 iodepth=1 direct=1 prioclass=1 prio=6\n"
     "[job7] rw=randrw bs=4096 iodepth=1 direct=0 rwmixread=90 numjobs=32 "
     "sched_group=g3 sched_weight=500\n",
     "job1 C RS 1884386784 + 8", 99064, "job2 D RS 362616320 + 8", 81010},
    {"cfq_sw_noidle_preempt",
     /* oracle --variant cfq_4_1 --seed 1 --stream 4 --set cfq_sw_noidle_preempt=1 */
     "; vsim: seed=0xd1fcd9ddab3690ed dev.seed=0x34a5a99d5056cb\n"
     "[global] device_model=cloud-ssd runtime=100ms cfq_version=4.1 cfq_hz=250\n"
     "[job0] rw=randread bs=4096 iodepth=1 direct=1 numjobs=3\n",
     "job0 C RS 357495712 + 8", 4681, "job2 D RS 211130848 + 8", 4661},
    {"cfq_sw_group_idle_tt",
     /* oracle --variant cfq_4_1 --seed 1 --stream 118 --set cfq_sw_group_idle_tt=1 */
     "; vsim: seed=0xe334ecf128b43e69 dev.seed=0xaa6406f6ca0054\n"
     "[global] device_model=hdd runtime=200ms hw_queue_depth=1 cfq_version=4.1 "
     "cfq_hz=250\n"
     "[job0] rw=randread bs=4096 iodepth=1 direct=1 thinktime=20000 sched_group=g1 "
     "sched_weight=500\n"
     "[job1] rw=rw bs=4096 iodepth=1 direct=1 rwmixread=90\n",
     "job1 D RS 1912 + 8", 200000, "job1 D RS 1912 + 8", 195313},
    {"cfq_sw_group_idle_nonrot",
     /* oracle --variant cfq_4_1 --seed 1 --stream 4 --set cfq_sw_group_idle_nonrot=1 */
     "; vsim: seed=0xd1fcd9ddab3690ed dev.seed=0x34a5a99d5056cb\n"
     "[global] device_model=cloud-ssd runtime=100ms cfq_version=4.1 cfq_hz=250\n"
     "[job0] rw=randread bs=4096 iodepth=1 direct=1 numjobs=3\n",
     "job2 D RS 211130848 + 8", 8026, "job0 I RS 440997456 + 8", 8026},
    {"cfq_sw_idle_key_now",
     /* oracle --variant cfq_4_1 --seed 2 --stream 106 --set cfq_sw_idle_key_now=1 */
     "; vsim: seed=0x754ac17f730c263b dev.seed=0x346988b895743b\n"
     "[global] device_model=cloud-ssd runtime=500ms cfq_version=4.1 cfq_hz=250\n"
     "[job2] rw=randread bs=4096 iodepth=2 direct=1 numjobs=16 prioclass=3 prio=0\n",
     "job1 D RS 664738864 + 8", 1051, "job0 D RS 212505656 + 8", 1051},
};
/* END switch cases */

static void test_cfq_switch(void **state)
{
	replay_switch_case(*state, SCHED_POLICY_CFQ);
}

static const struct CMUnitTest *oracle_tests;
static size_t oracle_tests_nr;

/* The switch cases named in cfq_switch_tests.h run here, and every case here is named there. */
static void test_cfq_oracle_switch_cases_listed(void **state)
{
	int missing = cfq_switch_tests_missing("test_cfq_oracle.c", oracle_tests, oracle_tests_nr);

	(void)state;
	for (size_t i = 0; i < sizeof(switch_cases) / sizeof(switch_cases[0]); i++) {
		int listed = 0;

		for (size_t k = 0; k < CFQ_SWITCH_TESTS_NR; k++)
			listed += !strcmp(cfq_switch_tests[k].sw, switch_cases[i].sw) &&
				  !strcmp(cfq_switch_tests[k].file, "test_cfq_oracle.c") &&
				  !strcmp(cfq_switch_tests[k].test, switch_cases[i].sw);
		if (listed != 1) {
			print_error("%s: a switch case not in cfq_switch_tests.h\n", switch_cases[i].sw);
			missing++;
		}
	}
	assert_int_equal(missing, 0);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
	    cmocka_unit_test(test_cfq_oracle_idle_class_key),
	    cmocka_unit_test(test_cfq_oracle_group_made_at_first_bio),
	    cmocka_unit_test(test_cfq_oracle_cooperators_merge),
	    cmocka_unit_test(test_cfq_oracle_slice_scaling_wraps),
	    cmocka_unit_test(test_cfq_oracle_exit_keeps_shared_idle_window),
	    cmocka_unit_test(test_cfq_oracle_switch_cases_listed),
	};
	enum {
		NF = sizeof(fixed) / sizeof(fixed[0]),
		NS = sizeof(switch_cases) / sizeof(switch_cases[0])
	};
	struct CMUnitTest tests[NF + NS];

	memcpy(tests, fixed, sizeof(fixed));
	for (size_t i = 0; i < NS; i++)
		tests[NF + i] = (struct CMUnitTest){.name = switch_cases[i].sw,
						    .test_func = test_cfq_switch,
						    .initial_state = (void *)&switch_cases[i]};
	oracle_tests = tests;
	oracle_tests_nr = NF + NS;
	return _cmocka_run_group_tests("test_cfq_oracle", tests, NF + NS, NULL, NULL);
}
