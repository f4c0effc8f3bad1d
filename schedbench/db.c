/* The sqlite store: migrations from results/schema.sql, claims, one transaction per run. */
#include "sb.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *schema_path(void)
{
	const char *e = getenv("SCHEDBENCH_SCHEMA");
	if (e && *e)
		return xstrdup(e);
	return sb_datadir() ? path_join(sb_datadir(), "results/schema.sql")
			    : xstrdup("results/schema.sql");
}

static void sql_sqrt(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	double v = sqlite3_value_double(argv[0]);
	if (v < 0)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_double(ctx, sqrt(v));
}

static int exec_err(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, errlen, "%s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int user_version(sqlite3 *db)
{
	sqlite3_stmt *st;
	int v = -1;
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	return v;
}

/* Applies the "-- version N" blocks of schema.sql above the database's user_version. */
static int migrate(sqlite3 *db, char *err, size_t errlen)
{
	char *sp = schema_path();
	size_t len;
	char *text = read_file(sp, &len);
	if (!text) {
		snprintf(err, errlen, "cannot read schema %s: %s (set SCHEDBENCH_SCHEMA)", sp,
			 strerror(errno));
		free(sp);
		return -1;
	}
	int rc = 0;
	const char *p = text;
	int latest = 0;
	while ((p = strstr(p, "-- version "))) {
		if (p != text && p[-1] != '\n') {
			p++;
			continue;
		}
		int ver = atoi(p + 11);
		const char *body = strchr(p, '\n');
		if (!body)
			break;
		const char *next = strstr(body, "\n-- version ");
		size_t blen = next ? (size_t)(next - body) : strlen(body);
		if (ver <= latest) {
			snprintf(err, errlen, "%s: versions must increase (%d after %d)", sp, ver,
				 latest);
			rc = -1;
			break;
		}
		latest = ver;
		if (ver > user_version(db)) {
			if (exec_err(db, "BEGIN IMMEDIATE", err, errlen)) {
				rc = -1;
				break;
			}
			if (ver >
			    user_version(db)) { /* another runner may have migrated meanwhile */
				char *sql = xstrndup(body, blen);
				char *setv = xasprintf("PRAGMA user_version = %d", ver);
				char e2[512];
				if (exec_err(db, sql, e2, sizeof(e2)) ||
				    exec_err(db, setv, e2, sizeof(e2))) {
					snprintf(err, errlen,
						 "%s: migration to version %d failed: %s", sp, ver,
						 e2);
					sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
					free(sql);
					free(setv);
					rc = -1;
					break;
				}
				free(sql);
				free(setv);
			}
			if (exec_err(db, "COMMIT", err, errlen)) {
				rc = -1;
				break;
			}
		}
		p = body;
	}
	if (!rc && latest == 0) {
		snprintf(err, errlen, "%s: no '-- version N' block", sp);
		rc = -1;
	}
	if (!rc && user_version(db) > latest) {
		snprintf(err, errlen,
			 "database schema version %d is newer than this schedbench knows (%d)",
			 user_version(db), latest);
		rc = -1;
	}
	free(text);
	free(sp);
	return rc;
}

sqlite3 *db_open(const char *path, char *err, size_t errlen)
{
	char *d = dir_name(path);
	mkdir_p(d);
	free(d);
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		snprintf(err, errlen, "cannot open database %s: %s", path,
			 db ? sqlite3_errmsg(db) : "?");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, 60000);
	/* sqlite without SQLITE_ENABLE_MATH_FUNCTIONS lacks sqrt() used by the views */
	if (sqlite3_exec(db, "SELECT sqrt(4)", NULL, NULL, NULL) != SQLITE_OK)
		sqlite3_create_function(db, "sqrt", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
					sql_sqrt, NULL, NULL);
	char e2[512];
	if (exec_err(db, "PRAGMA journal_mode=WAL", e2, sizeof(e2)) ||
	    exec_err(db, "PRAGMA foreign_keys=ON", e2, sizeof(e2))) {
		snprintf(err, errlen, "%s: %s", path, e2);
		sqlite3_close(db);
		return NULL;
	}
	if (migrate(db, err, errlen)) {
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

void db_close(sqlite3 *db)
{
	sqlite3_close(db);
}

/* The start time of a process (field 22 of /proc/PID/stat), 0 if it is gone. */
static unsigned long long proc_start(long pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	size_t len;
	char *s = read_file(path, &len);
	if (!s)
		return 0;
	unsigned long long v = 0;
	const char *p = strrchr(s, ')'); /* the command may contain spaces */
	for (int field = 2; p && *p && field < 22; p++)
		if (*p == ' ')
			field++;
	if (p)
		v = strtoull(p, NULL, 10);
	free(s);
	return v;
}

char *runner_owner(void)
{
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	return xasprintf("%s:%ld:%llu", host, (long)getpid(), proc_start((long)getpid()));
}

/* host:pid[:start]: alive if on another host (we cannot tell), or the same process still runs. */
int owner_alive(const char *owner)
{
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	const char *c1 = owner ? strchr(owner, ':') : NULL;
	if (!c1)
		return 0;
	if (strncmp(owner, host, (size_t)(c1 - owner)) || strlen(host) != (size_t)(c1 - owner))
		return 1; /* another host: assume alive (use --force to take it over) */
	char *end;
	long pid = strtol(c1 + 1, &end, 10);
	if (pid <= 0)
		return 0;
	if (pid == (long)getpid())
		return 0;
	if (*end == ':') { /* the start time tells a reused pid apart */
		unsigned long long want = strtoull(end + 1, NULL, 10), now = proc_start(pid);
		return now != 0 && now == want;
	}
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

enum claim_result db_claim(sqlite3 *db, const char *hash, int rep, int force, const char *owner,
			   const char *experiment, const char *cell_name)
{
	char err[512];
	if (exec_err(db, "BEGIN IMMEDIATE", err, sizeof(err))) {
		warnx_("claim: %s", err);
		return CLAIM_ERR;
	}
	sqlite3_stmt *st;
	enum claim_result res = CLAIM_ERR;
	sqlite3_prepare_v2(
	    db, "SELECT status, owner FROM runs WHERE cell_hash = ?1 AND repetition = ?2", -1, &st,
	    NULL);
	sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, rep);
	int r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		const char *status = (const char *)sqlite3_column_text(st, 0);
		const char *own = (const char *)sqlite3_column_text(st, 1);
		if (!strcmp(status, "ok"))
			res = force ? CLAIM_REDO : CLAIM_DONE;
		else if (!strcmp(status, "running") && own && strcmp(own, owner) &&
			 owner_alive(own))
			res = CLAIM_BUSY;
		else
			res = CLAIM_OK;
	} else if (r == SQLITE_DONE) {
		res = CLAIM_OK;
	}
	sqlite3_finalize(st);
	if (res == CLAIM_OK) {
		char *now = now_iso();
		/* the claim names its experiment and cell: a runner killed now leaves a row one can
		 * read */
		sqlite3_prepare_v2(
		    db,
		    "INSERT INTO runs (cell_hash, repetition, status, owner, started_at, "
		    "experiment, "
		    "cell_name) VALUES (?1, ?2, 'running', ?3, ?4, ?5, ?6) ON CONFLICT (cell_hash, "
		    "repetition) DO UPDATE SET status = 'running', owner = excluded.owner, "
		    "started_at = excluded.started_at, experiment = coalesce(runs.experiment, "
		    "excluded.experiment), cell_name = coalesce(runs.cell_name, "
		    "excluded.cell_name)",
		    -1, &st, NULL);
		sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 2, rep);
		sqlite3_bind_text(st, 3, owner, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, now, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 5, experiment, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, cell_name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE) {
			warnx_("claim: %s", sqlite3_errmsg(db));
			res = CLAIM_ERR;
		}
		sqlite3_finalize(st);
		free(now);
	}
	if (res == CLAIM_ERR)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	else if (exec_err(db, "COMMIT", err, sizeof(err))) {
		warnx_("claim: %s", err);
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		res = CLAIM_ERR;
	}
	return res;
}

