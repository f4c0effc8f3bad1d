#!/usr/bin/env bash
# Two schedbench runners on one database at once: every (cell, repetition) is stored exactly once.
. "$(dirname "$0")/schedbench_lib.sh"
cd "$T"
null_job null.fio
sed -i 's/^runtime=1$/runtime=300ms/' null.fio
cat >m.ini <<'M'
[matrix]
name = concurrent
jobs = null.fio
repeat = 3
[axis.bs]
values = 4k | 8k | 16k | 64k
M
total=12
"$SB" run m.ini --db "$T/db.sqlite" >a.log 2>&1 &
a=$!
"$SB" run m.ini --db "$T/db.sqlite" >b.log 2>&1 &
b=$!
wait $a; ra=$?
wait $b; rb=$?
tail -n1 a.log b.log
[ $ra = 0 ] && [ $rb = 0 ] || { cat a.log b.log; fail "runner failed ($ra, $rb)"; }
[ "$(q "SELECT count(*) FROM runs")" = $total ] || fail "rows: $(q 'SELECT count(*) FROM runs')"
[ "$(q "SELECT count(*) FROM runs WHERE status = 'ok'")" = $total ] || fail "not all ok"
oka=$(tail -n1 a.log | sed -n 's/.*: \([0-9]*\) ok.*/\1/p')
okb=$(tail -n1 b.log | sed -n 's/.*: \([0-9]*\) ok.*/\1/p')
echo "runner a ran $oka, runner b ran $okb"
[ $((oka + okb)) = $total ] || fail "runs were duplicated or lost: $oka + $okb != $total"
[ "$(q "SELECT count(*) FROM fio_output")" = $total ] || fail "fio_output rows"
[ "$(q "SELECT count(DISTINCT run_id) FROM results")" = $total ] || fail "results rows"
echo PASS
