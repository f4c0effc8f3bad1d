// SPDX-License-Identifier: GPL-2.0
/*
 * A stream from a job file: the format oracle_stream_jobfile() writes (the minimised reproducers),
 * read back, so that a hand-made workload (a seed's, a regression's) runs through both
 * implementations as a drawn stream does: `oracle --variant ID --job FILE`.
 *
 *   ; vsim: seed=0x... dev.seed=0x...          (optional; default seed 1 and the model's)
 *   [global]  device_model=hdd|ssd|...  runtime=NNNms  hw_queue_depth=N  nr_requests=N
 *             <tunable>=<value> (the variant's policy; its version tunable is the variant's)
 *             dev_* hdd_* ssd_* cloud_*=<value> (the device model's parameters, after
 *             device_model)
 *   [name]    rw= bs= iodepth= direct= rwmixread= numjobs= thinktime= (us) fsync= prioclass=
 *             prio= sched_group=gN sched_weight=W startdelay=NNNms offset= size=
 *             offset_increment= number_ios=
 *
 * Nothing in it is a knob: the stream is not minimised.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = 0;
	return s;
}

static int num(const char *v, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(v, &end, 0);
	if (errno || end == v)
		return -1;
	/* a unit suffix the writer uses: ms (times), k/m/g (sizes) */
	if (!strcmp(end, "k") || !strcmp(end, "K"))
		*out <<= 10;
	else if (!strcmp(end, "m") || !strcmp(end, "M"))
		*out <<= 20;
	else if (!strcmp(end, "g") || !strcmp(end, "G"))
		*out <<= 30;
	else if (*end && strcmp(end, "ms") && strcmp(end, "us"))
		return -1;
	return 0;
}

static int global_key(struct oracle_stream *s, const char *k, const char *v, char *err,
		      size_t errlen)
{
	struct vsim_config *cfg = &s->cfg;
	uint64_t x;

	if (!strcmp(k, "ioengine") || !strcmp(k, "filename") || !strcmp(k, "time_based"))
		return 0;
	if (!strcmp(k, "sched")) {
		if (sched_policy_by_name(v) != (int)s->v->policy) {
			snprintf(err, errlen, "sched=%s: the variant is %s", v,
				 sched_policy_ops(s->v->policy)->name);
			return -1;
		}
		return 0;
	}
	if (!strcmp(k, "device_model")) {
		int kind = devmodel_kind_by_name(v);
		uint64_t seed = cfg->seed, dev_seed = cfg->dev.seed;

		if (kind < 0) {
			snprintf(err, errlen, "device_model=%s: unknown", v);
			return -1;
		}
		struct sched_config keep = cfg->sched;
		uint32_t nomerges = cfg->nomerges;

		/* The model's defaults (depth, rotational flag...), the tunables given so far. */
		vsim_config_defaults(cfg, s->v->policy, (enum devmodel_kind)kind);
		cfg->seed = seed;
		cfg->nomerges = nomerges;
		if (dev_seed)
			cfg->dev.seed = dev_seed;
		memcpy(cfg->sched.tunable, keep.tunable, sizeof(keep.tunable));
		memcpy(cfg->sched.tunable_given, keep.tunable_given, sizeof(keep.tunable_given));
		return 0;
	}
	if (!strcmp(k, "runtime")) {
		if (num(v, &x))
			goto bad;
		cfg->runtime_ns = x * 1000000ull;
		return 0;
	}
	if (!strcmp(k, "hw_queue_depth")) {
		if (num(v, &x))
			goto bad;
		cfg->sched.hw_queue_depth = (uint32_t)x;
		return 0;
	}
	if (!strcmp(k, "nomerges")) {
		if (num(v, &x) || x > BLK_NOMERGES_MAX)
			goto bad;
		cfg->nomerges = (uint32_t)x;
		return 0;
	}
	if (!strcmp(k, "max_sectors_kb")) {
		if (num(v, &x) || x < 4 || x > UINT32_MAX)
			goto bad;
		cfg->max_sectors_kb = (uint32_t)x;
		return 0;
	}
	if (!strcmp(k, "nr_requests")) {
		if (num(v, &x))
			goto bad;
		cfg->nr_requests = (uint32_t)x;
		return 0;
	}
	if (devmodel_param_kind(cfg->dev.kind, k) >= 0)
		return devmodel_set_param(&cfg->dev, k, v, err, errlen);
	if (sched_config_set_tunable(&cfg->sched, k, v, err, errlen))
		return -1;
	return 0;
bad:
	snprintf(err, errlen, "%s=%s: not a number", k, v);
	return -1;
}

