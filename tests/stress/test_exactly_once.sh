#!/usr/bin/env bash
# 10^6 requests (STRESS_IOS) across 8 jobs with random sizes and depths, fork and thread mode:
# every io_u is completed exactly once, none lost (fio's counts, the domain's counts and the
# stray-completion detector all agree). Under TSan only thread mode runs (TSan cannot follow
# fork with threads).
. "$(dirname "$0")/../lib.sh"
total=${STRESS_IOS:-1000000}
per_job=$((total / 8))
dir=/dev/shm/schedengine-stress.$$
mkdir -p "$dir" || dir=$WORK
trap 'rm -rf "$dir"; cleanup' EXIT
modes="0 1"
[ "${SANITIZER:-}" = tsan ] && modes=1
for thread in $modes; do
	name=stress-thread$thread
	{
		echo "[global]"
		echo "ioengine=external:$ENGINE"
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
	} >"$WORK/$name.fio"
	start=$(date +%s)
	FIO_TIMEOUT=600 run_fio "$name" "$WORK/$name.fio" || fail "$name: fio rc $? $(head -c 800 "$WORK/$name.err")"
	echo "$name: $total requests in $(($(date +%s) - start))s"
	pyjson "$WORK/$name.json" '
ios={j["jobname"]: j["read"]["total_ios"]+j["write"]["total_ios"] for j in d["jobs"]}
assert all(j["error"]==0 for j in d["jobs"]), [j["error"] for j in d["jobs"]]
assert all(v=='"$per_job"' for v in ios.values()), ios
import json as J
s=J.load(open("'"$WORK/$name.stats.json"'"))
assert s["stray_completions"]==0, s["stray_completions"]
assert s["inserted"]==s["dispatched"]==s["completed"]=='"$total"', (s["inserted"],s["dispatched"],s["completed"])
for j in s["jobs"]:
    assert j["inserted"]==j["dispatched"]==j["completed"]==ios[j["name"]], j
assert s["max_in_flight"]<=24
print("exactly once:", s["completed"], "requests,", len(s["jobs"]), "jobs, max in flight", s["max_in_flight"])
' || fail "$name: exactly-once check"
done
