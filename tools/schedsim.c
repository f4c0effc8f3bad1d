// SPDX-License-Identifier: GPL-2.0
/*
 * schedsim: a fio job file (with the engine's options, as schedbench generates it) run in virtual
 * time by the simulator (sim/vsim.h): the same sched/ policies, block layer and device models as
 * the engine in real time, without fio doing any I/O.
 *
 *   schedsim [--fio FIO] [--output FILE] [--seed N] [--check] JOBFILE
 *
 * The job file is read with fio's own parser: `fio --showcmd JOBFILE` (with the engine loaded, so
 * fio and the engine's option parsers check every value; ${VAR} expanded from the environment)
 * turns it into its options, job by job; what the engine refuses only in its init (a tunable of
 * another scheduler, a parameter of another model) is
 * refused here in its words (check_engine_values()). Every option is then either modelled (see
 * below) or refused by name before anything is simulated. The result is fio-shaped JSON (jobs[]
 * with read/write/trim/sync blocks: iops, bw, io_bytes, runtime, lat_ns/clat_ns with fio's
 * percentile list), marked virtual, and the engine's sched_stats file when the job names one. Exit
 * status: 0 ok, 1 the simulation failed, 2 a bad or unmodelled job (one line naming it).
 *
 * What is modelled: rw (read write randread randwrite randrw rw), rwmixread/rwmixwrite, bs (one
 * size), iodepth, numjobs, size (else the target's size), io_size, offset, offset_increment,
 * runtime, time_based, number_ios, loops, startdelay, thinktime, rate_iops (buffered, through
 * pagecache=), fsync/fdatasync, direct,
 * prio/prioclass, exitall (exit_what=all, or one group), stonewall/wait_for_previous (phases run
 * one after another), new_group and group_reporting (the JSON's groups), fsync_on_close of a
 * sequential writer (a flush at the end of each pass); the engine's sched and its tunables,
 * device_model and its parameters, hw_queue_depth, nr_requests, blk_mode, rotational, nomerges
 * (default 0, as the engine and the kernel) and max_sectors_kb (the block layer's limit too),
 * buffer_head_writeback (a raw block device's writeback, a bio per page: default 0 here, the
 * target being the model),
 * sched_group/sched_weight (and fio's cgroup/cgroup_weight), writeback=fsync (a buffered writer
 * with fsync=N: its writes reach the queue as sync writes, fsync's writeback), pagecache= and
 * pagecache_mb (the engine's page cache in front of the block layer for buffered jobs, its
 * profile and size; jobs naming the same filename= share its pages; fadvise_hint=0 keeps the
 * default read-ahead window; each stonewall phase starts with an empty cache, as if fio's
 * invalidate had dropped everything). Options without an
 * effect on the device's timeline are accepted: the target's name, data patterns, randrepeat,
 * invalidate, verify=0, thread, fio's logs (not produced in virtual time).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "devmodel.h"
#include "pagecache.h"
#include "sched.h"
#include "vsim.h"

#define MAX_JOBS 256

struct opt {
	char *key, *val; /* val NULL: a flag */
};

struct spec {
	char *name;
	struct opt *o;
	int n;
};

static struct spec g_global;
static struct spec g_jobs[MAX_JOBS];
static int g_njobs;
static const char *g_file;

static void die2(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die2(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "schedsim: %s: ", g_file ? g_file : "");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "schedsim: out of memory\n");
		exit(1);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = xmalloc(strlen(s) + 1);
	strcpy(p, s);
	return p;
}

/* fio's own names for the aliases its parser accepts */
static const char *canonical(const char *k)
{
	static const char *alias[][2] = {{"blocksize", "bs"},
					 {"readwrite", "rw"},
					 {"timeout", "runtime"},
					 {"io_limit", "io_size"},
					 {"fileoffset", "offset"},
					 {"nr_files", "nrfiles"},
					 {"blockalign", "ba"},
					 {"blocksize_range", "bsrange"},
					 {"wait_for_previous", "stonewall"},
					 {"iodepth_batch_submit", "iodepth_batch"},
					 {"ioprio", "prio"},
					 {"ioprio_class", "prioclass"}};
	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (!strcmp(k, alias[i][0]))
			return alias[i][1];
	return k;
}

static void spec_add(struct spec *s, const char *key, const char *val)
{
	s->o = realloc(s->o, sizeof(*s->o) * (size_t)(s->n + 1));
	if (!s->o)
		die2("out of memory");
	s->o[s->n].key = xstrdup(canonical(key));
	s->o[s->n].val = val ? xstrdup(val) : NULL;
	s->n++;
}

/* fio --showcmd's "fio --a=1 --b --name=x --c=2 ...": options before the first --name are
 * [global]'s. A word that is not an option continues the previous value (a value with blanks). */
static void parse_showcmd(char *text)
{
	struct spec *cur = &g_global;
	char *save = NULL;
	int first = 1;
	for (char *w = strtok_r(text, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
		if (first) {
			first = 0;
			if (!strcmp(w, "fio") || strstr(w, "fio"))
				continue;
		}
		if (strncmp(w, "--", 2)) {
			if (!cur->n)
				die2("cannot read fio --showcmd's output near '%s'", w);
			struct opt *o = &cur->o[cur->n - 1];
			size_t l = (o->val ? strlen(o->val) : 0) + strlen(w) + 2;
			char *v = xmalloc(l);
			snprintf(v, l, "%s %s", o->val ? o->val : "", w);
			free(o->val);
			o->val = v;
			continue;
		}
		w += 2;
		char *eq = strchr(w, '=');
		if (eq)
			*eq = 0;
		if (!strcmp(w, "name")) {
			if (g_njobs == MAX_JOBS)
				die2("more than %d jobs", MAX_JOBS);
			cur = &g_jobs[g_njobs++];
			cur->name = xstrdup(eq ? eq + 1 : "");
			continue;
		}
		spec_add(cur, w, eq ? eq + 1 : NULL);
	}
	if (!g_njobs)
		die2("fio --showcmd names no job");
}

/* The value of key for job j: its own last, else [global]'s last; NULL if not given. *given
 * says whether it was given at all (a flag has no value). */
static const char *get(int j, const char *key, int *given)
{
	for (int pass = 0; pass < 2; pass++) {
		struct spec *s = pass ? &g_global : &g_jobs[j];
		for (int i = s->n - 1; i >= 0; i--)
			if (!strcmp(s->o[i].key, key)) {
				if (given)
					*given = 1;
				return s->o[i].val ? s->o[i].val : "1";
			}
	}
	if (given)
		*given = 0;
	return NULL;
}

static int flag(int j, const char *key)
{
	int g;
	const char *v = get(j, key, &g);
	return g && v && strcmp(v, "0") && strcmp(v, "false") && strcmp(v, "no");
}

/* fio sizes: bytes, or k/m/g/t (1024-based, fio's kb_base default), an optional "b"/"ib". */
static uint64_t parse_size(int j, const char *key, const char *v)
{
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	if (errno || end == v || d < 0)
		die2("job '%s': %s=%s: not a size", g_jobs[j].name, key, v);
	switch (tolower((unsigned char)*end)) {
	case 0:
		break;
	case 'k':
		d *= 1024, end++;
		break;
	case 'm':
		d *= 1024.0 * 1024, end++;
		break;
	case 'g':
		d *= 1024.0 * 1024 * 1024, end++;
		break;
	case 't':
		d *= 1024.0 * 1024 * 1024 * 1024, end++;
		break;
	case 'p':
		d *= 1024.0 * 1024 * 1024 * 1024 * 1024, end++;
		break;
	default:
		break;
	}
	if (*end == 'i' || *end == 'I')
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end)
		die2("job '%s': %s=%s: a size in bytes (4k, 64m, 5G) is modelled, not this",
		     g_jobs[j].name, key, v);
	return (uint64_t)d;
}

