// SPDX-License-Identifier: GPL-2.0
/*
 * Engine options. Each is stored as text by fio and checked by its callback at parse time, so a
 * bad value stops fio before any job starts, with one line naming the option.
 */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fio.h"
#include "optgroup.h"

#include "backend.h"
#include "options.h"

#define opt_err(...) log_err("schedengine: " __VA_ARGS__)

static int parse_uint(const char *name, const char *s, long lo, long hi, uint32_t *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		opt_err("%s=%s: must be an integer in %ld..%ld\n", name, s, lo, hi);
		return 1;
	}
	*out = (uint32_t)v;
	return 0;
}

static int cb_sched(void *data, const char *s)
{
	struct se_options *o = data;
	int id = sched_policy_by_name(s);

	if (id < 0) {
		opt_err("sched=%s: unknown scheduler (none, deadline, cfq, bfq)\n", s);
		return 1;
	}
	if (!sched_policy_available(id)) {
		opt_err("sched=%s: not built yet in this version of schedengine\n", s);
		return 1;
	}
	o->policy = id;
	return 0;
}

static int cb_backend(void *data, const char *s)
{
	struct se_options *o = data;

	o->backend_ops = se_backend_by_name(s);
	if (!o->backend_ops) {
		opt_err("backend=%s: unknown backend (io_uring, libaio, psync)\n", s);
		return 1;
	}
	return 0;
}

static int cb_depth(void *data, const char *s)
{
	struct se_options *o = data;

	return parse_uint("hw_queue_depth", s, 1, 65536, &o->depth);
}

static int cb_rotational(void *data, const char *s)
{
	struct se_options *o = data;

	if (!strcmp(s, "auto"))
		o->rotational_flag = -1;
	else if (!strcmp(s, "0") || !strcmp(s, "1"))
		o->rotational_flag = s[0] - '0';
	else {
		opt_err("rotational=%s: must be 0, 1 or auto\n", s);
		return 1;
	}
	return 0;
}

static int check_name(const char *opt, const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 63 || strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				      "0123456789-_.") != n) {
		opt_err("%s=%s: use 1..63 letters, digits, '-', '_' or '.'\n", opt, s);
		return 1;
	}
	return 0;
}

static int cb_domain(void *data, const char *s)
{
	(void)data;
	return check_name("sched_domain", s);
}

static int cb_group(void *data, const char *s)
{
	(void)data;
	return check_name("sched_group", s);
}

static int cb_weight(void *data, const char *s)
{
	struct se_options *o = data;

	return parse_uint("sched_weight", s, SCHED_WEIGHT_MIN, SCHED_WEIGHT_MAX, &o->weight);
}

static int cb_stats(void *data, const char *s)
{
	char *copy = strdup(s), *dir;
	int ok;

	(void)data;
	if (!copy)
		return 1;
	dir = dirname(copy);
	ok = !access(dir, W_OK);
	if (!ok)
		opt_err("sched_stats=%s: directory %s is not writable: %s\n", s, dir, strerror(errno));
	free(copy);
	return !ok;
}

#define SE_OPT(nm, field, fn, dflt, hlp)                                                     \
	{                                                                                    \
		.name = nm, .lname = nm, .type = FIO_OPT_STR_STORE,                           \
		.off1 = offsetof(struct se_options, field), .cb = fn, .def = dflt, .help = hlp, \
		.category = FIO_OPT_C_ENGINE, .group = FIO_OPT_G_INVALID,                     \
	}

struct fio_option se_engine_options[] = {
	SE_OPT("sched", sched, cb_sched, "none",
	       "I/O scheduler between the jobs and the target: none|deadline|cfq|bfq"),
	SE_OPT("backend", backend, cb_backend, "io_uring",
	       "How granted requests reach the target: io_uring|libaio|psync (all honour direct=)"),
	SE_OPT("hw_queue_depth", hw_queue_depth, cb_depth, "32",
	       "Device queue depth: most requests in flight at once, across all jobs (1..65536)"),
	SE_OPT("rotational", rotational, cb_rotational, "auto",
	       "Rotational flag seen by the scheduler: 0|1|auto (auto: the target's "
	       "/sys/dev/block/M:m/queue/rotational)"),
	SE_OPT("sched_domain", sched_domain, cb_domain, NULL,
	       "Share one scheduler with other fio processes naming the same domain (default: one "
	       "per fio run)"),
	SE_OPT("sched_stats", sched_stats, cb_stats, NULL,
	       "Write scheduler statistics (JSON) to this file when the last job leaves"),
	SE_OPT("sched_group", sched_group, cb_group, NULL,
	       "Scheduling group (blkio cgroup) of this job (default: root)"),
	SE_OPT("sched_weight", sched_weight, cb_weight, NULL,
	       "Weight of this job's group, 10..1000 (default 500, as blkio.weight)"),
	{ .name = NULL },
};
