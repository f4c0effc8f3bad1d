/* `schedbench run`: expand a matrix, run every cell x repetition (fio here, fio --client on a
 * fio server, or the simulator for virtual-time cells), store it. */
#include "sb.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

volatile int g_interrupted;
static struct kdev g_kdev;
static int g_kdev_active;
static struct mdev g_md;

static void on_signal(int sig)
{
	g_interrupted = sig;
}

static void cleanup_kdev(void)
{
	if (g_kdev_active) {
		kdev_bdi_restore(&g_kdev);
		kdev_restore(&g_kdev);
		kdev_loop_destroy(&g_kdev);
		g_kdev_active = 0;
	}
	mdev_stop(&g_md); /* after the device's settings are back */
}

static void install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: waitpid returns EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static const char *check_fio_json(sqlite3 *db, const char *json)
{
	sqlite3_stmt *st;
	const char *why = NULL;
	if (sqlite3_prepare_v2(
		db,
		"SELECT json_valid(?1), (SELECT count(*) FROM json_each(?1, '$.jobs')), "
		"(SELECT count(*) FROM json_each(?1, '$.jobs') WHERE json_extract(value, "
		"'$.error') <> 0), "
		"(SELECT total(coalesce(json_extract(value, '$.read.io_kbytes'), 0) + "
		"coalesce(json_extract(value, '$.write.io_kbytes'), 0) + "
		"coalesce(json_extract(value, '$.trim.io_kbytes'), 0) + "
		"coalesce(json_extract(value, '$.sync.total_ios'), 0)) FROM json_each(?1, "
		"'$.jobs'))",
		-1, &st, NULL) != SQLITE_OK)
		return "cannot check JSON";
	sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		if (!sqlite3_column_int(st, 0))
			why = "fio output is not valid JSON";
		else if (sqlite3_column_int(st, 1) == 0)
			why = "fio JSON has no jobs";
		else if (sqlite3_column_int(st, 2) > 0)
			why = "a fio job reported an error";
		else if (sqlite3_column_double(st, 3) <= 0)
			why = "fio did no I/O (io_kbytes 0 in every job)";
	}
	sqlite3_finalize(st);
	return why;
}

static void store_experiment(sqlite3 *db, const struct matrix *m, const char *name)
{
	size_t len;
	char *text = read_file(m->path, &len);
	struct strbuf ax;
	sb_init(&ax);
	sb_add(&ax, "[");
	for (int i = 0; i < m->naxes; i++) {
		sb_addf(&ax, "%s{\"name\":", i ? "," : "");
		sb_json_str(&ax, m->axes[i].name);
		sb_add(&ax, ",\"labels\":[");
		for (int j = 0; j < m->axes[i].nalts; j++) {
			if (j)
				sb_add(&ax, ",");
			sb_json_str(&ax, m->axes[i].alts[j].label);
		}
		/* what each label stands for (the report's legends: On = embedded:cfq slice_idle=8)
		 */
		sb_add(&ax, "],\"tokens\":[");
		for (int j = 0; j < m->axes[i].nalts; j++) {
			if (j)
				sb_add(&ax, ",");
			sb_json_str(&ax, m->axes[i].alts[j].text);
		}
		sb_add(&ax, "]}");
	}
	sb_add(&ax, "]");
	/* what the reports need beyond the axes: the device, the crosscheck tolerance and notes */
	struct strbuf set;
	sb_init(&set);
	sb_add(&set, "{\"device\":");
	if (m->device)
		sb_json_str(&set, m->device);
	else
		sb_add(&set, "null");
	sb_add(&set, ",\"device_params\":");
	kv_json(&set, &m->device_params);
	sb_add(&set, ",\"device_size\":");
	if (m->device_size)
		sb_json_str(&set, m->device_size);
	else
		sb_add(&set, "null");
	if (m->tolerance > 0)
		sb_addf(&set, ",\"tolerance\":%g", m->tolerance);
	else
		sb_add(&set, ",\"tolerance\":null");
	sb_add(&set, ",\"notes\":[");
	for (int i = 0; i < m->notes.n; i++) {
		sb_add(&set, i ? ",[" : "[");
		sb_json_str(&set, m->notes.v[i].key);
		sb_add(&set, ",");
		sb_json_str(&set, m->notes.v[i].val);
		sb_add(&set, "]");
	}
	sb_add(&set, "],\"clock\":");
	sb_json_str(&set, m->clock ? m->clock : "real");
	sb_add(&set, "}");
	sqlite3_stmt *st;
	char *now = now_iso();
	char *mp = abs_path(m->path);
	if (sqlite3_prepare_v2(db,
			       "INSERT INTO experiments (name, matrix_path, matrix_text, "
			       "description, report, x_axis, "
			       "baseline, axes, updated_at, settings) VALUES (?1, ?2, ?3, ?4, ?5, "
			       "?6, ?7, ?8, ?9, ?10) ON CONFLICT (name) "
			       "DO UPDATE SET matrix_path = excluded.matrix_path, matrix_text = "
			       "excluded.matrix_text, "
			       "description = excluded.description, report = excluded.report, "
			       "x_axis = excluded.x_axis, "
			       "baseline = excluded.baseline, axes = excluded.axes, updated_at = "
			       "excluded.updated_at, settings = excluded.settings",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, mp, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, text ? text : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, m->description ? m->description : "", -1, SQLITE_STATIC);
		/* a model-backed device's matrix pairs kernel and embedded cells; clock = both
		 * pairs the real and virtual twins */
		const char *rep = m->report				  ? m->report
				  : m->model_kind			  ? "crosscheck"
				  : m->clock && !strcmp(m->clock, "both") ? "agreement"
									  : "generic";
		sqlite3_bind_text(st, 5, rep, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, m->x_axis ? m->x_axis : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 7, m->baseline ? m->baseline : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 8, ax.s, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 9, now, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 10, set.s, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			warnx_("cannot store experiment: %s", sqlite3_errmsg(db));
		sqlite3_finalize(st);
	}
	free(mp);
	free(now);
	free(text);
	sb_free(&ax);
	sb_free(&set);
}

/* The matrix's cells as this experiment's members (replacing the previous expansion). */
static void store_cells(sqlite3 *db, const char *name, const struct cell *cells, char **hashes,
			int n)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	if (sqlite3_prepare_v2(db, "DELETE FROM experiment_cells WHERE experiment = ?1", -1, &st,
			       NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db,
			       "INSERT OR REPLACE INTO experiment_cells (experiment, cell_hash, "
			       "cell_index, cell_name, "
			       "labels) VALUES (?1, ?2, ?3, ?4, ?5)",
			       -1, &st, NULL) != SQLITE_OK)
		goto fail;
	for (int i = 0; i < n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, hashes[i], -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, i);
		sqlite3_bind_text(st, 4, cells[i].name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, cells[i].labels_json, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto fail;
	}
	sqlite3_finalize(st);
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
		return;
	st = NULL;
fail:
	warnx_("cannot store the experiment's cells: %s", sqlite3_errmsg(db));
	if (st)
		sqlite3_finalize(st);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

static char *result_brief(sqlite3 *db, long long id)
{
	sqlite3_stmt *st;
	struct strbuf b;
	sb_init(&b);
	if (sqlite3_prepare_v2(db,
			       "SELECT ddir, iops, bw_kib, lat_mean_ns FROM run_totals WHERE "
			       "run_id = ?1 ORDER BY ddir",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *d = (const char *)sqlite3_column_text(st, 0);
			if (!strcmp(d, "sync"))
				sb_addf(&b, "  sync lat %.3f ms",
					sqlite3_column_double(st, 3) / 1e6);
			else
				sb_addf(&b, "  %s %.0f iops %.0f KiB/s", d,
					sqlite3_column_double(st, 1), sqlite3_column_double(st, 2));
		}
		sqlite3_finalize(st);
	}
	return sb_steal(&b);
}

/* Work directories and loop images left by runners that were killed (name ends in -PID /
 * loop-PID.img). */
static void clean_stale(const char *tmpdir)
{
	DIR *d = opendir(tmpdir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *dash = strrchr(e->d_name, '-');
		if (!dash || e->d_name[0] == '.')
			continue;
		long pid = strtol(dash + 1, NULL, 10);
		int is_img = !strncmp(e->d_name, "loop-", 5) && strstr(e->d_name, ".img");
		if (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno == EPERM)
			continue;
		char *p = path_join(tmpdir, e->d_name);
		if (is_img) {
			/* a killed runner's loop device: detach it first */
			const char *argv[] = {"losetup", "-j", p, "-O", "NAME", "-n", NULL};
			int rc;
			char *out = run_capture(argv, &rc);
			char *save = NULL;
			for (char *dev = out ? strtok_r(out, "\n", &save) : NULL; dev;
			     dev = strtok_r(NULL, "\n", &save)) {
				const char *dv[] = {"losetup", "-d", trim(dev), NULL};
				char *o2 = run_capture(dv, &rc);
				free(o2);
				printf("detached %s left by a killed runner (pid %ld)\n", trim(dev),
				       pid);
			}
			free(out);
		}
		rm_rf(p);
		free(p);
	}
	closedir(d);
}

/* A scratch target for a device model: sparse, so that fio finds it big enough and lays nothing out
 * (the model never reads or writes it). Falls back to fio's own layout if the file system refuses.
 */
static void make_sparse(const char *path, unsigned long long bytes)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	/* 1 TiB by default: larger than any seed job's offset + size; a model-backed device's
	 * matrix: the device's size, as fio sees the kernel side's */
	if (ftruncate(fd, bytes ? (off_t)bytes : (off_t)1 << 40) && !bytes)
		(void)ftruncate(fd, (off_t)64 << 30);
	close(fd);
}