/* fio times: a number in the option's default unit, or with us/ms/s/m/h. */
static uint64_t parse_time_ns(int j, const char *key, const char *v, uint64_t unit_ns)
{
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	if (errno || end == v || d < 0)
		die2("job '%s': %s=%s: not a time", g_jobs[j].name, key, v);
	if (!*end)
		return (uint64_t)(d * (double)unit_ns);
	if (!strcmp(end, "us") || !strcmp(end, "usec"))
		return (uint64_t)(d * 1e3);
	if (!strcmp(end, "ms") || !strcmp(end, "msec"))
		return (uint64_t)(d * 1e6);
	if (!strcmp(end, "s") || !strcmp(end, "sec"))
		return (uint64_t)(d * 1e9);
	if (!strcmp(end, "m") || !strcmp(end, "min"))
		return (uint64_t)(d * 60e9);
	if (!strcmp(end, "h"))
		return (uint64_t)(d * 3600e9);
	die2("job '%s': %s=%s: not a time", g_jobs[j].name, key, v);
}

static long parse_int(int j, const char *key, const char *v, long lo, long hi)
{
	char *end;
	errno = 0;
	long x = strtol(v, &end, 10);
	if (errno || end == v || *end || x < lo || x > hi)
		die2("job '%s': %s=%s: an integer in %ld..%ld is modelled", g_jobs[j].name, key, v,
		     lo, hi);
	return x;
}

/* ---- what is modelled ---- */

/* fio options with an effect on the timeline, read below */
static const char *const modelled[] = {"rw",
				       "rwmixread",
				       "rwmixwrite",
				       "bs",
				       "iodepth",
				       "numjobs",
				       "size",
				       "io_size",
				       "offset",
				       "offset_increment",
				       "runtime",
				       "time_based",
				       "number_ios",
				       "loops",
				       "startdelay",
				       "thinktime",
				       "fsync",
				       "fdatasync",
				       "direct",
				       "buffered",
				       "sync",
				       "prio",
				       "prioclass",
				       "exitall",
				       "exit_what",
				       "stonewall",
				       "new_group",
				       "group_reporting",
				       "fsync_on_close",
				       "ioengine",
				       "cgroup",
				       "cgroup_weight",
				       "ramp_time",
				       "verify",
				       "thinktime_blocks",
				       "rate_iops",
				       "ba",
				       NULL};
/* fio options without an effect on the device's timeline: the target's name, data content,
 * random seeds, fio's own logs (not produced in virtual time) */
static const char *const inert[] = {"filename",
				    "directory",
				    "description",
				    "zero_buffers",
				    "buffer_pattern",
				    "refill_buffers",
				    "scramble_buffers",
				    "buffer_compress_percentage",
				    "dedupe_percentage",
				    "fallocate",
				    "unlink",
				    "unlink_each_loop",
				    "randrepeat",
				    "randseed",
				    "invalidate",
				    "verify_fatal",
				    "thread",
				    "write_iops_log",
				    "write_lat_log",
				    "write_bw_log",
				    "write_hist_log",
				    "log_avg_msec",
				    "log_hist_msec",
				    "log_offset",
				    "log_prio",
				    "log_compression",
				    "per_job_logs",
				    "fadvise_hint",
				    "allow_file_create",
				    "create_on_open",
				    "overwrite",
				    "norandommap",
				    "percentile_list",
				    "lat_percentiles",
				    "clat_percentiles",
				    "disk_util",
				    "kb_base",
				    "unit_base",
				    "output",
				    NULL};
/* the engine's options that are not policy tunables or model parameters */
static const char *const engine_keys[] = {
    "sched", "backend", "hw_queue_depth", "nr_requests", "blk_mode", "rotational", "writeback",
    "sched_stats", "sched_group", "sched_weight", "device_model", "sched_summary", "pagecache",
    "pagecache_mb", "nomerges",
    /* the page cache's tunables (pc_tunable_names) */
    "dirty_background_ratio", "dirty_background_bytes", "dirty_ratio", "dirty_bytes",
    "dirty_expire_centisecs", "dirty_writeback_centisecs", "read_ahead_kb", "max_sectors_kb",
    "buffer_head_writeback", NULL};

static int in(const char *const *list, const char *k)
{
	for (int i = 0; list[i]; i++)
		if (!strcmp(list[i], k))
			return 1;
	return 0;
}

struct simjob {
	struct vsim_job v;
	int phase, groupid, clones_first; /* phase: stonewall index */
	uint64_t runtime_ns;
	int time_based, reporting;
	const char *group_name;
	uint32_t weight;
};

struct cfgopts {
	enum sched_policy_id policy;
	const char *sched;
	const char *model;
	const char *stats_path;
	int rotational; /* -1 auto */
	int writeback_fsync;
	int pc_profile;	       /* pagecache=: enum pc_profile, -1 none */
	char pc_tunables[384]; /* as the engine's domain config: "dirty_ratio=40,..." */
	uint32_t pc_mb;
	int exitall, exit_all;
	uint32_t hw_queue_depth, nr_requests;
	int have_nr_requests;
	enum sched_blk_mode blk_mode;
};

static struct simjob g_sj[MAX_JOBS];
static struct cfgopts g_co;
static char *g_groups[SCHED_MAX_GROUPS];
static uint32_t g_gweight[SCHED_MAX_GROUPS];
static int g_ngroups = 1; /* 0: root */

static int group_id(const char *name, uint32_t weight, int j)
{
	if (!name || !*name || !strcmp(name, "root"))
		return 0;
	for (int g = 1; g < g_ngroups; g++)
		if (!strcmp(g_groups[g], name)) {
			if (weight && g_gweight[g] && g_gweight[g] != weight)
				die2("job '%s': group %s has weight %u and %u", g_jobs[j].name,
				     name, g_gweight[g], weight);
			if (weight)
				g_gweight[g] = weight;
			return g;
		}
	if (g_ngroups == SCHED_MAX_GROUPS)
		die2("more than %d groups", SCHED_MAX_GROUPS - 1);
	g_groups[g_ngroups] = xstrdup(name);
	g_gweight[g_ngroups] = weight;
	return g_ngroups++;
}

/* Every option of every job is modelled, inert, the engine's, a tunable or a model parameter;
 * anything else is refused by name. */
static void check_options(void)
{
	struct sched_config probe_cfg;
	struct devmodel_params probe_dev = devmodel_params_defaults(DEVMODEL_HDD);
	char err[256];
	for (int pass = 0; pass <= g_njobs; pass++) {
		struct spec *s = pass ? &g_jobs[pass - 1] : &g_global;
		for (int i = 0; i < s->n; i++) {
			const char *k = s->o[i].key, *v = s->o[i].val ? s->o[i].val : "1";
			if (in(modelled, k) || in(inert, k) || in(engine_keys, k))
				continue;
			int ok = 0;
			for (int p = 0; p < SCHED_POLICY_NR && !ok; p++) {
				if (!sched_policy_available((enum sched_policy_id)p))
					continue;
				sched_config_defaults(&probe_cfg, (enum sched_policy_id)p);
				ok = !sched_config_set_tunable(&probe_cfg, k, v, err, sizeof(err));
			}
			if (!ok)
				ok = !devmodel_set_param(&probe_dev, k, v, err, sizeof(err));
			if (ok)
				continue;
			if (!strcmp(k, "sched_trace") || !strncmp(k, "sched_domain", 12))
				die2("%s '%s': %s= is not modelled in virtual time (the simulator "
				     "is one "
				     "process: no trace file, no domain shared with other fio "
				     "processes)",
				     pass ? "job" : "section", pass ? s->name : "global", k);
			die2("%s '%s': '%s' is not modelled in virtual time (clock=virtual runs "
			     "rw, bs, "
			     "iodepth, numjobs, size, offsets, runtime, thinktime, fsync, direct, "
			     "prio, "
			     "stonewall, exitall and the engine's options; see tools/schedsim.c)",
			     pass ? "job" : "section", pass ? s->name : "global", k);
		}
	}
}

