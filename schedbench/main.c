/* schedbench: command line. */
#include "sb.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* Opens the store, saying why on stderr when it cannot. */
static sqlite3 *open_db(const char *path)
{
	char err[1024];
	sqlite3 *h = db_open(path, err, sizeof(err));

	if (!h)
		fprintf(stderr, "schedbench: %s\n", err);
	return h;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: schedbench run MATRIX [--db FILE] [--target PATH] [--repeat N] [--runtime S] [--force]\n"
		"                          [--engine PATH] [--dry-run]\n"
		"       schedbench ingest FIO_JSON [--db FILE] [--experiment NAME] [--label AXIS=LABEL]...\n"
		"       schedbench status [--db FILE]\n"
		"       schedbench report [report.py options]   (python3 scripts/report.py --help)\n"
		"\n"
		"Matrix files: see schedbench/README-matrix.md. Default database: %s/results/schedengine.db\n"
		"Environment: SCHEDBENCH_FIO (fio binary), SCHEDBENCH_SCHEMA (schema.sql), SCHEDBENCH_PYTHON.\n",
		SCHEDBENCH_ROOT);
}

static const char *need_arg(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc) {
		fprintf(stderr, "schedbench: %s needs a value\n", argv[*i]);
		exit(2);
	}
	return argv[++*i];
}

static int cmd_ingest(int argc, char **argv)
{
	const char *file = NULL, *db = NULL, *exp = "ingest";
	struct kvlist labels = { 0 };
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--db"))
			db = need_arg(argc, argv, &i);
		else if (!strcmp(argv[i], "--experiment"))
			exp = need_arg(argc, argv, &i);
		else if (!strcmp(argv[i], "--label")) {
			const char *l = need_arg(argc, argv, &i);
			const char *eq = strchr(l, '=');
			if (!eq) {
				fprintf(stderr, "schedbench: --label wants AXIS=LABEL\n");
				return 2;
			}
			char *k = xstrndup(l, (size_t)(eq - l));
			kv_set(&labels, k, eq + 1);
			free(k);
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "schedbench: unknown option %s\n", argv[i]);
			return 2;
		} else
			file = argv[i];
	}
	if (!file) {
		usage(stderr);
		return 2;
	}
	size_t len;
	char *text = read_file(file, &len);
	if (!text) {
		fprintf(stderr, "schedbench: %s: %s\n", file, strerror(errno));
		return 2;
	}
	char *json = json_strip(text);
	if (!json) {
		fprintf(stderr, "schedbench: %s: no JSON object in the file\n", file);
		free(text);
		return 1;
	}
	char *dbpath = xstrdup(db ? db : SB_DEFAULT_DB);
	sqlite3 *h = open_db(dbpath);
	if (!h)
		return 2;
	sqlite3_stmt *st;
	int valid = 0, njobs = 0;
	sqlite3_prepare_v2(h, "SELECT json_valid(?1), (SELECT count(*) FROM json_each(?1, '$.jobs'))", -1, &st,
			   NULL);
	sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		valid = sqlite3_column_int(st, 0);
		njobs = valid ? sqlite3_column_int(st, 1) : 0;
	}
	sqlite3_finalize(st);
	if (!valid) {
		fprintf(stderr, "schedbench: %s: the text between the first '{' and the last '}' is not valid JSON\n",
			file);
		db_close(h);
		return 1;
	}
	char hash[65];
	sha256_hex(json, strlen(json), hash);
	struct strbuf lj, name;
	sb_init(&lj);
	sb_init(&name);
	kv_json(&lj, &labels);
	for (int i = 0; i < labels.n; i++)
		sb_addf(&name, "%s%s=%s", i ? " " : "", labels.v[i].key, labels.v[i].val);
	struct provenance prov = { 0 };
	char *now = now_iso();
	char *src = abs_path(file);
	struct run_record r = {
		.hash = hash, .repetition = 1, .experiment = exp, .cell_name = name.s ? name.s : base_name(file),
		.labels_json = lj.s, .job_path = src, .overlays_json = "{\"mode\":\"ingest\"}", .mode = "ingest",
		.prov = &prov, .status = njobs ? "ok" : "failed", .rc = 0, .stderr_tail = "", .started_at = now,
		.ended_at = now, .fio_json = json,
	};
	char err[1024];
	long long id = db_store(h, &r, err, sizeof(err));
	int ret = 0;
	if (id < 0) {
		fprintf(stderr, "schedbench: cannot store: %s\n", err);
		ret = 1;
	} else {
		sqlite3_prepare_v2(h, "SELECT count(*) FROM results WHERE run_id = ?1", -1, &st, NULL);
		sqlite3_bind_int64(st, 1, id);
		int rows = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
		sqlite3_finalize(st);
		printf("ingested %s as run %lld (%d jobs, %d result rows)\n", file, id, njobs, rows);
	}
	db_close(h);
	free(src);
	free(now);
	sb_free(&lj);
	sb_free(&name);
	kv_free(&labels);
	free(json);
	free(text);
	free(dbpath);
	return ret;
}

