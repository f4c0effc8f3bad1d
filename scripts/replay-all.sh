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
# one that cannot run so is skipped with the reason; --db FILE: the database of the runs and the
# reports, as SCHEDBENCH_DB); SCHEDBENCH_DB and BUILD as in scripts/demo.sh; REPLAY_HTML: the HTML
# report (default: report-all/index.html beside the database). -h, --help: this text.
# The options are checked before anything runs: an unknown one, a missing or bad value, or an
# argument after the options is one line and exit 2.
set -uo pipefail
usage() { sed -n '2,/^set -uo pipefail$/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
for a in "$@"; do
	case $a in -h | --help) usage; exit 0 ;; esac
done
top=$(cd "$(dirname "$0")/.." && pwd)
here=$PWD
BUILD=${BUILD:-build}
sb="$top/$BUILD/schedbench"
db=${SCHEDBENCH_DB:-$top/results/schedengine.db}

# the matrices named before the first option (paths as given, or from the top directory)
named=()
while [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; do
	case $1 in
	*.ini) ;;
	*) echo "replay-all: '$1' is not a matrix file (*.ini) nor an option (matrices come first)" >&2; exit 2 ;;
	esac
	f=$1
	case $f in /*) ;; *) [ -e "$here/$f" ] && f=$here/$f ;; esac
	case $f in /*) ;; *) f=$top/$f ;; esac
	[ -f "$f" ] || { echo "replay-all: no matrix file '$1'" >&2; exit 2; }
	named+=("$f")
	shift
done
# then schedbench run's options (its getopt_long table, schedbench/main.c main_run): NAME= takes a
# value (--name V or --name=V); a unique prefix works as in getopt_long. --db is replay-all's own.
run_opts="db= target= engine= repeat= runtime= clock= hosts= hosts-file= batch= experiment= force dry-run"
opts=()
while [ $# -gt 0 ]; do
	a=$1
	case $a in
	-n) opts+=("$a"); shift; continue ;;
	--?*) ;;
	-*) echo "replay-all: unknown option '$a' (see --help)" >&2; exit 2 ;;
	*) echo "replay-all: '$a' after the options (matrices come first; see --help)" >&2; exit 2 ;;
	esac
	name=${a#--} && name=${name%%=*}
	match=
	for o in $run_opts; do
		[ "${o%=}" = "$name" ] && { match=$o; break; }
		case ${o%=} in "$name"*) match="$match${match:+ }$o" ;; esac
	done
	case $match in
	"") echo "replay-all: unknown option '$a' (see --help)" >&2; exit 2 ;;
	*" "*) echo "replay-all: option '$a' is ambiguous (--${match// /, --}; see --help)" | tr -d = >&2; exit 2 ;;
	esac
	if [ "${match%=}" != "$match" ]; then # it takes a value
		if [ "${a#*=}" != "$a" ]; then
			val=${a#*=}
		elif [ $# -ge 2 ]; then
			val=$2
			shift
		else
			echo "replay-all: option '$a' wants a value (see --help)" >&2
			exit 2
		fi
		if [ "$match" = db= ]; then
			case $val in /*) db=$val ;; *) db=$here/$val ;; esac
			shift
			continue
		fi
		opts+=("--${match%=}" "$val")
	elif [ "${a#*=}" != "$a" ]; then
		echo "replay-all: option '--$match' takes no value ('$a')" >&2
		exit 2
	else
		opts+=("--$match")
	fi
	shift
done
html=${REPLAY_HTML:-$(dirname "$db")/report-all/index.html} # default: results/report-all/index.html
cd "$top" || exit 2
start=$(date +%s)
for f in "$sb" "$top/$BUILD/libschedengine.so"; do
	[ -e "$f" ] || { echo "replay-all: $f is not built (run make first)" >&2; exit 2; }
done
errf=$(mktemp /tmp/replay-all.XXXXXX) || exit 2
trap 'rm -f "$errf"' EXIT
# the values, as schedbench run checks them (--repeat abc, --clock bogus), once, not per matrix
if [ ${#opts[@]} -gt 0 ] && ! "$sb" run "${opts[@]}" --help >/dev/null 2>"$errf"; then
	echo "replay-all: $(head -n 1 "$errf" | sed 's/^schedbench run: //')" >&2
	exit 2
fi

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
if [ ${#named[@]} -gt 0 ]; then
	matrices=("${named[@]}")
else
	for f in jobs/*/matrix.ini; do [ -e "$f" ] && matrices+=("$f"); done
	for f in jobs/*/*.ini; do [ "$(basename "$f")" = matrix.ini ] || matrices+=("$f"); done
fi

rc=0 ran=() skipped=() failed=()
for m in "${matrices[@]}"; do
	# one dry run (it checks every cell with fio --parse-only), its error or its cells' modes: a
	# matrix that cannot run with these arguments (--clock virtual: embedded cells without a
	# device model) is skipped with schedbench's reason (a named one: an error)
	if ! dry=$("$sb" run "$m" --db "$db" --dry-run ${opts[@]+"${opts[@]}"} 2>"$errf"); then
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
	"$sb" run "$m" --db "$db" ${opts[@]+"${opts[@]}"}
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
