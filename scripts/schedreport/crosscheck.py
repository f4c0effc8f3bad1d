"""Side-by-side reports of cells that differ in one axis only:

crosscheck  the kernel's scheduler against the embedded one on the same model-backed device (a
            matrix with `device = model:KIND`): the cells differ only in the axis whose
            alternatives hold kernel:NAME and embedded:NAME
crosscheck-p99  crosscheck with the p99 completion latency beside the mean: read rows are ok
            only when their p99 is within the tolerance too (`report = crosscheck-p99`; kyber's
            matrices, whose scheduler decides by a p99)
agreement   the same embedded cell in real time (fio) and in virtual time (the simulator): the
            cells differ only in the axis `clock` (`schedbench run --clock both`)

One row per configuration, job and direction: both sides' IOPS and mean latency (means over the
repetitions; numjobs clones summed, latency weighted by I/Os), the difference, and the verdict:
"ok" within the tolerance (the matrix's `tolerance`, default 15% for crosscheck, 10% for
agreement, or --tolerance), else the named mechanism of the first matrix [notes] entry whose regex
matches "configuration job.dir", else DIFF. Crosscheck rows also give the model's mean service
time of the kernel side's requests (the device's own statistics).
"""
import re
from collections import OrderedDict, defaultdict

from .stats import mean

FORMATS = ("crosscheck", "crosscheck-p99", "agreement")


def _sides(m, kind):
    """(pair axis, side A name, predicate, side B name, predicate)."""
    if kind == "agreement":
        return ("clock", "real", lambda r: r.clock != "virtual", "virtual", lambda r: r.clock == "virtual")
    axes = [a for a in m.axis_order
            if any(t.startswith(("kernel:", "embedded:")) for tok in m.tokens.get(a, {}).values()
                   for t in tok.split())]
    axis = axes[0] if axes else None
    return (axis, "kernel", lambda r: r.overlays.get("mode") == "kernel",
            "embedded", lambda r: r.overlays.get("mode") == "embedded")


def _job_metrics(run):
    """{(jobname, ddir): (iops, lat_ns, p99_ns)}: clones summed, latency weighted by I/Os, the p99
    the clones' largest (as the report's percentiles)."""
    acc = defaultdict(lambda: [0.0, 0.0, 0, None])
    for j in run.jobs:
        if j["ddir"] not in ("read", "write", "sync") or not j["total_ios"]:
            continue
        a = acc[(j["jobname"], j["ddir"])]
        a[0] += j["iops"] or 0
        a[1] += (j["lat_mean_ns"] or 0) * j["total_ios"]
        a[2] += j["total_ios"]
        p99 = j["clat_p99_ns"] if "clat_p99_ns" in j.keys() else None
        if p99 is not None:
            a[3] = p99 if a[3] is None else max(a[3], p99)
    return {k: (v[0], v[1] / v[2] if v[2] else None, v[3]) for k, v in acc.items()}


def _pct(a, b):
    return (b / a - 1) * 100 if a and b is not None else None


