#!/usr/bin/env bash
# Ingest of real fio json+ output with junk before and after the JSON; a failing fio run is stored
# as failed with its rc and stderr tail, the run goes on, and schedbench exits non-zero at the end.
. "$(dirname "$0")/schedbench_lib.sh"
cd "$T"
null_job null.fio
sed -i 's/^runtime=1$/runtime=300ms/' null.fio
printf '[fsync]\nioengine=psync\nrw=write\nbs=4k\nsize=256k\nfsync=4\nfilename=%s/fsync.dat\n' "$T" >fsync.fio
{ echo "fio: this is a warning printed before the JSON {not json}"; fio --output-format=json+ null.fio
  echo "trailing junk }"; } >null.out 2>&1
{ echo "junk"; fio --output-format=json+ fsync.fio; } >fsync.out 2>&1
"$SB" ingest null.out --db "$T/db.sqlite" --experiment ing --label sched=none || fail "ingest null"
"$SB" ingest fsync.out --db "$T/db.sqlite" --experiment ing --label sched=fsync || fail "ingest fsync"
[ "$(q "SELECT count(*) FROM runs WHERE experiment = 'ing' AND status = 'ok'")" = 2 ] || fail "runs"
[ "$(q "SELECT count(*) FROM results WHERE jobname IN ('test1', 'test2') AND ddir = 'read'")" = 2 ] || fail "null results"
[ "$(q "SELECT count(*) FROM results WHERE ddir = 'read' AND iops > 0 AND bw_kib > 0 AND clat_p50_ns > 0 AND clat_p99_ns >= clat_p50_ns AND clat_p999_ns >= clat_p99_ns AND clat_max_ns >= clat_p999_ns AND lat_mean_ns > 0 AND lat_stddev_ns IS NOT NULL")" = 2 ] \
	|| fail "extracted numbers: $(q 'SELECT * FROM results')"
[ "$(q "SELECT count(*) FROM results WHERE jobname = 'fsync' AND ddir = 'sync' AND total_ios > 0 AND lat_mean_ns > 0 AND clat_p99_ns > 0")" = 1 ] \
	|| fail "sync results: $(q "SELECT * FROM results WHERE jobname = 'fsync'")"
[ "$(q "SELECT count(*) FROM results WHERE jobname = 'fsync' AND ddir = 'write' AND total_ios = 64")" = 1 ] || fail "fsync writes"
# the stored JSON is the text between the first '{' and the last '}'
q "SELECT substr(json, 1, 1) || substr(json, -1, 1) FROM fio_output" | sort -u | grep -qx '{}' || fail "strip"
[ "$(q "SELECT count(*) FROM fio_output WHERE json_valid(json)")" = 2 ] || fail "stored JSON invalid"
# ingesting the same file again replaces, not duplicates
"$SB" ingest null.out --db "$T/db.sqlite" --experiment ing --label sched=none >/dev/null || fail "re-ingest"
[ "$(q "SELECT count(*) FROM runs")" = 2 ] || fail "re-ingest duplicated"
echo 'no json here' >bad.out
"$SB" ingest bad.out --db "$T/db.sqlite" 2>err.txt && fail "junk accepted"
grep -q 'no JSON object' err.txt || fail "junk message: $(cat err.txt)"

# a failing fio: a wrapper that fails for one cell (bs=8k) and works for the others
cat >fakefio <<'F'
#!/bin/sh
# fails when it runs the cell (its job file passes fio --parse-only)
for a; do job=$a; [ "$a" = --parse-only ] && exec fio "$@"; done
if [ -f "$job" ] && grep -q -e '^bs=8k' -- "$job"; then
	echo "fio: something went badly wrong" >&2
	echo "fio: second line of the error" >&2
	exit 3
fi
exec fio "$@"
F
chmod +x fakefio
cat >m.ini <<'M'
[matrix]
name = failing
jobs = null.fio
[axis.bs]
values = 4k | 8k | 16k
M
SCHEDBENCH_FIO="$T/fakefio" "$SB" run m.ini --db "$T/db.sqlite" >run.log 2>&1
rc=$?
cat run.log
[ $rc = 1 ] || fail "exit code $rc, expected 1"
[ "$(q "SELECT count(*) FROM runs WHERE experiment = 'failing' AND status = 'ok'")" = 2 ] || fail "the run did not go on"
[ "$(q "SELECT rc FROM runs WHERE experiment = 'failing' AND status = 'failed'")" = 3 ] || fail "rc not stored"
q "SELECT stderr_tail FROM runs WHERE status = 'failed'" | grep -q "second line of the error" || fail "stderr tail"
grep -q 'failed (rc 3)' run.log || fail "failure not shown"
# fio missing: a clear message
SCHEDBENCH_FIO=/nonexistent/fio "$SB" run m.ini --db "$T/db.sqlite" 2>err.txt && fail "missing fio accepted"
grep -q 'fio not found' err.txt || fail "missing fio message: $(cat err.txt)"
# embedded cells with a missing engine: a clear message
printf '[matrix]\njobs = null.fio\n[axis.s]\nvalues = embedded:cfq\n' >e.ini
"$SB" run e.ini --db "$T/db.sqlite" --engine "$T/none.so" 2>err.txt && fail "missing engine accepted"
grep -q "engine $T/none.so not found" err.txt || fail "missing engine message: $(cat err.txt)"
echo PASS
