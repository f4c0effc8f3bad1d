// SPDX-License-Identifier: GPL-2.0
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support.h"

void test_rng_seed(struct test_rng *r, uint64_t seed)
{
	/* splitmix64 of the seed, so that small seeds still give a well-mixed, non-zero state. */
	uint64_t z = seed + 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	r->s = z ? z : 1;
}

uint64_t test_rng_next(struct test_rng *r)
{
	uint64_t x = r->s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return x * 0x2545f4914f6cdd1dull;
}

uint64_t test_rng_below(struct test_rng *r, uint64_t n)
{
	/* Rejection sampling: no modulo bias, still deterministic. */
	uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	uint64_t x;

	do
		x = test_rng_next(r);
	while (x >= limit);
	return x % n;
}

uint64_t test_rng_range(struct test_rng *r, uint64_t lo, uint64_t hi)
{
	return lo + test_rng_below(r, hi - lo + 1);
}

void test_rng_shuffle(struct test_rng *r, uint32_t *a, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = test_rng_below(r, i);
		uint32_t t = a[i - 1];

		a[i - 1] = a[j];
		a[j] = t;
	}
}

struct sched *test_sched_new(const struct sched_config *cfg, uint64_t now)
{
	size_t size = sched_size(cfg);
	char err[256] = "";
	struct sched *s;
	void *mem;

	assert_true(size > 0);
	mem = aligned_alloc(16, (size + 15) & ~(size_t)15);
	assert_non_null(mem);
	/* Garbage, not zeroes: sched_init() must not rely on zeroed memory. */
	memset(mem, 0xa5, size);
	s = sched_init(mem, size, cfg, now, err, sizeof(err));
	if (!s) {
		print_error("sched_init: %s\n", err);
		free(mem);
		fail();
	}
	assert_ptr_equal(s, mem);
	return s;
}

void test_sched_free(struct sched *s)
{
	free(s);
}

void test_none_config(struct sched_config *cfg, uint32_t hw_queue_depth)
{
	sched_config_defaults(cfg, SCHED_POLICY_NONE);
	cfg->hw_queue_depth = hw_queue_depth;
}

void test_rq_init(struct sched_request *rq, uint32_t owner, enum sched_op op, uint8_t flags,
		  uint64_t offset, uint64_t length)
{
	memset(rq, 0, sizeof(*rq));
	rq->owner = owner;
	rq->group = 0;
	rq->prio_class = SCHED_IOPRIO_CLASS_NONE;
	rq->prio_level = SCHED_IOPRIO_DEFAULT_LEVEL;
	rq->op = op;
	rq->flags = flags;
	rq->offset = offset;
	rq->length = length;
}

void test_assert_one_line(const char *err)
{
	assert_non_null(err);
	assert_true(strlen(err) > 0);
	assert_null(strchr(err, '\n'));
}

bool effect_reproduced(double ours, double pub)
{
	double e = pub - 1;

	if (e > -0.01 && e < 0.01)
		return ours - 1 > -0.01 && ours - 1 < 0.01;
	return e > 0 ? ours >= 1 + 0.5 * e && ours <= 1 + 1.5 * e
		     : ours <= 1 + 0.5 * e && ours >= 1 + 1.5 * e;
}

void known_gap(const char *what, double ours, double lo, double hi, const char *why)
{
	if (ours < lo || ours > hi) {
		print_error("%s: %.3f left the known gap's documented range %.3f..%.3f (%s): "
			    "update the test\n",
			    what, ours, lo, hi, why);
		fail();
	}
	printf("XFAIL: %s: %.3f, in the known gap's range %.3f..%.3f (%s)\n", what, ours, lo, hi,
	       why);
}