static uint64_t target_size(int j)
{
	const char *t = getenv("TARGET");
	struct stat st;
	int given;
	const char *fn = get(j, "filename", &given);
	const char *path = fn && *fn ? fn : t;
	if (path && !stat(path, &st) && S_ISREG(st.st_mode) && st.st_size > 0)
		return (uint64_t)st.st_size;
	die2("job '%s': no size= and no regular file to take it from (%s)", g_jobs[j].name,
	     path ? path : "no filename");
}

/*
 * The engine's pagecache=auto (its default), decided as the engine's pagecache_of() does for
 * one domain: a job's explicit pagecache= decides for all, else 6.12 when a job is buffered and
 * none uses writeback=fsync, else none.
 */
static const char *pagecache_auto(void)
{
	bool buffered = false, fsync = false;
	const char *x;
	int given;

	for (int j = 0; j < g_njobs; j++) {
		if ((x = get(j, "pagecache", NULL)) && strcmp(x, "auto"))
			return x;
		buffered |=
		    !(flag(j, "direct") || (get(j, "buffered", &given) && !flag(j, "buffered")));
		fsync |= (x = get(j, "writeback", NULL)) && !strcmp(x, "fsync");
	}
	return buffered && !fsync ? "6.12" : "none";
}

static void build_jobs(void)
{
	int phase = 0, groupid = 0;
	uint32_t next_file = 0; /* page-cache inodes, in job order */

	const char *pc_auto = pagecache_auto();

	memset(&g_co, 0, sizeof(g_co));
	g_co.rotational = -1;
	g_co.pc_profile = -1;
	g_co.pc_mb = 1024;
	for (int j = 0; j < g_njobs; j++) {
		struct simjob *s = &g_sj[j];
		struct vsim_job *v = &s->v;
		const char *x;
		int given;
		vsim_job_defaults(v);
		v->name = g_jobs[j].name;
		if (j > 0 && flag(j, "stonewall"))
			phase++, groupid++;
		else if (j > 0 && flag(j, "new_group"))
			groupid++;
		s->phase = phase;
		s->groupid = groupid;
		v->report_group = (uint32_t)groupid;
		x = get(j, "ioengine", NULL);
		if (!x || strncmp(x, "external:", 9))
			die2("job '%s': ioengine=%s: virtual time simulates the engine "
			     "(ioengine=external:.../libschedengine.so)",
			     g_jobs[j].name, x ? x : "(fio's default)");
		x = get(j, "rw", NULL);
		int rw = vsim_rw_by_name(x ? x : "read");
		if (rw < 0)
			die2("job '%s': rw=%s is not modelled (read, write, randread, randwrite, "
			     "randrw, "
			     "rw)",
			     g_jobs[j].name, x);
		v->rw = (enum vsim_rw)rw;
		if ((x = get(j, "rwmixread", NULL)))
			v->rwmixread = (uint32_t)parse_int(j, "rwmixread", x, 0, 100);
		if ((x = get(j, "rwmixwrite", NULL)))
			v->rwmixread = 100 - (uint32_t)parse_int(j, "rwmixwrite", x, 0, 100);
		x = get(j, "bs", NULL);
		if (x && strchr(x, ',')) {
			char *a = xstrdup(x), *c = strchr(a, ',');
			*c = 0;
			if (strcmp(a, c + 1) && *(c + 1))
				die2("job '%s': bs=%s: different read and write sizes are not "
				     "modelled",
				     g_jobs[j].name, x);
			v->bs = (uint32_t)parse_size(j, "bs", a);
			free(a);
		} else if (x) {
			v->bs = (uint32_t)parse_size(j, "bs", x);
		}
		if (!v->bs)
			die2("job '%s': bs=0", g_jobs[j].name);
		if ((x = get(j, "ba", NULL)) && parse_size(j, "ba", x) != v->bs)
			die2("job '%s': blockalign=%s other than bs is not modelled",
			     g_jobs[j].name, x);
		if ((x = get(j, "iodepth", NULL)))
			v->iodepth = (uint32_t)parse_int(j, "iodepth", x, 1, 65536);
		if ((x = get(j, "numjobs", NULL)))
			v->numjobs = (uint32_t)parse_int(j, "numjobs", x, 1, 4096);
		if ((x = get(j, "size", NULL)))
			v->size = parse_size(j, "size", x);
		else
			v->size = target_size(j);
		if ((x = get(j, "offset", NULL))) {
			if (strchr(x, '%'))
				die2("job '%s': offset=%s: a percentage is not modelled",
				     g_jobs[j].name, x);
			v->offset = parse_size(j, "offset", x);
		}
		if ((x = get(j, "offset_increment", NULL)))
			v->offset_increment = parse_size(j, "offset_increment", x);
		v->direct =
		    flag(j, "direct") || (get(j, "buffered", &given) && !flag(j, "buffered"));
		/* sync=1 (O_SYNC): each buffered write is written back at once, a REQ_SYNC write
		 * without REQ_IDLE (WRITE_SYNC) */
		if (flag(j, "sync") && !v->direct)
			v->sync_writes = true;
		if ((x = get(j, "thinktime", NULL)))
			v->thinktime_us = parse_time_ns(j, "thinktime", x, 1000) / 1000;
		if ((x = get(j, "thinktime_blocks", NULL)) &&
		    parse_int(j, "thinktime_blocks", x, 1, 1) != 1)
			die2("job '%s': thinktime_blocks other than 1", g_jobs[j].name);
		if ((x = get(j, "rate_iops", NULL)))
			v->rate_iops = (uint32_t)parse_int(j, "rate_iops", x, 0, 1 << 30);
		if ((x = get(j, "startdelay", NULL)))
			v->startdelay_ns = parse_time_ns(j, "startdelay", x, 1000000000ull);
		if ((x = get(j, "ramp_time", NULL)) &&
		    parse_time_ns(j, "ramp_time", x, 1000000000ull))
			die2("job '%s': ramp_time=%s: fio's ramp (I/O not counted) is not modelled",
			     g_jobs[j].name, x);
		if ((x = get(j, "verify", NULL)) && strcmp(x, "0") && strcmp(x, "none"))
			die2("job '%s': verify=%s: the model moves no data", g_jobs[j].name, x);
		if ((x = get(j, "fsync", NULL)))
			v->fsync = (uint32_t)parse_int(j, "fsync", x, 0, 1 << 30);
		if ((x = get(j, "fdatasync", NULL)) && !v->fsync)
			v->fsync = (uint32_t)parse_int(j, "fdatasync", x, 0, 1 << 30);
		if ((x = get(j, "prioclass", NULL)))
			v->prio_class = (uint8_t)parse_int(j, "prioclass", x, 0, 3);
		else if (get(j, "prio", NULL))
			v->prio_class = SCHED_IOPRIO_CLASS_NONE;
		if ((x = get(j, "prio", NULL)))
			v->prio_level = (uint8_t)parse_int(j, "prio", x, 0, 7);
		else if (get(j, "prioclass", NULL))
			v->prio_level = 0;
		/* time: time_based runs for runtime; else each clone does its data (x loops),
		 * runtime a cap */
		s->time_based = flag(j, "time_based");
		s->runtime_ns = (x = get(j, "runtime", NULL))
				    ? parse_time_ns(j, "runtime", x, 1000000000ull)
				    : 0;
		if (s->time_based && !s->runtime_ns)
			die2("job '%s': time_based without runtime", g_jobs[j].name);
		uint64_t loops = (x = get(j, "loops", NULL))
				     ? (uint64_t)parse_int(j, "loops", x, 1, 1L << 30)
				     : 1;
		uint64_t region = v->size;
		if ((x = get(j, "io_size", NULL)))
			region = parse_size(j, "io_size", x);
		if ((x = get(j, "number_ios", NULL)))
			v->number_ios = (uint64_t)parse_int(j, "number_ios", x, 0, 1L << 62);
		else if (!s->time_based)
			v->number_ios = region / v->bs * loops;
		/* the engine's writeback=fsync holds the buffered writes of a job with fsync=N or
		 * fdatasync=N (not fsync_on_close's) for its fsync */
		int explicit_fsync = v->fsync > 0;
		/* fio's fsync_on_close: a write job's fsync at the end of each pass over its
		 * region; the same as fsync= one pass of writes */
		if (flag(j, "fsync_on_close") && !v->fsync &&
		    (v->rw == VSIM_WRITE || v->rw == VSIM_RANDWRITE))
			v->fsync = (uint32_t)(v->size / v->bs ? v->size / v->bs : 1);
		/* groups: the engine's sched_group/sched_weight, else fio's cgroup= */
		const char *gname = get(j, "sched_group", NULL);
		const char *w = get(j, "sched_weight", NULL);
		if (!gname)
			gname = get(j, "cgroup", NULL);
		if (!w)
			w = get(j, "cgroup_weight", NULL);
		v->group = (uint32_t)group_id(
		    gname, w ? (uint32_t)parse_int(j, "sched_weight", w, 1, 10000) : 0, j);
		s->reporting = flag(j, "group_reporting");
		/* the engine's options: the same for every job of one domain (the engine checks
		 * it, so do we) */
		const char *sched = get(j, "sched", NULL);
		if (!sched)
			sched = "none";
		const char *model = get(j, "device_model", NULL);
		if (!model || !strcmp(model, "none"))
			die2(
			    "job '%s': virtual time needs a device model (engine.device_model=hdd, "
			    "ssd, cloud-ssd or null): without one the engine does real I/O",
			    g_jobs[j].name);
		if (j == 0) {
			g_co.sched = sched;
			g_co.model = model;
		} else if (strcmp(g_co.sched, sched) || strcmp(g_co.model, model)) {
			die2("job '%s': sched/device_model differ from job '%s' (one scheduler per "
			     "run)",
			     g_jobs[j].name, g_jobs[0].name);
		}
		if ((x = get(j, "writeback", NULL)) && !strcmp(x, "fsync"))
			g_co.writeback_fsync = 1;
		/* the engine's pagecache= and pagecache_mb (one page cache per domain, as the
		 * engine checks) */
		{
			int prof = -1;
			uint32_t mb = 1024;

			bool isauto = !(x = get(j, "pagecache", NULL)) || !strcmp(x, "auto");

			if (isauto)
				x = pc_auto;
			if (strcmp(x, "none")) {
				prof = pc_profile_by_name(!strcmp(x, "on") ? "6.12" : x);
				if (prof < 0)
					die2("job '%s': pagecache=%s: must be auto, none, on, 6.12 "
					     "or 2.6.29",
					     g_jobs[j].name, x);
			}
			if ((x = get(j, "pagecache_mb", NULL)))
				mb = (uint32_t)parse_int(j, "pagecache_mb", x, 16, 65536);
			/* vm.dirty_* and read_ahead_kb, checked and kept as the engine does */
			char tun[384];
			const char *tv[PC_NR_TUNABLES];
			char perr[200];

			for (int i = 0; i < PC_NR_TUNABLES; i++)
				tv[i] = get(j, pc_tunable_names[i], NULL);
			if (pc_tunables_join(tv, prof >= 0 || isauto, tun, sizeof(tun), perr,
					     sizeof(perr)))
				die2("job '%s': %s", g_jobs[j].name, perr);
			if (j == 0) {
				g_co.pc_profile = prof;
				g_co.pc_mb = mb;
				snprintf(g_co.pc_tunables, sizeof(g_co.pc_tunables), "%s", tun);
			} else if (g_co.pc_profile != prof || g_co.pc_mb != mb ||
				   strcmp(g_co.pc_tunables, tun)) {
				die2("job '%s': pagecache/pagecache_mb/page cache tunables differ "
				     "from job '%s' (one page cache per run)",
				     g_jobs[j].name, g_jobs[0].name);
			}
			if (prof >= 0 && g_co.writeback_fsync)
				die2("job '%s': pagecache=%s and writeback=fsync: choose one",
				     g_jobs[j].name, get(j, "pagecache", NULL));
			/* fio's fadvise_hint=0 (none): the default read-ahead window */
			if ((x = get(j, "fadvise_hint", NULL)) &&
			    (!strcmp(x, "0") || !strcmp(x, "none")))
				v->fadvise_hint = false;
			/* the inode: jobs naming the same file share its pages; without filename=
			 * every clone has a file of its own (fio's jobname.N.0) */
			if (prof >= 0 && !v->direct) {
				const char *fn = get(j, "filename", NULL);
				int k;

				for (k = 0; fn && k < j &&
					    (!get(k, "filename", NULL) ||
					     strcmp(get(k, "filename", NULL), fn));
				     k++)
					;
				if (fn && k < j) {
					v->file = g_sj[k].v.file;
				} else {
					v->file = next_file;
					v->file_per_clone = !fn;
					next_file += fn ? 1 : v->numjobs;
				}
			}
			if (v->rate_iops && (prof < 0 || v->direct))
				die2("job '%s': rate_iops is modelled for buffered jobs through "
				     "pagecache= only",
				     g_jobs[j].name);
		}
		/* writeback=fsync: the buffered writes of a job with fsync=N are held dirty and
		 * written back as sync writes by its fsync: sync writes here */
		if (g_co.writeback_fsync && !v->direct && explicit_fsync && v->fsync > 1024)
			die2("job '%s': writeback=fsync holds at most 1024 writes between fsyncs: "
			     "fsync=%u is more (as the engine)",
			     g_jobs[j].name, v->fsync);
		if (g_co.writeback_fsync && !v->direct && explicit_fsync &&
		    (v->rw == VSIM_WRITE || v->rw == VSIM_RANDWRITE)) {
			/* fio's write completes at once (held dirty), it thinks, then the fsync
			 * writes it back: the device sees write and flush back to back */
			v->sync_writes = true;
			v->think_after_fsync = true;
		}
		if (flag(j, "exitall")) {
			g_co.exitall = 1;
			x = get(j, "exit_what", NULL);
			if (x && !strcmp(x, "all"))
				g_co.exit_all = 1;
		}
		if ((x = get(j, "sched_stats", NULL)))
			g_co.stats_path = x;
	}
	/* one runtime per phase */
	for (int j = 1; j < g_njobs; j++)
		for (int k = 0; k < j; k++)
			if (g_sj[k].phase == g_sj[j].phase &&
			    (g_sj[k].runtime_ns != g_sj[j].runtime_ns ||
			     g_sj[k].time_based != g_sj[j].time_based))
				die2("jobs '%s' and '%s' run together with different "
				     "runtime/time_based: "
				     "not modelled (one end for the run)",
				     g_jobs[k].name, g_jobs[j].name);
	if (g_co.exitall && !g_co.exit_all)
		for (int j = 1; j < g_njobs; j++)
			if (g_sj[j].groupid != g_sj[0].groupid)
				die2(
				    "exitall with exit_what=group and several groups: not modelled "
				    "(exit_what=all is)");
	int id = sched_policy_by_name(g_co.sched);
	if (id < 0 || !sched_policy_available((enum sched_policy_id)id))
		die2("sched=%s: not a scheduler of this build", g_co.sched);
	g_co.policy = (enum sched_policy_id)id;
}

