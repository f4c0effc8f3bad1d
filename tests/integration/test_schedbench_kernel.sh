#!/usr/bin/env bash
# Kernel cells on a loop device that schedbench creates: scheduler and tunables set and read back,
# queue/ and iosched/ state recorded, a read-back mismatch fails the cell, the loop device and its
# image are removed afterwards, and --target on a device restores its scheduler.
. "$(dirname "$0")/schedbench_lib.sh"
require_root_and_loop
cd "$T"
# The third cell is bfq where the kernel has it (CONFIG_IOSCHED_BFQ), else kyber: either way a
# scheduler other than the first two, with its own tunable set and read back.
if grep -qw bfq /sys/block/*/queue/scheduler 2>/dev/null; then
	third='bfq      = kernel:bfq slice_idle=0 low_latency=0 queue.nr_requests=64'
	tun1=slice_idle val1=0 tun2=low_latency val2=0 other=bfq
else
	echo "note: this kernel has no bfq; the third cell is kyber"
	third='bfq      = kernel:kyber read_lat_nsec=4000000 write_lat_nsec=20000000 queue.nr_requests=64'
	tun1=read_lat_nsec val1=4000000 tun2=write_lat_nsec val2=20000000 other=kyber
fi
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
cat >k.ini <<M
[matrix]
name = kern
jobs = psync.fio
image_size = 32M
[axis.sched]
none     = kernel:none
deadline = kernel:mq-deadline read_expire=500 fifo_batch=8
$third
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
st '$.queue.scheduler' bfq | grep -q "\\[$other\\]" || fail "$other not recorded: $(st '$.queue.scheduler' bfq)"
[ "$(st "\$.iosched.$tun1" bfq)" = "$val1" ] || fail "$other $tun1: $(st "\$.iosched.$tun1" bfq)"
[ "$(st "\$.iosched.$tun2" bfq)" = "$val2" ] || fail "$other $tun2"
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
printf '[matrix]\nname = kern2\njobs = psync.fio\n[axis.s]\nvalues = kernel:%s | kernel:mq-deadline\n' "$other" >k2.ini
"$SB" run k2.ini --db "$T/db.sqlite" --target "$dev" >run2.log 2>&1 || { cat run2.log; fail "run on --target"; }
[ "$(cat /sys/block/$name/queue/scheduler)" = "$old" ] || fail "scheduler not restored: $(cat /sys/block/$name/queue/scheduler) != $old"
# a regular file is not a device
"$SB" run k2.ini --db "$T/db.sqlite" --target "$img" 2>err.txt && fail "a file accepted as device"
grep -q 'not a block device' err.txt || fail "message: $(cat err.txt)"
echo PASS
