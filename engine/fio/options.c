// SPDX-License-Identifier: GPL-2.0
/*
 * Engine options. Each is stored as text by fio and checked by its callback at parse time, so a
 * bad value stops fio before any job starts, with one line naming the option.
 */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fio.h"
#include "optgroup.h"

#include "backend.h"
#include "devmodel.h"
#include "options.h"
#include "pagecache.h"
#include "../domain/trace.h"

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
		opt_err("sched=%s: unknown scheduler (none, deadline, cfq, bfq, kyber)\n", s);
		return 1;
	}
	if (!sched_policy_available(id)) {
		opt_err("sched=%s: not built yet in this version of schedengine\n", s);
		return 1;
	}
	o->policy = id;
	if (o->weight) {
		uint32_t lo, hi, def;

		sched_policy_weights(id, &lo, &hi, &def);
		if (o->weight < lo || o->weight > hi) {
			opt_err("sched_weight=%u: must be an integer in %u..%u for sched=%s\n",
				o->weight, lo, hi, s);
			return 1;
		}
	}
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

static int cb_nr_requests(void *data, const char *s)
{
	struct se_options *o = data;

	if (!strcmp(s, "auto")) {
		o->nr_requests_val = SCHED_NR_REQUESTS_AUTO;
		return 0;
	}
	if (!strcmp(s, "0")) {
		o->nr_requests_val = 0;
		return 0;
	}
	{
		char *end;
		long v;

		errno = 0;
		v = strtol(s, &end, 10);
		if (!errno && end != s && !*end && v >= 4 && v <= 1048576) {
			o->nr_requests_val = (uint32_t)v;
			return 0;
		}
	}
	opt_err("nr_requests=%s: must be auto, 0 (unlimited) or an integer in 4..1048576\n", s);
	return 1;
}

static int cb_blk_mode(void *data, const char *s)
{
	struct se_options *o = data;

	if (!strcmp(s, "auto"))
		o->blk_mode_val = SCHED_BLK_DEFAULT;
	else if (!strcmp(s, "legacy"))
		o->blk_mode_val = SCHED_BLK_LEGACY;
	else if (!strcmp(s, "mq"))
		o->blk_mode_val = SCHED_BLK_MQ;
	else {
		opt_err("blk_mode=%s: must be auto, legacy or mq\n", s);
		return 1;
	}
	return 0;
}

static int cb_domain_jobs(void *data, const char *s)
{
	struct se_options *o = data;

	return parse_uint("sched_domain_jobs", s, 1, 4096, &o->domain_jobs);
}

static int cb_model_poll(void *data, const char *s)
{
	struct se_options *o = data;

	o->poll_set = true;
	return parse_uint("model_poll_us", s, 0, 100000, &o->poll_us);
}

static int cb_summary(void *data, const char *s)
{
	struct se_options *o = data;

	if (strcmp(s, "0") && strcmp(s, "1")) {
		opt_err("sched_summary=%s: must be 0 or 1\n", s);
		return 1;
	}
	o->summary = s[0] == '1';
	return 0;
}

static int cb_domain_dir(void *data, const char *s)
{
	struct stat st;

	(void)data;
	if (lstat(s, &st) || !S_ISDIR(st.st_mode)) {
		opt_err("sched_domain_dir=%s: not a directory\n", s);
		return 1;
	}
	return 0;
}

