// SPDX-License-Identifier: GPL-2.0
/*
 * The oracle's shim (oracle/shim): the kernel interfaces the scheduler files are compiled against
 * must behave as the kernel's do, or the oracle compares them with a kernel that never was. The
 * checks are kernel-style code built with the shim (oracle/shim/rt/selftest.c); each is reported
 * here, and every one must hold for several seeds of its random parts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

typedef void (*oracle_check_fn)(void *ctx, const char *what, _Bool ok);
int oracle_selftest_run(oracle_check_fn check, void *ctx, uint64_t seed);

struct tally {
	unsigned int checks, failed;
};

static void on_check(void *ctx, const char *what, _Bool ok)
{
	struct tally *t = ctx;

	t->checks++;
	if (!ok) {
		t->failed++;
		printf("shim check failed: %s\n", what);
	}
}

static void test_shim_selftest(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 5; seed++) {
		struct tally t = {0, 0};

		assert_int_equal(oracle_selftest_run(on_check, &t, seed * 0x1234567ull), 0);
		assert_int_equal(t.failed, 0);
		assert_true(t.checks >= 20); /* every check ran */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_shim_selftest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
