/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Replays of the differential oracle's streams through vsim, shared by the oracle tests of each
 * policy (test_bfq_oracle.c, test_cfq_oracle.c): a run's block-layer events (job<owner> I/D/C/S
 * ..., what the oracle compares) with their times, the oracle's minimised reproducers read as
 * it prints them (oracle/harness/jobfile.c), and a profile switch's case run in both positions.
 */
#ifndef TESTS_UNIT_SUPPORT_REPLAY_H
#define TESTS_UNIT_SUPPORT_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "sched.h"
#include "vsim.h"

#define REPLAY_MAX 200000
#define REPLAY_LINE 128

struct replay {
	struct vsim_config cfg;
	struct vsim_job job[16];
	char names[16][16];
	uint32_t nj;
	char (*line)[REPLAY_LINE];
	uint64_t *ns;
	uint32_t n;
};

/* A job of the replay, vsim_job_defaults() but for its name (kept by the caller). */
struct vsim_job *replay_job(struct replay *r, const char *name);
/* Runs the replay's configuration and jobs, collecting its block events. */
void replay_go(struct replay *r);
void replay_free(struct replay *r);
bool replay_is_block(const char *line);
/* The index of the first block event equal to `event` at time at_ns, or -1. */
int replay_find(const struct replay *r, const char *event, uint64_t at_ns);
/* The time of the first block event equal to `event`, or UINT64_MAX. */
uint64_t replay_time_of(const struct replay *r, const char *event);
/*
 * After the block event `after` (at after_ns), the next block event is `next` at next_ns: the
 * kernel file's decision at the oracle's divergence.
 */
void replay_assert_next_block(const struct replay *r, const char *after, uint64_t after_ns,
			      const char *next, uint64_t next_ns);

/*
 * A replay of a minimised reproducer for `policy`: its "; vsim:" seeds line, then its sections
 * and keys as the oracle prints them, one a line or several on a line ("[job0] rw=randread
 * numjobs=16"); then the tunables given as name, value pairs (NULL-ended) on top.
 */
void replay_jobfile(struct replay *r, enum sched_policy_id policy, const char *text,
		    const char *const *tunables);

/*
 * A profile switch in both positions on the oracle's minimised reproducer of a stream it alters
 * (`oracle --variant <old> --set <sw>=1`, or `--variant <new> --set <sw>=0`). The two runs agree
 * up to a first block event (jobN I/D/C ... at its time, in us as the oracle prints): there the
 * switch off gives `off` and on gives `on`; one of the two is the kernel file's event at the
 * oracle's divergence.
 */
struct switch_case {
	const char *sw;
	const char *job; /* the reproducer, as the oracle printed it */
	const char *off;
	uint64_t off_us;
	const char *on;
	uint64_t on_us;
};

/* Fails the current test unless case c's first difference is its off and on events. */
void replay_switch_case(const struct switch_case *c, enum sched_policy_id policy);

#endif