static int cb_nomerges(void *data, const char *s)
{
	struct se_options *o = data;

	o->nomerges_set = true;
	return parse_uint("nomerges", s, 0, 2, &o->nomerges_val);
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

static int cb_writeback(void *data, const char *s)
{
	struct se_options *o = data;

	if (!strcmp(s, "none") || !strcmp(s, "fsync")) {
		o->writeback_fsync = s[0] == 'f';
		return 0;
	}
	opt_err("writeback=%s: must be none or fsync\n", s);
	return 1;
}

static int cb_pagecache(void *data, const char *s)
{
	struct se_options *o = data;

	o->pc_auto = !strcmp(s, "auto");
	if (!strcmp(s, "none")) {
		o->pc_profile = -1;
		return 0;
	}
	o->pc_profile = pc_profile_by_name(!strcmp(s, "on") || o->pc_auto ? "6.12" : s);
	if (o->pc_profile < 0) {
		opt_err("pagecache=%s: must be auto, none, on, 6.12 or 2.6.29\n", s);
		return 1;
	}
	return 0;
}

static int cb_pagecache_mb(void *data, const char *s)
{
	struct se_options *o = data;

	return parse_uint("pagecache_mb", s, 16, 65536, &o->pc_mb);
}

/* vm.dirty_* and queue/read_ahead_kb for the engine's page cache: checked as the kernel's
 * sysctl handlers would (pc_set_param()'s ranges). */
static int check_pc_param(unsigned int i, const char *s)
{
	struct pc_params p;
	char err[200];

	pc_params_defaults(&p, PC_PROFILE_LINUX_6_12);
	if (pc_set_param(&p, pc_tunable_names[i], s, err, sizeof(err))) {
		opt_err("%s\n", err);
		return 1;
	}
	return 0;
}
#define PC_CB(i)                                                                                   \
	static int cb_pc##i(void *data, const char *s)                                             \
	{                                                                                          \
		(void)data;                                                                        \
		return check_pc_param(i, s);                                                       \
	}
PC_CB(0)
PC_CB(1)
PC_CB(2)
PC_CB(3)
PC_CB(4)
PC_CB(5)
PC_CB(6)
PC_CB(7)
PC_CB(8)

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

/*
 * sched_weight's range is the scheduler's (cfq 10..1000, bfq 1..1000), checked against the
 * sched= parsed so far: fio applies the defaults first (sched=none: 10..1000), then a job
 * file's engine options sorted by prio (sched first); on the command line they come in the
 * order given, so a weight below 10 needs sched=bfq before it. cb_sched checks a weight given
 * earlier again.
 */
static int cb_weight(void *data, const char *s)
{
	struct se_options *o = data;
	uint32_t lo, hi, def;

	sched_policy_weights(o->policy, &lo, &hi, &def);
	return parse_uint("sched_weight", s, lo, hi, &o->weight);
}

/* A file the engine will write at the end: refused now if it could not be. */
static int check_out_path(const char *opt, const char *s)
{
	char *copy = strdup(s), *dir;
	struct stat st;
	int ok;

	if (!copy)
		return 1;
	if (!stat(s, &st) && S_ISDIR(st.st_mode)) {
		opt_err("%s=%s: is a directory\n", opt, s);
		free(copy);
		return 1;
	}
	dir = dirname(copy);
	ok = !access(dir, W_OK);
	if (!ok)
		opt_err("%s=%s: directory %s is not writable: %s\n", opt, s, dir, strerror(errno));
	else if (!access(s, F_OK) && access(s, W_OK)) {
		opt_err("%s=%s: not writable: %s\n", opt, s, strerror(errno));
		ok = 0;
	} else {
		/* access() passes root anywhere (/proc, /sys): create a file beside it, as the
		 * stats are written (a new file renamed over it), and remove it. */
		char probe[PATH_MAX];
		int fd;

		snprintf(probe, sizeof(probe), "%s/.schedengine-probe.%d", dir, (int)getpid());
		fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST) {
			opt_err("%s=%s: cannot create files in %s: %s\n", opt, s, dir,
				strerror(errno));
			ok = 0;
		} else if (fd >= 0) {
			close(fd);
			unlink(probe);
		}
	}
	free(copy);
	return !ok;
}

static int cb_stats(void *data, const char *s)
{
	(void)data;
	return check_out_path("sched_stats", s);
}

