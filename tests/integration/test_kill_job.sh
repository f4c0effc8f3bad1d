#!/usr/bin/env bash
# SIGKILL one job mid-run: the survivors never hang (its requests are released, or the domain
# degrades to bypass if it died holding the lock), and the next run starts clean.
. "$(dirname "$0")/../lib.sh"

kill_one_job() { # kill_one_job NAME DELAY [extra fio args]: runs 4 jobs, kills one after DELAY
	local name=$1 delay=$2 pid victim start rc
	shift 2
	start=$(date +%s)
	timeout 60 "$FIO" --output-format=json --output="$WORK/$name.json" --name=k \
		--ioengine=external:"$ENGINE" --directory="$WORK" --size=8M --rw=randread --bs=4k \
		--iodepth=16 --numjobs=4 --direct=1 --time_based --runtime=4 --hw_queue_depth=4 \
		--sched_stats="$WORK/$name.stats.json" "$@" 2>"$WORK/$name.err" &
	pid=$!
	sleep "$delay"
	# fio's job processes are the children of the fio process (under timeout).
	fio_pid=$(pgrep -P "$pid" -x fio | head -n1)
	victim=$(pgrep -P "$fio_pid" | shuf -n1 --random-source=<(yes))
	[ -n "$victim" ] || fail "$name: no job process found under fio $fio_pid"
	kill -9 "$victim"
	wait "$pid"
	rc=$?
	[ $rc -ne 124 ] || fail "$name: fio hung after job $victim was killed"
	echo "$name: killed job pid $victim after ${delay}s; fio rc $rc after $(($(date +%s) - start))s"
	pyjson "$WORK/$name.stats.json" '
died=[j for j in d["jobs"] if j["died"]]
assert len(died)==1, "died: %s" % died
assert d["stray_completions"]==0
live=[j for j in d["jobs"] if not j["died"]]
assert all(j["completed"]==j["inserted"] for j in live), "a survivor lost requests"
print("degraded" if d["degraded"] else "recovered", "survivors completed", sum(j["completed"] for j in live))
' || fail "$name: stats after the kill"
}

for delay in 1 2; do
	kill_one_job default-$delay $delay
done
kill_one_job named 1 --sched_domain=se-kill-test-$$

# The next run starts clean: the default domain is new, the named one is re-created.
for extra in "" "--sched_domain=se-kill-test-$$"; do
	run_fio next --name=n --ioengine=external:"$ENGINE" --directory="$WORK" --size=4M \
		--rw=randrw --bs=4k --iodepth=8 --numjobs=2 --verify=crc32c --direct=1 \
		--sched_stats="$WORK/next.stats.json" $extra || fail "run after the kill ($extra): $(cat "$WORK/next.err")"
	pyjson "$WORK/next.stats.json" '
assert len(d["jobs"])==2 and not any(j["died"] for j in d["jobs"]), d["jobs"]
assert not d["degraded"]
' || fail "the run after the kill did not start clean ($extra)"
done
rm -f "/dev/shm/schedengine.se-kill-test-$$"
