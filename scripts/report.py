#!/usr/bin/python3
"""schedbench reports: the seed threads' tables with ours beside the published rows, an mmtests-style
A/B comparison (a CI gate with --fail-above), CSV, plots and one HTML page, from schedbench's database.

The seed formats live next to each seed (jobs/<seed>/seed_report.py); the rest is scripts/schedreport/.
Libraries (Debian packages): python3-scipy (Welch's t-test), python3-matplotlib (plots),
python3-jinja2 (HTML).

Exit status: 0 ok; 1 --fail-above found a significant regression larger than PCT; 2 usage or input
error (no such database, experiment, baseline or metric; an unwritable output); 3 nothing to compare
(no runs, one configuration, or too few repetitions for the gate: it needs >= 3 a side).
"""
import argparse
import csv
import json
import os
import signal
import sys
from collections import OrderedDict, defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from schedreport import EXIT_NOTHING, EXIT_OK, EXIT_REGRESSION, EXIT_USAGE, ReportError  # noqa: E402
from schedreport import seeds  # noqa: E402
from schedreport.compare import compare  # noqa: E402
from schedreport.crosscheck import FORMATS as PAIR_FORMATS  # noqa: E402
from schedreport.data import (METRICS, Model, connect, default_db, experiments, load_fio, load_logs,  # noqa: E402
                              load_runs, other_cells_note)
from schedreport.stats import fmt, hmean, jain, mean, stddev  # noqa: E402


# ---------------------------------------------------------------- generic table
def table_generic(m, out, args=None):
    out.append(f"{'configuration':<40} {'x':>6} {'n':>3} {'IOPS':>12} {'sd':>10} {'KiB/s':>12} "
               f"{'lat(ms)':>9} {'p99(ms)':>9}")
    for x in m.xs:
        for c in m.configs:
            iops = m.values(c, x, "iops")
            if not iops:
                continue
            out.append(f"{c[:40]:<40} {x or '-':>6} {len(iops):>3} {hmean(iops):>12.1f} {fmt(stddev(iops), 1):>10} "
                       f"{hmean(m.values(c, x, 'bw')):>12.0f} {mean(m.values(c, x, 'lat')):>9.3f} "
                       f"{mean(m.values(c, x, 'p99')):>9.3f}")
    out.append("IOPS and KiB/s: harmonic mean of the repetitions; latencies: arithmetic mean; sd: stddev of IOPS.")


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
    ("idle-rqs", 8, lambda d: d.get("policy", {}).get("idle_hits")),
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
    cols = [(h, w, g) for h, w, g in SCHED_COLS if any(_get(g, d) is not None for _, ds in rows for d in ds)]
    lw = max(13, min(40, max(len(label) for label, _ in rows)))
    out.append("engine sched_stats (embedded cells; mean over repetitions):")
    out.append(f"{'configuration':<{lw}} " + " ".join(f"{h:>{w}}" for h, w, _ in cols))
    shares = []
    for label, ds in rows:
        cells = []
        for h, w, g in cols:
            vs = [_get(g, d) for d in ds if _get(g, d) is not None]
            v = mean([float(x) for x in vs]) if vs else None
            p = 3 if h in ("in-flight", "wait(ms)", "dev-busy(s)") else 0
            cells.append(f"{fmt(v, p):>{w}}")
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
    # what sched/ counts: idle_timer_armed when cfq_arm_slice_timer()/bfq_arm_slice_timer() arm the
    # timer, idle_hits per request in cfq_rq_enqueued()/bfq_rq_enqueued(), idle_timer_expired (CFQ)
    # in cfq_idle_slice_timer()
    out.append("in-flight = time-weighted device depth; adm-waits = requests that waited for a free request "
               "slot (nr_requests); slices = CFQ slices started.")
    out.append("idle-arm = idle periods: CFQ or BFQ armed its idle timer (CFQ: slice_idle, or group_idle for "
               "a group's last queue, so also with slice_idle=0); idle-rqs = requests, not periods: each request "
               "that arrived for the active queue while it idled, and a small one (CFQ: 4 KiB or less with no "
               "other queue busy; BFQ: under 16 KiB, the queue's only one, when idling boosts throughput) leaves the timer armed, so one period can "
               "count many; idle-exp = CFQ idle periods the timer ended by expiring the queue (its slice used "
               "up, or no request came while other queues had some).")