static int cb_model(void *data, const char *s)
{
	struct se_options *o = data;

	if (!strcmp(s, "none")) {
		o->model_kind = -1;
		return 0;
	}
	o->model_kind = devmodel_kind_by_name(s);
	if (o->model_kind < 0) {
		opt_err("device_model=%s: unknown model (none, hdd, ssd, cloud-ssd, null)\n", s);
		return 1;
	}
	return 0;
}

static int cb_trace(void *data, const char *s)
{
	unsigned int uid;

	(void)data;
	/* Appended to by every process: another user's symlink is not followed; the domain checks
	 * again when it opens it (trace.c). */
	if (se_trace_foreign_symlink(s, &uid)) {
		opt_err("sched_trace=%s: a symlink owned by uid %u: not followed\n", s, uid);
		return 1;
	}
	return check_out_path("sched_trace", s);
}

/* ---- generated options: scheduler tunables and device-model parameters ---- */

static const char *tunable_names[SE_MAX_TUNABLE_OPTS];
static char tunable_help[SE_MAX_TUNABLE_OPTS][320];
static unsigned int nr_tunable_opts;
static const char *model_names[SE_MAX_MODEL_OPTS];
static char model_help[SE_MAX_MODEL_OPTS][360];
static unsigned int nr_model_opts;

const char *se_tunable_opt_name(unsigned int i)
{
	return i < nr_tunable_opts ? tunable_names[i] : NULL;
}

const char *se_model_opt_name(unsigned int i)
{
	return i < nr_model_opts ? model_names[i] : NULL;
}

/* A tunable value must be an integer within the range of at least one policy that has it;
 * whether it belongs to the chosen sched= is checked when the job starts. */
static int check_tunable(unsigned int i, const char *s)
{
	const char *name = tunable_names[i];
	long long lo = 0, hi = 0;
	bool found = false;
	char err[200];

	for (int id = 0; id < SCHED_POLICY_NR; id++) {
		const struct sched_policy_ops *ops = sched_policy_ops(id);

		for (unsigned int t = 0; ops && t < ops->nr_tunables; t++) {
			const struct sched_tunable_desc *d = &ops->tunables[t];
			int64_t v;

			if (strcmp(d->name, name))
				continue;
			/* Integers, or a version ("bfq_version=4.12"): the policy's own parser. */
			if (!sched_tunable_parse(d, s, &v, err, sizeof(err)))
				return 0;
			if (!strcmp(d->unit, "version")) {
				opt_err("%s\n", err);
				return 1;
			}
			if (strstr(err, "not an integer")) {
				opt_err("%s\n", err);
				return 1;
			}
			if (!found || d->min < lo)
				lo = d->min;
			if (!found || d->max > hi)
				hi = d->max;
			found = true;
		}
	}
	opt_err("%s=%s: out of range %lld..%lld\n", name, s, lo, hi);
	return 1;
}

static int check_model_param(unsigned int i, const char *s)
{
	struct devmodel_params p = devmodel_params_defaults(DEVMODEL_HDD);
	char err[200];

	if (devmodel_set_param(&p, model_names[i], s, err, sizeof(err))) {
		opt_err("%s\n", err);
		return 1;
	}
	return 0;
}

/* fio's callbacks get no option pointer: one small function per generated option. */
#define CBT4(base)                                                                           \
	static int cb_t##base(void *d, const char *s) { (void)d; return check_tunable(base, s); } \
	static int cb_t##base##a(void *d, const char *s) { (void)d; return check_tunable(base + 1, s); } \
	static int cb_t##base##b(void *d, const char *s) { (void)d; return check_tunable(base + 2, s); } \
	static int cb_t##base##c(void *d, const char *s) { (void)d; return check_tunable(base + 3, s); }
#define CB4(base)                                                                            \
	CBT4(base)                                                                           \
	static int cb_m##base(void *d, const char *s) { (void)d; return check_model_param(base, s); } \
	static int cb_m##base##a(void *d, const char *s) { (void)d; return check_model_param(base + 1, s); } \
	static int cb_m##base##b(void *d, const char *s) { (void)d; return check_model_param(base + 2, s); } \
	static int cb_m##base##c(void *d, const char *s) { (void)d; return check_model_param(base + 3, s); }
