/* SPDX-License-Identifier: GPL-2.0 */
/* Engine options: what `fio --enghelp=libschedengine.so` lists. Checked while fio parses. */
#ifndef ENGINE_OPTIONS_H
#define ENGINE_OPTIONS_H

#include <stdint.h>

#include "sched.h"

struct fio_option;
struct se_backend_ops;

struct se_options {
	void *pad; /* fio keeps the thread_data here */
	/* As given (fio stores the strings). */
	char *sched;
	char *backend;
	char *hw_queue_depth;
	char *rotational;
	char *sched_domain;
	char *sched_stats;
	char *sched_group;
	char *sched_weight;
	/* Parsed by the option callbacks. */
	int policy;
	uint32_t depth;
	int rotational_flag; /* -1: read from sysfs */
	uint32_t weight;     /* 0: not given */
	const struct se_backend_ops *backend_ops;
};

extern struct fio_option se_engine_options[];

#endif
