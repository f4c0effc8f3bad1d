#!/usr/bin/env bash
# Replays every seed (`make replay-all`): runs each matrix in jobs/*/ (matrix.ini of every seed
# first, then the other *.ini there) with schedbench into results/schedengine.db, prints every
# experiment's seed-format table with the published rows, and writes one HTML report for all of
# them to results/report-all/index.html. Finished cells are skipped, so an interrupted replay
# resumes where it stopped. Matrices with kernel cells (kernel:NAME, on a loop device) need root
# and losetup; without them they are skipped with a note. Arguments go to every `schedbench run`
# (e.g. --repeat 5, --force, --clock virtual: every embedded cell in the simulator, in seconds;
# a matrix that cannot run so is skipped with the reason); SCHEDBENCH_DB and BUILD as in
# scripts/demo.sh.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
BUILD=${BUILD:-build}
sb="$top/$BUILD/schedbench"
db=${SCHEDBENCH_DB:-$top/results/schedengine.db}
html=$top/results/report-all/index.html
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

matrices=()
for f in jobs/*/matrix.ini; do [ -e "$f" ] && matrices+=("$f"); done
for f in jobs/*/*.ini; do [ "$(basename "$f")" = matrix.ini ] || matrices+=("$f"); done

rc=0 ran=() skipped=() failed=()
for m in "${matrices[@]}"; do
	# a matrix that cannot run with these arguments (--clock virtual: embedded cells without a
	# device model) is skipped with schedbench's reason
	if ! why=$("$sb" run "$m" --db "$db" --dry-run "$@" 2>&1 >/dev/null); then
		echo "== $m: skipped: $(echo "$why" | head -n 1)"
		skipped+=("$m")
		continue
	fi
	if "$sb" run "$m" --db "$db" --dry-run "$@" 2>/dev/null | grep -q ' mode=kernel '; then
		if [ $kernel_ok = 0 ]; then
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
if [ ${#exps[@]} -gt 0 ]; then
	"$sb" report --db "$db" "${exps[@]}" || rc=1
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
exit $rc
