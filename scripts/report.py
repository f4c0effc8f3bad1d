#!/usr/bin/python3
"""schedbench reports: seed-thread tables, A/B comparison, plots, HTML and CSV from the sqlite store.

  report.py [--db DB] [--experiment NAME] [--format auto|2015|2010|2014|2017|2009|generic]
            [--metric iops|bw|lat|p99] [--compare] [--baseline TEXT] [--alpha 0.05] [--fail-above PCT]
            [--csv FILE] [--plots DIR] [--html FILE] [--list]

Exit status: 0, or 1 with --fail-above when a significant regression is larger than PCT percent,
2 on usage errors. Standard library only, except matplotlib for --plots/--html (Debian's
python3-matplotlib); scipy is not needed (Welch's t-test uses our own Student t CDF).
"""
import argparse
import csv
import json
import math
import os
import re
import signal
import sqlite3
import sys
from collections import OrderedDict, defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DB = os.path.join(ROOT, "results", "schedengine.db")


# ---------------------------------------------------------------- statistics
def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def stddev(xs):
    if len(xs) < 2:
        return float("nan")
    m = mean(xs)
    return math.sqrt(max(0.0, sum((x - m) ** 2 for x in xs) / (len(xs) - 1)))


def _betacf(a, b, x):
    """Continued fraction for the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        de = d * c
        h *= de
        if abs(de - 1.0) < 1e-15:
            break
    return h


def betainc(a, b, x):
    """Regularized incomplete beta I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_sf2(t, df):
    """Two-sided p-value of Student's t with df degrees of freedom."""
    if df <= 0 or math.isnan(t):
        return float("nan")
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def welch(xs, ys):
    """Welch's t-test: (t, df, two-sided p). NaN when either side has < 2 samples."""
    n1, n2 = len(xs), len(ys)
    if n1 < 2 or n2 < 2:
        return float("nan"), float("nan"), float("nan")
    m1, m2 = mean(xs), mean(ys)
    v1, v2 = stddev(xs) ** 2, stddev(ys) ** 2
    se2 = v1 / n1 + v2 / n2
    if se2 == 0:
        return (0.0, float("inf"), 1.0) if m1 == m2 else (float("inf"), float("inf"), 0.0)
    t = (m1 - m2) / math.sqrt(se2)
    df = se2 ** 2 / ((v1 / n1) ** 2 / (n1 - 1) + (v2 / n2) ** 2 / (n2 - 1)) if v1 + v2 > 0 else float("inf")
    return t, df, t_sf2(t, df)


def jain(xs):
    xs = [x for x in xs if x is not None]
    if not xs or sum(x * x for x in xs) == 0:
        return float("nan")
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def fmt(v, p=2):
    return "nan" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{p}f}"


# ---------------------------------------------------------------- data
METRICS = OrderedDict([
    ("iops", ("IOPS", +1)),
    ("bw", ("KiB/s", +1)),
    ("lat", ("avg-lat(ms)", -1)),
    ("p99", ("p99-clat(ms)", -1)),
])


class Run:
    __slots__ = ("id", "cell_hash", "cell_name", "labels", "rep", "job_path", "job_text", "started",
                 "totals", "jobs", "fio", "prov", "sched_stats", "overlays", "duration")


def connect(path):
    if not os.path.exists(path):
        sys.exit(f"report: no database {path}")
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=60)
    db.row_factory = sqlite3.Row
    return db


def experiments(db):
    return [dict(r) for r in db.execute("SELECT * FROM experiments ORDER BY name")] + [
        {"name": r[0], "report": "generic", "x_axis": "", "baseline": "", "axes": "[]"}
        for r in db.execute("SELECT DISTINCT experiment FROM runs WHERE experiment NOT IN "
                            "(SELECT name FROM experiments) AND experiment IS NOT NULL")]


def load_runs(db, exp):
    """The experiment's ok runs: those of the cells its matrix last expanded to (experiment_cells,
    with this experiment's labels, also when another matrix ran an identical cell), else (ingested
    runs, databases before schema version 2) the runs stored under its name."""
    runs = []
    cols = ("r.id, r.cell_hash, {name} AS cell_name, {labels} AS labels, r.repetition, r.job_path, r.job_text, "
            "r.started_at, r.host, r.kernel, r.fio_version, r.engine_rev, r.cpu_model, r.mode, r.scheduler, "
            "r.sched_stats, r.overlays, r.duration_s")
    try:
        member = db.execute("SELECT count(*) FROM experiment_cells WHERE experiment = ?", (exp,)).fetchone()[0]
    except sqlite3.OperationalError:
        member = 0
    if member:
        q = (f"SELECT {cols.format(name='c.cell_name', labels='c.labels')} FROM experiment_cells c "
             "JOIN runs r ON r.cell_hash = c.cell_hash WHERE c.experiment = ? AND r.status = 'ok' "
             "ORDER BY r.started_at, r.id")
    else:
        q = (f"SELECT {cols.format(name='r.cell_name', labels='r.labels')} FROM runs r "
             "WHERE r.experiment = ? AND r.status = 'ok' ORDER BY r.started_at, r.id")
    for r in db.execute(q, (exp,)):
        run = Run()
        run.id, run.cell_hash, run.cell_name = r["id"], r["cell_hash"], r["cell_name"]
        run.labels = json.loads(r["labels"] or "{}")
        run.rep, run.job_path, run.job_text, run.started = r["repetition"], r["job_path"], r["job_text"] or "", r["started_at"]
        run.prov = {k: r[k] for k in ("host", "kernel", "fio_version", "engine_rev", "cpu_model", "mode", "scheduler")}
        run.sched_stats = r["sched_stats"]
        try:
            run.overlays = json.loads(r["overlays"] or "{}")
        except ValueError:
            run.overlays = {}
        run.duration = r["duration_s"]
        run.totals, run.jobs, run.fio = {}, [], None
        runs.append(run)
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


