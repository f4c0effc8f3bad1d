#!/usr/bin/env bash
# fsync/fdatasync pass through the scheduler as sync flushes; trim where the backend can.
. "$(dirname "$0")/../lib.sh"
for be in io_uring libaio psync; do
	name=fsync-$be
	note "$name"
	run_fio "$name" --name=w --ioengine=external:"$ENGINE" --backend=$be --directory="$WORK" \
		--filename_format='$jobname.$jobnum' --size=4M --rw=randwrite --bs=4k --iodepth=8 \
		--fsync=4 --numjobs=2 --sched_stats="$WORK/$name.stats.json" ||
		fail "$name: rc $? $(head -c 600 "$WORK/$name.err")"
	read -r ios syncs < <(fio_ok "$WORK/$name.json") || fail "$name: job error"
	[ "$syncs" -gt 0 ] || fail "$name: no fsync issued"
	pyjson "$WORK/$name.stats.json" '
assert d["completed"]=='"$((ios + syncs))"', ("sched completed", d["completed"], "fio ios+syncs", '"$ios"', '"$syncs"')
' || fail "$name: fsyncs did not all pass through the scheduler"
	name=fdatasync-$be
	run_fio "$name" --name=w --ioengine=external:"$ENGINE" --backend=$be --directory="$WORK" \
		--size=4M --rw=write --bs=8k --iodepth=4 --fdatasync=2 ||
		fail "$name: rc $? $(head -c 600 "$WORK/$name.err")"
	read -r ios syncs < <(fio_ok "$WORK/$name.json") || fail "$name: job error"
	[ "$syncs" -gt 0 ] || fail "$name: no fdatasync issued"
done
# Trim on a regular file (hole punching) through each backend. fio's own engines refuse trim
# on files (BLKDISCARD only); the engine punches a hole instead.
head -c 4M /dev/urandom > "$WORK/trim.dat"
for be in io_uring libaio psync; do
	name=trim-$be
	run_fio "$name" --name=t --ioengine=external:"$ENGINE" --backend=$be --filename="$WORK/trim.dat" \
		--size=4M --rw=randtrim --bs=64k --iodepth=4 ||
		fail "$name: rc $? $(head -c 600 "$WORK/$name.err")"
	fio_ok "$WORK/$name.json" >/dev/null || fail "$name: job error"
done
# Trim on a block device (BLKDISCARD), when a loop device can be had.
if try_loop 64M; then
	dev=$LOOP_DEV
	run_fio trim-blk --name=t --ioengine=external:"$ENGINE" --filename="$dev" --size=8M \
		--rw=randtrim --bs=64k --iodepth=4 --direct=1 ||
		fail "trim on $dev: rc $? $(head -c 600 "$WORK/trim-blk.err")"
	fio_ok "$WORK/trim-blk.json" >/dev/null || fail "trim on $dev: job error"
else
	echo "no loop device: block-device trim not checked"
fi
