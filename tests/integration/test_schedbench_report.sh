#!/usr/bin/env bash
# Reports on a small database: every seed-table format, --compare with Welch's t-test (3
# repetitions a side), --fail-above, CSV, PNG/SVG plots (non-empty) and the HTML page.
. "$(dirname "$0")/schedbench_lib.sh"
cd "$T"
cat >rated.fio <<'J'
[global]
ioengine=null
size=64m
bs=4k
time_based
runtime=1
[test1]
rw=read
[test2]
rw=read
J
cat >m.ini <<'M'
[matrix]
name = rated
jobs = rated.fio
repeat = 3
report = 2017
x_axis = numjobs
baseline = fast
[axis.speed]
fast = rate_iops=4000
slow = rate_iops=2000
[axis.numjobs]
values = 1 | 2
M
"$SB" run m.ini --db "$T/db.sqlite" >run.log 2>&1 || { cat run.log; fail "run"; }
printf '[fsync]\nioengine=psync\nrw=write\nbs=4k\nsize=256k\nfsync=1\nfilename=%s/fsync.dat\n' "$T" >fsync.fio
fio --output-format=json+ fsync.fio >fsync.out 2>&1 || fail "fio fsync"
"$SB" ingest fsync.out --db "$T/db.sqlite" --experiment fsync-2009 --label sched=deadline >/dev/null || fail ingest
rep() { "$SB" report --db "$T/db.sqlite" "$@"; }
rep --list | grep -q '^rated ' || fail "--list"
for f in 2015 2010 2014 2017 generic; do
	rep -e rated --format $f >"r-$f.txt" 2>&1 || { cat "r-$f.txt"; fail "format $f"; }
done
grep -q '^Speed      iops    avg-lat(ms)    stddev            bw$' r-2015.txt || fail "2015 header"
grep -Eq 'KB/s$' r-2015.txt || fail "2015 bw column"
grep -q '^job Set NR test1 test2$' r-2010.txt || fail "2010 header"
grep -Eq '^bsr [12] 1 [0-9]+ [0-9]+$' r-2010.txt || fail "2010 rows"
grep -q 'Jain' r-2010.txt || fail "2010 shares"
grep -Eq '^Hmean SeqRead-MB/sec-2 +[0-9.]+ \(  0.00%\)' r-2014.txt || fail "2014 rows"
grep -q '^bs mean stddev mean stddev$' r-2017.txt || fail "2017 header"
grep -Eq '^2 & [0-9.]+ & [0-9.]+ & [0-9.]+ & [0-9.]+$' r-2017.txt || fail "2017 rows"
# the numbers, not only the shapes: each table cell against the harmonic mean of the runs in the
# database (2015: iops per configuration and numjobs; 2017: bandwidth mean and stddev)
python3 - "$T/db.sqlite" r-2015.txt r-2017.txt <<'PY' || fail "report numbers differ from the database"
import re, sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1])
runs = {}
for cell, iops, bw in db.execute("SELECT cell_name, iops, bw_kib FROM run_totals WHERE experiment = 'rated'"):
    speed, nj = re.match(r"speed=(\w+) numjobs=(\d+)", cell).groups()
    runs.setdefault((speed, int(nj)), []).append((iops, bw))
assert len(runs) == 4 and all(len(v) == 3 for v in runs.values()), runs
hm = lambda xs: statistics.harmonic_mean(xs)
seen = 0
for line in open(sys.argv[2]):
    m = re.match(r"^(fast|slow) numjobs=(\d) +(\d+) ", line)
    if m:
        want = hm([i for i, _ in runs[(m[1], int(m[2]))]])
        assert abs(int(m[3]) - want) <= 1, (line, want)
        seen += 1
