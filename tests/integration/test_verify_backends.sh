#!/usr/bin/env bash
# numjobs=4 iodepth=32 randrw with verify=crc32c through every backend, fork and thread mode,
# direct and buffered, on regular files: data intact, every job in one scheduler domain.
. "$(dirname "$0")/../lib.sh"
for be in io_uring libaio psync; do
	for thread in 0 1; do
		for direct in 1 0; do
			name=$be-thread$thread-direct$direct
			note "$name"
			mkdir -p "$WORK/$name"
			run_fio "$name" --name=v --ioengine=external:"$ENGINE" --backend=$be \
				--thread=$thread --directory="$WORK/$name" --size=8M --rw=randrw \
				--bs=4k --iodepth=32 --numjobs=4 --verify=crc32c --do_verify=1 \
				--direct=$direct --sched_stats="$WORK/$name.stats.json" ||
				fail "$name: fio rc $? $(head -c 600 "$WORK/$name.err")"
			ios=$(fio_ok "$WORK/$name.json" | cut -d' ' -f1) || fail "$name: $(cat "$WORK/$name.err")"
			pyjson "$WORK/$name.stats.json" '
import os
jobs=d["jobs"]
assert len(jobs)==4, "jobs in the domain: %d" % len(jobs)
assert len(set(j["pid"] for j in jobs))==(1 if '"$thread"' else 4), "pids: %s" % [j["pid"] for j in jobs]
assert d["inserted"]==d["dispatched"]==d["completed"], (d["inserted"],d["dispatched"],d["completed"])
assert d["completed"]=='"$ios"', ("completed", d["completed"], "fio ios", '"$ios"')
assert d["max_in_flight"]<=d["hw_queue_depth"]
assert d["stray_completions"]==0
' || fail "$name: sched_stats check"
		done
	done
done
