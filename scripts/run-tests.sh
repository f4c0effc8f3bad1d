#!/usr/bin/env bash
# Runs a part of the suite and counts what happened. Ends with one line
#   "N passed, N failed, N skipped, N expected failures"
# counting distinct tests: a test that ran in several builds (plain, ASan, TSan) counts once,
# as failed if it failed in any of them. The lines before it say how many ran under each
# sanitizer.
#
#   unit         every cmocka binary in $BUILD/tests; each cmocka test counts, in every group
#   integration  every tests/integration/test_*.sh (one test each)
#   stress       tests/stress/test_*.sh
#   sanitizer    the parts chosen for the sanitizer build in $BUILD (SANITIZER=asan|tsan):
#                ASan: every unit binary; TSan: the unit binaries that start threads (the others
#                have nothing to race); scripts whose header says "# sanitizers: ... asan|tsan"
#                (within "all", those whose header says "# make-test sanitizers: ...": the
#                suite's 15 minutes; `make asan` and `make tsan` run the whole list)
#   all          unit; then the integration scripts that do not measure (longest first, see
#                tests/seconds.tsv) while two background chains run the asan and tsan parts,
#                each from the moment its build is done, one test at a time (and the asan one
#                the stress test first); then, alone, every script that measures (# exclusive:)
#
# What counts:
#   - a unit binary: every test's cmocka verdict, every group's "Running N" matched by N
#     verdicts, and the binary's exit status (a sanitizer report printed after "[  PASSED  ]"
#     exits non-zero: the binary fails);
#   - a script: exit 0 passed, 77 skipped (it prints "SKIP: <machine reason>"), any other status
#     or a signal failed;
#   - an "XFAIL: ..." line printed by a test that passed: an expected failure (a known gap whose
#     result stayed in its documented range; out of range in either direction the test fails);
#   - a timeout (unit: 120 s, scripts: "# timeout: N" in the header, default 300 s; times
#     TEST_TIMEOUT_SCALE, 3 under ASan, 4 under TSan): failed, "timed out";
#   - any sanitizer report (ASan, LSan, UBSan, TSan write to a per-test directory through
#     log_path, with halt_on_error and a non-zero exitcode): failed, whatever the exit status.
# TEST_FILTER=REGEX runs only the tests whose name (unit binary or script) matches.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
SANITIZER=${SANITIZER:-}
export TOP=$top
what=${1:-all}
TEST_FILTER=${TEST_FILTER:-}

# One results file per invocation: "build<TAB>test<TAB>status<TAB>seconds<TAB>note<TAB>cpu"
# (cpu: the CPU seconds of a script, empty for a unit test).
results_dir=${RESULTS_DIR:-$BUILD/test-logs}
mkdir -p "$results_dir"
results=$results_dir/results.tsv
: >"$results"

