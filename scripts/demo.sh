#!/usr/bin/env bash
# The main job (`make demo`; the Makefile has already run `make setup` and `make all`).
#
# First the matrix in virtual time (--clock virtual: the simulator runs the same policies, block
# layer and device models, ~1 s), its table; then in real time, as follows.
#
# Replays the 2015 seed (jobs/cfq-iops-mode-on-ssd-2015/, "[PATCH] block: Make CFQ default to
# IOPS mode on SSDs") with schedbench: its two verbatim job files on the engine's cloud-ssd and
# ssd device models, the embedded CFQ with idling on (slice_idle=8) and off (slice_idle=0), a
# short runtime and 2 repetitions (jobs/cfq-iops-mode-on-ssd-2015/matrix.ini), into
# results/schedengine.db. Then prints the thread's table ("Idling iops avg-lat(ms) stddev bw")
# with our rows beside the published ones and writes the HTML report to
# results/report-2015/index.html (and, when Debian's chromium is installed, a checked screenshot of
# it, results/report-2015/screenshot.png). Cells already in the database are skipped, so running it again
# only re-prints the table (pass --force to re-run them; other arguments go to `schedbench run`,
# e.g. --repeat 5).
#
# Environment: SCHEDBENCH_DB (default results/schedengine.db), BUILD (default build).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
BUILD=${BUILD:-build}
sb="$top/$BUILD/schedbench"
db=${SCHEDBENCH_DB:-$top/results/schedengine.db}
matrix=jobs/cfq-iops-mode-on-ssd-2015/matrix.ini
exp=cfq-iops-mode-on-ssd-2015
html=$top/results/report-2015/index.html
start=$(date +%s)

for f in "$sb" "$top/$BUILD/libschedengine.so"; do
	[ -e "$f" ] || { echo "demo: $f is not built (run make demo, or make first)" >&2; exit 2; }
done
[ -x "$top/$BUILD/schedsim" ] || { echo "demo: $top/$BUILD/schedsim is not built (make)" >&2; exit 2; }

# First in virtual time: the same matrix, its embedded cells through the simulator (the same
# sched/ policies, block layer and device models; build/schedsim), in about a second.
echo "== virtual time: schedbench run $matrix --clock virtual (the simulator; experiment ${exp}-virtual)"
vstart=$(date +%s.%N)
"$sb" run "$matrix" --db "$db" --clock virtual --experiment "${exp}-virtual" "$@"
rc=$?
[ $rc -eq 130 ] && exit 130
vend=$(date +%s.%N)
echo
echo "== 2015 table in virtual time (schedbench report -e ${exp}-virtual)"
"$sb" report --db "$db" -e "${exp}-virtual" --format 2015 || { [ $rc -eq 0 ] && rc=1; }
echo "virtual time: the run took $(python3 -c "print(f'{$vend - $vstart:.2f}')") s of wall time"
echo

echo "== real time: schedbench run $matrix (2 device models x idling On/Off x 2 repetitions)"
"$sb" run "$matrix" --db "$db" "$@"
r=$?
[ $r -eq 130 ] && exit 130 # interrupted: run it again to resume
[ $rc -eq 0 ] && rc=$r

echo
echo "== 2015 table in real time: ours beside the published rows (schedbench report -e cfq-iops-mode-on-ssd-2015)"
"$sb" report --db "$db" -e cfq-iops-mode-on-ssd-2015 --format 2015 || { [ $rc -eq 0 ] && rc=1; }
shot=()
if command -v chromium >/dev/null 2>&1; then
	shot=(--screenshot "$(dirname "$html")/screenshot.png")
else
	echo "(no screenshot of the HTML report: chromium is not installed; apt-get install chromium)"
fi
out=$("$sb" report --db "$db" -e cfq-iops-mode-on-ssd-2015 --format 2015 --compare --metrics iops,lat,bw \
	--csv "$(dirname "$html")/summary.csv" --html "$html" "${shot[@]}" 2>&1)
r=$?
if [ $r -eq 0 ]; then
	echo "HTML report: $html (plots in $(dirname "$html")/plots, CSV summary.csv)"
	echo "$out" | grep '^screenshot '
else
	echo "$out" | tail -n 3 >&2
	echo "demo: the HTML report failed (report exit $r)" >&2
	[ $rc -eq 0 ] && rc=1
fi
echo "demo: done in $(( $(date +%s) - start )) s (database $db; run again to skip finished cells)"
exit $rc
