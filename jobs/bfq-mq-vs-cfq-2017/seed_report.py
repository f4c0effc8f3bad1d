"""2017 "bfq-mq performance comparison to cfq": the thread's LaTeX-ish rows (jobs & mean & stddev per
column [i]), published and ours, the published means for the plots, and (shape) T(N)/T(1) per
configuration beside the published columns with the shape verdicts of issue 10, item 5, and the
thread's claims judged on our runs by the same rules."""
import math
from collections import OrderedDict

from schedreport.data import METRICS
from schedreport.seeds import claim, col, num, published_rows
from schedreport.stats import hmean, stddev

FORMAT = "2017"
CITATION = ('"bfq-mq performance comparison to cfq", Andreas Herrmann, linux-block, April 2017 (on or before '
            'Mon 10 Apr 2017, the date of Paolo Valente\'s reply; replies from Paolo Valente, Bart Van Assche and '
            'Juri Lelli). No archive link to the thread was found; search the linux-block archive on '
            'lore.kernel.org for the subject.')


def _column_of(m, c):
    """The thread's column for our configuration: [0] cfq, [1] bfq-mq low_latency=1, [2] low_latency=0."""
    d = f"{c} {m.describe(c)}"
    k = _kind(m, c)
    if k and k[0] == "bfq" and k[1] != "4.12":
        return None  # the modern profile is a prediction for today's kernel, not the thread's bfq-mq
    if "bfq" in d:
        return "[2]" if "low_latency=0" in d else "[1]"
    if "cfq" in d:
        return "[0]"
    return None


def published_points(m):
    pts, seen = [], set()
    jobs = {(r.job_path or "").rsplit("/", 1)[-1] for r in m.runs}
    for p in published_rows(m.runs):
        if col(p, "job_file") not in jobs:
            continue
        for c in m.configs:
            key = (c, col(p, "numjobs"))
            if _column_of(m, c) == col(p, "published_column") and key not in seen and col(p, "numjobs") in m.xs:
                v = num(col(p, "mean"))
                if v is not None:
                    seen.add(key)
                    pts.append((c, col(p, "numjobs"), "bw", v, "unit not stated in the thread (probably KB/s)"))
    return pts


def table(m, out, args=None):
    """bfq-mq vs cfq (2017): jobs mean stddev per configuration, '&'-separated, legend [i]."""
    metric = getattr(args, "metric", "bw") or "bw"
    pub = published_rows(m.runs)
    if pub:
        for t in OrderedDict((col(p, "table") or "", 1) for p in pub):
            rows = [p for p in pub if (col(p, "table") or "") == t]
            cols = list(OrderedDict((col(p, "published_column") or "?", col(p, "column_legend") or "")
                                    for p in rows).items())
            out.append(f"published {t}: {col(rows[0], 'table_title') or ''}")
            out += [f"{c} - {leg}" for c, leg in cols]
            out += ["", "jo " + " ".join(c for c, _ in cols), "bs" + " mean stddev" * len(cols)]
            for nj in OrderedDict((col(p, "numjobs"), 1) for p in rows):
                vals = []
                for c, _ in cols:
                    p = next((p for p in rows if col(p, "numjobs") == nj and col(p, "published_column") == c), None)
                    vals += [col(p, "mean") or "-", col(p, "stddev") or "-"] if p else ["-", "-"]
                out.append(f"{nj} & " + " & ".join(vals))
            out.append("")
    what, unit, _, _ = METRICS[metric]
    out.append(f"schedbench ({m.exp['name']}, {m.ddir} {what} in {unit}, harmonic mean and stddev of the "
               f"repetitions):")
    out += [f"[{i}] - {c}" + (f" ({m.describe(c)})" if m.describe(c) != c else "") +
            (f", the thread's {_column_of(m, c)}" if _column_of(m, c) else "") for i, c in enumerate(m.configs)]
    out += ["", "jo " + " ".join(f"[{i}]" for i in range(len(m.configs))), "bs" + " mean stddev" * len(m.configs)]
    for x in m.xs:
        vals = []
        for c in m.configs:
            v = m.values(c, x, metric)
            vals += [f"{hmean(v):.3f}" if v else "-", f"{stddev(v):.3f}" if len(v) > 1 else "-"]
        out.append(f"{x or '-'} & " + " & ".join(vals))


