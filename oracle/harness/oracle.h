/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The differential oracle: the kernel's own scheduler files (variants, built from a kernel tree
 * by build-variant.sh) and the embedded policies (sched/) run on the same request streams in
 * virtual time, through the same simulator, block layer and device model; the first event in
 * which they differ is a divergence.
 */
#ifndef ORACLE_ORACLE_H
#define ORACLE_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sched.h"
#include "vsim.h"

struct oracle_variant {
	const char *id;	     /* deadline_4_19 */
	enum sched_policy_id policy;
	const char *version; /* "4.19" */
	const char *adapter; /* "mq", "sq" */
	const struct sched_policy_ops *ops;
};
extern const struct oracle_variant oracle_variants[];
extern const unsigned int oracle_nr_variants;
const struct oracle_variant *oracle_variant_by_name(const char *name);
/* The variant of policy at version whose block core is the legacy one (adapter "sq") or blk-mq. */
const struct oracle_variant *oracle_variant_for(enum sched_policy_id policy, const char *version,
						bool legacy);
/* SCHED_IMPL_KERNEL for v's policy runs v from here on. */
void oracle_select(const struct oracle_variant *v);

/* ---- streams (stream.c) ---- */
#define ORACLE_MAX_JOBS 8
#define ORACLE_MAX_KNOBS 96

/*
 * A stream is a vsim configuration drawn from (seed, variant, index). Every draw that departs
 * from a neutral setting is a knob; minimisation puts knobs back one by one, and what must stay
 * for the divergence to remain names its class.
 */
enum oracle_knob_kind {
	KNOB_JOB,	 /* a whole job (removed: the job is dropped) */
	KNOB_NUMJOBS,	 /* job's numjobs > 1 */
	KNOB_RW,	 /* job's rw other than randread */
	KNOB_BS,	 /* bs other than 4k */
	KNOB_IODEPTH,	 /* iodepth > 1 */
	KNOB_THINK,	 /* thinktime */
	KNOB_BUFFERED,	 /* buffered writes (async) */
	KNOB_FSYNC,	 /* fsync=N */
	KNOB_PRIO,	 /* ioprio class given */
	KNOB_GROUP,	 /* a group other than root */
	KNOB_STARTDELAY, /* startdelay */
	KNOB_SEQREGION,	 /* a small region (sequential streams meet their own requests) */
	KNOB_TUNABLE,	 /* a tunable of the policy at a non-default value */
	KNOB_DEPTH,	 /* hw_queue_depth other than the device's */
	KNOB_NR_REQUESTS,
	KNOB_WEIGHT, /* a group's weight other than the default */
	KNOB_SYNC,   /* buffered writes with O_SYNC (sync=1): REQ_SYNC without REQ_IDLE */
	KNOB_EXIT,   /* number_ios: the job's processes exit early (the scheduler's exit_icq) */
	KNOB_NR,
};

struct oracle_knob {
	uint8_t kind;
	uint8_t job;	/* KNOB_JOB..KNOB_SEQREGION: the job; KNOB_WEIGHT: the group */
	uint16_t index; /* KNOB_TUNABLE: the tunable */
	bool on;	/* false: put back to neutral */
};

struct oracle_stream {
	const struct oracle_variant *v;
	uint64_t seed;
	uint64_t index;
	struct vsim_config cfg;
	struct vsim_job jobs[ORACLE_MAX_JOBS];
	struct vsim_job drawn[ORACLE_MAX_JOBS]; /* as drawn, before knobs are put back */
	struct sched_config drawn_sched;
	uint32_t drawn_nr_requests; /* vsim's nr_requests as drawn (KNOB_NR_REQUESTS) */
	uint32_t nr_jobs_drawn;
	struct oracle_knob knob[ORACLE_MAX_KNOBS];
	uint32_t nr_knobs;
	char names[ORACLE_MAX_JOBS][16];
};

/* The embedded side's profile version when not the variant's own (oracle --against): a check
 * that the comparison sees a difference when there is one. NULL: the variant's. */