# ---- sanitizer options: every test process that loads a sanitizer runtime reads these ----
# halt_on_error: the first report ends the process; exitcode: non-zero when it does;
# log_path: every report also lands in a file the runner checks after the test.
san_env() { # san_env DIR: exports the options for reports into DIR
	local d
	mkdir -p "$1"
	d=$(cd "$1" && pwd) # absolute: tests change directory
	export SAN_REPORT_DIR=$d # where a test puts a report it has captured itself
	export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:exitcode=66:detect_leaks=1:log_path=$d/asan"
	export LSAN_OPTIONS="exitcode=66:print_suppressions=0:log_path=$d/lsan"
	export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=66:log_path=$d/ubsan"
	export TSAN_OPTIONS="halt_on_error=1:exitcode=66:report_signal_unsafe=0:second_deadlock_stack=1:suppressions=$top/tests/tsan.supp:print_suppressions=1:log_path=$d/tsan"
}
# The first line of each sanitizer report left in DIR (empty: none). TSan also writes the
# suppressions it matched there (print_suppressions=1): those lines are not reports.
san_reports() {
	local f
	for f in "$1"/*; do
		[ -s "$f" ] || continue
		grep -qE 'ERROR: [A-Za-z]+Sanitizer|WARNING: ThreadSanitizer|runtime error|SUMMARY: [A-Za-z]+Sanitizer' "$f" ||
			continue
		printf '%s: %s\n' "$(basename "$f")" \
			"$(grep -m1 -E 'ERROR: |WARNING: ThreadSanitizer|runtime error|SUMMARY: ' "$f")"
	done
}
# Known engine bugs: the TSan suppressions below the "known engine bugs" line of tests/tsan.supp.
# A test in which one of them matched is an expected failure (the bug is reported, not hidden);
# prints the matched patterns.
known_bug_hits() {
	local pats
	pats=$(sed -n '/^# ---- known engine bugs/,$p' "$top/tests/tsan.supp" | grep -vE '^#|^$')
	[ -n "$pats" ] || return 0
	cat "$1"/* 2>/dev/null | sed -n 's/^ *[0-9][0-9]* \([a-z_]*:.*\)$/\1/p' | sort -u |
		grep -Fx -f <(echo "$pats") || true
}

scale=${TEST_TIMEOUT_SCALE:-}
if [ -z "$scale" ]; then
	case $SANITIZER in asan) scale=3 ;; tsan) scale=4 ;; *) scale=1 ;; esac
fi
label=${SANITIZER:-plain}

record() { # record NAME STATUS SECONDS NOTE [CPU_SECONDS]
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$1" "$2" "$3" "$(printf '%s' "$4" | tr '\t\n' '  ' | head -c 400)" "${5:-}" >>"$results"
}

sig_name() { kill -l "$1" 2>/dev/null || echo "$1"; }

# Describes an exit status: "exit N", "signal SEGV", or "timed out after Ns".
describe_rc() { # describe_rc RC ELAPSED LIMIT
	local rc=$1 el=$2 lim=$3
	if { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; } && [ "$el" -ge "$lim" ]; then
		echo "timed out after ${lim}s"
	elif [ "$rc" -gt 128 ] && [ "$rc" -lt 160 ]; then
		echo "killed by signal $(sig_name $((rc - 128)))"
	else
		echo "exit $rc"
	fi
}

# ---- unit binaries ----
# Parses cmocka's stdout: one verdict per "[ RUN ]", "XFAIL:" lines inside a test, the groups'
# "Running N test(s)". Prints "name<TAB>status<TAB>note" per test, then "#groups<TAB>N" (the
# number of tests the groups announced).
parse_cmocka() {
	awk '
	function verdict(st, note) { printf "%s\t%s\t%s\n", cur, st, note; got++; cur = "" }
	/^\[==========\] Running [0-9]+ test/ { expected += $3; groups++ }
	/^\[ RUN      \] / { if (cur != "") verdict("fail", "no verdict (crashed?)"); cur = substr($0, 14); xf = ""; next }
	/^XFAIL: / { if (cur != "") xf = xf (xf == "" ? "" : " | ") substr($0, 8); next }
	/^\[       OK \] / { if (cur != "" && substr($0, 14) == cur) verdict(xf != "" ? "xfail" : "pass", xf); next }
	/^\[  FAILED  \] / { if (cur != "" && substr($0, 14) == cur) verdict("fail", "assertion failed"); next }
	/^\[  ERROR   \] / { if (cur != "" && substr($0, 14) == cur) verdict("fail", "error"); next }
	/^\[  SKIPPED \] / { if (cur != "" && substr($0, 14) == cur) verdict("skip", ""); next }
	END {
		if (cur != "") verdict("fail", "started, no verdict: the binary died or hung in it")
		printf "#groups\t%d\n", expected
	}' "$1"
}

run_unit() {
	local bin name out err sandir rc start el lim n_pass n_fail n_skip n_xf st note line why \
		expected got reports f
	local -a bins=()
	local -A running=()
	local done_pid jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
	[ "$jobs" -le 2 ] || [ -n "${TEST_JOBS:-}" ] || jobs=2
	lim=$((120 * scale))
	for bin in "$BUILD"/tests/test_*; do
		[ -x "$bin" ] && [ -f "$bin" ] || continue
		name=$(basename "$bin")
		[ -z "$TEST_FILTER" ] || [[ $name =~ $TEST_FILTER ]] || continue
		if [ -n "${SAN_IN_SUITE:-}" ] && [[ $name == test_seed* ]]; then
			# whole seed simulations: the code they run is the policies' and the simulator's,
			# which the other unit binaries run under ASan too; make asan runs them
			echo "--   unit $name: not in make test's $SANITIZER part (whole seed simulations; make $SANITIZER runs it)"
			continue
		fi
		if [ "$SANITIZER" = tsan ] && ! nm -u "$bin" 2>/dev/null | grep -qw pthread_create; then
			echo "--   unit $name: not run under TSan (starts no threads: nothing to race)"
			continue
		fi
		bins+=("$bin")
	done
	# The binaries run two at a time (no timing asserts in unit tests); results in name order.
	for bin in "${bins[@]}"; do
		while [ ${#running[@]} -ge "$jobs" ]; do
			wait -n -p done_pid "${!running[@]}"
			unset "running[$done_pid]"
		done
		name=$(basename "$bin")
		sandir="$logdir/san/unit-$name"
		rm -rf "$sandir"
		(
			s0=$SECONDS
			(san_env "$sandir"; CMOCKA_MESSAGE_OUTPUT=stdout exec timeout -k 10 "$lim" "$bin") \
				>"$logdir/unit-$name.out" 2>"$logdir/unit-$name.err"
			echo "$? $((SECONDS - s0))" >"$logdir/unit-$name.rc"
		) &
		running[$!]=$bin
	done
	while [ ${#running[@]} -gt 0 ]; do
		wait -n -p done_pid "${!running[@]}"
		unset "running[$done_pid]"
	done
	for bin in "${bins[@]}"; do
		name=$(basename "$bin")
		out="$logdir/unit-$name.out"
		err="$logdir/unit-$name.err"
		sandir="$logdir/san/unit-$name"
		read -r rc el <"$logdir/unit-$name.rc"
		cat "$out" "$err" >"$logdir/unit-$name.log"
		n_pass=0 n_fail=0 n_skip=0 n_xf=0 why=() expected=0
		while IFS=$'\t' read -r line st note; do
			if [ "$line" = "#groups" ]; then
				expected=$st
				continue
			fi
			record "unit/$name/$line" "$st" "$el" "$note"
			case $st in
			pass) n_pass=$((n_pass + 1)) ;;
			xfail) n_xf=$((n_xf + 1)); echo "XFAIL unit $name/$line: $note" ;;
			skip) n_skip=$((n_skip + 1)); echo "skip unit $name/$line: $(grep -m1 '^SKIP' "$out" || echo 'no reason given')" ;;
			*) n_fail=$((n_fail + 1)); why+=("$line: $note") ;;
			esac
		done < <(parse_cmocka "$out")
		got=$((n_pass + n_fail + n_skip + n_xf))
		# The binary itself: its exit status, its groups, its sanitizer reports.
		reports=$(san_reports "$sandir")
		note=
		if [ "$got" -eq 0 ]; then
			note="no test reported ($(describe_rc $rc $el $lim))"
		elif [ "$expected" -ne "$got" ]; then
			note="groups announced $expected tests, $got reported ($(describe_rc $rc $el $lim))"
		elif [ $rc -ne 0 ] && [ $n_fail -eq 0 ]; then
			note="all tests passed but the binary ended with $(describe_rc $rc $el $lim)"
		elif [ $rc -eq 0 ] && [ $n_fail -ne 0 ]; then
			note="$n_fail tests failed but the binary exited 0"
		elif [ $rc -ne 0 ] && [ $rc -ne $n_fail ]; then
			note="ended with $(describe_rc $rc $el $lim) after $n_fail failed tests"
		fi
		[ -z "$reports" ] || note="${note:+$note; }sanitizer report: $reports"
		if [ -n "$note" ]; then
			record "unit/$name/(process)" fail "$el" "$note"
			why+=("(process): $note")
		fi
		f=$(known_bug_hits "$sandir" | tr '\n' ' ')
		if [ -n "$f" ] && [ ${#why[@]} -eq 0 ]; then
			record "unit/$name/(process)" xfail "$el" "known engine bug hit (tests/tsan.supp): $f"
			echo "XFAIL unit $name: known engine bug hit (tests/tsan.supp): $f"
		fi
		if [ ${#why[@]} -gt 0 ]; then
			failures+=("unit/$name (log: $logdir/unit-$name.log)")
			printf 'FAIL unit %s: %d passed, %d failed (%ss)\n' "$name" "$n_pass" "$((${#why[@]}))" "$el"
			printf '     %s\n' "${why[@]}" | head -n 20
			grep -hE '^\[  (FAILED|ERROR)|^\[   LINE   \]|error: |Sanitizer|runtime error' "$err" "$out" 2>/dev/null | head -n 20 | sed 's/^/     /'
			[ -z "$reports" ] || for f in "$sandir"/*; do head -n 30 "$f" | sed 's/^/     /'; done
		else
			printf 'ok   unit %s (%d tests%s%s, %ss)\n' "$name" "$((n_pass + n_xf))" \
				"$([ $n_xf -eq 0 ] || echo ", $n_xf expected failures")" \
				"$([ $n_skip -eq 0 ] || echo ", $n_skip skipped")" "$el"
		fi
	done
}

# ---- scripts ----
# Each script is one test: exit 0 passed (with an "XFAIL:" line: expected failure), 77 skipped
# (after "SKIP: <why>"), anything else failed. Header lines "# timeout: N" and
# "# sanitizers: asan tsan" choose its time limit and the sanitizer builds it runs in.
# Scripts run TEST_JOBS at a time (default: one more than the CPUs, at most 3), except those whose
# header says "# exclusive: <why>": they measure speed or latency (a ratio, a band) and run
# alone, after the others, so another test's load never decides their verdict.
header() { sed -n "s/^# $2: *//p" "$1" | head -n1; }

script_start() { # script_start T KIND: runs it in the background; its pid in started_pid
	local t=$1 kind=$2 name lim sandir
	name=$(basename "$t" .sh)
	lim=$(header "$t" timeout)
	lim=$((${lim:-300} * scale))
	sandir="$logdir/san/$kind-$name"
	rm -rf "$sandir"
	(
		s0=$SECONDS
		(san_env "$sandir"; exec timeout -k 15 "$lim" bash "$t") >"$logdir/$kind-$name.log" 2>&1 </dev/null
		rc=$?
		# CPU seconds (user + system) of the script and what it waited for: results.tsv's
		# sixth column, to tell a script that waits from one that computes.
		# (times writes to a file: in a pipe it would run in a subshell without these children)
		times >"$logdir/$kind-$name.cpu"
		awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); c += a[1] * 60 + a[2] }
			printf "%.1f\n", c }' "$logdir/$kind-$name.cpu" >"$logdir/$kind-$name.cpu.s"
		mv "$logdir/$kind-$name.cpu.s" "$logdir/$kind-$name.cpu"
		echo "$rc $((SECONDS - s0)) $lim" >"$logdir/$kind-$name.rc"
	) &
	started_pid=$!
}

