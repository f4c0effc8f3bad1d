#!/usr/bin/env bash
# fio's own job tests as a peer suite: t/jobs from the fio source the build fetched, run by fio's
# own harness (t/run-fio-tests.py) through the engine: each job's ioengine= becomes this engine
# with the backend it maps to (libaio, io_uring; sync/psync/posixaio and the default become
# psync/libaio/psync), for sched=none and sched=cfq side by side. A test that does not pass through the engine is run natively: if it passes there,
# it is a failure, unless it is listed below with fio's own reason.
# The tests that need fio's null engine (no I/O at all) are not part of this suite: their
# checks are about fio's null engine itself.
# PEER_SCHEDS (default "none cfq"), PEER_TESTS (fio's test ids) choose what runs.
. "$(dirname "$0")/../lib.sh"

SRC=${FIO_SRC:-$TOP/build/fio-src}
case $SRC in /*) ;; *) SRC=$TOP/$SRC ;; esac
[ -f "$SRC/t/run-fio-tests.py" ] && [ -d "$SRC/t/jobs" ] || skip "no fio source with t/ at $SRC"
[ -f "$SRC/config-host.h" ] || skip "fio source at $SRC not configured (config-host.h)"
# t0002 (1 GiB, bssplit up to 1M, QD 128) and t0006 (4 GiB randrw, QD 32) are the two long ones
# (about 20 s each through the engine): PEER_TESTS="2 6 ..." runs them.
TESTS=${PEER_TESTS:-3 4 5 7 8 15 17 18 25 26}
# Known through-the-engine failures, with fio's own reason (shown again by this test: each is
# run natively with fio's own async posixaio engine, where it must fail the same way):
#   26: t0026 (experimental_verify with an async engine): fio's experimental_verify replays
#       writes in issue order, which an async engine completes out of order.
KNOWN=" 26 "

tree() { # dir: a copy of fio's t/ and config-host.h, the harness's "fio root"
	mkdir -p "$1"
	cp -r "$SRC/t" "$SRC/config-host.h" "$1/"
}

# The harness prints "Test N PASSED|FAILED|SKIPPED ..." per test.
results() { grep -E '^Test [0-9]+ (PASSED|FAILED)' "$1" | awk '{sub(":", "", $3); print $2, $3}' | sort -n; }

# The harness's artifacts (fio's test files, up to 4 GiB for t0006) go to tmpfs, which takes
# O_DIRECT: these tests check fio's own results, not the device, and run several times faster.
ART=$(mktemp -d /dev/shm/schedengine-peer.XXXXXX)
trap 'rm -rf "$ART"; [ -n "${KEEP_WORK:-}" ] || cleanup' EXIT

run_harness() { # name fio-root fio-binary tests...
	local name=$1 root=$2 bin=$3
	shift 3
	(cd "$root" && timeout 900 python3 t/run-fio-tests.py -r "$root" -f "$bin" -a "$ART/$name" \
		--run-only "$@") >"$WORK/$name.log" 2>&1
	results "$WORK/$name.log" >"$WORK/$name.res"
	rm -rf "${ART:?}/$name"
}

# Through the engine, none and cfq side by side (the machine has 2 CPUs).
pids=()
for sched in ${PEER_SCHEDS:-none cfq}; do
	d="$WORK/$sched"
	tree "$d"
	# Each ioengine= becomes the engine with the matching backend; a job file without one
	# (fio's default psync) gets it in a [global] section of its own at the top.
	python3 - "$d/t/jobs" "$ENGINE" "$sched" <<'PY'
import glob, re, sys
jobs, engine, sched = sys.argv[1:4]
backend = {"libaio": "libaio", "io_uring": "io_uring", "posixaio": "libaio", "sync": "psync",
           "psync": "psync", "pvsync": "psync", "vsync": "psync"}
for path in glob.glob(jobs + "/*.fio"):
    text = open(path).read()
    def sub(m):
        be = backend.get(m.group(1).strip())
        if be is None:
            return m.group(0)  # null and others: left as they are
        return "ioengine=external:%s\nbackend=%s\nsched=%s" % (engine, be, sched)
    new, n = re.subn(r"(?m)^ioengine=(.*)$", sub, text)
    if n == 0:
        new = "[global]\nioengine=external:%s\nbackend=psync\nsched=%s\n\n%s" % (engine, sched, text)
    open(path, "w").write(new)
PY
	run_harness "$sched" "$d" "$FIO" $TESTS &
	pids+=($!)
done
wait "${pids[@]}"

# fio's own engines, for every test that did not pass through ours: does it pass natively?
status=0
failed=$(cat "$WORK"/*.res 2>/dev/null | awk '$2 != "PASSED" {print $1}' | sort -nu | tr '\n' ' ')
if [ -n "$failed" ]; then
	tree "$WORK/native"
	run_harness native "$WORK/native" "$(command -v fio)" $failed
	# The known ones with fio's own async engine.
	tree "$WORK/posixaio"
	for f in "$WORK"/posixaio/t/jobs/*.fio; do
		grep -q '^ioengine=' "$f" || sed -i '1i [global]\nioengine=posixaio\n' "$f"
	done
	run_harness posixaio "$WORK/posixaio" "$(command -v fio)" $KNOWN
fi
for sched in ${PEER_SCHEDS:-none cfq}; do
	[ -s "$WORK/$sched.res" ] || fail "sched=$sched: no results: $(tail -n5 "$WORK/$sched.log")"
	for id in $TESTS; do
		got=$(awk -v id="$id" '$1 == id {print $2}' "$WORK/$sched.res")
		[ "$got" = PASSED ] && continue
		native=$(awk -v id="$id" '$1 == id {print $2}' "$WORK/native.res")
		if [ "$native" != PASSED ]; then
			echo "sched=$sched test $id: ${got:-missing}, natively ${native:-missing} too"
			continue
		fi
		posix=$(awk -v id="$id" '$1 == id {print $2}' "$WORK/posixaio.res" 2>/dev/null)
		case $KNOWN in
		*" $id "*)
			[ "$posix" = FAILED ] || { echo "FAIL test $id: listed as known, but fio's posixaio passes it"; status=1; continue; }
			echo "sched=$sched test $id: ${got:-missing} through the engine, PASSED natively with psync, FAILED with fio's posixaio: known (fio's reason above)" ;;
		*) echo "FAIL sched=$sched test $id: native PASSED, engine ${got:-missing}"
		   grep -A3 "^Test $id " "$WORK/$sched.log" | head -n6
		   status=1 ;;
		esac
	done
	note "sched=$sched: $(grep -c PASSED "$WORK/$sched.res") passed, $(grep -c FAILED "$WORK/$sched.res") failed, of $(echo $TESTS | wc -w)"
done
[ $status -eq 0 ] || fail "fio's job tests: a test that passes natively fails through the engine"
echo "fio's job tests pass through the engine as natively"
