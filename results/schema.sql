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
--   experiment_cells (v2) the cells of each experiment's matrix as last run: (experiment,
--                cell hash, labels); a cell shared by two matrices runs once and counts for both
--   fio_output   the raw fio JSON of a run (text between the first '{' and the last '}')
--   results      per job x direction (read/write/trim/sync) numbers, extracted from fio_output
--                with json_each/json_extract
--   fio_logs     (v3) fio's own iops/latency/bandwidth logs of the cells that ask for them
-- Views
--   run_results  results of ok runs with their cell columns
--   run_totals   per ok run and direction: all jobs summed (iops, bw) / IO-weighted (latency)
--   job_totals   per ok run, job name and direction (numjobs clones summed)
--   cell_summary per cell and direction across repetitions: n, mean, stddev of iops, bw, latency
--   job_summary  per cell, job name and direction across repetitions
--   sched_stats_runs     (v2) per ok run with the engine's sched_stats: scheduler, depth, request
--                        counts, timer runs, in-flight mean/max, CFQ idle-timer counters
--   sched_stats_jobs     (v2) per run and engine job (fio job clone): counts, bytes, wait, service
--   sched_stats_groups   (v2) per run and scheduling group: weight, bytes, share
--   sched_stats_policy_groups (v2) per run and group: CFQ's slices, slice time, charge, share
--   sched_stats_counters (v2) every number under "policy", "policy_groups", "device_model" and
--                        "tunables", by name (nested keys joined with '.')
--   sched_stats_summary  (v2) per cell across repetitions: means of sched_stats_runs
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

-- version 2
-- The cells of each experiment as its matrix last expanded: a run belongs to the experiment that
-- ran it (runs.experiment), but an identical cell of another matrix (same hash) is not run again,
-- so the reports take an experiment's runs from here, with this experiment's labels.
CREATE TABLE experiment_cells (
	experiment TEXT NOT NULL,
	cell_hash TEXT NOT NULL,
	cell_index INTEGER,
	cell_name TEXT,
	labels TEXT,
	PRIMARY KEY (experiment, cell_hash)
);

-- The engine's sched_stats JSON (runs.sched_stats, embedded cells) as views. Text that is not valid
-- JSON (a run killed while the engine wrote it) gives NULLs, never an error.
CREATE VIEW sched_stats_runs AS
SELECT r.id AS run_id, r.experiment, r.cell_hash, r.cell_name, r.labels, r.repetition,
	json_extract(r.s, '$.sched') AS sched,
	json_extract(r.s, '$.hw_queue_depth') AS hw_queue_depth,
	json_extract(r.s, '$.rotational') AS rotational,
	json_extract(r.s, '$.degraded') AS degraded,
	json_extract(r.s, '$.inserted') AS inserted,
	json_extract(r.s, '$.dispatched') AS dispatched,
	json_extract(r.s, '$.completed') AS completed,
	json_extract(r.s, '$.timer_runs') AS timer_runs,
	json_extract(r.s, '$.max_in_flight') AS max_in_flight,
	json_extract(r.s, '$.inflight_mean') AS inflight_mean,
	json_extract(r.s, '$.nr_requests') AS nr_requests,
	json_extract(r.s, '$.admission_waits') AS admission_waits,
	json_extract(r.s, '$.max_waiting') AS max_waiting,
	(SELECT SUM(json_extract(j.value, '$.wait_ns_total')) / NULLIF(SUM(json_extract(j.value, '$.dispatched')), 0)
	 FROM json_each(r.s, '$.jobs') j) AS wait_ns_mean,
	json_extract(r.s, '$.policy.idle_timer_armed') AS idle_timer_armed,
	json_extract(r.s, '$.policy.group_idle_armed') AS group_idle_armed,
	json_extract(r.s, '$.policy.idle_hits') AS idle_hits,
	json_extract(r.s, '$.policy.idle_timer_fired') AS idle_timer_fired,
	json_extract(r.s, '$.policy.idle_timer_expired') AS idle_timer_expired,
	json_extract(r.s, '$.policy.slices_started') AS slices_started,
	json_extract(r.s, '$.policy.preemptions') AS preemptions,
	json_extract(r.s, '$.policy.iops_mode_charges') AS iops_mode_charges,
	json_extract(r.s, '$.policy.time_mode_charges') AS time_mode_charges,
	json_extract(r.s, '$.policy.iops_mode') AS iops_mode,
	json_extract(r.s, '$.device_model.kind') AS device_model_kind,
	json_extract(r.s, '$.device_model.busy_ns') AS device_busy_ns,
	json_extract(r.s, '$.policy') AS policy,
	json_extract(r.s, '$.device_model') AS device_model,
	json_extract(r.s, '$.tunables') AS tunables
