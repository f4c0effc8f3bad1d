#!/usr/bin/env bash
# Issue 36, "Scale": hundreds of jobs must not stall the domain. 1024 thread jobs and 1024 fork
# jobs, default engine options and pagecache=none, each reading 1 MiB at random from one 1 MiB file, must finish
# in bounded time (generous: it catches a stall, not a speed; make bench prints the speed).
# Before the fix 400 thread jobs took 37 s for what 256 did in 0.2 s: the device context read
# every stale member's /proc/PID/stat under the domain lock on each pass, and for thread jobs
# each read summed the CPU time of every thread of the process (thread_group_cputime()).
# timeout: 400
. "$(dirname "$0")/../lib.sh"

N=${MANY_JOBS:-1024}
LIMIT=$((90 * SAN_SCALE)) # seconds per run; both take under 6 s on 2 CPUs alone
truncate -s 1M "$WORK/f"
# Default options (pagecache=auto: these buffered reads are the engine's page cache's, one call
# into the domain each) and pagecache=none (each read a request through the scheduler).
for pc in auto none; do
for mode in $THREAD_MODES; do
	label=$([ "$mode" = 1 ] && echo thread || echo fork)-$pc
	s0=$(date +%s.%N)
	timeout -k 10 "$LIMIT" "$FIO" --name=many --ioengine=external:"$ENGINE" --thread="$mode" \
		--numjobs="$N" --filename="$WORK/f" --rw=randread --bs=4k --size=1m \
		$([ $pc = none ] && echo --pagecache=none) \
		--group_reporting --output-format=json --output="$WORK/$label.json" \
		--sched_stats="$WORK/$label.stats.json" 2>"$WORK/$label.err"
	rc=$?
	el=$(echo "$(date +%s.%N) - $s0" | bc)
	[ $rc -ne 124 ] && [ $rc -ne 137 ] ||
		fail "$N $label jobs did not finish within ${LIMIT}s: a stall ($(head -c 300 "$WORK/$label.err"))"
	[ $rc -eq 0 ] || fail "$N $label jobs: fio rc $rc: $(head -n 3 "$WORK/$label.err")"
	read -r ios _ < <(fio_ok "$WORK/$label.json") || fail "$N $label jobs: a job failed"
	[ "$ios" -eq $((N * 256)) ] || fail "$N $label jobs: $ios reads, expected $((N * 256))"
	pyjson "$WORK/$label.stats.json" "
n, pc = $N, '$pc'
assert len(d['jobs']) == n, 'members: %d' % len(d['jobs'])
assert not d['degraded'] and d['stray_completions'] == 0
assert all(not j['died'] for j in d['jobs'])
if pc == 'none':
    assert d['completed'] == d['inserted'] == n * 256, (d['inserted'], d['completed'])
    assert all(j['completed'] == 256 for j in d['jobs'])
else:
    # every read a hit or a wait (or more than one: fio's invalidate=1 at each job's open drops
    # the file's clean pages, as POSIX_FADV_DONTNEED does) in the cache; the scheduler sees the
    # cache's reads only
    c = d['pagecache']
    assert all(j['read_hits'] + j['read_waits'] >= 256 for j in c['jobs']), 'cache reads'
    rq = sum(j['read_requests'] for j in c['jobs'])
    assert d['completed'] == rq == c['requests']['read'] + c['requests']['readahead'], (d['completed'], rq, c['requests'])
" || fail "$N $label jobs: sched_stats"
	if [ $pc = none ]; then
		note "$N $label jobs x 256 random 4k reads: ${el%????}s, every request through the scheduler once"
	else
		note "$N $label jobs x 256 random 4k reads: ${el%????}s, every read through the engine's page cache"
	fi
done
done
exit 0
