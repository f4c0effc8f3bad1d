/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Engine options: what `fio --enghelp=libschedengine.so` lists. The fixed ones, then one option
 * per scheduler tunable (by its sysfs name) and per device-model parameter, generated from the
 * policies' and models' own tables when the engine is loaded. All are checked while fio parses.
 */
#ifndef ENGINE_OPTIONS_H
#define ENGINE_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "sched.h"

struct fio_option;
struct se_backend_ops;

#define SE_MAX_TUNABLE_OPTS 128
#define SE_MAX_MODEL_OPTS   64

#include "pagecache.h"

struct se_options {
	void *pad; /* fio keeps the thread_data here */
	/* As given (fio stores the strings). */
	char *sched;
	char *backend;
	char *hw_queue_depth;
	char *nr_requests;
	char *rotational;
	char *sched_domain;
	char *sched_stats;
	char *sched_trace;
	char *sched_group;
	char *sched_weight;
	char *device_model;
	char *writeback;
	char *blk_mode;
	char *sched_domain_dir;
	char *sched_domain_jobs;
	char *sched_summary;
	char *model_poll_us;
	char *pagecache;
	char *pagecache_mb;
	char *pc_param[PC_NR_TUNABLES]; /* dirty_ratio, ..., max_sectors_kb (pc_tunable_names) */
	char *tunable[SE_MAX_TUNABLE_OPTS];
	char *model_param[SE_MAX_MODEL_OPTS];
	/* Parsed by the option callbacks. */
	int policy;
	uint32_t depth;
	uint32_t nr_requests_val; /* SCHED_NR_REQUESTS_AUTO unless given */
	int blk_mode_val;	  /* enum sched_blk_mode */
	uint32_t domain_jobs;	  /* 0: default */
	bool summary;
	int rotational_flag;  /* -1: read from sysfs */
	uint32_t weight;      /* 0: not given */
	int model_kind;	      /* -1: none (real I/O) */
	bool writeback_fsync; /* writeback=fsync */
	int pc_profile;	      /* pagecache=: enum pc_profile, -1 none */
	bool pc_auto;	      /* pagecache=auto (pc_profile is auto's profile, 6.12) */
	/* auto resolved by check_run() in fio's parent (other jobs' options are valid only there):
	 * 0 not yet, else the page cache + 2 (1: none); pc_res_any as pagecache_of()'s *any. */
	int pc_resolved;
	bool pc_res_any;
	uint32_t pc_mb;	  /* pagecache_mb */
	uint32_t poll_us; /* model_poll_us */
	bool poll_set;
	const struct se_backend_ops *backend_ops;
};

extern struct fio_option se_engine_options[];

/* The name of generated tunable option i / model parameter option i (NULL past the end). */
const char *se_tunable_opt_name(unsigned int i);
const char *se_model_opt_name(unsigned int i);

#endif
