"""2014 "[PATCH 1/4] cfq: Increase default value of target_latency": the mmtests compare table
(Mean SeqRead-MB/sec-N value (pct%)), published and ours, and the published means for the plots."""
import math
import re
from collections import OrderedDict

from schedreport.seeds import col, num, published_rows
from schedreport.stats import fmt, hmean, stddev

FORMAT = "2014"
CITATION = ('"[PATCH 1/4] cfq: Increase default value of target_latency", Mel Gorman, linux-kernel, linux-mm '
            'and linux-fsdevel, Wed 18 Jun 2014 09:23:24 +0100, Message-Id '
            '<1403079807-24690-2-git-send-email-mgorman@suse.de>. Archive: '
            'https://lore.kernel.org/linux-mm/1403079807-24690-2-git-send-email-mgorman@suse.de/ '
            '(made from the Message-Id; lore.kernel.org keeps linux-mm under such addresses)')

# tiobench's MB/sec is 2^20 bytes per second; our bandwidth is in KiB/s
KIB_PER_MB = 1024


def _seq_name(m):
    text = m.runs[0].job_text if m.runs else ""
    rw = re.findall(r"^\s*(?:rw|readwrite)\s*=\s*(\w+)", text, re.M)
    kind = "Rand" if rw and rw[-1].startswith("rand") else "Seq"
    return f"{kind}{'Read' if m.ddir == 'read' else 'Write' if m.ddir == 'write' else m.ddir.capitalize()}"


def _read_phase(m):
    if any("read" in r.totals for r in m.runs):
        m.ddir = "read"  # the published rows are the read phase (the job writes its data first)


def published_points(m):
    """3.16.0-rc1 vanilla (target_latency 300) and cfq600 (600) at our configuration of that value."""
    _read_phase(m)
    pts = []
    for p in published_rows(m.runs):
        v = num(col(p, "seqread_MBps"))
        tl = col(p, "target_latency_ms")
        if v is None or col(p, "stat") != "Mean" or not (col(p, "kernel") or "").startswith("3.16"):
            continue
        for c in m.configs:
            if c == tl or c.endswith(f"={tl}"):
                pts.append((c, col(p, "nr_threads"), "bw", v * KIB_PER_MB,
                            f"{col(p, 'kernel_column')}, MB/s as 2^20 B/s"))
    return [p for p in pts if p[1] in m.xs]


def table(m, out, args=None):
    """mmtests compare style (2014): Mean SeqRead-MB/sec-N  value (  pct%) per configuration."""
    _read_phase(m)
    pub = [p for p in published_rows(m.runs) if col(p, "seqread_MBps")]
    if pub:
        cols = list(OrderedDict((col(p, "kernel_column", "kernel") or "?", 1) for p in pub))
        out.append("published:")
        out.append(" " * 26 + "".join(f"{c:>22}" for c in cols))
        for nr in OrderedDict((col(p, "nr_threads"), 1) for p in pub):
            cells = {col(p, "kernel_column", "kernel"): num(col(p, "seqread_MBps")) for p in pub
                     if col(p, "nr_threads") == nr}
            base = cells.get(cols[0])
            line = f"{'Mean SeqRead-MB/sec-' + str(nr):<26}"
            for c in cols:
                v = cells.get(c)
                pct = 100 * (v - base) / base if v is not None and base else 0.0
                line += f"{fmt(v):>12} ({pct:6.2f}%)" if v is not None else f"{'-':>22}"
            out.append(line)
        out.append("")
    name = _seq_name(m)
    out.append(f"schedbench ({m.exp['name']}; target_latency in ms per column):")
    out.append(" " * 26 + "".join(f"{c[:20]:>22}" for c in m.configs))
    base = m.configs[0] if m.configs else None
    for stat, fn in (("Hmean", hmean), ("Stddev", stddev)):
        for x in m.xs:
            line = f"{stat + ' ' + name + '-MB/sec-' + (x or '1'):<26}"
            bv = fn([v / KIB_PER_MB for v in m.values(base, x, "bw")])
            for c in m.configs:
                v = fn([v / KIB_PER_MB for v in m.values(c, x, "bw")])
                pct = 100 * (v - bv) / bv if bv and not math.isnan(bv) and not math.isnan(v) else 0.0
                line += f"{fmt(v):>12} ({pct:6.2f}%)" if not math.isnan(v) else f"{'-':>22}"
            out.append(line)
    out.append("MB/sec = 2^20 bytes/s; Hmean: harmonic mean of the repetitions; % against the first column.")
    # what each column ran: the scheduler and its behaviour profile (cfq_version=3.16: the
    # thread's kernel; 4.19 beside it where the matrix has it)
    for c in m.configs:
        d = m.describe(c)
        if d and d != c:
            out.append(f"  {c}: {d}")
