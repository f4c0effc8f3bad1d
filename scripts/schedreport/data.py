"""Reading schedbench's database: experiments, their ok runs, and runs grouped by configuration."""
import json
import math
import os
import re
import sqlite3
from collections import OrderedDict, defaultdict

from . import ReportError
from .stats import mean

# metric: (what, unit, +1 higher is better / -1 lower is better, is a rate)
METRICS = OrderedDict([
    ("iops", ("IOPS", "IO/s", +1, True)),
    ("bw", ("bandwidth", "KiB/s", +1, True)),
    ("lat", ("mean latency", "ms", -1, False)),
    ("p99", ("p99 completion latency", "ms", -1, False)),
])


def default_db():
    """As schedbench: $SCHEDBENCH_DB, else results/schedengine.db under the current directory."""
    return os.environ.get("SCHEDBENCH_DB") or os.path.join("results", "schedengine.db")


def connect(path):
    if not os.path.exists(path):
        raise ReportError(f"no database {path} (run a matrix first, or give --db / SCHEDBENCH_DB)")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=60)
        db.row_factory = sqlite3.Row
        db.execute("SELECT count(*) FROM runs").fetchone()
    except sqlite3.DatabaseError as e:
        raise ReportError(f"cannot read database {path}: {e} (not a schedbench database?)")
    return db


def table_exists(db, name):
    return db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone() is not None


def experiments(db):
    exps = [dict(r) for r in db.execute("SELECT * FROM experiments ORDER BY name")]
    for e in exps:
        e["settings"] = _json(e.get("settings"), {}) or {}
    known = {e["name"] for e in exps}
    for r in db.execute("SELECT DISTINCT experiment FROM runs WHERE experiment IS NOT NULL ORDER BY 1"):
        if r[0] not in known:
            exps.append({"name": r[0], "report": "generic", "x_axis": "", "baseline": "", "axes": "[]",
                         "description": "", "matrix_path": "", "settings": {}})
    return exps


class Run:
    __slots__ = ("id", "cell_hash", "cell_name", "labels", "rep", "job_path", "job_text", "started",
                 "totals", "jobs", "fio", "prov", "provenance", "sched_stats", "overlays", "duration", "logs",
                 "clock", "device_stats", "fio_host", "batch")


def load_runs(db, exp, batch=None):
    """The experiment's ok runs: those of the cells its matrix last expanded to (experiment_cells,
    with this experiment's labels, also when another matrix ran an identical cell), else (ingested
    runs, databases before schema version 2) the runs stored under its name. With batch: the runs
    of that batch stored under the experiment's name, whatever its matrix is now (a nightly
    series compares configurations by their labels across edits of the matrix)."""
    have = {r[1] for r in db.execute("PRAGMA table_info(runs)")}
    has_prov = "provenance" in have
    v4 = ", ".join(f"r.{c}" if c in have else f"NULL AS {c}" for c in ("clock", "device_stats", "fio_host", "batch"))
    cols = ("r.id, r.cell_hash, {name} AS cell_name, {labels} AS labels, r.repetition, r.job_path, r.job_text, "
            "r.started_at, r.host, r.kernel, r.fio_version, r.engine_rev, r.cpu_model, r.mode, r.scheduler, "
            "r.sched_stats, r.overlays, r.duration_s" + (", r.provenance" if has_prov else ", NULL AS provenance")
            + ", " + v4)
    member = 0
    if batch is not None:
        q = (f"SELECT {cols.format(name='r.cell_name', labels='r.labels')} FROM runs r "
             "WHERE r.experiment = ? AND r.status = 'ok' AND r.batch = ? ORDER BY r.started_at, r.id")
        return _finish_runs(db, [_run_of(r) for r in db.execute(q, (exp, batch))])
    if table_exists(db, "experiment_cells"):
        member = db.execute("SELECT count(*) FROM experiment_cells WHERE experiment = ?", (exp,)).fetchone()[0]
    if member:
        q = (f"SELECT {cols.format(name='c.cell_name', labels='c.labels')} FROM experiment_cells c "
             "JOIN runs r ON r.cell_hash = c.cell_hash WHERE c.experiment = ? AND r.status = 'ok' "
             "ORDER BY r.started_at, r.id")
    else:
        q = (f"SELECT {cols.format(name='r.cell_name', labels='r.labels')} FROM runs r "
             "WHERE r.experiment = ? AND r.status = 'ok' ORDER BY r.started_at, r.id")
    return _finish_runs(db, [_run_of(r) for r in db.execute(q, (exp,))])