static int job_key(struct oracle_stream *s, struct vsim_job *j, const char *k, const char *v,
		   char *err, size_t errlen)
{
	uint64_t x = 0;
	bool isnum = !num(v, &x);

	if (!strcmp(k, "rw")) {
		int rw = vsim_rw_by_name(v);

		if (rw < 0) {
			snprintf(err, errlen, "rw=%s: unknown", v);
			return -1;
		}
		j->rw = (enum vsim_rw)rw;
		return 0;
	}
	if (!strcmp(k, "sched_group")) {
		if (v[0] != 'g' || num(v + 1, &x) || !x || x >= SCHED_MAX_GROUPS) {
			snprintf(err, errlen, "sched_group=%s: want g1 .. g%d", v,
				 SCHED_MAX_GROUPS - 1);
			return -1;
		}
		j->group = (uint32_t)x;
		return 0;
	}
	if (!isnum) {
		snprintf(err, errlen, "%s=%s: unknown key or not a number", k, v);
		return -1;
	}
	if (!strcmp(k, "bs"))
		j->bs = (uint32_t)x;
	else if (!strcmp(k, "iodepth"))
		j->iodepth = (uint32_t)x;
	else if (!strcmp(k, "direct"))
		j->direct = x != 0;
	else if (!strcmp(k, "rwmixread"))
		j->rwmixread = (uint32_t)x;
	else if (!strcmp(k, "numjobs"))
		j->numjobs = (uint32_t)x;
	else if (!strcmp(k, "thinktime"))
		j->thinktime_us = x;
	else if (!strcmp(k, "fsync"))
		j->fsync = (uint32_t)x;
	else if (!strcmp(k, "prioclass"))
		j->prio_class = (uint8_t)x;
	else if (!strcmp(k, "prio"))
		j->prio_level = (uint8_t)x;
	else if (!strcmp(k, "sched_weight"))
		s->cfg.sched.group_weight[j->group] = (uint16_t)x; /* after sched_group */
	else if (!strcmp(k, "startdelay"))
		j->startdelay_ns = x * 1000000ull;
	else if (!strcmp(k, "offset"))
		j->offset = x;
	else if (!strcmp(k, "size"))
		j->size = x;
	else if (!strcmp(k, "offset_increment"))
		j->offset_increment = x;
	else if (!strcmp(k, "number_ios"))
		j->number_ios = x;
	else {
		snprintf(err, errlen, "%s: unknown job key", k);
		return -1;
	}
	return 0;
}

int oracle_stream_parse(struct oracle_stream *s, const struct oracle_variant *v, const char *path,
			char *err, size_t errlen)
{
	const struct sched_policy_ops *ops = sched_policy_ops(v->policy);
	FILE *f = fopen(path, "r");
	char line[512];
	int job = -1, ln = 0;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	memset(s, 0, sizeof(*s));
	s->v = v;
	vsim_config_defaults(&s->cfg, v->policy, DEVMODEL_HDD);
	/* The streams' default, as stream.c draws them: no merging unless nomerges= says so. */
	s->cfg.nomerges = BLK_NOMERGES_MAX;
	for (unsigned int i = 0; i < ops->nr_tunables; i++)
		if (!strcmp(ops->tunables[i].unit, "version") &&
		    sched_config_set_tunable(&s->cfg.sched, ops->tunables[i].name, v->version, err,
					     errlen))
			goto fail;
	while (fgets(line, sizeof(line), f)) {
		char *p = trim(line), *eq;
		size_t n = strlen(p);

		ln++;
		if (!strncmp(p, "; vsim:", 7)) {
			char *q;

			if ((q = strstr(p, " seed=")))
				s->cfg.seed = strtoull(q + 6, NULL, 0);
			if ((q = strstr(p, "dev.seed=")))
				s->cfg.dev.seed = strtoull(q + 9, NULL, 0);
			continue;
		}
		if (!*p || *p == ';' || *p == '#')
			continue;
		if (*p == '[' && p[n - 1] == ']') {
			p[n - 1] = 0;
			if (!strcmp(p + 1, "global")) {
				job = -1;
				continue;
			}
			if (s->nr_jobs_drawn == ORACLE_MAX_JOBS) {
				snprintf(err, errlen, "%s:%d: more than %d jobs", path, ln,
					 ORACLE_MAX_JOBS);
				goto fail;
			}
			job = (int)s->nr_jobs_drawn++;
			vsim_job_defaults(&s->jobs[job]);
			snprintf(s->names[job], sizeof(s->names[job]), "%s", p + 1);
			s->jobs[job].name = s->names[job];
			continue;
		}
		if (!(eq = strchr(p, '='))) {
			snprintf(err, errlen, "%s:%d: want key=value", path, ln);
			goto fail;
		}
		*eq = 0;
		if ((job < 0 ? global_key(s, trim(p), trim(eq + 1), err, errlen)
			     : job_key(s, &s->jobs[job], trim(p), trim(eq + 1), err, errlen))) {
			char msg[256];

			snprintf(msg, sizeof(msg), "%s", err);
			snprintf(err, errlen, "%s:%d: %s", path, ln, msg);
			goto fail;
		}
	}
	fclose(f);
	if (!s->nr_jobs_drawn) {
		snprintf(err, errlen, "%s: no job", path);
		return -1;
	}
	memcpy(s->drawn, s->jobs, sizeof(s->drawn));
	s->drawn_sched = s->cfg.sched;
	s->cfg.jobs = s->jobs;
	s->cfg.nr_jobs = s->nr_jobs_drawn;
	return 0;
fail:
	fclose(f);
	return -1;
}
