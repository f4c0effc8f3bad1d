"""2009 "SSD and IO schedulers" (Heinz Diehl's fsync-tester numbers): the 'fsync time: S' lists per
configuration with a summary, and a CDF of ours against the published samples."""
from collections import defaultdict

from schedreport.seeds import col, num, published_rows
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
    if not times:
        t = run.totals.get("sync")
        if t:
            times = [t["lat"] / 1e3]
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
    return "deadline" if "deadline" in d else "cfq" if "cfq" in d else None


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
        if times:
            st = sorted(times)
            out.append(f"\nsummary: n={len(times)} mean {mean(times):.4f} s  p50 {st[len(st) // 2]:.4f}  "
                       f"p99 {st[min(len(st) - 1, int(len(st) * 0.99))]:.4f}  max {st[-1]:.4f}")
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
