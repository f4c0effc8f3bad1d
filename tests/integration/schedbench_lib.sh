# Shared set-up for tests/integration/test_schedbench_*.sh (sourced, not run).
set -u
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD=${BUILD:-build}
SB="$TOP/$BUILD/schedbench"
case $BUILD in /*) SB="$BUILD/schedbench" ;; esac
if [ ! -x "$SB" ]; then
	echo "SKIP: $SB not built (make BUILD=$BUILD $BUILD/schedbench)"
	exit 77
fi
if ! command -v fio >/dev/null 2>&1; then
	echo "SKIP: fio not installed"
	exit 77
fi
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
T=$(mktemp -d /tmp/schedbench-test.XXXXXX)
cleanup_hooks=()
cleanup() {
	local h
	for h in "${cleanup_hooks[@]}"; do eval "$h"; done
	rm -rf "$T"
}
trap cleanup EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}
# a two-job null-engine job file: fast and needs no disk
null_job() {
	cat >"$1" <<'JOB'
; null engine, two jobs (two "groups")
[global]
ioengine=null
size=64m
bs=4k
time_based
runtime=1

[test1]
rw=randread

[test2]
rw=read
JOB
}
# A query of the test's database; waits up to 5 s for a lock a killed runner's child may still
# hold (a bare sqlite3 gives "database is locked" at once).
q() { sqlite3 -cmd ".timeout 5000" "$T/db.sqlite" "$@"; }

# Kernel cells need root and a loop device: skip (exit 77) with the reason otherwise.
# Leaves the probe device's name in $dev (already detached).
require_root_and_loop() {
	if [ "$(id -u)" != 0 ]; then echo "SKIP: kernel cells need root"; exit 77; fi
	local probe="$T/probe.img"
	truncate -s 8M "$probe"
	if ! dev=$(losetup --find --show "$probe" 2>"$T/losetup.err"); then
		echo "SKIP: losetup refused: $(cat "$T/losetup.err")"
		exit 77
	fi
	losetup -d "$dev"
}
