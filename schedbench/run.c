/* `schedbench run`: expand a matrix, run every cell x repetition with fio, store it. */
#include "sb.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

volatile int g_interrupted;
static struct kdev g_kdev;
static int g_kdev_active;

static void on_signal(int sig)
{
	g_interrupted = sig;
}

static void cleanup_kdev(void)
{
	if (!g_kdev_active)
		return;
	kdev_restore(&g_kdev);
	kdev_loop_destroy(&g_kdev);
	g_kdev_active = 0;
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

static int progress_interval(void)
{
	const char *e = getenv("SCHEDBENCH_PROGRESS");
	int v = e && *e ? atoi(e) : 10;
	return v > 0 ? v : 10;
}

/* The last "Jobs: ..." status line fio printed (its ETA output, \r-separated). */
static void last_status(const char *buf, size_t n, char *out, size_t outlen)
{
	const char *best = NULL;
	size_t bl = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && buf[j] != '\r' && buf[j] != '\n')
			j++;
		/* only whole lines: fio writes one in pieces */
		if (j < n && j - i > 5 && !strncmp(buf + i, "Jobs:", 5))
			best = buf + i, bl = j - i;
		i = j + 1;
	}
	if (best) {
		if (bl >= outlen)
			bl = outlen - 1;
		memcpy(out, best, bl);
		out[bl] = 0;
	}
}

/* Runs fio in workdir in a process group of its own (killed with the runner: the supervisor and
 * PR_SET_PDEATHSIG), JSON into outp, stderr into errp, its status output (--eta=always) through a
 * pipe into stdoutp and, for a long cell, onto our stdout every few seconds. Returns fio's exit
 * status (128+sig if killed, -1 if it could not start). */