def rows(m, kind, tolerance=None):
    """The pairs: [{config, job, dir, a: {iops, lat, n}, b: {...}, diff_iops, diff_lat, verdict,
    note, svc_us}]."""
    axis, na, pa, nb, pb = _sides(m, kind)
    settings = m.exp.get("settings") or {}
    tol = tolerance if tolerance is not None else (settings.get("tolerance") or (10 if kind == "agreement" else 15))
    notes = [(n[0], n[1]) for n in settings.get("notes") or []]
    groups = OrderedDict()
    order = m.axis_order
    for r in sorted(m.runs, key=lambda r: [m.label_order.get(a, []).index(r.labels.get(a))
                                           if r.labels.get(a) in m.label_order.get(a, []) else 999
                                           for a in order]):
        key = tuple((a, r.labels.get(a)) for a in order if a != axis and len(m.label_order.get(a, [])) > 1)
        g = groups.setdefault(key, {"a": [], "b": []})
        if pa(r):
            g["a"].append(r)
        elif pb(r):
            g["b"].append(r)
    out = []
    for key, g in groups.items():
        conf = " ".join(f"{a}={l}" for a, l in key) or "all"
        ma = [_job_metrics(r) for r in g["a"]]
        mb = [_job_metrics(r) for r in g["b"]]
        jobs = sorted({k for d in ma + mb for k in d}, key=lambda k: (k[1] == "sync", k[0], k[1]))
        svc = [r.device_stats.get("model_service_mean_us") for r in g["a"]
               if isinstance(r.device_stats, dict) and r.device_stats.get("model_service_mean_us") is not None]
        for jd in jobs:
            row = {"config": conf, "job": jd[0], "dir": jd[1], "sides": (na, nb)}
            for side, ms in (("a", ma), ("b", mb)):
                vals = [d[jd] for d in ms if jd in d]
                if vals and side == "a" and kind == "agreement":
                    # real time: the best repetition (other load on the machine only ever slows a
                    # repetition down; the simulator has no such noise)
                    best = max(vals, key=lambda v: (v[0], -(v[1] or 0)) if jd[1] != "sync"
                               else (-(v[1] or 0), v[0]))
                    row[side] = {"iops": best[0], "lat": best[1], "p99": best[2], "n": len(vals)}
                    continue
                p99s = [v[2] for v in vals if v[2] is not None]
                row[side] = {"iops": mean([v[0] for v in vals]), "lat": mean([v[1] for v in vals]),
                             "p99": mean(p99s) if p99s else None, "n": len(vals)} if vals else None
            row["svc_us"] = mean(svc) if svc else None
            if row["a"] and row["b"]:
                row["diff_iops"] = _pct(row["a"]["iops"], row["b"]["iops"])
                row["diff_lat"] = _pct(row["a"]["lat"], row["b"]["lat"])
                row["diff_p99"] = _pct(row["a"]["p99"], row["b"]["p99"])
                # fsync (sync) rows: the latency is the figure; IOPS of syncs follow the writes
                checked = [row["diff_lat"]] if jd[1] == "sync" else [row["diff_iops"], row["diff_lat"]]
                if kind == "crosscheck-p99" and jd[1] == "read":
                    checked.append(row["diff_p99"])
                ok = all(x is not None and abs(x) <= tol for x in checked)
                row["verdict"] = "ok" if ok else "DIFF"
                if not ok:
                    text = f"{conf} {jd[0]}.{jd[1]}"
                    for pat, why in notes:
                        if re.search(pat, text):
                            row["verdict"], row["note"] = f"note:{pat}", why
                            break
            else:
                row["diff_iops"] = row["diff_lat"] = None
                row["verdict"] = "n/a"
            out.append(row)
    return out, tol, axis


def _num(v, ms=False):
    if v is None or v != v:
        return "-"
    if ms:
        v = v / 1e6
        return f"{v:.3f}" if v < 10 else f"{v:.1f}"
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}"