/* "'slice_idel' is not an iosched/ or queue/ attribute of bfq on loop3 (did you mean slice_idle?)"
 */
static void bad_attribute(const struct matrix *m, const struct cell *d, const char *key,
			  int queue_only)
{
	const char *ln = kv_get(&d->lines, key);
	char *iodir = xasprintf("%s/iosched", g_kdev.qdir);
	struct strbuf names;
	char near[320] = "";
	int best = 3;
	sb_init(&names);
	DIR *dh = opendir(iodir);
	struct dirent *e;
	while (dh && (e = readdir(dh))) {
		if (e->d_name[0] == '.')
			continue;
		sb_addf(&names, "%s%s", names.len ? " " : "", e->d_name);
		int dist = levenshtein(key, e->d_name);
		if (dist < best) {
			best = dist;
			snprintf(near, sizeof(near), " (did you mean %s?)", e->d_name);
		}
	}
	if (dh)
		closedir(dh);
	fprintf(stderr, "%s:%d: '%s' is not a%s attribute of %s on %s%s (its tunables: %s)\n",
		m->path, ln ? atoi(ln) : d->line, key,
		queue_only ? " queue/" : "n iosched/ or queue/", d->sched, g_kdev.name, near,
		names.s ? names.s : "none");
	sb_free(&names);
	free(iodir);
}

/* Whether every iosched./queue. key of a kernel cell is a file of the device (its scheduler set).
 */
static int cell_attributes_exist(const struct matrix *m, const struct cell *d)
{
	for (int pass = 0; pass < 2; pass++) {
		const struct kvlist *l = pass ? &d->queue : &d->iosched;
		for (int k = 0; k < l->n; k++) {
			char *io = xasprintf("%s/iosched/%s", g_kdev.qdir, l->v[k].key);
			char *q = xasprintf("%s/%s", g_kdev.qdir, l->v[k].key);
			int missing = (pass || access(io, F_OK)) && access(q, F_OK);
			free(io);
			free(q);
			if (missing) {
				bad_attribute(m, d, l->v[k].key, pass);
				return 0;
			}
		}
	}
	return 1;
}

/* Kernel cells, before the first one runs: each cell's scheduler exists on the device and every
 * iosched./queue. key of the cell is a file there (the scheduler is set to look, then restored). */
static int kernel_preflight(const struct matrix *m, const struct cell *cells, int n)
{
	char err[1024] = "";
	int rc = 0;
	struct kvlist seen = {0};
	for (int i = 0; i < n && !rc; i++) {
		const struct cell *c = &cells[i];
		if (c->mode != MODE_KERNEL || kv_get(&seen, c->sched))
			continue;
		kv_set(&seen, c->sched, "");
		struct cell probe = {.mode = MODE_KERNEL, .sched = c->sched};
		if (kdev_apply(&g_kdev, &probe, err, sizeof(err))) {
			fprintf(stderr, "%s:%d: cell '%s': %s\n", m->path, c->line, c->name, err);
			rc = -1;
			break;
		}
		for (int j = i; j < n && !rc; j++)
			if (cells[j].mode == MODE_KERNEL && !strcmp(cells[j].sched, c->sched) &&
			    !cell_attributes_exist(m, &cells[j]))
				rc = -1;
	}
	kdev_restore(&g_kdev);
	kv_free(&seen);
	return rc;
}

static const char *mode_name(enum cell_mode m)
{
	return m == MODE_EMBEDDED ? "embedded" : m == MODE_KERNEL ? "kernel" : "job";
}

/* Seconds one run of the cell should take: its runtime (overlay, else the job file's largest)
 * plus ramp_time; -1 when nothing bounds it. */
static double cell_seconds(const struct cell *c)
{
	double rt = -1, ramp = 0;
	const char *v = kv_get(&c->job_opts, "runtime");
	if (v)
		rt = parse_seconds(v);
	v = kv_get(&c->job_opts, "ramp_time");
	if (v && parse_seconds(v) > 0)
		ramp = parse_seconds(v);
	if (rt < 0) { /* the job file's own runtime= / timeout= */
		const char *p = c->job_text;
		while (p && *p) {
			while (*p == ' ' || *p == '\t')
				p++;
			if (!strncmp(p, "runtime=", 8) || !strncmp(p, "timeout=", 8)) {
				char *e = xstrndup(p + 8, strcspn(p + 8, " \t\r\n;#"));
				double t = parse_seconds(e);
				if (t > rt)
					rt = t;
				free(e);
			}
			p = strchr(p, '\n');
			if (p)
				p++;
		}
	}
	return rt < 0 ? -1 : rt + ramp;
}

/* fio's own logs in the work directory (write_iops_log=... etc.) into fio_logs. */
static int store_logs(sqlite3 *db, long long id, const char *workdir)
{
	DIR *d = opendir(workdir);
	if (!d)
		return 0;
	static const char *kinds[] = {"iops", "clat", "slat", "lat", "bw"};
	size_t total = 0;
	int n = 0;
	struct dirent *e;
	sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	while ((e = readdir(d))) {
		const char *nm = e->d_name;
		size_t l = strlen(nm);
		if (l < 5 || strcmp(nm + l - 4, ".log"))
			continue;
		const char *kind = NULL;
		int job = 0;
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && !kind; k++) {
			char *pat = xasprintf("_%s.", kinds[k]);
			const char *at = strstr(nm, pat);
			if (at) {
				kind = kinds[k];
				job = atoi(at + strlen(pat));
			}
			free(pat);
		}
		if (!kind)
			continue;
		char *p = path_join(workdir, nm);
		size_t len;
		char *text = read_file(p, &len);
		if (text && total + len <= (64u << 20)) {
			if (!db_store_log(db, id, nm, kind, job, text))
				n++;
			total += len;
		} else if (text) {
			warnx_("%s: fio logs over 64 MiB in this run; %s not stored (set "
			       "log_avg_msec)",
			       workdir, nm);
		}
		free(text);
		free(p);
	}
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	closedir(d);
	return n;
}

static int count_done(sqlite3 *db, char **hashes, int ncells, int first, int last)
{
	sqlite3_stmt *st;
	int n = 0;
	if (sqlite3_prepare_v2(db,
			       "SELECT count(*) FROM runs WHERE cell_hash = ?1 AND repetition "
			       "BETWEEN ?2 AND ?3 AND status = 'ok'",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	for (int i = 0; i < ncells; i++) {
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, hashes[i], -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 2, first);
		sqlite3_bind_int(st, 3, last);
		if (sqlite3_step(st) == SQLITE_ROW)
			n += sqlite3_column_int(st, 0);
	}
	sqlite3_finalize(st);
	return n;
}

/* "4 cells x 2 repetitions = 8 runs; estimated 00:48" before the first run. */
static void print_plan(const char *name, const struct cell *cells, int ncells, int repeat, int done,
		       const char *dbpath, int parallel)
{
	double secs = 0;
	int unknown = 0;
	for (int i = 0; i < ncells; i++) {
		double t = cells[i].virt ? 0 : cell_seconds(&cells[i]);
		if (t < 0)
			unknown++;
		else /* + fio's start-up and the database; the simulator takes a fraction of it */
			secs += (t + (cells[i].virt ? 0.2 : 1.0)) * repeat;
	}
	int total = ncells * repeat;
	if (total)
		secs = secs * (total - done) / total;
	if (parallel > 1)
		secs /= parallel;
	char est[32];
	fmt_hms(est, sizeof(est), secs);
	printf("%s: %d cell%s x %d repetition%s = %d runs, %d done before, %d to run; estimated "
	       "%s%s%s (db %s)\n",
	       name, ncells, ncells == 1 ? "" : "s", repeat, repeat == 1 ? "" : "s", total, done,
	       total - done, unknown ? "at least " : "", est,
	       unknown ? " (some cells have no runtime)" : "", dbpath);
}

/* ---- the runner: cells x repetitions, each run on a slot (this machine or a fio server) ---- */

struct runner {
	struct run_opts *o;
	struct matrix *m;
	struct cell *cells;
	int ncells;
	char **hashes;
	int first_rep, repeat;
	char *engine_so;
	int engine_stats;
	const char *target;
	char *tmpdir, *dbpath, *expname;
	sqlite3 *db;
	char *owner;
	struct provenance prov;
	char kernel_skip[700]; /* kernel cells are not run: why */
	unsigned long long sparse_bytes;
	struct host *hosts; /* fio servers, then the local slot */
	int nhosts, multi;
	char *schedsim;
	char *simcache; /* fio's reading of each virtual-time cell (schedsim --check) */
	int n_ok, n_failed, n_interrupted, n_done, n_busy, n_skipped, n_run, n_requeued;
	double t0, run_secs;
	int total;
};

struct attempt {
	int ci, rep, k;
	struct cell *c;
	const char *hash;
	struct host *h; /* NULL: this machine */
	char *workdir, *jobfile, *outp, *errp, *stdoutp, *stats, *scratch, *tgt;
	char *remote_tmp; /* a per-cell path on the host, removed after the cell */
	char *gen, *sysfs, *device_stats, *runprov;
	char err[1024];
	int rc, on_kdev, spawned;
	int redo; /* --force over a stored ok run: only an ok run replaces it */
	const char *status;
	char *started;
	char *head; /* a virtual-time cell's start line, printed with its result (cells run side
		     * by side and take a moment: a line each, not a start and a result apart) */
	double cstart;
	struct cgset cg;
	int cg_up;
	struct child ch;
};

static const char *sb_schedsim_bin(void)
{
	static char *bin;
	if (bin)
		return bin;
	const char *e = getenv("SCHEDBENCH_SCHEDSIM");
	if (e && *e)
		return bin = xstrdup(e);
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = 0;
		char *d = dir_name(buf);
		char *p = path_join(d, "schedsim");
		free(d);
		if (!access(p, X_OK))
			return bin = p;
		free(p);
	}
	return bin = xstrdup("schedsim");
}