# the same queries as schedbench's db_note_other_cells() (schedbench/db.c), so that report and
# status name the left-out runs alike
_OTHER_SQL = (
    "SELECT (SELECT count(*) FROM runs WHERE experiment = ?1 AND status = 'ok' AND "
    "cell_hash NOT IN (SELECT cell_hash FROM experiment_cells WHERE experiment = ?1)), "
    "(SELECT count(DISTINCT cell_hash) FROM runs WHERE experiment = ?1 AND status = 'ok' "
    "AND cell_hash NOT IN (SELECT cell_hash FROM experiment_cells WHERE experiment = ?1)), "
    "(SELECT count(*) FROM experiment_cells WHERE experiment = ?1)")
_PAIR_SQL = (
    "SELECT o.cell_name, o.overlays, n.overlays FROM runs o JOIN experiment_cells c ON "
    "c.experiment = ?1 AND c.cell_name = o.cell_name JOIN runs n ON n.cell_hash = "
    "c.cell_hash WHERE o.experiment = ?1 AND o.status = 'ok' AND o.cell_hash NOT IN "
    "(SELECT cell_hash FROM experiment_cells WHERE experiment = ?1) ORDER BY o.id DESC, "
    "n.id DESC LIMIT 1")
_DIFF_SQL = (
    "SELECT replace(substr(a.fullkey, 3), '\"', ''), a.atom, b.atom FROM json_tree(?1) a "
    "LEFT JOIN json_tree(?2) b ON b.fullkey = a.fullkey WHERE a.type NOT IN ('object', 'array') "
    "AND b.atom IS NOT a.atom UNION ALL SELECT replace(substr(b.fullkey, 3), '\"', ''), "
    "NULL, b.atom FROM json_tree(?2) b WHERE b.type NOT IN ('object', 'array') AND b.fullkey NOT IN "
    "(SELECT fullkey FROM json_tree(?1)) LIMIT 4")


def other_cells_note(db, exp):
    """The ok runs stored under exp's name whose cells are not among those its matrix last expanded
    to (another --runtime, the matrix edited): load_runs() leaves them out. None if there are none,
    else 'N ok runs of M other cells ... : cell X differs in KEY old, now new' as schedbench status
    says it."""
    if not table_exists(db, "experiment_cells"):
        return None
    other, other_cells, members = db.execute(_OTHER_SQL, (exp,)).fetchone()
    if not other or not members:  # without members load_runs() takes every run by name
        return None
    why = "another --runtime, or the matrix edited since"
    try:
        pair = db.execute(_PAIR_SQL, (exp,)).fetchone()
        if pair and pair[1] is not None and pair[2] is not None:
            rows = db.execute(_DIFF_SQL, (pair[1], pair[2])).fetchall()
            diff = "; ".join(f"{k or '?'} {'unset' if o is None else o}, now {'unset' if c is None else c}"
                             for k, o, c in rows[:3]) + ("; ..." if len(rows) > 3 else "")
            if diff:
                why = f"cell {pair[0]} differs in {diff}"
    except sqlite3.DatabaseError:  # bad overlays JSON: the general reason
        pass
    return (f"{other} ok run{'s' if other > 1 else ''} of {other_cells} other cell{'s' if other_cells > 1 else ''} "
            f"left out: {why}")


