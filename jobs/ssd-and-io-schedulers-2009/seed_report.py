"""2009 "SSD and IO schedulers" (Heinz Diehl's fsync-tester numbers): the 'fsync time: S' lists per
configuration with a summary, a CDF of ours against the published samples, and the thread's claims
judged on our runs."""
import os
from collections import defaultdict

from schedreport.seeds import claim, col, num, published_rows
from schedreport.stats import mean

FORMAT = "2009"
CITATION = ('"SSD and IO schedulers", linux-kernel, started by Lorenzo Allegrucci on Fri 30 Jan 2009; the '
            'numbers are Heinz Diehl\'s (8 and 9 Apr 2009). No archive link to the thread was found; search a '
            'linux-kernel archive (lore.kernel.org/lkml, lkml.org) for the subject.')


def fsync_times(run):
    """Individual fsync latencies in seconds, from the json+ histogram bins of the sync direction
    (value order, not time order: fio does not log fsyncs one by one)."""
    times = []
    for j in (run.fio or {}).get("jobs", []):
        bins = j.get("sync", {}).get("lat_ns", {}).get("bins") or {}
        for ns, cnt in sorted(bins.items(), key=lambda kv: int(kv[0])):
            times += [int(ns) / 1e9] * int(cnt)
    return times


def _published(m):
    """{(job file, scheduler): [fsync seconds]} of the samples the thread kept (not the retracted)."""
    out = defaultdict(list)
    for p in published_rows(m.runs):
        v = num(col(p, "fsync_s"))
        if v is not None and (col(p, "status") or "published") == "published":
            out[(col(p, "job_file"), col(p, "scheduler"))].append(v)
    return out


def _sched_of(m, c):
    d = f"{c} {m.describe(c)}"
    if "deadline" in d:
        return "deadline"
    if "cfq_version=4.19" in d:
        return "cfq-4.19"  # the default profile's column, beside the era's (2.6.32)
    return "cfq" if "cfq" in d else None


def table(m, out, args=None):
    """fsync-tester (2009): 'fsync time: S' list per configuration, then a summary."""
    for (jf, sched), ts in sorted(_published(m).items()):
        out.append(f"published, {jf} with {sched}: n={len(ts)} mean {mean(ts):.4f} s  min {min(ts):.4f}  "
                   f"max {max(ts):.4f}")
    out.append("")
    for c in m.configs:
        out.append(f"with {c}:" + (f" ({m.describe(c)})" if m.describe(c) != c else "") + "\n")
        times = []
        for r in m.runs_of(c):
            times += fsync_times(r)
        for t in times[:200]:
            out.append(f"fsync time: {t:.4f}")
        if len(times) > 200:
            out.append(f"... ({len(times) - 200} more)")
        f = _fsyncs(m.runs_of(c), job=None)
        if times:
            st = sorted(times)
            out.append(f"\nsummary: n={len(times)} mean {mean(times):.4f} s  p50 {st[len(st) // 2]:.4f}  "
                       f"p99 {st[min(len(st) - 1, int(len(st) * 0.99))]:.4f}  max {st[-1]:.4f}")
        elif f:
            # no json+ histogram (the simulator's output has none): fio's count, mean and max
            out.append(f"summary: n={f[0]} mean {f[1]:.4f} s  max {f[2]:.4f}  (no per-fsync times in "
                       f"this run's output: fio's count, mean and longest)")
        else:
            out.append("(no fsync samples: the job needs fsync=N)")
        out.append("")


def plots(m, p):
    """The CDF of fsync times: ours (solid) and the thread's samples (dashed) per configuration."""
    if not any(fsync_times(r) for r in m.runs):
        return
    plt = p.plt
    pub = _published(m)
    fig, ax = plt.subplots(figsize=(9, 4.8))
    drawn = set()
    for c in m.configs:
        rs = m.runs_of(c)
        times = sorted(t for r in rs for t in fsync_times(r))
        if not times:
            continue
        ax.step(times, [(i + 1) / len(times) for i in range(len(times))], where="post", color=p.color.get(c),
                label=f"{c} (ours, n={len(times)})")
        jobs = {(r.job_path or "").rsplit("/", 1)[-1] for r in rs}
        for jf in jobs:
            key = (jf, _sched_of(m, c))
            if key in pub and key not in drawn:
                drawn.add(key)
                ts = sorted(pub[key])
                ax.step(ts, [(i + 1) / len(ts) for i in range(len(ts))], where="post", linestyle="--",
                        color=p.color.get(c), label=f"{c} (published, n={len(ts)})")
    xs = [t for line in ax.get_lines() for t in line.get_xdata()]
    p.log_axis(ax, max(min(xs), 1e-4), max(xs), axis="x")
    ax.set_xlabel("fsync latency (s)")
    ax.set_ylabel("fraction of fsyncs")
    ax.set_ylim(0, 1.01)
    ax.set_title(f"{m.exp['name']}: fsync latency, ours and the thread's samples")
    ax.legend(fontsize=7, loc="lower right")
    p.save(fig, "fsync", "fsync-tester's fsync times: ours from fio's json+ histogram of the sync direction, "
           "the thread's from Heinz Diehl's mails. " + p.definitions())