extern const char *oracle_against;
/* queue/nomerges (-1: drawn per stream) and max_sectors_kb (0: drawn or the default) of every
 * stream, both sides (oracle --nomerges N, --max-sectors-kb N). */
extern int oracle_nomerges;
extern uint32_t oracle_max_sectors_kb;
/* Tunables of the embedded side given on every stream (oracle --set NAME=VALUE), e.g. one
 * profile switch on against a kernel file that lacks its change: the streams it matters to
 * diverge. The kernel file has no sysfs file of a profile switch's name: its side is unchanged. */
#define ORACLE_MAX_SET 16
extern const char *oracle_set[ORACLE_MAX_SET];
extern unsigned int oracle_nr_set;
int oracle_apply_set(struct sched_config *sc, char *err, size_t errlen);
/* Draws stream `index` of `seed` for v (all knobs on). */
void oracle_stream_draw(struct oracle_stream *s, const struct oracle_variant *v, uint64_t seed,
			uint64_t index, uint64_t runtime_ns);
/* A stream from a job file in the format oracle_stream_jobfile() writes (jobfile.c), with no
 * knobs. 0, or -1 with a message in err. */
int oracle_stream_parse(struct oracle_stream *s, const struct oracle_variant *v, const char *path,
			char *err, size_t errlen);
/* Rebuilds s->cfg from the drawn values with the knobs that are on. */
void oracle_stream_apply(struct oracle_stream *s);
/* The stream as a fio job file for schedsim (the engine's options), into buf. */
size_t oracle_stream_jobfile(const struct oracle_stream *s, char *buf, size_t len);
/* A short name of a knob ("job1.rw=randwrite", "slice_idle=0"). */
void oracle_knob_name(const struct oracle_stream *s, const struct oracle_knob *k, char *buf,
		      size_t len);

/* ---- runs and comparison (compare.c) ---- */
struct oracle_event {
	uint64_t t;
	char *line;
	bool block; /* a block layer event (I/D/C/S), not a policy's P line */
};

struct oracle_trace {
	struct oracle_event *ev;
	size_t n, cap;
	char bug[256];	     /* a BUG_ON the kernel file hit, with file:line */
	char err[256];	     /* the simulation's error */
	uint64_t warns;	     /* WARN_ONs of the kernel file */
	uint64_t dispatched; /* D events */
	/* The run's throughput, per job (clones merged) and in all: MB/s and IOPS. */
	uint32_t nr_jobs;
	double job_mbps[ORACLE_MAX_JOBS], job_iops[ORACLE_MAX_JOBS];
	double mbps, iops;
};

enum oracle_verdict {
	ORACLE_SAME = 0,
	ORACLE_DIVERGED,
	ORACLE_KERNEL_BUG, /* the kernel file hit a BUG_ON */
	ORACLE_ERROR,	   /* a simulation failed (the harness's fault) */
};

struct oracle_divergence {
	enum oracle_verdict verdict;
	size_t at_embedded, at_kernel; /* indexes into the traces of the first differing event */
	uint64_t t;		       /* its time */
	char what[320];		       /* "order", "timing"... with the two events */
	char cls[24];		       /* the event class: order, timing, extra, missing, bug */
};

/* Runs s with impl, collecting its trace. 0, or -1 (t->err, t->bug). */
int oracle_run(const struct oracle_stream *s, enum sched_impl impl, struct oracle_trace *t);
void oracle_trace_free(struct oracle_trace *t);
/* Compares two traces of one stream. */
void oracle_compare(const struct oracle_trace *emb, const struct oracle_trace *ker,
		    struct oracle_divergence *d);
/* Runs both and compares. */
enum oracle_verdict oracle_check(const struct oracle_stream *s, struct oracle_divergence *d,
				 struct oracle_trace *emb, struct oracle_trace *ker);
/* Prints the window of both traces around a divergence (policy lines included). */
void oracle_print_window(FILE *f, const struct oracle_trace *emb, const struct oracle_trace *ker,
			 const struct oracle_divergence *d, unsigned int before, unsigned int after);

#endif