def _run_of(r):
    run = Run()
    run.id, run.cell_hash, run.cell_name = r["id"], r["cell_hash"], r["cell_name"]
    run.labels = _json(r["labels"], {})
    run.rep, run.job_path, run.job_text, run.started = r["repetition"], r["job_path"], r["job_text"] or "", \
        r["started_at"]
    run.prov = {k: r[k] for k in ("host", "kernel", "fio_version", "engine_rev", "cpu_model", "mode",
                                  "scheduler")}
    run.provenance = _json(r["provenance"], None)
    run.sched_stats = r["sched_stats"]
    run.overlays = _json(r["overlays"], {})
    run.duration = r["duration_s"]
    run.clock = r["clock"] or "real"
    run.device_stats = _json(r["device_stats"], None)
    run.fio_host, run.batch = r["fio_host"], r["batch"]
    run.totals, run.jobs, run.fio, run.logs = {}, [], None, None
    return run


def _finish_runs(db, runs):
    """Each run's per-job results and per-direction totals."""
    byid = {r.id: r for r in runs}
    if not byid:
        return runs
    q = ",".join("?" * len(byid))
    for x in db.execute(f"SELECT * FROM results WHERE run_id IN ({q}) ORDER BY run_id, job_index", list(byid)):
        byid[x["run_id"]].jobs.append(dict(x))
    for run in runs:
        per = defaultdict(list)
        for j in run.jobs:
            per[j["ddir"]].append(j)
        for d, js in per.items():
            n = sum(j["total_ios"] or 0 for j in js) or 1
            m = sum((j["lat_mean_ns"] or 0) * (j["total_ios"] or 0) for j in js) / n
            # pooled within-run latency stddev over all jobs of the run
            var = sum((j["total_ios"] or 0) * ((j["lat_stddev_ns"] or 0) ** 2 + ((j["lat_mean_ns"] or 0) - m) ** 2)
                      for j in js) / n
            run.totals[d] = {
                "iops": sum(j["iops"] or 0 for j in js),
                "bw": sum(j["bw_kib"] or 0 for j in js),
                "lat": m / 1e6,
                "lat_sd": math.sqrt(var) / 1e6,
                "p50": max((j["clat_p50_ns"] or 0) for j in js) / 1e6,
                "p90": max((j["clat_p90_ns"] or 0) for j in js) / 1e6,
                "p95": max((j["clat_p95_ns"] or 0) for j in js) / 1e6,
                "p99": max((j["clat_p99_ns"] or 0) for j in js) / 1e6,
                "p999": max((j["clat_p999_ns"] or 0) for j in js) / 1e6,
                "max": max((j["lat_max_ns"] or 0) for j in js) / 1e6,
                "ios": sum(j["total_ios"] or 0 for j in js),
            }
    return runs


def _json(text, default):
    if not text:
        return default
    try:
        return json.loads(text)
    except ValueError:
        return default


def load_fio(db, runs):
    """fio's JSON of each run (for json+ histograms)."""
    if not runs:
        return
    byid = {r.id: r for r in runs}
    q = ",".join("?" * len(byid))
    for row in db.execute(f"SELECT run_id, json FROM fio_output WHERE run_id IN ({q})", list(byid)):
        byid[row[0]].fio = _json(row[1], None)


def load_logs(db, runs):
    """fio's own logs (schema v3 fio_logs): {kind: {job: [(t_ms, value), ...]}} per run."""
    if not runs or not table_exists(db, "fio_logs"):
        return
    byid = {r.id: r for r in runs}
    q = ",".join("?" * len(byid))
    for row in db.execute(f"SELECT run_id, kind, job, text FROM fio_logs WHERE run_id IN ({q})", list(byid)):
        pts = []
        for line in row[3].splitlines():
            f = line.split(",")
            try:
                pts.append((int(f[0]), float(f[1])))
            except (ValueError, IndexError):
                continue
        run = byid[row[0]]
        if run.logs is None:
            run.logs = {}
        run.logs.setdefault(row[1], {})[row[2]] = pts