# ---- T(N)/T(1) and the shape (issue 10, item 5) ----
# The thread gives no unit, so each configuration is compared with itself at N=1. The rules, on
# the 2017 profile (embedded bfq, bfq_version=4.12):
DENT_N = range(2, 8)          # the dent: N=2..7
DENT_LO, DENT_HI = 0.45, 0.75  # ll=1 at N=2..7 within this band
RECOVERED = 0.8               # ll=1 at N=8, and ll=0 at every N, at least this
CFQ_TOL = 0.02                # cfq in between: ll=1 - CFQ_TOL <= cfq <= ll=0 + CFQ_TOL at N=2..7
# cfq falling with N: T(8)/T(1) < T(2)/T(1) (the thread's cfq is not monotonic either: N=3 > N=2,
# N=8 > N=7), with the in-between rule above.
# Settings of a configuration that do not make it another scheduler variant.
_NEUTRAL = {"device_model", "rotational", "sched"}


def _kind(m, c):
    """("cfq",) for embedded cfq as it is; ("bfq", version, low_latency) for embedded bfq with at
    most bfq_version and low_latency set; None otherwise (kernel cells, ablation variants)."""
    toks = m.describe(c).split()
    modes = [t for t in toks if ":" in t and "=" not in t]
    if modes != ["embedded:cfq"] and modes != ["embedded:bfq"]:
        return None
    opts = {}
    for t in toks:
        if "=" in t:
            k, v = t.split("=", 1)
            opts[k.rsplit(".", 1)[-1]] = v
    extra = set(opts) - _NEUTRAL - ({"bfq_version", "low_latency"} if modes == ["embedded:bfq"] else set())
    if extra:
        return None
    if modes == ["embedded:cfq"]:
        return ("cfq",)
    return ("bfq", opts.get("bfq_version", "6.12"), opts.get("low_latency", "1"))


def _ratios(series):
    """{N: T(N)/T(1)} of {N: T(N)}; empty without a positive T(1)."""
    t1 = series.get(1)
    if not t1 or not (t1 > 0) or math.isnan(t1):
        return {}
    return {n: v / t1 for n, v in series.items() if v is not None and not math.isnan(v)}


def _published_series(m):
    """{"[0]": {N: mean}, ...} of the thread's sequential-read rows (seqread.fio)."""
    out = OrderedDict()
    for p in published_rows(m.runs):
        if col(p, "job_file") != "seqread.fio" or col(p, "rw") != "read":
            continue
        c, n, v = col(p, "published_column"), num(col(p, "numjobs")), num(col(p, "mean"))
        if c and n is not None and v is not None:
            out.setdefault(c, {}).setdefault(int(n), v)  # [1] is in both tables, the same rows
    return OrderedDict(sorted(out.items()))


def _fmt(r):
    return f"{r:.3f}" if r is not None else "-"


def _verdicts(ll1, ll0, cfq):
    """[(ok, text)] of the five rules on three {N: ratio} series (None: that series is missing)."""
    def seq(s, ns):
        return " ".join(f"{n}:{_fmt(s.get(n))}" for n in ns)

    v = []
    if ll1 is not None:
        have = all(n in ll1 for n in DENT_N)
        v.append((have and all(DENT_LO <= ll1[n] <= DENT_HI for n in DENT_N),
                  f"bfq 4.12 ll=1 dent: T(N)/T(1) within {DENT_LO:.2f}..{DENT_HI:.2f} at N=2..7: "
                  f"{seq(ll1, DENT_N)}"))
        v.append((ll1.get(8) is not None and ll1[8] >= RECOVERED,
                  f"bfq 4.12 ll=1 recovered at N=8: T(8)/T(1) >= {RECOVERED:.2f}: {_fmt(ll1.get(8))}"))
    if ll0 is not None:
        ns = range(1, 9)
        v.append((all(n in ll0 for n in ns) and all(ll0[n] >= RECOVERED for n in ns),
                  f"bfq 4.12 ll=0 no dent: T(N)/T(1) >= {RECOVERED:.2f} at N=1..8: {seq(ll0, range(2, 9))}"))
    if cfq is not None and ll1 is not None and ll0 is not None:
        ok = all(n in s for s in (cfq, ll1, ll0) for n in DENT_N) and \
            all(ll1[n] - CFQ_TOL <= cfq[n] <= ll0[n] + CFQ_TOL for n in DENT_N)
        v.append((ok, f"cfq in between: ll=1 - {CFQ_TOL:.2f} <= cfq <= ll=0 + {CFQ_TOL:.2f} at N=2..7: " +
                  " ".join(f"{n}:{_fmt(ll1.get(n))}<={_fmt(cfq.get(n))}<={_fmt(ll0.get(n))}" for n in DENT_N)))
    if cfq is not None:
        v.append((cfq.get(8) is not None and cfq.get(2) is not None and cfq[8] < cfq[2],
                  f"cfq falling with N: T(8)/T(1) < T(2)/T(1): {_fmt(cfq.get(8))} < {_fmt(cfq.get(2))}"))
    return v


