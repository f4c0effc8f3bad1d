#!/usr/bin/env bash
# The model-backed block device (build/modeldev): a loop device with direct I/O over a FUSE file
# whose every request completes when the engine's device model says so. Checks the queue set-up
# (rotational, the device's tags = the model's queue depth, direct I/O), concurrency (requests in
# the model at once), one model request per 512 KiB block request, data kept (fio verify), discard,
# the daemon's statistics against fio's counts, kernel none vs embedded none on the hdd model at
# QD1, and that nothing is left mounted or attached. Skips where FUSE or loop are refused.
# exclusive: kernel and embedded median latencies within 25%
. "$(dirname "$0")/../lib.sh"
. "$TOP/modeldev/test-helpers.sh"
md_require

note "cloud-ssd: queue set-up"
md_start c --model cloud-ssd --size 4G
q=/sys/block/${MD_DEV#/dev/}/queue
[ "$(cat /sys/block/${MD_DEV#/dev/}/loop/dio)" = 1 ] || fail "direct I/O is off on $MD_DEV"
[ "$(cat $q/rotational)" = 0 ] || fail "cloud-ssd: rotational $(cat $q/rotational)"
[ "$(md_json info c 'd["tags"]')" = 64 ] || fail "tags: $(md_json info c 'd["tags"]')"
[ "$(md_json info c 'd["fuse"]["max_pages"]')" = 256 ] || fail "FUSE max_pages $(md_json info c 'd["fuse"]')"
[ "$(md_json info c 'd["fuse"]["max_background"]')" -ge 64 ] || fail "FUSE max_background"

note "concurrency: QD1 vs QD8 4k random reads, requests in the model at once"
md_ctl reset c >/dev/null || fail "reset refused"
md_fio_kernel qd1 "$MD_DEV" --rw=randread --bs=4k --iodepth=1 --runtime=2 --time_based || fail "fio qd1: $(cat $WORK/qd1.err)"
md_ctl reset c >/dev/null
md_fio_kernel qd8 "$MD_DEV" --rw=randread --bs=4k --iodepth=8 --runtime=2 --time_based || fail "fio qd8: $(cat $WORK/qd8.err)"
inm=$(md_json stats c 'd["depth"]["max_in_model"]')
[ "$inm" = 8 ] || fail "QD8: at most $inm requests reached the model at once (want 8)"
i1=$(pyjson "$WORK/qd1.json" 'print(int(d["jobs"][0]["read"]["iops"]))')
i8=$(pyjson "$WORK/qd8.json" 'print(int(d["jobs"][0]["read"]["iops"]))')
echo "cloud-ssd 4k random reads: QD1 $i1 IOPS, QD8 $i8 IOPS (model: 0.91k, 7.28k)"
[ "$i8" -gt $((i1 * 3)) ] || fail "QD8 ($i8) is not more than 3x QD1 ($i1): requests serialised?"

note "the device's tags hold the kernel to the model's depth (QD128 on 64 tags)"
md_ctl reset c >/dev/null
md_fio_kernel qd128 "$MD_DEV" --rw=randread --bs=4k --iodepth=128 --runtime=1 --time_based || fail "fio qd128"
[ "$(md_json stats c 'd["depth"]["max_outstanding"]')" -le 64 ] || fail "more than 64 requests reached the daemon: $(md_json stats c 'd["depth"]')"

note "a 512 KiB block request is one model request"
md_ctl reset c >/dev/null
md_fio_kernel big "$MD_DEV" --rw=read --bs=512k --iodepth=4 --size=64m || fail "fio 512k"
hist=$(md_json stats c 'd["size_hist"]')
[ "$hist" = "{'524288': 128}" ] || fail "64 MiB in 512 KiB reads: size histogram $hist (want 128 x 524288)"

note "data is kept: write + verify, then discard reads back zeros"
md_ctl reset c >/dev/null
md_fio_kernel verify "$MD_DEV" --rw=randwrite --bs=4k --iodepth=16 --size=16m --verify=crc32c --do_verify=1 ||
	fail "fio verify: $(cat $WORK/verify.err)"
read -r ios _ <<<"$(fio_ok "$WORK/verify.json")" || fail "verify job error"
st=$(md_json stats c '"%d %d" % (d["requests"]["read"] + d["requests"]["write"], d["requests"]["errors"])')
[ "${st% *}" -ge "$ios" ] || fail "the daemon saw ${st% *} reads+writes, fio did $ios"
[ "${st#* }" = 0 ] || fail "daemon errors: $st"
md_fio_kernel verify64k "$MD_DEV" --rw=write --bs=64k --iodepth=4 --offset=1g --size=32m --verify=md5 ||
	fail "fio verify 64k: $(cat $WORK/verify64k.err)"
head -c 1048576 /dev/urandom | dd of="$MD_DEV" bs=1M seek=2048 oflag=direct status=none || fail "dd write"
blkdiscard -o $((2048 << 20)) -l $((1 << 20)) "$MD_DEV" || fail "blkdiscard"
nz=$(dd if="$MD_DEV" bs=1M skip=2048 count=1 iflag=direct status=none | tr -d '\0' | wc -c)
[ "$nz" = 0 ] || fail "after discard: $nz non-zero bytes"
[ "$(md_json stats c 'd["requests"]["discard"]')" -ge 1 ] || fail "no discard reached the model"

note "hdd: rotational, kernel none vs embedded none at QD1 (4k random reads, same offsets)"
md_start h --model hdd
q=/sys/block/${MD_DEV#/dev/}/queue
[ "$(cat $q/rotational)" = 1 ] || fail "hdd: rotational $(cat $q/rotational)"
[ "$(md_json info h 'd["tags"]')" = 32 ] || fail "hdd tags"
md_fio_kernel hk "$MD_DEV" --rw=randread --bs=4k --iodepth=1 --runtime=3 --time_based || fail "fio hdd kernel"
img=$WORK/sparse.img
truncate -s "$(md_json info h 'd["size"]')" "$img"
run_fio he --name=j --filename="$img" --ioengine=external:"$ENGINE" --sched=none --backend=libaio \
	--device_model=hdd --rw=randread --bs=4k --direct=1 --iodepth=1 --runtime=3 --time_based ||
	fail "fio hdd embedded: $(cat $WORK/he.err)"
# medians: a loaded machine delays some wake-ups by milliseconds, and the kernel path has more
# of them (fio, the loop worker); the calibration (scripts/modeldev-calibrate) measures means
p50='print(d["jobs"][0]["read"]["clat_ns"]["percentile"]["50.000000"] / 1e6)'
ik=$(pyjson "$WORK/hk.json" "$p50")
ie=$(pyjson "$WORK/he.json" "$p50")
echo "hdd 4k random QD1, median latency: kernel none $ik ms, embedded none $ie ms"
python3 -c "import sys; k,e=$ik,$ie; sys.exit(0 if abs(e/k-1) < 0.25 else 1)" ||
	fail "median latency kernel $ik ms vs embedded $ie ms: more than 25% apart"

note "stop: nothing mounted or attached"
md_cleanup
md_expect_clean 10
echo "ok"
