#!/usr/bin/env bash
# Kernel cells on a loop device that schedbench creates: scheduler and tunables set and read back,
# queue/ and iosched/ state recorded, a read-back mismatch fails the cell, the loop device and its
# image are removed afterwards, and --target on a device restores its scheduler.
. "$(dirname "$0")/schedbench_lib.sh"
require_root_and_loop
cd "$T"
cat >psync.fio <<'J'
[global]
ioengine=psync
direct=1
filename=${TARGET}
size=16m
bs=4k
time_based
runtime=1
[reader]
rw=randread
J
cat >k.ini <<'M'
[matrix]
name = kern
jobs = psync.fio
image_size = 32M
[axis.sched]
none     = kernel:none
deadline = kernel:mq-deadline read_expire=500 fifo_batch=8
bfq      = kernel:bfq slice_idle=0 low_latency=0 queue.nr_requests=64
bad      = kernel:mq-deadline fifo_batch=not-a-number
M
"$SB" run k.ini --db "$T/db.sqlite" >run.log 2>&1
rc=$?
cat run.log
[ $rc = 1 ] || fail "expected exit 1 (one bad cell), got $rc"
grep -q 'kernel cells run on /dev/loop' run.log || fail "no loop device"
[ "$(q "SELECT count(*) FROM runs WHERE status = 'ok'")" = 3 ] || fail "3 cells should pass"
q "SELECT stderr_tail FROM runs WHERE cell_name = 'sched=bad'" | grep -q "fifo_batch" || fail "bad tunable not reported"
st() { q "SELECT json_extract(sysfs_state, '$1') FROM runs WHERE cell_name = 'sched=$2'"; }
st '$.queue.scheduler' none | grep -q '\[none\]' || fail "none not recorded: $(st '$.queue.scheduler' none)"
st '$.queue.scheduler' deadline | grep -q '\[mq-deadline\]' || fail "mq-deadline not recorded"
[ "$(st '$.iosched.read_expire' deadline)" = 500 ] || fail "read_expire: $(st '$.iosched.read_expire' deadline)"
[ "$(st '$.iosched.fifo_batch' deadline)" = 8 ] || fail "fifo_batch"
[ "$(st '$.iosched.slice_idle' bfq)" = 0 ] || fail "bfq slice_idle"
[ "$(st '$.iosched.low_latency' bfq)" = 0 ] || fail "bfq low_latency"
[ "$(st '$.queue.nr_requests' bfq)" = 64 ] || fail "nr_requests"
[ "$(q "SELECT json_type(sysfs_state, '$.queue') FROM runs WHERE cell_name = 'sched=none'")" = object ] || fail "state JSON"
[ "$(q "SELECT count(*) FROM runs r JOIN results x ON x.run_id = r.id WHERE r.status = 'ok' AND x.iops > 0")" = 3 ] || fail "results"
[ "$(q "SELECT mode FROM runs LIMIT 1")" = kernel ] || fail "mode"
! losetup -a | grep -F "$T/" || fail "loop device left behind (others on this machine may have theirs)"
ls tmp/*.img 2>/dev/null && fail "loop image left behind"
# --target on an existing device: its scheduler is restored afterwards
img="$T/dev.img"
truncate -s 32M "$img"
dev=$(losetup --find --show "$img") || fail "losetup"
cleanup_hooks+=("losetup -d $dev 2>/dev/null")
name=$(basename "$dev")
echo kyber >/sys/block/$name/queue/scheduler 2>/dev/null || echo none >/sys/block/$name/queue/scheduler
old=$(cat /sys/block/$name/queue/scheduler)
printf '[matrix]\nname = kern2\njobs = psync.fio\n[axis.s]\nvalues = kernel:bfq | kernel:mq-deadline\n' >k2.ini
"$SB" run k2.ini --db "$T/db.sqlite" --target "$dev" >run2.log 2>&1 || { cat run2.log; fail "run on --target"; }
[ "$(cat /sys/block/$name/queue/scheduler)" = "$old" ] || fail "scheduler not restored: $(cat /sys/block/$name/queue/scheduler) != $old"
# a regular file is not a device
"$SB" run k2.ini --db "$T/db.sqlite" --target "$img" 2>err.txt && fail "a file accepted as device"
grep -q 'not a block device' err.txt || fail "message: $(cat err.txt)"
echo PASS
