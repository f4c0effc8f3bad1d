// SPDX-License-Identifier: GPL-2.0
/*
 * Randomised request streams for the oracle, reproducible from (seed, variant, index): 1 to 64
 * owners in up to ORACLE_MAX_JOBS fio-like jobs (sequential, random and mixed reads and writes,
 * 4 KiB to 1 MiB, depth 1 to 32, think times up to 20 ms, direct or buffered writes, fsyncs), the
 * three ioprio classes, up to 4 groups with weights, a device model, queue depths, and the
 * policy's tunables drawn from their sysfs ranges. The behaviour profile of the embedded policy
 * is pinned to the variant's kernel version (deadline_version, bfq_version; its switches stay at
 * that version's values): the kernel file is that version.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "oracle.h"

const char *oracle_against;
int oracle_nomerges = -1;
uint32_t oracle_max_sectors_kb;
const char *oracle_set[ORACLE_MAX_SET];
unsigned int oracle_nr_set;

/* oracle --set NAME=VALUE on the stream's configuration; 0, or -1 with a message. */
int oracle_apply_set(struct sched_config *sc, char *err, size_t errlen)
{
	for (unsigned int i = 0; i < oracle_nr_set; i++) {
		char name[64];
		const char *eq = strchr(oracle_set[i], '=');
		size_t n = eq ? (size_t)(eq - oracle_set[i]) : 0;

		if (!eq || !n || n >= sizeof(name)) {
			snprintf(err, errlen, "--set %s: want NAME=VALUE", oracle_set[i]);
			return -1;
		}
		memcpy(name, oracle_set[i], n);
		name[n] = 0;
		if (sched_config_set_tunable(sc, name, eq + 1, err, errlen))
			return -1;
	}
	return 0;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t *s, uint64_t n)
{
	return n ? splitmix(s) % n : 0;
}

/* p in percent */
static bool chance(uint64_t *s, unsigned int p)
{
	return below(s, 100) < p;
}

static uint64_t pick(uint64_t *s, const uint64_t *v, size_t n)
{
	return v[below(s, n)];
}
#define PICK(s, ...)                                                                               \
	({                                                                                         \
		static const uint64_t _v[] = {__VA_ARGS__};                                        \
		pick(s, _v, sizeof(_v) / sizeof(_v[0]));                                           \
	})

static uint64_t hash_str(const char *p)
{
	uint64_t h = 1469598103934665603ull;

	while (*p)
		h = (h ^ (uint8_t)*p++) * 1099511628211ull;
	return h;
}

/* A profile tunable (its version, its switches, the kernel's HZ) is the variant's, never
 * drawn; nor is a model knob (bfq_model_*: a mechanism switched off for ablation, which no
 * kernel file can express). */
