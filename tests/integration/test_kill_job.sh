#!/usr/bin/env bash
# SIGKILL a member of a scheduler domain mid-run, for every policy, fork and thread mode:
#   fork:   one fio with 4 job processes in the default domain; one job process is killed;
#   thread: three fio processes, each running its job as a thread, in one named domain; one
#           whole fio process is killed.
# The survivors finish (no hang) with every request they inserted dispatched and completed
# exactly once (the scheduler's counts and fio's agree), nothing completes twice, the dead
# members are marked died, and the next run starts clean.
# Where the kill lands decides the recovery path: the dead member's requests released
# ("recovered"), or, if it died holding the domain lock, the domain degraded to bypass. The
# checks hold on both paths and each run says which one it took; forcing the lock-holder path
# needs a hook inside the engine: test_domain.c's test_lock_holder_died meets it on purpose.
# fio 3.33 itself crashes at exit after one of its job processes was SIGKILLed: a double free
# in fio_options_free() (axboe/fio#1598, fixed in fio 3.36 by axboe/fio#1603). A control run
# with fio's own libaio engine shows whether this fio does; only then is the survivor fio's
# crash at exit accepted, as an expected failure (under ASan: only that exact report).
# sanitizers: tsan
# timeout: 300
. "$(dirname "$0")/../lib.sh"
CLEANUP_FILES+=("$SHMDIR/schedengine.se-kill-$$-*") # its named domains, also when a check fails
policies
FIO_REAL=$(command -v fio)

# stats_after_kill NAME SURVIVOR_FIO_JSON SURVIVOR_PID DEAD_JOBS: the domain's statistics after
# the kill; SURVIVOR_PID empty: match the survivors' fio jobs by thread_number (fork mode).
stats_after_kill() {
	python3 - "$WORK/$1.stats.json" "$2" "${3:-}" "$4" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
t = open(sys.argv[2]).read()
f = json.loads(t[t.index('{'):t.rindex('}') + 1])
pid, ndead = sys.argv[3], int(sys.argv[4])
jobs = s["jobs"]
dead = [j for j in jobs if j["died"]]
live = [j for j in jobs if not j["died"]]
assert len(dead) == ndead, "expected %d dead members, stats say %s" % (ndead, [(j["pid"], j["died"]) for j in jobs])
assert s["stray_completions"] == 0, ("stray completions", s["stray_completions"])
# Degraded (the dead one held the lock): what was still in the elevator, and everything after,
# is issued without the scheduler and counted per job as bypassed; what was in the device then
# completes without the scheduler hearing of it. So fio's count is dispatched + bypassed.
deg = s["degraded"]
byp = lambda j: j["bypassed"] if deg else 0
done = lambda j: j["dispatched"] + j["bypassed"] if deg else j["completed"]
assert deg or not [j for j in jobs if j["bypassed"]], "bypassed without degrading"
bad = [j for j in live if not (j["completed"] <= j["dispatched"] <= j["inserted"] <= j["dispatched"] + byp(j)
                               if deg else j["inserted"] == j["dispatched"] == j["completed"])]
assert not bad, "survivors with requests not completed exactly once: %s" % bad
if not s["degraded"]:
    assert s["inserted"] == s["dispatched"] == s["completed"], (s["inserted"], s["dispatched"], s["completed"])
fj = f["jobs"]
ios = lambda j: j["read"]["total_ios"] + j["write"]["total_ios"]
if pid:  # thread mode: the survivor fio's jobs are the members with its pid
    mine = [j for j in live if str(j["pid"]) == pid]
    assert len(mine) == len(fj), ("survivor fio jobs", len(fj), "its members", len(mine))
    assert not [j for j in fj if j["error"]], [j["error"] for j in fj]
    assert sum(map(ios, fj)) == sum(map(done, mine)), \
        ("fio ios", sum(map(ios, fj)), "scheduler completed (degraded: dispatched + bypassed)", sum(map(done, mine)))
else:    # fork mode: fio's jobs in thread_number order
    for j in live:
        fio_ios = ios(fj[j["thread_number"] - 1])
        assert fio_ios == done(j), ("job", j["thread_number"], "fio ios", fio_ios, "scheduler (degraded: dispatched + bypassed)", done(j))
print("degraded (%d bypassed)" % sum(map(byp, live)) if s["degraded"] else "recovered", "- survivors completed",
      sum(j["completed"] for j in live), "requests, the dead", sum(j["completed"] for j in dead))
PY
}