def _get(g, d):
    try:
        return g(d)
    except (KeyError, TypeError, AttributeError, ZeroDivisionError):
        return None


# ---------------------------------------------------------------- provenance
def provenance(m, out):
    """Host, kernel, fio and the engine actually loaded (its build id and revision, read from the .so),
    the kernel command line, CPU governor, memory and the target's block device, per experiment;
    DIFFERS when the runs do not agree."""
    per = OrderedDict((k, set()) for k in ("host", "fio_server", "clock", "kernel", "fio_version", "cpu_model",
                                           "cpu_governor", "memory", "cmdline", "engine", "engine_rev",
                                           "engine_build_id", "engine_sha256", "simulator", "target_device",
                                           "schedbench"))
    for r in m.runs:
        p = r.provenance or {}
        eng = p.get("engine") or {}
        cpu = p.get("cpu") or {}
        tgt = p.get("target") or {}
        q = tgt.get("queue") or {}
        vals = {"host": r.prov.get("host"), "kernel": r.prov.get("kernel"), "fio_version": r.prov.get("fio_version"),
                "cpu_model": r.prov.get("cpu_model"), "fio_server": r.fio_host or "this machine",
                "clock": "virtual (the simulator)" if r.clock == "virtual" else "real"}
        if p and p.get("simulator"):
            vals["simulator"] = f"{p['simulator'].get('path')} (sha256 {str(p['simulator'].get('sha256'))[:16]})"
        if p:
            vals.update({"cpu_governor": cpu.get("governor") or "none (no cpufreq)", "memory": p.get("memory"),
                         "cmdline": p.get("cmdline"), "schedbench": p.get("schedbench")})
            if tgt:
                vals["target_device"] = (f"{tgt['device']} (model {tgt.get('model') or '?'}, rotational "
                                         f"{q.get('rotational', '?')}, scheduler {q.get('scheduler', '?')}, "
                                         f"nr_requests {q.get('nr_requests', '?')})" if tgt.get("device")
                                         else tgt.get("note") or "?")
        if r.overlays.get("mode") == "embedded":
            vals["engine_rev"] = r.prov.get("engine_rev")
            if eng:
                vals.update({"engine": eng.get("path"), "engine_build_id": eng.get("build_id") or "none",
                             "engine_sha256": eng.get("sha256")})
        for k, v in vals.items():
            if v is not None:
                per[k].add(str(v))
    for k, vs in per.items():
        vals = sorted(vs)
        if vals:
            out.append(f"{k:<16} {vals[0] if len(vals) == 1 else 'DIFFERS: ' + ' | '.join(vals)}")


# ---------------------------------------------------------------- CSV
CSV_HEAD = ["experiment", "configuration", "definition", "x_axis", "x", "ddir", "n", "iops_hmean", "iops_stddev",
            "iops_cov_pct", "bw_kib_hmean", "bw_kib_stddev", "lat_ms_mean", "lat_ms_stddev", "p99_ms_mean",
            "p999_ms_mean"]


def csv_rows(m):
    for x in m.xs:
        for c in m.configs:
            for d in sorted({d for r in m.cells.get((c, x), []) for d in r.totals}):
                iops = m.values(c, x, "iops", d)
                if not iops:
                    continue
                hi = hmean(iops)
                yield [m.exp["name"], c, m.describe(c), m.x_axis or "", x, d, len(iops), fmt(hi, 3, ""),
                       fmt(stddev(iops), 3, ""), fmt(100 * stddev(iops) / hi if hi else None, 3, ""),
                       fmt(hmean(m.values(c, x, "bw", d)), 3, ""), fmt(stddev(m.values(c, x, "bw", d)), 3, ""),
                       fmt(mean(m.values(c, x, "lat", d)), 6, ""), fmt(stddev(m.values(c, x, "lat", d)), 6, ""),
                       fmt(mean(m.values(c, x, "p99", d)), 6, ""), fmt(mean(m.values(c, x, "p999", d)), 6, "")]


