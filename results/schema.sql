-- schedbench results store (sqlite, WAL).
--
-- Migrations: every "-- version N" block below is applied once, in order, by schedbench (db.c),
-- each in its own BEGIN IMMEDIATE transaction that ends with PRAGMA user_version = N. To change
-- the schema, append a new block; never edit a block that has been released.
--
-- Tables
--   experiments  one row per matrix name: its file, text and report hints (report style, x axis,
--                baseline)
--   runs         one row per cell x repetition: UNIQUE (cell_hash, repetition); provenance, status
--                (running | ok | failed | interrupted), rc, stderr tail, job text, overlays JSON,
--                sysfs state (kernel cells), the engine's sched_stats text (embedded cells)
--   fio_output   the raw fio JSON of a run (text between the first '{' and the last '}')
--   results      per job x direction (read/write/trim/sync) numbers, extracted from fio_output
--                with json_each/json_extract
-- Views
--   run_results  results of ok runs with their cell columns
--   run_totals   per ok run and direction: all jobs summed (iops, bw) / IO-weighted (latency)
--   job_totals   per ok run, job name and direction (numjobs clones summed)
--   cell_summary per cell and direction across repetitions: n, mean, stddev of iops, bw, latency
--   job_summary  per cell, job name and direction across repetitions
-- Units: latencies in ns, bandwidth in KiB/s (fio's "bw"), io in KiB.

-- version 1
CREATE TABLE experiments (
	name TEXT PRIMARY KEY,
	matrix_path TEXT,
	matrix_text TEXT,
	description TEXT,
	report TEXT,
	x_axis TEXT,
	baseline TEXT,
	axes TEXT, -- JSON [{"name":..., "labels":[...]}] in matrix order
	updated_at TEXT
);

CREATE TABLE runs (
	id INTEGER PRIMARY KEY,
	cell_hash TEXT NOT NULL,
	repetition INTEGER NOT NULL,
	experiment TEXT,
	cell_name TEXT,
	labels TEXT, -- JSON {axis: label}
	job_path TEXT,
	job_text TEXT,
	job_hash TEXT,
	generated_job TEXT,
	overlays TEXT, -- JSON: mode, sched, engine, engine_opts, job_opts, iosched, queue, target
	mode TEXT, -- job | embedded | kernel | ingest
	scheduler TEXT,
	target TEXT,
	host TEXT,
	kernel TEXT,
	fio_version TEXT,
	engine_rev TEXT,
	cpu_model TEXT,
	status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed', 'interrupted')),
	owner TEXT, -- host:pid of the runner that holds or held the row
	rc INTEGER,
	stderr_tail TEXT,
	started_at TEXT,
	ended_at TEXT,
	duration_s REAL,
	sysfs_state TEXT,
	sched_stats TEXT,
	UNIQUE (cell_hash, repetition)
);
CREATE INDEX runs_experiment ON runs (experiment, status);

CREATE TABLE fio_output (
	run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
	json TEXT NOT NULL
);

CREATE TABLE results (
	run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	job_index INTEGER NOT NULL,
	jobname TEXT,
	groupid INTEGER,
	ddir TEXT NOT NULL,
	io_kib REAL,
	runtime_ms REAL,
	total_ios INTEGER,
	iops REAL,
	bw_kib REAL,
	lat_mean_ns REAL,
	lat_stddev_ns REAL,
	lat_max_ns REAL,
	clat_mean_ns REAL,
	clat_stddev_ns REAL,
	clat_min_ns REAL,
	clat_max_ns REAL,
	clat_p50_ns REAL,
	clat_p90_ns REAL,
	clat_p95_ns REAL,
	clat_p99_ns REAL,
	clat_p999_ns REAL,
	clat_p9999_ns REAL,
	slat_mean_ns REAL,
	PRIMARY KEY (run_id, job_index, ddir)
);

CREATE VIEW run_results AS
SELECT r.experiment, r.cell_hash, r.cell_name, r.labels, r.repetition, r.mode, r.scheduler, x.*
FROM runs r JOIN results x ON x.run_id = r.id
WHERE r.status = 'ok';

CREATE VIEW run_totals AS
SELECT r.id AS run_id, r.experiment, r.cell_hash, r.cell_name, r.labels, r.repetition, x.ddir,
	COUNT(*) AS jobs,
	SUM(x.iops) AS iops,
	SUM(x.bw_kib) AS bw_kib,
	SUM(x.total_ios) AS total_ios,
	SUM(x.lat_mean_ns * x.total_ios) / NULLIF(SUM(x.total_ios), 0) AS lat_mean_ns,
	MAX(x.lat_stddev_ns) AS lat_stddev_ns_max,
	SUM(x.clat_p50_ns * x.total_ios) / NULLIF(SUM(x.total_ios), 0) AS clat_p50_ns,
	MAX(x.clat_p99_ns) AS clat_p99_ns,
	MAX(x.clat_p999_ns) AS clat_p999_ns,
	MAX(x.lat_max_ns) AS lat_max_ns
FROM runs r JOIN results x ON x.run_id = r.id
WHERE r.status = 'ok'
GROUP BY r.id, x.ddir;

CREATE VIEW job_totals AS
SELECT r.id AS run_id, r.experiment, r.cell_hash, r.cell_name, r.labels, r.repetition, x.jobname, x.ddir,
	COUNT(*) AS clones,
	SUM(x.iops) AS iops,
	SUM(x.bw_kib) AS bw_kib,
	SUM(x.total_ios) AS total_ios,
	SUM(x.lat_mean_ns * x.total_ios) / NULLIF(SUM(x.total_ios), 0) AS lat_mean_ns,
	MAX(x.clat_p99_ns) AS clat_p99_ns
FROM runs r JOIN results x ON x.run_id = r.id
WHERE r.status = 'ok'
GROUP BY r.id, x.jobname, x.ddir;

CREATE VIEW cell_summary AS
SELECT experiment, cell_hash, cell_name, labels, ddir,
	COUNT(*) AS n,
	AVG(iops) AS iops_mean,
	CASE WHEN COUNT(*) > 1 THEN sqrt(max(0.0, (SUM(iops * iops) - SUM(iops) * SUM(iops) / COUNT(*)) / (COUNT(*) - 1))) END AS iops_stddev,
	AVG(bw_kib) AS bw_kib_mean,
	CASE WHEN COUNT(*) > 1 THEN sqrt(max(0.0, (SUM(bw_kib * bw_kib) - SUM(bw_kib) * SUM(bw_kib) / COUNT(*)) / (COUNT(*) - 1))) END AS bw_kib_stddev,
	AVG(lat_mean_ns) AS lat_mean_ns_mean,
	CASE WHEN COUNT(*) > 1 THEN sqrt(max(0.0, (SUM(lat_mean_ns * lat_mean_ns) - SUM(lat_mean_ns) * SUM(lat_mean_ns) / COUNT(*)) / (COUNT(*) - 1))) END AS lat_mean_ns_stddev,
	AVG(clat_p99_ns) AS clat_p99_ns_mean,
	AVG(clat_p999_ns) AS clat_p999_ns_mean
FROM run_totals
GROUP BY cell_hash, ddir;

CREATE VIEW job_summary AS
SELECT experiment, cell_hash, cell_name, labels, jobname, ddir,
	COUNT(*) AS n,
	AVG(iops) AS iops_mean,
	CASE WHEN COUNT(*) > 1 THEN sqrt(max(0.0, (SUM(iops * iops) - SUM(iops) * SUM(iops) / COUNT(*)) / (COUNT(*) - 1))) END AS iops_stddev,
	AVG(bw_kib) AS bw_kib_mean,
	CASE WHEN COUNT(*) > 1 THEN sqrt(max(0.0, (SUM(bw_kib * bw_kib) - SUM(bw_kib) * SUM(bw_kib) / COUNT(*)) / (COUNT(*) - 1))) END AS bw_kib_stddev,
	AVG(lat_mean_ns) AS lat_mean_ns_mean
FROM job_totals
GROUP BY cell_hash, jobname, ddir;