/* A tunable of any policy of this build (the engine's tunable options are their union). */
static int is_tunable_name(const char *k)
{
	for (int p = 0; p < SCHED_POLICY_NR; p++) {
		const struct sched_policy_ops *ops = sched_policy_ops((enum sched_policy_id)p);

		for (unsigned int i = 0; ops && i < ops->nr_tunables; i++)
			if (!strcmp(ops->tunables[i].name, k))
				return 1;
	}
	return 0;
}

/* What the engine's build_config() refuses in each job (engine/fio/engine.c), refused here with
 * its words: a tunable of another scheduler, a device-model parameter of another kind. */
static void check_engine_values(void)
{
	int kind = devmodel_kind_by_name(g_co.model);
	char err[256];

	if (kind < 0)
		die2("device_model=%s: unknown", g_co.model);
	for (int j = 0; j < g_njobs; j++) {
		struct sched_config cfg;
		struct devmodel_params dev = devmodel_params_defaults((enum devmodel_kind)kind);

		sched_config_defaults(&cfg, g_co.policy);
		for (int pass = 0; pass < 2; pass++) {
			const struct spec *s = pass ? &g_jobs[j] : &g_global;

			for (int i = 0; i < s->n; i++) {
				const char *k = s->o[i].key, *v = s->o[i].val ? s->o[i].val : "1";

				if (is_tunable_name(k) &&
				    sched_config_set_tunable(&cfg, k, v, err, sizeof(err)))
					die2("job '%s': %s", g_jobs[j].name, err);
				int pk = devmodel_param_kind((enum devmodel_kind)kind, k);

				if (pk == 0)
					die2("job '%s': %s=%s: not a parameter of device_model=%s",
					     g_jobs[j].name, k, v, g_co.model);
				if (pk == 1 && devmodel_set_param(&dev, k, v, err, sizeof(err)))
					die2("job '%s': %s", g_jobs[j].name, err);
			}
		}
		/* sched_group/sched_weight with none or deadline: accepted, without effect, as
		 * the engine does (the kernel's cgroup weights under those schedulers). */
	}
}