def fio_json(db, run_id):
    r = db.execute("SELECT json FROM fio_output WHERE run_id = ?", (run_id,)).fetchone()
    return json.loads(r[0]) if r else None


def main_ddir(runs):
    ios = defaultdict(int)
    for r in runs:
        for d, t in r.totals.items():
            if d != "sync":
                ios[d] += t["ios"]
    if not ios:
        return "sync" if any("sync" in r.totals for r in runs) else "read"
    return max(ios, key=ios.get)


class Model:
    """Runs grouped by configuration (all axes but x) and x value."""

    def __init__(self, exp, runs, x_axis):
        self.exp, self.runs = exp, runs
        axes = json.loads(exp.get("axes") or "[]")
        self.axis_order = [a["name"] for a in axes]
        self.label_order = {a["name"]: a["labels"] for a in axes}
        if not self.axis_order and runs:
            self.axis_order = list(runs[0].labels)
        self.x_axis = x_axis if x_axis in self.axis_order else None
        varying = [a for a in self.axis_order if len({r.labels.get(a) for r in runs}) > 1 or
                   len(self.label_order.get(a, [])) > 1]
        self.config_axes = [a for a in varying if a != self.x_axis]
        self.configs, self.xs = [], []
        self.cells = defaultdict(list)  # (config, x) -> [runs]
        for r in runs:
            c = self.config_of(r)
            x = r.labels.get(self.x_axis, "") if self.x_axis else ""
            self.cells[(c, x)].append(r)
        self.configs = sorted({c for c, _ in self.cells}, key=self._config_key)
        self.xs = sorted({x for _, x in self.cells}, key=self._x_key)
        self.ddir = main_ddir(runs)

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
        try:
            return (0, float(x), x)
        except ValueError:
            order = self.label_order.get(self.x_axis, [])
            return (1, order.index(x) if x in order else 999, x)

    def values(self, config, x, metric, ddir=None):
        ddir = ddir or self.ddir
        return [r.totals[ddir][metric] for r in self.cells.get((config, x), []) if ddir in r.totals]


# ---------------------------------------------------------------- published rows
def published_rows(runs):
    """Rows of jobs/<dir>/published.csv next to the experiment's job files (any header; tolerant)."""
    seen, rows = set(), []
    for r in runs:
        d = os.path.dirname(r.job_path or "")
        for cand in (d, os.path.join(ROOT, d)):
            p = os.path.realpath(os.path.join(cand, "published.csv"))
            if os.path.isfile(p) and p not in seen:
                seen.add(p)
                try:
                    with open(p, newline="") as f:
                        rows += [dict(x, _file=p) for x in csv.DictReader(f)]
                except (OSError, csv.Error) as e:
                    print(f"report: cannot read {p}: {e}", file=sys.stderr)
    jobs = {os.path.basename(r.job_path or "") for r in runs}
    matching = [x for x in rows if not x.get("job_file") or x.get("job_file") in jobs]
    return matching or rows


def col(row, *names):
    """First non-empty column whose name matches one of the names (exact, then substring)."""
    low = {k.lower(): v for k, v in row.items() if k}
    for n in names:
        if low.get(n.lower()) not in (None, ""):
            return low[n.lower()]
    for n in names:
        for k, v in low.items():
            if n.lower() in k and v not in (None, ""):
                return v
    return None


def num(v):
    try:
        return float(re.sub(r"[^0-9.eE+-]", "", v)) if v is not None else None
    except ValueError:
        return None


# ---------------------------------------------------------------- seed-format tables
def _row_2015(label, iops, lat, sd, bw, note=""):
    # the thread's columns: "    On     7054    90.107         38.697     28217KB/s"
    return f"{label:>6}{iops:>9.0f}{lat:>10.3f}{sd:>15.3f}{bw:>10.0f}KB/s{note}"


def _idling_axis(m, values):
    """The configuration axis whose labels are the published first-column values (On/Off)."""
    for a in m.config_axes:
        if set(m.label_order.get(a, [])) & values or {r.labels.get(a) for r in m.runs} & values:
            return a
    return None


def _cell_desc(runs):
    """What our rows ran on: engine/kernel scheduler, device model, runtime, repetitions."""
    ov = runs[0].overlays if runs else {}
    eng = ov.get("engine_opts", {})
    bits = []
    if ov.get("mode") == "embedded":
        bits.append(f"embedded {ov.get('sched') or 'none'}")
        if eng.get("device_model"):
            bits.append(f"device_model={eng['device_model']}")
    elif ov.get("mode") == "kernel":
        bits.append(f"kernel {ov.get('sched')}")
    rt = ov.get("job_opts", {}).get("runtime")
    if rt:
        bits.append(f"runtime {rt}s")
    return ", ".join(bits)


