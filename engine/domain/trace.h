/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched_trace=FILE: one line per scheduler event, blktrace-like, for debugging a replay:
 *   <seconds since the domain started> <pid> <job> <action> <what>
 * Actions: I inserted, D dispatched, C completed (sector+sectors, R/W/F/T, sync), and P for the
 * policy's own lines ("cfq3S  slice expired t=0", as the kernel's cfq_log).
 * Written under the domain lock, appended through a descriptor of the writing process.
 */
#ifndef ENGINE_TRACE_H
#define ENGINE_TRACE_H

#include <stdint.h>

struct se_domain;
struct se_slot;

void se_trace_request(struct se_domain *d, uint64_t now, char action, const struct se_slot *slot);
/* A sched_trace_fn draining the queue's trace ring: ctx is the domain. */
void se_trace_line(void *ctx, uint64_t now, const char *line);

#endif