script_finish() { # script_finish T KIND: counts and prints the result of a finished script
	local t=$1 kind=$2 name out rc el lim sandir reports desc xf f bugs cpu
	name=$(basename "$t" .sh)
	out="$logdir/$kind-$name.log"
	sandir="$logdir/san/$kind-$name"
	read -r rc el lim <"$logdir/$kind-$name.rc"
	cpu=$(cat "$logdir/$kind-$name.cpu" 2>/dev/null)
	reports=$(san_reports "$sandir")
	desc=$(describe_rc $rc $el $lim)
	xf=$(grep -m1 '^XFAIL: ' "$out" | cut -c8-)
	bugs=$(known_bug_hits "$sandir" | tr '\n' ' ')
	[ -z "$bugs" ] || xf="${xf:+$xf; }known engine bug hit (tests/tsan.supp): $bugs"
	if [ -n "$reports" ]; then
		record "$kind/$name" fail "$el" "sanitizer report ($desc): $reports" "$cpu"
		failures+=("$kind/$name (log: $out)")
		printf 'FAIL %s %s: sanitizer report (%s, %ss)\n' "$kind" "$name" "$desc" "$el"
		for f in "$sandir"/*; do [ -s "$f" ] && head -n 30 "$f" | sed 's/^/     /'; done
	elif [ $rc -eq 0 ] && [ -n "$xf" ]; then
		record "$kind/$name" xfail "$el" "$xf" "$cpu"
		printf 'XFAIL %s %s (%ss): %s\n' "$kind" "$name" "$el" "$xf"
		grep '^XFAIL: ' "$out" | tail -n +2 | sed 's/^/      /'
	elif [ $rc -eq 0 ]; then
		record "$kind/$name" pass "$el" "" "$cpu"
		printf 'ok   %s %s (%ss)\n' "$kind" "$name" "$el"
	elif [ $rc -eq 77 ]; then
		record "$kind/$name" skip "$el" "$(grep -m1 '^SKIP' "$out")" "$cpu"
		printf 'skip %s %s: %s\n' "$kind" "$name" "$(grep -m1 '^SKIP' "$out" || echo 'no reason given')"
	else
		record "$kind/$name" fail "$el" "$desc: $(grep -m1 '^FAIL' "$out")" "$cpu"
		failures+=("$kind/$name (log: $out)")
		printf 'FAIL %s %s (%s, %ss)\n' "$kind" "$name" "$desc" "$el"
		tail -n 15 "$out" | sed 's/^/     /'
	fi
}

run_scripts() {
	local kind=$1 dir=$2 t name sans done_pid
	local -a shared=() alone=()
	local -A running=()
	# One more than the CPUs, at most 3: most of these scripts wait on fio runs, servers or
	# sleeps more than they compute. (Four at a time, beside the sanitizer chains, overloaded
	# two CPUs: test_kill_job's jobs ended before it had counted them.)
	local jobs=${TEST_JOBS:-$(($(nproc 2>/dev/null || echo 1) + 1))}
	[ "$jobs" -le 3 ] || [ -n "${TEST_JOBS:-}" ] || jobs=3
	for t in "$dir"/test_*.sh; do
		[ -f "$t" ] || continue
		name=$(basename "$t" .sh)
		[ -z "$TEST_FILTER" ] || [[ $name =~ $TEST_FILTER ]] || continue
		if [ -n "$SANITIZER" ]; then
			# make test (all) runs the scripts a header names for it; make asan/tsan all of
			# a sanitizer's scripts
			if [ -n "${SAN_IN_SUITE:-}" ]; then
				sans=$(header "$t" "make-test sanitizers")
			else
				sans=$(header "$t" sanitizers)
			fi
			[[ " $sans " == *" $SANITIZER "* ]] || continue
		fi
		if [ -n "$(header "$t" exclusive)" ]; then alone+=("$t"); else shared+=("$t"); fi
	done
	# Longest first (tests/seconds.tsv: each script's seconds in an earlier full run; a script
	# not listed counts as long): the pool's last script to start is then a short one.
	mapfile -t shared < <(for t in "${shared[@]}"; do
		printf '%s\t%s\n' "$(awk -F'\t' -v k="$kind/$(basename "$t" .sh)" \
			'$1 == k { print $2; f = 1 } END { if (!f) print 9999 }' "$top/tests/seconds.tsv" 2>/dev/null)" "$t"
	done | sort -t$'\t' -k1,1nr -k2,2 | cut -f2)
	for t in "${shared[@]}"; do
		while [ ${#running[@]} -ge "$jobs" ]; do
			wait -n -p done_pid "${!running[@]}"
			[ -n "${running[$done_pid]:-}" ] || continue
			script_finish "${running[$done_pid]}" "$kind"
			unset "running[$done_pid]"
		done
		script_start "$t" "$kind"
		running[$started_pid]=$t
	done
	while [ ${#running[@]} -gt 0 ]; do
		wait -n -p done_pid "${!running[@]}"
		[ -n "${running[$done_pid]:-}" ] || continue
		script_finish "${running[$done_pid]}" "$kind"
		unset "running[$done_pid]"
	done
	# Nothing else may load the machine now: the sanitizer builds and parts of "all" end first.
	if [ ${#alone[@]} -gt 0 ] && [ -n "${san_chain_pid:-}" ]; then
		wait $san_chain_pid
		san_chain_pid=
	fi
	if [ -n "${DEFER_ALONE:-}" ]; then # "all"'s chain: they run after the plain ones, alone
		for t in "${alone[@]}"; do printf '%s\t%s\n' "$kind" "$t" >>"$DEFER_ALONE"; done
		return
	fi
	for t in "${alone[@]}"; do
		script_start "$t" "$kind"
		wait "$started_pid"
		script_finish "$t" "$kind"
	done
}

# ---- summaries ----
# count FILE [BUILD]: "P passed, F failed, S skipped, X expected failures" over distinct tests
# (a test's worst result across the builds it ran in: fail > xfail > pass > skip).
count() {
	awk -F'\t' -v only="${2:-}" '
	function rank(s) { return s == "fail" ? 4 : s == "xfail" ? 3 : s == "pass" ? 2 : s == "skip" ? 1 : 0 }
	only == "" || $1 == only { if (rank($3) > rank(w[$2])) w[$2] = $3 }
	END {
		for (t in w) c[w[t]]++
		printf "%d passed, %d failed, %d skipped, %d expected failures\n", c["pass"], c["fail"], c["skip"], c["xfail"]
	}' "$1"
}

part() { # part unit|integration|stress|sanitizer
	case $1 in
	unit) run_unit ;;
	integration) run_scripts integration tests/integration ;;
	stress) run_scripts stress tests/stress ;;
	sanitizer)
		: "${SANITIZER:?SANITIZER=asan|tsan}"
		echo "== $SANITIZER build ($BUILD): unit"
		run_unit
		echo "== $SANITIZER build ($BUILD): integration"
		run_scripts integration tests/integration
		echo "== $SANITIZER build ($BUILD): stress"
		run_scripts stress tests/stress ;;
	esac
}

failures=()
logdir="$BUILD/test-logs"
mkdir -p "$logdir"
t0=$SECONDS
san_builds_pid=
case $what in
unit | integration | stress | sanitizer)
	[ "$what" != sanitizer ] || export SANITIZER
	export BUILD SANITIZER
	part "$what" ;;
all)
	export BUILD SANITIZER=
	# The sanitizer trees build in the background while the unit tests run. Then, beside the
	# plain scripts that do not measure (three at a time), the asan and tsan chains (below);
	# the scripts that measure (# exclusive:) wait for them (run_scripts) and run alone at the
	# end, a sanitizer build's after the plain ones.
	rm -f "$results_dir"/{asan,tsan}-build.rc "$results_dir"/{plain-stress,asan,tsan}-failures
	(
		for san in asan tsan; do
			# the engine, the policy library, the test tools, the unit binaries: what the
			# sanitizer parts of make test run (make asan/tsan build everything)
			make --no-print-directory -s -j2 "$san-build" \
				SAN_TARGETS=engine-core \
				>"$results_dir/$san-build.log" 2>&1
			echo $? >"$results_dir/$san-build.rc"
		done
	) &
	san_builds_pid=$!
	echo "== unit tests"; part unit
	for san in asan tsan; do : >"$results_dir/$san-deferred"; done
	# The environment of a sanitizer build's tests (the chain and its deferred scripts alike).
	san_build_env() { # san_build_env asan|tsan
		export SANITIZER=$1 BUILD=build/$1 SAN_IN_SUITE=1
		label=$1 logdir="$BUILD/test-logs" scale=${TEST_TIMEOUT_SCALE:-}
		case $1 in asan) scale=${scale:-3} ;; tsan) scale=${scale:-4} ;; esac
	}
	# One chain per sanitizer, each started as soon as its build is done (the asan one runs
	# the plain stress test while it waits).
	san_chain() { # san_chain asan|tsan
		local san=$1
		failures=()
		if [ "$san" = asan ]; then
			echo "== stress tests"
			part stress
			printf '%s\n' "${failures[@]}" >"$results_dir/plain-stress-failures"
		fi
		# (the builds are not this subshell's children: their rc files say when they are done)
		while [ ! -e "$results_dir/$san-build.rc" ]; do sleep 1; done
		if [ "$(cat "$results_dir/$san-build.rc")" != 0 ]; then
			record "build/$san" fail 0 "make $san-build failed"
			echo "$san build (log: $results_dir/$san-build.log)" >"$results_dir/$san-failures"
			echo "FAIL $san build:"; tail -n 20 "$results_dir/$san-build.log" | sed 's/^/     /'
			return
		fi
		san_build_env "$san"
		export RESULTS_DIR=$results_dir TEST_JOBS=1 DEFER_ALONE=$results_dir/$san-deferred
		mkdir -p "$logdir"
		failures=()
		part sanitizer
		printf '%s\n' "${failures[@]}" >"$results_dir/$san-failures"
	}
	san_chain asan >"$results_dir/asan-chain.out" 2>&1 &
	asan_chain_pid=$!
	san_chain tsan >"$results_dir/tsan-chain.out" 2>&1 &
	san_chain_pid="$asan_chain_pid $!"
	echo "== integration tests (the stress test and the asan and tsan parts run beside them: below)"
	part integration
	[ -z "$san_chain_pid" ] || wait $san_chain_pid
	cat "$results_dir/asan-chain.out" "$results_dir/tsan-chain.out"
	while IFS= read -r f; do [ -z "$f" ] || failures+=("$f"); done <"$results_dir/plain-stress-failures" 2>/dev/null
	for san in asan tsan; do
		# the sanitizer builds' scripts that measure, alone like the plain ones
		if [ -s "$results_dir/$san-deferred" ]; then
			echo "== $san build (build/$san): the scripts that measure, alone"
			(
				san_build_env "$san"
				failures=()
				while IFS=$'\t' read -r kind t; do
					script_start "$t" "$kind"
					wait "$started_pid"
					script_finish "$t" "$kind"
				done <"$results_dir/$san-deferred"
				printf '%s\n' "${failures[@]}" >>"$results_dir/$san-failures"
			)
		fi
		while IFS= read -r f; do [ -z "$f" ] || failures+=("[$san] $f"); done <"$results_dir/$san-failures" 2>/dev/null
	done ;;
*) echo "run-tests.sh: unknown part '$what' (unit|integration|stress|sanitizer|all)" >&2; exit 2 ;;
esac

if [ ${#failures[@]} -gt 0 ]; then
	echo "failed:"; printf '  %s\n' "${failures[@]}"
fi
for b in plain asan tsan; do
	grep -q "^$b	" "$results" || continue
	printf '%-6s %s\n' "$b:" "$(count "$results" "$b")"
done
echo "wall time $((SECONDS - t0)) s; each line above counts the tests run in that build, the last one distinct tests"
line=$(count "$results")
echo "$line"
# A run that ran nothing (no binary built, a filter matching nothing) is not a pass.
if [ ! -s "$results" ]; then
	echo "no test ran (BUILD=$BUILD${TEST_FILTER:+, TEST_FILTER=$TEST_FILTER})" >&2
	exit 1
fi
case $line in *" 0 failed,"*) exit 0 ;; *) exit 1 ;; esac
