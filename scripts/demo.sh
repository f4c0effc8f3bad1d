#!/usr/bin/env bash
# The main job (`make demo`: the Makefile runs `make setup` and `make all` first and passes the
# time it started in DEMO_T0, so that the closing wall time includes them).
#
# 1. Every seed thread in virtual time. For each jobs/<seed>/ with a seed_report.py, its
#    matrix.ini (2017: embedded-bfq.ini, since its matrix.ini puts the kernel's bfq on a loop
#    device, which virtual time cannot run, and embedded-bfq.ini has the cells the thread's claims
#    need: cfq, and bfq-mq as bfq 4.12 with low_latency 1 and 0) runs with `schedbench run
#    --clock virtual --repeat 1` into the experiment NAME-virtual (one repetition: in the
#    simulator the repetitions of these matrices give the same numbers, within 0.1%). Then the
#    seed's table and its claims (`schedbench report --brief`): one line per claim the thread
#    published, `verdict REPRODUCED: ...`, `verdict NOT REPRODUCED: ...` or `verdict NOT
#    MEASURED: ...`, with the criterion, the published figure, ours and why in a few words
#    (claims() in jobs/<seed>/seed_report.py; scripts/schedreport/seeds.py).
# 2. One seed in real time: 2010, "[RFC/RFT PATCH] cfq-iosched: Implement cfq group idling"
#    (jobs/cfq-group-idle-2010/matrix.ini: two cgroups of weights 100 and 200, 1..8 sequential
#    readers each, CFQ with slice_idle/group_idle 8/8, 0/8 and 0/0), with --repeat 1, into the
#    experiment of the matrix's name: its tables and claims, and its HTML report
#    results/report-2010/index.html (and, when Debian's chromium is installed, a checked
#    screenshot, results/report-2010/screenshot.png).
#    Why 2010: its real-time verdicts are its virtual-time ones (3 of 5 claims reproduced, the
#    same 3, on 2026-12-07), and its matrix is short: 12 runs of 64 MiB per reader, ~30 s. 2009
#    (4 runs of 10 s, ~55 s) has its dd-loop deadline claim on the edge (2.9 to 3.1 x CFQ's mean
#    against 3 x, from 2 or 3 fsyncs per run), so its verdict changes from run to run; 2017's
#    claims all reproduce in virtual time but its real-time matrix is 40 runs of 10 s; 2014 is
#    10 runs of 30 s or more; 2015 reproduces none of its 2 claims (known gaps).
# 3. A summary: the claims reproduced in virtual time, N of M (and how many not reproduced, not
#    measured), those of the real-time seed, and the wall time.
#
# Cells already in the database are skipped, so running it again only re-prints (pass --force to
# re-run them). Other arguments go to every `schedbench run`, after the demo's own (so --repeat N
# there wins). Environment: SCHEDBENCH_DB (default results/schedengine.db), BUILD (default build),
# DEMO_T0 (the wall clock's start, `date +%s.%N`; default: this script's start).
# Exit status: 0 every run and report succeeded (whatever the verdicts), 1 one failed, 2 bad input
# (a missing build, DEMO_T0, an argument schedbench run refuses: one line), 130 interrupted.
set -uo pipefail
t0=$(date +%s.%N)
T0=${DEMO_T0:-$t0}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
BUILD=${BUILD:-build}
case $BUILD in /*) bdir=$BUILD ;; *) bdir=$top/$BUILD ;; esac
sb="$bdir/schedbench"
db=${SCHEDBENCH_DB:-$top/results/schedengine.db}
real_seed=cfq-group-idle-2010
real_matrix=jobs/$real_seed/matrix.ini
real_repeat=1

for f in "$sb" "$bdir/libschedengine.so"; do
	[ -e "$f" ] || { echo "demo: $f is not built (run make demo, or make first)" >&2; exit 2; }
done
[ -x "$bdir/schedsim" ] || { echo "demo: $bdir/schedsim is not built (make)" >&2; exit 2; }
case $T0 in '' | *[!0-9.]*) echo "demo: DEMO_T0 '$T0' is not a time in seconds (date +%s.%N)" >&2; exit 2 ;; esac
mkdir -p "$(dirname "$db")" || { echo "demo: cannot make the directory of $db" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

secs() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(date +%s.%N)"; }
# matrix_key FILE KEY: KEY's value in FILE's [matrix] section (comments and blanks stripped)
matrix_key() {
	awk -v k="$2" '/^\[/ { s = ($0 ~ /^\[matrix\]/) } s && $0 ~ "^" k "[ \t]*=" {
		sub(/^[^=]*=[ \t]*/, ""); sub(/[ \t]*;.*$/, ""); sub(/[ \t]+$/, ""); print; exit }' "$1"
}
# count FILE...: "R N X M" = reproduced, not reproduced, not measured, total verdict lines
count() {
	cat "$@" | awk '/^verdict REPRODUCED:/ { r++ } /^verdict NOT REPRODUCED:/ { n++ }
		/^verdict NOT MEASURED:/ { x++ } END { printf "%d %d %d %d\n", r, n, x, r + n + x }'
}

