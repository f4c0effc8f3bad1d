"""Statistics of repetitions: means as mmtests takes them (harmonic for rates), Welch's t-test from
scipy, and a formatter that never prints nan."""
import math
import statistics
import warnings


def _scipy_stats():
    """scipy.stats, imported when a test is first needed: it takes 0.4 s, which every report
    paid before its first line, usage errors and empty databases too."""
    try:
        from scipy import stats
    except ImportError:  # python3-scipy is a dependency (scripts/setup.sh); say so when missing
        raise RuntimeError("scipy is not installed (apt-get install python3-scipy)") from None
    return stats

# Repetitions a side before a difference is tested at all.
MIN_REPS = 3


def mean(xs):
    xs = [x for x in xs if x is not None]
    return statistics.fmean(xs) if xs else float("nan")


def hmean(xs):
    """Harmonic mean, as mmtests averages rates (IOPS, bandwidth): the rate of the total work over
    the total time when every repetition does the same amount of work."""
    xs = [x for x in xs if x is not None]
    if not xs:
        return float("nan")
    if any(x <= 0 for x in xs):
        return 0.0 if any(x == 0 for x in xs) else float("nan")
    return statistics.harmonic_mean(xs)


def stddev(xs):
    xs = [x for x in xs if x is not None]
    return statistics.stdev(xs) if len(xs) >= 2 else float("nan")


def cov_pct(xs):
    m = mean(xs)
    s = stddev(xs)
    return 100.0 * s / m if m and not math.isnan(s) else float("nan")


def welch(xs, ys):
    """Welch's t-test (unequal variances): (t, two-sided p). NaN when either side has < 2 samples."""
    if len(xs) < 2 or len(ys) < 2:
        return float("nan"), float("nan")
    if stddev(xs) == 0 and stddev(ys) == 0:
        return (0.0, 1.0) if mean(xs) == mean(ys) else (float("inf"), 0.0)
    stats = _scipy_stats()
    with warnings.catch_warnings():  # nearly equal samples: scipy warns, the answer stands
        warnings.simplefilter("ignore", RuntimeWarning)
        r = stats.ttest_ind(xs, ys, equal_var=False)
    return float(r.statistic), float(r.pvalue)


def jain(xs):
    xs = [x for x in xs if x is not None]
    if not xs or sum(x * x for x in xs) == 0:
        return float("nan")
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def fmt(v, p=2, none="-"):
    """A number, or '-' (never 'nan')."""
    if v is None or (isinstance(v, float) and (math.isnan(v) or math.isinf(v))):
        return none
    return f"{v:.{p}f}"


def fmt_sig(v, none="-"):
    """A number with 2 decimals, or 3 significant digits below 1 (0.000823 ms, not 0.00)."""
    if v is None or (isinstance(v, float) and (math.isnan(v) or math.isinf(v))):
        return none
    return f"{v:.2f}" if v == 0 or abs(v) >= 1 else f"{v:.3g}"


def percentile_from_bins(bins, pct):
    """The pct-th percentile of a histogram {value: count} (fio json+ 'bins'), in its unit."""
    total = sum(bins.values())
    if not total:
        return float("nan")
    want = total * pct / 100.0
    acc = 0
    for v in sorted(bins):
        acc += bins[v]
        if acc >= want:
            return v
    return max(bins)
