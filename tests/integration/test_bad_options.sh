#!/usr/bin/env bash
# Every bad engine option stops fio before any I/O with one line naming the option, rc != 0.
# sanitizers: asan tsan
# timeout: 120
. "$(dirname "$0")/../lib.sh"
truncate -s 1M "$WORK/t.dat"
expect_error() { # expect_error OPTION=VALUE PATTERN
	local opt=$1 pat=$2 rc
	timeout 30 "$FIO" --name=b --ioengine=external:"$ENGINE" --"$opt" --filename="$WORK/t.dat" \
		--size=1M --rw=read >"$WORK/out" 2>"$WORK/err"
	rc=$?
	[ $rc -ne 0 ] || fail "--$opt: fio exited 0"
	[ $rc -ne 124 ] || fail "--$opt: fio hung"
	grep -qE "^schedengine: .*$pat" "$WORK/err" || fail "--$opt: no clear error line: $(cat "$WORK/err")"
	echo "ok: --$opt -> $(grep -m1 '^schedengine:' "$WORK/err")"
}
expect_error sched=foo 'sched=foo: unknown scheduler'
# CFQ's behaviour profile: an unknown version at parse, what the profile lacks at configuration
expect_error cfq_version=4.2 'cfq_version=4.2: must be 2.6.32, 2.6.36, 3.16, 4.1 or 4.19'
expect_error cfq_version=2.6 'cfq_version=2.6: must be 2.6.32, 2.6.36, 3.16, 4.1 or 4.19'
expect_error cfq_version=2.6.33 'cfq_version=2.6.33: must be 2.6.32'
expect_error cfq_sw_ns_clock=2 'cfq_sw_ns_clock=2: out of range'
for bad in "cfq_hz=300|cfq_hz=300: want 100, 250 or 1000" \
	"cfq_version=4.1 --slice_idle_us=100|slice_idle_us: no such tunable with cfq_version=4.1" \
	"cfq_version=2.6.36 --target_latency=600|target_latency: no such tunable with cfq_version=2.6.36" \
	"cfq_version=2.6.36 --group_isolation=1 --cfq_sw_noidle_in_group=1|group_isolation: no such tunable with cfq_version=2.6.36" \
	"cfq_version=2.6.32 --group_idle=0|group_idle: no such tunable with cfq_version=2.6.32"; do
	# shellcheck disable=SC2086 # the options split at their space
	timeout 30 "$FIO" --name=b --ioengine=external:"$ENGINE" --sched=cfq --${bad%%|*} \
		--filename="$WORK/t.dat" --size=1M --rw=read >"$WORK/out" 2>"$WORK/err" &&
		fail "sched=cfq --${bad%%|*}: fio exited 0"
	grep -q "^schedengine: ${bad#*|}" "$WORK/err" || fail "--${bad%%|*}: $(cat "$WORK/err")"
	echo "ok: sched=cfq --${bad%%|*} -> $(grep -m1 '^schedengine:' "$WORK/err")"
done
expect_error backend=spdk 'backend=spdk: unknown backend'
expect_error hw_queue_depth=-1 'hw_queue_depth=-1: must be an integer in 1..65536'
expect_error hw_queue_depth=0 'hw_queue_depth=0: must be an integer'
expect_error hw_queue_depth=65537 'hw_queue_depth=65537: must be an integer'
expect_error hw_queue_depth=12abc 'hw_queue_depth=12abc: must be an integer'
expect_error rotational=2 'rotational=2: must be 0, 1 or auto'
expect_error nomerges=3 'nomerges=3: must be an integer in 0..2'
expect_error nomerges=on 'nomerges=on: must be an integer in 0..2'
expect_error sched_weight=5 'sched_weight=5: must be an integer in 10..1000'
expect_error sched_weight=1001 'sched_weight=1001: must be an integer in 10..1000'
expect_error sched_group=a/b 'sched_group=a/b: use 1..63'
expect_error sched_domain=../x 'sched_domain=../x: use 1..63'
expect_error sched_stats="$WORK/missing/s.json" "sched_stats=$WORK/missing/s.json: directory $WORK/missing is not writable"
expect_error writeback=always 'writeback=always: must be none or fsync'
expect_error writeback=fsync 'writeback=fsync needs a device_model'
expect_error pagecache=yes 'pagecache=yes: must be auto, none, on, 6.12 or 2.6.29'
expect_error pagecache_mb=8 'pagecache_mb=8: must be an integer in 16..65536'
expect_error pagecache_mb=1g 'pagecache_mb=1g: must be an integer'
# the page cache's kernel tunables: their ranges, the page cache they need, one of each pair
expect_error dirty_ratio=101 'dirty_ratio=101: out of range 0..100'
expect_error read_ahead_kb=big 'read_ahead_kb=big: not a non-negative integer'
expect_error buffer_head_writeback=2 'buffer_head_writeback=2: out of range 0..1'
# a bio per page merges only where the engine merges: with a device model
expect_error buffer_head_writeback=1 'buffer_head_writeback=1 needs a device_model'
# with pagecache=none (the default, auto, takes them for the domain's page cache)
timeout 30 "$FIO" --name=b --ioengine=external:"$ENGINE" --pagecache=none --dirty_background_ratio=10 \
	--filename="$WORK/t.dat" --size=1M --rw=read >"$WORK/out" 2>"$WORK/err" &&
	fail "dirty_background_ratio with pagecache=none: fio exited 0"
grep -q '^schedengine: .*dirty_background_ratio=10: needs pagecache=on' "$WORK/err" ||
	fail "dirty_background_ratio with pagecache=none: $(cat "$WORK/err")"
