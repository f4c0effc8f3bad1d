#!/usr/bin/env bash
# numjobs=4 iodepth=32 randrw with verify=crc32c for every policy x backend x fork/thread mode,
# on regular files, direct and buffered alternating so that each policy and each backend meets
# both: data intact, every job in one scheduler domain, every request through the policy once
# (buffered jobs: through the page cache, pagecache=auto, whose requests are the policy's).
# Within make test's ASan part half the policy x backend pairs run (each backend in both modes);
# within its TSan part (thread mode) each policy on two of the three backends.
# sanitizers: asan tsan
# make-test sanitizers: asan tsan
# timeout: 300
. "$(dirname "$0")/../lib.sh"
policies

# One case: fio with verify, then its sched_stats. The cases wait on the device and on the
# policies' idling far more than they compute (4-7 s of wall time for under 1 s of CPU), so
# a few of them run at once (par_run, PAR_JOBS), each in its own directory and its own domain.
vcase() { # vcase NAME POLICY BACKEND THREAD DIRECT
	local name=$1 s=$2 be=$3 thread=$4 direct=$5 ios
	note "$name"
	mkdir -p "$WORK/$name"
	run_fio "$name" --name=v --ioengine=external:"$ENGINE" --sched=$s --backend=$be \
		--thread=$thread --directory="$WORK/$name" --size=$([ -n "${SANITIZER:-}" ] && echo 2M || echo 4M) --rw=randrw \
		--bs=4k --iodepth=32 --numjobs=4 --verify=crc32c --do_verify=1 \
		--direct=$direct --sched_stats="$WORK/$name.stats.json" ||
		fail "$name: fio rc $? $(head -c 600 "$WORK/$name.err")"
	ios=$(fio_ok "$WORK/$name.json" | cut -d' ' -f1) || fail "$name: $(cat "$WORK/$name.err")"
	pyjson "$WORK/$name.stats.json" '
jobs=d["jobs"]
assert d["sched"]=="'"$s"'", ("policy in force", d["sched"])
assert len(jobs)==4, "jobs in the domain: %d" % len(jobs)
assert len(set(j["pid"] for j in jobs))==(1 if '"$thread"' else 4), "pids: %s" % [j["pid"] for j in jobs]
assert d["inserted"]==d["dispatched"]==d["completed"], (d["inserted"],d["dispatched"],d["completed"])
assert all(j["inserted"]==j["completed"] for j in jobs), [(j["inserted"], j["completed"]) for j in jobs]
if '"$direct"':
    assert "pagecache" not in d, "direct jobs alone: no page cache (pagecache=auto)"
    assert d["completed"]=='"$ios"', ("completed", d["completed"], "fio ios", '"$ios"')
else:
    # pagecache=auto: every buffered read is a hit or a wait on the cache, every write dirties
    # a page (randommap: none twice), all of it written back by the end, and the scheduler
    # sees the requests of the cache: read-ahead and writeback, nothing else
    import json
    fj=json.load(open("'"$WORK/$name.json"'"))["jobs"]
    pc=d["pagecache"]; pj=pc["jobs"]+[pc["flusher"]]
    reads=sum(j["read"]["total_ios"] for j in fj); writes=sum(j["write"]["total_ios"] for j in fj)
    assert sum(j["read_hits"]+j["read_waits"] for j in pj)==reads, ("cache reads", reads)
    assert pc["dirtied"]==writes==pc["written"] and pc["nr_dirty"]==0, (pc["dirtied"], writes, pc["written"], pc["nr_dirty"])
    rq=pc["requests"]
    assert sum(j["read_requests"] for j in pj)==rq["read"]+rq["readahead"]+rq["write_begin"], ("reads", rq)
    assert d["completed"]==sum(rq.values()), ("requests of the cache, by reason", d["completed"], rq)
assert d["max_in_flight"]<=d["hw_queue_depth"]
assert d["stray_completions"]==0
' || fail "$name: sched_stats check"
	rm -rf "${WORK:?}/$name"
}

si=0
for s in $POLICIES; do
	bi=0
	for be in io_uring libaio psync; do
		for thread in $THREAD_MODES; do
			direct=$(((si + bi + thread) % 2))
			if [ -n "${SAN_IN_SUITE:-}" ] && [ "$THREAD_MODES" = "1" ]; then
				# make test's TSan part (thread mode only): each policy on two backends, each
				# backend under every policy but one (make tsan runs all)
				[ "$bi" -ne $((si % 3)) ] || continue
			fi
			if [ -n "${SAN_IN_SUITE:-}" ] && [ "$THREAD_MODES" = "0 1" ]; then
				# make test's ASan subset (make asan runs all): half the policy x backend pairs
				# (each policy on one or two backends, each backend under two policies, in fork and
				# thread mode, direct and buffered); the suite's 15 minutes (12 pairs took
				# 100 s of the ASan chain, the suite's longest)
				[ $(((si + bi) % 2)) -eq 0 ] || continue
				[ "$thread" -eq $(((si / 2 + bi) % 2)) ] || continue
				direct=$(((si / 2 + bi / 2) % 2))
			fi
			name=$s-$be-thread$thread-direct$direct
			par_run "$name" vcase "$name" "$s" "$be" "$thread" "$direct"
		done
		bi=$((bi + 1))
	done
	si=$((si + 1))
done
par_wait
echo "all cases passed"