/* The engine's configuration, as engine/fio/engine.c builds it from the same options. */
int schedsim_select_impl(struct vsim_config *cfg, char *err, size_t errlen) __attribute__((weak));

static void build_config(struct vsim_config *cfg, int j0)
{
	char err[256];
	const char *x;
	int kind = devmodel_kind_by_name(g_co.model);
	if (kind < 0)
		die2("device_model=%s: unknown", g_co.model);
	vsim_config_defaults(cfg, g_co.policy, (enum devmodel_kind)kind);
	/* the model's parameters: every option the model takes */
	for (int pass = 0; pass < 2; pass++) {
		struct spec *s = pass ? &g_jobs[j0] : &g_global;
		for (int i = 0; i < s->n; i++) {
			struct devmodel_params tmp = cfg->dev;
			if (s->o[i].val &&
			    !devmodel_set_param(&tmp, s->o[i].key, s->o[i].val, err, sizeof(err)))
				cfg->dev = tmp;
		}
	}
	if (devmodel_params_check(&cfg->dev, err, sizeof(err)))
		die2("%s", err);
	if (g_co.pc_profile >= 0) {
		cfg->pagecache = true;
		pc_params_defaults(&cfg->pc, (enum pc_profile)g_co.pc_profile);
		cfg->pc.cache_bytes = (uint64_t)g_co.pc_mb << 20;
		if (pc_apply_tunables(&cfg->pc, g_co.pc_tunables, err, sizeof(err)))
			die2("%s", err);
	}
	if ((x = get(j0, "blk_mode", NULL))) {
		if (!strcmp(x, "legacy"))
			cfg->sched.blk_mode = SCHED_BLK_LEGACY;
		else if (!strcmp(x, "mq"))
			cfg->sched.blk_mode = SCHED_BLK_MQ;
	}
	if ((x = get(j0, "hw_queue_depth", NULL))) {
		cfg->sched.hw_queue_depth = (uint32_t)parse_int(j0, "hw_queue_depth", x, 1, 65536);
		if (cfg->sched.hw_queue_depth > cfg->dev.queue_depth)
			die2("hw_queue_depth=%s is more than device_model=%s holds", x, g_co.model);
	}
	if ((x = get(j0, "nr_requests", NULL)) && strcmp(x, "auto"))
		cfg->nr_requests =
		    !strcmp(x, "0") ? 0 : (uint32_t)parse_int(j0, "nr_requests", x, 4, 1048576);
	/* queue/nomerges (0, the kernel's default and the engine's) and queue/max_sectors_kb, the
	 * block layer's largest merged request, as the engine takes them. */
	if ((x = get(j0, "nomerges", NULL)))
		cfg->nomerges = (uint32_t)parse_int(j0, "nomerges", x, 0, 2);
	if ((x = get(j0, "max_sectors_kb", NULL)))
		cfg->max_sectors_kb = (uint32_t)parse_int(j0, "max_sectors_kb", x, 4, 65536);
	if ((x = get(j0, "rotational", NULL)) && strcmp(x, "auto"))
		cfg->sched.rotational = !strcmp(x, "1");
	else
		cfg->sched.rotational = kind == DEVMODEL_HDD;
	/* the policy's tunables, by their sysfs names */
	for (int pass = 0; pass < 2; pass++) {
		struct spec *s = pass ? &g_jobs[j0] : &g_global;
		for (int i = 0; i < s->n; i++) {
			struct sched_config tmp = cfg->sched;
			if (s->o[i].val && !sched_config_set_tunable(&tmp, s->o[i].key, s->o[i].val,
								     err, sizeof(err)))
				cfg->sched = tmp;
		}
	}
	for (int g = 1; g < g_ngroups; g++)
		if (g_gweight[g])
			cfg->sched.group_weight[g] = (uint16_t)g_gweight[g];
	/* The oracle's build of schedsim (build/oracle/schedsim) runs the kernel's own scheduler
	 * file instead when SCHEDSIM_IMPL=kernel (oracle/harness/schedsim_impl.c); absent here. */
	if (schedsim_select_impl && schedsim_select_impl(cfg, err, sizeof(err)))
		die2("%s", err);
	struct sched_config chk = cfg->sched; /* hw_queue_depth 0: the device's */
	if (!chk.hw_queue_depth)
		chk.hw_queue_depth = cfg->dev.queue_depth;
	if (sched_config_check(&chk, err, sizeof(err)))
		die2("%s", err);
}

/* ---- output ---- */

struct out {
	FILE *f;
};

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void lat_json(FILE *f, const char *name, const struct vsim_lat *l, int pct)
{
	fprintf(f,
		"\"%s\" : {\"min\" : %" PRIu64 ", \"max\" : %" PRIu64
		", \"mean\" : %.6f, \"stddev\" : %.6f, \"N\" : %" PRIu64,
		name, l->n ? l->min_ns : 0, l->max_ns, l->mean_ns, l->stddev_ns, l->n);
	if (pct && l->n) {
		fprintf(f, ", \"percentile\" : {");
		for (int i = 0; i < VSIM_NR_PCT; i++)
			fprintf(f, "%s\"%.6f\" : %" PRIu64, i ? ", " : "", vsim_pct_list[i],
				l->pct_ns[i]);
		fprintf(f, "}");
	}
	fprintf(f, "}");
}

