#!/usr/bin/env bash
# build/modeldev's command line without a device (no FUSE, no loop, nothing mounted): a bad command
# or option is one line naming it, exit 2, before anything is set up; a daemon that is not running
# (a runtime condition) is one line naming it, exit 1; --help exits 0.
. "$(dirname "$0")/../lib.sh"
MODELDEV=$BUILD/modeldev
[ -x "$MODELDEV" ] || { echo "SKIP: $MODELDEV not built"; exit 77; }
export MODELDEV_RUNDIR=$WORK/rundir # not the machine's /run/schedengine-modeldev
one_line() { # RC PATTERN ARGS...
	local want=$1 pat=$2 rc
	shift 2
	"$MODELDEV" "$@" >"$WORK/out" 2>&1
	rc=$?
	[ $rc = "$want" ] || fail "modeldev $*: exit $rc, expected $want: $(cat "$WORK/out")"
	[ "$(wc -l <"$WORK/out")" = 1 ] || fail "modeldev $*: more than one line: $(cat "$WORK/out")"
	grep -q -- "$pat" "$WORK/out" || fail "modeldev $*: expected '$pat' in: $(cat "$WORK/out")"
	echo "ok: modeldev $* -> $(cat "$WORK/out")"
}
one_line 2 "unknown command 'bogus' (see modeldev --help)" bogus
one_line 2 "unknown command 'bogus'" bogus --name x
one_line 2 "no command given"
one_line 2 "--bogus: unknown option" stats --bogus
one_line 2 "--bogus: unknown option" start --bogus 1
one_line 2 "--name: needs a value" stats --name
one_line 2 "--tags=x: must be an integer" start --tags x
one_line 1 "no running daemon named 'nope'" stats --name nope
[ ! -e "$MODELDEV_RUNDIR/nope" ] || fail "stats --name nope created $MODELDEV_RUNDIR/nope"
"$MODELDEV" --help >"$WORK/help" 2>&1 || fail "modeldev --help: exit $?"
grep -q "^usage: modeldev COMMAND" "$WORK/help" || fail "modeldev --help: $(head -n 2 "$WORK/help")"
echo PASS
