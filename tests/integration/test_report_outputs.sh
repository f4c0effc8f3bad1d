#!/usr/bin/env bash
# Issue 12, "Why" 1: the README's `schedbench report --html results/r/index.html --csv
# results/r/summary.csv` works in a directory where results/r does not exist yet (it used to end in a
# Python traceback: the CSV was written before the directory existed); an output that cannot be
# written is one line and exit 2.
. "$(dirname "$0")/schedbench_lib.sh"
cd "$T"
printf '[global]\nioengine=null\nsize=16m\ntime_based\nruntime=200ms\n[j]\nrw=read\n' >n.fio
printf '[matrix]\nname = out\njobs = n.fio\nrepeat = 2\n[axis.bs]\nvalues = 4k | 64k\n' >m.ini
"$SB" run m.ini --db results/schedengine.db >run.log 2>&1 || { cat run.log; fail "run"; }
[ ! -e results/r ] || fail "results/r exists before the report"
"$SB" report --db results/schedengine.db --html results/r/index.html --csv results/r/summary.csv >rep.txt 2>&1 ||
	{ cat rep.txt; fail "the README's report command"; }
grep -q Traceback rep.txt && fail "traceback: $(cat rep.txt)"
[ -s results/r/index.html ] || fail "no HTML"
head -n 1 results/r/summary.csv | grep -q '^experiment,configuration,definition,x_axis,x,ddir,n,iops_hmean' || fail "CSV header: $(head -n 1 results/r/summary.csv)"
[ "$(grep -c '^out,' results/r/summary.csv)" = 2 ] || fail "CSV rows: $(cat results/r/summary.csv)"
for img in $(grep -o 'src="[^"]*"' results/r/index.html | sed 's/src="//; s/"$//'); do
	[ -s "results/r/$img" ] || fail "the page shows $img, which is not there"
done
[ "$(grep -c '<img ' results/r/index.html)" -ge 2 ] || fail "no plots in the page"
# the database by default is results/schedengine.db under the current directory
"$SB" status | grep -q '^out ' || fail "status does not find results/schedengine.db by default"
# deeper, CSV alone, and plots alone
"$SB" report --csv deep/er/s.csv >/dev/null 2>&1 || fail "--csv into deep/er"
[ -s deep/er/s.csv ] || fail "deep/er/s.csv"
"$SB" report --plots p/q >/dev/null 2>&1 || fail "--plots into p/q"
ls p/q/*.png >/dev/null 2>&1 || fail "no PNG in p/q"
# an output that cannot be written: one line, exit 2
echo x >afile
out=$("$SB" report --html afile/index.html 2>&1)
rc=$?
[ $rc = 2 ] || fail "--html under a regular file: exit $rc"
echo "$out" | grep -q Traceback && fail "traceback: $out"
[ "$(echo "$out" | wc -l)" = 1 ] || fail "more than one line: $out"
echo "ok: $out"
# the sqlite3 examples of the sched_stats views in docs/schedbench.md (after `make demo`: the 2015 matrix in
# virtual time) run against the schema and return rows (one asked sched_stats_summary for
# iops_mode, a column of sched_stats_runs only: "no such column")
"$SB" run "$TOP/jobs/cfq-iops-mode-on-ssd-2015/matrix.ini" --db results/schedengine.db --clock virtual --runtime 1 \
	>demo.log 2>&1 || { tail -n 20 demo.log; fail "the 2015 matrix in virtual time"; }
"$PY" - "$TOP/docs/schedbench.md" <<'PY' || fail "the sqlite3 examples of docs/schedbench.md"
import re, subprocess, sys
text = open(sys.argv[1]).read()
block = re.search(r"`sched_stats_summary`.*?For example.*?```sh\n(.*?)```", text, re.S)
assert block, "no sqlite3 example after the views in docs/schedbench.md"
cmds = re.split(r"\n(?=sqlite3 )", block.group(1).strip())
assert cmds and all(c.startswith("sqlite3 results/schedengine.db ") for c in cmds), cmds
for c in cmds:
    p = subprocess.run(["bash", "-c", c], capture_output=True, text=True)
    rows = p.stdout.splitlines()
    assert p.returncode == 0 and not p.stderr, f"{c}\n-> exit {p.returncode}: {p.stderr}"
    assert len(rows) >= 4, f"{c}\n-> {len(rows)} rows: {p.stdout}"
    print(f"ok: {' '.join(c.split())[:90]}... -> {len(rows)} rows, e.g. {rows[0]}")
PY
echo PASS