# ---- the thread's claims ----
# Heinz Diehl's: under Linus' dd loop "The DL elevator ... is almost unusable under load" (his
# fsync times: cfq 0.24..1.96 s, deadline 3.10..10.61 s); with 10 readers on the SSD "The results
# between CFQ and DL don't differ visibly" (cfq 0.017..0.237 s, deadline 0.019..0.031 s); and
# bonnie++ "the overall results doesn't differ significantly". The bands are the test suite's
# (tests/unit/test_seed_buffered.c: test_2009_fsync_under_dd_job_file,
# test_2009_fsync_under_readers): a mean inside the published samples' range; deadline under the
# dd loop at least one fsync as long as the published shortest and a mean at least 3 x cfq's.
DD, READERS, BONNIE = "fsync-tester-vs-dd-loop.fio", "fsync-tester-vs-10-readers.fio", "bonnie-equivalent.fio"
DL_OVER_CFQ = 3.0
BONNIE_PHASES = (("block-write", "seq_out_block_KBps"), ("rewrite", "seq_out_rewrite_KBps"),
                 ("block-read", "seq_in_block_KBps"))
BONNIE_BAND = (0.90, 1.10)  # "doesn't differ significantly": deadline/cfq within +-10% per phase


def _runs_of(m, jf, sched):
    """Our runs of job file jf under scheduler sched (cfq, deadline)."""
    return [r for c in m.configs if _sched_of(m, c) == sched for r in m.runs_of(c)
            if os.path.basename(r.job_path or "") == jf]


def _fsyncs(runs, job="fsync-tester"):
    """(n, mean s, longest s) of the fsyncs of job (fsync-tester; None: every job) over the runs (fio's
    sync direction), or None."""
    n = tot = longest = 0
    for r in runs:
        for j in r.jobs:
            if j["ddir"] == "sync" and (job is None or j["jobname"] == job) and j["total_ios"]:
                n += j["total_ios"]
                tot += (j["lat_mean_ns"] or 0) * j["total_ios"]
                longest = max(longest, j["lat_max_ns"] or 0)
    return (n, tot / n / 1e9, longest / 1e9) if n else None


def _fmt_f(f):
    return f"mean {f[1]:.3f} s, longest {f[2]:.3f} (n={f[0]})"


