/* schedbench: command line (getopt_long; every command has --help). */
#include "sb.h"

#include <errno.h>
#include <getopt.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SCHEDBENCH_VERSION
#define SCHEDBENCH_VERSION "unknown"
#endif

static const char EXIT_CODES[] =
    "Exit status: 0 ok; 1 a run failed (run) or a regression was found (report --fail-above);\n"
    "2 usage or input error (bad option, matrix, job file, JSON, missing fio/engine/database);\n"
    "3 nothing to compare (report: no runs, or too few repetitions for a verdict);\n"
    "130 interrupted by SIGINT/SIGTERM (run again to resume).\n";

static void usage_main(FILE *f)
{
	fprintf(
	    f,
	    "usage: schedbench COMMAND [OPTIONS]   (schedbench COMMAND --help for its options)\n"
	    "\n"
	    "Runs fio experiment matrices with the schedengine ioengine (embedded "
	    "CFQ/BFQ/deadline/kyber/none)\n"
	    "and the kernel's schedulers, keeps every run in sqlite, and reports them beside the "
	    "seed threads.\n"
	    "\n"
	    "commands:\n"
	    "  run MATRIX      run every cell x repetition of a matrix file (resumes; see run "
	    "--help)\n"
	    "  status          runs per experiment and status\n"
	    "  report          the seed threads' tables, A/B comparison, CSV, plots, HTML "
	    "(report.py)\n"
	    "  ingest FILE     store a fio JSON output from elsewhere\n"
	    "\n"
	    "Database: --db FILE, else $SCHEDBENCH_DB, else results/schedengine.db under the "
	    "current\n"
	    "directory. Matrix files: schedbench/README-matrix.md (installed: %s).\n"
	    "Environment: SCHEDBENCH_DB, SCHEDBENCH_FIO (fio binary), SCHEDBENCH_DATADIR (schema,\n"
	    "report.py and jobs/), SCHEDBENCH_SCHEMA, SCHEDBENCH_PYTHON, SCHEDBENCH_PROGRESS "
	    "(seconds\n"
	    "between progress lines of a long cell, default 10).\n"
	    "\n%s",
	    sb_datadir() ? sb_datadir() : "(data directory not found)", EXIT_CODES);
}

static void usage_run(FILE *f)
{
	fprintf(
	    f,
	    "usage: schedbench run MATRIX [OPTIONS]\n"
	    "\n"
	    "Checks the whole matrix first (its keys, every engine option, every cell's job "
	    "file through\n"
	    "fio --parse-only with the engine loaded), prints the number of runs and an "
	    "estimate of the\n"
	    "time, then runs each cell x repetition that is not in the database yet.\n"
	    "\n"
	    "  --db FILE       the database (default: $SCHEDBENCH_DB, else "
	    "results/schedengine.db);\n"
	    "                  made if missing, in a directory that must exist (results/ is made)\n"
	    "  --target PATH   the block device for kernel cells (kernel:NAME; its scheduler "
	    "and tunables\n"
	    "                  are set for each cell, read back and restored) and the target "
	    "of plain\n"
	    "                  cells. Without it kernel cells run on a loop device over an "
	    "image that\n"
	    "                  schedbench creates (root needed) and removes. It must exist, also\n"
	    "                  when no cell uses it (a fio server's, with --hosts, is not "
	    "checked)\n"
	    "  --engine PATH   the engine .so for embedded cells (embedded:NAME); default: the "
	    "matrix's\n"
	    "                  engine =, else %s\n"
	    "  --repeat N      repetitions of every cell (overrides the matrix's repeat)\n"
	    "  --runtime S     seconds per run (overrides the matrix's runtime; time-based "
	    "unless the\n"
	    "                  matrix says time_based = no)\n"
	    "  --force         run cells again even if they are in the database as ok\n"
	    "  --clock C       real, virtual (embedded cells in the simulator: the same "
	    "policies, block\n"
	    "                  layer and device models in virtual time) or both (overrides "
	    "the matrix)\n"
	    "  --hosts H1,H2   run the cells on fio servers (`fio --server` there; HOST[:PORT], "
	    "port 8765),\n"
	    "                  spread over them through fio --client; a probe job checks each "
	    "first\n"
	    "  --hosts-file F  the same, one HOST[:PORT] [engine=PATH] [dir=PATH] "
	    "[target=DEV]\n"
	    "                  [kernel=RELEASE] per line\n"
	    "  --batch NAME    a named batch of repetitions (a nightly run: --batch "
	    "$(date +%%F)): its\n"
	    "                  repetitions follow every earlier batch's, so nothing is "
	    "overwritten, and\n"
	    "                  running the same batch again resumes it; `report --nightly` "
	    "compares batches\n"
	    "  --experiment N  store under experiment N (default: the matrix's name)\n"
	    "  -n, --dry-run   check the matrix and print the cells, their hashes and "
	    "generated job files\n"
	    "  -h, --help      this text\n"
	    "\n"
	    "Runs are resumable: an interrupted matrix continues where it stopped when run "
	    "again; a runner\n"
	    "killed with SIGKILL is cleaned up after (its fio, scratch files, loop device, "
	    "sysfs values).\n"
	    "\n%s",
	    sb_default_engine(), EXIT_CODES);
}