static void dir_json(FILE *f, const char *name, const struct vsim_stats *st, int d)
{
	const struct vsim_lat *l = &st->dir[d];
	double secs = (double)st->elapsed_ns / 1e9;
	uint64_t bytes = d < 2 ? st->bytes[d] : 0;
	if (d == VSIM_DIR_FLUSH) {
		fprintf(f, "\"sync\" : {\"total_ios\" : %" PRIu64 ", ", st->ios[d]);
		lat_json(f, "lat_ns", l, 1);
		fprintf(f, "}");
		return;
	}
	fprintf(f,
		"\"%s\" : {\"io_bytes\" : %" PRIu64 ", \"io_kbytes\" : %" PRIu64
		", \"bw_bytes\" : %.0f, \"bw\" : %.0f, \"iops\" : %.6f, \"runtime\" : %" PRIu64
		", \"total_ios\" : %" PRIu64 ", \"short_ios\" : 0, \"drop_ios\" : 0, ",
		name, bytes, bytes / 1024, secs > 0 ? (double)bytes / secs : 0,
		secs > 0 ? (double)bytes / 1024 / secs : 0,
		secs > 0 ? (double)st->ios[d] / secs : 0, st->elapsed_ns / 1000000, st->ios[d]);
	fprintf(f, "\"slat_ns\" : {\"min\" : 0, \"max\" : 0, \"mean\" : 0.0, \"stddev\" : 0.0, "
		   "\"N\" : 0}, ");
	lat_json(f, "clat_ns", l, 1);
	fprintf(f, ", ");
	lat_json(f, "lat_ns", l, 0);
	fprintf(f, "}");
}

static void job_options_json(FILE *f, int j)
{
	fprintf(f, "\"job options\" : {");
	int n = 0;
	for (int i = 0; i < g_jobs[j].n; i++) {
		fprintf(f, "%s", n++ ? ", " : "");
		json_str(f, g_jobs[j].o[i].key);
		fprintf(f, " : ");
		json_str(f, g_jobs[j].o[i].val ? g_jobs[j].o[i].val : "");
	}
	fprintf(f, "}");
}

static void entry_json(FILE *f, int *first, const char *name, int groupid, int j,
		       const struct vsim_stats *st)
{
	fprintf(f, "%s\n    {\"jobname\" : ", *first ? "" : ",");
	*first = 0;
	json_str(f, name);
	fprintf(f, ", \"groupid\" : %d, \"error\" : 0, \"eta\" : 0, \"elapsed\" : %" PRIu64 ", ",
		groupid, st->elapsed_ns / (uint64_t)1000000000);
	job_options_json(f, j);
	fprintf(f, ",\n     ");
	dir_json(f, "read", st, VSIM_DIR_READ);
	fprintf(f, ",\n     ");
	dir_json(f, "write", st, VSIM_DIR_WRITE);
	fprintf(f,
		",\n     \"trim\" : {\"io_bytes\" : 0, \"io_kbytes\" : 0, \"bw\" : 0, \"iops\" : "
		"0.0, \"runtime\" : 0, \"total_ios\" : 0},\n     ");
	dir_json(f, "sync", st, VSIM_DIR_FLUSH);
	fprintf(f, ",\n     \"job_runtime\" : %" PRIu64 ", \"clock\" : \"virtual\"}",
		st->elapsed_ns / 1000000);
}

/* ---- the engine's sched_stats, from the simulated queue ---- */

struct grab {
	FILE *f;
	int n, group;
};

static void emit_stat(void *ctx, const char *name, int group, double value)
{
	struct grab *g = ctx;
	if (group != g->group)
		return;
	fprintf(g->f, "%s\"%s\": %.17g", g->n++ ? ", " : "", name, value);
}

/* The policy's time series as the engine writes it ("policy_timeline"). */
static void emit_row(void *ctx, const char *const *columns, unsigned int ncols, const double *row)
{
	struct grab *g = ctx;
	if (!g->n++) {
		fprintf(g->f, "\"columns\": [");
		for (unsigned int i = 0; i < ncols; i++) {
			fprintf(g->f, "%s", i ? ", " : "");
			json_str(g->f, columns[i]);
		}
		fprintf(g->f, "],\n    \"rows\": [");
	}
	fprintf(g->f, "%s\n      [", g->n > 1 ? "," : "");
	for (unsigned int i = 0; i < ncols; i++)
		fprintf(g->f, "%s%.15g", i ? ", " : "", row[i]);
	fprintf(g->f, "]");
}

struct stats_ctx {
	char *policy_json; /* written at the end of the run, before the scheduler is freed */
	char tunables[2048];
	uint32_t hw_queue_depth, nr_requests;
	bool rotational;
	enum sched_blk_mode mode;
};

static struct stats_ctx g_stats;

static void at_end(const struct sched *s, void *ctx)
{
	(void)ctx;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return;
	const struct sched_policy_ops *ops = sched_ops(s);
	fprintf(f, "\"policy\": {");
	if (ops->emit_stats) {
		struct grab g = {f, 0, -1};
		ops->emit_stats(s->policy, emit_stat, &g);
	}
	fprintf(f, "},\n  \"policy_groups\": {");
	for (int gr = 0, n = 0; gr < g_ngroups && ops->emit_stats; gr++) {
		struct grab g = {f, 0, gr};
		fprintf(f, "%s\n    ", n++ ? "," : "");
		json_str(f, gr ? g_groups[gr] : "root");
		fprintf(f, ": {");
		ops->emit_stats(s->policy, emit_stat, &g);
		fprintf(f, "}");
	}
	fprintf(f, "\n  }");
	if (ops->emit_timeline) {
		struct grab g = {f, 0, -1};
		fprintf(f, ",\n  \"policy_timeline\": {");
		ops->emit_timeline(s->policy, emit_row, &g);
		fprintf(f, "%s]}", g.n ? "\n  " : "\"rows\": [");
	}
	fclose(f);
	free(g_stats.policy_json);
	g_stats.policy_json = buf;
	int off = 0;
	for (unsigned int i = 0; i < ops->nr_tunables && off < (int)sizeof(g_stats.tunables) - 64;
	     i++)
		off += snprintf(g_stats.tunables + off, sizeof(g_stats.tunables) - (size_t)off,
				"%s\"%s\": %" PRId64, i ? ", " : "", ops->tunables[i].name,
				s->cfg.tunable[i]);
	g_stats.hw_queue_depth = s->dev.hw_queue_depth;
	g_stats.nr_requests = s->dev.nr_requests;
	g_stats.rotational = s->dev.rotational;
	g_stats.mode = s->dev.blk_mode;
}

