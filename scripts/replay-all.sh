#!/usr/bin/env bash
# Replays every seed (`make replay-all`): runs each matrix in jobs/*/ (matrix.ini of every seed
# first, then the other *.ini there) with schedbench into results/schedengine.db, writes one HTML
# report for all of them to results/report-all/index.html, and ends with every experiment's
# seed-format report (the thread's table with the published rows; for the 2017 seed the T(N)/T(1)
# table and the shape verdicts last). Finished cells are skipped, so an interrupted replay
# resumes where it stopped. Matrices with kernel cells (kernel:NAME, on a loop device) need root
# and losetup; without them they are skipped with a note.
#
#   scripts/replay-all.sh [MATRIX.ini ...] [schedbench run options]
#
# MATRIX.ini (before any option): replay only these, e.g.
#   scripts/replay-all.sh jobs/bfq-mq-vs-cfq-2017/embedded-bfq.ini --clock virtual
# a named matrix that cannot run with the options is an error (exit 2, one line naming it), not
# a skip. The options go to every `schedbench run` (e.g. --repeat 5, --runtime 4, --force,
# --clock virtual: every embedded cell in the simulator, in seconds; of all the seeds' matrices
# one that cannot run so is skipped with the reason); SCHEDBENCH_DB and BUILD as in
# scripts/demo.sh; REPLAY_HTML: the HTML report (default: report-all/index.html beside the database).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
here=$PWD
cd "$top" || exit 2
BUILD=${BUILD:-build}
sb="$top/$BUILD/schedbench"
db=${SCHEDBENCH_DB:-$top/results/schedengine.db}
html=${REPLAY_HTML:-$(dirname "$db")/report-all/index.html} # default: results/report-all/index.html
start=$(date +%s)
for f in "$sb" "$top/$BUILD/libschedengine.so"; do
	[ -e "$f" ] || { echo "replay-all: $f is not built (run make first)" >&2; exit 2; }
done

can_kernel() { # root, and the kernel gives us a loop device
	[ "$(id -u)" = 0 ] || { echo "not root"; return 1; }
	local img dev
	img=$(mktemp /tmp/schedbench-probe.XXXXXX) && truncate -s 8M "$img" || { echo "mktemp"; return 1; }
	if ! dev=$(losetup --find --show "$img" 2>&1); then
		rm -f "$img"
		echo "losetup refused: $dev"
		return 1
	fi
	losetup -d "$dev"
	rm -f "$img"
}
kernel_why=$(can_kernel) && kernel_ok=1 || kernel_ok=0

# the matrices named before the first option (paths as given, or from the top directory)
named=()
while [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; do
	case $1 in
	*.ini) ;;
	*) echo "replay-all: '$1' is not a matrix file (*.ini) nor an option (matrices come first)" >&2; exit 2 ;;
	esac
	f=$1
	case $f in /*) ;; *) [ -e "$here/$f" ] && f=$here/$f ;; esac
	[ -f "$f" ] || { echo "replay-all: no matrix file '$1'" >&2; exit 2; }
	named+=("$f")
	shift
done
matrices=()
if [ ${#named[@]} -gt 0 ]; then
	matrices=("${named[@]}")
else
	for f in jobs/*/matrix.ini; do [ -e "$f" ] && matrices+=("$f"); done
	for f in jobs/*/*.ini; do [ "$(basename "$f")" = matrix.ini ] || matrices+=("$f"); done
fi

errf=$(mktemp /tmp/replay-all.XXXXXX) || exit 2
trap 'rm -f "$errf"' EXIT
rc=0 ran=() skipped=() failed=()
for m in "${matrices[@]}"; do
	# one dry run (it checks every cell with fio --parse-only), its error or its cells' modes: a
	# matrix that cannot run with these arguments (--clock virtual: embedded cells without a
	# device model) is skipped with schedbench's reason (a named one: an error)
	if ! dry=$("$sb" run "$m" --db "$db" --dry-run "$@" 2>"$errf"); then
		why=$(cat "$errf")
		if [ ${#named[@]} -gt 0 ]; then
			echo "replay-all: $m: $(echo "$why" | head -n 1)" >&2
			exit 2
		fi
		echo "== $m: skipped: $(echo "$why" | head -n 1)"
		skipped+=("$m")
		continue
	fi
	if grep -q ' mode=kernel ' <<<"$dry"; then
		if [ $kernel_ok = 0 ]; then
			if [ ${#named[@]} -gt 0 ]; then
				echo "replay-all: $m: it has kernel cells and cannot run here ($kernel_why)" >&2
				exit 2
			fi
			echo "== $m: skipped, it has kernel cells ($kernel_why)"
			skipped+=("$m")
			continue
		fi
	fi
	echo "== schedbench run $m"
	"$sb" run "$m" --db "$db" "$@"
	r=$?
	[ $r -eq 130 ] && { echo "replay-all: interrupted; run it again to resume"; exit 130; }
	if [ $r -ne 0 ]; then failed+=("$m"); rc=1; else ran+=("$m"); fi
	echo
done

# the experiments these matrices fill (name = in [matrix], else the file name)
exps=()
for m in "${matrices[@]}"; do
	case " ${skipped[*]-} " in *" $m "*) continue ;; esac
	n=$(sed -n 's/^[[:space:]]*name[[:space:]]*=[[:space:]]*\([^;#[:space:]]*\).*/\1/p' "$m" | head -n 1)
	[ -n "$n" ] || n=$(basename "$m" .ini)
	exps+=(-e "$n")
done
# the HTML first, the text report last: the replay ends with the seeds' tables (and verdicts)
if [ ${#exps[@]} -gt 0 ]; then
	mkdir -p "$(dirname "$html")"
	if "$sb" report --db "$db" "${exps[@]}" --compare --metrics iops,bw,lat \
		--csv "$(dirname "$html")/summary.csv" --html "$html" >/dev/null; then
		echo "HTML report: $html"
	else
		echo "replay-all: the HTML report failed" >&2
		rc=1
	fi
fi
echo "replay-all: ${#ran[@]} matrices ok, ${#failed[@]} with failed runs${failed[*]:+ (${failed[*]})}," \
	"${#skipped[@]} skipped; $(( $(date +%s) - start )) s (database $db)"
if [ ${#exps[@]} -gt 0 ]; then
	echo
	"$sb" report --db "$db" "${exps[@]}" || rc=1
fi
exit $rc