def table_2015(m, out):
    """CFQ idling on SSD (2015): Idling iops avg-lat(ms) stddev bw; ours beside the published rows."""
    line = "-" * 54
    pub = published_rows(m.runs)
    idl_values = {col(p, "idling") for p in pub if col(p, "idling")}
    idl_axis = _idling_axis(m, idl_values) if pub else None
    done = set()
    if pub and idl_axis:
        # one table per published table (one job file each), ours interleaved row by row
        for table in OrderedDict((col(p, "table") or "", 1) for p in pub):
            prow = [p for p in pub if (col(p, "table") or "") == table]
            jf = col(prow[0], "job_file") or ""
            cells = OrderedDict()  # (config, x) of ours on this job file
            for x in m.xs:
                for c in m.configs:
                    rs = [r for r in m.cells.get((c, x), []) if os.path.basename(r.job_path or "") == jf]
                    if rs:
                        cells[(c, x)] = rs
            if not cells:
                continue
            others = [a for a in m.config_axes if a != idl_axis]
            descs = list(OrderedDict((_cell_desc(rs), 1) for rs in cells.values()))
            title = f"{table} ({jf})" if jf else table
            out.append(f"2015 table, {title}; ours: {' | '.join(descs)}")
            out.append("")
            out.append(f"{'Idling':<6}     iops    avg-lat(ms)    stddev            bw")
            out.append(line)
            ratio = {}  # idling label -> [published iops, {other labels: our iops}]
            for p in prow:
                idl = col(p, "idling")
                vals = [num(col(p, "iops")), num(col(p, "avg_lat_ms", "avg_lat")),
                        num(col(p, "stddev_ms", "stddev")), num(col(p, "bw_KBps", "bw"))]
                if None in vals:
                    continue
                out.append(_row_2015(idl, *vals, "   published"))
                ratio.setdefault(idl, [None, {}])[0] = vals[0]
                for (c, x), rs in cells.items():
                    if rs[0].labels.get(idl_axis) != idl:
                        continue
                    done.add((c, x))
                    iops = m.values(c, x, "iops")
                    extra = [f"{a}={rs[0].labels.get(a)}" for a in others
                             if len({v[0].labels.get(a) for v in cells.values()}) > 1]
                    extra += [f"{m.x_axis}={x}"] if x and len({k[1] for k in cells}) > 1 else []
                    cov = 100 * stddev(iops) / mean(iops) if mean(iops) else float("nan")
                    note = f"   ours (n={len(iops)}, iops CoV {fmt(cov, 1)}%{', ' + ' '.join(extra) if extra else ''})"
                    out.append(_row_2015(idl, mean(iops), mean(m.values(c, x, "lat")),
                                         mean(m.values(c, x, "lat_sd")), mean(m.values(c, x, "bw")), note))
                    ratio[idl][1].setdefault(" ".join(extra) or "ours", mean(iops))
            keys = [k for k in ratio if ratio[k][0]]
            if len(keys) == 2:
                a, b = keys
                ours = [f"{g} {ratio[b][1][g] / ratio[a][1][g]:.2f}x" for g in ratio[a][1]
                        if g in ratio[b][1] and ratio[a][1][g]]
                if ours:
                    out.append(f"{b}/{a} iops: published {ratio[b][0] / ratio[a][0]:.2f}x, " + ", ".join(ours))
            out.append("")
    rest = [(c, x) for x in m.xs for c in m.configs if m.cells.get((c, x)) and (c, x) not in done]
    if done and not rest:
        out.append("stddev = fio's latency stddev within a run (as in the thread); n = repetitions, "
                   "CoV = coefficient of variation of iops across them.")
        return
    if pub and not done:
        for table in OrderedDict((col(p, "table") or "", 1) for p in pub):
            out.append(f"published ({table or 'thread'}):\n")
            out.append(f"{'Idling':<6}     iops    avg-lat(ms)    stddev            bw")
            out.append(line)
            for p in pub:
                if (col(p, "table") or "") != table:
                    continue
                vals = [num(col(p, "iops")), num(col(p, "avg_lat_ms", "avg_lat")), num(col(p, "stddev_ms", "stddev")),
                        num(col(p, "bw_KBps", "bw"))]
                if None in vals:
                    continue
                out.append(_row_2015(col(p, "idling", "label", "scheduler") or "?", *vals))
            out.append("")
    # the thread's first column is its one axis ("Idling"); ours is the matrix's configuration axis
    head = "Idling" if not m.config_axes else m.config_axes[0].capitalize() if len(m.config_axes) == 1 else "Config"
    out.append(f"schedbench ({m.exp['name']}, {m.ddir}):\n")
    out.append(f"{head:<6}     iops    avg-lat(ms)    stddev            bw")
    out.append(line)
    notes = []
    for c, x in rest:
        label = c if not x else f"{c} {m.x_axis}={x}"
        iops = m.values(c, x, "iops")
        out.append(_row_2015(label, mean(iops), mean(m.values(c, x, "lat")), mean(m.values(c, x, "lat_sd")),
                             mean(m.values(c, x, "bw"))))
        notes.append(f"{label}: n={len(iops)} iops stddev across runs {fmt(stddev(iops), 1)} "
                     f"(CoV {fmt(100 * stddev(iops) / mean(iops) if mean(iops) else float('nan'))}%)")
    out.append("")
    out.append("stddev = fio's latency stddev within a run (as in the thread); across repetitions:")
    out += ["  " + n for n in notes]