static void write_stats(const char *path, const struct vsim_result *r,
			const struct vsim_config *cfg, const int *jobs_of_phase, int nphase_jobs)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "schedsim: cannot write %s: %s\n", path, strerror(errno));
		return;
	}
	uint64_t total = 0;
	double acc = 0;
	uint32_t last = 0;
	for (uint32_t b = 0; b < SCHED_INFLIGHT_BUCKETS; b++) {
		total += r->sched.inflight_ns[b];
		acc += (double)b * (double)r->sched.inflight_ns[b];
		if (r->sched.inflight_ns[b])
			last = b;
	}
	fprintf(f, "{\n  \"format\": \"schedengine-stats-2\",\n  \"clock\": \"virtual\",\n");
	fprintf(f, "  \"sched\": \"%s\",\n  \"hw_queue_depth\": %u,\n  \"rotational\": %s,\n",
		g_co.sched, g_stats.hw_queue_depth, g_stats.rotational ? "true" : "false");
	fprintf(f, "  \"degraded\": false,\n  \"blk_mode\": \"%s\",\n  \"nr_requests\": %u,\n",
		g_stats.mode == SCHED_BLK_MQ ? "mq" : "legacy", g_stats.nr_requests);
	fprintf(f,
		"  \"admission_waits\": %" PRIu64
		",\n  \"max_waiting\": %u,\n  \"admitted_must\": %" PRIu64 ",\n",
		r->admission_waits, r->max_waiting, r->admitted_must);
	fprintf(f, "  \"tunables\": {%s},\n", g_stats.tunables);
	fprintf(f,
		"  \"inserted\": %" PRIu64 ",\n  \"dispatched\": %" PRIu64
		",\n  \"completed\": %" PRIu64 ",\n  \"timer_runs\": %" PRIu64
		",\n  \"max_in_flight\": %u,\n",
		r->sched.inserted, r->sched.dispatched, r->sched.completed, r->sched.timer_runs,
		r->sched.max_in_flight);
	fprintf(f, "  \"inflight_hist_ns\": [");
	for (uint32_t b = 0; b <= last; b++)
		fprintf(f, "%s%" PRIu64, b ? ", " : "", r->sched.inflight_ns[b]);
	fprintf(f, "],\n  \"inflight_mean\": %.3f,\n", total ? acc / (double)total : 0.0);
	/* Merges by kind and /sys/block/<dev>/stat, as the engine's sched_stats has them. */
	fprintf(f,
		"  \"merges\": {\"nomerges\": %u, \"plug\": %" PRIu64 ", \"back\": %" PRIu64
		", \"front\": %" PRIu64 ", \"request\": %" PRIu64 ", \"refused_limit\": %" PRIu64
		", \"plug_flushes\": %" PRIu64 ", \"plug_limit_flushes\": %" PRIu64 "},\n",
		cfg->nomerges, r->blk.merges[BLK_MERGE_PLUG], r->blk.merges[BLK_MERGE_BACK],
		r->blk.merges[BLK_MERGE_FRONT], r->blk.merges[BLK_MERGE_REQUEST],
		r->blk.merge_refused_limit, r->blk.plug_flushes, r->blk.plug_limit_flushes);
	fprintf(f,
		"  \"diskstat\": {\"reads\": %" PRIu64 ", \"reads_merged\": %" PRIu64
		", \"read_sectors\": %" PRIu64 ", \"writes\": %" PRIu64
		", \"writes_merged\": %" PRIu64 ", \"write_sectors\": %" PRIu64 "},\n",
		r->blk.stat_ios[0], r->blk.stat_merges[0], r->blk.stat_sectors[0],
		r->blk.stat_ios[1], r->blk.stat_merges[1], r->blk.stat_sectors[1]);
	if (g_stats.policy_json)
		fprintf(f, "  %s,\n", g_stats.policy_json);
	fprintf(
	    f,
	    "  \"device_model\": {\"kind\": \"%s\", \"queue_depth\": %u, \"completed\": %" PRIu64
	    ", \"seeks\": %" PRIu64 ", \"destages\": %" PRIu64 ", \"busy_ns\": %" PRIu64
	    ", \"max_in_flight\": %u},\n",
	    g_co.model, cfg->dev.queue_depth, r->dev.completed, r->dev.seeks, r->dev.destages,
	    r->dev.busy_ns, r->dev.max_in_flight);
	uint64_t gbytes[SCHED_MAX_GROUPS] = {0}, tb = 0;
	fprintf(f, "  \"jobs\": [");
	for (uint32_t e = 0; e < r->nr_entities; e++) {
		const struct sched_entity_stats *es =
		    e < SCHED_MAX_ENTITIES ? &r->sched.entity[e] : NULL;
		int j = jobs_of_phase[r->entity_job[e]];
		int g = (int)g_sj[j].v.group;
		fprintf(f, "%s\n    {\"job\": %u, \"name\": ", e ? "," : "", e);
		json_str(f, g_jobs[j].name);
		fprintf(f, ", \"group\": ");
		json_str(f, g ? g_groups[g] : "root");
		if (es) {
			fprintf(f,
				", \"inserted\": %" PRIu64 ", \"dispatched\": %" PRIu64
				", \"completed\": %" PRIu64 ", \"bytes\": %" PRIu64
				", \"wait_ns_total\": %" PRIu64 ", \"wait_ns_mean\": %.1f, "
				"\"wait_ns_max\": %" PRIu64 ", \"service_ns_total\": %" PRIu64,
				es->inserted, es->dispatched, es->completed, es->bytes, es->wait_ns,
				es->dispatched ? (double)es->wait_ns / (double)es->dispatched : 0.0,
				es->max_wait_ns, es->service_ns);
			gbytes[g] += es->bytes;
			tb += es->bytes;
		}
		fprintf(f, "}");
	}
	(void)nphase_jobs;
	fprintf(f, "\n  ],\n  \"groups\": [");
	for (int g = 0, n = 0; g < g_ngroups; g++) {
		if (g == 0 && !gbytes[0] && g_ngroups > 1)
			continue;
		fprintf(f, "%s\n    {\"group\": ", n++ ? "," : "");
		json_str(f, g ? g_groups[g] : "root");
		fprintf(f, ", \"weight\": %u, \"bytes\": %" PRIu64 ", \"share\": %.6f}",
			cfg->sched.group_weight[g], gbytes[g],
			tb ? (double)gbytes[g] / (double)tb : 0.0);
	}
	fprintf(f, "\n  ]\n}\n");
	fclose(f);
}

/* ---- main ---- */

static char *run_showcmd(const char *fio, const char *file)
{
	int p[2];
	if (pipe(p))
		die2("pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		execlp(fio, fio, "--showcmd", file, (char *)NULL);
		fprintf(stderr, "cannot run %s: %s\n", fio, strerror(errno));
		_exit(127);
	}
	close(p[1]);
	size_t cap = 65536, len = 0;
	char *buf = xmalloc(cap);
	ssize_t n;
	while ((n = read(p[0], buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				die2("out of memory");
		}
	}
	buf[len] = 0;
	close(p[0]);
	int st = 0;
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		/* fio's own complaint: its first line that is not "fio: job ... dropped" */
		char *l = buf, *msg = NULL;
		while (l && *l && !msg) {
			char *e = strchr(l, '\n');
			if (e)
				*e = 0;
			if (*l && !strstr(l, "dropped"))
				msg = l;
			l = e ? e + 1 : NULL;
		}
		die2("fio --showcmd rejects it: %s", msg ? msg : "(no message)");
	}
	/* the command line: the line that starts with "fio " */
	char *line = strstr(buf, "fio ");
	if (!line)
		die2("fio --showcmd printed no command line");
	return buf;
}

static void help(void)
{
	printf(
	    "usage: schedsim [OPTION]... JOBFILE\n"
	    "Runs a fio job file (with the engine's options, as schedbench generates it) in "
	    "virtual time:\n"
	    "the engine's sched/ policies, block layer and device models without fio doing any "
	    "I/O.\n"
	    "Prints fio-shaped JSON. Exit status: 0 ok, 1 the simulation failed, 2 a bad "
	    "option or job.\n"
	    "\n"
	    "  --fio FIO              the fio that reads JOBFILE (fio --showcmd, with the engine "
	    "loaded;\n"
	    "                         default: fio from PATH)\n"
	    "  --output FILE          write the JSON to FILE instead of standard output\n"
	    "  --seed N               the workload's seed, an unsigned integer (default 1; "
	    "schedbench\n"
	    "                         passes the repetition number)\n"
	    "  --io-overhead-ns N     fio's host time per I/O in nanoseconds, an unsigned "
	    "integer\n"
	    "                         (0, the default: the simulator's 2000)\n"
	    "  --stats FILE           write the engine's sched_stats JSON to FILE (else to the "
	    "job's\n"
	    "                         sched_stats= if it names one)\n"
	    "  --check                only read and check JOBFILE: one line saying what is "
	    "modelled,\n"
	    "                         nothing simulated\n"
	    "  --save-showcmd F       save fio --showcmd's reading of JOBFILE to F (for "
	    "--showcmd-file)\n"
	    "  --showcmd-file F       use F, saved by --save-showcmd, instead of running fio "
	    "--showcmd\n"
	    "  -h, --help             print this help and exit\n"
	    "Options taking a value accept --OPTION VALUE and --OPTION=VALUE.\n");
	exit(0);
}

static void usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void usage_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("schedsim: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs(" (see schedsim --help)\n", stderr);
	va_end(ap);
	exit(2);
}

