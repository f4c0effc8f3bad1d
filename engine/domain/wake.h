/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Doorbells: a 32-bit word in the shared domain per sleeper, rung with FUTEX_WAKE by whoever
 * has something for it, in any process (the futex is keyed by the shared page, so no file
 * descriptor or process address crosses processes). A sleeper reads the bell, publishes that
 * it sleeps, checks its work once more, then waits for the bell to differ from what it read:
 * a ring in between makes the wait return at once, so no wake-up is lost.
 */
#ifndef ENGINE_DOMAIN_WAKE_H
#define ENGINE_DOMAIN_WAKE_H

#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * The sleeper's "I sleep" and the ringer's "there is work" are a Dekker pair: each side's store
 * must be ordered before its load of the other's. Both are seq_cst read-modify-writes, plus a
 * full fence where the compiler allows one (GCC refuses atomic_thread_fence under
 * -fsanitize=thread, and TSan does not model fences; it checks the RMWs).
 */
#if defined(__SANITIZE_THREAD__)
#define SE_FULL_FENCE() ((void)0)
#else
#define SE_FULL_FENCE() atomic_thread_fence(memory_order_seq_cst)
#endif

/* CLOCK_MONOTONIC in ns: the domain's real clock and the wake-up deadlines'. */
static inline uint64_t se_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct se_bell {
	_Atomic uint32_t seq;	   /* bumped by every ring */
	_Atomic uint32_t sleeping; /* the owner is (about to be) asleep on seq */
	_Atomic uint64_t rung;	   /* rings that found it asleep (statistics) */
};

static inline uint32_t se_bell_read(struct se_bell *b)
{
	return atomic_load_explicit(&b->seq, memory_order_acquire);
}

/* Before the last look at its work: the sleeper is visible to ringers from here on. */
static inline void se_bell_sleep_begin(struct se_bell *b)
{
	atomic_exchange_explicit(&b->sleeping, 1, memory_order_seq_cst);
	SE_FULL_FENCE();
}

static inline void se_bell_sleep_end(struct se_bell *b)
{
	atomic_store_explicit(&b->sleeping, 0, memory_order_relaxed);
}

/* Called after the work was published (and the lock dropped). */
static inline void se_bell_ring(struct se_bell *b)
{
	atomic_fetch_add_explicit(&b->seq, 1, memory_order_seq_cst);
	SE_FULL_FENCE();
	if (atomic_load_explicit(&b->sleeping, memory_order_seq_cst)) {
		atomic_fetch_add_explicit(&b->rung, 1, memory_order_relaxed);
		syscall(SYS_futex, &b->seq, FUTEX_WAKE, 1, NULL, NULL, 0);
	}
}

/*
 * Waits until the bell is no longer `seen` or the CLOCK_MONOTONIC deadline (UINT64_MAX: none).
 * Returns 1 when the deadline passed, 0 otherwise.
 */
static inline int se_bell_wait(struct se_bell *b, uint32_t seen, uint64_t deadline)
{
	struct timespec ts, *tp = NULL;

	if (deadline != UINT64_MAX) {
		ts.tv_sec = (time_t)(deadline / 1000000000ull);
		ts.tv_nsec = (long)(deadline % 1000000000ull);
		tp = &ts;
	}
	/* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC time. */
	if (syscall(SYS_futex, &b->seq, FUTEX_WAIT_BITSET, seen, tp, NULL, FUTEX_BITSET_MATCH_ANY) &&
	    errno == ETIMEDOUT)
		return 1;
	return 0;
}

#endif