void db_release(sqlite3 *db, const char *hash, int rep, const char *owner)
{
	sqlite3_stmt *st;
	sqlite3_prepare_v2(
	    db,
	    "DELETE FROM runs WHERE cell_hash = ?1 AND repetition = ?2 AND status = 'running' AND "
	    "owner = ?3 AND job_text IS NULL",
	    -1, &st, NULL);
	sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, rep);
	sqlite3_bind_text(st, 3, owner, -1, SQLITE_STATIC);
	sqlite3_step(st);
	sqlite3_finalize(st);
}

char *json_strip(const char *text)
{
	if (!text)
		return NULL;
	/* fio's JSON object starts and ends at the start of a line; prefer those braces so that
	 * junk with braces on the same line as other text does not count */
	const char *a = text[0] == '{' ? text : strstr(text, "\n{");
	if (a && *a == '\n')
		a++;
	const char *b = NULL;
	for (const char *p = strstr(text, "\n}"); p; p = strstr(p + 1, "\n}"))
		b = p + 1;
	if (!a)
		a = strchr(text, '{');
	if (!b || (a && b < a))
		b = strrchr(text, '}');
	if (!a || !b || b < a)
		return NULL;
	return xstrndup(a, (size_t)(b - a + 1));
}

/* fio's jobs[] (and client_stats[] of client/server runs) x directions -> results rows. */
static const char *EXTRACT_SQL =
    "INSERT INTO results (run_id, job_index, jobname, groupid, ddir, io_kib, runtime_ms, "
    "total_ios, iops, "
    "bw_kib, lat_mean_ns, lat_stddev_ns, lat_max_ns, clat_mean_ns, clat_stddev_ns, clat_min_ns, "
    "clat_max_ns, "
    "clat_p50_ns, clat_p90_ns, clat_p95_ns, clat_p99_ns, clat_p999_ns, clat_p9999_ns, "
    "slat_mean_ns) "
    "SELECT ?1, j.idx, json_extract(j.value, '$.jobname'), json_extract(j.value, '$.groupid'), "
    "d.value, "
    " json_extract(j.value, '$.' || d.value || '.io_kbytes'), json_extract(j.value, '$.' || "
    "d.value || "
    "'.runtime'), json_extract(j.value, '$.' || d.value || '.total_ios'), json_extract(j.value, "
    "'$.' || d.value "
    "|| '.iops'), json_extract(j.value, '$.' || d.value || '.bw'), "
    " json_extract(j.value, '$.' || d.value || '.lat_ns.mean'), json_extract(j.value, '$.' || "
    "d.value || "
    "'.lat_ns.stddev'), json_extract(j.value, '$.' || d.value || '.lat_ns.max'), "
    " coalesce(json_extract(j.value, '$.' || d.value || '.clat_ns.mean'), json_extract(j.value, "
    "'$.' || "
    "d.value || '.lat_ns.mean')), coalesce(json_extract(j.value, '$.' || d.value || "
    "'.clat_ns.stddev'), "
    "json_extract(j.value, '$.' || d.value || '.lat_ns.stddev')), coalesce(json_extract(j.value, "
    "'$.' || "
    "d.value || '.clat_ns.min'), json_extract(j.value, '$.' || d.value || '.lat_ns.min')), "
    "coalesce(json_extract(j.value, '$.' || d.value || '.clat_ns.max'), json_extract(j.value, '$.' "
    "|| d.value "
    "|| '.lat_ns.max')), "
    " coalesce(json_extract(j.value, '$.' || d.value || '.clat_ns.percentile.\"50.000000\"'), "
    "json_extract(j.value, '$.' || d.value || '.lat_ns.percentile.\"50.000000\"')), "
    " coalesce(json_extract(j.value, '$.' || d.value || '.clat_ns.percentile.\"90.000000\"'), "
    "json_extract(j.value, '$.' || d.value || '.lat_ns.percentile.\"90.000000\"')), "
    " coalesce(json_extract(j.value, '$.' || d.value || '.clat_ns.percentile.\"95.000000\"'), "
    "json_extract(j.value, '$.' || d.value || '.lat_ns.percentile.\"95.000000\"')), "
    " coalesce(json_extract(j.value, '$.' || d.value || '.clat_ns.percentile.\"99.000000\"'), "
    "json_extract(j.value, '$.' || d.value || '.lat_ns.percentile.\"99.000000\"')), "
    " coalesce(json_extract(j.value, '$.' || d.value || '.clat_ns.percentile.\"99.900000\"'), "
    "json_extract(j.value, '$.' || d.value || '.lat_ns.percentile.\"99.900000\"')), "
    " coalesce(json_extract(j.value, '$.' || d.value || '.clat_ns.percentile.\"99.990000\"'), "
    "json_extract(j.value, '$.' || d.value || '.lat_ns.percentile.\"99.990000\"')), "
    " json_extract(j.value, '$.' || d.value || '.slat_ns.mean') "
    "FROM (SELECT key AS idx, value FROM json_each(?2, '$.jobs') UNION ALL "
    "      SELECT 100000 + key, value FROM json_each(?2, '$.client_stats') "
    "      WHERE json_extract(value, '$.jobname') <> 'All clients') j, "
    " json_each('[\"read\",\"write\",\"trim\",\"sync\"]') d "
    "WHERE coalesce(json_extract(j.value, '$.' || d.value || '.total_ios'), 0) > 0";

