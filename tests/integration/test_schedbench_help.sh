#!/usr/bin/env bash
# Issue 12, "Why" 3 and "What" 1: every command has --help (exit 0) that explains its options
# (run: --target, --engine, --force ...), the exit codes and the engine's schedulers; options go through getopt_long: an
# unknown option or a missing value is a one-line error and exit 2, before anything runs.
. "$(dirname "$0")/schedbench_lib.sh"
cd "$T"
for cmd in run ingest status report; do
	"$SB" $cmd --help >"help-$cmd.txt" 2>&1 || fail "schedbench $cmd --help: rc $? ($(head -n 3 "help-$cmd.txt"))"
	grep -q "usage" "help-$cmd.txt" || fail "$cmd --help prints no usage: $(head -n 3 "help-$cmd.txt")"
	"$SB" $cmd -h >/dev/null 2>&1 || fail "schedbench $cmd -h: rc $?"
done
"$SB" --help >help.txt || fail "schedbench --help"
"$SB" help run >help-run2.txt || fail "schedbench help run"
cmp -s help-run.txt help-run2.txt || fail "'help run' differs from 'run --help'"
# what the README used to be the only place for
for opt in --target --engine --force --dry-run --db --repeat --runtime; do
	grep -q -- "$opt" help-run.txt || fail "run --help does not explain $opt"
done
grep -q -- '--label' help-ingest.txt || fail "ingest --help: --label"
grep -q -- '--experiment' help-status.txt || fail "status --help: --experiment"
grep -q -- '--fail-above' help-report.txt || fail "report --help: --fail-above"
# the exit codes, documented
for h in help.txt help-run.txt help-report.txt; do
	grep -q '3' "$h" && grep -qi 'nothing to compare' "$h" || fail "$h does not document exit 3"
done
grep -qi 'usage or input error' help.txt || fail "exit 2 undocumented"
# the embedded schedulers --help names are the engine's (fio --enghelp: "sched : ...: none|deadline|cfq|bfq")
ENGINE="$TOP/$BUILD/libschedengine.so"
case $BUILD in /*) ENGINE="$BUILD/libschedengine.so" ;; esac
scheds=$(fio --enghelp="$ENGINE" 2>/dev/null | sed -n 's/^sched *: .*: \([a-z|]*\) (default [a-z]*)$/\1/p' | tr '|' ' ')
[ -n "$scheds" ] || fail "no sched= values in fio --enghelp=$ENGINE"
named=$(sed -n 's/.*(embedded \([A-Za-z/]*\)).*/\1/p' help.txt | tr 'A-Z/' 'a-z ')
for s in $scheds; do
	[[ " $named " == *" $s "* ]] || fail "schedbench --help names embedded '$named', not the engine's sched=$s"
done
echo "ok: --help names the engine's schedulers ($scheds)"
# bad usage: one line naming the problem, exit 2, nothing created
printf '[global]\nioengine=null\nsize=1m\n[a]\nrw=read\n' >n.fio
printf '[matrix]\njobs = n.fio\n' >m.ini
check_usage() { # expected-text command...
	local want=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	[ $rc = 2 ] || fail "'$*' exited $rc, expected 2: $out"
	echo "$out" | grep -q -- "$want" || fail "'$*': expected '$want' in: $out"
	echo "ok: $* -> $(echo "$out" | head -n 1)"
}
check_usage "unrecognized option '--bogus'" "$SB" run m.ini --bogus --db "$T/x.db"
check_usage "requires an argument" "$SB" run m.ini --db
check_usage "positive integer" "$SB" run m.ini --repeat 0 --db "$T/x.db"
check_usage "seconds" "$SB" run m.ini --runtime soon --db "$T/x.db"
check_usage "no MATRIX" "$SB" run --db "$T/x.db"
check_usage "one matrix at a time" "$SB" run m.ini m.ini --db "$T/x.db"
check_usage "AXIS=LABEL" "$SB" ingest --label nolabel x.json --db "$T/x.db"
check_usage "unrecognized option" "$SB" status --verbose --db "$T/x.db"
check_usage "unknown command" "$SB" frobnicate
check_usage "unrecognized arguments" "$SB" report --db "$T/x.db" --bogus
[ ! -e "$T/x.db" ] || fail "a usage error created the database"
echo PASS
