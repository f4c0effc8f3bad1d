/* `schedbench ingest`: a fio JSON from elsewhere into the database, after checking that it is
 * fio's output with numbers where numbers belong. Nothing is written for a file that fails. */
#include "sb.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* NULL if json is fio output we can store; else why not (malloc'd). */
static char *validate_fio_json(const char *json)
{
	sqlite3 *m = NULL;
	sqlite3_stmt *st = NULL;
	char *why = NULL;
	if (sqlite3_open(":memory:", &m) != SQLITE_OK)
		return xstrdup("cannot open sqlite in memory");
	/* 1. the shape */
	if (sqlite3_prepare_v2(
		m,
		"SELECT json_valid(?1), json_type(?1, '$.\"fio version\"'), "
		"coalesce(json_type(?1, '$.jobs'), json_type(?1, '$.client_stats')), "
		"coalesce(json_array_length(?1, '$.jobs'), json_array_length(?1, "
		"'$.client_stats'))",
		-1, &st, NULL) != SQLITE_OK) {
		why = xasprintf("sqlite: %s", sqlite3_errmsg(m));
		goto out;
	}
	sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW) {
		why = xstrdup("cannot check the JSON");
		goto out;
	}
	if (!sqlite3_column_int(st, 0)) {
		why = xstrdup("the text between the first '{' and the last '}' is not valid JSON");
		goto out;
	}
	const char *ver = (const char *)sqlite3_column_text(st, 1);
	const char *jt = (const char *)sqlite3_column_text(st, 2);
	if (!ver || strcmp(ver, "text")) {
		why = xstrdup("not fio output: no \"fio version\" string (run fio with "
			      "--output-format=json or json+)");
		goto out;
	}
	if (!jt || strcmp(jt, "array")) {
		why = xstrdup("not fio output: no \"jobs\" array");
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	/* client/server output has client_stats instead of jobs */
	const char *arr = "$.jobs";
	if (sqlite3_prepare_v2(m, "SELECT json_type(?1, '$.jobs')", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_NULL)
			arr = "$.client_stats";
	}
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(m, "SELECT json_array_length(?1, ?2)", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC) ||
	    sqlite3_bind_text(st, 2, arr, -1, SQLITE_STATIC) || sqlite3_step(st) != SQLITE_ROW) {
		why = xstrdup("cannot check the JSON");
		goto out;
	}
	if (sqlite3_column_int(st, 0) == 0) {
		why = xstrdup("\"jobs\" is empty: fio ran no job");
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	/* 2. every job: a name, directions that are objects, numbers where fio writes numbers */
	static const char *sql =
	    "SELECT j.key, 'jobname', json_type(j.value, '$.jobname'), json_extract(j.value, "
	    "'$.jobname'), 'text' "
	    "  FROM json_each(?1, ?2) j WHERE coalesce(json_type(j.value, '$.jobname'), '') <> "
	    "'text' "
	    "UNION ALL SELECT j.key, 'error', json_type(j.value, '$.error'), json_extract(j.value, "
	    "'$.error'), 'number' "
	    "  FROM json_each(?1, ?2) j WHERE json_type(j.value, '$.error') NOT IN ('integer', "
	    "'real') "
	    "UNION ALL SELECT j.key, d.value, json_type(j.value, '$.' || d.value), NULL, 'object' "
	    "  FROM json_each(?1, ?2) j, json_each('[\"read\",\"write\",\"trim\",\"sync\"]') d "
	    "  WHERE json_type(j.value, '$.' || d.value) NOT IN ('object') "
	    "UNION ALL SELECT j.key, d.value || '.' || f.value, json_type(j.value, '$.' || d.value "
	    "|| '.' || f.value), "
	    "  json_extract(j.value, '$.' || d.value || '.' || f.value), 'number' "
	    "  FROM json_each(?1, ?2) j, json_each('[\"read\",\"write\",\"trim\",\"sync\"]') d, "
	    "  "
	    "json_each('[\"io_kbytes\",\"io_bytes\",\"bw\",\"iops\",\"runtime\",\"total_ios\","
	    "\"lat_ns.mean\","
	    "\"lat_ns.stddev\",\"lat_ns.max\",\"clat_ns.mean\",\"clat_ns.stddev\",\"slat_ns.mean\"]"
	    "') f "
	    "  WHERE json_type(j.value, '$.' || d.value || '.' || f.value) NOT IN ('integer', "
	    "'real') "
	    "LIMIT 1";
	if (sqlite3_prepare_v2(m, sql, -1, &st, NULL) != SQLITE_OK) {
		why = xasprintf("sqlite: %s", sqlite3_errmsg(m));
		goto out;
	}
	sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, arr, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 2);
		const char *val = (const char *)sqlite3_column_text(st, 3);
		why = xasprintf("%s[%d].%s is %s%s%s%s, not %s", arr + 2, sqlite3_column_int(st, 0),
				(const char *)sqlite3_column_text(st, 1), type ? type : "missing",
				val ? " (" : "", val ? val : "", val ? ")" : "",
				(const char *)sqlite3_column_text(st, 4));
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	/* 3. a run that did something and reported no error */
	if (sqlite3_prepare_v2(
		m,
		"SELECT (SELECT json_extract(value, '$.jobname') || ' reported error ' || "
		"json_extract(value, '$.error') FROM json_each(?1, ?2) WHERE json_extract(value, "
		"'$.error') <> 0 LIMIT 1), (SELECT total(coalesce(json_extract(j.value, '$.' || "
		"d.value || "
		"'.total_ios'), 0)) FROM json_each(?1, ?2) j, "
		"json_each('[\"read\",\"write\",\"trim\",\"sync\"]') d)",
		-1, &st, NULL) != SQLITE_OK) {
		why = xasprintf("sqlite: %s", sqlite3_errmsg(m));
		goto out;
	}
	sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, arr, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_NULL)
			why = xasprintf("job %s: a failed run",
					(const char *)sqlite3_column_text(st, 0));
		else if (sqlite3_column_double(st, 1) <= 0)
			why = xstrdup("no job did any I/O (total_ios 0 in every direction)");
	}