# A job opens its file through the engine after it has joined the domain (init joins, open_file
# registers the file with the domain). wait_joined NAME N FILE PID... waits until the processes
# and their children (fork mode: fio's job processes) hold FILE open N times (at most
# 30 s x SAN_SCALE), then half a second more, so the kill lands in a full domain doing I/O.
# Returns 1 when the processes are all gone first; fails the test (with their stacks) when they
# are still there at the limit.
holders() { # holders FILE PID...
	local f=$1 n=0 p
	shift
	for p in "$@" $(for p in "$@"; do pgrep -P "$p"; done); do
		n=$((n + $(ls -l "/proc/$p/fd" 2>/dev/null | grep -cF -- "-> $f")))
	done
	echo $n
}
wait_joined() {
	local name=$1 n=$2 f=$3 i p alive
	shift 3
	for i in $(seq $((300 * SAN_SCALE))); do
		[ "$(holders "$f" "$@")" -ge "$n" ] && { sleep 0.5; return 0; }
		# All gone (their runtime passed while this loop counted, on a loaded machine): the
		# caller decides (kill_fork tries again).
		alive=0
		for p in "$@"; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ $alive = 1 ] || return 1
		sleep 0.1
	done
	show_stacks "$@"
	for e in "$WORK/$name"*.err; do [ -s "$e" ] && { echo "--- $e"; tail -n 5 "$e"; }; done
	fail "$name: only $(holders "$f" "$@") of $n jobs joined the domain within $((30 * SAN_SCALE))s"
}
fio_child() { # the fio process under `timeout` $1
	local i p
	for i in $(seq 100); do
		p=$(pgrep -P "$1" -x fio | head -n1)
		[ -n "$p" ] && { echo "$p"; return 0; }
		sleep 0.1
	done
	return 1
}

# What this fio does at exit after a SIGKILLed job: fio's own libaio engine, the same kill.
control_rc=
control() {
	local pid fp victim i
	truncate -s 8M "$WORK/control.dat"
	timeout 60 "$FIO_REAL" --output-format=json --output="$WORK/control.json" --name=k \
		--ioengine=libaio --filename="$WORK/control.dat" --size=8M --rw=randread --bs=4k \
		--iodepth=16 --numjobs=4 --direct=1 --time_based --runtime=4 2>"$WORK/control.err" &
	pid=$!
	fp=$(fio_child $pid) || fail "control: fio did not start"
	for i in $(seq 100); do [ "$(pgrep -P "$fp" | wc -l)" -ge 4 ] && break; sleep 0.1; done
	sleep 0.5
	victim=$(pgrep -P "$fp" | head -n1)
	# A control whose kill missed (the job had ended: a loaded machine) would excuse nothing.
	kill -9 "$victim" || fail "control: job $victim of fio's libaio run ended before it could be killed"
	wait $pid
	control_rc=$?
	echo "control (fio $("$FIO_REAL" --version), ioengine=libaio): fio rc $control_rc after a job was SIGKILLed"
}
crashed() { [ "$1" -eq 134 ] || [ "$1" -eq 139 ]; } # SIGABRT, SIGSEGV

# A report the survivor fio's parent wrote under ASan: fio's own double free at exit, or not.
fio_bug_report() {
	grep -qE 'ERROR: AddressSanitizer: (attempting double-free|attempting free on address which was not malloc)' "$1" &&
		sed -n '/ERROR: AddressSanitizer/,/^$/p' "$1" | grep -m1 '#1 ' | grep -qE ' (fio_options_free|options_free) \(.*fio'
}

