#!/usr/bin/env bash
# Issue 12, "Why" 9 (last part) and "What" 7: ingest validates what it stores. {"jobs":[]}, a string
# where fio writes a number, JSON that is not fio's, a failed or empty job: each is refused with a
# line naming the file and the field, exit 2, and nothing is written to the database.
. "$(dirname "$0")/schedbench_lib.sh"
cd "$T"
printf '[r]\nioengine=null\nsize=8m\nrw=randread\nbs=4k\n' >n.fio
fio --output-format=json+ n.fio >good.json 2>&1 || fail "fio"
"$SB" ingest good.json --db "$T/db.sqlite" --experiment ok --label sched=none >/dev/null || fail "a good fio JSON refused"
before=$(q "SELECT count(*) FROM runs")
sum0=$(q "SELECT count(*) FROM results")
bad() { # name expected-text file
	local out rc
	out=$("$SB" ingest "$3" --db "$T/db.sqlite" --experiment bad 2>&1)
	rc=$?
	[ $rc = 2 ] || fail "$1: exit $rc, expected 2: $out"
	echo "$out" | grep -q -- "$2" || fail "$1: expected '$2' in: $out"
	[ "$(echo "$out" | wc -l)" = 1 ] || fail "$1: more than one line: $out"
	[ "$(q "SELECT count(*) FROM runs")" = "$before" ] || fail "$1: a run was stored"
	echo "ok: $out"
}
echo '{"jobs":[]}' >empty.json
bad "no jobs" 'not fio output: no "fio version"' empty.json
echo '{"fio version":"fio-3.33","jobs":[]}' >empty2.json
bad "empty jobs" '"jobs" is empty' empty2.json
python3 - <<'PY' || fail "making the bad files"
import json
d = json.load(open("good.json"))
j = d["jobs"][0]
def w(name, f):
    x = json.loads(json.dumps(d)); f(x); json.dump(x, open(name, "w"))
w("str.json", lambda x: x["jobs"][0]["read"].__setitem__("iops", "lots"))
w("noname.json", lambda x: x["jobs"][0].pop("jobname"))
w("err.json", lambda x: x["jobs"][0].__setitem__("error", 5))
w("noio.json", lambda x: [x["jobs"][0][d].__setitem__("total_ios", 0) for d in ("read", "write", "trim", "sync")])
w("dir.json", lambda x: x["jobs"][0].__setitem__("read", [1, 2]))
w("lat.json", lambda x: x["jobs"][0]["read"]["clat_ns"].__setitem__("mean", None))
PY
bad "iops a string" 'jobs\[0\].read.iops is text (lots), not number' str.json
bad "no job name" 'jobs\[0\].jobname is missing, not text' noname.json
bad "job error" "job r reported error 5: a failed run" err.json
bad "no I/O" 'no job did any I/O' noio.json
bad "direction not an object" 'jobs\[0\].read is array, not object' dir.json
bad "null latency" 'jobs\[0\].read.clat_ns.mean is null, not number' lat.json
echo 'fio: no JSON at all' >text.out
bad "no JSON" 'no JSON object' text.out
printf '{ "fio version" : "fio-3.33", "jobs" : [ {' >cut.json
bad "truncated" 'no JSON object\|not valid JSON' cut.json
# a database in a directory that does not exist: refused, the directory is not made
out=$("$SB" ingest good.json --db "$T/no/such/x.db" 2>&1)
rc=$?
[ $rc = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ] || fail "--db in a missing directory: exit $rc: $out"
echo "$out" | grep -q -- "--db $T/no/such/x.db: directory $T/no/such: No such" || fail "--db in a missing directory: $out"
[ ! -e "$T/no" ] || fail "ingest made the missing directories of --db"
echo "ok: $out"
[ "$(q "SELECT count(*) FROM results")" = "$sum0" ] || fail "results rows were added"
[ "$(q "SELECT count(*) FROM runs WHERE experiment = 'bad'")" = 0 ] || fail "a bad ingest left a row"
echo PASS
