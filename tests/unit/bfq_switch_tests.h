/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bfq_sw_* switches tested in both positions by a mechanism test of test_bfq.c rather than
 * by an oracle case (test_bfq_oracle.c's switch_cases[]): a counter, a queue's state or the
 * policy's trace shows the switch's effect, in its own workload. test_bfq_oracle.c's
 * test_every_switch_has_a_case fails for a switch found in neither; test_bfq.c's
 * test_bfq_switch_tests_exist fails for a test named here that test_bfq.c does not run.
 */
#ifndef TESTS_BFQ_SWITCH_TESTS_H
#define TESTS_BFQ_SWITCH_TESTS_H

struct bfq_switch_test {
	const char *sw;	  /* the switch's tunable, bfq_switch_name() */
	const char *test; /* the test_bfq.c test that runs it both ways */
};

static const struct bfq_switch_test bfq_switch_tests[] = {
    {"bfq_sw_no_plug_all_raised", "test_bfq_no_plug_all_raised"},
    {"bfq_sw_idle_deep_drive", "test_bfq_idle_deep_drive"},
    {"bfq_sw_max_service_from_wr", "test_bfq_wr_interactive"},
    {"bfq_sw_injection", "test_bfq_injection"},
    {"bfq_sw_wakers", "test_bfq_waker_detection"},
    {"bfq_sw_stable_merge", "test_bfq_stable_merge"},
    {"bfq_sw_wr_duration", "test_bfq_wr_duration"},
    {"bfq_sw_wr_idle_20ms", "test_bfq_idle_timer_variants"},
    {"bfq_sw_preempt_equal", "test_bfq_preempt_heavier"},
    {"bfq_sw_preempt_unplug", "test_bfq_preempt_unplug"},
    {"bfq_sw_limit_depth", "test_bfq_limit_depth"},
    {"bfq_sw_idle_large_burst", "test_bfq_412_switches"},
    {"bfq_sw_raise_default_weight", "test_bfq_412_switches"},
    {"bfq_sw_idle_only_busy", "test_bfq_412_switches"},
    /* no oracle stream shows these (seconds of raising, or a split after soft rt) */
    {"bfq_sw_split_switch_back", "test_bfq_split_switch_back"},
    {"bfq_sw_softrt_end_reset", "test_bfq_softrt_end_reset"},
    {"bfq_sw_srt_switch_back", "test_bfq_srt_switch_back"},
};

#define BFQ_SWITCH_TESTS_NR (sizeof(bfq_switch_tests) / sizeof(bfq_switch_tests[0]))

#endif