static void usage_ingest(FILE *f)
{
	fprintf(
	    f,
	    "usage: schedbench ingest FIO_JSON [OPTIONS]\n"
	    "\n"
	    "Stores the output of `fio --output-format=json` (or json+) as one run. Text before "
	    "and after\n"
	    "the JSON object is ignored. The file must be fio's output: a \"fio version\", at "
	    "least one\n"
	    "job with a name, numbers where fio writes numbers, no job error and some I/O; "
	    "otherwise\n"
	    "nothing is stored and the exit status is 2. Ingesting the same JSON again replaces "
	    "it.\n"
	    "\n"
	    "  --db FILE            the database\n"
	    "  -e, --experiment NAME  the experiment to file it under (default: ingest)\n"
	    "  -l, --label AXIS=LABEL  a label of the run (repeatable), e.g. --label sched=cfq\n"
	    "  -h, --help           this text\n"
	    "\n%s",
	    EXIT_CODES);
}

static void usage_status(FILE *f)
{
	fprintf(
	    f,
	    "usage: schedbench status [OPTIONS]\n"
	    "\n"
	    "Runs per experiment and status (ok, failed, interrupted, running). 'running' rows of "
	    "a\n"
	    "runner on this host that is gone are reclaimed first (they become 'interrupted').\n"
	    "A note names ok runs that report leaves out: those of cells the experiment's matrix\n"
	    "no longer expands to (another --runtime, an edited matrix), with what differs.\n"
	    "\n"
	    "  --db FILE            the database\n"
	    "  -e, --experiment NAME  only this experiment (repeatable)\n"
	    "  -h, --help           this text\n"
	    "\n%s",
	    EXIT_CODES);
}

static int bad_usage(const char *cmd, void (*usage)(FILE *))
{
	(void)usage;
	fprintf(stderr, "schedbench %s: try 'schedbench %s --help'\n", cmd, cmd);
	return 2;
}

static sqlite3 *open_existing_db(const char *path)
{
	if (access(path, F_OK)) {
		fprintf(stderr,
			"schedbench: no database %s (nothing has run yet; give --db or set "
			"SCHEDBENCH_DB)\n",
			path);
		return NULL;
	}
	char err[1024];
	sqlite3 *h = db_open(path, err, sizeof(err));
	if (!h)
		fprintf(stderr, "schedbench: %s\n", err);
	return h;
}

