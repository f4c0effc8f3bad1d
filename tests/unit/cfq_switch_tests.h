/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cfq_sw_* switches and the test that runs each in both positions (test_cfq_eras.c: its
 * older profile both ways, the decision asserted in each; test_cfq.c: the parameters a
 * profile-wide switch sets; test_blk_rl.c: the block layer's request lists a switch chooses;
 * test_cfq_oracle.c: a switch case, the oracle's minimised stream
 * replayed both ways, the test named after the switch). test_cfq_eras.c's
 * test_cfq_every_switch_tested fails for a switch with no test here, or with more than one; each
 * file checks that the tests named for it are ones it runs.
 */
#ifndef TESTS_CFQ_SWITCH_TESTS_H
#define TESTS_CFQ_SWITCH_TESTS_H

struct cfq_switch_test {
	const char *sw;	  /* cfq_switch_name() */
	const char *file; /* the test file, "test_cfq_eras.c" or "test_cfq.c" */
	const char *test;
};

static const struct cfq_switch_test cfq_switch_tests[] = {
    {"cfq_sw_ns_clock", "test_cfq.c", "test_cfq_profile_41_jiffies"},
    {"cfq_sw_ssd_iops", "test_cfq.c", "test_cfq_profile_ssd_iops"},
    {"cfq_sw_rework_2633", "test_cfq_eras.c", "test_2632_rework_sole_depth"},
    {"cfq_sw_noidle_in_group", "test_cfq_eras.c", "test_2636_noidle_in_group"},
    {"cfq_sw_vfraction_charge", "test_cfq_eras.c", "test_2636_vfraction_charge"},
    {"cfq_sw_vfraction_slice", "test_cfq_eras.c", "test_2636_vfraction_slice"},
    {"cfq_sw_wait_busy_queued", "test_cfq_eras.c", "test_2636_wait_busy_queued"},
    {"cfq_sw_group_ttime", "test_cfq_eras.c", "test_2636_group_ttime"},
    {"cfq_sw_tree_ttime", "test_cfq_eras.c", "test_2636_tree_ttime"},
    {"cfq_sw_deep_seeky_fast", "test_cfq_eras.c", "test_2636_deep_seeky_fast"},
    {"cfq_sw_noidle_window", "test_cfq_eras.c", "test_2636_noidle_window"},
    {"cfq_sw_sole_sync", "test_cfq_eras.c", "test_2636_sole_sync"},
    {"cfq_sw_class_new_workload", "test_cfq_eras.c", "test_2636_class_new_workload"},
    {"cfq_sw_resid_new", "test_cfq_eras.c", "test_2636_resid_new"},
    {"cfq_sw_preempt_new_type", "test_cfq_eras.c", "test_2636_preempt_new_type"},
    {"cfq_sw_preempt_not_idling", "test_cfq_eras.c", "test_2636_preempt_not_idling"},
    {"cfq_sw_same_sector", "test_cfq_eras.c", "test_2636_same_sector"},
    {"cfq_sw_ttime_sync", "test_cfq_eras.c", "test_2636_ttime_sync"},
    {"cfq_sw_async_in_group", "test_cfq_oracle.c", "cfq_sw_async_in_group"},
    {"cfq_sw_fifo_must_dispatch", "test_cfq_oracle.c", "cfq_sw_fifo_must_dispatch"},
    {"cfq_sw_parent_preempt", "test_cfq_oracle.c", "cfq_sw_parent_preempt"},
    {"cfq_sw_noidle_preempt", "test_cfq_oracle.c", "cfq_sw_noidle_preempt"},
    {"cfq_sw_group_idle_tt", "test_cfq_oracle.c", "cfq_sw_group_idle_tt"},
    {"cfq_sw_group_idle_nonrot", "test_cfq_oracle.c", "cfq_sw_group_idle_nonrot"},
    {"cfq_sw_idle_key_now", "test_cfq_oracle.c", "cfq_sw_idle_key_now"},
    {"cfq_sw_prio_boost", "test_cfq_eras.c", "test_41_prio_boost"},
    {"cfq_sw_per_group_rl", "test_blk_rl.c", "test_blk_rl_per_group"},
};

#define CFQ_SWITCH_TESTS_NR (sizeof(cfq_switch_tests) / sizeof(cfq_switch_tests[0]))

/* Tests of `file` (cmocka.h included first) named in cfq_switch_tests[] that are not among its n tests (printed). */
static inline int cfq_switch_tests_missing(const char *file, const struct CMUnitTest *tests,
					   size_t n)
{
	int missing = 0;

	for (size_t k = 0; k < CFQ_SWITCH_TESTS_NR; k++) {
		int found = 0;

		if (strcmp(cfq_switch_tests[k].file, file))
			continue;
		for (size_t i = 0; i < n; i++)
			found += !strcmp(tests[i].name, cfq_switch_tests[k].test);
		if (found != 1) {
			print_error("%s: %s is not a test of %s\n", cfq_switch_tests[k].sw,
				    cfq_switch_tests[k].test, file);
			missing++;
		}
	}
	return missing;
}

#endif