FROM (SELECT *, CASE WHEN json_valid(sched_stats) THEN sched_stats END AS s FROM runs
      WHERE status = 'ok' AND sched_stats IS NOT NULL) r;

CREATE VIEW sched_stats_jobs AS
SELECT r.id AS run_id, r.experiment, r.cell_hash, r.cell_name, r.repetition,
	json_extract(j.value, '$.job') AS job,
	json_extract(j.value, '$.name') AS jobname,
	json_extract(j.value, '$.subjob') AS subjob,
	json_extract(j.value, '$.group') AS sched_group,
	json_extract(j.value, '$.died') AS died,
	json_extract(j.value, '$.inserted') AS inserted,
	json_extract(j.value, '$.dispatched') AS dispatched,
	json_extract(j.value, '$.completed') AS completed,
	json_extract(j.value, '$.bytes') AS bytes,
	json_extract(j.value, '$.wait_ns_mean') AS wait_ns_mean,
	json_extract(j.value, '$.wait_ns_max') AS wait_ns_max,
	json_extract(j.value, '$.service_ns_total') AS service_ns_total
FROM (SELECT *, CASE WHEN json_valid(sched_stats) THEN sched_stats END AS s FROM runs
      WHERE status = 'ok' AND sched_stats IS NOT NULL) r, json_each(r.s, '$.jobs') j;

CREATE VIEW sched_stats_groups AS
SELECT r.id AS run_id, r.experiment, r.cell_hash, r.cell_name, r.repetition,
	json_extract(g.value, '$.group') AS sched_group,
	json_extract(g.value, '$.weight') AS weight,
	json_extract(g.value, '$.bytes') AS bytes,
	json_extract(g.value, '$.share') AS share
FROM (SELECT *, CASE WHEN json_valid(sched_stats) THEN sched_stats END AS s FROM runs
      WHERE status = 'ok' AND sched_stats IS NOT NULL) r, json_each(r.s, '$.groups') g;

-- CFQ's own per-group accounting (policy_groups): slices, slice time, charge, dispatched, share
CREATE VIEW sched_stats_policy_groups AS
SELECT r.id AS run_id, r.experiment, r.cell_hash, r.cell_name, r.repetition,
	g.key AS sched_group,
	json_extract(g.value, '$.slices') AS slices,
	json_extract(g.value, '$.time_ms') AS time_ms,
	json_extract(g.value, '$.charge') AS charge,
	json_extract(g.value, '$.dispatched') AS dispatched,
	json_extract(g.value, '$.sectors') AS sectors,
	json_extract(g.value, '$.share') AS share
FROM (SELECT *, CASE WHEN json_valid(sched_stats) THEN sched_stats END AS s FROM runs
      WHERE status = 'ok' AND sched_stats IS NOT NULL) r, json_each(r.s, '$.policy_groups') g;

-- name: the key within its section, nested keys joined with '.' (e.g. policy_groups: root.share)
CREATE VIEW sched_stats_counters AS
SELECT r.id AS run_id, r.experiment, r.cell_hash, r.cell_name, r.repetition, sec.value AS section,
	CASE WHEN replace(t.path, '"', '') = '$.' || sec.value THEN t.key
	     ELSE substr(replace(t.path, '"', ''), length(sec.value) + 4) || '.' || t.key END AS name,
	t.value AS value
FROM (SELECT *, CASE WHEN json_valid(sched_stats) THEN sched_stats END AS s FROM runs
      WHERE status = 'ok' AND sched_stats IS NOT NULL) r,
	json_each('["policy","policy_groups","device_model","tunables"]') sec,
	json_tree(r.s, '$.' || sec.value) t
WHERE t.type IN ('integer', 'real');

