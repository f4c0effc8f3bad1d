/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kyber (block/kyber-iosched.c, Linux 6.12): requests are split by operation into scheduling
 * domains (read, write, discard, other), each allowed a number of requests in the device at once
 * by a pool of tokens (an sbitmap_queue of 256, 128, 64 and 16); a timer every 100 ms reads the
 * latency histograms of the completions since it last decided and, when some domain's p90 I/O
 * latency is over its target, shrinks the pools of the domains whose p99 total latency is under
 * theirs, and grows those over it. Dispatch takes a batch (16, 8, 1, 1) from one domain at a
 * time, round robin.
 *
 * Tunables: read_lat_nsec and write_lat_nsec, the sysfs files (the discard target, 5 s, has none).
 *
 * One hardware queue and one CPU: the kernel keeps the token pools per queue (one here) and the
 * histograms per CPU, summed by the timer (one CPU here: the sum is the CPU's own histogram).
 */
#ifndef SCHED_KYBER_H
#define SCHED_KYBER_H

#include "sched.h"

/* Indices into sched_kyber_ops.tunables and sched_config.tunable[]: the sysfs files. */
enum kyber_tunable {
	KYBER_READ_LAT_NSEC = 0,
	KYBER_WRITE_LAT_NSEC,
	KYBER_NR_TUNABLES,
};

/* The kernel's scheduling domains, by the request's operation (kyber_sched_domain()). */
enum kyber_domain {
	KYBER_READ = 0,
	KYBER_WRITE,
	KYBER_DISCARD,
	KYBER_OTHER,
	KYBER_NUM_DOMAINS,
};

/* A domain's state as the kernel's debugfs shows it (tests, statistics). */
struct kyber_domain_state {
	uint32_t depth;	     /* the token pool's depth (domain_tokens[d].sb.depth) */
	uint32_t in_use;     /* tokens held: dispatched, not finished */
	uint32_t wake_batch; /* frees before the waiting queue is run again */
	bool waiting;	     /* the hardware queue waits for a token of this pool */
	int32_t p99;	     /* domain_p99: kept for the next congestion, -1 none */
	uint32_t queued;     /* inserted, not dispatched */
	uint32_t in_kcq;     /* of those, not yet flushed from the kcq: bios may merge into them */
};

/* The state of domain d of a kyber scheduler (false when s runs another policy). */
bool kyber_domain_state(const struct sched *s, enum kyber_domain d, struct kyber_domain_state *out);
/* cur_domain and batching of the hardware queue. */
void kyber_batch_state(const struct sched *s, uint32_t *cur_domain, uint32_t *batching);

extern const struct sched_policy_ops sched_kyber_ops;

#endif