# ---------------------------------------------------------------- main
class Parser(argparse.ArgumentParser):
    """argparse with the project's usage errors: one line naming the option and its value, exit 2
    (argparse prints its whole usage before the error; --help still prints everything)."""

    def error(self, message):
        message = " ".join(message.split())
        if message.startswith("argument "):  # "argument --metric: invalid choice: 'x' ..." -> "--metric: ..."
            message = message[len("argument "):]
        print(f"report: {message} (see --help)", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def _number(text):
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if v != v or v in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"wants a number, not '{text}'")
    return v


def percentage(text):
    """--fail-above, --tolerance: a finite percentage >= 0."""
    v = _number(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"wants a percentage >= 0, not '{text}'")
    return v


def level(text):
    """--alpha: a significance level, 0 < alpha < 1."""
    v = _number(text)
    if not 0 < v < 1:
        raise argparse.ArgumentTypeError(f"wants a significance level between 0 and 1 (exclusive), not '{text}'")
    return v


def parse_args(argv):
    ap = Parser(prog="schedbench report", description=__doc__,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", default=default_db(),
                    help="the database (default: $SCHEDBENCH_DB, else results/schedengine.db)")
    ap.add_argument("--experiment", "-e", action="append", help="experiment name, repeatable (default: all)")
    fmts = ["auto"] + seeds.formats()
    ap.add_argument("--format", default="auto", metavar="FORMAT",
                    help="table format, one of: " + ", ".join(fmts) + " (auto: the matrix's report =; generic: "
                    "fio's numbers; " + ", ".join(seeds.modules()) + ": the seed threads' tables; " +
                    ", ".join(PAIR_FORMATS) + ": side-by-side pairs, see --tolerance)")
    ap.add_argument("--x-axis", help="axis for rows / the x of plots (default: the matrix's x_axis)")
    ap.add_argument("--metric", default="bw", help="metric of tables that show one: " + ", ".join(METRICS) +
                    " (default: bw)")
    ap.add_argument("--compare", action="store_true", help="A/B comparison against the baseline (mmtests style)")
    ap.add_argument("--baseline", help="baseline configuration (exactly, a substring, or its labels)")
    ap.add_argument("--metrics", help="metrics to compare, comma separated (" + ",".join(METRICS) + ")")
    ap.add_argument("--alpha", type=level, default=0.05, help="significance level of Welch's t-test")
    ap.add_argument("--fail-above", type=percentage, metavar="PCT",
                    help="CI gate (implies --compare): exit 1 on a significant regression larger than PCT "
                    "percent; exit 3 when there is nothing to decide (no runs, one configuration, fewer "
                    "than 3 repetitions a side)")
    ap.add_argument("--csv", metavar="FILE", help="write the per-cell summary as CSV (directories are created)")
    ap.add_argument("--plots", metavar="DIR", help="write PNG and SVG plots into DIR")
    ap.add_argument("--html", metavar="FILE", help="write one HTML page (plots go into plots/ next to it)")
    ap.add_argument("--screenshot", metavar="PNG", help="with --html: a screenshot of the page by headless "
                    "Chromium, checked (every image loaded, the plots visible)")
    ap.add_argument("--nightly", action="store_true",
                    help="compare the latest batch (schedbench run --batch NAME) of each experiment with the "
                    "previous one (or --against), per configuration and metric; with --fail-above PCT, exit 1 "
                    "on a significant regression larger than PCT and 3 when it cannot decide (fewer than 3 "
                    "repetitions a side, or one batch)")
    ap.add_argument("--against", metavar="BATCH", help="--nightly: the batch to compare the latest with "
                    "(default: the one before it)")
    ap.add_argument("--tolerance", type=percentage, metavar="PCT",
                    help="crosscheck and agreement formats: the verdict's threshold in %% (default: the "
                    "matrix's tolerance, else 15 for crosscheck, 10 for agreement)")
    ap.add_argument("--list", action="store_true", help="list the experiments and their ok runs")
    ap.add_argument("--brief", action="store_true",
                    help="text: each experiment's header line, the seed's table and the thread's claims "
                    "with their verdicts only (no provenance, engine statistics or seed figures; "
                    "--compare, --csv and --html as usual)")
    args, extra = ap.parse_known_args(argv)
    if extra:
        ap.error(f"unrecognized arguments: {' '.join(extra)}" +
                 ("" if extra[0].startswith("-") else " (report takes options only; an experiment is -e NAME)"))
    for opt, val, choices in (("--format", args.format, fmts), ("--metric", args.metric, list(METRICS))):
        if val not in choices:
            ap.error(f"{opt}: invalid choice '{val}' (choose from {', '.join(choices)})")
    if args.fail_above is not None:
        args.compare = not args.nightly
    if args.against and not args.nightly:
        ap.error("--against goes with --nightly")
    if args.metrics:
        bad = [x for x in args.metrics.split(",") if x not in METRICS]
        if bad:
            ap.error(f"--metrics: unknown {', '.join(bad)} (choose from {', '.join(METRICS)})")
    if args.screenshot and not args.html:
        ap.error("--screenshot needs --html")
    return args