CREATE VIEW sched_stats_summary AS
SELECT experiment, cell_hash, cell_name, labels, COUNT(*) AS n, MAX(sched) AS sched,
	AVG(inflight_mean) AS inflight_mean, MAX(max_in_flight) AS max_in_flight,
	AVG(timer_runs) AS timer_runs, AVG(wait_ns_mean) AS wait_ns_mean,
	AVG(idle_timer_armed) AS idle_timer_armed, AVG(idle_hits) AS idle_hits,
	AVG(idle_timer_expired) AS idle_timer_expired, AVG(slices_started) AS slices_started,
	AVG(admission_waits) AS admission_waits, AVG(device_busy_ns) AS device_busy_ns
FROM sched_stats_runs
GROUP BY cell_hash;

-- version 3
-- Provenance worth keeping: runs.provenance is JSON with the kernel command line, the CPU (model,
-- online CPUs, cpufreq governor and driver), memory, fio (path, version), the engine actually
-- loaded (path, SHA-256 of the .so, its GNU build id and its revision note), schedbench's own
-- version, and the block device under the target (model, vendor, every queue/ setting; for
-- embedded cells on a file too). runs.engine_build_id is the build id alone, for joins.
-- fio_logs holds fio's own logs of cells that ask for them (matrix "logs = iops lat bw", or the
-- fio options write_iops_log/write_lat_log/write_bw_log): one row per log file of a run.
ALTER TABLE runs ADD COLUMN provenance TEXT;
ALTER TABLE runs ADD COLUMN engine_build_id TEXT;

CREATE TABLE fio_logs (
	run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	name TEXT NOT NULL, -- the file as fio wrote it, e.g. sb_iops.3.log
	kind TEXT NOT NULL, -- iops | lat | clat | slat | bw
	job INTEGER,        -- fio's job number in the file name
	text TEXT NOT NULL, -- fio's lines: time (ms), value, direction, block size, offset[, priority]
	PRIMARY KEY (run_id, name)
);

-- version 4
-- Model-backed devices, virtual time, hosts and nightly batches.
--   runs.clock        'real' (fio) or 'virtual' (the simulator, build/schedsim: the same policies,
--                     block layer and device models in virtual time; fio-shaped JSON). NULL: real.
--   runs.device_stats the model-backed device's statistics after a kernel cell of a matrix with
--                     device = model:KIND (`modeldev stats`: requests by op and size, depth, reply
--                     lateness, model_service_mean_us)
--   runs.fio_host     the fio server the run ran on (schedbench run --hosts), as given
--                     (HOST:PORT); NULL for a run on this machine. runs.host is then the server's
--                     own host name as fio reports it, and provenance.remote says what was probed.
--   runs.batch        the batch (schedbench run --batch NAME, e.g. a nightly date) the run belongs
--                     to; NULL outside batches
--   experiments.settings  JSON: device (model:KIND), device_params, device_size, tolerance,
--                     notes ([[regex, explanation], ...]), clock
--   batches           one row per (experiment, batch): the repetitions it owns are first_rep ..
--                     first_rep + repeat - 1, so a batch re-run resumes and a new batch never
--                     overwrites an older one
ALTER TABLE runs ADD COLUMN clock TEXT;
ALTER TABLE runs ADD COLUMN device_stats TEXT;
ALTER TABLE runs ADD COLUMN fio_host TEXT;
ALTER TABLE runs ADD COLUMN batch TEXT;
ALTER TABLE experiments ADD COLUMN settings TEXT;

CREATE TABLE batches (
	experiment TEXT NOT NULL,
	name TEXT NOT NULL,
	first_rep INTEGER NOT NULL,
	repeat INTEGER NOT NULL,
	created_at TEXT,
	PRIMARY KEY (experiment, name)
);
CREATE INDEX runs_batch ON runs (batch);

-- Per kernel cell of a model-backed device: the model's own service time and depth.
CREATE VIEW device_stats_runs AS
SELECT r.id AS run_id, r.experiment, r.cell_hash, r.cell_name, r.labels, r.repetition,
	json_extract(r.device_stats, '$.model') AS model,
	json_extract(r.device_stats, '$.model_service_mean_us') AS model_service_mean_us,
	json_extract(r.device_stats, '$.reply_late_us.mean') AS reply_late_us_mean,
	json_extract(r.device_stats, '$.depth.max_in_model') AS max_in_model,
	json_extract(r.device_stats, '$.depth.fifo_waits') AS fifo_waits,
	json_extract(r.device_stats, '$.requests.read') AS reads,
	json_extract(r.device_stats, '$.requests.write') AS writes
FROM runs r
WHERE r.status = 'ok' AND r.device_stats IS NOT NULL AND json_valid(r.device_stats);
