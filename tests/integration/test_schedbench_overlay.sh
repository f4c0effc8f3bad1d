#!/usr/bin/env bash
# Embedded cells on real seed job files: the overlay (the job's engine as backend=, cgroup= as
# sched_group=, overridden lines commented out, section.NAME.KEY and env.NAME tokens), a sparse
# scratch target for a device model (nothing laid out), and the engine's sched_stats parsed by the
# sched_stats_* views (group shares of the 2010 job, CFQ idling counters of the 2015 job).
. "$(dirname "$0")/schedbench_lib.sh"
ENGINE="$TOP/$BUILD/libschedengine.so"
case $BUILD in /*) ENGINE="$BUILD/libschedengine.so" ;; esac
[ -f "$ENGINE" ] || fail "engine not built: $ENGINE"
fio --enghelp="$ENGINE" 2>/dev/null | grep -q '^device_model' || { echo "SKIP: engine has no device_model"; exit 77; }
cd "$T"
J=$TOP/jobs
cat >o.ini <<M
[matrix]
name    = overlay
engine  = $ENGINE
runtime = 1
[set]
size = 16m
[axis.job]
bsr     = job:$J/cfq-group-idle-2010/bsr-two-groups.fio env.NR=2 engine.device_model=ssd engine.rotational=1
2015    = job:$J/cfq-iops-mode-on-ssd-2015/cloud-ssd-randread.fio engine.device_model=cloud-ssd section.temp.iodepth=4
[axis.idle]
On  = embedded:cfq slice_idle=8
Off = embedded:cfq slice_idle=0
M
"$SB" run o.ini --db "$T/db.sqlite" --dry-run >dry.txt || { cat dry.txt; fail "dry-run"; }
cell() { awk -v c="$1" '$0 ~ "^\\[[0-9]+/4\\] cell "c"  " {p=1; next} /^\[[0-9]+\/4\]/ {p=0} p' dry.txt; }
bsr=$(cell "job=bsr idle=On")
c15=$(cell "job=2015 idle=Off")
[ -n "$bsr" ] && [ -n "$c15" ] || fail "cells not found: $(cat dry.txt)"
echo "$bsr" | grep -q '"env":{"NR":"2"}' || fail "env not in the overlays"
echo "$bsr" | grep -q '| ; schedbench: translated: cgroup=test1$' || fail "cgroup not translated"
echo "$bsr" | grep -q '| sched_group=test2$' || fail "no sched_group"
echo "$bsr" | grep -q '| sched_weight=200$' || fail "no sched_weight"
echo "$bsr" | grep -q '| backend=psync$' || fail "no ioengine in the file: backend=psync expected"
echo "$bsr" | grep -q '| ; schedbench: overridden: size=512m$' || fail "size not commented out"
echo "$c15" | grep -q '| ; schedbench: replaced: ioengine=libaio$' || fail "ioengine not replaced"
echo "$c15" | grep -q '| backend=libaio$' || fail "libaio not kept as backend"
echo "$c15" | grep -q '| ; schedbench: overridden: size=100G$' || fail "size=100G not commented out"
echo "$c15" | grep -q '| ; schedbench: overridden: runtime=10$' || fail "runtime=10 not commented out"
echo "$c15" | grep -q '| ; schedbench: overridden: iodepth=64$' || fail "section override: file line kept"
echo "$c15" | grep -q '| iodepth=4$' || fail "section override missing"
[ "$(echo "$c15" | grep -c '^    | [a-z_]*=' )" -gt 5 ] || fail "generated job looks empty"
# a section the job file does not have
sed 's/section.temp.iodepth/section.nosuch.iodepth/' o.ini >bad.ini
"$SB" run bad.ini --db "$T/db.sqlite" --dry-run >bad.txt 2>&1 && fail "unknown section accepted"
grep -q 'has no section \[nosuch\]' bad.txt || fail "message: $(cat bad.txt)"
# env.TARGET is schedbench's
printf '[matrix]\njobs = %s\n[axis.a]\nx = env.TARGET=/dev/sda\n' "$J/cfq-iops-mode-on-ssd-2015/cloud-ssd-randread.fio" >bad2.ini
"$SB" run bad2.ini --db "$T/db.sqlite" --dry-run >bad2.txt 2>&1 && fail "env.TARGET accepted"
grep -q 'bad2.ini:4: env.TARGET is set by schedbench' bad2.txt || fail "message: $(cat bad2.txt)"

# real runs: sparse target (no layout: the 2010 job reads from offset 4g), stats in the views
"$SB" run o.ini --db "$T/db.sqlite" >run.log 2>&1 || { cat run.log; fail "run"; }
cat run.log
[ "$(q "SELECT count(*) FROM runs WHERE status = 'ok'")" = 4 ] || fail "4 ok runs expected"
[ "$(du -sk tmp 2>/dev/null | cut -f1)" -lt 1024 ] 2>/dev/null || [ ! -e tmp ] || fail "scratch space left or laid out: $(du -sh tmp)"
shares=$(q "SELECT sched_group || ':' || weight || ':' || round(share, 2) FROM sched_stats_groups g JOIN runs r ON r.id = g.run_id
            WHERE r.cell_name = 'job=bsr idle=On' AND g.bytes > 0 ORDER BY sched_group")
echo "group shares: $shares"
[ "$(echo "$shares" | wc -l)" = 2 ] || fail "two groups expected: $shares"
echo "$shares" | grep -q '^test1:100:' || fail "test1 weight"
echo "$shares" | grep -q '^test2:200:' || fail "test2 weight"
[ "$(q "SELECT count(*) FROM sched_stats_jobs j JOIN runs r ON r.id = j.run_id WHERE r.cell_name = 'job=bsr idle=On'")" = 4 ] ||
	fail "NR=2 readers x 2 groups = 4 engine jobs"
[ "$(q "SELECT count(*) FROM sched_stats_runs WHERE sched = 'cfq' AND completed > 0 AND inflight_mean > 0")" = 4 ] || fail "sched_stats_runs"
[ "$(q "SELECT count(*) FROM sched_stats_counters WHERE section = 'tunables' AND name = 'slice_idle'")" = 4 ] || fail "counters: tunables"
[ "$(q "SELECT group_concat(DISTINCT value) FROM sched_stats_counters c JOIN runs r ON r.id = c.run_id
        WHERE r.cell_name LIKE '% idle=Off' AND section = 'tunables' AND name = 'slice_idle'")" = 0 ] || fail "slice_idle=0 not applied"
# every cfq run stores its policy counters and its device model's (a missing section fails)
[ "$(q "SELECT count(DISTINCT run_id) FROM sched_stats_counters WHERE section = 'policy'")" = 4 ] ||
	fail "policy counters in $(q "SELECT count(DISTINCT run_id) FROM sched_stats_counters WHERE section = 'policy'") of 4 runs"
[ "$(q "SELECT count(*) FROM sched_stats_runs WHERE idle_timer_armed IS NOT NULL")" = 4 ] || fail "idle_timer_armed"
# slice_idle=8 arms CFQ's idle timer for queues; slice_idle=0 arms it only for group idling
# (group_idle stays 8, cfq_arm_slice_timer()), counted apart as group_idle_armed
echo "idle timers (cell: armed, of which group idle): $(q "SELECT r.cell_name || ': ' || s.idle_timer_armed || ', ' || s.group_idle_armed
	FROM sched_stats_runs s JOIN runs r ON r.id = s.run_id ORDER BY 1" | tr '\n' ';')"
[ "$(q "SELECT count(*) FROM sched_stats_runs s JOIN runs r ON r.id = s.run_id WHERE r.cell_name LIKE '% idle=On' AND s.idle_timer_armed > s.group_idle_armed")" = 2 ] ||
	fail "idle=On cells armed no queue idle timer"
[ "$(q "SELECT count(*) FROM sched_stats_runs s JOIN runs r ON r.id = s.run_id WHERE r.cell_name LIKE '% idle=Off' AND s.idle_timer_armed = s.group_idle_armed")" = 2 ] ||
	fail "idle=Off cells armed a queue idle timer"
[ "$(q "SELECT count(*) FROM sched_stats_counters WHERE section = 'device_model' AND name = 'busy_ns' AND value > 0")" = 4 ] ||
	fail "device_model busy_ns"
# a run killed mid-write leaves invalid JSON: the views give NULLs, not an error
q "UPDATE runs SET sched_stats = '{\"jobs\": [' WHERE id = (SELECT min(id) FROM runs)"
q "SELECT count(*) FROM sched_stats_runs; SELECT count(*) FROM sched_stats_jobs; SELECT count(*) FROM sched_stats_counters" >/dev/null ||
	fail "views fail on invalid sched_stats"
# the report's engine section
"$SB" report --db "$T/db.sqlite" -e overlay --format generic >rep.txt 2>&1 || { cat rep.txt; fail "report"; }
grep -q '^engine sched_stats' rep.txt || fail "no engine section: $(cat rep.txt)"
grep -q 'test1 (weight 100)' rep.txt || fail "no group shares in the report"
echo PASS