def claims(m):
    pub = _published(m)
    if not pub:  # the experiment's job files are not the seed's: the seed's own published.csv
        for p in published_rows([], SEED_DIR):  # noqa: F821 (set by the loader, seeds._load)
            v = num(col(p, "fsync_s"))
            if v is not None and (col(p, "status") or "published") == "published":
                pub[(col(p, "job_file"), col(p, "scheduler"))].append(v)
    ours = {(jf, sc): _fsyncs(_runs_of(m, jf, sc)) for jf in (DD, READERS) for sc in ("cfq", "deadline")}
    out = []

    def prange(jf, sc):
        ts = pub.get((jf, sc)) or []
        return (min(ts), max(ts), mean(ts)) if ts else None

    def missing(jf, *scs):
        return f"no {' and '.join(scs)} cells on {jf} in this experiment"

    # dd loop, cfq: inside the published range.
    pr = prange(DD, "cfq")
    if pr:
        f = ours[(DD, "cfq")]
        out.append(claim("dd loop: CFQ's fsync times (Heinz's 'with cfq:' list)", f"mean within {pr[0]:.2f}..{pr[1]:.2f} s",
                         f"{pr[0]:.2f}..{pr[1]:.2f} s, mean {pr[2]:.2f}", _fmt_f(f) if f else None,
                         pr[0] <= f[1] <= pr[1] if f else None,
                         why_ok="fsync's async writes (2.6.29 xfs) wait in CFQ's async queue behind dd's "
                         "writeback, served in each async slice (jobs/README.md)",
                         why_not="not analysed", why_missing=missing(DD, "cfq")))
    # dd loop, deadline: "almost unusable under load".
    pr, pc = prange(DD, "deadline"), ours[(DD, "cfq")]
    if pr:
        f = ours[(DD, "deadline")]
        ok = f[2] >= pr[0] and pc is not None and f[1] >= DL_OVER_CFQ * pc[1] if f else None
        out.append(claim("dd loop: 'The DL elevator ... is almost unusable under load'",
                         f"longest fsync >= {pr[0]:.2f} s (the published shortest) and mean >= {DL_OVER_CFQ:g} x CFQ's",
                         f"{pr[0]:.2f}..{pr[1]:.2f} s, mean {pr[2]:.2f} ({pr[2] / prange(DD, 'cfq')[2]:.1f} x CFQ's)"
                         if prange(DD, "cfq") else f"{pr[0]:.2f}..{pr[1]:.2f} s",
                         (_fmt_f(f) + (f", {f[1] / pc[1]:.1f} x CFQ's" if pc else "")) if f and pc else None, ok,
                         why_ok="the fsync's writes wait behind dd's writeback until the write FIFO's 5 s "
                         "(write_expire) expire; the run's first fsync, before dd fills the queue, is short",
                         why_not="not analysed", why_missing=missing(DD, "cfq", "deadline")))
    # 10 readers, deadline: inside the published range.
    pr = prange(READERS, "deadline")
    if pr:
        f = ours[(READERS, "deadline")]
        out.append(claim("10 readers: DL's fsync times (Heinz's list)", f"mean within {pr[0]:.3f}..{pr[1]:.3f} s",
                         f"{pr[0]:.3f}..{pr[1]:.3f} s, mean {pr[2]:.3f}", _fmt_f(f) if f else None,
                         pr[0] <= f[1] <= pr[1] if f else None,
                         why_ok="deadline serves the fsync's writes in the write FIFO's turn between the "
                         "readers' batches", why_not="not analysed", why_missing=missing(READERS, "deadline")))
    # 10 readers, cfq: "don't differ visibly" from DL: inside the published range.
    pr, pd = prange(READERS, "cfq"), ours[(READERS, "deadline")]
    if pr:
        f = ours[(READERS, "cfq")]
        order = f" ({f[1] / pd[1]:.0f} x DL's, the thread's ordering kept)" if f and pd and f[1] > pd[1] else ""
        out.append(claim("10 readers: CFQ and DL 'don't differ visibly'", f"CFQ's mean within {pr[0]:.3f}..{pr[1]:.3f} s",
                         f"{pr[0]:.3f}..{pr[1]:.3f} s, mean {pr[2]:.3f}", _fmt_f(f) if f else None,
                         pr[0] <= f[1] <= pr[1] if f else None,
                         why_ok="CFQ serves the fsync's async writes between the ten sync readers' slices",
                         why_not=f"{f[1] / pr[2]:.1f} x the published mean{order}: its 1 MiB, async writes on "
                         f"2.6.29's xfs, waits behind ten sync readers' slices; why longer than on wildsau: not "
                         f"analysed (jobs/README.md)" if f else "",
                         why_missing=missing(READERS, "cfq")))
    # bonnie++: CFQ ~ DL, the block phases' throughput.
    prow = {col(p, "scheduler"): p for p in published_rows([], SEED_DIR)  # noqa: F821
            if col(p, "table") == "wildsau-bonnie-corrected"}
    if "cfq" in prow and "deadline" in prow:
        lo, hi = BONNIE_BAND
        pubr = [(ph, num(col(prow["deadline"], k)) / num(col(prow["cfq"], k))) for ph, k in BONNIE_PHASES]
        bw = {}
        for sc in ("cfq", "deadline"):
            per = defaultdict(list)
            for r in _runs_of(m, BONNIE, sc):
                got = defaultdict(float)
                for j in r.jobs:
                    got[j["jobname"]] += j["bw_kib"] or 0
                for ph, _ in BONNIE_PHASES:
                    if got.get(ph):
                        per[ph].append(got[ph])
            bw[sc] = {ph: mean(v) for ph, v in per.items()}
        have = all(ph in bw[sc] for sc in bw for ph, _ in BONNIE_PHASES)
        ratios = [(ph, bw["deadline"][ph] / bw["cfq"][ph]) for ph, _ in BONNIE_PHASES] if have else None
        out.append(claim("bonnie++: 'the overall results doesn't differ significantly' (CFQ vs DL)",
                         f"DL/CFQ throughput within {lo:.2f}..{hi:.2f} in each block phase",
                         " ".join(f"{ph} {r:.3f}" for ph, r in pubr),
                         " ".join(f"{ph} {r:.3f}" for ph, r in ratios) if ratios else None,
                         all(lo <= r <= hi for _, r in ratios) if ratios else None,
                         why_ok="one sequential stream at a time: nothing for either to reorder",
                         why_not="not analysed",
                         why_missing=f"no cfq and deadline cells on {BONNIE}: the matrix does not run it"))
    return out
