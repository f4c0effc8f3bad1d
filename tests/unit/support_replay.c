// SPDX-License-Identifier: GPL-2.0
/* Oracle stream replays through vsim (support_replay.h). */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "devmodel.h"
#include "support_replay.h"

#define MS 1000000ull

static void replay_trace(void *ctx, uint64_t now, const char *line)
{
	struct replay *r = ctx;

	/* The block layer's events only: what the oracle compares. */
	if (strncmp(line, "job", 3))
		return;
	if (r->n < REPLAY_MAX) {
		snprintf(r->line[r->n], REPLAY_LINE, "%s", line);
		r->ns[r->n++] = now;
	}
}

struct vsim_job *replay_job(struct replay *r, const char *name)
{
	struct vsim_job *j = &r->job[r->nj++];

	vsim_job_defaults(j);
	j->name = name;
	return j;
}

void replay_go(struct replay *r)
{
	struct vsim_result res;
	char err[256] = "";

	r->line = calloc(REPLAY_MAX, REPLAY_LINE);
	r->ns = calloc(REPLAY_MAX, sizeof(*r->ns));
	assert_non_null(r->line);
	assert_non_null(r->ns);
	r->cfg.jobs = r->job;
	r->cfg.nr_jobs = r->nj;
	r->cfg.trace_fn = replay_trace;
	r->cfg.trace_ctx = r;
	r->cfg.sched.trace_bytes = 4u << 20;
	if (vsim_run(&r->cfg, &res, err, sizeof(err)))
		fail_msg("vsim_run: %s", err);
	vsim_result_free(&res);
}

void replay_free(struct replay *r)
{
	free(r->line);
	free(r->ns);
}

bool replay_is_block(const char *line)
{
	return !strncmp(line, "job", 3);
}

int replay_find(const struct replay *r, const char *event, uint64_t at_ns)
{
	for (uint32_t i = 0; i < r->n; i++)
		if (r->ns[i] == at_ns && replay_is_block(r->line[i]) && !strcmp(r->line[i], event))
			return (int)i;
	return -1;
}

void replay_assert_next_block(const struct replay *r, const char *after, uint64_t after_ns,
			      const char *next, uint64_t next_ns)
{
	int i = replay_find(r, after, after_ns);

	if (i < 0)
		fail_msg("no \"%s\" at %" PRIu64 " ns: the stream no longer reaches the moment",
			 after, after_ns);
	for (uint32_t k = (uint32_t)i + 1; k < r->n; k++) {
		if (!replay_is_block(r->line[k]))
			continue;
		if (r->ns[k] != next_ns || strcmp(r->line[k], next))
			fail_msg("after \"%s\": \"%s\" at %" PRIu64 " ns, the kernel's is \"%s\" at "
				 "%" PRIu64 " ns",
				 after, r->line[k], r->ns[k], next, next_ns);
		return;
	}
	fail_msg("after \"%s\": nothing, the kernel's is \"%s\"", after, next);
}

/* ---- the oracle's minimised reproducers, as it prints them (oracle/harness/jobfile.c) ---- */

static uint64_t job_num(const char *v)
{
	char *end;
	uint64_t x = strtoull(v, &end, 0);

	if (!strcmp(end, "k"))
		x <<= 10;
	else if (!strcmp(end, "m"))
		x <<= 20;
	else if (!strcmp(end, "g"))
		x <<= 30;
	else if (*end && strcmp(end, "ms") && strcmp(end, "us"))
		fail_msg("%s: not a number", v);
	return x;
}

static void job_set(struct replay *r, const char *k, const char *v)
{
	char err[256];

	if (sched_config_set_tunable(&r->cfg.sched, k, v, err, sizeof(err)))
		fail_msg("%s=%s: %s", k, v, err);
}

static void job_global(struct replay *r, const char *k, const char *v)
{
	struct vsim_config *cfg = &r->cfg;

	if (!strcmp(k, "ioengine") || !strcmp(k, "filename") || !strcmp(k, "time_based") ||
	    !strcmp(k, "sched"))
		return;
	if (!strcmp(k, "device_model")) {
		struct sched_config keep = cfg->sched;
		uint64_t seed = cfg->seed, dev_seed = cfg->dev.seed;
		int kind = devmodel_kind_by_name(v);

		assert_true(kind >= 0);
		uint32_t nomerges = cfg->nomerges;

		vsim_config_defaults(cfg, keep.policy, (enum devmodel_kind)kind);
		cfg->nomerges = nomerges;
		cfg->seed = seed;
		cfg->dev.seed = dev_seed;
		memcpy(cfg->sched.tunable, keep.tunable, sizeof(keep.tunable));
		memcpy(cfg->sched.tunable_given, keep.tunable_given, sizeof(keep.tunable_given));
	} else if (!strcmp(k, "runtime")) {
		cfg->runtime_ns = job_num(v) * MS;
	} else if (!strcmp(k, "hw_queue_depth")) {
		cfg->sched.hw_queue_depth = (uint32_t)job_num(v);
	} else if (!strcmp(k, "nr_requests")) {
		cfg->nr_requests = (uint32_t)job_num(v);
	} else if (!strcmp(k, "nomerges")) {
		cfg->nomerges = (uint32_t)job_num(v);
	} else {
		job_set(r, k, v);
	}
}

