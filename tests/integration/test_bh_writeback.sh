#!/usr/bin/env bash
# A raw block device's writeback is a bio per 4 KiB buffer head, merged in the flusher's plug
# (issue 35: the async-writer cross-check's kernel side merged 210,058 writes in 8 s where the
# engine's page cache, sending extents, merged none). buffer_head_writeback: unset, 1 on a block
# device with a device_model, 0 on a file; either way the device sees requests of the same size,
# only /sys/block's writes_merged (the engine's diskstat) tells them apart.
# Needs root and a loop device (the model does the timing; the device is only the target).
# sanitizers: asan
# timeout: 120
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root for a loop device"
make_loop 2G
truncate -s 2G "$WORK/t.dat"

run() { # run NAME TARGET [OPTION...]: a buffered sequential writer for 2 s; prints "requests merged KiB"
	local name=$1 target=$2
	shift 2
	timeout 60 "$FIO" --name="$name" --ioengine=external:"$ENGINE" --sched=deadline \
		--device_model=hdd --pagecache=on --dirty_bytes=33554432 \
		--dirty_background_bytes=16777216 --max_sectors_kb=512 \
		--sched_stats="$WORK/$name.json" --filename="$target" --rw=write --bs=64k \
		--size=1G --time_based=1 --runtime=2 "$@" >"$WORK/$name.out" 2>&1 ||
		fail "$name: fio failed: $(tail -3 "$WORK/$name.out")"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["diskstat"]
assert d["writes"] > 0, d
print(d["writes"], d["writes_merged"], d["write_sectors"] // 2 // d["writes"])' "$WORK/$name.json"
}

read -r bdev_rq bdev_merged bdev_kib <<<"$(run bdev "$LOOP_DEV")"
read -r ext_rq ext_merged ext_kib <<<"$(run bdev-extents "$LOOP_DEV" --buffer_head_writeback=0)"
read -r file_rq file_merged file_kib <<<"$(run file "$WORK/t.dat")"
read -r filebh_rq filebh_merged filebh_kib <<<"$(run file-bh "$WORK/t.dat" --buffer_head_writeback=1)"
echo "block device (default): $bdev_rq writes of $bdev_kib KiB, $bdev_merged merged"
echo "block device, buffer_head_writeback=0: $ext_rq writes of $ext_kib KiB, $ext_merged merged"
echo "file (default): $file_rq writes of $file_kib KiB, $file_merged merged"
echo "file, buffer_head_writeback=1: $filebh_rq writes of $filebh_kib KiB, $filebh_merged merged"
# a bio per page: nearly every page of a request merged into it (128 pages, 127 merges)
[ "$bdev_merged" -ge $((bdev_rq * 100)) ] || fail "block device: $bdev_merged merges for $bdev_rq writes"
[ "$filebh_merged" -ge $((filebh_rq * 100)) ] || fail "file-bh: $filebh_merged merges for $filebh_rq writes"
# extents: already whole requests, nothing merges
[ "$ext_merged" -eq 0 ] || fail "block device, extents: $ext_merged merges"
[ "$file_merged" -eq 0 ] || fail "file: $file_merged merges"
# the same requests reach the device: 512 KiB (max_sectors_kb, 128 segments)
for k in "$bdev_kib" "$ext_kib" "$file_kib" "$filebh_kib"; do
	[ "$k" -ge 448 ] && [ "$k" -le 512 ] || fail "mean write request $k KiB, not about 512"
done
echo "PASS"