assert seen == 4, f"2015 rows: {seen}"
seen = 0
for line in open(sys.argv[3]):
    m = re.match(r"^(\d) & ([0-9.]+) & ([0-9.]+) & ([0-9.]+) & ([0-9.]+)$", line)
    if m:
        for col, speed in ((2, "fast"), (4, "slow")):
            bws = [b for _, b in runs[(speed, int(m[1]))]]
            assert abs(float(m[col]) - hm(bws)) < 0.01, (line, speed, hm(bws))
            assert abs(float(m[col + 1]) - statistics.stdev(bws)) < 0.01, (line, speed, statistics.stdev(bws))
        seen += 1
assert seen == 2, f"2017 rows: {seen}"
print("2015 and 2017 tables agree with the database (4 + 2 rows)")
PY
rep -e fsync-2009 --format 2009 >r-2009.txt || fail "2009"
nsync=$(q "SELECT total_ios FROM results WHERE ddir = 'sync'")
[ "$nsync" -gt 30 ] || fail "fsyncs: $nsync"
[ "$(grep -c '^fsync time: ' r-2009.txt)" = "$nsync" ] || fail "2009 list: $(cat r-2009.txt)"
grep -q "^summary: n=$nsync " r-2009.txt || fail "2009 summary"
cat r-2015.txt r-2017.txt
# compare: slow is a significant regression of fast (rate-limited, so the difference is ~50%).
# Runs of 1 s: in 300 ms fio's rate limiter reached 4962..7977 of fast's 8000 IOPS on a loaded
# machine (CoV 25%), and Welch's test at n=3 rightly found nothing; both numjobs rows must be marked.
rep -e rated --compare --metrics iops >cmp.txt || fail "compare"
cat cmp.txt
for n in 1 2; do
	grep -Eq "^Hmean +iops-$n .*\\( *-[0-9.]+%\\)\\*" cmp.txt || fail "no significant difference marked (numjobs=$n)"
done
grep -q '^CoeffVar' cmp.txt || fail "CoeffVar row"
rep -e rated --fail-above 10 --metrics iops >fail.txt && fail "--fail-above did not fail"
grep -q 'REGRESSION above 10' fail.txt || fail "regression not reported"
rep -e rated --fail-above 10 --baseline slow --metrics iops >/dev/null || fail "an improvement counted as regression"
rep -e rated --fail-above 80 --metrics iops >/dev/null || fail "threshold ignored"
# CSV, plots, HTML
rep --csv "$T/s.csv" --html "$T/html/index.html" >/dev/null || fail "html"
[ "$(wc -l <"$T/s.csv")" -ge 6 ] || fail "csv rows: $(cat "$T/s.csv")"
head -n1 "$T/s.csv" | grep -q '^experiment,configuration,definition,x_axis,x,ddir,n,iops_hmean' || fail "csv header"
for p in rated-throughput rated-shares rated-latency fsync-2009-fsync; do
	for ext in png svg; do
		[ -s "$T/html/plots/$p.$ext" ] || fail "plot $p.$ext missing or empty"
	done
done
head -c 8 "$T/html/plots/rated-throughput.png" | od -c | head -n1 | grep -q 'P   N   G' || fail "not a PNG"
grep -q '<img src="plots/rated-throughput.png"' "$T/html/index.html" || fail "html images"
grep -q 'class="cmp"' "$T/html/index.html" && fail "html has a compare table without --compare" || true
# Welch's t-test is scipy's (the hand-written incomplete beta is gone)
PYTHONPATH="$TOP/scripts" "$PY" - <<'PY' || fail "welch"
from scipy import stats
from schedreport.stats import welch, hmean
a, b = [10.1, 10.4, 9.8, 10.2, 10.0], [11.0, 10.7, 11.4, 10.9]
t, p = welch(a, b)
s = stats.ttest_ind(a, b, equal_var=False)
assert abs(s.statistic - t) < 1e-12 and abs(s.pvalue - p) < 1e-12, (t, p, s)
assert abs(hmean([1, 2, 4]) - 12 / 7) < 1e-12
print("welch", t, p)
PY
echo PASS