def shape(m, out, args=None):
    """T(N)/T(1) of every configuration (rows N, read bandwidth) beside the thread's columns, then
    one line per shape rule: "verdict PASS: ..." or "verdict FAIL: ..."."""
    if not m.x_axis or not m.x_numeric:
        return
    ns = [int(float(x)) for x in m.xs]
    xof = {int(float(x)): x for x in m.xs}
    ours = OrderedDict()
    for c in m.configs:
        series = {}
        for n in ns:
            v = m.values(c, xof[n], "bw")
            series[n] = hmean(v) if v else None
        ours[c] = (series, _ratios(series))
    pub = _published_series(m)
    pub_r = OrderedDict((c, _ratios(s)) for c, s in pub.items())
    legend = {"[0]": "cfq", "[1]": "ll=1", "[2]": "ll=0"}
    names = list(ours) + [f"pub{c}{' ' + legend[c] if c in legend else ''}" for c in pub_r]
    w = max([12] + [len(x) for x in names])
    out.append(f"T(N)/T(1): {m.ddir} bandwidth at N jobs over the same configuration's at N=1 (harmonic mean of "
               f"the repetitions; the thread gives no unit, so ratios). pub[i]: the thread's column [i] "
               f"(published.csv, sequential reads)")
    out.append(f"{'N':<4} " + " ".join(f"{x:>{w}}" for x in names))
    for n in ns:
        cells = [_fmt(r.get(n)) for _, r in ours.values()] + [_fmt(r.get(n)) for r in pub_r.values()]
        out.append(f"{n:<4} " + " ".join(f"{x:>{w}}" for x in cells))
    t1 = [f"{s[1]:.0f}" if s.get(1) is not None else "-" for s, _ in ours.values()]
    out.append(f"{'T(1)':<4} " + " ".join(f"{x:>{w}}" for x in t1) + "   (ours, KiB/s)")
    out.append("")

    kinds = {c: _kind(m, c) for c in ours}

    def find(k):
        cs = [c for c in ours if kinds[c] == k]
        return ours[cs[0]][1] if cs else None

    ll1, ll0, cfq = find(("bfq", "4.12", "1")), find(("bfq", "4.12", "0")), find(("cfq",))
    out.append(f"Shape (issue 10, item 5), the 2017 profile (bfq_version=4.12): ll=1 within "
               f"{DENT_LO:.2f}..{DENT_HI:.2f} of N=1 at N=2..7 and at least {RECOVERED:.2f} at N=8; ll=0 at least {RECOVERED:.2f} throughout; "
               f"cfq in between (ll=1 - {CFQ_TOL:.2f} <= cfq <= ll=0 + {CFQ_TOL:.2f} at N=2..7) and falling with "
               f"N (T(8)/T(1) < T(2)/T(1)).")
    if ll1 is None and ll0 is None and cfq is None:
        out.append("no verdict: no embedded cfq or embedded bfq 4.12 configuration as it is in this experiment")
    else:
        for ok, text in _verdicts(ll1, ll0, cfq):
            out.append(f"verdict {'PASS' if ok else 'FAIL'}: {text}")
        missing = [what for what, s in (("bfq 4.12 ll=1", ll1), ("bfq 4.12 ll=0", ll0), ("cfq", cfq)) if s is None]
        if missing:
            out.append(f"no verdict on what needs {', '.join(missing)}: not in this experiment as it is")
    for c in ours:
        k = kinds[c]
        if k and k[0] == "bfq" and k[1] != "4.12":
            r = ours[c][1]
            out.append(f"prediction (no verdict), bfq {k[1]} ll={k[2]} ({c}): " +
                       " ".join(f"{n}:{_fmt(r.get(n))}" for n in ns))
    if pub_r:
        pv = _verdicts(pub_r.get("[1]"), pub_r.get("[2]"), pub_r.get("[0]"))
        out.append(f"the thread's own rows under the same rules (a check of the rules, not of ours): "
                   f"{sum(ok for ok, _ in pv)} of {len(pv)} hold" +
                   "".join(f"; not: {t.split(':')[0]}" for ok, t in pv if not ok))


