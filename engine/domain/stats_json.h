/* SPDX-License-Identifier: GPL-2.0 */
/* The sched_stats=FILE document: per job, per group, device in-flight histogram. */
#ifndef ENGINE_STATS_JSON_H
#define ENGINE_STATS_JSON_H

#include <stdio.h>

struct se_domain;

/* Writes the domain's statistics as one JSON object. Call with the domain locked. */
void se_stats_json(const struct se_domain *d, FILE *f);

#endif
