#!/usr/bin/env bash
# backend=psync does the I/O in issue(): when fio commits each io_u as it queues it
# (iodepth_batch=1) and the domain grants the request at once, the io_u completes in fio's
# queue() (queue_direct()), as it does with fio's own sync engines, and fio's clat holds the
# I/O. sched_stats counts those per job (direct_completions).
#   1. one job, sched=none: every request completes in queue(), each once; fio's clat mean is at
#      least the scheduler's service mean (the I/O is inside clat; before, clat began after it);
#   2. two jobs for a second, cfq with idling, one device slot: the job whose queue is not in
#      service is held back, its io_us queued and completed through getevents; every request
#      completes once;
#   3. iodepth_batch=2 (fio commits two at a time): never in queue(); 4. a device model that
#      completes the request later (ssd): through getevents, but for the odd request whose job
#      was descheduled after submitting it for longer than the model took (the device context
#      completed it meanwhile; 5 of 2000 in one loaded run): at most a tenth;
#   5. device_model=null, which completes at submission (as null_blk), at iodepth 8 on the
#      default backend (io_uring): every request in queue(), each once.
# sanitizers: asan tsan
# make-test sanitizers: asan
# timeout: 120
. "$(dirname "$0")/../lib.sh"
truncate -s 16M "$WORK/t.dat"
common=(--ioengine=external:"$ENGINE" --backend=psync --filename="$WORK/t.dat" --size=16M --direct=1
	--bs=4k --randrepeat=0)

# One job's run: fio and the scheduler each count N requests, none stray, and between LO and HI of
# them completed in queue().
counts() { # name N LO HI
	pyjson "$WORK/$1.json" '
import json
s = json.load(open("'"$WORK/$1.stats.json"'"))
r = d["jobs"][0]["read"]
j = s["jobs"][0]
n, lo, hi = '"$2, $3, $4"'
assert r["total_ios"] == n and d["jobs"][0]["error"] == 0, (r["total_ios"], d["jobs"][0]["error"])
assert j["completed"] == n and s["stray_completions"] == 0, (j["completed"], s["stray_completions"])
assert lo <= j["direct_completions"] <= hi, ("completed in queue()", j["direct_completions"], "of", n, "not in", lo, hi)
print("'"$1"': %d of %d completed in queue()" % (j["direct_completions"], n))
' || fail "$1: completions in queue()"
}

name=alone
run_fio "$name" --name=a "${common[@]}" --sched=none --rw=randread --number_ios=4000 \
	--sched_stats="$WORK/$name.stats.json" || fail "$name: fio rc $? $(head -c 600 "$WORK/$name.err")"
counts $name 4000 4000 4000
pyjson "$WORK/$name.json" '
import json
s = json.load(open("'"$WORK/$name.stats.json"'"))
r = d["jobs"][0]["read"]
j = s["jobs"][0]
service_us = j["service_ns_total"] / j["completed"] / 1e3
clat_us = r["clat_ns"]["mean"] / 1e3
print("alone: fio clat %.2f us, scheduler service %.2f us" % (clat_us, service_us))
# fio may time with the TSC, the engine with CLOCK_MONOTONIC: 10% and 1 us of slack.
assert clat_us >= service_us * 0.9 - 1, ("fio clat below the I/O it holds", clat_us, service_us)
' || fail "$name: direct completion"

name=held
run_fio "$name" --name=h "${common[@]}" --sched=cfq --slice_idle_us=250 --group_idle_us=250 \
	--hw_queue_depth=1 --rw=randread --iodepth=2 --numjobs=2 --thread=1 --time_based --runtime=1 \
	--sched_stats="$WORK/$name.stats.json" || fail "$name: fio rc $? $(head -c 600 "$WORK/$name.err")"
pyjson "$WORK/$name.json" '
import json
s = json.load(open("'"$WORK/$name.stats.json"'"))
ios = {j["jobname"] + "." + str(i): j["read"]["total_ios"] for i, j in enumerate(d["jobs"])}
assert all(j["error"] == 0 for j in d["jobs"]), [j["error"] for j in d["jobs"]]
assert s["stray_completions"] == 0 and s["completed"] == sum(ios.values()), (s["stray_completions"], s["completed"], ios)
done = [j["completed"] for j in s["jobs"]]
direct = [j["direct_completions"] for j in s["jobs"]]
assert sorted(done) == sorted(ios.values()), ("scheduler", done, "fio", ios)
print("held: completed in queue()", direct, "of", done, "; cfq slices", s["policy"]["slices_started"])
# Both jobs run for the whole second: a job whose queue is not in service waits at each switch.
assert sum(done) - sum(direct) >= 2, "no io_u held back by cfq: the getevents path was not exercised"
' || fail "$name: held-back io_us"

for name in batch2 model; do
	extra=(--iodepth=2 --iodepth_batch_submit=2)
	[ $name = model ] && extra=(--device_model=ssd)
	run_fio "$name" --name=n "${common[@]}" --sched=none --rw=randread --number_ios=2000 \
		"${extra[@]}" --sched_stats="$WORK/$name.stats.json" ||
		fail "$name: fio rc $? $(head -c 600 "$WORK/$name.err")"
done
counts batch2 2000 0 0
counts model 2000 0 200

name=null
run_fio "$name" --name=z "${common[@]}" --backend=io_uring --device_model=null --sched=none \
	--rw=randread --iodepth=8 --number_ios=3000 --sched_stats="$WORK/$name.stats.json" ||
	fail "$name: fio rc $? $(head -c 600 "$WORK/$name.err")"
counts null 3000 3000 3000
echo "direct completion: ok"