def table_2010(m, out):
    """CFQ group_idle (2010): per configuration, job Set NR test1 test2 (KB/s per group)."""
    pub = published_rows(m.runs)
    groups = sorted({j["jobname"] for r in m.runs for j in r.jobs if j["ddir"] == m.ddir})

    def tunables(r):  # (slice_idle, group_idle) of one of our runs, CFQ defaults when not given
        e = r.overlays.get("engine_opts", {}) if r.overlays.get("mode") == "embedded" else \
            r.overlays.get("iosched", {})
        return (str(e.get("slice_idle", "8")), str(e.get("group_idle", "8")))

    def pub_block(table):
        rows = [f"published: {table}", "=" * max(11, len(table)), "job Set NR test1 test2", "--- --- -- --------------"]
        for p in pub:
            if (col(p, "table") or "") == table:
                rows.append(f"{col(p, 'job', 'workload') or 'bsr'} {col(p, 'set') or 1} "
                            f"{col(p, 'nr_readers_per_group', 'nr') or '?'} {col(p, 'test1_KBps') or '?'} "
                            f"{col(p, 'test2_KBps') or '?'}")
        return rows + [""]

    tables = list(OrderedDict((col(p, "table") or "", 1) for p in pub))
    # a published table goes right before our configuration with the same slice_idle/group_idle
    match = {}
    for t in tables:
        p = next(p for p in pub if (col(p, "table") or "") == t)
        key = (col(p, "slice_idle_ms") or "", col(p, "group_idle_ms") or "")
        for c in m.configs:
            rs = [r for x in m.xs for r in m.cells.get((c, x), [])]
            if rs and tunables(rs[0]) == key and c not in match:
                match[c] = t
                break
    for t in tables:
        if t not in match.values():
            out += pub_block(t)
    job = "bsr" if m.ddir == "read" else "bsw" if m.ddir == "write" else m.ddir
    for c in m.configs:
        if c in match:
            out += pub_block(match[c])
        title = f"schedbench: {c or m.exp['name']}"
        out += [title, "=" * len(title)]
        some = next((r for x in m.xs for r in m.cells.get((c, x), [])), None)
        if some:
            out.append(f"Kernel={some.prov['kernel'].split()[1] if some.prov['kernel'] else '?'} "
                       f"iosched={some.prov['scheduler'] or some.prov['mode']} mode={some.prov['mode']}")
        out += [f"job Set NR {' '.join(groups)}", "--- --- -- " + "-" * 14]
        for x in m.xs:
            for r in sorted(m.cells.get((c, x), []), key=lambda r: r.rep):
                bw = defaultdict(float)
                for j in r.jobs:
                    if j["ddir"] == m.ddir:
                        bw[j["jobname"]] += j["bw_kib"] or 0
                out.append(f"{job} {r.rep} {x or '-'} " + " ".join(f"{bw[g]:.0f}" for g in groups))
        shares = []
        for x in m.xs:
            per = defaultdict(list)
            for r in m.cells.get((c, x), []):
                for g in groups:
                    per[g].append(sum(j["bw_kib"] or 0 for j in r.jobs if j["jobname"] == g and j["ddir"] == m.ddir))
            tot = sum(mean(v) for v in per.values()) or 1
            shares.append(f"NR={x}: " + " ".join(f"{g} {100 * mean(per[g]) / tot:.1f}%" for g in groups) +
                          f" Jain {fmt(jain([mean(per[g]) for g in groups]), 3)}")
        out += ["shares: " + "; ".join(shares), ""]


def _seq_name(m):
    text = m.runs[0].job_text if m.runs else ""
    rw = re.findall(r"^\s*(?:rw|readwrite)\s*=\s*(\w+)", text, re.M)
    kind = "Rand" if rw and rw[-1].startswith("rand") else "Seq"
    return f"{kind}{'Read' if m.ddir == 'read' else 'Write' if m.ddir == 'write' else m.ddir.capitalize()}"


def table_2014(m, out):
    """mmtests compare style (2014): Mean SeqRead-MB/sec-N  value (  pct%) per configuration."""
    if any("read" in r.totals for r in m.runs):
        m.ddir = "read"  # the published rows are the read phase (the job writes its data first)
    pub = published_rows(m.runs)
    pub = [p for p in pub if col(p, "seqread_MBps", "MBps")]
    if pub:
        cols = list(OrderedDict((col(p, "kernel_column", "kernel") or "?", 1) for p in pub))
        out.append("published:")
        out.append(" " * 26 + "".join(f"{c:>22}" for c in cols))
        for nr in OrderedDict((col(p, "nr_threads", "numjobs"), 1) for p in pub):
            cells = {col(p, "kernel_column", "kernel"): num(col(p, "seqread_MBps", "MBps")) for p in pub
                     if col(p, "nr_threads", "numjobs") == nr}
            base = cells.get(cols[0])
            line = f"{'Mean SeqRead-MB/sec-' + str(nr):<26}"
            for c in cols:
                v = cells.get(c)
                pct = 100 * (v - base) / base if v is not None and base else 0.0
                line += f"{fmt(v):>12} ({pct:6.2f}%)" if v is not None else f"{'-':>22}"
            out.append(line)
        out.append("")
    name = _seq_name(m)
    out.append(f"schedbench ({m.exp['name']}):")
    out.append(" " * 26 + "".join(f"{c[:20]:>22}" for c in m.configs))
    base = m.configs[0] if m.configs else None
    for stat, fn in (("Mean", mean), ("Stddev", stddev)):
        for x in m.xs:
            line = f"{stat + ' ' + name + '-MB/sec-' + (x or '1'):<26}"
            bv = fn([v / 1024 for v in m.values(base, x, "bw")])
            for c in m.configs:
                v = fn([v / 1024 for v in m.values(c, x, "bw")])
                pct = 100 * (v - bv) / bv if bv and not math.isnan(bv) and not math.isnan(v) else 0.0
                line += f"{fmt(v):>12} ({pct:6.2f}%)"
            out.append(line)


def table_2017(m, out, metric="bw"):
    """bfq-mq vs cfq (2017): jobs mean stddev per configuration, '&'-separated, legend [i]."""
    pub = published_rows(m.runs)
    if pub:
        for table in OrderedDict((col(p, "table") or "", 1) for p in pub):
            rows = [p for p in pub if (col(p, "table") or "") == table]
            cols = list(OrderedDict((col(p, "published_column") or "?", col(p, "column_legend") or "") for p in rows).items())
            out.append(f"published {table}: {col(rows[0], 'table_title') or ''}")
            out += [f"{c} - {leg}" for c, leg in cols]
            out += ["", "jo " + " ".join(c for c, _ in cols), "bs" + " mean stddev" * len(cols)]
            for nj in OrderedDict((col(p, "numjobs"), 1) for p in rows):
                vals = []
                for c, _ in cols:
                    p = next((p for p in rows if col(p, "numjobs") == nj and col(p, "published_column") == c), None)
                    vals += [col(p, "mean") or "-", col(p, "stddev") or "-"] if p else ["-", "-"]
                out.append(f"{nj} & " + " & ".join(vals))
            out.append("")
    out.append(f"schedbench ({m.exp['name']}, {m.ddir} {METRICS[metric][0]}, across repetitions):")
    out += [f"[{i}] - {c}" for i, c in enumerate(m.configs)]
    out += ["", "jo " + " ".join(f"[{i}]" for i in range(len(m.configs))), "bs" + " mean stddev" * len(m.configs)]
    for x in m.xs:
        vals = []
        for c in m.configs:
            v = m.values(c, x, metric)
            vals += [f"{mean(v):.3f}" if v else "-", f"{stddev(v):.3f}" if len(v) > 1 else "-"]
        out.append(f"{x or '-'} & " + " & ".join(vals))


