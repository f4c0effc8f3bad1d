/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched_trace=FILE: one line per scheduler event, blktrace-like, for debugging a replay:
 *   <seconds since the domain started> <pid> <what>
 * where <what> is a line of the queue's trace ring: the block layer's "job3 D RS 2048 + 8"
 * (I inserted, S waits for a request, D dispatched, C completed; R/W/F/T, S for sync, sector
 * + sectors) and the policy's "P cfq3S  slice expired t=0" (as the kernel's cfq_log). The
 * ring is drained under the domain lock, appended through a descriptor of the draining process.
 */
#ifndef ENGINE_TRACE_H
#define ENGINE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct se_domain;

/* As the kernel's protected_symlinks: is path a symlink another user owns (not us, not root:
 * /dev/stderr is root's)? Its owner in *uid. Checked at option parse and at the first open. */
bool se_trace_foreign_symlink(const char *path, unsigned int *uid);
/* Opens sched_trace's file when the domain is configured and records which file it is;
 * 0, or -1 with err set (a symlink another user owns). */
int se_trace_open_first(struct se_domain *d, char *err, size_t errlen);
/* A sched_trace_fn draining the queue's trace ring: ctx is the domain. */
void se_trace_line(void *ctx, uint64_t now, const char *line);

#endif
