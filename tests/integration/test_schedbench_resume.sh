#!/usr/bin/env bash
# schedbench resume: kill a run midway (SIGKILL, then SIGTERM), re-run, no duplicates, all ok;
# a re-run skips done cells; --force re-runs them, and an interrupted --force run loses no ok run;
# hashes key (cell, repetition); status notes ok runs the report leaves out.
. "$(dirname "$0")/schedbench_lib.sh"
cd "$T"
null_job null.fio
cat >m.ini <<'M'
[matrix]
name = resume
jobs = null.fio
repeat = 2
runtime = 1
[axis.numjobs]
values = 1 | 2 | 3
M
total=6
"$SB" run m.ini --db "$T/db.sqlite" >run1.log 2>&1 &
pid=$!
for _ in $(seq 1 100); do # wait for 2 finished runs
	n=$(q "SELECT count(*) FROM runs WHERE status = 'ok'" 2>/dev/null || echo 0)
	[ "${n:-0}" -ge 2 ] && break
	sleep 0.1
done
kill -KILL $pid 2>/dev/null
wait $pid 2>/dev/null
n1=$(q "SELECT count(*) FROM runs WHERE status = 'ok'")
echo "after SIGKILL: $n1 ok; rows: $(q "SELECT status || ':' || count(*) FROM runs GROUP BY status" | tr '\n' ' ')"
[ "$n1" -ge 2 ] && [ "$n1" -lt $total ] || fail "expected a partial run, got $n1 ok"
# SIGTERM on the second attempt: the cell in flight is stored as interrupted, the runner exits 130
"$SB" run m.ini --db "$T/db.sqlite" >run2.log 2>&1 &
pid=$!
# SIGTERM once this runner has a cell in flight (its own 'running' row: owner host:pid:start)
mine="owner LIKE '%:$pid:%' AND status = 'running'"
for _ in $(seq 1 300); do
	[ "$(q "SELECT count(*) FROM runs WHERE $mine" 2>/dev/null || echo 0)" -ge 1 ] && break
	sleep 0.05
done
[ "$(q "SELECT count(*) FROM runs WHERE $mine")" -ge 1 ] || { cat run2.log; fail "the second runner started no cell within 15 s"; }
inflight=$(q "SELECT id FROM runs WHERE $mine")
kill -TERM $pid
wait $pid
rc=$?
cat run2.log
[ $rc = 130 ] || fail "SIGTERM with a cell in flight: rc $rc, want 130"
[ "$(q "SELECT status FROM runs WHERE id = $inflight")" = interrupted ] ||
	fail "the cell in flight (run $inflight) is $(q "SELECT status FROM runs WHERE id = $inflight"), not interrupted"
grep -q 'interrupted' run2.log || fail "the runner did not say it was interrupted"
"$SB" run m.ini --db "$T/db.sqlite" >run3.log 2>&1 || { cat run3.log; fail "resume run failed"; }
cat run3.log
grep -q 'done before, skipped' run3.log || fail "nothing was skipped on resume"
[ "$(q "SELECT count(*) FROM runs")" = $total ] || fail "expected $total rows, got $(q 'SELECT count(*) FROM runs')"
[ "$(q "SELECT count(*) FROM runs WHERE status = 'ok'")" = $total ] || fail "not all ok"
[ "$(q "SELECT count(*) FROM (SELECT cell_hash, repetition FROM runs GROUP BY 1, 2 HAVING count(*) > 1)")" = 0 ] \
	|| fail "duplicates"