static void job_key(struct replay *r, struct vsim_job *j, const char *k, const char *v)
{
	if (!strcmp(k, "rw")) {
		int rw = vsim_rw_by_name(v);

		assert_true(rw >= 0);
		j->rw = (enum vsim_rw)rw;
	} else if (!strcmp(k, "sched_group")) {
		j->group = (uint32_t)job_num(v + 1);
	} else if (!strcmp(k, "sched_weight")) {
		r->cfg.sched.group_weight[j->group] = (uint16_t)job_num(v);
	} else if (!strcmp(k, "bs")) {
		j->bs = (uint32_t)job_num(v);
	} else if (!strcmp(k, "iodepth")) {
		j->iodepth = (uint32_t)job_num(v);
	} else if (!strcmp(k, "direct")) {
		j->direct = job_num(v) != 0;
	} else if (!strcmp(k, "rwmixread")) {
		j->rwmixread = (uint32_t)job_num(v);
	} else if (!strcmp(k, "numjobs")) {
		j->numjobs = (uint32_t)job_num(v);
	} else if (!strcmp(k, "thinktime")) {
		j->thinktime_us = job_num(v);
	} else if (!strcmp(k, "fsync")) {
		j->fsync = (uint32_t)job_num(v);
	} else if (!strcmp(k, "prioclass")) {
		j->prio_class = (uint8_t)job_num(v);
	} else if (!strcmp(k, "prio")) {
		j->prio_level = (uint8_t)job_num(v);
	} else if (!strcmp(k, "startdelay")) {
		j->startdelay_ns = job_num(v) * MS;
	} else if (!strcmp(k, "offset")) {
		j->offset = job_num(v);
	} else if (!strcmp(k, "size")) {
		j->size = job_num(v);
	} else if (!strcmp(k, "offset_increment")) {
		j->offset_increment = job_num(v);
	} else if (!strcmp(k, "number_ios")) {
		j->number_ios = job_num(v);
	} else {
		fail_msg("%s: unknown job key", k);
	}
}

void replay_jobfile(struct replay *r, enum sched_policy_id policy, const char *text,
		    const char *const *tunables)
{
	char line[512];
	int job = -1;

	memset(r, 0, sizeof(*r));
	vsim_config_defaults(&r->cfg, policy, DEVMODEL_HDD);
	/* The oracle's streams' default (oracle/harness/stream.c): no merging unless nomerges=. */
	r->cfg.nomerges = BLK_NOMERGES_MAX;
	r->cfg.seed = 1;
	while (*text) {
		size_t n = strcspn(text, "\n");
		char *save = NULL, *p;

		assert_true(n < sizeof(line));
		memcpy(line, text, n);
		line[n] = 0;
		text += n + (text[n] == '\n');
		if (!strncmp(line, "; vsim:", 7)) {
			char *q;

			if ((q = strstr(line, " seed=")))
				r->cfg.seed = strtoull(q + 6, NULL, 0);
			if ((q = strstr(line, "dev.seed=")))
				r->cfg.dev.seed = strtoull(q + 9, NULL, 0);
			continue;
		}
		if (line[0] == ';')
			continue;
		for (p = strtok_r(line, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
			char *eq;

			if (*p == '[') {
				p[strlen(p) - 1] = 0;
				if (!strcmp(p + 1, "global"))
					continue;
				assert_true(r->nj < 16);
				job = (int)r->nj++;
				vsim_job_defaults(&r->job[job]);
				snprintf(r->names[job], sizeof(r->names[job]), "%s", p + 1);
				r->job[job].name = r->names[job];
				continue;
			}
			eq = strchr(p, '=');
			assert_non_null(eq);
			*eq = 0;
			if (job < 0)
				job_global(r, p, eq + 1);
			else
				job_key(r, &r->job[job], p, eq + 1);
		}
	}
	for (int i = 0; tunables && tunables[i]; i += 2)
		job_set(r, tunables[i], tunables[i + 1]);
}

void replay_switch_case(const struct switch_case *c, enum sched_policy_id policy)
{
	const char *const off[] = {c->sw, "0", NULL}, *const on[] = {c->sw, "1", NULL};
	struct replay *a = calloc(2, sizeof(*a)), *b = a + 1;
	uint32_t i = 0, k = 0;

	assert_non_null(a);
	replay_jobfile(a, policy, c->job, off);
	replay_go(a);
	replay_jobfile(b, policy, c->job, on);
	replay_go(b);
	while (i < a->n && k < b->n && a->ns[i] == b->ns[k] && !strcmp(a->line[i], b->line[k]))
		i++, k++;
	if (i == a->n || k == b->n)
		fail_msg("%s: the two positions give the same %u block events", c->sw, a->n);
	if (strcmp(a->line[i], c->off) || a->ns[i] / 1000 != c->off_us ||
	    strcmp(b->line[k], c->on) || b->ns[k] / 1000 != c->on_us)
		fail_msg("%s: first difference: off \"%s\" at %" PRIu64 " us, on \"%s\" at %" PRIu64
			 " us; want off \"%s\" at %" PRIu64 " us, on \"%s\" at %" PRIu64 " us",
			 c->sw, a->line[i], a->ns[i] / 1000, b->line[k], b->ns[k] / 1000, c->off,
			 c->off_us, c->on, c->on_us);
	replay_free(a);
	replay_free(b);
	free(a);
}

uint64_t replay_time_of(const struct replay *r, const char *event)
{
	for (uint32_t i = 0; i < r->n; i++)
		if (replay_is_block(r->line[i]) && !strcmp(r->line[i], event))
			return r->ns[i];
	return UINT64_MAX;
}