def prepare_output(path, what):
    d = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(d, exist_ok=True)
    except OSError as e:
        raise ReportError(f"cannot create the directory of {what} {path}: {e.strerror}")
    if os.path.isdir(path):
        raise ReportError(f"{what} {path} is a directory")


def axes_of(db, e):
    """The experiment's axes: its matrix's, else (ingested runs) the labels of its runs."""
    axes = [a.get("name") for a in (_json_list(e.get("axes")))]
    if not axes:
        seen = OrderedDict()
        for r in load_runs(db, e["name"]):
            seen.update((k, None) for k in r.labels)
        axes = list(seen)
    return axes


def _json_list(text):
    try:
        v = json.loads(text or "[]")
    except ValueError:
        return []
    return [a for a in v if isinstance(a, dict)] if isinstance(v, list) else []


def check_x_axis(db, exps, x_axis):
    """--x-axis names an axis of every selected experiment (else it used to be ignored silently)."""
    lacking = [(e["name"], axes_of(db, e)) for e in exps]
    lacking = [(n, a) for n, a in lacking if x_axis not in a]
    if lacking:
        what = ", ".join(f"{n} (its axes: {', '.join(a) or 'none'})" for n, a in lacking[:3])
        more = f" and {len(lacking) - 3} more" if len(lacking) > 3 else ""
        hint = "; select experiments with -e" if len(lacking) < len(exps) else ""
        raise ReportError(f"--x-axis {x_axis}: not an axis of {what}{more}{hint}")


def check_against(db, exps, against):
    """--against names a batch of each selected experiment that has batches, and of one at least."""
    from schedreport.nightly import batches
    found, lacking = False, []
    for e in exps:
        names = [b[0] for b in batches(db, e["name"]) if b[4] > 0]
        if against in names:
            found = True
        elif names:
            lacking.append(f"{e['name']} has {', '.join(names)}")
    if lacking or not found:
        why = "; ".join(lacking[:3]) if lacking else \
            (f"{exps[0]['name'] if len(exps) == 1 else 'the selected experiments'} has no batches "
             f"(run it with schedbench run MATRIX --batch NAME)")
        raise ReportError(f"--against {against}: no batch '{against}' with ok runs: {why}")


