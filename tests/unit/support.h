/* SPDX-License-Identifier: GPL-2.0 */
/* Shared helpers of the cmocka unit tests: a seeded PRNG, scheduler set-up, requests. */
#ifndef TESTS_UNIT_SUPPORT_H
#define TESTS_UNIT_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "sched.h"

/* xorshift64*: small, fast, and the same sequence on every machine for a given seed. */
struct test_rng {
	uint64_t s;
};

void test_rng_seed(struct test_rng *r, uint64_t seed);
uint64_t test_rng_next(struct test_rng *r);
/* Uniform in 0 .. n-1 (n > 0). */
uint64_t test_rng_below(struct test_rng *r, uint64_t n);
/* Uniform in lo .. hi inclusive. */
uint64_t test_rng_range(struct test_rng *r, uint64_t lo, uint64_t hi);
/* Fisher-Yates shuffle of a[0 .. n-1]. */
void test_rng_shuffle(struct test_rng *r, uint32_t *a, size_t n);

/*
 * A scheduler in freshly allocated, 16-byte aligned memory of exactly sched_size(cfg) bytes.
 * Fails the current test when sched_init() refuses cfg.
 */
struct sched *test_sched_new(const struct sched_config *cfg, uint64_t now);
void test_sched_free(struct sched *s);
/* sched_config_defaults() for none with the given device depth. */
void test_none_config(struct sched_config *cfg, uint32_t hw_queue_depth);

/* A well-formed request: group 0, prio class NONE, default level. */
void test_rq_init(struct sched_request *rq, uint32_t owner, enum sched_op op, uint8_t flags,
		  uint64_t offset, uint64_t length);

/*
 * A known gap: `ours` does not reproduce the published value and jobs/README.md says why. While
 * it stays in its documented range [lo, hi] this prints an "XFAIL:" line (the runner counts an
 * expected failure); anywhere else the test fails, in either direction: a gap that closes must
 * become a plain check, one that widens is a regression.
 */
void known_gap(const char *what, double ours, double lo, double hi, const char *why);

/*
 * How a seed's effect is judged (one rule for every seed): an effect is a ratio r between two
 * configurations (Off/On IOPS, 600/300 ms MB/s...). The threads give one number per row and no
 * spread, so ours reproduces it when its effect r - 1 is within +-50% of the published one:
 * 1 + (r_pub - 1) x [0.5, 1.5]. Where the published effect is below 1% the thread shows none,
 * and ours must be below 1% too.
 */
bool effect_reproduced(double ours, double pub);

/* Fails the current test unless err holds a non-empty message of one line. */
void test_assert_one_line(const char *err);

#endif