def table(m, out, args=None, kind="crosscheck"):
    tolerance = getattr(args, "tolerance", None) if args else None
    rs, tol, axis = rows(m, kind, tolerance)
    settings = m.exp.get("settings") or {}
    na, nb = ("real", "virtual") if kind == "agreement" else ("kernel", "embedded")
    xc = kind.startswith("crosscheck")
    p99 = kind == "crosscheck-p99"
    if xc:
        dev = settings.get("device") or "(no device = model:)"
        params = " ".join(f"{k}={v}" for k, v in (settings.get("device_params") or {}).items())
        out.append(f"crosscheck: {m.exp['name']}: kernel vs embedded on {dev}"
                   f"{' (' + params + ')' if params else ''}"
                   f"{', size ' + settings['device_size'] if settings.get('device_size') else ''}; "
                   f"pairs differ in axis '{axis or '?'}'; verdict: IOPS and mean latency"
                   f"{' (reads: and p99)' if p99 else ''} within {tol:g}%")
    else:
        out.append(f"agreement: {m.exp['name']}: real time (fio) vs virtual time (the simulator), "
                   f"same cells; verdict: IOPS and mean latency within {tol:g}% (fsync rows: latency)")
        out.append("real: the best repetition of each cell (other load on the machine only ever slows "
                   "one down); virtual: the mean")
    w = max([24] + [len(r["config"]) for r in rs])
    w = min(w, 46)
    jw = max([10] + [len(r["job"]) + len(r["dir"]) + 1 for r in rs])
    jw = min(jw, 22)
    sw = 27 if p99 else 18
    head = (f"{'configuration':<{w}} {'job.dir':<{jw}} {na:>{sw}} {nb:>{sw}} {'diff':>{24 if p99 else 16}}"
            + (f" {'model':>9}" if xc else "") + "  verdict")
    side = f"{'IOPS':>9}{'lat ms':>9}" + (f"{'p99 ms':>9}" if p99 else "")
    sub = (f"{'':<{w}} {'':<{jw}} {side} {side} {'IOPS':>8}{'lat':>8}" + (f"{'p99':>8}" if p99 else "")
           + (f" {'svc ms':>9}" if xc else ""))
    out += [head, sub, "-" * len(head)]

    def pct(x):
        return f"{x:+.1f}%" if x is not None else "-"

    for r in rs:
        a, b = r["a"] or {}, r["b"] or {}
        v = r["verdict"]
        if v == "n/a":
            v = f"n/a (no {na} run)" if not r["a"] else f"n/a (no {nb} run)"
        line = f"{r['config'][:w]:<{w}} {(r['job'] + '.' + r['dir'])[:jw]:<{jw}} "
        for x in (a, b):
            line += f"{_num(x.get('iops')):>9}{_num(x.get('lat'), True):>9}"
            line += f"{_num(x.get('p99'), True):>9}" if p99 else ""
            line += " "
        line += f"{pct(r.get('diff_iops')):>8}{pct(r.get('diff_lat')):>8}"
        line += f"{pct(r.get('diff_p99')):>8}" if p99 else ""
        if xc:
            line += f" {_num(r['svc_us'] * 1000 if r.get('svc_us') is not None else None, True):>9}"
        out.append(line + "  " + v)
    noted = OrderedDict((r["verdict"][5:], r["note"]) for r in rs if r["verdict"].startswith("note:"))
    if noted:
        out.append("")
        out.append("named mechanisms (the matrix's [notes], for the rows outside the tolerance):")
        for pat, why in noted.items():
            out.append(f"  {pat}: {why}")
    n_ok = sum(r["verdict"] == "ok" for r in rs)
    n_note = len([r for r in rs if r["verdict"].startswith("note:")])
    n_diff = sum(r["verdict"] == "DIFF" for r in rs)
    n_na = sum(r["verdict"] == "n/a" for r in rs)
    if xc:
        out.append("model svc ms: the mean time the kernel side's requests spent in the model (the "
                   "device's statistics); kernel latency minus it is the FUSE+loop path and fio.")
    if p99:
        out.append("p99: fio's completion-latency p99 (a job's clones: the largest), the mean over "
                   "repetitions; checked on read rows.")
    out.append(f"{n_ok} of {len(rs) - n_na} compared rows within {tol:g}%, {n_note} differ by a named "
               f"mechanism, {n_diff} DIFF{f'; {n_na} without both sides' if n_na else ''}")
    return rs


class _Fmt:
    """A report format object (like a seed module) for each kind."""

    def __init__(self, kind):
        self.FORMAT = kind
        self.CITATION = ""
        self.kind = kind

    def table(self, m, out, args=None):
        return table(m, out, args, self.kind)


MODULES = {k: _Fmt(k) for k in FORMATS}