static int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {{"db", required_argument, NULL, 'd'},
					     {"experiment", required_argument, NULL, 'e'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	const char *db = NULL;
	struct kvlist exps = {0};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:e:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'e':
			kv_set(&exps, optarg, "");
			break;
		case 'h':
			usage_status(stdout);
			return 0;
		default:
			return bad_usage("status", usage_status);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "schedbench status: unexpected argument '%s'\n", argv[optind]);
		return bad_usage("status", usage_status);
	}
	char *dbpath = sb_db_path(db);
	sqlite3 *h = open_existing_db(dbpath);
	if (!h) {
		free(dbpath);
		kv_free(&exps);
		return 2;
	}
	db_reclaim_stale(h, 1);
	sqlite3_stmt *st;
	sqlite3_prepare_v2(
	    h,
	    "SELECT coalesce(experiment, '(unnamed)'), status, count(*), count(DISTINCT "
	    "cell_hash), "
	    "max(coalesce(ended_at, started_at)) FROM runs GROUP BY 1, 2 ORDER BY 1, 2",
	    -1, &st, NULL);
	/* the experiment column as wide as its longest name (two passes over the rows) */
	int w = (int)strlen("experiment"), rows = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *e = (const char *)sqlite3_column_text(st, 0);
		if ((!exps.n || kv_get(&exps, e)) && (int)strlen(e) > w)
			w = (int)strlen(e);
	}
	sqlite3_reset(st);
	printf("%-*s  %-11s %6s %6s  %s\n", w, "experiment", "status", "runs", "cells", "last");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *e = (const char *)sqlite3_column_text(st, 0);
		if (exps.n && !kv_get(&exps, e))
			continue;
		rows++;
		printf("%-*s  %-11s %6d %6d  %s\n", w, e, sqlite3_column_text(st, 1),
		       sqlite3_column_int(st, 2), sqlite3_column_int(st, 3),
		       sqlite3_column_text(st, 4) ? (const char *)sqlite3_column_text(st, 4) : "");
	}
	sqlite3_finalize(st);
	if (!rows)
		printf("(no runs%s in %s)\n", exps.n ? " of these experiments" : "", dbpath);
	if (sqlite3_prepare_v2(
		h, "SELECT DISTINCT experiment FROM runs WHERE experiment IS NOT NULL ORDER BY 1",
		-1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *e = (const char *)sqlite3_column_text(st, 0);
			if (!exps.n || kv_get(&exps, e))
				db_note_other_cells(h, e);
		}
	}
	sqlite3_finalize(st);
	db_close(h);
	free(dbpath);
	kv_free(&exps);
	return 0;
}

static int cmd_report(int argc, char **argv)
{
	const char *py = getenv("SCHEDBENCH_PYTHON");
	if (!py || !*py)
		py = !access("/usr/bin/python3", X_OK) ? "/usr/bin/python3" : "python3";
	if (!sb_datadir()) {
		fprintf(stderr,
			"schedbench: cannot find scripts/report.py (set SCHEDBENCH_DATADIR)\n");
		return 2;
	}
	char *script = path_join(sb_datadir(), "scripts/report.py");
	char **av = xcalloc((size_t)argc + 2, sizeof(char *));
	int n = 0;
	av[n++] = (char *)py;
	av[n++] = script;
	for (int i = 1; i < argc; i++)
		av[n++] = argv[i];
	av[n] = NULL;
	execvp(py, av);
	fprintf(stderr, "schedbench: cannot run %s %s: %s\n", py, script, strerror(errno));
	return 2;
}

static int main_ingest(int argc, char **argv)
{
	static const struct option opts[] = {{"db", required_argument, NULL, 'd'},
					     {"experiment", required_argument, NULL, 'e'},
					     {"label", required_argument, NULL, 'l'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	struct ingest_opts o = {.experiment = "ingest"};
	int c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:e:l:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o.db = optarg;
			break;
		case 'e':
			o.experiment = optarg;
			break;
		case 'l': {
			const char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg || !eq[1]) {
				fprintf(stderr,
					"schedbench ingest: --label wants AXIS=LABEL, not '%s'\n",
					optarg);
				kv_free(&o.labels);
				return 2;
			}
			char *k = xstrndup(optarg, (size_t)(eq - optarg));
			kv_set(&o.labels, k, eq + 1);
			free(k);
			break;
		}
		case 'h':
			usage_ingest(stdout);
			kv_free(&o.labels);
			return 0;
		default:
			kv_free(&o.labels);
			return bad_usage("ingest", usage_ingest);
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "schedbench ingest: %s\n",
			optind >= argc ? "no FIO_JSON file given" : "one file at a time");
		kv_free(&o.labels);
		return bad_usage("ingest", usage_ingest);
	}
	if (!*o.experiment) {
		fprintf(stderr, "schedbench ingest: empty --experiment\n");
		kv_free(&o.labels);
		return 2;
	}
	o.file = argv[optind];
	rc = cmd_ingest(&o);
	kv_free(&o.labels);
	return rc;
}