def run(args):
    db = connect(args.db)
    exps = experiments(db)
    if args.list:
        if not exps:
            raise ReportError(f"no experiments in {args.db}: nothing to list", EXIT_NOTHING)
        for e in exps:
            n = len(load_runs(db, e["name"]))
            print(f"{e['name']:<40} {n:>5} ok runs  report={e.get('report') or 'generic'}")
        return EXIT_OK
    if not exps:
        raise ReportError(f"no runs in {args.db}: nothing to report", EXIT_NOTHING)
    if args.experiment:
        names = {e["name"] for e in exps}
        missing = [x for x in args.experiment if x not in names]
        if missing:
            raise ReportError(f"no experiment {', '.join(repr(x) for x in missing)} in {args.db} "
                              f"(there are: {', '.join(sorted(names))})")
        exps = [e for e in exps if e["name"] in args.experiment]
    if args.x_axis is not None:
        check_x_axis(db, exps, args.x_axis)
    if args.against is not None:
        check_against(db, exps, args.against)
    for path, what in ((args.csv, "--csv"), (args.html, "--html"), (args.screenshot, "--screenshot")):
        if path:
            prepare_output(path, what)
    metrics = args.metrics.split(",") if args.metrics else None
    if args.nightly:
        return run_nightly(db, exps, args, metrics)
    sections, regressions, undecided, nothing, left_out = [], [], [], [], []
    csv_out = []
    for e in exps:
        runs = load_runs(db, e["name"])
        if not runs:
            # ok runs of other cells (another --runtime): the line names them, as schedbench status
            other = other_cells_note(db, e["name"])
            why = f"{e['name']}: no successful runs" + \
                (f" in the cells of its matrix's last run; {other}" if other else "")
            print(f"== {why}\n")
            nothing.append(why)
            if other:
                left_out.append(why)
            continue
        load_fio(db, runs)
        load_logs(db, runs)
        m = Model(e, runs, args.x_axis or e.get("x_axis") or "")
        fmtname = seeds.guess_format(e, runs) if args.format == "auto" else args.format
        mod = seeds.module_for(fmtname)
        head = f"== {e['name']} ({fmtname} format; {len(runs)} runs, {len(m.configs)} configuration" \
               f"{'s' if len(m.configs) != 1 else ''})"
        prov, table, engine = [], [], []
        provenance(m, prov)
        (mod.table if mod else table_generic)(m, table, args)
        shape = []  # a seed's own figures and verdicts after its table (2017: T(N)/T(1), the dent)
        if mod and hasattr(mod, "shape"):
            mod.shape(m, shape, args)
        claims = []  # the thread's claims, judged on these runs: right after the seed's table
        if mod and hasattr(mod, "claims"):
            cl = mod.claims(m)
            if cl:
                n = {v: sum(c.verdict == v for c in cl) for v in seeds.VERDICTS}
                claims = [f"The thread's claims, judged on this experiment's runs: {n[seeds.REPRODUCED]} of "
                          f"{len(cl)} reproduced, {n[seeds.NOT_REPRODUCED]} not reproduced, "
                          f"{n[seeds.NOT_MEASURED]} not measured"] + seeds.claim_lines(cl)
        sched_stats_section(m, engine)
        cmp = None
        if args.compare:
            try:
                cmp = compare(m, args.baseline, metrics, args.alpha, args.fail_above)
            except ReportError as err:
                if err.code != EXIT_NOTHING:
                    raise
                nothing.append(str(err))
                if len(exps) > 1:  # one experiment: the closing line says it (once)
                    print(f"report: {err}", file=sys.stderr)
            if cmp:
                regressions += [f"{e['name']}: {r}" for r in cmp.regressions]
                undecided += [f"{e['name']}: {u}" for u in cmp.undecided]
        # the seed's verdicts close the experiment's text (in the HTML they follow its table)
        if args.brief:
            body = table + ([""] + claims if claims else []) + ([""] + cmp.text if cmp else [])
            print("\n".join([head, ""] + body) + "\n")
        else:
            body = table + ([""] + claims if claims else []) + ([""] + engine if engine else []) + \
                ([""] + cmp.text if cmp else []) + ([""] + shape if shape else [])
            print("\n".join([head] + prov + [""] + body) + "\n")
        csv_out += list(csv_rows(m))
        images = []
        pdir = args.plots or (os.path.join(os.path.dirname(os.path.abspath(args.html)), "plots") if args.html else None)
        if pdir:
            from schedreport.plots import make_plots
            images = make_plots(m, pdir, mod)
        n_reps = sorted({len(rs) for rs in m.cells.values()})
        sections.append({
            "name": e["name"], "anchor": e["name"].replace(" ", "_"), "description": e.get("description") or "",
            "citation": getattr(mod, "CITATION", "") if mod else "",
            "summary": f"{fmtname} format; {len(runs)} ok runs of {len(m.cells)} cells; repetitions per cell: "
                       f"{', '.join(map(str, n_reps))}; main direction {m.ddir}",
            "configs": [(c or "all", m.describe(c)) for c in m.configs if m.describe(c) and m.describe(c) != c],
            "table": "\n".join(table), "images_raw": images,
            "claims": [(line, seeds.verdict_class(line)) for line in claims],
            "shape": [(line, seeds.verdict_class(line)) for line in shape],
            "engine": "\n".join(engine), "prov": "\n".join(prov),
            "compare": {"head": "\n".join(cmp.head), "cols": cmp.cols, "blocks": cmp.blocks,
                        "tail": "\n".join(cmp.tail)} if cmp else None,
        })
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(CSV_HEAD)
            w.writerows(csv_out)
        print(f"wrote {args.csv}")
    if args.html:
        from schedreport.html import write_html
        write_html(args.html, sections, args.db)
        print(f"wrote {args.html}")
        if args.screenshot:
            from schedreport.screenshot import screenshot
            r = screenshot(args.html, args.screenshot)
            drawn = "the plots are drawn" if r["plot_pixels"] else "no plot is drawn in it (open the report to see why)"
            print(f"screenshot {r['png']} ({r['width']}x{r['height']}): {r['loaded']} of {r['images']} images "
                  f"loaded; {drawn}")
    # the verdict: a regression is a regression; otherwise green only on something decided
    if regressions:
        print(f"report: {len(regressions)} significant regression(s) above {args.fail_above}%", file=sys.stderr)
        return EXIT_REGRESSION
    if not sections:
        raise ReportError("no successful runs in the selected experiments: nothing to report" +
                          (f" ({'; '.join(left_out[:2])}{' ...' if len(left_out) > 2 else ''})" if left_out else ""),
                          EXIT_NOTHING)
    if args.fail_above is not None and (undecided or nothing):
        why = (nothing + undecided)[:4]
        raise ReportError(f"the gate cannot decide: {'; '.join(why)}{' ...' if len(nothing + undecided) > 4 else ''} "
                          f"(it needs >= 3 repetitions a side of two configurations)", EXIT_NOTHING)
    if args.compare and nothing and len(nothing) == len(exps):
        raise nothing_to_compare(nothing)
    return EXIT_OK


