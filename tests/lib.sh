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
# and the shell tools run without it). $FIO is then a small wrapper. scripts/run-tests.sh sets
# the *SAN_OPTIONS (halt_on_error, a non-zero exitcode, log_path into a directory it checks after
# the test); run by hand, the defaults below do the same minus the log directory.
# fio itself (not instrumented) leaks a few option strings at exit: LeakSanitizer ignores leaks
# allocated directly by the fio binary (malloc_context_size=2: the frame above malloc must be
# fio's for the suppression to match, so the engine's own leaks are still reported).
# TSan: fio cannot fork jobs under TSan (it does not follow fork with threads), so there every
# fio runs its jobs as threads: the wrapper puts --thread first (a global option; a job that
# says thread=0 overrides it), and tests that loop over both modes use THREAD_MODES (1 there).
SAN_PRELOAD=
THREAD_MODES="0 1"
SAN_SCALE=1 # sanitizers slow the engine down: fio time limits are scaled by this
case ${SANITIZER:-} in
asan) SAN_SCALE=3
      SAN_PRELOAD=$(gcc -print-file-name=libasan.so)
      export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:exitcode=66:detect_leaks=1}
      export LSAN_OPTIONS=${LSAN_OPTIONS:-exitcode=66}
      export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=66} ;;
tsan) SAN_SCALE=4
      SAN_PRELOAD=$(gcc -print-file-name=libtsan.so)
      THREAD_MODES=1
      export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:report_signal_unsafe=0:exitcode=66:suppressions=$TOP/tests/tsan.supp} ;;
esac
export THREAD_MODES

WORK=$(mktemp -d /tmp/schedengine-test.XXXXXX)
if [ -n "$SAN_PRELOAD" ]; then
	fio_bin=$(command -v "$FIO")
	printf 'leak:%s\n' "$fio_bin" >"$WORK/lsan.supp"
	cat >"$WORK/fio" <<WRAP
#!/bin/sh
ASAN_OPTIONS="\${ASAN_OPTIONS:-}:malloc_context_size=2" \\
LSAN_OPTIONS="\${LSAN_OPTIONS:-}:suppressions=$WORK/lsan.supp:print_suppressions=0" \\
LD_PRELOAD=$SAN_PRELOAD exec $fio_bin $([ "$SANITIZER" = tsan ] && echo --thread) "\$@"
WRAP
	chmod +x "$WORK/fio"
	FIO=$WORK/fio
fi
cd "$WORK" || exit 1 # fio drops state files (verify.state) in its working directory
SHMDIR=/dev/shm/schedengine-$(id -u) # named domains: the caller's private directory
LOOPS=()
CLEANUP_FILES=() # globs removed at exit, e.g. a test's named domains in /dev/shm
cleanup() {
	local l f
	for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
	for f in "${CLEANUP_FILES[@]}"; do rm -f $f; done
	rm -rf "$WORK"
}
[ -n "${KEEP_WORK:-}" ] || trap cleanup EXIT
# The runner's timeout sends TERM: exit through the EXIT trap (loop devices, files).
trap 'echo "FAIL: terminated (timeout?)" >&2; exit 143' TERM INT

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
note() { echo "--- $*"; }
# A known gap whose result is inside its documented range: the test still exits 0 and the
# runner counts it as an expected failure. Outside the range a test must fail() instead.
xfail() { echo "XFAIL: $*"; }

# The policies every real-I/O test runs: none, deadline, cfq, and bfq and kyber once built (a probe:
# an unbuilt policy is refused with "sched=NAME: not built yet"; anything else is a failure).
policy_built() {
	local p=$1 rc
	truncate -s 1M "$WORK/.probe"
	timeout 30 "$FIO" --name=p --ioengine=external:"$ENGINE" --sched="$p" --filename="$WORK/.probe" \
		--size=1M --rw=read --number_ios=4 --output="$WORK/.probe.out" 2>"$WORK/.probe.err"
	rc=$?
	[ $rc -eq 0 ] && return 0
	grep -q "^schedengine: sched=$p: not built yet" "$WORK/.probe.err" && return 1
	fail "probe of sched=$p: rc $rc, neither ran nor said 'not built yet': $(head -c 400 "$WORK/.probe.err")"
}
POLICIES="none deadline cfq"
policies() { # sets POLICIES (none deadline cfq [bfq] [kyber])
	if policy_built bfq; then POLICIES="none deadline cfq bfq"; fi
	if policy_built kyber; then POLICIES="$POLICIES kyber"; fi
	echo "policies: $POLICIES; thread modes: $THREAD_MODES"
}