out:
	sqlite3_finalize(st);
	sqlite3_close(m);
	return why;
}

int cmd_ingest(struct ingest_opts *o)
{
	size_t len;
	char *text = read_file(o->file, &len);
	if (!text) {
		fprintf(stderr, "schedbench: %s: %s\n", o->file, strerror(errno));
		return 2;
	}
	char *json = json_strip(text);
	if (!json) {
		fprintf(stderr, "schedbench: %s: no JSON object in the file\n", o->file);
		free(text);
		return 2;
	}
	char *why = validate_fio_json(json);
	if (why) {
		fprintf(stderr, "schedbench: %s: %s; nothing stored\n", o->file, why);
		free(why);
		free(json);
		free(text);
		return 2;
	}
	char *dbpath = sb_db_path(o->db);
	char err[1024];
	sqlite3 *h = NULL;
	if (sb_db_dir_check(o->db, dbpath, err, sizeof(err)) == 0)
		h = db_open(dbpath, err, sizeof(err));
	if (!h) {
		fprintf(stderr, "schedbench: %s\n", err);
		free(dbpath);
		free(json);
		free(text);
		return 2;
	}
	int njobs = 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h, "SELECT json_array_length(?1, '$.jobs')", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			njobs = sqlite3_column_int(st, 0);
	}
	sqlite3_finalize(st);
	char hash[65];
	sha256_hex(json, strlen(json), hash);
	struct strbuf lj, name;
	sb_init(&lj);
	sb_init(&name);
	kv_json(&lj, &o->labels);
	for (int i = 0; i < o->labels.n; i++)
		sb_addf(&name, "%s%s=%s", i ? " " : "", o->labels.v[i].key, o->labels.v[i].val);
	struct provenance prov = {0};
	char *now = now_iso();
	char *src = abs_path(o->file);
	struct run_record r = {
	    .hash = hash,
	    .repetition = 1,
	    .experiment = o->experiment,
	    .cell_name = name.s ? name.s : base_name(o->file),
	    .labels_json = lj.s,
	    .job_path = src,
	    .overlays_json = "{\"mode\":\"ingest\"}",
	    .mode = "ingest",
	    .prov = &prov,
	    .status = "ok",
	    .rc = 0,
	    .stderr_tail = "",
	    .started_at = now,
	    .ended_at = now,
	    .fio_json = json,
	};
	long long id = db_store(h, &r, err, sizeof(err));
	int ret = 0;
	if (id < 0) {
		fprintf(stderr, "schedbench: cannot store %s in %s: %s\n", o->file, dbpath, err);
		ret = 2;
	} else {
		int rows = 0;
		if (sqlite3_prepare_v2(h, "SELECT count(*) FROM results WHERE run_id = ?1", -1, &st,
				       NULL) == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, id);
			rows = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
		}
		sqlite3_finalize(st);
		printf("ingested %s as run %lld (%d jobs, %d result rows) into %s\n", o->file, id,
		       njobs, rows, dbpath);
	}
	db_close(h);
	free(src);
	free(now);
	sb_free(&lj);
	sb_free(&name);
	free(json);
	free(text);
	free(dbpath);
	return ret;
}