[ "$(q "SELECT count(DISTINCT cell_hash) FROM runs")" = 3 ] || fail "expected 3 cells"
[ "$(q "SELECT count(*) FROM cell_summary WHERE n = 2")" = 3 ] || fail "cell_summary wants n=2 for 3 cells"
# one results row per job section (test1, test2) x numjobs clones, in every run
bad=$(q "SELECT r.cell_name || ' rep ' || r.repetition || ': ' || count(x.run_id) FROM runs r LEFT JOIN results x ON x.run_id = r.id
	GROUP BY r.id HAVING json_extract(r.labels, '\$.numjobs') IS NULL OR count(x.run_id) != 2 * json_extract(r.labels, '\$.numjobs')")
[ -z "$bad" ] || fail "results rows per run, want 2 x numjobs: $bad ($(q "SELECT labels FROM runs LIMIT 1"))"
[ "$(q "SELECT sum(jobs) FROM run_totals")" = $((2 * (1 + 2 + 3) * 2)) ] || fail "results rows: $(q 'SELECT sum(jobs) FROM run_totals')"
# nothing left to do now
"$SB" run m.ini --db "$T/db.sqlite" | tail -n1 | grep -q "0 ok, 0 failed, $total done before" || fail "re-run did work"
# --force re-runs everything, still no duplicates
ids=$(q "SELECT group_concat(id) FROM runs")
"$SB" run m.ini --db "$T/db.sqlite" --force --repeat 1 | tail -n1 | grep -q "3 ok" || fail "--force"
[ "$(q "SELECT count(*) FROM runs")" = $total ] || fail "--force duplicated rows"
[ "$(q "SELECT group_concat(id) FROM runs")" = "$ids" ] || fail "--force changed run ids"
# a finished run leaves no scratch directory beside the database
[ -e "$T/tmp" ] && fail "an empty tmp/ left beside the database: $(ls -A "$T/tmp")"
# a --force re-run interrupted by SIGINT: the stored ok run stays ok with its results, the run is
# counted as interrupted (not failed) and its work directory goes (a 3 s cell of its own: the
# SIGINT lands well inside it)
printf '[matrix]\nname = forced\njobs = null.fio\nruntime = 3\n' >f.ini
"$SB" run f.ini --db "$T/db.sqlite" >f1.log 2>&1 || { cat f1.log; fail "forced: first run"; }
okrow=$(q "SELECT id || ' ' || status || ' ' || (SELECT count(*) FROM results WHERE run_id = runs.id) FROM runs WHERE experiment = 'forced'")
"$SB" run f.ini --db "$T/db.sqlite" --force >force.log 2>&1 &
pid=$!
for _ in $(seq 1 100); do # fio of the cell started
	ls tmp/*-r1-*/fio.stderr >/dev/null 2>&1 && break
	sleep 0.05
done
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
cat force.log
[ $rc = 130 ] || fail "SIGINT of a --force run: rc $rc, want 130"
grep -q '^      interrupted (rc [0-9]*), not stored: the stored ok run stays$' force.log ||
	fail "the interrupted --force run does not say the stored ok run stays"
tail -n2 force.log | grep -q ': 0 ok, 0 failed, 1 interrupted, ' || fail "summary: $(tail -n2 force.log | head -n1)"
[ "$(q "SELECT id || ' ' || status || ' ' || (SELECT count(*) FROM results WHERE run_id = runs.id) FROM runs WHERE experiment = 'forced'")" = "$okrow" ] ||
	fail "an interrupted --force run changed the stored ok run: $okrow -> $(q "SELECT id || ' ' || status FROM runs WHERE experiment = 'forced'")"
[ -z "$(ls tmp 2>/dev/null)" ] || fail "the interrupted run's work directory was kept: $(ls tmp)"
# ok runs of cells the matrix no longer expands to (another --runtime) are not in the report:
# status and run say so, naming what differs
"$SB" run m.ini --db "$T/db.sqlite" --runtime 2 --repeat 1 >rt.log 2>&1 &
pid=$!
for _ in $(seq 1 100); do
	ls tmp/*-r1-*/fio.stderr >/dev/null 2>&1 && break
	sleep 0.05
done
kill -INT $pid
wait $pid
note="note: resume: $total ok runs of 3 other cells not in its report, which shows the 3 cells of the matrix's last run (0 ok runs so far): cell [^ ]* differs in job_opts.runtime 1, now 2"
grep -q "^$note\$" rt.log || { cat rt.log; fail "run: no note of the other cells' ok runs"; }
"$SB" status --db "$T/db.sqlite" >st.txt
cat st.txt
grep -q "^$note\$" st.txt || fail "status: no note of the ok runs the report leaves out"
# the same --runtime as the ok runs: no note
"$SB" run m.ini --db "$T/db.sqlite" >same.log 2>&1 || { cat same.log; fail "run with the stored runtime"; }
"$SB" status --db "$T/db.sqlite" | grep -q '^note:' && fail "status notes other cells when none are left out"
# the schema is versioned and the journal is WAL
[ "$(q "PRAGMA user_version")" -ge 1 ] || fail "user_version"
[ "$(q "PRAGMA journal_mode")" = wal ] || fail "not WAL"
[ -z "$(ls tmp 2>/dev/null)" ] || fail "work directories left: $(ls tmp)"
echo PASS
