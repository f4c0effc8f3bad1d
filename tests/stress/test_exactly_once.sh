#!/usr/bin/env bash
# STRESS_IOS requests per run across 10 jobs with random sizes and depths, for every policy in
# fork and thread mode: every io_u is completed exactly once, none lost (fio's counts, the
# domain's counts per job and the stray-completion detector all agree). Under TSan only thread
# mode runs (TSan cannot follow fork with threads). Eight jobs on io_uring and libaio at depths
# 1..128, two on psync at depths 1 and 3, whose io_us complete in queue() when granted at once
# and through getevents when held back: both paths are counted once.
# Sizes: 200000 requests per run (1.6 million in the 8 runs), 60000 under the sanitizers,
# which run the engine 3-10x slower on the same 2 CPUs; each run must finish within 300 s
# (x3 ASan, x4 TSan).
# sanitizers: asan tsan
# make-test sanitizers: asan tsan
# timeout: 900
. "$(dirname "$0")/../lib.sh"
policies
total=${STRESS_IOS:-$([ -n "${SANITIZER:-}" ] && echo 60000 || echo 200000)}
per_job=$((total / 10))
total=$((per_job * 10))
dir=/dev/shm/schedengine-stress.$$
mkdir -p "$dir" || dir=$WORK
trap 'rm -rf "$dir"; cleanup' EXIT
for s in $POLICIES; do
for thread in $THREAD_MODES; do
	name=stress-$s-thread$thread
	{
		echo "[global]"
		echo "ioengine=external:$ENGINE"
		echo "sched=$s"
		# CFQ idles 8 ms per queue on this rotational-by-default target (tmpfs): at 250 us the
		# idle timer still arms and fires thousands of times, and a run takes seconds, not minutes.
		[ "$s" = cfq ] && echo "slice_idle_us=250" && echo "group_idle_us=250"
		# The domain's own exactly-once: fio's requests straight to the scheduler (the page cache
		# turns them into other requests; test_pagecache checks those).
		echo "pagecache=none"
		echo "hw_queue_depth=24"
		echo "sched_stats=$WORK/$name.stats.json"
		echo "thread=$thread"
		echo "directory=$dir"
		echo "size=16m"
		echo "rw=randrw"
		echo "bsrange=512-64k"
		echo "io_size=1t"
		echo "number_ios=$per_job"
		echo "randrepeat=0"
		i=0
		for depth in 1 3 8 17 32 64 100 128; do
			echo "[j$i]"
			echo "iodepth=$depth"
			echo "iodepth_batch_submit=$(((depth + 3) / 4))"
			echo "iodepth_batch_complete_min=$(((depth + 7) / 8))"
			[ $((i % 2)) -eq 0 ] && echo "backend=io_uring" || echo "backend=libaio"
			i=$((i + 1))
		done
		# Two more on psync: fio commits each io_u as it queues it (batch 1), so they
		# complete in queue() when the domain grants at once (queue_direct()), and through
		# getevents when the scheduler holds them back.
		for depth in 1 3; do
			echo "[p$depth]"
			echo "iodepth=$depth"
			echo "backend=psync"
		done
	} >"$WORK/$name.fio"
	start=$(date +%s)
	FIO_TIMEOUT=300 run_fio "$name" "$WORK/$name.fio" || fail "$name: fio rc $? $(head -c 800 "$WORK/$name.err")"
	echo "$name: $total requests in $(($(date +%s) - start))s"
	pyjson "$WORK/$name.json" '
ios={j["jobname"]: j["read"]["total_ios"]+j["write"]["total_ios"] for j in d["jobs"]}
assert all(j["error"]==0 for j in d["jobs"]), [j["error"] for j in d["jobs"]]
assert all(v=='"$per_job"' for v in ios.values()), ios
import json as J
s=J.load(open("'"$WORK/$name.stats.json"'"))
assert s["stray_completions"]==0, s["stray_completions"]
assert s["inserted"]==s["dispatched"]==s["completed"]=='"$total"', (s["inserted"],s["dispatched"],s["completed"])
direct = {}
for j in s["jobs"]:
    assert j["inserted"]==j["dispatched"]==j["completed"]==ios[j["name"]], j
    assert j["direct_completions"] <= j["completed"], j
    direct[j["name"]] = j["direct_completions"]
assert direct["p1"] > 0 and direct["p3"] > 0, ("psync jobs never completed in queue()", direct)
assert not any(direct[n] for n in direct if n[0] != "p"), ("completed in queue() on io_uring/libaio", direct)
assert s["max_in_flight"]<=24
assert s["sched"]=="'"$s"'", s["sched"]
assert s["sched"]!="cfq" or s["policy"]["idle_timer_fired"]>0, ("cfq idle timer never fired", s["policy"])
print("exactly once:", s["completed"], "requests,", len(s["jobs"]), "jobs, max in flight", s["max_in_flight"], "psync direct", direct["p1"], "of", ios["p1"], "and", direct["p3"], "of", ios["p3"], "policy", {k: v for k, v in s.get("policy", {}).items() if k.startswith("idle")})
' || fail "$name: exactly-once check"
	rm -f "$dir"/*
done
done
