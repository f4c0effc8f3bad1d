#!/usr/bin/env bash
# The 2009 seed in real time: fsync-tester against the dd loop on the hdd model, the seed's
# verbatim job file with its matrix's stand-ins for the page cache (engine writeback=fsync, the
# dd loop's writeback as 64 x 512 KiB async writes, nobarrier). CFQ's fsyncs take a fraction of
# a second, deadline's wait seconds behind the writer (published: cfq 0.24..1.96 s, mean 1.15;
# deadline 3.10..10.61 s, mean 7.60). Two 10 s runs.
. "$(dirname "$0")/schedbench_lib.sh"
cd "$T"
J="$TOP/jobs/ssd-and-io-schedulers-2009"
sed -n '/^\[set\]/,/^$/p' "$J/matrix.ini" >set.txt
grep -q 'engine.writeback = fsync' set.txt || fail "2009 matrix: no writeback=fsync in [set]"
dd=$(grep '^dd-loop ' "$J/matrix.ini" | sed -e 's/^dd-loop *= *job:[^ ]*//')
[ -n "$dd" ] || fail "2009 matrix: no dd-loop cell"
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
deadline = embedded:deadline
M
"$SB" run m.ini --db "$T/db.sqlite" >run.log 2>&1 || { tail -20 run.log; fail "run"; }
# fsync-tester's fsyncs: fio's sync latency (mean, s) and count, per scheduler.
fs() {
	q "SELECT printf('%.3f %d', r.lat_mean_ns / 1e9, r.total_ios) FROM results r
	   JOIN runs u ON u.id = r.run_id WHERE u.status = 'ok' AND u.labels LIKE '%\"sched\":\"$1\"%'
	   AND r.jobname = 'fsync-tester' AND r.ddir = 'sync'"
}
read -r cm cn <<<"$(fs cfq)"
read -r dm dn <<<"$(fs deadline)"
echo "2009 fsync under dd: cfq mean ${cm:-?} s over ${cn:-0} fsyncs, deadline ${dm:-?} s over ${dn:-0}"
[ -n "${cn:-}" ] && [ "$cn" -ge 5 ] || fail "cfq: too few fsyncs (${cn:-none})"
"$PY" -c "import sys; sys.exit(0 if float('$cm') < 1.0 else 1)" || fail "cfq fsync mean $cm s"
# deadline: each fsync waits seconds (write_expire 5 s), or none finished at all
if [ -n "${dn:-}" ] && [ "$dn" -gt 0 ]; then
	"$PY" -c "import sys; sys.exit(0 if float('$dm') > 2.0 and float('$dm') > 5 * float('$cm') else 1)" ||
		fail "deadline fsync mean $dm s is not seconds"
	[ "$dn" -lt "$cn" ] || fail "deadline completed as many fsyncs as cfq"
fi
"$SB" report --db "$T/db.sqlite" -e r2009 --format 2009 | grep -q '^summary: ' || fail "2009 table"
echo "2009 replay: cfq keeps fsync short, deadline starves it"