/* --NAME VALUE or --NAME=VALUE: the value (advancing *i), NULL if argv[*i] is not --NAME. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
	const char *a = argv[*i];
	size_t l = strlen(name);

	if (strncmp(a, name, l))
		return NULL;
	if (a[l] == '=') {
		if (!a[l + 1])
			usage_err("%s: needs a value", name);
		return a + l + 1;
	}
	if (a[l])
		return NULL;
	if (*i + 1 >= argc)
		usage_err("%s: needs a value", name);
	return argv[++*i];
}

static uint64_t opt_u64(const char *name, const char *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 10);
	if (!isdigit((unsigned char)*v) || errno || *end)
		usage_err("%s=%s: not an unsigned integer", name, v);
	return x;
}

int main(int argc, char **argv)
{
	const char *fio = "fio", *output = NULL, *save = NULL, *load = NULL, *stats = NULL;
	uint64_t seed = 1, overhead = 0;
	int check = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		if ((v = opt_value(argc, argv, &i, "--fio")))
			fio = v;
		else if ((v = opt_value(argc, argv, &i, "--output")))
			output = v;
		else if ((v = opt_value(argc, argv, &i, "--seed")))
			seed = opt_u64("--seed", v);
		else if ((v = opt_value(argc, argv, &i, "--io-overhead-ns")))
			overhead = opt_u64("--io-overhead-ns", v);
		else if ((v = opt_value(argc, argv, &i, "--save-showcmd")))
			save = v;
		else if ((v = opt_value(argc, argv, &i, "--showcmd-file")))
			load = v;
		else if ((v = opt_value(argc, argv, &i, "--stats")))
			stats = v;
		else if (!strcmp(a, "--check"))
			check = 1;
		else if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			help();
		else if (a[0] == '-' && a[1])
			usage_err("%s: unknown option", a);
		else if (g_file)
			usage_err("%s: a second job file (%s is the first; one per run)", a,
				  g_file);
		else
			g_file = a;
	}
	if (!g_file)
		usage_err("no job file given");
	if (access(g_file, R_OK))
		die2("cannot read it: %s", strerror(errno));
	/* fio's parser (fio --showcmd, ~0.15 s of clock calibration each time), or its output saved
	 * by an earlier --check --save-showcmd of the same job (schedbench: once per cell) */
	char *text;
	if (load) {
		FILE *lf = fopen(load, "r");
		if (!lf)
			die2("--showcmd-file %s: %s", load, strerror(errno));
		size_t cap = 65536, len = 0, n;
		text = xmalloc(cap);
		while ((n = fread(text + len, 1, cap - len - 1, lf)) > 0) {
			len += n;
			if (cap - len < 4096) {
				cap *= 2;
				text = realloc(text, cap);
				if (!text)
					die2("out of memory");
			}
		}
		text[len] = 0;
		fclose(lf);
		if (!strstr(text, "fio "))
			die2("--showcmd-file %s: not fio --showcmd's output", load);
	} else {
		text = run_showcmd(fio, g_file);
	}
	if (save) {
		FILE *sf = fopen(save, "w");
		if (!sf || fputs(strstr(text, "fio "), sf) < 0 || fclose(sf))
			die2("cannot write %s: %s", save, strerror(errno));
	}
	parse_showcmd(strstr(text, "fio "));
	check_options();
	build_jobs();
	check_engine_values();
	int nphases = g_sj[g_njobs - 1].phase + 1;
	/* every phase's configuration, checked before anything runs */
	struct vsim_config *cfgs = calloc((size_t)nphases, sizeof(*cfgs));
	for (int p = 0; p < nphases; p++) {
		int j0 = 0;
		while (g_sj[j0].phase != p)
			j0++;
		build_config(&cfgs[p], j0);
	}
	if (check) {
		printf(
		    "schedsim: %s: %d job%s in %d phase%s, sched=%s, device_model=%s: modelled\n",
		    g_file, g_njobs, g_njobs > 1 ? "s" : "", nphases, nphases > 1 ? "s" : "",
		    g_co.sched, g_co.model);
		return 0;
	}
	FILE *f = output ? fopen(output, "w") : stdout;
	if (!f)
		die2("cannot write %s: %s", output, strerror(errno));
	time_t now = time(NULL);
	char tbuf[64];
	strftime(tbuf, sizeof(tbuf), "%a %b %e %H:%M:%S %Y", localtime(&now));
	fprintf(f,
		"{\n  \"fio version\" : \"schedsim (virtual time)\",\n  \"timestamp\" : %ld,\n"
		"  \"time\" : \"%s\",\n  \"clock\" : \"virtual\",\n  \"seed\" : %" PRIu64
		",\n  \"jobs\" : [",
		(long)now, tbuf, seed);
	int first = 1;
	struct vsim_job *vj = calloc((size_t)g_njobs, sizeof(*vj));
	int *map = calloc((size_t)g_njobs, sizeof(int));
	double sim_ms = 0;
	for (int p = 0; p < nphases; p++) {
		int n = 0;
		for (int j = 0; j < g_njobs; j++)
			if (g_sj[j].phase == p) {
				vj[n] = g_sj[j].v;
				map[n++] = j;
			}
		/* report groups within the phase: 0.. */
		int g0 = g_sj[map[0]].groupid;
		for (int k = 0; k < n; k++)
			vj[k].report_group = (uint32_t)(g_sj[map[k]].groupid - g0);
		struct vsim_config *cfg = &cfgs[p];
		cfg->jobs = vj;
		cfg->nr_jobs = (uint32_t)n;
		cfg->seed = seed + (uint64_t)p * 7919;
		if (overhead)
			cfg->io_overhead_ns = overhead;
		cfg->runtime_ns = g_sj[map[0]].runtime_ns;
		if (!g_sj[map[0]].time_based) {
			/* each clone does its data; runtime (if any) is a cap */
			int unbounded = 0;
			for (int k = 0; k < n; k++)
				unbounded |= !vj[k].number_ios;
			if (unbounded && !cfg->runtime_ns)
				die2("job '%s': neither time_based nor an amount of I/O that ends",
				     g_jobs[map[0]].name);
		}
		cfg->exitall = g_co.exitall;
		cfg->at_end = at_end;
		struct vsim_result r;
		char err[256];
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (vsim_run(cfg, &r, err, sizeof(err))) {
			fprintf(stderr, "schedsim: %s: %s\n", g_file, err);
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		sim_ms +=
		    (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
		if (r.stalled) {
			fprintf(stderr,
				"schedsim: %s: the simulation stalled (nothing could happen "
				"while jobs still had work)\n",
				g_file);
			return 1;
		}
		/* fio's JSON: one entry per clone, or per reporting group with group_reporting */
		for (uint32_t gr = 0; gr < r.nr_groups; gr++) {
			int k0 = -1, rep = 0;
			for (int k = 0; k < n; k++)
				if (vj[k].report_group == gr) {
					if (k0 < 0)
						k0 = k;
					rep |= g_sj[map[k]].reporting;
				}
			if (k0 < 0)
				continue;
			if (rep) {
				entry_json(f, &first, g_jobs[map[k0]].name, g_sj[map[k0]].groupid,
					   map[k0], &r.group[gr]);
				continue;
			}
			for (uint32_t e = 0; e < r.nr_entities; e++) {
				int k = (int)r.entity_job[e];
				if (vj[k].report_group != gr)
					continue;
				entry_json(f, &first, g_jobs[map[k]].name, g_sj[map[k]].groupid,
					   map[k], &r.entity[e]);
			}
		}
		if ((stats || g_co.stats_path) && p == nphases - 1)
			write_stats(stats ? stats : g_co.stats_path, &r, cfg, map, n);
		vsim_result_free(&r);
	}
	fprintf(f, "\n  ],\n  \"schedsim\" : {\"phases\" : %d, \"wall_ms\" : %.1f}\n}\n", nphases,
		sim_ms);
	if (output)
		fclose(f);
	free(vj);
	free(map);
	free(cfgs);
	free(text);
	return 0;
}
