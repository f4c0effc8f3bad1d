"""2017 "bfq-mq performance comparison to cfq": the thread's LaTeX-ish rows (jobs & mean & stddev per
column [i]), published and ours, and the published means for the plots."""
from collections import OrderedDict

from schedreport.data import METRICS
from schedreport.seeds import col, num, published_rows
from schedreport.stats import hmean, stddev

FORMAT = "2017"
CITATION = ('"bfq-mq performance comparison to cfq", Andreas Herrmann, linux-block, April 2017 (on or before '
            'Mon 10 Apr 2017, the date of Paolo Valente\'s reply; replies from Paolo Valente, Bart Van Assche and '
            'Juri Lelli). No archive link to the thread was found; search the linux-block archive on '
            'lore.kernel.org for the subject.')


def _column_of(m, c):
    """The thread's column for our configuration: [0] cfq, [1] bfq-mq low_latency=1, [2] low_latency=0."""
    d = f"{c} {m.describe(c)}"
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
