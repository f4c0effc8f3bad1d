#!/usr/bin/env bash
# Device models (with deadline and with bfq), CFQ/deadline tunables as engine options, sched_trace,
# nr_requests, groups.
# Functional checks only (what holds however late a process wakes); the timing-dependent ones
# are in test_models_timing.sh.
# sanitizers: tsan
# timeout: 180
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

# sched=bfq through each model (300 ms each): BFQ in its blk-mq mode, the tunables given reach it
# (slice_idle_us, the 2017 profile on the hdd), it serves both jobs in budgets, nothing is lost.
for m in null ssd cloud-ssd hdd; do
	ver=$([ $m = hdd ] && echo 4.12 || echo 6.12)
	run_fio "bfq-$m" --name=m "${base[@]}" --device_model=$m --rw=randread --iodepth=4 \
		--numjobs=2 --time_based --runtime=300ms --sched=bfq --bfq_version=$ver --slice_idle_us=4000 \
		--sched_stats="$WORK/bfq-$m.stats.json" || fail "sched=bfq device_model=$m: $(cat "$WORK/bfq-$m.err")"
	read -r ios _ < <(fio_ok "$WORK/bfq-$m.json") || fail "sched=bfq device_model=$m: job error"
	pyjson "$WORK/bfq-$m.stats.json" '
m, p, t = d["device_model"], d["policy"], d["tunables"]
assert d["sched"]=="bfq" and d["blk_mode"]=="mq", (d["sched"], d["blk_mode"])
assert m["kind"]=="'"$m"'", m
assert d["completed"]==d["dispatched"]==d["inserted"]>0, (d["inserted"], d["dispatched"], d["completed"])
assert m["completed"]==d["completed"]=='"$ios"', (m["completed"], d["completed"], '"$ios"')
assert t["slice_idle_us"]==4000 and t["bfq_version"]=='"${ver/./}"'==p["version"], (t, p["version"])
assert p["budgets_assigned"]>0 and p["budget_max"]>=p["budget_min"]>0, p
served = sorted(j["completed"] for j in d["jobs"])
assert len(served)==2 and served[0]>0, served
print("bfq '"$m"'", d["completed"], "requests, jobs", served, "budgets", p["budgets_assigned"],
      "min/max", p["budget_min"], p["budget_max"])
' || fail "sched=bfq device_model=$m stats"
done

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
# What is in force shows in the idle timer: one sequential reader at depth 1 (always the last
# queue on its service tree, so CFQ idles for it when slice_idle > 0) on the null model, with
# group_idle at its default 8: with slice_idle 0 every arming is a group idle, with 8 none is.
# Explicit slice_idle=8 on rotational=0 is the control: the slice idle does arm there.
for case in "0:" "1:" "0:--slice_idle=8"; do
	rot=${case%%:*} extra=${case#*:}
	name=rot$rot${extra:+-si8}
	run_fio "$name" --name=r "${base[@]}" --sched=cfq --rotational=$rot --device_model=null \
		--rw=read --iodepth=1 --number_ios=200 $extra --sched_stats="$WORK/$name.json" ||
		fail "rotational=$rot $extra: $(cat "$WORK/$name.err")"
	read -r reported armed group_armed < <(pyjson "$WORK/$name.json" '
p=d["policy"]
print(d["tunables"]["slice_idle"], p["idle_timer_armed"], p["group_idle_armed"])') ||
		fail "$name: no tunables/policy in sched_stats"
	slice_armed=$((armed - group_armed))
	want=$([ "$rot" = 1 ] || [ -n "$extra" ] && echo 8 || echo 0)
	echo "rotational=$rot ${extra:-(default)}: reported slice_idle $reported; idle timer armed $armed" \
		"($group_armed for group idle, $slice_armed for slice idle); expected in force: $want"
	[ "$armed" -gt 0 ] || fail "$name: the idle timer never armed (a depth-1 reader must idle)"
	if [ "$want" = 8 ]; then
		[ "$slice_armed" -gt 0 ] || fail "$name: slice_idle 8 expected in force, but no slice idle armed"
		[ "$reported" = 8 ] || fail "$name: sched_stats reports slice_idle $reported, 8 in force"
	else
		[ "$slice_armed" -eq 0 ] ||
			fail "$name: slice_idle 0 expected in force (non-rotational default), but the slice idle armed $slice_armed times"
		# sched_stats shows the value in force, as cfq's sysfs file would read.
		[ "$reported" = 0 ] || fail "$name: sched_stats reports slice_idle $reported, 0 in force"
	fi
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

# nr_requests in the legacy block layer: 4 jobs x 32 deep on 16 requests: submitters wait, nothing is lost, and never more
# than 1.5 x nr_requests are allocated (blk-core's limit for batchers and MUST). Whether a woken
# submitter gets to batch depends on how soon it runs: test_models_timing.sh checks that.
run_fio nrreq --name=n "${base[@]}" --blk_mode=legacy --nr_requests=16 --device_model=ssd --rw=randread \
	--iodepth=32 --numjobs=4 --number_ios=2000 --sched_stats="$WORK/nr.json" ||
	fail "nr_requests: $(cat "$WORK/nrreq.err")"
pyjson "$WORK/nr.json" '
assert d["nr_requests"]==16 and d["admission_waits"]>0, (d["nr_requests"], d["admission_waits"])
assert d["completed"]==8000, d["completed"]
m = d["max_allocated"]["sync"]
assert 16 <= m <= 24, ("max allocated", m, "expected 16..24")
print("nr_requests=16: waits", d["admission_waits"], "max allocated", m, "batching", d["admitted_batching"])
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

# Groups and weights: the weights reach the policy (the shares they give: test_models_timing.sh).
run_fio groups "${base[@]}" --sched=cfq --device_model=null --rw=randread --iodepth=4 \
	--number_ios=500 --sched_stats="$WORK/g.json" \
	--name=a --sched_group=g1 --sched_weight=100 --name=b --sched_group=g2 --sched_weight=200 ||
	fail "groups: $(cat "$WORK/groups.err")"
pyjson "$WORK/g.json" '
g={x["group"]:x for x in d["groups"]}
assert g["g1"]["weight"]==100 and g["g2"]["weight"]==200, g
assert set(d["policy_groups"]) >= {"g1", "g2"}, d["policy_groups"]
' || fail "group weights"
echo "all model/tunable checks passed"
