#!/usr/bin/env bash
# Runs a part of the suite and ends with one line "N passed, N failed, N skipped".
#   unit         every cmocka binary in $BUILD/tests (each cmocka test counts)
#   integration  every tests/integration/test_*.sh (each script counts once; exit 77 = skipped)
#   stress       tests/stress/test_*.sh
#   sanitizer    unit + stress against the sanitizer build in $BUILD (SANITIZER=asan|tsan)
#   all          unit, integration, stress, then the asan and tsan builds
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
export BUILD TOP=$top
what=${1:-all}
passed=0 failed=0 skipped=0
failures=()
logdir="$BUILD/test-logs"
mkdir -p "$logdir"

run_unit() {
	local bin name out p f k
	for bin in "$BUILD"/tests/test_*; do
		[ -x "$bin" ] || continue
		name=$(basename "$bin")
		out="$logdir/unit-$name.log"
		if CMOCKA_MESSAGE_OUTPUT=stdout "$bin" >"$out" 2>&1; then :; fi
		p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -n1)
		f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -n1)
		k=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$out" | tail -n1)
		p=${p:-0} f=${f:-0} k=${k:-0}
		skipped=$((skipped + k))
		if [ "$p" = 0 ] && [ "$f" = 0 ] && [ "$k" = 0 ]; then f=1; fi # crashed before reporting
		passed=$((passed + p)) failed=$((failed + f))
		if [ "$f" != 0 ]; then
			failures+=("unit/$name (log: $out)")
			printf 'FAIL unit %s: %s passed, %s failed\n' "$name" "$p" "$f"
			grep -E '^\[  (FAILED|  ERROR)|ERROR|Sanitizer|runtime error' "$out" | head -n 20
		else
			printf 'ok   unit %s (%s tests%s)\n' "$name" "$p" "$([ "$k" = 0 ] || echo ", $k skipped: $(grep -m1 -o 'KNOWN GAP[^"]*' "$out" | head -c 120)")"
		fi
	done
}

# Each script is one test: exit 0 passed, 77 skipped (it prints why), anything else failed.
run_scripts() {
	local kind=$1 dir=$2 t name out rc start
	for t in "$dir"/test_*.sh; do
		[ -f "$t" ] || continue
		name=$(basename "$t" .sh)
		out="$logdir/$kind-$name.log"
		start=$(date +%s)
		bash "$t" >"$out" 2>&1
		rc=$?
		case $rc in
		0) passed=$((passed + 1)); printf 'ok   %s %s (%ss)\n' "$kind" "$name" "$(($(date +%s) - start))" ;;
		77) skipped=$((skipped + 1)); printf 'skip %s %s: %s\n' "$kind" "$name" "$(grep -m1 '^SKIP' "$out" || echo 'no reason given')" ;;
		*) failed=$((failed + 1)); failures+=("$kind/$name (log: $out)")
		   printf 'FAIL %s %s (rc %s)\n' "$kind" "$name" "$rc"; tail -n 15 "$out" | sed 's/^/     /' ;;
		esac
	done
}

run_sanitizer_build() {
	local san=$1 line p f s
	echo "== $san build: unit and stress tests"
	if ! make --no-print-directory -s "$san" >"$logdir/$san.log" 2>&1; then :; fi
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$logdir/$san.log" | tail -n1)
	grep -E '^(ok|FAIL|skip) ' "$logdir/$san.log" | sed "s/^/  [$san] /"
	if [ -z "$line" ]; then
		failed=$((failed + 1)); failures+=("$san build (log: $logdir/$san.log)")
		tail -n 20 "$logdir/$san.log"
		return
	fi
	p=$(echo "$line" | sed 's/^\([0-9]*\) passed.*/\1/')
	f=$(echo "$line" | sed 's/.* \([0-9]*\) failed.*/\1/')
	s=$(echo "$line" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
	[ "$f" = 0 ] || failures+=("$san build (log: $logdir/$san.log)")
}

case $what in
unit) run_unit ;;
integration) run_scripts integration tests/integration ;;
stress) run_scripts stress tests/stress ;;
sanitizer)
	export SANITIZER=${SANITIZER:?SANITIZER=asan|tsan}
	run_unit
	run_scripts stress tests/stress ;;
all)
	echo "== unit tests"; run_unit
	echo "== integration tests"; run_scripts integration tests/integration
	echo "== stress tests"; run_scripts stress tests/stress
	run_sanitizer_build asan
	run_sanitizer_build tsan ;;
*) echo "run-tests.sh: unknown part '$what' (unit|integration|stress|sanitizer|all)" >&2; exit 2 ;;
esac

if [ ${#failures[@]} -gt 0 ]; then
	echo "failed:"; printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
