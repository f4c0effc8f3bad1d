"""The seed threads' own report formats, one module per seed: jobs/<seed>/seed_report.py.

A seed module defines
    FORMAT            the name of its format ("2015"), as matrices say report = 2015
    CITATION          the thread as a reader can find it (list, date, subject, author, archive)
    table(m, out, args)   appends the thread's table, ours beside the published rows, to out
and may define
    published_points(m)   [(config, x, metric, value, note)]: the published numbers in our units,
                          drawn beside ours on the throughput plots
    plots(m, plt, save)   seed-specific figures (save(fig, stem, caption))
    shape(m, out, args)   appends the seed's own figures and verdicts, printed after its table in
                          the text report and in the HTML (lines "verdict PASS: ..." or
                          "verdict FAIL: ..." are marked there)
    claims(m)             the thread's published claims, each judged on this experiment's runs: a
                          list of Claim(text, criterion, published, ours, verdict, why), built with
                          claim() below. text: the claim in the thread's words (short); criterion:
                          what ours must satisfy, decided from the thread (direction and rough size,
                          e.g. "Off/On within 2.58..5.73x"), stated in the line; published: the
                          thread's figure; ours: the same figure from the runs (None when the cells
                          it needs are not in the experiment); verdict: REPRODUCED, NOT REPRODUCED,
                          or NOT MEASURED (cells missing); why: a few words, for a known gap the
                          mechanism as jobs/README.md and docs/fidelity.md state it. The verdict is
                          computed from the runs' results against published.csv, never from which
                          configuration or profile ran. The report prints one line per claim after
                          the seed's table, "verdict REPRODUCED: ...", "verdict NOT REPRODUCED:
                          ..." or "verdict NOT MEASURED: ..." (claim_lines()), marked in the HTML.
Adding a seed adds a directory with its module; nothing here changes.
"""
import csv
import glob
import importlib.util
import os
import re
import sys
from collections import OrderedDict, namedtuple

from . import ROOT


def _load(path):
    name = "seed_" + re.sub(r"[^A-Za-z0-9_]", "_", os.path.basename(os.path.dirname(path)))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.SEED_DIR = os.path.dirname(path)
    return mod


_MODULES = None


def modules():
    """{format: module} of every jobs/*/seed_report.py."""
    global _MODULES
    if _MODULES is None:
        _MODULES = OrderedDict()
        for p in sorted(glob.glob(os.path.join(ROOT, "jobs", "*", "seed_report.py"))):
            try:
                mod = _load(p)
            except Exception as e:  # a broken seed module must not take the others down
                print(f"report: cannot load {p}: {e}", file=sys.stderr)
                continue
            _MODULES[str(mod.FORMAT)] = mod
    return _MODULES


def module_for(fmt):
    from .crosscheck import MODULES as pairs
    return modules().get(str(fmt)) or pairs.get(str(fmt))


def formats():
    from .crosscheck import FORMATS as pairs
    return list(modules()) + ["generic"] + list(pairs)


def guess_format(exp, runs):
    from .crosscheck import FORMATS as pairs
    r = (exp.get("report") or "").strip()  # "generic" is also what a matrix without report = stores
    if r in modules() or r in pairs:
        return r
    for k in modules():
        if k in r:
            return k
    # a run's job file under jobs/<seed>/: that seed's format
    for run in runs:
        parts = (run.job_path or "").replace("\\", "/").split("/")
        if "jobs" in parts:
            i = parts.index("jobs")
            if i + 1 < len(parts):
                for k, mod in modules().items():
                    if os.path.basename(mod.SEED_DIR) == parts[i + 1]:
                        return k
    # an experiment named after a seed (ingested runs: fsync-2009)
    for k in modules():
        if k in exp.get("name", ""):
            return k
    return "generic"


# ---- helpers for the seed modules ----
def published_rows(runs, seed_dir=None):
    """Rows of published.csv next to the experiment's job files (or of the seed's own directory)."""
    seen, rows = set(), []
    dirs = [seed_dir] if seed_dir else []
    for r in runs:
        d = os.path.dirname(r.job_path or "")
        dirs += [d, os.path.join(ROOT, d)]
    for cand in dirs:
        if not cand:
            continue
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
    if not row:
        return None
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


# ---- claims: the thread's published claims judged on our runs (see the docstring) ----
REPRODUCED, NOT_REPRODUCED, NOT_MEASURED = "REPRODUCED", "NOT REPRODUCED", "NOT MEASURED"
VERDICTS = (REPRODUCED, NOT_REPRODUCED, NOT_MEASURED)

Claim = namedtuple("Claim", "text criterion published ours verdict why")


def claim(text, criterion, published, ours, ok, why_ok="", why_not="", why_missing=""):
    """A Claim: ok True -> REPRODUCED (why_ok), False -> NOT REPRODUCED (why_not), None or ours
    None -> NOT MEASURED (why_missing: which cells are missing)."""
    if ours is None or ok is None:
        return Claim(text, criterion, published, None, NOT_MEASURED, why_missing or "the cells it needs are not "
                     "in this experiment")
    return Claim(text, criterion, published, ours, REPRODUCED if ok else NOT_REPRODUCED,
                 why_ok if ok else why_not)


def claim_lines(claims):
    """One line per claim: 'verdict REPRODUCED: <claim> [<criterion>]: published X, ours Y; why'."""
    out = []
    for c in claims:
        ours = "not measured" if c.ours is None else f"ours {c.ours}"
        out.append(f"verdict {c.verdict}: {c.text} [{c.criterion}]: published {c.published}, {ours}" +
                   (f"; {c.why}" if c.why else ""))
    return out


def verdict_class(line):
    """The HTML class of a verdict line (shape's PASS/FAIL, claims' verdicts), '' for other lines."""
    if line.startswith(("verdict PASS", f"verdict {REPRODUCED}:")):
        return "pass"
    if line.startswith(("verdict FAIL", f"verdict {NOT_REPRODUCED}:")):
        return "fail"
    if line.startswith(f"verdict {NOT_MEASURED}:"):
        return "unmeasured"
    return ""


def effect_band(pub):
    """The effect rule of tests/unit/support.c (effect_reproduced()): ours reproduces a published
    ratio when its effect (ratio - 1) is within +-50% of the published effect; below 1% published,
    within 1% of no effect. Returns (lo, hi) for the ratio."""
    e = pub - 1
    if -0.01 < e < 0.01:
        return 0.99, 1.01
    lo, hi = 1 + 0.5 * e, 1 + 1.5 * e
    return (lo, hi) if e > 0 else (hi, lo)


def effect_reproduced(ours, pub):
    lo, hi = effect_band(pub)
    if -0.01 < pub - 1 < 0.01:
        return -0.01 < ours - 1 < 0.01
    return lo <= ours <= hi


def ratio_text(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}x"