# kyber's latency targets: ns, non-negative integers (the kernel's kstrtoull(); up to 2^63-1 here)
expect_error read_lat_nsec=-1 'read_lat_nsec=-1: out of range 0..9223372036854775807'
expect_error write_lat_nsec=10ms 'write_lat_nsec=10ms: not an integer'
expect_error read_lat_nsec=9223372036854775808 'read_lat_nsec=9223372036854775808: out of range 0..9223372036854775807'
timeout 30 "$FIO" --name=b --ioengine=external:"$ENGINE" --sched=deadline --read_lat_nsec=1000000 \
	--filename="$WORK/t.dat" --size=1M --rw=read >"$WORK/out" 2>"$WORK/err" &&
	fail "read_lat_nsec with sched=deadline: fio exited 0"
grep -q '^schedengine: .*read_lat_nsec: no such tunable for sched=deadline' "$WORK/err" ||
	fail "read_lat_nsec with sched=deadline: no clear error line: $(cat "$WORK/err")"
echo "ok: --sched=deadline --read_lat_nsec -> $(grep -m1 '^schedengine:' "$WORK/err")"
timeout 30 "$FIO" --name=b --ioengine=external:"$ENGINE" --pagecache=on --dirty_ratio=40 \
	--dirty_bytes=1048576 --filename="$WORK/t.dat" --size=1M --rw=read >"$WORK/out" 2>"$WORK/err" &&
	fail "dirty_ratio with dirty_bytes: fio exited 0"
grep -q '^schedengine: dirty_ratio and dirty_bytes: give one of the two' "$WORK/err" ||
	fail "dirty_ratio with dirty_bytes: no clear error line: $(cat "$WORK/err")"
timeout 30 "$FIO" --name=b --ioengine=external:"$ENGINE" --pagecache=on --device_model=hdd \
	--writeback=fsync --fsync=4 --filename="$WORK/t.dat" --size=1M --rw=write >"$WORK/out" 2>"$WORK/err" &&
	fail "pagecache=on with writeback=fsync: fio exited 0"
grep -q '^schedengine: pagecache=on and writeback=fsync: choose one' "$WORK/err" ||
	fail "pagecache=on with writeback=fsync: no clear error line: $(cat "$WORK/err")"

# Every built scheduler runs and is the one in force; one that is not built yet (bfq until it
# lands) is refused with exactly that message and rc != 0.
for s in none deadline cfq bfq kyber; do
	timeout 30 "$FIO" --name=b --ioengine=external:"$ENGINE" --sched=$s --direct=1 --filename="$WORK/t.dat" \
		--size=1M --rw=read --output="$WORK/out" --sched_stats="$WORK/s-$s.json" 2>"$WORK/err"
	rc=$?
	if [ $rc -eq 0 ]; then
		pyjson "$WORK/s-$s.json" 'assert d["sched"]=="'"$s"'", ("in force", d["sched"]); assert d["completed"]==256, d["completed"]' ||
			fail "sched=$s: fio exited 0 but the stats do not show $s completing 256 requests"
		echo "ok: sched=$s runs"
	elif [ $s = bfq ] && grep -q "^schedengine: sched=$s: not built yet" "$WORK/err"; then
		echo "ok: sched=$s -> not built yet (rc $rc)"
	else
		fail "sched=$s: rc $rc: $(head -c 400 "$WORK/err")"
	fi
done

# Options from a job file get the same checks.
cat >"$WORK/bad.fio" <<EOF2
[global]
ioengine=external:$ENGINE
filename=$WORK/t.dat
size=1M
[j]
hw_queue_depth=-4
EOF2
"$FIO" "$WORK/bad.fio" >"$WORK/out" 2>"$WORK/err" && fail "job file with hw_queue_depth=-4 accepted"
grep -q '^schedengine: hw_queue_depth=-4' "$WORK/err" || fail "job file: $(cat "$WORK/err")"

# Jobs of one run share one scheduler: differing device settings are refused, by name.
cat >"$WORK/mismatch.fio" <<EOF2
[global]
ioengine=external:$ENGINE
filename=$WORK/t.dat
size=1M
rw=read
[a]
hw_queue_depth=8
[b]
hw_queue_depth=16
EOF2
timeout 30 "$FIO" "$WORK/mismatch.fio" >"$WORK/out" 2>"$WORK/err" && fail "mismatched jobs accepted"
grep -qE "^schedengine: job [ab]: hw_queue_depth: (16|8) in job [ab], (8|16) in job [ab]" "$WORK/err" ||
	fail "mismatch: $(cat "$WORK/err")"

# Two jobs claiming different weights for one group (of CFQ: none and deadline have no groups).
timeout 30 "$FIO" --ioengine=external:"$ENGINE" --sched=cfq --filename="$WORK/t.dat" --size=1M --rw=read \
	--name=a --sched_group=g --sched_weight=100 --name=b --sched_group=g --sched_weight=200 \
	>"$WORK/out" 2>"$WORK/err" && fail "conflicting group weights accepted"
grep -q "^schedengine: sched_weight=.*group g already has weight" "$WORK/err" ||
	fail "weights: $(cat "$WORK/err")"

# An engine option fio does not know is fio's own error, still non-zero.
"$FIO" --name=b --ioengine=external:"$ENGINE" --slice_idel=8 --filename="$WORK/t.dat" --size=1M \
	>"$WORK/out" 2>&1 && fail "unknown option accepted"
echo "all bad options refused"
