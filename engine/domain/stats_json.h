/* SPDX-License-Identifier: GPL-2.0 */
/* The sched_stats=FILE document: per job, per group, device in-flight histogram. */
#ifndef ENGINE_STATS_JSON_H
#define ENGINE_STATS_JSON_H

#include <stdbool.h>
#include <stddef.h>

struct se_domain;

/*
 * Text into a caller's buffer, with vsnprintf and no allocation: the device context is a fork of
 * a multithreaded fio, where malloc and stdio may wait forever for a lock another thread held
 * at the fork.
 */
struct se_out {
	char *buf;
	size_t len, cap;
	bool full; /* something did not fit */
};

void se_outf(struct se_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes the domain's statistics as one JSON object. Call with the domain locked. */
void se_stats_json(const struct se_domain *d, struct se_out *f);

#endif