static int cmd_status(int argc, char **argv)
{
	const char *db = NULL;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--db"))
			db = need_arg(argc, argv, &i);
		else {
			fprintf(stderr, "schedbench: unknown argument %s\n", argv[i]);
			return 2;
		}
	}
	char *dbpath = xstrdup(db ? db : SB_DEFAULT_DB);
	sqlite3 *h = open_db(dbpath);
	if (!h)
		return 2;
	sqlite3_stmt *st;
	sqlite3_prepare_v2(h,
			   "SELECT coalesce(experiment, '?'), status, count(*), count(DISTINCT cell_hash), max(ended_at) "
			   "FROM runs GROUP BY 1, 2 ORDER BY 1, 2",
			   -1, &st, NULL);
	printf("%-32s %-12s %6s %6s  %s\n", "experiment", "status", "runs", "cells", "last");
	while (sqlite3_step(st) == SQLITE_ROW)
		printf("%-32s %-12s %6d %6d  %s\n", sqlite3_column_text(st, 0), sqlite3_column_text(st, 1),
		       sqlite3_column_int(st, 2), sqlite3_column_int(st, 3),
		       sqlite3_column_text(st, 4) ? (const char *)sqlite3_column_text(st, 4) : "");
	sqlite3_finalize(st);
	db_close(h);
	free(dbpath);
	return 0;
}

static int cmd_report(int argc, char **argv)
{
	const char *py = getenv("SCHEDBENCH_PYTHON");
	if (!py || !*py)
		py = !access("/usr/bin/python3", X_OK) ? "/usr/bin/python3" : "python3";
	char *script = path_join(SCHEDBENCH_ROOT, "scripts/report.py");
	char **av = xcalloc((size_t)argc + 2, sizeof(char *));
	int n = 0;
	av[n++] = (char *)py;
	av[n++] = script;
	for (int i = 2; i < argc; i++)
		av[n++] = argv[i];
	av[n] = NULL;
	execvp(py, av);
	fprintf(stderr, "schedbench: cannot run %s %s: %s\n", py, script, strerror(errno));
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "ingest"))
		return cmd_ingest(argc, argv);
	if (!strcmp(cmd, "status"))
		return cmd_status(argc, argv);
	if (!strcmp(cmd, "report"))
		return cmd_report(argc, argv);
	if (strcmp(cmd, "run")) {
		fprintf(stderr, "schedbench: unknown command '%s'\n", cmd);
		usage(stderr);
		return 2;
	}
	struct run_opts o = { 0 };
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--db"))
			o.db = need_arg(argc, argv, &i);
		else if (!strcmp(a, "--target"))
			o.target = need_arg(argc, argv, &i);
		else if (!strcmp(a, "--engine"))
			o.engine = need_arg(argc, argv, &i);
		else if (!strcmp(a, "--runtime"))
			o.runtime = need_arg(argc, argv, &i);
		else if (!strcmp(a, "--repeat")) {
			char *end;
			long r = strtol(need_arg(argc, argv, &i), &end, 10);
			if (*end || r < 1) {
				fprintf(stderr, "schedbench: --repeat wants a positive integer\n");
				return 2;
			}
			o.repeat = (int)r;
		} else if (!strcmp(a, "--force"))
			o.force = 1;
		else if (!strcmp(a, "--dry-run") || !strcmp(a, "-n"))
			o.dry_run = 1;
		else if (a[0] == '-') {
			fprintf(stderr, "schedbench: unknown option %s\n", a);
			usage(stderr);
			return 2;
		} else if (!o.matrix)
			o.matrix = a;
		else {
			fprintf(stderr, "schedbench: more than one matrix given (%s)\n", a);
			return 2;
		}
	}
	if (!o.matrix) {
		usage(stderr);
		return 2;
	}
	if (o.runtime) {
		char *end;
		double v = strtod(o.runtime, &end);
		if (v <= 0 || (*end && strcmp(end, "s") && strcmp(end, "m") && strcmp(end, "ms"))) {
			fprintf(stderr, "schedbench: --runtime wants seconds (e.g. 5)\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	return cmd_run(&o);
}