def table_2009(m, out):
    """fsync-tester (2009): 'fsync time: S' list per configuration, then a summary."""
    published = defaultdict(list)
    for text in {r.job_text for r in m.runs}:
        group = None
        for line in text.splitlines():
            g = re.match(r"^[;#]\s*with (\S+?):\s*$", line)
            if g:
                group = g.group(1)
            t = re.match(r"^[;#].*fsync time:\s*([0-9.]+)", line)
            if t and group:
                published[group].append(float(t.group(1)))
    for g, ts in published.items():
        out.append(f"published, with {g}: n={len(ts)} mean {mean(ts):.4f} s  min {min(ts):.4f}  max {max(ts):.4f}")
    if published:
        out.append("")
    for c in m.configs:
        out.append(f"with {c}:\n")
        times = []
        for x in m.xs:
            for r in m.cells.get((c, x), []):
                times += fsync_times(r)
        for t in times[:200]:
            out.append(f"fsync time: {t:.4f}")
        if len(times) > 200:
            out.append(f"... ({len(times) - 200} more)")
        if times:
            st = sorted(times)
            out.append(f"\nsummary: n={len(times)} mean {mean(times):.4f} s  p50 {st[len(st) // 2]:.4f}  "
                       f"p99 {st[min(len(st) - 1, int(len(st) * 0.99))]:.4f}  max {st[-1]:.4f}")
        else:
            out.append("(no fsync samples: the job needs fsync=N)")
        out.append("")


def fsync_times(run):
    """Individual fsync latencies in seconds, from the json+ histogram bins of the sync direction
    (value order, not time order: fio does not log fsyncs one by one)."""
    times = []
    for j in (run.fio or {}).get("jobs", []):
        bins = j.get("sync", {}).get("lat_ns", {}).get("bins") or {}
        for ns, cnt in sorted(bins.items(), key=lambda kv: int(kv[0])):
            times += [int(ns) / 1e9] * int(cnt)
    if not times:
        t = run.totals.get("sync")
        if t:
            times = [t["lat"] / 1e3]
    return times


def table_generic(m, out):
    out.append(f"{'configuration':<40} {'x':>6} {'n':>3} {'iops':>12} {'sd':>10} {'KiB/s':>12} {'lat(ms)':>9} {'p99(ms)':>9}")
    for x in m.xs:
        for c in m.configs:
            iops = m.values(c, x, "iops")
            if not iops:
                continue
            out.append(f"{c[:40]:<40} {x or '-':>6} {len(iops):>3} {mean(iops):>12.1f} {fmt(stddev(iops), 1):>10} "
                       f"{mean(m.values(c, x, 'bw')):>12.0f} {mean(m.values(c, x, 'lat')):>9.3f} "
                       f"{mean(m.values(c, x, 'p99')):>9.3f}")


FORMATS = {"2015": table_2015, "2010": table_2010, "2014": table_2014, "2017": table_2017, "2009": table_2009,
           "generic": table_generic}


def guess_format(exp, runs):
    r = (exp.get("report") or "").strip()
    for k in FORMATS:
        if k in r:
            return k
    paths = " ".join(x.job_path or "" for x in runs) + " " + exp["name"]
    for k in ("2015", "2010", "2014", "2017", "2009"):
        if k in paths:
            return k
    return "generic"


# ---------------------------------------------------------------- comparison
def compare(m, args, out):
    """mmtests compare-kernels style: per metric Min/Amean/Stddev/CoeffVar/Max, % vs baseline, Welch."""
    base = m.configs[0] if m.configs else None
    want = args.baseline or m.exp.get("baseline") or ""
    if want:
        def labels_of(c):  # "sched=kernel-bfq idling=On" -> the tokens and their label values
            toks = c.split()
            return set(toks) | {t.split("=", 1)[-1] for t in toks}
        hit = [c for c in m.configs if c == want] or [c for c in m.configs if want in c] or \
            [c for c in m.configs if all(w in labels_of(c) for w in want.split())]
        if not hit:
            sys.exit(f"report: baseline '{want}' matches no configuration ({', '.join(m.configs)})")
        base = hit[0]
    others = [c for c in m.configs if c != base]
    cols = [base] + others
    regressions = []
    out.append(f"compare: baseline '{base}', {m.ddir}, Welch's t-test alpha {args.alpha} ('*' = significant)")
    width = 24
    def short(c):  # "sched=kernel-bfq idling=On" -> "kernel-bfq On" (the axis names are in the legend)
        toks = c.split()
        return " ".join(t.split("=", 1)[1] for t in toks) if toks and all("=" in t for t in toks) else c
    if any(short(c) != c for c in cols):
        out.append("columns: " + ", ".join(f"{short(c)} = {c}" for c in cols if short(c) != c))
    out.append(" " * 30 + "".join(f"{short(c)[:width]:>{width + 2}}" for c in cols))
    rows_html = []
    metrics = args.metrics.split(",") if args.metrics else list(METRICS)
    for metric in metrics:
        if metric not in METRICS:
            sys.exit(f"report: unknown metric {metric} ({', '.join(METRICS)})")
        unit, better = METRICS[metric]
        for x in m.xs:
            bv = m.values(base, x, metric)
            for stat in ("Min", "Amean", "Stddev", "CoeffVar", "Max"):
                name = f"{stat:<8} {metric}{'-' + x if x else ''}"
                line = f"{name:<30}"
                hrow = [name]
                for c in cols:
                    v = m.values(c, x, metric)
                    if not v:
                        line += f"{'-':>{width + 2}}"
                        hrow.append(("-", ""))
                        continue
                    val = {"Min": min(v), "Amean": mean(v), "Stddev": stddev(v),
                           "CoeffVar": 100 * stddev(v) / mean(v) if mean(v) else float("nan"), "Max": max(v)}[stat]
                    cell = fmt(val)
                    cls = ""
                    if stat == "Amean" and bv:
                        bm = mean(bv)
                        pct = 100 * (val - bm) / bm if bm else 0.0
                        _, _, p = welch(v, bv)
                        sig = (not math.isnan(p)) and p < args.alpha and c != base
                        cell = f"{fmt(val)} ({pct:+7.2f}%){'*' if sig else ' '}"
                        worse = pct * better < 0
                        if sig:
                            cls = "worse" if worse else "better"
                        if sig and worse and args.fail_above is not None and abs(pct) > args.fail_above:
                            regressions.append(f"{metric}{'-' + x if x else ''} {c}: {pct:+.2f}% (p={p:.4f})")
                    line += f"{cell:>{width + 2}}"
                    hrow.append((cell, cls))
                out.append(line)
                rows_html.append(hrow)
    if regressions:
        out.append("")
        out.append(f"REGRESSION above {args.fail_above}%:")
        out += ["  " + r for r in regressions]
    return cols, rows_html, regressions


