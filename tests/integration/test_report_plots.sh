#!/usr/bin/env bash
# Issue 12, "Why" 5 and "What" 3: plots one can mail. The 2015 seed (categorical axis "device"):
# grouped bars, not a line joining two devices, with the thread's published values drawn beside ours
# and labelled, error bars from the repetitions, fio's IOPS and latency logs over time; a numeric
# axis (numjobs) gets lines; the latency plot has readable ticks and a CDF from the json+
# histograms; legends and captions say what each configuration is (On = slice_idle=8); the HTML
# leads with the seed's table and the plots and shows each comparison table once. What a figure
# shows is read from the JSON manifest written with each PNG/SVG.
. "$(dirname "$0")/schedbench_lib.sh"
ENGINE="$TOP/$BUILD/libschedengine.so"
case $BUILD in /*) ENGINE="$BUILD/libschedengine.so" ;; esac
[ -f "$ENGINE" ] || fail "engine not built: $ENGINE"
cd "$T"
# the 2015 seed matrix as `make demo` runs it, shorter
"$SB" run "$TOP/jobs/cfq-iops-mode-on-ssd-2015/matrix.ini" --db "$T/db.sqlite" --runtime 1 --repeat 2 \
	--engine "$ENGINE" >run15.log 2>&1 || { cat run15.log; fail "2015 run"; }
# a numeric axis
printf '[global]\nioengine=null\nsize=16m\ntime_based\nruntime=200ms\nnumjobs=${NJ}\n[j]\nrw=randread\n' >nj.fio
printf '[matrix]\nname = numjobs\njobs = nj.fio\nrepeat = 2\nx_axis = numjobs\n[axis.bs]\nvalues = 4k | 64k\n[axis.numjobs]\n1 = env.NJ=1\n2 = env.NJ=2\n4 = env.NJ=4\n' >nj.ini
"$SB" run nj.ini --db "$T/db.sqlite" >runnj.log 2>&1 || { cat runnj.log; fail "numjobs run"; }
"$SB" report --db "$T/db.sqlite" --compare --html "$T/html/index.html" >rep.txt 2>&1 || { cat rep.txt; fail "report"; }
# the HTML: the seed's table and the plots first, each comparison table once, On explained
H=$T/html/index.html
"$PY" - "$H" <<'PY' || fail "the HTML"
import re, sys
h = open(sys.argv[1]).read()
i = h.find('id="cfq-iops-mode-on-ssd-2015"')
sec = h[i:] if i >= 0 else h
sec = sec[:sec.find("<h2", 10)] if i >= 0 and "<h2" in sec[10:] else sec
def check(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")
    print("ok:", what)
i_table, i_img, i_cmp = sec.find("Idling     iops"), sec.find("<img "), sec.find('class="cmp"')
check(0 <= i_table < i_img < i_cmp, f"seed table ({i_table}), then plots ({i_img}), then the comparison ({i_cmp})")
check(sec.count('class="cmp"') == 1, "one comparison table")
check(sec.count("Hmean    iops-cloud-ssd") == 1, "its rows once (not again as text)")
check(re.search(r"<dt>On</dt><dd>embedded:cfq cfq_version=4.1 slice_idle=8</dd>", sec), "On = embedded:cfq cfq_version=4.1 slice_idle=8 stated")
check("Thread:" in sec and "Make CFQ default to IOPS mode on SSDs" in sec, "the thread is cited")
PY
P=$T/html/plots
for f in cfq-iops-mode-on-ssd-2015-throughput cfq-iops-mode-on-ssd-2015-latency cfq-iops-mode-on-ssd-2015-timeline \
	numjobs-throughput numjobs-latency; do
	for ext in png svg json; do [ -s "$P/$f.$ext" ] || fail "$f.$ext missing"; done
done
"$PY" - "$P" <<'PY' || fail "the plots"
import json, sys
P = sys.argv[1]
def load(n): return json.load(open(f"{P}/{n}.json"))
def check(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")
    print("ok:", what)
t = load("cfq-iops-mode-on-ssd-2015-throughput")
iops = t["axes"][0]
check(iops["kind"] == "bars" and iops["lines"] == 0, f"2015 throughput: bars for the categorical device axis, no line ({iops['kind']}, {iops['lines']} lines)")
check(iops["xticklabels"] == ["cloud-ssd", "ssd"], f"one group per device: {iops['xticklabels']}")
check(iops["bars"] == 8, f"our On/Off and the published On/Off per device: {iops['bars']} bars")
check(iops["errorbars"] >= 2, f"error bars on our bars: {iops['errorbars']}")
for v in ("7.05k", "29.3k", "19.3k", "21.6k"):   # the thread's IOPS, labelled on the plot
    check(v in iops["annotations"], f"published {v} drawn and labelled")
legend = t.get("legend", [])
check(any(l.startswith("On") and "slice_idle=8" in l for l in legend), f"the legend says On = slice_idle=8: {legend}")
check(any("published" in l for l in legend), "the legend names the published values")
check("On = embedded:cfq cfq_version=4.1 slice_idle=8" in t["caption"], "the caption defines the configurations")
check("IOPS" in iops["ylabel"] and "IO/s" in iops["ylabel"], f"units on the axis: {iops['ylabel']}")
lat = load("cfq-iops-mode-on-ssd-2015-latency")
pct, cdf = lat["axes"][0], lat["axes"][1]
check(len(pct["yticklabels"]) >= 3, f"latency percentiles: readable ticks {pct['yticklabels']}")
check(pct["xticklabels"][:3] == ["p50", "p90", "p99"], f"percentiles on x: {pct['xticklabels']}")
check("CDF" in cdf["title"] and cdf["lines"] >= 4 and len(cdf["xticklabels"]) >= 3, f"a CDF with ticks: {cdf['xticklabels']}")
tl = load("cfq-iops-mode-on-ssd-2015-timeline")
check(tl["axes"][0]["lines"] >= 4 and "IOPS over time" in tl["axes"][0]["title"], "IOPS over time from fio's logs")
check(tl["axes"][1]["lines"] >= 4 and "latency over time" in tl["axes"][1]["title"], "latency over time from fio's logs")
nj = load("numjobs-throughput")["axes"][0]
check(nj["kind"] == "lines" and nj["bars"] == 0, f"numjobs: lines for a numeric axis ({nj['kind']})")
check(nj["xticklabels"] == ["1", "2", "4"] and nj["xlabel"] == "numjobs", f"numjobs ticks: {nj['xticklabels']}")
PY
echo PASS
