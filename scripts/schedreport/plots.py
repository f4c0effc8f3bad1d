"""Plots a performance engineer would put in a mail: grouped bars for categorical axes, lines for
numeric ones, the published values beside ours and labelled, error bars from the repetitions,
latency percentiles and CDFs from fio's json+ histograms, IOPS and latency over time from fio's
own logs, readable ticks, and titles that say what each configuration is."""
import json
import math
import os
import statistics
import sys
from collections import defaultdict

from .data import METRICS, sanitize
from .stats import hmean, mean, percentile_from_bins, stddev

PCTS = [(50, "p50"), (90, "p90"), (99, "p99"), (99.9, "p99.9"), (99.99, "p99.99")]
MAX_LINES = 12


def human(v):
    """1234 -> 1.23k, 29255 -> 29.3k, 0.0123 -> 0.0123."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    a = abs(v)
    for div, suf in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if a >= div:
            x = v / div
            return f"{x:.3g}{suf}"
    return f"{v:.3g}"


class Plotter:
    def __init__(self, m, outdir, seedmod=None):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib import ticker
        self.plt, self.ticker = plt, ticker
        plt.rcParams.update({"font.size": 10, "axes.titlesize": 11, "legend.fontsize": 8,
                             "figure.dpi": 100, "axes.grid": True, "grid.alpha": 0.3})
        self.m, self.outdir, self.seedmod = m, outdir, seedmod
        self.name = sanitize(m.exp["name"])
        self.made = []  # (png, svg, caption)
        colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        self.color = {c: colors[i % len(colors)] for i, c in enumerate(m.configs)}
        os.makedirs(outdir, exist_ok=True)

    def save(self, fig, stem, caption=""):
        """PNG and SVG, and a JSON manifest of what the figure shows (kinds, series, tick labels as
        drawn) for readers who cannot see it and for the tests."""
        fig.canvas.draw()
        manifest = {"title": fig._suptitle.get_text() if fig._suptitle else "", "caption": caption, "axes": []}
        for ax in fig.axes:
            def shown(labels, lim):
                lo, hi = min(lim), max(lim)
                return [t.get_text() for t in labels if t.get_text() and
                        lo - 1e-9 * abs(lo) <= (t.get_position()[0] if labels is xl else t.get_position()[1]) <= hi + 1e-9 * abs(hi)]
            xl, yl = ax.get_xticklabels(), ax.get_yticklabels()
            handles, labels = ax.get_legend_handles_labels()
            bars = [p for p in ax.patches if p.get_height() != 0 and p.get_width() > 0]
            # data lines (error bar caps are markers without a line)
            lines = [ln for ln in ax.lines if len(ln.get_xdata()) > 1 and ln.get_linestyle() not in ("None", "")]
            manifest["axes"].append({
                "title": ax.get_title(), "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(),
                "xscale": ax.get_xscale(), "yscale": ax.get_yscale(),
                "kind": "bars" if bars else "lines" if lines else "empty", "bars": len(bars), "lines": len(lines),
                "errorbars": sum(1 for c in ax.containers if getattr(c, "has_yerr", False) or
                                 getattr(c, "errorbar", None) is not None),
                "xticklabels": shown(xl, ax.get_xlim()), "yticklabels": shown(yl, ax.get_ylim()),
                "series": labels,
                "annotations": [t.get_text() for t in ax.texts],
            })
        for lg in fig.legends:
            manifest.setdefault("legend", []).extend(t.get_text() for t in lg.get_texts())
        paths = []
        for ext in ("png", "svg"):
            p = os.path.join(self.outdir, f"{self.name}-{stem}.{ext}")
            fig.savefig(p, dpi=110, bbox_inches="tight")
            paths.append(p)
        with open(os.path.join(self.outdir, f"{self.name}-{stem}.json"), "w") as f:
            json.dump(manifest, f, indent=1)
        self.plt.close(fig)
        self.made.append((paths[0], paths[1], caption))

    def definitions(self):
        """"On = embedded:cfq slice_idle=8; Off = ..." for captions."""
        m = self.m
        return "; ".join(f"{c or 'all'} = {m.describe(c)}" for c in m.configs if m.describe(c) and m.describe(c) != c)

    def log_axis(self, ax, lo, hi, axis="y"):
        """Log scale only where the data spans a decade or more, with ticks at 1, 2, 5 x 10^k (at
        10^k alone beyond three decades, where 1-2-5 labels run into each other)."""
        t = self.ticker
        a = ax.yaxis if axis == "y" else ax.xaxis
        if lo > 0 and hi / lo >= 10:
            (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
            subs = (1.0, 2.0, 5.0) if hi / lo <= 1e3 else (1.0,)
            a.set_major_locator(t.LogLocator(base=10, subs=subs))
            a.set_major_formatter(t.FuncFormatter(lambda v, _: f"{v:g}"))
            a.set_minor_formatter(t.NullFormatter())
        else:
            a.set_major_locator(t.MaxNLocator(nbins=8))
            a.set_major_formatter(t.FuncFormatter(lambda v, _: f"{v:g}"))

    # ---- 1. throughput: ours and the published values, grouped bars or lines ----
    def throughput(self):
        m, plt = self.m, self.plt
        pub = defaultdict(dict)  # (config, x, metric) -> (value, note)
        if self.seedmod and hasattr(self.seedmod, "published_points"):
            try:
                for c, x, metric, v, note in self.seedmod.published_points(m):
                    pub[(c, x, metric)] = (v, note)
            except Exception as e:  # the seed's own code: say so, draw ours anyway
                print(f"report: {m.exp['name']}: published values not drawn: {e}", file=sys.stderr)
        metrics = [k for k in ("iops", "bw") if any(m.values(c, x, k) for c in m.configs for x in m.xs)]
        if not metrics:
            return
        n = max((len(m.values(c, x, metrics[0])) for c in m.configs for x in m.xs), default=0)
        fig, axs = plt.subplots(1, len(metrics), figsize=(7.2 * len(metrics), 4.8), squeeze=False)
        for metric, ax in zip(metrics, axs[0]):
            what, unit, _, _ = METRICS[metric]
            if m.x_numeric:
                self._lines(ax, metric, pub)
            else:
                self._bars(ax, metric, pub)
            ax.set_ylabel(f"{what} ({unit})")
            ax.set_title(f"{what} ({m.ddir}): harmonic mean \u00b1 stddev of {n} run{'s' if n != 1 else ''}")
            ax.yaxis.set_major_formatter(self.ticker.FuncFormatter(lambda v, _: human(v)))
            ax.set_ylim(bottom=0)
        handles, labels = [], []  # every axis' entries once (the published values may be on one only)
        for ax in axs[0]:
            for h, lab in zip(*ax.get_legend_handles_labels()):
                if lab not in labels:
                    handles.append(h)
                    labels.append(lab)
        fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(3, len(labels)),
                   frameon=False)
        fig.suptitle(f"{m.exp['name']}: throughput" + (f" per {m.x_axis}" if m.x_axis else ""), y=1.02)
        caption = "Configurations: " + (self.definitions() or ", ".join(m.configs))
        if pub:
            notes = sorted({note for _, note in pub.values() if note})
            caption += ". Hatched/dashed: the thread's published values" + (f" ({'; '.join(notes)})" if notes else "")
        self.save(fig, "throughput", caption)

    def _bars(self, ax, metric, pub):
        m = self.m
        groups = m.xs if m.x_axis else [""]
        slots = []  # (config, is_published)
        for c in m.configs:
            slots.append((c, False))
            if any((c, x, metric) in pub for x in groups):
                slots.append((c, True))
        width = 0.8 / max(1, len(slots))
        for si, (c, is_pub) in enumerate(slots):
            xs, ys, es = [], [], []
            for gi, x in enumerate(groups):
                if is_pub:
                    if (c, x, metric) not in pub:
                        continue
                    v, e = pub[(c, x, metric)][0], 0
                else:
                    vals = m.values(c, x, metric)
                    if not vals:
                        continue
                    v, e = hmean(vals), (stddev(vals) if len(vals) > 1 else 0)
                xs.append(gi - 0.4 + width * (si + 0.5))
                ys.append(v)
                es.append(0 if math.isnan(e) else e)
            if not xs:
                continue
            label = (f"{c} published" if is_pub else m.legend(c))
            bars = ax.bar(xs, ys, width * 0.92, yerr=None if is_pub else es, capsize=3, label=label,
                          color=self.color.get(c), alpha=0.45 if is_pub else 0.9,
                          hatch="//" if is_pub else None, edgecolor=self.color.get(c))
            for b, v, e in zip(bars, ys, es):  # the value above the bar and its error bar
                ax.annotate(human(v), (b.get_x() + b.get_width() / 2, b.get_height() + (0 if is_pub else e)),
                            xytext=(0, 2), textcoords="offset points", ha="center", va="bottom", fontsize=7)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([x or m.exp["name"] for x in groups])
        if m.x_axis:
            ax.set_xlabel(m.x_axis)
        ax.grid(axis="x", visible=False)

    def _lines(self, ax, metric, pub):
        m = self.m
        for c in m.configs:
            xs = [x for x in m.xs if m.values(c, x, metric)]
            ys = [hmean(m.values(c, x, metric)) for x in xs]
            es = [stddev(m.values(c, x, metric)) for x in xs]
            es = [0 if math.isnan(e) else e for e in es]
            ax.errorbar([float(x) for x in xs], ys, yerr=es, marker="o", capsize=3, label=m.legend(c),
                        color=self.color.get(c))
            pxs = [x for x in m.xs if (c, x, metric) in pub]
            if pxs:
                ax.plot([float(x) for x in pxs], [pub[(c, x, metric)][0] for x in pxs], linestyle="--",
                        marker="s", markerfacecolor="none", color=self.color.get(c), label=f"{c} published")
        xs = [float(x) for x in m.xs]
        ax.set_xlabel(m.x_axis)
        if min(xs) > 0 and max(xs) / min(xs) >= 8:
            ax.set_xscale("log", base=2)
        ax.set_xticks(xs)
        ax.xaxis.set_major_formatter(self.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(self.ticker.NullFormatter())

    # ---- 2./3. latency percentiles and CDF from fio's json+ histograms ----
    def _bins(self, runs):
        """Completion latency histogram (ns -> count) of the main direction, merged over jobs and runs."""
        d = self.m.ddir
        merged = defaultdict(int)
        for r in runs:
            for j in (r.fio or {}).get("jobs", []):
                sec = j.get(d, {})
                bins = (sec.get("clat_ns") or {}).get("bins") or (sec.get("lat_ns") or {}).get("bins") or {}
                for k, v in bins.items():
                    try:
                        merged[int(k)] += int(v)
                    except (TypeError, ValueError):
                        pass
        return merged

    def _series(self):
        """(label, config, bins) per (config, x), at most MAX_LINES."""
        m = self.m
        out = []
        for c in m.configs:
            for x in m.xs:
                rs = m.cells.get((c, x), [])
                if not rs:
                    continue
                b = self._bins(rs)
                if b:
                    out.append((f"{c} {m.x_axis}={x}".strip() if x else (c or "all"), c, b))
        if len(out) > MAX_LINES:  # keep every configuration at the extremes of x
            keep = {m.xs[0], m.xs[-1]}
            out = [s for s in out if any(s[0].endswith(f"={x}") for x in keep)][:MAX_LINES]
        return out

    def latency(self):
        m, plt = self.m, self.plt
        series = self._series()
        if not series:
            return
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, 4.8))
        lo, hi = float("inf"), 0
        styles = ["-", "--", ":", "-."]
        per_config = defaultdict(int)
        for label, c, bins in series:
            k = per_config[c]
            per_config[c] += 1
            ys = [percentile_from_bins(bins, p) / 1e6 for p, _ in PCTS]
            lo, hi = min(lo, min(ys)), max(hi, max(ys))
            a1.plot(range(len(PCTS)), ys, marker="o", linestyle=styles[k % 4], color=self.color.get(c), label=label)
            vals = sorted(bins)
            total = sum(bins.values())
            acc, cdf = 0, []
            for v in vals:
                acc += bins[v]
                cdf.append(acc / total)
            a2.plot([v / 1e6 for v in vals], cdf, linestyle=styles[k % 4], color=self.color.get(c), label=label)
        a1.set_xticks(range(len(PCTS)))
        a1.set_xticklabels([n for _, n in PCTS])
        self.log_axis(a1, lo, hi)
        a1.set_ylabel("completion latency (ms)")
        a1.set_xlabel("percentile")
        a1.set_title(f"latency percentiles ({m.ddir}, fio json+ histograms)")
        # the CDF's x range from its 0.1th percentile: a handful of sub-microsecond completions
        # would otherwise stretch the axis over decades where nothing is seen
        xs = [v / 1e6 for _, _, b in series for v in b]
        x_lo = min(percentile_from_bins(b, 0.1) for _, _, b in series) / 1e6
        x_lo = max(x_lo, min(xs), 1e-6)
        self.log_axis(a2, x_lo, max(xs), axis="x")
        a2.set_xlim(left=x_lo)
        a2.set_xlabel("completion latency (ms)")
        a2.set_ylabel("fraction of I/Os")
        a2.set_ylim(0, 1.01)
        a2.set_title("latency CDF")
        a1.legend(loc="upper left", fontsize=7)
        fig.suptitle(f"{m.exp['name']}: completion latency", y=1.02)
        self.save(fig, "latency", "Configurations: " + (self.definitions() or ", ".join(m.configs)) +
                  ". From the merged json+ histograms of every job and repetition.")

    # ---- 4. IOPS and latency over time from fio's own logs ----
    def timeline(self):
        m, plt = self.m, self.plt
        cells = []
        for c in m.configs:
            for x in m.xs:
                rs = [r for r in m.cells.get((c, x), []) if r.logs]
                if rs:
                    cells.append((c, x, rs))
        if not cells:
            return
        cells = cells[:MAX_LINES]
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, 4.5))
        styles = ["-", "--", ":", "-."]
        per_config = defaultdict(int)
        step_ms = None
        for c, x, rs in cells:
            k = per_config[c]
            per_config[c] += 1
            label = f"{c} {m.x_axis}={x}".strip() if x else (c or "all")
            for kind, ax, agg, scale in (("iops", a1, sum, 1.0), ("clat", a2, mean, 1e-6)):
                buckets = defaultdict(list)  # t -> per run value
                for r in rs:
                    logs = (r.logs or {}).get(kind) or ((r.logs or {}).get("lat") if kind == "clat" else None)
                    if not logs:
                        continue
                    step = _step(logs)
                    step_ms = step_ms or step
                    per_t = defaultdict(list)
                    for pts in logs.values():
                        for t, v in pts:
                            per_t[round(t / step) * step].append(v)
                    for t, vs in per_t.items():
                        buckets[t].append(agg(vs))
                if buckets:
                    ts = sorted(buckets)
                    ax.plot([t / 1000 for t in ts], [mean(buckets[t]) * scale for t in ts], linestyle=styles[k % 4],
                            color=self.color.get(c), label=label, marker="." if len(ts) < 40 else None)
        a1.set_title(f"IOPS over time (all jobs, window {step_ms or '?'} ms)")
        a1.set_ylabel("IOPS")
        a1.yaxis.set_major_formatter(self.ticker.FuncFormatter(lambda v, _: human(v)))
        a2.set_title("completion latency over time (mean of the jobs)")
        a2.set_ylabel("ms")
        for ax in (a1, a2):
            ax.set_xlabel("time (s)")
            ax.set_ylim(bottom=0)
        a1.legend(fontsize=7)
        fig.suptitle(f"{m.exp['name']}: fio's iops and latency logs (log_avg_msec), mean of the repetitions", y=1.02)
        self.save(fig, "timeline", "Configurations: " + (self.definitions() or ", ".join(m.configs)) +
                  ". From fio's own write_iops_log / write_lat_log, averaged per window.")

    # ---- 5. per-job shares (groups of the 2010 seed) ----
    def shares(self):
        m, plt = self.m, self.plt
        groups = sorted({j["jobname"] for r in m.runs for j in r.jobs if j["ddir"] == m.ddir})
        if len(groups) < 2 or len(groups) > 12:
            return
        bars = [(c, x) for c in m.configs for x in m.xs if m.cells.get((c, x))]
        fig, ax = plt.subplots(figsize=(max(7, len(bars) * 0.7), 4.5))
        bottom = [0.0] * len(bars)
        for g in groups:
            vals = []
            for c, x in bars:
                per = [sum(j["bw_kib"] or 0 for j in r.jobs if j["ddir"] == m.ddir and j["jobname"] == g) /
                       (sum(j["bw_kib"] or 0 for j in r.jobs if j["ddir"] == m.ddir) or 1) for r in m.cells[(c, x)]]
                vals.append(100 * mean(per))
            ax.bar(range(len(bars)), vals, bottom=bottom, label=g)
            bottom = [b + v for b, v in zip(bottom, vals)]
        ax.set_xticks(range(len(bars)))
        ax.set_xticklabels([f"{c}\n{m.x_axis}={x}" if x else c for c, x in bars], fontsize=7,
                           rotation=45 if len(bars) > 8 else 0, ha="right" if len(bars) > 8 else "center")
        ax.set_ylabel("share of bandwidth (%)")
        ax.set_ylim(0, 100)
        ax.set_title(f"{m.exp['name']}: each job's share of the bandwidth ({m.ddir})")
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        self.save(fig, "shares", "Configurations: " + (self.definitions() or ", ".join(m.configs)))


def _step(logs):
    """log_avg_msec of a log: the median distance between a job's samples."""
    for pts in logs.values():
        ts = sorted(t for t, _ in pts)
        d = [b - a for a, b in zip(ts, ts[1:]) if b > a]
        if d:
            return max(1, int(statistics.median(d)))
    return 1000


def make_plots(m, outdir, seedmod=None):
    """Every plot of one experiment into outdir; [(png, svg, caption)]. Missing matplotlib: []."""
    try:
        p = Plotter(m, outdir, seedmod)
    except ImportError:
        print("report: matplotlib is not available (apt-get install python3-matplotlib); no plots", file=sys.stderr)
        return []
    p.throughput()
    p.latency()
    p.timeline()
    p.shares()
    if seedmod and hasattr(seedmod, "plots"):
        try:
            seedmod.plots(m, p)
        except Exception as e:
            print(f"report: {m.exp['name']}: the seed's plots failed: {e}", file=sys.stderr)
    return p.made