# ---- the thread's claims, judged by the shape rules above ----
# (the thread's words, the rule of _verdicts() that judges it (its text's start), the criterion,
# why when it holds)
_CLAIMS = (
    ("bfq-mq (low_latency=1) shows a 'dent' for tests with 2-7 fio jobs (Andreas)", "bfq 4.12 ll=1 dent",
     f"ll=1 T(N)/T(1) within {DENT_LO:.2f}..{DENT_HI:.2f} at N=2..7",
     "weight-raising idling: 'The throughput loss you see is very likely to be the consequence of that "
     "idling' (Paolo)"),
    ("'Why does the throughput go back up at eight jobs?' (Paolo)", "bfq 4.12 ll=1 recovered",
     f"ll=1 T(8)/T(1) >= {RECOVERED:.2f}",
     "large-burst detection: 8 jobs born together are not raised, no idling for them"),
    ("'switch off low-latency heuristics, i.e., set low_latency to 0' (Paolo): no dent", "bfq 4.12 ll=0 no dent",
     f"ll=0 T(N)/T(1) >= {RECOVERED:.2f} at N=1..8", "no weight raising, so no idling for new queues"),
    ("bfq-mq below cfq at 2-7 jobs, cfq below bfq-mq with low_latency=0 (both mails' tables)", "cfq in between",
     f"ll=1 - {CFQ_TOL:.2f} <= cfq T(N)/T(1) <= ll=0 + {CFQ_TOL:.2f} at N=2..7",
     "the mechanism not analysed"),
    ("cfq's throughput falls with the jobs (17060 -> 12422, the first table)", "cfq falling",
     "cfq T(8)/T(1) < T(2)/T(1)",
     "past 3 readers target_latency (300 ms) shortens each reader's 100 ms slice: more switches, a seek each"),
)


def _rule(verdicts, prefix):
    """(ok, the figures) of the verdict whose text starts with prefix, or None."""
    for ok, t in verdicts:
        if t.startswith(prefix):
            return ok, t.rsplit(": ", 1)[-1]
    return None


def claims(m):
    """The thread's five claims, each judged by the shape rule of _verdicts() that carries its
    name, on the 2017 profile (embedded bfq 4.12 low_latency 1 and 0, embedded cfq): T(N)/T(1) of
    read bandwidth (harmonic means of the repetitions). NOT MEASURED without those cells."""
    ns = [int(float(x)) for x in m.xs] if m.x_axis and m.x_numeric else []
    xof = {int(float(x)): x for x in m.xs}
    series = {}
    for c in m.configs:
        k = _kind(m, c)
        if ns and k in (("cfq",), ("bfq", "4.12", "1"), ("bfq", "4.12", "0")) and k not in series:
            s = {}
            for n in ns:
                v = m.values(c, xof[n], "bw")
                s[n] = hmean(v) if v else None
            series[k] = _ratios(s)
    ours = _verdicts(series.get(("bfq", "4.12", "1")), series.get(("bfq", "4.12", "0")), series.get(("cfq",)))
    pub_r = OrderedDict((c, _ratios(s)) for c, s in _published_series(m).items())
    pubv = _verdicts(pub_r.get("[1]"), pub_r.get("[2]"), pub_r.get("[0]"))
    out = []
    for text, rule, crit, why in _CLAIMS:
        got, p = _rule(ours, rule), _rule(pubv, rule)
        out.append(claim(text, crit, p[1] if p else "-", got[1] if got else None, got[0] if got else None,
                         why_ok=why,
                         why_not="not analysed (in real time the engine's QD1 think time moves every ratio: "
                         "README-embedded-bfq.md)",
                         why_missing="needs embedded cfq and embedded bfq 4.12 cells (low_latency 1 and 0) at "
                         "N=1..8, as embedded-bfq.ini runs them"))
    return out