static void bind_opt(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

/* Runs one statement with ?1 = a run id and ?2 = fio's JSON text. Returns 0, or -1 (see errmsg). */
static int exec_run_json(sqlite3 *db, const char *sql, sqlite3_int64 id, const char *json)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, json, -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	}
	sqlite3_finalize(st);
	return rc;
}

long long db_store(sqlite3 *db, const struct run_record *r, char *err, size_t errlen)
{
	if (exec_err(db, "BEGIN IMMEDIATE", err, errlen))
		return -1;
	sqlite3_stmt *st = NULL;
	long long id = -1;
	const char *sql =
	    "INSERT INTO runs (cell_hash, repetition, experiment, cell_name, labels, job_path, "
	    "job_text, "
	    "job_hash, generated_job, overlays, mode, scheduler, target, host, kernel, "
	    "fio_version, engine_rev, "
	    "cpu_model, status, owner, rc, stderr_tail, started_at, ended_at, duration_s, "
	    "sysfs_state, "
	    "sched_stats, provenance, engine_build_id, clock, device_stats, fio_host, batch) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
	    "?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, "
	    "?30, ?31, ?32, ?33) "
	    "ON CONFLICT (cell_hash, repetition) DO UPDATE SET experiment = excluded.experiment, "
	    "cell_name = excluded.cell_name, labels = excluded.labels, job_path = "
	    "excluded.job_path, "
	    "job_text = excluded.job_text, job_hash = excluded.job_hash, generated_job = "
	    "excluded.generated_job, "
	    "overlays = excluded.overlays, mode = excluded.mode, scheduler = excluded.scheduler, "
	    "target = excluded.target, host = excluded.host, kernel = excluded.kernel, "
	    "fio_version = excluded.fio_version, engine_rev = excluded.engine_rev, cpu_model = "
	    "excluded.cpu_model, "
	    "status = excluded.status, owner = excluded.owner, rc = excluded.rc, "
	    "stderr_tail = excluded.stderr_tail, started_at = excluded.started_at, ended_at = "
	    "excluded.ended_at, "
	    "duration_s = excluded.duration_s, sysfs_state = excluded.sysfs_state, "
	    "sched_stats = excluded.sched_stats, provenance = excluded.provenance, "
	    "engine_build_id = excluded.engine_build_id, clock = excluded.clock, "
	    "device_stats = excluded.device_stats, fio_host = excluded.fio_host, "
	    "batch = excluded.batch RETURNING id";
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		goto fail;
	char *owner = runner_owner();
	sqlite3_bind_text(st, 1, r->hash, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 2, r->repetition);
	bind_opt(st, 3, r->experiment);
	bind_opt(st, 4, r->cell_name);
	bind_opt(st, 5, r->labels_json);
	bind_opt(st, 6, r->job_path);
	bind_opt(st, 7, r->job_text);
	bind_opt(st, 8, r->job_hash);
	bind_opt(st, 9, r->generated_job);
	bind_opt(st, 10, r->overlays_json);
	bind_opt(st, 11, r->mode);
	bind_opt(st, 12, r->scheduler);
	bind_opt(st, 13, r->target);
	bind_opt(st, 14, r->host ? r->host : r->prov ? r->prov->host : NULL);
	bind_opt(st, 15, r->kernel ? r->kernel : r->prov ? r->prov->kernel : NULL);
	bind_opt(st, 16, r->fio_version ? r->fio_version : r->prov ? r->prov->fio_version : NULL);
	bind_opt(st, 17, r->engine_rev ? r->engine_rev : r->prov ? r->prov->engine_rev : NULL);
	bind_opt(st, 18, r->prov ? r->prov->cpu_model : NULL);
	bind_opt(st, 19, r->status);
	bind_opt(st, 20, owner);
	sqlite3_bind_int(st, 21, r->rc);
	bind_opt(st, 22, r->stderr_tail);
	bind_opt(st, 23, r->started_at);
	bind_opt(st, 24, r->ended_at);
	sqlite3_bind_double(st, 25, r->duration_s);
	bind_opt(st, 26, r->sysfs_state);
	bind_opt(st, 27, r->sched_stats);
	bind_opt(st, 28, r->provenance);
	bind_opt(st, 29, r->prov ? r->prov->engine_build_id : NULL);
	bind_opt(st, 30, r->clock);
	bind_opt(st, 31, r->device_stats);
	bind_opt(st, 32, r->fio_host);
	bind_opt(st, 33, r->batch);
	free(owner);
	owner = NULL;
	if (sqlite3_step(st) != SQLITE_ROW)
		goto fail;
	id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	char *del = xasprintf(
	    "DELETE FROM results WHERE run_id = %lld; DELETE FROM fio_output WHERE run_id = %lld; "
	    "DELETE FROM fio_logs WHERE run_id = %lld",
	    id, id, id);
	int dr = exec_err(db, del, err, errlen);
	free(del);
	if (dr)
		goto fail_msg;
	/* The raw fio JSON, then the per-job results extracted from it. */
	if (r->fio_json &&
	    (exec_run_json(db, "INSERT INTO fio_output (run_id, json) VALUES (?1, ?2)", id,
			   r->fio_json) ||
	     exec_run_json(db, EXTRACT_SQL, id, r->fio_json)))
		goto fail;
	if (exec_err(db, "COMMIT", err, errlen))
		goto fail_msg;
	return id;
fail:
	snprintf(err, errlen, "%s", sqlite3_errmsg(db));
fail_msg:
	free(owner);
	if (st)
		sqlite3_finalize(st);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int db_store_log(sqlite3 *db, long long run_id, const char *name, const char *kind, int job,
		 const char *text)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (sqlite3_prepare_v2(db,
			       "INSERT OR REPLACE INTO fio_logs (run_id, name, kind, job, text) "
			       "VALUES (?1, ?2, ?3, ?4, ?5)",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, kind, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 4, job);
		sqlite3_bind_text(st, 5, text, -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	}
	sqlite3_finalize(st);
	return rc;
}

void db_mark_interrupted(sqlite3 *db, const char *owner)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(
		db,
		"UPDATE runs SET status = 'interrupted', ended_at = ?2, stderr_tail = "
		"coalesce(stderr_tail, '') "
		"|| 'schedbench: the runner (' || owner || ') was killed during this run' "
		"WHERE status = 'running' AND owner = ?1",
		-1, &st, NULL) == SQLITE_OK) {
		char *now = now_iso();
		sqlite3_bind_text(st, 1, owner, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, now, -1, SQLITE_TRANSIENT);
		sqlite3_step(st);
		free(now);
	}
	sqlite3_finalize(st);
}