rc=0
rev=$(git -C "$top" describe --always --dirty 2>/dev/null || echo "unknown")
echo "schedengine demo, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $rev, database $db"
echo "Every seed thread in virtual time (the simulator: the same policies, block layer and device"
echo "models), each thread's table with ours and one verdict line per claim it published; then one"
echo "seed in real time (fio through the engine) with its HTML report."
echo

# ---- 1. every seed in virtual time ----
vstart=$(date +%s.%N)
seeds=() reports=()
for dir in jobs/*/; do
	dir=${dir%/}
	[ -f "$dir/seed_report.py" ] || continue
	seed=${dir#jobs/}
	matrix=$dir/matrix.ini
	[ "$seed" = bfq-mq-vs-cfq-2017 ] && matrix=$dir/embedded-bfq.ini
	[ -f "$matrix" ] || { echo "demo: $seed has no $matrix" >&2; rc=1; continue; }
	name=$(matrix_key "$matrix" name) fmt=$(matrix_key "$matrix" report)
	[ -n "$name" ] && [ -n "$fmt" ] || { echo "demo: $matrix: no name or report in [matrix]" >&2; rc=1; continue; }
	exp=$name-virtual
	seeds+=("$seed")
	echo "== $fmt: $seed, virtual time: schedbench run $matrix --clock virtual --repeat 1 (experiment $exp)"
	s=$(date +%s.%N)
	"$sb" run "$matrix" --db "$db" --clock virtual --repeat 1 --experiment "$exp" --engine "$bdir/libschedengine.so" "$@" >"$tmp/$seed.run" 2>&1
	r=$?
	[ $r -eq 130 ] && { tail -n 3 "$tmp/$seed.run"; exit 130; }
	# 2: usage or input error (a bad argument of ours or the caller's): its one line, and stop
	[ $r -eq 2 ] && { echo "demo: $(grep -v "try 'schedbench run --help'" "$tmp/$seed.run" | tail -n 1)" >&2; exit 2; }
	if [ $r -ne 0 ]; then
		tail -n 15 "$tmp/$seed.run" >&2
		echo "demo: $seed: schedbench run failed (exit $r)" >&2
		rc=1
	else
		echo "$(tail -n 1 "$tmp/$seed.run" | sed 's/ (db .*//') ($(secs "$s") s of wall time)"
	fi
	"$sb" report --db "$db" -e "$exp" --format "$fmt" --brief >"$tmp/$seed.report" 2>&1 ||
		{ echo "demo: $seed: the report failed" >&2; rc=1; }
	sed 1d "$tmp/$seed.report" # its first line repeats the experiment's name
	reports+=("$tmp/$seed.report")
done
vsecs=$(secs "$vstart")
read -r vr vn vx vm < <(count "${reports[@]}")
echo "virtual time: ${#seeds[@]} seeds in $vsecs s of wall time; their claims: $vr of $vm reproduced," \
	"$vn not reproduced, $vx not measured"
echo

# ---- 2. one seed in real time ----
rname=$(matrix_key "$real_matrix" name) rfmt=$(matrix_key "$real_matrix" report)
html=$(dirname "$db")/report-$rfmt/index.html
echo "== $rfmt in real time: schedbench run $real_matrix --repeat $real_repeat (experiment $rname;" \
	"fio through the engine)"
rstart=$(date +%s.%N)
"$sb" run "$real_matrix" --db "$db" --repeat "$real_repeat" --engine "$bdir/libschedengine.so" "$@"
r=$?
[ $r -eq 130 ] && exit 130 # interrupted: run it again to resume
[ $r -ne 0 ] && rc=1
echo
"$sb" report --db "$db" -e "$rname" --format "$rfmt" --brief >"$tmp/real.report" 2>&1 ||
	{ echo "demo: the real-time report failed" >&2; rc=1; }
sed 1d "$tmp/real.report"
shot=()
if command -v chromium >/dev/null 2>&1; then
	shot=(--screenshot "$(dirname "$html")/screenshot.png")
else
	echo "(no screenshot of the HTML report: chromium is not installed; apt-get install chromium)"
fi
out=$("$sb" report --db "$db" -e "$rname" --format "$rfmt" --csv "$(dirname "$html")/summary.csv" --html "$html" \
	"${shot[@]}" 2>&1)
r=$?
if [ $r -eq 0 ]; then
	echo "HTML report: $html (plots in $(dirname "$html")/plots, CSV summary.csv)"
	echo "$out" | grep '^screenshot '
else
	echo "$out" | tail -n 3 >&2
	echo "demo: the HTML report failed (report exit $r)" >&2
	rc=1
fi
rsecs=$(secs "$rstart")
read -r rr rn rx rm < <(count "$tmp/real.report")
echo

# ---- 3. summary ----
echo "== summary ($(date -u '+%Y-%m-%d'), commit $rev)"
echo "virtual time, ${#seeds[@]} seeds: claims reproduced $vr of $vm ($vn not reproduced, $vx not measured) in $vsecs s"
echo "real time, $rfmt: claims reproduced $rr of $rm ($rn not reproduced, $rx not measured) in $rsecs s"
echo "demo: done in $(secs "$T0") s of wall time$([ -n "${DEMO_T0:-}" ] && echo " since make demo started (set-up and build included)")" \
	"(database $db; run again to skip finished cells, --force to re-run them)"
exit $rc