# ---------------------------------------------------------------- engine statistics
SCHED_COLS = [  # (header, width, getter over one run's sched_stats dict)
    ("in-flight", 9, lambda d: d.get("inflight_mean")),
    ("max", 4, lambda d: d.get("max_in_flight")),
    ("nr_req", 6, lambda d: d.get("nr_requests")),
    ("adm-waits", 9, lambda d: d.get("admission_waits")),
    ("wait(ms)", 8, lambda d: (sum(j.get("wait_ns_total", 0) for j in d.get("jobs", [])) /
                               (sum(j.get("dispatched", 0) for j in d.get("jobs", [])) or 1)) / 1e6
     if d.get("jobs") else None),
    ("timers", 6, lambda d: d.get("timer_runs")),
    ("idle-arm", 8, lambda d: d.get("policy", {}).get("idle_timer_armed")),
    ("hits", 5, lambda d: d.get("policy", {}).get("idle_hits")),
    ("idle-exp", 8, lambda d: d.get("policy", {}).get("idle_timer_expired")),
    ("slices", 7, lambda d: d.get("policy", {}).get("slices_started")),
    ("iops-mode", 9, lambda d: d.get("policy", {}).get("iops_mode")),
    ("dev-busy(s)", 11, lambda d: d["device_model"]["busy_ns"] / 1e9
     if isinstance(d.get("device_model"), dict) and "busy_ns" in d["device_model"] else None),
]


def _stats(run):
    if not run.sched_stats:
        return None
    try:
        d = json.loads(run.sched_stats)
    except ValueError:
        return None
    return d if isinstance(d, dict) else None


def sched_stats_section(m, out):
    """The engine's sched_stats per configuration (embedded cells): depth, admission, CFQ idling
    counters, device model busy time, and group shares (engine accounting) where there are groups."""
    rows = []
    for x in m.xs:
        for c in m.configs:
            ds = [d for d in (_stats(r) for r in m.cells.get((c, x), [])) if d]
            if ds:
                rows.append(((f"{c} {m.x_axis}={x}" if x else c) or "all", ds))
    if not rows:
        return
    cols = [(h, w, g) for h, w, g in SCHED_COLS if any(g(d) is not None for _, ds in rows for d in ds)]
    lw = max(13, min(40, max(len(label) for label, _ in rows)))
    out.append("")
    out.append("engine sched_stats (embedded cells; mean over repetitions):")
    out.append(f"{'configuration':<{lw}} " + " ".join(f"{h:>{w}}" for h, w, _ in cols))
    shares = []
    for label, ds in rows:
        cells = []
        for h, w, g in cols:
            vs = [g(d) for d in ds if g(d) is not None]
            v = mean([float(x) for x in vs]) if vs else None
            p = 3 if h in ("in-flight", "wait(ms)", "dev-busy(s)") else 0
            cells.append(f"{'-' if v is None else f'{v:.{p}f}':>{w}}")
        out.append(f"{label[:lw]:<{lw}} " + " ".join(cells))
        groups = defaultdict(list)
        for d in ds:
            for g in d.get("groups", []):
                groups[(g.get("group"), g.get("weight"))].append(g.get("share") or 0)
        groups = {k: v for k, v in sorted(groups.items(), key=lambda kv: str(kv[0][0])) if any(v)}
        if len(groups) > 1:
            vals = [mean(v) for v in groups.values()]
            shares.append(f"  {label}: " + " ".join(f"{g} (weight {w}) {100 * mean(v):.1f}%"
                                                   for (g, w), v in groups.items()) +
                          f"  Jain {fmt(jain(vals), 3)}")
    if shares:
        out.append("group shares of bytes (engine accounting):")
        out += shares
    out.append("in-flight = time-weighted device depth; adm-waits = requests that waited for a free request "
               "slot (nr_requests); idle-arm/hits/idle-exp = CFQ idle timer armed / a request came while "
               "idling / the queue expired idle; slices = CFQ slices started.")


# ---------------------------------------------------------------- provenance
def provenance(m, out):
    keys = ("host", "kernel", "fio_version", "engine_rev", "cpu_model")
    per = defaultdict(set)
    for r in m.runs:
        for k in keys:
            per[k].add(r.prov.get(k) or "?")
    for k in keys:
        vals = sorted(per[k])
        out.append(f"{k:<12} {vals[0] if len(vals) == 1 else 'DIFFERS: ' + ' | '.join(vals)}")


