#!/usr/bin/env bash
# The 2009 seed in real time: fsync-tester against the dd loop on the hdd model, the seed's job
# file verbatim through the engine's page cache with the 2.6.29 profile (the matrix's dd-loop
# cell: no writeback=fsync, no reshaped dd loop; nobarrier). fsync-tester's loop is fio's
# rate_iops=1 (write, fsync, wait for the next second). CFQ's fsyncs wait behind the dd loop's
# async writeback for about a second, deadline's for its write FIFO (published: cfq 0.24..1.96 s,
# mean 1.15; deadline 3.10..10.61 s, mean 7.60). Two 10 s runs; the effect is ~5-10x, and the
# first fsync of a run (at 0 s, before the dd loop's writeback fills the queue) is short in
# both.
# timeout: 180
# exclusive: fsync latencies in real time
. "$(dirname "$0")/schedbench_lib.sh"
cd "$T"
J="$TOP/jobs/ssd-and-io-schedulers-2009"
sed -n '/^\[set\]/,/^$/p' "$J/matrix.ini" >set.txt
dd=$(grep '^dd-loop ' "$J/matrix.ini" | sed -e 's/^dd-loop *= *job:[^ ]*//')
[ -n "$dd" ] || fail "2009 matrix: no dd-loop cell"
# The dd-loop cell replays the job file through the page cache, without the stand-ins.
case "$dd $(cat set.txt)" in *writeback*fsync* | *linus-dd-loop.bs=* | *linus-dd-loop.iodepth=*)
	fail "2009 matrix: the dd-loop cell overlays the job file: $dd" ;;
esac
case "$dd" in *engine.pagecache=2.6.29*) ;; *) fail "2009 matrix: dd-loop without pagecache=2.6.29" ;; esac
grep -q '^rate_iops=1' "$J/fsync-tester-vs-dd-loop.fio" || fail "2009 job file: fsync-tester without rate_iops=1"
cat >m.ini <<M
[matrix]
name     = r2009
jobs     = $J/fsync-tester-vs-dd-loop.fio
repeat   = 1
runtime  = 10
report   = 2009
$(cat set.txt)
$dd

[axis.sched]
cfq      = embedded:cfq
deadline = embedded:deadline engine.deadline_version=4.19
M
"$SB" run m.ini --db "$T/db.sqlite" >run.log 2>&1 || { tail -20 run.log; fail "run"; }
# Both runs must be there and ok: a missing row is a failure, never a skipped check.
for s in cfq deadline; do
	n=$(q "SELECT COUNT(*) FROM runs WHERE status = 'ok' AND labels LIKE '%\"sched\":\"$s\"%'")
	[ "$n" = 1 ] || fail "$s: $n ok runs, expected 1 ($(q "SELECT status || ' ' || IFNULL(stderr_tail, '') FROM runs WHERE labels LIKE '%\"sched\":\"$s\"%'" | head -c 300))"
done
# fsync-tester's fsyncs: fio's sync latency (mean and max, s) and count, per scheduler; a run in
# which no fsync finished has no sync row: count 0.
fs() {
	q "SELECT printf('%.3f %.3f %d', IFNULL(MAX(r.lat_mean_ns), 0) / 1e9, IFNULL(MAX(r.lat_max_ns), 0) / 1e9,
	                 IFNULL(MAX(r.total_ios), 0))
	   FROM runs u LEFT JOIN results r ON r.run_id = u.id AND r.jobname = 'fsync-tester' AND r.ddir = 'sync'
	   WHERE u.status = 'ok' AND u.labels LIKE '%\"sched\":\"$1\"%'"
}
read -r cm cx cn <<<"$(fs cfq)"
read -r dm dx dn <<<"$(fs deadline)"
echo "2009 fsync under dd: cfq mean $cm s (max $cx) over $cn fsyncs, deadline mean $dm s (max $dx) over $dn (published: cfq 0.239..1.964 s, mean 1.152; deadline 3.102..10.610 s, mean 7.600)"
# CFQ: one fsync a second, at least 5 in 10 s, the mean in the published range.
[ "$cn" -ge 5 ] || fail "cfq: $cn fsyncs completed in 10 s, expected >= 5"
"$PY" -c "import sys; sys.exit(0 if 0.239 <= float('$cm') <= 1.964 else 1)" ||
	fail "cfq fsync mean $cm s, expected in the published 0.239..1.964 s"
# deadline: after the start-up one, each fsync waits behind the writer's backlog (write_expire
# 5 s): the slowest reaches the fastest published deadline fsync, 3.102 s, unless only the
# start-up one finished (the next one starved past the run's end); fewer than cfq's.
if [ "$dn" -ge 2 ]; then
	"$PY" -c "import sys; sys.exit(0 if float('$dx') >= 3.102 else 1)" ||
		fail "deadline's slowest fsync $dx s, expected >= 3.102 s (the fastest published deadline fsync)"
else
	echo "deadline: $dn fsync(s) finished within the 10 s run (the rest starved)"
fi
[ "$dn" -lt "$cn" ] || fail "deadline completed $dn fsyncs, cfq $cn: expected fewer"
"$SB" report --db "$T/db.sqlite" -e r2009 --format 2009 | grep -q '^summary: ' || fail "2009 table"
echo "2009 replay: cfq fsyncs in the published range, deadline starves them"
