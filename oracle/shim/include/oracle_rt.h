/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shim's runtime state, one per variant (each variant's objects are linked into one
 * relocatable object whose symbols are local but for its entry, so two kernel versions' copies
 * of this state never meet): the elevator type the file registered, the clock the adapter sets,
 * the armed timers, and what the file asked of the block layer since the adapter last looked.
 */
#ifndef ORACLE_RT_H
#define ORACLE_RT_H

#include "oracle_kernel.h"

struct oracle_rt {
	struct elevator_type *elv_type; /* elv_register()ed by the file's module_init */
	struct list_head timers;	/* armed oracle_timers, any order */
	u64 timer_seq;
	bool run_requested; /* kblockd work or blk_mq_run_hw_queues() since last asked */
	/* The trace sink: the adapter points it at the simulator's trace ring. */
	void (*trace)(void *ctx, const char *line);
	void *trace_ctx;
	bool live; /* an instance of this variant exists (one at a time) */
	struct list_head allocs; /* the instance's kmalloc()s */
	/* elv_bio_merge_ok(): the adapter's merge core (adapt/merge_core.c), or none (false). */
	bool (*bio_merge_ok)(struct request *rq, struct bio *bio);
};
extern struct oracle_rt oracle_rt;

/* Ends the previous instance (frees all it allocated) and starts one at time now_ns (jiffies
 * from INITIAL_JIFFIES): live from here. */
void oracle_rt_reset(u64 now_ns);
/* Sets the clock (never backwards). */
void oracle_rt_set_now(u64 now_ns);
/* The earliest armed timer's expiry in ns, or U64_MAX. */
u64 oracle_rt_next_timer(void);
/* Runs every timer due at or before now (in expiry, then arming order). Returns how many. */
unsigned int oracle_rt_run_timers(u64 now_ns);
/* Whether the file asked for a queue run since the last call; clears it. */
bool oracle_rt_take_run(void);

#endif
