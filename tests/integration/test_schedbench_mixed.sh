#!/usr/bin/env bash
# A matrix that mixes kernel:bfq (slice_idle 8 and 0) on a loop device with embedded cfq cells:
# all cells run end to end on the one loop device (the embedded ones with the kernel's scheduler
# set to none, and the engine's sched_stats stored), the loop device is removed afterwards, and
# `schedbench report --compare` puts kernel and embedded configurations side by side.
. "$(dirname "$0")/schedbench_lib.sh"
require_root_and_loop
grep -qw bfq /sys/block/"$(basename "$dev")"/queue/scheduler 2>/dev/null ||
	modprobe bfq 2>/dev/null || true
ENGINE="$TOP/$BUILD/libschedengine.so"
case $BUILD in /*) ENGINE="$BUILD/libschedengine.so" ;; esac
[ -f "$ENGINE" ] || fail "engine not built: $ENGINE"
cd "$T"
# the 2015 job file's shape (verbatim options, libaio, QD 8 here), small and short, next to the
# thread's published rows (the report matches them by job file name)
cp "$TOP/jobs/cfq-iops-mode-on-ssd-2015/published.csv" . || fail "published.csv"
cat >cloud-ssd-randread.fio <<'J'
[temp]
size=100G
time_based
ioengine=libaio
direct=1
rw=randread
blocksize=4k
group_reporting=1
filename=${TARGET}
runtime=10
iodepth=8
numjobs=2
J
cat >mixed.ini <<M
[matrix]
name       = mixed
jobs       = cloud-ssd-randread.fio
repeat     = 2
runtime    = 1
report     = 2015
baseline   = embedded-cfq On
image_size = 64M
engine     = $ENGINE
[set]
size = 16m
[axis.sched]
kernel-bfq   = kernel:bfq low_latency=0
embedded-cfq = embedded:cfq
[axis.idling]
On  = slice_idle=8
Off = slice_idle=0
M
out=$("$SB" run mixed.ini --db "$T/db.sqlite" --dry-run) || fail "dry-run: $out"
[ "$(echo "$out" | grep -c 'target: the kernel cells'"'"' device')" = 2 ] || fail "embedded cells not on the device: $out"
echo "$out" | grep -q '"iosched":{"low_latency":"0","slice_idle":"8"}' || fail "bfq tunables: $out"
echo "$out" | grep -q '"engine_opts":{"sched":"cfq","slice_idle":"0"}' || fail "cfq options: $out"
echo "$out" | grep -q '^    | backend=libaio$' || fail "the job's libaio is not the engine's backend"
"$SB" run mixed.ini --db "$T/db.sqlite" >run.log 2>&1
rc=$?
cat run.log
if [ $rc != 0 ] && grep -q "cannot set scheduler 'bfq'" run.log; then
	echo "SKIP: this kernel has no bfq"
	exit 77
fi
[ $rc = 0 ] || fail "run exited $rc"
grep -q 'kernel cells run on /dev/loop' run.log || fail "no loop device"
[ "$(q "SELECT count(*) FROM runs WHERE status = 'ok'")" = 8 ] || fail "8 ok runs expected"
[ "$(q "SELECT count(DISTINCT mode) FROM runs")" = 2 ] || fail "modes: $(q "SELECT DISTINCT mode FROM runs")"
# every cell on the same device; the embedded ones with the kernel scheduler none, kernel ones bfq
[ "$(q "SELECT count(DISTINCT target) FROM runs")" = 1 ] || fail "targets: $(q "SELECT DISTINCT target FROM runs")"
q "SELECT target FROM runs LIMIT 1" | grep -q '^/dev/loop' || fail "target not the loop device"
[ "$(q "SELECT count(*) FROM runs WHERE mode = 'embedded' AND json_extract(sysfs_state, '\$.queue.scheduler') LIKE '%[none]%'")" = 4 ] ||
	fail "embedded cells: kernel scheduler not none"
[ "$(q "SELECT count(*) FROM runs WHERE mode = 'kernel' AND json_extract(sysfs_state, '\$.queue.scheduler') LIKE '%[bfq]%'")" = 4 ] ||
	fail "kernel cells: not bfq"
[ "$(q "SELECT group_concat(DISTINCT json_extract(sysfs_state, '\$.iosched.slice_idle')) FROM runs WHERE mode = 'kernel' ORDER BY 1")" != "" ] ||
	fail "bfq slice_idle not recorded"
# the engine's statistics, parsed by the views
[ "$(q "SELECT count(*) FROM sched_stats_runs WHERE sched = 'cfq' AND dispatched > 0")" = 4 ] || fail "sched_stats_runs"
# CFQ's iops_mode() is slice_idle == 0 with hw_tag detected (more than CFQ_HW_QUEUE_MIN in the
# driver over 50 samples): two jobs at QD 8 detect it, so the Off cells charge by requests.
modes=$(q "SELECT json_extract(u.labels, '\$.idling') || ':' || json_extract(r.policy, '\$.hw_tag') || ':' || r.iops_mode
	FROM sched_stats_runs r JOIN runs u ON u.id = r.run_id WHERE r.sched = 'cfq' ORDER BY 1" | tr '\n' ' ')
echo "cfq cells idling:hw_tag:iops_mode: $modes"
[ "$modes" = "Off:1:1 Off:1:1 On:1:0 On:1:0 " ] || fail "iops_mode is not slice_idle=0 with hw_tag: $modes"
[ "$(q "SELECT count(*) FROM sched_stats_jobs")" -ge 8 ] || fail "sched_stats_jobs"
! losetup -a | grep -F "$T/" || fail "loop device left behind (others on this machine may have theirs)"
ls tmp/*.img 2>/dev/null && fail "loop image left behind"
# the comparison shows kernel and embedded configurations side by side
"$SB" report --db "$T/db.sqlite" -e mixed --compare --metrics iops,lat >cmp.txt 2>&1 || { cat cmp.txt; fail "report --compare"; }
cat cmp.txt
grep -q "compare: mixed (read), baseline 'sched=embedded-cfq idling=On'" cmp.txt || fail "baseline"
hdr=$(grep -E '^ +embedded-cfq On +' cmp.txt) || fail "no column header"
for c in "kernel-bfq On" "kernel-bfq Off" "embedded-cfq Off"; do
	echo "$hdr" | grep -q "$c" || fail "column $c missing: $hdr"
done
[ "$(grep -cE '^(Hmean +iops|Amean +lat) ' cmp.txt)" = 2 ] || fail "Hmean (iops) and Amean (lat) rows"
grep -E '^Hmean +iops ' cmp.txt | grep -Eq '\( *\+0\.00%\)( |\*|~)? +[0-9.]+ \( *[-+][0-9.]+%\)' || fail "percentages"
# the seed table: published rows with ours beside them, both kinds of cell
grep -q 'ours: kernel bfq, runtime 1s | embedded cfq, runtime 1s' cmp.txt || fail "2015 table title"
[ "$(grep -c '   ours (n=2' cmp.txt)" = 4 ] || fail "2015 rows"
# a second run skips everything
"$SB" run mixed.ini --db "$T/db.sqlite" >run2.log 2>&1 || { cat run2.log; fail "second run"; }
grep -q ' 0 ok, 0 failed, 8 done before' run2.log || fail "resume: $(tail -1 run2.log)"
# a second matrix sharing the kernel cells runs nothing, yet its report has their runs
sed -e 's/^name *=.*/name = mixed-bfq-only/' -e '/^embedded-cfq/d' -e 's/^baseline.*/baseline = On/' mixed.ini >bfq.ini
"$SB" run bfq.ini --db "$T/db.sqlite" >run3.log 2>&1 || { cat run3.log; fail "shared cells"; }
grep -q ' 0 ok, 0 failed, 4 done before' run3.log || fail "shared cells re-run: $(tail -1 run3.log)"
"$SB" report --db "$T/db.sqlite" --list | grep -Eq '^mixed-bfq-only +4 ok runs' || fail "shared cells not in the report"
echo PASS
