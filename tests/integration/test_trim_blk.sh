#!/usr/bin/env bash
# Trim on a block device (BLKDISCARD) through each backend, the policy rotating so that every
# policy is met (test_fsync_trim.sh covers every backend on files): a loop device over a file of
# random data; after randtrim over the region, the trims went through the scheduler and the
# region reads back as zeros (the loop driver punches the discarded range out of its backing
# file).
# sanitizers: asan tsan
# timeout: 120
. "$(dirname "$0")/../lib.sh"
policies
make_loop 16M
dev=$LOOP_DEV
img=$(losetup -n -O BACK-FILE "$dev")
pols=($POLICIES)
k=0
# one backend per policy, in turn: io_uring, libaio, psync, io_uring, libaio
bes=(io_uring libaio psync io_uring libaio)
for be in "${bes[@]:0:${#pols[@]}}"; do
	for s in ${pols[$k]}; do
		k=$((k + 1))
		name=trim-blk-$be-$s
		dd if=/dev/urandom of="$dev" bs=1M count=8 oflag=direct status=none || fail "filling $dev"
		cmp -s -n 8388608 "$dev" /dev/zero && fail "$dev reads zeros before the trim"
		run_fio "$name" --name=t --ioengine=external:"$ENGINE" --backend=$be --sched=$s \
			--filename="$dev" --size=8M --rw=randtrim --bs=64k --iodepth=4 --direct=1 \
			--sched_stats="$WORK/$name.stats.json" ||
			fail "$name: rc $? $(head -c 600 "$WORK/$name.err")"
		trims=$(pyjson "$WORK/$name.json" '
assert not [j["error"] for j in d["jobs"] if j["error"]]
print(sum(j["trim"]["total_ios"] for j in d["jobs"]))') || fail "$name: job error"
		[ "$trims" -eq 128 ] || fail "$name: fio issued $trims trims, expected 128 (8 MiB / 64 KiB)"
		pyjson "$WORK/$name.stats.json" '
assert d["sched"]=="'"$s"'" and d["completed"]=='"$trims"', (d["sched"], d["completed"])' ||
			fail "$name: the trims did not all pass through sched=$s"
		cmp -s -n 8388608 "$dev" /dev/zero || fail "$name: $dev does not read back as zeros after the trim"
		echo "$name: $trims discards through sched=$s; $dev reads zeros (backing file $(stat -c %b "$img") blocks)"
	done
done