# ---------------------------------------------------------------- CSV
def write_csv(m, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["experiment", "configuration", "x_axis", "x", "ddir", "n", "iops_mean", "iops_stddev", "iops_cov_pct",
                    "bw_kib_mean", "bw_kib_stddev", "lat_ms_mean", "lat_ms_stddev", "p99_ms_mean", "p999_ms_mean"])
        for x in m.xs:
            for c in m.configs:
                ddirs = sorted({d for r in m.cells.get((c, x), []) for d in r.totals})
                for d in ddirs:
                    iops = m.values(c, x, "iops", d)
                    if not iops:
                        continue
                    mi = mean(iops)
                    w.writerow([m.exp["name"], c, m.x_axis or "", x, d, len(iops), f"{mi:.3f}", fmt(stddev(iops), 3),
                                fmt(100 * stddev(iops) / mi if mi else float("nan"), 3),
                                f"{mean(m.values(c, x, 'bw', d)):.3f}", fmt(stddev(m.values(c, x, 'bw', d)), 3),
                                f"{mean(m.values(c, x, 'lat', d)):.6f}", fmt(stddev(m.values(c, x, 'lat', d)), 6),
                                f"{mean(m.values(c, x, 'p99', d)):.6f}", f"{mean(m.values(c, x, 'p999', d)):.6f}"])


# ---------------------------------------------------------------- plots
def plots(m, outdir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib not available (apt-get install python3-matplotlib); no plots", file=sys.stderr)
        return []
    os.makedirs(outdir, exist_ok=True)
    made = []
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", m.exp["name"])

    def save(fig, stem):
        for ext in ("png", "svg"):
            p = os.path.join(outdir, f"{name}-{stem}.{ext}")
            fig.savefig(p, dpi=100, bbox_inches="tight")
            made.append(p)
        plt.close(fig)

    # 1. IOPS and bandwidth vs x (numjobs) per configuration, error bars = stddev across runs
    fig, axs = plt.subplots(1, 2, figsize=(11, 4))
    for metric, ax in zip(("iops", "bw"), axs):
        for c in m.configs:
            xs = [x for x in m.xs if m.values(c, x, metric)]
            ys = [mean(m.values(c, x, metric)) for x in xs]
            es = [0 if math.isnan(stddev(m.values(c, x, metric))) else stddev(m.values(c, x, metric)) for x in xs]
            if len(m.xs) > 1:
                ax.errorbar(range(len(xs)), ys, yerr=es, marker="o", capsize=3, label=c or "all")
                ax.set_xticks(range(len(xs)), xs)
                ax.set_xlabel(m.x_axis)
            else:
                ax.bar([c or "all"], ys, yerr=es, capsize=3)
        ax.set_ylabel({"iops": "IOPS", "bw": "bandwidth (KiB/s)"}[metric])
        ax.set_title(f"{m.exp['name']}: {metric} ({m.ddir})")
        ax.grid(alpha=0.3)
        if len(m.xs) > 1:
            ax.legend(fontsize=8)
    save(fig, "throughput")

    # 2. per-group (job name) share of bandwidth
    groups = sorted({j["jobname"] for r in m.runs for j in r.jobs if j["ddir"] == m.ddir})
    if len(groups) > 1:
        bars = [(c, x) for c in m.configs for x in m.xs if m.cells.get((c, x))]
        fig, ax = plt.subplots(figsize=(max(6, len(bars) * 0.8), 4))
        bottom = [0.0] * len(bars)
        for g in groups:
            vals = []
            for c, x in bars:
                per = [sum(j["bw_kib"] or 0 for j in r.jobs if j["ddir"] == m.ddir and j["jobname"] == g) /
                       (sum(j["bw_kib"] or 0 for j in r.jobs if j["ddir"] == m.ddir) or 1) for r in m.cells[(c, x)]]
                vals.append(100 * mean(per))
            ax.bar(range(len(bars)), vals, bottom=bottom, label=g)
            bottom = [b + v for b, v in zip(bottom, vals)]
        ax.set_xticks(range(len(bars)), [f"{c}\n{x}" for c, x in bars], fontsize=7)
        ax.set_ylabel("share of bandwidth (%)")
        ax.set_title(f"{m.exp['name']}: per-job share")
        ax.legend(fontsize=8)
        save(fig, "shares")

    # 3. latency percentiles per configuration
    fig, ax = plt.subplots(figsize=(7, 4))
    pcts = [("p50", 50), ("p90", 90), ("p95", 95), ("p99", 99), ("p999", 99.9)]
    for c in m.configs:
        for x in m.xs:
            if not m.values(c, x, "p50"):
                continue
            ys = [mean(m.values(c, x, k)) for k, _ in pcts]
            ax.plot(range(len(pcts)), ys, marker="o", label=f"{c} {x}".strip() or "all")
    ax.set_xticks(range(len(pcts)), [f"p{p}" for _, p in pcts])
    ax.set_yscale("log")
    ax.set_ylabel("completion latency (ms)")
    ax.set_title(f"{m.exp['name']}: latency percentiles ({m.ddir})")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    save(fig, "latency")

    # 4. fsync latency: per run over wall-clock time, and the distribution of individual fsyncs
    if any("sync" in r.totals for r in m.runs):
        fig, axs = plt.subplots(1, 2, figsize=(11, 4))
        t0 = min(r.started for r in m.runs)
        from datetime import datetime

        def ts(s):
            return datetime.strptime(s[:19], "%Y-%m-%dT%H:%M:%S").timestamp()

        for c in m.configs:
            rs = [r for x in m.xs for r in m.cells.get((c, x), []) if "sync" in r.totals]
            if not rs:
                continue
            axs[0].plot([ts(r.started) - ts(t0) for r in rs], [r.totals["sync"]["lat"] for r in rs], marker="o",
                        label=c or "all")
            times = sorted(t for r in rs for t in fsync_times(r))
            if times:
                axs[1].plot(times, [(i + 1) / len(times) for i in range(len(times))], label=c or "all")
        axs[0].set_xlabel("run start (s)")
        axs[0].set_ylabel("mean fsync latency (ms)")
        axs[0].set_title("fsync latency over time (per run)")
        axs[1].set_xscale("log")
        axs[1].set_xlabel("fsync latency (s)")
        axs[1].set_ylabel("CDF")
        axs[1].set_title("fsync latency distribution")
        for ax in axs:
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
        save(fig, "fsync")
    return made


# ---------------------------------------------------------------- HTML
def html_page(path, sections):
    import html
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>schedbench report</title><style>"
             "body{font-family:sans-serif;margin:2em} pre{background:#f6f6f6;padding:1em;overflow-x:auto}"
             "td,th{padding:2px 8px;font-family:monospace;text-align:right} td.better{background:#cfc}"
             "td.worse{background:#fcc} img{max-width:100%;border:1px solid #ddd;margin:4px}</style></head><body>",
             "<h1>schedbench report</h1>"]
    for s in sections:
        parts.append(f"<h2>{html.escape(s['title'])}</h2>")
        parts.append(f"<pre>{html.escape(s['prov'])}</pre>")
        parts.append(f"<pre>{html.escape(s['table'])}</pre>")
        if s.get("compare"):
            cols, rows = s["compare"]
            parts.append("<table><tr><th></th>" + "".join(f"<th>{html.escape(c)}</th>" for c in cols) + "</tr>")
            for r in rows:
                parts.append(f"<tr><th style='text-align:left'>{html.escape(r[0])}</th>" +
                             "".join(f"<td class='{cls}'>{html.escape(v)}</td>" for v, cls in r[1:]) + "</tr>")
            parts.append("</table>")
        for img in s.get("images", []):
            if img.endswith(".png"):
                rel = os.path.relpath(img, os.path.dirname(os.path.abspath(path)))
                parts.append(f"<a href='{html.escape(rel[:-4])}.svg'><img src='{html.escape(rel)}'></a>")
    parts.append("</body></html>")
    with open(path, "w") as f:
        f.write("\n".join(parts))