int db_reclaim_stale(sqlite3 *db, int verbose)
{
	sqlite3_stmt *st = NULL;
	struct kvlist dead = {0};
	if (sqlite3_prepare_v2(
		db,
		"SELECT DISTINCT owner FROM runs WHERE status = 'running' AND owner IS NOT NULL",
		-1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *o = (const char *)sqlite3_column_text(st, 0);
			if (o && !owner_alive(o))
				kv_set(&dead, o, "");
		}
	}
	sqlite3_finalize(st);
	int n = 0;
	for (int i = 0; i < dead.n; i++) {
		db_mark_interrupted(db, dead.v[i].key);
		int c = sqlite3_changes(db);
		if (c && verbose)
			printf("reclaimed %d 'running' row%s of runner %s, which is gone (now "
			       "'interrupted')\n",
			       c, c > 1 ? "s" : "", dead.v[i].key);
		n += c;
	}
	kv_free(&dead);
	return n;
}

/* One overlays JSON against another: up to 3 leaves that differ, "key old, now new; ...". */
static char *overlay_diff(sqlite3 *db, const char *old, const char *cur)
{
	static const char *sql =
	    "SELECT replace(substr(a.fullkey, 3), '\"', ''), a.atom, b.atom FROM json_tree(?1) a "
	    "LEFT JOIN "
	    "json_tree(?2) b ON b.fullkey = a.fullkey WHERE a.type NOT IN ('object', 'array') "
	    "AND b.atom IS NOT a.atom UNION ALL SELECT replace(substr(b.fullkey, 3), '\"', ''), "
	    "NULL, b.atom FROM "
	    "json_tree(?2) b WHERE b.type NOT IN ('object', 'array') AND b.fullkey NOT IN "
	    "(SELECT fullkey FROM json_tree(?1)) LIMIT 4";
	sqlite3_stmt *st = NULL;
	struct strbuf b;
	sb_init(&b);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) { /* bad JSON: no rows */
		sqlite3_bind_text(st, 1, old, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, cur, -1, SQLITE_STATIC);
		for (int n = 0; sqlite3_step(st) == SQLITE_ROW; n++) {
			const char *k = (const char *)sqlite3_column_text(st, 0);
			const char *o = (const char *)sqlite3_column_text(st, 1);
			const char *c = (const char *)sqlite3_column_text(st, 2);
			if (n == 3) {
				sb_add(&b, "; ...");
				break;
			}
			sb_addf(&b, "%s%s %s, now %s", n ? "; " : "", k ? k : "?", o ? o : "unset",
				c ? c : "unset");
		}
	}
	sqlite3_finalize(st);
	return b.s;
}

