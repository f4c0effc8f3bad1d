"""Nightly comparison: the latest batch of an experiment against the previous one (or a named
batch), configuration by configuration (labels, not cell hashes: a matrix edited between nights
still compares), per metric: each side's mean, the change in % (+ is better, whichever way the
metric goes) and Welch's t-test (it needs MIN_REPS repetitions a side). A change is a regression
when it is significant and worse than --fail-above PCT.

Batches come from `schedbench run MATRIX --batch NAME`: each batch owns its own repetitions, so
a night never overwrites an earlier one and a batch run again resumes.
"""
import math

from . import ReportError
from .data import METRICS, Model, load_runs
from .stats import MIN_REPS, fmt_sig, hmean, mean, stddev, welch


def batches(db, exp):
    """[(name, first_rep, repeat, created_at, n_ok_runs)] in the order they were started."""
    try:
        rows = db.execute("SELECT name, first_rep, repeat, created_at FROM batches WHERE experiment = ? "
                          "ORDER BY first_rep", (exp,)).fetchall()
    except Exception:  # a database before schema v4
        return []
    out = []
    for r in rows:
        n = db.execute("SELECT count(*) FROM runs WHERE experiment = ? AND batch = ? AND status = 'ok'",
                       (exp, r[0])).fetchone()[0]
        out.append((r[0], r[1], r[2], r[3], n))
    return out


def compare_batches(db, exp, against=None, metrics=None, alpha=0.05, fail_above=None):
    """(text lines, regressions, undecided) for one experiment."""
    bs = [b for b in batches(db, exp["name"]) if b[4] > 0]
    if not bs:
        raise ReportError(f"{exp['name']}: no batch with ok runs (run it with schedbench run MATRIX "
                          f"--batch NAME)", 3)
    latest = bs[-1]
    if against:
        prev = [b for b in bs if b[0] == against]
        if not prev:
            raise ReportError(f"{exp['name']}: no batch '{against}' with ok runs (batches: "
                              f"{', '.join(b[0] for b in bs)})", 2)
        prev = prev[0]
        if prev[0] == latest[0]:
            raise ReportError(f"{exp['name']}: --against {against} is the latest batch itself", 2)
    else:
        if len(bs) < 2:
            raise ReportError(f"{exp['name']}: one batch only ({latest[0]}): nothing to compare it with", 3)
        prev = bs[-2]
    ra, rb = load_runs(db, exp["name"], prev[0]), load_runs(db, exp["name"], latest[0])
    x_axis = exp.get("x_axis") or ""
    ma, mb = Model(exp, ra, x_axis), Model(exp, rb, x_axis)
    metrics = metrics or ["iops", "bw", "lat"]
    out = [f"nightly: {exp['name']}: batch '{latest[0]}' ({latest[4]} runs) against '{prev[0]}' "
           f"({prev[4]} runs); + is better; '*' significant (Welch, alpha {alpha}), '~' fewer than "
           f"{MIN_REPS} repetitions a side, '=' no variance on either side (exact, not tested)"]
    head = f"{'configuration':<40} {'metric':<7} {prev[0][:14]:>14} {latest[0][:14]:>14} {'change':>9}  p"
    out += [head, "-" * len(head)]
    regressions, undecided = [], []
    for c in ma.configs:
        if c not in mb.configs:
            continue
        for x in ma.xs:
            for metric in metrics:
                what, unit, better, rate = METRICS[metric]
                va, vb = ma.values(c, x, metric), mb.values(c, x, metric)
                if not va or not vb:
                    continue
                fa, fb = (hmean(va), hmean(vb)) if rate else (mean(va), mean(vb))
                gain = (fb - fa) / fa * 100 * better if fa else float("nan")
                label = (f"{c} {ma.x_axis}={x}" if x else c) or "all"
                if len(va) < MIN_REPS or len(vb) < MIN_REPS:
                    mark, p = "~", float("nan")
                    undecided.append(f"{label} {metric}: n={len(vb)} vs {len(va)}")
                elif stddev(va) == 0 and stddev(vb) == 0:
                    # deterministic on both sides (virtual time): the difference is exact, no test
                    mark, p = "=", float("nan")
                    if gain < 0 and fail_above is not None and -gain > fail_above:
                        regressions.append(f"{label} {metric} ({unit}): {fmt_sig(fa)} -> {fmt_sig(fb)} "
                                           f"({gain:+.2f}%, exact: no variance)")
                else:
                    _, p = welch(vb, va)
                    sig = not math.isnan(p) and p < alpha
                    mark = "*" if sig else " "
                    if sig and gain < 0 and fail_above is not None and -gain > fail_above:
                        regressions.append(f"{label} {metric} ({unit}): {fmt_sig(fa)} -> {fmt_sig(fb)} "
                                           f"({gain:+.2f}%, p={p:.4f})")
                out.append(f"{label[:40]:<40} {metric:<7} {fmt_sig(fa):>14} {fmt_sig(fb):>14} "
                           f"{gain:+8.2f}%{mark} {'' if math.isnan(p) else f'{p:.4f}'}")
    missing = [c for c in ma.configs if c not in mb.configs]
    if missing:
        out.append(f"not in the latest batch: {', '.join(missing[:6])}")
    if regressions:
        out.append(f"REGRESSION above {fail_above}%:")
        out += ["  " + r for r in regressions]
    return out, regressions, undecided
