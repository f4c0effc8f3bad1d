#!/usr/bin/env bash
# fsync/fdatasync pass through the scheduler as sync flushes (fsync runs fork, fdatasync thread
# mode); trim on files punches holes.
# sanitizers: asan tsan
# make-test sanitizers: asan
# timeout: 120
. "$(dirname "$0")/../lib.sh"
for be in io_uring libaio psync; do
	name=fsync-$be
	note "$name"
	run_fio "$name" --name=w --ioengine=external:"$ENGINE" --backend=$be --directory="$WORK" \
		--filename_format='$jobname.$jobnum' --size=4M --rw=randwrite --bs=4k --iodepth=8 \
		--fsync=4 --numjobs=2 --pagecache=none --sched_stats="$WORK/$name.stats.json" ||
		fail "$name: rc $? $(head -c 600 "$WORK/$name.err")"
	read -r ios syncs < <(fio_ok "$WORK/$name.json") || fail "$name: job error"
	[ "$syncs" -gt 0 ] || fail "$name: no fsync issued"
	pyjson "$WORK/$name.stats.json" '
assert d["completed"]=='"$((ios + syncs))"', ("sched completed", d["completed"], "fio ios+syncs", '"$ios"', '"$syncs"')
' || fail "$name: fsyncs did not all pass through the scheduler"
	# The default (pagecache=auto): the writes dirty the engine's page cache and each fsync
	# writes the file's dirty pages back (WB_SYNC_ALL) and flushes: the scheduler sees those
	# writebacks and flushes, the cache's fsyncs are fio's (and one at each job's close).
	name=fsync-pc-$be
	run_fio "$name" --name=w --ioengine=external:"$ENGINE" --backend=$be --directory="$WORK" \
		--filename_format='$jobname.$jobnum' --size=4M --rw=randwrite --bs=4k --iodepth=8 \
		--fsync=4 --numjobs=2 --sched_stats="$WORK/$name.stats.json" ||
		fail "$name: rc $? $(head -c 600 "$WORK/$name.err")"
	read -r ios syncs < <(fio_ok "$WORK/$name.json") || fail "$name: job error"
	pyjson "$WORK/$name.stats.json" '
pc=d["pagecache"]; wb=sum(j["wb_requests"] for j in pc["jobs"]); fs=sum(j["fsyncs"] for j in pc["jobs"])
assert pc["dirtied"]==pc["written"]=='"$ios"', ("pages dirtied, written, fio writes", pc["dirtied"], pc["written"], '"$ios"')
assert pc["requests"]["fsync"]==wb+fs==d["completed"], ("fsync writeback + flushes", wb, fs, d["completed"])
assert '"$syncs"' <= fs <= '"$syncs"' + 2, ("cache fsyncs", fs, "fio", '"$syncs"')
' || fail "$name: fsync through the page cache"
	name=fdatasync-$be
	run_fio "$name" --name=w --ioengine=external:"$ENGINE" --backend=$be --directory="$WORK" \
		--size=4M --rw=write --bs=8k --iodepth=4 --fdatasync=2 --thread=1 ||
		fail "$name: rc $? $(head -c 600 "$WORK/$name.err")"
	read -r ios syncs < <(fio_ok "$WORK/$name.json") || fail "$name: job error"
	[ "$syncs" -gt 0 ] || fail "$name: no fdatasync issued"
done
# Trim on a regular file (hole punching) through each backend. fio's own engines refuse trim
# on files (BLKDISCARD only); the engine punches a hole instead. randtrim over the whole file
# (bs 64k, 4 MiB: fio's random map trims each block once): every trim passes through the
# scheduler (inserted, dispatched and completed as a discard, 'I/D/C T' in the trace), and
# afterwards the file holds no data blocks and reads back as zeros.
for be in io_uring libaio psync; do
	name=trim-$be
	head -c 4M /dev/urandom >"$WORK/trim.dat"
	before=$(stat -c %b "$WORK/trim.dat")
	run_fio "$name" --name=t --ioengine=external:"$ENGINE" --backend=$be --filename="$WORK/trim.dat" \
		--size=4M --rw=randtrim --bs=64k --iodepth=4 --sched_stats="$WORK/$name.stats.json" \
		--sched_trace="$WORK/$name.trace" ||
		fail "$name: rc $? $(head -c 600 "$WORK/$name.err")"
	trims=$(pyjson "$WORK/$name.json" '
errs=[j["error"] for j in d["jobs"] if j["error"]]
assert not errs, errs
print(sum(j["trim"]["total_ios"] for j in d["jobs"]))') || fail "$name: job error"
	[ "$trims" -eq 64 ] || fail "$name: fio issued $trims trims, expected 64 (4 MiB / 64 KiB)"
	pyjson "$WORK/$name.stats.json" '
assert d["inserted"]==d["dispatched"]==d["completed"]=='"$trims"', ("sched", d["inserted"], d["dispatched"], d["completed"], "fio trims", '"$trims"')' ||
		fail "$name: the trims did not all pass through the scheduler"
	for ev in I D C; do
		n=$(grep -c " $ev T " "$WORK/$name.trace")
		[ "$n" -eq "$trims" ] || fail "$name: $n '$ev T' (discard) lines in sched_trace, expected $trims"
	done
	after=$(stat -c %b "$WORK/trim.dat")
	[ "$after" -eq 0 ] || fail "$name: $after 512-byte blocks still allocated after trimming all 4 MiB (before: $before)"
	cmp -s -n 4194304 "$WORK/trim.dat" /dev/zero || fail "$name: the trimmed file does not read back as zeros"
	echo "$name: $trims trims through the scheduler; blocks allocated $before -> $after, reads zeros"
done
# The block-device case (BLKDISCARD) needs a loop device: test_trim_blk.sh.