static bool profile_tunable(const struct sched_tunable_desc *d)
{
	return !strcmp(d->unit, "version") || !strcmp(d->unit, "Hz") || strstr(d->name, "_sw_") ||
	       strstr(d->name, "_model_");
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* A value of tunable d other than its default, from its range: small and large, 0 where allowed.
 * Times are kept within 10 s (a run lasts well under a second). */
static int64_t draw_tunable(uint64_t *s, const struct sched_tunable_desc *d)
{
	int64_t lo = d->min, hi = d->max, def = d->def, v;

	if (!strcmp(d->unit, "ms"))
		hi = hi < 10000 ? hi : 10000;
	else if (!strcmp(d->unit, "us"))
		hi = hi < 10000000 ? hi : 10000000;
	else if (hi > 1000000)
		hi = def > 0 ? def * 64 : 1000000;
	if (lo == 0 && hi == 1)
		return !def;
	for (int tries = 0; tries < 8; tries++) {
		switch (below(s, 7)) {
		case 0:
			v = lo;
			break;
		case 1:
			v = lo == 0 ? 0 : 1;
			break;
		case 2:
			v = def / 4;
			break;
		case 3:
			v = def / 2;
			break;
		case 4:
			v = def * 2;
			break;
		case 5:
			v = def * 4 + 1;
			break;
		default:
			v = lo + (int64_t)below(s, (uint64_t)(hi - lo + 1));
			break;
		}
		v = clamp64(v, lo, hi);
		if (v != def)
			return v;
	}
	return def == lo ? (lo < hi ? lo + 1 : lo) : lo;
}

static void add_knob(struct oracle_stream *s, uint8_t kind, uint8_t job, uint16_t index)
{
	if (s->nr_knobs < ORACLE_MAX_KNOBS)
		s->knob[s->nr_knobs++] = (struct oracle_knob){kind, job, index, true};
}

void oracle_stream_draw(struct oracle_stream *st, const struct oracle_variant *v, uint64_t seed,
			uint64_t index, uint64_t runtime_ns)
{
	uint64_t r = seed ^ hash_str(v->id) ^ (index * 0xd1b54a32d192ed03ull);
	/* Knobs added after the first campaigns draw from their own sequence: the streams drawn
	 * before them stay what they were. */
	uint64_t r2 = r ^ 0x6a09e667f3bcc909ull;
	const struct sched_policy_ops *ops = sched_policy_ops(v->policy);
	struct vsim_config *cfg = &st->cfg;
	enum devmodel_kind kind = (enum devmodel_kind)PICK(&r, DEVMODEL_HDD, DEVMODEL_HDD,
							     DEVMODEL_SSD, DEVMODEL_CLOUD_SSD);
	uint32_t owners = 0, groups = 1;
	bool weighted = v->policy == SCHED_POLICY_CFQ || v->policy == SCHED_POLICY_BFQ;
	uint32_t wmin, wmax, wdef;

	memset(st, 0, sizeof(*st));
	st->v = v;
	st->seed = seed;
	st->index = index;
	splitmix(&r);
	vsim_config_defaults(cfg, v->policy, kind);
	/* queue/nomerges and max_sectors_kb: drawn from a third sequence (older draws stay), half
	 * the streams with every merge (the kernel's default 0), a quarter with the one-hit cache
	 * only (1), a quarter with none (2); a fifth of the merging ones with a small request limit,
	 * where merges are refused. --nomerges / --max-sectors-kb fix them for every stream. */
	{
		uint64_t r3 = r ^ 0xbb67ae8584caa73bull;

		splitmix(&r3);
		cfg->nomerges = (uint32_t)PICK(&r3, 0, 0, 1, 2);
		if (cfg->nomerges < 2 && chance(&r3, 20))
			cfg->max_sectors_kb = (uint32_t)PICK(&r3, 64, 128);
		if (oracle_nomerges >= 0)
			cfg->nomerges = (uint32_t)oracle_nomerges;
		if (oracle_max_sectors_kb)
			cfg->max_sectors_kb = oracle_max_sectors_kb;
	}
	/* A file of the legacy block layer (deadline-iosched.c...) runs over blk/'s legacy mode. */
	if (!strcmp(v->adapter, "sq"))
		cfg->sched.blk_mode = SCHED_BLK_LEGACY;
	/* Kyber decides every 100 ms on 500 samples or a second's: its streams run longer. */
	if (v->policy == SCHED_POLICY_KYBER)
		cfg->runtime_ns =
		    runtime_ns ? runtime_ns : PICK(&r, 500, 1000, 1500, 2000) * 1000000ull;
	else
		cfg->runtime_ns =
		    runtime_ns ? runtime_ns : PICK(&r, 100, 200, 300, 500) * 1000000ull;
	cfg->seed = splitmix(&r) | 1;
	cfg->dev.seed = splitmix(&r) >> 8;
	/* The variant's version for the embedded profile. */
	for (unsigned int i = 0; i < ops->nr_tunables; i++) {
		const struct sched_tunable_desc *d = &ops->tunables[i];
		char err[128];

		if (!strcmp(d->unit, "version"))
			sched_config_set_tunable(&cfg->sched, d->name,
						 oracle_against ? oracle_against : v->version, err,
						 sizeof(err));
		/* The HZ the variants were built with (ORACLE_HZ, oracle.mk). */
		if (!strcmp(d->unit, "Hz")) {
			char hz[16];

			snprintf(hz, sizeof(hz), "%d", ORACLE_HZ);
			sched_config_set_tunable(&cfg->sched, d->name, hz, err, sizeof(err));
		}
	}
	{
		char err[128];

		(void)oracle_apply_set(&cfg->sched, err, sizeof(err)); /* checked by main() */
	}
	/* Device queue and request pool. */
	if (chance(&r, 35)) {
		cfg->sched.hw_queue_depth = (uint32_t)PICK(&r, 1, 2, 4, 8, 16);
		add_knob(st, KNOB_DEPTH, 0, 0);
	}
	if (chance(&r, 25)) {
		cfg->nr_requests = (uint32_t)PICK(&r, 4, 8, 16, 32, 256);
		add_knob(st, KNOB_NR_REQUESTS, 0, 0);
	}
	/* Groups. */
	sched_policy_weights(v->policy, &wmin, &wmax, &wdef);
	if (weighted && chance(&r, 40)) {
		char err[200];

		groups = 2 + (uint32_t)below(&r, 3);
		for (uint32_t g = 1; g < groups; g++) {
			if (chance(&r, 70)) {
				cfg->sched.group_weight[g] =
				    (uint16_t)clamp64((int64_t)PICK(&r, 10, 50, 100, 200, 500, 1000),
						      wmin, wmax);
				add_knob(st, KNOB_WEIGHT, (uint8_t)g, 0);
			}
		}
		if (chance(&r, 30)) {
			cfg->sched.group_weight[0] =
			    (uint16_t)clamp64((int64_t)PICK(&r, 10, 100, 1000), wmin, wmax);
			add_knob(st, KNOB_WEIGHT, 0, 0);
		}
		/* A weight the profile refuses (2.6.36's blkio.weight: 100..1000): the default. */
		uint16_t drawn[SCHED_MAX_GROUPS];

		for (uint32_t g = 0; g < groups; g++) {
			drawn[g] = cfg->sched.group_weight[g];
			cfg->sched.group_weight[g] = (uint16_t)wdef;
		}
		for (uint32_t g = 0; g < groups; g++) {
			cfg->sched.group_weight[g] = drawn[g];
			if (sched_config_check(&cfg->sched, err, sizeof(err)))
				cfg->sched.group_weight[g] = (uint16_t)wdef;
		}
	}
	/* Jobs. */
	st->nr_jobs_drawn = 1 + (uint32_t)below(&r, chance(&r, 50) ? 3 : ORACLE_MAX_JOBS);
	for (uint32_t j = 0; j < st->nr_jobs_drawn; j++) {
		struct vsim_job *job = &st->drawn[j];
		uint64_t cap = cfg->dev.capacity_bytes;

		vsim_job_defaults(job);
		snprintf(st->names[j], sizeof(st->names[j]), "job%u", j);
		job->name = st->names[j];
		add_knob(st, KNOB_JOB, (uint8_t)j, 0);
		if (owners < 64 && chance(&r, 35)) {
			job->numjobs = (uint32_t)PICK(&r, 2, 2, 3, 4, 8, 16, 32);
			if (owners + job->numjobs > 64)
				job->numjobs = 64 - owners;
			if (job->numjobs > 1)
				add_knob(st, KNOB_NUMJOBS, (uint8_t)j, 0);
			else
				job->numjobs = 1;
		}
		owners += job->numjobs;
		if (chance(&r, 70)) {
			job->rw = (enum vsim_rw)PICK(&r, VSIM_READ, VSIM_READ, VSIM_WRITE, VSIM_RANDWRITE,
						     VSIM_RANDRW, VSIM_RW);
			job->rwmixread = (uint32_t)PICK(&r, 10, 30, 50, 70, 90);
			add_knob(st, KNOB_RW, (uint8_t)j, 0);
		}
		if (chance(&r, 40)) {
			job->bs = (uint32_t)PICK(&r, 8192, 16384, 65536, 131072, 262144, 1048576);
			add_knob(st, KNOB_BS, (uint8_t)j, 0);
		}
		if (chance(&r, 45)) {
			job->iodepth = (uint32_t)PICK(&r, 2, 4, 8, 16, 32);
			add_knob(st, KNOB_IODEPTH, (uint8_t)j, 0);
		}
		if (chance(&r, 35)) {
			job->thinktime_us = PICK(&r, 50, 200, 1000, 5000, 10000, 20000);
			add_knob(st, KNOB_THINK, (uint8_t)j, 0);
		}
		if (job->rw != VSIM_READ && job->rw != VSIM_RANDREAD) {
			if (chance(&r, 50)) {
				job->direct = false; /* buffered: writes reach the queue as async */
				add_knob(st, KNOB_BUFFERED, (uint8_t)j, 0);
			}
			if (chance(&r, 20)) {
				job->fsync = (uint32_t)PICK(&r, 1, 4, 16);
				add_knob(st, KNOB_FSYNC, (uint8_t)j, 0);
			}
			/* O_SYNC buffered writes: written back at once as REQ_SYNC without
			 * REQ_IDLE (2.6.x's WRITE_SYNC, with REQ_NOIDLE). */
			if (!job->direct && chance(&r2, 30)) {
				job->sync_writes = true;
				add_knob(st, KNOB_SYNC, (uint8_t)j, 0);
			}
		}
		if (chance(&r, 30)) {
			job->prio_class = (uint8_t)PICK(&r, SCHED_IOPRIO_CLASS_RT, SCHED_IOPRIO_CLASS_BE,
							SCHED_IOPRIO_CLASS_BE, SCHED_IOPRIO_CLASS_IDLE);
			job->prio_level = (uint8_t)below(&r, 8);
			add_knob(st, KNOB_PRIO, (uint8_t)j, 0);
		}
		if (groups > 1 && chance(&r, 75)) {
			job->group = 1 + (uint32_t)below(&r, groups - 1);
			add_knob(st, KNOB_GROUP, (uint8_t)j, 0);
		}
		if (chance(&r, 20)) {
			job->startdelay_ns = PICK(&r, 1, 5, 20, 50) * 1000000ull;
			add_knob(st, KNOB_STARTDELAY, (uint8_t)j, 0);
		}
		/* Processes that exit while the others go on (fio's number_ios): the policy's
		 * exit path (exit_icq) with queues still in its trees and lists. Drawn from r2,
		 * as the knobs added after the first campaigns, so the older draws stay. */
		if (chance(&r2, 15)) {
			job->number_ios = PICK(&r2, 1, 4, 32, 256);
			add_knob(st, KNOB_EXIT, (uint8_t)j, 0);
		}
		/* A region: the whole device, or a slice of it (clones spread by offset_increment). */
		if (chance(&r, 30)) {
			job->size = PICK(&r, 1, 16, 256) << 20;
			job->offset = below(&r, cap / 2) & ~(uint64_t)0xfffff;
			job->offset_increment = job->size;
			add_knob(st, KNOB_SEQREGION, (uint8_t)j, 0);
		}
	}
	/* Tunables. */
	for (unsigned int i = 0; i < ops->nr_tunables && i < SCHED_MAX_TUNABLES; i++) {
		const struct sched_tunable_desc *d = &ops->tunables[i];

		int64_t old = cfg->sched.tunable[i];
		char err[200];

		if (profile_tunable(d) || !chance(&r, 20))
			continue;
		cfg->sched.tunable[i] = draw_tunable(&r, d);
		cfg->sched.tunable_given[i] = true;
		/* A tunable the profile does not have (cfq's *_us before 4.10): not drawn. */
		if (sched_config_check(&cfg->sched, err, sizeof(err))) {
			cfg->sched.tunable[i] = old;
			cfg->sched.tunable_given[i] = false;
			continue;
		}
		add_knob(st, KNOB_TUNABLE, 0, (uint16_t)i);
	}
	st->drawn_sched = cfg->sched;
	st->drawn_nr_requests = cfg->nr_requests;
	oracle_stream_apply(st);
}

static bool knob_on(const struct oracle_stream *s, uint8_t kind, uint32_t job, uint32_t index)
{
	for (uint32_t k = 0; k < s->nr_knobs; k++)
		if (s->knob[k].kind == kind && s->knob[k].job == job && s->knob[k].index == index)
			return s->knob[k].on;
	return false;
}

void oracle_stream_apply(struct oracle_stream *s)
{
	struct vsim_config *cfg = &s->cfg;
	const struct sched_policy_ops *ops = sched_policy_ops(s->v->policy);
	uint32_t n = 0;

	cfg->sched = s->drawn_sched;
	if (!knob_on(s, KNOB_DEPTH, 0, 0))
		cfg->sched.hw_queue_depth = 0;
	/* Every knob is applied both ways: minimisation turns knobs back on. */
	cfg->nr_requests =
	    knob_on(s, KNOB_NR_REQUESTS, 0, 0) ? s->drawn_nr_requests : SCHED_NR_REQUESTS_AUTO;
	for (uint32_t g = 0; g < SCHED_MAX_GROUPS; g++)
		if (!knob_on(s, KNOB_WEIGHT, g, 0)) {
			uint32_t wmin, wmax, wdef;

			sched_policy_weights(s->v->policy, &wmin, &wmax, &wdef);
			cfg->sched.group_weight[g] = (uint16_t)wdef;
		}
	for (unsigned int i = 0; i < ops->nr_tunables && i < SCHED_MAX_TUNABLES; i++)
		if (s->drawn_sched.tunable_given[i] && !profile_tunable(&ops->tunables[i]) &&
		    !knob_on(s, KNOB_TUNABLE, 0, i)) {
			cfg->sched.tunable_given[i] = false;
			cfg->sched.tunable[i] = ops->tunables[i].def;
		}
	for (uint32_t j = 0; j < s->nr_jobs_drawn; j++) {
		struct vsim_job job = s->drawn[j], def;

		if (!knob_on(s, KNOB_JOB, j, 0))
			continue;
		vsim_job_defaults(&def);
		if (!knob_on(s, KNOB_NUMJOBS, j, 0))
			job.numjobs = 1;
		if (!knob_on(s, KNOB_RW, j, 0))
			job.rw = def.rw;
		if (!knob_on(s, KNOB_BS, j, 0))
			job.bs = def.bs;
		if (!knob_on(s, KNOB_IODEPTH, j, 0))
			job.iodepth = def.iodepth;
		if (!knob_on(s, KNOB_THINK, j, 0))
			job.thinktime_us = 0;
		if (!knob_on(s, KNOB_BUFFERED, j, 0) || job.rw == VSIM_READ || job.rw == VSIM_RANDREAD)
			job.direct = true;
		if (!knob_on(s, KNOB_FSYNC, j, 0) || job.rw == VSIM_READ || job.rw == VSIM_RANDREAD)
			job.fsync = 0;
		if (!knob_on(s, KNOB_SYNC, j, 0) || job.direct)
			job.sync_writes = false;
		if (!knob_on(s, KNOB_PRIO, j, 0)) {
			job.prio_class = def.prio_class;
			job.prio_level = def.prio_level;
		}
		if (!knob_on(s, KNOB_GROUP, j, 0))
			job.group = 0;
		if (!knob_on(s, KNOB_STARTDELAY, j, 0))
			job.startdelay_ns = 0;
		if (!knob_on(s, KNOB_EXIT, j, 0))
			job.number_ios = 0;
		if (!knob_on(s, KNOB_SEQREGION, j, 0)) {
			job.offset = 0;
			job.size = 0;
			job.offset_increment = 0;
		}
		s->jobs[n++] = job;
	}
	cfg->jobs = s->jobs;
	cfg->nr_jobs = n;
}

void oracle_knob_name(const struct oracle_stream *s, const struct oracle_knob *k, char *buf,
		      size_t len)
{
	const struct vsim_job *j = &s->drawn[k->job < ORACLE_MAX_JOBS ? k->job : 0];
	static const char *const prio[] = {"none", "rt", "be", "idle"};

	switch (k->kind) {
	case KNOB_JOB:
		snprintf(buf, len, "job%u", k->job);
		break;
	case KNOB_NUMJOBS:
		snprintf(buf, len, "numjobs=%u", j->numjobs);
		break;
	case KNOB_RW:
		snprintf(buf, len, "rw=%s", vsim_rw_name(j->rw));
		break;
	case KNOB_BS:
		snprintf(buf, len, "bs=%uk", j->bs >> 10);
		break;
	case KNOB_IODEPTH:
		snprintf(buf, len, "iodepth=%u", j->iodepth);
		break;
	case KNOB_THINK:
		snprintf(buf, len, "thinktime=%" PRIu64 "us", j->thinktime_us);
		break;
	case KNOB_BUFFERED:
		snprintf(buf, len, "buffered");
		break;
	case KNOB_FSYNC:
		snprintf(buf, len, "fsync=%u", j->fsync);
		break;
	case KNOB_SYNC:
		snprintf(buf, len, "sync");
		break;
	case KNOB_PRIO:
		snprintf(buf, len, "prioclass=%s", prio[j->prio_class & 3]);
		break;
	case KNOB_GROUP:
		snprintf(buf, len, "group");
		break;
	case KNOB_STARTDELAY:
		snprintf(buf, len, "startdelay");
		break;
	case KNOB_EXIT:
		snprintf(buf, len, "number_ios=%" PRIu64, j->number_ios);
		break;
	case KNOB_SEQREGION:
		snprintf(buf, len, "region=%" PRIu64 "m", j->size >> 20);
		break;
	case KNOB_TUNABLE:
		snprintf(buf, len, "%s=%" PRId64, sched_policy_ops(s->v->policy)->tunables[k->index].name,
			 s->drawn_sched.tunable[k->index]);
		break;
	case KNOB_DEPTH:
		snprintf(buf, len, "hw_queue_depth=%u", s->drawn_sched.hw_queue_depth);
		break;
	case KNOB_NR_REQUESTS:
		snprintf(buf, len, "nr_requests");
		break;
	case KNOB_WEIGHT:
		snprintf(buf, len, "weight");
		break;
	default:
		snprintf(buf, len, "?");
	}
}

size_t oracle_stream_jobfile(const struct oracle_stream *s, char *buf, size_t len)
{
	const struct vsim_config *cfg = &s->cfg;
	const struct sched_policy_ops *ops = sched_policy_ops(s->v->policy);
	static const char *const prio_class[] = {"0", "1", "2", "3"};
	size_t n = 0;

#define OUT(...)                                                                                   \
	do {                                                                                       \
		int _r = snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__);                    \
		if (_r > 0)                                                                        \
			n += (size_t)_r;                                                           \
	} while (0)
	OUT("; oracle stream %" PRIu64 " of seed %" PRIu64 " for %s\n", s->index, s->seed, s->v->id);
	/* What a replay through vsim needs beside the options (a regression test's). */
	OUT("; vsim: seed=0x%" PRIx64 " dev.seed=0x%" PRIx64 "\n", cfg->seed, cfg->dev.seed);
	OUT("[global]\nioengine=external:libschedengine.so\nsched=%s\n",
	    s->v->policy == SCHED_POLICY_DEADLINE ? "deadline"
	    : s->v->policy == SCHED_POLICY_CFQ    ? "cfq"
	    : s->v->policy == SCHED_POLICY_BFQ    ? "bfq"
	    : s->v->policy == SCHED_POLICY_KYBER  ? "kyber"
						  : "none");
	OUT("device_model=%s\nfilename=model.dat\nruntime=%" PRIu64 "ms\ntime_based=1\n",
	    devmodel_kind_name(cfg->dev.kind), cfg->runtime_ns / 1000000);
	if (cfg->sched.blk_mode == SCHED_BLK_LEGACY && s->v->policy != SCHED_POLICY_CFQ)
		OUT("blk_mode=legacy\n");
	if (cfg->sched.hw_queue_depth)
		OUT("hw_queue_depth=%u\n", cfg->sched.hw_queue_depth);
	/* Always: the engine's and schedsim's default (0) is not the streams' (2). */
	OUT("nomerges=%u\n", cfg->nomerges);
	if (cfg->max_sectors_kb)
		OUT("max_sectors_kb=%u\n", cfg->max_sectors_kb);
	if (cfg->nr_requests != SCHED_NR_REQUESTS_AUTO)
		OUT("nr_requests=%u\n", cfg->nr_requests);
	for (unsigned int i = 0; i < ops->nr_tunables; i++)
		if (cfg->sched.tunable_given[i]) {
			if (!strcmp(ops->tunables[i].unit, "version"))
				OUT("%s=%s\n", ops->tunables[i].name, s->v->version);
			else
				OUT("%s=%" PRId64 "\n", ops->tunables[i].name, cfg->sched.tunable[i]);
		}
	for (uint32_t j = 0; j < cfg->nr_jobs; j++) {
		const struct vsim_job *job = &cfg->jobs[j];

		OUT("\n[%s]\nrw=%s\nbs=%u\niodepth=%u\ndirect=%d\n", job->name, vsim_rw_name(job->rw),
		    job->bs, job->iodepth, job->direct);
		if (job->rw == VSIM_RANDRW || job->rw == VSIM_RW)
			OUT("rwmixread=%u\n", job->rwmixread);
		if (job->numjobs > 1)
			OUT("numjobs=%u\n", job->numjobs);
		if (job->thinktime_us)
			OUT("thinktime=%" PRIu64 "\n", job->thinktime_us);
		if (job->fsync)
			OUT("fsync=%u\n", job->fsync);
		if (job->sync_writes)
			OUT("sync=1\n");
		if (job->prio_class)
			OUT("prioclass=%s\nprio=%u\n", prio_class[job->prio_class & 3], job->prio_level);
		if (job->group)
			OUT("sched_group=g%u\nsched_weight=%u\n", job->group,
			    cfg->sched.group_weight[job->group]);
		if (job->startdelay_ns)
			OUT("startdelay=%" PRIu64 "ms\n", job->startdelay_ns / 1000000);
		if (job->number_ios)
			OUT("number_ios=%" PRIu64 "\n", job->number_ios);
		if (job->size)
			OUT("offset=%" PRIu64 "\nsize=%" PRIu64 "\noffset_increment=%" PRIu64 "\n",
			    job->offset, job->size, job->offset_increment);
	}
#undef OUT
	return n;
}
