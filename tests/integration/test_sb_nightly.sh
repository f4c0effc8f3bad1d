#!/usr/bin/env bash
# Nightly use: `schedbench run MATRIX --batch NAME` keeps every night's repetitions (a batch run
# again resumes; a new batch never overwrites an older one), and `schedbench report --nightly
# --fail-above PCT` compares the latest batch with the previous one (or --against BATCH): exit 1
# on a significant regression, 3 when it cannot decide, 0 otherwise. Virtual time (the simulator)
# keeps it fast; a slower disk model in the second night is the regression.
. "$(dirname "$0")/schedbench_lib.sh"
SIM="$TOP/$BUILD/schedsim"
case $BUILD in /*) SIM="$BUILD/schedsim" ;; esac
[ -x "$SIM" ] || { echo "SKIP: $SIM not built"; exit 77; }
cd "$T"
matrix() { # RPM
	cat >n.ini <<EOF
[matrix]
name    = sb-nightly
jobs    = $TOP/jobs/crosscheck-none/read.fio
repeat  = 3
runtime = 2
clock   = virtual
[set]
engine.device_model = hdd
engine.hdd_rpm = $1
size = 8g
[axis.sched]
none     = embedded:none
deadline = embedded:deadline
EOF
}
nightly() { "$SB" report --db "$T/db.sqlite" -e sb-nightly --nightly "$@"; }
matrix 7200
"$SB" run n.ini --db "$T/db.sqlite" --batch night1 >r1.log 2>&1 || { cat r1.log; fail "night1"; }
grep -q "batch night1: repetitions 1..3" r1.log || fail "night1's repetitions: $(grep batch r1.log)"
[ "$(q "SELECT count(*) FROM runs WHERE batch = 'night1' AND status = 'ok'")" = 6 ] || fail "night1 runs"
# the same batch again: resumed, nothing run
"$SB" run n.ini --db "$T/db.sqlite" --batch night1 >r1b.log 2>&1 || fail "night1 again"
grep -q "0 ok, 0 failed, 6 done before" r1b.log || fail "a batch run again must resume: $(tail -n1 r1b.log)"
# one batch: nothing to compare it with
nightly --fail-above 5 >o1.txt 2>&1
rc=$?
[ $rc = 3 ] || { cat o1.txt; fail "one batch: exit $rc, expected 3"; }
grep -q "one batch only" o1.txt || fail "message: $(cat o1.txt)"
# night 2: a slower disk (5400 rpm): a regression
matrix 5400
"$SB" run n.ini --db "$T/db.sqlite" --batch night2 >r2.log 2>&1 || { cat r2.log; fail "night2"; }
grep -q "batch night2: repetitions 4..6" r2.log || fail "night2's repetitions"
[ "$(q "SELECT count(*) FROM runs WHERE status = 'ok'")" = 12 ] || fail "night1's runs must stay"
nightly --fail-above 5 >o2.txt 2>&1
rc=$?
cat o2.txt
[ $rc = 1 ] || fail "a slower disk: exit $rc, expected 1"
grep -q "batch 'night2' (6 runs) against 'night1' (6 runs)" o2.txt || fail "header"
grep -q "REGRESSION above 5.0%" o2.txt || fail "no REGRESSION section"
grep -E '^none +iops .*-[0-9.]+%\*' o2.txt || fail "no significant iops drop for none"
# night 3: back to 7200 rpm: better than night 2, and not worse than night 1
matrix 7200
"$SB" run n.ini --db "$T/db.sqlite" --batch night3 >r3.log 2>&1 || fail "night3"
nightly --fail-above 5 >o3.txt 2>&1 || { cat o3.txt; fail "night3 vs night2 must pass"; }
grep -E '^none +iops .*\+[0-9.]+%\*' o3.txt || { cat o3.txt; fail "no significant improvement"; }
nightly --fail-above 5 --against night1 >o4.txt 2>&1 || { cat o4.txt; fail "night3 vs night1 must pass"; }
grep -q "against 'night1'" o4.txt || fail "--against"
# bad inputs: one line, exit 2
nightly --against nosuch >o5.txt 2>&1
[ $? = 2 ] && grep -q "no batch 'nosuch'" o5.txt || fail "--against nosuch: $(cat o5.txt)"
"$SB" run n.ini --db "$T/db.sqlite" --batch "" >o6.txt 2>&1
[ $? = 2 ] && grep -q "batch wants a name" o6.txt || fail "--batch '': $(cat o6.txt)"
echo PASS
