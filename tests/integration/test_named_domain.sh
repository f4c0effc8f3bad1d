#!/usr/bin/env bash
# Named domains (sched_domain=NAME) shared by separate fio processes, fork and thread mode, and
# re-created after their members died:
#   A. a thread-mode fio with 2 jobs attaching a stale named domain (its member was SIGKILLed,
#      and in a container whose init does not reap, its pid stays a zombie): the two job
#      threads share one mapping and one new domain, and both are in its statistics;
#   B. two fio processes running 2 thread-mode jobs each in one named domain: one scheduler
#      for all 4.
# (The engine before its domain rewrite failed both: each job thread attached on its own.)
# timeout: 180
. "$(dirname "$0")/../lib.sh"
CLEANUP_FILES+=("$SHMDIR/schedengine.se-nd-$$-*") # its named domains, also when a check fails
truncate -s 64M "$WORK/t.dat"
common=(--ioengine=external:"$ENGINE" --filename="$WORK/t.dat" --size=8M --rw=randread --bs=4k
	--iodepth=8 --direct=1)

# Fork mode: two fio processes, 2 jobs each, one domain: one scheduler for all 4.
dom=se-nd-$$-fork
for who in a b; do
	"$FIO" --output-format=json --output="$WORK/fork-$who.json" --name=$who "${common[@]}" \
		--numjobs=2 --sched_domain=$dom --time_based --runtime=2 \
		--sched_stats="$WORK/fork.stats.json" 2>"$WORK/fork-$who.err" &
done
for who in a b; do wait -n || fail "fork mode: a fio failed: $(cat "$WORK"/fork-*.err)"; done
pyjson "$WORK/fork.stats.json" '
assert len(d["jobs"])==4 and d["stray_completions"]==0, d["jobs"]
assert d["inserted"]==d["dispatched"]==d["completed"]
' || fail "fork mode: the domain's statistics"
rm -f "$SHMDIR/schedengine.$dom"
echo "fork mode: 2 fio x 2 jobs in one named domain"

# A: a stale named domain, then a thread-mode fio with 2 jobs, three times.
for k in 1 2 3; do
	dom=se-nd-$$-stale$k
	"$FIO" --output=/dev/null --name=d "${common[@]}" --sched_domain=$dom --time_based --runtime=30 \
		2>/dev/null &
	pd=$!
	for i in $(seq 100); do [ -n "$(pgrep -P $pd)" ] && break; sleep 0.1; done
	sleep 1
	kill -9 $(pgrep -P $pd) $pd
	wait $pd 2>/dev/null
	[ -f "$SHMDIR/schedengine.$dom" ] || fail "stale domain run $k: the killed member's domain is not there to find"
	# 1 s each, so that the two jobs overlap (fio starts its jobs one by one: a job of 500
	# requests could end, and its domain with it, before the other one joins)
	run_fio a$k --thread --name=n "${common[@]}" --numjobs=2 --sched_domain=$dom --time_based \
		--runtime=1 --sched_stats="$WORK/a$k.stats.json" ||
		fail "stale domain run $k: $(head -c 400 "$WORK/a$k.err")"
	pyjson "$WORK/a$k.stats.json" '
assert len(d["jobs"])==2 and not any(j["died"] for j in d["jobs"]), d["jobs"]
assert d["completed"]==d["inserted"]==sum(j["completed"] for j in d["jobs"])>0, d["completed"]' ||
		fail "stale domain run $k: the statistics are not one domain of 2 jobs"
	[ ! -e "$SHMDIR/schedengine.$dom" ] || fail "stale domain run $k: the last member out left the file"
done
echo "A: 3 runs, each a new domain of 2 thread-mode jobs in place of the stale one"

# B: two fio processes with 2 thread-mode jobs each, one after the other.
dom=se-nd-$$-threads
"$FIO" --thread --output-format=json --output="$WORK/b1.json" --name=b1 "${common[@]}" --numjobs=2 \
	--sched_domain=$dom --time_based --runtime=3 --sched_stats="$WORK/b.stats.json" 2>"$WORK/b1.err" &
p1=$!
sleep 1
"$FIO" --thread --output-format=json --output="$WORK/b2.json" --name=b2 "${common[@]}" --numjobs=2 \
	--sched_domain=$dom --time_based --runtime=1 --sched_stats="$WORK/b.stats.json" 2>"$WORK/b2.err"
rc2=$?
wait $p1
rc1=$?
rm -f "$SHMDIR/schedengine.$dom"
[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] || fail "B: rc $rc1/$rc2: $(head -c 300 "$WORK/b1.err") $(head -c 300 "$WORK/b2.err")"
pyjson "$WORK/b.stats.json" 'assert len(d["jobs"])==4 and d["inserted"]==d["completed"], d["jobs"]' ||
	fail "B: both exited 0 but the domain does not hold their 4 jobs"
echo "B: 2 fio x 2 thread-mode jobs in one named domain"
