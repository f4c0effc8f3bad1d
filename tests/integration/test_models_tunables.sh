#!/usr/bin/env bash
# Device models, CFQ/deadline tunables as engine options, sched_trace, nr_requests, groups.
. "$(dirname "$0")/../lib.sh"
truncate -s 64M "$WORK/t.dat"
base=(--ioengine=external:"$ENGINE" --filename="$WORK/t.dat" --size=64M --bs=4k --direct=1)

# Each model runs, touches no data (the file stays sparse zeros), and reports its stats.
for m in null ssd cloud-ssd hdd; do
	run_fio "model-$m" --name=m "${base[@]}" --device_model=$m --rw=randread --iodepth=16 \
		--numjobs=2 --time_based --runtime=1 --sched=deadline \
		--sched_stats="$WORK/$m.stats.json" || fail "device_model=$m: $(cat "$WORK/model-$m.err")"
	read -r ios _ < <(fio_ok "$WORK/model-$m.json") || fail "device_model=$m: job error"
	pyjson "$WORK/$m.stats.json" '
m=d["device_model"]
assert m["kind"]=="'"$m"'", m
assert m["completed"]==d["completed"]>0, (m, d["completed"])
assert d["rotational"]==('"$([ $m = hdd ] && echo True || echo False)"'), d["rotational"]
assert d["hw_queue_depth"]==m["queue_depth"]
print("'"$m"'", d["completed"], "requests, in flight mean", d["inflight_mean"])
' || fail "device_model=$m stats"
done
[ -z "$(tr -d '\0' <"$WORK/t.dat" | head -c1)" ] || fail "a device model wrote to the target"

# CFQ tunables are engine options; the idle timer is never armed with slice_idle=0.
for si in 8 0; do
	run_fio "cfq-$si" --name=c "${base[@]}" --sched=cfq --slice_idle=$si --group_idle=0 \
		--device_model=ssd --rw=randread --iodepth=4 --numjobs=3 --time_based --runtime=1 \
		--sched_stats="$WORK/cfq$si.json" --sched_trace="$WORK/cfq$si.trace" ||
		fail "cfq slice_idle=$si: $(cat "$WORK/cfq-$si.err")"
	pyjson "$WORK/cfq$si.json" '
p=d["policy"]
assert d["tunables"]["slice_idle"]=='"$si"', d["tunables"]
if '"$si"'==0: assert p["idle_timer_armed"]==0, p
assert p["slices_started"]>0
print("slice_idle='"$si"'", {k:p[k] for k in ("idle_timer_armed","idle_hits","slices_started","iops_mode")})
' || fail "cfq slice_idle=$si stats"
	grep -q " P cfq[0-9]" "$WORK/cfq$si.trace" || fail "sched_trace has no cfq_log lines"
	grep -qE " job[0-9]+ D R" "$WORK/cfq$si.trace" || fail "sched_trace has no dispatch lines"
done
# Default slice_idle follows the device: 0 on non-rotational (the 2015 fix), 8 on rotational.
for rot in 0 1; do
	run_fio "rot$rot" --name=r "${base[@]}" --sched=cfq --rotational=$rot --rw=read --number_ios=8 \
		--sched_stats="$WORK/rot$rot.json" || fail "rotational=$rot"
	pyjson "$WORK/rot$rot.json" 'print(d["tunables"]["slice_idle"])' >"$WORK/si"
done

# Bad tunables: out of range, wrong type, or not the chosen scheduler's.
for bad in "slice_idle=-1:slice_idle=-1: out of range" "quantum=abc:quantum=abc: not an integer" \
	"read_expire=10:read_expire: no such tunable for sched=cfq" "dev_queue_depth=0:dev_queue_depth"; do
	opt=${bad%%:*} pat=${bad#*:}
	timeout 30 "$FIO" --name=b "${base[@]}" --sched=cfq --"$opt" --rw=read --number_ios=4 \
		>"$WORK/out" 2>"$WORK/err" && fail "--$opt accepted"
	grep -q "^schedengine: .*$pat" "$WORK/err" || fail "--$opt: $(cat "$WORK/err")"
done
timeout 30 "$FIO" --name=b "${base[@]}" --device_model=ssd --verify=crc32c --rw=write \
	--number_ios=4 >"$WORK/out" 2>"$WORK/err" && fail "verify with a device model accepted"
grep -q "^schedengine: device_model=ssd moves no data" "$WORK/err" || fail "verify+model: $(cat "$WORK/err")"

# nr_requests in the legacy block layer: 4 jobs x 32 deep on 16 requests: submitters wait,
# nothing is lost; a woken submitter batches (ioc_batching) past the full list, never beyond
# 1.5 x nr_requests.
run_fio nrreq --name=n "${base[@]}" --blk_mode=legacy --nr_requests=16 --device_model=ssd --rw=randread \
	--iodepth=32 --numjobs=4 --number_ios=2000 --sched_stats="$WORK/nr.json" ||
	fail "nr_requests: $(cat "$WORK/nrreq.err")"
pyjson "$WORK/nr.json" '
assert d["nr_requests"]==16 and d["admission_waits"]>0, (d["nr_requests"], d["admission_waits"])
assert d["completed"]==8000, d["completed"]
m = d["max_allocated"]["sync"]
assert 16 < m <= 24 and d["admitted_batching"] > 0, (m, d["admitted_batching"])
' || fail "nr_requests stats"

# The same in blk-mq mode: 16 scheduler tags, never more in use, submitters wait for a tag.
run_fio nrmq --name=n "${base[@]}" --blk_mode=mq --nr_requests=16 --device_model=ssd --rw=randread \
	--iodepth=32 --numjobs=4 --number_ios=2000 --sched_stats="$WORK/mq.json" ||
	fail "nr_requests mq: $(cat "$WORK/nrmq.err")"
pyjson "$WORK/mq.json" '
assert d["blk_mode"]=="mq" and d["nr_requests"]==16 and d["admission_waits"]>0, d
assert d["completed"]==8000, d["completed"]
assert d["max_tags_used"]==16, d["max_tags_used"]
' || fail "nr_requests mq stats"

# Groups and weights, also from fio's cgroup= (fio itself is told no cgroup setup is wanted
# only where cgroup v1 blkio exists; here sched_group/sched_weight are the portable spelling).
run_fio groups "${base[@]}" --sched=cfq --device_model=hdd --rw=randread --iodepth=4 \
	--time_based --runtime=2 --sched_stats="$WORK/g.json" \
	--name=a --sched_group=g1 --sched_weight=100 --name=b --sched_group=g2 --sched_weight=200 ||
	fail "groups: $(cat "$WORK/groups.err")"
pyjson "$WORK/g.json" '
g={x["group"]:x for x in d["groups"]}
assert g["g1"]["weight"]==100 and g["g2"]["weight"]==200, g
assert g["g2"]["bytes"]>g["g1"]["bytes"], g
print("group shares", {k:round(v["share"],3) for k,v in g.items()})
' || fail "group weights"
echo "all model/tunable checks passed"