def nothing_to_compare(nothing):
    if len(nothing) == 1:
        return ReportError(f"nothing to compare: {nothing[0]}", EXIT_NOTHING)
    return ReportError(f"nothing to compare in any of the {len(nothing)} experiments (each one's reason above)",
                       EXIT_NOTHING)


def run_nightly(db, exps, args, metrics):
    from schedreport.nightly import compare_batches
    regressions, undecided, nothing = [], [], []
    for e in exps:
        try:
            text, reg, und = compare_batches(db, e, args.against, metrics, args.alpha, args.fail_above)
        except ReportError as err:
            if err.code != EXIT_NOTHING:
                raise
            nothing.append(str(err))
            if len(exps) > 1:  # one experiment: the closing line says it (once)
                print(f"report: {err}", file=sys.stderr)
            continue
        print("\n".join(text) + "\n")
        regressions += [f"{e['name']}: {r}" for r in reg]
        undecided += [f"{e['name']}: {u}" for u in und]
    if regressions:
        print(f"report: {len(regressions)} significant regression(s) above {args.fail_above}% against the "
              f"previous batch", file=sys.stderr)
        return EXIT_REGRESSION
    if nothing and len(nothing) == len(exps):
        raise nothing_to_compare(nothing)
    if args.fail_above is not None and (undecided or nothing):
        why = (nothing + undecided)[:4]
        raise ReportError(f"the nightly gate cannot decide: {'; '.join(why)} (it needs >= 3 repetitions a "
                          f"side: schedbench run --repeat 3)", EXIT_NOTHING)
    return EXIT_OK


def main(argv=None):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    args = parse_args(argv)
    try:
        return run(args)
    except ReportError as e:
        print(f"report: {e}", file=sys.stderr)
        return e.code
    except OSError as e:
        print(f"report: {e.filename or ''}: {e.strerror}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