# ---------------------------------------------------------------- main
def main(argv=None):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", default=DEFAULT_DB)
    ap.add_argument("--experiment", "-e", action="append", help="experiment name (default: all)")
    ap.add_argument("--format", default="auto", choices=["auto"] + list(FORMATS))
    ap.add_argument("--x-axis", help="axis for rows / the x of plots (default: the matrix's x_axis)")
    ap.add_argument("--metric", default="bw", choices=list(METRICS), help="metric of the 2017 table")
    ap.add_argument("--compare", action="store_true", help="A/B comparison against a baseline")
    ap.add_argument("--baseline", help="baseline configuration (exact or substring)")
    ap.add_argument("--metrics", help="metrics to compare, comma separated (iops,bw,lat,p99)")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--fail-above", type=float, metavar="PCT",
                    help="exit 1 if a significant regression exceeds PCT percent (implies --compare)")
    ap.add_argument("--csv", help="write the per-cell summary as CSV (one file; experiments appended)")
    ap.add_argument("--plots", metavar="DIR", help="write PNG and SVG plots into DIR")
    ap.add_argument("--html", metavar="FILE", help="write one HTML page (plots go next to it)")
    ap.add_argument("--list", action="store_true", help="list experiments")
    args = ap.parse_args(argv)
    if args.fail_above is not None:
        args.compare = True
    db = connect(args.db)
    exps = experiments(db)
    if args.list:
        for e in exps:
            n = len(load_runs(db, e["name"]))
            print(f"{e['name']:<40} {n:>5} ok runs  report={e.get('report') or 'generic'}")
        return 0
    if args.experiment:
        exps = [e for e in exps if e["name"] in args.experiment]
        if not exps:
            sys.exit(f"report: no experiment {args.experiment} in {args.db} (try --list)")
    sections, failed, first_csv = [], False, True
    for e in exps:
        runs = load_runs(db, e["name"])
        if not runs:
            print(f"== {e['name']}: no successful runs\n")
            continue
        for r in runs:
            r.fio = fio_json(db, r.id) if any(j["ddir"] == "sync" for j in r.jobs) else None
        m = Model(e, runs, args.x_axis or e.get("x_axis") or "")
        fmtname = guess_format(e, runs) if args.format == "auto" else args.format
        out = [f"== {e['name']} ({fmtname} format; {len(runs)} runs, {len(m.configs)} configurations)"]
        prov = []
        provenance(m, prov)
        body = []
        if fmtname == "2017":
            table_2017(m, body, args.metric)
        else:
            FORMATS[fmtname](m, body)
        sched_stats_section(m, body)
        cmp = None
        if args.compare and len(m.configs) > 1:
            body.append("")
            cols, rows, regs = compare(m, args, body)
            cmp = (cols, rows)
            failed |= bool(regs)
        print("\n".join(out + prov + [""] + body) + "\n")
        if args.csv:
            if first_csv:
                write_csv(m, args.csv)
                first_csv = False
            else:
                tmp = args.csv + ".part"
                write_csv(m, tmp)
                with open(tmp) as f, open(args.csv, "a") as g:
                    g.writelines(f.readlines()[1:])
                os.remove(tmp)
        images = []
        pdir = args.plots or (os.path.join(os.path.dirname(os.path.abspath(args.html)), "plots") if args.html else None)
        if pdir:
            images = plots(m, pdir)
        sections.append({"title": out[0].lstrip("= "), "prov": "\n".join(prov), "table": "\n".join(body),
                         "compare": cmp, "images": images})
    if args.html:
        html_page(args.html, sections)
        print(f"wrote {args.html}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
