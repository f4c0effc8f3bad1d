#!/usr/bin/env bash
# The verify workload on a loop block device, every policy x fork/thread mode, the backend
# rotating so that each policy meets each backend: each job in its own 16 MiB region.
# sanitizers: asan
# (not under TSan: test_verify_backends races the same engine paths in thread mode, on files)
# timeout: 300
. "$(dirname "$0")/../lib.sh"
policies
make_loop 128M
dev=$LOOP_DEV
bes=(io_uring libaio psync)
k=0
for s in $POLICIES; do
	for thread in $THREAD_MODES; do
		be=${bes[$((k % 3))]}
		k=$((k + 1))
		name=loop-$s-$be-thread$thread
		note "$name on $dev"
		run_fio "$name" --name=v --ioengine=external:"$ENGINE" --sched=$s --backend=$be \
			--thread=$thread --filename="$dev" --size=16M --offset_increment=16M --rw=randrw \
			--bs=4k --iodepth=32 --numjobs=4 --verify=crc32c --do_verify=1 --direct=1 \
			--sched_stats="$WORK/$name.stats.json" ||
			fail "$name: fio rc $? $(head -c 600 "$WORK/$name.err")"
		ios=$(fio_ok "$WORK/$name.json" | cut -d' ' -f1) || fail "$name: job error"
		pyjson "$WORK/$name.stats.json" '
assert d["sched"]=="'"$s"'", d["sched"]
assert len(d["jobs"])==4 and d["stray_completions"]==0, (len(d["jobs"]), d["stray_completions"])
assert d["inserted"]==d["dispatched"]==d["completed"]=='"$ios"', (d["inserted"], d["dispatched"], d["completed"], "fio", '"$ios"')
' || fail "$name: sched_stats check"
	done
done
# rotational=auto reads the loop device's queue flag, as the kernel does.
want=$(cat /sys/block/$(basename "$dev")/queue/rotational)
run_fio rot --name=r --ioengine=external:"$ENGINE" --filename="$dev" --size=1M --rw=read \
	--direct=1 --sched_stats="$WORK/rot.stats.json" || fail "rotational run: $(cat "$WORK/rot.err")"
pyjson "$WORK/rot.stats.json" 'assert d["rotational"]==bool('"$want"'), d["rotational"]' ||
	fail "rotational=auto did not read $dev's flag ($want)"
run_fio rot1 --name=r --ioengine=external:"$ENGINE" --rotational=$((1 - want)) --filename="$dev" \
	--size=1M --rw=read --direct=1 --sched_stats="$WORK/rot1.stats.json" || fail "rotational override"
pyjson "$WORK/rot1.stats.json" 'assert d["rotational"]==bool('"$((1 - want))"')' ||
	fail "rotational=$((1 - want)) not applied"
