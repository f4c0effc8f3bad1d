# Shared helpers for the integration and stress tests (sourced). Each test is one script:
# exit 0 passed, 77 skipped (after a line "SKIP: why"), anything else failed.
set -u
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
ENGINE=$BUILD/libschedengine.so
FIO=${FIO:-fio}
[ -f "$ENGINE" ] || { echo "engine not built: $ENGINE" >&2; exit 1; }

# Sanitizer builds: the runtime must be loaded before fio itself (and only into fio: python
# and the shell tools run without it). $FIO is then a small wrapper.
SAN_PRELOAD=
case ${SANITIZER:-} in
asan) SAN_PRELOAD=$(gcc -print-file-name=libasan.so)
      export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:halt_on_error=1}
      export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} ;;
tsan) SAN_PRELOAD=$(gcc -print-file-name=libtsan.so)
      export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:report_signal_unsafe=0:exitcode=66:suppressions=$TOP/tests/tsan.supp} ;;
esac

WORK=$(mktemp -d /tmp/schedengine-test.XXXXXX)
if [ -n "$SAN_PRELOAD" ]; then
	printf '#!/bin/sh\nLD_PRELOAD=%s exec %s "$@"\n' "$SAN_PRELOAD" "$(command -v "$FIO")" >"$WORK/fio"
	chmod +x "$WORK/fio"
	FIO=$WORK/fio
fi
cd "$WORK" || exit 1 # fio drops state files (verify.state) in its working directory
LOOPS=()
cleanup() {
	for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$WORK"
}
[ -n "${KEEP_WORK:-}" ] || trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
note() { echo "--- $*"; }

# run_fio NAME [fio args...]: runs fio with the engine, JSON to $WORK/NAME.json, stderr to
# $WORK/NAME.err; returns fio's exit code. Dies when fio takes longer than FIO_TIMEOUT.
run_fio() {
	local name=$1 rc
	shift
	timeout "${FIO_TIMEOUT:-120}" "$FIO" --output-format=json --output="$WORK/$name.json" \
		"$@" 2>"$WORK/$name.err"
	rc=$?
	[ $rc -eq 124 ] && fail "$name: fio did not finish within ${FIO_TIMEOUT:-120}s (hang?)"
	if [ $rc -ne 0 ]; then
		# Why: fio's job errors live in the JSON, not on stderr.
		grep -E '"error" : [1-9]|^fio:|err=' "$WORK/$name.json" >>"$WORK/$name.err" 2>/dev/null
	fi
	return $rc
}

# jq-like reads of fio JSON and sched_stats with python3 (no extra packages).
# Text fio prints before the JSON (warnings) is skipped, as fio's own tools do.
pyjson() {
	python3 -c "import json,sys
t=open(sys.argv[1]).read(); d=json.loads(t[t.index('{'):t.rindex('}')+1])
$2" "$1"
}

# Checks the fio JSON of a run: no job error, and prints the summed read/write/trim/sync ios.
fio_ok() {
	local f=$1
	pyjson "$f" '
errs=[(j["jobname"],j["error"]) for j in d["jobs"] if j["error"]]
assert not errs, "job errors: %s" % errs
print(sum(j[k]["total_ios"] for j in d["jobs"] for k in ("read","write","trim")), sum(j["sync"]["lat_ns"]["N"] for j in d["jobs"]))'
}

# try_loop SIZE: sets LOOP_DEV to a loop device over a fresh image; returns 1 when refused.
try_loop() {
	local img
	img=$(mktemp "$WORK/loop.XXXXXX.img")
	truncate -s "${1:-256M}" "$img"
	LOOP_DEV=$(losetup --find --show --direct-io=on "$img" 2>"$WORK/losetup.err") || return 1
	LOOPS+=("$LOOP_DEV")
}
# make_loop SIZE: the same, or skip the test when the kernel refuses.
make_loop() {
	try_loop "$@" || skip "losetup refused: $(cat "$WORK/losetup.err")"
}