kill_fork() { # kill_fork POLICY
	local s=$1 name=fork-$1 pid fp victim rc san f i try
	name=fork-$s
	san=$WORK/san-$name
	mkdir -p "$san"
	truncate -s 32M "$WORK/$name.dat"
	# A second try when the jobs ended before the kill: on a loaded machine their 4 s can pass
	# while this script still counts them (seen once in a clean-clone suite).
	for try in 1 2; do
		rm -rf "$san" && mkdir -p "$san"
		# Sanitizer reports of this run go to $san first: fio's own bug is sorted out below.
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:log_path=$san/asan" LSAN_OPTIONS="${LSAN_OPTIONS:-}:log_path=$san/lsan" \
		UBSAN_OPTIONS="${UBSAN_OPTIONS:-}:log_path=$san/ubsan" \
		timeout -k 10 $((60 * SAN_SCALE)) "$FIO" --output-format=json --output="$WORK/$name.json" --name=k \
			--ioengine=external:"$ENGINE" --sched=$s --filename="$WORK/$name.dat" --size=8M \
			--offset_increment=8M --rw=randread --bs=4k --iodepth=16 --numjobs=4 --direct=1 \
			--time_based --runtime=$((4 * try)) --hw_queue_depth=4 \
			--sched_stats="$WORK/$name.stats.json" 2>"$WORK/$name.err" &
		pid=$!
		fp=$(fio_child $pid) || fail "$name: fio did not start"
		# The victim: the job started last, the one with the most of its runtime left.
		victim=
		if wait_joined "$name" 4 "$WORK/$name.dat" "$fp"; then
			victim=$(pgrep -n -P "$fp")
			[ -n "$victim" ] && kill -9 "$victim" 2>/dev/null && break
			victim=
		fi
		wait $pid
		echo "$name: try $try: the jobs ended before the kill (a loaded machine: runtime $((4 * try)) s)"
	done
	[ -n "$victim" ] || fail "$name: no job process left to kill in two tries: the jobs ended ($WORK/$name.json) before all four had joined (a loaded machine: runtime 4 and 8 s)"
	wait $pid
	rc=$?
	[ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "$name: fio hung after job $victim was killed"
	echo "$name: killed job process $victim of fio $fp; fio rc $rc"
	for f in "$san"/*; do
		[ -s "$f" ] || continue
		if [ "${f##*.}" = "$fp" ] && fio_bug_report "$f" && crashed "$control_rc"; then
			xfail "$name: fio's parent reports its own double free at exit under ASan (axboe/fio#1598; the control run crashed too)"
		else
			cp "$f" "${SAN_REPORT_DIR:-$WORK}/" 2>/dev/null
			fail "$name: sanitizer report: $(grep -m1 -E 'ERROR|WARNING|runtime error' "$f")"
		fi
	done
	if [ $rc -ne 0 ]; then
		if crashed $rc && crashed "$control_rc"; then
			xfail "$name: fio exits with a crash (rc $rc) after a SIGKILLed job, as fio's own libaio engine does here (rc $control_rc): axboe/fio#1598"
		elif [ $rc -eq 66 ] && [ -n "${SANITIZER:-}" ] && crashed "$control_rc"; then
			: # the ASan report above, already judged
		else
			fail "$name: survivor fio rc $rc (control with fio's libaio engine: rc $control_rc); stderr: $(head -c 600 "$WORK/$name.err")"
		fi
	fi
	stats_after_kill "$name" "$WORK/$name.json" "" 1 || fail "$name: stats after the kill"
}

kill_thread() { # kill_thread POLICY: three thread-mode fio processes, one domain; one is killed
	local s=$1 name=thread-$1 dom=se-kill-$$-$1 who rc i
	local -A pid fp
	truncate -s 32M "$WORK/$name.dat"
	i=0
	# a runs until it is killed, b and c for 3 s each from their start.
	# One after the other, each once the previous one has joined, so the kill lands in a full
	# domain.
	for who in a b c; do
		timeout -k 10 $((60 * SAN_SCALE)) "$FIO" --thread --output-format=json --output="$WORK/$name-$who.json" \
			--name=$who --ioengine=external:"$ENGINE" --sched=$s --sched_domain=$dom \
			--filename="$WORK/$name.dat" --size=8M --offset=$((i * 8))M --rw=randread --bs=4k \
			--iodepth=16 --direct=1 --time_based --runtime=$([ $who = a ] && echo 60 || echo 3) \
			--hw_queue_depth=4 \
			--sched_stats="$WORK/$name.stats.json" 2>"$WORK/$name-$who.err" &
		pid[$who]=$!
		fp[$who]=$(fio_child ${pid[$who]}) || fail "$name: fio $who did not start"
		i=$((i + 1))
		wait_joined "$name" 1 "$WORK/$name.dat" "${fp[$who]}" ||
			fail "$name: fio $who ended before it had joined"
	done
	kill -9 "${fp[a]}"
	wait ${pid[a]}
	for who in b c; do
		wait ${pid[$who]}
		rc=$?
		[ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "$name: fio $who hung after fio a (${fp[a]}) was killed"
		# The survivors' own jobs were not killed: no fio bug excuses a non-zero exit here.
		[ $rc -eq 0 ] || fail "$name: surviving fio $who rc $rc: $(head -c 600 "$WORK/$name-$who.err")"
	done
	echo "$name: killed fio a (${fp[a]}); fio b (${fp[b]}) and c (${fp[c]}) exited 0"
	for who in b c; do
		stats_after_kill "$name" "$WORK/$name-$who.json" "${fp[$who]}" 1 ||
			fail "$name: stats after the kill (survivor $who)"
	done
	rm -f "$SHMDIR/schedengine.$dom"
}

for s in $POLICIES; do
	for t in $THREAD_MODES; do
		if [ "$t" = 0 ]; then
			[ -n "$control_rc" ] || control
			kill_fork "$s"
		else
			kill_thread "$s"
		fi
	done
done
[[ " $THREAD_MODES " == *" 0 "* ]] || echo "fork mode not run: TSan does not follow fork with threads (fio in thread mode only)"

# The next run starts clean: the default domain is new, a named one whose members all died
# is re-created.
dom=se-kill-$$-next
jobs=2
for extra in "" "--sched_domain=$dom"; do
	for k in 1 2; do
		run_fio next --name=n --ioengine=external:"$ENGINE" --directory="$WORK" --size=4M \
			--rw=randrw --bs=4k --iodepth=8 --numjobs=$([ -n "$extra" ] && echo $jobs || echo 2) \
			--verify=crc32c --direct=1 --sched_stats="$WORK/next.stats.json" $extra ||
			fail "run after the kill ($extra): $(cat "$WORK/next.err")"
		pyjson "$WORK/next.stats.json" '
assert len(d["jobs"])=='"$([ -n "$extra" ] && echo $jobs || echo 2)"' and not any(j["died"] for j in d["jobs"]), d["jobs"]
assert not d["degraded"]
' || fail "the run after the kill did not start clean ($extra)"
		[ -z "$extra" ] && break
		# Leave the named domain with a dead member for the second run to find.
		[ $k = 1 ] || break
		timeout 30 "$FIO" --output=/dev/null --name=d --ioengine=external:"$ENGINE" \
			--sched_domain=$dom --filename="$WORK/next.dat" --size=4M --rw=randread \
			--time_based --runtime=20 2>/dev/null &
		pd=$!
		fd=$(fio_child $pd) || fail "named domain: fio did not start"
		wait_joined "named domain member" 1 "$WORK/next.dat" "$fd" ||
			fail "named domain member: fio ended before it had joined"
		kill -9 $(pgrep -P "$fd") "$fd" # the job (fork mode: fio's child) and fio
		wait $pd
	done
done
rm -f "$SHMDIR/schedengine.$dom"
echo "all kills survived"
