#!/usr/bin/env bash
# schedbench matrix parsing: expansion of good files, FILE:LINE errors for bad matrix and job files,
# and the embedded overlay (ioengine=external first, in [global] and every job section).
. "$(dirname "$0")/schedbench_lib.sh"
cd "$T"
null_job null.fio
cat >good.ini <<'M'
# a comment
[matrix]
name = good        ; inline comment
jobs = null.fio
repeat = 3
runtime = 1

[set]
job.size = 8m          ; an inline comment after a blank line (regression)

[axis.numjobs]
values = 1 | 2
	| 4

[axis.sched]
cfq-idle = embedded:cfq slice_idle=8 device_model=ssd
cfq-iops = embedded:cfq slice_idle=0
deadline = embedded:deadline engine.fifo_batch=16
M
out=$("$SB" run good.ini --db "$T/db.sqlite" --dry-run) || fail "dry-run of a good matrix failed: $out"
echo "$out" | head -n 3
echo "$out" | grep -q '^good.ini: 9 cells x 3 repetitions = 27 runs' || fail "expected 9 cells x 3 reps"
[ "$(echo "$out" | grep -c '^\[[0-9]*/9\] cell')" = 9 ] || fail "expected 9 cell lines"
echo "$out" | grep -q 'cell numjobs=4 sched=deadline' || fail "continuation line / labels"
# bare slice_idle= became an engine option, numjobs a job option
echo "$out" | grep -q '"engine_opts":{"device_model":"ssd","sched":"cfq","slice_idle":"8"},"job_opts":{"numjobs":"1","runtime":"1","size":"8m","time_based":"1"}' \
	|| fail "overlay classification wrong"
# every section gets ioengine=external before the engine options
first=$(echo "$out" | awk '/^\[1\/9\]/{p=1} /^\[2\/9\]/{p=0} p')
[ "$(echo "$first" | grep -c 'ioengine=external:')" = 3 ] || fail "ioengine overlay not in all 3 sections"
echo "$first" | grep -q 'replaced: ioengine=null' || fail "original ioengine not commented out"
echo "$first" | awk '/overlay \(/{s=1; e=0} s && /ioengine=external/{e=1} s && /^    \| sched=/{ if (!e) bad=1 } END{exit bad}' \
	|| fail "an engine option precedes ioengine= in a section"
# hashes are stable and distinct
h1=$("$SB" run good.ini --db x --dry-run | grep -o 'hash=[0-9a-f]*' | sort)
h2=$("$SB" run good.ini --db x --dry-run | grep -o 'hash=[0-9a-f]*' | sort)
[ "$h1" = "$h2" ] || fail "hashes not stable"
[ "$(echo "$h1" | sort -u | wc -l)" = 9 ] || fail "hashes not distinct"

# bad matrices: each must fail with FILE:LINE: message
check_bad() { # name expected-line expected-text
	local out rc
	out=$("$SB" run "$1" --db "$T/db.sqlite" --dry-run 2>&1)
	rc=$?
	[ $rc -ne 0 ] || fail "$1 accepted"
	echo "$out" | grep -q "^$1:$2: .*$3" || fail "$1: expected '$1:$2: ...$3', got: $out"
	echo "ok: $out"
}
printf '[matrix]\njobs = null.fio\n[axis.x\nvalues = 1\n' >bad1.ini
check_bad bad1.ini 3 "malformed section header"
printf '[matrix]\njobs = null.fio\nrepeats = 2\n' >bad2.ini
check_bad bad2.ini 3 "unknown key 'repeats'"
printf 'jobs = null.fio\n' >bad3.ini
check_bad bad3.ini 1 "outside of a section"
printf '[matrix]\njobs = null.fio\n\n[axis.s]\nA = embedded:cfq\nB = kernel:bfq embedded:cfq\n' >bad4.ini
check_bad bad4.ini 6 "conflicts"
printf '[matrix]\njobs = null.fio\n[axis.t]\nA = slice_idle=8\n' >bad5.ini
check_bad bad5.ini 4 "not a fio option"
printf '[matrix]\njobs = null.fio\nrepeat = many\n' >bad6.ini
check_bad bad6.ini 3 "repeat must be"
printf '[matrix]\njobs = missing.fio\n' >bad7.ini
check_bad bad7.ini 2 "not found"
printf '[matrix]\njobs = null.fio\n[axis.a]\nvalues = 1 | 1\n' >bad8.ini
check_bad bad8.ini 4 "duplicate alternative '1'"
printf '[matrix]\njobs = null.fio\n[axis.a]\nx = foo:bar\n' >bad9.ini
check_bad bad9.ini 4 "unknown token"
printf '[matrix]\njobs = null.fio\n[axis.a]\n' >bad10.ini
check_bad bad10.ini 3 "no alternatives"
# a bad job file: its own FILE:LINE
printf '; job\nrw=read\n[j]\nsize=1m\n' >badjob.fio
printf '[matrix]\njobs = badjob.fio\n' >bad11.ini
out=$("$SB" run bad11.ini --db "$T/db.sqlite" --dry-run 2>&1) && fail "bad job accepted"
echo "$out" | grep -q "badjob.fio:2: option 'rw=read' outside of a \[section\]" || fail "job FILE:LINE: $out"
printf '[j\nsize=1m\n' >badjob2.fio
printf '[matrix]\njobs = badjob2.fio\n' >bad12.ini
out=$("$SB" run bad12.ini --db "$T/db.sqlite" --dry-run 2>&1) && fail "bad job 2 accepted"
echo "$out" | grep -q "badjob2.fio:1: malformed section header" || fail "job FILE:LINE 2: $out"
[ ! -e "$T/db.sqlite" ] || fail "dry-run created the database"
echo PASS