CB4(0) CB4(4) CB4(8) CB4(12) CB4(16) CB4(20) CB4(24) CB4(28)
CB4(32) CB4(36) CB4(40) CB4(44) CB4(48) CB4(52) CB4(56) CB4(60)
CBT4(64) CBT4(68) CBT4(72) CBT4(76) CBT4(80) CBT4(84) CBT4(88) CBT4(92)
CBT4(96) CBT4(100) CBT4(104) CBT4(108) CBT4(112) CBT4(116) CBT4(120) CBT4(124)
#define CBS4(p, base) p##base, p##base##a, p##base##b, p##base##c
typedef int (*se_opt_cb)(void *, const char *);
static const se_opt_cb tunable_cbs[SE_MAX_TUNABLE_OPTS] = {
	CBS4(cb_t, 0), CBS4(cb_t, 4), CBS4(cb_t, 8), CBS4(cb_t, 12), CBS4(cb_t, 16), CBS4(cb_t, 20),
	CBS4(cb_t, 24), CBS4(cb_t, 28), CBS4(cb_t, 32), CBS4(cb_t, 36), CBS4(cb_t, 40),
	CBS4(cb_t, 44), CBS4(cb_t, 48), CBS4(cb_t, 52), CBS4(cb_t, 56), CBS4(cb_t, 60),
	CBS4(cb_t, 64), CBS4(cb_t, 68), CBS4(cb_t, 72), CBS4(cb_t, 76), CBS4(cb_t, 80),
	CBS4(cb_t, 84), CBS4(cb_t, 88), CBS4(cb_t, 92), CBS4(cb_t, 96), CBS4(cb_t, 100),
	CBS4(cb_t, 104), CBS4(cb_t, 108), CBS4(cb_t, 112), CBS4(cb_t, 116), CBS4(cb_t, 120),
	CBS4(cb_t, 124),
};
static const se_opt_cb model_cbs[SE_MAX_MODEL_OPTS] = {
	CBS4(cb_m, 0), CBS4(cb_m, 4), CBS4(cb_m, 8), CBS4(cb_m, 12), CBS4(cb_m, 16), CBS4(cb_m, 20),
	CBS4(cb_m, 24), CBS4(cb_m, 28), CBS4(cb_m, 32), CBS4(cb_m, 36), CBS4(cb_m, 40),
	CBS4(cb_m, 44), CBS4(cb_m, 48), CBS4(cb_m, 52), CBS4(cb_m, 56), CBS4(cb_m, 60),
};

#define SE_OPT(nm, field, fn, dflt, hlp)                                                     \
	{                                                                                    \
		.name = nm, .lname = nm, .type = FIO_OPT_STR_STORE,                           \
		.off1 = offsetof(struct se_options, field), .cb = fn, .def = dflt, .help = hlp, \
		.category = FIO_OPT_C_ENGINE, .group = FIO_OPT_G_INVALID,                     \
	}