# show_stacks PID...: every thread's stack of these processes and their children (gdb, where
# installed), on stderr: what a test prints before it gives up on a process that hangs.
show_stacks() {
	command -v gdb >/dev/null || return 0
	local p
	for p in "$@" $(for p in "$@"; do pgrep -P "$p"; done); do
		echo "--- stacks of $p ($(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null | cut -c1-100))"
		timeout 60 gdb -q -batch -p "$p" -ex "thread apply all bt 12" 2>/dev/null | grep -E "^#|^Thread"
	done >&2
}

# run_fio NAME [fio args...]: runs fio with the engine, JSON to $WORK/NAME.json, stderr to
# $WORK/NAME.err; returns fio's exit code. Dies when fio takes longer than FIO_TIMEOUT (120 s)
# x SAN_SCALE.
run_fio() {
	local name=$1 rc lim=$((${FIO_TIMEOUT:-120} * SAN_SCALE))
	shift
	# A hang is shown, not only reported: before timeout kills fio, every thread's stack of
	# every fio process under it (gdb, where installed) goes to the test's output.
	timeout --foreground -k 10 -s USR2 "$lim" bash -c 'trap "hang_stacks \$fio_pid; pkill -9 -P \$fio_pid; kill -9 \$fio_pid 2>/dev/null; exit 124" USR2
		hang_stacks() { command -v gdb >/dev/null || return 0; local p
			for p in $1 $(pgrep -P $1); do echo "--- stacks of $p ($(tr "\0" " " </proc/$p/cmdline 2>/dev/null | cut -c1-100))"
				timeout 60 gdb -q -batch -p $p -ex "thread apply all bt 12" 2>/dev/null | grep -E "^#|^Thread"; done >&2; }
		"$@" & fio_pid=$!; wait $fio_pid' fio-under-watch "$FIO" --output-format=json \
		--output="$WORK/$name.json" "$@" 2>"$WORK/$name.err"
	rc=$?
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		grep -A400 '^--- stacks of' "$WORK/$name.err" | head -n 400 >&2
		fail "$name: fio did not finish within ${lim}s (hang?)"
	fi
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
	LOOP_DEV=
	# (tests run two at a time: another one may take the free device between find and set-up)
	for _ in 1 2 3; do
		LOOP_DEV=$(losetup --find --show --direct-io=on "$img" 2>"$WORK/losetup.err") && break
		grep -q -i busy "$WORK/losetup.err" || return 1
		sleep 0.2
	done
	[ -n "$LOOP_DEV" ] || return 1
	LOOPS+=("$LOOP_DEV")
}
# make_loop SIZE: the same, or skip the test when the kernel refuses.
make_loop() {
	try_loop "$@" || skip "losetup refused: $(cat "$WORK/losetup.err")"
}

# Cases that wait on I/O and idling far more than they compute, a few at a time:
#   par_run NAME CMD...   starts CMD (a function that fail()s on its own) in the background once
#                         fewer than PAR_JOBS of them run (default 3; 1 under a sanitizer,
#                         where they compute more than they wait)
#   par_wait              waits for all; the test fails if any did (each printed its FAIL line)
# Each case needs its own files and fio run names.
declare -A par_cases=()
par_failed=0
par_reap() {
	local pid rc
	wait -n -p pid "${!par_cases[@]}"
	rc=$?
	[ -n "${par_cases[$pid]:-}" ] || return 0
	if [ $rc -ne 0 ]; then
		echo "case failed: ${par_cases[$pid]} (rc $rc)" >&2
		par_failed=$((par_failed + 1))
	fi
	unset "par_cases[$pid]"
}
par_run() {
	local name=$1
	shift
	while [ ${#par_cases[@]} -ge "${PAR_JOBS:-$([ -n "${SANITIZER:-}" ] && echo 1 || echo 3)}" ]; do
		par_reap
	done
	"$@" &
	par_cases[$!]=$name
}
par_wait() {
	while [ ${#par_cases[@]} -gt 0 ]; do par_reap; done
	[ "$par_failed" -eq 0 ] || fail "$par_failed case(s) failed (above)"
}
