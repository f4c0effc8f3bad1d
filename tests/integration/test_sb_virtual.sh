#!/usr/bin/env bash
# Virtual-time cells (clock = virtual): the seed matrices' verbatim job files through the
# simulator (build/schedsim, reading them with fio --showcmd), stored as fio output, every report
# working on them; what the simulator does not model refused by name before anything runs.
# Speed is printed, not asserted.
. "$(dirname "$0")/schedbench_lib.sh"
SIM="$TOP/$BUILD/schedsim"
case $BUILD in /*) SIM="$BUILD/schedsim" ;; esac
ENG=$(dirname "$SIM")/libschedengine.so
[ -x "$SIM" ] || { echo "SKIP: $SIM not built"; exit 77; }
cd "$T"
# The 2015 matrix without merging (engine.nomerges=2): with the kernel's default (0) the random
# offsets decide which reads find an adjacent queued one (256m regions: 21-24 bios merged a run on
# cloud-ssd, 54-56 on ssd, of ~36,000 and ~100,000 reads), so
# the cloud-ssd cells, whose model does not care where a read is, would vary with the seed too;
# the exact-difference check below needs a row that repeats itself.
mkdir -p "$T/m15"
cp "$TOP/jobs/cfq-iops-mode-on-ssd-2015/"* "$T/m15/" # job files, published.csv, seed_report.py
sed '/^\[set\]/a engine.nomerges = 2' "$TOP/jobs/cfq-iops-mode-on-ssd-2015/matrix.ini" >"$T/m15/matrix.ini"
M15="$T/m15/matrix.ini"
start=$(date +%s.%N)
"$SB" run "$M15" --db "$T/db.sqlite" --clock virtual >r15.log 2>&1 || { cat r15.log; fail "2015 in virtual time"; }
echo "2015 matrix in virtual time: $(python3 -c "print(f'{$(date +%s.%N) - $start:.2f}')") s of wall time (8 runs)"
[ "$(q "SELECT count(*) FROM runs WHERE status = 'ok' AND clock = 'virtual'")" = 8 ] || fail "8 virtual runs"
[ "$(q "SELECT count(*) FROM runs WHERE clock <> 'virtual'")" = 0 ] || fail "a real run"
# fio's JSON shape: jobs[] with read blocks, percentiles, the engine's statistics
[ "$(q "SELECT count(*) FROM results WHERE ddir = 'read' AND iops > 0 AND clat_p99_ns > 0 AND lat_mean_ns > 0")" = 8 ] ||
	fail "results rows"
[ "$(q "SELECT DISTINCT json_extract(sched_stats, '$.clock') FROM runs")" = virtual ] || fail "sched_stats"
q "SELECT json_extract(sched_stats, '$.policy.slices_started') FROM runs" | grep -qv '^0*$' || fail "no CFQ counters"
[ "$(q "SELECT count(DISTINCT json_extract(provenance, '$.simulator.sha256')) FROM runs")" = 1 ] || fail "simulator identity"
# the repetition is the seed: the ssd cells' two repetitions are not the same run
[ "$(q "SELECT count(DISTINCT x.iops) FROM runs r JOIN results x ON x.run_id = r.id WHERE r.cell_name = 'device=ssd idling=Off'")" = 2 ] ||
	fail "the repetitions of a random workload are identical"
# the simulator's numbers are the engine's policies on the model: the On row as the unit tests have it
on=$(q "SELECT round(avg(x.iops)) FROM runs r JOIN results x ON x.run_id = r.id WHERE r.cell_name = 'device=cloud-ssd idling=On'")
python3 -c "import sys; sys.exit(0 if 6400 < $on < 7900 else 1)" || fail "cloud-ssd On: $on IOPS (the unit tests: 7120)"
# every report works on them
"$SB" report --db "$T/db.sqlite" -e cfq-iops-mode-on-ssd-2015 >rep.txt 2>&1 || { cat rep.txt; fail "report"; }
grep -q '^clock  *virtual (the simulator)' rep.txt || fail "the report does not say virtual"
grep -q 'ours (n=2' rep.txt || fail "no rows of ours in the seed table"
# the statistics table's idle columns say what sched/cfq*.c counts: idle_hits is per request (a
# period can count many, the demo had 158 against 8 arms), idle_timer_armed per idle period
grep -Eq '^configuration .* idle-arm idle-rqs idle-exp ' rep.txt || fail "sched_stats heading: $(grep '^configuration' rep.txt)"
grep -q '^idle-arm = idle periods: .*; idle-rqs = requests, not periods: .*one period can count many; idle-exp = CFQ idle periods' rep.txt ||
	fail "sched_stats legend: $(grep 'idle-arm' rep.txt)"
"$SB" report --db "$T/db.sqlite" -e cfq-iops-mode-on-ssd-2015 --compare --csv "$T/out.csv" >cmp.txt 2>&1 ||
	{ cat cmp.txt; fail "compare/csv"; }
# a third repetition: the cloud-ssd cells (a sequential-offset workload) repeat themselves exactly,
# so their difference is marked exact ('='), not significant ('*'): there is no variance to test
"$SB" run "$M15" --db "$T/db.sqlite" --clock virtual --repeat 3 \
	>r3.log 2>&1 || { cat r3.log; fail "third repetition"; }
"$SB" report --db "$T/db.sqlite" -e cfq-iops-mode-on-ssd-2015 --compare >cmp3.txt 2>&1 || { cat cmp3.txt; fail "compare n=3"; }
grep -E '^Hmean +iops-cloud-ssd ' cmp3.txt | grep -q '%)=$' ||
	fail "zero-variance row not marked exact: $(grep -E '^(Stddev|Hmean) +iops-cloud-ssd ' cmp3.txt)"
grep -E '^Hmean +iops-ssd ' cmp3.txt | grep -q '%)=$' && fail "a row with variance marked exact"
# stonewall phases (2014: write, then read) and groups in fio's JSON
"$SB" run "$TOP/jobs/cfq-target-latency-600ms-2014/matrix.ini" --db "$T/db.sqlite" --clock virtual --repeat 1 \
	>r14.log 2>&1 || { cat r14.log; fail "2014"; }
[ "$(q "SELECT group_concat(DISTINCT x.ddir || x.groupid) FROM runs r JOIN results x ON x.run_id = r.id WHERE r.experiment = 'cfq-target-latency-600ms-2014'")" = "write0,read1" ] ||
	fail "2014 phases: $(q "SELECT group_concat(DISTINCT x.ddir || x.groupid) FROM runs r JOIN results x ON x.run_id = r.id WHERE r.experiment = 'cfq-target-latency-600ms-2014'")"
# the engine's page cache in virtual time (pagecache=, pagecache_mb): 4 KiB buffered reads reach
# the device as read-ahead windows; a cache smaller than the data paces the writer to the disk
pcjob() { # EXTRA-LINES...
	printf '[global]\nioengine=external:%s\ndevice_model=hdd\nsched=cfq\nfilename=%s\ndirect=0\nbs=4k\n' \
		"$ENG" "$T/pc.dat"
	printf '%s\n' "$@"
}
pcjob "[r]" rw=read size=16m pagecache=none >pc0.fio
pcjob "[r]" rw=read size=16m pagecache=on >pc1.fio
pcjob "[r]" rw=read size=16m >pcd.fio # pagecache=auto, the default: buffered, so the cache
for f in pc0 pc1 pcd; do
	"$SIM" --stats "$f.stats.json" --output "$f.json" "$f.fio" >"$f.out" 2>&1 || { cat "$f.out"; fail "schedsim $f"; }
done
n0=$(python3 -c "import json; print(json.load(open('pc0.stats.json'))['completed'])")
n1=$(python3 -c "import json; print(json.load(open('pc1.stats.json'))['completed'])")
nd=$(python3 -c "import json; print(json.load(open('pcd.stats.json'))['completed'])")
echo "4096 buffered 4k reads: $n0 requests without the page cache, $n1 with it, $nd by default"
[ "$n0" = 4096 ] && [ "$n1" -lt 200 ] && [ "$nd" = "$n1" ] ||
	fail "read-ahead in virtual time: $n0, $n1 and $nd (default) requests"
# read_ahead_kb as the engine takes it: 512 KiB windows, a quarter as many requests or fewer
pcjob "[r]" rw=read size=16m pagecache=on read_ahead_kb=512 >pc2.fio
"$SIM" --stats pc2.stats.json --output pc2.json pc2.fio >pc2.out 2>&1 || { cat pc2.out; fail "schedsim read_ahead_kb"; }
n2=$(python3 -c "import json; print(json.load(open('pc2.stats.json'))['completed'])")
echo "with read_ahead_kb=512: $n2 requests"
[ "$n2" -le $((n1 * 6 / 10)) ] || fail "read_ahead_kb=512 in virtual time: $n2 requests against $n1"
# the default (pagecache=auto) takes the page cache's tunables; pagecache=none refuses them
pcjob "[r]" rw=read size=16m read_ahead_kb=512 >pc4.fio
"$SIM" --stats pc4.stats.json --output pc4.json pc4.fio >pc4.out 2>&1 || { cat pc4.out; fail "schedsim read_ahead_kb, default"; }
n4=$(python3 -c "import json; print(json.load(open('pc4.stats.json'))['completed'])")
[ "$n4" = "$n2" ] || fail "read_ahead_kb=512 with the default pagecache: $n4 requests against $n2"
pcjob "[r]" rw=read size=16m pagecache=none read_ahead_kb=512 >pc3.fio
"$SIM" --output pc3.json pc3.fio >pc3.out 2>&1 && fail "read_ahead_kb with pagecache=none was accepted"
grep -q "read_ahead_kb=512: needs pagecache=on" pc3.out || fail "read_ahead_kb with pagecache=none: $(cat pc3.out)"
for mb in 16 1024; do
	pcjob "[w]" rw=write size=64m pagecache=on pagecache_mb=$mb >pcw$mb.fio
	"$SIM" --output "pcw$mb.json" "pcw$mb.fio" >pcw.out 2>&1 || { cat pcw.out; fail "schedsim pagecache_mb=$mb"; }
done
w16=$(python3 -c "import json; print(round(json.load(open('pcw16.json'))['jobs'][0]['write']['bw'] / 1024))")
w1024=$(python3 -c "import json; print(round(json.load(open('pcw1024.json'))['jobs'][0]['write']['bw'] / 1024))")
echo "64 MiB buffered writer: $w16 MiB/s with pagecache_mb=16, $w1024 with 1024"
[ "$w1024" -gt $((4 * w16)) ] || fail "pagecache_mb: $w16 and $w1024 MiB/s"
# what the engine refuses in a job file, schedsim refuses too, with the engine's words: one line,
# exit 2, nothing simulated (a tunable of another scheduler, a parameter of another model)
simbad() { # PATTERN LINES...
	local pat=$1
	shift
	pcjob "[r]" rw=read size=1m "$@" >sb.fio
	"$SIM" --output sb.json sb.fio >sb.out 2>&1
	local rc=$?
	[ $rc = 2 ] || { cat sb.out; fail "schedsim $*: exit $rc, expected 2"; }
	[ "$(wc -l <sb.out)" = 1 ] && grep -q "$pat" sb.out || fail "schedsim $*: $(cat sb.out)"
}
simbad "job 'r': quantum: no such tunable for sched=bfq" sched=bfq quantum=4
simbad "job 'r': max_budget: no such tunable for sched=cfq" max_budget=100
simbad "job 'r': ssd_units=4: not a parameter of device_model=hdd" ssd_units=4
# and the same tunables and parameters of the chosen scheduler and model are taken
pcjob "[r]" rw=read size=1m sched=bfq max_budget=100 hdd_rpm=5400 sched_group=a sched_weight=200 >sbok.fio
"$SIM" --output sbok.json sbok.fio >sbok.out 2>&1 || { cat sbok.out; fail "schedsim bfq max_budget"; }
# schedsim's own options: a bad one is one line naming it, exit 2, before fio is run; --help exits
# 0 with a description for every option
pcjob "[r]" rw=read size=1m >cli.fio
cli_bad() { # PATTERN ARGS...
	local pat=$1
	shift
	"$SIM" "$@" >cli.out 2>&1
	local rc=$?
	[ $rc = 2 ] || { cat cli.out; fail "schedsim $*: exit $rc, expected 2"; }
	[ "$(wc -l <cli.out)" = 1 ] && grep -q -- "$pat" cli.out || fail "schedsim $*: $(cat cli.out)"
}
cli_bad "--seed=abc: not an unsigned integer" --seed abc cli.fio
cli_bad "--seed=-1: not an unsigned integer" --seed=-1 cli.fio
cli_bad "--io-overhead-ns=5x: not an unsigned integer" --io-overhead-ns 5x cli.fio
cli_bad "--bogus: unknown option" --bogus cli.fio
cli_bad "--output: needs a value" cli.fio --output
cli_bad "no job file given"
"$SIM" --check --seed 7 --io-overhead-ns=500 cli.fio >cli.out 2>&1 || { cat cli.out; fail "schedsim good options"; }
"$SIM" --help >help.out 2>&1 || fail "schedsim --help: exit $?"
for o in --fio --output --seed --io-overhead-ns --stats --check --save-showcmd --showcmd-file --help; do
	grep -qE -- "^  (-h, )?$o( [A-Z]+)? +[a-z]" help.out || fail "schedsim --help does not describe $o: $(cat help.out)"
done
# resume: nothing runs again
"$SB" run "$M15" --db "$T/db.sqlite" --clock virtual >again.log 2>&1 || fail "again"
grep -q "0 ok, 0 failed, 8 done before" again.log || fail "resume"
# refusals: one line naming the matrix line, the cell and the option; exit 2; nothing created
bad() { # TOKENS PATTERN
	cat >bad.ini <<EOF
[matrix]
jobs = $TOP/jobs/crosscheck-none/read.fio
clock = virtual
runtime = 1
[set]
engine.device_model = hdd
[axis.x]
a = embedded:none
b = $1
EOF
	"$SB" run bad.ini --db "$T/bad.sqlite" >bad.out 2>&1
	local rc=$?
	[ $rc = 2 ] || { cat bad.out; fail "'$1': exit $rc, expected 2"; }
	[ "$(wc -l <bad.out)" = 1 ] || { cat bad.out; fail "'$1': more than one line"; }
	grep -q "bad.ini:9: cell 'x=b' (clock=virtual.*$2" bad.out || fail "'$1': $(cat bad.out)"
	[ -e bad.sqlite ] && fail "'$1': a database was created"
	return 0
}
bad "embedded:none bssplit=4k/50:8k/50" "'bssplit' is not modelled in virtual time"
bad "embedded:cfq slice_idle=-4" "slice_idle=-4: out of range"
bad "embedded:none engine.sched_trace=$T/trace" "sched_trace= is not modelled"
bad "embedded:none engine.device_model=none" "virtual time needs a device model"
bad "embedded:none rw=trim" "rw=trim is not modelled"
echo PASS