static int main_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},      {"target", required_argument, NULL, 't'},
	    {"engine", required_argument, NULL, 'E'},  {"repeat", required_argument, NULL, 'r'},
	    {"runtime", required_argument, NULL, 'R'}, {"force", no_argument, NULL, 'f'},
	    {"dry-run", no_argument, NULL, 'n'},       {"clock", required_argument, NULL, 'c'},
	    {"hosts", required_argument, NULL, 'H'},   {"hosts-file", required_argument, NULL, 'F'},
	    {"batch", required_argument, NULL, 'b'},   {"experiment", required_argument, NULL, 'e'},
	    {"help", no_argument, NULL, 'h'},	       {NULL, 0, NULL, 0}};
	struct run_opts o = {0};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "nh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o.db = optarg;
			break;
		case 't':
			o.target = optarg;
			break;
		case 'E':
			o.engine = optarg;
			break;
		case 'r': {
			char *end;
			long r = strtol(optarg, &end, 10);
			if (!*optarg || *end || r < 1 || r > 100000) {
				fprintf(
				    stderr,
				    "schedbench run: --repeat wants a positive integer, not '%s'\n",
				    optarg);
				return 2;
			}
			o.repeat = (int)r;
			break;
		}
		case 'R':
			if (parse_seconds(optarg) <= 0) {
				fprintf(stderr,
					"schedbench run: --runtime wants seconds (5, 300ms, 2m), "
					"not '%s'\n",
					optarg);
				return 2;
			}
			o.runtime = optarg;
			break;
		case 'f':
			o.force = 1;
			break;
		case 'n':
			o.dry_run = 1;
			break;
		case 'c':
			if (strcmp(optarg, "real") && strcmp(optarg, "virtual") &&
			    strcmp(optarg, "both")) {
				fprintf(stderr,
					"schedbench run: --clock wants real, virtual or both, not "
					"'%s'\n",
					optarg);
				return 2;
			}
			o.clock = optarg;
			break;
		case 'H':
			o.hosts = optarg;
			break;
		case 'F':
			o.hosts_file = optarg;
			break;
		case 'b':
			if (!*optarg || strlen(optarg) > 64 || strpbrk(optarg, "\t\n'\"")) {
				fprintf(stderr,
					"schedbench run: --batch wants a name (1-64 characters, no "
					"quotes), not '%s'\n",
					optarg);
				return 2;
			}
			o.batch = optarg;
			break;
		case 'e':
			if (!*optarg) {
				fprintf(stderr, "schedbench run: empty --experiment\n");
				return 2;
			}
			o.experiment = optarg;
			break;
		case 'h':
			usage_run(stdout);
			return 0;
		default:
			return bad_usage("run", usage_run);
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "schedbench run: no MATRIX file given\n");
		return bad_usage("run", usage_run);
	}
	if (optind < argc - 1) {
		fprintf(stderr, "schedbench run: one matrix at a time (got '%s' and '%s')\n",
			argv[optind], argv[optind + 1]);
		return 2;
	}
	o.matrix = argv[optind];
	setvbuf(stdout, NULL, _IOLBF, 0);
	return cmd_run(&o);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage_main(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		if (argc > 2 && strcmp(cmd, "help") == 0) {
			char *av[] = {argv[2], (char *)"--help", NULL};
			if (!strcmp(argv[2], "run"))
				return main_run(2, av);
			if (!strcmp(argv[2], "ingest"))
				return main_ingest(2, av);
			if (!strcmp(argv[2], "status"))
				return cmd_status(2, av);
			if (!strcmp(argv[2], "report"))
				return cmd_report(2, av);
		}
		usage_main(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		printf("schedbench %s (data: %s, default engine: %s)\n", SCHEDBENCH_VERSION,
		       sb_datadir() ? sb_datadir() : "not found", sb_default_engine());
		return 0;
	}
	/* getopt_long's own messages then say "schedbench run: ..." */
	char **av = xcalloc((size_t)argc, sizeof(char *));
	av[0] = xasprintf("schedbench %s", cmd);
	for (int i = 2; i < argc; i++)
		av[i - 1] = argv[i];
	int rc = -1;
	if (!strcmp(cmd, "run"))
		rc = main_run(argc - 1, av);
	else if (!strcmp(cmd, "ingest"))
		rc = main_ingest(argc - 1, av);
	else if (!strcmp(cmd, "status"))
		rc = cmd_status(argc - 1, av);
	free(av[0]);
	free(av);
	if (rc >= 0)
		return rc;
	if (!strcmp(cmd, "report"))
		return cmd_report(argc - 1, argv + 1);
	fprintf(stderr,
		"schedbench: unknown command '%s' (run, status, report, ingest; try schedbench "
		"--help)\n",
		cmd);
	return 2;
}
