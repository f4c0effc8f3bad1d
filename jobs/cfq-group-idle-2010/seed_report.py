"""2010 "[RFC/RFT PATCH] cfq-iosched: Implement cfq group idling": the thread's three tables
(job Set NR test1 test2, KB/s per group), each before our configuration with the same
slice_idle/group_idle, and the published totals for the plots."""
from collections import OrderedDict, defaultdict

from schedreport.seeds import col, num, published_rows
from schedreport.stats import fmt, jain, mean

FORMAT = "2010"
CITATION = ('"[RFC/RFT PATCH] cfq-iosched: Implement cfq group idling", Vivek Goyal, linux-kernel, Wed 7 Jul '
            '2010; the numbers are in his mail as quoted by Nauman Rafique\'s reply of Wed 7 Jul 2010 22:53:48 '
            '-0700. Archive: the lists.openwall.net linux-kernel archive holds the reply (our copy is theirs; '
            'the exact message URL was not recorded, and no other link was found).')


def _tunables(r):
    """(slice_idle, group_idle) of one of our runs, CFQ's defaults when not given."""
    e = r.overlays.get("engine_opts", {}) if r.overlays.get("mode") == "embedded" else r.overlays.get("iosched", {})
    return (str(e.get("slice_idle", "8")), str(e.get("group_idle", "8")))


def _match(m, pub):
    """{our configuration: published table} by slice_idle/group_idle."""
    match = {}
    for t in OrderedDict((col(p, "table") or "", 1) for p in pub):
        p = next(p for p in pub if (col(p, "table") or "") == t)
        key = (col(p, "slice_idle_ms") or "", col(p, "group_idle_ms") or "")
        for c in m.configs:
            rs = m.runs_of(c)
            if rs and _tunables(rs[0]) == key and c not in match:
                match[c] = t
                break
    return match


def published_points(m):
    """The thread's total (test1 + test2) KB/s per NR, at our configuration with its tunables."""
    pub = published_rows(m.runs)
    pts = []
    for c, t in _match(m, pub).items():
        for p in pub:
            if (col(p, "table") or "") != t:
                continue
            nr = col(p, "nr_readers_per_group", "nr")
            a, b = num(col(p, "test1_KBps")), num(col(p, "test2_KBps"))
            if nr in m.xs and a is not None and b is not None:
                pts.append((c, nr, "bw", a + b, "total of both groups, KB/s"))
    return pts


def table(m, out, args=None):
    """CFQ group_idle (2010): per configuration, job Set NR test1 test2 (KB/s per group)."""
    pub = published_rows(m.runs)
    groups = sorted({j["jobname"] for r in m.runs for j in r.jobs if j["ddir"] == m.ddir})

    def pub_block(t):
        rows = [f"published: {t}", "=" * max(11, len(t)), "job Set NR test1 test2", "--- --- -- --------------"]
        for p in pub:
            if (col(p, "table") or "") == t:
                rows.append(f"{col(p, 'job', 'workload') or 'bsr'} {col(p, 'set') or 1} "
                            f"{col(p, 'nr_readers_per_group', 'nr') or '?'} {col(p, 'test1_KBps') or '?'} "
                            f"{col(p, 'test2_KBps') or '?'}")
        return rows + [""]

    tables = list(OrderedDict((col(p, "table") or "", 1) for p in pub))
    # a published table goes right before our configuration with the same slice_idle/group_idle
    match = _match(m, pub)
    for t in tables:
        if t not in match.values():
            out += pub_block(t)
    job = "bsr" if m.ddir == "read" else "bsw" if m.ddir == "write" else m.ddir
    for c in m.configs:
        if c in match:
            out += pub_block(match[c])
        desc = m.describe(c)
        title = f"schedbench: {c or m.exp['name']}" + (f" ({desc})" if desc and desc != c else "")
        out += [title, "=" * len(title)]
        some = next(iter(m.runs_of(c)), None)
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
    out.append("test1/test2: KiB/s of each group (fio's bw; the thread's KB/s); Set = repetition.")
