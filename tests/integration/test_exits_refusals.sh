#!/usr/bin/env bash
# Refused before any I/O what can be known up front; statistics on every exit path; an I/O
# error completes its io_u once, with the error (issue "The domain survives every way a job can
# stop...", cases 3, 4, 5, 6).
. "$(dirname "$0")/../lib.sh"

# ---- refused up front, naming the option, before fio writes anything -------------------------
refuse() { # name expected-message fio-args...
	local name=$1 want=$2
	shift 2
	rm -rf "$WORK/t"
	mkdir -p "$WORK/t"
	timeout 60 "$FIO" --ioengine=external:"$ENGINE" --directory="$WORK/t" --size=256k --bs=4k \
		"$@" >"$WORK/$name.out" 2>&1 && fail "$name: accepted"
	grep -q "$want" "$WORK/$name.out" || fail "$name: no '$want' in: $(grep -m2 schedengine "$WORK/$name.out")"
	[ -z "$(ls -A "$WORK/t")" ] || fail "$name: refused only after fio wrote $(ls "$WORK/t")"
	echo "refused: $(grep -m1 '^schedengine' "$WORK/$name.out")"
}
# Two sections of one run that disagree on the scheduler (they would share one).
refuse twosched "job b: sched: deadline in job b, cfq in job a: the jobs of scheduler domain 'default' share" \
	--name=a --sched=cfq --rw=read --name=b --sched=deadline --rw=read
refuse twotun "job b: slice_idle: 0 in job b, 8 in job a: the jobs of scheduler domain 'default' share" \
	--name=a --sched=cfq --rw=read --name=b --sched=cfq --slice_idle=0 --rw=read
refuse twopc "job b: pagecache: none in job b, 6.12 (pagecache_mb=1024) in job a: the jobs of scheduler domain 'default' share" \
	--name=a --pagecache=on --rw=read --name=b --pagecache=none --rw=read
# Not refused: one job's file exists, the other's is laid out by fio later; both are on the same
# file system, so the same device (its nr_tags is hw_queue_depth's default for both).
mkdir -p "$WORK/lay" && truncate -s 256k "$WORK/lay/old.dat"
"$FIO" --ioengine=external:"$ENGINE" --output=/dev/null --size=256k --bs=4k --directory="$WORK/lay" \
	--name=a --rw=read --filename=old.dat --name=b --rw=write --filename=new.dat >"$WORK/lay.out" 2>&1 ||
	fail "a job whose file exists beside one whose file does not: $(grep -m1 schedengine "$WORK/lay.out")"
# More jobs than the domain is told to hold.
refuse capacity "job a: more than 11 jobs in scheduler domain 'default'" \
	--name=a --rw=read --numjobs=20 --sched_domain_jobs=11
# Statistics and trace paths that could not be written at the end.
refuse statsdir "sched_stats=$WORK: is a directory" --name=a --rw=read --sched_stats="$WORK"
refuse statsnodir "sched_stats=/nonexistent/s.json: directory /nonexistent is not writable" \
	--name=a --rw=read --sched_stats=/nonexistent/s.json
refuse tracenodir "sched_trace=/nodir/x: directory /nodir is not writable" \
	--name=a --rw=read --sched_trace=/nodir/x
# Directories root may "write" by access() but where no file can be created (the stats were
# lost at the end, fio's exit 0).
refuse statsproc "sched_stats=/proc/nope.json: " --name=a --rw=read --sched_stats=/proc/nope.json
refuse tracesys "sched_trace=/sys/nope: " --name=a --rw=read --sched_trace=/sys/nope
# Options that conflict: refused before fio lays out the file (it wrote 256k first).
refuse wbnomodel "writeback=fsync needs a device_model" --name=a --rw=randwrite --writeback=fsync
# Options that would change nothing: another model's parameter, a model parameter without a
# model (real I/O was done).
refuse otherkind "ssd_units=8: not a parameter of device_model=hdd" --name=a --rw=read \
	--device_model=hdd --ssd_units=8
refuse nomodel "hdd_rpm=5400: a device-model parameter, but no device_model is chosen" \
	--name=a --rw=read --hdd_rpm=5400

# ---- a run sized from its job file: 300 jobs in one domain (more than the old 256) ----------
run_fio many --name=m --ioengine=external:"$ENGINE" --directory="$WORK" --size=64k --bs=4k \
	--rw=read --direct=1 --numjobs=300 --filename=many.dat --sched_stats="$WORK/many.stats.json" ||
	fail "300 jobs: $(tail -n3 "$WORK/many.err")"
