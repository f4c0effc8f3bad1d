"""A/B comparison as mmtests' compare-kernels prints it: per metric and x value, Min, mean (Hmean
for rates, Amean for latencies), Stddev, CoeffVar and Max per configuration, the gain over the
baseline in percent (+ is better, whichever way the metric goes) and a mark from Welch's t-test,
which is only run with at least MIN_REPS repetitions a side."""
import math

from . import ReportError
from .data import METRICS
from .stats import MIN_REPS, cov_pct, fmt, fmt_sig, hmean, mean, stddev, welch


def resolve_baseline(m, want):
    """The configuration a baseline names: exactly, as a substring, or by its labels in any order
    (schedbench's matrix check uses the same rules)."""
    if not m.configs:
        raise ReportError(f"{m.exp['name']}: no configuration to compare", 3)
    if not want:
        return m.configs[0]

    def labels_of(c):
        toks = c.split()
        return set(toks) | {t.split("=", 1)[-1] for t in toks}

    hit = [c for c in m.configs if c == want] or [c for c in m.configs if want in c] or \
        [c for c in m.configs if all(w in labels_of(c) for w in want.split())]
    if not hit:
        raise ReportError(f"baseline '{want}' matches no configuration of {m.exp['name']} "
                          f"({', '.join(repr(c) for c in m.configs)})", 2)
    return hit[0]


def short(c):
    """"sched=kernel-bfq idling=On" -> "kernel-bfq On" (the axis names are in the legend)."""
    toks = c.split()
    return " ".join(t.split("=", 1)[1] for t in toks) if toks and all("=" in t for t in toks) else c


class Comparison:
    def __init__(self):
        self.cols, self.blocks, self.regressions, self.undecided, self.text = [], [], [], [], []
        self.head, self.tail = [], []  # the lines before and after the table (for the HTML)
        self.base = None


def compare(m, baseline=None, metrics=None, alpha=0.05, fail_above=None):
    if len(m.configs) < 2:
        raise ReportError(f"{m.exp['name']}: nothing to compare (one configuration: "
                          f"{m.configs[0] if m.configs else 'none'})", 3)
    for metric in metrics or []:
        if metric not in METRICS:
            raise ReportError(f"unknown metric '{metric}' (choose from {', '.join(METRICS)})", 2)
    base = resolve_baseline(m, baseline if baseline is not None else (m.exp.get("baseline") or ""))
    cmp = Comparison()
    cmp.base = base
    cmp.cols = [base] + [c for c in m.configs if c != base]
    out = cmp.text
    width = 24
    out.append(f"compare: {m.exp['name']} ({m.ddir}), baseline '{base}'"
               + (f" = {m.describe(base)}" if m.describe(base) != base else ""))
    out.append(f"  gain in % over the baseline: + is better (for latencies, lower is better); "
               f"'*' significant in Welch's t-test at alpha {alpha}, ' ' not significant, "
               f"'~' not tested (fewer than {MIN_REPS} repetitions a side), '=' not tested: no variance "
               f"on either side (the runs repeat their figure, as virtual time and rate-limited jobs do), "
               f"the difference is exact")
    legend = [f"{short(c)} = {c}" for c in cmp.cols if short(c) != c]
    if legend:
        out.append("  columns: " + ", ".join(legend))
    cmp.head = list(out)
    out.append(" " * 30 + "".join(f"{short(c)[:width]:>{width + 2}}" for c in cmp.cols))
    for metric in metrics or list(METRICS):
        what, unit, better, rate = METRICS[metric]
        mean_name = "Hmean" if rate else "Amean"
        mean_fn = hmean if rate else mean
        block = {"metric": metric, "title": f"{metric}: {what} in {unit}, "
                 f"{'higher' if better > 0 else 'lower'} is better; mean = "
                 f"{'harmonic mean (a rate)' if rate else 'arithmetic mean'}", "rows": []}
        out.append(f"-- {block['title']}")
        for x in m.xs:
            bv = m.values(base, x, metric)
            for stat in ("Min", mean_name, "Stddev", "CoeffVar", "Max"):
                name = f"{stat:<8} {metric}{'-' + x if x else ''}"
                line = f"{name:<30}"
                cells = []
                for c in cmp.cols:
                    v = m.values(c, x, metric)
                    if not v:
                        line += f"{'-':>{width + 2}}"
                        cells.append(("-", "", ""))
                        continue
                    val = {"Min": min(v), mean_name: mean_fn(v), "Stddev": stddev(v),
                           "CoeffVar": cov_pct(v), "Max": max(v)}[stat]
                    cell, cls, title = (fmt(val) if stat == "CoeffVar" else fmt_sig(val)), "", f"n={len(v)}"
                    if stat == mean_name and bv:
                        bm = mean_fn(bv)
                        gain = 100.0 * (val - bm) / bm * better if bm and c != base else 0.0
                        if c == base:
                            mark = " "
                        elif len(v) < MIN_REPS or len(bv) < MIN_REPS:
                            mark = "~"
                            cmp.undecided.append(f"{metric}{'-' + x if x else ''} {c}: n={len(v)} vs "
                                                 f"baseline n={len(bv)}")
                        elif stddev(v) == 0 and stddev(bv) == 0:
                            # deterministic on both sides: no test to run, the gain is exact
                            mark = "="
                            sig = val != bm
                            title += ", no variance on either side"
                            if sig:
                                cls = "better" if gain > 0 else "worse"
                            if sig and gain < 0 and fail_above is not None and -gain > fail_above:
                                cmp.regressions.append(f"{metric}{'-' + x if x else ''} {c}: {gain:+.2f}% "
                                                       f"(exact: no variance, n={len(v)} vs {len(bv)})")
                        else:
                            _, p = welch(v, bv)
                            sig = not math.isnan(p) and p < alpha
                            mark = "*" if sig else " "
                            title += f", p={p:.4f}" if not math.isnan(p) else ""
                            if sig:
                                cls = "better" if gain > 0 else "worse"
                            if sig and gain < 0 and fail_above is not None and -gain > fail_above:
                                cmp.regressions.append(f"{metric}{'-' + x if x else ''} {c}: {gain:+.2f}% "
                                                       f"(p={p:.4f}, n={len(v)} vs {len(bv)})")
                        cell = f"{fmt_sig(val)} ({gain:+7.2f}%){mark}"
                    line += f"{cell:>{width + 2}}"
                    cells.append((cell, cls, title))
                out.append(line)
                block["rows"].append((name, cells))
        cmp.blocks.append(block)
    n_table = len(out)
    if cmp.undecided:
        out.append(f"not tested (fewer than {MIN_REPS} repetitions a side; run with --repeat {MIN_REPS} or "
                   f"more): " + "; ".join(cmp.undecided[:6]) + (" ..." if len(cmp.undecided) > 6 else ""))
    if cmp.regressions:
        out.append(f"REGRESSION above {fail_above}%:")
        out += ["  " + r for r in cmp.regressions]
    cmp.tail = out[n_table:]
    return cmp