int db_note_other_cells(sqlite3 *db, const char *experiment)
{
	/* the report shows the ok runs of the cells the matrix last expanded to
	 * (experiment_cells); ok runs of other cells under the experiment's name are not in it */
	static const char *sql =
	    "SELECT (SELECT count(*) FROM runs WHERE experiment = ?1 AND status = 'ok' AND "
	    "cell_hash NOT IN (SELECT cell_hash FROM experiment_cells WHERE experiment = ?1)), "
	    "(SELECT count(DISTINCT cell_hash) FROM runs WHERE experiment = ?1 AND status = 'ok' "
	    "AND cell_hash NOT IN (SELECT cell_hash FROM experiment_cells WHERE experiment = ?1)), "
	    "(SELECT count(*) FROM experiment_cells c JOIN runs r ON r.cell_hash = c.cell_hash "
	    "WHERE c.experiment = ?1 AND r.status = 'ok'), "
	    "(SELECT count(*) FROM experiment_cells WHERE experiment = ?1)";
	/* one of those runs beside a run of the current cell of the same name: what differs */
	static const char *pair_sql =
	    "SELECT o.cell_name, o.overlays, n.overlays FROM runs o JOIN experiment_cells c ON "
	    "c.experiment = ?1 AND c.cell_name = o.cell_name JOIN runs n ON n.cell_hash = "
	    "c.cell_hash WHERE o.experiment = ?1 AND o.status = 'ok' AND o.cell_hash NOT IN "
	    "(SELECT cell_hash FROM experiment_cells WHERE experiment = ?1) ORDER BY o.id DESC, "
	    "n.id DESC LIMIT 1";
	sqlite3_stmt *st = NULL;
	int other = 0, other_cells = 0, shown = 0, members = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st); /* no experiment_cells (schema before version 2) */
		return 0;
	}
	sqlite3_bind_text(st, 1, experiment, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		other = sqlite3_column_int(st, 0);
		other_cells = sqlite3_column_int(st, 1);
		shown = sqlite3_column_int(st, 2);
		members = sqlite3_column_int(st, 3);
	}
	sqlite3_finalize(st);
	if (!other || !members) /* without members the report takes every run by name */
		return 0;
	char *diff = NULL, *cell = NULL;
	if (sqlite3_prepare_v2(db, pair_sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, experiment, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 1) &&
		    sqlite3_column_text(st, 2)) {
			cell = xstrdup((const char *)sqlite3_column_text(st, 0));
			diff = overlay_diff(db, (const char *)sqlite3_column_text(st, 1),
					    (const char *)sqlite3_column_text(st, 2));
		}
	}
	sqlite3_finalize(st);
	printf("note: %s: %d ok run%s of %d other cell%s not in its report, which shows the %d "
	       "cell%s of the matrix's last run (%d ok run%s so far): ",
	       experiment, other, other > 1 ? "s" : "", other_cells, other_cells > 1 ? "s" : "",
	       members, members > 1 ? "s" : "", shown, shown == 1 ? "" : "s");
	if (diff && *diff)
		printf("cell %s differs in %s\n", cell, diff);
	else
		printf("another --runtime, or the matrix edited since\n");
	free(diff);
	free(cell);
	return other;
}