#define SE_FIXED_OPTS 40 /* room; the generated options follow the last fixed one */
struct fio_option se_engine_options[SE_FIXED_OPTS + SE_MAX_TUNABLE_OPTS + SE_MAX_MODEL_OPTS + 1] = {
    /* prio: fio sorts a job's engine options by it; sched before the ones it ranges (weight) */
    {
	.name = "sched",
	.lname = "sched",
	.type = FIO_OPT_STR_STORE,
	.off1 = offsetof(struct se_options, sched),
	.cb = cb_sched,
	.def = "none",
	.help =
	    "I/O scheduler between the jobs and the target: none|deadline|cfq|bfq|kyber (default "
	    "none)",
	.category = FIO_OPT_C_ENGINE,
	.group = FIO_OPT_G_INVALID,
	.prio = 1,
    },
    SE_OPT("backend", backend, cb_backend, "io_uring",
	   "How granted requests reach the target: io_uring|libaio|psync (all honour direct=; "
	   "default io_uring)"),
    SE_OPT("hw_queue_depth", hw_queue_depth, cb_depth, NULL,
	   "Driver tags: most requests in the device at once, across all jobs (1..65536; "
	   "default: the target device's mq/0/nr_tags, the device model's dev_queue_depth, "
	   "or 32 when the target has no block device)"),
    SE_OPT("nr_requests", nr_requests, cb_nr_requests, "auto",
	   "queue/nr_requests: with blk_mode=legacy requests per sync/async list (batchers "
	   "going on up to 1.5x), with blk_mode=mq the scheduler tags; beyond it a submitter "
	   "waits (auto: as the kernel sizes it, 128 legacy, the device's or 2 x "
	   "min(hw_queue_depth, 128) mq; 0 = unlimited; 4..1048576)"),
    SE_OPT("blk_mode", blk_mode, cb_blk_mode, "auto",
	   "Block layer in front of the scheduler: legacy (request lists, as CFQ's kernels) or "
	   "mq (blk-mq scheduler tags); auto: the scheduler's own (cfq legacy, others mq)"),
    SE_OPT("rotational", rotational, cb_rotational, "auto",
	   "Rotational flag seen by the scheduler: 0|1|auto (auto: the target's "
	   "/sys/dev/block/M:m/queue/rotational)"),
    SE_OPT("writeback", writeback, cb_writeback, "none",
	   "With a device_model: none (buffered writes are scheduled as fio submits them) or "
	   "fsync (a job's buffered writes stay dirty until its fsync/fdatasync, which writes "
	   "them back as sync writes, as the kernel's WB_SYNC_ALL writeback, then flushes; "
	   "default none)"),
    SE_OPT("pagecache", pagecache, cb_pagecache, "auto",
	   "The engine's own page cache for buffered I/O (direct=0): auto (6.12 when some job "
	   "of the domain is buffered, none when all are direct or use writeback=fsync), none "
	   "(fio's calls are scheduled as they come), on (= 6.12) or 2.6.29: buffered writes "
	   "complete into the cache, the flusher's writeback, read-ahead and fsync's writeback "
	   "reach the scheduler as the kernel's requests, real I/O underneath with O_DIRECT; "
	   "direct jobs bypass it, as in the kernel"),
    SE_OPT("pagecache_mb", pagecache_mb, cb_pagecache_mb, "1024",
	   "Size of that page cache in MiB, its dirtyable memory (default 1024; 16..65536)"),
    SE_OPT("dirty_background_ratio", pc_param[0], cb_pc0, NULL,
	   "Page cache: vm.dirty_background_ratio, % of the cache dirty before the flusher "
	   "writes back (default 10; 0..100)"),
    SE_OPT("dirty_background_bytes", pc_param[1], cb_pc1, NULL,
	   "Page cache: vm.dirty_background_bytes, instead of the ratio (default 0: the ratio)"),
    SE_OPT("dirty_ratio", pc_param[2], cb_pc2, NULL,
	   "Page cache: vm.dirty_ratio, % of the cache dirty at which writers are throttled "
	   "(default 20; 0..100)"),
    SE_OPT("dirty_bytes", pc_param[3], cb_pc3, NULL,
	   "Page cache: vm.dirty_bytes, instead of the ratio (default 0: the ratio)"),
    SE_OPT("dirty_expire_centisecs", pc_param[4], cb_pc4, NULL,
	   "Page cache: vm.dirty_expire_centisecs, age at which dirty data is written back "
	   "(default 3000)"),
    SE_OPT("dirty_writeback_centisecs", pc_param[5], cb_pc5, NULL,
	   "Page cache: vm.dirty_writeback_centisecs, the flusher's period (default 500; 0: "
	   "no periodic writeback)"),
    SE_OPT("read_ahead_kb", pc_param[6], cb_pc6, NULL,
	   "Page cache: queue/read_ahead_kb, the read-ahead window (default 128; 0..65536)"),
    SE_OPT("max_sectors_kb", pc_param[7], cb_pc7, NULL,
	   "queue/max_sectors_kb, the largest request: the page cache sends none larger (default: "
	   "the profile's, 1280 for 6.12, 512 for 2.6.29) and merging makes none larger "
	   "(default 1280); 4..65536"),
    SE_OPT("buffer_head_writeback", pc_param[8], cb_pc8, NULL,
	   "Page cache: 1 sends writeback as a bio per 4 KiB page, as a raw block device's "
	   "writeback does (a bio per buffer head), for the plug and the elevator to merge; 0 "
	   "a bio per run of dirty pages, as a filesystem's (ext4, xfs); 1 needs a "
	   "device_model, where the engine merges (default: 1 on a block device with a "
	   "device_model, else 0)"),
    SE_OPT("sched_domain", sched_domain, cb_domain, NULL,
	   "Share one scheduler with other fio processes naming the same domain (default: one "
	   "per fio run); it lives in sched_domain_dir"),
    SE_OPT("sched_domain_dir", sched_domain_dir, cb_domain_dir, NULL,
	   "Directory of named domains: yours, closed to group and others (default "
	   "/dev/shm/schedengine-<euid>, made 0700)"),
    SE_OPT("sched_domain_jobs", sched_domain_jobs, cb_domain_jobs, NULL,
	   "Jobs a domain this run creates can hold, 1..4096 (default: the run's job count, "
	   "at least 256)"),
    SE_OPT("sched_summary", sched_summary, cb_summary, "0",
	   "1: one line of scheduler statistics on stderr when the last job leaves (default 0)"),
    SE_OPT("sched_stats", sched_stats, cb_stats, NULL,
	   "Write scheduler statistics (JSON) to this file when the last job leaves (default: "
	   "none written)"),
    SE_OPT("sched_group", sched_group, cb_group, NULL,
	   "Scheduling group (blkio cgroup) of this job (default: root)"),
    SE_OPT("sched_weight", sched_weight, cb_weight, NULL,
	   "Weight of this job's group: cfq 10..1000 (default 500, blkio.weight), bfq 1..1000 "
	   "(default 100, io.bfq.weight); without sched_group/sched_weight, fio's "
	   "cgroup=/cgroup_weight= are used"),
    SE_OPT(
	"sched_trace", sched_trace, cb_trace, NULL,
	"Write one line per scheduler event (in the spirit of the kernel's cfq_log) to this file "
	"(default: no trace)"),
    SE_OPT("device_model", device_model, cb_model, "none",
	   "Model of the device instead of real I/O: none|hdd|ssd|cloud-ssd|null (the target is "
	   "not read or written; see the dev_*/hdd_*/ssd_*/cloud_* parameters; default none: "
	   "real I/O)"),
    SE_OPT("nomerges", nomerges, cb_nomerges, "0",
	   "queue/nomerges with a device_model: 0 bios merge into queued requests (the one-hit "
	   "cache, the back-merge hash, the scheduler's front merges) and requests into their "
	   "neighbours, the kernel's default and the engine's; 1 the one-hit cache only; 2 no "
	   "merging (0..2; real I/O is never merged)"),
    SE_OPT("model_poll_us", model_poll_us, cb_model_poll, "100",
	   "Device models: a job waiting for the completion of its own request polls the clock "
	   "for the last this many us instead of sleeping, and completes it itself on time (a "
	   "sleeper's wake-up, tens of us on a VM, would add to the think time the scheduler "
	   "sees); 0 sleeps until the event (default 100; 0..100000)"),
};