/* {...} + ,"key":raw */
static char *json_add(const char *obj, const char *key, const char *raw)
{
	size_t l = strlen(obj);
	while (l && obj[l - 1] != '}')
		l--;
	if (!l)
		return xstrdup(obj);
	return xasprintf("%.*s%s\"%s\":%s}", (int)(l - 1), obj, l > 2 ? "," : "", key,
			 raw ? raw : "null");
}

static void prefix_lines(const char *text, const char *pre)
{
	const char *p = text;
	while (p && *p) {
		const char *e = strchr(p, '\n');
		printf("%s%.*s\n", pre, (int)(e ? e - p : (long)strlen(p)), p);
		p = e ? e + 1 : NULL;
	}
}

/* fio's client JSON keeps its jobs in client_stats, with an "All clients" sum when a job file
 * has groups: as jobs[] without it, so that it is stored like any fio output (the reports read
 * jobs[]). NULL when it is not fio's JSON. */
static int json_valid_text(sqlite3 *db, const char *json)
{
	sqlite3_stmt *st;
	int ok = 0;
	if (sqlite3_prepare_v2(db, "SELECT json_valid(?1)", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		ok = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return ok;
}

static char *normalize_client_json(sqlite3 *db, const char *json)
{
	sqlite3_stmt *st;
	char *out = NULL;
	if (!json ||
	    sqlite3_prepare_v2(db,
			       "SELECT CASE WHEN json_type(?1, '$.client_stats') = 'array' "
			       "THEN json_set(json_remove(?1, '$.client_stats'), '$.jobs', "
			       "(SELECT json_group_array(json(value)) FROM "
			       "json_each(?1, '$.client_stats') WHERE "
			       "coalesce(json_extract(value, '$.jobname'), '') <> "
			       "'All clients')) ELSE ?1 END",
			       -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		out = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return out;
}

/* The devices fio's disk_util names (what the run touched on its host). */
static char *disk_util_names(const char *json)
{
	struct strbuf b;
	sb_init(&b);
	sb_add(&b, "[");
	const char *d = json ? strstr(json, "\"disk_util\"") : NULL;
	int n = 0;
	while (d && (d = strstr(d, "\"name\" : \""))) {
		d += 10;
		const char *e = strchr(d, '"');
		if (!e)
			break;
		char *nm = xstrndup(d, (size_t)(e - d));
		sb_add(&b, n++ ? "," : "");
		sb_json_str(&b, nm);
		free(nm);
	}
	sb_add(&b, "]");
	return sb_steal(&b);
}

static void attempt_free(struct attempt *a)
{
	free(a->head);
	free(a->workdir);
	free(a->jobfile);
	free(a->outp);
	free(a->errp);
	free(a->stdoutp);
	free(a->stats);
	free(a->scratch);
	free(a->tgt);
	free(a->remote_tmp);
	free(a->gen);
	free(a->sysfs);
	free(a->device_stats);
	free(a->runprov);
	free(a->started);
	free(a);
}

static int is_directory_job(const struct cell *c)
{
	return strstr(c->job_text, "directory=${TARGET}") != NULL;
}

static int has_model(const struct cell *c)
{
	const char *dm = kv_get(&c->engine_opts, "device_model");
	return c->mode == MODE_EMBEDDED && dm && strcmp(dm, "none");
}

/* Everything before the process starts: the work directory, the target, the kernel's settings
 * (a model-backed device reset first), the cgroups, the job file. 0, or -1 with the run failed
 * (status and err set). */
static int attempt_begin(struct runner *R, struct attempt *a)
{
	struct cell *c = a->c;
	a->started = now_iso();
	a->cstart = now_mono();
	a->status = "ok";
	a->workdir = xasprintf("%s/%.16s-r%d-%ld", R->tmpdir, a->hash, a->rep, (long)getpid());
	journal_dir(a->workdir, 1);
	rm_rf(a->workdir);
	mkdir_p(a->workdir);
	a->jobfile = path_join(a->workdir, "job.fio");
	a->outp = path_join(a->workdir, "fio.json");
	a->errp = path_join(a->workdir, "fio.stderr");
	a->stdoutp = path_join(a->workdir, "fio.stdout");
	a->stats = path_join(a->workdir, "sched_stats.json");
	a->scratch = path_join(a->workdir, "target");
	const char *stats = NULL;
	if (a->h) {
		/* on a fio server: its own paths (fio --client expands ${TARGET} here) */
		char *cellp = xasprintf("%s/cells/%.16s-r%d", a->h->scratch, a->hash, a->rep);
		if (c->mode == MODE_KERNEL) {
			a->tgt = xstrdup(a->h->target ? a->h->target : R->target);
		} else if (R->target && c->mode == MODE_JOB) {
			a->tgt = xstrdup(R->target);
		} else if (is_directory_job(c)) {
			a->tgt = xstrdup(cellp);
			a->remote_tmp = xstrdup(cellp);
			char *cmd = xasprintf("mkdir -p %s", cellp);
			if (host_exec(a->h, R->tmpdir, "mkdir", cmd)) {
				snprintf(a->err, sizeof(a->err), "cannot make %s on %s", cellp,
					 a->h->spec);
				a->status = "failed";
			}
			free(cmd);
		} else if (has_model(c)) {
			a->tgt = xasprintf("%s/sparse", a->h->scratch); /* never read or written */
		} else {
			a->tgt = xasprintf("%s.file", cellp);
			a->remote_tmp = xstrdup(a->tgt);
		}
		free(cellp);
	} else {
		int on_kdev =
		    c->mode == MODE_KERNEL ||
		    (c->mode == MODE_EMBEDDED && g_kdev_active && !R->m->model_kind && !c->virt);
		a->on_kdev = on_kdev;
		if (on_kdev)
			a->tgt = xstrdup(g_kdev.devpath);
		else if (R->target && c->mode == MODE_JOB)
			a->tgt = xstrdup(R->target);
		else
			a->tgt = xstrdup(a->scratch);
		if (!on_kdev && !strcmp(a->tgt, a->scratch)) {
			if (is_directory_job(c))
				mkdir_p(a->scratch); /* the job puts its files in a directory */
			else if (has_model(c) && !c->virt)
				/* the model neither reads nor writes it: no layout */
				make_sparse(a->scratch, R->m->model_kind ? R->sparse_bytes : 0);
		}
		if (c->mode == MODE_EMBEDDED && (R->engine_stats || c->virt))
			stats = a->stats;
	}
	/* kernel cells: fio's cgroup= becomes the runner's cgroups, joined from exec_prerun */
	struct kvlist groups = {0};
	if (c->mode == MODE_KERNEL && !a->h && !strcmp(a->status, "ok")) {
		job_cgroups(c->job_text, &groups);
		if (groups.n) {
			if (cg_setup(&a->cg, &groups, a->err, sizeof(a->err)))
				a->status = "failed";
			a->cg_up = 1;
		}
	}
	a->gen = jobfile_overlay_cg(c->job_text, c, a->h ? a->h->engine : R->engine_so, stats,
				    a->cg_up ? &a->cg.paths : NULL);
	kv_free(&groups);
	write_file(a->jobfile, a->gen, strlen(a->gen));
	if (a->on_kdev && !strcmp(a->status, "ok")) {
		struct cell none = {.mode = MODE_KERNEL, .sched = (char *)"none"};
		int bad = 0;
		if (c->mode == MODE_KERNEL && g_md.up) {
			/* a fresh model; the device's tags = the model's depth: nr_requests under
			 * none sizes the driver tags, and the size stays with the next scheduler */
			char tags[16];
			snprintf(tags, sizeof(tags), "%u", g_md.tags);
			char *np = path_join(g_kdev.qdir, "nr_requests");
			bad = mdev_reset(&g_md, a->err, sizeof(a->err)) ||
			      kdev_apply(&g_kdev, &none, a->err, sizeof(a->err));
			if (!bad && sysfs_write(np, tags)) {
				snprintf(a->err, sizeof(a->err), "cannot set %s=%s: %s", np, tags,
					 strerror(errno));
				bad = 1;
			}
			free(np);
		}
		if (!bad)
			bad = kdev_apply(&g_kdev, c->mode == MODE_KERNEL ? c : &none, a->err,
					 sizeof(a->err));
		if (!bad && c->mode == MODE_KERNEL && g_md.up && !strcmp(c->sched, "none") &&
		    !kv_get(&c->queue, "nr_requests")) {
			/* writing none (again) sets nr_requests back to the driver's 128: the
			 * tags once more, under none, where the value is the device's depth */
			char tags[16];
			snprintf(tags, sizeof(tags), "%u", g_md.tags);
			char *np = path_join(g_kdev.qdir, "nr_requests");
			if (sysfs_write(np, tags)) {
				snprintf(a->err, sizeof(a->err), "cannot set %s=%s: %s", np, tags,
					 strerror(errno));
				bad = 1;
			}
			free(np);
		}
		if (!bad && c->mode == MODE_KERNEL)
			bad = kdev_bdi_apply(&g_kdev, c, a->err, sizeof(a->err));
		if (!bad && a->cg_up)
			bad = cg_set_weights(&a->cg, c->sched, a->err, sizeof(a->err));
		if (bad)
			a->status = "failed", a->rc = -1;
		a->sysfs = kdev_state_json(&g_kdev); /* also on failure: what the device was */
		if (g_md.up) {
			struct strbuf b;
			sb_init(&b);
			char *bdi = xasprintf("/sys/block/%s/bdi", g_kdev.name);
			sysfs_dir_json(&b, bdi);
			char *s2 = json_add(a->sysfs, "bdi", b.s);
			free(a->sysfs);
			a->sysfs = s2;
			free(bdi);
			sb_free(&b);
		}
	}
	/* provenance: this machine's, the target's device, and what ran it */
	char *runprov;
	if (a->h) {
		runprov = xstrdup(R->prov.json);
		char *t = json_add(runprov, "remote", a->h->prov_json);
		free(runprov);
		runprov = t;
	} else {
		char *tdev = target_device_json(a->tgt);
		runprov = json_add(R->prov.json, "target", tdev);
		free(tdev);
	}
	if (g_md.up && c->mode != MODE_JOB && !a->h) {
		char *t = json_add(runprov, "modeldev", g_md.info);
		free(runprov);
		runprov = t;
	}
	if (c->virt) {
		char sha[65] = "";
		size_t len;
		char *data = read_file(R->schedsim, &len);
		if (data)
			sha256_hex(data, len, sha);
		free(data);
		char *sim = xasprintf("{\"path\":\"%s\",\"sha256\":\"%s\",\"clock\":\"virtual\"}",
				      R->schedsim, sha);
		char *t = json_add(runprov, "simulator", sim);
		free(runprov);
		free(sim);
		runprov = t;
	}
	a->runprov = runprov;
	return strcmp(a->status, "ok") ? -1 : 0;
}

static int attempt_spawn(struct runner *R, struct attempt *a)
{
	struct cell *c = a->c;
	const char *argv[16];
	char *client = NULL, *out = xasprintf("--output=%s", a->outp);
	int n = 0;
	char *cache = NULL, *seed = NULL;
	if (c->virt) {
		/* the repetition is the workload's seed: repetitions differ as real runs do */
		cache = xasprintf("%s/cell-%d.cmd", R->simcache, a->ci);
		seed = xasprintf("%d", a->rep);
		argv[n++] = R->schedsim;
		argv[n++] = "--showcmd-file";
		argv[n++] = cache;
		argv[n++] = "--stats";
		argv[n++] = a->stats;
		argv[n++] = "--seed";
		argv[n++] = seed;
		argv[n++] = out;
		argv[n++] = a->jobfile;
	} else {
		argv[n++] = fio_bin_path();
		if (a->h) {
			client = xasprintf("--client=%s", a->h->server);
			argv[n++] = client;
		}
		argv[n++] = "--output-format=json+";
		argv[n++] = out;
		argv[n++] = "--eta=always";
		argv[n++] = "--eta-interval=1";
		argv[n++] = a->jobfile;
	}
	argv[n] = NULL;
	int r = child_start(&a->ch, a->workdir, argv, &c->env, a->tgt, a->errp, a->stdoutp);
	free(client);
	free(out);
	free(cache);
	free(seed);
	if (r) {
		snprintf(a->err, sizeof(a->err), "cannot start %s: %s", argv[0], strerror(errno));
		a->status = "failed";
		a->rc = -1;
		return -1;
	}
	double expect = c->virt ? 0 : cell_seconds(c);
	a->ch.expect_s = expect;
	a->ch.budget_s = c->virt ? 600 : expect > 0 ? expect * 3 + 60 : 0;
	a->ch.show = !c->virt;
	snprintf(a->ch.what, sizeof(a->ch.what), "%s", c->virt ? "schedsim" : "fio");
	if (R->nhosts > 1)
		snprintf(a->ch.prefix, sizeof(a->ch.prefix), "[%d %s] ", a->k,
			 a->h ? a->h->spec : "local");
	a->spawned = 1;
	return 0;
}

enum finish { FIN_STORED, FIN_LOST };

/* After the process: its outputs, the kernel's settings back, the run stored (once). A run on a
 * fio server that went away is not stored: FIN_LOST, and it goes back to the queue. */
static enum finish attempt_finish(struct runner *R, struct attempt *a)
{
	struct cell *c = a->c;
	char *stderr_text = NULL, *json = NULL, *stats_text = NULL;
	size_t len;
	if (a->spawned) {
		a->rc = a->ch.rc;
		stderr_text = read_file(a->errp, &len);
		char *out = read_file(a->outp, &len);
		json = json_strip(out);
		if (a->h && json && json_valid_text(R->db, json)) {
			char *n = normalize_client_json(R->db, json);
			if (n) {
				free(json);
				json = n;
			}
		}
		/* fio's stdout without its status lines: messages that belong in the error tail */
		char *so = read_file(a->stdoutp, &len);
		if (so) {
			struct strbuf keep;
			sb_init(&keep);
			for (char *save = NULL, *l = strtok_r(so, "\r\n", &save); l;
			     l = strtok_r(NULL, "\r\n", &save))
				if (strncmp(l, "Jobs:", 5) && strncmp(l, "<", 1))
					sb_addf(&keep, "%s\n", l);
			if (keep.len) {
				char *t = xasprintf("%s%s", stderr_text ? stderr_text : "", keep.s);
				free(stderr_text);
				stderr_text = t;
			}
			sb_free(&keep);
			free(so);
		}
		if (out && !json && *out) {
			char *t = xasprintf("%s%s", stderr_text ? stderr_text : "", out);
			free(stderr_text);
			stderr_text = t;
		}
		free(out);
		if (c->mode == MODE_EMBEDDED && !a->h)
			stats_text = read_file(a->stats, &len);
		const char *why = json ? check_fio_json(R->db, json) : "no JSON";
		if (a->h && !g_interrupted && (a->rc != 0 || why) && !host_check(a->h, 1000)) {
			/* the host went away: nothing of this run is kept, another host runs it.
			 * Held 1 s: a server killed with its children can drop this run's
			 * connection before its own listening socket is closed */
			a->h->lost = 1;
			free(stderr_text);
			free(json);
			free(stats_text);
			return FIN_LOST;
		}
		if (g_interrupted) {
			a->status = "interrupted";
		} else if (a->rc != 0) {
			a->status = "failed";
		} else if (!json) {
			a->status = "failed";
			snprintf(a->err, sizeof(a->err), "%s printed no JSON",
				 c->virt ? "schedsim" : "fio");
		} else if (why) {
			a->status = "failed";
			snprintf(a->err, sizeof(a->err), "%s", why);
		}
	}
	if (a->on_kdev) {
		if (c->mode == MODE_KERNEL && g_md.up && a->spawned)
			a->device_stats = mdev_stats(&g_md);
		kdev_bdi_restore(&g_kdev);
		kdev_restore(&g_kdev);
	}
	if (a->cg_up)
		cg_teardown(&a->cg);
	if (a->h && a->remote_tmp) {
		char *cmd = xasprintf("rm -rf %s", a->remote_tmp);
		host_exec(a->h, R->tmpdir, "rm", cmd);
		free(cmd);
	}
	if (a->h && json) {
		char *du = disk_util_names(json);
		char *t = json_add(a->runprov, "remote_disk_util", du);
		free(a->runprov);
		a->runprov = t;
		free(du);
	}
	struct strbuf tail;
	sb_init(&tail);
	if (a->err[0])
		sb_addf(&tail, "schedbench: %s\n", a->err);
	char *t = tail_text(stderr_text, 4000);
	sb_add(&tail, t);
	free(t);
	char *ended = now_iso();
	char job_hash[65];
	sha256_hex(c->job_text, strlen(c->job_text), job_hash);
	/* the job file as a path from the data directory when it is in it, else absolute */
	const char *jp = c->job_abs;
	const char *dd = sb_datadir();
	size_t rl = dd ? strlen(dd) : 0;
	if (dd && !strncmp(jp, dd, rl) && jp[rl] == '/')
		jp += rl + 1;
	struct run_record r = {
	    .hash = a->hash,
	    .repetition = a->rep,
	    .experiment = R->expname,
	    .cell_name = c->name,
	    .labels_json = c->labels_json,
	    .job_path = jp,
	    .job_text = c->job_text,
	    .job_hash = job_hash,
	    .generated_job = a->gen,
	    .overlays_json = c->overlays_json,
	    .mode = mode_name(c->mode),
	    .scheduler = c->sched,
	    .target = a->tgt,
	    .prov = &R->prov,
	    .status = a->status,
	    .rc = a->rc,
	    .stderr_tail = tail.s ? tail.s : "",
	    .started_at = a->started,
	    .ended_at = ended,
	    .duration_s = now_mono() - a->cstart,
	    .sysfs_state = a->sysfs,
	    .fio_json = json,
	    .sched_stats = stats_text,
	    .provenance = a->runprov,
	    .clock = c->virt ? "virtual" : "real",
	    .device_stats = a->device_stats,
	    .fio_host = a->h ? a->h->spec : NULL,
	    .batch = R->o->batch,
	    .host = a->h ? a->h->hostname : NULL,
	    .kernel = a->h ? (a->h->kernel ? a->h->kernel : "unknown (not reported by fio)") : NULL,
	    .fio_version = a->h ? a->h->fio_version : NULL,
	    .engine_rev = a->h && c->mode != MODE_EMBEDDED ? "" : NULL,
	};
	char err[1024];
	long long id = -1;
	/* a forced re-run of an ok run replaces it only with an ok run: the stored one stays */
	int keep_old = a->redo && strcmp(a->status, "ok");
	if (!keep_old) {
		id = db_store(R->db, &r, err, sizeof(err));
		if (id < 0) {
			fprintf(stderr, "schedbench: cannot store run: %s\n", err);
			a->status = "failed";
		} else {
			store_logs(R->db, id, a->workdir);
		}
	}
	R->n_run++;
	R->run_secs += now_mono() - a->cstart;
	char pre[640] = "      ";
	if (a->head)
		snprintf(pre, sizeof(pre), "%s: ", a->head);
	else if (R->nhosts > 1)
		snprintf(pre, sizeof(pre), "      [%d %s] ", a->k, a->h ? a->h->spec : "local");
	int interrupted = !strcmp(a->status, "interrupted");
	if (!strcmp(a->status, "ok")) {
		R->n_ok++;
		char *brief = result_brief(R->db, id);
		printf("%sok%s%s\n", pre, brief, c->virt ? "  (virtual time)" : "");
		free(brief);
		rm_rf(a->workdir);
	} else {
		if (interrupted)
			R->n_interrupted++;
		else
			R->n_failed++;
		char *short_tail = tail_text(tail.s ? tail.s : "", 600);
		/* an interrupted run's work directory goes like its scratch files (nothing failed
		 * there to look at); a failed run's is kept for a look */
		if (interrupted)
			rm_rf(a->workdir);
		printf("%s%s (rc %d)%s%s%s\n", pre, a->status, a->rc,
		       keep_old ? ", not stored: the stored ok run stays" : "",
		       interrupted ? "" : ", kept ", interrupted ? "" : a->workdir);
		char *p2 = xasprintf("%s| ", a->head ? "      " : pre);
		prefix_lines(short_tail, p2);
		free(p2);
		free(short_tail);
		rm_rf(a->scratch);
	}
	journal_dir(a->workdir, 0); /* removed, or kept on purpose for a look at a failure */
	fflush(stdout);
	sb_free(&tail);
	free(ended);
	free(stderr_text);
	free(json);
	free(stats_text);
	return FIN_STORED;
}

struct item {
	int ci, rep, k, state; /* state 0 pending, 1 taken */
};

/* Can this slot run this item: remote hosts run real-time cells, this machine's slot runs
 * everything when there are no hosts, else the virtual-time cells. */
static int slot_takes(const struct runner *R, const struct host *h, const struct cell *c)
{
	if (h->local)
		return !R->multi || c->virt;
	return !c->virt;
}

static void fmt_start(struct runner *R, const struct item *it, const struct host *h, char *buf,
		      size_t len)
{
	const struct cell *c = &R->cells[it->ci];
	int shown = it->rep - R->first_rep + 1;
	if (c->virt) {
		snprintf(buf, len, "[%d/%d] cell %s rep %d", it->k, R->total, c->name, shown);
		return;
	}
	if (R->nhosts > 1) {
		snprintf(buf, len, "[%d/%d] cell %s rep %d on %s", it->k, R->total, c->name, shown,
			 h->local ? "this machine" : h->spec);
		return;
	}
	char el[32], eta[32];
	fmt_hms(el, sizeof(el), now_mono() - R->t0);
	int left = R->total - it->k + 1;
	double per = R->n_run ? R->run_secs / R->n_run : cell_seconds(c) + 1;
	if (per > 0)
		fmt_hms(eta, sizeof(eta), per * left);
	else
		snprintf(eta, sizeof(eta), "?");
	snprintf(buf, len, "[%d/%d] cell %s rep %d  elapsed %s ETA %s", it->k, R->total, c->name,
		 shown, el, eta);
}

/* Takes the next item the slot can run and starts it; 1 when a run was started. */
static int dispatch_one(struct runner *R, struct item *items, int nitems, struct host *h,
			struct attempt **slot)
{
	for (int i = 0; i < nitems && !g_interrupted; i++) {
		struct item *it = &items[i];
		if (it->state || !slot_takes(R, h, &R->cells[it->ci]))
			continue;
		it->state = 1;
		struct cell *c = &R->cells[it->ci];
		char head[512];
		fmt_start(R, it, h, head, sizeof(head));
		/* a virtual-time cell's line waits for its result unless something is said now */
		if (!c->virt)
			fputs(head, stdout);
		const char *said = c->virt ? head : "";
		if (c->mode == MODE_KERNEL && R->kernel_skip[0]) {
			printf("%s  skipped: %s\n", said, R->kernel_skip);
			R->n_skipped++;
			continue;
		}
		fflush(stdout);
		enum claim_result cr = db_claim(R->db, R->hashes[it->ci], it->rep, R->o->force,
						R->owner, R->expname, c->name);
		if (cr == CLAIM_DONE) {
			printf("%s  done before, skipped\n", said);
			R->n_done++;
			continue;
		}
		if (cr == CLAIM_BUSY) {
			printf("%s  being run by another runner, skipped\n", said);
			R->n_busy++;
			continue;
		}
		if (cr == CLAIM_ERR) {
			printf("%s  cannot claim in the database\n", said);
			R->n_failed++;
			continue;
		}
		if (!c->virt)
			printf("\n");
		fflush(stdout);
		struct attempt *a = xcalloc(1, sizeof(*a));
		a->ci = it->ci;
		a->rep = it->rep;
		a->k = it->k;
		a->c = c;
		a->hash = R->hashes[it->ci];
		a->h = h->local ? NULL : h;
		a->redo = cr == CLAIM_REDO;
		a->head = c->virt ? xstrdup(head) : NULL;
		if (attempt_begin(R, a) || attempt_spawn(R, a)) {
			attempt_finish(R, a);
			attempt_free(a);
			continue;
		}
		*slot = a;
		return 1;
	}
	return 0;
}

/* Runs the queue over the slots until every item is done (or the hosts are gone, or a signal). */
static void run_queue(struct runner *R, struct item *items, int nitems)
{
	struct attempt **slot = xcalloc((size_t)R->nhosts, sizeof(*slot));
	for (;;) {
		int busy = 0;
		for (int s = 0; s < R->nhosts; s++) {
			struct host *h = &R->hosts[s];
			if (!slot[s] && h->ok && !h->lost && !g_interrupted)
				dispatch_one(R, items, nitems, h, &slot[s]);
			busy += slot[s] != NULL;
		}
		if (!busy) {
			/* nothing runs: done, unless items wait for a slot that is gone */
			int waiting = 0;
			for (int i = 0; i < nitems; i++)
				waiting += items[i].state == 0;
			if (waiting && !g_interrupted)
				printf("no host left to run the %d remaining run%s (run the same "
				       "command again to resume)\n",
				       waiting, waiting > 1 ? "s" : "");
			R->n_failed += waiting && !g_interrupted ? waiting : 0;
			break;
		}
		int finished = 0;
		for (int s = 0; s < R->nhosts; s++) {
			struct attempt *a = slot[s];
			if (!a || !child_poll(&a->ch, busy == 1 ? 100 : 0))
				continue;
			finished++;
			if (attempt_finish(R, a) == FIN_LOST) {
				struct host *h = &R->hosts[s];
				printf("host %s went away during cell %s rep %d: nothing of it is "
				       "stored; it goes back to the queue for another host\n",
				       h->spec, a->c->name, a->rep - R->first_rep + 1);
				db_release(R->db, a->hash, a->rep, R->owner);
				for (int i = 0; i < nitems; i++)
					if (items[i].ci == a->ci && items[i].rep == a->rep)
						items[i].state = 0;
				R->n_requeued++;
				rm_rf(a->workdir);
				journal_dir(a->workdir, 0);
			}
			attempt_free(a);
			slot[s] = NULL;
		}
		if (!finished && busy > 1) {
			struct timespec ts = {0, 20 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
	}
	free(slot);
}

/* Kernel cells on a fio server: fio switches the scheduler itself (ioscheduler=); what needs
 * sysfs writes there is refused. 0, or -1 with the message printed. */
static int remote_kernel_check(struct runner *R)
{
	for (int i = 0; i < R->ncells; i++) {
		struct cell *c = &R->cells[i];
		if (c->mode != MODE_KERNEL)
			continue;
		const char *what = NULL, *key = NULL;
		struct kvlist groups = {0};
		job_cgroups(c->job_text, &groups);
		if (R->m->model_kind)
			what = "a model-backed device (device = model:) is set up on this machine "
			       "only";
		else if (c->iosched.n)
			what = "iosched.", key = c->iosched.v[0].key;
		else if (c->queue.n)
			what = "queue.", key = c->queue.v[0].key;
		else if (c->bdi.n)
			what = "bdi.", key = c->bdi.v[0].key;
		else if (groups.n)
			what = "cgroup=", key = groups.v[0].key;
		if (what) {
			const char *ln = key ? kv_get(&c->lines, key) : NULL;
			if (!key)
				fprintf(stderr, "%s:%d: cell '%s': %s; run it without --hosts\n",
					R->m->path, R->m->device_line, c->name, what);
			else
				fprintf(stderr,
					"%s:%d: cell '%s': %s%s needs a sysfs write on the fio "
					"server, and fio's client/server only switches the "
					"scheduler (ioscheduler=); run such kernel cells without "
					"--hosts\n",
					R->m->path, ln ? atoi(ln) : c->line, c->name, what, key);
			kv_free(&groups);
			return -1;
		}
		kv_free(&groups);
		for (int h = 0; h < R->nhosts; h++)
			if (!R->hosts[h].local && !R->hosts[h].target && !R->target) {
				fprintf(stderr,
					"schedbench: cell '%s' is a kernel cell: host %s needs the "
					"device to run it on (--target DEV, or target=DEV in the "
					"hosts file)\n",
					c->name, R->hosts[h].spec);
				return -1;
			}
		/* fio sets the scheduler there: ioscheduler= in the job (not in the hash) */
		kv_set(&c->job_opts, "ioscheduler", c->sched);
	}
	return 0;
}

/* The repetitions of a batch: allocated once, so that re-running the batch resumes it and a new
 * batch never overwrites an older one. */
static int batch_reps(sqlite3 *db, const char *exp, const char *name, int repeat, char **hashes,
		      int n, int *first, int *rep_out)
{
	sqlite3_stmt *st;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	int rc = -1, have = 0;
	if (sqlite3_prepare_v2(db,
			       "SELECT first_rep, repeat FROM batches WHERE experiment = ?1 AND "
			       "name = ?2",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, exp, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW) {
			*first = sqlite3_column_int(st, 0);
			*rep_out = sqlite3_column_int(st, 1);
			have = 1;
		}
		sqlite3_finalize(st);
	}
	if (!have) {
		int top = 0;
		if (sqlite3_prepare_v2(db,
				       "SELECT max(first_rep + repeat - 1) FROM batches WHERE "
				       "experiment = ?1",
				       -1, &st, NULL) == SQLITE_OK) {
			sqlite3_bind_text(st, 1, exp, -1, SQLITE_STATIC);
			if (sqlite3_step(st) == SQLITE_ROW)
				top = sqlite3_column_int(st, 0);
			sqlite3_finalize(st);
		}
		if (sqlite3_prepare_v2(db, "SELECT max(repetition) FROM runs WHERE cell_hash = ?1",
				       -1, &st, NULL) == SQLITE_OK) {
			for (int i = 0; i < n; i++) {
				sqlite3_reset(st);
				sqlite3_bind_text(st, 1, hashes[i], -1, SQLITE_STATIC);
				if (sqlite3_step(st) == SQLITE_ROW &&
				    sqlite3_column_int(st, 0) > top)
					top = sqlite3_column_int(st, 0);
			}
			sqlite3_finalize(st);
		}
		*first = top + 1;
		*rep_out = repeat;
		char *now = now_iso();
		if (sqlite3_prepare_v2(db,
				       "INSERT INTO batches (experiment, name, first_rep, repeat, "
				       "created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
				       -1, &st, NULL) == SQLITE_OK) {
			sqlite3_bind_text(st, 1, exp, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
			sqlite3_bind_int(st, 3, *first);
			sqlite3_bind_int(st, 4, repeat);
			sqlite3_bind_text(st, 5, now, -1, SQLITE_STATIC);
			if (sqlite3_step(st) == SQLITE_DONE)
				have = 1;
			sqlite3_finalize(st);
		}
		free(now);
	}
	if (have && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
		rc = 0;
	else
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* ${NAME} of the cell's environment (and TARGET) replaced, as fio expands them: the cells'
 * job files can then be read by one fio process. Other ${...} stay for fio. */
static char *expand_env(const char *text, const struct kvlist *env, const char *target)
{
	struct strbuf b;
	sb_init(&b);
	const char *p = text;
	while (*p) {
		const char *d = strstr(p, "${");
		const char *e = d ? strchr(d + 2, '}') : NULL;
		if (!d || !e) {
			sb_add(&b, p);
			break;
		}
		sb_addn(&b, p, (size_t)(d - p));
		char *name = xstrndup(d + 2, (size_t)(e - d - 2));
		const char *v = !strcmp(name, "TARGET") ? target : kv_get(env, name);
		if (v)
			sb_add(&b, v);
		else
			sb_addn(&b, d, (size_t)(e - d + 1));
		free(name);
		p = e + 1;
	}
	return sb_steal(&b);
}

/* fio --showcmd over many job files at once: fio's parse (with its clock calibration and the
 * engine's load) once for all of them; one "fio ..." line per file, in order. 0 when every
 * file's line was saved into its cache. */
static int showcmd_batch(struct runner *R, int *idx, int n)
{
	const char **argv = xcalloc((size_t)n + 3, sizeof(char *));
	char **files = xcalloc((size_t)n, sizeof(char *));
	argv[0] = fio_bin_path();
	argv[1] = "--showcmd";
	for (int k = 0; k < n; k++) {
		files[k] = xasprintf("%s/cell-%d.fio", R->simcache, idx[k]);
		argv[2 + k] = files[k];
	}
	int rc = 0;
	char *out = run_capture_all(argv, &rc);
	int got = 0;
	if (out && rc == 0) {
		char *save = NULL;
		for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			if (strncmp(l, "fio ", 4))
				continue;
			if (got < n) {
				char *cache = xasprintf("%s/cell-%d.cmd", R->simcache, idx[got]);
				if (!write_file(cache, l, strlen(l)))
					got++;
				free(cache);
			} else {
				got++;
			}
		}
	}
	free(out);
	for (int k = 0; k < n; k++)
		free(files[k]);
	free(files);
	free(argv);
	return got == n ? 0 : -1;
}

/* The simulator's own check of every virtual-time cell (fio --showcmd with the engine loaded
 * reads it; the options it does not model are refused by name), before anything runs. fio's
 * reading is kept per cell (R->simcache/cell-N.cmd): every repetition reuses it. */
static int virtual_check(struct runner *R)
{
	R->simcache = xasprintf("%s/schedbench-sim.XXXXXX",
				getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(R->simcache)) {
		fprintf(stderr, "schedbench: cannot create a directory: %s\n", strerror(errno));
		free(R->simcache);
		R->simcache = NULL;
		return -1;
	}
	int rc = 0;
	char *target = path_join(R->simcache, "target");
	char *stats = path_join(R->simcache, "sched_stats.json");
	/* the target as fio sees it: a job without size= takes the (model-backed) device's */
	make_sparse(target, R->m->model_kind ? R->sparse_bytes : 0);
	int *idx = xcalloc((size_t)R->ncells, sizeof(int)), nv = 0;
	for (int i = 0; i < R->ncells; i++) {
		struct cell *c = &R->cells[i];
		if (!c->virt)
			continue;
		char *gen = jobfile_overlay(c->job_text, c, R->engine_so, stats);
		char *x = expand_env(gen, &c->env, target);
		char *jf = xasprintf("%s/cell-%d.fio", R->simcache, i);
		write_file(jf, x, strlen(x));
		free(jf);
		free(x);
		free(gen);
		idx[nv++] = i;
	}
	/* fio's reading of all of them, 256 files per fio; where fio refuses one, each cell is
	 * read on its own below, so that the refusal names its cell */
	int batched = 1;
	for (int k = 0; k < nv && batched; k += 256)
		batched = !showcmd_batch(R, idx + k, nv - k < 256 ? nv - k : 256);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int par = ncpu > 0 ? (int)ncpu : 1, running = 0, next = 0;
	struct child *ch = xcalloc((size_t)R->ncells, sizeof(*ch));
	int *state = xcalloc((size_t)R->ncells, sizeof(int)); /* 1 running, 2 done */
	for (;;) {
		while (!rc && running < par && next < R->ncells) {
			struct cell *c = &R->cells[next];
			if (!c->virt) {
				state[next++] = 2;
				continue;
			}
			char *jf = xasprintf("%s/cell-%d.fio", R->simcache, next);
			char *cache = xasprintf("%s/cell-%d.cmd", R->simcache, next);
			char *outp = xasprintf("%s/cell-%d.out", R->simcache, next);
			char *errp = xasprintf("%s/cell-%d.err", R->simcache, next);
			const char *argv[] = {R->schedsim,
					      "--fio",
					      fio_bin_path(),
					      "--check",
					      batched ? "--showcmd-file" : "--save-showcmd",
					      cache,
					      jf,
					      NULL};
			/* a directory of its own: a process is reaped with whatever runs in its
			 * directory (kill_in_dir), and the checks run side by side */
			char *cwd = xasprintf("%s/c%d", R->simcache, next);
			mkdir_p(cwd);
			int bad = child_start(&ch[next], cwd, argv, &c->env, target, errp, outp);
			free(cwd);
			if (bad) {
				fprintf(stderr, "schedbench: cannot run %s: %s\n", R->schedsim,
					strerror(errno));
				rc = -1;
			} else {
				state[next] = 1;
				running++;
			}
			free(cache);
			free(outp);
			free(errp);
			free(jf);
			next++;
		}
		if (!running)
			break;
		for (int i = 0; i < next; i++) {
			if (state[i] != 1 || !child_poll(&ch[i], running == 1 ? 50 : 0))
				continue;
			state[i] = 2;
			running--;
			if (ch[i].rc == 0 || rc)
				continue;
			struct cell *c = &R->cells[i];
			char *outp = xasprintf("%s/cell-%d.err", R->simcache, i);
			size_t len;
			char *text = read_file(outp, &len);
			char *msg = text ? trim(text) : (char *)"cannot run the simulator";
			char *nl = strchr(msg, '\n');
			if (nl)
				*nl = 0;
			/* "schedsim: <its copy of the job>: ..." says nothing a reader can open */
			char *fp = strstr(msg, ".fio: ");
			if (!strncmp(msg, "schedsim: ", 10) && fp)
				msg = fp + 6;
			/* the matrix line of the option it names, if a token set it */
			int line = c->line;
			const char *q = strchr(msg, '\'');
			if (q) {
				char *k = xstrndup(q + 1, strcspn(q + 1, "='"));
				const char *l = kv_get(&c->lines, k);
				if (l)
					line = atoi(l);
				free(k);
			}
			fprintf(stderr, "%s:%d: cell '%s' (clock=virtual, job file %s): %s\n",
				R->m->path, line, c->name, c->job_path, msg);
			free(text);
			free(outp);
			rc = -1;
		}
		if (running > 1) {
			struct timespec ts = {0, 10 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
	}
	free(ch);
	free(state);
	free(idx);
	free(target);
	free(stats);
	return rc;
}

int cmd_run(struct run_opts *o)
{
	struct matrix m;
	if (matrix_parse(&m, o->matrix)) {
		fprintf(stderr, "%s\n", m.err);
		matrix_free(&m);
		return 2;
	}
	if (o->runtime) {
		free(m.runtime);
		m.runtime = xstrdup(o->runtime);
	}
	if (o->clock && matrix_set_clock(&m, o->clock, 1)) {
		fprintf(stderr, "schedbench run: --clock %s: expected real, virtual or both\n",
			o->clock);
		matrix_free(&m);
		return 2;
	}
	struct runner R;
	memset(&R, 0, sizeof(R));
	R.o = o;
	R.m = &m;
	R.repeat = o->repeat > 0 ? o->repeat : m.repeat;
	R.first_rep = 1;
	/* the engine as given is part of a cell's identity; "default" when none is given */
	const char *engine_given = o->engine ? o->engine : m.engine;
	if (!engine_given)
		R.engine_so = xstrdup(sb_default_engine());
	else if (engine_given[0] == '/' || !access(engine_given, F_OK) || !sb_datadir())
		R.engine_so = abs_path(engine_given);
	else
		R.engine_so = path_join(sb_datadir(), engine_given);
	R.target = o->target ? o->target : m.target;
	if (o->experiment)
		R.expname = xstrdup(o->experiment);
	else if (m.name)
		R.expname = xstrdup(m.name);
	else {
		R.expname = xstrdup(base_name(m.path));
		char *dot = strrchr(R.expname, '.');
		if (dot)
			*dot = 0;
	}
	R.dbpath = sb_db_path(o->db);
	char *dbdir = dir_name(R.dbpath);
	int exitcode = 0;
	struct item *items = NULL;
	char dberr[1024];
	if (sb_db_dir_check(o->db, R.dbpath, dberr, sizeof(dberr))) {
		fprintf(stderr, "schedbench run: %s\n", dberr);
		exitcode = 2;
		goto out;
	}
	char *tmprel = path_join(dbdir, "tmp");
	R.tmpdir = abs_path(tmprel);
	free(tmprel);
	R.schedsim = xstrdup(sb_schedsim_bin());
	if (matrix_expand(&m, engine_given ? engine_given : "default", R.target, &R.cells,
			  &R.ncells)) {
		fprintf(stderr, "%s\n", m.err);
		exitcode = 2;
		goto out;
	}
	int any_kernel = 0, any_embedded = 0, any_virtual = 0, any_real_embedded = 0;
	for (int i = 0; i < R.ncells; i++) {
		any_kernel |= R.cells[i].mode == MODE_KERNEL;
		any_embedded |= R.cells[i].mode == MODE_EMBEDDED;
		any_virtual |= R.cells[i].virt;
		any_real_embedded |= R.cells[i].mode == MODE_EMBEDDED && !R.cells[i].virt;
	}
	R.total = R.ncells * R.repeat;

	/* fio servers (--hosts), checked before anything runs */
	if (o->hosts || o->hosts_file) {
		char err[1024];
		if (hosts_parse(o->hosts, o->hosts_file, &R.hosts, &R.nhosts, err, sizeof(err))) {
			fprintf(stderr, "schedbench run: %s\n", err);
			exitcode = 2;
			goto out;
		}
		R.multi = 1;
		if (remote_kernel_check(&R)) {
			exitcode = 2;
			goto out;
		}
	}
	/* a target here must exist, also where no cell uses it (embedded cells alone): a typo in
	 * --target is not taken silently. On fio servers (--hosts) it is the servers' path. */
	if (R.target && !R.multi && access(R.target, F_OK)) {
		if (o->target)
			fprintf(stderr, "schedbench run: --target %s: %s\n", R.target,
				strerror(errno));
		else
			fprintf(stderr, "schedbench run: %s: target = %s: %s\n", m.path, R.target,
				strerror(errno));
		exitcode = 2;
		goto out;
	}
	/* the slot for cells run here: everything without --hosts, else the virtual-time ones */
	R.hosts = xrealloc(R.hosts, sizeof(*R.hosts) * (size_t)(R.nhosts + 1));
	memset(&R.hosts[R.nhosts], 0, sizeof(R.hosts[0]));
	R.hosts[R.nhosts].local = 1;
	R.hosts[R.nhosts].ok = 1;
	R.hosts[R.nhosts].spec = xstrdup("local");
	R.nhosts++;
	/* a matrix whose every cell is simulated: one simulation per CPU (no real-time cell runs
	 * beside them to be disturbed) */
	int all_virtual = R.ncells > 0;
	for (int i = 0; i < R.ncells; i++)
		all_virtual &= R.cells[i].virt;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	for (long extra = 1; all_virtual && !R.multi && extra < ncpu && extra < 16; extra++) {
		R.hosts = xrealloc(R.hosts, sizeof(*R.hosts) * (size_t)(R.nhosts + 1));
		memset(&R.hosts[R.nhosts], 0, sizeof(R.hosts[0]));
		R.hosts[R.nhosts].local = 1;
		R.hosts[R.nhosts].ok = 1;
		R.hosts[R.nhosts].spec = xstrdup("local");
		R.nhosts++;
	}

	/* the whole matrix is checked before anything runs (also for --dry-run) */
	if (!fio_available()) {
		fprintf(stderr, "schedbench: fio not found or not runnable (install fio, or set "
				"SCHEDBENCH_FIO=/path/to/fio)\n");
		exitcode = 2;
		goto out;
	}
	if (any_embedded && access(R.engine_so, R_OK)) {
		fprintf(
		    stderr,
		    "schedbench: engine %s not found (build it with make, or give --engine PATH)\n",
		    R.engine_so);
		exitcode = 2;
		goto out;
	}
	if (any_embedded && fio_engine_unloadable(R.engine_so)) {
		fprintf(stderr,
			"schedbench: engine %s is not a loadable fio engine (not a shared object "
			"with fio's engine symbols; fio --enghelp: %s)\n",
			R.engine_so, fio_engine_unloadable(R.engine_so));
		exitcode = 2;
		goto out;
	}
	if (any_virtual && access(R.schedsim, X_OK)) {
		fprintf(stderr,
			"schedbench: the simulator %s is not built (make), and the matrix has "
			"clock=virtual cells\n",
			R.schedsim);
		exitcode = 2;
		goto out;
	}
	if (matrix_validate(&m, R.cells, R.ncells, R.engine_so, R.tmpdir)) {
		fprintf(stderr, "%s\n", m.err);
		exitcode = 2;
		goto out;
	}
	if (m.model_kind)
		R.sparse_bytes = mdev_matrix_size(&m);
	if (any_virtual && virtual_check(&R)) {
		exitcode = 2;
		goto out;
	}
	R.engine_stats = any_embedded && fio_engine_has_option(R.engine_so, "sched_stats");

	if (o->dry_run) {
		printf("%s: %d cells x %d repetitions = %d runs (engine %s)\n", m.path, R.ncells,
		       R.repeat, R.total, R.engine_so);
		for (int i = 0; i < R.ncells; i++) {
			struct cell *c = &R.cells[i];
			char *h = cell_hash(c);
			printf("[%d/%d] cell %s  mode=%s%s%s%s  hash=%.16s  job=%s\n", i + 1,
			       R.ncells, c->name, mode_name(c->mode), c->sched ? " sched=" : "",
			       c->sched ? c->sched : "", c->virt ? " clock=virtual" : "", h,
			       c->job_path);
			printf("    overlays %s\n", c->overlays_json);
			if (c->mode == MODE_EMBEDDED && any_kernel && !m.model_kind && !c->virt)
				printf("    target: the kernel cells' device (its scheduler set to "
				       "none)\n");
			if (m.model_kind && c->mode == MODE_KERNEL)
				printf("    target: the model-backed device (modeldev, model %s)\n",
				       m.model_kind);
			if (m.model_kind && c->mode == MODE_EMBEDDED)
				printf("    target: a sparse file of the device's size (%llu "
				       "bytes)\n",
				       mdev_matrix_size(&m));
			char *stats = path_join(R.tmpdir, "<run>/sched_stats.json");
			struct kvlist groups = {0}, paths = {0};
			if (c->mode == MODE_KERNEL) {
				job_cgroups(c->job_text, &groups);
				for (int g = 0; g < groups.n; g++) {
					char *p = xasprintf("<cgroups>/schedengine-xc-%s",
							    groups.v[g].key);
					kv_set(&paths, groups.v[g].key, p);
					free(p);
				}
			}
			char *gen = jobfile_overlay_cg(c->job_text, c, R.engine_so,
						       R.engine_stats || c->virt ? stats : NULL,
						       paths.n ? &paths : NULL);
			prefix_lines(gen, "    | ");
			kv_free(&groups);
			kv_free(&paths);
			free(gen);
			free(stats);
			free(h);
		}
		printf("%s: the matrix and its %d job files check out (fio --parse-only%s%s)\n",
		       m.path, R.ncells, any_embedded ? " with the engine loaded" : "",
		       any_virtual ? "; the simulator models every option of the virtual cells"
				   : "");
		goto out;
	}

	if (any_real_embedded && !R.engine_stats)
		printf(
		    "note: %s has no sched_stats option; no scheduler statistics will be stored\n",
		    R.engine_so);
	/* what runners killed before us left behind, then our own journal and its supervisor */
	journals_reclaim(R.tmpdir);
	clean_stale(R.tmpdir);
	if (any_kernel && !R.multi)
		cg_reclaim_stale();
	R.owner = runner_owner();
	if (journal_open(R.tmpdir, R.owner, R.dbpath)) {
		fprintf(stderr, "schedbench: cannot write the journal in %s: %s\n", R.tmpdir,
			strerror(errno));
		exitcode = 2;
		goto out;
	}
	if (supervisor_start())
		warnx_("cannot start the supervisor (%s): a SIGKILL of this runner is cleaned up "
		       "by the next one",
		       strerror(errno));
	if (R.simcache)
		journal_dir(R.simcache, 1);
	install_signals();
	atexit(cleanup_kdev);
	if (any_kernel && !R.multi) {
		char err[1024] = "";
		memset(&g_kdev, 0, sizeof(g_kdev));
		if (m.model_kind) {
			/* the model served as a block device: the kernel cells' target */
			if (geteuid() != 0) {
				snprintf(R.kernel_skip, sizeof(R.kernel_skip),
					 "the model-backed device needs root (FUSE, loop device, "
					 "sysfs)");
			} else {
				int r = mdev_start(&g_md, &m, err, sizeof(err));
				if (r == 3) {
					snprintf(R.kernel_skip, sizeof(R.kernel_skip),
						 "modeldev refused: %s", g_md.refused);
				} else if (r) {
					fprintf(stderr, "schedbench: %s\n", err);
					exitcode = 2;
					goto out;
				} else if (kdev_open(&g_kdev, g_md.dev, err, sizeof(err))) {
					fprintf(stderr, "schedbench: %s\n", err);
					exitcode = 2;
					goto out;
				} else {
					g_kdev_active = 1;
					R.sparse_bytes = g_md.size;
					printf(
					    "kernel cells run on %s (modeldev %s: model %s, %llu "
					    "bytes, %u tags)\n",
					    g_md.dev, g_md.name, m.model_kind, g_md.size,
					    g_md.tags);
				}
			}
			if (R.kernel_skip[0])
				printf("kernel cells are skipped: %s\n", R.kernel_skip);
		} else if (R.target) {
			if (kdev_open(&g_kdev, R.target, err, sizeof(err))) {
				fprintf(stderr, "schedbench: %s\n", err);
				exitcode = 2;
				goto out;
			}
			g_kdev_active = 1;
		} else {
			char *img = xasprintf("%s/loop-%ld.img", R.tmpdir, (long)getpid());
			int r = kdev_loop_create(&g_kdev, img, m.image_size, err, sizeof(err));
			free(img);
			if (r) {
				fprintf(stderr, "schedbench: %s\n", err);
				exitcode = 2;
				goto out;
			}
			g_kdev_active = 1;
			printf("kernel cells run on %s (loop device over an image of %s)\n",
			       g_kdev.devpath, m.image_size ? m.image_size : "512M");
		}
		if (g_kdev_active && kernel_preflight(&m, R.cells, R.ncells)) {
			exitcode = 2;
			goto out;
		}
	}
	char errbuf[1024];
	R.db = db_open(R.dbpath, errbuf, sizeof(errbuf));
	if (!R.db) {
		fprintf(stderr, "schedbench: %s\n", errbuf);
		exitcode = 2;
		goto out;
	}
	db_reclaim_stale(R.db, 1);
	store_experiment(R.db, &m, R.expname);
	provenance_collect(&R.prov, any_embedded ? R.engine_so : NULL);
	R.hashes = xcalloc((size_t)R.ncells, sizeof(char *));
	for (int i = 0; i < R.ncells; i++)
		R.hashes[i] = cell_hash(&R.cells[i]);
	store_cells(R.db, R.expname, R.cells, R.hashes, R.ncells);
	if (o->batch) {
		int rep = R.repeat;
		if (batch_reps(R.db, R.expname, o->batch, R.repeat, R.hashes, R.ncells,
			       &R.first_rep, &rep)) {
			fprintf(stderr, "schedbench: cannot record batch %s: %s\n", o->batch,
				sqlite3_errmsg(R.db));
			exitcode = 2;
			goto out;
		}
		if (rep != R.repeat)
			printf("batch %s was started with %d repetitions: it keeps them\n",
			       o->batch, rep);
		R.repeat = rep;
		R.total = R.ncells * R.repeat;
		printf("batch %s: repetitions %d..%d of every cell\n", o->batch, R.first_rep,
		       R.first_rep + R.repeat - 1);
	}
	int nremote = 0;
	if (R.multi) {
		int need_engine = 0;
		for (int i = 0; i < R.ncells; i++)
			need_engine |= R.cells[i].mode == MODE_EMBEDDED && !R.cells[i].virt;
		nremote = hosts_probe(R.hosts, R.nhosts - 1, R.engine_so, R.tmpdir,
				      R.sparse_bytes ? R.sparse_bytes : 1ull << 40, need_engine);
		int need_remote = 0;
		for (int i = 0; i < R.ncells; i++)
			need_remote |= !R.cells[i].virt;
		if (!nremote && need_remote) {
			fprintf(stderr, "schedbench: no host passed the probe (above): nothing to "
					"run the real-time cells on\n");
			exitcode = 2;
			goto out;
		}
		printf("%d of %d host%s passed the probe\n", nremote, R.nhosts - 1,
		       R.nhosts > 2 ? "s" : "");
	}
	print_plan(R.expname, R.cells, R.ncells, R.repeat,
		   o->force ? 0
			    : count_done(R.db, R.hashes, R.ncells, R.first_rep,
					 R.first_rep + R.repeat - 1),
		   R.dbpath, R.multi ? (nremote > 0 ? nremote : 1) : R.nhosts);
	int nitems = R.total;
	items = xcalloc((size_t)nitems, sizeof(*items));
	for (int rep = 0, k = 0; rep < R.repeat; rep++)
		for (int ci = 0; ci < R.ncells; ci++, k++) {
			items[k].ci = ci;
			items[k].rep = R.first_rep + rep;
			items[k].k = k + 1;
		}
	R.t0 = now_mono();
	run_queue(&R, items, nitems);
	char el[32];
	fmt_hms(el, sizeof(el), now_mono() - R.t0);
	db_note_other_cells(R.db, R.expname);
	char nint[32] = "";
	if (R.n_interrupted)
		snprintf(nint, sizeof(nint), ", %d interrupted", R.n_interrupted);
	printf("%s: %d ok, %d failed%s, %d done before, %d taken by another runner%s, elapsed %s "
	       "(db %s)\n",
	       R.expname, R.n_ok, R.n_failed, nint, R.n_done, R.n_busy,
	       R.n_skipped ? ", some skipped" : "", el, R.dbpath);
	if (R.n_skipped)
		printf("%d kernel run%s skipped: %s\n", R.n_skipped, R.n_skipped > 1 ? "s" : "",
		       R.kernel_skip);
	if (R.n_requeued)
		printf("%d run%s went back to the queue when %s host went away\n", R.n_requeued,
		       R.n_requeued > 1 ? "s" : "", R.n_requeued > 1 ? "their" : "its");
	if (g_interrupted) {
		printf("interrupted by signal %d; re-run the same command to resume\n",
		       g_interrupted);
		exitcode = 130;
	} else if (R.n_failed) {
		exitcode = 1;
	}
out:
	if (R.multi && R.owner)
		hosts_cleanup(R.hosts, R.nhosts, R.tmpdir);
	cleanup_kdev();
	if (R.simcache) {
		rm_rf(R.simcache);
		journal_dir(R.simcache, 0);
		free(R.simcache);
	}
	journal_close();
	/* the scratch directory beside the database goes when nothing is left in it (another
	 * runner's journal or a kept work directory keeps it) */
	if (R.tmpdir)
		rmdir(R.tmpdir);
	free(items);
	if (R.hashes)
		for (int i = 0; i < R.ncells; i++)
			free(R.hashes[i]);
	free(R.hashes);
	free(R.owner);
	provenance_free(&R.prov);
	if (R.db)
		db_close(R.db);
	cells_free(R.cells, R.ncells);
	hosts_free(R.hosts, R.nhosts);
	mdev_free(&g_md);
	matrix_free(&m);
	free(R.engine_so);
	free(R.expname);
	free(R.dbpath);
	free(dbdir);
	free(R.tmpdir);
	free(R.schedsim);
	return exitcode;
}