pyjson "$WORK/many.stats.json" '
assert len(d["jobs"]) == 300 and all(j["completed"] == 16 for j in d["jobs"]), len(d["jobs"])
' || fail "300 jobs: stats"
note "300 jobs in one domain"

# ---- sched_stats on every exit path ------------------------------------------------------------
# A member killed on a device model: the others finish, the statistics are written, the dead
# member is marked (it used to be lost with a model).
# (runtime 8 s: on a loaded machine 3 s passed while this script counted the jobs)
timeout 60 "$FIO" --output-format=json --output="$WORK/kill.json" --name=k \
	--ioengine=external:"$ENGINE" --device_model=ssd --directory="$WORK" --size=8M \
	--rw=randread --bs=4k --iodepth=8 --numjobs=3 --time_based --runtime=8 \
	--sched_stats="$WORK/kill.stats.json" 2>"$WORK/kill.err" &
p=$!
# fio forks its jobs one by one: wait for all three (a loaded machine takes more than a second).
fp= n=0
for _ in $(seq 100); do
	fp=$(pgrep -P "$p" -x fio | head -n1)
	[ -n "$fp" ] && n=$(pgrep -P "$fp" | wc -l) && [ "$n" -ge 3 ] && break
	sleep 0.1
done
[ "$n" -ge 3 ] || fail "kill on a device model: fio's jobs did not start within 10 s ($n)"
sleep 0.5
victim=$(pgrep -P "$fp" | head -n1)
[ -n "$victim" ] || fail "kill on a device model: the jobs ended before the kill"
kill -9 "$victim"
wait "$p"
[ -s "$WORK/kill.stats.json" ] || fail "no sched_stats after a member died on a device model"
pyjson "$WORK/kill.stats.json" '
died = [j for j in d["jobs"] if j["died"]]
assert len(died) == 1, d["jobs"]
assert d["stray_completions"] == 0
' || fail "stats after the kill"
# Every member killed at once (fio itself too): the device context writes them.
rm -f "$WORK/all.stats.json"
timeout 60 "$FIO" --name=a --ioengine=external:"$ENGINE" --device_model=hdd --directory="$WORK" \
	--size=8M --rw=randread --bs=4k --numjobs=2 --time_based --runtime=30 \
	--sched_stats="$WORK/all.stats.json" >/dev/null 2>&1 &
p=$!
# both jobs forked (a loaded machine takes more than a second), then time to join the domain
fp= n=0
for _ in $(seq 100); do
	fp=$(pgrep -P "$p" -x fio | head -n1)
	[ -n "$fp" ] && n=$(pgrep -P "$fp" | wc -l) && [ "$n" -ge 2 ] && break
	sleep 0.1
done
[ "$n" -ge 2 ] || fail "kill all: fio's jobs did not start within 10 s ($n)"
sleep 1
kill -9 $(pgrep -P "$fp") "$fp"
wait "$p" 2>/dev/null
for _ in $(seq 40); do [ -s "$WORK/all.stats.json" ] && break; sleep 0.1; done
pyjson "$WORK/all.stats.json" '
assert len(d["jobs"]) == 2 and all(j["died"] for j in d["jobs"]), d["jobs"]
' || fail "stats after every member was killed"
note "sched_stats written when a member died and when all did"

# ---- an I/O error: completed once, with the error, through fio ---------------------------------
# /dev/full refuses every write (ENOSPC; EINVAL through libaio, as with fio's own libaio
# engine): fio must see the kernel's error, the domain no stray or missing completion.
for be in io_uring libaio psync; do
	want=28
	[ "$be" = libaio ] && want=22
	run_fio "full-$be" --name=f --ioengine=external:"$ENGINE" --backend="$be" --filename=/dev/full \
		--rw=write --bs=4k --size=64k --iodepth=4 --continue_on_error=write \
		--sched_stats="$WORK/full-$be.stats.json"
	pyjson "$WORK/full-$be.json" '
j = d["jobs"][0]
assert j["error"] == '"$want"', (j["error"], j.get("total_err"))
print("'"$be"': fio error %d, %d errors counted" % (j["error"], j.get("total_err", 0)))
' || fail "$be: the ENOSPC errors did not reach fio"
	pyjson "$WORK/full-$be.stats.json" '
assert d["stray_completions"] == 0, d["stray_completions"]
j = d["jobs"][0]
assert j["completed"] == j["inserted"] > 0, (j["completed"], j["inserted"])
' || fail "$be: an error completion was lost or doubled"
done
echo "all refusal and exit checks passed"