static void add_opt(unsigned int *n, const char *name, unsigned int off, se_opt_cb cb,
		    const char *help)
{
	struct fio_option *o = &se_engine_options[(*n)++];

	o->name = name;
	o->lname = name;
	o->type = FIO_OPT_STR_STORE;
	o->off1 = off;
	o->cb = (void *)cb;
	o->help = help;
	o->category = FIO_OPT_C_ENGINE;
	o->group = FIO_OPT_G_INVALID;
}

static void add_model_param(const char *name, const char *help, void *arg)
{
	unsigned int *n = arg;

	if (nr_model_opts >= SE_MAX_MODEL_OPTS)
		return;
	model_names[nr_model_opts] = name;
	snprintf(model_help[nr_model_opts], sizeof(model_help[0]), "Device model: %s", help);
	add_opt(n, name, offsetof(struct se_options, model_param[nr_model_opts]),
		model_cbs[nr_model_opts], model_help[nr_model_opts]);
	nr_model_opts++;
}

/* Runs when fio loads the engine, before it reads the option table. */
__attribute__((constructor)) static void se_options_build(void)
{
	unsigned int n = 0;

	while (se_engine_options[n].name)
		n++;

	for (int id = 0; id < SCHED_POLICY_NR; id++) {
		const struct sched_policy_ops *ops = sched_policy_ops(id);

		for (unsigned int t = 0; ops && t < ops->nr_tunables; t++) {
			const struct sched_tunable_desc *d = &ops->tunables[t];
			unsigned int i;

			for (i = 0; i < nr_tunable_opts; i++)
				if (!strcmp(tunable_names[i], d->name))
					break;
			if (i < nr_tunable_opts) {
				/* Shared by several policies: name them all. */
				size_t len = strlen(tunable_help[i]);

				const struct sched_tunable_desc *first = NULL;

				/* The first policy's range is in the help; say so if this one's differs. */
				for (int f = 0; f < id && !first; f++) {
					const struct sched_policy_ops *fo = sched_policy_ops(f);

					for (unsigned int ft = 0; fo && ft < fo->nr_tunables; ft++)
						if (!strcmp(fo->tunables[ft].name, d->name))
							first = &fo->tunables[ft];
				}
				/* ... and what it does there, when that differs (low_latency). */
				char what[96] = "";

				if (first && strcmp(first->help, d->help))
					snprintf(what, sizeof(what), ": %s", d->help);
				if (first && (first->min != d->min || first->max != d->max))
					snprintf(tunable_help[i] + len, sizeof(tunable_help[0]) - len,
						 " [also sched=%s%s, default %lld, %lld..%lld]", ops->name,
						 what, (long long)d->def, (long long)d->min,
						 (long long)d->max);
				else
					snprintf(tunable_help[i] + len, sizeof(tunable_help[0]) - len,
						 " [also sched=%s%s, default %lld]", ops->name, what,
						 (long long)d->def);
				continue;
			}
			if (nr_tunable_opts >= SE_MAX_TUNABLE_OPTS)
				break;
			tunable_names[i] = d->name;
			if (!strcmp(d->unit, "version")) {
				char list[160], def[24];

				snprintf(tunable_help[i], sizeof(tunable_help[0]),
					 "sched=%s tunable (%s, default %s): %s", ops->name,
					 sched_versions_list(d, list, sizeof(list)),
					 sched_version_str(d->def, def, sizeof(def)), d->help ? d->help : "");
			} else
				snprintf(tunable_help[i], sizeof(tunable_help[0]),
					 "sched=%s tunable (%s%s%s, default %lld, %lld..%lld): %s",
					 ops->name, *d->unit ? "in " : "",
					 *d->unit ? d->unit : "integer", "", (long long)d->def,
					 (long long)d->min, (long long)d->max, d->help ? d->help : "");
			add_opt(&n, d->name, offsetof(struct se_options, tunable[i]), tunable_cbs[i],
				tunable_help[i]);
			nr_tunable_opts++;
		}
	}
	devmodel_param_names(add_model_param, &n);
	se_engine_options[n].name = NULL;
}
