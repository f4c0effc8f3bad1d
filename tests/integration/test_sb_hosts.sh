#!/usr/bin/env bash
# schedbench run --hosts: a matrix spread over two fio servers on 127.0.0.1 (different ports)
# through fio's own client/server. A third host where no server answers and a fourth whose
# engine is not the expected one are reported by the probe and left out. One server is killed
# (with its children) while it runs a cell: that cell goes back to the queue and runs on the
# other host. Every cell is stored exactly once, with its host and that host's provenance; the
# servers' scratch directories are removed; running the command again runs nothing (resume).
. "$(dirname "$0")/schedbench_lib.sh"
ENGINE="$TOP/$BUILD/libschedengine.so"
case $BUILD in /*) ENGINE="$BUILD/libschedengine.so" ;; esac
[ -f "$ENGINE" ] || { echo "SKIP: $ENGINE not built"; exit 77; }
cd "$T"
# free ports on loopback
ports=$(python3 -c "
import socket
ps = []
for _ in range(3):
    s = socket.socket(); s.bind(('127.0.0.1', 0)); ps.append(s)
print(' '.join(str(s.getsockname()[1]) for s in ps))
for s in ps: s.close()")
read -r P1 P2 P3 <<<"$ports"
SERVERS=()
start_server() { # port: a fio server in a session (and directory) of its own, killed with the test
	mkdir -p "$T/srv$1"
	# PR_SET_PDEATHSIG: the server goes when this test's shell goes, even by SIGKILL
	(cd "$T/srv$1" && exec python3 -c 'import ctypes, os, sys
ctypes.CDLL(None).prctl(1, 9)
os.setsid()
os.execvp("fio", ["fio", "--server=ip:127.0.0.1," + sys.argv[1]])' "$1" >"$T/srv$1.log" 2>&1) &
	SERVERS+=($!)
	for i in $(seq 1 50); do
		python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $1), 0.2)" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "fio --server on port $1 did not come up: $(cat "$T/srv$1.log")"
}
# a server and every process under it (fio forks one per connection and one per job), all in one
# kill(1) once the tree is known: killing the leaves first, a ps apart from the server, let the
# client see its connection drop while the server still answered, and the runner rightly called
# that a failed cell on a live host (the run the test wants lost was then stored as failed)
tree_pids() {
	local c
	echo "$1"
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do tree_pids "$c"; done
}
kill_tree() {
	# shellcheck disable=SC2046
	kill -9 $(tree_pids "$1") 2>/dev/null
}
cleanup_hooks+=('for s in "${SERVERS[@]}"; do kill_tree $s; done')
start_server "$P1"
start_server "$P2"

# a fake engine: same path layout, another revision in its note (the probe must tell it from the
# real one; without a revision the probe compares sha256, and the extra byte changes that)
mkdir -p "$T/other"
python3 - "$ENGINE" "$T/other/libschedengine.so" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.find(b"schedengine\0")
while i >= 0 and b[i + 12:i + 13] == b"\0":  # the note's desc follows its 12-byte name
    i = b.find(b"schedengine\0", i + 1)
if i >= 0:
    b[i + 12:i + 12 + 5] = b"other"
open(sys.argv[2], "wb").write(bytes(b) + b"x")
PY
cat >hosts.txt <<EOF
# two servers on this machine, one without a server, one with another engine
127.0.0.1:$P1
127.0.0.1:$P2 dir=$T
127.0.0.1:$P3
127.0.0.1:$P1 engine=$T/other/libschedengine.so
EOF
# the same host twice is refused before anything runs
cat >m.ini <<EOF
[matrix]
name    = sb-hosts
jobs    = $TOP/jobs/crosscheck-bfq/two-groups.fio
repeat  = 2
runtime = 1
[set]
engine.device_model = hdd
[axis.sched]
none     = embedded:none
deadline = embedded:deadline
cfq      = embedded:cfq
[axis.bs]
values = 4k | 64k
EOF
"$SB" run m.ini --db "$T/db.sqlite" --hosts-file hosts.txt >dup.log 2>&1 && fail "a host given twice was accepted"
grep -q "127.0.0.1:$P1 is given twice" dup.log || fail "duplicate host message: $(cat dup.log)"
[ -e db.sqlite ] && fail "the database was created before the check"
sed -i '$d' hosts.txt
echo "localhost:$P1 engine=$T/other/libschedengine.so" >>hosts.txt # the same server by another name
# kernel cells that need sysfs writes on a server are refused by name
printf '[matrix]\njobs = %s\n[axis.s]\nk = kernel:mq-deadline read_expire=100\n' \
	"$TOP/jobs/crosscheck-none/read.fio" >k.ini
"$SB" run k.ini --db "$T/db.sqlite" --hosts 127.0.0.1:$P1 --target /dev/null >k.log 2>&1 && fail "sysfs tunable accepted"
grep -q "iosched.read_expire needs a sysfs write on the fio server" k.log || fail "message: $(cat k.log)"

# the run; server 2 is killed as soon as it has a cell running
"$SB" run m.ini --db "$T/db.sqlite" --hosts-file hosts.txt >run.log 2>&1 &
runner=$!
# once the second server has stored a run and started another one
for i in $(seq 1 600); do
	n_ok=$(grep -c "127.0.0.1:$P2\] ok" run.log)
	n_on=$(grep -c " on 127.0.0.1:$P2" run.log)
	[ "$n_ok" -ge 1 ] && [ "$n_on" -gt "$n_ok" ] && break
	sleep 0.1
done
[ "$n_ok" -ge 1 ] && [ "$n_on" -gt "$n_ok" ] || { cat run.log; fail "the second server never ran two cells"; }
sleep 0.3
kill_tree "${SERVERS[1]}"
wait $runner
rc=$?
cat run.log
[ $rc = 0 ] || fail "schedbench run exited $rc"
grep -q "host 127.0.0.1:$P3: left out: no fio server answers" run.log || fail "the dead host was not left out"
grep -q "host localhost:$P1: left out: the engine $T/other/libschedengine.so there is not" run.log ||
	fail "the wrong engine was not left out"
grep -q "2 of 4 hosts passed the probe" run.log || fail "probe summary"
grep -q "host 127.0.0.1:$P2 went away during cell" run.log || fail "the lost cell was not reported"
# every cell x repetition once, ok, with its host
[ "$(q "SELECT count(*) FROM runs")" = 12 ] || fail "12 runs expected, got $(q "SELECT count(*) FROM runs")"
[ "$(q "SELECT count(*) FROM runs WHERE status = 'ok'")" = 12 ] ||
	fail "not all ok: $(q "SELECT status, count(*) FROM runs GROUP BY 1")"
[ "$(q "SELECT count(*) FROM (SELECT cell_hash, repetition FROM runs GROUP BY 1, 2)")" = 12 ] || fail "duplicates"
[ "$(q "SELECT count(*) FROM runs WHERE fio_host IS NULL")" = 0 ] || fail "a run without its host"
on1=$(q "SELECT count(*) FROM runs WHERE fio_host = '127.0.0.1:$P1'")
on2=$(q "SELECT count(*) FROM runs WHERE fio_host = '127.0.0.1:$P2'")
echo "runs on server 1: $on1, on server 2 (killed): $on2"
[ "$on1" -ge 1 ] && [ "$on2" -ge 1 ] && [ $((on1 + on2)) = 12 ] || fail "runs per host: $on1 + $on2"
# the host's provenance: fio's own report of it and the engine it verified
[ "$(q "SELECT DISTINCT json_extract(provenance, '$.remote.fio_version') FROM runs")" = "$(fio --version)" ] ||
	fail "remote fio version"
[ "$(q "SELECT DISTINCT host FROM runs")" = "$(hostname)" ] || fail "the server's host name"
[ "$(q "SELECT DISTINCT json_extract(provenance, '$.remote.engine.path') FROM runs")" = "$ENGINE" ] ||
	fail "engine path in the provenance"
q "SELECT DISTINCT json_extract(provenance, '$.remote.engine.verified') FROM runs" | grep -Eqx 'sha256|revision note' ||
	fail "engine check in the provenance"
# two jobs a run (fio's client JSON also sums them as "All clients": not stored as a job)
[ "$(q "SELECT count(*) FROM results WHERE iops > 0")" = 24 ] || fail "results: $(q "SELECT count(*) FROM results")"
[ "$(q "SELECT count(*) FROM results WHERE jobname = 'All clients'")" = 0 ] || fail "fio's client sum stored as a job"
[ "$(q "SELECT count(DISTINCT jobname) FROM results")" = 2 ] || fail "job names: $(q "SELECT DISTINCT jobname FROM results")"
# fio's client JSON is stored as any fio output (jobs[]), so every report works
"$SB" report --db "$T/db.sqlite" -e sb-hosts >rep.txt 2>&1 || { cat rep.txt; fail "report"; }
grep "^fio_server " rep.txt | grep -q "127.0.0.1:$P1" && grep "^fio_server " rep.txt | grep -q "127.0.0.1:$P2" ||
	fail "report: fio servers: $(grep '^fio_server' rep.txt)"
# the live server's scratch directory is gone; the killed one's could not be reached (said so)
ls -d /tmp/schedbench-*-"$runner" 2>/dev/null && fail "scratch left on the live server"
grep -q "host 127.0.0.1:$P2: its scratch directory .* could not be removed (the server is gone)" run.log ||
	fail "the unreachable scratch directory was not reported"
ls tmp/journal-* 2>/dev/null && fail "journal left"
# resume: nothing left to run
"$SB" run m.ini --db "$T/db.sqlite" --hosts 127.0.0.1:$P1 >again.log 2>&1 || { cat again.log; fail "resume"; }
grep -q "0 ok, 0 failed, 12 done before" again.log || fail "resume ran something: $(tail -n 3 again.log)"
echo PASS