def main_ddir(runs):
    ios = defaultdict(int)
    for r in runs:
        for d, t in r.totals.items():
            if d != "sync":
                ios[d] += t["ios"]
    if not ios:
        return "sync" if any("sync" in r.totals for r in runs) else "read"
    return max(ios, key=ios.get)


def is_number(s):
    try:
        float(s)
        return True
    except (TypeError, ValueError):
        return False


class Model:
    """Runs grouped by configuration (the labels of every varying axis but x) and x value."""

    def __init__(self, exp, runs, x_axis):
        self.exp, self.runs = exp, runs
        axes = _json(exp.get("axes"), []) or []
        self.axis_order = [a["name"] for a in axes]
        self.label_order = {a["name"]: a["labels"] for a in axes}
        # what each label stands for: the matrix's tokens (On -> "embedded:cfq slice_idle=8")
        self.tokens = {a["name"]: dict(zip(a["labels"], a.get("tokens") or [])) for a in axes}
        if not self.axis_order and runs:
            self.axis_order = list(runs[0].labels)
        self.x_axis = x_axis if x_axis in self.axis_order else None
        varying = [a for a in self.axis_order if len({r.labels.get(a) for r in runs}) > 1 or
                   len(self.label_order.get(a, [])) > 1]
        self.config_axes = [a for a in varying if a != self.x_axis]
        self.cells = defaultdict(list)  # (config, x) -> [runs]
        for r in runs:
            c = self.config_of(r)
            x = r.labels.get(self.x_axis, "") if self.x_axis else ""
            self.cells[(c, x)].append(r)
        self.configs = sorted({c for c, _ in self.cells}, key=self._config_key)
        self.xs = sorted({x for _, x in self.cells}, key=self._x_key)
        self.ddir = main_ddir(runs)
        self.x_numeric = bool(self.x_axis) and len(self.xs) > 1 and all(is_number(x) for x in self.xs)

    def config_of(self, r):
        parts = [r.labels.get(a, "") for a in self.config_axes]
        if len(self.config_axes) == 1:
            return parts[0]
        return " ".join(f"{a}={v}" for a, v in zip(self.config_axes, parts)) or (r.cell_name or "all")

    def _config_key(self, c):
        for r in self.runs:
            if self.config_of(r) == c:
                return [self.label_order.get(a, []).index(r.labels.get(a)) if r.labels.get(a) in
                        self.label_order.get(a, []) else 999 for a in self.config_axes] + [c]
        return [c]

    def _x_key(self, x):
        if is_number(x):
            return (0, float(x), x)
        order = self.label_order.get(self.x_axis, [])
        return (1, order.index(x) if x in order else 999, x)

    def values(self, config, x, metric, ddir=None):
        ddir = ddir or self.ddir
        return [r.totals[ddir][metric] for r in self.cells.get((config, x), []) if ddir in r.totals]

    def runs_of(self, config):
        return [r for x in self.xs for r in self.cells.get((config, x), [])]

    def describe(self, config):
        """What a configuration is, from the matrix: "On = embedded:cfq slice_idle=8"."""
        some = next(iter(self.runs_of(config)), None)
        if some is None:
            return config
        parts = []
        for a in self.config_axes:
            lab = some.labels.get(a, "")
            tok = self.tokens.get(a, {}).get(lab)
            if tok and tok != lab and not tok.startswith("job:"):
                parts.append(tok)
        if not parts:  # databases before the tokens were stored: the run's overlays
            ov = some.overlays or {}
            if ov.get("mode") in ("embedded", "kernel"):
                parts.append(f"{ov['mode']}:{ov.get('sched') or 'none'}")
            opts = ov.get("engine_opts", {}) if ov.get("mode") == "embedded" else ov.get("iosched", {})
            parts += [f"{k}={v}" for k, v in sorted(opts.items()) if k != "sched"]
        return " ".join(parts)

    def legend(self, config, width=64):
        d = self.describe(config)
        text = f"{config}: {d}" if d and d != config else (config or "all")
        return text if len(text) <= width else text[:width - 1] + "\u2026"


def sanitize(name):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)