static int run_fio(const char *workdir, const char *jobfile, const char *target,
		   const struct kvlist *env, const char *outp, const char *errp,
		   const char *stdoutp, double budget_s, double expect_s)
{
	const char *fio = fio_bin_path();
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (chdir(workdir))
			_exit(126);
		int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int n = open("/dev/null", O_RDONLY);
		if (e < 0 || n < 0)
			_exit(126);
		dup2(n, 0);
		dup2(pfd[1], 1);
		dup2(e, 2);
		for (int i = 0; env && i < env->n; i++)
			setenv(env->v[i].key, env->v[i].val, 1);
		setenv("TARGET", target, 1);
		char *outopt = xasprintf("--output=%s", outp);
		execlp(fio, fio, "--output-format=json+", outopt, "--eta=always",
		       "--eta-interval=1", jobfile, (char *)NULL);
		fprintf(stderr, "schedbench: cannot run %s: %s\n", fio, strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	setpgid(pid, pid); /* also here: no window in which a signal to the group misses fio */
	journal_pgid(pid, workdir, 1);
	int sofd = open(stdoutp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int st = 0;
	double start = now_mono(), last_print = start;
	int sent = 0, pipe_open = 1, tty = isatty(1), printed = 0;
	int every = progress_interval();
	int long_cell = expect_s <= 0 || expect_s >= every;
	char status[256] = "";
	char *tail = NULL;
	size_t tail_len = 0;
	for (;;) {
		/* exited? (not reaped yet: its pid, the group's id, cannot be reused meanwhile) */
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		int r = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT);
		if (r == 0 && si.si_pid == pid)
			break;
		if (r < 0 && errno != EINTR)
			break;
		if (pipe_open) {
			struct pollfd pf = {.fd = pfd[0], .events = POLLIN};
			if (poll(&pf, 1, 100) > 0) {
				char buf[4096];
				ssize_t n = read(pfd[0], buf, sizeof(buf));
				if (n > 0) {
					if (sofd >= 0 && write(sofd, buf, (size_t)n) < 0)
						sofd = -1;
					tail = xrealloc(tail, tail_len + (size_t)n);
					memcpy(tail + tail_len, buf, (size_t)n);
					tail_len += (size_t)n;
					last_status(tail, tail_len, status, sizeof(status));
					if (tail_len > 8192) { /* keep the end: the latest status */
						memmove(tail, tail + tail_len - 4096, 4096);
						tail_len = 4096;
					}
				} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
					pipe_open = 0;
				}
			}
		} else {
			struct timespec ts = {0, 50 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
		double now = now_mono(), el = now - start;
		if (long_cell && status[0] && now - last_print >= every && !g_interrupted) {
			char e[32];
			fmt_hms(e, sizeof(e), el);
			if (tty)
				printf("\r      %s %.*s\033[K", e, 100, status);
			else
				printf("      %s %.*s\n", e, 100, status);
			fflush(stdout);
			last_print = now;
			printed = 1;
		}
		if (g_interrupted && sent == 0) {
			kill(-pid, SIGINT); /* fio stops its jobs and still writes its output */
			sent = 1;
			start = now_mono();
		} else if (sent == 1 && el > 10) {
			kill(-pid, SIGKILL);
			kill_in_dir(workdir, SIGKILL);
			sent = 2;
		} else if (!g_interrupted && budget_s > 0 && el > budget_s && sent == 0) {
			fprintf(stderr, "schedbench: fio exceeded %.0f s, stopping it\n", budget_s);
			kill(-pid, SIGTERM);
			sent = 1;
			start = now_mono();
		}
	}
	if (printed && tty)
		printf("\n");
	/* whatever is left of it goes with it (its job processes have process groups of their own,
	 * but all run in the work directory), then fio is reaped */
	kill(-pid, SIGKILL);
	kill_in_dir(workdir, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	journal_pgid(pid, workdir, 0);
	close(pfd[0]);
	if (sofd >= 0)
		close(sofd);
	free(tail);
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* 0 if the JSON is valid and no job reported an error; else a short reason. */
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
	sqlite3_stmt *st;
	char *now = now_iso();
	char *mp = abs_path(m->path);
	if (sqlite3_prepare_v2(db,
			       "INSERT INTO experiments (name, matrix_path, matrix_text, "
			       "description, report, x_axis, "
			       "baseline, axes, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
			       "?8, ?9) ON CONFLICT (name) "
			       "DO UPDATE SET matrix_path = excluded.matrix_path, matrix_text = "
			       "excluded.matrix_text, "
			       "description = excluded.description, report = excluded.report, "
			       "x_axis = excluded.x_axis, "
			       "baseline = excluded.baseline, axes = excluded.axes, updated_at = "
			       "excluded.updated_at",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, mp, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, text ? text : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, m->description ? m->description : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, m->report ? m->report : "generic", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, m->x_axis ? m->x_axis : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 7, m->baseline ? m->baseline : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 8, ax.s, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 9, now, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			warnx_("cannot store experiment: %s", sqlite3_errmsg(db));
		sqlite3_finalize(st);
	}
	free(mp);
	free(now);
	free(text);
	sb_free(&ax);
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
static void make_sparse(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (ftruncate(fd, (off_t)1 << 40)) /* 1 TiB: larger than any seed job's offset + size */
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

static int count_done(sqlite3 *db, char **hashes, int ncells, int repeat)
{
	sqlite3_stmt *st;
	int n = 0;
	if (sqlite3_prepare_v2(db,
			       "SELECT count(*) FROM runs WHERE cell_hash = ?1 AND repetition <= "
			       "?2 AND status = 'ok'",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	for (int i = 0; i < ncells; i++) {
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, hashes[i], -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 2, repeat);
		if (sqlite3_step(st) == SQLITE_ROW)
			n += sqlite3_column_int(st, 0);
	}
	sqlite3_finalize(st);
	return n;
}

/* "4 cells x 2 repetitions = 8 runs; estimated 00:48" before the first run. */
static void print_plan(const char *name, const struct cell *cells, int ncells, int repeat, int done,
		       const char *dbpath)
{
	double secs = 0;
	int unknown = 0;
	for (int i = 0; i < ncells; i++) {
		double t = cell_seconds(&cells[i]);
		if (t < 0)
			unknown++;
		else
			secs += (t + 1.0) * repeat; /* + fio's start-up and the database */
	}
	int total = ncells * repeat;
	if (total)
		secs = secs * (total - done) / total;
	char est[32];
	fmt_hms(est, sizeof(est), secs);
	printf("%s: %d cell%s x %d repetition%s = %d runs, %d done before, %d to run; estimated "
	       "%s%s%s (db %s)\n",
	       name, ncells, ncells == 1 ? "" : "s", repeat, repeat == 1 ? "" : "s", total, done,
	       total - done, unknown ? "at least " : "", est,
	       unknown ? " (some cells have no runtime)" : "", dbpath);
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
	int repeat = o->repeat > 0 ? o->repeat : m.repeat;
	/* the engine as given is part of a cell's identity; "default" when none is given */
	const char *engine_given = o->engine ? o->engine : m.engine;
	char *engine_so;
	if (!engine_given)
		engine_so = xstrdup(sb_default_engine());
	else if (engine_given[0] == '/' || !access(engine_given, F_OK) || !sb_datadir())
		engine_so = abs_path(engine_given);
	else
		engine_so = path_join(sb_datadir(), engine_given);
	const char *target = o->target ? o->target : m.target;
	char *expname = m.name ? xstrdup(m.name) : xstrdup(base_name(m.path));
	if (!m.name) {
		char *dot = strrchr(expname, '.');
		if (dot)
			*dot = 0;
	}
	char *dbpath = sb_db_path(o->db);
	char *dbdir = dir_name(dbpath);
	char *tmprel = path_join(dbdir, "tmp");
	char *tmpdir = abs_path(tmprel);
	free(tmprel);
	struct cell *cells = NULL;
	int ncells = 0, exitcode = 0;
	sqlite3 *db = NULL;
	char **hashes = NULL;
	char *owner = NULL;
	struct provenance prov = {0};
	if (matrix_expand(&m, engine_given ? engine_given : "default", target, &cells, &ncells)) {
		fprintf(stderr, "%s\n", m.err);
		exitcode = 2;
		goto out;
	}
	int any_kernel = 0, any_embedded = 0;
	for (int i = 0; i < ncells; i++) {
		any_kernel |= cells[i].mode == MODE_KERNEL;
		any_embedded |= cells[i].mode == MODE_EMBEDDED;
	}
	int total = ncells * repeat;

	/* the whole matrix is checked before anything runs (also for --dry-run) */
	if (!fio_available()) {
		fprintf(stderr, "schedbench: fio not found or not runnable (install fio, or set "
				"SCHEDBENCH_FIO=/path/to/fio)\n");
		exitcode = 2;
		goto out;
	}
	if (any_embedded && access(engine_so, R_OK)) {
		fprintf(
		    stderr,
		    "schedbench: engine %s not found (build it with make, or give --engine PATH)\n",
		    engine_so);
		exitcode = 2;
		goto out;
	}
	if (matrix_validate(&m, cells, ncells, engine_so, tmpdir)) {
		fprintf(stderr, "%s\n", m.err);
		exitcode = 2;
		goto out;
	}
	int engine_stats = any_embedded && fio_engine_has_option(engine_so, "sched_stats");

	if (o->dry_run) {
		printf("%s: %d cells x %d repetitions = %d runs (engine %s)\n", m.path, ncells,
		       repeat, total, engine_so);
		for (int i = 0; i < ncells; i++) {
			char *h = cell_hash(&cells[i]);
			printf("[%d/%d] cell %s  mode=%s%s%s  hash=%.16s  job=%s\n", i + 1, ncells,
			       cells[i].name, mode_name(cells[i].mode),
			       cells[i].sched ? " sched=" : "",
			       cells[i].sched ? cells[i].sched : "", h, cells[i].job_path);
			printf("    overlays %s\n", cells[i].overlays_json);
			if (cells[i].mode == MODE_EMBEDDED && any_kernel)
				printf("    target: the kernel cells' device (its scheduler set to "
				       "none)\n");
			char *stats = path_join(tmpdir, "<run>/sched_stats.json");
			char *gen = jobfile_overlay(cells[i].job_text, &cells[i], engine_so,
						    engine_stats ? stats : NULL);
			const char *p = gen;
			while (p && *p) {
				const char *e = strchr(p, '\n');
				printf("    | %.*s\n", (int)(e ? e - p : (long)strlen(p)), p);
				p = e ? e + 1 : NULL;
			}
			free(gen);
			free(stats);
			free(h);
		}
		printf("%s: the matrix and its %d job files check out (fio --parse-only%s)\n",
		       m.path, ncells, any_embedded ? " with the engine loaded" : "");
		goto out;
	}

	if (any_embedded && !engine_stats)
		printf(
		    "note: %s has no sched_stats option; no scheduler statistics will be stored\n",
		    engine_so);
	/* what runners killed before us left behind, then our own journal and its supervisor */
	journals_reclaim(tmpdir);
	clean_stale(tmpdir);
	owner = runner_owner();
	if (journal_open(tmpdir, owner, dbpath)) {
		fprintf(stderr, "schedbench: cannot write the journal in %s: %s\n", tmpdir,
			strerror(errno));
		exitcode = 2;
		goto out;
	}
	if (supervisor_start())
		warnx_("cannot start the supervisor (%s): a SIGKILL of this runner is cleaned up "
		       "by the next one",
		       strerror(errno));
	install_signals();
	atexit(cleanup_kdev);
	if (any_kernel) {
		char err[1024];
		memset(&g_kdev, 0, sizeof(g_kdev));
		if (target) {
			if (kdev_open(&g_kdev, target, err, sizeof(err))) {
				fprintf(stderr, "schedbench: %s\n", err);
				exitcode = 2;
				goto out;
			}
		} else {
			char *img = xasprintf("%s/loop-%ld.img", tmpdir, (long)getpid());
			int r = kdev_loop_create(&g_kdev, img, m.image_size, err, sizeof(err));
			free(img);
			if (r) {
				fprintf(stderr, "schedbench: %s\n", err);
				exitcode = 2;
				goto out;
			}
			printf("kernel cells run on %s (loop device over an image of %s)\n",
			       g_kdev.devpath, m.image_size ? m.image_size : "512M");
		}
		g_kdev_active = 1;
		if (kernel_preflight(&m, cells, ncells)) {
			exitcode = 2;
			goto out;
		}
	}
	char errbuf[1024];
	db = db_open(dbpath, errbuf, sizeof(errbuf));
	if (!db) {
		fprintf(stderr, "schedbench: %s\n", errbuf);
		exitcode = 2;
		goto out;
	}
	db_reclaim_stale(db, 1);
	store_experiment(db, &m, expname);
	provenance_collect(&prov, any_embedded ? engine_so : NULL);
	hashes = xcalloc((size_t)ncells, sizeof(char *));
	for (int i = 0; i < ncells; i++)
		hashes[i] = cell_hash(&cells[i]);
	store_cells(db, expname, cells, hashes, ncells);
	print_plan(expname, cells, ncells, repeat,
		   o->force ? 0 : count_done(db, hashes, ncells, repeat), dbpath);
	int n_ok = 0, n_failed = 0, n_done = 0, n_busy = 0, k = 0, n_run = 0;
	double t0 = now_mono(), run_secs = 0;
	for (int rep = 1; rep <= repeat && !g_interrupted; rep++) {
		for (int ci = 0; ci < ncells && !g_interrupted; ci++) {
			struct cell *c = &cells[ci];
			k++;
			char el[32], eta[32];
			fmt_hms(el, sizeof(el), now_mono() - t0);
			int left = total - k + 1;
			double per = n_run ? run_secs / n_run : cell_seconds(c) + 1;
			if (per > 0)
				fmt_hms(eta, sizeof(eta), per * left);
			else
				snprintf(eta, sizeof(eta), "?");
			printf("[%d/%d] cell %s rep %d  elapsed %s ETA %s", k, total, c->name, rep,
			       el, eta);
			fflush(stdout);
			enum claim_result cr =
			    db_claim(db, hashes[ci], rep, o->force, owner, expname, c->name);
			if (cr == CLAIM_DONE) {
				printf("  done before, skipped\n");
				n_done++;
				continue;
			}
			if (cr == CLAIM_BUSY) {
				printf("  being run by another runner, skipped\n");
				n_busy++;
				continue;
			}
			if (cr == CLAIM_ERR) {
				printf("  cannot claim in the database\n");
				n_failed++;
				continue;
			}
			printf("\n");
			fflush(stdout);
			double cstart = now_mono();
			char *started = now_iso();
			char *workdir =
			    xasprintf("%s/%.16s-r%d-%ld", tmpdir, hashes[ci], rep, (long)getpid());
			journal_dir(workdir, 1);
			rm_rf(workdir);
			mkdir_p(workdir);
			char *jobfile = path_join(workdir, "job.fio");
			char *outp = path_join(workdir, "fio.json");
			char *errp = path_join(workdir, "fio.stderr");
			char *stdoutp = path_join(workdir, "fio.stdout");
			char *stats = path_join(workdir, "sched_stats.json");
			char *scratch = path_join(workdir, "target");
			/* Embedded cells of a matrix that has kernel cells run on the same device
			 * (its kernel scheduler set to none), so that both kinds of cell measure
			 * one device. */
			int on_kdev =
			    c->mode == MODE_KERNEL || (c->mode == MODE_EMBEDDED && g_kdev_active);
			const char *tgt = on_kdev			    ? g_kdev.devpath
					  : (target && c->mode == MODE_JOB) ? target
									    : scratch;
			if (tgt == scratch && strstr(c->job_text, "directory=${TARGET}"))
				mkdir_p(scratch); /* the job puts its files in a directory */
			else if (tgt == scratch && c->mode == MODE_EMBEDDED &&
				 kv_get(&c->engine_opts, "device_model") &&
				 strcmp(kv_get(&c->engine_opts, "device_model"), "none"))
				make_sparse(
				    scratch); /* the model neither reads nor writes it: no layout */
			char *gen =
			    jobfile_overlay(c->job_text, c, engine_so, engine_stats ? stats : NULL);
			write_file(jobfile, gen, strlen(gen));
			char err[1024] = "";
			char *sysfs = NULL;
			int rc = 0;
			const char *status = "ok";
			char *stderr_text = NULL, *json = NULL, *stats_text = NULL;
			if (on_kdev) {
				struct cell none = {.mode = MODE_KERNEL, .sched = (char *)"none"};
				if (kdev_apply(&g_kdev, c->mode == MODE_KERNEL ? c : &none, err,
					       sizeof(err))) {
					status = "failed";
					rc = -1;
				}
				sysfs = kdev_state_json(
				    &g_kdev); /* also on failure: what the device looked like */
			}
			char *tdev = target_device_json(tgt);
			size_t pl = strlen(prov.json);
			char *runprov =
			    xasprintf("%.*s,\"target\":%s}", (int)(pl - 1), prov.json, tdev);
			free(tdev);
			if (!strcmp(status, "ok")) {
				double budget = 0, expect = cell_seconds(c);
				if (expect > 0)
					budget = expect * 3 + 60;
				rc = run_fio(workdir, jobfile, tgt, &c->env, outp, errp, stdoutp,
					     budget, expect);
				size_t len;
				stderr_text = read_file(errp, &len);
				char *out = read_file(outp, &len);
				json = json_strip(out);
				/* fio's stdout without its status lines: messages that belong in
				 * the error tail */
				char *so = read_file(stdoutp, &len);
				if (so) {
					struct strbuf keep;
					sb_init(&keep);
					for (char *save = NULL, *l = strtok_r(so, "\r\n", &save); l;
					     l = strtok_r(NULL, "\r\n", &save))
						if (strncmp(l, "Jobs:", 5))
							sb_addf(&keep, "%s\n", l);
					if (keep.len) {
						char *t = xasprintf(
						    "%s%s", stderr_text ? stderr_text : "", keep.s);
						free(stderr_text);
						stderr_text = t;
					}
					sb_free(&keep);
					free(so);
				}
				if (out && !json && *out) {
					/* no JSON at all: keep the output's text for the error tail
					 */
					char *t =
					    xasprintf("%s%s", stderr_text ? stderr_text : "", out);
					free(stderr_text);
					stderr_text = t;
				}
				free(out);
				stats_text = read_file(stats, &len);
				if (g_interrupted) {
					status = "interrupted";
				} else if (rc != 0) {
					status = "failed";
				} else if (!json) {
					status = "failed";
					snprintf(err, sizeof(err), "fio printed no JSON");
				} else {
					const char *why = check_fio_json(db, json);
					if (why) {
						status = "failed";
						snprintf(err, sizeof(err), "%s", why);
					}
				}
			}
			if (on_kdev)
				kdev_restore(&g_kdev);
			struct strbuf tail;
			sb_init(&tail);
			if (err[0])
				sb_addf(&tail, "schedbench: %s\n", err);
			char *t = tail_text(stderr_text, 4000);
			sb_add(&tail, t);
			free(t);
			char *ended = now_iso();
			char job_hash[65];
			sha256_hex(c->job_text, strlen(c->job_text), job_hash);
			/* the job file as a path from the data directory when it is in it, else
			 * absolute */
			const char *jp = c->job_abs;
			const char *dd = sb_datadir();
			size_t rl = dd ? strlen(dd) : 0;
			if (dd && !strncmp(jp, dd, rl) && jp[rl] == '/')
				jp += rl + 1;
			struct run_record r = {
			    .hash = hashes[ci],
			    .repetition = rep,
			    .experiment = expname,
			    .cell_name = c->name,
			    .labels_json = c->labels_json,
			    .job_path = jp,
			    .job_text = c->job_text,
			    .job_hash = job_hash,
			    .generated_job = gen,
			    .overlays_json = c->overlays_json,
			    .mode = mode_name(c->mode),
			    .scheduler = c->sched,
			    .target = tgt,
			    .prov = &prov,
			    .status = status,
			    .rc = rc,
			    .stderr_tail = tail.s ? tail.s : "",
			    .started_at = started,
			    .ended_at = ended,
			    .duration_s = now_mono() - cstart,
			    .sysfs_state = sysfs,
			    .fio_json = json,
			    .sched_stats = stats_text,
			    .provenance = runprov,
			};
			long long id = db_store(db, &r, err, sizeof(err));
			if (id < 0) {
				fprintf(stderr, "schedbench: cannot store run: %s\n", err);
				status = "failed";
			} else {
				store_logs(db, id, workdir);
			}
			n_run++;
			run_secs += now_mono() - cstart;
			if (!strcmp(status, "ok")) {
				n_ok++;
				char *brief = result_brief(db, id);
				printf("      ok%s\n", brief);
				free(brief);
				rm_rf(workdir);
			} else {
				n_failed++;
				char *short_tail = tail_text(tail.s ? tail.s : "", 600);
				printf("      %s (rc %d), kept %s\n", status, rc, workdir);
				const char *p = short_tail;
				while (p && *p) {
					const char *e = strchr(p, '\n');
					printf("      | %.*s\n", (int)(e ? e - p : (long)strlen(p)),
					       p);
					p = e ? e + 1 : NULL;
				}
				free(short_tail);
				rm_rf(scratch);
			}
			journal_dir(workdir,
				    0); /* removed, or kept on purpose for a look at a failure */
			fflush(stdout);
			sb_free(&tail);
			free(runprov);
			free(ended);
			free(started);
			free(stderr_text);
			free(json);
			free(stats_text);
			free(sysfs);
			free(gen);
			free(jobfile);
			free(outp);
			free(errp);
			free(stdoutp);
			free(stats);
			free(scratch);
			free(workdir);
		}
	}
	char el[32];
	fmt_hms(el, sizeof(el), now_mono() - t0);
	printf("%s: %d ok, %d failed, %d done before, %d taken by another runner, elapsed %s (db "
	       "%s)\n",
	       expname, n_ok, n_failed, n_done, n_busy, el, dbpath);
	if (g_interrupted) {
		printf("interrupted by signal %d; re-run the same command to resume\n",
		       g_interrupted);
		exitcode = 130;
	} else if (n_failed) {
		exitcode = 1;
	}
out:
	cleanup_kdev();
	journal_close();
	if (hashes)
		for (int i = 0; i < ncells; i++)
			free(hashes[i]);
	free(hashes);
	free(owner);
	provenance_free(&prov);
	if (db)
		db_close(db);
	cells_free(cells, ncells);
	matrix_free(&m);
	free(engine_so);
	free(expname);
	free(dbpath);
	free(dbdir);
	free(tmpdir);
	return exitcode;
}
