#!/usr/bin/env bash
# Issue 12, "Why" 9 and "What" 7: after a SIGKILL of `schedbench run` its fio processes end, its
# scratch directory goes, and status shows the run 'interrupted' with its experiment (no "?"
# running row). When the runner and its supervisor are killed together, the next runner finds the
# journal and does the same. Kernel cells (root and a loop device): the loop device schedbench made
# is detached and its image removed, and on a --target device the scheduler and the tunable are
# restored, in both cases.
. "$(dirname "$0")/schedbench_lib.sh"
cd "$T"

# fio processes of this test (their working directory is under $T), zombies aside
our_fio() {
	local p s
	for p in $(pgrep -x fio); do
		case $(readlink "/proc/$p/cwd" 2>/dev/null) in "$T"/*) ;; *) continue ;; esac
		s=$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)
		[ -n "$s" ] && [ "$s" != Z ] && echo "$p"
	done
}
wait_for() { # seconds condition...
	local n=$(($1 * 10))
	shift
	while [ $n -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}
have_fio() { [ -n "$(our_fio)" ]; }
no_fio() { [ -z "$(our_fio)" ]; }
no_workdirs() { ! ls -d "$T"/tmp/*-r[0-9]*-* >/dev/null 2>&1; }
cleanup_hooks+=('for p in $(our_fio); do kill -KILL $p; done')

cat >long.fio <<'J'
[global]
ioengine=null
size=64m
bs=4k
rate_iops=2000
time_based
runtime=60
[reader]
rw=read
numjobs=2
J
printf '[matrix]\nname = killed\njobs = long.fio\n' >m.ini

# 1. SIGKILL of the runner: its supervisor cleans up at once
"$SB" run m.ini --db "$T/db.sqlite" >run1.log 2>&1 &
runner=$!
wait_for 30 have_fio || { cat run1.log; fail "fio did not start"; }
pids=$(our_fio)
echo "fio running: $(echo $pids)"
kill -KILL $runner
wait $runner 2>/dev/null
wait_for 20 no_fio || fail "fio still running after the runner was killed: $(our_fio)"
wait_for 20 no_workdirs || fail "scratch directory left: $(ls "$T"/tmp)"
wait_for 20 sh -c "! ls '$T'/tmp/journal-* >/dev/null 2>&1" || fail "journal left: $(ls "$T"/tmp)"
"$SB" status --db "$T/db.sqlite" >st1.txt || fail "status"
cat st1.txt
grep -q ' running ' st1.txt && fail "a 'running' row after the kill"
grep -q '^?' st1.txt && fail "a '?' row"
grep -Eq '^killed +interrupted +1 ' st1.txt || fail "the run is not 'interrupted' under its experiment"

# 2. runner and supervisor killed together (one process group): the next runner cleans up
setsid "$SB" run m.ini --db "$T/db.sqlite" >run2.log 2>&1 &
wait_for 30 have_fio || { cat run2.log; fail "fio did not start (2)"; }
sleep 0.5
pg=$(ps -o pgid= -p $! | tr -d ' ')
[ -n "$pg" ] && kill -KILL -- "-$pg"
wait $! 2>/dev/null
sleep 1
ls "$T"/tmp/journal-* >/dev/null 2>&1 || fail "no journal left for the next runner"
echo "left behind: $(our_fio | wc -l) fio, $(ls "$T/tmp" | tr '\n' ' ')"
printf '[matrix]\nname = other\njobs = long.fio\nruntime = 1\n' >o.ini
"$SB" run o.ini --db "$T/db.sqlite" >run3.log 2>&1 || { cat run3.log; fail "the next run"; }
cat run3.log
grep -q 'cleaning up after a runner that died' run3.log || fail "the next runner did not clean up"
wait_for 10 no_fio || fail "fio of the killed runner still running: $(our_fio)"
no_workdirs || fail "scratch directory left: $(ls "$T"/tmp)"
[ "$(q "SELECT count(*) FROM runs WHERE status = 'running'")" = 0 ] || fail "running rows left"
[ "$(q "SELECT count(*) FROM runs WHERE experiment = 'killed' AND status = 'interrupted'")" = 1 ] || fail "not interrupted"

# 3. kernel cells (root, loop devices)
if [ "$(id -u)" != 0 ] || ! command -v losetup >/dev/null; then
	echo "SKIP: kernel cells need root and losetup (parts 1 and 2 passed; part 3 did not run)"
	exit 77
fi
truncate -s 8M "$T/probe.img"
if ! probe=$(losetup --find --show "$T/probe.img" 2>/dev/null); then
	echo "SKIP: losetup refused a loop device (parts 1 and 2 passed; part 3 did not run)"
	exit 77
fi
losetup -d "$probe"
cat >k.fio <<'J'
[global]
ioengine=psync
direct=1
filename=${TARGET}
size=16m
bs=4k
rate_iops=200
[reader]
rw=randread
J
printf '[matrix]\nname = kcell\njobs = k.fio\nruntime = 60\nimage_size = 32M\n[axis.s]\nA = kernel:mq-deadline fifo_batch=3\n' >k.ini
loops_of() { losetup -j "$1" -O NAME -n 2>/dev/null; }
# 3a. the loop device schedbench makes: killed runner -> detached and its image removed
"$SB" run k.ini --db "$T/db.sqlite" >k1.log 2>&1 &
runner=$!
wait_for 30 have_fio || { cat k1.log; fail "kernel cell did not start"; }
img=$(ls "$T"/tmp/loop-*.img)
dev=$(loops_of "$img")
echo "kernel cell on $dev over $img"
cleanup_hooks+=("[ -n \"\$(loops_of $img)\" ] && losetup -d \$(loops_of $img)")
kill -KILL $runner
wait $runner 2>/dev/null
wait_for 20 no_fio || fail "fio still running (kernel cell)"
wait_for 20 sh -c "[ -z \"\$(losetup -j '$img' -O NAME -n 2>/dev/null)\" ]" || fail "loop device $dev left attached"
wait_for 20 sh -c "[ ! -e '$img' ]" || fail "image $img left"
# 3b. a --target device: its scheduler and the tunable come back, also when the next runner does it
truncate -s 32M "$T/dev.img"
tdev=$(losetup --find --show "$T/dev.img") || fail "losetup"
cleanup_hooks+=("losetup -d $tdev 2>/dev/null")
tq=/sys/block/$(basename "$tdev")/queue
for how in runner group tunable; do
	# the device as the user left it: none, or (tunable) mq-deadline with fifo_batch 16
	if [ $how = tunable ]; then
		echo mq-deadline >"$tq/scheduler" && echo 16 >"$tq/iosched/fifo_batch" || fail "cannot prepare $tdev"
		want='\[mq-deadline\]'
	else
		echo none >"$tq/scheduler" || fail "cannot set none on $tdev"
		want='\[none\]'
	fi
	if [ $how != group ]; then
		"$SB" run k.ini --db "$T/db.sqlite" --target "$tdev" --force >k2.log 2>&1 &
	else
		setsid "$SB" run k.ini --db "$T/db.sqlite" --target "$tdev" --force >k2.log 2>&1 &
	fi
	pid=$!
	wait_for 30 have_fio || { cat k2.log; fail "kernel cell on --target did not start ($how)"; }
	grep -q '\[mq-deadline\]' "$tq/scheduler" || fail "cell not on mq-deadline: $(cat "$tq/scheduler")"
	[ "$(cat "$tq/iosched/fifo_batch")" = 3 ] || fail "fifo_batch not set"
	if [ $how != group ]; then
		kill -KILL $pid
	else
		pg=$(ps -o pgid= -p $pid | tr -d ' ')
		kill -KILL -- "-$pg"
	fi
	wait $pid 2>/dev/null
	if [ $how = group ]; then
		sleep 0.5
		grep -q '\[mq-deadline\]' "$tq/scheduler" || fail "nothing left to restore: the test did not kill the supervisor"
		"$SB" status --db "$T/db.sqlite" >/dev/null
		"$SB" run o.ini --db "$T/db.sqlite" >k3.log 2>&1 || { cat k3.log; fail "the next run (kernel)"; }
		grep -q "restored $tq/scheduler=none" k3.log || fail "the next runner did not restore the scheduler: $(cat k3.log)"
	fi
	wait_for 20 no_fio || fail "fio still running ($how, --target)"
	wait_for 20 grep -q "$want" "$tq/scheduler" || fail "scheduler not restored ($how): $(cat "$tq/scheduler")"
	if [ $how = tunable ]; then
		wait_for 20 sh -c "[ \"\$(cat $tq/iosched/fifo_batch)\" = 16 ]" ||
			fail "fifo_batch not restored: $(cat "$tq/iosched/fifo_batch")"
	fi
	echo "ok ($how killed): $tdev scheduler back to $(cat "$tq/scheduler")"
done
echo PASS
